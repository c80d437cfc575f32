"""A corpus kept in Git LFS, with the real git-lfs (.ci/run installs Debian's package).

A checkout that did not fetch the LFS content (GitHub's actions/checkout unless told
``lfs: true``; any clone where git-lfs is not set up) holds pointer files where the documents
should be. Read as text, a pointer is a document without sections: a snapshot would record
every cited section as removed. Every command that reads the corpus refuses a pointer in one
sentence with the fix, records nothing from it, and after ``git lfs pull`` agrees with the
clone that had the content all along. git's history holds every LFS document as a pointer:
what is read from there (the old text of a changed section, a chunk's source) comes from
the clone's LFS store, and is never fetched."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import SET_HEADER, commit_all, git, make_git_repo, set_item, write_files


@pytest.fixture(autouse=True)
def _git_lfs() -> None:
    if shutil.which("git-lfs") is None:
        if os.environ.get("CI"):
            pytest.fail("git-lfs is missing: .ci/run installs Debian's git-lfs package")
        pytest.skip("git-lfs is missing (apt-get install git-lfs)")


RETURNS = (
    "# Returns\n\n## Damaged items\n\nA damaged item can be returned within 30 days.\n\n"
    "## Refunds\n\nRefunds reach your card within 5 days.\n"
)
FILES = {
    "corpus/policies/returns.md": RETURNS,
    "corpus/help/faq.md": "# FAQ\n\n## Hours\n\nWe are open from nine to five.\n",
    # not in LFS: a document about LFS that starts like a pointer is read as a document
    "corpus/help/lfs.txt": (
        "version https://git-lfs.github.com/spec/v1 is the first line of a pointer file.\n"
    ),
}
ITEMS = (
    set_item("q-001", "policies/returns.md#damaged-items"),
    set_item("q-002", "policies/returns.md#refunds", "help/faq.md#hours"),
)


def _origin(path: Path, cli) -> tuple[Path, str]:  # type: ignore[no-untyped-def]
    """A repository whose markdown corpus is in Git LFS, with a snapshot and a set verified
    against it, committed; the snapshot's id."""
    repo = make_git_repo(path)
    git(repo, "lfs", "install", "--local")
    git(repo, "lfs", "track", "corpus/**/*.md")
    config = "store_text = false\n[validate]\nmin_per_category = 0\n"  # old text: from git
    write_files(repo, {**FILES, "evalset.toml": config, ".gitignore": "/.evalset/\n"})
    commit_all(repo, "corpus")
    made = cli(repo, "snapshot", "--json")
    assert made.code == 0, made.err
    snapshot = json.loads(made.out)["id"][:12]
    write_files(repo, {"sets/docs.yaml": SET_HEADER + "".join(ITEMS)})
    assert cli(repo, "verify", "docs", "--all").code == 0
    commit_all(repo, "set")
    assert "oid sha256:" in git(repo, "show", "HEAD:corpus/policies/returns.md")  # in LFS
    return repo, snapshot


def _without_lfs(origin: Path, path: Path) -> Path:
    """A clone whose git has no LFS filter: the pointers are checked out as they are."""
    git(path.parent, "clone", "-q", str(origin), str(path))
    assert (path / "corpus/policies/returns.md").read_text().startswith("version https://")
    return path


