"""One interface for every estimated population distribution.

The interval NPMLE, the deconvolution KDE, the subset category distribution
and the RVNS reconstruction all estimate a population distribution.  They
share the surface of :class:`PopulationEstimateMixin`: ``cdf``, ``pdf`` (or
``pmf``), ``sample``, ``mean``, ``var``, ``std``, ``moment``, ``expect``,
``quantile`` and ``median``, so the statistics a user needs are one call away
whatever the mechanism was.

An estimator implements ``_distribution()``, returning one of the small
immutable representations below, and inherits the interface; an estimator
with a closed form for some method (a KDE's exact ``pdf``) overrides it.
Every population estimate also answers ``conf_int`` (see
:mod:`skprivate._uncertainty`): confidence intervals for its mean,
quantiles, CDF and, where estimable, density, by the method right for the
estimator (the percentile bootstrap of the privatized rows by default).
"""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any, Protocol, runtime_checkable

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.validation import check_is_fitted

from ._uncertainty import PopulationIntervalMixin
from .utils._param_validation import Interval, validate_params
from .utils.validation import check_float_array, check_generator


def _check_points(x: ArrayLike, name: str) -> NDArray[np.float64]:
    """Evaluation points as floats, refusing NaN (which has no probability).

    Users evaluate a density at their own records, so a refusal names the
    position of the first entry that is not a number and its type, never
    its value, and chains no error (numpy's quotes the entry).
    """
    arr = check_float_array(x, name=name, allow_nan=True)
    if np.isnan(arr).any():
        raise ValueError(
            f"{name} contains NaN (first at flat position "
            f"{int(np.flatnonzero(np.isnan(arr.ravel()))[0])}); evaluate at numbers."
        )
    return arr


__all__ = [
    "DiscreteDistribution",
    "PiecewiseUniformDistribution",
    "PopulationEstimate",
    "PopulationEstimateMixin",
]


def mean_log_pmf_of_categories(
    pmf: Callable[[Any], NDArray[np.float64]], X: ArrayLike
) -> float:
    """Mean of ``log pmf(category)`` over one column of clean categories.

    The score of a categorical estimator fitted with a privatizer: the
    average log-probability its estimate gives to held-out categories
    (probabilities floored at 1e-12, so that a category estimated at zero
    costs a finite penalty).

    Examples
    --------
    >>> from skprivate.distributions import mean_log_pmf_of_categories
    >>> pmf = lambda c: np.where(c == "a", 0.5, 0.25)
    >>> round(mean_log_pmf_of_categories(pmf, [["a"], ["b"]]), 4)
    -1.0397
    """
    cats = np.asarray(X, dtype=object)
    if cats.ndim == 2:
        if cats.shape[1] != 1:
            raise ValueError(
                "With a privatizer, X must hold one column of categories; "
                f"got {cats.shape[1]} columns."
            )
        cats = cats[:, 0]
    return float(np.mean(np.log(np.maximum(pmf(cats), 1e-12))))


def _check_probabilities(q: ArrayLike) -> NDArray[np.float64]:
    q = check_float_array(q, name="q", allow_nan=True)
    if np.any(~((q >= 0) & (q <= 1))):
        raise ValueError(f"quantile levels must lie in [0, 1]; got {q!r}.")
    return q


def _check_weights(weights: ArrayLike, n: int, what: str) -> NDArray[np.float64]:
    w = np.asarray(weights, dtype=float)
    if w.shape != (n,):
        raise ValueError(
            f"weights must have one entry per {what} ({n}); got {w.shape}."
        )
    if not np.all(np.isfinite(w)) or np.any(w < 0):
        raise ValueError("weights must be finite and non-negative.")
    total = w.sum()
    if total <= 0:
        raise ValueError("weights must have a positive sum.")
    return w / total


