"""The statistics a resampling interval recomputes on each refitted clone.

Small picklable callables (a lambda would not cross to joblib's workers)
that read one quantity off a fitted population estimator.  The NPMLE's
batched replicates (:mod:`skprivate.interval._npmle_resampling`) recognise
them by type and compute the same quantity without a clone.
"""

from __future__ import annotations

from typing import Any

from numpy.typing import NDArray


class CdfAt:
    """``est.cdf(points)``."""

    def __init__(self, points: NDArray) -> None:
        self.points = points

    def __call__(self, est: Any) -> NDArray:
        return est.cdf(self.points)


class QuantileAt:
    """``est.quantile(points)``."""

    def __init__(self, points: NDArray) -> None:
        self.points = points

    def __call__(self, est: Any) -> NDArray:
        return est.quantile(self.points)


class Mean:
    """``est.mean()``."""

    def __call__(self, est: Any) -> float:
        return est.mean()
