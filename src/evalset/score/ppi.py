"""Prediction-powered inference (PPI) of a mean: the judge's scores on every item, corrected
by how far the judge is from people on the items people labelled.

With the judge's score ``f`` on N unlabelled items and, on n labelled items, both the human
score ``Y`` and the judge's ``f``, the estimate of the mean is

    theta = mean(f over unlabelled) + mean(Y - f over labelled)

(the second term, the *rectifier*, removes the judge's average bias), and its 95% interval
is theta +/- z * sqrt(var(f unlabelled) / N + var(Y - f labelled) / n), variances with
denominator N and n. This is the estimator of Angelopoulos, Bates, Fannjiang, Jordan and
Zrnic, "Prediction-powered inference" (Science, 2023), with no power tuning (lambda = 1),
as ARES uses it to put intervals on judge-scored RAG metrics (the PPI authors' ppi_py
computes the same as ``ppi_mean_ci(..., lam=1)``, variances with denominators N and n).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import NDArray

from evalset.score.intervals import Z


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float
    labelled: int
    unlabelled: int
    rectifier: float
    """mean(Y - f) over the labelled items: how far, on average, people are above the judge."""

    def to_json(self, clip: tuple[float, float] | None = (0.0, 1.0)) -> dict[str, Any]:
        """The estimate as a report writes it; ``clip``: the range the mean lies in, which
        the estimate and both bounds are brought into (the correction can carry an estimate
        past it, and its interval must still hold it)."""
        value, low, high = self.value, self.low, self.high
        if clip is not None:
            value, low, high = (min(max(x, clip[0]), clip[1]) for x in (value, low, high))
        return {
            "value": value,
            "low": low,
            "high": high,
            "labelled": self.labelled,
            "unlabelled": self.unlabelled,
            "rectifier": self.rectifier,
        }


def ppi_mean(
    labelled: NDArray[np.float64],
    labelled_predicted: NDArray[np.float64],
    unlabelled_predicted: NDArray[np.float64],
    z: float = Z,
) -> Estimate:
    """The PPI estimate of a mean with its interval (see the module docstring). Needs at
    least one item of each kind."""
    n, big_n = len(labelled), len(unlabelled_predicted)
    if n == 0 or big_n == 0 or len(labelled_predicted) != n:
        raise ValueError("PPI needs labelled items (with predictions) and unlabelled items")
    rectifier = labelled - labelled_predicted
    value = float(unlabelled_predicted.mean() + rectifier.mean())
    spread = float(unlabelled_predicted.var() / big_n + rectifier.var() / n)
    half = z * math.sqrt(max(spread, 0.0))
    return Estimate(value, value - half, value + half, n, big_n, float(rectifier.mean()))
