"""Where things are in a set file's text, without round-trip-parsing the whole file.

A set file is almost always written in block style: a top-level ``items:`` key followed by
one ``- `` entry per item at a fixed indentation. ``ItemSpans`` finds those entries with a
line scan, so an error message or an edit needs ruamel.yaml only on the region it concerns
(a header, one item). Files the scan cannot read (flow style, unusual layouts) fall back to
one ruamel.yaml parse of the whole file.
"""

from __future__ import annotations

import re
import secrets
from dataclasses import dataclass
from functools import cached_property
from typing import Any

_ITEMS_KEY = re.compile(r"items[ \t]*:[ \t]*(?:#[^\r\n]*)?\r?\n?")
_EMPTY_ITEMS = re.compile(r"items[ \t]*:[ \t]*(?:\[\s*\]|null|~)?[ \t]*(?:#[^\r\n]*)?\r?\n?")
_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")
"""A line with its break; YAML breaks lines at CR LF, CR and LF only (not at the other
characters ``str.splitlines`` breaks at, which may stand inside a value)."""


def split_lines(text: str) -> list[str]:
    """``text`` cut into lines at YAML's line breaks, each line keeping its own."""
    if "\r" in text:
        return _LINE.findall(text)
    parts = text.split("\n")
    last = parts.pop()
    lines = [part + "\n" for part in parts]
    if last:
        lines.append(last)
    return lines


def line_break(line: str) -> str:
    """The break that ends ``line`` ("" for a last line without one)."""
    if line.endswith("\r\n"):
        return "\r\n"
    return line[-1] if line.endswith(("\n", "\r")) else ""


def newline_of(lines: list[str]) -> str:
    """The line break a file mostly uses (LF when it has none)."""
    counts = {"\n": 0, "\r\n": 0, "\r": 0}
    for line in lines[:1000]:
        brk = line_break(line)
        if brk:
            counts[brk] += 1
    best = max(counts, key=lambda k: counts[k])
    return best if counts[best] else "\n"


Path_ = tuple[str | int, ...]

MAX_REGION_PARSES = 500
"""Exact positions inside items need a ruamel.yaml parse of the item (a few ms each). A file
with more findings than this points the rest at their nearest line-scanned ancestor (the
item's field) instead of spending minutes on columns."""


def is_filler(line: str) -> bool:
    """A blank or comment-only line."""
    stripped = line.strip()
    return not stripped or stripped.startswith("#")


_ENTRY = re.compile(r"-(?:[ \t]|\r?\n|\r|$)")
"""A sequence entry's ``-``: under a key, at the key's own column, a list's entries may
start (``key:`` then ``- a``): they belong to the key above."""


_DASH = ("- ", "-\t")
"""How an item's line starts (after its indentation): YAML separates the ``-`` by a space
or a tab."""

_CLOSING = ("]", "}", ",")
"""How a line of a flow list or mapping written over several lines may start at its key's
column (``expected_sources: [`` … ``]``): the key's value goes on."""


def item_columns(lines: list[str]) -> tuple[int, int, int] | None:
    """Where an item's ``- `` line is, and the columns of its ``-`` and of its keys; None
    without such a line."""
    at = next((i for i, line in enumerate(lines) if line.lstrip(" ").startswith(_DASH)), None)
    if at is None:
        return None
    dash = len(lines[at]) - len(lines[at].lstrip(" "))
    after = lines[at][dash + 2 :]
    return at, dash, dash + 2 + len(after) - len(after.lstrip(" \t"))


