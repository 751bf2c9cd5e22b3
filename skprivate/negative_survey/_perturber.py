"""RVNSPerturber: the corrected Algorithm 1 of the real-value negative survey."""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import PrivatizerMixin
from ..utils import Interval, bounds_from_data, check_bounds
from ..utils._bounds import check_values_in_bounds
from ..utils._row_blocks import in_row_blocks
from ..utils.validation import check_numeric_input
from ._transition import sample_rvns, sample_rvns_grid, sampler_grid

__all__ = ["RVNSPerturber"]

#: Default band width as a fraction of each column's range (``d=None``).
DEFAULT_D_FRACTION = 0.2


class RVNSPerturber(PrivatizerMixin, BaseEstimator):
    """Real-value negative survey: report values drawn away from the truth.

    Each respondent with value ``x`` in ``[a, b]`` reports ``k`` values drawn
    uniformly from ``[a, b]`` minus a *prohibited band* of width ``d`` that
    contains ``x``.  The band ``[x - d1, x - d1 + d]`` is placed at a random
    offset ``d1 ~ U[max(0, x + d - b), min(d, x - a)]`` drawn once per
    respondent, which reproduces the three cases of the paper's Algorithm 1
    (near the left end, in the middle, near the right end) with the
    corrections of its errata.  No report ever falls within ``d1`` below or
    ``d - d1`` above its own value.

    Parameters
    ----------
    d : float, array-like of shape (n_features,) or None, default=None
        Width of the prohibited band, one value for all columns or one per
        column; ``0 < d < b - a`` for every column.  ``None`` uses a fifth
        of each column's range, ``d = (b - a) / 5`` (14.6 years for ages
        17-90), a middle setting between privacy and accuracy; choose ``d``
        for your data rather than relying on it.  A wider band keeps
        every report farther from the truth but makes each report more
        informative (it rules out more values): Theorem 1's epsilon grows as
        ``k ln(4 d / delta)`` and the reconstruction becomes more accurate.
        With ``d <= (b - a) / 2`` the paper's three cases
        apply; a wider band is allowed (every value is then "near an end"
        and the band is still of width ``d`` inside ``[a, b]``).
    k : int, default=1
        Number of reports per respondent, ``k >= 1``.  More reports help the
        collector and, by Theorem 1, cost ``k`` times the privacy budget.
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

    Attributes
    ----------
    bounds_ : tuple of ndarray of shape (n_features,)
        Lower and upper bounds used for each column.
    d_ : ndarray of shape (n_features,)
        Band width for each column.
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
    **The float-safe default sampler** (``secure=True``).  Column ``j`` has
    a public grid of step ``h`` (a power of two), indices
    ``ja = ceil(a / h)`` to ``jb = floor(b / h)`` and a band of
    ``D = rint(d / h)`` steps.  A value is mapped to
    ``jx = clip(rint(x / h), ja, jb)`` (a fixed function of ``x``,
    applied before any randomness); the band is the ``D + 1`` grid points
    ``s, ..., s + D`` with ``s`` uniform on the integers of
    ``[max(ja, jx - D), min(jx, jb - D)]`` (always containing ``jx``), and
    each report is ``i * h`` with ``i`` uniform on the
    ``A = jb - ja - D`` grid indices of ``[ja, jb]`` outside the band.
    Every step is integer arithmetic and ``i * h`` is exact, so the set of
    possible outputs is the fixed grid and their probabilities are exactly
    those of this discrete law: no floating-point side channel.

    *Its epsilon.*  Let ``m = floor(delta / h)``: a window of half-width
    ``delta`` centred on a grid report holds ``2 m + 1`` grid points, so
    probability at most ``(2 m + 1) / A`` for any input.  For an interior
    input (``D + 1`` band offsets) ``P(jx + t) = |t| / ((D + 1) A)`` for
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
    band) in floating point.  Which of the two sums produced a report
    shows in its last bits, and that depends on where the band lies, hence
    on ``x``: for bounds (0, 1) and ``d = 0.2``, a large share of the
    reports of ``x = 1`` between 0.2 and 0.8 cannot be produced by
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
    >>> X = np.array([[1.0], [5.0], [9.5]])
    >>> rvns = RVNSPerturber(d=2.0, k=3, bounds=(0, 10), random_state=0)
    >>> Y = rvns.fit_transform(X)
    >>> Y.shape
    (3, 3)
    >>> rvns.get_feature_names_out().tolist()
    ['x0_s0', 'x0_s1', 'x0_s2']
    >>> round(rvns.epsilon(delta=0.05), 3)
    15.226
    """

    _parameter_constraints: ClassVar[dict[str, Any]] = {
        "d": [Interval(numbers.Real, 0, None, closed="neither"), "array-like", None],
        "k": [Interval(numbers.Integral, 1, None, closed="left")],
        "bounds": ["array-like", dict, None],
        "random_state": ["random_state"],
        "secure": ["boolean"],
    }

    def __init__(
        self,
        d: float | ArrayLike | None = None,
        k: int = 1,
        bounds: tuple[Any, Any] | None = None,
        random_state: Any = None,
        secure: bool = True,
    ) -> None:
        self.d = d
        self.k = k
        self.bounds = bounds
        self.random_state = random_state
        self.secure = secure

    def _validate_X(self, X: Any, reset: bool) -> NDArray[np.float64]:
        X = check_numeric_input(X)
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
        self._check_params()
        X = self._validate_X(X, reset=True)
        p = X.shape[1]
        if self.bounds is None:
            low, high = bounds_from_data(X, owner=type(self).__name__)
        else:
            names = getattr(self, "feature_names_in_", None)
            low, high = check_bounds(self.bounds, p, feature_names=names)
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
            self.grid_step_ = self._grid[0]
        else:
            self._grid = None
            self.grid_step_ = None
        self.bounds_ = (low, high)
        self.d_ = d
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
        check_is_fitted(self)
        X = self._validate_X(X, reset=False)
        low, high = self.bounds_
        names = getattr(self, "feature_names_in_", None)
        declared = self.bounds is not None
        check_values_in_bounds(X, low, high, names, declared=declared)
        rng = self._next_generator(X)

        def release(B):
            if self._grid is not None:
                reports = sample_rvns_grid(B, self._grid, self.k, rng)
            else:
                reports, _ = sample_rvns(B, self.d_, low, high, self.k, rng)
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
        """Privacy budget of Theorem 1, ``epsilon = k * ln(4 d / delta)``.

        The adversary is taken to identify a report only up to a window
        ``[y - delta, y + delta]`` centred on a possible report ``y`` of the
        less likely input.  The factor ``k`` is the paper's composition over
        the ``k`` reports, which treats them as independent although they
        share one band.

        **When the bound holds.**  Write ``r = min(x - a, b - x)`` for the
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
        argument on the grid gives ``k ln(4 D / m)`` with ``D`` the band and
        ``m = floor(delta / h)`` the window in grid steps ``h``
        (``grid_step_``); see the class Notes.  It equals
        ``k ln(4 d / delta)`` to a relative ``h / delta``.

        Parameters
        ----------
        delta : float
            Half-width of the adversary's resolution window, ``0 < delta <=
            d`` (for ``delta > d`` the bound ``4 d / delta`` would drop below
            the ratio 4 that two windows can already differ by).

        Returns
        -------
        epsilon : float or ndarray of shape (n_features,)
            One value when all columns share ``d``, else one per column.
        """
        check_is_fitted(self)
        delta = float(delta)
        if not np.isfinite(delta) or delta <= 0 or np.any(delta > self.d_):
            raise ValueError(
                f"delta must satisfy 0 < delta <= d (d = {self.d_.min():g}); "
                f"got delta={delta!r}."
            )
        if self._grid is None:
            eps = self.k * np.log(4.0 * self.d_ / delta)
        else:
            D, m = self._grid_window(delta)
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

        The margin is ``delta**2 / (2 d - delta)``; with the float-safe
        sampler it is ``h (m**2 / (2 D - m) + 1)`` in the notation of the
        class Notes (the same to within about two grid steps ``h``).

        Parameters
        ----------
        delta : float
            Half-width of the adversary's window, ``0 < delta <= d``.

        Returns
        -------
        margin : float or ndarray of shape (n_features,)
            One value when all columns share ``d``, else one per column.
        """
        self.epsilon(delta)  # validates delta
        if self._grid is None:
            margin = float(delta) ** 2 / (2.0 * self.d_ - float(delta))
        else:
            D, m = self._grid_window(delta)
            margin = self._grid[0] * (m**2 / (2.0 * D - m) + 1.0)
        return float(margin[0]) if np.all(margin == margin[0]) else margin

    def privacy_summary(self, delta: float | None = None) -> dict[str, Any]:
        """The quantities that define the RVNS guarantee.

        Parameters
        ----------
        delta : float or None, default=None
            Adversary resolution for Theorem 1's epsilon; ``None`` uses
            ``d / 20``, a window one tenth as wide as the band.

        Returns
        -------
        summary : dict
            ``notion``, ``d``, ``k``, ``bounds``, ``bounds_from_data``,
            ``band_fraction`` (share of the range the band removes),
            ``delta``, ``epsilon`` (one record: the sum over columns),
            ``epsilon_per_feature``, ``boundary_margin`` (per column) and
            ``condition``, the inputs for which the epsilon holds (see
            :meth:`epsilon`); ``sampler``, ``floating_point_safe`` (False
            only for ``secure=False``) and, by default, ``output_grid``
            (``origin`` and ``step`` per column: every report is
            ``origin + integer * step``).  ``epsilon`` is the guarantee of
            one record, the sum of ``epsilon_per_feature`` (one entry per
            column), as for every privatizer.
        """
        check_is_fitted(self)
        low, high = self.bounds_
        if delta is None:
            delta = float(self.d_.min()) / 20.0
        per_feature = np.broadcast_to(self.epsilon(delta), self.d_.shape)
        margin = np.broadcast_to(self.boundary_margin(delta), self.d_.shape)
        secure = self._grid is not None
        summary = {
            "notion": "real-value negative survey (epsilon-LDP up to a delta window)",
            "d": self.d_.tolist(),
            "k": int(self.k),
            "bounds": (low.tolist(), high.tolist()),
            "band_fraction": (self.d_ / (high - low)).tolist(),
            "delta": float(delta),
            "epsilon": float(np.sum(per_feature)),
            "epsilon_per_feature": per_feature.tolist(),
            "boundary_margin": margin.tolist(),
            "bounds_from_data": bool(self.bounds is None),
            "sampler": ("exact discrete draws on a grid" if secure else "continuous"),
            "floating_point_safe": secure,
            "condition": (
                "holds for windows of half-width delta centred on a possible "
                "report of the less likely input, for inputs at least "
                "boundary_margin from both bounds; an input at r < "
                "boundary_margin from a bound reaches ln(2 + 2 delta / r) per report"
            ),
        }
        if secure:
            summary["output_grid"] = {
                "origin": [0.0] * self.n_features_in_,
                "step": self.grid_step_.tolist(),
            }
        return summary
