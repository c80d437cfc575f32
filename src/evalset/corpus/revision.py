"""The corpus as it was: every document at a git revision (through DVC's filesystem, so
git- and DVC-tracked corpora both work), and one document's text where it can still be
found (working tree, git, DVC), for diffs of changed sections."""

from __future__ import annotations

import logging
import os
import posixpath
from collections.abc import Iterable, Iterator, Mapping
from functools import lru_cache
from pathlib import Path
from typing import Any

from evalset import gitcmd
from evalset.corpus import HashMode, lfs, sectioner_for
from evalset.corpus.manifest import (
    TEXT_LIMIT,
    SnapshotError,
)
from evalset.corpus.names import case_alike, nfc, same_name, uncitable
from evalset.corpus.reading import parse_document
from evalset.corpus.table import Document
from evalset.corpus.walk import corpus_file, two_forms
from evalset.fsio import read_found


def run_git(root: Path, *args: str) -> str | None:
    try:
        done = gitcmd.run(root, *args)
    except OSError:
        return None
    return done.stdout.strip() if done.returncode == 0 else None


def _from_top(repo: Path, rel: str) -> str:
    """``rel`` (a path below the workspace folder ``repo``) as DVC's filesystem names it:
    from the top of the git repository, which the workspace may lie below."""
    return gitcmd.prefix(repo) + rel.strip("/")


_LINKS_FOLLOWED = 40
"""Symlinks followed on the way to the corpus folder before giving up (as the system does)."""


@lru_cache(maxsize=256)
def corpus_in_tree(repo: Path, commit: str, corpus_rel: str) -> str:
    """The corpus folder ``corpus_rel`` (a path below the workspace folder ``repo``) as git
    holds it at ``commit``, below that folder (``../`` where it leads up): a symlink git
    holds on the way (the corpus folder committed as a link to the folder with the
    documents, as the working tree follows it) is followed while it stays in the
    repository. ``corpus_rel`` itself when there is none, or it leads out."""
    top = gitcmd.prefix(repo)
    path = posixpath.normpath(top + corpus_rel.strip("/"))
    for _ in range(_LINKS_FOLLOWED):
        if path == ".":  # the repository's top (`ls-tree` would list what is in it)
            break
        parts = path.split("/")
        above = ["/".join(parts[: k + 1]) for k in range(len(parts))]
        listed = run_git(repo, "ls-tree", "-z", "--full-tree", commit, "--", *above) or ""
        entries = [e.split("\t", 1) for e in listed.split("\0") if e[:7] == "120000 "]
        link = next((name for _, name in entries if name in above), None)
        if link is None:
            break
        named = git_blobs(repo, [f"{commit}:{link}"]).get(f"{commit}:{link}", b"/")
        target = posixpath.normpath(posixpath.join(posixpath.dirname(link), os.fsdecode(named)))
        if named.startswith(b"/") or target == ".." or target.startswith("../"):
            return corpus_rel  # out of the repository: not in git's history
        path = target + path[len(link) :]
    else:
        return corpus_rel  # a loop of links
    return posixpath.relpath(path, top or ".")


