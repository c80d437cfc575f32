"""Snapshots: content-addressed manifests of the corpus, one document per line.

A manifest records every document's hash and each section's hash, title and level (and,
below ``store_text``'s threshold, its normalised text), the corpus path and the git commit
it was read at. Its id is the sha256 of the canonical document/section table, so the same
content always gets the same id. Working-tree snapshots are incremental: a stat cache in
``.evalset/`` (mtime, size, inode) means unchanged files are not read again.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
import subprocess
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from datetime import datetime, timezone
from functools import cached_property
from pathlib import Path
from typing import Any

from evalset.corpus import SECTIONING_VERSION, HashMode, Sections, registry, sectioner_for
from evalset.errors import EvalsetError
from evalset.fsio import atomic_write

FORMAT = 1
TEXT_LIMIT = 20_000_000
"""Below this many bytes of corpus, section text is stored in the manifest (config store_text)."""
SHORT = 12
PARALLEL_FROM = 256
"""Read files in worker processes when at least this many need reading."""
PROGRESS_FROM = 2_000

Document = dict[str, Any]
"""``{"hash": h, "sections": {id: {"hash": h, "title": t, "level": n[, "text": s]}}}``"""


class SnapshotError(EvalsetError):
    """A snapshot cannot be taken, found or read."""


def hash_text(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


EMPTY = hash_text("")


def document_entry(parsed: Sections, store_text: bool) -> Document:
    sections: dict[str, Any] = {}
    for ident, section in parsed.sections.items():
        entry: dict[str, Any] = {
            "hash": hash_text(section.text),
            "level": section.level,
            "title": section.title,
        }
        if store_text:
            entry["text"] = section.text
        sections[ident] = entry
    document: Document = {"hash": hash_text(parsed.text), "sections": sections}
    if store_text:
        document["text"] = parsed.text
    return document


def _row(doc: str, entry: Document) -> str:
    parts = [doc, entry["hash"]]
    parts.extend(f"{sid}={s['hash']}" for sid, s in sorted(entry["sections"].items()))
    return "\t".join(parts) + "\n"


def table_id(documents: dict[str, Document]) -> str:
    """The content id: sha256 of the sorted document/section hash table."""
    return _id_of_digests({doc: _row_digest(_row(doc, e)) for doc, e in documents.items()})


@dataclass
class Snapshot:
    """A corpus manifest."""

    id: str
    created: str
    corpus: str
    commit: str | None
    rev: str | None
    hash_mode: HashMode
    documents: dict[str, Document] = field(default_factory=dict)
    path: Path | None = None

    @property
    def short(self) -> str:
        return self.id[:SHORT]

    @cached_property
    def section_hashes(self) -> frozenset[str]:
        return frozenset(
            s["hash"] for entry in self.documents.values() for s in entry["sections"].values()
        )

    @property
    def section_count(self) -> int:
        return sum(len(d["sections"]) for d in self.documents.values())

    def about(self) -> dict[str, Any]:
        return {
            "commit": self.commit,
            "corpus": self.corpus,
            "created": self.created,
            "hash": self.hash_mode,
            "id": self.id,
            "rev": self.rev,
            "version": FORMAT,
        }

    def render(self) -> str:
        """Deterministic JSON: the header on the first line, then one document per line."""
        lines = ['{"about": ' + json.dumps(self.about(), sort_keys=True) + ",", '"documents": {']
        docs = sorted(self.documents)
        for n, doc in enumerate(docs):
            entry = json.dumps(self.documents[doc], sort_keys=True, ensure_ascii=False)
            lines.append(
                f"{json.dumps(doc, ensure_ascii=False)}: {entry}"
                + ("," if n < len(docs) - 1 else "")
            )
        lines.append("}}")
        return "\n".join(lines) + "\n"


def _corrupt(path: Path, why: str) -> SnapshotError:
    return SnapshotError(
        f"{path}: is not a readable snapshot manifest ({why}); restore it from git, or delete "
        "it and run `evalset snapshot`."
    )


def _check_about(path: Path, about: Any) -> dict[str, Any]:
    if not isinstance(about, dict) or "id" not in about:
        raise _corrupt(path, "no header")
    version = about.get("version")
    if not isinstance(version, int) or version > FORMAT:
        raise SnapshotError(
            f"{path}: was written by a newer evalset (snapshot format {version}, this one "
            f"reads {FORMAT}); upgrade evalset."
        )
    return about


def read_about(path: Path) -> dict[str, Any]:
    """The header of a manifest, reading only its first line."""
    try:
        with path.open(encoding="utf-8") as f:
            first = f.readline()
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot be read ({exc.strerror}).") from None
    except UnicodeDecodeError:
        raise _corrupt(path, "not UTF-8") from None
    try:
        about = json.loads(first.rstrip().removesuffix(",") + "}")["about"]
    except (ValueError, KeyError, TypeError):
        raise _corrupt(path, "the first line is not the snapshot header") from None
    return _check_about(path, about)


def read_snapshot(path: Path) -> Snapshot:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise SnapshotError(f"{path}: cannot be read ({exc.strerror}).") from None
    except (ValueError, UnicodeDecodeError) as exc:
        raise _corrupt(path, f"invalid JSON: {exc}") from None
    if not isinstance(data, dict) or not isinstance(data.get("documents"), dict):
        raise _corrupt(path, "no documents table")
    about = _check_about(path, data.get("about"))
    snap = Snapshot(
        about["id"],
        about.get("created", ""),
        about.get("corpus", ""),
        about.get("commit"),
        about.get("rev"),
        about.get("hash", "rendered"),
        data["documents"],
        path,
    )
    if table_id(snap.documents) != snap.id or not _texts_match(snap.documents):
        raise _corrupt(path, "its content does not match its id")
    return snap


def _texts_match(documents: dict[str, Document]) -> bool:
    """Stored texts (small corpora only) hash to what the manifest says."""
    for entry in documents.values():
        if "text" in entry and hash_text(entry["text"]) != entry["hash"]:
            return False
        for section in entry["sections"].values():
            if "text" in section and hash_text(section["text"]) != section["hash"]:
                return False
    return True


class SnapshotStore:
    """The manifests in a workspace's ``snapshots/`` folder, found by id prefix."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self._loaded: dict[str, Snapshot] = {}

    def ids(self) -> list[str]:
        if not self.folder.is_dir():
            return []
        return sorted(p.stem for p in self.folder.glob("*.json"))

    def resolve(self, prefix: str) -> str | None:
        """The full id for a unique prefix; None when nothing matches."""
        matches = [i for i in self.ids() if i.startswith(prefix)]
        if len(matches) > 1:
            raise SnapshotError(
                f"{self.folder}: snapshot prefix {prefix!r} is ambiguous "
                f"({', '.join(m[:SHORT] for m in matches)}); give more digits."
            )
        return matches[0] if matches else None

    def get(self, prefix: str) -> Snapshot | None:
        ident = self.resolve(prefix)
        if ident is None:
            return None
        if ident not in self._loaded:
            self._loaded[ident] = read_snapshot(self.folder / f"{ident}.json")
        return self._loaded[ident]

    def newest_id(self) -> str | None:
        """The most recently taken snapshot (by its ``created`` time, then id)."""
        best: tuple[str, str] | None = None
        for ident in self.ids():
            about = read_about(self.folder / f"{ident}.json")
            key = (str(about.get("created", "")), ident)
            best = key if best is None or key > best else best
        return best[1] if best else None

    def newest(self) -> Snapshot | None:
        ident = self.newest_id()
        return self.get(ident) if ident else None


