"""Walking the corpus folder: which files it holds, with their stat signatures.

A walk keeps, per folder, the names and signatures it listed, so that the next walk can
tell an unchanged folder from its listing alone (see ``evalset.corpus.snapshot``). Listing
a large corpus is mostly ``stat`` calls; when the previous walk's folders are known, they
are split between this process and a forked helper, which walk their halves at once.
"""

from __future__ import annotations

import errno
import marshal
import os
import stat
import tempfile
from array import array
from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

from evalset.corpus import sectioner_for
from evalset.corpus.manifest import SnapshotError
from evalset.corpus.names import case_alike, nfc, same_name, uncitable
from evalset.corpus.stores import store_of
from evalset.corpus.workers import cores

Signature = tuple[int, int, int, int]
"""mtime, size, inode, ctime (ns): ctime catches a rewrite whose mtime was put back."""

Listing = tuple[str, bytes, tuple[tuple[str, int], ...], tuple[str, ...]]
"""A folder as a walk saw it: names joined by NUL, their signatures (4 int64 each), counts of
files of unknown types, warnings."""

SPLIT_FROM = 8_000
"""Split a walk between two processes when the previous one listed this many files."""
TOOL_FILES = frozenset({".dvc"})
"""Files a tool keeps beside the documents (DVC's pointer to a file it tracks one by one):
not documents, and no format evalset lacks, so a walk passes them over without a word."""


@dataclass
class Scan:
    """The files of a corpus folder with their stat signature."""

    files: dict[str, Signature] = field(default_factory=dict)
    """doc -> (mtime, size, inode, ctime)."""
    paths: dict[str, str] = field(default_factory=dict)
    listing: dict[str, Listing] = field(default_factory=dict)
    """Per folder: its entries' names and signatures, the counts of files of unknown types
    and the warnings about its entries; what the next scan compares with."""
    same: list[str] = field(default_factory=list)
    """Folders listed exactly as in the previous scan: their files were not looked at."""
    warnings: list[str] = field(default_factory=list)
    unknown: Counter[str] = field(default_factory=Counter)
    total_bytes: int = 0


Visit = tuple[str, bool, Listing, list[tuple[str, str, Signature]], list[str]]
"""One folder listed: its path, whether its listing is the previous one, the listing, its
documents (id, path, signature; none when the listing is the previous one), and the paths
of its sub-folders."""


def _link_target(path: str, real_top: str, top: str) -> tuple[int, os.stat_result | None]:
    """Where a symlink leads: (0, its target's stat) for a file inside the corpus (folder
    ``top``) or in a content store of its repository (DVC's cache, git-annex's objects:
    ``evalset.corpus.stores``), (-1, None) for anything else outside (not followed),
    (-2, None) for a folder, other non-file or a loop of links, (-3, None) when what it
    leads to is not there."""
    target = os.path.realpath(path)
    inside = target == real_top or target.startswith(real_top + os.sep)
    if not inside and store_of(target, top) is None:
        return -1, None
    try:
        st = os.stat(target)
    except (FileNotFoundError, NotADirectoryError):
        return -3, None
    except OSError:  # a loop of links: leads nowhere, like a link to a folder
        return -2, None
    return (0, st) if stat.S_ISREG(st.st_mode) else (-2, None)


def _check_name(path: str, cut: int) -> None:
    """Refuse a file or folder whose name is not UTF-8: a document id must be text that set
    files can cite (and git shows)."""
    try:
        path.encode("utf-8")
    except UnicodeEncodeError:
        shown = os.fsencode(path[cut:]).decode("utf-8", "backslashreplace")
        raise SnapshotError(
            f"{shown}: its name is not UTF-8, so no set could cite it; rename it (or move it "
            "out of the corpus) and run `evalset snapshot` again."
        ) from None


def corpus_file(corpus: Path, doc: str) -> Path | None:
    """The file of document ``doc`` in the corpus folder, by the rule the walk follows (so
    every reader of corpus text sees what a snapshot sees): no hidden, empty, '.' or '..'
    part, a regular file, and a symlink only when it leads to a file inside the corpus or in
    a content store of its repository. None for anything else."""
    parts = doc.split("/")
    if any(not part or part[0] == "." for part in parts):
        return None
    top = os.path.realpath(corpus)
    path = os.path.join(corpus, *parts)
    real = os.path.realpath(path)
    if not real.startswith(top + os.sep) and store_of(real, str(corpus)) is None:
        return None
    try:
        st = os.stat(real)
    except FileNotFoundError:
        if doc.isascii():
            return None
        return _file_by_form(corpus, parts)
    except OSError:
        return None
    return Path(real) if stat.S_ISREG(st.st_mode) else None


