"""Confidence intervals for released statistics: integral privacy and Laplace.

An interval computed by reading the data again would be a new release (and,
for differential privacy, spend budget).  Both interval families here are
post-processing: they use only the released values and public settings.

Laplace releases (:func:`laplace_describe`).  With global sensitivity the
release of a count, clamped sum, clamped mean, variance or standard
deviation is ``T + e`` with ``e ~ Laplace(b)`` and a public scale ``b =
Delta / epsilon``; ``P(|e| <= b log(1 / (1 - level))) = level`` exactly, so
``release -/+ b log(1 / (1 - level))`` covers the *sample* statistic ``T``
with probability ``level`` over the mechanism's noise (``target="sample"``:
the release is a single draw and the interval is about the mechanism).  For
the *population* mean (of the values clamped into the bounds), the release
is ``mu + (T - mu) + e``, a normal sampling error of variance ``sigma**2 / n``
plus the independent Laplace noise; the half-width is the ``level`` quantile
of ``|N(0, s**2 / n) + Laplace(b)|`` (closed form below).  ``s`` comes
from released values only: the released standard deviation plus a one-sided
quantile (``sd_quantile``, 0.75 by default) of its own Laplace noise,
capped at ``(U - L) / 2`` (the largest standard deviation on the bounds,
also used when no standard deviation was released): the coverage is
concave in ``s``, so plugging in the noisy release undercovers when its
noise is large, while a high-probability bound overcovers.  Likewise for
the sum, with ``n s**2``.  The
propose-test-release IQR, when answered, is the midpoint of the grid cell
``[B**j, B**(j + 1))`` (``B = 1 + 1 / log n``) that holds the sample IQR,
so that cell is an interval that holds it with certainty.  Minimum, maximum
and median come from the exponential mechanism, whose error depends on the
gaps of the data: no interval is given for them.  With
``sensitivity="local"`` the noise scale is data dependent and unreleased:
these intervals assume the default ``sensitivity="global"``.

If ``X = N(0, t**2) + Laplace(b)``, then for ``E ~ Exp(1)``
``P(X <= c) = G(c) = Phi(c / t) - exp(-c / b + t**2 / (2 b**2)) Phi(c / t -
t / b)`` averaged over the sign of the Laplace term, so ``P(|X| <= c) = G(c)
- G(-c)``: integrate ``Phi((c - b E) / t)`` by parts.

Integral privacy (:class:`IntegralPrivateStatistics`).  A released mean is
the most frequent rounded mean of the bootstrap resamples whose generators
share no record: the sample mean plus a selection error of the mode.  Its
variance is ``s**2 / n`` (sampling) plus the variance of that mode around
the centre of the bootstrap distribution, which is computed by simulating
the release rule (``n_resamples`` normal draws of standard deviation ``s /
sqrt(n)``, the bootstrap law of a mean, rounded to ``decimals``; the most
frequent value above ``min_frequency``) from the released standard
deviation and count only.  The same holds for the sum (scaled by ``n``);
the count is released exactly.  The intervals cover the population mean
``E X``.  With input microaggregation the released standard deviation is
that of the cluster centroids, smaller than the data's: the intervals are
then too narrow.

References
----------
C. Dwork and A. Roth (2014), The Algorithmic Foundations of Differential
Privacy (the Laplace tail ``P(|e| > t b) = exp(-t)``).

C. Dwork and J. Lei (2009), "Differential privacy and robust statistics",
STOC (propose-test-release).

C. Ferrando, S. Wang and D. Sheldon (2022), "Parametric bootstrap for
differentially private confidence intervals", AISTATS (intervals for the
population from released values: sampling error plus mechanism noise).

W. J. Reed and M. Jorgensen (2004), "The double Pareto-lognormal
distribution", Communications in Statistics 33 (the normal-Laplace law).

N. Senavirathne and V. Torra (2019), "Integral privacy compliant statistics
computation", DPM 2019.
"""

