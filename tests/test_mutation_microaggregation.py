"""Microaggregation (``integral/_microaggregation.py``) against direct
implementations: MDAV written out from Domingo-Ferrer and Torra's
description, the optimal univariate partition by enumerating every
partition into consecutive groups of sizes ``k .. 2k - 1``, the consecutive
rule, the cells :meth:`transform` reads, the refusals and the privacy
summary's exact words.
"""

from __future__ import annotations

import itertools
import re

import numpy as np
import pytest

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.integral import Microaggregator, microaggregate
from skprivate.integral._microaggregation import (
    _centroids,
    _consecutive_labels,
    _group_sse_table,
    _optimal_labels,
)


def _mdav_reference(X, k):
    """MDAV step by step: the farthest record r from the centroid, its k
    nearest; the farthest s from r, its k nearest; repeat while 3k remain;
    then one more group if 2k remain; the rest form the last group."""
    Z = X / np.where(X.std(axis=0) > 0, X.std(axis=0), 1.0)
    left = list(range(len(X)))
    groups = []

    def nearest(point):
        d = sorted(left, key=lambda i: (float(((Z[i] - point) ** 2).sum()), i))
        return d[:k]

    def farthest(point):
        return max(left, key=lambda i: (float(((Z[i] - point) ** 2).sum()), -i))

    while len(left) >= 3 * k:
        r = farthest(Z[left].mean(axis=0))
        g = nearest(Z[r])
        groups.append(g)
        left = [i for i in left if i not in g]
        s = farthest(Z[r])
        g = nearest(Z[s])
        groups.append(g)
        left = [i for i in left if i not in g]
    if len(left) >= 2 * k:
        r = farthest(Z[left].mean(axis=0))
        g = nearest(Z[r])
        groups.append(g)
        left = [i for i in left if i not in g]
    groups.append(left)
    labels = np.empty(len(X), dtype=int)
    for j, g in enumerate(groups):
        labels[g] = j
    return labels


@pytest.mark.parametrize(
    ("n", "k", "d"), [(7, 2, 2), (13, 3, 3), (20, 2, 1), (31, 4, 2)]
)
def test_mdav_equals_the_algorithm_step_by_step(n, k, d):
    X = np.random.default_rng(n * 10 + k).normal(size=(n, d)) * [1.0, 5.0, 0.1][:d]
    ma = Microaggregator(min_cluster_size=k, method="mdav")
    out = ma.fit_transform(X)
    ref = _mdav_reference(X, k)
    np.testing.assert_array_equal(ma.labels_, ref)
    sizes = np.bincount(ref)
    assert (sizes[:-1] == k).all()
    assert k <= sizes[-1] <= 2 * k - 1
    for j in range(ref.max() + 1):
        want = np.broadcast_to(X[ref == j].mean(axis=0), out[ref == j].shape)
        np.testing.assert_allclose(out[ref == j], want, rtol=1e-14)
    np.testing.assert_allclose(ma.centroids_, _centroids(X, ref), rtol=1e-14)


def test_mdav_with_a_constant_column_is_not_divided_by_zero():
    X = np.column_stack([np.arange(9.0), np.full(9, 4.0)])
    ma = Microaggregator(min_cluster_size=3, method="mdav")
    out = ma.fit_transform(X)
    np.testing.assert_array_equal(ma.labels_, _mdav_reference(X, 3))
    assert np.isfinite(out).all()
    np.testing.assert_array_equal(ma._scale, [out[:, 0].std(), 1.0])


def test_mdav_transform_is_the_nearest_centroid_in_standardized_space():
    rng = np.random.default_rng(3)
    X = rng.normal(size=(12, 2)) * [1.0, 10.0]
    ma = Microaggregator(min_cluster_size=3, method="mdav").fit(X)
    new = rng.normal(size=(6, 2)) * [1.0, 10.0]
    # standardized by the spread of the release, not of the raw records
    spread = ma.centroids_[ma.labels_].std(axis=0)
    assert not np.allclose(spread, X.std(axis=0))
    Z = new / spread
    C = ma.centroids_ / spread
    best = np.argmin(((Z[:, None] - C[None]) ** 2).sum(axis=2), axis=1)
    np.testing.assert_array_equal(ma.transform(new), ma.centroids_[best])


