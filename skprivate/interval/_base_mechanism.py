"""What every interval mechanism shares: design hooks, fit, transform, privacy.

Subclasses define the anchor design (``_components``, ``_n_anchors``); the
base turns it into reported cells, feature names and the privacy coverage.
The survey-side methods come from :class:`~skprivate.interval._survey.SurveyMixin`.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import ParamsValidationMixin, PrivatizerMixin
from ..exceptions import NotIdentifiableWarning, PrivacyLeakWarning
from ..utils import HasMethods, Interval, Options
from ..utils._row_blocks import in_row_blocks
from ..utils._statistic import RowStatistic
from ..utils._warnings import external_stacklevel
from ..utils.validation import check_numeric_input
from ._anchors import (
    AnchorDistribution,
    as_cdf,
    cell_bounds,
    check_acceptable_range,
    in_fixed_set,
)
from ._coverage import design_disclosure
from ._exact_laws import interval_exact_law
from ._survey import SurveyMixin

__all__ = ["_BaseIntervalMechanism"]

_DISTRIBUTION = [Options({"logistic", "normal", "uniform"}), HasMethods(["cdf", "ppf"])]
_COMMON_CONSTRAINTS: dict[str, list] = {
    "distribution": _DISTRIBUTION,
    "loc": [Interval(numbers.Real, None, None)],
    "scale": [Interval(numbers.Real, 0, None, closed="neither")],
    "anchor_loc": [Interval(numbers.Real, None, None), "array-like"],
    "anchor_scale": [Interval(numbers.Real, 0, None, closed="neither"), "array-like"],
    "support": ["array-like", None],
    "random_state": ["random_state"],
}
_N_COVERAGE_DRAWS = 200_000
# The fit-time check of the design against the data.  Anchor draws of its
# Monte Carlo: the standard error is at most 0.5 / sqrt(20,000) < 0.004, both
# figures being means of terms in [0, 1].  The coverage comparison needs
# enough rows for the data's own figure to mean something.  Then the
# thresholds of the warnings.  Nothing computed here is kept: the warnings
# carry one bit each and no figure of the data.
_N_DATA_DRAWS = 20_000
_MIN_ROWS_COVERAGE_CHECK = 200
_EXACT_SHARE_LIMIT = 0.5
_COVERAGE_GAP = 0.1


class _ColumnCounts(RowStatistic):
    """How many values of each column lie at or below given points.

    The empirical CDF of every fitted column at the points where the design
    check evaluates it (the anchors drawn for the check and the ends of the
    fixed set), so that the check reads all the rows, in memory or
    partition by partition on a dask collection, through counts that add
    up.  A block is validated as ``fit`` validates the data (numbers,
    finite), naming a refused value by its row in the whole data.

    Parameters
    ----------
    points : list of ndarray
        Per column, the sorted distinct points.
    """

    def __init__(self, points: list[NDArray[np.float64]]) -> None:
        self.points = points

    def block(self, rows, first_row):
        values = check_numeric_input(rows, finite=True, first_row=first_row)
        values = np.asarray(values, dtype=float)
        if values.ndim != 2 or values.shape[1] != len(self.points):
            raise ValueError(
                f"X must have {len(self.points)} columns, as the data the "
                f"privatizer was fitted on; got shape {values.shape}."
            )
        return [
            np.searchsorted(np.sort(values[:, j]), at, side="right")
            for j, at in enumerate(self.points)
        ]

    def merge(self, values):
        return [np.sum(column, axis=0) for column in zip(*values)]


def _counted_cdf(points: NDArray, counts: NDArray, n: int):
    """The empirical CDF from :class:`_ColumnCounts`, at its points only."""

    def cdf(t):
        t = np.asarray(t, dtype=float)
        index = np.minimum(np.searchsorted(points, t), points.size - 1)
        counted = np.array_equal(points[index], t, equal_nan=True)
        if not counted:  # pragma: no cover - a point the statistic left out
            raise RuntimeError("the empirical CDF was not counted at every point")
        return counts[index] / n

    return cdf


def _per_column(value: Any, n_features: int, name: str) -> NDArray[np.float64]:
    arr = np.asarray(value, dtype=float)
    try:
        arr = np.broadcast_to(arr, (n_features,)).copy()
    except ValueError as exc:
        raise ValueError(
            f"{name} must be a scalar or have one entry per column ({n_features}); "
            f"got shape {np.shape(value)}."
        ) from exc
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite; got {value!r}.")
    return arr


def _is_pair(declared: Any) -> bool:
    # each end may be a per-column array, so (0, [1, 2]) and a (2, d) array
    # are pairs too (np.ndim refuses the first and says 2 for the second)
    return (
        not isinstance(declared, str | bytes | dict)
        and hasattr(declared, "__len__")
        and len(declared) == 2
    )


def _declares_exact_cells(mechanism: Any) -> bool:
    """Whether a design releases some cells' values exactly.

    Read from the normalized cells (a numpy array of cells has no single
    truth value: ``np.array([0])`` is cell 0, not "none").
    """
    normalized = getattr(mechanism, "_exact_cells", None)
    if callable(normalized):
        return len(normalized()) > 0
    cells = getattr(mechanism, "exact_cells", None)
    return cells is not None and np.size(cells) > 0


class _BaseIntervalMechanism(SurveyMixin, PrivatizerMixin, BaseEstimator):
    """Shared machinery; subclasses define ``_components(rng, n, j)``."""

    # without a declared support, seeded releases are those of the settings
    # before `support` existed
    _PARAMETERS_ADDED_LATER: ClassVar[dict[str, Any]] = {"support": None}

    # -- design, overridden by subclasses -----------------------------------
    def _n_columns_hint(self) -> int:
        if hasattr(self, "n_features_in_"):
            return self.n_features_in_
        sizes = [np.size(self.anchor_loc), np.size(self.anchor_scale)]
        declared = getattr(self, "support", None)
        if _is_pair(declared):
            sizes += [np.size(end) for end in declared if end is not None]
        return max(sizes)

    def _standardization(self, j: int) -> tuple[float, float]:
        # a scalar broadcasts to any column (members of an ensemble are asked
        # about the ensemble's columns before they learn their count)
        d = max(self._n_columns_hint(), j + 1)
        a_loc = _per_column(self.anchor_loc, d, "anchor_loc")
        a_scale = _per_column(self.anchor_scale, d, "anchor_scale")
        if np.any(a_scale <= 0):
            raise ValueError(
                f"anchor_scale must be positive; got {self.anchor_scale!r}."
            )
        return float(a_loc[j]), float(a_scale[j])

    def _value_support(self, j: int) -> tuple[float, float]:
        """The declared range ``[low, high]`` of the values of column ``j``."""
        declared = getattr(self, "support", None)
        if declared is None:
            return -np.inf, np.inf
        if not _is_pair(declared):
            raise ValueError(
                "support must be a pair (low, high) of the values' range, each "
                "end a number, a per-column array or None (unbounded); got "
                f"{declared!r}."
            )
        d = max(self._n_columns_hint(), j + 1)
        ends = []
        for end, none in zip(declared, (-np.inf, np.inf), strict=True):
            value = none if end is None else end
            try:
                arr = np.broadcast_to(np.asarray(value, dtype=float), (d,))
            except (TypeError, ValueError):
                raise ValueError(
                    "support ends must be numbers, None or arrays with one entry "
                    f"per column ({d}); got {declared!r}."
                ) from None
            ends.append(float(arr[j]))
        low, high = ends
        if np.isnan(low) or np.isnan(high) or not low < high:
            raise ValueError(
                f"support of column {j} must have low < high (None or an infinite "
                f"end for an unbounded side); got {declared!r}."
            )
        return low, high

    def _anchor_window(self, j: int) -> tuple[float, float]:
        """Where the anchor law of column ``j`` is truncated (the support)."""
        return self._value_support(j)

    def _anchor_distribution(self, j: int) -> AnchorDistribution:
        a_loc, a_scale = self._standardization(j)
        return AnchorDistribution(
            self.distribution,
            self.loc,
            self.scale,
            a_loc,
            a_scale,
            window=self._anchor_window(j),
        )

    def _fixed_set(self) -> NDArray:
        return check_acceptable_range(getattr(self, "acceptable_range", None))

    def _n_anchors(self) -> int:
        raise NotImplementedError  # pragma: no cover - abstract

    def _components(self, rng, n: int, j: int) -> list[tuple[NDArray, tuple]]:
        raise NotImplementedError  # pragma: no cover - abstract

    def _anchor_support(self, j: int) -> tuple[float, float]:
        return self._anchor_distribution(j).support()

    def _exact_law(self, column: int) -> Any:
        """What :func:`skprivate.audit` checks exactly: an infinite loss."""
        check_is_fitted(self)
        return interval_exact_law(self, column)

    def _validate_design(self) -> None:
        for j in range(self._n_columns_hint()):
            self._standardization(j)
            self._anchor_distribution(j)
        self._fixed_set()

    # -- estimator API --------------------------------------------------------
    def fit(self, X: ArrayLike, y: Any = None) -> _BaseIntervalMechanism:
        """Record the columns and check the design against the data.

        No raw value is stored.  Two aggregates of each column are computed
        (see :meth:`privacy_summary`): the expected coverage against the
        data and the expected share of values released exactly; they are
        kept rounded to 0.01 from 200 rows on, and a
        :class:`~skprivate.exceptions.PrivacyLeakWarning` is raised when the
        design would release more than half of the values exactly, or when
        the coverage against the data falls more than 0.1 below the coverage
        reported for the reference population.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Raw values.
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        return super().fit(X, y)

    def _fit(self, X: ArrayLike, y: Any = None) -> _BaseIntervalMechanism:
        self._check_params()
        validate_data(self, check_numeric_input(X, finite=True), ensure_all_finite=True)
        self._validate_design()
        return self

    # -- what the design does to the fitted data ------------------------------
    def _reference_cdf(self, j: int):
        from scipy import stats

        a_loc, a_scale = self._standardization(j)
        low, high = self._value_support(j)
        if np.isinf(low) and np.isinf(high):
            return as_cdf(stats.norm(a_loc, a_scale))
        # no value lies outside the declared support: nor does the reference
        a, b = (low - a_loc) / a_scale, (high - a_loc) / a_scale
        return as_cdf(stats.truncnorm(a, b, loc=a_loc, scale=a_scale))

    def _reference_text(self, j: int) -> str:
        a_loc, a_scale = self._standardization(j)
        text = f"N({a_loc:g}, {a_scale:g}^2)"
        low, high = self._value_support(j)
        if np.isinf(low) and np.isinf(high):
            return text
        return f"{text} truncated to the support [{low:g}, {high:g}]"

    def _column_names(self) -> list[str]:
        names = getattr(self, "feature_names_in_", None)
        if names is None:
            return [f"x{j}" for j in range(self.n_features_in_)]
        return [str(c) for c in names]

    def _data_check_draws(self) -> list[list[tuple[NDArray, tuple]]]:
        """The anchor draws of the data check, per column (one fixed stream)."""
        rng = np.random.default_rng(0)
        return [
            self._components(rng, _N_DATA_DRAWS, j) for j in range(self.n_features_in_)
        ]

    def _fitted_rows_statistic(self) -> _ColumnCounts:
        """The empirical CDF of every column where the data check reads it.

        ``fit`` computes it over all the rows (a dask collection partition
        by partition), so the aggregates and warnings of
        :meth:`_assess_fitted_data` are those of all the fitted rows
        wherever they are.
        """
        ends = self._fixed_set().ravel()
        points = []
        for comps in self._data_check_draws():
            anchors = np.concatenate([a.ravel() for a, _ in comps])
            points.append(np.unique(np.concatenate([anchors, ends, [-np.inf, np.inf]])))
        return _ColumnCounts(points)

    def _assess_fitted_data(
        self, statistic: _ColumnCounts, value: list[NDArray], n_rows: int
    ) -> None:
        """Warn when the design discloses more about the data than it states.

        Per column, with one fixed set of anchor draws: the expected share
        of the column's values released exactly, and (from
        ``_MIN_ROWS_COVERAGE_CHECK`` rows on) the expected coverage against
        the empirical distribution of the column, compared with that
        against the reference population.  Nothing is kept and the warnings
        give no figure of the data: a figure kept on the object would leave
        with its pickle, and one record can move a rounded mean over the
        records.  ``privacy_summary(reference=X)`` computes the figures for
        a caller who holds the data.
        """
        check_coverage = int(n_rows) >= _MIN_ROWS_COVERAGE_CHECK
        fixed = self._fixed_set()
        points = statistic.points
        names = self._column_names()
        for j, comps in enumerate(self._data_check_draws()):
            data_cdf = _counted_cdf(points[j], value[j], int(n_rows))
            cov, share = design_disclosure(comps, data_cdf, fixed)
            if share > _EXACT_SHARE_LIMIT:
                warnings.warn(
                    f"{type(self).__name__}: more than half of the fitted values "
                    f"of column {names[j]!r} are expected to lie where this "
                    "design reports values exactly (exact_cells or "
                    "acceptable_range); those reports are the raw values. "
                    "Report fewer cells exactly.",
                    PrivacyLeakWarning,
                    stacklevel=external_stacklevel(),
                )
            if not check_coverage:
                continue
            # the same anchor draws for both populations: their Monte Carlo
            # errors mostly cancel in the difference
            ref_cov, _ = design_disclosure(comps, self._reference_cdf(j), fixed)
            if cov < ref_cov - _COVERAGE_GAP:
                warnings.warn(
                    f"{type(self).__name__}: the coverage against the fitted "
                    f"data of column {names[j]!r} is more than "
                    f"{_COVERAGE_GAP:g} below the {ref_cov:.2f} reported for the "
                    f"reference population {self._reference_text(j)} "
                    "(anchor_loc, anchor_scale): the anchors do not match the "
                    "spread of the data, so the reports reveal more than "
                    "privacy_summary()['coverage'] states. Set anchor_loc and "
                    "anchor_scale to a public centre and spread of the column, "
                    "fixed before collection; privacy_summary(reference=X) "
                    "gives the coverage against a sample X.",
                    PrivacyLeakWarning,
                    stacklevel=external_stacklevel(),
                )

    def _privatize_column(self, y: NDArray, j: int, rng) -> tuple[NDArray, NDArray]:
        comps = self._components(rng, y.shape[0], j)
        fixed = self._fixed_set()
        lo = np.full(y.shape, -np.inf)
        hi = np.full(y.shape, np.inf)
        exact = in_fixed_set(y, fixed)
        anchors = []
        for q, exact_cells in comps:
            idx, c_lo, c_hi = cell_bounds(q, y)
            lo, hi = np.maximum(lo, c_lo), np.minimum(hi, c_hi)
            if exact_cells:
                exact |= np.isin(idx, exact_cells)
            anchors.append(q)
        lo = np.where(exact, y, lo)
        hi = np.where(exact, y, hi)
        return np.column_stack([lo, hi]), np.sort(np.hstack(anchors), axis=1)

    def _warn_uncovered(self, y: NDArray, j: int, name: str) -> None:
        low, high = self._anchor_support(j)
        outside = (y < low) | (y > high)
        if outside.any():
            warnings.warn(
                f"{type(self).__name__}: {outside.mean():.1%} of column {name!r} lie "
                f"outside the support of the anchors [{low:g}, {high:g}]; their "
                "reports are half-lines that never resolve, and the population "
                "distribution is not identifiable there.",
                NotIdentifiableWarning,
                stacklevel=external_stacklevel(),
            )

    def transform(self, X: ArrayLike, return_anchors: bool = False):
        """Privatize every column: each value becomes the random cell holding it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Raw values (finite).
        return_anchors : bool, default=False
            Also return the anchors drawn (public: they are independent of
            ``X``), sorted per row and column.

        Returns
        -------
        intervals : ndarray of shape (n_samples, 2 * n_features)
            ``[lower, upper]`` of each column, meaning the value lies in
            ``(lower, upper]``; ``lower == upper`` for an exact report.
        anchors : ndarray of shape (n_samples, n_features, n_anchors)
            Only when ``return_anchors=True``.
        """
        if return_anchors:
            return super().transform(X, return_anchors=True)
        return super().transform(X)

    def _transform(self, X: ArrayLike, return_anchors: bool = False):
        check_is_fitted(self)
        X = validate_data(
            self,
            check_numeric_input(X, finite=True),
            reset=False,
            ensure_all_finite=True,
        )
        # the values seed a seeded call, whatever numeric dtype holds them
        rng = self._next_generator(np.asarray(X, dtype=np.float64))
        names = self.get_feature_names_out()[::2]
        for j in range(X.shape[1]):
            self._warn_uncovered(X[:, j], j, names[j].removesuffix("_lower"))

        def release(B):
            out, anchors = [], []
            for j in range(B.shape[1]):
                z, q = self._privatize_column(B[:, j].astype(float), j, rng)
                out.append(z)
                anchors.append(q)
            return np.hstack(out), np.stack(anchors, axis=1)

        intervals, anchors = in_row_blocks(release, X)
        if return_anchors:
            return intervals, anchors
        return intervals

    def get_feature_names_out(self, input_features=None) -> NDArray[np.object_]:
        """Output names ``[f"{col}_lower", f"{col}_upper", ...]``.

        Parameters
        ----------
        input_features : array-like of str, optional
            Input column names; defaults to ``feature_names_in_`` or
            ``x0, x1, ...``.

        Returns
        -------
        ndarray of str
        """
        check_is_fitted(self, "n_features_in_")
        if input_features is None:
            input_features = getattr(
                self,
                "feature_names_in_",
                [f"x{j}" for j in range(self.n_features_in_)],
            )
        input_features = [str(c) for c in input_features]
        if len(input_features) != self.n_features_in_:
            raise ValueError(
                f"input_features should have length {self.n_features_in_}; "
                f"got {len(input_features)}."
            )
        names = [f"{c}_{side}" for c in input_features for side in ("lower", "upper")]
        return np.asarray(names, dtype=object)

    # -- privacy -----------------------------------------------------------
    def privacy_summary(self, reference: Any = None) -> dict[str, Any]:
        """Describe the guarantee: the expected privacy coverage (Definition 1).

        The coverage is ``E[P_Y(S_Z)]``, the probability that a fresh value
        from the population falls in the set revealed about a respondent,
        averaged over respondents and anchors (Monte Carlo over 200,000
        anchor draws with a fixed seed, using the consistent estimator
        ``E[Σ_j P_Y(cell_j \\ A)²]``).  It depends on the population: by
        default ``N(anchor_loc, anchor_scale²)`` (truncated to the declared
        ``support``, if any), an assumption named in
        ``coverage_reference``, not a property of the data.

        ``fit`` checks the design against the data it reads and warns
        (:class:`~skprivate.exceptions.PrivacyLeakWarning`) when the
        coverage against the data falls far below the reference coverage
        (anchors too concentrated for the data: ``anchor_scale=1e-9`` gives
        a reference coverage of 0.76 for Case I but 0.50 against the data)
        or when most values would be released exactly.  The summary keeps
        no figure of the fitted data: it is published with the release, and
        a mean over the records, even rounded, is moved by one record.  For
        the figures on a sample, pass it as ``reference``: the coverage and
        ``exact_share`` are then computed for that sample, returned to the
        caller and not kept.

        Parameters
        ----------
        reference : None, array-like, callable or distribution, optional
            Population of each column: ``None`` means normal with mean
            ``anchor_loc`` and standard deviation ``anchor_scale`` (the
            standardized response is ``N(0, 1)``); a 1-D sample (empirical
            CDF), an ``(n, n_features)`` sample, a callable CDF or an object
            with a ``cdf`` method.

        Returns
        -------
        summary : dict
            ``notion``, ``mechanism``, ``n_cells``, ``exact_disclosure``;
            for the reference population: ``coverage``, ``leakage``
            (``1 - coverage``), ``exact_share`` (probability that a value is
            released exactly), ``reference`` and ``coverage_reference`` (its
            description); ``reproducible`` and ``random_state_note``.
            Per-column entries are lists when there are several columns.

        Raises
        ------
        ValueError
            If a setting changed with ``set_params`` since ``fit``.

        Examples
        --------
        >>> import numpy as np
        >>> from skprivate.interval import IntervalCaseI
        >>> X = np.random.default_rng(0).normal(size=(1000, 1))
        >>> s = IntervalCaseI(random_state=0).fit(X).privacy_summary()
        >>> round(s["coverage"], 2), s["coverage_reference"]
        (0.76, 'N(0, 1^2)')
        >>> round(IntervalCaseI().privacy_summary(reference=X)["coverage"], 2)
        0.77
        """
        # validate without re-recording the settings fit belongs to; a
        # setting changed since fit is refused (by _release_policy below)
        ParamsValidationMixin._check_params(self)
        self._check_fitted_settings()
        self._validate_design()
        d = self._n_columns_hint()
        rng = np.random.default_rng(0)
        fixed = self._fixed_set()
        coverages, shares, texts = [], [], []
        for j in range(d):
            if reference is None:
                cdf = self._reference_cdf(j)
                texts.append(self._reference_text(j))
            elif isinstance(reference, np.ndarray | list) and np.ndim(reference) == 2:
                cdf = as_cdf(np.asarray(reference)[:, j])
                texts.append(f"the sample given as reference (column {j})")
            else:
                cdf = as_cdf(reference)
                texts.append("the reference given to privacy_summary")
            comps = self._components(rng, _N_COVERAGE_DRAWS, j)
            coverage, share = design_disclosure(comps, cdf, fixed)
            coverages.append(coverage)
            shares.append(share)

        def per_column(values):
            return values[0] if d == 1 else values

        exact = bool(fixed.shape[0]) or _declares_exact_cells(self)
        bounded = any(np.isfinite(self._value_support(j)).any() for j in range(d))
        return {
            "notion": "interval privacy",
            "mechanism": type(self).__name__,
            "n_cells": self._n_anchors() + 1,
            "exact_disclosure": exact,
            "coverage": per_column(coverages),
            "leakage": per_column([1 - c for c in coverages]),
            "exact_share": per_column(shares),
            "reference": "N(anchor_loc, anchor_scale^2)"
            + (" on the support" if bounded else "")
            if reference is None
            else "user-given",
            "coverage_reference": per_column(texts),
            **self._release_policy(),
        }