from __future__ import annotations

import functools
import numbers
from typing import Any

import numpy as np
import pandas as pd
from scipy import optimize, special, stats

from .._uncertainty import (
    COLUMNS,
    ConfidenceIntervalMixin,
    IntervalRequest,
    check_level,
    interval_frame,
    normal_interval,
)
from ._resampling import STATISTICS
from ._sensitivity import global_scale
from ._validation import check_pair

__all__ = ["IntegralIntervalsMixin", "laplace_intervals", "normal_laplace_half_width"]

_SIMULATIONS = 400


def _abs_cdf(c: float, tau: float, b: float) -> float:
    """``P(|N(0, tau**2) + Laplace(b)| <= c)``."""
    if b <= 0:
        return float(2 * special.ndtr(c / tau) - 1) if tau > 0 else float(c >= 0)
    if tau <= 0:
        return float(-np.expm1(-c / b))

    def G(x: float) -> float:
        log_tail = -x / b + tau**2 / (2 * b**2) + special.log_ndtr(x / tau - tau / b)
        return float(special.ndtr(x / tau) - np.exp(log_tail))

    return G(c) - G(-c)


def normal_laplace_half_width(tau: float, b: float, level: float) -> float:
    """Half-width ``c`` with ``P(|N(0, tau**2) + Laplace(b)| <= c) = level``.

    Parameters
    ----------
    tau : float
        Standard deviation of the normal part (``>= 0``).
    b : float
        Laplace scale (``>= 0``).
    level : float
        Coverage, in (0, 1).

    Returns
    -------
    float

    Examples
    --------
    >>> from skprivate.integral._intervals import normal_laplace_half_width
    >>> round(normal_laplace_half_width(0.0, 1.0, 0.95), 4)  # log(20)
    2.9957
    >>> round(normal_laplace_half_width(1.0, 0.0, 0.95), 4)
    1.96
    """
    level = check_level(level)
    if tau < 0 or b < 0 or tau + b <= 0:
        raise ValueError(f"need tau, b >= 0, not both 0; got {tau}, {b}.")
    if b == 0:
        return float(tau * stats.norm.ppf(0.5 + level / 2))
    if tau == 0:
        return float(b * np.log(1.0 / (1.0 - level)))
    high = tau * stats.norm.ppf(0.5 + level / 2) + b * np.log(1.0 / (1.0 - level))
    return float(optimize.brentq(lambda c: _abs_cdf(c, tau, b) - level, 0.0, high))


