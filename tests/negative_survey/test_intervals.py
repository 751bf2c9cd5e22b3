"""Confidence intervals of the RVNS reconstruction (conf_int)."""

import numpy as np
import pytest

from skprivate._grid_density._intervals import (
    _report_covariance,
    cell_cdf_weights,
    ems_covariance,
)
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber


def test_report_covariance_treats_a_respondents_reports_as_one_unit():
    # Two respondents with two reports each, bins (0, 0) and (1, 2): the
    # frequencies are (1/2, 1/4, 1/4); the unit counts c = (2, 0, 0) and
    # (0, 1, 1) have covariance diag(1, 1/4, 1/4) - off-diagonals (-1/2,
    # -1/2, 1/4); Cov(t) = Cov(c) / (n v^2) = Cov(c) / 8.
    t, cov = _report_covariance(np.array([[0, 0], [1, 2]]), 3)
    np.testing.assert_allclose(t, [0.5, 0.25, 0.25])
    expected = np.array([[1.0, -0.5, -0.5], [-0.5, 0.25, 0.25], [-0.5, 0.25, 0.25]])
    np.testing.assert_allclose(cov, expected / 8)


def test_rvns_intervals_on_reports():
    rng = np.random.default_rng(0)
    x = rng.beta(2, 5, size=(1500, 1)) * 10
    Y = RVNSPerturber(d=2.0, k=2, bounds=(0, 10), random_state=1).fit_transform(x)
    est = RVNSDensityEstimator(d=2.0, bounds=(0, 10), n_points=40).fit(Y)
    cdf = est.conf_int("cdf", [2.0, 4.0], X=Y, level=[0.9, 0.95])
    assert (cdf["method"] == "linearized EMS, bias-corrected (delta method)").all()
    assert cdf["target"].str.startswith("F(x), the true value").all()
    # the smoothed interval is centred on the fit ("linearized": its old name)
    smoothed = est.conf_int("cdf", [2.0, 4.0], X=Y, method="smoothed")
    np.testing.assert_allclose(smoothed["estimate"], est.cdf([2.0, 4.0]))
    assert (smoothed["method"] == "linearized EMS (delta method)").all()
    old = est.conf_int("cdf", [2.0, 4.0], X=Y, method="linearized")
    np.testing.assert_allclose(old["upper"], smoothed["upper"])
    assert (cdf["se"].iloc[:2].to_numpy() > smoothed["se"].to_numpy()).all()
    assert (cdf["se"] > 0).all()
    wide, narrow = cdf.iloc[2], cdf.iloc[0]
    assert wide["lower"] < narrow["lower"] < narrow["upper"] < wide["upper"]
    mean = est.conf_int("mean", X=Y, method="linearized").iloc[0]
    assert mean["estimate"] == pytest.approx(est.mean())
    assert mean["lower"] < mean["estimate"] < mean["upper"]
    quantile = est.conf_int("quantile", [0.5], X=Y).iloc[0]
    assert quantile["lower"] < quantile["estimate"] < quantile["upper"]


def test_moment_mean_of_boundary_safe_reports_is_unbiased():
    # E[Y | x] = C - d x / (b - a + d) with the boundary-safe placement.
    a, b, d = 0.0, 10.0, 2.0
    span = b - a + d
    centre = ((b + d) ** 2 - (a - d) ** 2) / (2 * span)
    n = 200_000
    for x in (0.0, 3.0, 10.0):
        Y = RVNSPerturber(d=d, k=1, bounds=(a, b), random_state=7).fit_transform(
            np.full((n, 1), x)
        )
        assert abs(Y.mean() - (centre - d * x / span)) < 4 * Y.std() / np.sqrt(n)
    rng = np.random.default_rng(1)
    x = rng.uniform(2, 8, size=(3000, 1))
    Y = RVNSPerturber(d=d, k=2, bounds=(a, b), random_state=2).fit_transform(x)
    est = RVNSDensityEstimator(d=d, bounds=(a, b), n_points=40).fit(Y)
    ci = est.conf_int("mean", X=Y).iloc[0]
    assert ci["method"] == "moment (unbiased)"
    rows = Y.mean(axis=1)
    assert ci["estimate"] == pytest.approx((centre - rows.mean()) * span / d)
    assert ci["se"] == pytest.approx(rows.std(ddof=1) / np.sqrt(3000) * span / d)
    assert ci["lower"] < 5.0 < ci["upper"]


def test_rvns_linearization_follows_the_fits_moment_tilt():
    # A sample whose EMS fit is tilted to the reports' binned moments: the
    # interval code rebuilds the fitted probabilities from the untilted
    # fixed point, and the CDF standard error is the chained delta method.
    x = np.random.default_rng(2).beta(2, 5, size=(400, 1)) * 10
    Y = RVNSPerturber(d=1.0, k=1, bounds=(0, 10), random_state=2).fit_transform(x)
    est = RVNSDensityEstimator(d=1.0, bounds=(0, 10), n_points=30).fit(Y)
    A, bins, S = est._ci_ems_system(Y)
    tilt = est._ci_moment_tilt(Y, A, bins, S)
    tilted, multipliers = tilt.tilted()
    assert np.all(multipliers != 0)
    theta = est.density_ * np.diff(est.edges_)
    np.testing.assert_allclose(tilted, theta / theta.sum(), atol=1e-6)
    W = cell_cdf_weights(est.edges_, np.array([2.0]))[0]
    chained = W @ ems_covariance(A, tilted, S, bins, tilt) @ W
    plain = W @ ems_covariance(A, tilt.untilted, S, bins) @ W
    se = est.conf_int("cdf", [2.0], X=Y, method="smoothed")["se"].iloc[0]
    assert se == pytest.approx(np.sqrt(chained), rel=1e-9)
    assert abs(se / np.sqrt(plain) - 1) > 0.01
