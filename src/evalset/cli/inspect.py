"""Read-only commands: validate, status, schema."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from evalset.cli.output import emit_json, table

if TYPE_CHECKING:
    from evalset.coverage import Coverage


def validate(
    targets: list[str] = typer.Argument(
        None, help="Set names or paths to set files. Default: every set of the workspace."
    ),
    strict: bool = typer.Option(False, "--strict", help="Fail (exit 1) on warnings too."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Check set files against the format and the rules; exit 1 on errors.

    Example: evalset validate acme-support --strict
    """
    from evalset.config import find_workspace
    from evalset.validate import validate as run
    from evalset.workspace import resolve_set, set_paths

    if targets:
        from evalset.config import find_workspace_or_none

        workspace = find_workspace_or_none()
        paths = [resolve_set(workspace, t) for t in targets]
    else:
        workspace = find_workspace()
        paths = set_paths(workspace)
    report = run(paths)  # each file with the workspace it lies in
    ok = report.ok(strict)
    if as_json:
        emit_json({**report.to_json(), "ok": ok, "strict": strict})
    else:
        for finding in report.findings:
            colour = "red" if finding.severity == "error" else "yellow"
            typer.secho(str(finding), fg=colour)
        summary = (
            f"{len(report.errors)} error(s), {len(report.warnings)} warning(s) "
            f"in {len(report.files)} file(s)"
        )
        typer.secho(summary, fg="green" if ok else "red", bold=True)
    if not ok:
        raise typer.Exit(1)


def status(
    coverage: bool = typer.Option(
        False,
        "--coverage",
        help="Also count items per cited document, and list the categories and corpus "
        "documents no active item covers.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Overview of every set: active items by category and split, drafts, findings.

    It informs and exits 0 whatever it finds; `evalset validate` is the gate.

    Example: evalset status --coverage --json
    """
    from evalset.config import find_workspace
    from evalset.status import workspace_status

    workspace = find_workspace()
    statuses = workspace_status(workspace, with_coverage=coverage)
    if as_json:
        emit_json({"workspace": str(workspace.root), "sets": [s.to_json() for s in statuses]})
        return
    if not statuses:
        typer.echo(f"no sets in {workspace.sets_dir}: `evalset init` writes a first one.")
    for s in statuses:
        rows = [
            (name, row["tuning"], row["holdout"], row["unassigned"])
            for name, row in s.categories.items()
        ]
        table(["category", "tuning", "holdout", "unassigned"], rows, title=f"{s.name} ({s.path})")
        if s.stale is None:
            stale = "not checked (no snapshots yet)"
        elif s.stale:
            stale = f"{s.stale} ({', '.join(s.stale_ids)}; see `evalset stale`)"
        else:
            stale = f"0 against snapshot {s.snapshot}"
        release = s.release or "unreleased"
        typer.echo(
            f"  {s.active} active ({s.holdout} holdout), {s.drafts} draft, {s.retired} retired; "
            f"{s.errors} error(s), {s.warnings} warning(s); stale: {stale}; release: {release}"
            + (f"; {s.sealed} sealed" if s.sealed else "")
        )
        if s.draft_items:
            typer.echo(f"  drafts to review ({len(s.draft_items)}):")
        for d in s.draft_items:
            age = "undated" if d.age_days is None else f"{d.age_days} day(s) old"
            lacks = f"; lacks {', '.join(d.lacks)}" if d.lacks else "; complete, ready to verify"
            typer.echo(f"    {d.id}  {age}{lacks}")
        if s.coverage is not None:
            _print_coverage(s.coverage)
        typer.echo("")


def _print_coverage(report: Coverage) -> None:
    rows = [
        (doc, r["tuning"], r["holdout"], r["unassigned"]) for doc, r in report.documents.items()
    ]
    table(["document", "tuning", "holdout", "unassigned"], rows, title="coverage by cited document")
    if report.sealed:
        typer.echo(f"  {report.sealed} sealed item(s) counted by category only (their citations "
                   "need the key)")  # fmt: skip
    if report.empty_categories:
        typer.secho(f"  no active item in categories: {', '.join(report.empty_categories)}",
                    fg="yellow")  # fmt: skip
    if report.corpus is None:
        typer.echo("  corpus documents unknown (no snapshot and no corpus folder)")
    elif report.uncited:
        shown = ", ".join(report.uncited[:10]) + (", …" if len(report.uncited) > 10 else "")
        typer.secho(f"  no item cites {len(report.uncited)} of {len(report.corpus)} corpus "
                    f"documents: {shown}", fg="yellow")  # fmt: skip
    else:
        typer.echo(f"  every one of the {len(report.corpus)} corpus documents is cited")


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
    from evalset.schema import rendered, write_schemas

    if not write:
        kind = "config" if config else "failure" if failure else "evalset"
        typer.echo(rendered()[f"{kind}.schema.json"], nl=False)
        return
    folder = find_workspace().root / "schemas"
    written = write_schemas(folder)
    if as_json:
        emit_json({"folder": str(folder), "written": [str(p) for p in written]})
    else:
        for path in written:
            typer.echo(f"wrote {path}")
        if not written:
            typer.echo(f"{folder}: schemas are up to date")


def register(app: typer.Typer) -> None:
    app.command()(validate)
    app.command()(status)
    app.command()(schema)
