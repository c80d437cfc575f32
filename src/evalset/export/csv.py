"""CSV: one item per row; list columns hold JSON arrays so that no separator is ambiguous."""

from __future__ import annotations

import csv
import io
import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from evalset.export.rows import RowError, unread
from evalset.export.view import Unwritable, View, origin_of, split_of
from evalset.fsio import json_loads
from evalset.sets.model import Item

COLUMNS = [
    "id",
    "question",
    "category",
    "split",
    "answerable",
    "answer",
    "key_points",
    "key_point_sources",
    "expected_sources",
    "must_not_say",
    "tags",
    "verified",
    "origin",
    "set",
    "version",
    "fingerprint",
]


_BREAK = re.compile("[\r\x0b\x0c\x1c-\x1e\x85\u2028\u2029]")
"""The line breaks csv does not quote on its own (it quotes ``\n``): a carriage return,
which its reader takes for the end of the row, and those a reader splitting lines as Python
does (``str.splitlines``) would break a row at."""


_NUL = (
    "holds a NUL character (U+0000), which a CSV file cannot carry (`evalset import`, as "
    "most programs, takes a file holding one for no text file); remove it from the item, or "
    "export as jsonl, which escapes it"
)


def write(view: View) -> str:
    out = io.StringIO()
    writer = csv.DictWriter(out, COLUMNS, lineterminator="\n")
    # csv quotes a cell holding the line terminator's characters only: a carriage return in
    # a text ("a\rb") would be written bare, and read back as the end of the row
    quoted = csv.DictWriter(out, COLUMNS, lineterminator="\n", quoting=csv.QUOTE_ALL)
    writer.writeheader()
    for item in view.items:
        row = {
            "id": item.id,
            "question": item.question,
            "category": item.category or "",
            "split": split_of(item) or "",
            "answerable": "true" if item.answerable else "false",
            "answer": item.answer or "",
            "key_points": _array([p.text for p in item.key_points]),
            "key_point_sources": _array([[str(s) for s in p.sources] for p in item.key_points]),
            "expected_sources": _array([str(c) for c in item.expected_sources]),
            "must_not_say": _array(item.must_not_say),
            "tags": _array(item.tags),
            "verified": item.verified or "",
            "origin": _origin(item),
            "set": view.pin["set"],
            "version": view.pin["version"] or "",
            "fingerprint": view.pin["fingerprint"],
        }
        for column, value in row.items():
            if "\x00" in value:  # the JSON columns write it as \u0000
                raise Unwritable(item.id, column, _NUL)
        broken = any(_BREAK.search(str(value)) for value in row.values())
        (quoted if broken else writer).writerow(row)
    return out.getvalue()


def _array(values: list[Any]) -> str:
    """A list column: a JSON array holding the text as it is (``rückgabe.md``, not
    ``r\\u00fcckgabe.md``, which a person reading the sheet cannot), as every column does."""
    return json.dumps(values, ensure_ascii=False)


def _origin(item: Item) -> str:
    """The item's origin as a JSON object (its traces among it, so that none is promoted
    again after a round trip), or nothing."""
    origin = origin_of(item)
    return "" if origin is None else json.dumps(origin, ensure_ascii=False)


def _object(row: dict[str, str], key: str, line: int) -> dict[str, Any] | None:
    value = row.get(key)
    if not value:
        return None
    try:
        parsed = json_loads(value)
    except json.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, dict):
        raise RowError(
            line, f'has a column {key!r} that is not a JSON object such as {{"kind": "manual"}}'
        )
    return parsed


def _list(row: dict[str, str], key: str, line: int) -> list[Any]:
    value = row.get(key)
    if not value:
        return []
    try:
        parsed = json_loads(value)
    except json.JSONDecodeError:
        parsed = None
    if not isinstance(parsed, list):
        raise RowError(line, f'has a column {key!r} that is not a JSON array such as ["a", "b"]')
    return parsed


