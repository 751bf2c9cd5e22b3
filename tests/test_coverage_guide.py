"""The uncertainty guide's coverage table is the coverage benchmark's cells."""

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
    refused = rarely.copy()
    refused["warned"], refused["failed fits"] = 0.0, 1001
    assert _status(refused) == "refuses: below"
    # a stored cell of a checked learner, run before the check existed
    old = pd.Series({**base, "meets target": "no", "reason": "below"})
    assert _status(old).startswith("misses: below; this cell was run before")
