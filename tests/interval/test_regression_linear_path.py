"""The cached-solve path of IterativeIntervalRegressor for linear base models."""

import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import optimize
from sklearn.base import clone
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.pipeline import make_pipeline

from skprivate.datasets import make_interval_regression
from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IterativeIntervalRegressor,
)
from skprivate.interval._refit import LinearSmoother, Refitter, make_refitter
from skprivate.interval._truncated import log_interval_prob


class _LinearSubclass(LinearRegression):
    """Same fit, another type: must take the general path (exact type check)."""


@pytest.fixture(scope="module")
def data():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(800, 3))
    y = 1.0 + X @ np.array([1.0, -0.5, 2.0]) + rng.normal(size=800)
    Z = IntervalCaseII(scale=2.0, random_state=1).fit_transform(y[:, None])
    w = rng.uniform(0.2, 2.0, size=800)
    return X, Z, w


def _pair(base, X, Z, **kwargs):
    """Fits through the cached solves and through real refits of ``base``.

    A subclass with the same parameters is not exactly LinearRegression or
    Ridge, so it takes the general path: a real fit at every iteration.
    """
    params = {"max_iter": 5000, "tol": 1e-12, **kwargs}
    slow_type = type(f"Refitted{type(base).__name__}", (type(base),), {})
    fast = IterativeIntervalRegressor(base, **params)
    slow = IterativeIntervalRegressor(slow_type(**base.get_params()), **params)
    return fast, slow


@pytest.mark.parametrize(
    "base",
    [
        LinearRegression(),
        LinearRegression(fit_intercept=False),
        Ridge(alpha=3.0),
        Ridge(alpha=0.5, fit_intercept=False),
    ],
    ids=["ols", "ols-no-intercept", "ridge", "ridge-no-intercept"],
)
@pytest.mark.parametrize("weighted", [False, True])
def test_same_fixed_point_as_real_refits(data, base, weighted):
    X, Z, w = data
    sw = w if weighted else None
    fast, slow = _pair(base, X, Z)
    fast.fit(X, Z, sample_weight=sw)
    slow.fit(X, Z, sample_weight=sw)
    assert fast.converged_ and slow.converged_
    np.testing.assert_allclose(fast.predict(X), slow.predict(X), rtol=0, atol=1e-8)
    assert fast.sigma_ == pytest.approx(slow.sigma_, abs=1e-8)
    final = fast.estimator_
    assert type(final) is type(base)
    assert final.get_params() == base.get_params()
    ref = slow.estimator_
    np.testing.assert_allclose(final.coef_, ref.coef_, atol=1e-8)
    assert final.intercept_ == pytest.approx(ref.intercept_, abs=1e-8)


def test_solve_equals_a_real_fit(data):
    X, Z, w = data
    y = np.nan_to_num(Z.mean(axis=1), posinf=3.0, neginf=-3.0)
    for base in (LinearRegression(), Ridge(alpha=2.0), Ridge(fit_intercept=False)):
        smoother = LinearSmoother(base, X, w)
        coef, intercept = smoother.coef(y)
        ref = clone(base).fit(X, y, sample_weight=w)
        np.testing.assert_allclose(coef, ref.coef_, atol=1e-10)
        assert intercept == pytest.approx(ref.intercept_, abs=1e-10)


def test_rank_deficient_design_gives_the_minimum_norm_solution():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 2))
    X = np.column_stack([X, X[:, 0] + X[:, 1]])
    y = X[:, 0] + rng.normal(size=300)
    coef, intercept = LinearSmoother(LinearRegression(), X, None).coef(y)
    ref = LinearRegression().fit(X, y)
    np.testing.assert_allclose(coef, ref.coef_, atol=1e-8)
    assert intercept == pytest.approx(ref.intercept_, abs=1e-8)


def test_matches_the_censored_normal_mle():
    # The reference of test_regression.py: Nelder-Mead on the observed-data
    # log-likelihood of the censored linear model.
    X, _y, Z = make_interval_regression(
        500, privatizer=IntervalCaseII(scale=2.0, random_state=3), random_state=2
    )
    reg = IterativeIntervalRegressor(tol=1e-10).fit(X, Z)

    def nll(theta):
        f = theta[0] + theta[1] * X[:, 0]
        return -np.sum(
            log_interval_prob(Z[:, 0] - f, Z[:, 1] - f, "gaussian", np.exp(theta[2]))
        )

    res = optimize.minimize(
        nll,
        [0.0, 1.0, 0.0],
        method="Nelder-Mead",
        options={"xatol": 1e-8, "fatol": 1e-10, "maxiter": 5000},
    )
    assert reg.estimator_.intercept_ == pytest.approx(res.x[0], abs=2e-3)
    assert reg.estimator_.coef_[0] == pytest.approx(res.x[1], abs=2e-3)
    assert reg.sigma_ == pytest.approx(np.exp(res.x[2]), abs=2e-3)
    assert reg.log_likelihood_ == pytest.approx(-res.fun, abs=1e-6)


def test_which_path_is_taken(data):
    X, _Z, _w = data
    assert isinstance(make_refitter(LinearRegression(), X, {}), LinearSmoother)
    assert isinstance(
        make_refitter(Ridge(), X, {"sample_weight": None}), LinearSmoother
    )
    for base, Xb in [
        (make_pipeline(LinearRegression()), X),  # pipelines: general path
        (_LinearSubclass(), X),  # exact type only
        (LinearRegression(positive=True), X),
        (Ridge(alpha=np.ones(1)), X),
        (LinearRegression(), np.where(np.eye(800, 3) > 0, np.nan, X)),
    ]:
        assert isinstance(make_refitter(base, Xb, {}), Refitter)


def test_final_model_is_a_plain_fit_and_clones(data):
    X, Z, _w = data
    frame = pd.DataFrame(X, columns=["a", "b", "c"])
    reg = IterativeIntervalRegressor(Ridge(alpha=1.0)).fit(frame, Z)
    assert type(reg.estimator_) is Ridge
    assert list(reg.feature_names_in_) == ["a", "b", "c"]
    np.testing.assert_allclose(
        reg.predict(frame),
        frame.to_numpy() @ reg.estimator_.coef_ + reg.estimator_.intercept_,
    )
    again = clone(reg).fit(frame, Z)
    np.testing.assert_array_equal(again.predict(frame), reg.predict(frame))


def test_default_converges_without_warning_and_close_to_the_mle():
    # Five features, default Case-I reports: the setting where the old
    # defaults stopped at max_iter with predictions up to 0.2 from the MLE.
    rng = np.random.default_rng(5)
    X = rng.normal(size=(50_000, 5))
    y = X @ np.array([1.0, -1.0, 0.5, 2.0, 0.0]) + rng.normal(size=50_000)
    Z = IntervalCaseI(random_state=6).fit_transform(y[:, None])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg = IterativeIntervalRegressor().fit(X, Z)
    assert reg.converged_
    mle = IterativeIntervalRegressor(tol=1e-10).fit(X, Z)
    gap = np.abs(reg.predict(X) - mle.predict(X)).max()
    assert gap < 1e-2 * mle.sigma_
