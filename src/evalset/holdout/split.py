"""The holdout split: deterministic, sticky, stratified assignment, and recorded moves.

Only items without a ``holdout`` decision are ever assigned. Within each category the
unassigned items are ranked by a hash of their id, and as many of the first become holdout
as bring the category's holdout share of *active* items closest to the target ratio; the
rest become tuning. Drafts are assigned too (so that promoted drafts arrive with a side),
but never count toward a category's share until they are active.
No random state: the same file always gets the same split, and adding items never changes
an existing assignment. Moving an assigned item is refused unless forced, and a forced move
is recorded on the item, because a tuning item has been seen by tuners and a holdout item
moved to tuning has leaked.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import math
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalset.errors import EditRefused, EvalsetError
from evalset.sets.editor import SetEditor, edit_set
from evalset.sets.lock import refuse_unplain
from evalset.sets.model import PLACEHOLDER, Item, SealedItem, side
from evalset.sets.setfile import SetFile, load_set

if TYPE_CHECKING:
    from evalset.sets.validate import Baseline


def rank(item_id: str) -> int:
    """The tie-breaking order of an item: a hash of its id, stable across runs."""
    return int.from_bytes(hashlib.sha256(item_id.encode()).digest()[:8], "big")


def _target(count: int, ratio: float) -> int:
    return math.floor(count * ratio + 0.5)


@dataclass
class SplitPlan:
    """What a split assigns, and what it could not."""

    ratio: float
    """The target holdout share per category."""
    holdout: list[str] = field(default_factory=list)
    """Items assigned to the holdout."""
    tuning: list[str] = field(default_factory=list)
    """Items assigned to tuning."""
    too_small: dict[str, int] = field(default_factory=dict)
    """Categories with items but too few to hold any out at this ratio: name -> item count."""
    uncategorised: list[str] = field(default_factory=list)
    """Unassigned items without a category (drafts), left unassigned."""
    shares: dict[str, tuple[int, int]] = field(default_factory=dict)
    """Per category after the split: (holdout, items), of active items only."""
    sealed: list[str] = field(default_factory=list)
    """Items sealed as they went into the holdout (the set's holdout is sealed)."""
    leaking: list[str] = field(default_factory=list)
    """Unassigned items left so: near duplicates of items on both sides already."""
    unchecked: list[str] = field(default_factory=list)
    """Unassigned items left so: for tuning, while sealed holdout questions they may repeat
    cannot be read (no key)."""
    kept: int = 0
    """Items that had a side before the split and keep it: the ratio is a target for the
    unassigned items only."""
    written: bool = False
    """Whether the set file was changed (never on a dry run, nor when nothing was assigned)."""

    def to_json(self) -> dict[str, Any]:
        return {
            "ratio": self.ratio,
            "holdout": self.holdout,
            "tuning": self.tuning,
            "too_small": self.too_small,
            "uncategorised": self.uncategorised,
            "categories": {c: {"holdout": h, "items": n} for c, (h, n) in self.shares.items()},
            "sealed": self.sealed,
            "leaking": self.leaking,
            "unchecked": self.unchecked,
            "kept": self.kept,
        }


@dataclass(frozen=True)
class Move:
    """What ``move`` did."""

    changed: bool
    sealed: bool = False
    """The item was sealed as it went into the holdout (the set's holdout is sealed)."""


def plan_split(
    items: Sequence[Item | SealedItem], ratio: float, released: Sequence[Item] = ()
) -> SplitPlan:
    """Assign every unassigned, categorised, non-retired item (see the module docstring).

    Shares are computed over active items only: a draft may never be completed, so a
    draft's side, pre-assigned or not, never fills a category's holdout slot. Active items
    are assigned first, as if no draft existed; then unassigned drafts get their sides so
    that the category would stay at the target if every draft became active.
    ``released``: holdout items of the set's last release (or commit) that it no longer
    holds (``released_holdout``), whose questions stay held out as a retired holdout
    item's do."""
    if isinstance(items, SetFile):
        raise TypeError("plan_split() takes the set's items, not the loaded set: "
                        "plan_split(loaded.items, ratio)")  # fmt: skip
    if isinstance(ratio, bool) or not isinstance(ratio, int | float) or not 0 <= ratio <= 1:
        raise ValueError(
            f"ratio must be the holdout share, a number from 0 to 1 such as 0.2, not {ratio!r}"
        )
    plan = SplitPlan(ratio)
    plan.kept = sum(1 for i in items if i.status != "retired" and i.holdout is not None)
    active: dict[str, list[Item | SealedItem]] = defaultdict(list)
    drafts: dict[str, list[Item | SealedItem]] = defaultdict(list)
    for item in items:
        if item.status == "retired":
            continue
        if item.category is None:
            if item.holdout is None:
                plan.uncategorised.append(item.id)
            continue
        (active if item.status == "active" else drafts)[item.category].append(item)
    for category in dict.fromkeys([*active, *drafts]):
        members, waiting = active[category], drafts[category]
        held = sum(1 for item in members if item.holdout)
        open_items = sorted((i for i in members if i.holdout is None), key=lambda i: rank(i.id))
        wanted = max(0, min(len(open_items), _target(len(members), ratio) - held))
        plan.holdout.extend(item.id for item in open_items[:wanted])
        plan.tuning.extend(item.id for item in open_items[wanted:])
        held_all = held + wanted + sum(1 for item in waiting if item.holdout)
        open_drafts = sorted((i for i in waiting if i.holdout is None), key=lambda i: rank(i.id))
        total = len(members) + len(waiting)
        wanted_drafts = max(0, min(len(open_drafts), _target(total, ratio) - held_all))
        plan.holdout.extend(item.id for item in open_drafts[:wanted_drafts])
        plan.tuning.extend(item.id for item in open_drafts[wanted_drafts:])
        if ratio > 0 and _target(total, ratio) == 0:
            plan.too_small[category] = total
    _keep_near_duplicates_together([*items, *released], plan)
    planned = set(plan.holdout)
    for category, members in active.items():
        held = sum(1 for item in members if item.holdout or item.id in planned)
        plan.shares[category] = (held, len(members))
    return plan


def _keep_near_duplicates_together(items: Sequence[Item | SealedItem], plan: SplitPlan) -> None:
    """Put near-duplicate questions (the rule of `validate`'s leak check) on one side: with
    the side those of them already assigned have, else the side most of them were given
    (on a tie, the side of the first by rank). One on either side would leak the holdout
    question to the people tuning prompts. Those near duplicates of items on both sides
    already, directly or through other unassigned items (a leak `validate` would report),
    are left unassigned, in ``plan.leaking``."""
    from evalset.sets.neardup import near_duplicate_pairs

    live = [  # (a draft of `evalset new` has no question yet: only the placeholder.) A
        # retired item's side still holds, as `validate` judges it: the people tuning prompts
        # saw a retired tuning question, and never a retired holdout one, which in tuning
        # would leak a question a released holdout measured
        i
        for i in items
        if (i.status != "retired" or i.holdout is not None)
        and isinstance(i, Item)
        and i.question != PLACEHOLDER
    ]
    crowded: list[list[int]] = []
    pairs = near_duplicate_pairs([i.question for i in live], crowded)
    if not pairs and not crowded:
        return
    parent = list(range(len(live)))

    def root(k: int) -> int:
        while parent[k] != k:
            parent[k] = parent[parent[k]]
            k = parent[k]
        return k

    sides = {ident: True for ident in plan.holdout} | {ident: False for ident in plan.tuning}
    # Two items whose sides are settled are a leak already, or no concern of the split: the
    # link between them joins no group, or an item near one of them alone would be taken
    # for a near duplicate of both sides. (A crowded group, never compared pair by pair, is
    # taken whole.)
    settled = [i.id not in sides and i.holdout is not None for i in live]
    for a, b in pairs:
        if not (settled[a] and settled[b]):
            parent[root(b)] = root(a)
    for group in crowded:
        for other in group[1:]:
            parent[root(other)] = root(group[0])
    groups: dict[int, list[Item]] = defaultdict(list)
    for k, item in enumerate(live):
        groups[root(k)].append(item)
    order = [*plan.holdout, *plan.tuning]
    for members in groups.values():
        open_items = [m for m in members if m.id in sides]
        if len(members) < 2 or not open_items:
            continue
        fixed = {m.holdout for m in members if m.id not in sides and m.holdout is not None}
        if len(fixed) == 2:
            for m in open_items:
                del sides[m.id]
                plan.leaking.append(m.id)
            continue
        if fixed:
            side = fixed.pop()
        else:  # the side most of them were given, which keeps the shares nearest the target
            held = sum(sides[m.id] for m in open_items)
            first = sides[min(open_items, key=lambda m: rank(m.id)).id]
            side = first if 2 * held == len(open_items) else 2 * held > len(open_items)
        for m in open_items:
            sides[m.id] = side
    plan.holdout = [ident for ident in order if sides.get(ident) is True]
    plan.tuning = [ident for ident in order if sides.get(ident) is False]


def split(path: Path, ratio: float, dry_run: bool = False) -> SplitPlan:
    """Assign the unassigned items of a set file in place (round-trip, locked, atomic).
    Refused while an item has lost the side it had at the set's last release (or commit):
    assigned afresh, it could land on the other side; or was put on the other side by hand
    without a recorded move: the others would be balanced around a move nobody recorded."""
    from evalset.sets.validate import released_holdout

    refuse_unplain(path)
    loaded = load_set(path)
    baseline = _baseline(path, loaded)
    _refuse_lost_sides(path, loaded, baseline)
    _refuse_miscounted(path, loaded)
    plan = plan_split(loaded.entries, ratio, released_holdout(loaded, baseline))
    _defer_unchecked(loaded, plan)
    if dry_run and plan.holdout:
        from evalset.holdout.seal import sealed_to

        plan.sealed = list(plan.holdout) if sealed_to(loaded)[0] else []
    if dry_run or not (plan.holdout or plan.tuning):
        return plan
    with edit_set(path) as editor:
        # Planned again under the lock: a concurrent writer may have added items.
        current = editor.current
        plan = plan_split(current.entries, ratio, released_holdout(current, baseline))
        _defer_unchecked(editor.current, plan)
        by_id = {item.id: item for item in editor.current.items}
        keys = _sealed_to(editor) if plan.holdout else []
        for ident in plan.holdout:
            _hold_out(editor, by_id[ident], {"holdout": True}, keys)
        plan.sealed = list(plan.holdout) if keys else []
        for ident in plan.tuning:
            editor.update_item(ident, {"holdout": False})
        plan.written = bool(plan.holdout or plan.tuning)
    return plan


def _baseline(path: Path, loaded: SetFile) -> Baseline | None:
    """The set's last release (or commit) its sides are compared with; None outside git."""
    from evalset.gitcmd import GitUnusable
    from evalset.sets.validate import holdout_baseline

    try:
        return holdout_baseline(path, loaded.name, loaded)
    except GitUnusable:  # a clone without its tags: `validate` there says what to fetch
        return None


def _refuse_lost_sides(path: Path, loaded: SetFile, baseline: Baseline | None) -> None:
    from evalset.sets.validate import unrecorded_moves

    if baseline is None:
        return
    moved = [(item, old, label) for _, item, old, label in unrecorded_moves(loaded, baseline)]
    lost = [(item, old, label) for item, old, label in moved if item.holdout is None]
    if lost:
        item, old, label = lost[0]
        more = f" (and {len(lost) - 1} more item(s))" if len(lost) > 1 else ""
        was = "true" if old.holdout else "false"
        raise EditRefused(
            f"{path}: item {item.id}{more} lost its holdout assignment (holdout: {was}) since "
            f"{label}, and a split would assign it afresh, perhaps to the other side; "
            f"put back `holdout: {was}` (`evalset validate {loaded.name}` lists them), then "
            "split again."
        )
    if moved:
        item, old, label = moved[0]
        more = f" (and {len(moved) - 1} more item(s))" if len(moved) > 1 else ""
        was, now = ("holdout", "tuning") if old.holdout else ("tuning", "holdout")
        raise EditRefused(
            f"{path}: item {item.id}{more} was moved from {was} to {now} by hand since "
            f"{label}, without a recorded move, and a split would balance the other "
            f"items around it; put back `holdout: {str(bool(old.holdout)).lower()}` (to move "
            f"it, then run `evalset split {loaded.name} --move {item.id} --to {now} --force`, "
            "which records the move), then split again."
        )


_COUNTING = frozenset(("schema", "category", "duplicate-id"))
"""Errors that change what a split counts: an item that cannot be read (left out), a
category the header does not declare (balanced as a category of its own), an id twice."""


def _refuse_miscounted(path: Path, loaded: SetFile) -> None:
    """Refuse a split while the set has an error that changes what it counts."""
    from evalset.sets.validate import check_set

    errors = [f for f in check_set(loaded, errors_only=True) if f.rule in _COUNTING]
    if errors:
        raise EditRefused(
            f"{path}: cannot split {loaded.name} with {len(errors)} error(s) that change what "
            f"it counts (first: {errors[0]}); fix them (`evalset validate {loaded.name}`) and "
            "split again."
        )


def move(
    path: Path,
    item_id: str,
    to: str,
    force: bool,
    reason: str | None = None,
    dry_run: bool = False,
) -> Move:
    """Move one item to ``to`` (tuning or holdout). An assigned item moves only with
    ``force``, and the move is recorded on it. ``dry_run``: what the move would do, with
    every refusal it would meet, and nothing written."""
    if to not in ("tuning", "holdout"):
        raise EvalsetError(f"{to!r} is not a side; use --to tuning or --to holdout.")
    refuse_unplain(path)
    loaded = load_set(path)
    item = next((i for i in loaded.items if i.id == item_id), None)
    if item is None:
        if any(stub.id == item_id for stub in loaded.sealed):
            from evalset.sets.sealed import refused_sealed

            raise refused_sealed(path, item_id)
        invalid = loaded.not_valid(item_id)
        if invalid is not None:
            raise EditRefused(f"{invalid}, then move it again. Nothing was moved.")
        hint = loaded.did_you_mean(item_id)
        raise EditRefused(f"{path}: has no item {item_id!r}{hint}; check the id.")
    wanted = to == "holdout"
    if item.holdout is wanted:
        return Move(changed=False)
    if item.holdout is not None and not force:
        why = (
            "it has been seen by the people tuning prompts, so it no longer measures anything"
            if wanted
            else "its question would leak to the people tuning prompts"
        )
        raise EditRefused(
            f"{path}: item {item_id} is {side(item.holdout)}; moving it to {to} is refused "
            f"because {why}. Pass --force to move it anyway; the move is recorded on the item."
        )
    if not wanted:
        _refuse_unread_holdout(path, loaded, [item_id])
    partner = _leak_partner(loaded, item, wanted, _baseline(path, loaded))
    if partner is not None:
        where = side(partner.holdout)
        if partner.status == "retired":
            where += " (retired)"
        elif all(entry.id != partner.id for entry in loaded.entries):
            where += " at the last release (deleted since)"
        raise EditRefused(
            f"{path}: item {item_id}'s question is a near duplicate of {partner.id}'s, which "
            f"is {where}: moved to {to}, the holdout question would have "
            f"leaked (`evalset validate` says so); move {partner.id} too, or reword or retire "
            "one of them. Nothing was moved."
        )
    changes: dict[str, Any] = {"holdout": wanted}
    if item.holdout is not None:
        record: dict[str, Any] = {"to": to, "date": dt.date.today().isoformat()}
        if reason:
            record["reason"] = reason
        changes["holdout_moves"] = [
            *(m.model_dump(mode="json", exclude_defaults=True) for m in item.holdout_moves),
            record,
        ]
    keys: list[str] = []
    if dry_run:
        from evalset.holdout.seal import sealed_to

        return Move(changed=True, sealed=wanted and bool(sealed_to(loaded)[0]))
    with edit_set(path) as editor:
        if wanted:
            keys = _sealed_to(editor)
            _hold_out(editor, item, changes, keys)
        elif not editor.unsealed_with(item_id, changes):  # out of a sealed holdout: plain,
            editor.update_item(item_id, changes)  # with the comments it was sealed with
    return Move(changed=True, sealed=bool(keys))


def _defer_unchecked(loaded: SetFile, plan: SplitPlan) -> None:
    """Without the key, leave unassigned the items planned for tuning (``plan.unchecked``):
    whether one repeats a sealed holdout question, which it would leak there, cannot be
    told. Those planned for the holdout are assigned: there, a near duplicate leaks
    nothing. A retired sealed item counts too: no one tuning prompts has seen its
    question."""
    if plan.tuning and loaded.sealed:
        plan.unchecked, plan.tuning = plan.tuning, []


def _refuse_unread_holdout(path: Path, loaded: SetFile, tuning: list[str]) -> None:
    """Refuse to put items in tuning while the set's sealed holdout items are not opened
    (no key): whether one of them is a near duplicate of a sealed question, which it would
    leak there, cannot be told."""
    sealed = [stub.id for stub in loaded.sealed]  # a retired one's question is held out too
    if not (tuning and sealed):
        return
    from evalset.sets.sealed import key_to_open

    raise EditRefused(
        f"{path}: {len(sealed)} sealed holdout item(s) cannot be read without the key, so "
        f"the question(s) of {', '.join(tuning[:3])}{', …' if len(tuning) > 3 else ''}, for "
        "tuning, cannot be compared with theirs, and in tuning a near duplicate of one would "
        f"leak it; {key_to_open()} and try again."
    )


def _leak_partner(
    loaded: SetFile, item: Item, wanted: bool, baseline: Baseline | None
) -> Item | None:
    """An item on the other side than ``wanted`` whose question is a near duplicate of
    ``item``'s (the rules `validate` applies): moved, one side's question would be the
    other's. A retired tuning item was seen by the people tuning prompts; a holdout item
    retired (or deleted since the last release) was not, and counts for an item that did
    not ask the same at the ``baseline`` (the copy of a holdout question)."""
    from evalset.sets.neardup import near_duplicate_pairs
    from evalset.sets.validate import released_holdout

    asked = {i.id: i.question for i in baseline.set.items} if baseline is not None else {}
    new = asked.get(item.id) != item.question
    others = [
        i for i in loaded.items
        if i.id != item.id and i.holdout is (not wanted)
        and (i.status != "retired" or not wanted or new)
    ]  # fmt: skip
    if not wanted and new:
        others += released_holdout(loaded, baseline)
    pairs = near_duplicate_pairs([item.question, *(i.question for i in others)])
    return next((others[b - 1] for a, b in pairs if a == 0), None)


def _sealed_to(editor: SetEditor) -> list[str]:
    """The recipients the set's holdout is sealed to (or was at its last commit); none for
    a holdout that is not sealed."""
    from evalset.holdout.seal import sealed_to

    return sealed_to(editor.current)[0]


def _hold_out(editor: SetEditor, item: Item, changes: dict[str, Any], keys: list[str]) -> None:
    """Put ``item`` in the holdout with ``changes`` (``holdout: true``, and the move's
    record). In a set whose holdout is sealed (``keys``, its recipients), the item is sealed
    as it goes there (public keys: no key needed), as items arriving in it are: no holdout
    text is written in the clear in such a file."""
    from evalset.sets.sealed import seal

    if not keys:
        editor.update_item(item.id, changes)
        return
    held = Item.model_validate({**item.model_dump(mode="json", exclude_none=True), **changes})
    editor.replace_item(item.id, seal(held, keys, editor.source_with(item.id, changes)))
