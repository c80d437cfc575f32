"""The snapshot's stat cache in ``.evalset/``: the last walk's folder listings (read on
every run), every document's stat signature, row digest and section count (read when
something changed), and a link to the manifest of the cached state, whose lines are reused
for the documents that did not change. Anything unreadable in it only costs speed."""

from __future__ import annotations

import contextlib
import marshal
import os
import sys
from array import array
from bisect import bisect_left
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from evalset.bulk import bulk
from evalset.corpus.manifest import (
    read_snapshot,
)
from evalset.corpus.table import LazyDocuments, find_sorted, strictly_sorted
from evalset.corpus.walk import Listing
from evalset.errors import EvalsetError
from evalset.fsio import read_found, replace_cache

QUICK = "snapshot-listing.marshal"


LISTING = 3
"""Version of what QUICK holds (the folder listings, and the plug-ins as `format_specs`)."""


def folder_docs(top: str, folder: str, listing: Listing) -> Iterator[str]:
    """The document ids a folder's listing names (any of them may be of an unknown type)."""
    prefix = folder[len(top) + 1 :].replace(os.sep, "/") + "/" if folder != top else ""
    if listing[0]:
        for name in listing[0].split("\0"):
            yield prefix + name


def installed_stamp() -> tuple[tuple[str, int], ...]:
    """The modification times of the folders installed packages live in (sys.path after
    the script's own folder): they change when a distribution, and so a plug-in, is added,
    removed or upgraded. Cheap where reading every entry point is not (~0.1 s)."""
    found = []
    for folder in sys.path[1:]:
        try:
            found.append((folder, os.stat(folder).st_mtime_ns))
        except OSError:
            continue
    return tuple(found)


def spliced(
    names: list[str], skipped: Iterable[str], inserted: Iterable[str]
) -> Iterator[tuple[int, int] | str]:
    """How to make the sorted ``names`` into the sorted names without ``skipped`` and with
    ``inserted``: runs ``(first, stop)`` of ``names`` to keep, and each inserted name, in
    order. The places where something changes are found by bisection, so a few changes in a
    long table cost a few steps."""
    skips = {i for doc in skipped if (i := find_sorted(names, doc)) >= 0}
    events = sorted(
        [(i, 0, "") for i in skips] + [(bisect_left(names, doc), 1, doc) for doc in inserted]
    )
    cursor = 0
    for pos, kind, doc in events:
        if pos > cursor:
            yield cursor, pos
            cursor = pos
        if kind == 0:
            cursor = pos + 1
        else:
            yield doc
    if cursor < len(names):
        yield cursor, len(names)


Row = tuple[tuple[int, int, int, int], str, int]
"""A document's cache row: its stat signature, row digest and section count."""


DIGEST = 32
"""Hex digits of a row digest."""


