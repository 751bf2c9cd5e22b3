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
from skprivate.ldp import FlippedHuberLDP, GeneralizedGaussianLDP
from skprivate.ldp._noise_laws import (
    FlippedHuberNoise,
    GeneralizedGaussianNoise,
    additive_privacy_profile,
)

GRID = 2.0**52  # grid indices must stay below this
CLAMP = 20.0  # clamp, in noise scales beyond the bounds


def _limit(x, smallest):
    """An epsilon limit as messages show it: 4 digits, towards acceptance."""
    k = 3 - math.floor(math.log10(x))
    scaled = x * 10.0**k
    return f"{(math.ceil(scaled) if smallest else math.floor(scaled)) / 10.0**k:.4g}"


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


@pytest.mark.parametrize(
    ("limit", "shown"),
    [
        (123.4, 124.0),
        (100.0, 101.0),
        (5.5e6, 5.51e6),
        (999.5, 1000.0),
        (1001.0, 1010.0),
    ],
)
def test_limit_shown_in_a_refusal_is_three_digits_strictly_above(limit, shown):
    # a limit that already has 3 significant digits is itself refused, so
    # the next 3-digit value is named
    from skprivate.ldp._laplace import _shown_above

    assert _shown_above(limit) == shown


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


@pytest.mark.parametrize("epsilon", [0.7, 1 / 3, 1.3, 3.0, 0.5, 2.0, 7.0])
def test_grid_scale_is_the_smallest_double_keeping_the_loss_within_epsilon(epsilon):
    # the realised loss of the grid sampler is width / (scale / step) in grid
    # steps (step a power of two): it must not exceed epsilon, and the scale
    # is the smallest double for which it does not (1 / 0.7 rounds down)
    from fractions import Fraction

    ldp = LaplaceLDP(epsilon=epsilon, bounds=(0, 1)).fit(np.zeros((1, 1)))
    scale, step = float(ldp.scale_[0]), float(ldp.grid_step_[0])
    width = Fraction(math.ceil(1.0 / step))

    def loss(s):
        return width / (Fraction(s) / Fraction(step))

    assert loss(scale) <= Fraction(epsilon)
    assert loss(float(np.nextafter(scale, 0.0))) > Fraction(epsilon)


def test_exact_law_of_a_laplace_column_has_its_epsilon():
    from sklearn.exceptions import NotFittedError

    ldp = LaplaceLDP(epsilon=2.0, bounds=([0, 0], [1, 4]))
    with pytest.raises(NotFittedError):
        ldp._exact_law(0)
    ldp.fit(np.zeros((1, 2)))
    for j, high in enumerate([1.0, 4.0]):
        worst = ldp._exact_law(j).worst_epsilon()
        assert worst.value == pytest.approx(1.0, rel=1e-12)
        assert worst.inputs == (0.0, high)
    assert (
        "secure=False"
        in LaplaceLDP(bounds=(0, 1), secure=False)
        .fit(np.zeros((1, 1)))
        ._exact_law(0)
        .reason
    )


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


# --- skprivate/ldp/_additive.py ---------------------------------------------


def _laplace_epsilon_at(scale, D, delta):
    """Epsilon where Laplace noise of ``scale`` has privacy profile ``delta``.

    The profile of Laplace noise at sensitivity ``D`` is
    ``1 - exp((epsilon - D / scale) / 2)`` below ``D / scale``, 0 beyond.
    """
    return D / scale + 2.0 * math.log1p(-delta)


def _gaussian_epsilon_at(scale, D, delta):
    """Epsilon where power-2 noise of ``scale`` has the analytic profile ``delta``."""
    from scipy import optimize

    sigma = scale / math.sqrt(2.0)

    def gap(log_eps):
        eps = math.exp(log_eps)
        a, b = D / (2 * sigma), eps * sigma / D
        value = special.ndtr(a - b) - math.exp(eps) * special.ndtr(-a - b)
        return math.log(max(value, 1e-300)) - math.log(delta)

    return math.exp(optimize.brentq(gap, math.log(1e-12), math.log(50.0), xtol=1e-12))


