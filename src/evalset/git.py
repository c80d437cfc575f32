"""Reading a workspace's git history: files at revisions, release tags, uncommitted changes.

These are the read paths (status, pin, diff, log, check-pin), so they call the ``git``
command directly: one process per question, and no GitPython import (~160 ms) on commands
that must stay fast. Writing (the release commit and tag) goes through GitPython in
``release.py``.
"""

from __future__ import annotations

import os
import re
import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from evalset.errors import EvalsetError
from evalset.fsio import json_loads

PIN_LINE = "pin: "
"""The line of a release tag's message that holds its pin, as JSON."""

TAG_PREFIX = "evalset"


class NotARepository(EvalsetError):
    """The workspace is not inside a git repository."""


class GitError(EvalsetError):
    """git could not answer a question about the history (bad revision, missing objects)."""


def tag_name(set_name: str, version: str) -> str:
    """The release tag of a set version: ``evalset/NAME/vX.Y.Z``."""
    return f"{TAG_PREFIX}/{set_name}/v{version}"


@dataclass(frozen=True)
class Tag:
    """A release tag as git holds it."""

    name: str
    version: str
    """The X.Y.Z part of the tag name."""
    commit: str
    annotated: bool
    date: str
    """When the tag was made (ISO 8601); for a lightweight tag, its commit's date."""
    message: str

    @property
    def pin(self) -> dict[str, Any] | None:
        """The release pin ``evalset release`` wrote into the tag's message, if any."""
        for line in self.message.splitlines():
            if line.startswith(PIN_LINE):
                try:
                    pin = json_loads(line[len(PIN_LINE) :])
                except (ValueError, RecursionError):  # a tag message is anyone's text
                    return None
                return pin if isinstance(pin, dict) else None
        return None


@dataclass(frozen=True, order=True)
class Version:
    major: int
    minor: int
    patch: int

    @classmethod
    def parse(cls, text: str) -> Version | None:
        match = re.fullmatch(r"v?(\d+)\.(\d+)\.(\d+)", text.strip())
        return cls(*(int(g) for g in match.groups())) if match else None

    def bump(self, part: str) -> Version:
        if part == "major":
            return Version(self.major + 1, 0, 0)
        if part == "minor":
            return Version(self.major, self.minor + 1, 0)
        return Version(self.major, self.minor, self.patch + 1)

    def __str__(self) -> str:
        return f"{self.major}.{self.minor}.{self.patch}"


