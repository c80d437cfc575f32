"""The gate per category against the accepted run, and accepting a run."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from scoring_ws import ITEMS, RUN, score_ws, set_text, write_run

from conftest import commit_all, write_files
from evalset.corpus.snapshot import take_snapshot
from evalset.score.gate import GateRefused, gate
from evalset.score.report import DIGEST_MARK, digest_of, read_report

__all__ = ["score_ws"]

# lookup improves from 1/3 to 1 at hit@1, multi falls from 1/2 to 0: the mean rises
CURRENT: list[dict[str, Any]] = [
    {"id": "a1", "retrieved": ["guide.md#returns"]},
    {"id": "a2", "retrieved": ["guide.md#shipping"]},
    {"id": "a3", "retrieved": ["faq.md#hours"]},
    {"id": "m1", "retrieved": []},
    {"id": "m2", "retrieved": ["guide.md#returns", "guide.md#damaged-returns"]},
]


def _score(repo: Path, cli, run: list[dict[str, Any]], name: str, *args: str) -> Path:  # type: ignore[no-untyped-def]
    write_run(repo / f"{name}.jsonl", run)
    out = f"reports/{name}.json"
    done = cli(repo, "score", "retrieval", "docs", f"{name}.jsonl", "-o", out, *args)
    assert done.code == 0, done.err
    return repo / out


def test_the_gate_blocks_a_run_whose_mean_rose_while_a_category_fell(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    base = _score(score_ws, cli, RUN, "base")
    current = _score(score_ws, cli, CURRENT, "current")
    b, c = (json.loads(p.read_text()) for p in (base, current))
    assert c["overall"]["hit@1"]["value"] > b["overall"]["hit@1"]["value"]
    done = cli(score_ws, "gate", str(base), str(current), "--metric", "hit@1", "--json")
    assert done.code == 1
    result = json.loads(done.out)
    assert {k: result[k] for k in ("ok", "compared_items", "left_out_items", "regressions")} == {
        "ok": False,
        "compared_items": 5,
        "left_out_items": 0,
        "regressions": [{"category": "multi", "metric": "hit@1", "baseline": 0.5, "current": 0.0}],
    }
    assert all(
        set(r) == {"category", "metric", "baseline", "current"} for r in result["regressions"]
    )
    lookup = next(x for x in result["comparisons"] if x["category"] == "lookup")
    assert lookup["difference"] > 0 and lookup["low"] <= lookup["difference"] <= lookup["high"]
    text = cli(score_ws, "gate", str(base), str(current), "--metric", "hit@1")
    assert text.code == 1
    assert "REGRESSION multi hit@1: 0.500 -> 0.000 (difference -0.500 [" in text.out
    assert "a drop beyond the margin 0.03" in text.out
    assert "failed: 1 regression(s) beyond the margin 0.03" in text.out
    # every metric both reports define, by default
    everything = json.loads(cli(score_ws, "gate", str(base), str(current), "--json").out)
    assert {r["metric"] for r in everything["regressions"]} >= {"hit@1", "mrr", "map"}
    assert {r["category"] for r in everything["regressions"]} == {"multi"}


def test_a_drop_within_the_margin_passes_even_when_the_mean_fell(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    base = _score(score_ws, cli, RUN, "base")
    worse = [line if line["id"] != "m1" else {"id": "m1", "retrieved": []} for line in RUN]
    current = _score(score_ws, cli, worse, "current")
    strict = cli(score_ws, "gate", str(base), str(current), "--metric", "hit@1", "--json")
    assert strict.code == 1
    done = cli(
        score_ws, "gate", str(base), str(current), "--metric", "hit@1", "--margin", "0.5", "--json"
    )
    assert done.code == 0, done.out
    result = json.loads(done.out)
    assert result["ok"] is True and result["regressions"] == []
    overall = next(x for x in result["overall"] if x["metric"] == "hit@1")
    assert overall["current"] < overall["baseline"]


def test_reports_on_different_versions_compare_the_unchanged_items(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    base = _score(score_ws, cli, RUN, "base")
    path = score_ws / "sets" / "docs.yaml"
    snapshot = path.read_text().split("verified: ")[1][:12]
    items = {**ITEMS, "a4": ("lookup", False, ["guide.md#guide"])}
    text = set_text(snapshot, items).replace(
        "How long do I have to send something back?", "How many days do I get to return it?"
    )
    path.write_text(text)
    commit_all(score_ws, "a1 reworded, a4 added")
    current = _score(score_ws, cli, [*RUN, {"id": "a4", "retrieved": ["guide.md"]}], "current")
    result = json.loads(cli(score_ws, "gate", str(base), str(current), "--json").out)
    assert result["compared_items"] == 4 and result["left_out_items"] == 2
    assert result["left_out"] == {"added": ["a4"], "removed": [], "changed": ["a1"], "unscored": []}
    assert {c["n"] for c in result["comparisons"] if c["category"] == "lookup"} == {2}
    shown = cli(score_ws, "gate", str(base), str(current))
    assert "4 item(s) compared, 2 left out (1 added, 0 removed, 1 changed)" in shown.out


def test_reports_on_different_snapshots_are_refused_unless_allowed(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    base = _score(score_ws, cli, RUN, "base")
    write_files(score_ws, {"corpus/notes.txt": "Other notes.\n"})
    commit_all(score_ws, "notes changed")
    new = take_snapshot(score_ws, "corpus", score_ws / "snapshots", score_ws / ".evalset").short
    current = _score(score_ws, cli, RUN, "current")
    refused = cli(score_ws, "gate", str(base), str(current))
    assert refused.code == 2
    assert refused.err.strip().startswith(
        f"evalset: reports/current.json: was scored against corpus snapshot {new}"
    )
    assert refused.err.strip().endswith("or compare anyway with --allow-snapshot-change.")
    allowed = cli(score_ws, "gate", str(base), str(current), "--allow-snapshot-change")
    assert allowed.code == 0 and "note: snapshot changed: " in allowed.out


def test_reports_with_other_definitions_are_refused_unless_allowed(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    base = _score(score_ws, cli, RUN, "base")
    current = _score(score_ws, cli, RUN, "current", "--granularity", "document")
    refused = cli(score_ws, "gate", str(base), str(current))
    assert refused.code == 2
    assert "defines hit@1 differently from the baseline" in refused.err
    assert "(granularity: 'section' vs 'document')" in refused.err
    assert cli(score_ws, "gate", str(base), str(current), "--allow-snapshot-change").code in (0, 1)
    missing = cli(score_ws, "gate", str(base), str(current), "--metric", "recall@7")
    assert missing.code == 2 and "has no metric 'recall@7' (it has hit@1," in missing.err


def test_a_definition_that_leaves_the_default_out_is_compared_with_it(  # type: ignore[no-untyped-def]
    score_ws: Path, cli
) -> None:
    """A definition says "better" only when lower is better; before, the refusal read
    "better: None vs 'lower'"."""
    base = _score(score_ws, cli, RUN, "base")
    current = _score(score_ws, cli, RUN, "current")
    section = '"granularity": "section"\n    },'
    _tamper(current, section, section.replace("\n    }", ',\n      "better": "lower"\n    }'), True)
    refused = cli(score_ws, "gate", str(base), str(current))
    assert refused.code == 2, refused.err
    assert "baseline reports/base.json (better: 'higher' vs 'lower')" in (refused.err)


def test_accept_records_the_run_the_gate_compares_with(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    base = _score(score_ws, cli, RUN, "base")
    current = _score(score_ws, cli, CURRENT, "current")
    none_yet = cli(score_ws, "gate", str(current))
    assert none_yet.code == 2
    assert "set docs has no accepted run yet (reports/accepted/docs.json is missing)" in (
        none_yet.err
    )
    accepted = cli(score_ws, "accept", str(base))
    assert accepted.code == 0, accepted.err
    assert accepted.out.strip() == (
        "reports/base.json becomes the accepted run of docs: reports/accepted/docs.json; "
        "commit it (git add reports/accepted/docs.json)"
    )
    target = score_ws / "reports" / "accepted" / "docs.json"
    assert target.read_bytes() == base.read_bytes()
    assert cli(score_ws, "gate", str(current), "--metric", "hit@1").code == 1
    again = json.loads(cli(score_ws, "accept", str(current), "--json").out)
    assert again == {"set": "docs", "accepted": "reports/accepted/docs.json", "replaced": True,
                     "version": None, "ignored_by_git": False}  # fmt: skip
    assert cli(score_ws, "gate", str(current)).code == 0
    # the accepted report is meant to be committed, reports/ being otherwise ignored
    assert "reports/accepted/docs.json" in commit_all_listing(score_ws)


def test_accept_says_when_git_would_ignore_the_copy(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    base = _score(score_ws, cli, RUN, "base")
    (score_ws / ".gitignore").write_text("/.evalset/\n/reports/\n")  # as init wrote it before
    warned = cli(score_ws, "accept", str(base))
    assert warned.code == 0
    assert "note: git ignores reports/accepted/docs.json: in .gitignore, replace" in warned.out


def commit_all_listing(repo: Path) -> str:
    from conftest import git

    commit_all(repo, "accept")
    return git(repo, "ls-files")


def _tamper(path: Path, old: str, new: str, redigest: bool) -> None:
    text = path.read_text().replace(old, new, 1)
    if redigest:
        body = text[: text.rindex(DIGEST_MARK)]
        text = f'{body}{DIGEST_MARK}{digest_of(body)}"\n}}\n'
    path.write_text(text)


def test_edited_and_foreign_reports_are_refused(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    base = _score(score_ws, cli, RUN, "base")
    current = _score(score_ws, cli, CURRENT, "current")
    _tamper(current, '"hit@1": 0.0', '"hit@1": 1.0', redigest=False)
    for args in (("accept", str(current)), ("gate", str(base), str(current))):
        done = cli(score_ws, *args)
        assert done.code == 2
        assert done.err.strip() == (
            "evalset: reports/current.json: was changed after `evalset score` wrote it (its "
            "content no "
            "longer matches its digest); score the run again rather than editing the report."
        )
    (score_ws / "pin.json").write_text(cli(score_ws, "pin", "docs").out)
    (score_ws / "broken.json").write_text('{"evalset": ')
    (score_ws / "deep.json").write_text("[" * 100_000 + "]" * 100_000)
    (score_ws / "empty.json").write_text(" \n")
    for name, expected in (
        ("empty.json", "empty.json: is empty; give a report written by `evalset score`."),
        ("pin.json", 'pin.json: is not an evalset report (it has no "report" format); give a '
         "report written by `evalset score`."),
        ("broken.json", "broken.json:1:13: is not valid JSON (Expecting value); give a report "
         "written by `evalset score`."),
        ("nowhere.json", "nowhere.json: no such file; give the path of a report."),
        ("deep.json", "deep.json:1:1: is not valid JSON (values nested too deeply to read); "
         "give a report written by `evalset score`."),
    ):  # fmt: skip
        done = cli(score_ws, "gate", str(base), name)
        assert done.code == 2 and done.err.strip() == f"evalset: {expected}"
    for command in (["accept"], ["check-pin"]):  # the same sentence (before: "Expecting value")
        done = cli(score_ws, *command, "empty.json")
        assert (done.code, done.err.strip()) == (
            2,
            "evalset: empty.json: is empty; give a report written by `evalset score`.",
        )
    assert not (score_ws / "reports" / "accepted").exists()


# a report's metric values, made by hand with a digest that matches: each is no share
FOREIGN_VALUES = {"huge": "1e308", "beyond-a-float": "1" + "0" * 400, "negative": "-0.5",
                  "above-one": "1.5"}  # fmt: skip


@pytest.mark.parametrize("value", list(FOREIGN_VALUES))
def test_a_report_whose_metric_is_no_share_is_refused(score_ws: Path, cli, value: str) -> None:  # type: ignore[no-untyped-def]
    base = _score(score_ws, cli, RUN, "base")
    current = _score(score_ws, cli, CURRENT, "current")
    _tamper(current, '"hit@1": 0.0', f'"hit@1": {FOREIGN_VALUES[value]}', redigest=True)
    for args in (("accept", str(current)), ("gate", str(base), str(current)),
                 ("gate", str(current), str(base), "--json")):  # fmt: skip
        done = cli(score_ws, *args)
        assert done.code == 2, (args, done.err)
        assert "is not an evalset report (items[" in done.err
        assert "with metrics from 0 to 1); give a report written by" in done.err
        assert "Warning" not in done.err and "internal error" not in done.err
    assert not (score_ws / "reports" / "accepted").exists()


@pytest.mark.parametrize("name", ["no-such-set", "DOCS", ".hidden", "-rf", "n" * 300])
def test_a_report_of_a_set_the_workspace_does_not_hold_is_not_accepted(  # type: ignore[no-untyped-def]
    score_ws: Path, cli, name: str
) -> None:
    report = _score(score_ws, cli, RUN, "base")
    _tamper(report, '"set": "docs"', f'"set": "{name}"', redigest=True)
    for command in ("accept", "check-pin"):
        done = cli(score_ws, command, str(report))
        assert done.code == 2, (command, done.err)
        assert done.err.startswith(f"evalset: {report.relative_to(score_ws)}: "), done.err
        assert "internal error" not in done.err
    assert not (score_ws / "reports" / "accepted").exists()


def test_a_report_whose_release_pin_fails_check_pin_is_refused(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    assert cli(score_ws, "release", "docs", "--bump", "minor", "--exclude-drafts").code == 0
    report = _score(score_ws, cli, RUN, "base")
    fingerprint = json.loads(report.read_text())["evalset"]["fingerprint"]
    _tamper(report, fingerprint, "sha256:" + "0" * 64, redigest=True)  # digest made to match
    done = cli(score_ws, "accept", str(report))
    assert done.code == 2
    assert done.err.startswith("evalset: reports/base.json: its pin fails `evalset check-pin` (")
    assert not (score_ws / "reports" / "accepted").exists()


def test_reports_of_two_sets_are_not_compared(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    base = _score(score_ws, cli, RUN, "base")
    other = score_ws / "reports" / "other.json"
    other.write_text(base.read_text())
    _tamper(other, '"set": "docs"', '"set": "manuals"', redigest=True)
    done = cli(score_ws, "gate", str(base), str(other))
    assert done.code == 2
    assert "scores set 'manuals', but the baseline" in done.err


def test_a_report_checked_out_with_crlf_line_endings_keeps_its_digest(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """git may check a report out with CR LF line endings: its digest still matches, and an
    edit of it is still noticed."""
    report = _score(score_ws, cli, RUN, "base")
    crlf = score_ws / "crlf.json"
    crlf.write_bytes(report.read_bytes().replace(b"\n", b"\r\n"))
    assert read_report(crlf)[0] == read_report(report)[0]
    crlf.write_bytes(crlf.read_bytes().replace(b'"hit@1": 0.0', b'"hit@1": 1.0', 1))
    done = cli(score_ws, "gate", str(report), str(crlf))
    assert done.code == 2 and "was changed after `evalset score` wrote it" in done.err
    assert digest_of('{\r\n  "a": "\\r"') == digest_of('{\n  "a": "\\r"')


def test_items_count_by_the_metrics_gated(tmp_path: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """An item counts in a report when it has a value of a gated metric there. Unanswerable
    items have no retrieval metric in any report: gating retrieval metrics, they are neither
    compared nor left out, whether the other report scored answers too or not (they were
    once "compared" between two reports of both kinds, and "scored in one report only"
    against a retrieval report). Faithfulness is scored only where the run gave contexts: an
    item given them in one run only is left out of a gate on faithfulness."""
    import sys

    from answers_ws import ANSWERS, STUB, make_answers_ws

    qa = make_answers_ws(tmp_path / "repo")
    judge = f"command:{sys.executable} {STUB}"  # it splits answers into statements
    retrieved = {"k1": ["guide.md#returns"], "k2": ["guide.md#damaged-returns"], "k3": [],
                 "j1": ["guide.md#payments"]}  # fmt: skip
    lines = [{**line, "retrieved": retrieved.get(line["id"], [])} for line in ANSWERS]
    write_run(qa / "run.jsonl", lines)
    write_run(qa / "bare.jsonl", [{k: v for k, v in x.items() if k != "contexts"} for x in lines])
    assert cli(qa, "score", "retrieval", "qa", "run.jsonl", "-o", "r.json").code == 0
    for run, out in (("run.jsonl", "a.json"), ("bare.jsonl", "b.json")):
        done = cli(qa, "score", "answers", "qa", run, "--judge", judge, "-o", out)
        assert done.code == 0, done.out
    nothing_left = {"added": [], "removed": [], "changed": [], "unscored": []}
    for args in (("r.json", "a.json"), ("a.json", "b.json", "--metric", "hit@1,mrr")):
        result = json.loads(cli(qa, "gate", *args, "--json").out)
        assert result["compared_items"] == 4 and result["left_out_items"] == 0, args
        assert result["left_out"] == nothing_left
        assert {c["n"] for c in result["overall"]} == {4}
        shown = cli(qa, "gate", *args).out
        assert "4 item(s) compared, 0 left out (0 added, 0 removed, 0 changed)\n" in shown
    result = json.loads(cli(qa, "gate", "a.json", "b.json", "--metric", "faithfulness",
                            "--json").out)  # fmt: skip
    assert result["compared_items"] == 0
    assert result["left_out"] == {**nothing_left, "unscored": ["k1"]}
    assert result["comparisons"] == result["overall"] == []
    assert result["missing_values"] == {"faithfulness": ["k1"]} and result["ok"] is False
    shown = cli(qa, "gate", "a.json", "b.json", "--metric", "faithfulness")
    assert "0 item(s) compared, 1 left out (0 added, 0 removed, 0 changed, 1 scored in one " in (
        shown.out
    )
    assert "failed: nothing was compared: no item has a value of the gated metrics" in shown.out
    assert shown.code == 1
    # every metric both define: all six items have answer metrics in both
    result = json.loads(cli(qa, "gate", "a.json", "b.json", "--json").out)
    assert result["compared_items"] == 6 and result["left_out_items"] == 0
    faithfulness = [c for c in result["overall"] if c["metric"] == "faithfulness"]
    assert faithfulness == []  # k1 alone has it, in one report
    # the other way round, the current run gave more than the baseline: nothing is missing
    result = json.loads(cli(qa, "gate", "b.json", "a.json", "--json").out)
    assert result["ok"] is True and result["missing_values"] == {}


def test_a_margin_must_be_a_finite_number(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """An infinite margin gated nothing and printed ``"margin": Infinity``, which is not
    JSON."""
    base = _score(score_ws, cli, RUN, "base")
    for margin in ("inf", "1e400", "nan", "-0.1"):
        done = cli(score_ws, "gate", str(base), str(base), "--margin", margin, "--json")
        assert done.code == 2, margin
        assert "Invalid value for '--margin': give a finite number of 0 or more" in done.err
    for margin in ("0.999", "1", "1.0"):  # 1: every drop passes, as it says
        assert cli(score_ws, "gate", str(base), str(base), "--margin", margin).code == 0


@pytest.mark.parametrize("margin", ["1.0000001", "1.5", "3", "30", "1e300"])
def test_a_margin_above_one_is_refused(score_ws: Path, cli, margin: str) -> None:  # type: ignore[no-untyped-def]
    """Scores are shares from 0 to 1, so no drop is larger than 1: `--margin 3`, meant as
    three points, passed every regression without a word."""
    base = _score(score_ws, cli, RUN, "base")
    current = _score(score_ws, cli, CURRENT, "current")  # multi falls from 1/2 to 0
    done = cli(score_ws, "gate", str(base), str(current), "--margin", margin)
    assert done.code == 2, done.out
    assert done.out == ""
    assert done.err.strip() == (
        f"evalset: Invalid value for '--margin': give a number from 0 to 1, not "
        f"{float(margin):.15g}: scores are shares from 0 to 1, so a margin above 1 lets every "
        "drop pass (0.03 is three points); see `evalset gate --help`."
    )
    with pytest.raises(GateRefused, match=r"^the margin .*: give a number from 0 to 1, not "):
        gate(*(read_report(p)[0] for p in (base, current)), base, current, float(margin))


# m1 misses hit@1 in one trial of 400: multi falls from 0.5 to 0.49875, a drop of 0.00125
@pytest.mark.parametrize("margin", ["0", "0.0005", "0.001", "0.0012", "0.00124", "0.03"])
def test_a_regression_is_shown_beyond_its_margin(score_ws: Path, cli, margin: str) -> None:  # type: ignore[no-untyped-def]
    """Values were shown to three decimals whatever the margin: a drop of 0.00125 beyond a
    margin of 0.0012 read `0.500 -> 0.499 (difference -0.001 […]), a drop beyond the margin
    0.0012`. Each regression now shows as many decimals as it takes to be seen beyond it."""
    import re

    trials = 400
    base = _score(score_ws, cli, [{**x, "trial": k} for x in RUN for k in range(trials)], "b")
    worse = [
        {**x, "trial": k, **({"retrieved": []} if (x["id"], k) == ("m1", 0) else {})}
        for x in RUN
        for k in range(trials)
    ]
    current = _score(score_ws, cli, worse, "c")
    done = cli(score_ws, "gate", str(base), str(current), "--metric", "hit@1", "--margin", margin)
    regressions = re.findall(
        r"REGRESSION multi hit@1: ([\d.]+) -> ([\d.]+) \(difference ([-+\d.]+) \[", done.out
    )
    if float(margin) >= 0.00125:
        assert done.code == 0 and regressions == [], done.out
        assert "multi           hit@1   0.500     0.499    -0.001 [" in done.out  # three decimals
        return
    assert done.code == 1, done.out
    ((shown_base, shown_current, shown_difference),) = regressions
    assert float(shown_base) - float(shown_current) > float(margin), done.out
    assert -float(shown_difference) > float(margin), done.out
    row = next(line for line in done.out.splitlines() if line.startswith("multi "))
    assert f"{shown_base}  " in row and f"{shown_difference} [" in row  # the table agrees


@pytest.mark.parametrize("names", [[""], [","], [" , "], ["", ""], [" "]])
def test_a_metric_option_naming_no_metric_is_refused(score_ws: Path, cli, names: list[str]) -> None:  # type: ignore[no-untyped-def]
    """`--metric "$METRICS"` with the variable unset gated every metric both reports define,
    the default the README warns fails small categories by chance, without a word."""
    base = _score(score_ws, cli, RUN, "base")
    args = [a for name in names for a in ("--metric", name)]
    done = cli(score_ws, "gate", str(base), str(base), *args)
    assert done.code == 2, done.out
    assert done.out == ""
    assert done.err.strip() == (
        "evalset: Invalid value for '--metric': names no metric; name the metrics to gate on "
        "(hit@5,recall@10), or leave --metric out to gate on every metric both reports "
        "define; see `evalset gate --help`."
    )
    # a name among empty ones is what was meant
    done = cli(score_ws, "gate", str(base), str(base), "--metric", ",hit@1,", "--json")
    assert done.code == 0 and {c["metric"] for c in json.loads(done.out)["overall"]} == {"hit@1"}


# a key given twice in one object, the digest made to match: (replaced, by, key, located):
# located, the line of the second key is named (the file writes the key no third time)
REPEATED_KEYS = {
    "an item's metric": ('"hit@1": 0.0', '"hit@1": 0.0, "hit@1": 1.0', "hit@1", False),
    "the report's items": ('\n  "items": [', '\n  "items": [],\n  "items": [', "items", False),
    "the report's counts": ('\n  "counts": {', '\n  "counts": {},\n  "counts": {', "counts",
                            True),
    "the pin's set": ('"set": "docs",', '"set": "docs",\n    "set": "docs",', "set", True),
}  # fmt: skip


@pytest.mark.parametrize("case", list(REPEATED_KEYS))
def test_a_report_giving_a_key_twice_is_refused(score_ws: Path, cli, case: str) -> None:  # type: ignore[no-untyped-def]
    """JSON readers differ on a key given twice (Python's keeps the last, others the first):
    the gate read one score and a reviewer's tool another. evalset never writes one."""
    base = _score(score_ws, cli, RUN, "base")
    current = _score(score_ws, cli, CURRENT, "current")
    old, new, key, located = REPEATED_KEYS[case]
    _tamper(current, old, new, redigest=True)
    where = ""
    if located:
        lines = current.read_text().splitlines()
        row = [k for k, line in enumerate(lines, 1) if line.lstrip().startswith(f'"{key}"')][1]
        where = f":{row}:{lines[row - 1].index(chr(34)) + 1}"
    expected = (
        f"evalset: reports/current.json{where}: gives the key '{key}' twice in one object "
        "(JSON readers differ on which they keep); give a report written by `evalset score`."
    )
    for args in (("accept", str(current)), ("gate", str(base), str(current)),
                 ("check-pin", str(current))):  # fmt: skip
        done = cli(score_ws, *args)
        assert done.code == 2, (args, done.out)
        assert done.err.strip() == expected, args
    assert not (score_ws / "reports" / "accepted").exists()


@pytest.mark.parametrize("kind", ["file", "symlink to a file"])
def test_a_gate_whose_accepted_folder_is_a_file_says_so(score_ws: Path, cli, kind: str) -> None:  # type: ignore[no-untyped-def]
    """With reports/accepted a file, the gate said the set had no accepted run yet and to
    accept one, which `evalset accept` then refused: reports/accepted is a file."""
    current = _score(score_ws, cli, CURRENT, "current")
    (score_ws / "notes.txt").write_text("not a folder\n")
    accepted = score_ws / "reports" / "accepted"
    if kind == "file":
        accepted.write_text("not a folder\n")
    else:
        accepted.symlink_to(score_ws / "notes.txt")
    done = cli(score_ws, "gate", str(current))
    assert done.code == 2, done.out
    assert done.err.strip() == (
        "evalset: reports/current.json: set docs has no accepted run: reports/accepted, where "
        "accepted runs are kept, is a file, not a folder; move it away, then accept a run with "
        "`evalset accept REPORT.json`."
    )
    assert accepted.read_text() == "not a folder\n"


def test_two_reports_are_gated_outside_a_workspace(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """CI that downloads two reports as artifacts gates them where it put them: the gate of
    two reports of no release needs no workspace (the library never asked for one), but the
    command refused with "no evalset workspace here". One naming a release still needs the
    workspace, to check its pin against the tags, and says so."""
    outside = score_ws.parent / "artifacts"
    outside.mkdir()
    for name, run in (("base", RUN), ("current", CURRENT)):
        (outside / f"{name}.json").write_bytes(_score(score_ws, cli, run, name).read_bytes())
    done = cli(outside, "gate", "base.json", "current.json", "--metric", "hit@1")
    assert done.code == 1, done.err
    assert "REGRESSION multi hit@1: 0.500 -> 0.000 (difference -0.500 [" in done.out
    both = cli(score_ws, "gate", "reports/base.json", "reports/current.json", "--metric", "hit@1")
    assert both.out.replace("reports/", "") == done.out
    alone = cli(outside, "gate", "current.json")  # the accepted run is the workspace's
    assert alone.code == 2 and "no evalset workspace here" in alone.err
    assert cli(score_ws, "release", "docs", "--bump", "minor", "--exclude-drafts").code == 0
    released = _score(score_ws, cli, RUN, "released")
    (outside / "released.json").write_bytes(released.read_bytes())
    done = cli(outside, "gate", "released.json", "current.json")
    assert done.code == 2
    assert done.err.strip() == (
        "evalset: released.json: names release 0.1.0, which can be checked only inside the "
        "set's workspace; run the command there."
    )


@pytest.mark.parametrize("item", ["a1", "m2"])
def test_the_gate_refuses_a_compared_item_of_no_category(score_ws: Path, cli, item: str) -> None:  # type: ignore[no-untyped-def]
    """Reports read by ``load_checked`` have none (it refuses a null category), but a report
    given to ``gate`` otherwise had its item compared in no category, only in the overall row,
    which never fails: the item was gated by nothing, and nothing said so."""
    base = read_report(_score(score_ws, cli, RUN, "base"))[0]
    current = read_report(_score(score_ws, cli, CURRENT, "current"))[0]
    for row in current["items"]:
        if row["id"] == item:
            row["category"] = None
    with pytest.raises(GateRefused) as refused:
        gate(base, current, Path("base.json"), Path("current.json"), metrics=["hit@1"])
    assert str(refused.value) == (
        f"current.json: item {item!r} has no category, so no category of the gate would "
        "compare it; give a report written by `evalset score`."
    )


LOOKUP = {"a1": "guide.md#returns", "a2": "guide.md#shipping", "a3": "faq.md#hours"}
FILLER = ["notes.txt", "guide.md#payments", "faq.md#contact", "faq.md"]
"""Entries that none of the lookup items is credited for."""

SAME_SCORES_ELSEWHERE = {
    # the first credited rank of a1, a2, a3 in the baseline, then in the current run: the
    # same reciprocal ranks, given to other items
    "a miss, a first, a third": ((None, 1, 3), (1, 3, None)),
    "a miss, a first, a fifth": ((None, 1, 5), (1, 5, None)),
    "a first, a second, a third": ((1, 2, 3), (3, 1, 2)),
    "a first, a second, a fifth": ((1, 2, 5), (5, 1, 2)),
    "a first, a third, a fourth": ((1, 3, 4), (4, 1, 3)),
}
"""Each summed as differences in numpy's order, the means differed by 1.9e-17 (the gate
printed ``-0.000``, or wrote 1.85e-17 for a difference of nothing)."""


def _ranked(ranks: tuple[int | None, ...]) -> list[dict[str, Any]]:
    lines = [line for line in RUN if line["id"] not in LOOKUP]
    for (ident, source), rank in zip(LOOKUP.items(), ranks, strict=True):
        found = [*FILLER[: rank - 1], source] if rank is not None else FILLER[:2]
        lines.append({"id": ident, "retrieved": found})
    return lines


@pytest.mark.parametrize("name", list(SAME_SCORES_ELSEWHERE))
def test_equal_means_differ_by_nothing(score_ws: Path, cli, name: str) -> None:  # type: ignore[no-untyped-def]
    before, after = SAME_SCORES_ELSEWHERE[name]
    base = _score(score_ws, cli, _ranked(before), "base")
    current = _score(score_ws, cli, _ranked(after), "current")
    done = cli(score_ws, "gate", str(base), str(current), "--metric", "mrr", "--json")
    assert done.code == 0, done.out
    result = json.loads(done.out)
    lookup = next(x for x in result["comparisons"] if x["category"] == "lookup")
    assert (lookup["baseline"], lookup["difference"]) == (lookup["current"], 0.0)
    assert result["overall"][0]["difference"] == 0.0
    text = cli(score_ws, "gate", str(base), str(current), "--metric", "mrr").out
    assert "-0.000 [" not in text
    assert "+0.000 [" in next(line for line in text.splitlines() if line.startswith("lookup"))
