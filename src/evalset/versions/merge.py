"""Three-way merge of set files by item id (the git merge driver).

Two branches that each add or edit items of a set should merge without a textual conflict.
The merge compares base, ours and theirs item by item: an item changed on one side takes
that side's version (its text verbatim, comments included), items added on either side are
kept, an item changed differently on both sides is merged field by field, and only a field
changed differently on both sides is a conflict, written between git's conflict markers
with the item id and field named on the marker line. The header merges key by key.
"""

from __future__ import annotations

import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from evalset.errors import SetFileError
from evalset.sets.editor import DELETE, SetEditor
from evalset.sets.locate import TextIndex
from evalset.sets.setfile import parse_set
from evalset.sets.yamlio import parse_mapping

_MISSING = object()
ADDED_ON_BOTH = "the same id was added on both branches; renumber one"


@dataclass
class MergeResult:
    text: str
    conflicts: list[str] = field(default_factory=list)
    """``item q-003: question``, ``header: description``, one per conflicting field."""

    @property
    def clean(self) -> bool:
        return not self.conflicts


@dataclass
class _Side:
    text: str
    index: TextIndex
    header: dict[str, Any]
    items: dict[str, Any]
    """id -> the raw item mapping."""
    order: list[str]
    position: dict[str, int]

    @classmethod
    def read(cls, text: str, path: Path) -> _Side | None:
        try:
            raw = parse_mapping(text, path) if text.strip() else {"items": []}
        except SetFileError:
            return None
        entries = raw.get("items") or []
        index = TextIndex(text)
        spans = index.spans
        if not isinstance(entries, list) or (entries and spans is None):
            return None
        if spans is not None and len(spans.starts) != len(entries):
            return None
        found = [e.get("id") if isinstance(e, dict) else None for e in entries]
        if not all(isinstance(i, str) for i in found) or len(set(found)) != len(found):
            return None  # items without ids, or repeated ids, cannot be matched
        ids = cast(list[str], found)
        header = {k: v for k, v in raw.items() if k != "items"}
        items = dict(zip(ids, entries, strict=True))
        return cls(text, index, header, items, ids, {i: k for k, i in enumerate(ids)})

    def region(self, ident: str) -> str:
        spans = self.index.spans
        assert spans is not None
        k = self.position[ident]
        return self.index.region(spans.starts[k], spans.ends[k])


def _three_way(base: Any, ours: Any, theirs: Any) -> tuple[Any, bool]:
    """The merged value and whether it conflicts."""
    if ours == theirs or theirs == base:
        return ours, False
    if ours == base:
        return theirs, False
    return ours, True


def _conflict_block(label: str, ours: str, theirs: str) -> str:
    end = "" if ours.endswith("\n") else "\n"
    end_t = "" if theirs.endswith("\n") else "\n"
    return (
        f"<<<<<<< ours ({label}; evalset merge)\n"
        f"{ours}{end}=======\n{theirs}{end_t}>>>>>>> theirs\n"
    )


