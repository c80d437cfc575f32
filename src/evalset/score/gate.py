"""The gate: a run's scores per category against the last accepted run, and accepting a run.

Averages hide the category a change broke, so the gate compares each category on its own:
for every metric both reports define (or those asked for), the mean over the items of the
category in the current report against the same items in the baseline. A drop of more than
the margin in any category fails the gate, even when the overall mean rose. Each
difference comes with a paired bootstrap interval over the items.

Reports pinned to different versions of a set are compared on the items whose fingerprints
are equal in both pins. An item counts in a report when it has a value of a gated metric
there (an unanswerable item has no retrieval metric in any report, so gating retrieval
metrics says nothing of it); of the items counting in either report, those added, removed
or changed since are left out and counted, and so are unchanged items counting in one
report only (``unscored``: a sealed item is scored only with the key, faithfulness only
where the run gave contexts).
Reports on different corpus snapshots, or whose metric definitions differ, measure different
things and are refused unless ``allow_snapshot_change``; reports whose answer metrics were
decided by different judges (another name or version) are refused unless
``allow_judge_change``.

A gate that cannot vouch for the current run fails even without a regression: when it
compared no item, when the current report has no value of a gated metric for an unchanged
item the baseline has one for (a judge that failed on its claims, a run line without what
the metric needs), and when the current report lacks metrics the baseline defines (without
``metrics``: a run that stopped retrieving, say).

`evalset accept REPORT` records a report as the set's accepted run: a copy, byte for byte, at
``reports/accepted/<set>.json`` in the workspace, to commit; `evalset gate CURRENT` then
compares with it. A symlink on its way is followed only while it stays in the workspace
(``elsewhere``): neither command writes or reads one outside it, or in git's own folder.
"""

from __future__ import annotations

import math
import os
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from numpy.typing import NDArray

from evalset.config import ACCEPTED, Workspace
from evalset.corpus.revision import run_git
from evalset.errors import EvalsetError
from evalset.fsio import (
    NotAFile,
    WriteFailed,
    atomic_write,
    first_link,
    lies_in,
    not_a_file,
    read_found,
)
from evalset.score.intervals import RESAMPLES, SEED, Interval, paired_difference
from evalset.score.report import ReportError, read_report
from evalset.versions.pin import PinError, check_pin, recorded_format, set_named
from evalset.versions.reportfile import parse_report

MARGIN = 0.03
_EPSILON = 1e-12
"""Sums of the same numbers in another order differ in the last bits; no regression hides
there."""


class GateRefused(EvalsetError):
    """Two reports that cannot be compared (different sets, snapshots or definitions), or a
    margin no gate can use."""


def margin_problem(margin: float) -> str | None:
    """Why ``margin`` cannot be a gate's margin (a clause to end a sentence with), or None.
    Scores are shares from 0 to 1, so no category drops by more than 1: a margin above it
    (``3``, meant as three points) passed every regression without a word. A margin of 1
    is kept: it says as much (every drop passes) and means nothing else."""
    if not math.isfinite(margin) or margin < 0:
        return f"give a finite number of 0 or more, not {margin:g}"
    if margin > 1:
        return (
            f"give a number from 0 to 1, not {margin:.15g}: scores are shares from 0 to 1, so a "
            "margin above 1 lets every drop pass (0.03 is three points)"
        )
    return None


@dataclass(frozen=True)
class Comparison:
    """One metric of one category (or of all compared items) in both reports."""

    category: str | None
    metric: str
    baseline: float
    current: float
    difference: Interval
    regression: bool
    better: str = "higher"
    """``lower`` for a metric that counts failures: a rise is then the regression."""

    def to_json(self) -> dict[str, Any]:
        return {
            "category": self.category,
            "metric": self.metric,
            "baseline": self.baseline,
            "current": self.current,
            "difference": self.difference.value,
            "low": self.difference.low,
            "high": self.difference.high,
            "n": self.difference.n,
            "regression": self.regression,
            **({"better": self.better} if self.better != "higher" else {}),
        }


