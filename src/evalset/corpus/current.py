"""The snapshots of a workspace, whose newest is the corpus as it is now when it matches
one (``evalset.corpus.newest``).

The working tree's content id is computed as ``evalset snapshot`` computes it, through the
same stat cache: an unchanged corpus costs one walk; a changed one, reading the changed
files; a fresh clone, reading the corpus once. A corpus that matches no manifest leaves
the cache where it was, so that the next snapshot still reuses the lines of the last one.
"""

from __future__ import annotations

from evalset.config import Workspace, as_workspace
from evalset.corpus.manifest import SnapshotStore
from evalset.corpus.newest import Current
from evalset.corpus.snapshot import tree_state


def corpus_now(workspace: Workspace, known: set[str]) -> Current:
    """Whether the workspace's corpus folder, as it is now, is one of the snapshots
    ``known`` (full ids), and which; or why that is not known."""
    config = workspace.config
    return tree_state(
        workspace.corpus_dir, workspace.state_dir, config.hash, config.store_text, known
    )


def workspace_store(workspace: Workspace, verify: bool = True) -> SnapshotStore:
    """The workspace's snapshots, whose newest is the corpus as it is now when it matches
    one (see ``SnapshotStore.newest_choice``). The newest is worked out once per store, so
    that one command sees one newest throughout: after a snapshot is taken or the corpus
    changes, ask for a new store to see it."""
    as_workspace(workspace, "workspace_store")
    return SnapshotStore(
        workspace.snapshots_dir,
        verify,
        workspace.state_dir,
        current=lambda known: corpus_now(workspace, known),
    )
