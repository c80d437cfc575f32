"""Commands that score answers and check their judge: score answers, agreement."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from evalset.cli.output import echo, emit_json, given, table
from evalset.cli.params import number_in, output_format

if TYPE_CHECKING:
    from evalset.score.agreement import Agreement, Kappa

_JUDGE_HELP = (
    "The judge (required): exact, 'command:PROGRAM ARGS', openai:MODEL, or the name of a judge "
    "configured in the judges table or installed as a plug-in."
)


def answers(
    ctx: typer.Context,
    set_ref: str = typer.Argument(..., metavar="SET", help="The set, by name or path."),
    run: Path = typer.Argument(
        ..., metavar="RUN", help="The run file: JSONL with an answer on each line."
    ),
    judge: str = typer.Option(None, "--judge", metavar="J", help=_JUDGE_HELP),
    output: Path = typer.Option(None, "-o", "--output", help="Write the JSON report here."),
    fmt: str = typer.Option(
        "text", "--format", metavar="FORMAT", help="text, or md for a pull-request comment."
    ),
    html: Path = typer.Option(
        None, "--html", metavar="FILE", help="Also write the report as a self-contained page."
    ),
    labels: Path = typer.Option(
        None,
        "--labels",
        metavar="LABELS",
        help="Human labels (id,answer,claim,label): record the judge's agreement, and the "
        "PPI estimate of coverage.",
    ),
    snapshot: str = typer.Option(
        None, "--snapshot", metavar="ID", help="The snapshot the run answered from (newest)."
    ),
    allow_stale: bool = typer.Option(
        False, "--allow-stale", help="Score a set with stale items, marking them."
    ),
    skip_invalid: bool = typer.Option(
        False, "--skip-invalid", help="Leave out invalid run lines, listing them."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Score what the system answered, by claim: coverage, violations, exact, refusal,
    faithfulness, injection.

    The judge decides, one claim at a time, whether each answer asserts each key point and
    must_not_say entry and whether it declines; with contexts on the run lines, whether the
    contexts support the answer's statements. Verdicts are cached in .evalset/, so scoring
    the same answers again asks the judge nothing. The report names the judge and, with
    --labels, its agreement with people. Exit 1 when the judge could not decide some claims
    (listed on their items; the report is still written).

    Example: evalset score answers acme-support run.jsonl --judge exact -o reports/answers.json
    """
    output_format(fmt, as_json)
    _require_judge(ctx, judge)
    from evalset.cli.run import score_answers

    score_answers(set_ref, run, judge, output, fmt=fmt, html=html, labels=labels,
                  snapshot=snapshot, allow_stale=allow_stale, skip_invalid=skip_invalid,
                  as_json=as_json)  # fmt: skip


