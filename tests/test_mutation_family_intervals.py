"""Interval code of the families that mutation testing found unchecked.

Each test pins a documented ``conf_int`` behaviour with an exact small case:
the variance and the ends of the interval computed by hand from the
documented formula (by quadrature or a closed form, not by the code under
test), the level honoured, the declared target, the clipping rules and the
refusals with their messages.  ``benchmarks/_mutation_specs_family_intervals.py``
lists the mutants each module's tests were checked against.
"""

import functools
import os
import re
import warnings

import numpy as np
import pytest
from scipy import integrate, stats

from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
)
from skprivate._grid_density._intervals import (
    binomial_filter_matrix,
    cell_cdf_weights,
    ems_covariance,
    smoothing_matrix,
)
from skprivate._uncertainty import bootstrap_replicates
from skprivate.exceptions import NotIdentifiableWarning
from skprivate.ldp import (
    LaplaceLDP,
    PerturbedKDEEstimator,
    SquareWaveEMSEstimator,
    SquareWaveLDP,
    deconvolution_kernel,
)
from skprivate.ldp._intervals import (
    fieller_interval,
    integrated_kernel,
    interval_kernel,
    square_wave_moment_terms,
)
from skprivate.ldp._transitions import (
    _noise_law,
    additive_transition,
    square_wave_transition,
)


def _exact(message):
    """The whole of an error message (a changed prefix or suffix fails too)."""
    return "^" + re.escape(message) + "$"


# the tiny samples here are far from the sizes the estimators are meant for
pytestmark = [
    pytest.mark.filterwarnings("ignore::skprivate.exceptions.CoverageWarning"),
    pytest.mark.filterwarnings("ignore::skprivate.exceptions.NotIdentifiableWarning"),
]

Z90 = stats.norm.ppf(0.95)


Z4 = np.array([-0.5, 0.1, 0.4, 1.2])
H, B, LOW, HIGH = 0.8, 0.3, -2.0, 2.0


def _kernel(u, rbc):
    """The (fourth-order) deconvolution kernel from its documented form."""
    r = B / H
    if not rbc:
        return deconvolution_kernel(u, r)
    # L = (3 - u**2) phi / 2 = 1.5 K - 0.5 u**2 K, deconvolved term by term
    return 1.5 * deconvolution_kernel(u, r) - 0.5 * deconvolution_kernel(u, r, order=2)


def _dens(t, zi, rbc, reflect):
    out = _kernel((t - zi) / H, rbc) / H
    if reflect:
        out += _kernel((2 * LOW - t - zi) / H, rbc) / H
        out += _kernel((2 * HIGH - t - zi) / H, rbc) / H
    return out


@functools.cache
def _integral(lo, hi, zi, rbc, reflect):
    return integrate.quad(_dens, lo, hi, args=(zi, rbc, reflect), epsabs=1e-12)[0]


def _terms(x, what, rbc, reflect=True):
    """Per-record terms of the estimate at x and of its mass, by quadrature."""
    mass = np.array([_integral(LOW, HIGH, zi, rbc, reflect) for zi in Z4])
    if what == "pdf":
        c = np.array([_dens(x, zi, rbc, reflect) for zi in Z4])
    else:
        c = np.array([_integral(LOW, x, zi, rbc, reflect) for zi in Z4])
    return c, mass


def _ratio_by_hand(x, what, rbc, reflect=True):
    c, mass = _terms(x, what, rbc, reflect)
    R = c.mean() / mass.mean()
    psi = (c - R * mass) / mass.mean()
    return R, psi.std(ddof=1) / 2.0  # sqrt(n) = 2


def _kde(**kw):
    return DeconvolutionKernelDensity(
        bandwidth=H, noise_scale=B, support=(LOW, HIGH), **kw
    ).fit(Z4[:, None])


def _parts(K, y):
    return np.array([[K @ y, K.sum(), K @ K, K**2 @ y, K**2 @ y**2, K.size]])


def _fieller_by_hand(K, y, level):
    """The ends of {t: (N - t D)**2 <= z**2 V(t)} from the quadratic's roots."""
    z2 = stats.norm.ppf(0.5 + level / 2) ** 2
    n = K.size
    # (N - t D)**2 (1 + z2 / n) - z2 sum K**2 (y - t)**2 <= 0
    N, D = K @ y, K.sum()
    quad = (1 + z2 / n) * np.array([D * D, -2 * N * D, N * N]) - z2 * np.array(
        [K @ K, -2 * (K**2 @ y), K**2 @ y**2]
    )
    if quad[0] <= 0:  # D not significant: every t is kept
        return -np.inf, np.inf
    roots = np.sort(np.roots(quad).real)
    return roots[0], roots[1]


ZR = np.array([-1.0, -0.4, 0.0, 0.3, 0.8, 1.5])


YR = np.array([0.5, 1.0, 0.2, 1.4, 2.0, 2.2])
HR, BR = 0.9, 0.25


def _regressor(degree, **kw):
    return DeconvolutionKernelRegressor(
        bandwidth=HR, degree=degree, noise_scale=BR, **kw
    ).fit(ZR[:, None], YR)


def _local_constant_by_hand(x, rbc, y=YR, level=0.95):
    u = (ZR - x) / HR
    r = BR / HR
    K = (
        1.5 * deconvolution_kernel(u, r) - 0.5 * deconvolution_kernel(u, r, order=2)
        if rbc
        else deconvolution_kernel(u, r)
    )
    m = K @ y / K.sum()
    se = np.sqrt(np.sum((K * (y - m)) ** 2)) / K.sum()
    return m, se, _fieller_by_hand(K, y, level)


