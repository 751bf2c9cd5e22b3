"""Intervals of released statistics that mutation testing found unchecked.

``laplace_intervals`` and ``IntegralPrivateStatistics.conf_int``: the
normal-Laplace law and its half-width (by quadrature), every statistic's
interval by hand, the population intervals with their standard deviation
rules, and the refusals with their messages.  The spec lists the mutants
of ``skprivate/integral/_intervals.py`` these tests were checked against
(``benchmarks/_mutation_specs_family_intervals.py``).
"""

import re

import numpy as np
import pandas as pd
import pytest
from scipy import integrate, stats

from skprivate.integral import IntegralPrivateStatistics, laplace_intervals
from skprivate.integral._intervals import (
    _abs_cdf,
    _mode_variance,
    normal_laplace_half_width,
)


def _exact(message):
    """The whole of an error message (a changed prefix or suffix fails too)."""
    return "^" + re.escape(message) + "$"


# the tiny samples here are far from the sizes the estimators are meant for
pytestmark = [
    pytest.mark.filterwarnings("ignore::skprivate.exceptions.CoverageWarning"),
    pytest.mark.filterwarnings("ignore::skprivate.exceptions.NotIdentifiableWarning"),
]

Z90 = stats.norm.ppf(0.95)

# -- released statistics: Laplace and integral privacy ------------------------


def _normal_laplace_cdf_by_quadrature(c, tau, b):
    """P(|N(0, tau**2) + Laplace(b)| <= c), integrating over the Laplace term."""

    def inside(e):
        return (stats.norm.cdf((c - e) / tau) - stats.norm.cdf((-c - e) / tau)) * (
            np.exp(-abs(e) / b) / (2 * b)
        )

    return (
        integrate.quad(inside, -np.inf, 0, epsabs=1e-13)[0]
        + integrate.quad(inside, 0, np.inf, epsabs=1e-13)[0]
    )


STATS = ["count", "sum", "mean", "var", "std"]


def _released_table():
    return pd.DataFrame({"x": [400.3, 20_100.0, 50.2, 81.0, 9.0]}, index=STATS)


def _integral(values, **params):
    """A fitted estimator whose release is ``values`` {column: {statistic: v}}."""
    x = np.random.default_rng(0).normal(10, 2, size=(20, 1))
    est = IntegralPrivateStatistics(
        statistics=("count", "mean"), n_resamples=20, random_state=0
    ).fit(x)
    est.set_params(**params)
    est.results_ = pd.DataFrame(
        [
            {"column": c, "statistic": s, "value": v}
            for c, got in values.items()
            for s, v in got.items()
        ]
    )
    return est


# -- the tests, the fastest first (a mutant stops at its first failure) --------


def test_laplace_sample_intervals_by_hand_for_every_statistic():
    eps, lo, hi, n = 0.5, -20.0, 80.0, 400
    ci = laplace_intervals(_released_table(), eps, (lo, hi), n=n, level=0.8)
    scales = {
        "count": 1 / eps,
        "sum": 100 / eps,  # max(U - L, |L|, |U|) / epsilon
        "mean": 100 / (n * eps),
        "var": 100**2 / (n * eps),
        "std": 100 / (np.sqrt(n) * eps),
    }
    for _, row in ci.iterrows():
        b = scales[row["quantity"]]
        half = b * np.log(5.0)  # b log(1 / (1 - 0.8))
        assert row["lower"] == pytest.approx(row["estimate"] - half, rel=1e-12)
        assert row["upper"] == pytest.approx(row["estimate"] + half, rel=1e-12)
        assert row["se"] == pytest.approx(np.sqrt(2) * b)
        assert row["method"] == "laplace noise (exact)"
        assert row["level"] == 0.8
    assert ci["target"].tolist() == [
        "n",
        "sample sum",
        "sample mean",
        "sample var",
        "sample std",
    ]
    assert ci["point"].tolist() == ["x"] * 5
    assert ci["estimate"].tolist() == _released_table()["x"].tolist()