def _file_by_form(corpus: Path, parts: list[str]) -> Path | None:
    """The file of a document whose path on disk is its id in another Unicode form (its
    folder's entries compared in NFC, part by part)."""
    found = []
    folder = str(corpus)
    for part in parts:
        try:
            name = part if os.path.lexists(os.path.join(folder, part)) else None
            name = name or same_name(part, os.listdir(folder))
        except OSError:
            return None
        if name is None:
            return None
        found.append(name)
        folder = os.path.join(folder, name)
    return corpus_file(corpus, "/".join(found)) if found != parts else None


_UNLISTED = {
    errno.EACCES: "let evalset read it (`chmod u+rx`), or move it out of the corpus",
    errno.EPERM: "let evalset read it (`chmod u+rx`), or move it out of the corpus",
    errno.ENAMETOOLONG: "its path is longer than the system allows: shorten the names of "
    "the folders on its way",
}
"""What to do about a folder of the corpus that cannot be listed, by the reason."""


class _Walker:
    """Lists folders one at a time, as ``visit``; shared by the plain and the split walk."""

    def __init__(self, root: Path, previous: dict[str, Listing] | None) -> None:
        self.top = str(root)
        self.real_top = os.path.realpath(self.top)
        self.cut = len(self.top) + 1
        self.previous = previous
        self.known: dict[str, bool] = {}  # extension -> has a sectioner

    def visit(self, folder: str) -> Visit:
        """List one folder. This runs once per file on every snapshot, so it keeps to the
        cheapest calls: ``DirEntry`` type checks come from the directory listing, one
        ``stat`` per file."""
        try:
            entries = os.scandir(folder)
        except OSError as exc:
            fix = _UNLISTED.get(exc.errno or 0, "check it, or move it out of the corpus")
            raise SnapshotError(
                f"{folder}: cannot be listed ({exc.strerror}); {fix}, then snapshot again."
            ) from None
        names: list[str] = []
        signatures = array("q")
        folders: list[str] = []
        kept: list[tuple[os.DirEntry[str], Signature | int]] = []
        """Each entry with its signature, or for a symlink that is no document its kind."""
        with entries:
            for entry in entries:
                name = entry.name
                if name[0] == ".":
                    continue
                if not name.isascii():
                    _check_name(entry.path, self.cut)
                if entry.is_file(follow_symlinks=False):
                    try:
                        st = entry.stat(follow_symlinks=False)
                    except FileNotFoundError:  # removed since it was listed: not there
                        continue
                    signature = (st.st_mtime_ns, st.st_size, st.st_ino, st.st_ctime_ns)
                elif entry.is_dir(follow_symlinks=False):
                    folders.append(entry.path)
                    continue
                elif entry.is_symlink():
                    kind, target = _link_target(entry.path, self.real_top, self.top)
                    if target is None:  # recorded in the listing, but not a document
                        names.append(name)
                        signatures.extend((kind, 0, 0, 0))
                        kept.append((entry, kind))
                        continue
                    signature = (
                        target.st_mtime_ns, target.st_size, target.st_ino, target.st_ctime_ns
                    )  # fmt: skip
                else:
                    continue
                names.append(name)
                signatures.extend(signature)
                kept.append((entry, signature))
        joined, packed = "\0".join(names), signatures.tobytes()
        before = self.previous.get(folder) if self.previous is not None else None
        if before is not None and before[0] == joined and before[1] == packed:
            return folder, True, before, [], folders
        unknown: Counter[str] = Counter()
        warnings: list[str] = []
        files: list[tuple[str, str, Signature]] = []
        cut, sep, known = self.cut, os.sep, self.known
        for entry, seen in kept:
            name = entry.name
            if isinstance(seen, int):
                if seen == -1:
                    doc = entry.path[cut:].replace(sep, "/")
                    warnings.append(f"{doc}: symlink to outside the corpus; not followed")
                continue
            dot = name.rfind(".")
            ext = name[dot:].lower() if dot > 0 else name
            wanted = known.get(ext)
            if wanted is None:
                wanted = known[ext] = sectioner_for(name) is not None
            if not wanted:
                if ext not in TOOL_FILES:
                    unknown[ext] += 1
                continue
            path = entry.path
            doc = path[cut:] if sep == "/" else path[cut:].replace(sep, "/")
            doc = doc if doc.isascii() else nfc(doc)
            if (note := uncitable(doc)) is not None:
                warnings.append(note)
            files.append((doc, path, seen))
        if len(files) + len(folders) > 1:
            here = [doc.rpartition("/")[2] for doc, _, _ in files]
            here += [os.path.basename(sub) for sub in folders]
            rel = folder[cut:].replace(sep, "/") if len(folder) >= cut else ""
            warnings += case_alike(nfc(rel), map(nfc, here))
        listing = (joined, packed, tuple(sorted(unknown.items())), tuple(warnings))
        return folder, False, listing, files, folders

    def walk(self, folders: Iterable[str], skip: frozenset[str] = frozenset()) -> list[Visit]:
        """Visit ``folders`` and, depth first, every sub-folder not in ``skip``."""
        stack = list(folders)
        stack.reverse()
        visits = []
        while stack:
            visit = self.visit(stack.pop())
            visits.append(visit)
            stack.extend(sub for sub in visit[4] if sub not in skip)
        return visits


