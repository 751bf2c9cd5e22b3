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

The perturbed-KDE, RVNS and Square Wave fits then tilt the fixed point to
the reports' moments (an I-projection, applied only when the fixed point's
moments are more than two standard errors from the reports'); the delta
method chains the derivative of that projection (:class:`MomentTilt`) to
the fixed point's, with the frequencies and the moments taken jointly over
respondents.

Two intervals follow from this linearization.  ``method="smoothed"``
(formerly ``"linearized"``) is centred on the fit and covers the EMS fixed
point at the population law of the reports (tilted as the fit tilts), with
the smoothing width the fit chose, held fixed: the binned and smoothed
target, not the true value.  Its smoothing bias (of the CDF, largest where
the density bends sharply; of quantiles in the tails; also the bias of
stopping EM at its tolerance, before the fixed point) is not covered.

``method="rbc"`` (the default) covers the true value.  Write ``Phi`` for
the fit's map from report frequencies to cell probabilities (EMS at the
chosen width, then the tilt).  Its bias at a law ``theta`` is ``Phi(A
theta) - theta`` to first order, so the fit applied once more to the
report frequencies ``A theta_hat`` that the fitted law produces estimates
it: a bootstrap bias estimate (Efron and Tibshirani, 1993, ch. 10) with the
expected frequencies in place of resampled ones, which needs one refit and
no randomness.  The corrected estimate ``theta_bc = 2 theta_hat - Phi(A
theta_hat)`` is, for a linear smoother ``Phi A = L``, the twicing of Tukey
(Stuetzle and Mittal, 1979): its bias ``(I - L)**2 theta`` is of the
square of the order of the fit's.  Its derivative ``(2 I - K) d theta_hat``
(``K`` the derivative of ``Phi(A .)`` at ``theta_hat``, through both the
EMS fixed point and the tilt, see :func:`ems_bias_correction`) gives the
variance of the corrected estimate, by which the interval is studentized:
the robust bias correction of Calonico, Cattaneo and Farrell (2018), whose
interval stays valid at the width that balances the fit's own bias and
variance.  Quantiles invert the corrected CDF intervals; the quantile
estimate is read from the corrected CDF after its monotone rearrangement
(Chernozhukov, Fernández-Val and Galichon, 2009), since corrected cells
may be negative.

Where the fit chose its width by held-out likelihood (the perturbed-KDE
and RVNS ``"ml"`` fits), the width itself is in doubt: under heavy noise
the criterion barely separates the candidates, and an interval at the
chosen width alone is too short (a wide choice shows too little of its own
bias).  The ``"rbc"`` interval is then the union of its intervals over
the widths the held-out likelihood cannot tell from the chosen one (those
wider than it only when the widest candidate is among them or the chosen
width is the narrowest candidate), and warns when the widest candidate is
among them (:mod:`._width_choice`).
``method="smoothed"`` is not widened; it warns
(:class:`~skprivate.exceptions.CoverageWarning`) that it covers the
EMS-smoothed target, not the true value, whenever it is returned.  The
coverage benchmark (``python -m benchmarks coverage``) states how each
does.  The density in a single cell,
an ill-posed quantity, is not offered.  ``method="bootstrap"`` refits the
estimator on resampled respondents instead (it also re-chooses the
smoothing) when the estimator can be refitted on released data.

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

W. Stuetzle and Y. Mittal (1979), "Some comments on the asymptotic behavior
of robust smoothers", in Smoothing Techniques for Curve Estimation, Lecture
Notes in Mathematics 757, Springer, 191-195 (twicing).

B. Efron and R. J. Tibshirani (1993), An Introduction to the Bootstrap,
Chapman & Hall (bias estimation, Chapter 10).

S. Calonico, M. D. Cattaneo and M. H. Farrell (2018), "On the effect of bias
estimation on coverage accuracy in nonparametric inference", JASA 113,
767-779.

V. Chernozhukov, I. Fernández-Val and A. Galichon (2009), "Improving point
and interval estimators of monotone functions by rearrangement",
Biometrika 96, 559-575.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits

from .._uncertainty import (
    IntervalRequest,
    PopulationIntervalMixin,
    interval_frame,
    normal_frame,
    probabilities_of,
    values_of,
    z_value,
)
from ..exceptions import CoverageWarning
from ..utils._warnings import external_stacklevel
from ._ems import ML_MAX_ITER, ML_TOL, _smoother, ems_cell_probabilities
from ._moments import tilt_to_moments

