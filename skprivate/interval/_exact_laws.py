"""What :func:`skprivate.audit` can check exactly of an interval mechanism.

Interval privacy promises coverage, not a likelihood ratio.  Its anchors
are drawn from a continuous law in floating point (no grid), and the
released interval ``(lower, upper]`` always contains the value.  Hence for
two values ``u < v`` inside the anchors' range, the releases whose upper
end lies in ``[u, v)`` have positive probability under ``u`` (an anchor
falls in ``[u, v)``) and probability 0 under ``v``: the likelihood ratio
is infinite, ``epsilon = inf``, for every anchor law.  The audit says so
with such a pair (the 1/3 and 2/3 quantiles of the first anchor's law);
values released exactly (``exact_cells``, ``acceptable_range``) are the
same conclusion at a point.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from .._audit import InfiniteLoss

__all__ = ["interval_exact_law"]


def interval_exact_law(model: Any, j: int) -> InfiniteLoss:
    """Infinite loss of column ``j``, with a pair of values and an output."""
    dist = model._anchor_distribution(j)
    u, v = (float(t) for t in dist.ppf(np.array([1.0 / 3.0, 2.0 / 3.0])))
    offsets = model._offsets() if hasattr(model, "_offsets") else None
    if offsets is not None:
        shift = model._standardization(j)[1] * float(offsets[0])
        u, v = u + shift, v + shift
    output = f"an interval (lower, upper] with {u:.6g} <= upper < {v:.6g}"
    reason = (
        "interval release: the interval always contains the value, so an output "
        "excluding the second value (probability 0 for it, positive for the "
        "first) makes the likelihood ratio infinite; the notion is coverage, "
        "not epsilon"
    )
    return InfiniteLoss((u, v), output, reason)
