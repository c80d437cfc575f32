"""Taking snapshots: reading the corpus (working tree, or a git revision through DVC).

Working-tree snapshots are incremental. A stat cache in ``.evalset/`` keeps, per file, its
stat signature (mtime, size, inode, ctime), its table-row digest and its manifest line;
and, per folder, the names and signatures it listed, so:

- an unchanged corpus costs a walk, one ``stat`` per file and one comparison per folder
  against a listing that loads in a millisecond, and reuses the cached id without building
  or writing anything;
- a folder whose listing is unchanged is not looked at file by file;
- a changed corpus reads only the changed files, and writes the new manifest by joining
  the cached lines of every other document.
"""

from __future__ import annotations

import marshal
import os
import subprocess
import sys
from array import array
from bisect import bisect_left
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from evalset.bulk import bulk
from evalset.corpus import SECTIONING_VERSION, HashMode, format_specs, sectioner_for, use_formats
from evalset.corpus.manifest import (
    FORMAT,
    MANIFEST_TAIL,
    SHORT,
    Changes,
    Document,
    LazyDocuments,
    Snapshot,
    SnapshotError,
    SnapshotStore,
    compare,
    document_entry,
    document_line,
    document_record,
    find_sorted,
    id_of_digests,
    id_of_ordered,
    json_string,
    manifest_head,
    parse_line,
    read_snapshot,
    row_digest,
    save_index,
    strictly_sorted,
)
from evalset.corpus.walk import Listing, Scan, Signature, scan
from evalset.corpus.workers import Shared
from evalset.fsio import atomic_write, replace_cache

TEXT_LIMIT = 20_000_000
"""Below this many bytes of corpus, section text is stored in the manifest (config store_text)."""
PARALLEL_FROM = 256
"""Read files in worker processes when at least this many need reading."""
PROGRESS_FROM = 2_000
QUICK = "snapshot-listing.marshal"
LISTING = 3
"""Version of what QUICK holds (the folder listings, and the plug-ins as `format_specs`)."""


@dataclass
class ReadResult:
    """One file read and sectioned: its manifest line, row digest and section count."""

    doc: str
    line: str | None = None
    digest: str | None = None
    sections: int = 0
    warning: str | None = None
    entry: Document | None = None
    with_text: str | None = None
    """The manifest line with the text stored, when both lines were asked for."""


def parse_document(
    doc: str, data: bytes, mode: HashMode, store_text: bool | None, entry: bool = True
) -> ReadResult:
    """Section one document's bytes; binary files are skipped and bad UTF-8 replaced, with a
    warning naming the file. ``entry=False`` gives only the manifest line and digest;
    ``store_text=None`` gives the line without the text and, in ``with_text``, the line
    with it (and no entry)."""
    sectioner = sectioner_for(doc)
    if sectioner is None:
        return ReadResult(doc)
    if b"\x00" in data[:8192]:
        return ReadResult(doc, warning=f"{doc}: looks binary (NUL bytes); skipped")
    warning = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", "replace")
        warning = f"{doc}: is not valid UTF-8 (byte {exc.start}); read with replacement characters"
    parsed = sectioner(text.removeprefix("\ufeff"), mode)
    line, digest = document_record(doc, parsed, bool(store_text))
    if store_text is None:
        with_text = document_record(doc, parsed, True)[0]
        return ReadResult(doc, line, digest, len(parsed.sections), warning, None, with_text)
    table = document_entry(parsed, store_text) if entry else None
    return ReadResult(doc, line, digest, len(parsed.sections), warning, table)


Job = tuple[str, str, HashMode, bool | None, int]
"""A file to read: its path, document id, hash mode, whether to store text (None: make the
lines with and without it), and its size when it was listed."""

ONE_READ = 0x7FFFF000
"""The most one ``read`` returns on Linux."""


