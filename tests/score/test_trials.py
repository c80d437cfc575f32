"""Retrieval scoring of several trials in which no item scored differently."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from scoring_ws import RUN, score_ws, write_run

__all__ = ["score_ws"]


def test_trials_that_all_scored_the_same(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    # before the fix: "internal error (ValueError: cannot reshape array of size 0 ...)"
    lines = [{**line, "trial": t} for line in RUN for t in (0, 1)]
    write_run(score_ws / "run.jsonl", lines)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "r.json")
    assert done.code == 0, done.err
    report = json.loads((score_ws / "r.json").read_text())
    assert report["item_spread"] == []
    assert report["spread"]["trials"] == 2
    assert report["spread"]["overall"]["hit@1"]["std"] == 0.0
    comment = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--format", "md").out
    lines = comment.splitlines()
    header = "| item | category | split | missed | expected | retrieved (first 10) |"
    at = lines.index(header)  # several trials: in how many each item missed
    assert lines[at + 2].startswith(
        "| `a3` | lookup | holdout | 2/2 trials | (a holdout item: not shown) |"
    )


def test_the_header_counts_the_trials_of_the_scored_lines(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Trial numbers only ignored lines carry (a draft's, an unanswerable item's) are no
    trials of the scores: before, the header said "2 trial(s)" with every scored row in
    trial 0 and no spread. The report's run still lists every trial number of its lines."""
    ignored = [{"id": "d1", "retrieved": [], "trial": 7}, {"id": "r1", "retrieved": [], "trial": 5}]
    write_run(score_ws / "run.jsonl", [*RUN, *ignored])
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "r.json")
    assert done.code == 0, done.err
    report = json.loads((score_ws / "r.json").read_text())
    assert (report["counts"]["trials"], report["run"]["trials"], report["spread"]) == (1, 3, None)
    assert f"{report['counts']['scored']} item(s) scored, 1 trial(s), run run.jsonl" in done.out
    comment = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--format", "md").out
    assert " item(s) scored, 1 trial(s); set " in comment
    write_run(score_ws / "run.jsonl", [*RUN, *({**line, "trial": 1} for line in RUN), *ignored])
    again = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--json")
    report = json.loads(again.out)
    assert (report["counts"]["trials"], report["run"]["trials"]) == (2, 4)
    assert report["spread"]["trials"] == 2


def _twice(ident: str, retrieved: list[str]) -> list[dict[str, object]]:
    """The hand-scored run as trial 0, and ``ident`` again as trial 1, retrieving
    ``retrieved``."""
    return [*RUN, {"id": ident, "retrieved": retrieved, "trial": 1}]


SAME_ITEMS = [
    # (what the run gives, its lines, hit@1's spread: None when no item has every trial)
    # hit@1 in trial 0 of RUN: a1 0, a2 1, a3 0, m1 1, m2 0 (0.4)
    ("one item given twice", _twice("a1", ["guide.md#returns"]),
     {"min": 0.0, "max": 1.0, "std": 0.5**0.5, "n": 1}),
    ("one item twice, the same", _twice("a2", ["guide.md#shipping"]),
     {"min": 1.0, "max": 1.0, "std": 0.0, "n": 1}),
    ("every item twice, one better",
     [*RUN, *({**line, "trial": 1} for line in RUN if line["id"] != "a1"),
      {"id": "a1", "retrieved": ["guide.md#returns"], "trial": 1}],
     {"min": 0.4, "max": 0.6, "std": 0.2 / 2**0.5, "n": 5}),
    ("every item twice but m2, which is left out",
     [*(line for line in RUN if line["id"] != "m2"),
      *({**line, "trial": 1} for line in RUN if line["id"] not in ("a1", "m2")),
      {"id": "a1", "retrieved": ["guide.md#returns"], "trial": 1}],
     {"min": 0.4, "max": 0.6, "std": 0.2 / 2**0.5, "n": 5}),
    ("no item in both trials",
     [{"id": "a1", "retrieved": ["guide.md#returns"]},
      {"id": "a2", "retrieved": ["faq.md#hours"], "trial": 1}],
     None),
]  # fmt: skip


@pytest.mark.parametrize(("lines", "want"), [c[1:] for c in SAME_ITEMS],
                         ids=[c[0] for c in SAME_ITEMS])  # fmt: skip
def test_the_spread_compares_trials_over_the_same_items(  # type: ignore[no-untyped-def]
    score_ws: Path, cli, lines: list[dict[str, object]], want: dict[str, float] | None
) -> None:
    """Each trial's mean is over the items the run gave every trial (and those it left out,
    as retrieving nothing in each): an item given in one trial only would make two trials
    of the same retriever differ by which items they hold."""
    write_run(score_ws / "run.jsonl", lines)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--json")
    assert done.code == 0, done.err
    spread = json.loads(done.out)["spread"]
    if want is None:
        assert spread is None
        return
    found = spread["overall"]["hit@1"]
    assert found.keys() == want.keys()
    assert [found[k] for k in ("min", "max", "n")] == [want[k] for k in ("min", "max", "n")]
    assert math.isclose(found["std"], want["std"], rel_tol=1e-12), found
