"""Three-way merge of set files by item id (the git merge driver).

Two branches that each add or edit items of a set should merge without a textual conflict.
The file is cut into its header (up to the ``items:`` line), one piece per item (the item
with the comment lines indented under it, and the blank and comment lines above it) and
the end of the file, and each piece is merged three ways as text, like git merges a file:
a piece changed on one side only takes that side's text, byte for byte (comments, quoting
and layout included), and one changed on both sides is merged line by line (``git
merge-file``) when the changes do not touch. When they do, the item is merged field by
field, each field's text (with the comments above it) three ways, and where both sides
changed one field, the text of the side whose value wins; the same value on both sides is
no conflict, and a field changed differently on both sides is a conflict, written between
git's conflict markers with the item id and field named on the marker line. An item each
side gave a new id is a conflict too. Items added on either side are kept, in the place
their side gave them; an item deleted on one side and left as it was on the other is
deleted, comments above it included; a new order of the items on one side is kept (ours,
when both sides ordered them anew).
"""

from __future__ import annotations

import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

from evalset.errors import CannotOpen, EvalsetError, SetFileError
from evalset.sets.editor import DELETE, SetEditor
from evalset.sets.locate import TextIndex, is_filler, item_fields, split_lines
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
        if not isinstance(entries, list) or spans is None:
            return None  # items in flow style, or no items key: no pieces to cut
        if len(spans.starts) != len(entries):
            return None
        found = [e.get("id") if isinstance(e, dict) else None for e in entries]
        if not all(isinstance(i, str) for i in found) or len(set(found)) != len(found):
            return None  # items without ids, or repeated ids, cannot be matched
        ids = cast(list[str], found)
        header = {k: v for k, v in raw.items() if k != "items"}
        items = dict(zip(ids, entries, strict=True))
        return cls(text, index, header, items, ids, {i: k for k, i in enumerate(ids)})

    def head(self) -> str:
        """The header, up to and with the ``items:`` line."""
        spans = self.index.spans
        assert spans is not None
        return self.index.region(0, spans.items_line + 1)

    def piece(self, ident: str) -> str:
        """An item's text with the comments indented under its last line, and the lines
        between it and the item before (or the ``items:`` line): its blank lines and the
        comments above it."""
        spans = self.index.spans
        assert spans is not None
        k = self.position[ident]
        start = self._owned_end(k - 1) if k else spans.items_line + 1
        return self.index.region(start, self._owned_end(k))

    def _owned_end(self, k: int) -> int:
        spans = self.index.spans
        assert spans is not None
        return spans.owned_end(self.index.lines, k)

    def tail(self) -> str:
        """What follows the last item: comments, blank lines, keys after the items."""
        spans = self.index.spans
        assert spans is not None
        start = self._owned_end(len(spans.starts) - 1) if spans.starts else spans.items_line + 1
        return self.index.region(start, len(self.index.lines))


def _three_way(base: Any, ours: Any, theirs: Any) -> tuple[Any, bool]:
    """The merged value and whether it conflicts."""
    if ours == theirs or theirs == base:
        return ours, False
    if ours == base:
        return theirs, False
    return ours, True


def _merge_text(base: str, ours: str, theirs: str) -> str | None:
    """Three texts merged as git merges a file, or None when both sides changed lines that
    touch."""
    merged, clash = _three_way(base, ours, theirs)
    if not clash:
        return cast(str, merged)
    with tempfile.TemporaryDirectory(prefix="evalset-merge-") as folder:
        paths = []
        for name, text in (("ours", ours), ("base", base), ("theirs", theirs)):
            path = Path(folder) / name
            path.write_bytes(text.encode("utf-8"))
            paths.append(str(path))
        done = subprocess.run(
            ["git", "merge-file", "-p", *paths], capture_output=True, check=False
        )  # fmt: skip
    return done.stdout.decode("utf-8") if done.returncode == 0 else None


def _readable(
    merged: str | None, path: Path, ours: str, theirs: str, head: bool = False
) -> str | None:
    """A piece (an item's, or the header with ``head``) merged line by line, or None when
    that merge is no readable YAML though each side's piece is: both sides added one key on
    lines that do not touch, and git's line merge kept it twice. The piece is then merged by
    field, which names the key when the two values differ."""
    if merged is None or merged in (ours, theirs):
        return merged
    prefix = "" if head else "items:\n"

    def reads(text: str) -> bool:
        try:
            parse_mapping(prefix + text, path)
        except SetFileError:
            return False
        return True

    # a piece that cannot be read alone on either side (an alias of an anchor elsewhere in
    # the file) is judged with the whole file, as before
    return merged if reads(merged) or not (reads(ours) and reads(theirs)) else None


