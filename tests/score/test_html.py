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
from scoring_ws import RUN, score_ws, write_run

from evalset.score.html import CHART_HEIGHT

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


def test_every_category_bar_and_interval_is_drawn(score_ws: Path, cli, browser) -> None:  # type: ignore[no-untyped-def]
    write_run(score_ws / "run.jsonl", RUN)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "reports/score.json",
               "--html", "reports/score.html")  # fmt: skip
    assert done.code == 0, done.err
    report = json.loads((score_ws / "reports" / "score.json").read_text())
    page = browser.new_page()
    requests: list[str] = []
    page.on("request", lambda request: requests.append(request.url))
    url = (score_ws / "reports" / "score.html").as_uri()
    page.goto(url)
    assert requests == [url], "the page must need nothing but itself"

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
    assert drawn == len(report["definitions"]) * 3  # overall, lookup, multi

    pin = page.locator("pre.pin").inner_text()
    assert report["evalset"]["fingerprint"] in pin and '"set": "docs"' in pin
    misses = page.locator("table.misses tbody tr")
    assert misses.count() == 1 and misses.first.inner_text().startswith("a3")
    assert page.locator("h2#misses").inner_text() == "Misses: start reading here (1)"
    page.screenshot(path=str(score_ws / "reports" / "score.png"), full_page=True)
    assert (score_ws / "reports" / "score.png").stat().st_size > 10_000
