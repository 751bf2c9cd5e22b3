"""Identified sets of the NPMLE's functionals and their Imbens-Manski intervals.

Interval data locate the distribution only where the anchors (the finite
ends of the rows) fall: inside an innermost interval ``(l, r]`` the position
of its mass is not identified, and below the smallest anchor or above the
largest one the data say nothing at all.  With declared bounds ``(a, b)`` on
the values, the mean is therefore identified only up to the set
``[mean_L, mean_U]``: ``mean_L`` puts the mass of every innermost interval at
its left end (the mass below the smallest anchor at ``a``), ``mean_U`` at its
right end (the mass above the largest anchor at ``b``).

Supported range.  The NPMLE is biased at the extreme anchors: its value at
the smallest anchor is the smallest of a few cumulative averages of the
indicators (often exactly 0, whatever the mass below), and symmetrically at
the largest one (often 1).  Taken at face value it makes the unsupported
tails look empty and shrinks the set.  The set is therefore computed over
the *supported range* ``[t_lo, t_hi]``, the ``k``-th smallest and ``k``-th
largest finite row ends with ``k = ceil(sqrt(n))``: mass left of ``t_lo``
counts as unsupported (at ``a`` for ``mean_L``, at ``t_lo`` for
``mean_U``), and so does mass right of ``t_hi``.  Since ``t_lo`` is at or
above the smallest anchor, this set contains the one of the smallest
anchor: it is wider, never wrong, and its ends are estimated where the
NPMLE has data on both sides.  With ``k = 1`` the construction is the plain
one above.

Interval.  The ends are estimated by the fitted NPMLE with their bootstrap
standard errors (rows drawn with replacement, the NPMLE refitted, the
supported range held at the sample's), and the set is covered by the
interval of Imbens & Manski (2004), ``[L - c se_L, U + c se_U]`` with ``c``
solving ``Phi(c + (U - L) / max(se_L, se_U)) - Phi(-c) = level``: for a
wide set ``c`` tends to the one-sided quantile, for a point to the two-sided
one.  The interval covers every point of the set, the true mean among them,
with probability at least ``level`` asymptotically.  The frame of
``conf_int`` reports the NPMLE's mean as ``estimate`` and the larger of the
two standard errors as ``se``.  An infinite declared
bound makes its end of the set infinite (any mass, however small, beyond
the anchors moves the mean arbitrarily far).

Quantiles and the CDF.  ``F^-1(q)`` is not identified when ``q`` is at most
the mass left of ``t_lo`` (it may lie anywhere in ``[a, t_lo]``) or above
the mass left of ``t_hi`` (anywhere in ``[t_hi, b]``); ``F(t)`` for ``t``
outside ``[t_lo, t_hi]`` is only bounded by ``0`` and ``F(t_lo)``, or by
``F(t_hi)`` and 1.  The pointwise intervals are widened over the
unsupported region they reach.

References
----------
G. W. Imbens and C. F. Manski (2004), "Confidence intervals for partially
identified parameters", Econometrica 72, 1845-1857.

C. F. Manski (2003), Partial Identification of Probability Distributions,
Springer.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import optimize, stats
from sklearn.base import clone
from sklearn.isotonic import isotonic_regression

try:  # scipy >= 1.12: the same PAVA without per-call parameter validation
    from scipy.optimize import isotonic_regression as _scipy_isotonic
except ImportError:  # pragma: no cover - older scipy
    _scipy_isotonic = None

from .._uncertainty import (
    bootstrap_replicates,
    interval_frame,
    resample_indices,
    z_value,
)
from ..exceptions import NotIdentifiableWarning
from ..utils._warnings import external_stacklevel

__all__ = [
    "CaseOneResampler",
    "MeanSetAt",
    "check_value_bounds",
    "imbens_manski_critical",
    "mean_interval",
    "mean_set",
    "outside_share",
    "placements",
    "support_trim",
    "supported_range",
    "widen_pointwise",
]


def check_value_bounds(bounds: Any, name: str = "bounds") -> tuple[float, float]:
    """``(low, high)`` with ``low < high``; ``None`` means ``(-inf, inf)``.

    Infinite ends are allowed (an unbounded side); NaN is not.
    """
    if bounds is None:
        return -math.inf, math.inf
    try:
        low, high = bounds
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be None or a pair (low, high) of numbers; got "
            f"{type(bounds).__name__}."
        ) from None
    out = []
    for side, v in (("low", low), ("high", high)):
        if isinstance(v, bool) or not isinstance(v, numbers.Real) or math.isnan(v):
            raise ValueError(
                f"{name}: {side} must be a number (infinite allowed, not NaN); "
                f"got {type(v).__name__}."
            )
        out.append(float(v))
    if not out[0] < out[1]:
        raise ValueError(f"{name} must satisfy low < high; got low >= high.")
    return out[0], out[1]


def support_trim(n_rows: int) -> int:
    """Anchors left out at each end of the supported range: ``ceil(sqrt(n))``."""
    return max(1, math.ceil(math.sqrt(n_rows)))


def supported_range(
    Z: NDArray, weights: NDArray | None = None, k: int | None = None
) -> tuple[float, float]:
    """The ``k``-th smallest and ``k``-th largest finite row end.

    ``k`` defaults to :func:`support_trim` of the number of rows; with
    weights, the ends where the weight share of the finite ends first
    reaches ``k / n`` from either side (the ``k``-th ends for equal
    weights).
    """
    n = Z.shape[0]
    k = support_trim(n) if k is None else int(k)
    ends = Z[:, :2].ravel()
    w = np.ones(n) if weights is None else np.asarray(weights, dtype=float)
    w = np.repeat(w, 2)
    finite = np.isfinite(ends)
    ends, w = ends[finite], w[finite]
    if ends.size == 0:
        raise ValueError("X has no finite interval end: nothing is located.")
    order = np.argsort(ends, kind="stable")
    ends, w = ends[order], w[order]
    share = min(k / n, 0.5) * w.sum() * (1 - 1e-12)
    lo = int(np.searchsorted(np.cumsum(w), share, side="left"))
    hi = int(np.searchsorted(np.cumsum(w[::-1]), share, side="left"))
    return float(ends[lo]), float(ends[::-1][hi])


def placements(
    innermost: NDArray, cuts: tuple[float, float], bounds: tuple[float, float]
) -> tuple[NDArray, NDArray, NDArray]:
    """Lowest and highest position of each innermost interval's mass.

    Returns the two positions and a mask of the intervals whose mass is (at
    least partly) outside the supported range.
    """
    t_lo, t_hi = cuts
    a, b = bounds
    left, right = innermost[:, 0], innermost[:, 1]
    below, above = left < t_lo, right > t_hi
    low = np.minimum(left, t_hi)
    low[below] = a
    high = np.maximum(right, t_lo)
    high[above] = b
    for x in (low, high):
        np.maximum(x, a, out=x)
        np.minimum(x, b, out=x)
    return low, high, below | above


def mean_set(
    innermost: NDArray,
    probabilities: NDArray,
    cuts: tuple[float, float],
    bounds: tuple[float, float],
) -> tuple[float, float]:
    """Ends ``(mean_L, mean_U)`` of the identified set of the mean.

    An infinite bound makes its end infinite whenever mass lies outside the
    supported range on that side, however little.
    """
    keep = probabilities > 0
    low, high, _ = placements(innermost[keep], cuts, bounds)
    p = probabilities[keep]
    lower = -math.inf if np.isneginf(low).any() else float(p @ low)
    upper = math.inf if np.isposinf(high).any() else float(p @ high)
    return lower, upper


def outside_share(
    innermost: NDArray, probabilities: NDArray, cuts: tuple[float, float]
) -> float:
    """Estimated mass outside the supported range."""
    _, _, out = placements(innermost, cuts, (-math.inf, math.inf))
    return float(probabilities[out].sum())


def imbens_manski_critical(width: float, sigma: float, level: float) -> float:
    """``c`` with ``Phi(c + width / sigma) - Phi(-c) = level``.

    Parameters
    ----------
    width : float
        Estimated width of the identified set, ``>= 0``.
    sigma : float
        The larger standard error of the two ends.
    level : float
        Confidence level in (0, 1).

    Returns
    -------
    float
        Between ``z_level`` (a wide set; an infinite one) and
        ``z_{(1 + level) / 2}`` (a point).

    Examples
    --------
    >>> from skprivate.interval._identified import imbens_manski_critical
    >>> round(imbens_manski_critical(0.0, 1.0, 0.95), 3)
    1.96
    >>> round(imbens_manski_critical(100.0, 1.0, 0.95), 3)
    1.645
    """
    two_sided = z_value(level)
    one_sided = float(stats.norm.ppf(level))
    width = max(float(width), 0.0)
    if not (sigma > 0):  # a set of unknown spread: a point or infinitely wide
        return two_sided if width == 0 else one_sided
    if not np.isfinite(width):
        return one_sided
    ratio = width / float(sigma)

    def gap(c: float) -> float:
        return stats.norm.cdf(c + ratio) - stats.norm.cdf(-c) - level

    if gap(one_sided) >= 0:
        return one_sided
    # for a point (ratio 0) the root is the two-sided quantile itself, where
    # the gap may round to just below 0 and leave brentq no sign change
    if gap(two_sided) <= 0:
        return two_sided
    return float(optimize.brentq(gap, one_sided, two_sided, xtol=1e-12))


def _isotonic(y: NDArray, w: NDArray) -> NDArray[np.float64]:
    if _scipy_isotonic is not None:
        return _scipy_isotonic(y, weights=w).x
    return isotonic_regression(y, sample_weight=w)  # pragma: no cover


class CaseOneResampler:
    """Bootstrap of the mean set's ends for Case-I rows, without refitting clones.

    Each replicate draws rows with replacement, pools them by anchor and
    runs one weighted isotonic regression: the NPMLE of the replicate.  With
    ``weights`` (sampling weights of a weighted fit) a drawn row keeps its
    weight, as a refit with ``sample_weight`` would.
    """

    def __init__(self, Z: NDArray, weights: NDArray | None = None) -> None:
        delta = np.isneginf(Z[:, 0])
        u = np.where(delta, Z[:, 1], Z[:, 0])
        self.anchors, self.inverse = np.unique(u, return_inverse=True)
        self.delta = delta.astype(float)
        self.w = np.ones(Z.shape[0]) if weights is None else np.asarray(weights, float)

    def ends(
        self,
        idx: NDArray,
        cuts: tuple[float, float],
        bounds: tuple[float, float],
    ) -> tuple[float, float]:
        m = self.anchors.size
        cell = self.inverse[idx]
        weight = np.bincount(cell, weights=self.w[idx], minlength=m)
        hits = np.bincount(cell, weights=(self.w * self.delta)[idx], minlength=m)
        seen = weight > 0
        w, h = weight[seen], hits[seen]
        F = np.clip(_isotonic(h / w, w), 0.0, 1.0)
        uu = self.anchors[seen]
        innermost = np.column_stack(
            [np.concatenate([[-np.inf], uu]), np.concatenate([uu, [np.inf]])]
        )
        probs = np.diff(np.concatenate([[0.0], F, [1.0]]))
        return mean_set(innermost, probs, cuts, bounds)

    def replicates(
        self,
        n_resamples: int,
        random_state: Any,
        cuts: tuple[float, float],
        bounds: tuple[float, float],
    ) -> NDArray[np.float64]:
        n = self.inverse.size
        draws = resample_indices(n, n_resamples, random_state)
        return np.array([self.ends(idx, cuts, bounds) for idx in draws])


class MeanSetAt:
    """Bootstrap statistic: the mean set's ends of a refitted NPMLE."""

    def __init__(self, cuts: tuple[float, float], bounds: tuple[float, float]) -> None:
        self.cuts, self.bounds = cuts, bounds

    def __call__(self, est: Any) -> NDArray[np.float64]:
        return np.array(
            mean_set(est.innermost_, est.probabilities_, self.cuts, self.bounds)
        )


