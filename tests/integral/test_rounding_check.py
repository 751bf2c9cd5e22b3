"""The coverage of rounded integrally private releases and its warning."""

from __future__ import annotations

import warnings
from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skprivate import IntegralPrivateStatistics
from skprivate.exceptions import CoverageWarning
from skprivate.integral import _rounding_check
from skprivate.integral._rounding_check import (
    COVERAGE_TOLERANCE,
    RoundingCheckMixin,
    _pieces,
    coverage_range,
    rounded_coverage,
)


def _by_enumeration(sd, step, c, o):
    """P(|round(M) - o| <= c) for M ~ N(o, sd**2), one grid value at a time."""
    centre = int(np.round(o / step))
    k = np.arange(centre - 200, centre + 201)
    p = stats.norm.cdf((k + 0.5) * step, o, sd) - stats.norm.cdf(
        (k - 0.5) * step, o, sd
    )
    return float(p[np.abs(k * step - o) <= c].sum())


def test_exact_small_cases():
    # truth on the grid, only its own grid value inside: P(|Z| < 1/2)
    assert rounded_coverage(1.0, 1.0, 0.5, [0.0])[0] == pytest.approx(
        2 * stats.norm.cdf(0.5) - 1, abs=1e-15
    )
    # truth at 0.25 with c = 1: the values 0 and 1 are inside, -1 is not
    got = rounded_coverage(1.0, 1.0, 1.0, [0.25])[0]
    want = stats.norm.cdf(1.25) - stats.norm.cdf(-0.75)
    assert got == pytest.approx(want, abs=1e-15)
    # an interval shorter than the distance to every grid value never covers
    assert rounded_coverage(0.3, 1.0, 0.2, [0.5])[0] == 0.0


@pytest.mark.parametrize(
    ("sd", "step", "c"),
    [(0.09, 0.1, 0.18), (0.045, 0.1, 0.1), (0.2, 0.05, 0.33), (1.0, 2.5, 0.7)],
)
def test_equals_enumeration_at_every_place(sd, step, c):
    offsets = np.linspace(0.0, step, 37)
    got = rounded_coverage(sd, step, c, offsets)
    want = [_by_enumeration(sd, step, c, o) for o in offsets]
    np.testing.assert_allclose(got, want, atol=1e-12)


def test_pieces_of_a_step_by_hand():
    # c = 0.13 = 1 step + 0.03: the value -0.1 lies within c up to o = 0.03,
    # the value 0.2 from o = 0.07
    np.testing.assert_allclose(
        _pieces(0.1, 0.13),
        [(0.0, 0.03, -1, 1), (0.03, 0.07, 0, 1), (0.07, 0.1, 0, 2)],
        atol=1e-15,
    )
    # c = 0.08 = 0 steps + 0.08, beyond half a step: the cuts come in the
    # other order (0.02, then 0.08)
    np.testing.assert_allclose(
        _pieces(0.1, 0.08),
        [(0.0, 0.02, 0, 0), (0.02, 0.08, 0, 1), (0.08, 0.1, 1, 1)],
        atol=1e-15,
    )
    # c = 0.02 < half a step: between the cuts no grid value is within c
    np.testing.assert_allclose(
        _pieces(0.1, 0.02),
        [(0.0, 0.02, 0, 0), (0.02, 0.08, 1, 0), (0.08, 0.1, 1, 1)],
        atol=1e-15,
    )
    # c a whole number of steps: one piece
    assert _pieces(1.0, 2.0) == [(0.0, 1.0, -1, 2)]


@pytest.mark.parametrize(
    ("sd", "step", "c"),
    [
        (0.0894, 0.1, 0.184),
        (0.06, 0.1, 0.13),
        (0.04, 0.1, 0.08),
        (0.3, 1.0, 0.2),
        (0.2, 0.05, 0.33),
        (1.0, 2.0, 4.0),
    ],
)
def test_range_and_average_equal_a_fine_search(sd, step, c):
    low, average, high = coverage_range(sd, step, c)
    places = np.linspace(0.0, step, 400_001)
    fine = rounded_coverage(sd, step, c, places)
    # the lowest value may be a limit at a jump, which no place attains
    assert fine.min() - 1e-5 < low <= fine.min() + 1e-12
    assert high == pytest.approx(fine.max(), abs=1e-9)
    assert average == pytest.approx(fine[:-1].mean(), abs=1e-5)