def _files(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


# command, exit status, what it says (on stderr for a refusal, else on stdout)
POINTERS = [
    (("snapshot",), 2, "corpus/help/faq.md: is a Git LFS pointer whose content this checkout"),
    (("snapshot", "--json"), 2, '"error": "corpus/help/faq.md: is a Git LFS pointer'),
    (("snapshot", "--rev", "HEAD"), 2, "is a Git LFS pointer at revision"),
    (("status",), 0, "the corpus could not be read (corpus/help/faq.md: is a Git LFS pointer"),
    (("status", "--json"), 0, '"corpus": "unreadable"'),
]


def test_every_command_refuses_pointers_and_agrees_once_they_are_pulled(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    origin, snapshot = _origin(tmp_path / "origin", cli)
    clone = _without_lfs(origin, tmp_path / "clone")
    recorded = _files(clone / "snapshots")
    for args, code, said in POINTERS:
        done = cli(clone, *args)
        shown = done.err if code == 2 and "--json" not in args else done.out
        assert done.code == code, (args, done.err)
        assert said in shown, (args, shown)
        if code == 2:
            assert len(done.err.splitlines()) == 1, (args, done.err)
            fix = "run `git lfs fetch origin" if "--rev" in args else "run `git lfs pull`"
            assert fix in done.err, (args, done.err)
        assert _files(clone / "snapshots") == recorded, f"{args} recorded a pointer"
    # What reads the snapshots recorded gives the verdicts given where the content is, and
    # says why the corpus itself could not be compared.
    here, there = cli(clone, "validate"), cli(origin, "validate")
    assert (here.code, here.out) == (there.code, there.out)
    here, there = cli(clone, "stale", "docs", "--json"), cli(origin, "stale", "docs", "--json")
    assert here.code == there.code == 0
    found, expected = json.loads(here.out), json.loads(there.out)
    assert (found["snapshot"], found["items"]) == (expected["snapshot"], expected["items"])
    assert found["newest"]["corpus"] == "unreadable"
    assert "is a Git LFS pointer" in cli(clone, "stale", "docs").out
    # Pulled, the clone is the corpus the snapshot recorded.
    git(clone, "lfs", "install", "--local")
    git(clone, "lfs", "pull")
    assert (clone / "corpus/policies/returns.md").read_text() == RETURNS
    done = cli(clone, "snapshot", "--json")
    assert done.code == 0 and json.loads(done.out)["id"].startswith(snapshot), done.err
    assert _files(clone / "snapshots") == recorded
    assert "(the corpus as it is now)" in cli(clone, "status").out


def test_text_from_history_comes_from_the_lfs_store(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    """With the section text not stored in snapshots, the old text of a changed section is
    read from git at the snapshot's commit: as a pointer, which names its content in the
    clone's LFS store."""
    origin, _ = _origin(tmp_path / "origin", cli)
    write_files(origin, {"corpus/policies/returns.md": RETURNS.replace("30 days", "14 days")})
    commit_all(origin, "returns within 14 days")
    assert cli(origin, "snapshot").code == 0
    stale = cli(origin, "stale", "docs")
    assert stale.code == 1 and "within [-30-] {+14+} days" in stale.out, stale.out
    # Without the content in the store, nothing is fetched: the old text is not shown, and
    # the note says why (it said the corpus had uncommitted changes then).
    shutil.rmtree(origin / ".git" / "lfs" / "objects")
    stale = cli(origin, "stale", "docs")
    assert stale.code == 1 and "[-30-]" not in stale.out and "damaged-items" in stale.out
    assert "policies/returns.md is in Git LFS, and this clone does not hold that version" in (
        stale.out
    )
    assert "uncommitted" not in stale.out


def test_a_span_is_read_from_the_lfs_store_at_the_snapshots_commit(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
) -> None:
    """A chunk given by offsets is read from the source the snapshot recorded: the working
    tree's file has been edited since, so it comes from git, where it is a pointer."""
    origin, _ = _origin(tmp_path / "origin", cli)
    write_files(origin, {"corpus/policies/returns.md": "# Returns\n\nRewritten.\n" + RETURNS})
    start = RETURNS.index("within 30 days")
    span = {"doc": "policies/returns.md", "start": start, "end": start + len("within 30 days")}
    (origin / "run.jsonl").write_text(json.dumps({"id": "q-001", "retrieved": [span]}) + "\n")
    done = cli(origin, "score", "retrieval", "docs", "run.jsonl", "-o", "report.json")
    report = json.loads((origin / "report.json").read_text())
    assert report["unresolved"] == [], report["unresolved"]
    assert done.code == 0, done.err


@pytest.mark.parametrize("storage", ["relative", "absolute"])
def test_the_lfs_store_is_found_where_lfs_storage_puts_it(
    tmp_path: Path,
    cli,  # type: ignore[no-untyped-def]
    storage: str,
) -> None:
    """git-lfs's ``lfs.storage`` moves the store (relative to the git folder, or anywhere)."""
    origin, _ = _origin(tmp_path / "origin", cli)
    store = tmp_path / "store" if storage == "absolute" else origin / ".git" / "elsewhere"
    shutil.move(origin / ".git" / "lfs", store)
    git(origin, "config", "lfs.storage", str(store) if storage == "absolute" else "elsewhere")
    write_files(origin, {"corpus/policies/returns.md": RETURNS.replace("30 days", "14 days")})
    commit_all(origin, "returns within 14 days")
    assert cli(origin, "snapshot").code == 0
    stale = cli(origin, "stale", "docs")
    assert "within [-30-] {+14+} days" in stale.out, stale.out


OID = "4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393"
POINTER = f"version https://git-lfs.github.com/spec/v1\noid sha256:{OID}\nsize 12345\n"


@pytest.mark.parametrize(
    "data",
    [
        POINTER,
        POINTER + "\n",  # blank lines after it: git-lfs still reads the pointer
        POINTER + "\n\n\n",
        POINTER.rstrip("\n"),
        POINTER.replace("\n", "\r\n"),
        POINTER + "\nmore text\n",
        "\n" + POINTER,
        "\n\n" + POINTER + "\n",
        POINTER.replace("size 12345", "size twelve"),
    ],
)
def test_a_pointer_is_what_git_lfs_reads_as_one(tmp_path: Path, data: str) -> None:
    """The working tree's pointers are told by git-lfs's own rule (`git lfs pointer
    --check`), so a file git-lfs would replace is never read as a document. (One difference
    is left: a line after the pointer's that no key of the specification starts, which
    git-lfs skips, makes the file a document, as one that quotes a pointer is.)"""
    from evalset.corpus.lfs import pointer

    (tmp_path / "file").write_bytes(data.encode())
    done = subprocess.run(
        ["git", "lfs", "pointer", "--check", "--file", str(tmp_path / "file")],
        capture_output=True,
        check=False,
    )
    assert (pointer(data.encode()) is not None) == (done.returncode == 0), done
