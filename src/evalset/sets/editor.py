"""Surgical editing of set files: re-render only the items (or header keys) an edit touches
with ruamel.yaml round-trip and splice them into the original text, so every other byte
stays as the user wrote it (line breaks, byte-order mark, comments, quoting). Writes hold a
lock, re-validate what they touched, check that nothing else changed, and replace the file
atomically.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import re
import sys
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from evalset.errors import EditRefused, SetFileError
from evalset.fsio import as_path, atomic_write
from evalset.sets.findings import Finding, field_path
from evalset.sets.locate import (
    flow_values,
    is_filler,
    item_columns,
    item_fields,
    line_break,
    lone_dash,
    shorten_long_comments,
    split_lines,
)
from evalset.sets.lock import SetLock, set_lock
from evalset.sets.model import Item, SetHeader, side
from evalset.sets.setfile import SetFile, load_set, named_not_given, parse_set
from evalset.sets.standins import MisreadTab, StandIns, refuse_reserved
from evalset.sets.yamlio import NEVER_FOLD, flow_entry, writes_portably


def _yaml(indent: tuple[int, int, int]) -> Any:
    from ruamel.yaml import YAML

    yaml = writes_portably(YAML(typ="rt", pure=True))
    yaml.preserve_quotes = True
    yaml.width = NEVER_FOLD  # never re-wrap a line (a tag or a category's meaning has no limit)
    yaml.indent(mapping=indent[0], sequence=indent[1], offset=indent[2])
    return yaml


def _dump(yaml: Any, data: Any) -> str:
    """``data`` as the YAML library writes it, without the document end marker (``...``)
    it adds after a last value that keeps its trailing blank lines (``|+``): in the file
    the next item, or the file's end, ends that value as well, and a marker there would
    end the file's one document."""
    import io

    out = io.StringIO()
    yaml.dump(data, out)
    text = out.getvalue()
    return text[:-4] if text.endswith("\n...\n") else text


def _entries(yaml: Any, data: Any) -> str:
    """The lines under ``items:`` of ``{"items": [...]}`` as the YAML library writes it."""
    return _dump(yaml, data).split("\n", 1)[1]


def _plain(value: Any, owner: str = "a value to write", at: tuple[str | int, ...] = ()) -> Any:
    """Models become the plain data they serialise to, wherever they are; everything else
    passes through. Refused, named by ``owner`` (the file and item) and ``at`` (its place
    there): a text holding a character of ``RESERVED`` (see ``StandIns``) or a lone
    surrogate (no text: a byte of a command-line argument that is not UTF-8), a whole
    number too long to write as text, and a value a set file cannot hold (a Path, a
    Decimal, bytes, a set: the YAML library has no form for the first, and writes the
    others with tags set files do not allow), which would be found only once the edit
    ends."""
    if isinstance(value, BaseModel):
        value = value.model_dump(mode="json", exclude_defaults=True, by_alias=True)
    if isinstance(value, (list, tuple)):
        return [_plain(v, owner, (*at, i)) for i, v in enumerate(value)]
    if isinstance(value, dict):
        plain = {}
        for k, v in value.items():
            if isinstance(k, str):
                k = _plain(k, owner, at)
            else:  # checked as a value, but kept as it is (a tuple is no list): the schema
                _plain(k, owner, at)  # refuses a key that is no text by its place
            plain[k] = _plain(v, owner, (*at, str(k)))
        return plain
    where = f"{owner}: {field_path(at)}" if at else owner
    if isinstance(value, str):
        refuse_reserved(value, f"{where}: the value to write" if at else "the value to write")
    elif type(value) is int and _too_long(value):
        raise EditRefused(
            f"{where}: a whole number of more than {sys.get_int_max_str_digits():,} digits "
            "cannot be written (it would not be read back); give it as text. The file is "
            "unchanged."
        )
    elif type(value) not in _SCALARS and value is not DELETE and not _settable(value):
        why = (
            f"YAML has no form for {_kind(value)}"
            if not _writable(value)
            else f"a set file holds no {type(value).__name__}"
        )
        raise EditRefused(
            f"{where}: {_shown(value)} cannot be written in a set file ({why}); give it as "
            "text, a number, true or false, a date, or a list or mapping of these. The file "
            "is unchanged."
        )
    return value


def _too_long(value: int) -> bool:
    """Whether ``value`` has more digits than Python turns into text and reads back."""
    limit = sys.get_int_max_str_digits()
    return bool(limit) and value.bit_length() > 3 * limit and abs(value) >= 10**limit


def _shown(value: Any) -> str:
    """``value``'s repr, cut to 60 characters; a number too long to print is said so."""
    try:
        return repr(value)[:60]
    except ValueError:
        return f"a number of more than {sys.get_int_max_str_digits():,} digits"


def _settable(value: Any) -> bool:
    """Whether a set file can hold ``value`` as the YAML library writes it: bytes and sets
    it writes with tags (``!!binary``, ``!!set``) a set file does not allow."""
    if isinstance(value, (bytes, bytearray, memoryview, set, frozenset)):
        return False
    return _writable(value)


_SCALARS = (int, float, bool, type(None))


def _writable(value: Any) -> bool:
    """Whether the YAML library has a way to write ``value``: one for its type or, failing
    that, for one of the types it derives from, as the library looks them up."""
    from ruamel.yaml.representer import RoundTripRepresenter as writer

    kinds = type(value).__mro__
    return kinds[0] in writer.yaml_representers or any(
        kind in writer.yaml_multi_representers for kind in kinds
    )


def _kind(value: Any) -> str:
    """``value``'s type for a sentence: ``a list``, ``an Item``."""
    name = type(value).__name__
    return f"{'an' if name[:1].lower() in 'aeiou' else 'a'} {name}"


DELETE = object()
"""Pass as a field's new value to remove the field."""


