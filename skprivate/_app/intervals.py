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


def interval_text(ci: pd.DataFrame | None, row: int = 0, fmt: str = ".2f") -> str:
    """``"[lower, upper]"`` of one row of a ``conf_int`` frame ('' if none)."""
    if ci is None or len(ci) <= row:
        return ""
    lower, upper = float(ci["lower"].iloc[row]), float(ci["upper"].iloc[row])
    if not (np.isfinite(lower) and np.isfinite(upper)):
        return ""
    return f"[{lower:{fmt}}, {upper:{fmt}}]"
