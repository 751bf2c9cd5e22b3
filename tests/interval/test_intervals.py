"""Confidence intervals of the interval-privacy learners (conf_int)."""

import numpy as np
import pytest
from scipy import stats

from skprivate import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalMLE,
    IntervalNPMLE,
    IterativeIntervalRegressor,
)
from skprivate.interval._npmle_intervals import LR_CRITICAL_VALUES, _CurrentStatus

# Binomial standard error of an empirical 95% coverage over 200 replications.
SE_200 = np.sqrt(0.95 * 0.05 / 200)


def _case_one(n, seed, scale=1.0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 1))
    return IntervalCaseI(scale=scale, random_state=seed).fit_transform(x)


def test_banerjee_wellner_quantiles_are_the_tabulated_ones():
    # Table 2 of Banerjee & Wellner (2001); not the rounded 2.28.
    assert LR_CRITICAL_VALUES == {0.90: 1.602, 0.95: 2.269, 0.99: 3.836}


def test_likelihood_ratio_interval_ends_where_the_ratio_reaches_d():
    Z = _case_one(400, 0)
    cs = _CurrentStatus(Z)
    est, lower, upper = cs.cdf_interval(0.3, 2.269)
    parts = cs.split(cs.n_left(0.3))
    assert cs.ratio(parts, est) == pytest.approx(0.0, abs=1e-9)
    assert cs.ratio(parts, lower) == pytest.approx(2.269, abs=1e-6)
    assert cs.ratio(parts, upper) == pytest.approx(2.269, abs=1e-6)
    assert lower < est < upper
    npmle = IntervalNPMLE().fit(Z)
    ci = npmle.conf_int("cdf", [0.3], X=Z).iloc[0]
    assert ci["estimate"] == pytest.approx(float(npmle.cdf(0.3)))
    assert (ci["lower"], ci["upper"]) == pytest.approx((lower, upper))


def test_constrained_fit_is_the_capped_and_floored_isotonic_regression():
    # Brute force on 6 anchors: F(t) = theta with t between the 3rd and 4th
    # anchor means F(u1) <= F(u2) <= F(u3) <= theta <= F(u4) <= F(u5) <= F(u6);
    # the log-likelihood separates into the two sides, each maximized on a
    # grid.
    Z = np.array(
        [
            [-np.inf, 1.0],
            [2.0, np.inf],
            [-np.inf, 3.0],
            [4.0, np.inf],
            [2.5, np.inf],
            [-np.inf, 6.0],
        ]
    )
    # Sorted anchors 1, 2, 2.5, 3, 4, 6 with hits 1, 0, 0, 1, 0, 1.
    cs = _CurrentStatus(Z)
    theta = 0.4
    got = cs.max_loglik - cs.ratio(cs.split(3), theta) / 2
    hits = np.array([1, 0, 0, 1, 0, 1], dtype=bool)

    def side(lo, hi, h):
        grid = np.linspace(lo, hi, 81)
        F = np.stack(np.meshgrid(grid, grid, grid, indexing="ij"), -1).reshape(-1, 3)
        F = F[np.all(np.diff(F, axis=1) >= 0, axis=1)]
        with np.errstate(divide="ignore"):
            ll = np.where(h, np.log(F), np.log(1 - F)).sum(axis=1)
        return ll.max()

    best = side(0.0, theta, hits[:3]) + side(theta, 1.0, hits[3:])
    assert got == pytest.approx(best, abs=1e-3)


def test_likelihood_ratio_cdf_and_quantile_intervals_cover_at_95():
    hits_cdf = hits_q = 0
    reps = 200
    for seed in range(reps):
        Z = _case_one(300, seed)
        npmle = IntervalNPMLE().fit(Z)
        cdf = npmle.conf_int("cdf", [0.5], X=Z).iloc[0]
        q = npmle.conf_int("quantile", [0.5], X=Z).iloc[0]
        hits_cdf += cdf["lower"] <= stats.norm.cdf(0.5) <= cdf["upper"]
        hits_q += q["lower"] <= 0.0 <= q["upper"]
    assert abs(hits_cdf / reps - 0.95) < 3 * SE_200
    assert abs(hits_q / reps - 0.95) < 3 * SE_200


def test_influence_standard_error_matches_the_spread_of_the_npmle_mean():
    means, ses = [], []
    for seed in range(200):
        Z = _case_one(500, seed)
        ci = IntervalNPMLE().fit(Z).conf_int("mean", X=Z).iloc[0]
        means.append(ci["estimate"])
        ses.append(ci["se"])
    # The SD of 200 means has a relative SE of 5%; the formula is off by
    # far more if a factor (n, g, F(1 - F)) were wrong.
    assert np.mean(ses) / np.std(means) == pytest.approx(1.0, abs=0.15)
    means, ses = np.array(means), np.array(ses)
    assert abs(np.mean(np.abs(means) <= 1.96 * ses) - 0.95) < 3 * SE_200