def merge_sets(base_text: str, ours_text: str, theirs_text: str, path: Path) -> MergeResult | None:
    """Merge three versions of a set file; None when a version cannot be read item by item
    (the caller then falls back to git's line merge)."""
    if not ours_text.strip() or not theirs_text.strip():
        return None
    sides = [_Side.read(t, path) for t in (base_text, ours_text, theirs_text)]
    if any(s is None for s in sides):
        return None
    base, ours, theirs = sides
    assert base is not None and ours is not None and theirs is not None
    conflicts: list[str] = []
    editor = SetEditor(parse_set(ours_text, path, only=()))
    # Header, key by key.
    header_conflict = False
    for key in dict.fromkeys([*ours.header, *theirs.header, *base.header]):
        o = ours.header.get(key, _MISSING)
        b, t = base.header.get(key, _MISSING), theirs.header.get(key, _MISSING)
        value, clash = _three_way(b, o, t)
        if clash:
            conflicts.append(f"header: {key}")
            header_conflict = True
        elif value is not o:
            editor.set_header(key, DELETE if value is _MISSING else value)
    # Items present in ours: kept, replaced by theirs' version, merged, or deleted.
    take_theirs: list[str] = []
    delete: list[str] = []
    conflicted: dict[str, list[str]] = {}
    for ident in ours.order:
        o, b, t = ours.items[ident], base.items.get(ident), theirs.items.get(ident)
        if t is None:
            if b is None or o == b:
                if b is not None:
                    delete.append(ident)
                continue
            conflicted[ident] = ["deleted on their side, changed on ours"]
            continue
        if o == t or t == b:
            continue
        if b is None:
            # Two items that share only an id: merging them field by field would make one
            # item of two questions.
            conflicted[ident] = [ADDED_ON_BOTH]
            continue
        if o == b:
            take_theirs.append(ident)
            continue
        changes: dict[str, Any] = {}
        clashes = []
        for key in dict.fromkeys([*o, *t, *(b or {})]):
            ov = o.get(key, _MISSING)
            bv = (b or {}).get(key, _MISSING)
            value, clash = _three_way(bv, ov, t.get(key, _MISSING))
            if clash:
                clashes.append(key)
            elif value is not ov:
                changes[key] = DELETE if value is _MISSING else value
        if clashes:
            conflicted[ident] = clashes
        elif changes:
            editor.update_item(ident, changes)
    appended: list[str] = []
    for ident in theirs.order:
        if ident in ours.items:
            continue
        b = base.items.get(ident)
        if b is None:
            appended.append(ident)
        elif theirs.items[ident] != b:
            conflicted[ident] = ["deleted on our side, changed on theirs"]
    for ident, fields in conflicted.items():
        conflicts.extend(f"item {ident}: {f}" for f in fields)
    text = editor.render()
    text = _splice(text, path, ours, theirs, take_theirs, delete, appended, conflicted)
    if header_conflict:
        text = _header_conflict(text, theirs)
    if not conflicts:
        try:
            parse_set(text, path, only=())
        except SetFileError:
            return None
    return MergeResult(text, conflicts)


def _splice(
    text: str,
    path: Path,
    ours: _Side,
    theirs: _Side,
    take_theirs: list[str],
    delete: list[str],
    appended: list[str],
    conflicted: dict[str, list[str]],
) -> str:
    """Replace, delete and append whole item regions in ``text`` (ours after the header and
    field-level edits), taking theirs' regions verbatim."""
    current = _Side.read(text, path) if conflicted or take_theirs or delete or appended else None
    if current is None:
        return text
    spans = current.index.spans
    assert spans is not None
    lines = list(current.index.lines)
    edits: list[tuple[int, int, str]] = []
    for ident in take_theirs:
        k = current.position[ident]
        edits.append((spans.starts[k], spans.ends[k], theirs.region(ident)))
    for ident in delete:
        k = current.position[ident]
        end = spans.ends[k]
        if end < len(lines) and not lines[end].strip():
            end += 1  # the blank line that separated it from the next item
        edits.append((spans.starts[k], end, ""))
    for ident, fields in conflicted.items():
        label = f"item {ident}: {', '.join(fields)}"
        if ident in current.position:
            k = current.position[ident]
            theirs_text = theirs.region(ident) if ident in theirs.position else ""
            block = _conflict_block(label, current.region(ident), theirs_text)
            edits.append((spans.starts[k], spans.ends[k], block))
    tail = [theirs.region(i) for i in appended]
    tail.extend(
        _conflict_block(f"item {i}: {', '.join(f)}", "", theirs.region(i))
        for i, f in conflicted.items()
        if i not in current.position
    )
    if tail:
        spaced = _spaced(current)
        last = spans.ends[-1] if spans.starts else spans.items_line + 1
        joined = "".join(("\n" if spaced else "") + _line_end(t) for t in tail)
        if lines and last > 0 and not lines[last - 1].endswith("\n"):
            joined = "\n" + joined
        if not spans.starts:
            # `items: []` becomes a block holding the new entries.
            edits.append((spans.items_line, spans.items_line + 1, "items:\n" + joined.lstrip("\n")))
        else:
            edits.append((last, last, joined))
    for start, end, new in sorted(edits, key=lambda e: (e[0], e[1]), reverse=True):
        lines[start:end] = [new]
    return "".join(lines)


