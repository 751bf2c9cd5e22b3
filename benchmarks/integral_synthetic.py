"""The synthetic study of the integral-privacy paper (Tables 2-6, Fig. 1)."""

from __future__ import annotations

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from skprivate.integral import (
    absolute_relative_error,
    laplace_statistic,
)
from skprivate.integral._resampling import STATISTICS

from ._common import Section
from ._integral import clean_statistics, integral_run

TITLE = "Integral privacy: synthetic study (IP vs DP, ARE)"

SIZE = 1000
N_RESAMPLES = 1000
SCENARIOS = {"Out": None, "In/Out-L (y=2)": 2, "In/Out-H (y=20)": 20}
EPSILONS = (0.01, 2.0, 4.0)
PAPER_SUMMED_ARE = {"Out": 16.47, "In/Out-L (y=2)": 22.28, "In/Out-H (y=20)": 38.74}


def _datasets() -> dict[str, tuple[np.ndarray, tuple[float, float]]]:
    rng = np.random.default_rng(20190926)
    return {
        "Normal N(10, 2^2)": (rng.normal(10, 2, SIZE), (-20.0, 20.0)),
        "Exponential (scale 1)": (rng.exponential(1.0, SIZE), (-20.0, 20.0)),
        "Unif I (integers 0..100)": (
            rng.integers(0, 100, SIZE, endpoint=True).astype(float),
            (0.0, 100.0),
        ),
        "Unif II (integers 0..1000)": (
            rng.integers(0, 1000, SIZE, endpoint=True).astype(float),
            (0.0, 1000.0),
        ),
    }


def _dp_run(x, bounds, eps, run):
    rng = np.random.default_rng([run, round(eps * 100)])
    return {
        s: laplace_statistic(x, s, eps, bounds, random_state=rng) for s in STATISTICS
    }


def _cell(values: np.ndarray) -> str:
    ok = values[~np.isnan(values)]
    if ok.size == 0:
        return "NA"
    text = f"{ok.mean():.4g} ± {ok.std(ddof=1) if ok.size > 1 else 0.0:.2g}"
    if ok.size < values.size:
        text += f" (NA {values.size - ok.size}/{values.size})"
    return text


