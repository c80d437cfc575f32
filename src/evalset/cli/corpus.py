"""Commands on the corpus and the items' relation to it: snapshot, stale, verify."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import typer

from evalset.cli.output import emit_json

if TYPE_CHECKING:
    from evalset.stale import CitationStatus, StaleReport


def snapshot(
    rev: str = typer.Option(
        None, "--rev", help="Read the corpus at this git revision (git- or DVC-tracked)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Snapshot the corpus: hash every document and section into snapshots/<id>.json.

    Unchanged files are not read again (a stat cache in .evalset/). Prints what changed
    since the previous snapshot. Example: evalset snapshot --rev v2.0
    """
    from evalset.config import find_workspace
    from evalset.corpus.snapshot import take_snapshot
    from evalset.workspace import display_path

    ws = find_workspace()
    result = take_snapshot(
        ws.root,
        ws.config.corpus,
        ws.snapshots_dir,
        ws.state_dir,
        ws.config.hash,
        ws.config.store_text,
        rev,
    )
    previous = result.previous_id
    changes = result.changes if previous is not None and previous != result.id else None
    path = display_path(result.path) if result.path else None
    if as_json:
        emit_json(
            {
                "snapshot": result.short,
                "id": result.id,
                "path": str(path),
                "written": result.written,
                "documents": result.documents,
                "sections": result.sections,
                "commit": result.commit,
                "previous": previous[:12] if previous else None,
                "changes": changes.to_json() if changes else None,
                "warnings": result.warnings,
            }
        )
        return
    for warning in result.warnings:
        typer.secho(f"warning: {warning}", fg="yellow", err=True)
    state = "written to" if result.written else "unchanged, already in"
    typer.echo(
        f"snapshot {result.short}: {result.documents} documents, {result.sections} sections "
        f"({result.reread} file(s) read); {state} {path}"
    )
    if changes is None or previous is None:  # first snapshot, or the newest already
        return
    if changes.empty:
        typer.echo(f"no change since {previous[:12]}")
        return
    typer.echo(f"since {previous[:12]}:")
    for doc in changes.added:
        typer.secho(f"  + {doc}", fg="green")
    for doc in changes.removed:
        typer.secho(f"  - {doc}", fg="red")
    for doc, parts in changes.changed.items():
        detail = ", ".join(f"{len(v)} {k}" for k, v in parts.items() if v) or "text"
        typer.secho(f"  ~ {doc} (sections: {detail})", fg="yellow")
        for kind, mark in (("added", "+"), ("removed", "-"), ("changed", "~")):
            for section in parts[kind]:
                typer.echo(f"      {mark} #{section}")


def _diff_text(status: CitationStatus, colour: bool, context: int = 8) -> str:
    from evalset.stale import word_diff

    assert status.old_text is not None and status.new_text is not None
    out = []
    for op, text in word_diff(status.old_text, status.new_text):
        if op == "=":
            words = text.split()
            if len(words) > 2 * context:
                text = " ".join([*words[:context], "…", *words[-context:]])
            out.append(text)
        elif colour:
            style = {"fg": "red", "strikethrough": True} if op == "-" else {"fg": "green"}
            out.append(typer.style(text, **style))
        else:
            out.append(f"[-{text}-]" if op == "-" else f"{{+{text}+}}")
    return " ".join(out)


def _print_text(report: StaleReport) -> None:
    colour = sys.stdout.isatty()
    for item in report.items:
        typer.secho(
            f"{item.file}: item {item.id} (verified {item.verified}, newest {report.snapshot})",
            bold=True,
        )
        for c in item.citations:
            if c.status == "ok":
                continue
            line = f"  {c.status:<10} {c.citation}"
            if c.new:
                line += f" -> {c.new}"
            if c.status == "deleted" and c.candidates:
                line += f" (similar: {', '.join(c.candidates)})"
            elif c.status == "moved" and c.candidates:
                line += f" (also identical: {', '.join(c.candidates)})"
            typer.echo(line)
            if c.status == "changed" and c.old_text is not None and c.new_text is not None:
                typer.echo(f"      {_diff_text(c, colour)}")
            elif c.note:
                typer.echo(f"      ({c.note})")


