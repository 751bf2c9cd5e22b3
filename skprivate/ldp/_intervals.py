"""Confidence intervals of the local-differential-privacy learners.

Mixins adding the kinds of ``conf_int`` (see :mod:`skprivate._uncertainty`)
to :class:`DeconvolutionKernelDensity`, the deconvolution kernel regressor
and classifier, :class:`PerturbedKDEEstimator` and
:class:`SquareWaveEMSEstimator`.  They read fitted attributes and the
released data: ``X`` (and ``y`` for the learners with a target) for a
learner fitted on data the user privatized (the deconvolution learners use
the records they keep when ``X`` is not given), and the release a learner
fitted with ``privatizer=`` kept (``released_``), which then refuses ``X``
and ``y``.

Mean under additive noise.  A release ``z = x + e`` with ``e`` drawn from a
symmetric law (Laplace, generalized Gaussian, flipped Huber) after ``x`` is
clipped into the declared bounds has ``E z = E x``: the noisy sample mean is
unbiased for the mean of the clipped values and its variance ``(sigma**2 +
Var e) / n`` is estimated without bias by the sample variance of the
releases, so ``z_bar -/+ z_(1+level)/2 s_z / sqrt(n)`` is exact up to the
central limit theorem.  For the Square Wave mechanism on ``[0, 1]`` the
release has ``E[v' | v] = s v + c`` with slope ``s = p (1 + 2 w) - 2 w``
and ``c = (1 - p) (1/2 + w)`` (``w`` the half-width, ``p`` the probability
of the band around ``v``): the moment estimator ``(v'_bar - c) / s`` is
unbiased, with standard error ``s_v' / (s sqrt(n))``.

Deconvolution density and CDF.  The deconvolution estimate is an average of
independent terms, ``f_hat(x) = n**-1 sum_i K_hat_h(x - z_i)``, asymptotically
normal for Laplace (ordinary smooth) noise (Fan, 1991), so its variance is
estimated by the sample variance of the terms (the population methods
reflect the estimate at the support ends and normalize it: both are linear
in the terms, and the ratio is linearized).  Its mean is ``K_h * f``, not
``f``: with the bandwidth that balances bias and variance, an interval
around the estimate covers the smoothed density, not ``f`` (Bissantz,
Dümbgen, Holzmann & Munk, 2007, for deconvolution bands).
``method="smoothed"`` is that interval, with the target said so; it
warns (CoverageWarning) whenever it is returned.
``method="rbc"`` (robust bias correction; Calonico, Cattaneo & Farrell,
2018) subtracts the estimated bias ``h**2 f''_hat / 2`` computed with the
same bandwidth, which for the Gaussian kernel amounts to the fourth-order
kernel ``L = (3 - u**2) phi / 2``, deconvolved exactly as ``1.5 K_hat_0 -
0.5 L_hat_2``, and studentizes with the variance of the corrected estimate:
the remaining bias is ``O(h**4)``, of smaller order than the standard error
at the usual bandwidths, so the interval covers ``f(x)`` (and ``F(x)``)
itself.  It is the default with the Gaussian kernel; the Cauchy kernel has
no moments, and only ``"smoothed"`` applies.  Quantiles invert the CDF
intervals on a grid.

Deconvolution regression.  The local constant estimate ``m_hat = T / S``
(``T = sum K_hat_i y_i``, ``S = sum K_hat_i``) is linearized as ``m_hat -
m = sum K_hat_i (y_i - m) / S``, giving the sandwich variance ``sum
K_hat_i**2 (y_i - m_hat)**2 / S**2`` (Fan & Truong, 1993; Delaigle, Hall &
Jamshidian, 2015); the local linear estimate gets the sandwich of its
estimating equations.  As for the density, ``"smoothed"`` covers the
regression function smoothed at the bandwidth and ``"rbc"`` (local constant
fit with the fourth-order kernel, Gaussian kernel) the function itself.

Grid EMS estimators.  See :mod:`skprivate._grid_density._intervals`.

References
----------
J. Fan (1991), "Asymptotic normality for deconvolution kernel density
estimators", Sankhya A 53, 97-110.

J. Fan and Y. K. Truong (1993), "Nonparametric regression with errors in
variables", Annals of Statistics 21, 1900-1925.

N. Bissantz, L. Dümbgen, H. Holzmann and A. Munk (2007), "Non-parametric
confidence bands in deconvolution density estimation", JRSS-B 69, 483-506.

A. Delaigle, P. Hall and F. Jamshidian (2015), "Confidence bands in
non-parametric errors-in-variables regression", JRSS-B 77, 149-169.

S. Calonico, M. D. Cattaneo and M. H. Farrell (2018), "On the effect of bias
estimation on coverage accuracy in nonparametric inference", JASA 113,
767-779.

Z. Li, T. Wang, M. Lopuhaä-Zwakenberg, N. Li and B. Skoric (2020),
"Estimating numerical distributions under local differential privacy",
SIGMOD (the Square Wave mechanism).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import special
from sklearn.base import clone

from .._grid_density._ems import ML_MAX_ITER, ML_TOL, ems_cell_probabilities
from .._grid_density._intervals import (
    GridEMSIntervalsMixin,
    MomentTilt,
    binomial_filter_matrix,
    smoothing_matrix,
)
from .._grid_density._moments import (
    additive_features,
    moment_covariance,
    noise_variance,
    square_wave_features,
)
from .._uncertainty import (
    ConfidenceIntervalMixin,
    IntervalRequest,
    PopulationIntervalMixin,
    bootstrap_replicates,
    interval_frame,
    normal_frame,
    normal_interval,
    percentile_interval,
    probabilities_of,
    values_of,
    z_value,
)
from ..exceptions import NotIdentifiableWarning
from ..utils._warnings import external_stacklevel
from ._common import LOCAL_LINEAR_TOLERANCE
from ._kernels import deconvolution_kernel
from ._smoothed_warning import warn_smoothed
from ._square_wave import _square_wave_terms
from ._transitions import _noise_law, additive_transition, square_wave_transition

__all__ = [
    "DeconvolutionDensityIntervalsMixin",
    "DeconvolutionRegressionIntervalsMixin",
    "PerturbedKDEIntervalsMixin",
    "SquareWaveIntervalsMixin",
    "integrated_kernel",
    "interval_kernel",
    "square_wave_moment_terms",
]

_BLOCK = 2**22  # kernel values per block of evaluation
_SQRT_2PI = np.sqrt(2.0 * np.pi)
# Quantile intervals: a coarse grid of the support, then a fine grid over
# the values not rejected at the 0.999 level.
_COARSE, _FINE, _WIDE_Z = 65, 129, 3.29
# Points listed by the warning on the fallback points of a regression.
_SHOWN_POINTS = 5


def interval_kernel(u: NDArray, ratio: float, kernel: str, rbc: bool) -> NDArray:
    """The deconvolution kernel ``K_hat(u)``, or its fourth-order version (``rbc``).

    ``rbc``: ``L(u) = (3 - u**2) phi(u) / 2 = 1.5 K(u) - 0.5 u**2 K(u)``
    (``K = phi``), deconvolved term by term: ``1.5 K_hat_0 - 0.5 L_hat_2``.
    """
    if not rbc:
        return deconvolution_kernel(u, ratio, kernel)
    return 1.5 * deconvolution_kernel(u, ratio, "gaussian") - 0.5 * (
        deconvolution_kernel(u, ratio, "gaussian", order=2)
    )


def integrated_kernel(v: NDArray, ratio: float, kernel: str, rbc: bool) -> NDArray:
    """``integral_{-inf}^v`` of :func:`interval_kernel` (closed forms).

    With ``r = ratio**2``: Gaussian ``Phi(v) + r v phi(v)``; the second
    moment kernel ``Phi(v) - v phi(v) - r (2 v - v**3) phi(v)``; Cauchy
    ``1/2 + arctan(v) / pi + 2 r v / (pi (1 + v**2)**2)``.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.ldp._intervals import integrated_kernel
    >>> np.round(
    ...     integrated_kernel(np.array([-40.0, 0.0, 40.0]), 1.0, "gaussian", True), 6
    ... )
    array([0. , 0.5, 1. ])
    """
    v = np.asarray(v, dtype=float)
    r = float(ratio) ** 2
    if kernel == "cauchy":
        if rbc:
            raise ValueError("the Cauchy kernel has no fourth-order version.")
        one = 1.0 + v * v
        return 0.5 + np.arctan(v) / np.pi + 2.0 * r * v / (np.pi * one * one)
    phi = np.exp(-0.5 * v * v) / _SQRT_2PI
    cdf = special.ndtr(v)
    order0 = cdf + r * v * phi
    if not rbc:
        return order0
    order2 = cdf - v * phi - r * (2.0 * v - v**3) * phi
    return 1.5 * order0 - 0.5 * order2


def _records(request: IntervalRequest, kept: Any) -> NDArray[np.float64]:
    Z = request.X if request.X is not None else kept
    if Z is None:
        if request.released:
            raise ValueError(request.missing_data_message("X"))
        raise ValueError(
            "This estimate keeps no records (streamed fit): pass X=, the "
            "released values it was fitted on."
        )
    Z = np.asarray(Z, dtype=float)
    if Z.ndim == 2:
        if Z.shape[1] != 1:
            raise ValueError(
                f"X must hold the one released feature; got {Z.shape[1]} columns."
            )
        Z = Z[:, 0]
    return Z


def _row_means(X: Any) -> NDArray[np.float64]:
    X = np.asarray(X, dtype=float)
    return X if X.ndim == 1 else X.mean(axis=1)


def _mean_frame(
    request: IntervalRequest, units: NDArray, transform, target: str, label: str
) -> pd.DataFrame:
    """Normal interval of a mean of independent units, mapped by ``transform``."""
    n = units.size
    if n < 2:
        raise ValueError("A mean interval needs at least two released rows.")
    mean = float(units.mean())
    se = float(units.std(ddof=1) / np.sqrt(n))
    estimate, scale = transform(mean), transform(1.0) - transform(0.0)
    se_out = abs(scale) * se
    return normal_frame("mean", None, estimate, se_out, request.level, label, target)


def _identity(v):
    return v


class DeconvolutionDensityIntervalsMixin(PopulationIntervalMixin):
    """``conf_int`` of :class:`DeconvolutionKernelDensity` (one feature).

    ``"mean"``: ``method="noisy-mean"`` (default; the mean of the noisy
    values and its exact variance) or ``"bootstrap"``.  ``"pdf"`` and
    ``"cdf"``: ``"rbc"`` (default with the Gaussian kernel; covers ``f(x)``
    and ``F(x)``) or ``"smoothed"`` (covers the estimate's expectation at
    its bandwidth, and warns so), ``"cdf"`` also ``"bootstrap"``.  ``"quantile"``: the
    CDF intervals inverted on a grid.  ``X`` is the released data; by
    default the records the estimate keeps.  Fitted with ``privatizer=``,
    the estimate uses its kept release (``released_``) and refuses ``X``.
    The centre (``estimate``) of an ``"rbc"`` interval is the
    bias-corrected estimate, and that of a ``"smoothed"`` one the
    (reflected, normalized) kernel estimate before its negative lobes are
    clipped and its moments corrected, both linear in the records (the
    bootstrap's is ``cdf()`` itself).  Where such a linear estimate leaves
    the parameter space (few records, much noise), the reported estimate
    and both bounds are cut to it, ``[0, 1]`` for a CDF and ``[0, inf)``
    for a density, so the estimate always lies in its interval.
    """

    def _ci_offers_kind(self, kind: str) -> bool:
        if getattr(self, "support_", None) is None:
            return False
        return kind in ("mean", "quantile", "cdf", "pdf")

    def _ci_resampling_template(self) -> Any:
        return clone(self).set_params(
            privatizer=None,
            noise_scale=np.asarray(self.noise_scale_, dtype=float),
            support=tuple(self.support_),
        )

    def _conf_int_mean(self, request: IntervalRequest) -> pd.DataFrame:
        method = request.choose(
            ("noisy-mean", "bootstrap"), "noisy-mean", type(self).__name__
        )
        if method == "bootstrap":
            return self._ci_bootstrap_population(request, None, lambda est: est.mean())
        z = _records(request, getattr(self, "_Z", None))
        return _mean_frame(
            request,
            z,
            _identity,
            "E[X] (values clipped into the declared bounds)",
            "noisy-mean",
        )

    def _ci_smoothing_method(
        self, request: IntervalRequest, kind: str, extra=()
    ) -> str:
        auto = "rbc" if self.kernel == "gaussian" else "smoothed"
        method = request.choose(("rbc", "smoothed", *extra), auto, type(self).__name__)
        if method == "rbc" and self.kernel != "gaussian":
            raise ValueError(
                "method='rbc' needs kernel='gaussian' (the Cauchy kernel has no "
                "moments to correct the bias with); use method='smoothed'."
            )
        if method == "smoothed":
            remedy = (
                "method='rbc' (the default with kernel='gaussian') covers the "
                "true value."
                if self.kernel == "gaussian"
                else "Refit with kernel='gaussian' and use method='rbc' (the "
                "default with that kernel), which covers the true value."
            )
            warn_smoothed(self, request, kind, remedy)
        return method

    def _ci_linear_ratio(
        self, z: NDArray, x: NDArray, what: str, rbc: bool
    ) -> tuple[NDArray, NDArray]:
        """Ratio estimate and its standard error at points ``x`` of the support."""
        h = float(self.bandwidth_)
        ratio = float(np.ravel(self.noise_scale_)[0]) / h
        a, b = self.support_
        reflect = self.boundary == "reflect"

        def cum(v):
            return integrated_kernel(v / h, ratio, self.kernel, rbc)

        T = (
            cum(2 * b - a - z) - cum(2 * a - b - z)
            if reflect
            else cum(b - z) - cum(a - z)
        )
        T_mean = float(T.mean())
        if not T_mean > 0:
            raise ValueError(
                "The deconvolution estimate has no positive mass on the support; "
                "no interval can be computed."
            )
        n = z.size
        est = np.empty(x.size)
        se = np.empty(x.size)
        step = max(1, _BLOCK // max(n, 1))
        for start in range(0, x.size, step):
            xs = x[start : start + step, None]
            if what == "pdf":

                def dens(v):
                    return interval_kernel(v / h, ratio, self.kernel, rbc) / h

                c = dens(xs - z)
                if reflect:
                    c = c + dens(2 * a - xs - z) + dens(2 * b - xs - z)
            elif reflect:
                c = (
                    cum(xs - z)
                    - cum(2 * a - xs - z)
                    + cum(2 * b - a - z)
                    - cum(2 * b - xs - z)
                )
            else:
                c = cum(xs - z) - cum(a - z)
            R = c.mean(axis=1) / T_mean
            psi = (c - R[:, None] * T[None, :]) / T_mean
            est[start : start + step] = R
            se[start : start + step] = psi.std(axis=1, ddof=1) / np.sqrt(n)
        return est, se

    def _ci_pointwise(self, request: IntervalRequest, what: str) -> pd.DataFrame:
        x = values_of(request.points)
        extra = ("bootstrap",) if what == "cdf" else ()
        method = self._ci_smoothing_method(request, what, extra)
        if method == "bootstrap":
            return self._ci_bootstrap_population(request, x, lambda est: est.cdf(x))
        z = _records(request, getattr(self, "_Z", None))
        a, b = self.support_
        inside = (x >= a) & (x <= b)
        est = np.where(x > b, 1.0, 0.0) if what == "cdf" else np.zeros(x.size)
        se = np.zeros(x.size)
        if inside.any():
            est[inside], se[inside] = request.memo(
                "ratio",
                lambda: self._ci_linear_ratio(z, x[inside], what, method == "rbc"),
            )
        lower, upper = normal_interval(est, se, request.level)
        # A CDF lies in [0, 1] and a density is non-negative, but the linear
        # estimate (bias-corrected for "rbc") can leave that range where it
        # is poorly determined: its interval is cut to the range, and so is
        # the reported estimate, which then stays inside its interval (the
        # cut is monotone).
        bounds = (0.0, 1.0) if what == "cdf" else (0.0, np.inf)
        est, lower, upper = (np.clip(v, *bounds) for v in (est, lower, upper))
        if method == "rbc":
            label = "rbc (fourth-order kernel, robust bias correction)"
            target = "f(x)" if what == "pdf" else "F(x)"
        else:
            label = "smoothed (deconvolution kernel)"
            target = (
                "the estimate's expectation: f smoothed by K_h"
                if what == "pdf"
                else "the estimate's expectation: F smoothed by K_h"
            )
        return interval_frame(
            what, x, est, lower, upper, request.level, label, target, se=se
        )

    def _conf_int_pdf(self, request: IntervalRequest) -> pd.DataFrame:
        return self._ci_pointwise(request, "pdf")

    def _conf_int_cdf(self, request: IntervalRequest) -> pd.DataFrame:
        return self._ci_pointwise(request, "cdf")

    def _conf_int_quantile(self, request: IntervalRequest) -> pd.DataFrame:
        q = probabilities_of(request.points)
        method = self._ci_smoothing_method(request, "quantile", ("bootstrap",))
        if method == "bootstrap":
            return self._ci_bootstrap_population(
                request, q, lambda est: est.quantile(q)
            )
        z = _records(request, getattr(self, "_Z", None))
        a, b = self.support_
        rbc = method == "rbc"
        coarse = np.linspace(a, b, _COARSE)
        Fc, sc = request.memo(
            "coarse", lambda: self._ci_linear_ratio(z, coarse, "cdf", rbc)
        )

        def fine(p):
            wide = np.flatnonzero(np.abs(Fc - p) <= _WIDE_Z * sc)
            if wide.size == 0:
                wide = np.flatnonzero(p <= Fc)[:1]
                wide = wide if wide.size else np.array([_COARSE - 1])
            lo = coarse[max(wide[0] - 1, 0)]
            hi = coarse[min(wide[-1] + 1, _COARSE - 1)]
            grid = np.linspace(lo, hi, _FINE)
            return (grid, *self._ci_linear_ratio(z, grid, "cdf", rbc))

        zq = z_value(request.level)
        estimate, lower, upper = np.empty(q.size), np.empty(q.size), np.empty(q.size)
        for j, p in enumerate(q):
            grid, F, se = request.memo(("fine", float(p)), lambda p=p: fine(p))
            above = np.flatnonzero(p <= F)
            i = int(above[0]) if above.size else grid.size - 1
            if i > 0 and F[i] > F[i - 1]:
                frac = (p - F[i - 1]) / (F[i] - F[i - 1])
                estimate[j] = grid[i - 1] + np.clip(frac, 0, 1) * (
                    grid[i] - grid[i - 1]
                )
            else:
                estimate[j] = grid[i]
            ok = np.flatnonzero(np.abs(F - p) <= zq * se)
            lower[j], upper[j] = (
                (grid[ok[0]], grid[ok[-1]]) if ok.size else (estimate[j],) * 2
            )
        return interval_frame(
            "quantile",
            q,
            estimate,
            lower,
            upper,
            request.level,
            "rbc, CDF test inversion" if rbc else "smoothed, CDF test inversion",
            "F^-1(q)" if rbc else "the quantile of F smoothed by K_h",
        )


def fieller_interval(
    parts: NDArray, level: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Fieller's interval for ratios ``N / D`` of weighted sums over records.

    ``parts`` has rows ``(N, D, sum K**2, sum K**2 y, sum K**2 y**2, n)``
    with ``N = sum K_i y_i`` and ``D = sum K_i`` over ``n`` records.  The
    interval holds the ``t`` with ``(N - t D)**2 <= z**2 V(t)``, where
    ``V(t) = sum_i K_i**2 (y_i - t)**2 - (N - t D)**2 / n`` is the sample
    variance of the ``n`` terms of ``N - t D`` times ``n``; that is
    ``(N - t D)**2 <= z'**2 sum_i K_i**2 (y_i - t)**2`` with
    ``z'**2 = z**2 / (1 + z**2 / n)``.  Bounded when ``D`` is significantly
    above 0 (``D > 0`` and ``D**2 > z'**2 sum K**2``), the whole line
    (``-inf, inf``) otherwise.  ``D`` estimates the covariate's density at
    the point (a kernel-smoothed one); a ``D`` significantly below 0 is the
    sign of a kernel whose bias dominates there (the fourth-order kernel of
    the bias correction takes negative values), where ``E[N] / E[D]`` is
    not the regression function: the bounded set Fieller's quadratic then
    gives is not a confidence set for it.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.ldp._intervals import fieller_interval
    >>> K, y = np.array([1.0, 1.0, 1.0, 1.0]), np.array([0.0, 1.0, 2.0, 3.0])
    >>> parts = np.array([[K @ y, K.sum(), K @ K, K**2 @ y, K**2 @ y**2, 4]])
    >>> lower, upper = fieller_interval(parts, 0.95)
    >>> round(float(lower[0]), 4), round(float(upper[0]), 4)  # equal weights: the mean
    (0.4043, 2.5957)
    >>> fieller_interval(np.array([[1.0, 0.1, 1.0, 1.0, 1.0, 50]]), 0.95)[0]
    array([-inf])
    >>> fieller_interval(np.array([[-4.0, -4.0, 1.0, 1.0, 1.0, 50]]), 0.95)[0]
    array([-inf])
    """
    parts = np.asarray(parts, dtype=float).reshape(-1, 6)
    N, D, S2, S2y, S2yy, n = parts.T
    z2 = z_value(level) ** 2
    z2 = z2 / (1.0 + z2 / n)
    a = D * D - z2 * S2
    b = N * D - z2 * S2y
    disc = np.maximum(b * b - a * (N * N - z2 * S2yy), 0.0)
    bounded = (a > 0) & (D > 0)
    with np.errstate(divide="ignore", invalid="ignore"):
        root = np.sqrt(disc)
        lower = np.where(bounded, (b - root) / a, -np.inf)
        upper = np.where(bounded, (b + root) / a, np.inf)
    return lower, upper


def _warn_fallback(est: Any, rows: NDArray, kind: str) -> None:
    """Warn that ``rows`` get NaN bounds: the fit falls back there."""
    shown = [
        "(" + ", ".join(f"{v:.6g}" for v in row) + ")" for row in rows[:_SHOWN_POINTS]
    ]
    more = rows.shape[0] - len(shown)
    listed = ", ".join(shown) + (f" and {more} more" if more > 0 else "")
    warnings.warn(
        f"{type(est).__name__}: the {kind} interval is NaN at {rows.shape[0]} "
        f"point(s), {listed}, where {kind} falls back to the training "
        f"{'class frequencies' if kind == 'predict_proba' else 'mean'} (see "
        "fallback_mask: no records near them, or kernel weights that cannot be "
        f"told from zero): the records do not identify "
        f"{'P(y | x)' if kind == 'predict_proba' else 'E[y | x]'} there. The "
        f"estimate column holds the fallback value that {kind} returns.",
        NotIdentifiableWarning,
        stacklevel=external_stacklevel(),
    )


class DeconvolutionRegressionIntervalsMixin(ConfidenceIntervalMixin):
    """``conf_int`` of the deconvolution kernel regressor and classifier.

    ``kind="predict"`` (regressor) or ``"predict_proba"`` (classifier, one
    row per point and class) at clean feature rows ``points``.
    ``method="rbc"`` (default for ``degree=0`` with the Gaussian kernel:
    local constant fit with the fourth-order kernel, covers the regression
    function), ``"smoothed"`` (the sandwich variance of the fitted estimate;
    covers the function smoothed at the bandwidth, and warns so) or ``"bootstrap"``
    (percentile bootstrap of the pairs, refitting at the fitted bandwidth).
    The local constant fits (``"rbc"``, and ``"smoothed"`` wherever the
    local linear fit is ill-posed) are ratios ``N / D`` of kernel sums whose
    denominator can be close to 0 where records are few: their interval is
    Fieller's, the values ``t`` with ``(N - t D)**2 <= z**2 V(t)``, where
    ``V(t) = sum_i K_i**2 (y_i - t)**2`` estimates the variance of
    ``N - t D`` over the records.  It is bounded when ``D > 0`` and ``D**2 >
    z**2 sum_i K_i**2`` (the denominator is significantly above 0 at the
    level) and the whole line otherwise ([0, 1] for probabilities): an
    honest "not estimable here" rather than the delta method's interval,
    which is too short when ``D`` is noisy.  With ``"rbc"``, where the
    fourth-order kernel's sum ``D`` is not above 0 the bias-corrected fit
    does not exist: ``estimate`` and ``se`` are NaN there and the interval
    is the whole line ([0, 1]).  Points where the fit falls back to the training mean
    (see ``fallback_mask``) get no interval: their ``estimate`` is the
    fallback value that ``predict`` (``predict_proba``) returns, their
    ``se``, ``lower`` and ``upper`` are NaN, and a
    :class:`~skprivate.exceptions.NotIdentifiableWarning` names them.  The
    records say nothing of the regression function there, and an interval
    around the training mean would cover ``E[y]``, not ``E[y | x]``.

    ``estimate`` is the estimate the interval is built around, on the scale
    of the quantity: with ``"smoothed"`` and ``"bootstrap"`` the learner's
    own, what ``predict`` (``predict_proba``: the raw fit clipped to
    ``[1e-6, 1]`` and renormalized over the classes) returns; with
    ``"rbc"`` the bias-corrected fit (for probabilities clipped and
    renormalized the same way), which differs from the prediction by the
    estimated bias.  ``se`` is that of the raw fit.  A probability's
    interval is cut to ``[0, 1]``, and every interval is widened to its
    estimate where it would miss it (the raw fit outside ``[0, 1]``, the
    renormalization, or a percentile interval that does not reach the
    estimate): a wider set covers at least as often, and an estimate
    always lies within its own interval.
    ``X`` and ``y`` are the
    noisy inputs and the responses; by default the records the learner
    keeps.  Fitted with ``privatizer=``, the learner uses the records it
    keeps (its release of the inputs and the responses) and refuses ``X``
    and ``y``.

    References
    ----------
    E. C. Fieller, "Some problems in interval estimation", Journal of the
    Royal Statistical Society B 16, 1954.
    """

    def _ci_offers_kind(self, kind: str) -> bool:
        classifier = hasattr(self, "classes_")
        return kind == ("predict_proba" if classifier else "predict")

    def _ci_resampling_template(self) -> Any:
        return clone(self).set_params(
            privatizer=None,
            noise_scale=np.asarray(self.noise_scale_, dtype=float),
            bandwidth=float(self.bandwidth_),
        )

    def _ci_kept_release(self) -> dict[str, Any] | None:
        # The learner keeps its records (the release of the inputs, and the
        # responses): the handlers read them when X and y are None.
        if getattr(self, "privatizer_", None) is None:
            return None
        return {"X": None, "y": None}

    def _ci_training(self, request: IntervalRequest) -> tuple[NDArray, NDArray, Any]:
        classifier = hasattr(self, "classes_")
        if request.X is None:
            Z = getattr(self, "_Z", None)
            W = getattr(self, "_W", None)
            if Z is None or W is None:
                raise ValueError("pass X= and y=, the data the learner was fitted on.")
            Y = np.asarray(W[:, 1:], dtype=float)
            labels = self.classes_[np.argmax(Y, axis=1)] if classifier else Y[:, 0]
            return np.asarray(Z, dtype=float), Y, labels
        Z = np.asarray(request.X, dtype=float)
        if Z.ndim == 1:
            Z = Z[:, None]
        labels = np.asarray(request.data("y"))
        if labels.shape[0] != Z.shape[0]:
            raise ValueError(
                f"X and y have inconsistent numbers of samples: {Z.shape[0]} and "
                f"{labels.shape[0]}."
            )
        if classifier:
            Y = (labels[:, None] == self.classes_[None, :]).astype(float)
        else:
            Y = labels.astype(float)[:, None]
        return Z, Y, labels

    def _ci_weights(self, x: NDArray, Z: NDArray, rbc: bool, orders=None) -> NDArray:
        h = float(self.bandwidth_)
        ratios = np.ravel(self.noise_scale_) / h
        U = (Z - x[None, :]) / h
        out = np.ones(Z.shape[0])
        for j in range(Z.shape[1]):
            k = 0 if orders is None else orders[j]
            if rbc:
                out = out * interval_kernel(U[:, j], ratios[j], self.kernel, True)
            else:
                out = out * deconvolution_kernel(U[:, j], ratios[j], self.kernel, k)
        return out

    def _ci_local_constant(self, x: NDArray, Z: NDArray, Y: NDArray, rbc: bool):
        """The ratio ``N / D``, its delta-method SE and Fieller's parts per column.

        The parts are ``(N, D, sum K**2, sum K**2 y, sum K**2 y**2, n)``.
        """
        K = self._ci_weights(x, Z, rbc)
        total = K.sum()
        K2 = K * K
        c = Y.shape[1]
        parts = np.column_stack(
            [
                K @ Y,
                np.full(c, total),
                np.full(c, K2.sum()),
                K2 @ Y,
                K2 @ (Y * Y),
                np.full(c, float(K.size)),
            ]
        )
        if not total > 0:
            return np.full(c, np.nan), np.full(c, np.nan), parts
        m = (K @ Y) / total
        var = ((K[:, None] * (Y - m[None, :])) ** 2).sum(axis=0) / total**2
        return m, np.sqrt(var), parts

    def _ci_local_linear(self, x: NDArray, Z: NDArray, Y: NDArray):
        """Local linear fit and its sandwich standard error, or None if ill-posed."""

        q = Z.shape[1]
        unit = [tuple(int(j == a) for j in range(q)) for a in range(q)]
        first = [self._ci_weights(x, Z, False, o) for o in [(0,) * q, *unit]]
        M = np.empty((q + 1, q + 1))
        L = np.empty((Z.shape[0], q + 1, q + 1))
        for a in range(q + 1):
            for b in range(a, q + 1):
                if a == 0:
                    w = first[b]
                elif a == b:
                    w = self._ci_weights(x, Z, False, tuple(2 * e for e in unit[a - 1]))
                else:
                    w = self._ci_weights(
                        x,
                        Z,
                        False,
                        tuple(i + j for i, j in zip(unit[a - 1], unit[b - 1])),
                    )
                L[:, a, b] = L[:, b, a] = w
                M[a, b] = M[b, a] = w.sum()
        diag = np.diag(M)
        if np.any(diag <= 0):
            return None
        scaled = M / np.sqrt(np.outer(diag, diag))
        if np.linalg.eigvalsh(scaled)[0] <= LOCAL_LINEAR_TOLERANCE:
            return None
        F = np.column_stack(first)  # (n, q + 1): L_{e_a}
        t = F.T @ Y  # (q + 1, c)
        beta = np.linalg.solve(M, t)
        Minv = np.linalg.inv(M)
        m = beta[0]
        se = np.empty(Y.shape[1])
        for c in range(Y.shape[1]):
            psi = F * Y[:, c : c + 1] - np.einsum("nab,b->na", L, beta[:, c])
            V = Minv @ (psi.T @ psi) @ Minv.T
            se[c] = np.sqrt(max(V[0, 0], 0.0))
        return m, se

    def _ci_prediction_intervals(self, request: IntervalRequest, proba: bool):
        if request.points is None:
            raise ValueError("points= is required: the clean feature rows.")
        rows = np.asarray(
            request.points.to_numpy(dtype=float)
            if hasattr(request.points, "iloc")
            else request.points,
            dtype=float,
        )
        if rows.ndim == 1:
            rows = rows[:, None]
        degree = getattr(self, "degree_", self.degree)
        rbc_ok = degree == 0 and self.kernel == "gaussian"
        method = request.choose(
            ("rbc", "smoothed", "bootstrap"),
            "rbc" if rbc_ok else "smoothed",
            type(self).__name__,
        )
        if method == "rbc" and not rbc_ok:
            raise ValueError(
                "method='rbc' needs degree=0 and kernel='gaussian'; use "
                "method='smoothed' or 'bootstrap'."
            )
        if method == "smoothed":
            remedy = (
                "method='rbc' (the default with degree=0 and kernel='gaussian') "
                "covers the true value."
                if rbc_ok
                else "Refit with degree=0 and kernel='gaussian' and use "
                "method='rbc' (the default there), which covers the true value."
            )
            kind = "predict_proba" if proba else "predict"
            warn_smoothed(self, request, kind, remedy)
        # The points as given (a DataFrame keeps its feature names) for the
        # learner's own predict; the replicates, fitted on arrays, take rows.
        given_frame = isinstance(request.points, pd.DataFrame)

        def query(est):
            named = given_frame and hasattr(est, "feature_names_in_")
            return request.points if named else rows

        def public(est):
            if proba:
                return est.predict_proba(query(est))
            return est.predict(query(est))[:, None]

        fallback = np.asarray(self.fallback_mask(query(self)), dtype=bool)
        # what predict (predict_proba) returns, one column per class
        predicted = np.asarray(public(self), dtype=float)
        Z, Y, labels = self._ci_training(request)
        c = Y.shape[1]
        if method == "bootstrap":

            def stat(est):
                return public(est).T.ravel()

            reps = request.memo(
                "bootstrap",
                lambda: bootstrap_replicates(
                    self._ci_resampling_template(),
                    Z,
                    stat,
                    y=labels,
                    n_resamples=request.resamples(),
                    random_state=request.random_state,
                    n_jobs=request.n_jobs,
                ),
            )
            lower, upper = percentile_interval(reps, request.level)
            lower, upper = lower.reshape(c, -1).T, upper.reshape(c, -1).T
            est = predicted.copy()
            se = np.nanstd(reps, axis=0, ddof=1).reshape(c, -1).T
            label = "bootstrap-percentile (pairs, bandwidth fixed)"
            target = "the fit's expectation at its bandwidth"
        else:

            def fits():
                est = np.empty((rows.shape[0], c))
                se = np.empty((rows.shape[0], c))
                parts = np.full((rows.shape[0], c, 6), np.nan)
                for i, x in enumerate(rows):
                    fit = None
                    if method == "smoothed" and degree == 1:
                        fit = self._ci_local_linear(x, Z, Y)
                    if fit is None:
                        est[i], se[i], parts[i] = self._ci_local_constant(
                            x, Z, Y, method == "rbc"
                        )
                    else:
                        est[i], se[i] = fit
                return est, se, parts

            est, se, parts = (a.copy() for a in request.memo("fits", fits))
            lower, upper = normal_interval(est, se, request.level)
            ratio = ~np.isnan(parts[..., 0])
            lower[ratio], upper[ratio] = fieller_interval(parts[ratio], request.level)
            if method == "rbc":
                label = "rbc (fourth-order kernel, sandwich)"
                target = "E[y | x]"
                if proba:
                    # the bias-corrected class vector, made a probability
                    # vector as predict_proba makes the fit's own
                    est = self._clip(est)
            else:
                label = "smoothed (sandwich)"
                target = "E[y | x] smoothed at the bandwidth"
                # the interval is built around the fit that predict
                # (predict_proba) returns: report that, clipped and
                # renormalized for probabilities, as computed there
                est = predicted.copy()
        if fallback.any():
            # predict returns the training mean there: the estimate is what
            # it returns, and the bounds NaN, since the data say nothing of
            # the regression function at these points
            est[fallback] = predicted[fallback]
            se[fallback] = np.nan
            lower[fallback], upper[fallback] = np.nan, np.nan
            if not request.cache.get("fallback-warned"):  # once over the levels
                request.cache["fallback-warned"] = True
                kind = "predict_proba" if proba else "predict"
                _warn_fallback(self, rows[fallback], kind)
        if proba:
            lower, upper = np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)
        # Every interval holds its estimate: the confidence set of a
        # probability is cut to [0, 1] while a raw fit can leave it, the
        # clip and renormalization of predict_proba move the estimate off
        # the raw fit, and a percentile interval can miss the estimate; the
        # interval is widened to it there (a larger set covers at least as
        # often).  NaN bounds (no interval) stay NaN.
        known = ~np.isnan(est)
        lower = np.where(known, np.minimum(lower, est), lower)
        upper = np.where(known, np.maximum(upper, est), upper)
        frames = []
        for k in range(c):
            quantity = f"P(y={self.classes_[k]})" if proba else "predict"
            frames.append(
                interval_frame(
                    quantity,
                    rows,
                    est[:, k],
                    lower[:, k],
                    upper[:, k],
                    request.level,
                    label,
                    target,
                    se=se[:, k],
                )
            )
        return pd.concat(frames, ignore_index=True)

    def _conf_int_predict(self, request: IntervalRequest) -> pd.DataFrame:
        return self._ci_prediction_intervals(request, proba=False)

    def _conf_int_predict_proba(self, request: IntervalRequest) -> pd.DataFrame:
        return self._ci_prediction_intervals(request, proba=True)


