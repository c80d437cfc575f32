"""HTML sections: ``h1``-``h6``; a section's id is the element's ``id`` attribute if it has
one, else the slug of its text. Scripts, styles and the document head are not content."""

from __future__ import annotations

from html.parser import HTMLParser

from evalset.corpus.sections import HashMode, Sections, document_sections, normalise

_HEADINGS = {f"h{n}": n for n in range(1, 7)}
_HIDDEN = frozenset(("script", "style", "template", "noscript", "title"))
"""Never shown: a ``title`` neither, even where a page without a ``<head>`` tag puts it."""
_IN_HEAD = frozenset(("title", "base", "link", "meta", "style", "script", "noscript", "template"))
"""What a document's head holds; any other element ends it, as in a browser, and so does
text other than white space: its end tag, ``</head>``, may be left out (HTML5), and the
body is content all the same."""
_INLINE = frozenset(
    (
        "a",
        "abbr",
        "b",
        "bdi",
        "bdo",
        "cite",
        "code",
        "data",
        "del",
        "dfn",
        "em",
        "i",
        "img",
        "ins",
        "kbd",
        "label",
        "mark",
        "q",
        "s",
        "samp",
        "small",
        "span",
        "strong",
        "sub",
        "sup",
        "time",
        "u",
        "var",
        "wbr",
    )
)
"""Elements within a line of text: their tags are no word boundary (``Re<wbr>turns``,
``5<del>0</del>``, as a browser shows them)."""


class _Splitter(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.preamble: list[str] = []
        self.headings: list[tuple[list[str], int, str, list[str]]] = []
        self.body = self.preamble
        self.title: list[str] | None = None
        self.hidden = 0
        self.head = False

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
        elif tag not in _INLINE:
            self._out().append(" ")

    def handle_endtag(self, tag: str) -> None:
        if tag == "head":
            self.head = False
        elif tag in _HIDDEN:
            self.hidden = max(0, self.hidden - 1)
        elif tag in _HEADINGS and self.title is not None:
            self.title = None
            self.body = self.headings[-1][3]
        elif tag not in _INLINE:
            self._out().append(" ")

    def handle_data(self, data: str) -> None:
        if self.head and not self.hidden and not data.isspace():
            self.head = False  # text is the body's: a browser ends the head before it
        if not self.hidden and not self.head:
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
    rendered, parts = document_sections(normalise("".join(parser.preamble)), headed)
    return Sections(rendered if mode == "rendered" else normalise(text), parts)
