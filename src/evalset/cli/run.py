"""The bodies of the commands run on every commit and CI step: snapshot, stale, status,
and scoring a run against a set (``score retrieval``).

They print through ``evalset.cli.output`` and import nothing of typer, so that
``evalset.cli.main`` can run their plain forms without building the typer app (typer
imports pydantic and builds a validator per option, about 0.2 s). Their options, help and
every other form are declared in the typer commands of ``evalset.cli.corpus`` and
``evalset.cli.inspect``, which call these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from evalset.cli.output import Part, echo, emit_document, emit_json, emit_json_text, table

if TYPE_CHECKING:
    from pathlib import Path

    from evalset.config import Workspace
    from evalset.holdout.coverage import Coverage
    from evalset.score.judges.base import Judge
    from evalset.score.metrics import Granularity
    from evalset.score.report import Report
    from evalset.staleness.stale import CitationStatus, ItemStatus, StaleReport


def version() -> None:
    """`evalset --version`."""
    from evalset.version import __version__

    echo(f"evalset {__version__}")


def snapshot(rev: str | None, as_json: bool) -> None:
    """`evalset snapshot [--rev REV] [--json]`."""
    from evalset.config import find_workspace
    from evalset.corpus.snapshot import take_snapshot
    from evalset.workspace import display_path

    ws = find_workspace()
    if rev is None:
        _refuse_no_corpus(ws)
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
    newest = result.newest
    if as_json:
        emit_json(
            {
                "snapshot": result.short,
                "id": result.id,
                "path": str(path),
                "written": result.written,
                "text_rewritten": (
                    None
                    if result.text_rewritten is None
                    else "stored"
                    if result.text_rewritten
                    else "removed"
                ),
                "documents": result.documents,
                "sections": result.sections,
                "commit": result.commit,
                "previous": previous[:12] if previous else None,
                "changes": changes.to_json() if changes else None,
                "newest": newest.to_json() if newest else None,
                "warnings": result.warnings,
            }
        )
        return
    for warning in result.warnings:
        echo(f"warning: {warning}", fg="yellow", err=True)
    state = "written to" if result.written else "unchanged, already in"
    if result.text_rewritten is not None:
        state = (
            f"unchanged, and written again {'with' if result.text_rewritten else 'without'} "
            f"its section text (store_text = {str(result.text_rewritten).lower()}) to"
        )
    echo(
        f"snapshot {result.short}: {result.documents} document{'s' * (result.documents != 1)}, "
        f"{result.sections} section{'s' * (result.sections != 1)} "
        f"({result.reread} file(s) read); {state} {path}"
    )
    if newest is not None and not result.is_newest:
        echo(f"the newest snapshot is still {newest.short} ({newest.reason})")
        return
    if changes is None or previous is None:  # first snapshot, or the newest already
        return
    if changes.empty:
        echo(f"no change since {previous[:12]}")
        return
    echo(f"since {previous[:12]}:")
    for doc in changes.added:
        echo(f"  + {doc}", fg="green")
    for doc in changes.removed:
        echo(f"  - {doc}", fg="red")
    for doc, parts in changes.changed.items():
        detail = ", ".join(f"{len(v)} {k}" for k, v in parts.items() if v)
        # no section differs: what changed is text in no section (before the first
        # heading, or a document without headings)
        echo(f"  ~ {doc} ({f'sections: {detail}' if detail else 'its text outside sections'})",
             fg="yellow")  # fmt: skip
        for kind, mark in (("added", "+"), ("removed", "-"), ("changed", "~")):
            for section in parts[kind]:
                echo(f"      {mark} #{section}")


def _refuse_no_corpus(ws: Workspace) -> None:
    """A corpus folder that is not there (and that no git or DVC keeps elsewhere, which the
    snapshot says how to fetch) is a mistake in the configuration: named with its setting."""
    from evalset.corpus.manifest import SnapshotError
    from evalset.corpus.tracked import not_pulled
    from evalset.workspace import display_path

    folder = ws.corpus_dir
    if folder.is_dir() or not_pulled(folder) is not None:
        return
    what = "is a file, not a folder" if folder.exists() else "does not exist"
    where = ws.config_file.name
    raise SnapshotError(
        f"{display_path(folder)}: the corpus folder {what}, but {where} names it as the folder "
        f"of the documents ({ws.setting('corpus')}); put the documents there, or check "
        f"`corpus` in {where}."
    )


def stale(
    sets: list[str],
    as_json: bool,
    fmt: str,
    fix_moved: bool,
    no_fail: bool,
    skip_sealed: bool = False,
    judge: str | None = None,
    require_snapshot: bool = False,
) -> None:
    """`evalset stale [SET...]`; ``fmt`` is text or md. Exits 1 when an item is stale, or a
    sealed item could not be checked (unless ``skip_sealed``), unless ``no_fail``; and with
    ``require_snapshot``, when the corpus has changed since the newest snapshot (whatever
    ``no_fail`` says). With ``judge``, the claims of stale items are re-checked."""
    from evalset.corpus.current import workspace_store
    from evalset.staleness.stale import require_schema, stale_report
    from evalset.staleness.verify import fix_moved as fix
    from evalset.workspace import resolve_set, set_paths, unique_paths, workspace_for

    ws = workspace_for(sets[0] if sets else None)
    paths = unique_paths([resolve_set(ws, s) for s in sets] if sets else set_paths(ws))
    fixed: dict[str, dict[str, str]] = {}
    alike: dict[str, dict[str, list[str]]] = {}  # an unverified item's, not in the report
    if fix_moved:
        from evalset.sets.lock import refuse_unplain
        from evalset.sets.setfile import load_set

        for path in paths:  # every set editable, before any is read (a FIFO's read waits)
            refuse_unplain(path)
        for path in paths:  # every set readable, and its items loaded, before any is rewritten
            require_schema(load_set(path))
        for path in paths:  # item ids are unique within a set only: merged, none lost
            for item_id, moves in fix(ws, path, alike).items():
                fixed.setdefault(item_id, {}).update(moves)
    report = stale_report(paths, workspace_store(ws), ws.root)
    claims = _claims(ws, report, judge) if judge else {}
    tied = {item_id: dict(places) for item_id, places in alike.items()}
    for item in report.items if fix_moved else []:  # moved to several places alike: not
        for c in item.citations:  # rewritten, a person chooses (ids of two sets merged)
            if c.tied and c.new is not None:
                tied.setdefault(item.id, {})[c.citation] = [c.new, *c.candidates]
    if as_json:
        data = report.to_json()
        for entry in data["items"]:
            found = claims.get((entry["set"], entry["id"]))
            if found is not None:
                entry["claims"] = found.to_json()
        emit_json(data | ({"fixed": fixed, "not_fixed": tied} if fix_moved else {}))
    elif report.snapshot is None and not report.items:
        echo(f"no snapshot in {ws.snapshots_dir} yet: run `evalset snapshot`.")
    elif fmt == "md":
        emit_document("\n".join(_stale_md(report, fixed, tied)) + "\n")
    else:
        for item_id, moves in fixed.items():
            for old, new in moves.items():
                echo(f"fixed {item_id}: {old} -> {new}", fg="green")
        for item_id, places in tied.items():
            for old, where in places.items():
                echo(
                    f"not fixed {item_id}: {old} moved to {' and '.join(map(str, where))} "
                    "alike; cite the one meant by hand",
                    fg="yellow",
                )
        _print_text(report, claims, judge)
        why = f" ({report.newest.reason})" if report.newest else ""
        if report.snapshot is None:
            echo(f"{len(report.items)} stale item(s): {_no_snapshot(ws)}")
        else:
            echo(f"{len(report.items)} stale item(s) against snapshot {report.snapshot}{why}")
        for name, unverified in report.unverified.items():
            if not unverified:
                continue
            shown = ", ".join(unverified[:10]) + (", …" if len(unverified) > 10 else "")
            them = " ".join(unverified) if len(unverified) <= 3 else "ITEM…"
            echo(
                f"{len(unverified)} item(s) of {name} not verified against any snapshot, so not "
                f"compared: {shown} (check them, then `evalset verify {name} {them}`)",
                fg="yellow",
            )
    unchecked = {name: ids for name, ids in report.unchecked.items() if ids}
    if unchecked and not as_json:
        from evalset.sets.sealed import unchecked_message

        for name, ids in unchecked.items():
            line = f"{name}: {unchecked_message(ids, 'stale', skip_sealed)}"
            echo(f"**{line}**" if fmt == "md" else line, fg="yellow")
    unrecorded = require_snapshot and report.newest is not None and report.newest.corpus_changed
    if unrecorded and not as_json:
        line = (
            f"failed (--require-snapshot): the corpus has changed since snapshot "
            f"{report.snapshot}; record it with `evalset snapshot` and commit the manifest"
        )
        echo(f"**{line}**" if fmt == "md" else line, fg="red")
    if ((report.items or (unchecked and not skip_sealed)) and not no_fail) or unrecorded:
        raise SystemExit(1)


def _snapshots_absent(ws: Workspace) -> str:
    """The snapshots folder and that it holds none (or is not there)."""
    from evalset.workspace import display_path

    folder = ws.snapshots_dir
    return f"{display_path(folder)} {'holds no snapshot' if folder.is_dir() else 'does not exist'}"


def _no_snapshot(ws: Workspace) -> str:
    """Why items verified against a snapshot were compared with nothing: there is none."""
    where = ws.config_file.name
    return (
        f"{_snapshots_absent(ws)}, so the snapshots they were verified against are not "
        f"here and none of them could be compared; restore the snapshots from git, or check "
        f"{ws.key('snapshots')} in {where} ({ws.setting('snapshots')})."
    )


def _diff_parts(old: str, new: str, context: int = 8) -> list[Part]:
    """A word diff of ``old`` and ``new``: unchanged runs of more than twice ``context``
    words cut in the middle."""
    from evalset.staleness.textdiff import word_diff

    out: list[Part] = []
    for op, text in word_diff(old, new):
        if op == "=":
            words = text.split()
            if len(words) > 2 * context:
                text = " ".join([*words[:context], "…", *words[-context:]])
        out += [(" ", None)] if out else []
        out.append((text, None if op == "=" else "removed" if op == "-" else "added"))
    return out


def _clip(text: str, words: int = 24) -> str:
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")


def _anchor(citation: str, parent: str) -> str:
    """``#section`` for a part of ``parent``'s document; ``#parent (own text)`` for itself."""
    section = "#" + citation.split("#", 1)[-1]
    return f"{section} (own text)" if citation == parent else section


