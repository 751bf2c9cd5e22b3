"""What an exact audit returns: a figure, where it is attained, and how."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

__all__ = ["NoExactLaw", "WorstCase"]


@dataclass(frozen=True)
class WorstCase:
    """An exact worst case and the inputs and output that attain it.

    Attributes
    ----------
    value : float
        The privacy loss (a log ratio, possibly ``inf``) or the
        hockey-stick divergence ``delta``.
    inputs : tuple
        The two inputs ``(x, x')`` of the worst pair (the first is the
        likelier one on ``output``).
    output : object
        The output (or, for ``delta``, the set of outputs) that attains it.
    method : str
        How the figure was computed exactly.
    """

    value: float
    inputs: tuple[Any, Any] | None
    output: Any
    method: str


@dataclass(frozen=True)
class NoExactLaw:
    """Returned by a privatizer's ``_exact_law`` when no exact law exists.

    Attributes
    ----------
    reason : str
        Why the output law cannot be audited exactly (for example a
        continuous floating-point sampler).
    """

    reason: str
