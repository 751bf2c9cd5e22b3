"""Identified-set behaviour that mutation testing found unchecked.

Each test pins a documented behaviour of the identified set of the
interval NPMLE's mean (``skprivate/interval/_identified.py``) with an
exact small case: the value bounds and their refusals, the supported
range, the placements of the unsupported mass, the Imbens-Manski
critical value and the widened pointwise intervals.  The shared interval
interface, the grid-EMS intervals and the interval family's NPMLE and MLE
intervals have their own ``tests/test_mutation_intervals_*.py`` files;
``benchmarks/_mutation_specs_intervals.py`` lists the mutants each
file kills.
"""

import re
import warnings

import numpy as np
import pytest
from scipy import stats

from skprivate._uncertainty import (
    bootstrap_replicates,
    resample_indices,
)

# -- the identified set of the NPMLE's mean: skprivate/interval/_identified.py --

INF = np.inf
# Six Case-I rows (tests/interval/test_identified.py): masses 1/2 on (1, 2],
# 1/6 on (3, 4], 1/3 on (6, inf); supported range (3, 4) (k = 3).
SIX = np.array(
    [[1.0, INF], [-INF, 2.0], [3.0, INF], [-INF, 4.0], [-INF, 5.0], [6.0, INF]]
)
# Nine Case-I rows, every value 5, anchors 1..9: all the mass on (4, 5],
# inside the supported range (3, 7).
U9 = np.arange(1.0, 10.0)
NINE = np.where(
    (U9 >= 5)[:, None], np.c_[np.full(9, -INF), U9], np.c_[U9, np.full(9, INF)]
)
# Case-II rows: masses 4/9 on (1, 1.5], 10/27 on (4, 4.5], 5/27 on (5, 6];
# supported range (2, 4.5).
CASE_TWO = np.array(
    [
        [0.0, 2.0],
        [1.0, 3.0],
        [2.0, 5.0],
        [4.0, 6.0],
        [1.0, 2.0],
        [3.0, 7.0],
        [0.5, 1.5],
        [2.5, 4.5],
        [5.0, 8.0],
    ]
)


def _npmle(Z, bounds):
    from skprivate import IntervalNPMLE

    return IntervalNPMLE(bounds=bounds).fit(Z)


def test_value_bounds_are_checked_naming_the_parameter_and_side():
    from skprivate.interval._identified import check_value_bounds

    assert check_value_bounds(None) == (-INF, INF)
    got = check_value_bounds((np.int64(0), 10))
    assert got == (0.0, 10.0) and all(type(v) is float for v in got)
    assert check_value_bounds([-INF, 0.5]) == (-INF, 0.5)
    cases = [
        (3, "bounds must be None or a pair (low, high) of numbers; got int."),
        ((1, 2, 3), "bounds must be None or a pair (low, high) of numbers; got tuple."),
        (
            (np.nan, 1.0),
            "bounds: low must be a number (infinite allowed, not NaN); got float.",
        ),
        (
            (0.0, True),
            "bounds: high must be a number (infinite allowed, not NaN); got bool.",
        ),
        (
            (0.0, "9"),
            "bounds: high must be a number (infinite allowed, not NaN); got str.",
        ),
        ((1.0, 1.0), "bounds must satisfy low < high; got low >= high."),
        ((2.0, 1.0), "bounds must satisfy low < high; got low >= high."),
    ]
    for bounds, message in cases:
        with pytest.raises(ValueError, match=re.escape(message)):
            check_value_bounds(bounds)
    with pytest.raises(ValueError, match=re.escape("range must be None or a pair")):
        check_value_bounds(3, name="range")
    with pytest.raises(ValueError, match=re.escape("range: low must be a number")):
        check_value_bounds((None, 1.0), name="range")


