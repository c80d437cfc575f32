"""Recording that people re-checked items, and relabelling citations that only moved."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalset.config import Workspace, require_own
from evalset.corpus.current import workspace_store
from evalset.corpus.manifest import Snapshot, SnapshotError, SnapshotStore
from evalset.corpus.names import nfc
from evalset.corpus.newest import Newest
from evalset.errors import EvalsetError
from evalset.fsio import shown
from evalset.sets.citations import Citation
from evalset.sets.editor import DELETE, edit_set
from evalset.sets.lock import refuse_unplain
from evalset.sets.model import Item, item_citations
from evalset.sets.resolve import last_held, lookup, unresolved
from evalset.sets.setfile import load_set
from evalset.sets.validate import draft_lacks, lacking_pronoun
from evalset.staleness.stale import StaleChecker
from evalset.workspace import display_path


def newest_snapshot(workspace: Workspace) -> tuple[SnapshotStore, Snapshot]:
    store = workspace_store(workspace)
    newest = store.newest()
    if newest is None:
        raise SnapshotError(
            f"{workspace.snapshots_dir}: holds no snapshot yet; run `evalset snapshot` first."
        )
    return store, newest


@dataclass
class VerifyResult:
    path: Path
    snapshot: str
    verified: list[str] = field(default_factory=list)
    adopted: bool = False
    left: list[str] = field(default_factory=list)
    """With ``--from-header``: active items without ``verified`` that were added after the
    header's snapshot was recorded, so nobody checked them against it."""


def verify(
    workspace: Workspace, path: Path, ids: list[str], adopt_all: bool = False
) -> VerifyResult:
    """Record that items were re-checked against the newest snapshot (``adopt_all``: every
    active item of the set): each gets ``verified: <snapshot>``. Refused when any of their
    citations does not exist in that snapshot, or when one still lacks labels (a draft
    that is not complete yet), and while the corpus matches no snapshot or is not here to
    tell (not pulled, not checked out): a person checks against the documents as they are
    now, so that is what must be recorded."""
    path = require_own(workspace, path, "verify")
    if isinstance(ids, str) or not all(isinstance(i, str) for i in ids or ()):
        # one id is text too: taken as a list, it was one id per character ('q', '-', …)
        given = repr([ids]) if isinstance(ids, str) else "['q-014']"
        raise TypeError(
            f"verify() takes a list of item ids as text, not {shown(ids)}: "
            f"verify(workspace, path, {given})"
        )
    store, newest = newest_snapshot(workspace)
    choice = store.newest_choice()
    if choice is not None and choice.corpus_changed:
        raise SnapshotError(
            f"{display_path(workspace.corpus_dir)}: has changed since the newest snapshot, "
            f"{newest.short}, "
            "so what you checked is not recorded anywhere; run `evalset snapshot`, then verify "
            "again."
        )
    if choice is not None and (choice.corpus_away or choice.corpus_missing):
        raise SnapshotError(_not_here(workspace, choice))
    refuse_unplain(path)
    loaded = load_set(path)
    by_id = {item.id: item for item in loaded.items}
    if loaded.sealed and (adopt_all or any(s.id in ids for s in loaded.sealed)):
        from evalset.sets.sealed import refused_sealed

        raise refused_sealed(path, next(s.id for s in loaded.sealed if adopt_all or s.id in ids))
    if adopt_all:
        broken = loaded.schema_error()
        if broken is not None:
            raise EvalsetError(
                f"{broken}; --all would leave that item out, so fix it (`evalset validate "
                f"{loaded.name}` lists every problem), then verify again."
            )
        targets = [item for item in loaded.items if item.status == "active"]
    else:
        if not ids:
            raise EvalsetError(
                f"name the items you re-checked (`evalset verify {loaded.name} ITEM...`), or "
                "pass --all to verify every active item."
            )
        missing = next((i for i in ids if i not in by_id), None)
        if missing is not None:
            invalid = loaded.not_valid(missing)
            if invalid is not None:
                raise EvalsetError(f"{invalid}, then verify again. Nothing was verified.")
            hint = loaded.did_you_mean(missing)
            raise EvalsetError(
                f"{path}: has no item {missing!r}{hint}; check the id. Nothing was verified."
            )
        targets = [by_id[i] for i in ids]
    for item in targets:
        lacking = draft_lacks(item)
        if lacking:
            raise EvalsetError(
                f"{path}: item {item.id} cannot be verified while it lacks "
                f"{' and '.join(lacking)}; add {lacking_pronoun(lacking)} (and "
                "`status: active`), then verify it."
            )
    checker = StaleChecker(store, newest, workspace.root)
    problems = [
        (
            f"item {item.id}: {_unresolved(checker, store, item.verified, citation, newest)}",
            _changed(store, item.verified, citation),
        )
        for item in targets
        for citation in item_citations(item)
        if unresolved(citation, newest) is not None
    ]
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        # `stale` shows a citation that resolved in the item's snapshot and no longer does;
        # one that never resolved (an unverified item's, a typo) only `validate` names
        changed = any(was for _, was in problems)
        never = not all(was for _, was in problems)
        where = " and ".join(
            [f"`evalset validate {loaded.name}` names them"] * never
            + ["`evalset stale` shows what changed"] * changed
        )
        raise EvalsetError(
            f"{path}: cannot verify against snapshot {newest.short}: {problems[0][0]}{more}; "
            f"fix the citations first ({where})."
        )
    result = VerifyResult(path, newest.short, [item.id for item in targets], adopt_all)
    with edit_set(path) as editor:
        if adopt_all and loaded.header is not None and loaded.header.snapshot:
            editor.set_header("snapshot", DELETE)
        for item in targets:
            editor.update_item(item.id, {"verified": newest.short})
    return result


