"""What changed between two states of a set, item by item and field by field.

Items are matched by id. Within an item, key points are matched first by identical text,
then by the most similar text, so an edited key point reads as "edited" rather than as one
removed and one added; the remaining fields are compared with deepdiff over the models,
lists of citations, statements and tags as unordered collections.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from typing import Any

from evalset.errors import EvalsetError
from evalset.sets.model import HIDDEN, Item
from evalset.sets.setfile import SetFile, as_loaded

KEY_POINT_MATCH = 0.5
"""Least text similarity (difflib ratio) for two key points to count as one edited point."""


BOOKKEEPING = frozenset(("status", "holdout", "holdout_moves", "verified", "category", "tags"))
"""The fields whose values a diff shows for a holdout item; the rest are its labels (the
question, what an answer must and must not say, where it is found), which a diff posted as
a pull-request comment would show to the people tuning prompts."""


@dataclass
class FieldChange:
    field: str
    """Where, e.g. ``question``, ``key_points[1].text``, ``expected_sources``."""
    change: str
    """added, removed, edited (text of the same element), or changed (a value replaced)."""
    old: Any = None
    new: Any = None
    hidden: bool = False
    """A label of a holdout item: what changed is said, not the values."""

    def to_json(self) -> dict[str, Any]:
        if self.hidden:
            return {"field": self.field, "change": self.change, "old": None, "new": None,
                    "hidden": True}  # fmt: skip
        return {"field": self.field, "change": self.change, "old": self.old, "new": self.new}

    def hide(self) -> FieldChange:
        """This change without its values."""
        return FieldChange(self.field, self.change, hidden=True)

    def __str__(self) -> str:
        if self.hidden:
            return f"{self.field}: {self.change} {HIDDEN}"
        if self.change == "added":
            return f"{self.field}: + {_show(self.new)}"
        if self.change == "removed":
            return f"{self.field}: - {_show(self.old)}"
        return f"{self.field}: {_show(self.old)} -> {_show(self.new)}"


def _show(value: Any) -> str:
    """A value as YAML writes it in a set file (``false``, ``null``, ``{to: holdout}``), with
    texts in single quotes so that ``old -> new`` reads unambiguously; a key point by its
    text."""
    if isinstance(value, dict) and "text" in value:
        value = value["text"]
    if isinstance(value, str):
        return "'" + value.replace("'", "''") + "'"
    if isinstance(value, dict):  # as the file has it: unset fields are not written
        value = {k: v for k, v in value.items() if v is not None}
    return yaml_flow(value)


def yaml_flow(value: Any) -> str:
    """``value`` in YAML's flow style, on one line, keys in their order."""
    import io

    from ruamel.yaml import YAML

    from evalset.sets.yamlio import NEVER_FOLD

    yaml = YAML(typ="safe", pure=True)
    yaml.default_flow_style = True
    yaml.width = NEVER_FOLD
    yaml.sort_base_mapping_type_on_output = False  # type: ignore[assignment]
    out = io.StringIO()
    yaml.dump(value, out)
    return out.getvalue().removesuffix("\n").removesuffix("\n...").strip()


@dataclass
class ItemChange:
    id: str
    changes: list[FieldChange]

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "changes": [c.to_json() for c in self.changes]}


@dataclass
class HoldoutMove:
    id: str
    old: str
    new: str

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "from": self.old, "to": self.new}


