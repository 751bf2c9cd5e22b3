"""Confidence intervals of densities reconstructed on a grid by EM with smoothing.

The RVNS reconstruction, the perturbed-KDE maximum likelihood and the Square
Wave EMS estimate cell probabilities ``theta`` as the fixed point of the
smoothed EM map (EMS; Silverman, Jones, Wilson & Nychka, 1990)::

    theta = N(S (theta * A^T (t / A theta)))

where ``t`` holds the frequencies of the reports in the output bins, ``A``
the exact bin-given-cell probabilities of the mechanism, ``S`` the smoothing
matrix and ``N`` the normalization to sum one.  The fixed point is a smooth
function of ``t``, so by the implicit function theorem

    d theta = (I - J_theta)^{-1} J_t d t,

with ``J_theta`` and ``J_t`` the derivatives of the map at the fixed point
(EMS is not a maximum-likelihood estimate, so the observed information does
not apply; this is the delta method of the estimating equation instead).
With the covariance of ``t`` estimated from the respondents (each
respondent's reports form one resampling unit, so the pooled reports of a
respondent may be dependent), every linear functional of ``theta`` (the
CDF at a point, the mean) gets a normal interval with a root-n standard
error; a quantile interval inverts the CDF intervals on a fine grid (the
values ``t`` whose CDF interval contains ``q``).

What this covers: the EMS fixed point at the population law of the reports,
with the smoothing width the fit chose, held fixed: the binned and smoothed
target, not the true value.  The smoothing bias (of the CDF, largest where
the density bends sharply; of quantiles in the tails) is not covered, and
the density in a single cell, an ill-posed quantity, is not offered.
``method="bootstrap"`` refits the estimator on resampled respondents
instead (it also re-chooses the smoothing) when the estimator can be refitted
on released data.

References
----------
B. W. Silverman, M. C. Jones, J. D. Wilson and D. W. Nychka (1990), "A
smoothed EM approach to indirect estimation problems, with particular
reference to stereology and emission tomography", JRSS-B 52, 271-324.

D. W. Nychka (1990), "Some properties of adding a smoothing step to the EM
algorithm", Statistics & Probability Letters 9, 187-193.

A. W. van der Vaart (1998), Asymptotic Statistics, Cambridge (the delta
method and Z-estimators, Chapters 3 and 5).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._uncertainty import (
    IntervalRequest,
    PopulationIntervalMixin,
    interval_frame,
    normal_interval,
    probabilities_of,
    values_of,
    z_value,
)
from ._ems import _smoother

__all__ = [
    "GridEMSIntervalsMixin",
    "binomial_filter_matrix",
    "cell_cdf_weights",
    "ems_covariance",
    "smoothing_matrix",
]


def smoothing_matrix(m: int, width: float | None) -> NDArray[np.float64] | None:
    """The Gaussian smoothing of the EMS step (``None`` for plain EM)."""
    if width is None or width <= 0:
        return None
    return _smoother(m, float(width))


def binomial_filter_matrix(m: int) -> NDArray[np.float64]:
    """The ``(1/4, 1/2, 1/4)`` filter with the end cells repeated, as a matrix."""
    S = np.zeros((m, m))
    i = np.arange(m)
    for offset, weight in ((-1, 0.25), (0, 0.5), (1, 0.25)):
        j = np.clip(i + offset, 0, m - 1)  # padded ends repeat the end cell
        np.add.at(S, (i, j), weight)
    return S


def _report_covariance(unit_bins: NDArray, k: int) -> tuple[NDArray, NDArray]:
    """Bin frequencies ``t`` and the covariance of ``t`` over respondents.

    ``unit_bins`` is ``(n_units, v)``: the output bin of each of a unit's
    ``v`` reports.  ``t = sum_r c_r / (n v)`` with ``c_r`` the unit's bin
    counts, so ``Cov(t) = Cov(c_r) / (n v**2)``.
    """
    unit_bins = np.asarray(unit_bins, dtype=np.intp)
    if unit_bins.ndim == 1:
        unit_bins = unit_bins[:, None]
    n, v = unit_bins.shape
    counts = np.bincount(unit_bins.ravel(), minlength=k).astype(float)
    mean_c = counts / n
    pairs = np.zeros(k * k)
    for a in range(v):
        for b in range(v):
            pairs += np.bincount(unit_bins[:, a] * k + unit_bins[:, b], minlength=k * k)
    second = pairs.reshape(k, k) / n
    cov_c = second - np.outer(mean_c, mean_c)
    return counts / (n * v), cov_c / (n * v * v)


def ems_covariance(
    A: NDArray, theta: NDArray, S: NDArray | None, unit_bins: NDArray
) -> NDArray[np.float64]:
    """Covariance of the EMS fixed point ``theta`` (implicit-function delta method).

    Parameters
    ----------
    A : ndarray of shape (k, m)
        ``A[j, i]``: probability of a report in bin ``j`` given a value in
        cell ``i`` (columns sum to one).
    theta : ndarray of shape (m,)
        Fitted cell probabilities (the fixed point).
    S : ndarray of shape (m, m) or None
        Smoothing matrix applied after each EM step (None: plain EM).
    unit_bins : ndarray of shape (n_units, v)
        Output bin of every report, one row per respondent.

    Returns
    -------
    ndarray of shape (m, m)

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate._grid_density._intervals import ems_covariance
    >>> A = np.eye(3)  # reports equal to the cells: the multinomial covariance
    >>> bins = np.array([[0], [1], [1], [2]])
    >>> np.round(ems_covariance(A, np.array([0.25, 0.5, 0.25]), None, bins) * 4, 4)
    array([[ 0.1875, -0.125 , -0.0625],
           [-0.125 ,  0.25  , -0.125 ],
           [-0.0625, -0.125 ,  0.1875]])
    """
    A = np.asarray(A, dtype=float)
    theta = np.asarray(theta, dtype=float)
    k, m = A.shape
    t, cov_t = _report_covariance(unit_bins, k)
    fitted = np.maximum(A @ theta, 1e-12)
    ratio = t / fitted
    du_dtheta = np.diag(A.T @ ratio) - (theta[:, None] * A.T) @ (
        (t / fitted**2)[:, None] * A
    )
    du_dt = theta[:, None] * A.T / fitted[None, :]
    # The normalization N(v) = v / sum(v) has derivative I - theta 1^T at
    # the fixed point (where the smoothed EM step sums to one).
    P = np.eye(m) - np.outer(theta, np.ones(m))
    if S is not None:
        du_dtheta = S @ du_dtheta
        du_dt = S @ du_dt
    J_theta = P @ du_dtheta
    J_t = P @ du_dt
    lhs = np.eye(m) - J_theta
    try:
        G = np.linalg.solve(lhs, J_t)
    except np.linalg.LinAlgError:
        G = np.linalg.lstsq(lhs, J_t, rcond=None)[0]
    cov = G @ cov_t @ G.T
    return 0.5 * (cov + cov.T)


def cell_cdf_weights(edges: NDArray, x: NDArray) -> NDArray[np.float64]:
    """``W[p, i]``: share of cell ``i`` left of ``x[p]`` (the CDF is ``W theta``)."""
    edges = np.asarray(edges, dtype=float)
    x = np.asarray(x, dtype=float)
    widths = np.diff(edges)
    return np.clip((x[:, None] - edges[None, :-1]) / widths[None, :], 0.0, 1.0)


def _quantile_inversion(
    edges: NDArray,
    theta: NDArray,
    cov: NDArray,
    q: NDArray,
    level: float,
    per_cell: int = 8,
) -> tuple[NDArray, NDArray]:
    """Values whose CDF interval contains ``q``, on ``per_cell`` points per cell."""
    m = edges.size - 1
    frac = np.arange(per_cell) / per_cell
    grid = np.append(
        (edges[:-1, None] + np.diff(edges)[:, None] * frac[None, :]).ravel(),
        edges[-1],
    )
    W = cell_cdf_weights(edges, grid)
    F = W @ theta
    se = np.sqrt(np.maximum(np.einsum("pi,ij,pj->p", W, cov, W), 0.0))
    z = z_value(level)
    lower, upper = np.empty(q.size), np.empty(q.size)
    for j, p in enumerate(q):
        accepted = np.flatnonzero(np.abs(F - p) <= z * se)
        if accepted.size == 0:  # no spread: the point estimate
            i = int(np.clip(np.searchsorted(F, p), 0, grid.size - 1))
            lower[j] = upper[j] = grid[i]
        else:
            lower[j], upper[j] = grid[accepted[0]], grid[accepted[-1]]
    del m
    return lower, upper


class GridEMSIntervalsMixin(PopulationIntervalMixin):
    """``conf_int`` for a density reconstructed on grid cells by EMS.

    Kinds ``"mean"``, ``"quantile"`` and ``"cdf"``.  ``method="linearized"``
    (the delta method of the EMS fixed point, see the module notes; the
    default) or ``"bootstrap"`` (percentile bootstrap of the respondents,
    each replicate refitting the estimator on released data).  ``X`` is the
    released data given to ``fit`` (one row per respondent).  Subclasses
    give the EM system with ``_ci_ems_system(X)``: ``(A, unit_bins, S)``, or
    None when the fit was not EMS (``"auto"`` is then the bootstrap).
    """

    def _ci_ems_system(self, X: Any) -> tuple[NDArray, NDArray, Any] | None:
        raise NotImplementedError  # pragma: no cover - documented contract

    def _ci_uses_ems(self) -> bool:
        """Whether the fit was EMS (else only the bootstrap applies)."""
        return True

    def _ci_offers_kind(self, kind: str) -> bool:
        return kind in ("mean", "quantile", "cdf")

    def _ci_linearized(
        self, request: IntervalRequest
    ) -> tuple[NDArray, NDArray, NDArray] | None:
        """``(edges, theta, cov)`` of the fitted grid, or None without EMS."""
        X = np.asarray(request.data("X"), dtype=float)
        if X.ndim == 1:
            X = X[:, None]
        system = self._ci_ems_system(X)
        if system is None:
            return None
        A, unit_bins, S = system
        edges = np.asarray(self.edges_, dtype=float)
        theta = np.asarray(self.density_, dtype=float) * np.diff(edges)
        theta = theta / theta.sum()
        return edges, theta, ems_covariance(A, theta, S, unit_bins)

    def _ci_grid_method(self, request: IntervalRequest, extra: tuple = ()) -> str:
        auto = "linearized" if self._ci_uses_ems() else "bootstrap"
        return request.choose(
            ("linearized", "bootstrap", *extra), auto, type(self).__name__
        )

    _CI_TARGET = (
        "the EMS-smoothed target at the chosen width (smoothing bias not covered)"
    )

    def _ci_refuse_without_ems(self) -> None:
        raise ValueError(
            f"{type(self).__name__} was not fitted by EM with smoothing "
            "(method='paper'); use method='bootstrap'."
        )

    def _conf_int_cdf(self, request: IntervalRequest) -> pd.DataFrame:
        x = values_of(request.points)
        if self._ci_grid_method(request) == "bootstrap":
            return self._ci_bootstrap_population(request, x, lambda est: est.cdf(x))
        lin = request.memo("ems", lambda: self._ci_linearized(request))
        if lin is None:
            self._ci_refuse_without_ems()
        edges, theta, cov = lin
        W = cell_cdf_weights(edges, x)
        estimate = W @ theta
        se = np.sqrt(np.maximum(np.einsum("pi,ij,pj->p", W, cov, W), 0.0))
        lower, upper = normal_interval(estimate, se, request.level)
        return interval_frame(
            "cdf",
            x,
            estimate,
            np.clip(lower, 0.0, 1.0),
            np.clip(upper, 0.0, 1.0),
            request.level,
            "linearized EMS (delta method)",
            self._CI_TARGET,
            se=se,
        )

    def _conf_int_quantile(self, request: IntervalRequest) -> pd.DataFrame:
        q = probabilities_of(request.points)
        if self._ci_grid_method(request) == "bootstrap":
            return self._ci_bootstrap_population(
                request, q, lambda est: est.quantile(q)
            )
        lin = request.memo("ems", lambda: self._ci_linearized(request))
        if lin is None:
            self._ci_refuse_without_ems()
        edges, theta, cov = lin
        lower, upper = _quantile_inversion(edges, theta, cov, q, request.level)
        return interval_frame(
            "quantile",
            q,
            self.quantile(q),
            lower,
            upper,
            request.level,
            "linearized EMS, CDF test inversion",
            self._CI_TARGET,
        )

    def _ci_linearized_mean(self, request: IntervalRequest) -> pd.DataFrame:
        lin = request.memo("ems", lambda: self._ci_linearized(request))
        if lin is None:
            self._ci_refuse_without_ems()
        edges, theta, cov = lin
        mids = 0.5 * (edges[:-1] + edges[1:])
        estimate = float(mids @ theta)
        se = float(np.sqrt(max(mids @ cov @ mids, 0.0)))
        lower, upper = normal_interval(estimate, se, request.level)
        return interval_frame(
            "mean",
            None,
            estimate,
            lower,
            upper,
            request.level,
            "linearized EMS (delta method)",
            self._CI_TARGET,
            se=se,
        )

    def _conf_int_mean(self, request: IntervalRequest) -> pd.DataFrame:
        if self._ci_grid_method(request) == "bootstrap":
            return self._ci_bootstrap_population(request, None, lambda est: est.mean())
        return self._ci_linearized_mean(request)