def agreement(
    ctx: typer.Context,
    labels: Path = typer.Argument(
        ..., metavar="LABELS", help="CSV with id,answer,claim,label (label: yes or no)."
    ),
    judge: str = typer.Option(None, "--judge", metavar="J", help=_JUDGE_HELP),
    set_ref: str = typer.Option(
        None, "--set", metavar="SET", help="The set the ids belong to (default: the only set)."
    ),
    min_kappa: float = typer.Option(
        None,
        "--min-kappa",
        metavar="K",
        callback=number_in(-1, 1),
        help="Exit 1 when kappa is below K (from -1 to 1).",
    ),
    output: Path = typer.Option(None, "-o", "--output", help="Also write the result as JSON."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON document."),
) -> None:
    """Check a judge against people: agreement, Cohen's kappa with its interval, per category.

    Each row says whether a person found that the answer asserts the claim (yes or no); the
    judge decides the same (verdicts a caching judge has cached are reused) and the two are
    compared. Prints the confusion table and the rows where they disagree.

    Example: evalset agreement examples/labels/acme-support.csv --judge exact --min-kappa 0.6
    """
    _require_judge(ctx, judge)
    from evalset.cli.params import refuse_writing_over
    from evalset.cli.run import judge_files
    from evalset.score.agreement import agreement as run_agreement
    from evalset.score.judges.cache import VerdictCache
    from evalset.score.judges.registry import load_judge
    from evalset.score.judges.runner import Judging
    from evalset.score.report import write_report
    from evalset.sets.setfile import load_set
    from evalset.workspace import resolve_set, set_paths, workspace_for

    ws = workspace_for(set_ref)
    if set_ref is not None:
        set_path = resolve_set(ws, set_ref)
    else:
        paths = set_paths(ws)
        if len(paths) != 1:
            from evalset.errors import EvalsetError

            names = ", ".join(p.stem for p in paths) or "none"
            raise EvalsetError(
                f"{ws.sets_dir}: holds {len(paths)} sets ({names}); name the set the labelled "
                "ids belong to with --set."
            )
        set_path = paths[0]
    loaded = load_set(set_path)
    chosen = load_judge(judge, ws)  # asks nothing yet: its files are known
    try:
        refuse_writing_over(
            ws,
            [("result", output)],
            [("label file", labels), ("set file", set_path), *judge_files(chosen)],
        )
        judging = Judging(chosen, VerdictCache(ws.state_dir) if chosen.cacheable else None)
        result = run_agreement(labels, loaded, judging, min_kappa)
    finally:
        chosen.close()
    if output is not None:
        import json

        write_report(output, json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n")
    if as_json:
        emit_json(result.to_json())
    else:
        _print_agreement(result)
    if not result.ok:
        raise typer.Exit(1)


def _kappa(found: Kappa, below: float | None = None) -> str:
    from evalset.score.agreement import kappa_text

    return kappa_text(found.to_json(), below)


def _share(share: float | None) -> str:
    from evalset.score.agreement import share_text

    return share_text(share) if share is not None else "-"


def _print_agreement(result: Agreement) -> None:
    from evalset.score.markdown import hidden

    o = result.overall
    echo(
        f"judge {result.judge['name']} against people on {result.path} (set {result.set}): "
        f"{o.n} claim(s) compared",
        bold=True,
    )
    shown = _share(o.agreement)
    if result.measured:
        echo(f"agreement {shown}, kappa {_kappa(o, result.min_kappa)}")
    else:
        echo(f"failed: agreement not measured, the judge decided none of the {len(result.errors)} "
             "labelled claim(s) (the notes below say why)", fg="red")  # fmt: skip
    c = o.confusion
    table(
        ["", "person yes", "person no"],
        [
            ["judge yes", c["judge_yes_human_yes"], c["judge_yes_human_no"]],
            ["judge no", c["judge_no_human_yes"], c["judge_no_human_no"]],
        ],
    )
    rows = [
        [name, k.n, _share(k.agreement), _kappa(k)]
        for name, k in result.categories.items()
    ]  # fmt: skip
    if rows:
        echo("")
        table(["category", "n", "agreement", "kappa [95% interval]"], rows)
    if result.disagreements:
        echo(f"disagreements ({len(result.disagreements)}):")
        for d in result.disagreements[:10]:
            who = "judge yes, person no" if d["judge"] else "judge no, person yes"
            claim = hidden(d.get("split", "holdout")) if d.get("hidden") else d["claim"]
            echo(f"  line {d['line']} {d['id']}: {who}: {claim}")
        if len(result.disagreements) > 10:
            echo(f"  … and {len(result.disagreements) - 10} more (--json lists them all)")
    for e in result.errors:
        echo(f"note: line {e['line']} {e['id']}: the judge could not decide: {e['error']}",
             fg="yellow")  # fmt: skip
    if result.min_kappa is not None and result.measured:
        if result.ok:
            echo(f"ok: kappa is at least {given(result.min_kappa)}", fg="green")
        elif o.kappa is None:  # no number to be below anything: say why there is none
            echo("failed: kappa is undefined, since judge and person each gave one and the same "
                 f"verdict only, so it cannot reach --min-kappa {given(result.min_kappa)}; label "
                 "claims the answers assert and claims they do not", fg="red")  # fmt: skip
        else:
            echo(f"failed: kappa {_kappa(o, result.min_kappa)} is below --min-kappa "
                 f"{given(result.min_kappa)}", fg="red")  # fmt: skip


def register(app: typer.Typer) -> None:
    from evalset.cli.score import score_app

    score_app.command("answers")(answers)
    app.command()(agreement)


def _require_judge(ctx: typer.Context, judge: str | None) -> None:
    """A judge must be named: there is no default, since what a score means depends on it."""
    if judge is None:
        ctx.fail(
            "Missing option '--judge': name the judge: exact, command:PROGRAM, openai[:MODEL], "
            "or a judge configured under [judges.NAME]."
        )
