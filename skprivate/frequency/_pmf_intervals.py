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
  variance.

``"auto"`` is ``"normal"`` for ``method="unbiased"`` and ``"bootstrap"``
otherwise.  Each estimator says what its normal variance and its resampled
rows are; the frames and the resampling are computed here.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
from numpy.typing import NDArray

from .._uncertainty import IntervalRequest, interval_frame, normal_frame
from ..utils import check_generator

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
    auto = "normal" if owner.method == "unbiased" else "bootstrap"
    how = request.choose(("normal", "bootstrap"), auto, type(owner).__name__)
    labels = list(owner.categories_.tolist())
    if how == "normal":
        # the mechanism's variance given the respondents' values, plus the
        # variance of sampling them, f (1 - f) / n: the interval covers the
        # population share, as the bootstrap of respondents does
        share = np.clip(owner.distribution_raw_, 0.0, 1.0)
        sampling = share * (1.0 - share) / owner.n_samples_seen_
        return normal_frame(
            "pmf",
            labels,
            owner.distribution_raw_,
            np.sqrt(owner.variance_ + sampling),
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
    return interval_frame(
        "pmf",
        labels,
        owner.distribution_,
        np.quantile(reps, alpha / 2, axis=0),
        np.quantile(reps, 1 - alpha / 2, axis=0),
        request.level,
        bootstrap,
        f"{TARGET}, {owner.method} estimate",
        se=reps.std(axis=0, ddof=1),
    )
