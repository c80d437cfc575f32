"""Confidence intervals for scores: Wilson's interval for rates, a seeded percentile
bootstrap for means, and the paired bootstrap of a difference between two runs.

Every interval is over items: an item scored in several trials counts once, with the mean
of its trials, so repeating a question does not make a score look surer than the number of
questions allows. The bootstrap is seeded per group (``seed`` and the group's name), so the
same report gives the same intervals on every machine, and adding a category does not move
another category's interval.
"""

from __future__ import annotations

import functools
import math
import operator
import zlib
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray
from threadpoolctl import ThreadpoolController

CONFIDENCE = 0.95
Z = 1.959963984540054
"""The standard normal quantile of 0.975: a two-sided 95% interval."""
RESAMPLES = 1000
"""Bootstrap resamples per group."""
SEED = 0
EXACT = 2**53
"""Every whole number up to this is a double: sums of whole numbers that stay below it are
exact in floating point, whatever the order of the additions (a BLAS product's included)."""


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


def interval_settings(resamples: int, seed: int, trials: str) -> dict[str, Any]:
    """How a report's intervals were made, as its ``settings`` record them; ``trials`` says
    how an item scored in several trials counts."""
    return {
        "confidence": CONFIDENCE,
        "rate": "Wilson score interval over items",
        "mean": "percentile bootstrap over items",
        "resamples": resamples,
        "seed": seed,
        "trials": trials,
    }


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


def _rng(seed: int, group: str) -> np.random.Generator:
    return np.random.default_rng([seed, zlib.crc32(group.encode())])