def laplace_intervals(
    table: pd.DataFrame,
    epsilon: float,
    bounds: Any,
    *,
    n: Any = None,
    level: float = 0.95,
    target: str = "sample",
    sd_quantile: float = 0.75,
) -> pd.DataFrame:
    """Confidence intervals for the statistics released by :func:`laplace_describe`.

    Computed from the released values and the public settings only (no
    data), so they spend no privacy budget.

    Parameters
    ----------
    table : pandas.DataFrame, Series or dict
        The release of :func:`laplace_describe` (statistics as index, one
        column per variable), made with ``sensitivity="global"``; or the
        statistics of one column released by :func:`laplace_statistic`, as a
        Series or a dict ``{statistic: value}`` (column ``"x"``).
    epsilon : float
        The budget each statistic was released with.
    bounds : (float, float) or dict
        The public bounds the release used, one pair or a dict per column.
    n : int, dict or None, default=None
        Number of values of each column (public, as the mean's sensitivity
        assumes); ``None`` takes the released count, rounded.
    level : float or sequence of float, default=0.95
        Confidence level(s).
    target : {"sample", "population"}, default="sample"
        ``"sample"``: the statistic of the data at hand, the interval being
        about the mechanism's noise only (count, sum, mean, var, std: exact;
        iqr: its released grid cell, certain).  ``"population"``: the
        population mean and sum of the clamped values, the sampling error
        (from the released standard deviation) added to the noise; the
        other statistics get no population interval.
    sd_quantile : float in [0.5, 1), default=0.75
        ``target="population"``: the sampling standard deviation is the
        released one plus this one-sided quantile of its own Laplace noise,
        ``b_std log(1 / (2 (1 - sd_quantile)))``.  The median (0.5) plugs in
        the release, which undercovers when that noise is large (the
        coverage is concave in the standard deviation); 0.95 bounds it
        with high probability and overcovers.  0.75 gave coverage in
        [0.95, 0.97] on the designs of ``python -m benchmarks coverage``.

    Returns
    -------
    pandas.DataFrame
        One row per column and statistic: ``quantity`` (the statistic),
        ``point`` (the column), ``estimate`` (the release), ``se``,
        ``lower``, ``upper``, ``level``, ``method``, ``target``; NaN bounds
        where no interval is available, with the reason in ``method``.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from skprivate.integral import laplace_describe, laplace_intervals
    >>> df = pd.DataFrame({"age": np.random.default_rng(0).uniform(20, 60, 10_000)})
    >>> rel = laplace_describe(
    ...     df,
    ...     2.0,
    ...     bounds=(0, 100),
    ...     statistics=("count", "mean", "std"),
    ...     random_state=0,
    ... )
    >>> ci = laplace_intervals(rel, 2.0, (0, 100), n=10_000, target="population")
    >>> ci[["quantity", "estimate", "lower", "upper"]].round(2)
      quantity  estimate    lower     upper
    0    count  10000.52  9999.02  10002.02
    1     mean     39.98    39.74     40.22
    2      std     12.09      NaN       NaN

    A statistic released alone by :func:`laplace_statistic` (here the mean
    and the count, each at ε = 1):

    >>> from skprivate.integral import laplace_statistic
    >>> ages = df["age"].to_numpy()
    >>> released = {
    ...     s: laplace_statistic(ages, s, 1.0, bounds=(0, 100), random_state=1)
    ...     for s in ("count", "mean")
    ... }
    >>> ci = laplace_intervals(released, 1.0, (0, 100), n=10_000)
    >>> ci[["quantity", "lower", "upper", "target"]].round(2)
      quantity    lower     upper       target
    0    count  9995.87  10001.87            n
    1     mean    39.95     40.01  sample mean
    """
    levels = [check_level(v) for v in np.atleast_1d(np.asarray(level, dtype=object))]
    if not 0.5 <= float(sd_quantile) < 1.0:
        raise ValueError(f"sd_quantile must lie in [0.5, 1); got {sd_quantile!r}.")
    if target not in ("sample", "population"):
        raise ValueError(f"target must be 'sample' or 'population'; got {target!r}.")
    if isinstance(table, pd.Series):
        # released statistics of one column, e.g. laplace_statistic results
        table = table.to_frame(table.name if table.name is not None else "x")
    elif isinstance(table, dict):
        table = pd.Series(table, dtype=float).to_frame("x")
    if not isinstance(table, pd.DataFrame):
        raise TypeError(
            "table must be the DataFrame returned by laplace_describe (or a "
            "Series or dict of released statistics of one column)."
        )
    if (
        isinstance(epsilon, bool)
        or not isinstance(epsilon, numbers.Real)
        or not 0 < epsilon < np.inf
    ):
        raise ValueError(f"epsilon must be a finite positive number; got {epsilon!r}.")
    epsilon = float(epsilon)

    known = [s for s in table.index if s in STATISTICS]
    if len(table) == 0 or not known:
        raise ValueError(
            "table must be a release of laplace_describe, indexed by statistic "
            f"names among {list(STATISTICS)}; got index {list(table.index)}."
        )
    for arg, given in (("bounds", bounds), ("n", n)):
        if isinstance(given, dict):
            unknown = [k for k in given if k not in table.columns]
            if unknown:
                raise ValueError(
                    f"{arg} has entries for {unknown}, which are not columns of "
                    f"table {list(table.columns)}."
                )
    rows = []
    for column in table.columns:
        pair = bounds.get(column) if isinstance(bounds, dict) else bounds
        if pair is None:
            raise ValueError(
                f"bounds for column {column!r} are needed: the noise scales derive "
                "from the public bounds the release used."
            )
        lo, hi = check_pair(pair, "bounds")
        values = table[column]
        count = n.get(column) if isinstance(n, dict) else n
        if count is None:
            if "count" not in values.index or not np.isfinite(values["count"]):
                raise ValueError(
                    f"n is needed for column {column!r} (no released count)."
                )
            count = max(round(float(values["count"])), 1)
        if (
            isinstance(count, bool)
            or not isinstance(count, numbers.Real)
            or not 1 <= count < np.inf
        ):
            raise ValueError(
                f"n must be a number of values >= 1 (per column); got {count!r} "
                f"for column {column!r}."
            )
        count = float(count)
        std = values.get("std", np.nan)
        for level in levels:
            for statistic, value in values.items():
                rows.append(
                    _laplace_row(
                        statistic,
                        column,
                        float(value),
                        count,
                        epsilon,
                        lo,
                        hi,
                        level,
                        target,
                        std,
                        float(sd_quantile),
                    )
                )
    return pd.DataFrame(rows, columns=COLUMNS)


