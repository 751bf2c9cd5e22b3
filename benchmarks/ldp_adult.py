"""Adult: P(income > 50K | education years) under LDP (Farokhi, Figs. 7-9).

education_num (1..16) is released with LaplaceLDP over the bounds [1, 16]
(b = 15 / epsilon); income is released as is.  The deconvolution kernel
classifier (Cauchy base, LOO log-loss bandwidth, as in the paper) and a
logistic regression are fitted on (z, y); both are scored by the mean
log-likelihood on the clean pairs (x, y), in sample (SPEC 2.4 GAP), with
probabilities clipped to [1e-6, 1 - 1e-6].
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss

from skprivate import DeconvolutionKernelClassifier, LaplaceLDP
from skprivate.datasets import load_adult

from ._common import Section, mean_se

TITLE = "Deconvolution classification on Adult (Figs. 7-9)"
PAPER = {
    np.inf: ("-0.49 (h = 0.17)", "-0.50"),
    5.0: ("-0.51 (h = 2.98)", "-0.53"),
}


def _loglik(y, p):
    return -log_loss(y, np.clip(p, 1e-6, 1 - 1e-6))


def _one(x, y, epsilon, seed):
    warnings.simplefilter("ignore", UserWarning)  # clipping into bounds
    if np.isinf(epsilon):
        z, b = x, 0.0
    else:
        ldp = LaplaceLDP(epsilon=epsilon, bounds=(1, 16), random_state=seed)
        z, b = ldp.fit_transform(x), ldp.scale_
    out = {}
    for name, kwargs in [
        ("kernel (LOO, paper)", {}),
        ("kernel (SIMEX)", {"bandwidth": "simex", "random_state": seed}),
    ]:
        if np.isinf(epsilon) and kwargs:
            continue  # SIMEX needs noise
        clf = DeconvolutionKernelClassifier(kernel="cauchy", noise_scale=b, **kwargs)
        clf.fit(z, y)
        out[name] = _loglik(y, clf.predict_proba(x)[:, 1])
        out[name + " h"] = clf.bandwidth_
    logit = LogisticRegression().fit(z, y)
    out["logistic"] = _loglik(y, logit.predict_proba(x)[:, 1])
    return epsilon, out


def run(quick: bool, n_jobs: int) -> list[Section]:
    adult = load_adult()
    x = adult[["education_num"]].to_numpy(float)
    y = (adult["income"] == ">50K").to_numpy(int)
    epsilons = [np.inf, 1.0, 2.0, 5.0, 10.0, 20.0]
    reps = 2 if quick else 3
    tasks = [(e, s) for e in epsilons for s in range(1 if np.isinf(e) else reps)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)
        results = Parallel(n_jobs=n_jobs)(delayed(_one)(x, y, e, s) for e, s in tasks)
    rows = []
    for e in epsilons:
        runs = [r for eps, r in results if eps == e]
        row = {"epsilon": "none (clean)" if np.isinf(e) else f"{e:g}"}
        for key in ["kernel (LOO, paper)", "kernel (SIMEX)", "logistic"]:
            vals = [r[key] for r in runs if key in r]
            if not vals:
                row[key] = "NA"
                continue
            mean, se = mean_se(vals)
            row[key] = f"{mean:.4f}" + ("" if np.isnan(se) else f" ± {se:.4f}")
        row["h (LOO)"] = np.mean([r["kernel (LOO, paper) h"] for r in runs])
        paper = PAPER.get(e, ("not reported", "not reported"))
        row["paper kernel"], row["paper logistic"] = paper
        rows.append(row)
    wins = [
        "clean" if np.isinf(e) else f"{e:g}"
        for e in epsilons
        if np.mean([r["kernel (LOO, paper)"] for eps, r in results if eps == e])
        > np.mean([r["logistic"] for eps, r in results if eps == e])
    ]
    text = f"""
n = {x.shape[0]:,}; mean ± standard error over {reps} noise draws (one fit for
the clean data).  The paper reports two points of Figs. 7-8 numerically and
the rest of Fig. 9 as a curve.  Compare the first and the epsilon = 5 rows
with the paper's columns (rounded to 0.01 there).  The kernel estimator (LOO)
has a higher log-likelihood than the logistic regression at epsilon in
{{{", ".join(wins)}}}; with little noise (large epsilon) the logistic curve
can be as good, since it smooths the 16 education levels with 2 parameters.
Our LOO bandwidth at epsilon = 5 need not equal the paper's h = 2.98: the
criterion is flat there and the noise draw differs.  The noiseless LOO
bandwidth is much smaller than 0.17 because education takes 16 integer
values: any h below about 0.3 gives the same per-level frequencies.  "SIMEX"
is the Delaigle & Hall (2008) bandwidth (``bandwidth="simex"``); it equals
the LOO choice when both reach the largest candidate.
"""
    return [
        Section("Mean log-likelihood on the clean pairs", text, [pd.DataFrame(rows)])
    ]
