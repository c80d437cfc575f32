"""Reading a workspace's git history: files at revisions, release tags, uncommitted changes.

These are the read paths (status, pin, diff, log, check-pin), so they call the ``git``
command directly: one process per question, and no GitPython import (~160 ms) on commands
that must stay fast. Writing (the release commit and tag) goes through GitPython in
``release.py``.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any

from evalset import gitcmd
from evalset.errors import EvalsetError
from evalset.fsio import NotAFile, json_loads, not_a_file, read_found
from evalset.gitcmd import FETCH_HISTORY, FETCH_TAGS, GitUnusable
from evalset.workspace import display_path

PIN_LINE = "pin: "
"""The line of a release tag's message that holds its pin, as JSON."""

TAG_PREFIX = "evalset"

RELEASE_RECORD = "record of a release begun (evalset writes it there)"
"""What the file ``Git._release_record`` names is, as a sentence refusing it says."""


class NotARepository(EvalsetError):
    """The workspace is not inside a git repository."""


class GitError(EvalsetError):
    """git could not answer a question about the history (bad revision, missing objects)."""


class NoFileHere(GitUnusable):
    """A file git or evalset keeps by a fixed name in the repository (``.gitattributes``,
    the record of a release begun) is there but is no regular file: a named pipe would keep
    git, and evalset, waiting for a writer, and a folder, a socket or a device holds no
    file either wrote. Nothing can be told of the repository until it is removed."""

    def __init__(self, refused: NotAFile, what: str) -> None:
        shown = display_path(refused.path.parent) / refused.path.name  # the link, if one
        super().__init__(refused.sentence(what, "remove it", shown))


class TagsMissing(GitUnusable):
    """A set names a release whose tag this clone lacks (a clone made without its tags)."""


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
        # ASCII digits, no leading zero (as semver): `01.2.3` would name 1.2.3 a second way,
        # and `\d` takes any script's digits
        number = "(0|[1-9][0-9]*)"
        match = re.fullmatch(rf"v?{number}\.{number}\.{number}", text.strip())
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
    try:
        done = gitcmd.run(root, *args)
    except OSError as exc:
        raise GitError(f"{root}: cannot run git ({exc.strerror}); install git.") from None
    if check and done.returncode != 0:
        raise GitError(f"{root}: `git {' '.join(args)}` failed: {done.stderr.strip()}.")
    return done


