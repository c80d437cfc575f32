"""Citation status between the snapshot an item was verified against and the newest one.

| status | meaning |
|---|---|
| ok | same citation, same text, same heading |
| changed | the citation still exists, its text (or only its heading's words) changed |
| moved | gone, but a section that did not hold its text then now does (``new``) |
| deleted | gone, its text nowhere but where it was (``candidates``: the most alike) |
| unresolved | the citation never existed in the verified snapshot |
| unknown | the verified snapshot is not in ``snapshots/``, or hashed in another ``hash`` mode |

A citation absent from the verified snapshot whose text is identical to a section that was
there (a moved citation rewritten by ``--fix-moved``) counts as ok: the person verified
exactly that text.
"""

from __future__ import annotations

import difflib
import os
from collections import Counter, defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any

from evalset.config import find_workspace_or_none
from evalset.corpus.manifest import EMPTY, HASHED, Snapshot, SnapshotStore, json_string
from evalset.corpus.names import citable
from evalset.corpus.newest import Newest
from evalset.corpus.table import LazyDocuments
from evalset.errors import EvalsetError
from evalset.fsio import as_path, shown
from evalset.sets.citations import Citation
from evalset.sets.model import Item, SealedItem, item_citations
from evalset.sets.resolve import lookup, relabelled_from
from evalset.sets.setfile import SetFile
from evalset.staleness.textdiff import PartChange, diff_text, subsection_changes

STALE = ("changed", "moved", "deleted", "unresolved", "unknown")
MAX_CANDIDATES = 3


@dataclass
class CitationStatus:
    citation: str
    status: str
    new: str | None = None
    candidates: list[str] = field(default_factory=list)
    old_text: str | None = None
    """changed and deleted: the text as it was verified."""
    new_text: str | None = None
    """changed: the text now."""
    parts: list[PartChange] = field(default_factory=list)
    """changed, for a section with subsections: which of them (or its own text) changed."""
    candidate_text: str | None = None
    """deleted: the text of the most similar section now (``candidates[0]``), when known."""
    note: str | None = None
    """Why a diff or comparison is not available, when it is not; for a changed citation
    whose verified text is unchanged elsewhere (``candidates``), that."""
    tied: bool = False
    """moved: to more than one place alike (``new`` is the first by name): a guess."""
    heading: tuple[str, str] | None = None
    """changed or moved: the section's heading as verified and now, when its words differ
    (a section's text leaves its own heading out: "Staff hired before 2020" becoming "...
    after 2020" over the same text changes what the text says)."""

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "citation": self.citation,
            "status": self.status,
            "new": self.new,
            "candidates": self.candidates,
        }
        if self.status == "changed" and self.old_text is not None and self.new_text is not None:
            data["old_text"], data["new_text"] = self.old_text, self.new_text
            data["diff"] = diff_text(self.old_text, self.new_text)
            if self.parts:
                data["changed_in"] = [part.to_json() for part in self.parts]
        if self.status == "deleted" and self.old_text is not None:
            data["old_text"] = self.old_text
            if self.candidates and self.candidate_text is not None:
                data["candidate"] = {
                    "citation": self.candidates[0],
                    "new_text": self.candidate_text,
                    "diff": diff_text(self.old_text, self.candidate_text),
                }
        if self.tied:
            data["tied"] = True
        if self.heading is not None:
            data["heading"] = {"was": self.heading[0], "now": self.heading[1]}
        if self.note:
            data["note"] = self.note
        return data


@dataclass
class ItemStatus:
    set: str
    id: str
    verified: str | None
    file: Path
    citations: list[CitationStatus]
    key_points: list[str] = field(default_factory=list)
    """The texts of the item's key points, to show which facts rest on a stale citation."""
    expected: frozenset[str] = frozenset()
    """The citations among the item's expected sources."""
    point_sources: list[frozenset[str]] = field(default_factory=list)
    """Each key point's citations."""
    holdout: bool | None = False
    """The item's split (None: unassigned). A holdout item's key-point texts are never
    printed: stale reports end up in CI logs and pull-request comments that the people
    tuning prompts read."""

    def citing(self, citation: str) -> list[int]:
        """The indices of the key points whose sources include ``citation``."""
        return [k for k, sources in enumerate(self.point_sources) if citation in sources]

    @property
    def stale(self) -> bool:
        return any(c.status != "ok" for c in self.citations)

    def to_json(self) -> dict[str, Any]:
        citations = []
        for c in self.citations:
            data = c.to_json()
            if c.status != "ok":
                data["cited_by"] = {
                    "expected_sources": c.citation in self.expected,
                    "key_points": [
                        {"index": k} if self.holdout else {"index": k, "text": self.key_points[k]}
                        for k in self.citing(c.citation)
                    ],
                }
            citations.append(data)
        return {
            "set": self.set,
            "id": self.id,
            "verified": self.verified,
            "citations": citations,
        }


