"""Whether a corpus folder that is not (wholly) here is one DVC or git keeps elsewhere.

A clone holds a DVC-tracked corpus only after ``dvc pull`` (a CI job may skip it, or it may
fail): the ``.dvc`` file is committed, the files are not. A corpus that is a git submodule
(or lies in one, or holds one) is there only after ``git submodule update --init``, which
``git clone`` and ``actions/checkout`` skip unless asked: its folder is left empty. A
sparse checkout (``git sparse-checkout``) may leave part of the corpus out. That is
not "the corpus changed" nor "it has no documents": a snapshot of it would record an empty
corpus, and every citation would read as deleted. DVC is looked at only when the folder is
missing or empty, submodules only where the repository has a ``.gitmodules`` file, a
sparse checkout only where it has sparse-checkout patterns, so a corpus that is here
costs a few ``stat`` calls.

Part of a corpus that is here may be kept elsewhere too (``missing_here``, from the walk's
listings): a document added on its own (``dvc add corpus/a.md`` leaves ``a.md.dvc``) or a
folder inside the corpus tracked by DVC and not pulled; a DVC-tracked folder pulled file by
file (``dvc pull corpus/a.md``); a symlink into DVC's cache (``cache.type symlink``) or
git-annex's objects whose content this clone does not hold. Those documents are absent, not
deleted. A symlink into one of those stores is followed like one inside the corpus: the
stores hold each content once, under its hash (``evalset.corpus.stores``).
"""

from __future__ import annotations

import json
import os
from array import array
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalset.corpus.manifest import SnapshotError
from evalset.corpus.stores import DVC_PULL, dvc_cache, store_of
from evalset.fsio import read_found

if TYPE_CHECKING:
    from evalset.corpus.walk import Listing

SUBMODULE_UPDATE = "`git submodule update --init`"


@dataclass(frozen=True)
class Absent:
    """Why the corpus folder is not (wholly) here, and the command that brings it."""

    why: str
    """What follows "the corpus folder ": ``is tracked by DVC in corpus.dvc and missing here
    (not pulled)``."""
    fix: str


class NotPulled(SnapshotError):
    """Part of the corpus is kept elsewhere and not here (``absent`` says what and the fix)."""

    def __init__(self, corpus: Path, absent: Absent) -> None:
        super().__init__(
            f"{corpus}: the corpus folder {absent.why}; run {absent.fix}, then take the snapshot."
        )
        self.absent = absent


def _outs(dvc_file: Path) -> list[str]:
    """The output paths a ``.dvc`` file or a ``dvc.lock`` records (relative to its folder)."""
    return [e["path"] for e in _out_entries(dvc_file)]


def _out_entries(dvc_file: Path) -> list[dict[str, Any]]:
    """The outputs a ``.dvc`` file or a ``dvc.lock`` records, each with a ``path`` text."""
    from ruamel.yaml import YAML
    from ruamel.yaml.error import YAMLError

    try:  # (a named pipe, found by its name, is no file: never waited on, as none)
        data: Any = YAML(typ="safe").load(read_found(dvc_file).decode("utf-8"))
    except (OSError, UnicodeDecodeError, YAMLError, ValueError, RecursionError):
        return []  # (a date that does not exist, nesting too deep): no outputs read
    if not isinstance(data, dict):
        return []
    outs, stages = data.get("outs"), data.get("stages") if dvc_file.name == "dvc.lock" else None
    entries = list(outs) if isinstance(outs, list) else []
    for stage in stages.values() if isinstance(stages, dict) else ():
        if isinstance(stage, dict) and isinstance(stage.get("outs"), list):
            entries.extend(stage["outs"])
    return [e for e in entries if isinstance(e, dict) and isinstance(e.get("path"), str)]


def dvc_file_of(corpus: Path) -> Path | None:
    """The ``.dvc`` file (or ``dvc.lock``) that tracks ``corpus`` or a folder holding it, if
    any: ``corpus.dvc`` beside it, or the same for a folder above, up to the repository's
    top (the folder holding ``.dvc/`` or ``.git``)."""
    corpus = corpus.absolute()
    for folder in (corpus, *corpus.parents):
        parent = folder.parent
        for candidate in (parent / f"{folder.name}.dvc", parent / "dvc.lock"):
            if not candidate.is_file():
                continue
            for out in _outs(candidate):
                tracked = (parent / out).absolute()
                if tracked == corpus or tracked in corpus.parents:
                    return candidate
        if (parent / ".dvc").is_dir() or (parent / ".git").exists() or parent == folder:
            return None
    return None


def _empty(folder: Path) -> bool:
    try:
        return not any(folder.iterdir())
    except OSError:
        return False


