"""The ``conf_int("pmf")`` intervals shared by the frequency estimators.

An estimator of category frequencies from oracle reports offers two
intervals of each category's share ``P(X = category)`` in the population
the respondents were drawn from:

* ``"normal"``: the unbiased estimate ``f_hat`` with the variance of the
  mechanism given the respondents' values (the estimator's closed-form
  ``variance_``) plus the sampling variance ``f (1 - f) / n`` of the
  respondents, both at the plug-in frequencies ``clip(f_hat, 0, 1)``;
* ``"bootstrap"``: percentile intervals of the estimator's estimate, the
  respondents resampled through multinomial counts of their distinct report
  rows (the same law as resampling the rows), which carries both sources of
  variance.  The ends are the ``(B + 1) (1 -/+ level) / 2``-th order
  statistics of the ``B`` replicates (interpolated; Davison & Hinkley,
  1997, section 5.2.2), which for a continuous law have expected
  probabilities ``(1 -/+ level) / 2``.

``"auto"`` is ``"normal"`` for ``method="unbiased"`` and ``"base-cut"``,
``"bootstrap"`` otherwise.  Each estimator says what its normal variance
and its resampled rows are; the frames and the resampling are computed
here.

Base-cut.  The ``"base-cut"`` estimate sets a category to 0 when its
unbiased estimate is below the Bonferroni threshold ``z_{1 - alpha/k}
sigma_0``, a jump in the estimate as a function of the data.  For a
category whose share lies near the threshold (at ``epsilon = 1`` and
``n = 500`` with four categories, the threshold is near 0.13), the
bootstrap replicates fall on both sides of the jump: their law is a point
mass at 0 mixed with a continuous part, and its percentile interval does
not have its level (the bootstrap is not consistent for an estimate that
jumps where the share lies).  The ``"normal"`` interval (the default for
``"base-cut"``) is built on the unbiased estimate, whose sampling law is
smooth; it is clipped to ``[0, 1]`` (a share lies there) and, where the cut
moved the estimate outside it, widened to hold the base-cut estimate, which
the frame's ``estimate`` column reports, so the estimate a user reads is
always in its interval.  A bootstrap asked for explicitly warns
(:class:`~skprivate.exceptions.CoverageWarning`) and names the categories
whose replicates the cut zeroed in more than ``(1 - level) / 2`` of the
resamples: there the percentile interval's lower end lies on the point
mass of the cut rather than on a quantile of a continuous law (and where
the cut zeroed more than ``(1 + level) / 2`` of them, the interval is
``[0, 0]``, which covers no share above 0).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._uncertainty import (
    IntervalRequest,
    interval_frame,
    normal_frame,
    normal_interval,
)
from ..exceptions import CoverageWarning
from ..utils import check_generator
from ..utils._warnings import external_stacklevel

__all__ = ["pmf_conf_int", "resample_reports"]

#: What the intervals bound, as ``conf_int`` states it.
TARGET = "P(X = category)"


def resample_reports(
    request: IntervalRequest,
    rows: NDArray,
    counts: NDArray[np.int64],
    estimate: Callable[[NDArray, NDArray[np.int64]], NDArray[np.float64]],
) -> NDArray[np.float64]:
    """Bootstrap replicates of ``estimate`` over resampled respondents.

    Each replicate draws ``n = counts.sum()`` respondents with replacement
    as multinomial counts of the distinct report ``rows`` (probabilities
    ``counts / n``) and evaluates ``estimate`` on the rows drawn at least
    once with their new counts.

    Parameters
    ----------
    request : IntervalRequest
        Supplies ``random_state`` and the number of resamples.
    rows : ndarray of shape (m, n_report_columns)
        The distinct report rows.
    counts : ndarray of shape (m,)
        How often each row occurred.
    estimate : callable
        ``estimate(rows, counts)``, the estimate of every category.

    Returns
    -------
    ndarray of shape (n_resamples, k)

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate._uncertainty import IntervalRequest
    >>> from skprivate.frequency._pmf_intervals import resample_reports
    >>> request = IntervalRequest(
    ...     kind="pmf",
    ...     points=None,
    ...     level=0.9,
    ...     method="bootstrap",
    ...     X=None,
    ...     y=None,
    ...     n_resamples=3,
    ...     random_state=0,
    ...     n_jobs=None,
    ... )
    >>> rows, counts = np.array([[0], [1]]), np.array([3, 1])
    >>> share = lambda r, c: np.bincount(r[:, 0], c, minlength=2) / c.sum()
    >>> resample_reports(request, rows, counts, share).shape
    (3, 2)
    """
    rng = check_generator(request.random_state)
    n = int(counts.sum())
    share = counts / n
    out = []
    for _ in range(request.resamples()):
        drawn = rng.multinomial(n, share)
        keep = drawn > 0
        out.append(estimate(rows[keep], drawn[keep]))
    return np.asarray(out)


def pmf_conf_int(
    request: IntervalRequest,
    owner: object,
    *,
    normal: str,
    bootstrap: str,
    estimate: Callable[[NDArray, NDArray[np.int64]], NDArray[np.float64]],
) -> pd.DataFrame:
    """The ``"pmf"`` intervals of a fitted frequency estimator ``owner``.

    ``owner`` holds ``method``, ``categories_``, ``distribution_raw_`` (the
    unbiased estimate), ``variance_`` (its closed-form variance given the
    respondents), ``distribution_`` (the estimate of ``method``),
    ``n_samples_seen_`` and the distinct report rows ``reports_`` with
    their counts ``report_counts_``.

    Parameters
    ----------
    request : IntervalRequest
        The ``conf_int`` call.
    owner : fitted estimator
        The estimator whose intervals these are (named in errors).
    normal, bootstrap : str
        The method text of each interval, as the frame states it.
    estimate : callable
        ``estimate(rows, counts)``: ``distribution_`` recomputed from
        resampled rows, for the bootstrap.

    Returns
    -------
    pandas.DataFrame
        The tidy frame of :func:`skprivate._uncertainty.interval_frame`,
        one row per category.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.frequency import FrequencyEstimator, FrequencyOracle
    >>> fo = FrequencyOracle("krr", epsilon=1.0, categories=[[0, 1]]).fit([[0]])
    >>> est = FrequencyEstimator(oracle=fo).fit(np.array([[0]] * 30 + [[1]] * 10))
    >>> est.conf_int("pmf")["method"].iloc[0].split(" (")[0]
    'normal'
    """
    cut = owner.method == "base-cut"
    auto = "normal" if owner.method == "unbiased" or cut else "bootstrap"
    how = request.choose(("normal", "bootstrap"), auto, type(owner).__name__)
    labels = list(owner.categories_.tolist())
    if how == "normal":
        # the mechanism's variance given the respondents' values, plus the
        # variance of sampling them, f (1 - f) / n: the interval covers the
        # population share, as the bootstrap of respondents does
        share = np.clip(owner.distribution_raw_, 0.0, 1.0)
        sampling = share * (1.0 - share) / owner.n_samples_seen_
        se = np.sqrt(owner.variance_ + sampling)
        if cut:
            return _base_cut_frame(owner, se, request.level, normal)
        return normal_frame(
            "pmf",
            labels,
            owner.distribution_raw_,
            se,
            request.level,
            normal,
            TARGET,
        )
    reps = request.memo(
        "bootstrap",
        lambda: resample_reports(
            request, owner.reports_, owner.report_counts_, estimate
        ),
    )
    alpha = 1.0 - request.level
    if cut:
        _warn_cut_replicates(owner, reps, request)
    # the (B + 1) p-th order statistic of the B replicates (Davison &
    # Hinkley, 1997, eq. 5.8): the default interpolation of np.quantile,
    # at (B - 1) p + 1, sits inside it and shortens the interval (at B =
    # 200 and 95% its ends fall near the 3.0% and 97.0% points)
    return interval_frame(
        "pmf",
        labels,
        owner.distribution_,
        np.quantile(reps, alpha / 2, axis=0, method="weibull"),
        np.quantile(reps, 1 - alpha / 2, axis=0, method="weibull"),
        request.level,
        bootstrap,
        f"{TARGET}, {owner.method} estimate",
        se=reps.std(axis=0, ddof=1),
    )


def _base_cut_frame(
    owner: object, se: NDArray, level: float, method: str
) -> pd.DataFrame:
    """The normal interval of the unbiased estimate around the base-cut estimate.

    ``raw -/+ z se`` clipped to ``[0, 1]``, widened to hold the base-cut
    estimate where the cut moved it outside; the ``estimate`` column is the
    base-cut estimate (see the module notes).
    """
    lower, upper = normal_interval(owner.distribution_raw_, se, level)
    estimate = owner.distribution_
    lower = np.minimum(np.clip(lower, 0.0, 1.0), estimate)
    upper = np.maximum(np.clip(upper, 0.0, 1.0), estimate)
    return interval_frame(
        "pmf",
        list(owner.categories_.tolist()),
        estimate,
        lower,
        upper,
        level,
        f"{method}, of the unbiased estimate, clipped to [0, 1] and widened to "
        "hold the base-cut estimate (the estimate column)",
        TARGET,
        se=se,
    )


def _warn_cut_replicates(owner: object, reps: NDArray, request: IntervalRequest):
    """Warn when the cut zeroes a category in part of the bootstrap's tail.

    A category whose replicates the cut set to 0 in more than ``(1 -
    level) / 2`` of the resamples has a percentile interval ending on the
    cut's point mass (module notes).  Once per ``conf_int`` call.
    """
    zeroed = (reps == 0.0).mean(axis=0)
    reached = zeroed > (1.0 - request.level) / 2.0
    if not reached.any() or request.cache.get("cut-warned"):
        return
    request.cache["cut-warned"] = True
    names = ", ".join(
        f"{label!s} in {share:.0%} of them"
        for label, share in zip(
            owner.categories_[reached].tolist(), zeroed[reached], strict=True
        )
    )
    warnings.warn(
        f"{type(owner).__name__}: the bootstrap pmf interval of the base-cut "
        "estimate may cover less often than its level: the cut sets the "
        f"estimate to 0 in part of the resamples (category {names}), so the "
        "percentile interval ends on the cut's "
        "point mass at 0 instead of a quantile of a continuous law. "
        "method='normal' (the default for base-cut) bounds the share with the "
        "unbiased estimate's sampling law.",
        CoverageWarning,
        stacklevel=external_stacklevel(),
    )
