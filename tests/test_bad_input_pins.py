"""Bad input that used to slip through: each is refused with its reason (or
answered as scikit-learn answers it), naming the row where there is one."""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.exceptions import UndefinedMetricWarning
from sklearn.linear_model import LinearRegression
from sklearn.metrics import r2_score

from skprivate import DeconvolutionKernelDensity, IterativeIntervalRegressor
from skprivate.integral import laplace_describe, laplace_statistic
from skprivate.interval import interval_r2_score
from skprivate.subset import SubsetUniform


# -- interval regression with more coefficients than rows ------------------------
def _wide(n, p, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, p))
    y = X[:, 0] + rng.normal(size=n)
    return X, y, np.column_stack([np.floor(y), np.floor(y) + 1.0])


def test_interval_mle_with_more_features_than_rows_is_refused():
    X, _, Z = _wide(5, 1000)
    with pytest.raises(ValueError, match="5 rows and 1000 features") as info:
        IterativeIntervalRegressor().fit(X, Z)
    assert "1001 coefficients" in str(info.value)
    assert "at least 1002" in str(info.value)


@pytest.mark.parametrize("fit_intercept, smallest", [(True, 5), (False, 4)])
def test_interval_mle_needs_one_row_more_than_coefficients(fit_intercept, smallest):
    # 3 features: 4 coefficients with the intercept, so 5 rows at least
    base = LinearRegression(fit_intercept=fit_intercept)
    X, _, Z = _wide(smallest - 1, 3)
    with pytest.raises(ValueError, match="more rows than coefficients"):
        IterativeIntervalRegressor(base).fit(X, Z)
    X, _, Z = _wide(40, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        IterativeIntervalRegressor(base).fit(X[:smallest], Z[:smallest])


def test_exact_responses_with_more_features_than_rows_are_least_squares():
    # no interval: the fit is the base regressor's (minimum-norm) least squares
    X, y, _ = _wide(5, 1000)
    est = IterativeIntervalRegressor().fit(X, y)
    np.testing.assert_allclose(est.predict(X), LinearRegression().fit(X, y).predict(X))


# -- a density in many dimensions from few records --------------------------------
def test_density_from_fewer_records_than_features_is_refused():
    X = np.random.default_rng(0).normal(size=(5, 1000))
    with pytest.raises(ValueError, match="n_samples = 5 records for 1000 features"):
        DeconvolutionKernelDensity(noise_scale=0.5).fit(X)


def test_density_needs_more_records_than_features():
    X = np.random.default_rng(0).normal(size=(4, 3))
    kde = DeconvolutionKernelDensity(noise_scale=0.5, bandwidth=1.0)
    with pytest.raises(ValueError, match="more records than features"):
        kde.fit(X[:3])
    assert np.all(np.isfinite(kde.fit(X).score_samples(X)))


# -- a missing category on dask ----------------------------------------------------
@pytest.mark.parametrize("npartitions", [1, 3, 7])
def test_missing_category_on_dask_names_the_global_row(npartitions):
    dd = pytest.importorskip("dask.dataframe")
    import dask

    frame = pd.DataFrame({"race": ["a", "b", "c"] * 20})
    frame.loc[45, "race"] = None
    with pytest.raises(ValueError) as in_memory:
        SubsetUniform(random_state=0).fit(frame)
    assert "at row 45" in str(in_memory.value)
    lazy = dd.from_pandas(frame, npartitions=npartitions)
    with (
        dask.config.set(scheduler="synchronous"),
        pytest.raises(ValueError) as lazy_error,
    ):
        SubsetUniform(random_state=0).fit(lazy)
    assert str(lazy_error.value) == str(in_memory.value)


# -- an infinite value in a DP statistic ---------------------------------------------
@pytest.mark.parametrize("statistic", ["mean", "sum", "median", "max", "iqr"])
def test_laplace_statistic_refuses_an_infinite_value_naming_its_row(statistic):
    x = np.arange(10.0)
    x[7] = np.inf
    with pytest.raises(ValueError, match=r"infinite value at entry \(7,\)"):
        laplace_statistic(x, statistic, 1.0, bounds=(0, 10), random_state=0)


def test_laplace_statistic_on_dask_refuses_an_infinite_value_as_in_memory():
    da = pytest.importorskip("dask.array")
    import dask

    x = np.random.default_rng(9).uniform(0, 1, 3000)
    x[2345] = -np.inf
    with pytest.raises(ValueError) as in_memory:
        laplace_statistic(x, "mean", 1.0, bounds=(0, 1), random_state=0)
    with dask.config.set(scheduler="synchronous"), pytest.raises(ValueError) as lazy:
        laplace_statistic(da.from_array(x, chunks=500), "mean", 1.0, bounds=(0, 1))
    assert "(2345,)" in str(in_memory.value)
    assert str(lazy.value) == str(in_memory.value)


def test_laplace_describe_names_the_row_of_an_infinite_value_in_the_table():
    # a missing value before it is dropped; the row is still the table's
    x = np.arange(10.0)
    x[2], x[7] = np.nan, np.inf
    frame = pd.DataFrame({"a": np.arange(10.0), "b": x})
    with pytest.raises(
        ValueError, match="Column 'b' of df has an infinite value at row 7"
    ):
        laplace_describe(frame, 1.0, bounds=(0, 10), random_state=0)


# -- R² of a constant target -------------------------------------------------------
@pytest.mark.parametrize("y_pred", [[1.0, 1.0, 1.0], [1.0, 2.0, 1.0], [0.0, 5.0, -3.0]])
def test_interval_r2_of_a_constant_exact_target_is_scikit_learns(y_pred):
    y_true = [1.0, 1.0, 1.0]
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # neither warns
        assert interval_r2_score(y_true, y_pred) == r2_score(y_true, y_pred)


def test_interval_r2_of_one_row_warns_and_is_nan_as_scikit_learns():
    with pytest.warns(UndefinedMetricWarning) as expected:
        assert np.isnan(r2_score([1.0], [2.0]))
    with pytest.warns(UndefinedMetricWarning, match="less than two samples") as got:
        assert np.isnan(interval_r2_score([1.0], [2.0]))
    assert str(got[0].message) == str(expected[0].message)
    assert got[0].filename == __file__  # points at the caller's line
    with pytest.warns(UndefinedMetricWarning):
        assert np.isnan(interval_r2_score([[0.0, 1.0]], [2.0]))


def test_interval_r2_when_the_best_constant_lies_in_every_interval():
    # the denominator vanishes: 1 for predictions inside every interval, else
    # 0, as for a constant exact target
    y_true = [[0.0, 2.0], [0.5, 3.0], [1.0, 1.5]]
    assert interval_r2_score(y_true, [1.0, 1.0, 1.2]) == 1.0
    assert interval_r2_score(y_true, [1.0, 4.0, 1.2]) == 0.0
