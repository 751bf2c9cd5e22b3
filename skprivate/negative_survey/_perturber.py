"""RVNSPerturber: the real-value negative survey, boundary-safe or as published."""

from __future__ import annotations

import math
import numbers
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import PrivatizerMixin
from ..utils import Interval, Options, bounds_from_data, check_bounds
from ..utils._bounds import check_grid_width, check_values_in_bounds
from ..utils._row_blocks import in_row_blocks
from ..utils.validation import check_numeric_input
from ._exact_laws import rvns_exact_law
from ._transition import (
    PLACEMENTS,
    check_safe_grid,
    report_range,
    sample_rvns,
    sample_rvns_grid,
    sample_rvns_grid_safe,
    sample_rvns_safe,
    sampler_grid,
)

__all__ = ["RVNSPerturber"]

#: Default band width as a fraction of each column's range (``d=None``).
DEFAULT_D_FRACTION = 0.2


class RVNSPerturber(PrivatizerMixin, BaseEstimator):
    """Real-value negative survey: report values drawn away from the truth.

    Each respondent with value ``x`` in ``[a, b]`` reports ``k`` values drawn
    uniformly from the report range minus a *prohibited band* of width ``d``
    that contains ``x``.  The band ``[x - d1, x - d1 + d]`` has a random
    offset ``d1`` drawn once per respondent, so no report ever falls within
    ``d1`` below or ``d - d1`` above its own value.  Two placements of the
    band are available:

    * ``placement="boundary_safe"`` (default): ``d1 ~ U[0, d]`` for every
      value and the reports range over ``[a - d, b + d]``, so the band never
      has to be moved near a bound.  Every value's reports follow the same
      law, shifted, and the epsilon of :meth:`epsilon` holds for every value
      in ``[a, b]``, the bounds included.
    * ``placement="paper"``: the paper's Algorithm 1 with the corrections of
      its errata: ``d1 ~ U[max(0, x + d - b), min(d, x - a)]`` keeps the
      band, and the reports, inside ``[a, b]`` (the three cases near the
      left end, in the middle and near the right end).  Its epsilon holds
      only for values at least :meth:`boundary_margin` from both bounds.

    Parameters
    ----------
    d : float, array-like of shape (n_features,) or None, default=None
        Width of the prohibited band, one value for all columns or one per
        column; ``0 < d < b - a`` for every column.  ``None`` uses a fifth
        of each column's range, ``d = (b - a) / 5`` (14.6 years for ages
        17-90), a middle setting between privacy and accuracy; choose ``d``
        for your data rather than relying on it.  A wider band keeps
        every report farther from the truth but makes each report more
        informative (it rules out more values): the epsilon grows as
        ``ln(d / delta)`` and the reconstruction becomes more accurate.
        With ``placement="paper"`` and ``d <= (b - a) / 2`` the paper's
        three cases apply; a wider band is allowed (every value is then
        "near an end" and the band is still of width ``d`` inside
        ``[a, b]``).
    k : int, default=1
        Number of reports per respondent, ``k >= 1``.  More reports help the
        collector and cost privacy: the ``k`` reports share one band, see
        :meth:`epsilon`.
    bounds : tuple (low, high) or None, default=None
        Domain ``[a, b]`` of each column: scalars for all columns or arrays
        of length ``n_features``.  ``None`` reads it from the data with a
        :class:`~skprivate.exceptions.PrivacyLeakWarning` (the bounds then
        depend on private values).
    random_state : int, RandomState, Generator or None, default=None
        Source of randomness; use an int seed for reproducible reports.
    secure : bool, default=True
        Draw every report exactly from a discrete law on a public grid of
        step ``h_j`` (a power of two, ``2**-24`` of ``min(d, b - a - d)``),
        the default, instead of the continuous floating-point sampler.  The
        continuous sampler's outputs carry rounding patterns that depend on
        the band, hence on the value (a floating-point side channel, as in
        Mironov 2012); ``secure=False`` keeps it as an explicit opt-out,
        reported as ``"floating_point_safe": False`` by
        :meth:`privacy_summary`.  See Notes.
    placement : {"boundary_safe", "paper"}, default="boundary_safe"
        Where the band may lie.  ``"boundary_safe"`` never moves it: the
        reports range over ``[a - d, b + d]`` (up to ``d`` beyond the bounds)
        and the guarantee holds for every value.  ``"paper"`` shifts it
        inside ``[a, b]`` as the paper does: the reports stay inside the
        bounds, but values closer than :meth:`boundary_margin` to a bound
        (ages at 17, incomes at 0) have no finite guarantee.

    Attributes
    ----------
    bounds_ : tuple of ndarray of shape (n_features,)
        Lower and upper bounds used for each column.
    d_ : ndarray of shape (n_features,)
        Band width for each column.
    report_range_ : tuple of ndarray of shape (n_features,)
        Range of the reports of each column: ``(a - d, b + d)`` with the
        boundary-safe placement, the bounds with the paper's.
    grid_step_ : ndarray of shape (n_features,) or None
        Step ``h_j`` of the public output grid (``secure=True``), else None.
    n_features_in_ : int
        Number of input columns.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Input column names, when ``X`` has string column names.

    See Also
    --------
    RVNSDensityEstimator : reconstruct the population density from reports.
    rvns_transition_density : the exact density of a report given a value.
    rvns_adversary_inference : the adversary's maximum-likelihood guess.

    Notes
    -----
    **The privacy notion.**  As in the paper's Theorem 1 the adversary sees
    each report only to within ``+/- delta``: the guarantee bounds the
    ratio, between two values, of the probabilities of windows
    ``[y - delta, y + delta]`` (cut to the report range) centred on a
    possible report of the less likely value -- for ``k >= 2`` on a
    possible ``k``-tuple of reports, since ``k`` windows that are each
    possible can be impossible together.  A report does exclude the values
    whose band must contain it, so this is not epsilon-LDP in the usual
    sense.

    **Why the paper's placement fails at the bounds.**  Any placement that
    keeps a band of width ``d`` around ``x`` inside ``[a, b]`` leaves, for
    ``x = a + r`` with ``r < delta``, reports below ``x`` only in the
    sliver ``[a, x)``: a window centred there has probability at most
    ``r / (b - a - d)`` against about ``2 delta / (b - a - d)`` for a value
    in the middle, a ratio that grows as ``delta / r``.  The paper's
    placement reaches ``ln(2 + 2 delta / r)`` (see :meth:`epsilon`).  Hence
    the boundary-safe placement pads the report range instead.

    **Boundary-safe placement: one report.**  With ``L = b - a`` and
    ``c = 1 / (L + d)`` a report has density ``c min(1, |y - x| / d)`` on
    ``[a - d, b + d]`` for every ``x`` in ``[a, b]``.  A window holds at
    most ``c`` times its length.  A window inside the report range holds at
    least ``c delta**2 / d`` (least when centred on ``x``), so the ratio is
    at most ``2 d / delta``, reached by the window around ``x`` against a
    value ``d + delta`` away.  A window cut at ``a - d``, of length ``l``
    in ``[delta, 2 delta)``, lies at least ``d`` from every value; it is
    least likely for ``x = a``, with probability ``c (l - l**2 / (2 d))``
    for ``l <= d`` and ``c (d / 2 + (l - d)**2 / (2 d))`` above, a ratio
    ``R(l) = 2 d / (2 d - l)``, then ``2 d l / (d**2 + (l - d)**2)``, that
    grows up to ``l = sqrt(2) d`` where it is ``1 + sqrt(2)``.  The same
    holds at ``b + d``.  So, for ``k = 1`` and ``0 < delta <= d``::

        epsilon = ln max(2 d / delta, R(min(2 delta, sqrt(2) d)))

    which is ``ln(2 d / delta)`` for ``delta <= 0.828 d`` (half the ratio
    ``4 d / delta`` the paper claims), for every input.  It is the exact
    worst case over all pairs of inputs in ``[a, b]`` and all windows when
    ``b - a >= 2 d`` (the two values can then be far enough apart), an upper
    bound otherwise.

    **Boundary-safe placement: k reports.**  The reports share the band, so
    they are not independent and the paper's composition ``k epsilon`` does
    not apply as such.  Given the band they are independent: the tuple of
    windows ``W_1 .. W_k`` has probability ``c**k E[prod_j |W_j - band|]``
    under ``x`` and at most ``c**k prod_j |W_j|`` under any value.  Take an
    offset ``s*`` at which the band leaves every window centre outside it
    (the tuple is possible).  Each window then keeps at least its half on
    the far side of its centre, ``delta``, outside the band, and moving the
    band by ``t`` covers at most ``t`` more, so ``|W_j - band| / |W_j| >=
    (delta - t) / (2 delta)`` on a side of ``s*`` of length ``delta`` (the
    offset ranges over ``d >= 2 delta``).  A window cut at ``a - d`` whose
    centre is within ``delta`` of ``s*``'s band start keeps less there but
    grows on the other side, ``>= t / delta``, the side where the full
    windows shrink.  Integrating over the uniform offset gives, for
    ``delta <= d / 2``::

        epsilon_k = ln((k + 1) M_k d / delta),   M_k = max_j C(k, j) 2**(k - j)

    (``M_1 = 2``, ``M_2 = 4``, ``M_3 = 12``, ``M_4 = 32``), used for
    ``k >= 2``.  It grows as ``ln(1 / delta)``, not ``k ln(1 / delta)``:
    the ``k``-tuple's ratio is much smaller than the composition
    ``(2 d / delta)**k``.  It is an upper bound: ``k`` windows centred on
    the value give ``(k + 1) 2**(k - 1) d / delta``, and for ``k = 2`` a
    brute-force search over values and windows finds ``6 d / delta``, half
    the bound (``ln 2`` less).

    **The float-safe default sampler** (``secure=True``).  Column ``j`` has
    a public grid of step ``h`` (a power of two), indices
    ``ja = ceil(a / h)`` to ``jb = floor(b / h)`` and a band of
    ``D = rint(d / h)`` steps.  A value is mapped to
    ``jx = clip(rint(x / h), ja, jb)`` (a fixed function of ``x``,
    applied before any randomness); the band is the ``D + 1`` grid points
    ``s, ..., s + D``.  With the boundary-safe placement ``s`` is uniform on
    ``jx - D .. jx`` and each report ``i * h`` has ``i`` uniform on the
    ``A = jb - ja + D`` points of ``ja - D .. jb + D`` outside the band;
    with the paper's, ``s`` is uniform on the integers of
    ``[max(ja, jx - D), min(jx, jb - D)]`` and ``i`` on the
    ``A = jb - ja - D`` points of ``ja .. jb`` outside the band.  Every
    step is integer arithmetic and ``i * h`` is exact, so the set of
    possible outputs is the fixed grid and their probabilities are exactly
    those of this discrete law: no floating-point side channel.

    *Its epsilon, boundary-safe.*  Let ``m = floor(delta / h)``: a window
    holds the ``2 m + 1`` grid points around a possible report (fewer where
    it is cut).  ``P(jx + t) = min(1, |t| / (D + 1)) / A``; the least likely
    full window is centred at ``jx +/- 1`` (``jx`` itself is never
    reported), with ``(m**2 + m + 1) / ((D + 1) A)``, and a window of ``l``
    points cut at ``ja - D`` holds at least ``T(l) / ((D + 1) A)`` with
    ``T(l) = sum_{u < l} |D - u|``.  So, for ``k = 1``, the exact discrete
    form of the bound above::

        epsilon = ln max((2 m + 1)(D + 1) / (m**2 + m + 1),
                         max_{m < l <= 2 m} l (D + 1) / T(l)).

    For ``k >= 2`` (``2 m <= D``) the argument above, counting grid points,
    gives ``ln((D + 1) / Q_k)`` with ``Q_k = min_j sum_{t=0..m}
    ((m + 1 - t) / (2 m + 1))**(k - j) ((t + 1) / (m + 1))**j``, computed
    exactly; it tends to ``ln((k + 1) M_k d / delta)`` as ``h / delta``
    vanishes.

    *Its epsilon, paper's placement.*  ``m`` as above; for an interior input
    (``D + 1`` band offsets) ``P(jx + t) = |t| / ((D + 1) A)`` for
    ``|t| <= D + 1``; the least likely window around ``jx`` has
    probability ``m (m + 1) / ((D + 1) A)`` (windows centred on any
    possible report only hold more), a ratio
    ``(2 m + 1)(D + 1) / (m (m + 1)) <= 4 D / m``.  At ``r = jx - ja < D``
    steps from a bound (``r + 1`` offsets) the band always covers
    ``jx .. ja + D`` and ``P(jx - t) = t / ((r + 1) A)`` for
    ``1 <= t <= r``; for ``r >= m`` the least likely window has
    probability at least ``m (m + 1) / (2 (r + 1) A)``, a ratio at most
    ``2 (2 m + 1)(r + 1) / (m (m + 1)) <= 4 (r + 1) / m <= 4 D / m``.
    Hence :meth:`epsilon` is ``k ln(4 D / m)`` per column, equal to the
    continuous ``k ln(4 d / delta)`` when ``d`` and ``delta`` are multiples
    of ``h`` and above it by a relative ``h / delta`` otherwise.  For
    ``1 <= r < m`` a window centred on a report below ``jx`` holds at
    most ``r + m`` points against at least the ``r`` points below ``jx``,
    of probability ``r / (2 A)``: the loss is ``ln(2 + 2 m / r)``, which
    exceeds ``ln(4 D / m)`` only for ``r < m**2 / (2 D - m)`` steps
    (the continuous ``delta**2 / (2 d - delta)``); :meth:`boundary_margin`
    adds one step for the rounding of ``x`` and of ``a``.  At ``r = 0``
    the band is fixed and the ratio is at most 2.

    *Its transition law.*  Per unit length the discrete law is the
    continuous RVNS density with band width ``(D + 1) h`` on a domain of
    length ``(jb - ja + 1) h``: both differ from ``d`` and ``b - a`` by at
    most ``h = 2**-24 min(d, b - a - d)`` (to ``h`` when a bound is far
    from 0), so the reconstruction learners, which use the continuous law
    of ``d_`` and ``bounds_``, see a relative error of order ``1e-7``.

    ``secure=False`` draws ``a + U (b - a - d)`` (plus ``d`` above the
    band; ``a - d + U (b - a + d)`` for the boundary-safe placement) in
    floating point.  Which of the two sums produced a report shows in its
    last bits, and that depends on where the band lies, hence on ``x``: for
    bounds (0, 1), ``d = 0.2`` and the paper's placement, a large share of
    the reports of ``x = 1`` between 0.2 and 0.8 cannot be produced by
    ``x = 0``.

    References
    ----------
    H. Jiang et al., "A Privacy-Preserving Data Collection Method for
    Diversified Statistical Analysis", Algorithm 1 and Theorem 1.

    I. Mironov, "On significance of the least significant bits for
    differential privacy", ACM CCS 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.negative_survey import RVNSPerturber
    >>> X = np.array([[0.0], [5.0], [9.5]])
    >>> rvns = RVNSPerturber(d=2.0, k=3, bounds=(0, 10), random_state=0)
    >>> Y = rvns.fit_transform(X)
    >>> Y.shape
    (3, 3)
    >>> bool(np.all((Y >= -2) & (Y <= 12)))  # the report range [a - d, b + d]
    True
    >>> rvns.get_feature_names_out().tolist()
    ['x0_s0', 'x0_s1', 'x0_s2']
    >>> round(rvns.epsilon(delta=0.05), 3)  # every value, the bounds included
    7.56
    >>> paper = RVNSPerturber(d=2.0, k=3, bounds=(0, 10), placement="paper").fit(X)
    >>> round(paper.epsilon(delta=0.05), 3), paper.boundary_margin(delta=0.05) > 0
    (15.226, True)
    """

    _parameter_constraints: ClassVar[dict[str, Any]] = {
        "d": [Interval(numbers.Real, 0, None, closed="neither"), "array-like", None],
        "k": [Interval(numbers.Integral, 1, None, closed="left")],
        "bounds": ["array-like", dict, None],
        "random_state": ["random_state"],
        "secure": ["boolean"],
        "placement": [Options(set(PLACEMENTS))],
    }

    def __init__(
        self,
        d: float | ArrayLike | None = None,
        k: int = 1,
        bounds: tuple[Any, Any] | None = None,
        random_state: Any = None,
        secure: bool = True,
        placement: str = "boundary_safe",
    ) -> None:
        self.d = d
        self.k = k
        self.bounds = bounds
        self.random_state = random_state
        self.secure = secure
        self.placement = placement

    def _validate_X(self, X: Any, reset: bool) -> NDArray[np.float64]:
        X = check_numeric_input(X, finite=True)
        return validate_data(
            self, X, reset=reset, dtype=np.float64, ensure_all_finite=True
        )

    def fit(self, X: ArrayLike, y: Any = None) -> RVNSPerturber:
        """Set up the mechanism for the columns of ``X``.

        Only the number of columns (and, with ``bounds=None``, their min and
        max, with a privacy-leak warning) is learnt; no value is stored.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Values to be perturbed later (NaN and inf are rejected).
        y : Ignored
            Present for scikit-learn API compatibility.

        Returns
        -------
        self : RVNSPerturber
        """
        return super().fit(X, y)

    def _fit(self, X: ArrayLike, y: Any = None) -> RVNSPerturber:
        self._check_params()
        X = self._validate_X(X, reset=True)
        p = X.shape[1]
        if self.bounds is None:
            low, high = bounds_from_data(X, owner=type(self).__name__)
        else:
            names = getattr(self, "feature_names_in_", None)
            low, high = check_bounds(self.bounds, p, feature_names=names)
        check_grid_width(
            low,
            high,
            getattr(self, "feature_names_in_", None),
            declared=self.bounds is not None,
        )
        if self.d is None:
            d = DEFAULT_D_FRACTION * (high - low)
        else:
            d = np.asarray(self.d, dtype=float)
        if d.ndim > 1 or (d.ndim == 1 and d.size != p):
            raise ValueError(
                f"d must be a scalar or have one entry per column ({p}); "
                f"got shape {d.shape}."
            )
        d = np.broadcast_to(d, (p,)).copy()
        if not np.all(np.isfinite(d)) or np.any(d <= 0):
            raise ValueError(f"d must be finite and positive; got {self.d!r}.")
        too_wide = d >= high - low
        if too_wide.any():
            j = int(np.flatnonzero(too_wide)[0])
            # a range read from the data is a function of raw values: not shown
            width = f" = {high[j] - low[j]:g}" if self.bounds is not None else ""
            raise ValueError(
                f"d must be smaller than the range b - a of every column; column "
                f"{j} has d={d[j]:g} >= b - a{width}, which would "
                "leave no value to report."
            )
        if self.secure:
            self._grid = sampler_grid(d, low, high)
            if self.placement == "boundary_safe":
                check_safe_grid(self._grid)
            self.grid_step_ = self._grid[0]
        else:
            self._grid = None
            self.grid_step_ = None
        self.bounds_ = (low, high)
        self.d_ = d
        self.report_range_ = report_range(d, low, high, self.placement)
        return self

    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """Draw ``k`` reports per value.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Values within the bounds.

        Returns
        -------
        Y : ndarray of shape (n_samples, n_features * k)
            The reports of column ``j`` occupy columns ``j*k`` to
            ``j*k + k - 1`` (names ``<column>_s0`` ... ``<column>_s{k-1}``).
        """
        return super().transform(X)

    def _transform(self, X: ArrayLike) -> NDArray[np.float64]:
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        low, high = self.bounds_
        names = getattr(self, "feature_names_in_", None)
        declared = self.bounds is not None
        check_values_in_bounds(X, low, high, names, declared=declared)
        rng = self._next_generator(X)

        safe = self.placement == "boundary_safe"

        def release(B):
            if self._grid is not None:
                grid_sampler = sample_rvns_grid_safe if safe else sample_rvns_grid
                reports = grid_sampler(B, self._grid, self.k, rng)
            else:
                sampler = sample_rvns_safe if safe else sample_rvns
                reports, _ = sampler(B, self.d_, low, high, self.k, rng)
            return reports.reshape(B.shape[0], -1)

        return in_row_blocks(release, X)

    def get_feature_names_out(self, input_features: ArrayLike | None = None):
        """Names ``<column>_s0`` ... ``<column>_s{k-1}`` for each input column.

        Parameters
        ----------
        input_features : array-like of str or None, default=None
            Input column names; defaults to ``feature_names_in_`` or
            ``x0, x1, ...``.

        Returns
        -------
        feature_names_out : ndarray of str objects
        """
        check_is_fitted(self)
        if input_features is None:
            input_features = getattr(
                self,
                "feature_names_in_",
                [f"x{i}" for i in range(self.n_features_in_)],
            )
        input_features = np.asarray(input_features, dtype=object)
        if input_features.size != self.n_features_in_:
            raise ValueError(
                f"input_features should have length {self.n_features_in_}; "
                f"got {input_features.size}."
            )
        return np.asarray(
            [f"{name}_s{j}" for name in input_features for j in range(self.k)],
            dtype=object,
        )

    def epsilon(self, delta: float) -> float | NDArray[np.float64]:
        """Privacy budget of the mechanism at the adversary's resolution ``delta``.

        The adversary is taken to identify each report only up to a window
        ``[y - delta, y + delta]`` centred on a possible report of the less
        likely input (for ``k >= 2``, on a possible ``k``-tuple of reports);
        the returned epsilon bounds the log-ratio of two inputs'
        probabilities of such windows.

        **Boundary-safe placement (default).**  The bound holds for every
        input in the bounds (the class Notes derive it):
        ``ln max(2 d / delta, R)`` for ``k = 1``, where ``R <= 1 + sqrt(2)``
        matters only for ``delta > 0.828 d`` (windows cut at the ends of the
        report range), exact when ``b - a >= 2 d``; and
        ``ln((k + 1) M_k d / delta)`` with ``M_k = max_j C(k, j) 2**(k - j)``
        for ``k >= 2`` and ``delta <= d / 2``.  The ``k`` reports share one
        band, so their ratio grows as ``1 / delta``, not as
        ``1 / delta**k``.

        **Paper's placement.**  Theorem 1: ``k ln(4 d / delta)``, where the
        factor ``k`` is the paper's composition over the ``k`` reports
        (which share one band).  Write ``r = min(x - a, b - x)`` for the
        distance of an input to the nearer bound and ``c = 1 / (b - a - d)``.
        The report density is ``c * P(y not in band)``; at most ``c`` for
        every input, so a window has probability at most ``2 c delta``.  For
        an interior input (``r >= d``) it is ``c min(1, |y - x| / d)`` and the
        least likely window, centred on ``x``, has probability
        ``c delta**2 / d``: ratio ``2 d / delta``.  Near a bound the offset
        of the band is clipped to ``[0, r]``: the band always covers
        ``[x, a + d]`` and the reports below ``x`` have density
        ``c (x - y) / r`` on ``[a, x)``.  For ``r >= delta`` the worst window
        is centred on ``x`` with probability ``c delta**2 / (2 r)``, ratio
        ``4 r / delta <= 4 d / delta``.  For ``r < delta`` the window
        ``[x - delta, x + delta]`` holds only ``[a, x)``, of probability
        ``c r / 2``, against up to ``c (r + delta)`` for an interior input:
        the ratio is ``2 + 2 delta / r``, unbounded as ``x`` reaches a bound
        (``x = a`` exactly is safe again: the band is then fixed).  Hence
        the claim ``ln(4 d / delta)`` per report holds exactly for inputs at
        distance ``r >= delta**2 / (2 d - delta)`` from both bounds
        (:meth:`boundary_margin`); closer inputs reach
        ``ln(2 + 2 delta / r)``.  ``privacy_summary`` reports this
        condition.

        With the default float-safe sampler (``secure=True``) the same
        arguments on the grid give the discrete forms of the class Notes, in
        the band ``D`` and window ``m = floor(delta / h)`` in grid steps
        ``h`` (``grid_step_``); they equal the continuous ones to a relative
        ``h / delta``.

        Parameters
        ----------
        delta : float
            Half-width of the adversary's resolution window, ``0 < delta <=
            d`` (for ``delta > d`` the bound ``4 d / delta`` would drop below
            the ratio 4 that two windows can already differ by); with the
            boundary-safe placement and ``k >= 2``, ``0 < delta <= d / 2``.

        Returns
        -------
        epsilon : float or ndarray of shape (n_features,)
            One value when all columns share ``d``, else one per column.

        Examples
        --------
        >>> from skprivate.negative_survey import RVNSPerturber
        >>> rvns = RVNSPerturber(d=2.0, bounds=(0, 10), secure=False).fit([[0.0]])
        >>> round(rvns.epsilon(0.1), 4)  # ln(2 d / delta) = ln 40
        3.6889
        >>> round(rvns.set_params(k=2).fit([[0.0]]).epsilon(0.1), 4)  # ln(3 * 4 * 20)
        5.4806
        """
        check_is_fitted(self)
        delta = float(delta)
        if not np.isfinite(delta) or delta <= 0 or np.any(delta > self.d_):
            raise ValueError(
                f"delta must satisfy 0 < delta <= d (d = {self.d_.min():g}); "
                f"got delta={delta!r}."
            )
        safe = self.placement == "boundary_safe"
        if safe and self.k > 1 and np.any(2.0 * delta > self.d_):
            raise ValueError(
                f"delta must satisfy 0 < delta <= d / 2 (d / 2 = "
                f"{self.d_.min() / 2:g}) for the k-report bound of the "
                f"boundary-safe placement (k={self.k}); got delta={delta!r}."
            )
        if self._grid is None:
            if safe:
                eps = np.log(_safe_ratio(self.d_, delta, self.k))
            else:
                eps = self.k * np.log(4.0 * self.d_ / delta)
        else:
            D, m = self._grid_window(delta)
            if safe:
                eps = np.array(
                    [
                        _safe_grid_log_ratio(int(Dj), int(mj), self.k)
                        for Dj, mj in zip(D, m, strict=True)
                    ]
                )
            else:
                eps = self.k * np.log(4.0 * D / m)
        return float(eps[0]) if np.all(eps == eps[0]) else eps

    def _grid_window(self, delta: float) -> tuple[NDArray, NDArray]:
        """Band ``D`` and window half-width ``m`` in grid steps (secure mode)."""
        h, _, _, D = self._grid
        m = np.floor(float(delta) / h)
        if np.any(m < 1):
            raise ValueError(
                f"delta must be at least the grid step of the sampler "
                f"({h.max():g}); got delta={delta!r}."
            )
        return D.astype(float), m

    def boundary_margin(self, delta: float) -> float | NDArray[np.float64]:
        """Distance to the bounds from which :meth:`epsilon` holds.

        Zero with the boundary-safe placement: the epsilon holds for every
        input in the bounds.  With the paper's placement the margin is
        ``delta**2 / (2 d - delta)``; with the float-safe sampler it is
        ``h (m**2 / (2 D - m) + 1)`` in the notation of the class Notes (the
        same to within about two grid steps ``h``).

        Parameters
        ----------
        delta : float
            Half-width of the adversary's window (as for :meth:`epsilon`).

        Returns
        -------
        margin : float or ndarray of shape (n_features,)
            One value when all columns share ``d``, else one per column.
        """
        self.epsilon(delta)  # validates delta
        if self.placement == "boundary_safe":
            margin = np.zeros_like(self.d_)
        elif self._grid is None:
            margin = float(delta) ** 2 / (2.0 * self.d_ - float(delta))
        else:
            D, m = self._grid_window(delta)
            margin = self._grid[0] * (m**2 / (2.0 * D - m) + 1.0)
        return float(margin[0]) if np.all(margin == margin[0]) else margin

    def _exact_law(self, column: int) -> Any:
        """Pointwise loss of ``column`` for :func:`skprivate.audit`."""
        check_is_fitted(self)
        return rvns_exact_law(self, column)

    def privacy_summary(self, delta: float | None = None) -> dict[str, Any]:
        """The quantities that define the RVNS guarantee.

        Parameters
        ----------
        delta : float or None, default=None
            Adversary resolution for the epsilon; ``None`` uses ``d / 20``,
            a window one tenth as wide as the band.

        Returns
        -------
        summary : dict
            ``notion``, ``placement``, ``d``, ``k``, ``bounds``,
            ``bounds_from_data``, ``report_range`` (per column: ``[a - d,
            b + d]`` with the boundary-safe placement, the bounds with the
            paper's), ``band_fraction`` (share of the range the band
            removes), ``delta``, ``epsilon`` (one record: the sum over
            columns), ``epsilon_per_feature``, ``boundary_margin`` (per
            column; 0 with the boundary-safe placement), ``condition`` (the
            windows and inputs for which the epsilon holds, see
            :meth:`epsilon`) and ``epsilon_every_input`` (per column: the
            worst case over every input in the bounds -- the epsilon with
            the boundary-safe placement, infinite with the paper's, whose
            loss ``ln(2 + 2 delta / r)`` per report at a distance ``r <
            boundary_margin`` from a bound grows without limit);
            ``sampler``, ``floating_point_safe`` (False only for
            ``secure=False``) and, by default, ``output_grid`` (``origin``
            and ``step`` per column: every report is ``origin + integer *
            step``).  ``epsilon`` is the guarantee of one record, the sum of
            ``epsilon_per_feature`` (one entry per column), as for every
            privatizer.

        Examples
        --------
        >>> from skprivate.negative_survey import RVNSPerturber
        >>> rvns = RVNSPerturber(d=2.0, bounds=(0, 10)).fit([[0.0]])
        >>> summary = rvns.privacy_summary(delta=0.1)
        >>> summary["placement"], summary["boundary_margin"], summary["report_range"]
        ('boundary_safe', [0.0], ([-2.0], [12.0]))
        >>> summary["epsilon_every_input"] == summary["epsilon_per_feature"]
        True
        """
        check_is_fitted(self)
        low, high = self.bounds_
        if delta is None:
            delta = float(self.d_.min()) / 20.0
        per_feature = np.broadcast_to(self.epsilon(delta), self.d_.shape)
        margin = np.broadcast_to(self.boundary_margin(delta), self.d_.shape)
        secure = self._grid is not None
        safe = self.placement == "boundary_safe"
        tuple_ = "a possible k-tuple of reports" if self.k > 1 else "a possible report"
        if safe:
            every = per_feature
            condition = (
                "holds for every input in the bounds, for windows of half-width "
                f"delta centred on {tuple_} of the less likely input; "
                + (
                    "exact when b - a >= 2 d"
                    if self.k == 1
                    else "an upper bound (the k reports share one band and do "
                    "not compose: the ratio grows as 1 / delta)"
                )
            )
        else:
            every = np.full(self.d_.shape, np.inf)
            condition = (
                f"holds for windows of half-width delta centred on {tuple_} of "
                "the less likely input, for inputs at least boundary_margin from "
                "both bounds; an input at r < boundary_margin from a bound "
                "reaches ln(2 + 2 delta / r) per report, without limit as r -> 0 "
                "(use placement='boundary_safe' for a guarantee at every input)"
            )
        rlow, rhigh = self.report_range_
        summary = {
            "notion": "real-value negative survey (epsilon-LDP up to a delta window)",
            "placement": self.placement,
            "d": self.d_.tolist(),
            "k": int(self.k),
            "bounds": (low.tolist(), high.tolist()),
            "report_range": (rlow.tolist(), rhigh.tolist()),
            "band_fraction": (self.d_ / (high - low)).tolist(),
            "delta": float(delta),
            "epsilon": float(np.sum(per_feature)),
            "epsilon_per_feature": per_feature.tolist(),
            "epsilon_every_input": np.asarray(every, dtype=float).tolist(),
            "boundary_margin": margin.tolist(),
            "bounds_from_data": bool(self.bounds is None),
            "sampler": ("exact discrete draws on a grid" if secure else "continuous"),
            "floating_point_safe": secure,
            "condition": condition,
            **self._release_policy(),
        }
        if secure:
            summary["output_grid"] = {
                "origin": [0.0] * self.n_features_in_,
                "step": self.grid_step_.tolist(),
            }
        return summary