class DiscreteDistribution:
    """A distribution with finitely many atoms.

    Parameters
    ----------
    support : array-like of shape (m,)
        Distinct finite atoms (sorted internally).
    weights : array-like of shape (m,)
        Non-negative masses, normalized to sum to one.

    Examples
    --------
    >>> from skprivate.distributions import DiscreteDistribution
    >>> d = DiscreteDistribution([0.0, 1.0], [0.25, 0.75])
    >>> d.mean(), float(d.cdf(0.5)), float(d.quantile(0.5))
    (0.75, 0.25, 1.0)
    """

    def __init__(self, support: ArrayLike, weights: ArrayLike) -> None:
        support = np.asarray(support, dtype=float)
        if support.ndim != 1 or support.size == 0:
            raise ValueError("support must be a non-empty 1-D array.")
        if not np.all(np.isfinite(support)):
            raise ValueError("support must be finite.")
        weights = _check_weights(weights, support.size, "atom")
        order = np.argsort(support, kind="stable")
        support, weights = support[order], weights[order]
        if np.any(np.diff(support) == 0):
            raise ValueError("support atoms must be distinct.")
        self.support = support
        self.weights = weights
        self._cum = np.cumsum(weights)
        self._cum[-1] = 1.0

    def pmf(self, x: ArrayLike) -> NDArray[np.float64]:
        """Mass at ``x`` (zero away from the atoms)."""
        x = check_float_array(x, name="x", allow_nan=True)
        idx = np.clip(np.searchsorted(self.support, x), 0, self.support.size - 1)
        return np.where(self.support[idx] == x, self.weights[idx], 0.0)

    def pdf(self, x: ArrayLike) -> NDArray[np.float64]:
        """Not defined for a discrete distribution; use :meth:`pmf`."""
        raise TypeError("A discrete distribution has no density; use pmf().")

    def cdf(self, x: ArrayLike) -> NDArray[np.float64]:
        """P(X <= x)."""
        x = check_float_array(x, name="x", allow_nan=True)
        idx = np.searchsorted(self.support, x, side="right")
        return np.concatenate([[0.0], self._cum])[idx]

    def quantile(self, q: ArrayLike) -> NDArray[np.float64]:
        """Smallest atom t with ``cdf(t) >= q``."""
        q = _check_probabilities(q)
        idx = np.searchsorted(self._cum, q, side="left")
        return self.support[np.clip(idx, 0, self.support.size - 1)]

    def expect(self, func: Callable[[NDArray], ArrayLike]) -> float:
        """E[func(X)]."""
        return float(np.dot(self.weights, np.asarray(func(self.support), dtype=float)))

    def moment(self, k: int) -> float:
        """E[X^k]."""
        return float(np.dot(self.weights, self.support**k))

    def mean(self) -> float:
        """E[X]."""
        return self.moment(1)

    def var(self) -> float:
        """Var(X), from the deviations to the mean (no cancellation far from 0)."""
        deviation = self.support - self.mean()
        return float(np.dot(self.weights, deviation * deviation))

    def sample(self, n_samples: int, random_state: Any = None) -> NDArray[np.float64]:
        """Draw ``n_samples`` values."""
        rng = check_generator(random_state)
        idx = np.searchsorted(self._cum, rng.random(n_samples), side="right")
        return self.support[np.clip(idx, 0, self.support.size - 1)]


