"""Intervals of the local-privacy learners: the cases the first file leaves open.

The Square Wave and perturbed-KDE intervals with the fit's moment tilt and
bias correction (the delta method recomputed from the documented EM system
and tilt), the methods each estimator offers for each kind and the refusals
naming the estimator, the bootstrap's template and seeding, and the
deconvolution learners' records, quantile inversion and local linear fit on
small exact cases.  ``benchmarks/_mutation_specs_family_intervals.py`` lists
the mutants these tests were checked against.
"""

import os
import re
import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.base import BaseEstimator, TransformerMixin

from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
)
from skprivate._grid_density._ems import ML_MAX_ITER, ML_TOL, ems_cell_probabilities
from skprivate._grid_density._intervals import (
    MomentTilt,
    binomial_filter_matrix,
    cell_cdf_weights,
    ems_bias_correction,
    ems_covariance,
    smoothing_matrix,
)
from skprivate._grid_density._moments import moment_covariance, square_wave_features
from skprivate._uncertainty import bootstrap_replicates
from skprivate.exceptions import NotIdentifiableWarning
from skprivate.ldp import (
    LaplaceLDP,
    PerturbedKDEEstimator,
    SquareWaveEMSEstimator,
    SquareWaveLDP,
    deconvolution_kernel,
)
from skprivate.ldp._intervals import interval_kernel
from skprivate.ldp._noise_laws import GeneralizedGaussianNoise
from skprivate.ldp._square_wave import square_wave_half_width
from skprivate.ldp._transitions import additive_transition, square_wave_transition


def _exact(message):
    """The whole of an error message (a changed prefix or suffix fails too)."""
    return "^" + re.escape(message) + "$"


# the small samples here are far from the sizes the estimators are meant for
pytestmark = [
    pytest.mark.filterwarnings("ignore::skprivate.exceptions.CoverageWarning"),
    pytest.mark.filterwarnings("ignore::skprivate.exceptions.NotIdentifiableWarning"),
]

Z90 = stats.norm.ppf(0.95)

# -- Square Wave: a release whose EMS fit the moment tilt moves --------------

SW_A, SW_B, SW_EPS, SW_M = 2.0, 12.0, 1.0, 16
# two clusters: the smoothed EMS fit is wider than the reports' moments
# allow, so the tilt is active (its multipliers are not zero)
_SW_X = np.r_[np.full(100, 4.0), np.full(100, 9.0)][:, None]
SW_REPORTS = SquareWaveLDP(
    epsilon=SW_EPS, bounds=(SW_A, SW_B), random_state=0
).fit_transform(_SW_X)


