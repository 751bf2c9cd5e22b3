"""Parametric MLE, the Example-2 mean estimator and optimal anchors (Thm 6)."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from ..base import ParamsValidationMixin
from ..distributions import PopulationEstimateMixin
from ..utils import Options
from ..utils._warnings import external_stacklevel
from ..utils.validation import (
    check_bool,
    check_float_array,
    check_interval_array,
    check_magnitude,
    check_two_sided,
)
from ._anchors import as_cdf
from ._location_scale import fit_location_scale
from ._mle_intervals import MLEIntervalsMixin
from ._npmle import IntervalRows, IntervalRowsFitMixin
from ._truncated import interval_log_likelihood

__all__ = ["IntervalMLE", "optimal_anchor_density", "uniform_anchor_mean"]

_SCIPY = {"normal": stats.norm, "logistic": stats.logistic}


class _FrozenAdapter:
    """The population-estimate surface over a frozen scipy distribution."""

    def __init__(self, frozen) -> None:
        self.frozen = frozen

    def cdf(self, x):
        return self.frozen.cdf(x)

    def pdf(self, x):
        return self.frozen.pdf(x)

    def pmf(self, x):
        raise TypeError("A continuous distribution has no mass function; use pdf().")

    def quantile(self, q):
        q = np.asarray(q, dtype=float)
        if np.any(~((q >= 0) & (q <= 1))):
            raise ValueError(f"quantile levels must lie in [0, 1]; got {q!r}.")
        return self.frozen.ppf(q)

    def mean(self):
        return float(self.frozen.mean())

    def moment(self, k):
        return float(self.frozen.moment(k))

    def var(self):
        return float(self.frozen.var())

    def expect(self, func):
        return float(self.frozen.expect(func))

    def sample(self, n_samples, random_state=None):
        from ..utils import check_generator

        return self.frozen.rvs(
            size=n_samples, random_state=check_generator(random_state)
        )


class _ModerateIntervalRows(IntervalRows):
    """Interval rows whose finite ends a location-scale fit can square.

    An end such as ``1e300`` is finite, but the scale that fits it is of its
    order and the squares of the likelihood overflow: each block is refused
    at its first such row, numbered in the whole data (the NPMLE, which
    only orders the ends, takes such rows).
    """

    def block(self, rows, first_row):
        Z, w = super().block(rows, first_row)
        check_magnitude(np.where(np.isfinite(Z), Z, 0.0), name="X", first_row=first_row)
        return Z, w


def _log_likelihood(theta, lo, hi, w, family):
    mu, log_sigma = theta
    return interval_log_likelihood(
        lo, hi, mu, family_noise(family), np.exp(log_sigma), w
    )


def family_noise(family: str) -> str:
    return "gaussian" if family == "normal" else "logistic"


def _check_no_common_point(lo: NDArray, hi: NDArray, w: NDArray) -> None:
    """Refuse rows that all enclose one set, where the MLE does not exist.

    When ``a = max lower <= b = min upper`` over the rows of positive
    weight, the likelihood approaches its supremum as the scale goes to 0
    with the location in ``[a, b]`` (for ``a < b`` every row's probability
    tends to 1; an exact value's density grows without bound).  No positive
    scale reaches it, except, when ``a = b``, along a ray on which only
    ``(a - loc) / scale`` is fixed (a Case-I release cut at the single
    anchor ``a``): no unique MLE either way.
    """
    positive = w > 0
    a, b = float(lo[positive].max()), float(hi[positive].min())
    if a <= b:
        raise ValueError(
            f"Every row of X (of positive weight) encloses [{a:g}, {b:g}] "
            f"(lower <= {a:g} and upper >= {b:g}): the likelihood "
            "rises to its supremum as the scale goes to 0 with the location "
            "anywhere in that set, so the maximum-likelihood estimate does "
            "not exist. The intervals must not all overlap; IntervalNPMLE "
            "fits such data (all its mass on that set)."
        )


class IntervalMLE(
    IntervalRowsFitMixin,
    MLEIntervalsMixin,
    PopulationEstimateMixin,
    ParamsValidationMixin,
    BaseEstimator,
):
    """Parametric maximum-likelihood fit of a location-scale family to intervals.

    Maximizes ``Σ_interval log[F(hi) - F(lo)] + Σ_exact log f(y)`` over
    ``(mu, log sigma)`` by Newton's method on the exact gradient and
    Hessian, the log-probabilities computed stably in both tails.
    ``conf_int`` bounds ``"mean"``, ``"quantile"``, ``"cdf"``, ``"pdf"``
    and ``"scale"`` (Wald intervals from the observed
    information in ``(mu, log sigma)``; the scale's is
    ``exp(log(scale_) -/+ z se)``, as R's ``survreg`` gives it), or by the
    bootstrap.

    Parameters
    ----------
    family : {"normal", "logistic"}, default="normal"
        Location-scale family (``sigma`` is the standard deviation of the
        normal, the scale ``s`` of the logistic).

    Attributes
    ----------
    loc_ : float
        Estimated location.
    scale_ : float
        Estimated scale.
    log_likelihood_ : float
        Mean log-likelihood at the estimate.
    n_iter_ : int
        Optimizer iterations.

    See Also
    --------
    IntervalNPMLE : nonparametric alternative.

    Notes
    -----
    The MLE does not exist when the rows of positive weight all enclose a
    common set ``[a, b]`` (``a`` the largest lower end, ``b`` the smallest
    upper end, ``a <= b``): with the location in ``[a, b]`` the likelihood
    rises to its supremum as the scale goes to 0.  ``fit`` then raises a
    ``ValueError`` naming ``[a, b]``, as it does for a single distinct exact
    value (whose scale MLE is 0); :class:`IntervalNPMLE` fits such data.

    An iteration that stops at its cap without meeting its stopping rule
    warns (:class:`~sklearn.exceptions.ConvergenceWarning`).

    References
    ----------
    J. Ding and B. Ding, "Interval Privacy: A Framework for Data Collection",
    Section III-A.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval import IntervalCaseI, IntervalMLE
    >>> y = np.random.default_rng(0).normal(2.0, 1.0, size=(3000, 1))
    >>> Z = IntervalCaseI(loc=2.0, random_state=0).fit_transform(y)
    >>> mle = IntervalMLE().fit(Z)
    >>> abs(mle.loc_ - 2.0) < 0.1, abs(mle.scale_ - 1.0) < 0.15
    (True, True)
    """

    _parameter_constraints: ClassVar[dict[str, list]] = {
        "family": [Options({"normal", "logistic"})],
    }

    def __init__(self, family: str = "normal") -> None:
        self.family = family

    def fit(self, X: ArrayLike, y: Any = None, sample_weight: ArrayLike | None = None):
        """Fit the family to interval data.

        Parameters
        ----------
        X : array-like of shape (n_samples, 2) or (n_samples,)
            Interval data (or exact values).  Finite ends beyond ``1e150``
            in magnitude are refused, naming their row: the fitted scale
            would be of their order and its square overflows (rescale the
            data, or use :class:`IntervalNPMLE`).
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights.

        Returns
        -------
        self : object

        Raises
        ------
        ValueError
            When the MLE does not exist: ``X`` holds a single distinct exact
            value, or its rows of positive weight all enclose a common set
            (see Notes).
        """
        return self._fit_statistic(X, y, sample_weight=sample_weight)

    def _statistic_plan(self, data, stream, sample_weight=None):
        return _ModerateIntervalRows(sample_weight)

    def _statistic_fit(self, statistic, total, added):
        Z, w = total
        check_two_sided(Z, name="X")
        # rows of several blocks (dask) are pooled into distinct rows whose
        # weights count them; weighted rows are one block, kept as given
        n = Z.shape[0] if statistic.sample_weight is not None else round(w.sum())
        if np.all(Z[:, 0] == Z[:, 1]) and np.ptp(Z[:, 0]) == 0:
            rows = "n_samples = 1" if n == 1 else f"{n} rows"
            raise ValueError(
                f"X holds a single distinct exact value ({rows}): "
                "the scale of the family is not identified (its MLE is 0)."
            )
        w = w / w.sum()
        lo, hi = Z[:, 0], Z[:, 1]
        ends = np.concatenate([lo[np.isfinite(lo)], hi[np.isfinite(hi)]])
        if ends.size == 0:
            raise ValueError("X has no finite bound: the family cannot be located.")
        _check_no_common_point(lo, hi, w)
        centre, spread = float(np.median(ends)), float(np.std(ends))
        unit = spread if spread > 0 else max(abs(centre), 1.0)

        # Newton's method on the exact gradient and Hessian: methods that
        # compare likelihood values stop about 1e-5 (in units of the spread
        # of the cut points) from the optimum, below which the likelihood's
        # rounding hides it.
        self.loc_, self.scale_, log_likelihood, n_iter, converged = fit_location_scale(
            lo, hi, w, self.family, centre, unit
        )
        self.log_likelihood_ = float(log_likelihood)
        self.n_iter_ = int(n_iter)
        if not converged:
            warnings.warn(
                f"IntervalMLE (family={self.family!r}) did not converge: "
                f"Newton's method stopped at its iteration cap (n_iter_="
                f"{self.n_iter_}) before its step fell below the tolerance, so "
                "loc_ and scale_ may be off the maximum of the likelihood.",
                ConvergenceWarning,
                stacklevel=external_stacklevel(),
            )

    def _distribution(self) -> _FrozenAdapter:
        return _FrozenAdapter(_SCIPY[self.family](self.loc_, self.scale_))


def uniform_anchor_mean(
    intervals: ArrayLike, low: float, high: float, *, return_std: bool = False
):
    """Unbiased mean from Case-I data with uniform anchors (Example 2).

    With ``U ~ Uniform[low, high]`` and ``Y`` in ``[low, high]``,
    ``Δ(2U - high) + (1 - Δ)(2U - low)`` has expectation ``E[Y]``, where
    ``Δ = 1{Y <= U}``.  For ``E[Y**2]``, privatize ``Y**2`` with anchors on
    ``[0, 2T]`` and pass ``low=0, high=2T``.

    Parameters
    ----------
    intervals : array-like of shape (n_samples, 2)
        Case-I intervals ``(-inf, u]`` (Δ = 1) or ``(u, inf)`` (Δ = 0).
    low, high : float
        Support of the uniform anchors.
    return_std : bool, default=False
        Also return the standard error.

    Returns
    -------
    mean : float
    std : float
        Only when ``return_std=True``.

    References
    ----------
    J. Ding and B. Ding, "Interval Privacy: A Framework for Data Collection",
    Example 2.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval import uniform_anchor_mean
    >>> uniform_anchor_mean([[-np.inf, 0.5], [0.25, np.inf]], 0.0, 1.0)
    0.25
    """
    check_bool(return_std, "return_std")
    Z = check_interval_array(intervals, name="intervals", allow_1d=False)
    if Z.shape[0] == 0:
        raise ValueError("intervals has 0 rows; the mean needs at least one.")
    for name, value in (("low", low), ("high", high)):
        if not (
            isinstance(value, numbers.Real)
            and not isinstance(value, bool)
            and np.isfinite(value)
        ):
            raise ValueError(f"{name} must be a finite number; got {value!r}.")
    if not low < high:
        raise ValueError(f"low must be smaller than high; got low={low}, high={high}.")
    delta = np.isneginf(Z[:, 0])
    if not np.all(delta ^ np.isposinf(Z[:, 1])):
        raise ValueError(
            "intervals must be Case-I data: every row (-inf, u] or (u, inf)."
        )
    u = np.where(delta, Z[:, 1], Z[:, 0])
    outside = (u < low) | (u > high)
    if outside.any():
        # The estimator is unbiased only for anchors uniform on [low, high].
        row = int(np.flatnonzero(outside)[0])
        raise ValueError(
            f"intervals has an anchor outside [low, high] = [{low:g}, {high:g}] "
            f"at row {row} ({int(outside.sum())} such rows); low and high must "
            "be the support of the uniform anchors the data were collected with."
        )
    terms = np.where(delta, 2 * u - high, 2 * u - low)
    mean = float(terms.mean())
    if return_std:
        return mean, float(terms.std(ddof=1) / np.sqrt(terms.size))
    return mean


def optimal_anchor_density(
    reference: Any,
    functional: str | Callable = "mean",
    *,
    grid: ArrayLike | None = None,
    n_grid: int = 1024,
):
    """Optimal Case-I anchor density for a linear functional (Theorem 6).

    For ``K(F) = ∫ φ dF`` the asymptotic variance of the plug-in estimate is
    minimized by ``g(u) ∝ sqrt(F(u)(1 - F(u))) |φ'(u)|``.  The density is
    tabulated on a grid from a pilot ``F`` and returned as a
    :class:`scipy.stats.rv_histogram`, which can be passed as
    ``distribution=`` to :class:`IntervalCaseI`.

    Parameters
    ----------
    reference : distribution, fitted population estimate, callable or sample
        Pilot CDF (see :func:`individual_coverage`).
    functional : {"mean", "second_moment"} or callable, default="mean"
        ``φ'``: 1 for the mean, ``2u`` for the second moment, or a callable
        ``u -> φ'(u)``.
    grid : array-like, optional
        Increasing grid; by default 1024 points between the 0.0001 and
        0.9999 quantiles of the reference (or the range of a sample).
    n_grid : int, default=1024
        Grid size when ``grid`` is not given.

    Returns
    -------
    scipy.stats.rv_histogram

    References
    ----------
    J. Ding and B. Ding, "Interval Privacy: A Framework for Data Collection",
    Theorem 6.

    Examples
    --------
    >>> from scipy import stats
    >>> from skprivate.interval import optimal_anchor_density
    >>> g = optimal_anchor_density(stats.norm())
    >>> round(float(g.mean()), 6) == 0.0
    True
    """
    if grid is None:
        if hasattr(reference, "ppf"):
            ends = np.asarray(reference.ppf([1e-4, 1 - 1e-4]), dtype=float)
        elif hasattr(reference, "quantile"):
            ends = np.asarray(reference.quantile([1e-4, 1 - 1e-4]), dtype=float)
        elif not callable(reference):
            sample = check_float_array(reference, name="reference")
            if sample.ndim > 2 or (sample.ndim == 2 and sample.shape[1] != 1):
                raise ValueError(
                    f"reference as a sample must be 1-D; got shape {sample.shape}."
                )
            sample = sample.ravel()
            if sample.size == 0:
                raise ValueError("reference is an empty sample; pass values.")
            ends = np.array([sample.min(), sample.max()])
        else:
            raise ValueError("grid is required when reference is a plain callable CDF.")
        if not (np.all(np.isfinite(ends)) and ends[1] > ends[0]):
            raise ValueError(
                "reference has no spread (its 0.0001 and 0.9999 quantiles, or "
                f"the range of the sample, are {ends.tolist()}): the anchor "
                "density cannot be placed. Pass a reference with a spread, or "
                "grid=."
            )
        if not (
            isinstance(n_grid, numbers.Integral)
            and not isinstance(n_grid, bool)
            and n_grid >= 3
        ):
            raise ValueError(f"n_grid must be an int >= 3; got {n_grid!r}.")
        grid = np.linspace(ends[0], ends[1], int(n_grid))
    grid = check_float_array(grid, name="grid", allow_inf=False)
    if grid.ndim != 1 or grid.size < 3 or np.any(np.diff(grid) <= 0):
        raise ValueError("grid must be an increasing 1-D array of at least 3 points.")
    if functional == "mean":
        dphi: Callable = np.ones_like
    elif functional == "second_moment":
        dphi = lambda u: 2.0 * u  # noqa: E731
    elif callable(functional):
        dphi = functional
    else:
        raise ValueError(
            "functional must be 'mean', 'second_moment' or a callable phi'; "
            f"got {functional!r}."
        )
    cdf = as_cdf(reference)
    mid = 0.5 * (grid[:-1] + grid[1:])
    F = np.clip(cdf(mid), 0.0, 1.0)
    slope = np.asarray(dphi(mid), dtype=float)
    if slope.shape not in ((), mid.shape):
        raise ValueError(
            f"functional returned shape {slope.shape} for {mid.size} points; it "
            "must return one value of phi' per point."
        )
    if not np.all(np.isfinite(slope)):
        raise ValueError(
            "functional returned NaN or inf on the grid; phi' must be finite."
        )
    dens = np.sqrt(F * (1.0 - F)) * np.abs(slope)
    if not np.all(np.isfinite(dens)) or dens.sum() <= 0:
        raise ValueError(
            "The optimal anchor density is zero or not finite on the grid."
        )
    return stats.rv_histogram((dens, grid), density=True)
