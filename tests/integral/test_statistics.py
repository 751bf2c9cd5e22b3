"""IntegralPrivateStatistics and integral_describe."""

import warnings

import numpy as np
import pandas as pd
import pytest
from joblib import parallel_config

from skprivate.exceptions import InvalidParameterError, PrivacyLeakWarning
from skprivate.integral import IntegralPrivateStatistics, integral_describe

DESCRIBE_INDEX = ["count", "mean", "std", "var", "min", "median", "iqr", "max", "sum"]


@pytest.fixture(scope="module")
def normal_1000():
    return np.random.default_rng(2024).normal(10, 2, size=(1000, 1))


@pytest.fixture(scope="module")
def spec_runs(normal_1000):
    """The SPEC 4.4 setting: s = t = 1000, k = 2, r = 2, without and with y = 20."""
    raw = IntegralPrivateStatistics(n_resamples=1000, random_state=0).fit(normal_1000)
    ma = IntegralPrivateStatistics(
        n_resamples=1000, min_cluster_size=20, random_state=0
    ).fit(normal_1000)
    return raw.results_.set_index("statistic"), ma.results_.set_index("statistic")


def test_spec_check_raw_max_has_no_answer(spec_runs):
    raw, _ = spec_runs
    assert np.isnan(raw.loc["max", "value"])
    assert not raw.loc["max", "integrally_private"]
    assert raw.loc["max", "frequency"] == 0


def test_spec_check_mean_is_close_to_the_truth(spec_runs, normal_1000):
    raw, _ = spec_runs
    # SPEC: IP mean 9.95 (freq 80) against a true 9.94.  The mode of the
    # rounded bootstrap means lies within a bootstrap SE of the sample mean.
    se = normal_1000.std() / np.sqrt(1000)
    assert abs(raw.loc["mean", "value"] - normal_1000.mean()) < 2 * se
    assert 40 <= raw.loc["mean", "frequency"] <= 120


def test_spec_check_microaggregation_makes_min_max_private(spec_runs):
    _, ma = spec_runs
    for s in ("min", "max"):
        assert ma.loc[s, "integrally_private"]
        assert ma.loc[s, "frequency"] == 1000
    assert ma.loc["count", "value"] == 1000


def test_results_frame_layout(spec_runs):
    raw, _ = spec_runs
    assert list(raw.columns) == [
        "column",
        "value",
        "frequency",
        "empty_intersection",
        "integrally_private",
    ]
    assert (raw["integrally_private"] == raw["empty_intersection"]).all()
    assert (raw.loc[raw["integrally_private"], "frequency"] > 2).all()


def test_determinism_and_n_jobs(normal_1000):
    X = np.hstack([normal_1000, normal_1000 * 3])
    a = IntegralPrivateStatistics(n_resamples=200, random_state=7).fit(X).results_
    # each column has its own stream, so parallel columns give the same answer
    with parallel_config(backend="threading"):
        b = (
            IntegralPrivateStatistics(n_resamples=200, random_state=7, n_jobs=2)
            .fit(X)
            .results_
        )
    pd.testing.assert_frame_equal(a, b)
    c = IntegralPrivateStatistics(n_resamples=200, random_state=8).fit(X).results_
    assert not a["frequency"].equals(c["frequency"])
    gen = np.random.default_rng(3)
    d = IntegralPrivateStatistics(n_resamples=200, random_state=gen).fit(X).results_
    e = IntegralPrivateStatistics(n_resamples=200, random_state=gen).fit(X).results_
    assert not d["frequency"].equals(e["frequency"])  # a Generator advances


def test_describe_shape_missing_values_and_non_numeric():
    rng = np.random.default_rng(0)
    df = pd.DataFrame(
        {
            "age": rng.integers(18, 90, 300).astype(float),
            "name": ["x"] * 300,
            "score": rng.normal(size=300),
        }
    )
    df.loc[:49, "age"] = np.nan
    with pytest.warns(UserWarning, match="non-numeric columns \\['name'\\]"):
        table = integral_describe(
            df, n_resamples=300, min_cluster_size=10, decimals=0, random_state=0
        )
    assert list(table.index) == DESCRIBE_INDEX
    assert list(table.columns) == ["age", "score"]
    assert table.loc["count", "age"] == 250  # non-missing, as describe
    assert table.loc["count", "score"] == 300
    truth = df.describe()
    for col in ("age", "score"):
        assert abs(table.loc["mean", col] - truth.loc["mean", col]) < 4 * truth.loc[
            "std", col
        ] / np.sqrt(truth.loc["count", col])


def test_describe_subset_of_statistics_and_series():
    s = pd.Series(np.arange(100.0), name="v")
    table = integral_describe(
        s, statistics=("sum", "count"), n_resamples=100, random_state=0
    )
    assert list(table.index) == ["count", "sum"] and list(table.columns) == ["v"]
    assert table.loc["count", "v"] == 100


def test_frequencies_table(normal_1000):
    est = IntegralPrivateStatistics(
        n_resamples=300, min_cluster_size=20, random_state=0
    )
    freq = est.fit(pd.DataFrame({"a": normal_1000[:, 0]})).frequencies()
    assert freq.loc["count", "a"] == 300
    assert freq.shape == (9, 1)


