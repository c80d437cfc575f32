"""The report: its pin is `evalset pin`'s and passes `evalset check-pin`; what it holds; the
set it refuses (invalid, stale) and how --allow-stale marks stale items; its renderings."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scoring_ws import GUIDE, ITEMS, RUN, score_ws, set_text, write_run

from conftest import commit_all, write_files
from evalset.corpus.snapshot import take_snapshot
from evalset.score.report import FORMAT, number_texts, row_texts

__all__ = ["score_ws"]


def test_the_report_carries_the_pin_and_passes_check_pin(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    released = cli(score_ws, "release", "docs", "--bump", "minor", "--exclude-drafts")
    assert released.code == 0, released.err
    write_run(score_ws / "run.jsonl", RUN)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "reports/score.json")
    assert done.code == 0, done.err
    report = json.loads((score_ws / "reports" / "score.json").read_text())
    assert report["evalset"] == json.loads(cli(score_ws, "pin", "docs").out)
    assert report["evalset"]["version"] == "0.1.0"
    checked = cli(score_ws, "check-pin", "reports/score.json")
    assert checked.code == 0, checked.err
    assert checked.out.startswith("pin ok: docs 0.1.0 (sha256:")


def test_what_a_report_holds(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_run(score_ws / "run.jsonl", RUN)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--json", "--k", "1,5")
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert list(report) == [
        "evalset", "report", "tool", "run", "snapshot", "corpus", "settings", "definitions",
        "counts", "overall", "categories", "splits", "spread", "latency", "cost", "misses",
        "stale", "missing", "unresolved", "unknown_citations", "unknown_meant",
        "invalid_lines", "item_spread", "items", "digest",
    ]  # fmt: skip
    assert report["report"] == {"format": FORMAT, "kind": "retrieval"}
    assert report["corpus"] == "matches"  # the working tree is the newest snapshot
    assert report["run"]["path"] == "run.jsonl"
    assert report["run"]["sha256"].startswith("sha256:") and report["run"]["lines"] == 8
    assert list(report["definitions"])[:3] == ["hit@1", "hit@5", "mrr"]
    assert report["definitions"]["hit@5"]["kind"] == "rate"
    assert report["definitions"]["map"] == {
        "family": "retrieval",
        "kind": "mean",
        "definition": report["definitions"]["map"]["definition"],
        "granularity": "section",
    }
    assert list(report["categories"]) == ["lookup", "multi", "refuse"]
    assert list(report["splits"]) == ["tuning", "holdout"]
    assert report["settings"]["k"] == [1, 5] and report["spread"] is None
    assert report["latency"] is None and report["cost"] is None
    assert [m["id"] for m in report["misses"]] == ["a3"]
    assert report["misses"][0] == {
        "id": "a3",
        "category": "lookup",
        "split": "holdout",
        "missed": 1,
        "trials": 1,
        "trial": 0,
        "expected": None,
        "retrieved": ["guide.md#returns"],
    }  # fmt: skip (a3 is held out: what it expects is not shown)
    assert report["counts"] == {
        "active": 7, "scored": 5, "trials": 1, "unanswerable": 2, "missing": 0, "stale": 0,
        "sealed": 0,
        "ignored_lines": {"draft": 1, "retired": 1, "unanswerable": 1}, "invalid_lines": 0,
        "unresolved_chunks": 0, "unknown_citations": 0,
    }  # fmt: skip


def test_an_item_the_run_left_out_scores_zero_and_is_listed(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_run(score_ws / "run.jsonl", [line for line in RUN if line["id"] != "a2"])
    report = json.loads(cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--json").out)
    assert report["missing"] == ["a2"]
    row = next(r for r in report["items"] if r["id"] == "a2")
    assert row["missing"] is True and set(row["metrics"].values()) == {0.0}
    assert next(m for m in report["misses"] if m["id"] == "a2")["missing"] is True


def test_an_invalid_set_is_refused(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    path = score_ws / "sets" / "docs.yaml"
    path.write_text(path.read_text().replace("category: multi", "category: mutli", 1))
    write_run(score_ws / "run.jsonl", RUN)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "out.json")
    assert done.code == 1
    assert "cannot score a run against an invalid set (1 error(s); first: " in done.err
    assert "category 'mutli' is not declared" in done.err
    assert not (score_ws / "out.json").exists()


def _changed_corpus(repo: Path) -> str:
    write_files(repo, {"corpus/guide.md": GUIDE.replace("4.95", "5.95")})
    commit_all(repo, "shipping costs more")
    return take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset").short


def test_a_stale_set_is_refused_or_scored_with_the_items_marked(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    new = _changed_corpus(score_ws)
    write_run(score_ws / "run.jsonl", RUN)
    refused = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "-o", "out.json")
    assert refused.code == 1 and not (score_ws / "out.json").exists()
    assert (
        f"2 item(s) are stale against snapshot {new} (a2, m2), so their labels may not match "
        "what the run retrieved from; review them with `evalset stale docs`"
    ) in refused.err
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--allow-stale", "--json")
    assert done.code == 0
    report = json.loads(done.out)
    assert [s["id"] for s in report["stale"]] == ["a2", "m2"]
    assert report["stale"][0]["citations"][0]["status"] == "changed"
    stale_rows = {r["id"] for r in report["items"] if r.get("stale")}
    assert stale_rows == {"a2", "m2"}
    assert report["snapshot"] == new
    # the run retrieved from the snapshot the set was verified against: nothing is stale
    verified = _verified(score_ws)
    assert verified != new
    ok = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--snapshot", verified, "--json")
    assert ok.code == 0 and json.loads(ok.out)["stale"] == []


def _verified(repo: Path) -> str:
    return (repo / "sets" / "docs.yaml").read_text().split("verified: ")[1][:12]


def test_markdown_is_a_pull_request_comment(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_run(score_ws / "run.jsonl", RUN)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--format", "md")
    assert done.code == 0
    lines = done.out.splitlines()
    assert lines[0].startswith("### Retrieval: docs unreleased, snapshot ")
    # one trial per item: no "missed" column (in how many trials) to leave empty
    misses = lines.index("| item | category | split | expected | retrieved (first 10) |")
    assert lines[misses + 1] == "|---|---|---|---|---|"
    assert lines[misses + 2] == (
        "| `a3` | lookup | holdout | (a holdout item: not shown) | `guide.md#returns` |"
    )
    header = next(line for line in lines if line.startswith("| metric |"))
    assert header == "| metric | overall | lookup | multi |"
    hit = next(line for line in lines if line.startswith("| `hit@3` |"))
    assert hit.startswith("| `hit@3` | 0.800 [") and "| 0.667 [" in hit
    assert "<details><summary>By split</summary>" in done.out
    assert "> 2 unanswerable item(s) not scored for retrieval" in done.out


def test_human_output_puts_the_misses_first(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_run(score_ws / "run.jsonl", RUN)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl")
    assert done.code == 0
    lines = done.out.splitlines()
    assert lines[1].startswith("misses, start reading here (1 item(s)")
    assert lines[2].strip() == "a3  lookup (holdout)"
    assert lines[3].strip() == "expected   (a holdout item: not shown)"
    table = next(k for k, line in enumerate(lines) if line.startswith("metric "))
    assert table > 4 and lines[table].split() == ["metric", "overall", "lookup", "multi"]


def test_a_category_without_items_is_shown_as_such(score_ws: Path) -> None:
    items = {k: v for k, v in ITEMS.items() if v[0] == "lookup"}
    (score_ws / "sets" / "docs.yaml").write_text(set_text(_verified(score_ws), items))
    from evalset.config import find_workspace
    from evalset.score.markdown import columns
    from evalset.score.retrieval import score_retrieval

    run = write_run(score_ws / "run.jsonl", [line for line in RUN if line["id"] in items])
    report = score_retrieval(find_workspace(score_ws), score_ws / "sets" / "docs.yaml", run)
    assert [name for name, _ in columns(report.data)] == ["overall", "lookup"]
    assert report.data["categories"]["multi"]["mrr"]["n"] == 0


def test_sealed_holdout_items_need_the_key(score_ws: Path, cli, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from pyrage import x25519

    identity = x25519.Identity.generate()
    key = score_ws.parent / "holdout.key"
    key.write_text(f"# public key: {identity.to_public()}\n{identity}\n")
    monkeypatch.delenv("EVALSET_AGE_IDENTITY", raising=False)
    assert cli(score_ws, "seal", "docs", "--recipient", str(identity.to_public())).code == 0
    write_run(score_ws / "run.jsonl", RUN)
    without = json.loads(cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--json").out)
    assert without["counts"]["sealed"] == 3  # a3, m2 and r2 are held out
    assert {r["id"] for r in without["items"]} == {"a1", "a2", "m1"}
    assert without["counts"]["ignored_lines"]["sealed"] == 2
    assert without["splits"]["holdout"]["mrr"]["n"] == 0
    text = cli(score_ws, "score", "retrieval", "docs", "run.jsonl")
    assert "note: 3 sealed holdout item(s) not scored (their labels need the key)" in text.out
    monkeypatch.setenv("EVALSET_AGE_IDENTITY", str(key))
    opened = json.loads(cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--json").out)
    assert opened["counts"]["sealed"] == 0 and len(opened["items"]) == 5
    assert opened["evalset"]["fingerprint"] == without["evalset"]["fingerprint"]


SCORES = [0.0, 1.0, 0.5, 1 / 3, 2 / 3, 0.1 + 0.2, 1e-05, 1 / math.log2(3), 1e16]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.lists(st.sampled_from(SCORES), min_size=3, max_size=3), max_size=40))
def test_rows_are_written_as_json_writes_each_number(rows: list[list[float]]) -> None:
    """Item rows are formatted once per distinct row; each number as JSON writes it."""
    values = np.array(rows, dtype=np.float64).reshape(len(rows), 3)
    texts = row_texts(values, '{"a": %s, "b": %s, "c": %s}')
    assert texts == [json.dumps({"a": a, "b": b, "c": c}) for a, b, c in rows]
    assert texts == ['{{"a": {}, "b": {}, "c": {}}}'.format(*r) for r in number_texts(values)]
    assert row_texts(np.zeros((2, 0)), "{}") == ["{}", "{}"]
    cube = values.reshape(len(rows), 1, 3)  # any shape: the first axis runs over rows
    assert number_texts(cube).ravel().tolist() == [repr(v) for v in values.ravel().tolist()]
    assert number_texts(np.zeros((0, 2, 3))).shape == (0, 2, 3)


def test_the_run_is_scored_against_the_snapshot_stale_and_status_call_newest(  # type: ignore[no-untyped-def]
    score_ws: Path, cli
) -> None:
    """A snapshot of a later corpus was taken, then the corpus was put back: the newest
    snapshot is the one the corpus matches now, for scoring as for `status`."""
    verified = _verified(score_ws)
    write_files(score_ws, {"corpus/guide.md": GUIDE.replace("4.95", "5.95")})
    later = take_snapshot(score_ws, "corpus", score_ws / "snapshots", score_ws / ".evalset")
    assert later.short != verified
    write_files(score_ws, {"corpus/guide.md": GUIDE})
    status = json.loads(cli(score_ws, "status", "--json").out)
    assert status["newest"]["snapshot"] == verified
    write_run(score_ws / "run.jsonl", RUN)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--json")
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["snapshot"] == verified and report["evalset"]["snapshot"] == verified


def test_the_terminal_lists_the_first_misses_and_the_report_all(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A run that misses on a large set lists where to start reading, not thousands of
    lines; the report (and --json) keeps every miss."""
    from evalset.score.markdown import TERMINAL_MISSES

    snapshot = _verified(score_ws)
    total = TERMINAL_MISSES + 7
    words = ["amber", "birch", "cedar", "delta", "ember", "fjord", "grove", "heath"]
    items = "".join(
        f"  - id: q{k:03d}\n"
        f"    question: Which {words[k % 8]} {words[k // 8 % 8]} rule number {k} applies?\n"
        "    category: lookup\n    expected_sources: [guide.md#returns]\n"
        "    key_points:\n      - text: Return within 14 days\n"
        "        sources: [guide.md#returns]\n"
        f"    holdout: false\n    verified: {snapshot}\n"
        for k in range(total)
    )
    (score_ws / "sets" / "docs.yaml").write_text(
        "evalset: 1\nname: docs\ncategories:\n  lookup: one section\nitems:\n" + items
    )
    lines = [{"id": f"q{k:03d}", "retrieved": ["faq.md#hours"], "answer": "No idea."}
             for k in range(total)]  # fmt: skip
    write_run(score_ws / "run.jsonl", lines)
    more = "  … and 7 more item(s): the report lists them all"
    for command in (["retrieval"], ["answers", "--judge", "exact"]):
        done = cli(score_ws, "score", *command, "docs", "run.jsonl", "-o", "r.json")
        assert done.code == 0, done.out
        out = done.out.splitlines()
        assert f"({total} item(s)" in done.out
        # answers: the answer misses, then the retrieval misses of a run that retrieved too
        blocks = 1 if command == ["retrieval"] else 2
        listed = [line for line in out if line.startswith("  q")]
        assert len(listed) == blocks * TERMINAL_MISSES
        assert sum(line.startswith(more) for line in out) == blocks
        report = json.loads((score_ws / "r.json").read_text())
        key = "misses" if command == ["retrieval"] else "answer_misses"
        assert len(report[key]) == total
    comment = cli(score_ws, "score", "answers", "docs", "run.jsonl", "--judge", "exact",
                  "--format", "md").out  # fmt: skip
    answers_at = comment.index(f"**Answer misses, start reading here:** {total} item(s).")
    retrieval_at = comment.index(f"**Retrieval misses, start reading here:** {total} item(s)")
    assert answers_at < retrieval_at < comment.index("| metric |")


