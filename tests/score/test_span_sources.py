"""Spans are read from the document's source as the snapshot saw it: the working-tree file or
the file at the snapshot's commit, each found under its name in either Unicode form, and
taken only when it hashes as the snapshot recorded."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path
from typing import Any

import pytest
from scoring_ws import set_text, write_run

from conftest import commit_all, make_git_repo, write_files
from evalset.corpus.snapshot import TakeResult, take_snapshot

LONG = "https://acme.example.com/terms/" + "x" * 80
DOC = f"""\
# Help

## Shipping

Orders ship within two working days.

## Returns

Returns within fourteen days. Read [our terms]({LONG}) first.

## Contact

Write to the support address.
"""
ITEMS = {
    "a1": ("lookup", False, ["a.md#shipping"]),
    "a2": ("lookup", False, ["a.md#contact"]),
}


def _workspace(
    root: Path, files: dict[str, str | bytes], items: Any = ITEMS
) -> tuple[Path, TakeResult]:
    """A git repository whose corpus is committed, then snapshotted at that commit; the set
    (verified against the snapshot) is committed after."""
    repo = make_git_repo(root)
    write_files(
        repo,
        {"evalset.toml": "[validate]\nmin_per_category = 0\n", ".gitignore": "/.evalset/\n"},
    )
    write_files(repo, {f"corpus/{name}": data for name, data in files.items()})
    commit_all(repo, "corpus")
    snapshot = take_snapshot(repo, "corpus", repo / "snapshots", repo / ".evalset")
    assert snapshot.commit
    write_files(repo, {"sets/docs.yaml": set_text(snapshot.short, items)})
    commit_all(repo, "set")
    return repo, snapshot


def _score(cli: Any, repo: Path, run: list[dict[str, Any]]) -> dict[str, Any]:
    write_run(repo / "run.jsonl", run)
    done = cli(repo, "score", "retrieval", "docs", "run.jsonl", "--json", "--allow-stale")
    assert done.code == 0, done.err
    data: dict[str, Any] = json.loads(done.out)
    return data


def _span(source: str, text: str, doc: str = "a.md") -> dict[str, Any]:
    start = source.index(text)
    return {"doc": doc, "start": start, "end": start + len(text)}


def _same_as_cited(cli: Any, repo: Path, ident: str, span: Any, cited: str) -> None:
    as_span = _score(cli, repo, [{"id": ident, "retrieved": [span]}])
    as_cited = _score(cli, repo, [{"id": ident, "retrieved": [cited]}])
    assert as_span["unresolved"] == []
    assert [r["metrics"] for r in as_span["items"]] == [r["metrics"] for r in as_cited["items"]]
    assert as_span["overall"] == as_cited["overall"]


GEBUEHREN = "# Gebühren\n\n## Karte\n\nDie Kartengebühr beträgt fünf Euro.\n\n## Bar\n\nBar.\n"
NFC, NFD = "gebühren.md", unicodedata.normalize("NFD", "gebühren.md")


@pytest.mark.parametrize("removed", [False, True], ids=["working tree", "git"])
@pytest.mark.parametrize("named", [NFC, NFD], ids=["run names NFC", "run names NFD"])
def test_a_span_finds_a_document_whose_file_name_is_decomposed(  # type: ignore[no-untyped-def]
    cli, tmp_path: Path, removed: bool, named: str
) -> None:
    """The file is named in NFD on disk and in git (as macOS stored names); its id is NFC.
    Before, every span of it was unresolved ("the source of gebühren.md as snapshot … saw
    it could not be read"), while its citations and text chunks resolved."""
    items = {"a1": ("lookup", False, [f"{NFC}#karte"])}
    repo, _ = _workspace(tmp_path / "repo", {NFD: GEBUEHREN}, items)
    if removed:  # read from git, at the snapshot's commit
        (repo / "corpus" / NFD).unlink()
    span = _span(GEBUEHREN, "Die Kartengebühr beträgt", named)
    _same_as_cited(cli, repo, "a1", span, f"{NFC}#karte")
    data = _score(cli, repo, [{"id": "a1", "retrieved": [span]}])
    assert data["items"][0]["first_rank"] == 1
