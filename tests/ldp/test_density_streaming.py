"""DeconvolutionKernelDensity.partial_fit: merged binned counts on a fixed grid."""

import numpy as np
import pytest

from skprivate import DeconvolutionKernelDensity, LaplaceLDP
from skprivate.exceptions import InvalidParameterError

B = 0.8  # Laplace scale of epsilon = 10 on [-4, 4]
POINTS = np.linspace(-40.0, 40.0, 161)  # inside and far outside the grid


@pytest.fixture(scope="module")
def noisy():
    rng = np.random.default_rng(0)
    x = rng.normal(size=(6000, 1)).clip(-4, 4)
    return x, x + rng.laplace(scale=B, size=x.shape)


def _settings(**extra):
    return {"bandwidth": 0.4, "noise_scale": B, "support": (-4, 4), **extra}


def _assert_same_estimate(a, b):
    grid = POINTS[:, None]
    np.testing.assert_allclose(
        a.raw_density(grid), b.raw_density(grid), rtol=1e-10, atol=1e-15
    )
    np.testing.assert_allclose(a.pdf(POINTS), b.pdf(POINTS), rtol=1e-10, atol=1e-15)
    np.testing.assert_allclose(a.cdf(POINTS), b.cdf(POINTS), rtol=1e-10, atol=1e-15)
    q = [0.05, 0.5, 0.95]
    np.testing.assert_allclose(a.quantile(q), b.quantile(q), rtol=1e-10)
    np.testing.assert_allclose(a.score_samples(grid), b.score_samples(grid), rtol=1e-10)
    assert a.mean() == pytest.approx(b.mean(), rel=1e-10, abs=1e-14)
    assert a.n_samples_seen_ == b.n_samples_seen_


@pytest.mark.parametrize("kernel", ["gaussian", "cauchy"])
@pytest.mark.parametrize("algorithm", ["binned", "auto"])
def test_chunks_give_the_estimate_of_one_fit(noisy, kernel, algorithm):
    _, z = noisy
    params = _settings(kernel=kernel, algorithm=algorithm)
    whole = DeconvolutionKernelDensity(**params).fit(z)
    part = DeconvolutionKernelDensity(**params)
    for chunk in np.array_split(z, 7):
        assert part.partial_fit(chunk) is part
    _assert_same_estimate(part, whole)
    np.testing.assert_allclose(part.bin_counts_, whole.bin_counts_, rtol=1e-12)
    assert part.bin_counts_.sum() == pytest.approx(z.shape[0])


def test_estimate_after_each_chunk_is_usable_and_matches_a_fit_so_far(noisy):
    _, z = noisy
    part = DeconvolutionKernelDensity(**_settings())
    chunks = np.array_split(z, 3)
    for k, chunk in enumerate(chunks, start=1):
        part.partial_fit(chunk)
        upto = DeconvolutionKernelDensity(**_settings(algorithm="binned"))
        _assert_same_estimate(part, upto.fit(np.vstack(chunks[:k])))


def test_privatizer_stream_continues_over_chunks(noisy):
    x, _ = noisy
    ldp = LaplaceLDP(epsilon=10, bounds=(-4, 4), random_state=3)
    params = {"bandwidth": 0.4, "privatizer": ldp, "algorithm": "binned"}
    whole = DeconvolutionKernelDensity(**params).fit(x)
    part = DeconvolutionKernelDensity(**params)
    for chunk in np.array_split(x, 4):
        part.partial_fit(chunk)
    # Every chunk draws fresh noise (its own call index and data), so the
    # streamed estimate equals the one-shot one in law only.  Over 12
    # privatization seeds the pointwise SD of one estimate is at most 0.028
    # on this grid, so the difference of two has SD at most 0.04: 0.15 is
    # about 4 SD.
    assert part.n_samples_seen_ == whole.n_samples_seen_
    grid = np.linspace(-3, 3, 13)
    np.testing.assert_allclose(part.pdf(grid), whole.pdf(grid), atol=0.15)
    assert part.support_ == (-4.0, 4.0)
    # chunks are privatized independently: no chunk repeats another's noise
    again = DeconvolutionKernelDensity(**params)
    for chunk in np.array_split(x, 4):
        again.partial_fit(chunk)
    _assert_same_estimate(again, part)  # the same seed replays the sequence
    # The same clean chunk twice gets fresh noise, not a repeat of the first.
    twice = DeconvolutionKernelDensity(**params).partial_fit(x[:500])
    first = twice.bin_counts_.copy()
    twice.partial_fit(x[:500])
    assert not np.allclose(twice.bin_counts_, 2 * first)
    # The same after a fit: partial_fit continues fit's stream.
    after_fit = DeconvolutionKernelDensity(**params).fit(x[:500])
    np.testing.assert_allclose(after_fit.bin_counts_, first)
    after_fit.partial_fit(x[:500])
    assert not np.allclose(after_fit.bin_counts_, 2 * first)


