"""The delete-a-group jackknife and the NPMLE mean interval built on it.

The groups partition the rows at random; the interval is pinned by hand on
unequal groups, by its closed form for the sample mean (its pseudo-values
are then the group means, so the interval is the t interval of the group
means), and by its coverage for the NPMLE mean of Case-II data.
"""

import re
import warnings

import numpy as np
import pytest
from scipy import stats

from skprivate._uncertainty import (
    group_jackknife_indices,
    group_jackknife_interval,
)


@pytest.mark.parametrize("n, G", [(10, 3), (7, 7), (1000, 20), (5, 2)])
def test_groups_partition_the_rows(n, G):
    kept, sizes = group_jackknife_indices(n, G, random_state=3)
    assert len(kept) == G and sizes.sum() == n
    assert sizes.max() - sizes.min() <= 1
    left_out = np.zeros(n, dtype=int)
    for k, size in zip(kept, sizes, strict=True):
        assert np.all(np.diff(k) > 0)  # sorted, no repeat
        assert k.size == n - size
        out = np.setdiff1d(np.arange(n), k)
        left_out[out] += 1
    # every row is left out by exactly one refit
    np.testing.assert_array_equal(left_out, np.ones(n, dtype=int))


def test_groups_are_random_and_reproducible():
    a, _ = group_jackknife_indices(50, 5, random_state=1)
    b, _ = group_jackknife_indices(50, 5, random_state=1)
    c, _ = group_jackknife_indices(50, 5, random_state=2)
    assert all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not all(np.array_equal(x, y) for x, y in zip(a, c, strict=True))
    # not the blocks of consecutive rows
    blocks = [np.setdiff1d(np.arange(50), k) for k in a]
    assert not all(np.all(np.diff(g) == 1) for g in blocks)


@pytest.mark.parametrize(
    "G, error, message",
    [
        (1, ValueError, "needs 2 <= n_groups <= n = 5"),
        (6, ValueError, "got n_groups=6"),
        (2.0, TypeError, "n_groups must be an integer; got 2.0."),
        (True, TypeError, "n_groups must be an integer; got True."),
    ],
)
def test_group_counts_are_checked(G, error, message):
    with pytest.raises(error, match=re.escape(message)):
        group_jackknife_indices(5, G, random_state=0)


def test_interval_on_unequal_groups_by_hand():
    # n = 4 rows in groups of 1, 1, 2: h = 4, 4, 2.
    # pseudo-values 4 - 3 (0.8) = 1.6, 4 - 3 (1.1) = 0.7, 2 - 1.3 = 0.7;
    # centre 3 - (0.75 (0.8) + 0.75 (1.1) + 0.5 (1.3)) = 0.925;
    # se^2 = ((0.675^2) / 3 + (0.225^2) / 3 + 0.225^2 / 1) / 3 = 0.073125.
    lower, upper, se = group_jackknife_interval(
        1.0, np.array([[0.8], [1.1], [1.3]]), [1, 1, 2], 0.95
    )
    assert se[0] == pytest.approx(np.sqrt(0.073125), rel=1e-12)
    half = stats.t.ppf(0.975, 2) * np.sqrt(0.073125)
    assert lower[0] == pytest.approx(1.0 - half, rel=1e-12)
    assert upper[0] == pytest.approx(1.0 + half, rel=1e-12)
    # level 0.8: the t quantile of 2 degrees of freedom at 0.9
    lo80, _, _ = group_jackknife_interval(
        1.0, np.array([[0.8], [1.1], [1.3]]), [1, 1, 2], 0.8
    )
    assert lo80[0] == pytest.approx(1.0 - 1.885618083 * np.sqrt(0.073125), rel=1e-9)


def test_two_groups_are_enough():
    # G = 2: pseudo-values 2 (1) - 0.9 = 1.1 and 2 (1) - 1.3 = 0.7 about
    # the centre 2 - (0.9 + 1.3) / 2 = 0.9; se^2 = (0.2^2 + 0.2^2) / 2 = 0.04
    lower, upper, se = group_jackknife_interval(
        1.0, np.array([[0.9], [1.3]]), [3, 3], 0.95
    )
    assert se[0] == pytest.approx(0.2, rel=1e-12)
    assert upper[0] - 1.0 == pytest.approx(stats.t.ppf(0.975, 1) * 0.2, rel=1e-12)
    assert 1.0 - lower[0] == pytest.approx(stats.t.ppf(0.975, 1) * 0.2, rel=1e-12)


def test_failed_groups_are_left_out():
    reps = np.array([[0.8], [np.nan], [1.1], [1.3]])
    got = group_jackknife_interval(1.0, reps, [1, 5, 1, 2], 0.95)
    want = group_jackknife_interval(1.0, reps[[0, 2, 3]], [1, 1, 2], 0.95)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(g, w, rtol=1e-14)
    with pytest.raises(ValueError, match="at least two groups whose refit"):
        group_jackknife_interval(1.0, np.array([[0.5], [np.nan]]), [1, 1], 0.95)