def _conflict_block(label: str, ours: str, theirs: str) -> str:
    end = "" if not ours or ours.endswith("\n") else "\n"
    end_t = "" if not theirs or theirs.endswith("\n") else "\n"
    return (
        f"<<<<<<< ours ({label}; evalset merge)\n"
        f"{ours}{end}=======\n{theirs}{end_t}>>>>>>> theirs\n"
    )


@dataclass
class _Merge:
    """One merge in progress: the pieces decided so far, and the conflicts."""

    path: Path
    base: _Side
    ours: _Side
    theirs: _Side
    pieces: dict[str, str] = field(default_factory=dict)
    """id -> the item's merged piece (a conflict block for an item in conflict)."""
    by_value: dict[str, dict[str, Any]] = field(default_factory=dict)
    """id -> the fields to set on our item, merged as values (their changes touched ours)."""
    header_changes: dict[str, Any] = field(default_factory=dict)
    conflicts: list[str] = field(default_factory=list)

    def item(self, ident: str) -> None:
        """Decide the piece of an item ours or theirs has (none: it is deleted)."""
        ours, base, theirs = self.ours, self.base, self.theirs
        o = ours.piece(ident) if ident in ours.position else None
        b = base.piece(ident) if ident in base.position else None
        t = theirs.piece(ident) if ident in theirs.position else None
        if o is None or t is None:  # deleted on one side, or added on one
            kept, side = (t, "their") if o is None else (o, "our")
            if b is None:
                self.pieces[ident] = cast(str, kept)
            elif kept != b:
                other = "our" if side == "their" else "their"
                moved = _given_another_id(base, ours if o is None else theirs, ident)
                gone = f"deleted (or given the id {moved} and edited)" if moved else "deleted"
                self._conflict(ident, [f"{gone} on {other} side, changed on {side}s"])
            return
        if o != t and _same_sealed(ours.items[ident], theirs.items[ident]):
            # sealed on both sides, the same content to the same keys: each sealing writes
            # its own ciphertext, and either side's opens as the other's
            self.pieces[ident] = o
            return
        if b is None:
            if o == t:
                self.pieces[ident] = o
            elif ours.items[ident] == theirs.items[ident]:
                # the same item, its comments (or layout) not: one side's would be lost
                self._conflict(ident, ["added on both sides with other comments or layout"])
            else:
                # Two items that share only an id: merging them field by field would make
                # one item of two questions.
                self._conflict(ident, [self._taken_twice(ident)])
            return
        was = _sealed(base.items[ident])
        for sealed, other, side in ((_sealed(ours.items[ident]), t, "our"),
                                    (_sealed(theirs.items[ident]), o, "their")):  # fmt: skip
            if sealed != was and other != b and o != t:
                # a change can only go into sealed content with the key, by hand
                self._conflict(ident, [f"sealed (or sealed again) on {side} side and changed "
                                       "on the other; unseal it with the key, make the "
                                       "change, and seal it again"])  # fmt: skip
                return
        merged = _readable(_merge_text(b, o, t), self.path, o, t)
        if merged is not None:
            self.pieces[ident] = merged
            return
        self.pieces[ident] = o
        try:
            by_field, changes, clashes = _fields_merged(
                self.path, (b, o, t), (base.items[ident], ours.items[ident], theirs.items[ident])
            )
        except _CommentsClash as clash:  # kept as ours, theirs' edit would be lost unseen
            self._conflict(ident, [clash.where])
            return
        if clashes:
            self._conflict(ident, clashes)
        elif by_field is not None:
            self.pieces[ident] = by_field  # each side's text of the fields it changed
        elif changes:
            self.by_value[ident] = changes
        elif _lost_comments(b, t, o):  # no value changed there, but theirs' comments would go
            self._conflict(ident, ["the comments"])

    def _taken_twice(self, ident: str) -> str:
        """What a conflict over a new id says: added on both branches, or (when a side gave
        it to an item of the base) which item each side gave it to."""
        given = [
            next((old for old, new in _renames(self.base, side).items() if new == ident), None)
            for side in (self.ours, self.theirs)
        ]
        if given == [None, None]:
            return ADDED_ON_BOTH
        ours, theirs = (f"to {old} (renamed)" if old else "to a new item" for old in given)
        return f"the same id was given {ours} on our side and {theirs} on theirs; renumber one"

    def renamed(self) -> set[str]:
        """The items a side gave another id and nothing else (a rename, found as such):
        decided here, as a change of the id the other side's changes merge with; returns
        the ids decided. A rename is a change: against a deletion, or another rename, it is
        a conflict, and one against an edit that touches it too."""
        handled: set[str] = set()
        ours, base, theirs = self.ours, self.base, self.theirs
        mine, yours = _renames(base, ours), _renames(base, theirs)
        for ident in base.order:
            new, other = mine.get(ident), yours.get(ident)
            if new is None and other is None:
                continue
            if new is not None and other is not None:
                if new != other:  # one item under two ids: keeping both would hold it twice
                    self._block(f"item {ident}: renamed to {new} on our side and to {other} "
                                "on theirs; keep one id", new, ours.piece(new),
                                theirs.piece(other))  # fmt: skip
                    handled |= {new, other}
                continue  # the same new id on both sides: merged as that item
            side, kept, still = (("our", ours, theirs) if new is not None else
                                 ("their", theirs, ours))  # fmt: skip
            renamed = cast(str, new if new is not None else other)
            there = "their" if side == "our" else "our"
            there_id = ident if ident in still.position else renamed
            if there_id not in still.position:  # deleted there (or given another id, edited)
                self._block(f"item {ident}: renamed to {renamed} on {side} side, deleted (or "
                            f"given another id) on {there}s", renamed,
                            *((kept.piece(renamed), "") if side == "our" else
                              ("", kept.piece(renamed))))  # fmt: skip
                handled.add(renamed)
                continue
            # there, the item as it was, or under the same new id (and edited)
            b, edited = base.piece(ident), still.piece(there_id)
            if edited == b:
                continue  # unchanged there: the rename stands (the old id goes, the new stays)
            pair = (kept.piece(renamed), edited) if side == "our" else (edited, kept.piece(renamed))
            merged = _readable(_merge_text(b, *pair), self.path, *pair)
            if merged is None:  # lines that touch (the id's and the first field's): by field
                values = (kept.items[renamed], still.items[there_id])
                try:
                    merged, _, clashes = _fields_merged(
                        self.path, (b, *pair),
                        (base.items[ident], *(values if side == "our" else values[::-1])),
                    )  # fmt: skip
                except _CommentsClash:
                    merged = None
                merged = None if clashes else merged
            if merged is not None:
                self.pieces[renamed] = merged  # the new id with the other side's edits
            else:
                self._block(f"item {ident}: renamed to {renamed} on {side} side, changed on "
                            f"{there}s", renamed, *pair)  # fmt: skip
            handled |= {ident, renamed}
        return handled

    def _block(self, label: str, ident: str, ours: str, theirs: str) -> None:
        """A conflict over what stands at ``ident``."""
        self.pieces[ident] = _conflict_block(label, ours, theirs)
        self.conflicts.append(label)

    def _conflict(self, ident: str, fields: list[str]) -> None:
        label = f"item {ident}: {', '.join(fields)}"
        ours = self.ours.piece(ident) if ident in self.ours.position else ""
        theirs = self.theirs.piece(ident) if ident in self.theirs.position else ""
        self.pieces[ident] = _conflict_block(label, ours, theirs)
        self.conflicts.extend(f"item {ident}: {f}" for f in fields)

    def head(self) -> str:
        """The merged header: as text, else key by key as values."""
        base, ours, theirs = self.base, self.ours, self.theirs
        merged = _merge_text(base.head(), ours.head(), theirs.head())
        if _readable(merged, self.path, ours.head(), theirs.head(), head=True) is not None:
            return cast(str, merged)
        clashes = []
        for key in dict.fromkeys([*ours.header, *theirs.header, *base.header]):
            before = ours.header.get(key, _MISSING)
            b, t = base.header.get(key, _MISSING), theirs.header.get(key, _MISSING)
            value, clash = _three_way(b, before, t)
            if clash:
                clashes.append(f"header: {key}")
            elif value is not before:
                self.header_changes[key] = DELETE if value is _MISSING else value
        if clashes:
            self.conflicts.extend(clashes)
            self.header_changes.clear()
            return _conflict_block("header", ours.head(), theirs.head())
        if not self.header_changes and _lost_comments(base.head(), theirs.head(), ours.head()):
            return self._header_comments()
        return ours.head()

    def _header_comments(self) -> str:
        """Both sides changed the header in lines that touch, and a comment theirs added
        would be lost merging it by value: a conflict."""
        self.header_changes.clear()
        self.conflicts.append("header: the comments")
        return _conflict_block("header: the comments", self.ours.head(), self.theirs.head())

    def by_values(self, head: str) -> str:
        """``head`` and the pieces of items merged as values, with those values written into
        our text (only the fields and keys that changed are rewritten)."""
        if not self.by_value and not self.header_changes:
            return head
        try:
            editor = SetEditor(parse_set(self.ours.text, self.path, only=()))
            for key, value in self.header_changes.items():
                editor.set_header(key, value)
            for ident, changes in self.by_value.items():
                editor.update_item(ident, changes)
            written = _Side.read(editor.render(), self.path)
        except EvalsetError:  # an item the round-trip editor cannot read on its own
            written = None
        if written is None:
            for ident, changes in self.by_value.items():
                self._conflict(ident, list(changes))
            if self.header_changes:
                self.conflicts.append("header: merged by value, which could not be written")
                return _conflict_block("header", self.ours.head(), self.theirs.head())
            return head
        for ident in self.by_value:
            piece = written.piece(ident)
            if _lost_comments(self.base.piece(ident), self.theirs.piece(ident), piece):
                self._conflict(ident, ["the comments"])  # theirs added; by value they go
            else:
                self.pieces[ident] = piece
        if not self.header_changes:
            return head
        if _lost_comments(self.base.head(), self.theirs.head(), written.head()):
            return self._header_comments()
        return written.head()


