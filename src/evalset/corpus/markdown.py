"""Markdown sections, from a CommonMark parser (pyromark, on the Rust pulldown-cmark).

Chosen for speed with correctness: pulldown-cmark is CommonMark-exact (ATX headings indented
up to three spaces, setext headings, nothing inside code blocks) and renders at ~300 MB/s;
pure-Python parsers manage 7-8 MB/s. GitHub tables, strikethrough and YAML front matter
(metadata, not content) are enabled.

The fast path renders a document to HTML in one call and splits it at the heading elements
with regular expressions, which keeps Python out of the per-token work (about 3x faster than
walking the event stream). A document that contains raw HTML heading tags, which the
renderer passes through and which are not markdown headings, takes the event stream instead.
"""

from __future__ import annotations

import html
import re
from collections.abc import Iterable
from typing import Any

import pyromark

from evalset.corpus.sections import (
    INLINE_ELEMENTS,
    STRUCK_ELEMENTS,
    HashMode,
    Headed,
    Sections,
    document_sections,
    normalise,
    source_ranges,
)

_OPTIONS = (
    pyromark.Options.ENABLE_TABLES
    | pyromark.Options.ENABLE_STRIKETHROUGH
    | pyromark.Options.ENABLE_YAML_STYLE_METADATA_BLOCKS
)
# Inline containers: their start and end are not word boundaries (**bold**text is one word).
_INLINE = frozenset(
    ("Emphasis", "Strong", "Strikethrough", "Link", "Image", "Superscript", "Subscript")
)


def _name(tag: Any) -> str:
    return tag if isinstance(tag, str) else next(iter(tag))


def _headings(
    text: str, events: Iterable[Any] | None = None
) -> tuple[list[str], list[tuple[str, int, str, list[str]]]]:
    """The rendered pieces before the first heading, and per heading its title, level,
    explicit anchor (``{#id}``, else '') and the pieces up to the next heading. The pieces
    are HTML as the renderer writes it (text escaped, raw HTML as written, a space where a
    block begins or ends), so that ``_plain`` reads them as it reads the fast path's: a
    document reads the same whichever path it takes."""
    preamble: list[str] = []
    headings: list[tuple[str, int, str, list[str]]] = []
    body = preamble
    title: list[str] | None = None
    level, anchor, metadata, image = 0, "", False, 0
    stream: Iterable[Any] = (  # the text's events, unless read already
        events if events is not None else pyromark.events(text, options=_OPTIONS)
    )
    for event in stream:
        out = body if title is None else title
        if isinstance(event, str):  # SoftBreak, HardBreak, Rule
            out.append(" ")
        elif "Text" in event:
            if not (metadata or image):  # an image's alt text is not shown: the fast path
                out.append(html.escape(event["Text"], quote=False))  # drops <img> whole
        elif "Start" in event:
            name = _name(event["Start"])
            image += name == "Image"
            if name == "Heading":
                heading = event["Start"]["Heading"]
                title, level, anchor = [], int(heading["level"][1]), heading.get("id") or ""
            elif name == "MetadataBlock":
                metadata = True
            elif name == "Strikethrough":
                out.append("<del>")  # as the fast path's renderer writes it: not text
            elif name not in _INLINE:
                out.append(" ")
        elif "End" in event:
            name = _name(event["End"])
            image -= name == "Image"
            if name == "Heading" and title is not None:
                body = []
                headings.append((_plain("".join(title)), level, anchor, body))
                title = None
            elif name == "MetadataBlock":
                metadata = False
            elif name == "Strikethrough":
                out.append("</del>")
            elif name not in _INLINE:
                out.append(" ")
        elif "Code" in event:
            out.append(html.escape(event["Code"], quote=False))
        elif "Html" in event or "InlineHtml" in event:
            out.append(event.get("Html") or event.get("InlineHtml") or "")
    return preamble, headings


