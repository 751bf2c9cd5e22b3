"""Demo section: interval privacy on the Gapminder life-expectancy panel."""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import train_test_split

from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalNPMLE,
    IterativeIntervalRegressor,
    average_coverage,
)

from ..demo import LIFE, DemoFigure, DemoRow, DemoSection, pyplot
from ..intervals import interval_frame_or_none, interval_text

# Public standardization fixed before collection (round figures of world life
# expectancy, not computed from the data).
_CENTRE, _SPREAD = 65.0, 10.0
_FEATURES = ["year", "infant_mortality", "fertility", "log_gdp", "log_population"]


def _design(frame):
    data = frame.dropna(subset=["infant_mortality", "fertility", "gdp", "population"])
    X = data.assign(
        log_gdp=np.log(data["gdp"]), log_population=np.log(data["population"])
    )[_FEATURES]
    return X.to_numpy(float), data["life_expectancy"].to_numpy(float)


def run(context) -> DemoSection:
    """Privatize life expectancy, estimate its distribution, regress on it."""
    seed = context.random_state
    life = context.life_expectancy
    y = life["life_expectancy"].to_numpy(float)
    rows = []

    mech = IntervalCaseI(
        scale=1.0, anchor_loc=_CENTRE, anchor_scale=_SPREAD, random_state=seed
    )
    Z = mech.fit_transform(y[:, None])
    cov = average_coverage(Z, y)  # in hindsight, with the clean ECDF
    privacy = f"Case I, coverage {cov:.0%}"
    npmle = IntervalNPMLE().fit(Z)
    for task, private, clean, ci in [
        (
            "mean life expectancy (NPMLE)",
            npmle.mean(),
            y.mean(),
            interval_frame_or_none(npmle, "mean", X=Z),
        ),
        (
            "median life expectancy (NPMLE)",
            npmle.median(),
            float(np.median(y)),
            interval_frame_or_none(npmle, "quantile", [0.5], X=Z),
        ),
    ]:
        rows.append(
            DemoRow(
                "interval",
                LIFE,
                task,
                privacy,
                f"{private:.2f}",
                f"{clean:.2f}",
                f"{private - clean:+.2f}",
                "years",
                interval_text(ci, point=private),
            )
        )

    X, target = _design(life)
    X_tr, X_te, y_tr, y_te = train_test_split(
        X, target, test_size=0.3, random_state=seed
    )
    reg_mech = IntervalCaseII(
        scale=2.0, anchor_loc=_CENTRE, anchor_scale=_SPREAD, random_state=seed
    )
    reg = IterativeIntervalRegressor(privatizer=reg_mech, max_iter=50)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg.fit(X_tr, y_tr)
    clean_r2 = LinearRegression().fit(X_tr, y_tr).score(X_te, y_te)
    private_r2 = reg.score(X_te, y_te)
    reg_cov = reg_mech.privacy_summary(y_tr)["coverage"]
    rows.append(
        DemoRow(
            "interval",
            LIFE,
            "linear regression of life expectancy: R² on a clean test set (30%)",
            f"Case II, coverage {reg_cov:.0%}",
            f"{private_r2:.3f}",
            f"{clean_r2:.3f}",
            f"{private_r2 - clean_r2:+.3f}",
            "R² (1 = perfect)",
        )
    )

    figures = {}
    plt = pyplot()
    if plt is not None:
        fig, ax = plt.subplots(figsize=(6, 3.4))
        grid = np.linspace(y.min() - 2, y.max() + 2, 400)
        ecdf = np.searchsorted(np.sort(y), grid, "right") / y.size
        ax.step(grid, ecdf, "k-", label="clean data (empirical CDF)")
        ax.step(grid, npmle.cdf(grid), "C0--", label="NPMLE from Case I half-lines")
        # Pointwise 95% likelihood-ratio intervals (Banerjee & Wellner).
        band_x = np.linspace(np.quantile(y, 0.02), np.quantile(y, 0.98), 40)
        band = interval_frame_or_none(npmle, "cdf", band_x, X=Z)
        if band is not None:
            ax.fill_between(
                band_x,
                band["lower"],
                band["upper"],
                color="C0",
                alpha=0.2,
                step="post",
                label="95% pointwise intervals (likelihood ratio)",
            )
        ax.set_xlabel("life expectancy (years)")
        ax.set_ylabel("share of country-years at or below")
        ax.set_title(f"{LIFE}: distribution recovered from half-lines")
        ax.legend(loc="upper left", fontsize=8)
        fig.tight_layout()
        figures["life_expectancy_cdf"] = DemoFigure(
            fig,
            "The dashed curve is estimated from the half-lines alone; it should "
            "follow the black clean-data curve. Gaps between them show where the "
            "random anchors were too sparse (the tails, far from 65 years). The "
            "shaded band holds the pointwise 95% confidence intervals of the "
            "NPMLE (likelihood-ratio intervals, computed from the half-lines).",
            pd.DataFrame({"x": grid, "clean": ecdf, "npmle": npmle.cdf(grid)}),
        )

    text = (
        "Each country-year's life expectancy was replaced by a random half-line "
        "'(-inf, u]' or '(u, inf)' (Case I: the respondent only says on which "
        f"side of a random anchor u the value lies; anchors centred at "
        f"{_CENTRE:g} years, spread {_SPREAD:g}, fixed in advance). The NPMLE "
        "recovers the distribution from the half-lines. For the regression, "
        "responses were privatized with Case II (two anchors, three cells) and "
        "fitted by the iterative algorithm around LinearRegression on year, "
        "infant mortality, fertility, log GDP and log population; the clean "
        "column is LinearRegression on the unprivatized responses."
    )
    return DemoSection(
        "interval",
        rows,
        figures,
        text,
        title=f"half-lines instead of values, {LIFE}",
        lead="Interval privacy: each value is replaced by a random interval "
        "containing it; private answers are computed from the intervals only.",
        glossary={
            "Case I / Case II": "one / two random anchors per person; the "
            "answer is the cell of the anchors that contains the value",
            "coverage": "chance that a fresh value from the population falls in "
            "a person's revealed interval: higher means more private",
        },
    )
