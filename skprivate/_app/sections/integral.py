"""Demo section: integrally private describe() of the life-expectancy table."""

from __future__ import annotations

import numpy as np

from .._cli.demo import DemoContext, DemoRow, DemoSection
from ._dp import absolute_relative_error, laplace_describe
from ._statistics import IntegralPrivateStatistics

COLUMNS = ["infant_mortality", "life_expectancy", "fertility"]
N_RESAMPLES = 1000
MIN_CLUSTER_SIZE = 20
EPSILON = 2.0


def run(context: DemoContext) -> DemoSection:
    """Release describe() of three Gapminder columns with integral privacy."""
    df = context.life_expectancy[COLUMNS]
    est = IntegralPrivateStatistics(
        n_resamples=N_RESAMPLES,
        min_cluster_size=MIN_CLUSTER_SIZE,
        random_state=context.random_state,
    ).fit(df)
    private = est.describe()
    freq = est.frequencies()
    clean = df.describe().rename(index={"50%": "median"})
    clean.loc["var"] = df.var()
    clean.loc["iqr"] = df.quantile(0.75) - df.quantile(0.25)
    clean.loc["sum"] = df.sum()
    clean = clean.loc[private.index]
    bounds = {c: (float(df[c].min()), float(df[c].max())) for c in COLUMNS}
    dp = laplace_describe(df, EPSILON, bounds=bounds, random_state=context.random_state)
    are_ip = absolute_relative_error(clean, private)
    are_dp = absolute_relative_error(clean, dp.loc[private.index])

    privacy = (
        f"integral privacy: t={N_RESAMPLES}, k=2, y={MIN_CLUSTER_SIZE}, "
        "2 decimals; generators={freq}"
    )
    rows = []
    for column in COLUMNS:
        for statistic in ("mean", "median", "max"):
            value = private.loc[statistic, column]
            rows.append(
                DemoRow(
                    family="integral",
                    dataset="life_expectancy",
                    task=f"{statistic} of {column}",
                    privacy=privacy.format(freq=int(freq.loc[statistic, column])),
                    private="NA" if np.isnan(value) else f"{value:.2f}",
                    clean=f"{clean.loc[statistic, column]:.2f}",
                    error=(
                        "no IP answer"
                        if np.isnan(value)
                        else f"ARE {are_ip.loc[statistic, column]:.4f}"
                    ),
                )
            )
    n_na = int(private.isna().sum().sum())
    text = (
        f"Integrally private describe() of {', '.join(COLUMNS)} "
        f"({len(df):,} country-years, missing values excluded per column) with "
        f"{N_RESAMPLES} bootstrap resamples, microaggregation into clusters of "
        f"{MIN_CLUSTER_SIZE} and rounding to 2 decimals. {n_na} of {private.size} "
        "answers have no integrally private value (NA). Mean ARE over the released "
        f"answers: IP {np.nanmean(are_ip.to_numpy()):.4f}; Laplace baseline at "
        f"epsilon={EPSILON} per statistic (bounds = data range, as in the paper): "
        f"{np.nanmean(are_dp.to_numpy()):.4f}.\n\nIP:\n{private.round(2)}\n\n"
        f"clean:\n{clean.round(2)}\n\ngenerators:\n{freq}"
    )
    figures = {}
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:  # pragma: no cover - matplotlib is optional
        plt = None
    if plt is not None:
        fig, ax = plt.subplots(figsize=(7, 3.5))
        stats = list(private.index)
        pos = np.arange(len(stats))
        ip_mean = are_ip.mean(axis=1).to_numpy()
        dp_mean = are_dp.mean(axis=1).to_numpy()
        ax.bar(
            pos - 0.2, np.nan_to_num(ip_mean, nan=0.0), 0.4, label="integral privacy"
        )
        ax.bar(pos + 0.2, dp_mean, 0.4, label=f"Laplace, epsilon={EPSILON}")
        ax.set_xticks(pos, stats)
        ax.set_yscale("symlog", linthresh=1e-4)
        ax.set_ylabel("ARE (mean over columns)")
        ax.set_title("Gapminder describe(): IP vs DP (NA plotted as 0)")
        ax.legend()
        fig.tight_layout()
        figures["are"] = fig
    return DemoSection(family="integral", rows=rows, figures=figures, text=text)
