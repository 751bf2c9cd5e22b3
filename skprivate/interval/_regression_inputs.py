"""What ``IterativeIntervalRegressor.fit`` takes in: the base regressor and y.

The clone of the base regressor (seeded when the estimator is), the
interval responses (privatized first when a ``privatizer`` is set) and the
checks of the rows that no solver can work around.  The methods are those
of a mixin of the estimator: they read its parameters through ``self``.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone, is_classifier
from sklearn.linear_model import LinearRegression
from sklearn.utils import get_tags

from ..base import PrivatizerMixin
from ..utils import check_generator
from ..utils.validation import (
    check_float_array,
    check_interval_array,
    check_magnitude,
    check_numeric_input,
    check_two_sided,
)

__all__ = ["RegressionInputsMixin"]


class RegressionInputsMixin:
    """The base regressor and the responses of a fit (see the estimator)."""

    def _get_estimator(self):
        return LinearRegression() if self.estimator is None else self.estimator

    def _make_estimator(self):
        base = self._get_estimator()
        if is_classifier(base):
            raise ValueError(
                f"estimator must be a regressor; got the classifier {base!r}."
            )
        try:
            kind = get_tags(base).estimator_type
        except Exception:
            kind = None
        if kind not in (None, "regressor"):
            raise ValueError(f"estimator must be a regressor; got a {kind} {base!r}.")
        est = clone(base)
        if self.random_state is not None:
            rng = check_generator(self.random_state)
            seeds = {
                k: int(rng.integers(np.iinfo(np.int32).max))
                for k, v in sorted(est.get_params(deep=True).items())
                if (k == "random_state" or k.endswith("__random_state")) and v is None
            }
            est.set_params(**seeds)
        return est

    def _responses(self, y: Any) -> NDArray[np.float64]:
        if self.privatizer is not None and not isinstance(
            self.privatizer, PrivatizerMixin
        ):
            # a composite (a Pipeline ending in a mechanism) states no
            # guarantee of its own: privacy_report could not read it
            raise TypeError(
                "privatizer must be an interval mechanism (IntervalCaseI, "
                "IntervalCaseII, IntervalMechanism, IntervalEnsemble); got "
                f"{type(self.privatizer).__name__}."
            )
        if self.privatizer is not None:
            # (a non-number is refused by its position and type, not quoted:
            # these are the raw responses)
            y_raw = check_float_array(
                check_numeric_input(y, name="y"), name="y", allow_nan=True
            )
            if y_raw.ndim == 2 and y_raw.shape[1] == 1:
                y_raw = y_raw[:, 0]
            if y_raw.ndim != 1:
                raise ValueError(
                    "With a privatizer, y must be the raw 1-D responses; got shape "
                    f"{y_raw.shape}."
                )
            y = np.asarray(self._privatize(y_raw.reshape(-1, 1)), dtype=float)
            if y.shape != (y_raw.shape[0], 2):
                # A mechanism releasing values (LaplaceLDP) is not censoring:
                # reading its outputs as exact responses would be wrong.
                raise ValueError(
                    "privatizer must be an interval mechanism (IntervalCaseI, "
                    "IntervalCaseII, IntervalMechanism, IntervalEnsemble) whose "
                    "transform returns one interval [lower, upper] per row; "
                    f"{type(self.privatizer).__name__} returned shape {y.shape}."
                )
            Z = check_interval_array(y, name="y")
        else:
            self._privatize(None)
            if y is None:
                raise ValueError(
                    f"{type(self).__name__} requires y to be passed, but the target y "
                    "is None."
                )
            Z = check_interval_array(y, name="y")
        if np.any(np.isinf(Z[:, 0]) & np.isinf(Z[:, 1])):
            raise ValueError(
                "y has rows (-inf, inf) that carry no information; drop them first."
            )
        check_magnitude(Z, name="y")  # (it skips the infinite bounds)
        return check_two_sided(Z, name="y")

    def _check_samples(self, X: Any, Z: NDArray) -> bool:
        # The rows of X and y agree and y is not one exact value repeated;
        # whether every response is exact.
        n = Z.shape[0]
        shape = X.shape if hasattr(X, "shape") else np.asarray(X).shape
        if not shape:
            # (named by its kind only: a scalar X is a raw value)
            raise ValueError(
                "X must be an array of shape (n_samples, n_features); got a "
                f"scalar of type {type(X).__name__}."
            )
        n_x = shape[0]
        if n_x != n:
            raise ValueError(
                f"X and y have inconsistent numbers of samples: {n_x} and {n}."
            )
        all_exact = bool(np.all(Z[:, 0] == Z[:, 1]))
        if n > 1 and all_exact and np.all(Z[:, 0] == Z[0, 0]):
            raise ValueError(
                f"y holds a single distinct exact value (all {n} rows): the noise "
                "scale is not identified and there is nothing to regress. Check "
                "the target column."
            )
        return all_exact
