"""Density recovery on a real column under LDP (Farokhi, Fig. 3 style).

Gapminder life expectancy (10,545 country-years) is released with LaplaceLDP
over the declared bounds [20, 90] years.  We compare with the clean-data KDE
(Gaussian kernel, least-squares CV bandwidth): the naive KDE of the noisy
values (same CV, no deconvolution), the deconvolution KDE with the
deconvolution CV bandwidth, and the deconvolution KDE with the clean KDE's
bandwidth (the paper's Fig. 3 uses one hand-picked h for all three curves).
All densities are clipped at zero and renormalized on [20, 90].
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from skprivate import DeconvolutionKernelDensity, LaplaceLDP
from skprivate.datasets import load_life_expectancy

from ._common import Section, mean_se

TITLE = "Deconvolution density recovery on life expectancy (Fig. 3 style)"
BOUNDS = (20.0, 90.0)


def _one(x, epsilon, seed, clean_h, grid, ref):
    warnings.simplefilter("ignore", UserWarning)  # clipping into bounds
    ldp = LaplaceLDP(epsilon=epsilon, bounds=BOUNDS, random_state=seed)
    z = ldp.fit_transform(x)
    step = grid[1] - grid[0]
    estimators = {
        "naive KDE": DeconvolutionKernelDensity(noise_scale=0.0, support=BOUNDS),
        "deconvolution KDE (CV h)": DeconvolutionKernelDensity(
            noise_scale=ldp.scale_, support=BOUNDS
        ),
        "deconvolution KDE (clean h)": DeconvolutionKernelDensity(
            noise_scale=ldp.scale_, support=BOUNDS, bandwidth=clean_h
        ),
    }
    out = {}
    for name, est in estimators.items():
        diff = est.fit(z).pdf(grid) - ref
        out[name + " L1"] = float(np.sum(np.abs(diff)) * step)
        out[name + " ISE"] = float(np.sum(diff**2) * step)
        out[name + " h"] = est.bandwidth_
    return epsilon, out


def run(quick: bool, n_jobs: int) -> list[Section]:
    x = load_life_expectancy()[["life_expectancy"]].to_numpy(float)
    grid = np.linspace(*BOUNDS, 1401)
    clean = DeconvolutionKernelDensity(noise_scale=0.0, support=BOUNDS).fit(x)
    ref = clean.pdf(grid)
    epsilons = [5.0, 10.0, 20.0, 50.0]
    reps = 2 if quick else 5
    tasks = [(e, s) for e in epsilons for s in range(reps)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        results = Parallel(n_jobs=n_jobs)(
            delayed(_one)(x, e, s, clean.bandwidth_, grid, ref) for e, s in tasks
        )
    rows = []
    names = ["naive KDE", "deconvolution KDE (CV h)", "deconvolution KDE (clean h)"]
    for e in epsilons:
        runs = [r for eps, r in results if eps == e]
        for name in names:
            l1 = mean_se([r[name + " L1"] for r in runs])
            ise = mean_se([r[name + " ISE"] for r in runs])
            rows.append(
                {
                    "epsilon": e,
                    "b (years)": 70.0 / e,
                    "estimator": name,
                    "L1 to clean KDE": f"{l1[0]:.3f} ± {l1[1]:.3f}",
                    "ISE to clean KDE": f"{ise[0]:.2e} ± {ise[1]:.1e}",
                    "mean h": np.mean([r[name + " h"] for r in runs]),
                }
            )
    text = f"""
n = {x.shape[0]:,}; clean KDE bandwidth {clean.bandwidth_:.3f} years;
mean ± standard error over {reps} noise draws.  The paper's Fig. 3 (Lending
Club FICO scores, epsilon = 5, h = 0.1) is a figure only: it shows the naive
KDE flattened and the deconvolved KDE close to the noiseless one, with no
distance reported, so there is no paper number to compare.  The Lending Club
data are not bundled; life expectancy plays its role here.

The last row of each block shows why a bandwidth tuned for clean data fails
after deconvolution: the variance of the deconvolution KDE grows like
(b / h)^4 / (n h), and with b of several years and h = {clean.bandwidth_:.2f}
year it swamps the estimate.  The deconvolution CV bandwidth is larger than
the naive KDE's and removes a large part of the flattening (lower L1 and
ISE than the naive KDE) for epsilon up to 20; at epsilon = 50 (b = 1.4
years) the noise is small and the two are within their standard errors.
"""
    return [Section("Distance to the clean-data KDE", text, [pd.DataFrame(rows)])]
