"""A pull-request comment (`--format md`) fits in GitHub's 65,536 characters, however many
rows it has: a policy update that makes hundreds of citations stale, a rewritten set, misses
whose every character needs escaping. What is left out is counted, and the command that
shows it all is named; the comment still parses as whole tables and closed blocks."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import SET_HEADER, commit_all, set_item, verified_items, write_files
from evalset.corpus.snapshot import take_snapshot
from evalset.display import COMMENT_LONGEST, md_row, md_text
from evalset.score.markdown import MAX_MISSES, MISS_TABLE_LONGEST, miss_rows
from test_hostile_output import check_markdown

DOCS = 300
WORDS = " ".join(f"word{k}" for k in range(120))


def _corpus(version: int) -> dict[str, str]:
    return {
        f"corpus/policy-{n:03}.md": f"# Policy {n}\n\n## Rule\n\n{WORDS} version {version}.\n"
        for n in range(DOCS)
    }


def _snapshot(repo: Path) -> str:
    return take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset").short


def test_a_large_policy_update_fits_in_one_comment(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, _corpus(1))
    old = _snapshot(corpus_repo)
    items = "".join(set_item(f"q-{n:03}", f"policy-{n:03}.md#rule") for n in range(DOCS))
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + verified_items(items, old))
    write_files(corpus_repo, _corpus(2))
    _snapshot(corpus_repo)

    md = cli(corpus_repo, "stale", "--format", "md")
    assert md.code == 1
    check_markdown(md.out)
    assert len(md.out) <= COMMENT_LONGEST
    assert md.out.startswith(f"### {DOCS} stale item(s)")
    assert "| docs | `q-000` | `policy-000.md#rule` | changed |" in md.out
    assert "<details><summary>q-000: policy-000.md#rule (changed)</summary>" in md.out
    assert md.out.count("<details>") == md.out.count("</details>") < DOCS
    assert md.out.rstrip().endswith(
        "more citation(s) are left out to keep this comment within GitHub's size limit: "
        "`evalset stale` shows them all."
    )
    everything = json.loads(cli(corpus_repo, "stale", "--json").out)
    assert len(everything["items"]) == DOCS


def test_more_stale_rows_than_fit_leave_out_rows_and_changes(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    write_files(corpus_repo, _corpus(1))
    old = _snapshot(corpus_repo)
    long_id = "q-" + "x" * 180  # rows of ~400 characters: 300 of them do not fit
    items = "".join(set_item(f"{long_id}{n:03}", f"policy-{n:03}.md#rule") for n in range(DOCS))
    (corpus_repo / "sets" / "docs.yaml").write_text(SET_HEADER + verified_items(items, old))
    for n in range(DOCS):  # deleted sections: a row each, no change to show
        (corpus_repo / f"corpus/policy-{n:03}.md").write_text(f"# Policy {n}\n\n## Gone{n}\n\nx\n")
    _snapshot(corpus_repo)

    md = cli(corpus_repo, "stale", "--format", "md").out
    check_markdown(md)
    assert len(md) <= COMMENT_LONGEST
    shown = md.count(f"| docs | `{long_id}")
    assert 0 < shown < DOCS
    assert f"… {DOCS - shown} more stale citation(s), and every change, are left out" in md


def _diff_comment(repo: Path, cli, items: str, old: str, new: str) -> str:  # type: ignore[no-untyped-def]
    """The diff comment of a set of ``items`` committed, then edited (``old`` to ``new``
    everywhere); checked to parse whole and to fit."""
    write_files(repo, _corpus(1))
    set_file = repo / "sets" / "docs.yaml"
    set_file.write_text(SET_HEADER + items)
    commit_all(repo, "set")
    set_file.write_text(set_file.read_text().replace(old, new))
    md = cli(repo, "diff", "docs", "HEAD", "--format", "md")
    assert md.code == 0, md.err
    check_markdown(md.out)
    assert len(md.out) <= COMMENT_LONGEST
    return str(md.out)


def test_a_rewritten_set_fits_in_one_diff_comment(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    items = "".join(set_item(f"q-{n:04}", f"policy-{n % DOCS:03}.md#rule") for n in range(1500))
    out = _diff_comment(corpus_repo, cli, items, "about the policy?", f"{WORDS}?")
    shown = out.count("| `q-")
    assert 0 < shown < 1500
    assert out.rstrip().endswith(
        f"… {1500 - shown} more row(s) are left out to keep this comment within GitHub's size "
        "limit: `evalset diff` shows them all."
    )
    everything = json.loads(cli(corpus_repo, "diff", "docs", "HEAD", "--json").out)
    assert len(everything["changed"]) == 1500


def test_a_set_whose_every_item_moved_to_the_holdout_fits_in_one_diff_comment(
    corpus_repo: Path,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    """Each holdout move is flagged before the table; 2,500 of them made a comment of
    235,235 characters whose table was empty while it said rows were left out."""
    items = "".join(
        set_item(f"q-{n:04}", f"policy-{n % DOCS:03}.md#rule") + "    holdout: false\n"
        for n in range(2500)
    )
    out = _diff_comment(corpus_repo, cli, items, "holdout: false", "holdout: true")
    flagged = out.count("> **Holdout move:**")
    assert 0 < flagged < 2500
    assert f"> … and {2500 - flagged} more holdout move(s): `evalset diff` lists them all." in out
    shown = out.count("| `q-")
    assert 0 < shown < 2500
    assert f"… {2500 - shown} more row(s) are left out" in out


def test_misses_whose_every_character_is_escaped_fit_their_table() -> None:
    """An answer of 1,000 ``<`` is 4,000 characters in a comment (``&lt;`` each): twenty such
    rows in each of a comment's two tables of misses would pass GitHub's limit."""
    rows = [md_row([f"`q-{n}`", md_text("<" * 5000), md_text("*" * 5000)]) for n in range(30)]
    table = miss_rows(rows[:MAX_MISSES], len(rows))
    shown = len(table) - 2  # the rows, the line of how many more, the blank line
    assert 0 < shown < MAX_MISSES
    assert sum(map(len, table[:shown])) <= MISS_TABLE_LONGEST
    assert table[-2] == f"\n… and {30 - shown} more in the report."
    assert 2 * MISS_TABLE_LONGEST < COMMENT_LONGEST - 10_000  # room for the rest of it


def test_many_categories_and_stale_items_fit_in_each_score_comment(corpus_repo: Path, cli) -> None:  # type: ignore[no-untyped-def]
    """A category per policy, each a column of the metric table: 300 columns do not fit,
    nor do 300 stale ids in a note; whole columns and 20 ids do, and the rest is counted."""
    write_files(corpus_repo, _corpus(1))
    old = _snapshot(corpus_repo)
    topics = "".join(f"  topic-{n:03}: questions about policy {n}\n" for n in range(DOCS))
    header = SET_HEADER.replace("  direct-lookup: a fact\n", topics)
    items = "".join(
        set_item(f"q-{n:03}", f"policy-{n:03}.md#rule").replace(
            "category: direct-lookup", f"category: topic-{n:03}"
        )
        for n in range(DOCS)
    )
    (corpus_repo / "sets" / "docs.yaml").write_text(header + verified_items(items, old))
    write_files(corpus_repo, _corpus(2))  # every item is stale, and scored with --allow-stale
    _snapshot(corpus_repo)
    run = "".join(
        json.dumps({"id": f"q-{n:03}", "retrieved": [f"policy-{n:03}.md#rule"],
                    "answer": f"The fact q-{n:03} asks about."}) + "\n"
        for n in range(DOCS)
    )  # fmt: skip
    (corpus_repo / "run.jsonl").write_text(run)
    for command in (("retrieval",), ("answers", "--judge", "exact")):
        args = ("score", *command[:1], "docs", "run.jsonl", *command[1:], "--allow-stale")
        md = cli(corpus_repo, *args, "--format", "md")
        assert md.code == 0, md.err
        check_markdown(md.out)
        assert len(md.out) <= COMMENT_LONGEST, (command, len(md.out))
        head = next(line for line in md.out.splitlines() if line.startswith("| metric |"))
        shown = head.count("| topic-")
        assert 0 < shown < DOCS
        assert f"… and {DOCS - shown} more categories in the report" in md.out
        ids = ", ".join(f"q-{n:03}" for n in range(20))
        assert f"{DOCS} stale item(s) scored and marked (--allow-stale): {ids}, and " in md.out
        assert f'and {DOCS - 20} more (report: "stale")' in md.out
        report = json.loads(cli(corpus_repo, *args, "--json").out)
        assert len(report["categories"]) == DOCS and len(report["stale"]) == DOCS
