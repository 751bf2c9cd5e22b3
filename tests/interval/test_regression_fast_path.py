"""The fast path of IterativeIntervalRegressor(LinearRegression()): Newton's
method with its shortcuts (subsample starts, Taylor passes, log Φ as
log(ndtr)) lands on the interval MLE of a plain computation, and the choices
of init="auto" around it stay where they were."""

import warnings

import numpy as np
import pytest
from scipy.optimize import minimize
from scipy.special import log_ndtr
from sklearn.linear_model import LinearRegression

from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IterativeIntervalRegressor,
    _regression,
)
from skprivate.interval._newton import (
    _TAYLOR_PASS_MAX_STEP,
    CensoredNormal,
    _log_ndtr_into,
)


def _case_one(n, seed, square=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = 0.5 + X @ np.array([1.0, -0.5, 2.0]) + square * X[:, 0] ** 2
    y = y + rng.normal(size=n)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Z = IntervalCaseI(random_state=seed).fit_transform(y[:, None])
    return X, np.asarray(Z, dtype=float)


def _fit(X, Z, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return IterativeIntervalRegressor(LinearRegression(), **kwargs).fit(X, Z)


def _plain_mle(X, Z):
    # The Gaussian interval log-likelihood of half-lines and cells in
    # (intercept, coef, log sigma), maximized by BFGS from least squares on
    # the finite ends, until rounding stops it.
    lo, hi = Z[:, 0], Z[:, 1]
    up, down = np.isinf(lo), np.isinf(hi)
    cell = ~(up | down)
    A = np.column_stack([np.ones(len(Z)), X])

    def negative(theta):
        mean, sigma = A @ theta[:-1], np.exp(theta[-1])
        d_mean, d_log = np.zeros(len(Z)), np.zeros(len(Z))
        total = 0.0
        # (-inf, hi]: log Phi(b), b = (hi - mean) / sigma
        b = (hi[up] - mean[up]) / sigma
        r = np.exp(-0.5 * b * b - 0.5 * np.log(2 * np.pi) - log_ndtr(b))
        total += log_ndtr(b).sum()
        d_mean[up], d_log[up] = -r / sigma, -b * r
        # (lo, inf): log Phi(a), a = (mean - lo) / sigma
        a = (mean[down] - lo[down]) / sigma
        r = np.exp(-0.5 * a * a - 0.5 * np.log(2 * np.pi) - log_ndtr(a))
        total += log_ndtr(a).sum()
        d_mean[down], d_log[down] = r / sigma, -a * r
        # (lo, hi]: log(Phi(b) - Phi(a))
        a = (lo[cell] - mean[cell]) / sigma
        b = (hi[cell] - mean[cell]) / sigma
        p = np.exp(log_ndtr(b)) - np.exp(log_ndtr(a))
        pa = np.exp(-0.5 * a * a) / np.sqrt(2 * np.pi)
        pb = np.exp(-0.5 * b * b) / np.sqrt(2 * np.pi)
        total += np.log(p).sum()
        d_mean[cell] = (pa - pb) / (sigma * p)
        d_log[cell] = (a * pa - b * pb) / p
        grad = np.append(A.T @ d_mean, d_log.sum())
        return -total, -grad

    mid = np.where(np.isfinite(lo), lo, hi)
    start = np.linalg.lstsq(A, mid, rcond=None)[0]
    theta0 = np.append(start, np.log(np.std(mid - A @ start)))
    res = minimize(negative, theta0, jac=True, method="BFGS", options={"gtol": 1e-9})
    # (BFGS stops on rounding there: the parameters within about 1e-10)
    assert np.max(np.abs(res.jac)) < 1e-10 * len(Z)
    return res.x[0], res.x[1:-1], float(np.exp(res.x[-1])), -res.fun


@pytest.mark.parametrize(
    ("kind", "n"), [("case1", 600), ("case2", 600), ("case1", 2500)]
)
def test_default_fit_is_the_plain_mle(monkeypatch, kind, n):
    if kind == "case1":
        X, Z = _case_one(n, 0)
    else:
        rng = np.random.default_rng(1)
        X = rng.normal(size=(n, 3))
        y = 0.5 + X @ np.array([1.0, -0.5, 2.0]) + rng.normal(size=n)
        Z = IntervalCaseII(scale=2.0, random_state=1).fit_transform(y[:, None])
    if n > 1000:
        # the large-sample start (two subsample solves), here from 2,000 rows
        monkeypatch.setattr(_regression, "_NEWTON_SUBSAMPLE_FROM", 2_000)
        monkeypatch.setattr(_regression, "_NEWTON_SUBSAMPLE_ROWS", 600)
        monkeypatch.setattr(_regression, "_NEWTON_PRESOLVE_ROWS", 150)
    reg = _fit(X, Z)
    assert reg.solver_ == "newton" and reg.projection_ is None
    intercept, coef, sigma, ll = _plain_mle(X, Z)
    np.testing.assert_allclose(reg.estimator_.coef_, coef, rtol=0, atol=1e-8)
    assert reg.estimator_.intercept_ == pytest.approx(intercept, abs=1e-8)
    assert reg.sigma_ == pytest.approx(sigma, abs=1e-8)
    assert reg.log_likelihood_ == pytest.approx(ll, abs=1e-8)


def test_taylor_passes_land_on_the_plain_mle(monkeypatch):
    # tol=1e-9: after a step of about 1e-5 sigma the next pass keeps the
    # Hessian and is taken from the Taylor terms of the pass before.
    X, Z = _case_one(800, 3)
    calls = []
    near = CensoredNormal.evaluate_near

    def spy(self, *args):
        out = near(self, *args)
        calls.append(out is not None)
        return out

    monkeypatch.setattr(CensoredNormal, "evaluate_near", spy)
    reg = _fit(X, Z, tol=1e-9)
    assert reg.solver_ == "newton" and any(calls)
    intercept, coef, sigma, ll = _plain_mle(X, Z)
    np.testing.assert_allclose(reg.estimator_.coef_, coef, rtol=0, atol=1e-8)
    assert reg.estimator_.intercept_ == pytest.approx(intercept, abs=1e-8)
    assert reg.sigma_ == pytest.approx(sigma, abs=1e-8)
    assert reg.log_likelihood_ == pytest.approx(ll, abs=1e-8)


@pytest.mark.parametrize("options", [{}, {"weighted": True}, {"sigma": 1.3}], ids=str)
def test_taylor_pass_equals_the_exact_pass(options):
    # From a pass at the MLE to a point whose rows moved by up to 1.5e-4
    # in s: the log-likelihood, the gradient and the Mills ratios of the
    # Taylor pass equal those of a full pass to rounding (dropping the
    # third-order term of r would leave 1e-13 per row).
    X, Z = _case_one(500, 5)
    rng = np.random.default_rng(2)
    w = rng.uniform(0.5, 2.0, len(Z)) if options.get("weighted") else np.ones(len(Z))
    model = CensoredNormal(X, Z[:, 0], Z[:, 1], w, True, sigma=options.get("sigma"))
    reg = _fit(X, Z, init="constant", sigma=options.get("sigma", "auto"))
    p0 = model.params_for(reg.estimator_.coef_, reg.estimator_.intercept_, reg.sigma_)
    at = model.evaluate(p0)
    q = model.Dt.shape[0]
    c, sign = model._groups[0][2]
    direction = rng.normal(size=p0.size) * np.abs(p0)

    def moved_by(size):
        p1 = p0 + size * direction
        d_eta = (p1 - p0)[:q] @ model.Dt
        theta0, theta1 = model.split(p0)[1], model.split(p1)[1]
        ds = sign * (c * (theta1 - theta0) - d_eta)
        return p1, d_eta, float(np.abs(ds).max())

    _, _, unit = moved_by(1.0)
    p1, d_eta, largest = moved_by(1.5e-4 / unit)
    assert 1e-4 < largest <= _TAYLOR_PASS_MAX_STEP
    eta = at.eta + d_eta
    theta0 = model.split(p0)[1]
    taylor = model.evaluate_near(p1, eta, at, theta0, d_eta, at.hess)
    exact = model.evaluate(p1, eta, hess=at.hess)
    assert taylor is not None and taylor.hess is at.hess
    scale = float(np.abs(w).sum())
    assert taylor.ll == pytest.approx(exact.ll, rel=0, abs=1e-14 * scale)
    np.testing.assert_allclose(taylor.grad, exact.grad, rtol=0, atol=1e-14 * scale)
    for mine, full in zip(taylor.half_terms, exact.half_terms, strict=True):
        np.testing.assert_allclose(mine, full, rtol=1e-14, atol=2e-16)
    # A row moved further than the Taylor terms cover: a full pass instead.
    p2, d_eta2, largest2 = moved_by(3.0 * _TAYLOR_PASS_MAX_STEP / unit)
    assert largest2 > _TAYLOR_PASS_MAX_STEP
    assert model.evaluate_near(p2, at.eta + d_eta2, at, theta0, d_eta2, at.hess) is None


@pytest.mark.parametrize("options", [{}, {"weighted": True}, {"sigma": 1.3}], ids=str)
def test_half_line_pass_hessian_is_the_jacobian_of_its_gradient(options):
    # The Gram product of a pass (its upper triangle row by row, mirrored)
    # against central differences of the gradient (step 1e-6: agreement to
    # about 1e-7 of the largest entry).
    X, Z = _case_one(400, 7)
    rng = np.random.default_rng(3)
    w = rng.uniform(0.5, 2.0, len(Z)) if options.get("weighted") else np.ones(len(Z))
    model = CensoredNormal(X, Z[:, 0], Z[:, 1], w, True, sigma=options.get("sigma"))
    p0 = model.params_for(np.array([0.8, -0.4, 1.5]), 0.3, 1.2)
    hess = model.evaluate(p0).hess
    step = 1e-6
    numeric = np.empty_like(hess)
    for j in range(p0.size):
        e = np.zeros(p0.size)
        e[j] = step
        up, down = model.evaluate(p0 + e).grad, model.evaluate(p0 - e).grad
        numeric[:, j] = (up - down) / (2 * step)
    np.testing.assert_array_equal(hess, hess.T)
    np.testing.assert_allclose(hess, numeric, rtol=0, atol=1e-7 * np.abs(hess).max())


def test_log_ndtr_of_the_passes():
    # log(ndtr(s)) equals log Phi(s) to rounding on [-20, 6] (checked at 40
    # digits, not against scipy's log_ndtr, which scipy 1.13 computes less
    # exactly there); above, log_ndtr within the spacing of doubles near 1;
    # below -20, log_ndtr itself (its asymptotic series), where log(ndtr(s))
    # loses digits and then is -inf.
    import mpmath

    s = np.concatenate([np.linspace(-45.0, 45.0, 9001), [-np.inf, np.inf]])
    out = _log_ndtr_into(s, np.empty_like(s))
    ref = log_ndtr(s)
    middle = (s >= -20.0) & (s <= 6.0)
    with mpmath.workdps(40):
        exact = [float(mpmath.log(mpmath.ncdf(mpmath.mpf(x)))) for x in s[middle]]
    np.testing.assert_allclose(out[middle], exact, rtol=5e-16, atol=1e-16)
    np.testing.assert_array_equal(out[s < -20.0], ref[s < -20.0])
    np.testing.assert_allclose(out[s > 6.0], ref[s > 6.0], rtol=0, atol=1.2e-16)


def _friedman2_narrow(n, seed):
    # Friedman #2 (not linear in X) with narrow anchors above the centre:
    # the boosted model from the MLE is clearly better on held-out rows.
    from sklearn.datasets import make_friedman2

    X, f = make_friedman2(n, noise=0.0, random_state=seed)
    y = f + 10.0 * np.random.default_rng(seed).normal(size=n)
    mech = IntervalCaseII(
        scale=2.0,
        anchor_loc=float(y.mean() + y.std()),
        anchor_scale=float(0.3 * y.std()),
        random_state=seed,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return X, mech.fit_transform(y[:, None])


# The decisions of init="auto" and the numbers they rest on: the score
# test's p-value against 0.05 and, when it rejects, the held-out z of each
# boosted model's gain over the MLE against 2.  The MLE's held-out score
# comes from the fast path on three quarters of the rows (to 1e-9); the
# boosted models are LightGBM fits on one thread.
_SCREEN_PASSES = {"specification p-value": 0.32689657083787854}
_CHECK_KEEPS_THE_MLE = {
    "specification p-value": 1.5701045161591582e-12,
    "MLE": -0.2367236709538766,
    "z boosting": -3.565724634217642,
    "z boosting from MLE": -3.6338185927884266,
}
_CHECK_PROJECTS = {
    "specification p-value": 0.0,
    "MLE": -0.17866508023820762,
    "z boosting": -0.46439510394542494,
    "z boosting from MLE": 4.244412658713583,
}


def _assert_scores(scores, pinned):
    assert set(pinned) <= set(scores)
    for key, value in pinned.items():
        assert scores[key] == pytest.approx(value, rel=1e-9, abs=1e-15), key


def test_auto_keeps_the_mle_when_the_screen_passes():
    X, Z = _case_one(1500, 0)
    reg = _fit(X, Z, random_state=0)
    assert set(reg.start_scores_) == set(_SCREEN_PASSES)
    _assert_scores(reg.start_scores_, _SCREEN_PASSES)
    assert reg.solver_ == "newton" and reg.projection_ is None


def test_auto_keeps_the_mle_when_the_check_finds_no_gain():
    pytest.importorskip("lightgbm")
    X, Z = _case_one(1500, 0, square=0.4)
    reg = _fit(X, Z, random_state=0)
    _assert_scores(reg.start_scores_, _CHECK_KEEPS_THE_MLE)
    assert reg.solver_ == "newton" and reg.projection_ is None
    np.testing.assert_array_equal(
        reg.predict(X), _fit(X, Z, init="constant").predict(X)
    )


def test_auto_projects_when_the_check_finds_a_gain():
    pytest.importorskip("lightgbm")
    X, Z = _friedman2_narrow(1000, 0)
    reg = _fit(X, Z, random_state=0)
    _assert_scores(reg.start_scores_, _CHECK_PROJECTS)
    assert reg.solver_ == "projection" and reg.projection_ == "mle"