@dataclass
class GateResult:
    """Two reports compared by the gate: ``ok`` when nothing dropped beyond the margin and
    nothing kept the comparison from being made."""

    baseline: Path
    """The baseline report's file."""
    current: Path
    """The current report's file."""
    margin: float
    """The largest drop allowed in any category."""
    metrics: list[str]
    """The metrics gated on."""
    compared: int
    """The items compared: scored in both reports, unchanged between their sets."""
    left_out: dict[str, list[str]] = field(default_factory=dict)
    """``added``, ``removed``, ``changed`` and ``unscored`` item ids (``unscored``: the
    same in both versions of the set, with a value of a gated metric in one report only)."""
    comparisons: list[Comparison] = field(default_factory=list)
    """Each gated metric of each category in both reports."""
    overall: list[Comparison] = field(default_factory=list)
    """Each gated metric over every compared item (shown; the gate is per category)."""
    notes: list[str] = field(default_factory=list)
    """What a reader of the verdict should know (a changed snapshot allowed, say)."""
    missing_metrics: list[str] = field(default_factory=list)
    """Metrics the baseline defines and the current report does not (gating every metric)."""
    missing_values: dict[str, list[str]] = field(default_factory=dict)
    """Per gated metric, the unchanged items the baseline has a value of it for and the
    current report has none."""
    kinds: tuple[str, str] = ("", "")
    """The baseline's and the current report's kinds (``retrieval``, ``answers``...)."""

    @property
    def regressions(self) -> list[Comparison]:
        """The comparisons that dropped beyond the margin."""
        return [c for c in self.comparisons if c.regression]

    @property
    def problems(self) -> list[str]:
        """Why the gate cannot vouch for the current run, besides its regressions: each a
        sentence naming what is missing and what to do."""
        found = []
        if self.missing_metrics:
            kinds = ""
            if self.kinds[0] != self.kinds[1]:
                kinds = f" (kind {self.kinds[1]}; the baseline's: {self.kinds[0]})"
            found.append(
                f"the current report{kinds} has no {_listed(self.missing_metrics)}, which the "
                "baseline has, so they were not compared; score the run for them too, or gate "
                "on the metrics both have with --metric"
            )
        if self.missing_values:
            alike: dict[tuple[str, ...], list[str]] = {}
            for metric, ids in self.missing_values.items():
                alike.setdefault(tuple(ids), []).append(metric)
            where = "; ".join(
                f"{_listed(metrics, 3)} for {len(ids)} item(s) ({_listed(list(ids))})"
                for ids, metrics in alike.items()
            )
            found.append(
                f"the current report has no value where the baseline has one: {where}; its "
                "judge could not decide their claims (its judge_errors list them) or its run "
                "lines lack what the metric needs: score the run again once that is fixed, or "
                "leave the metric out with --metric"
            )
        if not self.compared:
            found.append(
                "nothing was compared: no item has a value of the gated metrics in both "
                "reports and the same fingerprint in both pins; score the run on items the "
                "baseline scored, or accept a new baseline once this run is reviewed"
            )
        return found

    @property
    def ok(self) -> bool:
        """Whether the gate passes: no regression and no problem."""
        return not self.regressions and not self.problems

    @property
    def left_out_count(self) -> int:
        """How many items ``left_out`` names."""
        return sum(len(ids) for ids in self.left_out.values())

    def to_json(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "compared_items": self.compared,
            "left_out_items": self.left_out_count,
            "regressions": [
                {
                    "category": c.category,
                    "metric": c.metric,
                    "baseline": c.baseline,
                    "current": c.current,
                }
                for c in self.regressions
            ],
            "left_out": self.left_out,
            "missing_metrics": self.missing_metrics,
            "missing_values": self.missing_values,
            "problems": self.problems,
            "margin": self.margin,
            "comparisons": [c.to_json() for c in self.comparisons],
            "overall": [c.to_json() for c in self.overall],
        }


def load_checked(ws: Workspace | None, path: Path) -> dict[str, Any]:
    """A report, checked: readable, of a report's shape, unchanged since it was written
    (its digest), and, when it names a release, with a pin `evalset check-pin` accepts."""
    return load_checked_text(ws, path)[0]