def _sealed(item: Any) -> Any:
    """An item's sealed content (None for a plain item)."""
    return item.get("sealed") if isinstance(item, dict) else None


def _same_sealed(a: Any, b: Any) -> bool:
    """Whether two items are both sealed, and alike in all but their ciphertext: the same
    visible fields, the same content (its fingerprint) and the same recipients."""
    sealed_a, sealed_b = _sealed(a), _sealed(b)
    if not isinstance(sealed_a, dict) or not isinstance(sealed_b, dict):
        return False

    def shown(item: dict[str, Any], sealed: dict[str, Any]) -> dict[str, Any]:
        return {**item, "sealed": {k: v for k, v in sealed.items() if k != "age"}}

    return shown(a, sealed_a) == shown(b, sealed_b) and "fingerprint" in sealed_a


def _without_id(item: Any) -> Any:
    return {k: v for k, v in item.items() if k != "id"} if isinstance(item, dict) else item


def _given_another_id(base: _Side, side: _Side, ident: str) -> str | None:
    """The new id ``side`` likely gave the base item ``ident`` it no longer holds, with
    other edits (a plain rename is found by ``_renames``): the one item ``side`` added that
    differs from it in one field besides its id."""
    was = base.items[ident]
    if not isinstance(was, dict):
        return None
    found = []
    for new in side.order:
        item = side.items[new]
        if new in base.position or not isinstance(item, dict):
            continue
        keys = (set(was) | set(item)) - {"id"}
        if sum(was.get(k, _MISSING) != item.get(k, _MISSING) for k in keys) <= 1:
            found.append(new)
    return found[0] if len(found) == 1 else None


