"""Plain text: one section, the whole document (cited as ``doc``)."""

from __future__ import annotations

from evalset.corpus.sections import HashMode, Sections, normalise


def sections(text: str, mode: HashMode = "rendered") -> Sections:
    return Sections(normalise(text))