# ---------------------------------------------------------------------------------------
# Reading the corpus


@dataclass
class ReadResult:
    """The outcome of reading one file."""

    doc: str
    entry: Document | None
    warning: str | None = None


def parse_document(doc: str, data: bytes, mode: HashMode, store_text: bool) -> ReadResult:
    """Section one document's bytes; binary files are skipped and bad UTF-8 replaced, with a
    warning naming the file."""
    sectioner = sectioner_for(doc)
    if sectioner is None:
        return ReadResult(doc, None)
    if b"\x00" in data[:8192]:
        return ReadResult(doc, None, f"{doc}: looks binary (NUL bytes); skipped")
    warning = None
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        text = data.decode("utf-8", "replace")
        warning = f"{doc}: is not valid UTF-8 (byte {exc.start}); read with replacement characters"
    return ReadResult(
        doc, document_entry(sectioner(text.removeprefix("\ufeff"), mode), store_text), warning
    )


def _read_file(job: tuple[str, str, HashMode, bool]) -> ReadResult:
    path, doc, mode, store_text = job
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as exc:
        return ReadResult(doc, None, f"!{path}: cannot be read ({exc.strerror})")
    return parse_document(doc, data, mode, store_text)


@dataclass
class Scan:
    """The files of a corpus folder with their stat signature."""

    files: dict[str, tuple[int, int, int]] = field(default_factory=dict)
    paths: dict[str, str] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    unknown: Counter[str] = field(default_factory=Counter)
    total_bytes: int = 0


