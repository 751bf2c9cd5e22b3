"""Report rows of one privatizer: its guarantee per column, scaled by repeats."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from ._inspect import _COVERAGE_REASON, _join, _per_column


def _rows_of_privatizer(privatizer: Any, names: list[str]) -> list[dict]:
    rows = _guarantee_rows(privatizer, names)
    # seeded noise is for simulation, not for release
    seeded = getattr(privatizer, "_is_seeded", None)
    for row in rows:
        row["reproducible"] = bool(seeded()) if callable(seeded) else np.nan
    return rows


def _guarantee_rows(privatizer: Any, names: list[str]) -> list[dict]:
    summary = privatizer.privacy_summary()
    n = len(names)
    mechanism = type(privatizer).__name__
    notion = summary.get("notion", "")
    low, high = summary.get("bounds", (None, None))
    lows, highs = _per_column(low, n, None), _per_column(high, n, None)
    from_data = summary.get("bounds_from_data", np.nan)
    safe = summary.get("floating_point_safe", np.nan)
    rows = []
    if "columns" in summary:  # subset privacy: one entry per column
        for name, entry in zip(names, summary["columns"], strict=False):
            leak = entry.get("leakage")
            rows.append(
                {
                    "column": name,
                    "mechanism": mechanism,
                    "notion": notion,
                    "coverage": entry.get("min_coverage"),
                    "leakage": leak,
                    "note": "min_coverage: lower bound of the coverage of the "
                    "released subset; no epsilon",
                    "_nan_reason": _COVERAGE_REASON,
                }
            )
        return rows
    if "epsilon_per_feature" in summary:
        eps = _per_column(summary["epsilon_per_feature"], n)
        delta = _per_column(summary.get("delta_per_feature", 0.0), n)
        note = summary.get("condition", "")
        for j, name in enumerate(names):
            rows.append(
                {
                    "column": name,
                    "mechanism": mechanism,
                    "notion": notion,
                    "epsilon": float(eps[j]),
                    "delta": float(delta[j]),
                    "bounds": None
                    if lows[j] is None
                    else (float(lows[j]), float(highs[j])),
                    "bounds_from_data": from_data,
                    "floating_point_safe": safe,
                    "note": note,
                }
            )
        return rows
    coverage = _per_column(summary.get("coverage"), n)
    leakage = _per_column(summary.get("leakage"), n)
    for j, name in enumerate(names):
        rows.append(
            {
                "column": name,
                "mechanism": mechanism,
                "notion": notion,
                "coverage": coverage[j],
                "leakage": leakage[j],
                "note": "coverage as in the mechanism's paper; no epsilon",
                "_nan_reason": _COVERAGE_REASON,
            }
        )
    return rows


def _static_rows(privatizer: Any, label: str) -> list[dict]:
    """One row per unfitted privatizer, read from its ``epsilon`` parameter."""
    params = privatizer.get_params(deep=False)
    eps = params.get("epsilon")
    row = {"column": label, "mechanism": type(privatizer).__name__, "notion": ""}
    if isinstance(eps, numbers.Real) and not isinstance(eps, bool):
        delta = params.get("delta", 0.0)
        row.update(
            epsilon=float(eps),
            delta=float(delta) if isinstance(delta, numbers.Real) else np.nan,
            note="read from the epsilon parameter (the guarantee of one record "
            "over all the columns it privatizes)",
        )
    else:
        row.update(
            note="no epsilon parameter: its guarantee needs the fitted privatizer",
            _nan_reason="some privatizers state their guarantee only once fitted",
        )
    return [row]


def _scale(rows: list[dict], factor: Callable[[dict], Any], reason: str) -> list:
    """Multiply the budget of each row by its number of releases per record."""
    kept = []
    for row in rows:
        k = factor(row)
        if k == 0:
            continue
        if k is None:
            row["epsilon"] = np.nan
            row["delta"] = np.nan
            row["_nan_reason"] = f"an unknown number of releases ({reason})"
            row["note"] = _join(
                row.get("note"),
                f"released an unknown number of times per record: {reason}",
            )
        elif k != 1:
            for key in ("epsilon", "delta"):
                if row.get(key) is not None:
                    row[key] = row[key] * k
            row["note"] = _join(
                row.get("note"), f"privatized {k} times per record: {reason}"
            )
        kept.append(row)
    return kept