def _detail_lines(item: ItemStatus, c: CitationStatus) -> list[list[Part]]:
    """What a person needs to re-check a stale citation: its heading's word diff when the
    heading was reworded, the word diff of its text (per subsection for a section that has
    some), or the deleted text, what cites it, and its best candidate."""
    from evalset.sets.model import HIDDEN

    lines: list[list[Part]] = []
    if c.heading is not None:
        lines.append([("heading: ", None), *_diff_parts(*c.heading)])
    if c.status == "changed" and c.parts:
        for part in c.parts:
            where = _anchor(part.section, c.citation)
            if part.status == "renamed" and part.was is not None and part.heading is not None:
                was = _anchor(part.was, c.citation)
                lines.append([(f"{was} -> {where} (renamed, its text the same): ", None),
                              *_diff_parts(*part.heading)])  # fmt: skip
            elif part.old is not None and part.new is not None:
                lines.append([(f"{where}: ", None), *_diff_parts(part.old, part.new)])
            else:
                lines.append([(f"{where} ({part.status}): {_clip(part.new or part.old or '')}",
                               None)])  # fmt: skip
    elif c.status == "changed" and c.old_text is not None and c.new_text is not None:
        lines.append(_diff_parts(c.old_text, c.new_text))
    elif c.status == "deleted" and c.old_text is not None:
        was = _clip(c.old_text) or "(nothing: the section was empty under its heading)"
        lines.append([(f"was: {was}", None)])
        for k in item.citing(c.citation):
            text = HIDDEN if item.holdout else _clip(item.key_points[k], 16)
            lines.append([(f"cited by key point {k + 1}: {text}", None)])
        if c.candidates and c.candidate_text is not None:
            diff = _diff_parts(c.old_text, c.candidate_text)
            lines.append([(f"against {c.candidates[0]}: ", None), *diff])
    if c.note:
        lines.append([(f"({c.note})", None)])
    return lines