def test_highest_at_the_centre_lowest_as_a_limit_at_a_cut():
    # step 0.1, c = 0.08: from o = 0.02 to 0.08 the values 0 and 0.1 are
    # within c, and the coverage peaks half-way, at 0.05
    low, _, high = coverage_range(0.04, 0.1, 0.08)
    assert high == pytest.approx(2 * stats.norm.cdf(2.5) - 1, abs=1e-14)
    assert high == pytest.approx(_by_enumeration(0.04, 0.1, 0.08, 0.05), abs=1e-14)
    # lowest: the limit as the truth reaches 0.02 from below, only the value
    # 0 within c; at 0.02 itself 0.1 is at distance c exactly and counts
    limit = stats.norm.cdf(0.05, 0.02, 0.04) - stats.norm.cdf(-0.05, 0.02, 0.04)
    assert low == pytest.approx(limit, abs=1e-14)
    assert _by_enumeration(0.04, 0.1, 0.08 + 1e-12, 0.02) > limit + 0.2


def test_a_truth_on_the_grid_with_c_a_whole_number_of_steps():
    # c = 2 steps: at o = 0 the values -2 and 2 are at distance c exactly
    # and count, a coverage no place inside the step reaches
    _, _, high = coverage_range(1.0, 1.0, 2.0)
    assert high == pytest.approx(stats.norm.cdf(2.5) - stats.norm.cdf(-2.5), abs=1e-14)


@pytest.mark.parametrize(("sd", "step"), [(0.0894, 0.1), (0.0447, 0.1), (0.2, 0.05)])
def test_average_over_places_is_about_the_level(sd, step):
    # the interval's variance includes the rounding's, step**2 / 12
    c = stats.norm.ppf(0.975) * np.sqrt(sd**2 + step**2 / 12)
    places = np.linspace(0.0, step, 4001)[:-1]
    assert rounded_coverage(sd, step, c, places).mean() == pytest.approx(
        0.95, abs=0.006
    )


def _fitted(n, decimals, seed=0, statistics=("count", "mean", "std")):
    x = np.random.default_rng(seed).normal(10.037, 2.0, size=(n, 1))
    return IntegralPrivateStatistics(
        statistics=statistics, n_resamples=500, decimals=decimals, random_state=1
    ).fit(x)


def _expected_range(est, kind, level):
    table = est.results_.set_index("statistic")["value"]
    count, std = float(table["count"]), float(table["std"])
    ci = est.conf_int(kind, level=level)
    step = 10.0**-est.decimals
    sd = std / np.sqrt(count) if kind == "mean" else std * np.sqrt(count)
    spread = np.sqrt(max(float(ci["se"].iloc[0]) ** 2 - step**2 / 12, sd**2))
    c = float(ci["upper"].iloc[0] - ci["estimate"].iloc[0])
    low, average, high = coverage_range(spread, step, c)
    return low, high, average, spread, step


def test_warning_names_the_range_the_step_and_the_column():
    est = _fitted(500, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low, high, average, spread, step = _expected_range(est, "mean", 0.95)
    with pytest.warns(CoverageWarning) as caught:
        est.conf_int("mean", level=0.95)
    assert len(caught) == 1
    text = str(caught[0].message)
    assert text == (
        "IntegralPrivateStatistics: the mean interval of column 'x0' covers "
        f"between {low:.2f} and {high:.2f} of the time instead of 0.95, "
        "depending on where the true mean lies between two values of the "
        "release's grid: the release is rounded to a step of 0.1 (decimals=1), "
        f"{step / spread:.2g} times the standard error of the release before "
        f"rounding, so it takes only a few values near the truth ({average:.2f} "
        "on average over that place). More decimals give a finer grid."
    )
    # the numbers of this design: a step of about 1.1 standard errors
    assert (low, high) == pytest.approx((0.90, 0.975), abs=0.01)


def test_warns_once_per_call_and_for_the_sum():
    est = _fitted(2000, 1, statistics=("count", "mean", "std", "sum"))
    with pytest.warns(CoverageWarning) as caught:
        est.conf_int("mean", level=(0.9, 0.95))
    assert len([w for w in caught if w.category is CoverageWarning]) == 1
    assert "instead of 0.9," in str(caught[0].message)
    # the sum is rounded to the same step, a tiny fraction of its error
    with warnings.catch_warnings():
        warnings.simplefilter("error", CoverageWarning)
        est.conf_int("sum", level=0.95)


def test_sum_warns_where_its_step_is_large():
    # five values, decimals=0: released std 1, sum error about 2.2, step 1
    x = np.random.default_rng(2).normal(0.0, 1.2, size=(5, 1))
    est = IntegralPrivateStatistics(
        statistics=("count", "std", "sum"),
        n_resamples=500,
        decimals=0,
        random_state=2,
    ).fit(x)
    assert est.results_["value"].tolist()[:2] == [5.0, 1.0]
    with pytest.warns(CoverageWarning) as caught:
        ci = est.conf_int("sum", level=0.95)
    text = str(caught[0].message)
    assert text.startswith(
        "IntegralPrivateStatistics: the sum interval of column 'x0' covers between"
    )
    spread = np.sqrt(float(ci["se"].iloc[0]) ** 2 - 1 / 12)
    assert f"{1 / spread:.2g} times the standard error" in text
    half = float(ci["upper"].iloc[0] - ci["estimate"].iloc[0])
    low, _, high = coverage_range(spread, 1.0, half)
    assert f"between {low:.2f} and {high:.2f}" in text


def test_std_rounded_to_zero_warns_that_the_interval_has_no_width():
    x = np.random.default_rng(0).normal(0.0, 1.2, size=(5, 1))
    est = IntegralPrivateStatistics(
        statistics=("count", "std", "sum"),
        n_resamples=500,
        decimals=0,
        random_state=2,
    ).fit(x)
    with pytest.warns(CoverageWarning) as caught:
        ci = est.conf_int("sum", level=(0.9, 0.95))
    assert len(caught) == 1
    assert str(caught[0].message) == (
        "IntegralPrivateStatistics: the sum interval of column 'x0' has no "
        "width: the released standard deviation is 0 at decimals=0 (rounded to "
        "a step of 1), so the interval holds the release only and almost never "
        "covers the true value. More decimals give a finer grid."
    )
    assert (ci["lower"] == ci["upper"]).all()


@pytest.mark.parametrize(("n", "decimals"), [(500, 2), (2000, 2)])
def test_fine_grids_do_not_warn(n, decimals):
    est = _fitted(n, decimals)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CoverageWarning)
        ci = est.conf_int("mean", level=(0.9, 0.95))
    assert np.isfinite(ci["lower"]).all()


