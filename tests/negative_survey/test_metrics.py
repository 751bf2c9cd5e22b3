"""Privacy and utility metrics: adversary MLE, distances, six indicators."""

import numpy as np
import pytest
from scipy import stats

from skprivate.negative_survey import (
    RVNSPerturber,
    grid_kde,
    indicator_errors,
    ksdensity_bandwidth,
    privacy_distance,
    rvns_adversary_inference,
    rvns_transition_density,
    six_indicators,
    wasserstein_on_grid,
)


def brute_force_mle(reports, d, grid):
    ll = np.zeros((reports.shape[0], grid.size))
    for j in range(reports.shape[1]):
        with np.errstate(divide="ignore"):
            ll += np.log(
                rvns_transition_density(grid[None, :], reports[:, j, None], d, (0, 10))
            )
    return ll


def test_adversary_returns_a_maximizer():
    x = np.random.default_rng(0).uniform(0, 10, size=(300, 1))
    Y = RVNSPerturber(d=2.0, k=3, bounds=(0, 10), random_state=1).fit_transform(x)
    grid = np.linspace(0, 10, 1001)
    ll = brute_force_mle(Y, 2.0, grid)
    for tie in ("first", "random"):
        guess = rvns_adversary_inference(Y, 2.0, (0, 10), tie_break=tie, random_state=0)
        idx = np.rint(guess / 0.01).astype(int)
        assert np.allclose(ll[np.arange(300), idx], ll.max(axis=1))
    mid = rvns_adversary_inference(Y, 2.0, (0, 10))
    tied = ll >= ll.max(axis=1, keepdims=True) - 1e-9
    lo = grid[np.argmax(tied, axis=1)]
    hi = grid[grid.size - 1 - np.argmax(tied[:, ::-1], axis=1)]
    np.testing.assert_allclose(mid, 0.5 * (lo + hi))


def test_adversary_closed_case():
    # Reports at 0.5 and 9.5 with d = 2: every x in [2.5, 7.5] has likelihood c^2,
    # the maximum; the midpoint is 5.
    guess = rvns_adversary_inference(np.array([[0.5, 9.5]]), 2.0, (0, 10))
    assert guess.tolist() == [5.0]
    first = rvns_adversary_inference(
        np.array([[0.5, 9.5]]), 2.0, (0, 10), tie_break="first"
    )
    assert first.tolist() == [pytest.approx(2.5)]


def test_adversary_bad_tie_break():
    with pytest.raises(ValueError, match="tie_break"):
        rvns_adversary_inference(np.array([[1.0]]), 2.0, (0, 10), tie_break="last")


def test_privacy_distance():
    assert privacy_distance([1, 2, 3], [1, 2, 3]) == 0.0
    assert privacy_distance([0, 0], [3, 4]) == 5.0
    with pytest.raises(ValueError, match="same length"):
        privacy_distance([1], [1, 2])


def test_wasserstein_matches_scipy_on_atoms():
    rng = np.random.default_rng(0)
    f, g = rng.random(50), rng.random(50)
    edges = np.linspace(0, 10, 51)
    got = wasserstein_on_grid(f, g, edges, continuous=True)
    want = stats.wasserstein_distance(edges[:-1], edges[:-1], f, g)
    assert got == pytest.approx(want, rel=1e-12)
    assert wasserstein_on_grid(f, g) == pytest.approx(want / 0.2, rel=1e-12)


def test_six_indicators_conventions():
    x = np.random.default_rng(0).gamma(2.0, size=5000)
    s = six_indicators(x)
    assert s["mean"] == pytest.approx(x.mean())
    assert s["std"] == pytest.approx(x.std(ddof=1))
    assert s["median"] == pytest.approx(np.median(x))
    assert s["skewness"] == pytest.approx(stats.skew(x, bias=True))
    assert s["kurtosis"] == pytest.approx(stats.kurtosis(x, fisher=False, bias=True))
    # Gamma(2) has its mode at 1; the KDE argmax is within a few SE of it.
    assert s["mode"] == pytest.approx(1.0, abs=0.3)


def test_indicator_errors_are_absolute_differences():
    x = np.random.default_rng(1).normal(size=1000)
    errs = indicator_errors(x, x + 1.0)
    assert errs["mean"] == pytest.approx(1.0)
    assert errs["std"] == pytest.approx(0.0, abs=1e-12)
    assert errs["skewness"] == pytest.approx(0.0, abs=1e-12)


def _exact_kde(x, z, h):
    u = (z[:, None] - x[None, :]) / h
    return np.exp(-0.5 * u * u).sum(axis=1) / (x.size * h * np.sqrt(2 * np.pi))


def test_binned_kde_stays_within_its_stated_error():
    from skprivate._grid_density._kde import BINNING_ERROR

    rng = np.random.default_rng(0)
    worst = 0.0
    for n in (2, 3, 4, 10, 100):
        for _ in range(40):
            x = rng.normal(size=n) * rng.uniform(0.1, 10)
            h = ksdensity_bandwidth(x) * rng.choice([0.3, 1.0, 3.0])
            z = np.linspace(x.min() - 2 * h, x.max() + 2 * h, 1501)
            exact = _exact_kde(x, z, h)
            err = np.abs(grid_kde(x, z, h) - exact).max() / exact.max()
            worst = max(worst, err)
    # the bound is reached with a handful of values (a quarter of the
    # squared node spacing): not loose by a factor of two either
    assert BINNING_ERROR / 2 < worst <= BINNING_ERROR


def test_six_indicators_mode_is_the_exact_kde_argmax():
    # symmetric about 2: the exact KDE peaks at 2; the binned one at 1.972
    assert six_indicators(np.array([1.0, 2.0, 2.0, 3.0]))["mode"] == 2.0
    rng = np.random.default_rng(1)
    for n in (3, 5, 8, 30):
        for _ in range(20):
            x = np.round(rng.normal(size=n), 1)
            z = np.linspace(x.min(), x.max(), 1001)
            exact = _exact_kde(x, z, ksdensity_bandwidth(x))
            mode = six_indicators(x)["mode"]
            assert _exact_kde(x, np.array([mode]), ksdensity_bandwidth(x))[
                0
            ] == pytest.approx(exact.max(), rel=1e-12)
