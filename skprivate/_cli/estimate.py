"""``python -m skprivate estimate``: population estimates from privatized CSV data."""

from __future__ import annotations

import inspect
import sys
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from .io import (
    CLIError,
    check_finite,
    check_numeric,
    missing_error,
    parse_params,
    read_csv,
    select_columns,
    write_csv_atomically,
)

QUANTILES = (0.1, 0.25, 0.5, 0.75, 0.9)


@dataclass(frozen=True)
class EstimatorEntry:
    """How the command line finds the input columns and builds an estimator."""

    class_name: str
    summary: str
    columns: Callable[[pd.DataFrame, str], list[str]]
    required: tuple[str, ...] = ()


def _interval_columns(frame: pd.DataFrame, name: str) -> list[str]:
    return [f"{name}_lower", f"{name}_upper"]


def _prefixed(suffix_pattern: str) -> Callable[[pd.DataFrame, str], list[str]]:
    def find(frame: pd.DataFrame, name: str) -> list[str]:
        prefix = f"{name}{suffix_pattern}"
        return [c for c in frame.columns if str(c).startswith(prefix)]

    return find


def _same(frame: pd.DataFrame, name: str) -> list[str]:
    return [name]


ESTIMATORS: dict[str, EstimatorEntry] = {
    "interval-npmle": EstimatorEntry(
        "IntervalNPMLE",
        "nonparametric MLE of a distribution from <col>_lower/<col>_upper intervals",
        _interval_columns,
    ),
    "interval-mle": EstimatorEntry(
        "IntervalMLE",
        "normal or logistic MLE from <col>_lower/<col>_upper intervals",
        _interval_columns,
    ),
    "deconvolution-kde": EstimatorEntry(
        "DeconvolutionKernelDensity",
        "density of Laplace-noised values; needs noise_scale",
        _same,
        ("noise_scale",),
    ),
    "rvns": EstimatorEntry(
        "RVNSDensityEstimator",
        "density from RVNS samples <col>_s0, <col>_s1, ...; needs d and bounds",
        _prefixed("_s"),
        ("d", "bounds"),
    ),
    "subset": EstimatorEntry(
        "SubsetDistributionEstimator",
        "category distribution from indicators <col>=<category> (uniform design)",
        _prefixed("="),
    ),
    "integral": EstimatorEntry(
        "IntegralPrivateStatistics",
        "integrally private descriptive statistics of raw numeric columns",
        _same,
    ),
}


def _numeric_summary(estimator: Any) -> pd.DataFrame:
    rows = [("mean", estimator.mean()), ("std", estimator.std())]
    rows += [(f"q{int(q * 100):02d}", float(estimator.quantile(q))) for q in QUANTILES]
    return pd.DataFrame(rows, columns=["statistic", "value"])


def estimate(
    path: str,
    estimator_name: str,
    columns: str,
    params: list[str] | None = None,
    out: str | None = None,
    missing: str = "error",
) -> pd.DataFrame:
    """Estimate population quantities from the privatized columns of a CSV file.

    Returns a tidy frame (``column``, ``statistic``, ``value``), also written
    to ``out`` when given.  The input columns must be numeric (a
    non-numeric cell is refused with its column, row and line).  Missing
    cells (for example left by ``privatize --missing keep``) are refused
    with ``missing="error"``, the default; ``missing="drop"`` estimates each
    column from its complete rows, reports the count on stderr and adds a
    ``rows dropped (missing)`` row to the table.
    """
    if missing not in ("error", "drop"):
        raise CLIError(f"--missing must be error or drop; got {missing!r}")
    import skprivate

    entry = ESTIMATORS.get(estimator_name)
    if entry is None:
        raise CLIError(
            f"unknown estimator {estimator_name!r}; choose from {', '.join(ESTIMATORS)}"
        )
    frame = read_csv(path)
    names = [c.strip() for c in (columns or "").split(",") if c.strip()]
    if not names:
        raise CLIError("--columns is required (comma-separated column names)")
    cls = getattr(skprivate, entry.class_name)
    parsed = parse_params(params)
    accepted = [p for p in inspect.signature(cls).parameters if p != "self"]
    unknown = set(parsed) - set(accepted)
    if unknown:
        raise CLIError(
            f"{entry.class_name} has no parameter(s) {', '.join(sorted(unknown))}; "
            f"it takes {', '.join(accepted)}"
        )
    absent = [p for p in entry.required if p not in parsed]
    if absent:
        raise CLIError(
            f"estimator {estimator_name!r} needs --param {' --param '.join(absent)} "
            "(the public description of the mechanism)"
        )
    parts = []
    dropped: dict[str, int] = {}
    for name in names:
        cols = entry.columns(frame, name)
        if not cols or any(c not in frame.columns for c in cols):
            raise CLIError(
                f"estimator {estimator_name!r} expects column(s) "
                f"{', '.join(cols) if cols else name + '...'} in {path}"
            )
        if estimator_name == "integral":
            select_columns(frame, name, path)
        needed_by = f"the {estimator_name} estimator"
        data = check_numeric(frame, cols, path, needed_by)
        if estimator_name == "integral":
            check_finite(data, path, needed_by)
        if missing == "error":
            error = missing_error(
                data, path, "use --missing drop to estimate from the other rows"
            )
            if error is not None:
                raise error
        else:
            rows = data.isna().any(axis=1).to_numpy()
            if rows.all():
                raise CLIError(f"every row has a missing value in {', '.join(cols)}")
            data = data[~rows]
            dropped[name] = int(rows.sum())
            print(
                f"dropped {int(rows.sum())} of {len(rows)} rows with a missing value "
                f"in {', '.join(cols)} (--missing drop)",
                file=sys.stderr,
            )
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                est = cls(**parsed).fit(data.to_numpy())
        except (ValueError, TypeError) as exc:
            raise CLIError(str(exc).splitlines()[0]) from exc
        if estimator_name == "subset":
            cats = [c[len(name) + 1 :] for c in cols]
            dist = np.asarray(est.distribution_)[: len(cats)]
            table = pd.DataFrame(
                {"statistic": [f"P({c})" for c in cats], "value": dist}
            )
        elif estimator_name == "integral":
            table = est.results_.loc[:, ["statistic", "value"]]
        else:
            table = _numeric_summary(est)
        if name in dropped:
            extra = pd.DataFrame(
                {"statistic": ["rows dropped (missing)"], "value": [dropped[name]]}
            )
            table = pd.concat([table, extra], ignore_index=True)
        table.insert(0, "column", name)
        parts.append(table)
    result = pd.concat(parts, ignore_index=True)
    if out:
        write_csv_atomically(result, out)
    return result
