"""Metrics and scorers for predictions against interval-valued targets."""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.metrics import make_scorer

from ..utils._warnings import external_stacklevel
from ..utils.validation import (
    check_interval_array,
    check_numeric_input,
    check_weights,
)

__all__ = [
    "interval_distance",
    "interval_mae",
    "interval_r2_score",
    "interval_r2_scorer",
    "neg_interval_mae_scorer",
]


def interval_distance(y_true: ArrayLike, y_pred: ArrayLike) -> NDArray[np.float64]:
    """Distance from each prediction to its interval (0 inside).

    Parameters
    ----------
    y_true : array-like of shape (n_samples, 2) or (n_samples,)
        Interval targets ``[lower, upper]`` or exact values.
    y_pred : array-like of shape (n_samples,)
        Predictions.

    Returns
    -------
    ndarray of shape (n_samples,)

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval import interval_distance
    >>> interval_distance([[0.0, 1.0], [-np.inf, 0.0], [2.0, 2.0]], [0.5, 1.0, 1.5])
    array([0. , 1. , 0.5])
    """
    Z = check_interval_array(y_true, name="y_true")
    pred = np.asarray(check_numeric_input(y_pred, name="y_pred"), dtype=float)
    if pred.ndim == 2 and pred.shape[1] == 1:
        pred = pred[:, 0]
    if pred.ndim != 1:
        raise ValueError(
            f"y_pred must be one prediction per row, shape (n,); got {pred.shape}."
        )
    if pred.shape[0] != Z.shape[0]:
        raise ValueError(
            f"y_pred has {pred.shape[0]} entries but y_true has {Z.shape[0]} rows."
        )
    if not np.all(np.isfinite(pred)):
        i = int(np.flatnonzero(~np.isfinite(pred))[0])
        kind = "NaN" if np.isnan(pred[i]) else "infinite"
        raise ValueError(f"y_pred must be finite; y_pred[{i}] is {kind}.")
    return np.maximum(Z[:, 0] - pred, 0.0) + np.maximum(pred - Z[:, 1], 0.0)


