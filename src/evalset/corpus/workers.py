"""Reading many corpus files on every core: this process and forked helpers share the work,
which starts while the files are still being found.

A process pool kept this process busy receiving and unpickling results while its workers
parsed, so three processes shared two cores; and it could start only once the walk of the
corpus was over. Here this process is one of the workers. Jobs are ``add``-ed as the walk
finds them; once a few batches' worth are waiting, ``cores - 1`` helpers are forked, and
each full batch is announced as it is made: its jobs are appended to a shared file, and its
number written to a pipe. Every taker reads batch numbers from that pipe (a read of four
bytes from a pipe is atomic, so each batch goes to exactly one taker); this process joins
them when the walk is over (``results``). A helper appends its results, marshalled, to its
own unnamed temporary file, which this process reads once the helper is done. Whatever a
helper did not deliver (it crashed, or was killed) is done here, so a result is never lost,
and an error that is a bug surfaces here.
"""

from __future__ import annotations

import gc
import marshal
import mmap
import os
import signal
import tempfile
from collections.abc import Callable, Iterable, Iterator
from types import TracebackType
from typing import IO, Any, Generic, TypeVar

Job = TypeVar("Job")
Result = tuple[Any, ...]

TABLE = 1 << 20
"""How many batches the shared table can place (16 bytes each, in a mapping whose pages
are only made when used); batches past it are this process's to take."""


def cores() -> int:
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


