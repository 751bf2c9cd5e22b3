"""Additive-noise mechanisms: noise laws, privacy calibration, bad input."""

import math

import numpy as np
import pytest
from scipy import integrate, optimize, special, stats

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


# ------------------------------------------- exact delta of the released law


def _fh_cdf(scale, threshold):
    """Flipped Huber distribution function, closed form (independent check)."""
    beta = threshold / scale
    tail = math.exp(-beta / 2) * math.sqrt(2 * math.pi * beta)
    total = 2 * (-math.expm1(-beta)) + 2 * tail * 0.5 * math.erfc(math.sqrt(beta / 2))

    def lower(u):  # mass below u <= 0, unnormalised
        if u <= -beta:
            return tail * 0.5 * math.erfc(-u / math.sqrt(2 * beta))
        return lower(-beta) + math.exp(u) - math.exp(-beta)

    def cdf(t):
        u = t / scale
        return lower(u) / total if u <= 0 else 1.0 - lower(-u) / total

    return cdf


def _brute_force_grid_delta(cdf, n, M, step, eps):
    """max over input pairs of sum over outputs of (P_k - e**eps P_k')_+."""
    outs = np.arange(-M, n + M + 1)
    laws = []
    for k in range(n + 1):
        upper = np.array([cdf((j - k + 0.5) * step) for j in outs[:-1]] + [1.0])
        lower = np.concatenate([[0.0], upper[:-1]])
        laws.append(upper - lower)
    best = 0.0
    for p in laws:
        for q in laws:
            best = max(best, float(np.sum(np.maximum(p - math.exp(eps) * q, 0.0))))
    return best


@pytest.mark.parametrize(
    ("cls", "params"),
    [
        (FlippedHuberLDP, {"epsilon": 1.0, "delta": 1e-3}),
        (FlippedHuberLDP, {"epsilon": 4.0, "delta": 1e-6}),
        (GeneralizedGaussianLDP, {"epsilon": 1.0, "delta": 1e-3, "power": 1.5}),
        (GeneralizedGaussianLDP, {"epsilon": 2.0, "delta": 1e-5, "power": 2.0}),
        # delta below the clamps' tail e**-20: the lower clamp decides
        (GeneralizedGaussianLDP, {"epsilon": 2.0, "delta": 1e-12, "power": 2.0}),
    ],
    ids=["huber-1", "huber-4", "gg1.5-1", "gg2-2", "gg2-clamp"],
)
def test_reported_delta_is_the_grid_laws(monkeypatch, cls, params):
    """The reported delta is the exact one of the released grid law.

    With 4 grid steps per noise scale the grid law's delta differs from the
    continuous profile by percents; every input pair and every output atom
    (the clamps included) is enumerated.
    """
    from skprivate.ldp import _additive

    monkeypatch.setattr(_additive, "GRID_BITS", 2)
    model = cls(bounds=(0.2, 2.7), **params).fit(np.zeros((1, 1)))
    law = model.noise_[0]
    n, M, step = int(model._n_cells[0]), int(model._margin[0]), model.grid_step_[0]
    if cls is FlippedHuberLDP:
        cdf = _fh_cdf(float(model.scale_[0]), float(model.threshold_[0]))
    else:
        cdf = stats.gennorm(params["power"], scale=float(model.scale_[0])).cdf
    want = _brute_force_grid_delta(cdf, n, M, step, params["epsilon"])
    reported = model.privacy_summary()["delta"]
    assert reported == pytest.approx(want, rel=1e-9)
    assert reported <= params["delta"]
    if cls is GeneralizedGaussianLDP:
        # no lattice point sits where the loss crosses epsilon (and the
        # clamp binds at delta 1e-12): the grid law is not the continuous one
        continuous = additive_privacy_profile(law, 2.5, params["epsilon"])
        assert continuous > reported * 1.0001


