"""A manifest's document table, parsed one document at a time, and its index of byte
offsets (in ``.evalset/manifests/``), so that a command looking at a few cited documents of
a large manifest neither parses nor scans the rest."""

from __future__ import annotations

import json
import marshal
import mmap
import os
from array import array
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Iterator, Mapping
from itertools import pairwise
from pathlib import Path
from typing import Any

import orjson

from evalset.errors import EvalsetError
from evalset.fsio import json_loads, open_found, read_found, replace_cache


class DamagedLine(EvalsetError):
    """A document's line of a manifest is not the JSON it should be."""


Document = dict[str, Any]
"""``{"hash": h, "sections": {id: {"hash": h, "title": t, "level": n[, "text": s]}}}``"""
DOCUMENTS_LINES = ('"documents": {', '"documents": {}}')
"""The second line of a manifest: the start of the document table, or an empty table."""


def find_sorted(names: list[str], name: str) -> int:
    """Where ``name`` is in the sorted ``names``, or -1."""
    i = bisect_left(names, name)
    return i if i < len(names) and names[i] == name else -1


def strictly_sorted(names: list[str]) -> bool:
    return all(a < b for a, b in pairwise(names))


Text = str | bytes | mmap.mmap
"""A manifest: decoded, or its UTF-8 bytes (read, or mapped into memory)."""


ENTRY_KEYS = frozenset(("hash", "text", "sections"))
SECTION_KEYS = frozenset(("hash", "title", "level", "text"))
_EXACT = frozenset((str, int, bool, type(None)))
"""Values orjson reads exactly as json does (an integer: within 64 bits; see ``read_entry``)."""


def read_entry(raw: str | bytes) -> Any:
    """A document's line of a manifest, parsed. orjson reads it (these lines hold the
    documents' text: it takes about 40% of the time json takes on them) when what it read
    is surely what ``json_loads`` reads. orjson fails on everything json would read
    otherwise or refuse (NaN, a lone surrogate escape, damage) but one: an integer beyond
    64 bits, which it reads as a float. So its value is kept for a line of the known keys
    whose values are text and integers (no float, which such an integer would have become);
    any other line (of an earlier format, a plug-in's, damaged) is read by ``json_loads``,
    whose failure says what is wrong."""
    entry = _read_fast(raw)
    return entry if entry is not None else json_loads(raw)


def read_document(raw: str | bytes) -> Document:
    """``read_entry`` of a line that must be a document's entry: an object whose sections
    are objects, each level (where given) a whole number from 0; a ValueError for any other
    (a level of "3", null or NaN would stop scoring, or change what lies inside what)."""
    entry = _read_fast(raw)  # (what it keeps is of that shape already)
    if entry is not None:
        return entry
    entry = json_loads(raw)
    if not isinstance(entry, dict) or not isinstance(entry.get("sections"), dict):
        raise ValueError("not a document entry")
    if not all(type(s) is dict and whole_level(s) for s in entry["sections"].values()):
        raise ValueError("a section that is no object with a whole level")
    return entry


def whole_level(section: dict[str, Any]) -> bool:
    """Whether a section's level, where given, is a whole number from 0 (a level of "3",
    null, NaN or true is a damaged line)."""
    level = section.get("level", 0)
    return type(level) is int and level >= 0


def _read_fast(raw: str | bytes) -> Document | None:
    """The line as orjson reads it, when that is what ``json_loads`` reads and a document's
    entry with whole levels from 0 (see ``read_entry``); else None."""
    try:
        entry = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if type(entry) is not dict or not entry.keys() <= ENTRY_KEYS:
        return None
    sections = entry.get("sections")
    if type(sections) is not dict or not _EXACT.issuperset(
        (type(entry.get("hash")), type(entry.get("text")))
    ):
        return None
    exact, keys = _EXACT.issuperset, SECTION_KEYS
    for s in sections.values():
        if (
            type(s) is not dict
            or not s.keys() <= keys
            or not exact(map(type, s.values()))
            or type(level := s.get("level", 0)) is not int
            or level < 0
        ):
            return None
    return entry


