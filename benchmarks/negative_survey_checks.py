"""RVNS reconstruction check of the specification (regularization sweep).

Truncated chi-square(2) on [0, 10], n = 50,000, k = 2, d = 2, m = 100; grid
W1 of Eq. (19) against the histogram of the true values, for several
regularization weights, with the published SLSQP solver and with L-BFGS,
without and with the reflected KDE.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd

from skprivate.datasets import make_truncated_chi2
from skprivate.negative_survey import (
    RVNSDensityEstimator,
    RVNSPerturber,
    wasserstein_on_grid,
)

from ._common import Section, mean_se

TITLE = "RVNS reconstruction check: regularization sweep (SPEC 5.4)"

SETTINGS = [
    ("l1 = l2 = 0", 0.0, 0.0, 3.9),
    ("l2 = 1e-3", 0.0, 1e-3, 3.2),
    ("l2 = 1e-2", 0.0, 1e-2, 5.0),
    ("l2 = 0.1", 0.0, 0.1, 18.2),
    ("l1 = l2 = 1 (literal paper)", 1.0, 1.0, 28.7),
]


def _one(seed, solver, boundary, l1, l2):
    x = make_truncated_chi2(50_000, 2, random_state=seed)
    reports = RVNSPerturber(
        d=2.0, k=2, bounds=(0, 10), placement="paper", random_state=seed + 1
    ).fit_transform(x[:, None])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = RVNSDensityEstimator(
            d=2.0,
            bounds=(0, 10),
            placement="paper",
            l1=l1,
            l2=l2,
            solver=solver,
            boundary=boundary,
        ).fit(reports)
    hist = np.histogram(x, est.edges_)[0] / np.diff(est.edges_)
    return (
        wasserstein_on_grid(est.density_, hist, est.edges_),
        wasserstein_on_grid(est.perturbed_density_, hist, est.edges_),
    )


def run(quick: bool, n_jobs: int) -> list[Section]:
    seeds = [0] if quick else [0, 10, 20]
    rows = []
    naive = []
    for label, l1, l2, paper in SETTINGS:
        for solver, boundary in [
            ("slsqp", "none"),
            ("lbfgs", "none"),
            ("lbfgs", "reflect"),
        ]:
            values = []
            for seed in seeds:
                w1, w_naive = _one(seed, solver, boundary, l1, l2)
                values.append(w1)
                naive.append(w_naive)
            mean, se = mean_se(values)
            rows.append(
                {
                    "regularization": label,
                    "solver": solver,
                    "KDE boundary": boundary,
                    "W1 (grid units)": f"{mean:.2f} ± {se:.2g}"
                    if len(seeds) > 1
                    else f"{mean:.2f}",
                    "spec value (SLSQP, none)": paper,
                }
            )
    m_naive, _ = mean_se(naive)
    text = (
        f"Seeds {seeds}; mean ± standard error over seeds. The specification's "
        "values come from one run of the same setting (its own random draw). "
        f"Naive KDE of the reports: W1 = {m_naive:.1f} here, 37.4 in the "
        "specification. The L1 term is constant on the feasible set for a "
        "uniform grid, so it only matters through its interplay with the "
        "L2 term."
    )
    return [Section("Setup", text), Section("Results", "", [pd.DataFrame(rows)])]