def load_checked_text(ws: Workspace | None, path: Path) -> tuple[dict[str, Any], str]:
    """``load_checked``, with the report's text as it was read (once: a stream gives its
    bytes only once)."""
    report, text = read_report(path)
    _check_release_pin(ws, path, report)
    return report, text


def load_accepted(
    ws: Workspace, current: dict[str, Any], current_path: Path
) -> tuple[Path, dict[str, Any]]:
    """The accepted run of the set the report ``current`` scores (``baseline_for``), and
    that run, checked as ``load_checked`` checks it. It is a file evalset finds by itself,
    not a path the user names: it is read only as a regular file (``read_found``), so that
    a named pipe put there after it was looked at is refused rather than waited on."""
    path = baseline_for(ws, current, current_path)
    try:
        data = read_found(path)
    except NotAFile as exc:
        raise GateRefused(exc.sentence("report", ACCEPT_FIX)) from None
    except OSError as exc:  # (removed meanwhile, or unreadable)
        raise ReportError(f"{path}: cannot be read ({exc.strerror}).") from None
    report, _ = parse_report(path, data)
    _check_release_pin(ws, path, report)
    return path, report


def _check_release_pin(ws: Workspace | None, path: Path, report: dict[str, Any]) -> None:
    version = report["evalset"].get("version")
    if not isinstance(version, str) or version.endswith("+modified"):
        return  # an unreleased or modified working copy: no tag can vouch for it
    # any other version claims a release, written as evalset writes it or not (`01.1.0`
    # names 1.1.0 a second way): check-pin says which
    if ws is None:
        raise ReportError(
            f"{path}: names release {version}, which can be checked only inside the set's "
            "workspace; run the command there."
        )
    check = check_pin(ws, path, report)  # (not read again: see ``check_pin``)
    if not check.ok:
        raise ReportError(
            f"{path}: its pin fails `evalset check-pin` ({check.problems[0]}); it was not "
            "written on that release, or was edited since."
        )


def _item_values(
    report: dict[str, Any], metrics: Sequence[str]
) -> tuple[dict[str, int], list[str | None], NDArray[np.float64]]:
    """Per item (id -> row of the matrix): category and the mean of each metric over its
    trials; NaN where the item has no value for a metric (answer metrics are defined on
    some items only)."""
    index: dict[str, int] = {}
    categories: list[str | None] = []
    sums: list[list[float]] = []
    counts: list[list[int]] = []
    for row in report["items"]:
        k = index.get(row["id"])
        found = row["metrics"]
        values = [float(found[m]) if m in found else 0.0 for m in metrics]
        known = [1 if m in found else 0 for m in metrics]
        if k is None:
            index[row["id"]] = len(sums)
            categories.append(row.get("category"))
            sums.append(values)
            counts.append(known)
        else:
            sums[k] = [a + b for a, b in zip(sums[k], values, strict=True)]
            counts[k] = [a + b for a, b in zip(counts[k], known, strict=True)]
    total = np.array(sums, dtype=np.float64).reshape(len(sums), len(metrics))
    n = np.array(counts, dtype=np.float64).reshape(len(sums), len(metrics))
    with np.errstate(invalid="ignore", divide="ignore"):
        means: NDArray[np.float64] = np.where(n > 0, total / np.maximum(n, 1), np.nan)
    return index, categories, means


def _scored(index: dict[str, int], values: NDArray[np.float64]) -> set[str]:
    """The items with a value of at least one of the metrics (the columns of ``values``)."""
    has: list[bool] = np.logical_not(np.isnan(values).all(axis=1)).tolist()
    return {ident for ident, k in index.items() if has[k]}


def _fingerprints(report: dict[str, Any]) -> dict[str, str] | None:
    found = report["evalset"].get("item_fingerprints")
    return found if isinstance(found, dict) else None


