"""The anchors a respondent reads: decimals inside the support of the values.

An interval question shows its anchors with ``decimals`` decimals, and the
respondent answers relative to what they read, so the anchor the collector
stores and turns into a cell must be the number shown, not the draw behind
it.  :class:`AnchorGrid` maps each drawn anchor to the nearest number with
``decimals`` decimals strictly inside the declared support ``(low, high)``
of the values: every cell ``(q_{i-1}, q_i]`` a respondent can read then
holds values of positive length inside the support ("at most 0 minutes"
or "more than 120 minutes" is never offered when the support is
``[0, 120]``).  The map is fixed and applied to anchors drawn independently
of the answers, so the anchors stay independent of the values and the
privacy argument of the mechanism is unchanged.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from numpy.typing import ArrayLike, NDArray

__all__ = ["AnchorGrid"]

# Largest |anchor| * 10**decimals for which the number printed with
# `decimals` decimals reads back as the stored float.
_EXACT_CODES = 2**52


class AnchorGrid:
    """Numbers with ``decimals`` decimals strictly inside ``(low, high)``.

    Parameters
    ----------
    decimals : int
        Decimals shown.
    low, high : float
        The declared support of the values (infinite for an unbounded side).
    name : str
        The question, for messages.
    """

    def __init__(self, decimals: int, low: float, high: float, name: str) -> None:
        self.decimals = int(decimals)
        self.scale = 10**self.decimals
        self.name = name
        self.low, self.high = float(low), float(high)
        # integer codes k of the anchors k / 10**decimals, low < k / 10**d < high
        self.k_low = (
            math.floor(Fraction(self.low) * self.scale) + 1
            if math.isfinite(self.low)
            else -_EXACT_CODES
        )
        self.k_high = (
            math.ceil(Fraction(self.high) * self.scale) - 1
            if math.isfinite(self.high)
            else _EXACT_CODES
        )
        if self.k_low > self.k_high:
            raise ValueError(
                f"decimals={self.decimals} of question {name!r} leaves no anchor "
                "strictly inside the support of its values; show more decimals."
            )

    def snap(self, anchors: ArrayLike) -> NDArray[np.float64]:
        """Each anchor rounded to the grid, then moved inside the support."""
        q = np.asarray(anchors, dtype=float)
        k = np.rint(q * self.scale)
        if np.any(np.abs(k) >= _EXACT_CODES):
            raise ValueError(
                f"anchors of question {self.name!r} are too large to show with "
                f"decimals={self.decimals} exactly; show fewer decimals."
            )
        k = np.clip(k, self.k_low, self.k_high)
        # + 0.0 turns -0.0 into 0.0, which is not printed "-0.0"
        return k / self.scale + 0.0

    def text(self, value: float) -> str:
        """The anchor as the respondent reads it."""
        return f"{float(value) + 0.0:.{self.decimals}f}"

    def check(self, anchors: ArrayLike) -> list[float]:
        """Anchors as given to a respondent: refuse any the page would misstate.

        Each anchor must be finite, read back exactly from its text, lie
        strictly inside the support, and the anchors must be sorted.
        """
        values = [float(v) for v in np.asarray(anchors, dtype=float).ravel()]
        rules = [
            (all(math.isfinite(v) for v in values), "finite"),
            (all(a <= b for a, b in itertools.pairwise(values)), "sorted"),
            (
                all(float(self.text(v)) == v for v in values),
                f"numbers with {self.decimals} decimals, as shown",
            ),
            (
                all(self.low < v < self.high for v in values),
                "strictly inside the support of the values",
            ),
        ]
        for ok, rule in rules:
            if not ok:
                raise ValueError(
                    f"anchors of question {self.name!r} must be {rule} (draw them "
                    "with Questionnaire.draw_anchors or issue_tokens)."
                )
        return values