@pytest.mark.parametrize(("n", "decimals"), [(500, 1), (2000, 1), (500, 2), (2000, 2)])
def test_warns_exactly_when_the_range_leaves_the_band(n, decimals):
    est = _fitted(n, decimals)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        low, high, *_ = _expected_range(est, "mean", 0.95)
    outside = low < 0.95 - COVERAGE_TOLERANCE or high > 0.95 + COVERAGE_TOLERANCE
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        est.conf_int("mean", level=0.95)
    warned = any(w.category is CoverageWarning for w in caught)
    assert warned == outside
    assert outside == (decimals == 1)


def test_unrounded_release_and_missing_std_do_not_warn():
    x = np.random.default_rng(0).normal(10.0, 2.0, size=(300, 1))
    est = IntegralPrivateStatistics(
        statistics=("count", "mean"), n_resamples=300, decimals=1, random_state=0
    ).fit(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CoverageWarning)
        ci = est.conf_int("mean", level=0.95)
    assert np.isnan(ci["lower"]).all()


def test_values_are_those_of_the_release_rule():
    est = _fitted(500, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoverageWarning)
        ci = est.conf_int("mean", level=0.95)
    se = float(ci["se"].iloc[0])
    value = float(est.results_.set_index("statistic")["value"]["mean"])
    z = stats.norm.ppf(0.975)
    assert ci["estimate"].iloc[0] == value
    assert ci["lower"].iloc[0] == pytest.approx(value - z * se, abs=1e-12)
    assert ci["upper"].iloc[0] == pytest.approx(value + z * se, abs=1e-12)


def test_warning_points_to_the_caller():
    est = _fitted(500, 1)
    with pytest.warns(CoverageWarning) as caught:
        est.conf_int("mean", level=0.95)
    assert caught[0].filename == __file__


class _Released(RoundingCheckMixin):
    """The check alone, on released values given by hand (per column)."""

    def __init__(self, decimals, count, std, columns=("x",)):
        self.decimals = decimals
        stds = np.broadcast_to(std, len(columns))
        self.results_ = pd.DataFrame(
            {
                "column": np.repeat(columns, 2),
                "statistic": ["count", "std"] * len(columns),
                "value": np.ravel([(count, s) for s in stds]),
            }
        )


def _check(owner, kind, se, half_width, level=0.95, points=("x",)):
    k = len(points)
    half = np.broadcast_to(half_width, k)
    frame = pd.DataFrame(
        {
            "point": list(points),
            "lower": 10.0 - half,
            "upper": 10.0 + half,
            "se": np.broadcast_to(se, k),
            "level": [level] * k,
        }
    )
    request = SimpleNamespace(cache={})
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        owner._ci_check_rounding(request, frame, kind)
    return [str(w.message) for w in caught], request.cache


