"""Interval-privacy mechanisms: Case I, Case II, m anchors, ensembles.

Every mechanism draws its anchors independently of the data, reports the
cell ``(q_{i-1}, q_i]`` holding each value (``±inf`` for the outer cells), and
reports a value exactly when it lies in the acceptable range.  The output of
a ``d``-column input is ``(n, 2 d)``: ``[col_lower, col_upper]`` per column.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import PrivatizerMixin
from ..exceptions import NotIdentifiableWarning
from ..utils import HasMethods, Interval, Options
from ..utils.validation import check_interval_array, check_numeric_input
from ._anchors import (
    AnchorDistribution,
    as_cdf,
    cell_bounds,
    check_acceptable_range,
    design_coverage,
    in_fixed_set,
)

__all__ = [
    "IntervalCaseI",
    "IntervalCaseII",
    "IntervalEnsemble",
    "IntervalMechanism",
]

_DISTRIBUTION = [Options({"logistic", "normal", "uniform"}), HasMethods(["cdf", "ppf"])]
_COMMON_CONSTRAINTS: dict[str, list] = {
    "distribution": _DISTRIBUTION,
    "loc": [Interval(numbers.Real, None, None)],
    "scale": [Interval(numbers.Real, 0, None, closed="neither")],
    "anchor_loc": [Interval(numbers.Real, None, None), "array-like"],
    "anchor_scale": [Interval(numbers.Real, 0, None, closed="neither"), "array-like"],
    "random_state": ["random_state"],
}
_N_COVERAGE_DRAWS = 200_000


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


class _BaseIntervalMechanism(PrivatizerMixin, BaseEstimator):
    """Shared machinery; subclasses define ``_components(rng, n, j)``."""

    # -- design, overridden by subclasses -----------------------------------
    def _n_columns_hint(self) -> int:
        if hasattr(self, "n_features_in_"):
            return self.n_features_in_
        sizes = [np.size(self.anchor_loc), np.size(self.anchor_scale)]
        return max(sizes)

    def _standardization(self, j: int) -> tuple[float, float]:
        d = self._n_columns_hint()
        a_loc = _per_column(self.anchor_loc, d, "anchor_loc")
        a_scale = _per_column(self.anchor_scale, d, "anchor_scale")
        if np.any(a_scale <= 0):
            raise ValueError(
                f"anchor_scale must be positive; got {self.anchor_scale!r}."
            )
        return float(a_loc[j]), float(a_scale[j])

    def _anchor_distribution(self, j: int) -> AnchorDistribution:
        a_loc, a_scale = self._standardization(j)
        return AnchorDistribution(
            self.distribution, self.loc, self.scale, a_loc, a_scale
        )

    def _fixed_set(self) -> NDArray:
        return check_acceptable_range(getattr(self, "acceptable_range", None))

    def _n_anchors(self) -> int:
        raise NotImplementedError  # pragma: no cover - abstract

    def _components(self, rng, n: int, j: int) -> list[tuple[NDArray, tuple]]:
        raise NotImplementedError  # pragma: no cover - abstract

    def _anchor_support(self, j: int) -> tuple[float, float]:
        return self._anchor_distribution(j).support()

    def _validate_design(self) -> None:
        for j in range(self._n_columns_hint()):
            self._standardization(j)
        self._fixed_set()

    # -- estimator API --------------------------------------------------------
    def fit(self, X: ArrayLike, y: Any = None) -> _BaseIntervalMechanism:
        """Record the number of columns (and their names); no data is stored.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Raw values (only the shape and column names are used).
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        self._check_params()
        validate_data(self, check_numeric_input(X), ensure_all_finite=True)
        self._validate_design()
        return self

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
                stacklevel=3,
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
        check_is_fitted(self)
        X = validate_data(
            self, check_numeric_input(X), reset=False, ensure_all_finite=True
        )
        rng = self._next_generator()
        names = self.get_feature_names_out()[::2]
        out, anchors = [], []
        for j in range(X.shape[1]):
            self._warn_uncovered(X[:, j], j, names[j].removesuffix("_lower"))
            z, q = self._privatize_column(X[:, j].astype(float), j, rng)
            out.append(z)
            anchors.append(q)
        intervals = np.hstack(out)
        if return_anchors:
            return intervals, np.stack(anchors, axis=1)
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

    # -- the question side -------------------------------------------------
    def draw_anchors(
        self, n_samples: int, *, feature: int = 0, within: ArrayLike | None = None
    ) -> NDArray[np.float64]:
        """Draw the anchors to show respondents before they answer.

        Parameters
        ----------
        n_samples : int
            Number of respondents.
        feature : int, default=0
            Column whose standardization (``anchor_loc``, ``anchor_scale``)
            applies.
        within : array-like of shape (n_samples, 2), optional
            Cells already reported (progressive refinement): the anchors are
            drawn i.i.d. from the anchor distribution truncated to each cell.
            Rows whose cell is exact, or carries no anchor probability, get
            NaN anchors (nothing more to ask).

        Returns
        -------
        anchors : ndarray of shape (n_samples, n_anchors)
            Sorted per row.
        """
        self._check_params()
        self._validate_design()
        rng = self._next_generator()
        if within is None:
            comps = self._components(rng, int(n_samples), feature)
            return np.sort(np.hstack([q for q, _ in comps]), axis=1)
        cells = check_interval_array(within, name="within", allow_1d=False)
        if cells.shape[0] != n_samples:
            raise ValueError(
                f"within must have n_samples={n_samples} rows; got {cells.shape[0]}."
            )
        dist = self._anchor_distribution(feature)
        k = self._n_anchors()
        lo = np.repeat(cells[:, :1], k, axis=1)
        hi = np.repeat(cells[:, 1:], k, axis=1)
        q = dist.draw(rng, (n_samples, k), lo, hi)
        q[cells[:, 0] == cells[:, 1]] = np.nan
        return np.sort(q, axis=1)

    def refine(self, intervals: ArrayLike, X: ArrayLike) -> NDArray[np.float64]:
        """Progressive refinement: ask again inside the cells already reported.

        New anchors are drawn inside each reported cell (see
        :meth:`draw_anchors` with ``within``) and each value is located among
        them, so the result is the finer cell.  Exact reports stay exact; the
        acceptable range is not applied again.

        Parameters
        ----------
        intervals : array-like of shape (n_samples, 2 * n_features)
            Output of an earlier :meth:`transform` on the same rows.
        X : array-like of shape (n_samples, n_features)
            The raw values (the respondents' side of the simulation).

        Returns
        -------
        ndarray of shape (n_samples, 2 * n_features)
        """
        check_is_fitted(self)
        X = validate_data(
            self, check_numeric_input(X), reset=False, ensure_all_finite=True
        )
        Z = np.asarray(intervals, dtype=float)
        if Z.shape != (X.shape[0], 2 * X.shape[1]):
            raise ValueError(
                f"intervals must have shape {(X.shape[0], 2 * X.shape[1])}; "
                f"got {Z.shape}."
            )
        out = []
        for j in range(X.shape[1]):
            cells = check_interval_array(Z[:, 2 * j : 2 * j + 2], name="intervals")
            y = X[:, j].astype(float)
            if np.any((y <= cells[:, 0]) & (cells[:, 0] < cells[:, 1])) or np.any(
                y > cells[:, 1]
            ):
                raise ValueError(
                    f"intervals of column {j} do not contain the values of X."
                )
            q = self.draw_anchors(X.shape[0], feature=j, within=cells)
            answers = np.sum(np.nan_to_num(q, nan=np.inf) < y[:, None], axis=1)
            out.append(intervals_from_answers(q, answers, within=cells))
        return np.hstack(out)

    # -- privacy -----------------------------------------------------------
    def privacy_summary(self, reference: Any = None) -> dict[str, Any]:
        """Describe the guarantee: the expected privacy coverage (Definition 1).

        The coverage is ``E[P_Y(S_Z)]``, the probability that a fresh value
        from the population falls in the set revealed about a respondent,
        averaged over respondents and anchors (Monte Carlo over 200,000
        anchor draws with a fixed seed, using the consistent estimator
        ``E[Σ_j P_Y(cell_j \\ A)²]``).

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
            ``notion``, ``mechanism``, ``n_cells``, ``exact_disclosure``,
            ``coverage`` and ``leakage`` (``1 - coverage``); per column when
            there are several.
        """
        from scipy import stats

        self._check_params()
        self._validate_design()
        d = self._n_columns_hint()
        rng = np.random.default_rng(0)
        fixed = self._fixed_set()
        coverages = []
        for j in range(d):
            if reference is None:
                a_loc, a_scale = self._standardization(j)
                cdf = as_cdf(stats.norm(a_loc, a_scale))
            elif isinstance(reference, np.ndarray | list) and np.ndim(reference) == 2:
                cdf = as_cdf(np.asarray(reference)[:, j])
            else:
                cdf = as_cdf(reference)
            comps = self._components(rng, _N_COVERAGE_DRAWS, j)
            coverages.append(float(design_coverage(comps, cdf, fixed).mean()))
        coverage = coverages[0] if d == 1 else coverages
        leakage = 1 - coverages[0] if d == 1 else [1 - c for c in coverages]
        exact = bool(fixed.shape[0]) or bool(getattr(self, "exact_cells", None))
        return {
            "notion": "interval privacy",
            "mechanism": type(self).__name__,
            "n_cells": self._n_anchors() + 1,
            "exact_disclosure": exact,
            "coverage": coverage,
            "leakage": leakage,
            "reference": "N(anchor_loc, anchor_scale^2)"
            if reference is None
            else "user-given",
        }


