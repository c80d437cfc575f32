"""Printing helpers shared by the commands: JSON documents, tables on terminals only."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import typer


def emit_json(document: Any) -> None:
    typer.echo(json.dumps(document, indent=2, ensure_ascii=False, default=str))


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
        typer.echo(title)
    for row in cells:
        typer.echo(
            "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        )