class PiecewiseUniformDistribution:
    """A histogram density: uniform within each cell of a grid.

    Parameters
    ----------
    edges : array-like of shape (m + 1,)
        Strictly increasing finite cell edges.
    weights : array-like of shape (m,)
        Probability of each cell, normalized to sum to one.

    Examples
    --------
    >>> from skprivate.distributions import PiecewiseUniformDistribution
    >>> d = PiecewiseUniformDistribution([0.0, 1.0, 2.0], [0.5, 0.5])
    >>> float(d.pdf(0.5)), d.mean(), float(d.quantile(0.25))
    (0.5, 1.0, 0.5)
    """

    def __init__(self, edges: ArrayLike, weights: ArrayLike) -> None:
        edges = np.asarray(edges, dtype=float)
        if edges.ndim != 1 or edges.size < 2:
            raise ValueError("edges must be a 1-D array with at least two entries.")
        if not np.all(np.isfinite(edges)) or np.any(np.diff(edges) <= 0):
            raise ValueError("edges must be finite and strictly increasing.")
        self.edges = edges
        self.weights = _check_weights(weights, edges.size - 1, "cell")
        self.widths = np.diff(edges)
        self._cum = np.concatenate([[0.0], np.cumsum(self.weights)])
        self._cum[-1] = 1.0

    @property
    def density(self) -> NDArray[np.float64]:
        """Density value in each cell."""
        return self.weights / self.widths

    def pdf(self, x: ArrayLike) -> NDArray[np.float64]:
        """Density at ``x``; cells are closed on the left, the last on both sides."""
        x = check_float_array(x, name="x", allow_nan=True)
        idx = np.searchsorted(self.edges, x, side="right") - 1
        idx = np.where(x == self.edges[-1], self.weights.size - 1, idx)
        inside = (idx >= 0) & (idx < self.weights.size)
        return np.where(
            inside, self.density[np.clip(idx, 0, self.weights.size - 1)], 0.0
        )

    def pmf(self, x: ArrayLike) -> NDArray[np.float64]:
        """Not defined for a continuous distribution; use :meth:`pdf`."""
        raise TypeError("A continuous distribution has no mass function; use pdf().")

    def cdf(self, x: ArrayLike) -> NDArray[np.float64]:
        """P(X <= x), linear within each cell."""
        x = check_float_array(x, name="x", allow_nan=True)
        return np.interp(x, self.edges, self._cum)

    def quantile(self, q: ArrayLike) -> NDArray[np.float64]:
        """Smallest x with ``cdf(x) >= q``."""
        q = _check_probabilities(q)
        m = self.weights.size
        idx = np.clip(np.searchsorted(self._cum[1:], q, side="left"), 0, m - 1)
        w = self.weights[idx]
        frac = np.where(w > 0, (q - self._cum[idx]) / np.where(w > 0, w, 1.0), 0.0)
        x = self.edges[idx] + np.clip(frac, 0.0, 1.0) * self.widths[idx]
        # Rounding in the cumulative sums must not leave q = cdf(edge) a hair
        # short of the edge (quantile(1.0) is the top of the support).
        return np.where(q >= self._cum[idx + 1], self.edges[idx + 1], x)

    def moment(self, k: int) -> float:
        """E[X^k], exact for the histogram density.

        A cell ``[a, b]`` contributes ``(b^(k+1) - a^(k+1)) / ((k+1)(b-a))``,
        summed as ``sum_j a^j b^(k-j) / (k+1)``: the difference of the two
        powers would lose every digit on a cell far from zero (a cell of
        width 1 at 1e9 holds its mean to about 1e-3 that way).
        """
        a, b = self.edges[:-1], self.edges[1:]
        per_cell = np.zeros_like(a)
        for j in range(k + 1):
            per_cell += a**j * b ** (k - j)
        return float(np.dot(self.weights, per_cell / (k + 1)))

    def mean(self) -> float:
        """E[X]: each cell's mass at its midpoint."""
        return float(np.dot(self.weights, self.edges[:-1] + 0.5 * self.widths))

    def var(self) -> float:
        """Var(X): the midpoints' spread around the mean plus each cell's h^2 / 12."""
        deviation = self.edges[:-1] + 0.5 * self.widths - self.mean()
        return float(np.dot(self.weights, deviation**2 + self.widths**2 / 12.0))

    def expect(self, func: Callable[[NDArray], ArrayLike], n_nodes: int = 8) -> float:
        """E[func(X)] by Gauss–Legendre quadrature within each cell."""
        nodes, node_w = np.polynomial.legendre.leggauss(n_nodes)
        a, h = self.edges[:-1, None], self.widths[:, None]
        points = a + 0.5 * (nodes[None, :] + 1.0) * h
        values = np.asarray(func(points), dtype=float)
        cell_means = 0.5 * (values * node_w[None, :]).sum(axis=1)
        return float(np.dot(self.weights, cell_means))

    def sample(self, n_samples: int, random_state: Any = None) -> NDArray[np.float64]:
        """Draw ``n_samples`` values: a cell by its weight, then uniformly in it."""
        rng = check_generator(random_state)
        u = rng.random(n_samples)
        idx = np.clip(
            np.searchsorted(self._cum[1:], u, side="right"), 0, self.weights.size - 1
        )
        return self.edges[idx] + rng.random(n_samples) * self.widths[idx]


@runtime_checkable
class PopulationEstimate(Protocol):
    """What every population estimate offers (for type checking)."""

    def cdf(self, x: ArrayLike) -> NDArray[np.float64]: ...

    def sample(self, n_samples: int = 1, random_state: Any = None) -> Any: ...

    def mean(self) -> Any: ...

    def quantile(self, q: ArrayLike) -> Any: ...

    def conf_int(
        self, kind: str = "mean", points: Any = None, **kwargs: Any
    ) -> Any: ...