def scan(root: Path) -> Scan:
    """Walk the corpus: hidden entries skipped, symlinks followed only when they stay inside.

    This loop runs once per file on every snapshot, so it keeps to the cheapest calls:
    ``DirEntry`` type checks come from the directory listing, one ``stat`` per file."""
    result = Scan()
    top = str(root)
    real_top = os.path.realpath(top)
    cut = len(top) + 1
    sep = os.sep
    known: dict[str, bool] = {}  # extension -> has a sectioner
    files = result.files
    paths = result.paths
    total = 0
    stack = [top]
    while stack:
        folder = stack.pop()
        try:
            entries = os.scandir(folder)
        except OSError as exc:
            raise SnapshotError(f"{folder}: cannot be listed ({exc.strerror}).") from None
        with entries:
            for entry in entries:
                name = entry.name
                if name[0] == ".":
                    continue
                if entry.is_file(follow_symlinks=False):
                    st = entry.stat(follow_symlinks=False)
                elif entry.is_dir(follow_symlinks=False):
                    stack.append(entry.path)
                    continue
                elif entry.is_symlink():
                    target = os.path.realpath(entry.path)
                    if not (target == real_top or target.startswith(real_top + sep)):
                        doc = entry.path[cut:].replace(sep, "/")
                        result.warnings.append(
                            f"{doc}: symlink to outside the corpus; not followed"
                        )
                        continue
                    if not os.path.isfile(target):
                        continue
                    st = os.stat(target)
                else:
                    continue
                dot = name.rfind(".")
                ext = name[dot:].lower() if dot > 0 else name
                wanted = known.get(ext)
                if wanted is None:
                    wanted = known[ext] = sectioner_for(name) is not None
                if not wanted:
                    result.unknown[ext] += 1
                    continue
                path = entry.path
                doc = path[cut:] if sep == "/" else path[cut:].replace(sep, "/")
                files[doc] = (st.st_mtime_ns, st.st_size, st.st_ino)
                paths[doc] = path
                total += st.st_size
    result.total_bytes = total
    return result


def _read_many(
    jobs: list[tuple[str, str, HashMode, bool]], progress: Callable[[int], None] | None
) -> Iterator[ReadResult]:
    if len(jobs) < PARALLEL_FROM or (os.cpu_count() or 1) < 2:
        for job in jobs:
            yield _read_file(job)
            if progress:
                progress(1)
        return
    import multiprocessing

    with multiprocessing.get_context("fork").Pool(min(os.cpu_count() or 2, 8)) as pool:
        for result in pool.imap_unordered(_read_file, jobs, chunksize=64):
            yield result
            if progress:
                progress(1)


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
    snapshot: Snapshot | None = None
    """The manifest in memory, when it was built (not when the corpus was unchanged)."""

    @property
    def short(self) -> str:
        return self.id[:SHORT]

    def load(self) -> Snapshot:
        if self.snapshot is None:
            assert self.path is not None
            self.snapshot = read_snapshot(self.path)
        return self.snapshot


def _plugins() -> tuple[str, ...]:
    """Which function sections each format: a changed plug-in invalidates the cache."""
    return tuple(
        sorted(f"{ext}={fn.__module__}.{fn.__qualname__}" for ext, fn in registry().items())
    )