def run(quick: bool, n_jobs: int) -> list[Section]:
    n_runs = 3 if quick else 10
    data = _datasets()
    methods = [(name, "ip", y) for name, y in SCENARIOS.items()] + [
        (f"DP eps={eps:g}", "dp", eps) for eps in EPSILONS
    ]
    tasks = [
        (d, m, r) for d in data for m in range(len(methods)) for r in range(n_runs)
    ]

    def one(d, m, r):
        x, bounds = data[d]
        _, kind, param = methods[m]
        if kind == "ip":
            return integral_run(x, N_RESAMPLES, param, r)
        return _dp_run(x, bounds, param, r), None

    outs = Parallel(n_jobs=n_jobs)(delayed(one)(*t) for t in tasks)
    values = {}
    freqs = {}
    for (d, m, _), (vals, freq) in zip(tasks, outs):
        values.setdefault((d, m), []).append([vals[s] for s in STATISTICS])
        if freq is not None:
            freqs.setdefault((d, m), []).append([freq[s] for s in STATISTICS])

    value_tables, are_rows, freq_rows = [], [], []
    for d, (x, _) in data.items():
        truth = clean_statistics(x)
        table = {"statistic": list(STATISTICS), "true": [truth[s] for s in STATISTICS]}
        for m, (name, _, _) in enumerate(methods):
            v = np.array(values[(d, m)], dtype=float)  # runs x statistics
            table[name] = [_cell(v[:, i]) for i in range(len(STATISTICS))]
            are = absolute_relative_error(np.array([truth[s] for s in STATISTICS]), v)
            for i, s in enumerate(STATISTICS):
                col = are[:, i]
                are_rows.append(
                    {
                        "dataset": d,
                        "statistic": s,
                        "method": name,
                        "ARE": np.nan if np.isnan(col).all() else np.nanmean(col),
                    }
                )
            if (d, m) in freqs:
                f = np.array(freqs[(d, m)], dtype=float)
                for i, s in enumerate(STATISTICS):
                    freq_rows.append(
                        {
                            "dataset": d,
                            "method": name,
                            "statistic": s,
                            "freq": f[:, i].mean(),
                        }
                    )
        value_tables.append((d, pd.DataFrame(table)))

    are = pd.DataFrame(are_rows)
    are_wide = are.pivot_table(
        index=["dataset", "statistic"], columns="method", values="ARE", dropna=False
    )
    are_wide = are_wide[[name for name, _, _ in methods]].reset_index()
    are_wide["statistic"] = pd.Categorical(are_wide["statistic"], STATISTICS)
    are_wide = are_wide.sort_values(["dataset", "statistic"])
    are_wide["statistic"] = are_wide["statistic"].astype(str)

    summary = []
    for name, _, _ in methods:
        col = are_wide[name]
        summary.append(
            {
                "method": name,
                "summed ARE (ours, answered cells)": col.sum(skipna=True),
                "NA cells (of 36)": int(col.isna().sum()),
                "summed ARE (paper, Table 4)": PAPER_SUMMED_ARE.get(name, np.nan),
            }
        )
    freq_table = (
        pd.DataFrame(freq_rows)
        .pivot_table(index="statistic", columns="method", values="freq")
        .reindex(list(STATISTICS))
        .reset_index()
    )

    sections = [
        Section(
            "Setup",
            f"Four 1-D datasets of {SIZE} values each (the paper's Table 1, with the "
            "six datasets and their sizes, is missing from the text, so sizes and the "
            "normal/exponential parameters are our choice): normal N(10, 2^2), "
            "exponential with scale 1, Unif I integers 0..100, Unif II integers "
            f"0..1000. IP: t = {N_RESAMPLES} resamples, k = 2, rounding r = 2, "
            "three discretization settings (Out: output rounding only; In/Out-L: "
            "microaggregation y = 2; In/Out-H: y = 20; consecutive groups). DP: the "
            "Laplace baselines with domain bounds (-20, 20) for normal and "
            "exponential, (0, 100) and (0, 1000) for the uniforms. "
            f"{n_runs} independent runs of each (new resamples / new noise, same "
            "data). Cells: mean ± SD over runs with an answer; NA when no run "
            "answered, (NA m/10) when m runs did not. ARE: the mean over runs of "
            "|true - private| / max(1, |true|), over the runs that answered.",
        ),
        Section(
            "Summed ARE (Table 4 / Fig. 1)",
            "The paper sums the ARE over its Table 4 (six datasets, nine statistics "
            "minus its NA cells); ours sums over four datasets and nine statistics, "
            "leaving out NA cells, so the sums are comparable in trend only. The "
            "paper's Table 4 itself is absent from the text; only the three sums "
            "are quoted. What we reproduce: the ordering Out < In/Out-L < In/Out-H "
            "(input microaggregation adds error, mostly to min and max, which move to "
            "the mean of the extreme cluster: Unif II min 10 against 0 gives ARE 10 "
            "alone); NA for sum on every dataset and for mean and variance of the "
            "integer uniforms (the paper reports NA for sum and variance there); and "
            "IP far ahead of DP at eps = 0.01. Our absolute sums are much lower than "
            "the paper's: its six datasets and sizes are unknown, and our NA cells "
            "are left out of the sum (we do not know how the paper summed its NA). "
            "Why NA: a record is in a bootstrap resample with probability 0.632, so "
            "a value needs roughly 2.2 ln(n), about 15 generators for n = 1000, before "
            "no record is shared by all of them; values with fewer generators fail "
            "the intersection rule even when they pass k = 2.",
            [pd.DataFrame(summary)],
        ),
        Section(
            "ARE per dataset and statistic",
            "NA: no integrally private answer in any run (or the DP IQR test "
            "refused in every run).",
            [are_wide],
        ),
    ]
    for d, table in value_tables:
        sections.append(
            Section(f"Released values: {d} (Tables 2-6 style)", "", [table])
        )
    sections.append(
        Section(
            "Average number of generators of the IP answers",
            "Mean over runs of the winning frequency (0 when NA), per statistic, "
            "averaged over the four datasets.",
            [freq_table],
        )
    )
    return sections
