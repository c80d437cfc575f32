"""Findings: what validation reports, each with its place in a file."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Literal

Severity = Literal["error", "warning"]


@dataclass(frozen=True)
class Finding:
    """One problem in a set file: ``file:line:col: item ID: field.path: message (hint)``."""

    severity: Severity
    file: Path
    message: str
    line: int | None = None
    col: int | None = None
    item: str | None = None
    field: str | None = None
    hint: str | None = None
    """A suggestion such as ``did you mean 'direct-lookup'?``."""
    rule: str = "schema"
    """Which rule found it (schema, duplicate-id, category, near-duplicate, ...)."""

    def __str__(self) -> str:
        where = str(self.file)
        if self.line is not None:
            where += f":{self.line}:{self.col or 1}"
        parts = [where]
        if self.item is not None:
            parts.append(f"item {self.item}")
        if self.field:
            parts.append(self.field)
        text = f"{': '.join(parts)}: {self.severity}: {self.message}"
        return f"{text} ({self.hint})" if self.hint else text

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["file"] = str(self.file)
        return data


def field_path(loc: tuple[str | int, ...]) -> str:
    """``("key_points", 1, "sources", 0)`` -> ``key_points[1].sources[0]``."""
    out = ""
    for step in loc:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else step)
    return out
