"""Names that differ only in letter case (`README.md` and `Readme.md`, `Docs/` and `docs/`)
are two documents here, and one in a clone on a file system that ignores case (macOS's,
Windows'), where git checks out only one of them: that clone's snapshot differs. Each such
pair is said in a warning, from the working tree and with `--rev` alike."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import commit_all, write_files

NOTE = (
    "warning: {} and {}: their names differ only in letter case, so a clone on a file "
    "system that ignores case (macOS's, Windows') holds only one of them; rename one\n"
)
# name -> (files, the pairs said)
CASES = {
    "two files": (["README.md", "Readme.md"], [("README.md", "Readme.md")]),
    "two folders": (["Docs/a.md", "docs/b.md"], [("Docs", "docs")]),
    "two files in a folder": (["x/Guide.md", "x/guide.md", "x/other.md"],
                              [("x/Guide.md", "x/guide.md")]),
    "three files": (["a.md", "A.md", "a.MD"], [("A.md", "a.MD"), ("A.md", "a.md")]),
    "names that differ otherwise": (["a.md", "b.md", "ab/a.md"], []),
}  # fmt: skip


@pytest.mark.parametrize("rev", [False, True], ids=["working tree", "--rev"])
@pytest.mark.parametrize("case", list(CASES))
def test_names_alike_but_for_case_are_said(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, case: str, rev: bool
) -> None:
    names, pairs = CASES[case]
    write_files(corpus_repo, {f"corpus/{name}": f"# {name}\n" for name in names})
    commit_all(corpus_repo, "corpus")
    done = cli(corpus_repo, "snapshot", *(["--rev", "HEAD"] if rev else []))
    assert done.code == 0, done.err
    assert done.err == "".join(NOTE.format(*pair) for pair in pairs)
    manifest = json.loads(next((corpus_repo / "snapshots").glob("*.json")).read_text())
    assert sorted(manifest["documents"]) == sorted(names)  # each is a document here
