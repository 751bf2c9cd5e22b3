"""Additive-noise mechanisms: noise laws, privacy calibration, bad input."""

import numpy as np
import pytest
from scipy import integrate, stats

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.ldp import (
    FlippedHuberLDP,
    GeneralizedGaussianLDP,
    PerturbedKDEEstimator,
    SquareWaveEMSEstimator,
    SquareWaveLDP,
)
from skprivate.ldp._noise_laws import (
    FlippedHuberNoise,
    GeneralizedGaussianNoise,
    additive_privacy_profile,
)


@pytest.mark.parametrize("sigma", [2.0, 5.0, 10.0])
def test_gaussian_profile_matches_closed_form(sigma):
    """Analytic Gaussian mechanism (Balle & Wang, 2018) for p = 2."""
    D, eps = 10.0, 1.0
    closed = stats.norm.cdf(D / (2 * sigma) - eps * sigma / D) - np.exp(
        eps
    ) * stats.norm.cdf(-D / (2 * sigma) - eps * sigma / D)
    law = GeneralizedGaussianNoise(sigma * np.sqrt(2), 2.0)
    assert additive_privacy_profile(law, D, eps) == pytest.approx(closed, rel=1e-9)


def test_laplace_profile_is_zero_at_its_epsilon():
    law = GeneralizedGaussianNoise(5.0, 1.0)
    assert additive_privacy_profile(law, 10.0, 2.0) == 0.0
    assert additive_privacy_profile(law, 10.0, 1.0) > 0.0


def test_profile_matches_numerical_hockey_stick():
    law = FlippedHuberNoise(2.0, 3.0)
    D, eps = 4.0, 1.0
    f = lambda t: np.exp(law.logpdf(t))  # noqa: E731
    num = integrate.quad(
        lambda t: max(f(t) - np.exp(eps) * f(t - D), 0.0),
        -60,
        60,
        limit=400,
        points=[-3, 0, 1, 3, 7],
    )[0]
    assert additive_privacy_profile(law, D, eps) == pytest.approx(num, rel=1e-6)


def test_flipped_huber_law():
    law = FlippedHuberNoise(2.0, 3.0)
    f = lambda t: np.exp(law.logpdf(t))  # noqa: E731
    assert integrate.quad(f, -np.inf, np.inf)[0] == pytest.approx(1.0, abs=1e-10)
    for t in [-10.0, -3.0, -1.0, 0.5, 4.0]:
        want = integrate.quad(f, -np.inf, t)[0]
        assert float(np.exp(law.logcdf(t))) == pytest.approx(want, abs=1e-8)
    draws = law.sample((100_000,), np.random.default_rng(0))
    assert stats.kstest(draws, lambda t: np.exp(law.logcdf(t))).pvalue > 1e-3


def test_generalized_gaussian_sampler():
    law = GeneralizedGaussianNoise(3.0, 1.5)
    draws = law.sample((100_000,), np.random.default_rng(0))
    assert stats.kstest(draws, stats.gennorm(1.5, scale=3.0).cdf).pvalue > 1e-3


@pytest.mark.parametrize("cls", [GeneralizedGaussianLDP, FlippedHuberLDP])
def test_calibration_reaches_delta(cls):
    priv = cls(epsilon=1.5, delta=1e-4, bounds=(0, 10), random_state=0).fit([[1.0]])
    summary = priv.privacy_summary()
    assert summary["delta"] == pytest.approx(1e-4, rel=1e-6)
    assert summary["epsilon"] == 1.5


def test_stronger_privacy_means_more_noise():
    scales = [
        GeneralizedGaussianLDP(epsilon=e, delta=1e-3, bounds=(0, 10))
        .fit([[0.0]])
        .scale_[0]
        for e in (0.5, 1.0, 4.0)
    ]
    assert scales[0] > scales[1] > scales[2]


def test_baseline_bad_input():
    with pytest.warns(PrivacyLeakWarning):
        SquareWaveLDP(epsilon=1.0).fit([[0.0], [1.0]])
    with pytest.raises(ValueError, match="outside the declared bounds"):
        SquareWaveLDP(epsilon=1.0, bounds=(0, 1)).fit([[0.0]]).transform([[2.0]])
    with pytest.raises(ValueError, match="epsilon must be given"):
        SquareWaveEMSEstimator(bounds=(0, 1)).fit([[0.5]])
    with pytest.raises(ValueError, match="needs bounds"):
        PerturbedKDEEstimator().fit([[0.5]])
    with pytest.raises(ValueError, match="outside the output range"):
        SquareWaveEMSEstimator(epsilon=1.0, bounds=(0, 1)).fit([[5.0]])
    with pytest.raises(ValueError, match="share one domain"):
        PerturbedKDEEstimator(
            privatizer=GeneralizedGaussianLDP(bounds=([0, 0], [1, 2]))
        ).fit([[0.5, 0.5]])