def test_a_corpus_edited_since_the_newest_snapshot_is_noted(score_ws: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """Scoring against the newest snapshot while the documents were edited after it scores
    labels checked against other text than the documents now hold: every form says so, as
    `stale` and `status` do."""
    answered = [{**line, "answer": "Return within 14 days."} for line in RUN]
    write_run(score_ws / "run.jsonl", answered)
    with (score_ws / "corpus" / "notes.txt").open("a") as f:
        f.write("A line added after the snapshot.\n")
    note = "the corpus has changed since snapshot "
    for command in (["retrieval"], ["answers", "--judge", "exact"]):
        score = ["score", *command, "docs", "run.jsonl"]
        report = json.loads(cli(score_ws, *score, "--json").out)
        assert report["corpus"] == "changed"
        for form in ([], ["--format", "md"]):
            done = cli(score_ws, *score, *form)
            assert done.code == 0 and note in done.out and "run `evalset snapshot`" in done.out
        snapshot = report["snapshot"]  # named: a run retrieved from it, whatever the corpus
        named = cli(score_ws, *score, "--snapshot", snapshot, "--json")
        assert json.loads(named.out)["corpus"] is None and note not in named.out


def test_citations_the_snapshot_does_not_have_are_listed_and_score_as_misses(  # type: ignore[no-untyped-def]
    score_ws: Path, cli
) -> None:
    run = [dict(line) for line in RUN]
    # a section the document lacks, a document the snapshot lacks, and a known section
    run[0] = {**run[0], "retrieved": ["guide.md#nowhere", "gone.md", "faq.md#hours",
                                      "gone.md#intro", "guide.md#nowhere"]}  # fmt: skip
    write_run(score_ws / "run.jsonl", run)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--json")
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["unknown_citations"] == ["gone.md", "gone.md#intro", "guide.md#nowhere"]
    assert report["counts"]["unknown_citations"] == 3
    text = cli(score_ws, "score", "retrieval", "docs", "run.jsonl")
    note = [line for line in text.out.splitlines() if "name no section" in line]
    assert note == [
        f"note: 3 retrieved citation(s) name no section of snapshot {report['snapshot']} "
        "(`gone.md`, `gone.md#intro`, `guide.md#nowhere`): did the retriever index another "
        "version of the corpus, or name its documents otherwise? They score as misses "
        '(report: "unknown_citations")'
    ]
    comment = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--format", "md").out
    assert "(`gone.md`, `gone.md#intro`, `guide.md#nowhere`)" in comment
    assert report["unknown_meant"] == {}
    write_run(score_ws / "run.jsonl", RUN)  # a run of known citations says nothing of them
    clean = json.loads(cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--json").out)
    assert clean["unknown_citations"] == [] and clean["counts"]["unknown_citations"] == 0


MEANT = [
    # (a citation as a run may write it, the one meant, or None when none is known for sure)
    ("corpus/guide.md#shipping", "guide.md#shipping"),  # from the repository's root
    ("repo/corpus/faq.md", "faq.md"),
    ("data/corpus/faq.md#hours", "faq.md#hours"),
    ("Guide.md#shipping", "guide.md#shipping"),  # in other letter case
    ("guide.md#Shipping", "guide.md#shipping"),
    ("CORPUS/FAQ.MD#HOURS", "faq.md#hours"),
    ("corpus/guide.md#nowhere", None),  # no such section, however written
    ("chunk_0412", None),  # a pipeline's own id
    ("guide.md#nowhere", None),
]


@pytest.mark.parametrize(("given", "meant"), MEANT)
def test_a_citation_written_otherwise_is_named_with_the_one_meant(  # type: ignore[no-untyped-def]
    score_ws: Path, cli, given: str, meant: str | None
) -> None:
    """Citations with the corpus folder before them (paths from the repository's root), or
    in other letter case, still score as misses (nothing is guessed), and the note says how
    they should be written, in every form."""
    run = [dict(line) for line in RUN]
    run[0] = {**run[0], "retrieved": [given, *run[0]["retrieved"]]}
    write_run(score_ws / "run.jsonl", run)
    score = ["score", "retrieval", "docs", "run.jsonl"]
    report = json.loads(cli(score_ws, *score, "--json").out)
    assert report["unknown_citations"] == [given]
    assert report["unknown_meant"] == ({given: meant} if meant else {})
    assert report["items"][0]["first_rank"] != 1  # a miss, whatever it meant
    for form in ([], ["--format", "md"]):
        done = cli(score_ws, *score, *form)
        assert done.code == 0, done.err
        said = "written otherwise (`" + given + "` for `" + str(meant) + "`)"
        assert (said in done.out) is (meant is not None), done.out


@pytest.mark.parametrize(
    ("extra", "flags", "unknown"),
    [
        ([], [], ["gone.md", "guide.md#nowhere"]),  # every line scored
        # a line that is not scored (a draft's, a retired item's, an unanswerable one's)
        # says nothing of what it retrieved
        ([{"id": "d1", "retrieved": ["draft.md#gone"]}], [], ["gone.md", "guide.md#nowhere"]),
        ([{"id": "r1", "retrieved": ["refuse.md"]}], [], ["gone.md", "guide.md#nowhere"]),
        # nor does a line left out as invalid
        (
            [{"id": "a1", "retrieved": ["left-out.md"]}, {"id": "zz", "retrieved": ["z.md"]}],
            ["--skip-invalid"],
            ["gone.md", "guide.md#nowhere"],
        ),
        # a second trial's line is scored: what it retrieved counts
        (
            [{"id": "a1", "trial": 1, "retrieved": ["other.md#x"]}],
            [],
            ["gone.md", "guide.md#nowhere", "other.md#x"],
        ),
    ],
)
def test_unknown_citations_are_those_of_the_scored_lines(  # type: ignore[no-untyped-def]
    score_ws: Path, cli, extra: list[dict[str, Any]], flags: list[str], unknown: list[str]
) -> None:
    scored = {"a1", "a2", "a3", "m1", "m2"}
    run = [dict(line) for line in RUN if line["id"] in scored]
    run[0] = {**run[0], "retrieved": ["guide.md#nowhere", "gone.md", "faq.md#hours"]}
    run[1] = {**run[1], "retrieved": ["gone.md", "guide.md#shipping"]}
    write_run(score_ws / "run.jsonl", run + extra)
    done = cli(score_ws, "score", "retrieval", "docs", "run.jsonl", "--json", *flags)
    assert done.code == 0, done.err
    report = json.loads(done.out)
    assert report["unknown_citations"] == unknown
    assert report["counts"]["unknown_citations"] == len(unknown)
