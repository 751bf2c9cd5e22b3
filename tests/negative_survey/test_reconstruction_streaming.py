"""RVNSDensityEstimator.partial_fit: merged report counts, solve re-run on them."""

import numpy as np
import pytest

from skprivate.datasets import make_truncated_chi2
from skprivate.exceptions import InvalidParameterError
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber

SETTINGS = {"method": "paper", "d": 2.0, "bounds": (0, 10), "bandwidth": 0.3}


@pytest.fixture(scope="module")
def data():
    x = make_truncated_chi2(20_000, 2, random_state=0)[:, None]
    reports = RVNSPerturber(d=2.0, k=2, bounds=(0, 10), random_state=1).fit_transform(x)
    return x, reports


def _assert_same_estimate(a, b):
    scale = b.density_.max()
    np.testing.assert_allclose(a.density_, b.density_, rtol=1e-10, atol=1e-10 * scale)
    np.testing.assert_allclose(
        a.perturbed_density_, b.perturbed_density_, rtol=1e-10, atol=1e-14
    )
    grid = np.linspace(-1, 11, 49)
    np.testing.assert_allclose(a.cdf(grid), b.cdf(grid), rtol=1e-10, atol=1e-14)
    assert a.mean() == pytest.approx(b.mean(), rel=1e-10)
    assert (a.n_reports_seen_, a.n_samples_seen_) == (
        b.n_reports_seen_,
        b.n_samples_seen_,
    )


@pytest.mark.parametrize(
    "solver, boundary", [("lbfgs", "none"), ("lbfgs", "reflect"), ("em", "reflect")]
)
def test_chunks_give_the_estimate_of_one_fit(data, solver, boundary):
    _, reports = data
    params = {**SETTINGS, "solver": solver, "boundary": boundary}
    whole = RVNSDensityEstimator(**params).fit(reports)
    part = RVNSDensityEstimator(**params)
    for chunk in np.array_split(reports, 5):
        assert part.partial_fit(chunk) is part
    _assert_same_estimate(part, whole)
    assert part.n_iter_ == whole.n_iter_
    np.testing.assert_allclose(part.bin_counts_, whole.bin_counts_, rtol=1e-12)
    mirrored = 3 if boundary == "reflect" else 1
    assert part.bin_counts_.sum() == pytest.approx(mirrored * reports.size)


def test_estimate_after_each_chunk_matches_a_fit_so_far(data):
    _, reports = data
    part = RVNSDensityEstimator(**SETTINGS)
    chunks = np.array_split(reports, 3)
    for k, chunk in enumerate(chunks, start=1):
        part.partial_fit(chunk)
        _assert_same_estimate(
            part, RVNSDensityEstimator(**SETTINGS).fit(np.vstack(chunks[:k]))
        )


def test_privatizer_streams_fresh_reports_and_recovers_the_mean(data):
    x, _ = data
    priv = RVNSPerturber(d=2.0, k=2, bounds=(0, 10), random_state=4)
    est = RVNSDensityEstimator(bandwidth=0.3, privatizer=priv)
    for chunk in np.array_split(x, 4):
        est.partial_fit(chunk)
    assert (est.n_samples_seen_, est.n_reports_seen_) == (20_000, 40_000)
    assert est.d_ == 2.0 and est.bounds_ == (0.0, 10.0)
    # |mean difference| <= W1; the reconstruction's W1 is about 0.3 here.
    assert est.mean() == pytest.approx(x.mean(), abs=0.35)
    # The same raw chunk twice gets new reports, not a repeat of the first.
    twice = RVNSDensityEstimator(bandwidth=0.3, privatizer=priv).partial_fit(x[:500])
    first = twice.bin_counts_.copy()
    twice.partial_fit(x[:500])
    assert not np.allclose(twice.bin_counts_, 2 * first)


def test_memory_does_not_grow_with_the_number_of_reports():
    rng = np.random.default_rng(5)
    shapes = []
    for n in (1_000, 100_000):
        est = RVNSDensityEstimator(**SETTINGS)
        for chunk in np.array_split(rng.uniform(0, 10, size=(n, 2)), 4):
            est.partial_fit(chunk)
        shapes.append(est.bin_counts_.shape)
        arrays = [v for v in vars(est).values() if isinstance(v, np.ndarray)]
        assert all(a.size < 1_000 for a in arrays)  # no array of the reports
    assert shapes[0] == shapes[1]


def test_fit_after_partial_fit_starts_again_and_partial_fit_after_fit_continues(data):
    _, reports = data
    a, b = reports[:8000], reports[8000:]
    est = RVNSDensityEstimator(**SETTINGS).partial_fit(a).fit(b)
    _assert_same_estimate(est, RVNSDensityEstimator(**SETTINGS).fit(b))
    est.partial_fit(a)  # bounds and bandwidth were fixed: fit's counts are kept
    _assert_same_estimate(est, RVNSDensityEstimator(**SETTINGS).fit(np.vstack([b, a])))


@pytest.mark.parametrize(
    "params, match",
    [
        ({"bandwidth": "ksdensity"}, "float bandwidth"),
        ({"bounds": None}, "needs bounds"),
        (
            {"d": None, "bounds": None, "privatizer": RVNSPerturber(d=2.0, k=2)},
            "needs bounds",
        ),
        ({"d": None}, "d must be given"),
    ],
)
def test_streaming_refuses_data_derived_settings(data, params, match):
    _, reports = data
    with pytest.raises(ValueError, match=match):
        RVNSDensityEstimator(**{**SETTINGS, **params}).partial_fit(reports)


def test_partial_fit_errors(data):
    _, reports = data
    est = RVNSDensityEstimator(**SETTINGS).partial_fit(reports[:1000])
    with pytest.raises(ValueError, match="X has 1 features"):
        est.partial_fit(reports[:10, :1])
    est.set_params(n_points=50)
    with pytest.raises(ValueError, match="n_points changed since the first"):
        est.partial_fit(reports[1000:2000])
    est.set_params(n_points=100)
    counts = est.bin_counts_.copy()
    with pytest.raises(ValueError, match="outside the bounds"):
        # beyond the boundary-safe report range [a - d, b + d] = [-2, 12]
        est.partial_fit(np.array([[1.0, 12.5]]))
    np.testing.assert_array_equal(est.bin_counts_, counts)  # left unchanged
    assert est.partial_fit(reports[1000:2000]).n_samples_seen_ == 2000
    with pytest.raises(InvalidParameterError, match="solver"):
        RVNSDensityEstimator(**SETTINGS, solver="newton").partial_fit(reports)
    # A fit that read the bandwidth from the reports cannot be continued.
    est = RVNSDensityEstimator(method="paper", d=2.0, bounds=(0, 10))
    est.fit(reports[:1000])
    with pytest.raises(ValueError, match="partial_fit cannot add"):
        est.set_params(bandwidth=0.3).partial_fit(reports[:10])


def test_partial_fit_keeps_and_checks_pandas_column_names(data):
    pd = pytest.importorskip("pandas")
    _, reports = data
    frame = pd.DataFrame(reports, columns=["s0", "s1"])
    est = RVNSDensityEstimator(**SETTINGS).partial_fit(frame.iloc[:100])
    assert list(est.feature_names_in_) == ["s0", "s1"]
    with pytest.raises(ValueError, match="feature names should match"):
        est.partial_fit(frame.iloc[100:200].rename(columns={"s1": "s9"}))
