"""Grid-EMS interval behaviour that mutation testing found unchecked (part 3).

The linear algebra of the delta method on exact small cases (the derivative
of plain EM as the inverse of the reports' law, the tilt's derivative when
only the mean is matched or a cell is empty), and the precision of the
computations: inputs in single or extended precision (a release stored as
``float32``, a density or a band given in ``longdouble``) are read as
doubles, so they give the intervals of the same numbers in double
precision.
"""

import warnings

import numpy as np
import pytest

from tests.test_mutation_intervals_grid import (
    BINS,
    EDGES3,
    FEATURES6,
    S3,
    _grid_estimator,
    _grid_module,
    _tilt6,
)

COLUMNS = ["estimate", "se", "lower", "upper"]


def _same_intervals(got, want, what=""):
    np.testing.assert_array_equal(
        got[COLUMNS].to_numpy(), want[COLUMNS].to_numpy(), err_msg=str(what)
    )


def test_plain_em_derivative_is_the_inverse_of_the_reports_law_on_the_simplex():
    """Plain EM's interior fixed point solves A theta = t: its derivative is A^-1."""
    mod = _grid_module()
    A = np.array([[0.75, 0.25], [0.25, 0.75]])
    theta = np.array([0.5, 0.5])
    # A^-1 = [[1.5, -0.5], [-0.5, 1.5]]; on the simplex [[1, -1], [-1, 1]],
    # every step of the solve exact in binary
    G = mod.ems_gradient(A, theta, None, A @ theta)
    assert G.tolist() == [[1.0, -1.0], [-1.0, 1.0]]


def test_ems_derivatives_read_extended_precision_inputs_as_doubles():
    """The EMS derivative and bias correction compute in doubles from any input."""
    mod = _grid_module()
    A = np.array([[0.75, 0.25], [0.25, 0.75]])
    theta = np.array([0.5, 0.5])
    for a, th in ((A.astype(np.longdouble), theta), (A, theta.astype(np.longdouble))):
        G = mod.ems_gradient(a, th, None, A @ theta)
        assert G.dtype == np.float64
        assert G.tolist() == [[1.0, -1.0], [-1.0, 1.0]]
    theta3 = np.array([0.2, 0.5, 0.3])
    want = mod.ems_bias_correction(np.eye(3), theta3, S3, lambda t: S3 @ t)
    for a, th in (
        (np.eye(3, dtype=np.longdouble), theta3),
        (np.eye(3), theta3.astype(np.longdouble)),
    ):
        got = mod.ems_bias_correction(a, th, S3, lambda t: S3 @ t)
        for g, w in zip(got, want):
            assert g.dtype == np.float64
            assert g.tolist() == w.tolist()


def test_bias_correction_through_the_tilt_reads_extended_precision_features():
    """The tilt's features enter the corrected cells and their derivative as doubles."""
    mod = _grid_module()
    base = _tilt6(within=0.5)
    S = mod.smoothing_matrix(6, 1.0)
    theta = base.tilted()[0]
    A6 = np.eye(6)

    def corrected(features):
        tilt = mod.MomentTilt(
            features, base.unit_moments, base.untilted, base.moment_cov, 0.5
        )
        return mod.ems_bias_correction(A6, theta, S, lambda t: S @ t, tilt)

    got = corrected(FEATURES6.astype(np.longdouble))
    want = corrected(FEATURES6)
    for g, w in zip(got, want):
        assert g.dtype == np.float64
        assert g.tolist() == w.tolist()


def test_cdf_weights_read_extended_precision_points_as_doubles():
    """cell_cdf_weights rounds the points to doubles before reading their cells."""
    mod = _grid_module()
    x = np.array([1, 4, 7], dtype=np.longdouble) / 3
    W = mod.cell_cdf_weights(EDGES3, x)
    assert W.dtype == np.float64
    assert W.tolist() == mod.cell_cdf_weights(EDGES3, x.astype(float)).tolist()


def test_moment_tilt_reads_its_inputs_in_any_precision_as_doubles():
    """A tilt reads its features, ellipse and untilted masses as doubles."""
    mod = _grid_module()
    base = _tilt6(within=0.5)
    # masses of total 3 (the normalization then rounds) and a covariance in
    # single precision; features in extended precision
    untilted = (3.0 * base.untilted).astype(np.float32)
    cov = base.moment_cov.astype(np.float32)
    features = FEATURES6.astype(np.longdouble)

    def tilt(cast, feats):
        return mod.MomentTilt(feats, base.unit_moments, cast(untilted), cast(cov), 0.5)

    single = tilt(np.asarray, features)
    double = tilt(lambda a: a.astype(float), features.astype(float))
    (w, lam), (w2, lam2) = single.tilted(), double.tilted()
    assert lam is not None and np.all(lam != 0)
    assert w.dtype == np.float64
    assert w.tolist() == w2.tolist() and lam.tolist() == lam2.tolist()
    for got, want in zip(single.jacobians(), double.jacobians()):
        assert got.dtype == np.float64
        assert got.tolist() == want.tolist()


