"""The rules that span items and sets (those the schema alone cannot check)."""

from __future__ import annotations

import difflib
from collections import Counter
from collections.abc import Callable, Collection, Iterable
from dataclasses import dataclass, field
from functools import cache, cached_property
from pathlib import Path, PurePath
from typing import TYPE_CHECKING, Any

from evalset.config import ValidateConfig, Workspace
from evalset.corpus.current import workspace_store
from evalset.corpus.manifest import Snapshot, SnapshotError, SnapshotStore
from evalset.errors import EvalsetError
from evalset.fsio import shown
from evalset.sets.citations import Citation
from evalset.sets.findings import Finding, Severity
from evalset.sets.model import PLACEHOLDER, Item, SealedItem, side
from evalset.sets.neardup import near_duplicate_pairs, normalise
from evalset.sets.resolve import now_at, resolves_by_content, unresolved
from evalset.sets.setfile import (
    SetFile,
    as_loaded,
    load_set,
    parse_set,
    parse_set_text,
    set_text_at,
)
from evalset.workspace import display_path

if TYPE_CHECKING:
    from evalset.git import Git
    from evalset.sets.copies import SealedBeside


@dataclass
class Report:
    """The findings of one validation run over one or more set files."""

    files: list[Path] = field(default_factory=list)
    findings: list[Finding] = field(default_factory=list)
    unchecked_sealed: int = 0
    """Sealed items the key did not open: their labels, citations and the leakage check
    between holdout and tuning questions were not run, so the report is not clean."""

    @property
    def errors(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "error"]

    @property
    def warnings(self) -> list[Finding]:
        return [f for f in self.findings if f.severity == "warning"]

    def ok(self, strict: bool = False, skip_sealed: bool = False) -> bool:
        """No errors (nor warnings, with ``strict``), and every item checked: sealed items
        the key did not open count against it unless ``skip_sealed``."""
        checked = skip_sealed or not self.unchecked_sealed
        return checked and not self.errors and not (strict and self.warnings)

    def to_json(self) -> dict[str, Any]:
        return {
            "files": [str(p) for p in self.files],
            "errors": len(self.errors),
            "warnings": len(self.warnings),
            "unchecked_sealed": self.unchecked_sealed,
            "findings": [f.to_json() for f in self.findings],
        }


def _did_you_mean(value: str, choices: Iterable[str]) -> str | None:
    close = difflib.get_close_matches(value, list(choices), n=1, cutoff=0.5)
    return f"did you mean {close[0]!r}?" if close else None


def _and_list(parts: list[str]) -> str:
    return parts[0] if len(parts) == 1 else f"{', '.join(parts[:-1])} and {parts[-1]}"


def _covers(expected: list[Citation], source: Citation) -> bool:
    return any(e == source or (e.section is None and e.doc == source.doc) for e in expected)


def draft_lacks(item: Item) -> list[str]:
    """The labels an item needs before it can be made active and does not have yet."""
    lacking = ["a question"] if item.question == PLACEHOLDER else []
    lacking += ["a category"] if item.category is None else []
    if item.answerable:
        lacking += [name for name, present in (("key points", item.key_points),
                    ("expected sources", item.expected_sources)) if not present]  # fmt: skip
    return lacking


def lacking_pronoun(lacking: list[str]) -> str:
    """``it`` for one label named with an article (``a category``), else ``them``."""
    return "it" if len(lacking) == 1 and lacking[0].startswith("a ") else "them"


@dataclass
class Baseline:
    """The committed states a set's holdout sides are compared with (``holdout_baseline``):
    its last release (before any release: its last commit) and, for the items added since
    that release, its last commit (HEAD), read only when such an item is compared."""

    set: SetFile
    label: str
    """``release X.Y.Z`` or ``HEAD``."""
    later: Callable[[], tuple[SetFile, str] | None] | None = field(default=None, repr=False)
    """Reads HEAD's state, when ``set`` is a release that HEAD has moved on from."""

    @cached_property
    def head(self) -> tuple[SetFile, str] | None:
        """HEAD's state and label, when it is not ``set``'s (None when it is, or unknown)."""
        return self.later() if self.later is not None else None

    @cached_property
    def _sealed(self) -> list[tuple[dict[str, SealedItem], str]]:
        """Per committed state (the release, then HEAD when it moved on), its sealed items by
        their ciphertext, and its label."""
        states = [(self.set, self.label), *([self.head] if self.head is not None else [])]
        return [
            ({stub.sealed.age: stub for stub in [*state.sealed, *state.opened.values()]}, label)
            for state, label in states
        ]

    def sealed_as_committed(self, stub: SealedItem) -> tuple[SealedItem, str] | None:
        """The committed sealed item whose content ``stub`` has (the same ciphertext, whatever
        id it shows now), and its state's label (the release's, else HEAD's: re-sealed since
        the release by the key holder, it is as at HEAD); what ``stub`` shows must be what
        that one shows. None when none has it."""
        return next(
            ((s[stub.sealed.age], label) for s, label in self._sealed if stub.sealed.age in s),
            None,
        )

    def sides(self, current: SetFile) -> dict[str, tuple[Item | SealedItem, str]]:
        """Per item id, the committed item the side of ``current``'s item of that id is
        compared with, and the state's label: the release's for the items it gives a side;
        for the others, HEAD's (an item added since the release was committed with its side:
        taking that away or flipping it is a move too). HEAD is read only when ``current``
        has such an item."""
        found = _sided(self.set, self.label)
        if any(e.id not in found for e in current.entries) and self.head is not None:
            then, label = self.head
            found = {**_sided(then, label), **found}
        return found