def read_revision(
    repo: Path, corpus_rel: str, rev: str, mode: HashMode, store_text: bool | None
) -> tuple[dict[str, Document], list[str]]:
    """Every document of the corpus at a git revision, through DVC's filesystem, so corpora
    tracked by git and by DVC both work."""
    corpus_rel = posixpath.normpath(_from_top(repo, corpus_in_tree(repo, rev, corpus_rel)))
    submodule = _submodule_at(repo, rev, corpus_rel)
    if submodule is not None:
        raise SnapshotError(
            f"{repo}: at revision {rev!r}, the corpus folder {submodule}, and git's history "
            "holds a submodule's commit, not its files, so --rev cannot read them; to record "
            "the corpus of that revision, check it out with its submodules (`git checkout "
            "REV && git submodule update --init`) and run `evalset snapshot` there."
        )
    # scmrepo's LFS filter logs each pointer whose content it lacks; one sentence says it here
    logging.getLogger("scmrepo").setLevel(logging.ERROR)
    try:
        fs = _dvc_files(repo, rev)
        if not fs.isdir(corpus_rel):
            raise SnapshotError(
                f"{repo}: has no folder {corpus_rel!r} at revision {rev!r}; check the revision."
            )
        names = sorted(fs.find(corpus_rel, detail=False))
    except SnapshotError:
        raise
    except Exception as exc:  # dvc/scmrepo raise many types for a bad revision
        if not_in_dvc_cache(exc):
            raise SnapshotError(
                f"{repo}: the corpus folder {corpus_rel} is tracked by DVC, and at revision "
                f"{rev!r} its content is not in the DVC cache; run {fetch_hint(rev)} to bring "
                "it, then snapshot again."
            ) from None
        raise SnapshotError(
            f"{repo}: cannot read revision {rev!r} ({exc}); check the revision."
        ) from None
    # a corpus at the repository's top is '.', whose files DVC names './a.md' and git 'a.md'
    prefix = "" if corpus_rel == "." else corpus_rel.rstrip("/") + "/"
    docs = [posixpath.normpath(n.lstrip("/")) for n in names]
    wanted = [n for n in docs if sectioner_for(n) is not None and not _hidden(n[len(prefix) :])]
    links = _symlinks_at(repo, rev, corpus_rel)
    depth = gitcmd.prefix(repo).count("/")  # the repository's top, which names are from
    top = Path(os.path.realpath(repo)).parents[depth - 1] if depth else Path(repo)
    files = set(docs)
    ends = {n: _followed(n, links, top) for n in wanted if n in links}
    # as the working tree's walk: a link is read as the file it leads to inside the corpus;
    # one leading outside is said, one to a folder, to nothing or round in a circle is not
    read_as: dict[str, str | None] = {}
    for name in wanted:
        end = ends.get(name, name)
        read_as[name] = end if end in files and end.startswith(prefix) else None
    sizes = {n: fs.size(target) or 0 for n, target in read_as.items() if target is not None}
    store = sum(sizes.values()) < TEXT_LIMIT if store_text is None else store_text
    documents: dict[str, Document] = {}
    read_from: dict[str, str] = {}  # document id -> the name git holds it under
    warnings: list[str] = []
    for name in wanted:
        target = read_as[name]
        if target is None:
            end = ends[name]
            if end is not None and not end.startswith(prefix):
                warnings.append(
                    f"{name[len(prefix) :]}: symlink to outside the corpus; not followed"
                )
            continue
        try:
            data = fs.cat_file(target)
        except Exception as exc:
            why, fix = f"cannot be read ({exc})", "check the revision"
            if not_in_dvc_cache(exc):
                why, fix = (
                    "is tracked by DVC, and its content is not in the DVC cache",
                    f"run {fetch_hint(rev)} to bring it",
                )
            raise SnapshotError(
                f"{name.lstrip('/')}: at revision {rev!r}, {why}; {fix}, then snapshot again."
            ) from None
        result = parse_document(nfc(name[len(prefix) :]), data, mode, store)
        if result.pointer:
            raise SnapshotError(
                f"{name.lstrip('/')}: is a Git LFS pointer at revision {rev!r}, and this clone "
                f"does not hold its content; run `git lfs fetch origin {rev}`, then snapshot "
                "again."
            )
        if result.warning and result.warning.startswith("!"):  # cannot be read at all
            raise SnapshotError(f"{result.warning[1:]}.")
        if result.warning:
            warnings.append(result.warning)
        if result.doc in read_from:  # as the working tree's walk: never one for the other
            raise two_forms(result.doc, read_from[result.doc], name)
        read_from[result.doc] = name
        if result.entry is not None:
            documents[result.doc] = result.entry
            if note := uncitable(result.doc):
                warnings.append(note)
    children: dict[str, set[str]] = {}  # as the walk warns of names alike but for case
    for doc in read_from:
        parts = doc.split("/")
        for k in range(len(parts)):
            children.setdefault("/".join(parts[:k]), set()).add(parts[k])
    for folder in sorted(children):
        warnings += case_alike(folder, children[folder])
    return documents, warnings


