"""Work shared between this process and forked helpers (``evalset.corpus.workers``)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from tests.conftest import write_files

from evalset.corpus import reading, snapshot
from evalset.corpus.snapshot import TakeResult, take_snapshot
from evalset.corpus.workers import share

PARENT = os.getpid()


def square(n: int) -> tuple[int, int, int]:
    return n, n * n, os.getpid()


def die_in_a_helper(n: int) -> tuple[int, int, int]:
    """Kills the helper that takes job 700; in this process it is an ordinary job."""
    if n == 700 and os.getpid() != PARENT:
        os.kill(os.getpid(), signal.SIGKILL)
    return square(n)


def fail_in_a_helper(n: int) -> tuple[int, int, int]:
    if n % 100 == 0 and os.getpid() != PARENT:
        raise RuntimeError("a bug")
    return square(n)


@pytest.mark.parametrize("helpers", [0, 1, 3])
def test_every_job_is_done_once(helpers: int) -> None:
    told: list[int] = []
    results = list(share(range(5_000), square, told.append, batch=64, helpers=helpers))
    assert sorted((n, sq) for n, sq, _ in results) == [(n, n * n) for n in range(5_000)]
    assert sum(told) == 5_000


def slow_square(n: int) -> tuple[int, int, int]:
    time.sleep(0.002)
    return square(n)


def test_this_process_and_its_helper_both_take_batches() -> None:
    results = list(share(range(400), slow_square, batch=10, helpers=1))
    assert sorted(n for n, _, _ in results) == list(range(400))
    assert len({pid for _, _, pid in results}) == 2


def test_what_a_killed_helper_did_not_deliver_is_done_here() -> None:
    results = list(share(range(2_000), die_in_a_helper, batch=50, helpers=2))
    assert sorted(n for n, _, _ in results) == list(range(2_000))


def test_a_helper_that_fails_loses_nothing() -> None:
    results = list(share(range(2_000), fail_in_a_helper, batch=50, helpers=1))
    assert sorted(n for n, _, _ in results) == list(range(2_000))


def _children() -> set[int]:
    found: set[int] = set()
    for task in Path(f"/proc/{os.getpid()}/task").iterdir():
        found.update(int(pid) for pid in (task / "children").read_text().split())
    return found


@pytest.mark.skipif(not Path("/proc/self/task").is_dir(), reason="reads /proc")
def test_a_caller_that_stops_early_leaves_no_helper_behind() -> None:
    before = _children()
    # Jobs slow enough that the helpers are still at work when the first result arrives:
    # with instant jobs, a busy machine let them finish everything, and be reaped, first.
    results = share(range(100_000), slow_square, batch=10, helpers=2)
    next(results)
    assert len(_children() - before) == 2
    results.close()
    assert _children() - before == set()  # killed and reaped: not even a zombie


def test_a_large_corpus_read_in_parallel_equals_one_read_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files: dict[str, str | bytes] = {
        f"corpus/part-{n % 7}/doc-{n:04d}.md": f"# Doc {n}\n\nText {n}.\n\n## Part\n\nMore {n}.\n"
        for n in range(700)
    }
    files["corpus/latin-1.md"] = "# Caf\xe9\n".encode("latin-1")
    for name in ("parallel", "serial"):
        write_files(tmp_path / name, files)

    def snap(name: str) -> TakeResult:
        root = tmp_path / name
        return take_snapshot(root, "corpus", root / "snapshots", root / ".evalset")

    parallel = snap("parallel")
    monkeypatch.setattr(snapshot, "PARALLEL_FROM", 10**9)
    serial = snap("serial")
    assert parallel.id == serial.id
    assert parallel.documents == serial.documents == 701
    assert parallel.reread == 701
    assert parallel.path is not None and serial.path is not None
    # The same manifest, but for the time it was taken.
    assert (
        parallel.path.read_bytes().split(b"\n", 1)[1] == serial.path.read_bytes().split(b"\n", 1)[1]
    )
    assert parallel.warnings == serial.warnings
    assert any("latin-1.md: is not valid UTF-8" in w for w in parallel.warnings)


def test_a_file_is_read_whole_whatever_size_it_was_listed_with(tmp_path: Path) -> None:
    path = tmp_path / "doc.md"
    path.write_bytes(b"x" * 10_000)
    for listed in (0, 1, 9_999, 10_000, 10_001, 1 << 20):  # it grew, stayed, or shrank
        assert reading.read_bytes(str(path), listed) == b"x" * 10_000
    with pytest.raises(FileNotFoundError):
        reading.read_bytes(str(tmp_path / "gone.md"), 10)


@pytest.mark.parametrize("limit", [10**9, 10_000])
def test_text_is_stored_below_the_threshold_only_as_the_whole_corpus_decides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, limit: int
) -> None:
    # Files are handed to the readers before the walk knows the corpus's size: those found
    # while it is still below the threshold are read both ways, and the total decides.
    monkeypatch.setattr(snapshot, "TEXT_LIMIT", limit)
    files: dict[str, str | bytes] = {
        f"corpus/d{n % 5}/doc-{n:04d}.md": f"# Doc {n}\n\nText of {n}.\n" for n in range(600)
    }
    write_files(tmp_path, files)
    size = sum(len(text) for text in files.values())
    assert 10_000 < size < 10**9
    taken = take_snapshot(tmp_path, "corpus", tmp_path / "snapshots", tmp_path / ".evalset")
    manifest = taken.load()
    stored = [doc.get("text") for doc in manifest.documents.values()]
    assert len(stored) == 600
    if limit > size:
        assert all(text and text.startswith("Doc ") for text in stored)
    else:
        assert not any(stored)


@pytest.mark.parametrize(
    ("frozen_before", "helpers"), [(False, 1), (False, 2), (True, 1), (False, 0)]
)
def test_sharing_leaves_the_collector_as_it_found_it(frozen_before: bool, helpers: int) -> None:
    """Before, forking the helpers froze every object of the process (``gc.freeze``) for
    good: a program that took snapshots kept, never collected, every reference cycle alive
    at that moment. Objects frozen by the caller before stay frozen."""
    import gc

    gc.unfreeze()  # what an earlier test's command, run in this process, froze
    if frozen_before:
        gc.freeze()
    try:
        before = gc.get_freeze_count()
        results = share(range(2_000), square, batch=50, helpers=helpers)
        assert sorted((n, sq) for n, sq, _ in results) == [(n, n * n) for n in range(2_000)]
        if frozen_before:
            assert gc.get_freeze_count() >= before > 0
        else:
            assert gc.get_freeze_count() == before == 0
    finally:
        gc.unfreeze()