def test_flipped_huber_profile_at_huge_epsilon():
    """The old calibration at epsilon 1000 (threshold = range) has delta 5e-4.

    With ``beta = threshold / scale = epsilon`` the loss crosses epsilon at
    0 and ``delta = 1/2 - e**beta T / (2 (1 - e**-beta) + 2 T)``, ``T`` the
    mass of one Gaussian tail.  Its centre cdf ``e**-1000`` once underflowed
    and the profile read 0.
    """
    for eps in (700.0, 1000.0):
        law = FlippedHuberNoise(1.0 / eps, 1.0)
        beta = eps
        log_tail = (
            -beta / 2
            + 0.5 * math.log(2 * math.pi * beta)
            + special.log_ndtr(-(beta**0.5))
        )
        scaled = math.exp(beta + log_tail)  # e**beta T
        want = 0.5 - scaled / (2 * -math.expm1(-beta) + 2 * math.exp(log_tail))
        assert want == pytest.approx(1 / (2 * eps), rel=1e-2)
        # an upper bound, tight to the rounding of its logarithms
        assert want <= additive_privacy_profile(law, 1.0, eps) <= want * (1 + 1e-8)


@pytest.mark.parametrize("eps", [0.01, 0.1, 1.0, 10.0, 100.0, 700.0, 1000.0])
@pytest.mark.parametrize("delta", [1e-3, 1e-5, 1e-9])
def test_flipped_huber_meets_delta_at_every_epsilon(eps, delta):
    """Reported delta within the budget, and above the exact extreme-pair value."""
    model = FlippedHuberLDP(epsilon=eps, delta=delta, bounds=(0, 1)).fit([[0.0]])
    reported = model.privacy_summary()["delta"]
    assert delta * (1 - 1e-4) <= reported <= delta
    # independent: the hockey stick of the extreme inputs, in log space, at
    # the lattice points t_j = (j + 1/2) g around the crossing of the loss
    law = model.noise_[0]
    n, M, g = int(model._n_cells[0]), int(model._margin[0]), model.grid_step_[0]

    def gap(t):
        return float(law.logpdf(t) - law.logpdf(t - 1.0)) - eps

    lo = -1.0
    while gap(lo) <= 0:
        lo *= 2
    t_star = optimize.brentq(gap, lo, 0.5, xtol=1e-15)
    j = np.clip(np.floor(t_star / g - 0.5) + np.arange(-3, 5), -M, n + M - 1)
    pts = (j + 0.5) * g
    a, b = law.logcdf(pts), eps + law.logcdf(pts - 1.0)
    value = -np.exp(a) * np.expm1(np.minimum(b - a, 0.0))
    # rounding of b - a (a few ulps of |a| + |b|): where the loss is flat
    # the hockey stick is too, and its value is exact only up to this
    # and the rounding of the points, amplified by the slopes of log F
    slope = np.abs(pts) * np.exp(law.logpdf(pts) - a) + np.abs(pts - 1) * np.exp(
        law.logpdf(pts - 1.0) - law.logcdf(pts - 1.0)
    )
    rounding = np.exp(a) * 8 * 2.0**-52 * (np.abs(a) + np.abs(b) + slope)
    assert reported >= float(np.max(value - rounding))
    assert reported == pytest.approx(float(np.max(value)), rel=1e-6)


@pytest.mark.parametrize("eps", [0.01, 1.0, 100.0, 1000.0])
@pytest.mark.parametrize("power", [1.0, 2.0, 5.0])
def test_generalized_gaussian_meets_delta_at_every_epsilon(eps, power):
    model = GeneralizedGaussianLDP(
        epsilon=eps, delta=1e-9, power=power, bounds=(0, 1)
    ).fit([[0.0]])
    reported = model.privacy_summary()["delta"]
    assert reported <= 1e-9
    if power > 1:
        assert reported >= 1e-9 * (1 - 1e-4)


def test_refusals_name_epsilon_and_the_accepted_limit():
    with pytest.raises(ValueError, match=r"epsilon=3e\+09 .*largest accepted is"):
        FlippedHuberLDP(epsilon=3e9, bounds=(0, 1)).fit([[0.0]])
    with pytest.raises(ValueError, match=r"smallest accepted epsilon is"):
        FlippedHuberLDP(epsilon=1e-8, bounds=(0, 1)).fit([[0.0]])
