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

import contextlib
import sys
from array import array
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evalset import gitcmd
from evalset.config import ensure_state_dir
from evalset.corpus import SECTIONING_VERSION, HashMode, format_specs, use_formats
from evalset.corpus.cache import (
    LISTING,
    Row,
    Rows,
    StatCache,
    base_table,
    folder_docs,
    installed_stamp,
    keep_base,
    spliced,
)
from evalset.corpus.manifest import (
    FORMAT,
    HASHED,
    MANIFEST_TAIL,
    SHORT,
    TEXT_LIMIT,
    Changes,
    Snapshot,
    SnapshotError,
    SnapshotStore,
    compare,
    document_line,
    id_of_digests,
    id_of_ordered,
    json_string,
    manifest_head,
    parse_line,
    read_about,
    read_snapshot,
    row_digest,
)
from evalset.corpus.newest import Current, HistoryMissing, Newest, ParallelSnapshots
from evalset.corpus.reading import read_row
from evalset.corpus.revision import read_revision, run_git
from evalset.corpus.table import LazyDocuments, save_index
from evalset.corpus.tracked import NotPulled, missing_here, not_pulled
from evalset.corpus.walk import Listing, Scan, Signature, scan
from evalset.corpus.workers import Shared
from evalset.errors import EvalsetError
from evalset.fsio import as_path, atomic_write, not_a_file, sweep_temps

PARALLEL_FROM = 256
"""Read files in worker processes when at least this many need reading."""
PROGRESS_FROM = 2_000


def _progress_bar(total: int) -> tuple[Callable[[int], None] | None, Callable[[], None]]:

    if total < PROGRESS_FROM or not sys.stderr.isatty():
        return None, lambda: None
    from rich.progress import Progress

    bar = Progress(transient=True)
    bar.start()
    task = bar.add_task("reading corpus", total=total)
    return (lambda n: bar.advance(task, n)), bar.stop


@dataclass
class _Tree:
    """The working tree read through the cache."""

    id: str
    documents: int
    sections: int
    rows: Rows | None
    """Every document's cache row; None when nothing changed since the cached state."""
    fresh: dict[str, str]
    """The manifest lines of the documents that were read; the others are the cached
    state's (``base_id``)."""
    warnings: list[str]
    base_id: str | None
    reread: int = 0
    """How many files were read."""
    known: Rows = field(default_factory=Rows)
    """The cached state's rows."""
    gone: set[str] = field(default_factory=set)
    """The cached state's documents that are no longer there."""


def _scan_warnings(found: Scan) -> list[str]:
    warnings = list(found.warnings)
    for ext, count in sorted(found.unknown.items()):
        warnings.append(f"{count} file(s) of type {ext!r} skipped: no sectioner for that format")
    return warnings


