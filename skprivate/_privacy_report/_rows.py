"""Report rows of one privatizer: its guarantee per column, scaled by repeats."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np

from .._audit import audited_columns, read_from_data
from ..subset._mechanism import _BaseSubsetPrivatizer
from ._inspect import _COVERAGE_REASON, _join, _per_column


def _rows_of_privatizer(privatizer: Any, names: list[str]) -> list[dict]:
    """The rows of one fitted privatizer.

    Built in steps, each filling its own report columns from the summary:
    the guarantee, then the exact disclosure of coverage notions, then
    reproducibility.  A new report column gets its own step here.
    """
    summary = privatizer.privacy_summary()
    rows = _guarantee_rows(privatizer, summary, names)
    _add_exact_disclosure(rows, summary)
    _add_data_dependent_settings(rows, summary)
    _add_unknown_disclosure(rows, summary)
    _add_categories_from_data(rows, summary)
    _add_audit(rows, privatizer, summary)
    # seeded noise is for simulation, not for release
    seeded = getattr(privatizer, "_is_seeded", None)
    for row in rows:
        row["reproducible"] = bool(seeded()) if callable(seeded) else np.nan
    return rows


def _add_categories_from_data(rows: list[dict], summary: dict) -> None:
    """Flag the rows whose published categories were read from the data.

    With ``categories="auto"`` the categories (in ``categories_`` and the
    output column names) are the distinct values of the fitted data, a
    value held by a single respondent included: they leave outside the
    mechanism's guarantee, and the note says so.  NaN where the privatizer
    has no categories.
    """
    if "categories_from_data" not in summary:
        return
    flag = bool(summary["categories_from_data"])
    for row in rows:
        row["categories_from_data"] = flag
        if flag:
            row["note"] = _join(
                row.get("note") or "",
                "categories read from the data (categories='auto'): their "
                "names, published with the release, include every value "
                "present, one held by a single respondent too",
            )


def _add_data_dependent_settings(rows: list[dict], summary: dict) -> None:
    """Bounds or categories read from the data leave raw values exactly.

    ``bounds=None`` publishes the column's raw minimum and maximum (in
    ``bounds_``, the summary, and on a grid sampler every released value,
    whose grid starts at the lower bound); ``categories="auto"`` publishes
    every value present, one held by a single respondent too.  No epsilon
    covers them: the row gets ``epsilon = inf`` and an exact disclosure.
    """
    read = read_from_data(summary)
    if not read:
        return
    for row in rows:
        _mark_exact(
            row,
            f"values leave exactly: the {read} read from the data are "
            "published (raw values of the records); no guarantee for those "
            "records",
        )


_UNKNOWN_REASON = (
    "values leave exactly: handle_unknown='ignore' reports a value outside the "
    "categories as the all-zero block (coverage 0), which no known value "
    "produces"
)


def _add_unknown_disclosure(rows: list[dict], summary: dict) -> None:
    """A value outside the categories that leaves as a sign of its own.

    With ``handle_unknown="ignore"`` a subset privatizer reports an unknown
    value as the all-zero block (coverage 0, below any ``min_coverage``),
    which no known value produces: whether a value is among the categories
    leaves exactly.  The row gets ``epsilon = inf``.
    """
    if summary.get("unknown_disclosed") is not True:
        return
    for row in rows:
        _mark_exact(row, _UNKNOWN_REASON)


def _mark_exact(row: dict, reason: str) -> None:
    """Give ``row`` an exact disclosure, ``epsilon = inf`` and ``reason`` first."""
    row["epsilon"] = np.inf
    row["exact_disclosure"] = True
    row.pop("_nan_reason", None)
    # epsilon is now inf: drop the "no epsilon" of a coverage row's note
    kept = [p for p in (row.get("note") or "").split("; ") if p != "no epsilon"]
    row["note"] = _join(reason, *kept)


def _add_exact_disclosure(rows: list[dict], summary: dict) -> None:
    """Flag the rows whose design releases some values exactly.

    The rule: a column leaves exactly as soon as its design reports any
    value as it is (an interval design's ``acceptable_range`` or
    ``exact_cells``: the summary's ``exact_disclosure``), however small the
    share of such values.  A guarantee is a statement about every record,
    and a record whose value falls there is released raw, without
    deniability; the note gives the expected share under the reference
    law.  Such a row has ``epsilon = inf``.  A finite epsilon excludes an
    exact disclosure; a summary that says nothing leaves the flag NaN.
    """
    for row in rows:
        reference_share = row.pop("_exact_share", np.nan)
        if "exact_disclosure" in summary:
            row["exact_disclosure"] = bool(summary["exact_disclosure"])
        elif np.isfinite(row.get("epsilon", np.nan)):
            row["exact_disclosure"] = False
        if row.get("exact_disclosure") is not True:
            continue
        expected = (
            ""
            if _missing(reference_share)
            else f" (expected: {reference_share:.0%} under the reference law)"
        )
        _mark_exact(
            row,
            "values leave exactly: the design reports the values in its "
            f"acceptable_range or exact cells as they are{expected}; no "
            "guarantee for those records",
        )


def _add_audit(rows: list[dict], privatizer: Any, summary: dict) -> None:
    """Fill ``audited_epsilon`` and ``audited_delta`` from the exact output law.

    The figures are :func:`skprivate.audit`'s, from the law the sampler
    implements.  For a pure-epsilon claim, ``audited_epsilon`` is the exact
    worst-case loss and ``audited_delta`` is 0.  For an ``(epsilon, delta)``
    claim the audit computes the exact delta at the claimed epsilon:
    ``audited_epsilon`` is that epsilon and ``audited_delta`` the exact
    delta.  For coverage notions the audited loss is shown as computed
    (often ``inf``: an interval reveals that the value lies in it) beside a
    NaN claimed epsilon; a law that cannot be audited exactly (a
    floating-point sampler) leaves both NaN and says so in the note.
    """
    if not callable(getattr(privatizer, "_exact_law", None)):
        return
    try:
        audited = audited_columns(privatizer, summary)
    except NotImplementedError:
        return
    if len(audited) != len(rows):
        return
    for row, found in zip(rows, audited, strict=True):
        if not found.get("exact"):
            row["note"] = _join(row.get("note"), f"audit: {found.get('method')}")
            continue
        claimed_delta = found.get("claimed_delta")
        if found.get("audited_delta") is not None:
            row["audited_epsilon"] = found["claimed_epsilon"]
            row["audited_delta"] = found["audited_delta"]
        else:
            row["audited_epsilon"] = found["audited_epsilon"]
            row["audited_delta"] = 0.0 if claimed_delta in (None, 0.0) else np.nan


def _missing(value: Any) -> bool:
    return value is None or (isinstance(value, float) and np.isnan(value))


def _guarantee_rows(privatizer: Any, summary: dict, names: list[str]) -> list[dict]:
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
        if "epsilon_every_input" in summary:
            # the guarantee at every input of the bounds: a claim made only
            # away from them (RVNS's paper placement) is not the column's
            every = _per_column(summary["epsilon_every_input"], n)
            eps = [max(float(a), float(b)) for a, b in zip(eps, every, strict=True)]
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
                    if lows[j] is None or highs[j] is None
                    else (float(lows[j]), float(highs[j])),
                    "bounds_from_data": from_data,
                    "floating_point_safe": safe,
                    "note": note,
                }
            )
        return rows
    coverage = _per_column(summary.get("coverage"), n)
    leakage = _per_column(summary.get("leakage"), n)
    reference = _per_column(summary.get("coverage_reference"), n, None)
    share = _per_column(summary.get("exact_share"), n)
    for j, name in enumerate(names):
        row = {
            "column": name,
            "mechanism": mechanism,
            "notion": notion,
            "coverage": coverage[j],
            "leakage": leakage[j],
            "note": "coverage as in the mechanism's paper; no epsilon",
            "_nan_reason": _COVERAGE_REASON,
            "_exact_share": np.nan if share[j] is None else share[j],
        }
        if reference[j] is not None:
            row["coverage_reference"] = reference[j]
            row["note"] = _join(
                row["note"],
                f"coverage assumes the reference law {reference[j]} "
                "(coverage_reference); fit warns when the fitted data are "
                "covered far less",
            )
        rows.append(row)
    return rows


def _static_rows(privatizer: Any, label: str, reads_data: bool = True) -> list[dict]:
    """One row per unfitted privatizer, read from its ``epsilon`` parameter.

    ``reads_data=False`` for a privatizer that only describes reports
    released elsewhere (an estimator's ``oracle=`` or ``design=``): its
    undeclared categories are then those of the reports, not of raw data.
    """
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
    try:  # designs that report values exactly say so before fit
        summary = privatizer.privacy_summary()
    except Exception:
        summary = {}
    _add_exact_disclosure([row], summary)
    # what a candidate would read from the data, or report of an unknown
    # value, leaves exactly once fitted, as the fitted rows say
    read = privatizer._laws_read_from_data()
    if read and reads_data:
        _mark_exact(
            row,
            f"values leave exactly: the {' and '.join(read)} would be read from "
            "the data and published (raw values of the records); no guarantee "
            "for those records",
        )
    # a described release reports an unknown value as the all-zero block too
    if params.get("handle_unknown") == "ignore" and isinstance(
        privatizer, _BaseSubsetPrivatizer
    ):
        _mark_exact(row, _UNKNOWN_REASON)
    return [row]


def _scale(rows: list[dict], factor: Callable[[dict], Any], reason: str) -> list:
    """Multiply the budget of each row by its number of releases per record."""
    kept = []
    for row in rows:
        k = factor(row)
        if k == 0:
            continue
        if k is None:
            for key in ("epsilon", "delta", "audited_epsilon", "audited_delta"):
                if key in row:
                    row[key] = np.nan
            row["_nan_reason"] = f"an unknown number of releases ({reason})"
            row["note"] = _join(
                row.get("note"),
                f"released an unknown number of times per record: {reason}",
            )
        elif k != 1:
            for key in ("epsilon", "delta", "audited_epsilon", "audited_delta"):
                if row.get(key) is not None:
                    row[key] = row[key] * k
            row["note"] = _join(
                row.get("note"), f"privatized {k} times per record: {reason}"
            )
        kept.append(row)
    return kept
