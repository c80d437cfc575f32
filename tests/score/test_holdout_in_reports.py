"""A holdout item's labels never appear in a report, in any of its forms: the people tuning
prompts and retrievers read reports in CI logs and pull-request comments. What the run
retrieved and answered is the system's output, not a label, and is shown; what the item
expects (its sources, key points, short answer) is not.

Each output of both scorers (the JSON report, the terminal, the markdown comment, the HTML
page) is searched for labels of a holdout item that nothing else in the set or the run
holds, while a tuning item's labels, its miss listed the same way, are shown; and so is
what a judge said when it failed on a holdout item's claim."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from answers_ws import ANSWERS, make_answers_ws, write_run

from conftest import commit_all
from evalset.score.answers import HIDDEN_ERROR
from fake_openai import FakeServer

HOLDOUT_ITEM = """\
  - id: h1
    question: When does the shop open?
    category: lookup
    expected_sources: [faq.md#hours]
    key_points:
      - text: Open from nine to five Monday to Saturday
        sources: [faq.md#hours]
    answer: nine to five
    holdout: true
    verified: {snapshot}
"""
LABELS = ("faq.md#hours", "Open from nine to five", "nine to five")
"""The holdout item's labels: cited by no other item, said by no answer of the run."""
TUNING_MISS = "guide.md#damaged-returns"
"""A label of a tuning item the run misses too: a miss still says what it expected."""


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = make_answers_ws(tmp_path / "repo")
    set_file = root / "sets" / "qa.yaml"
    text = set_file.read_text()
    snapshot = text.split("verified: ", 1)[1].split()[0]
    set_file.write_text(text + HOLDOUT_ITEM.format(snapshot=snapshot))
    commit_all(root, "a holdout item")
    # k2 (tuning here) misses its section; h1, held out, misses its own
    text = set_file.read_text().replace(
        "answer: 30 days\n    holdout: true", "answer: 30 days\n    holdout: false"
    )
    set_file.write_text(text)
    commit_all(root, "k2 to tuning")
    lines = [{**line, "retrieved": ["guide.md#returns"]} for line in ANSWERS]
    lines.append({"id": "h1", "answer": "We open early.", "retrieved": ["guide.md#returns"]})
    write_run(root / "run.jsonl", lines)
    return root


OUTPUTS = {
    "json": ["--json"],
    "terminal": [],
    "markdown": ["--format", "md"],
}


@pytest.mark.parametrize("scorer", ["retrieval", "answers"])
@pytest.mark.parametrize("form", ["json", "terminal", "markdown", "html", "report file"])
def test_no_output_shows_a_holdout_items_labels(repo: Path, cli, scorer: str, form: str) -> None:  # type: ignore[no-untyped-def]
    command = ["score", scorer, "qa", "run.jsonl", "-o", "report.json", "--html", "page.html"]
    if scorer == "answers":
        command += ["--judge", "exact"]
    done = cli(repo, *command, *OUTPUTS.get(form, []))
    assert done.code == 0, done.err
    shown = {
        "report file": (repo / "report.json").read_text(),
        "html": (repo / "page.html").read_text(),
    }.get(form, done.out)
    assert "h1" in shown  # the holdout item's miss is listed
    for label in LABELS:
        assert label not in shown, (form, label)
    # the retrieval misses (the answers terminal and comment list the answer misses only)
    if scorer == "retrieval" or form in ("json", "report file", "html"):
        assert TUNING_MISS in shown  # a tuning item's miss says what it expected
        if form in ("terminal", "markdown", "html"):
            assert "(a holdout item: not shown)" in shown


def _unsure(messages: list[dict[str, Any]]) -> str:
    """A model that quotes what it was asked about instead of answering yes or no."""
    asked = messages[-1]["content"].split('"""\n')[-2].rstrip("\n")
    return f"Unsure: {asked}"


def test_a_judges_failure_on_a_holdout_item_is_not_quoted(repo: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """A judge's reply is shown when it can be read as no verdict, and models quote the claim
    they were asked about: on a holdout item, that reply would carry its labels."""
    monkeypatch.setenv("TEST_KEY", "sk-test")
    with FakeServer() as model:
        model.answer = _unsure
        config = repo / "evalset.toml"
        config.write_text(
            config.read_text() + f'[judges.fake]\nkind = "openai"\nmodel = "fake-1"\n'
            f'base_url = "{model.url}"\napi_key_env = "TEST_KEY"\nretries = 0\n'
        )
        done = cli(repo, "score", "answers", "qa", "run.jsonl", "--judge", "fake", "-o",
                   "report.json", "--html", "page.html", "--json")  # fmt: skip
    assert done.code == 1, done.err  # claims the judge could not decide
    report = json.loads(done.out)
    errors = {(e["id"], e["claim"]): e["error"] for e in report["judge_errors"]}
    assert errors[("h1", "key_points[0]")] == HIDDEN_ERROR
    assert "Return within 14 days of delivery" in errors[("k1", "key_points[0]")]  # tuning
    for shown in (done.out, (repo / "report.json").read_text(), (repo / "page.html").read_text()):
        for label in LABELS:
            assert label not in shown, label
