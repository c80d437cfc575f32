"""Bringing rows from other tools into a set: evalset JSONL/CSV, Ragas and LangSmith.

Every row becomes an item whose origin says it was imported. A row that carries all the
labels an active item needs (category, key points and expected sources, or
``answerable: false``) keeps its status; any other becomes a draft for review. Ids come
from the row when it has a valid one, else from a hash of the question, so importing the
same rows twice adds nothing. All rows are checked before anything is written: one bad row
and nothing changes.
"""

from __future__ import annotations

import csv
import datetime as dt
import hashlib
import re
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from evalset.errors import EvalsetError
from evalset.export.rows import RowError
from evalset.fsio import TextError, atomic_write, read_user_text
from evalset.intake.redact import redact
from evalset.sets.model import ID_PATTERN, Item, set_name_problem
from evalset.sets.setfile import edit_set, load_set

READERS = {
    "jsonl": "evalset.export.jsonl",
    "csv": "evalset.export.csv",
    "ragas": "evalset.export.ragas",
    "langsmith": "evalset.export.langsmith",
}


class ImportRefused(EvalsetError):
    """A row of the file to import is unusable; nothing was written."""


def question_id(question: str) -> str:
    """``q-`` and 8 hex digits of a hash of the question (case and spacing ignored)."""
    key = " ".join(question.lower().split())
    return "q-" + hashlib.sha256(key.encode()).hexdigest()[:8]


@dataclass
class ImportResult:
    added: list[str] = field(default_factory=list)
    drafts: list[str] = field(default_factory=list)
    """Of the added items, those that lack labels and came in as drafts."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Item id -> why it was not added (already in the set, or twice in the file)."""

    def to_json(self) -> dict[str, Any]:
        return {"added": self.added, "drafts": self.drafts, "skipped": self.skipped}


def _complete(row: dict[str, Any]) -> bool:
    if not row.get("category"):
        return False
    if row.get("answerable") is False:
        return True
    return bool(row.get("key_points")) and bool(row.get("expected_sources"))


def new_set_text(name: str, source: Path, categories: list[str]) -> str:
    """The header of a set created by an import: the rows' categories, to be described."""
    lines = [
        "# yaml-language-server: $schema=../schemas/evalset.schema.json",
        "evalset: 1",
        f"name: {name}",
        f"description: Imported from {source.name}; say what the system under test does",
        "categories:",
        *(f"  {c}: imported; say what this kind of question is" for c in categories or ["general"]),
        "items: []",
    ]
    return "\n".join(lines) + "\n"


def import_rows(
    source: Path, target: Path, fmt: str, dry_run: bool = False, create: bool = False
) -> ImportResult:
    """Append the rows of ``source`` to the set file ``target`` (``create``: a new set file
    named after it, declaring the categories the rows use)."""
    if fmt not in READERS:
        raise ImportRefused(f"{fmt!r} cannot be imported; use one of {', '.join(READERS)}.")
    try:
        text = read_user_text(source, f"{fmt} file")
    except TextError as exc:
        raise ImportRefused(str(exc)) from None
    try:
        rows = import_module(READERS[fmt]).read(text)
    except RowError as exc:
        where = f"{source}:{exc.line}" + (f":{exc.column}" if exc.column else "")
        raise ImportRefused(
            f"{where}: the row {exc.problem}; fix it ({fmt} format) and import again "
            "(nothing was imported)."
        ) from None
    except csv.Error as exc:
        raise ImportRefused(f"{source}: is not valid CSV ({exc}); nothing was imported.") from None
    if create and target.exists():
        raise ImportRefused(f"{target}: exists already; import into it with --set {target}.")
    existing = set() if create else {item.id for item in load_set(target).entries}
    result = ImportResult()
    items: list[Item] = []
    today = dt.date.today()
    for number, row in rows:
        if not isinstance(row, dict) or not isinstance(row.get("question"), str):
            raise ImportRefused(f"{source}:{number}: the row has no question; fix or remove it.")
        ident = row.get("id")
        if not isinstance(ident, str) or not re.fullmatch(ID_PATTERN, ident):
            row["id"] = question_id(row["question"])
        if row["id"] in existing or any(i.id == row["id"] for i in items):
            where = "the set" if row["id"] in existing else "an earlier row"
            result.skipped[row["id"]] = f"{where} has this id already"
            continue
        if not _complete(row):
            row["status"] = "draft"
        row.setdefault("origin", {"kind": "imported", "date": today.isoformat()})
        try:
            item = Item.model_validate(row)
        except ValidationError as exc:
            first = exc.errors()[0]
            where = ".".join(str(p) for p in first["loc"] if "[" not in str(p)) or "row"
            where = redact(where)  # a key may itself be personal data
            raise ImportRefused(
                f"{source}:{number}: {where}: {first['msg']}; fix the row, nothing was imported."
            ) from None
        items.append(item)
        result.added.append(item.id)
        if item.status == "draft":
            result.drafts.append(item.id)
    if create and not dry_run:
        categories = list(dict.fromkeys(i.category for i in items if i.category))
        problem = set_name_problem(target.stem)
        if problem is not None:
            raise ImportRefused(f"{target}: {problem}; choose another name with --set.")
        target.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(target, new_set_text(target.stem, source, categories))
    if items and not dry_run:
        with edit_set(target) as editor:
            editor.append_items(items)
    return result