def _not_here(workspace: Workspace, choice: Newest) -> str:
    """Why items cannot be verified while the corpus is not (wholly) here: which snapshot
    was checked against is told by the corpus, and the latest commit's snapshot is only a
    guess (the corpus may have been committed without its snapshot since)."""
    where = display_path(workspace.corpus_dir)
    guess = "so which snapshot you checked the items against cannot be told"
    if choice.corpus == "unreadable":
        return f"{where}: could not be read ({choice.note}), {guess}; verify again once it can."
    if choice.corpus_missing:
        return (
            f"{where}: the corpus folder is not here, {guess}; bring it back (or set `corpus` "
            "in evalset.toml to where it is), then verify again."
        )
    fix = f"run {choice.fix}, then verify again"
    return f"{where}: the corpus folder {choice.note}, {guess}; {fix}."


def _changed(store: SnapshotStore, verified: str | None, citation: Citation) -> bool:
    """Whether a citation resolved in the snapshot its item was verified against."""
    old = store.get(verified) if verified else None
    return old is not None and unresolved(citation, old) is None


def _unresolved(
    checker: StaleChecker,
    store: SnapshotStore,
    verified: str | None,
    citation: Citation,
    newest: Snapshot,
) -> str:
    """Why a citation does not resolve in ``newest``: where its text went since the snapshot
    the item was verified against, when that is known (moved, or deleted with a similar
    section now), else the nearest name (a did-you-mean)."""
    old = store.get(verified) if verified else None
    status = checker.citation(citation, old) if old is not None else None
    if citation.section is None:
        gone = f"document {citation.doc!r} is not in snapshot {newest.short}"
    else:
        gone = f"{citation.doc} has no section {citation.section!r} in snapshot {newest.short}"
    if status is not None and status.status == "moved" and status.new:
        return f"{gone}; its text moved to {status.new} (`evalset stale --fix-moved` relabels it)"
    if status is not None and status.status == "deleted" and status.candidates:
        similar = status.candidates[0]
        return f"{gone}; its text was deleted (the most similar section now: {similar})"
    found = unresolved(citation, newest)
    assert found is not None
    return found


