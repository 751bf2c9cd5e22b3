"""SQUAREM acceleration and warm starts of IterativeIntervalRegressor."""

import warnings

import numpy as np
import pytest
from sklearn.ensemble import (
    GradientBoostingRegressor,
    HistGradientBoostingRegressor,
    RandomForestRegressor,
)
from sklearn.linear_model import ElasticNet, LinearRegression, SGDRegressor
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skprivate.datasets import make_interval_regression
from skprivate.interval import IntervalCaseI, IterativeIntervalRegressor
from skprivate.interval._truncated import interval_log_likelihood


@pytest.fixture(scope="module")
def data():
    X, _y, Z = make_interval_regression(
        400, privatizer=IntervalCaseI(scale=5.0, random_state=7), random_state=6
    )
    return X, Z


def _fit(reg, X, Z):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return reg.fit(X, Z)


def test_squarem_same_fixed_point_fewer_iterations(data):
    X, Z = data
    plain = _fit(
        IterativeIntervalRegressor(max_iter=5000, tol=1e-8, acceleration=None), X, Z
    )
    fast = _fit(IterativeIntervalRegressor(max_iter=5000, tol=1e-8), X, Z)
    assert plain.converged_ and fast.converged_
    assert fast.n_iter_ < plain.n_iter_ / 4
    assert fast.estimator_.coef_[0] == pytest.approx(
        plain.estimator_.coef_[0], abs=1e-5
    )
    assert fast.sigma_ == pytest.approx(plain.sigma_, abs=1e-5)
    assert fast.log_likelihood_ == pytest.approx(plain.log_likelihood_, abs=1e-7)


def test_log_likelihood_attribute_is_the_observed_data_likelihood(data):
    X, Z = data
    reg = _fit(IterativeIntervalRegressor(noise="logistic", max_iter=50), X, Z)
    f = reg.predict(X)
    expected = interval_log_likelihood(Z[:, 0], Z[:, 1], f, "logistic", reg.sigma_)
    assert reg.log_likelihood_ == pytest.approx(expected, rel=1e-12)
    # Hand check of one row: log P(lower < f + e <= upper) for logistic e.
    from scipy import stats

    i = 0
    lo, hi = Z[i]
    p = stats.logistic.cdf(hi, f[i], reg.sigma_) - stats.logistic.cdf(
        lo, f[i], reg.sigma_
    )
    single = interval_log_likelihood(Z[:1, 0], Z[:1, 1], f[:1], "logistic", reg.sigma_)
    assert single == pytest.approx(np.log(p), rel=1e-10)


def test_squarem_never_ends_below_plain_em_likelihood_at_equal_budget(data):
    # The accepted sequence is monotone in the observed likelihood, so for an
    # equal number of base fits it is at least as far up as plain EM.
    X, Z = data
    for budget in (6, 12, 30):
        plain = _fit(
            IterativeIntervalRegressor(max_iter=budget, acceleration=None), X, Z
        )
        fast = _fit(IterativeIntervalRegressor(max_iter=budget), X, Z)
        assert fast.n_iter_ <= budget
        assert fast.log_likelihood_ >= plain.log_likelihood_ - 1e-9


def test_max_iter_counts_base_fits(data):
    X, Z = data
    for budget in (1, 2, 3, 7):
        reg = _fit(IterativeIntervalRegressor(max_iter=budget, tol=0.0), X, Z)
        assert reg.n_iter_ == budget == len(reg.history_) == len(reg.sigma_history_)


@pytest.mark.parametrize(
    "base",
    [
        SGDRegressor(max_iter=2000, tol=1e-8, random_state=0),
        ElasticNet(alpha=1e-3, tol=1e-10),
    ],
    ids=["sgd", "elasticnet"],
)
def test_solver_warm_start_fits_the_same_model(data, base):
    X, Z = data
    cold = _fit(IterativeIntervalRegressor(base, max_iter=15, acceleration=None), X, Z)
    warm = _fit(IterativeIntervalRegressor(base, max_iter=15, warm_start=True), X, Z)
    assert warm.estimator_.coef_[0] == pytest.approx(cold.estimator_.coef_[0], abs=2e-3)
    assert warm.sigma_ == pytest.approx(cold.sigma_, abs=2e-3)


def test_boosting_warm_start_adds_rounds(data):
    X, Z = data
    gb = GradientBoostingRegressor(n_estimators=20, max_depth=2, random_state=0)
    reg = _fit(
        IterativeIntervalRegressor(gb, max_iter=5, tol=0.0, warm_start=True), X, Z
    )
    assert len(reg.estimator_.estimators_) == 20 + 4 * 2
    reg = _fit(IterativeIntervalRegressor(gb, max_iter=5, tol=0.0, warm_start=3), X, Z)
    assert len(reg.estimator_.estimators_) == 20 + 4 * 3
    # The user's regressor is left untouched.
    assert gb.get_params()["warm_start"] is False and gb.n_estimators == 20
    hgb = HistGradientBoostingRegressor(max_iter=20, early_stopping=False)
    reg = _fit(IterativeIntervalRegressor(hgb, max_iter=4, tol=0.0, warm_start=5), X, Z)
    assert reg.estimator_.n_iter_ == 20 + 3 * 5
    # Fitted values of the continued model are its own predictions.
    f = reg.predict(X)
    assert reg.log_likelihood_ == pytest.approx(
        interval_log_likelihood(Z[:, 0], Z[:, 1], f, "gaussian", reg.sigma_), rel=1e-10
    )


def test_lightgbm_warm_start_continues_the_booster(data):
    lightgbm = pytest.importorskip("lightgbm")
    X, Z = data
    base = lightgbm.LGBMRegressor(n_estimators=30, verbose=-1, n_jobs=1)
    reg = _fit(
        IterativeIntervalRegressor(base, max_iter=4, tol=0.0, warm_start=True), X, Z
    )
    assert reg.estimator_.booster_.num_trees() == 30 + 3 * 3
    # The incrementally tracked fitted values equal the model's predictions.
    f = reg.predict(X)
    assert reg.log_likelihood_ == pytest.approx(
        interval_log_likelihood(Z[:, 0], Z[:, 1], f, "gaussian", reg.sigma_), rel=1e-9
    )


@pytest.mark.parametrize(
    "base, match",
    [
        (LinearRegression(), "not supported for LinearRegression"),
        (
            RandomForestRegressor(n_estimators=5),
            "not supported for RandomForestRegressor",
        ),
        (make_pipeline(StandardScaler(), SGDRegressor()), "not a Pipeline"),
    ],
)
def test_warm_start_refused_where_it_would_change_the_algorithm(data, base, match):
    X, Z = data
    with pytest.raises(ValueError, match=f"warm_start.*{match}|{match}"):
        IterativeIntervalRegressor(base, warm_start=True).fit(X, Z)