def read_bytes(path: str, size: int) -> bytes:
    """A file's bytes in one ``read`` of the size it was listed with (and one byte more, to
    notice growth): half the time of ``open().read()``, which asks for the size again and
    reads twice."""
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0))
    try:
        data = os.read(fd, size + 1)
        if len(data) > size or len(data) >= ONE_READ:  # it grew, or is too large for one read
            parts = [data]
            while chunk := os.read(fd, 1 << 24):
                parts.append(chunk)
            data = b"".join(parts)
    finally:
        os.close(fd)
    return data


def _read_file(job: Job) -> ReadResult:
    path, doc, mode, store_text, size = job
    try:
        data = read_bytes(path, size)
    except OSError as exc:
        return ReadResult(doc, warning=f"!{path}: cannot be read ({exc.strerror})")
    return parse_document(doc, data, mode, store_text, entry=False)


def _folder_docs(top: str, folder: str, listing: Listing) -> Iterator[str]:
    """The document ids a folder's listing names (any of them may be of an unknown type)."""
    prefix = folder[len(top) + 1 :].replace(os.sep, "/") + "/" if folder != top else ""
    if listing[0]:
        for name in listing[0].split("\0"):
            yield prefix + name


ReadRow = tuple[str, str | None, str | None, int, str | None, str | None]


def _read_row(job: Job) -> ReadRow:
    """``_read_file`` as a tuple (document, line, digest, section count, warning, line with
    the text), which the helpers of ``workers.Shared`` pass back."""
    r = _read_file(job)
    return r.doc, r.line, r.digest, r.sections, r.warning, r.with_text


def _progress_bar(total: int) -> tuple[Callable[[int], None] | None, Callable[[], None]]:
    import sys

    if total < PROGRESS_FROM or not sys.stderr.isatty():
        return None, lambda: None
    from rich.progress import Progress

    bar = Progress(transient=True)
    bar.start()
    task = bar.add_task("reading corpus", total=total)
    return (lambda n: bar.advance(task, n)), bar.stop


def _git(root: Path, *args: str) -> str | None:
    try:
        done = subprocess.run(["git", *args], cwd=root, capture_output=True, text=True, check=False)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _installed() -> tuple[tuple[str, int], ...]:
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


