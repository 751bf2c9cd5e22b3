"""Input checks that mutation testing found unchecked, pinned exactly.

Each test feeds :mod:`skprivate.utils.validation` a small bad (or borderline
good) input and checks the exact outcome: the message names the parameter,
the column and the row (counted in the whole data when the input is a
block), nothing is dropped or invented, and bounds or categories read from
the data warn.  ``benchmarks/_mutation_specs_validation.py`` lists the
mutants of ``skprivate/utils/validation.py`` these tests kill.
"""

import datetime
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse
from sklearn.exceptions import DataConversionWarning

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.utils.validation import (
    bounds_from_data,
    check_bool,
    check_bounds,
    check_finite,
    check_float_array,
    check_generator,
    check_interval_array,
    check_magnitude,
    check_numeric_input,
    check_two_sided,
    check_unchanged_settings,
    check_weights,
    make_interval_array,
)


def _raises(kind, text):
    """``pytest.raises`` matching the whole message ``text`` literally."""
    return pytest.raises(kind, match="^" + re.escape(text) + "$")


# -- interval data -------------------------------------------------------------
def test_interval_flags_must_be_bools():
    with _raises(TypeError, "allow_1d must be a bool; got 'yes'."):
        check_interval_array([1.0], allow_1d="yes")
    with _raises(TypeError, "allow_nan must be a bool; got 1."):
        check_interval_array([1.0], allow_nan=1)
    out = check_interval_array([1.0], allow_1d=np.bool_(True), allow_nan=np.bool_(0))
    np.testing.assert_array_equal(out, [[1.0, 1.0]])


@pytest.mark.parametrize("first_row", [True, -1, 2.0, "3", None])
def test_interval_first_row_must_be_a_non_negative_int(first_row):
    with _raises(ValueError, f"first_row must be an int >= 0; got {first_row!r}."):
        check_interval_array([1.0], first_row=first_row)


def test_interval_first_row_accepts_zero_and_numpy_ints():
    for first_row in (0, np.int64(4)):
        np.testing.assert_array_equal(
            check_interval_array([2.0], first_row=first_row), [[2.0, 2.0]]
        )


def test_interval_empty_input_names_the_argument():
    with pytest.raises(ValueError, match=r"^income: Found array with 0 sample\(s\)"):
        check_interval_array(np.empty((0, 2)), name="income")
    # a message that already names the argument is passed on unchanged
    frame = pd.DataFrame([[0.0, 1.0]], columns=["a", "a"])
    with _raises(
        ValueError,
        "income has duplicate column names ['a']; every column needs a unique name.",
    ):
        check_interval_array(frame, name="income")


def test_interval_refusals_of_scikit_learn_are_prefixed_unless_they_open_with_it():
    # the prefix goes by the refusal's own opening words, whatever the name
    with pytest.raises(ValueError, match=r"^N: Found array with 0 sample\(s\)"):
        check_interval_array(np.empty((0, 2)), name="N")
    with pytest.raises(ValueError, match=r"^Found array with 0 sample\(s\)"):
        check_interval_array(np.empty((0, 2)), name="Found")


def test_interval_sparse_input_is_refused_by_name():
    y = scipy.sparse.csr_matrix(np.array([[0.0, 1.0]]))
    with pytest.raises(
        TypeError, match=r"^Sparse data was passed for income, but dense data"
    ):
        check_interval_array(y, name="income")


def test_interval_non_number_names_its_global_row():
    y = np.array([[0.0, 1.0], [2.0, "secret"]], dtype=object)
    with _raises(
        TypeError, "y column 1 must be numeric; row 6 holds a str that is not a number."
    ):
        check_interval_array(y, first_row=5)


def test_interval_strings_are_named_not_shown():
    frame = pd.DataFrame({"lo": [0.0, 1.0], "hi": ["2", "secret"]})
    with pytest.raises(TypeError) as info:
        check_interval_array(frame, name="income")
    assert str(info.value).startswith("income column 'hi' must be numeric")
    assert "secret" not in str(info.value)


def test_interval_shape_messages():
    with _raises(
        ValueError,
        "y must have shape (n, 2) with columns [lower, upper] (or shape (n,) for "
        "exact values); got a 3-dim array of shape (2, 1, 2).",
    ):
        check_interval_array(np.zeros((2, 1, 2)))
    with _raises(
        ValueError,
        "z must have shape (n, 2) with columns [lower, upper] (or shape (n,) for "
        "exact values); got shape (4, 3).",
    ):
        check_interval_array(np.zeros((4, 3)), name="z")
    with _raises(
        ValueError,
        "z must have shape (n, 2) with columns [lower, upper]; got a 1-D array "
        "of length 3.",
    ):
        check_interval_array([1.0, 2.0, 3.0], name="z", allow_1d=False)


def test_interval_column_vector_is_exact_values_with_a_warning():
    with pytest.warns(DataConversionWarning) as caught:
        out = check_interval_array(np.array([[1.0], [3.0]]), name="w")
    assert len(caught) == 1
    assert str(caught[0].message) == (
        "A column-vector w was passed when a 1d array was expected (exact values) "
        "or an (n, 2) array of interval bounds; it is read as exact values."
    )
    np.testing.assert_array_equal(out, [[1.0, 1.0], [3.0, 3.0]])
    # a column vector is still refused when exact values are not accepted
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataConversionWarning)
        with pytest.raises(ValueError, match="got a 1-D array of length 2"):
            check_interval_array(np.array([[1.0], [3.0]]), allow_1d=False)


def test_interval_integers_become_floats():
    for y in ([[0, 1], [2, 5]], [3, 4], np.array([[1], [2]])):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", DataConversionWarning)
            out = check_interval_array(y)
        assert out.dtype == np.float64


def test_interval_two_columns_pass_unchanged_without_warning():
    y = [[0.0, 1.0], [2.0, 2.0], [-np.inf, 5.0], [3.0, np.inf]]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = check_interval_array(y)
    assert out.dtype == np.float64 and out.shape == (4, 2)
    np.testing.assert_array_equal(out, y)
    # exact values: lower == upper on every row
    np.testing.assert_array_equal(check_interval_array([4.0, -1.0]), [[4, 4], [-1, -1]])


@pytest.mark.parametrize("side", [0, 1])
def test_interval_one_nan_bound_names_the_global_row(side):
    y = np.zeros((5, 2))
    y[2, side] = np.nan
    y[4, 1 - side] = np.nan
    with _raises(
        ValueError,
        "y has a row with exactly one NaN bound (row 12); use -inf/inf for half-lines.",
    ):
        check_interval_array(y, first_row=10)
    # even where NaN rows are allowed
    with pytest.raises(ValueError, match=r"exactly one NaN bound \(row 2\)"):
        check_interval_array(y, allow_nan=True)


