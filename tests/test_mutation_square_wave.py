"""SquareWaveLDP behaviour that mutation testing found unchecked.

Each test pins a documented quantity with an exact small case: the
half-width ``w`` and the near-band odds ``2 w e^eps`` against their closed
forms, the public output grid and far-band probability set in ``fit``, the
continuous sampler's law, and the privacy summary.
``benchmarks/_mutation_modules.py`` lists the mutants of
``skprivate/ldp/_square_wave.py`` each test kills.
"""

import math

import numpy as np
import pytest

from skprivate.ldp import SquareWaveLDP
from skprivate.ldp._bounded import GRID_BITS, MAX_GRID_INDEX
from skprivate.ldp._square_wave import (
    _exp_tail_series,
    _square_wave_terms,
    square_wave_half_width,
)


def _closed_form(eps):
    """``(w, 2 w e^eps)`` from Li et al.'s formula, in exact rationals of floats."""
    e = math.exp(eps)
    w = (eps * e - e + 1) / (2 * e * (e - 1 - eps))
    return w, 2 * w * e


def test_defaults():
    params = SquareWaveLDP().get_params()
    assert params == {
        "epsilon": 1.0,
        "bounds": None,
        "random_state": None,
        "secure": True,
    }


@pytest.mark.parametrize("eps", [1e-3, 0.05, 0.2, 0.49])
def test_exp_tail_series(eps):
    # sum_{k >= 2} (+-eps)^k / k!, here summed in rationals
    from fractions import Fraction

    x = Fraction(eps)
    for sign in (1, -1):
        exact = sum((sign * x) ** k / math.factorial(k) for k in range(2, 40))
        assert _exp_tail_series(eps, float(sign)) == pytest.approx(
            float(exact), rel=1e-14
        )


@pytest.mark.parametrize("eps", [0.3, 0.49, 0.5, 0.51, 1.0, 2.0, 5.0, 30.0])
def test_half_width_and_near_odds_match_the_closed_form(eps):
    w, odds = _square_wave_terms(eps)
    ref_w, ref_odds = _closed_form(eps)
    assert w == pytest.approx(ref_w, rel=1e-9)
    assert odds == pytest.approx(ref_odds, rel=1e-9)
    assert square_wave_half_width(eps) == w
    assert type(w) is float and type(odds) is float


@pytest.mark.parametrize("eps", [0.05, 0.3, 0.49, 0.5, 1.0, 4.0])
def test_near_over_far_density_is_e_to_the_epsilon(eps):
    # P(near) / (2 w) over P(far) / 1: the epsilon-LDP ratio of the sampler
    w, odds = _square_wave_terms(eps)
    assert odds / (2 * w) == pytest.approx(math.exp(eps), rel=1e-12)


def test_half_width_is_continuous_at_the_series_switch():
    below, above = _square_wave_terms(0.5 - 1e-12), _square_wave_terms(0.5)
    assert below[0] == pytest.approx(above[0], rel=1e-9)
    assert below[1] == pytest.approx(above[1], rel=1e-9)


def test_huge_budget_has_zero_width_and_finite_odds():
    w, odds = _square_wave_terms(800.0)
    assert w == 0.0
    # 2 w e^eps -> (eps - 1) as w e^eps ~ (eps - 1) / 2
    assert odds == pytest.approx(799.0, rel=1e-12)


def test_grid_set_in_fit():
    model = SquareWaveLDP(epsilon=2.0, bounds=([0, 1], [10, 3])).fit(np.zeros((1, 2)))
    n = 2.0**GRID_BITS
    w = _square_wave_terms(1.0)[0]  # epsilon split over two columns
    assert model.half_width_ == w
    assert model._near_odds == _square_wave_terms(1.0)[1]
    assert model._n_cells == n
    half = math.floor(w * n)
    assert model._half_cells == half
    p_far = n / (n + math.e * (2 * half + 1))
    assert model._p_far == pytest.approx(p_far * (1 + 1e-12), rel=1e-13)
    assert model._p_far > p_far
    np.testing.assert_array_equal(model.grid_step_, [10 / n, 2 / n])


def test_grid_of_a_narrow_band_is_finer():
    model = SquareWaveLDP(epsilon=30.0, bounds=(0, 1)).fit(np.zeros((1, 1)))
    w = model.half_width_
    assert w < 2.0**-GRID_BITS
    bits = math.ceil(-math.log2(w)) + GRID_BITS
    n = 2.0 ** min(bits, math.log2(MAX_GRID_INDEX))
    assert model._n_cells == n
    assert model._half_cells == math.floor(w * n) > 0
    expected = n / (n + math.exp(30.0) * (2 * model._half_cells + 1))
    assert model._p_far == pytest.approx(expected, rel=1e-9)


def test_far_probability_has_a_floor():
    model = SquareWaveLDP(epsilon=800.0, bounds=(0, 1)).fit(np.zeros((1, 1)))
    assert model.half_width_ == 0.0 and model._half_cells == 0
    assert model._n_cells == MAX_GRID_INDEX
    assert model._p_far == 2.0**-60