def item_status(loaded: SetFile, item: Item, statuses: list[CitationStatus]) -> ItemStatus:
    return ItemStatus(
        loaded.name,
        item.id,
        item.verified,
        loaded.path,
        statuses,
        [point.text for point in item.key_points],
        frozenset(str(c) for c in item.expected_sources),
        [frozenset(str(c) for c in point.sources) for point in item.key_points],
        item.holdout,
    )


def unknown_statuses(store: SnapshotStore, item: Item) -> list[CitationStatus]:
    """Every citation of an item whose verified snapshot is not in the store: ``unknown``."""
    where = store.folder
    note = f"snapshot {item.verified} is not in {where}; restore it from git"
    if not where.is_dir():
        note = (
            f"snapshot {item.verified} is not here: {where} does not exist (restore it from "
            "git, or check the `snapshots` setting)"
        )
    return [CitationStatus(str(c), "unknown", note=note) for c in item_citations(item)]


def modes_differ(old: Snapshot, new: Snapshot) -> str:
    """Why an item verified against ``old`` cannot be compared with ``new``: their ``hash``
    modes differ."""
    return (
        f"snapshot {old.short} hashed {HASHED.get(old.hash_mode, old.hash_mode)}, and the "
        f"newest, {new.short}, hashes {HASHED.get(new.hash_mode, new.hash_mode)} (the `hash` "
        "setting changed), so they cannot be compared: check the item against the text as "
        "it is now, then `evalset verify` it"
    )


def _verified_by_hand(loaded: SetFile, stubs: list[SealedItem]) -> set[str]:
    """The ids of ``stubs`` (sealed items) whose visible ``verified`` differs from what the
    committed state holding their sealed content shows (the release, or HEAD for content
    sealed since): written by hand, it vouches for no check (`validate` calls it an
    error)."""
    from evalset.sets.validate import holdout_baseline

    found = holdout_baseline(loaded.path, loaded.name, loaded)
    if found is None:
        return set()
    return {
        stub.id
        for stub in stubs
        if (old := found.sealed_as_committed(stub)) is not None and old[0].verified != stub.verified
    }


def never_compared(store: SnapshotStore, loaded: SetFile) -> tuple[list[ItemStatus], list[str]]:
    """``StaleChecker.stale_items`` for a store holding no snapshot at all: every verified
    active item is stale, its citations ``unknown`` (what it was checked against is not here,
    so nothing says it still holds), and the ids of those verified against none."""
    stale: list[ItemStatus] = []
    unverified: list[str] = []
    for item in loaded.items:
        if item.status != "active":
            continue
        if item.verified is None:
            unverified.append(item.id)
        else:
            stale.append(item_status(loaded, item, unknown_statuses(store, item)))
    return stale, unverified


SEARCHED_UP_TO = 32
"""Hashes looked for in the newest manifest's text, one search each, before a table of every
hash is built instead: a few citations gone from a million-document corpus take a search of
its manifest each (a tenth of a second), a restructured corpus one parse of it all."""


