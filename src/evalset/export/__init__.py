"""Views of a set for the tools people run evals with, one module per format.

A view holds the active items of one split. The tuning view never holds a holdout item,
and neither it nor any other view holds drafts or retired items; the holdout (or all
items) is exported only when asked for by name. Each row carries the item id and the set's
pin (set, version, fingerprint, snapshot) wherever the format has room for metadata.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import Any

from evalset.config import Workspace
from evalset.errors import EvalsetError
from evalset.sets.citations import Citation
from evalset.sets.model import Item
from evalset.sets.setfile import SetFile, load_set

SPLITS = ("tuning", "holdout", "all")
FORMATS = {
    "jsonl": "evalset.export.jsonl",
    "csv": "evalset.export.csv",
    "ragas": "evalset.export.ragas",
    "promptfoo": "evalset.export.promptfoo",
    "deepeval": "evalset.export.deepeval",
    "langsmith": "evalset.export.langsmith",
    "openai": "evalset.export.openai_evals",
}
EXTENSIONS = {
    "jsonl": ".jsonl",
    "csv": ".csv",
    "ragas": ".jsonl",
    "promptfoo": ".yaml",
    "deepeval": ".json",
    "langsmith": ".jsonl",
    "openai": ".jsonl",
}


class ExportError(EvalsetError):
    """A view cannot be exported as asked."""


@dataclass
class View:
    """The rows a format writes, with what it needs to write them."""

    set: str
    split: str
    items: list[Item]
    pin: dict[str, Any]
    """``{"set", "version", "fingerprint", "snapshot"}`` of the set the view was taken of."""
    text_of: Callable[[Citation], str | None]
    """The text of a cited section (or document) in the newest snapshot, when known."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Item id -> why a format could not write it."""

    def metadata(self, item: Item) -> dict[str, Any]:
        data: dict[str, Any] = {"evalset_id": item.id, "category": item.category}
        data["split"] = "holdout" if item.holdout else "tuning"
        data["tags"] = list(item.tags)
        data["evalset"] = dict(self.pin)
        return data


def select(loaded: SetFile, split: str) -> tuple[list[Item], int]:
    """The active items of a split, and how many active items have no assignment yet (they
    are in no split but ``all``)."""
    if split not in SPLITS:
        raise ExportError(f"{split!r} is not a split; use tuning, holdout or all.")
    active = [item for item in loaded.items if item.status == "active"]
    unassigned = sum(1 for item in active if item.holdout is None)
    if split == "tuning":
        return [item for item in active if item.holdout is False], unassigned
    if split == "holdout":
        return [item for item in active if item.holdout is True], unassigned
    return active, unassigned


def _texts(workspace: Workspace | None) -> Callable[[Citation], str | None]:
    """Section texts from the newest snapshot's stored text, else from the working tree."""
    if workspace is None:
        return lambda citation: None
    from evalset.corpus.manifest import SnapshotStore
    from evalset.corpus.snapshot import document_versions

    newest = SnapshotStore(workspace.snapshots_dir, state_dir=workspace.state_dir).newest()
    read: dict[str, Any] = {}

    def text_of(citation: Citation) -> str | None:
        entry = newest.documents.get(citation.doc) if newest else None
        if (
            entry is None
            or ("text" not in entry and citation.section is None)
            or (
                citation.section is not None
                and "text" not in entry["sections"].get(citation.section, {"text": None})
            )
        ):
            if citation.doc not in read:
                mode = workspace.config.hash
                found = document_versions(workspace.root, workspace.config.corpus, None,
                                          citation.doc, mode)  # fmt: skip
                read[citation.doc] = next(iter(found), None)
            entry = read[citation.doc]
        if entry is None:
            return None
        if citation.section is None:
            text: str | None = entry.get("text")
            return text
        section = entry["sections"].get(citation.section)
        return section.get("text") if section else None

    return text_of


@dataclass
class ExportResult:
    format: str
    split: str
    text: str
    rows: int
    unassigned: int
    skipped: dict[str, str]


def export(path: Path, split: str, fmt: str, workspace: Workspace | None = None) -> ExportResult:
    """Render one split of a set in one format."""
    from evalset.sets.fingerprint import pin_of

    if fmt not in FORMATS:
        raise ExportError(f"{fmt!r} is not an export format; use one of {', '.join(FORMATS)}.")
    loaded = load_set(path)
    items, unassigned = select(loaded, split)
    sealed = [stub.id for stub in loaded.sealed if stub.status == "active"]
    if sealed and split != "tuning":
        from evalset.holdout.seal import IDENTITY_ENV, identity_path

        why = (
            f"the key in {IDENTITY_ENV} ({identity_path()}) does not open them"
            if identity_path()
            else f"set {IDENTITY_ENV} to the age key file to export them"
        )
        raise ExportError(
            f"{path}: cannot export the {split} split: {len(sealed)} of its items are sealed "
            f"and {why} (or export --split tuning)."
        )
    full = pin_of(loaded, _newest_short(workspace), items=False)
    pin = {k: full[k] for k in ("set", "version", "fingerprint", "snapshot")}
    view = View(loaded.name, split, items, pin, _texts(workspace))
    writer: Callable[[View], str] = import_module(FORMATS[fmt]).write
    text = writer(view)
    return ExportResult(fmt, split, text, len(items) - len(view.skipped), unassigned, view.skipped)


def _newest_short(workspace: Workspace | None) -> str | None:
    if workspace is None:
        return None
    from evalset.corpus.manifest import SHORT, SnapshotStore

    ident = SnapshotStore(workspace.snapshots_dir, state_dir=workspace.state_dir).newest_id()
    return ident[:SHORT] if ident else None


def reference_answer(item: Item) -> str | None:
    """The answer a reference-based metric compares with: the short answer, else the key
    points as sentences."""
    if item.answer:
        return item.answer
    if item.key_points:
        return " ".join(p.text.rstrip(".") + "." for p in item.key_points)
    return None


def cited(item: Item) -> list[Citation]:
    """Expected sources, then key-point sources not among them, without repeats."""
    seen: dict[Citation, None] = dict.fromkeys(item.expected_sources)
    for point in item.key_points:
        seen.update(dict.fromkeys(point.sources))
    return list(seen)


class RowError(ValueError):
    """A row of a file to import that cannot be read: where, and what is wrong."""

    def __init__(self, line: int, problem: str, column: int | None = None) -> None:
        super().__init__(problem)
        self.line = line
        self.column = column
        self.problem = problem


def json_lines(text: str) -> Iterator[tuple[int, Any]]:
    """(line number, parsed value) of each non-empty line of a JSONL text."""
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            yield number, json.loads(line)
        except json.JSONDecodeError as exc:
            raise RowError(number, f"is not valid JSON ({exc.msg})", exc.colno) from None
