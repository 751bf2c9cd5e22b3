"""Identified sets of the interval NPMLE and their Imbens-Manski intervals."""

import warnings

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone

from skprivate import IntervalCaseII, IntervalNPMLE
from skprivate.exceptions import NotIdentifiableWarning
from skprivate.interval._identified import (
    CaseOneResampler,
    MeanSetAt,
    imbens_manski_critical,
    mean_set,
    supported_range,
)

INF = np.inf

# Six Case-I rows, anchors 1..6, indicators 0 1 0 1 1 0.  PAVA pools (1, 0)
# at anchors 2-3 into 1/2 and (1, 1, 0) at anchors 4-6 into 2/3, so
# F = 0, 1/2, 1/2, 2/3, 2/3, 2/3 and the masses are 1/2 on (1, 2], 1/6 on
# (3, 4] and 1/3 on (6, inf).
SIX = np.array(
    [[1.0, INF], [-INF, 2.0], [3.0, INF], [-INF, 4.0], [-INF, 5.0], [6.0, INF]]
)
BOUNDS = (0.0, 10.0)


def _six(bounds=BOUNDS):
    return IntervalNPMLE(bounds=bounds).fit(SIX)


def test_six_point_npmle_is_the_hand_computed_one():
    est = _six()
    held = est.probabilities_ > 0
    assert est.innermost_[held].tolist() == [[1.0, 2.0], [3.0, 4.0], [6.0, INF]]
    assert est.probabilities_[held] == pytest.approx([1 / 2, 1 / 6, 1 / 3])
    # k = ceil(sqrt(6)) = 3: the 3rd smallest and 3rd largest anchors.
    assert est.supported_range_ == (3.0, 4.0)


def test_six_point_set_over_all_anchors_is_left_ends_against_right_ends():
    # Supported range = the smallest and largest anchors (k = 1): the lower
    # end puts 1/2 at 1, 1/6 at 3, 1/3 at 6 (the largest anchor); the upper
    # end 1/2 at 2, 1/6 at 4, 1/3 at the declared bound 10.
    est = _six()
    low, high = mean_set(est.innermost_, est.probabilities_, (1.0, 6.0), BOUNDS)
    assert low == pytest.approx(0.5 + 0.5 + 2.0)
    assert high == pytest.approx(1.0 + 4 / 6 + 10 / 3)
    assert supported_range(SIX, k=1) == (1.0, 6.0)


def test_six_point_set_over_the_supported_range():
    # Supported range (3, 4): the mass of (1, 2] is left of it (at 0 or 3),
    # the mass of (6, inf) right of it (at 4 or 10); (3, 4] at 3 or 4.
    est = _six()
    low, high = est.mean_bounds()
    assert low == pytest.approx(0.0 + 3 / 6 + 4 / 3)
    assert high == pytest.approx(3 / 2 + 4 / 6 + 10 / 3)
    assert low <= est.mean() <= high


def test_infinite_bound_gives_an_unbounded_end():
    low, high = _six((0.0, INF)).mean_bounds()
    assert low == pytest.approx(11 / 6) and high == INF
    low, high = _six(None).mean_bounds()
    assert (low, high) == (-INF, INF)


def test_imbens_manski_critical_value_solves_its_equation():
    assert imbens_manski_critical(0.0, 1.0, 0.95) == pytest.approx(1.959964, abs=1e-6)
    assert imbens_manski_critical(50.0, 1.0, 0.95) == pytest.approx(1.644854, abs=1e-6)
    assert imbens_manski_critical(INF, 1.0, 0.95) == pytest.approx(1.644854, abs=1e-6)
    c = imbens_manski_critical(1.0, 0.5, 0.95)
    assert stats.norm.cdf(c + 2.0) - stats.norm.cdf(-c) == pytest.approx(0.95)
    assert 1.645 < c < 1.96


