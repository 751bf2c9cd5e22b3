"""Confidence intervals of the LDP learners (conf_int)."""

import numpy as np
import pytest
from scipy import integrate, stats
from sklearn.base import clone

from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    LaplaceLDP,
)
from skprivate._grid_density._intervals import (
    binomial_filter_matrix,
    cell_cdf_weights,
    ems_covariance,
)
from skprivate.ldp import PerturbedKDEEstimator, SquareWaveEMSEstimator, SquareWaveLDP
from skprivate.ldp._intervals import (
    integrated_kernel,
    interval_kernel,
    square_wave_moment_terms,
)
from skprivate.ldp._transitions import square_wave_transition

SE_200 = np.sqrt(0.95 * 0.05 / 200)


@pytest.mark.parametrize(
    "kernel, rbc, ratio",
    [
        ("gaussian", False, 0.0),
        ("gaussian", False, 1.5),
        ("gaussian", True, 0.7),
        ("cauchy", False, 0.8),
    ],
)
def test_integrated_kernel_is_the_antiderivative_of_the_kernel(kernel, rbc, ratio):
    v = np.linspace(-5, 5, 41)
    h = 1e-5
    numeric = (
        integrated_kernel(v + h, ratio, kernel, rbc)
        - integrated_kernel(v - h, ratio, kernel, rbc)
    ) / (2 * h)
    np.testing.assert_allclose(
        numeric, interval_kernel(v, ratio, kernel, rbc), atol=1e-6
    )
    assert integrated_kernel(np.array([-60.0]), ratio, kernel, rbc)[0] == pytest.approx(
        0.0, abs=1e-2 if kernel == "cauchy" else 1e-12
    )


def test_bias_correcting_kernel_is_of_fourth_order():
    # Without noise it is (3 - u^2) phi(u) / 2: mass 1, second moment 0.
    def moment(k):
        return integrate.quad(
            lambda u: u**k * interval_kernel(u, 0.0, "gaussian", True), -30, 30
        )[0]

    assert moment(0) == pytest.approx(1.0)
    assert moment(2) == pytest.approx(0.0, abs=1e-10)
    assert moment(4) == pytest.approx(-3.0)


def _noisy_normal(n, seed, epsilon=8.0):
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(n, 1)).clip(-4, 4)
    ldp = LaplaceLDP(epsilon=epsilon, bounds=(-4, 4), random_state=seed)
    return x, ldp.fit_transform(x), ldp.scale_


def test_noisy_mean_interval_is_the_sample_mean_and_its_exact_se():
    _, z, b = _noisy_normal(500, 0)
    kde = DeconvolutionKernelDensity(bandwidth=0.6, noise_scale=b, support=(-4, 4))
    ci = kde.fit(z).conf_int("mean", X=z).iloc[0]
    assert ci["estimate"] == pytest.approx(z.mean())
    assert ci["se"] == pytest.approx(z.std(ddof=1) / np.sqrt(500))
    assert ci["upper"] - ci["estimate"] == pytest.approx(1.959964 * ci["se"], rel=1e-6)
    # Kept records are used when X is not given.
    assert kde.conf_int("mean").iloc[0]["estimate"] == ci["estimate"]


def test_smoothed_density_interval_is_centred_on_the_fitted_density():
    _, z, b = _noisy_normal(800, 1)
    kde = DeconvolutionKernelDensity(
        bandwidth=0.6, noise_scale=b, support=(-4, 4), algorithm="direct"
    ).fit(z)
    x = np.array([-1.0, 0.0, 0.7])
    ci = kde.conf_int("pdf", x, X=z, method="smoothed")
    # Positive everywhere on these points: the ratio is the normalized
    # reflected estimate of pdf(), up to the 4096-cell normalization.
    np.testing.assert_allclose(ci["estimate"], kde.pdf(x), rtol=2e-3)
    cdf = kde.conf_int("cdf", [0.0, 4.0], X=z, method="smoothed")
    assert cdf["estimate"].iloc[1] == pytest.approx(1.0)
    assert cdf["estimate"].iloc[0] == pytest.approx(float(kde.cdf(0.0)), abs=5e-3)


