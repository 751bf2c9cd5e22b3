"""Fitting the base regressor once per iteration of Algorithm 1.

:class:`Refitter` fits a fresh clone of the base regressor and returns it
with its fitted values on the training data.  A LightGBM booster keeps its
training scores; a callback reads them after the last round, which saves one
prediction pass over the training data per iteration (about 40 % of a fit at
100 trees).  They are checked once against ``predict`` and the callback is
dropped if they differ (early stopping, exotic objectives).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone
from sklearn.pipeline import Pipeline

__all__ = ["FittedValues", "Refitter", "lightgbm_step", "predict_values"]


def lightgbm_step(est: Any) -> tuple[Any, str] | None:
    """The LightGBM model inside ``est`` and its fit-parameter prefix.

    Returns ``(model, "")`` for a LightGBM model, ``(model, "name__")`` for a
    :class:`~sklearn.pipeline.Pipeline` ending in one, and ``None`` otherwise.
    """
    prefix = ""
    if isinstance(est, Pipeline):
        name, est = est.steps[-1]
        prefix = f"{name}__"
    if type(est).__module__.split(".")[0] == "lightgbm" and hasattr(est, "fit"):
        return est, prefix
    return None


def predict_values(est: Any, X: Any, **params: Any) -> NDArray:
    """Predictions of ``est`` on ``X`` as a flat float array."""
    return np.asarray(est.predict(X, **params), dtype=float).ravel()


class FittedValues:
    """LightGBM callback: the training scores after the last boosting round."""

    def __init__(self) -> None:
        self.values: NDArray | None = None

    def __call__(self, env: Any) -> None:
        if env.iteration == env.end_iteration - 1:
            env.model.eval_train(feval=self._read)

    def _read(self, preds: NDArray, data: Any) -> tuple[str, float, bool]:
        self.values = np.array(preds, dtype=float).ravel()
        return "fitted_values", 0.0, True


class Refitter:
    """Fit a fresh clone of a regressor and return it with its fitted values.

    For LightGBM models the fitted values are read from the booster's training
    scores; the first time they are compared with ``predict`` and, if they
    differ, ``predict`` is used from then on.

    Parameters
    ----------
    template : regressor
        Unfitted base regressor.
    """

    def __init__(self, template: Any) -> None:
        self.template = template
        self._lightgbm = lightgbm_step(template)
        self._checked = False

    def __call__(self, X: Any, y: Any, **fit_params: Any) -> tuple[Any, NDArray]:
        est = clone(self.template)
        if self._lightgbm is None:
            est.fit(X, y, **fit_params)
            return est, predict_values(est, X)
        capture = FittedValues()
        est.fit(X, y, **fit_params, **{f"{self._lightgbm[1]}callbacks": [capture]})
        if capture.values is None:
            return est, predict_values(est, X)
        if not self._checked:
            fitted = predict_values(est, X)
            scale = 1.0 + float(np.max(np.abs(fitted), initial=0.0))
            if not np.allclose(capture.values, fitted, rtol=0.0, atol=1e-9 * scale):
                self._lightgbm = None
                return est, fitted
            self._checked = True
        return est, capture.values
