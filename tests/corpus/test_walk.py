"""Walking the corpus, by one process or split between two (``evalset.corpus.walk``)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from tests.conftest import write_files

from evalset.corpus import walk
from evalset.corpus.snapshot import take_snapshot
from evalset.corpus.walk import Scan, scan


def _both(root: Path, previous: Scan, monkeypatch: pytest.MonkeyPatch) -> tuple[Scan, Scan]:
    """The walk split between two processes, and the walk by one, against ``previous``."""
    monkeypatch.setattr(walk, "SPLIT_FROM", 1)
    split = scan(root, previous.listing)
    monkeypatch.setattr(walk, "SPLIT_FROM", 10**9)
    plain = scan(root, previous.listing)
    return split, plain


def _same(split: Scan, plain: Scan) -> None:
    assert split.files == plain.files
    assert split.paths == plain.paths
    assert split.listing == plain.listing
    assert split.same == plain.same
    assert split.warnings == plain.warnings
    assert split.unknown == plain.unknown
    assert split.total_bytes == plain.total_bytes


def test_a_split_walk_finds_what_one_walk_finds_through_any_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    corpus = tmp_path / "corpus"
    write_files(
        corpus,
        {
            f"{area}/{topic}/doc-{n}.md": f"# {area} {topic} {n}\n"
            for area in ("a", "b", "c")
            for topic in ("x", "y", "z")
            for n in range(5)
        }
        | {"top.md": "# Top\n", "a/notes.bin": "data"},
    )
    previous = scan(corpus)
    split, plain = _both(corpus, previous, monkeypatch)
    _same(split, plain)
    assert len(split.same) == len(previous.listing)  # nothing changed
    # An unchanged folder's listing is the previous one itself: the cache tells by identity.
    assert all(split.listing[folder] is previous.listing[folder] for folder in split.same)

    (corpus / "a/x/doc-0.md").write_text("# Changed\n")  # a changed file
    write_files(corpus, {"d/new/deeper/doc.md": "# New\n"})  # new folders, nested
    shutil.rmtree(corpus / "b/y")  # a folder gone
    (corpus / "b/z").rename(corpus / "b/.z")  # a folder hidden
    shutil.rmtree(corpus / "c/x")
    (corpus / "c/x").symlink_to(corpus / "c/y")  # a folder made a symlink: not followed
    (corpus / "c/out.md").symlink_to(tmp_path / "elsewhere.md")  # outside: a warning
    split, plain = _both(corpus, previous, monkeypatch)
    _same(split, plain)
    assert "d/new/deeper/doc.md" in split.files
    assert not any(doc.startswith(("b/y/", "b/z/", "b/.z/", "c/x/")) for doc in split.files)
    assert "a/x/doc-0.md" in split.files and "a/y/doc-0.md" not in split.files  # only changes
    assert any("c/out.md" in warning for warning in split.warnings)


@pytest.mark.skipif(os.geteuid() == 0, reason="root lists any folder")
def test_an_unlistable_folder_is_an_error_in_a_split_walk_too(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:  # pragma: no cover - CI runs as root
    corpus = tmp_path / "corpus"
    write_files(corpus, {f"{n}/doc.md": "# Doc\n" for n in range(4)})
    previous = scan(corpus)
    (corpus / "2").chmod(0)
    try:
        monkeypatch.setattr(walk, "SPLIT_FROM", 1)
        with pytest.raises(walk.SnapshotError, match="cannot be listed"):
            scan(corpus, previous.listing)
    finally:
        (corpus / "2").chmod(0o755)


def test_snapshots_through_split_walks_equal_fresh_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(walk, "SPLIT_FROM", 1)
    files: dict[str, str | bytes] = {
        f"corpus/{n % 6}/{n % 4}/doc-{n}.md": f"# Doc {n}\n\nText {n}.\n" for n in range(300)
    }
    write_files(tmp_path, files)
    for round_ in range(3):
        edits: dict[str, str | bytes] = {
            f"corpus/{n % 6}/{n % 4}/doc-{n}.md": f"# Doc {n}\n\nRound {round_}.\n"
            for n in range(round_, 300, 37)
        }
        write_files(tmp_path, edits)
        taken = take_snapshot(tmp_path, "corpus", tmp_path / "snapshots", tmp_path / ".evalset")
        fresh = take_snapshot(
            tmp_path, "corpus", tmp_path / "fresh", tmp_path / f".fresh-{round_}", write=False
        )
        assert taken.documents == fresh.documents == 300
        assert taken.id == fresh.id


def _too_long(corpus: Path) -> None:
    """A folder whose path is longer than the system lets a program name (PATH_MAX)."""
    here = corpus
    for k in range(25):
        here = here / f"{k:02}{'x' * 200}"
        os.mkdir(os.fspath(here)) if len(os.fspath(here)) < 4000 else _mkdir_at(here)
    (corpus / "a.md").write_text("# A\n")


def _mkdir_at(path: Path) -> None:
    """``mkdir`` of a path too long to name at once: from inside its parent."""
    parts = path.relative_to(path.anchor).parts
    fd = os.open(path.anchor, os.O_RDONLY)
    try:
        for part in parts[:-1]:
            inner = os.open(part, os.O_RDONLY, dir_fd=fd)
            os.close(fd)
            fd = inner
        os.mkdir(parts[-1], dir_fd=fd)
    finally:
        os.close(fd)


# cause -> (make the corpus unlistable, the fix said, whether it can be made here)
UNLISTABLE = {
    "a path too long": (
        _too_long,
        "(File name too long); its path is longer than the system "
        "allows: shorten the names of the folders on its way",
        True,
    ),
    "no permission": (
        lambda corpus: (corpus / "a.md").write_text("# A\n") or (corpus / "x").mkdir(mode=0),
        "(Permission denied); let evalset read it (`chmod u+rx`), or move it out of the corpus",
        os.geteuid() != 0,  # root lists any folder
    ),
}


@pytest.mark.parametrize("cause", list(UNLISTABLE))
def test_a_folder_that_cannot_be_listed_is_said_with_the_fix(  # type: ignore[no-untyped-def]
    corpus_repo: Path, cli, cause: str
) -> None:
    make, fix, possible = UNLISTABLE[cause]
    if not possible:
        pytest.skip("cannot be made here")
    make(corpus_repo / "corpus")
    done = cli(corpus_repo, "snapshot")
    assert done.code == 2
    assert done.err.startswith("evalset: corpus/")
    assert done.err.endswith(f": cannot be listed {fix}, then snapshot again.\n"), done.err
    assert not list((corpus_repo / "snapshots").glob("*.json"))
