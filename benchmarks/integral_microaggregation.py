"""Microaggregation: information loss and speed of the three partitions."""

from __future__ import annotations

import time

import pandas as pd

from skprivate.datasets import load_adult
from skprivate.integral import Microaggregator

from ._common import Section

TITLE = "Integral privacy: microaggregation (information loss and speed)"

COLUMNS = ["age", "education_num", "hours_per_week", "fnlwgt"]


def run(quick: bool, n_jobs: int) -> list[Section]:
    adult = load_adult()[COLUMNS].astype(float)
    if quick:
        adult = adult.iloc[:5000]
    X = adult.to_numpy()
    rows = []
    for k in (2, 5, 20):
        for method in ("consecutive", "optimal", "mdav"):
            start = time.process_time()
            Xt = Microaggregator(min_cluster_size=k, method=method).fit_transform(X)
            seconds = time.process_time() - start
            # information loss: within-cluster SSE over total SSE, per column
            loss = ((X - Xt) ** 2).sum(axis=0) / ((X - X.mean(axis=0)) ** 2).sum(axis=0)
            row = {"k": k, "method": method, "CPU seconds": seconds}
            row.update({f"SSE/SST {c}": v for c, v in zip(COLUMNS, loss)})
            rows.append(row)
    return [
        Section(
            "Adult numeric columns",
            f"{len(adult):,} rows of Adult, columns {', '.join(COLUMNS)}. SSE/SST "
            "is the share of each column's variance removed by replacing values by "
            "their cluster mean (lower is better). `consecutive` is the paper's "
            "simple rule (runs of k sorted values), `optimal` the optimal univariate "
            "k-partition (dynamic programming over sorted values with group sizes in "
            "[k, 2k-1], O(n k)); both work per column. `mdav` clusters the four "
            "columns together (standardized), so it protects whole rows and loses "
            "much more per column. The integral-privacy paper names no algorithm; "
            "its experiments are reproduced with `consecutive`.",
            [pd.DataFrame(rows)],
        )
    ]