def test_laplace_intervals_of_other_releases():
    table = pd.DataFrame(
        {"x": [3.0, 1.0, 5.0, 2.0, np.nan], "y": [4.0, 0.0, 9.0, 1.0, 6.0]},
        index=["iqr", "min", "max", "median", "mean"],
    )
    ci = laplace_intervals(table, 1.0, (0, 10), n=100, level=0.9)
    x = ci[ci["point"] == "x"].set_index("quantity")
    cell = np.sqrt(1 + 1 / np.log(100))
    assert (x.loc["iqr", "lower"], x.loc["iqr", "upper"]) == pytest.approx(
        (3.0 / cell, 3.0 * cell)
    )
    assert x.loc["iqr", "method"] == "propose-test-release grid cell (certain)"
    assert x.loc["iqr", "target"] == "sample IQR"
    for stat in ("min", "max", "median"):
        assert x.loc[stat, "method"] == (
            "unavailable: exponential mechanism (error depends on the data)"
        )
        assert np.isnan(x.loc[stat, ["lower", "upper"]].to_numpy(float)).all()
    assert x.loc["mean", "method"] == "unavailable: no release"
    assert np.isnan(x.loc["mean", "se"])
    # per-column bounds and counts
    per = laplace_intervals(
        table, 1.0, {"x": (0, 10), "y": (0, 20)}, n={"x": 100, "y": 50}
    )
    y_mean = per[(per["point"] == "y") & (per["quantity"] == "mean")].iloc[0]
    assert y_mean["se"] == pytest.approx(np.sqrt(2) * 20 / 50)
    pop = laplace_intervals(table, 1.0, (0, 10), n=100, target="population")
    assert pop.set_index(["point", "quantity"]).loc[("x", "iqr"), "method"] == (
        "unavailable for the population"
    )


def test_laplace_intervals_count_from_the_release():
    table = pd.DataFrame({"x": [99.6, 5.0]}, index=["count", "mean"])
    mean = laplace_intervals(table, 1.0, (0, 10)).set_index("quantity").loc["mean"]
    assert mean["se"] == pytest.approx(np.sqrt(2) * 10 / 100)  # n = round(99.6)
    tiny = pd.DataFrame({"x": [-3.0, 5.0]}, index=["count", "mean"])
    got = laplace_intervals(tiny, 1.0, (0, 10)).set_index("quantity").loc["mean"]
    assert got["se"] == pytest.approx(np.sqrt(2) * 10)  # at least one value


