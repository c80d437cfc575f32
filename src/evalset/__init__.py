"""evalset: versioned, reviewed evaluation sets for RAG systems, tied to their corpus.

Names are imported on first use, so a command pays only for the parts it needs (the
snapshot of a large corpus does not import the set-file and validation stack).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

_EXPORTS = {
    "Citation": "evalset.citations",
    "Config": "evalset.config",
    "Workspace": "evalset.config",
    "find_workspace": "evalset.config",
    "ConfigError": "evalset.errors",
    "EditRefused": "evalset.errors",
    "EvalsetError": "evalset.errors",
    "NoWorkspace": "evalset.errors",
    "SetFileError": "evalset.errors",
    "UnknownSet": "evalset.errors",
    "Finding": "evalset.findings",
    "EvalSet": "evalset.model",
    "Item": "evalset.model",
    "KeyPoint": "evalset.model",
    "Origin": "evalset.model",
    "SetHeader": "evalset.model",
    "DELETE": "evalset.setfile",
    "SetEditor": "evalset.setfile",
    "SetFile": "evalset.setfile",
    "edit_set": "evalset.setfile",
    "load_set": "evalset.setfile",
    "Report": "evalset.validate",
    "check_set": "evalset.validate",
    "validate": "evalset.validate",
    "Snapshot": "evalset.corpus.manifest",
    "SnapshotStore": "evalset.corpus.manifest",
    "take_snapshot": "evalset.corpus.snapshot",
    "StaleReport": "evalset.stale",
    "stale_report": "evalset.stale",
    "fix_moved": "evalset.verify",
    "set_fingerprint": "evalset.versions",
    "item_fingerprints": "evalset.versions",
    "pin": "evalset.release",
    "release": "evalset.release",
    "check_pin": "evalset.release",
    "diff_sets": "evalset.setdiff",
    "verify": "evalset.verify",
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
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'evalset' has no attribute {name!r}")
    value = getattr(import_module(module), name)
    globals()[name] = value
    return value


if TYPE_CHECKING:
    from evalset.citations import Citation
    from evalset.config import Config, Workspace, find_workspace
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
    from evalset.findings import Finding
    from evalset.model import EvalSet, Item, KeyPoint, Origin, SetHeader
    from evalset.release import check_pin, pin, release
    from evalset.setdiff import diff_sets
    from evalset.setfile import DELETE, SetEditor, SetFile, edit_set, load_set
    from evalset.stale import StaleReport, stale_report
    from evalset.validate import Report, check_set, validate
    from evalset.verify import fix_moved, verify
    from evalset.versions import item_fingerprints, set_fingerprint
