"""Confidence intervals of :class:`SubsetDistributionEstimator` on ``conf_int``.

The estimator already carries the covariance of its raw estimate
``distribution_raw_``: the plug-in sandwich ``Q^-1 C Q^-1 / n`` of the
method of moments, or the inverse observed Fisher information of the
likelihood methods (Wang & Ding, Section III).  ``conf_int("pmf")`` gives
the normal intervals of :meth:`confidence_intervals` on the common
interface; ``conf_int("cdf")`` bounds cumulative shares ``sum_{j <= k} w_j``
in the order of ``categories_`` (meaningful for ordered categories), with
the variance ``1^T Sigma 1`` of the partial sums.  Both are Wald intervals
of the raw estimate, clipped to ``[0, 1]`` and stretched to take in the
reported estimate (:attr:`distribution_`, the raw one projected on the
simplex, which the ``estimate`` column shows); they lose coverage for shares
near 0 or 1, where the estimate sits on the boundary of the simplex.

References
----------
G. Wang and J. Ding, "Subset Privacy: Draw from an Obfuscated Urn",
Section III.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .._uncertainty import (
    IntervalRequest,
    PopulationIntervalMixin,
    interval_frame,
    normal_interval,
)

__all__ = ["SubsetIntervalsMixin"]


class SubsetIntervalsMixin(PopulationIntervalMixin):
    """``conf_int`` of the subset estimator: ``"pmf"`` and ``"cdf"`` of categories.

    ``points`` are category labels (default: every category).  The only
    method is ``"wald"`` (the estimator's covariance); no data are needed.
    """

    def _ci_offers_kind(self, kind: str) -> bool:
        return kind in ("pmf", "cdf")

    def _ci_categories(self, points: Any) -> tuple[list, np.ndarray]:
        cats = list(self.categories_.tolist())
        if points is None:
            return cats, np.arange(len(cats))
        labels = list(np.ravel(np.asarray(points, dtype=object)))
        lookup = {c: i for i, c in enumerate(cats)}
        unknown = [c for c in labels if c not in lookup]
        if unknown:
            raise ValueError(
                f"points holds labels that are not categories: {unknown}; the "
                f"categories are {cats}."
            )
        return labels, np.array([lookup[c] for c in labels])

    def _ci_wald(self, request: IntervalRequest, cumulative: bool) -> pd.DataFrame:
        request.choose(("wald",), "wald", type(self).__name__)
        labels, idx = self._ci_categories(request.points)
        p = self.distribution_raw_.size
        G = np.zeros((idx.size, p))
        for row, j in enumerate(idx):
            if cumulative:
                G[row, : j + 1] = 1.0
            else:
                G[row, j] = 1.0
        estimate, se, lower, upper = self._ci_shares(G, request.level)
        return interval_frame(
            request.kind,
            labels,
            estimate,
            lower,
            upper,
            request.level,
            "wald (estimator covariance)",
            "P(X <= category)" if cumulative else "P(X = category)",
            se=se,
        )

    def _ci_shares(
        self, G: np.ndarray, level: float
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """Sums ``G w`` of shares: the reported estimate, se and interval.

        The interval is the Wald interval of the raw estimate ``G w_raw``
        (unbiased for the method of moments, which may leave the simplex),
        clipped to ``[0, 1]`` and stretched to take in the reported
        estimate ``G w`` of :attr:`distribution_` (the raw one projected on
        the simplex), so that the estimate a user reads lies in its own
        interval.  Stretching only lengthens the interval: its coverage of
        the true share is at least the Wald interval's.
        """
        raw = G @ self.distribution_raw_
        reported = G @ self.distribution_
        se = np.sqrt(np.clip(np.einsum("ij,jk,ik->i", G, self.covariance_, G), 0, None))
        lower, upper = normal_interval(raw, se, level)
        lower = np.minimum(np.clip(lower, 0.0, 1.0), reported)
        upper = np.maximum(np.clip(upper, 0.0, 1.0), reported)
        return reported, se, lower, upper

    def _conf_int_pmf(self, request: IntervalRequest) -> pd.DataFrame:
        return self._ci_wald(request, cumulative=False)

    def _conf_int_cdf(self, request: IntervalRequest) -> pd.DataFrame:
        return self._ci_wald(request, cumulative=True)
