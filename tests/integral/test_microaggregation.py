"""Microaggregation: the partitions, the transformer, scikit-learn use."""

import itertools
import pickle
import struct

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline

from skprivate.exceptions import InvalidParameterError, PrivacyLeakWarning
from skprivate.integral import Microaggregator, microaggregate
from skprivate.integral._microaggregation import _optimal_labels


def _sse(xs, labels):
    return sum(
        ((xs[labels == g] - xs[labels == g].mean()) ** 2).sum() for g in set(labels)
    )


def _brute_force_sse(xs, k):
    """Least SSE over all consecutive partitions with sizes in [k, 2k-1]."""
    n = xs.size
    best = np.inf
    for n_cuts in range(n // k):
        for cuts in itertools.combinations(range(1, n), n_cuts):
            sizes = np.diff((0, *cuts, n))
            if sizes.min() < k or sizes.max() > 2 * k - 1:
                continue
            labels = np.repeat(np.arange(sizes.size), sizes)
            best = min(best, _sse(xs, labels))
    return best


@pytest.mark.parametrize("seed", range(6))
@pytest.mark.parametrize("k", [2, 3])
def test_optimal_partition_matches_brute_force(seed, k):
    xs = np.sort(np.random.default_rng(seed).exponential(size=11))
    labels = _optimal_labels(xs, k)
    sizes = np.bincount(labels)
    assert sizes.min() >= k and sizes.max() <= 2 * k - 1
    assert np.all(np.diff(labels) >= 0)
    assert _sse(xs, labels) == pytest.approx(_brute_force_sse(xs, k), rel=1e-10)


def test_optimal_is_never_worse_than_consecutive():
    x = np.random.default_rng(1).lognormal(size=500)
    for k in (2, 5, 20):
        opt, _ = microaggregate(x, k, "optimal")
        cons, _ = microaggregate(x, k, "consecutive")
        assert ((x - opt) ** 2).sum() <= ((x - cons) ** 2).sum() + 1e-9


def test_consecutive_rule_of_the_spec():
    x = np.array([5.0, 1, 9, 3, 7, 2, 8, 4, 6, 10, 11])
    values, labels = microaggregate(x, 3, "consecutive")
    # sorted: 1..11 -> groups {1,2,3}, {4,5,6}, {7,...,11} (remainder to the last)
    assert np.bincount(labels).tolist() == [3, 3, 5]
    assert values[x == 1][0] == 2.0 and values[x == 5][0] == 5.0
    assert values[x == 11][0] == 9.0
    assert values.mean() == pytest.approx(x.mean())


def test_fewer_records_than_k_form_one_cluster():
    values, labels = microaggregate([1.0, 3.0], 5)
    assert labels.tolist() == [0, 0] and values.tolist() == [2.0, 2.0]


def test_microaggregate_bad_input():
    with pytest.raises(ValueError, match="method"):
        microaggregate([1.0, 2.0], 2, "mdav")
    with pytest.raises(ValueError, match="min_cluster_size"):
        microaggregate([1.0, 2.0], 0)


@pytest.mark.parametrize("method", ["optimal", "consecutive"])
def test_univariate_transform_is_the_nearest_centroid(method):
    X = np.random.default_rng(0).normal(size=(200, 3))
    ma = Microaggregator(min_cluster_size=4, method=method)
    Xt = ma.fit_transform(X)
    assert ma.labels_.shape == X.shape
    for j in range(3):
        sizes = np.bincount(ma.labels_[:, j])
        assert sizes.min() >= 4
        # each released value is shared by at least k records
        assert pd.Series(Xt[:, j]).value_counts().min() >= 4
    # transform: the nearest centroid of each column, for any value
    new = np.random.default_rng(1).normal(size=(50, 3)) * 1.5
    for data in (X, new):
        got = ma.transform(data)
        for j in range(3):
            c = ma.centroids_[j]
            nearest = c[np.argmin(np.abs(data[:, j, None] - c[None, :]), axis=1)]
            np.testing.assert_array_equal(got[:, j], nearest)
    # on the training data it agrees with the record's own cluster except
    # near cluster boundaries
    assert np.mean(ma.transform(X) == Xt) > 0.8


def test_fitted_object_keeps_no_cell_bound_from_records():
    # the midpoint of the neighbouring records 6 and 10 is 8; the centroids'
    # midpoint is (3 + 11) / 2 = 7
    X = np.array([[1.0], [2.0], [6.0], [10.0], [11.0], [12.0]])
    ma = Microaggregator(min_cluster_size=3).fit(X)
    np.testing.assert_array_equal(ma.centroids_[0], [3.0, 11.0])
    np.testing.assert_array_equal(ma.cut_points_[0], [7.0])
    assert struct.pack("<d", 8.0) not in pickle.dumps(ma)
    np.testing.assert_array_equal(ma.transform([[7.0], [7.5]]), [[3.0], [11.0]])


def test_mdav_clusters():
    X = np.random.default_rng(2).normal(size=(103, 2)) * [1.0, 100.0]
    ma = Microaggregator(min_cluster_size=5, method="mdav")
    Xt = ma.fit_transform(X)
    sizes = np.bincount(ma.labels_)
    assert ma.labels_.shape == (103,)
    assert sizes.min() >= 5 and sizes.max() <= 9
    for g in range(sizes.size):
        np.testing.assert_allclose(
            Xt[ma.labels_ == g],
            X[ma.labels_ == g].mean(axis=0)[None].repeat(sizes[g], 0),
        )
    np.testing.assert_allclose(Xt.mean(axis=0), X.mean(axis=0))


def test_pandas_output_and_feature_names():
    df = pd.DataFrame({"age": [30.0, 31, 32, 50, 51, 52], "h": [1.0, 2, 3, 4, 5, 6]})
    out = (
        Microaggregator(min_cluster_size=3)
        .set_output(transform="pandas")
        .fit_transform(df)
    )
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["age", "h"]
    assert out["age"].tolist() == [31.0, 31, 31, 51, 51, 51]


def test_bad_parameters():
    X = np.ones((10, 1))
    with pytest.raises(InvalidParameterError, match="min_cluster_size"):
        Microaggregator(min_cluster_size=0).fit(X)
    with pytest.raises(InvalidParameterError, match="method"):
        Microaggregator(method="kmeans").fit(X)
    with pytest.raises(ValueError, match="NaN"):
        Microaggregator().fit(np.array([[1.0], [np.nan]]))


def test_in_a_grid_search():
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(120, 2))
    y = X @ [2.0, -1.0] + rng.normal(scale=0.1, size=120)
    grid = GridSearchCV(
        make_pipeline(Microaggregator(), LinearRegression()),
        {"microaggregator__min_cluster_size": [2, 10]},
        cv=3,
    ).fit(X, y)
    assert grid.best_params_["microaggregator__min_cluster_size"] == 2
    assert grid.best_score_ > 0.9