def test_supported_range_takes_the_kth_ends_by_weight():
    from skprivate.interval._identified import support_trim, supported_range

    assert [support_trim(n) for n in (0, 1, 4, 6, 9, 10)] == [1, 1, 2, 3, 3, 4]
    assert supported_range(SIX) == (3.0, 4.0)
    assert supported_range(SIX, k=1) == (1.0, 6.0)
    assert supported_range(SIX, k=2) == (2.0, 5.0)
    # more than half from each side: the median end from both
    four = np.c_[np.full(4, -INF), [1.0, 2.0, 3.0, 4.0]]
    assert supported_range(four, k=3) == (2.0, 3.0)
    # weights: the ends where the weight share first reaches k / n
    assert supported_range(four, np.array([3.0, 1.0, 1.0, 1.0]), k=1) == (1.0, 3.0)
    assert supported_range(four, np.array([3.0, 1.0, 1.0, 1.0]), k=2) == (1.0, 2.0)
    assert supported_range(four, np.array([1.0, 1.0, 1.0, 1.0]), k=2) == (2.0, 3.0)
    assert supported_range(four, np.array([1, 1, 1, 1]), k=np.int64(1)) == (1.0, 4.0)
    got = supported_range(CASE_TWO)
    assert got == (2.0, 4.5) and all(type(v) is float for v in got)
    with pytest.raises(
        ValueError,
        match=re.escape("X has no finite interval end: nothing is located."),
    ):
        supported_range(np.array([[-INF, INF]]))


def test_placements_move_unsupported_mass_to_the_bounds():
    from skprivate.interval._identified import mean_set, outside_share, placements

    innermost = np.array([[1.0, 2.0], [3.0, 4.0], [6.0, INF]])
    low, high, out = placements(innermost, (3.0, 4.0), (0.0, 10.0))
    assert low.tolist() == [0.0, 3.0, 4.0]
    assert high.tolist() == [3.0, 4.0, 10.0]
    assert out.tolist() == [True, False, True]
    # ends at the supported range are inside it
    low, high, out = placements(np.array([[3.0, 4.0]]), (3.0, 4.0), (0.0, 10.0))
    assert (low.tolist(), high.tolist(), out.tolist()) == ([3.0], [4.0], [False])
    # positions are clipped to the declared bounds
    low, high, _ = placements(np.array([[-INF, -5.0]]), (-10.0, 10.0), (-2.0, 2.0))
    assert (low.tolist(), high.tolist()) == ([-2.0], [-2.0])
    low, high, _ = placements(np.array([[5.0, 6.0]]), (0.0, 10.0), (-2.0, 2.0))
    assert (low.tolist(), high.tolist()) == ([2.0], [2.0])
    probs = np.array([0.5, 1 / 6, 1 / 3])
    assert outside_share(innermost, probs, (3.0, 4.0)) == pytest.approx(5 / 6)
    assert outside_share(innermost, probs, (1.0, 6.0)) == pytest.approx(1 / 3)
    assert outside_share(innermost, probs, (1.0, INF)) == 0.0
    low, high = mean_set(innermost, probs, (3.0, 4.0), (0.0, 10.0))
    assert low == pytest.approx(0.5 / 1 + 0.0 + 0.5 + 4 / 3 - 0.5)
    assert high == pytest.approx(1.5 + 4 / 6 + 10 / 3)
    # an interval holding no mass never makes an end infinite
    assert mean_set(
        np.array([[-INF, 1.0], [1.0, 2.0], [2.0, INF]]),
        np.array([0.0, 1.0, 0.0]),
        (1.0, 2.0),
        (-INF, INF),
    ) == (1.0, 2.0)
    assert mean_set(innermost, probs, (3.0, 4.0), (0.0, INF)) == (
        pytest.approx(11 / 6),
        INF,
    )
    assert mean_set(innermost, probs, (3.0, 4.0), (-INF, 10.0))[0] == -INF