@pytest.mark.parametrize("secure", [False, True])
def test_sampler_law_near_and_far(secure):
    eps, n, v = 1.0, 100_000, 0.3
    model = SquareWaveLDP(epsilon=eps, bounds=(5, 15), secure=secure, random_state=4)
    out = (model.fit_transform(np.full((n, 1), 5 + 10 * v)).ravel() - 5) / 10
    w, odds = _square_wave_terms(eps)
    p_near = odds / (1 + odds)
    # near band [v - w, v + w]; the far part is uniform on a total length 1
    cases = [
        (np.abs(out - v) <= w, p_near),
        (out < v - w, (1 - p_near) * v),
        (out > v + w, (1 - p_near) * (1 - v)),
        (out < v - w - 0.1, (1 - p_near) * (v - 0.1)),
        ((out > v - w / 2) & (out < v + w / 2), p_near / 2),
    ]
    for hit, prob in cases:
        se = math.sqrt(prob * (1 - prob) / n)
        assert abs(hit.mean() - prob) < 5 * se
    assert out.min() >= -w and out.max() <= 1 + w


def test_grid_outputs_are_on_the_grid_and_in_range():
    model = SquareWaveLDP(epsilon=2.0, bounds=(-1, 3), random_state=2)
    out = model.fit_transform(np.array([[-1.0], [3.0], [0.5]] * 500))
    steps = (out + 1) / model.grid_step_
    np.testing.assert_array_equal(steps, np.rint(steps))
    w = 4 * model.half_width_
    assert out.min() >= -1 - w - 1e-12 and out.max() <= 3 + w + 1e-12


def test_privacy_summary():
    model = SquareWaveLDP(epsilon=2.0, bounds=(0, 10)).fit(np.zeros((1, 1)))
    summary = model.privacy_summary()
    assert summary["notion"] == "epsilon-LDP (square wave)"
    assert summary["half_width"] == model.half_width_
    assert type(summary["half_width"]) is float
    assert summary["epsilon"] == 2.0
    assert list(summary)[-1] == "half_width"


def test_seed_is_kept_and_reproduces():
    model = SquareWaveLDP(epsilon=1.0, bounds=(0, 1), random_state=3)
    assert model.get_params()["random_state"] == 3
    X = np.linspace(0, 1, 7)[:, None]
    first = model.fit_transform(X)
    again = SquareWaveLDP(epsilon=1.0, bounds=(0, 1), random_state=3).fit_transform(X)
    np.testing.assert_array_equal(first, again)


def test_huge_budget_fits_without_numerical_warnings():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        model = SquareWaveLDP(epsilon=800.0, bounds=(0, 1)).fit(np.zeros((1, 1)))
        _square_wave_terms(800.0)
    assert model.half_width_ == 0.0


def test_exact_law_is_the_columns_own():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        SquareWaveLDP(bounds=(0, 1))._exact_law(0)
    model = SquareWaveLDP(bounds=([0, 5], [1, 7])).fit(np.zeros((1, 2)))
    for j, (low, step) in enumerate([(0.0, 2.0**-20), (5.0, 2.0**-19)]):
        law = model._exact_law(j)
        assert law.K == 2**GRID_BITS
        assert model._half_cells == law.W
        assert law.input_label(0) == low
        assert law.input_label(3) == pytest.approx(low + 3 * step)


def _reference_terms(eps):
    """``(w, 2 w e^eps)`` in 60 significant digits, rounded once to doubles."""
    import mpmath

    with mpmath.workdps(60):
        x = mpmath.mpf(eps)
        w = (x - 1 + mpmath.exp(-x)) / (2 * (mpmath.expm1(x) - x))
        return float(w), float(2 * w * mpmath.exp(x))


# around the switch at 709 (the largest double below it, 709 itself, the
# next double above) and on into the large-budget form: w normal up to
# about 714.3, subnormal up to about 751.1
_LARGE_BUDGETS = [
    708.5,
    math.nextafter(709.0, 0.0),
    709.0,
    math.nextafter(709.0, math.inf),
    709.5,
    710.0,
    712.0,
    714.0,
    714.5,
    730.0,
    750.0,
]


@pytest.mark.parametrize("eps", _LARGE_BUDGETS)
def test_half_width_and_odds_are_exact_at_large_budgets(eps):
    w, odds = _square_wave_terms(eps)
    ref_w, ref_odds = _reference_terms(eps)
    assert ref_w > 0
    # a few units in the last place (of the subnormal spacing past 714.3)
    assert abs(w - ref_w) <= 4 * np.spacing(ref_w)
    assert abs(odds - ref_odds) <= 4 * np.spacing(ref_odds)
    assert square_wave_half_width(eps) == w


@pytest.mark.parametrize("eps", [709.0, 709.5, 709.75])
def test_densities_at_large_budgets(eps):
    # near density p = e^eps / (2 w e^eps + 1), far density q = 1 / (...):
    # p / q = e^eps, and p 2 w + q 1 = 1 (e^eps is finite up to 709.78)
    w, odds = _square_wave_terms(eps)
    q = 1.0 / (1.0 + odds)
    p = math.exp(eps) * q
    assert p * 2 * w + q == pytest.approx(1.0, rel=1e-14)
    assert odds / (2 * w) == pytest.approx(math.exp(eps), rel=1e-14)


@pytest.mark.parametrize("eps", [714.5, 740.0, 751.0, 760.0, 1e300])
def test_large_budget_terms_ignore_a_callers_underflow_setting(eps):
    # w becomes subnormal, then 0, on purpose: a caller that had numpy raise
    # on every floating-point condition still gets w
    expected = _square_wave_terms(eps)
    with np.errstate(all="raise"):
        assert _square_wave_terms(eps) == expected
        assert square_wave_half_width(eps) == expected[0]
