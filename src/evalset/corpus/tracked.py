"""Whether a corpus folder that is not (wholly) here is one DVC or git keeps elsewhere.

A clone holds a DVC-tracked corpus only after ``dvc pull`` (a CI job may skip it, or it may
fail): the ``.dvc`` file is committed, the files are not. A corpus that is a git submodule
(or lies in one, or holds one) is there only after ``git submodule update --init``, which
``git clone`` and ``actions/checkout`` skip unless asked: its folder is left empty. A
sparse checkout (``git sparse-checkout``) may leave part of the corpus out. That is
not "the corpus changed" nor "it has no documents": a snapshot of it would record an empty
corpus, and every citation would read as deleted. DVC is looked at only when the folder is
missing or empty, submodules only where the repository has a ``.gitmodules`` file, a
sparse checkout only where it has sparse-checkout patterns, so a corpus that is here
costs a few ``stat`` calls.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DVC_PULL = "`dvc pull`"
SUBMODULE_UPDATE = "`git submodule update --init`"


@dataclass(frozen=True)
class Absent:
    """Why the corpus folder is not (wholly) here, and the command that brings it."""

    why: str
    """What follows "the corpus folder ": ``is tracked by DVC in corpus.dvc and missing here
    (not pulled)``."""
    fix: str


def _outs(dvc_file: Path) -> list[str]:
    """The output paths a ``.dvc`` file or a ``dvc.lock`` records (relative to its folder)."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:
        data: Any = YAML(typ="safe").load(dvc_file.read_text("utf-8"))
    except (OSError, UnicodeDecodeError, YAMLError, ValueError, RecursionError):
        return []  # (a date that does not exist, nesting too deep): no outputs read
    if not isinstance(data, dict):
        return []
    outs, stages = data.get("outs"), data.get("stages") if dvc_file.name == "dvc.lock" else None
    entries = list(outs) if isinstance(outs, list) else []
    for stage in stages.values() if isinstance(stages, dict) else ():
        if isinstance(stage, dict) and isinstance(stage.get("outs"), list):
            entries.extend(stage["outs"])
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


def not_pulled(corpus: Path) -> Absent | None:
    """Why the corpus folder is not (wholly) here, when DVC tracks it and it is missing or
    empty (not pulled), or a git submodule at, above or inside it is not checked out; None
    otherwise."""
    corpus = corpus.absolute()
    top = next((f for f in (corpus, *corpus.parents) if (f / ".git").exists()), None)
    left_out = (_submodule_not_checked_out(corpus, top) or _sparse(corpus, top)) if top else None
    if left_out is not None:
        return left_out
    if corpus.is_dir() and not _empty(corpus):
        return None
    tracked = dvc_file_of(corpus)
    if tracked is None:
        return None
    state = "empty" if corpus.is_dir() else "missing"
    return Absent(f"is tracked by DVC in {tracked.name} and {state} here (not pulled)", DVC_PULL)


def _submodule_not_checked_out(corpus: Path, top: Path) -> Absent | None:
    """The git submodule at, above or inside ``corpus`` that this clone has not checked out
    (its folder holds no ``.git``), from the ``.gitmodules`` of the repository (at ``top``)
    it is in."""
    if not (top / ".gitmodules").is_file():
        return None
    from evalset import gitcmd

    try:
        listed = gitcmd.run(top, "config", "-f", ".gitmodules", "--get-regexp", r"\.path$")
    except OSError:
        return None
    for line in listed.stdout.splitlines():
        _, _, path = line.partition(" ")
        folder = top / path
        if not path or (folder / ".git").exists():
            continue
        if folder == corpus:
            return Absent(f"is the git submodule {path}, not checked out here", SUBMODULE_UPDATE)
        if folder in corpus.parents:
            return Absent(f"is in the git submodule {path}, not checked out here", SUBMODULE_UPDATE)
        if corpus in folder.parents:
            return Absent(f"holds the git submodule {path}, not checked out here", SUBMODULE_UPDATE)
    return None


def _sparse(corpus: Path, top: Path) -> Absent | None:
    """The corpus files that git's sparse checkout leaves out of the working tree (their
    index entries are marked skip-worktree), looked for only where the repository (at
    ``top``) has sparse-checkout patterns."""
    git_dir = top / ".git"
    if git_dir.is_file():  # a linked worktree or a submodule: "gitdir: <its git folder>"
        try:
            pointed = git_dir.read_text("utf-8").strip().removeprefix("gitdir:").strip()
        except (OSError, UnicodeDecodeError):
            return None
        git_dir = (top / pointed).resolve()
    if not (git_dir / "info" / "sparse-checkout").is_file():
        return None
    from evalset import gitcmd

    rel = corpus.relative_to(top).as_posix() if corpus != top else "."
    try:
        listed = gitcmd.run(top, "ls-files", "-t", "-z", "--", rel)
    except OSError:
        return None
    left = [entry[2:] for entry in listed.stdout.split("\0") if entry.startswith("S ")]
    if not left:
        return None
    more = f" and {len(left) - 1} more file(s)" if len(left) > 1 else ""
    why = f"is not all checked out here: git's sparse checkout leaves out {left[0]}{more}"
    cone = gitcmd.run(top, "config", "--bool", "core.sparseCheckoutCone").stdout.strip()
    if cone != "true":  # patterns: adding one may not undo the pattern that leaves it out
        return Absent(why, "`git sparse-checkout disable`")
    # (git takes the folder from where it runs: this process's folder)
    return Absent(why, f"`git sparse-checkout add {os.path.relpath(corpus)}`")
