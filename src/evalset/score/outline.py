"""The sections of a document as the run's snapshot saw them: their text, level, and which
section lies inside which.

A section runs to the next heading of the same or a higher level, so its normalised text
holds each of its subsections' heading and text, one after the other. A section R is
therefore inside section E when R is deeper (a higher level number) and R's heading and text
occur in E's text; this needs only what a snapshot stores, not the order of the headings.

Texts come from the snapshot when it stores them (corpora under 20 MB by default). Otherwise
the document is read again, from the working tree or from git or DVC at the snapshot's
commit (``evalset.corpus.revision``), and used only when it hashes to what the snapshot
recorded: a document that changed since cannot say what the snapshot held.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from evalset.corpus.manifest import Snapshot
from evalset.corpus.revision import document_versions


@dataclass(frozen=True, slots=True)
class Part:
    """One section of a document."""

    id: str
    level: int
    key: str
    """Its heading and text as they appear in the document's text (the heading alone for an
    empty section)."""
    text: str


@dataclass
class DocumentView:
    """A document of a snapshot: its whole text and its sections."""

    doc: str
    text: str
    parts: dict[str, Part] = field(default_factory=dict)

    @cached_property
    def by_size(self) -> list[Part]:
        """Sections from the shortest key to the longest: the most specific first."""
        return sorted(self.parts.values(), key=lambda p: (len(p.key), p.id))

    def within(self, inner: str, outer: str) -> bool:
        """Whether section ``inner`` is ``outer`` or lies inside it."""
        if inner == outer:
            return True
        a, b = self.parts.get(inner), self.parts.get(outer)
        return a is not None and b is not None and a.level > b.level and a.key in b.text

    def inside(self, outer: str) -> list[str]:
        """The ids of ``outer`` and of every section inside it."""
        return [p.id for p in self.by_size if self.within(p.id, outer)]


def _view(doc: str, entry: dict[str, Any]) -> DocumentView | None:
    if "text" not in entry or any("text" not in s for s in entry["sections"].values()):
        return None
    parts = {}
    for ident, section in entry["sections"].items():
        title, text = section.get("title", ""), section["text"]
        key = f"{title} {text}" if title and text else (title or text)
        parts[ident] = Part(ident, int(section.get("level", 0)), key, text)
    return DocumentView(doc, entry["text"], parts)


class Outlines:
    """Document views of one snapshot, each built once."""

    def __init__(self, snapshot: Snapshot | None, root: Path | None = None) -> None:
        self.snapshot = snapshot
        self.root = root
        self._views: dict[str, DocumentView | None] = {}
        self.unreadable: dict[str, str] = {}
        """Documents whose text could not be had, and why."""

    def view(self, doc: str) -> DocumentView | None:
        """The document as the snapshot saw it; None when the snapshot does not have it or
        its text cannot be found (``unreadable`` says why)."""
        if doc in self._views:
            return self._views[doc]
        found = self._views[doc] = self._find(doc)
        return found

    def _find(self, doc: str) -> DocumentView | None:
        snap = self.snapshot
        if snap is None:
            self.unreadable[doc] = "there is no snapshot to read it from"
            return None
        entry = snap.documents.get(doc)
        if entry is None:
            self.unreadable[doc] = f"it is not in snapshot {snap.short}"
            return None
        view = _view(doc, entry)
        if view is not None:
            return view
        if self.root is not None:
            for version in document_versions(
                self.root, snap.corpus, snap.commit, doc, snap.hash_mode
            ):
                if version["hash"] == entry["hash"]:
                    return _view(doc, version)
        self.unreadable[doc] = (
            f"snapshot {snap.short} stores no text and the document as it was then could not "
            "be read (working tree, git or DVC)"
        )
        return None

    def has_section(self, doc: str, section: str) -> bool:
        """Whether the snapshot has the section (without reading any text)."""
        snap = self.snapshot
        entry = snap.documents.get(doc) if snap is not None else None
        return entry is not None and section in entry["sections"]

    def level(self, doc: str, section: str) -> int:
        snap = self.snapshot
        entry = snap.documents.get(doc) if snap is not None else None
        part = entry["sections"].get(section) if entry is not None else None
        return int(part.get("level", 0)) if part is not None else 0