def test_laplace_intervals_refusals():
    table = pd.DataFrame({"x": [50.0, 10.0]}, index=["mean", "std"])
    cases = [
        ({"sd_quantile": 1.0}, "sd_quantile must lie in [0.5, 1); got 1.0."),
        ({"sd_quantile": 0.4}, "sd_quantile must lie in [0.5, 1); got 0.4."),
        ({"target": "both"}, "target must be 'sample' or 'population'; got 'both'."),
    ]
    for kw, msg in cases:
        with pytest.raises(ValueError, match=_exact(msg)):
            laplace_intervals(table, 1.0, (0, 100), n=10, **kw)
    assert len(laplace_intervals(table, 1.0, (0, 100), n=10, sd_quantile=0.5)) == 2
    with pytest.raises(TypeError, match="table must be the DataFrame returned by"):
        laplace_intervals([50.0], 1.0, (0, 100), n=10)
    for eps in (0, -1.0, np.inf, True, "1"):
        with pytest.raises(
            ValueError,
            match=_exact(f"epsilon must be a finite positive number; got {eps!r}."),
        ):
            laplace_intervals(table, eps, (0, 100), n=10)
    with pytest.raises(
        ValueError,
        match="^"
        + re.escape(
            "table must be a release of laplace_describe, indexed by statistic "
            "names among"
        ),
    ):
        laplace_intervals(pd.DataFrame({"x": [1.0]}, index=["mode"]), 1.0, (0, 1))
    with pytest.raises(ValueError, match="indexed by statistic"):
        laplace_intervals(pd.DataFrame({"x": []}), 1.0, (0, 1))
    for arg in ("bounds", "n"):
        kw = {"bounds": (0, 100), "n": 10, arg: {"z": (0, 1) if arg == "bounds" else 3}}
        with pytest.raises(
            ValueError,
            match=_exact(
                f"{arg} has entries for ['z'], which are not columns of table ['x']."
            ),
        ):
            laplace_intervals(table, 1.0, **kw)
    with pytest.raises(
        ValueError,
        match=_exact(
            "bounds for column 'x' are needed: the noise scales derive from the "
            "public bounds the release used."
        ),
    ):
        laplace_intervals(table, 1.0, {}, n=10)
    with pytest.raises(
        ValueError, match=_exact("n is needed for column 'x' (no released count).")
    ):
        laplace_intervals(table, 1.0, (0, 100))
    nan_count = pd.DataFrame({"x": [np.nan, 1.0]}, index=["count", "mean"])
    with pytest.raises(ValueError, match="n is needed for column 'x'"):
        laplace_intervals(nan_count, 1.0, (0, 100))
    for n in (0.5, True, np.inf, "10"):
        with pytest.raises(
            ValueError,
            match=_exact(
                f"n must be a number of values >= 1 (per column); got {n!r} for "
                "column 'x'."
            ),
        ):
            laplace_intervals(table, 1.0, (0, 100), n=n)
    one = laplace_intervals(table, 1.0, (0, 100), n=1).set_index("quantity")
    assert one.loc["mean", "se"] == pytest.approx(np.sqrt(2) * 100)


def test_laplace_intervals_of_one_column_releases_and_their_names():
    named = pd.Series({"count": 100.0, "mean": 5.0}, name="age")
    assert laplace_intervals(named, 1.0, (0, 10))["point"].tolist() == ["age"] * 2
    unnamed = pd.Series({"count": 100.0, "mean": 5.0})
    assert laplace_intervals(unnamed, 1.0, (0, 10))["point"].tolist() == ["x"] * 2
    # a statistic given as None in a dict was not released
    got = laplace_intervals({"count": 100, "mean": 5, "std": None}, 1.0, (0, 10))
    got = got.set_index("quantity")
    assert got.loc["std", "method"] == "unavailable: no release"
    assert got.loc["mean", "se"] == pytest.approx(np.sqrt(2) * 10 / 100)
    # the bounds are named in their refusal, and the level as given
    with pytest.raises(
        ValueError,
        match=_exact("bounds must be finite with lower < upper; got (10, 0)."),
    ):
        laplace_intervals(named, 1.0, (10, 0))
    for level, shown in (("0.9", "'0.9'"), (True, "True")):
        with pytest.raises(
            ValueError,
            match=_exact(f"level must be a number in (0, 1); got {shown}."),
        ):
            laplace_intervals(named, 1.0, (0, 10), level=level)


def test_integral_intervals_without_the_releases_they_need():
    est = _integral(
        {"a": {"count": 50.0, "mean": np.nan, "std": 1.0}, "b": {"mean": 2.0}}
    )
    ci = est.conf_int("mean")
    assert ci["method"].tolist() == [
        "unavailable: needs the released mean",
        "unavailable: needs the released count, std",
    ]
    assert np.isnan(ci[["lower", "upper"]].to_numpy(float)).all()
    assert ci["estimate"].iloc[1] == 2.0
    with pytest.raises(
        ValueError, match=_exact("unknown columns ['c']; have ['a', 'b'].")
    ):
        est.conf_int("mean", ["a", "c"])
    with pytest.raises(
        ValueError,
        match=_exact(
            "IntegralPrivateStatistics computes 'mean' intervals with method in "
            "['released'] (or 'auto'); got method='normal'."
        ),
    ):
        est.conf_int("mean", method="normal")
    # no sum was released at all
    total = est.conf_int("sum", ["a"]).iloc[0]
    assert total["method"] == "unavailable: needs the released sum"
    assert np.isnan(total["estimate"])
    with pytest.raises(ValueError, match="available: \\['count', 'mean', 'sum'\\]"):
        est.conf_int("std")