def test_density_standard_error_matches_the_spread_over_samples():
    # rbc at f(0) and smoothed at K_h * f(0), bandwidth fixed at 0.6.
    est_rbc, se_rbc, est_sm, se_sm = [], [], [], []
    for seed in range(200):
        _, z, b = _noisy_normal(600, seed)
        kde = DeconvolutionKernelDensity(
            bandwidth=0.6, noise_scale=b, support=(-4, 4), algorithm="binned"
        ).fit(z)
        r = kde.conf_int("pdf", [0.0], X=z).iloc[0]
        s = kde.conf_int("pdf", [0.0], X=z, method="smoothed").iloc[0]
        est_rbc.append(r["estimate"])
        se_rbc.append(r["se"])
        est_sm.append(s["estimate"])
        se_sm.append(s["se"])
    est_rbc, se_rbc = np.array(est_rbc), np.array(se_rbc)
    est_sm, se_sm = np.array(est_sm), np.array(se_sm)
    assert np.mean(se_rbc) / np.std(est_rbc) == pytest.approx(1.0, abs=0.15)
    assert np.mean(se_sm) / np.std(est_sm) == pytest.approx(1.0, abs=0.15)
    smoothed_target = stats.norm.pdf(0.0, scale=np.sqrt(1 + 0.36))
    cover_sm = np.mean(np.abs(est_sm - smoothed_target) <= 1.96 * se_sm)
    cover_rbc = np.mean(np.abs(est_rbc - stats.norm.pdf(0.0)) <= 1.96 * se_rbc)
    assert abs(cover_sm - 0.95) < 3 * SE_200
    assert abs(cover_rbc - 0.95) < 3 * SE_200
    # The smoothed interval does not cover f(0) itself: its bias is h^2 f''/2.
    assert np.mean(np.abs(est_sm - stats.norm.pdf(0.0)) <= 1.96 * se_sm) < 0.8


def test_quantile_interval_inverts_the_cdf_intervals():
    _, z, b = _noisy_normal(1500, 3)
    kde = DeconvolutionKernelDensity(bandwidth=0.6, noise_scale=b, support=(-4, 4))
    kde.fit(z)
    q = kde.conf_int("quantile", [0.5], X=z).iloc[0]
    cdf = kde.conf_int("cdf", [q["lower"], q["upper"]], X=z)
    z95 = 1.959964
    # At the ends of the quantile interval the CDF interval just reaches 0.5.
    assert np.all(np.abs(cdf["estimate"] - 0.5) <= z95 * cdf["se"] + 1e-9)
    assert q["lower"] < q["estimate"] < q["upper"]


def test_regression_sandwich_matches_the_local_constant_fit():
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, size=(800, 1))
    y = np.sin(2 * x[:, 0]) + 0.3 * rng.normal(size=800)
    ldp = LaplaceLDP(epsilon=8, bounds=(-2, 2), random_state=0)
    z = ldp.fit_transform(x)
    reg = DeconvolutionKernelRegressor(
        bandwidth=0.4, degree=0, noise_scale=ldp.scale_, algorithm="direct"
    ).fit(z, y)
    ci = reg.conf_int("predict", [[0.5], [-0.3]], method="smoothed")
    np.testing.assert_allclose(ci["estimate"], reg.predict([[0.5], [-0.3]]), rtol=1e-8)
    # The sandwich by hand at x = 0.5.
    from skprivate.ldp import deconvolution_kernel

    K = deconvolution_kernel((z[:, 0] - 0.5) / 0.4, ldp.scale_[0] / 0.4)
    m = K @ y / K.sum()
    se = np.sqrt(np.sum((K * (y - m)) ** 2)) / K.sum()
    assert ci["se"].iloc[0] == pytest.approx(se)
    # Same data passed explicitly.
    again = reg.conf_int("predict", [[0.5]], X=z, y=y, method="smoothed")
    assert again["se"].iloc[0] == pytest.approx(se)