def _renames(base: _Side, side: _Side) -> dict[str, str]:
    """base id -> new id, for each item of ``base`` that ``side`` holds only under another
    id, all else the same (one such new item, matching one base item only)."""
    gone = [i for i in base.order if i not in side.position]
    new = [i for i in side.order if i not in base.position]
    if not gone or not new:
        return {}
    found: dict[str, list[str]] = {}
    for ident in gone:
        was = _without_id(base.items[ident])
        found[ident] = [i for i in new if _without_id(side.items[i]) == was]
    claimed = [i for matches in found.values() for i in matches]
    return {
        ident: matches[0]
        for ident, matches in found.items()
        if len(matches) == 1 and claimed.count(matches[0]) == 1
    }


def _fields_merged(
    path: Path, texts: tuple[str, str, str], items: tuple[Any, Any, Any]
) -> tuple[str | None, dict[str, Any], list[str]]:
    """An item's texts (base, ours, theirs) that do not merge as text, merged by field: (the
    merged text, else None; the values theirs changed, to write into ours' text; the keys
    both sides changed to other values, a conflict). ``_CommentsClash`` when both sides
    changed the comments or layout of one field in lines that touch."""
    bv, ov, tv = items
    changes: dict[str, Any] = {}
    clashes = []
    for key in dict.fromkeys([*ov, *tv, *bv]):
        before = ov.get(key, _MISSING)
        value, clash = _three_way(bv.get(key, _MISSING), before, tv.get(key, _MISSING))
        if clash:
            clashes.append(key)
        elif value is not before:
            changes[key] = DELETE if value is _MISSING else value
    if clashes:
        return None, changes, clashes
    wanted = {k: v for k, v in ov.items() if k not in changes}
    wanted.update((k, v) for k, v in changes.items() if v is not DELETE)
    values = {k: (bv.get(k, _MISSING), ov.get(k, _MISSING), tv.get(k, _MISSING))
              for k in dict.fromkeys([*ov, *tv, *bv])}  # fmt: skip
    by_field = _merge_fields(*texts, values)
    if by_field is not None and _item_of(by_field, path) == wanted:
        return by_field, changes, []  # each side's text of the fields it changed
    return None, changes, []


