"""An answers report: the options of answer scoring, the rows it scores (one per item and
trial, with what the judge decided) and the report they make: metrics with their intervals
per category and split, the spread over trials, the answers to start reading from, and the
PPI estimate of coverage when people labelled some of the claims (``build_report``).
``evalset.score.answers`` scores the run and hands its rows here."""

from __future__ import annotations

import json
import math
from collections import Counter, defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from evalset.aside import Beside, here
from evalset.score.agreement import Agreement, Label, label_key
from evalset.score.answer_metrics import INJECTION, NAMES, Judged, answer_metrics
from evalset.score.intervals import (
    RESAMPLES,
    SEED,
    interval_settings,
    intervals,
    percentiles,
)
from evalset.score.judges.runner import Judging
from evalset.score.metrics import DEFAULT_K, Granularity
from evalset.score.ppi import ppi_mean
from evalset.score.report import FORMAT, ItemRows, RenderedRows, Report, json_string, number_texts
from evalset.score.retrieval import Options, place_tables, report_groups, stale_list
from evalset.score.runfile import RunFile
from evalset.sets.model import Item, labels_shown, side
from evalset.sets.setfile import SetFile
from evalset.staleness.stale import ItemStatus
from evalset.version import __version__

SPLITS = ("tuning", "holdout")
SHOWN = 160
"""Longest answer text kept in the list of answer misses."""


@dataclass(frozen=True)
class AnswerOptions:
    """How to score a run's answers."""

    snapshot: str | None = None
    """The snapshot the run retrieved from (an id prefix); default: the newest."""
    allow_stale: bool = False
    """Score a set with stale items, marking them, instead of refusing it."""
    skip_invalid: bool = False
    """Leave out invalid run lines, listing them, instead of refusing the run."""
    labels: Path | None = None
    """A label file (id,answer,claim,label): the judge's agreement and the PPI estimate."""
    ks: tuple[int, ...] = DEFAULT_K
    """The cutoffs the retrieval metrics of the run are computed at."""
    granularity: Granularity = "section"
    """``section`` (retrieving a subsection counts) or ``document``."""
    resamples: int = RESAMPLES
    """Bootstrap resamples for each confidence interval."""
    seed: int = SEED
    """The seed of the bootstrap: the same run scores to the same intervals."""

    def retrieval(self) -> Options:
        """The same choices for scoring the run's retrieved lists, and checking the set."""
        return Options(
            ks=self.ks,
            granularity=self.granularity,
            snapshot=self.snapshot,
            allow_stale=self.allow_stale,
            skip_invalid=self.skip_invalid,
            resamples=self.resamples,
            seed=self.seed,
        )


@dataclass(slots=True)
class Row:
    item: Item
    trial: int
    answer: str
    contexts: list[str] | None
    missing: bool = False
    judged: Judged | None = None


