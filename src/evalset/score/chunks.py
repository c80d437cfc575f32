"""Chunks to citations: which section of the run's snapshot a retrieved chunk comes from.

A retriever that knows nothing of anchors returns chunks: a document and a piece of its text
(``{"doc": ..., "text": ...}``), or a span of the document's source (``{"doc": ...,
"start": ..., "end": ...}``). A chunk stands for the most specific section that holds it:

1. **exact**: its text, normalised as snapshots normalise text (Unicode NFC, white space
   collapsed), and failing that rendered as the document's format renders it (markup
   removed), occurs in the section's heading and text. The most specific such section wins;
   when the same passage is in two unrelated sections (as the snapshot's outline places
   them, ``DocumentView.within``), the chunk stands for both. A chunk
   that lies before the first heading, or spans two top-level sections, stands for the
   whole document.
2. **overlap**: otherwise (text cleaned or reflowed by the retriever, or slightly different
   from the snapshot), the most specific section that holds at least ``OVERLAP`` (80%) of
   the chunk's word trigrams (lower-case words; single words for chunks under three words),
   else the document when it does.

A span is the text at its offsets in the document's source as the snapshot saw it
(``Resolver.sources``): the working-tree file or the file at the snapshot's commit, when it
hashes as the snapshot recorded. Where both do but read other text at the span (they differ
in bytes the hash leaves out, which the snapshot does not record), the span is unresolved.

What does not resolve (unknown document, too little overlap, a source that cannot be read,
sources that disagree at a span) is listed in the report with the reason, and scored as
matching nothing: never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from evalset.corpus import sectioner_for
from evalset.corpus.encoding import decode
from evalset.corpus.manifest import Snapshot
from evalset.corpus.outline import DocumentView, Outlines, Part
from evalset.corpus.reading import parse_document
from evalset.corpus.revision import git_file, working_file
from evalset.corpus.sections import normalise
from evalset.score.runfile import Chunk
from evalset.sets.citations import Citation

OVERLAP = 0.8
"""Share of a chunk's word trigrams a section must hold for the chunk to resolve to it when
its text is not found exactly."""
_WORD = re.compile(r"\w+")


@dataclass(frozen=True)
class Resolution:
    """What a chunk stands for: citations (empty when unresolved), and how or why not."""

    citations: tuple[Citation, ...]
    how: str
    """``exact``, ``rendered`` (found once its markup was removed), ``overlap``, or the reason
    it did not resolve."""

    @property
    def resolved(self) -> bool:
        return bool(self.citations)


def _trigrams(text: str) -> set[tuple[str, ...]]:
    words = _WORD.findall(text.lower())
    if len(words) < 3:
        return {(w,) for w in words}
    return set(zip(words, words[1:], words[2:], strict=False))


class Resolver:
    """Resolves chunks against one snapshot; results are remembered per (doc, text)."""

    def __init__(self, outlines: Outlines) -> None:
        self.outlines = outlines
        self._memo: dict[tuple[str, str], Resolution] = {}
        self._sources: dict[str, dict[str, str]] = {}
        self._grams: dict[str, dict[str, set[tuple[str, ...]]]] = {}
        self.unread: set[str] = set()
        """Documents of the snapshot whose text could not be found (not stored, and not in
        the working tree or git as the snapshot saw it): what their chunks stand for is not
        known, which is not the same as standing for nothing."""

    @property
    def snapshot(self) -> Snapshot | None:
        return self.outlines.snapshot

    def resolve(self, chunk: Chunk) -> Resolution:
        if chunk.text is not None:
            key = (chunk.doc, chunk.text)
            found = self._memo.get(key)
            if found is None:
                found = self._memo[key] = self._text(chunk.doc, chunk.text)
            return found
        assert chunk.start is not None and chunk.end is not None
        sources = self.sources(chunk.doc)
        if not sources:
            self._unread(chunk.doc)
            why = self.outlines.unreadable.get(chunk.doc) or (
                f"the source of {chunk.doc} as snapshot "
                f"{self.snapshot.short if self.snapshot else '-'} saw it could not be read"
            )
            return Resolution((), f"unresolved: {why}")
        start, end = chunk.start, chunk.end
        read = {text[start:end] if end <= len(text) else None for text in sources.values()}
        if len(read) > 1:
            return Resolution((), f"unresolved: {self._differ(chunk.doc, sources)}")
        text = read.pop()
        if text is None:
            return Resolution(
                (), f"unresolved: the span ends at {end}, past the document's end "
                f"({len(next(iter(sources.values())))} characters)"
            )  # fmt: skip
        return self.resolve(Chunk(chunk.doc, text=text))

    def _differ(self, doc: str, sources: dict[str, str]) -> str:
        """Why a span of a document whose sources disagree at the span is not resolved."""
        snap = self.snapshot
        assert snap is not None
        left_out = "markup such as link targets, " if snap.hash_mode == "rendered" else ""
        return (
            f"the source of {doc} differs between {' and '.join(sources)} in bytes that "
            f"snapshot {snap.short} does not record (its hash leaves out {left_out}line "
            "breaks and line ends), and the span's offsets read other text in each, so it "
            "is not guessed; restore the file from that commit, or commit it and take a new "
            "snapshot, so that the two agree, or give the chunk as text"
        )

    def _text(self, doc: str, raw: str) -> Resolution:
        view = self.outlines.view(doc)
        if view is None:
            self._unread(doc)
            return Resolution((), f"unresolved: {self.outlines.unreadable[doc]}")
        text = normalise(raw)
        found = _containing(view, text)
        if found is not None:
            return Resolution(found, "exact")
        rendered = self._rendered(doc, raw)
        if rendered and rendered != text:
            found = _containing(view, rendered)
            if found is not None:
                return Resolution(found, "rendered")
        return self._overlap(view, rendered or text)

    def _unread(self, doc: str) -> None:
        snap = self.snapshot
        if snap is not None and doc in snap.documents:  # (else: not in the snapshot at all)
            self.unread.add(doc)

    def _rendered(self, doc: str, raw: str) -> str:
        """The chunk as the document's format renders it (markup removed, normalised)."""
        snap = self.snapshot
        sectioner = sectioner_for(doc)
        if sectioner is None or snap is None or snap.hash_mode != "rendered":
            return ""
        try:
            return sectioner(raw, snap.hash_mode).text
        except Exception:  # a sectioner of a plug-in may fail on a fragment
            return ""

    def _overlap(self, view: DocumentView, text: str) -> Resolution:
        wanted = _trigrams(text)
        if not wanted:
            return Resolution((), "unresolved: the chunk has no words")
        grams = self._grams.get(view.doc)
        if grams is None:
            grams = self._grams[view.doc] = {p.id: _trigrams(p.key) for p in view.by_size}
            grams[""] = _trigrams(view.text)
        best = 0.0
        for part in view.by_size:
            share = len(wanted & grams[part.id]) / len(wanted)
            best = max(best, share)
            if share >= OVERLAP:
                return Resolution((Citation(view.doc, part.id),), "overlap")
        share = len(wanted & grams[""]) / len(wanted)
        if share >= OVERLAP:
            return Resolution((Citation(view.doc),), "overlap")
        best = max(best, share)
        return Resolution(
            (),
            f"unresolved: not found in {view.doc}, and no section holds {OVERLAP:.0%} of its "
            f"word trigrams (best {best:.0%})",
        )

    def sources(self, doc: str) -> dict[str, str]:
        """The document's source texts that may be what the snapshot read, by where they
        were found (the working-tree file, the file at the snapshot's commit in git, each
        under its name in either Unicode form): those that hash as the snapshot recorded,
        one per distinct text. Empty when none does. More than one when the two differ in
        bytes the snapshot's hash leaves out (in the default rendered mode: link targets,
        line breaks, line ends), which offsets count."""
        found = self._sources.get(doc)
        if found is None:
            found = self._sources[doc] = self._source(doc)
        return found

    def _source(self, doc: str) -> dict[str, str]:
        snap, root = self.snapshot, self.outlines.root
        entry = snap.documents.get(doc) if snap is not None else None
        if snap is None or entry is None:
            if snap is not None:
                self.outlines.unreadable[doc] = f"it is not in snapshot {snap.short}"
            return {}
        if root is None:
            return {}
        candidates: dict[str, tuple[str, bytes]] = {}
        data = working_file(root, snap.corpus, doc)
        if data is not None:
            candidates["the working-tree file"] = (doc, data)
        if snap.commit:
            held = git_file(root, snap.corpus, snap.commit, doc)
            if held is not None and held[1] != data:
                candidates[f"the file at the snapshot's commit {snap.commit[:12]}"] = held
        found: dict[str, str] = {}
        for where, (name, data) in candidates.items():
            parsed = parse_document(name, data, snap.hash_mode, False)
            if parsed.entry is not None and parsed.entry["hash"] == entry["hash"]:
                text = decode(name, data)[0] or ""
                if text not in found.values():
                    found[where] = text
        return found


def _containing(view: DocumentView, text: str) -> tuple[Citation, ...] | None:
    """The most specific sections whose heading and text contain ``text``; the document
    when only its whole text does; None when not even that."""
    if not text or text not in view.text:
        return None
    holding = [p for p in view.by_size if text in p.key]
    if not holding:
        return (Citation(view.doc),)
    # shortest first: a holding section is not minimal when a shorter one lies inside it
    minimal = [holding[0]]
    for p in holding[1:]:
        if not any(_inside(view, q, p) for q in minimal):
            minimal.append(p)
    return tuple(Citation(view.doc, p.id) for p in minimal)


def _inside(view: DocumentView, inner: Part, outer: Part) -> bool:
    """Whether ``inner`` lies inside ``outer`` as the outline places sections (as scoring
    places them for citations). Its heading and text found in ``outer``'s text is not
    enough where the document holds them in another place too: a sentence may read "Notes
    Keep receipts." in one section, and "## Notes" hold "Keep receipts." in another. The
    outline is asked only then (placing every section of a document costs more)."""
    if inner.level <= outer.level or inner.key not in outer.text:
        return False
    text = view.text
    return text.find(inner.key, text.find(inner.key) + 1) < 0 or view.within(inner.id, outer.id)