def _merge_fields(
    base: str, ours: str, theirs: str, values: dict[str, tuple[Any, Any, Any]]
) -> str | None:
    """An item changed on both sides in lines that touch, merged field by field as text:
    each field (with the comments above it) three ways, as git merges a file; where both
    sides changed one field's lines, the text of the side whose value the merge keeps.
    None when the item cannot be cut into fields alike on the three sides."""
    cut = [item_fields(text) for text in (base, ours, theirs)]
    if any(c is None for c in cut):
        return None
    b, o, t = (dict(c or []) for c in cut)
    order = [n for n, _ in cut[1] or []]
    if (cut[0] or [("", "")])[1][0] != order[1] or (cut[2] or [("", "")])[1][0] != order[1]:
        return None  # another key first: the "-" would move
    order[-1:-1] = [n for n, _ in cut[2] or [] if n not in o and n not in b]
    for name in b:
        if name not in o and name in t and t[name] != b[name]:
            # ours deleted a field whose text theirs changed: its value did not change (that
            # is a clash of values, found before), so its comments did
            raise _CommentsClash(name)
    out = []
    for name in order:
        texts = (b.get(name, ""), o.get(name, ""), t.get(name, ""))
        merged = _merge_text(*texts)
        if merged is None:
            merged = _merge_field(name, texts, values.get(name, (_MISSING, _MISSING, _MISSING)))
        if merged is None:
            return None
        out.append(merged)
    return "".join(out)


def _merge_field(
    name: str, texts: tuple[str, str, str], values: tuple[Any, Any, Any]
) -> str | None:
    """One field changed on both sides in lines that touch (base, ours, theirs): the comment
    lines above its key merged apart from its lines, so that one side's new comment and the
    other's new value both stay; where both sides changed its lines, the text of the side
    whose value the merge keeps. None when both changed its value differently;
    ``_CommentsClash`` when both changed its comments in lines that touch."""
    cut = [_comments_above(text) for text in texts]
    comments = _merge_text(*(c for c, _ in cut))
    lines = _merge_text(*(rest for _, rest in cut))
    if lines is None:
        was, now, their = values
        if now == their:  # ours' lines, unless theirs hold a comment ours do not
            if _lost_comments(cut[0][1], cut[2][1], cut[1][1]):
                raise _CommentsClash(name, inside=True)
            lines = cut[1][1]
        elif their == was or now == was:
            # one side kept the value and changed the field's lines all the same: a comment
            # in them (`tags: [a]  # approved`, one between its entries) or their layout,
            # which the other side's new value, taken whole, would lose without a word
            raise _CommentsClash(name, inside=True)
    if comments is None and lines is not None:
        raise _CommentsClash(name)
    return None if comments is None or lines is None else comments + lines


