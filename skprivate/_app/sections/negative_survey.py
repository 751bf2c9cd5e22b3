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
_UNITS = {
    "mean": "years",
    "std": "years",
    "median": "years",
    "mode": "years",
    "skewness": "none (shape)",
}


def run(context):
    """Perturb Adult ``age`` by RVNS, reconstruct its density, compare statistics."""
    age = context.adult["age"].to_numpy(dtype=float)
    rng = context.random_state
    perturber = RVNSPerturber(d=_D, k=_K, bounds=_BOUNDS, random_state=rng)
    reports = perturber.fit_transform(age[:, None])
    est = RVNSDensityEstimator(
        d=_D, bounds=_BOUNDS, n_points=146, boundary="reflect"
    ).fit(reports)
    delta = 1.0
    eps = perturber.epsilon(delta)
    privacy = f"d={_D:g}, k={_K}; ε={eps:.1f} at δ={delta:g}"

    sample = est.sample(age.size, random_state=rng)
    grid = np.linspace(*_BOUNDS, 731)
    clean = six_indicators(age, grid)
    private = six_indicators(sample, grid)
    # 95% intervals (linearized EMS: they cover the smoothed reconstruction).
    intervals = {
        "mean": interval_text(interval_frame_or_none(est, "mean", X=reports)),
        "median": interval_text(
            interval_frame_or_none(est, "quantile", [0.5], X=reports)
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
        "holds at the bounds too). The "
        "collector reconstructs the age density from the reports (the paper's "
        "KL + L2 problem solved by L-BFGS, then a reflected KDE) and computes "
        "statistics from a sample of it. An adversary who sees one person's "
        f"reports and guesses that person's age is {rmse:.0f} years off on "
        "average (RMSE)."
    )
    figures = {}
    plt = pyplot()
    if plt is not None:
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
        figures["adult_age_density"] = DemoFigure(
            fig,
            "The red curve is computed from the grey reports alone and should "
            "follow the blue bars of true ages. The reports themselves (grey) "
            "look nothing like the ages: they avoid each person's true age. The "
            "blue bar at 90 is real: Adult codes every age of 90 and over as 90.",
            pd.DataFrame(
                {
                    "age": centres,
                    "clean": true_hist,
                    "reports": report_hist,
                    "reconstructed": recon,
                }
            ),
        )
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
