"""Privacy coverage (Definition 1) and the composition bound (Theorem 2)."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..utils.validation import check_float_array, check_interval_array
from ._anchors import as_cdf, check_acceptable_range, design_coverage, mass_in_fixed_set

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
    return float(
        individual_coverage(
            intervals, reference, acceptable_range=acceptable_range
        ).mean()
    )


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
        Cells reported exactly (their coverage is 0).
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
    q = check_float_array(anchors, name="anchors", allow_nan=True)
    if q.ndim == 1:
        q = q[:, None]
    if q.ndim != 2 or q.shape[0] == 0 or np.any(np.isnan(q)):
        raise ValueError(
            f"anchors must be a non-empty (n_samples, n_anchors) array without NaN; "
            f"got shape {np.shape(anchors)}."
        )
    cells = () if exact_cells is None else tuple(int(c) for c in np.ravel(exact_cells))
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
    tau = check_float_array(coverages, name="coverages").ravel()
    if tau.size == 0 or np.any(~((tau >= 0) & (tau <= 1))):
        raise ValueError(f"coverages must be numbers in [0, 1]; got {coverages!r}.")
    return float(round(max(0.0, 1.0 - np.sum(1.0 - tau)), 15))
