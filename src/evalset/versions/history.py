"""A set file as it was: at a release, at a git revision, or in the working tree."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from evalset.config import Workspace
from evalset.corpus.current import workspace_store
from evalset.corpus.manifest import SHORT
from evalset.corpus.newest import choose
from evalset.errors import EvalsetError
from evalset.fsio import json_loads
from evalset.git import Git, GitError, Tag, Version, release_named, tag_name
from evalset.gitcmd import FETCH_TAGS
from evalset.sets.setfile import SetFile, load_set, parse_set_text, set_text_at

WORKTREE = "WORKTREE"
"""The name of the working tree where a revision is expected (as git says HEAD)."""


@dataclass
class SetAt:
    """One state of a set file."""

    loaded: SetFile
    label: str
    """How the state is named to the user: ``0.2.0``, ``a1b2c3d``, ``working tree``."""
    commit: str | None
    """The commit it was read at; None for the working tree."""
    tag: Tag | None = None


class SetHistory:
    """The states of one set file of a workspace, read through git."""

    def __init__(self, workspace: Workspace, path: Path) -> None:
        self.workspace = workspace
        self.path = path

    @cached_property
    def git(self) -> Git:
        return Git.find(self.workspace.root)

    @cached_property
    def rel(self) -> str:
        return self.git.rel(self.path)

    @cached_property
    def current(self) -> SetFile:
        return load_set(self.path)

    @cached_property
    def deleted(self) -> bool:
        """Whether the set file is gone, its releases left in git's tags (``released_set_file``):
        they are still read, by the file's name."""
        return not self.path.exists()

    @property
    def name(self) -> str:
        return self.path.stem if self.deleted else self.current.name

    @cached_property
    def releases(self) -> list[Tag]:
        """The set's release tags, oldest first. A clone made without its tags has none,
        which would read as "never released": refused when the header names a release."""
        tags = self.git.tags(self.name)
        if self.deleted:
            return tags
        header = self.current.header
        self.git.require_release_tag(self.path, self.name, header.version if header else None, tags)
        return tags

    def release(self, version: str) -> Tag | None:
        name = tag_name(self.name, version)
        return next((t for t in self.releases if t.name == name), None)

    def latest(self) -> Tag | None:
        """The highest release, on any branch (what the next version counts from)."""
        return self.releases[-1] if self.releases else None

    def ours(self) -> Tag | None:
        """This branch's last release: the one its set file's header names (the release
        commit wrote it), else the highest; what `diff`, the release notes and `status`
        compare with (a release made on another branch is not this branch's)."""
        if self.deleted:
            return self.latest()
        header = self.current.header
        named = release_named(self.releases, header.version if header else None)
        return named or self.latest()

    def at_commit(self, commit: str, label: str, tag: Tag | None = None) -> SetAt:
        text = set_text_at(self.git, commit, self.path, self.name)
        if text is None:
            when = "an earlier" if self.deleted else "a later"
            raise GitError(f"{self.path}: did not exist at {label}; name {when} revision.")
        loaded = parse_set_text(text, self.path, label)
        return SetAt(loaded, label, commit, tag)

    def at_tag(self, tag: Tag) -> SetAt:
        """The set at a release's tag, whatever release its header names; a tag whose
        commit holds no such set is refused (it was moved, or made, by hand)."""
        text = set_text_at(self.git, tag.commit, self.path, self.name)
        if text is None:
            raise GitError(f"{self.path}: tag {tag.name} points at a commit without the set, "
                           f"{_put_back(tag, elsewhere=True)}")  # fmt: skip
        return SetAt(parse_set_text(text, self.path, tag.version), tag.version, tag.commit, tag)

    def at_release(self, tag: Tag) -> SetAt:
        """The set at a release's tag; a tag whose commit holds the set's header of another
        release or of none (a tag moved, or made, by hand, or the release of a set of the
        same name in another workspace of the repository) is refused rather than read as
        this one: `evalset release` commits the header naming the version it tags."""
        state = self.at_tag(tag)
        header = state.loaded.header
        named = header.version if header is not None else None
        if named is None and header is not None:
            raise GitError(
                f"{self.path}: tag {tag.name} points at a commit whose set names no release, "
                f"{_put_back(tag, elsewhere=True)}"
            )
        if named is not None and named != tag.version:
            raise GitError(
                f"{self.path}: tag {tag.name} points at a commit whose set names release "
                f"{named}, {_put_back(tag)}"
            )
        return state

    def at(self, ref: str | None) -> SetAt:
        """``ref``: None or ``WORKTREE`` for the working tree, a release version (``0.2.0``
        or ``v0.2.0``), or any git revision."""
        if ref is None or ref == WORKTREE:
            if self.deleted and self.releases:
                versions = [t.version for t in self.releases]
                pair = " ".join(versions[-2:]) if len(versions) > 1 else f"{versions[0]} REV"
                raise GitError(
                    f"{self.path}: is deleted, so {self.name} has no working copy to compare; "
                    f"name two of its releases ({', '.join(versions)}), or revisions that "
                    f"hold it: `evalset diff {self.name} {pair}`."
                )
            return SetAt(self.current, "working tree", None)
        version = Version.parse(ref)
        if version is not None:
            tag = self.release(str(version))
            if tag is not None:
                return self.at_release(tag)
        commit = self.git.commit_of(ref)
        if commit is None:
            if version is not None:
                raise EvalsetError(self.missing_release(str(version)))
            raise GitError(f"{self.git.root}: {ref!r} is not a release of {self.name} nor a git "
                           "revision; `evalset log` lists the releases.")  # fmt: skip
        return self.at_commit(commit, ref)

    def missing_release(self, version: str) -> str:
        known = ", ".join(t.version for t in self.releases) or "none yet"
        shallow = f" This shallow clone may lack the tag; {FETCH_TAGS}." if self.git.shallow else ""
        return (
            f"{self.path}: {self.name} has no release {version} (no tag "
            f"{tag_name(self.name, version)}; releases: {known}).{shallow}"
        )

    def newest_snapshot(self, commit: str | None) -> str | None:
        """The short id of the newest snapshot of the workspace, in the working tree or at a
        commit (read from the manifests' first lines only). At a commit, the corpus as it
        was cannot be matched without reading it, so the history and ``created`` rules of
        ``evalset.corpus.newest`` decide, with that commit as the head of history."""
        if commit is None:
            ident = workspace_store(self.workspace).newest_id()
            return ident[:SHORT] if ident else None
        folder = self.git.rel(self.workspace.snapshots_dir)
        abouts: dict[str, dict[str, Any]] = {}
        for name in self.git.list_files(commit, folder):
            if not name.endswith(".json"):
                continue
            first = self.git.first_line(commit, f"{folder}/{name}")
            try:
                about = json_loads((first or "").rstrip().removesuffix(",") + "}")["about"]
            except (ValueError, KeyError, TypeError):
                continue
            if isinstance(about, dict) and isinstance(about.get("id"), str):
                abouts[about["id"]] = about
        choice = choose(abouts, repo=self.git.root, head=commit)
        return choice.id[:SHORT] if choice else None


