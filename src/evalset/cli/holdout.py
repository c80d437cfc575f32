"""Commands on the holdout and on what goes in and out of a set: split, seal, unseal, export,
import, promote, and new and retire for items written or withdrawn by hand."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from evalset.cli.output import echo, emit_data, emit_json
from evalset.cli.params import number_in

if TYPE_CHECKING:
    from collections.abc import Iterable

    from evalset.config import Workspace
    from evalset.intake.promote import PromoteResult

_JSON = typer.Option(False, "--json", help="Print one JSON document.")


def split(
    name: str = typer.Argument(..., help="The set, by name or path."),
    ratio: float = typer.Option(
        None,
        "--ratio",
        callback=number_in(0, 1),
        help="Target holdout share per category (config split.ratio).",
    ),
    move: str = typer.Option(
        None, "--move", metavar="ITEM", help="Move this item instead (needs --to)."
    ),
    to: str = typer.Option(None, "--to", metavar="SIDE", help="With --move: tuning or holdout."),
    force: bool = typer.Option(
        False, "--force", help="With --move: move an assigned item; the move is recorded."
    ),
    reason: str = typer.Option(None, "--reason", help="With --move: why, kept on the record."),
    dry_run: bool = typer.Option(
        False, "--dry-run", help="Show the assignment (or the move), write nothing."
    ),
    as_json: bool = _JSON,
) -> None:
    """Assign holdout to the items that have no assignment yet, per category.

    Deterministic and sticky: existing assignments never change. An assigned item moves only
    with --move ITEM --to SIDE --force, and the move is recorded on it.

    Example: evalset split acme-support --ratio 0.25
    """
    from evalset.config import SplitConfig
    from evalset.holdout.split import move as run_move
    from evalset.holdout.split import split as run_split
    from evalset.workspace import resolve_set, workspace_of

    if move is None:
        for given, option in ((to, "--to"), (force or None, "--force"), (reason, "--reason")):
            if given is not None:
                raise typer.BadParameter(
                    f"{option} goes with --move ITEM; without it, split assigns the items "
                    "that have no side yet",
                    param_hint=option,
                )
    elif ratio is not None:
        raise typer.BadParameter(
            "--ratio is for a split; --move moves one item whatever the ratio",
            param_hint="--ratio",
        )
    ws = workspace_of(name)
    path = resolve_set(ws, name)
    if move is not None:
        if to is None:
            raise typer.BadParameter("say where: --to tuning or --to holdout", param_hint="--to")
        moved = run_move(path, move, to, force, reason, dry_run)
        if as_json:
            written = moved.changed and not dry_run
            emit_json({"set": str(path), "item": move, "to": to, "changed": moved.changed,
                       "sealed": moved.sealed, "written": written})  # fmt: skip
        elif not moved.changed:
            echo(f"{move} is {to} already")
        else:
            sealed = f", sealed as the holdout of {path.stem} is" if moved.sealed else ""
            verb = "would move" if dry_run else "moved"
            echo(f"{verb} {move} to {to} in {path}{sealed}")
        return
    if ratio is None:
        ratio = (ws.config.split if ws else SplitConfig()).ratio
    plan = run_split(path, ratio, dry_run)
    if as_json:
        emit_json({"set": str(path), "written": plan.written, **plan.to_json()})
        return
    verb = "would assign" if dry_run else "assigned"
    echo(
        f"{verb} {len(plan.holdout) + len(plan.tuning)} item(s) in {path}: "
        f"{len(plan.holdout)} holdout, {len(plan.tuning)} tuning (target {plan.ratio:.0%})"
    )
    if plan.kept:
        echo(
            f"  {plan.kept} item(s) assigned before keep their side: the target applies to "
            f"unassigned items only (to move one: `evalset split {path.stem} --move ITEM "
            "--to SIDE --force`)"
        )
    for category, (held, count) in plan.shares.items():
        share = held / count if count else 0
        echo(f"  {category}: {held} of {count} holdout ({share:.0%})")
    for category, count in plan.too_small.items():
        echo(
            f"  {category}: too small to hold out at {plan.ratio:.0%} ({count} item(s)); "
            "add items of this kind",
            fg="yellow",
        )
    if plan.uncategorised:
        echo(f"  left unassigned (no category yet): {', '.join(plan.uncategorised)}")
    if plan.leaking:
        echo(
            "  left unassigned (near duplicates of holdout and of tuning items, directly or "
            "through each other, so either side would leak a holdout question; reword them, "
            f"then split again): {', '.join(plan.leaking)}",
            fg="yellow",
        )
    if plan.unchecked:
        echo(
            "  left unassigned (for tuning, but their questions cannot be compared with the "
            "sealed holdout's without the key, and a near duplicate there would leak one; set "
            f"EVALSET_AGE_IDENTITY and split again): {', '.join(plan.unchecked)}",
            fg="yellow",
        )
    if plan.sealed:
        went = "would be sealed as they go" if dry_run else "sealed as they went"
        echo(f"  {went} into the sealed holdout: {', '.join(plan.sealed)}")


def export(
    name: str = typer.Argument(..., help="The set, by name or path."),
    fmt: str = typer.Option(
        ..., "--format", help="jsonl, csv, ragas, promptfoo, deepeval, langsmith or openai."
    ),
    split_name: str = typer.Option(
        "tuning", "--split", help="tuning (default), holdout or all: name the holdout to get it."
    ),
    output: Path = typer.Option(
        None, "-o", "--output", metavar="FILE", help="Write here instead of stdout."
    ),
    allow_stale: bool = typer.Option(
        False,
        "--allow-stale",
        help="Export stale items too, with the text they were verified against; the pin "
        "lists them under `stale` (in csv and ragas, which carry no pin, each row's "
        "`verified` names its snapshot).",
    ),
    skip_sealed: bool = typer.Option(
        False,
        "--skip-sealed",
        help="Without the key, export the tuning split of a set whose holdout is sealed "
        "although its questions cannot be compared with the sealed ones (a note says so).",
    ),
    as_json: bool = typer.Option(
        False, "--json", help="With -o: report as JSON (without -o, the rows are the output)."
    ),
) -> None:
    """Export one split of a set for another eval tool. Drafts and retired items never are.

    The tuning view never contains a holdout item. A set with stale items among those
    exported is refused unless --allow-stale: each item's contexts are the text its labels
    were checked against. Without the key, the tuning split of a set whose holdout is
    sealed is refused unless --skip-sealed: no question can be checked for leaking one of
    the sealed ones.

    Example: evalset export acme-support --format ragas -o tuning.jsonl
    """
    from evalset.cli.params import refuse_writing_over
    from evalset.export import committable
    from evalset.export import export as run
    from evalset.fsio import atomic_write
    from evalset.workspace import resolve_set, workspace_of

    ws = workspace_of(name)
    set_path = resolve_set(ws, name)
    refuse_writing_over(ws, [("export", output)], [("set file", set_path)])
    result = run(set_path, split_name, fmt, ws, allow_stale, skip_sealed)
    if output is None:
        emit_data(result.text)
    else:
        atomic_write(output, result.text, parents=True)
    notes = [f"{i}: {why}" for i, why in result.skipped.items()]
    if result.unknown:
        shown = [f"{i} ({', '.join(c)})" for i, c in list(result.unknown.items())[:5]]
        more = ", …" if len(result.unknown) > 5 else ""
        where = (
            "no snapshot, working tree or git history here holds"
            if ws
            else ("the set lies outside any workspace, so no snapshot gives")
        )
        fetch = "; a corpus DVC tracks is read from its cache: `dvc fetch` (or `dvc pull`)" \
            if ws is not None and _dvc_tracks(ws, result.unknown.values()) else ""  # fmt: skip
        notes.append(
            f"{len(result.unknown)} item(s) exported with empty contexts: {where} the text "
            f"they cite ({'; '.join(shown)}{more}){fetch}"
        )
    told = [i for i in result.stale if i not in result.unknown]
    if told:
        where = (  # a CSV or Ragas file has no pin: each row's `verified` names the snapshot
            "each row's `verified` names the snapshot it is of" if fmt in ("csv", "ragas")
            else "the pin lists them under `stale`"
        )  # fmt: skip
        notes.append(
            f"{len(told)} stale item(s) exported with the text they were verified "
            f"against ({', '.join(told)}); {where}"
        )
    if result.unverified:
        notes.append(
            f"{len(result.unverified)} item(s) verified against no snapshot, exported with the "
            f"newest snapshot's text ({', '.join(result.unverified[:5])}"
            f"{', …' if len(result.unverified) > 5 else ''})"
        )
    if result.unchecked_sealed:
        notes.append(
            f"{len(result.unchecked_sealed)} sealed holdout item(s) could not be compared "
            "with the exported questions without the key (--skip-sealed): a near duplicate of "
            "one would leak it; `evalset validate` with EVALSET_AGE_IDENTITY set checks them"
        )
    exposed = result.unsealed if output is not None and committable(output) else []
    if exposed:  # a holdout sealed in the set, in clear text where a commit may take it
        notes.append(
            f"{output} holds {len(exposed)} sealed holdout item(s) of {name} in plain text, in "
            "the git work tree, and git does not ignore it: delete it after use, or write it "
            "outside the repository, so that no commit takes it"
        )
    if result.unassigned and split_name != "all":
        notes.append(
            f"{result.unassigned} active item(s) without a holdout decision are in no split; "
            f"run `evalset split {name}`"
        )
    if output is not None and as_json:
        emit_json(
            {
                "output": str(output),
                "format": fmt,
                "split": split_name,
                "rows": result.rows,
                "unassigned": result.unassigned,
                "skipped": result.skipped,
                "stale": result.stale,
                "unverified": result.unverified,
                "unknown_text": result.unknown,
                "unchecked_sealed": len(result.unchecked_sealed),
                "sealed_in_work_tree": exposed,
            }
        )
    elif output is not None:
        which = "" if split_name == "all" else f"{split_name} "  # every split's
        echo(f"wrote {result.rows} {which}item(s) as {fmt} to {output}")
    for note in notes:
        echo(f"note: {note}", fg="yellow", err=True)


def import_(
    source: Path = typer.Argument(..., help="The file to import."),
    set_name: str = typer.Option(
        ...,
        "--set",
        metavar="NAME",
        help="The set to add the rows to; a new name creates sets/NAME.yaml in the workspace.",
    ),
    fmt: str = typer.Option(..., "--format", help="jsonl, csv, ragas or langsmith."),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would be added."),
    create: bool = typer.Option(
        False,
        "--create",
        help="Create the set even when its new name is close to an existing set's (without "
        "it, such a name is taken for a typo and refused).",
    ),
    as_json: bool = _JSON,
) -> None:
    """Import rows from evalset JSONL/CSV, Ragas or LangSmith into a set (drafts when labels
    are missing).

    A name no set has creates sets/NAME.yaml, unless it is close to an existing set's name
    (a typo, most likely): that is refused with the name it resembles, and --create
    creates it anyway.

    Rows already in the set, and rows whose question is a near duplicate of an item's, are
    skipped and listed; a row whose id the set has with other content is reported as a
    conflict (exit 1) and not imported.

    Example: evalset import ragas-testset.jsonl --set acme-support --format ragas
    """
    from evalset.errors import UnknownSet
    from evalset.intake.importer import import_rows
    from evalset.workspace import resolve_set, workspace_of

    ws = workspace_of(set_name)
    try:
        path, new = resolve_set(ws, set_name), False
    except UnknownSet as unknown:
        if ws is None:
            raise
        if unknown.close is not None and not create:  # a typo of an existing set's name?
            raise UnknownSet(
                f"{unknown.problem}; give the set's name, or pass --create to "
                f"start a new set named {set_name!r}."
            ) from None
        from evalset.workspace import display_path

        path, new = display_path(ws.sets_dir / f"{set_name}.yaml"), True
    store = None
    if ws is not None:
        from evalset.corpus.current import workspace_store

        store = workspace_store(ws)  # the newest snapshot as `validate` finds it
    result = import_rows(source, path, fmt, dry_run, new, store)
    if as_json:
        written = not dry_run and bool(result.added or result.created)  # else nothing changed
        emit_json({"set": str(path), "created": result.created, "written": written,
                   **result.to_json()})  # fmt: skip
    else:
        verb = "would add" if dry_run else "added"
        made = " (a new set: describe it and its categories)" if result.created else ""
        echo(
            f"{verb} {len(result.added)} item(s) to {path}{made} ({len(result.drafts)} as drafts "
            f"to review); skipped {len(result.skipped)}"
        )
        for ident, why in result.skipped.items():
            echo(f"  skipped {ident}: {why}")
        if result.unverified:
            echo(
                f"  {len(result.unverified)} item(s) arrive unverified: the snapshot they were "
                "verified against is not in this workspace's snapshots",
                fg="yellow",
            )
        if result.uncited:
            shown = ", ".join(result.uncited[:5]) + (", …" if len(result.uncited) > 5 else "")
            echo(
                f"  {len(result.uncited)} draft(s) cite no section for the reference contexts "
                f"their rows give as text only ({shown}): nothing says which document they are "
                "from; add the sections they come from as the drafts' expected sources",
                fg="yellow",
            )
        for ident, why in result.conflicts.items():
            echo(f"  conflict {ident}: {why}", fg="red")
        _print_sealing(result.sealed, result.recipients, result.unchecked_sealed, dry_run, "rows")
        _print_crowded(result.crowded, "rows")
    if result.conflicts:
        raise typer.Exit(1)


def promote(
    source: str = typer.Argument(
        ..., help="JSONL (or JSON array) of failure records; - reads stdin."
    ),
    set_name: str = typer.Option(
        ..., "--set", metavar="NAME", help="The set to add the drafts to."
    ),
    field_map: str = typer.Option(
        None,
        "--map",
        metavar="FIELD=PATH,...",
        help="Where each field is in other shapes, as dotted paths, e.g. question=inputs.query "
        "(a|b tries a, then b).",
    ),
    preset: str = typer.Option(
        None, "--preset", help="A trace export's shape: langfuse or langsmith (--map overrides)."
    ),
    id_from: str = typer.Option(
        "question", "--id-from", help="question: q- and a hash of the redacted question; trace."
    ),
    skip_invalid: bool = typer.Option(
        False,
        "--skip-invalid",
        help="Promote the valid records and list the invalid ones (refused if none is valid).",
    ),
    dry_run: bool = typer.Option(False, "--dry-run", help="Show what would happen, write nothing."),
    as_json: bool = _JSON,
) -> None:
    """Turn wrong production answers into draft items, with personal data redacted.

    Each record's question, answer, note and retrieved entries are redacted first: email
    addresses, phone numbers, card numbers, IBANs, IP addresses and the patterns of
    promote.patterns in evalset.toml (names, postal addresses and national id numbers need a
    pattern). A record
    whose trace was promoted before, or whose question is a near duplicate of an item's, adds
    its trace to that item instead. One invalid record and nothing is written (unless
    --skip-invalid).

    Example: evalset promote langfuse-export.jsonl --set acme-support --preset langfuse
    """
    from evalset.config import PromoteConfig, SplitConfig
    from evalset.intake.promote import parse_map
    from evalset.intake.promote import promote as run_promote
    from evalset.workspace import resolve_set, workspace_of

    ws = workspace_of(set_name)
    path = resolve_set(ws, set_name)
    mapping = parse_map(field_map, preset)
    from evalset.fsio import read_user_text

    text = read_user_text(Path(source), "failure file")
    label = "<stdin>" if source == "-" else source
    config = ws.config if ws else None
    result = run_promote(
        text,
        label,
        path,
        mapping,
        config=config.promote if config else PromoteConfig(),
        ratio=(config.split if config else SplitConfig()).ratio,
        id_from=id_from,
        skip_invalid=skip_invalid,
        dry_run=dry_run,
    )
    if as_json:
        emit_json({"set": str(path), "source": label, **result.to_json()})
        return
    _print_promoted(result, path, set_name, label, dry_run)


def _print_promoted(
    result: PromoteResult, path: Path, set_name: str, source: str, dry_run: bool
) -> None:
    from evalset.sets.model import side

    verb = "would add" if dry_run else "added"
    echo(f"{verb} {len(result.added)} draft item(s) to {path}")
    for a in result.added:
        counts = ", ".join(f"{kind} {n}" for kind, n in a.redactions.items())
        echo(f"  {a.id}  line {a.line}  {side(a.holdout)}"
                   + (f"  redacted {counts}" if counts else ""))  # fmt: skip
    if result.skipped:
        echo(f"skipped {len(result.skipped)} duplicate(s):")
    for s in result.skipped:
        trace = f" (trace {s.trace})" if s.trace else ""
        echo(f"  line {s.line}{trace}: {s.reason}")
    if result.invalid:
        echo(f"left out {len(result.invalid)} invalid record(s):", fg="yellow")
    for i in result.invalid:
        echo(f"  {source}:{i.line}: the record {i.problem}", fg="yellow")
    total = result.redactions
    if total:
        counts = ", ".join(f"{kind} {n}" for kind, n in sorted(total.items()))
        echo(f"redacted {sum(total.values())} value(s): {counts}")
    _print_sealing(result.sealed, result.recipients, result.unchecked_sealed, dry_run, "records")
    _print_crowded(result.crowded, "records")
    if result.added and not dry_run:
        echo(
            "next: give each draft a category, key points and expected sources, set "
            f"`status: active`, then `evalset verify {set_name} ID…`"
        )


def _print_sealing(
    sealed: list[str], recipients: list[str], unchecked: int, dry_run: bool, what: str
) -> None:
    """What `promote` and `import` say about a set whose holdout is sealed."""
    if sealed:
        verb = "would seal" if dry_run else "sealed"
        keys = ", ".join(k[:16] + "…" for k in recipients)
        echo(
            f"{verb} {len(sealed)} holdout item(s) on arrival ({', '.join(sealed)}), as the "
            f"set's holdout is sealed, to {keys}; review them with the key "
            "(EVALSET_AGE_IDENTITY)"
        )
    if unchecked:
        left = (
            ", and the drafts the split rule would put in tuning are left unassigned (one might "
            "repeat a sealed question): `evalset split` with the key gives them a side"
            if what == "records"
            else ""
        )
        echo(
            f"note: {unchecked} sealed item(s) could not be compared with the {what} without "
            "the key (a duplicate of one of them may have gone unnoticed); `evalset validate` with "
            f"EVALSET_AGE_IDENTITY set checks them{left}",
            fg="yellow",
            err=True,
        )


def _print_crowded(crowded: list[tuple[int, list[int]]], what: str) -> None:
    """What `promote` and `import` say about look-alike questions too many to compare."""
    for questions, lines in crowded:
        shown = ", ".join(map(str, lines[:3])) + (", …" if len(lines) > 3 else "")
        echo(
            f"warning: {questions} questions share all but a word or two, {len(lines)} of them "
            f"{what} (lines {shown}): too many to compare one by one, so near duplicates among "
            "them were not looked for, nor skipped; reword them apart (`evalset validate` "
            "warns about the group too)",
            fg="yellow",
            err=True,
        )


def seal(
    name: str = typer.Argument(..., help="The set, by name or path."),
    recipients: list[str] = typer.Option(
        None,
        "--recipient",
        "-r",
        metavar="KEY",
        help="age public key (age1…) or SSH public key to seal to; repeat for several "
        "(default: the recipients the holdout is sealed to, in the set or at HEAD).",
    ),
    as_json: bool = _JSON,
) -> None:
    """Encrypt the content of every holdout item in place, to the given age keys.

    Ids, categories, the holdout flag and the status stay visible, so counts, splits and
    coverage work without the key; fingerprints do not change. Commands that need the content
    read the key file named by EVALSET_AGE_IDENTITY. Git history keeps what was committed
    before sealing.

    Without --recipient, the holdout is sealed again to the keys it is sealed to: those of
    the set's sealed items, or, after `evalset unseal`, those of the items sealed in its last
    commit (HEAD); the output names them.

    Example: evalset seal acme-support --recipient age1ql3z7hjy54pw3hyww5ayyfg7zqgvc7w3j2elw8zmrj2kg5sfn9aqmcac8p
    """  # noqa: E501 - a key is one word
    from evalset.holdout.seal import seal_set
    from evalset.workspace import resolve_set, workspace_of

    path = resolve_set(workspace_of(name), name)
    result = seal_set(path, recipients)
    if as_json:
        emit_json(
            {
                "set": str(path),
                "sealed": result.sealed,
                "recipients": result.recipients,
                "recipients_from": result.recipients_from,
            }
        )
    elif result.sealed:
        origin = {"set": " (as the set's sealed items)", "HEAD": " (as the holdout at HEAD)"}
        echo(
            f"sealed {len(result.sealed)} holdout item(s) in {path} to "
            f"{', '.join(result.recipients)}{origin.get(result.recipients_from, '')}: "
            f"{', '.join(result.sealed)}"
        )
    else:
        echo(f"{path}: no holdout item left to seal")


def unseal(
    name: str = typer.Argument(..., help="The set, by name or path."),
    as_json: bool = _JSON,
) -> None:
    """Turn sealed items back into plain items; needs EVALSET_AGE_IDENTITY.

    Example: EVALSET_AGE_IDENTITY=~/.config/evalset/holdout.key evalset unseal acme-support
    """
    from evalset.holdout.seal import unseal_set
    from evalset.workspace import resolve_set, workspace_of

    path = resolve_set(workspace_of(name), name)
    unsealed = unseal_set(path)
    if as_json:
        emit_json({"set": str(path), "unsealed": unsealed})
    elif unsealed:
        echo(f"unsealed {len(unsealed)} item(s) in {path}: {', '.join(unsealed)}")
    else:
        echo(f"{path}: no sealed item")


def new(
    name: str = typer.Argument(..., help="The set, by name or path."),
    question: str = typer.Option(
        None, "--question", "-q", help="The question (default: a placeholder to replace)."
    ),
    category: str = typer.Option(None, "--category", help="One of the set's categories."),
    as_json: bool = _JSON,
) -> None:
    """Append a draft item with a fresh id, to fill in: question, category, expected sources
    and key points.

    The id continues the set's numbering (q-041 after q-040). Make it active and verify it
    once its labels are written.

    Example: evalset new acme-support --question "Can I return a gift?" --category direct-lookup
    """
    from evalset.sets.items import new_item
    from evalset.workspace import resolve_set, workspace_of

    path = resolve_set(workspace_of(name), name)
    ident = new_item(path, question, category)
    if as_json:
        emit_json({"set": str(path), "id": ident})
        return
    echo(f"added draft {ident} to {path}")
    missing = [w for w, given in (("question", question), ("category", category)) if not given]
    todo = ", ".join([*missing, "expected sources"]) + " and key points"
    echo(f"next: write its {todo}, set `status: active`, then `evalset verify {name} {ident}`")


def retire(
    name: str = typer.Argument(..., help="The set, by name or path."),
    items: list[str] = typer.Argument(..., metavar="ITEM", help="Ids of the items to retire."),
    reason: str = typer.Option(..., "--reason", help="Why; written beside `status: retired`."),
    as_json: bool = _JSON,
) -> None:
    """Retire items: they stay in the file for history, out of releases and exports.

    Example: evalset retire acme-support q-018 --reason "the protection plan is no longer sold"
    """
    from evalset.sets.items import retire as run
    from evalset.workspace import resolve_set, workspace_of

    path = resolve_set(workspace_of(name), name)
    result = run(path, items, reason)
    if as_json:
        emit_json({"set": str(path), "retired": result.retired, "already": result.already})
        return
    if result.retired:
        echo(f"retired {', '.join(result.retired)} in {path}")
    if result.already:
        echo(f"already retired: {', '.join(result.already)}")


def register(app: typer.Typer) -> None:
    app.command()(new)
    app.command()(retire)
    app.command()(split)
    app.command()(seal)
    app.command()(unseal)
    app.command()(export)
    app.command("import")(import_)
    app.command()(promote)


def _dvc_tracks(ws: Workspace, cited: Iterable[list[str]]) -> bool:
    """Whether a DVC project holds the corpus, or the folder in it of a cited document
    (`dvc init --subdir` may have made one anywhere between the repository and it)."""
    from evalset.corpus.stores import dvc_cache

    docs = {c.split("#", 1)[0] for citations in cited for c in citations}
    folders = {ws.corpus_dir, *((ws.corpus_dir / doc).parent for doc in docs)}
    return any(dvc_cache(str(folder)) is not None for folder in folders)