def test_fast_case_one_bootstrap_equals_refitting_the_npmle():
    rng = np.random.default_rng(0)
    u = rng.normal(size=60)
    x = rng.normal(size=60)
    Z = np.where(
        (x <= u)[:, None], np.c_[np.full(60, -INF), u], np.c_[u, np.full(60, INF)]
    )
    est = IntervalNPMLE(bounds=(-4.0, 4.0)).fit(Z)
    cuts = est.supported_range_
    resampler = CaseOneResampler(Z)
    for seed in range(5):
        idx = np.random.default_rng(seed).integers(0, 60, size=60)
        refit = clone(est).fit(Z[idx])
        assert resampler.ends(idx, cuts, (-4.0, 4.0)) == pytest.approx(
            tuple(MeanSetAt(cuts, (-4.0, 4.0))(refit))
        )


def test_mean_interval_is_the_imbens_manski_interval_of_the_set():
    est = _six()
    with pytest.warns(NotIdentifiableWarning):
        ci = est.conf_int("mean", X=SIX, n_resamples=50, random_state=0).iloc[0]
    reps = CaseOneResampler(SIX).replicates(50, 0, est.supported_range_, BOUNDS)
    se_low, se_high = reps.std(axis=0, ddof=1)
    low, high = est.mean_bounds()
    c = imbens_manski_critical(high - low, max(se_low, se_high), 0.95)
    assert ci["method"].startswith("identified_set")
    assert ci["estimate"] == pytest.approx(est.mean())
    assert ci["lower"] == pytest.approx(low - c * se_low)
    assert ci["upper"] == pytest.approx(high + c * se_high)


def test_warning_names_the_share_outside_and_the_bounds():
    # 1/2 + 1/3 of the mass is outside the supported range (3, 4).
    with pytest.warns(NotIdentifiableWarning, match=r"83\.3% of the estimated mass"):
        _six().conf_int("mean", X=SIX, n_resamples=20, random_state=0)
    with pytest.warns(NotIdentifiableWarning, match=r"bounds=\(0, 10\)"):
        _six().conf_int("mean", X=SIX, n_resamples=20, random_state=0)


def test_unbounded_side_warns_and_returns_an_infinite_end():
    est = _six((0.0, INF))
    with pytest.warns(NotIdentifiableWarning, match="unbounded"):
        ci = est.conf_int("mean", X=SIX, n_resamples=20, random_state=0).iloc[0]
    assert ci["upper"] == INF and np.isfinite(ci["lower"])
    with pytest.warns(NotIdentifiableWarning, match="unbounded"):
        ci = IntervalNPMLE().fit(SIX).conf_int("mean", X=SIX, method="identified_set")
    assert (ci["lower"].iloc[0], ci["upper"].iloc[0]) == (-INF, INF)


def test_default_method_follows_the_declared_bounds():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotIdentifiableWarning)
        declared = _six().conf_int("mean", X=SIX, n_resamples=20, random_state=0)
    assert declared["method"].iloc[0].startswith("identified_set")
    plain = IntervalNPMLE().fit(SIX).conf_int("mean", X=SIX)
    assert plain["method"].iloc[0].startswith("influence")
    named = _six().conf_int("mean", X=SIX, method="influence")
    assert named["method"].iloc[0].startswith("influence")


def test_quantile_and_cdf_intervals_reach_the_bounds_outside_the_support():
    est = _six()
    # F(4) = 2/3 at the upper end of the supported range: the 0.9 quantile
    # may lie anywhere up to the upper bound.
    with pytest.warns(NotIdentifiableWarning, match="widened"):
        q = est.conf_int("quantile", [0.9], X=SIX).iloc[0]
    assert q["upper"] == 10.0
    with pytest.warns(NotIdentifiableWarning, match="widened"):
        F = est.conf_int("cdf", [0.5, 8.0], X=SIX)
    assert F["lower"].iloc[0] == 0.0 and F["upper"].iloc[1] == 1.0
    plain = IntervalNPMLE().fit(SIX).conf_int("quantile", [0.9], X=SIX).iloc[0]
    assert plain["upper"] == INF  # the likelihood-ratio interval, unchanged


