"""Commands on versions of a set: release, pin, check-pin, diff, log, merge-driver."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from evalset.cli.output import echo, emit_document, emit_json, table
from evalset.cli.params import output_format

if TYPE_CHECKING:
    from evalset.config import Workspace
    from evalset.sets.setfile import SetFile
    from evalset.versions.diff import SetDiff

_JSON = typer.Option(False, "--json", help="Print one JSON document.")


def release(
    name: str = typer.Argument(..., help="The set, by name or path."),
    bump: str = typer.Option(
        None, "--bump", metavar="PART", help="major, minor or patch (from the last release)."
    ),
    version: str = typer.Option(None, "--version", help="Release exactly this version (X.Y.Z)."),
    exclude_drafts: bool = typer.Option(
        False, "--exclude-drafts", help="Release although drafts exist; they are not released."
    ),
    as_json: bool = _JSON,
) -> None:
    """Release a set: validate, refuse if stale/draft/uncommitted, commit, tag.

    Writes version and fingerprint into the header, commits the set file, and creates the
    annotated tag evalset/NAME/vX.Y.Z.

    Example: evalset release acme-support --bump minor
    """
    from evalset.versions.release import release as run
    from evalset.workspace import resolve_set, workspace_for

    if bump is not None and bump not in ("major", "minor", "patch"):
        raise typer.BadParameter("use major, minor or patch", param_hint="--bump")
    if (bump is None) == (version is None):
        raise typer.BadParameter("give exactly one of --bump and --version", param_hint="--bump")
    ws = workspace_for(name)
    result = run(ws, resolve_set(ws, name), bump, version, exclude_drafts)
    if as_json:
        emit_json(
            {
                "set": result.set,
                "version": result.version,
                "tag": result.tag,
                "commit": result.commit,
                "fingerprint": result.fingerprint,
                "snapshot": result.snapshot,
                "completed": result.completed,
                "changes": result.changes.to_json() if result.changes else None,
            }
        )
        return
    if result.completed:
        echo(f"completed the interrupted release {result.set} {result.version}")
    since = result.changes.summary() if result.changes else "first release"
    echo(
        f"released {result.set} {result.version} ({since}); tag {result.tag} on commit "
        f"{result.commit[:12]}, fingerprint {result.fingerprint[:19]}…"
    )
    remote = result.remote or "<remote>"
    if result.detached:
        echo(
            f"note: HEAD is detached; push the tag (git push {remote} {result.tag}) to keep "
            f"it, and merge it into your branch (git merge {result.tag}), whose set file would "
            "otherwise name no release."
        )
    else:  # `git push` alone pushes no tag: every other clone would refuse the header
        echo(f"note: push the tag with the commit (git push {remote} HEAD {result.tag}).")


def pin(
    name: str = typer.Argument(..., help="The set, by name or path."),
    rev: str = typer.Option(
        None, "--rev", help="A release version or git revision instead (WORKTREE: the default)."
    ),
    short: bool = typer.Option(
        False, "--short", help="Leave out the per-item fingerprints (a smaller pin)."
    ),
    as_json: bool = _JSON,
) -> None:
    """Print the pin a report should carry (JSON): set, version, fingerprint, snapshot, counts.

    Put it under the top-level "evalset" key of a report. The output is JSON with or
    without --json.

    Example: evalset pin acme-support > pin.json
    """
    from evalset.versions.pin import pin as run
    from evalset.workspace import resolve_set, workspace_for

    ws = workspace_for(name)
    emit_json(run(ws, resolve_set(ws, name), rev, items=not short))


def check_pin(
    report: Path = typer.Argument(..., help="A report JSON file with the pin under 'evalset'."),
    as_json: bool = _JSON,
) -> None:
    """Check a report's pin against the release tags; exit 1 on any mismatch.

    Example: evalset check-pin reports/run-42.json
    """
    from evalset.versions.pin import check_pin as run
    from evalset.workspace import workspace_for

    result = run(workspace_for(report), report)
    if as_json:
        emit_json(result.to_json())
    elif result.ok:
        pinned = result.pin
        echo(
            f"pin ok: {pinned['set']} {pinned['version']} ({pinned['fingerprint'][:19]}…), "
            f"snapshot {pinned.get('snapshot')}, tag {result.tag}"
        )
    else:
        for problem in result.problems:  # each a sentence (the JSON holds them as clauses)
            echo(f"{report}: {problem.rstrip('.')}.", fg="red", err=True)
    if not result.ok:
        raise typer.Exit(1)


def _print_diff(diff: SetDiff, colour: bool) -> None:
    echo(f"{diff.set}: {diff.old} -> {diff.new}: {diff.summary()}", bold=True)
    for move in diff.holdout_moves:
        echo(
            f"!! HOLDOUT MOVE: {move.id} moved from {move.old} to {move.new}",
            fg="red",
            bold=True,
        )
    for label, ids, mark, fg in (
        ("added", diff.added, "+", "green"),
        ("removed", diff.removed, "-", "red"),
        ("retired", diff.retired, "x", "yellow"),
    ):
        for ident in ids:
            echo(f"  {mark} {ident} ({label})", fg=fg if colour else None)
    for change in diff.header:
        echo(f"  ~ header {change}")
    for item in diff.changed:
        echo(f"  ~ {item.id}", fg="yellow" if colour else None)
        for change in item.changes:
            echo(f"      {change}")
    for ident in diff.not_compared:
        echo(f"  ? {ident} ({NOT_COMPARED})", fg="red" if colour else None)
    if diff.drafts_left_out:
        echo(f"  ({DRAFTS_LEFT_OUT}: {', '.join(diff.drafts_left_out)})")


NOT_COMPARED = "not compared: invalid; `evalset validate` says why"
DRAFTS_LEFT_OUT = "drafts left out, as a release holds none"


def _diff_md(diff: SetDiff) -> str:
    """`diff --format md`: a comment, each value shown as text (``evalset.display``)."""
    from evalset.display import (
        COMMENT_LONGEST,
        LEFT_OUT_ROOM,
        md_code,
        md_fit,
        md_left_out,
        md_length,
        md_row,
        md_text,
    )

    out = [f"### {md_code(diff.set)}: {md_text(diff.old)} → {md_text(diff.new)}", "",
           f"{diff.summary()}", ""]  # fmt: skip
    # each move flagged first, within half of the comment: the rest count and point to diff
    moves = [f"> **Holdout move:** {md_code(move.id)} moved from {move.old} to {move.new}.\n"
             for move in diff.holdout_moves]  # fmt: skip
    flagged = md_fit(moves, COMMENT_LONGEST // 2)
    out += [line for move in moves[:flagged] for line in move.split("\n")]
    if flagged < len(moves):
        out += [f"> … and {len(moves) - flagged} more holdout move(s): `evalset diff` lists "
                "them all.", ""]  # fmt: skip
    if diff.empty:
        return "\n".join(out + _drafts_md(diff)) + "\n"
    out += ["| item | what | detail |", "|---|---|---|"]
    rows = []
    for label, ids in (("added", diff.added), ("removed", diff.removed), ("retired", diff.retired)):
        rows += [f"| {md_code(ident)} | **{label}** | |" for ident in ids]
    changes = [("header", c) for c in diff.header]
    changes.extend((md_code(item.id), c) for item in diff.changed for c in item.changes)
    for where, change in changes:
        detail = str(change).split(": ", 1)[1]
        rows.append(md_row([where, md_text(change.field), md_text(detail)]))
    rows += [f"| {md_code(ident)} | **not compared** | invalid |"
             for ident in diff.not_compared]  # fmt: skip
    shown = md_fit(rows, COMMENT_LONGEST - LEFT_OUT_ROOM - md_length(out))
    out += rows[:shown]
    if shown < len(rows):
        out += md_left_out(f"{len(rows) - shown} more row(s) are", "evalset diff")
    return "\n".join(out + _drafts_md(diff)) + "\n"


def _drafts_md(diff: SetDiff) -> list[str]:
    """The comment's line naming the drafts left out (the first 20), if any."""
    from evalset.display import md_code

    if not diff.drafts_left_out:
        return []
    drafts = ", ".join(md_code(ident) for ident in diff.drafts_left_out[:20])
    rest = len(diff.drafts_left_out) - 20
    return ["", f"({DRAFTS_LEFT_OUT}: {drafts}{f' and {rest} more' if rest > 0 else ''})"]


