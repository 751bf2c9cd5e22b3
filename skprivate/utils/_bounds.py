"""Values against declared bounds, for the privatizers that refuse values outside."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["check_values_in_bounds"]


def check_values_in_bounds(
    X: NDArray, low: NDArray, high: NDArray, names: NDArray | None = None
) -> None:
    """Raise a ValueError naming the first column with a value outside its bounds."""
    bad = (low > X) | (high < X)
    if bad.any():
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        row = int(np.flatnonzero(bad[:, j])[0])
        name = names[j] if names is not None else f"column {j}"
        raise ValueError(
            f"X has values outside the declared bounds [{low[j]:g}, {high[j]:g}] "
            f"in {name} (first at row {row}: {X[row, j]:g}; {int(bad[:, j].sum())} "
            "such values). Clip the data or widen bounds."
        )
