"""How ``IterativeIntervalRegressor(init="auto")`` starts and ends a fit.

The start of Algorithm 1 for a LightGBM base (the constant or the boosted
start, chosen by the held-out interval likelihood), the boosted start
itself, and for exactly ``LinearRegression`` the check of the interval MLE
against flexible models that may replace it by a least-squares projection.
The methods are those of a mixin of the estimator: they read its parameters
and call its Newton solver and Algorithm 1 through ``self``.
"""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone
from sklearn.utils import _safe_indexing

from ._boosting_start import BoostedFit, boosted_fit, starter, varying_features
from ._em import (
    LOGISTIC_VAR,
    EMState,
    impute,
    log_likelihood,
    update_sigma,
)
from ._refit import lightgbm_step, make_refitter, predict_values
from ._specification import linear_specification_pvalue
from ._truncated import (
    log_interval_prob,
    truncated_mean,
    truncated_second_moment,
)

__all__ = ["AutoInitMixin"]

# init="auto" with a LightGBM base runs Algorithm 1 from the constant and
# from the boosted start on three quarters of the rows and keeps the start
# with the higher interval log-likelihood on the held-out quarter.  No rule
# on the information fraction alone was right on every table of
# benchmarks/results/interval_auto_init.md: the boosted start is ahead by up
# to 0.18 R^2 on wide cells with a strong signal, 0.034 behind on a weak
# signal at the same information (it fits the noise of the imputations), and
# 0.016 ahead on narrow anchors where the information is high.  Each scoring
# run has at most _SELECT_MAX_ITER fits (10 and 20 fits ranked the starts
# alike on the tables where they differ most); below _SELECT_MIN_ROWS rows on
# either side of the split the constant start is kept.
_SELECT_FRACTION = 0.25
_SELECT_MIN_ROWS = 25
_SELECT_MAX_ITER = 10
# init="auto" with exactly LinearRegression (Gaussian noise, sigma="auto"):
# the interval MLE is kept unless a boosted model of the responses (the
# E-step objective of the boosted start, from the constant or from the MLE)
# has a held-out interval log-likelihood per row higher than the MLE's by
# more than _PROJECTION_Z standard errors of the paired differences (a
# Vuong-type comparison on the held-out quarter of at most _PROJECTION_ROWS
# rows); the final model is then the least-squares fit of the base regressor
# to that boosted model's E-step imputations, refitted on all the rows.  On
# the 24 table-designs of benchmarks/results/interval_auto_init.md a margin
# of 1.5 to 2.5 standard errors meets the accuracy target; 1 or 3 miss it.
_PROJECTION_Z = 2.0
# The check runs only when a score test of the linear specification at the
# MLE (squares and products of the features, powers of the fitted values;
# _specification.py) rejects at this level: a gain of z > 2 on held-out rows
# of a quarter of at most 4,000 rows (one-sided level 0.023) needs a
# misspecification that the test, on all the rows, sees with more power.
# Under a linear model it saves the boosted fits, most of the default's time
# (the test rejects about 8 % of linear Case-I samples at this level; see
# tests/interval/test_specification_screen.py).
_SCREEN_LEVEL = 0.05
# The test runs on a seeded subsample of at most this many rows: five times
# the rows the check itself scores, and its cost stays a few least-squares
# solves at any n.
_SCREEN_ROWS = 20_000
# The check's boosted models run on one thread up to _START_ROWS rows, where
# LightGBM's threads cost more than they save (and oversubscribe the cores
# of parallel workers).
_PROJECTION_ROWS = 4_000
# init="auto": the boosted start's constant Hessian is at least
# min(_AUTO_HESSIAN_CAP, _AUTO_HESSIAN_ROWS / (n * information)).  The
# information fraction alone makes every round a Fisher-scoring step of size
# learning_rate / information, which on few effective observations
# (n * information below about 100) fits noise; the floor shrinks those
# steps and vanishes on larger samples (measured in
# benchmarks/results/interval_auto_init.md: a fixed floor of 0.5 fixes
# n = 200 but costs up to 1.9x in test MSE at n = 10^4 and 10^5).
_AUTO_HESSIAN_CAP = 0.5
_AUTO_HESSIAN_ROWS = 20.0
# Rows (at least) of the marginal fit that places the start.
_START_ROWS = 20_000


def _row_log_likelihood(f: NDArray, Z: NDArray, sigma: float) -> NDArray:
    """Gaussian interval log-likelihood of each row (log density if exact)."""
    exact = Z[:, 0] == Z[:, 1]
    out = np.empty(Z.shape[0])
    iv = ~exact
    with np.errstate(divide="ignore", invalid="ignore"):
        out[iv] = log_interval_prob(
            Z[iv, 0] - f[iv], Z[iv, 1] - f[iv], "gaussian", sigma
        )
    t = (Z[exact, 0] - f[exact]) / sigma
    out[exact] = -0.5 * t * t - 0.5 * np.log(2.0 * np.pi) - np.log(sigma)
    return out


