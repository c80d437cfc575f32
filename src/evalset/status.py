"""The overview of a workspace's sets: counts by category and split, drafts, findings."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalset.config import Workspace
from evalset.corpus.current import workspace_store
from evalset.corpus.manifest import SnapshotStore
from evalset.corpus.newest import Newest, ParallelSnapshots
from evalset.errors import EvalsetError
from evalset.git import TAG_PREFIX, Git, Tag, merge_driver_problem, release_named
from evalset.gitcmd import GitUnusable
from evalset.holdout.coverage import SPLITS, Coverage, category_table, corpus_documents, coverage
from evalset.sets.copies import SealedBeside
from evalset.sets.model import Item, SealedItem, side
from evalset.sets.setfile import SetFile, load_set
from evalset.sets.validate import Contexts, check_in_place, draft_lacks
from evalset.staleness.stale import StaleChecker, never_compared
from evalset.versions.pin import tag_vouches
from evalset.workspace import set_paths


@dataclass
class Draft:
    """A draft waiting for review: how long, and what it still lacks."""

    id: str
    age_days: int | None
    """Days since its origin date (when the question was asked), negative for a date in the
    future (a typo, a clock set wrong); None without one."""
    lacks: list[str]
    errors: int = 0
    """The errors `evalset validate` finds in it (a citation the corpus no longer has)."""

    def to_json(self) -> dict[str, Any]:
        return {"id": self.id, "age_days": self.age_days, "lacks": self.lacks,
                "errors": self.errors}  # fmt: skip


@dataclass
class SetStatus:
    """One set's overview. ``stale`` and ``release`` are None until snapshots and releases exist."""

    name: str
    path: Path
    categories: dict[str, dict[str, int]] = field(default_factory=dict)
    """Active items per category: ``{"direct-lookup": {"tuning": 6, "holdout": 2, ...}}``."""
    active: int = 0
    holdout: int = 0
    tuning: int = 0
    unassigned: int = 0
    """Active items with no ``holdout:`` decision yet (neither tuning nor holdout)."""
    drafts: int = 0
    retired: int = 0
    sealed: int = 0
    """Sealed holdout items (opened with the key or not)."""
    errors: int = 0
    warnings: int = 0
    stale: int | None = None
    """Active items with a citation that changed since verification; without a snapshot,
    those verified against one (which is not here); None without snapshots when no item
    was verified."""
    stale_ids: list[str] = field(default_factory=list)
    unverified: list[str] = field(default_factory=list)
    """Active items verified against no snapshot yet: not compared, so neither stale nor
    fresh."""
    unchecked: list[str] = field(default_factory=list)
    """Active sealed items the key did not open whose staleness is unknown (not verified
    against the newest snapshot): counted neither stale nor fresh."""
    snapshot: str | None = None
    """The newest snapshot the staleness was computed against."""
    release: str | None = None
    """The latest release, ``X.Y.Z+modified`` when the working copy differs from it; None
    for a set never released."""
    foreign_tag: str | None = None
    """The latest release tag when `evalset release` did not make it (it records no pin):
    no release, which `release` and `pin` refuse to build on; ``release`` is the one
    before it."""
    coverage: Coverage | None = None
    """Asked for with ``workspace_status(..., with_coverage=True)``."""
    draft_items: list[Draft] = field(default_factory=list)
    """The drafts waiting for review, oldest first."""
    invalid: list[str] = field(default_factory=list)
    """Items that fail the schema (ids, or ``#N`` by position): counted by what of them
    reads (their status, split, category), never compared with the corpus, so neither
    stale nor fresh."""

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "path": str(self.path),
            "items": {
                "active": self.active,
                "holdout": self.holdout,
                "tuning": self.tuning,
                "unassigned": self.unassigned,
                "draft": self.drafts,
                "retired": self.retired,
                "sealed": self.sealed,
            },
            "categories": self.categories,
            "errors": self.errors,
            "warnings": self.warnings,
            "stale": self.stale,
            "stale_items": self.stale_ids,
            "unverified_items": self.unverified,
            "unchecked_sealed_items": self.unchecked,
            "invalid_items": self.invalid,
            "snapshot": self.snapshot,
            "release": self.release,
            "foreign_tag": self.foreign_tag,
            "drafts": [d.to_json() for d in self.draft_items],
            **({"coverage": self.coverage.to_json()} if self.coverage else {}),
        }