def test_imbens_manski_critical_value_against_scipy():
    from skprivate.interval._identified import imbens_manski_critical

    for width, sigma, level in [(1.0, 0.5, 0.9), (0.3, 1.0, 0.95), (0.05, 2.0, 0.99)]:
        c = imbens_manski_critical(width, sigma, level)
        r = width / sigma
        root = optimize_brentq(
            lambda x, r=r, level=level: (
                stats.norm.cdf(x + r) - stats.norm.cdf(-x) - level
            ),
            0.0,
            5.0,
        )
        assert c == pytest.approx(root, abs=1e-10)
        assert stats.norm.ppf(level) < c < stats.norm.ppf(0.5 + level / 2)
    # a point: the two-sided quantile (at every level: the gap there may
    # round below 0); a wide or infinite set: one-sided
    for level in (0.8, 0.9, 0.95, 0.99):
        for width in (0.0, -1.0):
            assert imbens_manski_critical(width, 1.0, level) == pytest.approx(
                stats.norm.ppf(0.5 + level / 2), abs=1e-10
            )
    assert imbens_manski_critical(50.0, 1.0, 0.9) == pytest.approx(
        stats.norm.ppf(0.9), abs=1e-10
    )
    assert imbens_manski_critical(INF, 1.0, 0.9) == stats.norm.ppf(0.9)
    # no spread: a point, else one-sided
    assert imbens_manski_critical(0.0, 0.0, 0.9) == stats.norm.ppf(0.95)
    assert imbens_manski_critical(-1.0, 0.0, 0.9) == stats.norm.ppf(0.95)
    assert imbens_manski_critical(0.5, 0.0, 0.9) == stats.norm.ppf(0.9)
    assert imbens_manski_critical(0.5, np.nan, 0.9) == stats.norm.ppf(0.9)
    assert imbens_manski_critical(0.0, -1.0, 0.9) == stats.norm.ppf(0.95)
    # the width in units of sigma decides, not the width
    assert imbens_manski_critical(2.0, 2.0, 0.9) == pytest.approx(
        imbens_manski_critical(1.0, 1.0, 0.9), abs=1e-12
    )


def optimize_brentq(func, a, b):
    from scipy import optimize

    return optimize.brentq(func, a, b, xtol=1e-14)


