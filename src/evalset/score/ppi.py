"""Prediction-powered inference (PPI) of a mean: the judge's scores on every item, corrected
by how far the judge is from people on the items people labelled.

With the judge's score ``f`` on all M items of the set (the n labelled ones among them) and,
on the n labelled items, the human score ``Y`` too, the estimate of the mean is

    theta = mean(f over all M items) + mean(Y - f over the n labelled)

(the second term, the *rectifier*, removes the judge's average bias), and its 95% interval
is theta +/- z * sqrt(var(f) / M + var(r) / n + 2 cov(f, r) / M), with r = Y - f on the
labelled items, f's variance over all M and the covariance over the n labelled: the first
mean holds the labelled items too, so the two terms move together. Variances with
denominators M and n. This is the estimator of Angelopoulos, Bates, Fannjiang, Jordan and
Zrnic, "Prediction-powered inference" (Science, 2023), with no power tuning (lambda = 1),
as ARES uses it to put intervals on judge-scored RAG metrics, with the judge's scores of the
labelled items counted in its first mean, as every item of the set is scored by the judge.
(Their version takes that mean over the unlabelled items only, an independent sample: with
few of them it rests on a handful of scores, one item's when one is left, and its interval
on their variance, 0 for one; an estimate from a set nearly all labelled was then that one
item's score.) With every item labelled, the estimate is the people's mean and its interval
the usual one, var(Y) / n.
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
    """The PPI estimate of a mean with its interval (see the module docstring): the human
    and the judge's scores of the labelled items, and the judge's of the others. Needs at
    least one labelled item."""
    n, big_n = len(labelled), len(unlabelled_predicted)
    if n == 0 or len(labelled_predicted) != n:
        raise ValueError("PPI needs labelled items, with the judge's scores of them")
    predicted = np.concatenate([labelled_predicted, unlabelled_predicted])
    rectifier = labelled - labelled_predicted
    value = float(predicted.mean() + rectifier.mean())
    together = float(
        np.mean((labelled_predicted - labelled_predicted.mean()) * (rectifier - rectifier.mean()))
    )
    m = n + big_n
    spread = float(predicted.var() / m + rectifier.var() / n + 2 * together / m)
    half = z * math.sqrt(max(spread, 0.0))
    return Estimate(value, value - half, value + half, n, big_n, float(rectifier.mean()))
