"""Intervals from released statistics: Laplace baselines and integral privacy."""

import numpy as np
import pandas as pd
import pytest

from skprivate.integral import (
    IntegralPrivateStatistics,
    laplace_describe,
    laplace_intervals,
)
from skprivate.integral._intervals import _mode_variance


def test_sample_target_half_width_is_the_laplace_quantile():
    table = pd.DataFrame(
        {"x": [1000.4, 50.2, 9.0, 81.0]}, index=["count", "mean", "std", "var"]
    )
    ci = laplace_intervals(table, 2.0, (0, 100), n=1000, level=0.9).set_index(
        "quantity"
    )
    # Scales: count 1/eps, mean (U - L)/(n eps), std (U - L)/(sqrt(n) eps),
    # var (U - L)^2/(n eps); half-width b log(1 / (1 - level)) = b log 10.
    for stat, b in [
        ("count", 0.5),
        ("mean", 0.05),
        ("std", 100 / (np.sqrt(1000) * 2)),
        ("var", 100**2 / 2000),
    ]:
        half = ci.loc[stat, "upper"] - ci.loc[stat, "estimate"]
        assert half == pytest.approx(b * np.log(10))


@pytest.mark.parametrize(
    "bounds, sensitivity",
    [((-5.0, 10.0), 15.0), ((2.0, 10.0), 10.0), ((-10.0, -2.0), 10.0)],
)
def test_sum_interval_undoes_the_noise_the_release_added(bounds, sensitivity):
    # the release noises the clamped sum with scale max(U - L, |L|, |U|) / eps
    # (a replaced record moves it by U - L, an added one by max(|L|, |U|));
    # its interval must use the same scale
    table = pd.Series({"count": 50.0, "sum": 120.0})
    ci = laplace_intervals(table, 0.5, bounds, n=50, level=0.9).set_index("quantity")
    half = ci.loc["sum", "upper"] - ci.loc["sum", "estimate"]
    assert half == pytest.approx(sensitivity / 0.5 * np.log(10), rel=1e-12)


def test_sample_target_intervals_cover_the_data_statistic_exactly():
    rng = np.random.default_rng(0)
    reps = 500
    hits = np.zeros(3)
    for seed in range(reps):
        x = rng.uniform(20, 60, size=400)
        rel = laplace_describe(
            pd.DataFrame({"x": x}),
            1.0,
            bounds=(0, 100),
            statistics=("count", "mean", "sum"),
            random_state=seed,
        )
        ci = laplace_intervals(rel, 1.0, (0, 100), n=400).set_index("quantity")
        for j, (stat, truth) in enumerate(
            [("count", 400), ("mean", x.mean()), ("sum", x.sum())]
        ):
            hits[j] += ci.loc[stat, "lower"] <= truth <= ci.loc[stat, "upper"]
    se = np.sqrt(0.95 * 0.05 / reps)
    assert np.all(np.abs(hits / reps - 0.95) < 3 * se)


def test_iqr_cell_holds_the_sample_iqr_and_quantiles_get_no_interval():
    x = np.random.default_rng(1).normal(50, 10, size=5000)
    rel = laplace_describe(
        pd.DataFrame({"x": x}),
        4.0,
        bounds=(0, 100),
        statistics=("iqr", "median"),
        random_state=0,
    )
    ci = laplace_intervals(rel, 4.0, (0, 100), n=5000).set_index("quantity")
    iqr = np.quantile(x, 0.75) - np.quantile(x, 0.25)
    assert ci.loc["iqr", "lower"] <= iqr < ci.loc["iqr", "upper"]
    assert np.isnan(ci.loc["median", "lower"])
    assert "exponential mechanism" in ci.loc["median", "method"]
    pop = laplace_intervals(rel, 4.0, (0, 100), n=5000, target="population")
    assert pop["lower"].isna().all()


