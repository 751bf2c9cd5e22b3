"""Exact checks of the integrally private statistics estimator's own code.

:class:`~skprivate.IntegralPrivateStatistics` validates the table, gives each
column its own resampling stream, microaggregates before the release when
asked, and lays the released answers out.  The release itself
(:func:`~skprivate.integral._resampling.integral_private_column`) has its own
checks; here it is replaced by a recorder where what matters is what the
estimator hands it.  Spec ``integral_statistics`` of
``benchmarks/_mutation_specs_integral_release.py``.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest

import skprivate.integral._statistics as S
from skprivate.exceptions import InvalidParameterError, PrivacyLeakWarning
from skprivate.integral import IntegralPrivateStatistics, integral_describe
from skprivate.integral._release_seed import release_generator
from skprivate.integral._resampling import STATISTICS
from skprivate.utils._seeding import canonical, data_fingerprint, words


class _Recorder:
    """Stands in for the release: records its arguments, answers by rule."""

    def __init__(self):
        self.calls = []

    def __call__(
        self,
        col,
        statistics,
        n_resamples,
        decimals,
        min_freq,
        seed,
        selection,
        n_threads=1,
    ):
        self.calls.append(
            {
                "col": np.array(col),
                "statistics": statistics,
                "n_resamples": n_resamples,
                "decimals": decimals,
                "min_frequency": min_freq,
                "seed": seed,
                "selection": selection,
                "n_threads": n_threads,
            }
        )
        out = []
        for i, name in enumerate(statistics):
            private = i % 2 == 0
            out.append(
                _Answer(
                    statistic=name,
                    value=float(len(self.calls) * 100 + i) if private else np.nan,
                    frequency=7 + i if private else 0,
                    n_candidates=3,
                    max_frequency=9,
                    empty_intersection=private,
                )
            )
        return out


class _Answer:
    def __init__(self, **kw):
        self.__dict__.update(kw)


@pytest.fixture
def recorder(monkeypatch):
    rec = _Recorder()
    monkeypatch.setattr(S, "integral_private_column", rec)
    return rec


def _table(n=40, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {"b": rng.normal(5, 1, n), "a": rng.normal(0, 2, n), "c": rng.integers(0, 9, n)}
    )


def test_each_column_gets_its_own_seed_from_the_estimators_generator(recorder):
    X = _table()
    est = IntegralPrivateStatistics(statistics=["mean", "max"], random_state=11)
    est.fit(X)
    seeds = [c["seed"] for c in recorder.calls]
    # an int seed mixed with the settings (all but n_jobs) and the table
    settings = est.get_params(deep=False)
    del settings["n_jobs"], settings["random_state"]
    table = (["b", "a", "c"], X.to_numpy(dtype=float))
    rng = release_generator(11, settings, table)
    expected = rng.integers(0, 2**63 - 1, size=3)
    assert seeds == [int(s) for s in expected]
    assert all(type(s) is int for s in seeds)
    assert len(set(seeds)) == 3
    # a Generator is a source of entropy: four words drawn from it (so it
    # advances), mixed with the settings and the table, as an int seed is
    rng = np.random.default_rng(5)
    est = IntegralPrivateStatistics(statistics=["mean"], random_state=rng).fit(X)
    source = np.random.default_rng(5)
    drawn = [int(w) for w in source.integers(0, 2**63 - 1, size=4)]
    assert rng.bit_generator.state == source.bit_generator.state
    settings = est.get_params(deep=False)
    del settings["n_jobs"], settings["random_state"]
    entropy = [*drawn, *words(data_fingerprint((canonical(settings), table)))]
    mixed = np.random.default_rng(np.random.SeedSequence(entropy))
    again = mixed.integers(0, 2**63 - 1, size=3)
    assert [c["seed"] for c in recorder.calls[3:]] == [int(s) for s in again]


def test_the_release_gets_every_setting_and_each_columns_values(recorder):
    X = _table()
    X.loc[3, "a"] = np.nan
    IntegralPrivateStatistics(
        statistics=["max", "mean", "count"],
        n_resamples=123,
        decimals=-1,
        min_frequency=5,
        random_state=0,
        selection="frequency",
    ).fit(X)
    assert len(recorder.calls) == 3
    for call, name in zip(recorder.calls, ["b", "a", "c"]):
        values = X[name].to_numpy(float)
        np.testing.assert_array_equal(call["col"], values[~np.isnan(values)])
        # in describe order, whatever order they were asked in
        assert call["statistics"] == ("count", "mean", "max")
        assert call["n_resamples"] == 123
        assert call["decimals"] == -1
        assert call["min_frequency"] == 5
        assert call["selection"] == "frequency"
    assert recorder.calls[1]["col"].size == 39


def test_microaggregation_precedes_the_release_with_the_chosen_method(
    recorder, monkeypatch
):
    seen = []

    def aggregate(col, k, method):
        seen.append((np.array(col), k, method))
        return np.full_like(col, float(k)), None

    monkeypatch.setattr(S, "microaggregate", aggregate)
    X = _table()
    IntegralPrivateStatistics(
        statistics=["min"],
        min_cluster_size=4,
        microaggregation="optimal",
        random_state=0,
    ).fit(X)
    assert [(k, m) for _, k, m in seen] == [(4, "optimal")] * 3
    for (col, _, _), name in zip(seen, ["b", "a", "c"]):
        np.testing.assert_array_equal(col, X[name].to_numpy(float))
    # the release sees the aggregated values only
    for call in recorder.calls:
        np.testing.assert_array_equal(call["col"], np.full(40, 4.0))
    seen.clear()
    IntegralPrivateStatistics(statistics=["min"], random_state=0).fit(X)
    assert seen == []


class _SequentialParallel:
    """joblib.Parallel run in this process, recording its n_jobs."""

    used: ClassVar[list] = []

    def __init__(self, n_jobs=None):
        self.used.append(n_jobs)

    def __call__(self, tasks):
        return [f(*args, **kw) for f, args, kw in tasks]


@pytest.mark.parametrize(
    ("n_jobs", "n_columns", "threads"),
    [(1, 1, 1), (2, 1, 2), (2, 2, 1), (2, 3, 1), (None, 1, 1), (-1, 1, None)],
)
def test_columns_in_parallel_or_threads_within_a_column(
    recorder, monkeypatch, n_jobs, n_columns, threads
):
    # fewer columns than workers: the workers share each column's resamples
    # as threads (no process pool); otherwise one column per worker
    from joblib import effective_n_jobs

    monkeypatch.setattr(S, "Parallel", _SequentialParallel)
    _SequentialParallel.used = []
    X = _table().iloc[:, :n_columns]
    IntegralPrivateStatistics(statistics=["mean"], n_jobs=n_jobs, random_state=0).fit(X)
    workers = effective_n_jobs(n_jobs)
    if threads is None:
        threads = 1 if n_columns >= workers else workers
    assert [c["n_threads"] for c in recorder.calls] == [threads] * n_columns
    assert _SequentialParallel.used == ([n_jobs] if threads == 1 else [])


def test_results_lay_out_every_answer_and_flag_the_private_ones(recorder):
    X = _table()
    est = IntegralPrivateStatistics(statistics=["median", "min", "max"], random_state=0)
    est.fit(X)
    r = est.results_
    assert list(r.columns) == [
        "column",
        "statistic",
        "value",
        "frequency",
        "empty_intersection",
        "integrally_private",
    ]
    assert list(r["column"]) == ["b"] * 3 + ["a"] * 3 + ["c"] * 3
    assert list(r["statistic"]) == ["min", "median", "max"] * 3
    np.testing.assert_array_equal(r["integrally_private"], ~r["value"].isna())
    assert list(r["integrally_private"]) == [True, False, True] * 3
    assert r["value"].iloc[0] == 100.0 and r["value"].iloc[8] == 302.0
    table = est.describe()
    assert list(table.index) == ["min", "median", "max"]
    assert list(table.columns) == ["b", "a", "c"]
    assert table.index.name is None and table.columns.name is None
    assert table.loc["max", "a"] == 202.0
    assert np.isnan(table.loc["median", "c"])
    freq = est.frequencies()
    assert list(freq.index) == ["min", "median", "max"]
    assert list(freq.columns) == ["b", "a", "c"]
    assert freq.index.name is None and freq.columns.name is None
    assert freq.loc["max", "c"] == 9 and freq.loc["median", "b"] == 0


def test_array_input_names_columns_by_position(recorder):
    X = _table().to_numpy(float)
    est = IntegralPrivateStatistics(statistics=["mean"], random_state=0).fit(X)
    assert list(est.results_["column"]) == ["x0", "x1", "x2"]
    assert est.skipped_columns_ == []


def test_non_numeric_columns_are_skipped_with_a_warning(recorder):
    X = _table()
    X["name"] = ["p"] * len(X)
    X["flag"] = True
    with pytest.warns(
        UserWarning, match=r"skips non-numeric columns \['name', 'flag'\]"
    ):
        est = IntegralPrivateStatistics(statistics=["mean"], random_state=0).fit(X)
    assert est.skipped_columns_ == ["name", "flag"]
    assert list(est.describe().columns) == ["b", "a", "c"]


def test_least_error_selection_warns_that_it_leaks(recorder):
    with pytest.warns(PrivacyLeakWarning, match="leaks it; use selection='frequency'"):
        IntegralPrivateStatistics(
            statistics=["mean"], selection="least_error", random_state=0
        ).fit(_table())
    assert recorder.calls[0]["selection"] == "least_error"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        IntegralPrivateStatistics(statistics=["mean"], random_state=0).fit(_table())


def test_privacy_summary_states_the_release_rule():
    est = IntegralPrivateStatistics(
        n_resamples=300, min_frequency=4, min_cluster_size=6, decimals=1
    )
    assert est.privacy_summary() == {
        "notion": "integral privacy: many generators, none shared record",
        "n_resamples": 300,
        "min_frequency": 4,
        "min_cluster_size": 6,
        "decimals": 1,
        "selection": "frequency",
        "reads_true_statistic": False,
    }
    est.set_params(selection="least_error")
    assert est.privacy_summary()["reads_true_statistic"] is True


def test_zero_jobs_is_refused_by_name():
    with pytest.raises(InvalidParameterError, match="'n_jobs' parameter of Integral"):
        IntegralPrivateStatistics(n_jobs=0).fit(_table())


def test_statistics_are_checked_and_ordered():
    assert S.check_statistics("max") == ("max",)
    assert S.check_statistics(["sum", "count", "mean"]) == ("count", "mean", "sum")
    assert S.check_statistics(list(STATISTICS)[::-1]) == tuple(STATISTICS)
    with pytest.raises(TypeError, match="statistics must be a sequence of statistic"):
        S.check_statistics(3)
    with pytest.raises(ValueError, match="must name at least one statistic; got none"):
        S.check_statistics([])
    with pytest.raises(ValueError, match=r"unknown names \['avg'\]"):
        S.check_statistics(["mean", "avg"])


def test_infinity_is_refused_with_its_row_and_column():
    X = _table().astype(float)
    X.loc[7, "a"] = -np.inf
    X.loc[9, "c"] = np.inf
    with pytest.raises(ValueError, match="infinity at row 7, column 'a'"):
        IntegralPrivateStatistics(statistics=["mean"]).fit(X)
    A = X.to_numpy(float)
    with pytest.raises(ValueError, match="infinity at row 7, column 1;"):
        IntegralPrivateStatistics(statistics=["mean"]).fit(A)
    # NaN is a missing value, not refused
    S._check_not_infinite(np.array([[np.nan, 1.0]]))
    S._check_not_infinite(np.array([1.0, np.inf]))  # one-dimensional: left to sklearn
    S._check_not_infinite([["a", "b"]])


def test_magnitudes_that_overflow_the_sums_are_refused():
    n = 4
    limit = np.finfo(np.float64).max / (4.0 * n)
    X = np.zeros((n, 2))
    X[2, 1] = limit * 1.5
    with pytest.raises(
        ValueError,
        match=r"column 'q' holds a value too large for the sums of \['mean', 'sum'\] "
        r"at row 2 \(1 such rows\): with 4 rows",
    ):
        S._check_magnitudes(X, ["p", "q"], ("mean", "sum", "max"))
    # just below the limit of the mean and sum: accepted
    X[2, 1] = limit * 0.99
    S._check_magnitudes(X, ["p", "q"], ("mean",))
    # the variance squares deviations: the limit is its square root
    with pytest.raises(ValueError, match=r"\['var'\] at row 2"):
        S._check_magnitudes(X, ["p", "q"], ("var",))
    Y = np.zeros((n, 1))
    Y[0] = np.sqrt(limit) * 0.99
    S._check_magnitudes(Y, ["p"], ("std",))
    Y[0] = np.sqrt(limit) * 1.01
    with pytest.raises(ValueError, match=r"\['std'\] at row 0"):
        S._check_magnitudes(Y, ["p"], ("std", "min"))
    # order statistics do not add: no limit
    S._check_magnitudes(np.full((n, 2), 1e308), ["p", "q"], ("min", "max", "median"))
    S._check_magnitudes(np.zeros((0, 2)), ["p", "q"], ("mean",))


def test_column_values_drop_missing_and_refuse_empty_columns():
    X = np.array([[1.0, np.nan], [np.nan, np.nan], [3.0, np.nan]])
    with pytest.raises(ValueError, match="Column 'v' has only missing values."):
        S.column_values(X, ["u", "v"])
    out = S.column_values(X[:, :1], ["u"])
    np.testing.assert_array_equal(out[0], [1.0, 3.0])
    with pytest.raises(ValueError, match="X has no rows"):
        S.column_values(np.zeros((0, 1)), ["u"])


def test_numeric_frame_rules():
    assert S.numeric_frame(np.zeros((2, 2)), "f") == (None, [])
    df = pd.DataFrame([[1.0, 2.0]], columns=["a", "a"])
    with pytest.raises(
        ValueError,
        match=r"f needs unique column names; X has duplicate columns \['a'\]",
    ):
        S.numeric_frame(df, "f")
    with (
        pytest.raises(ValueError, match=r"g needs at least one numeric column in df"),
        warnings.catch_warnings(),
    ):
        warnings.simplefilter("ignore")
        S.numeric_frame(pd.DataFrame({"s": ["x"]}), "g", arg="df")


def _recording_estimator(monkeypatch) -> dict:
    """Replace the estimator integral_describe builds; record what it gets."""
    seen: dict = {}

    class Fake:
        def __init__(self, **kw):
            seen.update(kw)

        def fit(self, df):
            seen["df"] = df
            return self

        def describe(self):
            return "table"

    monkeypatch.setattr(S, "IntegralPrivateStatistics", Fake)
    return seen


def test_integral_describe_passes_every_setting(monkeypatch):
    seen = _recording_estimator(monkeypatch)
    s = pd.Series([1.0, 2.0, 3.0], name="v")
    out = integral_describe(
        s,
        statistics=["mean"],
        n_resamples=50,
        min_cluster_size=3,
        decimals=0,
        min_frequency=4,
        random_state=9,
        n_jobs=2,
    )
    assert out == "table"
    assert isinstance(seen.pop("df"), pd.DataFrame)
    assert seen == {
        "statistics": ["mean"],
        "n_resamples": 50,
        "min_cluster_size": 3,
        "decimals": 0,
        "min_frequency": 4,
        "random_state": 9,
        "n_jobs": 2,
    }
    with pytest.raises(ValueError, match="df has no rows"):
        integral_describe(pd.DataFrame({"a": []}, dtype=float))


@pytest.mark.parametrize("asked", ["mean", "sum", "std", "var"])
def test_each_adding_statistic_alone_has_its_magnitude_limit(asked):
    n = 3
    limit = np.finfo(np.float64).max / (4.0 * n)
    if asked in ("std", "var"):
        limit = np.sqrt(limit)
    X = np.zeros((n, 1))
    X[1, 0] = limit
    S._check_magnitudes(X, ["v"], (asked,))  # at the limit: accepted
    X[1, 0] = -limit * 1.0001
    with pytest.raises(ValueError, match=rf"\['{asked}'\] at row 1 \(1 such rows\)"):
        S._check_magnitudes(X, ["v"], (asked, "max"))


def test_a_single_value_is_checked_too():
    limit = np.finfo(np.float64).max / 4.0
    with pytest.raises(ValueError, match=r"with 1 rows every \|value\| must stay"):
        S._check_magnitudes(np.array([[limit * 2]]), ["v"], ("sum",))


def test_magnitude_refusal_is_the_whole_message():
    X = np.array([[1.0], [1e308]])
    with pytest.raises(ValueError) as info:
        S._check_magnitudes(X, ["big"], ("mean",))
    assert str(info.value) == (
        "X column 'big' holds a value too large for the sums of ['mean'] at row "
        "1 (1 such rows): with 2 rows every |value| must stay below 2.25e+307 "
        "for them to be finite in float64. Rescale the column (e.g. change units)."
    )


def test_missing_values_pass_the_magnitude_check_silently():
    X = np.array([[np.nan], [1.0]])
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        S._check_magnitudes(X, ["v"], ("var",))


def test_infinity_refusal_is_the_whole_message():
    with pytest.raises(ValueError) as info:
        S._check_not_infinite(np.array([[1.0, 2.0], [3.0, np.inf]]))
    assert str(info.value) == (
        "X contains infinity at row 1, column 1; values must be finite (NaN "
        "marks a missing value)."
    )


def test_whole_messages_of_empty_inputs():
    with pytest.raises(ValueError) as info:
        S.check_statistics(())
    assert str(info.value) == "statistics must name at least one statistic; got none."
    with pytest.raises(ValueError) as info:
        S.column_values(np.zeros((0, 2)), ["u", "v"])
    assert str(info.value) == "X has no rows; descriptive statistics need data."
    with pytest.raises(ValueError) as info:
        integral_describe(pd.DataFrame({"a": []}, dtype=float))
    assert str(info.value) == "df has no rows; descriptive statistics need data."


def test_integral_describe_names_itself_and_df_in_its_messages():
    df = pd.DataFrame({"a": np.arange(30.0), "s": ["x"] * 30})
    with pytest.warns(UserWarning) as caught:
        integral_describe(df, statistics=["median"], n_resamples=20, random_state=0)
    assert [str(w.message) for w in caught] == [
        "integral_describe skips non-numeric columns ['s']."
    ]
    assert caught[0].category is UserWarning  # once, not again by the fit
    with pytest.raises(ValueError) as info, warnings.catch_warnings():
        warnings.simplefilter("ignore")
        integral_describe(pd.DataFrame({"s": ["x", "y"]}))
    assert str(info.value) == (
        "integral_describe needs at least one numeric column in df; got none."
    )


def test_integral_describe_defaults(monkeypatch):
    seen = _recording_estimator(monkeypatch)
    integral_describe(pd.DataFrame({"a": [1.0, 2.0]}))
    assert isinstance(seen.pop("df"), pd.DataFrame)
    assert seen == {
        "statistics": S.DEFAULT_STATISTICS,
        "n_resamples": 1000,
        "min_cluster_size": None,
        "decimals": 2,
        "min_frequency": 2,
        "random_state": None,
        "n_jobs": None,
    }


def test_estimator_defaults_and_tags():
    params = IntegralPrivateStatistics().get_params()
    assert params == {
        "statistics": S.DEFAULT_STATISTICS,
        "n_resamples": 1000,
        "min_cluster_size": None,
        "decimals": 2,
        "min_frequency": 2,
        "random_state": None,
        "n_jobs": None,
        "selection": "frequency",
        "microaggregation": "consecutive",
    }
    assert IntegralPrivateStatistics().__sklearn_tags__().input_tags.allow_nan is True


def test_only_polars_frames_are_converted():
    class HasSchema:
        def __init__(self):
            self.schema = {"a": None}

    obj = HasSchema()
    assert S._polars_as_pandas(obj) is obj
    df = pd.DataFrame({"a": [1.0]})
    assert S._polars_as_pandas(df) is df


def test_polars_frames_read_as_pandas_with_nulls_as_nan():
    pl = pytest.importorskip("polars")
    X = pl.DataFrame(
        {"n": [1, None, 3], "f": [0.5, 1.5, None], "k": [4, 5, 6], "s": ["a", "b", "c"]}
    )
    out = S._polars_as_pandas(X)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns) == ["n", "f", "k", "s"]
    np.testing.assert_array_equal(out["n"].to_numpy(), [1.0, np.nan, 3.0])
    np.testing.assert_array_equal(out["f"].to_numpy(), [0.5, 1.5, np.nan])
    assert out["k"].dtype.kind == "i"  # no nulls: kept as integers
    np.testing.assert_array_equal(out["k"].to_numpy(), [4, 5, 6])
    assert list(out["s"]) == ["a", "b", "c"]
    frame, skipped = S.numeric_frame(X.drop("s"), "f")
    assert skipped == [] and list(frame.columns) == ["n", "f", "k"]
