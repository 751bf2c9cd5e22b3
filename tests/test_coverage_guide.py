"""The uncertainty guide's coverage table is the coverage benchmark's cells."""

import numpy as np
import pandas as pd

from benchmarks._coverage_guide import CELLS, PAGE, coverage_rows, render


def test_guide_table_matches_the_benchmark_cells():
    assert PAGE.read_text(encoding="utf-8") == render(pd.read_csv(CELLS)), (
        "doc/user_guide/coverage_table.inc is out of date: run "
        "python -m benchmarks._coverage_guide"
    )


def test_rows_group_cells_and_count_the_band():
    cells = pd.DataFrame(
        {
            "learner": ["A", "A", "A", "B"],
            "interval": ["cdf(0.5), wald", "cdf(2), wald", "mean, wald", "mean"],
            "reps": [500, 1000, 500, 400],
            "cov 95%": [0.92, 0.95, 0.97, 0.96],
            "cov 95%, declared target": [None, None, 0.95, None],
        }
    )
    rows = coverage_rows(cells).set_index(["learner", "quantity"])
    cdf = rows.loc[("A", "cdf")]
    assert (cdf["method"], cdf["cells"], cdf["reps"]) == ("wald", 2, "500-1000")
    assert (cdf["coverage"], cdf["in_band"]) == ("0.920-0.950", "1 of 2")
    assert cdf["estimand"] == "true value"
    mean = rows.loc[("A", "mean")]
    assert mean["estimand"].startswith("smoothed")
    assert (mean["coverage"], mean["in_band"]) == ("0.970", "1 of 1")
    assert (mean["declared"], cdf["declared"]) == ("0.950", "")
    assert rows.loc[("B", "mean"), "method"] == ""
    # without a status column, the band decides
    assert (cdf["status"], mean["status"]) == ("1 meets, 1 misses", "1 meets")


def test_status_column_counts_each_cell_by_its_first_word():
    cells = pd.DataFrame(
        {
            "learner": ["A"] * 4,
            "interval": ["cdf(0.5), rbc", "cdf(2), rbc", "cdf(1), rbc", "cdf(3), rbc"],
            "reps": [1000] * 4,
            "cov 95%": [0.95, 0.80, 0.90, 0.91],
            "status": [
                "meets",
                "warns: A: the cdf interval holds the width fixed",
                "misses: below",
                "warns: A: too smooth",
            ],
        }
    )
    assert coverage_rows(cells)["status"].tolist() == ["1 meets, 2 warns, 1 misses"]


def test_benchmark_status_of_a_cell():
    from benchmarks.coverage import _status

    base = {"learner": "RVNSDensityEstimator (ml, 50 cells)", "reps": 1000}
    met = pd.Series({**base, "meets target": "yes", "warned": 0.9})
    assert _status(met) == "meets"
    warned = pd.Series(
        {
            **base,
            "meets target": "no",
            "warned": 0.75,
            "warning": "A: the cdf interval holds the width fixed. Use bootstrap.",
            "reason": "below",
            "failed fits": 0,
        }
    )
    assert _status(warned) == (
        "warns: A: the cdf interval holds the width fixed "
        "(warned in 75% of the samples)"
    )
    rarely = warned.copy()
    rarely["warned"] = 0.25
    assert _status(rarely) == "misses: below; it warned in 25% of the samples"
    # the samples without a warning meet the band: the warned ones carry the miss
    carried = rarely.copy()
    carried["cov 95%, unwarned"], carried["unwarned reps"] = 0.958, 750
    assert _status(carried) == (
        "warns: A: the cdf interval holds the width fixed (warned in 25% of "
        "the samples; the other 750 cover 0.958, inside [0.93, 0.97], so the "
        "miss comes from the samples it warned on)"
    )
    for quiet_cov, quiet in ((0.975, 750), (0.925, 750), (0.958, 399)):
        off = carried.copy()
        off["cov 95%, unwarned"], off["unwarned reps"] = quiet_cov, quiet
        assert _status(off) == "misses: below; it warned in 25% of the samples"
    assert _status(pd.Series({**carried, "cov 95%, unwarned": 0.97})).startswith(
        "warns:"
    )
    refused = rarely.copy()
    refused["warned"], refused["failed fits"] = 0.0, 1001
    assert _status(refused) == "refuses: below"
    # a stored cell of a checked learner, run before the check existed
    old = pd.Series({**base, "meets target": "no", "reason": "below"})
    assert _status(old).startswith("misses: below; this cell was run before")


def test_benchmark_summary_counts_coverage_of_the_unwarned_samples():
    """Per cell: coverage over all samples and over those whose call did not warn."""
    from benchmarks.coverage import _summarize

    def sample(lower, upper, warning=None):
        return {
            "interval": "mean",
            "warning": warning,
            "estimate": 0.0,
            "truth": 0.0,
            "target": 0.0,
            "l90": lower,
            "u90": upper,
            "l95": lower,
            "u95": upper,
        }

    rows = [
        sample(-1.0, 1.0),
        sample(1.0, 2.0),
        sample(-1.0, 1.0),
        sample(-np.inf, np.inf, "whole line"),
        sample(2.0, 3.0, "whole line"),
    ]
    cell = _summarize(rows).iloc[0]
    assert cell["cov 95%"] == 3 / 5
    assert cell["warned"] == 2 / 5
    assert cell["cov 95%, unwarned"] == 2 / 3
    assert cell["unwarned reps"] == 3