class PopulationEstimateMixin(PopulationIntervalMixin):
    """The common population-estimate interface, delegated to a representation.

    Subclasses implement ``_distribution()`` returning a fitted
    :class:`DiscreteDistribution`, :class:`PiecewiseUniformDistribution` or
    any object with the same methods, and may override a method when they
    know it in closed form.  ``conf_int`` (from
    :class:`~skprivate._uncertainty.PopulationIntervalMixin`) gives
    confidence intervals; by default the percentile bootstrap of the rows
    given as ``X``, which estimators override with the method right for them.
    """

    def _distribution(self) -> Any:  # pragma: no cover - documented contract
        raise AttributeError(f"{type(self).__name__} must implement _distribution().")

    def _fitted_distribution(self) -> Any:
        check_is_fitted(self)
        return self._distribution()

    def cdf(self, x: ArrayLike) -> NDArray[np.float64]:
        """Estimated P(X <= x).

        Parameters
        ----------
        x : array-like
            Points at which to evaluate.

        Returns
        -------
        ndarray
            Same shape as ``x``.
        """
        return self._fitted_distribution().cdf(_check_points(x, "x"))

    def pdf(self, x: ArrayLike) -> NDArray[np.float64]:
        """Estimated density at ``x`` (continuous estimates only)."""
        return self._fitted_distribution().pdf(_check_points(x, "x"))

    def pmf(self, x: ArrayLike) -> NDArray[np.float64]:
        """Estimated mass at ``x`` (discrete estimates only)."""
        return self._fitted_distribution().pmf(_check_points(x, "x"))

    def quantile(self, q: ArrayLike) -> NDArray[np.float64]:
        """Estimated quantile function (generalized inverse of :meth:`cdf`)."""
        q = _check_points(q, "q")
        if np.any((q < 0) | (q > 1)):
            raise ValueError(f"q must lie in [0, 1]; got {q.tolist()}.")
        return self._fitted_distribution().quantile(q)

    def median(self) -> float:
        """Estimated median, ``quantile(0.5)``."""
        return float(self.quantile(0.5))

    def expect(self, func: Callable[[NDArray], ArrayLike]) -> float:
        """Estimated E[func(X)], a linear functional of the distribution."""
        return self._fitted_distribution().expect(func)

    def moment(self, k: int = 1) -> float:
        """Estimated raw moment E[X^k].

        Parameters
        ----------
        k : int, default=1
            Order, an int >= 0 (``E[X^0] = 1``).

        Returns
        -------
        float
        """
        validate_params(
            {"k": [Interval(numbers.Integral, 0, None, closed="left")]},
            {"k": k},
            f"{type(self).__name__}.moment",
        )
        if k == 0:
            check_is_fitted(self)
            return 1.0
        return self._fitted_distribution().moment(int(k))

    def mean(self) -> float:
        """Estimated mean."""
        return float(self._fitted_distribution().mean())

    def var(self) -> float:
        """Estimated variance.

        From the deviations to the mean (the representation's ``var`` when
        it has one, else ``E[(X - mean)^2]``), not ``E[X^2] - mean^2``,
        which cancels to rounding noise when the values sit far from zero
        compared with their spread.
        """
        dist = self._fitted_distribution()
        own = getattr(dist, "var", None)
        if own is not None:
            return max(float(own()), 0.0)
        mean = self.mean()
        return max(float(dist.expect(lambda x: (np.asarray(x) - mean) ** 2)), 0.0)

    def std(self) -> float:
        """Estimated standard deviation."""
        return float(np.sqrt(self.var()))

    def sample(
        self, n_samples: int = 1, random_state: Any = None
    ) -> NDArray[np.float64]:
        """Draw ``n_samples`` values from the estimated distribution.

        Parameters
        ----------
        n_samples : int, default=1
            Number of draws.
        random_state : None, int, RandomState or Generator, default=None
            Source of randomness.

        Returns
        -------
        ndarray of shape (n_samples,)
        """
        validate_params(
            {"n_samples": [Interval(numbers.Integral, 0, None, closed="left")]},
            {"n_samples": n_samples},
            f"{type(self).__name__}.sample",
        )
        return self._fitted_distribution().sample(n_samples, random_state)
