"""The sets of a workspace: listing them, and finding one by name or path."""

from __future__ import annotations

import difflib
import os
from pathlib import Path

from evalset.config import Workspace, find_workspace, find_workspace_or_none
from evalset.display import told_apart
from evalset.errors import NoSetsFolder, SetFileError, UnknownSet
from evalset.fsio import not_a_file

SET_SUFFIXES = (".yaml", ".yml")


def display_path(path: Path) -> Path:
    """``path`` relative to the current folder when it lies below it, as users type paths."""
    try:
        return path.resolve().relative_to(Path.cwd().resolve())
    except ValueError:
        return path


def sets_folder(workspace: Workspace) -> Path:
    """The workspace's sets folder, which must exist: a missing one is a mistake in the
    configuration (or a folder not restored) far more often than a workspace with no sets,
    and taken for an empty one it would let `evalset validate` pass having checked none."""
    folder = workspace.sets_dir
    if folder.is_dir():
        return folder
    where = display_path(workspace.config_file)
    key, setting = workspace.key("sets"), workspace.setting("sets")
    if folder.exists() or folder.is_symlink():
        raise NoSetsFolder(
            f"{display_path(folder)}: is not a folder, but {where} names it as the folder of "
            f"the set files ({setting}); check {key} in {where}."
        )
    raise NoSetsFolder(
        f"{display_path(folder)}: no such folder, but {where} names it as the folder of the "
        f"set files ({setting}); check {key} in {where}, or create the folder if the name "
        "is right."
    )


def set_paths(workspace: Workspace, strict: bool = True) -> list[Path]:
    """Every set file of the workspace, sorted by name (``NoSetsFolder`` when its sets
    folder is missing). A set file's name there that is no file (a FIFO, a socket, a
    device, a folder, a symlink to one of them or to nothing) is refused, as a set file
    that cannot be read is: a command over every set would otherwise pass over it without
    a word (the set a symlink named, not restored), and reading a FIFO would wait for a
    writer. ``strict=False`` passes over it (for a hint, which must not fail)."""
    folder = sets_folder(workspace)
    listed = [p for p in folder.iterdir() if p.suffix in SET_SUFFIXES]
    for path in sorted(listed) if strict else ():
        _refuse_no_file(folder, path)
    return sorted(display_path(p) for p in listed if p.is_file())


def _refuse_no_file(folder: Path, path: Path) -> None:
    """Refuse ``path``, a set file's name in the sets ``folder``, when it is no file."""
    refused = not_a_file(path)
    if refused is not None:
        shown = display_path(folder)
        fix = f"remove it, or move it out of {shown}"
        raise SetFileError(refused.sentence("set file", fix, shown / path.name))


def unique_paths(paths: list[Path]) -> list[Path]:
    """``paths`` with each file once, however it was named (by set name, by path, through
    a link), in the order first given: a set named twice is checked, and counted, once."""
    first: dict[str, Path] = {}
    for path in paths:
        first.setdefault(os.path.realpath(path), path)
    return list(first.values())


def workspace_of(ref: str | Path | None = None) -> Workspace | None:
    """The workspace a command given ``ref`` works in: the one the file lies in when ``ref``
    names a file by path (a set file, a report), else the one around the current folder;
    None outside any. So a set of a workspace in a subfolder, named by its path from the
    repository's top, is read with that workspace's configuration and snapshots, as
    `validate` reads every file it is given."""
    if ref is not None and Path(ref).is_file():
        found = find_workspace_or_none(Path(ref).resolve().parent)
        if found is not None:
            return found
    return find_workspace_or_none()


def workspace_for(ref: str | Path | None = None) -> Workspace:
    """``workspace_of``, required: outside any workspace, the error says how to find one."""
    return workspace_of(ref) or find_workspace()


def set_file_named(workspace: Workspace, name: str) -> Path | None:
    """The set file of that name in the workspace's sets folder, if there is one (a name too
    long to be a file's names none, rather than failing); ``NoSetsFolder`` when there is no
    such folder, and ``SetFileError`` when the name there is no file (see ``set_paths``)."""
    folder = sets_folder(workspace)
    for suffix in SET_SUFFIXES:
        candidate = folder / f"{name}{suffix}"
        _refuse_no_file(folder, candidate)  # the set of that name, not "no such set"
        if os.path.isfile(candidate):
            return candidate
    return None


def resolve_set(workspace: Workspace | None, ref: str) -> Path:
    """A set given by name (``acme-support``) or by path (``sets/acme-support.yaml``). A
    bare word is the workspace's set of that name when it has one, though a file or folder
    here bears the name too (a set named ``corpus``, a stray file ``s``)."""
    as_path = Path(ref)
    if as_path.suffix in SET_SUFFIXES or "/" in ref:
        return as_path
    named = None
    if workspace is not None and ref:
        try:
            named = set_file_named(workspace, ref)
        except NoSetsFolder:
            if not os.path.exists(as_path):
                raise
    if named is not None:
        return display_path(named)
    if os.path.exists(as_path):
        return as_path
    if workspace is None:
        raise UnknownSet(
            f"{ref}: no such file, and there is no workspace here to look up set names in; "
            "run evalset in the workspace's folder (or give it with -C DIR), or give the set "
            "file's path."
        )
    names = [p.stem for p in set_paths(workspace, strict=False)]
    close = difflib.get_close_matches(ref, names, n=1)
    hint = (
        f"did you mean {close[0]!r}?{told_apart(ref, close[0])}"
        if close
        else f"known sets: {', '.join(names) or 'none'}"
    )
    problem = f"{display_path(workspace.sets_dir)}: has no set named {ref!r} ({hint})"
    fix = (
        ""
        if close
        else (
            f"; {'name one of them, or ' if names else ''}start the set by importing rows into "
            f"it: `evalset import FILE --set {ref} --format jsonl`"
        )
    )
    raise UnknownSet(f"{problem}{fix}.", close[0] if close else None, problem)