def verify_from_header(workspace: Workspace, path: Path) -> VerifyResult:
    """Move the header's ``snapshot:`` (which earlier versions counted as the verification
    of every item without its own ``verified``) onto the items that were in the set when
    it was recorded, as git's history of the file shows; items added later stay
    unverified, because nobody checked them against it."""
    path = require_own(workspace, path, "verify --from-header")
    refuse_unplain(path)
    loaded = load_set(path)
    header = loaded.header
    if header is None or not header.snapshot:
        raise EvalsetError(f"{path}: has no `snapshot:` in its header; there is nothing to move.")
    ref = header.snapshot
    if workspace_store(workspace).resolve(ref) is None:
        raise EvalsetError(
            f"{path}: its header names snapshot {ref}, which is not in "
            f"{display_path(workspace.snapshots_dir)}, so the items cannot be said to be "
            "verified against it; restore it from git, or check the items against the newest "
            f"snapshot and run `evalset verify {loaded.name} ITEM…` (nothing was changed)."
        )
    present = _items_when_recorded(workspace, path, ref)
    locked = [
        stub.id
        for stub in loaded.sealed
        if stub.status == "active" and stub.verified is None and stub.id in present
    ]
    if locked:  # their `verified:` is inside the seal: the header is all that says it
        from evalset.sets.sealed import key_to_open

        ids = ", ".join(locked[:5]) + (", …" if len(locked) > 5 else "")
        raise EvalsetError(
            f"{path}: {len(locked)} sealed item(s) ({ids}) were in the set when its header's "
            f"snapshot {ref} was recorded, and cannot take it without the key; "
            f"{key_to_open()} and run it again (nothing was changed)."
        )
    targets = [
        item
        for item in loaded.items
        if item.status == "active" and item.verified is None and item.id in present
    ]
    left = [
        item.id
        for item in loaded.items
        if item.status == "active" and item.verified is None and item.id not in present
    ]
    result = VerifyResult(path, ref, [item.id for item in targets], left=left)
    with edit_set(path) as editor:
        editor.set_header("snapshot", DELETE)
        for item in targets:
            editor.update_item(item.id, {"verified": ref})
    return result


def _items_when_recorded(workspace: Workspace, path: Path, ref: str) -> set[str]:
    """The ids of the items of the set file at the oldest commit of the latest run of
    commits whose header names ``ref``."""
    from evalset.git import Git
    from evalset.gitcmd import FETCH_HISTORY, GitUnusable
    from evalset.sets.setfile import parse_set_text

    try:
        git = Git.find(workspace.root)
        rel = git.rel(path)
        commits = git.run("log", "--format=%H", "--", rel).split()
    except GitUnusable:
        raise
    except EvalsetError:
        commits = []
    recorded: tuple[str, str] | None = None
    for commit in commits:
        text = git.show(commit, rel)
        if text is None or _header_snapshot(text) != ref:
            break
        recorded = (commit, text)
    else:  # the run goes on to the oldest commit here: older ones may be missing
        if recorded is not None and not git.history_complete(recorded[0]):
            raise GitUnusable(
                f"{path}: this shallow clone's history ends while the header still names "
                f"snapshot {ref}, so which items were in the set when it was recorded cannot "
                f"be told; {FETCH_HISTORY}."
            )
    if recorded is None:
        raise EvalsetError(
            f"{path}: git has no commit of it whose header names snapshot {ref}, so which "
            "items were checked against it cannot be told; commit the set file, or check the "
            "items and run `evalset verify NAME ITEM…`."
        )
    commit, text = recorded
    then = parse_set_text(text, path, commit[:12])
    return {entry.id for entry in then.entries}


_HEADER_SNAPSHOT = re.compile(r"^snapshot:[ \t]*['\"]?([0-9a-f]+)['\"]?[ \t]*(?:#.*)?$", re.M)


def _header_snapshot(text: str) -> str | None:
    """The header's ``snapshot:`` of a set file's text, found without parsing the items
    (history may hold many versions of a large file)."""
    head = re.split(r"^items:", text, maxsplit=1, flags=re.M)[0]
    found = _HEADER_SNAPSHOT.search(head)
    return found.group(1) if found else None