def test_integral_intervals_by_hand():
    release = {
        "a": {"count": 400.0, "mean": 10.0, "std": 2.0, "sum": 4000.0},
        "b": {"count": 100.0, "mean": -1.0, "std": 3.0, "sum": -100.0},
    }
    est = _integral(release, decimals=None)
    ci = est.conf_int("mean", level=0.9)
    assert ci["point"].tolist() == ["a", "b"]
    for i, (col, sd) in enumerate((("a", 2 / 20), ("b", 3 / 10))):
        se = np.sqrt(2) * sd  # no rounding: the mode varies as a draw does
        row = ci.iloc[i]
        assert row["estimate"] == release[col]["mean"]
        assert row["se"] == pytest.approx(se)
        assert (row["lower"], row["upper"]) == pytest.approx(
            (row["estimate"] - Z90 * se, row["estimate"] + Z90 * se)
        )
        assert row["method"] == "released std and count, release-rule variance"
        assert row["target"] == "population mean"
    total = est.conf_int("sum", ["b"]).iloc[0]
    assert total["se"] == pytest.approx(np.sqrt(2) * 3 * 10)  # s sqrt(n)
    assert total["target"] == "n x population mean"
    count = est.conf_int("count", ["b", "a"])
    assert count["point"].tolist() == ["b", "a"]
    assert count[["estimate", "lower", "upper"]].to_numpy().tolist() == [
        [100.0] * 3,
        [400.0] * 3,
    ]
    assert count["method"].tolist() == ["exact"] * 2
    assert count["quantity"].tolist() == ["count"] * 2
    assert count.index.tolist() == [0, 1]
    assert est.conf_int("count", level=0.8)["level"].tolist() == [0.8, 0.8]
    assert count["target"].tolist() == ["n"] * 2
    # rounding to decimals: the variance of the simulated release rule
    rounded = _integral(release, decimals=1, n_resamples=30, min_frequency=3)
    row = rounded.conf_int("mean", ["a"]).iloc[0]
    mode_var = _mode_variance(0.1, 0.1, 30, 3)
    assert row["se"] == pytest.approx(np.sqrt(0.01 + mode_var))
    # a zero standard deviation: nothing to simulate
    flat = _integral({"a": {"count": 9.0, "mean": 1.0, "std": 0.0}}, decimals=2)
    assert flat.conf_int("mean").iloc[0]["se"] == 0.0


def test_laplace_population_standard_deviation_is_capped_and_floored():
    eps, n = 0.5, 400
    b = 100 / (n * eps)

    def mean_row(table, **kw):
        got = laplace_intervals(
            table, eps, (-20, 80), n=n, target="population", sd_quantile=0.5, **kw
        )
        return got.set_index("quantity").loc["mean"]

    def half_of(s):
        return normal_laplace_half_width(s / np.sqrt(n), b, 0.95)

    # sd_quantile = 0.5 adds nothing: the released std itself
    row = mean_row(pd.DataFrame({"x": [50.0, 9.0]}, index=["mean", "std"]))
    assert row["upper"] - row["estimate"] == pytest.approx(half_of(9.0))
    # a released std above (U - L) / 2 is capped there
    row = mean_row(pd.DataFrame({"x": [50.0, 70.0]}, index=["mean", "std"]))
    assert row["upper"] - row["estimate"] == pytest.approx(half_of(50.0))
    # a negative release (noise) counts as 0
    row = mean_row(pd.DataFrame({"x": [50.0, -3.0]}, index=["mean", "std"]))
    assert row["upper"] - row["estimate"] == pytest.approx(half_of(0.0))
    # no released std: the worst case, said so
    row = mean_row(pd.DataFrame({"x": [50.0]}, index=["mean"]))
    assert row["upper"] - row["estimate"] == pytest.approx(half_of(50.0))
    assert row["method"] == (
        "laplace noise + sampling (normal), worst-case s = (U - L) / 2"
    )