def test_interval_nan_row_names_the_global_row_unless_allowed():
    y = np.array([[0.0, 1.0], [0.0, 1.0], [np.nan, np.nan], [np.nan, np.nan]])
    with _raises(
        ValueError,
        "y contains NaN (first at row 9); every row needs an interval [lower, upper].",
    ):
        check_interval_array(y, first_row=7)
    out = check_interval_array(y, allow_nan=True)
    assert np.isnan(out[2:]).all() and (out[:2] == [0.0, 1.0]).all()


@pytest.mark.parametrize(
    ("rows", "text"),
    [
        ([[1.0, 1.0], [2.0, 1.0], [0.0, 0.0], [5.0, -5.0]], "has lower > upper"),
        (
            [[0.0, np.inf], [np.inf, np.inf], [0.0, 1.0], [np.inf, np.inf]],
            "has a lower bound of +inf (an empty cell)",
        ),
        (
            [[-np.inf, 0.0], [-np.inf, -np.inf], [0.0, 1.0], [-np.inf, -np.inf]],
            "has an upper bound of -inf (an empty cell)",
        ),
    ],
)
def test_interval_empty_cells_name_the_first_global_row_and_count(rows, text):
    with _raises(ValueError, f"y {text} at row 1 (2 such rows)."):
        check_interval_array(rows)
    with _raises(ValueError, f"v {text} at row 101 (2 such rows)."):
        check_interval_array(rows, name="v", first_row=100)
    # NaN rows allowed and skipped: the bad rows are still found and counted
    with_nan = [[np.nan, np.nan], *rows]
    with _raises(ValueError, f"y {text} at row 2 (2 such rows)."):
        check_interval_array(with_nan, allow_nan=True)


def test_interval_allowed_nan_rows_are_not_counted_as_bad():
    out = check_interval_array([[np.nan, np.nan], [0.0, 1.0]], allow_nan=True)
    assert out.shape == (2, 2)


def test_make_interval_array_names_its_arguments():
    np.testing.assert_array_equal(
        make_interval_array([-np.inf, 1.0], [0.5, 1.0]), [[-np.inf, 0.5], [1.0, 1.0]]
    )
    with _raises(
        TypeError, "lower must be numeric; entry (1,) is a str, not a number."
    ):
        make_interval_array([0.0, "a"], [1.0, 2.0])
    with _raises(
        TypeError, "upper must be numeric; entry (0,) is a str, not a number."
    ):
        make_interval_array([0.0, 1.0], ["b", 2.0])
    with _raises(
        ValueError, "lower and upper must be 1-D; got shapes (1, 2) and (2,)."
    ):
        make_interval_array([[0.0, 1.0]], [1.0, 2.0])
    with _raises(
        ValueError, "lower and upper must be 1-D; got shapes (2,) and (2, 1)."
    ):
        make_interval_array([0.0, 1.0], [[1.0], [2.0]])
    with _raises(ValueError, "lower and upper must have the same length; got 3 and 2."):
        make_interval_array([0.0, 1.0, 2.0], [1.0, 2.0])
    with pytest.raises(ValueError, match=r"^y has lower > upper at row 1 "):
        make_interval_array([0.0, 3.0], [1.0, 2.0])
    with pytest.raises(ValueError, match="lower contains NaN at entry"):
        make_interval_array([np.nan], [1.0])


# -- declared bounds -----------------------------------------------------------
@pytest.mark.parametrize("n_features", [True, 0, -2, 1.5, "2", None])
def test_bounds_n_features_must_be_a_positive_int(n_features):
    with _raises(ValueError, f"n_features must be an int >= 1; got {n_features!r}."):
        check_bounds((0, 1), n_features)


def test_bounds_on_one_column_and_numpy_ints():
    low, high = check_bounds((0, 1), 1)
    assert low.tolist() == [0.0] and high.tolist() == [1.0]
    low, high = check_bounds((0, 1), np.int64(2))
    assert low.tolist() == [0.0, 0.0] and high.tolist() == [1.0, 1.0]


def test_bounds_feature_names_are_checked():
    with _raises(
        TypeError, "feature_names must be a sequence of column names; got str."
    ):
        check_bounds((0, 1), 2, feature_names="ab")
    with _raises(
        TypeError, "feature_names must be a sequence of column names; got int."
    ):
        check_bounds((0, 1), 2, feature_names=5)
    with _raises(ValueError, "feature_names must name the 2 columns; got 3 names."):
        check_bounds((0, 1), 2, feature_names=["a", "b", "c"])


def test_bounds_dict_by_name_position_and_mismatch():
    low, high = check_bounds(
        {"b": [1, 120], "a": np.array([0, 100])}, 2, feature_names=["a", "b"]
    )
    assert low.tolist() == [0.0, 1.0] and high.tolist() == [100.0, 120.0]
    low, high = check_bounds({1: (5, 6), 0: (1, 3)}, 2)
    assert low.tolist() == [1.0, 5.0] and high.tolist() == [3.0, 6.0]
    with _raises(
        ValueError,
        "limits given as a dict must have one entry per column ['a', 'b']; "
        "unknown keys ['c'], missing columns ['b'].",
    ):
        check_bounds(
            {"a": (0, 1), "c": (0, 1)}, 2, name="limits", feature_names=["a", "b"]
        )
    with _raises(
        ValueError,
        "bounds given as a dict must have one entry per column ['0', '1']; "
        "unknown keys [], missing columns ['1'].",
    ):
        check_bounds({0: (0, 1)}, 2)
    # the name and the column names reach the checks of the pairs
    with _raises(
        ValueError,
        "limits must satisfy low < high for every column; column 'b' has low=3 >= "
        "high=2. Accepted forms: (low, high) for every column; (lows, highs) with "
        "two lists of length 2; [(low, high), ...] with one tuple per column; "
        "{column: (low, high), ...} with one entry per column.",
    ):
        check_bounds(
            {"a": (0, 1), "b": (3, 2)}, 2, name="limits", feature_names=["a", "b"]
        )


