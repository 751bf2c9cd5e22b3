"""Row statistics and global row numbers, pinned (``utils/_statistic.py``).

``fit``, ``partial_fit`` and a fit on a dask collection read their rows
through one statistic, and a refusal names the bad value's row in the
whole data (never the value).  Pinned here: the renumbering of ``row N``
and ``entry (N, ...`` in errors and warnings, nested blocks, the range
statistic in each of its modes, the count of rows, and the lazy validation
of a dask collection.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator

from skprivate.utils._statistic import (
    FiniteRange,
    _shift_rows,
    count_and_reduce_rows,
    global_rows,
    n_rows,
    reduce_rows,
    renumber_rows,
    rows_counted_from,
    validate_rows,
    value_range,
)

dd = pytest.importorskip("dask.dataframe")
da = pytest.importorskip("dask.array")


@pytest.mark.parametrize(
    ("text", "shifted"),
    [
        ("X contains NaN at row 3, column 0.", "X contains NaN at row 103, column 0."),
        ("Row 0 is empty", "Row 100 is empty"),
        ("rows 2 and row 4", "rows 2 and row 104"),
        ("row7 and row 8", "row 107 and row 108"),
        ("entry (5, 1) is bad", "entry (105, 1) is bad"),
        ("entry 5 and arrow 9", "entry 5 and arrow 9"),
        ("no number here", "no number here"),
    ],
)
def test_shift_rows_moves_each_row_number(text, shifted):
    assert _shift_rows(text, 100) == shifted
    assert _shift_rows(text, 0) == text


def test_renumber_rows_keeps_the_type_and_leaves_other_errors():
    error = TypeError("X row 2: not a number (got str).")
    moved = renumber_rows(error, 40)
    assert (
        type(moved) is TypeError and str(moved) == "X row 42: not a number (got str)."
    )
    assert renumber_rows(error, 0) is error
    two = ValueError("row 1", "row 2")
    assert renumber_rows(two, 5) is two
    code = ValueError(3)
    assert renumber_rows(code, 5) is code


def test_rows_counted_from_nests_and_names_warnings_and_errors():
    assert global_rows("row 3 was clipped") == "row 3 was clipped"
    with rows_counted_from(700):
        assert global_rows("row 3 was clipped") == "row 703 was clipped"
        with rows_counted_from(20):
            assert global_rows("row 3") == "row 723"
        assert global_rows("row 3") == "row 703"
    assert global_rows("row 3") == "row 3"
    with (
        pytest.raises(ValueError, match=r"^X contains NaN at row 1234\.$") as info,
        rows_counted_from(700),
    ):
        raise ValueError("X contains NaN at row 534.")
    assert info.value.__suppress_context__
    with pytest.raises(TypeError, match=r"^row 10$"), rows_counted_from(10):
        raise TypeError("row 0")
    # other errors and errors without a text leave as raised
    with pytest.raises(KeyError), rows_counted_from(10):
        raise KeyError("row 0")
    plain = ValueError(1, 2)
    with pytest.raises(ValueError) as info, rows_counted_from(10):
        raise plain
    assert info.value is plain
    with rows_counted_from(0):
        assert global_rows("row 3") == "row 3"


def test_n_rows():
    assert n_rows([[1, 2], [3, 4], [5, 6]]) == 3
    assert n_rows(np.zeros((4, 2))) == 4
    assert n_rows(pd.DataFrame({"a": [1, 2]})) == 2

    class ArrayOnly:
        def __array__(self, dtype=None, copy=None):
            return np.zeros((5, 3))

    assert n_rows(ArrayOnly()) == 5
    assert type(n_rows(ArrayOnly())) is int


def test_an_in_memory_refusal_names_the_row_from_zero():
    X = np.array([[1.0], [np.nan], [2.0]])
    with pytest.raises(ValueError, match=r"\brow 1\b"):
        count_and_reduce_rows(X, FiniteRange(finite=True))
    assert count_and_reduce_rows(X, FiniteRange()) == ((1.0, 2.0), 3)


def test_finite_range_defaults_and_modes():
    statistic = FiniteRange()
    assert (statistic.name, statistic.columns, statistic.finite) == ("X", False, False)
    X = np.array([[3.0, -np.inf], [np.nan, 7.0], [-1.0, 2.0]])
    assert statistic.block(X, 0) == (-1.0, 7.0)
    assert type(statistic.block(X, 0)[0]) is float
    assert statistic.block(np.array([[np.nan]]), 0) is None
    assert statistic.block(np.zeros((0, 2)), 0) is None
    # every value finite: the same range
    assert statistic.block(np.array([[2.0], [5.0]]), 0) == (2.0, 5.0)
    assert statistic.block(np.array([4.0]), 0) == (4.0, 4.0)

    per_column = FiniteRange(columns=True)
    lows, highs = per_column.block(X, 0)
    assert lows.tolist() == [-1.0, 2.0] and highs.tolist() == [3.0, 7.0]
    lows, highs = per_column.block(np.array([1.0, 4.0]), 0)
    assert lows.tolist() == [1.0] and highs.tolist() == [4.0]
    lows, highs = per_column.block(np.array([[np.nan, 1.0]]), 0)
    assert lows.tolist() == [np.inf, 1.0] and highs.tolist() == [-np.inf, 1.0]
    assert per_column.block(np.zeros((0, 2)), 0) is None


def test_finite_range_refuses_a_non_finite_value_by_row_and_column():
    frame = pd.DataFrame({"age": [1.0, 2.0], "pay": [3.0, np.inf]})
    with pytest.raises(ValueError) as info:
        FiniteRange(name="Z", finite=True).block(frame, 10)
    message = str(info.value)
    assert "row 11" in message and "'pay'" in message and message.startswith("Z")
    with pytest.raises(
        TypeError,
        match=r"^W must be numeric; entry \(12, 0\) is a str, not a number\.$",
    ) as info:
        FiniteRange(name="W").block(np.array([[1.0], [2.0], ["abc"]], dtype=object), 10)
    assert "abc" not in str(info.value)


def test_finite_range_merge():
    statistic = FiniteRange()
    assert statistic.merge([None, None]) is None
    assert statistic.merge([]) is None
    assert statistic.merge([(0.0, 2.0), None, (-1.0, 1.0)]) == (-1.0, 2.0)
    assert statistic.merge([(5.0, 9.0), (6.0, 7.0)]) == (5.0, 9.0)
    per_column = FiniteRange(columns=True)
    lows, highs = per_column.merge(
        [
            (np.array([0.0, 5.0]), np.array([1.0, 6.0])),
            None,
            (np.array([-1.0, 7.0]), np.array([0.5, 9.0])),
        ]
    )
    assert lows.tolist() == [-1.0, 5.0] and highs.tolist() == [1.0, 9.0]


def test_value_range_and_its_refusal():
    assert value_range(np.array([[2.0], [5.0], [np.inf]])) == (2.0, 5.0)
    with pytest.raises(ValueError, match=r"^X holds no finite value\.$"):
        value_range(np.array([[np.nan]]))
    with pytest.raises(ValueError, match=r"^y holds no finite value\.$"):
        value_range(np.array([np.inf]), name="y")
    with pytest.raises(TypeError, match=r"^y must be numeric; entry \(0,\) is a str"):
        value_range(np.array(["a"], dtype=object), name="y")
    frame = dd.from_pandas(pd.DataFrame({"a": [1.0, 9.0, -2.0, 4.0]}), npartitions=2)
    assert value_range(frame) == (-2.0, 9.0)
    assert reduce_rows(frame, FiniteRange()) == (-2.0, 9.0)


def test_validate_rows_in_memory_sets_then_checks():
    est = BaseEstimator()
    out = validate_rows(est, pd.DataFrame({"a": [1.0, 2.0], "b": [3.0, 4.0]}))
    assert out.shape == (2, 2) and est.n_features_in_ == 2
    assert list(est.feature_names_in_) == ["a", "b"]
    # reset=False checks (scikit-learn's message) and keeps the attributes
    with (
        pytest.warns(UserWarning, match="does not have valid feature names"),
        pytest.raises(ValueError, match="X has 3 features"),
    ):
        validate_rows(est, np.zeros((2, 3)), reset=False)
    assert est.n_features_in_ == 2
    # check_params reach scikit-learn
    with pytest.raises(ValueError):
        validate_rows(BaseEstimator(), np.array([[np.nan]]))
    out = validate_rows(BaseEstimator(), np.array([[np.nan]]), ensure_all_finite=False)
    assert np.isnan(out[0, 0])


def test_validate_rows_of_a_dask_collection_reads_its_columns_only():
    frame = dd.from_pandas(
        pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [4.0, 5.0, np.nan]}), npartitions=2
    )
    est = BaseEstimator()
    assert validate_rows(est, frame) is frame
    assert est.n_features_in_ == 2 and list(est.feature_names_in_) == ["a", "b"]
    assert validate_rows(est, frame, reset=False) is frame
    array = da.zeros((4, 3), chunks=2)
    message = "X has 3 features, but BaseEstimator is expecting 2 features as input."
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        validate_rows(est, array, reset=False)
    assert est.n_features_in_ == 2
    # a refit on an array without names drops the old names
    assert validate_rows(est, array) is array
    assert est.n_features_in_ == 3 and not hasattr(est, "feature_names_in_")
    assert validate_rows(est, array, reset=False) is array