class SetEditor:
    """The changes of one edit transaction (see ``edit_set``); nothing is written until it ends."""

    def __init__(self, current: SetFile) -> None:
        self.current = current
        self._item_changes: dict[int, dict[str, Any]] = {}
        self._item_edits: dict[int, list[Callable[[Any], None]]] = {}
        self._appended: list[dict[str, Any]] = []
        self._header_changes: dict[str, Any] = {}
        self._replaced: dict[int, dict[str, Any]] = {}
        self._replaced_texts: dict[int, str] = {}
        """Item position -> its replacement as written, once rendered: sealing renders the
        file to check it before the edit ends and renders it, and writing a sealed entry's
        armored text is most of the time either takes."""
        self._long_comments: dict[str, str] = {}
        """Placeholder -> the long comment it stands for while ruamel.yaml has a region."""
        self._stand_ins: StandIns | None = None
        """What ruamel.yaml would misread, replaced while it has a region (``StandIns``)."""
        self._restored: dict[int, str] = {}
        self._renames: dict[int, list[tuple[Mapping[str, str], Callable[[Any], None]]]] = {}
        """Edits of items that rename values (citations), each with its renames: made in the
        item's text where that reads as the edit (``_renamed``), keeping comments and the
        layout of flow lists, which the YAML library would drop on writing them."""
        self._meant: dict[int, str | None] = {}
        """Each item edited in its region, as the YAML library writes it edited: what the
        file must read back as (``_check``), whatever text is kept around it."""

    @property
    def changed(self) -> bool:
        return bool(
            self._item_changes
            or self._item_edits
            or self._appended
            or self._header_changes
            or self._replaced
            or self._restored
        )

    @property
    def touched(self) -> set[int]:
        """File indices of the items this edit changes."""
        return (
            set(self._item_changes)
            | set(self._item_edits)
            | set(self._replaced)
            | set(self._restored)
        )

    def _editable(self, item_id: str) -> int:
        k = self._position_of(item_id)
        self._refuse_sealed(k)
        return k

    def _refuse_sealed(self, k: int) -> None:
        """Refuse to change the item at file position ``k`` while it is sealed to another
        key than the one at hand (or none is): its content cannot be read, nor sealed again.
        So is a sealed entry the schema refuses, with or without the key: it is not opened,
        and written to as it is, its visible fields would part from its sealed content."""
        current = self.current
        if k in current.sealed_index:
            from evalset.sets.sealed import refused_sealed

            raise refused_sealed(current.path, current.raw_items[k]["id"])
        entry = current.raw_items[k]
        if isinstance(entry, dict) and "sealed" in entry and k not in current.opened:
            ident = entry.get("id")
            invalid = current.not_valid(str(ident)) if ident is not None else None
            if invalid is None:  # no id to name it by (an edit by position)
                line, col = current.position(("items", k))
                where = f"{current.path}:{line}:{col}" if line else str(current.path)
                invalid = (
                    f"{where}: sealed item #{k + 1} is not valid; fix it (`evalset validate "
                    f"{current.name}` lists the problems)"
                )
            raise EditRefused(f"{invalid}, then run the command again. The file is unchanged.")

    def _position_of(self, item_id: str) -> int:
        if not isinstance(item_id, str):  # (None would be looked for, and not found, as 'None')
            raise TypeError(f"an item's id is text, such as 'q-014', not {_kind(item_id)}")
        found = [
            k
            for k, entry in enumerate(self.current.raw_items)
            if isinstance(entry, dict) and entry.get("id") == item_id
        ]
        if not found:
            invalid = self.current.not_valid(item_id)  # its id not written as text: `id: 12`
            if invalid is not None:
                raise EditRefused(f"{invalid}, then run the command again. The file is unchanged.")
            hint = self.current.did_you_mean(item_id)
            raise EditRefused(f"{self.current.path}: has no item {item_id!r}{hint}; check the id.")
        if len(found) > 1:
            lines = [self.current.position(("items", k))[0] for k in found]
            where = " and ".join(f"line {n}" for n in lines if n) or f"{len(found)} places"
            raise EditRefused(
                f"{self.current.path}: the id {item_id!r} is used by more than one item "
                f"({where}), so an edit cannot tell which is meant; give each a unique id, "
                "then run the command again. The file is unchanged."
            )
        return found[0]

    def update_item(self, item_id: str, changes: Mapping[str, Any]) -> None:
        """Set (or, with ``DELETE``, remove) top-level fields of one item. Moving an item
        between tuning and holdout takes the record of the move in the same changes (a
        ``holdout_moves`` entry to its new side), as `validate` requires; `evalset split
        --move` writes both."""
        if not isinstance(changes, Mapping):
            raise TypeError(
                "update_item() takes the changes as a mapping of field names to new values, "
                f"such as {{'tags': ['returns']}}, not {_kind(changes)}"
            )
        k = self._editable(item_id)
        owner = f"{self.current.path}: item {item_id!r}"
        self._item_changes.setdefault(k, {}).update(
            {f: _plain(v, owner, (f,)) for f, v in changes.items()}
        )

    def edit_item(
        self,
        item_id: str,
        edit: Callable[[Any], None],
        renames: Mapping[str, str] | None = None,
    ) -> None:
        """Change one item in place: ``edit`` receives its round-trip mapping (comments and
        styles attached) and mutates it. For changes deep inside lists, such as rewriting
        one citation, where replacing a whole field would drop comments within it. An edit
        that only renames values (``renames``: old text -> new) is made in the item's text
        when the result reads as ``edit`` makes it: a flow list's comments are kept too."""
        k = self._editable(item_id)
        self._item_edits.setdefault(k, []).append(edit)
        if renames:
            self._renames.setdefault(k, []).append((dict(renames), edit))

    def _renamed(self, region: str, k: int) -> tuple[str, list[Callable[[Any], None]]]:
        """Item ``k``'s region (LF-broken) with its renames made in the text, and the edits
        they make; the region and none when the text so renamed would not read as the edits
        make the item (a value quoted with escapes, a name that is also some other text)."""
        hints = self._renames.get(k)
        if not hints or k in self.current.opened:
            return region, []
        import copy

        expected = copy.deepcopy(self.current.raw_items[k])
        text = region
        for renames, edit in hints:
            edit(expected)
            for old, new in renames.items():
                text = _rename_scalar(text, old, new)
        if _read_item(self._put_back(text)) != _exactly(expected):
            return region, []
        return text, [edit for _, edit in hints]

    def replace_item(self, item_id: str, entry: Mapping[str, Any] | BaseModel) -> None:
        """Write a whole new entry for one item (sealing does): its comments go, and so do
        the comments directly above it. Checked as ``update_item`` is: the new entry is
        validated, a sealed item needs the key, and an opened sealed item that stays in the
        holdout is sealed again to the same recipients."""
        if not isinstance(entry, (Mapping, BaseModel)):
            raise TypeError(
                "replace_item() takes the new entry as a mapping of field names to values or "
                f"as an Item, not {_kind(entry)}"
            )
        k = self._editable(item_id)
        owner = f"{self.current.path}: item {item_id!r}"
        plain: Mapping[str, Any] = _plain(
            entry if isinstance(entry, BaseModel) else dict(entry), owner
        )
        stub = self.current.opened.get(k)
        if stub is not None and "sealed" not in plain:
            from evalset.sets.sealed import reseal

            where = str(self.current.path)
            plain = reseal(dict(plain), stub, where, self.text_of_new(plain))
        self.replace_at(k, plain)

    def replace_at(self, k: int, entry: Mapping[str, Any]) -> None:
        """Write ``entry`` in place of the item at file position ``k`` as it is, sealed or
        not (sealing and unsealing do; an opened sealed item is unsealed by it). Validated
        when the edit ends; a sealed item needs the key."""
        self._refuse_sealed(k)
        self._replaced[k] = dict(entry)
        self._replaced_texts.pop(k, None)

    def restore_at(self, k: int, text: str) -> None:
        """Write ``text`` (an item's text as ``source_of`` gave it when it was sealed) in
        place of the item at file position ``k``: unsealing gives back the item's bytes.
        Validated when the edit ends; a sealed item needs the key."""
        self._refuse_sealed(k)
        self._restored[k] = text

    def source_of(self, k: int) -> str | None:
        """The text of the item at file position ``k`` with the comments that go with it
        (as ``replace_at`` removes them), exactly as the file holds it; None for a file
        whose items are not laid out one block each."""
        spans = self.current.index.spans
        if spans is None or len(spans.starts) != len(self.current.raw_items):
            return None
        start, end = self._bare_bounds(k)
        return "".join(self.current.index.lines[start:end])

    def source_with(self, item_id: str, changes: Mapping[str, Any]) -> str | None:
        """The text of an item with its comments (as ``source_of`` gives it), ``changes``
        applied as ``update_item`` writes them: what an item moving into a sealed holdout
        is sealed with, so that ``unseal`` gives back its layout and comments. None when
        ``source_of`` has none."""
        k = self._editable(item_id)
        spans = self.current.index.spans
        at = spans.starts[k] - 1 if spans is not None else None  # its text starts there
        return self._with_changes(self.source_of(k), k, changes, at)

    def unsealed_with(self, item_id: str, changes: Mapping[str, Any]) -> bool:
        """Write an opened sealed item as plain text again, as `unseal` writes it (the text
        it was sealed with, its comments above and under it included), ``changes`` applied:
        what an item moving out of a sealed holdout becomes. False, changing nothing, for an
        item that is not an opened sealed one or was sealed without its text."""
        k = self._position_of(item_id)
        if k not in self.current.opened:
            return False
        text = self._with_changes(self.current.sealed_text.get(k), k, changes)
        if text is None:
            return False
        self.restore_at(k, text)
        return True

    def _with_changes(
        self, source: str | None, k: int, changes: Mapping[str, Any], at: int | None = None
    ) -> str | None:
        """``source`` (an item's text with its comments) with ``changes`` applied to it
        (``at``: the file's line before the item's first, when the file holds the text)."""
        if source is None:
            return None
        yaml = _yaml(self._indent())
        head, body, tail = _parts(source)
        doc = self._load(yaml, "items:\n" + _lf("".join(body)), k, at)
        _apply(doc["items"][0], {f: _plain(v) for f, v in changes.items()})
        edited = self._put_back(_fitted(_entries(yaml, doc), body))
        return "".join(head) + edited + "".join(tail)

    def text_of_new(self, entry: Mapping[str, Any]) -> str:
        """The text ``entry`` gets when ``append_items`` writes it (the file's indentation
        and line breaks): what an arriving item is sealed with, so that ``unseal`` writes it
        as a plain arrival is written."""
        text = _entries(_yaml(self._indent()), {"items": [dict(entry)]})
        return _breaks(text, self.current.index.newline)

    def append_items(self, items: Sequence[Item | Mapping[str, Any]]) -> None:
        if isinstance(items, (Mapping, BaseModel, str, bytes)) or not isinstance(items, Iterable):
            raise TypeError(
                f"append_items() takes a list of items, not {_kind(items)}: "
                "append_items([item]) appends one"
            )
        for item in items:
            if not isinstance(item, (Mapping, BaseModel)):
                raise TypeError(
                    "append_items() takes items as mappings of field names to values or as "
                    f"Item objects, not {_kind(item)}"
                )
            plain = _plain(item) if isinstance(item, BaseModel) else dict(item)
            owner = f"{self.current.path}: new item {_shown(plain.get('id'))}"
            self._appended.append(_plain(plain, owner))

    def set_header(self, key: str, value: Any) -> None:
        if key == "items":
            raise ValueError("items are edited with update_item and append_items")
        self._header_changes[key] = _plain(value, str(self.current.path), (key,))

    # -- rendering ---------------------------------------------------------------------

    def _indent(self, k: int = 0) -> tuple[int, int, int]:
        """(mapping, sequence, offset) indentation, read off item ``k`` (the file's first
        item by default: the layout new and sealed items take)."""
        spans = self.current.index.spans
        if spans is None or not spans.starts:
            return (2, 4, 2)
        lines = self.current.index.lines
        first = lines[spans.starts[k]]
        after_dash = first[spans.indent + 1 :]
        content = spans.indent + 1 + len(after_dash) - len(after_dash.lstrip(" \t"))
        region = lines[spans.starts[k] : spans.ends[k]]
        if not after_dash.strip() or after_dash.lstrip(" \t").startswith("#"):
            # a `-` on a line of its own (a comment after it at most): the keys start under it
            key = next((line for line in region[1:] if not is_filler(line)), None)
            content = len(key) - len(key.lstrip(" ")) if key else spans.indent + 2
        mapping = 2
        for line, following in itertools.pairwise(region):
            body = line.strip()
            if body.endswith(":") and not body.startswith("#"):
                inner = following.lstrip(" ")
                if not inner.startswith("-"):
                    mapping = (len(following) - len(inner)) - (len(line) - len(line.lstrip(" ")))
                    break
        return (max(mapping, 1), max(content, 2), spans.indent)

    def _prune(self) -> None:
        """Drop changes that set what is already there, so they never touch the text."""
        current = self.current
        self._item_changes = {
            k: changes
            for k, changes in self._item_changes.items()
            if k in self._item_edits
            or _changes_anything(
                current.plain(k) if k in current.opened else current.raw_items[k], changes
            )
        }
        for k in self._item_edits:
            self._item_changes.setdefault(k, {})
        if not _changes_anything(self.current.raw, self._header_changes):
            self._header_changes = {}

    def render(self) -> str:
        """The new text of the file."""
        self._prune()
        if not self.changed:
            return self.current.text
        index = self.current.index
        spans = index.spans
        if spans is None or len(spans.starts) != len(self.current.raw_items):
            return self._render_whole()
        file_yaml = _yaml(self._indent())
        layouts = {self._indent(): file_yaml}
        lines = list(index.lines)
        replacements: list[tuple[int, int, str]] = []
        for k in sorted(self.touched):
            yaml = file_yaml
            start, end = spans.starts[k], spans.ends[k]
            newline = line_break(lines[start]) or index.newline
            if k in self._replaced:
                # A whole new entry (sealing): nothing of the old one may remain, not even
                # the comments around it.
                start, end = self._bare_bounds(k)
                text = self._replaced_texts.get(k)
                if text is None:  # the file's layout, and so ``yaml``, is the same each time
                    text = _entries(yaml, {"items": [self._replaced[k]]})
                    self._replaced_texts[k] = text
            elif k in self._restored:
                replacements.append((start, end, _fitted(self._restored[k], lines[start:end])))
                continue
            else:
                # an item is written again in its own layout, which may not be the first
                # item's (``-   id:`` there, ``- id:`` here): in another, no field of it
                # would line up with what it was, and the whole item would be re-laid out
                own = self._indent(k)
                yaml = layouts[own] if own in layouts else layouts.setdefault(own, _yaml(own))
                end = self._item_end(k)
                region, done = self._renamed(_lf(index.region(start, end)), k)
                # the file's last item may end without a line break: compared as if it had
                # one (its fields are cut at line ends), and written without it again
                unended = not region.endswith("\n")
                region += "\n" if unended else ""
                doc = self._load(yaml, "items:\n" + region, k, start - 1)
                self._rewrite(doc["items"], k, 0, yaml, done)
                text = _entries(yaml, doc)
                again = functools.partial(self._written, yaml, region, k, start - 1)
                text, self._meant[k] = _keep_untouched(region, text, again, self._put_back)
                if unended:
                    text = text.removesuffix("\n")
                old = lines[start:end]
                if any(line_break(line) not in (newline, "") for line in old):
                    replacements.append((start, end, _keep_lines(old, text, newline)))
                    continue
            replacements.append((start, end, _breaks(text, newline)))
        if self._appended:
            replacements.append(self._append_text(file_yaml, spans))
        if self._header_changes:
            replacements.append(self._header_text(file_yaml, spans.items_line))
        for start, end, text in sorted(replacements, key=lambda r: r[0], reverse=True):
            lines[start:end] = [self._put_back(text)]
        return "".join(lines)

    def _item_end(self, k: int) -> int:
        """The line after item ``k``: after its last line that is not blank or a comment
        (a block scalar's lines count as its text, see ``ItemSpans.scan``), or, when its
        last value is a quoted text whose last lines look like comments, after those: the
        first end at which the item's lines read as the file reads the item."""
        index = self.current.index
        spans = index.spans
        assert spans is not None
        start, end = spans.starts[k], spans.ends[k]
        meant = _exactly(self.current.raw_items[k])
        if _read_item(_lf(index.region(start, end))) == meant:
            return end
        stop = spans.starts[k + 1] if k + 1 < len(spans.starts) else spans.block_end
        for later in range(end + 1, stop + 1):  # a quoted text whose last line looks like one
            if _read_item(_lf(index.region(start, later))) == meant:
                return later
        return end  # _load says why it cannot be read; `_check` refuses a wrong reading

    def _written(self, yaml: Any, region: str, k: int, at: int | None) -> str:
        """An item's region as the YAML library writes it back unedited (``at``: as
        ``_load`` takes it)."""
        return _entries(yaml, self._load(yaml, "items:\n" + region, k, at))

    def _put_back(self, text: str) -> str:
        """The long comments ``_load`` took out, and what it stood in for, in their places
        again."""
        for placeholder, comment in self._long_comments.items():
            text = text.replace(placeholder, comment)
        return self._stand_ins.put_back(text) if self._stand_ins is not None else text

    def _load(self, yaml: Any, text: str, k: int | None = None, at: int | None = None) -> Any:
        """A region parsed round-trip; a region that does not parse on its own (an alias to
        an anchor outside it) refuses the edit, naming the place (``at``: the file's line,
        0-based, where the region's first line is; None for a text the file does not hold
        as it is, a sealed item's). Long comments are read as placeholders and put back by
        ``render`` (see ``locate.shorten_long_comments``)."""
        from ruamel.yaml.error import YAMLError

        if self._stand_ins is None:
            self._stand_ins = StandIns(self.current.text)
        try:
            text = self._stand_ins.take_out(text)
        except MisreadTab as exc:
            raise self._unreadable(
                k, at, (exc.line, exc.column), "it holds a tab the editor cannot keep there"
            ) from None
        # one placeholder per comment across every region this edit reads
        kept = dict(self._long_comments)
        short = shorten_long_comments(text, kept)
        if short != text:
            try:
                doc = yaml.load(short)
            except (YAMLError, ValueError):
                pass  # a placeholder landed inside a scalar: read the region as it is
            else:
                self._long_comments = kept
                return _anchors_kept(doc)
        try:
            return _anchors_kept(yaml.load(text))
        except (YAMLError, ValueError) as exc:  # ValueError: a date that does not exist
            mark = getattr(exc, "problem_mark", None)
            place = (mark.line, mark.column) if mark is not None else None
            if not isinstance(exc, YAMLError):
                problem = f"it holds a date that does not exist: {exc}"
            else:
                problem = str(getattr(exc, "problem", None) or "it does not parse on its own")
            raise self._unreadable(k, at, place, problem) from None

    def _unreadable(
        self, k: int | None, at: int | None, place: tuple[int, int] | None, problem: str
    ) -> EditRefused:
        """The refusal of an edit whose region (item ``k``, else the header) the YAML
        library cannot read on its own: ``problem`` at ``place`` (0-based line and column
        in the region, whose first line is the file's line ``at``)."""
        what = "the header" if k is None else f"item #{k + 1}"
        if k is not None and isinstance(self.current.raw_items[k], dict):
            what = f"item {self.current.raw_items[k].get('id')!r}"
        where = str(self.current.path)
        if place is not None and at is not None:
            where += f":{at + place[0] + 1}:{place[1] + 1}"
        elif place is not None:
            # the region is ``items:`` and the item's text: its line 1 is the region's 1
            problem += f", at line {place[0]}, column {place[1] + 1} of its text"
        if problem.startswith("it holds a date"):
            fix = "correct the date (`evalset validate` names it)"
        elif "alias" in problem or "anchor" in problem:
            fix = "write out the value its alias stands for"
        elif "\\t" in problem or "tab" in problem:
            fix = "write spaces for the tab there"
        else:
            fix = "write that part of it as YAML's common form (no control characters)"
        return EditRefused(
            f"{where}: the edit was refused because {what} cannot be edited on its own "
            f"({problem}); {fix}, then edit again. The file is unchanged."
        )

    def _bare_bounds(self, k: int) -> tuple[int, int]:
        """Lines of item ``k`` with the comments that belong to it: those inside it, those
        indented under it after its last line, and those directly above it (no blank line
        between)."""
        index = self.current.index
        spans = index.spans
        assert spans is not None
        lines = index.lines
        start = spans.starts[k]
        floor = spans.ends[k - 1] if k else spans.items_line + 1
        while start > floor:
            body = lines[start - 1].lstrip(" ")
            if not body.startswith("#") or len(lines[start - 1]) - len(body) > spans.indent:
                break
            start -= 1
        return start, spans.owned_end(lines, k)

    def _rewrite(
        self, entries: Any, k: int, at: int, yaml: Any, done: Sequence[Callable[[Any], None]] = ()
    ) -> None:
        """Apply this edit to item ``k``, found at ``entries[at]`` of a round-trip document,
        but for the edits ``done`` already in its text. An opened sealed item is edited in
        the text it was sealed with (as a plain item is edited in the file), or as plain
        data when it has none, and sealed again."""
        if k in self._replaced:
            entries[at] = self._replaced[k]
            return
        if k in self._restored:
            entries[at] = self._load(yaml, "items:\n" + _lf(self._restored[k]), k)["items"][0]
            return
        stub = self.current.opened.get(k)
        sealed_text = self.current.sealed_text.get(k) if stub is not None else None
        doc = None
        if sealed_text is not None:
            # Edited as the file's own item would be: its lines from the first to the last
            # that is not a comment; the comments above and under it stay as they are.
            head, body, tail = _parts(sealed_text)
            doc = self._load(yaml, "items:\n" + _lf("".join(body)), k)
            entry = doc["items"][0]
        else:
            entry = self.current.plain(k) if stub is not None else entries[at]
        _apply(entry, self._item_changes.get(k, {}))
        for edit in self._item_edits.get(k, []):
            if edit not in done:
                edit(entry)
        if stub is None:
            _comments_after_flow(entries, at)
        else:
            from evalset.sets.sealed import reseal

            text = None
            if doc is not None:
                # the long comments _load took out go back before the text is sealed
                lf = _lf("".join(body))
                written, meant = _keep_untouched(
                    lf,
                    _entries(yaml, doc),
                    functools.partial(self._written, yaml, lf, k, None),
                    self._put_back,
                )
                if _read_item(self._put_back(written)) != meant:
                    raise _misread(self.current.path, entry.get("id"))
                edited = self._put_back(_fitted(written, body))
                text = "".join(head) + edited + "".join(tail)
            entries[at] = reseal(entry, stub, str(self.current.path), text)

    def _append_text(self, yaml: Any, spans: Any) -> tuple[int, int, str]:
        index = self.current.index
        lines, newline = index.lines, index.newline
        text = _entries(yaml, {"items": self._appended})
        if not spans.starts:
            # `items: []` (or an empty `items:`) becomes a block with the new entries, and
            # keeps the comment on its line
            ended = line_break(lines[spans.items_line])
            line = lines[spans.items_line].removesuffix(ended)
            cut = _comment_start(line)
            gap = line[len(line[:cut].rstrip(" \t")) : cut] if cut < len(line) else ""
            broken = bool(ended) or spans.items_line + 1 < len(lines)
            first = "items:" + gap + line[cut:] + "\n"
            text = _unended(first + text, broken, self._appended[-1])
            newline = ended or newline
            return (spans.items_line, spans.items_line + 1, _breaks(text, newline))
        # after the last item's own comments, those indented under it (a note on it): put
        # before them, they would read as the new item's, and go when it is sealed
        last = len(spans.starts) - 1
        last_end = max(self._item_end(last), spans.owned_end(lines, last))
        newline = line_break(lines[last_end - 1]) or newline
        gap = lines[spans.ends[-2] : spans.starts[-1]] if len(spans.starts) > 1 else []
        spaced = any(not line.strip() for line in gap)
        if spaced:
            # Items separated by blank lines: keep doing so for the new ones.
            chunks = [_entries(yaml, {"items": [entry]}) for entry in self._appended]
            text = "".join("\n" + chunk for chunk in chunks)
        if not line_break(lines[last_end - 1]):
            # the file's last line: the new items go after it, and end as it did, unbroken
            text = _unended("\n" + text, False, self._appended[-1])
        return (last_end, last_end, _breaks(text, newline))

    def _header_text(self, yaml: Any, items_line: int) -> tuple[int, int, str]:
        index = self.current.index
        lines = index.lines
        end = items_line
        while end > 0 and is_filler(lines[end - 1]):
            end -= 1  # blank lines and comments before `items:` stay where they are
        region = index.region(0, end)
        doc = self._load(yaml, _lf(region), at=0) if region.strip() else None
        if doc is None:
            from ruamel.yaml.comments import CommentedMap

            doc = CommentedMap()
        order = list(SetHeader.model_fields)
        for key, value in self._header_changes.items():
            if value is DELETE:
                doc.pop(key, None)
            elif key in doc or key not in order:
                doc[key] = value
            else:
                # A new key goes where the format puts it (e.g. `snapshot` before `categories`).
                later = [k for k in doc if k in order and order.index(k) > order.index(key)]
                doc.insert(list(doc).index(later[0]) if later else len(doc), key, value)
        newline = (line_break(lines[0]) if lines else "") or index.newline
        written = _dump(yaml, doc)
        text, reads = _header_kept(_lf(region), written, set(self._header_changes), self._put_back)
        if not reads:
            raise EditRefused(
                f"{self.current.path}: the edit was refused because the header would not read "
                "back as edited (a text the YAML library writes otherwise than it reads it, "
                "such as a folded text's line that starts with a tab); write that line's "
                "tab as spaces, then edit again. The file is unchanged."
            )
        if any(line_break(line) not in (newline, "") for line in lines[:end]):
            return (0, end, _keep_lines(lines[:end], text, newline))
        return (0, end, _breaks(text, newline))

    def _render_whole(self) -> str:
        """Fallback for layouts the line scan cannot split: one round trip of the file."""
        yaml = _yaml((2, 4, 2))
        doc = self._load(yaml, _lf(self.current.text), at=0)
        items = doc.get("items")
        if items is None:
            items = doc["items"] = []
        for k in sorted(self.touched):
            self._rewrite(items, k, k, yaml)
            if k in self._replaced:
                _drop_comments(items, k)
        items.extend(self._appended)
        _apply(doc, self._header_changes)
        text = _breaks(_dump(yaml, doc), self.current.index.newline)
        lines = self.current.index.lines
        return self._put_back(_unended(text, not lines or bool(line_break(lines[-1])), doc))


