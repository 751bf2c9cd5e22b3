"""The held-out choice of the EMS smoothing width, and the interval over it.

The linearized ``"rbc"`` intervals of the grid EMS fits (:mod:`._intervals`)
are computed at the fit's smoothing width.  The width is chosen by the
held-out log-likelihood of folds of respondents
(:func:`~._ems.select_ems_width`), and under heavy noise that criterion
barely separates the candidate widths: the choice then ranges over them
from sample to sample, and so does the estimate.  A choice at a wide width
is the harmful one: the fitted law is then too smooth to show its own
smoothing bias, which the bias correction reads off it, so the interval is
off by several standard errors.  The ``"rbc"`` interval therefore takes the
union of its intervals over the widths the data cannot tell from the
chosen one (the wider of them only when the data do not bound the width
on the smooth side, or when the choice is the narrowest candidate): a
confidence set for the width, then the union over it, as for a nuisance
parameter (Berger and Boos, 1994).

The rule, step by step (no constant is fitted to a benchmark design):

1. *Widths the data cannot tell from the chosen one.*  For each candidate
   width ``k`` and each held-out report ``i`` (predicted by the fit of the
   other folds), ``d_i = log p_chosen(i) - log p_k(i)``.  Their mean is the
   held-out log-likelihood the chosen width gains over ``k`` per report,
   and ``sd(d) / sqrt(N)`` its standard error (a paired comparison, as in
   Vuong's 1989 test of non-nested models).  A width is *tied* with the
   chosen one when the gain is below ``z_{0.95} = 1.645`` standard errors:
   a one-sided 5% test cannot reject that it predicts as well.
2. *Widths the choice did not score.*  The fit scores the widths from the
   widest down and stops one width after the best so far (its
   ``patience``), so when the chosen width is wide the narrow ones are
   never scored.  While the narrowest width scored is tied, the next
   narrower one is scored too, at ``conf_int`` (one EMS fit per fold, to
   the tolerance of the choice): the path stops at the first width the
   test of step 1 separates from the chosen one, or at the narrowest
   candidate.
3. *The union over the tied widths.*  Which tied widths: when a width
   wider than the chosen one is separated by the test of step 1 (the data
   bound the width on the smooth side) and the chosen width is not the
   narrowest candidate, only the tied widths at most as wide as the
   chosen one.  A wider tied width predicts no better, smooths more and
   leaves more bias after the correction; a choice too narrow costs
   variance, which the chosen width's interval carries when a narrower
   width was scored and lost.  The union over the wider ones then only
   lengthened the interval in the direction of their bias (measured
   below).  Every tied width enters when the widest candidate is tied
   (step 4), and when the chosen width is the narrowest candidate: that
   choice is not bracketed on the rough side (the criterion still rose at
   the end of the range), the samples that land there are those whose
   noise a rough fit follows, and the interval at that width alone is
   both off centre and too short (measured below).  At each of these widths
   the fit (the mean of its fold fits) is bias-corrected as ``method="rbc"`` corrects
   (one EMS refit at that width), with its delta-method covariance at
   that width (without the moment tilt), and the quantity (CDF at a
   point, mean, or the CDF on the grid that a quantile interval inverts)
   is computed from it: ``s_k``, its difference from the same computation
   at the chosen width (``s = 0`` there), and ``se_k`` its standard error
   (at the chosen width, the interval's own ``se``).  The interval is
   ``[est + min_k (s_k - z se_k), est + max_k (s_k + z se_k)]``
   (:func:`width_band`): the union of the intervals at these widths,
   each with its own standard error (a narrow width's is the larger).
   The differences are taken between fits on the same folds, so the
   folds' smaller sample cancels to first order.
4. *The widest candidate tied.*  When the widest width offered is tied
   with the chosen one (or is the chosen one), the set of widths the data
   cannot rule out is not bounded by the data on the smooth side: still
   more smoothing may predict the reports as well, and a law fitted that
   smooth hides the smoothing bias that the correction reads off it, at
   every tied width near that end.  The ``"rbc"`` CDF and
   quantile calls then warn
   (:class:`~skprivate.exceptions.CoverageWarning`), as a cross-validated
   choice whose confidence set reaches the end of the search range is not
   trusted in general.  (The narrow end needs no such check: narrower
   smoothing has less bias, and the union takes in its longer interval.)

Why (pilot runs on RVNS reports of a Beta(2, 5) law on [0, 10], 50 cells,
the CDF at 2).  With ``d = 1`` and 500 rows the ``"rbc"`` interval at the
chosen width alone covered 0.68 (200 samples): the choice ranged over all
nine candidates, and 24% of the samples chose the widest (8 cells), where
the estimate sat 8.7 standard errors low; at a width fixed in advance it
covered 0.91 to 0.95 for 0.5 to 2 cells, 0.80 at 4 and 0.28 at 8 (100
samples).  The width choice, not the correction, was the failure.  The
union of step 3 covered 0.91 there, with the widest width tied in 87% of
the samples (which warn; 1.00 in the others); with 2,000 rows it covered
0.96 (CDF and median; 0.93 and 0.94 at the chosen width alone, 150
samples), and with ``d = 3``, 0.99 and 0.96 at 500 and 2,000 rows (0.90
and 0.91 alone, 100 samples): conservative where many widths tie.  The
union over every tied width was also conservative where the data bound
the width: in the coverage benchmark (1,000 samples per cell) RVNS with
``d = 3`` covered the CDF at 2 in 0.98 of the samples with 500 rows and
0.977 with 2,000, and the perturbed KDE of Laplace releases at epsilon 8
(500 rows) the CDF at 0.5 in 0.981 and the median in 0.976.  Dropping the
tied widths wider than the chosen one where the widest candidate is not
tied (step 3) gave, on the same designs with 500 rows (CDF, then median;
200 samples): RVNS ``d = 3`` 0.95 and 0.96 (0.96 and 0.965 with every
tied width; 0.92 and 0.945 alone), RVNS ``d = 1`` 0.95 and 0.95 (0.95 and
0.96 with every tied width); the perturbed KDE at epsilon 8 0.953 and
0.953 (300 samples; on the first 150, 0.973 and 0.987 with every tied
width).  Dropping them also where the
widest candidate is tied lost coverage there (RVNS ``d = 1``: 0.93 and
0.945), so those keep every tied width.  Dropping them where the chosen
width is the narrowest candidate failed in the samples that chose it
(600 samples per design; the interval there is the chosen width's
alone): RVNS ``d = 3`` with 500 rows chose 0.5 cells in 97 samples, whose
CDF interval covered 0.85 (the truth 0.74 of the interval's standard
errors above the estimate on average, the spread of the errors 1.37
times the standard error) and the median's 0.91; with 2,000 rows, 258
samples, 0.90 and 0.93; RVNS ``d = 1`` with 500 rows, in the samples the
widest candidate did not tie, 38 samples, 0.92 and 0.74.  Every tied
width joined, they covered 0.95 and 0.95, 0.96 and 0.96, and 0.97 and
0.89; over all the samples of these designs (CDF, then median) 0.977
and 0.960 at ``d = 3`` with 500 rows (0.960 and 0.953 with the
narrowest choice alone), 0.963 and 0.952 with 2,000 rows (0.938 and
0.938).  In the coverage benchmark (1,000 samples per cell) the rule
gave RVNS ``d = 3`` 0.969 and 0.961 with 500 rows (0.959 and 0.959
before) and 0.966 and 0.942 with 2,000 (0.943 and 0.936); RVNS ``d = 1``
0.949 and 0.941 with 2,000 rows; the perturbed KDE at epsilon 8 0.975 and
0.968 with 500 rows (0.969 and 0.955), and over 3,000 samples 0.966 and
0.974 (Monte Carlo standard error 0.004): conservative by about 0.005.  An
average over the tied widths with their spread in the variance (the
model-averaging variance) was shorter but imported the bias of the wider
tied widths: in the benchmark's samples (300 per cell) its median
interval covered 0.83 with ``d = 1`` and 2,000 rows.

What remains conservative.  The coverage given the chosen width depends on
the choice: for the perturbed KDE at epsilon 8 with 500 rows (300 samples;
CDF at 0.5, then median) the samples that chose 0.5 cells (26 %) covered
0.91 and 0.92 with the union (0.84 and 0.86 with that width alone), those
that chose 0.7 cells 0.94 and 0.96, and those that chose 1.0 cells (35 %)
0.99 and 0.99, as much with the chosen width's interval alone (0.99 and
0.98): the excess is not the union's (0.957 and 0.967 over all the
samples, 0.933 and 0.937 alone, 0.957 and 0.970 with every tied width).
The samples that choose a wider width are those whose noise looks smooth,
and the interval at that width covers their truth more often than its
level; the narrow choices cover less, and the two balance only roughly
(the benchmark's 3,000 samples: 0.966 and 0.974; its first 1,000: 0.975
and 0.968).

The ``"smoothed"`` interval claims the EMS-smoothed target at the chosen
width and is not widened (it warns that its target is not the true value,
:meth:`._intervals.GridEMSIntervalsMixin._ci_warn_smoothed`).  The
standard error of step 1 counts reports as independent; with several
reports per respondent it is approximate.  ``method="bootstrap"`` refits
the estimator (re-choosing the width) on resampled respondents instead.

References
----------
Q. H. Vuong (1989), "Likelihood ratio tests for model selection and
non-nested hypotheses", Econometrica 57, 307-333.

R. L. Berger and D. D. Boos (1994), "P values maximised over a confidence
set for the nuisance parameter", JASA 89, 1012-1016.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import NDArray
from scipy import stats

from .._uncertainty import z_value
from ..exceptions import CoverageWarning
from ..utils._warnings import external_stacklevel
from ._ems import _FLOOR, ML_MAX_ITER, ML_TOL, ems_cell_probabilities
from ._intervals import ems_bias_correction, ems_covariance, smoothing_matrix

__all__ = [
    "COVERAGE_SLACK",
    "TIE_Z",
    "WidthChoice",
    "WidthChoiceCheckMixin",
    "extend_width_path",
    "width_band",
    "width_choice",
]

# One-sided 5% test of "this width predicts the held-out reports as well".
TIE_Z = float(stats.norm.ppf(0.95))

# How far below its level an interval may cover before a call warns (the
# band [0.93, 0.97] of a 95% interval; used by the checks of other fits).
COVERAGE_SLACK = 0.02


@dataclass(frozen=True)
class WidthChoice:
    """The candidate widths, which of them are tied, and their fits.

    ``log_probs``, ``counts``, ``tol`` and ``max_iter`` (from the
    diagnostics of the choice) let :func:`extend_width_path` score the
    widths the choice left out; None when they are not known.
    """

    widths: NDArray
    chosen: int
    gain: NDArray
    gain_se: NDArray
    fits: NDArray
    log_probs: NDArray | None = None
    counts: NDArray | None = None
    tol: float = ML_TOL
    max_iter: int = ML_MAX_ITER

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

    @property
    def united(self) -> NDArray[np.bool_]:
        """The tied widths the ``"rbc"`` interval joins (step 3 of the notes).

        Every tied width when the widest candidate is tied (the data do not
        bound the width on the smooth side) or when the chosen width is the
        narrowest candidate (the choice is not bracketed on the rough side);
        otherwise the tied widths at most as wide as the chosen one.
        """
        tied = self.tied
        at_narrowest = self.widths[self.chosen] <= self.widths.min()
        if at_narrowest or tied[int(np.argmax(self.widths))]:
            return tied
        return tied & (self.widths <= self.widths[self.chosen])


def _paired_gains(
    log_probs: NDArray, counts: NDArray, best: int
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Mean held-out gain of width ``best`` over each width, and its SE."""
    n = counts.sum()
    gain = np.full(log_probs.shape[0], np.nan)
    gain_se = np.full(log_probs.shape[0], np.nan)
    for k in range(log_probs.shape[0]):
        if not np.isfinite(log_probs[k]).all():
            continue  # left out of the path (patience)
        d = log_probs[best] - log_probs[k]
        mean = float(np.sum(counts * d) / n)
        var = float(np.sum(counts * (d - mean) ** 2) / n)
        gain[k], gain_se[k] = mean, np.sqrt(var / n)
    return gain, gain_se


