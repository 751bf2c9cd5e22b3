"""Values against declared bounds, for the privatizers that refuse values outside."""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "MAX_NOISE_SCALE",
    "MIN_WIDTH",
    "bounds_text",
    "check_grid_width",
    "check_noise_scale",
    "check_values_in_bounds",
    "column_label",
]


def column_label(j: int, names: NDArray | None = None) -> str:
    """``column 'income'`` (named data) or ``column 0`` (an array)."""
    return f"column {j}" if names is None else f"column {str(names[j])!r}"


def bounds_text(low: float, high: float, declared: bool) -> str:
    """The bounds of a column as a message may show them.

    Declared bounds are public and shown; bounds read from the data at fit
    are the data's minimum and maximum, so a message names them without
    their values.
    """
    if declared:
        return f"the declared bounds [{low:g}, {high:g}]"
    return "the bounds read from the data at fit"


# Narrowest range a noise sampler accepts: its grid of up to 2**52 steps
# then has normal (not subnormal) steps, and its noise scale a normal value.
MIN_WIDTH = 2.0**-960


def check_grid_width(
    low: NDArray, high: NDArray, names: NDArray | None = None, *, declared: bool = True
) -> None:
    """Refuse a column whose range is too narrow for double precision.

    A range below :data:`MIN_WIDTH` (about ``1e-289``) has grid steps and a
    noise scale that underflow, so the sampler cannot be placed; the
    message names the column and, for declared bounds, the bounds.
    """
    width = np.asarray(high, dtype=float) - np.asarray(low, dtype=float)
    narrow = np.flatnonzero(width < MIN_WIDTH)
    if narrow.size:
        j = int(narrow[0])
        shown = bounds_text(float(low[j]), float(high[j]), declared)
        raise ValueError(
            f"bounds: {column_label(j, names)} has a range below 2**-960 "
            f"(about 1e-289) between {shown}: the noise grid and scale would "
            "underflow double precision. Rescale the column (a change of "
            "units) so that its range is wider."
        )


# Widest range over epsilon (per column) an additive noise sampler accepts:
# its noise scale is a small multiple of it, its noise is clamped within some
# 2**5 scales, so the noise and the released values stay below the largest
# double (about 2**1024).
MAX_NOISE_SCALE = 2.0**1000


def check_noise_scale(
    low: NDArray,
    high: NDArray,
    epsilon: float,
    names: NDArray | None = None,
    *,
    declared: bool = True,
) -> None:
    """Refuse a column whose range over ``epsilon`` overflows the noise.

    A range wider than :data:`MAX_NOISE_SCALE` (about ``1e301``) times the
    column's ``epsilon`` gives a noise scale whose tails, and the released
    values, overflow double precision; the message names the column and,
    for declared bounds, the bounds.
    """
    width = np.asarray(high, dtype=float) - np.asarray(low, dtype=float)
    with np.errstate(over="ignore"):
        ratio = width / float(epsilon)
    wide = np.flatnonzero(~(ratio <= MAX_NOISE_SCALE))
    if wide.size:
        j = int(wide[0])
        shown = bounds_text(float(low[j]), float(high[j]), declared)
        raise ValueError(
            f"bounds: {column_label(j, names)} has a range between {shown} "
            f"that is more than 2**1000 (about 1e301) times its epsilon of "
            f"{float(epsilon):g} per column: the noise and the released values "
            "would overflow double precision. Rescale the column (a change of "
            "units) so that its range is narrower, or give a larger epsilon."
        )


def check_values_in_bounds(
    X: NDArray,
    low: NDArray,
    high: NDArray,
    names: NDArray | None = None,
    *,
    declared: bool = True,
) -> None:
    """Raise a ValueError naming the first row and column outside the bounds.

    The message names the row (its position in ``X``), the column, the
    bounds (only when ``declared``) and how many values of that column are
    outside, never the offending value itself.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Raw values.
    low, high : ndarray of shape (n_features,)
        Bounds of each column.
    names : array-like of str, optional
        Column names (``feature_names_in_``).
    declared : bool, default=True
        Whether the bounds were declared by the user (public) rather than
        read from the data.

    Raises
    ------
    ValueError
        If a value lies outside its column's bounds.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils._bounds import check_values_in_bounds
    >>> check_values_in_bounds(np.array([[1.0], [123.0]]), np.zeros(1), np.ones(1) * 10)
    Traceback (most recent call last):
    ...
    ValueError: X column 0, row 1: value outside the declared bounds [0, 10] ...
    """
    bad = (low > X) | (high < X)
    if bad.any():
        j = int(np.flatnonzero(bad.any(axis=0))[0])
        row = int(np.flatnonzero(bad[:, j])[0])
        count = int(bad[:, j].sum())
        advice = "widen bounds" if declared else "declare bounds"
        raise ValueError(
            f"X {column_label(j, names)}, row {row}: value outside "
            f"{bounds_text(low[j], high[j], declared)} ({count} such value(s) in "
            f"that column). Clip the data or {advice}."
        )
