"""The content stores a corpus document may be a symlink into: DVC's cache (``cache.type
symlink`` links each document into it) and git-annex's objects. Each holds a content once,
under its hash, so a link into one is followed as the document it stands for; a link into
one whose content this clone does not hold is a document not pulled (see
``evalset.corpus.tracked``).
"""

from __future__ import annotations

import functools
import os
import re
from pathlib import Path

DVC_PULL = "`dvc pull`"
GIT_ANNEX_GET = "`git annex get`"


@functools.lru_cache(maxsize=8)
def _stores(corpus: str) -> tuple[tuple[str, str], ...]:
    """(real path, fix) of the content stores of the repository holding ``corpus``: DVC's
    cache (``cache.dir`` of ``.dvc/config.local`` or ``.dvc/config``, else ``.dvc/cache``)
    and git-annex's object folder."""
    found: list[tuple[str, str]] = []
    folder = Path(corpus).absolute()
    dvc_seen = False
    for here in (folder, *folder.parents):
        if not dvc_seen and (here / ".dvc").is_dir():
            dvc_seen = True
            found.append((os.path.realpath(_dvc_cache_dir(here / ".dvc")), DVC_PULL))
        if (here / ".git").exists():
            if (here / ".git").is_dir():
                found.append((os.path.realpath(here / ".git" / "annex" / "objects"), GIT_ANNEX_GET))
            break
    return tuple(found)


_CACHE_DIR = re.compile(r"^\s*dir\s*=\s*(.*?)\s*$")


def _dvc_cache_dir(dvc_folder: Path) -> Path:
    """DVC's cache folder as the repository's configuration sets it (a relative ``dir`` is
    taken from the configuration's folder, as DVC takes it)."""
    for name in ("config.local", "config"):
        try:
            text = (dvc_folder / name).read_text("utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        section = ""
        for line in text.splitlines():
            stripped = line.strip()
            if stripped.startswith("["):
                section = stripped.strip("[]'\" ").lower()
            elif section == "cache" and (m := _CACHE_DIR.match(line)):
                return dvc_folder / os.path.expanduser(m.group(1).strip("'\""))
    return dvc_folder / "cache"


def store_of(target: str, corpus: str) -> str | None:
    """The fix that brings the content of ``target`` (a real path) when it lies in one of
    the content stores of the repository holding ``corpus`` (see ``_stores``); else None."""
    for store, fix in _stores(corpus):
        if target.startswith(store + os.sep):
            return fix
    return None


def dvc_cache(corpus: str) -> str | None:
    """The real path of DVC's cache for the repository holding ``corpus``; None outside a
    DVC repository."""
    return next((store for store, fix in _stores(corpus) if fix == DVC_PULL), None)
