"""DP baselines: noise scales implied by the sensitivities, PTR IQR, ARE."""

import numpy as np
import pandas as pd
import pytest

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.integral import (
    absolute_relative_error,
    laplace_describe,
    laplace_statistic,
)

N_DRAWS = 3000


@pytest.fixture(scope="module")
def data():
    return np.random.default_rng(11).normal(0, 3, size=400)


def _noise(x, statistic, epsilon, bounds, truth):
    rng = np.random.default_rng(0)
    draws = np.array(
        [
            laplace_statistic(x, statistic, epsilon, bounds, random_state=rng)
            for _ in range(N_DRAWS)
        ]
    )
    return draws - truth


def _assert_laplace_scale(noise, scale):
    # |Lap(0, b)| is exponential with mean b and SD b; the noise median is 0.
    mean_abs = np.abs(noise).mean()
    assert mean_abs == pytest.approx(scale, abs=4 * scale / np.sqrt(noise.size))
    assert abs(np.median(noise)) < 4 * scale / np.sqrt(noise.size) * 1.3


@pytest.mark.parametrize("epsilon", [0.5, 4.0])
def test_global_sensitivity_scales(data, epsilon):
    lo, hi = -20.0, 20.0
    xs = np.sort(data)
    n = xs.size
    cases = {
        "count": (n, 1 / epsilon),
        "sum": (np.clip(xs, lo, hi).sum(), 20 / epsilon),
        "mean": (np.clip(xs, lo, hi).mean(), 40 / (n * epsilon)),
    }
    for statistic, (truth, scale) in cases.items():
        _assert_laplace_scale(_noise(data, statistic, epsilon, (lo, hi), truth), scale)


def test_local_sensitivity_scales(data):
    xs = np.sort(data)
    epsilon = 2.0
    m = (xs.size - 1) // 2
    cases = {
        "min": (xs[0], (xs[1] - xs[0]) / epsilon),
        "max": (xs[-1], (xs[-1] - xs[-2]) / epsilon),
        "median": (np.median(xs), max(xs[m] - xs[m - 1], xs[m + 1] - xs[m]) / epsilon),
    }
    for statistic, (truth, scale) in cases.items():
        _assert_laplace_scale(_noise(data, statistic, epsilon, (-20, 20), truth), scale)


def test_variance_and_sd_scales_come_from_the_range(data):
    # With a large epsilon the noisy min and max are the true ones, so the
    # scales are (max - min)^2 / (s eps) and (max - min) / (sqrt(s) eps).
    epsilon = 1e4
    xs = np.sort(data)
    spread = xs[-1] - xs[0]
    n = xs.size
    _assert_laplace_scale(
        _noise(data, "var", epsilon, (-20, 20), xs.var(ddof=1)),
        spread**2 / (n * epsilon),
    )
    _assert_laplace_scale(
        _noise(data, "std", epsilon, (-20, 20), xs.std(ddof=1)),
        spread / (np.sqrt(n) * epsilon),
    )


def test_clamping_uses_the_bounds():
    x = np.array([0.0, 1.0, 1000.0])
    value = laplace_statistic(x, "mean", 1e9, bounds=(0, 10), random_state=0)
    assert value == pytest.approx(11 / 3, abs=1e-6)


def test_iqr_propose_test_release():
    x = np.random.default_rng(0).normal(0, 1, 5000)
    true = np.subtract(*np.percentile(x, [75, 25]))
    base = 1 + 1 / np.log(x.size)
    values = [laplace_statistic(x, "iqr", 1.0, (-10, 10), 1e-6, s) for s in range(50)]
    # a stable data set passes the test and gets the midpoint of its bin
    assert not np.isnan(values).any()
    assert all(
        true / np.sqrt(base) <= v <= true * np.sqrt(base) * 1.0001 for v in values
    )
    assert len(set(values)) == 1
    # with a tiny budget the noisy distance cannot clear ln(1/delta)/eps
    tiny = [laplace_statistic(x, "iqr", 1e-3, (-10, 10), 1e-6, s) for s in range(50)]
    assert np.mean(np.isnan(tiny)) > 0.9


def test_bounds_from_data_warn_and_bad_input(data):
    with pytest.warns(PrivacyLeakWarning, match="bounds"):
        laplace_statistic(data, "mean", 1.0, random_state=0)
    with pytest.raises(ValueError, match="epsilon"):
        laplace_statistic(data, "mean", 0.0, (-1, 1))
    with pytest.raises(ValueError, match="delta"):
        laplace_statistic(data, "iqr", 1.0, (-1, 1), delta=0)
    with pytest.raises(ValueError, match="statistic"):
        laplace_statistic(data, "mode", 1.0, (-1, 1))
    with pytest.raises(ValueError, match="bounds"):
        laplace_statistic(data, "mean", 1.0, (1, -1))
    with pytest.raises(ValueError, match="no non-missing"):
        laplace_statistic([np.nan], "mean", 1.0, (0, 1))


def test_laplace_describe_table():
    df = pd.DataFrame(
        {"a": np.arange(200.0), "b": np.linspace(0, 1, 200), "c": ["z"] * 200}
    )
    with pytest.warns(UserWarning, match="non-numeric"):
        table = laplace_describe(
            df, epsilon=1e6, bounds={"a": (0, 199), "b": (0, 1)}, random_state=0
        )
    assert list(table.columns) == ["a", "b"]
    assert list(table.index)[:2] == ["count", "mean"]
    truth = df[["a", "b"]].describe()
    for s in ("count", "mean", "std", "min", "max"):
        np.testing.assert_allclose(table.loc[s], truth.loc[s], rtol=1e-3, atol=1e-3)


def test_absolute_relative_error():
    np.testing.assert_allclose(
        absolute_relative_error([0.2, -50.0, 10.0, 3.0], [0.7, -40.0, 9.0, np.nan]),
        [0.5, 0.2, 0.1, np.nan],
    )
