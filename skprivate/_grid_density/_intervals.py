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

The perturbed-KDE and RVNS fits then tilt the fixed point to the reports'
moments (an I-projection, applied only when the fixed point's moments are
more than two standard errors from the reports'); the delta method chains
the derivative of that projection (:class:`MomentTilt`) to the fixed
point's, with the frequencies and the moments taken jointly over
respondents.

What this covers: the EMS fixed point at the population law of the reports
(tilted as the fit tilts), with the smoothing width the fit chose, held
fixed: the binned and smoothed target, not the true value.  The smoothing
bias (of the CDF, largest where the density bends sharply; of quantiles in
the tails; also the bias of stopping EM at its tolerance, before the fixed
point) is not covered, nor is the variability of the width chosen by
held-out likelihood: where that width ranges widely between samples (RVNS
under heavy noise), the interval is too short even for its target; the
coverage benchmark (``python -m benchmarks coverage``) states by how much.
The density in a single cell, an ill-posed quantity, is not offered.
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

I. Csiszár (1975), "I-divergence geometry of probability distributions and
minimization problems", Annals of Probability 3, 146-158 (the tilt).
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._uncertainty import (
    IntervalRequest,
    PopulationIntervalMixin,
    interval_frame,
    normal_frame,
    probabilities_of,
    values_of,
    z_value,
)
from ._ems import _smoother
from ._moments import tilt_to_moments

__all__ = [
    "GridEMSIntervalsMixin",
    "MomentTilt",
    "binomial_filter_matrix",
    "cell_cdf_weights",
    "ems_covariance",
    "ems_gradient",
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


def ems_gradient(
    A: NDArray, theta: NDArray, S: NDArray | None, t: NDArray
) -> NDArray[np.float64]:
    """``d theta / d t`` at the EMS fixed point ``theta`` of frequencies ``t``.

    The implicit-function theorem on ``theta = N(S (theta * A^T (t / A
    theta)))``: ``(I - J_theta)^{-1} J_t``, an ``(m, k)`` matrix.
    """
    A = np.asarray(A, dtype=float)
    theta = np.asarray(theta, dtype=float)
    m = A.shape[1]
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
    lhs = np.eye(m) - P @ du_dtheta
    J_t = P @ du_dt
    try:
        return np.linalg.solve(lhs, J_t)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(lhs, J_t, rcond=None)[0]


def ems_covariance(
    A: NDArray,
    theta: NDArray,
    S: NDArray | None,
    unit_bins: NDArray,
    tilt: MomentTilt | None = None,
) -> NDArray[np.float64]:
    """Covariance of the EMS fixed point ``theta`` (implicit-function delta method).

    Parameters
    ----------
    A : ndarray of shape (k, m)
        ``A[j, i]``: probability of a report in bin ``j`` given a value in
        cell ``i`` (columns sum to one).
    theta : ndarray of shape (m,)
        Fitted cell probabilities: the fixed point, or with ``tilt`` the
        fixed point after the moment tilt.
    S : ndarray of shape (m, m) or None
        Smoothing matrix applied after each EM step (None: plain EM).
    unit_bins : ndarray of shape (n_units, v)
        Output bin of every report, one row per respondent.
    tilt : MomentTilt or None
        The moment tilt applied to the fixed point after EMS (see
        :class:`MomentTilt`); its linearization is chained to that of the
        fixed point, with the covariance of the frequencies and of the
        moments taken jointly over respondents.

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
    k = A.shape[0]
    t, cov_t = _report_covariance(unit_bins, k)
    if tilt is None:
        G = ems_gradient(A, np.asarray(theta, dtype=float), S, t)
        cov = G @ cov_t @ G.T
        return 0.5 * (cov + cov.T)
    untilted = np.asarray(tilt.untilted, dtype=float)
    G = ems_gradient(A, untilted, S, t)
    J_w, J_mu = tilt.jacobians()
    # Joint covariance of (t, mu_hat) over respondents: mu_hat is the mean
    # of the respondents' moment contributions.
    unit_bins = np.asarray(unit_bins, dtype=np.intp)
    if unit_bins.ndim == 1:
        unit_bins = unit_bins[:, None]
    n, v = unit_bins.shape
    M = np.asarray(tilt.unit_moments, dtype=float).reshape(n, -1)
    mu = M.mean(axis=0)
    cross = np.zeros((k, M.shape[1]))
    for a in range(v):
        for c in range(M.shape[1]):
            cross[:, c] += np.bincount(unit_bins[:, a], weights=M[:, c], minlength=k)
    cross = (cross / (n * v) - np.outer(t, mu)) / n
    cov_mu = np.cov(M, rowvar=False, ddof=0).reshape(M.shape[1], M.shape[1]) / n
    H_t = J_w @ G
    cov = (
        H_t @ cov_t @ H_t.T
        + H_t @ cross @ J_mu.T
        + J_mu @ cross.T @ H_t.T
        + J_mu @ cov_mu @ J_mu.T
    )
    return 0.5 * (cov + cov.T)


@dataclass(frozen=True)
class MomentTilt:
    """The moment tilt applied after EMS, for the delta method.

    The perturbed-KDE and RVNS ``"ml"`` fits replace the EMS fixed point
    ``w`` by its I-projection ``w'_i ∝ w_i exp(lambda . F_i)`` onto the cell
    probabilities whose expected report moments equal a target ``t'``:
    the reports' sample moments ``mu`` moved towards the moments of ``w``
    until within Mahalanobis distance ``within`` (in the covariance
    ``moment_cov`` of ``mu``); when ``w`` is already that close, ``w' = w``
    (see :func:`~skprivate._grid_density._moments.tilt_to_moments`).

    Differentiating the projection (with ``F_c = F - F^T w'`` and ``C =
    F_c^T diag(w') F_c``) gives ``d w' = (D - w' r^T) d w + diag(w') F_c d
    lambda`` with ``r = w' / w``, ``D = diag(r)`` and ``d lambda = C^{-1} (d
    t' - F_c^T D d w)``; the target moves as ``d t' = d mu + rho (I - g g^T
    P / delta**2) (F^T d w - d mu)`` with ``g = F^T w - mu``, ``P`` the
    inverse of ``moment_cov``, ``delta`` the distance and ``rho = within /
    delta`` (``moment_cov`` is held fixed: its variation is of smaller
    order).

    Parameters
    ----------
    features : ndarray of shape (m, 2)
        Expected report and squared report given a value in each cell.
    unit_moments : ndarray of shape (n_units, 2)
        Each respondent's contribution to the two sample moments (their mean
        over respondents is ``mu``).
    untilted : ndarray of shape (m,)
        The EMS fixed point before the tilt.
    moment_cov : ndarray of shape (2, 2)
        The covariance of ``mu`` the fit used for its ellipse.
    within : float
        The ellipse radius of the fit.
    """

    features: NDArray
    unit_moments: NDArray
    untilted: NDArray
    moment_cov: NDArray
    within: float = 2.0

    def target(self) -> NDArray[np.float64]:
        return np.asarray(self.unit_moments, dtype=float).mean(axis=0)

    def tilted(self) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
        """The tilted probabilities and multipliers, as the fit computes them."""
        w = np.asarray(self.untilted, dtype=float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return tilt_to_moments(
                w / w.sum(),
                self.features,
                self.target(),
                cov=self.moment_cov,
                within=self.within,
            )

    def jacobians(self) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
        """``(J_w, J_mu)``: ``d w' = J_w d w + J_mu d mu``."""
        w = np.asarray(self.untilted, dtype=float)
        w = w / w.sum()
        m = w.size
        F = np.asarray(self.features, dtype=float)
        mu = self.target()
        w_t, lam = self.tilted()
        if lam is None or not np.any(lam != 0):
            return np.eye(m), np.zeros((m, mu.size))
        active = np.flatnonzero(lam != 0)
        gap = F.T @ w - mu
        P = np.linalg.pinv(np.asarray(self.moment_cov, dtype=float))
        dist = float(np.sqrt(max(gap @ P @ gap, 0.0)))
        q = mu.size
        if dist > self.within:
            rho = self.within / dist
            Q = rho * (np.eye(q) - np.outer(gap, gap @ P) / dist**2)
        else:  # matched exactly (no ellipse): t' = mu
            Q = np.zeros((q, q))
        dt_dw = (Q @ F.T)[active]
        dt_dmu = (np.eye(q) - Q)[active]
        Fa = F[:, active]
        ratio = np.divide(w_t, w, out=np.zeros(m), where=w > 0)
        Fc = Fa - (Fa.T @ w_t)[None, :]
        C = Fc.T @ (w_t[:, None] * Fc)
        Cinv = np.linalg.pinv(C)
        lam_w = Cinv @ (dt_dw - Fc.T * ratio[None, :])
        lam_mu = Cinv @ dt_dmu
        B = w_t[:, None] * Fc
        J_w = np.diag(ratio) - np.outer(w_t, ratio) + B @ lam_w
        J_mu = B @ lam_mu
        return J_w, J_mu


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

    def _ci_moment_tilt(
        self, X: NDArray, A: NDArray, unit_bins: NDArray, S: Any
    ) -> MomentTilt | None:
        """The moment tilt the fit applied after EMS (None: no tilt)."""
        return None

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
        tilt = self._ci_moment_tilt(X, A, unit_bins, S)
        return edges, theta, ems_covariance(A, theta, S, unit_bins, tilt)

    def _ci_grid_method(self, request: IntervalRequest, extra: tuple = ()) -> str:
        auto = "linearized" if self._ci_uses_ems() else "bootstrap"
        return request.choose(
            ("linearized", "bootstrap", *extra), auto, type(self).__name__
        )

    _CI_TARGET = (
        "the EMS-smoothed target at the chosen width, after the fit's moment "
        "tilt if any (smoothing bias and the variability of the width choice "
        "not covered)"
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
        return normal_frame(
            "cdf",
            x,
            estimate,
            se,
            request.level,
            "linearized EMS (delta method)",
            self._CI_TARGET,
            clip=(0.0, 1.0),
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
        return normal_frame(
            "mean",
            None,
            estimate,
            se,
            request.level,
            "linearized EMS (delta method)",
            self._CI_TARGET,
        )

    def _conf_int_mean(self, request: IntervalRequest) -> pd.DataFrame:
        if self._ci_grid_method(request) == "bootstrap":
            return self._ci_bootstrap_population(request, None, lambda est: est.mean())
        return self._ci_linearized_mean(request)
