"""The leave-one-out sandwich of the interval MLEs (``method="sandwich"``).

:class:`IntervalMLE` and, on its MLE path, :class:`IterativeIntervalRegressor`.
``sum_i D_i D_i'`` with ``D_i = (I - w_i I_i)^-1 w_i s_i``: pinned by its
closed form on exact rows (the rows' scores and Hessians written out), by the
delete-one jackknife of refits on interval rows, which it approximates to
first order (closer than the plain sandwich ``I^-1 J I^-1``), and by its
coverage when the weights are sampling weights.
"""

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skprivate.interval import IntervalCaseII, IntervalMLE


def _delete_one_jackknife(theta, w):
    """``sum_i (theta_(-i) - theta)(theta_(-i) - theta)'`` by refits."""
    full = theta(w)
    D = []
    for i in range(w.size):
        left_out = w.copy()
        left_out[i] = 0.0
        D.append(theta(left_out) - full)
    D = np.array(D)
    return D.T @ D


def _plain_sandwich(theta, w):
    """``I^-1 J I^-1`` from derivatives of refits in each weight."""
    D = []
    for i in range(w.size):
        h = 1e-3 * w[i]
        up, down = w.copy(), w.copy()
        up[i] += h
        down[i] -= h
        D.append((theta(up) - theta(down)) / (2 * h))
    wD = w[:, None] * np.array(D)
    return wD.T @ wD


def _leave_one_out(scores, hessians, w):
    """``sum_i D_i D_i'``, ``D_i = (I - w_i I_i)^-1 w_i s_i``, written out."""
    share = -w[:, None, None] * hessians
    information = share.sum(axis=0)
    D = np.linalg.solve(information[None] - share, (w[:, None] * scores)[:, :, None])
    return D[:, :, 0].T @ D[:, :, 0]