def width_choice(
    widths: NDArray, chosen: float, diagnostics: dict
) -> WidthChoice | None:
    """The paired held-out comparison of every width with the ``chosen`` one.

    ``diagnostics`` is the dict :func:`~._ems.select_ems_width` filled;
    None when it holds nothing (the width was not chosen by held-out
    likelihood).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate._grid_density._width_choice import width_choice
    >>> diagnostics = {
    ...     "log_probs": np.array([[[-1.0, -2.0]], [[-1.5, -1.0]]]),
    ...     "fold_fits": np.array([[0.5, 0.5], [0.4, 0.6]]),
    ...     "counts_by_fold": np.array([[3.0, 1.0]]),
    ... }
    >>> choice = width_choice(np.array([1.0, 2.0]), 1.0, diagnostics)
    >>> float(choice.gain[1]), choice.tied.tolist()
    (0.125, [True, True])
    """
    if "log_probs" not in diagnostics:
        return None
    widths = np.asarray(widths, dtype=float)
    log_probs = np.asarray(diagnostics["log_probs"], dtype=float)
    counts = np.asarray(diagnostics["counts_by_fold"], dtype=float)
    best = int(np.flatnonzero(np.isclose(widths, chosen))[0])
    gain, gain_se = _paired_gains(log_probs, counts, best)
    fits = np.asarray(diagnostics["fold_fits"], dtype=float)
    return WidthChoice(
        widths,
        best,
        gain,
        gain_se,
        fits,
        log_probs,
        counts,
        float(diagnostics.get("tol", ML_TOL)),
        int(diagnostics.get("max_iter", ML_MAX_ITER)),
    )


