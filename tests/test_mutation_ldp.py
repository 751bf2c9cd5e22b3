"""LaplaceLDP behaviour that mutation testing found unchecked.

Each test pins a documented behaviour with an exact small case: the
refusals at the edge of the secure grid, the exact privacy summary, the
clipping policy and its messages, integer and named inputs, and the seeded
release's dependence on the (clipped) data.  ``benchmarks/_mutation_modules.py``
lists the mutants of ``skprivate/ldp/_laplace.py`` each test kills.
"""

import math
import os
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import special, stats
from sklearn.base import clone

from skprivate import LaplaceLDP
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.ldp._noise_laws import (
    FlippedHuberNoise,
    GeneralizedGaussianNoise,
    additive_privacy_profile,
)

GRID = 2.0**52  # grid indices must stay below this
CLAMP = 20.0  # clamp, in noise scales beyond the bounds


def test_default_budget_is_one():
    ldp = LaplaceLDP(bounds=(0, 3)).fit(np.zeros((4, 1)))
    assert ldp.epsilon == 1.0
    assert ldp.privacy_summary()["epsilon"] == 1.0
    np.testing.assert_array_equal(ldp.scale_, [3.0])


@pytest.mark.parametrize("secure", [True, False])
def test_privacy_summary_is_exact(secure):
    ldp = LaplaceLDP(epsilon=2.0, bounds=([0, -1], [1, 3]), secure=secure)
    ldp.fit(np.zeros((3, 2)))
    summary = ldp.privacy_summary()
    policy = ldp._release_policy()
    expected = {
        "notion": "epsilon-local differential privacy",
        "epsilon": 2.0,
        "epsilon_per_feature": 1.0,
        "scale": list(ldp.scale_),
        "bounds": ([0.0, -1.0], [1.0, 3.0]),
        "bounds_from_data": False,
        "sampler": "discrete Laplace on a grid" if secure else "Laplace",
        "floating_point_safe": secure,
        **policy,
    }
    if secure:
        # step 2**-20 of each range (ranges 1 and 4, epsilon_j = 1)
        expected["output_grid"] = {"origin": [0.0, 0.0], "step": [2.0**-20, 2.0**-18]}
    assert summary == expected
    assert ldp.bounds_from_data_ is False
    if not secure:
        np.testing.assert_array_equal(ldp.scale_, [1.0, 4.0])
        assert ldp.grid_step_ is None


def test_summary_and_transform_need_fit():
    from sklearn.exceptions import NotFittedError

    ldp = LaplaceLDP(bounds=(0, 1))
    with pytest.raises(NotFittedError):
        ldp.privacy_summary()
    with pytest.raises(NotFittedError):
        ldp.transform(np.zeros((1, 1)))


def test_bounds_read_from_data_warn_naming_the_privatizer():
    with pytest.warns(PrivacyLeakWarning, match="^LaplaceLDP was fitted without"):
        ldp = LaplaceLDP().fit(np.array([[1.0], [3.0]]))
    assert ldp.bounds_from_data_ is True


def test_dict_bounds_follow_the_column_names():
    frame = pd.DataFrame({"a": [1.0, 2.0], "b": [0.5, 0.25]})
    ldp = LaplaceLDP(bounds={"b": (0, 1), "a": (0, 10)}).fit(frame)
    np.testing.assert_array_equal(ldp.bounds_[0], [0.0, 0.0])
    np.testing.assert_array_equal(ldp.bounds_[1], [10.0, 1.0])


@pytest.mark.parametrize("method", ["fit", "transform"])
def test_nan_is_refused_by_row_and_column(method):
    X = np.array([[0.5, 0.5], [0.5, np.nan]])
    ldp = LaplaceLDP(bounds=(0, 1))
    if method == "transform":
        ldp.fit(np.zeros((1, 2)))
    with pytest.raises(ValueError, match="contains NaN at row 1, column 1"):
        getattr(ldp, method)(X)


def _above(limit):
    """The limit rounded up to 3 significant digits (strictly above it)."""
    digits = 10.0 ** (math.floor(math.log10(limit)) - 2)
    shown = math.ceil(limit / digits) * digits
    return shown if shown > limit else shown + digits