def _put_back(tag: Tag, elsewhere: bool = False) -> str:
    """The end of a sentence about a release tag moved or made by hand: what to do. A tag
    that records no release (no pin in its message) was made by hand, or put back without
    its message: deleting it comes first. ``elsewhere``: the tag's commit holds no release
    of this set file, which is also what a release of a set of the same name in another
    workspace of the repository looks like (git's tags are the repository's)."""
    if elsewhere and tag.pin is not None:
        return (
            "so the tag was moved or made by hand, or it is the release of a set of the same "
            "name in another workspace of this repository (release tags are the repository's: "
            "give one of the two sets another name); else put back the tag `evalset release` "
            f"made (`git fetch --force origin tag {tag.name}` from the remote it was pushed "
            "to), or delete it."
        )
    if tag.pin is None:
        return (
            f"so the tag was made by hand (it records no release); delete it (`git tag -d "
            f"{tag.name}`), or, if `evalset release` made it and this one replaced it, put "
            f"back the original (`git fetch --force origin tag {tag.name}` from the remote it "
            "was pushed to)."
        )
    return (
        "so the tag was moved or made by hand; put back the tag `evalset release` made, which "
        f"records the release (`git fetch --force origin tag {tag.name}` from the remote it "
        "was pushed to), or delete it."
    )
