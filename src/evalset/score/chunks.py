"""Chunks to citations: which section of the run's snapshot a retrieved chunk comes from.

A retriever that knows nothing of anchors returns chunks: a document and a piece of its text
(``{"doc": ..., "text": ...}``), or a span of the document's source (``{"doc": ...,
"start": ..., "end": ...}``). A chunk stands for the most specific section that holds it:

1. **exact**: its text, normalised as snapshots normalise text (Unicode NFC, white space
   collapsed), and failing that rendered as the document's format renders it (markup
   removed), occurs in the section's heading and text (a text of one or two words as whole
   words: ``30 days`` is not in "130 days"). The most specific such section wins;
   when the same passage is in two unrelated sections (as the snapshot's outline places
   them, ``DocumentView.within``), the chunk stands for both, unless it is one or two words
   (``the``), which say nothing of which one was meant: unresolved, as in step 3. A chunk
   that lies before the first heading, or spans two top-level sections, stands for the
   whole document.
2. **position**: for a span of a markdown or HTML document not found so (cut inside a
   link, a tag, front matter or a page's head), where it lies in the source: the most
   specific section whose source range (from its heading to the next heading of the same or
   a higher level) holds it, else the document. Only where the source's sections are
   exactly the snapshot's (ids, titles, levels and text hashes), headings matched to them
   in order.
3. **overlap**: otherwise (text cleaned or reflowed by the retriever, or slightly different
   from the snapshot), the chunk is compared by its words: case-folded runs of letters and
   digits in Unicode's compatibility form (NFKC: ``ﬁ`` is ``fi``), where each character of
   a script written without spaces between words (Chinese, Japanese, Thai, Lao, Khmer,
   Myanmar) is a word of its own, so that a passage whose lines
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

   A chunk given as text that does not resolve so either, but occurs verbatim exactly
   once in the source, is placed by its position (step 2).

A span is the text at its offsets in the document's source as the snapshot saw it
(``Resolver.sources``): the working-tree file or the file at the snapshot's commit, when it
hashes as the snapshot recorded, and a text with CRLF line ends read with each as one
character too. Where several readings hold the span but read other text at it (they differ
in bytes the hash leaves out, which the snapshot does not record, or count line ends
otherwise) that stands for other sections, the span is unresolved.

What does not resolve (unknown document, too little overlap, a source that cannot be read,
sources that disagree at a span) is listed in the report with the reason, and scored as
matching nothing: never guessed.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass
from itertools import pairwise
from pathlib import Path

import regex

from evalset.corpus import sectioner_for
from evalset.corpus.encoding import decode
from evalset.corpus.manifest import Snapshot, hash_text
from evalset.corpus.outline import DocumentView, Outlines, Part
from evalset.corpus.reading import parse_document
from evalset.corpus.revision import git_file, working_file
from evalset.corpus.sections import INVISIBLE, SHOWS_NOTHING, normalise
from evalset.fsio import read_found
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
# Words are found with ``regex``, whose ``\w`` holds the combining marks that carry the
# vowels of Devanagari, Tamil or Bengali words (and Arabic's harakat): ``re``'s split
# "हिन्दी" into three words, so a one-word chunk of such a script escaped the rule for a word
# or two. ASCII text, which has no marks, is read with ``re``'s, faster.
_ASCII_WORD = re.compile(r"\w+")
_WORD = regex.compile(r"\w+")
_SPACELESS_WORD = regex.compile(f"[^\\W{_SPACELESS}]+|[{_SPACELESS}](?<=\\w)")
_HAS_SPACELESS = re.compile(f"[{_SPACELESS}]")
_THREE_WORDS = regex.compile(f"(?:\\W*+(?:[^\\W{_SPACELESS}]++|[{_SPACELESS}])){{3}}")
"""Matches the start of a text of three words or more (as ``_words`` finds them)."""
_WORD_END = regex.compile(f"[^\\W{_SPACELESS}]")
"""A character that a longer word may go on from: a word's, not of a script without spaces."""
_FOUND = frozenset(("exact", "rendered", "position"))
"""How a chunk's text resolved without a guess: a span's position is not looked at then."""


@dataclass(frozen=True)
class Resolution:
    """What a chunk stands for: citations (empty when unresolved), and how or why not."""

    citations: tuple[Citation, ...]
    how: str
    """``exact``, ``rendered`` (found once its markup was removed), ``position`` (placed by
    where it lies in the source), ``overlap``, or the reason it did not resolve."""

    @property
    def resolved(self) -> bool:
        return bool(self.citations)