def test_na_when_the_threshold_cannot_be_met():
    x = np.random.default_rng(0).normal(size=(100, 1))
    est = IntegralPrivateStatistics(
        statistics=("mean",), n_resamples=50, decimals=None, random_state=0
    ).fit(x)
    row = est.results_.iloc[0]
    assert np.isnan(row["value"]) and row["frequency"] == 0
    assert not row["integrally_private"] and not row["empty_intersection"]
    # a frequency threshold above the number of resamples can never be met
    est = IntegralPrivateStatistics(
        statistics=("count",), n_resamples=5, min_frequency=5, random_state=0
    ).fit(x)
    assert np.isnan(est.results_["value"].iloc[0])
    assert est.describe().isna().all().all()


def test_negative_decimals_round_to_tens():
    x = np.random.default_rng(0).uniform(0, 1000, size=(500, 1))
    res = (
        IntegralPrivateStatistics(
            statistics=("mean", "sum"), n_resamples=300, decimals=-1, random_state=0
        )
        .fit(x)
        .results_
    )
    mean = res.loc[res.statistic == "mean", "value"].iloc[0]
    assert mean % 10 == 0 and abs(mean - x.mean()) < 30


def test_least_error_selection_warns():
    x = np.random.default_rng(0).normal(size=(200, 1))
    est = IntegralPrivateStatistics(
        statistics=("mean",), n_resamples=300, decimals=1, selection="least_error"
    )
    with pytest.warns(PrivacyLeakWarning, match="leaks"):
        est.fit(x)
    assert est.results_["value"].iloc[0] == pytest.approx(round(x.mean(), 1))


def test_default_selection_does_not_warn():
    x = np.random.default_rng(0).normal(size=(50, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        IntegralPrivateStatistics(n_resamples=20, random_state=0).fit(x)


@pytest.mark.parametrize(
    ("params", "match"),
    [
        ({"min_frequency": 1}, "'min_frequency' parameter"),
        ({"n_resamples": 0}, "'n_resamples' parameter"),
        ({"decimals": 1.5}, "'decimals' parameter"),
        ({"min_cluster_size": 0}, "'min_cluster_size' parameter"),
        ({"selection": "best"}, "'selection' parameter"),
    ],
)
def test_bad_parameters(params, match):
    with pytest.raises(InvalidParameterError, match=match):
        IntegralPrivateStatistics(**params).fit(np.ones((10, 1)))


def test_unknown_or_empty_statistics():
    with pytest.raises(ValueError, match="unknown names \\['mode'\\]"):
        IntegralPrivateStatistics(statistics=("mean", "mode")).fit(np.ones((10, 1)))
    with pytest.raises(ValueError, match="at least one statistic"):
        IntegralPrivateStatistics(statistics=()).fit(np.ones((10, 1)))


def test_bad_data():
    est = IntegralPrivateStatistics(n_resamples=10)
    with pytest.raises(ValueError, match="0 sample"):
        est.fit(np.empty((0, 2)))
    with pytest.raises(ValueError, match="'b' has only missing values"):
        est.fit(pd.DataFrame({"a": [1.0, 2.0], "b": [np.nan, np.nan]}))
    with (
        pytest.raises(ValueError, match="at least one numeric column"),
        pytest.warns(UserWarning),
    ):
        est.fit(pd.DataFrame({"s": ["a", "b"]}))
    with pytest.raises(ValueError, match="infinity"):
        est.fit(np.array([[1.0], [np.inf]]))
    with pytest.raises(TypeError, match="X column 0 must be numeric"):
        est.fit(np.array([["a"], ["b"]], dtype=object))
    with pytest.raises(ValueError, match="2D array"):
        est.fit(np.arange(5.0))


def test_unfitted_describe():
    from sklearn.exceptions import NotFittedError

    with pytest.raises(NotFittedError):
        IntegralPrivateStatistics().describe()


def test_privacy_summary():
    summary = IntegralPrivateStatistics(min_cluster_size=20).privacy_summary()
    assert summary["notion"].startswith("integral privacy")
    assert summary["min_cluster_size"] == 20 and not summary["reads_true_statistic"]
    summary = IntegralPrivateStatistics(selection="least_error").privacy_summary()
    assert summary["reads_true_statistic"]


@pytest.mark.parametrize("method", ["consecutive", "optimal"])
def test_microaggregation_choice(normal_1000, method):
    est = IntegralPrivateStatistics(
        statistics=("min", "max", "mean"),
        n_resamples=300,
        min_cluster_size=20,
        microaggregation=method,
        random_state=0,
    ).fit(normal_1000)
    table = est.describe()
    assert table.notna().all().all()
    # the released max is the mean of the top cluster: below the true max
    top = np.sort(normal_1000[:, 0])[-39:]
    assert top.mean() - 0.5 < table.loc["max", "x0"] < normal_1000.max()
    assert integral_describe(
        normal_1000,
        statistics=("min", "max", "mean"),
        n_resamples=300,
        min_cluster_size=20,
        random_state=0,
    ).equals(
        IntegralPrivateStatistics(
            statistics=("min", "max", "mean"),
            n_resamples=300,
            min_cluster_size=20,
            random_state=0,
        )
        .fit(normal_1000)
        .describe()
    )