def set_status(
    path: Path,
    workspace: Workspace | None = None,
    checker: StaleChecker | None = None,
    tags: list[Tag] | None = None,
    with_coverage: bool = False,
    corpus: list[str] | None = None,
    contexts: Contexts | None = None,
    store: SnapshotStore | None = None,
    beside: SealedBeside | None = None,
) -> SetStatus:
    """One set's overview; ``with_coverage``, its coverage of ``corpus`` too (the corpus's
    document ids; None when unknown). Its errors and warnings are those `evalset validate`
    counts (``check_in_place``, with ``contexts`` shared between the sets). Without a
    ``checker`` (no snapshot in the workspace's ``store``), items verified against a
    snapshot are stale as `evalset stale` counts them: what they were checked against is
    not here."""
    loaded = load_set(path)
    # The findings `evalset validate` reports, checked alike (the name against the file's,
    # citations even before the first snapshot): status counts what the gate would.
    findings = check_in_place(loaded, contexts, leaks=True, beside=beside)
    status = SetStatus(loaded.name, path)
    status.sealed = len(loaded.sealed) + len(loaded.opened)
    for item in loaded.entries:
        if item.status == "draft":
            status.drafts += 1
        elif item.status == "retired":
            status.retired += 1
        else:
            status.active += 1
            status.holdout += item.holdout is True
            status.tuning += item.holdout is False
            status.unassigned += item.holdout is None
    status.draft_items = drafts(loaded.entries)
    errors = Counter(f.item for f in findings if f.severity == "error")
    for draft in status.draft_items:
        draft.errors = errors[draft.id]
    status.categories = category_table(loaded)
    _count_invalid(loaded, status)
    if with_coverage:
        status.coverage = coverage(loaded, corpus)
    if checker is not None:
        stale, status.unverified = checker.stale_items(loaded)
        status.stale = len(stale)
        status.stale_ids = [s.id for s in stale]
        status.unchecked = checker.unchecked_sealed(loaded)
        status.snapshot = checker.newest.short
    elif store is not None:
        stale, status.unverified = never_compared(store, loaded)
        status.unchecked = [s.id for s in loaded.sealed if s.status == "active" and s.verified]
        if stale or status.unchecked:
            status.stale = len(stale)
            status.stale_ids = [s.id for s in stale]
    if tags is not None:
        own = [t for t in tags if t.name.startswith(f"{TAG_PREFIX}/{status.name}/v")]
        status.foreign_tag = own[-1].name if own and own[-1].pin is None else None
        status.release = release_state(loaded, own, _reader(workspace, path, status.name))
    status.errors = sum(f.severity == "error" for f in findings)
    status.warnings = sum(f.severity == "warning" for f in findings)
    return status


def _count_invalid(loaded: SetFile, status: SetStatus) -> None:
    """Count the items that fail the schema by what of them reads: ``status`` (active when
    it is not draft or retired, as the schema reads a missing one), ``holdout`` when it is
    true or false, ``category`` when it is text; list them as not compared."""
    read = set(loaded.item_index) | set(loaded.sealed_index)
    for k, raw in enumerate(loaded.raw_items):
        if k in read:
            continue
        entry = raw if isinstance(raw, dict) else {}
        ident = entry.get("id")
        status.invalid.append(ident if isinstance(ident, str) and ident else f"#{k + 1}")
        state = entry.get("status")
        if state == "draft":
            status.drafts += 1
            continue
        if state == "retired":
            status.retired += 1
            continue
        split = entry.get("holdout")
        split = split if isinstance(split, bool) else None
        status.active += 1
        status.holdout += split is True
        status.tuning += split is False
        status.unassigned += split is None
        category = entry.get("category")
        name = category if isinstance(category, str) and category else "(none)"
        row = status.categories.setdefault(name, dict.fromkeys(SPLITS, 0))
        row[side(split)] += 1


def _reader(
    workspace: Workspace | None, path: Path, name: str
) -> Callable[[Tag], SetFile | None] | None:
    """Reads the set file at a release's tag (for releases of an older fingerprint format)."""
    if workspace is None:
        return None

    def read(tag: Tag) -> SetFile | None:
        from evalset.sets.setfile import parse_set_text, set_text_at

        try:
            git = Git.find(workspace.root)
            text = set_text_at(git, tag.commit, path, name)
            return parse_set_text(text, path, tag.version) if text is not None else None
        except GitUnusable:
            raise
        except EvalsetError:
            return None

    return read