def diff(
    name: str = typer.Argument(..., help="The set, by name or path."),
    old: str = typer.Argument(None, help="Release version or git revision. Default: last release."),
    new: str = typer.Argument(None, help="Release, revision or WORKTREE. Default: WORKTREE."),
    as_json: bool = _JSON,
    fmt: str = typer.Option("text", "--format", help="text, or md for a pull-request comment."),
) -> None:
    """Show what changed between two versions of a set, item by item and field by field.

    Holdout moves are flagged.

    Example: evalset diff acme-support 0.1.0 0.2.0 --format md
    """
    from evalset.errors import EvalsetError
    from evalset.versions.diff import diff_sets
    from evalset.versions.history import SetHistory
    from evalset.workspace import workspace_for

    output_format(fmt, as_json)
    ws = workspace_for(name)
    history = SetHistory(ws, _set_or_released(ws, name))
    if old is None:
        latest = history.ours()
        if latest is None:
            raise EvalsetError(
                f"{history.path}: {history.name} has no release yet, so there is no default to "
                f"compare with; name a git revision, e.g. `evalset diff {history.name} HEAD`."
            )
        before = history.at_release(latest)
    else:
        before = history.at(old)
    after = history.at(new)
    old_set, new_set, drafts = before.loaded, after.loaded, []
    if before.tag is not None or after.tag is not None:
        # a release holds no draft: both sides are compared as released content, as the
        # release notes and `evalset log` compare them
        from evalset.versions.release import released_content

        # (one a draft before and an item now is added, not left out)
        drafts = _drafts(new_set)
        known = {i.id for i in new_set.items} | {s.id for s in new_set.sealed}
        drafts += [ident for ident in _drafts(old_set) if ident not in known]
        old_set, new_set = released_content(old_set), released_content(new_set)
    result = diff_sets(old_set, new_set, before.label, after.label)
    result.drafts_left_out = drafts
    if as_json:
        emit_json(result.to_json())
    elif fmt == "md":
        emit_document(_diff_md(result))
    else:
        _print_diff(result, sys.stdout.isatty())


