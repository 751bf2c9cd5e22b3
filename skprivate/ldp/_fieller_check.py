"""A warning where a deconvolution regression's interval holds every value.

The intervals of :class:`~skprivate.DeconvolutionKernelRegressor` and
:class:`~skprivate.DeconvolutionKernelClassifier` at a point ``x`` are
Fieller's intervals for the ratio ``N / D`` of two kernel-weighted sums of
the records (:mod:`._intervals`): ``D`` is the deconvolved density of the
covariate at ``x`` (up to a constant), ``N`` the same weights applied to
the responses.  Where ``D`` is not significantly above 0 at the level
(``D <= 0`` or ``D**2 <= z**2 Var(D)``), the interval is the whole line:
the releases do not locate ``E[y | x]`` there, and the point estimate, a
ratio whose denominator may be near 0, is unstable or missing (at
``epsilon`` 4 and 2,000 rows of uniform covariates on [-2, 2], the
estimate's standard deviation at ``x = 0.5`` over repeated samples was
several hundred times the response's).  Such an interval covers by
construction, and the estimate next to it is not one.

The rule: the call warns (:class:`~skprivate.exceptions.NotIdentifiableWarning`)
when the interval of at least one requested point is the whole line (a
``predict`` interval from ``-inf`` to ``inf``), or for probabilities holds
every probability (``[0, 1]``: the whole line clipped, or an interval wider
than the probabilities on both sides).  The values are unchanged; the
points without an interval (those that fell back to the training mean) are
not counted, and those with an interval but no estimate (the bias-corrected
fit, where its kernel sum is not above 0) are.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
import pandas as pd

from ..exceptions import NotIdentifiableWarning
from ..utils._warnings import external_stacklevel

__all__ = ["FiellerCheckMixin", "uninformative_points"]


def uninformative_points(frame: pd.DataFrame, proba: bool) -> tuple[int, int]:
    """``(k, m)``: points whose interval holds every value, of those estimated.

    A point is estimated when it has an interval (where ``predict`` falls
    back to the training mean, the interval is NaN); its estimate may be
    NaN (the bias-corrected fit where its kernel sum is not above 0).

    ``frame`` is a ``conf_int`` frame of ``"predict"`` (``proba=False``) or
    ``"predict_proba"`` (one block of rows per class, the same points in each
    block); a point counts once however many of its classes hold every
    probability.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from skprivate.ldp._fieller_check import uninformative_points
    >>> frame = pd.DataFrame(
    ...     {
    ...         "quantity": "predict",
    ...         "estimate": [0.2, 0.9, np.nan],
    ...         "lower": [-np.inf, 0.5, np.nan],
    ...         "upper": [np.inf, 1.3, np.nan],
    ...     }
    ... )
    >>> uninformative_points(frame, proba=False)
    (1, 2)
    """
    lower = frame["lower"].to_numpy()
    upper = frame["upper"].to_numpy()
    if proba:
        every = (lower <= 0.0) & (upper >= 1.0)
    else:
        every = np.isneginf(lower) & np.isposinf(upper)
    blocks = max(frame["quantity"].nunique(), 1)
    shape = (blocks, len(frame) // blocks)
    # a point where predict falls back has an estimate but no interval
    bounded = ~(np.isnan(lower) & np.isnan(upper))
    every = (every & bounded).reshape(shape).any(axis=0)
    estimated = bounded.reshape(shape).any(axis=0)
    return int(every.sum()), int(estimated.sum())


class FiellerCheckMixin:
    """Warns at ``conf_int`` where a regression interval holds every value.

    Put before the deconvolution regression's intervals mixin; its
    ``"predict"`` and ``"predict_proba"`` intervals are checked by the rule
    of the module notes, their values unchanged.
    """

    def _conf_int_predict(self, request: Any) -> pd.DataFrame:
        frame = super()._conf_int_predict(request)
        self._ci_check_fieller(request, frame, "predict")
        return frame

    def _conf_int_predict_proba(self, request: Any) -> pd.DataFrame:
        frame = super()._conf_int_predict_proba(request)
        self._ci_check_fieller(request, frame, "predict_proba")
        return frame

    def _ci_check_fieller(self, request: Any, frame: pd.DataFrame, kind: str) -> None:
        if request.cache.get("fieller-warned"):
            return
        proba = kind == "predict_proba"
        k, m = uninformative_points(frame, proba)
        if k == 0:
            return
        request.cache["fieller-warned"] = True
        name = type(self).__name__
        if proba:
            message = (
                f"{name}: at {k} of {m} points the {kind} interval holds "
                f"every probability ([0, 1]) at level {request.level:g}: the "
                "releases do not narrow P(y | x) there (the kernel weights' "
                "sum, the deconvolved density of the covariate and the "
                "estimate's denominator, is not or barely significantly above "
                "0), and the estimate is unstable (with method='rbc', missing "
                "where that sum is not above 0)."
            )
        else:
            message = (
                f"{name}: at {k} of {m} points the {kind} interval is the whole "
                "line: there the kernel weights' sum (the deconvolved density of "
                "the covariate, the estimate's denominator) is not significantly "
                f"above 0 at level {request.level:g}, so the releases do not "
                "locate E[y | x] there and the estimate is unstable (with "
                "method='rbc', missing where that sum is not above 0)."
            )
        warnings.warn(
            message + " A wider bandwidth, more records or a larger epsilon "
            "give an estimate there.",
            NotIdentifiableWarning,
            stacklevel=external_stacklevel(),
        )
