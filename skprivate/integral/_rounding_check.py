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

import warnings
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import special

from ..exceptions import CoverageWarning
from ..utils._warnings import external_stacklevel

__all__ = ["COVERAGE_TOLERANCE", "RoundingCheckMixin", "rounded_coverage"]

COVERAGE_TOLERANCE = 0.02

# offsets of the truth between two grid points at which coverage is computed
_OFFSETS = 2001


def rounded_coverage(
    sd: float, step: float, half_width: float, offsets: NDArray | None = None
) -> NDArray[np.float64]:
    """Coverage of ``release -/+ half_width`` for each place of the truth.

    The release is ``N(mu, sd**2)`` rounded to the multiples of ``step``;
    ``offsets`` are the truth's places ``mu`` in ``[0, step]`` (default: a
    grid of 2,001 places, plus both sides of each place where the number
    of covering grid values changes).

    Parameters
    ----------
    sd : float
        Standard deviation of the statistic before rounding (``> 0``).
    step : float
        Rounding step (``> 0``).
    half_width : float
        Half-width ``c`` of the interval (``>= 0``).
    offsets : array-like or None, default=None
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
    if offsets is None:
        o = np.linspace(0.0, step, _OFFSETS)
        r = np.mod(half_width, step)
        jumps = np.array([r, step - r])
        o = np.concatenate([o, jumps * (1 - 1e-9), jumps * (1 + 1e-9)])
        o = o[(o >= 0) & (o <= step)]
    else:
        o = np.asarray(offsets, dtype=float)
    k_lo = np.ceil((o - half_width) / step)
    k_hi = np.floor((o + half_width) / step)
    inside = special.ndtr(((k_hi + 0.5) * step - o) / sd) - special.ndtr(
        ((k_lo - 0.5) * step - o) / sd
    )
    return np.where(k_hi >= k_lo, inside, 0.0)


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
        decimals = getattr(self, "decimals", None)
        if decimals is None or request.cache.get("rounding-warned"):
            return
        step = 10.0 ** (-int(decimals))
        table = self.results_.pivot(index="column", columns="statistic", values="value")
        for row in frame.itertuples(index=False):
            got = table.loc[row.point]
            count, std = float(got.get("count", np.nan)), float(got.get("std", np.nan))
            half_width = (float(row.upper) - float(row.lower)) / 2.0
            if not (np.isfinite(half_width) and count >= 1 and std >= 0):
                continue
            if std == 0:
                request.cache["rounding-warned"] = True
                warnings.warn(
                    f"{type(self).__name__}: the {kind} interval of column "
                    f"{row.point!r} has no width: the released standard "
                    f"deviation is 0 at decimals={int(decimals)} (rounded to a "
                    f"step of {step:g}), so the interval holds the release only "
                    "and almost never covers the true value. More decimals "
                    "give a finer grid.",
                    CoverageWarning,
                    stacklevel=external_stacklevel(),
                )
                return
            sd = std / np.sqrt(count) if kind == "mean" else std * np.sqrt(count)
            # the release's error before rounding: sampling plus the choice
            # of the most frequent resample (the interval's variance less
            # that of the rounding)
            spread = np.sqrt(max(float(row.se) ** 2 - step**2 / 12.0, sd**2))
            coverage = rounded_coverage(spread, step, half_width)
            low, high = float(coverage.min()), float(coverage.max())
            places = np.linspace(0.0, step, _OFFSETS)[:-1]
            average = float(rounded_coverage(spread, step, half_width, places).mean())
            level = float(row.level)
            if level - COVERAGE_TOLERANCE <= low and high <= level + COVERAGE_TOLERANCE:
                continue
            request.cache["rounding-warned"] = True
            warnings.warn(
                f"{type(self).__name__}: the {kind} interval of column "
                f"{row.point!r} covers between {low:.2f} and {high:.2f} of the "
                f"time instead of {level:g}, depending on where the true {kind} "
                f"lies between two values of the release's grid: the release "
                f"is rounded to a step of {step:g} (decimals={int(decimals)}), "
                f"{step / spread:.2g} times the standard error of the "
                f"release before rounding, so it takes only a few values near "
                f"the truth ({average:.2f} on average over that place). More "
                "decimals give a finer grid.",
                CoverageWarning,
                stacklevel=external_stacklevel(),
            )
            return