def intervals_from_answers(
    anchors: ArrayLike,
    answers: ArrayLike,
    values: ArrayLike | None = None,
    *,
    within: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """Turn survey answers into the interval format.

    Parameters
    ----------
    anchors : array-like of shape (n_samples, n_anchors)
        The anchors shown to each respondent, sorted per row (NaN anchors are
        ignored, as returned by ``draw_anchors(within=...)`` for exact rows).
    answers : array-like of int, shape (n_samples,)
        The cell chosen by each respondent: ``i`` means the value lies in
        ``(q_i, q_{i+1}]`` with ``q_0 = -inf`` and ``q_{k+1} = inf``
        (``0`` = "at most the first anchor").
    values : array-like of shape (n_samples,), optional
        Exact values for respondents who disclosed them (inside the
        acceptable range); NaN elsewhere.
    within : array-like of shape (n_samples, 2), optional
        Cells reported earlier (progressive refinement); the result is
        intersected with them.

    Returns
    -------
    intervals : ndarray of shape (n_samples, 2)

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval import intervals_from_answers
    >>> intervals_from_answers([[1.0], [2.0]], [0, 1])
    array([[-inf,   1.],
           [  2.,  inf]])
    """
    q = np.asarray(anchors, dtype=float)
    if q.ndim != 2:
        raise ValueError(f"anchors must be 2-D (n_samples, n_anchors); got {q.shape}.")
    q = np.where(np.isnan(q), np.inf, q)
    q = np.sort(q, axis=1)
    a = np.asarray(answers)
    if a.shape != (q.shape[0],) or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(
            f"answers must be integer cell indices of shape ({q.shape[0]},); "
            f"got dtype {a.dtype} and shape {a.shape}."
        )
    if np.any((a < 0) | (a > q.shape[1])):
        raise ValueError(f"answers must lie in [0, {q.shape[1]}] (the cell indices).")
    padded = np.hstack(
        [np.full((q.shape[0], 1), -np.inf), q, np.full((q.shape[0], 1), np.inf)]
    )
    lo = padded[np.arange(q.shape[0]), a]
    hi = padded[np.arange(q.shape[0]), a + 1]
    if within is not None:
        cells = check_interval_array(within, name="within", allow_1d=False)
        lo, hi = np.maximum(lo, cells[:, 0]), np.minimum(hi, cells[:, 1])
        exact_before = cells[:, 0] == cells[:, 1]
        lo = np.where(exact_before, cells[:, 0], lo)
        hi = np.where(exact_before, cells[:, 1], hi)
    if values is not None:
        v = np.asarray(values, dtype=float)
        if v.shape != lo.shape:
            raise ValueError(f"values must have shape {lo.shape}; got {v.shape}.")
        given = ~np.isnan(v)
        lo = np.where(given, v, lo)
        hi = np.where(given, v, hi)
    return check_interval_array(np.column_stack([lo, hi]), name="intervals")


class IntervalMechanism(_BaseIntervalMechanism):
    """The general interval mechanism: ``n_anchors`` random anchors (Definition 2).

    For each value ``y`` draw anchors ``q_1 < ... < q_k`` independently of
    the data and report the cell ``(q_{i-1}, q_i]`` holding ``y`` (with
    ``q_0 = -inf``, ``q_{k+1} = inf``).  Inside the acceptable range the value
    is reported exactly, which gives mixed point/interval data.

    Anchors are i.i.d. draws from the anchor distribution, sorted; or, with
    ``offsets``, one draw ``U`` shifted by fixed offsets (``U + offsets``).
    All draws are made on the standardized scale and mapped to the data by
    ``anchor_loc + anchor_scale * u``.

    Parameters
    ----------
    n_anchors : int, default=2
        Number of anchors ``k`` (``k + 1`` cells).
    distribution : {"logistic", "normal", "uniform"} or distribution, default="logistic"
        Anchor family on the standardized scale: logistic / normal with
        location ``loc`` and scale ``scale``, uniform on
        ``[loc, loc + scale]``, or any object with ``cdf`` and ``ppf`` (a
        frozen :mod:`scipy.stats` distribution, or the output of
        :func:`optimal_anchor_density`), then shifted by ``loc`` and scaled
        by ``scale``.
    loc : float, default=0.0
        Location of the anchor distribution (standardized scale).
    scale : float, default=1.0
        Scale of the anchor distribution (standardized scale); larger scales
        give wider cells and higher coverage.
    anchor_loc : float or array-like of shape (n_features,), default=0.0
        Public centre of each column, fixed before collection.
    anchor_scale : float or array-like of shape (n_features,), default=1.0
        Public spread of each column, fixed before collection.
    offsets : array-like of shape (n_anchors,), optional
        If given, the anchors are ``U + offsets`` for one draw ``U`` (for
        example ``(-1, 1)``: a window of width 2 around a random centre).
    acceptable_range : pair or list of pairs, optional
        Fixed set ``A`` (union of cells ``(low, high]`` on the data scale)
        where values are reported exactly.
    exact_cells : list of int, optional
        Indices of cells reported exactly whatever the anchors (``A`` is then
        a union of random cells, for example ``[1]`` for the middle cell).
    random_state : None, int, RandomState or Generator, default=None
        Source of the anchors.  A fitted mechanism draws fresh anchors on
        every call, reproducibly for an int seed.

    Attributes
    ----------
    n_features_in_ : int
        Number of columns seen in fit.
    feature_names_in_ : ndarray of str
        Column names, when fit on a DataFrame.

    See Also
    --------
    IntervalCaseI : one anchor.
    IntervalCaseII : two anchors.
    IntervalEnsemble : pooled anchors of several mechanisms.

    References
    ----------
    J. Ding and B. Ding, "Interval Privacy: A Framework for Data Collection",
    Definitions 1-3.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval import IntervalMechanism
    >>> mech = IntervalMechanism(
    ...     n_anchors=2, offsets=[-1, 1], exact_cells=[1], random_state=0
    ... )
    >>> Z = mech.fit_transform(np.array([[0.1], [5.0]]))
    >>> Z.shape
    (2, 2)
    >>> bool(np.all((Z[:, 0] <= [0.1, 5.0]) & ([0.1, 5.0] <= Z[:, 1])))
    True
    """

    _parameter_constraints: ClassVar[dict[str, list]] = {
        "n_anchors": [Interval(numbers.Integral, 1, None, closed="left")],
        **_COMMON_CONSTRAINTS,
        "offsets": ["array-like", None],
        "acceptable_range": ["array-like", None],
        "exact_cells": ["array-like", None],
    }

    def __init__(
        self,
        n_anchors: int = 2,
        distribution: Any = "logistic",
        loc: float = 0.0,
        scale: float = 1.0,
        anchor_loc: Any = 0.0,
        anchor_scale: Any = 1.0,
        offsets: ArrayLike | None = None,
        acceptable_range: Any = None,
        exact_cells: Any = None,
        random_state: Any = None,
    ) -> None:
        self.n_anchors = n_anchors
        self.distribution = distribution
        self.loc = loc
        self.scale = scale
        self.anchor_loc = anchor_loc
        self.anchor_scale = anchor_scale
        self.offsets = offsets
        self.acceptable_range = acceptable_range
        self.exact_cells = exact_cells
        self.random_state = random_state

    def _n_anchors(self) -> int:
        return int(self.n_anchors)

    def _offsets(self) -> NDArray | None:
        if self.offsets is None:
            return None
        off = np.asarray(self.offsets, dtype=float)
        if off.shape != (self.n_anchors,) or not np.all(np.isfinite(off)):
            raise ValueError(
                f"offsets must be {self.n_anchors} finite numbers (one per anchor); "
                f"got {self.offsets!r}."
            )
        if np.any(np.diff(off) <= 0):
            raise ValueError(
                f"offsets must be strictly increasing; got {self.offsets!r}."
            )
        return off

    def _exact_cells(self) -> tuple[int, ...]:
        if self.exact_cells is None:
            return ()
        cells = np.asarray(self.exact_cells).ravel()
        if not np.issubdtype(cells.dtype, np.integer) or np.any(
            (cells < 0) | (cells > self.n_anchors)
        ):
            raise ValueError(
                f"exact_cells must be cell indices in [0, {self.n_anchors}]; "
                f"got {self.exact_cells!r}."
            )
        return tuple(int(c) for c in cells)

    def _validate_design(self) -> None:
        super()._validate_design()
        self._offsets()
        self._exact_cells()

    def _components(self, rng, n: int, j: int) -> list[tuple[NDArray, tuple]]:
        dist = self._anchor_distribution(j)
        off = self._offsets()
        if off is None:
            q = np.sort(dist.draw(rng, (n, self.n_anchors)), axis=1)
        else:
            _, a_scale = self._standardization(j)
            q = dist.draw(rng, (n, 1)) + a_scale * off[None, :]
        return [(q, self._exact_cells())]

    def _anchor_support(self, j: int) -> tuple[float, float]:
        low, high = super()._anchor_support(j)
        off = self._offsets()
        if off is not None:
            _, a_scale = self._standardization(j)
            low, high = low + a_scale * off[0], high + a_scale * off[-1]
        return low, high


class IntervalCaseII(IntervalMechanism):
    """Case-II interval mechanism: two random anchors, three cells.

    Each value ``y`` is reported as ``(-inf, u]``, ``(u, v]`` or ``(v, inf)``
    where ``u <= v`` are two independent anchor draws, sorted.

    Parameters
    ----------
    distribution : {"logistic", "normal", "uniform"} or distribution, default="logistic"
        Anchor family on the standardized scale (see
        :class:`IntervalMechanism`).
    loc : float, default=0.0
        Location of the anchor distribution.
    scale : float, default=1.0
        Scale of the anchor distribution.
    anchor_loc : float or array-like of shape (n_features,), default=0.0
        Public centre of each column, fixed before collection.
    anchor_scale : float or array-like of shape (n_features,), default=1.0
        Public spread of each column, fixed before collection.
    random_state : None, int, RandomState or Generator, default=None
        Source of the anchors.

    Attributes
    ----------
    n_features_in_ : int
        Number of columns seen in fit.

    See Also
    --------
    IntervalCaseI, IntervalMechanism

    References
    ----------
    J. Ding and B. Ding, "Interval Privacy: A Framework for Data Collection",
    Case II of Section II.

    Examples
    --------
    >>> from skprivate.interval import IntervalCaseII
    >>> round(IntervalCaseII().privacy_summary()["coverage"], 2)
    0.61
    """

    _parameter_constraints: ClassVar[dict[str, list]] = dict(_COMMON_CONSTRAINTS)

    def __init__(
        self,
        distribution: Any = "logistic",
        loc: float = 0.0,
        scale: float = 1.0,
        anchor_loc: Any = 0.0,
        anchor_scale: Any = 1.0,
        random_state: Any = None,
    ) -> None:
        self.distribution = distribution
        self.loc = loc
        self.scale = scale
        self.anchor_loc = anchor_loc
        self.anchor_scale = anchor_scale
        self.random_state = random_state

    n_anchors = property(lambda self: 2)
    offsets = property(lambda self: None)
    acceptable_range = property(lambda self: None)
    exact_cells = property(lambda self: None)


class IntervalCaseI(IntervalCaseII):
    """Case-I interval mechanism ("is your value at most u?").

    Each value ``y`` becomes ``(-inf, u]`` if ``y <= u`` and ``(u, inf)``
    otherwise, with one anchor ``u`` drawn independently of the data for
    every row and column.  The anchor is ``anchor_loc + anchor_scale * (loc +
    scale * Z)`` with ``Z`` from ``distribution``.

    Parameters
    ----------
    distribution : {"logistic", "normal", "uniform"} or distribution, default="logistic"
        Anchor family: logistic / normal with location ``loc`` and scale
        ``scale``; uniform on ``[loc, loc + scale]``; or any object with
        ``cdf`` and ``ppf`` (a frozen :mod:`scipy.stats` distribution).
    loc : float, default=0.0
        Location of the anchor distribution (standardized scale).
    scale : float, default=1.0
        Scale of the anchor distribution; larger means more coverage.
    anchor_loc : float or array-like of shape (n_features,), default=0.0
        Public centre of each column (e.g. a census mean), fixed before
        collection; the paper's experiments standardize the response.
    anchor_scale : float or array-like of shape (n_features,), default=1.0
        Public spread of each column, fixed before collection.
    random_state : None, int, RandomState or Generator, default=None
        Source of the anchors.

    Attributes
    ----------
    n_features_in_ : int
        Number of columns seen in fit.
    feature_names_in_ : ndarray of str
        Column names, when fit on a DataFrame.

    See Also
    --------
    IntervalCaseII : two anchors, three cells.
    IntervalMechanism : any number of anchors and an acceptable range.
    IntervalNPMLE : estimate the distribution from the intervals.
    IterativeIntervalRegressor : regression on interval responses.

    References
    ----------
    J. Ding and B. Ding, "Interval Privacy: A Framework for Data Collection",
    Case I of Section II.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval import IntervalCaseI
    >>> mech = IntervalCaseI(random_state=0).fit(np.zeros((1, 1)))
    >>> mech.transform(np.array([[0.3], [-2.0]])).shape
    (2, 2)
    >>> round(mech.privacy_summary()["coverage"], 2)
    0.76
    """

    n_anchors = property(lambda self: 1)


class IntervalEnsemble(_BaseIntervalMechanism):
    """Ensemble of interval mechanisms: pooled anchors (Definition 3).

    The anchors of every mechanism are drawn independently and pooled, and
    the acceptable ranges are united; each value is reported as the finest
    cell, i.e. the intersection of the cells each mechanism alone would
    report.  Theorem 2 bounds its leakage by the sum of the leakages
    (:func:`composition_bound`).

    Parameters
    ----------
    mechanisms : list of interval mechanisms
        :class:`IntervalCaseI`, :class:`IntervalCaseII` or
        :class:`IntervalMechanism` instances; their own ``random_state`` is
        ignored.
    random_state : None, int, RandomState or Generator, default=None
        Source of all anchors.

    Attributes
    ----------
    n_features_in_ : int
        Number of columns seen in fit.

    See Also
    --------
    composition_bound

    Examples
    --------
    >>> from skprivate.interval import IntervalCaseI, IntervalEnsemble
    >>> ens = IntervalEnsemble([IntervalCaseI(scale=2), IntervalCaseI(scale=2)])
    >>> ens.privacy_summary()["n_cells"]
    3
    """

    _parameter_constraints: ClassVar[dict[str, list]] = {
        "mechanisms": [list, tuple],
        "random_state": ["random_state"],
    }

    def __init__(self, mechanisms: Any = None, random_state: Any = None) -> None:
        self.mechanisms = mechanisms
        self.random_state = random_state

    def fit(self, X: ArrayLike, y: Any = None) -> IntervalEnsemble:
        """Validate the members and record the number of columns.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Raw values (only the shape and column names are used).
        y : None
            Ignored.

        Returns
        -------
        self : object
        """
        self._check_params()
        members = [clone(m) for m in self._members()]
        for m in members:
            m._check_params()
        super().fit(X)
        for m in members:
            m.n_features_in_ = self.n_features_in_
        self.mechanisms_ = members
        self._validate_design()
        return self

    def _members(self) -> list:
        if hasattr(self, "mechanisms_"):
            return self.mechanisms_
        members = list(self.mechanisms or [])
        if not members or not all(
            isinstance(m, _BaseIntervalMechanism)
            and not isinstance(m, IntervalEnsemble)
            for m in members
        ):
            raise ValueError(
                "mechanisms must be a non-empty list of IntervalCaseI, IntervalCaseII "
                f"or IntervalMechanism instances; got {self.mechanisms!r}."
            )
        return members

    def _n_columns_hint(self) -> int:
        if hasattr(self, "n_features_in_"):
            return self.n_features_in_
        return max(m._n_columns_hint() for m in self._members())

    def _validate_design(self) -> None:
        for m in self._members():
            m._validate_design()

    def _n_anchors(self) -> int:
        return sum(m._n_anchors() for m in self._members())

    def _fixed_set(self) -> NDArray:
        parts = [m._fixed_set() for m in self._members()]
        parts = [p for p in parts if p.shape[0]]
        if not parts:
            return np.empty((0, 2))
        cells = np.vstack(parts)
        cells = cells[np.argsort(cells[:, 0])]
        merged = [cells[0].copy()]
        for low, high in cells[1:]:
            if low <= merged[-1][1]:
                merged[-1][1] = max(merged[-1][1], high)
            else:
                merged.append(np.array([low, high]))
        return np.asarray(merged)

    def _components(self, rng, n: int, j: int) -> list[tuple[NDArray, tuple]]:
        return [c for m in self._members() for c in m._components(rng, n, j)]

    def _anchor_support(self, j: int) -> tuple[float, float]:
        sup = [m._anchor_support(j) for m in self._members()]
        return min(s[0] for s in sup), max(s[1] for s in sup)

    def _anchor_distribution(self, j: int) -> AnchorDistribution:
        return self._members()[0]._anchor_distribution(j)

    def _standardization(self, j: int) -> tuple[float, float]:
        # The default reference population of privacy_summary follows the
        # first member's standardization.
        return self._members()[0]._standardization(j)

    @property
    def exact_cells(self):
        return [
            c for m in self._members() for c in (getattr(m, "exact_cells", None) or [])
        ]