def _unended(text: str, ended: bool, last: Any) -> str:
    """``text`` (what an edit writes at the end of a file: new entries, or the whole file;
    ``last`` what it holds last, as data) without its last line break when the file's last
    line has none (``ended`` False), so that an edit keeps the file's end as it was; with
    it when the last value written is a text of several lines, whose last line break
    readers then read apart (yaml-rs keeps it in a ``|`` text that ends the file without
    one, ruamel.yaml and PyYAML drop it)."""
    while isinstance(last, (dict, list)) and last:
        last = list(last.values())[-1] if isinstance(last, dict) else last[-1]
    if ended or (isinstance(last, str) and len(split_lines(last + "x")) > 1):
        return text
    return text.removesuffix("\n")


def _anchors_kept(data: Any) -> Any:
    """``data`` (a round-trip document) with each anchor on a mapping or a list written
    again whether or not an alias uses it (``- &faq`` on an item, ``key_points: &kp``): the
    YAML library writes those only when one does, and so an edit of the item dropped them.
    Returns ``data``."""
    seen: set[int] = set()
    pending = [data]
    while pending:
        node = pending.pop()
        if id(node) in seen or not isinstance(node, (dict, list)):
            continue
        seen.add(id(node))
        anchor = getattr(node, "anchor", None)
        if anchor is not None and anchor.value is not None:
            anchor.always_dump = True
        pending.extend(node.values() if isinstance(node, dict) else node)
    return data


