"""Exact pins of fitting guarantees: stopping rules relative to the noise
scale, binned density sums beyond their grids, global row numbers of later
chunks and partitions, and the command line's ``--keep`` check.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.linear_model import LinearRegression, Ridge

from skprivate import IterativeIntervalRegressor
from skprivate.__main__ import main
from skprivate.interval import IntervalCaseI, IntervalMLE, IntervalNPMLE
from skprivate.ldp import DeconvolutionKernelDensity
from skprivate.ldp._binned_1d import BinnedSums
from skprivate.ldp._binned_nd import nd_binned_grid
from skprivate.ldp._direct_sums import direct_sums
from skprivate.negative_survey import RVNSDensityEstimator
from skprivate.subset import SubsetDistributionEstimator, SubsetUniform


# -- 6. stopping rules relative to sigma -----------------------------------------
def _censored_design(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = X @ [1.0, -2.0, 0.5] + 3.0 + rng.normal(size=n)
    Z = np.column_stack([np.floor(y), np.floor(y) + 1.0])
    Z[::3, 1] = np.inf  # a third right-censored
    return X, Z


@pytest.mark.parametrize("scale", [1e-6, 1e6])
@pytest.mark.parametrize(
    "base, rtol",
    # Newton (LinearRegression) stops at a step of 1e-6 sigma, leaving an
    # error of its square; EM (Ridge) at a change of tol = 1e-4 sigma per
    # iteration, a few 1e-6 of the coefficients here.
    [(LinearRegression(), 1e-9), (Ridge(alpha=1.0), 5e-5)],
    ids=["newton", "em"],
)
def test_interval_regression_is_equivariant_to_the_unit_of_y(base, rtol, scale):
    X, Z = _censored_design()
    unit = IterativeIntervalRegressor(base).fit(X, Z)
    scaled = IterativeIntervalRegressor(base).fit(X, Z * scale)
    assert scaled.solver_ == unit.solver_
    np.testing.assert_allclose(
        scaled.estimator_.coef_ / scale, unit.estimator_.coef_, rtol=rtol
    )
    assert scaled.estimator_.intercept_ / scale == pytest.approx(
        unit.estimator_.intercept_, rel=rtol
    )
    assert scaled.sigma_ / scale == pytest.approx(unit.sigma_, rel=rtol)
    # the same number of iterations: the stopping rule saw the same changes
    assert len(scaled.history_) == len(unit.history_)


@pytest.mark.parametrize("scale", [1e-6, 1e6])
def test_parametric_and_npmle_fits_are_equivariant_to_the_unit(scale):
    rng = np.random.default_rng(1)
    Z = IntervalCaseI(random_state=2).fit_transform(rng.normal(3.0, 2.0, (400, 1)))
    mle, mle_s = IntervalMLE().fit(Z), IntervalMLE().fit(Z * scale)
    assert mle_s.loc_ / scale == pytest.approx(mle.loc_, rel=1e-6)
    assert mle_s.scale_ / scale == pytest.approx(mle.scale_, rel=1e-6)
    npmle, npmle_s = IntervalNPMLE().fit(Z), IntervalNPMLE().fit(Z * scale)
    assert npmle_s.mean() / scale == pytest.approx(npmle.mean(), rel=1e-6)
    for q in (0.25, 0.5, 0.75):
        assert npmle_s.quantile(q) / scale == pytest.approx(npmle.quantile(q), rel=1e-6)


# -- 7. binned sums beyond their grids -------------------------------------------
def test_nd_grid_sums_between_the_last_node_and_one_step_beyond():
    rng = np.random.default_rng(0)
    Z = rng.normal(size=(400, 2))
    h, ratio = 0.3, np.array([0.5, 0.5])
    sums = nd_binned_grid(Z, None, h, ratio, "cauchy", "binned")
    grid = sums.grid
    X = np.array(
        [
            grid.hi,  # the last node: interpolation reads it exactly
            [grid.hi[0] + 0.5 * grid.delta[0], 0.0],  # half a step beyond
            [0.1, grid.hi[1] + 0.999 * grid.delta[1]],
            grid.hi + 0.5 * grid.delta,
        ]
    )
    got = sums.evaluate(X)[:, 0]
    # the exact sums over the binned nodes (what the grid holds)
    keep = np.flatnonzero(sums.counts[:, 0])
    nodes = grid.lo + grid.delta * np.array(np.unravel_index(keep, grid.shape)).T
    on_nodes = direct_sums(X, nodes, sums.counts[keep], h, ratio, "cauchy")[:, 0]
    np.testing.assert_allclose(got, on_nodes / h**2, rtol=1e-9)
    # and the sums over the data themselves, to the binning error
    exact = direct_sums(X, Z, np.ones((400, 1)), h, ratio, "cauchy")[:, 0] / h**2
    np.testing.assert_allclose(got, exact, rtol=2e-3)


def test_1d_binned_sums_far_outside_the_grid_match_the_direct_sum():
    rng = np.random.default_rng(0)
    z = rng.normal(size=500)
    h, ratio = 0.3, 0.5
    binned = BinnedSums(z, None, h, ratio, "cauchy")
    x = np.array(
        [
            binned.hi + 0.5 * binned.delta,
            binned.hi + 20 * h,  # the grid extended by zero counts
            binned.lo - 200 * h,
            binned.lo - 5000.0,  # beyond any extension: summed directly
            binned.hi + 1e6 * binned.delta,
        ]
    )
    # one point at a time: a far point sends all of a call to direct sums
    got = np.array([binned.evaluate(x[i : i + 1])[0, 0] for i in range(x.size)])
    nodes, counts = binned.nodes()
    on_nodes = direct_sums(
        x[:, None], nodes[:, None], counts[:, None], h, [ratio], "cauchy"
    )
    # up to the linear interpolation between nodes, below 1e-5 here
    np.testing.assert_allclose(got, on_nodes[:, 0] / h, rtol=1e-5)
    exact = direct_sums(x[:, None], z[:, None], np.ones((500, 1)), h, [ratio], "cauchy")
    np.testing.assert_allclose(got, exact[:, 0] / h, rtol=1e-4)
    # and all at once, through the direct sums
    np.testing.assert_allclose(binned.evaluate(x)[:, 0], on_nodes[:, 0] / h, rtol=1e-9)


# -- 8. global row numbers of later chunks and partitions -------------------------
def _bad_data():
    """(learner, data with one bad value at row 1234) for a few statistics."""
    rng = np.random.default_rng(8)
    z = rng.normal(size=(3000, 1))
    z[1234, 0] = np.nan
    y = rng.uniform(0, 10, (3000, 2))
    y[1234, 1] = np.inf
    reports = np.asarray(
        SubsetUniform(random_state=0).fit_transform(rng.choice(4, (3000, 1))),
        dtype=float,
    )
    reports[1234, 0] = np.nan
    intervals = IntervalCaseI(random_state=0).fit_transform(rng.normal(size=(3000, 1)))
    intervals[1234] = [2.0, 1.0]  # lower > upper
    return {
        "density": (
            DeconvolutionKernelDensity(bandwidth=0.5, noise_scale=1.0, support=(-4, 4)),
            z,
        ),
        "rvns": (RVNSDensityEstimator(d=2.0, bounds=(0, 10)), y),
        "subset": (SubsetDistributionEstimator(), reports),
        "npmle": (IntervalNPMLE(), intervals),
    }


@pytest.mark.parametrize("case", ["density", "rvns", "subset"])
def test_a_bad_value_in_the_third_chunk_names_its_row_in_the_whole_data(case):
    est, data = _bad_data()[case]
    with pytest.raises(ValueError) as in_memory:
        clone(est).fit(data)
    assert "1234" in str(in_memory.value)
    # chunks of 1000, 100 and 1900 rows: the bad row is row 134 of the third
    streamed = clone(est).partial_fit(data[:1000]).partial_fit(data[1000:1100])
    with pytest.raises(ValueError) as chunk:
        streamed.partial_fit(data[1100:])
    assert str(chunk.value) == str(in_memory.value)


@pytest.mark.parametrize("case", ["density", "rvns", "subset", "npmle"])
@pytest.mark.parametrize("kind", ["array", "frame"])
def test_a_bad_value_in_the_second_partition_names_its_global_row(case, kind):
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    import dask

    est, data = _bad_data()[case]
    with pytest.raises(ValueError) as in_memory:
        clone(est).fit(data)
    # unequal partitions of 1000, 300 and 1700 rows: row 1234 is the 235th
    # of the second
    if kind == "array":
        lazy = da.from_array(data, chunks=((1000, 300, 1700), (data.shape[1],)))
    else:
        frame = pd.DataFrame(data, columns=[f"c{j}" for j in range(data.shape[1])])
        parts = [frame.iloc[:1000], frame.iloc[1000:1300], frame.iloc[1300:]]
        lazy = dd.concat([dd.from_pandas(p, npartitions=1) for p in parts])
        assert lazy.npartitions == 3
    with dask.config.set(scheduler="synchronous"), pytest.raises(ValueError) as on_dask:
        clone(est).fit(lazy)
    message = str(in_memory.value)
    if kind == "frame":  # named columns instead of x0, x1
        message = message.replace("x0", "c0").replace("x1", "c1")
    assert str(on_dask.value) in (message, str(in_memory.value))


# -- 9. the command line's --keep among several --columns --------------------------
@pytest.fixture
def survey_csv(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "id": np.arange(50),
            "age": rng.integers(18, 90, size=50),
            "income": rng.uniform(0, 10, size=50),
        }
    )
    path = tmp_path / "survey.csv"
    frame.to_csv(path, index=False)
    return path


def _privatize(path, out, columns, keep):
    return [
        "privatize",
        "--mechanism",
        "laplace",
        "--columns",
        columns,
        "--param",
        "epsilon=1",
        "--param",
        "bounds=(0, 100)",
        "--keep",
        keep,
        str(path),
        "-o",
        str(out),
    ]


@pytest.mark.parametrize(
    "columns, keep, named",
    [
        ("age,income", "id,income", "income"),  # the second of two columns
        ("age,income", "income", "income"),
        ("income,age", "age,id", "age"),
        ("age,income", "income,age", "income, age"),
    ],
)
def test_keep_naming_any_of_several_columns_is_refused(
    survey_csv, tmp_path, capsys, columns, keep, named
):
    out = tmp_path / "out.csv"
    code = main(_privatize(survey_csv, out, columns, keep))
    err = capsys.readouterr().err
    assert code == 2
    assert f"--keep {named} is also in --columns" in err
    assert not out.exists()


def test_keep_of_other_columns_with_several_columns_is_accepted(
    survey_csv, tmp_path, capsys
):
    out = tmp_path / "out.csv"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        code = main(_privatize(survey_csv, out, "age,income", "id"))
    capsys.readouterr()
    assert code == 0
    assert list(pd.read_csv(out).columns) == ["id", "age", "income"]