@dataclass
class SetDiff:
    """What changed between two versions of a set (``diff_sets``)."""

    set: str
    old: str
    new: str
    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    retired: list[str] = field(default_factory=list)
    changed: list[ItemChange] = field(default_factory=list)
    holdout_moves: list[HoldoutMove] = field(default_factory=list)
    """Items that moved between tuning and holdout: a tuning item has been seen by tuners,
    and a holdout item moved to tuning has leaked."""
    header: list[FieldChange] = field(default_factory=list)
    not_compared: list[str] = field(default_factory=list)
    """Items invalid on either side (failing the schema: a misspelt field; a sealed item
    whose visible side or status was edited by hand): neither removed nor changed, but not
    compared."""
    snapshots: tuple[str | None, str | None] | None = None
    """The corpus snapshot each side was released against, when both are releases: a
    release whose items did not change may still be made against a newer corpus."""
    drafts_left_out: list[str] = field(default_factory=list)
    """Drafts on either side of a comparison with a release, which holds none: left out of
    both sides, as the release notes and `evalset log` leave them out."""

    @property
    def empty(self) -> bool:
        return not (
            self.added
            or self.removed
            or self.retired
            or self.changed
            or self.header
            or self.not_compared
        )

    @property
    def reverified(self) -> list[str]:
        """Items whose one change is the snapshot they were verified against: checked again,
        labels untouched."""
        return [c.id for c in self.changed if all(f.field == "verified" for f in c.changes)]

    def summary(self) -> str:
        """One line: ``2 added, 1 retired, 1 changed, 30 re-verified``."""
        again = set(self.reverified)
        parts = [
            f"{len(values)} {label}"
            for label, values in (
                ("added", self.added),
                ("removed", self.removed),
                ("retired", self.retired),
                ("changed", [c for c in self.changed if c.id not in again]),
                ("re-verified", again),
            )
            if values
        ]
        if self.holdout_moves:
            parts.append(f"{len(self.holdout_moves)} moved between tuning and holdout")
        if self.header:
            parts.append("header changed")
        if self.snapshots is not None and self.snapshots[1] not in (None, self.snapshots[0]):
            parts.append(f"new corpus snapshot {self.snapshots[1]}")
        if self.not_compared:
            parts.append(f"{len(self.not_compared)} not compared (invalid)")
        return ", ".join(parts) or "no change"

    def to_json(self) -> dict[str, Any]:
        return {
            "set": self.set,
            "old": self.old,
            "new": self.new,
            "added": self.added,
            "removed": self.removed,
            "retired": self.retired,
            "changed": [c.to_json() for c in self.changed],
            "holdout_moves": [m.to_json() for m in self.holdout_moves],
            "header": [c.to_json() for c in self.header],
            "not_compared": self.not_compared,
            "drafts_left_out": self.drafts_left_out,
        }


def _side(holdout: bool | None) -> str:
    return {True: "holdout", False: "tuning", None: "unassigned"}[holdout]


def _deep(old: Any, new: Any, prefix: str) -> list[FieldChange]:
    """Field changes between two plain values, by deepdiff (lists compared as collections)."""
    from deepdiff import DeepDiff

    diff = DeepDiff(old, new, ignore_order=True, view="tree")
    found: list[FieldChange] = []
    for kind, levels in diff.items():
        for level in levels:
            steps = level.path(output_format="list")
            # A list element is reported on its list: `expected_sources`, not `...[1]`.
            while steps and isinstance(steps[-1], int):
                steps = steps[:-1]
            where = _path(prefix, steps)
            if kind in ("iterable_item_added", "dictionary_item_added"):
                found.append(FieldChange(where, "added", None, _plain(level.t2)))
            elif kind in ("iterable_item_removed", "dictionary_item_removed"):
                found.append(FieldChange(where, "removed", _plain(level.t1), None))
            else:
                found.append(FieldChange(where, "changed", _plain(level.t1), _plain(level.t2)))
    return sorted(found, key=lambda c: (c.field, c.change))


def _plain(value: Any) -> Any:
    from deepdiff.helper import NotPresent

    return None if isinstance(value, NotPresent) else value


def _path(prefix: str, steps: list[Any]) -> str:
    out = prefix
    for step in steps:
        out += f"[{step}]" if isinstance(step, int) else (f".{step}" if out else str(step))
    return out


def _key_points(old: list[dict[str, Any]], new: list[dict[str, Any]]) -> list[FieldChange]:
    unmatched_old = list(range(len(old)))
    unmatched_new = list(range(len(new)))
    pairs: list[tuple[int, int]] = []
    for j in list(unmatched_new):  # identical text first
        i = next((i for i in unmatched_old if old[i]["text"] == new[j]["text"]), None)
        if i is not None:
            pairs.append((i, j))
            unmatched_old.remove(i)
            unmatched_new.remove(j)
    scored = sorted(
        (
            (difflib.SequenceMatcher(None, old[i]["text"], new[j]["text"]).ratio(), i, j)
            for i in unmatched_old
            for j in unmatched_new
        ),
        reverse=True,
    )
    for ratio, i, j in scored:
        if ratio >= KEY_POINT_MATCH and i in unmatched_old and j in unmatched_new:
            pairs.append((i, j))
            unmatched_old.remove(i)
            unmatched_new.remove(j)
    changes: list[FieldChange] = []
    for i, j in sorted(pairs, key=lambda p: p[1]):
        where = f"key_points[{j}]"
        if old[i]["text"] != new[j]["text"]:
            changes.append(FieldChange(f"{where}.text", "edited", old[i]["text"], new[j]["text"]))
        rest_old = {k: v for k, v in old[i].items() if k != "text"}
        rest_new = {k: v for k, v in new[j].items() if k != "text"}
        changes.extend(_deep(rest_old, rest_new, where))
    changes.extend(FieldChange(f"key_points[{j}]", "added", None, new[j]) for j in unmatched_new)
    changes.extend(FieldChange(f"key_points[{i}]", "removed", old[i], None) for i in unmatched_old)
    return changes