_RAW_HEADING = re.compile(r"<[hH][1-6][\s>/]")
_RENDERED_HEADING = re.compile(r"<h([1-6])>(.*?)</h\1>\n?", re.S)
_INLINE_TAG = re.compile(rf"</?(?:{'|'.join(sorted(INLINE_ELEMENTS))})\b[^>\x00]*>")
"""An inline tag (``INLINE_ELEMENTS``): no word boundary."""
_STRUCK = re.compile(rf"<({'|'.join(sorted(STRUCK_ELEMENTS))})\b[^>\x00]*>[^\x00]*?</\1\s*>")
"""Struck text with its tags (``~~`` renders as ``del``): not text (``STRUCK_ELEMENTS``)."""
_STRUCK_END = re.compile(rf"</(?:{'|'.join(sorted(STRUCK_ELEMENTS))})\s*>")
_CAPITAL_TAG = re.compile(r"</?[A-Z][A-Za-z0-9]*")
"""A tag written in capitals (raw HTML's ``<SUP>``; the renderer writes its own in lower
case): put in lower case first, so that the patterns above, in lower case (five times as
fast as ignoring case), find it."""


_ASCII_SPACES = str.maketrans(dict.fromkeys((c for c in range(128) if chr(c).isspace()), " "))
_OTHER_SPACES = "".join(chr(c) for c in range(128) if chr(c).isspace() and chr(c) not in " \n")
_RUNS = re.compile("  +")
_TAG = r"<(?:/?[A-Za-z][^>\x00]*+|[!?][^>\x00]*+)>"
"""A tag as HTML reads one: ``<`` then a name, ``/`` and a name, ``!`` or ``?``; any other
``<`` in raw HTML is text (``Orders < 50 EUR</td>``), as in a browser."""
_BLOCK_TAGS = re.compile(rf"{_TAG}(?:\s*+{_TAG})*+\s*+")
"""A run of tags with the white space between and after them: one word boundary."""
_COMMENT = re.compile(r"<!--[^\x00]*?(?:-->|(?=\x00)|\Z)")
"""An HTML comment, which the renderer passes through as written: not text, whatever it
holds (a ``>``, which would end a tag, or lines). One left open (in a list item, whose end
ends the raw HTML) runs to the end of its section's piece, never past the separator
(``_SEP``), whichever path reads the document."""


def _plain(fragment: str, raw: bool = True) -> str:
    """The normalised rendered text of an HTML fragment: inline tags vanish, block tags
    separate words, entities are decoded. ``raw``: the source may hold raw HTML or
    strikethrough (else the renderer's own tags alone, in lower case and never struck, need
    not be looked at for those).

    Fast for ASCII: each run of tags and the white space after it becomes one space, new
    lines become spaces, and only the runs that remain (white space before a tag, or in the
    source text) are collapsed, so no object is made per word."""
    if "<!--" in fragment:  # text's "<!--" is escaped: this is a comment of raw HTML
        fragment = _COMMENT.sub(" ", fragment)
    if "<" in fragment:
        if raw:  # raw HTML or strikethrough in the source: tags in capitals, struck text
            if _CAPITAL_TAG.search(fragment):
                fragment = _CAPITAL_TAG.sub(lambda m: m.group(0).lower(), fragment)
            if _STRUCK_END.search(fragment):
                fragment = _STRUCK.sub("", fragment)
        fragment = _BLOCK_TAGS.sub(" ", _INLINE_TAG.sub("", fragment))
    plain = fragment
    if "&" in plain:
        plain = html.unescape(plain)
    if not plain.isascii():
        return normalise(plain)
    plain = plain.replace("\n", " ")
    if any(space in plain for space in _OTHER_SPACES):
        plain = plain.translate(_ASCII_SPACES)
    if "  " in plain:
        plain = _RUNS.sub(" ", plain)
    return plain.strip(" ")


_SEP = "\x00"
"""Joins the rendered pieces for one pass of tag removal and normalisation. The renderer
turns U+0000 into U+FFFD, so it cannot occur in its output (a raw HTML block could carry
one; such a document takes the per-piece path)."""


