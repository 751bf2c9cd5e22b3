"""Privacy profiles of the additive noise laws, checked against exact values.

The grid profile is the continuous profile's objective maximised over a
finite lattice: here the maximum is taken by enumerating every lattice
point, and the distribution functions are compared with ``mpmath`` at 40
digits, far into the tails where double-precision CDFs underflow.
``benchmarks/_mutation_modules.py`` lists the mutants of
``skprivate/ldp/_noise_laws.py`` and ``skprivate/ldp/_additive.py`` that
these tests kill.
"""

import math

import mpmath
import numpy as np
import pytest

from skprivate.ldp._noise_laws import (
    FlippedHuberNoise,
    GeneralizedGaussianNoise,
    grid_privacy_profile,
)

LAWS = {
    "gaussian": lambda: GeneralizedGaussianNoise(0.7, 2.0),
    "power 1.5": lambda: GeneralizedGaussianNoise(2.0, 1.5),
    "laplace": lambda: GeneralizedGaussianNoise(0.8, 1.0),
    "flipped huber": lambda: FlippedHuberNoise(1.0, 1.5),
}


def _limit(x, smallest):
    """An epsilon limit as messages show it: 4 digits, towards acceptance."""
    k = 3 - math.floor(math.log10(x))
    scaled = x * 10.0**k
    return f"{(math.ceil(scaled) if smallest else math.floor(scaled)) / 10.0**k:.4g}"


def _lattice_maximum(law, D, epsilon, n, M):
    """max over j in [-M, n + M - 1] of F(t_j) - e**eps F(t_j - D), by enumeration."""
    best = 0.0
    for j in range(-M, n + M):
        t = (j + 0.5) * D / n
        value = float(
            mpmath.exp(mpmath.mpf(float(law.logcdf(np.array(t)))))
            - mpmath.exp(epsilon + mpmath.mpf(float(law.logcdf(np.array(t - D)))))
        )
        best = max(best, value)
    return best


@pytest.mark.parametrize("name", list(LAWS))
@pytest.mark.parametrize(("n", "M"), [(4, 3), (5, 12), (16, 40)])
@pytest.mark.parametrize("epsilon", [0.3, 1.0, 2.5])
def test_grid_profile_is_the_lattice_maximum_by_enumeration(name, n, M, epsilon):
    law = LAWS[name]()
    want = _lattice_maximum(law, 1.0, epsilon, n, M)
    got = grid_privacy_profile(law, 1.0, epsilon, n, M)
    assert got == pytest.approx(want, rel=1e-9, abs=1e-300)


def _gennorm_log_cdf(t, scale, power):
    """log P(Z <= t), density proportional to exp(-|z / scale| ** power), 40 digits."""
    with mpmath.workdps(40):
        x = (abs(mpmath.mpf(t)) / mpmath.mpf(scale)) ** mpmath.mpf(power)
        a = 1 / mpmath.mpf(power)
        low = mpmath.gammainc(a, x, mpmath.inf, regularized=True) / 2
        return float(mpmath.log(low) if t <= 0 else mpmath.log1p(-low))


@pytest.mark.parametrize("power", [1.0, 1.5, 2.0])
@pytest.mark.parametrize("t", [-2000.0, -700.0, -30.0, -3.0, -0.5, 0.0, 0.5, 3.0, 30.0])
def test_generalized_gaussian_log_cdf_is_exact_in_both_tails(power, t):
    # at x = |t| ** power beyond about 640 the CDF is below 1e-280: the
    # asymptotic series of the incomplete gamma takes over from scipy
    law = GeneralizedGaussianNoise(1.0, power)
    got = float(law.logcdf(np.array(t)))
    want = _gennorm_log_cdf(t, 1.0, power)
    assert got == pytest.approx(want, rel=1e-13, abs=1e-300)


