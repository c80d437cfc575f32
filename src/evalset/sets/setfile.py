"""Set files: fast loading with located findings, and safe surgical editing.

Loading parses with yaml-rs and validates with the pydantic models; positions for messages
are looked up only when a finding needs one. Editing re-renders just the items (or header)
it touches with ruamel.yaml round-trip and splices them into the original text, so every
other byte stays as the user wrote it. Writes hold a lock, re-validate, and replace the
file atomically.
"""

from __future__ import annotations

import difflib
import os
import re
from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from evalset.bulk import bulk
from evalset.errors import EvalsetError, SetFileError
from evalset.fsio import as_path, shown
from evalset.sets.findings import Finding, Severity, field_path
from evalset.sets.locate import TextIndex
from evalset.sets.messages import describe, error_loc, schema_message
from evalset.sets.model import Item, SealedItem, SetHeader
from evalset.sets.yamlio import forget_prefetch, parse_mapping, read_text

if TYPE_CHECKING:
    from evalset.git import Git


_SEPARATORS = re.compile(r"[-_.\s]+")
_NUMBER = re.compile(r"\d+")


def _id_shape(ident: str) -> str:
    """An id as a person may misremember its form: in lower case, with one kind of
    separator, and its numbers without leading zeros."""
    unified = _SEPARATORS.sub("-", ident.casefold())
    return _NUMBER.sub(lambda m: m.group().lstrip("0") or "0", unified)


