"""Answer scoring on hand-computed cases (answers_ws.py has the table), through the library
and once through the command line; trials, items left out, judge failures, faithfulness,
a report holding retrieval and answers, and the gate on answer metrics."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from answers_ws import ANSWERS, STUB, make_answers_ws, write_run

from evalset.config import find_workspace
from evalset.score.answers import AnswerOptions, score_answers
from evalset.score.gate import gate
from evalset.score.judges.base import JudgeBroken
from evalset.score.judges.command import CommandJudge
from evalset.score.judges.exact import ExactJudge
from evalset.score.report import read_report, write_report


@pytest.fixture
def qa(tmp_path: Path) -> Path:
    return make_answers_ws(tmp_path / "repo")


def _score(repo: Path, lines: list[dict[str, Any]], judge: Any = None, **options: Any) -> Any:
    ws = find_workspace(repo)
    run = write_run(repo / "run.jsonl", lines)
    report, judging = score_answers(
        ws, repo / "sets" / "qa.yaml", run, judge or ExactJudge(), AnswerOptions(**options)
    )
    return report, judging


def _values(table: dict[str, Any]) -> dict[str, Any]:
    return {name: entry["value"] for name, entry in table.items()}


def test_each_metric_matches_the_hand_computed_table(qa: Path) -> None:
    report, _ = _score(qa, ANSWERS)
    assert _values(report.data["overall"]) == {
        "coverage": 0.625,
        "violation_rate": 0.5,
        "exact": 1.0,
        "refusal": 0.5,
        "false_refusal": 0.25,
        "faithfulness": None,  # the exact judge cannot split statements
        "injection": 0.0,
    }
    categories = {name: _values(t) for name, t in report.data["categories"].items()}
    assert categories["lookup"]["coverage"] == 0.75
    assert categories["multi"]["false_refusal"] == 1.0
    assert categories["refuse"]["refusal"] == 0.5
    assert categories["injection"]["injection"] == 0.0
    assert report.data["splits"]["holdout"]["coverage"] == {
        "value": 1.0, "low": 1.0, "high": 1.0, "n": 1
    }  # fmt: skip
    assert report.data["overall"]["coverage"]["n"] == 4
    assert report.data["overall"]["refusal"]["n"] == 2
    rows = {row["id"]: row for row in report.to_json()["items"]}
    assert rows["k1"]["metrics"] == {
        "coverage": 0.5, "violation_rate": 1.0, "exact": 1.0, "false_refusal": 0.0
    }  # fmt: skip
    assert rows["k1"]["answer"]["key_points"] == [True, False]
    assert rows["r2"]["metrics"] == {"refusal": 0.0}
    # which entries were asserted, and how many in all; a holdout item's entry is never shown
    assert report.data["violations"] == [
        {"id": "j1", "trial": 0, "index": 0, "entry": "here is my system prompt"},
        {"id": "k1", "trial": 0, "index": 0, "entry": "returns are free"},
    ]
    assert report.data["counts"]["violations"] == 2
    assert report.data["judge"]["name"] == "exact"
    assert "fit only for short extractive facts" in report.data["judge"]["description"]
    assert report.data["judge"]["agreement"] is None
    # the rate intervals are Wilson's, as for retrieval
    assert report.data["overall"]["violation_rate"]["low"] == pytest.approx(0.15003898915214947)


def test_an_injection_item_passes_only_when_it_covers_and_asserts_nothing(qa: Path) -> None:
    clean = [
        line if line["id"] != "j1" else {"id": "j1", "answer": "We accept cards, bank "
                                         "transfers and gift cards."}
        for line in ANSWERS
    ]  # fmt: skip
    assert _score(qa, clean)[0].data["overall"]["injection"]["value"] == 1.0
    silent = [line if line["id"] != "j1" else {"id": "j1", "answer": "No."} for line in ANSWERS]
    assert _score(qa, silent)[0].data["overall"]["injection"]["value"] == 0.0


def test_trials_count_once_per_item_with_their_spread(qa: Path) -> None:
    lines = [*ANSWERS, {"id": "k2", "trial": 1, "answer": "I don't know."}]
    report, _ = _score(qa, lines)
    # k2: coverage 1 then 0, so 0.5 as an item: (0.5 + 0.5 + 0 + 1) / 4
    assert report.data["overall"]["coverage"]["value"] == 0.5
    assert report.data["run"]["trials"] == 2
    spread = report.data["spread"]
    assert spread["trials"] == 2
    # over k2 alone, the one item of both trials (trial 0's mean over the four answerable
    # items, 0.625, against k2 alone in trial 1 would compare other items): 1, then 0
    assert spread["overall"]["coverage"] == {"min": 0.0, "max": 1.0, "std": math.sqrt(0.5), "n": 1}
    assert report.to_json()["item_spread"] == [
        {"id": "k2", "trials": 2, "metrics": {
            "coverage": {"min": 0.0, "max": 1.0, "std": math.sqrt(0.5)},
            "exact": {"min": 0.0, "max": 1.0, "std": math.sqrt(0.5)},
            "false_refusal": {"min": 0.0, "max": 1.0, "std": math.sqrt(0.5)},
        }}
    ]  # fmt: skip


def test_one_trial_has_no_spread_whatever_its_number(qa: Path) -> None:
    # a run numbering its one trial 1 got a "spread" over that one trial
    report, _ = _score(qa, [{**line, "trial": 1} for line in ANSWERS])
    assert report.data["spread"] is None and report.to_json()["item_spread"] == []


@pytest.mark.parametrize("numbers", [(0, 1), (1, 2)])
def test_an_item_left_out_counts_in_every_trial_of_the_spread(
    qa: Path, numbers: tuple[int, int]
) -> None:
    # k3 left out: it counted in trial 0's means alone (as a trial of its own when the run's
    # trials were 1 and 2), so two trials of the same answers showed a spread
    lines = [{**line, "trial": t} for line in ANSWERS if line["id"] != "k3" for t in numbers]
    report, _ = _score(qa, lines)
    spread = report.data["spread"]
    assert spread["trials"] == 2
    # coverage in each trial: (1/2 + 1 + 0 + 1) / 4, k3 answering nothing
    assert spread["overall"]["coverage"] == {"min": 0.625, "max": 0.625, "std": 0.0, "n": 4}
    assert all(entry["std"] == 0.0 for entry in spread["overall"].values())


def test_trials_of_equal_means_have_no_spread() -> None:
    """Per-trial means of the same scores are equal, whatever the order of the items, and
    equal means have a standard deviation of 0."""
    from evalset.score.answer_report import _spread

    nan = math.nan
    # coverage of items a-e over three trials: a 1, the others 0 (a mean of 0.2 each
    # trial, 0.20000000000000004 as numpy averages three of them: a std of 3.4e-17); then
    # 0.1, 0.2, 0.3 in one order and the other (0.6000000000000001 and 0.6 as summed)
    coverage = [[1.0, 1.0, 1.0]] + [[0.0, 0.0, 0.0]] * 4 + [[0.1, 0.3, 0.1], [0.2, 0.2, 0.2],
                                                          [0.3, 0.1, 0.3]]  # fmt: skip
    ids = [f"i{k}" for k in range(len(coverage))]
    for chosen in (slice(0, 5), slice(5, 8)):
        rows = [(k, t, c) for k, item in enumerate(coverage[chosen]) for t, c in enumerate(item)]
        values = np.array([[c, *[nan] * 6] for _, _, c in rows])
        trials = np.array([t for _, t, _ in rows])
        row_item = np.array([k for k, _, _ in rows])
        spread, _ = _spread(values, trials, row_item, ids[chosen])
        assert spread is not None
        assert spread["overall"]["coverage"]["std"] == 0.0, spread


def test_a_run_has_as_many_trials_as_trial_numbers(qa: Path, cli) -> None:  # type: ignore[no-untyped-def]
    # trials numbered 1 and 2 made "3 trial(s)": the highest number plus one
    write_run(qa / "run.jsonl", [{**line, "trial": t} for line in ANSWERS for t in (1, 2)])
    done = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", "exact", "-o", "r.json")
    assert done.code == 0, done.err
    assert json.loads((qa / "r.json").read_text())["run"]["trials"] == 2
    assert "6 item(s) scored, 2 trial(s), run run.jsonl" in done.out


def test_an_item_the_run_left_out_answers_nothing_and_is_listed(qa: Path) -> None:
    report, _ = _score(qa, [line for line in ANSWERS if line["id"] not in ("k3", "r2")])
    assert report.data["missing"] == ["k3", "r2"]
    rows = {row["id"]: row for row in report.to_json()["items"]}
    assert rows["k3"]["missing"] is True
    assert rows["k3"]["metrics"] == {"coverage": 0.0, "violation_rate": 0.0, "false_refusal": 0.0}
    assert rows["r2"]["metrics"] == {"refusal": 0.0}


def test_a_claim_the_judge_cannot_decide_is_reported_on_its_item_never_as_false(
    qa: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_MODE", "error:unused")
    judge = CommandJudge([sys.executable, str(STUB)], qa)
    try:
        report, judging = _score(qa, ANSWERS, judge)
    finally:
        judge.close()
    rows = {row["id"]: row for row in report.to_json()["items"]}
    assert "coverage" not in rows["k1"]["metrics"]  # unknown, not 1/2 and not 0
    assert rows["k1"]["metrics"]["violation_rate"] == 1.0  # known all the same
    assert rows["k1"]["answer"]["errors"] == [{"claim": "key_points[1]", "error": "content filter"}]
    assert report.data["judge_errors"] == [
        {"id": "k1", "trial": 0, "claim": "key_points[1]", "error": "content filter"}
    ]
    assert report.data["overall"]["coverage"]["n"] == 3
    assert judging.usage.failed == 1
    assert any("1 claim(s) not judged" in p for m in report.data["answer_misses"]
               for p in m["problems"])  # fmt: skip


def test_faithfulness_is_the_share_of_statements_the_contexts_support(qa: Path) -> None:
    judge = CommandJudge([sys.executable, str(STUB)], qa)
    try:
        report, judging = _score(qa, ANSWERS, judge)
    finally:
        judge.close()
    # k1: "Return within 14 days of delivery" is in its context, "Returns are free" is not
    assert report.data["overall"]["faithfulness"] == {
        "value": 0.5, "low": 0.5, "high": 0.5, "n": 1
    }  # fmt: skip
    row = next(r for r in report.to_json()["items"] if r["id"] == "k1")
    assert row["answer"]["statements"] == {"supported": 1, "total": 2}
    usage = judging.usage.to_json()
    assert usage["tokens"] > 0 and usage["cost"] == pytest.approx(usage["tokens"] / 10 * 0.001)
    assert report.data["judge"]["usage"] == usage


def test_a_judge_that_cannot_split_leaves_faithfulness_unscored(
    qa: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("STUB_MODE", "nosplit")
    judge = CommandJudge([sys.executable, str(STUB)], qa)
    try:
        report, _ = _score(qa, ANSWERS, judge)
    finally:
        judge.close()
    assert report.data["overall"]["faithfulness"]["n"] == 0
    assert report.data["judge_errors"] == []


def test_a_second_run_on_the_same_answers_asks_the_judge_nothing(
    qa: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    log = qa / "calls.log"
    monkeypatch.setenv("STUB_LOG", str(log))
    reports = []
    for _ in range(2):
        judge = CommandJudge([sys.executable, str(STUB)], qa)
        try:
            report, judging = _score(qa, ANSWERS, judge)
        finally:
            judge.close()
        reports.append((report, judging.usage.to_json()))
    first, second = reports[0][1], reports[1][1]
    calls = len(log.read_text().splitlines())
    assert first["calls"] == calls > 0 and first["cached"] == 0
    assert second["calls"] == 0 and second["cached"] == calls  # nothing asked the second time
    assert reports[0][0].data["overall"] == reports[1][0].data["overall"]
    # a changed answer asks only about that answer
    changed = [line if line["id"] != "r2" else {"id": "r2", "answer": "I don't know."}
               for line in ANSWERS]  # fmt: skip
    judge = CommandJudge([sys.executable, str(STUB)], qa)
    try:
        _, judging = _score(qa, changed, judge)
    finally:
        judge.close()
    assert judging.usage.calls == 1  # refuses("I don't know.") for r2


def test_the_report_is_read_back_and_gated_in_the_right_direction(qa: Path) -> None:
    base, _ = _score(qa, ANSWERS)
    write_report(qa / "reports" / "base.json", base.render())
    worse = [
        line if line["id"] != "k3" else {"id": "k3", "answer": "Shipping is always free."}
        for line in ANSWERS
    ]
    current, _ = _score(qa, worse)
    write_report(qa / "reports" / "current.json", current.render())
    b, _ = read_report(qa / "reports" / "base.json")
    c, _ = read_report(qa / "reports" / "current.json")
    result = gate(b, c, Path("b"), Path("c"), metrics=["violation_rate", "false_refusal"])
    # multi: violation_rate 0 -> 1 is a regression (lower is better); false_refusal 1 -> 0 is not
    assert [(r.category, r.metric, r.baseline, r.current) for r in result.regressions] == [
        ("multi", "violation_rate", 0.0, 1.0)
    ]
    refuse = [x for x in result.comparisons if x.category == "refuse"]
    assert [x.metric for x in refuse] == ["violation_rate"]  # no item has false_refusal there
    assert b["definitions"]["violation_rate"]["better"] == "lower"


def test_a_run_that_also_retrieved_gives_one_report_with_both(qa: Path) -> None:
    retrieved = {"k1": ["guide.md#returns"], "k2": ["guide.md#shipping"], "k3": [],
                 "j1": ["guide.md#payments"]}  # fmt: skip
    lines = [{**line, "retrieved": retrieved.get(line["id"], [])} for line in ANSWERS]
    report, _ = _score(qa, lines)
    data = report.data
    assert data["report"]["kind"] == "retrieval+answers"
    assert {"hit@1", "recall@5", "coverage", "exact"} <= set(data["definitions"])
    assert data["overall"]["hit@1"]["value"] == 0.5
    assert data["overall"]["coverage"]["value"] == 0.625
    rows = {row["id"]: row for row in report.to_json()["items"]}
    assert rows["k1"]["first_rank"] == 1 and rows["k1"]["metrics"]["hit@1"] == 1.0
    assert rows["k1"]["metrics"]["coverage"] == 0.5
    assert "hit@1" not in rows["r1"]["metrics"]  # unanswerable: no retrieval score
    write_report(qa / "both.json", report.render())
    assert read_report(qa / "both.json")[0]["items"] == report.to_json()["items"]


def test_score_answers_on_the_command_line(qa: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_run(qa / "run.jsonl", ANSWERS)
    done = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", "exact", "-o", "r.json")
    assert done.code == 0, done.err
    assert "judge exact (version 6)" in done.out
    assert "agreement with people: not checked" in done.out
    assert "note: judge exact: normalised containment, fit only for short extractive" in done.out
    assert "k3  multi (tuning)" in done.out and "declined an answerable question" in done.out
    assert json.loads((qa / "r.json").read_text())["overall"]["coverage"]["value"] == 0.625
    md = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", "exact", "--format", "md")
    assert md.code == 0 and md.out.startswith("### Answers: qa unreleased")
    as_json = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", "exact", "--json")
    assert json.loads(as_json.out)["counts"]["scored"] == 6


def test_an_unanswerable_item_left_blank_did_not_decline_it_said_nothing(qa: Path) -> None:
    # a blank answer, or none, was listed as having "answered an unanswerable question"
    lines = [line for line in ANSWERS if line["id"] != "r2"]
    lines = [line if line["id"] != "r1" else {"id": "r1", "answer": "  "} for line in lines]
    report, _ = _score(qa, lines)
    problems = {m["id"]: m["problems"] for m in report.data["answer_misses"]}
    assert problems["r1"] == problems["r2"] == ["did not decline an unanswerable question"]
    assert report.data["overall"]["refusal"]["value"] == 0.0  # nothing declined
    said = [line if line["id"] != "r2" else {"id": "r2", "answer": "Blue."} for line in ANSWERS]
    report, _ = _score(qa, said)
    problems = {m["id"]: m["problems"] for m in report.data["answer_misses"]}
    assert problems["r2"] == ["answered an unanswerable question"]


def test_an_answer_is_listed_on_one_line(qa: Path, cli) -> None:  # type: ignore[no-untyped-def]
    # a line break in an answer broke the list of misses on the terminal and ended the
    # markdown table; a blank answer was printed as its white space, not as nothing
    said = {"k3": "Sorry,\nI don't know.", "r2": " \n\t"}
    write_run(qa / "run.jsonl", [{**line, "answer": said.get(line["id"], line["answer"])}
                                 for line in ANSWERS])  # fmt: skip
    text = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", "exact").out.splitlines()
    at = text.index("  k3  multi (tuning)")
    assert text[at + 2] == "      answer  Sorry, I don't know."
    at = text.index("  r2  refuse (holdout)")
    assert text[at + 1 : at + 4] == [
        "      did not decline an unanswerable question", "      answer  (nothing)", "  j1  "
        "injection "
        "(tuning)"
    ]  # fmt: skip
    md = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", "exact", "--format", "md").out
    rows = [line for line in md.splitlines() if line.startswith(("| `k3`", "| `r2`"))]
    assert rows == [
        "| `k3` | multi | tuning | missed key point(s) 1, 2; declined an answerable question | "
        "Sorry, I don't know. |",
        "| `r2` | refuse | holdout | did not decline an unanswerable question | (nothing) |",
    ]


def test_the_comment_shows_the_splits_and_how_many_trials_failed(qa: Path, cli) -> None:  # type: ignore[no-untyped-def]
    # the markdown comment had no table per split, and no count of the trials that failed,
    # both of which the terminal shows
    write_run(qa / "run.jsonl", [*ANSWERS, {"id": "k2", "trial": 1, "answer": "I don't know."}])
    md = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", "exact", "--format", "md",
             "-o", "r.json").out.splitlines()  # fmt: skip
    splits = json.loads((qa / "r.json").read_text())["splits"]
    at = md.index("<details><summary>By split</summary>")
    assert md[at + 2 : at + 4] == ["| metric | tuning | holdout |", "|---|---|---|"]
    coverage = [
        f"{t['coverage']['value']:.3f} [{t['coverage']['low']:.3f}, {t['coverage']['high']:.3f}]"
        for t in (splits["tuning"], splits["holdout"])
    ]
    assert md[at + 4] == f"| `coverage` | {coverage[0]} | {coverage[1]} |"
    at = md.index("| item | category | split | failed | problems | answer |")
    assert md[at + 2].startswith("| `k1` | lookup | tuning |  | missed key point(s) 2;")
    assert md[at + 3].startswith("| `k2` | lookup | holdout | 1/2 trials | missed key point(s)")


def test_a_stale_set_is_refused_or_scored_with_the_items_marked(qa: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Stale items are known only once the set's checks (done aside) come back, after the
    rows are made: they are marked then, in the counts, the list, the rows and the misses."""
    from scoring_ws import GUIDE

    from conftest import commit_all, write_files
    from evalset.corpus.snapshot import take_snapshot

    write_files(qa, {"corpus/guide.md": GUIDE.replace("4.95", "5.95")})
    commit_all(qa, "shipping costs more")
    new = take_snapshot(qa, "corpus", qa / "snapshots", qa / ".evalset").short
    write_run(qa / "run.jsonl", ANSWERS)
    refused = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", "exact", "-o", "r.json")
    assert refused.code == 1 and not (qa / "r.json").exists()
    assert f"1 item(s) are stale against snapshot {new} (k3)" in refused.err
    done = cli(qa, "score", "answers", "qa", "run.jsonl", "--judge", "exact", "--allow-stale",
               "--json")  # fmt: skip
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["counts"]["stale"] == 1 and [s["id"] for s in report["stale"]] == ["k3"]
    assert report["stale"][0]["citations"][0]["status"] == "changed"
    assert {r["id"] for r in report["items"] if r.get("stale")} == {"k3"}
    assert {m["id"]: m.get("stale", False) for m in report["answer_misses"]}["k3"] is True
    assert not any(m.get("stale") for m in report["answer_misses"] if m["id"] != "k3")
    assert report["evalset"]["set"] == "qa"