def test_subsampling_is_reproducible_and_used_for_case_two():
    x = np.random.default_rng(0).normal(size=(400, 1))
    Z = IntervalCaseII(random_state=0).fit_transform(x)
    npmle = IntervalNPMLE().fit(Z)
    a = npmle.conf_int("cdf", [0.0], X=Z, n_resamples=50, random_state=1)
    b = npmle.conf_int("cdf", [0.0], X=Z, n_resamples=50, random_state=1, n_jobs=2)
    assert a["method"].iloc[0].startswith("subsampling")
    assert a.equals(b)
    assert a["lower"].iloc[0] < a["estimate"].iloc[0] < a["upper"].iloc[0]
    with pytest.raises(ValueError, match="Case-I data"):
        npmle.conf_int("cdf", [0.0], X=Z, method="likelihood-ratio")


def test_likelihood_ratio_needs_a_tabulated_level():
    Z = _case_one(200, 0)
    npmle = IntervalNPMLE().fit(Z)
    with pytest.raises(ValueError, match="tabulated"):
        npmle.conf_int("cdf", [0.0], X=Z, level=0.8, method="likelihood-ratio")
    auto = npmle.conf_int("cdf", [0.0], X=Z, level=0.8, n_resamples=30)
    assert auto["method"].iloc[0].startswith("subsampling")


def test_wald_interval_of_the_mle_on_exact_values_is_the_textbook_one():
    # Exact values: the observed information of (mu, log sigma) is
    # diag(n / sigma^2, 2 n), so se(mu) = sigma_hat / sqrt(n) and the
    # quantile q gets se = sigma_hat sqrt(1 + z_q^2 / 2) / sqrt(n).
    y = np.random.default_rng(0).normal(3.0, 2.0, size=400)
    mle = IntervalMLE().fit(y)
    n, s = y.size, mle.scale_
    mean = mle.conf_int("mean", X=y).iloc[0]
    assert mean["se"] == pytest.approx(s / np.sqrt(n), rel=1e-4)
    z = stats.norm.ppf(0.9)
    q = mle.conf_int("quantile", [0.9], X=y).iloc[0]
    assert q["se"] == pytest.approx(s * np.sqrt(1 + z * z / 2) / np.sqrt(n), rel=1e-4)
    cdf = mle.conf_int("cdf", [3.0], X=y).iloc[0]
    assert 0 < cdf["lower"] < cdf["estimate"] < cdf["upper"] < 1
    pdf = mle.conf_int("pdf", [3.0], X=y, level=[0.9, 0.95])
    assert (pdf["lower"] > 0).all() and pdf["lower"].iloc[1] < pdf["lower"].iloc[0]


def test_wald_mean_interval_of_the_mle_covers_on_case_one_data():
    hits = 0
    for seed in range(200):
        x = np.random.default_rng(seed + 1000).normal(size=(400, 1))
        Z = IntervalCaseI(scale=2.0, random_state=seed + 5000).fit_transform(x)
        ci = IntervalMLE().fit(Z).conf_int("mean", X=Z).iloc[0]
        hits += ci["lower"] <= 0.0 <= ci["upper"]
    assert abs(hits / 200 - 0.95) < 3 * SE_200


def test_regression_wald_standard_error_on_exact_responses_is_ols_like():
    # Exact responses: the MLE is OLS with sigma^2 = RSS / n and the
    # information of the coefficients is X'X / sigma^2.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(300, 2))
    y = 1.0 + X @ [1.0, -2.0] + rng.normal(size=300)
    reg = IterativeIntervalRegressor().fit(X, y)
    point = np.array([[0.5, 1.5]])
    ci = reg.conf_int("predict", point, X=X, y=y, method="wald").iloc[0]
    D = np.column_stack([np.ones(300), X])
    beta, rss = np.linalg.lstsq(D, y, rcond=None)[:2]
    sigma2 = rss[0] / 300
    d = np.array([1.0, 0.5, 1.5])
    expected = np.sqrt(sigma2 * d @ np.linalg.inv(D.T @ D) @ d)
    assert ci["estimate"] == pytest.approx(d @ beta, rel=1e-6)
    assert ci["se"] == pytest.approx(expected, rel=1e-3)


def test_regression_bootstrap_is_used_for_other_base_regressors():
    from sklearn.tree import DecisionTreeRegressor

    rng = np.random.default_rng(0)
    X = rng.uniform(-1, 1, size=(120, 1))
    Z = IntervalCaseI(random_state=0).fit_transform(X + 0.1 * rng.normal(size=(120, 1)))
    reg = IterativeIntervalRegressor(
        DecisionTreeRegressor(max_depth=2), max_iter=3, tol=None, random_state=0
    ).fit(X, Z)
    ci = reg.conf_int("predict", [[0.5]], X=X, y=Z, n_resamples=20, random_state=0)
    assert ci["method"].iloc[0].startswith("bootstrap")
    assert ci["lower"].iloc[0] <= ci["upper"].iloc[0]
    with pytest.raises(ValueError, match="LinearRegression"):
        reg.conf_int("predict", [[0.5]], X=X, y=Z, method="wald")