def test_tilt_matching_only_the_mean_has_no_derivative_in_the_second_moment():
    """A second feature affine in the first: only the mean is matched, and moves."""
    mod = _grid_module()
    mids = np.array([0.5, 1.5, 2.5])
    features = np.column_stack([mids, 2.0 * mids + 1.0])
    reports = mids[BINS]
    unit = np.column_stack([reports.mean(axis=1), 2.0 * reports.mean(axis=1) + 1.0])
    tilt = mod.MomentTilt(features, unit, np.array([0.2, 0.3, 0.5]), np.eye(2), 0.0)
    w_t, lam = tilt.tilted()
    assert lam[0] != 0 and lam[1] == 0
    assert float(w_t @ mids) == pytest.approx(unit[:, 0].mean(), abs=1e-12)
    J_w, J_mu = tilt.jacobians()
    # the mean-matching tilt w'_i ~ w_i exp(l x_i) moves with the target mean
    # as w' (x - mean) / Var_w'(x); the second target does not move it
    centred = mids - w_t @ mids
    np.testing.assert_allclose(
        J_mu[:, 0], w_t * centred / (w_t @ centred**2), atol=1e-12
    )
    assert J_mu[:, 1].tolist() == [0.0, 0.0, 0.0]
    # and a change of the untilted masses keeps the matched mean
    np.testing.assert_allclose(mids @ J_w, 0.0, atol=1e-12)


def test_tilt_keeps_empty_cells_empty_to_first_order():
    """An empty untilted cell stays empty: its rows of J_w and J_mu are zero."""
    mod = _grid_module()
    m = 200  # arrays beyond numpy's small-block cache
    mids = (np.arange(m) + 0.5) / m
    features = np.column_stack([mids, mids**2 + 0.01])
    w = np.exp(-0.5 * ((mids - 0.5) / 0.2) ** 2)
    empty = np.r_[0:3, m - 2 : m]
    w[empty] = 0.0
    unit = np.array([[0.3, 0.14], [0.6, 0.38], [0.5, 0.3], [0.4, 0.2]])
    cov = np.cov(unit, rowvar=False) / 4
    for within in (0.0, 0.5):
        tilt = mod.MomentTilt(features, unit, w, cov, within)
        w_t, lam = tilt.tilted()
        assert np.all(lam != 0) and np.all(w_t[empty] == 0.0)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            J_w, J_mu = tilt.jacobians()
        assert np.all(J_w[empty] == 0.0) and np.all(J_mu[empty] == 0.0)
        # matched exactly, the target does not depend on the masses: nothing
        # moves into an empty cell either
        if within == 0.0:
            assert np.all(J_w[:, empty] == 0.0)


def test_widened_band_in_extended_precision_is_added_in_doubles():
    """The bounds over widths are the estimate plus the band rounded to doubles."""

    class _Banded(_grid_estimator()):
        def _ci_width_band(self, request, W, se):
            third = np.full(se.size, 1, dtype=np.longdouble) / 3
            return -third, third / 2

    est = _Banded().fit(BINS)
    low = -float(np.longdouble(1) / 3)
    high = float(np.longdouble(1) / 3 / 2)
    for kind, points, clip in (("cdf", [0.7, 1.3], (0.0, 1.0)), ("mean", None, None)):
        ci = est.conf_int(kind, points, X=BINS)
        estimate = ci["estimate"].to_numpy()
        for column, bound in (("lower", low), ("upper", high)):
            want = estimate + bound
            if clip is not None:
                want = np.clip(want, *clip)
            assert ci[column].dtype == np.float64, (kind, column)
            assert ci[column].tolist() == want.tolist(), (kind, column)


def test_grid_intervals_read_an_extended_precision_density_as_doubles():
    """A density_ in longdouble gives the intervals of its values rounded to doubles."""

    def fitted(dtype):
        est = _grid_estimator()().fit(BINS)
        est.density_ = (np.array([1.0, 3.0, 5.0], dtype=np.longdouble) / 9).astype(
            dtype
        )
        return est

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for method in ("rbc", "smoothed"):
            for kind, points in (("cdf", [0.7, 1.3, 2.9]), ("mean", None)):
                got = fitted(np.longdouble).conf_int(
                    kind, points, X=BINS, method=method
                )
                want = fitted(np.float64).conf_int(kind, points, X=BINS, method=method)
                _same_intervals(got, want, (method, kind))


def test_refit_hook_is_given_the_system_matrix_as_doubles():
    """_ci_ems_refit receives A as float64 even when _ci_ems_system gives integers."""
    given = []

    class _IntegerSystem(_grid_estimator()):
        def _ci_ems_system(self, X):
            return np.eye(3, dtype=np.int64), X.astype(int), S3

        def _ci_ems_refit(self, A, frequencies, start):
            given.append(A.dtype)
            return S3 @ frequencies

    est = _IntegerSystem().fit(BINS)
    got = est.conf_int("cdf", [0.7, 1.3], X=BINS)
    want = _grid_estimator()().fit(BINS).conf_int("cdf", [0.7, 1.3], X=BINS)
    assert given == [np.float64]
    _same_intervals(got, want)


def test_square_wave_intervals_read_single_precision_reports_as_doubles():
    """Reports stored in float32 are binned as their doubles, at a bin edge too."""
    from skprivate import SquareWaveEMSEstimator, SquareWaveLDP

    a, b, eps = 2.0, 12.0, 1.0
    x = np.linspace(3, 11, 40)[:, None]
    reports = SquareWaveLDP(epsilon=eps, bounds=(a, b), random_state=0).fit_transform(x)
    # reports within a float32 rounding of an output-bin edge: (r - 2) / 10
    # in single precision falls in the other bin
    reports[:5, 0] = [
        0.38427430391311646,
        6.054896354675293,
        7.945103645324707,
        8.890207290649414,
        13.61572551727295,
    ]
    single = reports.astype(np.float32)
    est = SquareWaveEMSEstimator(epsilon=eps, bounds=(a, b), n_points=16).fit(
        single.astype(float)
    )
    for kind, points in (("cdf", [5.0, 9.0]), ("quantile", [0.5])):
        got = est.conf_int(kind, points, X=single)
        want = est.conf_int(kind, points, X=single.astype(float))
        _same_intervals(got, want, kind)
