"""Commands that score runs and gate on them: score retrieval, gate, accept."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from evalset.cli.output import echo, emit_json, given, table
from evalset.cli.params import output_format

if TYPE_CHECKING:
    from evalset.score.gate import GateResult

_JSON = typer.Option(False, "--json", help="Print one JSON document.")

score_app = typer.Typer(
    name="score",
    help="""Score a run of your system against a set, and write the pinned report.

    `evalset score retrieval` scores what the retriever returned for each item (or standard
    TREC files); `evalset score answers` scores what the system answered, claim by claim,
    with a judge.

    A set with stale items is refused unless --allow-stale, which scores it and marks them
    (the example as shipped has six).

    Example: evalset score retrieval acme-support examples/runs/acme-support-bm25.jsonl
    --allow-stale
    """,
    no_args_is_help=True,
)


def _ks(text: str | None, default: tuple[int, ...]) -> tuple[int, ...]:
    if text is None:
        return default
    # digits alone: int() would also read "1_0" as 10, "+3" and " 3" as 3, and other
    # scripts' digits ("٣"), none of which is a cutoff as written
    parts = text.split(",")
    try:
        if not all(part.isascii() and part.isdigit() for part in parts):
            raise ValueError
        found = tuple(sorted({int(part) for part in parts}))
    except ValueError:  # (also: more digits than int() reads)
        found = ()
    if not found or found[0] < 1 or found[-1] > 100_000:
        raise typer.BadParameter(
            "give whole numbers from 1 to 100000, comma-separated", param_hint="--k"
        )
    return found


def retrieval(
    set_ref: str = typer.Argument(None, metavar="SET", help="The set, by name or path."),
    run: Path = typer.Argument(
        None, metavar="RUN", help="The run file: JSONL, one line per item and trial."
    ),
    output: Path = typer.Option(None, "-o", "--output", help="Write the JSON report here."),
    fmt: str = typer.Option(
        "text", "--format", metavar="FORMAT", help="text, or md for a pull-request comment."
    ),
    html: Path = typer.Option(
        None, "--html", metavar="FILE", help="Also write the report as a self-contained page."
    ),
    k: str = typer.Option(
        None, "--k", metavar="K", help="Cutoffs, comma-separated (default 1,3,5,10)."
    ),
    granularity: str = typer.Option(
        "section", "--granularity", help="section (a subsection counts) or document."
    ),
    snapshot: str = typer.Option(
        None, "--snapshot", metavar="ID", help="The snapshot the run retrieved from (newest)."
    ),
    allow_stale: bool = typer.Option(
        False, "--allow-stale", help="Score a set with stale items, marking them."
    ),
    skip_invalid: bool = typer.Option(
        False, "--skip-invalid", help="Leave out invalid run lines, listing them."
    ),
    qrels: Path = typer.Option(
        None, "--qrels", metavar="QRELS", help="TREC mode: a qrels file (with --run)."
    ),
    trec_run: Path = typer.Option(
        None, "--run", metavar="RUN", help="TREC mode: a TREC run file (with --qrels)."
    ),
    as_json: bool = _JSON,
) -> None:
    """Score what a retriever returned: hit@K, MRR, recall@K, precision@K, nDCG@K, MAP.

    Refuses an invalid set, or one stale against the run's snapshot. Prints the misses
    first, then each metric per category with its 95% interval; -o writes the JSON report,
    which carries the set's pin (`evalset check-pin` accepts it). With --qrels and --run it
    scores standard TREC files as trec_eval does.

    Example: evalset score retrieval acme-support run.jsonl -o reports/score.json
    """
    output_format(fmt, as_json)
    if granularity not in ("section", "document"):
        raise typer.BadParameter("use section or document", param_hint="--granularity")
    if qrels is not None or trec_run is not None:
        if set_ref is not None or run is not None:
            raise typer.BadParameter(
                "TREC mode takes --qrels QRELS --run RUN and no SET or RUN argument",
                param_hint="--qrels",
            )
        if qrels is None or trec_run is None:
            missing = "--qrels QRELS" if qrels is None else "--run RUN"
            raise typer.BadParameter(f"TREC mode needs {missing} too", param_hint="--qrels")
        ignored = [name for name, given in (
            ("-o", output is not None), ("--html", html is not None), ("--format md", fmt == "md"),
            ("--granularity", granularity != "section"), ("--snapshot", snapshot is not None),
            ("--allow-stale", allow_stale), ("--skip-invalid", skip_invalid),
        ) if given]  # fmt: skip
        if ignored:  # set mode's: silently left out, a script would look for what they give
            raise typer.BadParameter(
                f"TREC mode prints trec_eval's measures (--json: as JSON; redirect it to keep "
                f"it) and takes no {', '.join(ignored)}",
                param_hint="--qrels",
            )
        from evalset.cli.run import score_trec_files

        score_trec_files(qrels, trec_run, _ks(k, ()) or None, as_json)
        return
    if set_ref is None or run is None:
        raise typer.BadParameter("give the set and the run file (or --qrels and --run)")
    from evalset.cli.run import score_set

    score_set(set_ref, run, output, fmt=fmt, html=html, ks=_ks(k, ()) or None,
              granularity=granularity, snapshot=snapshot, allow_stale=allow_stale,
              skip_invalid=skip_invalid, as_json=as_json)  # fmt: skip


def _margin(value: float) -> float:
    from evalset.score.gate import margin_problem

    problem = margin_problem(value)
    if problem is not None:
        raise typer.BadParameter(f"{problem}.")
    return value


def _metric_names(given: list[str] | None) -> list[str]:
    """The names --metric gives, repeated or comma-separated; refused when it was given but
    names none (`--metric "$METRICS"` with the variable unset would gate every metric)."""
    names = [m.strip() for item in given or [] for m in item.split(",") if m.strip()]
    if given and not names:
        raise typer.BadParameter(
            "names no metric; name the metrics to gate on (hit@5,recall@10), or leave "
            "--metric out to gate on every metric both reports define."
        )
    return names


def gate(
    first: Path = typer.Argument(
        ..., metavar="BASELINE", help="The baseline report (or, alone, the current report)."
    ),
    second: Path = typer.Argument(
        None,
        metavar="CURRENT",
        help="The current report; without it, BASELINE is the current report, compared with "
        "the set's accepted run.",
    ),
    margin: float = typer.Option(
        0.03,
        "--margin",
        callback=_margin,
        help="The largest drop allowed in any category (from 0 to 1: scores are shares).",
    ),
    metric: list[str] = typer.Option(
        None,
        "--metric",
        metavar="M",
        callback=_metric_names,
        help="Gate on these metrics (repeat it, or comma-separate; default: all both share).",
    ),
    allow_snapshot_change: bool = typer.Option(
        False,
        "--allow-snapshot-change",
        help="Compare reports on different snapshots or metric definitions.",
    ),
    allow_judge_change: bool = typer.Option(
        False,
        "--allow-judge-change",
        help="Compare answer metrics decided by different judges (name or version).",
    ),
    as_json: bool = _JSON,
) -> None:
    """Compare a run with the accepted one per category; exit 1 when any category dropped.

    A drop of more than the margin in any category's metric fails, even when the overall mean
    rose. Each difference comes with a paired bootstrap interval. Reports on different set
    versions are compared on the items whose fingerprints are equal. The gate fails too when
    it compared nothing, when the current report has no value of a gated metric for an item
    the baseline scored, or lacks a metric the baseline has.

    Example: evalset gate reports/score.json --margin 0.03
    """
    from evalset.score.gate import gate as run
    from evalset.score.gate import load_accepted, load_checked
    from evalset.workspace import workspace_for, workspace_of

    if second is None:
        ws = workspace_for(first)  # the accepted run is kept in the workspace
        current_path = first
        current = load_checked(ws, current_path)
        baseline_path, baseline = load_accepted(ws, current, current_path)
    else:  # two reports need no workspace, unless one names a release (its pin is checked)
        ws = workspace_of(first) or workspace_of(second)
        baseline_path, current_path = first, second
        current = load_checked(ws, current_path)
        baseline = load_checked(ws, baseline_path)
    result = run(
        baseline,
        current,
        baseline_path,
        current_path,
        margin,
        metric,
        allow_snapshot_change,
        allow_judge_change=allow_judge_change,
    )
    if as_json:
        emit_json(result.to_json())
    else:
        _print_gate(result)
    if not result.ok:
        raise typer.Exit(1)


def _decimals(result: GateResult) -> int:
    """Decimals enough for each regression's difference to be seen beyond the margin: three,
    unless a small margin needs more (a drop of 0.00125 past a margin of 0.0012 read
    `difference -0.001`, and was said to be beyond it)."""
    for places in range(3, 16):
        shown = (abs(round(c.difference.value or 0.0, places)) for c in result.regressions)
        if all(value > result.margin for value in shown):
            return places
    return 16  # beyond a double's digits: the margin's epsilon is 1e-12


def _print_gate(result: GateResult) -> None:
    places = _decimals(result)
    left = result.left_out
    unscored = f", {len(left['unscored'])} scored in one report only" if left["unscored"] else ""
    echo(
        f"gate: {result.current} against {result.baseline}: {result.compared} item(s) "
        f"compared, {result.left_out_count} left out ({len(left['added'])} added, "
        f"{len(left['removed'])} removed, {len(left['changed'])} changed{unscored})",
        bold=True,
    )
    for note in result.notes:
        echo(f"note: {note}", fg="yellow")
    for c in result.regressions:
        echo(
            f"REGRESSION {c.category} {c.metric}: {c.baseline:.{places}f} -> "
            f"{c.current:.{places}f} (difference {_difference(c.difference, places)}), a "
            f"{'rise' if c.better == 'lower' else 'drop'} beyond the margin {given(result.margin)}",
            fg="red",
        )
    rows = [
        (
            c.category,
            c.metric,
            f"{c.baseline:.{places}f}",
            f"{c.current:.{places}f}",
            _difference(c.difference, places),
            "REGRESSION" if c.regression else "",
        )
        for c in result.comparisons
    ]
    rows += [
        ("(all compared)", c.metric, f"{c.baseline:.{places}f}", f"{c.current:.{places}f}",
         _difference(c.difference, places), "")
        for c in result.overall
    ]  # fmt: skip
    table(["category", "metric", "baseline", "current", "difference [95% interval]", ""], rows)
    if result.ok:
        echo(f"ok: no category dropped by more than {given(result.margin)}", fg="green")
        return
    for problem in result.problems:
        echo(f"failed: {problem}", fg="red")
    if result.regressions:
        echo(
            f"failed: {len(result.regressions)} regression(s) beyond the margin "
            f"{given(result.margin)}",
            fg="red",
        )


def _difference(d: Any, places: int = 3) -> str:
    return f"{d.value:+.{places}f} [{d.low:+.{places}f}, {d.high:+.{places}f}]"


def accept(
    report: Path = typer.Argument(..., help="The report to accept (written by evalset score)."),
    as_json: bool = _JSON,
) -> None:
    """Record a report as its set's accepted run (reports/accepted/SET.json), for the gate.

    The report is checked first (its digest, and its pin when it names a release) and
    copied unchanged. Commit the copy: `evalset gate CURRENT.json` compares with it.

    Example: evalset accept reports/score.json
    """
    from evalset.score.gate import accept as run
    from evalset.workspace import workspace_for

    ws = workspace_for(report)
    done = run(ws, report)
    shown = done.path.relative_to(ws.root)
    if as_json:
        emit_json(
            {
                "set": done.set,
                "accepted": str(shown),
                "replaced": done.replaced,
                "version": done.version,
                "ignored_by_git": done.ignored,
            }
        )
        return
    what = "is now" if done.replaced else "becomes"
    echo(f"{report} {what} the accepted run of {done.set}: {shown}; commit it (git add {shown})")
    if done.ignored:
        echo(
            f"note: git ignores {shown}: in .gitignore, replace /reports/ by /reports/* and "
            "!/reports/accepted/ so that accepted runs can be committed",
            fg="yellow",
        )


def register(app: typer.Typer) -> None:
    score_app.command()(retrieval)
    app.add_typer(score_app)
    app.command()(gate)
    app.command()(accept)