def test_regression_rbc_interval_covers_the_regression_function():
    hits, reps = 0, 200
    truth = np.sin(1.0)
    for seed in range(reps):
        rng = np.random.default_rng(seed)
        x = rng.uniform(-2, 2, size=(1500, 1))
        y = np.sin(2 * x[:, 0]) + 0.3 * rng.normal(size=1500)
        ldp = LaplaceLDP(epsilon=8, bounds=(-2, 2), random_state=seed)
        z = ldp.fit_transform(x)
        reg = DeconvolutionKernelRegressor(
            bandwidth=0.4, degree=0, noise_scale=ldp.scale_
        ).fit(z, y)
        ci = reg.conf_int("predict", [[0.5]]).iloc[0]
        hits += ci["lower"] <= truth <= ci["upper"]
    assert abs(hits / reps - 0.95) < 3 * SE_200


def test_classifier_gives_one_row_per_class_within_the_unit_interval():
    rng = np.random.default_rng(0)
    x = rng.uniform(-2, 2, size=(600, 1))
    y = np.where(rng.uniform(size=600) < 1 / (1 + np.exp(-2 * x[:, 0])), "yes", "no")
    ldp = LaplaceLDP(epsilon=8, bounds=(-2, 2), random_state=0)
    z = ldp.fit_transform(x)
    clf = DeconvolutionKernelClassifier(
        bandwidth=0.5, degree=0, noise_scale=ldp.scale_
    ).fit(z, y)
    ci = clf.conf_int("predict_proba", [[0.0], [1.0]], method="smoothed")
    assert ci["quantity"].tolist() == ["P(y=no)", "P(y=no)", "P(y=yes)", "P(y=yes)"]
    assert ((ci["lower"] >= 0) & (ci["upper"] <= 1)).all()
    boot = clf.conf_int(
        "predict_proba", [[0.0]], method="bootstrap", n_resamples=10, random_state=0
    )
    assert boot["method"].iloc[0].startswith("bootstrap")
    with pytest.raises(ValueError, match="available: \\['predict_proba'\\]"):
        clf.conf_int("predict", [[0.0]])


def test_square_wave_moment_terms_match_the_mechanism():
    # E[v' | v] = s v + c, checked on the mechanism's own releases.
    eps, n = 1.0, 200_000
    s, c = square_wave_moment_terms(eps)
    for v in (0.1, 0.5, 0.9):
        out = SquareWaveLDP(epsilon=eps, bounds=(0, 1), random_state=1).fit_transform(
            np.full((n, 1), v)
        )
        se = out.std() / np.sqrt(n)
        assert abs(out.mean() - (s * v + c)) < 4 * se


def test_square_wave_mean_and_cdf_intervals_cover():
    hits_mean = hits_cdf = 0
    reps = 200
    for seed in range(reps):
        rng = np.random.default_rng(seed)
        x = rng.uniform(2, 8, size=(800, 1))
        rep = SquareWaveLDP(epsilon=2.0, bounds=(0, 10), random_state=seed)
        reports = rep.fit_transform(x)
        est = SquareWaveEMSEstimator(epsilon=2.0, bounds=(0, 10)).fit(reports)
        m = est.conf_int("mean", X=reports).iloc[0]
        hits_mean += m["lower"] <= 5.0 <= m["upper"]
        c = est.conf_int("cdf", [5.0], X=reports).iloc[0]
        hits_cdf += c["lower"] <= 0.5 <= c["upper"]
    assert abs(hits_mean / reps - 0.95) < 3 * SE_200
    # The smoothed target at the middle of a uniform is 0.5 as well.
    assert abs(hits_cdf / reps - 0.95) < 3 * SE_200


