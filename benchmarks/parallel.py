"""Parallel runs: GridSearchCV with n_jobs=1 against n_jobs=2.

Inside a joblib worker, LightGBM's default ``n_jobs=None`` means every core,
so two workers each running an OpenMP team over all cores fight for them
(issue 17: 90 s with ``n_jobs=2`` against 0.7 s with ``n_jobs=1`` on two
cores).  skprivate's learners give the LightGBM models they fit the
worker's share of the cores when the user left ``n_jobs`` at the default.
The rows with ``n_jobs=<all cores>`` on the base model reproduce the old
behaviour (a thread count the user chose is kept as is).
"""

from __future__ import annotations

import time
import warnings

import numpy as np
import pandas as pd

from ._common import Section

TITLE = "Parallel runs: GridSearchCV n_jobs=1 vs n_jobs=2 with LightGBM bases"


def _search(base, n_jobs: int, n: int, max_iter: int, wrap: bool) -> float:
    from sklearn.model_selection import GridSearchCV

    from skprivate import IntervalCaseI, IterativeIntervalRegressor

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 5))
    y = X @ np.array([1.0, -0.5, 0.3, 0.0, 0.2]) + rng.normal(size=n)
    if wrap:
        est = IterativeIntervalRegressor(
            base,
            privatizer=IntervalCaseI(scale=2.0, random_state=0),
            max_iter=max_iter,
            tol=None,
            random_state=0,
        )
        grid = {"estimator__num_leaves": [7, 15]}
    else:
        est, grid = base, {"num_leaves": [7, 15]}
    search = GridSearchCV(est, grid, cv=3, n_jobs=n_jobs)
    start = time.perf_counter()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search.fit(X, y)
    return time.perf_counter() - start


def run(quick: bool, n_jobs: int) -> list[Section]:
    """Time the searches (``n_jobs`` of the command line is not used)."""
    from joblib import cpu_count
    from lightgbm import LGBMRegressor

    n = 1000 if quick else 2000
    max_iter = 5 if quick else 10
    cores = cpu_count()
    cases = [
        (
            "IterativeIntervalRegressor(LGBMRegressor())",
            "n_jobs left at default (worker budget applied)",
            True,
            {},
        ),
        (
            "IterativeIntervalRegressor(LGBMRegressor())",
            f"n_jobs={cores} set by the user (old behaviour)",
            True,
            {"n_jobs": cores},
        ),
        ("LGBMRegressor() alone", "LightGBM's own default", False, {}),
    ]
    rows = []
    for learner, threads, wrap, params in cases:
        base = LGBMRegressor(n_estimators=50, verbose=-1, **params)
        times = {jobs: _search(base, jobs, n, max_iter, wrap) for jobs in (1, 2)}
        rows.append(
            {
                "learner": learner,
                "base threads": threads,
                "n_jobs=1 (s)": times[1],
                "n_jobs=2 (s)": times[2],
                "ratio 2/1": times[2] / times[1],
            }
        )
    text = (
        f"GridSearchCV over num_leaves in {{7, 15}}, 3 folds (7 fits with the "
        f"refit), n = {n} rows, 5 features, 50 trees; IterativeIntervalRegressor "
        f"with IntervalCaseI(scale=2) responses and max_iter={max_iter}, tol=None "
        f"({max_iter} LightGBM fits per learner fit).  One run per cell, so "
        "timings on a shared machine are noisy; the ratio is what to read.  A "
        "ratio below 1 means n_jobs=2 is faster.  The last row is LightGBM "
        "alone, which skprivate does not control: its default uses every core "
        "in each worker."
    )
    return [Section(f"Wall time on {cores} CPUs", text, [pd.DataFrame(rows)])]
