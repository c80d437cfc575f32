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
   from the snapshot), the chunk is compared by its words: lower-case runs of letters and
   digits, where each character of a script written without spaces between words (Chinese,
   Japanese, Thai, Lao, Khmer, Myanmar) is a word of its own, so that a passage whose lines
   were joined without a space (as such text is joined) compares as the snapshot's text,
   which keeps the line break as a space. A chunk of three words or more is compared by its
   word trigrams: it stands for the sections holding the largest share of them, when that
   share is at least ``OVERLAP`` (80%); of those, the most specific, as in the exact step (a
   section holding another of them does not count: a subsection beats its parent at the
   same share), and all of them when they are unrelated (the same passage under two
   headings, or under a repeated heading: ``questions`` and ``questions-1``). The whole
   document when it holds a larger share than any section (a chunk across top-level
   sections, or before the first heading). A section holding a smaller share does not
   count, however short: a chunk all of whose trigrams are in Returns does not stand for a
   shorter Summary that holds 84% of them.

   A chunk of one or two words is compared by those words, in that order, as whole words
   (its only run of words; 80% of one is all of it): ``Ship worldwide!`` stands for the
   section that says "we ship worldwide", ``faq`` for the section headed FAQ. Two words say
   little about where they come from: such a chunk resolves only when the most specific
   sections holding them are one section, or sections alike in heading and text (a heading
   repeated with its text); words that several unrelated sections hold (a common word) are
   listed unresolved rather than taken to stand for all of those sections.

What does not resolve (unknown document, too little overlap, a source that cannot be read)
is listed in the report with the reason, and scored as matching nothing: never guessed.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

from evalset.corpus import sectioner_for
from evalset.corpus.encoding import decode
from evalset.corpus.manifest import Snapshot
from evalset.corpus.outline import DocumentView, Outlines, Part
from evalset.corpus.reading import parse_document
from evalset.corpus.revision import git_blobs, git_name
from evalset.corpus.sections import normalise
from evalset.score.runfile import Chunk
from evalset.sets.citations import Citation

OVERLAP = 0.8
"""Share of a chunk's word trigrams a section must hold, at least, for the chunk to resolve to
it when its text is not found exactly (the sections holding the largest share win)."""
_SPACELESS = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff"  # Thai, Lao, Myanmar, Khmer
    "\u3005-\u3007\u3040-\u312f\u3190-\u31ff"  # kana, bopomofo, 々〆〇
    "\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff"  # Han
)
"""Scripts written without spaces between words, whose characters count as words."""
_WORD = re.compile(r"\w+")
_SPACELESS_WORD = re.compile(f"[^\\W{_SPACELESS}]+|[{_SPACELESS}](?<=\\w)")
_HAS_SPACELESS = re.compile(f"[{_SPACELESS}]")


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


def _words(text: str, spaceless: bool | None = None) -> list[str]:
    """The lower-case words of ``text``; each character of a script written without spaces
    between words (Chinese, Japanese, Thai, ...) is a word of its own. ``spaceless`` says
    whether ``text`` may hold such characters, when the caller knows (else it is looked at:
    the two ways read any other text alike, the common one faster)."""
    text = text.lower()
    if spaceless is None:
        spaceless = _HAS_SPACELESS.search(text) is not None
    return (_SPACELESS_WORD if spaceless else _WORD).findall(text)


def _grams(words: list[str], n: int) -> set[tuple[str, ...]]:
    """The runs of ``n`` consecutive words."""
    if n == 3:
        return set(zip(words, words[1:], words[2:], strict=False))
    if n == 2:
        return set(pairwise(words))
    return {(w,) for w in words}


