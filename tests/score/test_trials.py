"""Retrieval scoring of several trials in which no item scored differently."""

from __future__ import annotations

import json
from pathlib import Path

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