@pytest.mark.parametrize("entry", [0, "01", [(0, 1)], [(0, 1), 2], np.array(1.0)])
def test_bounds_dict_entry_that_is_not_a_pair_is_refused_by_name(entry):
    # {"a": 0, "b": 10} is not read as (0, 10) for every column
    with _raises(
        ValueError,
        f"b given as a dict must map each column to a pair (low, high); column 'a' "
        f"has {entry!r}. Accepted forms: (low, high) for every column; (lows, "
        "highs) with two lists of length 2; [(low, high), ...] with one tuple per "
        "column; {column: (low, high), ...} with one entry per column.",
    ):
        check_bounds({"a": entry, "b": 10}, 2, name="b", feature_names=["a", "b"])


def test_bounds_dict_of_two_lists_on_two_columns_is_per_column():
    # each entry is one column's (low, high), whatever its container
    low, high = check_bounds({"a": [0, 5], "b": [1, 6]}, 2, feature_names=["a", "b"])
    assert low.tolist() == [0.0, 1.0] and high.tolist() == [5.0, 6.0]


def test_bounds_arrays_per_column_or_lows_highs():
    low, high = check_bounds(np.array([[0, 1], [2, 3], [4, 5]]), 3)
    assert low.tolist() == [0.0, 2.0, 4.0] and high.tolist() == [1.0, 3.0, 5.0]
    low, high = check_bounds(np.array([[0, 2, 4], [1, 3, 5]]), 3)
    assert low.tolist() == [0.0, 2.0, 4.0] and high.tolist() == [1.0, 3.0, 5.0]
    low, high = check_bounds(np.array([[0, 2]]), 1)
    assert low.tolist() == [0.0] and high.tolist() == [2.0]
    with _raises(
        ValueError,
        "box as a 2 x 2 array is ambiguous on two columns: it may be (lows, highs) "
        "or one (low, high) row per column. Accepted forms: (low, high) for every "
        "column; (lows, highs) with two lists of length 2; [(low, high), ...] "
        "with one tuple per column; {column: (low, high), ...} with one entry per "
        "column.",
    ):
        check_bounds(np.array([[0, 1], [2, 3]]), 2, name="box")
    # one column, a 2 x 2 array: neither form fits
    with pytest.raises(ValueError, match=r"^bounds must give bounds for 1 columns"):
        check_bounds(np.array([[0, 1], [2, 3]]), 1)


@pytest.mark.parametrize(
    ("bounds", "n_features"),
    [
        (np.array([["a", "b"], ["c", "d"], ["e", "f"]]), 3),
        (np.arange(8.0).reshape(4, 2), 3),
        (np.arange(6.0).reshape(3, 2), 2),
    ],
)
def test_bounds_arrays_of_no_accepted_shape_are_shown_as_given(bounds, n_features):
    with _raises(
        ValueError,
        f"bounds must give bounds for {n_features} columns; got {bounds!r}. "
        "Accepted forms: (low, high) for every column; (lows, highs) with two lists "
        f"of length {n_features}; [(low, high), ...] with one tuple per column; "
        "{column: (low, high), ...} with one entry per column.",
    ):
        check_bounds(bounds, n_features)


def test_bounds_one_pair_in_a_list_on_one_column():
    low, high = check_bounds([(2, 3)], 1)
    assert low.tolist() == [2.0] and high.tolist() == [3.0]


def test_bounds_lists_tuples_and_pairs():
    # two tuples on two columns: one pair per column
    low, high = check_bounds([(0, 10), (1, 20)], 2)
    assert low.tolist() == [0.0, 1.0] and high.tolist() == [10.0, 20.0]
    # two lists on two columns: (lows, highs)
    low, high = check_bounds([[0, 1], [10, 20]], 2)
    assert low.tolist() == [0.0, 1.0] and high.tolist() == [10.0, 20.0]
    # a tuple and a list on two columns: (lows, highs)
    low, high = check_bounds(([0, 1], (10, 20)), 2)
    assert low.tolist() == [0.0, 1.0] and high.tolist() == [10.0, 20.0]
    # three lists of pairs on three columns: one pair per column
    low, high = check_bounds([[0, 1], [2, 3], np.array([4, 5])], 3)
    assert low.tolist() == [0.0, 2.0, 4.0] and high.tolist() == [1.0, 3.0, 5.0]
    # pairs of the wrong length on three columns are not per column
    with pytest.raises(ValueError, match="must give bounds for 3 columns"):
        check_bounds([(0, 1, 2), (2, 3), (4, 5)], 3)
    # one pair per column given as lists with a scalar broadcast
    low, high = check_bounds(([0, 1, 2], 9), 3)
    assert low.tolist() == [0.0, 1.0, 2.0] and high.tolist() == [9.0, 9.0, 9.0]


def test_bounds_pairs_of_non_numbers_are_refused_with_the_forms():
    with pytest.raises(ValueError, match=r"^b must hold numbers; got \[\('a', 1\)"):
        check_bounds([("a", 1), (0, 1), (0, 1)], 3, name="b")


def test_bounds_of_the_wrong_form():
    forms = (
        " Accepted forms: (low, high) for every column; (lows, highs) with two "
        "lists of length 2; [(low, high), ...] with one tuple per column; "
        "{column: (low, high), ...} with one entry per column."
    )
    with _raises(
        ValueError, "b must give bounds for 2 columns; got (0, 1, 2)." + forms
    ):
        check_bounds((0, 1, 2), 2, name="b")
    with _raises(ValueError, "b must give bounds for 2 columns; got []." + forms):
        check_bounds([], 2, name="b")
    with _raises(ValueError, "b must give bounds for 2 columns; got 'ab'." + forms):
        check_bounds("ab", 2, name="b")
    with _raises(
        ValueError, "b must give bounds for 2 columns; got ([0, 1, 2], 5)." + forms
    ):
        check_bounds(([0, 1, 2], 5), 2, name="b")
    with _raises(ValueError, "b must give bounds for 2 columns; got (0, 'x')." + forms):
        check_bounds((0, "x"), 2, name="b")


@pytest.mark.parametrize(
    ("bounds", "text"),
    [
        ((np.nan, 1.0), "column 0 has low=nan."),
        ((0.0, [1.0, np.inf]), "column 1 has high=inf."),
        (([0.0, -np.inf], 1.0), "column 1 has low=-inf."),
        ((np.nan, np.inf), "column 0 has low=nan."),
    ],
)
def test_bounds_must_be_finite(bounds, text):
    with _raises(ValueError, "bounds must be finite numbers; " + text):
        check_bounds(bounds, 2)


def test_bounds_must_be_finite_names_the_column_by_name():
    with _raises(ValueError, "b must be finite numbers; column 'y' has high=inf."):
        check_bounds((0.0, [1.0, np.inf]), 2, name="b", feature_names=["x", "y"])


