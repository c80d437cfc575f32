"""The report: one JSON file that carries the set's pin, what the run scored, and how.

Top-level keys, in order:

- ``evalset``: the set's full pin, as `evalset pin` prints it, so `evalset check-pin` accepts
  the report;
- ``report``: its format version and kind (``retrieval``), ``tool``: evalset's version,
  ``run``: the run file's path, sha256, lines and trials, ``snapshot``: the corpus snapshot
  the run was scored against;
- ``settings``: cutoffs, granularity, the matching rule, interval settings;
- ``definitions``: per metric, its family, kind (``rate`` or ``mean``), definition and
  granularity;
- ``overall``, ``categories`` (per category) and ``splits`` (``tuning``, ``holdout``, and
  ``unassigned`` when some items have no split yet): per metric ``{"value", "low", "high",
  "n"}``, n counting items;
- ``counts``, ``spread`` (several trials: per metric the min, max and standard deviation of
  the per-trial means), ``latency`` and ``cost`` (p50, p95,
  total, n), ``misses``, ``stale``, ``missing``, ``unresolved``, ``invalid_lines``,
  ``item_spread`` (per item whose trials differed, each metric's min/max/std);
- ``items``: per item and trial, its category, split, first relevant rank and metrics;
- ``digest``: ``sha256:`` over the report's bytes before it (line endings as ``\\n``), so
  that an edit after `evalset score` wrote it is noticed by `evalset gate`, `evalset accept`
  and `evalset check-pin` (``evalset.versions.reportfile`` reads and checks reports).

Other metric families (answers: coverage, violation rate, exact match, refusal,
faithfulness) add their metrics to ``definitions``, to the same ``overall``, ``categories``
and ``splits`` tables and to each item's ``metrics``; the gate compares whatever metrics two
reports both define.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import numpy as np
from numpy.typing import NDArray

from evalset.bulk import bulk
from evalset.fsio import atomic_write
from evalset.versions.reportfile import DIGEST_MARK as DIGEST_MARK
from evalset.versions.reportfile import FORMAT as FORMAT
from evalset.versions.reportfile import ReportError as ReportError
from evalset.versions.reportfile import digest_of as digest_of
from evalset.versions.reportfile import read_report as read_report

json_string = json.encoder.encode_basestring
"""A string as JSON writes it with ``ensure_ascii=False`` (``json.dumps`` of a str)."""
_ENCODE = json.JSONEncoder(ensure_ascii=False).encode
"""``json.dumps(value, ensure_ascii=False)``, without building an encoder per value."""
LISTS = ("misses", "stale", "missing", "unresolved", "unknown_citations", "invalid_lines",
         "item_spread", "items")  # fmt: skip
ANSWER_LISTS = ("answer_misses", "violations", "judge_errors", "retrieval_not_scored")
"""Lists of answer reports, also written one element per line."""
"""Keys whose lists are written one element per line."""


def number_texts(values: NDArray[np.float64]) -> NDArray[np.object_]:
    """Each value as JSON writes it (Python's shortest repr; ``NaN``, ``Infinity``),
    formatting every distinct value once: scores repeat a few values (0, 1, 1/2, 1/3...) over
    many rows. Distinct values are found column by column (the first axis runs over rows): a
    metric's column repeats far fewer values than the whole table, and sorting columns is
    cheaper than sorting it. Values are told apart by their bits, not by ``==``, which takes
    -0.0 for 0.0 (and JSON writes them differently)."""
    rows = values.shape[0] if values.ndim else 1
    columns = np.ascontiguousarray(values, dtype=np.float64).reshape(
        rows, values.size // rows if rows else 0
    )
    bits = columns.view(np.int64)
    found = np.empty(columns.shape, dtype=object)
    for j in range(columns.shape[1]):
        distinct, where = np.unique(bits[:, j], return_inverse=True)
        floats = distinct.view(np.float64)
        if np.isfinite(floats).all():  # as json.dumps writes a finite number: its repr
            written = list(map(float.__repr__, floats.tolist()))
        else:  # NaN, Infinity, -Infinity
            written = list(map(_ENCODE, floats.tolist()))
        found[:, j] = np.array(written, dtype=object)[where]
    texts: NDArray[np.object_] = found.reshape(values.shape)
    return texts


def row_texts(values: NDArray[np.float64], template: str) -> list[str]:
    """Each row of ``values`` formatted by ``template``, a %-format with one ``%s`` per
    column, each number written as JSON writes it (``number_texts``). Each distinct row is
    formatted once: 30,000 rows of scores hold a few thousand distinct ones."""
    n, width = values.shape
    if not width:
        return [template] * n
    rows = np.ascontiguousarray(values, dtype=np.float64)
    keys = rows.view(np.dtype((np.void, 8 * width))).ravel().tolist()  # each row's bytes
    seen: dict[Any, int] = {}
    firsts: list[int] = []
    which = []
    for k, key in enumerate(keys):
        found = seen.get(key)
        if found is None:
            found = seen[key] = len(firsts)
            firsts.append(k)
        which.append(found)
    texts = [template % tuple(row) for row in number_texts(rows[firsts]).tolist()]
    return [texts[k] for k in which]


@dataclass
class ItemRows:
    """Per item and trial: id, trial, category, split, first relevant rank, metric values
    (one column per metric), and which rows are of stale or missing items."""

    ids: list[str]
    trials: list[int]
    categories: list[str | None]
    splits: list[str]
    first_ranks: list[int]
    """0 when no entry was credited."""
    metrics: list[str]
    values: NDArray[np.float64]
    stale: list[bool] = field(default_factory=list)
    missing: list[bool] = field(default_factory=list)
    rendered: list[str] | None = None
    """``lines()``, once made (set it back to None after changing a row)."""

    def lines(self) -> list[str]:
        """Each row as one line of JSON."""
        if self.rendered is not None:
            return self.rendered
        metrics = "{" + ", ".join(f"{json.dumps(m)}: %s" for m in self.metrics) + "}"
        template = '{"id": %s, "trial": %d, "category": %s, "split": "%s", "first_rank": %s, '
        template += '"metrics": %s%s}'
        n = len(self.ids)
        flags = [
            (', "stale": true' if s else "") + (', "missing": true' if m else "")
            for s, m in zip(self.stale or [False] * n, self.missing or [False] * n, strict=True)
        ]
        quote = json_string
        names = {c: json.dumps(c, ensure_ascii=False) for c in set(self.categories)}
        return [
            template % (quote(ident), trial, names[category], split, first or "null", row, flag)
            for ident, trial, category, split, first, row, flag in zip(
                self.ids,
                self.trials,
                self.categories,
                self.splits,
                self.first_ranks,
                row_texts(self.values, metrics),
                flags,
                strict=True,
            )
        ]

    def to_json(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.lines()]


@dataclass
class RenderedRows:
    """A list of the report already written as JSON lines (large lists are formatted with
    array operations rather than element by element)."""

    lines: list[str]

    def to_json(self) -> list[Any]:
        return [json.loads(line) for line in self.lines]


class Rows(Protocol):
    """Item rows as a report writes them: retrieval's ``ItemRows``, or answer scoring's rows
    (``evalset.score.answers``), whose items need not all have every metric."""

    def lines(self) -> list[str]: ...

    def to_json(self) -> list[dict[str, Any]]: ...


@dataclass
class Report:
    """A report: its JSON fields in order, with the item rows kept as arrays until it is
    written (a 10,000-item run with three trials has 30,000 rows)."""

    data: dict[str, Any]
    """Every top-level key of the report but ``items``, in order (see the module
    docstring): ``data["categories"]["multi-hop"]["recall@5"]`` is a value and its interval."""
    items: Rows
    """The per-item rows."""

    def to_json(self) -> dict[str, Any]:
        """The report as one JSON value, its item rows included."""
        data = {k: v.to_json() if isinstance(v, RenderedRows) else v for k, v in self.data.items()}
        return {**data, "items": self.items.to_json()}

    def render(self) -> str:
        """The report as written: indented JSON, one list element per line, then the
        digest."""
        with bulk():  # 30,000 rows of a 10,000-item run with three trials, in no cycle
            return self._render()

    def _render(self) -> str:
        parts = []
        for key, value in {**self.data, "items": None}.items():
            if key == "items":
                rendered = _lines(self.items.lines())
            elif key in LISTS or key in ANSWER_LISTS:
                rows = value if isinstance(value, RenderedRows) else value or []
                rendered = _lines(
                    rows.lines if isinstance(rows, RenderedRows)
                    else list(map(_ENCODE, rows))
                )  # fmt: skip
            else:
                rendered = json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n  ")
            parts.append(f"  {json.dumps(key)}: {rendered}")
        body = "{\n" + ",\n".join(parts)
        return f'{body}{DIGEST_MARK}{digest_of(body)}"\n}}\n'


def _lines(rows: Sequence[str]) -> str:
    if not rows:
        return "[]"
    return "[\n    " + ",\n    ".join(rows) + "\n  ]"


def write_report(path: Path, text: str) -> None:
    """Write a rendered report atomically, making its folder if needed."""
    atomic_write(path, text, parents=True)
