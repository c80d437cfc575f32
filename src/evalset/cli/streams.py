"""The standard streams, in whatever state the user's environment gives them.

``prepare`` runs first in every command (cheaply: no import beyond the standard library's
already loaded modules):

- A closed standard stream (``>&-``, ``2>&-``, ``<&-``) gets ``/dev/null`` on its
  descriptor, so that no file evalset opens later takes descriptor 0, 1 or 2 (where a git
  or judge process it starts would read or write it). A closed standard output fails each
  write as a closed descriptor does (``_Closed``), as a full one does; a command that
  prints nothing (``merge-driver``) runs as usual. A closed standard error takes the
  messages to ``/dev/null``; the exit status still says how the command ended. A closed
  standard input stays ``None``, which ``evalset.fsio.read_input`` names for ``-``.
- Text the encoding of standard output or error cannot hold (``PYTHONIOENCODING=ascii``, a
  C locale with UTF-8 mode off, a Windows console) is written as its escape (``\\u2192``),
  as ``evalset.display.printable`` shows control characters. ``--json`` is written with
  ``\\u`` escapes then (``json_ascii``), so that the document stays exact; exported rows,
  which are data, are refused rather than altered (``evalset.cli.output.emit_data``).
- Unbuffered standard output (``PYTHONUNBUFFERED``, ``python -u``, as container images set
  it) writes through a buffer all the same (``_whole_writes``): unbuffered, a write larger
  than the pipe holds (a ``--json`` document, exported rows) that the reader left in the
  middle of was cut short without an error, and the command ended with status 0.

A write to standard output that fails (a full disk, ``/dev/full``, closed, a reader gone
away) raises ``OutputLost``, which ``evalset.cli.main`` turns into one sentence
(``lost_sentence``) and exit status 2, or, for a broken pipe, into a quiet exit with 141,
the status a shell shows for a program ended by SIGPIPE (as git and most Unix tools end).
"""

from __future__ import annotations

import errno
import io
import os
import re
import sys
from typing import Any

UNUSABLE = 2
"""The exit status when the output cannot be written (an unusable environment)."""
BROKEN_PIPE = 141
"""The exit status when the reader of the output went away: 128 + SIGPIPE."""

_MIN_WIDTH = 80
"""The narrowest width help and tables are drawn at: narrower, rich cuts values short
("--fix-mo…"); wider than the terminal, the terminal wraps the lines and nothing is cut."""


class OutputLost(Exception):
    """A write to standard output failed; ``error`` says why."""

    def __init__(self, error: OSError) -> None:
        super().__init__(str(error))
        self.error = error


def prepare() -> None:
    """Set up the standard streams as the module's docstring says."""
    for fd, name in ((0, "stdin"), (1, "stdout"), (2, "stderr")):
        if getattr(sys, name) is None:
            _hold(fd)
    if sys.stdout is None:
        sys.stdout = _Closed()
    _whole_writes()
    if sys.stderr is None:
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace", closefd=False)  # noqa: SIM115
    for stream in (sys.stdout, sys.stderr):
        if stream is not None and getattr(stream, "errors", None) != "backslashreplace":
            reconfigure = getattr(stream, "reconfigure", None)
            if reconfigure is not None:
                reconfigure(errors="backslashreplace")
    _floor_width()


def _whole_writes() -> None:
    """Standard output over a buffer, when Python was asked for none: a ``FileIO`` under the
    text layer writes once, and a short write (a reader that went away after 64 KiB of a
    larger one) loses the rest without an error. A buffer writes the rest, and so meets the
    broken pipe. Each write still reaches the descriptor at once (``write_through``, and
    every write evalset makes is flushed)."""
    stream = sys.stdout
    if not isinstance(getattr(stream, "buffer", None), io.FileIO):
        return
    try:
        raw = io.FileIO(stream.fileno(), "w", closefd=False)
    except (OSError, ValueError):
        return
    sys.stdout = io.TextIOWrapper(
        io.BufferedWriter(raw),
        encoding=stream.encoding,
        errors=stream.errors,
        line_buffering=bool(stream.line_buffering),
        write_through=True,
    )