def test_bounds_low_must_be_below_high():
    forms = (
        " Accepted forms: (low, high) for every column; (lows, highs) with two "
        "lists of length 3; [(low, high), ...] with one tuple per column; "
        "{column: (low, high), ...} with one entry per column."
    )
    with _raises(
        ValueError,
        "bounds must satisfy low < high for every column; column 1 has low=2.5 >= "
        "high=2." + forms,
    ):
        check_bounds(([0, 2.5, 3], [1, 2, 2]), 3)
    with _raises(
        ValueError,
        "bounds must satisfy low < high for every column; column 2 has low=2 >= "
        "high=2." + forms,
    ):
        check_bounds(([0, 1, 2], 2), 3)


def test_bounds_width_must_not_overflow():
    with (
        warnings.catch_warnings(),
        _raises(
            ValueError,
            "domain of column 1 span -1e+308 to 1e+308, a width that overflows "
            "float64; declare bounds whose width high - low is finite.",
        ),
    ):
        warnings.simplefilter("error")  # the overflow is reported, not warned
        check_bounds(([0, -1e308], [1, 1e308]), 2, name="domain")
    low, high = check_bounds((-8e307, 8e307), 1)
    assert (high - low).tolist() == [1.6e308]


def test_bounds_are_fresh_writable_arrays():
    low, high = check_bounds((0, 1), 3)
    assert low.dtype == np.float64 and high.dtype == np.float64
    assert low.flags.writeable and high.flags.writeable
    low[0] = -5.0
    assert low.tolist() == [-5.0, 0.0, 0.0] and high.dtype == np.float64


# -- bounds read from the data -------------------------------------------------
def test_bounds_from_data_warn_exactly_and_widen_constant_columns():
    X = np.array([[1.0, 5.0, -2.0], [3.0, 5.0, 4.0], [2.0, 5.0, 0.0]])
    with pytest.warns(PrivacyLeakWarning) as caught:
        low, high = bounds_from_data(X, owner="Thing")
    assert len(caught) == 1
    assert str(caught[0].message) == (
        "Thing was fitted without bounds, so the domain of each column was read "
        "from the data. The bounds are then a function of the private values and "
        "the privacy guarantee does not hold for the records at the extremes. "
        "Pass bounds known before seeing the data."
    )
    assert low.tolist() == [1.0, 4.5, -2.0] and high.tolist() == [3.0, 5.5, 4.0]
    assert low.dtype == np.float64 and high.dtype == np.float64


def test_bounds_from_one_row_widen_every_column():
    with pytest.warns(PrivacyLeakWarning):
        low, high = bounds_from_data(np.array([[1.0, -3.0]]), owner="T")
    assert low.tolist() == [0.5, -3.5] and high.tolist() == [1.5, -2.5]


def test_bounds_from_integer_data_are_floats():
    with pytest.warns(PrivacyLeakWarning):
        low, high = bounds_from_data(np.array([[1, 7], [1, 9]]), owner="T")
    assert low.tolist() == [0.5, 7.0] and high.tolist() == [1.5, 9.0]


@pytest.mark.parametrize("shape", [(3,), (0, 2), (2, 1, 1)])
def test_bounds_from_data_need_a_non_empty_table(shape):
    with (
        pytest.warns(PrivacyLeakWarning),
        _raises(
            ValueError,
            f"X must be a non-empty 2-D array to read bounds from; got shape {shape}.",
        ),
    ):
        bounds_from_data(np.zeros(shape), owner="T")


def test_bounds_from_data_name_the_column_and_row_of_a_missing_value():
    X = np.zeros((5, 3))
    X[3, 1] = np.nan
    X[4, 1] = np.inf
    X[2, 2] = -np.inf
    with (
        pytest.warns(PrivacyLeakWarning),
        _raises(
            ValueError,
            "X column 1 holds a NaN or infinite value at row 3; bounds cannot be "
            "read from it. Pass finite data or declare bounds.",
        ),
    ):
        bounds_from_data(X, owner="T")


def test_bounds_from_data_name_a_non_number_without_showing_it():
    with (
        pytest.warns(PrivacyLeakWarning),
        _raises(TypeError, "X must be numeric; entry (1, 0) is a str, not a number."),
    ):
        bounds_from_data(np.array([[1.0], ["secret"]], dtype=object), owner="T")


# -- seeds, flags, streaming settings, weights -----------------------------------
def test_generator_from_each_kind_of_seed():
    assert check_generator(0).random() == np.random.default_rng(0).random()
    assert check_generator(np.int64(7)).random() == np.random.default_rng(7).random()
    g = np.random.default_rng(3)
    assert check_generator(g) is g
    expected = np.random.default_rng(
        np.random.RandomState(5).randint(np.iinfo(np.int32).max)
    ).random()
    assert check_generator(np.random.RandomState(5)).random() == expected
    fresh = check_generator(None)
    assert isinstance(fresh, np.random.Generator)
    assert check_generator(None).random() != fresh.random()


@pytest.mark.parametrize("seed", [-1, np.int64(-3)])
def test_generator_refuses_a_negative_seed(seed):
    with _raises(
        ValueError, f"random_state must be a non-negative int (a seed); got {seed!r}."
    ):
        check_generator(seed)


@pytest.mark.parametrize("seed", [True, 1.0, "0"])
def test_generator_refuses_other_types(seed):
    with _raises(
        ValueError,
        "random_state must be None, an int, a numpy RandomState or Generator; "
        f"got {seed!r}.",
    ):
        check_generator(seed)


def test_check_bool():
    assert check_bool(True, "flag") is True
    assert check_bool(np.bool_(False), "flag") is False
    for value in ("yes", 1, None):
        with _raises(
            TypeError, f"return_std must be a bool (True or False); got {value!r}."
        ):
            check_bool(value, "return_std")


def test_unchanged_settings_name_every_change():
    check_unchanged_settings({"a": 1, "b": 2}, {"a": 1, "b": 2})
    with _raises(
        ValueError,
        "a, c changed since the first call to partial_fit; the binned counts were "
        "made with the old value.  Call fit to start again.",
    ):
        check_unchanged_settings({"a": 1, "b": 2, "c": 3}, {"a": 0, "b": 2, "c": 4})


def test_weights_default_and_given():
    ones = check_weights(None, 3)
    assert ones.tolist() == [1.0, 1.0, 1.0] and ones.dtype == np.float64
    w = check_weights([0, 2, 0.5], 3)
    assert w.tolist() == [0.0, 2.0, 0.5] and w.dtype == np.float64