def test_a_command_judge_with_concurrency_runs_copies_and_decides_the_same(
    qa: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With ``concurrency`` N, N copies of the program answer requests side by side (each
    in order, on its own pipes); the report is the one a single copy gives."""
    pids = tmp_path / "pids.txt"
    monkeypatch.setenv("STUB_PIDS", str(pids))
    reports = {}
    for copies in (1, 3):
        monkeypatch.setenv("STUB_DELAY", "0.2" if copies > 1 else "0")
        # a version of its own: nothing is cached from the other run
        judge = CommandJudge(
            [sys.executable, str(STUB)], qa, version=f"{copies}", concurrency=copies
        )
        try:
            report, judging = _score(qa, ANSWERS, judge)
        finally:
            judge.close()
        assert judge._programs == []  # every copy stopped
        reports[copies] = report.to_json()
        assert judging.usage.calls > copies
        answered_by = pids.read_text().split()
        assert len(set(answered_by)) == copies, answered_by  # a busy copy is not waited for
        assert len(answered_by) == judging.usage.calls
        pids.unlink()
    one, three = reports[1], reports[3]
    for key in ("items", "overall", "categories", "answer_misses", "judge_errors"):
        assert one[key] == three[key], key


@pytest.mark.parametrize("mode", ["crash", "garbage", "hang"])
def test_a_broken_copy_stops_them_all_with_one_sentence(
    qa: Path, monkeypatch: pytest.MonkeyPatch, mode: str
) -> None:
    """Requests waiting for a copy are released when one copy breaks: the scoring stops with
    that copy's sentence, and no copy is left running."""
    monkeypatch.setenv("STUB_MODE", mode)
    monkeypatch.setenv("STUB_DELAY", "0.1")
    judge = CommandJudge([sys.executable, str(STUB)], qa, timeout=1.0, concurrency=3)
    with pytest.raises(JudgeBroken) as caught:
        _score(qa, ANSWERS, judge)
    assert str(caught.value).endswith("as the README's judge protocol says.")
    assert judge._programs == []


def _injection_when_decided(answerable: bool, points: tuple[bool, ...], never: tuple[bool, ...],
                            refused: bool) -> float:  # fmt: skip
    """The injection value by its definition, every claim decided."""
    done = all(points) if answerable else refused
    return 1.0 if done and not any(never) else 0.0


@pytest.mark.parametrize("answerable", [True, False])
def test_injection_has_a_value_exactly_when_every_way_the_undecided_claims_go_agrees(
    answerable: bool,
) -> None:
    """An undecided claim leaves the item without a value only when deciding it could change
    the verdict: a key point known to be missed fails the item whatever the others say."""
    import itertools

    from evalset.score.answer_metrics import NAMES, Judged

    at = NAMES.index("injection")
    states = (True, False, None)
    for points in itertools.product(states, repeat=2):
        for never in [(), *itertools.product(states, repeat=1)]:
            for refused in states:
                judged = Judged(answerable, list(points) if answerable else [], list(never),
                                refused, injection=True)  # fmt: skip
                got = judged.values()[at]
                open_ = [k for k, v in enumerate([*points, *never, refused]) if v is None]
                outcomes = set()
                for fill in itertools.product((True, False), repeat=len(open_)):
                    given = [*points, *never, refused]
                    for k, value in zip(open_, fill, strict=True):
                        given[k] = value
                    p, n, r = given[:2], given[2 : 2 + len(never)], given[-1]
                    outcomes.add(_injection_when_decided(answerable, tuple(p), tuple(n), r))
                want = outcomes.pop() if len(outcomes) == 1 else None
                case = (answerable, points, never, refused)
                assert (got if got == got else None) == want, case


def test_a_metric_no_item_has_in_every_trial_has_no_spread(qa: Path) -> None:
    """k3 given a second trial has no short answer: `exact` was scored in trial 0 only, and
    one mean has no spread (it showed a deviation of 0); coverage is over k3 alone."""
    again = next(line for line in ANSWERS if line["id"] == "k3")
    report, _ = _score(qa, [*ANSWERS, {**again, "trial": 1}])
    overall = report.data["spread"]["overall"]
    assert "exact" not in overall
    assert overall["coverage"]["n"] == 1 and overall["coverage"]["std"] == 0.0
    report, _ = _score(qa, [*ANSWERS, {"id": "k2", "trial": 1, "answer": "30 days"}])
    assert report.data["spread"]["overall"]["exact"] == {"min": 1.0, "max": 1.0, "std": 0.0,
                                                         "n": 1}  # fmt: skip


@pytest.mark.parametrize("retrieved", [False, True], ids=["answers", "retrieval and answers"])
def test_the_note_on_items_left_out_says_how_they_are_scored(qa: Path, retrieved: bool) -> None:
    """An item the run left out scores as retrieving nothing too in a report with both:
    before, the note said only 'answering nothing'."""
    from evalset.score.answer_text import notes

    lines = [line for line in ANSWERS if line["id"] != "k1"]
    if retrieved:
        lines = [{**line, "retrieved": ["guide.md#returns"]} for line in lines]
    report, _ = _score(qa, lines)
    said = [n for n in notes(report.data) if "not in the run" in n]
    how = "retrieving and answering nothing" if retrieved else "answering nothing"
    assert said == [f"1 item(s) not in the run, scored as {how}"]
