"""The shared fit/transform of per-value mechanisms on a declared bounded domain.

Base of :class:`~skprivate.ldp.SquareWaveLDP` and of the additive-noise
privatizers (:class:`~skprivate.ldp.GeneralizedGaussianLDP`,
:class:`~skprivate.ldp.FlippedHuberLDP`): bounds, per-record budget split
over the columns, the output grid of the floating-point-safe samplers.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, OneToOneFeatureMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import PrivatizerMixin
from ..utils import bounds_from_data, check_bounds
from ..utils._bounds import (
    check_grid_width,
    check_noise_scale,
    check_values_in_bounds,
)
from ..utils._budget import budget_share
from ..utils._row_blocks import in_row_blocks
from ..utils.validation import check_numeric_input

__all__ = [
    "CLAMP_LOG_TAIL",
    "GRID_BITS",
    "MAX_GRID_INDEX",
]


# Grid samplers: 2**GRID_BITS grid steps per noise scale (at least per range),
# outputs clamped where the noise tail has probability exp(-CLAMP_LOG_TAIL),
# grid indices below MAX_GRID_INDEX so they stay exact in double precision.
GRID_BITS = 20
CLAMP_LOG_TAIL = 20.0
MAX_GRID_INDEX = 2.0**50


class _BoundedPrivatizer(OneToOneFeatureMixin, PrivatizerMixin, BaseEstimator):
    """Shared fit/transform of the per-value mechanisms on a bounded domain."""

    # Additive noise has a scale proportional to the range over epsilon,
    # which must stay within double precision (check_noise_scale).
    _noise_scales_with_range = False

    def fit(self, X: ArrayLike, y: Any = None):
        """Set up the mechanism for the columns of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Values to privatize later; only the column count (and, with
            ``bounds=None``, min and max with a privacy-leak warning) is used.
        y : Ignored
            Present for scikit-learn API compatibility.

        Returns
        -------
        self : object
        """
        return super().fit(X, y)

    def _fit(self, X: ArrayLike, y: Any = None):
        self._check_params()
        X = check_numeric_input(X, finite=True)
        X = validate_data(self, X, dtype=np.float64, ensure_all_finite=True)
        if self.bounds is None:
            low, high = bounds_from_data(X, owner=type(self).__name__)
        else:
            names = getattr(self, "feature_names_in_", None)
            low, high = check_bounds(self.bounds, X.shape[1], feature_names=names)
        check_grid_width(
            low,
            high,
            getattr(self, "feature_names_in_", None),
            declared=self.bounds is not None,
        )
        self.bounds_ = (low, high)
        q = X.shape[1]
        for name in ("epsilon", "delta"):
            total = float(getattr(self, name, 0.0))
            if total > 0 and budget_share(total, q) == 0.0:
                raise ValueError(
                    f"{name}={total!r} over {q} columns leaves each column a "
                    "budget that underflows to 0 in double precision; give a "
                    f"larger {name} or fewer columns."
                )
        if self._noise_scales_with_range:
            check_noise_scale(
                low,
                high,
                budget_share(float(self.epsilon), q),
                getattr(self, "feature_names_in_", None),
                declared=self.bounds is not None,
            )
        self._calibrate(high - low)
        return self

    @property
    def _epsilon_per_feature(self) -> float:
        return budget_share(self.epsilon, self.n_features_in_)

    @property
    def _delta_per_feature(self) -> float:
        return budget_share(getattr(self, "delta", 0.0), self.n_features_in_)

    def _base_summary(self) -> dict[str, Any]:
        low, high = self.bounds_
        summary = {
            "epsilon": float(self.epsilon),
            # the nominal share; the noise is calibrated to budget_share, at most it
            "epsilon_per_feature": float(self.epsilon) / self.n_features_in_,
            "bounds": (low.tolist(), high.tolist()),
            "bounds_from_data": bool(self.bounds is None),
            "floating_point_safe": bool(self.secure),
            **self._release_policy(),
        }
        if self.secure:
            summary["output_grid"] = {
                "origin": low.tolist(),
                "step": self.grid_step_.tolist(),
            }
        return summary

    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """Privatize each value independently.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Values within the bounds.

        Returns
        -------
        X_private : ndarray of shape (n_samples, n_features)
        """
        return super().transform(X)

    def _transform(self, X: ArrayLike) -> NDArray[np.float64]:
        check_is_fitted(self)
        X = validate_data(
            self,
            check_numeric_input(X, finite=True),
            reset=False,
            dtype=np.float64,
            ensure_all_finite=True,
        )
        low, high = self.bounds_
        names = getattr(self, "feature_names_in_", None)
        declared = self.bounds is not None
        check_values_in_bounds(X, low, high, names, declared=declared)
        rng = self._next_generator(X)
        return in_row_blocks(lambda B: self._release(B, low, high, rng), X)
