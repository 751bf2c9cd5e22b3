"""Fitting the base regressor once per iteration of Algorithm 1.

:class:`Refitter` fits a fresh clone of the base regressor and returns it
with its fitted values on the training data.  A LightGBM booster keeps its
training scores; a callback reads them after the last round, which saves one
prediction pass over the training data per iteration (about 40 % of a fit at
100 trees).  They are checked once against ``predict`` and the callback is
dropped if they differ (early stopping, exotic objectives).

The features are raw records: an error of the base regressor (numpy's
"could not convert string to float: '...'", scikit-learn's printout of a
1-D array) has the values it quotes withheld, along with every error
chained to it.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from sklearn.base import clone
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.pipeline import Pipeline

from ..utils._redact import raw_values_withheld
from ..utils._threads import ThreadBudget, prepare_base

__all__ = [
    "FittedValues",
    "LinearSmoother",
    "Refitter",
    "lightgbm_step",
    "make_refitter",
    "predict_values",
]


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
        # Thread budget of this process (a joblib worker's share) and a quiet
        # LightGBM clone keeping to it; the user's estimator is not touched.
        self._threads = ThreadBudget()
        self.template = prepare_base(template, self._threads.budget)
        self._lightgbm = lightgbm_step(self.template)
        self._checked = False

    def __call__(self, X: Any, y: Any, **fit_params: Any) -> tuple[Any, NDArray]:
        with raw_values_withheld(), self._threads.limit():
            return self._fit(X, y, **fit_params)

    def _fit(self, X: Any, y: Any, **fit_params: Any) -> tuple[Any, NDArray]:
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

    def finalize(self, est: Any) -> Any:
        """The fitted regressor of the last iteration (fitted already)."""
        return est


class _Pending:
    """Imputed responses whose least-squares fit was solved, not yet fitted."""

    def __init__(self, y: NDArray) -> None:
        self.y = y


class LinearSmoother:
    """Refits of ``LinearRegression``/``Ridge`` on a fixed design by one solve.

    The fitted values of (weighted, ridge) least squares are a fixed linear
    map of the responses: ``f = ȳ_w + X_c (X_cᵀ W X_c + α I)⁺ X_cᵀ W (y - ȳ_w)``
    with ``X_c`` the design centred at its weighted column means (not
    centred without an intercept).  The thin SVD of ``[W^½ X_c; α^½ I]``
    is computed once (about the cost of one fit); each refit is then two
    products with an ``n x p`` matrix, ``O(n p)``.  The pseudo-inverse
    gives the minimum-norm solution of rank-deficient designs, as
    ``LinearRegression`` does.

    The regressors of the iterations are never built: :meth:`finalize`
    fits a clone of the user's regressor, once, on the imputed responses of
    the last iteration, so the fitted model is an ordinary fitted
    ``LinearRegression`` or ``Ridge``.
    """

    def __init__(self, template: Any, X: Any, sample_weight: Any) -> None:
        self.template = template
        self._X_user = X
        self.X = X = np.asarray(X, dtype=float)
        self.sample_weight = sample_weight
        n, p = X.shape
        w = np.ones(n) if sample_weight is None else np.asarray(sample_weight, float)
        self._w = w
        self._intercept = bool(template.fit_intercept)
        if self._intercept:
            self._x_mean = (w @ X) / w.sum()
            design = X - self._x_mean
        else:
            self._x_mean = np.zeros(p)
            design = X.copy()
        root = np.sqrt(w)
        design *= root[:, None]
        alpha = float(getattr(template, "alpha", 0.0))
        if alpha > 0:
            design = np.vstack([design, np.sqrt(alpha) * np.eye(p)])
        u, sing, vt = np.linalg.svd(design, full_matrices=False)
        del design
        cutoff = sing.max(initial=0.0) * max(n, p) * np.finfo(float).eps
        keep = sing > cutoff
        self._u = np.ascontiguousarray(u[:n, keep])
        self._proj = vt[keep].T / sing[keep]
        self._root = root

    @staticmethod
    def applies(template: Any, X: Any, fit_params: dict) -> bool:
        """Whether ``template`` is exactly a plain LinearRegression or Ridge."""
        if type(template) not in (LinearRegression, Ridge):
            return False
        if getattr(template, "positive", False) or set(fit_params) - {"sample_weight"}:
            return False
        if type(template) is Ridge and np.ndim(template.alpha) != 0:
            return False
        if sparse.issparse(X):
            return False
        try:
            arr = np.asarray(X, dtype=float)
        except (TypeError, ValueError):
            return False
        return arr.ndim == 2 and bool(np.all(np.isfinite(arr)))

    def coef(self, y: NDArray) -> tuple[NDArray, float]:
        """Coefficients and intercept of the fit to ``y``."""
        w = self._w
        y_mean = float(w @ y / w.sum()) if self._intercept else 0.0
        rhs = self._root * (y - y_mean)
        coef = self._proj @ (self._u.T @ rhs)
        return coef, y_mean - float(self._x_mean @ coef)

    def __call__(self, X: Any, y: NDArray, **fit_params: Any) -> tuple[Any, NDArray]:
        coef, intercept = self.coef(y)
        return _Pending(y), self.X @ coef + intercept

    def finalize(self, est: Any) -> Any:
        """A clone of the user's regressor fitted to the last imputations."""
        if not isinstance(est, _Pending):
            return est
        final = clone(self.template)
        params = (
            {} if self.sample_weight is None else {"sample_weight": self.sample_weight}
        )
        with raw_values_withheld():
            return final.fit(self._X_user, est.y, **params)


def make_refitter(template: Any, X: Any, fit_params: dict):
    """:class:`LinearSmoother` for a plain linear model, else :class:`Refitter`."""
    if LinearSmoother.applies(template, X, fit_params):
        return LinearSmoother(template, X, fit_params.get("sample_weight"))
    return Refitter(template)