@dataclass
class SetFile:
    """A loaded set file: its text, header, valid items and the schema findings."""

    path: Path
    text: str
    raw: dict[str, Any]
    header: SetHeader | None
    items: list[Item]
    """The items that passed schema validation, in file order."""
    item_index: list[int]
    """For each entry of ``items``, its index in the file's item list."""
    schema_findings: list[Finding] = field(default_factory=list)
    sealed: list[SealedItem] = field(default_factory=list)
    """Sealed items that stay sealed (no key, or not this one's), in file order."""
    sealed_index: list[int] = field(default_factory=list)
    """For each entry of ``sealed``, its index in the file's item list."""
    opened: dict[int, SealedItem] = field(default_factory=dict)
    """File index -> sealed form, for the sealed items the key opened (they are in ``items``)."""
    sealed_text: dict[int, str] = field(default_factory=dict)
    """File index -> the text an opened sealed item had in the file when it was sealed (or
    last edited), comments included; items sealed by evalset 0.1 have none."""
    bom: bool = False
    """Whether the file starts with a byte-order mark (kept when it is edited)."""

    @cached_property
    def index(self) -> TextIndex:
        return TextIndex(self.text)

    def schema_error(self, ident: str | None = None) -> Finding | None:
        """The first schema error of the file (of item ``ident``, when given): an item that
        has one is not among ``items``, so a command that goes by them must say so rather
        than pass over it."""
        return next(
            (
                f
                for f in self.schema_findings
                if f.severity == "error" and (ident is None or f.item == ident)
            ),
            None,
        )

    def not_valid(self, ident: str) -> str | None:
        """Why a command cannot take item ``ident``, when the file has an item of that id
        (written as text or not, ``id: 12``) that the schema refuses: it is not among
        ``items``, yet saying the file has no such item would send the user looking for a
        typo. ``file:line:col: item 'x' is not valid: <its first problem, as `evalset
        validate` words it>; fix it (...)``, for the command to end with what then; None
        when the file has no such invalid item."""
        found = self.schema_error(ident)  # first: most files have no schema error at all
        if found is None or ident not in self.written_ids:
            return None
        where = str(self.path)
        if found.line is not None:
            where += f":{found.line}:{found.col or 1}"
        problem = f"{found.field}: {found.message}" if found.field else found.message
        if found.hint:
            problem += f" ({found.hint})"
        return (
            f"{where}: item {ident!r} is not valid: {problem}; fix it (`evalset validate "
            f"{self.name}` lists the problems)"
        )

    def nearest_id(self, ident: str) -> str | None:
        """The id written in the file closest to ``ident``, an id no item has, for a
        command's "did you mean": of any item (one the schema refuses is then said to be not
        valid, a sealed one to be sealed); None when none is close."""
        written = sorted(self.written_ids)
        same = [w for w in written if _id_shape(w) == _id_shape(ident)]
        if same:  # q-1 for q-001, Q_001 for q-001
            return same[0]
        # Ids share their prefix and differ in a number, so difflib's usual cutoff (0.6)
        # calls most of them close: q-039 for q-999.
        close = difflib.get_close_matches(ident, written, n=1, cutoff=0.75)
        return close[0] if close else None

    def did_you_mean(self, ident: str) -> str:
        """`` (did you mean 'q-12'?)`` (``nearest_id``), or nothing."""
        close = self.nearest_id(ident)
        return f" (did you mean {close!r}?)" if close is not None else ""

    @property
    def raw_items(self) -> list[Any]:
        items = self.raw.get("items")
        return items if isinstance(items, list) else []

    @property
    def written_ids(self) -> set[str]:
        """The id of every item in the file, valid, sealed or refused by the schema, as text
        (``id: 12`` is ``'12'``)."""
        ids = (e.get("id") for e in self.raw_items if isinstance(e, dict))
        return {str(i) for i in ids if i is not None}

    @property
    def sealed_forms(self) -> dict[int, SealedItem]:
        """File index -> sealed form, for every sealed item, opened by the key or not."""
        return {**dict(zip(self.sealed_index, self.sealed, strict=True)), **self.opened}

    @property
    def name(self) -> str:
        return self.header.name if self.header else self.path.stem

    @property
    def entries(self) -> list[Item | SealedItem]:
        """Every valid item: the plain ones, then those that stay sealed (their visible
        fields only), for whatever counts items without needing their content."""
        return [*self.items, *self.sealed]

    def plain(self, k: int) -> dict[str, Any]:
        """The item at file index ``k`` as plain data (an opened sealed item's content)."""
        item = self.items[self.item_index.index(k)]
        return item.model_dump(mode="json", exclude_defaults=True)

    def position(self, loc: tuple[str | int, ...]) -> tuple[int | None, int | None]:
        found = self.index.position(loc, len(self.raw_items))
        return found if found else (None, None)

    def finding(
        self,
        severity: Severity,
        loc: tuple[str | int, ...],
        message: str,
        hint: str | None = None,
        rule: str = "schema",
    ) -> Finding:
        """A finding at ``loc`` (``("items", k, ...)`` or a header path), located lazily."""
        line, col = self.position(loc)
        item_id: str | None = None
        rest = loc
        if len(loc) >= 2 and loc[0] == "items" and isinstance(loc[1], int):
            raw_item = self.raw_items[loc[1]] if loc[1] < len(self.raw_items) else None
            ident = raw_item.get("id") if isinstance(raw_item, dict) else None
            item_id = str(ident) if ident is not None else f"#{loc[1] + 1}"
            rest = loc[2:]
        return Finding(
            severity,
            self.path,
            message,
            line,
            col,
            item_id,
            field_path(rest) or None,
            hint,
            rule,
        )


def parse_set(text: str, path: Path, only: Collection[int] | None = None) -> SetFile:
    """Validate set-file text: unreadable input raises SetFileError, schema problems become
    findings (items that fail are left out of ``items``). ``only`` limits item validation to
    those file positions (an edit re-checks just what it touched)."""
    with bulk():
        return _parse_set(text, path, only)