def sets_with_item(workspace: Workspace, item_id: str) -> list[str]:
    """The names of the workspace's sets that have an item ``item_id`` (for a hint when an
    item id was given where a set name belongs), valid or not: verify names the problem of
    one the schema refuses once the set is named."""
    from evalset.workspace import set_paths

    found = []
    for path in set_paths(workspace, strict=False):
        try:
            loaded = load_set(path)
        except EvalsetError:
            continue
        if item_id in loaded.written_ids:
            found.append(loaded.name)
    return found


def _rewrite(moves: dict[str, str]) -> Any:
    """An edit of an item's node: its citations renamed by ``moves``."""

    def moved(value: Any) -> str | None:  # a citation is read in NFC, whatever its bytes
        return moves.get(nfc(value)) if isinstance(value, str) else None

    def edit(node: Any) -> None:
        lists = [node.get("expected_sources")]
        lists += [p.get("sources") for p in node.get("key_points") or [] if isinstance(p, dict)]
        for values in lists:
            if isinstance(values, list):
                for i, value in enumerate(values):
                    if (new := moved(value)) is not None:
                        values[i] = new

    return edit


def fix_moved(
    workspace: Workspace, path: Path, tied: dict[str, dict[str, list[str]]] | None = None
) -> dict[str, dict[str, str]]:
    """Rewrite every moved citation of a set to where its text now is (one that moved to
    several places alike is left for a person to choose: its status says ``tied``). Returns
    ``{item id: {old citation: new citation}}``. An item whose citations all kept their
    text (each is the same or moved) is then verified against the newest snapshot, which
    holds its new citations: left verified against the old one, which has none of them,
    a later change of the moved text would be told as "unresolved", not "changed".

    An item never verified (a draft, say) has a citation moved when the newest snapshot
    lacks it and the snapshot last holding it (``last_held``) says it moved; it stays
    unverified. Those left for a person are added to ``tied`` (``{item id: {citation:
    places}}``): a stale item's are in its status."""
    path = require_own(workspace, path, "stale --fix-moved")
    store, newest = newest_snapshot(workspace)
    checker = StaleChecker(store, newest)
    refuse_unplain(path)
    loaded = load_set(path)
    moves: dict[str, dict[str, str]] = {}
    whole: set[str] = set()
    for item in loaded.items:
        if item.status == "retired":
            continue
        if item.verified is None:
            found, alike = _unverified_moves(item, checker, store, newest)
            if found:
                moves[item.id] = found
            if alike and tied is not None:  # (an item of another set may have its id)
                tied.setdefault(item.id, {}).update(alike)
            continue
        if item.status != "active":
            continue
        status = checker.item(loaded, item)
        if status is None:
            continue
        found = {  # one moved to several places alike is left for a person to choose
            c.citation: c.new
            for c in status.citations
            if c.status == "moved" and c.new and not c.tied
        }
        if found:
            moves[item.id] = found
            if all(c.status == "ok" or c.citation in found for c in status.citations):
                whole.add(item.id)
    if moves:
        with edit_set(path) as editor:
            for item_id, mapping in moves.items():
                # renamed in the text where it reads the same: comments in a list are kept
                editor.edit_item(item_id, _rewrite(mapping), renames=mapping)
                if item_id in whole:
                    editor.update_item(item_id, {"verified": newest.short})
    return moves


def _unverified_moves(
    item: Item, checker: StaleChecker, store: SnapshotStore, newest: Snapshot
) -> tuple[dict[str, str], dict[str, list[str]]]:
    """(moved citation -> where its text is now, moved citation -> the places alike) for an
    item never verified: each citation the newest snapshot lacks is looked at against the
    snapshot that last held it."""
    moved: dict[str, str] = {}
    alike: dict[str, list[str]] = {}
    for citation in item_citations(item):
        if lookup(newest, citation) is not None:
            continue
        last = last_held(citation, newest, store)
        if last is None:
            continue
        status = checker.citation(citation, last)
        if status.status == "moved" and status.new:
            if status.tied:
                alike[str(citation)] = [status.new, *status.candidates]
            else:
                moved[str(citation)] = status.new
    return moved, alike
