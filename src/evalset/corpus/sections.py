"""What every sectioner shares: the ``Sections`` it returns, text normalisation, GitHub's
anchor slugs, and the section ranges of a document's headings.

A sectioner turns a document's text into ``Sections``: the normalised rendered text of the
whole document and, per section id (the anchor a person copies from the rendered page), its
title, level and normalised text.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Literal

from evalset.corpus.names import nfc

HashMode = Literal["rendered", "source"]

SECTIONING_VERSION = 8
"""Bumped whenever sectioning or normalisation changes what a document hashes to, so that
cached results of an older version are never reused (5: a Git LFS pointer is refused, never
read as a document; UTF-16 with a byte-order mark and HTML in its declared encoding are
read, no longer skipped or garbled; 6: soft hyphens and zero-width spaces are left out;
7: a markdown file's lone carriage returns end its lines in every construct; 8: an HTML
heading's own id is its anchor even where an anchor made from an earlier title equals it)."""


@dataclass(slots=True)
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
    unanchored: tuple[str, ...] = ()
    """Titles of headings that give no anchor (no letter or digit: ``!!!``, an emoji), whose
    sections no citation can name; a snapshot warns of them."""


Sectioner = Callable[[str, HashMode], Sections]

INLINE_ELEMENTS = frozenset(
    ("a", "abbr", "b", "bdi", "bdo", "cite", "code", "data", "dfn", "em", "i", "img", "ins",
     "kbd", "label", "mark", "q", "samp", "small", "span", "strong", "sub", "sup", "time",
     "u", "var", "wbr")
)  # fmt: skip
"""HTML elements within a line of text: their tags are no word boundary (``Re<wbr>turns``,
``10<sup>th</sup>``, as a browser shows them), in an HTML file and in a markdown file's raw
HTML alike."""
STRUCK_ELEMENTS = frozenset(("del", "s", "strike"))
"""Elements whose text is struck out (markdown's ``~~`` renders as ``del``): what the author
marked as removed or no longer true, so not text, as an image's alt text is not. Within a
line, like the inline elements: ``5<del>0</del>0`` reads ``50``. Striking a word, or
unstriking it, changes the text."""


SHOWS_NOTHING = "\u00ad\u200b\u2060\ufeff"
"""Characters that only say where a line may break or a word be hyphenated, and render as
nothing: the soft hyphen (``&shy;``), the zero-width space (what ``<wbr>`` is, as text), the
word joiner and the zero-width no-break space (a byte-order mark inside a text). Adding or
removing them is formatting, never wording, so text is compared without them. The joiners
U+200C and U+200D are kept: they change how Persian, Indic scripts and emoji render."""
INVISIBLE = re.compile(f"[{SHOWS_NOTHING}]")
"""``SHOWS_NOTHING`` as a pattern."""


def normalise(text: str) -> str:
    """Unicode NFC without the characters that render as nothing (``INVISIBLE``), with every
    run of white space collapsed to one space, trimmed."""
    if not text.isascii():
        text = INVISIBLE.sub("", unicodedata.normalize("NFC", text))
    return " ".join(text.split())


def _keeps(ch: str) -> bool:
    return ch in " -_" or unicodedata.category(ch)[0] in "LMN"


_ASCII_DROP = bytes(c for c in range(128) if not (chr(c).isalnum() or chr(c) in " -_\n"))
"""The ASCII characters a slug drops (of lower-case text), for ``bytes.translate``, which
deletes them in one C pass; a regex over the same text takes ten times as long."""
_ASCII_OTHER_SPACES = bytes(c for c in range(128) if chr(c).isspace() and chr(c) not in " \n")


def slugify(title: str) -> str:
    """GitHub's anchor for a heading's rendered text: lower case, every character that is not
    a letter, digit, space, '-' or '_' dropped, each space turned into '-'."""
    lowered = title.strip().lower()
    if lowered.isascii():
        kept = lowered.encode().translate(None, _ASCII_DROP).decode()
        return kept.replace("\n", "").replace(" ", "-")
    return "".join(ch for ch in lowered if _keeps(ch)).replace(" ", "-")


def slugify_all(titles: list[str]) -> list[str]:
    """``slugify`` of each title: in one pass over them all when they are ASCII, have no
    white space at either end and hold no new line (as normalised titles do)."""
    lowered = "\n".join(titles).lower()
    if titles and lowered.isascii() and lowered.count("\n") == len(titles) - 1:
        data = lowered.encode()
        edges = lowered[:1] == " " or lowered[-1:] == " " or "\n " in lowered or " \n" in lowered
        if not edges and len(data.translate(None, _ASCII_OTHER_SPACES)) == len(data):
            return data.translate(None, _ASCII_DROP).decode().replace(" ", "-").split("\n")
    return [slugify(title) for title in titles]


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


Headed = list[tuple[str, int, str, str]]
"""A document's headings in order: (title, level, explicit anchor or '', own text), where own
text is the normalised text between the heading and the next heading of any level."""


def document_sections(preamble: str, headed: Headed, slugger: Slugger | None = None) -> Sections:
    """The whole document's normalised text, and its sections.

    A section runs to the next heading of the same or a higher level, so its text is its own
    text followed by every deeper heading's title and own text. The document text is joined
    once and each section's text is one slice of it; a stack of open headings finds where
    each one ends, in one pass."""
    pieces = [preamble] if preamble else []
    pos = len(preamble)
    starts: list[int] = []  # per heading, where its text starts in the document text
    stops = [0] * len(headed)  # and where its section ends
    open_levels: list[int] = []  # the open headings, levels increasing
    open_index: list[int] = []
    for i, (title, level, _, own) in enumerate(headed):
        while open_levels and open_levels[-1] >= level:
            open_levels.pop()
            stops[open_index.pop()] = pos
        if title:
            pos += len(title) + (1 if pieces else 0)
            pieces.append(title)
        starts.append(pos)
        if own:
            pos += len(own) + (1 if pieces else 0)
            pieces.append(own)
        open_levels.append(level)
        open_index.append(i)
    for i in open_index:
        stops[i] = pos
    whole = " ".join(pieces)
    slugs = slugify_all([title for title, _, _, _ in headed])
    given = [nfc(heading[2]) for heading in headed]  # the headings' own ids ('' for none)
    bases = [anchor or slug for anchor, slug in zip(given, slugs, strict=True)]
    if slugger is not None or len(set(bases)) < len(bases):
        slugger = slugger or Slugger()
        # A heading's own id is where a browser goes for that anchor, wherever the heading
        # is: each is kept (its first heading's), and an anchor made from a title that
        # equals one is numbered, as a repeat is (a `<h2>FAQ</h2>` before `<h2 id="faq">`
        # is `faq-1`, not `faq`, which names the other heading in the page).
        slugger.seen.update(dict.fromkeys(filter(None, given), 0))
        kept: set[str] = set()
        for k, anchor in enumerate(given):
            if anchor and anchor not in kept:
                kept.add(anchor)
            else:
                bases[k] = slugger(bases[k])
    # else: no anchor repeats, and the Slugger would give each one as it is
    sections: dict[str, Section] = {}
    unanchored: list[str] = []  # as on GitHub, the first heading of no letter or digit has
    for (title, level, _, _), ident, start, stop in zip(headed, bases, starts, stops, strict=True):
        if ident:  # the empty anchor (the page's top); the next ones are `-1`, `-2`, ...
            text = whole[start + (start > 0) : stop] if stop > start else ""
            sections[ident] = Section(title, level, text)
        else:
            unanchored.append(title)
    return Sections(whole, sections, tuple(unanchored))


def source_ranges(starts: list[int], levels: list[int], length: int) -> list[tuple[int, int]]:
    """Per heading (where it starts in a document's source, and its level, in the order of
    the document), its section's range of the source: from the heading to the next heading
    of the same or a higher level, else the end (``length``)."""
    ends = [length] * len(starts)
    open_: list[int] = []  # the headings whose section runs on, levels increasing
    for k, level in enumerate(levels):
        while open_ and levels[open_[-1]] >= level:
            ends[open_.pop()] = starts[k]
        open_.append(k)
    return list(zip(starts, ends, strict=True))