def _exact(n=80, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(2.0, 1.5, n)
    w = rng.choice([1.0, 2.0, 5.0], n)
    return np.column_stack([x, x]), x, w


def _normal_exact_derivatives(A, y, beta, sigma):
    """Scores and Hessians of exact normal rows in ``(beta, log sigma)``."""
    r = (y - A @ beta) / sigma
    n, p = A.shape
    scores = np.column_stack([A * (r / sigma)[:, None], r**2 - 1.0])
    hess = np.empty((n, p + 1, p + 1))
    hess[:, :p, :p] = -A[:, :, None] * A[:, None, :] / sigma**2
    hess[:, :p, p] = hess[:, p, :p] = -2.0 * A * (r / sigma)[:, None]
    hess[:, p, p] = -2.0 * r**2
    return scores, hess


def test_closed_form_on_exact_rows():
    Z, x, w = _exact()
    est = IntervalMLE().fit(Z, sample_weight=w)
    mu, sigma = est.loc_, est.scale_
    np.testing.assert_allclose(mu, np.sum(w * x) / w.sum(), rtol=1e-7)
    ones = np.ones((x.size, 1))
    want = _leave_one_out(*_normal_exact_derivatives(ones, x, [mu], sigma), w)
    got = est._ci_parameter_covariance(Z, w, sandwich=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-10)
    # and what conf_int reports from it
    ci = est.conf_int("mean", X=Z, level=0.9)
    assert ci["method"].iloc[0] == "wald (leave-one-out sandwich)"
    np.testing.assert_allclose(ci["se"].iloc[0], np.sqrt(want[0, 0]), rtol=1e-5)
    half = stats.norm.ppf(0.95) * np.sqrt(want[0, 0])
    np.testing.assert_allclose(
        ci[["lower", "upper"]].iloc[0], [mu - half, mu + half], rtol=1e-7
    )
    scale = est.conf_int("scale", X=Z, level=0.9)
    log_half = stats.norm.ppf(0.95) * np.sqrt(want[1, 1])
    np.testing.assert_allclose(
        scale[["lower", "upper"]].iloc[0],
        [sigma * np.exp(-log_half), sigma * np.exp(log_half)],
        rtol=1e-5,
    )
    # the cdf's delta method reads the covariance term
    t = 3.0
    eta = (t - mu) / sigma
    g = np.array([-1.0 / sigma, -eta])
    cdf = est.conf_int("cdf", [t], X=Z, level=0.9)
    se_eta = np.sqrt(g @ want @ g)
    z = stats.norm.ppf(0.95)
    np.testing.assert_allclose(
        cdf[["lower", "upper"]].iloc[0],
        stats.norm.cdf([eta - z * se_eta, eta + z * se_eta]),
        rtol=1e-5,
    )
    # larger than the plain sandwich on every variance (each row's own
    # information is taken out of the matrix it is divided by)
    r = (x - mu) / sigma
    scores = np.column_stack([r / sigma, r**2 - 1.0]) * w[:, None]
    bread = np.linalg.inv(np.diag([w.sum() / sigma**2, 2.0 * w.sum()]))
    plain = bread @ scores.T @ scores @ bread
    assert np.all(np.diag(got) > np.diag(plain))


@pytest.mark.parametrize("family", ["normal", "logistic"])
def test_approximates_the_delete_one_jackknife_of_refits(family):
    # D_i is the one-step change of the estimate when row i is left out
    y = np.random.default_rng(5).normal(5, 2, (300, 1))
    Z = IntervalCaseII(anchor_loc=5, anchor_scale=2, random_state=5).fit_transform(y)
    w = np.random.default_rng(6).choice([1.0, 2.0, 5.0], 300)
    est = IntervalMLE(family=family).fit(Z, sample_weight=w)

    def theta(weights):
        fit = IntervalMLE(family=family).fit(Z, sample_weight=weights)
        return np.array([fit.loc_, np.log(fit.scale_)])

    jack = _delete_one_jackknife(theta, w)
    got = est._ci_parameter_covariance(Z, w, sandwich=True)
    plain = _plain_sandwich(theta, w)
    # first order: within a few per cent of the refits (the one-step change
    # overshoots for the rows of large weight in a tail), and above the
    # plain sandwich, which divides by every row's information
    np.testing.assert_allclose(np.diag(got), np.diag(jack), rtol=0.06)
    assert np.all(np.diag(got) > np.diag(plain))
    # not the inverse information, which reads the weights as counts
    model = est._ci_parameter_covariance(Z, w)
    assert not np.allclose(model, jack, rtol=0.1)


def test_unweighted_sandwich_is_the_robust_covariance_and_wald_stays_default():
    y = np.random.default_rng(8).normal(5, 2, (120, 1))
    Z = IntervalCaseII(anchor_loc=5, anchor_scale=2, random_state=8).fit_transform(y)
    est = IntervalMLE().fit(Z)
    assert est.conf_int("mean", X=Z)["method"].iloc[0] == "wald (observed information)"
    robust = est.conf_int("mean", X=Z, method="sandwich")
    assert robust["method"].iloc[0] == "wald (leave-one-out sandwich)"
    # the family is right: both estimate the same variance
    model = est.conf_int("mean", X=Z)
    np.testing.assert_allclose(robust["se"], model["se"], rtol=0.25)


def test_sampling_weights_coverage():
    # weights unrelated to the values (inverse inclusion probabilities of a
    # design that ignores them): the weighted MLE varies with sum w^2 /
    # (sum w)^2, which the sandwich carries; 400 samples, 95% intervals,
    # Monte Carlo standard error 0.011
    covered = []
    for rep in range(400):
        rng = np.random.default_rng(100 + rep)
        y = rng.normal(5, 2, (200, 1))
        w = 1.0 / rng.choice([0.05, 0.5], 200)
        Z = IntervalCaseII(
            anchor_loc=5, anchor_scale=2, random_state=rep
        ).fit_transform(y)
        ci = IntervalMLE().fit(Z, sample_weight=w).conf_int("mean", X=Z)
        covered.append(ci["lower"].iloc[0] <= 5.0 <= ci["upper"].iloc[0])
    assert 0.92 <= np.mean(covered) <= 0.98


# -- IterativeIntervalRegressor on the MLE path ---------------------------------


def _regression(n, seed, exact=False):
    from skprivate import IntervalCaseII

    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 2))
    y = 1.0 + X @ [2.0, -1.0] + rng.normal(size=n)
    if exact:
        Y = np.column_stack([y, y])
    else:
        Y = IntervalCaseII(
            anchor_loc=1, anchor_scale=2, random_state=seed
        ).fit_transform(y.reshape(-1, 1))
    return X, Y, rng.choice([1.0, 2.0, 5.0], n)