def test_ems_linearization_matches_refits_at_a_fixed_smoothing():
    # The delta-method SD of the CDF of the EMS fixed point against the SD
    # of EMS refits on fresh reports (binomial filter, 40 cells).
    m, eps = 40, 2.0
    edges = np.linspace(0.0, 1.0, m + 1)
    A, _ = square_wave_transition(edges, eps)
    S = binomial_filter_matrix(m)
    theta_true = np.diff(stats.beta(2, 3).cdf(edges))
    pi = A @ theta_true
    W = cell_cdf_weights(edges, np.array([0.4]))
    rng = np.random.default_rng(0)
    n = 3000

    def ems(counts):
        theta = np.full(m, 1.0 / m)
        for _ in range(5000):
            new = S @ (theta * (A.T @ (counts / np.maximum(A @ theta, 1e-300))))
            new /= new.sum()
            if np.max(np.abs(new - theta)) < 1e-12:
                break
            theta = new
        return new

    values, ses = [], []
    for _ in range(150):
        bins = rng.choice(pi.size, size=n, p=pi)
        counts = np.bincount(bins, minlength=pi.size) / n
        theta = ems(counts)
        cov = ems_covariance(A, theta, S, bins[:, None])
        values.append(float((W @ theta)[0]))
        ses.append(float(np.sqrt(W @ cov @ W.T)[0, 0]))
    assert np.mean(ses) / np.std(values) == pytest.approx(1.0, abs=0.15)


def test_perturbed_kde_intervals_use_the_releases():
    x = np.random.default_rng(0).normal(size=(600, 1)).clip(-4, 4)
    priv = LaplaceLDP(epsilon=4, bounds=(-4, 4), random_state=2)
    released = LaplaceLDP(epsilon=4, bounds=(-4, 4), random_state=2).fit_transform(x)
    est = PerturbedKDEEstimator(n_points=30, privatizer=priv).fit(x)
    # the estimator keeps its release and reads it: no X is passed
    np.testing.assert_array_equal(est.released_, released)
    mean = est.conf_int("mean").iloc[0]
    assert mean["method"] == "noisy-mean"
    assert mean["estimate"] == pytest.approx(released.mean())
    cdf = est.conf_int("cdf", [0.0]).iloc[0]
    assert cdf["method"] == "linearized EMS, bias-corrected (delta method)"
    smoothed = est.conf_int("cdf", [0.0], method="smoothed").iloc[0]
    assert smoothed["estimate"] == pytest.approx(float(est.cdf(0.0)))
    with pytest.raises(ValueError, match="method='rbc'"):
        est.conf_int("cdf", [0.0], method="bootstrap")


def test_perturbed_kde_linearization_follows_the_fits_moment_tilt():
    # A sample whose EMS fit is tilted to the releases' moments: the
    # interval code rebuilds exactly the fitted probabilities from the
    # untilted fixed point, and its CDF standard error is the chained
    # (tilted) delta method, not the plain EMS one.
    x = np.random.default_rng(10).normal(size=(400, 1)).clip(-4, 4)
    released = LaplaceLDP(epsilon=2, bounds=(-4, 4), random_state=10).fit_transform(x)
    priv = LaplaceLDP(epsilon=2, bounds=(-4, 4), random_state=10)
    est = PerturbedKDEEstimator(n_points=30, privatizer=priv).fit(x)
    A, bins, S = est._ci_ems_system(released)
    tilt = est._ci_moment_tilt(released, A, bins, S)
    tilted, multipliers = tilt.tilted()
    assert np.all(multipliers != 0)
    theta = est.density_ * np.diff(est.edges_)
    np.testing.assert_allclose(tilted, theta / theta.sum(), atol=1e-6)
    W = cell_cdf_weights(est.edges_, np.array([0.0]))[0]
    chained = W @ ems_covariance(A, tilted, S, bins, tilt) @ W
    plain = W @ ems_covariance(A, tilt.untilted, S, bins) @ W
    se = est.conf_int("cdf", [0.0], method="smoothed")["se"].iloc[0]
    assert se == pytest.approx(np.sqrt(chained), rel=1e-9)
    assert abs(se / np.sqrt(plain) - 1) > 0.01