def gate(
    baseline: dict[str, Any],
    current: dict[str, Any],
    baseline_path: Path,
    current_path: Path,
    margin: float = MARGIN,
    metrics: Sequence[str] | None = None,
    allow_snapshot_change: bool = False,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    *,
    allow_judge_change: bool = False,
) -> GateResult:
    """Compare two checked reports (see the module docstring)."""
    problem = margin_problem(margin)
    if problem is not None:
        raise GateRefused(f"the margin {margin:.15g}: {problem}.")
    b_pin, c_pin = baseline["evalset"], current["evalset"]
    if b_pin.get("set") != c_pin.get("set"):
        raise GateRefused(
            f"{current_path}: scores set {c_pin.get('set')!r}, but the baseline "
            f"{baseline_path} scores set {b_pin.get('set')!r}; compare reports of one set."
        )
    b_format, c_format = recorded_format(b_pin), recorded_format(c_pin)
    if b_format != c_format:
        raise GateRefused(
            f"{current_path}: fingerprints items in format {c_format}, but the baseline "
            f"{baseline_path} in format {b_format}, so no item can be matched between them "
            "(a set with items sealed by evalset 0.1 is fingerprinted in format 1 while the "
            "key does not open them); score both runs with EVALSET_AGE_IDENTITY set or both "
            "without it, or seal those items again (`evalset seal`) and score the baseline "
            "again."
        )
    chosen = _metrics(baseline, current, baseline_path, current_path, metrics)
    notes = _differences(
        baseline, current, baseline_path, current_path, chosen, allow_snapshot_change
    )
    notes += _judges(baseline, current, baseline_path, current_path, chosen, allow_judge_change)
    b_index, _, b_values = _item_values(baseline, chosen)
    c_index, c_categories, c_values = _item_values(current, chosen)
    b_fp, c_fp = _fingerprints(baseline), _fingerprints(current)
    same_content = b_pin.get("fingerprint") == c_pin.get("fingerprint")
    # an item counts in a report when it has a value of a gated metric there: an
    # unanswerable item's row holds answer metrics only, and says nothing of retrieval
    b_scored, c_scored = _scored(b_index, b_values), _scored(c_index, c_values)
    left: dict[str, list[str]] = {"added": [], "removed": [], "changed": [], "unscored": []}
    compared: list[str] = []
    for ident in sorted(b_scored | c_scored):
        scored_in_both = ident in b_scored and ident in c_scored
        if b_fp is None or c_fp is None:
            if not same_content:
                left["changed"].append(ident)
            else:
                (compared if scored_in_both else left["unscored"]).append(ident)
        elif ident not in b_fp:
            left["added"].append(ident)
        elif ident not in c_fp:
            left["removed"].append(ident)
        elif b_fp[ident] != c_fp[ident]:
            left["changed"].append(ident)
        else:
            (compared if scored_in_both else left["unscored"]).append(ident)
    result = GateResult(baseline_path, current_path, margin, chosen, len(compared), left)
    better = [current["definitions"][m].get("better", "higher") for m in chosen]
    result.notes = notes
    result.kinds = (baseline["report"].get("kind", ""), current["report"].get("kind", ""))
    if not metrics:
        result.missing_metrics = [m for m in baseline["definitions"] if m not in chosen]
    result.missing_values = _missing_values(
        chosen, compared + left["unscored"], b_index, b_values, c_index, c_values
    )
    rows_b = np.array([b_index[i] for i in compared], dtype=np.int64)
    rows_c = np.array([c_index[i] for i in compared], dtype=np.int64)
    categories = [c_categories[c_index[i]] for i in compared]
    unnamed = next((i for i, c in zip(compared, categories, strict=True) if c is None), None)
    if unnamed is not None:  # a report ``load_checked`` did not read: it refuses a null one
        raise GateRefused(
            f"{current_path}: item {unnamed!r} has no category, so no category of the gate "
            "would compare it; give a report written by `evalset score`."
        )
    order = list(dict.fromkeys(list(current.get("categories", {})) + list(baseline["categories"])))
    others = sorted(c for c in set(categories) if c is not None and c not in order)
    for category in order + others:
        members = [k for k, c in enumerate(categories) if c == category]
        if members:
            result.comparisons += _compare(
                category, chosen, b_values[rows_b[members]], c_values[rows_c[members]],
                margin, resamples, seed, better,
            )  # fmt: skip
    if compared:
        result.overall = _compare(
            None, chosen, b_values[rows_b], c_values[rows_c], None, resamples, seed, better
        )
    return result