def test_log_upper_gamma_far_tail_against_mpmath():
    from skprivate.ldp._noise_laws import _log_upper_gamma

    x = np.array([0.5, 20.0, 640.0, 700.0, 5e3, 1e6])
    for a in (1.0, 0.5, 1 / 1.5, 1 / 30):
        got = _log_upper_gamma(a, x)
        with mpmath.workdps(40):
            q = [
                mpmath.gammainc(a, mpmath.mpf(v), mpmath.inf, regularized=True)
                for v in x
            ]
            want = [float(mpmath.log(v)) for v in q]
        np.testing.assert_allclose(got, want, rtol=1e-13)


def _huber_log_cdf(t, scale, threshold):
    """log P(Z <= t) of the flipped Huber law at 40 digits (closed form)."""
    with mpmath.workdps(40):
        beta = mpmath.mpf(threshold) / scale
        u = -abs(mpmath.mpf(t) / scale)
        # mass below -beta: the Gaussian piece exp(-(v**2 + beta**2) / (2 beta))
        tail = (
            mpmath.exp(-beta / 2)
            * mpmath.sqrt(2 * mpmath.pi * beta)
            * mpmath.ncdf(-mpmath.sqrt(beta))
        )
        total = 2 * (tail + 1 - mpmath.exp(-beta))
        if u <= -beta:
            below = (
                mpmath.exp(-beta / 2)
                * mpmath.sqrt(2 * mpmath.pi * beta)
                * mpmath.ncdf(u / mpmath.sqrt(beta))
            )
        else:
            below = tail + mpmath.exp(u) - mpmath.exp(-beta)
        low = below / total
        return float(mpmath.log(low) if t <= 0 else mpmath.log1p(-low))


@pytest.mark.parametrize(
    ("scale", "threshold", "t"),
    [
        (1.0, 1.5, -0.7),
        (1.0, 1.5, -1.5),
        (1.0, 1.5, -6.0),
        (1.0, 1.5, 0.0),
        (1.0, 1.5, 4.0),
        (2.0, 3.0, -40.0),
        (2.0, 3.0, 1.0),
        # Laplace centre out to |u| = 800: e**u underflows there
        (1.0, 1000.0, -800.0),
        (1.0, 1000.0, -999.0),
        (1.0, 1000.0, -1200.0),
        (1.0, 1000.0, 800.0),
    ],
)
def test_flipped_huber_log_cdf_is_exact_in_both_tails(scale, threshold, t):
    law = FlippedHuberNoise(scale, threshold)
    got = float(law.logcdf(np.array(t)))
    want = _huber_log_cdf(t, scale, threshold)
    assert got == pytest.approx(want, rel=1e-13, abs=1e-300)


def test_hockey_stick_is_an_upper_bound_where_rounding_matters():
    # Laplace noise far in its lower tail: F(t) - e**eps F(t - 1) is
    # e**t (1 - e**(eps - 1)) / 2, a difference of two logarithms near -500
    # only 1e-6 apart, where double-precision rounding alone misses the exact
    # value by parts in 1e9; the value returned must stay above it, by at
    # most the documented slack (a few parts in 1e6 here)
    from skprivate.ldp._noise_laws import _hockey_stick

    law = GeneralizedGaussianNoise(1.0, 1.0)
    epsilon = 1.0 - 1e-6
    t = -np.linspace(400.0, 600.0, 41)
    got = _hockey_stick(law, 1.0, epsilon, t)
    with mpmath.workdps(40):
        gap = -mpmath.expm1(mpmath.mpf(epsilon) - 1)
        want = np.array([float(mpmath.exp(mpmath.mpf(v)) / 2 * gap) for v in t])
    assert np.all(got >= want)
    assert np.all(got <= want * (1 + 1e-5))


