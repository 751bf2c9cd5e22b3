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