def _keep_untouched(
    old: str, new: str, unedited: Callable[[], str], put_back: Callable[[str], str]
) -> tuple[str, str | None]:
    """``new`` with the fields the edit did not change as ``old`` has them
    (``_keep_fields``), and an item whose ``-`` stood on a line of its own still so: the
    library writes the first key after the ``-``."""
    lone = lone_dash(old)
    if lone is None:
        return _keep_fields(old, new, unedited, put_back)
    at, dash = lone
    lines = split_lines(old)
    joined = [*lines[:at], " " * dash + "- " + lines[at + 1][dash + 2 :], *lines[at + 2 :]]
    kept, meant = _keep_fields("".join(joined), new, unedited, put_back)
    out = split_lines(kept)
    first = next((i for i, line in enumerate(out) if not is_filler(line)), None)
    if first is None or not out[first].startswith(" " * dash + "- "):
        return kept, meant
    rest = out[first][dash + 2 :]
    if rest[:1] in (" ", "\t", "{", "[", "#"):
        return kept, meant
    parted = [*out[:first], lines[at], " " * (dash + 2) + rest, *out[first + 1 :]]
    text = "".join(parted)
    return (text, meant) if _read_item(put_back(text)) == meant else (kept, meant)


def _keep_fields(
    old: str, new: str, unedited: Callable[[], str], put_back: Callable[[str], str]
) -> tuple[str, str | None]:
    """``new`` (an item as the YAML library writes it after an edit, LF-broken) with each
    field the edit did not change written as it was in ``old`` (the item's text before,
    LF-broken): the library rewrites the layout of a whole item (a plain question folded
    over lines, a list indented deeper than the file's other lists), where only the
    fields the edit changed should change. A field is unchanged when the library writes
    it alike before and after the edit (``unedited``: the item written before the edit,
    asked for only when some field's layout differs). Falls back to ``new`` when the
    three are not cut into fields alike, or the result would not read as it should (each
    with what the library's stand-ins stood for, ``put_back``).

    Also returns what the item must read as (``_exactly``; None when ``new`` does not read
    as an item): ``new`` as read, but for the fields the edit did not change, which read
    as they did before. The library may write a text otherwise than it read it (a folded
    text's line that starts with a tab gains a blank line before it): the file then
    reads otherwise than meant, and ``_check`` refuses the edit."""
    meant = _read_entry(put_back(new))
    old_fields, new_fields = item_fields(old), item_fields(new)
    if old_fields is None or new_fields is None or old_fields[1][0] != new_fields[1][0]:
        flow = _flow_kept(old, new, unedited, put_back, meant)
        return flow if flow is not None else (new, _exactly_or_none(meant))
    was = dict(old_fields)
    if all(was.get(name, text) == text for name, text in new_fields):
        return new, _exactly_or_none(meant)  # nothing the library wrote otherwise
    before = item_fields(unedited())
    if before is None or [n for n, _ in before] != [n for n, _ in old_fields]:
        return new, _exactly_or_none(meant)
    alike = dict(before)
    unchanged = {name for name, text in new_fields if name in was and alike.get(name) == text}
    expected = _exactly_or_none(_with_values_of(meant, _read_entry(old), unchanged))
    was_at, now_at = item_columns(split_lines(old)), item_columns(split_lines(new))
    if was_at is None or now_at is None or was_at[1:] != now_at[1:]:
        return new, expected  # the fields would not line up under one another
    kept = "".join(was[name] if name in unchanged else text for name, text in new_fields)
    if kept == new or _read_item(put_back(kept)) != expected:
        return new, expected
    return kept, expected


