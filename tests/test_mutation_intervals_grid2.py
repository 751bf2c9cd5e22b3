"""Grid-EMS interval behaviour that mutation testing found unchecked (part 2).

The warning of the ``"smoothed"`` method (its text, category, and that it
comes once per ``conf_int`` call and only from that method), and the
``"rbc"`` intervals widened over the smoothing widths: the band a subclass
gives through ``_ci_width_band`` moves the bounds of the CDF (clipped to [0,
1]), quantile (by CDF test inversion) and mean intervals, and names the
widened target, while the ``"smoothed"`` method never asks for it.
"""

import warnings

import numpy as np
import pytest

from skprivate.exceptions import CoverageWarning
from tests.test_mutation_intervals_grid import (
    A6,
    BINS,
    BINS6,
    EDGES3,
    M6,
    S3,
    _grid_estimator,
    _grid_module,
    _hand_rbc,
    _tilt6,
)

SMOOTHED_WARNING = (
    "{}: method='smoothed' covers the EMS-smoothed target (the fixed point of "
    "the smoothed EM at the population law of the reports, at the chosen "
    "smoothing width), not the true value: the smoothing bias is not in the "
    "interval. Use the default method='rbc' for an interval of the true value."
)
WIDENED_NOTE = (
    "the fit's bias at the fitted law removed to first order; the union over "
    "the smoothing widths the held-out likelihood cannot tell from the chosen one "
    "(the wider ones only when the widest candidate is among them or the chosen "
    "width is the narrowest candidate)"
)
CORRECTED_NOTE = (
    "the fit's bias at the fitted law removed to first order; the smoothing "
    "width held at the fit's choice"
)


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        result = call()
    return result, caught


def test_smoothed_method_warns_once_per_call_with_its_exact_text():
    est = _grid_estimator()().fit(BINS)
    text = SMOOTHED_WARNING.format("_Grid")
    for name in ("smoothed", "linearized"):
        for kind, points in (("cdf", [0.5, 2.5]), ("quantile", [0.5]), ("mean", None)):
            # two levels: the cells are asked for twice, the warning comes once
            _, caught = _caught(
                lambda k=kind, p=points, m=name: est.conf_int(
                    k, p, X=BINS, method=m, level=[0.8, 0.9]
                )
            )
            assert [(w.category, str(w.message)) for w in caught] == [
                (CoverageWarning, text)
            ], (name, kind)
    # a second call warns again
    _, caught = _caught(lambda: est.conf_int("mean", X=BINS, method="smoothed"))
    assert [str(w.message) for w in caught] == [text]
    # the bias-corrected method and the bootstrap do not warn
    for method in ("auto", "rbc"):
        for kind, points in (("cdf", [0.5, 2.5]), ("quantile", [0.5]), ("mean", None)):
            _, caught = _caught(
                lambda k=kind, p=points, m=method: est.conf_int(
                    k, p, X=BINS, method=m, level=0.9
                )
            )
            assert caught == [], (method, kind)
    _, caught = _caught(
        lambda: est.conf_int(
            "mean", X=BINS, method="bootstrap", n_resamples=20, random_state=0
        )
    )
    assert not [w for w in caught if issubclass(w.category, CoverageWarning)]


def _banded():
    """The test estimator with a band over widths that depends on its inputs."""

    class _Banded(_grid_estimator()):
        def _ci_width_band(self, request, W, se):
            self.bands_.append((np.array(W), np.array(se)))
            # level 0.9: low = -0.1 - se - 0.01 * (row sum of W), high = 0.2 + se
            low = -(1.0 - request.level) - se - 0.01 * W.sum(axis=1)
            return low, 0.2 + se

        def fit(self, X, y=None):
            self.bands_ = []
            return super().fit(X, y)

    return _Banded


