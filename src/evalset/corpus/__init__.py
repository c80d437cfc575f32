"""Sectioning of corpus documents: one module per format behind one small interface.

A sectioner turns a document's text into ``Sections``: the normalised rendered text of the
whole document and, per section id (the anchor a person copies from the rendered page), its
title, level and normalised text. Formats are chosen by file extension; plug-ins add more
through the ``evalset.formats`` entry-point group (``ext = "module:function"``, where the
function takes ``(text, hash_mode)`` and returns ``Sections``).
"""

from __future__ import annotations

import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from typing import Literal

HashMode = Literal["rendered", "source"]

SECTIONING_VERSION = 2
"""Bumped whenever sectioning or normalisation changes what a document hashes to, so that
cached results of an older version are never reused."""


@dataclass
class Section:
    title: str
    level: int
    text: str
    """Normalised text of the section: its content up to the next heading of the same or a
    higher level (so including subsections), without its own heading line."""


@dataclass
class Sections:
    text: str
    """Normalised text of the whole document (what the citation ``doc`` refers to)."""
    sections: dict[str, Section] = field(default_factory=dict)


Sectioner = Callable[[str, HashMode], Sections]


def normalise(text: str) -> str:
    """Unicode NFC with every run of white space collapsed to one space, trimmed."""
    if not text.isascii():
        text = unicodedata.normalize("NFC", text)
    return " ".join(text.split())


def _keeps(ch: str) -> bool:
    return ch in " -_" or unicodedata.category(ch)[0] in "LMN"


def slugify(title: str) -> str:
    """GitHub's anchor for a heading's rendered text: lower case, every character that is not
    a letter, digit, space, '-' or '_' dropped, each space turned into '-'."""
    lowered = title.strip().lower()
    if lowered.isascii():
        kept = "".join(ch for ch in lowered if ch.isalnum() or ch in " -_")
    else:
        kept = "".join(ch for ch in lowered if _keeps(ch))
    return kept.replace(" ", "-")


class Slugger:
    """Unique anchors within one document, as GitHub numbers repeats: faq, faq-1, faq-2."""

    def __init__(self) -> None:
        self.seen: dict[str, int] = {}

    def __call__(self, base: str) -> str:
        slug = base
        while slug in self.seen:
            self.seen[base] += 1
            slug = f"{base}-{self.seen[base]}"
        self.seen[slug] = 0
        return slug


def nest(
    headed: list[tuple[str, int, str, str]], slugger: Slugger | None = None
) -> dict[str, Section]:
    """Sections from a document's headings in order: (title, level, anchor or '', own text).

    Own text is the normalised text between a heading and the next heading of any level; a
    section's text joins its own text with every deeper heading and own text that follows."""
    slugger = slugger or Slugger()
    sections: dict[str, Section] = {}
    for i, (title, level, anchor, own) in enumerate(headed):
        parts = [own] if own else []
        for sub_title, sub_level, _, sub_own in headed[i + 1 :]:
            if sub_level <= level:
                break
            parts.extend(p for p in (sub_title, sub_own) if p)
        ident = slugger(anchor or slugify(title))
        if ident:
            sections[ident] = Section(title, level, " ".join(parts))
    return sections


def _builtin() -> dict[str, Sectioner]:
    from evalset.corpus import html, markdown, text

    return {
        ".md": markdown.sections,
        ".markdown": markdown.sections,
        ".html": html.sections,
        ".htm": html.sections,
        ".txt": text.sections,
    }


@cache
def registry() -> dict[str, Sectioner]:
    """Extension -> sectioner, built-ins first, then plug-ins (which may override)."""
    formats = _builtin()
    from importlib.metadata import entry_points

    for entry in entry_points(group="evalset.formats"):
        ext = entry.name if entry.name.startswith(".") else f".{entry.name}"
        formats[ext.lower()] = entry.load()
    return formats


def sectioner_for(name: str) -> Sectioner | None:
    dot = name.rfind(".")
    return registry().get(name[dot:].lower()) if dot >= 0 else None
