"""Reading many corpus files on every core: this process and forked helpers share the work.

A process pool kept this process busy receiving and unpickling results while its workers
parsed, so three processes shared two cores. Here this process is one of the workers:
``cores - 1`` helpers are forked, and all of them take batches from one pipe that holds
every batch number (a read of four bytes from a pipe is atomic, so each batch goes to
exactly one taker), until it is empty. A helper appends its results, marshalled, to its own
unnamed temporary file, which this process reads once the helper is done; its own results
it yields as it makes them. Whatever a helper did not deliver (it crashed, or was killed)
is read here, so a result is never lost, and an error that is a bug surfaces here.
"""

from __future__ import annotations

import gc
import marshal
import mmap
import os
import signal
import tempfile
from collections.abc import Callable, Iterator, Sequence
from typing import IO, Any, TypeVar

Job = TypeVar("Job")

MAX_BATCHES = 1024
"""Batch numbers are written to the pipe before any helper starts: 4 bytes each, 4096 in
all, which every system's pipe buffer holds (and which POSIX writes atomically)."""


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def share(
    jobs: Sequence[Job],
    work: Callable[[Job], tuple[Any, ...]],
    progress: Callable[[int], None] | None = None,
    batch: int = 256,
    helpers: int | None = None,
) -> Iterator[tuple[Any, ...]]:
    """``work(job)`` for every job, in no particular order, on this process and ``helpers``
    forked ones (default: one per other core). ``work`` returns a tuple of values marshal
    can carry; ``progress`` is told how many jobs were done since it was last told."""
    helpers = cores() - 1 if helpers is None else helpers
    if helpers < 1 or not hasattr(os, "fork") or len(jobs) <= batch:
        for job in jobs:
            yield work(job)
            if progress:
                progress(1)
        return
    batch = max(batch, -(-len(jobs) // MAX_BATCHES))
    count = -(-len(jobs) // batch)
    done = [False] * len(jobs)
    read, write = os.pipe()
    os.write(write, b"".join(n.to_bytes(4, "little") for n in range(count)))
    os.close(write)  # so that a taker finds the pipe empty once every number is taken
    counters = mmap.mmap(-1, 8 * (helpers + 1))  # shared: jobs done by each process
    outputs: list[IO[bytes]] = []
    children: list[int] = []
    told = 0

    def take(slot: int) -> Iterator[tuple[int, list[tuple[Any, ...]]]]:
        finished = 0
        while len(got := os.read(read, 4)) == 4:
            first = int.from_bytes(got, "little") * batch
            results = [work(job) for job in jobs[first : first + batch]]
            finished += len(results)
            counters[8 * slot : 8 * slot + 8] = finished.to_bytes(8, "little")
            yield first, results

    def tell() -> None:
        nonlocal told
        if progress:
            now = sum(
                int.from_bytes(counters[8 * s : 8 * s + 8], "little") for s in range(helpers + 1)
            )
            progress(now - told)
            told = now

    gc.freeze()  # the helpers' collections then skip everything inherited from here
    try:
        for slot in range(1, helpers + 1):
            output = tempfile.TemporaryFile()  # noqa: SIM115 - closed below, after reading
            outputs.append(output)
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the helper, which coverage does not see
                _helper(take(slot), output)
            children.append(pid)
        for first, results in take(0):
            for n, result in enumerate(results, first):
                done[n] = True
                yield result
            tell()
        for pid in children:
            os.waitpid(pid, 0)
        children.clear()
        tell()
        for written in outputs:
            written.seek(0)
            while True:
                try:
                    first, results = marshal.load(written)
                except (EOFError, ValueError, TypeError):  # the end, or a helper cut short
                    break
                for n, result in enumerate(results, first):
                    done[n] = True
                    yield result
        for n, job in enumerate(jobs):  # anything a helper did not deliver
            if not done[n]:
                yield work(job)
                if progress:
                    progress(1)
    finally:
        for pid in children:  # left early: by an error, or the caller stopped reading
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        for written in outputs:
            written.close()
        os.close(read)
        counters.close()


def _helper(
    batches: Iterator[tuple[int, list[tuple[Any, ...]]]], output: IO[bytes]
) -> None:  # pragma: no cover - runs in the helper
    """Take batches until none is left, append each batch's results to ``output``, and end
    the process without running anything inherited (no atexit, no buffers flushed twice)."""
    status = 1
    try:
        gc.disable()
        for first, results in batches:
            marshal.dump((first, results), output)
        output.flush()
        status = 0
    except BaseException:
        pass
    finally:
        os._exit(status)