def _claims(ws: Any, report: StaleReport, judge: str) -> dict[tuple[str, str], Any]:
    """The claims of the stale items, re-checked by the judge (`stale --judge`)."""
    from evalset.corpus.manifest import SnapshotStore
    from evalset.score.judges.cache import VerdictCache
    from evalset.score.judges.registry import load_judge
    from evalset.score.judges.runner import Judging
    from evalset.score.restale import recheck

    chosen = load_judge(judge, ws)
    try:
        cache = VerdictCache(ws.state_dir) if chosen.cacheable else None
        store = SnapshotStore(ws.snapshots_dir, state_dir=ws.state_dir)
        return recheck(report, store, Judging(chosen, cache))
    finally:
        chosen.close()


def _print_text(
    report: StaleReport, claims: dict[tuple[str, str], Any] | None = None, judge: str | None = None
) -> None:
    for item in report.items:
        echo(
            f"{item.file}: item {item.id} (verified {item.verified}, newest "
            f"{report.snapshot or 'none: no snapshot here'})",
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
            elif c.parts:
                line += f" (in {', '.join(_anchor(p.section, c.citation) for p in c.parts)})"
            echo(line)
            for detail in _detail_lines(item, c):
                echo([("      ", None), *detail])
        found = (claims or {}).get((item.set, item.id))
        if found is not None:
            from evalset.score.restale import claim_lines

            for text in claim_lines(found, judge or ""):
                echo(f"  {text}")


def _md_detail(parts: list[Part]) -> str:
    """A detail line in a comment: removed words struck through, added ones in bold."""
    from evalset.display import md_text

    marks = {None: "", "removed": "~~", "added": "**"}
    return "".join(f"{marks[kind]}{md_text(text)}{marks[kind]}" for text, kind in parts)


def _fixes_md(fixed: dict[str, dict[str, str]], tied: dict[str, dict[str, list[str]]]) -> list[str]:
    """The lines of `stale --fix-moved --format md` that say which citations were rewritten
    in the set files, and which were left for a person (the first 20 of each)."""
    from evalset.display import md_code

    def shown(pairs: list[str]) -> str:
        more = f", and {len(pairs) - 20} more" if len(pairs) > 20 else ""
        return ", ".join(pairs[:20]) + more

    out = []
    done = [f"{md_code(i)}: {md_code(old)} → {md_code(new)}"
            for i, moves in fixed.items() for old, new in moves.items()]  # fmt: skip
    if done:
        out += ["", f"Rewritten in place by `--fix-moved` ({len(done)}): {shown(done)}."]
    left = [f"{md_code(i)}: {md_code(old)} → {' or '.join(md_code(str(p)) for p in where)}"
            for i, places in tied.items() for old, where in places.items()]  # fmt: skip
    if left:
        out += ["", f"Not rewritten, moved to several places alike (cite the one meant by "
                f"hand) ({len(left)}): {shown(left)}."]  # fmt: skip
    return out


def _stale_md(
    report: StaleReport,
    fixed: dict[str, dict[str, str]] | None = None,
    tied: dict[str, dict[str, list[str]]] | None = None,
) -> list[str]:
    """The lines of `stale --format md`: a row per stale citation, then the details of each
    (word diffs, reworded headings, notes), as many as fit in a comment (``COMMENT_LONGEST``)."""
    from evalset.display import (
        COMMENT_LONGEST,
        LEFT_OUT_ROOM,
        md_code,
        md_fit,
        md_html,
        md_left_out,
        md_length,
        md_row,
        md_text,
    )

    why = f" ({report.newest.reason})" if report.newest else ""
    unverified = [i for ids in report.unverified.values() for i in ids]
    end = []
    if unverified:
        more = f", and {len(unverified) - 20} more" if len(unverified) > 20 else ""
        end = ["", f"{len(unverified)} item(s) not verified against any snapshot, so not "
               f"compared: {', '.join(map(md_code, unverified[:20]))}{more}."]  # fmt: skip
    end = _fixes_md(fixed or {}, tied or {}) + end
    against = f"against snapshot `{report.snapshot}`{why}"
    if report.snapshot is None:
        against = "(no snapshot here to compare them with: their citations are unknown)"
    if not report.items:
        return [f"No stale items {against}.", *end]
    out = [f"### {len(report.items)} stale item(s) {against}",
           "", "| set | item | citation | status | now |", "|---|---|---|---|---|"]  # fmt: skip
    rows: list[str] = []
    details: list[str] = []  # each block's lines, joined
    for item in report.items:
        for c in item.citations:
            if c.status == "ok":
                continue
            now = c.new or ", ".join(c.candidates) or ""
            if c.status == "moved" and c.candidates:  # as the text output says it
                now += f" (also identical: {', '.join(c.candidates)})"
            if c.parts:
                now = "in " + ", ".join(_anchor(p.section, c.citation) for p in c.parts)
            rows.append(md_row([item.set, md_code(item.id), md_code(c.citation), c.status,
                                md_text(now)]))  # fmt: skip
            lines = _detail_lines(item, c)
            if not lines:  # a moved one's reworded heading and tie are changes too
                continue
            summary = md_html(f"{item.id}: {c.citation}")
            block = ["", f"<details><summary>{summary} ({c.status})</summary>", ""]
            for detail in lines:
                block += [_md_detail(detail).replace("|", "\\|"), ""]
            details.append("\n".join([*block, "</details>"]))
    room = COMMENT_LONGEST - LEFT_OUT_ROOM - md_length(out) - md_length(end)
    shown = md_fit(rows, room)
    out += rows[:shown]
    if shown < len(rows):
        left = len(rows) - shown
        return out + md_left_out(f"{left} more stale citation(s), and every change, are",
                                 "evalset stale") + end  # fmt: skip
    kept = md_fit(details, room - md_length(rows))
    out += details[:kept]
    if kept < len(details):
        out += md_left_out(f"the changes of {len(details) - kept} more citation(s) are",
                           "evalset stale")  # fmt: skip
    return out + end


def status(coverage: bool, as_json: bool, sets: list[str] | None = None) -> None:
    """`evalset status [SET...] [--coverage] [--json]`."""
    from evalset.status import workspace_overview
    from evalset.workspace import resolve_set, workspace_for

    workspace = workspace_for(sets[0] if sets else None)
    paths = [resolve_set(workspace, s) for s in sets] if sets else None
    overview = workspace_overview(workspace, with_coverage=coverage, paths=paths)
    statuses = overview.sets
    if as_json:
        emit_json({"workspace": str(workspace.root), **overview.to_json()})
        return
    if not statuses:
        echo(f"no sets in {workspace.sets_dir}: `evalset init` writes a first one.")
    if overview.newest is not None:
        echo(f"newest snapshot: {overview.newest.short} ({overview.newest.reason})")
    elif overview.undecided is not None:
        echo(f"newest snapshot: none; {overview.undecided}", fg="yellow")
    for k, s in enumerate(statuses):
        if k:
            echo("")  # between sets, not after the last
        rows = [
            (name, row["tuning"], row["holdout"], row["unassigned"])
            for name, row in s.categories.items()
        ]
        table(["category", "tuning", "holdout", "unassigned"], rows, title=f"{s.name} ({s.path})")
        if s.stale is None:
            stale = "not checked (" + (
                "no snapshot is the newest: see above)"
                if overview.undecided
                else "no snapshots yet)"
            )
        elif s.snapshot is None:  # verified items, and not one snapshot here
            shown = f" ({', '.join(s.stale_ids[:5])}{', …' if len(s.stale_ids) > 5 else ''})"
            stale = (
                f"{s.stale}{shown if s.stale else ''}, verified against snapshots that are not "
                f"here ({_snapshots_absent(workspace)}; see `evalset stale`)"
            )
        elif s.stale:
            stale = f"{s.stale} ({', '.join(s.stale_ids)}; see `evalset stale`)"
        else:
            stale = f"0 against snapshot {s.snapshot}"
        if s.unverified:
            shown = ", ".join(s.unverified[:5]) + (", …" if len(s.unverified) > 5 else "")
            stale += f"; unverified: {len(s.unverified)} ({shown})"
        if s.unchecked:
            stale += f"; sealed, not checked without the key: {len(s.unchecked)}"
        if s.invalid:
            shown = ", ".join(s.invalid[:5]) + (", …" if len(s.invalid) > 5 else "")
            stale += f"; failing the schema, not compared: {len(s.invalid)} ({shown})"
        release = s.release or "unreleased"
        if s.foreign_tag:
            release += f" (tag {s.foreign_tag} was not made by `evalset release`)"
        echo(
            f"  {s.active} active ({s.holdout} holdout), {s.drafts} draft, {s.retired} retired; "
            f"{s.errors} error(s), {s.warnings} warning(s); stale: {stale}; release: {release}"
            + (f"; {s.sealed} sealed" if s.sealed else "")
        )
        if s.draft_items:
            echo(f"  drafts to review ({len(s.draft_items)}):")
        for d in s.draft_items:
            age = (
                "undated" if d.age_days is None
                else f"{d.age_days} day(s) old" if d.age_days >= 0
                else f"dated {-d.age_days} day(s) in the future"
            )  # fmt: skip
            lacks = f"; lacks {', '.join(d.lacks)}" if d.lacks else "; complete"
            if d.errors:
                lacks += f"; {d.errors} error(s) (see `evalset validate`)"
            elif not d.lacks:
                lacks += ", ready to verify"
            echo(f"    {d.id}  {age}{lacks}")
        if s.coverage is not None:
            _print_coverage(s.coverage)
    if overview.merge_driver:
        if statuses:
            echo("")
        echo(f"note: {overview.merge_driver}", fg="yellow")


def _print_coverage(report: Coverage) -> None:
    rows = [
        (doc, r["tuning"], r["holdout"], r["unassigned"]) for doc, r in report.documents.items()
    ]
    table(["document", "tuning", "holdout", "unassigned"], rows, title="coverage by cited document")
    if report.sealed:
        echo(f"  {report.sealed} sealed item(s) counted by category only (their citations "
                   "need the key)")  # fmt: skip
    if report.empty_categories:
        echo(f"  no active item in categories: {', '.join(report.empty_categories)}",
                    fg="yellow")  # fmt: skip
    if report.corpus is None:
        echo("  corpus documents unknown (no snapshot and no corpus folder)")
    elif report.uncited:
        shown = ", ".join(report.uncited[:10]) + (", …" if len(report.uncited) > 10 else "")
        who = "no item in the clear cites" if report.sealed else "no item cites"
        may = " (a sealed item may)" if report.sealed else ""
        echo(f"  {who} {len(report.uncited)} of {len(report.corpus)} corpus documents: "
             f"{shown}{may}", fg="yellow")  # fmt: skip
    else:
        echo(f"  every one of the {len(report.corpus)} corpus documents is cited")


def _prefetched_set(set_ref: str, run: Path, command: str) -> tuple[Workspace, Path]:
    """The workspace and the set's path, the set file being read and parsed in a thread
    meanwhile: the imports a scoring command needs next take as long as parsing a large
    set, and yaml-rs parses without holding the interpreter. A run file given where the set
    goes is refused first (``_refuse_run_as_set``)."""
    from evalset.sets.yamlio import prefetch
    from evalset.workspace import resolve_set, workspace_for

    _refuse_run_as_set(set_ref, run, command)
    ws = workspace_for(set_ref)
    set_path = resolve_set(ws, set_ref)
    prefetch(set_path)
    return ws, set_path


RUN_SUFFIXES = (".jsonl", ".ndjson")
"""What a run file's name ends with, and a set file's never does."""


def _refuse_run_as_set(set_ref: str, run: Path, command: str) -> None:
    """Refuse a run file given where the set goes (the two arguments of `evalset score
    COMMAND` swapped, most likely): read as YAML, it would be refused for its syntax,
    sending the user to fix a file that is fine. When ``run`` is a set, the command in the
    right order is shown."""
    import contextlib
    import shlex
    from pathlib import Path

    from evalset.errors import EvalsetError, NoSetsFolder
    from evalset.workspace import SET_SUFFIXES, set_file_named, workspace_of

    if Path(set_ref).suffix.lower() not in RUN_SUFFIXES:
        return
    given = str(run)
    is_set = Path(given).suffix.lower() in SET_SUFFIXES
    ws = workspace_of(set_ref)
    if not is_set and "/" not in given and ws is not None:
        with contextlib.suppress(NoSetsFolder):
            is_set = set_file_named(ws, given) is not None
    order = shlex.join([given, set_ref]) if is_set else "SET RUN"
    raise EvalsetError(
        f"{set_ref}: is a run file (JSON Lines), given where the set goes; give the set first "
        f"(its name or its .yaml file), then the run file: `evalset score {command} {order}`."
    )


def score_trec_files(
    qrels: Path, run: Path, ks: tuple[int, ...] | None = None, as_json: bool = False
) -> None:
    """`evalset score retrieval --qrels QRELS --run RUN`: trec_eval's measures at the
    cutoffs ``ks`` (trec_eval's by default), as trec_eval's summary or (``as_json``) as
    ``{"all", "per_query"}``."""
    from evalset.score.trec import CUTOFFS, score_trec

    result = score_trec(qrels, run, ks or CUTOFFS)
    if as_json:
        emit_json_text(result.to_json_text() + "\n")
        return
    for name, value in result.all.items():  # like trec_eval's summary: four decimals
        shown = str(value) if isinstance(value, int) else f"{value:.4f}"
        emit_document(f"{name:<22}\tall\t{shown}\n")  # tabs, as trec_eval writes them


def score_set(
    set_ref: str,
    run: Path,
    output: Path | None = None,
    *,
    fmt: str = "text",
    html: Path | None = None,
    ks: tuple[int, ...] | None = None,
    granularity: Granularity = "section",
    snapshot: str | None = None,
    allow_stale: bool = False,
    skip_invalid: bool = False,
    as_json: bool = False,
) -> None:
    """`evalset score retrieval SET RUN` (set mode); ``ks`` None: the default cutoffs."""
    from evalset.bulk import bulk

    with bulk():  # its imports, the set, the run, the report: a million objects, no cycle
        ws, set_path = _prefetched_set(set_ref, run, "retrieval")
        refuse_overwriting_inputs(ws, output, html, ("set file", set_path), ("run file", run))
        from evalset.score.markdown import markdown
        from evalset.score.metrics import DEFAULT_K
        from evalset.score.retrieval import Options, score_retrieval

        options = Options(
            ks=ks or DEFAULT_K,
            granularity=granularity,
            snapshot=snapshot,
            allow_stale=allow_stale,
            skip_invalid=skip_invalid,
        )
        report = score_retrieval(ws, set_path, run, options)
        text = report.render()
        write_reports(report, text, output, html)
        if as_json:
            emit_json_text(text)
        elif fmt == "md":
            emit_document(markdown(report.data))
        else:
            _print_scores(report.data)
            for path, what in ((output, "report"), (html, "page")):
                if path is not None:
                    echo(f"{what} written to {path}")


def write_reports(report: Report, text: str, output: Path | None, html: Path | None) -> None:
    """Write a scored report (``text``, rendered) to ``output`` and its page to ``html``, as
    asked: both or neither (a path that cannot be written leaves neither file behind)."""
    from evalset.fsio import write_all

    files: list[tuple[Path, str | bytes]] = []
    if output is not None:
        files.append((output, text))
    if html is not None:
        from evalset.score.html import page

        files.append((html, page(report.data)))
    write_all(files)


def judge_files(judge: Judge) -> list[tuple[str, Path | None]]:
    """What a judge reads to decide, as the inputs no output may replace."""
    return [("judge's program or prompt", path) for path in judge.files()]


def refuse_overwriting_inputs(
    ws: Workspace, output: Path | None, html: Path | None, *inputs: tuple[str, Path | None]
) -> None:
    """Refuse a report or page path that names one of ``inputs`` (what each is, its path),
    or a file or folder the workspace keeps, or the same file for both, before any work is
    done."""
    from evalset.cli.params import refuse_writing_over

    refuse_writing_over(ws, [("report", output), ("page", html)], inputs)


def _print_tables(data: dict[str, Any]) -> None:
    """A report's metric tables on the terminal: per category, then per split."""
    from evalset.score.markdown import columns, metric_rows, scored_splits

    tables = columns(data)
    echo("")
    table(["metric", *(name for name, _ in tables)], metric_rows(data, tables))
    splits = scored_splits(data)
    if splits:
        echo("")
        table(["metric", *(name for name, _ in splits)], metric_rows(data, splits))
    echo("values: mean over items [95% interval]; n per group in the JSON report")


def _print_scores(data: dict[str, Any]) -> None:
    from evalset.score.markdown import notes, retrieval_miss_lines, scored_trials, title

    counts = data["counts"]
    echo(
        f"{title(data)}: {counts['scored']} item(s) scored, {scored_trials(data)} trial(s), "
        f"run {data['run']['path']}",
        bold=True,
    )
    lines = retrieval_miss_lines(data, "misses")
    echo(lines[0][0], fg=lines[0][1])
    for line, _ in lines[1:]:
        echo(line)
    _print_tables(data)
    for note in notes(data):
        echo(f"note: {note}", fg="yellow")


def score_answers(
    set_ref: str,
    run: Path,
    judge: str,
    output: Path | None = None,
    *,
    fmt: str = "text",
    html: Path | None = None,
    labels: Path | None = None,
    snapshot: str | None = None,
    allow_stale: bool = False,
    skip_invalid: bool = False,
    as_json: bool = False,
) -> None:
    """`evalset score answers SET RUN --judge J`. Exits 1 when the judge could not decide
    some claims (the report is still written)."""
    from evalset.bulk import bulk

    with bulk():  # the set, the run, the judge's decisions, the report: no cycle
        ws, set_path = _prefetched_set(set_ref, run, "answers")
        from evalset.score.answer_text import markdown, notes, ppi_line, text_lines
        from evalset.score.answers import AnswerOptions
        from evalset.score.answers import score_answers as score
        from evalset.score.judges.registry import load_judge

        options = AnswerOptions(
            snapshot=snapshot, allow_stale=allow_stale, skip_invalid=skip_invalid, labels=labels
        )
        chosen = load_judge(judge, ws)  # asks nothing yet: its files are known
        try:
            refuse_overwriting_inputs(
                ws, output, html, ("set file", set_path), ("run file", run),
                ("label file", labels), *judge_files(chosen),
            )  # fmt: skip
            report, _ = score(ws, set_path, run, chosen, options)
        finally:
            chosen.close()
        text = report.render()
        write_reports(report, text, output, html)
        data = report.data
        if as_json:
            emit_json_text(text)
        elif fmt == "md":
            emit_document(markdown(data))
        else:
            for line, colour in text_lines(data):
                bold = colour == "bold"
                echo(line, fg=colour if colour not in (None, "bold") else None, bold=bold)
            _print_tables(data)
            ppi = ppi_line(data)
            if ppi:
                echo(ppi)
            for note in notes(data):
                echo(f"note: {note}", fg="yellow")
            for path, what in ((output, "report"), (html, "page")):
                if path is not None:
                    echo(f"{what} written to {path}")
        if data["counts"]["judge_errors"]:
            raise SystemExit(1)
