"""The content stores a corpus document may be a symlink into: DVC's cache (``cache.type
symlink`` links each document into it) and git-annex's objects. Each holds a content once,
under its hash, so a link into one is followed as the document it stands for; a link into
one whose content this clone does not hold is a document not pulled (see
``evalset.corpus.tracked``).
"""

from __future__ import annotations

import functools
import os
from pathlib import Path

DVC_PULL = "`dvc pull`"
GIT_ANNEX_GET = "`git annex get`"


@functools.lru_cache(maxsize=8)
def _stores(corpus: str) -> tuple[tuple[str, str], ...]:
    """(real path, fix) of the content stores of the repository holding ``corpus``: DVC's
    cache (see ``_dvc_cache_dir``) and git-annex's object folder."""
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


def _dvc_cache_dir(dvc_folder: Path) -> Path:
    """DVC's cache folder as DVC reads its configuration: ``cache.dir`` of the repository's
    ``.dvc/config.local`` and ``.dvc/config``, else of the user's and the system's
    configuration (a cache shared by every repository of a machine is often set there, and
    ``DVC_GLOBAL_CONFIG_DIR``/``DVC_SYSTEM_CONFIG_DIR`` move them), a relative ``dir`` taken
    from its file's folder; else ``.dvc/cache``. A configuration DVC cannot read leaves the
    default (DVC itself refuses to run with it). DVC's reader is imported only here: only
    a link out of the corpus, or a document DVC tracks and the folder lacks, asks."""
    from dvc.config import Config, ConfigError

    try:
        found = Config(dvc_dir=str(dvc_folder), validate=False)["cache"].get("dir")
    except (ConfigError, OSError, ValueError):
        found = None
    return Path(found) if isinstance(found, str) and found else dvc_folder / "cache"


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