class LazyDocuments(Mapping[str, Document]):
    """A manifest's document table, each document parsed from its line on first access.

    Commands that look at a few cited documents of a 50,000-document manifest should not pay
    for parsing all of it (about 0.6 s), nor for copying its lines: the table holds the
    manifest's text, its document names in order, and where each one's value lies (two
    offsets per name in one array, which its index stores and loads as one block)."""

    def __init__(
        self,
        text: Text,
        names: list[str],
        bounds: array[int],
        upgrade: Callable[[str, Document], Document] | None = None,
        source: Path | None = None,
    ) -> None:
        self._text = text
        """The manifest, decoded, or as bytes when ``bounds`` are byte offsets."""
        self._names = names
        self._bounds = bounds
        self._sorted: bool | None = None
        self._where: dict[str, int] | None = None
        self._parsed: dict[str, Document] = {}
        self._upgrade = upgrade
        """Turns an entry of an earlier format into the current one, as it is parsed."""
        self.source = source
        """The manifest, named in errors."""
        self._begin: array[int] | None = None

    def _position(self, doc: object) -> int:
        """Where ``doc`` is among the names, or -1. Names in sorted order (as evalset writes
        them) are found by bisection; others through a dictionary built once."""
        if not isinstance(doc, str):
            return -1
        names = self._names
        if self._where is None:
            if self.in_order:
                return find_sorted(names, doc)
            self._where = {name: i for i, name in enumerate(names)}
        return self._where.get(doc, -1)

    @property
    def in_order(self) -> bool:
        """Whether the names are sorted and unique (as evalset writes them)."""
        if self._sorted is None:
            self._sorted = strictly_sorted(self._names)
        return self._sorted

    def __getitem__(self, doc: str) -> Document:
        entry = self._parsed.get(doc)
        if entry is None:
            i = self._position(doc)
            if i < 0:
                raise KeyError(doc)
            raw = self._text[self._bounds[2 * i] : self._bounds[2 * i + 1]]
            try:
                entry = read_document(raw)
            except ValueError:
                raise DamagedLine(
                    f"{self.source or 'a snapshot manifest'}: the line of document {doc!r} is "
                    "damaged; restore the manifest from git, or run `evalset snapshot` on the "
                    "corpus it recorded to write it again."
                ) from None
            if self._upgrade is not None:
                entry = self._upgrade(doc, entry)
            self._parsed[doc] = entry
        return entry

    @property
    def legacy(self) -> bool:
        """Whether the lines are of an earlier format (their raw values then compare equal
        only with lines of that format)."""
        return self._upgrade is not None

    def __contains__(self, doc: object) -> bool:
        return self._position(doc) >= 0

    def raw(self, doc: str) -> str | bytes | None:
        """The document's JSON value exactly as the manifest holds it: text, or UTF-8 bytes
        when the manifest was read as bytes (compare raw values only with each other)."""
        i = self._position(doc)
        return None if i < 0 else self._text[self._bounds[2 * i] : self._bounds[2 * i + 1]]

    @property
    def names(self) -> list[str]:
        """The document names in the manifest's order."""
        return self._names

    def holding(self, needle: str) -> list[str]:
        """The documents whose line holds ``needle`` (in the manifest's order), found in the
        manifest's text without parsing it: a search of a 470 MB manifest takes a tenth of a
        second where parsing it takes twenty. What holds it may still not be what the caller
        wants (a hash in a section's text): the caller checks the parsed entries."""
        text, bounds = self._text, self._bounds
        wanted = needle if isinstance(text, str) else needle.encode()
        starts = self._starts()
        found: list[str] = []
        at = text.find(wanted)  # type: ignore[arg-type]
        while at >= 0:
            i = bisect_right(starts, at) - 1
            if i >= 0 and at < bounds[2 * i + 1]:
                found.append(self._names[i])
                at = text.find(wanted, bounds[2 * i + 1])  # type: ignore[arg-type]
            else:
                at = text.find(wanted, at + 1)  # type: ignore[arg-type]
        return found

    def _starts(self) -> array[int]:
        if self._begin is None:
            self._begin = self._bounds[0::2]
        return self._begin

    def renamed(self, names: list[str]) -> LazyDocuments:
        """The same table with other names, one per name, in the same order."""
        return LazyDocuments(self._text, names, self._bounds, self._upgrade, self.source)

    @property
    def bounds(self) -> array[int]:
        """Per name, where its value starts and ends in ``text``."""
        return self._bounds

    @property
    def text(self) -> Text:
        return self._text

    def __iter__(self) -> Iterator[str]:
        return iter(self._names)

    def __len__(self) -> int:
        return len(self._names)


