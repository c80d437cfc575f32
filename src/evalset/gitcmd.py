"""Running the git command, and the states of a clone in which git's answers are incomplete.

Every question evalset asks git goes through ``run`` (or ``stream``), for two reasons that
show in CI checkouts and hooks rather than in a developer's clone:

- git refuses to read a repository that belongs to another user ("dubious ownership", as in
  a container job whose checkout was made by another user). Its answers are then empty, and
  an empty answer reads as "not in git": no release, no committed version to compare with.
  ``run`` turns that refusal into ``GitUnusable``, which no caller takes for "outside git".
- git exports ``GIT_DIR`` (without ``GIT_WORK_TREE``) to the hooks of a linked worktree, and
  with ``GIT_DIR`` alone git takes the current folder for the top of the working tree. evalset
  runs git from the workspace folder, which may lie below the top (a workspace in a
  subfolder), so git would look for ``sets/x.yaml`` where the repository has
  ``evals/sets/x.yaml``. ``environment`` leaves ``GIT_DIR`` out when git finds the same
  repository from the current folder by itself.

git's output is read as the file system's encoding reads names (``os.fsdecode``): paths
(``rev-parse``, ``ls-files -z``) then name the same files whatever the locale, and a C
locale with UTF-8 mode off (where text would be read as ASCII) reads a repository in a
folder named ``dépôt`` instead of failing on its first byte.

A shallow clone (``git clone --depth N``, as CI checkouts are by default) lacks the commits
below its boundary: ``history_complete`` says whether a commit's history is all here.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from functools import cache
from pathlib import Path

from evalset.errors import EvalsetError

ENCODING = sys.getfilesystemencoding()
"""How git's output is read (with ``errors="surrogateescape"``): as names are."""

FETCH_HISTORY = (
    "fetch the whole history: `git fetch --unshallow --tags` (with `actions/checkout`: "
    "`fetch-depth: 0`; in GitLab CI: `GIT_DEPTH: 0`)"
)
"""The fix for a shallow clone, as a sentence ends with it."""

FETCH_TAGS = (
    "fetch the tags: `git fetch --tags` (with `actions/checkout`: `fetch-depth: 0`, or "
    "`fetch-tags: true`)"
)
"""The fix for a clone made without its tags, as a sentence ends with it."""


class GitUnusable(EvalsetError):
    """git cannot give what a command needs in this clone: it refuses the repository, or the
    clone lacks the tags or history the answer depends on. Never to be read as "outside
    git": the verdict would be silently different from a complete clone's."""


def environment(folder: Path) -> dict[str, str]:
    """The environment git runs in, in ``folder``. LC_ALL=C: git's messages are matched
    (shallow history, dubious ownership), so they must not be translated. ``GIT_DIR`` without
    ``GIT_WORK_TREE`` (a linked worktree's hooks) is left out when git finds the same
    repository from ``folder`` without it (see the module's docstring)."""
    env = {**os.environ, "LC_ALL": "C"}
    given = env.get("GIT_DIR")
    if given is not None and "GIT_WORK_TREE" not in env and _found_alone(str(folder), given):
        del env["GIT_DIR"]
    return env


@cache
def _found_alone(folder: str, given: str) -> bool:
    """Whether git, started in ``folder`` without ``GIT_DIR``, finds the repository
    ``given`` names."""
    without = {k: v for k, v in os.environ.items() if k != "GIT_DIR"}
    try:
        found = subprocess.run(
            ["git", "rev-parse", "--absolute-git-dir"], cwd=folder, capture_output=True,
            encoding=ENCODING, errors="surrogateescape", env=without, check=False,
        )  # fmt: skip
    except OSError:
        return False
    return found.returncode == 0 and _same_path(found.stdout.strip(), given)


def _same_path(a: str, b: str) -> bool:
    try:
        return Path(a).resolve() == Path(b).resolve()
    except OSError:
        return False


DUBIOUS = "detected dubious ownership"


def refused(folder: Path, stderr: str) -> None:
    """Raise ``GitUnusable`` when git refused the repository at ``folder`` because another
    user owns it."""
    if DUBIOUS not in stderr:
        return
    found = re.search(r"repository at '([^'\n]+)'", stderr)
    top = found.group(1) if found else str(Path(folder).resolve())
    raise GitUnusable(
        f'{top}: git refuses to read this repository, which another user owns ("detected '
        'dubious ownership"), so its history, tags and committed files cannot be compared '
        f"with; mark it safe: `git config --global --add safe.directory {top}` (in a "
        "container job, after the checkout)."
    )


def run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``git ARGS`` in ``folder``, its output captured; raises ``GitUnusable`` when git
    refuses the repository, and an ``OSError`` when git cannot be started."""
    done = subprocess.run(
        ["git", *args], cwd=folder, capture_output=True, encoding=ENCODING,
        errors="surrogateescape", env=environment(folder), check=False,
    )  # fmt: skip
    if done.returncode != 0:
        refused(folder, done.stderr)
    return done


def run_bytes(folder: Path, *args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    """``git ARGS`` in ``folder`` with binary input and output (``cat-file --batch``)."""
    done = subprocess.run(
        ["git", *args], cwd=folder, capture_output=True, input=stdin, env=environment(folder),
        check=False,
    )  # fmt: skip
    if done.returncode != 0:
        refused(folder, done.stderr.decode("utf-8", "replace"))
    return done


def stream(folder: Path, *args: str) -> subprocess.Popen[str]:
    """``git ARGS`` in ``folder``, its output read as it comes (stderr kept for ``refused``)."""
    return subprocess.Popen(
        ["git", *args], cwd=folder, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        encoding=ENCODING, errors="surrogateescape", env=environment(folder),
    )  # fmt: skip


def is_shallow(folder: Path) -> bool:
    """Whether the repository at ``folder`` is a shallow clone (False outside git)."""
    try:
        done = run(folder, "rev-parse", "--is-shallow-repository")
    except OSError:
        return False
    return done.returncode == 0 and done.stdout.strip() == "true"


def boundaries(folder: Path) -> list[str]:
    """The commits of a shallow clone whose parents it lacks (git's ``shallow`` file);
    empty for a complete clone or outside git."""
    try:
        done = run(folder, "rev-parse", "--git-path", "shallow")
    except OSError:
        return []
    if done.returncode != 0:
        return []
    path = Path(done.stdout.strip())
    path = path if path.is_absolute() else Path(folder) / path
    try:
        return path.read_text("ascii", "replace").split()
    except OSError:
        return []


def history_complete(folder: Path, commit: str) -> bool:
    """Whether every ancestor of ``commit`` is in this clone: no shallow boundary is the
    commit itself or one of its ancestors."""
    for boundary in boundaries(folder):
        try:
            done = run(folder, "merge-base", "--is-ancestor", boundary, commit)
        except OSError:
            return False
        if done.returncode == 0:
            return False
    return True


def prefix(folder: Path) -> str:
    """``folder``'s path below the top of its git working tree, with a trailing slash (empty
    at the top, or outside git): git names a commit's files from the top."""
    try:
        done = run(folder, "rev-parse", "--show-prefix")
    except OSError:
        return ""
    return done.stdout.strip() if done.returncode == 0 else ""