def test_streamed_estimate_recovers_the_density():
    rng = np.random.default_rng(1)
    kde = DeconvolutionKernelDensity(
        bandwidth=0.4, privatizer=LaplaceLDP(epsilon=10, bounds=(-4, 4), random_state=2)
    )
    for _ in range(10):
        kde.partial_fit(rng.normal(size=(5000, 1)).clip(-4, 4))
    # N(0, 1) smoothed by the Gaussian kernel of h = 0.4: N(0, 1 + h**2) at 0.
    expected = 1 / np.sqrt(2 * np.pi * 1.16)
    # Pointwise SE of the deconvolution estimate here is about 0.006.
    assert float(kde.pdf(0.0)) == pytest.approx(expected, abs=0.03)
    assert kde.mean() == pytest.approx(0.0, abs=0.05)


def test_memory_does_not_grow_with_the_number_of_records():
    rng = np.random.default_rng(2)
    sizes = []
    for n in (1_000, 100_000):
        kde = DeconvolutionKernelDensity(**_settings())
        for chunk in np.array_split(rng.normal(size=(n, 1)), 4):
            kde.partial_fit(chunk)
        sizes.append(kde.bin_counts_.shape)
        arrays = [v for v in vars(kde).values() if isinstance(v, np.ndarray)]
        assert all(a.size < 50_000 for a in arrays)  # no array of the records
    assert sizes[0] == sizes[1]
    # Fixed settings in fit keep only the counts as well.
    whole = DeconvolutionKernelDensity(**_settings()).fit(rng.normal(size=(100_000, 1)))
    assert whole.bin_counts_.shape == sizes[0] and whole._Z is None


def test_fit_after_partial_fit_starts_again_and_partial_fit_after_fit_continues(noisy):
    _, z = noisy
    a, b = z[:3000], z[3000:]
    est = DeconvolutionKernelDensity(**_settings(algorithm="binned"))
    est.partial_fit(a).fit(b)
    _assert_same_estimate(
        est, DeconvolutionKernelDensity(**_settings(algorithm="binned")).fit(b)
    )
    est.partial_fit(a)  # continues from the fixed-grid fit on b
    _assert_same_estimate(
        est,
        DeconvolutionKernelDensity(**_settings(algorithm="binned")).fit(
            np.vstack([b, a])
        ),
    )


@pytest.mark.parametrize(
    "params, match",
    [
        ({"bandwidth": "cv"}, "float bandwidth"),
        ({"bandwidth": [0.2, 0.4]}, "float bandwidth"),
        ({"algorithm": "direct"}, "algorithm='direct'"),
        ({"support": None}, "needs a support"),
        (
            {
                "support": None,
                "noise_scale": None,
                "privatizer": LaplaceLDP(epsilon=10),
            },
            "needs a support",
        ),
    ],
)
def test_streaming_refuses_data_derived_settings(noisy, params, match):
    _, z = noisy
    with pytest.raises(ValueError, match=match):
        DeconvolutionKernelDensity(**_settings(**params)).partial_fit(z)


def test_partial_fit_errors(noisy):
    _, z = noisy
    with pytest.raises(ValueError, match="single feature"):
        DeconvolutionKernelDensity(**_settings()).partial_fit(np.hstack([z, z]))
    est = DeconvolutionKernelDensity(**_settings()).partial_fit(z[:100])
    with pytest.raises(ValueError, match="X has 2 features"):
        est.partial_fit(np.hstack([z, z]))
    est.set_params(bandwidth=0.5, kernel="cauchy")
    with pytest.raises(ValueError, match="bandwidth, kernel changed since the first"):
        est.partial_fit(z[100:200])
    est.set_params(bandwidth=0.4, kernel="gaussian")
    counts = est.bin_counts_.copy()
    with pytest.raises(ValueError, match="support .* must contain the clean data"):
        est.partial_fit(np.array([[0.0], [80.0]]))
    np.testing.assert_array_equal(est.bin_counts_, counts)  # left unchanged
    assert est.partial_fit(z[100:200]).n_samples_seen_ == 200
    with pytest.raises(InvalidParameterError, match="kernel"):
        DeconvolutionKernelDensity(**_settings(kernel="epanechnikov")).partial_fit(z)
    # A fit that read the bandwidth from the data cannot be continued.
    cv = DeconvolutionKernelDensity(noise_scale=B, support=(-4, 4)).fit(z[:500])
    with pytest.raises(ValueError, match="partial_fit cannot add"):
        cv.set_params(bandwidth=0.4).partial_fit(z[:10])


def test_partial_fit_keeps_and_checks_pandas_column_names(noisy):
    pd = pytest.importorskip("pandas")
    _, z = noisy
    est = DeconvolutionKernelDensity(**_settings())
    est.partial_fit(pd.DataFrame({"age": z[:100, 0]}))
    assert list(est.feature_names_in_) == ["age"]
    with pytest.raises(ValueError, match="feature names should match"):
        est.partial_fit(pd.DataFrame({"income": z[100:200, 0]}))