def read_working_tree(
    corpus: Path,
    state_dir: Path,
    mode: HashMode,
    store_text: bool | None,
    every: bool = False,
    keep: Collection[str] | None = None,
) -> _Tree:
    """The corpus folder, reading only files whose stat (mtime, size, inode, ctime) changed,
    and looking only at the files of folders whose listing changed; ``every`` reads every
    file (when the cached state's manifest is gone). The stat cache is updated to the state
    read, unless ``keep`` is given and holds no id of that state: a look at the corpus that
    writes no manifest keeps the cache on a state whose manifest the next snapshot can
    reuse lines from."""
    if not corpus.is_dir():
        what = "is a file, not a folder" if corpus.exists() else "does not exist"
        raise SnapshotError(
            f"{corpus}: the corpus folder {what}; check `corpus` in the config (the folder "
            "that holds the documents)."
        )
    top = str(corpus)
    settings = (str(corpus.resolve()), mode, store_text, FORMAT, SECTIONING_VERSION, LISTING)
    quick = {} if every else StatCache.quick(state_dir)
    installed = installed_stamp()
    usable = quick.get("settings") == settings and quick.get("installed") == installed
    previous: dict[str, Listing] | None = quick["listing"] if usable else None
    # Nothing installed since the cached run: its plug-ins are still the ones.
    use_formats(quick["plugins"] if usable else None)
    # The files to read are handed to the readers as the walk finds them, so reading starts
    # while the walk goes on; the cache's rows are loaded when a first file needs them.
    plugins = quick["plugins"] if usable else None
    loaded: list[tuple[str | None, Rows]] = []

    def cached() -> tuple[str | None, Rows]:
        if not loaded:
            nonlocal plugins
            plugins = plugins if plugins is not None else format_specs()
            key = (settings[0], mode, store_text, FORMAT, SECTIONING_VERSION, plugins)
            loaded.append((None, Rows()) if every else StatCache(state_dir, key).index())
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

    with Shared(read_row, start_at=PARALLEL_FROM) as shared:
        found = scan(corpus, previous, consider)
        absent = missing_here(corpus, found.listing)
        if absent is not None:  # documents kept elsewhere would be recorded as deleted
            raise NotPulled(corpus, absent)
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
                    raise SnapshotError(f"{warning[1:]}.")
                if warning:
                    warnings.append(warning)
                if line is not None and digest is not None:
                    fresh[doc] = with_text if store and with_text is not None else line
                    put[doc] = (found.files[doc], digest, count)
        finally:
            stop()
    assert plugins is not None
    cache = StatCache(
        state_dir, (settings[0], mode, store_text, FORMAT, SECTIONING_VERSION, plugins)
    )
    if dropped is not None:
        rows = known.updated(dropped, put)
        gone = {doc for doc in dropped if doc not in put and doc in known}
    else:
        rows = Rows.of(put)
        gone = set(known.names) - put.keys()
    ident = id_of_ordered(rows.digests)
    sections = rows.sections
    if keep is not None and ident not in keep:
        return _Tree(ident, len(rows), sections, rows, fresh, warnings, base_id, len(read), known)
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
            dropped.update(folder_docs(top, folder, listing))
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
    for step in spliced(names, gone | {doc for doc in fresh if doc in base}, fresh):
        if isinstance(step, str):
            add_line(step, fresh[step])
        else:
            add_run(*step)
    return chunks, (names_out, bounds_out) if plain else None


def _damage(manifest: Path, state_dir: Path) -> str | None:
    """What is wrong with a manifest that is about to be trusted as the record of the
    corpus (checked once per change of the file), or None."""
    try:
        read_snapshot(manifest, True, state_dir / "manifests")
    except EvalsetError as exc:
        return str(exc).split(": ", 1)[-1].split(";")[0].removeprefix("is not a readable ")
    return None


def tree_state(
    corpus: Path, state_dir: Path, mode: HashMode, store_text: bool | None, known: set[str]
) -> Current:
    """Whether the corpus folder, as it is now, is one of the snapshots ``known`` (full
    ids), and which; or why that is not known. The stat cache moves only to a state that
    has a manifest (see ``read_working_tree``)."""
    absent = not_pulled(corpus)
    if absent is not None:
        return Current("absent", note=absent.why, fix=absent.fix)
    if not corpus.is_dir():
        return Current("absent")
    with contextlib.suppress(OSError):  # a read-only state folder costs only speed
        ensure_state_dir(state_dir)
    try:
        tree = read_working_tree(corpus, state_dir, mode, store_text, keep=known)
    except NotPulled as exc:
        return Current("absent", note=exc.absent.why, fix=exc.absent.fix)
    except EvalsetError as exc:
        return Current("unreadable", note=str(exc).rstrip("."))
    return Current("matches" if tree.id in known else "changed", tree.id)


