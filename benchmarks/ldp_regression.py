"""Regression on a real numeric pair under LDP (Farokhi, Figs. 4-6 style).

Gapminder country-years with a fertility value (10,358 rows): x = fertility
(children per woman), y = life expectancy (years).  x is released with
LaplaceLDP over the data's min/max (SPEC 2.4 GAP: the paper uses the data
range for Lending Club too); y is released as is.  The deconvolution
Nadaraya-Watson regressor (Cauchy base as in the paper; LOO bandwidth of eq.
(8), and SIMEX) and ordinary least squares are fitted on (z, y) and scored by
the mean squared error on the clean pairs (x, y), in sample.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.linear_model import LinearRegression

from skprivate import DeconvolutionKernelRegressor, LaplaceLDP
from skprivate.datasets import load_life_expectancy

from ._common import Section, mean_se

TITLE = "Deconvolution regression on life expectancy vs fertility (Figs. 4-6 style)"
PAPER = {np.inf: ("4.42 (h = 0.02)", "4.61"), 5.0: ("5.70 (h = 0.20)", "7.11")}


def _one(x, y, bounds, epsilon, seed):
    warnings.simplefilter("ignore", UserWarning)  # clipping into bounds
    if np.isinf(epsilon):
        z, b = x, 0.0
    else:
        ldp = LaplaceLDP(epsilon=epsilon, bounds=bounds, random_state=seed)
        z, b = ldp.fit_transform(x), ldp.scale_
    out = {}
    models = {"kernel (LOO, paper)": {}}
    if not np.isinf(epsilon):
        models["kernel (SIMEX)"] = {"bandwidth": "simex", "random_state": seed}
    for name, kwargs in models.items():
        reg = DeconvolutionKernelRegressor(kernel="cauchy", noise_scale=b, **kwargs)
        reg.fit(z, y)
        out[name] = float(np.mean((reg.predict(x) - y) ** 2))
        out[name + " h"] = reg.bandwidth_
    lin = LinearRegression().fit(z, y)
    out["linear"] = float(np.mean((lin.predict(x) - y) ** 2))
    return epsilon, out


def run(quick: bool, n_jobs: int) -> list[Section]:
    data = load_life_expectancy().dropna(subset=["fertility"])
    x = data[["fertility"]].to_numpy(float)
    y = data["life_expectancy"].to_numpy(float)
    bounds = (float(x.min()), float(x.max()))
    epsilons = [np.inf, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
    reps = 2 if quick else 5
    tasks = [(e, s) for e in epsilons for s in range(1 if np.isinf(e) else reps)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        results = Parallel(n_jobs=n_jobs)(
            delayed(_one)(x, y, bounds, e, s) for e, s in tasks
        )
    rows = []
    for e in epsilons:
        runs = [r for eps, r in results if eps == e]
        row = {"epsilon": "none (clean)" if np.isinf(e) else f"{e:g}"}
        for key in ["kernel (LOO, paper)", "kernel (SIMEX)", "linear"]:
            vals = [r[key] for r in runs if key in r]
            if not vals:
                row[key] = "NA"
                continue
            mean, se = mean_se(vals)
            row[key] = f"{mean:.2f}" + ("" if np.isnan(se) else f" ± {se:.2f}")
        row["h (LOO)"] = np.mean([r["kernel (LOO, paper) h"] for r in runs])
        paper = PAPER.get(e, ("not reported", "not reported"))
        row["paper kernel (Lending Club)"], row["paper linear (Lending Club)"] = paper
        rows.append(row)
    text = f"""
n = {x.shape[0]:,}; fertility bounds [{bounds[0]:.2f}, {bounds[1]:.2f}]
(b = {bounds[1] - bounds[0]:.2f} / epsilon); mean ± standard error over
{reps} noise draws.  The paper's numbers are for the Lending Club pair
(log FICO score, interest rate), which is not bundled, so they are not
directly comparable with ours; the comparable claim is the ordering: the
kernel estimator beats the linear fit on clean data (paper 4.42 vs 4.61) and
keeps a margin under noise (paper 5.70 vs 7.11 at epsilon = 5).
"""
    return [
        Section("Mean squared error on the clean pairs", text, [pd.DataFrame(rows)])
    ]