def test_epsilon_limit_of_a_fixed_noise_is_where_its_profile_is_delta():
    from skprivate.ldp._additive import _epsilon_limit

    got = _epsilon_limit(lambda: GeneralizedGaussianNoise(0.25, 1.0), 1.0, 1e-3)
    assert got == pytest.approx(_laplace_epsilon_at(0.25, 1.0, 1e-3), rel=1e-5)
    got = _epsilon_limit(lambda: GeneralizedGaussianNoise(3.0, 2.0), 2.0, 1e-6)
    assert got == pytest.approx(_gaussian_epsilon_at(3.0, 2.0, 1e-6), rel=1e-5)
    # Laplace noise of scale 100 has profile 1 - exp(-1 / 200) = 0.005 even at
    # epsilon 0: every epsilon meets delta = 0.01, and there is no limit
    wide = GeneralizedGaussianNoise(100.0, 1.0)
    assert _epsilon_limit(lambda: wide, 1.0, 0.01) is None


@pytest.mark.parametrize("power", [None, 1.0])
def test_grid_refusal_at_a_large_budget_names_the_largest_accepted(power):
    # two columns of range 1 at epsilon 3e9 each: the grid would need
    # 2**(ceil(log2(3e9)) + 20) = 2**52 > 2**50 cells.  The largest accepted
    # per column is the budget of noise of scale 2**-30 (a grid of 2**50):
    # 2**30 for the flipped Huber law (epsilon = range / scale), and for
    # Laplace noise (power 1) where its profile is delta / 2 = 5e-6
    if power is None:
        model = FlippedHuberLDP(epsilon=6e9, bounds=(0, 1))
        name, limit = "FlippedHuberLDP", 2.0**30
    else:
        model = GeneralizedGaussianLDP(epsilon=6e9, power=power, bounds=(0, 1))
        name, limit = "GeneralizedGaussianLDP", _laplace_epsilon_at(2.0**-30, 1.0, 5e-6)
    with pytest.raises(ValueError) as info:
        model.fit(np.zeros((1, 2)))
    assert str(info.value) == (
        f"epsilon=6e+09 is too large for the grid sampler of {name} (noise scale "
        f"{1 / 3e9:g} against a range of 1); the largest accepted is "
        f"{_limit(2 * limit, False)}; lower epsilon or pass secure=False."
    )


def test_grid_refusal_at_a_small_budget_names_the_smallest_accepted():
    # epsilon 5e-9 per column: Laplace scale 2e8, and a grid of 2**20 cells
    # per range would put 2e8 * 2**20 > 2**44 cells in one scale; the
    # smallest accepted per column has scale 2**44 / 2**20, epsilon 2**-24
    with pytest.raises(ValueError) as info:
        FlippedHuberLDP(epsilon=1e-8, bounds=(0, 1)).fit(np.zeros((1, 2)))
    assert str(info.value) == (
        "epsilon per column = 5e-09 is below the smallest budget the grid sampler "
        "of FlippedHuberLDP supports exactly for a range of 1 (the smallest "
        f"accepted epsilon is {_limit(2 * 2.0**-24, True)}): a noise scale would hold "
        f"{2e8 * 2**20:.3g} grid steps, more than the {2.0**44:.3g} its tail "
        "sampler resolves; raise epsilon or pass secure=False."
    )


def test_calibration_refusal_at_a_small_budget_names_the_smallest_accepted():
    # power-2 noise can be at most 2**24 times the range wide; at that scale
    # the analytic Gaussian profile reaches delta / 2 = 5e-11 only at the
    # epsilon per column computed here (times 2 columns)
    limit = 2 * _gaussian_epsilon_at(2.0**24, 1.0, 5e-11)
    with pytest.raises(ValueError) as info:
        GeneralizedGaussianLDP(epsilon=1e-8, delta=1e-10, bounds=(0, 1)).fit(
            np.zeros((1, 2))
        )
    assert str(info.value) == (
        "epsilon=1e-08 is too small for GeneralizedGaussianLDP at delta=1e-10 and "
        f"power=2: no noise scale up to {2.0**24:g} attains it; the smallest "
        f"accepted is {_limit(limit, True)}."
    )


