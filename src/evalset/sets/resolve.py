"""Citations in snapshots: whether one resolves, what it points at, and whether a citation
missing from the snapshot an item was verified against names text that snapshot had."""

from __future__ import annotations

import difflib
from typing import Any

from evalset.corpus.manifest import EMPTY, Snapshot
from evalset.sets.citations import Citation


def unresolved(citation: Citation, snap: Snapshot) -> str | None:
    """Why ``citation`` does not resolve in ``snap`` (with a did-you-mean), or None."""
    entry = snap.documents.get(citation.doc)
    if entry is None:
        close = difflib.get_close_matches(citation.doc, list(snap.documents), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"document {citation.doc!r} is not in snapshot {snap.short}{hint}"
    if citation.section is not None and citation.section not in entry["sections"]:
        close = difflib.get_close_matches(citation.section, list(entry["sections"]), 1, 0.5)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"{citation.doc} has no section {citation.section!r} in snapshot {snap.short}{hint}"
    return None


def lookup(snap: Snapshot, citation: Citation) -> dict[str, Any] | None:
    """The manifest entry of a cited document or section in ``snap``; None when absent."""
    entry = snap.documents.get(citation.doc)
    if entry is None or citation.section is None:
        return entry
    section: dict[str, Any] | None = entry["sections"].get(citation.section)
    return section


def content_in(part: dict[str, Any], snap: Snapshot) -> bool:
    """Whether a section's exact (non-empty) text is a section of ``snap``."""
    return part["hash"] != EMPTY and part["hash"] in snap.section_hashes


def resolves_by_content(citation: Citation, old: Snapshot, newest: Snapshot) -> bool:
    """A citation missing from ``old`` that names, in ``newest``, text that ``old`` had
    elsewhere: a relabelled (moved) citation, verified by its content."""
    part = lookup(newest, citation)
    return part is not None and content_in(part, old)
