"""Demo section: integrally private describe() of the life-expectancy table."""

from __future__ import annotations

import numpy as np
import pandas as pd

from skprivate.integral import (
    IntegralPrivateStatistics,
    absolute_relative_error,
    laplace_describe,
)

from ..demo import LIFE, DemoFigure, DemoRow, DemoSection, DemoTable, pyplot
from ..intervals import interval_frame_or_none, interval_text

COLUMNS = ["infant_mortality", "life_expectancy", "fertility"]
UNITS = {
    "infant_mortality": "deaths per 1,000 births",
    "life_expectancy": "years",
    "fertility": "children per woman",
}
N_RESAMPLES = 1000
MIN_FREQUENCY = 2
MIN_CLUSTER_SIZE = 20
EPSILON = 2.0
DELTA = 1e-6  # of the baseline's propose-test-release IQR (laplace_describe's)
# Public domains of the baseline, declared before looking at the data (the
# paper takes each column's min and max, which publishes them).
BOUNDS = {
    "infant_mortality": (0.0, 300.0),
    "life_expectancy": (0.0, 100.0),
    "fertility": (0.0, 10.0),
}


def _are_figure(plt, are: pd.DataFrame):
    """Bars of ARE per statistic; NA drawn as a hatched 'NA' bar, 0 as a marker."""
    stats = list(dict.fromkeys(are["statistic"]))
    positive = are["are"][are["are"] > 0]
    low = 10 ** np.floor(np.log10(positive.min() / 2)) if len(positive) else 1e-4
    high = 10 ** np.ceil(np.log10(positive.max() * 2)) if len(positive) else 1.0
    fig, axes = plt.subplots(
        len(COLUMNS), 1, figsize=(8, 2.4 * len(COLUMNS)), sharex=True
    )
    pos = np.arange(len(stats))
    methods = [
        ("integral privacy", "C0", -0.2),
        (f"Laplace DP, ε={EPSILON:g}", "C1", 0.2),
    ]
    for ax, column in zip(axes, COLUMNS):
        for method, color, shift in methods:
            part = are[(are["column"] == column) & (are["method"] == method)]
            values = part.set_index("statistic")["are"].reindex(stats).to_numpy()
            ok = np.isfinite(values) & (values > 0)
            ax.bar(pos[ok] + shift, values[ok], 0.4, color=color, label=method)
            for x in pos[np.isnan(values)] + shift:
                ax.bar(
                    x,
                    high,
                    0.4,
                    bottom=low,
                    fill=False,
                    hatch="//",
                    edgecolor=color,
                    linewidth=0.8,
                )
                ax.text(
                    x,
                    low * 3,
                    "NA",
                    ha="center",
                    va="bottom",
                    fontsize=8,
                    color=color,
                    fontweight="bold",
                    rotation=90,
                )
            for x in pos[values == 0] + shift:
                ax.plot(x, low * 1.3, marker="v", color=color, ms=6)
                ax.text(x, low * 2, "0", ha="center", fontsize=8, color=color)
        ax.set_yscale("log")
        ax.set_ylim(low, high)
        ax.set_ylabel("ARE (log)")
        ax.set_title(f"{column} ({UNITS[column]})", fontsize=9, loc="left")
    handles, labels = axes[0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="upper right", ncol=2, fontsize=8, frameon=False)
    axes[-1].set_xticks(pos, stats)
    axes[-1].set_xlabel("statistic")
    fig.suptitle(f"{LIFE}: error of each released statistic", fontsize=10, x=0.3)
    fig.tight_layout(rect=(0, 0, 1, 0.97))
    return fig


def _bounds_text() -> str:
    return ", ".join(
        f"{column} {low:g}-{high:g} {UNITS[column]}"
        for column, (low, high) in BOUNDS.items()
    )


def _baseline_na_text(dp: pd.DataFrame, df: pd.DataFrame) -> str:
    """Why the Laplace baseline's table has NA cells (its IQR test)."""
    missing = [
        f"{statistic} of {column}"
        for statistic in dp.index
        for column in COLUMNS
        if np.isnan(dp.loc[statistic, column])
    ]
    threshold = np.log(1 / DELTA) / EPSILON
    why = (
        "The baseline releases the IQR by propose-test-release (Dwork & Lei, "
        "2009): the IQR is placed in a cell of a geometric grid "
        "(ratio 1 + 1/ln n), and the cell's centre is released only if a "
        "noisy count of the records one would have to change to move the IQR "
        f"out of its cell exceeds ln(1/δ)/ε = {threshold:.1f} "
        f"(δ = 1e{np.log10(DELTA):.0f}); "
        "otherwise the answer is NA. An IQR close to the edge of its cell is "
        "refused whatever its size."
    )
    if not missing:
        return why + " Here every IQR was released."
    near = []
    for statistic, column in (m.split(" of ") for m in missing):
        if statistic != "iqr":
            continue
        x = df[column].dropna().to_numpy(float)
        iqr = float(np.quantile(x, 0.75) - np.quantile(x, 0.25))
        base = 1.0 + 1.0 / np.log(x.size)
        low = base ** np.floor(np.log(iqr) / np.log(base))
        if iqr / low > np.sqrt(base):  # nearer the upper edge
            edge, side = low * base, "below"
        else:
            edge, side = low, "above"
        near.append(
            f"{column}'s IQR, {iqr:.4f}, is {abs(iqr - edge):.4f} {side} the edge "
            f"{edge:.4f} of its cell, so changing a few records moves it across"
        )
    return (
        why
        + f" Here the NA answer{'s are' if len(missing) > 1 else ' is'} the "
        + ", ".join(missing)
        + (f" ({'; '.join(near)})" if near else "")
        + "."
    )