def test_quantile_intervals_stay_within_the_declared_bounds():
    # Anchors beyond the declared bounds: the supported range (-1, 5) holds
    # the bounds (0, 4), so nothing is widened, but a resampled end may
    # still fall outside; no quantile of values in [0, 4] does.
    from types import SimpleNamespace

    from skprivate.interval._identified import widen_pointwise

    est = SimpleNamespace(
        bounds=(0.0, 4.0),
        supported_range_=(-1.0, 5.0),
        cdf=lambda t: np.clip((np.asarray(t) + 1.0) / 6.0, 0.0, 1.0),
    )
    points = np.array([0.25, 0.5, 0.75])
    lower, upper, label = widen_pointwise(
        est,
        "quantile",
        points,
        np.array([-0.3, 1.5, 3.9]),
        np.array([0.6, 2.5, 4.2]),
        "subsampling",
    )
    np.testing.assert_array_equal(lower, [0.0, 1.5, 3.9])
    np.testing.assert_array_equal(upper, [0.6, 2.5, 4.0])
    assert label == "subsampling"
    # an interval wholly beyond a bound is cut to that bound, both ends
    lower, upper, _ = widen_pointwise(
        est,
        "quantile",
        np.array([0.3, 0.7]),
        np.array([-0.9, 4.4]),
        np.array([-0.2, 4.8]),
        "subsampling",
    )
    np.testing.assert_array_equal(lower, [0.0, 4.0])
    np.testing.assert_array_equal(upper, [0.0, 4.0])
    # CDF intervals are left alone (they lie in [0, 1] already)
    lower, upper, _ = widen_pointwise(
        est, "cdf", np.array([2.0]), np.array([0.1]), np.array([0.9]), "x"
    )
    assert (lower[0], upper[0]) == (0.1, 0.9)


def test_npmle_quantile_interval_of_anchors_beyond_the_bounds():
    y = np.random.default_rng(3).uniform(0, 4, size=(300, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Z = IntervalCaseII(anchor_loc=2, random_state=0).fit_transform(y)
        est = IntervalNPMLE(bounds=(0, 4)).fit(Z)
        ci = est.conf_int("quantile", [0.1, 0.5], X=Z, random_state=0, n_resamples=50)
    assert est.supported_range_[0] < 0
    assert (ci["lower"] >= 0).all() and (ci["upper"] <= 4).all()
    assert (ci["lower"] <= ci["estimate"]).all()
    assert (ci["estimate"] <= ci["upper"]).all()


def test_bad_bounds_are_refused():
    with pytest.raises(ValueError, match="low < high"):
        IntervalNPMLE(bounds=(1.0, 0.0)).fit(SIX)
    with pytest.raises(ValueError, match="NaN"):
        IntervalNPMLE(bounds=(np.nan, 1.0)).fit(SIX)
    # (6, inf) holds 1/3 of the mass, wholly above 5.
    with pytest.raises(ValueError, match="outside the declared bounds"):
        IntervalNPMLE(bounds=(0.0, 5.0)).fit(SIX)


def _narrow_gamma(n, rng):
    """Gamma(2) values in (0, 12), Case-I anchors N(2, 0.7)."""
    x = rng.gamma(2.0, size=n).clip(0.0, 12.0)
    u = rng.normal(2.0, 0.7, size=n)
    left = np.where(x <= u, -INF, u)
    right = np.where(x <= u, u, INF)
    return np.column_stack([left, right])


def test_narrow_anchors_identified_set_covers_where_the_old_interval_does_not():
    # The mean of gamma(2) clipped at 12: 2 - e^-12 (12 + 2).
    truth = 2.0 - np.exp(-12.0) * 14.0
    reps = 30
    new = old = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", NotIdentifiableWarning)
        for seed in range(reps):
            Z = _narrow_gamma(500, np.random.default_rng(seed))
            est = IntervalNPMLE(bounds=(0.0, 12.0)).fit(Z)
            a = est.conf_int("mean", X=Z, n_resamples=40, random_state=seed).iloc[0]
            b = est.conf_int("mean", X=Z, method="influence").iloc[0]
            new += a["lower"] <= truth <= a["upper"]
            old += b["lower"] <= truth <= b["upper"]
    se = np.sqrt(0.95 * 0.05 / reps)
    # The influence interval treats the NPMLE's tails (at the extreme
    # anchors) as located and covers about half the time here; the
    # identified set's interval covers at least at the nominal rate.
    assert new / reps >= 0.95 - 3 * se
    assert old / reps < 0.95 - 3 * se
