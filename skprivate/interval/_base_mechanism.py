"""What every interval mechanism shares: design hooks, fit, transform, privacy.

Subclasses define the anchor design (``_components``, ``_n_anchors``); the
base turns it into reported cells, feature names and the privacy coverage.
The survey-side methods come from :class:`~skprivate.interval._survey.SurveyMixin`.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import PrivatizerMixin
from ..exceptions import NotIdentifiableWarning
from ..utils import HasMethods, Interval, Options
from ..utils._row_blocks import in_row_blocks
from ..utils.validation import check_numeric_input
from ._anchors import (
    AnchorDistribution,
    as_cdf,
    cell_bounds,
    check_acceptable_range,
    design_coverage,
    in_fixed_set,
)
from ._survey import SurveyMixin

__all__ = ["_BaseIntervalMechanism"]

_DISTRIBUTION = [Options({"logistic", "normal", "uniform"}), HasMethods(["cdf", "ppf"])]
_COMMON_CONSTRAINTS: dict[str, list] = {
    "distribution": _DISTRIBUTION,
    "loc": [Interval(numbers.Real, None, None)],
    "scale": [Interval(numbers.Real, 0, None, closed="neither")],
    "anchor_loc": [Interval(numbers.Real, None, None), "array-like"],
    "anchor_scale": [Interval(numbers.Real, 0, None, closed="neither"), "array-like"],
    "random_state": ["random_state"],
}
_N_COVERAGE_DRAWS = 200_000


def _per_column(value: Any, n_features: int, name: str) -> NDArray[np.float64]:
    arr = np.asarray(value, dtype=float)
    try:
        arr = np.broadcast_to(arr, (n_features,)).copy()
    except ValueError as exc:
        raise ValueError(
            f"{name} must be a scalar or have one entry per column ({n_features}); "
            f"got shape {np.shape(value)}."
        ) from exc
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; got {value!r}.")
    return arr


class _BaseIntervalMechanism(SurveyMixin, PrivatizerMixin, BaseEstimator):
    """Shared machinery; subclasses define ``_components(rng, n, j)``."""

    # -- design, overridden by subclasses -----------------------------------
    def _n_columns_hint(self) -> int:
        if hasattr(self, "n_features_in_"):
            return self.n_features_in_
        sizes = [np.size(self.anchor_loc), np.size(self.anchor_scale)]
        return max(sizes)

    def _standardization(self, j: int) -> tuple[float, float]:
        d = self._n_columns_hint()
        a_loc = _per_column(self.anchor_loc, d, "anchor_loc")
        a_scale = _per_column(self.anchor_scale, d, "anchor_scale")
        if np.any(a_scale <= 0):
            raise ValueError(
                f"anchor_scale must be positive; got {self.anchor_scale!r}."
            )
        return float(a_loc[j]), float(a_scale[j])

    def _anchor_distribution(self, j: int) -> AnchorDistribution:
        a_loc, a_scale = self._standardization(j)
        return AnchorDistribution(
            self.distribution, self.loc, self.scale, a_loc, a_scale
        )

    def _fixed_set(self) -> NDArray:
        return check_acceptable_range(getattr(self, "acceptable_range", None))

    def _n_anchors(self) -> int:
        raise NotImplementedError  # pragma: no cover - abstract

    def _components(self, rng, n: int, j: int) -> list[tuple[NDArray, tuple]]:
        raise NotImplementedError  # pragma: no cover - abstract

    def _anchor_support(self, j: int) -> tuple[float, float]:
        return self._anchor_distribution(j).support()

    def _validate_design(self) -> None:
        for j in range(self._n_columns_hint()):
            self._standardization(j)
        self._fixed_set()

    # -- estimator API --------------------------------------------------------
    def fit(self, X: ArrayLike, y: Any = None) -> _BaseIntervalMechanism:
        """Record the number of columns (and their names); no data is stored.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Raw values (only the shape and column names are used).
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        self._check_params()
        validate_data(self, check_numeric_input(X), ensure_all_finite=True)
        self._validate_design()
        return self

    def _privatize_column(self, y: NDArray, j: int, rng) -> tuple[NDArray, NDArray]:
        comps = self._components(rng, y.shape[0], j)
        fixed = self._fixed_set()
        lo = np.full(y.shape, -np.inf)
        hi = np.full(y.shape, np.inf)
        exact = in_fixed_set(y, fixed)
        anchors = []
        for q, exact_cells in comps:
            idx, c_lo, c_hi = cell_bounds(q, y)
            lo, hi = np.maximum(lo, c_lo), np.minimum(hi, c_hi)
            if exact_cells:
                exact |= np.isin(idx, exact_cells)
            anchors.append(q)
        lo = np.where(exact, y, lo)
        hi = np.where(exact, y, hi)
        return np.column_stack([lo, hi]), np.sort(np.hstack(anchors), axis=1)

    def _warn_uncovered(self, y: NDArray, j: int, name: str) -> None:
        low, high = self._anchor_support(j)
        outside = (y < low) | (y > high)
        if outside.any():
            warnings.warn(
                f"{type(self).__name__}: {outside.mean():.1%} of column {name!r} lie "
                f"outside the support of the anchors [{low:g}, {high:g}]; their "
                "reports are half-lines that never resolve, and the population "
                "distribution is not identifiable there.",
                NotIdentifiableWarning,
                stacklevel=3,
            )

    def transform(self, X: ArrayLike, return_anchors: bool = False):
        """Privatize every column: each value becomes the random cell holding it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Raw values (finite).
        return_anchors : bool, default=False
            Also return the anchors drawn (public: they are independent of
            ``X``), sorted per row and column.

        Returns
        -------
        intervals : ndarray of shape (n_samples, 2 * n_features)
            ``[lower, upper]`` of each column, meaning the value lies in
            ``(lower, upper]``; ``lower == upper`` for an exact report.
        anchors : ndarray of shape (n_samples, n_features, n_anchors)
            Only when ``return_anchors=True``.
        """
        check_is_fitted(self)
        X = validate_data(
            self, check_numeric_input(X), reset=False, ensure_all_finite=True
        )
        rng = self._next_generator(X)
        names = self.get_feature_names_out()[::2]
        for j in range(X.shape[1]):
            self._warn_uncovered(X[:, j], j, names[j].removesuffix("_lower"))

        def release(B):
            out, anchors = [], []
            for j in range(B.shape[1]):
                z, q = self._privatize_column(B[:, j].astype(float), j, rng)
                out.append(z)
                anchors.append(q)
            return np.hstack(out), np.stack(anchors, axis=1)

        intervals, anchors = in_row_blocks(release, X)
        if return_anchors:
            return intervals, anchors
        return intervals

    def get_feature_names_out(self, input_features=None) -> NDArray[np.object_]:
        """Output names ``[f"{col}_lower", f"{col}_upper", ...]``.

        Parameters
        ----------
        input_features : array-like of str, optional
            Input column names; defaults to ``feature_names_in_`` or
            ``x0, x1, ...``.

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self, "n_features_in_")
        if input_features is None:
            input_features = getattr(
                self,
                "feature_names_in_",
                [f"x{j}" for j in range(self.n_features_in_)],
            )
        input_features = [str(c) for c in input_features]
        if len(input_features) != self.n_features_in_:
            raise ValueError(
                f"input_features should have length {self.n_features_in_}; "
                f"got {len(input_features)}."
            )
        names = [f"{c}_{side}" for c in input_features for side in ("lower", "upper")]
        return np.asarray(names, dtype=object)

    # -- privacy -----------------------------------------------------------
    def privacy_summary(self, reference: Any = None) -> dict[str, Any]:
        """Describe the guarantee: the expected privacy coverage (Definition 1).

        The coverage is ``E[P_Y(S_Z)]``, the probability that a fresh value
        from the population falls in the set revealed about a respondent,
        averaged over respondents and anchors (Monte Carlo over 200,000
        anchor draws with a fixed seed, using the consistent estimator
        ``E[Σ_j P_Y(cell_j \\ A)²]``).

        Parameters
        ----------
        reference : None, array-like, callable or distribution, optional
            Population of each column: ``None`` means normal with mean
            ``anchor_loc`` and standard deviation ``anchor_scale`` (the
            standardized response is ``N(0, 1)``); a 1-D sample (empirical
            CDF), an ``(n, n_features)`` sample, a callable CDF or an object
            with a ``cdf`` method.

        Returns
        -------
        summary : dict
            ``notion``, ``mechanism``, ``n_cells``, ``exact_disclosure``,
            ``coverage`` and ``leakage`` (``1 - coverage``); per column when
            there are several.
        """
        from scipy import stats

        self._check_params()
        self._validate_design()
        d = self._n_columns_hint()
        rng = np.random.default_rng(0)
        fixed = self._fixed_set()
        coverages = []
        for j in range(d):
            if reference is None:
                a_loc, a_scale = self._standardization(j)
                cdf = as_cdf(stats.norm(a_loc, a_scale))
            elif isinstance(reference, np.ndarray | list) and np.ndim(reference) == 2:
                cdf = as_cdf(np.asarray(reference)[:, j])
            else:
                cdf = as_cdf(reference)
            comps = self._components(rng, _N_COVERAGE_DRAWS, j)
            coverages.append(float(design_coverage(comps, cdf, fixed).mean()))
        coverage = coverages[0] if d == 1 else coverages
        leakage = 1 - coverages[0] if d == 1 else [1 - c for c in coverages]
        exact = bool(fixed.shape[0]) or bool(getattr(self, "exact_cells", None))
        return {
            "notion": "interval privacy",
            "mechanism": type(self).__name__,
            "n_cells": self._n_anchors() + 1,
            "exact_disclosure": exact,
            "coverage": coverage,
            "leakage": leakage,
            "reference": "N(anchor_loc, anchor_scale^2)"
            if reference is None
            else "user-given",
        }