def _quantile_by_hand(kde, q, level, method, X=None):
    """The documented inversion, from the CDF intervals on the two grids.

    A coarse grid of 65 points of the support; around the points whose CDF
    is within 3.29 (the 0.999 level) standard errors of q (or the first
    point at or above q), one coarse step either side, a fine grid of 129
    points; the estimate interpolates the CDF linearly across q, the
    interval is the fine points whose CDF interval holds q.
    """

    def cdf(x):
        got = kde.conf_int("cdf", x, method=method, X=X)
        return got["estimate"].to_numpy(), got["se"].to_numpy()

    coarse = np.linspace(LOW, HIGH, 65)
    Fc, sc = cdf(coarse)
    wide = np.flatnonzero(np.abs(Fc - q) <= 3.29 * sc)
    if wide.size == 0:
        wide = np.flatnonzero(q <= Fc)[:1]
        wide = wide if wide.size else np.array([64])
    grid = np.linspace(coarse[max(wide[0] - 1, 0)], coarse[min(wide[-1] + 1, 64)], 129)
    F, se = cdf(grid)
    i = np.flatnonzero(q <= F)
    i = i[0] if i.size else 128
    if i > 0 and F[i] > F[i - 1]:
        frac = np.clip((q - F[i - 1]) / (F[i] - F[i - 1]), 0, 1)
        estimate = grid[i - 1] + frac * (grid[i] - grid[i - 1])
    else:
        estimate = grid[i]
    ok = np.flatnonzero(np.abs(F - q) <= stats.norm.ppf(0.5 + level / 2) * se)
    if ok.size:
        return estimate, grid[ok[0]], grid[ok[-1]]
    return estimate, estimate, estimate


def _two_features():
    rng = np.random.default_rng(1)
    Z = rng.normal(size=(12, 2))
    y = Z[:, 0] - Z[:, 1] + 0.1 * rng.normal(size=12)
    return Z, y


# -- the tests, the fastest first (a mutant stops at its first failure) --------


def test_integrated_kernel_closed_forms_at_a_point():
    v, ratio = np.array([0.7, -1.3]), 0.6
    r = ratio**2
    phi, cdf = stats.norm.pdf(v), stats.norm.cdf(v)
    order0 = cdf + r * v * phi
    np.testing.assert_allclose(integrated_kernel(v, ratio, "gaussian", False), order0)
    order2 = cdf - v * phi - r * (2 * v - v**3) * phi
    np.testing.assert_allclose(
        integrated_kernel(v, ratio, "gaussian", True), 1.5 * order0 - 0.5 * order2
    )
    cauchy = 0.5 + np.arctan(v) / np.pi + 2 * r * v / (np.pi * (1 + v**2) ** 2)
    np.testing.assert_allclose(integrated_kernel(v, ratio, "cauchy", False), cauchy)
    with pytest.raises(
        ValueError, match=_exact("the Cauchy kernel has no fourth-order version.")
    ):
        integrated_kernel(v, ratio, "cauchy", True)
    # the fourth-order kernel without noise: (3 - u**2) phi(u) / 2
    np.testing.assert_allclose(
        interval_kernel(v, 0.0, "gaussian", True), (3 - v**2) * phi / 2
    )
    np.testing.assert_allclose(
        interval_kernel(v, ratio, "cauchy", False),
        deconvolution_kernel(v, ratio, "cauchy"),
    )


def test_fieller_interval_ends_are_the_roots_at_each_level():
    K = np.array([1.0, 0.5, 2.0, 1.5, 0.8])
    y = np.array([0.3, 1.1, 2.0, -0.4, 0.9])
    for level in (0.5, 0.9, 0.99):
        lower, upper = fieller_interval(_parts(K, y), level)
        assert (lower[0], upper[0]) == pytest.approx(
            _fieller_by_hand(K, y, level), rel=1e-10
        )
    # the example of the docstring: equal weights
    lower, upper = fieller_interval(
        _parts(np.ones(4), np.array([0.0, 1.0, 2.0, 3.0])), 0.95
    )
    assert (lower[0], upper[0]) == pytest.approx((0.4043, 2.5957), abs=1e-4)
    # several rows at once, in order
    both = np.vstack([_parts(K, y), _parts(np.ones(4), np.arange(4.0))])
    lower, upper = fieller_interval(both, 0.9)
    assert lower[0] == pytest.approx(_fieller_by_hand(K, y, 0.9)[0], rel=1e-10)
    assert upper[1] == pytest.approx(
        _fieller_by_hand(np.ones(4), np.arange(4.0), 0.9)[1], rel=1e-10
    )


def test_fieller_interval_is_the_whole_line_exactly_when_d_is_not_significant():
    z2 = stats.norm.ppf(0.975) ** 2
    n = 50.0
    zp2 = z2 / (1 + z2 / n)
    D = 3.0
    # the denominator exactly at the edge of significance: D**2 = z'**2 sum K**2
    S2 = D * D / zp2
    for _ in range(50):
        if D * D - zp2 * S2 == 0:
            break
        S2 = np.nextafter(S2, np.inf if zp2 * S2 < D * D else -np.inf)
    assert D * D - zp2 * S2 == 0
    for s2 in (S2, 2 * S2):
        # no 0 / 0 is reported on the way (the bounded branch is not taken)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            lower, upper = fieller_interval(np.array([1.0, D, s2, 1.0, 1.0, n]), 0.95)
        assert (lower[0], upper[0]) == (-np.inf, np.inf)
    # just significant: bounded, with D**2 - z'**2 S2 below 1
    lower, upper = fieller_interval(
        np.array([1.0, D, S2 * (1 - 1e-3), 0.4, 0.9, n]), 0.95
    )
    assert np.isfinite([lower[0], upper[0]]).all()


def test_fieller_interval_of_constant_responses_is_the_point():
    # y_i = 2 for all i: (N - t D)**2 = D**2 (2 - t)**2 and V(t) = S2 (2 - t)**2,
    # so only t = 2 is not rejected when D is significant
    K = np.array([1.0, 2.0, 1.5, 0.7, 1.2, 0.9])
    lower, upper = fieller_interval(_parts(K, np.full(6, 2.0)), 0.95)
    assert lower[0] == pytest.approx(2.0, abs=1e-6)
    assert upper[0] == pytest.approx(2.0, abs=1e-6)


def test_square_wave_moment_terms_from_the_mechanism_constants():
    for eps in (0.3, 1.0, 2.5):
        e = np.exp(eps)
        w = (eps * e - e + 1) / (2 * e * (e - 1 - eps))
        p = 2 * w * e / (2 * w * e + 1)  # probability of the band around v
        s, c = square_wave_moment_terms(eps)
        assert s == pytest.approx(p * (1 + 2 * w) - 2 * w, rel=1e-9)
        assert c == pytest.approx((1 - p) * (0.5 + w), rel=1e-9)


