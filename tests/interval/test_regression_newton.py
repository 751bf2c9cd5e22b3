"""Newton's method for IterativeIntervalRegressor(LinearRegression()), Gaussian."""

import warnings

import numpy as np
import pytest
from sklearn.linear_model import LinearRegression, Ridge

from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IterativeIntervalRegressor,
    _regression,
)
from skprivate.interval._newton import CensoredNormal, newton_interval_mle
from skprivate.interval._truncated import interval_log_likelihood


def _design(n=800, seed=0, intercept=1.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = intercept + X @ np.array([1.0, -0.5, 2.0]) + rng.normal(size=n)
    return X, y, rng


def _case_two(n=800, seed=0, intercept=1.0):
    X, y, rng = _design(n, seed, intercept)
    Z = IntervalCaseII(scale=2.0, random_state=seed + 1).fit_transform(y[:, None])
    return X, Z, rng


def _mixed(n=800, seed=0):
    # Exact values, two-sided cells and half-lines open on either side.
    X, y, rng = _design(n, seed)
    Z = IntervalCaseII(scale=2.0, random_state=seed + 1).fit_transform(y[:, None])
    kind = rng.integers(0, 4, size=n)
    Z[kind == 0] = y[kind == 0, None]
    cut = y + rng.normal(size=n)
    below = kind == 1
    Z[below, 0], Z[below, 1] = -np.inf, np.maximum(cut[below], y[below])
    above = kind == 2
    Z[above, 0], Z[above, 1] = np.minimum(cut[above], y[above]), np.inf
    return X, Z, rng


def _case_one(n=800, seed=0):
    X, y, _rng = _design(n, seed)
    Z = IntervalCaseI(random_state=seed + 1).fit_transform(y[:, None])
    return X, Z, _rng


def _reference(monkeypatch, X, Z, **kwargs):
    # The EM/SQUAREM path run to tol=1e-10 (Newton disabled).
    with monkeypatch.context() as mp:
        mp.setattr(_regression, "newton_interval_mle", lambda *a, **k: None)
        ref = IterativeIntervalRegressor(tol=1e-10, max_iter=20_000, **kwargs)
        ref.fit(X, Z)
    assert ref.solver_ == "squarem" and ref.converged_
    return ref


CASES = {
    "case-II": _case_two,
    "case-I half-lines": _case_one,
    "exact, cells and half-lines": _mixed,
}


@pytest.mark.parametrize("make", CASES.values(), ids=CASES.keys())
@pytest.mark.parametrize(
    "options",
    [
        {},
        {"weighted": True},
        {"fit_intercept": False},
        {"sigma": 1.3},
        {"weighted": True, "sigma": 0.8, "fit_intercept": False},
    ],
    ids=["plain", "weighted", "no-intercept", "known-sigma", "all"],
)
def test_same_fixed_point_as_squarem(monkeypatch, make, options):
    X, Z, rng = make()
    w = rng.uniform(0.2, 2.0, size=len(Z)) if options.get("weighted") else None
    base = LinearRegression(fit_intercept=options.get("fit_intercept", True))
    kwargs = {"sigma": options["sigma"]} if "sigma" in options else {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg = IterativeIntervalRegressor(base, **kwargs).fit(X, Z, sample_weight=w)
    assert reg.solver_ == "newton" and reg.converged_
    with monkeypatch.context() as mp:
        mp.setattr(_regression, "newton_interval_mle", lambda *a, **k: None)
        ref = IterativeIntervalRegressor(base, tol=1e-10, max_iter=20_000, **kwargs)
        ref.fit(X, Z, sample_weight=w)
    assert ref.solver_ == "squarem" and ref.converged_
    np.testing.assert_allclose(reg.predict(X), ref.predict(X), rtol=0, atol=1e-7)
    np.testing.assert_allclose(
        reg.estimator_.coef_, ref.estimator_.coef_, rtol=0, atol=1e-7
    )
    assert reg.estimator_.intercept_ == pytest.approx(
        ref.estimator_.intercept_, abs=1e-7
    )
    assert reg.sigma_ == pytest.approx(ref.sigma_, abs=1e-7)
    assert reg.log_likelihood_ == pytest.approx(ref.log_likelihood_, abs=1e-7)
    # The attribute is the observed-data log-likelihood at the returned fit.
    expected = interval_log_likelihood(
        Z[:, 0],
        Z[:, 1],
        reg.predict(X),
        "gaussian",
        reg.sigma_,
        np.ones(len(Z)) if w is None else w,
    )
    assert reg.log_likelihood_ == pytest.approx(expected, abs=1e-8)
    assert type(reg.estimator_) is LinearRegression
    assert reg.n_iter_ == len(reg.history_) == len(reg.sigma_history_) < 15


@pytest.mark.parametrize("make", CASES.values(), ids=CASES.keys())
def test_final_fit_equals_the_newton_solution(make):
    # The model is a real LinearRegression fit on the imputations at the
    # Newton solution; at the MLE its least-squares solution is that MLE.
    X, Z, rng = make()
    w = rng.uniform(0.2, 2.0, size=len(Z))
    reg = IterativeIntervalRegressor().fit(X, Z, sample_weight=w)
    model = CensoredNormal(X, Z[:, 0], Z[:, 1], w, fit_intercept=True)
    sol = newton_interval_mle(model, 0.0, 1.0)
    np.testing.assert_allclose(reg.estimator_.coef_, sol.coef, rtol=0, atol=1e-8)
    assert reg.estimator_.intercept_ == pytest.approx(sol.intercept, abs=1e-8)
    assert reg.sigma_ == pytest.approx(sol.sigma, abs=1e-8)
    assert sol.n_passes <= 12


def test_newton_solution_is_a_stationary_point():
    X, Z, _rng = _mixed()
    model = CensoredNormal(X, Z[:, 0], Z[:, 1], np.ones(len(Z)), fit_intercept=True)
    sol = newton_interval_mle(model, 0.0, 1.0)
    theta = 1.0 / sol.sigma
    delta = np.append(sol.intercept + model._mean @ sol.coef, sol.coef * model._scale)
    grad = model.evaluate(np.append(delta * theta, theta)).grad
    assert np.max(np.abs(grad)) < 1e-6


@pytest.mark.parametrize("failure", ["non-finite", "no-ascent"])
def test_a_newton_failure_falls_back_to_squarem(monkeypatch, failure):
    X, Z, _rng = _case_two()
    reference = _reference(monkeypatch, X, Z)
    evaluate = CensoredNormal.evaluate
    calls = []

    def broken(self, params, eta=None):
        out = evaluate(self, params, eta)
        calls.append(1)
        if len(calls) == 1:
            return out
        bad = np.nan if failure == "non-finite" else out.ll - 1e3 - abs(out.ll)
        return out._replace(ll=bad)

    monkeypatch.setattr(CensoredNormal, "evaluate", broken)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg = IterativeIntervalRegressor(tol=1e-10, max_iter=20_000).fit(X, Z)
    assert len(calls) > 1
    assert reg.solver_ == "squarem" and reg.converged_
    np.testing.assert_allclose(reg.predict(X), reference.predict(X), atol=1e-9)


def test_other_models_keep_the_em_path():
    X, Z, _rng = _case_two()
    assert IterativeIntervalRegressor(Ridge()).fit(X, Z).solver_ == "squarem"
    logistic = IterativeIntervalRegressor(noise="logistic", max_iter=200).fit(X, Z)
    assert logistic.solver_ == "squarem"
    paper = IterativeIntervalRegressor(acceleration=None, max_iter=2000).fit(X, Z)
    assert paper.solver_ == "em"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fixed = IterativeIntervalRegressor(tol=None, max_iter=3).fit(X, Z)
    assert fixed.solver_ == "squarem" and fixed.n_iter_ == 3


@pytest.mark.parametrize("make", CASES.values(), ids=CASES.keys())
def test_params_for_inverts_coefficients(make):
    # The subsample solution is carried over to the full design through
    # params_for, the inverse of coefficients.
    X, Z, rng = make()
    w = rng.uniform(0.2, 2.0, size=len(Z))
    coef, intercept, sigma = np.array([0.7, -1.2, 3.0]), -2.5, 1.7
    for fit_intercept in (True, False):
        for known in (None, 0.9):
            model = CensoredNormal(
                X + 5.0, Z[:, 0], Z[:, 1], w, fit_intercept, sigma=known
            )
            params = model.params_for(coef, intercept, sigma)
            assert params.shape == (model.n_params,)
            got_coef, got_intercept, got_sigma = model.coefficients(params)
            np.testing.assert_allclose(got_coef, coef, rtol=1e-12)
            expected = intercept if fit_intercept else 0.0
            assert got_intercept == pytest.approx(expected, abs=1e-12)
            assert got_sigma == pytest.approx(sigma if known is None else known)
            fitted = (X + 5.0) @ coef + expected
            np.testing.assert_allclose(model.fitted(params), fitted, atol=1e-10)


def _large(n=6_000, seed=0, case="I"):
    X, y, rng = _design(n, seed)
    if case == "I":
        Z = IntervalCaseI(random_state=seed + 1).fit_transform(y[:, None])
    else:
        Z = IntervalCaseII(scale=2.0, random_state=seed + 1).fit_transform(y[:, None])
    return X, Z, rng


@pytest.mark.parametrize("case", ["I", "II"])
@pytest.mark.parametrize(
    "options",
    [{}, {"weighted": True, "fit_intercept": False}, {"sigma": 1.3}],
    ids=["plain", "weighted-no-intercept", "known-sigma"],
)
def test_subsample_start_keeps_the_tol_1e10_solution(monkeypatch, case, options):
    # Large samples solve on every k-th row first (here forced at n = 6,000
    # with 1,000 rows), then finish on all rows: the result is the same MLE
    # as the SQUAREM iteration run to tol=1e-10, in fewer full-data steps.
    X, Z, rng = _large(case=case)
    w = rng.uniform(0.2, 2.0, size=len(Z)) if options.get("weighted") else None
    base = LinearRegression(fit_intercept=options.get("fit_intercept", True))
    kwargs = {"sigma": options["sigma"]} if "sigma" in options else {}
    # init="constant": the Newton path itself (init="auto" may replace a
    # misspecified MLE, as here without the intercept, by a projection)
    kwargs["init"] = "constant"
    full = IterativeIntervalRegressor(base, **kwargs).fit(X, Z, sample_weight=w)
    monkeypatch.setattr(_regression, "_NEWTON_SUBSAMPLE_FROM", 5_000)
    monkeypatch.setattr(_regression, "_NEWTON_SUBSAMPLE_ROWS", 1_000)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg = IterativeIntervalRegressor(base, **kwargs).fit(X, Z, sample_weight=w)
    assert reg.solver_ == "newton" and reg.converged_
    # From the subsample's solution (sampling error ~ sqrt(p / 1000) sigma)
    # the first full-data step is a fraction of the one from the constant
    # start and the later ones shrink quadratically.
    assert reg.n_iter_ <= 4 < full.n_iter_
    assert reg.history_[0] < 0.2 * full.history_[0]
    with monkeypatch.context() as mp:
        mp.setattr(_regression, "newton_interval_mle", lambda *a, **k: None)
        ref = IterativeIntervalRegressor(base, tol=1e-10, max_iter=20_000, **kwargs)
        ref.fit(X, Z, sample_weight=w)
    assert ref.solver_ == "squarem" and ref.converged_
    np.testing.assert_allclose(reg.predict(X), ref.predict(X), rtol=0, atol=1e-7)
    assert reg.sigma_ == pytest.approx(ref.sigma_, abs=1e-7)
    assert reg.log_likelihood_ == pytest.approx(ref.log_likelihood_, abs=1e-7)


def test_a_failed_subsample_solve_starts_from_the_constant(monkeypatch):
    X, Z, _rng = _large()
    monkeypatch.setattr(_regression, "_NEWTON_SUBSAMPLE_FROM", 5_000)
    monkeypatch.setattr(_regression, "_NEWTON_SUBSAMPLE_ROWS", 1_000)
    solve = _regression.newton_interval_mle

    def failing_on_subsample(model, *args, **kwargs):
        return None if model.n < len(Z) else solve(model, *args, **kwargs)

    monkeypatch.setattr(_regression, "newton_interval_mle", failing_on_subsample)
    reg = IterativeIntervalRegressor().fit(X, Z)
    monkeypatch.setattr(_regression, "_NEWTON_SUBSAMPLE_FROM", 10**9)
    ref = IterativeIntervalRegressor().fit(X, Z)
    assert reg.solver_ == "newton" and reg.n_iter_ == ref.n_iter_ > 4
    np.testing.assert_allclose(reg.predict(X), ref.predict(X), rtol=0, atol=1e-9)


def test_newton_path_keeps_the_column_names():
    import pandas as pd

    X, Z, _ = _case_one()
    frame = pd.DataFrame(X, columns=[f"f{j}" for j in range(X.shape[1])])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no "fitted without feature names"
        reg = IterativeIntervalRegressor(LinearRegression()).fit(frame, Z)
        assert reg.solver_ == "newton"
        assert list(reg.feature_names_in_) == list(frame.columns)
        predicted = reg.predict(frame)
    coef = reg.estimator_.coef_
    np.testing.assert_allclose(predicted, X @ coef + reg.estimator_.intercept_)