@pytest.mark.parametrize("weights", [[1.0, 2.0], [[1.0], [2.0], [3.0]], 1.0])
def test_weights_of_the_wrong_shape(weights):
    shape = np.shape(weights)
    with _raises(
        ValueError,
        "sample_weight must have shape (3,) with finite non-negative entries; got "
        f"shape {shape}.",
    ):
        check_weights(weights, 3)


@pytest.mark.parametrize(
    ("weights", "text"),
    [
        ([1.0, -1.0, 2.0, -0.5], "entry 1 is negative (2 such entries)."),
        ([1.0, 2.0, np.nan, 1.0], "entry 2 is not finite (1 such entries)."),
        ([np.inf, 1.0, -1.0, 1.0], "entry 0 is not finite (2 such entries)."),
        ([1.0, 1.0, 1.0, -np.inf], "entry 3 is negative (1 such entries)."),
    ],
)
def test_weights_must_be_finite_and_non_negative(weights, text):
    with _raises(
        ValueError, "sample_weight must have finite non-negative entries; " + text
    ):
        check_weights(weights, 4)


def test_weights_all_zero_and_non_numbers():
    with _raises(ValueError, "sample_weight: all weights are zero."):
        check_weights([0.0, 0.0], 2)
    # one positive weight is enough
    assert check_weights([0.0, 1e-300], 2).tolist() == [0.0, 1e-300]
    with _raises(
        TypeError, "sample_weight must be numeric; entry (1,) is a str, not a number."
    ):
        check_weights([1.0, "secret"], 2)


# -- numeric columns: containers -------------------------------------------------
pl = pytest.importorskip("polars")


def test_numeric_input_passes_numbers_through_unchanged():
    X = np.array([[1.0, 2.0]])
    assert check_numeric_input(X) is X
    frame = pd.DataFrame({"a": [1, 2], "b": [0.5, 1.5]})
    assert check_numeric_input(frame) is frame
    series = pd.Series([1, 2])
    assert check_numeric_input(series) is series
    nested = [[1, 2], [3]]
    assert check_numeric_input(nested) is nested


def test_numbers_held_as_text_or_objects_follow_the_container():
    # an array's entries decide: numbers held as text or objects are read
    # once, as floats, so that every estimator sees the same values
    for held in (np.array(["1", "2.5"]), np.array([1, 2.5], dtype=object)):
        out = check_numeric_input(held)
        assert out.dtype == np.float64 and out.tolist() == [1.0, 2.5]
    out = check_numeric_input([["1", "2.5"], [b"3", "4e0"]])
    assert out.dtype == np.float64 and out.tolist() == [[1.0, 2.5], [3.0, 4.0]]
    # a frame's or Series' dtype is its contract: the column is refused, and
    # the message says its entries are numbers so that the user converts it
    hint = (
        "it holds numbers as text or objects: convert it to a numeric dtype "
        "first (pandas.to_numeric, polars' cast)."
    )
    for dtype in ("object", "string"):
        with _raises(TypeError, f"v must be numeric; got dtype {dtype}; {hint}"):
            check_numeric_input(pd.Series(["1", "2.5"], dtype=dtype), name="v")
        with _raises(
            TypeError, f"v column 'a' must be numeric; got dtype {dtype}; {hint}"
        ):
            check_numeric_input(pd.DataFrame({"a": ["1"]}, dtype=dtype), name="v")
    with _raises(
        TypeError, f"v column 'a' must be numeric; got polars dtype String; {hint}"
    ):
        check_numeric_input(pl.DataFrame({"a": ["1", "2"]}), name="v")
    with _raises(
        TypeError,
        "v must be numeric; got polars dtype String; row 1 holds a str that is "
        "not a number.",
    ):
        check_numeric_input(pl.Series(["1", "x"]), name="v")
    # a temporal column is refused by its dtype alone, as in pandas
    with _raises(TypeError, "v column 'd' must be numeric; got polars dtype Date."):
        check_numeric_input(pl.DataFrame({"d": [datetime.date(2020, 1, 1)]}), name="v")