def _flow_kept(
    old: str, new: str, unedited: Callable[[], str], put_back: Callable[[str], str], meant: Any
) -> tuple[str, str | None] | None:
    """``_keep_fields`` for an item written as a flow mapping (``- {id: q-1, …}``): each
    value the edit did not change written as it was (the library undoes a quoted text's
    escapes); None when either text is not one."""
    was, now = flow_values(old), flow_values(new)
    if was is None or now is None:
        return None
    written = unedited()
    before = flow_values(written)
    if before is None:
        return None
    unchanged = {
        key
        for key, (start, end) in now.items()
        if key in was and key in before and written[slice(*before[key])] == new[start:end]
    }
    expected = _exactly_or_none(_with_values_of(meant, _read_entry(old), unchanged))
    kept = new
    for key, (start, end) in sorted(now.items(), key=lambda kv: kv[1], reverse=True):
        if key in unchanged:
            kept = kept[:start] + old[slice(*was[key])] + kept[end:]
    kept = _gap_before_comment(old, kept)
    if kept == new or _read_item(put_back(kept)) != expected:
        return new, expected
    return kept, expected


def _gap_before_comment(old: str, new: str) -> str:
    """``new`` (a flow-style item's text, LF-broken) with the white space between its
    closing brace and the comment after it as ``old`` has it: the library writes one space
    there (``} # approved``) where the file had its own."""

    def brace_comment(text: str) -> tuple[int, int, int] | None:
        """(line, end of the brace, start of the comment) of the first line that ends a
        flow mapping with a comment after it."""
        for at, line in enumerate(split_lines(text)):
            body = line.rstrip("\n")
            cut = _comment_start(body)
            code = body[:cut].rstrip(" \t")
            if cut < len(body) and code.endswith("}"):
                return at, len(code), cut
        return None

    was, now = brace_comment(old), brace_comment(new)
    if was is None or now is None:
        return new
    lines = split_lines(new)
    line = lines[now[0]]
    lines[now[0]] = line[: now[1]] + split_lines(old)[was[0]][was[1] : was[2]] + line[now[2] :]
    return "".join(lines)


def _with_values_of(meant: Any, was: Any, names: set[str]) -> Any:
    """``meant`` (an item as read) with the values the fields ``names`` had in ``was`` (the
    item as read before the edit); ``meant`` when either is no mapping."""
    if not isinstance(meant, dict) or not isinstance(was, dict):
        return meant
    return {key: was[key] if key in names and key in was else v for key, v in meant.items()}


_TOP_KEY = re.compile(r"[A-Za-z_][\w-]*[ \t]*:(?:[ \t]|$)")
"""A key of the header at the start of its line (the header's keys are names)."""


def _header_kept(
    old: str, new: str, changed: set[str], put_back: Callable[[str], str]
) -> tuple[str, bool]:
    """The header as the YAML library writes it edited (``new``), with each key the edit
    did not change written as it was in ``old`` (both LF-broken), and the comment lines
    above a changed key kept above it: the library writes a whole header again (a comment
    in a flow mapping dropped, a folded description joined, a deeper indent made shallow).
    Falls back to ``new`` where the two are not cut into keys alike, or the result would
    not read as it should: ``new`` as read, but for the keys the edit did not change, which
    read as they did in ``old`` (each with what the library's stand-ins stood for,
    ``put_back``). Also returns whether the text returned reads so: the library may write
    a text otherwise than it read it (a folded text's line that starts with a tab)."""
    from evalset.sets.yamlio import parse_mapping

    def read(text: str) -> Any:
        try:
            return parse_mapping(put_back(text), Path("header"))
        except SetFileError:
            return None

    meant, was_read = read(new), read(old)
    if isinstance(meant, dict) and isinstance(was_read, dict):
        meant = {
            key: was_read[key] if key not in changed and key in was_read else value
            for key, value in meant.items()
        }
    expected = _exactly(meant)
    before, after = _top_blocks(old), _top_blocks(new)
    was = dict(before)
    if len(was) != len(before) or len({k for k, _ in after}) != len(after):
        return new, _exactly(read(new)) == expected  # a key given twice: not cut alike
    kept = [was.get(None, "")]  # what comes before the first key, as it was
    for key, text in after:
        if key is None:
            continue
        if key in was and key not in changed:
            kept.append(was[key])
            continue
        lines = split_lines(text)
        while lines and is_filler(lines[-1]):
            lines.pop()  # the library's comments after a key: the next key's, kept with it
        while lines and is_filler(lines[0]):
            lines.pop(0)  # and those above it: the ones it had are kept (``above``)
        above = split_lines(was.get(key, ""))
        above = above[: next((i for i, ln in enumerate(above) if not is_filler(ln)), 0)]
        kept.append("".join(above) + "".join(lines))
    result = "".join(kept)
    if result and not result.endswith("\n"):
        result += "\n"
    if _exactly(read(result)) == expected:
        return result, True
    return new, _exactly(read(new)) == expected