def _shown(stub: SealedItem) -> dict[str, Any]:
    """What a sealed item shows beside its ciphertext, by name (``sealed.recipients``): none
    of it can change while the ciphertext stays, since sealing again writes a new one. Who
    it is sealed to counts most: sealing takes the keys to seal to from the set."""
    from evalset.sets.sealed import VISIBLE

    dumped = stub.model_dump(mode="json")
    box = dumped["sealed"]
    return {
        **{name: dumped.get(name) for name in VISIBLE},
        **{f"sealed.{name}": box.get(name) for name in ("fingerprint", "fingerprint_format",
                                                         "recipients")},
    }  # fmt: skip


def _sided(loaded: SetFile, label: str) -> dict[str, tuple[Item | SealedItem, str]]:
    """The items of ``loaded`` that have a side (sealed ones show theirs), by id."""
    return {e.id: (e, label) for e in loaded.entries if e.holdout is not None}


def unrecorded_moves(
    current: SetFile, baseline: Baseline
) -> list[tuple[int, Item, Item | SealedItem, str]]:
    """Items whose holdout flag flipped since ``baseline`` (``Baseline.sides``: the last
    release, or HEAD for an item added since) without a recorded move, or was taken away
    (`split` would then assign the item afresh, perhaps to the other side): (position in the
    file, the item now, the item then, the label of then)."""
    before = baseline.sides(current)
    found = []
    for k, item in zip(current.item_index, current.items, strict=True):
        old, label = before.get(item.id, (None, ""))
        if old is None or old.holdout is None:
            continue
        if item.holdout is None:
            found.append((k, item, old, label))
            continue
        if old.holdout == item.holdout:
            continue
        # a sealed item shows no moves: then the last one recorded must be this move
        recorded = (
            item.holdout_moves[len(old.holdout_moves) :]
            if isinstance(old, Item)
            else item.holdout_moves[-1:]
        )
        if not any(m.to == side(item.holdout) for m in recorded):
            found.append((k, item, old, label))
    return found


def released_holdout(loaded: SetFile, baseline: Baseline | None) -> list[Item]:
    """The holdout items of ``baseline`` (the set's last release, else its last commit)
    that ``loaded`` no longer holds: their questions stay held out, as those of the retired
    holdout items it holds do, and in tuning a near duplicate of one would leak it (see
    ``_holdout_gone_to_tuning``). Questions sealed at the baseline cannot be read."""
    if baseline is None:
        return []
    ids = {entry.id for entry in loaded.entries}
    return [
        item
        for item in baseline.set.items
        if item.holdout and item.id not in ids and item.question != PLACEHOLDER
    ]


def released_holdout_of(loaded: SetFile) -> list[Item]:
    """``released_holdout`` against the set's ``holdout_baseline``: none outside git, nor in a
    clone without its release tags (where `validate` says what to fetch)."""
    from evalset.gitcmd import GitUnusable

    try:
        baseline = holdout_baseline(loaded.path, loaded.name, loaded)
    except GitUnusable:
        return []
    return released_holdout(loaded, baseline)


