"""Integral privacy on a real bundled table (the paper's Abalone study, Fig. 2-3)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from skprivate.datasets import load_life_expectancy
from skprivate.integral import (
    absolute_relative_error,
    laplace_statistic,
)
from skprivate.integral._resampling import STATISTICS

from ._common import Section
from ._integral import clean_statistics, integral_run

TITLE = "Integral privacy: a real table (Gapminder), ARE and winning frequencies"

COLUMNS = [
    "year",
    "infant_mortality",
    "life_expectancy",
    "fertility",
    "population",
    "gdp",
]
EPSILON = 4.0
MIN_CLUSTER_SIZE = 20
# Average number of generators of the released value over Abalone's 8
# variables, t = 5000 (Sec. 5 of the paper).
PAPER_ARO = {
    "count": 5000,
    "mean": 3994,
    "median": 3793,
    "std": 4251,
    "min": 4652,
    "max": 4446,
    "iqr": 3891,
    "var": 4245,
    "sum": 9,
}


def _dp(x, run):
    rng = np.random.default_rng(run)
    bounds = (float(x.min()), float(x.max()))
    return {
        s: laplace_statistic(x, s, EPSILON, bounds, random_state=rng)
        for s in STATISTICS
    }


def _study(cols, t, n_runs, n_jobs):
    tasks = [(c, r) for c in COLUMNS for r in range(n_runs)]
    ip_out = Parallel(n_jobs=n_jobs)(
        delayed(integral_run)(cols[c], t, MIN_CLUSTER_SIZE, r) for c, r in tasks
    )
    dp_out = [_dp(cols[c], r) for c, r in tasks]
    are_rows, freq_rows = [], []
    for c in COLUMNS:
        truth = clean_statistics(cols[c])
        idx = [i for i, (cc, _) in enumerate(tasks) if cc == c]
        for s in STATISTICS:
            ip_vals = np.array([ip_out[i][0][s] for i in idx], dtype=float)
            ip_freq = np.array([ip_out[i][1][s] for i in idx], dtype=float)
            dp_vals = np.array([dp_out[i][s] for i in idx], dtype=float)
            ip_are = absolute_relative_error(truth[s], ip_vals)
            dp_are = absolute_relative_error(truth[s], dp_vals)
            answered = ~np.isnan(ip_vals)
            are_rows.append(
                {
                    "variable": c,
                    "statistic": s,
                    "true": truth[s],
                    "IP value (mean)": ip_vals[answered].mean()
                    if answered.any()
                    else np.nan,
                    "IP answered runs": int(answered.sum()),
                    "IP ARE": np.nanmean(ip_are) if answered.any() else np.nan,
                    f"DP eps={EPSILON:g} ARE": (
                        np.nanmean(dp_are) if (~np.isnan(dp_are)).any() else np.nan
                    ),
                }
            )
            freq_rows.append(
                {
                    "variable": c,
                    "statistic": s,
                    "freq": ip_freq[answered].mean() if answered.any() else np.nan,
                }
            )
    are = pd.DataFrame(are_rows)
    freq = pd.DataFrame(freq_rows)
    aro = []
    for s in STATISTICS:
        f = freq.loc[freq.statistic == s, "freq"]
        aro.append(
            {
                "statistic": s,
                f"ours: mean generators (t={t})": f.mean(),
                "variables answered (of 6)": int(f.notna().sum()),
                "ours: share of t": f.mean() / t,
                "paper Abalone (t=5000)": PAPER_ARO[s],
                "paper: share of t": PAPER_ARO[s] / 5000,
            }
        )
    per_variable = (
        are.groupby("variable", sort=False)[["IP ARE", f"DP eps={EPSILON:g} ARE"]]
        .mean()
        .reset_index()
    )
    return are, pd.DataFrame(aro), per_variable


def run(quick: bool, n_jobs: int) -> list[Section]:
    t = 1000 if quick else 5000
    n_runs = 2 if quick else 10
    df = load_life_expectancy()[COLUMNS]
    raw = {c: df[c].dropna().to_numpy(float) for c in COLUMNS}
    unit = {c: (v - v.min()) / (v.max() - v.min()) for c, v in raw.items()}
    are_raw, aro_raw, var_raw = _study(raw, t, n_runs, n_jobs)
    are_unit, aro_unit, var_unit = _study(unit, t, n_runs, n_jobs)
    sizes = ", ".join(f"{c} {v.size}" for c, v in raw.items())
    return [
        Section(
            "Setup",
            "The paper's real-data study uses Abalone (4,177 rows, 8 numeric "
            "variables, t = 5,000) and a breast-cancer table; neither is bundled. "
            "We use the six numeric columns of the bundled Gapminder table (10,545 "
            "country-years; missing values dropped per column, so sizes differ: "
            f"{sizes}). IP: t = {t}, k = 2, microaggregation y = {MIN_CLUSTER_SIZE} "
            "(consecutive groups), rounding to 2 decimals (the paper applies input "
            "and output discretization without giving y). DP: the Laplace baselines "
            f"at eps = {EPSILON:g} with the data min/max as bounds, as in the paper. "
            f"{n_runs} runs each; ARE averaged over the runs that answered; "
            "frequencies averaged over the variables that answered.\n\n"
            "Two versions: the columns as they are, and each column rescaled to "
            "[0, 1] by its min and max. Abalone's variables are measurements below "
            "3 (and rings, an integer from 1 to 29), for which two decimals are a "
            "coarse grid; Gapminder's population and GDP are in the millions and "
            "billions, where two decimals are so fine that no two resamples agree "
            "on a mean, variance or sum. The rescaled version puts the columns on "
            "Abalone's scale, which is what the paper's frequencies reflect. (The "
            "rescaling uses the data range; it serves the comparison only.)",
        ),
        Section(
            "Average number of generators of the released value, rescaled columns "
            "(paper: ARO)",
            "",
            [aro_unit],
        ),
        Section(
            "Average number of generators of the released value, raw columns",
            "",
            [aro_raw],
        ),
        Section(
            "ARE per variable (Fig. 2-3 style, mean over the statistics answered)",
            "Raw columns, then rescaled columns (DP computed on the same scale). "
            "The IP error is dominated by min and max: microaggregation with y = 20 "
            "releases the mean of the extreme cluster (e.g. life expectancy min "
            "27.4 against 13.2). The DP min, max and median add noise scaled to the "
            "local sensitivity, which is tiny on 10,000 rows and not differentially "
            "private, so the DP column is optimistic. On the other statistics IP "
            "and DP errors are of the same order (see the tables below). The paper "
            "reports IP ahead of DP on Abalone; we do not reproduce that ranking "
            "here, for the reasons above.",
            [var_raw, var_unit],
        ),
        Section("ARE per variable and statistic, raw columns", "", [are_raw]),
        Section("ARE per variable and statistic, rescaled columns", "", [are_unit]),
    ]