@pytest.mark.parametrize(
    "complex_input, row, kind",
    [
        (np.array([[1.0], [2.0 + 1j]]), 1, "complex"),
        ([[1.0], [2.0 + 1j]], 1, "complex"),
        (np.array([[1.0], [np.complex64(2)]], dtype=object), 1, "complex64"),
    ],
    ids=["complex array", "list", "numpy complex in objects"],
)
def test_complex_numbers_are_refused_not_cast_to_their_real_part(
    complex_input, row, kind
):
    # the row named is the first entry off the real line; a complex with no
    # imaginary part only when there is none
    what = (
        f"{kind} (a complex type, with no imaginary part)"
        if kind == "complex64"
        else f"{kind} that is not a real number"
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no ComplexWarning: a refusal
        # a ValueError, in scikit-learn's words for a complex array
        with _raises(
            ValueError,
            f"X column 0 must be numeric; row {row} holds a {what} "
            "(Complex data not supported).",
        ):
            check_numeric_input(complex_input)
        with _raises(
            ValueError,
            f"v must be numeric; entry ({row}, 0) is a {kind}, not a number "
            "(Complex data not supported).",
        ):
            check_float_array(complex_input, name="v")
    ragged = np.empty(2, dtype=object)
    ragged[:] = [np.complex64(2), 3j]
    with _raises(
        ValueError,
        "v must be numeric; entry (1,) is a complex, not a number "
        "(Complex data not supported).",
    ):
        check_float_array(ragged, name="v")
    # a complex array with no entry off the real line: named by its dtype
    with _raises(
        ValueError,
        "X must be numeric; got dtype complex128, complex numbers with no imaginary "
        "part: give them as real numbers (Complex data not supported).",
    ):
        check_numeric_input(np.array([[1.0], [2.0 + 0j]]))
    with _raises(
        ValueError,
        "v must be numeric; entry (0, 0) is a complex, not a number "
        "(Complex data not supported).",
    ):
        check_float_array(np.array([[1.0], [2.0 + 0j]]), name="v")
    # any other non-number is a TypeError
    with _raises(
        TypeError, "X column 0 must be numeric; row 1 holds a str that is not a number."
    ):
        check_numeric_input(np.array([[1.0], ["a"]], dtype=object))
    frame = pd.DataFrame({"z": [1.0 + 0j, 2.0 + 1j]})
    with _raises(
        TypeError,
        "X column 'z' must be numeric; got dtype complex128; row 1 holds a complex "
        "that is not a real number.",
    ):
        check_numeric_input(frame)


def test_polars_columns_by_dtype():
    frame = pl.DataFrame(
        {"n": [None, None], "i": [1, 2], "j": [1, None], "c": [True, False]}
    )
    out = check_numeric_input(frame)
    assert list(out.columns) == ["n", "i", "j", "c"]
    assert out.dtypes.tolist() == [np.float64, np.int64, np.float64, np.float64]
    assert np.isnan(out["n"]).all()
    assert out["i"].tolist() == [1, 2] and out["c"].tolist() == [1.0, 0.0]
    np.testing.assert_array_equal(out["j"], [1.0, np.nan])
    assert out.index.equals(pd.RangeIndex(2))


def test_polars_series_and_unsupported_objects_are_named():
    out = check_numeric_input(pl.Series([True, None]))
    assert isinstance(out, np.ndarray)
    np.testing.assert_array_equal(out, [1.0, np.nan])
    text = "; row 0 holds a str that is not a number."
    with _raises(TypeError, f"v must be numeric; got polars dtype String{text}"):
        check_numeric_input(pl.Series(["secret"]), name="v")
    with _raises(
        TypeError, f"v column 'b' must be numeric; got polars dtype String{text}"
    ):
        check_numeric_input(pl.DataFrame({"a": [1], "b": ["secret"]}), name="v")
    with _raises(TypeError, "v of type Expr is not supported."):
        check_numeric_input(pl.col("a"), name="v")
    with _raises(
        TypeError, "v is a polars LazyFrame; call .collect() to pass its rows."
    ):
        check_numeric_input(pl.DataFrame({"a": [1.0]}).lazy(), name="v")


def test_pandas_series_decoded_or_named():
    cats = check_numeric_input(pd.Series(pd.Categorical([2, 1, 2])))
    assert isinstance(cats, np.ndarray) and cats.dtype == np.float64
    assert cats.tolist() == [2.0, 1.0, 2.0]
    nullable = check_numeric_input(pd.Series(pd.array([1, None], dtype="Int64")))
    assert isinstance(nullable, np.ndarray) and nullable.dtype == np.float64
    np.testing.assert_array_equal(nullable, [1.0, np.nan])
    flags = check_numeric_input(pd.Series(pd.array([True, None], dtype="boolean")))
    np.testing.assert_array_equal(flags, [1.0, np.nan])
    with _raises(
        TypeError,
        "v must be numeric; got dtype category; row 0 holds a str that is not a "
        "number.",
    ):
        check_numeric_input(pd.Series(pd.Categorical(["secret", "b"])), name="v")
    with _raises(
        TypeError,
        "v must be numeric; got dtype object; row 2 holds a str that is not a number.",
    ):
        check_numeric_input(
            pd.Series([1.0, 2.0, "secret", "x"], dtype=object), name="v"
        )
    with _raises(
        TypeError,
        "v must be numeric; got dtype object; row 1 holds a list that is not a "
        "number (float() argument must be a string or a real number, not 'list').",
    ):
        check_numeric_input(pd.Series([1.0, [1]], dtype=object), name="v")
    when = pd.Series(pd.to_datetime(["2020-01-01"]))
    with _raises(TypeError, f"v must be numeric; got dtype {when.dtype}."):
        check_numeric_input(when, name="v")
    gaps = pd.Series(pd.to_timedelta([1], unit="s"))
    with _raises(TypeError, f"v must be numeric; got dtype {gaps.dtype}."):
        check_numeric_input(gaps, name="v")


def test_frame_columns_decoded_in_a_copy():
    frame = pd.DataFrame(
        {
            "c": pd.Categorical([3, 1, 3]),
            "n": pd.array([1, None, 2], dtype="Int64"),
            "b": pd.array([True, False, None], dtype="boolean"),
            "f": [0.5, 1.5, 2.5],
        }
    )
    out = check_numeric_input(frame)
    assert out is not frame and list(out.columns) == ["c", "n", "b", "f"]
    assert (out.dtypes == np.float64).all()
    assert out["c"].tolist() == [3.0, 1.0, 3.0]
    np.testing.assert_array_equal(out["n"], [1.0, np.nan, 2.0])
    np.testing.assert_array_equal(out["b"], [1.0, 0.0, np.nan])
    # the caller's frame is left as it was
    assert isinstance(frame["c"].dtype, pd.CategoricalDtype)
    assert str(frame["n"].dtype) == "Int64"


def test_frame_duplicate_columns_are_named():
    frame = pd.DataFrame([[1, 2, 3, 4, 5]], columns=["b", 1, "b", 1, "c"])
    with _raises(
        ValueError,
        "v has duplicate column names ['1', 'b']; every column needs a unique name.",
    ):
        check_numeric_input(frame, name="v")


def test_frame_non_numeric_columns_are_named_with_their_row():
    frame = pd.DataFrame(
        {"a": [1.0, 2.0, 3.0], "b": [1.0, 2.0, "secret"], "c": ["x", "y", "z"]},
        dtype=object,
    )
    frame["a"] = frame["a"].astype(float)
    with _raises(
        TypeError,
        "v column 'b' must be numeric; got dtype object; row 2 holds a str that "
        "is not a number.",
    ):
        check_numeric_input(frame, name="v")
    with _raises(
        TypeError,
        "X column 'a' must be numeric; got dtype object; row 1 holds a NoneType "
        "that is not a number (float() argument must be a string or a real "
        "number, not 'NoneType').",
    ):
        check_numeric_input(pd.DataFrame({"a": [1.0, None]}, dtype=object))
    with _raises(
        TypeError,
        "X column 'k' must be numeric; got dtype category; row 1 holds a str that "
        "is not a number.",
    ):
        check_numeric_input(
            pd.DataFrame({"f": [1.0, 2.0], "k": pd.Categorical([1.0, "secret"])})
        )
    gaps = pd.DataFrame({"f": [1.0], "t": pd.to_timedelta([1], unit="s")})
    with _raises(
        TypeError, f"X column 't' must be numeric; got dtype {gaps['t'].dtype}."
    ):
        check_numeric_input(gaps)


@pytest.mark.parametrize(
    ("X", "text"),
    [
        (
            np.array([[1, 2], [3, "secret"]], dtype=object),
            "v column 1 must be numeric; row 1 holds a str that is not a number.",
        ),
        (
            np.array(["1", "2", "secret"]),
            "v column 0 must be numeric; row 2 holds a str that is not a number.",
        ),
        (
            np.array([[b"1", b"secret"]]),
            "v column 1 must be numeric; row 0 holds a bytes that is not a number.",
        ),
        (
            [[1.0, 2.0], ["secret", 4.0]],
            "v column 0 must be numeric; row 1 holds a str that is not a number.",
        ),
        (
            np.array(["2020-01-01"], dtype="datetime64[D]"),
            "v column 0 must be numeric; got dtype datetime64[D].",
        ),
        (
            np.array([[1, 2]], dtype="timedelta64[s]"),
            "v column 0 must be numeric; got dtype timedelta64[s].",
        ),
    ],
)
def test_array_non_numeric_columns_are_named_with_their_row(X, text):
    with _raises(TypeError, text):
        check_numeric_input(X, name="v")


def test_numeric_input_names_non_numbers_by_their_global_row():
    X = np.array([[1, 2], [3, "secret"]], dtype=object)
    with _raises(
        TypeError, "v column 1 must be numeric; row 8 holds a str that is not a number."
    ):
        check_numeric_input(X, name="v", first_row=7)
    frame = pd.DataFrame({"a": [1.0, "secret"]}, dtype=object)
    with _raises(
        TypeError,
        "v column 'a' must be numeric; got dtype object; row 8 holds a str that is "
        "not a number.",
    ):
        check_numeric_input(frame, name="v", first_row=7)


def test_zero_dim_array_of_a_string_is_named_as_one_cell():
    with _raises(
        TypeError, "v column 0 must be numeric; row 0 holds a str that is not a number."
    ):
        check_numeric_input(np.array("secret"), name="v")


def test_deeper_object_arrays_are_left_to_the_float_cast():
    X = np.array([[["secret"]]], dtype=object)
    assert check_numeric_input(X) is X


# -- NaN, infinity and magnitude -------------------------------------------------
def test_finite_names_the_first_bad_value_in_row_order():
    X = np.zeros((4, 3))
    X[3, 0] = np.nan
    X[1, 2] = np.inf
    X[2, 1] = -np.inf
    with _raises(
        ValueError,
        "v contains infinity at row 1, column 2; every value must be finite (a "
        "missing value is NaN).",
    ):
        check_finite(X, name="v")
    with _raises(
        ValueError,
        "X contains NaN at row 13, column 0; every value must be finite (a missing "
        "value is NaN).",
    ):
        check_finite(X[2:][::-1][:1], first_row=13)
    frame = pd.DataFrame({"age": [1.0, 2.0], "income": [3.0, np.nan]})
    with _raises(
        ValueError,
        "X contains NaN at row 6, column 'income'; every value must be finite (a "
        "missing value is NaN).",
    ):
        check_finite(frame, first_row=5)
    with pytest.raises(ValueError, match=r"at row 2, column 0;"):
        check_finite([1.0, 2.0, -np.inf])
    with pytest.raises(ValueError, match=r"at row 1, column 3;"):
        check_finite(np.array([[[0.0, 0.0], [0.0, 0.0]], [[0.0, 0.0], [0.0, np.nan]]]))


def test_finite_passes_finite_empty_scalar_and_non_numeric_input():
    X = np.array([[1.0, 2.0]])
    assert check_finite(X) is X
    for value in (np.array(np.nan), np.empty((0, 2)), ["a", "b"]):
        assert check_finite(value) is value

    class Lazy:
        """A collection checked block by block (as a dask array)."""

        def __array__(self, dtype=None, copy=None):
            return np.array([np.nan])

    lazy = Lazy()
    assert check_finite(lazy) is lazy


def test_numeric_input_checks_finiteness_only_when_asked():
    X = np.array([[1.0], [np.nan]])
    assert check_numeric_input(X) is X
    with _raises(
        ValueError,
        "v contains NaN at row 8, column 0; every value must be finite (a missing "
        "value is NaN).",
    ):
        check_numeric_input(X, name="v", finite=True, first_row=7)
    nullable = pd.DataFrame({"a": pd.array([1, None], dtype="Int64")})
    with pytest.raises(ValueError, match=r"^v contains NaN at row 3, column 'a';"):
        check_numeric_input(nullable, name="v", finite=True, first_row=2)


def test_magnitude_names_the_first_large_value():
    X = np.zeros((3, 2))
    X[2, 0] = 2e150
    X[1, 1] = -1e300
    with _raises(
        ValueError,
        "v column 1 has a value of -1e+300 at row 11; values beyond +-1e+150 "
        "overflow the squares and sums of the fit. Rescale the data (e.g. change "
        "units) or remove the row.",
    ):
        check_magnitude(X, name="v", first_row=10)
    with pytest.raises(ValueError, match=r"^X column 0 has a value of 11 at row 2;"):
        check_magnitude(np.array([10.0, -10.0, 11.0]), limit=10.0)
    with pytest.raises(ValueError, match=r"values beyond \+-10 overflow"):
        check_magnitude(np.array([[10.5]]), limit=10.0)


def test_magnitude_passes_small_non_finite_integer_and_empty_input():
    for X in (
        np.array([1e150, -1e150]),
        np.array([np.nan, np.inf, -np.inf]),
        np.array([10**18]),
        np.array([1e200], dtype=object),
        np.empty((0, 2)),
    ):
        assert check_magnitude(X) is X
    X = np.array([10.0, -10.0])
    assert check_magnitude(X, limit=10.0) is X


def test_two_sided_names_the_side_never_bounded():
    Z = np.array([[0.0, np.inf], [1.0, np.inf]])
    with _raises(
        ValueError,
        "v has no row with a finite upper bound (all 2 rows are open towards +inf): "
        "the likelihood increases without bound as the location moves to +inf, so "
        "the estimate does not exist. Collect answers that bound the values from "
        "both sides.",
    ):
        check_two_sided(Z, name="v")
    Z = np.array([[-np.inf, 0.0], [-np.inf, 1.0], [-np.inf, 2.0]])
    with pytest.raises(
        ValueError,
        match=r"^y has no row with a finite lower bound \(all 3 rows are "
        r"open towards -inf\): .* moves to -inf,",
    ):
        check_two_sided(Z)
    both = np.array([[-np.inf, np.inf]])
    with pytest.raises(ValueError, match="finite upper bound"):
        check_two_sided(both)
    for Z in (
        np.array([[0.0, np.inf], [1.0, 1.0]]),
        np.array([[-np.inf, 0.0], [1.0, 2.0]]),
        np.empty((0, 2)),
    ):
        assert check_two_sided(Z) is Z


# -- float arguments -------------------------------------------------------------
def test_float_array_names_the_argument_and_position():
    out = check_float_array([1, 2.5], name="v")
    assert out.dtype == np.float64 and out.tolist() == [1.0, 2.5]
    with _raises(TypeError, "v must be numeric; entry (1, 0) is a str, not a number."):
        check_float_array([[1.0, 2.0], ["secret", 3.0]], name="v")
    with _raises(TypeError, "v must be numeric; entry (4, 0) is a str, not a number."):
        check_float_array([[1.0, 2.0], ["secret", 3.0]], name="v", first_row=3)
    with _raises(TypeError, "v must be numeric; entry (1,) is a bytes, not a number."):
        check_float_array([1.0, b"1", "x"], name="v")
    with _raises(TypeError, "v must be numeric; entry (2,) is a list, not a number."):
        check_float_array([1.0, 2.0, [3.0, 4.0]], name="v")
    stamp = np.array([1.0, np.datetime64("2020-01-01")], dtype=object)
    with _raises(
        TypeError, "v must be numeric; entry (1,) is a datetime64, not a number."
    ):
        check_float_array(np.array([stamp[0], stamp[1], "x"], dtype=object), name="v")


class _ObjectsOnly:
    """An array-like of numbers that converts to an object array, never to floats."""

    def __array__(self, dtype=None, copy=None):
        if dtype is not None and np.dtype(dtype) != object:
            raise TypeError("only object arrays")
        return np.array([1.5, 2.5], dtype=object)


def test_float_array_refuses_a_container_that_does_not_become_floats():
    # every entry is a number, so no entry can be named: the argument is
    with _raises(TypeError, "v must be an array of numbers."):
        check_float_array(_ObjectsOnly(), name="v")


@pytest.mark.parametrize("unit", ["datetime64[D]", "timedelta64[s]"])
def test_float_array_refuses_datetimes(unit):
    with _raises(TypeError, "v must be numeric; got datetimes or timedeltas."):
        check_float_array(np.array([1, 2], dtype=unit), name="v")


def test_float_array_nan_and_infinity():
    x = np.array([[0.0, 1.0], [2.0, np.nan], [np.inf, np.nan]])
    with _raises(ValueError, "v contains NaN at entry (1, 1); expected numbers."):
        check_float_array(x, name="v")
    with _raises(ValueError, "v contains NaN at entry (6, 1); expected numbers."):
        check_float_array(x, name="v", first_row=5)
    with _raises(ValueError, "v contains NaN at entry (); expected numbers."):
        check_float_array(np.nan, name="v", first_row=5)
    out = check_float_array(x, name="v", allow_nan=True)
    np.testing.assert_array_equal(out, x)
    with _raises(
        ValueError,
        "v contains an infinite value at entry (4, 0); expected finite numbers.",
    ):
        check_float_array(x, name="v", allow_nan=True, allow_inf=False, first_row=2)
    with _raises(
        ValueError,
        "v contains an infinite value at entry (1,); expected finite numbers.",
    ):
        check_float_array([1.0, -np.inf], name="v", allow_inf=False)
    np.testing.assert_array_equal(
        check_float_array([1.0, -np.inf], name="v"), [1.0, -np.inf]
    )


def test_float_array_of_pandas_and_polars_input():
    series = pd.Series(pd.array([0.5, None], dtype="Float64"))
    out = check_float_array(series, name="v", allow_nan=True)
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [0.5, np.nan])
    with _raises(
        TypeError,
        "v must be numeric; got dtype object; row 1 holds a str that is not a number.",
    ):
        check_float_array(pd.Series([1.0, "secret"], dtype=object), name="v")
    with _raises(
        TypeError,
        "v must be numeric; got polars dtype String; row 0 holds a str that is "
        "not a number.",
    ):
        check_float_array(pl.Series(["secret"]), name="v")
    out = check_float_array(pl.Series([1, None]), name="v", allow_nan=True)
    np.testing.assert_array_equal(out, [1.0, np.nan])