def _best_partition_sse(xs, k):
    n = xs.size
    best = np.inf
    for parts in range(1, n // k + 1):
        for sizes in itertools.product(range(k, 2 * k), repeat=parts):
            if sum(sizes) != n:
                continue
            cuts = np.cumsum((0, *sizes))
            sse = sum(
                float(((xs[a:b] - xs[a:b].mean()) ** 2).sum())
                for a, b in itertools.pairwise(cuts)
            )
            best = min(best, sse)
    return best


@pytest.mark.parametrize(
    ("n", "k"), [(4, 2), (7, 2), (9, 3), (11, 3), (10, 4), (13, 2)]
)
def test_optimal_labels_reach_the_least_sse_over_all_partitions(n, k):
    xs = np.sort(np.random.default_rng(n + 100 * k).exponential(size=n))
    labels = _optimal_labels(xs, k)
    assert labels[0] == 0
    assert np.all(np.diff(labels) >= 0) and np.all(np.diff(labels) <= 1)
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    sse = sum(
        float(((xs[labels == g] - xs[labels == g].mean()) ** 2).sum())
        for g in range(labels.max() + 1)
    )
    assert sse == pytest.approx(_best_partition_sse(xs, k), rel=1e-12, abs=1e-15)


def test_optimal_labels_below_two_groups_are_one_group():
    xs = np.arange(5.0)
    np.testing.assert_array_equal(_optimal_labels(xs, 3), np.zeros(5))
    labels = _optimal_labels(np.arange(6.0), 3)
    np.testing.assert_array_equal(labels, [0, 0, 0, 1, 1, 1])


def test_group_sse_table_is_each_groups_sum_of_squares():
    xs = np.array([3.0, 1.0, 4.0, 1.0, 5.0, 9.0, 2.0, 6.0, 5.0, 3.0])
    k = 2
    table = _group_sse_table(xs, k, 1, 7)
    assert table.shape == (6, k)
    for row, j in enumerate(range(1, 7)):
        for col, m in enumerate(range(k, 2 * k)):
            if j + m <= xs.size:
                g = xs[j : j + m]
                assert table[row, col] == pytest.approx(
                    ((g - g.mean()) ** 2).sum(), rel=1e-14
                )


@pytest.mark.parametrize(
    ("n", "k", "want"),
    [
        (7, 3, [0, 0, 0, 1, 1, 1, 1]),
        (2, 3, [0, 0]),
        (6, 2, [0, 0, 1, 1, 2, 2]),
        (3, 1, [0, 1, 2]),
    ],
)
def test_consecutive_labels(n, k, want):
    np.testing.assert_array_equal(_consecutive_labels(n, k), want)


def test_microaggregate_keeps_positions_and_numbers_clusters_by_centroid():
    x = np.array([9.0, 1.0, 8.0, 2.0, 5.0, 1.5])
    values, labels = microaggregate(x, 2, method="consecutive")
    np.testing.assert_array_equal(labels, [2, 0, 2, 1, 1, 0])
    np.testing.assert_allclose(values, [8.5, 1.25, 8.5, 3.5, 3.5, 1.25])
    values, labels = microaggregate(x[:, None], 3, method="optimal")
    np.testing.assert_array_equal(labels, [1, 0, 1, 0, 1, 0])
    np.testing.assert_allclose(values, [22 / 3, 1.5, 22 / 3, 1.5, 22 / 3, 1.5])
    values, labels = microaggregate([], 2)
    assert values.shape == (0,) and labels.shape == (0,) and labels.dtype == np.intp


def test_microaggregate_refusals_with_exact_messages():
    msg = (
        "x must be one column of shape (n,) or (n, 1); got shape (3, 2). Use "
        "Microaggregator for several columns."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        microaggregate(np.ones((3, 2)), 2)
    with pytest.raises(ValueError, match=r"^x must be finite; x\[1\] is inf\.$"):
        microaggregate([1.0, np.inf, np.nan], 2)
    msg = "method must be 'consecutive' or 'optimal' for one column; got 'mdav'."
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        microaggregate([1.0, 2.0], 1, method="mdav")
    for bad in (0, -1, 2.0, True, "2"):
        msg = f"min_cluster_size must be a positive int; got {bad!r}."
        with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
            microaggregate([1.0, 2.0], bad)
    values, _ = microaggregate([1.0, 2.0], np.int64(1))
    np.testing.assert_array_equal(values, [1.0, 2.0])


def test_fit_refuses_fewer_records_than_k_and_warns_at_k_one():
    msg = (
        "X has 2 sample(s), fewer than min_cluster_size=3: no group of that size "
        "exists, and a smaller one would publish near-raw values."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        Microaggregator(min_cluster_size=3).fit(np.ones((2, 1)))
    Microaggregator(min_cluster_size=3).fit(np.arange(3.0)[:, None])  # exactly k
    with pytest.warns(
        PrivacyLeakWarning,
        match=r"^Microaggregator\(min_cluster_size=1\) lets a cluster hold a single",
    ):
        Microaggregator(min_cluster_size=1).fit(np.arange(3.0)[:, None])


@pytest.mark.parametrize("method", ["optimal", "consecutive"])
def test_univariate_cells_are_those_of_the_nearest_centroid(method):
    # cells between the records (6.5 and 39) would differ from the cells
    # between the centroids (6 and 38)
    X = np.array(
        [[1.0, 10.0], [2.0, 30.0], [6.0, 38.0], [7.0, 40.0], [8.0, 60.0], [12.0, 50.0]]
    )
    ma = Microaggregator(min_cluster_size=3, method=method).fit(X)
    np.testing.assert_array_equal(ma.centroids_[0], [3.0, 9.0])
    np.testing.assert_array_equal(ma.centroids_[1], [26.0, 50.0])
    np.testing.assert_array_equal(ma.cut_points_[0], [6.0])
    np.testing.assert_array_equal(ma.cut_points_[1], [38.0])
    np.testing.assert_array_equal(
        ma.labels_, [[0, 0], [0, 0], [0, 0], [1, 1], [1, 1], [1, 1]]
    )
    # a value on a cut point belongs to the lower cell
    got = ma.transform(
        np.array([[6.0, 38.0], [6.0 + 1e-9, 38.0 + 1e-9], [-100.0, 1e9], [6.4, 38.9]])
    )
    np.testing.assert_array_equal(
        got, [[3.0, 26.0], [9.0, 50.0], [3.0, 50.0], [9.0, 50.0]]
    )
    np.testing.assert_array_equal(ma.fit_transform(X)[:, 1], [26, 26, 26, 50, 50, 50])


def test_privacy_summary_words():
    s = Microaggregator(min_cluster_size=4, method="optimal").privacy_summary()
    assert s == {
        "notion": "microaggregation: every released value shared by >= k records",
        "min_cluster_size": 4,
        "method": "optimal",
        "k_anonymity": "each column alone",
        "raw_values_released": False,
        "guarantee": (
            "each released value of a column is shared by at least 4 training "
            "records (k-anonymity of each column alone); not differential "
            "privacy: a centroid is the mean of its members, so knowing 3 of "
            "them reveals the last"
        ),
    }
    s = Microaggregator(min_cluster_size=2, method="mdav").privacy_summary()
    assert s["k_anonymity"] == "rows"
    assert s["guarantee"] == (
        "each released row is shared by at least 2 training records "
        "(k-anonymity of the rows); not differential privacy: a centroid is the "
        "mean of its members, so knowing 1 of them reveals the last"
    )
    s = Microaggregator(min_cluster_size=1, method="mdav").privacy_summary()
    assert s["k_anonymity"] == "none"
    assert s["raw_values_released"] is True
    assert s["guarantee"] == (
        "none: min_cluster_size=1 lets a cluster hold one record, whose centroid "
        "is its raw value"
    )


def test_consecutive_labels_below_two_groups_are_one_group():
    np.testing.assert_array_equal(_consecutive_labels(5, 3), [0, 0, 0, 0, 0])


def test_consecutive_and_optimal_partitions_differ_where_they_should():
    X = np.array([[1.0], [2.0], [3.0], [4.0], [10.0], [11.0], [12.0]])
    cons = Microaggregator(min_cluster_size=3, method="consecutive").fit(X)
    opt = Microaggregator(min_cluster_size=3, method="optimal").fit(X)
    np.testing.assert_array_equal(cons.labels_[:, 0], [0, 0, 0, 1, 1, 1, 1])
    np.testing.assert_array_equal(opt.labels_[:, 0], [0, 0, 0, 0, 1, 1, 1])


def test_ties_are_grouped_in_record_order():
    # 60 equal values then 60 others: runs of 3 in record order
    x = np.array([5.0] * 60 + [1.0] * 60)
    _, labels = microaggregate(x, 3, method="consecutive")
    np.testing.assert_array_equal(labels[60:], np.arange(60) // 3)
    np.testing.assert_array_equal(labels[:60], 20 + np.arange(60) // 3)


def test_defaults_and_messages_of_the_transformer():
    ma = Microaggregator()
    assert (ma.min_cluster_size, ma.method) == (3, "optimal")
    with pytest.raises(TypeError, match=r"^x column 0 must be numeric; row 0 holds"):
        microaggregate(["a", "b"], 1)
    with pytest.raises(ValueError, match=r"^X contains NaN at row 1, column 0"):
        Microaggregator().fit(np.array([[1.0], [np.nan], [2.0], [3.0]]))
    msg = (
        "Microaggregator(min_cluster_size=1) lets a cluster hold a single record, "
        "whose centroid is its raw value: the output may repeat the data "
        "unchanged. Use min_cluster_size >= 2."
    )
    with pytest.warns(PrivacyLeakWarning) as caught:
        Microaggregator(min_cluster_size=1).fit(np.arange(3.0)[:, None])
    assert str(caught[0].message) == msg


def test_a_dask_collection_is_refused_by_name():
    da = pytest.importorskip("dask.array")
    with pytest.raises((TypeError, ValueError), match="Microaggregator"):
        Microaggregator().fit(da.ones((6, 1), chunks=3))


def test_mdav_standardizes_columns_of_small_spread_and_uses_column_means():
    rng = np.random.default_rng(11)
    X = rng.normal(size=(15, 2)) * [0.3, 4.0] + [10.0, -50.0]
    ma = Microaggregator(min_cluster_size=3, method="mdav").fit(X)
    released = ma.centroids_[ma.labels_]
    np.testing.assert_allclose(ma._scale, released.std(axis=0), rtol=1e-15)
    np.testing.assert_array_equal(ma.labels_, _mdav_reference(X, 3))


@pytest.mark.parametrize(("n", "k"), [(5, 2), (8, 3)])
def test_mdav_with_between_2k_and_3k_records_makes_two_groups(n, k):
    X = np.random.default_rng(n).normal(size=(n, 2))
    ma = Microaggregator(min_cluster_size=k, method="mdav").fit(X)
    np.testing.assert_array_equal(ma.labels_, _mdav_reference(X, k))
    assert sorted(np.bincount(ma.labels_)) == [k, n - k]


def test_integer_input_gives_float_centroids():
    X = np.array([[1], [2], [4], [10], [11], [13]])
    out = Microaggregator(min_cluster_size=3).fit_transform(X)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out[:, 0], [7 / 3] * 3 + [34 / 3] * 3, rtol=1e-15)
    values, _ = microaggregate([1, 2, 4, 10, 11, 13], 3, method="optimal")
    np.testing.assert_allclose(values, [7 / 3] * 3 + [34 / 3] * 3, rtol=1e-15)


def test_mdav_takes_no_record_of_the_group_just_formed():
    # heavy tails: a record of the group around r is among the k nearest to
    # s; taken again, it would leave the first group with fewer than k
    X = np.random.default_rng(0).standard_cauchy(size=(17, 3))
    ma = Microaggregator(min_cluster_size=3, method="mdav").fit(X)
    np.testing.assert_array_equal(ma.labels_, _mdav_reference(X, 3))
    assert np.bincount(ma.labels_).min() >= 3


def test_mdav_groups_are_the_k_nearest_at_a_size_where_selection_matters():
    # numpy's selection leaves the k-th nearest at position k - 1 on small
    # inputs whichever position is asked for; on some larger ones it does
    # not, and a group must still be the k nearest
    X = np.random.default_rng(210).normal(size=(800, 2))
    ma = Microaggregator(min_cluster_size=24, method="mdav").fit(X)
    np.testing.assert_array_equal(ma.labels_, _mdav_reference(X, 24))


@pytest.mark.parametrize("x", [[1 + 2j, 3.0, 4.0], [[1.0, 2.0], [3.0]]])
def test_microaggregate_names_x_for_an_entry_that_is_no_number(x):
    # a complex number is refused by the column check (a ValueError, as
    # scikit-learn's), a ragged row by the float conversion: each names the
    # argument and the entry's type, never the entry
    with pytest.raises((TypeError, ValueError)) as caught:
        microaggregate(x, 2)
    message = str(caught.value)
    complex_entry = isinstance(x[0], complex)
    assert isinstance(caught.value, ValueError if complex_entry else TypeError)
    expected = (
        r"x column 0 must be numeric; row 0 holds a complex that is not a real "
        r"number \(Complex data not supported\)\."
        if complex_entry
        else r"x must be numeric; entry \(0,\) is a \w+, not a number\."
    )
    assert re.fullmatch(expected, message)
    assert "2j" not in message and "1.0" not in message