def _missing_values(
    metrics: Sequence[str],
    same: Sequence[str],
    b_index: dict[str, int],
    b_values: NDArray[np.float64],
    c_index: dict[str, int],
    c_values: NDArray[np.float64],
) -> dict[str, list[str]]:
    """Per metric, the items of ``same`` (unchanged between the pins) that have a value of
    it in the baseline and none in the current report's row of them. An item the current
    report has no row of is left out as before (a sealed item scored without the key)."""
    found: dict[str, list[str]] = {}
    for ident in sorted(same):
        if ident not in b_index or ident not in c_index:
            continue
        had = ~np.isnan(b_values[b_index[ident]])
        lost = had & np.isnan(c_values[c_index[ident]])
        for j in np.flatnonzero(lost).tolist():
            found.setdefault(metrics[j], []).append(ident)
    return {m: found[m] for m in metrics if m in found}


def _listed(names: Sequence[str], shown: int = 5) -> str:
    more = f", … ({len(names) - shown} more)" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def _compare(
    category: str | None,
    metrics: Sequence[str],
    base: NDArray[np.float64],
    cur: NDArray[np.float64],
    margin: float | None,
    resamples: int,
    seed: int,
    better: Sequence[str] | None = None,
) -> list[Comparison]:
    """Each metric over the items that have a value for it in both reports. Metrics that
    every item has are resampled together, as one drawing of items; a metric defined on
    fewer items (an answer metric) on its own items."""
    better = better or ["higher"] * len(metrics)
    known = ~np.isnan(base) & ~np.isnan(cur)
    full = [j for j in range(len(metrics)) if known[:, j].all()]
    differences: dict[int, Interval] = {}
    if full:
        found = paired_difference(cur[:, full], base[:, full], f"gate:{category}", resamples, seed)
        differences.update(zip(full, found, strict=True))
    out = []
    for j, metric in enumerate(metrics):
        rows = known[:, j]
        if not rows.any():
            continue  # no item has this metric in both: nothing to compare
        if j not in differences:
            (differences[j],) = paired_difference(
                cur[rows][:, [j]], base[rows][:, [j]], f"gate:{category}:{metric}", resamples,
                seed,
            )  # fmt: skip
        b, c = float(base[rows, j].mean()), float(cur[rows, j].mean())
        change = c - b if better[j] == "lower" else b - c
        drop = margin is not None and change > margin + _EPSILON
        out.append(Comparison(category, metric, b, c, differences[j], drop, better[j]))
    return out


def _metrics(
    baseline: dict[str, Any],
    current: dict[str, Any],
    baseline_path: Path,
    current_path: Path,
    wanted: Sequence[str] | None,
) -> list[str]:
    b_defs, c_defs = baseline["definitions"], current["definitions"]
    if not wanted:
        shared = [m for m in b_defs if m in c_defs]
        if not shared:
            raise GateRefused(
                f"{current_path}: shares no metric with the baseline {baseline_path}; "
                "compare reports of the same kind."
            )
        return shared
    for m in wanted:
        for path, defs in ((baseline_path, b_defs), (current_path, c_defs)):
            if m not in defs:
                raise GateRefused(
                    f"{path}: has no metric {m!r} (it has {', '.join(defs)}); name one of "
                    "those with --metric."
                )
    return list(dict.fromkeys(wanted))