def _parse_set(text: str, path: Path, only: Collection[int] | None) -> SetFile:
    raw = parse_mapping(text, path)
    loaded = SetFile(path, text, raw, None, [], [])
    header_raw = {k: v for k, v in raw.items() if k != "items"}
    try:
        loaded.header = SetHeader.model_validate(header_raw)
    except ValidationError as exc:
        for err in exc.errors():
            text_, hint = schema_message(err, is_item=False)
            loaded.schema_findings.append(loaded.finding("error", error_loc(err), text_, hint))
    items = raw.get("items", [])
    if items is None:
        items = []
    if not isinstance(items, list):
        loaded.schema_findings.append(
            loaded.finding("error", ("items",), f"expected a list of items, got {describe(items)}")
        )
        return loaded
    if only is None:
        _cross_item_aliases(loaded)
    validate_item = Item.model_validate
    for k, entry in enumerate(items):
        if only is not None and k not in only:
            continue
        if isinstance(entry, dict) and "sealed" in entry:
            _parse_sealed(loaded, k, entry)
            continue
        try:
            loaded.items.append(validate_item(entry))
            loaded.item_index.append(k)
        except ValidationError as exc:
            # held out, or meant to be by a flag the schema refuses (`holdout: yes`): a
            # finding must not quote its labels either way
            held = isinstance(entry, dict) and entry.get("holdout", False) not in (False, None)
            for err in exc.errors():
                text_, hint = schema_message(err, is_item=True, held=held)
                loc = ("items", k, *error_loc(err))
                loaded.schema_findings.append(loaded.finding("error", loc, text_, hint))
    return loaded


_ANCHOR = re.compile(r"(?:(?<=[\s\[{,])|^)&([^\s,\[\]{}]+)", re.MULTILINE)
_ALIAS = re.compile(r"(?:(?<=[\s\[{,])|^)\*([^\s,\[\]{}]+)", re.MULTILINE)


def _cross_item_aliases(loaded: SetFile) -> None:
    """An alias to an anchor defined in another item (or in the header) is an error: items
    are edited, sealed and merged one at a time, and such an item cannot be read alone."""
    text = loaded.text
    if "&" not in text or "*" not in text:
        return
    anchors = [(m.start(), m.group(1)) for m in _ANCHOR.finditer(text)]
    if not anchors:
        return
    spans = loaded.index.spans
    if spans is None or len(spans.starts) != len(loaded.raw_items):
        return  # edited by one round trip of the whole file, where aliases resolve
    import bisect

    breaks = [0]
    for text_line in loaded.index.lines:
        breaks.append(breaks[-1] + len(text_line))

    def owner(offset: int) -> int:
        line = bisect.bisect_right(breaks, offset) - 1
        k = bisect.bisect_right(spans.starts, line) - 1
        return k if k >= 0 and line < spans.ends[k] else -1

    by_name: dict[str, list[int]] = {}
    for offset, anchor in anchors:
        by_name.setdefault(anchor, []).append(offset)
    for alias in _ALIAS.finditer(text):
        name = alias.group(1)
        offsets = by_name.get(name, [])
        last = bisect.bisect_left(offsets, alias.start()) - 1  # the anchor in force there
        if last < 0:
            continue
        home, here = owner(offsets[last]), owner(alias.start())
        if home == here or here < 0:
            continue
        entry = loaded.raw_items[home] if home >= 0 else None
        what = "the header"
        if home >= 0:
            ident = entry.get("id") if isinstance(entry, dict) else None
            what = f"item {ident!r}" if ident is not None else f"item #{home + 1}"
        at = bisect.bisect_right(breaks, alias.start()) - 1  # not line_col: one scan per alias
        row, col = at + 1, alias.start() - breaks[at] + 1
        entry = loaded.raw_items[here]
        user = entry.get("id") if isinstance(entry, dict) else None
        loaded.schema_findings.append(
            Finding(
                "error",
                loaded.path,
                f"uses the alias *{name} of an anchor in {what}",
                row,
                col,
                str(user) if user is not None else f"#{here + 1}",
                None,
                "write the value out: items are edited, sealed and merged one at a time",
                "alias",
            )
        )


