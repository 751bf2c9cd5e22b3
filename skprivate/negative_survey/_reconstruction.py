"""RVNSDensityEstimator: reconstruct the population density from RVNS reports."""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, clone
from sklearn.utils.validation import check_is_fitted
from threadpoolctl import threadpool_limits

from .._grid_density._ems import (
    ML_FOLDS,
    ML_MAX_ITER,
    ML_SELECTION_TOL,
    ML_TOL,
    ML_WIDTHS,
    ems_cell_probabilities,
    select_ems_width,
    transition_operator,
)
from .._grid_density._estimate import GridDensityMixin, grid_edges
from .._grid_density._intervals import smoothing_matrix
from .._grid_density._kde import BinnedReports, ksdensity_bandwidth
from .._grid_density._moments import (
    binned_moments,
    moment_covariance,
    rvns_features,
    tilt_to_moments,
)
from .._grid_density._width_choice import WidthChoiceCheckMixin, width_choice
from ..base import (
    ParamsValidationMixin,
    PrivatizedInputMixin,
    SufficientStatisticMixin,
)
from ..utils import HasMethods, Interval, Options
from ..utils._dask import is_dask_collection
from ..utils._statistic import RowStatistic, value_range
from ..utils.validation import (
    check_finite,
    check_float_array,
    check_unchanged_settings,
)
from ._intervals import RVNSIntervalsMixin
from ._solvers import (
    cell_transition_matrix,
    solve_em,
    solve_lbfgs,
    solve_slsqp,
)
from ._transition import (
    PLACEMENTS,
    SafeCellOperator,
    _check_kernel_args,
    check_placement,
    report_range,
    rvns_transition_density,
    safe_cell_probabilities,
    unpack_bounds,
)

__all__ = ["RVNSDensityEstimator", "rvns_grid", "rvns_transition_matrix"]


def rvns_grid(bounds: tuple[float, float], n_points: int) -> NDArray[np.float64]:
    """Grid of Algorithm 2: the ``n_points + 1`` cell edges of ``[a, b]``.

    The reconstruction uses the left edges ``z_i = a + (i - 1)(b - a)/m``,
    ``i = 1..m``, as its points and ``z_{m+1} = b`` closes the last cell.

    Parameters
    ----------
    bounds : tuple (a, b)
        Domain.
    n_points : int
        Number ``m`` of grid points (cells).

    Returns
    -------
    edges : ndarray of shape (n_points + 1,)

    Examples
    --------
    >>> from skprivate.negative_survey import rvns_grid
    >>> rvns_grid((0, 10), 5)
    array([ 0.,  2.,  4.,  6.,  8., 10.])
    """
    a, b = unpack_bounds(bounds)
    if not (np.isfinite(a) and np.isfinite(b) and a < b):
        raise ValueError(f"bounds must be finite with a < b; got {bounds!r}.")
    if not (
        isinstance(n_points, numbers.Integral)
        and not isinstance(n_points, bool)
        and n_points >= 1
    ):
        raise ValueError(f"n_points must be an int >= 1; got {n_points!r}.")
    return grid_edges((a, b), n_points)


def rvns_transition_matrix(
    edges: ArrayLike,
    d: float,
    bounds: tuple[float, float],
    placement: str = "boundary_safe",
) -> NDArray[np.float64]:
    """Discretized kernel ``P[j, i] = p(z_i, y_j) * Delta_i`` (Eq. 7).

    Row ``j`` is the output point ``y_j``, column ``i`` the input point
    ``z_i`` (the left cell edges), so that the density of the reports at the
    output points is ``g = P @ f``.  The cell width ``Delta_i`` is the factor
    that Eq. (8) of the paper drops.  The output points are the left edges of
    ``m`` equal cells of the report range: ``[a - d, b + d]`` with the
    boundary-safe placement, the input points themselves with the paper's.

    Parameters
    ----------
    edges : array-like of shape (m + 1,)
        Cell edges of the values, from :func:`rvns_grid`.
    d : float
        Band width of the mechanism.
    bounds : tuple (a, b)
        Domain of the values.
    placement : {"boundary_safe", "paper"}, default="boundary_safe"
        Band placement of the mechanism (see :class:`RVNSPerturber`).

    Returns
    -------
    P : ndarray of shape (m, m)

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import rvns_grid, rvns_transition_matrix
    >>> P = rvns_transition_matrix(rvns_grid((0, 10), 100), 2.0, (0, 10))
    >>> P.shape
    (100, 100)
    >>> g = P @ np.full(100, 0.1)  # reports of uniform values, on [-2, 12]
    >>> round(float(g.sum() * 0.14), 3)  # a density: sum * output step = 1
    1.0
    >>> P = rvns_transition_matrix(rvns_grid((0, 10), 100), 2.0, (0, 10), "paper")
    >>> bool(np.allclose(P.sum(axis=0), 1.0, atol=0.02))  # outputs = inputs
    True
    """
    edges = check_float_array(edges, name="edges", allow_nan=True)
    if edges.ndim != 1 or edges.size < 2 or not np.all(np.isfinite(edges)):
        raise ValueError(
            "edges must be a finite 1-D array of at least 2 cell edges; got shape "
            f"{edges.shape}."
        )
    if not np.all(np.diff(edges) > 0):
        i = int(np.flatnonzero(np.diff(edges) <= 0)[0])
        raise ValueError(
            f"edges must be strictly increasing; edges[{i + 1}]={edges[i + 1]:g} "
            f"follows edges[{i}]={edges[i]:g}."
        )
    z, widths = edges[:-1], np.diff(edges)
    d, a, b = _check_kernel_args(d, *unpack_bounds(bounds))
    tol = 1e-12 * (b - a)
    if edges[0] < a - tol or edges[-1] > b + tol:
        raise ValueError(
            f"edges must lie within bounds [{a:g}, {b:g}] (the values' domain); "
            f"they span [{edges[0]:g}, {edges[-1]:g}]. Build them with "
            "rvns_grid(bounds, m)."
        )
    y = z if check_placement(placement) == "paper" else _report_points(d, a, b, z.size)
    p = rvns_transition_density(z[None, :], y[:, None], d, (a, b), placement)
    return p * widths[None, :]