def _run(root: Path, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
    # LC_ALL=C: messages are matched below (shallow history), so they must not be translated.
    env = {**os.environ, "LC_ALL": "C"}
    try:
        done = subprocess.run(
            ["git", *args], cwd=root, capture_output=True, text=True, env=env, check=False
        )
    except OSError as exc:
        raise GitError(f"{root}: cannot run git ({exc.strerror}); install git.") from None
    if check and done.returncode != 0:
        raise GitError(f"{root}: `git {' '.join(args)}` failed: {done.stderr.strip()}.")
    return done


def _show(root: Path, name: str) -> bytes | None:
    """The bytes of ``rev:path``, or None when git cannot show it."""
    try:
        done = subprocess.run(
            ["git", "show", name], cwd=root, capture_output=True, check=False,
            env={**os.environ, "LC_ALL": "C"},
        )  # fmt: skip
    except OSError:
        return None
    return done.stdout if done.returncode == 0 else None


@dataclass(frozen=True)
class Git:
    """The git repository a workspace lies in."""

    root: Path

    @classmethod
    def find(cls, start: Path) -> Git:
        done = _run(start, "rev-parse", "--show-toplevel", check=False)
        if done.returncode != 0:
            raise NotARepository(
                f"{start}: is not inside a git repository, so it has no releases; run "
                "`git init` and commit the workspace first."
            )
        return cls(Path(done.stdout.strip()))

    def run(self, *args: str) -> str:
        return _run(self.root, *args).stdout

    def rel(self, path: Path) -> str:
        """``path`` relative to the repository root, with forward slashes."""
        return Path(os.path.relpath(path.resolve(), self.root.resolve())).as_posix()

    @cached_property
    def shallow(self) -> bool:
        return self.run("rev-parse", "--is-shallow-repository").strip() == "true"

    def commit_of(self, rev: str) -> str | None:
        done = _run(self.root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}", check=False)
        return done.stdout.strip() if done.returncode == 0 else None

    def show(self, rev: str, rel: str) -> str | None:
        """The text of file ``rel`` at ``rev``; None when the file is not there. A revision
        whose objects a shallow clone lacks is an error that says so."""
        shown = _show(self.root, f"{rev}:{rel}")
        if shown is not None:
            from evalset.fsio import TextError, decode_text

            try:
                return decode_text(shown, f"{rel} (at {rev})", "set file").removeprefix("\ufeff")
            except TextError as exc:
                raise GitError(str(exc)) from None
        done = _run(self.root, "show", f"{rev}:{rel}", check=False)
        if (self.shallow and self.commit_of(rev) is None) or "bad object" in done.stderr:
            raise GitError(
                f"{self.root}: is a shallow clone and lacks the history of {rev!r}; run "
                "`git fetch --unshallow --tags` to get it."
            )
        if self.commit_of(rev) is None:
            raise GitError(f"{self.root}: {rev!r} is not a git revision here; check the name.")
        return None

    def first_line(self, rev: str, rel: str) -> str | None:
        """The first line of a file at ``rev``, without reading the rest (manifests are large)."""
        proc = subprocess.Popen(
            ["git", "cat-file", "blob", f"{rev}:{rel}"],
            cwd=self.root,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        assert proc.stdout is not None
        line = proc.stdout.readline()
        proc.stdout.close()
        proc.kill()
        proc.wait()
        return line or None

    def list_files(self, rev: str, folder: str) -> list[str]:
        done = _run(self.root, "ls-tree", "--name-only", f"{rev}:{folder}", check=False)
        return done.stdout.split() if done.returncode == 0 else []

    def tags(self, set_name: str | None = None) -> list[Tag]:
        """Release tags (of one set, or of every set), oldest version first."""
        pattern = f"refs/tags/{TAG_PREFIX}/{set_name}/" if set_name else f"refs/tags/{TAG_PREFIX}/"
        fields = "%(refname:strip=2)%00%(objecttype)%00%(*objectname)%00%(objectname)%00"
        fields += "%(creatordate:iso-strict)%00%(contents)%1e"
        done = _run(self.root, "for-each-ref", f"--format={fields}", pattern, check=False)
        found: list[tuple[Version, Tag]] = []
        for record in done.stdout.split("\x1e"):
            parts = record.lstrip("\n").split("\x00")
            if len(parts) != 6:
                continue
            name, kind, peeled, target, date, message = parts
            version = Version.parse(name.rsplit("/v", 1)[-1])
            if version is None:
                continue
            annotated = kind == "tag"
            commit = peeled if annotated else target
            found.append((version, Tag(name, str(version), commit, annotated, date, message)))
        return [tag for _, tag in sorted(found, key=lambda pair: pair[0])]

    def tag(self, set_name: str, version: str) -> Tag | None:
        name = tag_name(set_name, version)
        return next((t for t in self.tags(set_name) if t.name == name), None)

    def uncommitted(self, rels: list[str]) -> list[str]:
        """Which of these paths differ from HEAD (modified, staged, or not tracked at all)."""
        return [rel for rel, _ in self.uncommitted_states(rels)]

    def uncommitted_states(self, rels: list[str]) -> list[tuple[str, bool]]:
        """Which of these paths differ from HEAD, each with whether git tracks it yet (a
        new file, never added, does not show in ``git commit -a``)."""
        if not rels:
            return []
        done = _run(self.root, "status", "--porcelain", "--untracked-files=all", "--", *rels)
        return [(line[3:], line[:2] != "??") for line in done.stdout.splitlines() if line.strip()]

    def last_commit_of(self, rel: str) -> str | None:
        out = _run(self.root, "log", "-1", "--format=%H", "--", rel, check=False).stdout.strip()
        return out or None


MERGE_DRIVER = (
    "command -v evalset >/dev/null 2>&1 || { echo 'evalset merge driver: the evalset command "
    "is not on PATH, so this set file was not merged item by item; activate the environment "
    "evalset is installed in (or install it with pipx), run `git merge --abort` and merge "
    "again' >&2; exit 1; }; evalset merge-driver %O %A %B %P"
)
"""What `evalset init` registers as ``merge.evalset.driver``. The command is found on PATH
when git runs the driver, as git finds every other tool: a registered interpreter path
(as evalset 0.1 wrote it) breaks when the environment is moved or rebuilt. When evalset is
not on PATH, the merge stops with a sentence saying so, instead of git's "command not
found"."""


def merge_driver_problem(root: Path) -> str | None:
    """Why set files of the repository at ``root`` would not be merged by item id, or None:
    the driver is routed to by ``.gitattributes`` (committed) but not registered in this
    clone's git config (which is not cloned), registered as another command, or not runnable
    because evalset is not on PATH. None, too, when the repository does not route any file
    to it."""
    import shutil

    attributes = root / ".gitattributes"
    try:
        routed = "merge=evalset" in attributes.read_text("utf-8", "replace")
    except OSError:
        routed = False
    if not routed:
        return None
    done = _run(root, "config", "--get", "merge.evalset.driver", check=False)
    registered = done.stdout.strip() if done.returncode == 0 else ""
    fix = "run `evalset init --git-hooks`"
    if not registered:
        return f"the set-file merge driver is not registered in this clone; {fix}"
    if registered != MERGE_DRIVER:
        return (
            f"the set-file merge driver is registered as another command ({registered[:60]}"
            f"{'…' if len(registered) > 60 else ''}), which breaks when its environment moves; "
            f"{fix}"
        )
    if shutil.which("evalset") is None:
        return (
            "the evalset command is not on PATH, so git cannot run the set-file merge driver; "
            "activate the environment evalset is installed in before merging, or install it "
            "with pipx"
        )
    return None