def test_regressor_sandwich_closed_form_on_exact_responses():
    # exact responses: the weighted least-squares fit; the rows' scores and
    # Hessians in (coefficients, log sigma) written out
    from sklearn.linear_model import LinearRegression

    from skprivate import IterativeIntervalRegressor

    X, Y, w = _regression(120, 11, exact=True)
    est = IterativeIntervalRegressor(LinearRegression()).fit(X, Y, sample_weight=w)
    A = np.column_stack([np.ones(len(X)), X])
    beta = np.r_[est.estimator_.intercept_, est.estimator_.coef_]
    full = _leave_one_out(*_normal_exact_derivatives(A, Y[:, 0], beta, est.sigma_), w)
    V = full[:3, :3]
    ci = est.conf_int("coef", X=X, y=Y)
    assert (ci["method"] == "wald (leave-one-out sandwich)").all()
    np.testing.assert_allclose(ci["se"], np.sqrt(np.diag(V)), rtol=1e-4)
    points = np.array([[0.5, -1.0], [2.0, 0.3]])
    pred = est.conf_int("predict", points, X=X, y=Y)
    B = np.column_stack([np.ones(2), points])
    np.testing.assert_allclose(
        pred["se"], np.sqrt(np.einsum("ij,jk,ik->i", B, V, B)), rtol=1e-4
    )


def test_regressor_sandwich_approximates_the_delete_one_jackknife_of_refits():
    from sklearn.linear_model import LinearRegression

    from skprivate import IterativeIntervalRegressor

    X, Y, w = _regression(300, 12)

    def coef(weights):
        fit = IterativeIntervalRegressor(LinearRegression()).fit(
            X, Y, sample_weight=weights
        )
        return np.r_[fit.estimator_.intercept_, fit.estimator_.coef_]

    jack = np.sqrt(np.diag(_delete_one_jackknife(coef, w)))
    plain = np.sqrt(np.diag(_plain_sandwich(coef, w)))
    est = IterativeIntervalRegressor(LinearRegression()).fit(X, Y, sample_weight=w)
    got = est.conf_int("coef", X=X, y=Y)["se"].to_numpy()
    np.testing.assert_allclose(got, jack, rtol=0.06)
    assert np.all(got > plain)


def test_regressor_wald_refuses_weights_and_sandwich_needs_the_mle():
    from sklearn.linear_model import LinearRegression, Ridge

    from skprivate import IterativeIntervalRegressor

    X, Y, w = _regression(80, 13)
    est = IterativeIntervalRegressor(LinearRegression()).fit(X, Y, sample_weight=w)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "IterativeIntervalRegressor was fitted with sample_weight, and "
            "method='wald' reads the observed information"
        ),
    ):
        est.conf_int("coef", X=X, y=Y, method="wald")
    ridge = IterativeIntervalRegressor(Ridge()).fit(X, Y, sample_weight=w)
    with pytest.raises(ValueError, match="method='sandwich' needs a LinearRegression"):
        ridge.conf_int("coef", X=X, y=Y, method="sandwich")
    logistic = IterativeIntervalRegressor(LinearRegression(), noise="logistic").fit(
        X, Y
    )
    with pytest.raises(ValueError, match="method='sandwich' is the interval MLE's"):
        logistic.conf_int("coef", X=X, y=Y, method="sandwich")
    # unweighted: the coefficients keep survreg's Wald interval by default,
    # predictions take the sandwich; each offers the other
    plain = IterativeIntervalRegressor(LinearRegression()).fit(X, Y)
    assert plain.conf_int("coef", X=X, y=Y)["method"].iloc[0] == (
        "wald (observed information)"
    )
    predicted = plain.conf_int("predict", X[:2], X=X, y=Y)
    assert (predicted["method"] == "wald (leave-one-out sandwich)").all()
    pd.testing.assert_frame_equal(
        predicted, plain.conf_int("predict", X[:2], X=X, y=Y, method="sandwich")
    )
    assert (
        plain.conf_int("predict", X[:2], X=X, y=Y, method="wald")["method"]
        == "wald (observed information)"
    ).all()
    robust = plain.conf_int("coef", X=X, y=Y, method="sandwich")
    np.testing.assert_allclose(
        robust["se"], plain.conf_int("coef", X=X, y=Y)["se"], rtol=0.3
    )