def interval_mae(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    """Mean distance from the predictions to the interval targets.

    Zero for a prediction inside its interval; the ordinary mean absolute
    error for exact targets.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, 2) or (n_samples,)
        Interval targets or exact values.
    y_pred : array-like of shape (n_samples,)
        Predictions.
    sample_weight : array-like of shape (n_samples,), optional
        Weights.

    Returns
    -------
    float

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval import interval_mae
    >>> interval_mae([[0.0, 1.0], [-np.inf, 0.0]], [0.5, 1.0])
    0.5
    """
    distance = interval_distance(y_true, y_pred)
    if distance.size == 0:
        raise ValueError("y_true has 0 rows; the error needs at least one.")
    w = check_weights(sample_weight, distance.shape[0])
    return float(np.average(distance, weights=w))


def _best_constant(Z: NDArray, w: NDArray) -> float:
    """The constant ``c`` minimizing ``sum_i w_i d(c, I_i)^2``, exactly.

    Half the derivative of the loss, ``g(t) = sum_{lo_i > t} w_i (t - lo_i)
    + sum_{hi_i < t} w_i (t - hi_i)``, is continuous, non-decreasing and
    linear between the finite ends of the intervals: its root is an end
    where ``g`` vanishes, or the weighted mean of the ends that are active
    on the segment where ``g`` changes sign.  A constant inside every
    interval is found exactly (then the loss is exactly 0), as a numerical
    minimizer that never evaluates the ends would not.

    Examples
    --------
    >>> import numpy as np
    >>> Z = np.array([[-np.inf, 0.0], [-np.inf, 1.0], [2.0, 3.0]])
    >>> _best_constant(Z, np.ones(3))  # g(1) = 1 - 1 = 0
    1.0
    """
    lo, hi = Z[:, 0], Z[:, 1]
    fl, fh = np.isfinite(lo), np.isfinite(hi)
    ends = np.unique(np.concatenate([lo[fl], hi[fh]]))
    if ends.size == 0:
        return 0.0
    # Left ends sorted, with the weight and weighted sum of those above t;
    # right ends sorted, with those below t.
    order_lo = np.argsort(lo[fl], kind="stable")
    lo_s, w_lo = lo[fl][order_lo], w[fl][order_lo]
    order_hi = np.argsort(hi[fh], kind="stable")
    hi_s, w_hi = hi[fh][order_hi], w[fh][order_hi]
    cw_lo = np.concatenate([[0.0], np.cumsum(w_lo)])
    cs_lo = np.concatenate([[0.0], np.cumsum(w_lo * lo_s)])
    cw_hi = np.concatenate([[0.0], np.cumsum(w_hi)])
    cs_hi = np.concatenate([[0.0], np.cumsum(w_hi * hi_s)])

    def active(first_lo: NDArray, last_hi: NDArray) -> tuple[NDArray, NDArray]:
        # left ends from index first_lo on, right ends before index last_hi
        weight = cw_lo[-1] - cw_lo[first_lo] + cw_hi[last_hi]
        total = cs_lo[-1] - cs_lo[first_lo] + cs_hi[last_hi]
        return weight, total

    weight, total = active(
        np.searchsorted(lo_s, ends, side="right"),
        np.searchsorted(hi_s, ends, side="left"),
    )
    g = ends * weight - total
    zero = np.flatnonzero(g == 0)
    if zero.size:
        return float(ends[zero[0]])
    k = int(np.searchsorted(g > 0, True))  # g is non-decreasing
    # On the open segment below ends[k] (above ends[k - 1]): the left ends
    # at or above ends[k] and the right ends at or below ends[k - 1].
    first_lo = (
        np.searchsorted(lo_s, ends[k], side="left") if k < ends.size else lo_s.size
    )
    last_hi = np.searchsorted(hi_s, ends[k - 1], side="right") if k > 0 else 0
    weight, total = active(np.asarray(first_lo), np.asarray(last_hi))
    return float(total / weight)


def interval_r2_score(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    """Coefficient of determination for interval targets.

    ``1 - Σ d(ŷ_i, I_i)² / Σ d(c, I_i)²`` where ``d`` is
    :func:`interval_distance` and ``c`` is the best constant prediction
    (minimizing the denominator).  For exact targets this is the usual R².
    When the best constant already lies in every interval (for exact
    targets: a constant ``y_true``) the ratio is undefined: the score is
    then 1 if the predictions do too, else 0, as scikit-learn's
    :func:`~sklearn.metrics.r2_score` scores a constant target.  With
    fewer than two rows R² is not defined: the score is NaN with an
    :class:`~sklearn.exceptions.UndefinedMetricWarning`, as there too.

    Interval R² is not comparable with ordinary R² computed elsewhere: a
    prediction anywhere inside its interval counts as exact, so the score
    rises as the intervals widen, and the same model scores differently on
    intervals and on the exact values they hide.  Compare interval R² only
    between models scored on the same intervals; to compare with ordinary R²
    (e.g. with a model trained on clean data), score on exact test values,
    where the two coincide.

    Parameters
    ----------
    y_true : array-like of shape (n_samples, 2) or (n_samples,)
        Interval targets or exact values.
    y_pred : array-like of shape (n_samples,)
        Predictions.
    sample_weight : array-like of shape (n_samples,), optional
        Weights.

    Returns
    -------
    float

    Examples
    --------
    >>> from skprivate.interval import interval_r2_score
    >>> interval_r2_score([1.0, 2.0, 3.0], [1.0, 2.0, 3.0])
    1.0
    """
    Z = check_interval_array(y_true, name="y_true")
    distance = interval_distance(Z, y_pred)
    if Z.shape[0] == 0:
        raise ValueError("y_true has 0 rows; the score needs at least one.")
    w = check_weights(sample_weight, Z.shape[0])
    if Z.shape[0] < 2:
        warnings.warn(
            "R^2 score is not well-defined with less than two samples.",
            UndefinedMetricWarning,
            stacklevel=external_stacklevel(),
        )
        return float("nan")
    num = float(np.dot(w, distance**2))
    exact = Z[:, 0] == Z[:, 1]
    c = float(np.average(Z[:, 0], weights=w)) if np.all(exact) else _best_constant(Z, w)
    den = float(np.dot(w, interval_distance(Z, np.full(Z.shape[0], c)) ** 2))
    if den == 0:
        return 1.0 if num == 0 else 0.0
    return 1.0 - num / den


# scikit-learn's scorer objects all share one generic docstring, so
# ``help(interval_r2_scorer)`` would say nothing about intervals.  The two
# subclasses below add only their documentation; their class is taken from
# ``make_scorer`` itself, so no private scikit-learn module is imported.
_ScorerBase = type(make_scorer(interval_mae))


class IntervalR2Scorer(_ScorerBase):
    """Scorer object for :func:`interval_r2_score` (higher is better).

    Pass ``scoring=interval_r2_scorer`` to ``cross_val_score``,
    ``GridSearchCV`` and friends when the target ``y`` is interval-valued
    (an ``(n, 2)`` array of ``[lower, upper]``); scikit-learn's default R²
    cannot score such a ``y``.  ``interval_r2_scorer(estimator, X, y)``
    returns ``interval_r2_score(y, estimator.predict(X))``.

    Interval R² is not comparable with ordinary R².  A prediction inside its
    interval counts as exact, and the baseline is the best constant measured
    the same way, so the score depends on how wide the intervals are: the
    same model can score close to 1 on wide intervals and much lower on the
    exact values.  Compare interval R² only between models scored on the
    same intervals; to compare with a model trained on clean data, score
    both on clean (exact) test targets, where interval R² equals R².

    See Also
    --------
    interval_r2_score : the metric itself.
    neg_interval_mae_scorer : minus the mean distance to the intervals.
    """


class NegIntervalMAEScorer(_ScorerBase):
    """Scorer object for minus :func:`interval_mae` (higher is better).

    Pass ``scoring=neg_interval_mae_scorer`` to model-selection tools when
    the target ``y`` is interval-valued.  ``neg_interval_mae_scorer(estimator,
    X, y)`` returns ``-interval_mae(y, estimator.predict(X))``: minus the mean
    distance from each prediction to its interval (0 inside), in the unit of
    ``y``, following scikit-learn's ``neg_*`` convention so that larger is
    better.

    See Also
    --------
    interval_mae : the metric itself.
    interval_r2_scorer : interval R².
    """


neg_interval_mae_scorer = make_scorer(interval_mae, greater_is_better=False)
neg_interval_mae_scorer.__class__ = NegIntervalMAEScorer
interval_r2_scorer = make_scorer(interval_r2_score)
interval_r2_scorer.__class__ = IntervalR2Scorer