def _sw(smoothing, moment_correction=True, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return SquareWaveEMSEstimator(
            epsilon=SW_EPS,
            bounds=(SW_A, SW_B),
            n_points=SW_M,
            smoothing=smoothing,
            moment_correction=moment_correction,
            **kw,
        ).fit(SW_REPORTS)


def _theta(est):
    theta = est.density_ * np.diff(est.edges_)
    return theta / theta.sum()


def _sw_system(smoothing, reports=SW_REPORTS, a=SW_A, b=SW_B, m=SW_M, width=None):
    """The EM system of the documentation: reports binned in the output cells."""
    A, out_edges = square_wave_transition(np.linspace(0.0, 1.0, m + 1), SW_EPS)
    v = (reports - a) / (b - a)
    bins = np.clip(np.searchsorted(out_edges, v, side="right") - 1, 0, m - 1)
    if smoothing == "auto":
        S = smoothing_matrix(m, width)
    else:
        S = binomial_filter_matrix(m) if smoothing else None
    return A, bins, S


def _binomial_ems(A, frequencies, smoothing, tol=1e-7):
    """The fit's EMS: uniform start, EM step, (1/4, 1/2, 1/4) filter, ``tol``."""
    m = A.shape[1]
    theta = np.full(m, 1.0 / m)
    previous = -np.inf
    for _ in range(10000):
        theta = theta * (A.T @ (frequencies / np.maximum(A @ theta, 1e-300)))
        theta /= theta.sum()
        if smoothing:
            padded = np.concatenate([theta[:1], theta, theta[-1:]])
            theta = 0.25 * padded[:-2] + 0.5 * padded[1:-1] + 0.25 * padded[2:]
            theta /= theta.sum()
        loglik = float(frequencies @ np.log(np.maximum(A @ theta, 1e-300)))
        if abs(loglik - previous) <= tol * abs(loglik):
            return theta
        previous = loglik
    raise AssertionError("no convergence")


def _sw_tilt(smoothing, untilted, reports=SW_REPORTS, a=SW_A, b=SW_B, m=SW_M):
    """The fit's tilt from the documented moments of the unit-domain reports."""
    V = (reports - a) / (b - a)
    v = V.ravel()
    w = square_wave_half_width(SW_EPS)
    features = square_wave_features(
        np.linspace(0.0, 1.0, m + 1), w, 2 * w * np.exp(SW_EPS)
    )
    cov = moment_covariance(
        v.size, v.mean(), np.mean(v**2), np.mean(v**3), np.mean(v**4)
    )
    return MomentTilt(
        features=features,
        unit_moments=np.column_stack([V.mean(axis=1), (V**2).mean(axis=1)]),
        untilted=untilted,
        moment_cov=cov,
    )


def _sw_refit(smoothing, est, start):
    if smoothing == "auto":
        return lambda f: ems_cell_probabilities(
            _sw_system("auto")[0],
            f,
            est.smoothing_width_,
            max_iter=ML_MAX_ITER,
            tol=ML_TOL,
            start=start,
            warn=False,
        )[0]
    return lambda f: _binomial_ems(_sw_system(smoothing)[0], f, smoothing)


POINTS = np.array([4.5, 6.0, 9.5])


@pytest.mark.parametrize("smoothing", [True, False, "auto"])
def test_square_wave_tilted_intervals_are_the_delta_method_of_ems_and_tilt(smoothing):
    est = _sw(smoothing)
    plain = _sw(smoothing, moment_correction=False)
    A, bins, S = _sw_system(smoothing, width=est.smoothing_width_)
    # the untilted law is the fit without the tilt; the tilt gives the fit
    tilt = _sw_tilt(smoothing, _theta(plain))
    tilted, lam = tilt.tilted()
    assert np.all(lam != 0)
    theta = _theta(est)
    np.testing.assert_allclose(tilted, theta, atol=1e-7)
    cov = ems_covariance(A, theta, S, bins, tilt)
    W = cell_cdf_weights(est.edges_, POINTS)
    mids = 0.5 * (est.edges_[:-1] + est.edges_[1:])

    smoothed = est.conf_int("cdf", POINTS, X=SW_REPORTS, method="smoothed")
    np.testing.assert_allclose(smoothed["estimate"], W @ theta, rtol=1e-10)
    np.testing.assert_allclose(
        smoothed["se"], np.sqrt(np.diag(W @ cov @ W.T)), rtol=1e-9, atol=1e-9
    )
    mean = est.conf_int("mean", X=SW_REPORTS, method="smoothed", level=0.9).iloc[0]
    se = np.sqrt(mids @ cov @ mids)
    assert mean["se"] == pytest.approx(se, rel=1e-9)
    assert mean["lower"] == pytest.approx(mids @ theta - Z90 * se, rel=1e-9)
    assert mean["method"] == "linearized EMS (delta method)"

    # rbc: theta_bc = 2 theta - Phi(A theta), Phi the fit's EMS and tilt
    theta_bc, M = ems_bias_correction(
        A, theta, S, _sw_refit(smoothing, est, tilt.untilted), tilt
    )
    cov_bc = M @ cov @ M.T
    rbc = est.conf_int("cdf", POINTS, X=SW_REPORTS, method="rbc")
    np.testing.assert_allclose(
        rbc["estimate"], np.clip(W @ theta_bc, 0, 1), rtol=1e-9, atol=1e-12
    )
    np.testing.assert_allclose(
        rbc["se"], np.sqrt(np.diag(W @ cov_bc @ W.T)), rtol=1e-9, atol=1e-9
    )
    got = est.conf_int("mean", X=SW_REPORTS, method="rbc").iloc[0]
    assert got["estimate"] == pytest.approx(mids @ theta_bc, rel=1e-9)
    assert got["se"] == pytest.approx(np.sqrt(mids @ cov_bc @ mids), rel=1e-9)
    assert got["method"] == "linearized EMS, bias-corrected (delta method)"


def test_square_wave_mean_methods_and_the_refusal_naming_the_estimator():
    est = _sw(True, moment_correction=False)
    smoothed = est.conf_int("mean", X=SW_REPORTS, method="smoothed")
    # "linearized" is the former name of "smoothed": the same interval
    linearized = est.conf_int("mean", X=SW_REPORTS, method="linearized")
    assert linearized.equals(smoothed)
    rbc = est.conf_int("mean", X=SW_REPORTS, method="rbc").iloc[0]
    assert rbc["target"].startswith("E[X], the true value")
    assert rbc["estimate"] != smoothed["estimate"].iloc[0]
    # the default is the moment estimator
    auto = est.conf_int("mean", X=SW_REPORTS).iloc[0]
    assert auto["method"] == "moment (unbiased)"
    assert auto["target"] == "E[X] (values clipped into the declared bounds)"
    with pytest.raises(
        ValueError,
        match=_exact(
            "SquareWaveEMSEstimator computes 'mean' intervals with method in "
            "['bootstrap', 'linearized', 'moment', 'rbc', 'smoothed'] (or "
            "'auto'); got method='noisy-mean'."
        ),
    ):
        est.conf_int("mean", X=SW_REPORTS, method="noisy-mean")
    boot = est.conf_int(
        "mean", X=SW_REPORTS, method="bootstrap", n_resamples=3, random_state=4
    ).iloc[0]
    reps = bootstrap_replicates(
        SquareWaveEMSEstimator(
            epsilon=SW_EPS, bounds=(SW_A, SW_B), n_points=SW_M, moment_correction=False
        ),
        SW_REPORTS,
        lambda e: e.mean(),
        n_resamples=3,
        random_state=4,
    )
    assert boot["method"] == "bootstrap-percentile"
    assert boot["estimate"] == pytest.approx(est.mean(), rel=1e-12)
    assert boot["lower"] == pytest.approx(np.quantile(reps, 0.025), rel=1e-12)
    assert boot["upper"] == pytest.approx(np.quantile(reps, 0.975), rel=1e-12)


def test_square_wave_with_a_privatizer_reads_its_release_and_resamples_it():
    x = np.linspace(3, 11, 12)[:, None]
    priv = SquareWaveLDP(epsilon=2.0, bounds=(1.0, 13.0), random_state=3)
    est = SquareWaveEMSEstimator(
        privatizer=priv, n_points=8, moment_correction=False
    ).fit(x)
    reports = est.released_
    # the moment estimator of the kept release: bounds and budget of the fit
    w = square_wave_half_width(2.0)
    p = 2 * w * np.exp(2.0) / (2 * w * np.exp(2.0) + 1)
    s, c = p * (1 + 2 * w) - 2 * w, (1 - p) * (0.5 + w)
    v = (reports[:, 0] - 1.0) / 12.0
    got = est.conf_int("mean", level=0.9).iloc[0]
    mean = 1.0 + 12.0 * (v.mean() - c) / s
    se = 12.0 * v.std(ddof=1) / (s * np.sqrt(12))
    assert got["estimate"] == pytest.approx(mean, rel=1e-10)
    assert got["se"] == pytest.approx(se, rel=1e-10)
    assert (got["lower"], got["upper"]) == pytest.approx(
        (mean - Z90 * se, mean + Z90 * se), rel=1e-10
    )
    # the bootstrap refits a clone without the privatizer, at the fitted
    # budget and bounds, on the release
    boot = est.conf_int(
        "cdf", [5.0, 9.0], method="bootstrap", n_resamples=3, random_state=6
    )
    template = SquareWaveEMSEstimator(
        epsilon=2.0, bounds=(1.0, 13.0), n_points=8, moment_correction=False
    )
    reps = bootstrap_replicates(
        template, reports, lambda e: e.cdf([5.0, 9.0]), n_resamples=3, random_state=6
    )
    np.testing.assert_allclose(boot["lower"], np.quantile(reps, 0.025, axis=0))
    np.testing.assert_allclose(boot["upper"], np.quantile(reps, 0.975, axis=0))
    with pytest.raises(ValueError, match="data passed as X would be"):
        est.conf_int("mean", X=reports)


def test_square_wave_reports_on_bucket_edges_are_binned_as_the_fit_bins_them():
    # bounds (0, 1): a report is its unit value, so reports can sit exactly
    # on an output edge, and just outside the range (within the 1e-9 the
    # fit accepts): half-open buckets [e_j, e_j+1), the end buckets closed
    m = 8
    _, out_edges = square_wave_transition(np.linspace(0.0, 1.0, m + 1), SW_EPS)
    rng = np.random.default_rng(5)
    reports = np.r_[
        rng.uniform(out_edges[0], out_edges[-1], 30),
        out_edges[[1, 3, 4, 6]],
        out_edges[0] - 5e-10,
        out_edges[-1] + 5e-10,
        out_edges[-1] - 1e-3,
    ][:, None]
    est = SquareWaveEMSEstimator(
        epsilon=SW_EPS,
        bounds=(0.0, 1.0),
        n_points=m,
        smoothing=False,
        moment_correction=False,
    ).fit(reports)
    A = square_wave_transition(np.linspace(0.0, 1.0, m + 1), SW_EPS)[0]
    bins = np.clip(np.searchsorted(out_edges, reports, side="right") - 1, 0, m - 1)
    assert bins[30:, 0].tolist() == [1, 3, 4, 6, 0, m - 1, m - 1]
    W = cell_cdf_weights(est.edges_, np.array([0.3, 0.6]))
    got = est.conf_int("cdf", [0.3, 0.6], X=reports, method="smoothed")
    cov = ems_covariance(A, _theta(est), None, bins)
    np.testing.assert_allclose(got["se"], np.sqrt(np.diag(W @ cov @ W.T)), rtol=1e-8)


def test_square_wave_tilt_with_empty_buckets_at_the_top():
    # every report in the lower half of the output range: the top buckets
    # are empty and still count (as zeros) in the EM system of the tilt
    m = 8
    w = square_wave_half_width(SW_EPS)
    reports = np.linspace(-w + 0.01, 0.45, 40)[:, None]
    fits = {
        mc: SquareWaveEMSEstimator(
            epsilon=SW_EPS,
            bounds=(0.0, 1.0),
            n_points=m,
            smoothing=False,
            moment_correction=mc,
        ).fit(reports)
        for mc in (True, False)
    }
    est = fits[True]
    A, out_edges = square_wave_transition(np.linspace(0.0, 1.0, m + 1), SW_EPS)
    bins = np.clip(np.searchsorted(out_edges, reports, side="right") - 1, 0, m - 1)
    assert bins.max() < m - 2
    tilt = _sw_tilt(False, _theta(fits[False]), reports, 0.0, 1.0, m)
    cov = ems_covariance(A, _theta(est), None, bins, tilt)
    W = cell_cdf_weights(est.edges_, np.array([0.2, 0.5]))
    got = est.conf_int("cdf", [0.2, 0.5], X=reports, method="smoothed")
    # the fitted law has no mass above 0.5, so the CDF there has variance
    # zero in exact arithmetic: its rounded value has either sign, by machine
    np.testing.assert_allclose(
        got["se"],
        np.sqrt(np.clip(np.diag(W @ cov @ W.T), 0.0, None)),
        rtol=1e-8,
        atol=1e-8,
    )


class GaussianRelease(TransformerMixin, BaseEstimator):
    """A mechanism outside the known additive ones that declares its noise law.

    It releases its input as it is (no noise is drawn: the tests choose the
    released values), while declaring Gaussian noise of scale 0.5 on
    ``bounds``, which is what the perturbed KDE's EM system reads.
    """

    def __init__(self, bounds=(-3.0, 3.0)):
        self.bounds = bounds

    def fit(self, X, y=None):
        self.bounds_ = self.bounds
        self.noise_ = [GeneralizedGaussianNoise(0.5, 2.0)]
        return self

    def transform(self, X):
        return np.asarray(X, dtype=float)


PK_X = np.random.default_rng(0).normal(size=(60, 1)).clip(-3, 3)


def _pk_gauss(values=PK_X, **kw):
    return PerturbedKDEEstimator(
        n_points=16, privatizer=GaussianRelease(), moment_correction=False, **kw
    ).fit(values)


def test_perturbed_kde_mean_methods_of_a_mechanism_outside_the_known_ones():
    est = _pk_gauss()
    assert est.method_ == "ml"
    # no noisy mean for it: the default is the bias-corrected EMS interval
    auto = est.conf_int("mean", level=0.9)
    rbc = est.conf_int("mean", level=0.9, method="rbc")
    assert auto.equals(rbc)
    assert rbc["method"].iloc[0] == "linearized EMS, bias-corrected (delta method)"
    smoothed = est.conf_int("mean", method="smoothed")
    assert est.conf_int("mean", method="linearized").equals(smoothed)
    assert smoothed["method"].iloc[0] == "linearized EMS (delta method)"
    # the smoothed mean by hand: the delta method of the fitted cells
    law = GeneralizedGaussianNoise(0.5, 2.0)
    A, out_edges = additive_transition(est.edges_, law)
    bins = np.clip(
        np.searchsorted(out_edges, PK_X, side="right") - 1, 0, A.shape[0] - 1
    )
    S = smoothing_matrix(est.edges_.size - 1, est.smoothing_width_)
    theta = _theta(est)
    cov = ems_covariance(A, theta, S, bins)
    mids = 0.5 * (est.edges_[:-1] + est.edges_[1:])
    assert smoothed["estimate"].iloc[0] == pytest.approx(mids @ theta, rel=1e-10)
    assert smoothed["se"].iloc[0] == pytest.approx(np.sqrt(mids @ cov @ mids), rel=1e-8)
    with pytest.raises(
        ValueError,
        match=_exact(
            "method='noisy-mean' needs releases of a known additive mechanism "
            "(LaplaceLDP, GeneralizedGaussianLDP, FlippedHuberLDP) given as "
            "privatizer."
        ),
    ):
        est.conf_int("mean", method="noisy-mean")
    with pytest.raises(
        ValueError,
        match=_exact(
            "PerturbedKDEEstimator computes 'mean' intervals with method in "
            "['bootstrap', 'linearized', 'noisy-mean', 'rbc', 'smoothed'] (or "
            "'auto'); got method='moment'."
        ),
    ):
        est.conf_int("mean", method="moment")


def test_perturbed_kde_releases_on_bin_edges_and_beyond_the_end_bins():
    # the two end bins of the EM system are open: releases beyond them count
    # in them; a release on an edge counts in the bin it opens
    law = GaussianRelease().fit(None).noise_[0]
    probe = PerturbedKDEEstimator(
        n_points=16, privatizer=GaussianRelease(), moment_correction=False
    )
    edges = probe.fit(PK_X).edges_
    A, out_edges = additive_transition(edges, law)
    k = A.shape[0]
    extra = np.r_[
        out_edges[[0, 1, 5, k - 1, k]], out_edges[0] - 1.0, out_edges[-1] + 1.0
    ]
    values = np.r_[PK_X[:, 0], extra][:, None]
    est = _pk_gauss(values)
    bins = np.clip(np.searchsorted(out_edges, values, side="right") - 1, 0, k - 1)
    assert bins[60:, 0].tolist() == [0, 1, 5, k - 1, k - 1, 0, k - 1]
    S = smoothing_matrix(edges.size - 1, est.smoothing_width_)
    cov = ems_covariance(A, _theta(est), S, bins)
    W = cell_cdf_weights(est.edges_, np.array([-1.0, 0.5]))
    got = est.conf_int("cdf", [-1.0, 0.5], method="smoothed")
    np.testing.assert_allclose(got["se"], np.sqrt(np.diag(W @ cov @ W.T)), rtol=1e-8)


def test_perturbed_kde_paper_fit_bootstraps_a_paper_clone_on_the_release():
    priv = LaplaceLDP(epsilon=2, bounds=(-3, 3), random_state=1)
    est = PerturbedKDEEstimator(
        n_points=16, privatizer=priv, method="paper", bandwidth=0.5
    ).fit(PK_X)
    assert est.method_ == "paper"
    # a known additive mechanism: the noisy mean is the default
    noisy = est.conf_int("mean").iloc[0]
    assert noisy["method"] == "noisy-mean"
    assert noisy["estimate"] == pytest.approx(est.released_.mean(), rel=1e-12)
    boot = est.conf_int("mean", method="bootstrap", n_resamples=3, random_state=2)
    reps = bootstrap_replicates(
        PerturbedKDEEstimator(
            n_points=16, method="paper", bandwidth=0.5, bounds=(-3.0, 3.0)
        ),
        est.released_,
        lambda e: e.mean(),
        n_resamples=3,
        random_state=2,
    )
    assert boot["estimate"].iloc[0] == pytest.approx(est.mean(), rel=1e-12)
    assert boot["lower"].iloc[0] == pytest.approx(np.quantile(reps, 0.025))
    assert boot["upper"].iloc[0] == pytest.approx(np.quantile(reps, 0.975))
    # a paper fit has no EM system: its linearized means are refused
    for method in ("rbc", "smoothed", "linearized"):
        with pytest.raises(ValueError, match="was not fitted by EM with smoothing"):
            est.conf_int("mean", method=method)


# -- deconvolution density ---------------------------------------------------

Z4 = np.array([-0.5, 0.1, 0.4, 1.2])
H, B, LOW, HIGH = 0.8, 0.3, -2.0, 2.0


def _kde(**kw):
    return DeconvolutionKernelDensity(
        bandwidth=H, noise_scale=B, support=(LOW, HIGH), **kw
    ).fit(Z4[:, None])


def test_density_methods_per_kind_and_refusals_naming_the_estimator():
    kde = _kde()
    with pytest.raises(
        ValueError,
        match=_exact(
            "DeconvolutionKernelDensity computes 'mean' intervals with method in "
            "['bootstrap', 'noisy-mean'] (or 'auto'); got method='rbc'."
        ),
    ):
        kde.conf_int("mean", method="rbc")
    with pytest.raises(
        ValueError,
        match=_exact(
            "DeconvolutionKernelDensity computes 'pdf' intervals with method in "
            "['rbc', 'smoothed'] (or 'auto'); got method='bootstrap'."
        ),
    ):
        kde.conf_int("pdf", [0.0], method="bootstrap")
    for kind, points in (("cdf", [0.0]), ("quantile", [0.5])):
        with pytest.raises(
            ValueError,
            match=_exact(
                f"DeconvolutionKernelDensity computes {kind!r} intervals with "
                "method in ['bootstrap', 'rbc', 'smoothed'] (or 'auto'); got "
                "method='noisy-mean'."
            ),
        ):
            kde.conf_int(kind, points, method="noisy-mean")
    assert kde._ci_interval_kinds() == ["cdf", "mean", "pdf", "quantile"]
    # the Cauchy kernel has no fourth-order version: rbc is refused for the
    # quantiles too, and the smoothed interval is their default
    cauchy = _kde(kernel="cauchy")
    message = (
        "method='rbc' needs kernel='gaussian' (the Cauchy kernel has no "
        "moments to correct the bias with); use method='smoothed'."
    )
    for kind, points in (("cdf", [0.0]), ("quantile", [0.5])):
        with pytest.raises(ValueError, match=_exact(message)):
            cauchy.conf_int(kind, points, method="rbc")
    got = cauchy.conf_int("quantile", [0.5])
    assert got["method"].iloc[0] == "smoothed, CDF test inversion"
    assert got["target"].iloc[0] == "the quantile of F smoothed by K_h"
    # the Gaussian kernel's default is rbc, for every pointwise kind
    assert kde.conf_int("quantile", [0.5])["target"].iloc[0] == "F^-1(q)"
    assert kde.conf_int("cdf", [0.5])["target"].iloc[0] == "F(x)"


def test_density_smoothed_estimates_are_the_fit_up_to_the_support_ends():
    # without the moment correction the fit is the normalised (reflected)
    # deconvolution estimate: the centre of the smoothed interval, at the
    # ends of the support too (they are inside it)
    x = [LOW, -0.3, 0.9, HIGH]
    for boundary in ("reflect", "clip"):
        kde = _kde(boundary=boundary, moment_correction=False)
        pdf = kde.conf_int("pdf", x, method="smoothed")
        np.testing.assert_allclose(pdf["estimate"], kde.pdf(x), rtol=1e-6)
        assert (pdf["se"] > 0).all()
        cdf = kde.conf_int("cdf", x, method="smoothed")
        np.testing.assert_allclose(cdf["estimate"], kde.cdf(x), rtol=1e-6, atol=1e-15)
        assert cdf["se"].iloc[[0, 3]].tolist() == pytest.approx([0.0, 0.0], abs=1e-15)
        assert (cdf["se"].iloc[[1, 2]] > 0).all()


def _quantile_by_hand(kde, q, level, method):
    """The documented inversion from the CDF intervals (see the first file).

    Coarse grid: 65 points of the support; fine grid: 129 points from one
    coarse step before the first to one after the last coarse point whose
    CDF is within 3.29 standard errors of q (or around the first coarse
    point at or above q); the estimate interpolates the CDF across q, the
    interval is the fine points whose CDF interval holds q.
    """

    def cdf(x):
        got = kde.conf_int("cdf", x, method=method)
        return got["estimate"].to_numpy(), got["se"].to_numpy()

    coarse = np.linspace(LOW, HIGH, 65)
    Fc, sc = cdf(coarse)
    wide = np.flatnonzero(np.abs(Fc - q) <= 3.29 * sc)
    if wide.size == 0:
        wide = np.flatnonzero(q <= Fc)[:1]
    grid = np.linspace(coarse[max(wide[0] - 1, 0)], coarse[min(wide[-1] + 1, 64)], 129)
    F, se = cdf(grid)
    i = np.flatnonzero(q <= F)[0]
    estimate = grid[i - 1] + (q - F[i - 1]) / (F[i] - F[i - 1]) * (
        grid[i] - grid[i - 1]
    )
    ok = np.flatnonzero(np.abs(F - q) <= stats.norm.ppf(0.5 + level / 2) * se)
    return (estimate, grid[ok[0]], grid[ok[-1]]) if ok.size else (estimate,) * 3, i


def test_density_quantile_inversion_at_the_ends_of_its_grids():
    kde = _kde()
    # q = 0.001: the first coarse point within 3.29 se of q is the second
    # one, so the fine grid starts at the support's start
    got = kde.conf_int("quantile", [0.001], method="smoothed", level=0.9).iloc[0]
    (estimate, lower, upper), _ = _quantile_by_hand(kde, 0.001, 0.9, "smoothed")
    assert (got["estimate"], got["lower"], got["upper"]) == pytest.approx(
        (estimate, lower, upper), abs=1e-12
    )
    # identical records: no spread, so the fine grid surrounds the first
    # coarse point at or above q
    same = DeconvolutionKernelDensity(
        bandwidth=H, noise_scale=B, support=(LOW, HIGH)
    ).fit(np.full((5, 1), 0.3))
    coarse = np.linspace(LOW, HIGH, 65)
    Fc = same.conf_int("cdf", coarse, method="smoothed")["estimate"].to_numpy()
    # above the last coarse point but one: the fine grid ends at the support's end
    q_end = 0.5 * (Fc[63] + 1.0)
    # just above the fine grid's first point: the crossing is its first step
    w = int(np.flatnonzero(Fc >= 0.4)[0])
    fine = np.linspace(coarse[w - 1], coarse[w + 1], 129)
    F = same.conf_int("cdf", fine[:2], method="smoothed")["estimate"].to_numpy()
    q_first = 0.5 * (F[0] + F[1])
    ci = same.conf_int("quantile", [q_end, q_first], method="smoothed")
    for j, (q, at) in enumerate(((q_end, None), (q_first, 1))):
        (estimate, _, _), i = _quantile_by_hand(same, q, 0.95, "smoothed")
        if at is not None:
            assert i == at
        row = ci.iloc[j]
        assert row["estimate"] == pytest.approx(estimate, abs=1e-12)
        assert row["lower"] == row["upper"] == row["estimate"]


def test_density_mean_and_pointwise_frames_and_the_empty_support_refusal():
    kde = _kde()
    # the noisy mean asked for by name is the default one
    named = kde.conf_int("mean", method="noisy-mean", level=0.9)
    assert named.equals(kde.conf_int("mean", level=0.9))
    assert named["estimate"].iloc[0] == pytest.approx(Z4.mean(), rel=1e-12)
    for kind in ("pdf", "cdf"):
        got = kde.conf_int(kind, [-0.7, 0.4], method="smoothed")
        assert got["quantity"].tolist() == [kind, kind]
        assert got["point"].tolist() == [-0.7, 0.4]
    with pytest.raises(
        ValueError,
        match=_exact(
            "The deconvolution estimate has no positive mass on the support; "
            "no interval can be computed."
        ),
    ):
        kde.conf_int("pdf", [0.0], X=[40.0, 41.0], method="smoothed")


_PRIVATE_KDE = {}


def _private_kde():
    """A density fitted with a privatizer (kept release), made once."""
    if not _PRIVATE_KDE:
        x = np.random.default_rng(0).normal(size=(20, 1)).clip(-2, 2)
        # (without the moment correction, which costs a linear program per
        # replicate on data this few)
        _PRIVATE_KDE["kde"] = DeconvolutionKernelDensity(
            bandwidth=H,
            moment_correction=False,
            privatizer=LaplaceLDP(epsilon=2, bounds=(-2, 2), random_state=0),
        ).fit(x)
    return _PRIVATE_KDE["kde"]


@pytest.mark.parametrize(
    "kind, points",
    [("cdf", [0.0, 0.7]), ("quantile", [0.3, 0.6])],
)
def test_density_with_a_privatizer_bootstraps_a_clone_on_its_release(kind, points):
    kde = _private_kde()
    # the clone takes the release: no privatizer, the fitted noise scale and
    # support
    template = DeconvolutionKernelDensity(
        bandwidth=H, noise_scale=2.0, support=(-2.0, 2.0), moment_correction=False
    )

    def stat(e):
        return e.cdf(points) if kind == "cdf" else e.quantile(points)

    got = kde.conf_int(kind, points, method="bootstrap", n_resamples=3, random_state=7)
    reps = bootstrap_replicates(
        template, kde.released_, stat, n_resamples=3, random_state=7
    )
    np.testing.assert_allclose(got["lower"], np.quantile(reps, 0.025, axis=0))
    np.testing.assert_allclose(got["upper"], np.quantile(reps, 0.975, axis=0))
    np.testing.assert_allclose(got["se"], np.std(reps, axis=0, ddof=1))
    np.testing.assert_allclose(got["estimate"], stat(kde))
    assert got["quantity"].tolist() == [kind] * 2
    assert got["point"].tolist() == points
    assert set(got["method"]) == {"bootstrap-percentile"}
    # the noisy mean of the kept release
    noisy = kde.conf_int("mean").iloc[0]
    assert noisy["estimate"] == pytest.approx(kde.released_.mean(), rel=1e-12)


# -- deconvolution regression ---------------------------------------------

ZR = np.array([-1.0, -0.4, 0.0, 0.3, 0.8, 1.5])
YR = np.array([0.5, 1.0, 0.2, 1.4, 2.0, 2.2])
HR, BR = 0.9, 0.25


def _fieller_by_hand(K, y, level):
    """The ends of {t: (N - t D)**2 <= z**2 V(t)} from the quadratic's roots."""
    z2 = stats.norm.ppf(0.5 + level / 2) ** 2
    N, D = K @ y, K.sum()
    quad = (1 + z2 / K.size) * np.array([D * D, -2 * N * D, N * N]) - z2 * np.array(
        [K @ K, -2 * (K**2 @ y), K**2 @ y**2]
    )
    assert quad[0] > 0
    return tuple(np.sort(np.roots(quad).real))


def test_local_linear_fit_where_its_design_is_near_singular_is_the_local_constant():
    reg = DeconvolutionKernelRegressor(bandwidth=HR, degree=1, noise_scale=BR).fit(
        ZR[:, None], YR
    )
    r = BR / HR
    x0 = -1.75  # kernel sums positive, the scaled local linear design's
    # smallest eigenvalue below 0.05, and the point not a fallback
    u = (ZR - x0) / HR
    L0, L1, L2 = (deconvolution_kernel(u, r, order=k) for k in (0, 1, 2))
    M = np.array([[L0.sum(), L1.sum()], [L1.sum(), L2.sum()]])
    d = np.sqrt(np.diag(M))
    assert 0 < np.linalg.eigvalsh(M / np.outer(d, d))[0] <= 0.05
    assert not reg.fallback_mask([[x0]])[0]
    ci = reg.conf_int("predict", [[x0], [0.0]], level=0.9).iloc[0]
    m = L0 @ YR / L0.sum()
    assert ci["estimate"] == pytest.approx(m, rel=1e-10)
    assert ci["estimate"] == pytest.approx(reg.predict([[x0]])[0], rel=1e-10)
    assert ci["se"] == pytest.approx(
        np.sqrt(np.sum((L0 * (YR - m)) ** 2)) / L0.sum(), rel=1e-10
    )
    assert (ci["lower"], ci["upper"]) == pytest.approx(
        _fieller_by_hand(L0, YR, 0.9), rel=1e-9
    )
    assert ci["method"] == "smoothed (sandwich)"
    assert ci["target"] == "E[y | x] smoothed at the bandwidth"
    assert (ci["quantity"], ci["point"], ci["level"]) == ("predict", x0, 0.9)
    # at -1.5 the design's smallest scaled eigenvalue is 0.068: local linear
    x1 = -1.5
    u = (ZR - x1) / HR
    L0, L1, L2 = (deconvolution_kernel(u, r, order=k) for k in (0, 1, 2))
    M = np.array([[L0.sum(), L1.sum()], [L1.sum(), L2.sum()]])
    d = np.sqrt(np.diag(M))
    assert 0.06 < np.linalg.eigvalsh(M / np.outer(d, d))[0] < 0.07
    beta = np.linalg.solve(M, np.array([L0 @ YR, L1 @ YR]))
    got = reg.conf_int("predict", [[x1]]).iloc[0]
    assert got["estimate"] == pytest.approx(beta[0], rel=1e-9)
    assert got["estimate"] == pytest.approx(reg.predict([[x1]])[0], rel=1e-9)
    # far from every record the kernel sums are exactly 0: the fallback to
    # the training mean, named by one NotIdentifiableWarning and no other
    # warning (no 0 / 0 computed on the way); its estimate is the value
    # predict falls back to, and no interval
    assert reg.fallback_mask([[60.0], [0.0]]).tolist() == [True, False]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        # the (automatic) smoothed interval's own CoverageWarning is expected
        warnings.filterwarnings("ignore", "DeconvolutionKernelRegressor: the smoothed")
        far = reg.conf_int("predict", [[60.0], [0.0]])
    assert [w.category for w in caught] == [NotIdentifiableWarning]
    assert str(caught[0].message) == (
        "DeconvolutionKernelRegressor: the predict interval is NaN at 1 "
        "point(s), (60), where predict falls back to the training mean (see "
        "fallback_mask: no records near them, or kernel weights that cannot be "
        "told from zero): the records do not identify E[y | x] there. The "
        "estimate column holds the fallback value that predict returns."
    )
    if "MUTANT_UNDER_TEST" not in os.environ:
        # mutation runs put a trampoline frame between the test and the warning
        assert caught[0].filename == __file__
    assert far["estimate"].iloc[0] == reg.predict([[60.0]])[0]
    assert far["estimate"].iloc[0] == pytest.approx(YR.mean(), rel=1e-12)
    assert np.isnan(far[["se", "lower", "upper"]].iloc[0].to_numpy(float)).all()
    assert np.isfinite(
        far[["estimate", "se", "lower", "upper"]].iloc[1].to_numpy(float)
    ).all()


def test_density_fitted_on_a_lazy_release_asks_for_an_in_memory_fit():
    da = pytest.importorskip("dask.array")
    x = da.from_array(np.linspace(-1.5, 1.5, 20)[:, None], chunks=10)
    kde = DeconvolutionKernelDensity(
        bandwidth=H,
        moment_correction=False,
        privatizer=LaplaceLDP(epsilon=2, bounds=(-2, 2), random_state=0),
    ).fit(x)
    assert kde.released_ is None
    for kind, points in (("mean", None), ("pdf", [0.0]), ("quantile", [0.5])):
        with pytest.raises(
            ValueError,
            match=_exact(
                f"{kind!r} intervals by this method are computed from the "
                "released records, and this estimator privatized a dask "
                "collection itself (privatizer=), whose release stays lazy and "
                "is not kept (computing it again would release the raw data a "
                "second time). Fit it on an in-memory array, or privatize the "
                "data first and fit an estimator without privatizer= on the "
                "release."
            ),
        ):
            kde.conf_int(kind, points)


LABELS = np.array(["a", "b", "a", "c", "b", "b"])


def _classifier(degree):
    return DeconvolutionKernelClassifier(
        bandwidth=HR, degree=degree, noise_scale=BR
    ).fit(ZR[:, None], LABELS)


def test_classifier_interval_ends_outside_the_unit_interval_are_clipped():
    # at -1.75 the fourth-order weights make the ratio of class a 1.24 and
    # that of class c -0.20; at the level 0.5 Fieller's interval of a lies
    # above 1 and that of c below 0: both ends clip to the nearer bound.
    # The estimate is the ratio vector made a probability vector as
    # predict_proba makes the fit's (clipped to [1e-6, 1], renormalized),
    # and the interval is widened to it: the estimate lies in its interval
    clf = _classifier(0)
    ci = clf.conf_int("predict_proba", [[-1.75]], level=0.5)
    K = interval_kernel((ZR + 1.75) / HR, BR / HR, "gaussian", True)
    ratios = np.array([K @ np.equal(LABELS, c) / K.sum() for c in "abc"])
    assert ratios[0] == pytest.approx(1.2370641426, abs=1e-9)
    clipped = np.clip(ratios, 1e-6, 1.0)
    estimate = clipped / clipped.sum()
    np.testing.assert_allclose(ci["estimate"], estimate, rtol=1e-10)
    for row, cls, bound in ((0, "a", 1.0), (2, "c", 0.0)):
        y = np.equal(LABELS, cls).astype(float)
        lo, hi = _fieller_by_hand(K, y, 0.5)
        assert (lo > 1) if bound else (hi < 0)
        got = ci.iloc[row]
        # the clipped end is the bound, the other end the estimate
        ends = sorted([bound, estimate[row]])
        assert got["lower"] == pytest.approx(ends[0], rel=1e-10, abs=0)
        assert got["upper"] == pytest.approx(ends[1], rel=1e-10, abs=0)
        assert got["lower"] <= got["estimate"] <= got["upper"]
    # one block per class, numbered from 0
    assert ci.index.tolist() == [0, 1, 2]
    assert ci["quantity"].tolist() == ["P(y=a)", "P(y=b)", "P(y=c)"]


def test_classifier_local_linear_sandwich_per_class_and_given_labels():
    clf = _classifier(1)
    x0 = 0.2
    ci = clf.conf_int("predict_proba", [[x0]], level=0.9)
    assert set(ci["method"]) == {"smoothed (sandwich)"}
    u = (ZR - x0) / HR
    r = BR / HR
    L0, L1, L2 = (deconvolution_kernel(u, r, order=k) for k in (0, 1, 2))
    M = np.array([[L0.sum(), L1.sum()], [L1.sum(), L2.sum()]])
    Minv = np.linalg.inv(M)
    for k, cls in enumerate("abc"):
        y = np.equal(LABELS, cls).astype(float)
        beta = np.linalg.solve(M, np.array([L0 @ y, L1 @ y]))
        psi = np.column_stack(
            [
                L0 * y - (L0 * beta[0] + L1 * beta[1]),
                L1 * y - (L1 * beta[0] + L2 * beta[1]),
            ]
        )
        se = np.sqrt((Minv @ psi.T @ psi @ Minv.T)[0, 0])
        assert ci["estimate"].iloc[k] == pytest.approx(beta[0], rel=1e-9)
        assert ci["se"].iloc[k] == pytest.approx(se, rel=1e-9)
    # the labels given with X: the same one-hot responses, the same fit
    again = clf.conf_int("predict_proba", [[x0]], level=0.9, X=ZR, y=LABELS)
    np.testing.assert_allclose(again["estimate"], ci["estimate"], rtol=1e-12)
    np.testing.assert_allclose(again["se"], ci["se"], rtol=1e-12)


def test_regression_bootstrap_refits_at_the_chosen_bandwidth():
    # a bandwidth chosen by leave-one-out: the replicates keep the chosen one
    reg = DeconvolutionKernelRegressor(bandwidth="loo", degree=0, noise_scale=BR).fit(
        ZR[:, None], YR
    )
    assert reg.bandwidth_ != HR
    rows = np.array([[0.0], [0.6]])
    got = reg.conf_int(
        "predict", rows, method="bootstrap", n_resamples=4, random_state=3
    )
    reps = bootstrap_replicates(
        DeconvolutionKernelRegressor(
            bandwidth=float(reg.bandwidth_), degree=0, noise_scale=BR
        ),
        ZR[:, None],
        lambda est: est.predict(rows),
        y=YR,
        n_resamples=4,
        random_state=3,
    )
    np.testing.assert_allclose(got["lower"], np.nanquantile(reps, 0.025, axis=0))
    np.testing.assert_allclose(got["upper"], np.nanquantile(reps, 0.975, axis=0))
    assert got["quantity"].tolist() == ["predict", "predict"]


def test_grid_estimators_read_released_numbers_given_as_text_and_rows_as_units():
    # X as text is read as numbers; a row of several reports is one unit
    est = _sw(True, moment_correction=False)
    text = SW_REPORTS.astype(str)
    np.testing.assert_allclose(
        est.conf_int("mean", X=text).iloc[0][["estimate", "se"]].to_numpy(float),
        est.conf_int("mean", X=SW_REPORTS).iloc[0][["estimate", "se"]].to_numpy(float),
        rtol=1e-12,
    )
    two = np.column_stack([SW_REPORTS[:, 0], SW_REPORTS[::-1, 0]])
    v = (two.mean(axis=1) - SW_A) / (SW_B - SW_A)
    w = square_wave_half_width(SW_EPS)
    p = 2 * w * np.exp(SW_EPS) / (2 * w * np.exp(SW_EPS) + 1)
    s = p * (1 + 2 * w) - 2 * w
    got = est.conf_int("mean", X=two).iloc[0]
    assert got["se"] == pytest.approx(
        (SW_B - SW_A) * v.std(ddof=1) / (s * np.sqrt(v.size)), rel=1e-10
    )
    # the perturbed KDE's noisy mean: the mean of each row's releases
    priv = LaplaceLDP(epsilon=2, bounds=(-3, 3), random_state=1)
    pk = PerturbedKDEEstimator(
        n_points=16, privatizer=priv, method="paper", bandwidth=0.5
    ).fit(np.column_stack([PK_X[:, 0], PK_X[::-1, 0]]))
    units = pk.released_.mean(axis=1)
    got = pk.conf_int("mean").iloc[0]
    assert got["estimate"] == pytest.approx(units.mean(), rel=1e-12)
    assert got["se"] == pytest.approx(
        units.std(ddof=1) / np.sqrt(units.size), rel=1e-10
    )