class _Checker:
    """Applies the rules to one loaded set; ``loc`` paths use the item's index in the file."""

    def __init__(
        self,
        loaded: SetFile,
        config: ValidateConfig,
        store: SnapshotStore | None = None,
        baseline: Baseline | None = None,
        errors_only: bool = False,
        sealed_before: Collection[str] | None = None,
        by_file: bool = False,
    ) -> None:
        self.loaded = loaded
        self.by_file = by_file
        """Whether the set lies in a workspace's sets folder, where commands find it by its
        file's name (``_name``)."""
        self.config = config
        self.store = store
        self.baseline = baseline
        self.errors_only = errors_only
        self.sealed_before = sealed_before
        self.findings: list[Finding] = [
            f for f in loaded.schema_findings if f.severity == "error" or not errors_only
        ]
        self.found: list[tuple[Severity, tuple[str | int, ...], str, str | None, str]] = []
        """What ``add`` was given, located once every rule has run (see ``_located``)."""

    def add(
        self,
        severity: Severity,
        loc: tuple[str | int, ...],
        message: str,
        hint: str | None = None,
        rule: str = "schema",
    ) -> None:
        if severity == "error" or not self.errors_only:  # (a warning is not even located)
            self.found.append((severity, loc, message, hint, rule))

    def _located(self) -> list[Finding]:
        """The findings ``add`` was given, in the order given, the errors located first: past
        the budget of exact positions (``MAX_REGION_PARSES``) the warnings, not the errors,
        fall back to their field, and an error is located alike whether the warnings were
        asked for or not (``errors_only``)."""
        found = self.found
        located: dict[int, Finding] = {}
        for k in sorted(range(len(found)), key=lambda k: found[k][0] != "error"):
            located[k] = self.loaded.finding(*found[k])
        return [located[k] for k in range(len(found))]

    def run(self) -> list[Finding]:
        loaded = self.loaded
        pairs = list(zip(loaded.item_index, loaded.items, strict=True))
        self._ids()
        if self.by_file:
            self._name()
        categories = loaded.header.categories if loaded.header else None
        for k, item in pairs:
            self._item(k, item, categories)
        for k, stub in zip(loaded.sealed_index, loaded.sealed, strict=True):
            self._stub_category(k, stub, categories)
        self._near_duplicates(pairs)
        if self.store is not None:
            self._citations(pairs)
        if categories is not None:
            self._coverage(categories, loaded.entries)
        if self.baseline is not None:
            self._holdout_flips()
            self._sealed_hand_edits()
            self._holdout_gone_to_tuning(pairs)
        if self.sealed_before is not None:
            self._plain_holdout(pairs)
        if loaded.sealed:
            from evalset.sets.sealed import IDENTITY_ENV, sealed_message

            self.add(
                "warning",
                ("items",),
                sealed_message(len(loaded.sealed)),
                f"their labels, citations and leakage into tuning were not checked, so "
                "`evalset validate` exits 1 unless --skip-sealed accepts them unchecked; with "
                f"{IDENTITY_ENV} set they are checked like any item",
                "sealed",
            )
        return self.findings + self._located()

    def _name(self) -> None:
        """The set's name is its file's name: commands find a set by its file, and pins,
        release tags and `check-pin` by its name, so a set whose two names differ is one
        they cannot all find (and two files naming one set would share its tags)."""
        header, path = self.loaded.header, self.loaded.path
        if header is None:
            return
        twins = [
            path.with_suffix(suffix).name
            for suffix in (".yaml", ".yml")
            if suffix != path.suffix and path.with_suffix(suffix).is_file()
        ]
        if twins:
            self.add(
                "error",
                ("name",),
                f"{twins[0]} beside it names a set {path.stem} too: a name finds one of them, "
                "and both would release under one set's tags",
                "rename one of the files (and its `name:`), or delete the copy",
                "name",
            )
        if header.name == path.stem:
            return
        self.add(
            "error",
            ("name",),
            f"the set is named {header.name!r}, but its file {path.name!r}: commands find a "
            "set by its file, and pins and release tags by its name",
            f"rename the file to {header.name}{path.suffix}, or set `name: {path.stem}`",
            "name",
        )

    def _holdout_flips(self) -> None:
        """A holdout flag flipped by hand since the baseline, with no recorded move."""
        assert self.baseline is not None
        for k, item, old, label in unrecorded_moves(self.loaded, self.baseline):
            if item.holdout is None:
                was = "true" if old.holdout else "false"
                self.add(
                    "error",
                    ("items", k),
                    f"lost its holdout assignment (holdout: {was}) since {label}; a split "
                    "would assign it afresh",
                    f"put back `holdout: {was}`",
                    "holdout-move",
                )
                continue
            side = "holdout" if item.holdout else "tuning"
            self.add(
                "error",
                ("items", k, "holdout"),
                f"moved from {'holdout' if old.holdout else 'tuning'} to {side} since {label} "
                "without a recorded move",
                f"undo the edit (`holdout: {str(bool(old.holdout)).lower()}`); to move the "
                f"item, undo it and run `evalset split {self.loaded.name} --move {item.id} "
                f"--to {side} --force`, which moves it and records the move",
                "holdout-move",
            )

    def _holdout_gone_to_tuning(self, pairs: list[tuple[int, Item]]) -> None:
        """A tuning question that near-duplicates one the baseline held out and the set no
        longer holds out (the item deleted, or retired): the holdout item written again
        under another id in tuning, which no move check sees. A tuning item that asked the
        same at the baseline is left alone: deleting or retiring the holdout copy is how
        such a leak is mended. Questions sealed at the baseline are not readable, and not
        compared."""
        from evalset.sets.neardup import near_duplicates_of

        assert self.baseline is not None
        baseline, label = self.baseline.set, self.baseline.label
        # an item still here is no copy of itself: a recorded move to tuning, and a flip
        # by hand, are the move checks' to judge
        here = {e.id for e in self.loaded.entries if e.status != "retired"}
        gone = [  # retired at the baseline or since: no tuner has seen its question
            item
            for item in baseline.items
            if item.holdout and item.id not in here and item.question != PLACEHOLDER
        ]
        if not gone:
            return
        asked = {item.id: item.question for item in baseline.items}
        tuning = [
            (k, item)
            for k, item in pairs
            if item.holdout is False and item.status != "retired"
            and asked.get(item.id) != item.question
        ]  # fmt: skip
        if not tuning:
            return
        questions = [item.question for item in gone] + [item.question for _, item in tuning]
        for a, b in near_duplicates_of(questions, range(len(gone))):
            if a >= len(gone) or b < len(gone):
                continue  # two gone, or two tuning: not this rule's
            old, (k, item) = gone[a], tuning[b - len(gone)]
            was = (
                f"a holdout item retired at {label}"
                if old.status == "retired"
                else f"which was holdout at {label} and is no longer"
            )
            self.add(
                "error",
                ("items", k, "question"),
                f"near duplicate of item {old.id!r}, {was}: the holdout question has leaked "
                "into tuning",
                f"reword it, or put it back in the holdout with `evalset split "
                f"{self.loaded.name} --move {item.id} --to holdout --force`",
                "leakage",
            )

    def _sealed_hand_edits(self) -> None:
        """A field a sealed item shows (its category, status, ...) changed since the baseline
        while its sealed content did not: a hand edit the content does not follow, which
        only the key would otherwise catch (diff, status and pin go by the content)."""
        assert self.baseline is not None
        forms = self.loaded.sealed_forms  # opened by the key or not: the same check
        if not forms:
            return
        for k, stub in sorted(forms.items()):
            found = self.baseline.sealed_as_committed(stub)
            if found is None:
                continue
            old, label = found
            now, then = _shown(stub), _shown(old)
            for name in (f for f in now if now[f] != then[f]):
                fix = (
                    "undo the edit; to seal to other keys, `evalset unseal` with the key, then "
                    "`evalset seal --recipient KEY`"
                    if name == "sealed.recipients"
                    else "undo the edit; to change it, `evalset unseal` with the key, edit, and "
                    "seal again"
                )
                self.add(
                    "error",
                    ("items", k, *name.split(".")),
                    f"shows `{name}: {now[name]}`, but its sealed content is as at {label}, "
                    f"where it showed `{name}: {then[name]}`: an edit by hand, which the "
                    "content does not follow",
                    fix,
                    "sealed-edit",
                )
                break

    def _plain_holdout(self, pairs: list[tuple[int, Item]]) -> None:
        """A holdout item in plain text in a set whose holdout is sealed, at HEAD (``evalset
        unseal`` to edit, and not sealed again) or in the file itself (an item written into
        the holdout by hand, or moved into it): a commit would write its labels into git
        history. An item moved to tuning is not a holdout item any more."""
        assert self.sealed_before is not None
        loaded, before = self.loaded, set(self.sealed_before)
        if not before and not (loaded.sealed or loaded.opened):
            return  # a holdout never sealed
        at_head = " at HEAD" if before else ""
        for k, item in pairs:
            if not item.holdout or k in loaded.opened:
                continue
            what = (
                "sealed at HEAD, and in plain text here"
                if item.id in before
                else f"a holdout item in plain text in a set whose holdout is sealed{at_head}"
            )
            self.add(
                "error",
                ("items", k),
                f"{what}: a commit would write its question and labels into git history",
                f"run `evalset seal {loaded.name}` before committing; it seals to the recipients "
                f"the holdout is sealed to{at_head}",
                "unsealed",
            )

    def _ids(self) -> None:
        first_seen: dict[str, int] = {}
        folded: dict[str, int] = {}
        for k, entry in enumerate(self.loaded.raw_items):
            ident = entry.get("id") if isinstance(entry, dict) else None
            if not isinstance(ident, str):
                continue
            other = folded.setdefault(ident.casefold(), k)
            if ident not in first_seen and other != k:
                line, _ = self.loaded.position(("items", other))
                where = f" at line {line}" if line else ""
                self.add(
                    "warning",
                    ("items", k, "id"),
                    f"id {ident!r} differs only in case from the id of another item"
                    f"{where}: a tool that compares ids without case (a spreadsheet's "
                    "lookup, say) takes the two for one",
                    "give this item an id no other item has in any case",
                    "id-case",
                )
            if ident in first_seen:
                line, _ = self.loaded.position(("items", first_seen[ident]))
                where = f" (first used at line {line})" if line else ""
                self.add(
                    "error",
                    ("items", k, "id"),
                    f"id {ident!r} is used by another item{where}",
                    "give this item a new id",
                    "duplicate-id",
                )
            else:
                first_seen[ident] = k

    def _stub_category(self, k: int, stub: SealedItem, categories: dict[str, str] | None) -> None:
        """A sealed item's category, which it shows without the key, is one the header
        declares (with the key, the item is checked as any item is)."""
        if stub.status != "retired" and stub.category is not None and categories is not None:
            self._declared(k, stub.category, categories)

    def _declared(self, k: int, category: str, categories: dict[str, str]) -> None:
        """The category of the item at ``k`` is one the header declares."""
        if category not in categories:
            self.add(
                "error",
                ("items", k, "category"),
                f"category {category!r} is not declared in the set's categories",
                _did_you_mean(category, categories)
                or "declare it under `categories:` in the header",
                "category",
            )

    def _item(self, k: int, item: Item, categories: dict[str, str] | None) -> None:
        draft = item.status == "draft"
        if item.status == "retired":
            return
        if item.category is None:
            if not draft:
                self.add(
                    "error",
                    ("items", k),
                    "an active item needs a category",
                    f"add `category:` with one of {sorted(categories or {})}",
                    "category",
                )
        elif categories is not None:
            self._declared(k, item.category, categories)
        if item.answerable:
            missing = [
                label
                for label, present in (
                    ("key_points", item.key_points),
                    ("expected_sources", item.expected_sources),
                )
                if not present
            ]
            for label in [] if draft else missing:
                self.add(
                    "error",
                    ("items", k),
                    f"an answerable item needs at least one of its {label.replace('_', ' ')}",
                    f"add `{label}:`, or mark it `answerable: false` if the corpus cannot "
                    "answer it",
                    "completeness",
                )
        else:
            for name in ("key_points", "expected_sources"):
                if getattr(item, name):
                    self.add(
                        "error",
                        ("items", k, name),
                        f"an item with `answerable: false` carries no {name.replace('_', ' ')}",
                        "it is scored by whether the system declines; remove them",
                        "completeness",
                    )
        repeated = [str(c) for c, n in Counter(item.expected_sources).items() if n > 1]
        for citation in repeated:
            self.add(
                "warning",
                ("items", k, "expected_sources"),
                f"expected_sources lists {citation} more than once; it counts once in "
                "recall, ndcg and map",
                "remove the repeat",
                "repeated-source",
            )
        lacking = draft_lacks(item) if draft else []
        if lacking:
            self.add(
                "warning",
                ("items", k),
                f"draft still lacks {_and_list(lacking)} before it can be made active",
                f"add {lacking_pronoun(lacking)}, set `status: active`, and record the check "
                "with `evalset verify`",
                "draft",
            )
        for p, point in enumerate(item.key_points):
            for s, source in enumerate(point.sources):
                if not _covers(item.expected_sources, source):
                    self.add(
                        "warning",
                        ("items", k, "key_points", p, "sources", s),
                        f"{source} is not among the item's expected_sources",
                        "add it to expected_sources, or cite one that is",
                        "sources",
                    )
        points = {normalise(p.text) for p in item.key_points} if item.must_not_say else set()
        for m, text in enumerate(item.must_not_say):
            if normalise(text) in points:
                self.add(
                    "error",
                    ("items", k, "must_not_say", m),
                    "the same statement is also a key point, so no answer can pass",
                    "remove it from one of the two lists",
                    "contradiction",
                )

    def _snapshot(self, ref: str, loc: tuple[str | int, ...]) -> Snapshot | None:
        assert self.store is not None
        try:
            snap = self.store.get(ref)
        except SnapshotError as exc:
            self.add("error", loc, str(exc).rstrip("."), None, "snapshot")
            return None
        if snap is None:
            self.add(
                "error",
                loc,
                f"snapshot {ref!r} is not in {self.store.folder}",
                "restore it from git, or verify the items again against the newest snapshot",
                "snapshot",
            )
        return snap

    def _citations(self, pairs: list[tuple[int, Item]]) -> None:
        """Every citation resolves in the snapshot its item was verified against; an item
        without its own ``verified`` is unverified, and checked against the newest."""
        assert self.store is not None
        header = self.loaded.header
        name = self.loaded.name
        if header is not None and header.snapshot:
            self.add(
                "warning",
                ("snapshot",),
                f"the header's `snapshot: {header.snapshot}` no longer counts as the items' "
                "verification: an item is verified only by its own `verified:`",
                f"if the items without `verified:` were checked against {header.snapshot}, run "
                f"`evalset verify {name} --from-header`; else check them and run `evalset verify "
                f"{name} ITEM…`",
                "snapshot-header",
            )
        store = self.store
        newest_of: list[Snapshot | None] = []

        def newest_snapshot() -> Snapshot | None:
            # Looked up only when needed: choosing the newest may mean walking the corpus.
            if not newest_of:
                newest_of.append(store.newest())
            return newest_of[0]

        # per snapshot and citation, why it does not resolve and the fix: items repeat their
        # citations
        why_not: dict[tuple[str, Citation], tuple[str, str | None] | None] = {}
        for k, item in pairs:
            if item.status == "retired":
                continue
            if item.verified:
                snap = self._snapshot(item.verified, ("items", k, "verified"))
            else:
                snap = newest = newest_snapshot()
                if item.status == "active":
                    hint = (
                        f"check it, then run `evalset verify {name} {item.id}`"
                        if newest is not None
                        else f"run `evalset snapshot`, then `evalset verify {name} --all` once "
                        "the items are checked against it"
                    )
                    self.add(
                        "warning",
                        ("items", k),
                        "not verified against any corpus snapshot yet",
                        hint,
                        "unverified",
                    )
            if snap is None:
                continue
            cited: list[tuple[tuple[str | int, ...], Citation]] = [
                (("expected_sources", i), c) for i, c in enumerate(item.expected_sources)
            ]
            for p, point in enumerate(item.key_points):
                cited.extend(
                    (("key_points", p, "sources", s), c) for s, c in enumerate(point.sources)
                )
            for loc, citation in cited:
                key = (snap.id, citation)
                if key not in why_not:
                    why_not[key] = self._unresolved(citation, snap, newest_snapshot)
                if (found := why_not[key]) is not None:
                    self.add("error", ("items", k, *loc), *found, "citation")

    def _unresolved(
        self, citation: Citation, snap: Snapshot, newest_snapshot: Callable[[], Snapshot | None]
    ) -> tuple[str, str | None] | None:
        """Why ``citation`` does not resolve in ``snap`` and the fix, or None: it resolves,
        or relabels one of ``snap``'s. A citation the newest snapshot lacks (an unverified
        item's) is told where its text went, when it only moved."""
        assert self.store is not None
        why = unresolved(citation, snap)
        if why is None:
            return None
        newest = newest_snapshot()
        if newest and resolves_by_content(citation, snap, newest, self.store):
            return None
        if newest is None or newest.id != snap.id:
            return why, None
        places = now_at(citation, newest, self.store)
        if not places:
            return why, None
        why = unresolved(citation, snap, guess=False) or why  # where it went, not a name alike
        if len(places) == 1:
            return why, f"its text is now at {places[0]}; `evalset stale --fix-moved` relabels it"
        shown = " and ".join(places[:3]) + (" …" if len(places) > 3 else "")
        return why, (
            f"its text is now at {shown}; `evalset stale --fix-moved` relabels it where one of "
            "them is likelier, else cite the one meant by hand"
        )

    def _near_duplicates(self, pairs: list[tuple[int, Item]]) -> None:
        # a draft `evalset new` wrote has no question yet, only the placeholder; a retired
        # tuning item was seen by the people tuning prompts: it still counts for leakage
        live = [(k, item) for k, item in pairs if item.question != PLACEHOLDER
                and (item.status != "retired" or item.holdout is False)]  # fmt: skip
        crowded: list[list[int]] = []
        # each question is said once per kind, naming all it nears: a set written from a
        # template would otherwise warn about every pair (a million lines for 1,500 items)
        near: dict[tuple[str, int], tuple[Item, list[Item]]] = {}
        for a, b in near_duplicate_pairs([item.question for _, item in live], crowded):
            (ka, first), (kb, second) = live[a], live[b]
            retired = [i for i in (first, second) if i.status == "retired"]
            if retired:  # only a live holdout question leaks into it
                held = second if first in retired else first
                if len(retired) == 2 or not held.holdout:
                    continue
                other = first if held is second else second
                at = kb if held is second else ka
                near.setdefault(("retired", at), (held, []))[1].append(other)
                continue
            leak = {first.holdout, second.holdout} == {True, False}
            near.setdefault(("leak" if leak else "near", kb), (second, []))[1].append(first)
        for (kind, k), (item, nears) in near.items():
            self._near_duplicate(kind, k, item, nears)
        for group in crowded:  # too many alike to compare one by one: said, not skipped
            k, others = live[group[0]][0], [live[m][1].id for m in group[1:4]]
            self.add(
                "warning",
                ("items", k, "question"),
                f"{len(group)} questions share all but a word or two with this one (items "
                f"{', '.join(others)}, …): too many to compare one by one, so near duplicates "
                "among them, holdout leaks included, were not looked for",
                "reword them apart, or split the set",
                "near-duplicate",
            )

    def _near_duplicate(self, kind: str, k: int, item: Item, others: list[Item]) -> None:
        """The finding of question ``k`` (``item``), a near duplicate of ``others`` (``kind``:
        ``near``, ``leak`` across the split, or ``retired`` tuning items it leaked into)."""
        one = len(others) == 1
        named = f"item {others[0].id!r}" if one else f"items {_listed([o.id for o in others])}"
        if kind == "retired":
            what = "a retired tuning item" if one else "retired tuning items"
            self.add(
                "error",
                ("items", k, "question"),
                f"near duplicate of {named}, {what}, which the people tuning prompts have "
                "seen: the holdout question has leaked",
                f"reword this question, or retire it, or move it to tuning (`evalset split "
                f"{self.loaded.name} --move {item.id} --to tuning --force`)",
                "leakage",
            )
        elif kind == "leak":
            sides = ("tuning", "holdout") if item.holdout else ("holdout", "tuning")
            self.add(
                "error",
                ("items", k, "question"),
                f"near duplicate of {named}, and one of the two is holdout while the other is "
                "tuning: the holdout question has leaked"
                if one
                else f"near duplicate of {named}, which are {sides[0]} while this one is "
                f"{sides[1]}: the holdout question has leaked",
                "reword or retire one of them, or put both on the same side"
                if one
                else "reword or retire this one, or put them all on the same side",
                "leakage",
            )
        else:
            self.add(
                "warning",
                ("items", k, "question"),
                f"near duplicate of {named}",
                "merge them, or reword one so each tests something different"
                if one
                else "merge them, or reword them so each tests something different",
                "near-duplicate",
            )

    def _coverage(self, categories: dict[str, str], items: list[Item | SealedItem]) -> None:
        active = [item for item in items if item.status == "active"]
        per_category = Counter(item.category for item in active)
        holdout = Counter(item.category for item in active if item.holdout)
        sideless = Counter(item.category for item in active if item.holdout is None)
        minimum = self.config.min_per_category
        for name in categories:
            if per_category[name] < minimum:
                self.add(
                    "warning",
                    ("categories", name),
                    f"category {name!r} has {per_category[name]} active item(s), "
                    f"fewer than the {minimum} wanted",
                    "add items of this kind",
                    "coverage",
                )
            elif per_category[name] and holdout[name] == 0:
                self.add(
                    "warning",
                    ("categories", name),
                    f"category {name!r} has no active holdout item, so tuning on it cannot be "
                    "checked",
                    "run `evalset split`, which gives its items without a side one"
                    if sideless[name]
                    else "add items of this kind and run `evalset split` (it gives a side only "
                    "to items without one), or move an item the tuners have not seen with "
                    f"`evalset split {self.loaded.name} --move ID --to holdout --force "
                    "--reason ...` (a holdout draft counts once it is active)",
                    "coverage",
                )