def test_smallest_budget_refusal_states_the_exact_limit():
    # Bounds (0, 1) on two columns: grid step 2**-20, K = 2**20 steps; the clamp
    # ceil(20 K / epsilon_j) steps out must stay below 2**52.
    K = 2.0**20
    with pytest.raises(ValueError, match="cannot place its noise grid") as info:
        LaplaceLDP(epsilon=1e-9, bounds=(0, 1)).fit(np.zeros((2, 2)))
    limit = _above(CLAMP * K / (GRID - K) * 2)
    assert str(info.value) == (
        "secure=True cannot place its noise grid for epsilon=1e-09 (5e-10 per "
        "column): so small a budget has a noise scale beyond the 5e+15 grid "
        f"steps available. Pass epsilon >= {limit:.3g}, or secure=False (not "
        "safe against floating-point attacks)."
    )
    # the budget the message names is accepted
    LaplaceLDP(epsilon=float(f"{limit:.3g}"), bounds=(0, 1)).fit(np.zeros((2, 2)))


def test_grid_edge_is_refused_exactly_at_two_to_the_52():
    # epsilon_j chosen so the clamp reaches index 2**52 exactly
    K = 2.0**20
    at_edge = CLAMP * K / (GRID - K)
    assert np.ceil(CLAMP * K / at_edge) + K == GRID
    with pytest.raises(ValueError, match="cannot place its noise grid"):
        LaplaceLDP(epsilon=at_edge, bounds=(0, 1)).fit(np.zeros((1, 1)))
    inside = np.nextafter(at_edge, np.inf)
    LaplaceLDP(epsilon=inside, bounds=(0, 1)).fit(np.zeros((1, 1)))


def test_far_bounds_small_budget_names_the_budget_limit():
    # bounds end at index 1.5 * 2**50 (below 2**51): a too-small budget
    high = 1.5 * 2.0**30
    X = np.full((1, 1), high)
    with pytest.raises(ValueError, match="cannot place its noise grid") as info:
        LaplaceLDP(epsilon=1e-9, bounds=(high - 1, high)).fit(X)
    limit = _above(CLAMP * 2.0**20 / (GRID - high * 2.0**20))
    assert f"Pass epsilon >= {limit:.3g}" in str(info.value)
    # the budget the message names is accepted
    LaplaceLDP(epsilon=float(f"{limit:.3g}"), bounds=(high - 1, high)).fit(X)


@pytest.mark.parametrize("epsilon", [1e-9, CLAMP * 2.0**-31])
def test_bounds_at_two_to_the_51_name_the_bounds(epsilon):
    # bounds ending at index 2**51 exactly; at epsilon = 20 * 2**-31 the clamp
    # reaches index 2**52 exactly, which is refused as well
    high = 2.0**31
    X = np.full((1, 1), high)
    with pytest.raises(ValueError, match="needs grid indices below 2") as info:
        LaplaceLDP(epsilon=epsilon, bounds=(high - 1, high)).fit(X)
    assert str(info.value) == (
        "secure=True needs grid indices below 2**52: epsilon / n_features = "
        f"{epsilon:g} with bounds [2147483647.0] to [2147483648.0] is too large "
        "a budget for bounds this far from 0 relative to their width; shift the "
        "data towards 0 or pass secure=False (not safe against floating-point "
        "attacks)."
    )


def test_bounds_from_data_at_the_grid_edge_are_not_shown():
    X = np.array([[2.0**31 - 1], [2.0**31]])
    with (
        pytest.warns(PrivacyLeakWarning),
        pytest.raises(
            ValueError, match=" = 1e-09 with the bounds read from the data is too large"
        ),
    ):
        LaplaceLDP(epsilon=1e-9).fit(X)


def test_clip_message_names_row_column_and_declared_bounds():
    frame = pd.DataFrame({"age": [0.5, 0.5, 0.5], "income": [0.5, 0.5, 7.0]})
    frame["z"] = 0.5
    ldp = LaplaceLDP(bounds=(0, 1), random_state=0).fit(frame)
    with pytest.warns(UserWarning) as record:
        ldp.transform(frame)
    assert len(record) == 1
    assert str(record[0].message) == (
        "1 values lie outside the bounds (first: X column 'income', row 2, "
        "outside the declared bounds [0, 1]) and were clipped to them."
    )
    if "MUTANT_UNDER_TEST" not in os.environ:
        # mutation runs put a trampoline frame between the test and the warning
        assert record[0].filename == __file__