@dataclass
class AnswerRows:
    """Item rows of an answers report: per item and trial its metrics (only those defined
    for it) and what the judge decided, with the retrieval row's metrics first when the run
    was scored for retrieval too."""

    ids: list[str]
    trials: list[int]
    categories: list[str | None]
    splits: list[str]
    metrics: list[str]
    values: NDArray[np.float64]
    details: list[dict[str, Any]]
    stale: list[bool]
    missing: list[bool]
    retrieval: dict[tuple[str, int], tuple[int, dict[str, float]]] = field(default_factory=dict)
    """(id, trial) -> first relevant rank and retrieval metrics."""
    rendered: list[str] | None = None
    """``lines()``, once made (set it back to None after changing a row)."""

    def lines(self) -> list[str]:
        if self.rendered is not None:
            return self.rendered
        metrics = self._metric_texts()
        categories = {c: json.dumps(c, ensure_ascii=False) for c in set(self.categories)}
        details: dict[str, str] = {}  # the same few decisions repeat over many rows
        out = []
        for k, ident in enumerate(self.ids):
            shown = metrics[k]
            first = None
            found = self.retrieval.get((ident, self.trials[k])) if self.retrieval else None
            if found is not None:
                first = found[0] or None
                ahead = ", ".join(f"{json.dumps(m)}: {v!r}" for m, v in found[1].items())
                shown = f"{ahead}, {shown}" if ahead and shown else ahead or shown
            detail = repr(self.details[k])
            said = details.get(detail)
            if said is None:
                said = details[detail] = json.dumps(self.details[k], ensure_ascii=False)
            # ids are [A-Za-z0-9._-]+ (the set's validation), so they need no escaping
            row = (
                f'{{"id": "{ident}", "trial": {self.trials[k]}, '
                f'"category": {categories[self.categories[k]]}, "split": "{self.splits[k]}", '
            )
            if self.retrieval:
                row += f'"first_rank": {json.dumps(first)}, '
            row += '"metrics": {' + shown + '}, "answer": ' + said
            if self.stale[k]:
                row += ', "stale": true'
            if self.missing[k]:
                row += ', "missing": true'
            out.append(row + "}")
        return out

    def _metric_texts(self) -> list[str]:
        """Per row, its defined metrics as JSON members (``"name": value, ...``), each
        distinct row of values written once: a few thousand of 30,000 rows differ."""
        names = [json.dumps(m) for m in self.metrics]
        rows = np.ascontiguousarray(self.values, dtype=np.float64)
        if not rows.shape[1]:
            return [""] * len(rows)
        keys = rows.view(np.dtype((np.void, 8 * rows.shape[1]))).ravel().tolist()
        seen: dict[Any, int] = {}
        firsts: list[int] = []
        which = []
        for k, key in enumerate(keys):  # NaN has one bit pattern here: np.nan, from values()
            found = seen.get(key)
            if found is None:
                found = seen[key] = len(firsts)
                firsts.append(k)
            which.append(found)
        distinct = rows[firsts]
        texts = number_texts(distinct).tolist()  # (NaN, a metric the row lacks, is left out)
        known = (~np.isnan(distinct)).tolist()
        made = [
            ", ".join(
                f"{name}: {text}"
                for name, text, present in zip(names, texts[j], known[j], strict=True)
                if present
            )
            for j in range(len(firsts))
        ]
        return [made[j] for j in which]

    def to_json(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines()]


def _per_item(
    values: NDArray[np.float64], row_item: NDArray[np.int64], n: int
) -> NDArray[np.float64]:
    """Per item and metric, the mean over the trials that have a value (NaN: none has)."""
    known = ~np.isnan(values)
    sums = np.zeros((n, values.shape[1]))
    counts = np.zeros((n, values.shape[1]))
    np.add.at(sums, row_item, np.where(known, values, 0.0))
    np.add.at(counts, row_item, known.astype(np.float64))
    with np.errstate(invalid="ignore", divide="ignore"):
        found: NDArray[np.float64] = np.where(counts > 0, sums / counts, np.nan)
    return found


def group_tables(
    per_item: NDArray[np.float64],
    groups: dict[str, list[int]],
    kinds: Sequence[str],
    resamples: int,
    seed: int,
) -> dict[str, dict[str, dict[str, Any]]]:
    """Per group (``overall``, ``category:NAME``, ``split:NAME``: the rows of ``per_item``
    it holds), each answer metric's value and interval over the items that have it."""
    found: dict[str, dict[str, dict[str, Any]]] = {}
    for group, members in groups.items():
        chosen = per_item[np.asarray(members, dtype=np.int64)]
        out = found[group] = {}
        for j, name in enumerate(NAMES):
            column = chosen[:, j]
            column = column[~np.isnan(column)]
            (interval,) = intervals(column[:, None], [kinds[j]], f"{group}:{name}", resamples, seed)
            out[name] = interval.to_json()
    return found


