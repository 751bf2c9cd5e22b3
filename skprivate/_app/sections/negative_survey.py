"""Demo section: a negative survey of the Adult respondents' ages."""

from __future__ import annotations

import numpy as np
import pandas as pd

from skprivate.negative_survey import (
    RVNSDensityEstimator,
    RVNSPerturber,
    privacy_distance,
    rvns_adversary_inference,
    six_indicators,
)

from ..demo import ADULT, DemoFigure, DemoRow, DemoSection, pyplot
from ..intervals import interval_frame_or_none, interval_text

_BOUNDS = (17.0, 90.0)  # the age range the Adult survey admits, known in advance
_D, _K = 15.0, 2
_N_CELLS = 146  # half-year cells
_UNITS = {
    "mean": "years",
    "std": "years",
    "median": "years",
    "mode": "years",
    "skewness": "none (shape)",
}


def _cdf_band(est, reports, age):
    """Pointwise 95% CDF intervals at the half years between whole ages.

    Adult's ages are whole years, so the clean share at or below an age
    ``a`` is compared with the reconstructed CDF at ``a + 0.5``.
    """
    x = np.arange(_BOUNDS[0] + 0.5, _BOUNDS[1], 1.0)
    band = interval_frame_or_none(est, "cdf", x, X=reports)
    if band is None:
        return None
    clean = np.searchsorted(np.sort(age), x, side="right") / age.size
    return pd.DataFrame(
        {
            "age": x,
            "clean": clean,
            "reconstructed": band["estimate"].to_numpy(float),
            "lower": band["lower"].to_numpy(float),
            "upper": band["upper"].to_numpy(float),
        }
    )


def _density_figure(plt, est, reports, age):
    edges = np.linspace(*_BOUNDS, 74)
    centres = (edges[:-1] + edges[1:]) / 2
    true_hist, _ = np.histogram(age, bins=edges, density=True)
    report_hist, _ = np.histogram(reports.ravel(), bins=edges, density=True)
    recon = est.pdf(centres)
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    ax.bar(centres, true_hist, width=1.0, alpha=0.35, label="true ages (clean)")
    ax.plot(centres, report_hist, color="grey", lw=1, label="the reported ages")
    ax.plot(centres, recon, color="C3", lw=2, label="reconstructed from reports")
    ax.set_xlim(*_BOUNDS)
    ax.set_xlabel("age (years)")
    ax.set_ylabel("density (share per year)")
    ax.legend(fontsize=8)
    ax.set_title(f"{ADULT}: age density from a negative survey")
    fig.tight_layout()
    return DemoFigure(
        fig,
        "The red curve is computed from the grey reports alone and should "
        "follow the blue bars of true ages. The reports themselves (grey) "
        "look nothing like the ages: they avoid each person's true age. The "
        "blue bar at 90 is real: Adult codes every age of 90 and over as 90. "
        "The next figure shows the confidence band of this reconstruction, on "
        "its cumulative distribution.",
        pd.DataFrame(
            {
                "age": centres,
                "clean": true_hist,
                "reports": report_hist,
                "reconstructed": recon,
            }
        ),
    )


def _miss_text(band):
    """Where the band misses the clean shares, as runs of whole ages."""
    inside = (band["lower"] <= band["clean"]) & (band["clean"] <= band["upper"])
    if inside.all():
        return "Here the band contains the clean share at every age."
    missed = band[~inside]
    ages = (missed["age"] - 0.5).round().astype(int).to_numpy()
    gap = (missed["reconstructed"] - missed["clean"]).abs().max()
    breaks = np.flatnonzero(np.diff(ages) > 1)
    starts = ages[np.r_[0, breaks + 1]]
    ends = ages[np.r_[breaks, ages.size - 1]]
    runs = ", ".join(f"{a}" if a == b else f"{a}-{b}" for a, b in zip(starts, ends))
    return (
        f"Here the band misses the clean share at {ages.size} of the "
        f"{len(band)} ages ({runs}, by at most {100 * gap:.1f} percentage "
        "points): a long run of misses is not chance but a bias of the "
        "reconstruction, which the band does not include."
    )


def _cdf_figure(plt, band, smoothing_years):
    fig, (top, bottom) = plt.subplots(
        2,
        1,
        figsize=(6.5, 4.8),
        sharex=True,
        gridspec_kw={"height_ratios": [2, 1]},
    )
    x = band["age"]
    label = "95% pointwise intervals (bias-corrected)"
    top.fill_between(
        x, band["lower"], band["upper"], color="C3", alpha=0.3, lw=0, label=label
    )
    top.plot(x, band["reconstructed"], color="C3", lw=1.5, label="reconstructed")
    top.plot(x, band["clean"], "k.", ms=3, label="true ages (clean)")
    top.set_ylabel("share at or below")
    top.set_ylim(0, 1.02)
    top.legend(fontsize=8, loc="lower right")
    top.set_title(f"{ADULT}: age distribution from a negative survey")
    bottom.axhline(0.0, color="k", lw=0.6, ls="--")
    bottom.fill_between(
        x,
        band["lower"] - band["clean"],
        band["upper"] - band["clean"],
        color="C3",
        alpha=0.3,
        lw=0,
    )
    bottom.plot(x, band["reconstructed"] - band["clean"], color="C3", lw=1.5)
    bottom.set_ylabel("reconstructed\n− clean")
    bottom.set_xlabel("age (years); the clean share at or below a is drawn at a + 0.5")
    bottom.set_xlim(*_BOUNDS)
    fig.tight_layout()
    return DemoFigure(
        fig,
        "The red curve is the cumulative distribution of the reconstructed "
        "density above with its smoothing bias removed to first order (the fit "
        "rerun on the reports its own law predicts measures that bias); the "
        "black points are the clean shares of people at or below each age, and "
        "the lower panel shows the difference. The shaded band holds pointwise "
        "95% confidence intervals of the true distribution computed from the "
        "reports alone (the delta method of the corrected fit), joined over "
        "every smoothing width the held-out likelihood cannot tell apart from "
        f"the chosen one ({smoothing_years:.2g} years, Gaussian standard "
        "deviation), so the chance in that choice is included; the bias left "
        f"after the correction is not. {_miss_text(band)}",
        band,
    )


