"""One piece of work done aside, in a forked process, while this one goes on.

Scoring a run reads and scores the run while the set it was given is validated, checked
for staleness and pinned: neither needs the other until the report is assembled, and on
two cores they take about the same time. ``aside(work)`` forks a helper that runs ``work()``
on a copy of this process (what was loaded before is shared, not sent) and pipes back what
it returned, or what it raised, pickled; ``result()`` waits for it and returns or raises
the same. The helper ends with ``os._exit``: nothing inherited runs twice (no atexit, no
buffered output flushed twice).

The helper can be kept (``aside(work, keep=True)``): once ``work()`` is done it runs the
calls sent to it with ``then(function, *args)``, one at a time, until ``cancel()``. Scoring
sends it the bootstrap of the intervals, which needs the scores and nothing else, while
this process writes the rest of the report. ``then`` reads the first result before it
sends a call, so that neither process ever waits on the other's full pipe; a call whose
function or arguments cannot be sent runs here instead. (Waiting for the helper there costs
little: the report needs its first result anyway, and the bootstrap takes less time than
what this process still has to write.)

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
from functools import partial
from typing import Any, Generic, TypeVar

T = TypeVar("T")
R = TypeVar("R")


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
    here when its result is asked for). With ``keep``, the helper stays once it is done, to
    run more calls one at a time (``then``) until ``cancel()``."""

    def __init__(self, work: Callable[[], T], fork: bool | None = None, keep: bool = False) -> None:
        self.work = work
        self.keep = keep
        self.pid = 0
        self.read = -1
        self.write = -1
        self._outcome: tuple[bool, object] | None = None
        self._source: Aside[Any] = self
        """The helper whose next answer is this work's (another one's, for ``then``)."""
        self._last: Aside[Any] | None = None
        """The last call sent to this helper: its answer is read before another is sent."""
        if fork if fork is not None else can_fork():
            self._fork()

    def _fork(self) -> None:
        read, reply = os.pipe()  # the helper's answers
        ask, write = os.pipe() if self.keep else (-1, -1)  # calls sent to it after the first
        # A Ctrl-C waits out the fork: raised in the helper before its `try`, it would take
        # the helper back into this process's code. The helper then ends at one, silently
        # (its work is done again here, where the Ctrl-C stops the command).
        held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the helper, which coverage does not see
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            signal.pthread_sigmask(signal.SIG_SETMASK, held)
            for fd in (read, write):
                if fd >= 0:
                    os.close(fd)
            self._helper(reply, ask)
        signal.pthread_sigmask(signal.SIG_SETMASK, held)
        for fd in (reply, ask):
            if fd >= 0:
                os.close(fd)
        self.pid, self.read, self.write = pid, read, write

    def _helper(self, reply: int, ask: int) -> None:  # pragma: no cover - in the helper
        status = 1
        try:
            _send(reply, _run(self.work))
            while ask >= 0 and (call := _receive(ask)) is not None:
                function, args = call
                _send(reply, _run(partial(function, *args)))
            status = 0
        finally:
            os._exit(status)

    def result(self) -> T:
        """What ``work()`` returned; what it raised is raised (every time it is asked)."""
        if self._outcome is None:
            self._outcome = self._answer()
        ok, value = self._outcome
        if not ok:
            raise value  # type: ignore[misc]
        return value  # type: ignore[return-value]

    def then(self, function: Callable[..., R], *args: Any) -> Aside[R]:
        """``function(*args)``, run by the helper (kept) once ``work()`` is done, or here
        when its result is asked for if there is no helper. ``function`` is sent by name and
        ``args`` pickled. The first result, and the answer to the call sent before, are read
        (waited for) before the call is sent, so that answers come back in order and neither
        process waits on the other's full pipe."""
        later: Aside[R] = Aside(partial(function, *args), fork=False)
        if self._outcome is None:
            self._outcome = self._answer()
        last = self._last
        if last is not None and last._outcome is None:  # answers come back in order
            last._outcome = last._answer()
        if self.pid and self.write >= 0:
            try:
                _send(self.write, (function, args), strict=True)
            except Exception:  # not sent (cannot be pickled, helper gone): done here
                return later
            later._source = self
            self._last = later
        return later

    def _answer(self) -> tuple[bool, object]:
        """The helper's next answer, or the work done here when there is no helper or it
        sends nothing that can be read (it died, or could not send its result)."""
        source = self._source
        if not source.pid:
            return _run(self.work)
        found = _receive(source.read)
        if found is None or not source.keep:
            source.cancel()  # done (or died, or broke the protocol): reaped
        if found is None:
            return _run(self.work)
        ok, value = found
        return bool(ok), value

    def cancel(self) -> None:
        """Stop the helper if it still runs, and reap it."""
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGKILL)
                os.waitpid(self.pid, 0)
            except OSError:
                pass
            self.pid = 0
        for fd in (self.read, self.write):
            if fd >= 0:
                os.close(fd)
        self.read = self.write = -1


def _run(work: Callable[[], Any]) -> tuple[bool, object]:
    """(True, what ``work()`` returned) or (False, what it raised)."""
    try:
        return True, work()
    except Exception as exc:  # handed to the caller, who raises it
        return False, exc


_LENGTH = 8
"""Bytes of the length that goes before each message (0: "no message, do it yourself")."""


def _send(fd: int, message: object, strict: bool = False) -> None:
    """``message`` pickled, after its length; a length of 0 when it cannot be pickled
    (unless ``strict``: then the error is raised and nothing is sent)."""
    try:
        payload = pickle.dumps(message, pickle.HIGHEST_PROTOCOL)
    except Exception:  # cannot be sent: the caller does the work itself
        if strict:
            raise
        payload = b""
    data = memoryview(len(payload).to_bytes(_LENGTH, "little") + payload)
    while data:
        data = data[os.write(fd, data) :]


def _receive(fd: int) -> Any:
    """The next message, unpickled; None at the end of the pipe, for an empty message, or
    one that cannot be read back."""
    head = _read_exactly(fd, _LENGTH)
    if head is None:
        return None
    size = int.from_bytes(head, "little")
    payload = _read_exactly(fd, size) if size else None
    if payload is None:
        return None
    try:
        return pickle.loads(payload)
    except Exception:
        return None


def _read_exactly(fd: int, size: int) -> bytes | None:
    chunks = []
    while size:
        chunk = os.read(fd, min(size, 1 << 20))
        if not chunk:
            return None
        chunks.append(chunk)
        size -= len(chunk)
    return b"".join(chunks)


def aside(work: Callable[[], T], keep: bool = False) -> Aside[T]:
    """Start ``work()`` aside (see the module docstring); ``keep``: the helper stays for
    calls sent with ``then``."""
    return Aside(work, keep=keep)


Beside = Callable[..., Aside[Any]]
"""Where a call is made: ``here``, or ``Aside.then`` of a kept helper."""


def here(function: Callable[..., T], *args: Any) -> Aside[T]:
    """``function(*args)``, made here when its result is asked for."""
    return Aside(partial(function, *args), fork=False)
