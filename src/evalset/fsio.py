"""Reading users' files as text, and writing files so that a crash leaves the old content or
the new, never a mix (and never a stray temporary file where git would see it).

A path the user names may be no regular file: a device (``/dev/null``), a FIFO, an open
descriptor (``/dev/stdout``, ``/dev/fd/N`` of a shell's process substitution). Such a
target is written to directly, as ``cp`` and ``tee`` do, never replaced; such an input is
read once, so a stream reads as the same bytes in a file do (``read_input``). A file evalset
finds by itself (a manifest in the snapshots folder, a cache) is read only when it is a
regular file or a symlink to one, and anything else is refused without waiting
(``open_found``): no one meant it as a stream."""

from __future__ import annotations

import contextlib
import errno
import json
import math
import os
import re
import secrets
import stat
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeGuard

from evalset import interrupts
from evalset.errors import EvalsetError


class WriteFailed(EvalsetError):
    """A file could not be written (a missing or read-only folder, a folder in the way)."""


class TextError(EvalsetError):
    """A file meant to be text is not UTF-8 text."""


TEMP_SUFFIX = ".tmp"


def _temp_prefix(name: str) -> str:
    """Temporary files are named after their target and this process, so that one left by a
    killed process can be told from one being written now (see ``sweep_temps``)."""
    return f".{name}.{os.getpid()}."


def _file_above(path: Path) -> Path | None:
    """The nearest folder of ``path`` that is a file instead (so nothing under it can be
    written), if one is."""
    for folder in path.parents:
        if os.path.isfile(folder):
            return folder
    return None


@dataclass(frozen=True)
class Dangling:
    """A folder of a path that is a symlink leading to nothing: to a path that does not
    exist, through as many links as there are, or round a loop of links. No folder can be
    made through it, nor anything under it."""

    link: Path
    """The folder that is the first link."""
    targets: tuple[str, ...]
    """Where each link of the chain points, as it says (``ls -l`` shows it)."""
    missing: str | None
    """The path that does not exist, where the last link points (from the current folder);
    None when the links make a loop."""

    @property
    def points(self) -> str:
        """``a symlink to l2, a symlink to /gone, which does not exist``."""
        return self.leading_to("folder")

    def leading_to(self, what: str) -> str:
        """``points``, for a link that should lead to ``what`` (a folder, a file)."""
        chain = ", a ".join(f"symlink to {to}" for to in self.targets)
        if self.missing is None:
            return f"a {chain}, a loop of links that leads to no {what}"
        return f"a {chain}, which does not exist"

    @property
    def fix(self) -> str:
        if self.missing is None:
            return "point one of the links at a folder, or remove the link"
        made = "that folder" if len(self.targets) == 1 else self.missing
        return f"create {made}, or remove the link"


def dangling_folder(path: Path) -> Dangling | None:
    """The nearest folder of ``path`` that is a symlink to nothing (where it points does
    not exist, so no folder can be made there, and none under it), with the chain of links
    it leads through to the path that is missing (or round a loop); None when there is
    none. A link to a link that does not exist is followed: the last one is what is missing,
    and `mkdir` of the first would fail, as the name is taken."""
    for folder in path.parents:
        if os.path.islink(folder) and not os.path.exists(folder):
            found = _chain(folder)
            if found is not None:
                return found
    return None


def _dangling_above(path: str, passed: set[str]) -> Dangling | None:
    """The nearest folder of ``path`` that is a symlink to nothing, with its chain (see
    ``dangling_folder``); None when there is none. ``passed``: the links the chains
    followed so far went through (one of them again is a loop)."""
    for folder in Path(path).parents:
        if os.path.islink(folder) and not os.path.exists(folder):
            return _chain(folder, passed)
    return None


def _chain(link: Path, passed: set[str] | None = None) -> Dangling | None:
    targets: list[str] = []
    here = str(link)
    seen = {os.path.realpath(here)}
    if passed is None:
        passed = set()
    elif os.path.abspath(here) in passed:
        return Dangling(link, (), None)  # back at a link already passed: a loop
    passed.add(os.path.abspath(here))
    for _ in range(40):  # as many links as the system follows
        try:
            to = os.readlink(here)
        except OSError:
            return None
        targets.append(to)
        here = os.path.normpath(os.path.join(os.path.dirname(here), to))
        if not os.path.islink(here):
            # where it points may lie under another link to nothing: that chain is
            # followed too, and what is missing is under where it leads
            inner = _dangling_above(here, passed)
            if inner is None:
                return Dangling(link, tuple(targets), here)
            missing = inner.missing
            if missing is not None and inner.targets:
                missing = os.path.join(missing, os.path.relpath(here, inner.link))
            return Dangling(link, (*targets, *inner.targets), missing)
        again = os.path.join(os.path.realpath(os.path.dirname(here)), os.path.basename(here))
        if again in seen or os.path.abspath(here) in passed:
            break
        seen.add(again)
    return Dangling(link, tuple(targets), None)


def _write_error(path: Path, exc: OSError) -> WriteFailed:
    folder = path.parent
    if exc.errno == errno.EISDIR or os.path.isdir(path):
        return WriteFailed(f"{path}: is a folder; name a file to write instead.")
    if exc.errno == errno.ENAMETOOLONG:
        return WriteFailed(f"{path}: {TOO_LONG}")
    refused = (errno.EEXIST, errno.ENOENT, errno.ELOOP)
    dangling = dangling_folder(path) if exc.errno in refused else None
    if dangling is not None:
        return WriteFailed(
            f"{path}: cannot be written because {dangling.link} is {dangling.points}; "
            f"{dangling.fix}."
        )
    blocking = _file_above(path) if exc.errno in (errno.ENOTDIR, errno.EEXIST) else None
    if blocking is not None:
        return WriteFailed(
            f"{path}: cannot be written because {blocking} is a file, not a folder; name a "
            f"file in a folder, or move {blocking} away."
        )
    if exc.errno == errno.ENOENT and not os.path.isdir(folder):
        return WriteFailed(
            f"{path}: cannot be written because the folder {folder} does not exist; create it "
            "first, or name a file in an existing folder."
        )
    if exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        return WriteFailed(
            f"{path}: cannot be written ({exc.strerror}); make {folder} writable, or run the "
            "command as a user who may write there."
        )
    if exc.errno == errno.ENOSPC:
        return WriteFailed(f"{path}: cannot be written (no space left on the device); free space.")
    if exc.errno == errno.ENOENT:  # the folder is there, but makes no file (/proc, /sys)
        return WriteFailed(
            f"{path}: cannot be written because the folder {folder} takes no new files "
            f"({exc.strerror}); name a file in another folder."
        )
    return WriteFailed(
        f"{path}: cannot be written ({exc.strerror or exc}); name a file in another folder, "
        f"or see that {folder} can be written."
    )


