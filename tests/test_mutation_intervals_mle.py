"""Interval-MLE and regressor interval behaviour that mutation testing found
unchecked.

Each test pins a documented behaviour of the Wald and bootstrap intervals
of ``skprivate/interval/_mle_intervals.py`` (the parametric MLE) and
``skprivate/interval/_regression_intervals.py`` (the iterative regressor's
predictions and coefficients) with an exact small
case: the Hessian and covariance, the row log-likelihood, the delta
method, the refusals naming their reason, and the pairs bootstrap.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skprivate._uncertainty import (
    bootstrap_replicates,
    percentile_interval,
)

INF = np.inf


def _iv():
    from skprivate.interval import _mle_intervals

    return _mle_intervals


# -- the MLE's Wald intervals: skprivate/interval/_mle_intervals.py -----------

# Mixed rows (exact values, intervals, half-lines) for the parametric MLE.
MIXED = np.array(
    [
        [0.3, 0.3],
        [1.2, 1.2],
        [-0.4, -0.4],
        [2.0, 2.0],
        [0.0, 1.0],
        [-1.0, 0.5],
        [1.5, 3.0],
        [-INF, 0.2],
        [0.8, INF],
        [-0.7, -0.7],
        [0.9, 0.9],
        [-2.0, -0.5],
    ]
)


def _mle(Z, family="normal"):
    from skprivate import IntervalMLE

    return IntervalMLE(family=family).fit(Z)


def _numeric_gradient(func, theta, step=1e-6):
    theta = np.asarray(theta, dtype=float)
    out = []
    for i in range(theta.size):
        e = np.zeros(theta.size)
        e[i] = step
        out.append((func(theta + e) - func(theta - e)) / (2 * step))
    return np.array(out).T


def _scipy_loglik(Z, family, theta):
    """Interval log-likelihood in (mu, log sigma) by scipy's laws."""
    law = stats.norm if family == "normal" else stats.logistic
    mu, s = theta[0], np.exp(theta[1])
    exact = Z[:, 0] == Z[:, 1]
    ll = law.logpdf(Z[exact, 0], mu, s).sum()
    lo, hi = Z[~exact, 0], Z[~exact, 1]
    ll += np.log(law.cdf(hi, mu, s) - law.cdf(lo, mu, s)).sum()
    return ll


def test_hessian_and_covariance_of_a_quadratic():
    iv = _iv()
    Q = np.array([[2.0, 0.5, 0.0], [0.5, 1.0, 0.25], [0.0, 0.25, 3.0]])
    b = np.array([1.0, -1.0, 0.5])

    def f(theta):
        return -0.5 * theta @ Q @ theta + b @ theta

    H = iv._hessian(f, np.array([0.3, -0.2, 0.1]), np.array([1e-2, 2e-2, 5e-3]))
    np.testing.assert_allclose(H, -Q, atol=1e-8)
    np.testing.assert_allclose(iv._covariance(H, "m"), np.linalg.inv(Q), atol=1e-6)
    message = (
        "The observed information of m is singular or not positive definite: "
        "the data do not identify the parameters well enough for Wald "
        "intervals (use method='bootstrap')."
    )
    for bad in (np.zeros((2, 2)), np.diag([-1.0, -1.0]) * -1, np.diag([-1.0, 1.0])):
        with pytest.raises(ValueError, match=re.escape(message)):
            iv._covariance(bad, "m")
    with pytest.raises(ValueError, match=re.escape(message)):
        iv._covariance(np.array([[-np.nan, 0.0], [0.0, -1.0]]), "m")


