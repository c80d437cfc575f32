"""One piece of work done aside, in a forked process, while this one goes on.

Scoring a run reads and scores the run while the set it was given is validated, checked
for staleness and pinned: neither needs the other until the report is assembled, and on
two cores they take about the same time. ``aside(work)`` forks a helper that runs ``work()``
on a copy of this process (what was loaded before is shared, not sent) and pipes back what
it returned, or what it raised, pickled; ``result()`` waits for it and returns or raises
the same. The helper ends with ``os._exit``: nothing inherited runs twice (no atexit, no
buffered output flushed twice).

Where a fork cannot help or is not safe (no ``os.fork``, one core, other threads running,
which a fork would copy in whatever state they are), ``work`` runs in this process when
``result()`` asks for it, so the outcome is the same everywhere. A helper that died without
a word (killed, out of memory) is not trusted: its work is done again here.
"""

from __future__ import annotations

import os
import pickle
import signal
import threading
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")


def _cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # pragma: no cover - not Linux
        return os.cpu_count() or 1


def can_fork() -> bool:
    """Whether work done aside would run beside this process."""
    return hasattr(os, "fork") and _cores() > 1 and threading.active_count() == 1


class Aside(Generic[T]):
    """``work()``, running in a helper process (or, where none can be forked, to be run
    here when its result is asked for)."""

    def __init__(self, work: Callable[[], T], fork: bool | None = None) -> None:
        self.work = work
        self.pid = 0
        self.read = -1
        self._outcome: tuple[bool, object] | None = None
        if fork if fork is not None else can_fork():
            self._fork()

    def _fork(self) -> None:
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the helper, which coverage does not see
            os.close(read)
            self._helper(write)
        os.close(write)
        self.pid, self.read = pid, read

    def _helper(self, write: int) -> None:  # pragma: no cover - in the helper
        status = 1
        try:
            outcome: tuple[bool, object]
            try:
                outcome = (True, self.work())
            except BaseException as exc:  # handed to the caller, who raises it
                outcome = (False, exc)
            payload = pickle.dumps(outcome, pickle.HIGHEST_PROTOCOL)
            with os.fdopen(write, "wb") as out:
                out.write(payload)
            status = 0
        except BaseException:  # cannot be sent: the caller finds nothing and does the work
            pass
        finally:
            os._exit(status)

    def result(self) -> T:
        """What ``work()`` returned; what it raised is raised (every time it is asked)."""
        if self._outcome is None:
            self._outcome = self._wait()
        ok, value = self._outcome
        if not ok:
            raise value  # type: ignore[misc]
        return value  # type: ignore[return-value]

    def _wait(self) -> tuple[bool, object]:
        if not self.pid:
            return self._here()
        chunks = []
        with os.fdopen(self.read, "rb") as pipe:
            self.read = -1
            while chunk := pipe.read(1 << 20):
                chunks.append(chunk)
        os.waitpid(self.pid, 0)
        self.pid = 0
        try:
            ok, value = pickle.loads(b"".join(chunks))
        except Exception:  # the helper died, or sent what cannot be read back: do it here
            return self._here()
        return bool(ok), value

    def _here(self) -> tuple[bool, object]:
        try:
            return True, self.work()
        except Exception as exc:
            return False, exc

    def cancel(self) -> None:
        """Stop the helper if it still runs, and reap it."""
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.pid = 0
        if self.read >= 0:
            os.close(self.read)
            self.read = -1


def aside(work: Callable[[], T]) -> Aside[T]:
    """Start ``work()`` aside (see the module docstring)."""
    return Aside(work)