def _laplace_row(
    statistic, column, value, n, epsilon, lo, hi, level, target, std, sd_quantile
):
    def frame(lower, upper, method, what, se=np.nan):
        return {
            "quantity": statistic,
            "point": column,
            "estimate": value,
            "se": float(se),
            "lower": float(lower),
            "upper": float(upper),
            "level": level,
            "method": method,
            "target": what,
        }

    if not np.isfinite(value):
        return frame(np.nan, np.nan, "unavailable: no release", "")
    if statistic in ("min", "max", "median"):
        return frame(
            np.nan,
            np.nan,
            "unavailable: exponential mechanism (error depends on the data)",
            "",
        )
    if statistic == "iqr":
        if target == "population":
            return frame(np.nan, np.nan, "unavailable for the population", "")
        base = 1.0 + 1.0 / np.log(n)
        half = np.sqrt(base)
        return frame(
            value / half,
            value * half,
            "propose-test-release grid cell (certain)",
            "sample IQR",
        )
    b = global_scale(statistic, n, epsilon, lo, hi)
    if target == "sample" or statistic == "count":
        c = b * np.log(1.0 / (1.0 - level))
        what = "n" if statistic == "count" else f"sample {statistic}"
        return frame(
            value - c, value + c, "laplace noise (exact)", what, se=np.sqrt(2) * b
        )
    if statistic not in ("mean", "sum"):
        return frame(np.nan, np.nan, "unavailable for the population", "")
    worst = (hi - lo) / 2.0
    if np.isfinite(std):
        # The released std carries Laplace noise of its own: add a one-sided
        # quantile of it (never above the largest possible SD).
        b_std = global_scale("std", n, epsilon, lo, hi)
        slack = b_std * np.log(1.0 / (2.0 * (1.0 - sd_quantile)))
        s = min(worst, max(float(std), 0.0) + slack)
        note = ""
    else:
        s, note = worst, ", worst-case s = (U - L) / 2"
    tau = s / np.sqrt(n) if statistic == "mean" else s * np.sqrt(n)
    c = normal_laplace_half_width(tau, b, level)
    return frame(
        value - c,
        value + c,
        f"laplace noise + sampling (normal){note}",
        "population mean of the clamped values"
        if statistic == "mean"
        else "n x population mean of the clamped values",
        se=np.sqrt(tau**2 + 2 * b**2),
    )


