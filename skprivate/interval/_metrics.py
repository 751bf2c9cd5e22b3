"""Metrics and scorers for predictions against interval-valued targets."""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import optimize
from sklearn.metrics import make_scorer

from ..utils.validation import check_interval_array

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
    pred = np.asarray(y_pred, dtype=float).ravel()
    if pred.shape[0] != Z.shape[0]:
        raise ValueError(
            f"y_pred has {pred.shape[0]} entries but y_true has {Z.shape[0]} rows."
        )
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
    return float(np.average(interval_distance(y_true, y_pred), weights=sample_weight))


def interval_r2_score(
    y_true: ArrayLike, y_pred: ArrayLike, *, sample_weight: ArrayLike | None = None
) -> float:
    """Coefficient of determination for interval targets.

    ``1 - Σ d(ŷ_i, I_i)² / Σ d(c, I_i)²`` where ``d`` is
    :func:`interval_distance` and ``c`` is the best constant prediction
    (minimizing the denominator).  For exact targets this is the usual R².
    When the best constant already lies in every interval the ratio is
    undefined: the score is then 1 if the predictions do too, else ``-inf``.

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
    w = (
        np.ones(Z.shape[0])
        if sample_weight is None
        else np.asarray(sample_weight, float)
    )
    num = float(np.dot(w, interval_distance(Z, y_pred) ** 2))
    exact = Z[:, 0] == Z[:, 1]
    if np.all(exact):
        c = float(np.average(Z[:, 0], weights=w))
    else:
        finite = np.concatenate(
            [Z[:, 0][np.isfinite(Z[:, 0])], Z[:, 1][np.isfinite(Z[:, 1])]]
        )
        lo, hi = (finite.min(), finite.max()) if finite.size else (0.0, 0.0)

        def loss(t):
            return float(np.dot(w, interval_distance(Z, np.full(Z.shape[0], t)) ** 2))

        c = (
            optimize.minimize_scalar(loss, bounds=(lo, hi), method="bounded").x
            if hi > lo
            else lo
        )
    den = float(np.dot(w, interval_distance(Z, np.full(Z.shape[0], c)) ** 2))
    if den == 0:
        return 1.0 if num == 0 else -np.inf
    return 1.0 - num / den


neg_interval_mae_scorer = make_scorer(interval_mae, greater_is_better=False)
neg_interval_mae_scorer.__doc__ = (
    "Scorer: minus :func:`interval_mae` (higher is better)."
)
interval_r2_scorer = make_scorer(interval_r2_score)