TOO_LONG = "is too long a name for the file system (File name too long); give a shorter path."
"""Why a path whose name (or one of whose folders' names) the file system refuses is."""

STANDARD_OUTPUT = (
    "-: names standard output, which evalset does not write a file to; to print the "
    "document, use --json (for export, leave -o out), and name a file called - by its full "
    "path ($PWD/-)."
)
"""Why ``-`` is refused as a path to write (the command's --json prints it already)."""

_DESCRIPTOR = re.compile(
    r"^/(?:dev|proc/(?:self|thread-self|\d+))/fd/(\d+)$|^/dev/std(out|err|in)$"
)
_STANDARD = {"in": 0, "out": 1, "err": 2}


def open_descriptor(path: Path) -> int | None:
    """The descriptor of this process that ``path`` names (``/dev/stdout``, ``/dev/fd/N``,
    ``/proc/self/fd/N``, or a symlink to one of them), if it names one. Opening such a path
    anew would not do: a descriptor open on a file would be truncated or written from its
    start, and resolving it gives a name like ``pipe:[123]`` that opens nothing."""
    name = os.path.abspath(path)
    for _ in range(40):  # as many links as the system follows
        found = _DESCRIPTOR.match(name)
        if found is not None:
            if found.group(1) is not None:
                own = name.startswith(("/dev/", "/proc/self/", "/proc/thread-self/"))
                if not own and not name.startswith(f"/proc/{os.getpid()}/"):
                    return None  # another process's descriptor: a path like any other
                return int(found.group(1))
            return _STANDARD[found.group(2)]
        try:
            link = os.readlink(name)
        except OSError:
            return None
        name = os.path.normpath(os.path.join(os.path.dirname(name), link))
    return None


def _chunks(text: str | bytes | list[bytes] | list[bytes | memoryview]) -> list[Any]:
    if isinstance(text, list):
        return list(text)
    return [text.encode() if isinstance(text, str) else text]


def _write_all(fd: int, text: str | bytes | list[bytes] | list[bytes | memoryview]) -> None:
    for chunk in _chunks(text):
        view = memoryview(chunk).cast("B")
        while view:
            view = view[os.write(fd, view) :]


def _write_directly(
    path: Path, fd: int | None, text: str | bytes | list[bytes] | list[bytes | memoryview]
) -> None:
    """Write to a descriptor this process holds (``fd``), or to a device or FIFO opened by
    ``path`` (which waits for a FIFO's reader, as ``cp`` does): no temporary file, no
    rename, so the target is never replaced."""
    if fd is not None:
        for stream in (sys.stdout, sys.stderr):  # what the command printed comes first
            with contextlib.suppress(Exception):
                stream.flush()
        _write_all(fd, text)
        return
    opened = os.open(path, os.O_WRONLY | os.O_CLOEXEC | os.O_NOCTTY)
    try:
        _write_all(opened, text)
    finally:
        os.close(opened)


def _read_only_mount(path: Path) -> bool:
    """Whether ``path`` lies on a file system mounted read-only (the write then says so)."""
    try:
        return bool(os.statvfs(path).f_flag & os.ST_RDONLY)
    except OSError:
        return False


def check_target(path: Path) -> None:
    """Refuse, in one sentence, a path that names a file evalset may not write: ``-``
    (standard output, which commands print with --json), a folder, and a regular file that
    is read-only (its mode, kept as ``rm`` keeps it, even for root: replacing the file would
    need only the folder's permission)."""
    if str(path) == "-":
        raise WriteFailed(STANDARD_OUTPUT)
    if open_descriptor(path) is not None:
        return
    try:
        found = os.stat(path)
    except OSError:
        _refuse_link_to_nowhere(path)
        return  # missing (or a link to a file that is missing): it is created
    if stat.S_ISDIR(found.st_mode):
        raise WriteFailed(f"{path}: is a folder; name a file to write instead.")
    denied = not found.st_mode & 0o222 or not os.access(path, os.W_OK)
    if stat.S_ISREG(found.st_mode) and denied and not _read_only_mount(path):
        raise WriteFailed(
            f"{path}: is read-only, so evalset does not replace it; make it writable first "
            f"(chmod u+w {path})."
        )


def _refuse_link_to_nowhere(path: Path) -> None:
    """Refuse ``path`` when it is a symlink that no file can be written through: round a
    loop of links, or to a file in a folder that does not exist. Writing follows the link,
    so the error would otherwise name only where it leads (or say nothing of a loop)."""
    if not os.path.islink(path):
        return
    chain = _chain(path)
    if chain is None:
        return
    if chain.missing is None:
        raise WriteFailed(
            f"{path}: cannot be written because it is {chain.leading_to('file')}; point one of "
            "the links at the file to write, or remove the link."
        )
    folder = os.path.dirname(chain.missing)
    if folder and not os.path.isdir(folder):
        raise WriteFailed(
            f"{path}: cannot be written because it is {chain.leading_to('file')}, and neither "
            f"does its folder {folder}; create that folder, or remove the link."
        )


