"""What :func:`skprivate.audit` checks exactly of the negative survey.

The negative survey claims a *windowed* guarantee
(:meth:`RVNSPerturber.epsilon`): the ratio, between two inputs, of the
probabilities of windows ``[y - delta, y + delta]`` (cut to the report
range) centred on a possible report ``y`` of the less likely input -- for
``k`` reports, of ``k``-tuples of windows centred on a ``k``-tuple of
reports it can produce together.  Pointwise the loss is infinite (every band
covers the value's own grid point, which other values report), so the audit
tests the windowed claim instead, at the ``delta`` of ``privacy_summary()``
(``d / 20``).

On its grid (``secure=True``) the sampler's law is a ratio of integer counts
(:mod:`._window_audit`): window probabilities are exact fractions, and the
worst ratio over input pairs and window tuples is found from the structure
of the law.  The paper's placement claims its epsilon only for inputs at
least :meth:`RVNSPerturber.boundary_margin` from both bounds, so only those
inputs are audited; closer inputs reach ``ln(2 + 2 delta / r)`` per report,
which ``privacy_summary`` reports as ``epsilon_every_input``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

import numpy as np

from .._audit import NoExactLaw, WorstCase
from ._window_audit import GridWindowLaw

__all__ = ["WindowedLaw", "rvns_exact_law"]


@dataclass(frozen=True)
class WindowedLaw:
    """The grid law of one column, audited through windows of half-width delta.

    Parameters
    ----------
    grid : GridWindowLaw
        Relative grid indices, band, window half-width, reports.
    origin : int
        Grid index of the first grid point of the bounds (``ja``).
    step : float
        Grid step ``h``.
    delta : float
        The adversary's resolution audited (the one of the claim).
    placement : str
        ``"boundary_safe"`` or ``"paper"``, for the method text.
    """

    grid: GridWindowLaw
    origin: int
    step: float
    delta: float
    placement: str

    def _value(self, index: int) -> float:
        return (self.origin + index) * self.step

    def worst_epsilon(self) -> WorstCase:
        """Largest log ratio of two inputs' probabilities of a window tuple."""
        g = self.grid
        found = g.worst()
        ratio = found.ratio
        value = math.log(ratio.numerator) - math.log(ratio.denominator)
        x, x2 = found.inputs
        centres = ", ".join(f"{self._value(c):.10g}" for c in found.centres)
        noun = "window" if g.k == 1 else f"{g.k} windows"
        output = f"{noun} of half-width {self.delta:.6g} around y = {centres}"
        lo, hi = g.inputs
        scope = (
            "every input"
            if (lo, hi) == (0, g.K)
            else "inputs at least boundary_margin from the bounds"
        )
        method = (
            f"windowed grid law ({self.placement}, k={g.k}, delta={self.delta:.6g}: "
            f"band D={g.D} and window m={g.m} steps of {self.step:.6g}): exact "
            "window probabilities (integer counts), the worst pair and window "
            f"tuple over {scope} searched from the law's piecewise structure"
        )
        return WorstCase(value, (self._value(x), self._value(x2)), output, method)

    def worst_delta(self, epsilon: float) -> None:
        """The windowed claim has no delta."""
        return None


def rvns_exact_law(model: Any, j: int) -> WindowedLaw | NoExactLaw:
    """Windowed grid law of column ``j`` of a fitted :class:`RVNSPerturber`."""
    if model._grid is None:
        return NoExactLaw(
            "secure=False draws floating-point reports whose rounding depends on "
            "the band, hence on the value: no exact law, not floating-point safe"
        )
    h, ja, jb, D = (np.asarray(v)[j] for v in model._grid)
    step = float(h)
    delta = float(model.privacy_summary()["delta"])
    m = math.floor(delta / step)
    K = int(jb - ja)
    safe = model.placement == "boundary_safe"
    x_lo = x_hi = None
    if not safe:
        margin = float(np.broadcast_to(model.boundary_margin(delta), model.d_.shape)[j])
        low, high = float(model.bounds_[0][j]), float(model.bounds_[1][j])
        x_lo = min(max(int(np.rint((low + margin) / step)) - int(ja), 0), K)
        x_hi = min(max(int(np.rint((high - margin) / step)) - int(ja), 0), K)
        if x_lo > x_hi:
            return NoExactLaw(
                "no input lies boundary_margin from both bounds: the paper "
                "placement's claim covers no value of this column"
            )
    grid = GridWindowLaw(K, int(D), m, int(model.k), safe, x_lo, x_hi)
    return WindowedLaw(grid, int(ja), step, delta, model.placement)