def scan(
    root: Path,
    previous: dict[str, Listing] | None = None,
    found: Callable[[str, str, Signature], None] | None = None,
) -> Scan:
    """Walk the corpus: hidden entries skipped, symlinks followed only when they stay inside.

    With the ``previous`` scan's listings, a folder whose names and signatures are all the
    same is only recorded in ``same``: its files are the ones the cache already has.
    ``found`` is called with each file recorded (document id, path, signature), as soon as
    it is when one process walks."""
    walker = _Walker(root, previous)
    result = Scan()
    if previous is not None and _worth_splitting(previous):
        for visit in _split(walker, previous):
            _record(result, visit, found)
        return _done(result)
    stack = [walker.top]
    while stack:
        visit = walker.visit(stack.pop())
        stack.extend(visit[4])
        _record(result, visit, found)
    return _done(result)


def _worth_splitting(previous: dict[str, Listing]) -> bool:
    if cores() < 2 or not hasattr(os, "fork"):
        return False
    return sum(len(listing[1]) for listing in previous.values()) >= 32 * SPLIT_FROM


def _record(
    result: Scan, visit: Visit, found: Callable[[str, str, Signature], None] | None
) -> None:
    folder, same, listing, files, _ = visit
    result.listing[folder] = listing
    if same:
        result.same.append(folder)
    result.unknown.update(dict(listing[2]))
    result.warnings.extend(listing[3])
    for doc, path, signature in files:
        if doc in result.paths:
            raise two_forms(doc, result.paths[doc], path)
        result.files[doc] = signature
        result.paths[doc] = path
        if found is not None:
            found(doc, path, signature)


def two_forms(doc: str, one: str, other: str) -> SnapshotError:
    """Two files whose paths are one document id: the same name, of the file or of a folder
    above it, in two Unicode forms. The names that differ are shown escaped, which tells
    them apart where the paths look alike."""
    a, b = (os.fsencode(p).decode("utf-8", "backslashreplace") for p in (one, other))
    parts = list(zip(a.split("/"), b.split("/"), strict=False))
    at = next((k for k, (x, y) in enumerate(parts) if x != y), len(parts) - 1)
    kind = "file" if at == len(parts) - 1 else "folder"
    return SnapshotError(
        f"{a} and {b}: the same {kind} name written in two Unicode forms ({parts[at][0]!a} "
        f"and {parts[at][1]!a}: one with its accents as separate characters), so both would be "
        f"document {doc!r}; delete or rename one and run `evalset snapshot` again."
    )


def _done(result: Scan) -> Scan:
    result.total_bytes = sum(signature[1] for signature in result.files.values())
    return result


def _split(walker: _Walker, previous: dict[str, Listing]) -> list[Visit]:
    """Every folder the plain walk would visit, listed by two processes: the previous walk's
    folders are dealt out by their file counts, a new folder is walked by whoever finds it,
    and only folders reached from the top through the listings are kept (one that was
    renamed, hidden or made a symlink since is not)."""
    known = frozenset(previous)
    halves: tuple[list[str], list[str]] = ([], [])
    loads = [0, 0]
    sizes = sorted(
        ((len(listing[1]), folder) for folder, listing in previous.items()), reverse=True
    )
    for size, folder in sizes:
        lighter = 0 if loads[0] <= loads[1] else 1
        halves[lighter].append(folder)
        loads[lighter] += size + 1
    if walker.top not in known:
        halves[0].append(walker.top)

    def walk(folders: list[str]) -> list[Visit | tuple[str, str]]:
        visits: list[Visit | tuple[str, str]] = []
        for folder in folders:
            try:
                visits.extend(walker.walk([folder], known))
            except SnapshotError as exc:  # kept only if the folder is still reached
                visits.append((folder, str(exc)))
        return visits

    with tempfile.TemporaryFile() as output:
        pid = os.fork()
        if pid == 0:  # pragma: no cover - runs in the helper
            status = 1
            try:
                marshal.dump(walk(halves[1]), output)
                output.flush()
                status = 0
            finally:
                os._exit(status)
        try:
            mine = walk(halves[0])
        finally:
            _, status = os.waitpid(pid, 0)
        output.seek(0)
        theirs = marshal.load(output) if status == 0 else walk(halves[1])
    listed: dict[str, Visit | tuple[str, str]] = {item[0]: item for item in mine + theirs}
    # Keep what the plain walk would reach: the top, and each sub-folder of a kept folder.
    visits: list[Visit] = []
    stack = [walker.top]
    while stack:
        item = listed.get(stack.pop())
        if item is None:
            continue
        if len(item) == 2:
            raise SnapshotError(item[1])
        if item[1]:  # the previous listing itself, which callers tell by identity
            item = (item[0], True, previous[item[0]], [], item[4])
        visits.append(item)
        stack.extend(item[4])
    return visits