def atomic_write(
    path: Path,
    text: str | bytes | list[bytes] | list[bytes | memoryview],
    scratch: Path | None = None,
    parents: bool = False,
) -> None:
    """Write ``text`` (UTF-8), bytes or a list of byte chunks to ``path`` via a temporary
    file, fsync and rename. A symlink is written through (its target is replaced), never
    replaced by a regular file. The temporary file goes in ``scratch`` when given (a folder
    git ignores, on the same file system), else beside the target. ``parents``: make the
    folders it goes in first (``make_folders``).

    A target that is no regular file (a device, a FIFO, an open descriptor such as
    ``/dev/stdout`` or ``/dev/fd/N``) is written to directly and never replaced; a hard
    link is replaced, so its other names keep the old content.

    Raises WriteFailed, one sentence, when the folder is missing, read-only or full, a
    folder stands where the file should be (or a file where a folder should), the file is
    read-only, or the path is ``-`` (``check_target``)."""
    path = Path(path)
    target = _regular_target(path, parents)
    if target is None:
        try:
            _write_directly(path, open_descriptor(path), text)
        except OSError as exc:
            raise _write_error(path, exc) from None
        return
    try:
        _write(target, text, scratch)
    except WriteFailed:
        raise
    except OSError as exc:
        if scratch is not None and exc.errno == errno.EXDEV:  # another file system
            try:
                _write(target, text, None)
                return
            except OSError as again:
                raise _write_error(target, again) from None
        raise _write_error(target, exc) from None


def write_all(files: Sequence[tuple[Path, str | bytes]]) -> None:
    """Write each ``(path, text)`` as ``atomic_write(path, text, parents=True)`` does, but all
    or none: every folder is made and every text written whole to a temporary file beside
    its file first, and only then are they renamed into place. So a path that cannot be
    written (a read-only folder, a full disk, a name too long) leaves none of the files
    written. A path that is no regular file (``/dev/stdout``, a FIFO) is written directly,
    once the others are in place."""
    targets = [(path, _regular_target(Path(path), parents=True), text) for path, text in files]
    staged: list[tuple[Path, Path]] = []
    try:
        for _, target, text in targets:
            if target is not None:
                try:
                    staged.append((_stage(target, text, None), target))
                except OSError as exc:
                    raise _write_error(target, exc) from None
    except BaseException:
        for temp, _ in staged:
            _discard(temp)
        raise
    for n, (temp, target) in enumerate(staged):
        try:
            _place(temp, target)
        except OSError as exc:
            for later, _ in staged[n + 1 :]:
                _discard(later)
            raise _write_error(target, exc) from None
    for path, target, text in targets:
        if target is None:
            atomic_write(path, text)


def refuse_overwriting(
    outputs: Sequence[tuple[str, Path | None]],
    inputs: Sequence[tuple[str, Path | None]],
    folders: Sequence[tuple[str, Path]] = (),
) -> None:
    """Refuse, in one sentence, an output path that names a file the command reads, or the
    file an output before it names: writing there would replace the input (a set file, a
    run, the age key) or the other output; or a path inside one of ``folders`` (what it
    holds, its path), where a file written would become one of those (a set, a snapshot, a
    document of the corpus). Each is ``(what it is, path)``; a path of None is none."""
    earlier: list[tuple[str, Path]] = []
    for what, path in outputs:
        if path is None:
            continue
        for source, read in inputs:
            if read is not None and str(read) != "-" and _same_file(path, read):
                raise WriteFailed(
                    f"{path}: is the {source} this command reads, which writing the {what} "
                    f"there would replace; name another file for the {what}."
                )
        for holds, folder in folders:
            if _inside(path, folder):
                raise WriteFailed(
                    f"{path}: lies in {folder}, which holds {holds}, where the {what} would "
                    f"be taken for one of them; write the {what} outside {folder}."
                )
        for other, before in earlier:
            if _same_file(path, before):
                raise WriteFailed(
                    f"{path}: is where the {other} goes too; give the {other} and the {what} "
                    "different files."
                )
        earlier.append((what, path))


def _inside(path: Path, folder: Path) -> bool:
    """Whether ``path`` (followed through its links, as a write would) lies in ``folder``."""
    return os.path.realpath(path) != os.path.realpath(folder) and lies_in(path, folder)


def first_link(path: Path, root: Path) -> Path | None:
    """The first of ``path``'s folders below ``root``, or ``path`` itself, that is a symlink
    (``path`` lying below ``root``); None when none is, so ``path`` lies where it says."""
    here = Path(root)
    for part in Path(path).relative_to(root).parts:
        here = here / part
        if os.path.islink(here):
            return here
    return None


def lies_in(path: str | Path, folder: str | Path) -> bool:
    """Whether ``path``, followed through its links, is ``folder`` or lies in it."""
    where, top = os.path.realpath(path), os.path.realpath(folder)
    return where == top or where.startswith(top.rstrip(os.sep) + os.sep)


def _same_file(a: Path, b: Path) -> bool:
    try:
        return os.path.samefile(a, b)
    except OSError:  # one is missing (or cannot be looked at): the same only by its name
        return os.path.realpath(a) == os.path.realpath(b)


def _regular_target(path: Path, parents: bool) -> Path | None:
    """The regular file that writing ``path`` replaces (a symlink's target), made ready
    (``parents``: its folders made); None when ``path`` is no regular file (a device, a
    FIFO, a descriptor) and is written directly. WriteFailed as ``atomic_write`` says."""
    check_target(path)
    if open_descriptor(path) is not None:
        return None
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            return None
    except FileNotFoundError:
        pass  # missing: created
    except OSError as exc:
        raise _write_error(path, exc) from None
    if parents:
        make_folders(path)
    if os.path.islink(path):
        path = Path(os.path.realpath(path))
    if os.path.isdir(path):
        raise WriteFailed(f"{path}: is a folder; name a file to write instead.")
    return path