def test_square_wave_moment_mean_interval_by_hand():
    a, b, eps = 2.0, 12.0, 1.0
    x = np.linspace(3, 11, 6)[:, None]
    reports = SquareWaveLDP(epsilon=eps, bounds=(a, b), random_state=0).fit_transform(x)
    est = SquareWaveEMSEstimator(epsilon=eps, bounds=(a, b)).fit(reports)
    s, c = square_wave_moment_terms(eps)
    v = (reports[:, 0] - a) / (b - a)
    mean = a + (b - a) * (v.mean() - c) / s
    se = (b - a) * v.std(ddof=1) / (s * np.sqrt(6))
    ci = est.conf_int("mean", X=reports, level=0.9).iloc[0]
    assert ci["method"] == "moment (unbiased)"
    assert ci["estimate"] == pytest.approx(mean, rel=1e-9)
    assert ci["se"] == pytest.approx(se, rel=1e-9)
    assert (ci["lower"], ci["upper"]) == pytest.approx(
        (mean - Z90 * se, mean + Z90 * se), rel=1e-9
    )
    # rows of several reports: each respondent's mean report is one unit
    two = np.column_stack([reports[:, 0], reports[::-1, 0]])
    u = (two.mean(axis=1) - a) / (b - a)
    one = est.conf_int("mean", X=reports[:, 0]).iloc[0]
    assert one["estimate"] == pytest.approx(mean, rel=1e-9)
    got = est.conf_int("mean", X=two).iloc[0]
    assert got["estimate"] == pytest.approx(a + (b - a) * (u.mean() - c) / s)


@pytest.mark.parametrize("smoothing", [True, False, "auto"])
def test_square_wave_smoothed_intervals_are_the_delta_method_of_its_ems(smoothing):
    a, b, eps, m = 2.0, 12.0, 1.0, 16
    x = np.linspace(3, 11, 40)[:, None]
    reports = SquareWaveLDP(epsilon=eps, bounds=(a, b), random_state=0).fit_transform(x)
    est = SquareWaveEMSEstimator(
        epsilon=eps,
        bounds=(a, b),
        n_points=m,
        smoothing=smoothing,
        moment_correction=False,
    ).fit(reports)
    # the EM system from the mechanism: reports binned in its output cells
    A, out_edges = square_wave_transition(np.linspace(0.0, 1.0, m + 1), eps)
    v = (reports - a) / (b - a)
    bins = np.clip(np.searchsorted(out_edges, v, side="right") - 1, 0, A.shape[0] - 1)
    if smoothing == "auto":
        S = smoothing_matrix(m, est.smoothing_width_)
    else:
        S = binomial_filter_matrix(m) if smoothing else None
    theta = est.density_ * np.diff(est.edges_)
    theta = theta / theta.sum()
    cov = ems_covariance(A, theta, S, bins)
    W = cell_cdf_weights(est.edges_, np.array([5.0, 8.0]))
    cdf = est.conf_int("cdf", [5.0, 8.0], X=reports, method="smoothed")
    np.testing.assert_allclose(cdf["se"], np.sqrt(np.diag(W @ cov @ W.T)), rtol=1e-8)
    mids = 0.5 * (est.edges_[:-1] + est.edges_[1:])
    mean = est.conf_int("mean", X=reports, method="smoothed").iloc[0]
    assert mean["estimate"] == pytest.approx(mids @ theta)
    assert mean["se"] == pytest.approx(np.sqrt(mids @ cov @ mids), rel=1e-8)


@pytest.mark.parametrize("rbc", [False, True])
def test_local_constant_prediction_interval_is_fieller_around_the_ratio(rbc):
    reg = _regressor(0)
    # at -1.5 the kernel sum is in (0, 1): 0.68 (smoothed), 0.49 (rbc)
    x = np.array([[0.0], [0.5], [-1.5]])
    ci = reg.conf_int("predict", x, level=0.9, method="rbc" if rbc else "smoothed")
    for i in range(3):
        m, se, ends = _local_constant_by_hand(x[i, 0], rbc, level=0.9)
        row = ci.iloc[i]
        assert row["estimate"] == pytest.approx(m, rel=1e-9)
        assert row["se"] == pytest.approx(se, rel=1e-9)
        assert (row["lower"], row["upper"]) == pytest.approx(ends, rel=1e-9)
        assert row["level"] == 0.9
    if rbc:
        assert set(ci["method"]) == {"rbc (fourth-order kernel, sandwich)"}
        assert set(ci["target"]) == {"E[y | x]"}
    else:
        assert set(ci["method"]) == {"smoothed (sandwich)"}
        assert set(ci["target"]) == {"E[y | x] smoothed at the bandwidth"}
    # rbc is the default of a local constant fit with the Gaussian kernel
    default = reg.conf_int("predict", x, level=0.9)
    assert default["estimate"].tolist() == pytest.approx(
        [_local_constant_by_hand(v, True)[0] for v in x[:, 0]], rel=1e-9
    )


def test_local_linear_prediction_interval_is_its_sandwich():
    reg = _regressor(1)
    x = np.array([[0.0], [0.5]])
    ci = reg.conf_int("predict", x, level=0.9)
    assert set(ci["method"]) == {"smoothed (sandwich)"}
    r = BR / HR
    for i, x0 in enumerate(x[:, 0]):
        u = (ZR - x0) / HR
        L0, L1, L2 = (deconvolution_kernel(u, r, order=k) for k in (0, 1, 2))
        M = np.array([[L0.sum(), L1.sum()], [L1.sum(), L2.sum()]])
        beta = np.linalg.solve(M, np.array([L0 @ YR, L1 @ YR]))
        # estimating functions of each record at the solution
        psi = np.column_stack(
            [
                L0 * YR - (L0 * beta[0] + L1 * beta[1]),
                L1 * YR - (L1 * beta[0] + L2 * beta[1]),
            ]
        )
        Minv = np.linalg.inv(M)
        se = np.sqrt((Minv @ psi.T @ psi @ Minv.T)[0, 0])
        row = ci.iloc[i]
        assert row["estimate"] == pytest.approx(beta[0], rel=1e-9)
        assert row["se"] == pytest.approx(se, rel=1e-9)
        assert (row["lower"], row["upper"]) == pytest.approx(
            (beta[0] - Z90 * se, beta[0] + Z90 * se), rel=1e-9
        )
    # the same data passed explicitly, as a 1-d X
    again = reg.conf_int("predict", x, level=0.9, X=ZR, y=YR)
    np.testing.assert_allclose(again["se"], ci["se"], rtol=1e-12)


