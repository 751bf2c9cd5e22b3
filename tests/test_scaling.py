"""Scaling out: joblib's dask backend on a local cluster, and chunked fitting."""

import numpy as np
import pytest

from skprivate import (
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    LaplaceLDP,
    SubsetDistributionEstimator,
    SubsetUniform,
)


def test_grid_search_over_epsilon_on_a_local_dask_cluster():
    distributed = pytest.importorskip("dask.distributed")
    import joblib
    from sklearn.model_selection import GridSearchCV

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(300, 1))
    y = np.sin(3 * X[:, 0]) + rng.normal(scale=0.1, size=300)
    est = DeconvolutionKernelRegressor(
        bandwidth=0.2, privatizer=LaplaceLDP(bounds=(0, 1), random_state=0)
    )
    grid = {"privatizer__epsilon": [1.0, 4.0, 16.0]}
    with (
        distributed.LocalCluster(
            n_workers=2,
            threads_per_worker=1,
            host="127.0.0.1",
            dashboard_address=None,
            processes=True,
        ) as cluster,
        distributed.Client(cluster) as client,
        joblib.parallel_backend("dask"),
    ):
        search = GridSearchCV(est, grid, cv=3, n_jobs=-1).fit(X, y)
        workers = client.scheduler_info()["workers"]
    assert len(workers) == 2
    local = GridSearchCV(est, grid, cv=3, n_jobs=1).fit(X, y)
    np.testing.assert_allclose(
        search.cv_results_["mean_test_score"], local.cv_results_["mean_test_score"]
    )


def test_partial_fit_on_chunks_equals_one_fit():
    rng = np.random.default_rng(0)
    cats = rng.choice(list("ABCDE"), p=[0.4, 0.3, 0.15, 0.1, 0.05], size=30_000)
    A = SubsetUniform(random_state=0).fit_transform(cats[:, None])
    whole = SubsetDistributionEstimator(method="em").fit(A)
    chunked = SubsetDistributionEstimator(method="em")
    for chunk in np.array_split(A, 7):
        chunked.partial_fit(chunk)
    np.testing.assert_allclose(chunked.distribution_, whole.distribution_, atol=1e-6)


def test_density_partial_fit_on_chunks_equals_one_fit():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(40_000, 1)).clip(-4, 4)
    z = LaplaceLDP(epsilon=5.0, bounds=(-4, 4), random_state=0).fit_transform(x)
    settings = {"bandwidth": 0.4, "noise_scale": 1.6, "support": (-4, 4)}
    whole = DeconvolutionKernelDensity(**settings).fit(z)
    chunked = DeconvolutionKernelDensity(**settings)
    for chunk in np.array_split(z, 9):
        chunked.partial_fit(chunk)
    grid = np.linspace(-6, 6, 121)
    np.testing.assert_allclose(chunked.pdf(grid), whole.pdf(grid), rtol=1e-10)
    assert chunked.bin_counts_.shape == whole.bin_counts_.shape