_ADDITIVE = ("LaplaceLDP", "GeneralizedGaussianLDP", "FlippedHuberLDP")


class PerturbedKDEIntervalsMixin(GridEMSIntervalsMixin):
    """``conf_int`` of :class:`PerturbedKDEEstimator`.

    ``"mean"``: ``method="noisy-mean"`` (default when the releases come
    from a known additive mechanism), ``"rbc"``, ``"smoothed"`` or
    ``"bootstrap"``; ``"cdf"`` and ``"quantile"``: ``"rbc"`` (bias-corrected,
    covers the true value; the default when ``method_ == "ml"``),
    ``"smoothed"`` (covers the EMS-smoothed target; ``"linearized"`` is its
    former name) or ``"bootstrap"`` (``method_ == "paper"`` only: an
    ``"ml"`` refit needs the noise law, which only a privatizer gives).
    ``X`` is the released values, one row per respondent; fitted with
    ``privatizer=``, the estimator uses its kept release (``released_``)
    and refuses ``X``.
    """

    def _ci_uses_ems(self) -> bool:
        return self.method_ == "ml"

    def _ci_ems_system(self, X: NDArray):
        if self.method_ != "ml":
            return None

        law = _noise_law(self, self.privatizer_)
        A, out_edges = additive_transition(self.edges_, law)
        k = out_edges.size - 1
        bins = np.clip(np.searchsorted(out_edges, X, side="right") - 1, 0, k - 1)
        S = smoothing_matrix(self.edges_.size - 1, self.smoothing_width_)
        return A, bins, S

    def _ci_moment_tilt(self, X: NDArray, A: NDArray, unit_bins: NDArray, S: Any):
        # The fit tilts the EMS fixed point to the releases' mean and mean
        # square (E[z | x] = x, E[z**2 | x] = x**2 + Var(noise)).
        if not getattr(self, "moment_correction", False):
            return None
        k = A.shape[0]
        counts = np.bincount(np.ravel(unit_bins), minlength=k).astype(float)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            untilted, _ = ems_cell_probabilities(
                A, counts, self.smoothing_width_, max_iter=ML_MAX_ITER, tol=ML_TOL
            )
        values = X.ravel()
        mean, square = values.mean(), np.mean(values**2)
        law = _noise_law(self, self.privatizer_)
        return MomentTilt(
            features=additive_features(self.edges_, noise_variance(law)),
            unit_moments=np.column_stack([X.mean(axis=1), (X**2).mean(axis=1)]),
            untilted=untilted,
            moment_cov=moment_covariance(
                values.size, mean, square, np.mean(values**3), np.mean(values**4)
            ),
        )

    def _ci_resampling_template(self) -> Any:
        if self.method_ == "ml":
            raise ValueError(
                "An 'ml' refit needs the noise law, which only a privatizer gives "
                "(and a privatizer would release the data again): use "
                "method='rbc' (or 'smoothed', linearized at the fit)."
            )
        return clone(self).set_params(
            privatizer=None, bounds=tuple(self.bounds_), method="paper"
        )

    def _conf_int_mean(self, request: IntervalRequest) -> pd.DataFrame:
        # A subclass counts (the CLI describes released data by one).
        additive = any(
            cls.__name__ in _ADDITIVE for cls in type(self.privatizer_).__mro__
        )
        auto = (
            "noisy-mean"
            if additive
            else ("rbc" if self._ci_uses_ems() else "bootstrap")
        )
        method = request.choose(
            ("noisy-mean", "rbc", "smoothed", "linearized", "bootstrap"),
            auto,
            type(self).__name__,
        )
        if method == "bootstrap":
            return self._ci_bootstrap_population(request, None, lambda est: est.mean())
        if method in ("rbc", "smoothed", "linearized"):
            return self._ci_linearized_mean(request, method)
        if not additive:
            raise ValueError(
                "method='noisy-mean' needs releases of a known additive mechanism "
                f"({', '.join(_ADDITIVE)}) given as privatizer."
            )
        return _mean_frame(
            request,
            _row_means(request.data("X")),
            _identity,
            "E[X] (values clipped into the declared bounds)",
            "noisy-mean",
        )