def test_local_linear_of_two_features_is_its_sandwich():
    Z, y = _two_features()
    reg = DeconvolutionKernelRegressor(
        bandwidth=1.0, degree=1, noise_scale=[0.2, 0.3]
    ).fit(Z, y)
    x = np.array([0.5, -0.3])
    U = Z - x
    r = (0.2, 0.3)

    def L(o1, o2):
        return deconvolution_kernel(U[:, 0], r[0], order=o1) * deconvolution_kernel(
            U[:, 1], r[1], order=o2
        )

    # L[a][b]: the kernel of the product of the a-th and b-th regressors
    # (1, u1, u2), deconvolved
    orders = [(0, 0), (1, 0), (0, 1)]
    Lab = [
        [L(orders[a][0] + orders[b][0], orders[a][1] + orders[b][1]) for b in range(3)]
        for a in range(3)
    ]
    M = np.array([[Lab[a][b].sum() for b in range(3)] for a in range(3)])
    t = np.array([Lab[0][a] @ y for a in range(3)])
    beta = np.linalg.solve(M, t)
    psi = np.column_stack(
        [Lab[0][a] * y - sum(Lab[a][b] * beta[b] for b in range(3)) for a in range(3)]
    )
    Minv = np.linalg.inv(M)
    se = np.sqrt((Minv @ psi.T @ psi @ Minv.T)[0, 0])
    ci = reg.conf_int("predict", x[None, :]).iloc[0]
    assert ci["estimate"] == pytest.approx(beta[0], rel=1e-9)
    assert ci["se"] == pytest.approx(se, rel=1e-9)


def test_local_constant_of_two_features_multiplies_the_kernels():
    Z, y = _two_features()
    reg = DeconvolutionKernelRegressor(
        bandwidth=1.0, degree=0, noise_scale=[0.2, 0.3]
    ).fit(Z, y)
    points = np.array([[0.0, 0.0], [0.5, -0.3]])
    for method, rbc in (("smoothed", False), ("rbc", True)):
        ci = reg.conf_int("predict", points, method=method)
        assert ci["point"].tolist() == [(0.0, 0.0), (0.5, -0.3)]
        for i, x in enumerate(points):
            K = np.ones(12)
            for j, b in enumerate((0.2, 0.3)):
                u = Z[:, j] - x[j]
                K = K * (
                    interval_kernel(u, b, "gaussian", True)
                    if rbc
                    else deconvolution_kernel(u, b)
                )
            m = K @ y / K.sum()
            assert ci["estimate"].iloc[i] == pytest.approx(m, rel=1e-9)
            assert ci["se"].iloc[i] == pytest.approx(
                np.sqrt(np.sum((K * (y - m)) ** 2)) / K.sum(), rel=1e-9
            )


def test_prediction_interval_refusals_and_fallback():
    reg = _regressor(1)
    with pytest.raises(
        ValueError, match=_exact("points= is required: the clean feature rows.")
    ):
        reg.conf_int("predict")
    with pytest.raises(
        ValueError,
        match=_exact(
            "method='rbc' needs degree=0 and kernel='gaussian'; use "
            "method='smoothed' or 'bootstrap'."
        ),
    ):
        reg.conf_int("predict", [[0.0]], method="rbc")
    with pytest.raises(
        ValueError,
        match=_exact("X and y have inconsistent numbers of samples: 6 and 5."),
    ):
        reg.conf_int("predict", [[0.0]], X=ZR, y=YR[:5])
    # a point far from the records falls back to the mean: the estimate is
    # the value predict falls back to, and no interval
    reg0 = _regressor(0)
    ci = reg0.conf_int("predict", [[0.0], [3.0]])
    assert reg0.fallback_mask([[0.0], [3.0]]).tolist() == [False, True]
    # far from every record the kernel sum is exactly 0: the fallback, named
    # by one NotIdentifiableWarning and no other warning (no 0 / 0 computed
    # on the way); integer rows are read as floats
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # the smoothed interval's own CoverageWarning is expected
        warnings.filterwarnings("ignore", "DeconvolutionKernelRegressor: the smoothed")
        far = reg0.conf_int("predict", [[50], [0]], method="smoothed")
    assert [w.category for w in caught] == [NotIdentifiableWarning]
    assert str(caught[0].message) == (
        "DeconvolutionKernelRegressor: the predict interval is NaN at 1 "
        "point(s), (50), where predict falls back to the training mean (see "
        "fallback_mask: no records near them, or kernel weights that cannot be "
        "told from zero): the records do not identify E[y | x] there. The "
        "estimate column holds the fallback value that predict returns."
    )
    if "MUTANT_UNDER_TEST" not in os.environ:
        # mutation runs put a trampoline frame between the test and the warning
        assert caught[0].filename == __file__
    assert reg0.fallback_mask([[50.0], [0.0]]).tolist() == [True, False]
    assert far["estimate"].iloc[0] == reg0.predict([[50.0]])[0]
    assert far["estimate"].iloc[0] == pytest.approx(YR.mean(), rel=1e-12)
    assert np.isnan(far.iloc[0][["se", "lower", "upper"]].to_numpy(float)).all()
    assert far["point"].dtype == np.float64
    assert ci["estimate"].iloc[1] == reg0.predict([[3.0]])[0]
    assert ci["estimate"].iloc[1] == pytest.approx(YR.mean(), rel=1e-12)
    assert np.isnan(ci.iloc[1][["se", "lower", "upper"]].to_numpy(float)).all()
    assert np.isfinite(
        ci.iloc[0][["estimate", "se", "lower", "upper"]].to_numpy(float)
    ).all()
    got = _regressor(0).conf_int(
        "predict", [[0.0]], X=ZR[:, None], y=YR, method="smoothed"
    )
    assert got["estimate"].iloc[0] == pytest.approx(
        _local_constant_by_hand(0.0, False)[0], rel=1e-9
    )


def test_prediction_interval_default_method_follows_the_fitted_degree_and_kernel():
    auto = DeconvolutionKernelRegressor(bandwidth=HR, noise_scale=BR).fit(
        ZR[:, None], YR
    )
    assert auto.degree == "auto" and auto.degree_ == 1
    got = auto.conf_int("predict", [[0.0], [0.5]])
    assert set(got["method"]) == {"smoothed (sandwich)"}
    # the local linear fit of the fitted degree, not the local constant one
    np.testing.assert_allclose(got["estimate"], auto.predict([[0.0], [0.5]]))
    cauchy = DeconvolutionKernelRegressor(
        bandwidth=HR, degree=0, kernel="cauchy", noise_scale=BR
    ).fit(ZR[:, None], YR)
    assert cauchy.conf_int("predict", [[0.0]])["method"].iloc[0] == (
        "smoothed (sandwich)"
    )
    with pytest.raises(ValueError, match="method='rbc' needs degree=0 and kernel="):
        cauchy.conf_int("predict", [[0.0]], method="rbc")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "DeconvolutionKernelRegressor computes 'predict' intervals with method "
            "in ['bootstrap', 'rbc', "
            "'smoothed'] (or 'auto'); got method='wald'."
        )
        + "$",
    ):
        auto.conf_int("predict", [[0.0]], method="wald")