def test_row_log_likelihood_of_exact_and_interval_rows():
    iv = _iv()
    lower = np.array([0.5, -1.0, -INF, 2.0])
    upper = np.array([0.5, 1.0, 0.0, 2.0])
    center = np.array([0.0, 0.2, -0.3, 1.0])
    s = 1.7
    got = iv._row_loglik(lower, upper, center, "gaussian", np.log(s))
    expected = [
        stats.norm.logpdf(0.5, 0.0, s),
        np.log(stats.norm.cdf(1.0, 0.2, s) - stats.norm.cdf(-1.0, 0.2, s)),
        stats.norm.logcdf(0.0, -0.3, s),
        stats.norm.logpdf(2.0, 1.0, s),
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    got = iv._row_loglik(lower, upper, center, "logistic", np.log(s))
    expected = [
        stats.logistic.logpdf(0.5, 0.0, s),
        np.log(stats.logistic.cdf(1.0, 0.2, s) - stats.logistic.cdf(-1.0, 0.2, s)),
        stats.logistic.logcdf(0.0, -0.3, s),
        stats.logistic.logpdf(2.0, 1.0, s),
    ]
    np.testing.assert_allclose(got, expected, rtol=1e-12)
    # only exact rows, only interval rows
    np.testing.assert_allclose(
        iv._row_loglik(lower[:1], upper[:1], center[:1], "gaussian", 0.0),
        [stats.norm.logpdf(0.5)],
    )
    np.testing.assert_allclose(
        iv._row_loglik(lower[1:3], upper[1:3], center[1:3], "logistic", 0.0),
        [
            np.log(stats.logistic.cdf(0.8) - stats.logistic.cdf(-1.2)),
            stats.logistic.logcdf(0.3),
        ],
    )


@pytest.mark.parametrize("family", ["normal", "logistic"])
def test_mle_wald_intervals_are_the_delta_method_of_the_information(family):
    est = _mle(MIXED, family)
    law = stats.norm if family == "normal" else stats.logistic
    theta = np.array([est.loc_, np.log(est.scale_)])
    # the observed information, by differentiating scipy's likelihood
    H = _numeric_gradient(
        lambda t: _numeric_gradient(lambda u: _scipy_loglik(MIXED, family, u), t, 1e-4),
        theta,
        1e-4,
    )
    cov = np.linalg.inv(-0.5 * (H + H.T))
    np.testing.assert_allclose(est._ci_parameter_covariance(MIXED), cov, rtol=2e-4)
    z = stats.norm.ppf(0.95)

    def wald(func, kind, points, back):
        g = _numeric_gradient(func, theta)
        g = np.atleast_2d(g)
        se = np.sqrt(np.einsum("ij,jk,ik->i", g, cov, g))
        value = np.atleast_1d(func(theta))
        ci = est.conf_int(kind, points, X=MIXED, level=0.9)
        np.testing.assert_allclose(ci["estimate"], back(value), rtol=1e-6)
        np.testing.assert_allclose(ci["lower"], back(value - z * se), rtol=2e-4)
        np.testing.assert_allclose(ci["upper"], back(value + z * se), rtol=2e-4)
        assert (ci["method"] == "wald (observed information)").all()
        return ci, se

    ci, se = wald(lambda t: t[0], "mean", None, lambda v: v)
    np.testing.assert_allclose(ci["se"], se, rtol=2e-4)
    assert ci["target"].iloc[0] == "E[X]" and ci["quantity"].iloc[0] == "mean"
    q = np.array([0.1, 0.5, 0.9])
    ci, se = wald(
        lambda t: t[0] + np.exp(t[1]) * law.ppf(q), "quantile", q, lambda v: v
    )
    np.testing.assert_allclose(ci["se"], se, rtol=2e-4)
    assert ci["target"].iloc[0] == "F^-1(q)"
    x = np.array([-1.0, 0.5, 2.0])
    ci, _ = wald(lambda t: (x - t[0]) / np.exp(t[1]), "cdf", x, law.cdf)
    assert ci["se"].isna().all() and ci["target"].iloc[0] == "F(x)"
    ci, _ = wald(lambda t: law.logpdf(x, t[0], np.exp(t[1])), "pdf", x, np.exp)
    assert ci["se"].isna().all() and ci["target"].iloc[0] == "f(x)"
    ci, _ = wald(lambda t: t[1], "scale", None, np.exp)
    assert ci["target"].iloc[0] == "the scale of the family (sigma)"
    assert ci["estimate"].iloc[0] == pytest.approx(est.scale_)
    assert est._ci_interval_kinds() == ["cdf", "mean", "pdf", "quantile", "scale"]


def test_mle_bootstrap_intervals_refit_the_family():
    from sklearn.base import clone

    est = _mle(MIXED)
    x = np.array([0.0, 1.0])
    stats_of = {
        "mean": (None, lambda e: e.mean()),
        "quantile": ([0.25], lambda e: e.quantile([0.25])),
        "cdf": (x, lambda e: e.cdf(x)),
        "pdf": (x, lambda e: e.pdf(x)),
        "scale": (None, lambda e: e.scale_),
    }
    for kind, (points, stat) in stats_of.items():
        ci = est.conf_int(
            kind, points, X=MIXED, method="bootstrap", n_resamples=4, random_state=1
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            reps = bootstrap_replicates(
                clone(est), MIXED, stat, n_resamples=4, random_state=1
            )
        lower, upper = percentile_interval(reps, 0.95)
        np.testing.assert_allclose(ci["lower"], lower, err_msg=kind)
        np.testing.assert_allclose(ci["upper"], upper, err_msg=kind)
        assert ci["method"].iloc[0] == "bootstrap-percentile"
    with pytest.raises(
        ValueError,
        match=re.escape(
            "IntervalMLE computes 'mean' intervals with method in "
            "['bootstrap', 'sandwich', 'wald'] (or 'auto'); got method='profile'."
        ),
    ):
        est.conf_int("mean", X=MIXED, method="profile")
    with pytest.raises(ValueError, match=re.escape("pass X=, the release")):
        est.conf_int("mean")


def test_mle_information_is_computed_once_for_every_level(monkeypatch):
    est = _mle(MIXED)
    calls = []
    original = type(est)._ci_parameter_covariance

    def counted(self, X, *args, **kwargs):
        calls.append(1)
        return original(self, X, *args, **kwargs)

    monkeypatch.setattr(type(est), "_ci_parameter_covariance", counted)
    ci = est.conf_int("cdf", [0.0, 1.0], X=MIXED, level=[0.8, 0.9, 0.99])
    assert len(calls) == 1 and ci.shape[0] == 6
    assert ci["level"].tolist() == [0.8, 0.8, 0.9, 0.9, 0.99, 0.99]


# -- the regressor's predict and coef intervals --------------------------------


def _exact_regression(n=60, seed=0, offset=0.0):
    rng = np.random.default_rng(seed)
    X = rng.normal(offset, 1.0, size=(n, 2))
    y = 1.0 + X @ [2.0, -1.0] + rng.normal(size=n)
    return X, y


def _regressor(**params):
    from skprivate import IterativeIntervalRegressor

    return IterativeIntervalRegressor(**params)


def test_regression_wald_with_a_known_scale_is_ols_with_that_scale():
    X, y = _exact_regression()
    reg = _regressor(sigma=2.0, init="constant").fit(X, y)
    D = np.column_stack([np.ones(60), X])
    inv = np.linalg.inv(D.T @ D)
    beta = np.linalg.lstsq(D, y, rcond=None)[0]
    z = stats.norm.ppf(0.95)
    coef = reg.conf_int("coef", X=X, y=y, level=0.9)
    assert coef["point"].tolist() == ["intercept", 0, 1]
    np.testing.assert_allclose(coef["estimate"], beta, rtol=1e-6)
    se = 2.0 * np.sqrt(np.diag(inv))
    np.testing.assert_allclose(coef["se"], se, rtol=1e-4)
    np.testing.assert_allclose(coef["lower"], beta - z * se, rtol=1e-4)
    np.testing.assert_allclose(coef["upper"], beta + z * se, rtol=1e-4)
    assert coef["method"].iloc[0] == "wald (observed information)"
    assert (
        coef["target"].iloc[0] == "coefficients of the linear interval-regression model"
    )
    points = np.array([[0.5, 1.5], [-1.0, 0.0]])
    pred = reg.conf_int("predict", points, X=X, y=y, level=0.9, method="wald")
    d = np.column_stack([np.ones(2), points])
    se = 2.0 * np.sqrt(np.einsum("ij,jk,ik->i", d, inv, d))
    np.testing.assert_allclose(pred["estimate"], d @ beta, rtol=1e-6)
    np.testing.assert_allclose(pred["se"], se, rtol=1e-4)
    np.testing.assert_allclose(pred["upper"], d @ beta + z * se, rtol=1e-4)
    assert pred["point"].tolist() == [(0.5, 1.5), (-1.0, 0.0)]
    assert pred["target"].iloc[0] == "f(x) of the linear model"
    assert pred["method"].iloc[0] == "wald (observed information)"
    # feature rows as a DataFrame give the same intervals
    frame = pd.DataFrame(points, columns=["a", "b"])
    again = _regressor(sigma=2.0, init="constant").fit(
        pd.DataFrame(X, columns=["a", "b"]), y
    )
    got = again.conf_int(
        "predict",
        frame,
        X=pd.DataFrame(X, columns=["a", "b"]),
        y=y,
        level=0.9,
        method="wald",
    )
    np.testing.assert_allclose(got["se"], se, rtol=1e-4)
    assert got["point"].tolist() == [(0.5, 1.5), (-1.0, 0.0)]


def test_regression_wald_without_an_intercept_is_ols_through_the_origin():
    from sklearn.linear_model import LinearRegression

    X, y = _exact_regression(offset=3.0)
    y = y - 1.0
    reg = _regressor(
        estimator=LinearRegression(fit_intercept=False), init="constant"
    ).fit(X, y)
    beta, rss = np.linalg.lstsq(X, y, rcond=None)[:2]
    inv = np.linalg.inv(X.T @ X)
    sigma2 = rss[0] / 60
    coef = reg.conf_int("coef", X=X, y=y)
    assert coef["point"].tolist() == [0, 1]
    np.testing.assert_allclose(coef["estimate"], beta, rtol=1e-6)
    np.testing.assert_allclose(coef["se"], np.sqrt(sigma2 * np.diag(inv)), rtol=1e-3)
    pred = reg.conf_int("predict", [[3.0, 2.0]], X=X, y=y, method="wald")
    d = np.array([3.0, 2.0])
    np.testing.assert_allclose(pred["se"], [np.sqrt(sigma2 * d @ inv @ d)], rtol=1e-3)


def test_regression_coefficient_names_and_refusals():
    X, y = _exact_regression()
    frame = pd.DataFrame(X, columns=["a", "b"])
    reg = _regressor(init="constant").fit(X, y)
    # fitted on an array: the names of the X given here, else indices
    assert reg.conf_int("coef", X=frame, y=y)["point"].tolist() == [
        "intercept",
        "a",
        "b",
    ]
    assert reg.conf_int("coef", X=X, y=y)["point"].tolist() == ["intercept", 0, 1]
    numbered = pd.DataFrame(X, columns=[0, 1])
    assert reg.conf_int("coef", X=numbered, y=y)["point"].tolist() == [
        "intercept",
        0,
        1,
    ]
    wide = pd.DataFrame(np.c_[X, X[:, :1]], columns=["a", "b", "c"])
    names, values, has_b = reg._ci_coefficients(wide)
    assert names == ["intercept", 0, 1] and has_b
    np.testing.assert_allclose(
        values, np.r_[reg.estimator_.intercept_, reg.estimator_.coef_]
    )
    with pytest.raises(
        ValueError,
        match=re.escape(
            "conf_int('predict') of IterativeIntervalRegressor needs X=, the "
            "features given to fit (the model is refitted or its information "
            "computed on them), with y=, the interval responses given to fit."
        ),
    ):
        reg.conf_int("predict", X[:1], y=y)
    with pytest.raises(ValueError, match=re.escape("pass y=, the release")):
        reg.conf_int("predict", X[:1], X=X)
    with pytest.raises(
        ValueError,
        match=re.escape("points= is required: the feature rows to predict at."),
    ):
        reg.conf_int("predict", X=X, y=y)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "IterativeIntervalRegressor computes 'coef' intervals with method in "
            "['bootstrap', 'sandwich', 'wald'] (or 'auto'); got method='profile'."
        ),
    ):
        reg.conf_int("coef", X=X, y=y, method="profile")
    with pytest.raises(
        ValueError, match=re.escape("X has 59 rows, and the fit had 60")
    ):
        reg.conf_int("coef", X=X[1:], y=y)
    reg._ci_forget_fit_data()  # past the check of the fitted rows
    with pytest.raises(
        ValueError,
        match=re.escape(
            "X must have one row per interval of y; got (59, 2) and 60 intervals."
        ),
    ):
        reg.conf_int("coef", X=X[1:], y=y)
    assert reg._ci_interval_kinds() == ["coef", "predict"]
    assert reg._ci_kept_release() is None


