"""RVNSPerturber behaviour that mutation testing found unchecked.

Each test pins a documented behaviour with an exact small case: the
refusals and their messages, the default band, the report layout, the
epsilon and boundary-margin formulas of the class Notes (continuous and on
the grid, written out again here from the stated formulas), and the exact
privacy summary.  ``benchmarks/_mutation_modules.py`` lists the mutants of
``skprivate/negative_survey/_perturber.py`` each test kills.
"""

import math
import re
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from skprivate.negative_survey import RVNSPerturber
from skprivate.negative_survey._perturber import (
    _log_fraction,
    _power_sums,
    _safe_grid_log_ratio,
    _safe_ratio,
    _tuple_factor,
)

H = 2.0**-23  # grid step for d = 2 on (0, 10): 2**-24 of min(d, b - a - d)
D_STEPS = 2**24  # the band d = 2 in grid steps


def _fit(**params):
    params.setdefault("bounds", (0, 10))
    return RVNSPerturber(**params).fit([[1.0]])


def test_defaults():
    params = RVNSPerturber().get_params()
    assert params == {
        "d": None,
        "k": 1,
        "bounds": None,
        "random_state": None,
        "secure": True,
        "placement": "boundary_safe",
    }


def test_default_band_is_a_fifth_of_each_range():
    model = RVNSPerturber(bounds=([0, 5], [10, 30])).fit([[1.0, 6.0]])
    np.testing.assert_array_equal(model.d_, [2.0, 5.0])
    np.testing.assert_array_equal(model.bounds_[0], [0.0, 5.0])
    np.testing.assert_array_equal(model.bounds_[1], [10.0, 30.0])


def test_band_per_column_and_its_shape_message():
    model = RVNSPerturber(d=[1.0, 2.0], bounds=(0, 10)).fit([[1.0, 2.0]])
    np.testing.assert_array_equal(model.d_, [1.0, 2.0])
    with pytest.raises(
        ValueError,
        match=re.escape(
            "d must be a scalar or have one entry per column (2); got shape (3,)."
        ),
    ):
        RVNSPerturber(d=[1.0, 2.0, 3.0], bounds=(0, 10)).fit([[1.0, 2.0]])
    with pytest.raises(ValueError, match=re.escape("got shape (1, 1).")):
        RVNSPerturber(d=[[1.0]], bounds=(0, 10)).fit([[1.0]])


@pytest.mark.parametrize("bad", [[1.0, 0.0], [1.0, -2.0], [np.inf, 1.0], [np.nan, 1]])
def test_band_must_be_finite_and_positive(bad):
    with pytest.raises(ValueError, match="^d must be finite and positive; got"):
        RVNSPerturber(d=bad, bounds=(0, 10)).fit([[1.0, 2.0]])


def test_band_as_wide_as_the_range_is_refused_naming_the_column():
    with pytest.raises(
        ValueError,
        match=re.escape(
            "d must be smaller than the range b - a of every column; column 1 has "
            "d=5 >= b - a = 5, which would leave no value to report."
        ),
    ):
        RVNSPerturber(d=[1.0, 5.0], bounds=([0, 1], [10, 6])).fit([[1.0, 2.0]])
    # a range read from the data is not shown
    with (
        pytest.raises(
            ValueError, match=re.escape("column 0 has d=2 >= b - a, which would")
        ),
        pytest.warns(Warning),
    ):
        RVNSPerturber(d=2.0).fit([[1.0], [3.0]])
    # just below the range is accepted
    assert RVNSPerturber(d=4.99, bounds=(0, 5)).fit([[1.0]]).d_[0] == 4.99


def test_grid_and_report_range_per_placement():
    safe = _fit(d=2.0)
    np.testing.assert_array_equal(safe.grid_step_, [H])
    np.testing.assert_array_equal(safe.report_range_[0], [-2.0])
    np.testing.assert_array_equal(safe.report_range_[1], [12.0])
    paper = _fit(d=2.0, placement="paper")
    np.testing.assert_array_equal(paper.grid_step_, [H])
    np.testing.assert_array_equal(paper.report_range_[0], [0.0])
    np.testing.assert_array_equal(paper.report_range_[1], [10.0])
    continuous = _fit(d=2.0, secure=False)
    assert continuous.grid_step_ is None and continuous._grid is None


