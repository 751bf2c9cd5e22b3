"""The sandwich covariance of the interval MLEs (``method="sandwich"``).

:class:`IntervalMLE` and, on its MLE path, :class:`IterativeIntervalRegressor`.

``H^-1 J H^-1`` with ``J = sum_i w_i^2 s_i s_i'``: pinned by its closed form
on exact rows, by refits with perturbed weights on interval rows (the
infinitesimal jackknife, which does not use the module's scores or
Hessian), and by its coverage when the weights are sampling weights.
"""

import numpy as np
import pytest
from scipy import stats

from skprivate.interval import IntervalCaseII, IntervalMLE


def _infinitesimal_jackknife(theta, w):
    """``sum_i w_i^2 D_i D_i'``, ``D_i`` the derivative of ``theta`` in ``w_i``.

    The derivatives are central differences of refits; for an estimating
    equation ``sum_i w_i s_i = 0`` this is the sandwich.
    """
    D = []
    for i in range(w.size):
        h = 1e-3 * w[i]
        up, down = w.copy(), w.copy()
        up[i] += h
        down[i] -= h
        D.append((theta(up) - theta(down)) / (2 * h))
    wD = w[:, None] * np.array(D)
    return wD.T @ wD


def _exact(n=80, seed=0):
    rng = np.random.default_rng(seed)
    x = rng.normal(2.0, 1.5, n)
    w = rng.choice([1.0, 2.0, 5.0], n)
    return np.column_stack([x, x]), x, w


def test_closed_form_on_exact_rows():
    Z, x, w = _exact()
    est = IntervalMLE().fit(Z, sample_weight=w)
    mu, sigma = est.loc_, est.scale_
    np.testing.assert_allclose(mu, np.sum(w * x) / w.sum(), rtol=1e-7)
    r = (x - mu) / sigma
    total = w.sum()
    want = np.array(
        [
            [np.sum(w**2 * (x - mu) ** 2) / total**2, 0.0],
            [0.0, np.sum(w**2 * (r**2 - 1.0) ** 2) / (2.0 * total) ** 2],
        ]
    )
    want[0, 1] = want[1, 0] = np.sum(w**2 * (x - mu) * (r**2 - 1.0)) / (2.0 * total**2)
    got = est._ci_parameter_covariance(Z, w, sandwich=True)
    np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-9)
    # and what conf_int reports from it
    ci = est.conf_int("mean", X=Z, level=0.9)
    assert ci["method"].iloc[0] == "wald (sandwich covariance)"
    np.testing.assert_allclose(ci["se"].iloc[0], np.sqrt(want[0, 0]), rtol=1e-5)
    half = stats.norm.ppf(0.95) * np.sqrt(want[0, 0])
    np.testing.assert_allclose(ci[["lower", "upper"]].iloc[0], [mu - half, mu + half])
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
    np.testing.assert_allclose(
        cdf[["lower", "upper"]].iloc[0],
        stats.norm.cdf(
            [eta - stats.norm.ppf(0.95) * se_eta, eta + stats.norm.ppf(0.95) * se_eta]
        ),
        rtol=1e-5,
    )


@pytest.mark.parametrize("family", ["normal", "logistic"])
def test_equals_the_infinitesimal_jackknife_of_refits(family):
    # dtheta/dw_i = H^-1 s_i, so sum_i w_i^2 (dtheta/dw_i)(dtheta/dw_i)' is
    # the sandwich; the derivatives are taken by refitting
    y = np.random.default_rng(5).normal(5, 2, (50, 1))
    Z = IntervalCaseII(anchor_loc=5, anchor_scale=2, random_state=5).fit_transform(y)
    w = np.random.default_rng(6).choice([1.0, 2.0, 5.0], 50)
    est = IntervalMLE(family=family).fit(Z, sample_weight=w)

    def theta(weights):
        fit = IntervalMLE(family=family).fit(Z, sample_weight=weights)
        return np.array([fit.loc_, np.log(fit.scale_)])

    want = _infinitesimal_jackknife(theta, w)
    got = est._ci_parameter_covariance(Z, w, sandwich=True)
    np.testing.assert_allclose(got, want, rtol=2e-3, atol=1e-7)
    # not the inverse information, which reads the weights as counts
    model = est._ci_parameter_covariance(Z, w)
    assert not np.allclose(model, want, rtol=0.1)


