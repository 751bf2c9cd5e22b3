"""Side doors: raw data that would leave without the privacy mechanism.

Each test is one path by which raw input (a raw value, a raw row, a
statistic of the raw data that is not the documented release) reached
something that leaves the data holder's hands: the row labels of a dask
release and their divisions, a statistic kept by the MDAV microaggregator,
a headerless file's first record in the command line's errors, and the
row positions a filter kept in a pandas release.  Each failed on the code
before its fix.
"""

from __future__ import annotations

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest

from skprivate import LaplaceLDP
from skprivate.__main__ import main
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.integral import Microaggregator


# -- HIGH: dask release carries the raw row labels, silently -------------------
def test_dask_frame_release_does_not_silently_carry_the_raw_index():
    """A dask DataFrame release keeps ``X``'s index (and ``divisions``) unwarned.

    ``skprivate/utils/_dask.py:_frame_block`` builds every released
    partition as ``pd.DataFrame(out, columns=names, index=part.index)``, and
    ``dask_transform`` maps it with the collection's divisions.  The index
    of the raw collection (respondent names, or a raw value set as the
    index, e.g. ``set_index("income")``) is thus published with the release,
    and its divisions (the raw minimum/maximum label of each partition) are
    readable on the lazy result before anything is computed.  The in-memory
    path does not do this silently: its default output is an array without
    labels, and the pandas output warns with a ``PrivacyLeakWarning``
    (``skprivate/base.py:_warn_kept_index``).  The dask path neither drops
    the labels nor warns.
    """
    dd = pytest.importorskip("dask.dataframe")
    incomes = [51234.5, 70000.25, 12345.75, 99999.0]
    raw = pd.DataFrame({"age": [20.0, 30.0, 40.0, 50.0], "income": incomes})
    X = dd.from_pandas(raw.set_index("income"), npartitions=2)
    lap = LaplaceLDP(epsilon=1.0, bounds=(0, 100))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        lap.fit(X)
        lazy = lap.transform(X)
        released = lazy.compute()
    warned = any(issubclass(w.category, PrivacyLeakWarning) for w in caught)
    carried = set(released.index.tolist()) & set(incomes)
    in_divisions = {d for d in lazy.divisions if d is not None} & set(incomes)
    assert warned or not (carried or in_divisions), (
        "the dask release publishes the raw index values "
        f"{sorted(carried | in_divisions)} with no PrivacyLeakWarning"
    )
    # indexed by position in the collection, with no divisions known
    assert released.index.tolist() == [0, 1, 2, 3]
    assert not lazy.known_divisions
    assert not warned


# -- HIGH: Microaggregator(method="mdav") pickles the raw standard deviation ---
def test_mdav_microaggregator_keeps_no_statistic_beyond_its_release():
    """``Microaggregator(method="mdav")`` stores the raw data's standard deviation.

    ``skprivate/integral/_microaggregation.py:Microaggregator._fit`` (the
    ``mdav`` branch) sets ``self._scale = X.std(axis=0)`` of the raw
    records.  It is not part of the release (the centroids) and travels with
    every pickle/joblib/deepcopy of the fitted object.  With the released
    centroid ``m`` of a cluster and ``_scale`` ``s``, a cluster of two
    records (``min_cluster_size=2`` on two rows, the documented "one
    cluster" case) gives both raw values back exactly: ``m - s`` and
    ``m + s``.  Two tables with the same release (same centroids, same
    labels) must give the same fitted state.
    """
    a = np.array([[3.0, 100.0], [11.0, 140.0]])
    b = np.array([[6.0, 110.0], [8.0, 130.0]])  # same centroids (7, 120)
    fits = [Microaggregator(min_cluster_size=2, method="mdav").fit(X) for X in (a, b)]
    releases = [m.fit_transform(X) for m, X in zip(fits, (a, b))]
    assert np.array_equal(releases[0], releases[1])  # the release is the same
    # so nothing in the fitted objects may tell the two tables apart
    state_a = {k: pickle.dumps(v) for k, v in vars(fits[0]).items()}
    state_b = {k: pickle.dumps(v) for k, v in vars(fits[1]).items()}
    differ = sorted(k for k in state_a if state_a[k] != state_b.get(k))
    assert not differ, f"fitted Microaggregator keeps raw statistics in {differ}"
    # and the pickle must not let the raw values be rebuilt
    blob = pickle.loads(pickle.dumps(fits[0]))
    centre = blob.centroids_[0]
    for name, value in vars(blob).items():
        if isinstance(value, np.ndarray) and value.shape == centre.shape:
            if name == "centroids_":
                continue
            rebuilt = np.sort(np.stack([centre - value, centre + value]), axis=0)
            assert not np.allclose(rebuilt, np.sort(a, axis=0)), (
                f"centroids_ and {name} rebuild the raw records"
            )