def square_wave_moment_terms(epsilon: float) -> tuple[float, float]:
    """Slope ``s`` and intercept ``c`` of ``E[v' | v] = s v + c`` (unit domain).

    Examples
    --------
    >>> from skprivate.ldp._intervals import square_wave_moment_terms
    >>> s, c = square_wave_moment_terms(1.0)
    >>> round(s, 4), round(c, 4)
    (0.3679, 0.3161)
    """

    w, near_odds = _square_wave_terms(float(epsilon))
    p = near_odds / (1.0 + near_odds)
    return p * (1.0 + 2.0 * w) - 2.0 * w, (1.0 - p) * (0.5 + w)


class SquareWaveIntervalsMixin(GridEMSIntervalsMixin):
    """``conf_int`` of :class:`SquareWaveEMSEstimator`.

    ``"mean"``: ``method="moment"`` (default: the unbiased moment estimator
    of the Square Wave reports and its standard error), ``"rbc"``,
    ``"smoothed"`` or ``"bootstrap"``; ``"cdf"`` and ``"quantile"``:
    ``"rbc"`` (default: bias-corrected, covers the true value),
    ``"smoothed"`` (covers the EMS-smoothed target; ``"linearized"`` is its
    former name) or ``"bootstrap"``.  The linearization follows the fit:
    its EMS (the binomial filter stopped by ``tol``, or the Gaussian
    smoothing of ``smoothing="auto"``) and its moment tilt.  ``X`` is the
    reports, one row per respondent; fitted with ``privatizer=``, the
    estimator uses its kept release (``released_``) and refuses ``X``.
    """

    def _ci_ems_system(self, X: NDArray):

        m = self.edges_.size - 1
        a, b = self.bounds_
        A, out_edges = square_wave_transition(
            np.linspace(0.0, 1.0, m + 1), self.epsilon_
        )
        v = (X - a) / (b - a)
        bins = np.clip(
            np.searchsorted(out_edges, v, side="right") - 1, 0, A.shape[0] - 1
        )
        if self.smoothing_width_ is not None:
            S = smoothing_matrix(m, self.smoothing_width_)
        elif self.smoothing:
            S = binomial_filter_matrix(m)
        else:
            S = None
        return A, bins, S

    def _ci_ems_refit(
        self, A: NDArray, frequencies: NDArray, start: NDArray | None
    ) -> NDArray[np.float64]:
        if self.smoothing_width_ is not None:
            return super()._ci_ems_refit(A, frequencies, start)
        # the fit's own EMS: from the uniform start, stopped by ``tol``
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return self._ems(A, np.asarray(frequencies, dtype=float))[0]

    def _ci_moment_tilt(self, X: NDArray, A: NDArray, unit_bins: NDArray, S: Any):
        # The fit tilts its EMS estimate to the reports' mean and mean
        # square on the unit domain.
        if not getattr(self, "moment_correction", False):
            return None
        k = A.shape[0]
        counts = np.bincount(np.ravel(unit_bins), minlength=k).astype(float)
        untilted = self._ci_ems_refit(A, counts / counts.sum(), None)
        a, b = self.bounds_
        V = (np.asarray(X, dtype=float) - a) / (b - a)
        v = V.ravel()
        m = self.edges_.size - 1
        return MomentTilt(
            features=square_wave_features(
                np.linspace(0.0, 1.0, m + 1), *_square_wave_terms(self.epsilon_)
            ),
            unit_moments=np.column_stack([V.mean(axis=1), (V**2).mean(axis=1)]),
            untilted=untilted,
            moment_cov=moment_covariance(
                v.size, v.mean(), np.mean(v**2), np.mean(v**3), np.mean(v**4)
            ),
        )

    def _ci_resampling_template(self) -> Any:
        return clone(self).set_params(
            privatizer=None, epsilon=float(self.epsilon_), bounds=tuple(self.bounds_)
        )

    def _conf_int_mean(self, request: IntervalRequest) -> pd.DataFrame:
        method = request.choose(
            ("moment", "rbc", "smoothed", "linearized", "bootstrap"),
            "moment",
            type(self).__name__,
        )
        if method == "bootstrap":
            return self._ci_bootstrap_population(request, None, lambda est: est.mean())
        if method in ("rbc", "smoothed", "linearized"):
            return self._ci_linearized_mean(request, method)
        a, b = self.bounds_
        s, c = square_wave_moment_terms(self.epsilon_)
        v = (_row_means(request.data("X")) - a) / (b - a)
        return _mean_frame(
            request,
            v,
            lambda u: a + (b - a) * (u - c) / s,
            "E[X] (values clipped into the declared bounds)",
            "moment (unbiased)",
        )