def test_clip_message_for_an_array_and_for_bounds_from_data():
    X = np.array([[0.5, 0.5, 0.5], [0.5, 0.5, 0.5], [0.5, 7.0, 0.5]])
    ldp = LaplaceLDP(bounds=(0, 1), clip=False).fit(X)
    with pytest.raises(ValueError) as info:
        ldp.transform(X)
    assert str(info.value) == (
        "1 values lie outside the bounds (first: X column 1, row 2, outside "
        "the declared bounds [0, 1]); pass clip=True to clip them."
    )
    with pytest.warns(PrivacyLeakWarning):
        fitted = LaplaceLDP(clip=False).fit(np.array([[0.0, 0, 0], [1, 1, 1]]))
    with pytest.raises(ValueError, match="outside the bounds read from the data"):
        fitted.transform(X)


@pytest.mark.parametrize("secure", [True, False])
def test_clipped_values_are_released_as_the_bound(secure):
    # Clipping happens before the noise and before the seed's data
    # fingerprint: a value below (above) the bounds is released exactly as
    # the lower (upper) bound with the same seed.
    ldp = LaplaceLDP(bounds=(0, 1), random_state=3, secure=secure)
    ldp.fit(np.zeros((2, 1)))
    with pytest.warns(UserWarning, match="clipped"):
        low = clone(ldp).fit(np.zeros((2, 1))).transform([[-5.0], [9.0]])
    same = clone(ldp).fit(np.zeros((2, 1))).transform([[0.0], [1.0]])
    np.testing.assert_array_equal(low, same)


@pytest.mark.parametrize("secure", [True, False])
def test_integer_input_is_released_as_floats(secure):
    X = np.array([[0], [5], [10]])
    ldp = LaplaceLDP(bounds=(0, 4), random_state=1, secure=secure).fit(X)
    with pytest.warns(UserWarning, match="2 values lie outside"):
        Z = ldp.transform(X)
    assert Z.dtype == np.float64
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        again = clone(ldp).fit(X).transform(X.astype(float))
    np.testing.assert_array_equal(Z, again)


@pytest.mark.parametrize("secure", [True, False])
def test_seeded_noise_depends_on_the_data(secure):
    make = LaplaceLDP(bounds=(0, 1), random_state=0, secure=secure)
    X1 = np.zeros((5, 1))
    X2 = X1.copy()
    X2[0, 0] = 1.0
    noise1 = clone(make).fit(X1).transform(X1) - X1
    noise2 = clone(make).fit(X2).transform(X2) - X2
    assert not np.allclose(noise1[1:], noise2[1:])


# --- skprivate/ldp/_noise_laws.py -------------------------------------------


def _huber_tail_start(beta, cells):
    """Documented start of the exact tail sampler of the flipped Huber law."""
    log_fine = math.log(2.0**-4 * 2.0**53 / cells)
    if log_fine < beta:
        return log_fine
    root = math.sqrt(beta)
    z2 = 2.0 * (log_fine - 0.5 * math.log(2 * math.pi * beta) - special.log_ndtr(-root))
    return max(beta, root * math.sqrt(z2))


@pytest.mark.parametrize(
    ("scale", "threshold"),
    [(2.0, 2.0), (1.0, 0.25), (1.0, 50.0), (1.0, math.log(2.0**28))],
)
def test_flipped_huber_tail_starts_where_the_bulk_sampler_thins(scale, threshold):
    # default resolution 2**21 grid steps per noise scale; the last case sits
    # exactly on the switch between the centre and the Gaussian tail
    noise = FlippedHuberNoise(scale, threshold)
    expected = _huber_tail_start(threshold / scale, 2.0**21)
    assert noise.tail_start == pytest.approx(expected, rel=1e-13)
    noise.set_resolution(2.0**30)
    expected = _huber_tail_start(threshold / scale, 2.0**30)
    assert noise.tail_start == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize("method", ["logpdf", "logcdf"])
def test_flipped_huber_log_density_is_computed_in_double(method):
    noise = FlippedHuberNoise(1.0, 1.0)
    single = np.array([0.1, -1.7, 2.3], dtype=np.float32)
    got = getattr(noise, method)(single)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, getattr(noise, method)(single.astype(float)))


def _gennorm_tail_start(power, cells):
    """Documented start of the exact tail sampler of the generalized Gaussian."""
    a = 1.0 / power
    fine = 1.0 - a + a * math.log(2.0**-4 * 2.0**53 / cells)
    return min(20.0**a, fine)


