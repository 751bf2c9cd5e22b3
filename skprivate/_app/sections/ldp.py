"""Demo section: Laplace LDP and deconvolution on Adult and life expectancy."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import log_loss

from skprivate.ldp import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    LaplaceLDP,
)

from ..demo import ADULT, LIFE, DemoFigure, DemoRow, DemoSection, pyplot
from ..intervals import interval_frame_or_none, interval_text

# Public domains declared before collection: Adult's education_num is coded
# 1..16; life expectancy is taken within 20..90 years.
_EDU_BOUNDS = (1.0, 16.0)
_LIFE_BOUNDS = (20.0, 90.0)
_EPS_ADULT = 5.0
_EPS_LIFE = 10.0
_PROBA = 1e-6
_LOGLIK_UNIT = "mean log-likelihood per person (nats; higher is better)"


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
    privacy = f"ε={_EPS_ADULT:g}, b={ldp.scale_[0]:.1f}"
    rows = []
    for name, private, clean in [
        ("deconvolution kernel classifier", kernel, clean_kernel),
        ("logistic regression (ignores the noise)", logit, clean_logit),
    ]:
        lp = _loglik(y, private.predict_proba(x)[:, 1])
        lc = _loglik(y, clean.predict_proba(x)[:, 1])
        rows.append(
            DemoRow(
                "ldp",
                ADULT,
                f"P(income > 50K | education), {name}",
                privacy,
                f"{lp:.4f}",
                f"{lc:.4f}",
                f"{lp - lc:+.4f}",
                _LOGLIK_UNIT,
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
    privacy = f"ε={_EPS_LIFE:g}, b={ldp.scale_[0]:.1f}"
    rows = [
        DemoRow(
            "ldp",
            LIFE,
            "density: L1 distance to the clean KDE, naive KDE of the noisy values",
            privacy,
            f"{l1['naive']:.3f}",
            "0.000",
            f"{l1['naive']:.3f}",
            "L1 distance (0 = identical, 2 = disjoint)",
        ),
        DemoRow(
            "ldp",
            LIFE,
            "density: L1 distance to the clean KDE, deconvolution KDE",
            privacy,
            f"{l1['deconvolved']:.3f}",
            "0.000",
            f"{l1['deconvolved']:.3f}",
            "L1 distance (0 = identical, 2 = disjoint)",
        ),
        DemoRow(
            "ldp",
            LIFE,
            "median life expectancy (deconvolution KDE)",
            privacy,
            f"{deconv.median():.2f}",
            f"{float(np.median(x)):.2f}",
            f"{deconv.median() - float(np.median(x)):+.2f}",
            "years",
            interval_text(
                interval_frame_or_none(deconv, "quantile", [0.5], X=z),
                point=deconv.median(),
            ),
        ),
    ]
    # Pointwise 95% intervals of the density (robust bias correction: they
    # cover the density itself, not its smoothed version).
    band_x = grid[::10]
    band = interval_frame_or_none(deconv, "pdf", band_x, X=z)
    band = None if band is None else (band_x, band["lower"], band["upper"])
    return rows, l1, (grid, ref, naive.pdf(grid), deconv.pdf(grid), band)


def _figures(adult_parts, density_parts):
    plt = pyplot()
    if plt is None:
        return {}
    grid, ref, naive, deconv, band = density_parts
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot(grid, ref, "k-", label="clean KDE")
    ax.plot(grid, naive, "C1--", label="naive KDE of the noisy values")
    ax.plot(grid, deconv, "C0-", label="deconvolution KDE of the noisy values")
    if band is not None:
        ax.fill_between(
            band[0],
            band[1],
            band[2],
            color="C0",
            alpha=0.2,
            label="95% pointwise intervals (bias-corrected)",
        )
    ax.set(
        xlabel="life expectancy (years)",
        ylabel="density",
        title=f"{LIFE}, ε={_EPS_LIFE:g}",
    )
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    density = DemoFigure(
        fig,
        "The naive estimate (orange, dashed) is the clean density (black) "
        "smeared by the Laplace noise; the deconvolution estimate (blue) should "
        "be closer to black: compare their L1 distances in the table. The "
        "shaded band holds pointwise 95% confidence intervals for the density "
        "(robust bias correction; they can be wide where the noise is large).",
        pd.DataFrame({"x": grid, "clean": ref, "naive": naive, "deconvolved": deconv}),
    )
    x, y, kernel, logit, clean_kernel = adult_parts
    edu = np.arange(1, 17)
    rate = np.array([y[x == e].mean() for e in edu])
    curves = {
        "clean frequency": rate,
        "kernel, clean": clean_kernel.predict_proba(edu[:, None])[:, 1],
        "kernel, LDP": kernel.predict_proba(edu[:, None])[:, 1],
        "logistic, LDP": logit.predict_proba(edu[:, None])[:, 1],
    }
    fig, ax = plt.subplots(figsize=(6, 3.6))
    ax.plot(edu, curves["clean frequency"], "ko", label="clean frequency")
    ax.plot(edu, curves["kernel, clean"], "k-", label="kernel, clean data")
    ax.plot(edu, curves["kernel, LDP"], "C0-", label="kernel, noisy education")
    band = interval_frame_or_none(kernel, "predict_proba", edu[:, None])
    if band is not None:
        band = band[band["quantity"] == f"P(y={kernel.classes_[-1]})"]
        ax.fill_between(
            edu,
            band["lower"].to_numpy(float),
            band["upper"].to_numpy(float),
            color="C0",
            alpha=0.2,
            label="95% pointwise intervals (kernel-smoothed target)",
        )
    ax.plot(edu, curves["logistic, LDP"], "C1--", label="logistic, noisy education")
    ax.set(
        xlabel="education_num (years of education, coded 1-16)",
        ylabel="P(income > 50K)",
        title=f"{ADULT}, ε={_EPS_ADULT:g}",
        ylim=(0, 1),
    )
    ax.legend(fontsize=8, loc="upper left")
    fig.tight_layout()
    top = float(curves["kernel, LDP"][-1])
    clean_top = float(curves["clean frequency"][-1])
    adult = DemoFigure(
        fig,
        "Blue should follow the black dots. With noise of this size both "
        "private curves are flatter than the clean one: at education 16 the "
        f"kernel trained on noisy data gives {top:.2f} against a clean "
        f"{clean_top:.2f}; the kernel still tracks the shape better than the "
        "logistic regression (orange), which treats the noisy values as exact. "
        "The shaded band holds pointwise 95% confidence intervals of the kernel "
        "curve; they cover the probability smoothed by the kernel at the "
        "fitted bandwidth, not the clean frequency (none where the kernel "
        "weights are too noisy to divide by).",
        pd.DataFrame({"education_num": edu, **curves}),
    )
    return {"life_expectancy_density": density, "adult_income_by_education": adult}


def run(context) -> DemoSection:
    """Privatize a column with Laplace noise, then deconvolve."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # clipping into the bounds
        adult_rows, adult_parts = _adult_rows(context.adult, context.random_state)
        density_rows, l1, density_parts = _density_rows(
            context.life_expectancy, context.random_state
        )
    better = "smaller" if l1["deconvolved"] < l1["naive"] else "not smaller"
    text = (
        "Each record's value is released with Laplace noise of scale "
        "b = (high - low) / ε over bounds declared in advance (ε-local "
        "differential privacy). Estimators that treat the noisy values as exact "
        "flatten the density and the regression curve; the deconvolution kernel "
        "estimators (Farokhi, 2020) correct for the known noise, partly: here "
        f"the deconvolution KDE's L1 distance to the clean KDE is {better} than "
        f"the naive KDE's ({l1['deconvolved']:.3f} vs {l1['naive']:.3f}). Adult: "
        "education_num is privatized, income is released as is; the "
        "log-likelihoods are measured on the clean pairs."
    )
    return DemoSection(
        family="ldp",
        rows=adult_rows + density_rows,
        figures=_figures(adult_parts, density_parts),
        text=text,
        title=f"Laplace noise and deconvolution, {ADULT} and {LIFE}",
        lead="Local differential privacy: each value gets Laplace noise before it "
        "leaves the respondent; deconvolution estimators undo part of the noise.",
        glossary={
            "ε": "privacy loss of the Laplace mechanism: smaller is more private",
            "b": "scale of the Laplace noise added to each value, "
            "(high - low) / ε, in the column's unit",
        },
    )
