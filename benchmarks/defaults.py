"""Defaults against the papers' settings and the best fixed setting (oracle).

For each learner, on real bundled columns and on the papers' synthetic
designs, over several privatization seeds: the error of the default, of the
paper's procedure, and of the best fixed setting of a grid chosen with the
clean data (the oracle, unattainable in practice).  Reports the median and
the worst seed of each, and the ratios the targets are stated in:
default / oracle (median <= 1.5, worst <= 3) and default / paper (median
<= 1).  For regression, also the attenuated linear regression on the noisy
input.

Errors:

* regression and classification: mean squared error of the estimated
  regression function (or P(y = 1 | x)) against the clean one, over the
  clean inputs (for discrete inputs the clean one is the mean of y at each
  level; otherwise a clean Nadaraya-Watson fit);
* densities: Wasserstein-1 distance between the estimated distribution and
  the clean sample, divided by the range of the bounds.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from scipy.stats import wasserstein_distance
from sklearn.linear_model import LinearRegression

from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    LaplaceLDP,
)
from skprivate.datasets import load_adult, load_life_expectancy, make_truncated_chi2
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber
from skprivate.negative_survey._reconstruction import ML_MAX_ITER, ML_TOL
from skprivate.negative_survey._solvers import (
    cell_transition_matrix,
    ems_cell_probabilities,
)

from ._common import Section

TITLE = "Defaults vs the papers' settings vs the oracle"


def _clean_curve(x, y):
    """The clean regression function at each clean input."""
    levels, inverse = np.unique(x, return_inverse=True)
    if levels.size <= 60:
        means = np.bincount(inverse, y) / np.bincount(inverse)
        return means[inverse]
    reg = DeconvolutionKernelRegressor(noise_scale=0.0, bandwidth="loo").fit(
        x[:, None], y
    )
    return reg.predict(x[:, None])


def _regression_designs(quick):
    adult = load_adult()
    life = load_life_expectancy().dropna(subset=["fertility", "life_expectancy"])
    rng = np.random.default_rng(0)
    x_syn = make_truncated_chi2(5000, 3, low=0, high=3, random_state=0)
    y_syn = 4.5 * np.sin(x_syn) - 5 + rng.normal(size=x_syn.size)
    designs = [
        (
            "Adult: P(>50K | education_num), eps=5",
            adult["education_num"].to_numpy(float),
            (adult["income"] == ">50K").to_numpy(float),
            5.0,
            (1, 16),
        ),
        (
            "Life expectancy | fertility, eps=5",
            life["fertility"].to_numpy(float),
            life["life_expectancy"].to_numpy(float),
            5.0,
            (1, 9.3),
        ),
        ("Synthetic chi2(3) on [0, 3], g2, eps=10 (paper)", x_syn, y_syn, 10.0, (0, 3)),
    ]
    return designs


def _regression_rows(name, x, y, eps, bounds, seeds, classifier=False):
    truth = _clean_curve(x, y)
    grid = np.geomspace(0.02, 1.0, 16) * (bounds[1] - bounds[0])
    Est = DeconvolutionKernelClassifier if classifier else DeconvolutionKernelRegressor
    rows = []
    for seed in seeds:
        ldp = LaplaceLDP(epsilon=eps, bounds=bounds, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            z = ldp.fit_transform(x[:, None])
        b = float(ldp.scale_[0])
        labels = y.astype(int) if classifier else y

        def err(model):
            if classifier:
                pred = model.predict_proba(x[:, None])[:, 1]
            else:
                pred = model.predict(x[:, None])
            return float(np.mean((pred - truth) ** 2))

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            default = Est(noise_scale=b, random_state=seed).fit(z, labels)
            paper = Est(noise_scale=b, bandwidth="loo", kernel="cauchy").fit(z, labels)
            fixed = [err(Est(noise_scale=b, bandwidth=h).fit(z, labels)) for h in grid]
        linear = LinearRegression().fit(z, y)
        rows.append(
            {
                "design": name,
                "seed": seed,
                "default": err(default),
                "h default": default.bandwidth_,
                "paper": err(paper),
                "oracle": min(fixed),
                "h oracle": grid[int(np.argmin(fixed))],
                "linear": float(np.mean((linear.predict(x[:, None]) - truth) ** 2)),
            }
        )
    return rows


def _density_rows(name, x, eps, bounds, seeds):
    width = bounds[1] - bounds[0]
    grid = np.geomspace(0.01, 0.5, 16) * width
    rows = []

    def err(model):
        sample = model.quantile((np.arange(2000) + 0.5) / 2000)
        return wasserstein_distance(sample, x) / width

    for seed in seeds:
        ldp = LaplaceLDP(epsilon=eps, bounds=bounds, random_state=seed)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            z = ldp.fit_transform(x[:, None])
            b = float(ldp.scale_[0])
            common = {"noise_scale": b, "support": bounds}
            default = DeconvolutionKernelDensity(**common).fit(z)
            paper = DeconvolutionKernelDensity(kernel="cauchy", **common).fit(z)
            fixed = [
                err(DeconvolutionKernelDensity(bandwidth=h, **common).fit(z))
                for h in grid
            ]
        rows.append(
            {
                "design": name,
                "seed": seed,
                "default": err(default),
                "h default": default.bandwidth_,
                "paper": err(paper),
                "oracle": min(fixed),
                "h oracle": grid[int(np.argmin(fixed))],
            }
        )
    return rows


def _rvns_rows(name, x, d, bounds, seeds):
    width = bounds[1] - bounds[0]
    rows = []

    def w1(est_or_cdf_edges):
        edges, mass = est_or_cdf_edges
        cum = np.concatenate([[0.0], np.cumsum(mass)])
        u = (np.arange(2000) + 0.5) / 2000
        sample = np.interp(u, cum / cum[-1], edges)
        return wasserstein_distance(sample, x) / width

    for seed in seeds:
        priv = RVNSPerturber(d=d, k=2, bounds=bounds, random_state=seed)
        reports = priv.fit_transform(x[:, None])
        default = RVNSDensityEstimator(d=d, bounds=bounds).fit(reports)
        paper = RVNSDensityEstimator(method="paper", d=d, bounds=bounds).fit(reports)
        edges = default.edges_
        A = cell_transition_matrix(edges, d, bounds)
        fixed = []
        for s in (0.5, 1.0, 2.0, 4.0, 8.0):
            w, _ = ems_cell_probabilities(
                A, default.bin_counts_, s, max_iter=ML_MAX_ITER, tol=ML_TOL
            )
            fixed.append(w1((edges, w)))
        dens = lambda e: (e.edges_, e.density_ * np.diff(e.edges_))  # noqa: E731
        rows.append(
            {
                "design": name,
                "seed": seed,
                "default": w1(dens(default)),
                "smoothing default": default.smoothing_width_,
                "paper": w1(dens(paper)),
                "oracle": min(fixed),
                "smoothing oracle": (0.5, 1.0, 2.0, 4.0, 8.0)[int(np.argmin(fixed))],
                "mass at low end: default / paper / true": (
                    f"{float(default.cdf(bounds[0] + 0.04 * width)):.3f} / "
                    f"{float(paper.cdf(bounds[0] + 0.04 * width)):.3f} / "
                    f"{np.mean(x <= bounds[0] + 0.04 * width):.3f}"
                ),
            }
        )
    return rows


def _summary(rows, extra=()):
    frame = pd.DataFrame(rows)
    out = []
    for design, g in frame.groupby("design", sort=False):
        ratio_o = g["default"] / g["oracle"]
        ratio_p = g["default"] / g["paper"]
        row = {
            "design": design,
            "seeds": len(g),
            "default median": g["default"].median(),
            "default worst": g["default"].max(),
            "paper median": g["paper"].median(),
            "oracle median": g["oracle"].median(),
            "default/oracle median": ratio_o.median(),
            "default/oracle worst": ratio_o.max(),
            "default/paper median": ratio_p.median(),
        }
        for col in extra:
            row[col] = g[col].median()
        ok = (
            ratio_o.median() <= 1.5
            and ratio_o.max() <= 3.0
            and g["default"].median() <= g["paper"].median()
        )
        if "linear" in g:
            beats = (g["default"] < g["linear"]) | (g["oracle"] >= g["linear"])
            row["beats linear where oracle does"] = f"{int(beats.sum())}/{len(g)}"
            ok = ok and bool(beats.all())
        row["targets met"] = "yes" if ok else "NO"
        out.append(row)
    return pd.DataFrame(out), frame


def run(quick: bool = False, n_jobs: int = -1) -> list[Section]:
    seeds = range(2) if quick else range(5)
    sections = []

    reg_rows, clf_rows = [], []
    for name, x, y, eps, bounds in _regression_designs(quick):
        reg_rows += _regression_rows(name, x, y, eps, bounds, seeds)
    adult = load_adult()
    clf_rows += _regression_rows(
        "Adult: P(>50K | education_num), eps=5",
        adult["education_num"].to_numpy(float),
        (adult["income"] == ">50K").to_numpy(float),
        5.0,
        (1, 16),
        seeds,
        classifier=True,
    )
    for title, rows, text in [
        (
            "DeconvolutionKernelRegressor",
            reg_rows,
            'Default `bandwidth="simex"` (weighted SIMEX); paper: `"loo"` '
            "with the Cauchy kernel; oracle: best of 16 fixed bandwidths "
            "(Gaussian kernel).  `linear`: least squares on the noisy input.",
        ),
        (
            "DeconvolutionKernelClassifier",
            clf_rows,
            "Error: MSE of P(>50K | education) at the clean inputs.",
        ),
    ]:
        summary, detail = _summary(rows, extra=("h default", "h oracle"))
        sections.append(Section(title, text, [summary, detail]))

    life = load_life_expectancy()["life_expectancy"].dropna().to_numpy(float)
    x_chi = make_truncated_chi2(5000, 3, low=0, high=3, random_state=0)
    dens_rows = _density_rows(
        "Life expectancy, eps=5, bounds (13, 84)", life, 5.0, (13, 84), seeds
    )
    dens_rows += _density_rows(
        "Synthetic chi2(3) on [0, 3], eps=10 (paper)", x_chi, 10.0, (0, 3), seeds
    )
    summary, detail = _summary(dens_rows, extra=("h default", "h oracle"))
    sections.append(
        Section(
            "DeconvolutionKernelDensity",
            'Default `bandwidth="cv"` (Gaussian kernel); paper: the same '
            "criterion with the Cauchy kernel; oracle: best of 16 fixed "
            "bandwidths.  Error: W1 / range.  Not met: on the paper's "
            "chi2(3) design the Cauchy kernel of the paper's setting beats the "
            "default Gaussian kernel at the same criterion (about 1.3x at the "
            "median); the bandwidth choice itself is within 1.3x of the "
            "oracle, so the gap is the kernel, not the selector.",
            [summary, detail],
        )
    )

    age = load_adult()["age"].to_numpy(float)
    x_ns = make_truncated_chi2(20000 if not quick else 5000, 2, random_state=0)
    rv_rows = _rvns_rows("Adult age, d=15, bounds (17, 90)", age, 15.0, (17, 90), seeds)
    rv_rows += _rvns_rows(
        "Life expectancy, d=10, bounds (13, 84)", life, 10.0, (13, 84), seeds
    )
    rv_rows += _rvns_rows(
        "Synthetic chi2(2) on [0, 10], d=2", x_ns, 2.0, (0, 10), seeds
    )
    summary, detail = _summary(rv_rows, extra=("smoothing default", "smoothing oracle"))
    sections.append(
        Section(
            "RVNSDensityEstimator",
            'Default `method="ml"` (EMS on cell counts, smoothing by held-out '
            'report likelihood); paper: `method="paper"` (KDE + regularized '
            "fit, Algorithm 2); oracle: the best fixed smoothing width of the "
            "ML reconstruction.  Error: W1 / range.  The last column is the "
            "mass in the lowest 4% of the range.",
            [summary, detail],
        )
    )
    return sections
