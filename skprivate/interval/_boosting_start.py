"""A boosted start for Algorithm 1.

Algorithm 1 started from a constant needs about twenty refits of a tree
ensemble before its test error levels off.  The boosted start is one LightGBM
fit whose objective is the E-step of Algorithm 1 itself: before every tree
the interval responses are re-imputed at the current fitted values, and the
tree is fitted to the residuals of these imputations (for Gaussian noise they
are ``sigma**2`` times the gradient of the observed-data log-likelihood).
This is a generalized EM run at the granularity of single trees; it lands
close to the fixed point of Algorithm 1, which then needs only a few
iterations.  The trees are fitted with a constant Hessian equal to the
fraction of the complete-data information the intervals keep at the starting
fit, so a round moves as far as a Fisher-scoring step would on average;
per-row Hessians would let leaves of nearly uninformative rows take huge
steps.  The noise scale is re-estimated every few rounds.

The boosted model only supplies starting values, whatever the base regressor
is: every later iteration, and the final model, is the user's regressor
refitted on imputed responses as in the paper.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from sklearn.base import clone
from sklearn.pipeline import Pipeline

from ..utils._threads import ThreadBudget, prepare_base
from ._refit import FittedValues, lightgbm_step, predict_values

__all__ = ["BoostedFit", "boosted_fit", "boosted_start", "starter", "varying_features"]

# Rounds between two updates of the noise scale during the boosted start: the
# scale estimate follows the in-sample fit, which early trees overfit, so
# updating it after every tree lets it shrink too fast.
SIGMA_EVERY = 5


# Rows compared at a time by varying_features (a boolean block of this many
# rows times the columns).
_COMPARE_ROWS = 65_536


def varying_features(X: Any) -> bool:
    """Whether some feature of ``X`` takes more than one value.

    The boosted start needs one: LightGBM refuses a custom objective on a
    design without a usable feature, and trees on constant features could
    only move every fitted value alike, which the constant start already
    does.  A missing value counts as a value of its own.

    Parameters
    ----------
    X : array-like or sparse matrix of shape (n_samples, n_features)
        Features as given to the estimator.

    Returns
    -------
    bool
        ``False`` when every column is constant (or there are fewer than two
        rows or no column); ``True`` otherwise, and whenever the values
        cannot be compared (the boosted start then runs as usual).
    """
    if hasattr(X, "columns") and hasattr(X, "nunique"):  # a DataFrame
        try:
            return bool((X.nunique(dropna=False) > 1).any())
        except TypeError:  # (unhashable cells: compared as an array below)
            pass
    if sparse.issparse(X):
        X = X.tocsc()
        if X.shape[0] < 2 or X.shape[1] == 0:
            return False
        if not np.all(np.isfinite(X.data)):
            return True
        low = X.min(axis=0).toarray().ravel()
        high = X.max(axis=0).toarray().ravel()
        return bool(np.any(low != high))
    try:
        A = np.asarray(X)
    except (TypeError, ValueError):
        return True
    if A.ndim != 2 or A.shape[0] < 2 or A.shape[1] == 0:
        return A.ndim != 2
    first = A[:1]
    numeric = A.dtype.kind in "fc"
    for start in range(0, A.shape[0], _COMPARE_ROWS):
        block = A[start : start + _COMPARE_ROWS]
        same = np.asarray(block == first)
        if same.shape != block.shape:
            return True
        if numeric:
            same |= np.isnan(block) & np.isnan(first)
        if not same.all():
            return True
    return False


def _no_usable_feature(exc: BaseException) -> bool:
    """Whether ``exc`` is LightGBM's refusal of a design without a usable feature.

    With a custom objective LightGBM stops on a failed check that the
    training data has features left after it drops those it cannot split.
    """
    return type(exc).__name__ == "LightGBMError" and "num_features()" in str(exc)


def starter(base: Any, init: Any) -> Any:
    """The unfitted LightGBM model (or pipeline) that fits the boosted start.

    Parameters
    ----------
    base : regressor
        The base regressor of Algorithm 1.
    init : "boosting" or LightGBM regressor
        ``"boosting"``: ``base`` itself when it is a LightGBM model (or a
        pipeline ending in one), otherwise ``LGBMRegressor(verbose=-1)`` in
        place of ``base`` (as the last step of a copy of ``base`` when it is
        a pipeline, so the start sees the same preprocessing).  An estimator:
        a clone of it.

    Raises
    ------
    ValueError
        If ``init`` is an estimator but not a LightGBM model, or LightGBM is
        not installed.
    """
    if not isinstance(init, str):
        if lightgbm_step(init) is None:
            raise ValueError(
                "init must be 'constant', 'boosting' or a LightGBM regressor (or a "
                f"Pipeline ending in one); got {type(init).__name__}."
            )
        return clone(init)
    if lightgbm_step(base) is not None:
        return base
    try:
        from lightgbm import LGBMRegressor
    except ImportError as exc:  # pragma: no cover - lightgbm is a dev dependency
        raise ValueError(
            "init='boosting' fits the start with LightGBM, which is not "
            "installed: pip install 'skprivate[lightgbm]', or use "
            "init='constant'."
        ) from exc
    model = LGBMRegressor(verbose=-1)
    if isinstance(base, Pipeline):
        return clone(base).set_params(**{base.steps[-1][0]: model})
    return model


class _EStepObjective:
    """LightGBM objective: residuals of the interval imputations at each round.

    LightGBM deep-copies its parameters, so ``__deepcopy__`` returns the
    object itself: the noise scale it updates must be readable after the fit.
    """

    def __init__(
        self,
        impute: Callable[[NDArray, float], NDArray],
        update_sigma: Callable[[NDArray, float], float] | None,
        sigma: float,
        hessian: float,
    ) -> None:
        self.impute = impute
        self.update_sigma = update_sigma
        self.sigma = sigma
        self.hessian = hessian
        self.rounds = 0

    def __deepcopy__(self, memo: dict) -> _EStepObjective:
        return self

    def __call__(
        self, y_true: NDArray, fitted: NDArray, weight: NDArray | None
    ) -> tuple[NDArray, NDArray]:
        fitted = np.asarray(fitted, dtype=float)
        if (
            self.update_sigma is not None
            and self.rounds
            and not (self.rounds % SIGMA_EVERY)
        ):
            self.sigma = self.update_sigma(fitted, self.sigma)
        self.rounds += 1
        grad = fitted - self.impute(fitted, self.sigma)
        hess = np.full_like(fitted, self.hessian)
        if weight is not None:
            grad, hess = grad * weight, hess * weight
        return grad, hess


class BoostedFit(NamedTuple):
    """A fitted boosted start: training fitted values, noise scale, model.

    The model's predictions exclude the starting values (LightGBM does not
    add ``init_score`` to them): on new rows the fitted values are the
    starting values there plus ``predict_values(estimator, X)``.
    """

    fitted: NDArray
    sigma: float
    estimator: Any


def boosted_start(
    template: Any,
    X: Any,
    f0: NDArray,
    sigma: float,
    *,
    impute: Callable[[NDArray, float], NDArray],
    update_sigma: Callable[[NDArray, float], float] | None,
    information: float,
    fit_params: dict,
) -> tuple[NDArray, float]:
    """Fitted values and noise scale of a LightGBM fit on the E-step residuals.

    Parameters
    ----------
    template : LightGBM regressor or Pipeline ending in one
        Base regressor; a clone gets the objective.
    X : array-like
        Features.
    f0 : ndarray of shape (n_samples,)
        Starting fitted values (LightGBM ``init_score``).
    sigma : float
        Starting noise scale.
    impute : callable
        ``impute(f, sigma)``: the E-step imputations.
    update_sigma : callable or None
        ``update_sigma(f, sigma)``: the scale update (``None`` keeps sigma).
    information : float
        Fraction of the complete-data information kept by the responses at
        ``f0`` (the constant Hessian), clipped to ``[learning_rate, 1]``.
    fit_params : dict
        Extra fit parameters (``sample_weight``).

    Returns
    -------
    fitted : ndarray of shape (n_samples,)
    sigma : float
    """
    fit = boosted_fit(
        template,
        X,
        f0,
        sigma,
        impute=impute,
        update_sigma=update_sigma,
        information=information,
        fit_params=fit_params,
    )
    return fit.fitted, fit.sigma


def boosted_fit(
    template: Any,
    X: Any,
    f0: NDArray,
    sigma: float,
    *,
    impute: Callable[[NDArray, float], NDArray],
    update_sigma: Callable[[NDArray, float], float] | None,
    information: float,
    fit_params: dict,
) -> BoostedFit:
    """:func:`boosted_start` that also returns the fitted LightGBM model.

    Parameters
    ----------
    template, X, f0, sigma, impute, update_sigma, information, fit_params
        As in :func:`boosted_start`.

    Returns
    -------
    BoostedFit
        With ``estimator=None`` (and the fitted values ``f0``, the scale
        ``sigma``) when LightGBM finds no feature it can split: no tree
        can be grown, and the start is the constant one.
    """
    model, prefix = lightgbm_step(template)
    rate = float(model.get_params().get("learning_rate", 0.1))
    hessian = float(np.clip(information, min(rate, 1.0), 1.0))
    objective = _EStepObjective(impute, update_sigma, sigma, hessian)
    threads = ThreadBudget()
    est = prepare_base(template, threads.budget)
    est.set_params(**{f"{prefix}objective": objective})
    capture = FittedValues()
    fit_params = {
        **fit_params,
        f"{prefix}init_score": f0,
        f"{prefix}callbacks": [capture],
    }
    with threads.limit():
        try:
            est.fit(X, impute(f0, sigma), **fit_params)
        except Exception as exc:
            if not _no_usable_feature(exc):
                raise
            # No feature LightGBM can split (each constant, or too rare a
            # value for min_data_in_leaf): no tree, the start unchanged.
            return BoostedFit(np.asarray(f0, dtype=float), sigma, None)
    if capture.values is not None:
        return BoostedFit(capture.values, objective.sigma, est)
    # LightGBM does not add init_score to its predictions.
    return BoostedFit(f0 + predict_values(est, X), objective.sigma, est)