@functools.lru_cache(maxsize=256)
def _mode_variance(sd: float, step: float, draws: int, min_frequency: int) -> float:
    """Variance of the most frequent rounded draw of ``N(0, sd**2)`` about 0.

    ``draws`` values rounded to multiples of ``step`` (a uniform offset
    between the centre and the grid), the most frequent one kept if it
    occurs more than ``min_frequency`` times; simulated with a fixed seed.
    """
    rng = np.random.default_rng(20240528)
    devs = []
    for _ in range(_SIMULATIONS):
        offset = rng.uniform(0, step)
        k = np.round((offset + sd * rng.standard_normal(draws)) / step).astype(np.int64)
        values, counts = np.unique(k, return_counts=True)
        if counts.max() <= min_frequency:
            continue
        top = values[counts == counts.max()]
        devs.append(float(top.min()) * step - offset)
    if not devs:
        return sd**2
    return float(np.mean(np.square(devs)))


class IntegralIntervalsMixin(ConfidenceIntervalMixin):
    """``conf_int`` of :class:`IntegralPrivateStatistics`: mean, sum and count.

    ``points`` are column names (default: all).  Computed from
    ``results_`` (the released values) only; a column whose mean, standard
    deviation or count was not released gets NaN bounds with the reason.
    """

    def _ci_offers_kind(self, kind: str) -> bool:
        return kind in ("mean", "sum", "count")

    def _ci_release(self, request: IntervalRequest) -> pd.DataFrame:
        request.choose(("released",), "released", type(self).__name__)
        table = self.results_.pivot(index="column", columns="statistic", values="value")
        columns = list(dict.fromkeys(self.results_["column"]))
        if request.points is not None:
            asked = list(np.ravel(np.asarray(request.points, dtype=object)))
            unknown = [c for c in asked if c not in columns]
            if unknown:
                raise ValueError(f"unknown columns {unknown}; have {columns}.")
            columns = asked
        rows = []
        for column in columns:
            got = table.loc[column]
            value = float(got.get(request.kind, np.nan))
            count = float(got.get("count", np.nan))
            std = float(got.get("std", np.nan))
            rows.append(self._ci_one(request, column, value, count, std))
        return pd.concat(rows, ignore_index=True)

    def _ci_one(self, request, column, value, count, std) -> pd.DataFrame:
        kind, level = request.kind, request.level
        if kind == "count":
            return interval_frame(
                kind, [column], value, value, value, level, "exact", "n"
            )
        missing = [
            name
            for name, v in ((kind, value), ("count", count), ("std", std))
            if not np.isfinite(v)
        ]
        if missing:
            return interval_frame(
                kind,
                [column],
                value,
                np.nan,
                np.nan,
                level,
                f"unavailable: needs the released {', '.join(missing)}",
                "",
            )
        sd = std / np.sqrt(count) if kind == "mean" else std * np.sqrt(count)
        if self.decimals is None or sd <= 0:
            mode_var = sd**2
        else:
            step = 10.0 ** (-int(self.decimals))
            mode_var = _mode_variance(
                # the cache key keeps 12 significant digits, not 12 decimals:
                # a standard deviation below 1e-12 is not rounded to 0
                float(f"{float(sd):.12g}"),
                step,
                int(self.n_resamples),
                int(self.min_frequency),
            )
        se = float(np.sqrt(sd**2 + mode_var))
        lower, upper = normal_interval(value, se, level)
        return interval_frame(
            kind,
            [column],
            value,
            lower,
            upper,
            level,
            "released std and count, release-rule variance",
            "population mean" if kind == "mean" else "n x population mean",
            se=se,
        )

    def _conf_int_mean(self, request: IntervalRequest) -> pd.DataFrame:
        return self._ci_release(request)

    def _conf_int_sum(self, request: IntervalRequest) -> pd.DataFrame:
        return self._ci_release(request)

    def _conf_int_count(self, request: IntervalRequest) -> pd.DataFrame:
        return self._ci_release(request)
