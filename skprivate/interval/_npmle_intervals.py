"""Confidence intervals of :class:`IntervalNPMLE`.

:class:`NPMLEIntervalsMixin` adds the kinds ``"mean"``, ``"quantile"`` and
``"cdf"`` of ``conf_int`` (see :mod:`skprivate._uncertainty`); it reads the
fitted attributes and the interval data passed as ``X``, and resamples by
refitting clones (batched in :mod:`skprivate.interval._npmle_resampling`).

NPMLE at a point.  For Case-I (current status) data the NPMLE of ``F(t)``
converges at the rate ``n**(-1/3)`` to a non-normal limit (Groeneboom &
Wellner, 1992), and the naive bootstrap is inconsistent there (Kosorok,
2008; Sen, Banerjee & Woodroofe, 2010).  ``F(t)`` is bounded instead by
inverting the likelihood-ratio test of ``F(t) = theta`` (Banerjee &
Wellner, 2001): ``2 log lambda`` converges, for every ``F`` and anchor law
with positive densities at ``t``, to the universal law ``D``, whose
quantiles are 1.602 (0.90), 2.269 (0.95) and 3.836 (0.99) (their Table 2).
The constrained NPMLE is the isotonic regression of the rows left of ``t``
capped at ``theta`` next to that of the rows right of ``t`` floored at
``theta``, so the likelihood ratio costs two isotonic regressions per
``t``; it is convex in ``theta`` (the profile of a concave likelihood over a
linear constraint), and the set ``{theta : 2 log lambda <= d}`` is an
interval found by bisection.  A quantile interval inverts the same test over
``t`` at ``theta = q``.  For other interval data (Case II, m anchors, mixed
exact values) and other levels, the subsampling interval of Politis, Romano
& Wolf (1999) with the rate ``n**(1/3)`` (the separated case; Groeneboom,
1996) is used: subsamples of ``b = n**(2/3)`` rows drawn without
replacement, which is consistent whenever the estimator has a limit law at
a known rate (the m-out-of-n bootstrap of Sen, Banerjee & Woodroofe, 2010,
is its with-replacement counterpart).

NPMLE mean.  Smooth functionals ``integral phi dF`` of the NPMLE are
root-n consistent and asymptotically normal (Huang & Wellner, 1995, Case I;
Geskus & Groeneboom, 1999, Case II) with, for Case I, the variance
``n**-1 integral phi'(u)**2 F(u) (1 - F(u)) / g(u) du`` (``g`` the anchor
density; the variance Theorem 6 of Ding & Ding minimizes).  The
``"influence"`` method estimates it by ``n**-2 sum_i F_hat(u_i) (1 -
F_hat(u_i)) / g_hat(u_i)**2`` (``phi' = 1``; ``g_hat`` a Gaussian kernel
estimate of the public anchors).  For any interval data,
``"jackknife"`` (the default beyond Case I) is the delete-a-group
jackknife: the rows are split at random into ``G = 20`` groups (``n_resamples``
sets ``G``), the NPMLE is refitted without each group, and the interval is
``mean -/+ t_{G-1} se`` with the jackknife standard error of the
pseudo-values.  The NPMLE mean is asymptotically linear, so for fixed ``G``
the pseudo-values are asymptotically independent normal group means of its
influence function and the studentized mean follows ``t_{G-1}`` (the
random-groups argument; Wolter, 2007, ch. 2 and 4).  Its coverage was
measured at 0.95-0.96 for 100 to 2,000 rows of Case II data (0.954 for
500 rows of Case I data, where it is offered too), where the
percentile bootstrap of 200 replicates (``"bootstrap"``, consistent for
smooth functionals of the current status NPMLE: Groeneboom & Hendrickx,
2017) covered 0.928 at 500 rows: its standard error fell a few per cent
short of the sampling spread and 200 replicates leave about five in each
tail.  The jackknife costs ``G`` refits where the bootstrap costs 200.

References
----------
P. Groeneboom and J. A. Wellner (1992), Information Bounds and
Nonparametric Maximum Likelihood Estimation, Birkhäuser.

P. Groeneboom (1996), Lectures on inverse problems, Springer LNM 1648.

J. Huang and J. A. Wellner (1995), "Asymptotic normality of the NPMLE of
linear functionals for interval censored data, case 1", Statistica
Neerlandica 49, 153-163.

R. B. Geskus and P. Groeneboom (1999), "Asymptotically optimal estimation
of smooth functionals for interval censoring, case 2", Annals of Statistics
27, 627-674.

M. Banerjee and J. A. Wellner (2001), "Likelihood ratio tests for monotone
functions", Annals of Statistics 29, 1699-1731.

D. N. Politis, J. P. Romano and M. Wolf (1999), Subsampling, Springer.

M. R. Kosorok (2008), "Bootstrapping the Grenander estimator", IMS
Collections 1, 282-292.

B. Sen, M. Banerjee and M. Woodroofe (2010), "Inconsistency of bootstrap:
the Grenander estimator", Annals of Statistics 38, 1953-1977.

K. M. Wolter (2007), Introduction to Variance Estimation, 2nd ed.,
Springer.

F. M. T. A. Busing, E. Meijer and R. van der Leeden (1999), "Delete-m
jackknife for unequal m", Statistics and Computing 9, 3-8.

P. Groeneboom and K. Hendrickx (2017), "The nonparametric bootstrap for the
current status model", Electronic Journal of Statistics 11, 3446-3484.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats
from scipy.special import xlogy
from sklearn.base import clone
from sklearn.isotonic import isotonic_regression

from .._uncertainty import (
    IntervalRequest,
    PopulationIntervalMixin,
    bootstrap_replicates,
    group_jackknife_indices,
    group_jackknife_interval,
    interval_frame,
    normal_frame,
    probabilities_of,
    replicate_statistics,
    subsampling_interval,
    values_of,
)
from ..utils.validation import check_interval_array
from ._identified import mean_interval, widen_pointwise
from ._resampled_statistics import CdfAt, Mean, QuantileAt

__all__ = ["LR_CRITICAL_VALUES", "NPMLEIntervalsMixin"]

#: Quantiles of Banerjee & Wellner's limit law D of the likelihood-ratio
#: statistic for ``F(t)`` with current status data (their Table 2).
LR_CRITICAL_VALUES = {0.90: 1.602, 0.95: 2.269, 0.99: 3.836}

_CUBE_ROOT = 1.0 / 3.0


# Subsamples of the NPMLE's pointwise subsampling interval: its endpoints are
# order statistics of the rescaled subsample spread, so it needs more draws
# than a percentile bootstrap of a smooth functional.
NPMLE_SUBSAMPLES = 400
# Groups of the NPMLE mean's delete-a-group jackknife: a refit each.  The
# interval's expected length over that of a known standard error is
# t_{G-1, 0.975} c4(G) / 1.96 (c4 the bias factor of a standard deviation of
# G - 1 degrees of freedom): 1.12 for 10 groups, 1.05 for 20, 1.02 for 40.
NPMLE_JACKKNIFE_GROUPS = 20


def _lr_critical(level: float) -> float | None:
    for key, value in LR_CRITICAL_VALUES.items():
        if abs(level - key) < 1e-9:
            return value
    return None


def _informative(X: Any) -> NDArray[np.float64]:
    return _informative_rows(X, None)[0]


def _informative_rows(
    X: Any, weights: NDArray | None
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """The rows of ``X`` other than ``(-inf, inf)``, with their weights."""
    Z = check_interval_array(X, name="X")
    keep = ~(np.isneginf(Z[:, 0]) & np.isposinf(Z[:, 1]))
    if not keep.any():
        raise ValueError("X carries no information: every row is (-inf, inf).")
    if keep.all():
        return Z, weights
    return Z[keep], None if weights is None else weights[keep]


def _is_case_one(Z: NDArray) -> bool:
    return bool(np.all(np.isneginf(Z[:, 0]) ^ np.isposinf(Z[:, 1])))


class _CurrentStatus:
    """Case-I rows grouped by anchor, with the likelihood ratio for ``F(t)``."""

    def __init__(self, Z: NDArray) -> None:
        delta = np.isneginf(Z[:, 0])
        u = np.where(delta, Z[:, 1], Z[:, 0])
        self.u = u
        self.anchors, inverse = np.unique(u, return_inverse=True)
        self.weight = np.bincount(inverse, minlength=self.anchors.size).astype(float)
        self.hits = np.bincount(
            inverse, weights=delta * 1.0, minlength=self.anchors.size
        )
        self.F = self._iso(slice(None))
        self.max_loglik = self._loglik(self.F)

    def _iso(self, part: slice) -> NDArray[np.float64]:
        w, h = self.weight[part], self.hits[part]
        if w.size == 0:
            return np.zeros(0)
        return np.clip(isotonic_regression(h / w, sample_weight=w), 0.0, 1.0)

    def _loglik(self, F: NDArray) -> float:
        return float(
            np.sum(xlogy(self.hits, F) + xlogy(self.weight - self.hits, 1.0 - F))
        )

    def split(self, s: int) -> tuple[NDArray, NDArray]:
        """Unconstrained isotonic fits of the first ``s`` anchors and the rest."""
        return self._iso(slice(0, s)), self._iso(slice(s, None))

    def ratio(self, parts: tuple[NDArray, NDArray], theta: float) -> float:
        """``2 log lambda`` of ``F = theta`` between the two parts."""
        left, right = parts
        F0 = np.concatenate([np.minimum(left, theta), np.maximum(right, theta)])
        return 2.0 * (self.max_loglik - self._loglik(F0))

    def n_left(self, t: float) -> int:
        return int(np.searchsorted(self.anchors, t, side="right"))

    def value(self, t: float) -> float:
        s = self.n_left(t)
        return float(self.F[s - 1]) if s > 0 else 0.0

    def cdf_interval(self, t: float, d: float) -> tuple[float, float, float]:
        s = self.n_left(t)
        parts = self.split(s)
        est = float(self.F[s - 1]) if s > 0 else 0.0

        def solve(lo: float, hi: float, inside_at_lo: bool) -> float:
            # LR - d changes sign once on [lo, hi] (LR is convex in theta).
            for _ in range(60):
                mid = 0.5 * (lo + hi)
                inside = self.ratio(parts, mid) <= d
                if inside == inside_at_lo:
                    lo = mid
                else:
                    hi = mid
            return 0.5 * (lo + hi)

        lower = 0.0 if self.ratio(parts, 0.0) <= d else solve(est, 0.0, True)
        upper = 1.0 if self.ratio(parts, 1.0) <= d else solve(est, 1.0, True)
        return est, lower, upper

    def quantile_interval(self, q: float, d: float) -> tuple[float, float]:
        """Anchors between which ``F(t) = q`` is not rejected (test inversion).

        ``2 log lambda`` is constant for ``t`` between consecutive anchors;
        ``s`` counts the anchors at or left of ``t``.
        """
        K = self.anchors.size
        s_hat = int(np.searchsorted(self.F, q, side="left"))

        def accepted(s: int) -> bool:
            return self.ratio(self.split(s), q) <= d

        lo, hi = 0, s_hat  # smallest accepted s in [0, s_hat]
        while lo < hi:
            mid = (lo + hi) // 2
            if accepted(mid):
                hi = mid
            else:
                lo = mid + 1
        s_min = lo
        lo, hi = s_hat, K  # largest accepted s in [s_hat, K]
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if accepted(mid):
                lo = mid
            else:
                hi = mid - 1
        s_max = lo
        lower = -np.inf if s_min == 0 else float(self.anchors[s_min - 1])
        upper = np.inf if s_max >= K else float(self.anchors[s_max])
        return lower, upper


def _kde_at(values: NDArray, points: NDArray) -> NDArray[np.float64]:
    """Gaussian kernel density of ``values`` at ``points`` (Silverman's bandwidth).

    Linearly binned on 4,096 nodes and convolved, so it costs ``O(n)``.
    """
    from scipy.signal import fftconvolve  # imported late: 0.5 s

    n = values.size
    spread = min(np.std(values), stats.iqr(values) / 1.349) or np.std(values) or 1.0
    h = 0.9 * spread * n ** (-0.2)
    lo, hi = (
        min(values.min(), points.min()) - 4 * h,
        max(values.max(), points.max()) + 4 * h,
    )
    m = 4096
    step = (hi - lo) / (m - 1)
    pos = (values - lo) / step
    left = np.clip(np.floor(pos).astype(np.intp), 0, m - 2)
    frac = pos - left
    counts = np.bincount(left, 1.0 - frac, minlength=m) + np.bincount(
        left + 1, frac, minlength=m
    )
    half = int(np.ceil(5 * h / step))
    offsets = np.arange(-half, half + 1) * step
    kernel = np.exp(-0.5 * (offsets / h) ** 2) / (h * np.sqrt(2 * np.pi))
    density = fftconvolve(counts, kernel, mode="same") / n
    grid = lo + step * np.arange(m)
    return np.maximum(np.interp(points, grid, density), 1e-300)


class NPMLEIntervalsMixin(PopulationIntervalMixin):
    """``conf_int`` of :class:`IntervalNPMLE`: mean, quantiles and the CDF.

    ``"cdf"`` and ``"quantile"``: ``method="likelihood-ratio"`` (Case-I data,
    levels 0.90, 0.95 and 0.99) or ``"subsampling"`` (any interval data,
    rate ``n**(1/3)``); ``"auto"`` takes the first when it applies.
    ``"mean"``: ``"identified_set"`` (the Imbens-Manski interval of the
    set the declared ``bounds`` leave the mean in; see
    :mod:`skprivate.interval._identified`), ``"influence"`` (Case-I data,
    assumes the anchors span the values), ``"jackknife"`` (any; the
    delete-a-group jackknife with ``n_resamples`` groups, 20 by default) or
    ``"bootstrap"`` (any; percentile, ``n_resamples`` replicates);
    ``"auto"`` takes the first when ``bounds`` are declared, else the
    second when it applies, else the third.  With ``bounds``, the quantile and CDF
    intervals also reach the bounds over the unsupported region.  The
    density of an NPMLE is not estimated at any known rate (the estimate is
    discrete), so there is no ``"pdf"``.  ``X`` is the interval data given
    to ``fit`` (refused otherwise, after an in-memory fit).

    A fit with ``sample_weight``: the rows stay the resampling units, each
    carrying its weight into every refit (``"jackknife"``, whose groups and
    their sizes count rows, ``"bootstrap"`` and ``"subsampling"``), so the
    weights are treated as sampling weights, not as counts of identical
    respondents; rows of weight zero take no part.  ``"identified_set"``
    takes the weighted fit's set and bootstraps its ends the same way.
    ``"auto"`` then takes ``"identified_set"`` (with ``bounds``) or
    ``"jackknife"`` for the mean and ``"subsampling"`` for the CDF and
    quantiles.  ``"likelihood-ratio"`` (calibrated for the unweighted
    likelihood) and ``"influence"`` (an unweighted variance) refuse a
    weighted fit.  Weights equal on every row of positive weight are the
    unweighted fit of those rows.
    """

    def _ci_offers_kind(self, kind: str) -> bool:
        return kind in ("mean", "quantile", "cdf")

    def _ci_interval_data(self, request: IntervalRequest) -> NDArray[np.float64]:
        return self._ci_weighted_interval_data(request)[0]

    def _ci_weighted_interval_data(
        self, request: IntervalRequest
    ) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
        """The informative rows of ``X`` and their weights (``None``: unweighted)."""
        return _informative_rows(request.data("X"), request.fit_weights())

    def _ci_refuse_weighted(self, method: str, reason: str, instead: str) -> None:
        raise ValueError(
            f"{type(self).__name__} was fitted with sample_weight, and "
            f"method={method!r} {reason}: intervals of a weighted fit are not "
            f"offered for that method. Use {instead} (refits of the rows "
            "with their weights), or fit without sample_weight."
        )

    def _ci_point_subsampling(
        self,
        request: IntervalRequest,
        Z: NDArray,
        points: NDArray,
        statistic,
        estimate: NDArray,
        weights: NDArray | None = None,
    ) -> tuple[NDArray, NDArray]:
        n = Z.shape[0]
        b = max(20, int(np.ceil(n ** (2.0 / 3.0))))
        reps = request.memo(
            "subsampling",
            lambda: bootstrap_replicates(
                clone(self),
                Z,
                statistic,
                n_resamples=request.resamples(NPMLE_SUBSAMPLES),
                random_state=request.random_state,
                n_jobs=request.n_jobs,
                size=min(b, n - 1),
                replace=False,
                sample_weight=weights,
            ),
        )
        return subsampling_interval(
            estimate, reps, n, min(b, n - 1), _CUBE_ROOT, request.level
        )

    def _ci_pointwise(self, request: IntervalRequest, quantity: str) -> pd.DataFrame:
        Z, weights = self._ci_weighted_interval_data(request)
        d = _lr_critical(request.level)
        case_one = _is_case_one(Z)
        allowed = ("likelihood-ratio", "subsampling")
        method = request.choose(
            allowed,
            "likelihood-ratio"
            if case_one and d is not None and weights is None
            else "subsampling",
            type(self).__name__,
        )
        if method == "likelihood-ratio" and weights is not None:
            self._ci_refuse_weighted(
                method,
                "calibrates the unweighted likelihood ratio by its limit law "
                "(Banerjee-Wellner), which a weighted likelihood does not follow",
                "method='subsampling'",
            )
        if method == "likelihood-ratio" and not case_one:
            raise ValueError(
                "method='likelihood-ratio' needs Case-I data (every row (-inf, u] "
                "or (u, inf)); use method='subsampling' for other interval data."
            )
        if method == "likelihood-ratio" and d is None:
            raise ValueError(
                "method='likelihood-ratio' uses the tabulated quantiles of "
                "Banerjee & Wellner's law D, for level in "
                f"{sorted(LR_CRITICAL_VALUES)}; "
                f"got level={request.level}. Use method='subsampling'."
            )
        if quantity == "cdf":
            points = values_of(request.points)
            estimate = np.asarray(self.cdf(points), dtype=float)
            target = "F(t)"
        else:
            points = probabilities_of(request.points)
            estimate = np.asarray(self.quantile(points), dtype=float)
            target = "F^-1(q), between anchors"
        if method == "likelihood-ratio":
            cs = _CurrentStatus(Z)
            lower, upper = np.empty(points.size), np.empty(points.size)
            for i, p in enumerate(points):
                if quantity == "cdf":
                    _, lower[i], upper[i] = cs.cdf_interval(float(p), d)
                else:
                    lower[i], upper[i] = cs.quantile_interval(float(p), d)
            label = "likelihood-ratio (Banerjee-Wellner)"
        else:
            stat = CdfAt(points) if quantity == "cdf" else QuantileAt(points)
            lower, upper = self._ci_point_subsampling(
                request, Z, points, stat, estimate, weights
            )
            if quantity == "cdf":
                lower, upper = np.clip(lower, 0.0, 1.0), np.clip(upper, 0.0, 1.0)
            label = "subsampling (rate n^1/3)"
        if self.bounds is not None:
            lower, upper, label = widen_pointwise(
                self, quantity, points, lower, upper, label
            )
        return interval_frame(
            quantity, points, estimate, lower, upper, request.level, label, target
        )

    def _conf_int_cdf(self, request: IntervalRequest) -> pd.DataFrame:
        return self._ci_pointwise(request, "cdf")

    def _conf_int_quantile(self, request: IntervalRequest) -> pd.DataFrame:
        return self._ci_pointwise(request, "quantile")

    def _ci_mean_jackknife(
        self, request: IntervalRequest, Z: NDArray, weights: NDArray | None = None
    ) -> pd.DataFrame:
        n = Z.shape[0]
        if n < 2:
            raise ValueError(
                "method='jackknife' refits without each group of rows and needs "
                f"at least 2 informative rows (not (-inf, inf)); X has {n}."
            )
        n_groups = request.resamples(min(NPMLE_JACKKNIFE_GROUPS, n))
        if n_groups > n:
            raise ValueError(
                "method='jackknife' leaves out one group of rows per refit, so "
                f"n_resamples (the number of groups) must be at most the {n} "
                f"informative rows; got n_resamples={n_groups}."
            )
        kept, sizes = request.memo(
            "jackknife-groups",
            lambda: group_jackknife_indices(n, n_groups, request.random_state),
        )
        reps = request.memo(
            "jackknife",
            lambda: replicate_statistics(
                clone(self),
                Z,
                Mean(),
                kept,
                n_jobs=request.n_jobs,
                sample_weight=weights,
            ),
        )
        estimate = self.mean()
        lower, upper, se = group_jackknife_interval(
            estimate, reps, sizes, request.level
        )
        return interval_frame(
            "mean",
            None,
            estimate,
            lower,
            upper,
            request.level,
            f"jackknife ({n_groups} random groups, t with {n_groups - 1} df)",
            "E[X]",
            se=se,
        )

    def _conf_int_mean(self, request: IntervalRequest) -> pd.DataFrame:
        Z, weights = self._ci_weighted_interval_data(request)
        case_one = _is_case_one(Z)
        method = request.choose(
            ("identified_set", "influence", "jackknife", "bootstrap"),
            "identified_set"
            if self.bounds is not None
            else ("influence" if case_one and weights is None else "jackknife"),
            type(self).__name__,
        )
        if method == "influence" and weights is not None:
            self._ci_refuse_weighted(
                method,
                "estimates an unweighted variance",
                "method='jackknife' or method='bootstrap'",
            )
        if method == "identified_set":
            return mean_interval(self, request, Z, weights)
        if method in ("bootstrap", "jackknife"):
            frame = (
                self._ci_bootstrap_population(request, None, Mean())
                if method == "bootstrap"
                else self._ci_mean_jackknife(request, Z, weights)
            )
            self._ci_warn_unlocated_mean(frame, request.level)
            return frame
        if not case_one:
            raise ValueError(
                "method='influence' needs Case-I data; use method='jackknife' "
                "(the default for other interval data) or method='bootstrap'."
            )
        cs = _CurrentStatus(Z)
        F = cs.F[np.searchsorted(cs.anchors, cs.u)]
        g = _kde_at(cs.u, cs.u)
        n = cs.u.size
        se = float(np.sqrt(np.sum(F * (1.0 - F) / g**2)) / n)
        estimate = self.mean()
        frame = normal_frame(
            "mean",
            None,
            estimate,
            se,
            request.level,
            "influence (Huang-Wellner)",
            "E[X] (anchors spanning the values)",
        )
        self._ci_warn_unlocated_mean(frame, request.level)
        return frame

    def _ci_warn_unlocated_mean(self, frame: pd.DataFrame, level: float) -> None:
        """Warn when the data locate the mean less well than ``frame`` claims.

        The point intervals of the mean assume the anchors span the values;
        mass the NPMLE puts beyond them may sit anywhere up to the declared
        bounds (anywhere at all without bounds), see
        :func:`~._identified.warn_if_set_wider`.
        """
        from ._identified import warn_if_set_wider

        width = float(frame["upper"].iloc[0] - frame["lower"].iloc[0])
        z = float(stats.norm.ppf(0.5 + level / 2.0))
        warn_if_set_wider(self, width / (2.0 * z), level)