def create_new(path: Path, text: str) -> bool:
    """Create the file ``path`` holding ``text`` unless a file of that name exists (then
    return False and change nothing). It is written whole under a temporary name, then
    linked into place, which fails if the name was taken meanwhile: so a run killed
    mid-write leaves no file rather than the start of one (which a later run, that never
    overwrites, would keep), and of two runs at once one creates it and the other keeps it.
    Raises WriteFailed, one sentence, as ``atomic_write`` does."""
    path = Path(path)
    if path.exists() or path.is_symlink():
        return False
    made: list[Path] = []
    try:
        fd = _open_temp([path.parent], path, made)
        with os.fdopen(fd, "wb") as f:
            f.write(text.encode())
            f.flush()
            os.fsync(f.fileno())
        os.chmod(made[0], 0o644)
        interrupts.check()  # a Ctrl-C not raised where it arrived: the file is not made
        try:
            os.link(made[0], path)
        except FileExistsError:
            return False
        except OSError as exc:
            if exc.errno not in (errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK):
                raise
            if path.exists():  # a file system without hard links: the check, then rename
                return False
            os.replace(made[0], path)
    except OSError as exc:
        raise _write_error(path, exc) from None
    finally:
        for tmp in made:
            _discard(tmp)
    return True


def make_folders(path: Path) -> None:
    """Make the folders a file at ``path`` goes in, so that it can be written; WriteFailed,
    one sentence, when they cannot be made (a file stands where one of them should be, or a
    folder above is read-only), or ``path`` cannot be written (``check_target``)."""
    check_target(path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise _write_error(path, exc) from None
    check_target(path)


def _write(
    path: Path, text: str | bytes | list[bytes] | list[bytes | memoryview], scratch: Path | None
) -> None:
    _place(_stage(path, text, scratch), path)


def _stage(
    path: Path, text: str | bytes | list[bytes] | list[bytes | memoryview], scratch: Path | None
) -> Path:
    """A temporary file holding ``text``, written whole and synced, with ``path``'s mode and
    owner, ready to be renamed to ``path`` (in ``scratch`` when it takes one, else beside
    ``path``); nothing is left behind when this fails."""
    try:
        before: os.stat_result | None = path.stat()
    except FileNotFoundError:
        before = None
    mode = before.st_mode & 0o777 if before is not None else 0o644
    folders = [path.parent]
    if scratch is not None:
        with contextlib.suppress(OSError):  # none (or an unwritable one): beside the target
            scratch.mkdir(parents=True, exist_ok=True)
            folders.insert(0, scratch)
    made: list[Path] = []
    try:
        fd = _open_temp(folders, path, made)
        with os.fdopen(fd, "wb") as f:
            if isinstance(text, list):
                f.writelines(text)
            else:
                f.write(text.encode() if isinstance(text, str) else text)
            f.flush()
            os.fsync(f.fileno())
        os.chmod(made[-1], mode)
        if before is not None and (before.st_uid, before.st_gid) != (os.geteuid(), os.getegid()):
            with contextlib.suppress(OSError):  # only root may give a file away
                os.chown(made[-1], before.st_uid, before.st_gid)
    except BaseException:
        for tmp in made:
            _discard(tmp)
        raise
    return made[-1]


def _place(temp: Path, path: Path) -> None:
    """Rename a staged file to ``path`` and sync the folder, so the rename lasts; not
    after a Ctrl-C that arrived where it could not be raised (``interrupts.check``)."""
    try:
        interrupts.check()
        os.replace(temp, path)
    except BaseException:
        _discard(temp)
        raise
    dir_fd = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(dir_fd)
    finally:
        os.close(dir_fd)


def _open_temp(folders: list[Path], path: Path, made: list[Path]) -> int:
    """Create a temporary file for ``path`` in the first of ``folders`` that takes one; its
    name goes into ``made`` before the file exists, so that the caller's clean-up removes it
    however soon after its making Ctrl-C lands (``mkstemp`` names it only once it is made)."""
    for n, folder in enumerate(folders):
        if folder == path.parent:
            # A writer killed mid-write (SIGKILL, a power cut) left its temporary file
            # here, where git and the user see it, and nothing else would ever remove it.
            sweep_temps(folder, older_than=None)
        made.append(folder / f"{_temp_prefix(path.name)}{secrets.token_hex(4)}{TEMP_SUFFIX}")
        try:
            return os.open(made[-1], os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
        except OSError:
            made.pop()  # none was made
            if n + 1 == len(folders):
                raise
    raise AssertionError("no folder")  # pragma: no cover - folders is never empty


_TEMP_NAME = re.compile(r"^\..+\.(\d+)\.[^.]+\.tmp$")
_OWN_TEMP = re.compile(r"^\..+\.(\d+)\.[a-z0-9_]{8}\.tmp$")
"""The exact shape of ``atomic_write``'s temporary names (eight random characters: hex
digits now, mkstemp's letters, digits and ``_`` before)."""


def _alive(pid: int) -> bool:
    if pid == os.getpid():
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, but belongs to someone else
        return True
    return True


def sweep_temps(folder: Path, older_than: float | None = 3600.0) -> list[Path]:
    """Remove the temporary files that writers killed mid-write left in ``folder``: those
    of a process that no longer runs, and (named by an earlier evalset, without a process)
    those older than ``older_than`` seconds. ``older_than=None``, for a folder of the
    user's: only files named exactly as ``atomic_write`` names them, after a process that
    no longer runs. Returns what was removed; failures are ignored (only tidiness is
    lost)."""
    import time

    removed: list[Path] = []
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return removed
    now = time.time()
    for entry in entries:
        name = entry.name
        if not (name.startswith(".") and name.endswith(TEMP_SUFFIX)):
            continue
        owner = (_TEMP_NAME if older_than is not None else _OWN_TEMP).match(name)
        try:
            if owner is not None:
                stale = not _alive(int(owner.group(1)))
            elif older_than is None:
                continue
            else:
                stale = now - entry.stat(follow_symlinks=False).st_mtime > older_than
            if stale and entry.is_file(follow_symlinks=False):
                os.unlink(entry.path)
                removed.append(Path(entry.path))
        except (OSError, ValueError):
            continue
    return removed


def replace_cache(path: Path, data: bytes) -> None:
    """Replace a cache file whole: written beside it under a name of this process, then
    renamed over it, so readers see the old file or the new one. Not fsynced: a cache lost
    in a crash costs only speed, and so does a cache that cannot be written (a read-only
    folder): the failure is ignored."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError:
        _discard(tmp)
    except BaseException:
        _discard(tmp)
        raise


def _discard(path: Path) -> None:
    """Remove a temporary file if there is one (a read-only folder has none to remove)."""
    with contextlib.suppress(OSError):
        path.unlink()


# ---------------------------------------------------------------------------------------
# Reading


def _line_col(text: str, offset: int) -> tuple[int, int]:
    line = text.count("\n", 0, offset) + 1
    return line, offset - (text.rfind("\n", 0, offset) + 1) + 1


def utf16_kind(data: bytes) -> str | None:
    """'UTF-16' or 'UTF-32' when ``data`` looks like text in that encoding (a byte-order
    mark, or a NUL beside every other byte), else None."""
    if data.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "UTF-32"
    if data.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "UTF-16"
    head = data[:4096]
    if len(head) >= 4 and head.count(0) * 3 >= len(head):
        even, odd = head[0::2], head[1::2]
        if even.count(0) * 4 >= len(even) * 3 or odd.count(0) * 4 >= len(odd) * 3:
            return "UTF-16"
    return None


_COMPRESSED = (
    (b"\x1f\x8b", ("gzip-compressed", "gunzip -k FILE.gz")),
    (b"PK\x03\x04", ("a zip archive", "unzip FILE.zip")),
    (b"\xfd7zXZ\x00", ("xz-compressed", "unxz -k FILE.xz")),
    (b"\x28\xb5\x2f\xfd", ("zstd-compressed", "unzstd FILE.zst")),
    (re.compile(rb"BZh[1-9]1AY&SY"), ("bzip2-compressed", "bunzip2 -k FILE.bz2")),
)
"""The first bytes of the compressed files a text file is found to be, and how to unpack
(bzip2's are letters, which a text may start with: its block's mark must follow)."""


def _starts(data: bytes, magic: bytes | re.Pattern[bytes]) -> bool:
    return data.startswith(magic) if isinstance(magic, bytes) else bool(magic.match(data))


def decode_text(data: bytes, where: object, what: str = "file") -> str:
    """``data`` as UTF-8 text (a leading byte-order mark kept), or one sentence naming the
    file, the position and the fix: UTF-16/32 is named as such, a NUL byte and invalid UTF-8
    are located."""
    kind = utf16_kind(data)
    if kind is not None:
        return _raise(
            f"{where}: is {kind} text, but a {what} must be UTF-8; save it as UTF-8 (for "
            f"example `iconv -f {kind} -t UTF-8`)."
        )
    packed = next((p for magic, p in _COMPRESSED if _starts(data, magic)), None)
    if packed is not None:  # its bytes say "NUL byte" or "not UTF-8", which is no help
        return _raise(
            f"{where}: is {packed[0]}, but a {what} must be UTF-8 text; unpack it first (for "
            f"example `{packed[1]}`)."
        )
    nul = data.find(b"\x00")
    if nul >= 0:
        line, col = _line_col(data[:nul].decode("utf-8", "replace"), nul)
        return _raise(
            f"{where}:{line}:{col}: contains a NUL byte, so it is not a text file; remove the "
            "byte or restore the file from git."
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        prefix = data[: exc.start].decode("utf-8", "replace")
        line, col = _line_col(prefix, len(prefix))
        return _raise(
            f"{where}:{line}:{col}: is not valid UTF-8 (byte 0x{data[exc.start]:02x}); save "
            "the file as UTF-8."
        )


def _raise(message: str) -> str:
    raise TextError(message)


STDIN_CLOSED = "standard input is closed; give the input on it (`< FILE`), or name its file"
"""Why ``-`` cannot be read when evalset was started with standard input closed."""


READ_TWICE = (
    "its input was read already, for another of the command's inputs, and can be read only "
    "once; save one of them to a file and name that"
)
"""Why ``-`` (or a pipe) named for a second input gives nothing: the first took it all."""

_streams_read: set[object] = set()
"""What was read so far that gives its bytes only once: standard input (``-``, whatever it
is), and each stream (a pipe, a FIFO, a terminal) by its (device, inode)."""


def forget_reads() -> None:
    """Start a command: no stream was read yet (see ``read_input``)."""
    _streams_read.clear()


def read_input(path: Path) -> bytes:
    """The bytes of a file the user names, read once: a FIFO, a pipe (``<(cat run.jsonl)``
    passes ``/dev/fd/63``) or ``/dev/stdin`` gives its bytes only once. ``-`` is standard
    input. Raises OSError as ``open`` does (missing, a folder, unreadable), and when what
    another input of the command already read gives nothing (``-`` named twice)."""
    if str(path) == "-":
        stream = sys.stdin
        if stream is None:  # started with standard input closed
            raise OSError(errno.EBADF, STDIN_CLOSED)
        buffer = getattr(stream, "buffer", None)
        try:
            fd: int | None = stream.fileno()
        except (OSError, ValueError):  # replaced by an object without a descriptor
            fd = None
        return _read_once(
            fd, "-", buffer.read if buffer is not None else lambda: stream.read().encode()
        )
    with open(path, "rb") as f:
        return _read_once(f.fileno(), None, f.read)


def _read_once(fd: int | None, name: str | None, read: Callable[[], bytes]) -> bytes:
    """``read()``, refused when it gives nothing from what was read before (see
    ``READ_TWICE``): standard input (``name`` ``-``) or a stream. A regular file opened
    by its name is read afresh each time."""
    keys: list[object] = [name] if name else []
    if fd is not None:
        found = os.fstat(fd)
        if not stat.S_ISREG(found.st_mode):
            keys.append((found.st_dev, found.st_ino))
    data = read()
    if not data and any(key in _streams_read for key in keys):
        raise OSError(errno.EBADF, READ_TWICE)
    _streams_read.update(keys)
    return data


def read_user_text(path: Path, what: str = "file") -> str:
    """A user's text file as UTF-8 text without its byte-order mark, read once
    (``read_input``: ``-`` is standard input); every failure is one sentence (missing, a
    folder, unreadable, not UTF-8)."""
    try:
        data = read_input(path)
    except FileNotFoundError:
        raise TextError(f"{path}: no such file; check the path.") from None
    except IsADirectoryError:
        raise TextError(f"{path}: is a folder, not a {what}; name a file.") from None
    except OSError as exc:
        raise TextError(f"{path}: cannot be read ({exc.strerror or exc}).") from None
    return decode_text(data, path, what).removeprefix("\ufeff")


class NotAFile(OSError):
    """A path evalset finds by itself (a manifest in the snapshots folder, a cache in
    ``.evalset/``, a set's accepted run) that is there but is no regular file, nor a symlink
    that leads to one. Unlike a path the user names, it is never read as a stream: opening
    a FIFO waits for a writer that never comes, and a device, a socket or a folder holds no
    file evalset wrote."""

    def __init__(self, path: Path, kind: str, dangling: bool = False) -> None:
        super().__init__(errno.EINVAL, f"is {kind}, not a file", str(path))
        self.path = path
        self.kind = kind
        """What it is, as a message says it (``a named pipe``, see ``not_a_file``)."""
        self.dangling = dangling
        """Whether it is a symlink that leads to nothing (the file it names may be made)."""

    def sentence(self, what: str, fix: str = "remove it", shown: object = None) -> str:
        """``PATH: is a named pipe, not a snapshot manifest; remove it.``, the path as
        ``shown`` when given; for a symlink to nothing, restoring what it points to is a
        fix too."""
        path = self.path if shown is None else shown
        if self.dangling:
            return (
                f"{path}: is {self.kind}, so no {what} is there; {fix}, or restore the file it "
                "points to."
            )
        return f"{path}: is {self.kind}, not a {what}; {fix}."


_KINDS = (
    (stat.S_ISDIR, "a folder"),
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
)


def _kind(mode: int) -> str:
    return next((kind for test, kind in _KINDS if test(mode)), "no regular file")


def not_a_file(path: Path) -> NotAFile | None:
    """Why ``path``, found by evalset itself, is not a file it may read or replace: it is a
    folder, a named pipe, a socket, a device, a symlink to one of them, or a symlink that
    leads to nothing (``NotAFile.dangling``); None for a regular file, a symlink to one,
    and a path where nothing is (or that cannot be looked at: said where it is read).
    Only ``stat`` is asked: nothing is opened."""
    try:
        found = os.stat(path)
    except OSError as exc:
        if exc.errno not in (errno.ENOENT, errno.ELOOP) or not os.path.islink(path):
            return None
        chain = _chain(Path(path))
        if chain is None:  # the link went away meanwhile
            return None
        return NotAFile(path, chain.leading_to("file"), dangling=True)
    if stat.S_ISREG(found.st_mode):
        return None
    kind = _kind(found.st_mode)
    if os.path.islink(path):
        with contextlib.suppress(OSError):
            kind = f"a symlink to {os.readlink(path)}, which is {kind}"
    return NotAFile(path, kind)


def open_found(path: Path) -> int:
    """A descriptor open for reading on ``path``, a file evalset found by itself (listed in
    its folder, or at the place evalset keeps it), which must be a regular file or a
    symlink to one: ``NotAFile`` otherwise (an OSError), raised without waiting. Such a
    path is looked at before it is opened, so that a device is never opened at all; and it
    is opened without waiting, so that a FIFO put in its place meanwhile is refused too."""
    refused = not_a_file(path)
    if refused is not None:
        raise refused
    flags = os.O_RDONLY | os.O_CLOEXEC | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
    fd = os.open(path, flags)
    try:
        mode = os.fstat(fd).st_mode
        if not stat.S_ISREG(mode):
            raise NotAFile(path, _kind(mode))
        if os.name == "posix":
            os.set_blocking(fd, True)
    except BaseException:
        os.close(fd)
        raise
    return fd


def read_found(path: Path) -> bytes:
    """The bytes of a file evalset found by itself (``open_found``: ``NotAFile`` when it is
    no regular file, OSError as ``open`` raises otherwise)."""
    with os.fdopen(open_found(path), "rb") as f:
        return f.read()


_LONE_SURROGATE = re.compile(
    r"\\u[dD][89abAB][0-9a-fA-F]{2}(?!\\u[dD][c-fC-F][0-9a-fA-F]{2})"
    r"|(?<!\\u[dD][89abAB][0-9a-fA-F]{2})\\u[dD][c-fC-F][0-9a-fA-F]{2}"
)
"""A ``\\uD800``-``\\uDFFF`` escape without its other half."""


_ENCODE = json.JSONEncoder(ensure_ascii=False).encode


def finite_number(value: Any) -> TypeGuard[int | float]:
    """Whether ``value`` is a number as JSON gives one (not a boolean) that a float holds
    finitely: JSON allows an integer of any size, and one beyond a float's range would
    overflow where it is added or averaged."""
    if type(value) is int:
        return -sys.float_info.max <= value <= sys.float_info.max  # exact: no conversion
    return type(value) is float and math.isfinite(value)


def not_text(value: Any) -> bool:
    """Whether parsed JSON holds a string no UTF-8 text can hold: a lone surrogate, which a
    ``\\ud83d`` escape without its pair makes. It could be neither printed nor written."""
    try:
        _ENCODE(value).encode()
    except UnicodeEncodeError:
        return True
    return False


class RepeatedKey(ValueError):
    """An object of a user's JSON that gives one key twice (``unique_object``)."""

    def __init__(self, key: str) -> None:
        super().__init__(key)
        self.key = key

    @property
    def message(self) -> str:
        return (
            f"the key {self.key!r} appears twice in one object (JSON keeps only the last, "
            "silently); keep one of them"
        )

    def at(self, doc: str) -> int:
        """Where (from 0) ``doc`` gives the key a second time in one object: its keys are
        read as JSON reads them, so an escaped key (``"\\u0069d"`` for ``id``) is found, and
        a key of another object is not (before, the second ``"id"`` anywhere in the text, or
        the start of the line when the key was escaped)."""
        objects: list[set[str] | None] = []  # per open bracket: its keys (None: an array)
        for found in _JSON_TOKEN.finditer(doc):
            token = found.group(1)
            if token is None:
                if found.group() in "{[":
                    objects.append(set() if found.group() == "{" else None)
                elif objects:
                    objects.pop()
            elif found.group(2) and objects and objects[-1] is not None:
                key = json.loads(token)
                if key == self.key and key in objects[-1]:
                    return found.start()
                objects[-1].add(key)
        written = json.dumps(self.key, ensure_ascii=False)  # text that is no JSON object
        first = doc.find(written)
        return max(doc.find(written, first + 1) if first >= 0 else -1, 0)


_JSON_TOKEN = re.compile(r'("(?:[^"\\]|\\.)*")([ \t\r\n]*:)?|[{}\[\]]')
"""A JSON string (group 2: followed by ``:``, so a key) or a bracket."""


class RepeatedKeyError(json.JSONDecodeError):
    """``json_loads``'s refusal of an object that gives a key twice, at the key's second
    occurrence in the text: ``certain`` when the text writes the key exactly twice, so that
    this is where the object repeats it (a report writes ``"hit@1"`` in every item row)."""

    def __init__(self, repeated: RepeatedKey, doc: str) -> None:
        super().__init__(repeated.message, doc, repeated.at(doc))
        self.key = repeated.key
        self.certain = doc.count(json.dumps(repeated.key, ensure_ascii=False)) == 2


def unique_object(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """A JSON object as a dict, refusing (``RepeatedKey``) one that gives a key twice, where
    ``json`` would keep the last value without a word (a hit, a trial, an answer lost)."""
    found = dict(pairs)
    if len(found) != len(pairs):
        seen: set[str] = set()
        for key, _ in pairs:
            if key in seen:
                raise RepeatedKey(key)
            seen.add(key)
    return found


class NumberTooLong(json.JSONDecodeError):
    """JSON holding an integer of more digits than Python turns into a number
    (``sys.get_int_max_str_digits``): valid JSON, but not JSON that can be read."""

    def __init__(self, doc: str, pos: int) -> None:
        limit = sys.get_int_max_str_digits()
        super().__init__(
            f"a number too long, of more than {limit:,} digits; write it in quotes, as text",
            doc,
            pos,
        )


def long_integers(data: Any, limit: int) -> int:
    """How many integers in ``data`` (parsed YAML, TOML or JSON) have more than ``limit``
    digits."""
    count, stack = 0, [data]
    while stack:
        value = stack.pop()
        if isinstance(value, dict):
            stack.extend(value)
            stack.extend(value.values())
        elif isinstance(value, list):
            stack.extend(value)
        elif type(value) is int and value.bit_length() > 3 * limit and abs(value) >= 10**limit:
            count += 1
    return count


_NUMBER_CHARS = frozenset("0123456789abcdefABCDEFoOxX_")
"""What an integer's text is made of, in YAML and TOML: digits of every base, its prefix
(``0x``, ``0o``, ``0b``) and the ``_`` that may part its digits."""
_NUMBER_RUN = re.compile("[0-9a-fA-FoOxX_]*")


def number_runs(text: str, length: int) -> list[tuple[int, int]]:
    """(start, end) of each run of at least ``length`` characters an integer's text is made
    of (``_NUMBER_CHARS``), in linear time: such a run holds one of every ``length``-th
    positions, so only those are looked at, and a run is measured from the one it holds. (A
    regular expression looks at every position, 50 ms for a 5 MB set, and goes over a
    shorter run again from each of its positions: seconds for a file of long digit
    strings.)"""
    runs = []
    at, end, size = length - 1, -1, len(text)
    chars, run = _NUMBER_CHARS, _NUMBER_RUN
    while at < size:
        if at >= end and text[at] in chars:
            before = text[max(0, at - length) : at][::-1]  # the run starts after the last
            start = at - _span(run, before, 0)  # sample, so no further back
            end = at + _span(run, text, at)
            if end - start >= length:
                runs.append((start, end))
        at += length
    return runs


def _span(pattern: re.Pattern[str], text: str, at: int) -> int:
    found = pattern.match(text, at)
    assert found is not None  # (it matches nothing, at least)
    return found.end() - at


def long_number_place(
    text: str,
    limit: int,
    count: int,
    parse: Callable[[str], Any],
    refused: tuple[type[Exception], ...],
) -> int | None:
    """Where in ``text`` the first of the ``count`` integers of more than ``limit`` digits
    its parse holds starts (its sign included); None when it cannot be told. Each run of
    ``number_runs`` long enough to be one is tried in turn: read as 0 by ``parse``, the text
    holds one fewer when the run was one. The fewest characters such a number has are in
    hexadecimal: four fifths of its decimal digits. ``refused``: what ``parse`` raises for
    a text it cannot read."""
    for begin, end in number_runs(text, limit * 4 // 5):
        try:
            probed = parse(f"{text[:begin]}0{text[end:]}")
        except refused:  # read as 0, the text is no longer valid: not this run
            continue
        if long_integers(probed, limit) < count:
            return begin - (1 if begin and text[begin - 1] in "+-" else 0)
    return None


_JSON_INTEGER = re.compile(r'"(?:[^"\\]|\\.)*"|-?(\d+)(?![\d.eE])')
"""A JSON string (skipped), or an integer: its digits."""


def long_number_at(text: str) -> int | None:
    """Where in ``text`` (JSON) the first integer too long for Python to read starts (the
    JSON reader fails on it with a ValueError that says where it is not); None when there
    is none."""
    limit = sys.get_int_max_str_digits()
    if limit:
        for found in _JSON_INTEGER.finditer(text):
            if found.group(1) is not None and len(found.group(1)) > limit:
                return found.start()
    return None


def not_json(exc: json.JSONDecodeError, said: str | None = None) -> str:
    """What a reader says of a text ``exc`` was raised for: not valid JSON, or valid JSON
    it cannot read (``NumberTooLong``); why, as ``said`` (``exc.msg`` redacted, say)."""
    kind = "JSON that can be read" if isinstance(exc, NumberTooLong) else "valid JSON"
    why = exc.msg if said is None else said
    return f"is not {kind} ({JSON_SAYS.get(why, why.removesuffix(' at'))})"


JSON_SAYS = {
    "Unterminated string starting at": 'a string that starts here is not closed: a " is missing',
    "Invalid control character at": (
        "a string holds a control character here, such as a tab or a line break, which JSON "
        "writes as \\t or \\n"
    ),
}
"""Python's JSON reader's messages that end with the position they leave to the exception
("starting at: line 1 column 44"), whose message alone stops short; the position is the
caller's (``file:line:column``)."""


def json_loads(text: str | bytes, unique_keys: bool = False) -> Any:
    """``json.loads`` that fails as for any malformed JSON (``json.JSONDecodeError``) on
    values nested too deeply to read, instead of exhausting the interpreter's recursion, on
    an integer too long to read (``NumberTooLong``), and on a lone surrogate escape
    (``"\\ud83d"`` without its pair): JSON can write one, but the string it makes is not
    text, and could be neither printed nor written as UTF-8.
    ``unique_keys`` (a user's JSON): an object giving a key twice fails too."""
    try:
        value = json.loads(text, object_pairs_hook=unique_object if unique_keys else None)
    except RecursionError:
        doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise json.JSONDecodeError("values nested too deeply to read", doc, 0) from None
    except RepeatedKey as exc:
        doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
        raise RepeatedKeyError(exc, doc) from None
    except json.JSONDecodeError:
        raise
    except ValueError:  # the one other failure of the reader: an integer too long
        doc = text if isinstance(text, str) else text.decode("utf-8", "replace")
        at = long_number_at(doc)
        if at is None:
            raise
        raise NumberTooLong(doc, at) from None
    marks = ("\\ud", "\\uD") if isinstance(text, str) else (b"\\ud", b"\\uD")
    escaped = marks[0] in text or marks[1] in text  # type: ignore[operator]  # a surrogate
    if escaped and not_text(value):  # one without its pair
        doc = text if isinstance(text, str) else bytes(text).decode("utf-8", "replace")
        lone = _LONE_SURROGATE.search(doc)
        raise json.JSONDecodeError(
            "a lone surrogate escape, which is not text (escape a character beyond "
            "U+FFFF as its pair of surrogates, or write it as UTF-8)",
            doc,
            lone.start() if lone else 0,
        )
    return value


_LINE_BREAK = re.compile(r"\r\n|\r|\n")


def json_text_lines(text: str) -> list[str]:
    """The lines of a JSON Lines text, cut at CR LF, CR and LF only. ``str.splitlines`` also
    cuts at U+2028, U+0085, form feeds and other characters that JSON writes unescaped inside
    a string (``json.dumps(..., ensure_ascii=False)``): it would cut such a record in two.
    A line that starts with a byte-order mark (where files were joined: ``cat a.jsonl
    b.jsonl``, each saved with one) starts after it."""
    lines = _LINE_BREAK.split(text)
    if "\ufeff" in text:
        return [line.removeprefix("\ufeff") for line in lines]
    return lines


_CONFLICT = re.compile(r"^(<{7}|>{7})(?: |$)", re.MULTILINE)


def conflict_line(text: str) -> int | None:
    """The line of the first git conflict marker (``<<<<<<<``, ``>>>>>>>``), if any."""
    found = _CONFLICT.search(text)
    return text.count("\n", 0, found.start()) + 1 if found else None


def memory_left() -> int | None:
    """Bytes this process may still allocate under its address-space or data limit
    (``ulimit -v``, ``ulimit -d``), or None when there is no such limit. The native parsers
    (YAML, markdown) abort the whole process when an allocation fails, so input too large
    for what is left is refused before they see it."""
    import resource

    limits = []
    for kind in (resource.RLIMIT_AS, getattr(resource, "RLIMIT_DATA", resource.RLIMIT_AS)):
        soft, _ = resource.getrlimit(kind)
        if soft != resource.RLIM_INFINITY:
            limits.append(soft)
    if not limits:
        return None
    try:
        with open("/proc/self/statm") as f:
            used = int(f.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        used = 0
    return max(min(limits) - used, 0)


def as_path(
    value: object,
    function: str,
    what: str = "the set file's path",
    example: str = "sets/NAME.yaml",
) -> Path:
    """``value``, a path given as text or as a path, as a Path; anything else (None, a
    number, a loaded set) is refused with a sentence rather than failing deep inside
    ``function`` with Python's own words, or being read as a path it does not name."""
    if isinstance(value, str | os.PathLike) and not isinstance(os.fspath(value), bytes):
        return Path(value)
    raise TypeError(
        f"{function}() takes {what} (text or a Path), not {shown(value)}: give it as "
        f"Path({example!r}) or {example!r}."
    )


def shown(value: object) -> str:
    """A wrong argument as a message names it: its type and a short form of its value."""
    import reprlib

    text = repr(os.fspath(value)) if isinstance(value, str | os.PathLike) else reprlib.repr(value)
    return f"{type(value).__name__} {text}"
