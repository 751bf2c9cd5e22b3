"""Interval-NPMLE interval behaviour that mutation testing found unchecked.

Each test pins a documented behaviour of the NPMLE's intervals in
``skprivate/interval/_npmle_intervals.py`` with an exact small case: the
likelihood-ratio critical values and current-status intervals, the rows
without information, the subsampling and influence intervals, and the
widening by declared value bounds.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skprivate._uncertainty import (
    bootstrap_replicates,
    subsampling_interval,
)

# -- the NPMLE's intervals: skprivate/interval/_npmle_intervals.py -----------
# The small cases shared with the identified-set tests.
from .test_mutation_intervals import CASE_TWO, INF, NINE, SIX, _npmle


def _iv():
    from skprivate.interval import _npmle_intervals

    return _npmle_intervals


def optimize_brentq(func, a, b):
    from scipy import optimize

    return optimize.brentq(func, a, b, xtol=1e-14)


def _quiet_npmle(Z, bounds=None):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return _npmle(Z, bounds)


def test_likelihood_ratio_critical_values_by_level():
    iv = _iv()
    assert iv._lr_critical(0.9) == 1.602
    assert iv._lr_critical(0.95) == 2.269
    assert iv._lr_critical(0.99) == 3.836
    assert iv._lr_critical(0.95 + 5e-10) == 2.269
    assert iv._lr_critical(0.95 - 5e-10) == 2.269
    assert iv._lr_critical(0.95 + 2e-9) is None
    assert iv._lr_critical(0.8) is None


def test_rows_without_information_are_dropped():
    iv = _iv()
    Z = np.array([[-INF, INF], [1.0, INF], [-INF, 2.0]])
    np.testing.assert_array_equal(iv._informative(Z), Z[1:])
    with pytest.raises(
        ValueError,
        match=re.escape("X carries no information: every row is (-inf, inf)."),
    ):
        iv._informative(np.array([[-INF, INF], [-INF, INF]]))
    assert iv._is_case_one(SIX)
    assert not iv._is_case_one(np.array([[1.0, INF], [0.0, 1.0]]))
    assert not iv._is_case_one(np.array([[1.0, INF], [-INF, INF]]))


def test_current_status_likelihood_ratio_on_six_rows():
    # anchors 1..6, indicators 0 1 0 1 1 0: F = 0, 1/2, 1/2, 2/3, 2/3, 2/3
    cs = _iv()._CurrentStatus(SIX)
    assert cs.anchors.tolist() == [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    assert cs.weight.tolist() == [1.0] * 6
    assert cs.hits.tolist() == [0.0, 1.0, 0.0, 1.0, 1.0, 0.0]
    np.testing.assert_allclose(cs.F, [0, 0.5, 0.5, 2 / 3, 2 / 3, 2 / 3])
    best = 2 * np.log(0.5) + 2 * np.log(2 / 3) + np.log(1 / 3)
    assert cs.max_loglik == pytest.approx(best)
    assert [cs.n_left(t) for t in (0.5, 1.0, 2.5, 6.0, 9.0)] == [0, 1, 2, 6, 6]
    assert [cs.value(t) for t in (0.5, 1.0, 2.5, 6.0)] == pytest.approx(
        [0.0, 0.0, 0.5, 2 / 3]
    )
    left, right = cs.split(3)
    np.testing.assert_allclose(left, [0.0, 0.5, 0.5])
    np.testing.assert_allclose(right, [2 / 3] * 3)
    assert cs.split(0)[0].size == 0
    # F(3.5) = 0.8: the right part floored at 0.8
    ratio = 2 * ((2 * np.log(2 / 3) + np.log(1 / 3)) - (2 * np.log(0.8) + np.log(0.2)))
    assert cs.ratio((left, right), 0.8) == pytest.approx(ratio)
    assert cs.ratio((left, right), 0.6) == pytest.approx(0.0, abs=1e-12)
    # F(3.5) = theta < 1/2 caps anchors 2, 3: ratio 2 (2 log 1/2 - log theta
    # - log (1 - theta)), which reaches d at theta (1 - theta) = e^(-d/2) / 4
    d = 2.269
    est, lower, upper = cs.cdf_interval(3.5, d)
    assert est == 0.5
    assert lower == pytest.approx((1 - np.sqrt(1 - np.exp(-d / 2))) / 2, abs=1e-12)
    # above 2/3 the right part is floored: 2 log theta + log(1 - theta)
    top = optimize_brentq(
        lambda th: (
            2
            * ((2 * np.log(2 / 3) + np.log(1 / 3)) - (2 * np.log(th) + np.log(1 - th)))
            - d
        ),
        2 / 3,
        1 - 1e-12,
    )
    assert upper == pytest.approx(top, abs=1e-12)
    # left of every anchor F = 0, and theta = 0 is not rejected
    est, lower, upper = cs.cdf_interval(0.5, d)
    assert (est, lower) == (0.0, 0.0) and 0 < upper < 1
    assert cs.ratio(cs.split(0), upper) == pytest.approx(d, abs=1e-9)


def test_current_status_intervals_reach_the_ends_of_the_unit_interval():
    # three rows with every indicator 1 at anchors 1, 2, 3: F = 1 everywhere
    Z = np.array([[-INF, 1.0], [-INF, 2.0], [-INF, 3.0]])
    cs = _iv()._CurrentStatus(Z)
    est, lower, upper = cs.cdf_interval(2.5, 2.269)
    assert est == 1.0 and upper == 1.0
    # theta < 1 costs 2 * 3 * log(1 / theta) on the capped left part (two
    # anchors left of 2.5): 4 log(1 / theta) = d
    assert lower == pytest.approx(np.exp(-2.269 / 4), abs=1e-12)


def test_current_status_quantile_interval_is_the_accepted_anchor_range():
    rng = np.random.default_rng(3)
    u = rng.uniform(0, 4, size=40)
    x = rng.uniform(0, 4, size=40)
    Z = np.where(
        (x <= u)[:, None], np.c_[np.full(40, -INF), u], np.c_[u, np.full(40, INF)]
    )
    cs = _iv()._CurrentStatus(Z)
    K = cs.anchors.size
    for q, d in [
        (0.5, 2.269),
        (0.3, 1.602),
        (0.8, 3.836),
        (0.05, 2.269),
        (0.97, 1.602),
    ]:
        accepted = [s for s in range(K + 1) if cs.ratio(cs.split(s), q) <= d]
        s_min, s_max = min(accepted), max(accepted)
        lower, upper = cs.quantile_interval(q, d)
        assert lower == (-INF if s_min == 0 else cs.anchors[s_min - 1])
        assert upper == (INF if s_max >= K else cs.anchors[s_max])
        assert accepted == list(range(s_min, s_max + 1))


def test_kde_of_the_anchors_is_silvermans_gaussian_kernel():
    iv = _iv()
    rng = np.random.default_rng(0)
    v = rng.normal(size=300)
    pts = np.array([-1.0, 0.0, 0.3, 2.0])
    spread = min(v.std(), stats.iqr(v) / 1.349)
    h = 0.9 * spread * 300 ** (-0.2)
    exact = stats.norm.pdf((pts[:, None] - v[None, :]) / h).mean(axis=1) / h
    np.testing.assert_allclose(iv._kde_at(v, pts), exact, rtol=2e-3)
    # the bandwidth takes the smaller spread: a heavy tail leaves the IQR
    w = np.concatenate([v, [60.0, -60.0]])
    spread = min(w.std(), stats.iqr(w) / 1.349)
    assert spread < w.std()
    h = 0.9 * spread * 302 ** (-0.2)
    exact = stats.norm.pdf((pts[:, None] - w[None, :]) / h).mean(axis=1) / h
    np.testing.assert_allclose(iv._kde_at(w, pts), exact, rtol=2e-3)
    # points beyond the values: the grid reaches them; far off, the floor
    far = iv._kde_at(v, np.array([v.max() + 0.5]))
    h = 0.9 * min(v.std(), stats.iqr(v) / 1.349) * 300 ** (-0.2)
    edge = stats.norm.pdf((v.max() + 0.5 - v) / h).mean() / h
    assert far[0] == pytest.approx(edge, rel=2e-3)
    assert iv._kde_at(v, np.array([v.min() - 0.5]))[0] == pytest.approx(
        stats.norm.pdf((v.min() - 0.5 - v) / h).mean() / h, rel=2e-3
    )
    assert 0 < iv._kde_at(v, np.array([v.max() + 100.0]))[0] < 1e-12
    # values without spread: the bandwidth 0.9 n^-0.2 (unit spread)
    same = iv._kde_at(np.zeros(32), np.array([0.0, 0.5]))
    h = 0.9 * 32 ** (-0.2)
    np.testing.assert_allclose(same, stats.norm.pdf([0.0, 0.5], scale=h), rtol=2e-3)
    # half the values equal: the IQR is 0, the standard deviation is used
    tied = np.r_[np.zeros(30), [1.0, 2.0, 3.0]]
    assert stats.iqr(tied) == 0.0
    h = 0.9 * tied.std() * 33 ** (-0.2)
    exact = stats.norm.pdf((pts[:, None] - tied[None, :]) / h).mean(axis=1) / h
    np.testing.assert_allclose(iv._kde_at(tied, pts), exact, rtol=2e-3)


def test_npmle_likelihood_ratio_frames():
    est = _quiet_npmle(SIX)
    cs = _iv()._CurrentStatus(SIX)
    ci = est.conf_int("cdf", [3.5, 0.5], X=SIX, level=0.99)
    for i, t in enumerate([3.5, 0.5]):
        _, lo, up = cs.cdf_interval(t, 3.836)
        assert (ci["lower"].iloc[i], ci["upper"].iloc[i]) == pytest.approx((lo, up))
    np.testing.assert_allclose(ci["estimate"], est.cdf([3.5, 0.5]))
    assert ci["method"].tolist() == ["likelihood-ratio (Banerjee-Wellner)"] * 2
    assert ci["target"].tolist() == ["F(t)"] * 2
    assert ci["level"].tolist() == [0.99] * 2
    q = est.conf_int("quantile", [0.5, 0.6], X=SIX, level=0.9)
    for i, p in enumerate([0.5, 0.6]):
        lo, up = cs.quantile_interval(p, 1.602)
        assert (q["lower"].iloc[i], q["upper"].iloc[i]) == (lo, up)
    np.testing.assert_allclose(q["estimate"], est.quantile([0.5, 0.6]))
    assert q["target"].tolist() == ["F^-1(q), between anchors"] * 2
    assert q["method"].iloc[0] == "likelihood-ratio (Banerjee-Wellner)"
    # the rows (-inf, inf) carry nothing: the same intervals with them
    more = np.vstack([SIX, [[-INF, INF]]])
    pd.testing.assert_frame_equal(
        _quiet_npmle(more).conf_int("cdf", [3.5], X=more),
        est.conf_int("cdf", [3.5], X=SIX),
    )
    with pytest.raises(
        ValueError,
        match=re.escape(
            "method='likelihood-ratio' uses the tabulated quantiles of Banerjee & "
            "Wellner's law D, for level in [0.9, 0.95, 0.99]; got level=0.8. Use "
            "method='subsampling'."
        ),
    ):
        est.conf_int("cdf", [1.0], X=SIX, level=0.8, method="likelihood-ratio")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "method='likelihood-ratio' needs Case-I data (every row (-inf, u] or "
            "(u, inf)); use method='subsampling' for other interval data."
        ),
    ):
        _quiet_npmle(CASE_TWO).conf_int(
            "cdf", [1.0], X=CASE_TWO, method="likelihood-ratio"
        )
    with pytest.raises(
        ValueError,
        match=re.escape(
            "IntervalNPMLE computes 'quantile' intervals with method in "
            "['likelihood-ratio', 'subsampling'] (or 'auto'); got method='bootstrap'."
        ),
    ):
        est.conf_int("quantile", [0.5], X=SIX, method="bootstrap")


def test_npmle_subsampling_frames(monkeypatch):
    from sklearn.base import clone

    iv = _iv()
    est = _quiet_npmle(CASE_TWO)
    # n = 9 rows: subsamples of min(max(20, n^(2/3)), n - 1) = 8 rows
    ci = est.conf_int(
        "cdf", [1.0, 3.0, 9.0], X=CASE_TWO, n_resamples=6, random_state=2, level=0.9
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reps = bootstrap_replicates(
            clone(est),
            CASE_TWO,
            lambda e: e.cdf([1.0, 3.0, 9.0]),
            n_resamples=6,
            random_state=2,
            size=8,
            replace=False,
        )
    estimate = est.cdf([1.0, 3.0, 9.0])
    lower, upper = subsampling_interval(estimate, reps, 9, 8, 1 / 3, 0.9)
    np.testing.assert_allclose(ci["lower"], np.clip(lower, 0, 1))
    np.testing.assert_allclose(ci["upper"], np.clip(upper, 0, 1))
    assert ci["method"].tolist() == ["subsampling (rate n^1/3)"] * 3
    assert ci["target"].iloc[0] == "F(t)"
    q = est.conf_int("quantile", [0.5], X=CASE_TWO, n_resamples=6, random_state=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reps = bootstrap_replicates(
            clone(est),
            CASE_TWO,
            lambda e: e.quantile([0.5]),
            n_resamples=6,
            random_state=2,
            size=8,
            replace=False,
        )
    lower, upper = subsampling_interval(est.quantile([0.5]), reps, 9, 8, 1 / 3, 0.95)
    assert (q["lower"].iloc[0], q["upper"].iloc[0]) == pytest.approx(
        (lower[0], upper[0])
    )
    # the draws: 400 subsamples by default, of b = max(20, ceil(n^(2/3)))
    # rows without replacement, shared by the levels
    seen = []

    def fake(template, X, statistic, **kwargs):
        seen.append((X.shape[0], kwargs))
        return np.zeros((kwargs["n_resamples"], 1))

    monkeypatch.setattr(iv, "bootstrap_replicates", fake)
    rows = np.vstack([CASE_TWO] * 100)  # n = 900: b = ceil(93.2) = 94
    big = _quiet_npmle(rows)
    big.conf_int("cdf", [1.0], X=rows, level=[0.9, 0.95], random_state=1, n_jobs=2)
    assert len(seen) == 1
    n, kwargs = seen[0]
    assert n == 900
    assert kwargs == {
        "n_resamples": 400,
        "random_state": 1,
        "n_jobs": 2,
        "size": 94,
        "replace": False,
        "sample_weight": None,
    }
    seen.clear()
    rows = np.vstack([CASE_TWO] * 3)  # n = 27: b = 20
    _quiet_npmle(rows).conf_int("cdf", [1.0], X=rows, n_resamples=5)
    assert seen[0][1]["size"] == 20 and seen[0][1]["n_resamples"] == 5


def test_npmle_mean_methods():
    from skprivate.interval._identified import mean_interval

    iv = _iv()
    est = _quiet_npmle(SIX)
    cs = iv._CurrentStatus(SIX)
    F = cs.F[np.searchsorted(cs.anchors, cs.u)]
    g = iv._kde_at(cs.u, cs.u)
    se = np.sqrt(np.sum(F * (1 - F) / g**2)) / 6
    ci = est.conf_int("mean", X=SIX, level=0.9)
    assert ci["se"].iloc[0] == pytest.approx(se, rel=1e-12)
    assert ci["estimate"].iloc[0] == pytest.approx(est.mean())
    assert ci["lower"].iloc[0] == pytest.approx(est.mean() - stats.norm.ppf(0.95) * se)
    assert ci["method"].iloc[0] == "influence (Huang-Wellner)"
    assert ci["target"].iloc[0] == "E[X] (anchors spanning the values)"
    boot = est.conf_int(
        "mean", X=SIX, method="bootstrap", n_resamples=5, random_state=0
    )
    from sklearn.base import clone

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reps = bootstrap_replicates(
            clone(est), SIX, lambda e: e.mean(), n_resamples=5, random_state=0
        )
    assert boot["se"].iloc[0] == pytest.approx(np.nanstd(reps, ddof=1))
    assert boot["method"].iloc[0] == "bootstrap-percentile"
    # Case-II rows: the jackknife by default, influence refused
    two = _quiet_npmle(CASE_TWO)
    auto = two.conf_int("mean", X=CASE_TWO, n_resamples=5, random_state=0)
    assert auto["method"].iloc[0] == "jackknife (5 random groups, t with 4 df)"
    with pytest.raises(
        ValueError,
        match=re.escape(
            "method='influence' needs Case-I data; use method='jackknife' "
            "(the default for other interval data) or method='bootstrap'."
        ),
    ):
        two.conf_int("mean", X=CASE_TWO, method="influence")
    with pytest.raises(
        ValueError,
        match=re.escape(
            "IntervalNPMLE computes 'mean' intervals with method in ['bootstrap', "
            "'identified_set', 'influence', 'jackknife'] (or 'auto'); "
            "got method='wald'."
        ),
    ):
        two.conf_int("mean", X=CASE_TWO, method="wald")
    # declared bounds: the identified set by default
    bounded = _quiet_npmle(NINE, (0.0, 10.0))
    got = bounded.conf_int("mean", X=NINE, n_resamples=5, random_state=0)
    from skprivate._uncertainty import IntervalRequest as _Req

    request = _Req("mean", None, 0.95, "auto", NINE, None, 5, 0, None)
    pd.testing.assert_frame_equal(got, mean_interval(bounded, request, NINE))
    assert bounded._ci_interval_kinds() == ["cdf", "mean", "quantile"]


def test_npmle_pointwise_intervals_widen_with_declared_bounds():
    from skprivate.exceptions import NotIdentifiableWarning

    est = _npmle(SIX, (0.0, 10.0))
    with pytest.warns(NotIdentifiableWarning):
        q = est.conf_int("quantile", [0.9], X=SIX)
    assert q["upper"].iloc[0] == 10.0
    assert q["method"].iloc[0] == (
        "likelihood-ratio (Banerjee-Wellner), widened over the unsupported region"
    )
    plain = _quiet_npmle(SIX).conf_int("quantile", [0.9], X=SIX)
    assert plain["method"].iloc[0] == "likelihood-ratio (Banerjee-Wellner)"


def _raises_exactly(message, func, *args, **kwargs):
    with pytest.raises(ValueError) as info:
        func(*args, **kwargs)
    assert str(info.value) == message


def test_npmle_interval_refusals_name_x_exactly():
    est = _quiet_npmle(SIX)
    _raises_exactly(
        "X has lower > upper at row 0 (1 such rows).",
        est.conf_int,
        "cdf",
        [1.0],
        X=np.array([[1.0, 0.0]]),
    )
    # rows fit refuses are refused by conf_int as data other than the fit's;
    # without a record of the fitted data (a fit on a dask collection) the
    # intervals' own check names them
    est._ci_forget_fit_data()
    _raises_exactly(
        "X carries no information: every row is (-inf, inf).",
        est.conf_int,
        "mean",
        X=np.array([[-INF, INF], [-INF, INF]]),
    )


def test_current_status_pools_rows_by_anchor_with_their_weights():
    # anchor 1: three rows, two hits; anchor 2: one miss; anchor 3: one hit.
    # Weighted PAVA pools 2/3 (weight 3) with 0 (weight 1): F = 1/2, 1/2, 1
    Z = np.array([[-INF, 1.0], [-INF, 1.0], [1.0, INF], [2.0, INF], [-INF, 3.0]])
    cs = _iv()._CurrentStatus(Z)
    assert cs.weight.tolist() == [3.0, 1.0, 1.0]
    assert cs.hits.tolist() == [2.0, 0.0, 1.0]
    np.testing.assert_allclose(cs.F, [0.5, 0.5, 1.0], rtol=1e-15)
    # at the first anchor: its own F, not the 0 left of every anchor
    assert cs.value(1.0) == 0.5
    assert cs.cdf_interval(1.0, 2.269)[0] == 0.5
    assert cs.value(0.5) == 0.0


@pytest.mark.parametrize(
    "value, want",
    [(5.0, (0.0, 0.0)), (-5.0, (1.0, 1.0)), (None, (0.0, 1.0))],
)
def test_npmle_subsampling_cdf_intervals_are_clipped_to_the_unit_interval(
    monkeypatch, value, want
):
    iv = _iv()
    est = _quiet_npmle(CASE_TWO)

    def fake(template, X, statistic, **kwargs):
        k = np.size(statistic(est))
        if value is None:  # a spread far wider than [0, 1] on both sides
            return np.tile([[-5.0] * k, [5.0] * k], (kwargs["n_resamples"] // 2, 1))
        return np.full((kwargs["n_resamples"], k), value)

    monkeypatch.setattr(iv, "bootstrap_replicates", fake)
    ci = est.conf_int("cdf", [3.0], X=CASE_TWO, n_resamples=4, level=0.9)
    assert (ci["lower"].iloc[0], ci["upper"].iloc[0]) == want
    assert ci["quantity"].tolist() == ["cdf"] and ci["point"].tolist() == [3.0]
    # the same replicates of quantiles are not clipped
    q = est.conf_int("quantile", [0.5], X=CASE_TWO, n_resamples=4, level=0.9)
    assert not (0.0 <= q["lower"].iloc[0] <= q["upper"].iloc[0] <= 1.0)
    assert q["quantity"].tolist() == ["quantile"] and q["point"].tolist() == [0.5]


def test_kde_of_the_anchors_is_accurate_to_the_binning_error():
    # linear binning on 4,096 nodes: about 1e-5 relative for 300 values
    rng = np.random.default_rng(0)
    v = rng.normal(size=300)
    pts = np.linspace(v.min(), v.max(), 25)
    h = 0.9 * min(v.std(), stats.iqr(v) / 1.349) * 300 ** (-0.2)
    exact = stats.norm.pdf((pts[:, None] - v[None, :]) / h).mean(axis=1) / h
    np.testing.assert_allclose(_iv()._kde_at(v, pts), exact, rtol=5e-5)


@pytest.mark.parametrize("s", [0.01, 10.0])
def test_kde_of_the_anchors_is_accurate_at_any_scale(s):
    rng = np.random.default_rng(1)
    v = rng.normal(size=300) * s
    pts = np.linspace(v.min(), v.max(), 9)
    h = 0.9 * min(v.std(), stats.iqr(v) / 1.349) * 300 ** (-0.2)
    exact = stats.norm.pdf((pts[:, None] - v[None, :]) / h).mean(axis=1) / h
    np.testing.assert_allclose(_iv()._kde_at(v, pts), exact, rtol=5e-5)


def test_current_status_quantile_interval_on_eighteen_rows():
    # the largest accepted anchor count is one below a rejected probe
    rng = np.random.default_rng(1)
    n = rng.integers(8, 30)
    u = rng.uniform(0, 4, size=n)
    x = rng.uniform(0, 4, size=n)
    Z = np.where(
        (x <= u)[:, None], np.c_[np.full(n, -INF), u], np.c_[u, np.full(n, INF)]
    )
    cs = _iv()._CurrentStatus(Z)
    K = cs.anchors.size
    accepted = [s for s in range(K + 1) if cs.ratio(cs.split(s), 0.5) <= 1.602]
    assert accepted == list(range(min(accepted), max(accepted) + 1))
    assert max(accepted) == 16 and K == 18
    lower, upper = cs.quantile_interval(0.5, 1.602)
    assert lower == cs.anchors[min(accepted) - 1]
    assert upper == cs.anchors[16]


def test_npmle_influence_frame_and_refusal_text():
    est = _quiet_npmle(SIX)
    ci = est.conf_int("mean", X=SIX)
    assert ci["quantity"].tolist() == ["mean"]
    two = _quiet_npmle(CASE_TWO)
    _raises_exactly(
        "method='influence' needs Case-I data; use method='jackknife' "
        "(the default for other interval data) or method='bootstrap'.",
        two.conf_int,
        "mean",
        X=CASE_TWO,
        method="influence",
    )


def _case_one_rows(n=60, seed=0):
    rng = np.random.default_rng(seed)
    u, x = rng.normal(size=n), rng.normal(size=n)
    return np.column_stack([np.where(x <= u, -INF, u), np.where(x <= u, u, INF)])


def test_weighted_fit_refusals_say_why_and_what_to_use():
    from skprivate import IntervalNPMLE

    Z = _case_one_rows()
    w = np.random.default_rng(1).choice([1.0, 2.0], Z.shape[0])
    est = IntervalNPMLE().fit(Z, sample_weight=w)
    with pytest.raises(ValueError) as info:
        est.conf_int("cdf", [0.0], X=Z, method="likelihood-ratio")
    assert str(info.value) == (
        "IntervalNPMLE was fitted with sample_weight, and "
        "method='likelihood-ratio' calibrates the unweighted likelihood ratio "
        "by its limit law (Banerjee-Wellner), which a weighted likelihood does "
        "not follow: intervals of a weighted fit are not offered for that "
        "method. Use method='subsampling' (refits of the rows with their "
        "weights), or fit without sample_weight."
    )
    with pytest.raises(ValueError) as info:
        est.conf_int("mean", X=Z, method="influence")
    assert str(info.value) == (
        "IntervalNPMLE was fitted with sample_weight, and method='influence' "
        "estimates an unweighted variance: intervals of a weighted fit are not "
        "offered for that method. Use method='jackknife' or "
        "method='bootstrap' (refits of the rows with their weights), or fit "
        "without sample_weight."
    )


def test_conf_int_data_are_checked_under_the_name_x():
    from skprivate import IntervalNPMLE

    Z = _case_one_rows()
    est = IntervalNPMLE().fit(Z)
    bad = Z.copy()
    bad[3] = [2.0, 1.0]
    with pytest.raises(ValueError, match=r"^X has lower > upper at row 3 "):
        est.conf_int("cdf", [0.0], X=bad)


def test_uninformative_rows_leave_with_their_weights():
    # Rows (-inf, inf) say nothing and are dropped before the refits; the
    # other rows keep their own weights (not the weights of other rows, and
    # not none at all).
    from skprivate import IntervalNPMLE

    Z = _case_one_rows()
    w = np.random.default_rng(1).choice([1.0, 3.0], Z.shape[0])
    blank = np.array([[-INF, INF]] * 5)
    Zb = np.vstack([blank[:2], Z, blank[2:]])
    wb = np.r_[[7.0, 7.0], w, [7.0, 7.0, 7.0]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with_blank = IntervalNPMLE().fit(Zb, sample_weight=wb)
        plain = IntervalNPMLE().fit(Z, sample_weight=w)
        a = with_blank.conf_int("mean", X=Zb, method="jackknife", random_state=0)
        b = plain.conf_int("mean", X=Z, method="jackknife", random_state=0)
        unweighted = IntervalNPMLE().fit(Z)
        c = unweighted.conf_int("mean", X=Z, method="jackknife", random_state=0)
    for column in ("estimate", "lower", "upper"):
        assert a[column].iloc[0] == pytest.approx(b[column].iloc[0], abs=1e-9)
    assert abs(a["lower"].iloc[0] - c["lower"].iloc[0]) > 1e-6


def test_binned_density_at_the_ends_of_a_vast_range():
    # One value 1e7 away from the rest: the grid's step (about 2,400) is far
    # wider than the bandwidth, and the extreme values sit within a node of
    # the grid's ends.  Each still carries its whole mass there: the
    # estimate at it is one kernel's peak, 1 / (n h sqrt(2 pi)).
    values = np.r_[np.random.default_rng(0).normal(size=998), -1e7, 1e7]
    n = values.size
    spread = min(np.std(values), stats.iqr(values) / 1.349)
    h = 0.9 * spread * n ** (-0.2)
    peak = 1.0 / (n * h * np.sqrt(2 * np.pi))
    density = _iv()._kde_at(values, np.array([-1e7, 1e7]))
    np.testing.assert_allclose(density, [peak, peak], rtol=1e-2)