class _Closed(io.TextIOBase):
    """Standard output when it was closed: every write fails as on a closed descriptor."""

    encoding = "utf-8"
    failure: OSError | None = None
    """Set by the first write."""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self.failure = OSError(errno.EBADF, "Bad file descriptor")
        raise self.failure

    def fileno(self) -> int:
        return 1  # /dev/null, held by ``_hold``

    def isatty(self) -> bool:
        return False


def _hold(fd: int) -> None:
    """Put /dev/null on a closed standard descriptor."""
    null = os.open(os.devnull, os.O_RDWR)
    if null != fd:
        os.dup2(null, fd)
        os.close(null)


def _floor_width() -> None:
    """Help and tables are drawn at least ``_MIN_WIDTH`` wide: a COLUMNS that is narrower, or
    not a number (which rich and click would read as "unset" or as nothing at all), and a
    terminal narrower than that, are taken as that width."""
    columns = os.environ.get("COLUMNS")
    if columns is not None:
        width = int(columns) if columns.strip().isdigit() else 0
    elif sys.stdout is not None and sys.stdout.isatty():
        try:
            width = os.get_terminal_size(sys.stdout.fileno()).columns
        except OSError:
            return
    else:
        return
    if width < _MIN_WIDTH:
        os.environ["COLUMNS"] = str(_MIN_WIDTH)


def unicode_out(stream: Any = None) -> bool:
    """Whether ``stream`` (standard output) takes every character: its encoding is UTF-8,
    -16 or -32."""
    import codecs

    stream = sys.stdout if stream is None else stream
    encoding = getattr(stream, "encoding", None) or "utf-8"
    try:
        return codecs.lookup(encoding).name.startswith("utf")
    except LookupError:
        return False


def json_ascii(text: str) -> str:
    """JSON text with every character outside ASCII as its ``\\u`` escape: the same
    document (JSON's own syntax is ASCII, so such characters are inside strings). A name
    that the locale could not decode (a C locale reads a folder ``dépôt`` as the escaped
    bytes ``\\udcc3\\udca9...``, as Python does) is written as the UTF-8 name its bytes
    are, where they are UTF-8."""
    import json

    if not text.isascii():
        text = re.sub(r"[^\x00-\x7f]", lambda found: json.dumps(found[0])[1:-1], text)
    if "\\udc" not in text:
        return text
    return re.sub(r"(?<!\\)((?:\\\\)*)((?:\\udc[89a-f][0-9a-f])+)", _named, text)


def _named(found: re.Match[str]) -> str:
    import json

    data = bytes(int(found[2][k + 4 : k + 6], 16) for k in range(0, len(found[2]), 6))
    try:
        return found[1] + json.dumps(data.decode("utf-8"))[1:-1]
    except UnicodeDecodeError:
        return found[0]


def lost_sentence(error: OSError) -> str:
    """The sentence for output that could not be written."""
    if error.errno == errno.EBADF:
        reason = "it is closed"
    else:
        reason = os.strerror(error.errno) if error.errno else str(error)
    return (
        f"cannot write to standard output ({reason}); what the command printed was lost, "
        "and no file was left half-written (give it an output that takes it)."
    )


def failed(stream: Any) -> OSError | None:
    """The error writing what ``stream`` still holds, if it cannot be written."""
    if isinstance(stream, _Closed):
        return stream.failure
    try:
        stream.flush()
    except OSError as exc:
        return exc
    except (ValueError, AttributeError):  # closed, or no stream
        return None
    return None


def discard_output() -> None:
    """Send what standard output still holds, and all it is given from now on, to
    /dev/null: the interpreter's last flush at exit then finds nothing to fail on."""
    if isinstance(sys.stdout, _Closed):
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 (standard output from now on)
        return
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):
        pass