def _paired_z(d: NDArray, w: NDArray) -> float:
    """Weighted mean of ``d`` over its standard error (nan if undefined)."""
    total = float(w.sum())
    mean = float(w @ d) / total
    with np.errstate(invalid="ignore"):
        se = float(np.sqrt((w * w) @ ((d - mean) ** 2))) / total
        if se > 0:
            return mean / se
    return np.inf if mean > 0 else np.nan


def _split_generator(random_state: Any) -> np.random.Generator:
    """The generator of the held-out splits of init="auto" (seeded, so a
    refit chooses alike; these splits are not privatization noise)."""
    seed = int(random_state) if isinstance(random_state, numbers.Integral) else 0
    return np.random.default_rng(seed)


def _held_out_quarter(
    rows: NDArray, rng: np.random.Generator, w: NDArray
) -> tuple[NDArray, NDArray] | None:
    """A random quarter of ``rows`` held out and the rest, both sorted.

    None when either side has fewer than ``_SELECT_MIN_ROWS`` rows or no
    weight.
    """
    n_val = round(_SELECT_FRACTION * rows.size)
    if n_val < _SELECT_MIN_ROWS or rows.size - n_val < _SELECT_MIN_ROWS:
        return None
    perm = rows[rng.permutation(rows.size)]
    val, part = np.sort(perm[:n_val]), np.sort(perm[n_val:])
    if not (w[val].sum() > 0 and w[part].sum() > 0):
        return None
    return val, part


def _screen_rows(n: int, random_state: Any) -> NDArray | slice:
    """The rows of the specification test: all, or a seeded subsample."""
    if n <= _SCREEN_ROWS:
        return slice(None)
    rng = _split_generator(random_state)
    return np.sort(rng.choice(n, _SCREEN_ROWS, replace=False))


def _projection_starter(est: Any, rows: int) -> Any:
    """The LightGBM model of init="auto"'s check for a linear base."""
    model = starter(est, "boosting")
    return model.set_params(n_jobs=1) if rows <= _START_ROWS else model


def _auto_hessian(information: float, w: NDArray) -> float:
    """Constant Hessian of the boosted start chosen by ``init="auto"``.

    The information fraction, raised to ``20 / (n_eff * information)`` (at
    most 0.5) when the intervals are worth few complete observations;
    ``n_eff`` is Kish's effective sample size of the weights (``n`` for
    unit weights).
    """
    n_eff = float(w.sum()) ** 2 / float(np.dot(w, w))
    floor = min(
        _AUTO_HESSIAN_CAP, _AUTO_HESSIAN_ROWS / (n_eff * max(information, 1e-12))
    )
    return max(float(information), floor)