def test_classifier_probability_intervals_are_clipped_per_class():
    labels = np.array(["a", "b", "a", "c", "b", "b"])
    clf = DeconvolutionKernelClassifier(bandwidth=HR, degree=0, noise_scale=BR)
    clf.fit(ZR[:, None], labels)
    ci = clf.conf_int("predict_proba", [[0.0], [0.6]], level=0.9)
    assert ci["quantity"].tolist() == ["P(y=a)"] * 2 + ["P(y=b)"] * 2 + ["P(y=c)"] * 2
    for k, cls in enumerate("abc"):
        for i, x0 in enumerate((0.0, 0.6)):
            y = (labels == cls).astype(float)
            m, se, (lo, hi) = _local_constant_by_hand(x0, True, y=y, level=0.9)
            row = ci.iloc[2 * k + i]
            assert row["estimate"] == pytest.approx(m, rel=1e-9)
            assert row["se"] == pytest.approx(se, rel=1e-9)
            assert row["lower"] == pytest.approx(np.clip(lo, 0, 1), abs=1e-12)
            assert row["upper"] == pytest.approx(np.clip(hi, 0, 1), abs=1e-12)
    assert (ci["lower"] == 0).any()  # the clip acts here
    # explicit labels give the same one-hot responses
    again = clf.conf_int("predict_proba", [[0.0], [0.6]], level=0.9, X=ZR, y=labels)
    np.testing.assert_allclose(again["se"], ci["se"], rtol=1e-12)
    # (the se of 1 - y is that of y: the bounds tell the classes apart)
    for end in ("lower", "upper"):
        np.testing.assert_allclose(again[end], ci[end], rtol=1e-12, atol=1e-15)
    assert clf._ci_offers_kind("predict_proba") and not clf._ci_offers_kind("predict")
    reg = _regressor(0)
    assert reg._ci_offers_kind("predict") and not reg._ci_offers_kind("predict_proba")


def test_regression_with_a_privatizer_reads_its_kept_release_only():
    rng = np.random.default_rng(0)
    x = rng.uniform(-1, 1, size=(30, 1))
    y = x[:, 0] + 0.1 * rng.normal(size=30)
    reg = DeconvolutionKernelRegressor(
        bandwidth=0.5,
        degree=0,
        privatizer=LaplaceLDP(epsilon=4, bounds=(-1, 1), random_state=0),
    ).fit(x, y)
    for given, names in (
        ({"X": x}, "X"),
        ({"y": y}, "y"),
        ({"X": x, "y": y}, "X and y"),
    ):
        with pytest.raises(ValueError, match=f"data passed as {names} would be"):
            reg.conf_int("predict", [[0.0]], method="smoothed", **given)
    got = reg.conf_int("predict", [[0.0]], method="smoothed").iloc[0]
    z = reg.released_[:, 0]
    K = deconvolution_kernel(z / 0.5, float(reg.noise_scale_[0]) / 0.5)
    assert got["estimate"] == pytest.approx(K @ y / K.sum(), rel=1e-9)
    assert got["se"] == pytest.approx(
        np.sqrt(np.sum((K * (y - K @ y / K.sum())) ** 2)) / K.sum(), rel=1e-9
    )


def test_density_noisy_mean_interval_by_hand():
    kde = _kde()
    ci = kde.conf_int("mean", level=0.9).iloc[0]
    se = Z4.std(ddof=1) / 2.0
    assert ci["estimate"] == pytest.approx(Z4.mean())
    assert ci["se"] == pytest.approx(se)
    assert (ci["lower"], ci["upper"]) == pytest.approx(
        (Z4.mean() - Z90 * se, Z4.mean() + Z90 * se)
    )
    assert ci["method"] == "noisy-mean"
    assert ci["quantity"] == "mean"
    assert ci["target"] == "E[X] (values clipped into the declared bounds)"
    # X given: those values, one column, read as floats
    other = np.array([[1], [2], [4]])
    got = kde.conf_int("mean", X=other).iloc[0]
    assert got["estimate"] == pytest.approx(7 / 3)
    assert got["se"] == pytest.approx(np.std([1, 2, 4], ddof=1) / np.sqrt(3))
    assert kde.conf_int("mean", X=[1.0, 3.0]).iloc[0]["estimate"] == 2.0


def test_density_interval_refusals():
    kde = _kde()
    with pytest.raises(
        ValueError,
        match=_exact("X must hold the one released feature; got 2 columns."),
    ):
        kde.conf_int("mean", X=np.zeros((3, 2)))
    with pytest.raises(
        ValueError, match=_exact("A mean interval needs at least two released rows.")
    ):
        kde.conf_int("mean", X=[0.5])
    cauchy = _kde(kernel="cauchy")
    with pytest.raises(
        ValueError,
        match=_exact(
            "method='rbc' needs kernel='gaussian' (the Cauchy kernel has no "
            "moments to correct the bias with); use method='smoothed'."
        ),
    ):
        cauchy.conf_int("pdf", [0.0], method="rbc")
    # Cauchy: the smoothed interval is the default
    assert cauchy.conf_int("cdf", [0.0])["method"].iloc[0] == (
        "smoothed (deconvolution kernel)"
    )
    assert kde.conf_int("pdf", [0.0])["target"].iloc[0] == "f(x)"
    with pytest.raises(ValueError, match="no positive mass on the support"):
        # every record far outside the support: no mass on it
        kde.conf_int("cdf", [0.0], X=[40.0, 41.0], method="smoothed")
    with pytest.raises(ValueError, match="with method in \\['bootstrap', 'rbc'"):
        kde.conf_int("quantile", [0.5], method="noisy-mean")


