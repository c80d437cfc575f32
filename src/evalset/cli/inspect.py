"""Read-only commands: validate, status, schema."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from evalset.cli.output import echo, emit_document, emit_json

if TYPE_CHECKING:
    pass


def validate(
    targets: list[str] = typer.Argument(
        None,
        metavar="SET",
        help="Set names or paths to set files. Default: every set of the workspace.",
    ),
    strict: bool = typer.Option(False, "--strict", help="Fail (exit 1) on warnings too."),
    skip_sealed: bool = typer.Option(
        False,
        "--skip-sealed",
        help="Do not fail because sealed items could not be checked (without the key); they "
        "are still reported.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Check set files against the format and the rules; exit 1 on errors.

    Sealed holdout items that the key does not open cannot be checked (labels, citations,
    leakage into tuning), so they fail the run too, unless --skip-sealed.

    Example: evalset validate acme-support --strict
    """
    from evalset.config import find_workspace
    from evalset.sets.validate import no_set_files
    from evalset.sets.validate import validate as run
    from evalset.workspace import resolve_set, set_paths, unique_paths

    empty = None
    if targets:
        from evalset.config import find_workspace_or_none

        paths = unique_paths([resolve_set(find_workspace_or_none(), t) for t in targets])
    else:
        workspace = find_workspace()
        paths = set_paths(workspace)
        empty = None if paths else no_set_files(workspace)
    report = run(paths)  # each file with the workspace it lies in
    if empty is not None:  # a folder emptied by mistake must not pass as checked
        report.findings.append(empty)
    ok = report.ok(strict, skip_sealed)
    if as_json:
        emit_json({**report.to_json(), "ok": ok, "strict": strict})
    else:
        for finding in report.findings:
            colour = "red" if finding.severity == "error" else "yellow"
            echo(str(finding), fg=colour)
        summary = (
            f"{len(report.errors)} error(s), {len(report.warnings)} warning(s) "
            f"in {len(report.files)} file(s)"
        )
        if report.unchecked_sealed:
            accepted = " (accepted with --skip-sealed)" if skip_sealed else ""
            summary += f"; {report.unchecked_sealed} sealed item(s) not checked{accepted}"
        echo(summary, fg="green" if ok else "red", bold=True)
    if not ok:
        raise typer.Exit(1)


def status(
    sets: list[str] = typer.Argument(
        None, metavar="SET", help="Set names or paths. Default: every set."
    ),
    coverage: bool = typer.Option(
        False,
        "--coverage",
        help="Also count items per cited document, and list the categories and corpus "
        "documents no active item covers.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Overview of every set: active items by category and split, drafts, findings.

    It informs and exits 0 whatever it finds; `evalset validate` is the gate. Name sets
    to see only those.

    Example: evalset status --coverage --json
    """
    from evalset.cli import run

    run.status(coverage, as_json, sets or [])


def schema(
    write: bool = typer.Option(
        False, "--write", help="Write schemas/*.schema.json in the workspace instead of printing."
    ),
    config: bool = typer.Option(False, "--config", help="Print the config schema instead."),
    failure: bool = typer.Option(
        False, "--failure", help="Print the schema of `evalset promote`'s failure records instead."
    ),
    as_json: bool = typer.Option(False, "--json", help="With --write: report as JSON."),
) -> None:
    """Print the JSON Schema of set files (or write all schemas with --write).

    Example: evalset schema --write
    """
    from evalset.config import find_workspace
    from evalset.sets.schema import rendered, write_schemas

    chosen = [flag for flag, given in (("--config", config), ("--failure", failure)) if given]
    if len(chosen) > 1 or (write and chosen):
        raise typer.BadParameter(
            "--config and --failure each print one schema instead of the set file's, and "
            "--write writes all three; give one of them",
            param_hint=chosen[-1],
        )
    if not write:
        kind = "config" if config else "failure" if failure else "evalset"
        emit_document(rendered()[f"{kind}.schema.json"])
        return
    root = find_workspace().root
    folder = root / "schemas"
    written = write_schemas(folder, root=root)
    if as_json:
        emit_json({"folder": str(folder), "written": [str(p) for p in written]})
    else:
        for path in written:
            echo(f"wrote {path}")
        if not written:
            echo(f"{folder}: schemas are up to date")


def register(app: typer.Typer) -> None:
    app.command()(validate)
    app.command()(status)
    app.command()(schema)
