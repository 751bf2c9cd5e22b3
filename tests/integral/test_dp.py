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


def _noise(x, statistic, epsilon, bounds, truth, sensitivity="global"):
    rng = np.random.default_rng(0)
    draws = np.array(
        [
            laplace_statistic(
                x, statistic, epsilon, bounds, random_state=rng, sensitivity=sensitivity
            )
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
        "sum": (np.clip(xs, lo, hi).sum(), 40 / epsilon),  # U - L
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
        with pytest.warns(PrivacyLeakWarning, match="not differentially private"):
            noise = _noise(data, statistic, epsilon, (-20, 20), truth, "local")
        _assert_laplace_scale(noise, scale)


def test_variance_and_sd_scales_come_from_the_range(data):
    # The paper's variant: with a large epsilon the noisy min and max are the
    # true ones, so the scales are (max - min)^2 / (s eps) and
    # (max - min) / (sqrt(s) eps).
    epsilon = 1e4
    xs = np.sort(data)
    spread = xs[-1] - xs[0]
    n = xs.size
    with pytest.warns(PrivacyLeakWarning):
        _assert_laplace_scale(
            _noise(data, "var", epsilon, (-20, 20), xs.var(ddof=1), "local"),
            spread**2 / (n * epsilon),
        )
        _assert_laplace_scale(
            _noise(data, "std", epsilon, (-20, 20), xs.std(ddof=1), "local"),
            spread / (np.sqrt(n) * epsilon),
        )


def test_global_variance_and_sd_scales_come_from_the_bounds(data):
    # Default: (U - L)^2 / (n eps) and (U - L) / (sqrt(n) eps), no warning.
    epsilon = 2.0
    xs = np.sort(data)
    n = xs.size
    _assert_laplace_scale(
        _noise(data, "var", epsilon, (-20, 20), xs.var(ddof=1)), 40**2 / (n * epsilon)
    )
    _assert_laplace_scale(
        _noise(data, "std", epsilon, (-20, 20), xs.std(ddof=1)),
        40 / (np.sqrt(n) * epsilon),
    )


def test_variance_and_sd_sensitivity_bounds_hold_on_worst_neighbours():
    # Replacing one record of values in [L, U] moves the sample variance by at
    # most (U - L)^2 / n and the sample SD by at most (U - L) / sqrt(n).
    rng = np.random.default_rng(3)
    lo, hi, n = 0.0, 1.0, 7
    worst_var = worst_sd = 0.0
    for _ in range(2000):
        x = rng.choice([lo, hi, rng.uniform()], size=n)
        y = x.copy()
        y[rng.integers(n)] = rng.choice([lo, hi])
        worst_var = max(worst_var, abs(x.var(ddof=1) - y.var(ddof=1)))
        worst_sd = max(worst_sd, abs(x.std(ddof=1) - y.std(ddof=1)))
    assert worst_var <= (hi - lo) ** 2 / n + 1e-12
    assert worst_sd <= (hi - lo) / np.sqrt(n) + 1e-12
    assert worst_var > 0.5 * (hi - lo) ** 2 / n


def test_min_is_not_released_exactly():
    # Issue 14: local sensitivity released the exact minimum for every seed.
    x = [1.0, 1.0, 5.0, 7.0]
    values = [
        laplace_statistic(x, "min", 1.0, (0, 20), random_state=s) for s in range(50)
    ]
    assert 1.0 not in values
    assert all(0 <= v <= 20 for v in values)
    assert len(set(values)) == 50
    with pytest.warns(PrivacyLeakWarning, match="sensitivity='local'"):
        local = [
            laplace_statistic(
                x, "min", 1.0, (0, 20), random_state=s, sensitivity="local"
            )
            for s in range(5)
        ]
    assert local == [1.0] * 5


def test_exponential_mechanism_quantiles_are_dp_and_accurate():
    # Output density ratio between neighbours: the interval weights change by
    # exp(eps/2) in utility and the normaliser by at most exp(eps/2).
    x = np.random.default_rng(1).normal(0, 1, 2001)
    med = [
        laplace_statistic(x, "median", 1.0, (-10, 10), random_state=s)
        for s in range(30)
    ]
    assert abs(np.median(med) - np.median(x)) < 0.05
    big = [
        laplace_statistic(x, "max", 50.0, (-10, 10), random_state=s) for s in range(30)
    ]
    # at a large budget the max is drawn (uniformly) above the largest value
    assert np.all((np.array(big) >= np.sort(x)[-2]) & (np.array(big) <= 10))
    # the probability of each output interval on two neighbouring data sets
    from skprivate.integral._dp import _dp_quantile

    a = np.array([1.0, 2.0, 3.0])
    b = np.array([1.0, 2.0, 9.0])
    eps = 1.0
    rng = np.random.default_rng(0)
    cells = np.linspace(0, 10, 11)
    ha = np.histogram(
        [_dp_quantile(a, 0.5, eps, 0, 10, rng) for _ in range(20000)], cells
    )[0]
    hb = np.histogram(
        [_dp_quantile(b, 0.5, eps, 0, 10, rng) for _ in range(20000)], cells
    )[0]
    ok = (ha > 400) & (hb > 400)
    assert np.all(np.abs(np.log(ha[ok] / hb[ok])) < eps + 0.15)


def test_infinite_or_nan_epsilon_is_refused(data):
    for bad in (np.inf, np.nan, -1.0, 0.0):
        with pytest.raises(ValueError, match="epsilon"):
            laplace_statistic(data, "mean", bad, (-20, 20))
    with pytest.raises(ValueError, match="delta"):
        laplace_statistic(data, "iqr", 1.0, (-20, 20), delta=np.nan)
    with pytest.raises(ValueError, match="sensitivity"):
        laplace_statistic(data, "mean", 1.0, (-20, 20), sensitivity="smooth")


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
    with pytest.raises(ValueError, match=r"\bx\b contains NaN at entry \(1,\)"):
        laplace_statistic([0.5, np.nan], "mean", 1.0, (0, 1))
    with pytest.raises(ValueError, match="x is empty"):
        laplace_statistic([], "mean", 1.0, (0, 1))
    with pytest.raises(ValueError, match="'a' has no non-missing"):
        laplace_describe(pd.DataFrame({"a": [np.nan]}), 1.0, (0, 1))


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
    for s in ("count", "mean", "std"):
        np.testing.assert_allclose(table.loc[s], truth.loc[s], rtol=1e-3, atol=1e-3)
    # the exponential mechanism draws min and max uniformly within the gap
    # next to them (at this epsilon): within one spacing of the data
    for s in ("min", "max"):
        np.testing.assert_allclose(table.loc[s], truth.loc[s], atol=1.0 + 1e-9)
        assert abs(table.loc[s, "b"] - truth.loc[s, "b"]) <= 1 / 199 + 1e-12


def test_absolute_relative_error():
    np.testing.assert_allclose(
        absolute_relative_error([0.2, -50.0, 10.0, 3.0], [0.7, -40.0, 9.0, np.nan]),
        [0.5, 0.2, 0.1, np.nan],
    )


@pytest.mark.parametrize("statistic", ["sum", "mean", "median", "max"])
def test_an_int_seed_never_gives_two_batches_the_same_noise(statistic):
    # the same seed on January and February: with shared noise, the
    # difference of the releases would be the true difference exactly
    rng = np.random.default_rng(21)
    january, february = rng.uniform(0, 100, 500), rng.uniform(0, 100, 500)

    def release(x, seed=4, name=statistic):
        return laplace_statistic(x, name, 1.0, bounds=(0, 100), random_state=seed)

    def noise(x):
        return release(x) - laplace_statistic(x, statistic, 1e12, bounds=(0, 100))

    if statistic in ("sum", "mean"):
        assert noise(january) != pytest.approx(noise(february), rel=1e-6)
    else:
        assert release(january) != release(february)
    # the same seed on the same data reproduces the release, row order aside
    assert release(january) == release(january[::-1])
    assert release(january) != release(january, seed=5)


def test_an_int_seed_gives_other_statistics_and_columns_other_noise():
    x = np.random.default_rng(22).uniform(0, 100, 400)
    n = x.size
    sum_noise = laplace_statistic(x, "sum", 1.0, (0, 100), random_state=3) - x.sum()
    mean_noise = laplace_statistic(x, "mean", 1.0, (0, 100), random_state=3) - x.mean()
    # one shared draw u would give sum noise 100 u and mean noise 100 u / n
    assert sum_noise != pytest.approx(mean_noise * n, rel=1e-6)
    table = laplace_describe(
        pd.DataFrame({"a": x, "b": x}), 1.0, (0, 100), ("sum",), random_state=3
    )
    assert table.loc["sum", "a"] != table.loc["sum", "b"]
    again = laplace_describe(
        pd.DataFrame({"a": x, "b": x}), 1.0, (0, 100), ("sum",), random_state=3
    )
    pd.testing.assert_frame_equal(table, again)
    other = laplace_describe(
        pd.DataFrame({"a": x[::-1] * 0.5, "b": x}),
        1.0,
        (0, 100),
        ("sum",),
        random_state=3,
    )
    assert other.loc["sum", "a"] - table.loc["sum", "a"] != pytest.approx(
        (x * 0.5).sum() - x.sum(), rel=1e-9
    )