# -- LOW: a headerless CSV with another separator prints its first record ------
def test_cli_does_not_print_the_first_record_of_a_headerless_file(tmp_path, capsys):
    """``privatize`` prints a respondent's record when the header is missing.

    ``skprivate/_cli/io.py:select_columns`` withholds the first line of a
    file whose "column names" look like numbers ("not shown: it may be a
    respondent's record"), but a headerless file separated by ``;`` is read
    as one column named after the whole first record, ``'34;55012.5'``,
    which is not a number as a whole: the record is then printed to stderr
    twice, once in ``it has ...`` and once by ``delimiter_hint``.  Error
    output ends up in logs (CI, schedulers).  Only on the holder's machine,
    hence low severity.
    """
    source = tmp_path / "survey.csv"
    source.write_text("34;55012.5\n41;72011.25\n")
    code = main(
        [
            "privatize",
            str(source),
            "-o",
            str(tmp_path / "out.csv"),
            "--mechanism",
            "laplace",
            "--columns",
            "age",
            "--bounds",
            "0,100",
            "--param",
            "epsilon=1",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2  # refused, as it should be
    for raw in ("55012", "34;55"):
        assert raw not in err, f"the first record is printed: {err.strip()}"
    assert (
        "its first line (2 fields, some of them numbers) does not look like a "
        "header; the file needs a first line naming its columns (not shown: it "
        "may be a respondent's record) (the header was read as one column: the "
        "file seems to be separated by ';'; pass --delimiter ';')"
    ) in err


# -- HIGH: the rows a filter kept leave in a RangeIndex, unwarned --------------
def test_pandas_release_warns_for_the_rows_a_filter_kept():
    """A filtered frame's row labels are released with no warning (pandas >= 3).

    ``skprivate/base.py:_output_container`` copies ``X.index`` into the
    pandas release and warns (``_warn_kept_index``) only when the index is
    not a ``pd.RangeIndex``; the warning itself names "the rows a filter
    kept" as what must not leave unannounced.  Since pandas 3 a boolean
    filter whose kept rows are evenly spaced returns a ``RangeIndex``
    (``df[df.status == "positive"]`` on rows 1, 3, 5 gives
    ``RangeIndex(1, 7, 2)``; a contiguous block gives ``RangeIndex(k, m)``),
    so the release publishes exactly which respondents (by their row in
    the raw table) met a condition on raw values, with no
    ``PrivacyLeakWarning``.  Only ``RangeIndex(0, n, 1)`` labels nothing.
    """
    raw = pd.DataFrame(
        {
            "age": [20.0, 30.0, 40.0, 50.0, 60.0, 70.0],
            "status": ["neg", "pos", "neg", "pos", "neg", "pos"],
        }
    )
    kept = raw[raw["status"] == "pos"][["age"]]  # rows 1, 3 and 5
    lap = LaplaceLDP(epsilon=1.0, bounds=(0, 100)).set_output(transform="pandas")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        released = lap.fit_transform(kept)
    warned = any(issubclass(w.category, PrivacyLeakWarning) for w in caught)
    assert isinstance(released.index, pd.RangeIndex)
    assert warned or released.index.tolist() != [1, 3, 5], (
        f"the release carries the filtered rows {released.index.tolist()} "
        f"({type(released.index).__name__}) with no PrivacyLeakWarning"
    )


def test_a_record_read_as_the_header_is_never_quoted():
    """The same rule for every message that lists the columns read."""
    from skprivate._cli.io import (
        delimiter_hint,
        header_fields,
        header_is_a_record,
        header_text,
    )

    record = pd.DataFrame({"34;55012.5": [1]})
    assert header_fields(record) == ["34", "55012.5"]
    assert header_is_a_record(record)
    assert header_text(record) == (
        "2 fields, some of them numbers (not shown: it may be a respondent's record)"
    )
    assert delimiter_hint(record) == (
        " (the header was read as one column: the file seems to be separated by "
        "';'; pass --delimiter ';')"
    )
    tabbed = pd.DataFrame({"x\t7": [1]})
    assert header_fields(tabbed) == ["x", "7"] and header_is_a_record(tabbed)
    piped = pd.DataFrame({"a|b|-1e3": [1]})
    assert header_fields(piped) == ["a", "b", "-1e3"] and header_is_a_record(piped)
    words = pd.DataFrame({"age;id": [1]})
    assert not header_is_a_record(words)
    assert header_text(words) == "age;id"
    assert "one column 'age;id'" in delimiter_hint(words)
    several = pd.DataFrame({"age": [1], "7": [2]})
    assert header_fields(several) == ["age", "7"] and header_is_a_record(several)
    assert header_text(several).startswith("2 fields, some of them numbers")


def test_estimate_does_not_print_the_first_record_of_a_headerless_file(
    tmp_path, capsys
):
    source = tmp_path / "private.csv"
    source.write_text("34.5;55012.5\n41.25;72011.25\n")
    code = main(
        [
            "estimate",
            str(source),
            "--estimator",
            "integral",
            "--columns",
            "age",
        ]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert err == (
        f"error: estimator 'integral' expects column(s) age in {source}; it has 2 "
        "fields, some of them numbers (not shown: it may be a respondent's record) "
        "(the header was read as one column: the file seems to be separated by "
        "';'; pass --delimiter ';')\n"
    )
    assert "55012" not in err and "34.5" not in err, err


def test_integral_statistics_keep_nothing_about_the_values_not_released():
    """The fitted object is the release: a suppressed statistic is a bare NA.

    ``results_`` also held ``n_candidates`` and ``max_frequency``: for a raw
    maximum held by one record the most frequent value was drawn in about
    63% of the resamples (those holding that record), which says the
    maximum is one record's although nothing was released.
    """
    from skprivate.integral import IntegralPrivateStatistics

    x = np.random.default_rng(0).normal(10.0, 2.0, size=(300, 1))
    est = IntegralPrivateStatistics(
        statistics=["mean", "max"], n_resamples=300, random_state=0
    ).fit(x)
    assert sorted(vars(est)) == sorted(
        [*est.get_params(), "n_features_in_", "skipped_columns_", "results_"]
    )
    results = est.results_
    assert list(results.columns) == [
        "column",
        "statistic",
        "value",
        "frequency",
        "empty_intersection",
        "integrally_private",
    ]
    suppressed = results.set_index("statistic").loc["max"]
    assert np.isnan(suppressed["value"]) and suppressed["frequency"] == 0
    assert not suppressed["empty_intersection"]
    assert not suppressed["integrally_private"]


def test_the_total_is_not_floating_point_safe_when_one_privatizer_is_not():
    """One column released by a continuous sampler (secure=False) is enough."""
    from sklearn.compose import ColumnTransformer

    from skprivate import privacy_report

    X = np.zeros((4, 2))
    both = ColumnTransformer(
        [
            ("grid", LaplaceLDP(epsilon=1.0, bounds=(0, 1)), [0]),
            ("fast", LaplaceLDP(epsilon=1.0, bounds=(0, 1), secure=False), [1]),
        ]
    ).fit(X)
    total = privacy_report(both).iloc[-1]
    assert total["column"] == "total"
    assert total["floating_point_safe"] == False  # noqa: E712
    assert total["note"].endswith(
        "; not floating-point safe: a privatizer with secure=False draws "
        "continuous noise, whose rounding depends on the input; its epsilon "
        "holds in exact arithmetic only"
    )
    safe = privacy_report(LaplaceLDP(epsilon=1.0, bounds=(0, 1)).fit(X)).iloc[-1]
    assert safe["floating_point_safe"] == True  # noqa: E712
    assert "floating-point" not in safe["note"]


def test_a_total_over_different_notions_says_so():
    """Pointwise LDP next to RVNS's loss between windows: the sum is of the
    weaker notion, and the total's note says which notions it adds."""
    from sklearn.compose import ColumnTransformer

    from skprivate import RVNSPerturber, privacy_report

    both = ColumnTransformer(
        [
            ("ldp", LaplaceLDP(epsilon=1.0, bounds=(0, 10)), [0]),
            ("rvns", RVNSPerturber(d=2, bounds=(0, 10)), [1]),
        ]
    ).fit(np.ones((3, 2)))
    report = privacy_report(both)
    rows, total = report.iloc[:-1], report.iloc[-1]
    assert total["epsilon"] == rows["epsilon"].sum()
    assert total["note"] == (
        "sequential composition over the columns of one record; the columns' "
        "epsilons are of different notions (epsilon-local differential privacy; "
        "real-value negative survey (epsilon-LDP up to a delta window)): the sum "
        "holds for the weakest of them only"
    )
    alone = privacy_report(LaplaceLDP(epsilon=1.0, bounds=(0, 10)).fit(np.ones((3, 2))))
    assert alone.iloc[-1]["note"] == (
        "sequential composition over the columns of one record"
    )


def test_a_row_without_a_notion_is_named_unnamed_in_the_total():
    from skprivate._privacy_report._total import _total_row

    rows = [
        {"column": "a", "epsilon": 1.0, "delta": 0.0, "notion": "pure"},
        {"column": "b", "epsilon": 2.0, "delta": 0.0},
    ]
    total = _total_row(rows, {})
    assert total["epsilon"] == 3.0
    assert total["note"] == (
        "sequential composition over the columns of one record; the columns' "
        "epsilons are of different notions (pure; unnamed): the sum holds for "
        "the weakest of them only"
    )