NAMED = 5
"""Items a near-duplicate finding names at most; it counts the rest."""


def _listed(ids: list[str]) -> str:
    """``'q-1', 'q-2' and 'q-3'``; past ``NAMED``, ``'q-1', …, 'q-5' and 12 more``."""
    shown = [repr(i) for i in ids[:NAMED]]
    if len(ids) > NAMED:
        return f"{', '.join(shown)} and {len(ids) - NAMED} more"
    return f"{', '.join(shown[:-1])} and {shown[-1]}"


def check_set(
    loaded: SetFile,
    config: ValidateConfig | None = None,
    store: SnapshotStore | None = None,
    baseline: Baseline | None = None,
    errors_only: bool = False,
    sealed_before: Collection[str] | None = None,
    by_file: bool = False,
) -> list[Finding]:
    """All findings for one loaded set file, in file order. With a snapshot store, citations
    are resolved in the snapshots the items were verified against; with a ``baseline``
    (see ``holdout_baseline``), holdout flags flipped since it without a recorded move are
    errors. ``errors_only``: the errors alone (all a command
    that refuses an invalid set needs), warnings are not even located in the file. With
    ``sealed_before`` (see ``sealed_at_head``), holdout items in plain text in a set whose
    holdout is sealed are errors: a commit would leak them. ``by_file``: the set lies in a
    workspace's sets folder, so its name must be its file's."""
    loaded = as_loaded(loaded, "check_set")
    checker = _Checker(
        loaded, config or ValidateConfig(), store, baseline, errors_only, sealed_before, by_file
    )
    findings = checker.run()
    return sorted(findings, key=lambda f: (f.line or 0, f.col or 0))


