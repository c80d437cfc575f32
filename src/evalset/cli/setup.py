"""Commands that create things: init."""

from __future__ import annotations

from pathlib import Path

import typer

from evalset.cli.output import emit_json


def init(
    name: str = typer.Option(None, "--name", help="Name of the first set (default: folder name)."),
    path: Path = typer.Argument(Path("."), help="Folder to scaffold (inside a git repository)."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Scaffold a workspace: config, sets/ with a first set, snapshots/, dvc.yaml, schemas.

    Never overwrites a file that exists. Example: evalset init --name support-bot
    """
    from evalset.workspace import init_workspace

    result = init_workspace(path, name)
    if as_json:
        emit_json(
            {
                "root": str(result.root),
                "created": [str(p) for p in result.created],
                "kept": [str(p) for p in result.kept],
            }
        )
        return
    for created in result.created:
        typer.echo(f"created {created.relative_to(result.root)}")
    for kept in result.kept:
        typer.echo(f"kept    {kept.relative_to(result.root)} (exists)")


def register(app: typer.Typer) -> None:
    app.command()(init)
