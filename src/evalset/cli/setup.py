"""Commands that create things: init."""

from __future__ import annotations

import os
from pathlib import Path

import typer

from evalset.cli.output import echo, emit_json


def init(
    # not `name`, which is a set by name or path elsewhere, a path (params.NOT_TEXT)
    first_set: str = typer.Option(
        None, "--name", metavar="NAME", help="Name of the first set (default: folder name)."
    ),
    path: Path = typer.Argument(Path("."), help="Folder to scaffold (inside a git repository)."),
    git_hooks: bool = typer.Option(
        False,
        "--git-hooks",
        help="Only register the set-file merge driver (for a fresh clone of a workspace).",
    ),
    corpus: str = typer.Option(
        None,
        "--corpus",
        metavar="PATH",
        help="The documents' folder, relative to the workspace (default: corpus).",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Scaffold a workspace: config, sets/ with a first set, snapshots/, dvc.yaml, schemas,
    and the git merge driver that merges set files by item id.

    Never overwrites a file that exists. Warns when the corpus folder does not exist yet.

    Example: evalset init --name support-bot --corpus docs/policies
    """
    from evalset.scaffold import init_workspace

    result = init_workspace(path, first_set, git_hooks_only=git_hooks, corpus=corpus)
    if as_json:
        emit_json(
            {
                "root": str(result.root),
                "created": [str(p) for p in result.created],
                "kept": [str(p) for p in result.kept],
                "updated": [str(p) for p in result.updated],
                "configured": result.configured,
                "warnings": result.warnings,
            }
        )
        return
    for created in result.created:
        echo(f"created {os.path.relpath(created, result.root)}")
    for kept in result.kept:
        echo(f"kept    {os.path.relpath(kept, result.root)} (exists)")
    for updated in result.updated:
        echo(f"updated {os.path.relpath(updated, result.root)} (the lines it lacked added)")
    for key in result.configured:
        echo(f"set     git config {key}")
    for warning in result.warnings:
        echo(f"warning: {warning}", fg="yellow", err=True)


def register(app: typer.Typer) -> None:
    app.command()(init)