def test_a_row_of_leverage_one_is_refused_by_name():
    # a feature that only one row holds: without that row its slope is not
    # identified, and the leave-one-out change is 0 / 0
    from sklearn.linear_model import LinearRegression

    from skprivate import IterativeIntervalRegressor

    rng = np.random.default_rng(0)
    X = np.column_stack([rng.normal(size=40), np.zeros(40)])
    X[7, 1] = 1.0
    y = 1 + X @ [2.0, 0.5] + rng.normal(size=40)
    Y = np.column_stack([y - 0.5, y + 0.5])
    est = IterativeIntervalRegressor(LinearRegression(), init="constant").fit(X, Y)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "The information of IterativeIntervalRegressor without one of its "
            "rows is singular: that row alone identifies a parameter (its "
            "leverage is 1), so the leave-one-out sandwich does not exist. "
            "Use method='bootstrap', or drop the features only that row holds."
        ),
    ):
        est.conf_int("coef", X=X, y=Y, method="sandwich")
    # a second row holding the feature gives it an interval
    X[8, 1] = 0.5
    est = IterativeIntervalRegressor(LinearRegression(), init="constant").fit(X, Y)
    ci = est.conf_int("coef", X=X, y=Y, method="sandwich")
    assert np.isfinite(ci["se"]).all()


def test_interval_mle_row_of_leverage_one_is_refused_by_name():
    # Censored rows at one anchor only say where the anchor sits in the law,
    # (0 - mu) / sigma: one direction.  The exact row alone adds the other.
    k = 20
    Z = np.array([[-np.inf, 0.0]] * k + [[0.0, np.inf]] * k + [[1.0, 1.0]])
    w = np.r_[np.ones(2 * k), 2.0]
    est = IntervalMLE().fit(Z, sample_weight=w)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "The information of IntervalMLE without one of its rows is "
            "singular: that row alone identifies a parameter (its leverage "
            "is 1), so the leave-one-out sandwich does not exist. Use "
            "method='bootstrap'."
        )
        + "$",
    ):
        est.conf_int("mean", X=Z)
    # a second exact row: both directions survive leaving out either
    Z2 = np.vstack([Z, [[-0.5, -0.5]]])
    est = IntervalMLE().fit(Z2, sample_weight=np.r_[w, 1.0])
    assert np.isfinite(est.conf_int("mean", X=Z2)["se"]).all()


@pytest.mark.parametrize("unit", [1e-4, 1e4])
def test_sandwich_interval_follows_the_units_of_the_data(unit):
    # The leverage check reads the information in its own units: the same
    # data in other units give the same interval in those units, however
    # small or large the information.
    cells = np.array(
        [
            [-np.inf, -1],
            [-1, 0.5],
            [0.5, 2],
            [2, np.inf],
            [-0.3, -0.3],
            [1, 1],
            [-2, -0.5],
            [0, 1],
        ]
    )
    Z = np.tile(cells, (5, 1))
    w = np.tile([1, 2, 1, 3, 1, 2, 1, 1.5], 5)
    one = IntervalMLE().fit(Z, sample_weight=w).conf_int("mean", X=Z)
    other = IntervalMLE().fit(Z * unit, sample_weight=w).conf_int("mean", X=Z * unit)
    for column in ("estimate", "se", "lower", "upper"):
        assert other[column].iloc[0] == pytest.approx(unit * one[column].iloc[0], 1e-6)
