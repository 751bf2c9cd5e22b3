"""Confidence intervals of :class:`RVNSDensityEstimator`.

With ``method="ml"`` the reconstruction is the EMS fixed point of the
reports counted in the grid cells, through the exact cell-to-cell
transition probabilities of the mechanism; its mean, CDF and quantiles get
the linearized (delta-method) intervals of
:mod:`skprivate._grid_density._intervals`, with each respondent's ``k``
reports as one unit (they share the respondent's value), chained to the
derivative of the fit's moment tilt (``moment_correction=True``).  By
default (``method="rbc"``) they are centred on the fit corrected for its
bias at the fitted law and cover the true value; ``method="smoothed"``
(formerly ``"linearized"``) is centred on the fit and covers the
EMS-smoothed target at the smoothing width the fit chose.  The width
choice is itself in doubt under heavy noise (small ``d``): the ``"rbc"``
interval is then the union of its intervals over the widths the held-out
likelihood cannot tell from the chosen one
(:mod:`skprivate._grid_density._width_choice`); the ``"smoothed"`` one is
not widened.  ``method="bootstrap"`` resamples respondents and refits (the
smoothing width re-chosen each time, at the cost of one fit per replicate),
and is the only method for ``method="paper"`` fits.  The EM system (the
report cells of the fit's placement and their transition matrix) and the
template of the refits are the estimator's own
(:class:`~skprivate.negative_survey.RVNSDensityEstimator`).

The mean.  With the boundary-safe placement (reports on ``[a - d, b + d]``)
``E[Y | x] = C - d x / (b - a + d)`` with ``C = ((b + d)**2 - (a - d)**2) /
(2 (b - a + d))`` for every ``x`` in the bounds, so ``(C - Y_bar) (b - a +
d) / d`` is an unbiased estimate of the mean, with the standard error of
the respondents' mean reports scaled by ``(b - a + d) / d``
(``method="moment"``, the default there).  With the paper's placement
``E[Y | x]`` is affine in ``x`` only at least ``d`` away from the bounds, so
the mean is taken from the reconstruction.

References
----------
H. Jiang et al., "A Privacy-Preserving Data Collection Method for
Diversified Statistical Analysis" (the mechanism and Algorithm 2).

B. W. Silverman, M. C. Jones, J. D. Wilson and D. W. Nychka (1990), "A
smoothed EM approach to indirect estimation problems", JRSS-B 52, 271-324.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray

from .._grid_density._ems import ML_MAX_ITER, ML_TOL, ems_cell_probabilities
from .._grid_density._intervals import (
    GridEMSIntervalsMixin,
    MomentTilt,
)
from .._grid_density._moments import binned_moments, moment_covariance, rvns_features
from .._uncertainty import IntervalRequest, normal_frame

__all__ = ["RVNSIntervalsMixin"]


class RVNSIntervalsMixin(GridEMSIntervalsMixin):
    """``conf_int`` of :class:`RVNSDensityEstimator`: mean, quantiles, CDF.

    ``method="rbc"`` (bias-corrected, covers the true value; default for
    ``method="ml"`` fits), ``"smoothed"`` (covers the EMS-smoothed target;
    ``"linearized"`` is its former name) or ``"bootstrap"`` (respondents
    resampled, the estimator refitted on their reports; the default for
    ``method="paper"``); the mean also
    ``"moment"`` (the exact unbiased estimate, the default with the
    boundary-safe placement).  ``X`` is the reports, one row of ``k``
    reports per respondent.
    """

    def _ci_uses_ems(self) -> bool:
        # An "ml" fit sets the smoothing width and no L2 weight.
        return (
            getattr(self, "smoothing_width_", None) is not None
            and getattr(self, "l2_", None) is None
        )

    def _ci_moment_tilt(self, X: NDArray, A: NDArray, unit_bins: NDArray, S: Any):
        # The fit tilts the EMS fixed point to the reports' mean and mean
        # square, counted in the report cells and read at their midpoints
        # with Sheppard's correction.
        if not getattr(self, "moment_correction", False):
            return None
        k = A.shape[0]
        bins = np.asarray(unit_bins, dtype=np.intp)
        bins = bins[:, None] if bins.ndim == 1 else bins
        total = np.bincount(bins.ravel(), minlength=k).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            untilted, _ = ems_cell_probabilities(
                A,
                total,
                self.smoothing_width_,
                max_iter=ML_MAX_ITER,
                tol=ML_TOL,
                start=np.asarray(self.density_) * np.diff(self.edges_),
            )
        report_edges = np.asarray(self.report_edges_, dtype=float)
        spread = float(report_edges[1] - report_edges[0]) ** 2 / 12
        mids = 0.5 * (report_edges[:-1] + report_edges[1:])
        n, mean, square = binned_moments(mids, total, spread)
        third, fourth = (float(np.dot(total, mids**p) / total.sum()) for p in (3, 4))
        per_report = mids[bins]
        return MomentTilt(
            features=rvns_features(self.edges_, self.d_, self.placement_),
            unit_moments=np.column_stack(
                [per_report.mean(axis=1), (per_report**2).mean(axis=1) + spread]
            ),
            untilted=untilted,
            moment_cov=moment_covariance(n, mean, square, third, fourth),
        )

    def _conf_int_mean(self, request: IntervalRequest):
        safe = getattr(self, "placement_", "paper") == "boundary_safe"
        fallback = "rbc" if self._ci_uses_ems() else "bootstrap"
        method = request.choose(
            ("moment", "rbc", "smoothed", "linearized", "bootstrap"),
            "moment" if safe else fallback,
            type(self).__name__,
        )
        if method != "moment":
            return super()._conf_int_mean(request)
        if not safe:
            raise ValueError(
                "method='moment' needs the boundary-safe placement (with the "
                "paper's, E[Y | x] is not affine near the bounds)."
            )
        Y = np.asarray(request.data("X"), dtype=float)
        units = Y if Y.ndim == 1 else Y.mean(axis=1)
        n = units.size
        if n < 2:
            raise ValueError("A mean interval needs at least two respondents.")
        a, b = self.bounds_
        d = float(self.d_)
        span = b - a + d
        centre = ((b + d) ** 2 - (a - d) ** 2) / (2.0 * span)
        estimate = (centre - units.mean()) * span / d
        se = float(units.std(ddof=1) / np.sqrt(n) * span / d)
        return normal_frame(
            "mean", None, estimate, se, request.level, "moment (unbiased)", "E[X]"
        )