class _Cache:
    """The stat cache in ``.evalset/``: a small index read on every run (stat signature and
    table row per file) and the full entries, read only when something changed."""

    def __init__(self, state_dir: Path, key: tuple[Any, ...]) -> None:
        self.index_path = state_dir / "snapshot-index.pickle"
        self.entries_path = state_dir / "snapshot-entries.pickle"
        self.state_dir = state_dir
        self.key = key

    def _load(self, path: Path) -> dict[str, Any]:
        try:
            with path.open("rb") as f:
                cached = pickle.load(f)
        except (OSError, pickle.UnpicklingError, EOFError, AttributeError, ValueError):
            return {}
        ok = isinstance(cached, dict) and cached.get("key") == self.key
        return cached["data"] if ok else {}

    def index(self) -> dict[str, Any]:
        """``{"id": snapshot id, "files": {doc: (stat signature, row digest)}}``"""
        return self._load(self.index_path)

    def entries(self) -> dict[str, Document]:
        return self._load(self.entries_path)

    def save(self, index: dict[str, Any], entries: dict[str, Document]) -> None:
        self.state_dir.mkdir(parents=True, exist_ok=True)
        for path, data in ((self.entries_path, entries), (self.index_path, index)):
            tmp = path.with_suffix(".tmp")
            with tmp.open("wb") as f:
                pickle.dump({"key": self.key, "data": data}, f, protocol=pickle.HIGHEST_PROTOCOL)
            os.replace(tmp, path)


def _row_digest(row: str) -> str:
    return hashlib.blake2b(row.encode(), digest_size=16).hexdigest()


def _id_of_digests(digests: dict[str, str]) -> str:
    """sha256 over the sorted ``doc<TAB>digest of its row`` lines: a content id of the whole
    document/section table that can be updated one document at a time."""
    digest = hashlib.sha256()
    for doc in sorted(digests):
        digest.update(f"{doc}\t{digests[doc]}\n".encode())
    return digest.hexdigest()


@dataclass
class _Tree:
    """The working tree read through the cache: its id, and every document's entry unless
    nothing changed since the cached snapshot."""

    id: str
    count: int
    sections: int
    documents: dict[str, Document] | None
    warnings: list[str]
    reread: int


def read_working_tree(
    corpus: Path, state_dir: Path, mode: HashMode, store_text: bool | None, need_documents: bool
) -> _Tree:
    """The corpus folder, reading only files whose stat (mtime, size, inode) changed."""
    if not corpus.is_dir():
        raise SnapshotError(
            f"{corpus}: the corpus folder does not exist; check `corpus` in the config."
        )
    found = scan(corpus)
    store = found.total_bytes < TEXT_LIMIT if store_text is None else store_text
    cache = _Cache(
        state_dir, (str(corpus.resolve()), mode, store, FORMAT, SECTIONING_VERSION, _plugins())
    )
    index = cache.index()
    known = index.get("files", {})
    warnings = list(found.warnings)
    for ext, count in sorted(found.unknown.items()):
        warnings.append(f"{count} file(s) of type {ext!r} skipped: no sectioner for that format")
    unchanged = len(known) == len(found.files) and all(
        known.get(doc, (None,))[0] == sig for doc, sig in found.files.items()
    )
    if unchanged and not need_documents and "id" in index:
        return _Tree(index["id"], len(known), index["sections"], None, warnings, 0)
    entries = cache.entries() if known else {}
    documents: dict[str, Document] = {}
    jobs = []
    for doc, signature in found.files.items():
        hit = known.get(doc)
        if hit is not None and hit[0] == signature and doc in entries:
            documents[doc] = entries[doc]
        else:
            jobs.append((found.paths[doc], doc, mode, store))
    advance, stop = _progress_bar(len(jobs))
    try:
        for result in _read_many(jobs, advance):
            if result.warning and result.warning.startswith("!"):
                raise SnapshotError(
                    f"{result.warning[1:]}; fix its permissions or move it out of the corpus."
                )
            if result.warning:
                warnings.append(result.warning)
            if result.entry is not None:
                documents[result.doc] = result.entry
    finally:
        stop()
    fresh = {doc for _, doc, _, _ in jobs}
    digests = {
        doc: known[doc][1] if doc not in fresh else _row_digest(_row(doc, entry))
        for doc, entry in documents.items()
    }
    ident = _id_of_digests(digests)
    sections = sum(len(e["sections"]) for e in documents.values())
    if jobs or len(known) != len(documents) or index.get("id") != ident:
        files = {doc: (found.files[doc], digests[doc]) for doc in documents}
        cache.save({"id": ident, "sections": sections, "files": files}, documents)
    return _Tree(ident, len(documents), sections, documents, warnings, len(jobs))


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


