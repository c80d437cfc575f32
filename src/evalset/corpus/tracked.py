"""Whether a corpus folder that is missing or empty is one DVC tracks and was not pulled.

A clone holds a DVC-tracked corpus only after ``dvc pull`` (a CI job may skip it, or it may
fail): the ``.dvc`` file is committed, the files are not. That is not "the corpus changed"
nor "it has no documents": a snapshot of it would record an empty corpus, and every
citation would read as deleted. Looked at only when the folder is missing or empty, so a
corpus that is here costs nothing.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

DVC_PULL = "`dvc pull`"


def _outs(dvc_file: Path) -> list[str]:
    """The output paths a ``.dvc`` file or a ``dvc.lock`` records (relative to its folder)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        data: Any = YAML(typ="safe").load(dvc_file.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, YAMLError):
        return []
    if not isinstance(data, dict):
        return []
    entries = list(data.get("outs") or [])
    for stage in (data.get("stages") or {}).values() if dvc_file.name == "dvc.lock" else ():
        if isinstance(stage, dict):
            entries.extend(stage.get("outs") or [])
    return [e["path"] for e in entries if isinstance(e, dict) and isinstance(e.get("path"), str)]


def dvc_file_of(corpus: Path) -> Path | None:
    """The ``.dvc`` file (or ``dvc.lock``) that tracks ``corpus`` or a folder holding it, if
    any: ``corpus.dvc`` beside it, or the same for a folder above, up to the repository's
    top (the folder holding ``.dvc/`` or ``.git``)."""
    corpus = corpus.absolute()
    for folder in (corpus, *corpus.parents):
        parent = folder.parent
        for candidate in (parent / f"{folder.name}.dvc", parent / "dvc.lock"):
            if not candidate.is_file():
                continue
            for out in _outs(candidate):
                tracked = (parent / out).absolute()
                if tracked == corpus or tracked in corpus.parents:
                    return candidate
        if (parent / ".dvc").is_dir() or (parent / ".git").exists() or parent == folder:
            return None
    return None


def _empty(folder: Path) -> bool:
    try:
        return not any(folder.iterdir())
    except OSError:
        return False


def not_pulled(corpus: Path) -> str | None:
    """Why the corpus folder is not here, when DVC tracks it and it is missing or empty
    (not pulled): a phrase naming the ``.dvc`` file (the fix is ``DVC_PULL``); None
    otherwise."""
    if corpus.is_dir() and not _empty(corpus):
        return None
    tracked = dvc_file_of(corpus)
    if tracked is None:
        return None
    state = "empty" if corpus.is_dir() else "missing"
    return f"tracked by DVC in {tracked.name} and {state} here (not pulled)"