def test_density_cauchy_intervals_use_the_cauchy_kernel():
    kde = _kde(kernel="cauchy")
    r = B / H
    for what in ("pdf", "cdf"):
        ci = kde.conf_int(what, [-1.0, 0.5], method="smoothed")
        for i, x in enumerate((-1.0, 0.5)):
            # the documented terms with the Cauchy deconvolution kernel
            def dens(t, zi):
                return sum(
                    deconvolution_kernel((v - zi) / H, r, "cauchy") / H
                    for v in (t, 2 * LOW - t, 2 * HIGH - t)
                )

            mass = np.array(
                [integrate.quad(dens, LOW, HIGH, args=(zi,))[0] for zi in Z4]
            )
            if what == "pdf":
                c = np.array([dens(x, zi) for zi in Z4])
            else:
                c = np.array([integrate.quad(dens, LOW, x, args=(zi,))[0] for zi in Z4])
            assert ci["estimate"].iloc[i] == pytest.approx(
                c.mean() / mass.mean(), rel=1e-6
            )


def test_numbers_given_as_text_are_read_as_floats():
    kde = _kde()
    got = kde.conf_int("mean", X=np.array(["1", "2", "4"])).iloc[0]
    assert got["estimate"] == pytest.approx(7 / 3)
    np.testing.assert_allclose(
        integrated_kernel(np.array(["0.5"]), 0.3, "gaussian", True),
        integrated_kernel(np.array([0.5]), 0.3, "gaussian", True),
    )
    parts = _parts(np.ones(4), np.arange(4.0))
    np.testing.assert_allclose(
        fieller_interval(parts.astype(str), 0.9), fieller_interval(parts, 0.9)
    )
    reg = _regressor(0)
    np.testing.assert_allclose(
        reg.conf_int("predict", [[0.0]], X=ZR.astype(str), y=YR)["se"],
        reg.conf_int("predict", [[0.0]], X=ZR, y=YR)["se"],
    )


def test_density_interval_outside_the_support_is_exact():
    kde = _kde()
    ci = kde.conf_int("cdf", [LOW - 0.5, HIGH + 0.5, LOW, HIGH], method="smoothed")
    assert ci["estimate"].tolist()[:2] == [0.0, 1.0]
    assert ci["se"].tolist()[:2] == [0.0, 0.0]
    assert ci["lower"].tolist()[:2] == [0.0, 1.0]
    assert ci["upper"].tolist()[:2] == [0.0, 1.0]
    # the support's ends are inside: the ratio is 0 and 1 there
    assert ci["estimate"].iloc[2] == pytest.approx(0.0, abs=1e-12)
    assert ci["estimate"].iloc[3] == pytest.approx(1.0, abs=1e-12)
    pdf = kde.conf_int("pdf", [LOW - 0.5, HIGH + 0.5], method="smoothed")
    assert (
        pdf[["estimate", "se", "lower", "upper"]].to_numpy().tolist() == [[0.0] * 4] * 2
    )


def test_density_pdf_lower_end_is_clipped_at_zero_only():
    # a point of the support far from the records: small estimate, so the
    # normal interval crosses 0 and only its lower end is clipped
    kde = _kde()
    ci = kde.conf_int("pdf", [-1.95], method="smoothed", level=0.99).iloc[0]
    R, se = _ratio_by_hand(-1.95, "pdf", False)
    z = stats.norm.ppf(0.995)
    assert R - z * se < 0 < R
    assert ci["lower"] == 0.0
    assert ci["upper"] == pytest.approx(R + z * se, rel=1e-6)


@pytest.mark.parametrize("rbc", [False, True])
@pytest.mark.parametrize("boundary", ["reflect", "clip"])
def test_density_pdf_interval_is_the_normalised_ratio_and_its_linearised_se(
    rbc, boundary
):

    kde = _kde(boundary=boundary)
    x = np.array([-1.9, 0.0, 1.0])
    method = "rbc" if rbc else "smoothed"
    ci = kde.conf_int("pdf", x, level=0.9, method=method)
    for i, xi in enumerate(x):
        R, se = _ratio_by_hand(xi, "pdf", rbc, boundary == "reflect")
        if rbc and i == 0:
            # the fourth-order estimate and its whole interval are negative
            # near the support's end: all three are cut to 0
            assert R + Z90 * se < 0
        row = ci.iloc[i]
        # the estimate and both ends are cut to [0, inf), the se is not
        assert row["estimate"] == pytest.approx(max(R, 0.0), rel=1e-7)
        assert row["se"] == pytest.approx(se, rel=1e-6)
        assert row["upper"] == pytest.approx(max(R + Z90 * se, 0.0), rel=1e-6)
        assert row["lower"] == pytest.approx(max(R - Z90 * se, 0.0), abs=1e-9)
        assert row["lower"] <= row["estimate"] <= row["upper"]
        assert row["level"] == 0.9
    if rbc:
        assert set(ci["method"]) == {
            "rbc (fourth-order kernel, robust bias correction)"
        }
        assert set(ci["target"]) == {"f(x)"}
    else:
        assert set(ci["method"]) == {"smoothed (deconvolution kernel)"}
        assert set(ci["target"]) == {"the estimate's expectation: f smoothed by K_h"}


@pytest.mark.parametrize("rbc", [False, True])
@pytest.mark.parametrize("boundary", ["reflect", "clip"])
def test_density_cdf_interval_is_the_integrated_ratio(rbc, boundary):
    kde = _kde(boundary=boundary)
    x = np.array([-1.5, 0.3, 1.7])
    ci = kde.conf_int("cdf", x, level=0.9, method="rbc" if rbc else "smoothed")
    for i, xi in enumerate(x):
        R, se = _ratio_by_hand(xi, "cdf", rbc, boundary == "reflect")
        if rbc and i == 0:
            # the fourth-order estimate is negative near the support's end
            assert R < 0
        row = ci.iloc[i]
        # the estimate is clipped into [0, 1] as its ends are, the se is not
        assert row["estimate"] == pytest.approx(np.clip(R, 0, 1), rel=1e-7)
        assert row["se"] == pytest.approx(se, rel=1e-6)
        assert row["lower"] <= row["estimate"] <= row["upper"]
        # both ends clipped into [0, 1] (the rbc estimate may leave it)
        assert row["lower"] == pytest.approx(np.clip(R - Z90 * se, 0, 1), abs=1e-9)
        assert row["upper"] == pytest.approx(np.clip(R + Z90 * se, 0, 1), abs=1e-9)
    assert set(ci["target"]) == {
        "F(x)" if rbc else "the estimate's expectation: F smoothed by K_h"
    }


