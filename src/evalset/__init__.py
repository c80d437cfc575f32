"""evalset: versioned, reviewed evaluation sets for RAG systems, tied to their corpus.

Names are imported on first use, so a command pays only for the parts it needs (the
snapshot of a large corpus does not import the set-file and validation stack). Not even
``typing`` is imported here: the command line handles Ctrl-C only once this package is
imported, and before that a Ctrl-C ends the command as Python's start-up does.
"""

from __future__ import annotations

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

_EXPORTS = {
    "__version__": "evalset.version",
    "Citation": "evalset.sets.citations",
    "Config": "evalset.config",
    "Workspace": "evalset.config",
    "find_workspace": "evalset.config",
    "ConfigError": "evalset.errors",
    "EditRefused": "evalset.errors",
    "EvalsetError": "evalset.errors",
    "NoWorkspace": "evalset.errors",
    "SetFileError": "evalset.errors",
    "UnknownSet": "evalset.errors",
    "Finding": "evalset.sets.findings",
    "EvalSet": "evalset.sets.model",
    "Item": "evalset.sets.model",
    "KeyPoint": "evalset.sets.model",
    "Origin": "evalset.sets.model",
    "SetHeader": "evalset.sets.model",
    "DELETE": "evalset.sets.editor",
    "SetEditor": "evalset.sets.editor",
    "SetFile": "evalset.sets.setfile",
    "edit_set": "evalset.sets.editor",
    "load_set": "evalset.sets.setfile",
    "Report": "evalset.sets.validate",
    "check_set": "evalset.sets.validate",
    "validate": "evalset.sets.validate",
    "Snapshot": "evalset.corpus.manifest",
    "SnapshotStore": "evalset.corpus.manifest",
    "take_snapshot": "evalset.corpus.snapshot",
    "workspace_store": "evalset.corpus.current",
    "StaleReport": "evalset.staleness.stale",
    "stale_report": "evalset.staleness.stale",
    "fix_moved": "evalset.staleness.verify",
    "set_fingerprint": "evalset.sets.fingerprint",
    "item_fingerprints": "evalset.sets.fingerprint",
    "pin": "evalset.versions.pin",
    "release": "evalset.versions.release",
    "check_pin": "evalset.versions.pin",
    "diff_sets": "evalset.versions.diff",
    "verify": "evalset.staleness.verify",
}

__all__ = [
    "DELETE",
    "Citation",
    "Config",
    "ConfigError",
    "EditRefused",
    "EvalSet",
    "EvalsetError",
    "Finding",
    "Item",
    "KeyPoint",
    "NoWorkspace",
    "Origin",
    "Report",
    "SetEditor",
    "SetFile",
    "SetFileError",
    "SetHeader",
    "Snapshot",
    "SnapshotStore",
    "StaleReport",
    "UnknownSet",
    "Workspace",
    "__version__",
    "check_pin",
    "check_set",
    "diff_sets",
    "edit_set",
    "find_workspace",
    "fix_moved",
    "item_fingerprints",
    "load_set",
    "pin",
    "release",
    "set_fingerprint",
    "stale_report",
    "take_snapshot",
    "validate",
    "verify",
    "workspace_store",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'evalset' has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from evalset.config import Config, Workspace, find_workspace
    from evalset.corpus.current import workspace_store
    from evalset.corpus.manifest import Snapshot, SnapshotStore
    from evalset.corpus.snapshot import take_snapshot
    from evalset.errors import (
        ConfigError,
        EditRefused,
        EvalsetError,
        NoWorkspace,
        SetFileError,
        UnknownSet,
    )
    from evalset.sets.citations import Citation
    from evalset.sets.editor import DELETE, SetEditor, edit_set
    from evalset.sets.findings import Finding
    from evalset.sets.fingerprint import item_fingerprints, set_fingerprint
    from evalset.sets.model import EvalSet, Item, KeyPoint, Origin, SetHeader
    from evalset.sets.setfile import SetFile, load_set
    from evalset.sets.validate import Report, check_set, validate
    from evalset.staleness.stale import StaleReport, stale_report
    from evalset.staleness.verify import fix_moved, verify
    from evalset.version import __version__
    from evalset.versions.diff import diff_sets
    from evalset.versions.pin import check_pin, pin
    from evalset.versions.release import release