def test_finite_check_of_a_frame_mixing_flags_and_numbers():
    frame = pd.DataFrame({"flag": [True, False], "b": [1.0, np.nan]})
    with _raises(
        ValueError,
        "X contains NaN at row 1, column 'b'; every value must be finite (a missing "
        "value is NaN).",
    ):
        check_numeric_input(frame, finite=True)


@pytest.mark.parametrize("value", [np.nan, np.inf])
def test_finite_check_of_a_single_value(value):
    with pytest.raises(ValueError, match=r"^X contains \w+ at row 0, column 0;"):
        check_finite(np.array([value]))
    with pytest.raises(ValueError, match=r"^X contains \w+ at row 0, column 0;"):
        check_finite(np.array([[value]]))


def test_frame_datetime_column_is_named_by_its_dtype_alone():
    frame = pd.DataFrame({"f": [1.0], "w": pd.to_datetime(["2020-01-01"])})
    with _raises(
        TypeError, f"X column 'w' must be numeric; got dtype {frame['w'].dtype}."
    ):
        check_numeric_input(frame)


def test_float_array_of_a_pandas_array_of_strings_names_the_row():
    with _raises(
        TypeError,
        "v must be numeric; got dtype string; row 1 holds a str that is not a number.",
    ):
        check_float_array(pd.array(["1.5", "secret"], dtype="string"), name="v")