@dataclass
class Rows:
    """Every document's cache row, in columns in the order of the names: one list, two
    arrays and one string, which marshal stores and loads as four blocks (a dictionary of
    50,000 rows took 0.08 s to load). A few changed rows make a new table by copying the
    runs between them (``updated``), and the snapshot id is one hash over ``digests``."""

    names: list[str] = field(default_factory=list)
    signatures: array[int] = field(default_factory=lambda: array("q"))
    """Four numbers per document (``Scan.files``)."""
    digests: str = ""
    """The row digests, concatenated."""
    counts: array[int] = field(default_factory=lambda: array("q"))

    @classmethod
    def of(cls, rows: dict[str, Row]) -> Rows:
        table = cls(sorted(rows))
        for doc in table.names:
            table.signatures.extend(rows[doc][0])
            table.counts.append(rows[doc][2])
        table.digests = "".join([rows[doc][1] for doc in table.names])
        return table

    @classmethod
    def load(cls, data: Any) -> Rows | None:
        """The table ``dump`` gave; None for anything else."""
        try:
            names = data["names"].split("\0") if data["names"] else []
            table = cls(names, array("q"), data["digests"], array("q"))
            table.signatures.frombytes(data["signatures"])
            table.counts.frombytes(data["counts"])
        except (KeyError, TypeError, ValueError, AttributeError):
            return None
        n = len(names)
        if len(table.signatures) != 4 * n or len(table.counts) != n:
            return None
        if not strictly_sorted(names):  # rows are found by bisection
            return None
        if not isinstance(table.digests, str) or len(table.digests) != DIGEST * n:
            return None
        return table

    def dump(self) -> dict[str, Any]:
        return {
            "names": "\0".join(self.names),
            "signatures": self.signatures.tobytes(),
            "digests": self.digests,
            "counts": self.counts.tobytes(),
        }

    def find(self, doc: str) -> int:
        return find_sorted(self.names, doc)

    def get(self, doc: str) -> Row | None:
        i = self.find(doc)
        if i < 0:
            return None
        sig = self.signatures[4 * i : 4 * i + 4]
        return (
            (sig[0], sig[1], sig[2], sig[3]),
            self.digests[DIGEST * i : DIGEST * (i + 1)],
            self.counts[i],
        )

    def __contains__(self, doc: str) -> bool:
        return self.find(doc) >= 0

    def __len__(self) -> int:
        return len(self.names)

    @property
    def sections(self) -> int:
        return sum(self.counts)

    def size_of(self, docs: Iterable[str]) -> int:
        """The bytes of the documents among ``docs`` that the table has."""
        return sum(self.signatures[4 * i + 1] for i in map(self.find, docs) if i >= 0)

    @property
    def total_size(self) -> int:
        return sum(self.signatures[1::4])

    def updated(self, dropped: Iterable[str], put: dict[str, Row]) -> Rows:
        """This table without the rows of ``dropped`` and with the rows of ``put`` (which
        replace any of the same name)."""
        out = Rows()
        digests: list[str] = []
        for step in spliced(self.names, (*dropped, *put), put):
            if isinstance(step, str):
                signature, digest, count = put[step]
                out.names.append(step)
                out.signatures.extend(signature)
                digests.append(digest)
                out.counts.append(count)
            else:
                first, stop = step
                out.names.extend(self.names[first:stop])
                out.signatures.extend(self.signatures[4 * first : 4 * stop])
                digests.append(self.digests[DIGEST * first : DIGEST * stop])
                out.counts.extend(self.counts[first:stop])
        out.digests = "".join(digests)
        return out


_HEX = frozenset("0123456789abcdef")


def is_id(value: Any) -> bool:
    """A snapshot id: 64 lower-case hex digits (what names a manifest file)."""
    return isinstance(value, str) and len(value) == 64 and _HEX.issuperset(value)


def _sound_listing(listing: Any) -> bool:
    if not (isinstance(listing, tuple) and len(listing) == 4):
        return False
    names, signatures, unknown, warnings = listing
    if not (isinstance(names, str) and isinstance(signatures, bytes)):
        return False
    count = names.count("\0") + 1 if names else 0
    if len(signatures) != 32 * count:
        return False
    pairs_ok = isinstance(unknown, tuple) and all(
        isinstance(p, tuple) and len(p) == 2 and isinstance(p[0], str) and isinstance(p[1], int)
        for p in unknown
    )
    return pairs_ok and isinstance(warnings, tuple) and all(isinstance(w, str) for w in warnings)


def _sound_quick(data: Any) -> bool:
    """Whether ``data`` has the shape ``save_quick`` gives it (see ``read_working_tree``)."""
    if not isinstance(data, dict):
        return False
    try:
        counts = [data["documents"], data["sections"]]
        if not all(isinstance(n, int) and not isinstance(n, bool) and n >= 0 for n in counts):
            return False
        plugins, listing = data["plugins"], data["listing"]
        if not is_id(data["id"]) or not isinstance(data["settings"], tuple):
            return False
        if not (isinstance(plugins, tuple) and all(isinstance(p, str) for p in plugins)):
            return False
        return isinstance(listing, dict) and all(
            isinstance(folder, str) and _sound_listing(entry) for folder, entry in listing.items()
        )
    except (KeyError, TypeError):
        return False


