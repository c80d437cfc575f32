"""The HTML report in a real browser: Debian's Chromium, driven by Playwright, draws every
category's bar and interval for every metric, shows the pin and the misses, and fetches
nothing over the network.

`.ci/run` installs Chromium when /usr/bin/chromium is missing; on a developer's machine
without it the test is skipped, in CI it fails.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from answers_ws import ANSWERS, make_answers_ws
from answers_ws import write_run as write_answers
from scoring_ws import RUN, make_workspace, score_ws, write_run

from conftest import commit_all, write_files
from evalset.score.html import CHART_HEIGHT, LABEL, bar_labels

__all__ = ["score_ws"]

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]  # fmt: skip


@pytest.fixture
def browser():  # type: ignore[no-untyped-def]
    if not CHROMIUM.exists():
        if os.environ.get("CI"):
            pytest.fail(f"{CHROMIUM} is missing: .ci/run installs Debian's chromium package")
        pytest.skip(f"{CHROMIUM} is missing (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=str(CHROMIUM), args=FLAGS, headless=True)
        yield launched
        launched.close()


def _check_charts(page, report: dict) -> int:  # type: ignore[no-untyped-def]
    """Every group's bar and interval, for every metric, drawn where the report says; the
    number of bars drawn."""
    drawn = 0
    for metric in report["definitions"]:
        for group, table in [("overall", report["overall"]), *report["categories"].items()]:
            entry = table[metric]
            bar = page.locator(f'rect.bar[data-category="{group}"][data-metric="{metric}"]')
            interval = page.locator(
                f'line.interval[data-category="{group}"][data-metric="{metric}"]'
            )
            if entry["n"] == 0:  # no item in the category: nothing to draw, and none drawn
                assert bar.count() == 0 and interval.count() == 0
                continue
            assert bar.count() == 1 and interval.count() == 1, (group, metric)
            box, whisker = bar.bounding_box(), interval.bounding_box()
            assert box is not None and whisker is not None
            assert box["width"] > 10
            assert box["height"] == pytest.approx(entry["value"] * CHART_HEIGHT, abs=1)
            span = (entry["high"] - entry["low"]) * CHART_HEIGHT
            assert whisker["height"] == pytest.approx(span, abs=2)  # plus the stroke's width
            assert float(bar.get_attribute("data-low")) == entry["low"]
            # the whisker spans the interval around the bar's top
            assert whisker["y"] <= box["y"] + 1 <= whisker["y"] + whisker["height"] + 2
            drawn += 1
    return drawn


def _open(browser, path: Path):  # type: ignore[no-untyped-def]
    """The page in the browser, checked to fetch nothing but itself."""
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    url = path.as_uri()
    page.goto(url)
    assert requests == [url], "the page must need nothing but itself"
    return page


def test_every_category_bar_and_interval_is_drawn(score_ws: Path, cli, browser) -> None:  # type: ignore[no-untyped-def]
    write_run(score_ws / "run.jsonl", RUN)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "reports/score.json",
               "--html", "reports/score.html")  # fmt: skip
    assert done.code == 0, done.err
    report = json.loads((score_ws / "reports" / "score.json").read_text())
    page = _open(browser, score_ws / "reports" / "score.html")
    drawn = _check_charts(page, report)
    assert drawn == len(report["definitions"]) * 3  # overall, lookup, multi

    pin = page.locator("pre.pin").inner_text()
    assert report["evalset"]["fingerprint"] in pin and '"set": "docs"' in pin
    misses = page.locator("table.misses tbody tr")
    assert misses.count() == 1 and misses.first.inner_text().startswith("a3")
    assert page.locator("h2#misses").inner_text() == "Misses: start reading here (1)"
    page.screenshot(path=str(score_ws / "reports" / "score.png"), full_page=True)
    assert (score_ws / "reports" / "score.png").stat().st_size > 10_000


@pytest.mark.parametrize("retrieved", [False, True], ids=["answers", "retrieval+answers"])
def test_an_answers_page_draws_every_metric_and_lists_the_answer_misses(
    tmp_path: Path,
    cli,
    browser,
    retrieved: bool,  # type: ignore[no-untyped-def]
) -> None:
    repo = make_answers_ws(tmp_path / "repo")
    lines = [{**line, "retrieved": ["guide.md#returns"]} if retrieved else line for line in ANSWERS]
    write_answers(repo / "run.jsonl", lines)
    done = cli(repo, "score", "answers", "qa", "run.jsonl", "--judge", "exact", "-o",
               "reports/answers.json", "--html", "reports/answers.html")  # fmt: skip
    assert done.code == 0, done.err
    assert "page written to reports/answers.html" in done.out
    report = json.loads((repo / "reports" / "answers.json").read_text())
    assert report["report"]["kind"] == ("retrieval+answers" if retrieved else "answers")
    page = _open(browser, repo / "reports" / "answers.html")

    tables = [report["overall"], *report["categories"].values()]
    # each group's bar for each metric it has items for
    assert _check_charts(page, report) == sum(1 for t in tables for e in t.values() if e["n"])
    lower = [m for m, d in report["definitions"].items() if d.get("better") == "lower"]
    assert lower  # violation_rate, false_refusal
    for metric in lower:
        caption = page.locator(f'figure[data-metric="{metric}"] figcaption').inner_text()
        assert caption == f"{metric} (lower is better)"

    misses = report["answer_misses"]
    assert page.locator("h2#answer-misses").inner_text() == (
        f"Answer misses: start reading here ({len(misses)})"
    )
    rows = page.locator("table.answer-misses tbody tr")
    assert rows.count() == len(misses) > 0
    for k, miss in enumerate(misses):
        cells = rows.nth(k).locator("td").all_inner_texts()
        assert cells[0].split(" ")[0] == miss["id"]
        assert cells[4] == "; ".join(miss["problems"])
    judge = page.locator("p.judge").all_inner_texts()
    assert judge[0].startswith("judge exact") and judge[1].startswith("agreement with people")
    retrieval = page.locator("h2#misses")
    if retrieved:
        found = len(report["misses"])
        assert retrieval.inner_text() == f"Retrieval misses: start reading here ({found})"
    else:
        assert retrieval.count() == 0


def test_a_long_unbroken_answer_wraps_inside_the_page(tmp_path: Path, cli, browser) -> None:  # type: ignore[no-untyped-def]
    repo = make_answers_ws(tmp_path / "repo")
    long = "x" * 5000
    write_answers(repo / "run.jsonl", [{**line, "answer": long} for line in ANSWERS])
    done = cli(repo, "score", "answers", "qa", "run.jsonl", "--judge", "exact", "--html",
               "page.html")  # fmt: skip
    assert done.code == 0, done.err
    page = _open(browser, repo / "page.html")
    page.set_viewport_size({"width": 1280, "height": 800})
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= 1280  # no sideways scrolling


def test_long_names_and_values_keep_the_page_readable(score_ws: Path, cli, browser) -> None:  # type: ignore[no-untyped-def]
    """Category names that share their first characters get labels that differ; one very
    long retrieved value is cut, as the comment cuts it, and does not squeeze the other
    columns of the misses to a letter each; the pin shown is the pin, less its item
    fingerprints, never a placeholder in their place."""
    first, second = "paraphrased-" + "x" * 150, "paraphrased-" + "x" * 149 + "Q"
    set_file = score_ws / "sets" / "docs.yaml"
    text = set_file.read_text().replace("lookup", first).replace("multi", second)
    set_file.write_text(text)
    run = [dict(line) for line in RUN]
    run[2] = {"id": "a3", "retrieved": ["a" * 10_000]}  # a3 misses: its row is in the table
    write_run(score_ws / "run.jsonl", run)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "reports/score.json",
               "--html", "reports/score.html")  # fmt: skip
    assert done.code == 0, done.err
    report = json.loads((score_ws / "reports" / "score.json").read_text())
    page = _open(browser, score_ws / "reports" / "score.html")
    page.set_viewport_size({"width": 1300, "height": 900})
    assert _check_charts(page, report) == len(report["definitions"]) * 3
    figure = page.locator("figure").first
    labels = figure.locator("text.label").evaluate_all(
        "texts => texts.map(t => t.lastChild.textContent)"  # after the tooltip's <title>
    )
    assert len(labels) == 3 and len(set(labels)) == 3, labels

    row = page.locator("table.misses tbody tr").first
    assert row.inner_text().startswith("a3")
    cells = row.locator("td")
    lines = cells.evaluate_all(  # the lines each cell's text takes
        "cells => cells.map(c => { const r = document.createRange(); r.selectNodeContents(c);"
        " return new Set([...r.getClientRects()].map(b => Math.round(b.top))).size })"
    )
    assert lines[0] == 1 and lines[2] == 1, lines  # item, split
    for k in range(3):  # item, category, split: no column squeezed to a letter or two
        assert cells.nth(k).bounding_box()["width"] >= 60
    retrieved = cells.last.inner_text()
    assert retrieved.startswith("a" * 1000 + "…") and len(retrieved) < 1100
    assert page.locator("table.misses").bounding_box()["height"] < 900
    assert "a" * 10_000 in json.dumps(report["misses"])  # the report keeps it whole

    shown = json.loads(page.locator("pre.pin").inner_text())
    assert "item_fingerprints" not in shown
    assert shown == {k: v for k, v in report["evalset"].items() if k != "item_fingerprints"}


@pytest.mark.parametrize(
    ("names", "labels"),
    [
        (["overall", "lookup"], ["overall", "lookup"]),
        (["overall", "direct-lookup-of-policies"], ["overall", "direct-lookup…"]),
        (["overall", "paraphrased-" + "x" * 40, "paraphrased-" + "x" * 39 + "Q"],
         ["overall", "paraph…xxxxxx", "paraph…xxxxxQ"]),
        (["overall", "overall"], ["overall #1", "overall #2"]),  # a category so named
        (["a" * 20, "a" * 20 + "b", "a" * 19 + "c" + "a" * 20],
         ["aaaaaa…aaa… #1", "aaaaaa…aaaaab", "aaaaaa…aaa… #2"]),
    ],
)  # fmt: skip
def test_bar_labels_are_short_and_never_alike(names: list[str], labels: list[str]) -> None:
    assert bar_labels(names) == labels
    assert all(len(label) <= LABEL for label in labels)


# --- every label readable, every bar inside its chart, whatever the categories ---------------

POLYGONS = """figure => [...figure.querySelectorAll(
    'rect.bar, line.interval, line.interval-cap, text.label, text.tick, text.empty')].map(el => {
  const b = el.getBBox(), m = el.getScreenCTM();
  const corners = [[b.x, b.y], [b.x + b.width, b.y], [b.x + b.width, b.y + b.height],
                   [b.x, b.y + b.height]];
  return {kind: el.getAttribute('class'), category: el.dataset.category,
          points: corners.map(([x, y]) => [m.a * x + m.c * y + m.e, m.b * x + m.d * y + m.f])};
})"""
"""Each drawn thing of a chart as the four corners of its box on the screen (a slanted label's
box slanted with it)."""


def _apart(one: list[list[float]], other: list[list[float]]) -> bool:
    """Whether two convex outlines are apart (touching allowed): some edge's normal separates
    their projections."""
    for shape in (one, other):
        for k in range(len(shape)):
            (x1, y1), (x2, y2) = shape[k], shape[(k + 1) % len(shape)]
            axis = (y1 - y2, x2 - x1)
            if axis == (0.0, 0.0):
                continue
            a = [axis[0] * x + axis[1] * y for x, y in one]
            b = [axis[0] * x + axis[1] * y for x, y in other]
            size = (axis[0] ** 2 + axis[1] ** 2) ** 0.5
            if max(a) <= min(b) + size or max(b) <= min(a) + size:  # within a pixel
                return True
    return False


def _categories_ws(root: Path, names: list[str], hits: str, set_name: str = "docs") -> Path:
    """The scoring workspace with a set of one tuning and one holdout item per category of
    ``names``; the run retrieves each item's section (``hits`` "all"), never ("none"), or
    for the tuning items only ("half")."""
    repo, snapshot = make_workspace(root)
    items, run = [], []
    for k, name in enumerate(names):
        for holdout in (False, True):
            ident = f"c{k}-{int(holdout)}"
            items.append({"id": ident, "question": f"Question {ident}?", "category": name,
                          "expected_sources": ["guide.md#returns"],
                          "key_points": [{"text": "Return within 14 days",
                                          "sources": ["guide.md#returns"]}],
                          "holdout": holdout, "verified": snapshot})  # fmt: skip
            hit = hits == "all" or (hits == "half" and not holdout)
            answer = "Return within 14 days of delivery" if hit else "No."
            run.append({"id": ident, "retrieved": ["guide.md#returns" if hit else "faq.md"],
                        "answer": answer})  # fmt: skip
    data = {"evalset": 1, "name": set_name, "categories": dict.fromkeys(names, "a kind"),
            "items": items}  # fmt: skip
    (repo / "sets" / "docs.yaml").unlink()
    write_files(repo, {f"sets/{set_name}.yaml": json.dumps(data, indent=1)})
    write_run(repo / "run.jsonl", run)
    commit_all(repo, "categories")
    return repo


CATEGORY_NAMES = {
    "short": (["lookup", "multi"], "half"),
    "one": (["x"], "half"),
    "wide-letters": (
        ["W" * 14, "M" * 14, "m" * 14, "W" * 200, "W" * 199 + "M", "_x_", "-"],
        "half",
    ),
    "alike": ([f"direct-lookup-{k}" for k in range(12)], "half"),
    "300": ([f"category-{k:03d}" for k in range(300)], "half"),
    "all-1": (["lookup", "multi-hop-questions"], "all"),
    "all-0": (["lookup", "multi-hop-questions"], "none"),
}


@pytest.mark.parametrize("kind", ["retrieval", "answers"])
@pytest.mark.parametrize("case", list(CATEGORY_NAMES))
def test_every_label_is_readable_and_every_bar_inside_its_chart(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
    browser,  # type: ignore[no-untyped-def]
    case: str,
    kind: str,
) -> None:
    """Before, a label wider than its bar's slot (14 wide letters, as `WWWWWW…WWWWWW` or a
    long category name cut so, reads) was written level and reached under its neighbours,
    hiding their labels; now a chart with a label longer than 7 letters slants every label.
    And the chart of 300 categories, or the table headed by a 200-letter name (a header did
    not wrap), made the whole page scroll sideways, tens of thousands of pixels; now each
    scrolls in its own box, and a name wraps in its header."""
    names, hits = CATEGORY_NAMES[case]
    repo = _categories_ws(tmp_path / "repo", names, hits)
    cutoffs = ["--judge", "exact"] if kind == "answers" else ["--k", "5"]
    done = cli(repo, "score", kind, "docs", "run.jsonl", *cutoffs, "-o",
               "report.json", "--html", "page.html")  # fmt: skip
    assert done.code == 0, done.err
    report = json.loads((repo / "report.json").read_text())
    page = _open(browser, repo / "page.html")
    messages: list[str] = []
    page.on("console", lambda message: messages.append(message.text))
    page.set_viewport_size({"width": 1280, "height": 800})
    page.reload()
    assert messages == []
    # the page does not scroll sideways: a chart or table wider than it scrolls in its box,
    # and a long name wraps in its table's header
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    boxes = page.evaluate("""() => [...document.querySelectorAll(
        'figure svg, table.categories, table.splits')].map(drawn => {
            const box = drawn.closest('figure, div.wide') || drawn;
            return [box.getBoundingClientRect().right, box.scrollWidth,
                    drawn.getBoundingClientRect().width]; })""")
    assert len(boxes) == len(report["definitions"]) + 2  # the charts, categories, splits
    for right, scrolled, inside in boxes:
        assert right <= 1280 and scrolled >= inside - 1  # all of it within reach
    heads = page.locator("table.categories th").evaluate_all(
        "cells => cells.map(c => c.getBoundingClientRect().width)"
    )
    assert len(heads) == 2 + len(names) and max(heads) < 400
    figures = page.locator("figure")
    assert figures.count() == len(report["definitions"])
    for k in range(figures.count()):
        figure = figures.nth(k)
        metric = figure.get_attribute("data-metric")
        svg = figure.locator("svg").bounding_box()
        assert svg is not None
        drawn = figure.evaluate(POLYGONS)
        labels = [d["points"] for d in drawn if d["kind"] == "label"]
        assert len(labels) == 1 + len(names)
        bars = {d["category"]: d for d in drawn if d["kind"].startswith("bar")}
        intervals = {d["category"]: d for d in drawn if d["kind"] == "interval"}
        groups = [("overall", report["overall"]), *report["categories"].items()]
        for group, table in groups:  # each group's bar and interval, where the report says
            entry = table[metric]
            if not entry["n"]:
                assert group not in bars and group not in intervals
                continue
            top = min(y for _, y in bars[group]["points"])
            bottom = max(y for _, y in bars[group]["points"])
            assert bottom - top == pytest.approx(entry["value"] * CHART_HEIGHT, abs=1)
            ys = [y for _, y in intervals[group]["points"]]
            assert max(ys) - min(ys) == pytest.approx(
                (entry["high"] - entry["low"]) * CHART_HEIGHT, abs=1
            )
            assert min(ys) - 1 <= top <= max(ys) + 1
        for d in drawn:  # everything inside the chart
            for x, y in d["points"]:
                assert svg["x"] - 1 <= x <= svg["x"] + svg["width"] + 1, (case, d)
                assert svg["y"] - 1 <= y <= svg["y"] + svg["height"] + 1, (case, d)
        for j, label in enumerate(labels):  # no label over another, nor over a value
            others = labels[j + 1 : j + 4] + [d["points"] for d in drawn if d["kind"] == "tick"]
            for other in others:
                assert _apart(label, other), (case, j)


LONG = {
    # what is long: (set name, run file, a retrieved citation no snapshot has)
    "set-name": ("W" * 200, "run.jsonl", "faq.md"),
    "run-path": ("docs", "r" * 200 + "/" + "R" * 200 + ".jsonl", "faq.md"),
    "citation": ("docs", "run.jsonl", "X" * 3000 + ".md#" + "y" * 500),
}


@pytest.mark.parametrize("kind", ["retrieval", "answers"])
@pytest.mark.parametrize("case", list(LONG))
def test_a_long_name_path_or_citation_wraps_inside_the_page(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
    browser,  # type: ignore[no-untyped-def]
    case: str,
    kind: str,
) -> None:
    """Before, the heading (the set's name), the run's path and the notes (an unknown
    citation, shown up to 1,000 characters) had no place to break, and ran off the page's
    right edge, making it scroll sideways thousands of pixels."""
    set_name, run, citation = LONG[case]
    repo = _categories_ws(tmp_path / "repo", ["lookup"], "half", set_name)
    lines = [json.loads(line) for line in (repo / "run.jsonl").read_text().splitlines()]
    lines[0]["retrieved"].append(citation)
    (repo / run).parent.mkdir(parents=True, exist_ok=True)
    write_run(repo / run, lines)
    judge = ["--judge", "exact"] if kind == "answers" else []
    done = cli(repo, "score", kind, set_name, run, *judge, "--html", "page.html")
    assert done.code == 0, done.err
    page = _open(browser, repo / "page.html")
    page.set_viewport_size({"width": 1280, "height": 800})
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    shown = " ".join(page.locator("h1, p").all_inner_texts()).replace("\n", "")
    assert set_name in shown and run in shown
    if case == "citation" and kind == "retrieval":  # the note on it: the first 3 (of 1)
        assert citation[:1000] in shown