@pytest.mark.parametrize("secure", [True, False])
def test_additive_summaries_are_exact(secure):
    fh = FlippedHuberLDP(epsilon=1.0, delta=1e-3, bounds=(0, 10), secure=secure)
    fh.fit(np.zeros((1, 2)))
    gg = GeneralizedGaussianLDP(
        epsilon=2.0, delta=1e-3, power=1.5, bounds=(0, 10), secure=secure
    ).fit(np.zeros((1, 1)))
    common = {
        "epsilon",
        "epsilon_per_feature",
        "bounds",
        "bounds_from_data",
        "floating_point_safe",
        "reproducible",
        "random_state_note",
        "delta",
        "delta_per_feature",
        "scale",
        *(["output_grid"] if secure else []),
    }
    s = fh.privacy_summary()
    assert set(s) == {*common, "notion", "threshold"}
    assert s["notion"] == "(epsilon, delta)-LDP (flipped Huber noise)"
    # the Laplace centre has scale range / epsilon per column
    assert s["scale"] == [20.0, 20.0]
    assert s["threshold"] == fh.threshold_.tolist()
    assert s["threshold"][0] == s["threshold"][1] > 0
    s = gg.privacy_summary()
    assert set(s) == {*common, "notion", "power"}
    assert s["notion"] == "(epsilon, delta)-LDP (generalized Gaussian noise)"
    assert s["power"] == 1.5
    assert s["scale"] == gg.scale_.tolist()


def test_exact_law_of_a_column_is_its_grid_law():
    from sklearn.exceptions import NotFittedError

    model = FlippedHuberLDP(epsilon=2.0, delta=1e-3, bounds=([0, 0], [1, 4]))
    with pytest.raises(NotFittedError):
        model._exact_law(0)
    model.fit(np.zeros((1, 2)))
    summary = model.privacy_summary()
    # the reported delta of each column is its grid law's exact delta at the
    # epsilon per column, rounded up by 1e-12 relative
    deltas = [float(model._exact_law(j).worst_delta(1.0).value) for j in (0, 1)]
    assert deltas[0] != deltas[1]
    assert summary["delta_per_feature"] == [d * (1.0 + 1e-12) for d in deltas]
    assert summary["delta"] == sum(summary["delta_per_feature"])


@pytest.mark.parametrize("cls", [FlippedHuberLDP, GeneralizedGaussianLDP])
def test_insecure_summary_reports_the_continuous_profile_per_column(cls):
    bounds = ([0.5, -1.0, 0.0], [1.5, 3.0, 1.0])
    model = cls(epsilon=2.0, delta=1e-3, bounds=bounds, secure=False)
    model.fit(np.zeros((1, 3)))
    eps = 2.0 / 3
    want = [
        additive_privacy_profile(model.noise_[j], D, eps)
        for j, D in enumerate([1.0, 4.0, 1.0])
    ]
    summary = model.privacy_summary()
    assert summary["delta_per_feature"] == want
    assert summary["delta"] == sum(want)
    assert want[0] != want[1]


@pytest.mark.parametrize(
    ("cls", "params"),
    [
        (FlippedHuberLDP, {"epsilon": 1.0, "delta": 1e-5}),
        (GeneralizedGaussianLDP, {"epsilon": 1.0, "delta": 1e-5, "power": 2.0}),
    ],
)
def test_additive_defaults_and_parameters_are_kept(cls, params):
    assert cls().get_params() == {
        **params,
        "bounds": None,
        "random_state": None,
        "secure": True,
    }
    rng = np.random.default_rng(0)
    given = {"epsilon": 3.0, "delta": 0.25, "bounds": (0, 2), "random_state": rng}
    given["secure"] = False
    if "power" in params:
        given["power"] = 1.5
    assert cls(**given).get_params() == given


def test_flipped_huber_refuses_a_delta_beyond_its_largest_threshold():
    # the threshold is searched up to e**6 Laplace scales (epsilon <= 1); the
    # profile there is 6.8e-100 and at e**7 scales 5.5e-250, so delta = 1e-200
    # is refused (a threshold between the two would attain it)
    noise = FlippedHuberNoise(1.0, math.exp(6.0))
    assert additive_privacy_profile(noise, 1.0, 1.0) > 1e-200
    with pytest.raises(ValueError) as info:
        FlippedHuberLDP(epsilon=1.0, delta=1e-200, bounds=(0, 1), secure=False).fit(
            np.zeros((1, 1))
        )
    assert str(info.value) == (
        "delta=1e-200 is too small for FlippedHuberLDP at epsilon=1; increase delta."
    )