def test_boundary_safe_grid_is_checked_only_for_that_placement():
    # a band of nearly the whole range: the padded indices ja - D .. jb + D
    # pass 2**53, the paper's indices ja .. jb do not
    bounds, d = (-(2.0**40), 2.0**40), 2.0**41 - 2.0**10
    with pytest.raises(ValueError, match="padded report grid of column 0"):
        RVNSPerturber(d=d, bounds=bounds).fit([[0.0]])
    paper = RVNSPerturber(d=d, bounds=bounds, placement="paper").fit([[0.0]])
    np.testing.assert_array_equal(paper.grid_step_, [2.0**-12])


@pytest.mark.parametrize("secure", [True, False])
@pytest.mark.parametrize("placement", ["boundary_safe", "paper"])
def test_reports_of_each_column_in_its_block_and_range(secure, placement):
    X = np.array([[0.0, 100.0], [1.0, 150.0], [0.5, 200.0]] * 200)
    model = RVNSPerturber(
        d=[0.25, 30.0],
        k=3,
        bounds=([0, 100], [1, 200]),
        secure=secure,
        placement=placement,
        random_state=0,
    )
    Y = model.fit_transform(X)
    assert Y.shape == (600, 6)
    low, high = model.report_range_
    for j in range(2):
        block = Y[:, 3 * j : 3 * j + 3]
        assert np.all((block >= low[j]) & (block <= high[j]))
    outside = (Y[:, :3] < 0) | (Y[:, :3] > 1)
    # the boundary-safe reports use the padding, the paper's never do
    assert outside.any() == (placement == "boundary_safe")
    if secure:
        steps = Y / np.repeat(model.grid_step_, 3)
        np.testing.assert_array_equal(steps, np.rint(steps))


def test_values_outside_bounds_read_from_the_data_are_refused():
    with pytest.warns(Warning):
        model = RVNSPerturber(d=0.5).fit([[0.0], [4.0]])
    with pytest.raises(ValueError, match="row 1: value outside .*declare bounds"):
        model.transform([[1.0], [5.0]])


def test_feature_names_out():
    model = RVNSPerturber(d=1.0, k=2, bounds=(0, 10)).fit([[1.0, 2.0]])
    names = model.get_feature_names_out()
    assert names.dtype == object
    assert names.tolist() == ["x0_s0", "x0_s1", "x1_s0", "x1_s1"]
    assert model.get_feature_names_out(["a", "b"]).tolist() == [
        "a_s0",
        "a_s1",
        "b_s0",
        "b_s1",
    ]
    with pytest.raises(
        ValueError, match=re.escape("input_features should have length 2; got 3.")
    ):
        model.get_feature_names_out(["a", "b", "c"])
    frame = pd.DataFrame({"age": [20.0], "income": [3.0]})
    named = RVNSPerturber(d=1.0, k=1, bounds=(0, 100)).fit(frame)
    assert named.get_feature_names_out().tolist() == ["age_s0", "income_s0"]


def test_delta_range_messages():
    model = RVNSPerturber(d=[2.0, 3.0], bounds=(0, 10), secure=False)
    model.fit([[1.0, 1.0]])
    with pytest.raises(
        ValueError,
        match=re.escape("delta must satisfy 0 < delta <= d (d = 2); got delta=2.5."),
    ):
        model.epsilon(2.5)
    for bad in (0.0, -1.0, np.inf, np.nan):
        with pytest.raises(ValueError, match="^delta must satisfy 0 < delta <= d "):
            model.epsilon(bad)
    # delta = d is allowed for one report
    assert np.all(np.isfinite(model.epsilon(2.0)))
    two = RVNSPerturber(d=2.0, k=2, bounds=(0, 10), secure=False).fit([[1.0]])
    with pytest.raises(
        ValueError,
        match=re.escape(
            "delta must satisfy 0 < delta <= d / 2 (d / 2 = 1) for the k-report "
            "bound of the boundary-safe placement (k=2); got delta=1.5."
        ),
    ):
        two.epsilon(1.5)
    assert two.epsilon(1.0) == pytest.approx(math.log(3 * 4 * 2.0))
    # the paper's placement takes delta up to d for every k
    paper = RVNSPerturber(d=2.0, k=2, bounds=(0, 10), secure=False, placement="paper")
    assert paper.fit([[1.0]]).epsilon(1.5) == pytest.approx(2 * math.log(8 / 1.5))