class _DescribedLaplace(LaplaceLDP):
    """A subclass of the mechanism (as the CLI uses to describe releases)."""


def test_perturbed_kde_noisy_mean_recognises_a_subclass_of_the_mechanism():
    x = np.random.default_rng(4).normal(size=(300, 1)).clip(-4, 4)
    priv = _DescribedLaplace(epsilon=4, bounds=(-4, 4), random_state=3)
    released = clone(priv).fit_transform(x)
    est = PerturbedKDEEstimator(n_points=20, privatizer=priv).fit(x)
    np.testing.assert_array_equal(est.released_, released)
    mean = est.conf_int("mean").iloc[0]
    assert mean["method"] == "noisy-mean"
    assert mean["se"] == pytest.approx(released.std(ddof=1) / np.sqrt(300))


def test_fieller_interval_is_the_set_of_ratios_not_rejected():
    """Fieller's bounds are where (N - tD)^2 = z^2 V(t), checked on a grid."""
    from scipy.stats import norm

    from skprivate.ldp._intervals import fieller_interval

    rng = np.random.default_rng(5)
    for D_shift, bounded in ((3.0, True), (0.02, False)):
        K = rng.normal(size=40) * 0.3 + D_shift / 40 * 10
        y = rng.normal(loc=2.0, size=40)
        n = K.size
        parts = np.array([[K @ y, K.sum(), K @ K, K**2 @ y, K**2 @ y**2, n]])
        lower, upper = fieller_interval(parts, 0.9)
        z2 = norm.ppf(0.95) ** 2
        t = np.linspace(-60.0, 60.0, 240_001)
        r = K @ y - t * K.sum()
        V = ((K[None, :] * (y[None, :] - t[:, None])) ** 2).sum(axis=1) - r**2 / n
        kept = t[r**2 <= z2 * V]
        if bounded:
            assert np.isfinite([lower[0], upper[0]]).all()
            assert lower[0] == pytest.approx(kept.min(), abs=1e-3)
            assert upper[0] == pytest.approx(kept.max(), abs=1e-3)
            # far from 0 the denominator is fixed and Fieller is the delta method
        else:
            assert (lower[0], upper[0]) == (-np.inf, np.inf)
            assert kept.min() == t[0] or kept.max() == t[-1]


def test_prediction_interval_where_records_are_few_is_unbounded_not_missing():
    """A point far from the records gets (-inf, inf), not NaN, unless it falls back."""
    rng = np.random.default_rng(0)
    x = rng.normal(size=(400, 1))
    y = 2.0 * x[:, 0] + rng.normal(size=400)
    est = DeconvolutionKernelRegressor(noise_scale=0.3, bandwidth=0.5, degree=0)
    est.fit(x + rng.laplace(scale=0.3, size=x.shape), y)
    points = np.array([[0.0], [2.0], [2.6], [3.5]])
    frame = est.conf_int("predict", points, level=0.95, method="rbc")
    assert est.fallback_mask(points).tolist() == [False, False, False, True]
    lower, estimate, upper = (
        frame[c].to_numpy() for c in ("lower", "estimate", "upper")
    )
    # interior: the delta method's interval, nearly symmetric
    assert lower[0] < estimate[0] < upper[0]
    assert upper[0] - estimate[0] == pytest.approx(estimate[0] - lower[0], rel=0.05)
    # thinning records: Fieller's interval stretches away from the noisy ratio
    assert upper[1] - estimate[1] > 2 * (estimate[1] - lower[1]) > 0
    # no significant denominator: the whole line; the fallback point: none
    assert (lower[2], upper[2]) == (-np.inf, np.inf)
    assert np.isnan([lower[3], upper[3]]).all()
