"""Privacy coverage (Definition 1) and the composition bound (Theorem 2)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..utils.validation import check_bool, check_float_array, check_interval_array
from ._anchors import (
    as_cdf,
    check_acceptable_range,
    design_coverage,
    mass_in_fixed_set,
    pad_anchors,
)

__all__ = [
    "average_coverage",
    "composition_bound",
    "estimate_coverage",
    "individual_coverage",
]


def individual_coverage(
    intervals: ArrayLike, reference: Any, *, acceptable_range: Any = None
) -> NDArray[np.float64]:
    """Coverage ``P_Y(S_z)`` of each observation.

    The revealed set of an interval report is its cell minus the acceptable
    range (the report also tells that the value is not in ``A``); an exact
    report has coverage 0.

    Parameters
    ----------
    intervals : array-like of shape (n_samples, 2)
        Interval data ``[lower, upper]``.
    reference : callable, distribution or array-like
        The population CDF ``F``: a callable, an object with ``cdf`` (a
        frozen :mod:`scipy.stats` distribution or a fitted
        :class:`IntervalNPMLE`) or a sample (empirical CDF).
    acceptable_range : pair or list of pairs, optional
        The fixed acceptable set of the mechanism.

    Returns
    -------
    coverage : ndarray of shape (n_samples,)

    References
    ----------
    J. Ding and B. Ding, "Interval Privacy: A Framework for Data Collection",
    Definition 1.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skprivate.interval import individual_coverage
    >>> individual_coverage([[-np.inf, 0.0], [1.0, 1.0]], stats.norm())
    array([0.5, 0. ])
    """
    Z = check_interval_array(intervals, name="intervals", allow_1d=False)
    cdf = as_cdf(reference)
    fixed = check_acceptable_range(acceptable_range)
    lo, hi = Z[:, 0], Z[:, 1]
    cov = cdf(hi) - cdf(lo) - mass_in_fixed_set(lo, hi, fixed, cdf)
    return np.where(lo == hi, 0.0, np.clip(cov, 0.0, 1.0))


def average_coverage(
    intervals: ArrayLike, reference: Any, *, acceptable_range: Any = None
) -> float:
    """Average of :func:`individual_coverage`, an unbiased estimate of τ.

    Parameters
    ----------
    intervals : array-like of shape (n_samples, 2)
        Interval data.
    reference : callable, distribution or array-like
        The population CDF (see :func:`individual_coverage`).
    acceptable_range : pair or list of pairs, optional
        The fixed acceptable set of the mechanism.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skprivate.interval import average_coverage
    >>> average_coverage([[-np.inf, 0.0], [0.0, np.inf]], stats.norm())
    0.5
    """
    coverage = individual_coverage(
        intervals, reference, acceptable_range=acceptable_range
    )
    if coverage.size == 0:
        raise ValueError("intervals has 0 rows; the average needs at least one.")
    return float(coverage.mean())


def estimate_coverage(
    anchors: ArrayLike,
    reference: Any,
    *,
    acceptable_range: Any = None,
    exact_cells: Any = None,
    return_std: bool = False,
):
    """Consistent estimator of the average coverage from the anchors.

    Given the anchors, a value lands in cell ``j`` with probability ``P_j``
    and then has coverage ``P_j``, so ``τ̂ = n⁻¹ Σ_i Σ_j P_Y(cell_ij \\ A)²``.
    With one anchor per row this is the Case-I estimator
    ``n⁻¹ Σ [F(u)² + (1 - F(u))²]``; with two it is the Case-II estimator
    ``n⁻¹ Σ [F(u)² + (F(v) - F(u))² + (1 - F(v))²]``.  It has a smaller
    variance than the mean of the individual coverages.

    Parameters
    ----------
    anchors : array-like of shape (n_samples, n_anchors) or (n_samples,)
        Anchors of each respondent (as returned by
        ``transform(X, return_anchors=True)`` for one column).
    reference : callable, distribution or array-like
        The population CDF (see :func:`individual_coverage`).
    acceptable_range : pair or list of pairs, optional
        Fixed acceptable set.
    exact_cells : list of int, optional
        Cells reported exactly (their coverage is 0), numbered from 0 (below
        the lowest anchor) to ``n_anchors`` (above the highest); another
        index is a ValueError.
    return_std : bool, default=False
        Also return the standard error of the estimate.

    Returns
    -------
    coverage : float
    std : float
        Only when ``return_std=True``.

    References
    ----------
    J. Ding and B. Ding, "Interval Privacy: A Framework for Data Collection",
    Section II-C.

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skprivate.interval import estimate_coverage
    >>> estimate_coverage(np.zeros(3), stats.norm())
    0.5
    """
    check_bool(return_std, "return_std")
    q = check_float_array(anchors, name="anchors", allow_nan=True)
    if q.ndim == 1:
        q = q[:, None]
    if q.ndim != 2 or q.shape[0] == 0 or np.any(np.isnan(q)):
        raise ValueError(
            f"anchors must be a non-empty (n_samples, n_anchors) array without NaN; "
            f"got shape {np.shape(anchors)}."
        )
    cells = _check_exact_cells(exact_cells, q.shape[1])
    per_row = design_coverage(
        [(np.sort(q, axis=1), cells)],
        as_cdf(reference),
        check_acceptable_range(acceptable_range),
    )
    tau = float(per_row.mean())
    if return_std:
        std = (
            float(per_row.std(ddof=1) / np.sqrt(per_row.size))
            if per_row.size > 1
            else np.nan
        )
        return tau, std
    return tau


def _check_exact_cells(exact_cells: Any, n_anchors: int) -> tuple[int, ...]:
    """Indices of exactly reported cells: ints in ``[0, n_anchors]``."""
    if exact_cells is None:
        return ()
    cells = np.ravel(np.asarray(exact_cells, dtype=object))
    n_cells = n_anchors + 1
    for c in cells:
        if (
            not isinstance(c, numbers.Integral)
            or isinstance(c, bool)
            or not 0 <= c < n_cells
        ):
            raise ValueError(
                f"exact_cells must hold cell indices, ints in [0, {n_cells - 1}] "
                f"({n_anchors} anchors make {n_cells} cells); got {c!r}."
            )
    return tuple(int(c) for c in cells)


def composition_bound(coverages: ArrayLike) -> float:
    """Lower bound on the coverage of an ensemble (Theorem 2).

    ``1 - τ(M_1 ⊕ ... ⊕ M_k) <= Σ_j (1 - τ(M_j))``, so the ensemble keeps at
    least ``max(0, 1 - Σ_j (1 - τ_j))``.

    Parameters
    ----------
    coverages : array-like of float in [0, 1]
        Coverage of each mechanism.

    Returns
    -------
    float

    Examples
    --------
    >>> from skprivate.interval import composition_bound
    >>> composition_bound([0.9, 0.95])
    0.85
    """
    tau = check_float_array(coverages, name="coverages")
    if tau.ndim > 1:
        raise ValueError(
            f"coverages must be a 1-D list of coverages, one per mechanism; got "
            f"shape {tau.shape}."
        )
    tau = tau.ravel()
    if tau.size == 0 or np.any(~((tau >= 0) & (tau <= 1))):
        raise ValueError(f"coverages must be numbers in [0, 1]; got {coverages!r}.")
    return float(round(max(0.0, 1.0 - np.sum(1.0 - tau)), 15))


def released_cell_masses(
    components: list[tuple[NDArray, tuple[int, ...]]], cdf, fixed: NDArray
) -> NDArray[np.float64]:
    """``P_Y(cell_j \\ A)`` of every pooled cell reported as an interval.

    Parameters
    ----------
    components : list of (anchors, exact_cells)
        Per pooled mechanism, its anchors of shape ``(n, k_i)`` and the
        indices of its cells reported exactly.
    cdf : callable
        Population CDF ``F``.
    fixed : ndarray of shape (r, 2)
        Fixed acceptable set ``A`` (cells ``(low, high]``).

    Returns
    -------
    masses : ndarray of shape (n, 1 + sum k_i)
        Per row of anchors and pooled cell, the population mass the cell
        reveals as an interval: 0 for a cell inside an exactly reported cell
        of any component, the cell's mass outside ``A`` otherwise.  Row sums
        are ``1 - P(value reported exactly | anchors)``; the sum of squares
        is the expected coverage given the anchors (as in
        ``design_coverage``).

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skprivate.interval._coverage import released_cell_masses
    >>> q = np.array([[-1.0, 1.0]])
    >>> released_cell_masses([(q, (1,))], stats.norm.cdf, np.empty((0, 2))).round(3)
    array([[0.159, 0.   , 0.159]])
    """
    return _split_cell_masses(components, cdf, fixed)[0]


def _split_cell_masses(components, cdf, fixed: NDArray) -> tuple[NDArray, NDArray]:
    """Per pooled cell: mass reported as an interval, mass reported exactly."""
    pooled = np.sort(np.hstack([a for a, _ in components]), axis=1)
    padded = pad_anchors(pooled)
    lo, hi = padded[:, :-1], padded[:, 1:]
    total = np.clip(cdf(hi) - cdf(lo), 0.0, 1.0)
    in_fixed = np.clip(mass_in_fixed_set(lo, hi, fixed, cdf), 0.0, total)
    keep = np.ones(total.shape, dtype=bool)
    for anchors, exact in components:
        if exact:
            # the component cell holding a pooled cell counts the component's
            # anchors strictly below the pooled cell's upper bound
            comp_idx = np.sum(anchors[:, None, :] < hi[:, :, None], axis=2)
            keep &= ~np.isin(comp_idx, exact)
    released = np.where(keep, total - in_fixed, 0.0)
    exact_mass = np.where(keep, in_fixed, total)
    return released, exact_mass


def design_disclosure(
    components: list[tuple[NDArray, tuple[int, ...]]], cdf, fixed: NDArray
) -> tuple[float, float]:
    """Expected coverage and expected share reported exactly, for one population.

    Both are Monte Carlo averages over the rows of anchors in
    ``components`` (see :func:`released_cell_masses`): the coverage
    ``E[Σ_j m_j²]`` and the exact share ``E[P(A ∪ exact cells)]``, the probability
    that a value drawn from the population ``cdf`` is released as itself.

    Parameters
    ----------
    components : list of (anchors, exact_cells)
        As in :func:`released_cell_masses`.
    cdf : callable
        Population CDF.
    fixed : ndarray of shape (r, 2)
        Fixed acceptable set.

    Returns
    -------
    coverage, exact_share : float

    Examples
    --------
    >>> import numpy as np
    >>> from scipy import stats
    >>> from skprivate.interval._coverage import design_disclosure
    >>> q = np.zeros((1, 1))
    >>> design_disclosure([(q, ())], stats.norm.cdf, np.array([[0.0, 1.0]]))
    (0.2751..., 0.3413...)
    """
    released, exact_mass = _split_cell_masses(components, cdf, fixed)
    coverage = float(np.mean(np.sum(released * released, axis=1)))
    exact = float(np.mean(np.clip(exact_mass.sum(axis=1), 0.0, 1.0)))
    return coverage, exact