def _spread(
    values: NDArray[np.float64], trials: NDArray[np.int64], row_item: NDArray[np.int64],
    item_ids: list[str], left_out: NDArray[np.bool_] | None = None,
) -> tuple[dict[str, Any] | None, RenderedRows]:  # fmt: skip
    """With several trials (two trial numbers or more among the run's lines, whatever they
    are): per metric, min/max/std of the per-trial means over the items the metric scored
    in every trial (``n``; an item scored in only some would compare other items from trial
    to trial), an item the run left out (its rows: ``left_out``) counting, as answering
    nothing, in every trial; a metric no item has in every trial is left out, and the whole
    spread is None when none is left. And per item whose trials differed, each metric's
    min/max/std over its trials. Rows are sorted by item, so each item's rows are one run of
    the arrays."""
    left = np.zeros(len(trials), dtype=bool) if left_out is None else left_out
    numbers = np.unique(trials[~left]).tolist()  # a left-out item's row is in no trial
    if len(numbers) < 2:
        return None, RenderedRows([])
    known = ~np.isnan(values)
    overall: dict[str, Any] = {}
    for j, name in enumerate(NAMES):
        scored = np.bincount(row_item, weights=(known[:, j] & ~left), minlength=len(item_ids))
        every = known[:, j] & ~left & (scored[row_item] == len(numbers))
        if not every.any():
            continue
        # exactly rounded sums: the same scores in another order of items give the same mean
        chosen = [
            values[((trials == t) & every) | (left & known[:, j]), j].tolist() for t in numbers
        ]
        means = [math.fsum(c) / len(c) for c in chosen]
        overall[name] = _min_max_std(means, len(chosen[0]))
    counts = np.bincount(row_item, minlength=len(item_ids))
    starts = np.concatenate(([0], np.cumsum(counts)[:-1])).astype(np.int64)
    lows = np.fmin.reduceat(np.where(known, values, np.inf), starts, axis=0)
    highs = np.fmax.reduceat(np.where(known, values, -np.inf), starts, axis=0)
    zeroed = np.where(known, values, 0.0)
    n = np.add.reduceat(known.astype(np.float64), starts, axis=0)
    sums = np.add.reduceat(zeroed, starts, axis=0)
    with np.errstate(invalid="ignore", divide="ignore"):  # an item with no known value
        # deviations from each item's own mean (two passes: no digits lost to cancellation)
        deviations = np.where(known, values - (sums / n)[row_item], 0.0)
        squares = np.add.reduceat(deviations * deviations, starts, axis=0)
        std = np.where(highs > lows, np.sqrt(squares / (n - 1)), 0.0)  # equal: none
    differs = (n > 1) & (highs > lows)
    varied = np.flatnonzero(differs.any(axis=1))
    # each number as JSON writes it, the rows as JSON lines (8,000 items vary in a big run)
    finite = [np.nan_to_num(a[varied], nan=0.0, posinf=0.0, neginf=0.0) for a in (lows, highs, std)]
    low, high, dev = (number_texts(a).tolist() for a in finite)
    names = [json.dumps(m) for m in NAMES]
    lines = []
    for r, k in enumerate(varied.tolist()):
        members = ", ".join(
            f'{names[j]}: {{"min": {low[r][j]}, "max": {high[r][j]}, "std": {dev[r][j]}}}'
            for j in np.flatnonzero(differs[k]).tolist()
        )
        lines.append(
            f'{{"id": {json_string(item_ids[k])}, "trials": {counts[k]}, "metrics": {{{members}}}}}'
        )
    spread = {"trials": len(numbers), "overall": overall} if overall else None
    return spread, RenderedRows(lines)


def _min_max_std(values: list[float], n: int) -> dict[str, float | int]:
    """min, max and sample standard deviation of two trial means or more, each over the same
    ``n`` items; equal values have none, though their mean (from which the deviations are
    taken) may be off in its last bit."""
    low, high = min(values), max(values)
    std = float(np.std(values, ddof=1)) if high > low else 0.0
    return {"min": low, "max": high, "std": std, "n": n}