__all__ = [
    "GridEMSIntervalsMixin",
    "MomentTilt",
    "binomial_filter_matrix",
    "cell_cdf_weights",
    "ems_bias_correction",
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


def ems_bias_correction(
    A: NDArray,
    theta: NDArray,
    S: NDArray | None,
    refit: Callable[[NDArray], NDArray],
    tilt: MomentTilt | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """The fit corrected for its bias at the fitted law, and its derivative.

    Write ``Phi`` for the fit's map from report frequencies to cell
    probabilities: ``refit`` (the fit's EMS at its smoothing), followed by
    the moment tilt when the fit applies one (to the report moments
    ``F^T theta`` expected under ``theta``, within the fit's ellipse).  The
    bias of the fit at the law ``theta`` is ``Phi(A theta) - theta`` to
    first order (the bootstrap bias estimate with the expected frequencies
    ``A theta`` in place of resampled ones), so the corrected estimate is
    ``theta_bc = 2 theta - Phi(A theta)``.  Its derivative with respect to
    the fit is ``M = 2 I - K`` with ``K = J_w G A + J_mu F^T`` (``G`` the
    implicit-function derivative of the EMS fixed point at ``A theta``,
    :func:`ems_gradient`; ``J_w``, ``J_mu`` those of the tilt, identity and
    zero without it), so ``Cov(theta_bc) = M Cov(theta) M^T``.

    Parameters
    ----------
    A : ndarray of shape (k, m)
        Report-bin-given-cell probabilities (columns sum to one).
    theta : ndarray of shape (m,)
        The fitted cell probabilities (after the tilt, if any).
    S : ndarray of shape (m, m) or None
        Smoothing matrix of the EMS step (None: plain EM).
    refit : callable
        ``frequencies -> cell probabilities``: the fit's EMS (before any
        tilt) on report frequencies of shape ``(k,)``.
    tilt : MomentTilt or None
        The fit's moment tilt (its features, ellipse covariance and radius
        are used; its moments and untilted fit are replaced).

    Returns
    -------
    theta_bc : ndarray of shape (m,)
        Corrected cell probabilities (they sum to one; cells may be
        negative where the correction sharpens a peak).
    M : ndarray of shape (m, m)
        ``d theta_bc / d theta``, on the directions that sum to zero (the
        ones in which cell probabilities can move).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate._grid_density._intervals import ems_bias_correction
    >>> A = np.eye(3)  # exact reports: the EMS fixed point is S t (twicing)
    >>> S = np.array([[0.75, 0.25, 0.0], [0.25, 0.5, 0.25], [0.0, 0.25, 0.75]])
    >>> theta = np.array([0.2, 0.5, 0.3])
    >>> theta_bc, M = ems_bias_correction(A, theta, S, lambda t: S @ t)
    >>> np.round(theta_bc, 4)
    array([0.125, 0.625, 0.25 ])
    >>> np.round(M @ np.array([1.0, -1.0, 0.0]), 4)  # (2 I - S) on the simplex
    array([ 1.5 , -1.75,  0.25])
    """
    A = np.asarray(A, dtype=float)
    theta = np.asarray(theta, dtype=float)
    m = theta.size
    expected = A @ theta
    untilted = np.asarray(refit(expected), dtype=float)
    untilted = untilted / untilted.sum()
    G = ems_gradient(A, untilted, S, expected)
    if tilt is None:
        again, K = untilted, G @ A
    else:
        F = np.asarray(tilt.features, dtype=float)
        stage = replace(tilt, unit_moments=(F.T @ theta)[None, :], untilted=untilted)
        again = stage.tilted()[0]
        J_w, J_mu = stage.jacobians()
        K = J_w @ G @ A + J_mu @ F.T
    return 2.0 * theta - again, 2.0 * np.eye(m) - K


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
    band: Callable[[NDArray, NDArray], tuple[NDArray, NDArray] | None] | None = None,
) -> tuple[NDArray, NDArray]:
    """Values whose CDF interval contains ``q``, on ``per_cell`` points per cell.

    ``band`` maps the CDF weights of the grid points and their standard
    errors to ``(low, high)``: the CDF interval at a point is then ``[F +
    low, F + high]`` (the interval over smoothing widths, see
    ``GridEMSIntervalsMixin._ci_width_band``).
    """
    frac = np.arange(per_cell) / per_cell
    grid = np.append(
        (edges[:-1, None] + np.diff(edges)[:, None] * frac[None, :]).ravel(),
        edges[-1],
    )
    W = cell_cdf_weights(edges, grid)
    F = W @ theta
    se = np.sqrt(np.maximum(np.einsum("pi,ij,pj->p", W, cov, W), 0.0))
    z = z_value(level)
    moved = None if band is None else band(W, se)
    lower, upper = np.empty(q.size), np.empty(q.size)
    for j, p in enumerate(q):
        if moved is None:
            accepted = np.flatnonzero(np.abs(F - p) <= z * se)
        else:
            accepted = np.flatnonzero((F + moved[0] <= p) & (p <= F + moved[1]))
        if accepted.size == 0:  # no spread: the point estimate
            i = int(np.clip(np.searchsorted(F, p), 0, grid.size - 1))
            lower[j] = upper[j] = grid[i]
        else:
            lower[j], upper[j] = grid[accepted[0]], grid[accepted[-1]]
    return lower, upper


def _rearranged_quantiles(
    edges: NDArray, theta: NDArray, q: NDArray
) -> NDArray[np.float64]:
    """Quantiles of the cell masses ``theta`` after rearranging their CDF.

    A bias-corrected ``theta`` may have negative cells, so its CDF may dip;
    sorting the CDF values at the edges (the monotone rearrangement of
    Chernozhukov, Fernández-Val and Galichon, 2009) gives a CDF again, no
    farther from the true one in any norm, whose quantiles are read off by
    linear interpolation.
    """
    cdf = np.concatenate([[0.0], np.cumsum(theta)])
    cdf = np.sort(np.clip(cdf / cdf[-1], 0.0, 1.0))
    return np.interp(q, cdf, edges)


@dataclass(frozen=True)
class _LinearizedFit:
    """The fitted cells, their delta-method covariance and the EM system."""

    edges: NDArray
    theta: NDArray
    cov: NDArray
    A: NDArray
    S: NDArray | None
    tilt: MomentTilt | None


# What each linearized method covers, and the word for it in ``method``.
_SMOOTHED_TARGET = (
    "the EMS-smoothed target at the chosen width, after the fit's moment "
    "tilt if any (smoothing bias and the variability of the width choice "
    "not covered)"
)
_CORRECTED_NOTE = (
    "the fit's bias at the fitted law removed to first order; the "
    "smoothing width held at the fit's choice"
)
_WIDENED_NOTE = (
    "the fit's bias at the fitted law removed to first order; the union "
    "over the smoothing widths the held-out likelihood cannot tell from "
    "the chosen one (the wider ones only when the widest candidate is "
    "among them or the chosen width is the narrowest candidate)"
)


class GridEMSIntervalsMixin(PopulationIntervalMixin):
    """``conf_int`` for a density reconstructed on grid cells by EMS.

    Kinds ``"mean"``, ``"quantile"`` and ``"cdf"``, by ``method``:

    * ``"rbc"`` (the default): the delta method of the bias-corrected fit
      (:func:`ems_bias_correction`), studentized by the variance of the
      corrected estimate; the ``estimate`` column is the corrected
      estimate and the target the true value (see the module notes);
      where the fit chose its width by held-out likelihood, the union
      over the widths it cannot tell apart (``_ci_width_band``);
    * ``"smoothed"`` (also accepted under its former name
      ``"linearized"``): the delta method of the fit itself, centred on
      the fit and covering the EMS-smoothed target (it warns with a
      :class:`~skprivate.exceptions.CoverageWarning` that this is not the
      true value);
    * ``"bootstrap"``: percentile bootstrap of the respondents, each
      replicate refitting the estimator on released data.

    ``X`` is the released data given to ``fit`` (one row per respondent).
    Subclasses give the EM system with ``_ci_ems_system(X)``: ``(A,
    unit_bins, S)``, or None when the fit was not EMS (``"auto"`` is then
    the bootstrap), and may override ``_ci_ems_refit`` (the fit's EMS on
    other report frequencies; by default EMS at ``smoothing_width_`` to the
    fit's tolerance).
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

    def _ci_ems_refit(
        self, A: NDArray, frequencies: NDArray, start: NDArray | None
    ) -> NDArray[np.float64]:
        """The fit's EMS (before any tilt) on report ``frequencies``.

        ``start`` is the first iterate (None: uniform, as the fits start).
        """
        return ems_cell_probabilities(
            A,
            frequencies,
            self.smoothing_width_,
            max_iter=ML_MAX_ITER,
            tol=ML_TOL,
            start=start,
            warn=False,
        )[0]

    def _ci_offers_kind(self, kind: str) -> bool:
        return kind in ("mean", "quantile", "cdf")

    def _ci_width_band(
        self, request: IntervalRequest, W: NDArray, se: NDArray
    ) -> tuple[NDArray, NDArray] | None:
        """The ``"rbc"`` interval of ``W theta`` over other smoothing widths.

        ``se`` is the standard error of ``W theta`` at the fit's width.
        Returns ``(low, high)`` per row of ``W``: the interval becomes ``[W
        theta + low, W theta + high]``, combining the fit's width with the
        other widths in doubt.  None (the default): the width is not in
        doubt and the interval is the normal one ``-/+ z se``.
        """
        return None

    def _ci_linearized(self, request: IntervalRequest) -> _LinearizedFit | None:
        """The fitted grid and its delta-method covariance, or None without EMS."""
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
        cov = ems_covariance(A, theta, S, unit_bins, tilt)
        return _LinearizedFit(edges, theta, cov, np.asarray(A, dtype=float), S, tilt)

    def _ci_corrected(self, fit: _LinearizedFit) -> tuple[NDArray, NDArray, NDArray]:
        """``(edges, theta_bc, cov_bc)``: the bias-corrected cells."""
        start = fit.theta if fit.tilt is None else np.asarray(fit.tilt.untilted)
        theta_bc, M = ems_bias_correction(
            fit.A,
            fit.theta,
            fit.S,
            lambda frequencies: self._ci_ems_refit(fit.A, frequencies, start),
            fit.tilt,
        )
        cov = M @ fit.cov @ M.T
        return fit.edges, theta_bc, 0.5 * (cov + cov.T)

    def _ci_cells(
        self, request: IntervalRequest, method: str
    ) -> tuple[NDArray, NDArray, NDArray]:
        """``(edges, theta, cov)`` of ``method`` ("rbc" or "smoothed")."""
        # Small matrix products and solves, for which BLAS threads cost far
        # more than they save (fivefold on a loaded machine), as in the fits.
        with threadpool_limits(limits=1, user_api="blas"):
            fit = request.memo("ems", lambda: self._ci_linearized(request))
            if fit is None:
                self._ci_refuse_without_ems()
            if method == "smoothed":
                self._ci_warn_smoothed(request)
                return fit.edges, fit.theta, fit.cov
            return request.memo("ems-rbc", lambda: self._ci_corrected(fit))

    def _ci_grid_method(self, request: IntervalRequest, extra: tuple = ()) -> str:
        auto = "rbc" if self._ci_uses_ems() else "bootstrap"
        method = request.choose(
            ("rbc", "smoothed", "linearized", "bootstrap", *extra),
            auto,
            type(self).__name__,
        )
        return "smoothed" if method == "linearized" else method

    def _ci_warn_smoothed(self, request: IntervalRequest) -> None:
        """The ``"smoothed"`` interval does not aim at the true value: say so."""
        if request.cache.get("smoothed-warned"):
            return  # once per call, whatever the levels and kinds
        request.cache["smoothed-warned"] = True
        warnings.warn(
            f"{type(self).__name__}: method='smoothed' covers the EMS-smoothed "
            "target (the fixed point of the smoothed EM at the population law "
            "of the reports, at the chosen smoothing width), not the true "
            "value: the smoothing bias is not in the interval. Use the "
            "default method='rbc' for an interval of the true value.",
            CoverageWarning,
            stacklevel=external_stacklevel(),
        )

    @staticmethod
    def _ci_describe(
        method: str, truth: str, how: str, widened: bool = False
    ) -> tuple[str, str]:
        """The ``method`` and ``target`` columns of a linearized interval."""
        if method == "smoothed":
            return f"linearized EMS{how}", _SMOOTHED_TARGET
        note = _WIDENED_NOTE if widened else _CORRECTED_NOTE
        return (
            f"linearized EMS, bias-corrected{how}",
            f"{truth}, the true value ({note})",
        )

    def _ci_refuse_without_ems(self) -> None:
        raise ValueError(
            f"{type(self).__name__} was not fitted by EM with smoothing "
            "(method='paper'); use method='bootstrap'."
        )

    def _conf_int_cdf(self, request: IntervalRequest) -> pd.DataFrame:
        x = values_of(request.points)
        method = self._ci_grid_method(request)
        if method == "bootstrap":
            return self._ci_bootstrap_population(request, x, lambda est: est.cdf(x))
        edges, theta, cov = self._ci_cells(request, method)
        W = cell_cdf_weights(edges, x)
        se = np.sqrt(np.maximum(np.einsum("pi,ij,pj->p", W, cov, W), 0.0))
        band = None if method == "smoothed" else self._ci_width_band(request, W, se)
        label, target = self._ci_describe(
            method, "F(x)", " (delta method)", band is not None
        )
        frame = normal_frame(
            "cdf", x, W @ theta, se, request.level, label, target, clip=(0.0, 1.0)
        )
        if band is not None:
            frame = _widened(frame, band, (0.0, 1.0))
        # a corrected CDF may leave [0, 1] near the ends, as its interval does
        frame["estimate"] = frame["estimate"].clip(0.0, 1.0)
        return frame

    def _conf_int_quantile(self, request: IntervalRequest) -> pd.DataFrame:
        q = probabilities_of(request.points)
        method = self._ci_grid_method(request)
        if method == "bootstrap":
            return self._ci_bootstrap_population(
                request, q, lambda est: est.quantile(q)
            )
        edges, theta, cov = self._ci_cells(request, method)
        widened: list[bool] = []

        def band(W: NDArray, se: NDArray) -> tuple[NDArray, NDArray] | None:
            moved = self._ci_width_band(request, W, se)
            widened.append(moved is not None)
            return moved

        lower, upper = _quantile_inversion(
            edges,
            theta,
            cov,
            q,
            request.level,
            band=None if method == "smoothed" else band,
        )
        estimate = (
            self.quantile(q)
            if method == "smoothed"
            else _rearranged_quantiles(edges, theta, q)
        )
        label, target = self._ci_describe(
            method, "the quantile of X", ", CDF test inversion", any(widened)
        )
        return interval_frame(
            "quantile", q, estimate, lower, upper, request.level, label, target
        )

    def _ci_linearized_mean(
        self, request: IntervalRequest, method: str = "rbc"
    ) -> pd.DataFrame:
        """The mean of the (corrected, for ``"rbc"``) cells, by the delta method."""
        method = "smoothed" if method == "linearized" else method
        edges, theta, cov = self._ci_cells(request, method)
        mids = 0.5 * (edges[:-1] + edges[1:])
        estimate = float(mids @ theta)
        se = float(np.sqrt(max(mids @ cov @ mids, 0.0)))
        band = (
            None
            if method == "smoothed"
            else self._ci_width_band(request, mids[None], np.array([se]))
        )
        label, target = self._ci_describe(
            method, "E[X]", " (delta method)", band is not None
        )
        frame = normal_frame("mean", None, estimate, se, request.level, label, target)
        if band is not None:
            frame = _widened(frame, band, None)
        return frame

    def _conf_int_mean(self, request: IntervalRequest) -> pd.DataFrame:
        method = self._ci_grid_method(request)
        if method == "bootstrap":
            return self._ci_bootstrap_population(request, None, lambda est: est.mean())
        return self._ci_linearized_mean(request, method)


def _widened(
    frame: pd.DataFrame,
    band: tuple[NDArray, NDArray],
    clip: tuple[float, float] | None,
) -> pd.DataFrame:
    """``frame`` with its interval set to ``[estimate + low, estimate + high]``."""
    estimate = frame["estimate"].to_numpy(float)
    lower = estimate + np.asarray(band[0], dtype=float)
    upper = estimate + np.asarray(band[1], dtype=float)
    if clip is not None:
        lower, upper = np.clip(lower, *clip), np.clip(upper, *clip)
    frame = frame.copy()
    frame["lower"], frame["upper"] = lower, upper
    return frame
