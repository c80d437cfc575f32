"""Set, category and item names in every form of a score report, above all the comment
(`--format md`): a name is shown as written, never read as markdown.

Names are identifiers (ASCII letters, digits, ``.``, ``_``, ``-``), and of those only an
underscore acts in a comment: ``__init__`` reads as a bold "init", ``_draft_`` as an italic
"draft". Before, the metric table's header, the comment's title and the notes (the stale items
scored with --allow-stale, the answer lines that retrieved nothing) wrote them as they were.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path
from typing import Any

import pytest
from markdown_it import MarkdownIt
from scoring_ws import GUIDE, make_workspace, write_run

from conftest import commit_all, write_files
from evalset.corpus.snapshot import take_snapshot

NAMES = {
    # case: (set name, category names, item ids' stems)
    "bold": ("__s__", ["__init__", "__x__y"], ["__a__", "__b__"]),
    "italic": ("_s_", ["_draft_", "_x_._y_"], ["_a_", "_b_"]),
    "mixed": ("s_", ["a_b_c", "_", "__", "___"], ["a_", "_b", "___c___"]),
    "plain": ("s", ["lookup", "multi-hop", "1.", "-"], ["q-1", "q.2"]),
}

_MD = MarkdownIt("commonmark").enable(["table", "strikethrough"])
LABELS = {"Misses, start reading here:", "Answer misses, start reading here:", "Judge:",
          "No answer misses.", "Retrieval misses, start reading here:"}  # fmt: skip
"""What a comment itself writes in bold."""


def _ws(root: Path, set_name: str, categories: list[str], stems: list[str]) -> Path:
    """A workspace whose items (two per category: one hit, one miss) are stale: the section
    they cite changed after they were verified."""
    repo, snapshot = make_workspace(root)
    items, run = [], []
    for k, category in enumerate(categories):
        for j, stem in enumerate(stems):
            ident = f"{stem}{k}"
            items.append({"id": ident, "question": f"Question {k} {j}?", "category": category,
                          "expected_sources": ["guide.md#returns"],
                          "key_points": [{"text": "Return within 14 days",
                                          "sources": ["guide.md#returns"]}],
                          "holdout": False, "verified": snapshot})  # fmt: skip
            run.append({"id": ident, "answer": "No." if j else "Return within 14 days",
                        "retrieved": ["faq.md" if j else "guide.md#returns"]})  # fmt: skip
    data = {"evalset": 1, "name": set_name, "categories": dict.fromkeys(categories, "a kind"),
            "items": items}  # fmt: skip
    (repo / "sets" / "docs.yaml").unlink()
    write_files(repo, {f"sets/{set_name}.yaml": json.dumps(data, indent=1),
                       "corpus/guide.md": GUIDE.replace("14 days", "15 days")})  # fmt: skip
    take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset")
    write_run(repo / "run.jsonl", run)
    write_run(repo / "answers.jsonl", [{k: v for k, v in line.items() if k != "retrieved"}
                                       for line in run])  # fmt: skip
    commit_all(repo, "names")
    return repo


def _ids(categories: list[str], stems: list[str]) -> list[str]:
    return [f"{stem}{k}" for k in range(len(categories)) for stem in stems]


def _check_comment(text: str, set_name: str, categories: list[str], ids: list[str]) -> None:
    """Every name reads as written: no emphasis but the comment's own, each table's header
    the names, the title the set's name, the notes the ids."""
    rendered = _MD.render(text)
    assert "<em>" not in rendered
    assert set(re.findall(r"<strong>(.*?)</strong>", rendered)) <= LABELS
    heads = [
        [html.unescape(c) for c in re.findall(r"<th>(.*?)</th>", head)]
        for head in re.findall(r"<thead>(.*?)</thead>", rendered, re.S)
    ]
    assert ["metric", "overall", *categories] in heads
    title = re.search(r"<h3>(.*?)</h3>", rendered)
    assert title is not None and html.unescape(title[1]).split(": ")[1].startswith(set_name + " ")
    quoted = html.unescape(" ".join(re.findall(r"<blockquote>(.*?)</blockquote>", rendered, re.S)))
    stale = re.search(r"scored and marked \(--allow-stale\): ([^<\n]*)", quoted)
    assert stale is not None and stale[1].split(", ") == ids


