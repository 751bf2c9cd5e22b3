"""More places where no raw value reaches an error, nor any error chained to it.

The population estimates are evaluated at points that may be the user's
records (``pdf(X)``), their scores take clean values, ``conf_int`` may be
handed the data as its first argument, a dask collection is converted block
by block, and the subset reports may be raw indicators passed by mistake.
Each refusal is searched, with every error chained to it through
``__cause__`` or ``__context__``, for a secret string and a raw number (its
``str``, ``repr``, each of its ``args`` and its formatted line), as in
``test_raw_values_in_errors.py``.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from skprivate.distributions import DiscreteDistribution, PiecewiseUniformDistribution
from skprivate.integral import absolute_relative_error
from skprivate.interval import IntervalCaseI, IntervalMLE, IntervalNPMLE
from skprivate.ldp import (
    DeconvolutionKernelDensity,
    PerturbedKDEEstimator,
    SquareWaveEMSEstimator,
    deconvolution_kernel,
)
from skprivate.negative_survey import RVNSDensityEstimator
from skprivate.subset import (
    SubsetDesign,
    subset_independence_test,
    subset_individual_leakage,
)
from skprivate.utils._statistic import FiniteRange, value_range

from .test_raw_values_in_errors import NUMBER, SECRET, _refusal

N = 40


def _values(n: int = N) -> np.ndarray:
    return np.random.default_rng(0).uniform(1.0, 9.0, size=n)


def _points() -> dict[str, object]:
    """Evaluation points holding a raw string, in every container a user passes."""
    obj = _values().astype(object)
    obj[2] = SECRET
    strings = _values().astype(str)
    strings[2] = SECRET
    return {
        "object array": obj,
        "string array": strings,
        "list": obj.tolist(),
        "nested list": [[v] for v in obj.tolist()],
        "pandas object Series": pd.Series(obj),
        "string scalar": SECRET,
    }


POINTS = _points()


def _fitted_estimates() -> dict[str, object]:
    x = _values(200).reshape(-1, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Z = IntervalCaseI(loc=5.0, random_state=0).fit_transform(x)
        return {
            "DeconvolutionKernelDensity": DeconvolutionKernelDensity(
                noise_scale=0.1, bandwidth=1.0, support=(0, 10)
            ).fit(x),
            "IntervalMLE": IntervalMLE().fit(Z),
            "IntervalNPMLE": IntervalNPMLE().fit(Z),
            "PerturbedKDEEstimator": PerturbedKDEEstimator(
                bounds=(0, 10), bandwidth=0.5
            ).fit(x),
            "SquareWaveEMSEstimator": SquareWaveEMSEstimator(
                epsilon=1.0, bounds=(0, 10)
            ).fit(x),
            "RVNSDensityEstimator": RVNSDensityEstimator(
                bounds=(0, 10), d=2.0, method="paper", bandwidth=0.5
            ).fit(x),
        }


ESTIMATES = _fitted_estimates()
GRID = ("PerturbedKDEEstimator", "SquareWaveEMSEstimator", "RVNSDensityEstimator")


# -- 1. evaluation points of every population estimate ---------------------
@pytest.mark.parametrize("variant", sorted(POINTS))
@pytest.mark.parametrize("estimate", sorted(ESTIMATES))
def test_population_methods_name_the_points_without_quoting_them(estimate, variant):
    est = ESTIMATES[estimate]
    for method in ("pdf", "cdf"):
        error = _refusal(lambda m=method: getattr(est, m)(POINTS[variant]))
        assert str(error).startswith("x ")
        assert error.__context__ is None and error.__cause__ is None
    error = _refusal(lambda: est.quantile(POINTS[variant]))
    assert str(error).startswith("q ")


def test_the_refusal_of_a_point_names_its_position_and_type():
    est = ESTIMATES["IntervalNPMLE"]
    error = _refusal(lambda: est.cdf(POINTS["object array"]))
    assert str(error) == "x must be numeric; entry (2,) is a str, not a number."


@pytest.mark.parametrize("variant", sorted(POINTS))
def test_the_representations_refuse_points_without_quoting_them(variant):
    discrete = DiscreteDistribution([0.0, 1.0], [0.25, 0.75])
    histogram = PiecewiseUniformDistribution([0.0, 1.0, 2.0], [0.5, 0.5])
    for call in (
        lambda: discrete.pmf(POINTS[variant]),
        lambda: discrete.cdf(POINTS[variant]),
        lambda: histogram.pdf(POINTS[variant]),
        lambda: histogram.cdf(POINTS[variant]),
        lambda: discrete.quantile(POINTS[variant]),
    ):
        error = _refusal(call)
        assert error.__context__ is None and error.__cause__ is None


# -- 2. scores of the grid densities on clean values -----------------------
@pytest.mark.parametrize("variant", sorted(POINTS))
@pytest.mark.parametrize("estimate", GRID)
def test_grid_density_scores_keep_no_value(estimate, variant):
    est = ESTIMATES[estimate]
    X = POINTS[variant]
    X = X.to_frame("a") if isinstance(X, pd.Series) else X
    _refusal(lambda: est.score_samples(X))
    _refusal(lambda: est.score(X))


@pytest.mark.parametrize("estimate", GRID)
def test_grid_density_scores_quote_no_number(estimate):
    est = ESTIMATES[estimate]
    one_d = np.r_[NUMBER, _values()[1:]]  # scikit-learn quotes a 1-D array whole
    for call in (lambda: est.score_samples(one_d), lambda: est.score(one_d)):
        assert "values withheld" in str(_refusal(call))


# -- 3. conf_int handed the data -------------------------------------------
@pytest.mark.parametrize("estimate", ["DeconvolutionKernelDensity", "IntervalNPMLE"])
def test_conf_int_with_the_data_as_kind_names_its_type(estimate):
    est = ESTIMATES[estimate]
    data = np.r_[NUMBER, _values()[1:]].reshape(-1, 1)
    error = _refusal(lambda: est.conf_int(data))
    assert str(error).startswith("kind must be a name; got an object of type ndarray")
    _refusal(lambda: est.conf_int([SECRET, 1.0]))
    error = _refusal(lambda: est.conf_int(SECRET))
    assert str(error).startswith("kind must be a name; got a str")


def test_conf_int_points_keep_no_value():
    est = ESTIMATES["PerturbedKDEEstimator"]
    error = _refusal(lambda: est.conf_int("cdf", [NUMBER, np.nan]))
    assert str(error) == (
        "points must be finite numbers; got NaN at entry 1 (in flat order)."
    )
    for points in (POINTS["object array"], POINTS["string scalar"]):
        error = _refusal(lambda p=points: est.conf_int("cdf", p))
        assert error.__context__ is None and error.__cause__ is None
        _refusal(lambda p=points: est.conf_int("quantile", p))


# -- 4. the deconvolution kernel -------------------------------------------
@pytest.mark.parametrize("variant", sorted(POINTS))
def test_deconvolution_kernel_chains_nothing_to_its_refusal(variant):
    error = _refusal(lambda: deconvolution_kernel(POINTS[variant], 0.5))
    assert str(error).startswith("u ")
    assert error.__context__ is None and error.__cause__ is None
    _refusal(lambda: deconvolution_kernel(_values(), POINTS["object array"]))


# -- 5, 6. dask collections, converted block by block ----------------------
def _dask_records():
    da = pytest.importorskip("dask.array")
    obj = _values().reshape(-1, 1).astype(object)
    obj[12, 0] = SECRET
    return da.from_array(obj, chunks=(10, 1))


@pytest.mark.parametrize(
    "make",
    [
        lambda: PerturbedKDEEstimator(bounds=(0, 10), bandwidth=0.5),
        lambda: SquareWaveEMSEstimator(epsilon=1.0, bounds=(0, 10)),
        lambda: RVNSDensityEstimator(
            bounds=(0, 10), d=2.0, method="paper", bandwidth=0.5
        ),
        lambda: RVNSDensityEstimator(bounds=(0, 10), d=2.0, method="ml"),
        lambda: RVNSDensityEstimator(d=2.0, method="ml"),
    ],
    ids=["perturbed-kde", "square-wave", "rvns-paper", "rvns-ml", "rvns-range"],
)
def test_grid_density_of_a_dask_array_keeps_no_value(make):
    X = _dask_records()
    error = _refusal(lambda: make().fit(X))
    assert "(12, 0)" in str(error)  # counted in the whole data


def test_value_range_names_the_entry_of_a_string():
    X = _dask_records()
    error = _refusal(lambda: value_range(X, name="Z"))
    assert str(error) == "Z must be numeric; entry (12, 0) is a str, not a number."
    obj = np.array([[1.0], [SECRET]], dtype=object)
    error = _refusal(lambda: FiniteRange().block(obj, 30))
    assert "entry (31, 0)" in str(error)
    assert error.__context__ is None and error.__cause__ is None


# -- 7. absolute_relative_error of pandas values ---------------------------
def test_absolute_relative_error_of_pandas_keeps_no_value():
    true = pd.Series(_values().astype(object))
    true[3] = SECRET
    error = _refusal(lambda: absolute_relative_error(true, 1.0))
    assert str(error).startswith("true ")
    error = _refusal(lambda: absolute_relative_error(true.to_frame("age"), 1.0))
    assert "'age'" in str(error)
    good = pd.Series(_values())
    _refusal(lambda: absolute_relative_error(good, true))
    _refusal(lambda: absolute_relative_error(good, POINTS["object array"]))
    np.testing.assert_allclose(
        absolute_relative_error(good, good + 1.0), 1.0 / good.abs().clip(lower=1.0)
    )


# -- 8. scikit-learn's parameter checks in a score --------------------------
def test_a_scalar_target_given_to_a_score_is_not_quoted():
    from skprivate.ldp import DeconvolutionKernelRegressor

    reg = DeconvolutionKernelRegressor(noise_scale=0.1, bandwidth=1.0)
    reg.fit(_values().reshape(-1, 1), _values())
    error = _refusal(lambda: reg.score(_values().reshape(-1, 1), NUMBER))
    assert "values withheld" in str(error)
    _refusal(lambda: reg.score(_values().reshape(-1, 1), SECRET))


# -- 9. subset reports ------------------------------------------------------
def _reports(n: int = 30) -> np.ndarray:
    rng = np.random.default_rng(0)
    out = np.zeros((n, 5), dtype=int)
    for i in range(n):
        out[i, rng.choice(5, size=2, replace=False)] = 1
    return out


def test_subset_reports_name_the_row_without_its_values():
    design = SubsetDesign.uniform(5)
    A = _reports().astype(float)
    A[2, 3] = NUMBER
    error = _refusal(lambda: subset_individual_leakage(A, design, [0.2] * 5))
    assert str(error) == (
        "A must contain only 0 and 1 (subset indicators); row 2 holds another "
        "value, in column 3."
    )
    obj = _reports().astype(object)
    obj[2, 3] = SECRET
    _refusal(lambda: subset_individual_leakage(obj, design, [0.2] * 5))
    _refusal(lambda: subset_independence_test(A, _reports()))
    _refusal(lambda: subset_independence_test(_reports(), obj))


def test_an_inadmissible_subset_is_named_by_its_row_alone():
    A = _reports()
    A[4] = [0, 0, 1, 0, 0]  # size 1: never reported by the uniform design of 5
    error = _refusal(lambda: subset_independence_test(_reports(), A))
    text = str(error)
    assert text.startswith("Row 4 of ") and "never reports" in text
    assert "[2]" not in text


def test_conf_int_with_a_scalar_as_x_names_its_type():
    from skprivate import IterativeIntervalRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(50, 2))
    y = X @ [1.0, 1.0] + rng.normal(size=50)
    est = IterativeIntervalRegressor().fit(X, np.column_stack([y - 0.5, y + 0.5]))
    with pytest.raises(ValueError) as info:
        est.conf_int("predict", X[:2], X="SECRET-123")
    assert str(info.value) == (
        "X must be the data passed to IterativeIntervalRegressor.fit, an array "
        "of rows; got a scalar of type str."
    )
