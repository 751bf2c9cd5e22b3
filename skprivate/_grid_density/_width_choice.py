"""Whether the held-out choice of the EMS smoothing width is stable enough.

The linearized intervals of the grid EMS fits (:mod:`._intervals`) hold the
smoothing width at the fit's choice.  The choice is made by the held-out
log-likelihood of folds of respondents (:func:`~._ems.select_ems_width`),
and under heavy noise that criterion barely separates the candidate widths:
the choice then ranges over them from sample to sample, and so does the
estimate, a variability the interval leaves out.  This module measures it
on the data and warns (:class:`~skprivate.exceptions.CoverageWarning`) when
it is large enough to push the coverage of the interval below its band.

The rule, step by step (no constant is fitted to a benchmark design):

1. *Widths the data cannot tell from the chosen one.*  For each candidate
   width ``k`` and each held-out report ``i`` (predicted by the fit of the
   other folds), ``d_i = log p_chosen(i) - log p_k(i)``.  Their mean is the
   held-out log-likelihood the chosen width gains over ``k`` per report,
   and ``sd(d) / sqrt(N)`` its standard error (a paired comparison, as in
   Vuong's 1989 test of non-nested models).  A width is *tied* with the
   chosen one when the gain is below ``z_{0.95} = 1.645`` standard errors:
   a one-sided 5% test cannot reject that it predicts as well.
2. *How much the estimate moves over the tied widths.*  The quantity (the
   CDF at a point, a quantile) is computed from each tied width's fit (the
   mean of its fold fits, bias-corrected as ``method="rbc"`` corrects, by
   one EMS refit at that width); ``r`` is the range of these values.
3. *What that does to the coverage.*  With the choice spread evenly over
   the tied widths, it adds about ``r**2 / 12`` (the variance of a uniform
   law on a range ``r``) to the variance ``se**2`` the interval uses, so a
   nominal level ``1 - alpha`` interval covers about ``2 Phi(z se /
   sqrt(se**2 + r**2 / 12)) - 1``.  The call warns when that is more than
   ``COVERAGE_SLACK = 0.02`` below the level: the band ``[0.93, 0.97]`` of
   a 95% interval, the project's coverage target.  At 95% this is ``r >
   1.43 se``.

4. *A choice at the widest candidate.*  When the held-out likelihood
   prefers the widest width offered, its optimum is not bracketed by the
   candidates: the data may call for still more smoothing, the fitted law
   is then at least as smooth as the grid allows, and the bias correction
   of ``method="rbc"``, which reads the bias off the fitted law, cannot see
   the bias that smoothing hides.  The ``"rbc"`` call warns for that choice
   too (whatever the spread), as a cross-validated choice at the end of its
   search range is not trusted in general (the ``"smoothed"`` interval
   claims the smoothed target, not the true value, and is checked by the
   spread only).

What the rule does not see: bias left at a width the held-out likelihood
chose clearly (no other width tied, not the widest).  On RVNS reports of a
Beta(2, 5) law on [0, 10] (``d = 1``, 500 rows, 60 samples) the ``"rbc"``
CDF interval covered 0.68: 0.97 in the samples without a warning, 0.48 in
the half with one.  With ``d = 3`` and 2,000 rows (30 samples) it covered
0.87 with a warning in 7% of the samples; on an equal mixture of normals
at 3 and 7 (standard deviation 0.8, ``d = 2``, 1,000 rows, 40 samples),
0.63 with a warning in 72%, and 0.46 in the samples without one.

The alternative named in the warning is ``method="bootstrap"``, which
refits the estimator (re-choosing the width) on resampled respondents.
The standard error of step 1 counts reports as independent; with several
reports per respondent it is approximate.

References
----------
Q. H. Vuong (1989), "Likelihood ratio tests for model selection and
non-nested hypotheses", Econometrica 57, 307-333.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from .._uncertainty import probabilities_of, values_of
from ..exceptions import CoverageWarning
from ..utils._warnings import external_stacklevel
from ._ems import ML_MAX_ITER, ML_TOL, ems_cell_probabilities
from ._intervals import _rearranged_quantiles, cell_cdf_weights

__all__ = [
    "COVERAGE_SLACK",
    "TIE_Z",
    "WidthChoice",
    "WidthChoiceCheckMixin",
    "implied_coverage",
    "width_choice",
]

# One-sided 5% test of "this width predicts the held-out reports as well".
TIE_Z = float(stats.norm.ppf(0.95))

# How far below its level an interval may cover before the call warns.
COVERAGE_SLACK = 0.02


@dataclass(frozen=True)
class WidthChoice:
    """The candidate widths, which of them are tied, and their fits."""

    widths: NDArray
    chosen: int
    gain: NDArray
    gain_se: NDArray
    fits: NDArray

    @property
    def at_widest(self) -> bool:
        """Whether the chosen width is the widest candidate (an unbracketed optimum)."""
        return bool(self.widths[self.chosen] >= self.widths.max())

    @property
    def tied(self) -> NDArray[np.bool_]:
        """Widths a one-sided 5% paired test cannot tell from the chosen one."""
        tied = np.isfinite(self.gain) & (self.gain <= TIE_Z * self.gain_se)
        tied[self.chosen] = True
        return tied


def width_choice(
    widths: NDArray, chosen: float, diagnostics: dict
) -> WidthChoice | None:
    """The paired held-out comparison of every width with the ``chosen`` one.

    ``diagnostics`` is the dict :func:`~._ems.select_ems_width` filled;
    None when it holds nothing (the width was not chosen by held-out
    likelihood).
    """
    if "log_probs" not in diagnostics:
        return None
    widths = np.asarray(widths, dtype=float)
    log_probs = np.asarray(diagnostics["log_probs"], dtype=float)
    counts = np.asarray(diagnostics["counts_by_fold"], dtype=float)
    best = int(np.flatnonzero(np.isclose(widths, chosen))[0])
    n = counts.sum()
    gain = np.full(widths.size, np.nan)
    gain_se = np.full(widths.size, np.nan)
    for k in range(widths.size):
        if not np.isfinite(log_probs[k]).all():
            continue  # left out of the path (patience)
        d = log_probs[best] - log_probs[k]
        mean = float(np.sum(counts * d) / n)
        var = float(np.sum(counts * (d - mean) ** 2) / n)
        gain[k], gain_se[k] = mean, np.sqrt(var / n)
    fits = np.asarray(diagnostics["fold_fits"], dtype=float)
    return WidthChoice(widths, best, gain, gain_se, fits)


def implied_coverage(level: float, se: NDArray, spread: NDArray) -> NDArray[np.float64]:
    """Coverage of a level-``level`` normal interval of standard error ``se``
    when the estimate also varies uniformly over a range ``spread``.

    Examples
    --------
    >>> from skprivate._grid_density._width_choice import implied_coverage
    >>> float(implied_coverage(0.95, 1.0, 0.0).round(3))
    0.95
    >>> float(implied_coverage(0.95, 1.0, 12**0.5).round(3))  # variance doubled
    0.834
    """
    z = stats.norm.ppf(0.5 + 0.5 * level)
    se = np.asarray(se, dtype=float)
    spread = np.asarray(spread, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = se / np.sqrt(se**2 + spread**2 / 12.0)
    ratio = np.where(se > 0, ratio, np.where(spread > 0, 0.0, 1.0))
    return 2.0 * stats.norm.cdf(z * ratio) - 1.0


class WidthChoiceCheckMixin:
    """Warns at ``conf_int`` where the width choice undermines the interval.

    Put before :class:`~._intervals.GridEMSIntervalsMixin` in the bases of
    an estimator whose fit sets ``_width_choice`` (a :class:`WidthChoice`,
    or None when the width was not chosen by held-out likelihood).  The
    CDF and quantile intervals of ``method="rbc"`` and ``"smoothed"`` are
    checked by the rule of the module notes; their values are unchanged.
    """

    def _conf_int_cdf(self, request: Any) -> pd.DataFrame:
        frame = super()._conf_int_cdf(request)
        self._ci_check_width_choice(request, frame, "cdf")
        return frame

    def _conf_int_quantile(self, request: Any) -> pd.DataFrame:
        frame = super()._conf_int_quantile(request)
        self._ci_check_width_choice(request, frame, "quantile")
        return frame

    def _ci_width_values(
        self, request: Any, kind: str, corrected: bool
    ) -> NDArray[np.float64]:
        """The quantity at each tied width (rows) and point (columns)."""
        choice = self._width_choice
        fit = request.cache.get("ems")
        edges = np.asarray(self.edges_, dtype=float)
        rows = []
        for k in np.flatnonzero(choice.tied):
            theta = choice.fits[k] / choice.fits[k].sum()
            if corrected and fit is not None:
                refit, _ = ems_cell_probabilities(
                    fit.A,
                    fit.A @ theta,
                    float(choice.widths[k]),
                    max_iter=ML_MAX_ITER,
                    tol=ML_TOL,
                    start=theta,
                    warn=False,
                )
                theta = 2.0 * theta - refit
            rows.append(_quantity(kind, edges, theta, request.points))
        return np.array(rows)

    def _ci_check_width_choice(
        self, request: Any, frame: pd.DataFrame, kind: str
    ) -> None:
        choice = getattr(self, "_width_choice", None)
        method = str(frame["method"].iloc[0]) if len(frame) else ""
        if choice is None or "linearized EMS" not in method:
            return
        if request.cache.get("width-choice-warned"):
            return
        width = choice.widths[choice.chosen]
        corrected = "bias-corrected" in method
        if choice.at_widest and corrected:
            reason = (
                f"the held-out likelihood chose the widest candidate width "
                f"({width:g} cells), so its optimum may lie beyond the "
                "candidates; the fitted law is then too smooth to show all of "
                "its smoothing bias, which the correction therefore leaves"
            )
        else:
            values = request.memo(
                ("width-choice", kind, corrected),
                lambda: self._ci_width_values(request, kind, corrected),
            )
            spread = values.max(axis=0) - values.min(axis=0)
            z = stats.norm.ppf(0.5 + 0.5 * request.level)
            se = frame["se"].to_numpy(float)
            half = 0.5 * (frame["upper"] - frame["lower"]).to_numpy(float) / z
            se = np.where(np.isfinite(se), se, half)
            coverage = implied_coverage(request.level, se, spread)
            if not np.any(coverage < request.level - COVERAGE_SLACK):
                return
            tied = choice.widths[choice.tied]
            with np.errstate(divide="ignore", invalid="ignore"):
                moves = float(np.max(spread / se))
            reason = (
                f"the held-out likelihood cannot tell the chosen width "
                f"({width:g} cells) from {tied.size - 1} other width(s) (from "
                f"{tied.min():g} to {tied.max():g} cells, one-sided 5% paired "
                f"test), over which the estimate moves by up to {moves:.2g} "
                "standard errors; the variability of that choice, which the "
                "interval leaves out, would bring the coverage of this "
                f"{request.level:g} interval to about {float(coverage.min()):.2f}"
            )
        request.cache["width-choice-warned"] = True
        warnings.warn(
            f"{type(self).__name__}: the {kind} interval holds the smoothing "
            f"width fixed and may cover less often than its level: {reason}. "
            "method='bootstrap' re-chooses the width on every resample (one "
            "refit each).",
            CoverageWarning,
            stacklevel=external_stacklevel(),
        )


def _quantity(
    kind: str, edges: NDArray, theta: NDArray, points: Any
) -> NDArray[np.float64]:
    """The CDF at ``points`` or the quantiles at probabilities ``points``."""
    if kind == "cdf":
        return cell_cdf_weights(edges, values_of(points)) @ theta
    return _rearranged_quantiles(edges, theta, probabilities_of(points))
