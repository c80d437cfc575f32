"""Printing helpers shared by the commands: lines, colour on terminals only, JSON, tables.

Free of typer so that the commands run on every commit and CI step (``evalset.cli.run``)
can print without importing it. Colour and bold are used only when the stream is a
terminal, as click does."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

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
    message: str = "",
    *,
    err: bool = False,
    fg: str | None = None,
    bold: bool = False,
    nl: bool = True,
) -> None:
    """Print a line on stdout (or stderr), coloured only on a terminal; paths below the
    current folder are written as typed (``as_typed``)."""
    _write(as_typed(message), err=err, fg=fg, bold=bold, nl=nl)


def _write(
    message: str, *, err: bool = False, fg: str | None = None, bold: bool = False, nl: bool = True
) -> None:
    stream = sys.stderr if err else sys.stdout
    if (fg or bold) and stream.isatty():
        message = style(message, fg, bold)
    stream.write(message + "\n" if nl else message)
    stream.flush()


def emit_json(document: Any) -> None:
    """One JSON document on stdout, its paths as the command found them."""
    _write(json.dumps(document, indent=2, ensure_ascii=False, default=str))


def table(headers: Sequence[str], rows: Sequence[Sequence[Any]], title: str | None = None) -> None:
    """A rich table on a terminal; aligned plain text otherwise (pipes, CI logs)."""
    if sys.stdout.isatty():
        from rich.console import Console
        from rich.table import Table

        grid = Table(*headers, title=title, title_justify="left")
        for row in rows:
            grid.add_row(*(str(cell) for cell in row))
        Console().print(grid)
        return
    cells = [list(map(str, headers)), *([str(c) for c in row] for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    if title:
        echo(title)
    for row in cells:
        echo("  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip())
