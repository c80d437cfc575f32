"""evalset's own JSONL: one item per line, as in the set file, plus the pin under "evalset"."""

from __future__ import annotations

import json
from typing import Any

from evalset.export.rows import RowError, json_lines
from evalset.export.view import View


def write(view: View) -> str:
    lines = []
    for item in view.items:
        row = item.model_dump(mode="json", exclude_defaults=True)
        row["evalset"] = view.pin
        lines.append(json.dumps(row, ensure_ascii=False, sort_keys=False))
    return "".join(line + "\n" for line in lines)


def read(text: str) -> list[tuple[int, dict[str, Any]]]:
    """(line number, item mapping) per non-empty line; the pin is dropped."""
    rows = []
    for number, row in json_lines(text):
        if not isinstance(row, dict):
            raise RowError(number, "is not a JSON object")
        row.pop("evalset", None)
        rows.append((number, row))
    return rows