def item_fields(piece: str) -> list[tuple[str, str]] | None:
    """An item's piece cut into (name, text): ``^`` the lines above its ``-``, then each of
    its keys with the comment lines above it and the lines under it, then ``$`` the comment
    lines under its last key; None when it is not laid out so (a flow-style item)."""
    lines = split_lines(piece)  # at YAML's line breaks: an LS inside a value is no line
    found = item_columns(lines)
    if found is None:
        return None
    at, _, column = found
    first = lines[at][column:]
    out: list[tuple[str, str]] = [("^", "".join(lines[:at]))]
    name = first.lstrip(" ").split(":", 1)[0].rstrip(" \t")
    if not name or name.startswith(("{", "[", "#")):
        return None
    held: list[str] = [lines[at]]
    waiting: list[str] = []  # comment and blank lines, until a key or the end says whose
    for line in lines[at + 1 :]:
        body = line.lstrip(" ")
        indent = len(line) - len(body)
        if not body.strip() or body.lstrip(" \t").startswith("#"):
            waiting.append(line)  # a comment may stand after a tab: white space too
        elif indent == column and not _ENTRY.match(body) and not body.startswith(_CLOSING):
            out.append((name, "".join(held)))
            name, held, waiting = body.split(":", 1)[0].rstrip(" \t"), [*waiting, line], []
        elif indent >= column or body.startswith(_CLOSING):
            # the YAML library ends a flow list whose last entry has a comment after it on
            # a line of its own at column 0 (``key_points: [{…} # c`` then ``]``): the
            # field above goes on, which an edit then writes as it was
            held += [*waiting, line]
            waiting = []
        else:
            return None
    out.append((name, "".join(held)))
    out.append(("$", "".join(waiting)))
    names = [n for n, _ in out]
    return out if len(set(names)) == len(names) else None


_LONE_DASH = re.compile(r"-[ \t]*(?:#[^\r\n]*)?(?:\r\n|\r|\n)")
"""An item's ``-`` on a line of its own, a comment after it at most."""


def lone_dash(piece: str) -> tuple[int, int] | None:
    """Where an item's ``-`` stands on a line of its own (a comment after it at most) with
    its first key on the next line, two columns deeper: the line's index and the dash's
    column; None for any other layout."""
    lines = split_lines(piece)
    at = next((i for i, line in enumerate(lines) if not is_filler(line)), None)
    if at is None or at + 1 >= len(lines):
        return None
    body = lines[at].lstrip(" ")
    dash = len(lines[at]) - len(body)
    if not _LONE_DASH.fullmatch(body):
        return None
    key = lines[at + 1]
    column = len(key) - len(key.lstrip(" "))
    if column != dash + 2 or is_filler(key) or key.lstrip(" ").startswith(("-", "#")):
        return None
    return at, dash


_FLOW_PLAIN_END = re.compile(r"[,{}\[\]]|:(?=[\s,{}\[\]])|\s#")
"""Where a plain scalar inside a flow mapping ends: at a flow indicator, at a ``:`` that
ends a key, or where a comment starts."""


def flow_values(piece: str) -> dict[str, tuple[int, int]] | None:
    """The top-level keys of an item written as a flow mapping (``- {id: q-1, …}``), each
    with where its value's text starts and ends in ``piece``; None for any other layout, a
    key that is not plain text, a key given twice, or text the scan does not follow (the
    caller then leaves the item as the YAML library writes it)."""
    lines = split_lines(piece)
    at = next((i for i, line in enumerate(lines) if not is_filler(line)), None)
    if at is None:
        return None
    offset = sum(len(line) for line in lines[:at])
    body = lines[at].lstrip(" ")
    if not body.startswith(_DASH) or not body[1:].lstrip(" \t").startswith("{"):
        return None
    pos = offset + len(lines[at]) - len(body) + 1
    pos += len(body[1:]) - len(body[1:].lstrip(" \t")) + 1
    found: dict[str, tuple[int, int]] = {}
    while True:
        pos = _flow_gap(piece, pos)
        if pos >= len(piece) or piece[pos] in "\"'{[":
            return None  # only plain keys: the set's own field names
        if piece[pos] == "}":
            break
        end = _FLOW_PLAIN_END.search(piece, pos)
        if end is None or piece[end.start()] != ":":
            return None
        key = piece[pos : end.start()].strip()
        if not key or key in found:
            return None
        start = _flow_gap(piece, end.end(), comments=False)
        stop = _flow_value_end(piece, start)
        if stop is None:
            return None
        found[key] = (start, stop)
        pos = _flow_gap(piece, stop)
        if pos < len(piece) and piece[pos] == ",":
            pos += 1
        elif pos >= len(piece) or piece[pos] != "}":
            return None
    return found