def run(context) -> DemoSection:
    """Release describe() of three Gapminder columns with integral privacy."""
    df = context.life_expectancy[COLUMNS]
    est = IntegralPrivateStatistics(
        n_resamples=N_RESAMPLES,
        min_cluster_size=MIN_CLUSTER_SIZE,
        min_frequency=MIN_FREQUENCY,
        random_state=context.random_state,
    ).fit(df)
    private = est.describe()
    freq = est.frequencies()
    clean = df.describe().rename(index={"50%": "median"})
    clean.loc["var"] = df.var()
    clean.loc["iqr"] = df.quantile(0.75) - df.quantile(0.25)
    clean.loc["sum"] = df.sum()
    clean = clean.loc[private.index]
    dp = laplace_describe(
        df, EPSILON, bounds=BOUNDS, delta=DELTA, random_state=context.random_state
    )
    dp = dp.loc[private.index]
    are_ip = absolute_relative_error(clean, private)
    are_dp = absolute_relative_error(clean, dp)

    privacy = (
        f"t={N_RESAMPLES}, k={MIN_FREQUENCY}, y={MIN_CLUSTER_SIZE}, generators={{}}"
    )
    rows = []
    for column in COLUMNS:
        for statistic in ("mean", "median", "max"):
            value = private.loc[statistic, column]
            rows.append(
                DemoRow(
                    family="integral",
                    dataset=LIFE,
                    task=f"{statistic} of {column}",
                    privacy=privacy.format(int(freq.loc[statistic, column])),
                    private="NA" if np.isnan(value) else f"{value:.2f}",
                    clean=f"{clean.loc[statistic, column]:.2f}",
                    error=(
                        "NA (no private answer)"
                        if np.isnan(value)
                        else f"ARE {are_ip.loc[statistic, column]:.4f}"
                    ),
                    unit=UNITS[column],
                    interval=(
                        interval_text(interval_frame_or_none(est, "mean", [column]))
                        if statistic == "mean"
                        else ""
                    ),
                )
            )
    n_na = int(private.isna().sum().sum())
    text = (
        f"describe() of {', '.join(COLUMNS)} ({len(df):,} country-years, missing "
        "values left out per column). Integral privacy releases a statistic only "
        f"if it is the answer of many resampled datasets: {N_RESAMPLES} bootstrap "
        f"resamples, each microaggregated into clusters of at least "
        f"{MIN_CLUSTER_SIZE} records and rounded to 2 decimals; a value is "
        f"released when more than {MIN_FREQUENCY} resamples give it and no "
        "record is in all of them. Otherwise the answer is NA: "
        f"{n_na} of {private.size} answers here. Mean ARE over the released "
        f"answers: integral privacy {np.nanmean(are_ip.to_numpy()):.4f}; a "
        f"Laplace ε-DP baseline at ε={EPSILON:g} per statistic, over bounds "
        f"declared in advance ({_bounds_text()}; the paper uses the data's "
        f"min and max, which publishes them): "
        f"{np.nanmean(are_dp.to_numpy()):.4f}. The baseline's NA cells are "
        "explained under its table."
    )
    long = []
    for method, frame in [
        ("integral privacy", are_ip),
        (f"Laplace DP, ε={EPSILON:g}", are_dp),
    ]:
        for statistic in frame.index:
            for column in COLUMNS:
                long.append(
                    {
                        "statistic": statistic,
                        "column": column,
                        "method": method,
                        "are": float(frame.loc[statistic, column]),
                    }
                )
    are = pd.DataFrame(long)
    figures = {}
    plt = pyplot()
    if plt is not None:
        figures["life_expectancy_are"] = DemoFigure(
            _are_figure(plt, are),
            "Lower is better (log scale). A hatched bar labelled NA means the "
            "method released no answer for that statistic (integral privacy "
            "found no value shared by enough resamples, e.g. for sum; the "
            "baseline's IQR test refused, as explained under its table); it is not "
            "an error of 0. A triangle labelled 0 marks an exact answer.",
            are,
        )
    tables = [
        DemoTable(
            "Integrally private describe() (NA: no answer released)",
            private.round(2),
        ),
        DemoTable("Clean describe() of the same columns", clean.round(2)),
        DemoTable(
            "Generators: resamples that gave the released value",
            freq,
            "A released value is the answer of this many of the "
            f"{N_RESAMPLES} resamples; 0 means nothing was released.",
        ),
        DemoTable(
            f"Laplace DP baseline, ε={EPSILON:g} per statistic (NA: the IQR "
            "test refused to answer)",
            dp.round(2),
            _baseline_na_text(dp, df),
        ),
    ]
    return DemoSection(
        family="integral",
        rows=rows,
        figures=figures,
        text=text,
        title=f"statistics that many datasets could have produced, {LIFE}",
        lead="Integral privacy: a statistic is released only when many disjoint "
        "subsets of the data give the same value, so it does not pin down anyone.",
        glossary={
            "t": "number of bootstrap resamples",
            "k": "a value is a candidate when more than k resamples give it",
            "y": "minimum cluster size of the microaggregation applied to each "
            "resample",
            "generators": "number of resamples that gave the released value "
            "(0: nothing released, the answer is NA)",
        },
        tables=tables,
    )
