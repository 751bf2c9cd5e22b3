"""Confidence intervals in the demo: the text of a cell, computed safely."""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

__all__ = ["interval_frame_or_none", "interval_text"]


def interval_frame_or_none(estimator: Any, *args: Any, **kwargs: Any):
    """``estimator.conf_int(*args, **kwargs)``, or None if it has no interval."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return estimator.conf_int(*args, **kwargs)
    except (ValueError, TypeError, np.linalg.LinAlgError):
        return None


def interval_text(
    ci: pd.DataFrame | None,
    row: int = 0,
    fmt: str = ".2f",
    point: float | None = None,
) -> str:
    """``"[lower, upper]"`` of one row of a ``conf_int`` frame ('' if none).

    ``point`` is the estimate printed beside the interval.  Some intervals
    are built around an estimate of their own (a bias-corrected quantile,
    the unbiased moment mean); when that centre differs from ``point`` at
    the printed precision, the text names it (``"[66.58, 67.81] around
    67.20"``), so that a reader never takes the interval for one around the
    printed estimate.
    """
    if ci is None or len(ci) <= row:
        return ""
    lower, upper = float(ci["lower"].iloc[row]), float(ci["upper"].iloc[row])
    if not (np.isfinite(lower) and np.isfinite(upper)):
        return ""
    text = f"[{lower:{fmt}}, {upper:{fmt}}]"
    if point is not None and "estimate" in ci.columns:
        centre = float(ci["estimate"].iloc[row])
        if np.isfinite(centre) and f"{centre:{fmt}}" != f"{float(point):{fmt}}":
            text += f" around {centre:{fmt}}"
    return text