class AutoInitMixin:
    """The start and the linear check of ``init="auto"`` (see the estimator)."""

    def _project(
        self,
        est: Any,
        X: Any,
        Z: NDArray,
        w: NDArray,
        start: EMState,
        mle: EMState,
        fit_params: dict,
    ) -> EMState:
        # init="auto" with exactly LinearRegression: keep the interval MLE
        # unless a boosted model of the responses predicts held-out answers
        # clearly better (_select_projection); then fit the base regressor
        # by least squares to that model's E-step imputations on all rows.
        # Without a varying feature the linear model (its intercept) is as
        # flexible as any model of the features: nothing to check.
        if not varying_features(X):
            return mle
        rows = _screen_rows(Z.shape[0], self.random_state)
        p_value = linear_specification_pvalue(
            _safe_indexing(X, rows),
            Z[rows],
            w[rows],
            mle.f[rows],
            mle.sigma,
            getattr(est, "fit_intercept", True),
        )
        if p_value is not None and p_value >= _SCREEN_LEVEL:
            self.start_scores_ = {"specification p-value": p_value}
            return mle
        scores = self._select_projection(est, X, Z, w, start, fit_params)
        if scores is not None and p_value is not None:
            scores["specification p-value"] = p_value
        self.start_scores_ = scores
        if scores is None:
            return mle
        choice, gain = None, 0.0
        for name, key in (("constant", "boosting"), ("mle", "boosting from MLE")):
            if (
                scores[f"z {key}"] > _PROJECTION_Z
                and scores[key] - scores["MLE"] > gain
            ):
                choice, gain = name, scores[key] - scores["MLE"]
        if choice is None:
            return mle
        f0, sigma = (
            (start.f, start.sigma) if choice == "constant" else (mle.f, mle.sigma)
        )
        template = _projection_starter(est, Z.shape[0])
        flexible = self._boosted(
            est, X, Z, f0, sigma, w, fit_params, template, True, True
        )
        imputed = impute(flexible.fitted, Z, self.noise, flexible.sigma)
        final = clone(est).fit(X, imputed, **fit_params)
        fitted = predict_values(final, X)
        self.history_.append(float(np.max(np.abs(fitted - mle.f))))
        self.sigma_history_.append(flexible.sigma)
        self.projection_ = choice
        self.solver_ = "projection"
        if self.verbose:
            print(
                f"[IterativeIntervalRegressor] projection of the boosted model "
                f"from the {choice} start, sigma={flexible.sigma:.4g}"
            )
        return EMState(fitted, flexible.sigma, final, 0.0)

    def _select_projection(
        self,
        est: Any,
        X: Any,
        Z: NDArray,
        w: NDArray,
        start: EMState,
        fit_params: dict,
    ) -> dict[str, float] | None:
        # The interval MLE and two boosted models (from the constant and
        # from the MLE) fitted on three quarters of at most _PROJECTION_ROWS
        # rows, scored by the interval log-likelihood of the held-out
        # quarter: per unit weight, and as the z-statistic of each boosted
        # model's paired per-row gain over the MLE.  None when the sample
        # is too small to hold rows out or the MLE fails there.
        n = Z.shape[0]
        rng = _split_generator(self.random_state)
        rows = np.arange(n)
        if n > _PROJECTION_ROWS:
            rows = np.sort(rng.choice(n, _PROJECTION_ROWS, replace=False))
        split = _held_out_quarter(rows, rng, w)
        if split is None:
            return None
        val, part = split
        X_part, X_val = _safe_indexing(X, part), _safe_indexing(X, val)
        Z_part, w_part = Z[part], w[part]
        params = {} if "sample_weight" not in fit_params else {"sample_weight": w_part}
        saved = (self.history_, self.sigma_history_)
        try:
            self.history_, self.sigma_history_ = [], []
            part_start = EMState(start.f[part], start.sigma, None, np.inf)
            linear = self._newton(est, X_part, Z_part, w_part, part_start, params)
        finally:
            self.history_, self.sigma_history_ = saved
        if linear is None:
            return None
        # (_newton fits the linear model on the design as an array)
        linear_val = predict_values(linear.estimator, np.asarray(X_val, dtype=float))
        models = {"MLE": (linear_val, linear.sigma)}
        template = _projection_starter(est, part.size)
        for key, f0, sigma, base in (
            ("boosting", start.f[part], start.sigma, start.f[val]),
            ("boosting from MLE", linear.f, linear.sigma, linear_val),
        ):
            fit = self._boosted(
                est, X_part, Z_part, f0, sigma, w_part, params, template, True, True
            )
            # (no estimator: LightGBM could split no feature, no tree)
            if fit.estimator is not None:
                base = base + predict_values(fit.estimator, X_val)
            models[key] = (base, fit.sigma)
        Z_val, w_val = Z[val], w[val]
        ll = {k: _row_log_likelihood(f, Z_val, s) for k, (f, s) in models.items()}
        total = float(w_val.sum())
        scores = {k: float(w_val @ v) / total for k, v in ll.items()}
        for key in ("boosting", "boosting from MLE"):
            scores[f"z {key}"] = _paired_z(ll[key] - ll["MLE"], w_val)
        return scores

    def _resolve_init(self, est: Any, linear: bool, X: Any) -> Any:
        # init="auto": for a LightGBM base regressor (or a pipeline ending in
        # one), unless max_iter < 2 or warm_start (which continues the
        # booster from the first, ordinary fit), the boosted start, which
        # fit() replaces by the constant one when that scores higher on the
        # held-out rows (_select_start); the constant start otherwise
        # (linear models have their own fast paths and reach the MLE from
        # anywhere; other learners keep the start that
        # needs no extra dependency).  A boosted start asked for by
        # init="boosting" or a LightGBM model is the constant start when no
        # feature varies (trees could only move all fitted values alike).
        self._auto_boosted = False
        self._auto_tree = False
        if not (isinstance(self.init, str) and self.init == "auto"):
            boosted = not (isinstance(self.init, str) and self.init == "constant")
            if boosted and not varying_features(X):
                starter(est, self.init)  # (still refuses a wrong init)
                return "constant"
            return self.init
        one_fit = self.max_iter != "auto" and self.max_iter < 2
        if (
            not linear
            and not one_fit
            and not self.warm_start
            and lightgbm_step(est) is not None
        ):
            self._auto_boosted = self._auto_tree = True
            return "boosting"
        return "constant"

    def _select_start(
        self,
        est: Any,
        X: Any,
        Z: NDArray,
        w: NDArray,
        state: EMState,
        fit_params: dict,
    ) -> dict[str, float] | None:
        # init="auto" with a LightGBM base: run Algorithm 1 from each start on
        # three quarters of the rows and score it by the interval
        # log-likelihood of the held-out quarter (per unit weight).  The
        # likelihood of the answers needs no clean response, and held out it
        # penalizes a start that fits noise, which the training likelihood
        # rewards.  None when the sample is too small to hold rows out, or
        # no feature varies (no tree can split: the constant start).
        if not varying_features(X):
            return None
        split = _held_out_quarter(
            np.arange(Z.shape[0]), _split_generator(self.random_state), w
        )
        if split is None:
            return None
        val, part = split
        X_part, X_val = _safe_indexing(X, part), _safe_indexing(X, val)
        Z_part, w_part = Z[part], w[part]
        params = {} if "sample_weight" not in fit_params else {"sample_weight": w_part}
        saved = (self.history_, self.sigma_history_, self._budget)
        self._budget = min(self._budget, _SELECT_MAX_ITER)
        scores = {}
        try:
            for start in ("constant", "boosting"):
                self.history_, self.sigma_history_ = [], []
                path = EMState(state.f[part], state.sigma, None, np.inf)
                if start == "boosting":
                    path = self._boosted_start(
                        est, X_part, Z_part, path, w_part, params
                    )
                fitter = make_refitter(est, X_part, params)
                path = self._iterate(
                    X_part, Z_part, w_part, path, fitter, params, -np.inf
                )
                held_out = EMState(
                    predict_values(path.estimator, X_val), path.sigma, None, 0.0
                )
                ll = log_likelihood(held_out, Z[val], self.noise, w[val])
                scores[start] = ll / float(w[val].sum())
        finally:
            self.history_, self.sigma_history_, self._budget = saved
        return scores

    def _information(self, f: NDArray, Z: NDArray, sigma: float, w: NDArray) -> float:
        # Average fraction of the complete-data information about f_i kept by
        # the response: 1 - Var(e | cell) / Var(e) (1 for exact values).
        lo, hi = Z[:, 0] - f, Z[:, 1] - f
        iv = Z[:, 0] != Z[:, 1]
        var = np.zeros(Z.shape[0])
        with np.errstate(invalid="ignore"):
            m = truncated_mean(lo[iv], hi[iv], self.noise, sigma)
            var[iv] = truncated_second_moment(lo[iv], hi[iv], self.noise, sigma) - m * m
        total = sigma**2 * (LOGISTIC_VAR if self.noise == "logistic" else 1.0)
        return float(np.average(1.0 - var / total, weights=w))

    def _boosted(
        self,
        est: Any,
        X: Any,
        Z: NDArray,
        f0: NDArray,
        sigma: float,
        w: NDArray,
        fit_params: dict,
        init: Any,
        auto_hessian: bool,
        keep_model: bool = False,
    ) -> BoostedFit:
        # The boosted model of the responses from (f0, sigma): its constant
        # Hessian is the information fraction there (with the floor of
        # init="auto" on small, weakly informative samples).  The fitted
        # LightGBM model is returned with keep_model (else None).
        information = self._information(f0, Z, sigma, w)
        if auto_hessian:
            information = _auto_hessian(information, w)
        if self.sigma == "auto":

            def update(f, sigma):
                return max(update_sigma(f, Z, self.noise, sigma, w), 1e-12)

        else:
            update = None
        fit = boosted_fit(
            starter(est, init),
            X,
            f0,
            sigma,
            impute=lambda f, sigma: impute(f, Z, self.noise, sigma),
            update_sigma=update,
            information=information,
            fit_params=fit_params,
        )
        return fit if keep_model else fit._replace(estimator=None)

    def _boosted_start(
        self, est: Any, X: Any, Z: NDArray, state: EMState, w: NDArray, fit_params: dict
    ) -> EMState:
        if self._budget < 2:
            raise ValueError(
                "A boosted start (init other than 'constant') needs max_iter >= 2: "
                "the start is one fit and the final model comes from at least one "
                f"iteration of Algorithm 1; got max_iter={self.max_iter!r}."
            )
        f, sigma, _ = self._boosted(
            est,
            X,
            Z,
            state.f,
            state.sigma,
            w,
            fit_params,
            self.init_,
            self._auto_boosted,
        )
        change = float(np.max(np.abs(f - state.f)))
        self.history_.append(change)
        self.sigma_history_.append(state.sigma)
        change /= state.sigma
        if self.verbose:
            print(
                f"[IterativeIntervalRegressor] boosted start: change={change:.3g}, "
                f"sigma={sigma:.4g}"
            )
        return EMState(f, sigma, None, change)
