"""``-C DIR``: run as if evalset had been started in another folder, as ``git -C`` does.

A workspace may lie in a subfolder of its repository, while pre-commit and CI steps start
at the repository's top. Free of typer, so that the plain forms of ``evalset.cli`` stay
fast.
"""

from __future__ import annotations

import os

from evalset.errors import EvalsetError


def change_folder(argv: list[str]) -> list[str]:
    """``-C DIR`` before the command, as git takes it: run as if evalset had been started in
    DIR (a workspace in a subfolder, run from the repository's top, as pre-commit and CI
    steps start there). Returns the arguments without it. Done here, before the plain forms
    are recognised, so that they stay fast; the typer app declares the same option for its
    help."""
    while argv and argv[0].startswith("-C"):
        if argv[0] == "-C":
            if len(argv) < 2:
                raise EvalsetError("-C: give the folder to run in, as in `evalset -C evals stale`.")
            folder, argv = argv[1], argv[2:]
        else:
            folder, argv = argv[0][2:], argv[1:]
        if folder:  # `-C ""`, as git takes it: the current folder
            enter(folder)
    try:
        os.getcwd()
    except FileNotFoundError:  # removed (or moved away) while a shell still stood in it
        if not argv or argv[0] in ("--help", "-h", "--version", "version"):
            return argv  # they read no folder
        raise EvalsetError(
            "the current folder no longer exists (it was deleted, or replaced); cd to the "
            "workspace again, or give its folder, as in `evalset -C path/to/workspace status`."
        ) from None
    return argv


def enter(folder: str) -> None:
    """Make ``folder`` the current folder for ``-C``; one sentence when it is not one."""
    try:
        os.chdir(folder)
    except OSError as exc:
        raise EvalsetError(
            f"-C {folder}: cannot run there ({exc.strerror}); give the folder of the "
            "workspace, as in `evalset -C evals stale`."
        ) from None
