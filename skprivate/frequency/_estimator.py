"""Estimating category frequencies from frequency-oracle reports.

The sufficient statistic of every estimate is the count of each distinct
report row: the unbiased estimate reads the support counts
``C(v) = sum_i [v in support(report_i)]``, the iterative Bayesian update
the likelihood of each distinct report, and the bootstrap resamples the
distinct reports with multinomial counts (the same law as resampling the
rows).  Counts merge by addition, so ``fit``, ``partial_fit`` and a dask
collection share one implementation.
"""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike, NDArray
from scipy import stats
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted

from .._uncertainty import IntervalRequest
from ..base import (
    ParamsValidationMixin,
    PrivatizedInputMixin,
    SufficientStatisticMixin,
)
from ..distributions import (
    DiscreteDistribution,
    PopulationEstimateMixin,
    mean_log_pmf_of_categories,
)
from ..utils import HasMethods, Interval, Options
from ..utils import _support_mle as support_mle
from ..utils._statistic import RowStatistic, validate_rows
from ._pmf_intervals import pmf_conf_int
from ._privatizers import _FrequencyPrivatizer

__all__ = ["FrequencyEstimator", "norm_sub", "oracle_variance"]

CHUNK_ROWS = 65_536


def _check_vector(
    value: Any, name: str, size: int | None = None, unit: bool = False
) -> NDArray[np.float64]:
    """A finite 1-D float vector (of ``size``; in [0, 1] with ``unit``)."""
    try:
        out = np.asarray(value, dtype=float)
    except (TypeError, ValueError):
        raise ValueError(f"{name} must be an array of numbers.") from None
    if out.ndim != 1 or out.size == 0:
        raise ValueError(
            f"{name} must be a non-empty 1-D array; got shape {out.shape}."
        )
    if size is not None and out.size != size:
        raise ValueError(f"{name} must have {size} entries; got {out.size}.")
    if not np.all(np.isfinite(out)):
        raise ValueError(f"{name} must hold finite numbers (no NaN or inf).")
    if unit and np.any((out < 0) | (out > 1)):
        raise ValueError(f"{name} must hold frequencies in [0, 1].")
    return out