def test_privacy_summary_matches_cluster_sizes():
    ma = Microaggregator(min_cluster_size=7, method="mdav")
    assert ma.privacy_summary()["min_cluster_size"] == 7
    X = np.random.default_rng(0).normal(size=(50, 3))
    Xt = ma.fit_transform(X)
    _, counts = np.unique(Xt, axis=0, return_counts=True)
    assert counts.min() >= 7


def test_privacy_summary_states_what_is_k_anonymous():
    s = Microaggregator(min_cluster_size=2, method="mdav").privacy_summary()
    assert s["k_anonymity"] == "rows" and s["raw_values_released"] is False
    assert "not differential privacy" in s["guarantee"]
    # Univariate methods: every column alone is 2-anonymous, the rows are not.
    X = np.array([[0.1, 0.2], [0.3, 10.1], [10.2, 0.3], [10.1, 10.1]])
    ma = Microaggregator(min_cluster_size=2, method="optimal")
    Xt = ma.fit_transform(X)
    for j in range(2):
        assert np.unique(Xt[:, j], return_counts=True)[1].min() == 2
    assert np.unique(Xt, axis=0).shape[0] == 4  # every released row is unique
    s = ma.privacy_summary()
    assert s["k_anonymity"] == "each column alone"
    assert "each released value of a column is shared by at least 2" in s["guarantee"]