def test_regression_wald_refusals_name_the_reason():
    from sklearn.linear_model import Ridge

    X, y = _exact_regression()
    ridge = _regressor(estimator=Ridge(alpha=1.0), max_iter=5, tol=None).fit(X, y)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "method='wald' needs a LinearRegression base regressor; use "
            "method='bootstrap'."
        ),
    ):
        ridge.conf_int("predict", X[:1], X=X, y=y, method="wald")
    logistic = _regressor(noise="logistic", init="constant", max_iter=5, tol=None).fit(
        X, y
    )
    with pytest.raises(
        ValueError,
        match=re.escape(
            "method='wald' is the interval MLE's, which the iteration reaches with "
            "noise='gaussian' only; with noise='logistic' its fixed point is not "
            "the MLE. Use method='bootstrap'."
        ),
    ):
        logistic.conf_int("coef", X=X, y=y, method="wald")
    projected = _regressor(init="constant").fit(X, y)
    projected.solver_ = "projection"
    with pytest.raises(
        ValueError,
        match=re.escape(
            "method='wald' is the interval MLE's; this fit is the least-squares "
            "projection init='auto' chose (solver_='projection'), whose variance "
            "it does not give. Use method='bootstrap', or fit with "
            "init='constant' for the MLE."
        ),
    ):
        projected.conf_int("coef", X=X, y=y, method="wald")


