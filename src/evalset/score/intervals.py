"""Confidence intervals for scores: Wilson's interval for rates, a seeded percentile
bootstrap for means, and the paired bootstrap of a difference between two runs.

Every interval is over items: an item scored in several trials counts once, with the mean
of its trials, so repeating a question does not make a score look surer than the number of
questions allows. The bootstrap is seeded per group (``seed`` and the group's name), so the
same report gives the same intervals on every machine, and adding a category does not move
another category's interval.
"""

from __future__ import annotations

import math
import zlib
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

CONFIDENCE = 0.95
Z = 1.959963984540054
"""The standard normal quantile of 0.975: a two-sided 95% interval."""
RESAMPLES = 1000
"""Bootstrap resamples per group."""
SEED = 0
FEW = 128
"""Up to this many distinct scores, a metric is resampled as a multinomial over them (about
resamples x scores draws); beyond, from a drawing of items that all such metrics share."""


@dataclass(frozen=True)
class Interval:
    """A score over ``n`` items with its 95% interval (None when there is no item)."""

    value: float | None
    low: float | None
    high: float | None
    n: int

    def to_json(self) -> dict[str, float | int | None]:
        return {"value": self.value, "low": self.low, "high": self.high, "n": self.n}


EMPTY = Interval(None, None, None, 0)


def wilson(p: float, n: int, z: float = Z) -> tuple[float, float]:
    """Wilson's score interval for a proportion ``p`` observed over ``n`` items. With several
    trials per item, ``p`` is the mean of the items' own rates (a fraction of successes)."""
    if n <= 0:
        raise ValueError("no items")
    z2 = z * z
    denominator = 1 + z2 / n
    centre = (p + z2 / (2 * n)) / denominator
    half = z * math.sqrt(max(p * (1 - p), 0.0) / n + z2 / (4 * n * n)) / denominator
    return max(0.0, centre - half), min(1.0, centre + half)


def _rng(seed: int, group: str, column: int = 0) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(group.encode()), column])


def resample_means(
    values: NDArray[np.float64], group: str, resamples: int = RESAMPLES, seed: int = SEED
) -> NDArray[np.float64]:
    """Means of ``resamples`` bootstrap resamples of the rows of ``values`` (items x
    columns), per column: a ``resamples x columns`` array. A resample draws as many items as
    there are, with replacement; each metric's interval needs only its own column.

    Items with the same score are interchangeable, so a column with few distinct scores is
    resampled as how many times each score comes up: a multinomial over the distinct scores
    with their frequencies, which has exactly the distribution of drawing the items one by
    one. Scores take few distinct values (0, 1, 1/2, 1/3, and their means over trials), so
    this costs a few draws per resample rather than one per item. The other columns share
    one drawing of items, counted per item and multiplied through (one matrix product).
    Generators are seeded by ``seed``, the group and the column."""
    n, width = values.shape
    out = np.empty((resamples, width))
    spread: list[int] = []
    for j in range(width):
        distinct, counts = np.unique(values[:, j], return_counts=True)
        if len(distinct) > FEW:
            spread.append(j)
            continue
        drawn = _rng(seed, group, j + 1).multinomial(n, counts / n, size=resamples)
        out[:, j] = (drawn @ distinct) / n
    if spread:  # summed in single precision: four times faster, exact to ~1e-7 of a mean
        sums = _tally(_rng(seed, group), n, resamples) @ values[:, spread].astype(np.float32)
        out[:, spread] = sums.astype(np.float64) / n
    return out


DRAWN_ROWS = 64
"""Resamples drawn at a time: the generator's stream does not depend on how it is split,
and a block this size stays in the cache where all of them (80 MB for 10,000 items) would
not."""


def _tally(rng: np.random.Generator, n: int, resamples: int) -> NDArray[np.float32]:
    """How many times each of ``n`` items is drawn in each of ``resamples`` resamples of
    ``n`` draws with replacement (whole counts, so exact in single precision)."""
    tally = np.empty((resamples, n), dtype=np.float32)
    for start in range(0, resamples, DRAWN_ROWS):
        draws = rng.integers(0, n, size=(min(DRAWN_ROWS, resamples - start), n), dtype=np.int64)
        for r, row in enumerate(draws, start):
            tally[r] = np.bincount(row, minlength=n)
    return tally


def percentile_bounds(
    resampled: NDArray[np.float64], confidence: float = CONFIDENCE
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    tail = (1 - confidence) / 2 * 100
    low, high = np.percentile(resampled, [tail, 100 - tail], axis=0)
    return low, high


def intervals(
    values: NDArray[np.float64],
    kinds: Sequence[str],
    group: str,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> list[Interval]:
    """Per column of ``values`` (items x metrics), its mean and 95% interval: Wilson's for a
    column whose kind is ``rate``, the percentile bootstrap for ``mean``."""
    n = values.shape[0]
    if n == 0:
        return [EMPTY for _ in kinds]
    means = values.mean(axis=0)
    boot_cols = [j for j, kind in enumerate(kinds) if kind != "rate"]
    bounds: dict[int, tuple[float, float]] = {}
    if boot_cols:
        resampled = resample_means(values[:, boot_cols], group, resamples, seed)
        lows, highs = percentile_bounds(resampled)
        for j, low, high in zip(boot_cols, lows, highs, strict=True):
            bounds[j] = (float(low), float(high))
    found = []
    for j, kind in enumerate(kinds):
        mean = float(means[j])
        low, high = wilson(mean, n) if kind == "rate" else bounds[j]
        # the mean lies inside its interval; rounding in the sums must not say otherwise
        found.append(Interval(mean, min(low, mean), max(high, mean), n))
    return found


def paired_difference(
    current: NDArray[np.float64],
    baseline: NDArray[np.float64],
    group: str,
    resamples: int = RESAMPLES,
    seed: int = SEED,
) -> list[Interval]:
    """Per column, the mean of ``current - baseline`` over the same items (rows) and its 95%
    paired bootstrap interval: items are resampled together in both runs, so what the two
    runs share (the questions' difficulty) cancels out."""
    difference = current - baseline
    n = difference.shape[0]
    if n == 0:
        return [EMPTY for _ in range(difference.shape[1])]
    means = difference.mean(axis=0)
    lows, highs = percentile_bounds(resample_means(difference, group, resamples, seed))
    return [
        Interval(float(m), min(float(lo), float(m)), max(float(hi), float(m)), n)
        for m, lo, hi in zip(means, lows, highs, strict=True)
    ]


def percentiles(values: list[float]) -> dict[str, float | int]:
    """p50, p95 (linear interpolation between the nearest ranks, numpy's default), total and
    count of a list of latencies or costs."""
    data = np.asarray(values, dtype=np.float64)
    p50, p95 = np.percentile(data, [50, 95])
    return {"p50": float(p50), "p95": float(p95), "total": float(data.sum()), "n": len(values)}


def spread(values: NDArray[np.float64]) -> tuple[float, float, float]:
    """min, max and sample standard deviation (0 for one value) of a list of trial scores."""
    std = float(values.std(ddof=1)) if len(values) > 1 else 0.0
    return float(values.min()), float(values.max()), std