def fixed_point(
    values: NDArray[np.float64], n: int
) -> tuple[NDArray[np.float64], NDArray[np.int64]]:
    """Each column of ``values`` as whole numbers of a power-of-two unit: ``(whole, shift)``
    with ``values ~ whole * 2**-shift`` per column. The unit is the finest for which ``n``
    values of the column, each counted up to ``n`` times in all, sum below ``EXACT``: about
    1e-12 of the column's largest value for 10,000 items, far below any difference a score
    can show. Those sums are then exact in any order, so a resample's mean is the same on
    every machine."""
    largest = np.abs(values).max(axis=0) if len(values) else np.zeros(values.shape[1])
    _, exponent = np.frexp(largest)  # largest < 2**exponent (0 for a column of zeros)
    shift = ((EXACT // max(n, 1)).bit_length() - 1 - exponent).astype(np.int64)
    whole: NDArray[np.float64] = np.rint(np.ldexp(values, shift))
    return whole, shift


DRAWN_ROWS = 64
"""Resamples drawn at a time: a block this size stays in the cache where all of them (80 MB
for 10,000 items) would not. The draws depend on it, as they depend on the seed: numpy makes
16-bit draws (up to 65,536 items) two from each 32-bit word and drops a half word left over
at the end of a call, so blocks of another size draw other resamples, and other intervals."""


@functools.cache
def _blas() -> ThreadpoolController:
    """The BLAS libraries this process loaded (looked up once: it lists them all)."""
    return ThreadpoolController()


def resample_means(
    values: NDArray[np.float64],
    group: str,
    resamples: int = RESAMPLES,
    seed: int = SEED,
    blas_threads: int | None = 1,
) -> NDArray[np.float64]:
    """Means of ``resamples`` bootstrap resamples of the rows of ``values`` (items x
    columns), per column: a ``resamples x columns`` array. A resample draws as many items
    as there are, uniformly with replacement (whole numbers from a generator seeded by
    ``seed`` and the group), and counts how often each item was drawn; its sums are those
    counts times the values in fixed point (``fixed_point``), whole numbers summed exactly,
    so every machine and every BLAS gets the same means to the last digit.

    The products run on ``blas_threads`` threads of the BLAS (None: as many as it
    chooses). One is the fastest for blocks this small, and scoring computes the
    intervals in a helper process while this one writes the report: OpenBLAS's threads,
    which wait for work by spinning, took the core the other process needed, and the
    bootstrap of 10,000 items in seven groups took 0.9 s of processor time on two cores
    where one thread takes 0.2 s."""
    if blas_threads is None:
        return _resample_means(values, group, resamples, seed)
    with _blas().limit(limits=blas_threads, user_api="blas"):
        return _resample_means(values, group, resamples, seed)


def _resample_means(
    values: NDArray[np.float64], group: str, resamples: int, seed: int
) -> NDArray[np.float64]:
    n, width = values.shape
    whole, shift = fixed_point(values, n)
    sums = np.empty((resamples, width))
    rng = _rng(seed, group)
    kind = np.uint16 if n <= 1 << 16 else np.int64  # the narrowest draws are the fastest
    counts = np.empty((min(DRAWN_ROWS, resamples), n))
    for start in range(0, resamples, DRAWN_ROWS):
        rows = min(DRAWN_ROWS, resamples - start)
        draws = rng.integers(0, n, size=(rows, n), dtype=kind)
        for r in range(rows):
            counts[r] = np.bincount(draws[r], minlength=n)
        sums[start : start + rows] = counts[:rows] @ whole
    means: NDArray[np.float64] = np.ldexp(sums, -shift) / n
    return means


def percentile_bounds(
    resampled: NDArray[np.float64], confidence: float = CONFIDENCE
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Per column, the (1 - confidence) / 2 and (1 + confidence) / 2 percentiles of the
    resampled means, interpolated linearly between the nearest ranks (numpy's default
    method), written out so that the arithmetic is fixed."""
    ordered = np.sort(resampled, axis=0)
    last = len(ordered) - 1
    bounds = []
    for q in ((1 - confidence) / 2, (1 + confidence) / 2):
        at = q * last
        below = min(math.floor(at), last)
        above = min(below + 1, last)
        t = at - below
        a, b = ordered[below], ordered[above]
        bounds.append(a + (b - a) * t)
    return bounds[0], bounds[1]


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
    means = _mean_differences(current, baseline)
    lows, highs = percentile_bounds(resample_means(difference, group, resamples, seed))
    return [
        Interval(m, min(float(lo), m), max(float(hi), m), n)
        for m, lo, hi in zip(means, lows, highs, strict=True)
    ]


def _mean_differences(current: NDArray[np.float64], baseline: NDArray[np.float64]) -> list[float]:
    """Per column, the mean of ``current - baseline`` over the rows, its sum exactly rounded
    (``math.fsum`` of both columns' values, the baseline's negated): the differences, each
    rounded on its own and summed in numpy's order, left -1.9e-17 where the two runs gave
    the same scores to other items ([0, 1, 1/3] and [1, 1/3, 0]), and the gate printed a
    drop of ``-0.000`` between equal means."""
    n = current.shape[0]
    return [
        math.fsum([*now, *(-before for before in then)]) / n
        for now, then in zip(current.T.tolist(), baseline.T.tolist(), strict=True)
    ]


def percentiles(values: list[float]) -> dict[str, float | int]:
    """p50, p95 (linear interpolation between the nearest ranks, numpy's default), total and
    count of a list of latencies or costs."""
    data = np.asarray(values, dtype=np.float64) + 0.0  # -0.0, which JSON writes, is 0
    p50, p95 = np.percentile(data, [50, 95])
    return {"p50": float(p50), "p95": float(p95), "total": running_total(values), "n": len(values)}


def running_total(values: Sequence[float]) -> float:
    """The sum of ``values`` added one by one in order, as the run file's check for a total
    beyond the largest number adds them: numpy's pairwise sum rounds otherwise, and took a
    total the check had kept finite to ``Infinity`` (invalid JSON) near 1.8e308."""
    return float(functools.reduce(operator.add, values, 0.0))


def spread(values: NDArray[np.float64]) -> tuple[float, float, float]:
    """min, max and sample standard deviation (0 for one value) of a list of trial scores."""
    std = float(values.std(ddof=1)) if len(values) > 1 else 0.0
    return float(values.min()), float(values.max()), std