def test_regression_pairs_bootstrap_refits_clones():
    X, y = _exact_regression(n=30)
    reg = _regressor(init="constant", max_iter=5, tol=None).fit(X, y)
    template = _regressor(init="constant", max_iter=5, tol=None)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reps = bootstrap_replicates(
            template,
            X,
            lambda e: np.r_[e.estimator_.intercept_, e.estimator_.coef_],
            y=y,
            n_resamples=4,
            random_state=0,
        )
        coef = reg.conf_int(
            "coef",
            X=X,
            y=y,
            method="bootstrap",
            n_resamples=4,
            random_state=0,
            level=[0.8, 0.9],
        )
    lower, upper = percentile_interval(reps, 0.8)
    np.testing.assert_allclose(coef["lower"].iloc[:3], lower)
    np.testing.assert_allclose(coef["upper"].iloc[:3], upper)
    np.testing.assert_allclose(coef["se"].iloc[:3], np.nanstd(reps, axis=0, ddof=1))
    assert coef["method"].iloc[0] == "bootstrap-percentile (pairs)"
    assert coef["target"].iloc[0] == (
        "E over resamples of the fitted coefficients (the learner's bias not covered)"
    )
    points = X[:2]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pred = reg.conf_int(
            "predict",
            points,
            X=X,
            y=y,
            method="bootstrap",
            n_resamples=4,
            random_state=0,
        )
        reps = bootstrap_replicates(
            template, X, lambda e: e.predict(points), y=y, n_resamples=4, random_state=0
        )
    np.testing.assert_allclose(pred["lower"], percentile_interval(reps, 0.95)[0])
    assert pred["target"].iloc[0] == (
        "E over resamples of the fitted f(x) (the learner's bias not covered)"
    )
    # without an intercept the coefficients alone are resampled
    from sklearn.linear_model import LinearRegression

    no_b = _regressor(
        estimator=LinearRegression(fit_intercept=False),
        init="constant",
        max_iter=5,
        tol=None,
    ).fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        got = no_b.conf_int(
            "coef", X=X, y=y, method="bootstrap", n_resamples=4, random_state=0
        )
    assert got["point"].tolist() == [0, 1]
    assert got["lower"].notna().all()