def _report_points(d: float, a: float, b: float, m: int) -> NDArray[np.float64]:
    """Left edges of ``m`` equal cells of the boundary-safe report range."""
    return rvns_grid(report_range(d, a, b, "boundary_safe"), m)[:-1]


_SOLVERS = {"em": solve_em, "lbfgs": solve_lbfgs, "slsqp": solve_slsqp}

# The smoothing widths are fitted from the widest down and the path stops
# after this many widths in a row score below the best: the narrow widths
# are the slowest to fit and, past the peak of the held-out likelihood,
# are not chosen.  One: on the 58 configurations of the selection table of
# benchmarks/results/negative_survey_speed.md a patience of one chose the
# width a patience of two chose in all 58, and the extra width two fitted
# cost about 15% of the fit.  (Scoring every width chose the narrowest in
# 2 of them, where the score rose again at the rough end, with W1 1.3 and
# 2.2 times larger: the stop also guards against that rise.)
# The ``"rbc"`` intervals score the widths left out when the narrowest
# scored one is tied (:func:`~.._grid_density._width_choice.extend_width_path`).
_WIDTH_PATIENCE = 1

# Band width (in report cells) above which the prefix-sum products of the
# boundary-safe cell matrix beat its sparse band (measured at d = 10 on
# (0, 100): equal cost near m = 1,000, 2 * d / step = 170 cells).
_DENSE_BAND_CELLS = 150


class _CellReports:
    """Reports counted in the reconstruction cells, per fold of respondents."""

    bandwidth = None

    def __init__(self, bounds: tuple[float, float], n_points: int) -> None:
        self.bounds = (float(bounds[0]), float(bounds[1]))
        self.edges = rvns_grid(self.bounds, n_points)

    def bin(self, Y: NDArray, start: int) -> NDArray[np.float64]:
        """Counts of shape ``(ML_FOLDS, n_points)``; row ``i`` of ``Y`` is
        respondent ``start + i`` and goes to fold ``(start + i) % ML_FOLDS``."""
        m = self.edges.size - 1
        a, b = self.bounds
        cell = np.clip(((Y - a) / (b - a) * m).astype(np.intp), 0, m - 1)
        fold = (start + np.arange(Y.shape[0])) % ML_FOLDS
        flat = (fold[:, None] * m + cell).ravel()
        return np.bincount(flat, minlength=ML_FOLDS * m).reshape(ML_FOLDS, m) * 1.0


class _ReportCounts(RowStatistic):
    """Reports counted on a grid fixed by the bounds, with their range.

    The sufficient statistic of :class:`RVNSDensityEstimator`: a block's
    value is ``(counts, n_reports, n_rows, low, high)`` -- its reports
    counted in the reconstruction cells per fold of respondents (``"ml"``,
    folds by row number in the whole data) or linearly binned on the KDE
    grid (``"paper"``), and the smallest and largest report, checked
    against the bounds once all blocks are counted.  Values add up.
    """

    def __init__(
        self,
        grid: Any,
        d: float,
        ml: bool,
        streamable: bool,
        placement: str = "paper",
        value_bounds: tuple[float, float] | None = None,
    ) -> None:
        self.grid, self.d, self.ml, self.streamable = grid, d, ml, streamable
        # the grid covers the reports; the values lie in value_bounds
        self.placement = placement
        self.value_bounds = grid.bounds if value_bounds is None else value_bounds

    def block(self, rows, first_row):
        # a block of a dask collection is converted here: name, never quote
        Y = check_float_array(rows, name="X", allow_nan=True, first_row=first_row)
        low, high = (float(Y.min()), float(Y.max())) if Y.size else (np.inf, -np.inf)
        if Y.size and not np.isfinite([low, high]).all():  # NaN or inf in Y
            check_finite(Y, name="X", first_row=first_row)
        counts = self.grid.bin(Y, first_row) if self.ml else self.grid.bin(Y)
        return counts, Y.size, Y.shape[0], low, high

    def merge(self, values):
        counts = values[0][0].copy()
        for value in values[1:]:
            counts += value[0]
        return (
            counts,
            sum(v[1] for v in values),
            sum(v[2] for v in values),
            min(v[3] for v in values),
            max(v[4] for v in values),
        )