def _top_blocks(text: str) -> list[tuple[str | None, str]]:
    """A mapping's text cut at each key that starts a line: (key, its lines with the comment
    and blank lines above it); what comes before the first key under None."""
    blocks: list[tuple[str | None, str]] = []
    key: str | None = None
    lines: list[str] = []
    pending: list[str] = []  # comments and blank lines: the next key's
    for line in split_lines(text):
        found = _TOP_KEY.match(line)
        if found is None:
            if is_filler(line):
                pending.append(line)
            else:
                lines += [*pending, line]
                pending = []
            continue
        if lines or key is not None:
            blocks.append((key, "".join(lines)))
        elif pending:
            blocks.append((None, "".join(pending)))
            pending = []
        key, lines, pending = found.group().split(":")[0].strip(), [*pending, line], []
    blocks.append((key, "".join(lines + pending)))
    return blocks


def _comments_after_flow(entries: Any, at: int) -> None:
    """A comment an edit put on a key of a flow-style item (``- {id: q-1, …}``) moved after
    the item's closing brace, added to the comment the item's line has: the YAML library
    writes it inside the braces, where it ends the line and puts the brace on a line of its
    own. In a flow-style list of items (``items: [{…}, …]``) it stays inside."""
    from ruamel.yaml.error import CommentMark
    from ruamel.yaml.tokens import CommentToken

    entry = entries[at]
    fa, attached = getattr(entry, "fa", None), getattr(entry, "ca", None)
    if fa is None or attached is None or not fa.flow_style() or entries.fa.flow_style():
        return
    said = []
    for key, tokens in list(attached.items.items()):
        value = getattr(tokens[2], "value", None) if len(tokens) > 2 else None
        if isinstance(value, str) and "\n" not in value.rstrip("\n"):
            said.append(value.strip().removeprefix("#").strip())
            tokens[2] = None
            if not any(tokens):
                del attached.items[key]
    if not said:
        return
    # the item's own slot: its line's comment first (the comment lines after the line, which
    # the library keeps in the same token, stay after it), the comments above it next
    held = entries.ca.items.setdefault(at, [None, None])
    value = getattr(held[0], "value", None)
    first, newline, rest = value.partition("\n") if isinstance(value, str) else ("", "", "")
    # the line's comment as it is (a long one is a placeholder, put back whole later)
    first = first.strip() if first.strip() not in ("", "#") else ""
    text = f"{first}; {'; '.join(said)}" if first else f"# {'; '.join(said)}"
    held[0] = CommentToken(f" {text}" + (newline + rest if rest else ""), CommentMark(0))


def _rename_scalar(text: str, old: str, new: str) -> str:
    """``text`` with each plain or quoted scalar that is exactly ``old`` (a list entry, in
    flow or block style) written ``new`` in the same quotes, or, for a plain one, as the
    YAML library writes ``new`` in a flow list (``what?.md`` quoted: a YAML 1.1 reader ends
    a plain text at a ``?`` there); comments are left as they are (a reader of the item
    cannot tell, so ``_renamed`` could not)."""
    found = re.compile(r"(?<![^\s\[,])(['\"]?)" + re.escape(old) + r"\1(?=[ \t]*(?:[,\]]|$))")
    plain = flow_entry(new)
    out = []
    for line in split_lines(text):
        body = line.rstrip("\r\n")
        cut = _comment_start(body)
        code = found.sub(
            lambda m: f"{m.group(1)}{new}{m.group(1)}" if m.group(1) else plain, body[:cut]
        )
        out.append(code + line[cut:])
    return "".join(out)


def _comment_start(line: str) -> int:
    """Where a line's comment begins (its length when it has none): a ``#`` at its start or
    after white space, outside the quotes opened on the line (a quoted text running on from
    the line before is taken for code: a rename there shows when the item is read back)."""
    quote = ""
    at = 0
    while at < len(line):
        char = line[at]
        if quote:
            escaped = char == "\\" if quote == '"' else line[at : at + 2] == "''"
            if escaped:  # an escape in double quotes, or '' in single ones
                at += 1
            elif char == quote:
                quote = ""
        elif char in "'\"" and (at == 0 or line[at - 1] in " \t[,{:-"):
            quote = char
        elif char == "#" and (at == 0 or line[at - 1] in " \t"):
            return at
        at += 1
    return len(line)


def _read_item(text: str) -> str | None:
    """An item's text (``- id: …`` and its lines) read as a set file's item is, written out
    as ``_exactly``; None when it does not read as one item."""
    return _exactly_or_none(_read_entry(text))


_NOT_ONE_ITEM = object()
"""What ``_read_entry`` returns for a text that does not read as one item."""


def _read_entry(text: str) -> Any:
    """An item's text read as a set file's item is; ``_NOT_ONE_ITEM`` when it does not
    read as one item."""
    from evalset.sets.yamlio import parse_mapping

    try:
        entries = parse_mapping("items:\n" + text, Path("item")).get("items")
    except SetFileError:
        return _NOT_ONE_ITEM
    return entries[0] if isinstance(entries, list) and len(entries) == 1 else _NOT_ONE_ITEM


def _exactly_or_none(value: Any) -> str | None:
    return None if value is _NOT_ONE_ITEM else _exactly(value)


def _exactly(value: Any) -> str:
    """Data as text that tells apart what ``==`` does not: types (``1``, ``1.0``, ``true``)
    and the order of keys."""
    import json

    try:
        return json.dumps(value, default=repr, ensure_ascii=False)
    except TypeError:  # a key that is not text (`? [a, b]`): repr tells types and order too
        return repr(value)


def _parts(text: str) -> tuple[list[str], list[str], list[str]]:
    """An item's text (with its comments) as the comment lines above it, its lines from the
    first to the last that is not a comment, and the comment lines after them."""
    lines = split_lines(text)
    content = [i for i, line in enumerate(lines) if not is_filler(line)]
    return lines[: content[0]], lines[content[0] : content[-1] + 1], lines[content[-1] + 1 :]


def _fitted(text: str, old: list[str]) -> str:
    """``text`` (an item's lines) written in place of the lines ``old``: with their line
    breaks where it is LF-broken and they use another, the lines unchanged from them kept
    as they were, and ending in a break when they did."""
    newline = next((b for line in old if (b := line_break(line))), "\n")
    if "\r" not in text and newline != "\n":
        breaks = {line_break(line) for line in old} - {""}
        text = _keep_lines(old, text, newline) if len(breaks) > 1 else _breaks(text, newline)
    if old and line_break(old[-1]) and text and not line_break(text):
        text += newline
    return text


def _lf(text: str) -> str:
    """Text with every line break made LF, as ruamel.yaml is given it."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


def _breaks(text: str, newline: str) -> str:
    """LF-broken text (as ruamel.yaml writes it) with the file's line break instead."""
    return text if newline == "\n" else text.replace("\n", newline)


def _keep_lines(old: list[str], text: str, newline: str) -> str:
    """``text`` (LF breaks) with each line that is unchanged from ``old`` written exactly as
    it was, its own line break included (for a file whose lines end in different ways)."""
    import difflib

    bare = [line.rstrip("\r\n") for line in old]
    new = text.split("\n")
    tail = new.pop() if new and new[-1] == "" else None
    out: list[str] = []
    matcher = difflib.SequenceMatcher(None, bare, new, autojunk=False)
    for op, i1, i2, j1, j2 in matcher.get_opcodes():
        if op == "equal":
            out.extend(old[i1:i2])
        else:
            out.extend(line + newline for line in new[j1:j2])
    joined = "".join(out)
    if tail is None and joined.endswith(newline):
        joined = joined[: -len(newline)]
    return joined