def test_a_privatizing_regressor_resamples_without_its_privatizer():
    from skprivate import IntervalCaseI

    X, y = _exact_regression(n=30)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reg = _regressor(
            privatizer=IntervalCaseI(scale=2.0, random_state=0), init="constant"
        ).fit(X, y)
    template = reg._ci_resampling_template()
    assert template.privatizer is None and template.init == "constant"
    assert reg.privatizer is not None
    kept = reg._ci_kept_release()
    assert list(kept) == ["y"] and kept["y"] is reg.released_
    with pytest.raises(
        ValueError,
        match=re.escape("with no y: the intervals it released are kept (released_)."),
    ):
        reg.conf_int("coef")


# -- refusals, frames and invariances ------------------------------------------


def _raises_exactly(message, func, *args, **kwargs):
    with pytest.raises(ValueError) as info:
        func(*args, **kwargs)
    assert str(info.value) == message


def _singular(what):
    return (
        f"The observed information of {what} is singular or not positive "
        "definite: the data do not identify the parameters well enough for "
        "Wald intervals (use method='bootstrap')."
    )


def _one_sided(name, n):
    return (
        f"{name} has no row with a finite upper bound (all {n} rows are open "
        "towards +inf): the likelihood increases without bound as the location "
        "moves to +inf, so the estimate does not exist. Collect answers that "
        "bound the values from both sides."
    )


def test_covariance_refuses_a_zero_variance():
    # the information [[0, 1], [1, 0]] is its own inverse: variances of 0
    _raises_exactly(
        _singular("m"), _iv()._covariance, np.array([[0.0, -1.0], [-1.0, 0.0]]), "m"
    )