def test_unweighted_sandwich_is_the_robust_covariance_and_wald_stays_default():
    y = np.random.default_rng(8).normal(5, 2, (120, 1))
    Z = IntervalCaseII(anchor_loc=5, anchor_scale=2, random_state=8).fit_transform(y)
    est = IntervalMLE().fit(Z)
    assert est.conf_int("mean", X=Z)["method"].iloc[0] == "wald (observed information)"
    robust = est.conf_int("mean", X=Z, method="sandwich")
    assert robust["method"].iloc[0] == "wald (sandwich covariance)"
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
    # exact responses: the weighted least-squares fit, whose sandwich for
    # the coefficients is (X'WX)^-1 (sum w^2 e^2 x x') (X'WX)^-1 (the
    # cross terms with log sigma vanish at the fit)
    from sklearn.linear_model import LinearRegression

    from skprivate import IterativeIntervalRegressor

    X, Y, w = _regression(120, 11, exact=True)
    est = IterativeIntervalRegressor(LinearRegression()).fit(X, Y, sample_weight=w)
    A = np.column_stack([np.ones(len(X)), X])
    e = Y[:, 0] - A @ np.r_[est.estimator_.intercept_, est.estimator_.coef_]
    bread = np.linalg.inv(A.T @ (w[:, None] * A))
    V = bread @ (A.T @ ((w**2 * e**2)[:, None] * A)) @ bread
    ci = est.conf_int("coef", X=X, y=Y)
    assert (ci["method"] == "wald (sandwich covariance)").all()
    np.testing.assert_allclose(ci["se"], np.sqrt(np.diag(V)), rtol=1e-4)
    points = np.array([[0.5, -1.0], [2.0, 0.3]])
    pred = est.conf_int("predict", points, X=X, y=Y)
    B = np.column_stack([np.ones(2), points])
    np.testing.assert_allclose(
        pred["se"], np.sqrt(np.einsum("ij,jk,ik->i", B, V, B)), rtol=1e-4
    )


def test_regressor_sandwich_equals_the_infinitesimal_jackknife_of_refits():
    from sklearn.linear_model import LinearRegression

    from skprivate import IterativeIntervalRegressor

    X, Y, w = _regression(60, 12)

    def coef(weights):
        fit = IterativeIntervalRegressor(LinearRegression()).fit(
            X, Y, sample_weight=weights
        )
        return np.r_[fit.estimator_.intercept_, fit.estimator_.coef_]

    want = np.sqrt(np.diag(_infinitesimal_jackknife(coef, w)))
    est = IterativeIntervalRegressor(LinearRegression()).fit(X, Y, sample_weight=w)
    np.testing.assert_allclose(est.conf_int("coef", X=X, y=Y)["se"], want, rtol=2e-3)


def test_regressor_wald_refuses_weights_and_sandwich_needs_the_mle():
    from sklearn.linear_model import LinearRegression, Ridge

    from skprivate import IterativeIntervalRegressor

    X, Y, w = _regression(80, 13)
    est = IterativeIntervalRegressor(LinearRegression()).fit(X, Y, sample_weight=w)
    with pytest.raises(ValueError, match="method='wald' reads the observed"):
        est.conf_int("coef", X=X, y=Y, method="wald")
    ridge = IterativeIntervalRegressor(Ridge()).fit(X, Y, sample_weight=w)
    with pytest.raises(ValueError, match="method='sandwich' needs a LinearRegression"):
        ridge.conf_int("coef", X=X, y=Y, method="sandwich")
    logistic = IterativeIntervalRegressor(LinearRegression(), noise="logistic").fit(
        X, Y
    )
    with pytest.raises(ValueError, match="method='sandwich' is the interval MLE's"):
        logistic.conf_int("coef", X=X, y=Y, method="sandwich")
    # unweighted: Wald stays the default, the sandwich is offered
    plain = IterativeIntervalRegressor(LinearRegression()).fit(X, Y)
    assert plain.conf_int("coef", X=X, y=Y)["method"].iloc[0] == (
        "wald (observed information)"
    )
    robust = plain.conf_int("coef", X=X, y=Y, method="sandwich")
    np.testing.assert_allclose(
        robust["se"], plain.conf_int("coef", X=X, y=Y)["se"], rtol=0.3
    )
