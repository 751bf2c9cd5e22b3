"""A warning for the intervals of rounded integrally private releases.

:class:`IntegralPrivateStatistics` releases each statistic rounded to
``decimals`` (a grid of step ``10**-decimals``).  When that step is
comparable to the standard error of the sample mean (or sum), the release
takes only a few values near the truth, and the coverage of the interval
``release -/+ c`` depends on where the true value lies between two grid
points.  Model the release as ``M ~ N(mu, sd**2)`` rounded to the grid,
with ``sd**2`` the variance of the interval less that of the rounding,
``step**2 / 12`` (the sampling variance plus that of the choice of the most
frequent resample; at least the sampling variance).  With the grid at the
multiples of the step and ``mu = o`` in ``[0, step)``, the interval covers
``mu`` when the release is ``k * step`` with ``|k * step - o| <= c``, i.e.
for ``k`` from ``k_lo = ceil((o - c) / step)`` to ``k_hi = floor((o + c) /
step)``, so

    coverage(o) = Phi(((k_hi + 1/2) step - o) / sd)
                  - Phi(((k_lo - 1/2) step - o) / sd)

(``0`` when ``k_hi < k_lo``).  Its average over ``o`` is close to the level
while the step is at most about two standard errors (the interval's variance
includes the rounding's, and a normal law stands in for the uniform rounding
error), but at a given truth it can be far from it: at a step of 1.1
standard errors, a 0.95 interval covers between 0.90 and 0.97 of the time,
and at 2.2 standard errors, between 0.89 and 1.  A released standard
deviation that rounds to 0 gives an interval of no width, which the call
also warns about.

The rule: the call warns (:class:`~skprivate.exceptions.CoverageWarning`)
when the smallest or the largest coverage over the truth's place between two
grid points lies more than ``COVERAGE_TOLERANCE = 0.02`` from the level (the
band the project's coverage benchmark asks of a 0.95 interval).  The values
are unchanged.  The check reads the released standard deviation and count
only, as the interval does.
"""

from __future__ import annotations

import itertools
import warnings
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import special

from ..exceptions import CoverageWarning
from ..utils._warnings import external_stacklevel

__all__ = [
    "COVERAGE_TOLERANCE",
    "RoundingCheckMixin",
    "coverage_range",
    "rounded_coverage",
]

COVERAGE_TOLERANCE = 0.02


def _covered(sd: float, step: float, o: NDArray, k_lo: NDArray, k_hi: NDArray):
    """``P(k_lo <= round(M / step) <= k_hi)`` for ``M ~ N(o, sd**2)``."""
    inside = special.ndtr(((k_hi + 0.5) * step - o) / sd) - special.ndtr(
        ((k_lo - 0.5) * step - o) / sd
    )
    return np.where(k_hi >= k_lo, inside, 0.0)


def rounded_coverage(
    sd: float, step: float, half_width: float, offsets: ArrayLike
) -> NDArray[np.float64]:
    """Coverage of ``release -/+ half_width`` at each place of the truth.

    The release is ``N(mu, sd**2)`` rounded to the multiples of ``step``;
    ``offsets`` are places of the truth ``mu``.

    Parameters
    ----------
    sd : float
        Standard deviation of the statistic before rounding (``> 0``).
    step : float
        Rounding step (``> 0``).
    half_width : float
        Half-width ``c`` of the interval (``>= 0``).
    offsets : array-like
        Places of the truth.

    Returns
    -------
    ndarray
        The probability that the interval covers the truth at each place.

    Examples
    --------
    >>> from skprivate.integral._rounding_check import rounded_coverage
    >>> # a truth on the grid, an interval that holds only the grid value
    >>> # at the truth: covered when the statistic rounds to it
    >>> float(rounded_coverage(1.0, 1.0, 0.5, [0.0])[0].round(4))
    0.3829
    """
    o = np.asarray(offsets)
    k_lo = np.ceil((o - half_width) / step)
    k_hi = np.floor((o + half_width) / step)
    return _covered(sd, step, o, k_lo, k_hi)


def _pieces(step: float, half_width: float) -> list[tuple[float, float, int, int]]:
    """``(a, b, k_lo, k_hi)``: the places ``[a, b]`` of the truth in one step
    over which the same grid values ``k_lo..k_hi`` lie within ``half_width``.

    With ``c = K step + r`` (``0 <= r < step``) and the truth at ``o`` in
    ``[0, step]``, ``k_lo`` is ``-K`` up to ``o = r`` and ``1 - K`` after,
    ``k_hi`` is ``K`` below ``o = step - r`` and ``K + 1`` from there.
    """
    K = np.floor(half_width / step)
    r = half_width - K * step
    cuts = sorted({0.0, step, *(x for x in (r, step - r) if 0.0 < x < step)})
    pieces = []
    for a, b in itertools.pairwise(cuts):
        middle = (a + b) / 2
        k_lo = -K + (middle > r)
        k_hi = K + (middle > step - r)
        pieces.append((a, b, int(k_lo), int(k_hi)))
    return pieces


def _integral_of_ndtr(u: float, a: float, b: float, sd: float) -> float:
    """``integral_a^b Phi((u - o) / sd) do`` in closed form."""

    def G(x: float) -> float:  # an antiderivative of Phi
        return x * special.ndtr(x) + np.exp(-0.5 * x * x) / np.sqrt(2 * np.pi)

    return sd * (G((u - a) / sd) - G((u - b) / sd))