def _flow_gap(text: str, pos: int, comments: bool = True) -> int:
    """The first position from ``pos`` that is not white space (or, with ``comments``, a
    comment running to its line's end)."""
    while pos < len(text):
        if text[pos] in " \t\r\n":
            pos += 1
        elif comments and text[pos] == "#":
            brk = text.find("\n", pos)
            pos = len(text) if brk < 0 else brk + 1
        else:
            break
    return pos


def _flow_value_end(text: str, pos: int) -> int | None:
    """Where the value starting at ``pos`` inside a flow mapping ends (quoted, nested or
    plain); None where the scan does not follow it."""
    if pos >= len(text):
        return None
    first = text[pos]
    if first == '"':
        k = pos + 1
        while k < len(text) and text[k] != '"':
            k += 2 if text[k] == "\\" else 1
        return k + 1 if k < len(text) else None
    if first == "'":
        k = pos + 1
        while True:
            k = text.find("'", k)
            if k < 0:
                return None
            if text[k + 1 : k + 2] != "'":
                return k + 1
            k += 2
    if first in "{[":
        depth, k = 0, pos
        while k < len(text):
            c = text[k]
            if c in "\"'":
                after = _flow_value_end(text, k)
                if after is None:
                    return None
                k = after
                continue
            if c == "#" and text[k - 1] in " \t\r\n":
                return None  # a comment inside: left to the library
            depth += c in "{["
            depth -= c in "}]"
            k += 1
            if depth == 0:
                return k
        return None
    if first in ",}":
        return pos  # an empty value
    end = _FLOW_PLAIN_END.search(text, pos)
    if end is None:
        return None
    return pos + len(text[pos : end.start()].rstrip())


_SCALAR_START = re.compile(r"[|>](?:[1-9][+-]?|[+-][1-9]?)?[ \t]*(?:#[^\r\n]*)?\r?\n?")
"""A block scalar's indicator (``|``, ``>-``, ``|2+``) ending its line, a comment after it."""
_AFTER_KEY = re.compile(r"""(?:[^'"#:\s][^#:]*|'[^']*'|"[^"]*")[ \t]*:[ \t]+""")
"""A key (plain or quoted) and its colon, before a value on the same line."""


def block_scalar(body: str, col: int) -> tuple[int, bool] | None:
    """Whether a line (``body``, at column ``col``) opens a block scalar: the column its
    text lines are deeper than (its key's, or its ``-``'s), and whether it keeps its
    trailing blank lines; None when it opens none."""
    parent, rest = col, body
    while rest[:1] == "-" and rest[1:2] in (" ", "\t"):  # entries opened on the line
        parent = col + len(body) - len(rest)
        rest = rest[1:].lstrip(" \t")
    key = _AFTER_KEY.match(rest)
    if key is not None:
        parent = col + len(body) - len(rest)
        rest = rest[key.end() :]
    found = _SCALAR_START.fullmatch(rest)
    if found is None:
        return None
    return parent, "+" in rest.split("#", 1)[0]


