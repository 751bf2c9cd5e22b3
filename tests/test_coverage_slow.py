"""Long coverage simulation of conf_int (marked slow; run with ``-m slow``).

The full table is ``python -m benchmarks coverage``; this test re-runs the
cells whose methods are exact or asymptotically exact at these sizes and
checks each 95% coverage against its binomial standard error.
"""

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
coverage = pytest.importorskip("benchmarks.coverage")

REPS = 300
SE = np.sqrt(0.95 * 0.05 / REPS)

CELLS = [
    # (replicate function, n, privacy, pilot, interval name, covered quantity)
    (coverage._npmle_case_one, 2000, 1.0, None, "cdf(0.5), likelihood ratio", "truth"),
    (coverage._npmle_case_one, 2000, 1.0, None, "mean, influence", "truth"),
    (coverage._interval_mle, 2000, 1.0, None, "mean, wald", "truth"),
    (
        coverage._interval_regression,
        2000,
        1.0,
        None,
        "predict(0.5, -0.5), wald",
        "truth",
    ),
    (coverage._dkde, 2000, 8.0, {"bandwidth": 0.66}, "pdf(0), smoothed", "target"),
    (coverage._dkde, 2000, 8.0, {"bandwidth": 0.66}, "mean, noisy mean", "truth"),
    (coverage._square_wave, 2000, 4.0, None, "mean, moment", "truth"),
    (coverage._subset, 2000, None, None, "pmf(3), wald", "truth"),
    (coverage._laplace, 2000, 2.0, None, "mean, sample target", "truth"),
]


@pytest.mark.slow
@pytest.mark.parametrize("cell", CELLS, ids=[f"{c[0].__name__}-{c[4]}" for c in CELLS])
def test_coverage_at_95_within_its_binomial_error(cell):
    replicate, n, privacy, pilot, name, quantity = cell
    hits = 0
    for seed in range(REPS):
        rows = replicate(n, privacy, np.random.default_rng(10_000 + seed), pilot)
        row = next(r for r in rows if r["interval"] == name)
        value = row[quantity]
        hits += row["l95"] <= value <= row["u95"]
    assert abs(hits / REPS - 0.95) < 3 * SE