def test_mle_wald_refusals_name_x_and_the_estimator():
    est = _mle(MIXED)
    _raises_exactly(
        "X has lower > upper at row 0 (1 such rows).",
        est.conf_int,
        "mean",
        X=np.array([[1.0, 0.0]]),
    )
    # data fit refuses are refused by conf_int as data other than the fit's;
    # without a record of the fitted data (a fit on a dask collection) the
    # Wald intervals' own checks name them
    est._ci_forget_fit_data()
    _raises_exactly(
        _one_sided("X", 2), est.conf_int, "mean", X=np.array([[0.0, INF], [1.0, INF]])
    )
    # one row certain to hold every value: a flat likelihood, no information
    _raises_exactly(
        _singular("IntervalMLE"), est.conf_int, "scale", X=np.array([[-1e6, 1e6]])
    )


@pytest.mark.parametrize("k", [1e3, 1e-3])
def test_mle_wald_intervals_are_equivariant_under_scaling(k):
    base = _mle(MIXED)
    scaled = _mle(MIXED * k)
    columns = ["estimate", "lower", "upper"]
    for kind, points, scaled_points in (
        ("mean", None, None),
        ("quantile", [0.2, 0.7], [0.2, 0.7]),
        ("scale", None, None),
    ):
        want = base.conf_int(kind, points, X=MIXED)[columns].to_numpy() * k
        got = scaled.conf_int(kind, scaled_points, X=MIXED * k)[columns].to_numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=kind)
    want = base.conf_int("cdf", [0.5, 1.0], X=MIXED)[columns].to_numpy()
    got = scaled.conf_int("cdf", [0.5 * k, k], X=MIXED * k)[columns].to_numpy()
    np.testing.assert_allclose(got, want, rtol=1e-6)


def test_mle_interval_frames_name_their_points_and_levels():
    est = _mle(MIXED)
    x = [0.0, 1.0]
    wald = est.conf_int("cdf", x, X=MIXED, level=[0.8, 0.9])
    assert wald["point"].tolist() == x * 2
    assert wald["level"].tolist() == [0.8, 0.8, 0.9, 0.9]
    assert (wald["quantity"] == "cdf").all()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        boot = est.conf_int(
            "cdf", x, X=MIXED, method="bootstrap", n_resamples=4, random_state=1
        )
    assert boot["point"].tolist() == x
    assert (boot["quantity"] == "cdf").all()


def test_regression_interval_frames_name_quantity_points_and_levels():
    X, y = _exact_regression(n=30)
    reg = _regressor(init="constant", max_iter=5, tol=None).fit(X, y)
    coef = reg.conf_int("coef", X=X, y=y, level=[0.8, 0.9])
    assert (coef["quantity"] == "coef").all()
    assert coef["level"].tolist() == [0.8] * 3 + [0.9] * 3
    pred = reg.conf_int("predict", X[:2], X=X, y=y, level=[0.8, 0.9])
    assert (pred["quantity"] == "predict").all()
    assert pred["level"].tolist() == [0.8, 0.8, 0.9, 0.9]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        kw = {
            "X": X,
            "y": y,
            "method": "bootstrap",
            "n_resamples": 3,
            "random_state": 0,
        }
        coef = reg.conf_int("coef", level=[0.8, 0.9], **kw)
        pred = reg.conf_int("predict", [[1.0, 2.0]], **kw)
    assert (coef["quantity"] == "coef").all()
    assert coef["point"].tolist() == ["intercept", 0, 1] * 2
    assert coef["level"].tolist() == [0.8] * 3 + [0.9] * 3
    assert (pred["quantity"] == "predict").all()
    assert pred["point"].tolist() == [(1.0, 2.0)]
    assert pred["level"].tolist() == [0.95]


def test_regression_prediction_points_are_reported_as_floats():
    X, y = _exact_regression(n=30)
    reg = _regressor(sigma=1.0, init="constant").fit(X, y)
    for points in ([[1, 2], [0, -1]], pd.DataFrame([[1, 2], [0, -1]])):
        got = reg.conf_int("predict", points, X=X, y=y)["point"].tolist()
        assert got == [(1.0, 2.0), (0.0, -1.0)]
        assert all(type(v) is float for row in got for v in row)