def test_population_mean_interval_adds_the_sampling_error():
    table = pd.DataFrame({"x": [50.0, 10.0]}, index=["mean", "std"])
    sample = laplace_intervals(table, 1.0, (0, 100), n=400).iloc[0]
    pop = laplace_intervals(
        table, 1.0, (0, 100), n=400, target="population", sd_quantile=0.5
    ).iloc[0]
    # sd_quantile = 0.5 plugs in the released SD (10): the normal part
    # N(0, 0.25) widens the Laplace(0.25) interval.
    assert pop["upper"] - pop["lower"] > sample["upper"] - sample["lower"]
    assert pop["se"] == pytest.approx(np.sqrt(0.5**2 + 2 * 0.25**2))
    with pytest.raises(ValueError, match="sd_quantile"):
        laplace_intervals(table, 1.0, (0, 100), n=400, sd_quantile=0.2)
    with pytest.raises(ValueError, match="bounds"):
        laplace_intervals(table, 1.0, {"other": (0, 1)}, n=400)


def test_mode_variance_limits():
    # A rounding step far above the spread: the mode is the rounded centre,
    # off by a uniform offset: variance step^2 / 12.
    assert _mode_variance(1e-4, 1.0, 200, 2) == pytest.approx(1 / 12, rel=0.15)
    # A step far below the spread: the mode wanders within the bootstrap
    # law but far less than one draw does.
    v = _mode_variance(1.0, 0.01, 1000, 2)
    assert 0.01 < v < 0.5


def test_integral_mean_interval_from_released_values_only():
    x = np.random.default_rng(0).normal(10, 2, size=(500, 1))
    est = IntegralPrivateStatistics(
        statistics=("count", "mean", "std"), n_resamples=500, random_state=0
    ).fit(x)
    ci = est.conf_int("mean").iloc[0]
    values = est.results_.set_index("statistic")["value"]
    assert ci["estimate"] == values["mean"]
    assert ci["se"] >= values["std"] / np.sqrt(values["count"])
    assert ci["lower"] < 10 < ci["upper"]
    count = est.conf_int("count").iloc[0]
    assert count["lower"] == count["upper"] == 500
    only_mean = IntegralPrivateStatistics(
        statistics=("mean",), n_resamples=300, random_state=0
    ).fit(x)
    missing = only_mean.conf_int("mean").iloc[0]
    assert np.isnan(missing["lower"]) and "count, std" in missing["method"]


def test_integral_mean_interval_covers():
    rng = np.random.default_rng(3)
    hits, reps = 0, 200
    for seed in range(reps):
        x = rng.normal(10.037, 2.0, size=(400, 1))
        est = IntegralPrivateStatistics(
            statistics=("count", "mean", "std"), n_resamples=300, random_state=seed
        ).fit(x)
        ci = est.conf_int("mean").iloc[0]
        hits += ci["lower"] <= 10.037 <= ci["upper"]
    assert abs(hits / reps - 0.95) < 3 * np.sqrt(0.95 * 0.05 / reps)


def test_statistics_released_alone_take_the_one_column_path():
    # laplace_statistic releases one number; a dict or Series of them gives
    # the same intervals as the same numbers in a laplace_describe table.
    released = {"count": 1001.3, "mean": 41.7, "sum": 41_900.0}
    table = pd.DataFrame({"x": released})
    expected = laplace_intervals(table, 1.0, (0, 100), n=1000, level=[0.9, 0.95])
    for given in (released, pd.Series(released, name="x")):
        got = laplace_intervals(given, 1.0, (0, 100), n=1000, level=[0.9, 0.95])
        pd.testing.assert_frame_equal(got, expected)
    # the mean's half-width is the Laplace quantile b log(1 / alpha), b = 100 / n
    row = expected[(expected["quantity"] == "mean") & (expected["level"] == 0.95)]
    half = float(row["upper"].iloc[0] - row["lower"].iloc[0]) / 2
    assert half == pytest.approx(0.1 * np.log(20.0))