def _dvc_files(repo: Path, rev: str) -> Any:
    """The files of the repository at ``rev`` as DVC's filesystem reads them, named from the
    top of the git repository: into a DVC project in a subfolder too (`dvc init --subdir`,
    a monorepo's), whose files it would otherwise not show."""
    from dvc.api import DVCFileSystem

    return DVCFileSystem(str(repo), rev=rev, subrepos=True)


def not_in_dvc_cache(exc: BaseException) -> bool:
    """Whether DVC failed to read a file (or a folder's listing) because its content is not
    in the DVC cache: a clone before `dvc fetch`, a cache after `dvc gc`."""
    return type(exc).__name__ == "DataIndexDirError" or (
        isinstance(exc, FileNotFoundError) and "No storage files available" in str(exc)
    )


def fetch_hint(rev: str) -> str:
    """The commands that bring a revision's DVC-tracked content into the cache."""
    return f"`dvc fetch --rev {rev}` (or `dvc pull`)"


def _submodule_at(repo: Path, rev: str, corpus: str) -> str | None:
    """How the corpus folder (``corpus``, from the repository's top) is or holds a git
    submodule at ``rev`` (git keeps only the submodule's commit, not its files), or None."""
    parts = corpus.strip("/").split("/")
    for n in range(1, len(parts) + 1):
        folder = "/".join(parts[:n])
        listed = run_git(repo, "ls-tree", "--full-tree", rev, "--", folder) or ""
        if listed.startswith("160000 "):
            return f"is {'' if n == len(parts) else 'in '}the git submodule {folder}"
    listed = run_git(repo, "ls-tree", "-r", "--full-tree", rev, "--", corpus.strip("/")) or ""
    inside = [line.split("\t", 1)[1] for line in listed.splitlines() if line.startswith("160000 ")]
    return f"holds the git submodule {inside[0]}" if inside else None


def _symlinks_at(repo: Path, rev: str, corpus: str) -> dict[str, str]:
    """The symlinks git holds under the corpus folder at ``rev`` (path from the top -> the
    path they name), which reading the tree gives as files holding that path."""
    listed = run_git(repo, "ls-tree", "-r", "-z", "--full-tree", rev, "--", corpus.strip("/"))
    links = [line.split("\t", 1)[1] for line in (listed or "").split("\0") if line[:7] == "120000 "]
    if not links:
        return {}
    blobs = git_blobs(repo, [f"{rev}:{name}" for name in links])
    return {
        name: blobs[f"{rev}:{name}"].decode("utf-8", "replace")
        for name in links
        if f"{rev}:{name}" in blobs
    }


def _followed(name: str, links: dict[str, str], top: Path) -> str | None:
    """Where a symlink of the tree leads, through links to links, as the working tree
    follows it: a path from the repository's top, or the real path of a file outside the
    repository (an absolute link is a path on this machine; ``top`` is the top here); None
    for a link that goes round in a circle."""
    seen = {name}
    while name in links:
        named = links[name]
        if named.startswith("/"):
            real, root = os.path.realpath(named), os.path.realpath(top)
            if not real.startswith(root + os.sep):
                return real
            target = Path(os.path.relpath(real, root)).as_posix()
        else:
            target = posixpath.normpath(posixpath.join(posixpath.dirname(name), named))
        if target in seen:
            return None
        seen.add(target)
        name = target
    return name


def _hidden(doc: str) -> bool:
    return any(part.startswith(".") for part in doc.split("/"))


def git_blobs(repo: Path, names: Iterable[str]) -> dict[str, bytes]:
    """The contents of ``commit:path`` names, read by one ``git cat-file --batch``; names git
    does not have (or that the batch protocol cannot carry) are left out."""
    wanted = sorted({name for name in names if "\n" not in name})
    if not wanted:
        return {}
    try:
        done = gitcmd.run_bytes(
            repo, "cat-file", "--batch", stdin="".join(f"{name}\n" for name in wanted).encode()
        )
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
            if header[1] == b"blob":  # (an LFS pointer: the document, where the clone has it)
                found[name] = lfs.content(repo, out[pos : pos + size])
            pos += size + 1
    return found


