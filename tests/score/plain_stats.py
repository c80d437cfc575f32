"""Plain-Python references the scoring reference tests share: a mean compared exactly where
its sums are exact, and the bootstrap of intervals.py written out draw by draw."""

from __future__ import annotations

import math
import zlib

import numpy as np


def dyadic(values: list[float]) -> bool:
    """Every value a multiple of 2**-20 (below 2**20): their sums are exact in any order."""
    return all(float(v * 2**20).is_integer() and abs(v) < 2**20 for v in values)


def same_mean(found: float, values: list[float]) -> bool:
    """Whether ``found`` is the mean of ``values``: exactly when their sums are exact, else
    to 1e-12."""
    want = math.fsum(values) / len(values)
    if dyadic(values):
        return found == want
    return math.isclose(found, want, rel_tol=1e-12, abs_tol=1e-12)


def bootstrap(values: list[float], group: str, resamples: int, seed: int) -> tuple[float, float]:
    """The percentile bootstrap as intervals.py's docstring defines it (of a run's values, or
    of paired differences): ``resamples`` times, n items drawn uniformly with replacement
    (16-bit whole numbers from numpy's generator seeded by the seed and the crc32 of the
    group's name, 64 resamples per call), the drawn values' mean; then the 2.5th and 97.5th
    percentiles, linear between the nearest ranks."""
    n = len(values)
    rng = np.random.default_rng([seed, zlib.crc32(group.encode())])
    means = []
    for start in range(0, resamples, 64):
        rows = min(64, resamples - start)
        for draws in rng.integers(0, n, size=(rows, n), dtype=np.uint16).tolist():
            means.append(math.fsum(values[i] for i in draws) / n)
    means.sort()
    bounds = []
    for q in (0.025, 0.975):
        at = q * (len(means) - 1)
        below = min(math.floor(at), len(means) - 1)
        above = min(below + 1, len(means) - 1)
        bounds.append(means[below] + (means[above] - means[below]) * (at - below))
    return bounds[0], bounds[1]