def _same_snapshot(a: str | None, b: str | None) -> bool:
    return a == b or (a is not None and b is not None and (a.startswith(b) or b.startswith(a)))


def item_changes(old: Item, new: Item) -> list[FieldChange]:
    """Field-level changes of one item. ``verified`` is compared as the snapshot it means,
    so writing a longer or shorter prefix of the same id is no change."""
    a, b = old.model_dump(mode="json"), new.model_dump(mode="json")
    changes = _key_points(a.pop("key_points"), b.pop("key_points"))
    va, vb = a.pop("verified"), b.pop("verified")
    if not _same_snapshot(va, vb):
        changes.append(FieldChange("verified", "changed", va, vb))
    return _deep(a, b, "") + changes


def _field(change: FieldChange) -> str:
    """The item field a change is in: ``key_points`` for ``key_points[1].text``."""
    return change.field.split("[", 1)[0].split(".", 1)[0]


SHOWN = ("category", "holdout", "status", "verified")
"""The fields a sealed item shows beside its ciphertext that a diff compares (its ``id``
pairs it): all bookkeeping a diff shows for a holdout item, with the key or without."""


def _sealed_changes(old: SetFile, new: SetFile, result: SetDiff) -> None:
    """Items sealed on either side (and not opened by a key) are compared by fingerprint;
    what they show is in the clear (side, status, category, verified), so a move between
    tuning and holdout, a retirement and a re-verification are told as with the key."""
    if not (old.sealed or new.sealed):
        return
    from evalset.sets.content import item_fingerprint

    # Compared in the format a sealed side stores (evalset 0.1 sealed with format 1).
    stubs = [*old.sealed, *new.sealed]
    fmt = min(stub.sealed.fingerprint_format for stub in stubs)

    def fingerprints(loaded: SetFile) -> dict[str, str]:
        found = {item.id: item_fingerprint(item, fmt) for item in loaded.items}
        found.update({s.id: s.sealed.fingerprint for s in loaded.sealed})
        return found

    def shown(loaded: SetFile) -> dict[str, dict[str, Any]]:
        found = {item.id: {f: getattr(item, f) for f in SHOWN} for item in loaded.items}
        found.update({s.id: {f: getattr(s, f) for f in SHOWN} for s in loaded.sealed})
        return found

    before, after = fingerprints(old), fingerprints(new)
    sides, now = shown(old), shown(new)
    ciphertexts = {s.id: s.sealed.age for s in old.sealed}
    kept = {s.id for s in new.sealed if ciphertexts.get(s.id) == s.sealed.age}
    for ident in sorted({stub.id for stub in old.sealed} | {stub.id for stub in new.sealed}):
        if ident not in before:
            result.added.append(ident)
            continue
        if ident not in after:
            result.removed.append(ident)
            continue
        was, shows = sides[ident], now[ident]
        differ = [f for f in SHOWN if not _same_shown(f, was[f], shows[f])]
        if before[ident] == after[ident]:
            # the same content: only `verified` may differ, and only as written by sealing
            # again (re-verified with the key); an edit by hand keeps the ciphertext, and
            # what the item is cannot be told
            if differ and (differ != ["verified"] or ident in kept):
                result.not_compared.append(ident)
            elif differ:
                result.changed.append(ItemChange(ident, [_shown_change("verified", was, shows)]))
            continue
        if was["holdout"] is not None and shows["holdout"] != was["holdout"]:
            result.holdout_moves.append(
                HoldoutMove(ident, _side(was["holdout"]), _side(shows["holdout"]))
            )
        retired = shows["status"] == "retired" and was["status"] != "retired"
        if retired:
            result.retired.append(ident)
        changes = [_shown_change(f, was, shows) for f in differ if not (retired and f == "status")]
        # the side, status and category are part of the content: whether anything else
        # changed with them cannot be told without the key
        changes.append(FieldChange("sealed content", "changed", hidden=True))
        result.changed.append(ItemChange(ident, changes))


def _same_shown(name: str, a: Any, b: Any) -> bool:
    return _same_snapshot(a, b) if name == "verified" else a == b


def _shown_change(name: str, was: dict[str, Any], shows: dict[str, Any]) -> FieldChange:
    return FieldChange(name, "changed", was[name], shows[name])


def _require_unique_ids(loaded: SetFile, label: str) -> None:
    """Refuse a side whose id stands for two items: items are paired by id, so one of them
    would be passed over (the other reported removed, or changed into it)."""
    from collections import Counter

    repeated = sorted(i for i, n in Counter(e.id for e in loaded.entries).items() if n > 1)
    if repeated:
        raise EvalsetError(
            f"{loaded.path} ({label}): the id {repeated[0]!r} is used by more than one item, "
            "so what changed cannot be told item by item; give each item its own id "
            "(`evalset validate` lists them), or compare other revisions."
        )