def document_at(
    repo: Path, corpus_rel: str, commit: str, doc: str, mode: HashMode
) -> Document | None:
    """One document as it was at a commit (for diffs when the manifest holds no text)."""
    from dvc.api import DVCFileSystem

    try:
        fs = DVCFileSystem(str(repo), rev=commit)
        data = fs.cat_file(f"{corpus_rel.rstrip('/')}/{doc}")
    except Exception:
        return None
    return parse_document(doc, data, mode, True).entry


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
    if rev is None:
        tree = read_working_tree(root / corpus_rel, state_dir, mode, store_text, not write)
        ident, sections = tree.id, tree.sections
        target = snapshots_dir / f"{ident}.json"
        if write and previous == ident and target.exists():
            return TakeResult(
                ident, target, tree.count, sections, previous, False, tree.warnings, tree.reread
            )
        if tree.documents is None:  # unchanged, but the manifest must be (re)written
            tree = read_working_tree(root / corpus_rel, state_dir, mode, store_text, True)
        documents, warnings, reread = tree.documents, tree.warnings, tree.reread
        assert documents is not None
        commit = _git(root, "rev-parse", "--verify", "-q", "HEAD")
    else:
        commit = _git(root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}")
        if commit is None:
            raise SnapshotError(f"{root}: {rev!r} is not a git revision here; check the name.")
        documents, warnings = read_revision(root, corpus_rel, commit, mode, store_text)
        reread = len(documents)
        ident = table_id(documents)
        sections = sum(len(d["sections"]) for d in documents.values())
    # Microseconds: "newest" must order snapshots taken within the same second.
    created = datetime.now(timezone.utc).isoformat(timespec="microseconds")
    snap = Snapshot(ident, created, corpus_rel, commit, rev, mode, documents)
    written = False
    if write:
        target = snapshots_dir / f"{ident}.json"
        snap.path = target
        if not target.exists() or previous != ident:
            # New content, or content seen before that is now the newest again.
            snapshots_dir.mkdir(parents=True, exist_ok=True)
            atomic_write(target, snap.render())
            written = True
    return TakeResult(
        ident, snap.path, len(documents), sections, previous, written, warnings, reread, snap
    )


@dataclass
class Changes:
    """What changed between two snapshots, by document and section."""

    added: list[str] = field(default_factory=list)
    removed: list[str] = field(default_factory=list)
    changed: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    """doc -> {"added": [...], "removed": [...], "changed": [...]} section ids."""

    def to_json(self) -> dict[str, Any]:
        return {"added": self.added, "removed": self.removed, "changed": self.changed}

    @property
    def empty(self) -> bool:
        return not (self.added or self.removed or self.changed)


def compare(old: Snapshot, new: Snapshot) -> Changes:
    changes = Changes()
    changes.added = sorted(set(new.documents) - set(old.documents))
    changes.removed = sorted(set(old.documents) - set(new.documents))
    for doc in sorted(set(old.documents) & set(new.documents)):
        before, after = old.documents[doc], new.documents[doc]
        if (
            before["hash"] == after["hash"]
            and before["sections"].keys() == after["sections"].keys()
        ):
            continue
        a, b = before["sections"], after["sections"]
        entry = {
            "added": sorted(set(b) - set(a)),
            "removed": sorted(set(a) - set(b)),
            "changed": sorted(s for s in set(a) & set(b) if a[s]["hash"] != b[s]["hash"]),
        }
        if any(entry.values()) or before["hash"] != after["hash"]:
            changes.changed[doc] = entry
    return changes


def iter_sections(snap: Snapshot) -> Iterable[tuple[str, str, dict[str, Any]]]:
    for doc, entry in snap.documents.items():
        for sid, section in entry["sections"].items():
            yield doc, sid, section