def _tuple_factor(k: int) -> int:
    """``M_k = max_j C(k, j) 2**(k - j)`` of the k-report bound."""
    return max(math.comb(k, j) * 2 ** (k - j) for j in range(k + 1))


def _safe_ratio(d: NDArray, delta: float, k: int) -> NDArray[np.float64]:
    """Window ratio bound of the boundary-safe placement (continuous sampler)."""
    if k > 1:
        return (k + 1) * _tuple_factor(k) * d / delta
    # windows cut at the ends of the report range, of length l in [delta, 2 delta)
    ell = np.minimum(2.0 * delta, np.sqrt(2.0) * d)
    cut = np.where(
        ell <= d, 2.0 * d / (2.0 * d - ell), 2.0 * d * ell / (d * d + (ell - d) ** 2)
    )
    return np.maximum(2.0 * d / delta, cut)


def _power_sums(n: int, top: int) -> list[int]:
    """``sum_{u=1..n} u**p`` for ``p = 0 .. top``, exactly."""
    sums: list[int] = []
    for p in range(top + 1):
        rest = sum(math.comb(p + 1, i) * sums[i] for i in range(p))
        sums.append(((n + 1) ** (p + 1) - 1 - rest) // (p + 1))
    return sums


def _log_fraction(value: Fraction) -> float:
    return math.log(value.numerator) - math.log(value.denominator)


def _safe_grid_log_ratio(D: int, m: int, k: int) -> float:
    """Log window ratio bound of the boundary-safe grid law (class Notes)."""
    if k == 1:
        best = Fraction((2 * m + 1) * (D + 1), m * m + m + 1)
        # windows of l points cut at the end of the report range: the ratio
        # rises with l up to D + 1, then peaks near sqrt(2 D (D + 1))
        root = math.isqrt(2 * D * (D + 1))
        for ell in {m + 1, 2 * m, min(2 * m, D + 1), D + 2, root, root + 1}:
            if not m + 1 <= ell <= 2 * m:
                continue
            if ell <= D + 1:
                least = ell * D - ell * (ell - 1) // 2
            else:
                least = D * (D + 1) // 2 + (ell - D - 1) * (ell - D) // 2
            best = max(best, Fraction(ell * (D + 1), least))
        return _log_fraction(best)
    n = m + 1
    sums = _power_sums(n, k)
    worst = None
    for j in range(k + 1):
        a = k - j
        # sum_{u=1..n} (n + 1 - u)**a u**j, expanded in powers of u
        total = sum(
            math.comb(a, i) * (n + 1) ** (a - i) * (-1) ** i * sums[i + j]
            for i in range(a + 1)
        )
        q = Fraction(total, (2 * m + 1) ** a * (m + 1) ** j)
        worst = q if worst is None else min(worst, q)
    return _log_fraction(Fraction(D + 1) / worst)
