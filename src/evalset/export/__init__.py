"""Views of a set for the tools people run evals with, one module per format.

A view holds the active items of one split. The tuning view never holds a holdout item,
and neither it nor any other view holds drafts or retired items; the holdout (or all
items) is exported only when asked for by name. Each row carries the item id and the set's
pin (set, version, fingerprint, snapshot) wherever the format has room for metadata.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from importlib import import_module
from pathlib import Path

from evalset.config import Workspace
from evalset.export.view import SPLITS, ExportError, View, select, texts
from evalset.sets.setfile import SetFile, load_set

__all__ = ["EXTENSIONS", "FORMATS", "SPLITS", "ExportError", "ExportResult", "View", "export"]

FORMATS = {
    "jsonl": "evalset.export.jsonl",
    "csv": "evalset.export.csv",
    "ragas": "evalset.export.ragas",
    "promptfoo": "evalset.export.promptfoo",
    "deepeval": "evalset.export.deepeval",
    "langsmith": "evalset.export.langsmith",
    "openai": "evalset.export.openai_evals",
}
EXTENSIONS = {
    "jsonl": ".jsonl",
    "csv": ".csv",
    "ragas": ".jsonl",
    "promptfoo": ".yaml",
    "deepeval": ".json",
    "langsmith": ".jsonl",
    "openai": ".jsonl",
}


@dataclass
class ExportResult:
    format: str
    split: str
    text: str
    rows: int
    unassigned: int
    skipped: dict[str, str]


def export(path: Path, split: str, fmt: str, workspace: Workspace | None = None) -> ExportResult:
    """Render one split of a set in one format."""
    from evalset.versions.pin import pin_of

    if fmt not in FORMATS:
        raise ExportError(f"{fmt!r} is not an export format; use one of {', '.join(FORMATS)}.")
    loaded = load_set(path)
    _refuse_invalid(loaded)
    items, unassigned = select(loaded, split)
    sealed = [stub.id for stub in loaded.sealed if stub.status == "active"]
    if sealed and split != "tuning":
        from evalset.sets.sealed import IDENTITY_ENV, identity_path

        why = (
            f"the key in {IDENTITY_ENV} ({identity_path()}) does not open them"
            if identity_path()
            else f"set {IDENTITY_ENV} to the age key file to export them"
        )
        raise ExportError(
            f"{path}: cannot export the {split} split: {len(sealed)} of its items are sealed "
            f"and {why} (or export --split tuning)."
        )
    full = pin_of(loaded, _newest_short(workspace), items=False)
    pin = {k: full[k] for k in ("set", "version", "fingerprint", "fingerprint_format", "snapshot")}
    categories = dict(loaded.header.categories) if loaded.header else {}
    view = View(loaded.name, split, items, pin, texts(workspace), categories=categories)
    writer: Callable[[View], str] = import_module(FORMATS[fmt]).write
    text = writer(view)
    return ExportResult(fmt, split, text, len(items) - len(view.skipped), unassigned, view.skipped)


def _refuse_invalid(loaded: SetFile) -> None:
    """An export of a set with validation errors would leave out what failed, silently."""
    from evalset.sets.validate import check_in_place

    errors = [f for f in check_in_place(loaded) if f.severity == "error"]
    if errors:
        raise ExportError(
            f"{loaded.path}: cannot export {loaded.name} with {len(errors)} validation "
            f"error(s) (first: {errors[0]}); fix them (`evalset validate {loaded.name}`) and "
            "export again."
        )


def _newest_short(workspace: Workspace | None) -> str | None:
    if workspace is None:
        return None
    from evalset.corpus.manifest import SHORT, SnapshotStore

    ident = SnapshotStore(workspace.snapshots_dir, state_dir=workspace.state_dir).newest_id()
    return ident[:SHORT] if ident else None