def git_name(commit: str, corpus_rel: str, doc: str) -> str:
    """How git names a corpus document at a commit, for git run in the workspace folder:
    ``./`` makes the path relative to that folder, which may lie below the repository's
    top (git names ``commit:path`` from the top)."""
    return f"{commit}:./{corpus_rel.strip('/')}/{doc}"


def lfs_not_fetched(repo: Path, commit: str, corpus_rel: str, doc: str) -> bool:
    """Whether git holds the document at ``commit`` as a Git LFS pointer whose content this
    clone has not fetched (``git lfs pull`` fetches the checked-out commit's only)."""
    name = git_name(commit, corpus_in_tree(repo, commit, corpus_rel), doc)
    held = git_blobs(repo, [name]).get(name)
    return held is not None and lfs.pointer(held) is not None


def _name_in_tree(repo: Path, commit: str, corpus_rel: str, doc: str) -> str | None:
    """The path under which git holds document ``doc`` at ``commit`` when its name there is
    in another Unicode form than the id (``evalset.corpus.names``)."""
    listed = run_git(repo, "ls-tree", "-r", "-z", "--name-only", f"{commit}:./{corpus_rel}")
    if listed is None:
        return None
    return same_name(doc, listed.split("\0"))


def working_file(repo: Path, corpus_rel: str, doc: str) -> bytes | None:
    """The bytes of document ``doc`` in the working tree, found as the walk finds it (its
    name on disk in either Unicode form, ``corpus_file``); None when it is not there."""
    path = corpus_file(repo / corpus_rel, doc)
    if path is None:
        return None
    try:  # (``corpus_file`` found a regular file: one made a named pipe since is none)
        return read_found(path)
    except OSError:
        return None


def git_file(
    repo: Path,
    corpus_rel: str,
    commit: str,
    doc: str,
    blobs: Mapping[str, bytes] | None = None,
) -> tuple[str, bytes] | None:
    """The name under which git holds document ``doc`` at ``commit`` (its id, or the id in
    another Unicode form) and its bytes (from ``blobs`` when they were read together before,
    see ``git_blobs``); None when git does not hold it there."""
    corpus_rel = corpus_in_tree(repo, commit, corpus_rel)
    name = git_name(commit, corpus_rel, doc)
    shown = blobs.get(name) if blobs is not None else git_blobs(repo, [name]).get(name)
    if shown is None and not doc.isascii():  # committed under its name in another form
        other = _name_in_tree(repo, commit, corpus_rel, doc)
        if other is not None and other != doc:
            doc, name = other, git_name(commit, corpus_rel, other)
            shown = git_blobs(repo, [name]).get(name)
    return None if shown is None else (doc, shown)


def document_versions(
    repo: Path,
    corpus_rel: str,
    commit: str | None,
    doc: str,
    mode: HashMode,
    blobs: Mapping[str, bytes] | None = None,
    uncached: list[str] | None = None,
) -> Iterator[Document]:
    """Where a document's text may still be found, cheapest first: the working-tree file, the
    file at ``commit`` through git (from ``blobs`` when they were read together before, see
    ``git_blobs``), the file at ``commit`` through DVC's filesystem (for a DVC-tracked
    corpus). Lazy: DVC is imported only if nothing before it was wanted. ``uncached``: where
    the document is named when DVC tracks it at ``commit`` but its cache lacks that
    version, so that a caller can say so rather than guess why no text was found."""
    data = working_file(repo, corpus_rel, doc)
    if data is not None:
        entry = parse_document(doc, data, mode, True).entry
        if entry is not None:
            yield entry
    if not commit:
        return
    held = git_file(repo, corpus_rel, commit, doc, blobs)
    if held is not None:
        entry = parse_document(held[0], held[1], mode, True).entry
        if entry is not None:
            yield entry
        return
    try:
        held_at = corpus_in_tree(repo, commit, corpus_rel)
        data = _dvc_files(repo, commit).cat_file(
            posixpath.normpath(_from_top(repo, f"{held_at}/{doc}"))
        )
    except Exception as exc:  # any failure means the text is not available this way
        if uncached is not None and not_in_dvc_cache(exc):
            uncached.append(doc)
        return
    entry = parse_document(doc, data, mode, True).entry
    if entry is not None:
        yield entry