def split_lines(text: str) -> tuple[dict[str, Any], LazyDocuments] | None:
    """Header and lazy document table of a manifest in the layout evalset writes, or None
    for any other layout (which is then parsed as plain JSON).

    One pass over the lines without splitting them: per line, the document name is decoded
    where it stands and the value's start and end are noted."""
    first = text.find("\n")
    second = text.find("\n", first + 1)
    if first < 0 or second < 0 or text[first + 1 : second] not in DOCUMENTS_LINES:
        return None
    try:
        about = json_loads(text[:first].removesuffix(",") + "}")["about"]
    except (ValueError, KeyError, TypeError):
        return None
    names: list[str] = []
    bounds = array("q")
    if text[first + 1 : second] == DOCUMENTS_LINES[1]:
        return about, LazyDocuments(text, names, bounds)
    scan = json.decoder.scanstring  # type: ignore[attr-defined]
    find = text.find
    pos = second + 1
    while True:
        if text.startswith("}}", pos):
            return about, LazyDocuments(text, names, bounds)
        if not text.startswith('"', pos):
            return None
        try:
            doc, end = scan(text, pos + 1)
        except ValueError:
            return None
        stop = find("\n", end)
        if stop < 0:
            return None
        names.append(doc)
        bounds.extend((end + 2, stop - 1 if text[stop - 1] == "," else stop))
        pos = stop + 1


def indexed(path: Path, index_dir: Path) -> tuple[dict[str, Any], LazyDocuments] | None:
    """The header and table of a manifest that was checked before (its id recomputed from
    its content) and has not changed since (same size, mtime and inode), from its index in
    ``index_dir``; None when there is no such index, or it is not what this module writes
    (a cache is never trusted further than that, nor read when it is no file: a FIFO
    would wait). Through the index, the manifest is
    neither decoded nor scanned: it is mapped into memory (read, where that is not
    possible), and only the lines asked for are touched. A manifest whose table the index
    does not hold (not ASCII) is read as bytes and scanned."""
    try:
        st = path.stat()
        data = read_found(index_dir / f"{path.stem}.marshal")
        index = marshal.loads(data)
        if not isinstance(index, dict) or index.get("file") != (
            st.st_size, st.st_mtime_ns, st.st_ino
        ):  # fmt: skip
            return None
        about = index["about"]
        if not isinstance(about, dict):
            return None
        if index.get("names") is None:  # checked, but its table is read from the file
            text = read_found(path).decode("utf-8")
            split = split_lines(text)
            if split is None:
                return None
            split[1].source = path
            return about, split[1]
        names = index["names"].split("\0") if index["names"] else []
        bounds = array("q")
        bounds.frombytes(index["bounds"])
        if len(bounds) != 2 * len(names) or not _plausible(bounds, st.st_size):
            return None
        return about, LazyDocuments(mapped(path), names, bounds, source=path)
    except (OSError, EOFError, ValueError, TypeError, KeyError, AttributeError, MemoryError):
        return None


def _plausible(bounds: array[int], size: int) -> bool:
    """Offsets that rise and stay inside the file, as an index of it has them."""
    if not bounds:
        return True
    values = bounds.tolist()
    return values[0] > 0 and values[-1] <= size and values == sorted(values)


def mapped(path: Path) -> bytes | mmap.mmap:
    """The file's bytes, mapped read-only where the system allows a mapped file to be
    replaced (POSIX); read otherwise, and when it is empty."""
    with open(open_found(path), "rb") as f:
        if os.name == "posix" and os.fstat(f.fileno()).st_size:
            return mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ)
        return f.read()


def save_index(
    path: Path,
    index_dir: Path,
    about: dict[str, Any],
    names: list[str] | None,
    bounds: array[int] | None,
) -> None:
    """Keep a checked manifest's index: its document names, and the byte offsets of each
    one's value (see ``indexed``), as two blocks that load in a few milliseconds; or, with
    no ``names``, only the verdict that it was checked. Call it only for a manifest whose
    content was checked against its id (or that was just written from checked content). A
    failure to write it costs only speed."""
    try:
        st = path.stat()
        index_dir.mkdir(parents=True, exist_ok=True)
        index = {
            "file": (st.st_size, st.st_mtime_ns, st.st_ino),
            "about": about,
            "names": "\0".join(names) if names is not None else None,
            "bounds": bounds.tobytes() if bounds is not None else b"",
        }
        replace_cache(index_dir / f"{path.stem}.marshal", marshal.dumps(index))
    except (OSError, ValueError):
        return