@pytest.mark.parametrize("method", ["rbc", "smoothed"])
def test_density_quantile_interval_inverts_the_cdf_intervals_exactly(method):
    kde = _kde()
    qs = [0.2, 0.5, 0.9]
    ci = kde.conf_int("quantile", qs, level=0.8, method=method)
    assert ci["point"].tolist() == qs
    for j, q in enumerate(qs):
        estimate, lower, upper = _quantile_by_hand(kde, q, 0.8, method)
        row = ci.iloc[j]
        assert row["estimate"] == pytest.approx(estimate, abs=1e-12)
        assert (row["lower"], row["upper"]) == pytest.approx((lower, upper), abs=1e-12)
        assert row["lower"] < row["estimate"] < row["upper"]
    assert set(ci["quantity"]) == {"quantile"}
    assert set(ci["level"]) == {0.8}
    if method == "rbc":
        assert set(ci["method"]) == {"rbc, CDF test inversion"}
        assert set(ci["target"]) == {"F^-1(q)"}
    else:
        assert set(ci["method"]) == {"smoothed, CDF test inversion"}
        assert set(ci["target"]) == {"the quantile of F smoothed by K_h"}


def test_density_quantile_of_identical_records_has_no_spread():
    # every record the same value: every term of the ratio is the ratio
    # itself, so its standard error is 0 and no coarse point is within
    # 3.29 standard errors of q: the fine grid starts from the first coarse
    # point at or above q, and the interval is the point estimate
    same = np.full((5, 1), 0.3)
    kde = DeconvolutionKernelDensity(
        bandwidth=H, noise_scale=B, support=(LOW, HIGH)
    ).fit(same)
    qs = [0.05, 0.5, 0.97]
    ci = kde.conf_int("quantile", qs, method="smoothed")
    assert (kde.conf_int("cdf", [0.0], method="smoothed")["se"] == 0).all()
    for j, q in enumerate(qs):
        estimate, lower, upper = _quantile_by_hand(kde, q, 0.95, "smoothed")
        row = ci.iloc[j]
        assert row["estimate"] == pytest.approx(estimate, abs=1e-12)
        assert lower == upper == estimate
        assert row["lower"] == row["upper"] == row["estimate"]


@pytest.mark.filterwarnings("ignore:.*resampled fits failed:RuntimeWarning")
def test_prediction_bootstrap_refits_the_pairs_at_the_fitted_bandwidth():
    # (a resample missing a class fails to fit; the interval uses the others)
    labels = np.array(["a", "b", "a", "c", "b", "b"])
    clf = DeconvolutionKernelClassifier(bandwidth=HR, degree=0, noise_scale=BR)
    clf.fit(ZR[:, None], labels)
    rows = np.array([[0.0], [0.6]])
    ci = clf.conf_int(
        "predict_proba", rows, method="bootstrap", n_resamples=5, random_state=2
    )

    def stat(est):
        return est.predict_proba(rows).T.ravel()

    template = DeconvolutionKernelClassifier(bandwidth=HR, degree=0, noise_scale=BR)
    reps = bootstrap_replicates(
        template, ZR[:, None], stat, y=labels, n_resamples=5, random_state=2
    )
    # rows of the frame: class by class, point by point
    np.testing.assert_allclose(ci["estimate"], stat(clf))
    np.testing.assert_allclose(ci["lower"], np.nanquantile(reps, 0.025, axis=0))
    np.testing.assert_allclose(ci["upper"], np.nanquantile(reps, 0.975, axis=0))
    np.testing.assert_allclose(ci["se"], np.nanstd(reps, axis=0, ddof=1))
    assert ci["point"].tolist() == [0.0, 0.6] * 3
    assert set(ci["method"]) == {"bootstrap-percentile (pairs, bandwidth fixed)"}
    assert set(ci["target"]) == {"the fit's expectation at its bandwidth"}
    reg = _regressor(0)
    got = reg.conf_int(
        "predict", rows, method="bootstrap", n_resamples=4, random_state=3
    )
    reps = bootstrap_replicates(
        DeconvolutionKernelRegressor(bandwidth=HR, degree=0, noise_scale=BR),
        ZR[:, None],
        lambda est: est.predict(rows),
        y=YR,
        n_resamples=4,
        random_state=3,
    )
    np.testing.assert_allclose(got["estimate"], reg.predict(rows))
    np.testing.assert_allclose(got["upper"], np.nanquantile(reps, 0.975, axis=0))
    np.testing.assert_allclose(got["se"], np.nanstd(reps, axis=0, ddof=1))


def test_density_streamed_fit_asks_for_the_release():
    kde = DeconvolutionKernelDensity(bandwidth=H, noise_scale=B, support=(LOW, HIGH))
    kde.partial_fit(Z4[:2, None]).partial_fit(Z4[2:, None])
    msg = (
        "This estimate keeps no records (streamed fit): pass X=, the released "
        "values it was fitted on."
    )
    for kind, points in (("mean", None), ("pdf", [0.0]), ("quantile", [0.5])):
        with pytest.raises(ValueError, match=_exact(msg)):
            kde.conf_int(kind, points, method="smoothed" if points else "auto")
    assert kde.conf_int("mean", X=Z4).iloc[0]["estimate"] == pytest.approx(Z4.mean())


def test_perturbed_kde_noisy_mean_by_hand_and_its_refusals():
    x = np.linspace(-1, 1, 8)[:, None]
    priv = LaplaceLDP(epsilon=2, bounds=(-2, 2), random_state=0)
    released = LaplaceLDP(epsilon=2, bounds=(-2, 2), random_state=0).fit_transform(x)
    est = PerturbedKDEEstimator(n_points=20, privatizer=priv).fit(x)
    ci = est.conf_int("mean", level=0.9).iloc[0]
    se = released.std(ddof=1) / np.sqrt(8)
    assert ci["method"] == "noisy-mean"
    assert ci["target"] == "E[X] (values clipped into the declared bounds)"
    assert ci["estimate"] == pytest.approx(released.mean())
    assert (ci["lower"], ci["upper"]) == pytest.approx(
        (released.mean() - Z90 * se, released.mean() + Z90 * se)
    )
    with pytest.raises(
        ValueError,
        match=_exact(
            "An 'ml' refit needs the noise law, which only a privatizer gives "
            "(and a privatizer would release the data again): use "
            "method='rbc' (or 'smoothed', linearized at the fit)."
        ),
    ):
        est.conf_int("mean", method="bootstrap")
    # releases of an unknown mechanism: the bootstrap by default, no noisy mean
    z = np.array([[-1.0], [0.5], [0.2], [1.7], [-0.3], [0.9]])
    paper = PerturbedKDEEstimator(bounds=(-4, 4), bandwidth=0.5, n_points=20).fit(z)
    boot = paper.conf_int("mean", X=z, n_resamples=3, random_state=0).iloc[0]
    assert boot["method"] == "bootstrap-percentile"
    with pytest.raises(
        ValueError,
        match=_exact(
            "method='noisy-mean' needs releases of a known additive mechanism "
            "(LaplaceLDP, GeneralizedGaussianLDP, FlippedHuberLDP) given as "
            "privatizer."
        ),
    ):
        paper.conf_int("mean", X=z, method="noisy-mean")