@pytest.mark.parametrize(
    ("delta", "ratio"),
    [
        (0.5, 8.0),  # 2 d / delta
        (1.0, 4.0),  # a cut window of length 2 = d gives only 2
        (1.6, 2.5),  # 2 d / delta = 2.5 > R(sqrt(2) d) = 1 + sqrt(2)
        (1.8, 1 + math.sqrt(2)),  # the cut window of length sqrt(2) d wins
        (2.0, 1 + math.sqrt(2)),
    ],
)
def test_continuous_boundary_safe_epsilon_for_one_report(delta, ratio):
    model = _fit(d=2.0, secure=False)
    assert model.epsilon(delta) == pytest.approx(math.log(ratio), rel=1e-12)
    assert isinstance(model.epsilon(delta), float)


def test_cut_window_ratio_below_and_above_the_band():
    d = np.array([2.0])
    # 2 delta <= d: R = 2 d / (2 d - 2 delta); 2 delta > d: the second form
    assert _safe_ratio(d, 0.9, 1) == pytest.approx([4 / 0.9])
    ell = 2 * 1.2
    second = 2 * 2.0 * ell / (4.0 + (ell - 2.0) ** 2)
    assert _safe_ratio(d, 1.2, 1) == pytest.approx([max(4 / 1.2, second)])
    wide = np.array([10.0])
    # at delta = d the cut window is sqrt(2) d long
    assert _safe_ratio(wide, 10.0, 1) == pytest.approx([1 + math.sqrt(2)])


@pytest.mark.parametrize(("k", "factor"), [(1, 2), (2, 4), (3, 12), (4, 32), (5, 80)])
def test_tuple_factor(k, factor):
    assert _tuple_factor(k) == factor
    expected = max(math.comb(k, j) * 2 ** (k - j) for j in range(k + 1))
    assert factor == expected


@pytest.mark.parametrize("k", [2, 3, 4])
def test_continuous_boundary_safe_epsilon_for_k_reports(k):
    model = _fit(d=2.0, k=k, secure=False)
    expected = math.log((k + 1) * _tuple_factor(k) * 2.0 / 0.1)
    assert model.epsilon(0.1) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("k", [1, 3])
def test_continuous_paper_epsilon(k):
    model = _fit(d=2.0, k=k, secure=False, placement="paper")
    assert model.epsilon(0.1) == pytest.approx(k * math.log(80.0), rel=1e-12)


def test_grid_paper_epsilon_is_in_grid_steps():
    model = _fit(d=2.0, k=2, placement="paper")
    m = math.floor(0.1 / H)
    assert model.epsilon(0.1) == pytest.approx(2 * math.log(4 * D_STEPS / m), rel=1e-12)


@pytest.mark.parametrize("k", [1, 2, 3])
def test_grid_boundary_safe_epsilon_uses_the_exact_log_ratio(k):
    model = _fit(d=2.0, k=k)
    m = math.floor(0.1 / H)
    assert model.epsilon(0.1) == _safe_grid_log_ratio(D_STEPS, m, k)


def test_per_column_epsilon_is_an_array():
    model = RVNSPerturber(d=[2.0, 4.0], bounds=(0, 10), secure=False)
    eps = model.fit([[1.0, 1.0]]).epsilon(0.1)
    assert isinstance(eps, np.ndarray)
    np.testing.assert_allclose(eps, np.log([40.0, 80.0]), rtol=1e-12)
    grid = RVNSPerturber(d=[2.0, 4.0], bounds=(0, 10)).fit([[1.0, 1.0]])
    assert isinstance(grid.epsilon(0.1), np.ndarray)