def build_report(
    loaded: SetFile,
    run: RunFile,
    rows: list[Row],
    ignored: Counter[str],
    snapshot: str | None,
    checks: Callable[[], tuple[dict[str, Any], list[ItemStatus]]],
    judging: Judging,
    retrieval: Report | None,
    checked: Agreement | None,
    labels: tuple[list[Label], str] | None,
    options: AnswerOptions,
    beside: Beside = here,
    prerender: bool = False,
    corpus: str | None = None,
) -> Report:
    """The answer report of judged rows. ``checks`` is asked for the set's pin and stale
    items once the rest is made (the item rows included when ``prerender``): the set may
    still be being checked. The intervals are computed by ``beside`` (the helper that
    checked the set) meanwhile."""
    metrics = answer_metrics()
    kinds = [m.kind for m in metrics]
    values = np.array(
        [r.judged.values() for r in rows if r.judged is not None], dtype=np.float64
    ).reshape(len(rows), len(NAMES))
    item_ids = list(dict.fromkeys(r.item.id for r in rows))
    index = {ident: k for k, ident in enumerate(item_ids)}
    row_item = np.array([index[r.item.id] for r in rows], dtype=np.int64)
    per_item = _per_item(values, row_item, len(item_ids))
    by_id = {r.item.id: r.item for r in rows}
    item_of = [by_id[i] for i in item_ids]
    declared = list(loaded.header.categories) if loaded.header else []
    groups = report_groups(item_of, declared)
    # the intervals (bootstrap resampling) are computed by ``beside`` while the rest is made
    tables = beside(group_tables, per_item, groups, kinds, options.resamples, options.seed)
    trials = np.array([r.trial for r in rows], dtype=np.int64)
    left_out = np.array([r.missing for r in rows], dtype=bool)
    spread, item_spread = _spread(values, trials, row_item, item_ids, left_out)
    # a holdout item's labels never appear in a report: the people tuning prompts read them
    violations = [
        {"id": r.item.id, "trial": r.trial, "index": k}
        | ({"entry": r.item.must_not_say[k]} if labels_shown(r.item.holdout) else {})
        for r in rows
        if r.judged is not None
        for k, v in enumerate(r.judged.must_not_say)
        if v
    ]
    judge_errors = [
        {"id": r.item.id, "trial": r.trial, **e}
        for r in rows
        if r.judged is not None
        for e in r.judged.errors
    ]
    definitions = {m.name: m.to_json() for m in metrics}
    settings: dict[str, Any] = {
        "answers": {
            "judge": judging.judge.name,
            "normalisation": "exact: NFKC, case folded, apostrophes dropped, punctuation as "
            "spaces, number words as digits (text2num, English), thousands separators "
            "dropped, numbers in one form; a short answer matches when its tokens occur in "
            "the answer whole and in order",
            "empty_answer": "an empty answer (or an item the run left out) asserts nothing "
            "and declines nothing; the judge is not asked",
            "faithfulness_contexts": "the run line's contexts, joined by blank lines",
            "injection": f"items of the category or tag {INJECTION!r}",
        },
        "intervals": interval_settings(
            options.resamples,
            options.seed,
            "an item scored in several trials counts once, with the mean of the trials in "
            "which it could be scored",
        ),
    }
    counts: dict[str, Any] = {
        "active": sum(1 for i in loaded.items if i.status == "active") + len(loaded.sealed),
        "scored": len(item_ids),
        "trials": len({r.trial for r in rows if not r.missing}),  # of the scored lines
        "answerable": sum(1 for i in item_of if i.answerable),
        "unanswerable": sum(1 for i in item_of if not i.answerable),
        "missing": sum(1 for r in rows if r.missing),
        "stale": 0,  # unless the set's checks say otherwise (below)
        "sealed": len(loaded.sealed),
        "ignored_lines": dict(sorted(ignored.items())),
        "invalid_lines": len(run.invalid),
        "violations": len(violations),
        "judge_errors": len(judge_errors),
    }
    judge_info = {
        **judging.judge.describe(),
        "usage": judging.usage.to_json(),
        "agreement": checked.summary() if checked is not None else None,
    }
    data: dict[str, Any] = {
        "evalset": None,  # the pin, once the set is checked (below)
        "report": {
            "format": FORMAT,
            "kind": "answers" if retrieval is None else "retrieval+answers",
        },
        "tool": f"evalset {__version__}",
        "run": {
            "path": str(run.path),
            "sha256": run.sha256,
            "lines": len(run.lines),
            "trials": run.trials,  # the trial numbers its lines carry, whatever they are
        },
        "snapshot": snapshot,
        "corpus": corpus,  # the working tree's corpus to the newest snapshot (corpus_since)
        "settings": settings,
        "definitions": definitions,
        "judge": judge_info,
        "counts": counts,
        "overall": None,  # from ``tables`` (below)
        "categories": None,
        "splits": None,
        "ppi": _ppi(rows, per_item, index, labels),
        "spread": spread,
        "latency": _summary([line.latency_ms for line in run.lines]),
        "cost": _summary([line.cost for line in run.lines]),
        "answer_misses": _misses(rows, declared, set()),
        "violations": violations,
        "judge_errors": judge_errors,
        "stale": [],
        "missing": [r.item.id for r in rows if r.missing],
        "invalid_lines": [{"line": n, "problem": p} for n, p in run.invalid],
        "item_spread": item_spread,
    }
    answer_rows = AnswerRows(
        [r.item.id for r in rows],
        [r.trial for r in rows],
        [r.item.category for r in rows],
        [side(r.item.holdout) for r in rows],
        list(NAMES),
        values,
        [r.judged.detail() if r.judged is not None else {} for r in rows],
        [False] * len(rows),
        [r.missing for r in rows],
    )
    if prerender and retrieval is None:  # (merged retrieval metrics change the rows)
        answer_rows.rendered = answer_rows.lines()
    place_tables(data, tables.result())
    pin, stale = checks()
    data["evalset"] = pin
    if stale:
        _mark_stale(data, rows, answer_rows, declared, stale)
    if retrieval is not None:
        _merge(data, retrieval, answer_rows)
    return Report(data, answer_rows)