def test_perturbed_kde_smoothed_intervals_are_the_delta_method_of_its_ems():
    x = np.random.default_rng(0).normal(size=(60, 1)).clip(-3, 3)
    priv = LaplaceLDP(epsilon=2, bounds=(-3, 3), random_state=1)
    est = PerturbedKDEEstimator(
        n_points=16, privatizer=priv, moment_correction=False
    ).fit(x)
    assert est.method_ == "ml"
    released = est.released_
    A, out_edges = additive_transition(est.edges_, _noise_law(est, est.privatizer_))
    bins = np.clip(
        np.searchsorted(out_edges, released, side="right") - 1, 0, A.shape[0] - 1
    )
    S = smoothing_matrix(est.edges_.size - 1, est.smoothing_width_)
    theta = est.density_ * np.diff(est.edges_)
    theta = theta / theta.sum()
    cov = ems_covariance(A, theta, S, bins)
    W = cell_cdf_weights(est.edges_, np.array([-1.0, 0.5]))
    cdf = est.conf_int("cdf", [-1.0, 0.5], method="smoothed")
    np.testing.assert_allclose(cdf["se"], np.sqrt(np.diag(W @ cov @ W.T)), rtol=1e-8)
    np.testing.assert_allclose(cdf["estimate"], W @ theta, rtol=1e-10)
    # the default of an "ml" fit: rbc
    assert est.conf_int("cdf", [0.5])["method"].iloc[0] == (
        "linearized EMS, bias-corrected (delta method)"
    )
    # a "paper" fit has no EM system: the bootstrap only
    paper = PerturbedKDEEstimator(
        n_points=16, privatizer=priv, method="paper", bandwidth=0.5
    ).fit(x)
    with pytest.raises(ValueError, match="was not fitted by EM with smoothing"):
        paper.conf_int("cdf", [0.5], method="smoothed")


def test_density_bootstrap_intervals_refit_the_same_estimate():
    # (last: each replicate refits the estimate)
    kde = _kde()
    X = Z4[:, None]
    ci = kde.conf_int(
        "cdf", [0.0, 1.0], X=X, method="bootstrap", n_resamples=3, random_state=5
    )
    reps = bootstrap_replicates(
        DeconvolutionKernelDensity(bandwidth=H, noise_scale=B, support=(LOW, HIGH)),
        X,
        lambda est: est.cdf([0.0, 1.0]),
        n_resamples=3,
        random_state=5,
    )
    np.testing.assert_allclose(ci["estimate"], kde.cdf([0.0, 1.0]))
    np.testing.assert_allclose(ci["lower"], np.quantile(reps, 0.025, axis=0))
    np.testing.assert_allclose(ci["upper"], np.quantile(reps, 0.975, axis=0))
    assert ci["point"].tolist() == [0.0, 1.0]
    for kind, points, estimate in (
        ("mean", None, [kde.mean()]),
        ("quantile", [0.5], kde.quantile([0.5])),
    ):
        got = kde.conf_int(kind, points, X=X, method="bootstrap", n_resamples=2)
        np.testing.assert_allclose(got["estimate"], estimate)
        assert set(got["method"]) == {"bootstrap-percentile"}
        assert np.isfinite(got[["lower", "upper"]].to_numpy(float)).all()
    with pytest.raises(ValueError, match="with method in \\['rbc', 'smoothed'\\]"):
        kde.conf_int("pdf", [0.0], method="bootstrap")


def test_the_fallback_is_named_once_whatever_the_levels():
    # one NotIdentifiableWarning per call, not one per level
    reg0 = _regressor(0)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        warnings.filterwarnings("ignore", "DeconvolutionKernelRegressor: the smoothed")
        frame = reg0.conf_int(
            "predict", [[50], [0]], method="smoothed", level=[0.9, 0.95]
        )
    assert [w.category for w in caught] == [NotIdentifiableWarning]
    assert frame["level"].tolist() == [0.9, 0.9, 0.95, 0.95]
    assert frame["point"].tolist() == [50.0, 0.0, 50.0, 0.0]


def _fallback_message(estimator, kind, points):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        estimator.conf_int(kind, points, method="smoothed")
    (found,) = [w for w in caught if w.category is NotIdentifiableWarning]
    return str(found.message)


def test_the_fallback_warning_words_the_classifier_and_long_lists():
    labels = np.array(["a", "b", "a", "c", "b", "b"])
    clf = DeconvolutionKernelClassifier(bandwidth=HR, degree=0, noise_scale=BR)
    clf.fit(ZR[:, None], labels)
    assert _fallback_message(clf, "predict_proba", [[50.0], [0.0]]) == (
        "DeconvolutionKernelClassifier: the predict_proba interval is NaN at 1 "
        "point(s), (50), where predict_proba falls back to the training class "
        "frequencies (see fallback_mask: no records near them, or kernel weights "
        "that cannot be told from zero): the records do not identify P(y | x) "
        "there. The estimate column holds the fallback value that predict_proba "
        "returns."
    )
    # five points shown, the rest counted; two points in a row, comma-joined
    far = [[50.0 + i] for i in range(8)]
    assert _fallback_message(_regressor(0), "predict", far).startswith(
        "DeconvolutionKernelRegressor: the predict interval is NaN at 8 point(s), "
        "(50), (51), (52), (53), (54) and 3 more, where predict falls back to the "
        "training mean (see"
    )
    six = [[50.0 + i] for i in range(6)]
    assert "(54) and 1 more, where" in _fallback_message(_regressor(0), "predict", six)
    five = [[50.0 + i] for i in range(5)]
    assert "(54), where" in _fallback_message(_regressor(0), "predict", five)
