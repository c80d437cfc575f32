"""Commands on the corpus and the items' relation to it: snapshot, stale, verify."""

from __future__ import annotations

from typing import TYPE_CHECKING

import typer

from evalset.cli.output import echo, emit_json
from evalset.cli.params import output_format

if TYPE_CHECKING:
    pass


def snapshot(
    rev: str = typer.Option(
        None, "--rev", help="Read the corpus at this git revision (git- or DVC-tracked)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Snapshot the corpus: hash every document and section into snapshots/<id>.json.

    Unchanged files are not read again (a stat cache in .evalset/). Prints what changed
    since the previous snapshot.

    Example: evalset snapshot --rev v2.0
    """
    from evalset.cli import run

    run.snapshot(rev, as_json)


def stale(
    sets: list[str] = typer.Argument(
        None, metavar="SET", help="Set names or paths. Default: every set."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
    fmt: str = typer.Option("text", "--format", help="text, or md for a pull-request comment."),
    fix_moved: bool = typer.Option(
        False, "--fix-moved", help="Rewrite moved citations to where their text is now."
    ),
    no_fail: bool = typer.Option(
        False, "--no-fail", help="Exit 0 even when items are stale (for reports in pipelines)."
    ),
    skip_sealed: bool = typer.Option(
        False,
        "--skip-sealed",
        help="Exit 0 when only sealed items could not be checked (without the key); they "
        "are still listed.",
    ),
    judge: str = typer.Option(
        None,
        "--judge",
        metavar="J",
        help="Re-check each stale item's key points and must_not_say entries against the new "
        "text with this judge (as in `evalset score answers`).",
    ),
    require_snapshot: bool = typer.Option(
        False,
        "--require-snapshot",
        help="Exit 1 too when the corpus has changed since the newest snapshot (a change "
        "committed without its snapshot), even with --no-fail: for CI.",
    ),
) -> None:
    """List items whose citations changed since they were verified; exit 1 if any did.

    Each citation is ok, changed (with a word diff), moved (text now elsewhere), deleted
    (with similar sections), unresolved (not in the snapshot the item was verified against),
    or unknown (that snapshot is not here, or hashed in another mode). Sealed holdout items
    that the key does not open and that were verified against an older snapshot cannot be
    compared: they are listed, and the exit status is 1 unless --skip-sealed. With --judge,
    each stale item's key points are checked against the new text (still supported or no
    longer) and its must_not_say entries too (now asserted or not); nothing is marked
    verified.

    Example: evalset stale acme-support --fix-moved
    """
    output_format(fmt, as_json)
    from evalset.cli import run

    run.stale(sets or [], as_json, fmt, fix_moved, no_fail, skip_sealed, judge, require_snapshot)


def verify(
    name: str = typer.Argument(..., help="The set, by name or path."),
    items: list[str] = typer.Argument(
        None, metavar="ITEM", help="Ids of the items you re-checked."
    ),
    adopt_all: bool = typer.Option(
        False, "--all", help="Every active item of the set: each records the newest snapshot."
    ),
    from_header: bool = typer.Option(
        False,
        "--from-header",
        help="Move the header's `snapshot:` (older versions' default) onto the items that "
        "were in the set when it was recorded (from git history); later items stay unverified.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Record that you re-checked items against the newest corpus snapshot.

    Each item gets `verified: SNAPSHOT`; an item without it counts as unverified. Refused,
    changing nothing, while a cited section is missing from the snapshot or an item still
    lacks labels.

    Example: evalset verify acme-support q-025
    """
    from evalset.errors import EvalsetError, UnknownSet
    from evalset.staleness.verify import sets_with_item, verify_from_header
    from evalset.staleness.verify import verify as run
    from evalset.workspace import resolve_set, workspace_for

    if adopt_all and items:
        raise typer.BadParameter(
            "--all verifies every active item; name the items, or pass --all, not both",
            param_hint="--all",
        )
    items = list(dict.fromkeys(items or []))  # an id named twice is verified once
    ws = workspace_for(name)
    try:
        path = resolve_set(ws, name)
    except UnknownSet as exc:
        owners = sets_with_item(ws, name)
        if not owners:
            raise
        ids = " ".join([name, *(items or [])])
        raise UnknownSet(
            f"{exc.problem}; {name!r} is an item of {', '.join(owners)}: name the set "
            f"first, as in `evalset verify {owners[0]} {ids}`."
        ) from None
    if from_header:
        if adopt_all or items:
            raise EvalsetError("--from-header moves the header's snapshot alone; run it first, "
                               "then verify items.")  # fmt: skip
        result = verify_from_header(ws, path)
    else:
        result = run(ws, path, items or [], adopt_all)
    if as_json:
        emit_json(
            {
                "set": str(result.path),
                "snapshot": result.snapshot,
                "verified": result.verified,
                "adopted": result.adopted,
                "unverified": result.left,
            }
        )
        return
    if from_header:
        echo(
            f"moved the header's snapshot {result.snapshot} onto {len(result.verified)} item(s) "
            f"in {result.path}"
        )
        if result.left:
            echo(
                f"left unverified (added after it was recorded): {', '.join(result.left)}; check "
                f"them and run `evalset verify {name} ITEM…`",
                fg="yellow",
            )
        return
    count = len(result.verified)
    what = f"every active item ({count})" if adopt_all else ", ".join(result.verified)
    echo(f"verified {what} against snapshot {result.snapshot} in {result.path}")


def register(app: typer.Typer) -> None:
    app.command()(snapshot)
    app.command()(stale)
    app.command()(verify)
