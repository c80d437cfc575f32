"""A view of a set for export: the active items of one split, the set's pin, and the text of
the sections they cite. Each format module writes a ``View``."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from evalset.config import Workspace
from evalset.errors import EvalsetError
from evalset.sets.citations import Citation
from evalset.sets.model import Item
from evalset.sets.setfile import SetFile

SPLITS = ("tuning", "holdout", "all")


class ExportError(EvalsetError):
    """A view cannot be exported as asked."""


@dataclass
class View:
    """The rows a format writes, with what it needs to write them."""

    set: str
    split: str
    items: list[Item]
    pin: dict[str, Any]
    """``{"set", "version", "fingerprint", "fingerprint_format", "snapshot"}`` of the set the
    view was taken of."""
    text_of: Callable[[Citation], str | None]
    """The text of a cited section (or document) in the newest snapshot, when known."""
    skipped: dict[str, str] = field(default_factory=dict)
    """Item id -> why a format could not write it."""
    categories: dict[str, str] = field(default_factory=dict)
    """The set's declared categories (name -> meaning), for formats that carry them."""

    def metadata(self, item: Item) -> dict[str, Any]:
        data: dict[str, Any] = {"evalset_id": item.id, "category": item.category}
        data["split"] = split_of(item)
        data["tags"] = list(item.tags)
        if item.verified:
            data["verified"] = item.verified
        data["evalset"] = dict(self.pin)
        return data


def split_of(item: Item) -> str | None:
    """tuning, holdout, or None for an item with no assignment yet (only in ``all``)."""
    return None if item.holdout is None else "holdout" if item.holdout else "tuning"


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


def texts(workspace: Workspace | None) -> Callable[[Citation], str | None]:
    """Section texts from the newest snapshot's stored text, else from the working tree."""
    if workspace is None:
        return lambda citation: None
    from evalset.corpus.manifest import SnapshotStore
    from evalset.corpus.revision import document_versions

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


DECLINES = (
    "The documents available do not answer this question; a correct response says so and "
    "declines to answer rather than guessing."
)
"""The reference of an unanswerable item, for tools that score every row against one."""


def reference_answer(item: Item) -> str | None:
    """The reference a reference-based metric compares with: the key points as sentences
    (every fact a correct answer must state), the short answer when there are none, and
    ``DECLINES`` for an item the corpus cannot answer."""
    if not item.answerable:
        return DECLINES
    if item.key_points:
        return " ".join(p.text.rstrip(".") + "." for p in item.key_points)
    return item.answer