def item_rule_errors(loaded: SetFile, indexes: Collection[int]) -> list[Finding]:
    """The errors the item rules find (a category the header does not declare, labels an
    active item lacks, labels an unanswerable one must not have, ...) in the items at
    ``indexes`` of the file, for what an edit of them must not add."""
    checker = _Checker(loaded, ValidateConfig(), errors_only=True)
    categories = loaded.header.categories if loaded.header else None
    for k, item in zip(loaded.item_index, loaded.items, strict=True):
        if k in indexes:
            checker._item(k, item, categories)
    for k, stub in zip(loaded.sealed_index, loaded.sealed, strict=True):
        if k in indexes:
            checker._stub_category(k, stub, categories)
    return checker._located()


def row_errors(
    item: Item, categories: dict[str, str] | None
) -> list[tuple[tuple[str | int, ...], str, str | None]]:
    """The errors the item rules find in an item no file holds yet (a row to import), for a
    set declaring ``categories`` (None: any): each as its field's path within the item, the
    problem and its fix."""
    checker = _Checker(_no_items(), ValidateConfig(), errors_only=True)
    checker._item(0, item, categories)
    return [(loc[2:], message, hint) for _, loc, message, hint, _ in checker.found]


_NO_ITEMS = "evalset: 1\nname: row\nitems: []\n"
"""The set ``row_errors`` checks an item as part of: its rules read nothing else of it."""