def _words(text: str, spaceless: bool | None = None) -> list[str]:
    """The words of ``text``, case folded in Unicode's compatibility form (NFKC: a ligature
    ``ﬁ`` is ``fi``, a full-width ``\uff21`` an ``a``, half-width katakana full-width), so that
    text cleaned by a retriever reads as the snapshot's, and the reverse; a character that
    shows nothing does not split a word (``SHOWS_NOTHING``: a soft hyphen, a zero-width
    space, a word joiner, a byte-order mark, which web pages and PDFs leave in words). Each
    character of a script written without spaces between words (Chinese, Japanese, Thai,
    ...) is a word of its own.
    ``spaceless`` says whether ``text`` may hold such characters, when the caller knows (else
    it is looked at: the two ways read any other text alike, the common one faster)."""
    if text.isascii():  # (NFKC changes no ASCII text, and casefold is lower there)
        return _ASCII_WORD.findall(text.lower())
    if any(mark in text for mark in SHOWS_NOTHING):  # (they are rare: looked for first)
        text = INVISIBLE.sub("", text)
    text = unicodedata.normalize("NFKC", text).casefold()
    if spaceless is None:
        spaceless = _HAS_SPACELESS.search(text) is not None
    found: list[str] = (_SPACELESS_WORD if spaceless else _WORD).findall(text)
    return found


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
        self._sources: dict[str, dict[str, str]] = {}
        self._grams: dict[tuple[str, int], dict[str, set[tuple[str, ...]]]] = {}
        self._outline: dict[tuple[str, str], list[tuple[int, int, str]] | None] = {}
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
        holding = {n: t for n, t in sources.items() if end <= len(t)}  # (a text too short
        if not holding:  # for the span is not the one its offsets count in)
            return Resolution(
                (), f"unresolved: the span ends at {end}, past the document's end "
                f"({max(map(len, sources.values()))} characters)"
            )  # fmt: skip
        if len({text[start:end] for text in holding.values()}) > 1:  # the sources read
            readings = [  # other text there: resolved only where every reading resolves,
                self._span(chunk.doc, {n: t}, start, end)  # and to the same sections (by
                for n, t in holding.items()  # its text in one, by its place in another)
            ]
            if readings[0].resolved and len({r.citations for r in readings}) == 1:
                return readings[0]
            return Resolution((), f"unresolved: {self._differ(chunk.doc, holding)}")
        return self._span(chunk.doc, holding, start, end)

    def _span(self, doc: str, sources: dict[str, str], start: int, end: int) -> Resolution:
        """A span of ``sources``, which read the same text there."""
        text = next(iter(sources.values()))[start:end]
        found = self.resolve(Chunk(doc, text=text))
        if not text.strip():
            return found
        # where it lies tells which of the sections holding its text it is (a passage in
        # two sections, or in a section and a subsection of it), and places what its text
        # does not find; the text's own answer stands where the place is not known, or is
        # a section that does not hold the text (then the two readings disagree)
        placed = self._placed(doc, sources, lambda _: (start, end))
        if placed is not None and (found.how not in _FOUND or self._holds(doc, placed, text)):
            return Resolution(placed, "position")
        return found

    def _holds(self, doc: str, cited: tuple[Citation, ...], raw: str) -> bool:
        """Whether each of the sections (or the document) holds ``raw``'s text, as written
        or as its format renders it (a span of HTML source holds tags)."""
        view = self.outlines.view(doc)
        if view is None:
            return False

        def held(text: str) -> bool:
            return bool(text) and all(
                text in view.text if c.section is None else text in _key(view, c.section)
                for c in cited
            )

        # as written first: rendering a fragment runs the document's sectioner on it
        return held(normalise(raw)) or held(self._rendered(doc, raw))

    def _differ(self, doc: str, sources: dict[str, str]) -> str:
        """Why a span of a document whose sources disagree at the span is not resolved."""
        snap = self.snapshot
        assert snap is not None
        if len({text.replace("\r\n", "\n") for text in sources.values()}) == 1:
            return (
                f"{doc} has CRLF line ends, and the span's offsets read other text counting "
                "each as two characters (as a binary read or Node counts them) than as one "
                "(as Python's text mode reads the file), which stands for other sections, so "
                "it is not guessed; give the chunk as text"
            )
        left_out = "markup such as link targets, " if snap.hash_mode == "rendered" else ""
        return (
            f"the source of {doc} differs between {' and '.join(sources)} in bytes that "
            f"snapshot {snap.short} does not record (its hash leaves out {left_out}line "
            "breaks and line ends), and the span's offsets read other text in each, which "
            "stands for other sections, so it is not guessed; restore the file from that "
            "commit, or commit it and take a new snapshot, so that the two agree, or give "
            "the chunk as text"
        )

    def _text(self, doc: str, raw: str) -> Resolution:
        view = self.outlines.view(doc)
        if view is None:
            self._unread(doc)
            return Resolution((), f"unresolved: {self.outlines.unreadable[doc]}")
        text = normalise(raw)
        found = _containing(view, text)
        if found is not None:
            return _unless_too_few_words(view, text, found, "exact")
        rendered = self._rendered(doc, raw)
        if rendered and rendered != text:
            found = _containing(view, rendered)
            if found is not None:
                return _unless_too_few_words(view, rendered, found, "rendered")
        overlap = self._overlap(view, rendered or text)
        if overlap.resolved:
            return overlap
        # (only now: reading the source costs a git call per document)
        placed = self._placed(doc, self.sources(doc), lambda source: _once(source, raw))
        return overlap if placed is None else Resolution(placed, "position")

    def _placed(
        self,
        doc: str,
        sources: dict[str, str],
        where: Callable[[str], tuple[int, int] | None],
    ) -> tuple[Citation, ...] | None:
        """What a chunk stands for by where it lies in the document's source (``where``
        finds it in one source text): the most specific section whose source range holds
        it, or the document when none does. None when a source cannot be so read (neither
        markdown nor HTML, or its sections are not exactly the snapshot's), when the chunk
        is found in none, or when the sources place it differently."""
        from evalset.corpus import html  # (only for a chunk not found exactly)

        page = sectioner_for(doc) is html.sections
        placed: set[tuple[Citation, ...]] = set()
        for name, text in sources.items():
            at = _trimmed(text, where(text), page)
            if at is None:  # a text chunk not in this source (its line ends), or blank
                continue
            ranges = self._ranges(doc, name, text)
            if ranges is None:
                return None
            inner = max(
                ((s, ident) for s, e, ident in ranges if s <= at[0] and at[1] <= e), default=None
            )
            placed.add((Citation(doc, inner[1]),) if inner else (Citation(doc),))
        return placed.pop() if len(placed) == 1 else None

    def _ranges(self, doc: str, name: str, text: str) -> list[tuple[int, int, str]] | None:
        """Where each section of the document lies in one of its source texts (``name``:
        where it was found), as character ranges from its heading to the next heading of
        the same or a higher level: for markdown or HTML whose sections (ids, titles, levels and
        text) are exactly those the snapshot recorded, headings matched to them in order;
        else None."""
        key = (doc, name)
        if key in self._outline:
            return self._outline[key]
        found = self._outline[key] = self._read_ranges(doc, text)
        return found

    def _read_ranges(self, doc: str, text: str) -> list[tuple[int, int, str]] | None:
        from evalset.corpus import html, markdown  # (only for a chunk not found exactly)

        snap = self.snapshot
        entry = snap.documents.get(doc) if snap is not None else None
        sectioner = sectioner_for(doc)
        formats = {markdown.sections: markdown.heading_ranges, html.sections: html.heading_ranges}
        if snap is None or entry is None or sectioner not in formats:
            return None
        assert sectioner is not None
        try:
            parsed = sectioner(text, snap.hash_mode).sections
        except Exception:  # (as the snapshot read it, it sectioned)
            return None
        recorded = entry["sections"]
        if parsed.keys() != recorded.keys():
            return None
        for ident, section in parsed.items():
            want = recorded[ident]
            if (want.get("title"), want.get("level"), want.get("hash")) != (
                section.title, section.level, hash_text(section.text)
            ):  # fmt: skip
                return None
        named = list(parsed.items())
        found: list[tuple[int, int, str]] = []
        for start, end, level, title in formats[sectioner](text):
            if len(found) < len(named):
                ident, section = named[len(found)]
                if section.title == title and section.level == level:
                    found.append((start, end, ident))
        return found if len(found) == len(named) else None

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
            read = view.text if view.text.isascii() else unicodedata.normalize("NFKC", view.text)
            spaceless = _HAS_SPACELESS.search(read) is not None  # for all its sections, as
            # ``_words`` reads them (in NFKC, where "㊙" is an ideograph)
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

    def sources(self, doc: str) -> dict[str, str]:
        """The document's source texts that may be what the snapshot read, by where they
        were found (the working-tree file, the file at the snapshot's commit in git, each
        under its name in either Unicode form): those that hash as the snapshot recorded,
        one per distinct text. Empty when none does. More than one when the two differ in
        bytes the snapshot's hash leaves out (in the default rendered mode: link targets,
        line breaks, line ends), which offsets count; and a text with CRLF line ends (saved
        so, or checked out so by git's ``core.autocrlf``) is read twice: as it is, each line
        end two characters, and with each as one, as Python's text mode reads it."""
        found = self._sources.get(doc)
        if found is None:
            found = self._sources[doc] = self._source(doc)
        return found

    def _source(self, doc: str) -> dict[str, str]:
        snap, root = self.snapshot, self.outlines.root
        entry = snap.documents.get(doc) if snap is not None else None
        if snap is None or entry is None:
            if snap is not None:
                self.outlines.unreadable[doc] = self.outlines.absent(doc)
            return {}
        if root is None:
            return {}
        candidates: dict[str, tuple[str, bytes]] = {}
        data = _read(root / snap.corpus / doc) or working_file(root, snap.corpus, doc)
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
        for where, text in list(found.items()):
            if "\r\n" in text and (lf := text.replace("\r\n", "\n")) not in found.values():
                # offsets counted as Python's text mode reads the file (most retrievers'
                # loaders), where a binary read or Node counts both characters
                found[f"{where} with its CRLF line ends as one character"] = lf
        return found