def _drop_comments(items: Any, k: int) -> None:
    """Forget the comments ruamel.yaml attached to entry ``k`` of a round-trip sequence and,
    as the comments above an entry, to the end of the entry before it."""
    attached = getattr(items, "ca", None)
    if attached is None:
        return
    attached.items.pop(k, None)
    if k == 0:
        attached.comment = None
        return
    previous = items[k - 1]
    while True:  # comments above entry k hang on the last value of entry k-1
        inner = getattr(previous, "ca", None)
        if inner is None:
            break
        if isinstance(previous, dict) and previous:
            inner.items.pop(list(previous)[-1], None)
            previous = previous[list(previous)[-1]]
        elif isinstance(previous, list) and previous:
            inner.items.pop(len(previous) - 1, None)
            previous = previous[-1]
        else:
            break


def _changes_anything(raw: Any, changes: Mapping[str, Any]) -> bool:
    for key, value in changes.items():
        if value is DELETE:
            if key in raw:
                return True
        elif key not in raw or raw[key] != value:
            return True
    return False


def _styled_like(old: Any, value: Any) -> Any:
    """``value`` in the flow (``[a, b]``) or block style the replaced value was written in."""
    from ruamel.yaml.comments import CommentedMap, CommentedSeq

    fa = getattr(old, "fa", None)
    if fa is None or not fa.flow_style():
        return value
    if isinstance(value, list):
        styled: Any = CommentedSeq(value)
    elif isinstance(value, dict):
        styled = CommentedMap(value)
    else:
        return value
    styled.fa.set_flow_style()
    return styled


def _apply(mapping: Any, changes: Mapping[str, Any]) -> None:
    for key, value in changes.items():
        if value is DELETE:
            mapping.pop(key, None)
        else:
            mapping[key] = _styled_like(mapping.get(key), value)


def _unwritten(finding: Finding, before: SetFile) -> str:
    """A finding in the result of an edit that is not written: without a line and column,
    which are the result's, not the file's, and an item the file does not have yet called
    the new one."""
    ids = {str(e.get("id")) for e in before.raw_items if isinstance(e, dict)}
    parts = []
    if finding.item is not None:
        parts.append(f"{'' if finding.item in ids else 'new '}item {finding.item}")
    if finding.field:
        parts.append(finding.field)
    text = ": ".join([*parts, f"{finding.severity}: {finding.message}"])
    return f"{text} ({finding.hint})" if finding.hint else text


def _check(before: SetFile, after: SetFile, editor: SetEditor, created: bool = False) -> None:
    """Refuse an edit that breaks the file or touches what it should not: an error the
    file did not have (of the format, or of the rules an item must keep, such as a declared
    category), counted per item and field, so that an error worded like one elsewhere in
    the file is still new. A changed header re-checks the rules of every item (``after``
    holds them all) and its own (the set's name); a file ``created`` (``before`` is the
    text it is created from) may have no error at all."""
    from evalset.sets.validate import header_rule_errors, item_rule_errors

    touched = editor.touched | set(
        range(len(before.raw_items), len(before.raw_items) + len(editor._appended))
    )
    header = created or bool(editor._header_changes)
    checked = set(range(len(after.raw_items))) if header else touched
    found_before = [*before.schema_findings, *item_rule_errors(before, checked)]
    found_after = [*after.schema_findings, *item_rule_errors(after, checked)]
    if header:
        found_before += header_rule_errors(before)
        found_after += header_rule_errors(after)
    if created:
        found_before = []
    new = Counter(_error_key(f) for f in found_after if f.severity == "error")
    new -= Counter(_error_key(f) for f in found_before if f.severity == "error")
    if new or (before.header is not None and after.header is None):
        first = next(
            (f for f in found_after if f.severity == "error" and _error_key(f) in new),
            found_after[0] if found_after else "its header is gone",
        )
        said = first if isinstance(first, str) else _unwritten(first, before)
        raise EditRefused(
            f"{before.path}: the edit was refused because the result would be invalid "
            f"({said}); the file is unchanged."
        )
    old_items, new_items = before.raw_items, after.raw_items
    for k, meant in editor._meant.items():
        if k < len(new_items) and _exactly(new_items[k]) != meant:
            entry = new_items[k]
            raise _misread(before.path, entry.get("id") if isinstance(entry, dict) else k + 1)
    expected = len(old_items) + len(editor._appended)
    untouched_changed = len(new_items) != expected or any(
        new_items[k] != old for k, old in enumerate(old_items) if k not in editor.touched
    )
    if untouched_changed:
        raise EditRefused(
            f"{before.path}: the edit was refused because it would have changed items it did "
            "not target (an unusual layout?); the file is unchanged."
        )
    if _duplicate_count(new_items) > _duplicate_count(old_items):
        raise EditRefused(
            f"{before.path}: the edit was refused because it would duplicate an item id; "
            "the file is unchanged."
        )
    # an item the edit makes valid is seen by validate's checks between items for the
    # first time: what they find of it is new
    valid_before, valid_after = set(before.item_index), set(after.item_index)
    revealed = {k for k in editor.touched if k not in valid_before and k in valid_after}
    flipped = revealed | {
        k
        for k in editor.touched
        if k < len(old_items) and _holdout_of(old_items[k]) != _holdout_of(new_items[k])
    }
    if flipped:
        _refuse_unrecorded_moves(before, after, flipped)
    if revealed or _may_leak(old_items, new_items, editor):
        _refuse_new_leaks(before, after, editor)


_SPLIT_FIELDS = ("question", "holdout", "status")
"""What decides whether two items' questions leak across the split."""


def _may_leak(old_items: list[Any], new_items: list[Any], editor: SetEditor) -> bool:
    """Whether the edit may have made a holdout question leak into tuning: it adds items,
    or changes an item's question, side or status."""
    if editor._appended:
        return True
    for k in editor.touched:
        old, new = old_items[k], new_items[k]
        if not isinstance(old, dict) or not isinstance(new, dict):
            return True
        if any(old.get(f) != new.get(f) for f in _SPLIT_FIELDS):
            return True
    return False


def _refuse_new_leaks(before: SetFile, after: SetFile, editor: SetEditor) -> None:
    """Refuse an edit after which a holdout question near-duplicates a tuning one where it
    did not before, as `validate` would find it: the questions the edit added or changed
    are compared with every other (``after`` holds only the items the edit wrote; the
    others are as ``before`` has them)."""
    written = editor.touched | set(
        range(len(before.raw_items), len(before.raw_items) + len(editor._appended))
    )
    items = {k: item for k, item in zip(before.item_index, before.items, strict=True)}
    for k in written:
        items.pop(k, None)  # a written item that is no plain item now (sealed) has no question
    items.update(zip(after.item_index, after.items, strict=True))
    ids = {items[k].id for k in written if k in items}
    words: dict[str, list[str]] = {}  # each question normalised once for both sides
    found = _leaks([items[k] for k in sorted(items)], ids, words)
    if found:
        found -= _leaks(before.items, ids, words)
    if found:
        first, second = min(found)
        raise EditRefused(
            f"{before.path}: the edit was refused because the questions of items {first!r} "
            f"and {second!r} would be near duplicates while one of them is holdout and the "
            "other tuning: the holdout question would leak; reword one of them, or put both "
            "on the same side. The file is unchanged."
        )


def _leaks(items: list[Item], ids: set[str], words: dict[str, list[str]]) -> set[tuple[str, str]]:
    """(first, second) ids of near-duplicate questions on the two sides of the split, one
    of them among ``ids``, as `validate` pairs them (in the file's order); ``words``: the
    questions normalised so far."""
    from evalset.sets.model import PLACEHOLDER
    from evalset.sets.neardup import PAIRWISE_BELOW, near_duplicate_pairs, near_duplicates_of

    # a retired tuning item was seen by the people tuning prompts: it still counts
    live = [i for i in items if i.question != PLACEHOLDER
            and (i.status != "retired" or i.holdout is False)]  # fmt: skip
    chosen = [n for n, item in enumerate(live) if item.id in ids]
    questions = [item.question for item in live]
    pairs = near_duplicates_of(questions, chosen, words) if chosen else []
    if pairs and len(questions) >= PAIRWISE_BELOW:
        # validate's search leaves a group too crowded to compare one by one to a warning:
        # a pair it does not find is no error of it
        pairs = sorted(set(pairs) & set(near_duplicate_pairs(questions)))
    return {
        (live[a].id, live[b].id)
        for a, b in pairs
        if {live[a].holdout, live[b].holdout} == {True, False}
        and all(i.status != "retired" for i in (live[a], live[b]) if i.holdout)
    }