@dataclass(frozen=True)
class ItemSpans:
    """Line ranges (0-based, end exclusive) of the items block and of each item in it."""

    items_line: int
    """The line holding the top-level ``items:`` key."""
    indent: int
    """Column of the ``-`` that opens each item."""
    starts: tuple[int, ...]
    ends: tuple[int, ...]
    """Each item's last content line + 1 (trailing blank and comment lines excluded)."""
    block_end: int
    """First line after the items block."""

    @classmethod
    def scan(cls, lines: list[str]) -> ItemSpans | None:
        """Find the items block, or None when the file is not laid out in block style."""
        items_line = next((i for i, ln in enumerate(lines) if _ITEMS_KEY.fullmatch(ln)), None)
        if items_line is None:
            empty = next((i for i, ln in enumerate(lines) if _EMPTY_ITEMS.fullmatch(ln)), None)
            if empty is None:
                return None
            return cls(empty, 2, (), (), empty + 1)
        indent: int | None = None
        starts: list[int] = []
        ends: list[int] = []
        last_content = items_line
        block_end = len(lines)
        scalar: tuple[int, bool] | None = None
        """An open block scalar: the column its lines must be deeper than, and whether it
        keeps its trailing blank lines (``|+``)."""
        for i in range(items_line + 1, len(lines)):
            line = lines[i]
            if scalar is not None:
                # the scalar's lines are its text, though one may look blank or like a comment
                if not line.strip(" \t\r\n"):
                    last_content = i if scalar[1] else last_content
                    continue
                if len(line) - len(line.lstrip(" ")) > scalar[0]:
                    last_content = i
                    continue
                scalar = None
            if is_filler(line):
                continue
            body = line.lstrip(" ")
            col = len(line) - len(body)
            is_entry = body.startswith(_DASH) or body.rstrip("\r\n") == "-"
            if indent is None:
                if not is_entry:
                    return None
                indent = col
            if col == indent and is_entry:
                if starts:
                    ends.append(last_content + 1)
                starts.append(i)
            elif col <= indent:
                block_end = i
                break
            last_content = i
            if "|" in body or ">" in body:
                scalar = block_scalar(body, col)
        if not starts or indent is None:
            return None
        ends.append(last_content + 1)
        return cls(items_line, indent, tuple(starts), tuple(ends), block_end)

    def owned_end(self, lines: list[str], k: int) -> int:
        """The line after item ``k`` and the comment lines right under it indented deeper
        than its ``-`` (``    # checked with legal``), which are its own."""
        end = self.ends[k]
        stop = self.starts[k + 1] if k + 1 < len(self.starts) else self.block_end
        while end < stop:
            line = lines[end]
            body = line.lstrip(" \t")
            if not body.startswith("#") or len(line) - len(body) <= self.indent:
                break
            end += 1
        return end


LONG_LINE = 1_000
"""Comments on lines longer than this are taken out before ruamel.yaml reads a region (see
``shorten_long_comments``)."""
_COMMENT_START = re.compile(r"(?:^|[ \t])#")
PLACEHOLDER = "#~evalset-long-comment-" + secrets.token_hex(8) + "-{}~"
"""The comment a long one is read as while the YAML library has a region: drawn afresh in
every process, so that no file holds one as text of its own (put back, it would become the
comment it stands for)."""