@pytest.mark.parametrize("form", ["md", "text", "json"])
@pytest.mark.parametrize("kind", ["retrieval", "answers", "retrieval+answers"])
@pytest.mark.parametrize("case", list(NAMES))
def test_names_read_as_written_in_every_form(
    tmp_path: Path, cli: Any, case: str, kind: str, form: str
) -> None:
    set_name, categories, stems = NAMES[case]
    repo = _ws(tmp_path / "repo", set_name, categories, stems)
    ids = _ids(categories, stems)
    command, run = kind.split("+")[-1], "answers.jsonl" if kind == "answers" else "run.jsonl"
    judge = ["--judge", "exact"] if command == "answers" else []
    shown = {"md": ["--format", "md"], "text": [], "json": ["--json"]}[form]
    done = cli(repo, "score", command, set_name, run, *judge, "--allow-stale", *shown)
    assert done.code == 0, done.err
    if form == "md":
        _check_comment(done.out, set_name, categories, ids)
    elif form == "text":
        assert done.out.startswith(f"{set_name} unreleased")
        assert f"(--allow-stale): {', '.join(ids)}" in done.out
        header = next(line for line in done.out.splitlines() if line.startswith("metric"))
        assert header.split()[1:] == ["overall", *categories]
    else:
        report = json.loads(done.out)
        assert report["evalset"]["set"] == set_name
        assert list(report["categories"]) == categories
        assert [s["id"] for s in report["stale"]] == ids


@pytest.mark.parametrize("case", list(NAMES))
def test_ids_of_lines_that_retrieved_nothing_read_as_written(tmp_path: Path, cli: Any,
                                                             case: str) -> None:  # fmt: skip
    """Some answer lines retrieved, others did not: the note names those that did not."""
    set_name, categories, stems = NAMES[case]
    repo = _ws(tmp_path / "repo", set_name, categories, stems)
    lines = [json.loads(line) for line in (repo / "answers.jsonl").read_text().splitlines()]
    lines[-1]["retrieved"] = ["guide.md#returns"]  # the others' lines did not retrieve
    write_run(repo / "mixed.jsonl", lines)
    done = cli(repo, "score", "answers", set_name, "mixed.jsonl", "--judge", "exact",
               "--allow-stale", "--format", "md")  # fmt: skip
    assert done.code == 0, done.err
    _check_comment(done.out, set_name, categories, _ids(categories, stems))
    rendered = html.unescape(_MD.render(done.out))
    found = re.search(r"\(line 1 (\S+), line 2 (\S+),", rendered)
    assert found is not None and [found[1], found[2]] == [f"{stem}0" for stem in stems[:2]]


OVERALL = {
    # case: (categories, the columns every table shows after "overall")
    "named-overall": (["overall", "b"], ["overall (category)", "b"]),
    "only-overall": (["overall"], ["overall (category)"]),
    "alike": (["Overall", "overall-1", "overall.x"], ["Overall", "overall-1", "overall.x"]),
}


@pytest.mark.parametrize("form", ["md", "text", "json", "html"])
@pytest.mark.parametrize("case", list(OVERALL))
def test_a_category_named_overall_is_not_the_overall_column(
    tmp_path: Path, cli: Any, case: str, form: str
) -> None:
    """Before, a category named "overall" headed a second column "overall" beside the column
    of every item, in every table, and its bars were drawn and named as the overall bar."""
    categories, shown = OVERALL[case]
    repo = _ws(tmp_path / "repo", "s", categories, ["a"])
    given = {"md": ["--format", "md"], "text": [], "json": ["--json"],
             "html": ["--html", "page.html"]}[form]  # fmt: skip
    done = cli(repo, "score", "retrieval", "s", "run.jsonl", "--allow-stale", *given)
    assert done.code == 0, done.err
    if form == "md":
        heads = re.findall(r"^\| metric \| (.*) \|$", done.out, re.M)
        assert heads[0].split(" | ") == ["overall", *shown]
    elif form == "text":
        header = next(line for line in done.out.splitlines() if line.startswith("metric"))
        assert re.split(r"\s{2,}", header)[1:] == ["overall", *shown]
    elif form == "json":
        assert list(json.loads(done.out)["categories"]) == categories
    else:
        page = (repo / "page.html").read_text(encoding="utf-8")
        table = page.split('<table class="categories">')[1].split("</thead>")[0]
        heads = [html.unescape(h) for h in re.findall(r"<span class=\"name\">(.*?)</span>", table)]
        assert heads == ["overall", *shown]
        bars = re.findall(r'<rect class="([^"]*)" data-category="([^"]*)" data-metric="mrr"', page)
        assert bars == [("bar overall", "overall"), *(("bar", name) for name in shown)]
