"""The edit lock of a set file: held across every step of an edit (read, check, replace), so
that two edits of one set (two commands, two threads, a release and an edit) run one after
the other and neither undoes the other.

In a workspace the lock is a file in its git-ignored ``.evalset/locks/``, one per set file
(however it is reached: through a link, its own name); outside a workspace an ``flock`` on
the set's folder, so that no file is left beside the user's. A lock whose holder died is
free at once. The thread holding a lock that would wait for itself (a second edit of a
file inside the first) is refused at once.
"""

from __future__ import annotations

import hashlib
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from evalset.errors import SetFileError


def _state_dirs(path: Path) -> tuple[Path | None, Path | None]:
    """Where the edit lock of a set file lives, and the folder its temporary file is written
    in (None: beside the file): the workspace's git-ignored ``.evalset/`` when the file lies
    in a workspace; outside one, no file holds the lock (None: ``_folder_lock``). ``path``
    is the file itself (no link to it): a file has one lock however it is named, so that an
    edit through a link and one through the file's own name never run at once; two files
    of the same name in different folders have two."""
    from evalset.config import STATE_DIR, find_workspace
    from evalset.errors import NoWorkspace

    try:
        workspace = find_workspace(path.parent)
    except NoWorkspace:
        return None, None
    where = hashlib.sha256(os.fsencode(path)).hexdigest()[:16]
    state = workspace.root / STATE_DIR
    try:
        from evalset.config import ensure_state_dir

        ensure_state_dir(state)
        (state / "locks").mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise SetFileError(
            f"{state}: cannot hold the edit lock of {path.name} ({exc.strerror}); make the "
            "folder writable, or delete it (it holds only caches and locks)."
        ) from None
    return state / "locks" / f"{path.name[:LOCK_NAME]}.{where}.lock", state / "tmp"


LOCK_NAME = 50
"""Characters of the set file's name kept in its lock's name (at most 200 bytes in UTF-8):
a set file's name may take the 255 bytes a file system allows, and the lock's name adds to
it (the hash of the file's place keeps two long names apart)."""


@dataclass(frozen=True)
class SetLock:
    """The edit lock of one set file, held by this process (see ``set_lock``)."""

    target: Path
    """The file itself, through any link."""
    scratch: Path | None
    """Where its temporary file is written (None: beside it)."""


def refuse_unplain(p: Path) -> None:
    """Refuse a set path to edit that is no regular file (a pipe, such as ``/dev/stdin`` or
    ``<(cat x.yaml)``, a FIFO, a device, a folder): an edit replaces the file, which such a
    path does not name, and its lock would be sought where none can be made. A regular file
    reached through a link (``/dev/stdin`` redirected from one, ``/dev/fd/N``) is edited.
    An edit that reads the set before it takes the lock refuses first: a FIFO's read would
    wait for a writer."""
    import stat

    try:
        mode = os.stat(p).st_mode
    except OSError:
        return  # a set to create, or one that cannot be read: said where it is read
    if stat.S_ISREG(mode):
        return
    if stat.S_ISDIR(mode):
        raise SetFileError(f"{p}: is a folder, not a set file; name a .yaml file in it.")
    kind = (
        "a pipe" if stat.S_ISFIFO(mode)
        else "a socket" if stat.S_ISSOCK(mode)
        else "a device"
    )  # fmt: skip
    raise SetFileError(
        f"{p}: is {kind}, not a set file that can be edited in place; name the set file "
        "itself (its path, or the set's name)."
    )


@dataclass
class _FolderHold:
    """An ``flock`` this process holds on a folder (``_folder_lock``)."""

    fd: int
    owner: tuple[int, int]
    """(process, thread) holding it."""
    count: int = 1
    """How many edits of the folder's sets it holds for, one inside another."""


_FOLDERS: dict[Path, _FolderHold] = {}
"""The folders this process holds the ``flock`` of, for edits outside a workspace."""