@pytest.mark.parametrize(
    ("cls", "params"),
    [
        (FlippedHuberLDP, {"epsilon": 1.0, "delta": 1e-3}),
        (GeneralizedGaussianLDP, {"epsilon": 1.0, "delta": 1e-3, "power": 2.0}),
    ],
)
def test_secure_noise_is_calibrated_on_the_grid_law(monkeypatch, cls, params):
    # with 4 grid steps per noise scale the grid law's delta is percents below
    # the continuous profile's: calibrated on the grid law, the released delta
    # is the budget itself (to the root search's tolerance), not percents less
    from skprivate.ldp import _additive

    monkeypatch.setattr(_additive, "GRID_BITS", 2)
    model = cls(bounds=(0.2, 2.7), **params).fit(np.zeros((1, 1)))
    assert model.privacy_summary()["delta"] == pytest.approx(1e-3, rel=1e-6)
    assert model.privacy_summary()["delta"] <= 1e-3


@pytest.mark.parametrize(
    ("cls", "params"),
    [
        (FlippedHuberLDP, {"epsilon": 1.0, "delta": 1e-3}),
        (GeneralizedGaussianLDP, {"epsilon": 1.0, "delta": 1e-3, "power": 2.0}),
    ],
)
def test_a_calibration_short_of_the_exact_delta_is_tightened(monkeypatch, cls, params):
    # the exact delta is reported rounded up by _EXACT_DELTA_ROUNDING; at
    # 1e-3 every first calibration falls short of the budget, and fit must
    # calibrate again, to a lower target, until the reported delta fits
    from skprivate.ldp import _additive

    monkeypatch.setattr(_additive, "GRID_BITS", 2)
    monkeypatch.setattr(_additive, "_EXACT_DELTA_ROUNDING", 1e-3)
    monkeypatch.setattr(_additive, "_EXACT_DELTAS", {})
    model = cls(bounds=(0.2, 2.7), **params).fit(np.zeros((1, 1)))
    reported = model.privacy_summary()["delta"]
    assert 1e-3 * (1 - 1e-5) <= reported <= 1e-3


@pytest.mark.parametrize(
    ("cls", "search", "params"),
    [
        (FlippedHuberLDP, "_flipped_huber_threshold", {"delta": 1e-3}),
        (GeneralizedGaussianLDP, "_generalized_gaussian_scale", {"power": 2.0}),
    ],
)
def test_one_root_search_per_distinct_column_when_it_meets_the_exact_delta(
    monkeypatch, cls, search, params
):
    # columns of equal width share one calibration; a calibration that
    # already meets the exact delta is not repeated
    from skprivate.ldp import _additive

    monkeypatch.setattr(_additive, "GRID_BITS", 2)
    calls = []
    original = getattr(_additive, search)

    def counted(*args):
        calls.append(args[0])
        return original(*args)

    monkeypatch.setattr(_additive, search, counted)
    bounds = ([0.0, 0.0, 0.0], [1.0, 2.0, 1.0])
    model = cls(epsilon=3.0, bounds=bounds, **params).fit(np.zeros((1, 3)))
    assert calls == [1.0, 2.0]
    assert model.noise_[0] is model.noise_[2]
    assert model.privacy_summary()["delta"] <= model.delta


def test_generalized_gaussian_fits_a_very_large_budget():
    # at epsilon 1e4 the calibrated scale (about range / 100) lies far below
    # range * epsilon * e**-10: the search must start lower than that
    model = GeneralizedGaussianLDP(epsilon=1e4, delta=1e-9, power=2.0, bounds=(0, 1))
    model.fit(np.zeros((1, 1)))
    assert 1e-9 * (1 - 1e-4) <= model.privacy_summary()["delta"] <= 1e-9


@pytest.mark.parametrize("failure", ["nan", "raise"])
def test_a_profile_that_cannot_be_computed_is_refused_naming_power_and_epsilon(
    monkeypatch, failure
):
    from skprivate.ldp import _additive

    def broken(law, D, eps, secure):
        if failure == "raise":
            raise FloatingPointError("overflow")
        return np.nan

    monkeypatch.setattr(_additive, "_released_delta", broken)
    with pytest.raises(ValueError) as info:
        GeneralizedGaussianLDP(epsilon=3.0, power=7.5, bounds=(0, 1)).fit(
            np.zeros((1, 2))
        )
    assert str(info.value) == (
        "GeneralizedGaussianLDP cannot compute the privacy profile of power=7.5 "
        "noise at epsilon per column 1.5: noise so close to uniform is beyond "
        "floating point. Choose a smaller power (up to 30 is supported at every "
        "epsilon)."
    )