def _print_md(report: StaleReport) -> None:
    if not report.items:
        typer.echo(f"No stale items against snapshot `{report.snapshot}`.")
        return
    typer.echo(f"### {len(report.items)} stale item(s) against snapshot `{report.snapshot}`\n")
    typer.echo("| set | item | citation | status | now |")
    typer.echo("|---|---|---|---|---|")
    for item in report.items:
        for c in item.citations:
            if c.status == "ok":
                continue
            now = c.new or ", ".join(c.candidates) or ""
            typer.echo(f"| {item.set} | `{item.id}` | `{c.citation}` | {c.status} | {now} |")
    changed = [(i, c) for i in report.items for c in i.citations if c.old_text and c.new_text]
    for item, c in changed:
        typer.echo(f"\n<details><summary>{item.id}: {c.citation}</summary>\n")
        typer.echo(
            _diff_text(c, colour=False)
            .replace("[-", "~~")
            .replace("-]", "~~")
            .replace("{+", "**")
            .replace("+}", "**")
        )
        typer.echo("\n</details>")


def stale(
    sets: list[str] = typer.Argument(None, help="Set names or paths. Default: every set."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
    fmt: str = typer.Option("text", "--format", help="text, or md for a pull-request comment."),
    fix_moved: bool = typer.Option(
        False, "--fix-moved", help="Rewrite moved citations to where their text is now."
    ),
    no_fail: bool = typer.Option(
        False, "--no-fail", help="Exit 0 even when items are stale (for reports in pipelines)."
    ),
) -> None:
    """List items whose citations changed since they were verified; exit 1 if any did.

    Each citation is ok, changed (with a word diff), moved (text now elsewhere), deleted
    (with similar sections), or unresolved. Example: evalset stale acme-support --fix-moved
    """
    from evalset.config import find_workspace
    from evalset.corpus.manifest import SnapshotStore
    from evalset.stale import stale_report
    from evalset.verify import fix_moved as fix
    from evalset.workspace import resolve_set, set_paths

    if fmt not in ("text", "md"):
        raise typer.BadParameter("use text or md", param_hint="--format")
    ws = find_workspace()
    paths = [resolve_set(ws, s) for s in sets] if sets else set_paths(ws)
    fixed: dict[str, dict[str, str]] = {}
    if fix_moved:
        for path in paths:
            fixed.update(fix(ws, path))
    report = stale_report(paths, SnapshotStore(ws.snapshots_dir), ws.root)
    if as_json:
        emit_json(report.to_json() | ({"fixed": fixed} if fix_moved else {}))
    elif report.snapshot is None:
        typer.echo(f"no snapshot in {ws.snapshots_dir} yet: run `evalset snapshot`.")
    elif fmt == "md":
        _print_md(report)
    else:
        for item_id, moves in fixed.items():
            for old, new in moves.items():
                typer.secho(f"fixed {item_id}: {old} -> {new}", fg="green")
        _print_text(report)
        unverified = sum(report.unverified.values())
        note = f"; {unverified} item(s) not verified against any snapshot" if unverified else ""
        typer.echo(f"{len(report.items)} stale item(s) against snapshot {report.snapshot}{note}")
    if report.sealed and not as_json:
        from evalset.seal import sealed_message

        for name, count in report.sealed.items():
            typer.secho(f"note: {name}: {sealed_message(count)}", fg="yellow", err=True)
    if report.items and not no_fail:
        raise typer.Exit(1)


def verify(
    name: str = typer.Argument(..., help="The set, by name or path."),
    items: list[str] = typer.Argument(None, help="Ids of the items you re-checked."),
    adopt_all: bool = typer.Option(
        False, "--all", help="Adopt the whole set: its header records the newest snapshot."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Record that you re-checked items against the newest corpus snapshot.

    Example: evalset verify acme-support q-011 q-022
    """
    from evalset.config import find_workspace
    from evalset.verify import verify as run
    from evalset.workspace import resolve_set

    ws = find_workspace()
    result = run(ws, resolve_set(ws, name), items or [], adopt_all)
    if as_json:
        emit_json(
            {
                "set": str(result.path),
                "snapshot": result.snapshot,
                "verified": result.verified,
                "adopted": result.adopted,
            }
        )
        return
    what = "the whole set" if adopt_all else ", ".join(result.verified)
    typer.echo(f"verified {what} against snapshot {result.snapshot} in {result.path}")


def register(app: typer.Typer) -> None:
    app.command()(snapshot)
    app.command()(stale)
    app.command()(verify)
