"""Confidence intervals of :class:`IterativeIntervalRegressor`.

:class:`RegressionIntervalsMixin` adds the kinds ``"predict"`` and ``"coef"``
of ``conf_int`` (see :mod:`skprivate._uncertainty`); it reads the fitted
attributes, the features passed as ``X`` and the interval responses passed
as ``y`` (a regressor fitted with ``privatizer=`` reads the intervals it
released and kept instead), and resamples by refitting clones.

Regression.  With a ``LinearRegression`` base and Gaussian noise the fitted
model is the interval-regression MLE (the censored-normal model of R's
``survreg(..., dist="gaussian")``, whose ``confint`` the coefficients'
interval reproduces), and the coefficients get Wald intervals from the
observed information in (intercept, slopes, ``log sigma``).  Predictions
get Wald intervals from the leave-one-out sandwich covariance
(:mod:`._mle_intervals`; ``method="wald"`` gives the observed information's):
with wide Case-I anchors and 500 rows the observed information's 95%
interval of a prediction covered 0.92 and the sandwich's 0.95 (400
samples), and with 2,000 rows 0.95 and 0.96 (150 samples).  With
logistic noise the fixed point of the iteration, which refits least squares
to imputed responses, is not the logistic MLE, so Wald is refused there;
logistic noise, other base regressors and the projection of
``init="auto"`` get the percentile bootstrap of the (feature, interval)
pairs, each replicate refitting the whole algorithm.  A fit with
``sample_weight`` (sampling weights) gets, on the MLE path, the same
intervals with the leave-one-out sandwich covariance of the weighted
likelihood (:mod:`._mle_intervals`; ``method="sandwich"``, also offered
without weights): the observed information would read the weights as
counts of identical rows.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import optimize, sparse
from sklearn.base import clone
from sklearn.linear_model import LinearRegression

from .._uncertainty import (
    ConfidenceIntervalMixin,
    IntervalRequest,
    bootstrap_replicates,
    interval_frame,
    normal_interval,
    percentile_interval,
)
from ..utils.validation import check_interval_array, check_two_sided
from ._mle_intervals import (
    _covariance,
    _hessian,
    _row_loglik,
    _sandwich,
    refuse_counted_weights,
)

__all__ = ["RegressionIntervalsMixin"]


class _Predict:
    def __init__(self, points: Any) -> None:
        self.points = points

    def __call__(self, est: Any) -> NDArray:
        return est.predict(self.points)


class RegressionIntervalsMixin(ConfidenceIntervalMixin):
    """``conf_int`` of :class:`IterativeIntervalRegressor`: kinds ``"predict"``
    and ``"coef"``.

    ``"predict"``: ``points`` are feature rows; the interval bounds the
    regression function ``f(x)`` (the location of the response given
    ``x``).  ``"coef"``: one row per coefficient of a linear base regressor
    (the intercept first when it is fitted, ``"intercept"``; then the
    feature names, or indices); ``points`` is ignored.  ``method="wald"``
    (a ``LinearRegression`` base): the observed information of the
    interval-regression likelihood in (intercept, slopes, ``log sigma``)
    at the fitted model, and the delta method (for ``"coef"`` with
    Gaussian noise this is the model of R's ``survreg(Surv(lower, upper,
    type="interval2") ~ x, dist="gaussian")`` and the interval of its
    ``confint``); ``"bootstrap"``: percentile bootstrap of the (feature,
    interval) pairs, each replicate refitting a clone (slow: one full fit
    per replicate).  ``"auto"`` is ``"wald"`` for a ``LinearRegression``
    base fitted to the interval MLE and ``"bootstrap"`` otherwise (also
    after ``init="auto"`` chose the least-squares projection,
    ``solver_="projection"``: the bootstrap's refits repeat that choice;
    for ``"coef"`` also with logistic noise, whose fixed point of the
    iteration is not the interval MLE).  ``"coef"`` needs a base with
    coefficients (``coef_``).  ``X`` is the features given to ``fit`` and
    ``y`` the interval responses.  A regressor fitted with a
    ``privatizer`` released the intervals itself and kept them
    (``released_``): it takes no ``y`` and refuses one (the ``y`` at hand
    is then the raw responses, from which an interval would be too narrow
    and would reveal them); ``X`` is still the clean features given to
    ``fit``, which the privatizer does not release and the regressor does
    not keep.
    """

    def _ci_offers_kind(self, kind: str) -> bool:
        return kind in ("predict", "coef")

    def _ci_kept_release(self) -> dict[str, Any] | None:
        if getattr(self, "privatizer_", None) is None:
            return None
        return {"y": getattr(self, "released_", None)}

    def _ci_resampling_template(self) -> Any:
        template = clone(self)
        if self.privatizer is not None:
            template.set_params(privatizer=None)
        return template

    def _ci_regression_method(self, request: IntervalRequest) -> tuple[str, Any, Any]:
        """The method of ``request`` and the features and responses it reads.

        Wald needs exactly ``LinearRegression`` fitted to the interval MLE,
        which the iteration reaches with Gaussian noise only: with logistic
        noise its fixed point refits least squares to imputed responses and
        is not the logistic MLE, whose information would then describe
        another estimator.
        """
        linear = type(self.estimator_) is LinearRegression
        # After init="auto" replaced the interval MLE by the least-squares
        # fit to a boosted model's imputations, the information of the
        # interval likelihood is not the variance of that two-stage estimate.
        projected = getattr(self, "solver_", None) == "projection"
        gaussian = self.noise == "gaussian"
        mle = linear and not projected and gaussian
        weights = request.fit_weights()
        # The coefficients keep survreg's Wald interval when unweighted; a
        # prediction, a combination of all of them, takes the leave-one-out
        # sandwich, which the observed information leaves too short where
        # the intervals carry little information (wide Case-I anchors).
        wald = "wald" if weights is None and request.kind == "coef" else "sandwich"
        method = request.choose(
            ("wald", "sandwich", "bootstrap"),
            wald if mle else "bootstrap",
            type(self).__name__,
        )
        if request.X is None:
            raise ValueError(
                f"conf_int({request.kind!r}) of IterativeIntervalRegressor needs "
                "X=, the features given to fit (the model is refitted or its "
                "information computed on them), with "
                + (
                    "no y: the intervals it released are kept (released_)."
                    if request.released
                    else "y=, the interval responses given to fit."
                )
            )
        y = request.data("y")
        if method == "bootstrap":
            return method, request.X, y
        if not linear:
            raise ValueError(
                f"method={method!r} needs a LinearRegression base regressor; use "
                "method='bootstrap'."
            )
        if not gaussian:
            raise ValueError(
                f"method={method!r} is the interval MLE's, which the iteration "
                f"reaches with noise='gaussian' only; with noise={self.noise!r} "
                "its fixed point is not the MLE. Use method='bootstrap'."
            )
        if projected:
            raise ValueError(
                f"method={method!r} is the interval MLE's; this fit is the "
                "least-squares projection init='auto' chose (solver_="
                "'projection'), whose variance it does not give. Use "
                "method='bootstrap', or fit with init='constant' for the MLE."
            )
        if method == "wald" and weights is not None:
            refuse_counted_weights(self)
        return method, request.X, y

    def _ci_information(self, request: IntervalRequest, method: str, X: Any, y: Any):
        """The Wald covariance of the fit: inverse information, or sandwich."""
        return request.memo(
            ("information", method),
            lambda: self._ci_linear_information(
                _dense(X),
                y,
                request.fit_weights(),
                sandwich=method == "sandwich",
            ),
        )

    def _ci_bootstrap_reps(
        self, request: IntervalRequest, X: Any, y: Any, statistic: Any
    ) -> NDArray[np.float64]:
        return request.memo(
            "bootstrap",
            lambda: bootstrap_replicates(
                self._ci_resampling_template(),
                X,
                statistic,
                y=y,
                n_resamples=request.resamples(),
                random_state=request.random_state,
                n_jobs=request.n_jobs,
                # pairs drawn with their weights, refitted with them
                sample_weight=request.fit_weights(),
            ),
        )

    def _conf_int_predict(self, request: IntervalRequest) -> pd.DataFrame:
        if request.points is None:
            raise ValueError("points= is required: the feature rows to predict at.")
        points = request.points
        estimate = np.asarray(self.predict(points), dtype=float)
        method, X, y = self._ci_regression_method(request)
        rows = _dense(points)
        if method == "bootstrap":
            return self._ci_pairs_bootstrap_frame(
                request, X, y, _Predict(points), "predict", rows, estimate, "f(x)"
            )
        info = self._ci_information(request, method, X, y)
        R = (rows - info.mean) / info.scale
        G = np.column_stack([np.ones(R.shape[0]), R, np.zeros(R.shape[0])])
        se = info.se(G)
        lower, upper = normal_interval(estimate, se, request.level)
        return interval_frame(
            "predict",
            rows,
            estimate,
            lower,
            upper,
            request.level,
            _WALD_LABELS[method],
            "f(x) of the linear model",
            se=se,
        )

    def _ci_coefficients(self, X: Any) -> tuple[list, NDArray[np.float64], bool]:
        """Names and values of the base's coefficients (intercept first).

        The names are the features': those the fit saw, else the columns
        of the ``X`` given here (the Newton path fits the base on an
        array), else their indices.
        """
        model = self.estimator_
        coef = getattr(model, "coef_", None)
        n_features = getattr(self, "n_features_in_", None)
        if coef is None or np.size(coef) != n_features:
            raise ValueError(
                "conf_int('coef') needs a base regressor with one coefficient "
                f"per feature (coef_); {type(model).__name__} has none (for a "
                "pipeline, its last step's coefficients are on the transformed "
                "features). Use conf_int('predict') for other regressors."
            )
        coef = np.ravel(np.asarray(coef, dtype=float))
        names = getattr(self, "feature_names_in_", None)
        columns = getattr(X, "columns", None)
        if (
            names is None
            and columns is not None
            and len(columns) == coef.size
            and all(isinstance(v, str) for v in columns)
        ):
            names = columns
        names = list(range(coef.size)) if names is None else [str(v) for v in names]
        has_b = bool(getattr(model, "fit_intercept", hasattr(model, "intercept_")))
        if has_b:
            values = np.concatenate([[float(np.ravel(model.intercept_)[0])], coef])
            return ["intercept", *names], values, True
        return names, coef, False

    def _ci_pairs_bootstrap_frame(
        self, request, X, y, statistic, quantity: str, points, estimate, what: str
    ) -> pd.DataFrame:
        """Percentile interval of ``statistic`` over pairs-bootstrap refits."""
        reps = self._ci_bootstrap_reps(request, X, y, statistic)
        lower, upper = percentile_interval(reps, request.level)
        return interval_frame(
            quantity,
            points,
            estimate,
            lower,
            upper,
            request.level,
            "bootstrap-percentile (pairs)",
            f"E over resamples of the fitted {what} (the learner's bias not covered)",
            se=np.nanstd(reps, axis=0, ddof=1),
        )

    def _conf_int_coef(self, request: IntervalRequest) -> pd.DataFrame:
        names, estimate, has_b = self._ci_coefficients(request.X)
        method, X, y = self._ci_regression_method(request)
        if method == "bootstrap":
            return self._ci_pairs_bootstrap_frame(
                request, X, y, _Coef(has_b), "coef", names, estimate, "coefficients"
            )
        info = self._ci_information(request, method, X, y)
        # The fit's parameters are the intercept at the mean of the features
        # and the slopes per standard deviation; the coefficients are a
        # linear map of them, so the delta method is exact.
        p = info.mean.size
        G = np.zeros((p + 1, p + 2))
        G[0, 0] = 1.0
        G[0, 1 : 1 + p] = -info.mean / info.scale
        G[1:, 1 : 1 + p] = np.diag(1.0 / info.scale)
        se = info.se(G if has_b else G[1:])
        lower, upper = normal_interval(estimate, se, request.level)
        return interval_frame(
            "coef",
            names,
            estimate,
            lower,
            upper,
            request.level,
            _WALD_LABELS[method],
            "coefficients of the linear interval-regression model",
            se=se,
        )

    def _ci_linear_information(
        self,
        X: NDArray,
        y: Any,
        weights: NDArray | None = None,
        sandwich: bool = False,
    ) -> _LinearInformation:
        Z = check_two_sided(check_interval_array(y, name="y"), name="y")
        lo, hi = Z[:, 0], Z[:, 1]
        if X.ndim != 2 or X.shape[0] != Z.shape[0]:
            raise ValueError(
                f"X must have one row per interval of y; got {X.shape} and "
                f"{Z.shape[0]} intervals."
            )
        model = self.estimator_
        coef = np.ravel(model.coef_)
        intercept = float(model.intercept_) if model.fit_intercept else 0.0
        # Without an intercept the model is X @ coef itself: centring the
        # features would move every fitted value by mean @ coef.
        mean = X.mean(axis=0) if model.fit_intercept else np.zeros(X.shape[1])
        scale = X.std(axis=0)
        scale[~(scale > 0)] = 1.0
        D = (X - mean) / scale
        # Parameters: (intercept at the mean, slopes per standard deviation,
        # log sigma unless sigma is known).
        theta0 = np.concatenate(
            [[intercept + mean @ coef], coef * scale, [np.log(self.sigma_)]]
        )
        known = self.sigma != "auto"
        has_b = bool(model.fit_intercept)
        p = coef.size

        def split(theta):
            b = theta[0] if has_b else 0.0
            slopes = theta[1 : 1 + p]
            log_s = np.log(self.sigma_) if known else theta[1 + p]
            return b, slopes, log_s

        w = np.ones(lo.shape) if weights is None else np.asarray(weights, float)

        def rows(theta):
            b, slopes, log_s = split(theta)
            return _row_loglik(lo, hi, b + D @ slopes, self.noise, log_s)

        def loglik(theta):
            return float(np.sum(w * rows(theta)))

        if not known:
            # The fit's stopping rule watches the fitted values, not the
            # scale: re-maximize the likelihood in log sigma at the fitted
            # coefficients (the MLE's scale when they are the MLE).
            def profile(log_s):
                theta = theta0.copy()
                theta[1 + p] = log_s
                return -loglik(theta)

            found = optimize.minimize_scalar(
                profile, bracket=(theta0[1 + p] - 0.1, theta0[1 + p] + 0.1)
            )
            if found.success and np.isfinite(found.x):
                theta0[1 + p] = float(found.x)
        keep = np.r_[has_b, np.ones(p, bool), not known]
        free = np.flatnonzero(keep)
        sigma = float(np.exp(theta0[1 + p]))
        steps_all = np.concatenate([[1e-3 * sigma], np.full(p, 1e-3 * sigma), [1e-3]])

        def loglik_free(v):
            theta = theta0.copy()
            theta[free] = v
            return loglik(theta)

        if sandwich:
            cov = _sandwich(
                rows, theta0, steps_all, w, free, "IterativeIntervalRegressor", True
            )
        else:
            H = _hessian(loglik_free, theta0[free], steps_all[free])
            cov = _covariance(H, "IterativeIntervalRegressor")
        return _LinearInformation(cov, free, mean, scale)


def _dense(X: Any) -> NDArray[np.float64]:
    """Feature rows as a float array (sparse matrices and frames included).

    The Wald covariance is over the coefficients, so a dense copy of the
    features costs no more than the information it feeds.
    """
    if sparse.issparse(X):
        return X.toarray().astype(float)
    if hasattr(X, "iloc"):
        return X.to_numpy(dtype=float)
    return np.asarray(X, dtype=float)


_WALD_LABELS = {
    "wald": "wald (observed information)",
    "sandwich": "wald (leave-one-out sandwich)",
}


class _LinearInformation:
    """Covariance of the linear interval MLE in (intercept at the mean of the
    features, slopes per standard deviation, ``log sigma``), free ones only."""

    def __init__(
        self, cov: NDArray, free: NDArray, mean: NDArray, scale: NDArray
    ) -> None:
        self.cov, self.free, self.mean, self.scale = cov, free, mean, scale

    def se(self, G: NDArray) -> NDArray[np.float64]:
        """Standard errors of ``G @ theta`` (``G`` over all the parameters)."""
        G = np.atleast_2d(G)[:, self.free]
        return np.sqrt(np.einsum("ij,jk,ik->i", G, self.cov, G))


class _Coef:
    def __init__(self, intercept: bool) -> None:
        self.intercept = intercept

    def __call__(self, est: Any) -> NDArray:
        model = est.estimator_
        coef = np.ravel(np.asarray(model.coef_, dtype=float))
        if self.intercept:
            return np.concatenate([[float(np.ravel(model.intercept_)[0])], coef])
        return coef
