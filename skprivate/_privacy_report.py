"""``privacy_report``: the privacy guarantee of a fitted estimator, column by column."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from .base import PrivatizerMixin

__all__ = ["privacy_report"]

_COLUMNS = [
    "column",
    "mechanism",
    "notion",
    "epsilon",
    "delta",
    "coverage",
    "leakage",
    "bounds",
    "bounds_from_data",
    "floating_point_safe",
    "note",
]


def _per_column(value: Any, n: int, default: Any = np.nan) -> list:
    if value is None:
        return [default] * n
    if np.ndim(value) == 0:
        return [value] * n
    values = list(value)
    if len(values) != n:
        return [default] * n
    return values


def _column_names(privatizer: Any, columns: Any) -> list[str]:
    n = int(getattr(privatizer, "n_features_in_", 0) or 0)
    names = getattr(privatizer, "feature_names_in_", None)
    if names is not None:
        return [str(c) for c in names]
    if columns is not None:
        cols = list(np.atleast_1d(columns))
        if len(cols) == n or n == 0:
            return [str(c) for c in cols]
    return [f"x{i}" for i in range(n)]


def _rows_of_privatizer(privatizer: Any, columns: Any) -> list[dict]:
    summary = privatizer.privacy_summary()
    names = _column_names(privatizer, columns)
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
            }
        )
    return rows


def _collect(estimator: Any, columns: Any = None) -> list[dict]:
    best = getattr(estimator, "best_estimator_", None)
    if best is not None:
        return _collect(best, columns)
    if hasattr(estimator, "transformers_"):  # ColumnTransformer
        rows = []
        for _, transformer, cols in estimator.transformers_:
            if transformer in ("drop", "passthrough"):
                continue
            if not isinstance(cols, str) and np.ndim(cols) == 1:
                cols = list(cols)
                names = getattr(estimator, "feature_names_in_", None)
                if names is not None and cols and isinstance(cols[0], int | np.integer):
                    cols = [names[c] for c in cols]
                if cols and isinstance(cols[0], bool | np.bool_):
                    cols = [c for c, keep in zip(names, cols, strict=True) if keep]
            rows += _collect(transformer, cols)
        return rows
    if hasattr(estimator, "steps"):  # Pipeline
        rows = []
        for _, step in estimator.steps:
            if step is None or step == "passthrough":
                continue
            rows += _collect(step, columns)
            columns = None  # later steps see transformed columns
        return rows
    if isinstance(estimator, PrivatizerMixin):
        return _rows_of_privatizer(estimator, columns)
    privatizer = getattr(estimator, "privatizer_", None)
    if privatizer is not None:
        return _collect(privatizer, columns)
    return []


def privacy_report(estimator: Any) -> pd.DataFrame:
    """The privacy guarantee of a fitted estimator, one row per privatized column.

    Reads the ``privacy_summary()`` of every fitted privatizer found in
    ``estimator``: a privatizer itself, the steps of a
    :class:`~sklearn.pipeline.Pipeline`, the transformers of a
    :class:`~sklearn.compose.ColumnTransformer` (with their columns), the
    ``privatizer_`` of a learner fitted with ``privatizer=``, or the
    ``best_estimator_`` of a fitted grid search.

    Parameters
    ----------
    estimator : estimator
        A fitted privatizer, pipeline, column transformer, learner or
        search.

    Returns
    -------
    report : pandas.DataFrame
        Columns ``column``, ``mechanism``, ``notion``, ``epsilon``,
        ``delta``, ``coverage``, ``leakage``, ``bounds``,
        ``bounds_from_data``, ``floating_point_safe`` and ``note``.  The
        last row, ``total``, is the guarantee of one record over all the
        columns by sequential composition (sum of the epsilons and of the
        deltas) when every column has an epsilon; otherwise its epsilon is
        NaN and ``note`` says why (coverage notions, such as interval or
        subset privacy, do not compose this way).  Each release of the
        same record spends the total again.

    Raises
    ------
    ValueError
        If ``estimator`` holds no fitted privatizer.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.compose import ColumnTransformer
    >>> from skprivate import LaplaceLDP, SquareWaveLDP, privacy_report
    >>> X = np.column_stack([np.linspace(18, 90, 20), np.linspace(0, 1, 20)])
    >>> ct = ColumnTransformer(
    ...     [
    ...         ("age", LaplaceLDP(epsilon=1, bounds=(18, 90)), [0]),
    ...         ("share", SquareWaveLDP(epsilon=2, bounds=(0, 1)), [1]),
    ...     ]
    ... ).fit(X)
    >>> report = privacy_report(ct)
    >>> report[["column", "mechanism", "epsilon"]]
      column      mechanism  epsilon
    0      0     LaplaceLDP      1.0
    1      1  SquareWaveLDP      2.0
    2  total                     3.0
    """
    rows = _collect(estimator)
    if not rows:
        raise ValueError(
            "estimator holds no fitted privatizer: expected a fitted privatizer, "
            "Pipeline, ColumnTransformer, learner with privatizer_ or search with "
            f"best_estimator_; got {type(estimator).__name__}."
        )
    report = pd.DataFrame(rows).reindex(columns=_COLUMNS)
    for col in ("epsilon", "delta"):
        report[col] = report[col].astype(float)
    eps = report["epsilon"].to_numpy()
    if np.all(np.isfinite(eps)):
        total = {
            "epsilon": float(eps.sum()),
            "delta": float(report["delta"].fillna(0.0).sum()),
            "note": "sequential composition over the columns of one record",
        }
    else:
        total = {
            "epsilon": np.nan,
            "delta": np.nan,
            "note": "no composed epsilon: some columns have a coverage notion "
            "(interval or subset privacy) without an epsilon",
        }
    total.update(column="total", mechanism="", notion="")
    report = pd.concat([report, pd.DataFrame([total])], ignore_index=True)
    return report