def not_pulled(corpus: Path) -> Absent | None:
    """Why the corpus folder is not (wholly) here, when DVC tracks it and it is missing or
    empty (not pulled), or a git submodule at, above or inside it is not checked out; None
    otherwise."""
    corpus = corpus.absolute()
    top = next((f for f in (corpus, *corpus.parents) if (f / ".git").exists()), None)
    left_out = (_submodule_not_checked_out(corpus, top) or _sparse(corpus, top)) if top else None
    if left_out is not None:
        return left_out
    if corpus.is_dir() and not _empty(corpus):
        return None
    tracked = dvc_file_of(corpus)
    if tracked is None:
        return None
    state = "empty" if corpus.is_dir() else "missing"
    return Absent(f"is tracked by DVC in {tracked.name} and {state} here (not pulled)", DVC_PULL)


def _submodule_not_checked_out(corpus: Path, top: Path) -> Absent | None:
    """The git submodule at, above or inside ``corpus`` that this clone has not checked out
    (its folder holds no ``.git``), from the ``.gitmodules`` of the repository (at ``top``)
    it is in."""
    if not (top / ".gitmodules").is_file():
        return None
    from evalset import gitcmd

    try:
        listed = gitcmd.run(top, "config", "-f", ".gitmodules", "--get-regexp", r"\.path$")
    except OSError:
        return None
    for line in listed.stdout.splitlines():
        _, _, path = line.partition(" ")
        folder = top / path
        if not path or (folder / ".git").exists():
            continue
        if folder == corpus:
            return Absent(f"is the git submodule {path}, not checked out here", SUBMODULE_UPDATE)
        if folder in corpus.parents:
            return Absent(f"is in the git submodule {path}, not checked out here", SUBMODULE_UPDATE)
        if corpus in folder.parents:
            return Absent(f"holds the git submodule {path}, not checked out here", SUBMODULE_UPDATE)
    return None


def _sparse(corpus: Path, top: Path) -> Absent | None:
    """The corpus files that git's sparse checkout leaves out of the working tree (their
    index entries are marked skip-worktree), looked for only where the repository (at
    ``top``) has sparse-checkout patterns."""
    git_dir = top / ".git"
    if git_dir.is_file():  # a linked worktree or a submodule: "gitdir: <its git folder>"
        try:
            pointed = read_found(git_dir).decode("utf-8").strip()  # (never waited on)
            pointed = pointed.removeprefix("gitdir:").strip()
        except (OSError, UnicodeDecodeError):
            return None
        git_dir = (top / pointed).resolve()
    if not (git_dir / "info" / "sparse-checkout").is_file():
        return None
    from evalset import gitcmd

    rel = corpus.relative_to(top).as_posix() if corpus != top else "."
    try:
        listed = gitcmd.run(top, "ls-files", "-t", "-z", "--", rel)
    except OSError:
        return None
    left = [entry[2:] for entry in listed.stdout.split("\0") if entry.startswith("S ")]
    if not left:
        return None
    more = f" and {len(left) - 1} more file(s)" if len(left) > 1 else ""
    why = f"is not all checked out here: git's sparse checkout leaves out {left[0]}{more}"
    cone = gitcmd.run(top, "config", "--bool", "core.sparseCheckoutCone").stdout.strip()
    if cone != "true":  # patterns: adding one may not undo the pattern that leaves it out
        return Absent(why, "`git sparse-checkout disable`")
    # (git takes the folder from where it runs: this process's folder)
    return Absent(why, f"`git sparse-checkout add {os.path.relpath(corpus)}`")


_DANGLING = (-3).to_bytes(8, "little", signed=True)
"""How the walk records a symlink to nothing, in the first field of its signature."""


def missing_here(corpus: Path, listings: Mapping[str, Listing]) -> Absent | None:
    """What the corpus folder, as the walk listed it, lacks that DVC or git-annex keeps
    elsewhere (see the module docstring), with the fix; None when nothing is. (A symlink to
    nothing inside the corpus is no document, as at a revision: what it named is gone from
    the corpus.) Costs a scan of the listings; a ``.dvc`` file is read only when the file it
    is named after is not listed beside it."""
    corpus = Path(os.path.normpath(corpus.absolute()))
    for folder, (joined, packed, _, _) in listings.items():
        if _DANGLING in packed:
            found = _dangling(corpus, folder, joined, packed)
            if found is not None:
                return found
        if ".dvc" not in joined:
            continue
        names = joined.split("\0")
        present = set(names)
        for name in names:
            if name.endswith(".dvc") and name[:-4] not in present:  # (a file beside it: pulled)
                found = _dvc_outs_missing(corpus, Path(folder, name), listings)
                if found is not None:
                    return found
    tracker = dvc_file_of(corpus)
    return _dvc_outs_missing(corpus, tracker, listings) if tracker is not None else None