@pytest.mark.parametrize(
    "scalar", ["secret", np.str_("secret"), b"secret", np.bytes_(b"secret")]
)
def test_a_bare_text_scalar_is_refused_without_quoting_it(scalar):
    kind = type(scalar).__name__
    with _raises(
        TypeError,
        f"v column 0 must be numeric; row 0 holds a {kind} that is not a number.",
    ):
        check_numeric_input(scalar, name="v")
    # a privatizer's fit says the same, never the text itself
    from skprivate import LaplaceLDP

    with pytest.raises(TypeError) as info:
        LaplaceLDP(bounds=(0, 1)).fit(scalar)
    assert "secret" not in str(info.value)


def test_nullable_series_become_float_arrays_with_nan():
    # pandas' own to_numpy keeps int64 without a missing entry and gives
    # objects for a nullable boolean: read as float64 with NaN here
    out = check_numeric_input(pd.Series([True, None, False], dtype="boolean"))
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [1.0, np.nan, 0.0])
    out = check_numeric_input(pd.Series([1, 2], dtype="Int64"))
    assert out.dtype == np.float64
    np.testing.assert_array_equal(out, [1.0, 2.0])


def test_a_complex_array_of_three_dimensions_is_left_to_the_shape_check():
    # only 0-, 1- and 2-D arrays are read entry by entry; a 3-D array, complex
    # or not, is refused later by its shape
    cube = np.zeros((2, 2, 2), dtype=complex)
    assert check_numeric_input(cube) is cube
