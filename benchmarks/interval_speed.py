"""Interval privacy: speed of the NPMLE and of the meta-estimator.

* IntervalNPMLE on Case-I data at n = 10^3 ... 10^6 (PAVA closed form), and
  the Turnbull self-consistency path on Case-II data, side by side with
  lifelines' ``KaplanMeierFitter.fit_interval_censoring`` on the same data.
  lifelines is not a dependency of skprivate: it runs in a separate virtual
  environment (``SKPRIVATE_LIFELINES_PYTHON``, default
  ``/work/.venv-peers-interval/bin/python``) through a subprocess; the section
  says so when it is missing.  lifelines needs non-negative times and finite
  lower bounds, so its input is shifted by +10 and (-inf, u] becomes [0, u].
* IterativeIntervalRegressor(LGBMRegressor()) total fit time as a multiple of
  one base fit on the same data.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import warnings

import numpy as np
import pandas as pd

from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalNPMLE,
    IterativeIntervalRegressor,
)

from ._common import Section, best_time

TITLE = "Interval privacy: speed of the NPMLE and of IterativeIntervalRegressor"

LIFELINES_PYTHON = os.environ.get(
    "SKPRIVATE_LIFELINES_PYTHON", "/work/.venv-peers-interval/bin/python"
)
SHIFT = 10.0

_LIFELINES_SCRIPT = r"""
import json, sys, time, warnings
import numpy as np
from lifelines import KaplanMeierFitter
data = np.load(sys.argv[1])
lower, upper, grid = data["lower"], data["upper"], data["grid"]
warnings.simplefilter("ignore")
start = time.perf_counter()
kmf = KaplanMeierFitter().fit_interval_censoring(lower, upper)
seconds = time.perf_counter() - start
sf = kmf.survival_function_
# lifelines reports an upper and a lower NPMLE curve; outside the innermost
# intervals (where the NPMLE is unique) they agree.
upper_curve = sf.iloc[:, 0].to_numpy()
times = sf.index.to_numpy()
idx = np.searchsorted(times, grid, side="right") - 1
cdf = 1.0 - upper_curve[np.clip(idx, 0, len(times) - 1)]
cdf[idx < 0] = 0.0
print(json.dumps({"seconds": seconds, "cdf": cdf.tolist()}))
"""


def _case_one(n: int, seed: int = 0) -> np.ndarray:
    y = np.random.default_rng(seed).normal(size=(n, 1))
    return IntervalCaseI(random_state=seed + 1).fit_transform(y)


def _lifelines(Z: np.ndarray, grid: np.ndarray, tmpdir: str):
    if not os.path.exists(LIFELINES_PYTHON):
        return None
    lower = np.where(np.isneginf(Z[:, 0]), 0.0, Z[:, 0] + SHIFT)
    upper = Z[:, 1] + SHIFT
    path = os.path.join(tmpdir, "interval_speed_data.npz")
    np.savez(path, lower=lower, upper=upper, grid=grid + SHIFT)
    out = subprocess.run(
        [LIFELINES_PYTHON, "-c", _LIFELINES_SCRIPT, path],
        capture_output=True,
        text=True,
        timeout=1800,
        check=False,
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _npmle_section(quick: bool) -> Section:
    import tempfile

    sizes = [1_000, 10_000, 100_000] if quick else [1_000, 10_000, 100_000, 1_000_000]
    lifelines_sizes = [1_000] if quick else [1_000, 2_000]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            Z = _case_one(n)
            ours = best_time(lambda Z=Z: IntervalNPMLE().fit(Z), repeat=3)
            row = {"n": n, "data": "Case I", "skprivate PAVA (s)": ours}
            est = IntervalNPMLE().fit(Z)
            if n in lifelines_sizes:
                u = np.where(np.isneginf(Z[:, 0]), Z[:, 1], Z[:, 0])
                grid = np.quantile(u, np.linspace(0.05, 0.95, 19))
                res = _lifelines(Z, grid, tmp)
                if res is None:
                    row["lifelines (s)"] = "not installed"
                elif "error" in res:
                    row["lifelines (s)"] = f"failed: {res['error']}"
                else:
                    row["lifelines (s)"] = f"{res['seconds']:.3g}"
                    row["speed-up"] = f"{res['seconds'] / ours:,.0f}x"
                    diff = np.max(np.abs(est.cdf(grid) - np.asarray(res["cdf"])))
                    row["max |F_ours - F_lifelines| at 19 quantiles"] = f"{diff:.2g}"
            rows.append(row)
        for n in [1_000, 10_000] if quick else [1_000, 10_000, 30_000]:
            y = np.random.default_rng(1).normal(size=(n, 1))
            Z = IntervalCaseII(random_state=2).fit_transform(y)
            start = time.perf_counter()
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = IntervalNPMLE().fit(Z)
            rows.append(
                {
                    "n": n,
                    "data": "Case II",
                    "skprivate Turnbull (s)": time.perf_counter() - start,
                    "EM steps": est.n_iter_,
                    "converged (tol 1e-6)": est.converged_,
                }
            )
    text = (
        "Best of 3 wall-clock times for skprivate; one run for lifelines "
        f"{'(' + LIFELINES_PYTHON + ')'}. Targets from the issue: at least 1,000x "
        "faster than lifelines at n = 1,000 with the same estimate, and n = 10^6 "
        "in under 2 s. The NPMLE is unique only up to where mass sits inside "
        "each innermost interval; the comparison uses the CDF at 19 anchor "
        "quantiles."
    )
    return Section("NPMLE speed", text, [pd.DataFrame(rows)])


def _lgbm_section(quick: bool) -> Section:
    from lightgbm import LGBMRegressor

    from skprivate.datasets import make_interval_regression

    n = 5_000 if quick else 10_000
    X, _, Z = make_interval_regression(
        n, privatizer=IntervalCaseI(scale=2.0, random_state=0), random_state=0
    )
    X_aug = np.column_stack([X, np.random.default_rng(0).normal(size=(n, 9))])
    base = LGBMRegressor(n_estimators=100, verbose=-1)
    y_mid = np.where(np.isfinite(Z[:, 0]), Z[:, 0], Z[:, 1])
    one = best_time(lambda: base.fit(X_aug, y_mid), repeat=3)
    rows = []
    for max_iter in (5, 20):
        reg = IterativeIntervalRegressor(base, max_iter=max_iter, tol=0.0)

        def fit(reg=reg):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                reg.fit(X_aug, Z)

        total = best_time(fit, repeat=1)
        rows.append(
            {
                "n": n,
                "max_iter": max_iter,
                "one LGBM fit (s)": one,
                "IterativeIntervalRegressor fit (s)": total,
                "multiple": f"{total / one:.1f}x",
            }
        )
    text = (
        "LGBMRegressor(n_estimators=100) on 10 features. Algorithm 1 refits "
        "the base learner from scratch at every iteration (the imputed "
        "responses change, and refitting is what Algorithm 1 prescribes); no "
        "warm start is used, so the multiple is about the number of iterations "
        "plus the marginal MLE and prediction overhead. The issue's target of "
        "at most 10x is therefore met only with max_iter <= about 9; warm "
        "starting (continuing boosting from the previous booster) would change "
        "the fitted model and is not implemented."
    )
    return Section("Meta-estimator fit time with LightGBM", text, [pd.DataFrame(rows)])


def run(quick: bool, n_jobs: int) -> list[Section]:
    return [_npmle_section(quick), _lgbm_section(quick)]