class Shared(Generic[Job]):
    """Jobs shared out while they are still being found: ``add`` each, then iterate over
    ``results``; use as a context manager, so that helpers are stopped if the caller stops
    early. ``work`` returns a tuple of values marshal can carry, and jobs are such values."""

    def __init__(
        self,
        work: Callable[[Job], Result],
        batch: int = 256,
        start_at: int = 256,
        helpers: int | None = None,
    ) -> None:
        self.work, self.batch, self.start_at = work, batch, max(start_at, batch)
        self.helpers = (cores() - 1 if helpers is None else helpers) if hasattr(os, "fork") else 0
        self.count = 0
        """How many jobs were added."""
        self._pending: list[Job] = []
        self._batches: list[list[Job]] = []
        self._mine: list[int] = []
        """Batches the pipe or the table had no room for: this process takes them."""
        self._children: list[int] = []
        self._outputs: list[IO[bytes]] = []
        self._started = False
        self._thaw = False

    def add(self, job: Job) -> None:
        self._pending.append(job)
        self.count += 1
        if len(self._pending) >= self.batch and (self._started or self._start()):
            self._announce()

    def _start(self) -> bool:
        """Fork the helpers, once there is enough work to pay for them."""
        if self.helpers < 1 or len(self._pending) < self.start_at:
            return False
        self._read, self._write = os.pipe()
        os.set_blocking(self._write, False)  # a full pipe leaves the batch to this process
        self._jobs = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
        self._end = 0
        self._table = mmap.mmap(-1, 16 * TABLE)  # shared: where each batch's jobs are
        self._counters = mmap.mmap(-1, 8 * (self.helpers + 1))  # shared: jobs done by each
        self._started = True
        # nothing frozen before: all of it is thawed again in ``close``, so that a program
        # taking snapshots does not keep, uncollectable, every cycle alive at this moment
        self._thaw = gc.get_freeze_count() == 0
        gc.freeze()  # the helpers' collections then skip everything inherited from here
        for slot in range(1, self.helpers + 1):
            output = tempfile.TemporaryFile()  # noqa: SIM115 - closed in close()
            self._outputs.append(output)
            pid = os.fork()
            if pid == 0:  # pragma: no cover - runs in the helper, which coverage does not see
                self._helper(slot, output)
            self._children.append(pid)
        return True

    def _announce(self) -> None:
        """Make the waiting jobs batches, and offer each to every taker."""
        pending, self._pending = self._pending, []
        for first in range(0, len(pending), self.batch):
            self._offer(pending[first : first + self.batch])

    def _offer(self, jobs: list[Job]) -> None:
        number = len(self._batches)
        self._batches.append(jobs)
        if number >= TABLE:
            self._mine.append(number)
            return
        data = marshal.dumps(jobs)
        os.pwrite(self._jobs.fileno(), data, self._end)
        place = (self._end).to_bytes(8, "little") + len(data).to_bytes(8, "little")
        self._table[16 * number : 16 * number + 16] = place
        self._end += len(data)
        try:
            os.write(self._write, number.to_bytes(4, "little"))
        except BlockingIOError:
            self._mine.append(number)

    def _take(self, slot: int) -> Iterator[tuple[int, list[Result]]]:
        """Take batches from the pipe until it is empty and closed; yield each one's results."""
        while len(got := os.read(self._read, 4)) == 4:
            number = int.from_bytes(got, "little")
            if slot == 0:
                jobs = self._batches[number]
            else:
                entry = self._table[16 * number : 16 * number + 16]
                start, size = (int.from_bytes(entry[i : i + 8], "little") for i in (0, 8))
                jobs = marshal.loads(os.pread(self._jobs.fileno(), size, start))
            yield number, self._run(slot, jobs)

    def _run(self, slot: int, jobs: list[Job]) -> list[Result]:
        results = [self.work(job) for job in jobs]
        place = slice(8 * slot, 8 * slot + 8)
        done = int.from_bytes(self._counters[place], "little") + len(results)
        self._counters[place] = done.to_bytes(8, "little")
        return results

    def _done(self) -> int:
        """How many jobs every taker has done."""
        counts = self._counters
        return sum(int.from_bytes(counts[i : i + 8], "little") for i in range(0, len(counts), 8))

    def _helper(self, slot: int, output: IO[bytes]) -> None:  # pragma: no cover - in the helper
        """Take batches until none is left, append each one's results to ``output``, and end
        the process without running anything inherited (no atexit, no buffers flushed twice)."""
        status = 1
        try:
            os.close(self._write)  # only the announcer may keep the pipe open
            gc.disable()
            for number, results in self._take(slot):
                marshal.dump((number, results), output)
            output.flush()
            status = 0
        except BaseException:
            pass
        finally:
            os._exit(status)

    def results(self, progress: Callable[[int], None] | None = None) -> Iterator[Result]:
        """Every job's result, in no particular order, once every job was added;
        ``progress`` is told how many jobs were done since it was last told (helpers may
        have done many while jobs were being added)."""
        if not self._started and not self._start():
            for job in self._pending:
                yield self.work(job)
                if progress:
                    progress(1)
            return
        if self._pending:
            self._announce()
        os.close(self._write)  # takers find the pipe empty once every number is taken
        self._write = -1
        told = 0

        def tell() -> None:
            nonlocal told
            if progress:
                now = self._done()
                progress(now - told)
                told = now

        delivered = [False] * len(self._batches)
        for number in self._mine:  # first what only this process can take
            yield from self._run(0, self._batches[number])
            delivered[number] = True
            tell()
        for number, results in self._take(0):
            delivered[number] = True
            yield from results
            tell()
        for pid in self._children:
            os.waitpid(pid, 0)
        self._children.clear()
        tell()
        for written in self._outputs:
            written.seek(0)
            while True:
                try:
                    number, results = marshal.load(written)
                except (EOFError, ValueError, TypeError):  # the end, or a helper cut short
                    break
                delivered[number] = True
                yield from results
        for number, jobs in enumerate(self._batches):  # anything a helper did not deliver
            if not delivered[number]:
                for job in jobs:
                    yield self.work(job)
                    if progress:
                        progress(1)

    def close(self) -> None:
        """Stop and reap any helper still running, and let go of the shared files."""
        for pid in self._children:
            try:
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)
            except OSError:
                pass
        self._children.clear()
        if self._started:
            for written in self._outputs:
                written.close()
            self._jobs.close()
            for fd in (self._read, self._write):
                if fd >= 0:
                    os.close(fd)
            self._table.close()
            self._counters.close()
            self._started = False
            if self._thaw:
                gc.unfreeze()

    def __enter__(self) -> Shared[Job]:
        return self

    def __exit__(
        self, kind: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()


def share(
    jobs: Iterable[Job],
    work: Callable[[Job], Result],
    progress: Callable[[int], None] | None = None,
    batch: int = 256,
    helpers: int | None = None,
) -> Iterator[Result]:
    """``work(job)`` for every job, in no particular order, on this process and ``helpers``
    forked ones (default: one per other core)."""
    with Shared(work, batch, batch, helpers) as shared:
        for job in jobs:
            shared.add(job)
        yield from shared.results(progress)
