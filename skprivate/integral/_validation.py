"""Argument checks shared by the integral family's functions."""

from __future__ import annotations

from typing import Any

import numpy as np

__all__ = ["check_pair"]


def check_pair(bounds: Any, name: str) -> tuple[float, float]:
    """``bounds`` as finite floats ``(lower, upper)`` with ``lower < upper``."""
    try:
        lo, hi = bounds
        lo, hi = float(lo), float(hi)
    except (TypeError, ValueError):
        raise ValueError(
            f"{name} must be a pair of numbers (lower, upper); got {bounds!r}."
        ) from None
    if not np.isfinite([lo, hi]).all() or lo >= hi:
        raise ValueError(f"{name} must be finite with lower < upper; got {bounds!r}.")
    return lo, hi