def _bounds_text(bounds: tuple[float, float]) -> str:
    return f"bounds=({bounds[0]:g}, {bounds[1]:g})"


def mean_interval(
    est: Any, request: Any, Z: NDArray, weights: NDArray | None = None
) -> pd.DataFrame:
    """The Imbens-Manski interval of the mean's identified set (see the module).

    ``weights`` are those of a weighted fit, carried into each bootstrap
    replicate with the drawn rows.
    """
    bounds = check_value_bounds(est.bounds)
    cuts = tuple(est.supported_range_)
    low, high = mean_set(est.innermost_, est.probabilities_, cuts, bounds)
    share = outside_share(est.innermost_, est.probabilities_, cuts)
    if not (np.isfinite(low) and np.isfinite(high)):
        warnings.warn(
            f"{share:.1%} of the estimated mass lies outside the anchors' "
            f"supported range and {_bounds_text(bounds)} leaves a side "
            "unbounded: the identified set of the mean is unbounded on that "
            "side, so the interval's end there is infinite. Declare finite "
            "bounds on the values, known before the data are seen, for a "
            "finite interval.",
            NotIdentifiableWarning,
            stacklevel=external_stacklevel(),
        )
    elif share > 0:
        warnings.warn(
            f"{share:.1%} of the estimated mass lies outside the anchors' "
            "supported range, where the data do not locate it: the mean is "
            f"identified only up to a set under the declared "
            f"{_bounds_text(bounds)}, and the interval covers that set "
            "(Imbens-Manski), not a point.",
            NotIdentifiableWarning,
            stacklevel=external_stacklevel(),
        )
    if np.isfinite(low) or np.isfinite(high):
        if _is_case_one(Z):
            reps = request.memo(
                "identified_set",
                lambda: CaseOneResampler(Z, weights).replicates(
                    request.resamples(), request.random_state, cuts, bounds
                ),
            )
        else:
            reps = request.memo(
                "identified_set",
                lambda: bootstrap_replicates(
                    clone(est),
                    Z,
                    MeanSetAt(cuts, bounds),
                    n_resamples=request.resamples(),
                    random_state=request.random_state,
                    n_jobs=request.n_jobs,
                    sample_weight=weights,
                ),
            )
        with np.errstate(invalid="ignore"):
            se_low, se_high = np.nanstd(reps, axis=0, ddof=1)
    else:
        se_low = se_high = np.nan
    sigma = np.nanmax([se_low, se_high]) if np.isfinite([se_low, se_high]).any() else 0
    c = imbens_manski_critical(high - low, sigma, request.level)
    lower = low - c * se_low if np.isfinite(low) else -np.inf
    upper = high + c * se_high if np.isfinite(high) else np.inf
    return interval_frame(
        "mean",
        None,
        est.mean(),
        lower,
        upper,
        request.level,
        "identified_set (Imbens-Manski)",
        "every mean in the identified set under the declared bounds",
        se=sigma,
    )