@pytest.mark.parametrize("n, G", [(40, 8), (43, 6)])
def test_sample_mean_gives_the_t_interval_of_group_means(n, G):
    # For the sample mean the pseudo-value of group g is the group's mean,
    # whatever the group sizes; with equal groups the interval is the t
    # interval of the G group means.
    rng = np.random.default_rng(n)
    x = rng.normal(size=(n, 2)) * [1.0, 3.0] + [0.0, 5.0]
    kept, sizes = group_jackknife_indices(n, G, random_state=4)
    reps = np.array([x[k].mean(axis=0) for k in kept])
    lower, upper, se = group_jackknife_interval(x.mean(axis=0), reps, sizes, 0.9)
    means = np.array([np.delete(x, k, axis=0).mean(axis=0) for k in kept])
    weights = sizes / n
    centre = weights @ means  # = x.mean(axis=0)
    np.testing.assert_allclose(centre, x.mean(axis=0), rtol=1e-12)
    h = n / sizes
    want_se = np.sqrt(
        np.sum((means - x.mean(axis=0)) ** 2 / (h - 1.0)[:, None], axis=0) / G
    )
    np.testing.assert_allclose(se, want_se, rtol=1e-12)
    if n % G == 0:
        np.testing.assert_allclose(
            se, means.std(axis=0, ddof=1) / np.sqrt(G), rtol=1e-12
        )
    q = stats.t.ppf(0.95, G - 1)
    np.testing.assert_allclose(lower, x.mean(axis=0) - q * se, rtol=1e-12)
    np.testing.assert_allclose(upper, x.mean(axis=0) + q * se, rtol=1e-12)


# -- the NPMLE mean ---------------------------------------------------------


def _case_two(n, seed):
    from skprivate.interval import IntervalCaseII

    x = np.random.default_rng(seed).normal(size=(n, 1))
    return IntervalCaseII(random_state=seed + 1).fit_transform(x)


def test_npmle_mean_jackknife_equals_refits_one_by_one():
    from skprivate.interval import IntervalNPMLE

    Z = _case_two(120, 5)
    est = IntervalNPMLE().fit(Z)
    ci = est.conf_int("mean", X=Z, n_resamples=6, random_state=9, level=[0.8, 0.95])
    assert ci["method"].tolist() == ["jackknife (6 random groups, t with 5 df)"] * 2
    assert ci["target"].tolist() == ["E[X]"] * 2
    kept, sizes = group_jackknife_indices(120, 6, random_state=9)
    reps = np.array([[IntervalNPMLE(tol=1e-12).fit(Z[k]).mean()] for k in kept])
    assert ci["quantity"].tolist() == ["mean", "mean"]
    assert ci["level"].tolist() == [0.8, 0.95]
    assert ci["point"].isna().all()
    for level, row in zip([0.8, 0.95], ci.itertuples(), strict=True):
        lower, upper, se = group_jackknife_interval(est.mean(), reps, sizes, level)
        assert row.estimate == est.mean()
        assert row.se == pytest.approx(se[0], rel=1e-5)
        assert row.lower == pytest.approx(lower[0], abs=1e-6)
        assert row.upper == pytest.approx(upper[0], abs=1e-6)
    # 20 groups by default; as many as the rows when they are fewer
    assert est.conf_int("mean", X=Z)["method"].iloc[0].startswith("jackknife (20 ")
    small = Z[:9]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        few = IntervalNPMLE().fit(small)
        got = few.conf_int("mean", X=small, random_state=0)
    assert got["method"].iloc[0] == "jackknife (9 random groups, t with 8 df)"
    with pytest.raises(ValueError) as info:
        few.conf_int("mean", X=small, n_resamples=10)
    assert str(info.value) == (
        "method='jackknife' leaves out one group of rows per refit, so "
        "n_resamples (the number of groups) must be at most the 9 informative "
        "rows; got n_resamples=10."
    )
    one = np.array([[0.0, 1.0], [-np.inf, np.inf]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lone = IntervalNPMLE().fit(one)
    with pytest.raises(ValueError) as info:
        lone.conf_int("mean", X=one)
    assert str(info.value) == (
        "method='jackknife' refits without each group of rows and needs at "
        "least 2 informative rows (not (-inf, inf)); X has 1."
    )
    # two informative rows are enough (two groups of one row)
    two = np.array([[0.0, 1.0], [0.5, 2.0], [-np.inf, np.inf]])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pair = IntervalNPMLE().fit(two).conf_int("mean", X=two, random_state=0)
    assert pair["method"].iloc[0] == "jackknife (2 random groups, t with 1 df)"


def test_npmle_mean_jackknife_covers_the_mean():
    # Case-II data, 120 rows, 200 samples (measured 0.955): the coverage of
    # the 0.95 interval has standard error 0.0154; the band [0.90, 0.995]
    # fails a standard error off by a factor of two (coverage about 0.68 or
    # 0.9995); the exact cases above pin the t quantile.
    from skprivate.interval import IntervalNPMLE

    hits = 0
    for seed in range(200):
        Z = _case_two(120, 1000 + 7 * seed)
        ci = IntervalNPMLE().fit(Z).conf_int("mean", X=Z, random_state=seed)
        hits += bool(ci["lower"].iloc[0] <= 0.0 <= ci["upper"].iloc[0])
    assert 0.90 <= hits / 200 <= 0.995


def test_npmle_mean_jackknife_passes_the_workers_on(monkeypatch):
    # n_jobs reaches the refits (used where they are not batched)
    from skprivate.interval import IntervalNPMLE, _npmle_intervals

    seen = []
    real = _npmle_intervals.replicate_statistics

    def spy(*args, **kwargs):
        seen.append(kwargs.get("n_jobs", "missing"))
        return real(*args, **kwargs)

    monkeypatch.setattr(_npmle_intervals, "replicate_statistics", spy)
    Z = _case_two(60, 3)
    est = IntervalNPMLE().fit(Z)
    est.conf_int("mean", X=Z, n_resamples=4, random_state=0, n_jobs=2)
    est.conf_int("mean", X=Z, n_resamples=4, random_state=0)
    assert seen == [2, None]