class StatCache:
    """The stat cache in ``.evalset/``: the folder listings (read on every run), an index of
    every document's signature, row digest and section count (read when something changed),
    and a hard link to the manifest of the cached state, whose lines are reused for the
    documents that did not change."""

    def __init__(self, state_dir: Path, key: tuple[Any, ...]) -> None:
        self.index_path = state_dir / "snapshot-index.marshal"
        self.state_dir = state_dir
        self.key = key

    @staticmethod
    def quick(state_dir: Path) -> dict[str, Any]:
        """The last scan's folder listings and result (marshal: loads in a millisecond); {}
        when the file is missing, is no file (a FIFO, which would wait) or holds anything
        but what ``save_quick`` writes: a cache file is never trusted further than its
        shape."""
        try:
            blob = read_found(state_dir / QUICK)
            with bulk():
                data = marshal.loads(blob)
        except (OSError, EOFError, ValueError, TypeError, MemoryError):
            return {}
        return data if _sound_quick(data) else {}

    def save_quick(self, data: dict[str, Any]) -> None:
        replace_cache(self.state_dir / QUICK, marshal.dumps(data))

    def index(self) -> tuple[str | None, Rows]:
        """The cached state's id and rows (none when the cache is of other settings)."""
        try:
            blob = read_found(self.index_path)
            cached = marshal.loads(blob)
        except (OSError, EOFError, ValueError, TypeError, MemoryError):
            return None, Rows()
        if not isinstance(cached, dict) or cached.get("key") != self.key:
            return None, Rows()
        rows, ident = Rows.load(cached.get("rows")), cached.get("id")
        if rows is None or not is_id(ident):
            return None, Rows()
        return ident, rows

    def save(self, ident: str, rows: Rows) -> None:
        """Keep the rows; a state folder that cannot be written costs only speed."""
        try:
            self.state_dir.mkdir(parents=True, exist_ok=True)
        except OSError:
            return
        blob = marshal.dumps({"key": self.key, "id": ident, "rows": rows.dump()})
        replace_cache(self.index_path, blob)
        for obsolete in ("snapshot-index.pickle", "snapshot-lines.pickle"):  # earlier layout
            with contextlib.suppress(OSError):
                (self.state_dir / obsolete).unlink(missing_ok=True)


def keep_base(state_dir: Path, manifest: Path) -> None:
    """Copy the manifest of the cached state into ``.evalset/base/``, so that its lines are
    at hand even after a checkout removes it from ``snapshots/``. A copy, never a hard
    link: damage to the cache must never reach a committed file (a link left by an earlier
    evalset is replaced by a copy). Its name is its content id, so a copy of the same size
    is taken as current; it is checked against its id when it is read."""
    folder = state_dir / "base"
    target = folder / manifest.name
    try:
        if target.exists():
            linked = os.path.samefile(target, manifest)
            if not linked and target.stat().st_size == manifest.stat().st_size:
                return
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        import shutil

        tmp = folder / f".{manifest.name}.{os.getpid()}.tmp"
        shutil.copyfile(manifest, tmp)
        os.replace(tmp, target)
    except OSError:
        return  # only speed is lost


def base_table(snapshots_dir: Path, state_dir: Path, ident: str | None) -> LazyDocuments | None:
    """The document table of the manifest with id ``ident``: from ``snapshots/``, else from
    the cache's link; None when neither is readable."""
    if ident is None:
        return None
    for path in (snapshots_dir / f"{ident}.json", state_dir / "base" / f"{ident}.json"):
        if not path.is_file():
            continue
        try:
            documents = read_snapshot(path, True, state_dir / "manifests").documents
        except EvalsetError:  # damaged: the files are read again instead
            continue
        if isinstance(documents, LazyDocuments) and not documents.legacy:
            return documents
    return None
