"""A second call in one process sees what changed since the first: the set file edited
(through `edit_set`, or by hand to the same size and modification time), a snapshot taken.
A store is the one thing worked out once (`workspace_store`), so that one command sees one
newest snapshot throughout; a new store sees the new one."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import evalset

QUESTION = "How long do I have to return a damaged item?"
CHANGED = "How long do I have to return a damaged lamp?"

CALLS: dict[str, Callable[[evalset.Workspace, Path], Any]] = {
    "load_set": lambda ws, path: [i.question for i in evalset.load_set(path).items],
    "validate": lambda ws, path: [str(f) for f in evalset.validate([path]).findings],
    "pin": lambda ws, path: evalset.pin(ws, path)["fingerprint"],
    "set_fingerprint": lambda ws, path: evalset.set_fingerprint(evalset.load_set(path)),
    "stale_report": lambda ws, path: [
        i.id for i in evalset.stale_report([path], evalset.workspace_store(ws)).items
    ],
}


def by_hand(path: Path) -> None:
    """The same number of bytes and the same modification time: only the text tells."""
    before = path.stat()
    text = path.read_text("utf-8")
    path.write_text(text.replace(QUESTION, CHANGED), "utf-8")
    assert path.stat().st_size == before.st_size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))


def through_edit_set(path: Path) -> None:
    with evalset.edit_set(path) as editor:
        editor.update_item("q-003", {"status": "retired"})
        editor.update_item("q-014", {"question": CHANGED})


@pytest.mark.parametrize(
    ("call", "edit"),
    [(call, through_edit_set) for call in CALLS]
    + [(call, by_hand) for call in ("load_set", "pin", "set_fingerprint")],
)
def test_a_second_call_sees_the_set_edited_since(
    example: Path, call: str, edit: Callable[[Path], None]
) -> None:
    path = example / "sets" / "acme-support.yaml"
    ws = evalset.find_workspace(example)
    first = CALLS[call](ws, path)
    edit(path)
    assert CALLS[call](ws, path) != first


def test_a_new_store_sees_a_snapshot_taken_since_and_one_store_keeps_its_newest(
    example: Path,
) -> None:
    path = example / "sets" / "acme-support.yaml"
    ws = evalset.find_workspace(example)
    kept = evalset.workspace_store(ws)
    before = evalset.stale_report([path], kept)
    doc = example / "corpus" / "policies" / "returns.md"
    doc.write_text(doc.read_text("utf-8").replace("30 days", "45 days"), "utf-8")
    taken = evalset.take_snapshot(example, "corpus", ws.snapshots_dir, ws.state_dir)
    after = evalset.stale_report([path], evalset.workspace_store(ws))
    assert (before.snapshot, after.snapshot) == (kept.newest_id()[:12], taken.id[:12])  # type: ignore[index]
    assert before.snapshot != after.snapshot
    assert evalset.pin(ws, path)["snapshot"] == taken.id[:12]
