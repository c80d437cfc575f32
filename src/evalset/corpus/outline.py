"""The sections of a document as a snapshot saw them: their text, level, and which section
lies inside which (for scoring, the sections inside an expected one; for `stale`, which
subsections of a changed section changed).

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

from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from evalset.corpus.manifest import Snapshot
from evalset.corpus.names import DocumentNames
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


def _length(part: Part) -> int:
    return len(part.key)


@dataclass
class DocumentView:
    """A document of a snapshot: its whole text and its sections."""

    doc: str
    text: str
    parts: dict[str, Part] = field(default_factory=dict)

    @cached_property
    def by_size(self) -> list[Part]:
        """Sections from the shortest key to the longest: the most specific first."""
        return sorted(self.parts.values(), key=_length)  # ties: in the manifest's order

    @property
    def spans(self) -> dict[str, tuple[int, int]] | None:
        return self._placed[0]

    @property
    def uncertain(self) -> frozenset[str]:
        """Sections whose place in the text is not known for sure: placed where more than
        one place fits (the first taken), or sharing their heading and text with another
        (then containment is tested on the texts), or, then, whose heading and text are
        found more than once. Whether such a section lies inside another cannot be told."""
        return self._placed[1]

    @cached_property
    def _placed(self) -> tuple[dict[str, tuple[int, int]] | None, frozenset[str]]:
        spans, uncertain = self._spans()
        if spans is None:
            text = self.text
            uncertain |= {
                p.id for p in self.parts.values() if text.find(p.key, text.find(p.key) + 1) >= 0
            }
        return spans, frozenset(uncertain)

    def _spans(self) -> tuple[dict[str, tuple[int, int]] | None, set[str]]:
        """Where each section's heading and text lie in the document's text; None when one
        is missing or two sections have the same heading and text (then containment is
        tested on the texts).

        A heading and text found once in the document are where they are. One found more
        than once (an empty section's heading is a word its neighbours' text may use: a
        "### Exceptions" under Shipping, and "Exceptions apply" under Returns) is where it
        ends at a section's start or at the document's end: the sections tile the document,
        so a section runs to where the next one begins. The occurrences that fit are
        narrowed as sections are placed; where more than one still fits, the first is
        taken (and said to be ``guessed``). Sections alike in heading and text (a "##
        Questions" with the same text under two sections) are as many as their places, and
        their anchors are numbered in the order of the document (``questions``,
        ``questions-1``), so each takes its place in that order."""
        text = self.text
        found: dict[str, tuple[int, int]] = {}
        several: list[tuple[Part, list[int]]] = []
        guessed: set[str] = set()
        alike: dict[str, list[Part]] = {}
        for part in self.parts.values():
            alike.setdefault(part.key, []).append(part)
        for key, parts in alike.items():
            at = text.find(key)
            if at < 0:
                return None, guessed
            again = text.find(key, at + 1)
            if again < 0 and len(parts) == 1:
                found[parts[0].id] = (at, at + len(key))
                continue
            places = [at]
            while again >= 0:
                places.append(again)
                again = text.find(key, again + 1)
            if len(parts) == 1:
                several.append((parts[0], places))
                continue
            numbered = _in_document_order(parts)
            if numbered is None or len(places) != len(parts):
                return None, {p.id for p in parts}
            for part, at in zip(numbered, places, strict=True):
                found[part.id] = (at, at + len(key))
        while several:
            starts = {start for start, _ in found.values()}
            left = []
            for part, places in several:
                fits = [at for at in places if _ends_at_a_start(text, at + len(part.key), starts)]
                if len(fits) == 1:
                    found[part.id] = (fits[0], fits[0] + len(part.key))
                else:
                    left.append((part, places))
            if len(left) == len(several):  # no more can be placed: the first of each
                for part, places in left:
                    found[part.id] = (places[0], places[0] + len(part.key))
                    guessed.add(part.id)
                break
            several = left
        if len(set(found.values())) != len(found):
            return None, {p.id for parts in alike.values() if len(parts) > 1 for p in parts}
        return found, guessed

    def within(self, inner: str, outer: str) -> bool:
        """Whether section ``inner`` is ``outer`` or lies inside it."""
        if inner == outer:
            return True
        a, b = self.parts.get(inner), self.parts.get(outer)
        if a is None or b is None or a.level <= b.level:
            return False
        spans = self.spans
        if spans is None:
            return a.key in b.text
        (a_start, a_end), (b_start, b_end) = spans[inner], spans[outer]
        return b_start < a_start and a_end <= b_end

    def inside(self, outer: str) -> list[str]:
        """The ids of ``outer`` and of every section inside it."""
        return self._inside.get(outer, [])

    @cached_property
    def _inside(self) -> dict[str, list[str]]:
        """Per section, itself and the sections inside it, found for the whole document at
        once: in order of position, a section's descendants are the deeper sections that
        follow it before its end."""
        spans = self.spans
        if spans is None:
            return {
                o.id: [p.id for p in self.by_size if self.within(p.id, o.id)] for o in self.by_size
            }
        ordered = sorted(self.parts.values(), key=lambda p: spans[p.id])
        found: dict[str, list[str]] = {}
        for k, outer in enumerate(ordered):
            end = spans[outer.id][1]
            inner = [outer.id]
            for part in ordered[k + 1 :]:
                start, stop = spans[part.id]
                if start >= end:
                    break
                if part.level > outer.level and stop <= end:
                    inner.append(part.id)
            found[outer.id] = inner
        return found


def _in_document_order(parts: list[Part]) -> list[Part] | None:
    """Sections of one heading in the order of the document, read off their anchors as
    headings number repeats (``faq``, ``faq-1``, ``faq-2``); None when they are not so
    numbered."""
    base = min((p.id for p in parts), key=len)
    order: dict[int, Part] = {}
    for part in parts:
        number = 0 if part.id == base else None
        suffix = part.id[len(base) + 1 :] if part.id.startswith(base + "-") else ""
        if number is None and suffix.isdigit() and not suffix.startswith("0"):
            number = int(suffix)
        if number is None or number in order:
            return None
        order[number] = part
    return [order[n] for n in sorted(order)]


def _ends_at_a_start(text: str, end: int, starts: set[int]) -> bool:
    """Whether a section ending at ``end`` ends the document or meets a section's start
    (after the white space between them)."""
    at = end
    while at < len(text) and text[at].isspace():
        at += 1
    return at == len(text) or (at > end and at in starts)


def view_of(doc: str, entry: Mapping[str, Any]) -> DocumentView | None:
    """The view of a manifest entry that stores text; None for one that does not."""
    try:
        parts = {
            ident: Part(ident, s["level"], _key(s["title"], s["text"]), s["text"])
            for ident, s in entry["sections"].items()
        }
        return DocumentView(doc, entry["text"], parts)
    except KeyError:  # the snapshot stores no text (or no title: written by a plug-in)
        return None


def _key(title: str, text: str) -> str:
    return f"{title} {text}" if title and text else (title or text)


class Outlines:
    """Document views of one snapshot, each built once."""

    def __init__(self, snapshot: Snapshot | None, root: Path | None = None) -> None:
        self.snapshot = snapshot
        self.root = root
        self._views: dict[str, DocumentView | None] = {}
        self.unreadable: dict[str, str] = {}
        """Documents whose text could not be had, and why."""
        self._names: DocumentNames | None = None

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
            self.unreadable[doc] = self.absent(doc)
            return None
        view = view_of(doc, entry)
        if view is not None:
            return view
        if self.root is not None:
            for version in document_versions(
                self.root, snap.corpus, snap.commit, doc, snap.hash_mode
            ):
                if version["hash"] == entry["hash"]:
                    return view_of(doc, version)
        self.unreadable[doc] = (
            f"snapshot {snap.short} stores no text and the document as it was then could not "
            "be read (working tree, git or DVC)"
        )
        return None

    def absent(self, doc: str) -> str:
        """Why a document the snapshot does not have has no view; naming the document of the
        snapshot that ``doc`` means when it is written otherwise (``DocumentNames``): a
        retriever's path that keeps the corpus folder, say ``corpus/guide.md`` for
        ``guide.md``, or ``Guide.md`` in other letter case."""
        snap = self.snapshot
        assert snap is not None
        why = f"it is not in snapshot {snap.short}"
        if self._names is None:
            self._names = DocumentNames(snap.documents)
        meant = self._names.meant(doc)
        if meant is None:
            return why
        if doc.endswith("/" + meant):
            rule = f"a document is named by its path inside the corpus folder, {snap.corpus}"
        elif doc.casefold().endswith("/" + meant.casefold()):
            rule = (
                f"a document is named by its path inside the corpus folder, {snap.corpus}, in "
                "its letter case"
            )
        else:
            rule = "a document's name is matched in its letter case"
        return f"{why} (did you mean {meant!r}? {rule})"

    def has_section(self, doc: str, section: str) -> bool:
        """Whether the snapshot has the section (without reading any text)."""
        snap = self.snapshot
        entry = snap.documents.get(doc) if snap is not None else None
        return entry is not None and section in entry["sections"]

    def deeper(self, doc: str, section: str) -> bool:
        """Whether the document has a section deeper than ``section`` (one that may lie
        inside it), from the snapshot's levels alone."""
        snap = self.snapshot
        entry = snap.documents.get(doc) if snap is not None else None
        if entry is None or section not in entry["sections"]:
            return False
        level = self.level(doc, section)
        return any(int(s.get("level", 0)) > level for s in entry["sections"].values())

    def level(self, doc: str, section: str) -> int:
        snap = self.snapshot
        entry = snap.documents.get(doc) if snap is not None else None
        part = entry["sections"].get(section) if entry is not None else None
        return int(part.get("level", 0)) if part is not None else 0
