"""A warning for the subsampling intervals of the NPMLE's CDF and quantiles.

For interval data other than Case I (and levels without tabulated
likelihood-ratio quantiles) the NPMLE's CDF and quantile intervals are
subsampling intervals at the cube-root rate (:mod:`._intervals`): the law
of ``n**(1/3) (F_n(t) - F(t))`` is read from subsamples of ``b =
n**(2/3)`` rows.  The NPMLE at ``t`` is set by the rows whose anchors lie
within a window of width of order ``n**(-1/3)`` around ``t``, about
``n**(2/3)`` of them; in a subsample, about ``b**(2/3)``.  With few rows in
that window the subsample estimates are far from their limit law (they are
step functions of a handful of anchors), and the interval is too short:
the coverage benchmark (``python -m benchmarks coverage``) measured 0.90
and 0.92 for nominal 0.95 at ``n = 500`` and ``2000`` on Case II data,
whose subsamples hold about 16 and 29 rows in their windows.

The rule: the call warns (:class:`~skprivate.exceptions.CoverageWarning`)
when the subsample's window holds fewer than ``MIN_WINDOW_ROWS = 100`` rows,
``b**(2/3) < 100``, i.e. ``b < 1000`` or ``n`` below about 31,600.  The
constant is a rule of thumb (a sample of a hundred for a distribution to
be read from it), not a derived bound: the subsampling error at the cube-root
rate has no computable constant.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import CoverageWarning
from ..utils._warnings import external_stacklevel

__all__ = ["MIN_WINDOW_ROWS", "SubsamplingCheckMixin", "window_rows"]

MIN_WINDOW_ROWS = 100


def window_rows(n: int) -> float:
    """About how many rows of a subsample set the NPMLE at a point.

    The subsample size is the one of the interval, ``b = max(20,
    ceil(n**(2/3)))`` (at most ``n - 1``); the window holds ``b**(2/3)``.

    Examples
    --------
    >>> from skprivate.interval._subsampling_check import window_rows
    >>> round(window_rows(2000), 1)
    29.3
    """
    b = min(max(20, int(np.ceil(n ** (2.0 / 3.0)))), max(n - 1, 1))
    return float(b ** (2.0 / 3.0))


class SubsamplingCheckMixin:
    """Warns at ``conf_int`` where the NPMLE's subsampling interval is unreliable.

    Put before the NPMLE's intervals mixin; its ``"cdf"`` and ``"quantile"``
    intervals by subsampling are checked by the rule of the module notes,
    their values unchanged.
    """

    def _conf_int_cdf(self, request: Any) -> pd.DataFrame:
        frame = super()._conf_int_cdf(request)
        self._ci_check_subsampling(request, frame, "cdf")
        return frame

    def _conf_int_quantile(self, request: Any) -> pd.DataFrame:
        frame = super()._conf_int_quantile(request)
        self._ci_check_subsampling(request, frame, "quantile")
        return frame

    def _ci_check_subsampling(
        self, request: Any, frame: pd.DataFrame, kind: str
    ) -> None:
        method = str(frame["method"].iloc[0]) if len(frame) else ""
        if "subsampling" not in method or request.cache.get("subsampling-warned"):
            return
        n = int(np.asarray(self._ci_interval_data(request)).shape[0])
        rows = window_rows(n)
        if rows >= MIN_WINDOW_ROWS:
            return
        request.cache["subsampling-warned"] = True
        warnings.warn(
            f"{type(self).__name__}: the subsampling {kind} interval may cover "
            f"less often than its level: with {n} rows, its subsamples hold "
            f"about {rows:.0f} rows near each point (b**(2/3) for subsamples "
            f"of b rows), fewer than {MIN_WINDOW_ROWS}, too few for their "
            "estimates to follow the cube-root limit law (measured: 0.90 to "
            "0.92 for a 0.95 interval at 500 to 2,000 rows of Case II data). "
            "Case I data at level 0.90, 0.95 or 0.99 get the likelihood-ratio "
            "interval instead.",
            CoverageWarning,
            stacklevel=external_stacklevel(),
        )
