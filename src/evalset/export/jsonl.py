"""evalset's own JSONL: one item per line, as in the set file, plus ``split`` and the pin
(with the set's categories) under ``"evalset"``."""

from __future__ import annotations

import json
from typing import Any

from evalset.export.rows import RowError, agreed, holdout_of, json_lines
from evalset.export.view import View, origin_of, split_of


def write(view: View) -> str:
    lines = []
    for item in view.items:
        row = item.model_dump(mode="json", exclude_defaults=True)
        if item.origin is not None:
            row["origin"] = origin_of(item)
        row["split"] = split_of(item)
        row["evalset"] = {**view.pin, "categories": view.categories}
        lines.append(json.dumps(row, ensure_ascii=False, sort_keys=False))
    return "".join(line + "\n" for line in lines)


def read(text: str) -> list[tuple[int, dict[str, Any]]]:
    """(line number, item mapping) per non-empty line; ``split`` (in any case) gives
    ``holdout`` when the row has none, and must agree with it when it has; the pin is kept
    under ``"evalset"`` for the importer."""
    rows = []
    for number, row in json_lines(text):
        if not isinstance(row, dict):
            raise RowError(number, "is not a JSON object")
        split = holdout_of(row.pop("split", None), number)
        if "holdout" not in row:
            if split is not None:
                row["holdout"] = split
        elif split is not None and (row["holdout"] is None or isinstance(row["holdout"], bool)):
            agreed(("split", split), ("holdout", row["holdout"]), number)
        rows.append((number, row))
    return rows