class _Index:
    """Look-ups on the newest snapshot: sections by text hash, documents by hash."""

    def __init__(self, snap: Snapshot) -> None:
        self.snap = snap
        self._searched = 0
        self._found: dict[tuple[str, bool], list[str]] = {}
        """Searches made (a changed citation's text is looked for twice: where it went, and
        whether it is anywhere)."""
        self.unnamed: defaultdict[str, list[str]] = defaultdict(list)
        """Per text hash, the documents and sections found holding it that no citation can
        name (the snapshot warned of each), which are never offered as where a text went."""

    def with_hash(self, wanted: str, section: bool) -> list[str]:
        """The sections (``doc#id``) or, with ``section`` false, the documents whose text
        hashes to ``wanted``, in the manifest's order."""
        key = (wanted, section)
        if key not in self._found:
            self._found[key] = self._with_hash(wanted, section)
        return list(self._found[key])

    def _with_hash(self, wanted: str, section: bool) -> list[str]:
        docs = self.snap.documents
        built = "by_section_hash" if section else "by_doc_hash"
        if (
            not isinstance(docs, LazyDocuments)
            or docs.legacy
            or built in self.__dict__
            or self._searched >= SEARCHED_UP_TO
        ):
            return (self.by_section_hash if section else self.by_doc_hash).get(wanted, [])
        self._searched += 1
        found: list[str] = []
        for doc in docs.holding(wanted):  # each line that holds the hash, parsed to check
            entry = docs[doc]
            if not section:
                if entry["hash"] == wanted:
                    self._add(found, wanted, doc)
                continue
            for sid, part in entry["sections"].items():
                if part["hash"] == wanted:
                    self._add(found, wanted, doc, sid)
        return found

    def _add(self, found: list[str], digest: str, doc: str, sid: str | None = None) -> None:
        """Add the document ``doc`` (or its section ``sid``), which holds the text hashed
        ``digest``, to ``found`` when a citation can name it, else to ``unnamed``: written
        ``doc#id``, it would read back as another citation (``faq#2.md``), or as none."""
        name = doc if sid is None else f"{doc}#{sid}"
        (found if citable(doc, sid) else self.unnamed[digest]).append(name)

    @cached_property
    def by_section_hash(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = defaultdict(list)
        for doc, entry in self.snap.documents.items():
            for sid, section in entry["sections"].items():
                if section["hash"] != EMPTY:
                    self._add(found[section["hash"]], section["hash"], doc, sid)
        return found

    @cached_property
    def by_doc_hash(self) -> dict[str, list[str]]:
        found: dict[str, list[str]] = defaultdict(list)
        for doc, entry in self.snap.documents.items():
            if entry["hash"] != EMPTY:
                self._add(found[entry["hash"]], entry["hash"], doc)
        return found


def _unchanged(citation: Citation, old: Snapshot, new: Snapshot) -> bool:
    """Whether the citation exists and is identical in both snapshots, decided on the raw
    manifest lines without parsing them: the same line means the same document entry, and
    a section key can be found textually because quotes inside JSON strings are escaped."""
    before, after = old.documents, new.documents
    if not (isinstance(before, LazyDocuments) and isinstance(after, LazyDocuments)):
        return False
    line = before.raw(citation.doc)
    if line is None or line != after.raw(citation.doc):
        return False
    if citation.section is None:
        return True
    key = f'{json_string(citation.section)}: {{"hash": "'
    return key.encode() in line if isinstance(line, bytes) else key in line


def _where_it_moved(matches: list[str], doc: str, old: Snapshot, digest: str) -> list[str]:
    """The sections holding a vanished section's text, most likely first: one that did not
    hold it in the snapshot the item was verified against (where it went: a renamed heading,
    a renamed file) before one that did already (a section alike, boilerplate repeated in
    every document: it did not move there), then those of the same document."""
    return sorted(matches, key=lambda c: (*_move_order(c, doc, old, digest), c))


def _move_order(match: str, doc: str, old: Snapshot, digest: str) -> tuple[bool, bool]:
    """How likely a section holding a vanished section's text is where it went, the most
    likely the least (see ``_where_it_moved``); two alike are a guess between them."""
    entry = lookup(old, Citation.parse(match))
    return entry is not None and entry["hash"] == digest, not match.startswith(doc + "#")


def _heading(then: dict[str, Any], now: dict[str, Any] | None) -> tuple[str, str] | None:
    """A section's heading as verified and now, when both are known and their words differ
    (white space aside); None otherwise, and for a whole document."""
    was, is_now = then.get("title"), (now or {}).get("title")
    if not isinstance(was, str) or not isinstance(is_now, str):
        return None
    return None if was.split() == is_now.split() else (was, is_now)


def _title(entry: dict[str, Any]) -> str:
    """A section's heading as its manifest entry records it ("" when it records none)."""
    title = entry.get("title")
    return title if isinstance(title, str) else ""


def _held(then: dict[str, Any] | None, now: dict[str, Any], text: str | None) -> bool:
    """Whether a section of the newest snapshot (``now``; ``then``: the same section as an
    item was verified) held a deleted section's words already then: its text is unchanged,
    or held that text (the section the deleted one lay in)."""
    if then is None:
        return False
    if then["hash"] == now["hash"]:
        return True
    held = then.get("text")
    return bool(text) and held is not None and f" {text} " in f" {held} "


_Changed = tuple[CitationStatus, Citation, Citation, Snapshot, Any, Any]
"""A changed citation waiting for its texts: status, what it was in the old snapshot (itself,
or the citation it relabels), the citation, the old snapshot, its old and new entry."""


class StaleChecker:
    """Compares items with the newest snapshot; one instance serves many items and sets."""

    def __init__(self, store: SnapshotStore, newest: Snapshot, root: Path | None = None) -> None:
        self.store = store
        self.newest = newest
        self.index = _Index(newest)
        self.root = root
        self._seen: dict[tuple[str, Citation], CitationStatus] = {}
        self._pending: list[_Changed] | None = None
        """Changed citations whose texts are read together, when ``stale_items`` checks a set."""

    def citation(self, citation: Citation, old: Snapshot) -> CitationStatus:
        """The status of one citation against ``old``; the same citation verified against
        the same snapshot is looked at once (items cite a section as a source and again for
        their key points)."""
        key = (old.id, citation)
        found = self._seen.get(key)
        if found is None:
            found = self._seen[key] = self._citation(citation, old)
        return found

    def _citation(self, citation: Citation, old: Snapshot) -> CitationStatus:
        text = str(citation)
        if _unchanged(citation, old, self.newest):
            return CitationStatus(text, "ok")
        before = lookup(old, citation)
        after = lookup(self.newest, citation)
        was = citation
        if before is None:  # relabelled since (`stale --fix-moved`), or never there
            found = relabelled_from(citation, old, self.store)
            if found is None:
                return CitationStatus(text, "unresolved", note=f"not in snapshot {old.short}")
            was, before = found
        if after is not None:
            heading = _heading(before, after) if was == citation else None
            if after["hash"] == before["hash"] and heading is None:
                return CitationStatus(text, "ok")
            if after["hash"] == before["hash"]:  # its heading alone was reworded
                return CitationStatus(text, "changed", heading=heading)
            kept = self._kept_at(citation, old, before)
            # its heading may be reworded with its text (an HTML id, or an anchor that
            # ignores case, kept): both say what changed
            status = CitationStatus(text, "changed", candidates=kept, heading=heading)
            if status.candidates:  # a heading repeated above renumbers the ones below it
                status.note = (
                    f"the text it was verified against is now, unchanged, at "
                    f"{' and '.join(status.candidates[:3])}, which did not hold it before: if "
                    "a heading of the same name above it was added or removed, cite that "
                    "section"
                )
            else:  # one removed above: the label names the next one's text, its own is gone
                took = self._took_from(citation, old, before, after)
                if took is not None:
                    status.note = (
                        f"the text now under it is what {took} held when the item was "
                        "verified, unchanged, and the text it was verified against is nowhere "
                        "now: if a heading of the same name above it was removed, this "
                        "section's own text was deleted"
                    )
            if self._pending is not None:
                self._pending.append((status, was, citation, old, before, after))
            else:
                self._texts(status, was, citation, old, before, after)
            return status
        if before["hash"] != EMPTY:
            # a section's text may now be a whole document without headings, and a document's
            # a section: the other kind is where it went when none of its own kind holds it
            section = citation.section is not None
            moved = self.index.with_hash(before["hash"], section) or self.index.with_hash(
                before["hash"], not section
            )
            matches = _where_it_moved(moved, citation.doc, old, before["hash"])
            order = [_move_order(m, citation.doc, old, before["hash"]) for m in matches[:2]]
            if matches and not order[0][0]:
                now = lookup(self.newest, Citation.parse(matches[0]))
                status = CitationStatus(text, "moved", new=matches[0], candidates=matches[1:],
                                        tied=len(order) == 2 and order[0] == order[1],
                                        heading=_heading(before, now))  # fmt: skip
                if status.tied:  # ``new`` is only the first by name: every output says so
                    alike = [
                        m
                        for m in matches
                        if _move_order(m, citation.doc, old, before["hash"]) == order[0]
                    ]
                    status.note = (
                        f"its text went to {' and '.join(alike)} alike, none of which held it "
                        "before: `--fix-moved` leaves it, cite the one meant by hand"
                    )
                return status
            already = matches  # each held that text already: boilerplate, not where it went
        else:
            already = []
        status = CitationStatus(text, "deleted")
        status.candidates = self._similar(citation, old, before)
        self._deleted_texts(status, was, old, before)
        if already:
            status.note = (
                f"its text is also at {' and '.join(already[:3])}, which held it already when "
                "the item was verified: the same words under another heading, not where this "
                "section went"
            )
        elif unnamed := list(dict.fromkeys(self.index.unnamed.get(before["hash"], ()))):
            status.note = (
                f"its text is now at {' and '.join(map(repr, unnamed[:3]))}, which no "
                "citation can name (the snapshot warned of it): rename the document, or "
                "change the section's id, run `evalset snapshot`, and cite it there"
            )
        return status

    def _kept_at(self, citation: Citation, old: Snapshot, before: dict[str, Any]) -> list[str]:
        """The citations of the newest snapshot, of the kind of ``citation`` and other than
        it, that hold exactly the text it had in ``old`` and did not hold it there: where
        that text went while its label now names other text (``exceptions`` after a second
        ``### Exceptions`` was added above it is what ``exceptions-1`` was)."""
        if before["hash"] == EMPTY:
            return []
        found = self.index.with_hash(before["hash"], citation.section is not None)
        kept = []
        for match in found:
            if match == str(citation):
                continue
            then = lookup(old, Citation.parse(match))
            if then is None or then["hash"] != before["hash"]:
                kept.append(match)
        return _where_it_moved(kept, citation.doc, old, before["hash"])

    def _took_from(
        self, citation: Citation, old: Snapshot, before: dict[str, Any], after: dict[str, Any]
    ) -> str | None:
        """The section of ``citation``'s document that held, in ``old``, exactly the text
        ``citation`` holds now, under the same heading, and holds it no longer, when the
        text ``citation`` had is nowhere now: the labels of a repeated heading renumbered
        by one removed above (``exceptions`` now names what ``exceptions-1`` was)."""
        if citation.section is None or after["hash"] == EMPTY:
            return None
        if self.index.with_hash(before["hash"], True):
            return None  # its own text is somewhere still: not this case
        then = old.documents.get(citation.doc)
        now = self.newest.documents.get(citation.doc)
        if then is None or now is None:
            return None
        title = _title(after).split()
        for sid, entry in then["sections"].items():
            if sid == citation.section or entry["hash"] != after["hash"]:
                continue
            if _title(entry).split() != title:
                continue
            still = now["sections"].get(sid)
            if still is None or still["hash"] != after["hash"]:
                return f"{citation.doc}#{sid}"
        return None

    def _deleted_texts(
        self, status: CitationStatus, citation: Citation, old: Snapshot, before: Any
    ) -> None:
        """The text a deleted citation had, and its best candidate's text now."""
        status.old_text = before.get("text")
        if status.old_text is None and before["hash"] != EMPTY:
            status.old_text, _, _ = self._text_at(old, citation, before["hash"])
        if not status.candidates or status.old_text is None:
            return
        best = Citation.parse(status.candidates[0])
        part = lookup(self.newest, best)
        if part is None:
            return
        status.candidate_text = part.get("text")
        if status.candidate_text is None:
            status.candidate_text, _, _ = self._text_at(self.newest, best, part["hash"])

    def _lfs_missing(self, snap: Snapshot, citation: Citation) -> bool:
        from evalset.corpus.revision import lfs_not_fetched

        assert snap.commit is not None
        return self.root is not None and lfs_not_fetched(
            self.root, snap.commit, snap.corpus, citation.doc
        )

    def _text_at(
        self,
        snap: Snapshot,
        citation: Citation,
        expected: str,
        blobs: Mapping[str, bytes] | None = None,
        uncached: list[str] | None = None,
    ) -> tuple[str | None, bool, Any]:
        """A citation's text as ``snap`` saw it, found outside the manifest (working tree, or
        the snapshot's commit through git/DVC), whether any version could be read, and the
        document version it was found in (``uncached``: see ``document_versions``)."""
        if self.root is None:
            return None, False, None
        read = False
        from evalset.corpus.revision import document_versions  # only when text is needed

        for version in document_versions(
            self.root, snap.corpus, snap.commit, citation.doc, snap.hash_mode, blobs, uncached
        ):
            read = True
            part = (
                version if citation.section is None else version["sections"].get(citation.section)
            )
            if part is not None and part["hash"] == expected:
                return part.get("text"), True, version
        return None, read, None

    def _texts(
        self,
        status: CitationStatus,
        was: Citation,
        citation: Citation,
        old: Snapshot,
        before: Any,
        after: Any,
        blobs: Mapping[str, bytes] | None = None,
    ) -> None:
        """The old text (of ``was``, the citation in ``old``) and the new text of a changed
        citation, and which of its subsections changed."""
        status.old_text = before.get("text")
        status.new_text = after.get("text")
        old_doc = old.documents.get(was.doc) if status.old_text is not None else None
        new_doc = self.newest.documents.get(citation.doc) if status.new_text is not None else None
        if status.old_text is None:
            uncached: list[str] = []
            status.old_text, read, old_doc = self._text_at(
                old, was, before["hash"], blobs, uncached
            )
            if status.old_text is None and old.commit and self._missing(old.commit):
                from evalset.gitcmd import FETCH_HISTORY

                status.note = (
                    f"no text to compare: the snapshots do not store text, and commit "
                    f"{old.commit[:SHORT_COMMIT]}, where snapshot {old.short} was taken, is not "
                    f"in this shallow clone ({FETCH_HISTORY}); only the hashes differ"
                )
            elif status.old_text is None and old.commit and self._lfs_missing(old, was):
                status.note = (
                    f"no text to compare: at commit {old.commit[:SHORT_COMMIT]}, where snapshot "
                    f"{old.short} was taken, {was.doc} is in Git LFS, and this clone does "
                    "not hold that version (`git lfs fetch --all` brings it); only the hashes "
                    "differ"
                )
            elif status.old_text is None and old.commit and uncached:
                from evalset.corpus.revision import fetch_hint

                status.note = (
                    f"no text to compare: at commit {old.commit[:SHORT_COMMIT]}, where snapshot "
                    f"{old.short} was taken, {was.doc} is tracked by DVC, and the DVC cache "
                    f"does not hold that version: {fetch_hint(old.commit)} brings it; only the "
                    "hashes differ"
                )
            elif read and status.old_text is None and old.commit:
                status.note = (
                    f"the text at commit {old.commit[:SHORT_COMMIT]} differs from snapshot "
                    f"{old.short} (the corpus had uncommitted changes then)"
                )
        if status.new_text is None:
            status.new_text, _, new_doc = self._text_at(self.newest, citation, after["hash"], blobs)
        if (status.old_text is None or status.new_text is None) and not status.note:
            status.note = (
                "no text to compare: the snapshots do not store text and the corpus could not "
                "be read at their commits; only the hashes differ"
                if self.root is not None
                else "no text to compare: the snapshots do not store text, and they lie in no "
                "workspace whose corpus could be read at their commits; only the hashes differ"
            )
        if citation.section is not None and was == citation and status.old_text and status.new_text:
            status.parts = subsection_changes(
                str(citation), citation.section, old_doc, new_doc, status.old_text, status.new_text
            )

    def _missing(self, commit: str) -> bool:
        """Whether ``commit`` is one this clone lacks, its history cut short (a shallow clone,
        as CI makes them): the text there cannot be read, whatever else was."""
        from evalset.git import Git, NotARepository

        if self.root is None:
            return False
        try:
            git = Git.find(self.root)
        except NotARepository:
            return False
        return git.shallow and git.commit_of(commit) is None

    def _similar(self, citation: Citation, old: Snapshot, before: dict[str, Any]) -> list[str]:
        """The sections of the newest snapshot most like a deleted one: in its document, or
        where that document went (renamed, and edited too). Those whose text is at least half
        the same come first, most alike first; then new sections whose heading is like its
        heading (renamed and rewritten: "Sabbatical for interns" became "Interns: sabbatical
        rules"); last, sections that held its words already when it was verified (one that
        kept its text, or the section holding it and its neighbours): they are not where
        it went."""
        if citation.section is None or before["hash"] == EMPTY:
            return []  # empty sections are like nothing, so they never match
        doc = (
            citation.doc
            if citation.doc in self.newest.documents
            else self._renamed(citation.doc, old)
        )
        entry = self.newest.documents.get(doc) if doc is not None else None
        if doc is None or entry is None:
            return []
        was = old.documents.get(citation.doc)  # its document as verified, under its old name
        then = was["sections"] if was is not None else {}
        citation = Citation(doc, citation.section)
        old_text = before.get("text")
        title = _title(before).casefold()
        scored = []
        for sid, section in entry["sections"].items():
            if section["hash"] == EMPTY or not citable(doc, sid):
                continue
            kept = _held(then.get(sid), section, old_text)
            size = 0
            if old_text is not None and section.get("text") is not None:
                if old_text and f" {old_text} " in f" {section['text']} ":
                    # it holds the whole old text (two sections merged into one): as like it
                    # as can be, the one holding least besides first
                    score, size = 1.0, len(section["text"])
                else:
                    score = difflib.SequenceMatcher(
                        None, old_text.split(), section["text"].split(), autojunk=False
                    ).ratio()
            else:
                score = difflib.SequenceMatcher(None, _title(before), _title(section)).ratio()
            if score >= 0.5:  # a section that kept its text is not where this one went
                scored.append((kept, -score, size, f"{citation.doc}#{sid}"))
            elif sid not in then and title:  # a new section under a heading like its own:
                named = difflib.SequenceMatcher(  # renamed, and rewritten
                    None, title, _title(section).casefold()
                ).ratio()
                if named >= 0.5:
                    scored.append((False, -named / 2, 0, f"{citation.doc}#{sid}"))
        return [c for *_, c in sorted(scored)[:MAX_CANDIDATES]]

    def _renamed(self, doc: str, old: Snapshot) -> str | None:
        """The document of the newest snapshot that ``doc`` of ``old`` became, renamed and
        edited: the one holding most of its sections' texts (at least half of them), not a
        document ``old`` had already."""
        entry = old.documents.get(doc)
        parts = (
            [p["hash"] for p in entry["sections"].values() if p["hash"] != EMPTY] if entry else []
        )
        found: Counter[str] = Counter()
        for digest in parts:
            found.update({c.partition("#")[0] for c in self.index.with_hash(digest, True)})
        for name, count in found.most_common():
            if 2 * count < len(parts):
                break
            if name not in old.documents:
                return name
        return None

    def item(self, loaded: SetFile, item: Item) -> ItemStatus | None:
        """The status of every citation of an active item; None when it has never been
        verified against a snapshot (validate, stale and status report those as unverified).

        Only the item's own ``verified`` counts: a snapshot named in the header says nothing
        about an item written after it was recorded."""
        statuses = self._statuses(item)
        return None if statuses is None else self._status(loaded, item, statuses)

    def _statuses(self, item: Item) -> list[CitationStatus] | None:
        """The status of each of an item's citations; None when it was never verified."""
        ref = item.verified
        if ref is None:
            return None
        old = self.store.get(ref)
        if old is None:
            return unknown_statuses(self.store, item)
        if old.hash_mode != self.newest.hash_mode:
            # a section's hash is of its rendered text in one mode and of its source in the
            # other: every section with markup would read as changed, its diff the markup
            note = modes_differ(old, self.newest)
            return [CitationStatus(str(c), "unknown", note=note) for c in item_citations(item)]
        return [self.citation(c, old) for c in item_citations(item)]

    def _status(self, loaded: SetFile, item: Item, statuses: list[CitationStatus]) -> ItemStatus:
        return item_status(loaded, item, statuses)

    def stale_items(self, loaded: SetFile) -> tuple[list[ItemStatus], list[str]]:
        """Stale active items of a set, and the ids of the active items verified against no
        snapshot yet (they are not compared: nobody checked them against any text)."""
        stale: list[ItemStatus] = []
        unverified: list[str] = []
        self._pending = []
        try:
            for item in loaded.items:
                if item.status != "active":
                    continue
                statuses = self._statuses(item)
                if statuses is None:
                    unverified.append(item.id)
                elif any(c.status != "ok" for c in statuses):  # ItemStatus.stale
                    stale.append(self._status(loaded, item, statuses))
            pending = self._pending
        finally:
            self._pending = None
        self._read_texts(pending)
        return stale, unverified

    def unchecked_sealed(self, loaded: SetFile) -> list[str]:
        """The active sealed items the key did not open whose staleness is unknown: those
        not verified against the newest snapshot (what they cite is sealed). A sealed item
        whose visible ``verified`` is the newest snapshot is fresh without the key: nothing
        changed since it was checked; unless that ``verified`` was written by hand (changed
        since the baseline while its sealed content was not, as `validate` finds it)."""
        unchecked, fresh = set(), []
        for stub in loaded.sealed:
            if stub.status != "active":
                continue
            try:
                ident = self.store.resolve(stub.verified) if stub.verified else None
            except EvalsetError:
                ident = None
            if ident != self.newest.id:
                unchecked.add(stub.id)
            else:
                fresh.append(stub)
        if fresh:
            unchecked |= _verified_by_hand(loaded, fresh)
        return [stub.id for stub in loaded.sealed if stub.id in unchecked]

    def _read_texts(self, pending: list[_Changed]) -> None:
        """The old and new texts of changed citations, with every version git may have to
        read fetched in one batch rather than one ``git show`` each."""
        if not pending:
            return
        blobs = None
        if self.root is not None:
            from evalset.corpus.revision import corpus_in_tree, git_blobs, git_name

            root = self.root
            names = [
                git_name(snap.commit, corpus_in_tree(root, snap.commit, snap.corpus), cited.doc)
                for _, was, citation, old, before, after in pending
                for snap, cited, part in ((old, was, before), (self.newest, citation, after))
                if snap.commit and part.get("text") is None
            ]
            blobs = git_blobs(self.root, names)
        for status, was, citation, old, before, after in pending:
            self._texts(status, was, citation, old, before, after, blobs)


SHORT_COMMIT = 10


@dataclass
class StaleReport:
    """Stale items of one or more sets against the newest snapshot."""

    snapshot: str | None
    items: list[ItemStatus] = field(default_factory=list)
    newest: Newest | None = None
    """Which snapshot the items were compared with, and why it is the newest."""
    unverified: dict[str, list[str]] = field(default_factory=dict)
    """Per set, the active items verified against no snapshot yet (not compared)."""
    sealed: dict[str, int] = field(default_factory=dict)
    """Per set, sealed items the key did not open."""
    unchecked: dict[str, list[str]] = field(default_factory=dict)
    """Per set, the active sealed items whose staleness is unknown without the key
    (``StaleChecker.unchecked_sealed``): the report is not clean while there are any."""

    def to_json(self) -> dict[str, Any]:
        return {
            "snapshot": self.snapshot,
            "newest": self.newest.to_json() if self.newest else None,
            "items": [i.to_json() for i in self.items],
            "unverified": {name: ids for name, ids in self.unverified.items() if ids},
            "unchecked_sealed": {name: ids for name, ids in self.unchecked.items() if ids},
        }


def _workspace_root(places: list[Path]) -> Path | None:
    """The root of the workspace the first of ``places`` that lies in one lies in."""
    for place in places:
        found = find_workspace_or_none(Path(place))
        if found is not None:
            return found.root
    return None


def require_schema(loaded: SetFile) -> None:
    """Refuse a set with an item (or header) that fails the schema: such an item is not
    loaded, and staleness would pass over it without a word."""
    broken = loaded.schema_error()
    if broken is not None:
        raise EvalsetError(
            f"{broken}; staleness cannot be told for an item that fails the schema, so fix it "
            f"(`evalset validate {loaded.name}` lists every problem) and run stale again."
        )


def stale_report(paths: list[Path], store: SnapshotStore, root: Path | None = None) -> StaleReport:
    """Compare every active item of the given sets with the newest snapshot.

    ``root`` is the workspace whose corpus is read, at the commits the snapshots were taken
    at, for the text of a changed citation when the snapshots store none; by default the
    workspace holding the store's folder, else the first set's, as `evalset stale` does."""
    from evalset.sets.setfile import load_set

    if isinstance(paths, str | os.PathLike):
        raise TypeError(
            "stale_report() takes a list of set files, not one path: "
            f"stale_report([{str(paths)!r}], store)"
        )
    paths = [as_path(path, "stale_report", "set files' paths") for path in paths]
    if not isinstance(store, SnapshotStore):
        raise TypeError(
            f"stale_report() takes a SnapshotStore, not {shown(store)}: give "
            "workspace_store(find_workspace())."
        )
    if root is None:
        root = _workspace_root([store.folder, *paths[:1]])
    choice = store.newest_choice()
    newest = store.get(choice.id) if choice else None
    report = StaleReport(newest.short if newest else None, newest=choice)
    # With no snapshot at all (a fresh workspace, but also a snapshots folder left out of a
    # checkout, or a misspelt setting), the sets are still read: an item verified against a
    # snapshot that is not here is unknown, never fresh.
    checker = StaleChecker(store, newest, root) if newest is not None else None
    for path in paths:
        loaded = load_set(path)
        require_schema(loaded)
        if checker is None:
            stale, unverified = never_compared(store, loaded)
        else:
            stale, unverified = checker.stale_items(loaded)
        report.items.extend(stale)
        report.unverified[loaded.name] = unverified
        if loaded.sealed:
            report.sealed[loaded.name] = len(loaded.sealed)
            report.unchecked[loaded.name] = (
                checker.unchecked_sealed(loaded)
                if checker is not None
                else [s.id for s in loaded.sealed if s.status == "active" and s.verified]
            )
    return report
