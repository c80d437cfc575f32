"""Retrieval metrics: their definitions (printed in every report) and their computation over
many ranked lists at once.

A retrieved list is scored through its *relevant ranks*: the positions (from 1) of the
entries that were credited with an expected source (see ``evalset.score.matching``). With
those and the number of expected sources, every metric is a few array operations over all
lists together. The formulas are trec_eval's, so a run whose entries are plain citations
scores exactly as trec_eval scores the same ranking (binary relevance): precision divides
by K even when fewer entries were retrieved, and nDCG divides each gain by log2(rank + 1)
(trec_eval 9's ``ndcg_cut``).

Metric families share one shape: a ``Metric`` says its name, family, kind and definition;
a *rate* is a share of items (0 or 1 each, Wilson interval), a *mean* an average of values
between 0 and 1 (bootstrap interval). Answer metrics (coverage, violation rate, exact
match, refusal, faithfulness) fit the same shape.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import NDArray

Granularity = Literal["section", "document"]
GRANULARITIES: tuple[Granularity, ...] = ("section", "document")
DEFAULT_K = (1, 3, 5, 10)
Kind = Literal["rate", "mean"]


@dataclass(frozen=True)
class Metric:
    """One metric as a report defines it."""

    name: str
    family: str
    """``retrieval`` here; other families (``answer``) use the same report structure."""
    kind: Kind
    """``rate``: each item scores 0 or 1 (per trial), Wilson interval; ``mean``: each item
    scores between 0 and 1, bootstrap interval."""
    definition: str
    granularity: Granularity | None = None
    better: Literal["higher", "lower"] = "higher"
    """Which way is better: the gate counts a move the other way beyond the margin as a
    regression (``lower`` for rates of failures, such as the answers' violation rate)."""

    def to_json(self) -> dict[str, str]:
        data = {"family": self.family, "kind": self.kind, "definition": self.definition}
        if self.granularity is not None:
            data["granularity"] = self.granularity
        if self.better != "higher":
            data["better"] = self.better
        return data


def matching_rule(granularity: Granularity) -> str:
    """How retrieved entries are matched with expected sources, in words (the report's
    settings carry it, and the README)."""
    if granularity == "document":
        return (
            "An entry matches an expected source when it names the same document. Entries are "
            "taken in rank order, and each is credited with one expected document that no "
            "earlier entry was credited with; an entry credited with nothing is not relevant "
            "(a repeat adds nothing)."
        )
    return (
        "An entry matches an expected source when it is that section or one of its "
        "subsections (a section includes its subsections; an expected whole document is "
        "matched by any part of it). Entries are taken in rank order, and each is credited "
        "with one expected source that no earlier entry was credited with (the most specific "
        "one); an entry credited with nothing is not relevant (a repeat adds nothing)."
    )


def retrieval_metrics(
    ks: Sequence[int] = DEFAULT_K, granularity: Granularity = "section"
) -> list[Metric]:
    """The retrieval metrics of a report, in the order reports list them."""
    unit = "section" if granularity == "section" else "document"
    src = f"expected {unit}s"
    found = f"entries that were credited with an expected {unit}"

    def metric(name: str, kind: Kind, text: str) -> Metric:
        return Metric(name, "retrieval", kind, text, granularity)

    out = [
        metric(
            f"hit@{k}",
            "rate",
            f"1 when one of the first {k} retrieved entries was credited with an expected "
            f"{unit}, else 0: the share of items with a hit.",
        )
        for k in ks
    ]
    out.append(
        metric(
            "mrr",
            "mean",
            f"1 / rank of the first retrieved entry credited with an expected {unit} (0 when "
            "none is), over the whole list: the mean reciprocal rank.",
        )
    )
    out += [
        metric(
            f"recall@{k}",
            "mean",
            f"{src} credited to the first {k} entries / {src} of the item.",
        )
        for k in ks
    ]
    out += [
        metric(
            f"precision@{k}",
            "mean",
            f"the number of {found} among the first {k}, divided by {k} (even when fewer "
            f"than {k} were retrieved).",
        )
        for k in ks
    ]
    out += [
        metric(
            f"ndcg@{k}",
            "mean",
            f"DCG@{k} / ideal DCG@{k} with binary gain: each of the first {k} entries "
            f"credited with an expected {unit} gains 1, divided by log2(rank + 1) "
            f"(trec_eval's ndcg_cut); the ideal list has every expected {unit} first.",
        )
        for k in ks
    ]
    out.append(
        metric(
            "map",
            "mean",
            f"average precision: the sum of precision@rank at each of the {found}, / {src} "
            "of the item; its mean over items is MAP.",
        )
    )
    return out


def rank_logs(width: int) -> NDArray[np.float64]:
    """log2(rank + 1) per rank (index 0 is rank 1), by the C library's log2 as trec_eval
    takes it: numpy's vectorised log2 differs in the last bit at a few ranks (1,620 the
    first)."""
    return np.array([math.log2(rank) for rank in range(2, width + 2)], dtype=np.float64)


def discounts(width: int) -> NDArray[np.float64]:
    """trec_eval's DCG discount per rank (index 0 is rank 1): 1 / log2(rank + 1)."""
    found: NDArray[np.float64] = 1 / rank_logs(width)
    return found


def relevance_matrix(relevant_ranks: Sequence[Sequence[int]], width: int) -> NDArray[np.bool_]:
    """Lists x ranks: True where the entry at that rank (from 1) was credited."""
    rows = np.repeat(np.arange(len(relevant_ranks)), [len(r) for r in relevant_ranks])
    cols = np.fromiter((rank - 1 for ranks in relevant_ranks for rank in ranks), np.int64)
    rel = np.zeros((len(relevant_ranks), width), dtype=bool)
    rel[rows, cols] = True
    return rel


MATRIX_CELLS = 1 << 24
"""Lists x ranks computed as one matrix at most (16 MB of flags, 128 MB of running sums);
beyond, lists are computed in groups of like depth."""


def retrieval_values(
    relevant_ranks: Sequence[Sequence[int]],
    expected: NDArray[np.int64],
    metrics: Sequence[Metric],
) -> tuple[dict[str, NDArray[np.float64]], NDArray[np.int64]]:
    """Each metric's value per list, and the first relevant rank per list (0: none).

    ``relevant_ranks[i]``: the ranks of list i's credited entries, in rank order;
    ``expected[i]``: how many expected sources it had (at least 1). The lists are one matrix
    as wide as the deepest credited rank; when that would be large (one list credited at
    rank 200,000 among 30,000), they are computed in groups of like depth, each as wide as
    its own deepest rank, with the same arithmetic per list."""
    deepest = max((r for ranks in relevant_ranks for r in ranks), default=1)
    if deepest * len(relevant_ranks) <= MATRIX_CELLS:
        return _values(relevant_ranks, expected, metrics)
    depth = np.array([ranks[-1] if len(ranks) else 1 for ranks in relevant_ranks])
    group = np.ceil(np.log2(depth)).astype(np.int64)
    values = {m.name: np.zeros(len(relevant_ranks)) for m in metrics}
    first = np.zeros(len(relevant_ranks), dtype=np.int64)
    for g in np.unique(group).tolist():
        members = np.flatnonzero(group == g)
        found, firsts = _values([relevant_ranks[i] for i in members.tolist()],
                                expected[members], metrics)  # fmt: skip
        for name, column in found.items():
            values[name][members] = column
        first[members] = firsts
    return values, first


def _values(
    relevant_ranks: Sequence[Sequence[int]],
    expected: NDArray[np.int64],
    metrics: Sequence[Metric],
) -> tuple[dict[str, NDArray[np.float64]], NDArray[np.int64]]:
    """``retrieval_values`` as one matrix."""
    ks = sorted({int(m.name.split("@")[1]) for m in metrics if "@" in m.name} or {1})
    # as wide as the deepest credited rank: a cutoff beyond it changes nothing but K itself
    width = max((r for ranks in relevant_ranks for r in ranks), default=1)
    rel = relevance_matrix(relevant_ranks, width)
    cumulative = rel.cumsum(axis=1)
    total = np.maximum(expected, 1).astype(np.float64)
    any_rel = cumulative[:, -1] > 0
    first = np.where(any_rel, rel.argmax(axis=1) + 1, 0).astype(np.int64)
    ranks = np.arange(1, width + 1, dtype=np.float64)
    # running sums in rank order, as trec_eval adds them: numpy's pairwise sum would group
    # the terms by the width of the widest list (a perfect ranking of 16 sources passed 1)
    dcg = (rel * discounts(width)).cumsum(axis=1)
    most = int(expected.max()) if len(expected) else 1
    ideal_prefix = np.cumsum(discounts(max(1, min(ks[-1], most))))
    values: dict[str, NDArray[np.float64]] = {}
    for m in metrics:
        name, _, at = m.name.partition("@")
        k = int(at) if at else 0
        hits = cumulative[:, min(k, width) - 1].astype(np.float64) if k else None
        if name == "hit":
            assert hits is not None
            values[m.name] = (hits > 0).astype(np.float64)
        elif name == "recall":
            assert hits is not None
            values[m.name] = hits / total
        elif name == "precision":
            assert hits is not None
            values[m.name] = hits / k
        elif name == "ndcg":
            ideal = ideal_prefix[np.minimum(expected, k).clip(min=1) - 1]
            values[m.name] = dcg[:, min(k, width) - 1] / ideal
        elif name == "mrr":
            values[m.name] = np.where(any_rel, 1.0 / np.maximum(first, 1), 0.0)
        elif name == "map":
            values[m.name] = (rel * cumulative / ranks).cumsum(axis=1)[:, -1] / total
        else:  # pragma: no cover - the names come from retrieval_metrics
            raise ValueError(f"unknown retrieval metric {m.name!r}")
    return values, first