def _read(path: Path) -> bytes | None:
    """The bytes of a file at the path the document's id names, if one is there: what the
    snapshot's hash then checks (``working_file`` finds it by the walk's rules, its name in
    another Unicode form too, at the cost of resolving the corpus folder's real path)."""
    try:
        return read_found(path)  # (never a FIFO, which would wait: read as none)
    except OSError:
        return None


def _trimmed(text: str, at: tuple[int, int] | None, page: bool = False) -> tuple[int, int] | None:
    """``at`` (a range of ``text``) without the white space at its ends: the blank lines
    before a heading lie in the range of the section before it, and a chunk starting with
    them is no part of that section (the exact step ignores them too). Of an HTML ``page``,
    without the part of a tag at either end either (the ``>`` that ends the section before,
    the ``<`` that starts the next one's heading): markup, as a lone ``#`` is in markdown,
    unless the range is all within a tag. None when nothing is left."""
    if at is None:
        return None
    start, end = at
    if page:
        close, open_ = text.find(">", start, end), text.find("<", start, end)
        if close >= 0 and (open_ < 0 or close < open_):  # the end of a tag begun before
            start = close + 1
        last_open, last_close = text.rfind("<", start, end), text.rfind(">", start, end)
        if last_open > last_close:  # the start of a tag ending after
            end = last_open
        if not text[start:end].strip():
            start, end = at
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return (start, end) if start < end else None