def warn_if_set_wider(est: Any, se: float, level: float) -> None:
    """Warn when the mean's identified set is wider than a point interval.

    A point interval of the mean (``"influence"``) assumes the anchors span
    the values.  Under the declared bounds, the data locate the mean only
    up to the set ``[mean_L, mean_U]`` of :func:`mean_set`; when that set is
    wider than the interval itself (``2 z se`` at ``level``), the
    interval's claimed coverage rests on that assumption alone, not on the
    data, and a :class:`~skprivate.exceptions.NotIdentifiableWarning` says
    so with the share of the mass the data do not locate.
    """
    bounds = check_value_bounds(est.bounds)
    cuts = tuple(est.supported_range_)
    low, high = mean_set(est.innermost_, est.probabilities_, cuts, bounds)
    width = 2.0 * float(stats.norm.ppf(0.5 + level / 2.0)) * se
    if not high - low > width:
        return
    share = outside_share(est.innermost_, est.probabilities_, cuts)
    if np.isfinite(high - low):
        message = (
            f"{share:.1%} of the estimated mass lies outside the anchors' "
            f"supported range: under the declared {_bounds_text(bounds)} the "
            f"data locate the mean only up to a set of width {high - low:.3g}, "
            f"wider than this {level:.0%} interval ({width:.3g}), which assumes "
            "the anchors span the values. Use method='identified_set' (the "
            "default with bounds) for an interval that covers the mean."
        )
    else:
        message = (
            f"{share:.1%} of the estimated mass lies outside the anchors' "
            f"supported range, and under {_bounds_text(bounds)} it may lie "
            "arbitrarily far out: the data do not locate the mean, and this "
            f"{level:.0%} interval assumes the anchors span the values. "
            "Declare bounds=(low, high) known before seeing the data; "
            "method='identified_set' (the default with bounds) then gives an "
            "interval that covers the mean."
        )
    warnings.warn(message, NotIdentifiableWarning, stacklevel=external_stacklevel())


