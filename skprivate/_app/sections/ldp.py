"""Demo section: Laplace LDP and deconvolution on Adult and life expectancy."""

from __future__ import annotations

import warnings

import numpy as np
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss

from .._cli.demo import DemoRow, DemoSection
from ._density import DeconvolutionKernelDensity
from ._laplace import LaplaceLDP
from ._regression import DeconvolutionKernelClassifier

# Public domains declared before collection: Adult's education_num is coded
# 1..16; life expectancy is taken within 20..90 years.
_EDU_BOUNDS = (1.0, 16.0)
_LIFE_BOUNDS = (20.0, 90.0)
_EPS_ADULT = 5.0
_EPS_LIFE = 10.0
_PROBA = 1e-6


def _loglik(y, p):
    return -log_loss(y, np.clip(p, _PROBA, 1 - _PROBA))


def _adult_rows(adult, seed):
    x = adult[["education_num"]].to_numpy(float)
    y = (adult["income"] == ">50K").to_numpy(int)
    ldp = LaplaceLDP(epsilon=_EPS_ADULT, bounds=_EDU_BOUNDS, random_state=seed)
    z = ldp.fit_transform(x)
    kernel = DeconvolutionKernelClassifier(kernel="cauchy", noise_scale=ldp.scale_)
    kernel.fit(z, y)
    logit = LogisticRegression().fit(z, y)
    clean_kernel = DeconvolutionKernelClassifier(kernel="cauchy", noise_scale=0.0)
    clean_kernel.fit(x, y)
    clean_logit = LogisticRegression().fit(x, y)
    privacy = f"eps={_EPS_ADULT:g}-LDP (b={ldp.scale_[0]:.1f})"
    rows = []
    for name, private, clean in [
        ("deconvolution kernel", kernel, clean_kernel),
        ("logistic regression", logit, clean_logit),
    ]:
        lp = _loglik(y, private.predict_proba(x)[:, 1])
        lc = _loglik(y, clean.predict_proba(x)[:, 1])
        rows.append(
            DemoRow(
                "ldp",
                "adult",
                f"P(income>50K | education), {name}: mean log-lik",
                privacy,
                f"{lp:.4f}",
                f"{lc:.4f}",
                f"{lp - lc:+.4f}",
            )
        )
    return rows, (x[:, 0], y, kernel, logit, clean_kernel)


def _density_rows(life, seed):
    x = life[["life_expectancy"]].to_numpy(float)
    ldp = LaplaceLDP(epsilon=_EPS_LIFE, bounds=_LIFE_BOUNDS, random_state=seed)
    z = ldp.fit_transform(x)
    grid = np.linspace(*_LIFE_BOUNDS, 701)
    clean = DeconvolutionKernelDensity(noise_scale=0.0, support=_LIFE_BOUNDS).fit(x)
    naive = DeconvolutionKernelDensity(noise_scale=0.0, support=_LIFE_BOUNDS).fit(z)
    deconv = DeconvolutionKernelDensity(noise_scale=ldp.scale_, support=_LIFE_BOUNDS)
    deconv.fit(z)
    step = grid[1] - grid[0]
    ref = clean.pdf(grid)
    l1 = {
        name: float(np.sum(np.abs(est.pdf(grid) - ref)) * step)
        for name, est in [("naive", naive), ("deconvolved", deconv)]
    }
    privacy = f"eps={_EPS_LIFE:g}-LDP (b={ldp.scale_[0]:.1f})"
    rows = [
        DemoRow(
            "ldp",
            "life_expectancy",
            "density: L1 distance to the clean KDE (naive KDE on noisy data)",
            privacy,
            f"{l1['naive']:.3f}",
            "0",
            f"{l1['naive']:.3f}",
        ),
        DemoRow(
            "ldp",
            "life_expectancy",
            "density: L1 distance to the clean KDE (deconvolution KDE)",
            privacy,
            f"{l1['deconvolved']:.3f}",
            "0",
            f"{l1['deconvolved']:.3f}",
        ),
        DemoRow(
            "ldp",
            "life_expectancy",
            "median life expectancy (deconvolution KDE)",
            privacy,
            f"{deconv.median():.2f}",
            f"{float(np.median(x)):.2f}",
            f"{deconv.median() - float(np.median(x)):+.2f} years",
        ),
    ]
    return rows, (grid, ref, naive.pdf(grid), deconv.pdf(grid))


def _figures(adult_parts, density_parts):
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is optional
        return {}
    grid, ref, naive, deconv = density_parts
    fig, axes = plt.subplots(1, 2, figsize=(10, 3.8))
    ax = axes[0]
    ax.plot(grid, ref, "k-", label="clean KDE")
    ax.plot(grid, naive, "C1--", label="naive KDE on noisy data")
    ax.plot(grid, deconv, "C0-", label="deconvolution KDE")
    ax.set(
        xlabel="life expectancy (years)",
        ylabel="density",
        title=f"Life expectancy, eps={_EPS_LIFE:g}",
    )
    ax.legend(fontsize=8)
    x, y, kernel, logit, clean_kernel = adult_parts
    edu = np.arange(1, 17)
    rate = np.array([y[x == e].mean() for e in edu])
    ax = axes[1]
    ax.plot(edu, rate, "ko", label="clean frequency")
    ax.plot(
        edu, clean_kernel.predict_proba(edu[:, None])[:, 1], "k-", label="kernel, clean"
    )
    ax.plot(edu, kernel.predict_proba(edu[:, None])[:, 1], "C0-", label="kernel, LDP")
    ax.plot(edu, logit.predict_proba(edu[:, None])[:, 1], "C1--", label="logistic, LDP")
    ax.set(
        xlabel="education_num",
        ylabel="P(income > 50K)",
        title=f"Adult, eps={_EPS_ADULT:g}",
    )
    ax.legend(fontsize=8)
    fig.tight_layout()
    return {"ldp_density_and_adult": fig}


def run(context) -> DemoSection:
    """Privatize a column with Laplace noise, then deconvolve."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # clipping into the bounds
        adult_rows, adult_parts = _adult_rows(context.adult, context.random_state)
        density_rows, density_parts = _density_rows(
            context.life_expectancy, context.random_state
        )
    text = (
        "Each record's value is released with Laplace noise of scale "
        "b = (high - low) / eps over declared bounds (eps-local differential "
        "privacy). The naive estimators treat the noisy values as clean and "
        "flatten the density and the regression curve; the deconvolution "
        "kernel estimators (Farokhi, 2020) undo it. Adult: education_num is "
        "privatized, income is released as is; log-likelihoods are measured "
        "on the clean pairs."
    )
    return DemoSection(
        family="ldp",
        rows=adult_rows + density_rows,
        figures=_figures(adult_parts, density_parts),
        text=text,
    )
