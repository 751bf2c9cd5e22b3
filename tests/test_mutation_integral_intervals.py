"""Intervals of released statistics (``skprivate/integral/_intervals.py``),
as mutation testing found them unchecked.

The rows ``laplace_intervals`` gives where no interval is available, its
refusal of other tables, the normal-Laplace half-width at a unit normal
scale, and the rows of ``IntegralPrivateStatistics.conf_int`` (their
quantity, level and target, and the release-rule variance at any scale of
the data).  Exact values on small cases;
``benchmarks/_mutation_specs_family_intervals.py`` lists the mutants these
tests kill.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from skprivate._uncertainty import COLUMNS
from skprivate.integral import laplace_intervals
from skprivate.integral._intervals import normal_laplace_half_width

from .test_mutation_family_intervals_released import (
    _exact,
    _integral,
    _normal_laplace_cdf_by_quadrature,
)

pytestmark = [
    pytest.mark.filterwarnings("ignore::skprivate.exceptions.CoverageWarning"),
]


def test_laplace_rows_without_interval_name_no_target():
    table = pd.DataFrame(
        {"x": [100.0, np.nan, 5.0, 2.0]}, index=["count", "mean", "median", "iqr"]
    )
    sample = laplace_intervals(table, 1.0, (0, 10), level=0.8)
    assert sample["method"].tolist()[1:3] == [
        "unavailable: no release",
        "unavailable: exponential mechanism (error depends on the data)",
    ]
    assert sample["target"].tolist() == ["n", "", "", "sample IQR"]
    population = laplace_intervals(table, 1.0, (0, 10), target="population")
    assert population["method"].iloc[3] == "unavailable for the population"
    assert population["target"].tolist() == ["n", "", "", ""]
    for ci in (sample, population):
        assert ci["quantity"].tolist() == ["count", "mean", "median", "iqr"]
        assert ci["point"].tolist() == ["x"] * 4
        assert np.isnan(ci[["lower", "upper"]].to_numpy(float)[1:3]).all()
    assert sample["level"].tolist() == [0.8] * 4


def test_laplace_intervals_refuse_other_tables_with_the_whole_reason():
    with pytest.raises(
        TypeError,
        match=_exact(
            "table must be the DataFrame returned by laplace_describe (or a "
            "Series or dict of released statistics of one column)."
        ),
    ):
        laplace_intervals([50.0], 1.0, (0, 100), n=10)


def test_a_release_of_no_column_gives_an_empty_table_with_every_column():
    empty = laplace_intervals(pd.DataFrame(index=["count", "mean"]), 1.0, (0, 1))
    assert len(empty) == 0
    assert list(empty.columns) == COLUMNS


def test_normal_laplace_half_width_at_a_unit_normal_scale():
    # the normal part counts at tau = 1 as at any other scale
    for b, level in ((1.0, 0.9), (0.5, 0.95)):
        c = normal_laplace_half_width(1.0, b, level)
        assert c > b * np.log(1 / (1 - level))
        assert _normal_laplace_cdf_by_quadrature(c, 1.0, b) == pytest.approx(
            level, abs=1e-9
        )


def test_integral_rows_name_their_quantity_level_and_target():
    est = _integral(
        {
            "a": {"count": 50.0, "mean": 3.0},
            "b": {"count": 400.0, "mean": 10.0, "std": 2.0, "sum": 4000.0},
        },
        decimals=None,
    )
    ci = est.conf_int("mean", level=0.8)
    assert ci["quantity"].tolist() == ["mean", "mean"]
    assert ci["point"].tolist() == ["a", "b"]
    assert ci["level"].tolist() == [0.8, 0.8]
    assert ci["target"].tolist() == ["", "population mean"]
    assert ci["method"].iloc[0] == "unavailable: needs the released std"
    total = est.conf_int("sum", level=0.9)
    assert total["quantity"].tolist() == ["sum", "sum"]
    assert total["level"].tolist() == [0.9, 0.9]
    assert total["target"].tolist() == ["", "n x population mean"]


def test_release_rule_variance_scales_with_the_data():
    # the rounded release rule depends on the data only through sd / step:
    # data 1e-13 times smaller, rounded 13 more decimals, give an interval
    # 1e-13 times narrower (the sampling sd, 1e-14, is not rounded to 0)
    scale = 1e-13
    release = {"a": {"count": 400.0, "mean": 10.0, "std": 2.0}}
    small = {"a": {"count": 400.0, "mean": 10.0 * scale, "std": 2.0 * scale}}
    params = {"n_resamples": 30, "min_frequency": 3}
    se = _integral(release, decimals=1, **params).conf_int("mean").iloc[0]["se"]
    tiny = _integral(small, decimals=14, **params).conf_int("mean").iloc[0]["se"]
    assert tiny / scale == pytest.approx(se, rel=1e-9)


def test_a_dict_of_statistics_none_of_them_released():
    ci = laplace_intervals({"count": None, "mean": None}, 1.0, (0, 10), n=100)
    assert ci["method"].tolist() == ["unavailable: no release"] * 2
    assert np.isnan(ci[["estimate", "lower", "upper"]].to_numpy(float)).all()


def test_sum_noise_scale_counts_the_bound_farthest_from_zero():
    # one-signed bounds: the largest |bound| (10) exceeds their distance (5)
    table = pd.DataFrame({"x": [100.0, 700.0]}, index=["count", "sum"])
    for bounds in ((5.0, 10.0), (-10.0, -5.0)):
        row = laplace_intervals(table, 2.0, bounds, n=100, level=0.9).iloc[1]
        b = 10.0 / 2.0
        assert row["se"] == pytest.approx(np.sqrt(2) * b)
        assert (row["lower"], row["upper"]) == pytest.approx(
            (700.0 - b * np.log(10), 700.0 + b * np.log(10))
        )