def _drafts(loaded: SetFile) -> list[str]:
    """The ids of the drafts of a set, plain or sealed, in file order."""
    found = [(k, i.id) for i, k in zip(loaded.items, loaded.item_index, strict=True)
             if i.status == "draft"]  # fmt: skip
    found += [(k, s.id) for s, k in zip(loaded.sealed, loaded.sealed_index, strict=True)
              if s.status == "draft"]  # fmt: skip
    return [ident for _, ident in sorted(found)]


def _set_or_released(ws: Workspace | None, name: str) -> Path:
    """The set file a name or path gives, or, for a set file deleted since its releases,
    where it was: its releases are still in git's tags."""
    from evalset.errors import NoSetsFolder, UnknownSet
    from evalset.versions.pin import released_set_file
    from evalset.workspace import resolve_set

    try:
        return resolve_set(ws, name)
    except (UnknownSet, NoSetsFolder):  # (the folder goes with its last set, in git)
        found = released_set_file(ws, name) if ws is not None else None
        if found is None:
            raise
        return found


def log(
    name: str = typer.Argument(..., help="The set, by name or path."),
    as_json: bool = _JSON,
) -> None:
    """List the releases of a set: version, date, items, snapshot and what changed.

    The table lists the newest first; --json lists them oldest first.

    Example: evalset log acme-support
    """
    from evalset.versions.release import release_log
    from evalset.workspace import workspace_for

    ws = workspace_for(name)
    path = _set_or_released(ws, name)
    entries = release_log(ws, path)
    if as_json:
        emit_json({"set": name, "releases": [e.to_json() for e in entries]})
        return
    if not entries:
        echo(f"{name}: no releases yet; `evalset release {name} --bump minor` makes one.")
        return
    rows = [
        (
            e.version,
            e.date[:10],
            f"{e.items['total']} ({e.items['holdout']} holdout)",
            e.snapshot or "-",
            e.summary,
        )
        for e in reversed(entries)
    ]
    table(["version", "date", "items", "snapshot", "changes"], rows)


def merge_driver(
    base: Path = typer.Argument(..., help="The common ancestor's version (git's %O)."),
    ours: Path = typer.Argument(..., help="Our version, which receives the result (%A)."),
    theirs: Path = typer.Argument(..., help="Their version (%B)."),
    path: str = typer.Argument(None, help="The file's path in the repository (%P)."),
) -> None:
    """Git merge driver for set files: merges by item id (registered by `evalset init`).

    Each item (with the comments above it), the header and the end of the file merge as
    text, as git merges a file, so every change of either side is kept byte for byte.
    Exits 1, leaving conflict markers that name the item and field, only when one field of
    one item was changed differently on both sides, or both sides added an item under the
    same id (or when git's line merge, used for a file that cannot be cut into items, leaves
    no readable set); and without markers when the merged set has an error `evalset
    validate` finds that neither side has (a category deleted on one side and used on the
    other). `evalset init` registers it in git config
    as: evalset merge-driver %O %A %B %P (found on PATH when git runs it)

    Example: evalset merge-driver base.yaml ours.yaml theirs.yaml sets/acme-support.yaml
    """
    from evalset.versions.merge import merge_driver as run

    result = run(base, ours, theirs, path)
    for conflict in result.conflicts:
        echo(f"evalset merge: {path or ours}: conflict in {conflict}", err=True)
    if not result.clean:
        raise typer.Exit(1)


def register(app: typer.Typer) -> None:
    app.command()(release)
    app.command()(pin)
    app.command("check-pin")(check_pin)
    app.command()(diff)
    app.command()(log)
    app.command("merge-driver")(merge_driver)
