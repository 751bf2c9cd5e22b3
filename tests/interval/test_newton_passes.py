"""The passes of Newton's method on half-lines: blocks, lagged Hessian, imputation."""

import warnings

import numpy as np
import pytest
from scipy.special import log_ndtr
from threadpoolctl import threadpool_info

from skprivate.interval import IntervalCaseI, _newton
from skprivate.interval._newton import (
    CensoredNormal,
    newton_interval_mle,
    one_blas_thread,
)
from skprivate.interval._truncated import log_interval_prob, truncated_moments


def _case_one(n=1_000, seed=0, weighted=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = 1.0 + X @ np.array([1.0, -0.5, 2.0]) + rng.normal(size=n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # (anchors at the default scale)
        Z = IntervalCaseI(random_state=seed + 1).fit_transform(y[:, None])
    w = rng.uniform(0.2, 2.0, size=n) if weighted else np.ones(n)
    return X, Z, w


def _direct_pass(model, params):
    # ll, gradient and Hessian in (delta, theta) from the row formulas,
    # without blocks: s = sign (theta c - eta), r = phi(s) / Phi(s).
    delta, theta = params[:-1], params[-1]
    c, sign = model._groups[0][2]
    eta = delta @ model.Dt
    s = sign * (theta * c - eta)
    lp = log_ndtr(s)
    r = np.exp(-0.5 * s * s - 0.5 * np.log(2 * np.pi) - lp)
    rows = np.vstack([model.Dt, -c])  # (d_i, -c_i)
    grad = rows @ (model.w * -sign * r)
    hess = -(rows * (model.w * r * (s + r))) @ rows.T
    return float(model.w @ lp), grad, hess


@pytest.mark.parametrize("weighted", [False, True])
def test_a_pass_in_blocks_equals_the_row_formulas(monkeypatch, weighted):
    # 1,000 rows in blocks of 64 (the last one partial): every block counts.
    X, Z, w = _case_one(weighted=weighted)
    monkeypatch.setattr(_newton, "_BLOCK_ROWS", 64)
    model = CensoredNormal(X, Z[:, 0], Z[:, 1], w, fit_intercept=True)
    params = model.params_for(np.array([0.8, -0.4, 1.9]), 1.2, 1.1)
    got = model.evaluate(params)
    ll, grad, hess = _direct_pass(model, params)
    assert got.ll == pytest.approx(ll, rel=1e-13)
    np.testing.assert_allclose(got.grad, grad, rtol=1e-12, atol=1e-9)
    np.testing.assert_allclose(got.hess, hess, rtol=1e-12, atol=1e-9)


def test_a_hessian_passed_in_is_kept_and_the_rest_computed():
    X, Z, w = _case_one()
    model = CensoredNormal(X, Z[:, 0], Z[:, 1], w, fit_intercept=True)
    params = model.params_for(np.array([0.8, -0.4, 1.9]), 1.2, 1.1)
    exact = model.evaluate(params)
    given = np.eye(exact.hess.shape[0])
    lagged = model.evaluate(params, hess=given)
    assert lagged.hess is given
    assert lagged.ll == exact.ll
    np.testing.assert_array_equal(lagged.grad, exact.grad)


@pytest.mark.parametrize("weighted", [False, True])
def test_imputation_near_a_pass_equals_the_direct_one(weighted):
    # A converged step moves each row's s by less than 1e-8: the first-order
    # terms give impute()'s imputations and log-likelihood to rounding.
    X, Z, w = _case_one(weighted=weighted)
    model = CensoredNormal(X, Z[:, 0], Z[:, 1], w, fit_intercept=True)
    at = model.params_for(np.array([0.8, -0.4, 1.9]), 1.2, 1.1)
    near = model.evaluate(at)
    moved = at * (1.0 + 1e-10)
    eta = model.linear_predictor(moved)
    got = model.impute_near(moved, eta, near, at[-1])
    assert got is not None
    y, ll = model.impute(moved)
    np.testing.assert_allclose(got[0], y, rtol=1e-14, atol=1e-13)
    assert got[1] == pytest.approx(ll, rel=1e-14)
    # the same from the linear predictor's change
    again = model.impute_near(moved, eta, near, at[-1], eta - near.eta)
    np.testing.assert_allclose(again[0], y, rtol=1e-14, atol=1e-13)
    # a step that moves some row further is computed afresh
    far = at * (1.0 + 1e-6)
    assert model.impute_near(far, model.linear_predictor(far), near, at[-1]) is None


def _solve_counting_grams(monkeypatch, model, threshold):
    monkeypatch.setattr(_newton, "_LAG_HESSIAN_STEP", threshold)
    computed = []
    gram = CensoredNormal._gram_buffer
    monkeypatch.setattr(
        model, "_gram_buffer", lambda shape: computed.append(1) or gram(model, shape)
    )
    return newton_interval_mle(model, 0.0, 1.0), len(computed)


def test_the_pass_after_a_tiny_step_keeps_its_hessian(monkeypatch):
    # Here the step before the last one moves the fit by 8e-6 sigma and
    # sigma by 4e-5 of itself: below 1e-4 the pass after it keeps the
    # Hessian of the pass before, and the last step is off by about 1e-4 of
    # itself (3e-10 sigma); with a fresh Hessian at every pass it is exact.
    X, Z, w = _case_one(seed=1)
    model = CensoredNormal(X, Z[:, 0], Z[:, 1], w, fit_intercept=True)
    fresh, grams = _solve_counting_grams(monkeypatch, model, 0.0)
    lagged, lagged_grams = _solve_counting_grams(monkeypatch, model, 1e-4)
    assert lagged_grams == grams - 1
    assert lagged.n_passes == fresh.n_passes
    np.testing.assert_allclose(lagged.coef, fresh.coef, rtol=0, atol=1e-12)
    assert lagged.sigma == pytest.approx(fresh.sigma, abs=1e-12)
    # at 2e-5 the fit moved little enough, but sigma did not; the default
    # threshold (3e-6) leaves this pass alone too: the same solution
    for threshold in (2e-5, 3e-6):
        kept, kept_grams = _solve_counting_grams(monkeypatch, model, threshold)
        assert kept_grams == grams
        np.testing.assert_array_equal(kept.coef, fresh.coef)


def test_half_line_moments_equal_those_of_the_general_path():
    # All half-lines take their own branch; with one two-sided cell added
    # the same rows go through the general one.
    rng = np.random.default_rng(3)
    c = rng.normal(scale=3.0, size=400)
    up = rng.random(400) < 0.5
    lower = np.where(up, -np.inf, c)
    upper = np.where(up, c, np.inf)
    fast = truncated_moments(lower, upper, "gaussian", 1.3, log_prob=True)
    general = truncated_moments(
        np.r_[lower, 0.0], np.r_[upper, 1.0], "gaussian", 1.3, log_prob=True
    )
    for a, b in zip(fast, general):
        np.testing.assert_array_equal(a, b[:-1])


def test_half_line_log_probabilities_equal_those_of_the_general_path():
    rng = np.random.default_rng(4)
    c = rng.normal(scale=3.0, size=400)
    up = rng.random(400) < 0.5
    lower, upper = np.where(up, -np.inf, c), np.where(up, c, np.inf)
    fast = log_interval_prob(lower, upper, "gaussian", 0.7)
    general = log_interval_prob(np.r_[lower, 0.0], np.r_[upper, 1.0], "gaussian", 0.7)
    np.testing.assert_array_equal(fast, general[:-1])


def test_one_blas_thread_limits_blas():
    with one_blas_thread():
        inside = [
            lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"
        ]
    assert inside and all(k == 1 for k in inside)
