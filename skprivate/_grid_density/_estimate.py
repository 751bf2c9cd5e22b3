"""The grid of cells and the population interface of a density estimated on it."""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils import check_array
from sklearn.utils.validation import check_is_fitted

from ..distributions import PiecewiseUniformDistribution, PopulationEstimateMixin
from ..utils._redact import raw_values_withheld
from ..utils.validation import check_numeric_input

__all__ = ["GridDensityMixin", "grid_edges"]


def grid_edges(bounds: tuple[float, float], n_points: int) -> NDArray[np.float64]:
    """The ``n_points + 1`` edges of ``n_points`` equal cells of ``[a, b]``."""
    a, b = float(bounds[0]), float(bounds[1])
    return a + (b - a) * np.arange(int(n_points) + 1) / int(n_points)


class GridDensityMixin(PopulationEstimateMixin):
    """A density estimate on grid cells ``edges_`` with values ``density_``.

    Shared by the RVNS reconstruction and the baselines' estimates: the
    population interface (a piecewise-uniform distribution) and scoring on
    held-out clean values, so that a grid search can tune the mechanism.
    """

    def _distribution(self) -> PiecewiseUniformDistribution:
        return PiecewiseUniformDistribution(
            self.edges_, self.density_ * np.diff(self.edges_)
        )

    def score_samples(self, X: ArrayLike) -> NDArray[np.float64]:
        """Log of the estimated density at clean values.

        Every entry of ``X`` is a value of the one variable; a row's score is
        the sum over its entries (independent values).  With
        ``privatizer=None`` the estimator was fitted on ``k`` reports per row,
        so the column count of the clean data is not checked against
        ``n_features_in_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_values)
            Clean values of the variable (usually one column).

        Returns
        -------
        log_density : ndarray of shape (n_samples,)
            Sum over the row's values; ``-inf`` where the estimate is zero
            (outside the bounds).
        """
        check_is_fitted(self)
        with raw_values_withheld():  # clean values: no error quotes them
            X = check_array(check_numeric_input(X), dtype=np.float64, input_name="X")
        with np.errstate(divide="ignore"):
            return np.log(self.pdf(X)).sum(axis=1)

    def score(self, X: ArrayLike, y: Any = None) -> float:
        """Mean log-density of clean values (higher is better).

        Lets :class:`~sklearn.model_selection.GridSearchCV` tune the
        mechanism or the estimator on held-out clean data, with the density
        floored at ``1e-12`` so that one value in an empty cell does not give
        ``-inf``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_values)
            Clean values (usually one column).
        y : Ignored
            Present for scikit-learn API compatibility.

        Returns
        -------
        score : float
        """
        return float(np.mean(np.maximum(self.score_samples(X), np.log(1e-12))))