def coverage_range(sd: float, step: float, half_width: float) -> tuple[float, ...]:
    """Lowest, average and highest coverage over the truth's place in a step.

    The coverage of :func:`rounded_coverage` as the truth moves over one
    step of the grid: on each piece of that step where the same grid values
    lie within ``half_width`` (:func:`_pieces`) it is ``Phi(A - o / sd) -
    Phi(B - o / sd)``, which has no interior minimum and its maximum where
    ``o`` is the centre of those values; its lowest and highest values are
    therefore among the pieces' ends (as limits from inside the piece), the
    cuts themselves (where a grid value lies exactly at distance ``c``) and
    those centres, and its average over the step is a sum of closed-form
    integrals of ``Phi``.

    Parameters
    ----------
    sd : float
        Standard deviation of the statistic before rounding (``> 0``).
    step : float
        Rounding step (``> 0``).
    half_width : float
        Half-width ``c`` of the interval (``>= 0``).

    Returns
    -------
    low, average, high : float

    Examples
    --------
    >>> from skprivate.integral._rounding_check import coverage_range
    >>> low, average, high = coverage_range(0.0894, 0.1, 0.184)
    >>> round(low, 3), round(average, 3), round(high, 3)
    (0.901, 0.95, 0.975)
    """
    pieces = _pieces(step, half_width)
    # at the cuts themselves a grid value may lie exactly at distance c
    cuts = [a for a, *_ in pieces] + [step]
    values, total = list(rounded_coverage(sd, step, half_width, cuts)), 0.0
    for a, b, k_lo, k_hi in pieces:
        places = [a, b]
        centre = (k_lo + k_hi) * step / 2
        if a < centre < b:
            places.append(centre)
        values.extend(_covered(sd, step, np.array(places), k_lo, k_hi))
        if k_hi >= k_lo:
            total += _integral_of_ndtr((k_hi + 0.5) * step, a, b, sd)
            total -= _integral_of_ndtr((k_lo - 0.5) * step, a, b, sd)
    return float(min(values)), float(total / step), float(max(values))


def _rounding_message(
    name: str,
    kind: str,
    point: Any,
    decimals: int,
    spread: float,
    low: float,
    average: float,
    high: float,
    level: float,
) -> str:
    step = 10.0 ** (-decimals)
    return (
        f"{name}: the {kind} interval of column {point!r} covers between "
        f"{low:.2f} and {high:.2f} of the time instead of {level:g}, depending "
        f"on where the true {kind} lies between two values of the release's "
        f"grid: the release is rounded to a step of {step:g} "
        f"(decimals={decimals}), {step / spread:.2g} times the standard error "
        "of the release before rounding, so it takes only a few values near "
        f"the truth ({average:.2f} on average over that place). More decimals "
        "give a finer grid."
    )


class RoundingCheckMixin:
    """Warns at ``conf_int`` where rounding makes coverage depend on the truth.

    Put before :class:`IntegralIntervalsMixin`; its ``"mean"`` and
    ``"sum"`` intervals are checked by the rule of the module notes, their
    values unchanged.
    """

    def _conf_int_mean(self, request: Any) -> pd.DataFrame:
        frame = super()._conf_int_mean(request)
        self._ci_check_rounding(request, frame, "mean")
        return frame

    def _conf_int_sum(self, request: Any) -> pd.DataFrame:
        frame = super()._conf_int_sum(request)
        self._ci_check_rounding(request, frame, "sum")
        return frame

    def _ci_check_rounding(self, request: Any, frame: pd.DataFrame, kind: str) -> None:
        if self.decimals is None or request.cache.get("rounding-warned"):
            return
        decimals = int(self.decimals)
        step = 10.0 ** (-decimals)
        table = self.results_.pivot(index="column", columns="statistic", values="value")
        name = type(self).__name__
        messages = []
        columns = ("point", "lower", "upper", "se", "level")
        for point, lower, upper, se, level in zip(*(frame[c] for c in columns)):
            got = table.loc[point]
            std = float(got.get("std", np.nan))
            half_width = (upper - lower) / 2.0
            if not (np.isfinite(half_width) and std >= 0):
                continue
            if std == 0:
                messages.append(
                    f"{name}: the {kind} interval of column {point!r} has no "
                    "width: the released standard deviation is 0 at "
                    f"decimals={decimals} (rounded to a step of {step:g}), so "
                    "the interval holds the release only and almost never "
                    "covers the true value. More decimals give a finer grid."
                )
                continue
            count = float(got["count"])
            sd = std / np.sqrt(count) if kind == "mean" else std * np.sqrt(count)
            # the release's error before rounding: sampling plus the choice
            # of the most frequent resample (the interval's variance less
            # that of the rounding), at least the sampling error
            spread = np.sqrt(max(se**2 - step**2 / 12.0, sd**2))
            low, average, high = coverage_range(spread, step, half_width)
            if low < level - COVERAGE_TOLERANCE or high > level + COVERAGE_TOLERANCE:
                messages.append(
                    _rounding_message(
                        name,
                        kind,
                        point,
                        decimals,
                        spread,
                        low,
                        average,
                        high,
                        level,
                    )
                )
        if messages:
            request.cache["rounding-warned"] = True
            more = len(messages) - 1
            if more:
                messages[0] += (
                    f" The same holds for {more} more column{'s' * (more > 1)}."
                )
            warnings.warn(
                messages[0], CoverageWarning, stacklevel=external_stacklevel()
            )