@dataclass
class TakeResult:
    id: str
    path: Path | None
    documents: int
    sections: int
    previous_id: str | None
    """The newest snapshot before this one was taken (by history, since the corpus read now
    is this one), or None."""
    written: bool
    warnings: list[str]
    reread: int
    """How many files had to be read (the rest came from the stat cache)."""
    changes: Changes | None = None
    """What changed since the previous snapshot, when known and this one is the newest."""
    commit: str | None = None
    newest: Newest | None = None
    """The newest snapshot now, and why: this one for the working tree; for a revision,
    whichever the rules of ``evalset.corpus.newest`` choose."""
    text_rewritten: bool | None = None
    """Whether an existing manifest of this content was written again for ``store_text``:
    True, its section text is now stored; False, it was removed; None, neither."""

    @property
    def short(self) -> str:
        return self.id[:SHORT]

    @property
    def is_newest(self) -> bool:
        return self.newest is not None and self.newest.id == self.id

    def load(self) -> Snapshot:
        assert self.path is not None
        return read_snapshot(self.path, verify=False)


def _refuse_in_place(target: Path) -> None:
    """Refuse a manifest's place that holds what is no file (a FIFO, a socket, a device, a
    folder, or a symlink to one of them): writing it again, as for a damaged manifest,
    would write into the FIFO or device, waiting for a reader, rather than replace it. A
    symlink to nothing is written through, as every file evalset writes is."""
    refused = not_a_file(target)
    if refused is not None and not refused.dangling:
        fix = "remove it, then take the snapshot again (its manifest goes there)"
        raise SnapshotError(refused.sentence("snapshot manifest", fix))