@cache
def _no_items() -> SetFile:
    """``_NO_ITEMS``, parsed once: parsing it for each row (its header's findings located
    in a YAML reader of their own) took 4 ms a row, most of an import of 30,000 rows."""
    return parse_set(_NO_ITEMS, Path("row"))


def header_rule_errors(loaded: SetFile) -> list[Finding]:
    """The errors the rules on a set's header find where its file lies (in a workspace's
    sets folder, its name must be its file's), for what an edit of the header must not
    add."""
    from evalset.config import find_workspace_or_none

    folder = loaded.path.resolve().parent
    workspace = find_workspace_or_none(folder)
    checker = _Checker(loaded, ValidateConfig(), errors_only=True, by_file=True)
    if workspace is not None and folder == workspace.sets_dir.resolve():
        checker._name()
    return checker._located()


Contexts = dict[Path, tuple[ValidateConfig, SnapshotStore | None, bool]]
"""Per folder, the configuration and snapshots of the workspace it lies in, and whether it
is that workspace's sets folder (where a set is found by its file's name)."""


def validate(
    paths: Iterable[str | Path],
    config: ValidateConfig | None = None,
    store: SnapshotStore | None = None,
) -> Report:
    """Validate set files. Unreadable files raise SetFileError; problems become findings.

    Without ``config`` and ``store``, each file is checked with the configuration and the
    snapshots of the workspace it lies in (found from the file's folder), if any."""
    if isinstance(paths, (str, bytes, PurePath)):  # else each character would be a path
        raise TypeError(
            f"validate() takes a list of set files, not one path: validate([{str(paths)!r}])"
        )
    if not isinstance(paths, Iterable):
        raise TypeError(
            f"validate() takes a list of set files, not {shown(paths)}: "
            "validate(['sets/NAME.yaml'])"
        )
    from evalset.sets.copies import SealedBeside

    report = Report()
    contexts: Contexts = {}
    beside = SealedBeside()
    for path in paths:
        loaded = load_set(path)
        report.files.append(loaded.path)
        report.unchecked_sealed += len(loaded.sealed)
        if config is None and store is None:
            report.findings.extend(check_in_place(loaded, contexts, leaks=True, beside=beside))
        else:
            report.findings.extend(check_set(loaded, config, store))
    return report