def _dangling(corpus: Path, folder: str, joined: str, packed: bytes) -> Absent | None:
    """The first symlink of ``folder`` into a content store whose content is not there."""
    kinds = array("q")
    kinds.frombytes(packed)
    names = joined.split("\0")
    for k, kind in enumerate(kinds[0::4]):
        if kind != -3:
            continue
        path = os.path.join(folder, names[k])
        fix = store_of(os.path.realpath(path), str(corpus))
        if fix is not None:
            doc = os.path.relpath(path, corpus).replace(os.sep, "/")
            tool = "DVC's cache" if fix == DVC_PULL else "git-annex's objects"
            return Absent(f"holds {doc}, a symlink into {tool} whose content is not here", fix)
    return None


def _dvc_outs_missing(
    corpus: Path, dvc_file: Path, listings: Mapping[str, Listing]
) -> Absent | None:
    """What ``dvc_file`` tracks in the corpus that is not here: an output missing, or files
    of an output folder that neither the folder nor DVC's cache holds."""
    for entry in _out_entries(dvc_file):
        out = Path(os.path.normpath(dvc_file.parent / entry["path"]))
        if out != corpus and corpus not in out.parents and out not in corpus.parents:
            continue  # tracks something outside the corpus
        shown = os.path.relpath(dvc_file, corpus).replace(os.sep, "/")
        if not os.path.lexists(out):
            what = os.path.relpath(out, corpus).replace(os.sep, "/")
            return Absent(
                f"holds {what}, tracked by DVC in {shown} and missing here (not pulled)", DVC_PULL
            )
        digest = entry.get("md5")
        if not (isinstance(digest, str) and digest.endswith(".dir") and out.is_dir()):
            continue
        count = entry.get("nfiles")
        # as many files as DVC recorded (the usual case): nothing to read
        if isinstance(count, int) and out not in corpus.parents and _listed(listings, out) >= count:
            continue
        lacking = list(_not_pulled(corpus, out, digest, listings))
        if lacking:
            more = f" and {len(lacking) - 1} more file(s)" if len(lacking) > 1 else ""
            if out == corpus or out in corpus.parents:
                shown = dvc_file.name
            return Absent(
                f"is tracked by DVC in {shown} and not all pulled here ({lacking[0]}{more} "
                "missing)",
                DVC_PULL,
            )
    return None


def _listed(listings: Mapping[str, Listing], out: Path) -> int:
    """How many files (of any type, hidden ones left out) the listings hold in ``out``."""
    top = str(out)
    return sum(
        joined.count("\0") + 1
        for folder, (joined, *_) in listings.items()
        if joined and ((f := os.path.normpath(folder)) == top or f.startswith(top + os.sep))
    )


def _not_pulled(
    corpus: Path, out: Path, digest: str, listings: Mapping[str, Listing]
) -> Iterator[str]:
    """The documents (ids) of DVC output folder ``out`` missing from the corpus folder whose
    content DVC's cache does not hold either (a file deleted by hand is held there, and is
    a change like any other). Nothing when the cache does not hold the folder's list."""
    cache = dvc_cache(str(corpus))
    if cache is None:
        return
    entries = _cached(cache, digest)
    if not isinstance(entries, list):
        return
    names = {
        os.path.normpath(folder): set(joined.split("\0"))
        for folder, (joined, *_) in listings.items()
    }
    for entry in entries:
        relpath, md5 = (entry.get("relpath"), entry.get("md5")) if isinstance(entry, dict) else (
            None, None)  # fmt: skip
        if not isinstance(relpath, str) or not isinstance(md5, str):
            continue
        path = Path(os.path.normpath(out / relpath))
        if corpus not in path.parents:
            continue
        doc = path.relative_to(corpus).as_posix()
        if any(part.startswith(".") for part in doc.split("/")):
            continue  # the walk does not look at hidden files
        if path.name in names.get(str(path.parent), ()):
            continue
        if _cached_path(cache, md5) is None:
            yield doc


def _cached_path(cache: str, digest: str) -> str | None:
    """Where DVC's cache holds the object of ``digest`` (DVC 3's layout, then DVC 2's)."""
    for path in (
        os.path.join(cache, "files", "md5", digest[:2], digest[2:]),
        os.path.join(cache, digest[:2], digest[2:]),
    ):
        if os.path.isfile(path):
            return path
    return None


def _cached(cache: str, digest: str) -> Any:
    """The JSON object DVC's cache holds for ``digest`` (a folder's list of files), or None."""
    path = _cached_path(cache, digest)
    if path is None:
        return None
    try:
        return json.loads(read_found(Path(path)))  # (a named pipe put there is not waited on)
    except (OSError, ValueError, RecursionError):
        return None
