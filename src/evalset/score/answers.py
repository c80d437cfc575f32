"""Scoring a run's answers against a set, by claim: key-point coverage, must_not_say
violations, exact match of short answers, refusals, faithfulness to the given contexts.

The set is checked, pinned and refused when stale exactly as retrieval scoring does. Every
active item is scored (answerable items for coverage and false refusals, unanswerable ones
for refusal); an item the run left out is scored as answering nothing (an empty answer
asserts nothing and declines nothing) and listed. A line of an active item without an
``answer`` is an error: that run was not an answers run.

The judge decides each claim (``evalset.score.judges``); an answer that is empty (or white
space and invisible characters only: ``states_nothing``) is decided without it. When every
line of an answerable item also has ``retrieved``, the report holds the retrieval metrics
too, scored as `evalset score retrieval` scores them.
With a label file (``labels``), the report records the judge's agreement with people on
it, and the prediction-powered (PPI) estimate of coverage beside the judge's own.
"""

from __future__ import annotations

import copy
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from evalset.aside import Beside, aside, here
from evalset.config import Workspace, as_workspace
from evalset.corpus.current import workspace_store
from evalset.corpus.manifest import SnapshotStore
from evalset.errors import CannotOpen
from evalset.fsio import as_path
from evalset.score.agreement import Label, agreement, read_labels
from evalset.score.answer_metrics import INJECTION, Judged
from evalset.score.answer_report import AnswerOptions, Row, build_report
from evalset.score.judges.base import Judge, JudgeFailed, Request, Statements, Verdict
from evalset.score.judges.runner import Judging, Result, outcome_text
from evalset.score.normalise import contains
from evalset.score.report import Report
from evalset.score.retrieval import (
    checked_set,
    corpus_not_here,
    corpus_since,
    run_snapshot,
    score_loaded,
)
from evalset.score.runfile import (
    RunFile,
    RunFileError,
    read_run,
    refuse_lines,
    refuse_nothing_to_score,
    unknown_item,
)
from evalset.sets.model import Item, hidden_judge_error, labels_shown, states_nothing
from evalset.sets.setfile import SetFile, load_set
from evalset.staleness.stale import ItemStatus

__all__ = ["AnswerOptions", "score_answers"]


def score_answers(
    ws: Workspace,
    set_path: Path,
    run_path: Path,
    judge: Judge,
    options: AnswerOptions | None = None,
    judging: Judging | None = None,
) -> tuple[Report, Judging]:
    """Score a run's answers against a set with a judge (see the module docstring). Returns
    the report and the judging (its usage: calls made, verdicts reused)."""
    as_workspace(ws, "score_answers")
    set_path = as_path(set_path, "score_answers")
    run_path = as_path(run_path, "score_answers", "the run file's path", "runs/run.jsonl")
    options = options or AnswerOptions()
    loaded = load_set(set_path)
    # the newest snapshot as `stale` and `status` choose it: the corpus as it is now
    store = workspace_store(ws)
    # the set is validated, checked for staleness and pinned aside while the run is read
    # (and, by a judge that costs nothing, judged); the set's problems are reported first
    spoils = "their key points may not be what the documents say now"
    checked = aside(
        lambda: checked_set(loaded, ws, store, set_path, options.retrieval(), spoils), keep=True
    )
    try:
        return _score(
            ws, loaded, store, run_path, judge, options, judging, checked.result, checked.then
        )
    except CannotOpen:
        raise  # nothing the set has wrong explains a file that cannot be opened
    except Exception:
        checked.result()  # raises the set's problem, when it has one
        raise
    finally:
        checked.cancel()


