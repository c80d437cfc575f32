"""Rows that cite what the workspace's corpus does not have. Written, such an item made the
set invalid (`validate` checks a draft's citations too), and every later export, seal and
release of the set was refused; the import exited 0. Each is refused, naming the line and
the citation, and nothing is written."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import commit_all, write_files

RETURNS = "# Returns\n\n## Damaged items\n\nDamaged items can be returned within 30 days.\n"
QUESTION = "How long do I have to return a damaged kettle?"
POINT = "Damaged items can be returned within 30 days"


@pytest.fixture
def snapped(cli, corpus_repo: Path) -> tuple[Path, str]:  # type: ignore[no-untyped-def]
    """A workspace with one snapshot of a corpus of two documents, and its short id."""
    write_files(corpus_repo, {"corpus/returns.md": RETURNS, "corpus/faq.txt": "Free over 50.\n"})
    assert cli(corpus_repo, "snapshot").code == 0
    commit_all(corpus_repo, "corpus")
    [manifest] = (corpus_repo / "snapshots").glob("*.json")
    return corpus_repo, manifest.stem[:12]


def jsonl(sources: list[str], **more: Any) -> str:
    points = [{"text": POINT, "sources": sources}]
    row = {"id": "r-1", "question": QUESTION, "category": "direct-lookup",
           "expected_sources": sources, "key_points": points}  # fmt: skip
    return json.dumps({**row, **more}) + "\n"


def ragas(ids: list[str]) -> str:
    return json.dumps({"user_input": QUESTION, "reference": POINT, "reference_context_ids": ids,
                       "category": "direct-lookup"}) + "\n"  # fmt: skip


def langsmith(sources: list[str]) -> str:
    outputs = {"key_points": [{"text": POINT, "sources": sources}], "expected_sources": ["faq.txt"]}
    return json.dumps({"inputs": {"question": QUESTION}, "outputs": outputs}) + "\n"


def csv(sources: list[str]) -> str:
    def cell(value: Any) -> str:
        return '"' + json.dumps(value).replace('"', '""') + '"'

    return f"question,key_points,key_point_sources\n{QUESTION},{cell([POINT])},{cell([sources])}\n"


GOOD = json.dumps({"id": "r-0", "question": "Is shipping free over fifty euros?"}) + "\n"
REFUSED = [
    ("ragas", ragas(["chunk-17"]), "document 'chunk-17' is not in snapshot {snap}"),
    ("ragas", ragas(["returns.md#damaged-items", "chunk-9"]),
     "document 'chunk-9' is not in snapshot {snap}"),
    ("jsonl", jsonl(["returns.md#damaged"]),
     "returns.md has no section 'damaged' in snapshot {snap} (did you mean 'damaged-items'?)"),
    ("jsonl", jsonl(["retruns.md"], status="draft"),
     "document 'retruns.md' is not in snapshot {snap} (did you mean 'returns.md'?)"),
    ("langsmith", langsmith(["faq.txt#shipping"]), "faq.txt has no section 'shipping' in "
     "snapshot {snap}"),
    ("csv", csv(["policies/returns.md"]), "document 'policies/returns.md' is not in snapshot "
     "{snap} (did you mean 'returns.md'?)"),
]  # fmt: skip


@pytest.mark.parametrize(("fmt", "row", "problem"), REFUSED)
def test_a_row_citing_what_no_snapshot_has_is_refused(  # type: ignore[no-untyped-def]
    cli, snapped: tuple[Path, str], fmt: str, row: str, problem: str
) -> None:
    repo, snap = snapped
    first = GOOD if fmt == "jsonl" else ""
    line = 2 if first or fmt == "csv" else 1  # after the good row, or the CSV header
    (repo / "rows.txt").write_text(first + row, "utf-8")
    for args in ([], ["--dry-run"]):
        done = cli(repo, "import", "rows.txt", "--set", "s", "--format", fmt, *args)
        assert done.code == 2, done.out
        assert done.err == (f"evalset: rows.txt:{line}: {problem.format(snap=snap)}; cite a "
                            "document or section it has, or leave the citation out (nothing "
                            "was imported).\n")  # fmt: skip
        assert not (repo / "sets" / "s.yaml").exists()


def test_rows_citing_the_corpus_keep_the_set_valid(cli, snapped: tuple[Path, str]) -> None:  # type: ignore[no-untyped-def]
    """What the import takes, `validate` finds no error in; a row verified against an older
    snapshot is checked against that one, as `validate` checks it."""
    repo, old = snapped
    write_files(repo, {"corpus/returns.md": RETURNS.replace("Damaged items", "Broken goods")})
    assert cli(repo, "snapshot").code == 0
    rows = GOOD + jsonl(["returns.md#damaged-items"], verified=old)  # gone from the newest
    (repo / "rows.txt").write_text(rows, "utf-8")
    done = cli(repo, "import", "rows.txt", "--set", "s", "--format", "jsonl")
    assert done.code == 0, done.err
    more = ragas(["returns.md"]) + ragas(["returns.md#broken-goods"]).replace("kettle", "vase")
    (repo / "more.txt").write_text(more.replace(QUESTION, "Can a cracked teapot go back?", 1))
    assert cli(repo, "import", "more.txt", "--set", "s", "--format", "ragas").code == 0
    report = json.loads(cli(repo, "validate", "s", "--json").out)
    assert report["errors"] == 0, report["findings"]
