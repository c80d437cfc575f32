"""Checks of option values shared by the commands: a number must be a finite one within its
range, and the error says which range (typer's own bounds let NaN through or name the wrong
bound: ``nan`` for a ratio was "should be less than or equal to 1"); a text must be UTF-8
text; an output path must replace nothing the command reads or the workspace keeps."""

from __future__ import annotations

import math
import os
from collections.abc import Callable, Sequence
from pathlib import Path

from evalset.config import ACCEPTED, Workspace


def output_format(fmt: str, as_json: bool) -> None:
    """Refuse a ``--format`` other than text or md, and md beside ``--json``: each chooses
    what is printed, and one would be dropped without a word."""
    import typer  # here, not above: `score retrieval SET RUN` loads this module, not typer

    if fmt not in ("text", "md"):
        raise typer.BadParameter("use text or md", param_hint="--format")
    if fmt == "md" and as_json:
        raise typer.BadParameter(
            "--format md prints a comment and --json a JSON document; give one of them",
            param_hint="--format",
        )


NOT_TEXT = frozenset(
    {"name", "set_ref", "set_name", "sets", "targets", "source", "folder", "corpus", "path",
     "judge", "rev", "old", "new"}
)  # fmt: skip
"""The parameters of type ``str`` that are not text but names the system keeps as bytes, in
which a byte that is not UTF-8 is legitimate: paths (a set by name or path, the folder of
``-C``, ``--corpus``, a judge's program) and git revisions (git takes any byte in a branch's
name). Every other ``str`` parameter is text the command writes or compares
(``utf8_text``). Named by the parameter's name in the command's function."""


def utf8_text(value: str, option: str) -> None:
    """Refuse ``value``, the text given for ``option``, when it holds a byte that is not
    UTF-8: Python's decoding of the command line keeps such a byte as a lone surrogate
    (U+DC80 to U+DCFF), which no file can hold as text, so it would fail at the write
    (``retire --reason``) or make the set file unreadable (``new --question``)."""
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        from evalset.errors import EvalsetError

        code = ord(value[exc.start])
        shown = f"\\x{code - 0xDC00:02x}" if 0xDC80 <= code <= 0xDCFF else f"U+{code:04X}"
        raise EvalsetError(
            f"{option} holds a byte that is not UTF-8 text ({shown}); write it as UTF-8."
        ) from None


def number_in(low: float, high: float | None = None) -> Callable[[float | None], float | None]:
    """A typer callback accepting a finite number from ``low`` to ``high`` (no upper bound
    when None), or no value."""
    wanted = f"from {low:g} to {high:g}" if high is not None else f"of {low:g} or more"

    def check(value: float | None) -> float | None:
        if value is None:
            return None
        if not math.isfinite(value) or value < low or (high is not None and value > high):
            import typer

            raise typer.BadParameter(f"give a finite number {wanted}, not {value:g}.")
        return value

    return check


def refuse_writing_over(
    ws: Workspace | None,
    outputs: Sequence[tuple[str, Path | None]],
    inputs: Sequence[tuple[str, Path | None]],
) -> None:
    """``fsio.refuse_overwriting`` with what every command may read besides the ``inputs``
    it names: the workspace's configuration and the age key file (``EVALSET_AGE_IDENTITY``),
    and the folders the workspace keeps (its sets, snapshots, corpus, local state, git's and
    DVC's own), in none of which an output may go. A folder that holds the workspace itself
    (``sets = "."``) is left out: everything would be refused."""
    from evalset.fsio import refuse_overwriting
    from evalset.sets.sealed import IDENTITY_ENV

    kept: list[tuple[str, Path | None]] = [*inputs]
    key = os.environ.get(IDENTITY_ENV)
    if key:
        kept.append(("age key file", Path(key).expanduser()))
    folders: list[tuple[str, Path]] = []
    if ws is not None:
        kept.append(("workspace's configuration", ws.config_file))
        root = os.path.realpath(ws.root)
        for holds, folder in (
            ("the set files", ws.sets_dir),
            ("the snapshots", ws.snapshots_dir),
            ("the documents of the corpus", ws.corpus_dir),
            ("evalset's caches and locks", ws.state_dir),
            ("the accepted runs (`evalset accept` records one)", ws.root / ACCEPTED),
            *_tool_folders(ws.root),
        ):
            top = os.path.realpath(folder)
            if top != root and not root.startswith(top.rstrip(os.sep) + os.sep):
                folders.append((holds, folder))
    refuse_overwriting(outputs, kept, folders)


def _tool_folders(root: Path) -> list[tuple[str, Path]]:
    """The folders git and DVC keep their own files in, for a workspace at ``root``: git's
    (of a worktree, and the repository's common one) wherever they are, which a workspace
    in a subfolder does not hold, and DVC's at the top of the repository and in ``root``;
    only those that exist. One question to git, as every writing command asks it."""
    from evalset import gitcmd
    from evalset.errors import EvalsetError

    found: list[tuple[str, Path]] = [("DVC's own files", root / ".dvc")]
    try:
        done = gitcmd.run(
            root, "rev-parse", "--absolute-git-dir", "--git-common-dir", "--show-toplevel"
        )
    except (OSError, EvalsetError):  # no git, or a repository git refuses
        done = None
    answers = done.stdout.splitlines() if done is not None and done.returncode == 0 else []
    if len(answers) == 3:
        git_dir, common, top = (Path(a) if os.path.isabs(a) else root / a for a in answers)
        found += [("git's own files", git_dir), ("git's own files", common)]
        found.append(("DVC's own files", top / ".dvc"))
    return [(holds, folder) for holds, folder in found if os.path.isdir(folder)]