def test_later_columns_are_checked_past_one_without_interval():
    owner = _Released(0, 4.0, 0.2, columns=("x", "y"))
    (text,), _ = _check(owner, "mean", np.sqrt(0.1), [np.nan, 0.6], points=("x", "y"))
    assert "column 'y'" in text
    assert text.endswith("More decimals give a finer grid.")


def test_other_offending_columns_are_counted():
    owner = _Released(0, 4.0, [0.0, 0.2, 0.2], columns=("x", "y", "z"))
    (text,), _ = _check(owner, "mean", np.sqrt(0.1), 0.6, points=("x", "y", "z"))
    assert text.startswith("_Released: the mean interval of column 'x' has no width")
    assert text.endswith(
        "More decimals give a finer grid. The same holds for 2 more columns."
    )
    (text,), _ = _check(owner, "mean", np.sqrt(0.1), 0.6, points=("x", "y"))
    assert text.endswith("The same holds for 1 more column.")


def test_spread_is_the_interval_variance_less_the_rounding():
    # step 1, se**2 = 0.1: the release's error before rounding has variance
    # 0.1 - 1/12, above the sampling variance (0.2 / 2)**2 = 0.01
    owner = _Released(0, 4.0, 0.2)
    (text,), cache = _check(owner, "mean", np.sqrt(0.1), 0.6)
    spread = np.sqrt(0.1 - 1 / 12)
    low, average, high = coverage_range(spread, 1.0, 0.6)
    assert f"{1 / spread:.2g} times the standard error" in text
    assert f"between {low:.2f} and {high:.2f}" in text
    assert f"({average:.2f} on average" in text
    assert "7.7 times" in text
    assert cache == {"rounding-warned": True}


def test_spread_is_at_least_the_sampling_error_of_the_sum():
    # the sum of 4 values of SD 0.6 has sampling SD 1.2, above the
    # interval's variance less the rounding's, 1 - 1/12
    owner = _Released(0, 4.0, 0.6)
    (text,), _ = _check(owner, "sum", 1.0, 0.6)
    low, _, high = coverage_range(1.2, 1.0, 0.6)
    assert "the sum interval of column 'x'" in text
    assert "0.83 times the standard error" in text
    assert f"between {low:.2f} and {high:.2f}" in text
    # the mean's sampling SD is 0.3: below sqrt(1 - 1/12), not used
    (text,), _ = _check(owner, "mean", 1.0, 0.6)
    assert f"{1 / np.sqrt(1 - 1 / 12):.2g} times the standard error" in text


_LOW_EDGE = 0.95 - COVERAGE_TOLERANCE
_HIGH_EDGE = 0.95 + COVERAGE_TOLERANCE


@pytest.mark.parametrize(
    ("low", "high", "warns"),
    [
        (_LOW_EDGE, _HIGH_EDGE, False),
        (np.nextafter(_LOW_EDGE, 0), 0.95, True),
        (0.95, np.nextafter(_HIGH_EDGE, 1), True),
    ],
)
def test_the_band_is_closed(monkeypatch, low, high, warns):
    monkeypatch.setattr(
        _rounding_check, "coverage_range", lambda *args: (low, 0.95, high)
    )
    messages, cache = _check(_Released(1, 500.0, 2.0), "mean", 0.1, 0.2)
    assert bool(messages) == warns
    assert cache == ({"rounding-warned": True} if warns else {})


def test_first_offending_column_is_named_once():
    x = np.random.default_rng(0).normal(10.0, 2.0, size=(500, 2))
    est = IntegralPrivateStatistics(
        statistics=("count", "mean", "std"),
        n_resamples=500,
        decimals=1,
        random_state=0,
    ).fit(x)
    with pytest.warns(CoverageWarning) as caught:
        est.conf_int("mean", level=0.95)
    assert len(caught) == 1
    text = str(caught[0].message)
    assert "column 'x0'" in text
    assert text.endswith("The same holds for 1 more column.")
    with pytest.warns(CoverageWarning) as caught:
        est.conf_int("mean", ["x1"], level=0.95)
    assert "column 'x1'" in str(caught[0].message)
    assert str(caught[0].message).endswith("finer grid.")


def test_no_released_count_gives_no_interval_and_no_warning():
    x = np.random.default_rng(0).normal(10.0, 2.0, size=(300, 1))
    est = IntegralPrivateStatistics(
        statistics=("mean", "std"), n_resamples=300, decimals=1, random_state=0
    ).fit(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error", CoverageWarning)
        ci = est.conf_int("mean", level=0.95)
    assert np.isnan(ci["lower"]).all()