class RVNSDensityEstimator(
    WidthChoiceCheckMixin,
    RVNSIntervalsMixin,
    SufficientStatisticMixin,
    GridDensityMixin,
    PrivatizedInputMixin,
    ParamsValidationMixin,
    BaseEstimator,
):
    """Reconstruct a population density from real-value negative survey reports.

    The density of the values on a grid of ``n_points`` cells of ``[a, b]``
    is fitted to the reports through the exact transition law of the
    mechanism, for either band placement of :class:`RVNSPerturber` (the
    reports of the default boundary-safe placement range over
    ``[a - d, b + d]``; they are counted on ``n_points`` cells of that
    range).  By default it maximizes their likelihood (``method="ml"``).
    ``method="paper"`` is Algorithm 2 of Jiang et al.: the reports are
    smoothed by a Gaussian KDE, the exact RVNS kernel is discretized into
    ``g = P f`` (with the cell width the paper's Eq. 8 drops), and the
    density on the grid solves::

        min_V  KL(G || P V) + KL(P V || G) + l1 ||V||_1 + l2 ||V||_2^2
        s.t.   sum_i V_i Delta_i = 1,  V >= 0.

    The result is a histogram density with the common population-estimate
    interface (``pdf``, ``cdf``, ``quantile``, ``mean``, ``sample``, ...).

    Parameters
    ----------
    method : {"ml", "paper"}, default="ml"
        ``"ml"`` (default) maximizes the likelihood of the reports counted
        in the ``n_points`` cells, with the exact cell-to-cell transition
        probabilities of the mechanism, by EM with a smoothing step (EMS);
        the smoothing width is chosen from nine widths, 0.5 to 8 cells in
        steps of about ``sqrt(2)``, by the held-out log-likelihood of the
        reports over 5 folds of respondents (the held-out fits that rank
        the widths stop at a relative change of 3e-6, the final fit at
        1e-7).  No KDE is involved, so there
        is no false mass at the bounds.  ``"paper"`` is Algorithm 2 of the
        paper: KDE of the reports then the regularized fit below
        (``bandwidth``, ``boundary``, ``l1``,
        ``l2`` and ``solver`` apply to it only).
    d : float or None, default=None
        Band width of the mechanism that produced the reports (public).
        Taken from ``privatizer`` when one is given; required otherwise.
    bounds : tuple (a, b) or None, default=None
        Domain of the values (public).  Taken from ``privatizer`` when one is
        given; otherwise ``None`` uses the range of the reports, which
        approach the ends of the report range for large samples (``[a - d,
        b + d]`` with the boundary-safe placement, so ``d`` is added to
        their minimum and taken from their maximum).
    n_points : int, default=100
        Number ``m`` of grid cells.  Cost grows as ``m**2`` for the fast
        solvers and ``m**3`` per iteration for ``"slsqp"``.
    bandwidth : float or {"ksdensity"}, default="ksdensity"
        KDE bandwidth of the reports; ``"ksdensity"`` is MATLAB's
        normal-reference rule with a robust scale, the tool the paper used.
        A float (with ``bounds``) lets :meth:`partial_fit` stream reports.
    boundary : {"none", "reflect"}, default="none"
        KDE boundary treatment.  The reports live on ``[a, b]``; a plain KDE
        (``"none"``, as published) halves their density at the ends, which
        the paper's reconstructions show as spikes there.  ``"reflect"``
        mirrors the reports about ``a`` and ``b`` to remove that artefact.
    l1 : float, default=0.0
        L1 weight.  On the feasible set ``||V||_1`` is constant for a uniform
        grid, so it has no effect there; kept for fidelity to Eq. (9).
    l2 : float or "auto", default="auto"
        L2 (smoothness) weight; the paper's unstated value 1 over-smooths.
        ``"auto"`` uses ``1e-3 * (b - a)**2 / n_points``, which is ``1e-3``
        on a ``[0, 10]`` range with ``m = 100`` (the setting of the paper's
        experiments) and keeps the same continuous penalty
        ``(b - a) * integral of f**2`` for other ranges and grid sizes.
    solver : {"em", "lbfgs", "slsqp"}, default="lbfgs"
        ``"slsqp"`` is the published SQP solver (dense, O(m^3) per
        iteration); ``"lbfgs"`` solves the same problem with L-BFGS-B on a
        parametrization that satisfies the area constraint by construction
        (O(m^2) per iteration); ``"em"`` runs Richardson-Lucy (EM)
        multiplicative updates for ``KL(G || P V)`` with the L2 penalty by
        the one-step-late rule.
    max_iter : int, default=2000
        Maximum number of solver iterations.
    tol : float or None, default=None
        Solver tolerance: ``ftol`` of SciPy's solvers (default ``1e-10``),
        relative change of the objective for ``"em"`` (default ``1e-5``).
    privatizer : RVNSPerturber or None, default=None
        When given, ``fit`` receives raw values of one column, perturbs them
        with a clone of this privatizer and reads ``d``, ``bounds`` and
        ``placement`` from it.
    placement : {"boundary_safe", "paper"}, default="boundary_safe"
        Band placement of the mechanism that produced the reports (public),
        as :class:`RVNSPerturber`'s parameter of that name: its transition
        law is the one inverted.  Taken from ``privatizer`` when one is
        given.
    moment_correction : bool, default=True
        With ``"ml"``, tilt the estimate so that the reports' expected mean
        and mean square equal their sample values (see Notes); ``False``
        keeps the EMS estimate.  ``"paper"`` is left as published.

    Attributes
    ----------
    d_ : float
        Band width used.
    bounds_ : tuple of float
        Domain ``(a, b)`` of the values used.
    placement_ : str
        Band placement of the mechanism whose law was inverted.
    edges_ : ndarray of shape (n_points + 1,)
        Cell edges of the values; the grid points are ``edges_[:-1]``.
    report_edges_ : ndarray of shape (n_points + 1,)
        Edges of the ``n_points`` cells of the report range at which the
        reports are counted (``"ml"``) or their KDE is read (``"paper"``):
        ``[a - d, b + d]`` with the boundary-safe placement, ``edges_``
        with the paper's.
    density_ : ndarray of shape (n_points,)
        Reconstructed density at the grid points (``V`` of the paper).
    perturbed_density_ : ndarray of shape (n_points,)
        Density of the reports on the report cells: their histogram
        (``"ml"``) or their KDE at the left edges (``G``, ``"paper"``).
    bandwidth_ : float
        KDE bandwidth used.
    l2_ : float
        L2 weight used.
    n_iter_ : int
        Solver iterations (``"ml"``: evaluations of the EMS update in the
        final fit, SQUAREM-accelerated).
    smoothing_width_ : float
        ``"ml"`` only: the chosen smoothing width, in cells.
    smoothing_scores_ : ndarray of shape (9,)
        ``"ml"`` only: mean held-out log-likelihood per report of each candidate
        width; the widths are fitted from the widest down and the path stops
        once two in a row score below the best, so the narrower ones left
        out score ``-inf``.
    objective_ : float
        Objective value at the solution.
    privatizer_ : RVNSPerturber or None
        Fitted clone of ``privatizer``.
    released_ : ndarray of shape (n_samples, k) or None
        The release of ``privatizer`` (the negative-survey reports), kept so
        that ``conf_int`` is computed from the release alone and refuses
        data (which would be the raw values given to ``fit``); the chunks
        of ``partial_fit`` are appended.  None without ``privatizer`` (the
        data given to ``fit`` are then the release) and after a fit on a
        dask collection.
    n_features_in_ : int
        Number of columns of the data passed to ``fit``.
    bin_counts_ : ndarray of shape (n_bins,)
        Reports linearly binned on the KDE grid, which is fixed by the bounds
        and the bandwidth; the only report-level state, summed over the
        chunks of :meth:`partial_fit`.
    n_reports_seen_ : int
        Number of reports (``k`` per respondent).
    n_samples_seen_ : int
        Number of rows (respondents, or raw values with ``privatizer``).

    See Also
    --------
    RVNSPerturber : the mechanism.
    rvns_transition_matrix : the discretized kernel ``P``.

    Notes
    -----
    With the boundary-safe placement a report is uniform on
    ``[a - d, b + d]`` less a tent of area ``d`` centred at ``x``, so
    ``E[Y | x] = ((b + d)**2 - (a - d)**2) / (2 (b - a + d)) - d x / (b - a + d)``
    (affine with a negative slope: a report says where the value is not,
    so its mean is not ``x``) and
    ``E[Y**2 | x] = (((b + d)**3 - (a - d)**3) / 3 - d x**2 - d**3 / 6) / (b - a + d)``;
    the reports' mean and mean square thus estimate the clean mean and mean
    square without bias.  With the paper's placement the band start is
    ``x - d1``, ``d1 ~ U[L, R]``, and the moments are affine only on
    ``[a + d, b - d]``.  With ``moment_correction=True`` the ``"ml"`` cell
    probabilities are replaced by their I-projection (Csiszár, 1975) onto
    those whose expected report mean and mean square (through the exact
    law, per cell) equal the reports' (counted in the report cells, read at
    their midpoints with Sheppard's correction): for the boundary-safe
    placement, the densities with the unbiased clean mean and variance.
    Targets out of reach warn
    (:class:`~skprivate.exceptions.NotIdentifiableWarning`) and are moved
    into reach.

    References
    ----------
    H. Jiang et al., "A Privacy-Preserving Data Collection Method for
    Diversified Statistical Analysis", Algorithm 2, Eqs. (5)-(11).

    I. Csiszár, "I-divergence geometry of probability distributions and
    minimization problems", Annals of Probability 3, 1975.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber
    >>> x = np.random.default_rng(0).beta(2, 5, size=(20000, 1)) * 10
    >>> est = RVNSDensityEstimator(
    ...     privatizer=RVNSPerturber(d=2.0, k=2, bounds=(0, 10), random_state=1)
    ... ).fit(x)
    >>> bool(abs(est.mean() - x.mean()) < 0.3)
    True
    >>> est.density_.shape
    (100,)
    """

    _parameter_constraints: ClassVar[dict[str, Any]] = {
        "method": [Options({"ml", "paper"})],
        "d": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "bounds": ["array-like", None],
        "n_points": [Interval(numbers.Integral, 2, None, closed="left")],
        "bandwidth": [
            Interval(numbers.Real, 0, None, closed="neither"),
            Options({"ksdensity"}),
        ],
        "boundary": [Options({"none", "reflect"})],
        "l1": [Interval(numbers.Real, 0, None, closed="left")],
        "l2": [Interval(numbers.Real, 0, None, closed="left"), Options({"auto"})],
        "solver": [Options(set(_SOLVERS))],
        "max_iter": [Interval(numbers.Integral, 1, None, closed="left")],
        "tol": [Interval(numbers.Real, 0, None, closed="neither"), None],
        "privatizer": [HasMethods(["fit", "transform"]), None],
        "placement": [Options(set(PLACEMENTS))],
        "moment_correction": ["boolean"],
    }

    def __init__(
        self,
        method: str = "ml",
        d: float | None = None,
        bounds: tuple[float, float] | None = None,
        n_points: int = 100,
        bandwidth: float | str = "ksdensity",
        boundary: str = "none",
        l1: float = 0.0,
        l2: float | str = "auto",
        solver: str = "lbfgs",
        max_iter: int = 2000,
        tol: float | None = None,
        privatizer: Any = None,
        placement: str = "boundary_safe",
        moment_correction: bool = True,
    ) -> None:
        self.method = method
        self.d = d
        self.bounds = bounds
        self.n_points = n_points
        self.bandwidth = bandwidth
        self.boundary = boundary
        self.l1 = l1
        self.l2 = l2
        self.solver = solver
        self.max_iter = max_iter
        self.tol = tol
        self.privatizer = privatizer
        self.placement = placement
        self.moment_correction = moment_correction

    def _mechanism(self, Y: NDArray | None) -> tuple[float, float, float, str]:
        """``(d, a, b, placement)`` of the mechanism: values in ``[a, b]``.

        ``Y`` (the smallest and largest report) is read only without
        ``bounds`` and ``privatizer``.
        """
        priv = self.privatizer_
        if priv is not None:
            if not (hasattr(priv, "d_") and hasattr(priv, "bounds_")):
                raise TypeError(
                    "privatizer must be an RVNSPerturber (with fitted d_ and "
                    f"bounds_); got {type(priv).__name__}."
                )
            if priv.n_features_in_ != 1:
                raise ValueError(
                    "privatizer was fitted on "
                    f"{priv.n_features_in_} columns; RVNSDensityEstimator "
                    "reconstructs one variable, so pass a single column."
                )
            placement = check_placement(getattr(priv, "placement", "paper"))
            d, a, b = _check_kernel_args(
                priv.d_[0], priv.bounds_[0][0], priv.bounds_[1][0]
            )
            return d, a, b, placement
        if self.d is None:
            raise ValueError(
                "d must be given (the band width of the mechanism that produced "
                "the reports), or pass privatizer=RVNSPerturber(...)."
            )
        d, placement = float(self.d), self.placement
        if self.bounds is None:
            a, b = float(Y.min()), float(Y.max())
            if placement == "boundary_safe":  # the reports reach d beyond
                a, b = a + d, b - d
        else:
            if len(self.bounds) != 2:
                raise ValueError(f"bounds must be a pair (a, b); got {self.bounds!r}.")
            a, b = float(self.bounds[0]), float(self.bounds[1])
        d, a, b = _check_kernel_args(d, a, b)
        return d, a, b, placement

    def fit(self, X: ArrayLike, y: Any = None) -> RVNSDensityEstimator:
        """Reconstruct the density.

        Discards any state left by :meth:`partial_fit`.

        Parameters
        ----------
        X : array-like of shape (n_samples, k)
            RVNS reports, ``k`` per respondent (all pooled, since each has
            the same marginal law); with ``privatizer`` set, raw values of
            shape (n_samples, 1) instead.
        y : Ignored
            Present for scikit-learn API compatibility.

        Returns
        -------
        self : RVNSDensityEstimator
        """
        return self._fit_statistic(X)

    def partial_fit(self, X: ArrayLike, y: Any = None) -> RVNSDensityEstimator:
        """Add a chunk of reports and reconstruct from all the reports so far.

        The reports are linearly binned on a grid fixed by the bounds and the
        bandwidth; the counts of all chunks are added and the reconstruction
        is solved again on them, so the result equals :meth:`fit` on all the
        chunks at once with the same settings (up to rounding).  Only the
        counts are kept: memory does not grow with the number of reports
        (except for ``released_``: with a ``privatizer`` the reports it
        released are kept, for ``conf_int``).

        Streaming needs, with ``method="paper"``, a float ``bandwidth`` (the
        ``"ksdensity"`` rule needs all the reports); with ``method="ml"`` the
        reports are counted in the ``n_points`` cells (per fold of
        respondents, assigned round robin by row number); both need
        ``bounds`` (or a ``privatizer`` with ``bounds``) and ``d`` (or a
        ``privatizer``); they cannot change between calls.  A
        ``privatizer`` is fitted on the first chunk; its random stream
        continues over the chunks, so every chunk gets fresh reports.

        Parameters
        ----------
        X : array-like of shape (n_samples, k)
            RVNS reports, ``k`` per respondent; with ``privatizer`` set, raw
            values of shape (n_samples, 1) instead.
        y : Ignored
            Present for scikit-learn API compatibility.

        Returns
        -------
        self : RVNSDensityEstimator

        Examples
        --------
        >>> import numpy as np
        >>> from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber
        >>> rng = np.random.default_rng(0)
        >>> est = RVNSDensityEstimator(
        ...     privatizer=RVNSPerturber(d=2.0, k=2, bounds=(0, 10), random_state=1),
        ... )
        >>> for _ in range(4):  # e.g. pandas.read_csv(..., chunksize=5000)
        ...     est = est.partial_fit(rng.beta(2, 5, size=(5000, 1)) * 10)
        >>> est.n_samples_seen_, est.n_reports_seen_, est.bin_counts_.shape
        (20000, 40000, (100,))
        >>> round(est.mean(), 1)  # 10 * 2 / 7 = 2.86
        2.9
        """
        return self._partial_fit_statistic(X)

    # -- the statistic: reports counted on a fixed grid (fit, partial_fit, dask) --
    def _check_streaming(self, first: bool) -> None:
        if not first:
            check_unchanged_settings(self._stream, self._settings())
            return
        if hasattr(self, "density_"):
            raise ValueError(
                "partial_fit cannot add to a reconstruction that fit made "
                "with a bandwidth or bounds read from the data; call fit "
                "again, or stream from a fresh estimator."
            )
        if not self._streamable():
            raise ValueError(self._not_streamable_reason())

    def _statistic_input(self, X, reset):
        if reset:
            self.__dict__.pop("_stream", None)
        return self._privatize_numeric(X, reset)

    def _statistic_plan(self, data, stream):
        ml = self.method == "ml"
        if not ml and self.bandwidth == "ksdensity" and is_dask_collection(data):
            raise ValueError(
                f"{type(self).__name__} on a dask collection needs a float "
                "bandwidth with method='paper': the 'ksdensity' rule reads the "
                "spread of all the reports at once. Choose it on a sample that "
                "fits in memory."
            )
        if self.privatizer_ is None and self.bounds is None:
            sample = np.array([value_range(data)]).T  # one pass of dask
        else:
            sample = None
        d, a, b, placement = self._mechanism(sample)
        lo, hi = report_range(d, a, b, placement)
        if ml:
            grid = _CellReports((lo, hi), self.n_points)
        else:
            if self.bandwidth == "ksdensity":
                Y = check_float_array(data, name="X", allow_nan=True)
                check_finite(Y, name="X")
                h = ksdensity_bandwidth(Y.ravel())
            else:
                h = float(self.bandwidth)
            grid = BinnedReports((lo, hi), h, self.boundary == "reflect")
        return _ReportCounts(
            grid,
            d,
            ml,
            streamable=self._streamable(),
            placement=placement,
            value_bounds=(a, b),
        )

    def _statistic_fit(self, statistic, total, added):
        counts, n_reports, n_rows, low, high = total
        self._check_reports(np.array([low, high]), *statistic.grid.bounds)
        self._update(
            statistic.d,
            statistic.grid,
            counts,
            n_reports,
            n_rows,
            statistic.placement,
            statistic.value_bounds,
        )
        if statistic.streamable:
            # The grid depends on no report, so partial_fit may add chunks;
            # the privatizer's stream continues into them.
            self._stream = self._settings()

    def _streamable(self) -> bool:
        return (self.method == "ml" or self.bandwidth != "ksdensity") and (
            self.bounds is not None
            or (
                self.privatizer is not None
                and getattr(self.privatizer, "bounds", None) is not None
            )
        )

    def _not_streamable_reason(self) -> str:
        if self.method == "paper" and self.bandwidth == "ksdensity":
            return (
                "partial_fit needs a float bandwidth: the 'ksdensity' rule "
                "reads the spread of all the reports at once."
            )
        return (
            "partial_fit needs bounds (a, b) fixed in advance (or a privatizer "
            "with bounds): the grid of binned counts cannot follow the range "
            "of the first chunk."
        )

    def _settings(self) -> dict[str, str]:
        return {k: repr(v) for k, v in self.get_params(deep=False).items()}

    @staticmethod
    def _check_reports(Y: NDArray, a: float, b: float) -> None:
        """Refuse reports outside the report range ``[a, b]`` of the mechanism."""
        tol_edge = 1e-9 * (b - a)
        if Y.min() < a - tol_edge or Y.max() > b + tol_edge:
            raise ValueError(
                f"X has reports outside the bounds [{a:g}, {b:g}] of the "
                f"mechanism's reports (range {Y.min():g} to {Y.max():g}); RVNS "
                "reports always lie within them (the bounds of the values, "
                "widened by d with the boundary-safe placement)."
            )

    def _update(
        self,
        d: float,
        binned: BinnedReports,
        counts: NDArray,
        n_reports: int,
        n_rows: int,
        placement: str = "paper",
        value_bounds: tuple[float, float] | None = None,
    ) -> None:
        """Solve the reconstruction on binned report counts; set the attributes.

        ``binned`` covers the report range; the values lie in
        ``value_bounds`` (the same range with the paper's placement).
        """
        a, b = binned.bounds if value_bounds is None else value_bounds
        self.placement_ = placement
        if self.method == "ml":
            self._update_ml(d, binned, counts, n_reports, n_rows, (a, b))
            return
        edges = rvns_grid((a, b), self.n_points)
        report_edges = rvns_grid(binned.bounds, self.n_points)
        widths = np.diff(edges)
        # the KDE of the reports at the output points of P
        G = binned.density(counts, n_reports, report_edges[:-1])
        if not G.sum() > 0:
            raise ValueError(
                "the KDE of the reports vanishes on the grid; check bounds and "
                "bandwidth."
            )
        P = rvns_transition_matrix(edges, d, (a, b), placement)
        l2 = 1e-3 * (b - a) ** 2 / self.n_points if self.l2 == "auto" else self.l2
        tol = self.tol
        if tol is None:
            tol = 1e-5 if self.solver == "em" else 1e-10
        options = {"max_iter": self.max_iter, "tol": tol}
        if self.solver == "slsqp":
            options["upper"] = 1.0 / widths.min()
        # The solvers do many small matrix-vector products, for which BLAS
        # threads cost far more than they save (tenfold on a loaded machine).
        with threadpool_limits(limits=1, user_api="blas"):
            v, n_iter, value = _SOLVERS[self.solver](
                P, G, widths, float(self.l1), float(l2), **options
            )
        self.d_ = d
        self.bounds_ = (a, b)
        self.edges_ = edges
        self.report_edges_ = report_edges
        self.density_ = v
        self.perturbed_density_ = G
        self.bandwidth_ = binned.bandwidth
        self.l2_ = float(l2)
        self.n_iter_ = n_iter
        self.objective_ = value
        self._binned = binned
        self.bin_counts_ = counts
        self.n_reports_seen_ = int(n_reports)
        self.n_samples_seen_ = int(n_rows)

    def _update_ml(
        self,
        d: float,
        cells: _CellReports,
        counts: NDArray,
        n_reports: int,
        n_rows: int,
        value_bounds: tuple[float, float],
    ) -> None:
        if n_rows < ML_FOLDS:
            raise ValueError(
                f"X has {n_rows} sample(s); method='ml' chooses its smoothing by "
                f"held-out likelihood over {ML_FOLDS} folds of respondents and "
                f"needs at least {ML_FOLDS} rows."
            )
        a, b = value_bounds
        edges = rvns_grid((a, b), self.n_points)
        widths = np.diff(edges)
        A = self._cell_operator(d, edges, cells.edges, self.placement_)
        total = counts.sum(axis=0)
        diagnostics: dict = {}
        with threadpool_limits(limits=1, user_api="blas"):
            width, scores, start = select_ems_width(
                A,
                counts,
                np.array(ML_WIDTHS),
                max_iter=ML_MAX_ITER,
                tol=ML_SELECTION_TOL,
                return_start=True,
                patience=_WIDTH_PATIENCE,
                batch=True,
                diagnostics=diagnostics,
            )
            w, n_iter = ems_cell_probabilities(
                A, total, width, max_iter=ML_MAX_ITER, tol=ML_TOL, start=start
            )
        if self.moment_correction:
            # the reports' mean and mean square, read at the cell midpoints
            # (w**2 / 12: Sheppard's correction), against their expectations
            report_width = float(cells.edges[1] - cells.edges[0])
            mids = 0.5 * (cells.edges[:-1] + cells.edges[1:])
            n, mean, square = binned_moments(mids, total, report_width**2 / 12)
            third, fourth = (
                float(np.dot(total, mids**k) / np.sum(total)) for k in (3, 4)
            )
            w, _ = tilt_to_moments(
                w,
                rvns_features(edges, d, self.placement_),
                [mean, square],
                cov=moment_covariance(n, mean, square, third, fourth),
                name=type(self).__name__,
            )
        self.d_ = d
        self.bounds_ = (a, b)
        self.edges_ = edges
        self.report_edges_ = cells.edges
        self.density_ = w / widths
        self.perturbed_density_ = total / (total.sum() * np.diff(cells.edges))
        self.bandwidth_ = None
        self.l2_ = None
        self.smoothing_width_ = width
        self.smoothing_scores_ = scores
        self._width_choice = width_choice(np.array(ML_WIDTHS), width, diagnostics)
        self.n_iter_ = n_iter
        fitted = np.maximum(A @ w, 1e-300)
        self.objective_ = float(-np.dot(total, np.log(fitted)) / total.sum())
        self._binned = cells
        self._counts = counts
        self.bin_counts_ = total
        self.n_reports_seen_ = int(n_reports)
        self.n_samples_seen_ = int(n_rows)

    @staticmethod
    def _cell_operator(d: float, edges: NDArray, report_edges: NDArray, placement: str):
        """:meth:`_cell_matrix` as an operator with fast products.

        Boundary-safe: :class:`SafeCellOperator`, products in O(m) from prefix
        sums, when the band spans more than ``_DENSE_BAND_CELLS`` report
        cells; on narrower bands the sparse band below is cheaper (fewer
        operations per product).  Paper placement: a uniform row profile
        plus a sparse band (a report lands in cell ``j`` with probability
        ``width_j / (b - a - d)``, up to the column's normalization, unless
        the band of the value may cover it), so the products cost
        O(m**2 * d / (b - a)).
        """
        a, b = float(edges[0]), float(edges[-1])
        report_step = (report_edges[-1] - report_edges[0]) / (report_edges.size - 1)
        if placement != "paper" and 2 * d / report_step > _DENSE_BAND_CELLS:
            return SafeCellOperator(edges, report_edges, d, a, b)
        # the report cells within d of the value cell: outside them the
        # probability is the profile exactly (computed, it differs by rounding)
        gap = np.maximum(
            report_edges[:-1, None] - edges[None, 1:],
            edges[None, :-1] - report_edges[1:, None],
        )
        band = gap < d * (1 + 1e-9)
        if placement != "paper":
            A = safe_cell_probabilities(edges, report_edges, d, a, b)
            profile = np.diff(report_edges) / (b - a + d)
            return transition_operator(A, profile, band=band)
        raw = cell_transition_matrix(edges, d, (a, b), normalize=False)
        col = raw.sum(axis=0)
        profile = np.diff(edges) / (b - a - d)
        scale = 1.0 / np.where(col > 0, col, 1.0)
        return transition_operator(raw, profile, scale, band)

    @staticmethod
    def _cell_matrix(
        d: float, edges: NDArray, report_edges: NDArray, placement: str
    ) -> NDArray[np.float64]:
        """P(report in report cell ``j`` | value uniform in value cell ``i``)."""
        a, b = float(edges[0]), float(edges[-1])
        if placement == "paper":
            return cell_transition_matrix(edges, d, (a, b))
        return safe_cell_probabilities(edges, report_edges, d, a, b)

    # -- confidence intervals: the report cells of the placement ---------------
    def _ci_ems_system(self, X: NDArray):
        if not self._ci_uses_ems():
            return None
        report_edges = self.report_edges_
        lo, hi = float(report_edges[0]), float(report_edges[-1])
        m_out = report_edges.size - 1
        bins = np.clip(((X - lo) / (hi - lo) * m_out).astype(np.intp), 0, m_out - 1)
        A = self._cell_matrix(self.d_, self.edges_, report_edges, self.placement_)
        m = self.edges_.size - 1
        return A, bins, smoothing_matrix(m, self.smoothing_width_)

    def _ci_resampling_template(self) -> Any:
        return clone(self).set_params(
            privatizer=None,
            d=float(self.d_),
            bounds=tuple(self.bounds_),
            placement=self.placement_,
        )

    @property
    def grid_(self) -> NDArray[np.float64]:
        """Grid points ``z_1 .. z_m`` (left cell edges)."""
        check_is_fitted(self)
        return self.edges_[:-1]
