"""One numeric input check for numpy, pandas (nullable dtypes) and polars."""

import datetime

import numpy as np
import pandas as pd
import pytest

from skprivate import LaplaceLDP, grid_kde
from skprivate.utils.validation import check_float_array, check_numeric_input

pl = pytest.importorskip("polars")


def test_polars_frame_becomes_the_pandas_frame_of_its_columns():
    frame = pl.DataFrame(
        {"a": [1, 2, None], "b": [0.5, 1.5, 2.5], "c": [True, False, None]}
    )
    out = check_numeric_input(frame)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == ["a", "b", "c"]
    np.testing.assert_array_equal(out["a"].to_numpy(), [1.0, 2.0, np.nan])
    np.testing.assert_array_equal(out["c"].to_numpy(), [1.0, 0.0, np.nan])
    assert out["b"].dtype == np.float64


@pytest.mark.parametrize(
    "column, dtype",
    [
        (["x", "y"], "String; row 0 holds a str that is not a number"),
        ([datetime.date(2020, 1, 1)] * 2, "Date"),
    ],
    ids=["string", "date"],
)
def test_polars_non_numeric_column_is_named_not_quoted(column, dtype):
    frame = pl.DataFrame({"age": [1.0, 2.0], "secret": column})
    match = rf"X column 'secret' must be numeric; got polars dtype {dtype}\.$"
    with pytest.raises(TypeError, match=match):
        check_numeric_input(frame)


def test_polars_series_and_lazy_frame():
    np.testing.assert_array_equal(
        check_numeric_input(pl.Series([1, None])), [1.0, np.nan]
    )
    with pytest.raises(TypeError, match=r"y is a polars LazyFrame; call \.collect\(\)"):
        check_numeric_input(pl.DataFrame({"a": [1.0]}).lazy(), name="y")


def test_pandas_nullable_missing_value_is_nan_with_its_row():
    frame = pd.DataFrame({"a": pd.array([1, 2, None], dtype="Int64")})
    out = check_numeric_input(frame)
    assert out["a"].dtype == np.float64 and np.isnan(out["a"].iloc[2])
    with pytest.raises(ValueError, match=r"X contains NaN at row 2, column 'a'"):
        check_numeric_input(frame, finite=True)
    series = pd.Series(pd.array([0.5, None], dtype="Float64"))
    with pytest.raises(ValueError, match=r"values contains NaN at entry \(1,\)"):
        check_float_array(series, name="values")


def test_laplace_on_polars_with_polars_output():
    X = pd.DataFrame({"a": np.linspace(0.1, 0.9, 8), "b": np.linspace(0.2, 0.8, 8)})
    expected = LaplaceLDP(bounds=(0, 1), random_state=0).set_output(transform="pandas")
    expected = expected.fit_transform(X)
    est = LaplaceLDP(bounds=(0, 1), random_state=0).set_output(transform="polars")
    out = est.fit_transform(pl.DataFrame({"a": X["a"], "b": X["b"]}))
    assert isinstance(out, pl.DataFrame) and out.columns == ["a", "b"]
    np.testing.assert_array_equal(out.to_numpy(), expected.to_numpy())
    with pytest.raises(ValueError, match=r"X contains NaN at row 1, column 'b'"):
        est.transform(pl.DataFrame({"a": [0.5, 0.5], "b": [0.5, None]}))


def test_grid_kde_ignores_far_outliers_instead_of_coarsening_the_grid():
    rng = np.random.default_rng(0)
    values = rng.normal(size=500)
    points = np.linspace(-2, 2, 5)
    h = 0.3

    def exact(v):
        u = np.clip((points[:, None] - v[None, :]) / h, -50, 50)
        return np.exp(-0.5 * u * u).sum(axis=1) / (np.sqrt(2 * np.pi) * h * 500)

    for outlier in (1e6, 1e300):
        with_outlier = values.copy()
        with_outlier[0] = outlier
        np.testing.assert_allclose(
            grid_kde(with_outlier, points, h), exact(with_outlier), rtol=2e-3
        )
    # points spread over more bandwidths than the grid has bins: direct sums
    # (the kernel cut at 5 bandwidths drops a share below 4e-6)
    far = np.array([-2.0, 0.0, 2.0, 1e6])
    np.testing.assert_allclose(
        grid_kde(values, far, h)[:3], exact(values)[[0, 2, 4]], rtol=1e-5
    )
    assert grid_kde(values, far, h)[3] == 0.0