def test_regression_points_are_required_exactly():
    X, y = _exact_regression(n=30)
    reg = _regressor(sigma=1.0, init="constant").fit(X, y)
    _raises_exactly(
        "points= is required: the feature rows to predict at.",
        reg.conf_int,
        "predict",
        X=X,
        y=y,
    )


def test_coef_needs_one_coefficient_per_feature():
    from sklearn.tree import DecisionTreeRegressor

    # one feature: a missing coef_ has np.size 1, like one coefficient
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 1))
    y = 1.0 + 2.0 * X[:, 0] + rng.normal(size=20)
    tree = _regressor(
        estimator=DecisionTreeRegressor(max_depth=2), max_iter=3, tol=None
    ).fit(X, y)
    _raises_exactly(
        "conf_int('coef') needs a base regressor with one coefficient per "
        "feature (coef_); DecisionTreeRegressor has none (for a pipeline, its "
        "last step's coefficients are on the transformed features). Use "
        "conf_int('predict') for other regressors.",
        tree.conf_int,
        "coef",
        X=X,
        y=y,
    )


def test_coef_names_come_from_the_fit_before_the_given_x():
    # the iteration (not Newton's method) fits the base on the named frame
    X, y = _exact_regression(n=30)
    reg = _regressor(sigma=1.0, init="constant", max_iter=5, tol=None).fit(
        pd.DataFrame(X, columns=["a", "b"]), y
    )
    assert reg.conf_int("coef", X=X, y=y)["point"].tolist() == ["intercept", "a", "b"]


