"""Grid scaling: fit cost of the grid-based learners against their grid size.

Every learner with a public grid size (``n_points``) is fitted on the same
privatized sample (n fixed) at 100, 300, 1,000, 2,000 and 4,000 grid cells;
the table gives the CPU time of ``fit`` and the slope of log(time) against
log(grid size) (least squares over the grid sizes run).  A learner whose fit
takes longer than ``BUDGET`` CPU seconds is not run at the larger sizes.
"""

from __future__ import annotations

import time
import warnings
from typing import Any

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning

from skprivate.ldp import (
    PerturbedKDEEstimator,
    SquareWaveEMSEstimator,
    SquareWaveLDP,
)
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber

from ._common import Section

TITLE = "Grid scaling: fit CPU time of the grid-based learners vs grid size"

GRIDS = (100, 300, 1000, 2000, 4000)
N = 12_588
BUDGET = 60.0  # CPU seconds of one fit beyond which larger grids are skipped


def _values(n: int, seed: int = 0) -> np.ndarray:
    """BMI-like values: 15 + Gamma(4, 3), right-skewed on about 15..60."""
    rng = np.random.default_rng(seed)
    return np.clip(15.0 + rng.gamma(4.0, 3.0, size=(n, 1)), 0.0, 100.0)


def _learners() -> list[tuple[str, Any, Any]]:
    x = _values(N)
    rvns = RVNSPerturber(d=10, bounds=(0, 100), random_state=1).fit_transform(x)
    sw_reports = SquareWaveLDP(epsilon=1.0, bounds=(0, 100), random_state=1)
    sw = sw_reports.fit_transform(x)
    return [
        (
            "RVNSDensityEstimator (d=10, k=1, ml)",
            lambda m: RVNSDensityEstimator(d=10, bounds=(0, 100), n_points=m),
            rvns,
        ),
        (
            "SquareWaveEMSEstimator (epsilon=1)",
            lambda m: SquareWaveEMSEstimator(epsilon=1.0, bounds=(0, 100), n_points=m),
            sw,
        ),
        (
            "PerturbedKDEEstimator (Square Wave privatizer)",
            lambda m: PerturbedKDEEstimator(
                n_points=m,
                privatizer=SquareWaveLDP(epsilon=1.0, bounds=(0, 100), random_state=1),
            ),
            x,
        ),
    ]


def _slope(grid: list[int], seconds: list[float]) -> float:
    if len(grid) < 2:
        return float("nan")
    return float(np.polyfit(np.log(grid), np.log(seconds), 1)[0])


def run(quick: bool, n_jobs: int) -> list[Section]:
    grids = GRIDS[:3] if quick else GRIDS
    rows, slopes = [], []
    for name, make, data in _learners():
        done, times = [], []
        for m in grids:
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                start = time.process_time()
                est = make(m).fit(data)
                cpu = time.process_time() - start
            n_warn = sum(issubclass(w.category, ConvergenceWarning) for w in caught)
            rows.append(
                {
                    "learner": name,
                    "grid size": m,
                    "CPU seconds": cpu,
                    "iterations": getattr(est, "n_iter_", float("nan")),
                    "ConvergenceWarnings": n_warn,
                }
            )
            done.append(m)
            times.append(cpu)
            if cpu > BUDGET:
                break
        skipped = [m for m in grids if m not in done]
        slopes.append(
            {
                "learner": name,
                "slope of log time vs log grid size": _slope(done, times),
                "grid sizes not run (over budget)": ", ".join(map(str, skipped)),
            }
        )
    text = (
        f"n = {N:,} BMI-like values (15 + Gamma(4, 3), clipped to [0, 100]), "
        "privatized once: RVNS with d = 10 on (0, 100) (k = 1, boundary-safe), "
        "Square Wave with epsilon = 1 on (0, 100).  CPU time of one `fit` "
        "(time.process_time, single-threaded BLAS where the learner sets it), "
        "on a shared 2-core host that other jobs loaded heavily during the "
        "run: the absolute times are inflated and noisy, the slopes less so.  "
        "A slope of 1 is linear cost in the grid size, 2 quadratic.  Learners "
        "without a public grid size are not listed: DeconvolutionKernelDensity "
        "(its binning grid follows the bandwidth), IntervalNPMLE (its support "
        "is the Turnbull intervals of the data), SubsetDistributionEstimator "
        f"(categories).  Fits over {BUDGET:g} CPU seconds stop a learner's sweep."
    )
    return [
        Section("Setup", text),
        Section("CPU time per grid size", "", [pd.DataFrame(rows)]),
        Section("Slopes", "", [pd.DataFrame(slopes)]),
    ]
