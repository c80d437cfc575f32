"""Views of a set for the tools people run evals with, one module per format.

A view holds the active items of one split. The tuning view never holds a holdout item,
and neither it nor any other view holds drafts or retired items; the holdout (or all
items) is exported only when asked for by name. Each row carries the item id and the set's
pin (set, version, fingerprint, snapshot) wherever the format has room for metadata.

An export never mixes corpus versions: a set with stale items among those exported is
refused, naming them, unless ``allow_stale``; each context is the text the item's labels
were checked against (``view.texts``); the pin names the newest snapshot, whose text every
context of an item that is not stale is, and lists under ``stale`` the items exported
anyway with the snapshot their contexts come from.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path

from evalset.config import Workspace, as_workspace
from evalset.corpus.current import workspace_store
from evalset.export.view import (
    SPLITS,
    ExportError,
    ExportRefused,
    Unwritable,
    View,
    select,
    texts,
)
from evalset.fsio import as_path
from evalset.sets.setfile import SetFile, load_set
from evalset.staleness.stale import StaleChecker

__all__ = [
    "EXTENSIONS",
    "FORMATS",
    "SPLITS",
    "ExportError",
    "ExportRefused",
    "ExportResult",
    "View",
    "export",
]

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
    """One split of a set rendered in one format (``export``), and what it left out."""

    format: str
    """The format written (``jsonl``, ``ragas``...)."""
    split: str
    """The split exported: ``tuning``, ``holdout`` or ``all``."""
    text: str
    """The rendered file, as `evalset export` writes it."""
    rows: int
    """The items written."""
    unassigned: int
    """Active items of no split yet (no ``holdout:`` decision), in no split's view."""
    skipped: dict[str, str]
    """Items the format could not hold -> why."""
    stale: dict[str, str | None] = field(default_factory=dict)
    """Exported items that are stale (with ``allow_stale``) -> the snapshot their contexts
    and labels are of."""
    unverified: list[str] = field(default_factory=list)
    """Exported items verified against no snapshot: their contexts are the newest's."""
    unknown: dict[str, list[str]] = field(default_factory=dict)
    """Exported items with a citation whose text is not known here (an empty context)."""
    unchecked_sealed: list[str] = field(default_factory=list)
    """Sealed holdout items the exported questions could not be compared with (no key;
    with ``skip_sealed``)."""
    unsealed: list[str] = field(default_factory=list)
    """Exported items that the set holds sealed (opened by the key): the file holds them in
    plain text."""