def _score(
    ws: Workspace,
    loaded: SetFile,
    store: SnapshotStore,
    run_path: Path,
    judge: Judge,
    options: AnswerOptions,
    judging: Judging | None,
    checks: Callable[[], tuple[dict[str, Any], list[ItemStatus]]],
    beside: Beside = here,
) -> tuple[Report, Judging]:
    snap = run_snapshot(store, options.snapshot)
    labels: tuple[list[Label], str] | None = None
    if options.labels is not None:
        labels = read_labels(options.labels, loaded)  # bad labels refused before judging
    run = read_run(run_path, options.skip_invalid, defer=True, kind="answers")
    rows, ignored = _rows(run, loaded, options.skip_invalid)
    if judging is None:
        from evalset.score.judges.cache import VerdictCache

        judging = Judging(judge, VerdictCache(ws.state_dir) if judge.cacheable else None)
    if judge.cacheable:  # a judge whose verdicts are worth keeping costs something: ask it
        checks()  # nothing for a set that cannot be scored
    _judge(rows, judging)
    retrieval = None
    if _retrieved(run, loaded):
        pin, stale = checks()
        retrieval = score_loaded(
            loaded,
            copy.copy(run),
            snap,
            ws.root,
            pin,
            stale,
            options.retrieval(),
            lambda: corpus_not_here(store),
        )
    checked = None
    if options.labels is not None:
        checked = agreement(options.labels, loaded, judging, read=labels)
    report = build_report(
        loaded, run, rows, ignored, snap.short if snap else None, checks, judging,
        retrieval, checked, labels, options, beside, prerender=True,
        corpus=corpus_since(store, options.snapshot),
    )  # fmt: skip
    # a run that retrieved on some lines only: its retrieval metrics are not scored, and the
    # report says which lines kept them out (a gate would otherwise lose them unnoticed)
    report.data["retrieval_not_scored"] = [] if retrieval is not None else _unretrieved(run, loaded)
    return report, judging


def _rows(run: RunFile, loaded: SetFile, skip_invalid: bool) -> tuple[list[Row], Counter[str]]:
    """One row per line of an active item, and one per active item the run left out."""
    status: dict[str, str] = {item.id: item.status for item in loaded.items}
    status.update({stub.id: "sealed" for stub in loaded.sealed})
    items = {i.id: i for i in loaded.items if i.status == "active"}
    if run.lines and not any(line.answer is not None for line in run.lines):
        raise RunFileError(
            f'{run.path}: has no "answer" on any line, so it is a retrieval run; score it with '
            "`evalset score retrieval`, or give each line what the system answered."
        )
    rows: list[Row] = []
    ignored: Counter[str] = Counter()
    problems: list[tuple[int, str]] = []
    for line in run.lines:
        item = items.get(line.id)
        if item is not None:
            if line.answer is None:
                problems.append((line.line, f'item {line.id} has no "answer"; give what the '
                                 "system answered (an empty text if it said nothing)"))  # fmt: skip
            else:
                rows.append(Row(item, line.trial, line.answer, line.contexts))
        elif line.id in status:
            ignored[status[line.id]] += 1
        else:
            problems.append((line.line, unknown_item(line.id, list(status), loaded.name)))
    refuse_lines(run, problems, skip_invalid)
    if not rows:
        refuse_nothing_to_score(run, "active", loaded.name, ignored)
    answered = {row.item.id for row in rows}
    rows += [Row(item, 0, "", None, missing=True) for i, item in items.items() if i not in answered]
    rows.sort(key=lambda r: (r.item.id, r.trial))
    return rows, ignored


def _retrieved(run: RunFile, loaded: SetFile) -> bool:
    """Whether every line of an answerable active item has a retrieved list."""
    answerable = {i.id for i in loaded.items if i.status == "active" and i.answerable}
    lines = [line for line in run.lines if line.id in answerable]
    return bool(lines) and all(line.retrieved is not None for line in lines)


def _unretrieved(run: RunFile, loaded: SetFile) -> list[dict[str, Any]]:
    """The lines of answerable active items without a retrieved list, when another such line
    has one (a run that does not retrieve at all has none to list)."""
    answerable = {i.id for i in loaded.items if i.status == "active" and i.answerable}
    lines = [line for line in run.lines if line.id in answerable]
    if not any(line.retrieved is not None for line in lines):
        return []
    return [{"line": line.line, "id": line.id} for line in lines if line.retrieved is None]