def test_case_one_resampler_is_the_npmle_of_the_drawn_rows():
    from skprivate.interval._identified import (
        CaseOneResampler,
        MeanSetAt,
        mean_set,
    )

    est = _npmle(SIX, (0.0, 10.0))
    cuts = est.supported_range_
    resampler = CaseOneResampler(SIX)
    assert resampler.anchors.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert resampler.delta.tolist() == [0.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    # rows 1, 1, 2, 3: anchors 2 (twice, hit), 3 (miss), 4 (hit); PAVA pools
    # 2 and 3 to 2/3, then F(4) = 1: masses 2/3 on (-inf, 2], 1/3 on (3, 4]
    idx = np.array([1, 1, 2, 3])
    expected = mean_set(
        np.array([[-INF, 2.0], [2.0, 3.0], [3.0, 4.0], [4.0, INF]]),
        np.array([2 / 3, 0.0, 1 / 3, 0.0]),
        cuts,
        (0.0, 10.0),
    )
    assert resampler.ends(idx, cuts, (0.0, 10.0)) == pytest.approx(expected)
    reps = resampler.replicates(6, 3, cuts, (0.0, 10.0))
    draws = resample_indices(6, 6, 3)
    assert reps.shape == (6, 2)
    for row, i in zip(reps, draws, strict=True):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            refit = _npmle(SIX[i], None)
        assert tuple(row) == pytest.approx(tuple(MeanSetAt(cuts, (0.0, 10.0))(refit)))
        assert tuple(row) == pytest.approx(resampler.ends(i, cuts, (0.0, 10.0)))


def test_mean_interval_without_outside_mass_does_not_warn():
    from skprivate.interval._identified import imbens_manski_critical

    est = _npmle(NINE, (0.0, 10.0))
    assert est.supported_range_ == (3.0, 7.0)
    assert est.mean_bounds() == (4.0, 5.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ci = est.conf_int("mean", X=NINE, n_resamples=30, random_state=1, level=0.9)
    from skprivate.interval._identified import CaseOneResampler

    reps = CaseOneResampler(NINE).replicates(30, 1, (3.0, 7.0), (0.0, 10.0))
    se_low, se_high = np.nanstd(reps, axis=0, ddof=1)
    sigma = max(se_low, se_high)
    c = imbens_manski_critical(1.0, sigma, 0.9)
    row = ci.iloc[0]
    assert row["lower"] == pytest.approx(4.0 - c * se_low)
    assert row["upper"] == pytest.approx(5.0 + c * se_high)
    assert row["se"] == pytest.approx(sigma)
    assert row["estimate"] == pytest.approx(est.mean())
    assert row["level"] == 0.9 and np.isnan(row["point"])
    assert row["method"] == "identified_set (Imbens-Manski)"
    assert row["target"] == "every mean in the identified set under the declared bounds"


def test_mean_interval_of_case_two_rows_refits_the_npmle():
    from sklearn.base import clone

    from skprivate.exceptions import NotIdentifiableWarning
    from skprivate.interval._identified import MeanSetAt, imbens_manski_critical

    est = _npmle(CASE_TWO, (-1.0, 9.0))
    assert est.supported_range_ == (2.0, 4.5)
    low, high = est.mean_bounds()
    assert low == pytest.approx(-4 / 9 + 40 / 27 + 22.5 / 27)
    assert high == pytest.approx(8 / 9 + 45 / 27 + 45 / 27)
    with pytest.warns(NotIdentifiableWarning) as record:
        ci = est.conf_int("mean", X=CASE_TWO, n_resamples=12, random_state=5)
    assert str(record[0].message) == (
        "63.0% of the estimated mass lies outside the anchors' supported range, "
        "where the data do not locate it: the mean is identified only up to a "
        "set under the declared bounds=(-1, 9), and the interval covers that set "
        "(Imbens-Manski), not a point."
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reps = bootstrap_replicates(
            clone(est),
            CASE_TWO,
            MeanSetAt((2.0, 4.5), (-1.0, 9.0)),
            n_resamples=12,
            random_state=5,
        )
    se_low, se_high = np.nanstd(reps, axis=0, ddof=1)
    sigma = max(se_low, se_high)
    c = imbens_manski_critical(high - low, sigma, 0.95)
    row = ci.iloc[0]
    assert row["lower"] == pytest.approx(low - c * se_low)
    assert row["upper"] == pytest.approx(high + c * se_high)
    assert row["se"] == pytest.approx(sigma)


def test_mean_interval_with_an_unbounded_side():
    from skprivate.exceptions import NotIdentifiableWarning
    from skprivate.interval._identified import CaseOneResampler

    est = _npmle(SIX, (0.0, INF))
    with pytest.warns(NotIdentifiableWarning) as record:
        ci = est.conf_int("mean", X=SIX, n_resamples=20, random_state=0, level=0.9)
    assert len(record) == 1
    assert str(record[0].message) == (
        "83.3% of the estimated mass lies outside the anchors' supported range "
        "and bounds=(0, inf) leaves a side unbounded: the identified set of the "
        "mean is unbounded on that side, so the interval's end there is "
        "infinite. Declare finite bounds on the values, known before the data "
        "are seen, for a finite interval."
    )
    reps = CaseOneResampler(SIX).replicates(20, 0, (3.0, 4.0), (0.0, INF))
    se_low = np.std(reps[:, 0], ddof=1)
    row = ci.iloc[0]
    # an infinite set: the one-sided quantile, with the finite end's se
    assert row["lower"] == pytest.approx(11 / 6 - stats.norm.ppf(0.9) * se_low)
    assert row["upper"] == INF
    assert row["se"] == pytest.approx(se_low)
    low_side = _npmle(SIX, (-INF, 10.0))
    with pytest.warns(NotIdentifiableWarning, match="bounds=\\(-inf, 10\\)"):
        ci = low_side.conf_int("mean", X=SIX, n_resamples=20, random_state=0)
    assert ci["lower"].iloc[0] == -INF and np.isfinite(ci["upper"].iloc[0])
    # no finite end: nothing is resampled, and the se is 0
    both = _npmle(SIX, None)
    with pytest.warns(NotIdentifiableWarning, match="bounds=\\(-inf, inf\\)"):
        ci = both.conf_int("mean", X=SIX, method="identified_set")
    assert ci[["lower", "upper", "se"]].iloc[0].tolist() == [-INF, INF, 0.0]


def test_pointwise_intervals_are_widened_over_the_unsupported_region():
    from skprivate.exceptions import NotIdentifiableWarning
    from skprivate.interval._identified import widen_pointwise

    est = _npmle(SIX, (0.0, 10.0))
    F_lo, F_hi = est.cdf(np.array([3.0, 4.0]))
    assert (F_lo, F_hi) == pytest.approx((0.5, 2 / 3))
    q = np.array([F_lo, 0.6, F_hi, 0.7, 0.6, 0.6, 0.6, 0.6])
    lower = np.array([3.5, 3.5, 3.5, 3.5, 2.9, 3.0, 3.5, 3.5])
    upper = np.array([3.8, 3.8, 3.8, 3.8, 3.8, 3.8, 4.0, 4.1])
    with pytest.warns(NotIdentifiableWarning) as record:
        lo, up, label = widen_pointwise(est, "quantile", q, lower, upper, "lab")
    assert lo.tolist() == [0.0, 3.5, 3.5, 3.5, 0.0, 3.0, 3.5, 3.5]
    assert up.tolist() == [3.8, 3.8, 3.8, 10.0, 3.8, 3.8, 4.0, 10.0]
    assert label == "lab, widened over the unsupported region"
    assert str(record[0].message) == (
        "4 of the quantile intervals reach the unsupported region, which holds "
        "83.3% of the estimated mass and where the data do not locate it: they "
        "are widened to the declared bounds=(0, 10) there (for the CDF, to 0 or 1)."
    )
    assert lower.tolist()[0] == 3.5  # the given arrays are not changed
    x = np.array([2.9, 3.0, 3.5, 4.0, 4.1])
    with pytest.warns(NotIdentifiableWarning, match="^2 of the cdf intervals"):
        lo, up, label = widen_pointwise(
            est, "cdf", x, np.full(5, 0.4), np.full(5, 0.6), "lab"
        )
    assert lo.tolist() == [0.0, 0.4, 0.4, 0.4, 0.4]
    assert up.tolist() == [0.6, 0.6, 0.6, 0.6, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lo, up, label = widen_pointwise(est, "cdf", x[1:4], [0.4] * 3, [0.6] * 3, "lab")
    assert label == "lab" and lo.tolist() == [0.4] * 3 and up.tolist() == [0.6] * 3


def test_isotonic_fallback_without_scipys_pava(monkeypatch):
    from skprivate.interval import _identified

    y = np.array([0.0, 1.0, 0.5, 0.25, 1.0])
    w = np.array([1.0, 1.0, 3.0, 1.0, 2.0])
    # weighted PAVA: (1, 0.5, 0.25) pool to (1 + 1.5 + 0.25) / 5 = 0.55
    want = [0.0, 0.55, 0.55, 0.55, 1.0]
    np.testing.assert_allclose(_identified._isotonic(y, w), want, rtol=1e-15)
    monkeypatch.setattr(_identified, "_scipy_isotonic", None)
    np.testing.assert_allclose(_identified._isotonic(y, w), want, rtol=1e-15)


def test_supported_range_message_and_unequal_weights_from_above():
    from skprivate.interval._identified import supported_range

    with pytest.raises(ValueError) as info:
        supported_range(np.array([[-INF, INF]]))
    assert str(info.value) == "X has no finite interval end: nothing is located."
    # ends 3 (2), 4 (3), 5 (2), 5 (2), 6 (3), 8 (2): a third of the weight,
    # 14 / 3, is first reached at 4 from below and at 6 from above
    Z = np.array([[4.0, 6.0], [3.0, 5.0], [5.0, 8.0]])
    assert supported_range(Z, np.array([3.0, 2.0, 2.0]), k=1) == (4.0, 6.0)


@pytest.mark.parametrize("width, level", [(1.25, 0.95), (3.7, 0.9)])
def test_imbens_manski_critical_value_is_solved_to_1e_13(width, level):
    from scipy import optimize

    from skprivate.interval._identified import imbens_manski_critical

    def gap(c):
        return stats.norm.cdf(c + width) - stats.norm.cdf(-c) - level

    root = optimize.brentq(
        gap, stats.norm.ppf(level), stats.norm.ppf((1 + level) / 2), xtol=1e-15
    )
    assert abs(imbens_manski_critical(width, 1.0, level) - root) < 1e-13


def test_imbens_manski_critical_of_a_set_wide_enough_to_round_the_cdf_to_one():
    from skprivate.interval._identified import imbens_manski_critical

    # Phi(z + 50) rounds to 1 and the gap at the one-sided quantile to +1e-16
    z = float(stats.norm.ppf(0.674))
    assert stats.norm.cdf(z + 50.0) - stats.norm.cdf(-z) - 0.674 > 0
    assert imbens_manski_critical(50.0, 1.0, 0.674) == z


def test_widening_integer_interval_ends_reaches_fractional_bounds():
    from skprivate.exceptions import NotIdentifiableWarning
    from skprivate.interval._identified import widen_pointwise

    est = _npmle(SIX, (0.5, 10.5))
    with pytest.warns(NotIdentifiableWarning):
        lo, up, _ = widen_pointwise(
            est, "quantile", np.array([0.6, 0.6]), [1, 3], [4, 5], "lab"
        )
    assert lo.tolist() == [0.5, 3.0] and up.tolist() == [4.0, 10.5]


def test_identified_set_frame_names_the_mean():
    est = _npmle(NINE, (0.0, 10.0))
    ci = est.conf_int("mean", X=NINE, n_resamples=5, random_state=0)
    assert ci["quantity"].tolist() == ["mean"]


# -- the influence interval's identification warning (warn_if_set_wider) --


def _fitted_three_masses():
    """An NPMLE with masses 1/4, 1/2, 1/4 on (-2, -1.5], (0, 0.5], (2, 3].

    Supported range (-1, 1) and bounds (-4, 4): the outer masses may sit
    anywhere in [-4, -1] and [1, 4], so the mean's identified set is
    [1/4 (-4) + 1/2 (0) + 1/4 (1), 1/4 (-1) + 1/2 (0.5) + 1/4 (4)]
    = [-0.75, 1], of width 1.75, with half the mass outside.
    """
    from types import SimpleNamespace

    return SimpleNamespace(
        bounds=(-4.0, 4.0),
        supported_range_=(-1.0, 1.0),
        innermost_=np.array([[-2.0, -1.5], [0.0, 0.5], [2.0, 3.0]]),
        probabilities_=np.array([0.25, 0.5, 0.25]),
    )


def test_identification_warning_states_share_set_width_and_interval_width():
    from skprivate.exceptions import NotIdentifiableWarning
    from skprivate.interval._identified import warn_if_set_wider

    est = _fitted_three_masses()
    # 95%: 2 z se = 2 (1.959964) (0.3) = 1.176 < 1.75
    with pytest.warns(NotIdentifiableWarning) as record:
        warn_if_set_wider(est, 0.3, 0.95)
    assert [w.category for w in record] == [NotIdentifiableWarning]
    assert str(record[0].message) == (
        "50.0% of the estimated mass lies outside the anchors' supported "
        "range: under the declared bounds=(-4, 4) the data locate the mean "
        "only up to a set of width 1.75, wider than this 95% interval (1.18), "
        "which assumes the anchors span the values. Use "
        "method='identified_set' (the default with bounds) for an interval "
        "that covers the mean."
    )
    # 50%: 2 (0.6744898) (1.0) = 1.349 < 1.75
    with pytest.warns(NotIdentifiableWarning, match=r"50% interval \(1\.35\)"):
        warn_if_set_wider(est, 1.0, 0.5)


def test_identification_warning_without_finite_bounds_gives_the_whole_advice():
    from types import SimpleNamespace

    from skprivate.exceptions import NotIdentifiableWarning
    from skprivate.interval._identified import warn_if_set_wider

    est = _fitted_three_masses()
    unbounded = SimpleNamespace(**{**vars(est), "bounds": (-np.inf, 4.0)})
    with pytest.warns(NotIdentifiableWarning) as record:
        warn_if_set_wider(unbounded, 0.3, 0.9)
    assert [w.category for w in record] == [NotIdentifiableWarning]
    assert str(record[0].message) == (
        "50.0% of the estimated mass lies outside the anchors' supported "
        "range, and under bounds=(-inf, 4) it may lie arbitrarily far out: "
        "the data do not locate the mean, and this 90% interval assumes the "
        "anchors span the values. Declare bounds=(low, high) known before "
        "seeing the data; method='identified_set' (the default with bounds) "
        "then gives an interval that covers the mean."
    )


def test_identification_warning_only_when_the_set_is_strictly_wider():
    from skprivate.interval._identified import warn_if_set_wider

    est = _fitted_three_masses()
    z = float(stats.norm.ppf(0.975))
    # the se at which the 95% interval is exactly as wide as the set
    se = 1.75 / (2.0 * z)
    for _ in range(8):
        width = 2.0 * z * se
        if width == 1.75:
            break
        se = np.nextafter(se, np.inf if width < 1.75 else -np.inf)
    assert 2.0 * z * se == 1.75
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        warn_if_set_wider(est, se, 0.95)  # as wide: no warning
        warn_if_set_wider(est, 0.45, 0.95)  # 1.764 > 1.75
        warn_if_set_wider(est, 0.7, 0.8)  # 2 (1.2816) (0.7) = 1.794
    with pytest.warns(UserWarning):
        warn_if_set_wider(est, np.nextafter(se, 0.0), 0.95)
    with pytest.warns(UserWarning):
        warn_if_set_wider(est, 0.6, 0.8)  # 1.538 < 1.75
