"""Reading exported rows back (`evalset import`): the error a bad row raises, and JSONL."""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

from evalset.fsio import json_loads, json_text_lines


class RowError(ValueError):
    """A row of a file to import that cannot be read: where, and what is wrong."""

    def __init__(self, line: int, problem: str, column: int | None = None) -> None:
        super().__init__(problem)
        self.line = line
        self.column = column
        self.problem = problem


def json_lines(text: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) of each non-empty line of a JSONL text."""
    for number, line in enumerate(json_text_lines(text), 1):
        if not line.strip():
            continue
        try:
            yield number, json_loads(line, unique_keys=True)
        except json.JSONDecodeError as exc:
            raise RowError(number, f"is not valid JSON ({exc.msg})", exc.colno) from None
