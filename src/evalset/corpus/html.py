"""HTML sections: ``h1``-``h6``; a section's id is the element's ``id`` attribute if it has
one, else the slug of its text. Scripts, styles and the document head are not content."""

from __future__ import annotations

from collections.abc import Callable
from html.parser import HTMLParser

from evalset.corpus.sections import (
    INLINE_ELEMENTS,
    STRUCK_ELEMENTS,
    HashMode,
    Sections,
    document_sections,
    normalise,
    source_ranges,
)

_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_HIDDEN = frozenset(("script", "style", "template", "noscript", "title"))
"""Never shown: a ``title`` neither, even where a page without a ``<head>`` tag puts it."""
_IN_HEAD = frozenset(("title", "base", "link", "meta", "style", "script", "noscript", "template"))
"""What a document's head holds; any other element ends it, as in a browser, and so does
text other than white space: its end tag, ``</head>``, may be left out (HTML5), and the
body is content all the same."""
_WITHIN_LINE = INLINE_ELEMENTS | STRUCK_ELEMENTS


class _Splitter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.preamble: list[str] = []
        self.headings: list[tuple[list[str], int, str, list[str]]] = []
        self.body = self.preamble
        self.title: list[str] | None = None
        self.hidden = 0
        self.struck = 0
        self.head = False
        self.spans: list[list[tuple[int, int]]] = []
        """Per heading, where its start tag begins and its end tag ends: (line, column)."""

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "head":
            self.head = True
            return
        if self.head and tag not in _IN_HEAD:
            self.head = False  # the head ends where the body's content begins
        if tag in _HIDDEN:
            self.hidden += 1
        elif tag in _HEADINGS and not self.hidden:
            anchor = next((v for k, v in attrs if k == "id" and v), "")
            self.title = []
            self.headings.append((self.title, _HEADINGS[tag], anchor, []))
            self.spans.append([self.getpos()])
        elif tag in STRUCK_ELEMENTS:
            self.struck += 1
        elif tag not in INLINE_ELEMENTS:
            self._out().append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "head":
            self.head = False
        elif tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in _HEADINGS and self.title is not None:
            self.title = None
            self.body = self.headings[-1][3]
            self.spans[-1].append(self.getpos())
        elif tag in STRUCK_ELEMENTS:
            self.struck = max(0, self.struck - 1)
        elif tag not in _WITHIN_LINE:
            self._out().append(" ")

    def handle_data(self, data: str) -> None:
        if self.head and not self.hidden and not data.isspace():
            self.head = False  # text is the body's: a browser ends the head before it
        if not self.hidden and not self.head and not self.struck:
            self._out().append(data)

    def _out(self) -> list[str]:
        return self.body if self.title is None else self.title


def sections(text: str, mode: HashMode = "rendered") -> Sections:
    parser = _Splitter()
    parser.feed(text)
    parser.close()
    headed = [
        (normalise("".join(title)), level, anchor, normalise("".join(body)))
        for title, level, anchor, body in parser.headings
    ]
    if mode == "source":
        owns = _source_owns(text, parser, headed)
        parts = document_sections("", owns)
        return Sections(normalise(text), parts.sections, parts.unanchored)
    return document_sections(normalise("".join(parser.preamble)), headed)


def heading_ranges(text: str) -> list[tuple[int, int, int, str]]:
    """Per heading, in the order of the document: where its section's source starts and
    ends (character offsets into ``text``: from the heading's start tag to the start tag of
    the next heading of the same or a higher level, else the end), its level and its title,
    as ``sections`` reads them."""
    parser = _Splitter()
    parser.feed(text)
    parser.close()
    offset = _offsets(text)
    starts = [offset(span[0]) for span in parser.spans]
    levels = [level for _, level, _, _ in parser.headings]
    return [
        (start, end, level, normalise("".join(title)))
        for (start, end), (title, level, _, _) in zip(
            source_ranges(starts, levels, len(text)), parser.headings, strict=True
        )
    ]


def _offsets(text: str) -> Callable[[tuple[int, int]], int]:
    """The character offset into ``text`` of a position as the parser gives it (line from 1,
    column), lines counted at each line feed, as the parser counts them."""
    starts = [0]  # where each line begins
    for line in text.split("\n"):
        starts.append(starts[-1] + len(line) + 1)

    def offset(at: tuple[int, int]) -> int:
        return starts[at[0] - 1] + at[1]

    return offset


def _source_owns(
    text: str, parser: _Splitter, headed: list[tuple[str, int, str, str]]
) -> list[tuple[str, int, str, str]]:
    """The headings with, for their own text, their white-space-normalised source (config
    ``hash = "source"``): from the end of the heading's end tag to the next heading's start
    tag, as a markdown section's source runs from its heading line to the next."""
    offset = _offsets(text)
    owns = []
    for k, (title, level, anchor, _) in enumerate(headed):
        span = parser.spans[k]
        begin = text.find(">", offset(span[1])) + 1 if len(span) > 1 else offset(span[0])
        stop = offset(parser.spans[k + 1][0]) if k + 1 < len(headed) else len(text)
        owns.append((title, level, anchor, normalise(text[begin:stop])))
    return owns
