"""Continuing a base regressor between iterations of Algorithm 1.

Refitting the base regressor from scratch at every iteration makes Algorithm 1
cost ``max_iter`` full fits.  Two kinds of regressors can instead continue
from the previous iteration's model:

* boosting models, which add a few rounds fitted to the new imputed
  responses on top of the previous ensemble (LightGBM through the
  ``init_model`` fit parameter; scikit-learn's gradient boosting through
  ``warm_start`` with a larger round count).  The new model starts at the
  previous fitted values and lowers the squared error to the new responses,
  which makes the iteration a generalized EM step;
* models whose ``warm_start`` only initializes their solver at the previous
  solution (linear models, neural networks): the fitted model is the same,
  only the solver starts closer.

Bagging ensembles (random forests) are refused: their warm start would
average new trees with trees fitted to stale imputations.
"""

from __future__ import annotations

import inspect
import math
from typing import Any

from numpy.typing import NDArray
from sklearn.base import clone
from sklearn.ensemble import (
    BaseEnsemble,
    GradientBoostingRegressor,
    HistGradientBoostingRegressor,
)
from sklearn.pipeline import Pipeline

from ..utils._threads import ThreadBudget, prepare_base
from ._refit import predict_values

__all__ = ["WarmStarter"]


def _accepts_init_model(est: Any) -> bool:
    try:
        return "init_model" in inspect.signature(est.fit).parameters
    except (TypeError, ValueError):
        return False


class WarmStarter:
    """Fit the first iteration in full, later ones as a continuation.

    Parameters
    ----------
    template : regressor
        Unfitted base regressor (already seeded).
    rounds : bool or int
        ``True``: each later iteration adds a tenth of the base number of
        boosting rounds (at least one); an int: that many rounds.

    Raises
    ------
    ValueError
        If the regressor cannot continue from a fitted model.
    """

    def __init__(self, template: Any, rounds: bool | int) -> None:
        self._threads = ThreadBudget()
        self.template = template = prepare_base(template, self._threads.budget)
        params = template.get_params(deep=False)
        if isinstance(template, Pipeline):
            raise ValueError(
                "warm_start needs the base regressor itself, not a Pipeline: "
                "continue the final step by passing it directly, or set "
                "warm_start=False."
            )
        if isinstance(template, HistGradientBoostingRegressor):
            self.kind, self.count = "warm_start", "max_iter"
        elif isinstance(template, GradientBoostingRegressor):
            self.kind, self.count = "warm_start", "n_estimators"
        elif _accepts_init_model(template) and "n_estimators" in params:
            self.kind, self.count = "init_model", "n_estimators"
        elif "warm_start" in params and not isinstance(template, BaseEnsemble):
            self.kind, self.count = "solver", None
        else:
            raise ValueError(
                f"warm_start=True is not supported for {type(template).__name__}: "
                "it needs a boosting model that can continue from a fitted one "
                "(LightGBM, GradientBoostingRegressor, "
                "HistGradientBoostingRegressor) or a model whose warm_start "
                "parameter initializes its solver (linear models, MLPRegressor). "
                "Set warm_start=False."
            )
        base_rounds = params[self.count] if self.count else 0
        if rounds is True:
            self.rounds = max(1, math.ceil(base_rounds / 10))
        else:
            self.rounds = int(rounds)
        self._previous = None

    def fit_predict(self, X: Any, y: Any, **fit_params: Any) -> tuple[Any, NDArray]:
        """Fit (in full the first time, as a continuation afterwards), predict X.

        Returns
        -------
        estimator : regressor
            The fitted model.
        fitted : ndarray of shape (n_samples,)
            Its predictions on ``X``.
        """
        with self._threads.limit():
            return self._fit_predict(X, y, **fit_params)

    def _fit_predict(self, X: Any, y: Any, **fit_params: Any) -> tuple[Any, NDArray]:
        prev = self._previous
        if prev is None:
            est = clone(self.template)
            if self.kind != "init_model":
                est.set_params(warm_start=True)
            est.fit(X, y, **fit_params)
            fitted = predict_values(est, X)
        elif self.kind == "init_model":
            est = clone(self.template).set_params(n_estimators=self.rounds)
            est.fit(X, y, init_model=prev.booster_, **fit_params)
            # Only the new rounds need predicting: the earlier ones give the
            # previous fitted values.
            start = prev.booster_.current_iteration()
            fitted = self._fitted + predict_values(est, X, start_iteration=start)
        else:
            est = prev
            if self.kind == "warm_start":
                current = est.get_params()[self.count]
                est.set_params(**{self.count: current + self.rounds})
            est.fit(X, y, **fit_params)
            fitted = predict_values(est, X)
        self._previous, self._fitted = est, fitted
        return est, fitted