def _lost_comments(base: str, side: str, merged: str) -> bool:
    """Whether a comment ``side`` added to ``base`` (on a line of its own or after a value)
    is not in ``merged``: what a merge by value, which rewrites values into the other side's
    text, must not drop without a word."""
    before = set(split_lines(base))
    for line in split_lines(side):
        if line in before or "#" not in line:
            continue
        stripped = line.strip()
        at = 0 if stripped.startswith("#") else stripped.find(" #") + 1
        if at or stripped.startswith("#"):
            comment = stripped[at:].strip()
            if comment and comment not in merged:
                return True
    return False


class _CommentsClash(Exception):
    """Both sides changed the comment lines above one field (or one side changed them and
    the other deleted the field), or one side changed a field's value and the other its
    comments or layout (``inside``): a conflict, as git's would be, rather than one side's
    comments kept and the other's edit lost without a word."""

    def __init__(self, name: str, inside: bool = False) -> None:
        super().__init__(name)
        self.where = {"^": "the comments above it", "$": "the comments under it"}.get(
            name, f"the comments or layout in {name}" if inside else f"the comments above {name}"
        )


def _comments_above(text: str) -> tuple[str, str]:
    """A field's text as the blank and comment lines above its key, and the rest."""
    lines = split_lines(text)
    n = next((i for i, line in enumerate(lines) if not is_filler(line)), len(lines))
    return "".join(lines[:n]), "".join(lines[n:])


def _item_of(piece: str, path: Path) -> dict[str, Any] | None:
    """The item a merged piece holds, read as a set file's item is."""
    try:
        entries = parse_mapping("items:\n" + piece, path).get("items")
    except SetFileError:
        return None
    return entries[0] if isinstance(entries, list) and len(entries) == 1 else None


def _reordered(side: _Side, base: _Side, shared: set[str]) -> bool:
    return [i for i in side.order if i in shared] != [i for i in base.order if i in shared]


def _interleave(primary: list[str], secondary: list[str]) -> list[str]:
    """``primary``, with each id only ``secondary`` has placed after the id it follows
    there (past the ids only ``primary`` added at that place)."""
    out = list(primary)
    present, theirs = set(out), set(secondary)
    anchor: str | None = None
    for ident in secondary:
        if ident not in present:
            at = out.index(anchor) + 1 if anchor is not None else 0
            while at < len(out) and out[at] not in theirs:
                at += 1
            out.insert(at, ident)
            present.add(ident)
        anchor = ident
    return out


def merge_sets(base_text: str, ours_text: str, theirs_text: str, path: Path) -> MergeResult | None:
    """Merge three versions of a set file; None when a version cannot be cut into items
    (items in flow style, no ``items`` key, unreadable YAML: the caller then falls back to
    git's line merge)."""
    if not ours_text.strip() or not theirs_text.strip():
        return None
    if not base_text.strip():  # added on both sides (git's add/add): from a set of no items
        base_text = "items: []\n"
    sides = [_Side.read(t, path) for t in (base_text, ours_text, theirs_text)]
    if any(s is None for s in sides):
        return None
    base, ours, theirs = sides
    assert base is not None and ours is not None and theirs is not None
    if _end_taken(base, ours, theirs) or _end_taken(base, theirs, ours):
        return None  # git's line merge tells the two changes of the end apart, or conflicts
    merge = _Merge(path, base, ours, theirs)
    handled = merge.renamed()
    for ident in dict.fromkeys([*ours.order, *theirs.order]):
        if ident not in handled:
            merge.item(ident)
    head = merge.by_values(merge.head())
    tail = _merge_text(base.tail(), ours.tail(), theirs.tail())
    if tail is None:
        merge.conflicts.append("the end of the file")
        tail = _conflict_block("the end of the file", ours.tail(), theirs.tail())
    shared = set(base.order) & set(ours.order) & set(theirs.order)
    first, second = (theirs, ours) if (
        _reordered(theirs, base, shared) and not _reordered(ours, base, shared)
    ) else (ours, theirs)  # fmt: skip
    kept = merge.pieces
    order = _interleave(
        [i for i in first.order if i in kept], [i for i in second.order if i in kept]
    )
    text = _joined(head, [kept[i] for i in order], tail)
    if not merge.conflicts:
        merged = _Side.read(text, path)
        if merged is None or merged.order != order:
            return None
        try:
            parse_set(text, path, only=())
        except SetFileError:
            return None
        merge.conflicts += [
            f"the merged set: {finding}; each side is valid without the other's change"
            for finding in _new_errors(path, ours_text, theirs_text, text)
        ]
    return MergeResult(text, merge.conflicts)