def _kept_about(target: Path, ident: str) -> dict[str, Any] | None:
    """The header of a damaged manifest when its first line still reads and names the same
    content: writing it again keeps when and where that content was first recorded."""
    try:
        about = read_about(target)
    except SnapshotError:
        return None
    return about if about.get("id") == ident and about.get("version") == FORMAT else None


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

    A manifest is written only for content no manifest records yet (or over a damaged
    one): content seen before keeps the manifest, with the time, commit and revision it was
    first recorded at, so taking a snapshot never changes which one is the newest except by
    recording the corpus as it is now. An unchanged working tree costs a walk, a stat per
    file and a small cache read: the manifest is neither rebuilt nor rewritten."""
    if mode not in HASHED:  # a manifest would record a mode no command knows
        raise ValueError(
            f"mode must be {' or '.join(map(repr, HASHED))} (the `hash` setting), not {mode!r}"
        )
    root = as_path(root, "take_snapshot", "the workspace root", ".")
    snapshots_dir = as_path(snapshots_dir, "take_snapshot", "the snapshots folder", "snapshots")
    state_dir = as_path(state_dir, "take_snapshot", "the state folder", ".evalset")
    if not isinstance(corpus_rel, str):
        as_path(corpus_rel, "take_snapshot", "the corpus folder (relative to the root)", "corpus")
        corpus_rel = str(corpus_rel)
    with contextlib.suppress(OSError):  # a read-only state folder costs only speed
        ensure_state_dir(state_dir)
    sweep_temps(snapshots_dir)  # left by an earlier evalset killed mid-write
    sweep_temps(state_dir / "tmp")
    store = SnapshotStore(snapshots_dir, state_dir=state_dir)
    unknown_before: HistoryMissing | None = None
    try:
        before = store.newest_choice(skip_damaged=True, with_corpus=False)
    except HistoryMissing as exc:  # the snapshot itself does not depend on it
        before, unknown_before = None, exc
    previous = before.id if before else None
    damaged: str | None = None
    changes: Changes | None = None
    text_rewritten: bool | None = None
    chunks: Chunks
    spans: Spans | None = None
    # Microseconds: "newest" orders snapshots first recorded within the same second.
    created = datetime.now(UTC).isoformat(timespec="microseconds")
    if rev is None:
        absent = not_pulled(root / corpus_rel)
        if absent is not None:  # a snapshot would record an empty corpus
            raise SnapshotError(
                f"{root / corpus_rel}: the corpus folder {absent.why}; run {absent.fix}, then "
                "take the snapshot."
            )
        tree = read_working_tree(root / corpus_rel, state_dir, mode, store_text)
        ident = tree.id
        target = snapshots_dir / f"{ident}.json"
        if write:
            _refuse_in_place(target)
        damaged = _damage(target, state_dir) if write and target.exists() else None
        if write and target.exists() and damaged is None and store_text is not None:
            # the id does not depend on the text: the manifest of this content is written
            # again, as it is, with or without its section text as the setting now says
            stored = _stores_text(target, state_dir)
            text_rewritten = store_text if stored not in (None, store_text) else None
        if not write or (target.exists() and damaged is None and text_rewritten is None):
            if write:
                keep_base(state_dir, target)
            if previous is not None and previous != ident and write:
                changes = _compared(store, previous, target)
            return TakeResult(
                ident, target if write else None, tree.documents, tree.sections, previous,
                False, tree.warnings, tree.reread, changes or Changes(),
                newest=Newest(ident, "corpus", "matches"),
            )  # fmt: skip
        commit = run_git(root, "rev-parse", "--verify", "-q", "HEAD")
        about = Snapshot(ident, created, corpus_rel, commit, rev, mode).about()
        if damaged is not None or text_rewritten is not None:
            about = _kept_about(target, ident) or about
        start = len(manifest_head(about))
        base = base_table(snapshots_dir, state_dir, tree.base_id)
        if text_rewritten is not None and len(tree.fresh) < tree.documents:
            base = None  # lines copied from a manifest would keep the text storage it has
            tree = read_working_tree(root / corpus_rel, state_dir, mode, store_text, every=True)
            if tree.id != ident:
                raise SnapshotError(
                    f"{root / corpus_rel}: changed while it was being read; take the snapshot "
                    "again."
                )
        spliced = _body(tree, base, start)
        if spliced is None:  # the cached state's manifest is gone: read every file again
            tree = read_working_tree(root / corpus_rel, state_dir, mode, store_text, every=True)
            base = None
            spliced = _body(tree, None, start)
            assert spliced is not None
        (chunks, spans), warnings, reread = spliced, tree.warnings, tree.reread
        documents, sections = tree.documents, tree.sections
        if tree.base_id is not None and tree.base_id == previous:
            changes = (
                _changes(tree, base) if base is not None and tree.rows is not None else Changes()
            )
    else:
        commit = run_git(root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}")
        if commit is None and gitcmd.is_shallow(root):
            raise SnapshotError(
                f"{root}: {rev!r} is not a revision of this shallow clone, whose history is "
                f"cut short; {gitcmd.FETCH_HISTORY}, or check the name."
            )
        if commit is None and run_git(root, "rev-parse", "--git-dir") is None:
            raise SnapshotError(
                f"{root}: is not inside a git repository, so it has no revision {rev!r} to "
                "read the corpus at; snapshot the working tree (no revision), or run `git "
                "init` and commit the corpus first."
            )
        if commit is None:
            raise SnapshotError(f"{root}: {rev!r} is not a git revision here; check the name.")
        entries, warnings = read_revision(root, corpus_rel, commit, mode, store_text)
        chunks = [document_line(doc, entries[doc]).encode() for doc in sorted(entries)]
        ident = id_of_digests({doc: row_digest(doc, entry) for doc, entry in entries.items()})
        reread, documents = len(entries), len(entries)
        sections = sum(len(d["sections"]) for d in entries.values())
        target = snapshots_dir / f"{ident}.json"
        about = Snapshot(ident, created, corpus_rel, commit, rev, mode).about()
        if write:
            _refuse_in_place(target)
        if write and target.exists():
            damaged = _damage(target, state_dir)
            if damaged is None and store_text is not None:
                stored = _stores_text(target, state_dir)
                text_rewritten = store_text if stored not in (None, store_text) else None
            if damaged is not None or text_rewritten is not None:
                about = _kept_about(target, ident) or about
    written = False
    if damaged is not None:
        warnings.append(f"{target}: was damaged ({damaged}); written again from the corpus")
    if write and (not target.exists() or damaged is not None or text_rewritten is not None):
        snapshots_dir.mkdir(parents=True, exist_ok=True)
        parts: Chunks = [manifest_head(about, empty=not chunks)]
        for n, chunk in enumerate(chunks):
            parts.extend((b",\n", chunk) if n else (chunk,))
        if chunks:
            parts.append(MANIFEST_TAIL)
        atomic_write(target, parts, state_dir / "tmp")
        written = True
        if spans is not None:
            save_index(target, state_dir / "manifests", about, *spans)
        else:  # written from checked content: no need to check it on its first read
            save_index(target, state_dir / "manifests", about, None, None)
    if write and rev is None:
        keep_base(state_dir, target)
    if rev is None:
        newest: Newest | None = Newest(ident, "corpus", "matches")
    elif write:
        now = SnapshotStore(
            snapshots_dir,
            state_dir=state_dir,
            current=lambda known: tree_state(root / corpus_rel, state_dir, mode, store_text, known),
        )
        try:
            newest = now.newest_choice()
        except HistoryMissing as exc:
            newest, unknown_before = None, exc
    else:
        newest = before
    if target.exists() and _ignored(root, target):
        warnings.append(
            f"{target}: git ignores it (a .gitignore rule: `git check-ignore -v {target}` "
            f"names it), so no commit will hold it and no clone can check the items verified "
            f"against it; add it anyway (git add -f {target}) or change the rule"
        )
    if previous is not None and previous != ident:
        warnings.extend(_other_mode(snapshots_dir, previous, ident, mode))
    if isinstance(unknown_before, ParallelSnapshots) and written:
        warnings.append(
            "the snapshots before this one were added on lines of history merged since, none "
            "of them with the changes of the others, so what changed since is not listed"
        )
    elif unknown_before is not None and written:
        warnings.append(
            "which snapshot came before this one is told by commits this shallow clone lacks, "
            f"so what changed since is not listed; {gitcmd.FETCH_HISTORY}"
        )
    if newest is None or newest.id != ident:
        changes = None  # an older state: what changed "since" would read backwards
    elif changes is None and previous is not None and previous != ident:
        changes = _compared(store, previous, target)
    return TakeResult(
        ident, target, documents, sections, previous, written, warnings, reread, changes, commit,
        newest, text_rewritten,
    )  # fmt: skip


def _stores_text(manifest: Path, state_dir: Path) -> bool | None:
    """Whether a manifest holds its sections' text (None when it records no document)."""
    documents = read_snapshot(manifest, False, state_dir / "manifests").documents
    for doc in documents:
        return "text" in documents[doc]
    return None