def _without(loaded: SetFile, ids: set[str]) -> SetFile:
    """``loaded`` without the items (plain or sealed) whose id is in ``ids``."""
    from dataclasses import replace

    kept = [k for k, item in enumerate(loaded.items) if item.id not in ids]
    stubs = [k for k, stub in enumerate(loaded.sealed) if stub.id not in ids]
    return replace(
        loaded,
        items=[loaded.items[k] for k in kept],
        item_index=[loaded.item_index[k] for k in kept],
        sealed=[loaded.sealed[k] for k in stubs],
        sealed_index=[loaded.sealed_index[k] for k in stubs],
    )


def _raw(loaded: SetFile, ident: str) -> Any:
    """The entry of id ``ident`` as the file holds it, readable or not."""
    return next((e for e in loaded.raw_items if isinstance(e, dict) and e.get("id") == ident), None)


def _raw_order(loaded: SetFile) -> dict[str, int]:
    """Each entry's position in its file by its id, readable or not."""
    return {
        entry["id"]: k
        for k, entry in enumerate(loaded.raw_items)
        if isinstance(entry, dict) and isinstance(entry.get("id"), str)
    }


def _file_order(loaded: SetFile) -> dict[str, int]:
    """Each item's position in its file, plain or sealed."""
    found = dict(zip((s.id for s in loaded.sealed), loaded.sealed_index, strict=True))
    found.update(zip((i.id for i in loaded.items), loaded.item_index, strict=True))
    return found


def _failing(loaded: SetFile) -> set[str]:
    """The ids of the items that fail the schema (they are not among the file's items)."""
    return {f.item for f in loaded.schema_findings if f.severity == "error" and f.item}


def diff_sets(old: SetFile, new: SetFile, old_label: str, new_label: str) -> SetDiff:
    """What changed from ``old`` to ``new``, two versions of one set (named ``old_label``
    and ``new_label`` in the result), as `evalset diff` shows it: items added, removed and
    retired, items and header keys changed field by field, and holdout moves. Refused when
    either version has an id twice."""
    old, new = as_loaded(old, "diff_sets"), as_loaded(new, "diff_sets")
    for loaded, label in ((old, old_label), (new, new_label)):
        _require_unique_ids(loaded, label)
    result = SetDiff(new.name, old_label, new_label)
    # an item unreadable on one side is neither removed nor added: it is not compared
    unreadable = _failing(old) | _failing(new)
    if unreadable:
        # one invalid alike on both sides did not change: nothing to say of it
        same = {i for i in _failing(old) & _failing(new) if _raw(old, i) == _raw(new, i)}
        order = {**_raw_order(old), **_raw_order(new)}
        shown = sorted(unreadable - same, key=lambda i: order.get(i, len(order)))
        old, new = _without(old, unreadable), _without(new, unreadable)
        result.not_compared = shown
    before = {item.id: item for item in old.items}
    after = {item.id: item for item in new.items}
    sealed_before = {stub.id for stub in old.sealed}
    for ident, item in after.items():
        if ident not in before:
            if ident not in sealed_before:  # else compared by fingerprint below
                result.added.append(ident)
            continue
        previous = before[ident]
        changes = item_changes(previous, item)
        if item.status == "retired" and previous.status != "retired":
            result.retired.append(ident)
            changes = [c for c in changes if c.field != "status"]
        if previous.holdout is not None and item.holdout != previous.holdout:
            result.holdout_moves.append(
                HoldoutMove(ident, _side(previous.holdout), _side(item.holdout))
            )
        if previous.holdout or item.holdout:  # held out on either side: its labels stay so
            changes = [c if _field(c) in BOOKKEEPING else c.hide() for c in changes]
        if changes:
            result.changed.append(ItemChange(ident, changes))
    _sealed_changes(old, new, result)
    sealed_after = {stub.id for stub in new.sealed}
    result.removed = [i for i in before if i not in after and i not in sealed_after]
    # in file order, whether an item was read in the clear or compared sealed (with the key
    # or without it, the same diff lists the same items in the same order)
    now, then = _file_order(new), _file_order(old)
    result.added.sort(key=lambda ident: now.get(ident, len(now)))
    result.removed.sort(key=lambda ident: then.get(ident, len(then)))
    result.changed.sort(key=lambda change: now.get(change.id, len(now)))
    if old.header is not None and new.header is not None:
        skip = {"version", "fingerprint"}
        result.header = _deep(
            old.header.model_dump(mode="json", exclude=skip),
            new.header.model_dump(mode="json", exclude=skip),
            "",
        )
    return result