def _is_case_one(Z: NDArray) -> bool:
    return bool(np.all(np.isneginf(Z[:, 0]) ^ np.isposinf(Z[:, 1])))


def widen_pointwise(
    est: Any,
    quantity: str,
    points: NDArray,
    lower: NDArray,
    upper: NDArray,
    label: str,
) -> tuple[NDArray, NDArray, str]:
    """Widen quantile or CDF intervals over the unsupported region.

    A quantile interval reaching left of ``t_lo`` (or a level at most the
    estimated mass there) extends to ``bounds[0]``, one reaching right of
    ``t_hi`` (or a level above the mass left of it) to ``bounds[1]``; the
    CDF left of ``t_lo`` is bounded below by 0 only, right of ``t_hi``
    above by 1 only.  Every quantile of values in the declared bounds lies
    in them: a quantile interval is cut to ``[bounds[0], bounds[1]]``
    (anchors outside the bounds can carry a resampled end past them).
    """
    a, b = check_value_bounds(est.bounds)
    t_lo, t_hi = est.supported_range_
    lower, upper = np.array(lower, dtype=float), np.array(upper, dtype=float)
    if quantity == "quantile":
        F_lo, F_hi = (float(v) for v in est.cdf(np.array([t_lo, t_hi])))
        left = (lower < t_lo) | (points <= F_lo)
        right = (upper > t_hi) | (points > F_hi)
        lower[left], upper[right] = a, b
        lower, upper = np.clip(lower, a, b), np.clip(upper, a, b)
    else:
        left, right = points < t_lo, points > t_hi
        lower[left], upper[right] = 0.0, 1.0
    if (left | right).any():
        share = outside_share(est.innermost_, est.probabilities_, (t_lo, t_hi))
        warnings.warn(
            f"{int((left | right).sum())} of the {quantity} intervals reach the "
            f"unsupported region, which holds {share:.1%} of the estimated "
            "mass and where the data do not locate it: they are widened to "
            f"the declared {_bounds_text((a, b))} there (for the CDF, to 0 or 1).",
            NotIdentifiableWarning,
            stacklevel=external_stacklevel(),
        )
        label = f"{label}, widened over the unsupported region"
    return lower, upper, label