def _differences(
    baseline: dict[str, Any],
    current: dict[str, Any],
    baseline_path: Path,
    current_path: Path,
    metrics: Sequence[str],
    allowed: bool,
) -> list[str]:
    """Refuse reports that measured different things, unless allowed; the notes say what
    was allowed."""
    notes = []
    b_snap, c_snap = baseline.get("snapshot"), current.get("snapshot")
    if b_snap != c_snap:
        if not allowed:
            raise GateRefused(
                f"{current_path}: was scored against corpus snapshot {c_snap}, the baseline "
                f"{baseline_path} against {b_snap}, so their scores are not comparable; score "
                "both runs on one snapshot, or compare anyway with --allow-snapshot-change."
            )
        notes.append(f"snapshot changed: {b_snap} -> {c_snap}")
    changed = [m for m in metrics if baseline["definitions"][m] != current["definitions"][m]]
    if changed:
        if not allowed:
            raise GateRefused(
                f"{current_path}: defines {changed[0]} differently from the baseline "
                f"{baseline_path} ({_what_differs(baseline, current, changed[0])}), so the "
                "scores are not comparable; score both with the same settings, or compare "
                "anyway with --allow-snapshot-change."
            )
        notes.append(f"definitions changed: {', '.join(changed)}")
    return notes


_JUDGE_FREE = frozenset({"exact"})
"""Answer metrics evalset computes itself, whatever judge the report names (``exact``: the
short answer's normalised containment)."""


def _judge_named(report: dict[str, Any]) -> tuple[str, str]:
    judge = report.get("judge")
    if not isinstance(judge, dict):
        return "None", "None"
    return str(judge.get("name")), str(judge.get("version"))


def _judges(
    baseline: dict[str, Any],
    current: dict[str, Any],
    baseline_path: Path,
    current_path: Path,
    metrics: Sequence[str],
    allowed: bool,
) -> list[str]:
    """Refuse answer metrics decided by different judges, unless allowed: another model,
    prompt or program measures otherwise, and a drop could be the judge's."""
    judged = [
        m
        for m in metrics
        if current["definitions"][m].get("family") == "answer" and m not in _JUDGE_FREE
    ]
    b_judge, c_judge = _judge_named(baseline), _judge_named(current)
    if not judged or b_judge == c_judge:
        return []
    b_shown, c_shown = (f"{name} (version {version})" for name, version in (b_judge, c_judge))
    if not allowed:
        raise GateRefused(
            f"{current_path}: was judged by {c_shown}, the baseline {baseline_path} by "
            f"{b_shown}, so their {judged[0]} is not comparable; score both runs with one "
            "judge, or compare anyway with --allow-judge-change."
        )
    return [f"judge changed: {b_shown} -> {c_shown}"]


def _what_differs(baseline: dict[str, Any], current: dict[str, Any], metric: str) -> str:
    a, b = baseline["definitions"][metric], current["definitions"][metric]
    preferred = ["granularity", "kind", "family"]  # say the setting, not the text it changes
    unsaid = {"better": "higher"}  # what a definition leaves out when it is the default
    keys = [k for k in dict.fromkeys([*preferred, *a, *b])
            if a.get(k, unsaid.get(k)) != b.get(k, unsaid.get(k))]  # fmt: skip
    key = keys[0] if keys else "definition"
    if key == "definition":
        return "its definition changed"
    return f"{key}: {a.get(key, unsaid.get(key))!r} vs {b.get(key, unsaid.get(key))!r}"


ACCEPT_ONE = "accept a run with `evalset accept REPORT.json`"
ACCEPT_FIX = f"remove it, then {ACCEPT_ONE}"
"""The fix for an accepted run that is no file (a named pipe, a folder)."""


def accepted_path(ws: Workspace, set_name: str) -> Path:
    """Where a set's accepted run is kept."""
    return ws.root / ACCEPTED / f"{set_name}.json"


@dataclass(frozen=True)
class Elsewhere:
    """An accepted run that a symlink on its way (itself, ``reports/accepted`` or
    ``reports``) takes out of the workspace, or into git's own folder."""

    link: Path
    """The first link."""
    to: str
    """Where it points, as it says (``ls -l`` shows it)."""
    lands: str
    """Where the accepted run lies, every link followed, and where that is."""

    def sentence(self, set_name: str, done: str, fix: str) -> str:
        """``done``: what the command would do there (``written to``, ``read from``)."""
        return (
            f"{self.link}: is a symlink to {self.to}, so the accepted run of {set_name} would "
            f"be {done} {self.lands}; {fix}."
        )