def run(context):
    """Perturb Adult ``age`` by RVNS, reconstruct its density, compare statistics."""
    age = context.adult["age"].to_numpy(dtype=float)
    rng = context.random_state
    perturber = RVNSPerturber(d=_D, k=_K, bounds=_BOUNDS, random_state=rng)
    reports = perturber.fit_transform(age[:, None])
    est = RVNSDensityEstimator(d=_D, bounds=_BOUNDS, n_points=_N_CELLS).fit(reports)
    smoothing_years = float(est.smoothing_width_) * (_BOUNDS[1] - _BOUNDS[0]) / _N_CELLS
    delta = 1.0
    eps = perturber.epsilon(delta)
    privacy = f"d={_D:g}, k={_K}; ε={eps:.1f} at δ={delta:g}"

    sample = est.sample(age.size, random_state=rng)
    grid = np.linspace(*_BOUNDS, 731)
    clean = six_indicators(age, grid)
    private = six_indicators(sample, grid)
    # 95% intervals.  The mean's comes from the reports' mean (unbiased: it
    # covers the true mean, centred on its own estimate); the median's and
    # the CDF band's from the delta method of the bias-corrected fit (centred
    # on the corrected estimate).  The estimator has none for the others.
    intervals = {
        "mean": interval_text(
            interval_frame_or_none(est, "mean", X=reports), point=private["mean"]
        ),
        "median": interval_text(
            interval_frame_or_none(est, "quantile", [0.5], X=reports),
            point=private["median"],
        ),
    }
    rows = [
        DemoRow(
            family="negative_survey",
            dataset=ADULT,
            task=f"{name} of age (from the reconstructed density)",
            privacy=privacy,
            private=f"{private[name]:.2f}",
            clean=f"{clean[name]:.2f}",
            error=f"{private[name] - clean[name]:+.2f}",
            unit=_UNITS[name],
            interval=intervals.get(name, ""),
        )
        for name in ("mean", "std", "median", "mode", "skewness")
    ]
    # The adversary's best guess of each age from its two reports.
    sub = slice(0, 5000)
    guess = rvns_adversary_inference(reports[sub], _D, _BOUNDS)
    rmse = privacy_distance(age[sub], guess) / np.sqrt(guess.size)
    rows.append(
        DemoRow(
            family="negative_survey",
            dataset=ADULT,
            task="adversary's maximum-likelihood guess of each person's age: "
            "RMSE (first 5,000 people)",
            privacy=privacy,
            private=f"{rmse:.1f}",
            clean="0.0",
            error=f"{rmse:+.1f}",
            unit="years (higher is more private)",
        )
    )
    text = (
        f"Each of the {age.size:,} Adult respondents reports {_K} ages drawn "
        f"away from a band of {_D:g} years around the true age, for ages "
        f"within the bounds {_BOUNDS[0]:g}-{_BOUNDS[1]:g} declared in advance "
        f"(reports may reach {_D:g} years beyond them, so that the guarantee "
        "holds at the bounds too). The collector reconstructs the age density "
        "from the reports (maximum likelihood through the mechanism's exact "
        "law, by EM with a smoothing step whose width is chosen by held-out "
        "likelihood) and computes statistics from a sample of it. An "
        f"adversary who sees one person's reports and guesses that person's "
        f"age is {rmse:.0f} years off on average (RMSE)."
        "\n\n"
        "Intervals: the mean's comes from the reports' mean, an unbiased "
        "estimate of the true mean with its own centre, so it need not "
        "contain 'private'. The median's and the band in the second figure "
        "come from the delta method of the reconstruction with its smoothing "
        "bias removed to first order; they are centred on the corrected "
        "estimate (named after the interval when it differs from 'private') "
        "and aim at the true distribution, joined over the smoothing widths "
        "the data cannot tell apart (see the figure). The standard deviation, "
        "mode and "
        "skewness have none."
    )
    figures = {}
    plt = pyplot()
    if plt is not None:
        figures["adult_age_density"] = _density_figure(plt, est, reports, age)
        band = _cdf_band(est, reports, age)
        if band is not None:
            figures["adult_age_cdf"] = _cdf_figure(plt, band, smoothing_years)
    return DemoSection(
        family="negative_survey",
        rows=rows,
        figures=figures,
        text=text,
        title=f"reporting values away from the truth, {ADULT}",
        lead="Real-value negative survey (RVNS): each person reports values that "
        "their true value is not near; the collector reconstructs the density.",
        glossary={
            "d": "half-width of the band around the true value that reports "
            "avoid, in the column's unit (years)",
            "k": "number of values each person reports",
            "ε at δ": "privacy loss (as in ε-DP) for telling apart two values "
            "δ apart; smaller is more private",
        },
    )
