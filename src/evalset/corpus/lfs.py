"""Git LFS pointer files where corpus documents should be.

A repository that keeps its corpus in Git LFS holds, in git, a small pointer file per
document that names the content by its SHA-256; the content comes with ``git lfs pull``. A
checkout that skipped it (GitHub's ``actions/checkout`` does, unless told ``lfs: true``; so
does ``GIT_LFS_SKIP_SMUDGE=1``) has the pointers where the documents should be. Read as
text, a pointer is a document without sections: a snapshot would record every section of
it as removed, and every item citing it as stale. So a pointer is never read as a document:
the working tree's is refused with the fix, and one read from git's history (where every
LFS document is a pointer) is replaced by the content when the clone has it.

Pointers are parsed by scmrepo (DVC's git layer, already a dependency), imported only for
a file that starts like one.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
from pathlib import Path
from typing import TYPE_CHECKING

from evalset import gitcmd
from evalset.fsio import read_found

if TYPE_CHECKING:
    from scmrepo.git.lfs.pointer import Pointer

POINTER_LIMIT = 1024
"""git-lfs writes pointer files smaller than this (its specification): nothing longer is
one, whatever it starts with."""

FETCH = "`git lfs pull`, or in GitHub Actions check out with `lfs: true`"


def pointer(data: bytes) -> Pointer | None:
    """The LFS pointer that ``data`` is, or None when it is anything else (a document about
    Git LFS that quotes a pointer is longer, or does not parse as one)."""
    if len(data) >= POINTER_LIMIT or not data.lstrip(b"\n").startswith(b"version https://"):
        return None
    from scmrepo.git.lfs.pointer import HEADERS, Pointer

    if not data.lstrip(b"\n").startswith(tuple(HEADERS)):
        return None
    try:
        return Pointer.load(io.BytesIO(data))
    except ValueError:
        pass
    # git-lfs reads a pointer between blank lines as the pointer (`git lfs pointer --check`
    # accepts it); scmrepo's parser stops at the first one
    trimmed = data.strip(b"\n") + b"\n"
    if trimmed == data:
        return None
    try:
        return Pointer.load(io.BytesIO(trimmed))
    except ValueError:  # (UnicodeDecodeError included)
        return None


def not_fetched(name: str) -> str:
    """Why a file of the working tree that is a pointer cannot be read, with the fix."""
    return f"{name}: is a Git LFS pointer whose content this checkout did not fetch; run {FETCH}"


def content(repo: Path, data: bytes) -> bytes:
    """``data`` read from git: the document itself when it is an LFS pointer whose content
    this clone holds (checked against the pointer's SHA-256), else ``data`` unchanged.
    Nothing is fetched."""
    found = pointer(data)
    if found is None:
        return data
    storage = _storage(repo.resolve())
    if storage is None:
        return data
    from scmrepo.git.lfs.storage import LFSStorage

    try:  # (a named pipe where the object goes is none: never waited on)
        held = read_found(Path(LFSStorage(storage).oid_to_path(found.oid)))
    except OSError:
        return data
    return held if hashlib.sha256(held).hexdigest() == found.oid else data


@functools.cache
def _storage(repo: Path) -> str | None:
    """The repository's LFS object store: ``lfs.storage`` when set (relative to the git
    folder), else ``lfs`` in the git folder, as git-lfs and scmrepo place it."""
    try:
        common = gitcmd.run(repo, "rev-parse", "--git-common-dir")
        configured = gitcmd.run(repo, "config", "--get", "lfs.storage")
    except OSError:
        return None
    if common.returncode != 0:
        return None
    git_dir = repo / common.stdout.strip()
    chosen = configured.stdout.strip() if configured.returncode == 0 else ""
    return os.path.join(git_dir, chosen or "lfs")