def drafts(entries: list[Item | SealedItem], today: dt.date | None = None) -> list[Draft]:
    """The drafts among ``entries``, oldest first (those dated in the future after the
    others, undated last)."""
    today = today or dt.date.today()
    found = []
    for entry in entries:
        if entry.status != "draft":
            continue
        if isinstance(entry, SealedItem):
            found.append(Draft(entry.id, None, ["the key to see"]))
            continue
        date = entry.origin.date if entry.origin else None
        found.append(Draft(entry.id, (today - date).days if date else None, draft_lacks(entry)))
    return sorted(found, key=lambda d: (d.age_days is not None, d.age_days or 0), reverse=True)


@dataclass
class Overview:
    """The overview of a workspace: every set's status, and what they were compared with."""

    sets: list[SetStatus]
    newest: Newest | None
    """The snapshot staleness was computed against, and why it is the newest."""
    merge_driver: str | None = None
    """Why set files would not be merged by item id in this clone (``merge_driver_problem``),
    or None."""
    undecided: str | None = None
    """Why no snapshot is the newest, when none can be (snapshots taken on lines of history
    merged since, neither holding the other's changes): staleness is then not computed."""

    def to_json(self) -> dict[str, Any]:
        return {
            "newest": self.newest.to_json() if self.newest else None,
            "newest_problem": self.undecided,
            "merge_driver": {"ok": self.merge_driver is None, "problem": self.merge_driver},
            "sets": [s.to_json() for s in self.sets],
        }


def workspace_overview(
    workspace: Workspace, with_coverage: bool = False, paths: list[Path] | None = None
) -> Overview:
    """Every set's status (``set_status``), or that of the sets at ``paths``, against the
    newest snapshot."""
    store = workspace_store(workspace)
    undecided: str | None = None
    try:
        choice = store.newest_choice()
    except ParallelSnapshots as exc:  # a finding of the overview, not input it cannot read
        choice, undecided = None, str(exc)
    newest = store.get(choice.id) if choice else None
    checker = StaleChecker(store, newest) if newest else None
    driver: str | None = None
    named: dict[Path, Path] = {}  # one set named twice (by name and by path) is one set
    for path in set_paths(workspace) if paths is None else paths:
        named.setdefault(path.resolve(), path)
    files = list(named.values())
    try:
        git = Git.find(workspace.root)
        tags: list[Tag] | None = git.tags()  # one git call for all sets
        driver = merge_driver_problem(git.root, files)
    except GitUnusable:
        raise
    except EvalsetError:
        tags = None  # not a git repository: nothing is released
    corpus = corpus_documents(workspace, newest) if with_coverage else None
    # The sets folder's files checked with the store made above, not a second one.
    # (citations unchecked when no snapshot is the newest: there is nothing to check them in)
    contexts: Contexts = {
        workspace.sets_dir.resolve(): (
            workspace.config.validate,
            store if undecided is None else None,
            True,
        ),
    }
    beside = SealedBeside()  # the sealed items of the sets, read once for all of them
    sets = [
        set_status(
            path,
            workspace,
            checker,
            tags,
            with_coverage,
            corpus,
            contexts,
            store if undecided is None else None,
            beside,
        )
        for path in files
    ]
    return Overview(sets, choice, driver, undecided)


def workspace_status(workspace: Workspace, with_coverage: bool = False) -> list[SetStatus]:
    """Every set's status (``set_status``), against the newest snapshot."""
    return workspace_overview(workspace, with_coverage).sets


def release_state(
    loaded: SetFile, tags: list[Tag], read_release: Callable[[Tag], SetFile | None] | None = None
) -> str | None:
    """The status column: the release the header names, else the latest (tags `evalset
    release` did not make left out), with ``+modified`` when the working copy's
    content is no longer that release's (``versions.pin.tag_vouches``, which reads a
    release of an older fingerprint format with ``read_release``). None for a set never
    released."""
    made = [t for t in tags if t.pin is not None]  # a tag made by hand is no release
    if not made:
        return None
    # this branch's (a release made on another branch is not, merged here or not)
    latest = release_named(made, loaded.header.version if loaded.header else None) or made[-1]
    clean = tag_vouches(loaded, latest, read_release)
    return latest.version if clean else f"{latest.version}+modified"