def _spliced(
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
class _Rows:
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
    def of(cls, rows: dict[str, Row]) -> _Rows:
        table = cls(sorted(rows))
        for doc in table.names:
            table.signatures.extend(rows[doc][0])
            table.counts.append(rows[doc][2])
        table.digests = "".join([rows[doc][1] for doc in table.names])
        return table

    @classmethod
    def load(cls, data: Any) -> _Rows | None:
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

    def updated(self, dropped: Iterable[str], put: dict[str, Row]) -> _Rows:
        """This table without the rows of ``dropped`` and with the rows of ``put`` (which
        replace any of the same name)."""
        out = _Rows()
        digests: list[str] = []
        for step in _spliced(self.names, (*dropped, *put), put):
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


class _Cache:
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
        """The last scan's folder listings and result (marshal: loads in a millisecond)."""
        try:
            blob = (state_dir / QUICK).read_bytes()
            with bulk():
                data = marshal.loads(blob)
        except (OSError, EOFError, ValueError, TypeError):
            return {}
        return data if isinstance(data, dict) else {}

    def save_quick(self, data: dict[str, Any]) -> None:
        replace_cache(self.state_dir / QUICK, marshal.dumps(data))

    def index(self) -> tuple[str | None, _Rows]:
        """The cached state's id and rows (none when the cache is of other settings)."""
        try:
            blob = self.index_path.read_bytes()
            cached = marshal.loads(blob)
        except (OSError, EOFError, ValueError, TypeError):
            return None, _Rows()
        if not isinstance(cached, dict) or cached.get("key") != self.key:
            return None, _Rows()
        rows, ident = _Rows.load(cached.get("rows")), cached.get("id")
        if rows is None or not isinstance(ident, str):
            return None, _Rows()
        return ident, rows

    def save(self, ident: str, rows: _Rows) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        blob = marshal.dumps({"key": self.key, "id": ident, "rows": rows.dump()})
        replace_cache(self.index_path, blob)
        for obsolete in ("snapshot-index.pickle", "snapshot-lines.pickle"):  # earlier layout
            (self.state_dir / obsolete).unlink(missing_ok=True)


def _keep_base(state_dir: Path, manifest: Path) -> None:
    """Hard-link the manifest of the cached state into ``.evalset/base/``, so that its lines
    are at hand even after a checkout removes it from ``snapshots/`` (a copy where links
    are not possible)."""
    folder = state_dir / "base"
    target = folder / manifest.name
    try:
        if target.exists() and os.path.samefile(target, manifest):
            return
        folder.mkdir(parents=True, exist_ok=True)
        for old in folder.iterdir():
            old.unlink()
        try:
            os.link(manifest, target)
        except OSError:
            import shutil

            shutil.copy2(manifest, target)
    except OSError:
        return  # only speed is lost


def _base(snapshots_dir: Path, state_dir: Path, ident: str | None) -> LazyDocuments | None:
    """The document table of the manifest with id ``ident``: from ``snapshots/``, else from
    the cache's link; None when neither is readable."""
    if ident is None:
        return None
    for path in (snapshots_dir / f"{ident}.json", state_dir / "base" / f"{ident}.json"):
        if not path.is_file():
            continue
        try:
            documents = read_snapshot(path, False, state_dir / "manifests").documents
        except SnapshotError:
            continue
        if isinstance(documents, LazyDocuments) and not documents.legacy:
            return documents
    return None


@dataclass
class _Tree:
    """The working tree read through the cache."""

    id: str
    documents: int
    sections: int
    rows: _Rows | None
    """Every document's cache row; None when nothing changed since the cached state."""
    fresh: dict[str, str]
    """The manifest lines of the documents that were read; the others are the cached
    state's (``base_id``)."""
    warnings: list[str]
    base_id: str | None
    reread: int = 0
    """How many files were read."""
    known: _Rows = field(default_factory=_Rows)
    """The cached state's rows."""
    gone: set[str] = field(default_factory=set)
    """The cached state's documents that are no longer there."""


def _scan_warnings(found: Scan) -> list[str]:
    warnings = list(found.warnings)
    for ext, count in sorted(found.unknown.items()):
        warnings.append(f"{count} file(s) of type {ext!r} skipped: no sectioner for that format")
    return warnings


def read_working_tree(
    corpus: Path, state_dir: Path, mode: HashMode, store_text: bool | None, every: bool = False
) -> _Tree:
    """The corpus folder, reading only files whose stat (mtime, size, inode, ctime) changed,
    and looking only at the files of folders whose listing changed; ``every`` reads every
    file (when the cached state's manifest is gone)."""
    if not corpus.is_dir():
        raise SnapshotError(
            f"{corpus}: the corpus folder does not exist; check `corpus` in the config."
        )
    top = str(corpus)
    settings = (str(corpus.resolve()), mode, store_text, FORMAT, SECTIONING_VERSION, LISTING)
    quick = {} if every else _Cache.quick(state_dir)
    installed = _installed()
    usable = quick.get("settings") == settings and quick.get("installed") == installed
    previous: dict[str, Listing] | None = quick["listing"] if usable else None
    # Nothing installed since the cached run: its plug-ins are still the ones.
    use_formats(quick["plugins"] if usable else None)
    # The files to read are handed to the readers as the walk finds them, so reading starts
    # while the walk goes on; the cache's rows are loaded when a first file needs them.
    plugins = quick["plugins"] if usable else None
    loaded: list[tuple[str | None, _Rows]] = []

    def cached() -> tuple[str | None, _Rows]:
        if not loaded:
            nonlocal plugins
            plugins = plugins if plugins is not None else format_specs()
            key = (settings[0], mode, store_text, FORMAT, SECTIONING_VERSION, plugins)
            loaded.append((None, _Rows()) if every else _Cache(state_dir, key).index())
        return loaded[0]

    put: dict[str, Row] = {}
    read: set[str] = set()
    listed = 0  # bytes of the files this walk found so far: no more than the corpus has

    def consider(doc: str, path: str, signature: Signature) -> None:
        nonlocal listed
        listed += signature[1]
        if doc in read:  # found by an earlier walk
            return
        hit = cached()[1].get(doc)
        if hit is not None and hit[0] == signature:
            put[doc] = hit
            return
        read.add(doc)
        # Below the threshold so far, the text may yet be stored: both lines are made.
        store = store_text if store_text is not None else (False if listed >= TEXT_LIMIT else None)
        shared.add((path, doc, mode, store, signature[1]))

    with Shared(_read_row, start_at=PARALLEL_FROM) as shared:
        found = scan(corpus, previous, consider)
        warnings = _scan_warnings(found)
        if previous is not None and len(found.same) == len(found.listing) == len(previous):
            return _Tree(
                quick["id"], quick["documents"], quick["sections"], None, {}, warnings, quick["id"]
            )
        base_id, known = cached()
        dropped = _carry(top, found, base_id, quick) if found.same else None
        if found.same and dropped is None:
            listed = 0
            found = scan(corpus, None, consider)  # the listing and the cache are of other states
        carried = 0
        if dropped is not None:  # the rows of the folders listed as before are the cache's
            carried = known.total_size - known.size_of(dropped)
        total = carried + found.total_bytes
        store = total < TEXT_LIMIT if store_text is None else store_text
        fresh: dict[str, str] = {}
        advance, stop = _progress_bar(shared.count)
        try:
            for doc, line, digest, count, warning, with_text in shared.results(advance):
                if warning and warning.startswith("!"):
                    raise SnapshotError(
                        f"{warning[1:]}; fix its permissions or move it out of the corpus."
                    )
                if warning:
                    warnings.append(warning)
                if line is not None and digest is not None:
                    fresh[doc] = with_text if store and with_text is not None else line
                    put[doc] = (found.files[doc], digest, count)
        finally:
            stop()
    assert plugins is not None
    cache = _Cache(state_dir, (settings[0], mode, store_text, FORMAT, SECTIONING_VERSION, plugins))
    if dropped is not None:
        rows = known.updated(dropped, put)
        gone = {doc for doc in dropped if doc not in put and doc in known}
    else:
        rows = _Rows.of(put)
        gone = set(known.names) - put.keys()
    ident = id_of_ordered(rows.digests)
    sections = rows.sections
    if read or len(known) != len(rows) or base_id != ident:
        cache.save(ident, rows)
    cache.save_quick(
        {
            "settings": settings, "installed": installed, "plugins": plugins, "id": ident,
            "documents": len(rows), "sections": sections, "listing": found.listing,
        }
    )  # fmt: skip
    return _Tree(ident, len(rows), sections, rows, fresh, warnings, base_id, len(read), known, gone)


def _carry(top: str, found: Scan, base_id: str | None, quick: dict[str, Any]) -> set[str] | None:
    """The names the cache's rows may hold in the folders that changed or went away: every
    other row is carried over as it is. None when the listing and the index are of
    different states (left by an interrupted run)."""
    previous: dict[str, Listing] = quick.get("listing", {})
    if base_id is None or base_id != quick.get("id"):
        return None
    dropped: set[str] = set()
    for folder, listing in previous.items():
        if found.listing.get(folder) is not listing:  # changed, or gone
            dropped.update(_folder_docs(top, folder, listing))
    return dropped


def _changes(tree: _Tree, base: LazyDocuments) -> Changes:
    """What changed since the cached state, parsing only the documents that were read."""
    assert tree.rows is not None
    known, rows = tree.known, tree.rows
    changes = Changes()
    changes.added = sorted(doc for doc in tree.fresh if doc not in known)
    changes.removed = sorted(tree.gone)
    for doc in sorted(tree.fresh):
        before, after = known.get(doc), rows.get(doc)
        if before is None or after is None or after[1] == before[1] or doc not in base:
            continue
        old = Snapshot("", "", "", None, None, "rendered", {doc: base[doc]})
        new = Snapshot("", "", "", None, None, "rendered", dict([parse_line(tree.fresh[doc])]))
        changes.changed.update(compare(old, new).changed)
    return changes


Spans = tuple[list[str], "array[int]"]
"""Document names in order, and per name its value's start and end (``LazyDocuments``)."""


Chunks = list[bytes | memoryview]


def _body(
    tree: _Tree, base: LazyDocuments | None, start: int
) -> tuple[Chunks, Spans | None] | None:
    """The manifest's document lines, in order, as chunks to be joined by ``,\\n``: the lines
    read now, and runs of the cached state's manifest copied as they stand between them (all
    of it when nothing changed). Also each document's byte span in the new manifest when its
    first line starts at ``start`` (None unless it is ASCII), so that its index is written
    with it. None when a line is missing, or the base is not in the sorted order it is
    written in."""
    fresh = tree.fresh
    chunks: Chunks = []
    names_out: list[str] = []
    bounds_out = array("q")
    at = start  # where the next chunk starts, before its separator
    plain = True

    def add(chunk: bytes | memoryview) -> int:
        nonlocal at
        begin = at + (2 if chunks else 0)
        chunks.append(chunk)
        at = begin + len(chunk)
        return begin

    def add_line(doc: str, line: str) -> None:
        nonlocal plain
        data = line.encode()
        plain = plain and len(data) == len(line)
        begin = add(data)
        names_out.append(doc)
        bounds_out.extend((begin + len(json_string(doc).encode()) + 2, at))

    if base is None:
        if tree.rows is None or len(fresh) < len(tree.rows):
            return None
        for doc in tree.rows.names:
            add_line(doc, fresh[doc])
        return chunks, (names_out, bounds_out) if plain else None
    text, names, bounds = base.text, base.names, base.bounds
    if not base.in_order:  # as written; the runs below rely on it
        return None
    rows = tree.rows
    gone = {doc for doc in tree.gone if doc in base} if rows is not None else set()
    # Every document is read now or has a base line: the rows with no base line (there are
    # as many as the base lines that remain, less the rows) are all fresh ones.
    added = sum(doc not in base for doc in fresh)
    if rows is not None and len(rows) - (len(names) - len(gone)) != added:
        return None
    view = None if isinstance(text, str) else memoryview(text)  # copied once, when written
    binary = view is not None
    plain = plain and binary
    head = 0
    if names:
        key = json_string(names[0])
        head = bounds[0] - 2 - (len(key.encode()) if binary else len(key))

    def add_run(first: int, stop: int) -> None:
        source = bounds[2 * first - 1] + 2 if first else head
        end = bounds[2 * stop - 1]
        begin = add(view[source:end] if view is not None else str(text[source:end]).encode())
        if plain:  # the spans of the run, moved by as much as the run moved
            shift = begin - source
            names_out.extend(names[first:stop])
            bounds_out.extend([x + shift for x in bounds[2 * first : 2 * stop]])

    # The base's lines are copied in runs between the places where a line is read now
    # (inserted before the base line it sorts before) or a base line is left out (its
    # document changed or went away).
    for step in _spliced(names, gone | {doc for doc in fresh if doc in base}, fresh):
        if isinstance(step, str):
            add_line(step, fresh[step])
        else:
            add_run(*step)
    return chunks, (names_out, bounds_out) if plain else None


def read_revision(
    repo: Path, corpus_rel: str, rev: str, mode: HashMode, store_text: bool | None
) -> tuple[dict[str, Document], list[str]]:
    """Every document of the corpus at a git revision, through DVC's filesystem, so corpora
    tracked by git and by DVC both work."""
    try:
        from dvc.api import DVCFileSystem
    except ImportError as exc:  # pragma: no cover - dvc is a dependency
        raise SnapshotError(f"reading a revision needs dvc ({exc}).") from None
    try:
        fs = DVCFileSystem(str(repo), rev=rev)
        if not fs.isdir(corpus_rel):
            raise SnapshotError(
                f"{repo}: has no folder {corpus_rel!r} at revision {rev!r}; check the revision."
            )
        names = sorted(fs.find(corpus_rel, detail=False))
    except SnapshotError:
        raise
    except Exception as exc:  # dvc/scmrepo raise many types for a bad revision
        raise SnapshotError(
            f"{repo}: cannot read revision {rev!r} ({exc}); check the revision."
        ) from None
    prefix = corpus_rel.rstrip("/") + "/"
    docs = [n.lstrip("/") for n in names]
    wanted = [n for n in docs if sectioner_for(n) is not None and not _hidden(n[len(prefix) :])]
    sizes = {n: fs.size(n) or 0 for n in wanted}
    store = sum(sizes.values()) < TEXT_LIMIT if store_text is None else store_text
    documents: dict[str, Document] = {}
    warnings: list[str] = []
    for name in wanted:
        result = parse_document(name[len(prefix) :], fs.cat_file(name), mode, store)
        if result.warning:
            warnings.append(result.warning)
        if result.entry is not None:
            documents[result.doc] = result.entry
    return documents, warnings


def _hidden(doc: str) -> bool:
    return any(part.startswith(".") for part in doc.split("/"))


def git_blobs(repo: Path, names: Iterable[str]) -> dict[str, bytes]:
    """The contents of ``commit:path`` names, read by one ``git cat-file --batch``; names git
    does not have (or that the batch protocol cannot carry) are left out."""
    wanted = sorted({name for name in names if "\n" not in name})
    if not wanted:
        return {}
    try:
        done = subprocess.run(
            ["git", "cat-file", "--batch"], cwd=repo, capture_output=True,
            input="".join(f"{name}\n" for name in wanted).encode(),
        )  # fmt: skip
    except OSError:
        return {}
    if done.returncode != 0:
        return {}
    out, pos, found = done.stdout, 0, {}
    for name in wanted:  # "<oid> <type> <size>" and the content, or "<name> missing"
        end = out.find(b"\n", pos)
        if end < 0:
            break
        header = out[pos:end].split()
        pos = end + 1
        if len(header) == 3 and header[2].isdigit():
            size = int(header[2])
            if header[1] == b"blob":
                found[name] = out[pos : pos + size]
            pos += size + 1
    return found


def git_name(commit: str, corpus_rel: str, doc: str) -> str:
    """How git names a corpus document at a commit."""
    return f"{commit}:{corpus_rel.rstrip('/')}/{doc}"


def document_versions(
    repo: Path,
    corpus_rel: str,
    commit: str | None,
    doc: str,
    mode: HashMode,
    blobs: Mapping[str, bytes] | None = None,
) -> Iterator[Document]:
    """Where a document's text may still be found, cheapest first: the working-tree file, the
    file at ``commit`` through git (from ``blobs`` when they were read together before, see
    ``git_blobs``), the file at ``commit`` through DVC's filesystem (for a DVC-tracked
    corpus). Lazy: DVC is imported only if nothing before it was wanted."""
    path = repo / corpus_rel / doc
    if path.is_file():
        entry = parse_document(doc, path.read_bytes(), mode, True).entry
        if entry is not None:
            yield entry
    if not commit:
        return
    name = git_name(commit, corpus_rel, doc)
    shown = blobs.get(name) if blobs is not None else git_blobs(repo, [name]).get(name)
    if shown is not None:
        entry = parse_document(doc, shown, mode, True).entry
        if entry is not None:
            yield entry
        return
    try:
        from dvc.api import DVCFileSystem

        data = DVCFileSystem(str(repo), rev=commit).cat_file(f"{corpus_rel.rstrip('/')}/{doc}")
    except Exception:  # any failure means the text is not available this way
        return
    entry = parse_document(doc, data, mode, True).entry
    if entry is not None:
        yield entry


@dataclass
class TakeResult:
    id: str
    path: Path | None
    documents: int
    sections: int
    previous_id: str | None
    written: bool
    warnings: list[str]
    reread: int
    """How many files had to be read (the rest came from the stat cache)."""
    changes: Changes | None = None
    """What changed since the previous snapshot, when known."""
    commit: str | None = None

    @property
    def short(self) -> str:
        return self.id[:SHORT]

    def load(self) -> Snapshot:
        assert self.path is not None
        return read_snapshot(self.path, verify=False)


def take_snapshot(
    root: Path,
    corpus_rel: str,
    snapshots_dir: Path,
    state_dir: Path,
    mode: HashMode = "rendered",
    store_text: bool | None = None,
    rev: str | None = None,
    write: bool = True,
) -> TakeResult:
    """Snapshot the corpus (working tree, or ``rev`` through git/DVC) and write its manifest.

    An unchanged working tree costs a walk, a stat per file and a small cache read: the
    manifest is neither rebuilt nor rewritten."""
    store = SnapshotStore(snapshots_dir)
    previous = store.newest_id()
    changes: Changes | None = None
    chunks: Chunks
    spans: Spans | None = None
    # Microseconds: "newest" must order snapshots taken within the same second.
    created = datetime.now(timezone.utc).isoformat(timespec="microseconds")
    if rev is None:
        tree = read_working_tree(root / corpus_rel, state_dir, mode, store_text)
        ident = tree.id
        target = snapshots_dir / f"{ident}.json"
        if not write or (previous == ident and target.exists()):
            if write:
                _keep_base(state_dir, target)
            return TakeResult(
                ident, target if write else None, tree.documents, tree.sections, previous,
                False, tree.warnings, tree.reread, Changes(),
            )  # fmt: skip
        commit = _git(root, "rev-parse", "--verify", "-q", "HEAD")
        about = Snapshot(ident, created, corpus_rel, commit, rev, mode).about()
        start = len(manifest_head(about))
        base = _base(snapshots_dir, state_dir, tree.base_id)
        spliced = _body(tree, base, start)
        if spliced is None:  # the cached state's manifest is gone: read every file again
            tree = read_working_tree(root / corpus_rel, state_dir, mode, store_text, every=True)
            base = None
            spliced = _body(tree, None, start)
            assert spliced is not None
        (chunks, spans), warnings, reread = spliced, tree.warnings, tree.reread
        documents, sections = tree.documents, tree.sections
        if tree.base_id is not None and tree.base_id == previous:
            changes = _changes(tree, base) if base is not None and tree.rows else Changes()
    else:
        commit = _git(root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}")
        if commit is None:
            raise SnapshotError(f"{root}: {rev!r} is not a git revision here; check the name.")
        entries, warnings = read_revision(root, corpus_rel, commit, mode, store_text)
        chunks = [document_line(doc, entries[doc]).encode() for doc in sorted(entries)]
        ident = id_of_digests({doc: row_digest(doc, entry) for doc, entry in entries.items()})
        reread, documents = len(entries), len(entries)
        sections = sum(len(d["sections"]) for d in entries.values())
        target = snapshots_dir / f"{ident}.json"
        about = Snapshot(ident, created, corpus_rel, commit, rev, mode).about()
    written = False
    if write and (not target.exists() or previous != ident):
        # New content, or content seen before that is now the newest again.
        snapshots_dir.mkdir(parents=True, exist_ok=True)
        parts: Chunks = [manifest_head(about, empty=not chunks)]
        for n, chunk in enumerate(chunks):
            parts.extend((b",\n", chunk) if n else (chunk,))
        if chunks:
            parts.append(MANIFEST_TAIL)
        atomic_write(target, parts)
        written = True
        if spans is not None:
            save_index(target, state_dir / "manifests", about, *spans)
    if write and rev is None:
        _keep_base(state_dir, target)
    if changes is None and previous is not None and previous != ident:
        old = store.get(previous)
        changes = compare(old, read_snapshot(target, verify=False)) if old else None
    return TakeResult(
        ident, target, documents, sections, previous, written, warnings, reread, changes, commit
    )