def no_set_files(workspace: Workspace) -> Finding:
    """The warning for a workspace whose sets folder holds no set file: nothing was checked."""
    return Finding(
        "warning",
        display_path(workspace.sets_dir),
        "holds no set file (.yaml or .yml), so nothing was checked",
        hint="`evalset init` writes a first set there; check `sets` in the configuration if "
        "the sets are elsewhere",
        rule="no-sets",
    )


def check_in_place(
    loaded: SetFile,
    contexts: Contexts | None = None,
    errors_only: bool = False,
    leaks: bool = False,
    beside: SealedBeside | None = None,
) -> list[Finding]:
    """The findings `evalset validate` reports for a loaded set: checked with the
    configuration and snapshots of the workspace it lies in, and, in a workspace, against
    its git history (holdout flags). ``errors_only``: as for ``check_set``. ``leaks``: also
    what a commit of the file would leak (holdout items left in plain text in a set whose
    holdout is sealed, and, in a workspace's sets folder, plain copies of the items the
    other sets there hold sealed, read through ``beside`` when given: one per run), which
    `evalset validate` checks as the pre-commit hook."""
    from evalset.sets.copies import SealedBeside, sealed_copy_findings

    file_config, file_store, by_file = _context(loaded.path, {} if contexts is None else contexts)
    baseline = None
    if file_store is not None:  # in a workspace: compare with its git history
        baseline = holdout_baseline(loaded.path, loaded.name, loaded)
    before = sealed_at_head(loaded, baseline) if leaks else None
    found = check_set(loaded, file_config, file_store, baseline, errors_only, before, by_file)
    if not (leaks and by_file):
        return found
    beside = beside if beside is not None else SealedBeside()
    beside.add(loaded)
    copies = sealed_copy_findings(loaded, beside.others(loaded.path))
    return sorted(found + copies, key=lambda f: (f.line or 0, f.col or 0)) if copies else found