def elsewhere(ws: Workspace, path: Path) -> Elsewhere | None:
    """Whether the accepted run ``path`` lies, through a symlink, where no accepted run may:
    outside the workspace, where git commits nothing (it does not follow links) and which is
    not the workspace's to change (a link committed to ``~/.bashrc`` would have had it
    replaced by a report), or in git's own folder (its config, its hooks). A link that stays
    in the workspace is followed, as every file evalset writes is."""
    link = first_link(path, ws.root)
    if link is None:
        return None
    real = os.path.realpath(path)
    if not lies_in(real, ws.root):
        return Elsewhere(link, os.readlink(link), f"{real}, outside the workspace")
    git_dir = run_git(ws.root, "rev-parse", "--absolute-git-dir")
    if git_dir is not None and lies_in(real, git_dir):
        return Elsewhere(link, os.readlink(link), f"{real}, in git's own folder")
    return None


def baseline_for(ws: Workspace, current: dict[str, Any], current_path: Path) -> Path:
    """The accepted run of the set a report scores."""
    name = current["evalset"].get("set")
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9._-]+", name):
        raise ReportError(f"{current_path}: its pin names no set; give a report of a set.")
    path = accepted_path(ws, name)
    away = elsewhere(ws, path)
    if away is not None:  # not the run the workspace commits
        raise GateRefused(away.sentence(name, "read from", f"remove the link, then {ACCEPT_ONE}"))
    refused = not_a_file(path)
    if refused is not None:  # a FIFO would wait for a writer, and no one meant it
        raise GateRefused(refused.sentence("report", ACCEPT_FIX))
    folder = path.parent
    if folder.exists() and not folder.is_dir():  # `evalset accept` would be refused too
        raise GateRefused(
            f"{current_path}: set {name} has no accepted run: {folder.relative_to(ws.root)}, "
            "where accepted runs are kept, is a file, not a folder; move it away, then accept "
            "a run with `evalset accept REPORT.json`."
        )
    if not path.is_file():
        raise GateRefused(
            f"{current_path}: set {name} has no accepted run yet ({path.relative_to(ws.root)} "
            f"is missing); accept one with `evalset accept REPORT.json`, or give the baseline "
            "report as the first argument."
        )
    return path


@dataclass
class Accepted:
    set: str
    path: Path
    replaced: bool
    version: str | None
    ignored: bool = False
    """Whether git ignores the copy (a .gitignore written before accepted runs existed)."""


def accept(ws: Workspace, report_path: Path) -> Accepted:
    """Record a checked report as its set's accepted run (its bytes, unchanged: read once,
    so that a report given as a stream is copied as it was checked)."""
    report, text = load_checked_text(ws, report_path)
    name = report["evalset"]["set"]
    if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z0-9._-]+", name):
        raise ReportError(f"{report_path}: its pin names no set; give a report of a set.")
    try:  # a set of this workspace: its accepted run is kept here, for its gate
        set_named(ws, report_path, name)
    except PinError as exc:
        raise ReportError(str(exc)) from None
    target = accepted_path(ws, name)
    away = elsewhere(ws, target)
    if away is not None:
        raise WriteFailed(
            away.sentence(
                name, "written to",
                "remove the link (an accepted run is a file of the workspace, to commit), then "
                "accept the report again",
            )
        )  # fmt: skip
    refused = not_a_file(target)
    if refused is not None and not refused.dangling:
        # as a path the user names, a FIFO or a device would be written into, not replaced
        raise WriteFailed(refused.sentence("report", "remove it, then accept the report again"))
    replaced = target.is_file()
    atomic_write(target, text.encode(), parents=True)
    ignored = run_git(ws.root, "check-ignore", "-q", str(target.relative_to(ws.root))) is not None
    return Accepted(name, target, replaced, report["evalset"].get("version"), ignored)