def _other_mode(snapshots_dir: Path, previous: str, ident: str, mode: HashMode) -> list[str]:
    """The warning when the snapshot before this one hashed sections in another ``hash``
    mode: every section with markup then differs, whatever its wording."""
    try:
        before = read_about(snapshots_dir / f"{previous}.json").get("hash", "rendered")
    except SnapshotError:
        return []
    if before == mode:
        return []
    return [
        f"snapshot {ident[:SHORT]} hashes {HASHED.get(mode, mode)}, and the one before it, "
        f"{previous[:SHORT]}, hashed {HASHED.get(before, before)} (the `hash` setting "
        "changed), so every section with markup differs between them, whatever its wording; "
        "`stale` cannot compare the items verified against the one before with this one: "
        "check them, then `evalset verify` them"
    ]


def _compared(store: SnapshotStore, previous: str, target: Path) -> Changes | None:
    old = store.get(previous)
    return compare(old, read_snapshot(target, verify=False)) if old else None


def _ignored(root: Path, target: Path) -> bool:
    """Whether git ignores the manifest ``target`` (false outside git and for a tracked
    file, which no rule keeps out)."""
    try:
        done = gitcmd.run(root, "check-ignore", "-q", "--", str(target))
    except (OSError, gitcmd.GitUnusable):
        return False
    return done.returncode == 0
