"""Recording that people re-checked items, and relabelling citations that only moved."""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalset.config import Workspace
from evalset.corpus.manifest import Snapshot, SnapshotError, SnapshotStore
from evalset.errors import EvalsetError
from evalset.sets.model import item_citations
from evalset.sets.resolve import unresolved
from evalset.sets.setfile import edit_set, load_set
from evalset.staleness.stale import StaleChecker


def newest_snapshot(workspace: Workspace) -> tuple[SnapshotStore, Snapshot]:
    store = SnapshotStore(workspace.snapshots_dir, state_dir=workspace.state_dir)
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


def verify(
    workspace: Workspace, path: Path, ids: list[str], adopt_all: bool = False
) -> VerifyResult:
    """Record that items were re-checked against the newest snapshot (``adopt_all``: the
    whole set). Refused when any of their citations does not exist in that snapshot."""
    _, newest = newest_snapshot(workspace)
    loaded = load_set(path)
    by_id = {item.id: item for item in loaded.items}
    if loaded.sealed and (adopt_all or any(s.id in ids for s in loaded.sealed)):
        from evalset.sets.sealed import refused_sealed

        raise refused_sealed(path, next(s.id for s in loaded.sealed if adopt_all or s.id in ids))
    if adopt_all:
        targets = [item for item in loaded.items if item.status == "active"]
    else:
        if not ids:
            raise EvalsetError("name the items to verify, or pass --all to adopt the whole set.")
        missing = [i for i in ids if i not in by_id]
        if missing:
            close = difflib.get_close_matches(missing[0], list(by_id), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise EvalsetError(f"{path}: has no item {missing[0]!r}{hint}.")
        targets = [by_id[i] for i in ids]
    problems = [
        f"item {item.id}: {why}"
        for item in targets
        for citation in item_citations(item)
        if (why := unresolved(citation, newest)) is not None
    ]
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise EvalsetError(
            f"{path}: cannot verify against snapshot {newest.short}: {problems[0]}{more}; "
            "fix the citations first (`evalset stale` shows what changed)."
        )
    result = VerifyResult(path, newest.short, [item.id for item in targets], adopt_all)
    with edit_set(path) as editor:
        if adopt_all:
            editor.set_header("snapshot", newest.short)
        for item in targets:
            if not adopt_all or item.verified is not None:
                editor.update_item(item.id, {"verified": newest.short})
    return result


def _rewrite(moves: dict[str, str]) -> Any:
    def edit(node: Any) -> None:
        for key in ("expected_sources",):
            values = node.get(key)
            if isinstance(values, list):
                for i, value in enumerate(values):
                    if value in moves:
                        values[i] = moves[value]
        for point in node.get("key_points") or []:
            sources = point.get("sources") if isinstance(point, dict) else None
            if isinstance(sources, list):
                for i, value in enumerate(sources):
                    if value in moves:
                        sources[i] = moves[value]

    return edit


def fix_moved(workspace: Workspace, path: Path) -> dict[str, dict[str, str]]:
    """Rewrite every moved citation of a set to where its text now is. Returns
    ``{item id: {old citation: new citation}}``."""
    store, newest = newest_snapshot(workspace)
    checker = StaleChecker(store, newest)
    loaded = load_set(path)
    moves: dict[str, dict[str, str]] = {}
    for item in loaded.items:
        if item.status != "active":
            continue
        status = checker.item(loaded, item)
        if status is None:
            continue
        found = {c.citation: c.new for c in status.citations if c.status == "moved" and c.new}
        if found:
            moves[item.id] = found
    if moves:
        with edit_set(path) as editor:
            for item_id, mapping in moves.items():
                editor.edit_item(item_id, _rewrite(mapping))
    return moves