def export(
    path: Path,
    split: str,
    fmt: str,
    workspace: Workspace | None = None,
    allow_stale: bool = False,
    skip_sealed: bool = False,
) -> ExportResult:
    """Render one split of a set in one format; refused when an exported item is stale,
    unless ``allow_stale``, and (the tuning split) when the set's sealed holdout items are
    not opened (no key), so whether an exported question is a near duplicate of one of
    theirs cannot be told, unless ``skip_sealed``."""
    from evalset.versions.pin import pin_of

    if fmt not in FORMATS:
        raise ExportError(f"{fmt!r} is not an export format; use one of {', '.join(FORMATS)}.")
    path = as_path(path, "export")
    if workspace is not None:
        as_workspace(workspace, "export")
    loaded = load_set(path)
    _refuse_invalid(loaded)
    items, unassigned = select(loaded, split)
    sealed = [stub.id for stub in loaded.sealed if stub.status == "active"]
    if sealed and split != "tuning":
        from evalset.sets.sealed import IDENTITY_ENV, identity_path

        fix = (
            f"the key in {IDENTITY_ENV} ({identity_path()}) does not open them; point it at "
            "the key they were sealed to"
            if identity_path()
            else f"set {IDENTITY_ENV} to the age key file that opens them"
        )
        raise ExportError(
            f"{path}: cannot export the {split} split: {len(sealed)} of its items are sealed; "
            f"{fix} (or export --split tuning --skip-sealed)."  # without the key, as asked
        )
    unchecked = [stub.id for stub in loaded.sealed if stub.status != "retired"]
    if unchecked and items and not skip_sealed:
        _refuse_unchecked(path, len(unchecked))
    store = workspace_store(workspace) if workspace is not None else None
    newest = store.newest() if store is not None else None
    stale: dict[str, str | None] = {}
    unverified: list[str] = []
    if store is not None and newest is not None and workspace is not None:
        exported = {item.id for item in items}
        found, never = StaleChecker(store, newest, workspace.root).stale_items(loaded)
        stale = {s.id: s.verified for s in found if s.id in exported}
        unverified = [i for i in never if i in exported]
        if stale and not allow_stale:
            shown = ", ".join(list(stale)[:5]) + (", …" if len(stale) > 5 else "")
            raise ExportRefused(
                f"{path}: cannot export {len(stale)} stale item(s) of {loaded.name} ({shown}): "
                f"their labels were checked against other text than the newest snapshot "
                f"{newest.short} has; review them (`evalset stale {loaded.name}`, then `evalset "
                f"verify {loaded.name} ITEM…`), or pass --allow-stale to export them with the "
                "text they were verified against."
            )
    full = pin_of(loaded, newest.short if newest else None, items=False)
    pin = {k: full[k] for k in ("set", "version", "fingerprint", "fingerprint_format", "snapshot")}
    if stale:
        pin["stale"] = stale
    categories = dict(loaded.header.categories) if loaded.header else {}
    view = View(
        loaded.name, split, items, pin, texts(workspace, store, newest), categories=categories
    )
    writer: Callable[[View], str] = import_module(FORMATS[fmt]).write
    try:
        text = writer(view)
    except Unwritable as exc:
        raise _located(loaded, exc) from None
    rows = len(items) - len(view.skipped)
    return ExportResult(
        fmt,
        split,
        text,
        rows,
        unassigned,
        view.skipped,
        stale,
        unverified,
        view.unknown,
        unchecked if items else [],
        [item.id for item in items if item.id in {stub.id for stub in loaded.opened.values()}],
    )


def committable(output: Path) -> bool:
    """Whether the file ``output`` lies in a git work tree where git does not ignore it, so
    that `git add` of its folder would commit it (false outside git)."""
    from evalset import gitcmd

    folder = output.resolve().parent
    try:
        inside = gitcmd.run(folder, "rev-parse", "--is-inside-work-tree")
        if inside.returncode != 0 or inside.stdout.strip() != "true":
            return False
        done = gitcmd.run(folder, "check-ignore", "-q", "--", output.name)
    except (OSError, gitcmd.GitUnusable):
        return False
    return done.returncode == 1


def _located(loaded: SetFile, exc: Unwritable) -> ExportError:
    """``exc`` as a sentence naming the set file and the item's line and column."""
    k = next(
        k for k, item in zip(loaded.item_index, loaded.items, strict=True) if item.id == exc.item
    )
    line, col = loaded.position(("items", k, exc.field))
    where = f"{loaded.path}:{line}:{col}" if line is not None else str(loaded.path)
    return ExportError(f"{where}: item {exc.item}: {exc.field} {exc.problem}.")


def _refuse_unchecked(path: Path, sealed: int) -> None:
    """The leakage check `validate` runs between holdout and tuning questions needs the
    sealed ones: a tuning question that is a near duplicate of one (a promoted production
    failure, a hand edit) would take it out in this export."""
    from evalset.sets.sealed import IDENTITY_ENV, identity_path

    fix = (
        f"point {IDENTITY_ENV} ({identity_path()}) at a key they were sealed to"
        if identity_path()
        else f"set {IDENTITY_ENV} to the age key file"
    )
    raise ExportError(
        f"{path}: cannot export the tuning split: {sealed} sealed holdout item(s) cannot be "
        "read without the key, so whether a tuning question is a near duplicate of one of "
        f"theirs, which the export would leak, cannot be told; {fix}, or pass --skip-sealed "
        "once `evalset validate` has passed with the key."
    )


def _refuse_invalid(loaded: SetFile) -> None:
    """An export of a set with validation errors would leave out what failed, silently."""
    from evalset.sets.validate import check_in_place

    errors = check_in_place(loaded, errors_only=True)
    if errors:
        raise ExportRefused(
            f"{loaded.path}: cannot export {loaded.name} with {len(errors)} validation "
            f"error(s) (first: {errors[0]}); fix them (`evalset validate {loaded.name}`) and "
            "export again."
        )