@contextmanager
def _folder_lock(folder: Path, p: Path, timeout: float) -> Iterator[None]:
    """The edit lock of a set file outside any workspace (``p``, in ``folder``): an
    ``flock`` on the folder itself, so that no lock file is left beside the user's file (a
    lock file cannot be removed once used: a command waiting on it would lock a file no
    later command sees). Edits of other files in the folder, by other processes or other
    threads, wait for it too; the thread holding it may edit another of the folder's sets
    inside its edit (one set's item moved to another), holding the one ``flock`` for
    both. Where the system has no ``flock`` (Windows), a lock file beside the set file."""
    import time

    try:
        import fcntl
    except ImportError:  # pragma: no cover - Windows
        from filelock import FileLock

        with FileLock(str(folder / f".{p.name[:LOCK_NAME]}.lock"), timeout=timeout):
            yield
        return
    me = (os.getpid(), threading.get_ident())
    hold = _FOLDERS.get(folder)
    if hold is not None and hold.owner == me:
        hold.count += 1
        try:
            yield
        finally:
            hold.count -= 1
        return
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except FileNotFoundError:
        raise SetFileError(f"{p}: no such file; check the path or the set name.") from None
    except OSError as exc:
        raise SetFileError(
            f"{folder}: the edit lock of {p} cannot be taken on its folder ({exc.strerror}); "
            f"make {folder} readable."
        ) from None
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.monotonic() >= deadline:
                    raise SetFileError(
                        f"{p}: another evalset command is editing it or a set beside it (lock "
                        f"held for {timeout:.0f} s); try again when it has finished."
                    ) from None
                time.sleep(0.05)
            except OSError as exc:  # a file system without flock
                raise SetFileError(
                    f"{folder}: the edit lock of {p} cannot be taken on its folder "
                    f"({exc.strerror}); edit the set in a workspace (`evalset init`), whose "
                    "locks are files of its own."
                ) from None
        _FOLDERS[folder] = _FolderHold(fd, me)
        try:
            yield
        finally:
            del _FOLDERS[folder]  # forgotten before it is released (see ``_held_here``)
    finally:
        os.close(fd)  # and with it the lock


def _make_lock_file(lock_file: Path, p: Path) -> None:
    """Create ``lock_file`` (the lock of the set file ``p``) unless it is there: a place
    where it cannot be made is said at once, where the lock library would keep trying
    until its timeout and the edit be refused as if another command held the lock."""
    import errno

    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
    try:
        os.close(os.open(lock_file, flags, 0o644))
    except OSError as exc:
        if exc.errno == errno.EISDIR:
            fix = "remove that folder (evalset makes the file there)"
        elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
            fix = f"make {lock_file.parent} writable"
        else:
            fix = "edit the set file by its path in a folder that can hold a file beside it"
        raise SetFileError(
            f"{lock_file}: the edit lock of {p} cannot be made there ({exc.strerror}); {fix}."
        ) from None


@contextmanager
def set_lock(path: str | os.PathLike[str], timeout: float = 60.0) -> Iterator[SetLock]:
    """Hold the edit lock of a set file, which need not exist yet, over more than one step:
    a release checks, writes, commits and tags under it, and an import that creates a set
    decides under it whether another run created it meanwhile. Edits made meanwhile pass
    it to ``edit_set(path, held=...)``. A lock whose holder was killed is free at once (an
    ``flock``, released by the system when the holder dies)."""
    from filelock import FileLock, Timeout

    p = Path(path)
    refuse_unplain(p)
    target = Path(os.path.realpath(p))  # the file itself, through any link
    lock_file, scratch = _state_dirs(target)
    held_as = lock_file if lock_file is not None else target  # outside a workspace: the file
    _refuse_held_here(p, held_as)
    if lock_file is None:
        with _folder_lock(target.parent, p, timeout), _held_here(held_as):
            yield SetLock(target, scratch)
        return
    _make_lock_file(lock_file, p)
    lock = FileLock(str(lock_file), timeout=timeout)
    try:
        lock.acquire()
    except Timeout:
        raise SetFileError(
            f"{p}: another evalset command is editing it (lock held for {timeout:.0f} s); "
            "try again when it has finished."
        ) from None
    except OSError as exc:
        raise SetFileError(
            f"{lock_file}: the edit lock of {p} cannot be taken ({exc.strerror}); make "
            f"{lock_file.parent} writable."
        ) from None
    try:
        with _held_here(lock_file):
            yield SetLock(target, scratch)
    finally:
        lock.release()


_HELD: dict[Path, tuple[int, int]] = {}
"""The edit locks this process holds: lock file -> (process, thread) holding it. Another
thread waits for a lock as another process does; the thread holding it would wait for
itself (a second ``edit_set`` of a file inside the first), so that is refused at once. The
process is recorded too: a child forked meanwhile holds nothing."""


def _refuse_held_here(p: Path, lock_file: Path) -> None:
    if _HELD.get(lock_file) == (os.getpid(), threading.get_ident()):
        raise SetFileError(
            f"{p}: is already being edited in this process (an edit_set or set_lock of it is "
            "still open here), and a second edit would wait for the first to end; make the "
            "changes in that one edit_set, or pass the lock held to edit_set(path, held=...)."
        )


@contextmanager
def _held_here(lock_file: Path) -> Iterator[None]:
    """Record the lock as held by this thread while it is (see ``_HELD``); forgotten before
    it is released, so that the next holder's record is never the one removed."""
    _HELD[lock_file] = (os.getpid(), threading.get_ident())
    try:
        yield
    finally:
        del _HELD[lock_file]
