"""Subset privacy on Adult: race (Figs 1–3) and sex × income power (Fig 6)."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy import stats

from skprivate.datasets import load_adult
from skprivate.subset import (
    SubsetDesign,
    SubsetDistributionEstimator,
    subset_independence_test,
    subset_individual_leakage,
    subset_leakage,
)
from skprivate.subset._fitting import limit_covariance

from ._common import Section, mean_se

TITLE = "Subset privacy on Adult: race distribution, leakage, sex × income tests"

METHODS = ["mom", "em", "mle", "one-step"]
TESTS = ["pearson", "lrt-mle", "lrt-mom", "bonferroni"]


def _race_rep(codes, w, n, seed):
    rng = np.random.default_rng(seed)
    design = SubsetDesign.uniform(5)
    x = codes[rng.choice(codes.size, size=n, replace=False)]
    A = design.sample(x, rng)
    out = {"non-private": n * np.sum((np.bincount(x, minlength=5) / n - w) ** 2)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for m in METHODS:
            est = SubsetDistributionEstimator(m, design=design).fit(A)
            out[m] = n * np.sum((est.distribution_ - w) ** 2)
    return out


def _pearson_p(a, b, ka, kb):
    table = np.zeros((ka, kb))
    np.add.at(table, (a, b), 1)
    table = table[table.sum(1) > 0][:, table.sum(0) > 0]
    if min(table.shape) < 2:
        return 1.0
    return float(stats.chi2_contingency(table, correction=False)[1])


def _power_rep(sex, income, n, alpha, seed):
    rng = np.random.default_rng(seed)
    idx = rng.choice(sex.size, size=n, replace=True)
    x, y = sex[idx], income[idx]
    design = SubsetDesign.uniform(2, min_coverage=alpha)
    # Y: each variable independently replaced by dummy 2 or 3 w.p. alpha each.
    ux, uy = rng.random(n), rng.random(n)
    xd = np.where(ux < alpha, 2, np.where(ux < 2 * alpha, 3, x))
    yd = np.where(uy < alpha, 2, np.where(uy < 2 * alpha, 3, y))
    A, B = design.sample(xd, rng), design.sample(yd, rng)
    out = {"PT:X": _pearson_p(x, y, 2, 2), "PT:Y": _pearson_p(xd, yd, 4, 4)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for t in TESTS:
            out[t] = subset_independence_test(
                A, B, method=t, design_a=design, design_b=design
            ).pvalue
    return out


def run(quick: bool, n_jobs: int) -> list[Section]:
    adult = load_adult()
    cats = sorted(adult["race"].unique())
    codes = pd.Index(cats).get_indexer(adult["race"])
    w = np.bincount(codes) / codes.size
    design = SubsetDesign.uniform(5)
    sections = []

    # Figs 1–2: scaled L2 loss against n.
    reps = 20 if quick else 100
    sizes = [100, 500, 1000, 5000, 10000]
    rows = []
    for k, n in enumerate(sizes):
        res = pd.DataFrame(
            Parallel(n_jobs=n_jobs)(
                delayed(_race_rep)(codes, w, n, 1000 * k + r) for r in range(reps)
            )
        )
        line = {"n": n}
        for col in ["non-private", *METHODS]:
            m, se = mean_se(res[col])
            line[col] = f"{m:.3f} ({se:.3f})"
        rows.append(line)
    lim_mle = np.trace(limit_covariance(design, w, "mle"))
    lim_raw = 1 - np.sum(w**2)
    lim = pd.DataFrame(
        [
            {
                "quantity": "limit n E||ŵ-w||²",
                "non-private": f"{lim_raw:.3f}",
                "MLE": f"{lim_mle:.3f}",
                "MoM (raw)": f"{np.trace(limit_covariance(design, w, 'mom')):.3f}",
                "MLE / non-private": f"{lim_mle / lim_raw:.2f}",
                "paper": "MLE ≈ 4× sample (figure); exact limit ratio 3.3×",
            }
        ]
    )
    sections.append(
        Section(
            "Adult race: scaled L2 loss n||ŵ - w||² against n (Figs 1–2)",
            f"Subsamples of size n without replacement from the 32,561 Adult rows, "
            f"uniform design (p = 5), {reps} replications; mean (standard error). "
            "Estimates are projected onto the simplex (what a user gets), so the "
            "MoM here is below its raw limit 2.80.  The paper shows the n^(-1/2) "
            "rate (flat scaled loss) and an MLE loss about four times the sample's "
            "in its figures; the exact limit ratio is 3.3; ours is "
            "about 3 at every n.  The one-step estimator (one Newton step from "
            "the MoM, halved until it stays in the simplex and does not lower "
            "the likelihood) sits between the MoM and the MLE: with two "
            "categories below 1 % the MoM often starts at the simplex boundary, "
            "where the safeguarded step is short (see subset_table3).",
            [pd.DataFrame(rows), lim],
        )
    )

    # Fig 3: leakages.
    leak = subset_leakage(design, w)
    case14 = subset_individual_leakage([[0, 1, 0, 0, 1]], design, w)
    table = pd.DataFrame(
        [
            [
                "size leakage",
                leak["size_leakage_nonprivate"],
                leak["size_leakage"],
                0.0,
                "0.25 → 0.15",
            ],
            [
                "mutual information (bits)",
                leak["mutual_information_bits_nonprivate"],
                leak["mutual_information_bits"],
                0.0,
                "about half",
            ],
            [
                "prediction leakage",
                1.0,
                leak["prediction_leakage"],
                leak["prediction_leakage_fully_private"],
                "1 → 0.9 (fully private 0.85)",
            ],
            [
                "Case 14 size leakage ({API, White})",
                1 - w[1],
                float(case14["size_leakage"][0]),
                0.0,
                "0.97 → 0.11",
            ],
        ],
        columns=["measure", "non-private", "uniform design", "fully private", "paper"],
    )
    sections.append(
        Section(
            "Adult race: privacy leakage (Figs 3–4)",
            "Population leakages of Section II-B for the Adult race distribution "
            "(Table II w), exact sums over the 20 subsets of the uniform design.",
            [table],
        )
    )

    # Fig 6: power of the independence tests, sex × income, p = 2 via App. C.
    sex = (adult["sex"] == "Male").to_numpy().astype(int)
    income = (adult["income"] == ">50K").to_numpy().astype(int)
    reps = 20 if quick else 100
    sizes = [50, 100, 200, 400, 800]
    power_rows = []
    for k, n in enumerate(sizes):
        res = pd.DataFrame(
            Parallel(n_jobs=n_jobs)(
                delayed(_power_rep)(sex, income, n, 0.05, 7000 + 1000 * k + r)
                for r in range(reps)
            )
        )
        line = {"n": n}
        for col in ["PT:X", "PT:Y", *TESTS]:
            line[col] = float(np.mean(res[col] < 0.05))
        power_rows.append(line)
    sections.append(
        Section(
            "Sex × income: power at level 0.05 (Fig 6)",
            f"n rows drawn with replacement from Adult; each variable becomes Y by "
            f"a Markov step to one of two dummy categories with probability α = "
            f"0.05 each (the paper leaves this step unspecified), then the "
            "p = 2 dummy design of App. C. "
            f"{reps} replications. PT:X is Pearson's test on the raw 2×2 table, "
            "PT:Y on the 4×4 table of Y. The paper reports (figure only) that the "
            "subset data need about four times the sample size of Y and that the "
            "LRTs are best.",
            [pd.DataFrame(power_rows)],
        )
    )
    return sections
