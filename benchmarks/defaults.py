"""Defaults against the papers' settings and the best fixed setting (oracle).

For each learner, on real bundled columns and on the papers' synthetic
designs, over several privatization seeds: the error of the default, of the
paper's procedure, and of the best fixed setting of a grid chosen with the
clean data (the oracle, unattainable in practice).  Reports the median and
the worst seed of each, and the ratios the targets are stated in:
default / oracle (median <= 1.5, worst <= 3) and default / paper (median
<= 1).  The papers' procedures run as published: the density estimates'
moment correction, which is this library's, is turned off for them.  For
regression, also the attenuated linear regression on the noisy input.

Errors:

* regression and classification: mean squared error of the estimated
  regression function (or P(y = 1 | x)) against the clean one, over the
  clean inputs (for discrete inputs the clean one is the mean of y at each
  level; otherwise a clean Nadaraya-Watson fit);
* densities: Wasserstein-1 distance between the estimated distribution and
  the clean sample, divided by the range of the bounds.

Every (design, seed) pair is one task; tasks run in parallel over
``n_jobs`` processes.  Oracle grids have 10 points (the regression optimum is
flat over a factor of 1.5 in the bandwidth, so a finer grid changes the
oracle's error by a few percent at most).
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from scipy.stats import wasserstein_distance
from sklearn.linear_model import LinearRegression

from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    LaplaceLDP,
)
from skprivate._grid_density._ems import (
    ML_MAX_ITER,
    ML_TOL,
    ML_WIDTHS,
    ems_cell_probabilities,
)
from skprivate.datasets import load_adult, load_life_expectancy, make_truncated_chi2
from skprivate.ldp import (
    FlippedHuberLDP,
    GeneralizedGaussianLDP,
    PerturbedKDEEstimator,
    SquareWaveEMSEstimator,
    SquareWaveLDP,
)
from skprivate.ldp._transitions import additive_transition, square_wave_transition
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber
from skprivate.negative_survey._solvers import cell_transition_matrix

from ._common import Section

TITLE = "Defaults vs the papers' settings vs the oracle"


def _clean_curve(x, y):
    """The clean regression function at each clean input."""
    levels, inverse = np.unique(x, return_inverse=True)
    if levels.size <= 60:
        means = np.bincount(inverse, y) / np.bincount(inverse)
        return means[inverse]
    # The clean curve does not follow the estimator's default degree, so
    # that changing the default does not move the target.
    reg = DeconvolutionKernelRegressor(noise_scale=0.0, bandwidth="loo", degree=0).fit(
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


GRID = 10
# The local polynomial degree the default does not use, reported beside it
# (the default, degree="auto", is 1 with the Gaussian kernel).
OTHER_DEGREE = 1 - DeconvolutionKernelRegressor()._resolved_degree()


def _regression_rows(name, x, y, eps, bounds, seeds, classifier=False):
    truth = _clean_curve(x, y)
    grid = np.geomspace(0.02, 1.0, GRID) * (bounds[1] - bounds[0])
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
            paper = Est(noise_scale=b, bandwidth="loo", kernel="cauchy", degree=0).fit(
                z, labels
            )
            # The oracle keeps the default's degree and varies the bandwidth.
            fixed = [err(Est(noise_scale=b, bandwidth=h).fit(z, labels)) for h in grid]
            other = OTHER_DEGREE
            alt = Est(noise_scale=b, degree=other, random_state=seed).fit(z, labels)
            alt_fixed = [
                err(Est(noise_scale=b, degree=other, bandwidth=h).fit(z, labels))
                for h in grid
            ]
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
                f"degree {other}": err(alt),
                f"degree {other} oracle": min(alt_fixed),
                "linear": float(np.mean((linear.predict(x[:, None]) - truth) ** 2)),
            }
        )
    return rows


def _density_rows(name, x, eps, bounds, seeds):
    width = bounds[1] - bounds[0]
    grid = np.geomspace(0.01, 0.5, GRID) * width
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
            # the paper's procedure: no moment correction (ours)
            paper = DeconvolutionKernelDensity(
                kernel="cauchy", boundary="clip", moment_correction=False, **common
            ).fit(z)
            cauchy_corrected = DeconvolutionKernelDensity(
                kernel="cauchy", boundary="clip", **common
            ).fit(z)
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
                "Cauchy, clipped, moment-corrected": err(cauchy_corrected),
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
        priv = RVNSPerturber(
            d=d, k=2, bounds=bounds, placement="paper", random_state=seed
        )
        reports = priv.fit_transform(x[:, None])
        default = RVNSDensityEstimator(d=d, bounds=bounds, placement="paper")
        default.fit(reports)
        paper = RVNSDensityEstimator(
            method="paper",
            d=d,
            bounds=bounds,
            placement="paper",
            moment_correction=False,
        ).fit(reports)
        edges = default.edges_
        A = cell_transition_matrix(edges, d, bounds)
        fixed = []
        for s in ML_WIDTHS:
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
                "smoothing oracle": ML_WIDTHS[int(np.argmin(fixed))],
                "mass at low end: default / paper / true": (
                    f"{float(default.cdf(bounds[0] + 0.04 * width)):.3f} / "
                    f"{float(paper.cdf(bounds[0] + 0.04 * width)):.3f} / "
                    f"{np.mean(x <= bounds[0] + 0.04 * width):.3f}"
                ),
            }
        )
    return rows


def _grid_w1(x, width):
    """W1 / range between a histogram (edges, cell masses) and the sample x."""

    def w1(edges, mass):
        cum = np.concatenate([[0.0], np.cumsum(mass)])
        u = (np.arange(2000) + 0.5) / 2000
        sample = np.interp(u, cum / cum[-1], edges)
        return wasserstein_distance(sample, x) / width

    return w1


def _fixed_widths(M, counts, w1, edges):
    """Error of the EMS fit with each fixed smoothing width (the oracle grid)."""
    errs = []
    for s in ML_WIDTHS:
        w, _ = ems_cell_probabilities(M, counts, s, max_iter=ML_MAX_ITER, tol=ML_TOL)
        errs.append(w1(edges, w))
    return errs


def _square_wave_rows(name, x, eps, bounds, seeds):
    a, b = bounds
    w1 = _grid_w1(x, b - a)
    rows = []
    for seed in seeds:
        priv = SquareWaveLDP(epsilon=eps, bounds=bounds, random_state=seed)
        reports = priv.fit_transform(x[:, None])
        common = {"epsilon": eps, "bounds": bounds}
        default = SquareWaveEMSEstimator(**common).fit(reports)
        paper = SquareWaveEMSEstimator(
            smoothing=True, moment_correction=False, **common
        ).fit(reports)
        auto = SquareWaveEMSEstimator(smoothing="auto", **common).fit(reports)
        unit = np.linspace(0.0, 1.0, default.edges_.size)
        M, out_edges = square_wave_transition(unit, eps)
        v = (reports[:, 0] - a) / (b - a)
        counts = np.histogram(np.clip(v, out_edges[0], out_edges[-1]), out_edges)[0]
        fixed = _fixed_widths(M, counts.astype(float), w1, default.edges_)
        mass = lambda e: e.density_ * np.diff(e.edges_)  # noqa: E731
        rows.append(
            {
                "design": name,
                "seed": seed,
                "default": w1(default.edges_, mass(default)),
                "paper": w1(paper.edges_, mass(paper)),
                "oracle": min(fixed),
                "smoothing oracle": ML_WIDTHS[int(np.argmin(fixed))],
                "auto": w1(auto.edges_, mass(auto)),
                "smoothing auto": auto.smoothing_width_,
            }
        )
    return rows


def _perturbed_rows(name, x, make_priv, bounds, seeds):
    a, b = bounds
    w1 = _grid_w1(x, b - a)
    rows = []
    for seed in seeds:
        priv = make_priv(seed).fit(x[:, None])
        released = priv.transform(x[:, None])
        default = PerturbedKDEEstimator(privatizer=_pass_through(priv))
        default = default.fit(released)
        paper = PerturbedKDEEstimator(
            bounds=bounds, method="paper", moment_correction=False
        ).fit(released)
        law = (
            priv.noise_[0]
            if hasattr(priv, "noise_")
            else _laplace_law(float(priv.scale_[0]))
        )
        M, out_edges = additive_transition(default.edges_, law)
        k = out_edges.size - 1
        bins = np.clip(
            np.searchsorted(out_edges, released[:, 0], "right") - 1, 0, k - 1
        )
        counts = np.bincount(bins, minlength=k).astype(float)
        fixed = _fixed_widths(M, counts, w1, default.edges_)
        mass = lambda e: e.density_ * np.diff(e.edges_)  # noqa: E731
        rows.append(
            {
                "design": name,
                "seed": seed,
                "default": w1(default.edges_, mass(default)),
                "smoothing default": default.smoothing_width_,
                "paper": w1(paper.edges_, mass(paper)),
                "oracle": min(fixed),
                "smoothing oracle": ML_WIDTHS[int(np.argmin(fixed))],
            }
        )
    return rows


def _laplace_law(scale):
    from skprivate.ldp._noise_laws import GeneralizedGaussianNoise

    return GeneralizedGaussianNoise(scale, 1.0)


def _pass_through(priv):
    """A privatizer with ``priv``'s settings (hence noise law) that releases
    its input unchanged, so every estimate is scored on the same releases."""

    class PassThrough(type(priv)):
        def transform(self, X):
            return np.asarray(X, dtype=float)

    return PassThrough(**priv.get_params())


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
            "default/paper median": g["default"].median() / g["paper"].median(),
        }
        for col in extra:
            row[col] = g[col].median()
        missed = []
        if ratio_o.median() > 1.5:
            missed.append(f"default/oracle median {ratio_o.median():.2f} > 1.5")
        if ratio_o.max() > 3.0:
            missed.append(f"default/oracle worst {ratio_o.max():.2f} > 3")
        if g["default"].median() > g["paper"].median():
            missed.append(
                "default worse than paper at the median "
                f"({row['default/paper median']:.2f}x)"
            )
        if "linear" in g:
            beats = (g["default"] < g["linear"]) | (g["oracle"] >= g["linear"])
            row["beats linear where oracle does"] = f"{int(beats.sum())}/{len(g)}"
            if not beats.all():
                missed.append(f"loses to linear on {int((~beats).sum())} seed(s)")
        row["targets met"] = "yes" if not missed else "NO: " + "; ".join(missed)
        out.append(row)
    del ratio_p
    return pd.DataFrame(out), frame


def _tasks(quick):
    """One (function, args) per design and seed."""
    seeds = range(2) if quick else range(5)
    adult = load_adult()
    life = load_life_expectancy()
    tasks = []
    for name, x, y, eps, bounds in _regression_designs(quick):
        for seed in seeds:
            tasks.append(("reg", _regression_rows, (name, x, y, eps, bounds, [seed])))
    edu = adult["education_num"].to_numpy(float)
    rich = (adult["income"] == ">50K").to_numpy(float)
    for seed in seeds:
        args = ("Adult: P(>50K | education_num), eps=5", edu, rich, 5.0, (1, 16))
        tasks.append(("clf", _regression_rows, (*args, [seed], True)))

    life_exp = life["life_expectancy"].dropna().to_numpy(float)
    fertility = life["fertility"].dropna().to_numpy(float)
    age = adult["age"].to_numpy(float)
    hours = adult["hours_per_week"].to_numpy(float)
    x_chi = make_truncated_chi2(5000, 3, low=0, high=3, random_state=0)
    for name, x, eps, bounds in [
        ("Life expectancy, eps=5, bounds (13, 84)", life_exp, 5.0, (13, 84)),
        ("Fertility, eps=5, bounds (1, 9.3)", fertility, 5.0, (1, 9.3)),
        ("Adult age, eps=5, bounds (17, 90)", age, 5.0, (17, 90)),
        ("Adult hours per week, eps=5, bounds (1, 99)", hours, 5.0, (1, 99)),
        ("Adult education_num, eps=5, bounds (1, 16)", edu, 5.0, (1, 16)),
        ("Synthetic chi2(3) on [0, 3], eps=10 (paper)", x_chi, 10.0, (0, 3)),
    ]:
        for seed in seeds:
            tasks.append(("dens", _density_rows, (name, x, eps, bounds, [seed])))

    x_ns = make_truncated_chi2(20000 if not quick else 5000, 2, random_state=0)
    for name, x, d, bounds in [
        ("Adult age, d=15, bounds (17, 90)", age, 15.0, (17, 90)),
        ("Life expectancy, d=10, bounds (13, 84)", life_exp, 10.0, (13, 84)),
        ("Synthetic chi2(2) on [0, 10], d=2", x_ns, 2.0, (0, 10)),
    ]:
        for seed in seeds:
            tasks.append(("rvns", _rvns_rows, (name, x, d, bounds, [seed])))

    for name, x, eps, bounds in [
        ("Adult age, eps=2, bounds (17, 90)", age, 2.0, (17, 90)),
        ("Life expectancy, eps=2, bounds (13, 84)", life_exp, 2.0, (13, 84)),
        ("Synthetic chi2(2) on [0, 10], eps=1 (paper)", x_ns, 1.0, (0, 10)),
        ("Synthetic chi2(2) on [0, 10], eps=4 (paper)", x_ns, 4.0, (0, 10)),
    ]:
        for seed in seeds:
            tasks.append(("sw", _square_wave_rows, (name, x, eps, bounds, [seed])))

    def laplace(eps, bounds):
        return lambda seed: LaplaceLDP(epsilon=eps, bounds=bounds, random_state=seed)

    def gauss(eps, bounds):
        return lambda seed: GeneralizedGaussianLDP(
            epsilon=eps, delta=1e-3, power=2.0, bounds=bounds, random_state=seed
        )

    def huber(eps, bounds):
        return lambda seed: FlippedHuberLDP(
            epsilon=eps, delta=1e-3, bounds=bounds, random_state=seed
        )

    for name, x, make, bounds in [
        ("Adult age, Laplace eps=2", age, laplace(2.0, (17, 90)), (17, 90)),
        ("Life expectancy, Laplace eps=2", life_exp, laplace(2.0, (13, 84)), (13, 84)),
        (
            "Synthetic chi2(2), Laplace eps=2 (paper)",
            x_ns,
            laplace(2.0, (0, 10)),
            (0, 10),
        ),
        (
            "Synthetic chi2(2), Gaussian eps=2 (paper)",
            x_ns,
            gauss(2.0, (0, 10)),
            (0, 10),
        ),
        (
            "Synthetic chi2(2), Flipped Huber eps=2 (paper)",
            x_ns,
            huber(2.0, (0, 10)),
            (0, 10),
        ),
    ]:
        for seed in seeds:
            tasks.append(("pkde", _perturbed_rows, (name, x, make, bounds, [seed])))
    cost = {"clf": 0, "reg": 1, "pkde": 2, "dens": 3, "rvns": 4, "sw": 5}
    return sorted(tasks, key=lambda task: cost[task[0]])


def _run_task(func, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args)


SECTIONS = [
    (
        "reg",
        "DeconvolutionKernelRegressor",
        'Default `bandwidth="simex"` (weighted SIMEX), '
        f'`degree="auto"` (= {1 - OTHER_DEGREE} with the Gaussian kernel); '
        'paper: `"loo"` with the Cauchy kernel '
        "(`degree=0`); oracle: best of 10 fixed bandwidths (Gaussian kernel, "
        f"the default's degree).  `degree {OTHER_DEGREE}`: the same with "
        f"`degree={OTHER_DEGREE}` (SIMEX bandwidth, and its own oracle).  "
        "`linear`: least squares on the noisy input.",
        (
            "h default",
            "h oracle",
            f"degree {OTHER_DEGREE}",
            f"degree {OTHER_DEGREE} oracle",
        ),
    ),
    (
        "clf",
        "DeconvolutionKernelClassifier",
        "Error: MSE of P(>50K | education) at the clean inputs.",
        (
            "h default",
            "h oracle",
            f"degree {OTHER_DEGREE}",
            f"degree {OTHER_DEGREE} oracle",
        ),
    ),
    (
        "dens",
        "DeconvolutionKernelDensity",
        'Default `bandwidth="cv"` (Gaussian kernel), `boundary="reflect"`; '
        "paper: the same criterion with the Cauchy kernel and the estimate "
        'only clipped to the support (`boundary="clip"`), without the moment '
        "correction (ours; the paper has none); 'Cauchy, clipped, "
        "moment-corrected': that setting with the default moment correction "
        "(median shown, not a target); oracle: best of 10 "
        "fixed bandwidths (Gaussian kernel, reflected).  Error: W1 / range of "
        "the population estimate (`quantile`).",
        ("Cauchy, clipped, moment-corrected", "h default", "h oracle"),
    ),
    (
        "rvns",
        "RVNSDensityEstimator",
        'Default `method="ml"` (EMS on cell counts, smoothing by held-out '
        'report likelihood); paper: `method="paper"` (KDE + regularized fit, '
        "Algorithm 2); oracle: the best fixed smoothing width of the ML "
        "reconstruction.  Error: W1 / range.  The last column is the mass in "
        "the lowest 4% of the range.",
        ("smoothing default", "smoothing oracle"),
    ),
    (
        "sw",
        "SquareWaveEMSEstimator",
        "Default = paper: `smoothing=True` (the binomial filter of Li et al.); "
        'oracle: the best fixed Gaussian smoothing width; `auto`: `smoothing="auto"` '
        "(Gaussian smoothing, width chosen by held-out report likelihood), the "
        "candidate default, kept as an option only: measured over these seeds "
        "its median error is lower on chi2 at eps = 1 (0.0075 vs 0.0090) and "
        "on life expectancy (0.0066 vs 0.0074), about the same on Adult age "
        "(1% higher) and 1.6x higher on chi2 at eps = 4, so it is not better "
        "across designs.  Error: W1 / range.",
        ("auto", "smoothing oracle"),
    ),
    (
        "pkde",
        "PerturbedKDEEstimator",
        'Default `method="auto"` = `"ml"` with a privatizer (EMS through the '
        "exact noise law, smoothing by held-out likelihood); paper: "
        '`method="paper"` (KDE of the noisy releases on [a, b], no '
        "deconvolution); oracle: the best fixed smoothing width of the ML "
        "reconstruction.  Error: W1 / range.",
        ("smoothing default", "smoothing oracle"),
    ),
]


def run(quick: bool = False, n_jobs: int = -1) -> list[Section]:
    tasks = _tasks(quick)
    results = Parallel(n_jobs=n_jobs)(
        delayed(_run_task)(func, args) for _, func, args in tasks
    )
    by_kind: dict[str, list] = {}
    for (kind, _, _), rows in zip(tasks, results, strict=True):
        by_kind.setdefault(kind, []).extend(rows)
    sections = []
    for kind, title, text, extra in SECTIONS:
        summary, detail = _summary(by_kind[kind], extra=extra)
        sections.append(Section(title, text + NOTES.get(kind, ""), [summary, detail]))
    return sections


NOTES: dict[str, str] = {
    "pkde": (
        "  Smoothing widths (cells) are the nine of 0.5 to 8 in steps of about "
        "sqrt(2), for the selection and the oracle alike.  With steps of 2 "
        "(0.5, 1, 2, 4, 8) the Flipped Huber row missed the worst-seed target "
        "on seed 3 (width 1 against the oracle's 0.5: W1 0.0071 against "
        "0.0015, ratio 4.71); with the finer steps the held-out likelihood "
        "picks 0.7 there (0.0040, ratio 2.66), and over seeds 0 to 19 of that "
        "design the worst ratio is 2.66 (median W1 0.0112 against the "
        "oracle's 0.0091; steps of 2: 0.0104 at the median, 4.71 at worst).  "
        "Against steps of 2 on these five seeds the default's median error is "
        "lower on Adult age (0.0066 vs 0.0081) and life expectancy (0.0179 vs "
        "0.0222), the same on the chi2 Laplace and Gaussian designs and 20% "
        "higher on Flipped Huber (0.0110 vs 0.0092).  A tenth width, 0.35 "
        "cells, was tried and left out: the held-out likelihood "
        "then picks it on chi2 with Laplace noise, where it is too narrow "
        "(median 0.0199 against 0.0147)."
    ),
    "dens": (
        "  The reflection at the ends of the support (Schuster, 1985) folds "
        "back the mass that smoothing moves beyond them.  Measured over the "
        "same 5 seeds with the CV bandwidth, it lowers the median error on "
        "Adult age 2.3x, fertility 1.4x and chi2(3) 1.3x (where the density "
        "does not vanish at an end), changes life expectancy by 2% and costs "
        "1% on education and 5% on hours per week (heaped values well inside "
        "the support).  Without it the chi2 row was 1.24x worse than the "
        "paper's Cauchy kernel at the median (the Cauchy kernel's heavy "
        "tails flatten the estimate; reflecting the Cauchy estimate makes it "
        "worse, 0.0091).  Rejected before: choosing the kernel by the "
        "smaller CV score (its sampling noise exceeds the difference: the "
        "Cauchy kernel on 1 to 3 seeds of every real column, medians up to "
        "1.4x worse) and the bootstrap MISE selector of Delaigle & Gijbels "
        "(2004) (tied on chi2, up to 1.4x worse on the real columns).  For "
        "the distribution of Laplace-privatized data with known bounds, "
        "`PerturbedKDEEstimator(privatizer=LaplaceLDP(...))` (maximum "
        "likelihood through the exact noise law, no kernel) is more accurate "
        "still on five of these six designs (median W1 / range over the same "
        "seeds: life expectancy 0.0092, fertility 0.0068, age 0.0045, hours "
        "0.023, education 0.027, chi2 0.0052)."
    ),
}
