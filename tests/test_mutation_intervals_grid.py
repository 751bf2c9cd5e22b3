"""Grid-EMS interval behaviour that mutation testing found unchecked.

Each test pins a documented behaviour of ``skprivate/_grid_density/_intervals.py``
with an exact small case: the respondent-level covariance of the reports,
the implicit derivative of the EMS fixed point and its delta method, the
twicing bias correction, the moment tilt and its Jacobians, the quantile
inversion, and the methods, targets and refusals of the estimators' frames.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import BaseEstimator

from skprivate._uncertainty import (
    IntervalRequest,
    resample_indices,
)
from skprivate.distributions import PopulationEstimateMixin

# -- the grid-EMS intervals: skprivate/_grid_density/_intervals.py ------------


def _request(**given):
    args = {
        "kind": "cdf",
        "points": None,
        "level": 0.9,
        "method": "auto",
        "X": None,
        "y": None,
        "n_resamples": None,
        "random_state": None,
        "n_jobs": None,
    }
    return IntervalRequest(**{**args, **given})


def _grid_module():
    from skprivate._grid_density import _intervals

    return _intervals


S3 = np.array([[0.75, 0.25, 0.0], [0.25, 0.5, 0.25], [0.0, 0.25, 0.75]])
EDGES3 = np.array([0.0, 1.0, 2.0, 3.0])
# Five respondents with two exact reports each (the cell of each report).
BINS = np.array([[0, 1], [1, 1], [2, 0], [1, 1], [0, 0]])


def _grid_estimator():
    from skprivate.distributions import PiecewiseUniformDistribution

    class _Grid(
        _grid_module().GridEMSIntervalsMixin, PopulationEstimateMixin, BaseEstimator
    ):
        """Exact reports on three cells of (0, 3): the EMS fixed point is S t."""

        def __init__(self, ems=True):
            self.ems = ems

        def fit(self, X, y=None):
            bins = np.asarray(X, dtype=int).reshape(len(X), -1)
            t = np.bincount(bins.ravel(), minlength=3) / bins.size
            self.edges_ = EDGES3
            self.density_ = S3 @ t  # cells of width 1
            self.smoothing_width_ = 1.0
            self.systems_ = 0
            return self

        def _distribution(self):
            return PiecewiseUniformDistribution(self.edges_, self.density_)

        def _ci_ems_system(self, X):
            self.systems_ += 1
            return (np.eye(3), X.astype(int), S3) if self.ems else None

        def _ci_uses_ems(self):
            return self.ems

        def _ci_ems_refit(self, A, frequencies, start):
            return S3 @ frequencies

    return _Grid


def _hand_rbc():
    """theta, its covariance, and the corrected cells with theirs, by hand.

    With exact reports (A = I) the EM step returns t whatever theta, so the
    EMS fixed point is S t and its derivative in t is (I - theta 1^T) S; the
    fit's map is Phi(t) = S t, so theta_bc = 2 theta - S theta with
    derivative 2 I - (I - S theta 1^T) S.
    """
    n, v = BINS.shape
    c = np.array([np.bincount(row, minlength=3) for row in BINS], dtype=float)
    t = c.sum(axis=0) / (n * v)
    cov_t = np.cov(c, rowvar=False, ddof=0) / (n * v * v)
    theta = S3 @ t
    G = (np.eye(3) - np.outer(theta, np.ones(3))) @ S3
    cov = G @ cov_t @ G.T
    again = S3 @ theta
    M = 2.0 * np.eye(3) - (np.eye(3) - np.outer(again, np.ones(3))) @ S3
    return theta, cov, 2.0 * theta - again, M @ cov @ M.T


def test_grid_filters_and_cdf_weights():
    mod = _grid_module()
    np.testing.assert_array_equal(mod.binomial_filter_matrix(3), S3)
    np.testing.assert_array_equal(mod.binomial_filter_matrix(1), [[1.0]])
    four = mod.binomial_filter_matrix(4)
    np.testing.assert_array_equal(four[1], [0.25, 0.5, 0.25, 0.0])
    np.testing.assert_array_equal(four[3], [0.0, 0.0, 0.25, 0.75])
    for width in (None, 0, 0.0, -1.0):
        assert mod.smoothing_matrix(4, width) is None
    from skprivate._grid_density._ems import _smoother

    np.testing.assert_array_equal(mod.smoothing_matrix(4, 1), _smoother(4, 1.0))
    np.testing.assert_array_equal(mod.smoothing_matrix(4, 0.5), _smoother(4, 0.5))
    W = mod.cell_cdf_weights([0.0, 1.0, 3.0], [-1.0, 0.5, 1.0, 2.0, 4.0])
    np.testing.assert_array_equal(
        W, [[0.0, 0.0], [0.5, 0.0], [1.0, 0.0], [1.0, 0.5], [1.0, 1.0]]
    )


def test_report_covariance_is_over_respondents():
    mod = _grid_module()
    t, cov = mod._report_covariance(BINS, 3)
    c = np.array([np.bincount(row, minlength=3) for row in BINS], dtype=float)
    np.testing.assert_allclose(t, [0.4, 0.5, 0.1])
    np.testing.assert_allclose(cov, np.cov(c, rowvar=False, ddof=0) / 20, atol=1e-15)
    # one report per respondent, given as a 1-d array: the multinomial one
    t, cov = mod._report_covariance(np.array([0, 1, 1, 3]), 4)
    p = np.array([0.25, 0.5, 0.0, 0.25])
    np.testing.assert_allclose(t, p)
    np.testing.assert_allclose(cov, (np.diag(p) - np.outer(p, p)) / 4, atol=1e-15)


def test_ems_gradient_is_the_implicit_derivative():
    mod = _grid_module()
    # reports equal to the cells: the EM step returns t, so only the
    # normalization and the smoothing act: (I - theta 1^T) S
    theta = np.array([0.2, 0.5, 0.3])
    t = np.array([0.1, 0.6, 0.3])
    np.testing.assert_allclose(
        mod.ems_gradient(np.eye(3), theta, S3, t),
        (np.eye(3) - np.outer(theta, np.ones(3))) @ S3,
        atol=1e-15,
    )
    np.testing.assert_allclose(
        mod.ems_gradient(np.eye(3), theta, None, t),
        np.eye(3) - np.outer(theta, np.ones(3)),
        atol=1e-15,
    )
    # an invertible 2 x 2 mechanism: theta = A^-1 t on the simplex, so a
    # change (1, -1) of t moves theta by A^-1 (1, -1) = (2, -2)
    A = np.array([[0.8, 0.3], [0.2, 0.7]])
    G = mod.ems_gradient(A, np.array([0.6, 0.4]), None, np.array([0.6, 0.4]))
    np.testing.assert_allclose(G @ [1.0, -1.0], [2.0, -2.0], atol=1e-12)
    # reports that say nothing (every value reports bin 0): no derivative,
    # although the implicit system is singular
    G = mod.ems_gradient(
        np.array([[1.0, 1.0], [0.0, 0.0]]), np.array([0.5, 0.5]), None, [1.0, 0.0]
    )
    np.testing.assert_allclose(G, np.zeros((2, 2)), atol=1e-12)


def test_ems_covariance_is_the_delta_method_of_the_fixed_point():
    mod = _grid_module()
    cov = mod.ems_covariance(
        np.eye(3), np.array([0.25, 0.5, 0.25]), None, np.array([[0], [1], [1], [2]])
    )
    np.testing.assert_allclose(
        cov * 4,
        [[0.1875, -0.125, -0.0625], [-0.125, 0.25, -0.125], [-0.0625, -0.125, 0.1875]],
        atol=1e-15,
    )
    theta, hand, _, _ = _hand_rbc()
    np.testing.assert_allclose(
        mod.ems_covariance(np.eye(3), theta, S3, BINS), hand, atol=1e-15
    )


def test_bias_correction_is_twicing_on_exact_reports():
    mod = _grid_module()
    theta = np.array([0.2, 0.5, 0.3])
    theta_bc, M = mod.ems_bias_correction(np.eye(3), theta, S3, lambda t: S3 @ t)
    np.testing.assert_allclose(theta_bc, 2 * theta - S3 @ theta, atol=1e-15)
    np.testing.assert_allclose(theta_bc, [0.125, 0.625, 0.25], atol=1e-15)
    again = S3 @ theta
    np.testing.assert_allclose(
        M, 2 * np.eye(3) - (np.eye(3) - np.outer(again, np.ones(3))) @ S3, atol=1e-15
    )
    # the refit is normalized before it is used
    theta_bc, _ = mod.ems_bias_correction(np.eye(3), theta, S3, lambda t: 4 * S3 @ t)
    np.testing.assert_allclose(theta_bc, [0.125, 0.625, 0.25], atol=1e-15)
    # plain EM on exact reports is unbiased: no correction
    theta_bc, M = mod.ems_bias_correction(np.eye(3), theta, None, lambda t: t)
    np.testing.assert_allclose(theta_bc, theta, atol=1e-15)


def test_quantile_inversion_takes_the_values_whose_cdf_interval_holds_q():
    mod = _grid_module()
    edges = np.array([0.0, 1.0, 2.0])
    theta = np.array([0.5, 0.5])
    # no spread: the value where the CDF is q, on the grid of eighths
    lower, upper = mod._quantile_inversion(
        edges, theta, np.zeros((2, 2)), np.array([0.25, 0.3, 0.0, 1.0]), 0.9
    )
    assert lower.tolist() == [0.5, 0.625, 0.0, 2.0]
    assert upper.tolist() == [0.5, 0.625, 0.0, 2.0]
    # se 0.1 x in the first cell, 0.1 (2 - x) in the second: |x / 2 - 1/4|
    # <= z 0.1 x holds for x in [0.376, 0.745] at 0.9, [0.33, 1.031] at 0.99
    cov = np.array([[0.01, -0.01], [-0.01, 0.01]])
    lower, upper = mod._quantile_inversion(edges, theta, cov, np.array([0.25]), 0.9)
    assert (lower[0], upper[0]) == (0.5, 0.625)
    lower, upper = mod._quantile_inversion(edges, theta, cov, np.array([0.25]), 0.99)
    assert (lower[0], upper[0]) == (0.375, 1.0)
    lower, upper = mod._quantile_inversion(
        edges, theta, cov, np.array([0.25]), 0.9, per_cell=4
    )
    assert (lower[0], upper[0]) == (0.5, 0.5)


def test_rearranged_quantiles_sort_a_dipping_cdf():
    mod = _grid_module()
    # cumulative masses 0, 0.6, 0.4, 1 sorted to 0, 0.4, 0.6, 1
    got = mod._rearranged_quantiles(
        EDGES3, np.array([0.6, -0.2, 0.6]), np.array([0.2, 0.5, 0.8])
    )
    np.testing.assert_allclose(got, [0.5, 1.5, 2.5])
    # masses are normalized first
    got = mod._rearranged_quantiles(
        EDGES3, np.array([1.2, -0.4, 1.2]), np.array([0.2, 0.5])
    )
    np.testing.assert_allclose(got, [0.5, 1.5])


def test_grid_rbc_intervals_are_the_corrected_delta_method_ones():
    theta, _, theta_bc, cov_bc = _hand_rbc()
    est = _grid_estimator()().fit(BINS)
    np.testing.assert_allclose(np.diff(est.cdf(EDGES3)), theta)
    x = np.array([0.5, 1.0, 2.5])
    W = np.array([[0.5, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 1.0, 0.5]])
    z = stats.norm.ppf(0.95)
    ci = est.conf_int("cdf", x, X=BINS, level=0.9)
    F = W @ theta_bc
    se = np.sqrt(np.diag(W @ cov_bc @ W.T))
    np.testing.assert_allclose(ci["estimate"], F, atol=1e-14)
    np.testing.assert_allclose(ci["se"], se, atol=1e-14)
    np.testing.assert_allclose(ci["lower"], np.clip(F - z * se, 0, 1), atol=1e-14)
    np.testing.assert_allclose(ci["upper"], np.clip(F + z * se, 0, 1), atol=1e-14)
    assert ci["method"].iloc[0] == "linearized EMS, bias-corrected (delta method)"
    assert ci["target"].iloc[0] == (
        "F(x), the true value (the fit's bias at the fitted law removed to first "
        "order; the smoothing width held at the fit's choice)"
    )
    assert ci["point"].tolist() == x.tolist()
    # the mean: midpoints 0.5, 1.5, 2.5 of the corrected cells
    mids = np.array([0.5, 1.5, 2.5])
    mean = est.conf_int("mean", X=BINS)
    assert mean["estimate"].iloc[0] == pytest.approx(mids @ theta_bc, abs=1e-14)
    assert mean["se"].iloc[0] == pytest.approx(np.sqrt(mids @ cov_bc @ mids), abs=1e-14)
    assert mean["upper"].iloc[0] == pytest.approx(
        mids @ theta_bc + stats.norm.ppf(0.975) * np.sqrt(mids @ cov_bc @ mids)
    )
    assert mean["method"].iloc[0] == "linearized EMS, bias-corrected (delta method)"
    assert mean["target"].iloc[0].startswith("E[X], the true value (")
    # quantiles: the rearranged corrected CDF and the inverted CDF intervals
    q = est.conf_int("quantile", [0.5], X=BINS)
    lower, upper = _grid_module()._quantile_inversion(
        EDGES3, theta_bc, cov_bc, np.array([0.5]), 0.95
    )
    cdf = np.concatenate([[0.0], np.cumsum(theta_bc)])
    assert q["estimate"].iloc[0] == pytest.approx(np.interp(0.5, cdf, EDGES3))
    assert (q["lower"].iloc[0], q["upper"].iloc[0]) == (lower[0], upper[0])
    assert q["method"].iloc[0] == "linearized EMS, bias-corrected, CDF test inversion"
    assert q["target"].iloc[0].startswith("the quantile of X, the true value (")


def test_grid_smoothed_intervals_are_centred_on_the_fit():
    theta, cov, _, _ = _hand_rbc()
    est = _grid_estimator()().fit(BINS)
    x = np.array([0.5, 2.5])
    W = np.array([[0.5, 0.0, 0.0], [1.0, 1.0, 0.5]])
    smoothed_target = (
        "the EMS-smoothed target at the chosen width, after the fit's moment "
        "tilt if any (smoothing bias and the variability of the width choice "
        "not covered)"
    )
    for name in ("smoothed", "linearized"):
        ci = est.conf_int("cdf", x, X=BINS, method=name, level=0.8)
        se = np.sqrt(np.diag(W @ cov @ W.T))
        np.testing.assert_allclose(ci["estimate"], W @ theta, atol=1e-14)
        np.testing.assert_allclose(ci["se"], se, atol=1e-14)
        np.testing.assert_allclose(
            ci["upper"], W @ theta + stats.norm.ppf(0.9) * se, atol=1e-14
        )
        assert ci["method"].iloc[0] == "linearized EMS (delta method)"
        assert ci["target"].iloc[0] == smoothed_target
        mean = est.conf_int("mean", X=BINS, method=name)
        mids = np.array([0.5, 1.5, 2.5])
        assert mean["estimate"].iloc[0] == pytest.approx(mids @ theta, abs=1e-14)
        assert mean["se"].iloc[0] == pytest.approx(np.sqrt(mids @ cov @ mids))
        q = est.conf_int("quantile", [0.3, 0.5], X=BINS, method=name)
        np.testing.assert_allclose(q["estimate"], est.quantile([0.3, 0.5]))
        lower, upper = _grid_module()._quantile_inversion(
            EDGES3, theta, cov, np.array([0.3, 0.5]), 0.95
        )
        assert q["lower"].tolist() == lower.tolist()
        assert q["upper"].tolist() == upper.tolist()
        assert q["method"].iloc[0] == "linearized EMS, CDF test inversion"
        assert q["target"].iloc[0] == smoothed_target
    # the smoothed mean through the helper, under its former name too
    frame = est._ci_linearized_mean(
        _request(kind="mean", X=BINS, level=0.9), "linearized"
    )
    assert frame["estimate"].iloc[0] == pytest.approx(np.array([0.5, 1.5, 2.5]) @ theta)
    frame = est._ci_linearized_mean(_request(kind="mean", X=BINS, level=0.9))
    assert frame["method"].iloc[0] == "linearized EMS, bias-corrected (delta method)"


def test_grid_intervals_share_the_linearization_and_honour_the_level():
    est = _grid_estimator()().fit(BINS)
    ci = est.conf_int("mean", X=BINS, level=[0.9, 0.95])
    assert est.systems_ == 1
    width = ci["upper"] - ci["lower"]
    assert width.iloc[1] / width.iloc[0] == pytest.approx(
        stats.norm.ppf(0.975) / stats.norm.ppf(0.95), rel=1e-12
    )
    # a 1-d X is one report per respondent
    one = est.conf_int("mean", X=BINS[:, 0])
    two = est.conf_int("mean", X=BINS[:, :1])
    pd.testing.assert_frame_equal(one, two)
    # the corrected cell estimate of the CDF stays in [0, 1]
    est.density_ = np.array([0.0, 0.2, 0.8])
    ci = est.conf_int("cdf", [0.5, 2.9], X=BINS[:, :1])
    F = 2 * est.density_ - S3 @ est.density_
    assert F[0] < 0 and ci["estimate"].iloc[0] == 0.0
    assert ci["estimate"].iloc[1] == pytest.approx(F[0] + F[1] + 0.9 * F[2])


def test_grid_without_ems_bootstraps_and_refuses_the_linearized_methods():
    est = _grid_estimator()(ems=False).fit(BINS[:, :1])
    assert est._ci_interval_kinds() == ["cdf", "mean", "quantile"]
    with pytest.raises(
        ValueError,
        match=re.escape("kind='pdf'; available: ['cdf', 'mean', 'quantile']"),
    ):
        est.conf_int("pdf", [1.0])
    X = BINS[:, :1]
    mean = est.conf_int("mean", X=X, n_resamples=5, random_state=0)
    assert mean["method"].iloc[0] == "bootstrap-percentile"
    q = est.conf_int("quantile", [0.5], X=X, n_resamples=5, random_state=0)
    assert q["method"].iloc[0] == "bootstrap-percentile"
    c = est.conf_int("cdf", [1.0], X=X, n_resamples=5, random_state=0)
    assert c["method"].iloc[0] == "bootstrap-percentile"
    idx = resample_indices(5, 5, 0)
    reps = [est.__class__(ems=False).fit(X[i]).cdf([1.0])[0] for i in idx]
    assert c["se"].iloc[0] == pytest.approx(np.std(reps, ddof=1))
    for kind, points in [("mean", None), ("cdf", [1.0]), ("quantile", [0.5])]:
        for method in ("rbc", "smoothed"):
            with pytest.raises(
                ValueError,
                match=re.escape(
                    "_Grid was not fitted by EM with smoothing (method='paper'); "
                    "use method='bootstrap'."
                ),
            ):
                est.conf_int(kind, points, X=X, method=method)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "_Grid computes 'mean' intervals with method in ['bootstrap', "
            "'linearized', 'rbc', 'smoothed'] (or 'auto'); got method='wald'."
        ),
    ):
        est.conf_int("mean", X=X, method="wald")
    # with EMS the bootstrap is still offered on request
    ems = _grid_estimator()().fit(X)
    boot = ems.conf_int("mean", X=X, method="bootstrap", n_resamples=5, random_state=0)
    assert boot["method"].iloc[0] == "bootstrap-percentile"
    assert (
        ems.conf_int("mean", X=X)["method"].iloc[0].startswith("linearized EMS, bias")
    )


def test_grid_default_refit_is_the_fits_ems():
    from skprivate._grid_density._ems import ML_MAX_ITER, ML_TOL, ems_cell_probabilities

    mod = _grid_module()

    class _Plain(mod.GridEMSIntervalsMixin):
        smoothing_width_ = 0.7

    A = np.array([[0.7, 0.2, 0.1], [0.2, 0.6, 0.2], [0.1, 0.2, 0.7]])
    freq = np.array([0.5, 0.3, 0.2])
    start = np.array([0.2, 0.3, 0.5])
    got = _Plain()._ci_ems_refit(A, freq, start)
    expected = ems_cell_probabilities(
        A, freq, 0.7, max_iter=ML_MAX_ITER, tol=ML_TOL, start=start, warn=False
    )[0]
    np.testing.assert_array_equal(got, expected)
    assert _Plain()._ci_uses_ems() is True
    assert _Plain()._ci_moment_tilt(None, A, None, None) is None


# six cells on (0, 1); a report lands near its value's cell
M6 = 6
MIDS6 = (np.arange(M6) + 0.5) / M6
_BLUR = np.exp(-np.abs(np.subtract.outer(np.arange(M6), np.arange(M6))) / 1.5)
A6 = _BLUR / _BLUR.sum(axis=0)
FEATURES6 = A6.T @ np.column_stack([MIDS6, MIDS6**2])
# eight respondents with two reports each (report bins)
BINS6 = np.array([[0, 1], [1, 1], [2, 3], [5, 4], [1, 0], [2, 2], [3, 1], [4, 5]])


def _tilt6(within=0.0):
    mod = _grid_module()
    reports = MIDS6[BINS6]
    unit = np.column_stack([reports.mean(axis=1), (reports**2).mean(axis=1)])
    untilted = np.array([0.05, 0.1, 0.2, 0.3, 0.25, 0.1])
    cov = np.cov(unit, rowvar=False) / len(unit)
    return mod.MomentTilt(FEATURES6, unit, untilted, cov, within)


def test_tilted_covariance_chains_the_joint_covariance_of_reports_and_moments():
    mod = _grid_module()
    tilt = _tilt6()
    w_t, lam = tilt.tilted()
    assert lam is not None and np.all(lam != 0)
    np.testing.assert_allclose(FEATURES6.T @ w_t, tilt.target(), atol=1e-9)
    S = mod.smoothing_matrix(M6, 1.0)
    cov = mod.ems_covariance(A6, w_t, S, BINS6, tilt)
    # the joint covariance of (t, mu_hat): each respondent's bin shares and
    # moment contributions, averaged over the eight respondents
    n, v = BINS6.shape
    shares = np.array([np.bincount(r, minlength=M6) / v for r in BINS6])
    joint = np.cov(np.c_[shares, tilt.unit_moments], rowvar=False, ddof=0) / n
    t = shares.mean(axis=0)
    G = mod.ems_gradient(A6, tilt.untilted, S, t)
    J_w, J_mu = tilt.jacobians()
    H = np.c_[J_w @ G, J_mu]
    np.testing.assert_allclose(cov, H @ joint @ H.T, atol=1e-14)
    # one report per respondent, as a 1-d array
    one = mod.MomentTilt(
        FEATURES6,
        np.column_stack([MIDS6[BINS6[:, 0]], MIDS6[BINS6[:, 0]] ** 2]),
        tilt.untilted,
        tilt.moment_cov,
        0.0,
    )
    got = mod.ems_covariance(A6, w_t, S, BINS6[:, 0], one)
    shares = np.eye(M6)[BINS6[:, 0]]
    joint = np.cov(np.c_[shares, one.unit_moments], rowvar=False, ddof=0) / n
    G = mod.ems_gradient(A6, one.untilted, S, shares.mean(axis=0))
    J_w, J_mu = one.jacobians()
    H = np.c_[J_w @ G, J_mu]
    np.testing.assert_allclose(got, H @ joint @ H.T, atol=1e-14)


def test_tilt_jacobians_match_finite_differences_within_an_ellipse():
    tilt = _tilt6(within=0.5)
    base, lam = tilt.tilted()
    assert lam is not None and np.all(lam != 0)
    J_w, J_mu = tilt.jacobians()
    w = tilt.untilted / tilt.untilted.sum()
    dw = np.array([0.3, -0.2, 0.1, -0.4, 0.5, -0.3]) * w
    dw -= w * dw.sum()
    step = 1e-6
    moved = (
        _grid_module()
        .MomentTilt(FEATURES6, tilt.unit_moments, w + step * dw, tilt.moment_cov, 0.5)
        .tilted()[0]
    )
    np.testing.assert_allclose((moved - base) / step, J_w @ dw, atol=1e-5)
    dmu = np.array([1e-2, -2e-2])
    shifted = (
        _grid_module()
        .MomentTilt(FEATURES6, tilt.unit_moments + step * dmu, w, tilt.moment_cov, 0.5)
        .tilted()[0]
    )
    np.testing.assert_allclose((shifted - base) / step, J_mu @ dmu, atol=1e-5)
    # an untilted fit given unnormalized: the same tilt
    scaled = _grid_module().MomentTilt(
        FEATURES6, tilt.unit_moments, 3 * w, tilt.moment_cov, 0.5
    )
    np.testing.assert_allclose(scaled.tilted()[0], base, atol=1e-12)
    np.testing.assert_allclose(scaled.jacobians()[0], J_w, atol=1e-9)
    # far inside the ellipse nothing moves: identity and zero
    calm = _grid_module().MomentTilt(
        FEATURES6, tilt.unit_moments, w, tilt.moment_cov, 1e6
    )
    J_w, J_mu = calm.jacobians()
    np.testing.assert_array_equal(J_w, np.eye(M6))
    np.testing.assert_array_equal(J_mu, np.zeros((M6, 2)))
    assert (
        _grid_module()
        .MomentTilt(FEATURES6, tilt.unit_moments, w, tilt.moment_cov)
        .within
        == 2.0
    )


def test_bias_correction_through_the_tilt_matches_finite_differences():
    mod = _grid_module()
    tilt = _tilt6()
    theta = tilt.tilted()[0]
    S = mod.smoothing_matrix(M6, 1.0)

    def refit(freq):
        from skprivate._grid_density._ems import ems_cell_probabilities

        return ems_cell_probabilities(
            A6, freq, 1.0, max_iter=20000, tol=1e-13, warn=False
        )[0]

    theta_bc, M = mod.ems_bias_correction(A6, theta, S, refit, tilt)

    def corrected(th):
        untilted = refit(A6 @ th)
        untilted = untilted / untilted.sum()
        stage = mod.MomentTilt(
            FEATURES6, (FEATURES6.T @ th)[None, :], untilted, tilt.moment_cov, 0.0
        )
        return 2 * th - stage.tilted()[0]

    np.testing.assert_allclose(theta_bc, corrected(theta), atol=1e-9)
    d = np.array([0.2, -0.1, 0.3, -0.2, -0.3, 0.1]) * theta
    d -= theta * d.sum()
    step = 1e-5
    numeric = (corrected(theta + step * d) - corrected(theta - step * d)) / (2 * step)
    np.testing.assert_allclose(M @ d, numeric, atol=1e-5)


# -- the frames' columns, clipping, and the moment tilt's route ----------------


def test_grid_frames_name_their_quantity_points_and_level():
    est = _grid_estimator()().fit(BINS)
    for method in ("rbc", "smoothed"):
        c = est.conf_int("cdf", [0.5, 2.5], X=BINS, level=0.8, method=method)
        assert c["quantity"].tolist() == ["cdf", "cdf"]
        assert c["point"].tolist() == [0.5, 2.5]
        assert c["level"].tolist() == [0.8, 0.8]
        q = est.conf_int("quantile", [0.3, 0.5], X=BINS, level=0.8, method=method)
        assert q["quantity"].tolist() == ["quantile", "quantile"]
        assert q["point"].tolist() == [0.3, 0.5]
        assert q["level"].tolist() == [0.8, 0.8]
        m = est.conf_int("mean", X=BINS, level=0.8, method=method)
        assert m["quantity"].tolist() == ["mean"] and m["level"].tolist() == [0.8]
    smoothed = est.conf_int("mean", X=BINS, method="smoothed")
    assert smoothed["method"].iloc[0] == "linearized EMS (delta method)"
    # the bootstrap of a fit without EMS: points, estimates of the fit
    boot = _grid_estimator()(ems=False).fit(BINS[:, :1])
    X = BINS[:, :1]
    c = boot.conf_int("cdf", [1.0, 2.0], X=X, n_resamples=5, random_state=0)
    assert c["point"].tolist() == [1.0, 2.0]
    np.testing.assert_allclose(c["estimate"], boot.cdf([1.0, 2.0]))
    q = boot.conf_int("quantile", [0.25, 0.5], X=X, n_resamples=5, random_state=0)
    assert q["point"].tolist() == [0.25, 0.5]
    np.testing.assert_allclose(q["estimate"], boot.quantile([0.25, 0.5]))
    m = boot.conf_int("mean", X=X, n_resamples=5, random_state=0)
    assert m["estimate"].iloc[0] == pytest.approx(boot.mean())


def test_grid_cdf_intervals_and_estimates_stay_in_the_unit_interval():
    est = _grid_estimator()().fit(BINS)
    z = stats.norm.ppf(0.975)
    # corrected cells (0.95, 0.1, -0.05): the CDF passes 1 at x = 2
    est.density_ = np.array([0.8, 0.2, 0.0])
    theta_bc = 2 * est.density_ - S3 @ est.density_
    np.testing.assert_allclose(theta_bc, [0.95, 0.1, -0.05], atol=1e-15)
    ci = est.conf_int("cdf", [0.5, 2.0], X=BINS)
    F = np.array([0.5 * theta_bc[0], theta_bc[0] + theta_bc[1]])
    se = ci["se"].to_numpy()
    assert F[1] > 1 and ci["estimate"].iloc[1] == 1.0
    assert ci["estimate"].iloc[0] == pytest.approx(F[0])
    assert F[1] + z * se[1] > 1 and ci["upper"].iloc[1] == 1.0
    assert ci["lower"].iloc[1] == pytest.approx(min(F[1] - z * se[1], 1.0))
    # and below 0 near the left end
    est.density_ = np.array([0.0, 0.2, 0.8])
    ci = est.conf_int("cdf", [0.5], X=BINS)
    F0 = 0.5 * (2 * est.density_ - S3 @ est.density_)[0]
    assert F0 - z * ci["se"].iloc[0] < 0 and ci["lower"].iloc[0] == 0.0


def test_grid_cells_of_unequal_widths_are_masses_not_densities():
    est = _grid_estimator()().fit(BINS)
    theta = est.density_.copy()  # cells of width 1: masses
    edges = np.array([0.0, 1.0, 3.0, 4.0])
    est.edges_ = edges
    est.density_ = theta / np.diff(edges)
    mids = np.array([0.5, 2.0, 3.5])
    mean = est.conf_int("mean", X=BINS, method="smoothed")
    assert mean["estimate"].iloc[0] == pytest.approx(mids @ theta, rel=1e-14)


def test_quantile_inversion_at_a_flat_cdf_and_beyond_its_reach():
    mod = _grid_module()
    # no spread and a CDF flat at q over the empty middle cell: all of it
    lower, upper = mod._quantile_inversion(
        EDGES3, np.array([0.5, 0.0, 0.5]), np.zeros((3, 3)), np.array([0.5]), 0.9
    )
    assert (lower[0], upper[0]) == (1.0, 2.0)
    # masses summing below q: the right end of the grid
    lower, upper = mod._quantile_inversion(
        EDGES3, np.array([0.3, 0.3, 0.2]), np.zeros((3, 3)), np.array([0.9]), 0.9
    )
    assert (lower[0], upper[0]) == (3.0, 3.0)
    # q reached only at the right end: that end, not the point before it
    lower, upper = mod._quantile_inversion(
        EDGES3, np.array([0.3, 0.3, 0.4]), np.zeros((3, 3)), np.array([0.99]), 0.9
    )
    assert (lower[0], upper[0]) == (3.0, 3.0)


def test_report_bins_given_as_floats_are_counted():
    mod = _grid_module()
    theta = np.array([0.3, 0.5, 0.2])
    exact = mod.ems_covariance(np.eye(3), theta, S3, BINS)
    floats = mod.ems_covariance(np.eye(3), theta, S3, BINS.astype(float))
    np.testing.assert_array_equal(floats, exact)
    unit = np.column_stack([BINS.mean(axis=1), (BINS**2).mean(axis=1)])
    tilt = mod.MomentTilt(
        np.column_stack([np.arange(3.0), np.arange(3.0) ** 2]),
        unit,
        theta,
        np.cov(unit, rowvar=False) / len(unit),
        0.0,
    )
    exact = mod.ems_covariance(np.eye(3), theta, S3, BINS, tilt)
    floats = mod.ems_covariance(np.eye(3), theta, S3, BINS.astype(float), tilt)
    np.testing.assert_array_equal(floats, exact)


def test_tilt_jacobians_are_finite_at_an_empty_cell():
    mod = _grid_module()
    untilted = np.array([0.05, 0.1, 0.0, 0.3, 0.25, 0.3])
    reports = MIDS6[BINS6]
    unit = np.column_stack([reports.mean(axis=1), (reports**2).mean(axis=1)])
    tilt = mod.MomentTilt(
        FEATURES6, unit, untilted, np.cov(unit, rowvar=False) / len(unit), 0.0
    )
    w_t, lam = tilt.tilted()
    assert lam is not None and np.all(lam != 0) and w_t[2] == 0.0
    J_w, J_mu = tilt.jacobians()
    assert np.isfinite(J_w).all() and np.isfinite(J_mu).all()


def _tilted_grid():
    mod = _grid_module()
    mids = np.array([0.5, 1.5, 2.5])
    features = np.column_stack([mids, mids**2])
    reports = mids[BINS]
    unit = np.column_stack([reports.mean(axis=1), (reports**2).mean(axis=1)])
    cov_mu = np.cov(unit, rowvar=False) / len(unit)
    seen = {}

    class _TiltedGrid(_grid_estimator()):
        def _ci_moment_tilt(self, X, A, unit_bins, S):
            seen["S"] = S
            theta = self.density_ * np.diff(self.edges_)
            # the fit's cells before the tilt: a little flatter than after it
            return mod.MomentTilt(features, unit, 0.8 * theta + 0.2 / 3, cov_mu, 0.0)

        def _ci_ems_refit(self, A, frequencies, start):
            seen["start"] = start
            return S3 @ frequencies

    return _TiltedGrid, seen


def test_rbc_intervals_go_through_the_fits_moment_tilt():
    mod = _grid_module()
    cls, seen = _tilted_grid()
    est = cls().fit(BINS)
    theta = est.density_ * np.diff(est.edges_)
    tilt = est._ci_moment_tilt(BINS, np.eye(3), BINS, S3)
    assert np.all(tilt.tilted()[1] != 0)
    x = np.array([0.5, 1.5])
    ci = est.conf_int("cdf", x, X=BINS, level=0.9)
    assert seen["S"] is S3
    np.testing.assert_array_equal(seen["start"], tilt.untilted)
    cov = mod.ems_covariance(np.eye(3), theta, S3, BINS, tilt)
    theta_bc, M = mod.ems_bias_correction(np.eye(3), theta, S3, lambda f: S3 @ f, tilt)
    W = mod.cell_cdf_weights(EDGES3, x)
    np.testing.assert_allclose(ci["estimate"], W @ theta_bc, atol=1e-12)
    se = np.sqrt(np.diag(W @ M @ cov @ M.T @ W.T))
    np.testing.assert_allclose(ci["se"], se, atol=1e-12)
    # without a tilt the refit starts from the fitted cells
    plain = _grid_estimator()().fit(BINS)
    starts = []
    plain._ci_ems_refit = lambda A, f, start: starts.append(start) or S3 @ f
    plain.conf_int("mean", X=BINS)
    np.testing.assert_allclose(starts[0], theta, atol=1e-15)


def test_the_refit_of_the_bias_correction_does_not_warn(monkeypatch):
    mod = _grid_module()
    # one EMS step: the refit stops before converging, quietly
    monkeypatch.setattr(mod, "ML_MAX_ITER", 1)

    class _Refit(_grid_estimator()):
        def _ci_ems_refit(self, A, frequencies, start):
            return mod.GridEMSIntervalsMixin._ci_ems_refit(self, A, frequencies, start)

    est = _Refit().fit(BINS)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = est._ci_ems_refit(np.eye(3), np.array([0.2, 0.5, 0.3]), None)
    assert got.shape == (3,) and got.sum() == pytest.approx(1.0)


def test_tilt_jacobians_inside_a_unit_distance_match_finite_differences():
    # a wider ellipse covariance: the moments 0.82 from the fit's, radius 0.5
    base_tilt = _tilt6(within=0.5)
    w = base_tilt.untilted / base_tilt.untilted.sum()

    def tilt(untilted, unit):
        return _grid_module().MomentTilt(
            FEATURES6, unit, untilted, 2.0 * base_tilt.moment_cov, 0.5
        )

    here = tilt(w, base_tilt.unit_moments)
    gap = FEATURES6.T @ w - here.target()
    dist = np.sqrt(gap @ np.linalg.inv(here.moment_cov) @ gap)
    assert 0.5 < dist < 1.0
    base, lam = here.tilted()
    assert lam is not None and np.all(lam != 0)
    J_w, J_mu = here.jacobians()
    dw = np.array([0.3, -0.2, 0.1, -0.4, 0.5, -0.3]) * w
    dw -= w * dw.sum()
    step = 1e-6
    moved = tilt(w + step * dw, base_tilt.unit_moments).tilted()[0]
    np.testing.assert_allclose((moved - base) / step, J_w @ dw, atol=1e-5)
    dmu = np.array([1e-2, -2e-2])
    shifted = tilt(w, base_tilt.unit_moments + step * dmu).tilted()[0]
    np.testing.assert_allclose((shifted - base) / step, J_mu @ dmu, atol=1e-5)


def test_smoothed_quantile_estimate_is_the_fits_own_quantile():
    # a CDF flat at 1/2 over the empty middle cell: the fit's quantile is
    # the left end of the flat part, inf{x : F(x) >= 1/2}
    est = _grid_estimator()().fit(BINS)
    est.density_ = np.array([0.5, 0.0, 0.5])
    assert est.quantile([0.5]).tolist() == [1.0]
    q = est.conf_int("quantile", [0.5], X=BINS, method="smoothed")
    assert q["estimate"].tolist() == [1.0]