def width_band(
    W: NDArray,
    se: NDArray,
    others: list[tuple[NDArray, NDArray]],
    level: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``(low, high)``: the union of the intervals of ``W theta`` at the tied
    widths, relative to the estimate at the chosen width.

    ``se`` is the standard error at the chosen width; ``others`` holds, per
    other tied width, the corrected cells less those of the chosen width
    (``s_k = W delta_k``) and their covariance (``se_k``).  The interval is
    ``[min(-z se, min_k (s_k - z se_k)), max(z se, max_k (s_k + z se_k))]``
    around the estimate: the chosen width's interval joined with every tied
    width's interval, each with its own standard error.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate._grid_density._width_choice import width_band
    >>> W = np.array([[1.0, 0.0]])  # the first cell's mass
    >>> other = (np.array([0.2, -0.2]), np.diag([0.0009, 0.0009]))  # s 0.2, se 0.03
    >>> low, high = width_band(W, np.array([0.1]), [other], 0.95)
    >>> np.round(low, 4), np.round(high, 4)  # -z 0.1 and 0.2 + z 0.03
    (array([-0.196]), array([0.2588]))
    """
    W = np.asarray(W, dtype=float)
    se = np.asarray(se, dtype=float)
    z = z_value(level)
    low, high = -z * se, z * se
    for delta, cov in others:
        shift = W @ delta
        se_k = np.sqrt(np.maximum(np.einsum("pi,ij,pj->p", W, cov, W), 0.0))
        low = np.fmin(low, shift - z * se_k)
        high = np.fmax(high, shift + z * se_k)
    return low, high


def extend_width_path(choice: WidthChoice, A: Any) -> WidthChoice:
    """``choice`` with the narrower widths scored while the narrowest is tied.

    The choice scores widths from the widest down and may stop early
    (patience); the widths it left out are all narrower than those it
    scored.  While the narrowest scored width is tied with the chosen one,
    the next narrower width is scored here as the choice scores it: each
    fold predicted by the EMS fit of the other folds at that width (to the
    choice's tolerance, started from the previous width's fit).  Step 2 of
    the module notes.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate._grid_density._width_choice import WidthChoice, extend_width_path
    >>> nothing_left = WidthChoice(
    ...     np.array([1.0, 2.0]), 1, np.zeros(2), np.ones(2), np.ones((2, 3)) / 3
    ... )
    >>> extend_width_path(nothing_left, np.eye(3)) is nothing_left
    True
    """
    if choice.log_probs is None or choice.counts is None:
        return choice
    log_probs = np.array(choice.log_probs, dtype=float)
    fits = np.array(choice.fits, dtype=float)
    counts = np.asarray(choice.counts, dtype=float)
    total = counts.sum(axis=0)
    scored = np.isfinite(log_probs).all(axis=(1, 2))
    current = choice
    for k in np.argsort(-choice.widths, kind="stable"):
        if scored[k]:
            continue
        narrowest = min(np.flatnonzero(scored), key=lambda j: choice.widths[j])
        if not current.tied[narrowest]:
            break
        folds = []
        for f, held in enumerate(counts):
            w, _ = ems_cell_probabilities(
                A,
                total - held,
                float(choice.widths[k]),
                max_iter=choice.max_iter,
                tol=choice.tol,
                start=fits[narrowest],
                warn=False,
            )
            folds.append(w)
            log_probs[k, f] = np.log(np.maximum(np.asarray(A @ w), _FLOOR))
        fits[k] = np.mean(folds, axis=0)
        scored[k] = True
        gain, gain_se = _paired_gains(log_probs, counts, choice.chosen)
        current = replace(
            choice, gain=gain, gain_se=gain_se, fits=fits.copy(), log_probs=log_probs
        )
    return current


class WidthChoiceCheckMixin:
    """The ``"rbc"`` interval over the widths the held-out likelihood ties.

    Put before :class:`~._intervals.GridEMSIntervalsMixin` in the bases of
    an estimator whose fit sets ``_width_choice`` (a :class:`WidthChoice`,
    or None when the width was not chosen by held-out likelihood).  The
    ``"rbc"`` intervals (CDF, quantile, mean) become the union of step 3
    of the module notes, and the CDF and quantile calls warn by step 4.
    """

    def _conf_int_cdf(self, request: Any) -> pd.DataFrame:
        frame = super()._conf_int_cdf(request)
        self._ci_check_width_choice(request, frame, "cdf")
        return frame

    def _conf_int_quantile(self, request: Any) -> pd.DataFrame:
        frame = super()._conf_int_quantile(request)
        self._ci_check_width_choice(request, frame, "quantile")
        return frame

    def _ci_tied_cells(self, request: Any) -> list[tuple[NDArray, NDArray]] | None:
        """Per other tied width: corrected cells (less the chosen width's) and
        their covariance (step 3 of the module notes)."""
        fit = request.cache.get("ems")
        choice = getattr(self, "_width_choice", None)
        if fit is None or choice is None:
            return None
        choice = extend_width_path(choice, fit.A)
        # scoring the left-out widths completes the fit's choice: kept
        self._width_choice = choice
        tied = np.flatnonzero(choice.united)
        if tied.size < 2:
            return None
        X = np.asarray(request.data("X"), dtype=float)
        _, unit_bins, _ = self._ci_ems_system(X if X.ndim == 2 else X[:, None])
        m = fit.theta.size
        corrected, covs = {}, {}
        for k in tied:
            width = float(choice.widths[k])
            theta = choice.fits[k] / choice.fits[k].sum()
            S = smoothing_matrix(m, width)
            theta_bc, M = ems_bias_correction(
                fit.A,
                theta,
                S,
                lambda t, start=theta, width=width: ems_cell_probabilities(
                    fit.A,
                    t,
                    width,
                    max_iter=ML_MAX_ITER,
                    tol=ML_TOL,
                    start=start,
                    warn=False,
                )[0],
            )
            cov = M @ ems_covariance(fit.A, theta, S, unit_bins) @ M.T
            corrected[k], covs[k] = theta_bc, 0.5 * (cov + cov.T)
        base = corrected[choice.chosen]
        return [(corrected[k] - base, covs[k]) for k in tied if k != choice.chosen]

    def _ci_width_band(
        self, request: Any, W: NDArray, se: NDArray
    ) -> tuple[NDArray, NDArray] | None:
        """Step 3 of the module notes: the union over the tied widths."""
        cells = request.memo("width-band", lambda: self._ci_tied_cells(request))
        if cells is None:
            return None
        return width_band(W, se, cells, request.level)

    def _ci_check_width_choice(
        self, request: Any, frame: pd.DataFrame, kind: str
    ) -> None:
        """Step 4 of the module notes: warn when the widest candidate is tied."""
        choice = getattr(self, "_width_choice", None)
        method = str(frame["method"].iloc[0]) if len(frame) else ""
        if choice is None or "bias-corrected" not in method:
            return
        if request.cache.get("width-choice-warned"):
            return
        widest = int(np.argmax(choice.widths))
        if not choice.tied[widest]:
            return
        width = choice.widths[choice.chosen]
        how = (
            "chose the widest candidate smoothing width"
            if widest == choice.chosen
            else f"cannot tell the chosen smoothing width ({width:g} cells) from "
            "the widest candidate"
        )
        request.cache["width-choice-warned"] = True
        warnings.warn(
            f"{type(self).__name__}: the {kind} interval may cover less often "
            f"than its level: the held-out likelihood {how} "
            f"({choice.widths[widest]:g} cells, one-sided 5% paired test), so the "
            "data do not rule out still more smoothing; a law fitted that "
            "smooth hides the smoothing bias the correction reads off it. "
            "method='bootstrap' re-chooses the width on every resample (one "
            "refit each).",
            CoverageWarning,
            stacklevel=external_stacklevel(),
        )