def sealed_at_head(loaded: SetFile, baseline: Baseline | None = None) -> list[str] | None:
    """The ids of the items sealed in the set's committed version (HEAD), which its holdout
    items in plain text are checked against (``check_set``'s ``sealed_before``); None when
    it holds none in plain text, or when there is nothing to compare with (outside git, a
    file HEAD does not hold). Git is asked only when the set holds a holdout item in plain
    text and no sealed item (a sealed item in the file says the holdout is sealed without
    it: then the ids are not needed, and are empty), and not at all when ``baseline`` (see
    ``holdout_baseline``) is HEAD's version already."""
    from evalset.sets.sealed import committed_seals

    pairs = zip(loaded.item_index, loaded.items, strict=True)
    if not any(item.holdout and k not in loaded.opened for k, item in pairs):
        return None
    if loaded.sealed or loaded.opened:
        return []
    if baseline is not None and baseline.label == "HEAD":
        then = baseline.set
        return [stub.id for stub in [*then.sealed, *then.opened.values()]]
    seals = committed_seals(loaded.path, loaded.text)
    return None if seals is None else list(seals)


def holdout_baseline(path: Path, name: str, current: SetFile | None = None) -> Baseline | None:
    """The state a set's holdout flags are compared with: its last release on this branch
    (the one its header names, which the release commit wrote: a release made on another
    branch, merged here or not, is not this branch's), or before any release its last
    commit; with, for a release that HEAD has moved on from, HEAD's state for the items
    added since (read when one is compared). None outside git, or for a file git does not
    have yet. When a state is the text of ``current`` (the set as loaded, unchanged since),
    it is ``current`` itself rather than a second parse of the same text."""
    from evalset.git import Git, release_named
    from evalset.gitcmd import GitUnusable

    try:
        git = Git.find(path.resolve().parent)
        tags = git.tags(name)
        header = current.header if current is not None else None
        version = header.version if header else None
        git.require_release_tag(path, name, version, tags)
        ours = release_named(tags, version)
        rev, label = (ours.commit, f"release {ours.version}") if ours else ("HEAD", "HEAD")
        found = _state_at(git, rev, path, name, label, current)
        if found is None:
            return None
        if ours is None or git.commit_of("HEAD") == ours.commit:
            return Baseline(*found)

        def later() -> tuple[SetFile, str] | None:
            try:
                return _state_at(git, "HEAD", path, name, "HEAD", current)
            except GitUnusable:
                raise
            except EvalsetError:
                return None

        return Baseline(*found, later)
    except GitUnusable:  # not "outside git": the comparison is needed, and impossible here
        raise
    except EvalsetError:
        return None


def _state_at(
    git: Git, rev: str, path: Path, name: str, label: str, current: SetFile | None
) -> tuple[SetFile, str] | None:
    """The set as ``rev`` of ``git`` holds it, named ``label`` (``current`` when its text is
    the same); None when ``rev`` does not hold it."""
    text = set_text_at(git, rev, path, name)  # where it was then, renamed since or not
    if text is None:
        return None
    if current is not None and text.removeprefix("\ufeff") == current.text:
        return current, label
    return parse_set_text(text, path, label), label


def _context(path: Path, seen: Contexts) -> tuple[ValidateConfig, SnapshotStore | None, bool]:
    from evalset.config import find_workspace_or_none

    folder = path.resolve().parent
    if folder not in seen:
        workspace = find_workspace_or_none(folder)
        if workspace is None:
            seen[folder] = (ValidateConfig(), None, False)
        else:
            seen[folder] = (
                workspace.config.validate,
                workspace_store(workspace),
                folder == workspace.sets_dir.resolve(),
            )
    return seen[folder]