def _parse_sealed(loaded: SetFile, k: int, entry: dict[str, Any]) -> None:
    try:
        stub = SealedItem.model_validate(entry)
    except ValidationError as exc:
        for err in exc.errors():
            text_, hint = schema_message(err, is_item=True, held=True)
            loc = ("items", k, *error_loc(err))
            loaded.schema_findings.append(loaded.finding("error", loc, text_, hint))
        return
    from evalset.sets.sealed import identities, open_sealed

    keys = identities()
    found = None
    if keys is not None:
        line, _ = loaded.position(("items", k))
        found = open_sealed(stub, keys, f"{loaded.path}:{line}" if line else str(loaded.path))
    if found is None:
        loaded.sealed.append(stub)
        loaded.sealed_index.append(k)
    else:
        item, text = found
        loaded.items.append(item)
        loaded.item_index.append(k)
        loaded.opened[k] = stub
        if text is not None:
            loaded.sealed_text[k] = text


def as_loaded(value: object, function: str) -> SetFile:
    """``value`` if it is a loaded set; a path given in its place is refused with a
    sentence saying how to load it, not with an AttributeError from inside ``function``."""
    if isinstance(value, SetFile):
        return value
    given = repr(str(value)) if isinstance(value, str | os.PathLike) else "path"
    raise TypeError(f"{function}() takes a loaded set, not {shown(value)}: give load_set({given}).")


def named_not_given(p: Path) -> SetFileError | None:
    """The error for a set's name given where its path is (``acme-support`` for
    ``sets/acme-support.yaml``): the library takes paths only, and "no such file; check the
    path or the set name" would blame a name that is right."""
    if len(p.parts) != 1 or p.suffix or p.exists():
        return None
    from evalset.config import find_workspace_or_none

    try:
        ws = find_workspace_or_none()
    except EvalsetError:  # (a broken configuration: the plain "no such file" will do)
        return None
    for suffix in (".yaml", ".yml"):
        found = ws.sets_dir / f"{p}{suffix}" if ws is not None else None
        if found is not None and found.is_file():
            shown = os.path.relpath(found)
            return SetFileError(
                f"{p}: no such file, but it is the name of the set {shown}; the Python API "
                f"takes a set file's path, not its name: give {shown!r}."
            )
    return None


def load_set(path: str | os.PathLike[str]) -> SetFile:
    """Read and schema-validate one set file."""
    p = as_path(path, "load_set")
    try:
        text = read_text(p, keep_bom=True)
    except SetFileError:
        forget_prefetch()
        named = named_not_given(p)
        if named is not None:
            raise named from None
        raise
    bom = text.startswith("\ufeff")
    loaded = parse_set(text[1:] if bom else text, p)
    loaded.bom = bom
    return loaded


def parse_set_text(text: str, path: Path, where: str) -> SetFile:
    """A set file's text read from history; ``where`` names the revision in errors."""
    try:
        return parse_set(text, path)
    except SetFileError as exc:
        raise SetFileError(f"{exc} (at {where})") from None


def set_text_at(git: Git, commit: str, path: Path, name: str) -> str | None:
    """The text a set file had at ``commit`` (a revision of ``git``): at its own
    path, else, when it was elsewhere then (a workspace moved into a subfolder, a sets folder
    renamed, ``s.yaml`` renamed ``s.yml``), the one file of its name (either suffix) that
    holds a set named ``name``; None when there is no such one file."""
    from evalset.errors import EvalsetError
    from evalset.workspace import SET_SUFFIXES

    text = git.show(commit, git.rel(path))
    if text is not None:
        return text
    listed = git.run("ls-tree", "-r", "-z", "--name-only", commit)
    names = {path.stem + suffix for suffix in SET_SUFFIXES}
    found = []
    for candidate in (p for p in listed.split("\0") if p.rsplit("/", 1)[-1] in names):
        text = git.show(commit, candidate)
        try:
            if text is not None and parse_set_text(text, path, commit).name == name:
                found.append(text)
        except EvalsetError:
            continue
    return found[0] if len(found) == 1 else None