def _check_count(value: Any, name: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an integer; got {type(value).__name__}.")
    if value < minimum:
        raise ValueError(f"{name} must be at least {minimum}; got {value}.")
    return int(value)


def norm_sub(values: ArrayLike) -> NDArray[np.float64]:
    """Norm-Sub consistency: ``max(f_v - delta, 0)`` with the ``delta`` summing to 1.

    The Euclidean projection onto the probability simplex (Wang, Lopuhaä-Zwakenberg
    et al., 2020, "Norm-Sub").

    Parameters
    ----------
    values : array-like of shape (k,)
        Unbiased estimates.

    Returns
    -------
    ndarray of shape (k,)
        Non-negative, summing to one.

    Examples
    --------
    >>> from skprivate.frequency import norm_sub
    >>> norm_sub([0.7, 0.5, -0.2]).tolist()
    [0.6, 0.4, 0.0]
    """
    v = _check_vector(values, "values")
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    idx = np.arange(1, v.size + 1)
    rho = np.flatnonzero(u - css / idx > 0)[-1]
    return np.maximum(v - css[rho] / (rho + 1), 0.0)


def oracle_variance(
    privatizer: Any, n_samples: int, frequencies: ArrayLike, column: int = 0
) -> NDArray[np.float64]:
    """Closed-form variance of the unbiased frequency estimate of each category.

    ``[f_v p* (1 - p*) + (1 - f_v) q* (1 - q*)] / (n (p* - q*)**2)`` with the
    realised ``p*`` and ``q*`` of the column's oracle.

    Parameters
    ----------
    privatizer : fitted frequency privatizer
        For example :class:`~skprivate.frequency.FrequencyOracle`.
    n_samples : int
        Number of reports.
    frequencies : array-like of shape (k,)
        The true frequencies ``f``.
    column : int, default=0
        The privatized column.

    Returns
    -------
    ndarray of shape (k,)

    Examples
    --------
    >>> from skprivate.frequency import FrequencyOracle, oracle_variance
    >>> fo = FrequencyOracle(oracle="krr", epsilon=1.0, categories=[[0, 1]])
    >>> fo = fo.fit([[0], [1]])
    >>> oracle_variance(fo, 1000, [0.5, 0.5]).round(5).tolist()
    [0.00092, 0.00092]
    """
    if not isinstance(privatizer, _FrequencyPrivatizer):
        raise TypeError(
            "privatizer must be a fitted frequency privatizer of "
            f"skprivate.frequency; got {type(privatizer).__name__}."
        )
    check_is_fitted(privatizer, msg="privatizer is not fitted; call fit first.")
    n_samples = _check_count(n_samples, "n_samples", 1)
    column = _check_count(column, "column", 0)
    if column >= len(privatizer.oracles_):
        raise ValueError(
            f"column must be below the number of privatized columns "
            f"({len(privatizer.oracles_)}); got {column}."
        )
    oracle = privatizer.oracles_[column]
    f = _check_vector(frequencies, "frequencies", oracle.n_categories, unit=True)
    return oracle.variance(f, n_samples)


def _row_keys(rows: NDArray, limits: NDArray) -> NDArray:
    """One sortable key per report row.

    Mixed-radix int64 codes when the product of the column limits fits in
    63 bits (every oracle but very wide unary encodings and huge hashes);
    otherwise the row's bytes (0/1 rows packed to bits).
    """
    if float(np.prod(limits.astype(float))) < 2.0**62:
        radix = np.concatenate([[1], np.cumprod(limits[:-1])]).astype(np.int64)
        return rows @ radix
    if (limits == 2).all():
        rows = np.packbits(rows.astype(np.uint8), axis=1)
    data = np.ascontiguousarray(rows)
    return data.view(np.dtype((np.void, data.dtype.itemsize * data.shape[1])))[:, 0]


def _distinct_rows(rows: NDArray, limits: NDArray, counts: NDArray | None = None):
    """Distinct rows of an int64 report matrix and their counts."""
    if rows.shape[0] == 0:
        return rows.reshape(0, rows.shape[1]), np.zeros(0, dtype=np.int64)
    keys = _row_keys(rows, limits)
    _, first, inverse = np.unique(keys, return_index=True, return_inverse=True)
    total = np.bincount(inverse.ravel(), weights=counts, minlength=first.size)
    return rows[first], np.rint(total).astype(np.int64)


class _ReportCounts(RowStatistic):
    """Counts of the distinct reports of one frequency-oracle column."""

    def __init__(self, oracle: Any, categories: NDArray, name: str = "X") -> None:
        self.oracle = oracle
        self.categories = categories
        self.name = name

    def block(self, rows, first_row):
        R = np.asarray(rows)
        if R.ndim != 2 or R.shape[1] != self.oracle.n_outputs:
            raise ValueError(
                f"{self.name} must have {self.oracle.n_outputs} report columns (the "
                f"{self.oracle.kind} reports of one column); got shape {R.shape}."
            )
        if R.dtype.kind not in "biuf":
            raise TypeError(
                f"{self.name} must hold integer report codes; got dtype {R.dtype}."
            )
        limits = np.asarray(self.oracle.output_limits())
        with np.errstate(invalid="ignore"):
            ok = np.isfinite(R) & (np.round(R) == R) & (R >= 0) & (limits > R)
        if not ok.all():
            row, col = np.argwhere(~ok)[0]
            raise ValueError(
                f"Row {first_row + row} of {self.name} has a report outside the "
                f"oracle's outputs in column {col} (integers 0 to "
                f"{limits[col] - 1} expected)."
            )
        return _distinct_rows(R.astype(np.int64), limits)

    def merge(self, values):
        rows = np.concatenate([v[0] for v in values])
        counts = np.concatenate([v[1] for v in values])
        limits = np.asarray(self.oracle.output_limits())
        return _distinct_rows(rows, limits, counts)


def _support_counts(oracle: Any, rows: NDArray, counts: NDArray) -> NDArray:
    out = np.zeros(oracle.n_categories)
    for start in range(0, rows.shape[0], CHUNK_ROWS):
        block = rows[start : start + CHUNK_ROWS]
        out += counts[start : start + CHUNK_ROWS] @ oracle.support(block)
    return out


def _ibu(oracle, rows, counts, max_iter, tol):
    """The iterative Bayesian update's limit: the maximum-likelihood pmf.

    A report's likelihood under category ``v`` is proportional to
    ``1 + (e**log_rho - 1) 1[report supports v]``, so the IBU (the EM map
    of this mixture) converges to the maximizer of a concave likelihood on
    the simplex.  Plain IBU creeps towards a maximum on the boundary (a
    category with no mass) sublinearly, so its own stopping test can hold
    far from the limit; the limit is computed instead by the IBU with
    SQUAREM extrapolation, then held to ``tol * 1e-3`` by active-set Newton
    steps from there (the same optimum, reached in a few steps).
    """
    k = oracle.n_categories
    support = oracle.support(rows).astype(float)
    s = float(np.expm1(oracle.log_rho))
    uniform = np.full(k, 1.0 / k)
    f, n_em = support_mle.em(
        support, counts, uniform, s, 1.0, max_iter, tol, acceleration="squarem"
    )
    f, n_newton = support_mle.mle_newton(
        support, counts, f, s, 1.0, max_iter, tol * 1e-3
    )
    return f / f.sum(), n_em + n_newton


class FrequencyEstimator(
    SufficientStatisticMixin,
    PrivatizedInputMixin,
    PopulationEstimateMixin,
    ParamsValidationMixin,
    BaseEstimator,
):
    """Estimate category frequencies from the reports of a frequency oracle.

    Parameters
    ----------
    oracle : frequency privatizer or None
        The public description of the mechanism that produced the reports
        (one column): a fitted privatizer, or an unfitted one with declared
        categories (rebuilt from them).  Ignored when ``privatizer`` is set.
        The estimate only post-processes the reports:
        :func:`~skprivate.privacy_report` of the fitted estimator states the
        guarantee of this privatizer's release.
    privatizer : frequency privatizer or None
        With a privatizer, :meth:`fit` takes raw categories (one column)
        and privatizes them first.
    method : {"unbiased", "norm-sub", "base-cut", "ibu"}, default="unbiased"
        ``"unbiased"``: ``(C(v)/n - q*) / (p* - q*)``, which may be negative;
        ``"norm-sub"``: its Euclidean projection on the simplex;
        ``"base-cut"``: estimates below the Bonferroni threshold
        ``z_{1 - alpha/k} sigma_0`` set to 0 (``sigma_0`` the standard
        error of a category of frequency 0), the others kept (not
        normalised); ``"ibu"``: the limit of the iterative Bayesian update,
        which is the maximum-likelihood pmf (computed by the update with
        SQUAREM extrapolation, then active-set Newton steps, which reach a
        maximum on the simplex's boundary exactly where the plain update
        only creeps towards it).
    alpha : float in (0, 1), default=0.05
        Family-wise level of ``"base-cut"``.
    max_iter : int, default=10000
        Iteration limit of the update (and, separately, of the Newton
        steps) for ``"ibu"``.
    tol : float, default=1e-10
        The update stops when no frequency moves more than ``tol``; the
        Newton steps then stop at ``tol * 1e-3``.

    Attributes
    ----------
    distribution_ : ndarray of shape (k,)
        The estimate of ``method``.
    distribution_raw_ : ndarray of shape (k,)
        The unbiased estimate.
    variance_ : ndarray of shape (k,)
        Closed-form variance of ``distribution_raw_`` at the plug-in
        frequencies ``clip(distribution_raw_, 0, 1)``.
    support_counts_ : ndarray of shape (k,)
        ``C(v)``, the number of reports supporting each category.
    categories_ : ndarray
        Category labels.
    oracle_ : oracle object
        The column's oracle (``p_star``, ``q_star``, ...).
    reports_, report_counts_ : ndarray
        The distinct reports and how often each occurred.
    n_samples_seen_ : int
        Number of reports.
    n_iter_ : int
        IBU iterations (0 otherwise).
    privatizer_ : privatizer or None
        Fitted clone of ``privatizer``.
    released_ : ndarray or None
        The reports ``privatizer`` released.
    n_features_in_ : int
        Number of columns seen in ``fit``: the report columns, or with
        ``privatizer`` the raw column (one).
    feature_names_in_ : ndarray of str
        Names of those columns, when ``fit`` was given a DataFrame with
        string column names.

    Notes
    -----
    ``conf_int("pmf")`` bounds each category's share ``P(X = category)`` in
    the population the respondents were drawn from: ``"normal"`` intervals
    of the unbiased estimate (the default for ``method="unbiased"``), whose
    variance is the oracle's closed-form variance ``variance_`` (the noise
    of the reports given the respondents' values) plus the sampling
    variance ``f (1 - f) / n`` of the respondents, or ``"bootstrap"``
    percentile intervals of ``distribution_`` (the default for
    ``"norm-sub"`` and ``"ibu"``), resampling the reports through
    multinomial counts of the distinct reports, which carries both.  For
    ``method="base-cut"`` the default is the normal interval of the unbiased
    estimate, clipped to ``[0, 1]`` and widened to hold the base-cut
    estimate (the frame's ``estimate``): the cut makes the estimate jump
    at its threshold, and the percentile bootstrap of a category whose
    share lies near the threshold covers less often than its level, so an
    explicit ``method="bootstrap"`` warns (``CoverageWarning``) and names
    the categories the cut zeroes in more than ``(1 - level) / 2`` of the
    resamples (see :mod:`skprivate.frequency._pmf_intervals`).  Neither
    needs data: after a fit with ``privatizer=``, data passed to
    ``conf_int`` are refused (they would be the raw values).

    The statistic is the count of each distinct report, which merges by
    addition, so ``partial_fit`` and a dask collection give the fit of all
    the rows at once.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.frequency import FrequencyEstimator, FrequencyOracle
    >>> x = np.random.default_rng(0).choice(4, size=(20000, 1), p=[0.1, 0.2, 0.3, 0.4])
    >>> fo = FrequencyOracle(epsilon=2.0, categories=[[0, 1, 2, 3]], random_state=0)
    >>> est = FrequencyEstimator(privatizer=fo, method="norm-sub").fit(x)
    >>> est.distribution_.round(1).tolist()
    [0.1, 0.2, 0.3, 0.4]
    >>> ci = est.conf_int("pmf", method="normal")
    >>> ci[["point", "lower", "upper"]].shape
    (4, 3)
    """

    _parameter_constraints: ClassVar[dict] = {
        "oracle": [None, HasMethods(["fit", "transform"])],
        "privatizer": [None, HasMethods(["fit", "transform"])],
        "method": [Options({"unbiased", "norm-sub", "base-cut", "ibu"})],
        "alpha": [Interval(numbers.Real, 0, 1, closed="neither")],
        "max_iter": [Interval(numbers.Integral, 1, None)],
        "tol": [Interval(numbers.Real, 0, None, closed="neither")],
    }
    # the counts of distinct reports depend on the mechanism only; the
    # method and its settings read the merged counts
    _STREAM_SETTINGS = ("oracle", "privatizer")

    def __init__(
        self,
        oracle: Any = None,
        privatizer: Any = None,
        method: str = "unbiased",
        alpha: float = 0.05,
        max_iter: int = 10_000,
        tol: float = 1e-10,
    ) -> None:
        self.oracle = oracle
        self.privatizer = privatizer
        self.method = method
        self.alpha = alpha
        self.max_iter = max_iter
        self.tol = tol

    def fit(self, X: ArrayLike, y: Any = None):
        """Estimate the frequencies from reports ``X``.

        Parameters
        ----------
        X : array-like or dask collection of shape (n_samples, n_report_columns)
            The reports of one column (raw categories, one column, with
            ``privatizer``).
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        return self._fit_statistic(X)

    def partial_fit(self, X: ArrayLike, y: Any = None):
        """Add a chunk of reports; the counts of all chunks are merged.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_report_columns)
            Reports (raw categories with ``privatizer``).
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        return self._partial_fit_statistic(X)

    # -- the statistic protocol ------------------------------------------
    def _statistic_input(self, X, reset):
        if self.privatizer is None:  # reports of one column
            if reset:
                X = self._privatize(X)  # no privatizer: privatizer_ = None
            return validate_rows(
                self, X, reset=reset, dtype=None, ensure_all_finite=False
            )
        # Raw categories: the input attributes (n_features_in_,
        # feature_names_in_) describe them, as a learner's do, and name the
        # column in privacy_report; the release is checked by the statistic
        # against the oracle's outputs.  The privatizer reads X itself, so it
        # records the same names.
        validate_rows(self, X, reset=reset, dtype=None, ensure_all_finite=False)
        if reset:
            return self._privatize(X, stream=True)
        return self._release_chunk(X)

    def _resolve_oracle(self) -> tuple[Any, NDArray]:
        source = self.privatizer_ if self.privatizer is not None else self.oracle
        name = "privatizer" if self.privatizer is not None else "oracle"
        if source is None:
            raise ValueError(
                "oracle must be given: the frequency privatizer (fitted, or with "
                "declared categories) that produced the reports."
            )
        if not isinstance(source, _FrequencyPrivatizer):
            raise TypeError(
                f"{name} must be a frequency privatizer of skprivate.frequency; got "
                f"{type(source).__name__}."
            )
        if not hasattr(source, "oracles_"):
            declared = source.get_params()["categories"]
            if isinstance(declared, str):
                raise ValueError(
                    f"{name} is not fitted and declares no categories; pass the "
                    "fitted privatizer or declare categories=[[...]]."
                )
            frame = pd.DataFrame(
                {
                    f"x{j}": pd.Series(list(c), dtype=object)
                    for j, c in enumerate(declared)
                }
            ).iloc[:2]
            source = clone(source).fit(frame)
        if len(source.oracles_) != 1:
            raise ValueError(
                f"{name} privatizes {len(source.oracles_)} columns; one column is "
                "needed here. Fit one privatizer per column."
            )
        return source.oracles_[0], np.asarray(source.categories_[0])

    def _statistic_plan(self, data, stream):
        oracle, cats = self._resolve_oracle()
        return _ReportCounts(oracle, cats)

    def _statistic_fit(self, statistic, total, added):
        rows, counts = total
        if counts.sum() == 0:
            raise ValueError("X holds no report; there is nothing to estimate from.")
        self.oracle_ = statistic.oracle
        self.categories_ = statistic.categories
        self.reports_ = rows
        self.report_counts_ = counts
        self.n_samples_seen_ = int(counts.sum())
        self.support_counts_ = _support_counts(self.oracle_, rows, counts)
        self.distribution_raw_, self.distribution_, self.n_iter_ = self._estimate(
            rows, counts, self.support_counts_
        )
        plug_in = np.clip(self.distribution_raw_, 0.0, 1.0)
        self.variance_ = self.oracle_.variance(plug_in, self.n_samples_seen_)

    def _estimate(self, rows, counts, support_counts):
        oracle = self.oracle_
        n = counts.sum()
        p, q = oracle.p_star, oracle.q_star
        raw = (support_counts / n - q) / (p - q)
        n_iter = 0
        if self.method == "unbiased":
            out = raw
        elif self.method == "norm-sub":
            out = norm_sub(raw)
        elif self.method == "base-cut":
            k = oracle.n_categories
            sigma0 = np.sqrt(oracle.variance(0.0, n))
            threshold = stats.norm.ppf(1.0 - float(self.alpha) / k) * sigma0
            out = np.where(raw >= threshold, raw, 0.0)
        else:
            out, n_iter = _ibu(oracle, rows, counts, self.max_iter, self.tol)
        return raw, out, n_iter

    # -- population interface ---------------------------------------------
    def _distribution(self) -> DiscreteDistribution:
        w = np.clip(self.distribution_, 0.0, None)
        if w.sum() == 0:
            w = np.full(w.size, 1.0 / w.size)
        return DiscreteDistribution(np.arange(w.size), w)

    def pmf(self, x: ArrayLike) -> NDArray[np.float64]:
        """Estimated frequency of categories ``x`` (labels of ``categories_``).

        Parameters
        ----------
        x : array-like
            Category labels.

        Returns
        -------
        ndarray
            ``distribution_`` at each label (0 for a label that is not a
            category).
        """
        check_is_fitted(self)
        x = np.asarray(x, dtype=object)
        lookup = {c: i for i, c in enumerate(self.categories_.tolist())}
        idx = np.array([lookup.get(v, -1) for v in x.ravel().tolist()], dtype=int)
        out = np.where(idx >= 0, self.distribution_[np.maximum(idx, 0)], 0.0)
        return out.reshape(x.shape)

    def score(self, X: ArrayLike, y: Any = None) -> float:
        """Mean log-likelihood per row of held-out data.

        With a ``privatizer``, ``X`` holds clean categories (one column) and
        the score is the mean log of their estimated frequencies (floored at
        1e-12), so a search over the privatizer's parameters is scored on
        clean data; otherwise ``X`` holds reports and the score is the mean
        of ``log P(report)`` under the estimate (clipped at 0 and
        normalised) and the oracle.

        Parameters
        ----------
        X : array-like
            Clean categories (with a privatizer) or reports.
        y : None
            Ignored.

        Returns
        -------
        score : float
        """
        check_is_fitted(self)
        if self.privatizer_ is not None:
            return mean_log_pmf_of_categories(self.pmf, X)
        statistic = _ReportCounts(self.oracle_, self.categories_)
        rows, counts = statistic.block(np.asarray(X), 0)
        w = self._distribution().weights
        support = self.oracle_.support(rows)
        log_prob = self.oracle_.log_base(rows) + np.log1p(
            np.expm1(self.oracle_.log_rho) * (support @ w)
        )
        return float(counts @ log_prob / counts.sum())

    # -- confidence intervals -----------------------------------------------
    def _ci_offers_kind(self, kind: str) -> bool:
        return kind == "pmf"

    def _ci_kept_release(self):
        # the intervals read the counts of distinct reports; data passed
        # after a fit with privatizer= would be raw values: refused
        if getattr(self, "privatizer_", None) is None:
            return None
        return {"X": None, "y": None}

    def _conf_int_pmf(self, request: IntervalRequest) -> pd.DataFrame:
        """``"normal"``: the unbiased estimate with its closed-form variance
        plus the sampling variance; ``"bootstrap"``: percentile bootstrap of
        ``distribution_`` (the reports resampled with replacement through
        multinomial counts of the distinct reports).  ``"auto"`` is
        ``"normal"`` for ``method="unbiased"`` and ``"base-cut"`` (around
        the base-cut estimate) and ``"bootstrap"`` otherwise (see
        :mod:`._pmf_intervals`)."""
        return pmf_conf_int(
            request,
            self,
            normal="normal (closed-form oracle variance plus sampling variance, "
            "plug-in frequencies)",
            bootstrap="bootstrap-percentile (reports resampled)",
            estimate=self._resampled_estimate,
        )

    def _resampled_estimate(self, rows: NDArray, counts: NDArray) -> NDArray:
        support = _support_counts(self.oracle_, rows, counts)
        return self._estimate(rows, counts, support)[1]

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = False
        return tags