def shorten_long_comments(text: str, kept: dict[str, str] | None = None) -> str:
    """``text`` with the comment of every line longer than ``LONG_LINE`` taken out.

    ruamel.yaml's scanner builds a comment one character at a time; depending on where the
    allocator can grow the string, one 800 KB comment line costs it from a tenth of a second
    to ten seconds, and a 20 MB one hours. A comment is cut where it starts, so every line
    and every column before it stay where they were: positions read off the result are
    those of ``text``. With ``kept``, the comment is replaced by a short placeholder comment
    instead, and ``kept`` maps each placeholder to the comment it stands for, so that an
    editor can put the comment back, byte for byte, into what ruamel.yaml writes; given the
    ``kept`` of regions read before, it adds to it (a placeholder stands for one comment in
    every region).

    Only a ``#`` with nothing but plain text before it on its line is taken for a comment
    (no quote: it could be inside a quoted scalar). Inside a block scalar such a line is
    content; it is put back all the same."""
    if len(text) <= LONG_LINE or "#" not in text:
        return text
    lines = text.split("\n")  # YAML's line breaks: no other character ends a line here
    for i, line in enumerate(lines):
        if len(line) <= LONG_LINE or not (found := _COMMENT_START.search(line)):
            continue
        start = found.end() - 1
        if '"' in line[:start] or "'" in line[:start]:
            continue
        cr = "\r" if line.endswith("\r") else ""
        comment = line[start : len(line) - len(cr)]
        short = "#"
        if kept is not None:
            # one placeholder per comment, across every region read with the same ``kept``:
            # a comment read again gets its own back, another comment another one
            short = next((p for p, c in kept.items() if c == comment), "")
            if not short:
                n = len(kept)
                while PLACEHOLDER.format(n) in text or PLACEHOLDER.format(n) in kept:
                    n += 1
                short = PLACEHOLDER.format(n)
                kept[short] = comment
        lines[i] = line[:start] + short + cr
    return "\n".join(lines)


def _ruamel_load(text: str) -> Any:
    """Parse a region for the positions of its nodes (never for its values)."""
    from ruamel.yaml import YAML

    yaml = YAML(typ="rt", pure=True)
    return yaml.load(shorten_long_comments(text))


def _node_position(node: Any, path: Path_) -> tuple[int, int] | None:
    """0-based (line, col) of the deepest element of ``path`` found under a ruamel node."""
    best: tuple[int, int] | None = None
    for step in path:
        lc = getattr(node, "lc", None)
        if lc is None:
            break
        try:
            if isinstance(step, int) and isinstance(node, list) and 0 <= step < len(node):
                best = lc.item(step)
            elif isinstance(node, dict) and (step := _key_of(node, step)) is not None:
                best = lc.key(step)
            else:
                break
        except (KeyError, IndexError, TypeError):
            break
        node = node[step]
    return best


def _key_of(node: dict[Any, Any], step: str | int) -> Any:
    """The key of ``node`` that ``step`` names: itself, or a key that is no text written as
    ``step`` (a category ``2.0:`` YAML reads as a number, which findings name as text);
    None when there is none."""
    if step in node:
        return step
    return next((k for k in node if not isinstance(k, str) and str(k) == str(step)), None)


