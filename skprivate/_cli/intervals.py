"""Confidence intervals next to the estimates of ``python -m skprivate estimate``."""

from __future__ import annotations

import re
import warnings
from typing import Any

import numpy as np
import pandas as pd

from .._uncertainty import conf_int_rows

__all__ = ["add_intervals", "interval_legend"]

_QUANTILE = re.compile(r"^q(\d\d)$")
_SHARE = re.compile(r"^P\((.*)\)$")


def _interval(est: Any, kind: str, points: Any, values: Any, level: float):
    """``(lower, upper, method, centre, target)`` rows of one ``conf_int`` call.

    When the estimator has no interval for ``kind``, every row gives the
    reason in place of the method.
    """
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return conf_int_rows(est, kind, points, level, X=values)


def add_intervals(
    table: pd.DataFrame, est: Any, estimator_name: str, values: Any, level: float
) -> pd.DataFrame:
    """Add ``centre``, ``lower``, ``upper``, ``level``, ``method``, ``covers``.

    ``centre`` is the estimate the interval is built around, which differs
    from ``value`` when the interval method has its own estimator (the
    unbiased moment mean of Square Wave reports, the bias-corrected
    deconvolution quantiles, the raw subset shares).

    ``table`` holds the rows ``statistic, value`` of one column: ``mean``,
    ``std`` and quantiles ``qNN`` of a distribution, ``P(category)`` of the
    subset estimator, or the released statistics of the integral ones.
    ``covers`` is what the interval covers, as its ``conf_int`` states it
    (the population quantity, or a smoothed version of it named as such).
    Rows with no interval (the standard deviation, statistics without a
    method) keep NaN bounds, no level, and the reason in ``method``.
    """
    bounds: dict[int, tuple] = {}
    stats = list(table["statistic"])
    if estimator_name in ("subset", "frequency"):
        rows = [i for i, s in enumerate(stats) if _SHARE.match(str(s))]
        found = _interval(est, "pmf", None, None, level)
        if len(found) == 1 < len(rows):
            # no interval for the shares: one row gives the reason for all
            found = found * len(rows)
        for i, got in zip(rows, found, strict=False):
            bounds[i] = got
    elif estimator_name == "integral":
        for kind in ("mean", "count", "sum"):
            rows = [i for i, s in enumerate(stats) if s == kind]
            if rows:
                for i, got in zip(rows, _interval(est, kind, None, None, level)):
                    bounds[i] = got
    else:
        if "mean" in stats:
            bounds[stats.index("mean")] = _interval(est, "mean", None, values, level)[0]
        quantiles = [
            (i, int(m.group(1)) / 100)
            for i, s in enumerate(stats)
            if (m := _QUANTILE.match(str(s)))
        ]
        if quantiles:
            found = _interval(est, "quantile", [q for _, q in quantiles], values, level)
            for (i, _), got in zip(quantiles, found, strict=True):
                bounds[i] = got
    out = table.copy()
    none = (np.nan, np.nan, "", np.nan, "")
    out["centre"] = [bounds.get(i, none)[3] for i in range(len(out))]
    out["lower"] = [bounds.get(i, none)[0] for i in range(len(out))]
    out["upper"] = [bounds.get(i, none)[1] for i in range(len(out))]
    # a level only where there is an interval: a row whose method could not
    # give one keeps the reason and no level (as the survey's status does)
    out["level"] = [
        level if i in bounds and np.isfinite(bounds[i][:2]).any() else np.nan
        for i in range(len(out))
    ]
    out["method"] = [bounds.get(i, none)[2] for i in range(len(out))]
    out["covers"] = [bounds.get(i, none)[4] for i in range(len(out))]
    return out


def interval_legend(table: pd.DataFrame) -> list[str]:
    """Lines telling a reader of the terminal what each interval covers.

    One line per distinct ``(method, covers)`` pair of the rows that have an
    interval, naming the statistics it applies to, and one line on
    ``centre``.
    """
    if "covers" not in table.columns:
        return []
    has = table["level"].notna()
    if not has.any():
        return []
    level = float(table.loc[has, "level"].iloc[0])
    lines = [
        f"lower, upper: {100 * level:g}% confidence interval of each statistic, "
        "from the released data alone; centre: the estimate it is built around"
    ]
    groups: dict[tuple[str, str], list[str]] = {}
    for _, row in table.loc[has].iterrows():
        key = (str(row["method"]), str(row["covers"]))
        name = str(row["statistic"])
        if "column" in table.columns:
            name = f"{row['column']} {name}"
        groups.setdefault(key, []).append(name)
    for (method, covers), names in groups.items():
        lines.append(f"  {', '.join(names)} ({method}): covers {covers}")
    return lines
