"""Interval-privacy mechanisms: Case I, Case II, m anchors.

Every mechanism draws its anchors independently of the data, reports the
cell ``(q_{i-1}, q_i]`` holding each value (``±inf`` for the outer cells), and
reports a value exactly when it lies in the acceptable range.  The output of
a ``d``-column input is ``(n, 2 d)``: ``[col_lower, col_upper]`` per column.
The shared machinery is in ``_base_mechanism``, the ensemble of several
mechanisms in ``_ensemble`` and the survey side in ``_survey``.
"""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..utils import Interval
from ._base_mechanism import _COMMON_CONSTRAINTS, _BaseIntervalMechanism

__all__ = [
    "IntervalCaseI",
    "IntervalCaseII",
    "IntervalMechanism",
]


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
    support : pair (low, high) or None, default=None
        Declared range of the values (the same for every column, or
        per-column arrays), fixed before collection; ``None`` or an
        infinite end leaves a side unbounded.  The anchor law is truncated
        to it, so that no anchor falls where no value can lie (a commute
        time is never "at most -3.7 minutes"); coverage, refinement draws
        and planning follow the truncated law.  A value outside the support
        is still reported (with a ``NotIdentifiableWarning``).
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

    Notes
    -----
    The coverage of :meth:`privacy_summary` is computed for a reference
    population, ``N(anchor_loc, anchor_scale²)`` unless another is given; it
    says how much a report hides only if the data look like that population.
    ``fit`` therefore also computes the coverage against the fitted data and
    the share of the fitted values released exactly, and warns
    (``PrivacyLeakWarning``) when the former is far below the reference
    coverage or the latter exceeds one half; it keeps neither figure.

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
        support: Any = None,
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
        self.support = support
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

    def _anchor_window(self, j: int) -> tuple[float, float]:
        # With offsets the anchors are U + anchor_scale * offsets: U is kept
        # where every anchor lies in the support.
        low, high = self._value_support(j)
        off = self._offsets()
        if off is None:
            return low, high
        _, a_scale = self._standardization(j)
        low, high = low - a_scale * off[0], high - a_scale * off[-1]
        if not low < high:
            raise ValueError(
                f"support of column {j} is narrower than the span of the offsets "
                "(times anchor_scale): no window of anchors fits inside it."
            )
        return low, high

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
    support : pair (low, high) or None, default=None
        Declared range of the values (the same for every column, or
        per-column arrays), fixed before collection; ``None`` or an
        infinite end leaves a side unbounded.  The anchor law is truncated
        to it, so that no anchor falls where no value can lie (a commute
        time is never "at most -3.7 minutes"); coverage, refinement draws
        and planning follow the truncated law.  A value outside the support
        is still reported (with a ``NotIdentifiableWarning``).
    random_state : None, int, RandomState or Generator, default=None
        Source of the anchors.

    Attributes
    ----------
    n_features_in_ : int
        Number of columns seen in fit.

    See Also
    --------
    IntervalCaseI, IntervalMechanism

    Notes
    -----
    The coverage of :meth:`privacy_summary` is computed for a reference
    population, ``N(anchor_loc, anchor_scale²)`` unless another is given; it
    says how much a report hides only if the data look like that population.
    ``fit`` therefore also computes the coverage against the fitted data and
    the share of the fitted values released exactly, and warns
    (``PrivacyLeakWarning``) when the former is far below the reference
    coverage or the latter exceeds one half; it keeps neither figure.

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
        support: Any = None,
        random_state: Any = None,
    ) -> None:
        self.distribution = distribution
        self.loc = loc
        self.scale = scale
        self.anchor_loc = anchor_loc
        self.anchor_scale = anchor_scale
        self.support = support
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
    support : pair (low, high) or None, default=None
        Declared range of the values (the same for every column, or
        per-column arrays), fixed before collection; ``None`` or an
        infinite end leaves a side unbounded.  The anchor law is truncated
        to it, so that no anchor falls where no value can lie (a commute
        time is never "at most -3.7 minutes"); coverage, refinement draws
        and planning follow the truncated law.  A value outside the support
        is still reported (with a ``NotIdentifiableWarning``).
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

    Notes
    -----
    The coverage of :meth:`privacy_summary` is computed for a reference
    population, ``N(anchor_loc, anchor_scale²)`` unless another is given; it
    says how much a report hides only if the data look like that population.
    ``fit`` therefore also computes the coverage against the fitted data and
    the share of the fitted values released exactly, and warns
    (``PrivacyLeakWarning``) when the former is far below the reference
    coverage or the latter exceeds one half; it keeps neither figure.

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