def _holdout_of(entry: Any) -> Any:
    return entry.get("holdout") if isinstance(entry, dict) else None


def _refuse_unrecorded_moves(before: SetFile, after: SetFile, flipped: set[int]) -> None:
    """Refuse an edit that moves an item between tuning and holdout (or takes its
    assignment away) without recording the move, as `validate` would find it against the
    set's last release (or last commit; for an item added since the release, its last
    commit); putting back the flag it had there is no move."""
    from evalset.sets.validate import holdout_baseline, unrecorded_moves

    baseline = holdout_baseline(before.path, before.name, before)  # HEAD's text is often
    # the file's before the edit: then it is not parsed again
    if baseline is None:
        return
    already = {k for k, _, _, _ in unrecorded_moves(before, baseline)}
    for k, item, old, label in unrecorded_moves(after, baseline):
        if k not in flipped or k in already:
            continue
        if item.holdout is None:
            flag = str(old.holdout).lower()
            what = f"lose the holdout assignment it had at {label} (holdout: {flag})"
            fix = f"keep `holdout: {flag}`"
        else:
            what = f"move from {side(old.holdout)} to {side(item.holdout)} since {label}"
            fix = (
                f"`evalset split {after.name} --move {item.id} --to {side(item.holdout)} "
                "--force` moves an item and records the move"
            )
        raise EditRefused(
            f"{before.path}: the edit was refused because item {item.id!r} would {what} "
            f"without a recorded move; {fix}. The file is unchanged."
        )


def _misread(path: Path, ident: Any) -> EditRefused:
    """The refusal of an edit whose item would not read back as edited."""
    return EditRefused(
        f"{path}: the edit was refused because item {ident!r} would not read back as edited "
        "(an unusual layout around it, or a text the YAML library writes otherwise than it "
        "reads it, such as a folded text's line that starts with a tab); the file is "
        "unchanged."
    )


def _error_key(finding: Finding) -> tuple[str | None, str | None, str]:
    return finding.item, finding.field, finding.message


def _duplicate_count(items: list[Any]) -> int:
    ids = [entry.get("id") for entry in items if isinstance(entry, dict)]
    return len(ids) - len(set(ids))


@contextmanager
def edit_set(
    path: str | os.PathLike[str],
    timeout: float = 60.0,
    held: SetLock | None = None,
    create: str | None = None,
) -> Iterator[SetEditor]:
    """Edit a set file: lock it, read it fresh, collect changes, then re-validate and replace
    it atomically. If anything fails, the file is left as it was. A set file that is a
    symlink is written through: the file it points at is replaced, the link stays.
    ``held``: the lock, taken already with ``set_lock``. ``create``: the text of a new set
    file to start from when none exists (the file is then written once, whole, with the
    edit in it)."""
    p = as_path(path, "edit_set")
    named = named_not_given(p) if create is None else None
    if named is not None:
        raise named
    with contextlib.nullcontext(held) if held is not None else set_lock(p, timeout) as lock:
        if Path(os.path.realpath(p)) != lock.target:
            raise ValueError(f"{p}: the lock held is another file's ({lock.target})")
        yield from _edit(p, lock, create)


def _refuse_unlisted_items(loaded: SetFile) -> None:
    """Refuse to edit a set whose ``items`` is not a list (text, a mapping): no item can be
    found in it or added to it."""
    items = loaded.raw.get("items")
    if items is None or isinstance(items, list):
        return
    line, col = loaded.position(("items",))
    where = f"{loaded.path}:{line}:{col}" if line else str(loaded.path)
    kind = "text" if isinstance(items, str) else "a mapping" if isinstance(items, dict) else (
        "a single value")  # fmt: skip
    raise EditRefused(
        f"{where}: `items` is {kind}, not a list of items, so the edit has nowhere "
        "to go; write the items as a list (`items:`, then `  - id: ...` per item), then run "
        "the command again. The file is unchanged."
    )


def _edit(p: Path, lock: SetLock, create: str | None) -> Iterator[SetEditor]:
    from ruamel.yaml.representer import RepresenterError

    from evalset.fsio import sweep_temps

    target, scratch = lock.target, lock.scratch
    for leftover in target.parent.glob(f".{target.name}.*.tmp"):
        with contextlib.suppress(OSError):  # a writer killed mid-write left it; we hold the lock
            leftover.unlink(missing_ok=True)
    if scratch is not None:
        sweep_temps(scratch)
    new = create is not None and not target.exists()
    before = parse_set(create, p) if create is not None and new else load_set(p)
    _refuse_unlisted_items(before)
    editor = SetEditor(before)
    yield editor
    try:
        text = editor.render()
    except RepresenterError as exc:  # a value an edit_item edit wrote
        raise EditRefused(
            f"{p}: the edit was refused because it writes a value a set file cannot hold "
            f"({exc}); give text, numbers, true or false, dates, lists and mappings. The "
            "file is unchanged."
        ) from None
    if new or text != before.text:
        touched = editor.touched  # replaced and restored items are validated too
        touched.update(range(len(before.raw_items), len(before.raw_items) + len(editor._appended)))
        whole = new or bool(editor._header_changes)  # the header's rules bind every item
        try:
            after = parse_set(text, p, only=None if whole else touched)
        except SetFileError as exc:
            raise EditRefused(
                f"{p}: the edit was refused because the result would not be readable "
                f"({exc}); the file is unchanged."
            ) from None
        _check(before, after, editor, new)
        held_out = _held_out_in_plain(before, after, touched)
        if held_out:
            text = _sealed_on_arrival(p, before, after, held_out)
        _refuse_changed_on_disk(p, target, before, new)
        atomic_write(target, ("\ufeff" if before.bom else "") + text, scratch)


def _held_out_in_plain(before: SetFile, after: SetFile, written: set[int]) -> list[int]:
    """The positions of the items among ``written`` that the edit makes holdout items in
    plain text (added, moved into the holdout, replaced) and that were not that before. An
    opened sealed item written in plain text is being unsealed (with the key): left out."""

    def plain_holdout(loaded: SetFile) -> set[int]:
        pairs = zip(loaded.item_index, loaded.items, strict=True)
        return {k for k, item in pairs if k in written and item.holdout and k not in loaded.opened}

    return sorted(plain_holdout(after) - plain_holdout(before) - set(before.opened))


def _sealed_on_arrival(p: Path, before: SetFile, after: SetFile, positions: list[int]) -> str:
    """The text of ``after`` with the items at ``positions`` sealed, when the set's holdout
    is sealed (or was at its last commit), to the recipients of the holdout, as `promote`
    and `import` seal the holdout items they add: a holdout item in plain text there would
    go into git history with the next commit (`evalset validate` says so). Sealing needs
    the public keys only. Each is sealed with its text as written, which `unseal` gives
    back."""
    from evalset.sets.sealed import holdout_recipients, seal

    keys = holdout_recipients(before.sealed_forms, before.path)[0]
    if not keys:
        return after.text  # a holdout that is not sealed
    sealer = SetEditor(after)
    for k in positions:
        item = after.items[after.item_index.index(k)]
        sealer.replace_at(k, seal(item, keys, sealer.source_of(k)))
    text = sealer.render()
    _check(after, parse_set(text, p, only=positions), sealer)
    return text


def _refuse_changed_on_disk(p: Path, target: Path, before: SetFile, new: bool) -> None:
    """Refuse to write over a file that another program changed (or created, ``new``) since
    the edit read it: an editor's save, a `git pull` or checkout made while the edit was
    open would be undone without a word. evalset's own writers wait for the lock; those
    do not take it."""
    from evalset.sets.yamlio import read_text

    if new:
        changed = target.exists() or target.is_symlink()
    else:
        try:
            now = read_text(target, keep_bom=True)
        except SetFileError:  # deleted, or made unreadable
            now = None
        changed = now != ("\ufeff" if before.bom else "") + before.text
    if changed:
        what = "was created" if new else "changed"
        raise EditRefused(
            f"{p}: the file {what} on disk during the edit (another program wrote it after the "
            "edit began), so the edit was refused rather than undo that change; nothing was "
            "written. Run the edit again on the file as it is now."
        )