_LINE_BREAK = re.compile(r"\r\n|\r|\n")
"""The line ends of a CSV file: ``csv`` reads each."""

SEPARATORS = (",", ";", "\t")
"""The field separators of CSV files as spreadsheets save them: a comma; a semicolon, which
Excel writes in most European locales (where the comma is the decimal mark); a tab."""


@dataclass
class Sheet:
    """A CSV file's text ready for ``csv``'s readers."""

    source: io.StringIO
    delimiter: str
    skipped: int
    """Lines before the header (Excel's ``sep=;`` line): add it to a reader's line number."""

    def reader(self) -> Any:
        """A ``csv.reader`` over the rows, header first."""
        return csv.reader(self.source, delimiter=self.delimiter)

    def shown(self) -> str:
        return {"\t": "a tab", ",": "a comma", ";": "a semicolon"}[self.delimiter]


def sheet(text: str) -> Sheet:
    """``text`` as a CSV file: a first line ``sep=X`` (which Excel writes and reads) names the
    separator; else it is the one of ``SEPARATORS`` the header line holds most of (a comma
    when it holds none)."""
    source = io.StringIO(text, newline="")
    # the first line whatever its end: a file saved with bare CRs (Excel's "CSV (Macintosh)")
    # has no \n, and its cells were counted for the header's separators
    header = _LINE_BREAK.split(text, maxsplit=1)[0]
    if len(header) == 5 and header[:4].lower() == "sep=" and header[4] in SEPARATORS:
        source.readline()
        return Sheet(source, header[4], 1)
    found = max(SEPARATORS, key=header.count)  # ties go to the comma, listed first
    return Sheet(source, found if header.count(found) else ",", 0)


_WHOLE = 2**31 - 1
"""The largest cell ``csv`` may be told to read on every platform (a C long)."""


@contextmanager
def _whole_cells() -> Iterator[None]:
    """``csv`` with no practical limit on a cell's length, for as long as it reads: its
    default, 131,072 characters, is less than a valid item's list column may hold (key points
    of up to 20,000 characters each, as many as the item has), so the set's own CSV export of
    such an item was refused on import as "not valid CSV", naming no line. The text is in
    memory already; the limit is put back after, as it is the whole process's."""
    before = csv.field_size_limit(_WHOLE)
    try:
        yield
    finally:
        csv.field_size_limit(before)


def records(found: Sheet, text: str) -> Iterator[tuple[int, list[str]]]:
    """(line it starts on, cells) per record of ``found`` (the sheet of ``text``), header
    first, empty lines left out: a record whose quoted cell holds line breaks is named by its
    first line, where a person looks for it. Read strictly: a quote left open would otherwise
    take every later line of the file into one cell, and a quote inside a quoted cell that
    does not end it would be dropped from the text."""
    reader = csv.reader(found.source, delimiter=found.delimiter, strict=True)
    ended = 0  # the line the last record ended on
    with _whole_cells():
        try:
            for cells in reader:
                start, ended = ended + 1, reader.line_num
                if cells:
                    yield start + found.skipped, cells
        except csv.Error as exc:
            raise _unreadable(text, found, ended + 1, reader.line_num, exc) from None


def _unreadable(text: str, found: Sheet, start: int, at: int, exc: csv.Error) -> RowError:
    """The error of a record the strict reader refused: ``start`` its first line, ``at`` the
    line it stopped on."""
    opened = _open_quote(text, found.delimiter)
    if opened is not None:
        return RowError(start + found.skipped, f"has an unclosed quote starting at line {opened}, "
                        "so every line after it would be one cell; close it, or write a quote "
                        'that is part of the text twice ("")')  # fmt: skip
    if "expected after" in str(exc):
        return RowError(at + found.skipped, "has a quote inside a quoted cell that does not end "
                        'it; write a quote that is part of the text twice ("")')  # fmt: skip
    return RowError(at + found.skipped, f"is not valid CSV ({exc})")


