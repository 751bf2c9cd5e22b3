import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import DataConversionWarning

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.utils import (
    bounds_from_data,
    check_bounds,
    check_generator,
    check_interval_array,
    make_interval_array,
)
from skprivate.utils.validation import check_numeric_input


def test_interval_array_accepts_exact_halflines_and_lists():
    y = check_interval_array([[-np.inf, 1.0], [2.0, 2.0], [3.0, np.inf]])
    assert y.shape == (3, 2) and y.dtype == np.float64
    np.testing.assert_array_equal(check_interval_array([1.0, 2.0]), [[1, 1], [2, 2]])


def test_interval_array_column_vector_warns():
    with pytest.warns(DataConversionWarning, match="exact values"):
        y = check_interval_array(np.array([[1.0], [2.0]]))
    np.testing.assert_array_equal(y, [[1, 1], [2, 2]])


@pytest.mark.parametrize(
    "y, match",
    [
        ([[2.0, 1.0]], r"lower > upper at row 0"),
        ([[0.0, 1.0], [np.inf, np.inf]], r"lower bound of \+inf .* row 1"),
        ([[-np.inf, -np.inf]], r"upper bound of -inf"),
        ([[np.nan, 1.0]], "exactly one NaN"),
        ([[np.nan, np.nan]], "contains NaN"),
        (np.zeros((3, 3)), r"shape \(n, 2\)"),
        (np.zeros((2, 2, 2)), "dim"),
    ],
)
def test_interval_array_errors(y, match):
    with pytest.raises(ValueError, match=match):
        check_interval_array(y)


def test_interval_array_nan_rows_when_allowed_and_1d_refused():
    y = check_interval_array([[np.nan, np.nan], [0, 1]], allow_nan=True)
    assert np.isnan(y[0]).all()
    with pytest.raises(ValueError, match="got a 1-D array"):
        check_interval_array([1.0], allow_1d=False)


def test_interval_array_error_names_the_variable():
    with pytest.raises(ValueError, match="^income has lower > upper"):
        check_interval_array([[3, 1]], name="income")


def test_make_interval_array():
    np.testing.assert_array_equal(make_interval_array([0, 1], [1, 1]), [[0, 1], [1, 1]])
    with pytest.raises(ValueError, match="same length"):
        make_interval_array([0, 1], [1])


def test_check_bounds_broadcasts_and_rejects():
    low, high = check_bounds((0, [1, 2, 3]), 3)
    np.testing.assert_array_equal(low, [0, 0, 0])
    np.testing.assert_array_equal(high, [1, 2, 3])
    with pytest.raises(ValueError, match="column 1 has low=2 >= high=2"):
        check_bounds(([0, 2], 2), 2)
    with pytest.raises(ValueError, match=r"2 columns; got 5\. Accepted forms"):
        check_bounds(5, 2)
    with pytest.raises(ValueError, match=r"2 columns; got \(\[0, 1, 2\], 5\)"):
        check_bounds(([0, 1, 2], 5), 2)
    with pytest.raises(ValueError, match="finite"):
        check_bounds((0, np.inf), 1)


def test_bounds_from_data_warns_and_widens_constant_columns():
    X = np.array([[1.0, 5.0], [3.0, 5.0]])
    with pytest.warns(PrivacyLeakWarning, match="read from the data"):
        low, high = bounds_from_data(X, owner="Thing")
    np.testing.assert_array_equal(low, [1.0, 4.5])
    np.testing.assert_array_equal(high, [3.0, 5.5])


def test_check_generator():
    assert check_generator(1).random() == check_generator(1).random()
    g = np.random.default_rng(0)
    assert check_generator(g) is g
    rs = np.random.RandomState(0)
    assert check_generator(rs).random() != check_generator(rs).random()
    with pytest.raises(ValueError, match="random_state"):
        check_generator("x")


@pytest.mark.parametrize("as_series", [False, True])
def test_a_numeric_categorical_with_a_missing_entry_is_refused_as_nan(as_series):
    # the entry decodes to NaN and is named as NaN is, never by pandas'
    # "Cannot convert float NaN to integer"
    from skprivate import LaplaceLDP

    column = pd.Series(pd.Categorical([1, None, 2]), name="c")
    X = column if as_series else column.to_frame()
    where = "column 0" if as_series else "column 'c'"
    with pytest.raises(ValueError) as caught:
        LaplaceLDP(bounds=(0, 3)).fit_transform(X)
    assert str(caught.value) == (
        f"X contains NaN at row 1, {where}; every value must be finite (a "
        "missing value is NaN)."
    )
    decoded = check_numeric_input(column, name="x")
    np.testing.assert_array_equal(np.asarray(decoded, float), [1.0, np.nan, 2.0])
