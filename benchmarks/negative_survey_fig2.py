"""RVNS paper, Figs. 2 and 4: privacy vs utility on truncated chi-square data.

For each chi-square(df) sample (n = 50,000 in [0, 10], m = 100 grid cells) and
each method at several privacy levels, the privacy distance (Euclidean
distance between the true values and the adversary's version of them) and
the grid Wasserstein distance of Eq. (19) between the estimated density and
the KDE of the original data.  For df = 2 also the six indicators (Fig. 4).
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

from skprivate.datasets import make_truncated_chi2
from skprivate.ldp import (
    FlippedHuberLDP,
    GeneralizedGaussianLDP,
    PerturbedKDEEstimator,
    SquareWaveEMSEstimator,
    SquareWaveLDP,
)
from skprivate.negative_survey import (
    RVNSDensityEstimator,
    RVNSPerturber,
    grid_kde,
    indicator_errors,
    ksdensity_bandwidth,
    privacy_distance,
    rvns_adversary_inference,
    wasserstein_on_grid,
)

from ._common import Section, markdown_table, mean_se

TITLE = "RVNS Figs. 2 and 4: privacy distance vs Wasserstein, six indicators"

BOUNDS = (0.0, 10.0)
M = 100
ADVERSARY_SUBSAMPLE = 10_000

LEVELS = {
    "RVNS (k=1)": [0.5, 1.0, 2.0, 3.0, 4.0],
    "RVNS reflect (k=1)": [0.5, 1.0, 2.0, 3.0, 4.0],
    "RVNS reflect (k=3)": [0.5, 1.0, 2.0, 3.0, 4.0],
    "Laplace-DP": [1.0, 2.0, 4.0, 8.0, 16.0],
    "Gaussian-pDP (GG p=2)": [1.0, 2.0, 4.0, 8.0, 16.0],
    "Flipped Huber": [1.0, 2.0, 4.0, 8.0, 16.0],
    "EMS (Square Wave)": [0.5, 1.0, 2.0, 4.0, 8.0],
}
DELTA = 1e-5
THEOREM1_DELTA = 0.005  # adversary resolution for Theorem 1, as a share of b - a


def _laplace(eps, seed, bounds):
    try:
        from skprivate.ldp import LaplaceLDP
    except ImportError:  # the LDP family is optional for this benchmark
        return None
    return LaplaceLDP(epsilon=eps, bounds=bounds, random_state=seed)


def run_method(method, level, x, seed, edges, reference, bounds=BOUNDS):
    """Privacy distance, W1 (grid units) and the fitted estimator of one run.

    ``level`` is the band width d for RVNS and epsilon for the baselines.
    """
    X = x[:, None]
    if method.startswith("RVNS"):
        k = 3 if "k=3" in method else 1
        perturber = RVNSPerturber(
            d=level, k=k, bounds=bounds, placement="paper", random_state=seed
        )
        reports = perturber.fit_transform(X)
        boundary = "reflect" if "reflect" in method else "none"
        est = RVNSDensityEstimator(
            d=level,
            bounds=bounds,
            placement="paper",
            n_points=edges.size - 1,
            boundary=boundary,
        ).fit(reports)
        sub = slice(0, min(ADVERSARY_SUBSAMPLE, x.size))
        guess = rvns_adversary_inference(reports[sub], level, bounds, placement="paper")
        # Unnormalized distance: scale the subsample's sum of squares to n.
        dist = privacy_distance(x[sub], guess) * np.sqrt(x.size / guess.size)
        delta = min(THEOREM1_DELTA * (bounds[1] - bounds[0]), level)
        eps = perturber.epsilon(delta)
        privacy = f"d={level:.3g} (eps={eps:.1f} at delta={delta:.2g})"
    else:
        if method == "Laplace-DP":
            priv = _laplace(level, seed, bounds)
            if priv is None:
                return None
        elif method.startswith("Gaussian"):
            priv = GeneralizedGaussianLDP(
                epsilon=level, delta=DELTA, power=2.0, bounds=bounds, random_state=seed
            )
        elif method == "Flipped Huber":
            priv = FlippedHuberLDP(
                epsilon=level, delta=DELTA, bounds=bounds, random_state=seed
            )
        else:
            priv = SquareWaveLDP(epsilon=level, bounds=bounds, random_state=seed)
        released = priv.fit_transform(X)
        dist = privacy_distance(x, released)
        if isinstance(priv, SquareWaveLDP):
            est = SquareWaveEMSEstimator(
                epsilon=level, bounds=bounds, n_points=edges.size - 1
            ).fit(released)
        else:
            est = PerturbedKDEEstimator(bounds=bounds, n_points=edges.size - 1).fit(
                released
            )
        privacy = f"eps={level:g}" + (
            f", delta={DELTA:g}" if "Gaussian" in method or "Huber" in method else ""
        )
    w1 = wasserstein_on_grid(est.density_, reference, edges)
    return dist, w1, est, privacy


def _one(df, method, level, rep, n, indicators):
    seed = 1000 * rep + int(10 * df)
    x = make_truncated_chi2(n, df, low=BOUNDS[0], high=BOUNDS[1], random_state=seed)
    edges = np.linspace(*BOUNDS, M + 1)
    reference = grid_kde(x, edges[:-1], ksdensity_bandwidth(x))
    out = run_method(method, level, x, seed + 7, edges, reference)
    if out is None:
        return None
    dist, w1, est, privacy = out
    row = {
        "df": df,
        "method": method,
        "level": level,
        "privacy": privacy,
        "rep": rep,
        "distance": dist,
        "W1": w1,
    }
    if indicators:
        x_hat = est.sample(n, random_state=seed + 11)
        row.update(indicator_errors(x, x_hat, np.linspace(*BOUNDS, 1001)))
    return row


def _summarize(frame, columns):
    rows = []
    for keys, group in frame.groupby(["df", "method", "level"], sort=False):
        row = {"df": keys[0], "method": keys[1], "privacy": group["privacy"].iloc[0]}
        for col in columns:
            mean, se = mean_se(group[col])
            row[col] = f"{mean:.3g} ± {se:.2g}"
        rows.append(row)
    return pd.DataFrame(rows)


def run(quick: bool, n_jobs: int) -> list[Section]:
    dfs = [2, 10] if quick else [2, 3, 5, 8, 10]
    reps = 3 if quick else 11
    n = 20_000 if quick else 50_000
    tasks = [
        (df, method, level, rep, n, df == 2)
        for df in dfs
        for method, levels in LEVELS.items()
        for level in levels
        for rep in range(reps)
    ]
    rows = Parallel(n_jobs=n_jobs)(delayed(_one)(*t) for t in tasks)
    missing = any(r is None for r in rows)
    frame = pd.DataFrame([r for r in rows if r is not None])
    fig2 = _summarize(frame, ["distance", "W1"])
    ind_cols = ["mean", "std", "mode", "median", "skewness", "kurtosis"]
    fig4 = _summarize(frame[frame["df"] == 2], ["distance", *ind_cols])
    best = []
    for df, group in frame.groupby("df"):
        agg = group.groupby(["method", "level"])[["distance", "W1"]].mean()
        for method in agg.index.get_level_values(0).unique():
            sub = agg.loc[method]
            # W1 at the privacy level whose distance is closest to 700 (RMSE ~3.1
            # at n = 50,000): a common operating point for all methods.
            target = 700 * np.sqrt(n / 50_000)
            lvl = (sub["distance"] - target).abs().idxmin()
            best.append(
                {
                    "df": df,
                    "method": method,
                    "level": lvl,
                    "distance": sub.loc[lvl, "distance"],
                    "W1": sub.loc[lvl, "W1"],
                }
            )
    text = (
        f"n = {n:,} per sample in [0, 10] (chi-square truncated by rejection), "
        f"m = {M}, {reps} repetitions (mean ± standard error). Privacy distance: "
        "sqrt(sum (x - x')^2) with x' the released value for the noise-addition "
        "and Square Wave baselines and the adversary's maximum-likelihood guess "
        "(midpoint tie-break, 1001-point grid) for RVNS; RVNS's epsilon is Theorem 1's "
        "k ln(4d/delta) at delta = 0.05 (0.5% of the range); for RVNS it is computed "
        f"on the first {ADVERSARY_SUBSAMPLE:,} respondents and scaled by "
        "sqrt(n / 10,000) to keep the paper's unnormalized scale. W1: Eq. (19) in "
        "grid steps, against the KDE of the original data on the grid. "
        "Estimators: RVNS = L-BFGS on the paper's KL+KL+L2 problem (l2='auto' = "
        "1e-3); Laplace, Gaussian and Flipped Huber = KDE of the released values "
        "on [0, 10] (as in the paper); Square Wave = EMS. The paper reports "
        "these results as figures only (no numbers), and its privacy levels and "
        "baseline parameters are in an unavailable supplement, so the levels "
        "here are our choice. Paper's qualitative claims: RVNS keeps a low, "
        "nearly flat W1 as privacy grows, the noise-addition methods degrade "
        "steeply, EMS is the least accurate."
    )
    if missing:
        text += " LaplaceLDP was not available: its rows are missing."
    sections = [
        Section("Setup", text),
        Section(
            "Operating point: privacy distance closest to 700 (RMSE about 3.1)",
            "For each method and df, the level whose mean privacy distance is "
            "closest to 700 (scaled to n) and its W1; a lower W1 at a similar or "
            "larger distance is better.",
            [pd.DataFrame(best).round(3)],
        ),
        Section("Fig. 2: privacy distance and W1 (grid units)", "", [fig2]),
        Section(
            "Fig. 4: six indicators for chi-square(2), |stat(X) - stat(X_hat)|",
            "X_hat: n values drawn from each method's estimated density. Mode: "
            "argmax of a KDE on a 1001-point grid of [0, 10]. Kurtosis is "
            "non-excess and biased, skewness biased (MATLAB conventions).",
            [fig4],
        ),
    ]
    return sections


if __name__ == "__main__":
    for s in run(quick=True, n_jobs=1):
        print(s.title)
        for t in s.tables:
            print(markdown_table(t))