class Resolver:
    """Resolves chunks against one snapshot; results are remembered per (doc, text)."""

    def __init__(self, outlines: Outlines) -> None:
        self.outlines = outlines
        self._memo: dict[tuple[str, str], Resolution] = {}
        self._sources: dict[str, str | None] = {}
        self._grams: dict[tuple[str, int], dict[str, set[tuple[str, ...]]]] = {}
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
        source = self.source(chunk.doc)
        if source is None:
            self._unread(chunk.doc)
            why = self.outlines.unreadable.get(chunk.doc) or (
                f"the source of {chunk.doc} as snapshot "
                f"{self.snapshot.short if self.snapshot else '-'} saw it could not be read"
            )
            return Resolution((), f"unresolved: {why}")
        if chunk.end > len(source):
            return Resolution(
                (), f"unresolved: the span ends at {chunk.end}, past the document's end "
                f"({len(source)} characters)"
            )  # fmt: skip
        return self.resolve(Chunk(chunk.doc, text=source[chunk.start : chunk.end]))

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
        words = _words(text)
        if not words:
            return Resolution((), "unresolved: the chunk has no words")
        n = min(len(words), 3)
        wanted = _grams(words, n)
        grams = self._grams.get((view.doc, n))
        if grams is None:
            spaceless = _HAS_SPACELESS.search(view.text) is not None  # for all its sections
            grams = {p.id: _grams(_words(p.key, spaceless), n) for p in view.by_size}
            grams[""] = _grams(_words(view.text, spaceless), n)
            self._grams[view.doc, n] = grams
        held = [(part, len(wanted & grams[part.id])) for part in view.by_size]
        most = max((count for _, count in held), default=0)
        whole = len(wanted & grams[""])
        if max(most, whole) / len(wanted) < OVERLAP:
            if n < 3:
                why = "its word" if len(words) == 1 else "its words, one after the other"
                return Resolution(
                    (), f"unresolved: not found in {view.doc}, and no section holds {why}"
                )
            return Resolution(
                (),
                f"unresolved: not found in {view.doc}, and no section holds {OVERLAP:.0%} of "
                f"its word trigrams (best {max(most, whole) / len(wanted):.0%})",
            )
        if whole > most:  # across top-level sections (or before the first heading)
            return Resolution((Citation(view.doc),), "overlap")
        minimal = _minimal(view, [part for part, count in held if count == most])
        if n < 3 and len({part.key for part in minimal}) > 1:
            which = "its word is" if len(words) == 1 else "its words are"
            return Resolution(
                (),
                f"unresolved: not found in {view.doc}, and {which} in {len(minimal)} unrelated "
                "sections: too few words to tell which",
            )
        return Resolution(tuple(Citation(view.doc, p.id) for p in minimal), "overlap")

    def source(self, doc: str) -> str | None:
        """The document's source text as the snapshot saw it (working tree, else git at the
        snapshot's commit), when it hashes to what the snapshot recorded."""
        if doc in self._sources:
            return self._sources[doc]
        found = self._sources[doc] = self._source(doc)
        return found

    def _source(self, doc: str) -> str | None:
        snap, root = self.snapshot, self.outlines.root
        entry = snap.documents.get(doc) if snap is not None else None
        if snap is None or entry is None:
            if snap is not None:
                self.outlines.unreadable[doc] = f"it is not in snapshot {snap.short}"
            return None
        if root is None:
            return None
        candidates: list[bytes] = []
        path = root / snap.corpus / doc
        if path.is_file():
            candidates.append(path.read_bytes())
        if snap.commit:
            name = git_name(snap.commit, snap.corpus, doc)
            blob = git_blobs(root, [name]).get(name)
            if blob is not None:
                candidates.append(blob)
        for data in candidates:
            parsed = parse_document(doc, data, snap.hash_mode, False)
            if parsed.entry is not None and parsed.entry["hash"] == entry["hash"]:
                return decode(doc, data)[0] or ""
        return None


def _containing(view: DocumentView, text: str) -> tuple[Citation, ...] | None:
    """The most specific sections whose heading and text contain ``text``; the document
    when only its whole text does; None when not even that."""
    if not text or text not in view.text:
        return None
    holding = [p for p in view.by_size if text in p.key]
    if not holding:
        return (Citation(view.doc),)
    return tuple(Citation(view.doc, p.id) for p in _minimal(view, holding))


def _minimal(view: DocumentView, holding: list[Part]) -> list[Part]:
    """The sections of ``holding`` (shortest first, and not empty) that hold none of the
    others: a section is not minimal when a shorter one of them lies inside it."""
    minimal = [holding[0]]
    for p in holding[1:]:
        if not any(_inside(view, q, p) for q in minimal):
            minimal.append(p)
    return minimal


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