def test_laplace_population_intervals_by_hand():
    eps, lo, hi, n, q = 0.5, -20.0, 80.0, 400, 0.8
    ci = laplace_intervals(
        _released_table(), eps, (lo, hi), n=n, target="population", sd_quantile=q
    ).set_index("quantity")
    # the released std (9) plus the 0.8 one-sided quantile of its noise
    b_std = 100 / (np.sqrt(n) * eps)
    s = 9.0 + b_std * np.log(1 / (2 * (1 - q)))
    assert s < 50  # below the largest SD on the bounds
    for stat, tau, b in (
        ("mean", s / np.sqrt(n), 100 / (n * eps)),
        ("sum", s * np.sqrt(n), 100 / eps),  # max(U - L, |L|, |U|) / epsilon
    ):
        row = ci.loc[stat]
        half = normal_laplace_half_width(tau, b, 0.95)
        assert _normal_laplace_cdf_by_quadrature(half, tau, b) == pytest.approx(0.95)
        assert (row["lower"], row["upper"]) == pytest.approx(
            (row["estimate"] - half, row["estimate"] + half), rel=1e-12
        )
        assert row["se"] == pytest.approx(np.sqrt(tau**2 + 2 * b**2))
        assert row["method"] == "laplace noise + sampling (normal)"
    assert ci.loc["mean", "target"] == "population mean of the clamped values"
    assert ci.loc["sum", "target"] == "n x population mean of the clamped values"
    # the count keeps its exact interval, for n
    assert ci.loc["count", "target"] == "n"
    assert ci.loc["count", "upper"] - ci.loc["count", "estimate"] == pytest.approx(
        2 * np.log(20)
    )
    for stat in ("var", "std"):
        assert np.isnan(ci.loc[stat, ["lower", "upper"]].to_numpy(float)).all()
        assert ci.loc[stat, "method"] == "unavailable for the population"
        assert ci.loc[stat, "target"] == ""


def test_normal_laplace_law_and_half_width_by_quadrature():
    for c, tau, b in ((1.0, 0.7, 0.4), (2.5, 0.3, 1.2), (0.4, 2.0, 0.1)):
        assert _abs_cdf(c, tau, b) == pytest.approx(
            _normal_laplace_cdf_by_quadrature(c, tau, b), abs=1e-10
        )
    # the limits: a normal, a Laplace, a point mass
    assert _abs_cdf(1.3, 0.5, 0.0) == pytest.approx(2 * stats.norm.cdf(2.6) - 1)
    assert _abs_cdf(1.3, 0.0, 0.5) == pytest.approx(1 - np.exp(-2.6))
    assert _abs_cdf(0.0, 0.0, 0.0) == 1.0
    assert _abs_cdf(-0.1, 0.0, 0.0) == 0.0
    for level in (0.8, 0.95):
        c = normal_laplace_half_width(0.7, 0.4, level)
        assert _normal_laplace_cdf_by_quadrature(c, 0.7, 0.4) == pytest.approx(
            level, abs=1e-9
        )
    assert normal_laplace_half_width(0.0, 2.0, 0.9) == pytest.approx(2 * np.log(10))
    assert normal_laplace_half_width(1.5, 0.0, 0.9) == pytest.approx(
        1.5 * stats.norm.ppf(0.95)
    )
    for tau, b in ((-1.0, 1.0), (1.0, -0.5), (0.0, 0.0)):
        with pytest.raises(
            ValueError,
            match=_exact(f"need tau, b >= 0, not both 0; got {tau}, {b}."),
        ):
            normal_laplace_half_width(tau, b, 0.9)


def test_normal_laplace_half_width_below_one():
    # a root below 1: the search starts at 0
    c = normal_laplace_half_width(0.1, 0.05, 0.5)
    assert c < 1
    assert _normal_laplace_cdf_by_quadrature(c, 0.1, 0.05) == pytest.approx(
        0.5, abs=1e-9
    )