def test_delta_below_the_grid_step_is_refused():
    model = _fit(d=2.0)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "delta must be at least the grid step of the sampler (1.19209e-07); "
            "got delta=1e-08."
        ),
    ):
        model.epsilon(1e-8)
    # one step is enough
    assert np.isfinite(model.epsilon(H))


def _brute_k1(D, m):
    """max((2m+1)(D+1) / (m^2+m+1), l (D+1) / T(l) for m < l <= 2m), exactly."""
    best = Fraction((2 * m + 1) * (D + 1), m * m + m + 1)
    least = 0  # T(l) = sum_{u < l} |D - u|, grown one term at a time
    for ell in range(1, 2 * m + 1):
        least += abs(D - (ell - 1))
        if ell > m:
            best = max(best, Fraction(ell * (D + 1), least))
    return best


def _brute_k(D, m, k):
    """(D + 1) / Q_k, Q_k summed term by term."""
    q = min(
        sum(
            Fraction(m + 1 - t, 2 * m + 1) ** (k - j) * Fraction(t + 1, m + 1) ** j
            for t in range(m + 1)
        )
        for j in range(k + 1)
    )
    return Fraction(D + 1) / q


def test_grid_log_ratio_for_one_report_by_enumeration():
    # every band D and window m with m <= D <= 40: the windows cut at the
    # end of the report range are enumerated over every length l
    for D in range(1, 41):
        for m in range(1, D + 1):
            expected = _log_fraction(_brute_k1(D, m))
            assert _safe_grid_log_ratio(D, m, 1) == pytest.approx(
                expected, rel=1e-14, abs=1e-14
            ), (D, m)


