"""Citations in snapshots: whether one resolves, what it points at, and whether a citation
missing from the snapshot an item was verified against names text that snapshot had."""

from __future__ import annotations

import difflib
from typing import Any

from evalset.corpus.manifest import EMPTY, Snapshot, SnapshotStore
from evalset.corpus.names import citable
from evalset.sets.citations import Citation


def unresolved(citation: Citation, snap: Snapshot, guess: bool = True) -> str | None:
    """Why ``citation`` does not resolve in ``snap`` (with a did-you-mean by name, unless
    not to ``guess``), or None."""
    entry = snap.documents.get(citation.doc)
    if entry is None:
        named = [doc for doc in snap.documents if citable(doc)] if guess else []
        close = difflib.get_close_matches(citation.doc, named, n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        return f"document {citation.doc!r} is not in snapshot {snap.short}{hint}"
    if citation.section is not None and citation.section not in entry["sections"]:
        # only a name a citation can hold is offered (an HTML id may hold white space)
        named = [sid for sid in entry["sections"] if citable(citation.doc, sid)] if guess else []
        close = difflib.get_close_matches(citation.section, named, 1, 0.5)
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


def resolves_by_content(
    citation: Citation, old: Snapshot, newest: Snapshot, store: SnapshotStore
) -> bool:
    """A citation missing from ``old`` that ``newest`` has and that relabels one of
    ``old``'s (``relabelled_from``): a moved citation, verified by its content."""
    return (
        lookup(newest, citation) is not None and relabelled_from(citation, old, store) is not None
    )


def relabelled_from(
    citation: Citation, old: Snapshot, store: SnapshotStore
) -> tuple[Citation, dict[str, Any]] | None:
    """The citation of ``old`` that ``citation`` (not in ``old``) relabels, and its entry
    there: `stale --fix-moved` rewrites a moved citation while a later snapshot is the
    newest, one where it holds exactly the text the other had in ``old`` and the other's
    label is gone. An item stale for another citation keeps ``old`` as the snapshot it was
    verified against: a later edit of the moved text is then told against what was
    checked, and a text another section held in ``old`` is not taken for it."""
    found = old.by_hash
    order = store.in_order()
    # the first snapshot after ``old`` that holds the citation is where it was relabelled:
    # one taken later may hold there another text ``old`` had, which proves nothing
    for ident in order[order.index(old.id) + 1 :] if old.id in order else order:
        snap = store.get(ident)
        part = lookup(snap, citation) if snap is not None else None
        if snap is None or part is None or part["hash"] == EMPTY:
            continue
        for match in found.get(part["hash"], ()):
            was = Citation.parse(match)
            if lookup(snap, was) is None:  # (a section may relabel a document, and back)
                entry = lookup(old, was)
                assert entry is not None
                return was, entry
    return None


def last_held(citation: Citation, newest: Snapshot, store: SnapshotStore) -> Snapshot | None:
    """The latest snapshot, ``newest`` aside, in which ``citation`` names some text (latest
    as the newest is chosen: by history, so an old revision recorded today is old): where a
    citation of an unverified item (a draft, say) that ``newest`` lacks was last seen, so
    that where its text went can be found."""
    for ident in reversed(store.in_order()):
        snap = store.get(ident) if ident != newest.id else None
        part = lookup(snap, citation) if snap is not None else None
        if snap is not None and part is not None and part["hash"] != EMPTY:
            return snap
    return None


def now_at(citation: Citation, newest: Snapshot, store: SnapshotStore) -> list[str]:
    """The citations of ``newest`` holding exactly the text ``citation`` (which ``newest``
    lacks) had where it was last seen (``last_held``), a label that snapshot lacked (where
    the text went) before one it had (the same text elsewhere already); none when the text
    is nowhere."""
    last = last_held(citation, newest, store)
    part = lookup(last, citation) if last is not None else None
    if last is None or part is None:
        return []
    holders = newest.by_hash.get(part["hash"], [])
    return sorted(holders, key=lambda c: lookup(last, Citation.parse(c)) is not None)