def test_calibration_refusal_at_a_large_budget_names_the_largest_accepted(
    monkeypatch,
):
    # no real profile reaches this refusal (at the smallest scale searched,
    # range * e**-10 / max(epsilon, 1), delta is almost 1); a profile that
    # is 0 everywhere does.  The limit is the real one of Laplace noise
    # (power 1) at that scale, where its profile is delta / 2 = 5e-6
    from skprivate.ldp import _additive

    monkeypatch.setattr(_additive, "_released_delta", lambda *args: 0.0)
    smallest = math.exp(-10.0) / 3.0
    limit = 2 * _laplace_epsilon_at(smallest, 1.0, 5e-6)
    with pytest.raises(ValueError) as info:
        GeneralizedGaussianLDP(epsilon=6.0, power=1.0, bounds=(0, 1)).fit(
            np.zeros((1, 2))
        )
    assert str(info.value) == (
        "epsilon=6 is too large for GeneralizedGaussianLDP at delta=1e-05 and "
        f"power=1: no noise scale down to {smallest:g} attains it; the largest "
        f"accepted is {_limit(limit, False)}."
    )


def test_calibration_refusal_without_a_limit_names_none(monkeypatch):
    # a profile above delta at every scale refuses the budget as too small;
    # Laplace noise of the largest scale (2**24 ranges) has profile 3e-8 at
    # epsilon 0 already below delta / 2 = 0.45, so no smallest budget exists
    from skprivate.ldp import _additive

    monkeypatch.setattr(_additive, "_released_delta", lambda *args: 1.0)
    with pytest.raises(ValueError) as info:
        GeneralizedGaussianLDP(epsilon=6.0, delta=0.9, power=1.0, bounds=(0, 1)).fit(
            np.zeros((1, 2))
        )
    assert str(info.value) == (
        "epsilon=6 is too small for GeneralizedGaussianLDP at delta=0.9 and "
        f"power=1: no noise scale up to {2.0**24:g} attains it."
    )


def test_generalized_gaussian_power_is_capped_at_thirty():
    GeneralizedGaussianLDP(power=30.0, bounds=(0, 1), secure=False).fit(
        np.zeros((1, 1))
    )
    with pytest.raises(ValueError) as info:
        GeneralizedGaussianLDP(power=30.5, bounds=(0, 1)).fit(np.zeros((1, 1)))
    assert str(info.value) == (
        "power=30.5 is not supported by GeneralizedGaussianLDP: noise so close to "
        "uniform has no delta that can be computed exactly in reasonable time; "
        "choose power <= 30 (the law is then already within a few percent of "
        "uniform on its central range)."
    )


def test_exact_deltas_kept_per_law_are_never_shared_by_another_law(monkeypatch):
    # exact deltas are kept in a table keyed by the law and the grid: a
    # Gaussian law and a flipped Huber law with beta = power = 2, or a law of
    # another power, at the same scale and grid each get their own value
    import copy

    from skprivate.ldp import _additive
    from skprivate.ldp._exact_laws import additive_exact_law

    monkeypatch.setattr(_additive, "GRID_BITS", 2)
    monkeypatch.setattr(_additive, "_EXACT_DELTAS", {})
    model = GeneralizedGaussianLDP(epsilon=1.0, delta=1e-3, bounds=(0, 1))
    model.fit(np.zeros((1, 1)))
    scale = model.noise_[0].scale
    seen = [model._exact_deltas()[0]]
    others = (
        FlippedHuberNoise(scale, 2.0 * scale),
        GeneralizedGaussianNoise(scale, 1.5),
    )
    for law in others:
        other = copy.copy(model)
        other.noise_ = [law]
        want = float(additive_exact_law(other, 0).worst_delta(1.0).value)
        assert other._exact_deltas() == [want]
        seen.append(want)
    # both other laws are 0-delta at this scale, the Gaussian one is not
    assert seen[0] > 0 and seen[1] == seen[2] == 0.0
