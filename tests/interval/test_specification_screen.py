"""The score test that screens init="auto"'s check of a linear base."""

import warnings

import numpy as np
import pytest
from scipy.stats import chi2
from sklearn.datasets import make_friedman1
from sklearn.linear_model import LinearRegression

from skprivate import IntervalCaseI, IntervalCaseII, IterativeIntervalRegressor
from skprivate.interval import _auto_init
from skprivate.interval._specification import (
    linear_specification_pvalue,
    specification_terms,
)
from skprivate.interval._truncated import log_interval_prob

BETA = np.array([1.0, -1.0, 0.5, 0.0, 2.0])


def _linear(n, seed, kind=IntervalCaseI):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 5))
    y = X @ BETA + rng.normal(size=n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Z = kind(random_state=seed).fit_transform(y[:, None])
    return X, Z


def _mle(X, Z):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return IterativeIntervalRegressor(LinearRegression(), init="constant").fit(X, Z)


def _log_likelihood(theta, D, Z):
    # interval log-likelihood of the extended model; theta = (location
    # coefficients, log sigma); exact rows use the density
    f = D @ theta[:-1]
    sigma = np.exp(theta[-1])
    exact = Z[:, 0] == Z[:, 1]
    ll = np.empty(len(f))
    ll[~exact] = log_interval_prob(
        Z[~exact, 0] - f[~exact], Z[~exact, 1] - f[~exact], "gaussian", sigma
    )
    t = (Z[exact, 0] - f[exact]) / sigma
    ll[exact] = -0.5 * t * t - 0.5 * np.log(2 * np.pi) - np.log(sigma)
    return float(ll.sum())


def _numerical_statistic(X, Z, fitted, sigma):
    # Independent form: the score and Hessian of the extended model by
    # central differences of the log-likelihood, at the MLE with the added
    # coefficients at zero; statistic U' (-H)^-1 U.
    n = X.shape[0]
    # the square of the fit lies in the span of the features, their squares
    # and products (the fit is linear in them): left out, the rest has full
    # rank and spans the same directions
    G = specification_terms(X, fitted)
    D = np.column_stack([np.ones(n), X, np.delete(G, -2, axis=1)])
    coef = np.linalg.lstsq(D[:, : X.shape[1] + 1], fitted, rcond=None)[0]
    theta = np.r_[coef, np.zeros(D.shape[1] - coef.size), np.log(sigma)]
    m = theta.size
    eps = 1e-4
    grad = np.empty(m)
    hess = np.empty((m, m))
    basis = np.eye(m) * eps
    for i in range(m):
        grad[i] = (
            _log_likelihood(theta + basis[i], D, Z)
            - _log_likelihood(theta - basis[i], D, Z)
        ) / (2 * eps)
        for j in range(i, m):
            value = (
                _log_likelihood(theta + basis[i] + basis[j], D, Z)
                - _log_likelihood(theta + basis[i] - basis[j], D, Z)
                - _log_likelihood(theta - basis[i] + basis[j], D, Z)
                + _log_likelihood(theta - basis[i] - basis[j], D, Z)
            ) / (4 * eps * eps)
            hess[i, j] = hess[j, i] = value
    return float(grad @ np.linalg.solve(-hess, grad)), m - (X.shape[1] + 2)


@pytest.mark.parametrize("kind", [IntervalCaseI, IntervalCaseII])
def test_statistic_equals_the_score_test_from_numerical_derivatives(kind):
    # Two features (2 squares, 1 product and the cube of the fit: 4 degrees
    # of freedom; its square is in their span) on a mildly quadratic truth.
    rng = np.random.default_rng(3)
    X = rng.normal(size=(300, 2))
    y = X @ [1.0, -0.5] + 0.25 * X[:, 0] ** 2 + rng.normal(size=300)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Z = kind(random_state=3).fit_transform(y[:, None])
    reg = _mle(X, Z)
    fitted = reg.predict(X)
    p = linear_specification_pvalue(X, Z, np.ones(300), fitted, reg.sigma_)
    statistic, df = _numerical_statistic(X, Z, fitted, reg.sigma_)
    assert df == 4
    assert p == pytest.approx(chi2.sf(statistic, df), rel=1e-3)
    assert 1e-12 < p < 0.05


def test_weights_scale_the_information_and_the_score():
    # Weight 2 on every row is the data set counted twice: the statistic
    # doubles (the score doubles, the information doubles).
    X, Z = _linear(400, 1, IntervalCaseII)
    reg = _mle(X, Z)
    f = reg.predict(X)
    p1 = linear_specification_pvalue(X, Z, np.ones(400), f, reg.sigma_)
    p2 = linear_specification_pvalue(X, Z, np.full(400, 2.0), f, reg.sigma_)
    # 5 squares, 10 products and the cube of the fit (its square is in the
    # span of the others)
    df = 5 + 10 + 1
    assert chi2.isf(p2, df) == pytest.approx(2 * chi2.isf(p1, df), rel=1e-6)


def test_terms_squares_products_and_powers_of_the_fit():
    X = np.array([[0.0, 1.0, 5.0], [1.0, 3.0, 5.0], [2.0, 2.0, 5.0]])
    fitted = np.array([1.0, 2.0, 4.0])
    G = specification_terms(X, fitted)
    # the constant third column is left out: 2 squares, 1 product, 2 powers
    assert G.shape == (3, 5)
    s = (X[:, :2] - X[:, :2].mean(0)) / X[:, :2].std(0)
    t = (fitted - fitted.mean()) / fitted.std()
    np.testing.assert_allclose(G[:, :2], s**2)
    np.testing.assert_allclose(G[:, 2], s[:, 0] * s[:, 1])
    np.testing.assert_allclose(G[:, 3:], np.column_stack([t**2, t**3]))


def test_many_features_keep_squares_then_only_the_fit_powers():
    rng = np.random.default_rng(0)
    assert specification_terms(rng.normal(size=(50, 9)), rng.normal(size=50)).shape[
        1
    ] == (9 + 2)
    assert (
        specification_terms(rng.normal(size=(50, 41)), rng.normal(size=50)).shape[1]
        == 2
    )


def test_does_not_apply_to_few_rows_or_a_non_numeric_design():
    X, Z = _linear(100, 0)
    reg = _mle(X, Z)
    f = reg.predict(X)
    # 6 location terms + sigma + 17 added terms need 240 rows
    assert linear_specification_pvalue(X, Z, np.ones(100), f, reg.sigma_) is None
    text = np.array([["a"] * 5] * 100, dtype=object)
    assert linear_specification_pvalue(text, Z, np.ones(100), f, reg.sigma_) is None


def test_rejects_a_nonlinear_regression_function():
    X, y = make_friedman1(1000, noise=1.0, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Z = IntervalCaseI(
            scale=5.0, anchor_loc=y.mean(), anchor_scale=y.std(), random_state=1
        ).fit_transform(y[:, None])
    reg = _mle(X, Z)
    p = linear_specification_pvalue(X, Z, np.ones(1000), reg.predict(X), reg.sigma_)
    assert p < 1e-10


@pytest.mark.slow
def test_level_under_a_linear_model():
    # 200 Case-I samples of a linear model: the screen rejects at 0.05 in
    # about 8 % of them (the score test's chi-square law is reached slowly
    # on one-sided answers, and over-rejecting only runs the full check more
    # often); 0.14 is three standard errors above that.
    rejected = 0
    for seed in range(200):
        X, Z = _linear(1000, seed)
        reg = _mle(X, Z)
        p = linear_specification_pvalue(X, Z, np.ones(1000), reg.predict(X), reg.sigma_)
        rejected += p < 0.05
    assert rejected / 200 < 0.14


def test_default_skips_the_check_when_the_screen_passes(monkeypatch):
    X, Z = _linear(1000, 0)
    reg0 = _mle(X, Z)
    p = linear_specification_pvalue(X, Z, np.ones(1000), reg0.predict(X), reg0.sigma_)
    assert p >= _auto_init._SCREEN_LEVEL

    def boom(*args, **kwargs):
        raise AssertionError("the boosted check ran")

    monkeypatch.setattr(_auto_init.AutoInitMixin, "_select_projection", boom)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reg = IterativeIntervalRegressor(LinearRegression()).fit(X, Z)
    assert reg.start_scores_ == {"specification p-value": pytest.approx(p)}
    assert reg.solver_ == "newton" and reg.projection_ is None
    np.testing.assert_array_equal(reg.predict(X), reg0.predict(X))


def test_default_runs_the_check_when_the_screen_rejects():
    X, y = make_friedman1(1000, noise=1.0, random_state=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Z = IntervalCaseI(
            scale=5.0, anchor_loc=y.mean(), anchor_scale=y.std(), random_state=1
        ).fit_transform(y[:, None])
        reg = IterativeIntervalRegressor(LinearRegression(), random_state=0).fit(X, Z)
    scores = reg.start_scores_
    assert scores["specification p-value"] < _auto_init._SCREEN_LEVEL
    assert {"MLE", "boosting", "z boosting", "z boosting from MLE"} <= set(scores)