def test_rbc_cdf_and_mean_intervals_take_the_band_over_widths():
    _, _, theta_bc, cov_bc = _hand_rbc()
    est = _banded()().fit(BINS)
    x = np.array([0.0, 1.5, 3.0])
    W = np.array([[0.0, 0.0, 0.0], [1.0, 0.5, 0.0], [1.0, 1.0, 1.0]])
    F = W @ theta_bc
    se = np.sqrt(np.maximum(np.diag(W @ cov_bc @ W.T), 0.0))
    ci = est.conf_int("cdf", x, X=BINS, level=0.9)
    assert len(est.bands_) == 1
    np.testing.assert_allclose(est.bands_[0][0], W, atol=1e-15)
    # at x = 3 the variance is 0 up to rounding (1e-18): its root to 1e-8
    np.testing.assert_allclose(est.bands_[0][1], se, atol=1e-8)
    low = -0.1 - se - 0.01 * W.sum(axis=1)
    np.testing.assert_allclose(ci["lower"], np.clip(F + low, 0, 1), atol=1e-14)
    np.testing.assert_allclose(ci["upper"], np.clip(F + 0.2 + se, 0, 1), atol=1e-14)
    # the band reaches below 0 at x = 0 and above 1 at x = 3: both clipped
    assert ci["lower"].iloc[0] == 0.0 and ci["upper"].iloc[2] == 1.0
    assert 0.0 < ci["lower"].iloc[1] < ci["upper"].iloc[1] < 1.0
    np.testing.assert_allclose(ci["estimate"], np.clip(F, 0, 1), atol=1e-14)
    assert ci["method"].iloc[0] == "linearized EMS, bias-corrected (delta method)"
    assert ci["target"].iloc[0] == f"F(x), the true value ({WIDENED_NOTE})"
    # the mean: the band at the midpoints, not clipped
    mids = np.array([0.5, 1.5, 2.5])
    m_se = np.sqrt(mids @ cov_bc @ mids)
    mean = est.conf_int("mean", X=BINS, level=0.9)
    np.testing.assert_allclose(est.bands_[1][0], mids[None], atol=0)
    np.testing.assert_allclose(est.bands_[1][1], [m_se], atol=1e-14)
    estimate = mids @ theta_bc
    assert mean["estimate"].iloc[0] == pytest.approx(estimate, abs=1e-14)
    assert mean["lower"].iloc[0] == pytest.approx(
        estimate - 0.1 - m_se - 0.01 * mids.sum(), abs=1e-13
    )
    assert mean["upper"].iloc[0] == pytest.approx(estimate + 0.2 + m_se, abs=1e-13)
    assert mean["method"].iloc[0] == "linearized EMS, bias-corrected (delta method)"
    assert mean["target"].iloc[0] == f"E[X], the true value ({WIDENED_NOTE})"


def test_rbc_quantile_intervals_invert_the_banded_cdf_and_smoothed_ones_ignore_it():
    theta, cov, theta_bc, cov_bc = _hand_rbc()
    est = _banded()().fit(BINS)
    q = np.array([0.3, 0.5])
    ci = est.conf_int("quantile", q, X=BINS, level=0.9)
    assert len(est.bands_) == 1
    seen = []

    def band(W, se):
        seen.append(1)
        return -0.1 - se - 0.01 * W.sum(axis=1), 0.2 + se

    lower, upper = _grid_module()._quantile_inversion(
        EDGES3, theta_bc, cov_bc, q, 0.9, band=band
    )
    plain = _grid_module()._quantile_inversion(EDGES3, theta_bc, cov_bc, q, 0.9)
    assert seen == [1]
    assert (lower.tolist(), upper.tolist()) != (plain[0].tolist(), plain[1].tolist())
    assert ci["lower"].tolist() == lower.tolist()
    assert ci["upper"].tolist() == upper.tolist()
    assert ci["method"].iloc[0] == "linearized EMS, bias-corrected, CDF test inversion"
    assert ci["target"].iloc[0] == f"the quantile of X, the true value ({WIDENED_NOTE})"
    # the smoothed method asks for no band, for any kind
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoverageWarning)
        sq = est.conf_int("quantile", q, X=BINS, method="smoothed", level=0.9)
        scdf = est.conf_int("cdf", [0.0, 3.0], X=BINS, method="smoothed")
        smean = est.conf_int("mean", X=BINS, method="smoothed")
    assert len(est.bands_) == 1
    lower, upper = _grid_module()._quantile_inversion(EDGES3, theta, cov, q, 0.9)
    assert sq["lower"].tolist() == lower.tolist()
    assert sq["upper"].tolist() == upper.tolist()
    for frame in (sq, scdf, smean):
        assert "bias-corrected" not in frame["method"].iloc[0]
    # without a band (the default) the target names the held width
    plain_est = _grid_estimator()().fit(BINS)
    for kind, points, truth in (
        ("quantile", q, "the quantile of X"),
        ("cdf", [1.5], "F(x)"),
        ("mean", None, "E[X]"),
    ):
        frame = plain_est.conf_int(kind, points, X=BINS)
        assert frame["target"].iloc[0] == f"{truth}, the true value ({CORRECTED_NOTE})"


