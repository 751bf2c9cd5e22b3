"""Helpers of the density estimators that pool every column as one variable.

:class:`~skprivate.ldp.PerturbedKDEEstimator` and
:class:`~skprivate.ldp.SquareWaveEMSEstimator` read the domain from the
privatizer (or their own ``bounds``), count the reports per fold of
respondents and fit EM with a smoothing step chosen by held-out likelihood.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits

from .._grid_density._ems import (
    ML_FOLDS,
    ML_MAX_ITER,
    ML_TOL,
    ML_WIDTHS,
    ems_cell_probabilities,
    select_ems_width,
)
from ..utils import check_bounds

__all__ = [
    "_bounds_of",
    "_fold_counts",
    "_smoothed_ml",
]


def _bounds_of(estimator, priv) -> tuple[float, float]:
    if priv is not None and hasattr(priv, "bounds_"):
        low, high = (np.ravel(v) for v in priv.bounds_)
        if np.ptp(low) > 0 or np.ptp(high) > 0:
            raise ValueError(
                f"{type(estimator).__name__} pools every column as values of one "
                "variable, so the privatizer's columns must share one domain; got "
                f"bounds {low.tolist()} to {high.tolist()}."
            )
        return float(low[0]), float(high[0])
    if estimator.bounds is None:
        raise ValueError(
            f"{type(estimator).__name__} needs bounds (the declared domain of the "
            "mechanism), or a privatizer to read them from."
        )
    low, high = check_bounds(estimator.bounds, 1)
    return float(low[0]), float(high[0])


def _fold_counts(bins: NDArray, n_bins: int, n_cols: int) -> NDArray[np.float64]:
    """Counts per bin for each of ``ML_FOLDS`` folds of respondents.

    ``bins`` is the raveled (row-major) bin index of every released value, so
    value ``i`` belongs to respondent ``i // n_cols``; respondents go to the
    folds round robin, keeping one respondent's values in one fold.
    """
    fold = (np.arange(bins.size) // n_cols) % ML_FOLDS
    flat = fold * n_bins + bins
    return np.bincount(flat, minlength=ML_FOLDS * n_bins).reshape(ML_FOLDS, n_bins)


def _smoothed_ml(
    M: NDArray, folds: NDArray
) -> tuple[NDArray[np.float64], int, float, NDArray[np.float64]]:
    """EMS with the smoothing width chosen by held-out likelihood of the reports."""
    with threadpool_limits(limits=1, user_api="blas"):
        width, scores = select_ems_width(
            M, folds, np.array(ML_WIDTHS), max_iter=ML_MAX_ITER, tol=ML_TOL
        )
        theta, n_iter = ems_cell_probabilities(
            M, folds.sum(axis=0), width, max_iter=ML_MAX_ITER, tol=ML_TOL
        )
    return theta, n_iter, width, scores
