"""Planning helpers: expected half-widths and sample sizes before collecting."""

import numpy as np
import pytest
from scipy import stats

from skprivate import (
    IntervalCaseI,
    IntervalNPMLE,
    LaplaceLDP,
    expected_half_width,
    plan_sample_size,
)
from skprivate._planning import _noise_variance, _unit_variance
from skprivate.ldp import GeneralizedGaussianLDP, SquareWaveLDP
from skprivate.ldp._intervals import square_wave_moment_terms

Z95 = stats.norm.ppf(0.975)


def test_laplace_mean_plan_is_the_closed_form():
    # ±2 years of age at epsilon = 1 on [0, 100], sigma 20:
    # n = z^2 (sigma^2 + 2 b^2) / E^2 with b = 100.
    mech = LaplaceLDP(epsilon=1.0, bounds=(0, 100))
    expected = int(np.ceil(Z95**2 * (20.0**2 + 2 * 100.0**2) / 4.0))
    assert plan_sample_size(mech, 2.0, sd=20.0) == expected == 19592
    # Without a guess: the worst-case SD on the bounds, (high - low) / 2.
    assert plan_sample_size(mech, 2.0) == int(np.ceil(Z95**2 * (50.0**2 + 2e4) / 4.0))
    n = plan_sample_size(mech, 1.5, sd=10.0, level=0.9)
    assert expected_half_width(mech, n, sd=10.0, level=0.9) <= 1.5
    assert expected_half_width(mech, n - 1, sd=10.0, level=0.9) > 1.5


def test_generalized_gaussian_noise_variance_is_the_laws():
    mech = GeneralizedGaussianLDP(epsilon=1.0, delta=1e-5, bounds=(0, 10))
    law = mech.fit(np.array([[0.0], [10.0]])).noise_[0]
    exact = stats.gennorm(beta=law.power, scale=law.scale).var()
    assert _noise_variance(mech, 0.0, 10.0) == pytest.approx(exact, rel=1e-6)


def test_square_wave_unit_variance_matches_the_releases():
    mech = SquareWaveLDP(epsilon=1.0, bounds=(0, 100))
    ref = stats.uniform(20, 40)
    planned = _unit_variance(mech, "mean", ref, None)
    rng = np.random.default_rng(0)
    x = ref.rvs(size=(200_000, 1), random_state=rng)
    out = SquareWaveLDP(epsilon=1.0, bounds=(0, 100), random_state=0).fit_transform(x)
    s, _ = square_wave_moment_terms(1.0)
    # Each report contributes (b - a) v' / s to the moment estimator.
    empirical = np.var(100.0 * (out[:, 0] / 100.0) / s)
    assert planned == pytest.approx(empirical, rel=0.02)


def test_case_one_plan_matches_simulated_npmle_intervals():
    mech = IntervalCaseI(anchor_loc=40, anchor_scale=20)
    ref = stats.norm(40, 15)
    formula = expected_half_width(mech, 2000, reference=ref)
    simulated = expected_half_width(
        mech,
        2000,
        reference=ref,
        estimator=IntervalNPMLE(),
        kind="mean",
        n_simulations=20,
    )
    assert simulated == pytest.approx(formula, rel=0.1)
    with pytest.raises(ValueError, match="reference="):
        expected_half_width(mech, 2000)


def test_plan_by_simulation_extrapolates_along_the_rate():
    mech = IntervalCaseI(anchor_loc=40, anchor_scale=20)
    ref = stats.norm(40, 15)
    n = plan_sample_size(
        mech,
        1.0,
        reference=ref,
        estimator=IntervalNPMLE(),
        kind="mean",
        pilot_n=500,
        n_simulations=10,
    )
    closed = plan_sample_size(mech, 1.0, reference=ref)
    assert n == pytest.approx(closed, rel=0.25)


def test_planning_refuses_what_it_cannot_plan():
    with pytest.raises(ValueError, match="bounds"):
        plan_sample_size(LaplaceLDP(epsilon=1.0), 2.0)
    with pytest.raises(ValueError, match="simulation"):
        plan_sample_size(LaplaceLDP(epsilon=1.0, bounds=(0, 1)), 0.1, statistic="cdf")
    with pytest.raises(ValueError, match="half_width"):
        plan_sample_size(LaplaceLDP(epsilon=1.0, bounds=(0, 1)), 0.0)


def test_laplace_half_width_is_the_closed_form_and_monotone():
    # half-width = z sqrt(var(x) + 2 b^2) / sqrt(n), b = (high - low) / epsilon.
    ns = np.array([50, 200, 1000, 5000, 20000])
    for eps in (0.5, 1.0, 4.0):
        mech = LaplaceLDP(epsilon=eps, bounds=(0, 100))
        b = 100.0 / eps
        widths = np.array([expected_half_width(mech, int(n), sd=20.0) for n in ns])
        np.testing.assert_allclose(
            widths, Z95 * np.sqrt(20.0**2 + 2 * b * b) / np.sqrt(ns), rtol=1e-9
        )
        assert np.all(np.diff(widths) < 0)  # more respondents, shorter
    by_eps = [
        expected_half_width(LaplaceLDP(epsilon=e, bounds=(0, 100)), 1000, sd=20.0)
        for e in (0.5, 1.0, 2.0, 4.0)
    ]
    assert np.all(np.diff(by_eps) < 0)  # less privacy, shorter
    mech = LaplaceLDP(epsilon=1.0, bounds=(0, 100))
    plans = [plan_sample_size(mech, e, sd=20.0) for e in (1.0, 2.0, 4.0, 8.0)]
    assert np.all(np.diff(plans) < 0)  # a looser target, fewer respondents
    for target, n in zip((1.0, 2.0, 4.0, 8.0), plans):
        # the smallest n that reaches the target
        assert expected_half_width(mech, n, sd=20.0) <= target
        assert expected_half_width(mech, n - 1, sd=20.0) > target


def test_laplace_plan_agrees_with_simulated_surveys_at_the_planned_n():
    # ±5 years at epsilon = 2 on [0, 100]; 300 simulated surveys of the
    # planned size, each released by LaplaceLDP, the interval of the mean
    # from the releases' mean and SD.  The coverage has a binomial SE of
    # sqrt(.95 .05 / 300) = 0.0126 (3 SE allowed); the half-width varies by
    # about 1% between surveys, so its mean is within 1% of the plan.
    ref = stats.uniform(20, 40)  # SD 11.5
    mech = LaplaceLDP(epsilon=2.0, bounds=(0, 100))
    n = plan_sample_size(mech, 5.0, reference=ref)
    assert n == int(np.ceil(Z95**2 * (ref.var() + 2 * 50.0**2) / 25.0))
    rng = np.random.default_rng(0)
    hits, widths = 0, []
    for seed in range(300):
        x = ref.rvs(size=(n, 1), random_state=rng)
        z = LaplaceLDP(epsilon=2.0, bounds=(0, 100), random_state=seed)
        z = z.fit_transform(x)[:, 0]
        half = Z95 * z.std(ddof=1) / np.sqrt(n)
        widths.append(half)
        hits += abs(z.mean() - ref.mean()) <= half
    assert np.mean(widths) == pytest.approx(5.0, rel=0.01)
    assert abs(hits / 300 - 0.95) < 3 * np.sqrt(0.95 * 0.05 / 300)