def _end_taken(base: _Side, side: _Side, other: _Side) -> bool:
    """Whether ``side`` appended an item below the comments that ended the file, which then
    read as that item's own (and the end as deleted), while ``other`` changed the end (or
    did the same): merged piece by piece, those comments would come back after ``other``
    deleted them, or twice."""
    end = base.tail()
    if not end.strip():
        return False
    taken = any(side.piece(i).startswith(end) for i in side.order if i not in base.items)
    return taken and other.tail() != end


def _new_errors(path: Path, ours: str, theirs: str, merged: str) -> list[str]:
    """The errors `evalset validate` finds in the merged text (its checks of the file alone:
    no snapshot) that neither side has: changes that merge as text but not as a set (a
    category deleted on one side, used on the other; two near-identical questions added on
    either side of the holdout; a holdout item in plain text in a set sealed on the other
    side, which a commit of the merge would write into history). The first few, as one line
    each."""
    from evalset.sets.validate import check_set

    def errors(text: str) -> dict[tuple[Any, ...], str]:
        try:
            # sealed_before=[]: a plain holdout item in a set holding sealed ones is an error
            found = check_set(parse_set(text, path), errors_only=True, sealed_before=[])
        except SetFileError:  # a side that is no readable set (merged line by line)
            return {}
        return {(f.item, f.field, f.rule, f.message): f"{f.item or 'header'}: {f.message}"
                for f in found}  # fmt: skip

    now = errors(merged)
    if not now:
        return []
    before = errors(ours).keys() | errors(theirs).keys()
    return [shown for key, shown in now.items() if key not in before][:5]


def _joined(head: str, pieces: list[str], tail: str) -> str:
    """The file from its parts: each ends its last line, and the ``items:`` line says
    ``[]`` exactly when no item follows."""
    lines = head.splitlines(keepends=True)
    if lines:
        last = lines[-1]
        key = last[: len(last) - len(last.lstrip())] + "items:"
        newline = last[len(last.rstrip("\r\n")) :] or "\n"
        if pieces and last.split("#")[0].strip() in ("items: []", "items: null", "items: ~"):
            lines[-1] = key + newline
        elif not pieces and last.split("#")[0].strip() == "items:":
            lines[-1] = key + " []" + newline
    out = ["".join(lines)]
    for piece in [*pieces, tail]:
        if out[-1] and not out[-1].endswith("\n") and piece:
            out.append("\n")
        out.append(piece)
    return "".join(out)


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
        data = _read_version(p, p is base)
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
        conflicts = [
            "the whole file, merged by git line by line, as it could not be merged item by "
            f"item{why}"
        ]
        if done.returncode == 0:  # merged line by line: committed, unless it is no set
            path = Path(name or ours)
            problem = _unreadable(merged, path)
            conflicts = [] if problem is None else [
                f"the whole file: git's line merge gave no readable set ({problem}); fix it, "
                "then `git add` it"
            ]  # fmt: skip
            if problem is None:  # or a set with an error neither side has (an id twice)
                conflicts = [
                    f"the merged set (git's line merge): {finding}; each side is valid "
                    "without the other's change"
                    for finding in _new_errors(path, texts[1], texts[2], merged)
                ]
        return MergeResult(merged, conflicts)
    atomic_write(ours, result.text)
    return result


def _read_version(path: Path, base: bool) -> bytes:
    """One of the three versions git hands the driver; a missing base is an empty one (a file
    added on both sides), a missing or unreadable ours or theirs a mistake of whoever ran
    the driver by hand: one sentence, nothing written."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        if base:
            return b""
        problem = "no such file"
    except IsADirectoryError:
        problem = "is a folder, not a file"
    except OSError as exc:
        problem = f"cannot be read ({exc.strerror or exc})"
    raise CannotOpen(
        f"{path}: {problem}; the merge driver takes the three versions of a set file git "
        "writes for it (`evalset merge-driver %O %A %B %P`, as `evalset init --git-hooks` "
        "registers it): name existing files."
    )


def _unreadable(text: str, path: Path) -> str | None:
    """Why a file merged line by line is no readable set (None: it is one)."""
    try:
        parse_set(text, path, only=())
    except SetFileError as exc:
        return str(exc).rstrip(".")
    return None