def test_quantile_inversion_with_a_band_keeps_both_boundary_points():
    # dyadic cells and no spread: the CDF on the grid of eighths is exact
    theta = np.array([0.25, 0.5, 0.25])
    given = []

    def band(W, se):
        given.append((W.shape, se.tolist()))
        return np.full(se.size, -0.125) - se, np.full(se.size, 0.0625) + se

    lower, upper = _grid_module()._quantile_inversion(
        EDGES3, theta, np.zeros((3, 3)), np.array([0.5]), 0.9, band=band
    )
    assert given == [((25, 3), [0.0] * 25)]
    # F + low <= 0.5 <= F + high: F from 0.4375 (at 1.375) to 0.625 (at 1.75),
    # both ends included
    assert (lower[0], upper[0]) == (1.375, 1.75)


def test_describe_holds_the_width_by_default():
    describe = _grid_module().GridEMSIntervalsMixin._ci_describe
    assert describe("rbc", "F(x)", " (delta method)") == (
        "linearized EMS, bias-corrected (delta method)",
        f"F(x), the true value ({CORRECTED_NOTE})",
    )


def test_cdf_weights_read_single_precision_edges_as_doubles():
    edges = np.array([0.0, 0.1, 0.35, 1.0], dtype=np.float32)
    x = np.array([0.05, 0.2, 0.7])
    W = _grid_module().cell_cdf_weights(edges, x)
    assert W.dtype == np.float64
    # the cell widths of the doubles, not of the singles (which differ by 3e-8)
    assert (
        W.tolist() == _grid_module().cell_cdf_weights(edges.astype(float), x).tolist()
    )


def test_grid_intervals_read_single_precision_edges_as_doubles():
    # edges that single precision holds exactly (their widths it does not)
    edges64 = np.array([0.0, 0.1, 0.35, 1.0], dtype=np.float32).astype(float)

    def fitted(dtype, scale=1.0):
        est = _grid_estimator()().fit(BINS)
        mass = est.density_  # cells of width 1 in the test estimator
        est.edges_ = edges64.astype(dtype)
        est.density_ = scale * mass / np.diff(edges64)
        return est

    for kind, points in (("cdf", [0.05, 0.2, 0.7]), ("mean", None)):
        double = fitted(np.float64).conf_int(kind, points, X=BINS)
        single = fitted(np.float32).conf_int(kind, points, X=BINS)
        # a density of total mass 2 (exact in binary): its cells are normalized
        doubled = fitted(np.float64, 2.0).conf_int(kind, points, X=BINS)
        for column in ("estimate", "se", "lower", "upper"):
            assert single[column].tolist() == double[column].tolist(), (kind, column)
            assert doubled[column].tolist() == double[column].tolist(), (kind, column)


def test_moment_tilt_reads_single_precision_moments_and_masses_as_doubles():
    base = _tilt6(within=0.5)
    unit = base.unit_moments.astype(np.float32)
    untilted = base.untilted.astype(np.float32)

    def tilt(cast):
        return _grid_module().MomentTilt(
            base.features, cast(unit), cast(untilted), base.moment_cov, 0.5
        )

    # the same numbers in both precisions: the singles widened to doubles
    single, double = tilt(np.asarray), tilt(lambda a: a.astype(float))
    assert single.target().dtype == np.float64
    assert single.target().tolist() == double.target().tolist()
    (w, lam), (w2, lam2) = single.tilted(), double.tilted()
    assert lam is not None and np.all(lam != 0)
    assert w.tolist() == w2.tolist() and lam.tolist() == lam2.tolist()
    for got, want in zip(single.jacobians(), double.jacobians()):
        assert got.tolist() == want.tolist()


def test_covariance_and_correction_read_single_precision_inputs_as_doubles():
    mod = _grid_module()
    base = _tilt6()
    unit = base.unit_moments.astype(np.float32)
    S = mod.smoothing_matrix(M6, 1.0)
    w_t = base.tilted()[0]

    def covariance(cast):
        tilt = mod.MomentTilt(
            base.features, cast(unit), base.untilted, base.moment_cov, 0.0
        )
        return mod.ems_covariance(A6, w_t, S, BINS6, tilt)

    single = covariance(np.asarray)
    assert single.tolist() == covariance(lambda a: a.astype(float)).tolist()
    # a refit that returns singles (unnormalized: the division must be in
    # doubles): the same correction as its doubles
    theta = _hand_rbc()[0]

    def corrected(cast):
        return mod.ems_bias_correction(
            np.eye(3),
            theta,
            S3,
            lambda f: cast((3.0 * S3 @ f).astype(np.float32)),
            None,
        )

    got, want = corrected(np.asarray), corrected(lambda a: a.astype(float))
    assert got[0].tolist() == want[0].tolist()
    assert got[1].tolist() == want[1].tolist()
