"""Privatizers and learners on dask collections, on a 2-worker LocalCluster.

Lazy types, the in-memory answers, reproducibility across chunkings and
re-computation, fresh noise across calls.
"""

import subprocess
import sys

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

import skprivate
from skprivate import (
    DeconvolutionKernelDensity,
    LaplaceLDP,
    RVNSPerturber,
    SubsetDistributionEstimator,
    SubsetUniform,
)
from skprivate.base import (
    PrivatizedInputMixin,
    PrivatizerMixin,
    SufficientStatisticMixin,
)
from skprivate.integral import IntegralPrivateStatistics, laplace_statistic
from skprivate.interval import IntervalCaseI, IntervalMLE, IntervalNPMLE
from skprivate.ldp import PerturbedKDEEstimator, SquareWaveEMSEstimator, SquareWaveLDP
from skprivate.negative_survey import RVNSDensityEstimator
from skprivate.utils import all_estimators

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.filterwarnings(
    "ignore::skprivate.exceptions.PrivacyLeakWarning"
)

CATEGORIES = ["Asian", "Black", "Other", "White", "Native"]


@pytest.fixture(scope="module")
def client():
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=False, dashboard_address=None
        ) as cluster,
        distributed.Client(cluster) as c,
    ):
        yield c


def test_import_does_not_import_dask():
    code = (
        "import sys, skprivate; print(any(m.startswith('dask') for m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    )
    assert out.stdout.strip() == "False"


def _privatizers():
    """Every privatizer, with settings that need nothing from the data."""
    made = {
        "LaplaceLDP": LaplaceLDP(epsilon=2, bounds=(0, 10)),
        "SubsetUniform": SubsetUniform(categories=[CATEGORIES]),
        "RVNSPerturber": RVNSPerturber(d=2.0, k=2, bounds=(0, 10)),
        "IntervalEnsemble": skprivate.interval.IntervalEnsemble(
            [IntervalCaseI(scale=3), IntervalCaseI(scale=3)]
        ),
    }
    out = []
    for name, cls in all_estimators():
        if not issubclass(cls, PrivatizerMixin):
            continue
        est = made.get(name)
        if est is None:
            params = cls().get_params()
            kw = {"bounds": (0, 10)} if "bounds" in params else {}
            est = cls(**kw)
        out.append(est)
    return out


def _raw(privatizer, n=600):
    rng = np.random.default_rng(0)
    if isinstance(privatizer, SubsetUniform | skprivate.SubsetMechanism):
        return pd.DataFrame({"race": rng.choice(CATEGORIES, n)})
    return pd.DataFrame({"age": rng.uniform(0, 10, n), "score": rng.uniform(0, 10, n)})


@pytest.mark.parametrize("privatizer", _privatizers(), ids=lambda p: type(p).__name__)
def test_every_privatizer_lazy_reproducible_fresh(client, privatizer):
    privatizer = clone(privatizer).set_params(random_state=0)
    frame = _raw(privatizer)
    if isinstance(privatizer, skprivate.SubsetMechanism):
        privatizer.set_params(categories=[CATEGORIES])
    ddf = dd.from_pandas(frame, npartitions=3)
    fitted = clone(privatizer).fit(ddf)
    out = fitted.transform(ddf)
    assert isinstance(out, dd.DataFrame)
    names = list(fitted.get_feature_names_out())
    assert list(out.columns) == names
    first = out.compute()
    assert list(first.columns) == names
    assert (first.dtypes == out.dtypes).all()
    # re-computation: the same noise; a second call: fresh noise
    pd.testing.assert_frame_equal(first, out.compute())
    assert not first.equals(fitted.transform(ddf).compute())
    # a fresh instance with the same seed reproduces the first call
    again = clone(privatizer).fit(ddf).transform(ddf).compute()
    pd.testing.assert_frame_equal(first, again)
    # dask arrays: same lazy type; column chunking does not matter
    arr = ddf.to_dask_array(lengths=True)
    if isinstance(privatizer, SubsetUniform | skprivate.SubsetMechanism):
        return
    a = clone(privatizer).fit(arr)
    z = a.transform(arr)
    assert isinstance(z, da.Array) and z.shape == (len(frame), len(names))
    rechunked = clone(privatizer).fit(arr).transform(arr.rechunk((arr.chunks[0], 1)))
    np.testing.assert_array_equal(z.compute(), rechunked.compute())
    np.testing.assert_array_equal(z.compute(), np.asarray(first, dtype=float))


def test_partitions_are_the_unit_of_randomness(client):
    x = np.random.default_rng(1).uniform(0, 10, (1000, 1))
    one = LaplaceLDP(epsilon=1, bounds=(0, 10), random_state=3)
    X = da.from_array(x, chunks=(250, 1))
    z = clone(one).fit(X).transform(X)
    # each block is the in-memory privatizer on that block with its own stream
    assert z.numblocks == (4, 1)
    blocks = [z.blocks[i].compute() for i in range(4)]
    np.testing.assert_array_equal(np.vstack(blocks), z.compute())
    # one worker (the synchronous scheduler) or two: the same release
    import dask

    with dask.config.set(scheduler="synchronous"):
        np.testing.assert_array_equal(z.compute(), np.vstack(blocks))
    # another row chunking is another release
    other = clone(one).fit(X).transform(X.rechunk((500, 1))).compute()
    assert not np.array_equal(other, z.compute())


def test_set_output_pandas_keeps_dask_lazy(client):
    X = da.from_array(np.full((100, 1), 5.0), chunks=(50, 1))
    m = LaplaceLDP(epsilon=1, bounds=(0, 10)).set_output(transform="pandas").fit(X)
    assert isinstance(m.transform(X), da.Array)
    assert isinstance(m.fit_transform(X), da.Array)


def test_fit_reads_bounds_and_categories_with_one_reduction(client):
    rng = np.random.default_rng(2)
    x = rng.normal(50, 10, (2000, 2))
    X = da.from_array(x, chunks=(500, 2))
    lazy = LaplaceLDP(epsilon=1).fit(X)
    eager = LaplaceLDP(epsilon=1).fit(x)
    np.testing.assert_array_equal(lazy.bounds_[0], eager.bounds_[0])
    np.testing.assert_array_equal(lazy.scale_, eager.scale_)
    frame = pd.DataFrame({"race": rng.choice(CATEGORIES[:4], 2000)})
    s_lazy = SubsetUniform().fit(dd.from_pandas(frame, npartitions=4))
    s_eager = SubsetUniform().fit(frame)
    assert [list(c) for c in s_lazy.categories_] == [
        list(c) for c in s_eager.categories_
    ]


def _check_same(a, b, attrs):
    for attr in attrs:
        np.testing.assert_allclose(
            getattr(a, attr), getattr(b, attr), rtol=1e-10, atol=1e-12, err_msg=attr
        )


def test_deconvolution_density_equals_in_memory(client):
    x = np.random.default_rng(3).normal(size=(20_000, 1)).clip(-4, 4)
    X = da.from_array(x, chunks=(3000, 1))
    kde = DeconvolutionKernelDensity(
        bandwidth=0.4, privatizer=LaplaceLDP(epsilon=4, bounds=(-4, 4), random_state=0)
    ).fit(X)
    Z = kde.privatizer_.transform(X)  # another call: other noise, fine for z
    z = Z.compute()
    grid = np.linspace(-3, 3, 31)[:, None]
    for support in ((-4, 4), None):  # fixed grid / range of the data
        lazy = DeconvolutionKernelDensity(
            bandwidth=0.4, noise_scale=kde.privatizer_.scale_, support=support
        ).fit(Z)
        eager = DeconvolutionKernelDensity(
            bandwidth=0.4, noise_scale=kde.privatizer_.scale_, support=support
        ).fit(z)
        _check_same(lazy, eager, ["n_samples_seen_", "bandwidth_", "support_"])
        np.testing.assert_allclose(
            lazy.raw_density(grid), eager.raw_density(grid), rtol=1e-10, atol=1e-12
        )
        assert lazy.mean() == pytest.approx(eager.mean(), rel=1e-10, abs=1e-12)
    assert abs(kde.mean()) < 0.1


def test_deconvolution_density_refuses_cv_bandwidth(client):
    X = da.zeros((100, 1), chunks=50)
    with pytest.raises(ValueError, match="float bandwidth"):
        DeconvolutionKernelDensity(noise_scale=1.0).fit(X)


def test_subset_em_dataframe_categorical_matches_in_memory(client):
    rng = np.random.default_rng(4)
    race = rng.choice(CATEGORIES, 8000, p=[0.1, 0.15, 0.05, 0.6, 0.1])
    frame = pd.DataFrame({"race": pd.Categorical(race, categories=CATEGORIES)})
    ddf = dd.from_pandas(frame, npartitions=5)
    mech = SubsetUniform(categories=[CATEGORIES], random_state=7).fit(ddf)
    A = mech.transform(ddf)
    assert isinstance(A, dd.DataFrame)
    assert list(A.columns) == [f"race={c}" for c in CATEGORIES]
    assert set(A.dtypes) == {np.dtype(np.int8)}
    a = A.compute()
    lazy = SubsetDistributionEstimator(method="em", design=mech).fit(A)
    eager = SubsetDistributionEstimator(method="em", design=mech).fit(a)
    _check_same(lazy, eager, ["distribution_", "subset_counts_", "log_likelihood_"])
    assert lazy.n_samples_seen_ == 8000
    # privatizer= : raw categorical column in, privatized lazily, fitted
    est = SubsetDistributionEstimator(
        method="em", privatizer=SubsetUniform(categories=[CATEGORIES], random_state=7)
    ).fit(ddf)
    assert est.n_samples_seen_ == 8000
    assert np.abs(est.distribution_ - [0.1, 0.15, 0.05, 0.6, 0.1]).max() < 0.05
    # the same fit twice: the same noise (seeded by the dask graph)
    again = clone(est).fit(ddf)
    np.testing.assert_array_equal(est.distribution_, again.distribution_)


def test_subset_unknown_rows_are_counted_as_in_memory(client):
    """All-zero rows (handle_unknown="ignore" reports) are left out of the
    likelihood and counted in n_unknown_, on dask as in memory."""
    rng = np.random.default_rng(6)
    race = rng.choice(
        [*CATEGORIES, "Unknown"], 6000, p=[0.1, 0.1, 0.05, 0.55, 0.1, 0.1]
    )
    mech = SubsetUniform(
        categories=[CATEGORIES], handle_unknown="ignore", random_state=3
    ).fit(race[:, None])
    a = np.asarray(mech.transform(race[:, None]))
    n_unknown = int((a.sum(axis=1) == 0).sum())
    assert n_unknown == int((race == "Unknown").sum())
    A = da.from_array(a, chunks=(1000, a.shape[1]))
    with pytest.warns(UserWarning, match=f"{n_unknown} of 6000 rows of A are all zero"):
        lazy = SubsetDistributionEstimator(method="em", design=mech).fit(A)
    with pytest.warns(UserWarning, match="all zero"):
        eager = SubsetDistributionEstimator(method="em", design=mech).fit(a)
    _check_same(lazy, eager, ["distribution_", "subset_counts_", "log_likelihood_"])
    assert lazy.n_unknown_ == eager.n_unknown_ == n_unknown
    assert lazy.n_samples_seen_ == eager.n_samples_seen_ == 6000
    with (
        pytest.warns(UserWarning, match="6000 of 6000"),
        pytest.raises(ValueError, match="Every row of A is all zero"),
    ):
        SubsetDistributionEstimator(design=mech).fit(A * 0)


@pytest.mark.parametrize("method", ["ml", "paper"])
def test_rvns_density_equals_in_memory(client, method):
    x = np.random.default_rng(5).beta(2, 5, (6000, 1)) * 10
    X = da.from_array(x, chunks=(1000, 1))
    perturber = RVNSPerturber(d=2.0, k=2, bounds=(0, 10), random_state=1)
    Y = perturber.fit(X).transform(X)
    y = Y.compute()
    params = {"method": method, "d": 2.0, "bounds": (0, 10), "bandwidth": 0.3}
    lazy = RVNSDensityEstimator(**params).fit(Y)
    eager = RVNSDensityEstimator(**params).fit(y)
    _check_same(lazy, eager, ["density_", "bin_counts_"])
    est = RVNSDensityEstimator(
        method=method,
        bandwidth=0.3,
        privatizer=RVNSPerturber(d=2.0, k=2, bounds=(0, 10), random_state=7),
    ).fit(X)
    assert est.n_samples_seen_ == 6000
    # over privatization seeds the estimate's mean spreads with sd 0.11-0.13
    # around the clean mean (the paper's method 0.13 above it): 4 sd
    assert est.mean() == pytest.approx(float(x.mean()), abs=0.5)


def test_pooled_report_densities_equal_in_memory(client):
    x = np.random.default_rng(10).beta(2, 5, (5000, 1)) * 10
    X = da.from_array(x, chunks=(1200, 1))
    Y = SquareWaveLDP(epsilon=2.0, bounds=(0, 10), random_state=1).fit(X).transform(X)
    y = Y.compute()
    params = {"epsilon": 2.0, "bounds": (0, 10), "smoothing": "auto", "n_points": 30}
    lazy = SquareWaveEMSEstimator(**params).fit(Y)
    eager = SquareWaveEMSEstimator(**params).fit(y)
    _check_same(lazy, eager, ["density_", "smoothing_scores_", "smoothing_width_"])
    kde = {"bounds": (-20, 30), "method": "paper", "bandwidth": 0.5, "n_points": 50}
    Z = LaplaceLDP(epsilon=2.0, bounds=(0, 10), random_state=2).fit(X).transform(X)
    lazy = PerturbedKDEEstimator(**kde).fit(Z)
    _check_same(lazy, PerturbedKDEEstimator(**kde).fit(Z.compute()), ["density_"])
    est = SquareWaveEMSEstimator(
        privatizer=SquareWaveLDP(epsilon=2.0, bounds=(0, 10)), n_points=30
    ).fit(X)
    assert est.n_samples_seen_ == 5000
    assert est.mean() == pytest.approx(20 / 7, abs=0.3)


def test_interval_npmle_case_one_equals_in_memory(client):
    y = np.round(np.random.default_rng(6).normal(size=(5000, 1)), 1)
    Z = IntervalCaseI(random_state=0).fit_transform(y)
    Z[:, :] = np.where(np.isfinite(Z), np.round(Z, 1), Z)  # anchors on a grid
    lazy = IntervalNPMLE().fit(da.from_array(Z, chunks=(700, 2)))
    eager = IntervalNPMLE().fit(Z)
    _check_same(lazy, eager, ["probabilities_", "innermost_", "log_likelihood_"])
    assert lazy.method_ == "pava"
    mle_lazy = IntervalMLE().fit(da.from_array(Z, chunks=(700, 2)))
    mle_eager = IntervalMLE().fit(Z)
    np.testing.assert_allclose(
        mle_lazy.cdf(np.array([-1.0, 0.0, 1.0])),
        mle_eager.cdf(np.array([-1.0, 0.0, 1.0])),
        rtol=1e-4,  # the same likelihood; the optimizer stops within its tol
    )


@pytest.mark.parametrize("statistic", ["count", "sum", "mean", "var", "std"])
def test_laplace_statistic_moments_equal_in_memory(client, statistic):
    x = np.random.default_rng(7).uniform(-5, 105, 10_000)
    lazy = laplace_statistic(
        da.from_array(x, chunks=1500), statistic, 1.0, bounds=(0, 100), random_state=0
    )
    eager = laplace_statistic(x, statistic, 1.0, bounds=(0, 100), random_state=0)
    assert lazy == pytest.approx(eager, rel=1e-10)


def test_laplace_statistic_refuses_order_statistics(client):
    with pytest.raises(ValueError, match="sorted values"):
        laplace_statistic(da.zeros(10, chunks=5), "median", 1.0, bounds=(0, 1))
    with pytest.raises(ValueError, match="bounds must be given"):
        laplace_statistic(da.zeros(10, chunks=5), "mean", 1.0)


def test_unsupported_learners_say_which_are(client):
    X = da.zeros((100, 2), chunks=50)
    for est in (
        IntegralPrivateStatistics(),
        skprivate.DeconvolutionKernelRegressor(noise_scale=1.0),
    ):
        with pytest.raises(TypeError, match="SubsetDistributionEstimator"):
            est.fit(X, None)
    with pytest.raises(TypeError, match="give the whole dask collection to fit"):
        SubsetDistributionEstimator().partial_fit(X)


def test_every_learner_fits_dask_or_refuses_it_naming_those_that_do():
    # the list of learners that fit dask collections is discovered
    capable = [
        n for n, c in all_estimators() if issubclass(c, SufficientStatisticMixin)
    ]
    assert {
        "SubsetDistributionEstimator",
        "DeconvolutionKernelDensity",
        "RVNSDensityEstimator",
        "IntervalNPMLE",
        "IntervalMLE",
    } <= set(capable)
    X = da.zeros((40, 1), chunks=20)
    for name, cls in all_estimators():
        learner = issubclass(cls, PrivatizedInputMixin) or name in (
            "IntegralPrivateStatistics",
            "Microaggregator",
        )
        if not learner or issubclass(cls, SufficientStatisticMixin):
            continue
        est = cls(noise_scale=1.0) if "noise_scale" in cls().get_params() else cls()
        with pytest.raises(TypeError, match=", ".join(capable)):
            est.fit(X, np.zeros(40))


@pytest.mark.slow
def test_two_million_rows_laplace_and_density(client):
    n = 2_000_000
    X = da.random.default_rng(0).normal(size=(n, 1), chunks=(250_000, 1)).clip(-4, 4)
    kde = DeconvolutionKernelDensity(
        bandwidth=0.4, privatizer=LaplaceLDP(epsilon=8, bounds=(-4, 4), random_state=0)
    ).fit(X)
    assert kde.n_samples_seen_ == n
    assert 0.3 < float(kde.pdf(0.0)) < 0.45  # N(0, 1): 0.40, smoothed by h
    assert abs(kde.mean()) < 0.05


def test_blocks_never_reuse_another_calls_noise(client):
    # block streams must not coincide with the privatizer's later calls
    x = np.full((400, 1), 5.0)
    X = da.from_array(x, chunks=(100, 1))
    m = LaplaceLDP(epsilon=1, bounds=(0, 10), random_state=0).fit(x)
    lazy = m.transform(X).compute()
    later = [m.transform(x) for _ in range(4)]
    for i in range(4):
        block = lazy[100 * i : 100 * (i + 1)]
        for other in later:
            assert not np.array_equal(block, other[:100])


def _bad_inputs():
    """(learner, in-memory data with one bad value in row 1234) per statistic."""
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
    return [
        (
            DeconvolutionKernelDensity(bandwidth=0.5, noise_scale=1.0, support=(-4, 4)),
            z,
        ),
        (DeconvolutionKernelDensity(bandwidth=0.5, noise_scale=1.0), z),
        (RVNSDensityEstimator(d=2.0, bounds=(0, 10)), y),
        (RVNSDensityEstimator(method="paper", d=2.0, bandwidth=0.3), y),
        (SubsetDistributionEstimator(), reports),
        (IntervalNPMLE(), intervals),
        (IntervalMLE(), intervals),
    ]


@pytest.mark.parametrize("case", range(7))
def test_bad_value_gives_the_in_memory_error_naming_the_global_row(client, case):
    est, data = _bad_inputs()[case]
    with pytest.raises(ValueError) as in_memory:
        clone(est).fit(data)
    assert "1234" in str(in_memory.value)
    lazy = da.from_array(data, chunks=(500, data.shape[1]))
    with pytest.raises(ValueError) as on_dask:
        clone(est).fit(lazy)
    assert str(on_dask.value) == str(in_memory.value)
    # and in a later partial_fit chunk, numbered from the rows seen before
    if case in (0, 2, 4):  # the settings that stream
        streamed = clone(est).partial_fit(data[:1000])
        with pytest.raises(ValueError) as chunk:
            streamed.partial_fit(data[1000:])
        assert str(chunk.value) == str(in_memory.value)


def test_laplace_statistic_refuses_nan_as_in_memory(client):
    x = np.random.default_rng(9).uniform(0, 1, 3000)
    x[2345] = np.nan
    with pytest.raises(ValueError) as in_memory:
        laplace_statistic(x, "mean", 1.0, bounds=(0, 1), random_state=0)
    with pytest.raises(ValueError) as on_dask:
        laplace_statistic(da.from_array(x, chunks=500), "mean", 1.0, bounds=(0, 1))
    assert "(2345,)" in str(in_memory.value)
    assert str(on_dask.value) == str(in_memory.value)