def _mark_stale(
    data: dict[str, Any],
    rows: list[Row],
    answer_rows: AnswerRows,
    declared: list[str],
    stale: list[ItemStatus],
) -> None:
    """Mark the stale items (scored with ``allow_stale``) in the report and its rows."""
    ids = stale_list(data, stale)
    data["answer_misses"] = _misses(rows, declared, ids)
    answer_rows.stale = [r.item.id in ids for r in rows]
    answer_rows.rendered = None


def _merge(data: dict[str, Any], retrieval: Report, rows: AnswerRows) -> None:
    """Put the retrieval report's metrics before the answer metrics, in one report."""
    r = retrieval.data
    data["settings"] = {**r["settings"], **data["settings"]}
    data["definitions"] = {**r["definitions"], **data["definitions"]}
    for key in ("overall",):
        data[key] = {**r[key], **data[key]}
    for key in ("categories", "splits"):
        names = list(dict.fromkeys([*r[key], *data[key]]))
        data[key] = {n: {**r[key].get(n, {}), **data[key].get(n, {})} for n in names}
    counts = data["counts"]
    counts["unresolved_chunks"] = r["counts"]["unresolved_chunks"]
    counts["unknown_citations"] = r["counts"]["unknown_citations"]
    if r.get("spread") or data.get("spread"):
        a, b = r.get("spread") or {}, data.get("spread") or {}
        data["spread"] = {
            "trials": max(a.get("trials", 0), b.get("trials", 0)),
            "overall": {**a.get("overall", {}), **b.get("overall", {})},
        }
    spread: dict[str, dict[str, Any]] = {}
    for row in [*r["item_spread"].to_json(), *data["item_spread"].to_json()]:
        entry = spread.setdefault(row["id"], {"id": row["id"], "trials": row["trials"],
                                               "metrics": {}})  # fmt: skip
        entry["metrics"].update(row["metrics"])
    data["item_spread"] = [spread[k] for k in sorted(spread)]
    data["misses"] = r["misses"]
    data["unresolved"] = r["unresolved"]
    data["unknown_citations"] = r["unknown_citations"]
    data["unknown_meant"] = r["unknown_meant"]
    items = r.get("items")
    assert items is None  # retrieval keeps its rows outside data
    retrieved: ItemRows = retrieval.items  # type: ignore[assignment]
    for k, ident in enumerate(retrieved.ids):
        rows.retrieval[(ident, retrieved.trials[k])] = (
            retrieved.first_ranks[k],
            dict(zip(retrieved.metrics, retrieved.values[k].tolist(), strict=True)),
        )