def _open_quote(text: str, delimiter: str) -> int | None:
    """The line of the quote that the file ends inside, if it does: the lenient reader makes
    the rest of the file, from that quote on, its last cell."""
    with _whole_cells():
        rows = list(csv.reader(io.StringIO(text, newline=""), delimiter=delimiter))
    if not rows or not rows[-1]:
        return None
    written = '"' + rows[-1][-1].replace('"', '""')
    if not text.endswith(written):
        return None
    return len(_LINE_BREAK.findall(text, 0, len(text) - len(written))) + 1


def _check_cells(cells: list[str], header: list[str], found: Sheet, line: int) -> None:
    """Refuse a row with more or fewer cells than the header: read by position, every later
    column would be shifted, or a cell dropped."""
    if len(cells) != len(header):
        raise RowError(
            line,
            f"has {len(cells)} field(s), the header {len(header)}; quote fields that hold "
            f"{found.shown()} (the separator)",
        )


def _choice(row: dict[str, Any], key: str, allowed: tuple[str, str], line: int) -> str:
    """A column that holds one of ``allowed`` or nothing, in any case (a spreadsheet writes
    TRUE and FALSE)."""
    value = (row.get(key) or "").strip().lower()
    if value and value not in allowed:
        raise RowError(line, f"has {key} {row[key]!r}; write {' or '.join(allowed)}, or leave "
                       "it empty")  # fmt: skip
    return value


def read(text: str) -> list[tuple[int, dict[str, Any]]]:
    """(line number, item mapping) per row of a CSV with this module's columns (only
    ``question`` is required), separated as ``sheet`` finds; a row is named by the line it
    starts on."""
    found = sheet(text)
    rows = records(found, text)
    number, header = next(rows, (1 + found.skipped, []))
    if "question" not in header:
        raise RowError(number, "(the header) has no 'question' column")
    for column in COLUMNS:
        if header.count(column) > 1:  # which of them is meant cannot be told
            raise RowError(number, f"(the header) names the column {column!r} twice; keep one")
    unknown = next((c for c in header if c.strip() and c not in COLUMNS), None)
    if unknown is not None:
        problem = unread("column", unknown, COLUMNS, otherwise="rename it, or remove the column")
        raise RowError(number, f"(the header) {problem}")
    return [(line, _item(cells, header, found, line)) for line, cells in rows]


def _item(cells: list[str], header: list[str], found: Sheet, line: int) -> dict[str, Any]:
    """The item mapping of one row's cells."""
    _check_cells(cells, header, found, line)
    row = dict(zip(header, cells, strict=True))
    if any(cell.strip() for name, cell in zip(header, cells, strict=True) if not name.strip()):
        raise RowError(line, "has a value in a column with no name; name the column, or "
                       "remove the value")  # fmt: skip
    points = _list(row, "key_points", line)
    sources = _list(row, "key_point_sources", line) or [[] for _ in points]
    if len(sources) != len(points):
        raise RowError(
            line,
            f"has {len(points)} key point(s) but {len(sources)} list(s) of "
            "key_point_sources; give one list per key point ([] for none)",
        )
    item: dict[str, Any] = {"question": row.get("question") or ""}
    for key in ("id", "category", "answer", "verified"):
        if row.get(key):
            item[key] = row[key]
    answerable = _choice(row, "answerable", ("true", "false"), line)
    if answerable == "false":
        item["answerable"] = False
    split = _choice(row, "split", ("tuning", "holdout"), line)
    if split:
        item["holdout"] = split == "holdout"
    if points:
        item["key_points"] = [
            {"text": t, "sources": s} for t, s in zip(points, sources, strict=True)
        ]
    for key in ("expected_sources", "must_not_say", "tags"):
        values = _list(row, key, line)
        if values:
            item[key] = values
    origin = _object(row, "origin", line)
    if origin is not None:
        item["origin"] = origin
    return item