def _headings_from_html(text: str) -> tuple[str, Headed] | None:
    """The normalised preamble and headings of the rendered document, or None when it holds
    the separator.

    The pieces between heading tags are joined with a separator, stripped of tags, unescaped
    and normalised in one pass each, then split again: a handful of calls per document
    instead of several per section."""
    parts = _RENDERED_HEADING.split(pyromark.html(text, options=_OPTIONS))
    levels = parts[1::3]
    del parts[1::3]
    joined = _SEP.join(parts)
    if _SEP in text and joined.count(_SEP) != len(parts) - 1:
        return None
    pieces = _plain(joined, raw="<" in text or "~" in text).split(_SEP)
    pieces = [piece.strip(" ") for piece in pieces]
    headed = [
        (pieces[2 * i + 1], int(level), "", pieces[2 * i + 2]) for i, level in enumerate(levels)
    ]
    return pieces[0], headed


_LONE_CR = re.compile(r"\r(?!\n)")


def _line_ends(text: str) -> str:
    """``text`` with each carriage return that ends a line alone (old Mac OS line ends) made
    a line feed. CommonMark reads either as a line end, but the parser does not in every
    construct: such a file's front matter read as a heading, and a code fence's lines as
    headings. One character for another keeps every offset."""
    return _LONE_CR.sub("\n", text) if "\r" in text else text


def sections(text: str, mode: HashMode = "rendered") -> Sections:
    """Split a markdown document into its sections (see ``sections.document_sections``)."""
    text = _line_ends(text)
    found = None if _RAW_HEADING.search(text) else _headings_from_html(text)
    if found is None:
        preamble, headings = _headings(text)
        found = (
            _plain("".join(preamble)),
            [(t, lv, a, _plain("".join(body))) for t, lv, a, body in headings],
        )
    if mode == "source":
        return _source_sections(text, [(t, lv, a) for t, lv, a, _ in found[1]])
    return document_sections(*found)


def _source_sections(text: str, titles: list[tuple[str, int, str]]) -> Sections:
    """Sections hashed on their whitespace-normalised source (config ``hash = "source"``)."""
    data = text.encode()
    ranged: Iterable[tuple[Any, Any]] = pyromark.events_with_range(text, options=_OPTIONS)
    spans = [
        (span["start"], span["end"])
        for event, span in ranged
        if isinstance(event, dict) and "Start" in event and _name(event["Start"]) == "Heading"
    ]
    headed = []
    for i, ((title, level, anchor), (_, end)) in enumerate(zip(titles, spans, strict=True)):
        stop = spans[i + 1][0] if i + 1 < len(spans) else len(data)
        headed.append((title, level, anchor, normalise(data[end:stop].decode("utf-8", "replace"))))
    parts = document_sections("", headed)
    return Sections(normalise(text), parts.sections, parts.unanchored)


def heading_ranges(text: str) -> list[tuple[int, int, int, str]]:
    """Per heading, in the order of the document: where its section's source starts and
    ends (character offsets into ``text``: from the heading to the next heading of the same
    or a higher level, else the end), its level and its rendered title, as ``sections``
    reads them."""
    text = _line_ends(text)
    ranged: list[tuple[Any, Any]] = list(pyromark.events_with_range(text, options=_OPTIONS))
    starts = [
        span["start"]
        for event, span in ranged
        if isinstance(event, dict) and "Start" in event and _name(event["Start"]) == "Heading"
    ]  # (offsets in the UTF-8 bytes of the text)
    if not text.isascii():
        data, at, chars = text.encode(), 0, 0
        for k, start in enumerate(starts):
            chars += len(data[at:start].decode("utf-8", "replace"))
            starts[k], at = chars, start
    headings = _headings(text, (event for event, _ in ranged))[1]  # one parse for both
    if len(headings) != len(starts):  # (one event stream: never)
        return []
    ranges = source_ranges(starts, [level for _, level, _, _ in headings], len(text))
    return [
        (start, end, level, title)
        for (title, level, _, _), (start, end) in zip(headings, ranges, strict=True)
    ]