@pytest.mark.parametrize("power", [1.0, 1.2, 2.0])
def test_generalized_gaussian_tail_starts_where_the_bulk_sampler_thins(power):
    noise = GeneralizedGaussianNoise(1.5, power)
    expected = _gennorm_tail_start(power, 2.0**21)
    assert noise.tail_start == pytest.approx(expected, rel=1e-13)
    for cells in (2.0**30, 2.0**44):
        noise.set_resolution(cells)
        expected = _gennorm_tail_start(power, cells)
        assert noise.tail_start == pytest.approx(expected, rel=1e-13)


@pytest.mark.parametrize("power", [1.0, 1.5, 2.0])
def test_generalized_gaussian_tail_draws_follow_the_conditional_law(power):
    # magnitudes beyond tail_start T have density exp(-u**power) / Z on
    # (T, inf); Kolmogorov-Smirnov at the 0.1 % level, fixed seed
    noise = GeneralizedGaussianNoise(1.0, power)
    noise.set_resolution(2.0**30)
    start = noise.tail_start
    draws = noise._tail(4000, np.random.default_rng(5))
    law = stats.gennorm(power)
    survival = law.sf(start)

    def cdf(u):
        return (law.cdf(u) - law.cdf(start)) / survival

    result = stats.kstest(draws, cdf)
    assert result.statistic < 1.95 / math.sqrt(draws.size)


class _Uniforms:
    """A generator stub whose ``random`` returns the given uniforms in turn."""

    def __init__(self, values):
        self.values = list(values)

    def random(self, size):
        taken, self.values = self.values[:size], self.values[size:]
        return np.array(taken)


def test_exp_coin_beyond_twenty_is_two_coins():
    # exp(-20.5) is the conjunction of U1 < exp(-20) and U2 < exp(-0.5)
    from skprivate.ldp._noise_laws import _bernoulli_exp

    first = 0.5 * math.exp(-20.0)
    assert _bernoulli_exp(_Uniforms([first, 0.99]), np.array([20.5])).tolist() == [
        False
    ]
    assert _bernoulli_exp(_Uniforms([first, 0.5]), np.array([20.5])).tolist() == [True]
    assert _bernoulli_exp(_Uniforms([0.99]), np.array([0.0])).tolist() == [True]


def test_resolution_beyond_the_sampler_is_refused_with_both_numbers():
    noise = GeneralizedGaussianNoise(1.0, 2.0)
    noise.set_resolution(2.0**44)  # the largest accepted
    with pytest.raises(
        ValueError,
        match=r"^3\.52e\+13 grid steps per noise scale exceed the 1\.76e\+13 "
        "the sampler resolves$",
    ):
        noise.set_resolution(2.0**45)


@pytest.mark.parametrize(
    ("scale", "sensitivity", "epsilon"),
    [(1000.0, 1000.0, 5.0), (1e-6, 1e-6, 1.0), (2.0, 1.0, 0.5)],
)
def test_gaussian_privacy_profile_matches_the_analytic_formula(
    scale, sensitivity, epsilon
):
    # power 2 is the Gaussian law with sigma = scale / sqrt(2); its exact
    # profile (Balle & Wang, 2018) is
    # Phi(D / (2 sigma) - eps sigma / D) - e**eps Phi(-D / (2 sigma) - eps sigma / D)
    sigma = scale / math.sqrt(2.0)
    D = sensitivity
    a = D / (2 * sigma)
    b = epsilon * sigma / D
    expected = special.ndtr(a - b) - math.exp(epsilon) * special.ndtr(-a - b)
    noise = GeneralizedGaussianNoise(scale, 2.0)
    got = additive_privacy_profile(noise, D, epsilon)
    assert got == pytest.approx(expected, rel=1e-9)


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e3])
def test_privacy_profile_is_the_largest_hockey_stick_gap(scale):
    # delta(eps) = max over t of F(t) - e**eps F(t - D), found here by direct
    # maximisation (no root finding), at a curved privacy loss (power 1.5)
    from scipy import optimize

    noise = GeneralizedGaussianNoise(scale, 1.5)
    D, epsilon = scale, 1.0
    law = stats.gennorm(1.5, scale=scale)

    def gap(t):
        return -(law.cdf(t) - math.exp(epsilon) * law.cdf(t - D))

    best = optimize.minimize_scalar(
        gap,
        bounds=(-20 * scale, D / 2),
        method="bounded",
        options={"xatol": 1e-9 * scale},
    )
    got = additive_privacy_profile(noise, D, epsilon)
    assert got == pytest.approx(-best.fun, rel=1e-8)
