"""Helpers shared by the integral-privacy benchmarks."""

from __future__ import annotations

import numpy as np

from skprivate.integral import IntegralPrivateStatistics


def clean_statistics(x: np.ndarray) -> dict[str, float]:
    """The nine statistics of the clean column (the reference for ARE)."""
    q75, q25 = np.percentile(x, [75, 25])
    return {
        "count": x.size,
        "mean": x.mean(),
        "std": x.std(ddof=1),
        "var": x.var(ddof=1),
        "min": x.min(),
        "median": np.median(x),
        "iqr": q75 - q25,
        "max": x.max(),
        "sum": x.sum(),
    }


def integral_run(x: np.ndarray, n_resamples: int, min_cluster_size, run: int):
    """One IP release of column ``x``: values and winning frequencies by statistic."""
    est = IntegralPrivateStatistics(
        n_resamples=n_resamples,
        min_cluster_size=min_cluster_size,
        random_state=run,
        n_jobs=1,
    ).fit(x[:, None])
    res = est.results_.set_index("statistic")
    return res["value"].to_dict(), res["frequency"].to_dict()