def _is_injection(item: Item) -> bool:
    return item.category == INJECTION or INJECTION in item.tags


def _judge(rows: list[Row], judging: Judging) -> None:
    """Ask the judge everything the rows need, in two rounds (statements first, then
    whether the contexts support each), and record what it decided on each row."""
    splits = judging.judge.can_split()
    first: list[Request] = []
    hidden: list[Request] = []  # a holdout item's: a broken judge's output may quote them
    for row in rows:
        if states_nothing(row.answer):
            continue
        start = len(first)
        if row.item.answerable:
            first += [Request("entails", row.answer, p.text) for p in row.item.key_points]
        first += [Request("entails", row.answer, m) for m in row.item.must_not_say]
        first.append(Request("refuses", row.answer))
        if splits and row.contexts:
            first.append(Request("statements", row.answer))
        if not labels_shown(row.item.holdout):
            hidden += first[start:]
    results = judging.run(first, hidden)
    second: list[Request] = []
    hidden = []
    for row in rows:
        found = results.get(Request("statements", row.answer)) if row.contexts else None
        if isinstance(found, Statements):
            context = "\n\n".join(row.contexts or [])
            asked = [Request("entails", context, s) for s in found.items]
            second += asked
            if not labels_shown(row.item.holdout):
                hidden += asked
    if second:
        results = judging.run(second, hidden)
    for row in rows:
        row.judged = _decided(row, results, splits)


def _verdict(
    result: Result | None, errors: list[dict[str, Any]], what: str, k: int | None = None
) -> bool | None:
    if isinstance(result, Verdict):
        return result.value
    claim = what if k is None else f"{what}[{k}]"
    errors.append({"claim": claim, "error": outcome_text(result) if result is not None
                   else "not judged"})  # fmt: skip
    return None


def _decided(row: Row, results: dict[Request, Result], splits: bool) -> Judged:
    item, answer = row.item, row.answer
    judged = Judged(item.answerable, injection=_is_injection(item))
    if item.answer is not None:
        judged.exact = contains(answer, item.answer)
    empty = states_nothing(answer)
    errors = judged.errors
    # a Request is a named tuple: a plain tuple of the same fields finds it, without the
    # named tuple's constructor (tens of thousands of look-ups)
    get: Callable[[tuple[str, str, str]], Result | None] = results.get  # type: ignore[assignment]
    if item.answerable:
        judged.key_points = (
            [False] * len(item.key_points) if empty else [
                _verdict(get(("entails", answer, p.text)), errors, "key_points", k)
                for k, p in enumerate(item.key_points)
            ]
        )  # fmt: skip
    judged.must_not_say = (
        [False] * len(item.must_not_say) if empty else [
            _verdict(get(("entails", answer, m)), errors, "must_not_say", k)
            for k, m in enumerate(item.must_not_say)
        ]
    )  # fmt: skip
    judged.refused = False if empty else _verdict(get(("refuses", answer, "")), errors, "refusal")
    if splits and row.contexts and not empty:
        found = results.get(Request("statements", answer))
        if isinstance(found, Statements):
            context = "\n\n".join(row.contexts)
            judged.statements = [
                _verdict(results.get(Request("entails", context, s)), errors, "statement", k)
                for k, s in enumerate(found.items)
            ]
            judged.statements_failed = any(v is None for v in judged.statements)
        elif isinstance(found, JudgeFailed):
            errors.append({"claim": "statements", "error": outcome_text(found)})
            judged.statements_failed = True
            judged.statements = []
    if not labels_shown(item.holdout):  # a model's reply may quote the claim, a label
        for error in errors:
            error["error"] = hidden_judge_error(item.holdout)
    return judged
