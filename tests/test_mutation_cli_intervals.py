"""Exact checks of the intervals ``python -m skprivate estimate`` prints.

Each test pins one documented behaviour of ``skprivate/_cli/intervals.py``
with a scripted estimator whose ``conf_int`` answers are given: which rows
of the table get which kind of interval (the mean, the ``qNN`` quantiles,
the shares ``P(category)``, the released integral statistics), the points
and data each call receives, the columns added (the centre, the bounds,
the level only where there is an interval, the method or the reason there
is none, what the interval covers) and the legend printed under the table.
``benchmarks/_mutation_specs_cli.py`` (``cli_intervals``) lists the mutants
these tests kill.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from skprivate._cli.intervals import add_intervals, interval_legend

NAN = np.nan


class _Scripted:
    """``conf_int`` answers by kind; every call is recorded."""

    def __init__(self, answers, privatizer=None):
        self.answers = answers
        self.calls = []
        if privatizer is not None:
            self.privatizer_ = privatizer

    def conf_int(self, kind, points, level, X, random_state):
        self.calls.append((kind, points, level, X, random_state))
        if kind not in self.answers:
            raise ValueError(f"no {kind} interval\nthe details")
        rows = self.answers[kind]
        return pd.DataFrame(
            {
                "lower": [r[0] for r in rows],
                "upper": [r[1] for r in rows],
                "method": [r[2] for r in rows],
                "estimate": [r[3] for r in rows],
                "target": [r[4] for r in rows],
            }
        )


def _table(*statistics):
    return pd.DataFrame(
        {"statistic": list(statistics), "value": np.arange(len(statistics)) + 0.5}
    )


def _columns(out):
    return {c: out[c].tolist() for c in ("centre", "lower", "upper", "method")}


def test_a_distribution_gets_its_mean_and_quantile_intervals():
    est = _Scripted(
        {
            "mean": [(1.0, 2.0, "delta", 1.5, "E[X]")],
            "quantile": [
                (0.0, 1.0, "inv", 0.5, "q25 of X"),
                (2.0, 3.0, "inv", 2.5, "median of X"),
                (4.0, np.inf, "inv", 4.5, "q90 of X"),
            ],
        }
    )
    values = np.array([[1.0], [2.0]])
    table = _table("mean", "std", "q25", "q50", "q5", "q100", "xq50", "q90")
    out = add_intervals(table, est, "deconvolution-kde", values, 0.9)
    assert list(out.columns) == [
        "statistic",
        "value",
        "centre",
        "lower",
        "upper",
        "level",
        "method",
        "covers",
    ]
    assert out["value"].tolist() == table["value"].tolist()
    ((k1, p1, l1, x1, r1), (k2, p2, l2, x2, r2)) = est.calls
    assert (k1, p1, l1, r1) == ("mean", None, 0.9, 0)
    assert (k2, p2, l2, r2) == ("quantile", [0.25, 0.5, 0.9], 0.9, 0)
    assert x1 is values and x2 is values
    got = _columns(out)
    np.testing.assert_array_equal(
        got["lower"], [1.0, NAN, 0.0, 2.0, NAN, NAN, NAN, 4.0]
    )
    np.testing.assert_array_equal(
        got["upper"], [2.0, NAN, 1.0, 3.0, NAN, NAN, NAN, np.inf]
    )
    np.testing.assert_array_equal(
        got["centre"], [1.5, NAN, 0.5, 2.5, NAN, NAN, NAN, 4.5]
    )
    assert got["method"] == ["delta", "", "inv", "inv", "", "", "", "inv"]
    assert out["covers"].tolist() == [
        "E[X]",
        "",
        "q25 of X",
        "median of X",
        "",
        "",
        "",
        "q90 of X",
    ]
    np.testing.assert_array_equal(
        out["level"], [0.9, NAN, 0.9, 0.9, NAN, NAN, NAN, 0.9]
    )


def test_no_mean_and_no_quantile_rows_make_no_call():
    est = _Scripted({})
    out = add_intervals(_table("std", "n"), est, "deconvolution-kde", None, 0.95)
    assert est.calls == []
    assert out["level"].isna().all()
    assert out["method"].tolist() == ["", ""]


def test_a_method_that_cannot_give_an_interval_leaves_its_reason_and_no_level():
    est = _Scripted({})
    out = add_intervals(_table("mean", "q50"), est, "perturbed-kde", None, 0.95)
    assert out["method"].tolist() == [
        "unavailable: no mean interval",
        "unavailable: no quantile interval",
    ]
    assert out["level"].isna().all()
    assert out["lower"].isna().all() and out["upper"].isna().all()
    assert interval_legend(out) == []


@pytest.mark.parametrize("name", ["subset", "frequency"])
def test_shares_get_the_pmf_intervals_in_order(name):
    est = _Scripted(
        {"pmf": [(0.1, 0.3, "wald", 0.2, "P(a)"), (0.5, 0.9, "wald", 0.7, "P(b)")]}
    )
    table = _table("n", "P(a)", "P(b)")
    out = add_intervals(table, est, name, np.zeros((3, 1)), 0.95)
    ((kind, points, level, X, seed),) = est.calls
    assert (kind, points, level, X, seed) == ("pmf", None, 0.95, None, 0)
    np.testing.assert_array_equal(out["lower"], [NAN, 0.1, 0.5])
    np.testing.assert_array_equal(out["upper"], [NAN, 0.3, 0.9])
    np.testing.assert_array_equal(out["centre"], [NAN, 0.2, 0.7])
    np.testing.assert_array_equal(out["level"], [NAN, 0.95, 0.95])
    assert out["covers"].tolist() == ["", "P(a)", "P(b)"]


def test_shares_without_an_interval_all_give_the_reason():
    out = add_intervals(_table("P(a)", "P(b)"), _Scripted({}), "subset", None, 0.95)
    assert out["method"].tolist() == ["unavailable: no pmf interval"] * 2
    assert out["level"].isna().all()


def test_one_share_gets_its_one_interval():
    est = _Scripted({"pmf": [(0.1, 0.3, "wald", 0.2, "P(a)")]})
    out = add_intervals(_table("P(a)"), est, "frequency", None, 0.95)
    assert out["lower"].tolist() == [0.1]
    assert out["level"].tolist() == [0.95]


def test_the_integral_statistics_get_their_own_kinds():
    est = _Scripted(
        {
            "mean": [(1.0, 2.0, "m", 1.5, "mean")],
            "count": [(9.0, 11.0, "c", 10.0, "count")],
            "sum": [(14.0, 16.0, "s", 15.0, "sum")],
        }
    )
    table = _table("count", "mean", "median", "sum")
    out = add_intervals(table, est, "integral", np.zeros((3, 1)), 0.8)
    assert [c[0] for c in est.calls] == ["mean", "count", "sum"]
    assert all(c[1] is None and c[3] is None for c in est.calls)
    assert [c[2] for c in est.calls] == [0.8, 0.8, 0.8]
    np.testing.assert_array_equal(out["lower"], [9.0, 1.0, NAN, 14.0])
    np.testing.assert_array_equal(out["upper"], [11.0, 2.0, NAN, 16.0])
    np.testing.assert_array_equal(out["level"], [0.8, 0.8, NAN, 0.8])
    assert out["method"].tolist() == ["c", "m", "", "s"]
    only = add_intervals(_table("median"), _Scripted({}), "integral", None, 0.8)
    assert only["level"].isna().all()


def test_an_estimator_reading_its_own_release_gets_no_data():
    est = _Scripted({"mean": [(1.0, 2.0, "m", 1.5, "E[X]")]}, privatizer=object())
    add_intervals(_table("mean"), est, "deconvolution-kde", np.zeros((2, 1)), 0.95)
    assert est.calls[0][3] is None


def test_an_interval_with_one_infinite_end_has_a_level():
    est = _Scripted({"mean": [(-np.inf, 2.0, "m", 1.0, "E[X]")]})
    out = add_intervals(_table("mean"), est, "interval-npmle", None, 0.95)
    assert out["level"].tolist() == [0.95]
    trivial = _Scripted({"mean": [(-np.inf, np.inf, "m", 1.0, "E[X]")]})
    out = add_intervals(_table("mean"), trivial, "interval-npmle", None, 0.95)
    assert out["level"].isna().all()


def test_the_input_table_is_left_as_it_was():
    table = _table("mean")
    est = _Scripted({"mean": [(1.0, 2.0, "m", 1.5, "E[X]")]})
    add_intervals(table, est, "deconvolution-kde", None, 0.95)
    assert list(table.columns) == ["statistic", "value"]


# -- the legend ---------------------------------------------------------------------


def _legend_table(**extra):
    table = pd.DataFrame(
        {
            "statistic": ["mean", "std", "q50", "q90"],
            "level": [0.95, NAN, 0.95, 0.95],
            "method": ["delta", "", "inversion", "inversion"],
            "covers": ["E[X]", "", "the quantile", "the quantile"],
        }
    )
    for name, values in extra.items():
        table[name] = values
    return table


def test_the_legend_groups_the_statistics_by_method_and_target():
    assert interval_legend(_legend_table()) == [
        "lower, upper: 95% confidence interval of each statistic, from the "
        "released data alone; centre: the estimate it is built around",
        "  mean (delta): covers E[X]",
        "  q50, q90 (inversion): covers the quantile",
    ]


def test_the_legend_names_the_column_of_each_statistic():
    table = _legend_table(column=["age", "age", "age", "hours"], level=[0.9] * 4)
    lines = interval_legend(table)
    assert lines[0].startswith("lower, upper: 90% confidence interval")
    assert lines[1:] == [
        "  age mean (delta): covers E[X]",
        "  age std (): covers ",
        "  age q50, hours q90 (inversion): covers the quantile",
    ]


def test_no_legend_without_intervals():
    assert interval_legend(pd.DataFrame({"statistic": ["mean"], "value": [1.0]})) == []
    table = _legend_table(level=[NAN] * 4)
    assert interval_legend(table) == []
    odd = _legend_table(level=[NAN, 0.5, NAN, NAN])
    assert interval_legend(odd)[0].startswith("lower, upper: 50% confidence")