def _show(root: Path, name: str) -> bytes | None:
    """The bytes of ``rev:path``, or None when git cannot show it."""
    try:
        done = gitcmd.run_bytes(root, "show", name)
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
        return gitcmd.is_shallow(self.root)

    def history_complete(self, commit: str) -> bool:
        """Whether every ancestor of ``commit`` is in this clone (see ``gitcmd``)."""
        return not self.shallow or gitcmd.history_complete(self.root, commit)

    def commit_of(self, rev: str) -> str | None:
        done = _run(self.root, "rev-parse", "--verify", "-q", f"{rev}^{{commit}}", check=False)
        return done.stdout.strip() if done.returncode == 0 else None

    def push_remote(self) -> str | None:
        """The remote a plain `git push` sends the current branch to, chosen as git chooses
        it (the branch's ``pushRemote``, ``remote.pushDefault``, the branch's ``remote``),
        else the repository's only remote, else ``origin``; None where none is chosen (no
        remote, or several and none of them ``origin``)."""
        branch = _run(self.root, "symbolic-ref", "-q", "--short", "HEAD", check=False)
        keys = ["remote.pushDefault"]
        if branch.returncode == 0:
            name = branch.stdout.strip()
            keys = [f"branch.{name}.pushRemote", *keys, f"branch.{name}.remote"]
        for key in keys:
            done = _run(self.root, "config", "--get", key, check=False)
            if done.returncode == 0 and done.stdout.strip() not in ("", "."):
                return done.stdout.strip()
        remotes = _run(self.root, "remote", check=False).stdout.split()
        if len(remotes) == 1:
            return remotes[0]
        return "origin" if "origin" in remotes else None  # git's own default

    def holds(self, commit: str, rev: str = "HEAD") -> bool:
        """Whether ``commit`` is in the history of ``rev`` (is it, or one of its ancestors)."""
        done = _run(self.root, "merge-base", "--is-ancestor", commit, rev, check=False)
        return done.returncode == 0

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
            raise GitUnusable(
                f"{self.root}: is a shallow clone and lacks the history of {rev!r}; "
                f"{FETCH_HISTORY}."
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
            encoding=gitcmd.ENCODING,
            errors="surrogateescape",
            env=gitcmd.environment(self.root),
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
            # evalset/NAME/vX.Y.Z exactly: a set's name holds no "/", so evalset/s/x/v9.0.0
            # is no release of s (nor of any set)
            folders, _, tail = name.rpartition("/")
            version = Version.parse(tail[1:]) if tail.startswith("v") else None
            if version is None or folders.count("/") != TAG_PREFIX.count("/") + 1:
                continue
            annotated = kind == "tag"
            commit = peeled if annotated else target
            found.append((version, Tag(name, str(version), commit, annotated, date, message)))
        return [tag for _, tag in sorted(found, key=lambda pair: pair[0])]

    def tag(self, set_name: str, version: str) -> Tag | None:
        name = tag_name(set_name, version)
        return next((t for t in self.tags(set_name) if t.name == name), None)

    def uncommitted_states(self, rels: list[str]) -> list[tuple[str, str]]:
        """Which of these paths differ from HEAD (in the index or the working tree), each
        with how: ``changed`` (tracked), ``new`` (never added: ``git commit -a`` leaves it
        out) or ``ignored`` (a .gitignore rule keeps it out of every commit)."""
        if not rels:
            return []
        done = _run(
            self.root, "status", "--porcelain", "--untracked-files=all", "--ignored", "--", *rels
        )
        kinds = {"??": "new", "!!": "ignored"}
        return [
            (line[3:], kinds.get(line[:2], "changed"))
            for line in done.stdout.splitlines()
            if line.strip()
        ]

    def as_head(self, rel: str) -> bool:
        """Whether the file ``rel`` holds what HEAD holds, whatever the index says."""
        return _run(self.root, "diff", "--quiet", "HEAD", "--", rel, check=False).returncode == 0

    def index_as_head(self, rel: str) -> None:
        """Put the index entry of ``rel`` back to HEAD's, where it differs (the one thing a
        `git commit -- rel` killed after moving HEAD leaves undone)."""
        if _run(self.root, "diff", "--cached", "--quiet", "--", rel, check=False).returncode:
            _run(self.root, "reset", "-q", "--", rel)

    def last_commit_of(self, rel: str) -> str | None:
        out = _run(self.root, "log", "-1", "--format=%H", "--", rel, check=False).stdout.strip()
        return out or None

    # A release writes its commit, then its tag. A run stopped in between (killed, or the
    # tag refused: a signing key missing) is finished by running the release again, which
    # must tell that state from a clone made without its tags: in both, the set's header
    # names a version no tag has. A record in the repository's git folder (never pushed or
    # cloned) says which: written before the commit, removed once the tag exists.

    def _release_record(self, set_name: str) -> Path | None:
        done = _run(self.root, "rev-parse", "--git-common-dir", check=False)
        if done.returncode != 0 or not done.stdout.strip():
            return None
        folder = Path(done.stdout.strip())
        folder = folder if folder.is_absolute() else self.root / folder
        return folder / "evalset" / f"release-{set_name}.json"

    def pending_release(self, set_name: str) -> dict[str, Any] | None:
        """What the release of ``set_name`` that was begun here and not finished recorded:
        ``{"version", "fingerprint"}`` and, once committed, ``"commit"``; None when no
        release of it is pending."""
        record = self._release_record(set_name)
        if record is None:
            return None
        try:
            found = json_loads(read_found(record).decode("utf-8"))
        except NotAFile as exc:  # a release would write into it: it is said, never passed
            if exc.dangling:  # as a missing one (a release writes through the link)
                return None
            raise NoFileHere(exc, RELEASE_RECORD) from None
        except (OSError, ValueError):  # (missing, or cut short: no release to finish)
            return None
        return found if isinstance(found, dict) else None

    def record_release(self, set_name: str, record: dict[str, Any] | None) -> None:
        """Record a release of ``set_name`` as begun (or, with None, as finished)."""
        from evalset.fsio import atomic_write

        path = self._release_record(set_name)
        if path is None:
            return
        refused = not_a_file(path)
        if refused is not None and not refused.dangling:  # (a symlink to nothing: written)
            raise NoFileHere(refused, RELEASE_RECORD)
        if record is None:
            path.unlink(missing_ok=True)
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        atomic_write(path, json.dumps(record, sort_keys=True) + "\n")

    def require_release_tag(
        self, where: Path, set_name: str, version: str | None, tags: list[Tag] | None = None
    ) -> None:
        """Raise ``TagsMissing`` when a set's header (of the file ``where``) names a release
        ``version`` that has no tag here and that no unfinished release here explains: the
        clone was made without its tags, so which releases exist, and what they hold, cannot
        be read, and every answer about them would be wrong."""
        if version is None:
            return
        name = tag_name(set_name, version)
        if any(t.name == name for t in (self.tags(set_name) if tags is None else tags)):
            return
        pending = self.pending_release(set_name)
        if pending is not None and pending.get("version") == version:
            return
        others = self.tags(set_name) if tags is None else tags
        if others:  # not a clone made without tags: this one never reached it
            raise TagsMissing(
                f"{where}: names release {version} of {set_name}, but this clone has no tag "
                f"{name}, though it has the set's other releases ({others[-1].version} the "
                f"latest): the tag was not pushed from the clone that made the release (`git "
                f"push origin {name}` there), or not fetched here (`git fetch --tags`)."
            )
        raise TagsMissing(
            f"{where}: names release {version} of {set_name}, but this clone has no tag "
            f"{name} (it was made without its tags), so the releases "
            f"of {set_name} cannot be read here; {FETCH_TAGS}."
        )


def release_named(tags: list[Tag], version: str | None) -> Tag | None:
    """This branch's last release: the tag of ``version`` (a set header's, which the release
    commit wrote), not the highest of all, which may be a release made on another branch;
    for a release whose tag is not made yet (interrupted), the release before it."""
    wanted = Version.parse(version) if version else None
    if wanted is None:
        return None
    named = [t for t in tags if (v := Version.parse(t.version)) is not None and v <= wanted]
    return named[-1] if named else None


MERGE_DRIVER = (
    "command -v evalset >/dev/null 2>&1 || { echo 'evalset merge driver: the evalset command "
    "is not on PATH, so this set file was merged line by line by git, its conflicts marked; "
    "to merge it item by item, abort (git merge --abort, or git rebase --abort, git "
    "cherry-pick --abort), activate the environment evalset is installed in (or install it "
    "with pipx) and run it again' >&2; git merge-file -q -L ours -L base -L theirs %A %O %B; "
    "exit 1; }; evalset merge-driver %O %A %B %P"
)
"""What `evalset init` registers as ``merge.evalset.driver``. The command is found on PATH
when git runs the driver, as git finds every other tool: a registered interpreter path
(as evalset 0.1 wrote it) breaks when the environment is moved or rebuilt. When evalset is
not on PATH, the merge stops with a sentence saying so, instead of git's "command not
found", and the file holds git's own line merge with its conflicts marked: left as one
side, without markers, it would validate, and `git add` would drop the other side (in a
rebase or cherry-pick too, where `git merge --abort` does not apply)."""


def attribute_pattern(folder: str) -> str:
    """``folder`` (relative to the repository's top, with forward slashes) written as a
    ``.gitattributes`` pattern that matches it alone, whatever its name: git splits a line
    at white space and reads ``#``, ``!`` and ``"`` at its start, and ``\\ [ ] * ?`` as
    wildcards, so each is escaped, and white space is written as ``[[:space:]]``."""
    out = []
    for char in folder:
        if char.isspace():
            out.append("[[:space:]]")
        elif char in '\\[]*?!#"':
            out.append("\\" + char)
        else:
            out.append(char)
    return "".join(out)


def _unrouted(root: Path, files: list[Path]) -> list[Path] | None:
    """The ``files`` git would not merge with the evalset driver, as ``git check-attr``
    reads the repository's ``.gitattributes``; None when git cannot say."""
    if not files:
        return []
    paths = [str(Path(f).resolve()) for f in files]
    done = _run(root, "check-attr", "-z", "merge", "--", *paths, check=False)
    if done.returncode != 0:
        return None  # a file outside the repository, say: not the repository's to route
    values = done.stdout.split("\0")[2::3]  # path, attribute, value: one per path, in order
    if len(values) != len(files):
        return None
    return [f for f, value in zip(files, values, strict=True) if value != "evalset"]


def merge_driver_problem(root: Path, set_files: list[Path] | None = None) -> str | None:
    """Why set files of the repository at ``root`` would not be merged by item id, or None:
    the repository means to use the driver (``.gitattributes`` names it, or the git config
    registers it) but git does not route one of ``set_files`` to it (a ``.gitattributes``
    line it cannot read), it is not registered in this clone's git config (which is not
    cloned), registered as another command, or not runnable because evalset is not on
    PATH. None, too, when the repository does not use the driver."""
    import shutil

    attributes = root / ".gitattributes"
    try:
        named = b"merge=evalset" in read_found(attributes)
    except NotAFile as exc:  # `git check-attr` would wait on a named pipe too
        if not exc.dangling:  # (git reads a symlink to nothing as no file, as a missing one)
            raise NoFileHere(exc, "file of git attributes") from None
        named = False
    except OSError:
        named = False
    done = _run(root, "config", "--get", "merge.evalset.driver", check=False)
    registered = done.stdout.strip() if done.returncode == 0 else ""
    if not named and not registered:
        return None
    fix = "run `evalset init --git-hooks`"
    unrouted = _unrouted(root, set_files or [])
    if unrouted:
        more = f" and {len(unrouted) - 1} other set file(s)" if len(unrouted) > 1 else ""
        if attributes.is_symlink():  # init would keep the link's lines, which git never reads
            return (
                f"git does not route {unrouted[0]}{more} to the set-file merge driver "
                "(.gitattributes is a symlink, which git does not read); replace the link by "
                f"a file holding its lines, then {fix}"
            )
        return (
            f"git does not route {unrouted[0]}{more} to the set-file merge driver (no line of "
            f".gitattributes that git reads matches it); {fix}, which writes one"
        )
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
