"""Ctrl-C in a process that runs the `evalset` command: it raises ``KeyboardInterrupt``, as
Python's own handler does, and is remembered, so that one raised where Python drops an
exception is not lost.

Python runs a signal's handler between two steps of whatever code is running. When that
code is a finaliser or a weak reference's callback (the import system's, run as a module
finishes importing: a command imports as it goes), an exception the handler raises is
printed as "Exception ignored in ..." and dropped, and the command ran on to the end and
exited 0, its files written. Here the handler does not raise there: it raises the
Ctrl-C again a moment later (by a timer), once that code has run, and a Ctrl-C not raised
yet stops the command before it replaces a file (``check``, called by ``fsio``) or as it
ends.

A library user's process keeps its own handler: only ``install`` sets this one.
"""

from __future__ import annotations

import atexit
import signal
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:
    from types import FrameType
    from typing import Any

_received = False

_DROPPED_IN = {
    "importlib._bootstrap": ("cb",),  # a module lock's callback, as an import ends
    "weakref": ("remove", "_remove", "callback"),
}
"""Functions (by module) that run as a weak reference's callback, where Python drops an
exception raised in them; any ``__del__`` too."""


def install() -> None:
    """Handle Ctrl-C (SIGINT) with ``_interrupt`` from now on, unless it is ignored (a
    command started in the background by a shell that ignores it there); and a Ctrl-C
    dropped where no Python frame says it would be (a library's C code calling back into
    Python, as pydantic's does while it builds a model) raised again a moment later
    (``_dropped``)."""
    if signal.getsignal(signal.SIGINT) is signal.default_int_handler:
        signal.signal(signal.SIGINT, _interrupt)
        sys.unraisablehook = _dropped
        atexit.register(_stop_timer)  # the command ended before the timer raised it


def _dropped(unraisable: Any) -> None:
    """``sys.unraisablehook``: a Ctrl-C raised where Python drops an exception is raised
    again 10 ms later (``_again_soon``), rather than printed as "Exception ignored in ..."
    with a traceback; anything else is printed as Python prints it."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt) and _received:
        _again_soon()
        return
    sys.__unraisablehook__(unraisable)


def received() -> bool:
    """Whether a Ctrl-C reached this process since ``install``."""
    return _received


def check() -> None:
    """Raise ``KeyboardInterrupt`` if a Ctrl-C reached the process: called before a file is
    replaced, so that one that could not be raised where it arrived still stops the
    command before it changes anything."""
    if _received:
        _stop_timer()
        raise KeyboardInterrupt


def _interrupt(signum: int, frame: FrameType | None) -> None:
    global _received
    _received = True
    if frame is not None and _dropping(frame):
        _again_soon()  # raised here, it would be dropped
        return
    _stop_timer()
    raise KeyboardInterrupt


def _again_soon() -> None:
    """Run ``_interrupt`` again in 10 ms, by a timer's signal (SIGALRM, which evalset uses
    for nothing else); where there is no such timer, ``check`` raises the Ctrl-C."""
    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGALRM, _interrupt)
        signal.setitimer(signal.ITIMER_REAL, 0.01)


def _stop_timer() -> None:
    """The Ctrl-C is raised, or the command has ended: ``_again_soon`` must not raise it (a
    second time, or as the interpreter shuts down, which resets the timer's handler, so that
    its signal would end the process as SIGALRM)."""
    if hasattr(signal, "setitimer") and signal.getsignal(signal.SIGALRM) is _interrupt:
        signal.setitimer(signal.ITIMER_REAL, 0)


def _dropping(frame: FrameType) -> bool:
    """Whether an exception raised in ``frame`` would be printed and dropped."""
    name = frame.f_code.co_name
    return name == "__del__" or name in _DROPPED_IN.get(frame.f_globals.get("__name__", ""), ())
