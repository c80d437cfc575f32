"""Printing helpers shared by the commands: lines, colour on terminals only, JSON, tables,
and documents of other forms (a markdown comment, an export).

Free of typer so that the commands run on every commit and CI step (``evalset.cli.run``)
can print without importing it. Colour and bold are used only when the stream is a
terminal, as click does.

Every line and table cell is written printable (``evalset.display.printable``): much of
what commands print was written by others (an end user's question, a system's answer, a
document's file name), and on a terminal it must show as text, never move the cursor,
retitle the window, reorder or hide what follows, or start a line of its own. So a line
printed here carries no escape code but the colour this module adds, and a command prints
each of its lines with a call of its own.

What the standard streams cannot take is handled here too (``evalset.cli.streams``): a
failed write to standard output raises ``OutputLost``; JSON is written with ``\\u``
escapes and exported rows refused when the output's encoding lacks characters."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from functools import lru_cache
from typing import Any, NoReturn

from evalset.cli.streams import OutputLost, json_ascii, unicode_out
from evalset.display import printable

Part = tuple[str, str | None]
"""Part of a line and what it is: None (text), or "removed" or "added" (a word diff's words:
red and struck through, and green, on a terminal; ``[-…-]`` and ``{+…+}`` elsewhere, as
wdiff marks them)."""

_CODES = {"red": 31, "green": 32, "yellow": 33, "bold": 1, "strikethrough": 9}


def style(text: str, fg: str | None = None, bold: bool = False, strikethrough: bool = False) -> str:
    """``text`` wrapped in ANSI codes (callers decide whether the stream is a terminal)."""
    codes = [_CODES[fg]] if fg else []
    codes += [_CODES["bold"]] if bold else []
    codes += [_CODES["strikethrough"]] if strikethrough else []
    if not codes:
        return text
    return "".join(f"\x1b[{code}m" for code in codes) + text + "\x1b[0m"


def as_typed(message: str) -> str:
    """A message with the paths below the current folder written relative to it, as the
    user types them (``snapshots/0e18….json``, not ``/home/me/repo/snapshots/0e18….json``):
    the modules that find a broken file name it by the path they opened."""
    if os.sep not in message:
        return message
    try:
        here = os.getcwd()
    except OSError:  # the current folder was removed: nothing to shorten
        return message
    for prefix in _prefixes(here):
        message = message.replace(prefix, "")
    return message


@lru_cache(maxsize=4)
def _prefixes(here: str) -> tuple[str, ...]:
    """The current folder as paths below it start, as given and with links resolved (a
    command prints many lines: resolved once)."""
    folders = dict.fromkeys((here, os.path.realpath(here)))
    return tuple(p for f in folders if (p := os.path.join(f, "")) != os.sep)


def echo(
    message: str | Sequence[Part] = "",
    *,
    err: bool = False,
    fg: str | None = None,
    bold: bool = False,
    nl: bool = True,
) -> None:
    """Print a line on stdout (or stderr), printable, coloured only on a terminal; paths
    below the current folder are written as typed (``as_typed``). ``message`` may be given
    in parts (``Part``), as a word diff is."""
    stream = sys.stderr if err else sys.stdout
    if isinstance(message, str):
        line = printable(as_typed(message))
    else:
        line = "".join(_part(printable(text), kind, stream.isatty()) for text, kind in message)
    _write(line, stream, fg, bold, nl)


def _part(text: str, kind: str | None, colour: bool) -> str:
    if kind is None:
        return text
    removed = kind == "removed"
    if colour:
        return style(text, "red" if removed else "green", strikethrough=removed)
    return f"[-{text}-]" if removed else f"{{+{text}+}}"


def _write(
    message: str, stream: Any, fg: str | None = None, bold: bool = False, nl: bool = True
) -> None:
    """Write and flush. A failure on standard output is ``OutputLost``; one on standard
    error is let go (the exit status still says how the command ended)."""
    try:
        if (fg or bold) and stream.isatty():
            message = style(message, fg, bold)
        stream.write(message + "\n" if nl else message)
        stream.flush()
    except OSError as exc:
        if stream is sys.stderr:
            return
        raise OutputLost(exc) from exc


def emit_json(document: Any) -> None:
    """One JSON document on stdout, its paths as the command found them, its text as
    written (JSON escapes control characters; a program reads it), with ``\\u`` escapes
    where the output's encoding lacks characters (``evalset.cli.streams``)."""
    text = json.dumps(document, indent=2, ensure_ascii=False, default=str)
    _write(text if unicode_out() else json_ascii(text), sys.stdout)


def emit_json_text(text: str) -> None:
    """A JSON document already written as text (a report), as ``emit_json`` prints one."""
    _write(text if unicode_out() else json_ascii(text), sys.stdout, nl=False)


def emit_data(text: str) -> None:
    """Data on stdout (exported rows) exactly as it is, or, when the output's encoding
    cannot hold all of it, nothing and one sentence: an altered character would be wrong
    data in the tool that reads it. Paths are as typed, as ``emit_document`` writes them."""
    text = as_typed(text)
    encoding = getattr(sys.stdout, "encoding", None) or "utf-8"
    try:
        text.encode(encoding)
    except UnicodeEncodeError as exc:
        from evalset.errors import EvalsetError

        raise EvalsetError(
            f"standard output's encoding ({encoding}) cannot hold the exported text (it has "
            f"{exc.object[exc.start]!a}); set PYTHONIOENCODING=utf-8, or write the export "
            "to a file with -o FILE."
        ) from None
    _write(text, sys.stdout, nl=False)


def emit_document(text: str) -> None:
    """A document of another form on stdout, its paths as typed (``as_typed``) but otherwise
    as it is: a markdown comment (its writer showed each value with ``evalset.display``), an
    export, a schema."""
    _write(as_typed(text), sys.stdout, nl=False)


def broken_pipe() -> NoReturn:
    """What rich calls on a broken pipe (it would exit with status 1, as findings do)."""
    import errno

    raise OutputLost(BrokenPipeError(errno.EPIPE, "Broken pipe"))


def given(value: float) -> str:
    """A bound the user gave (--margin, --min-kappa) as output shows it: as short as ``:g``
    writes it, unless that rounds it (0.31249999999 read 0.3125, and a drop of 0.3125 was
    said to be beyond the margin 0.3125); then every digit it has."""
    text = f"{value:g}"
    return text if float(text) == value else repr(value)


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None) -> None:
    """A rich table on a terminal it fits; aligned plain text otherwise (pipes, CI logs, a
    terminal too narrow for the table, where rich would cut values short: the terminal
    wraps the plain lines instead). Cells are printable, and text to rich, never its markup
    (a "[/x]" in a file name is no closing tag)."""
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.measure import Measurement
        from rich.table import Table
        from rich.text import Text

        grid = Table(title=Text(printable(title)) if title else None, title_justify="left")
        for header in headers:
            grid.add_column(Text(printable(str(header))), no_wrap=True)
        for row in rows:
            grid.add_row(*(Text(printable(str(cell))) for cell in row))
        console = Console()
        console.on_broken_pipe = broken_pipe  # type: ignore[method-assign]
        # measured as wide as it wants (rich caps a measurement at the terminal's width)
        wanted = Measurement.get(console, console.options.update_width(sys.maxsize), grid)
        if wanted.maximum <= console.width:
            try:
                console.print(grid)
            except OSError as exc:
                raise OutputLost(exc) from exc
            return
    cells = [[printable(str(c)) for c in row] for row in (headers, *rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    if title:
        echo(title)
    for row in cells:
        echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