def test_clusters_of_one_record_warn_and_are_reported():
    X = np.array([[5.0, 1.0], [2.0, 8.0], [9.0, 4.0]])
    for method in ("optimal", "consecutive", "mdav"):
        ma = Microaggregator(min_cluster_size=1, method=method)
        with pytest.warns(PrivacyLeakWarning, match="min_cluster_size=1"):
            Xt = ma.fit_transform(X)
        if method != "mdav":
            np.testing.assert_array_equal(Xt, X)
        s = ma.privacy_summary()
        assert s["raw_values_released"] is True and s["k_anonymity"] == "none"


def _set_partitions(items):
    """Every partition of a list into blocks (Bell-number many)."""
    if not items:
        yield []
        return
    first, rest = items[0], items[1:]
    for partition in _set_partitions(rest):
        for i in range(len(partition)):
            yield [*partition[:i], [first, *partition[i]], *partition[i + 1 :]]
        yield [[first], *partition]


def _best_over_all_partitions(xs, k):
    """Least SSE over *every* partition into groups of at least k records."""
    best = np.inf
    for partition in _set_partitions(list(range(xs.size))):
        if min(len(b) for b in partition) < k:
            continue
        best = min(best, sum(((xs[b] - xs[b].mean()) ** 2).sum() for b in partition))
    return best


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("k", [2, 3])
def test_optimal_partition_is_optimal_over_all_partitions(seed, k):
    # Not only over consecutive groups: over every grouping of 8 records.
    rng = np.random.default_rng(seed)
    xs = np.sort(np.concatenate([rng.normal(0, 1, 4), rng.normal(1e8, 0.3, 4)]))
    values, _ = microaggregate(xs, k, "optimal")
    sse = ((xs - values) ** 2).sum()
    assert sse == pytest.approx(_best_over_all_partitions(xs, k), rel=1e-6)


def test_optimal_partition_of_tight_groups_far_apart():
    # Prefix sums of squares lose the within-group differences to
    # cancellation here (they gave SSE 2.633 instead of 2.287).
    low = [-1.303, 0.33, 0.346, 0.446, 0.822, 0.905]
    high = [99999999.264, 99999999.463, 100000000.028, 100000000.294]
    high += [100000000.365, 100000000.547, 100000000.581]
    x = np.array(low + high)
    _, labels = microaggregate(x, 3, "optimal")
    assert labels.tolist() == [0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 3]
    sse = sum(((x[labels == g] - x[labels == g].mean()) ** 2).sum() for g in range(4))
    assert sse == pytest.approx(2.2872934, abs=1e-6)
    assert sse == pytest.approx(_brute_force_sse(x, 3), rel=1e-9)


@pytest.mark.parametrize("offset", [0.0, 1e6, 1e9, -1e12])
def test_optimal_partition_does_not_depend_on_a_shift(offset):
    rng = np.random.default_rng(3)
    base = np.sort(np.round(rng.normal(0, 1, 40), 3))
    reference = _optimal_labels(base, 4)
    assert np.array_equal(_optimal_labels(base + offset, 4), reference)


def test_optimal_partition_over_several_sse_tables(monkeypatch):
    # Tables of candidate SSEs computed a few blocks at a time give the
    # same partition as one table.
    import skprivate.integral._microaggregation as ma

    xs = np.sort(np.random.default_rng(5).lognormal(size=301))
    whole = _optimal_labels(xs, 3)
    monkeypatch.setattr(ma, "_SSE_TABLE_ENTRIES", 40)
    assert np.array_equal(_optimal_labels(xs, 3), whole)