def test_coef_of_a_base_without_fit_intercept_reads_its_intercept():
    from sklearn.cross_decomposition import PLSRegression

    # PLSRegression has intercept_ but no fit_intercept parameter
    X, y = _exact_regression(n=20)
    pls = _regressor(estimator=PLSRegression(n_components=2), max_iter=3, tol=None)
    pls.fit(X, y)
    names, values, has_b = pls._ci_coefficients(X)
    assert names == ["intercept", 0, 1] and has_b
    np.testing.assert_allclose(
        values, np.r_[pls.estimator_.intercept_, np.ravel(pls.estimator_.coef_)]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ci = pls.conf_int("coef", X=X, y=y, n_resamples=3, random_state=0)
    assert ci["point"].tolist() == ["intercept", 0, 1]
    assert ci["estimate"].tolist() == pytest.approx(values.tolist())


def test_regression_wald_refusals_name_y_and_the_estimator():
    X, y = _exact_regression()
    reg = _regressor(init="constant").fit(X, y)
    _raises_exactly(
        "y has lower > upper at row 0 (60 such rows).",
        reg.conf_int,
        "coef",
        X=X,
        y=np.c_[y + 1.0, y],
    )
    _raises_exactly(
        _one_sided("y", 60), reg.conf_int, "coef", X=X, y=np.c_[y, np.full(60, INF)]
    )
    # a constant feature beside the intercept: its slope is not identified
    Xc = np.c_[X, np.full(60, 2.0)]
    const = _regressor(init="constant").fit(Xc, y)
    _raises_exactly(
        _singular("IterativeIntervalRegressor"), const.conf_int, "coef", X=Xc, y=y
    )


def _ols_se(D, sigma):
    """OLS standard errors with a known sigma, from a QR factorization."""
    R = np.linalg.qr(D, mode="r")
    Rinv = np.linalg.inv(R)
    return sigma * np.sqrt(np.sum(Rinv * Rinv, axis=1))


def test_regression_wald_without_an_intercept_keeps_a_constant_feature():
    from sklearn.linear_model import LinearRegression

    X, y = _exact_regression()
    Xc = np.c_[X, np.full(60, 2.0)]
    reg = _regressor(
        estimator=LinearRegression(fit_intercept=False), sigma=1.5, init="constant"
    ).fit(Xc, y)
    coef = reg.conf_int("coef", X=Xc, y=y)
    assert coef["point"].tolist() == [0, 1, 2]
    np.testing.assert_allclose(coef["se"], _ols_se(Xc, 1.5), rtol=1e-5)


@pytest.mark.parametrize(
    "x_scale, x_shift, y_scale", [(1e-6, 0.0, 1.0), (1.0, 1e4, 1.0), (1.0, 0.0, 1e3)]
)
def test_regression_wald_is_ols_for_features_and_responses_of_any_scale(
    x_scale, x_shift, y_scale
):
    X, y = _exact_regression()
    X = X * x_scale + x_shift
    y = y * y_scale
    sigma = 2.0 * y_scale
    reg = _regressor(sigma=sigma, init="constant").fit(X, y)
    D = np.column_stack([np.ones(60), X])
    coef = reg.conf_int("coef", X=X, y=y)
    np.testing.assert_allclose(coef["se"], _ols_se(D, sigma), rtol=1e-4)
    points = X[:2]
    pred = reg.conf_int("predict", points, X=X, y=y, method="wald")
    d = np.column_stack([np.ones(2), points])
    Rinv = np.linalg.inv(np.linalg.qr(D, mode="r"))
    np.testing.assert_allclose(
        pred["se"], sigma * np.linalg.norm(d @ Rinv, axis=1), rtol=1e-4
    )


def test_regression_wald_with_one_feature_and_a_large_intercept():
    rng = np.random.default_rng(3)
    x = rng.normal(size=(40, 1))
    y = 40.0 + x[:, 0] + rng.normal(size=40)
    reg = _regressor(init="constant").fit(x, y)
    resid = y - reg.predict(x)
    sigma = np.sqrt(np.mean(resid**2))  # the MLE of sigma
    coef = reg.conf_int("coef", X=x, y=y)
    D = np.column_stack([np.ones(40), x])
    np.testing.assert_allclose(coef["se"], _ols_se(D, sigma), rtol=1e-3)


def test_regression_wald_takes_the_scale_that_maximizes_the_likelihood_at_the_fit():
    """The information is read at the best sigma for the fitted line, not at sigma_."""
    X, y = _exact_regression()
    reg = _regressor(init="constant").fit(X, y)
    resid = y - reg.predict(X)
    sigma = np.sqrt(np.mean(resid**2))  # the best sigma for the fitted line
    # the observed information of (intercept, slopes, log sigma) there
    D = np.column_stack([np.ones(60), X])
    info = np.zeros((4, 4))
    info[:3, :3] = D.T @ D / sigma**2
    info[:3, 3] = info[3, :3] = 2.0 * D.T @ resid / sigma**2
    info[3, 3] = 2.0 * 60
    se = np.sqrt(np.diag(np.linalg.inv(info))[:3])
    for factor in (1.0, 0.5, 3.0):
        # a scale the fit reported off its maximum (as a stopped fit may)
        reg.sigma_ = factor * sigma
        coef = reg.conf_int("coef", X=X, y=y)
        np.testing.assert_allclose(coef["se"], se, rtol=1e-6, err_msg=str(factor))


def test_regression_wald_reads_single_precision_features_exactly():
    X, y = _exact_regression()
    X32 = X.astype(np.float32)
    reg = _regressor(init="constant").fit(X32.astype(float), y)
    columns = ["estimate", "se", "lower", "upper"]
    for kind, points in (("coef", None), ("predict", X[:2])):
        got = reg.conf_int(kind, points, X=X32, y=y)[columns]
        want = reg.conf_int(kind, points, X=X32.astype(float), y=y)[columns]
        np.testing.assert_array_equal(got.to_numpy(), want.to_numpy(), err_msg=kind)


def test_regression_wald_on_censored_rows_is_equivariant_under_a_shift():
    # Case-I rows (half-lines) around a large intercept: shifting every
    # value and anchor by 40 shifts the intercept by 40 and leaves every
    # standard error as it is (the information does not depend on where the
    # line sits); the difference steps of the information scale with sigma
    rng = np.random.default_rng(5)
    x = rng.normal(size=(200, 1))
    y = 0.5 + x[:, 0] + rng.normal(size=200)
    u = rng.normal(0.5, 1.5, size=200)

    def rows(shift):
        below = y <= u
        return np.where(
            below[:, None],
            np.c_[np.full(200, -np.inf), u + shift],
            np.c_[u + shift, np.full(200, np.inf)],
        )

    near = _regressor(init="constant").fit(x, rows(0.0))
    far = _regressor(init="constant").fit(x, rows(40.0))
    a = near.conf_int("coef", X=x, y=rows(0.0))
    b = far.conf_int("coef", X=x, y=rows(40.0))
    np.testing.assert_allclose(b["estimate"] - a["estimate"], [40.0, 0.0], atol=1e-5)
    np.testing.assert_allclose(b["se"], a["se"], rtol=1e-4)
    assert np.all(np.isfinite(a["se"])) and a["se"].iloc[1] > 0