def test_grid_log_ratio_for_k_reports_by_summation():
    for k in (2, 3, 4):
        for D in range(2, 17):
            for m in range(1, D // 2 + 1):
                expected = _log_fraction(_brute_k(D, m, k))
                assert _safe_grid_log_ratio(D, m, k) == pytest.approx(
                    expected, rel=1e-14
                ), (D, m, k)


@pytest.mark.parametrize("n", [1, 2, 5, 11])
def test_power_sums_are_exact(n):
    assert _power_sums(n, 5) == [sum(u**p for u in range(1, n + 1)) for p in range(6)]


def test_log_fraction_of_huge_terms():
    assert _log_fraction(Fraction(3, 7)) == pytest.approx(math.log(3 / 7), rel=1e-15)
    big = Fraction(10**400, 3)
    assert _log_fraction(big) == pytest.approx(400 * math.log(10) - math.log(3))
    assert _log_fraction(Fraction(1, 10**400)) == pytest.approx(-400 * math.log(10))


def test_boundary_margin_per_placement():
    assert _fit(d=2.0).boundary_margin(0.1) == 0.0
    paper = _fit(d=2.0, secure=False, placement="paper")
    assert paper.boundary_margin(0.1) == pytest.approx(0.01 / 3.9, rel=1e-12)
    grid = _fit(d=2.0, placement="paper")
    m = math.floor(0.1 / H)
    expected = H * (m * m / (2.0 * D_STEPS - m) + 1.0)
    assert grid.boundary_margin(0.1) == pytest.approx(expected, rel=1e-12)
    with pytest.raises(ValueError, match="delta must satisfy"):
        paper.boundary_margin(3.0)
    both = RVNSPerturber(d=[2.0, 4.0], bounds=(0, 10), secure=False, placement="paper")
    margins = both.fit([[1.0, 1.0]]).boundary_margin(0.1)
    np.testing.assert_allclose(margins, [0.01 / 3.9, 0.01 / 7.9], rtol=1e-12)
    safe_two = RVNSPerturber(d=[2.0, 4.0], bounds=(0, 10)).fit([[1.0, 1.0]])
    assert safe_two.boundary_margin(0.1) == 0.0


def test_privacy_summary_boundary_safe_on_the_grid():
    model = _fit(d=2.0)
    eps = model.epsilon(0.1)
    assert model.privacy_summary() == model.privacy_summary(delta=0.1)
    assert model.privacy_summary(delta=0.1) == {
        "notion": "real-value negative survey (epsilon-LDP up to a delta window)",
        "placement": "boundary_safe",
        "d": [2.0],
        "k": 1,
        "bounds": ([0.0], [10.0]),
        "report_range": ([-2.0], [12.0]),
        "band_fraction": [0.2],
        "delta": 0.1,
        "epsilon": eps,
        "epsilon_per_feature": [eps],
        "epsilon_every_input": [eps],
        "boundary_margin": [0.0],
        "bounds_from_data": False,
        "sampler": "exact discrete draws on a grid",
        "floating_point_safe": True,
        "condition": "holds for every input in the bounds, for windows of "
        "half-width delta centred on a possible report of the less likely "
        "input; exact when b - a >= 2 d",
        **model._release_policy(),
        "output_grid": {"origin": [0.0], "step": [H]},
    }


def test_privacy_summary_paper_continuous_two_columns():
    model = RVNSPerturber(
        d=[2.0, 4.0], k=2, bounds=(0, 10), secure=False, placement="paper"
    ).fit([[1.0, 1.0]])
    # delta defaults to d / 20 of the narrowest band
    summary = model.privacy_summary()
    per = [2 * math.log(80.0), 2 * math.log(160.0)]
    assert summary.pop("epsilon_per_feature") == pytest.approx(per, rel=1e-12)
    assert summary.pop("epsilon") == pytest.approx(sum(per), rel=1e-12)
    assert summary.pop("boundary_margin") == pytest.approx(
        [0.01 / 3.9, 0.01 / 7.9], rel=1e-12
    )
    assert summary == {
        "notion": "real-value negative survey (epsilon-LDP up to a delta window)",
        "placement": "paper",
        "d": [2.0, 4.0],
        "k": 2,
        "bounds": ([0.0, 0.0], [10.0, 10.0]),
        "report_range": ([0.0, 0.0], [10.0, 10.0]),
        "band_fraction": [0.2, 0.4],
        "delta": 0.1,
        "epsilon_every_input": [math.inf, math.inf],
        "bounds_from_data": False,
        "sampler": "continuous",
        "floating_point_safe": False,
        "condition": "holds for windows of half-width delta centred on a "
        "possible k-tuple of reports of the less likely input, for inputs at "
        "least boundary_margin from both bounds; an input at r < "
        "boundary_margin from a bound reaches ln(2 + 2 delta / r) per report, "
        "without limit as r -> 0 (use placement='boundary_safe' for a "
        "guarantee at every input)",
        **model._release_policy(),
    }


def test_privacy_summary_boundary_safe_k_reports_condition():
    model = _fit(d=2.0, k=3, secure=False)
    summary = model.privacy_summary(delta=0.5)
    assert summary["condition"] == (
        "holds for every input in the bounds, for windows of half-width delta "
        "centred on a possible k-tuple of reports of the less likely input; an "
        "upper bound (the k reports share one band and do not compose: the "
        "ratio grows as 1 / delta)"
    )
    assert summary["epsilon_every_input"] == summary["epsilon_per_feature"]
    assert summary["k"] == 3 and type(summary["k"]) is int
    assert summary["bounds_from_data"] is False
    with pytest.warns(Warning):
        data = RVNSPerturber(d=0.5, secure=False).fit([[0.0], [4.0]])
    assert data.privacy_summary()["bounds_from_data"] is True


def test_one_margin_or_one_per_column():
    assert type(_fit(d=2.0).boundary_margin(0.1)) is float
    assert type(_fit(d=2.0, secure=False, placement="paper").boundary_margin(0.1)) is (
        float
    )
    both = RVNSPerturber(d=[2.0, 4.0], bounds=(0, 10), placement="paper")
    assert isinstance(both.fit([[1.0, 1.0]]).boundary_margin(0.1), np.ndarray)


def test_band_fraction_is_of_the_range():
    model = RVNSPerturber(d=[2.0, 3.0], bounds=([2, -4], [12, 2])).fit([[3.0, 0.0]])
    assert model.privacy_summary()["band_fraction"] == pytest.approx([0.2, 0.5])


@pytest.mark.parametrize("delta", [0.1, 0.2, 0.25, 0.3, 0.45, 0.5])
def test_cut_window_ratio_for_a_narrow_band(delta):
    # d = 0.5: the ratio is 2 d / delta or, beyond 0.828 d, 1 + sqrt(2)
    d = 0.5
    expected = max(2 * d / delta, 1 + math.sqrt(2))
    assert _safe_ratio(np.array([d]), delta, 1) == pytest.approx([expected])


def test_exact_law_is_the_columns_own():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        RVNSPerturber(d=2.0, bounds=(0, 10))._exact_law(0)
    model = RVNSPerturber(d=[2.0, 4.0], bounds=([0, 0], [10, 20])).fit([[1.0, 1.0]])
    for j in range(2):
        law = model._exact_law(j)
        assert law.step == model.grid_step_[j]
        assert round(model.d_[j] / model.grid_step_[j]) == law.grid.D
    assert model._exact_law(0).step != model._exact_law(1).step


def test_transform_checks_the_columns_seen_in_fit():
    frame = pd.DataFrame({"age": [20.0], "income": [3.0]})
    model = RVNSPerturber(d=1.0, bounds=(0, 100), random_state=0).fit(frame)
    with pytest.raises(ValueError, match="feature names"):
        model.transform(frame.rename(columns={"income": "wage"}))
    np.testing.assert_array_equal(model.feature_names_in_, ["age", "income"])


def test_missing_and_infinite_values_are_named_by_row_and_column():
    for bad, word in ((np.nan, "NaN"), (np.inf, "infinity")):
        X = [[1.0, 2.0], [3.0, bad]]
        with pytest.raises(
            ValueError,
            match=re.escape(
                f"X contains {word} at row 1, column 1; every value must be finite"
            ),
        ):
            RVNSPerturber(d=1.0, bounds=(0, 10)).fit(X)
        model = RVNSPerturber(d=1.0, bounds=(0, 10)).fit([[1.0, 1.0]])
        with pytest.raises(ValueError, match=f"X contains {word} at row 1, column 1;"):
            model.transform(X)


@pytest.mark.parametrize("secure", [True, False])
def test_integer_data_is_released_as_the_same_floats(secure):
    # the data are read as float64 before the seeded stream is derived from
    # them: integers and the equal floats give the same reports
    params = {"d": 2.0, "k": 2, "bounds": (0, 10), "secure": secure}
    ints = np.array([[0], [3], [10]])
    first = RVNSPerturber(random_state=5, **params).fit(ints).transform(ints)
    floats = ints.astype(float)
    second = RVNSPerturber(random_state=5, **params).fit(floats).transform(floats)
    np.testing.assert_array_equal(first, second)
    again = RVNSPerturber(random_state=5, **params).fit(ints).transform(ints)
    np.testing.assert_array_equal(first, again)


def test_bounds_from_data_warning_names_the_privatizer():
    with pytest.warns(Warning) as record:
        RVNSPerturber(d=0.5).fit([[0.0], [4.0]])
    assert str(record[0].message).startswith(
        "RVNSPerturber was fitted without bounds, so the domain of each column "
        "was read from the data."
    )


def test_bounds_by_column_name():
    frame = pd.DataFrame({"age": [20.0], "income": [3.0]})
    bounds = {"income": (1, 10), "age": (0, 100)}
    model = RVNSPerturber(d=1.0, bounds=bounds).fit(frame)
    np.testing.assert_array_equal(model.bounds_[0], [0.0, 1.0])
    np.testing.assert_array_equal(model.bounds_[1], [100.0, 10.0])


def test_integer_band_is_read_as_float():
    model = RVNSPerturber(d=2, bounds=(0, 10), secure=False).fit([[1.0]])
    assert model.d_.dtype == np.float64
    assert type(model.privacy_summary()["d"][0]) is float
    assert RVNSPerturber(d=[1, 2], bounds=(0, 10)).fit([[1.0, 1.0]]).d_.dtype == (
        np.float64
    )