@pytest.mark.parametrize("scale", [1e-6, 1.0, 1e6])
def test_laplace_profile_is_zero_at_and_above_its_epsilon_at_every_scale(scale):
    # Laplace noise of scale s has privacy loss at most D / s: delta is 0 for
    # epsilon > D / s, where the search for the crossing gives up far out in
    # the tail (and the tail mass there is 0 in double precision)
    from skprivate.ldp._noise_laws import additive_privacy_profile

    law = GeneralizedGaussianNoise(scale, 1.0)
    assert additive_privacy_profile(law, scale, 1.5) == 0.0
    assert additive_privacy_profile(law, scale, 3.0) == 0.0
    # and 1 - e**((eps - D / s) / 2) below it
    want = -math.expm1((0.5 - 1.0) / 2)
    assert additive_privacy_profile(law, scale, 0.5) == pytest.approx(want, rel=1e-9)


@pytest.mark.parametrize("threshold", [1.5, 1000.0])
def test_flipped_huber_log_cdf_warns_nothing_at_any_point(threshold):
    # both pieces are evaluated everywhere: log(0) at the threshold, the log
    # of a negative number beyond it, an overflowing exponential far out;
    # none of it may reach the user as a RuntimeWarning
    import warnings

    law = FlippedHuberNoise(1.0, threshold)
    t = np.array([-3000.0, -threshold - 800.0, -threshold, -1.0, 0.0, 1.0, 3000.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = law.logcdf(t)
    assert np.all(np.isfinite(got[1:-1])) and np.all(got <= 0.0)


# --- skprivate/ldp/_additive.py ---------------------------------------------


def test_flipped_huber_threshold_search_stops_at_e_to_the_6_scales():
    # at epsilon <= 1 the threshold is searched up to e**6 Laplace scales,
    # where the profile is 6.8e-100 (3.4e-187 at twice that): a delta of
    # 1e-150 is refused, not met by a threshold beyond the search
    from skprivate.ldp import FlippedHuberLDP

    with pytest.raises(ValueError) as info:
        FlippedHuberLDP(epsilon=1.0, delta=1e-150, bounds=(0, 1), secure=False).fit(
            np.zeros((1, 1))
        )
    assert str(info.value) == (
        "delta=1e-150 is too small for FlippedHuberLDP at epsilon=1; increase delta."
    )


def test_epsilon_limit_when_the_profile_at_zero_is_just_above_delta():
    # Laplace noise at D / s = 1 has profile 1 - e**((eps - 1) / 2), 0.39 at
    # eps = 0: delta = 0.2 is met from eps = 1 + 2 log(0.8) on
    from skprivate.ldp._additive import _epsilon_limit

    got = _epsilon_limit(lambda: GeneralizedGaussianNoise(1.0, 1.0), 1.0, 0.2)
    assert got == pytest.approx(1.0 + 2.0 * math.log(0.8), rel=1e-5)


def test_refusals_without_a_computable_limit_name_none(monkeypatch):
    # when no limit can be computed, the refusals name none (no "None" or
    # empty limit in the message)
    from skprivate.ldp import GeneralizedGaussianLDP, _additive

    monkeypatch.setattr(_additive, "_epsilon_limit", lambda *args: None)
    with pytest.raises(ValueError) as info:
        GeneralizedGaussianLDP(epsilon=6e9, power=1.0, bounds=(0, 1)).fit(
            np.zeros((1, 2))
        )
    assert str(info.value) == (
        "epsilon=6e+09 is too large for the grid sampler of GeneralizedGaussianLDP "
        f"(noise scale {1 / 3e9:g} against a range of 1); lower epsilon or pass "
        "secure=False."
    )
    monkeypatch.setattr(_additive, "_released_delta", lambda *args: 0.0)
    smallest = math.exp(-10.0) / 3.0
    with pytest.raises(ValueError) as info:
        GeneralizedGaussianLDP(epsilon=6.0, power=1.0, bounds=(0, 1)).fit(
            np.zeros((1, 2))
        )
    assert str(info.value) == (
        "epsilon=6 is too large for GeneralizedGaussianLDP at delta=1e-05 and "
        f"power=1: no noise scale down to {smallest:g} attains it."
    )


def test_small_budget_refusal_with_bounds_from_data_names_no_range():
    # the range is read from the data here: the message must not show it
    from skprivate.exceptions import PrivacyLeakWarning
    from skprivate.ldp import FlippedHuberLDP

    with pytest.warns(PrivacyLeakWarning), pytest.raises(ValueError) as info:
        FlippedHuberLDP(epsilon=1e-8).fit(np.array([[0.0, 0.0], [1.0, 1.0]]))
    assert str(info.value) == (
        "epsilon per column = 5e-09 is below the smallest budget the grid sampler "
        "of FlippedHuberLDP supports exactly (the smallest accepted epsilon is "
        f"{_limit(2 * 2.0**-24, True)}): a noise scale would hold "
        f"{2e8 * 2**20:.3g} grid "
        f"steps, more than the {2.0**44:.3g} its tail sampler resolves; raise "
        "epsilon or pass secure=False."
    )


def test_grid_of_the_largest_index_is_calibrated_on_the_grid_law(monkeypatch):
    # a grid of exactly MAX_GRID_INDEX cells is accepted, and its noise is
    # calibrated on the grid law (with 4 steps per scale its delta is
    # percents below the continuous profile's; calibrated on the latter the
    # released delta would be 0.94e-3): the released delta is the budget
    from skprivate.ldp import GeneralizedGaussianLDP, _additive

    monkeypatch.setattr(_additive, "GRID_BITS", 2)
    monkeypatch.setattr(_additive, "MAX_GRID_INDEX", 2.0**6)
    # Gaussian noise of scale near 1 / 10: 2**(4 + 2) = 2**6 cells
    model = GeneralizedGaussianLDP(epsilon=200.0, delta=1e-3, bounds=(0, 1))
    model.fit(np.zeros((1, 1)))
    assert model._n_cells.tolist() == [2.0**6]
    assert model.privacy_summary()["delta"] == pytest.approx(1e-3, rel=1e-6)


def test_columns_of_equal_width_share_a_grid_and_each_law_its_resolution(
    monkeypatch,
):
    # widths 1, 1, 2: the first two columns share one law and one grid, the
    # third has its own law, scaled, whose tail sampler is set to its own grid
    from skprivate.ldp import FlippedHuberLDP, _additive

    monkeypatch.setattr(_additive, "GRID_BITS", 2)
    model = FlippedHuberLDP(epsilon=3.0, delta=1e-3, bounds=([0, 0, 0], [1, 1, 2])).fit(
        np.zeros((1, 3))
    )
    n = model._n_cells[0]
    # epsilon 1 per column: one range per noise scale, 2**2 steps per range
    assert model._n_cells.tolist() == [4.0, 4.0, 4.0] == [n] * 3
    assert model.grid_step_.tolist() == [0.25, 0.25, 0.5]
    assert model._margin[0] == model._margin[1] == model._margin[2]
    for j, law in enumerate(model.noise_):
        want = law._fine_limit(law.scale / model.grid_step_[j])
        assert law.tail_start == want


def test_safe_root_moves_a_root_on_the_unsafe_side_by_doubling_steps():
    # a computed delta may waver near its root: here the excess is positive
    # below r, negative on [r, r + xtol / 2), positive again up to r + 6 xtol.
    # Bisection may stop on the positive side; the point returned must have
    # no excess, be reached in a few evaluations and add at most a few xtol
    # of noise (doubling steps xtol, 2 xtol, 4 xtol reach 7 xtol)
    from scipy import optimize

    from skprivate.ldp._additive import _safe_root

    xtol = 1e-10
    moved = set()
    for r in np.linspace(0.1, 0.9, 401):
        calls = []

        def gap(x, r=r, calls=calls):
            calls.append(x)
            if len(calls) > 200:
                raise RuntimeError("the search does not end")
            if x < r or r + 0.5 * xtol <= x < r + 6 * xtol:
                return 0.5
            return -0.5

        first = optimize.brentq(gap, 0.0, 1.0, xtol=xtol)
        got = _safe_root(gap, 0.0, 1.0, xtol)
        assert gap(got) < 0
        assert first <= got <= first + 8 * xtol
        moved.add(round((got - first) / xtol))
    # both a single step and three steps were needed in this sweep
    assert moved == {0, 1, 7}


def test_smallest_budget_of_the_tail_sampler_is_accepted():
    # epsilon 2**-24 on a range of 1: a noise scale holds exactly 2**44 grid
    # steps, the most the tail sampler resolves, and is accepted
    from skprivate.ldp import FlippedHuberLDP

    model = FlippedHuberLDP(epsilon=2.0**-24, bounds=(0, 1)).fit(np.zeros((1, 1)))
    assert model.noise_[0].scale / model.grid_step_[0] == 2.0**44
    assert model.privacy_summary()["delta"] <= 1e-5


@pytest.mark.parametrize("name", ["FlippedHuberLDP", "GeneralizedGaussianLDP"])
def test_secure_false_has_no_grid_and_no_limit_of_the_grid(name):
    # far beyond the grid sampler's largest budget (about 2**30 per column),
    # secure=False releases x + Z in floating point: no grid is set up, so
    # the grid's refusal (which would advise secure=False) does not apply
    import warnings

    from skprivate import ldp

    cls = getattr(ldp, name)
    X = np.linspace(0.0, 1.0, 20)[:, None]
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        model = cls(epsilon=1e20, bounds=(0, 1), random_state=0, secure=False).fit(X)
        Z = model.transform(X)
    assert model.grid_step_ is None
    assert "output_grid" not in model.privacy_summary()
    assert model.privacy_summary()["floating_point_safe"] is False
    assert 0 < np.abs(Z - X).max() < 1e-8
    with pytest.raises(ValueError, match="too large for the grid sampler"):
        cls(epsilon=1e20, bounds=(0, 1)).fit(X)


@pytest.mark.parametrize("secure", [True, False])
@pytest.mark.parametrize("epsilon", [1e200, 1e300])
def test_a_budget_beyond_floating_point_is_refused_by_name(epsilon, secure):
    # the noise scale of a budget this large underflows the privacy loss's
    # arithmetic: a ValueError naming the budget, never an OverflowError or a
    # ZeroDivisionError, and no numpy warning on the way
    import warnings

    from skprivate.ldp import FlippedHuberLDP, GeneralizedGaussianLDP

    X = np.zeros((3, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        with pytest.raises(ValueError) as info:
            FlippedHuberLDP(epsilon=epsilon, bounds=(0, 1), secure=secure).fit(X)
        assert str(info.value) == (
            f"epsilon={epsilon:g} is too large for FlippedHuberLDP ({epsilon:g} per "
            f"column): its privacy loss at a noise scale of {1 / epsilon:.3g} of the "
            "range is beyond floating point; the largest accepted is 1e+100"
            + (
                " (with secure=False; the grid sampler of secure=True accepts "
                "far less)."
                if secure
                else "."
            )
        )
        with pytest.raises(ValueError) as info:
            GeneralizedGaussianLDP(epsilon=epsilon, bounds=(0, 1), secure=secure).fit(X)
        assert str(info.value).startswith(
            f"epsilon={epsilon:g} is too large for GeneralizedGaussianLDP at "
            "delta=1e-05 and power=2: no noise scale down to "
        )


def test_the_flipped_huber_limit_is_inclusive_and_counts_every_column():
    # secure=False accepts 1e100 per column exactly; the refusal names the
    # record's limit, 1e100 per column times the columns
    from skprivate.ldp import FlippedHuberLDP

    X = np.zeros((3, 2))
    model = FlippedHuberLDP(epsilon=2e100, bounds=(0, 1), secure=False).fit(X)
    assert model.scale_.tolist() == [1e-100, 1e-100]
    with pytest.raises(ValueError) as info:
        FlippedHuberLDP(epsilon=4e100, bounds=(0, 1), secure=False).fit(X)
    assert str(info.value).endswith("the largest accepted is 2e+100.")