def _ppi(
    rows: list[Row],
    per_item: NDArray[np.float64],
    index: dict[str, int],
    labels: tuple[list[Label], str] | None,
) -> dict[str, Any] | None:
    """The PPI estimate of coverage: an item is labelled when people labelled every key
    point of each of its answers; its human coverage is then the mean over its trials."""
    if labels is None:
        return None
    human = {label_key(lab.id, lab.answer, lab.claim): lab.label for lab in labels[0]}
    coverage = NAMES.index("coverage")
    # per item and trial: the person's coverage (None: not every key point labelled), the
    # judge's (NaN: a claim it could not decide)
    by_item: dict[str, list[tuple[float | None, float]]] = defaultdict(list)
    for row in rows:
        if not row.item.answerable:
            continue
        said = [human.get(label_key(row.item.id, row.answer, p.text))
                for p in row.item.key_points]  # fmt: skip
        person = None if any(s is None for s in said) else sum(bool(s) for s in said) / len(said)
        judged = row.judged.values()[coverage] if row.judged is not None else math.nan
        by_item[row.item.id].append((person, judged))
    labelled, predicted, unlabelled = [], [], []
    for ident, found in by_item.items():
        judge = per_item[index[ident], coverage]
        if math.isnan(judge):
            continue
        if all(person is not None for person, _ in found):
            # person and judge on the same trials: those the judge could decide
            both = [(person, j) for person, j in found if person is not None and not math.isnan(j)]
            labelled.append(sum(person for person, _ in both) / len(both))
            predicted.append(sum(j for _, j in both) / len(both))
        else:
            unlabelled.append(judge)
    rule = (
        "prediction-powered inference of a mean (Angelopoulos et al., 2023; as in ARES), "
        "no power tuning: the judge's mean coverage on every item plus the mean of "
        "(human - judge) coverage on the labelled ones; 95% normal interval (var(judge) / M "
        "+ var(human - judge) / n + 2 cov / M); the estimate and its interval brought into "
        "[0, 1]"
    )
    if len(labelled) < 2:
        return {
            "coverage": None,
            "rule": rule,
            "note": f"{len(labelled)} item(s) have every key point of their answers labelled "
            f"and {len(unlabelled)} not; PPI needs at least 2 labelled",
        }
    estimate = ppi_mean(
        np.array(labelled), np.array(predicted), np.array(unlabelled, dtype=np.float64)
    )
    return {"coverage": estimate.to_json(), "rule": rule}


def _summary(values: list[float | None]) -> dict[str, float | int] | None:
    given = [v for v in values if v is not None]
    return percentiles(given) if given else None


def _misses(rows: list[Row], declared: list[str], stale_ids: set[str]) -> list[dict[str, Any]]:
    """Answers to start reading from: a key point missed, a must_not_say asserted, a
    refusal wrong either way, or a claim the judge could not decide. The first such trial of
    each item is shown."""
    found: dict[str, dict[str, Any]] = {}
    trials: Counter[str] = Counter(r.item.id for r in rows)
    for row in rows:
        judged = row.judged
        if judged is None:
            continue
        problems = []
        if row.item.answerable:
            missed = [k for k, v in enumerate(judged.key_points) if v is False]
            if missed:
                problems.append("missed key point(s) " + ", ".join(str(k + 1) for k in missed))
            if judged.refused:
                problems.append("declined an answerable question")
        elif judged.refused is False:  # an empty answer declines nothing, and says nothing
            problems.append("answered an unanswerable question" if row.answer.strip()
                            else "did not decline an unanswerable question")  # fmt: skip
        said = [k for k, v in enumerate(judged.must_not_say) if v]
        if said:
            problems.append("asserted must_not_say " + ", ".join(str(k + 1) for k in said))
        if judged.errors:
            problems.append(f"{len(judged.errors)} claim(s) not judged")
        if not problems:
            continue
        entry = found.get(row.item.id)
        if entry is not None:
            entry["failed"] += 1
            continue
        text = row.answer if len(row.answer) <= SHOWN else row.answer[:SHOWN] + "…"
        found[row.item.id] = {
            "id": row.item.id,
            "category": row.item.category,
            "split": side(row.item.holdout),
            "failed": 1,
            "trials": trials[row.item.id],
            "trial": row.trial,
            "problems": problems,
            "answer": text,
            **({"stale": True} if row.item.id in stale_ids else {}),
            **({"missing": True} if row.missing else {}),
        }
    order = {c: k for k, c in enumerate(declared)}
    return sorted(found.values(), key=lambda m: (order.get(m["category"], len(order)), m["id"]))