def _line_end(text: str) -> str:
    return text if text.endswith("\n") else text + "\n"


def _spaced(side: _Side) -> bool:
    """Whether items are separated by blank lines."""
    spans = side.index.spans
    if spans is None or len(spans.starts) < 2:
        return False
    gap = side.index.lines[spans.ends[-2] : spans.starts[-1]]
    return any(not line.strip() for line in gap)


def _header_conflict(text: str, theirs: _Side) -> str:
    index = TextIndex(text)
    spans, their_spans = index.spans, theirs.index.spans
    if spans is None or their_spans is None:
        return text
    ours_header = index.region(0, spans.items_line)
    theirs_header = theirs.index.region(0, their_spans.items_line)
    rest = index.region(spans.items_line, len(index.lines))
    return _conflict_block("header", ours_header, theirs_header) + rest


def _newline_style(text: str) -> str | None:
    """The one line break a text uses ("\\n", "\\r\\n", "\\r"), "" for none, None when mixed."""
    crlf = text.count("\r\n")
    cr, lf = text.count("\r") - crlf, text.count("\n") - crlf
    kinds = [k for k, n in (("\r\n", crlf), ("\r", cr), ("\n", lf)) if n]
    return kinds[0] if len(kinds) == 1 else ("" if not kinds else None)


def merge_texts(base: str, ours: str, theirs: str, path: Path) -> MergeResult | None:
    """``merge_sets``, with line breaks merged like any change: a side that only converted
    the file to CRLF (or back) gives the result its line breaks. Files whose lines end in
    different ways are merged as they are."""
    styles = [_newline_style(t) for t in (base, ours, theirs)]
    if any(style is None for style in styles):
        return merge_sets(base, ours, theirs, path)
    plain = [t.replace("\r\n", "\n").replace("\r", "\n") for t in (base, ours, theirs)]
    known = [style or "\n" for style in styles]
    style, clash = _three_way(known[0], known[1], known[2])
    if clash:
        return None  # both sides changed the line breaks, differently: git's own merge
    result = merge_sets(plain[0], plain[1], plain[2], path)
    if result is not None and style != "\n":
        result.text = result.text.replace("\n", style)
    return result


def merge_driver(base: Path, ours: Path, theirs: Path, name: str | None = None) -> MergeResult:
    """Run as git's merge driver: merge into ``ours`` (git's %A) and report conflicts. A
    file that cannot be merged item by item (one side not UTF-8 text, or not a readable
    set) gets git's own line merge instead, which leaves conflict markers when the sides
    disagree."""
    from evalset.fsio import atomic_write

    texts: list[str] = []
    unreadable: str | None = None
    for p in (base, ours, theirs):
        data = p.read_bytes() if p.exists() else b""
        try:
            texts.append(data.decode("utf-8"))
        except UnicodeDecodeError:
            unreadable = unreadable or f"{['base', 'ours', 'theirs'][len(texts)]} is not UTF-8"
            texts.append("")
    result = None
    if unreadable is None:
        result = merge_texts(texts[0], texts[1], texts[2], Path(name or ours))
    if result is None:
        done = subprocess.run(
            ["git", "merge-file", "-L", "ours", "-L", "base", "-L", "theirs", str(ours),
             str(base), str(theirs)],
            capture_output=True, check=False,
        )  # fmt: skip
        merged = ours.read_bytes().decode("utf-8", "replace")
        why = f" ({unreadable})" if unreadable else ""
        conflicts = [f"the file could not be merged item by item{why}; git's line merge was used"]
        return MergeResult(merged, conflicts if done.returncode else [])
    atomic_write(ours, result.text)
    return result