def _once(source: str, raw: str) -> tuple[int, int] | None:
    """Where ``raw`` occurs in ``source`` (a word or two as whole words: ``_whole``), when it
    occurs exactly once."""
    at = source.find(raw)
    if at < 0:
        return None
    whole = _whole(raw)
    if whole is not None:
        found = whole.finditer(source)
        first = next(found, None)
        return None if first is None or next(found, None) else first.span()
    if source.find(raw, at + 1) >= 0:
        return None
    return at, at + len(raw)


def _key(view: DocumentView, section: str) -> str:
    """A section's heading and text as the view holds them ("" for a section it has not)."""
    part = view.parts.get(section)
    return part.key if part is not None else ""


def _whole(text: str) -> regex.Pattern[str] | None:
    """For a text of one or two words, a pattern finding it only as whole words: not within
    a longer word at either end (``30 days`` is not in "130 days"), unless that end is a
    character of a script written without spaces, a word of its own. None for a text of
    three words or more, found as written however cut (a chunker cuts inside words), or one
    whose ends are no word's."""
    if not text or _THREE_WORDS.match(text):
        return None
    before = _WORD_END.match(text[0]) is not None
    after = _WORD_END.match(text[-1]) is not None
    if not (before or after):
        return None
    return regex.compile(
        ("(?<!\\w)" if before else "") + regex.escape(text) + ("(?!\\w)" if after else "")
    )


def _containing(view: DocumentView, text: str) -> tuple[Citation, ...] | None:
    """The most specific sections whose heading and text contain ``text`` (a word or two as
    whole words: ``_whole``); the document when only its whole text does; None when not
    even that."""
    if not text or text not in view.text:
        return None
    whole = _whole(text)
    if whole is not None and not whole.search(view.text):
        return None
    holding = [p for p in view.by_size if text in p.key and (whole is None or whole.search(p.key))]
    if not holding:
        return (Citation(view.doc),)
    return tuple(Citation(view.doc, p.id) for p in _minimal(view, holding))


def _unless_too_few_words(
    view: DocumentView, text: str, found: tuple[Citation, ...], how: str
) -> Resolution:
    """What a chunk found as written (``how``) stands for: ``found``, unless it is one or two
    words that several unrelated sections hold (a common word, "the", or "business days"),
    which say nothing of which one the retriever meant: unresolved then, as such a chunk
    found by its words is. Sections alike in heading and text (one repeated) are one."""
    if len(found) < 2 or len(_words(text)) >= 3:
        return Resolution(found, how)
    if len({view.parts[c.section].key for c in found if c.section is not None}) < 2:
        return Resolution(found, how)
    which = "its word is" if len(_words(text)) == 1 else "its words are"
    return Resolution(
        (),
        f"unresolved: {which} in {len(found)} unrelated sections of {view.doc}: too few words "
        "to tell which",
    )


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