class TextIndex:
    """Positions of set-file elements, computed lazily and only for what is asked."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._parsed: dict[tuple[int, int], Any] = {}

    @cached_property
    def lines(self) -> list[str]:
        return split_lines(self.text)

    @cached_property
    def newline(self) -> str:
        """The line break the file mostly uses."""
        return newline_of(self.lines)

    @cached_property
    def spans(self) -> ItemSpans | None:
        return ItemSpans.scan(self.lines)

    @cached_property
    def _whole(self) -> Any:
        try:
            return _ruamel_load(self.text)
        except Exception:
            return None

    def region(self, start: int, end: int) -> str:
        return "".join(self.lines[start:end])

    def _region_node(self, start: int, end: int) -> Any:
        key = (start, end)
        if key not in self._parsed and len(self._parsed) >= MAX_REGION_PARSES:
            return None  # past the budget: callers fall back to a line-scanned ancestor
        if key not in self._parsed:
            try:
                self._parsed[key] = _ruamel_load(self.region(start, end))
            except Exception:  # a region cut out of context may not parse on its own
                self._parsed[key] = None
        return self._parsed[key]

    def _region_position(self, start: int, end: int, path: Path_) -> tuple[int, int] | None:
        found = _node_position(self._region_node(start, end), path)
        return (found[0] + start, found[1]) if found else None

    def _content_col(self, start: int) -> int:
        """Column of the first key of the item whose ``-`` is on line ``start``."""
        first = self.lines[start]
        dash = len(first) - len(first.lstrip(" "))
        after = first[dash + 1 :]
        return dash + 1 + len(after) - len(after.lstrip(" \t"))

    def _item_key(self, start: int, end: int, key: str) -> tuple[int, int] | None:
        """Position of a top-level key of the item at ``start`` by a line scan (no parse)."""
        lines = self.lines
        first = lines[start]
        col = self._content_col(start)
        prefix = f"{key}:"
        if first.startswith(prefix, col):
            return (start, col)
        for i in range(start + 1, end):
            line = lines[i]
            if line.startswith(prefix, col) and not line[:col].strip():
                return (i, col)
        return None

    def position(self, path: Path_, item_count: int | None = None) -> tuple[int, int] | None:
        """1-based (line, col) of the element at ``path`` (e.g. ``("items", 3, "category")``),
        or of its nearest ancestor that exists; None when nothing can be located."""
        found = self._position0(path, item_count)
        return (found[0] + 1, found[1] + 1) if found else None

    @cached_property
    def items_line(self) -> int | None:
        """The line of the top-level ``items:`` key, as ``ItemSpans.scan`` finds it, without
        reading the items after it."""
        return next((i for i, ln in enumerate(self.lines) if _ITEMS_KEY.fullmatch(ln)), None)

    def _position0(self, path: Path_, item_count: int | None) -> tuple[int, int] | None:
        if path and path[0] != "items" and "spans" not in self.__dict__ and self.items_line:
            # a header key above the items: found in the header alone (a warning on a
            # category of a 10,000-item set need not scan the items)
            found = self._region_position(0, self.items_line, path)
            if found:
                return found
        spans = self.spans
        usable = spans is not None and (item_count is None or len(spans.starts) == item_count)
        if spans is not None and usable:
            if path and path[0] == "items" and len(path) >= 2 and isinstance(path[1], int):
                k = path[1]
                if 0 <= k < len(spans.starts):
                    start, end = spans.starts[k], spans.ends[k]
                    if len(path) == 2:
                        return (start, self._content_col(start))
                    key = self._item_key(start, end, path[2]) if isinstance(path[2], str) else None
                    if len(path) == 3 and key:
                        return key
                    inner = self._region_position(start, end, (0, *path[2:]))
                    return inner or key or (start, self._content_col(start))
                return (spans.items_line, 0)
            if path and path[0] == "items":
                return (spans.items_line, 0)
            if path:
                for start, end in ((0, spans.items_line), (spans.block_end, len(self.lines))):
                    if start < end:
                        found = self._region_position(start, end, path)
                        if found:
                            return found
            return None
        return _node_position(self._whole, path)


def _has_duplicate_key(text: str) -> bool:
    import yaml_rs

    try:
        yaml_rs.loads(
            text, parse_datetime=False, duplicate_key_policy=yaml_rs.DuplicateKeyPolicy.Error
        )
    except yaml_rs.YAMLDecodeError as exc:
        return "duplicate" in str(exc)
    return False


def locate_duplicate_key(text: str) -> tuple[int, int] | None:
    """1-based position of the first duplicated mapping key.

    yaml-rs finds which small region holds it; ruamel.yaml then gives the exact position
    within that region only, so a large file costs a fast scan, not a slow parse."""
    from ruamel.yaml.constructor import DuplicateKeyError

    index = TextIndex(text)
    regions: list[tuple[int, int]] = []
    spans = index.spans
    if spans is not None:
        regions.append((0, spans.items_line))
        regions.extend(zip(spans.starts, spans.ends, strict=True))
        regions.append((spans.block_end, len(index.lines)))
    regions.append((0, len(index.lines)))
    for start, end in regions:
        if start >= end or not _has_duplicate_key(index.region(start, end)):
            continue
        try:
            _ruamel_load(index.region(start, end))
        except DuplicateKeyError as exc:
            mark = exc.problem_mark
            return (mark.line + start + 1, mark.column + 1) if mark else None
        except Exception:
            continue
    return None
