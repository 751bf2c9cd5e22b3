"""PerturbedKDEEstimator: the density behind noise-added releases.

The RVNS paper's estimator for its noise-addition baselines (Laplace,
generalized Gaussian, Flipped Huber): a KDE of the released values, or,
when the noise law is known, maximum likelihood through the exact
cell-to-bin probabilities of the noise.
"""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator

from .._grid_density._estimate import GridDensityMixin, grid_edges
from .._grid_density._kde import ksdensity_bandwidth
from .._grid_density._moments import (
    additive_features,
    moment_covariance,
    noise_variance,
    tilt_to_moments,
)
from .._grid_density._width_choice import WidthChoiceCheckMixin
from ..base import ParamsValidationMixin, PrivatizedInputMixin
from ..utils import HasMethods, Interval, Options
from ..utils._dask import is_dask_collection
from ..utils.validation import check_finite, check_magnitude
from ._intervals import PerturbedKDEIntervalsMixin
from ._pooled_reports import (
    _bounds_of,
    _KDEGrid,
    _moment_targets,
    _PooledReports,
    _PooledStatisticMixin,
    _smoothed_ml,
)
from ._transitions import _noise_law, additive_transition

__all__ = ["PerturbedKDEEstimator"]

# Share of the kernel mass in the bounds below which the estimate is empty.
_EMPTY_MASS = 1e-9


class PerturbedKDEEstimator(
    WidthChoiceCheckMixin,
    PerturbedKDEIntervalsMixin,
    _PooledStatisticMixin,
    GridDensityMixin,
    PrivatizedInputMixin,
    ParamsValidationMixin,
    BaseEstimator,
):
    """Density behind noise-added releases, on ``n_points`` cells of ``[a, b]``.

    The RVNS paper estimates the distribution behind the noise-addition
    baselines (Laplace, generalized Gaussian, Flipped Huber) by a Gaussian
    KDE of the released values evaluated on the ``m``-point grid of
    ``[a, b]``, without deconvolution (``method="paper"``).  That estimate
    is the density of the *noisy* values, flattened by the noise and cut at
    the bounds.  When the noise law is known (from ``privatizer``), the
    default reconstructs the clean density instead: maximum likelihood of
    the releases counted in bins, through the exact cell-to-bin
    probabilities of the noise, by EM with a smoothing step (EMS) whose
    width is chosen by held-out likelihood, as ``RVNSDensityEstimator``
    does for its reports.

    Both methods, with bounds fixed in advance and (for ``"paper"``) a
    float ``bandwidth``, depend on the releases only through their counts
    on a fixed grid and their power sums: :meth:`partial_fit` adds chunks
    to them, and :meth:`fit` takes a dask array or DataFrame, counting each
    row partition on the workers; both give the estimate of one in-memory
    fit.

    Parameters
    ----------
    bounds : tuple (a, b) or None, default=None
        Domain; taken from ``privatizer`` when given, required otherwise.
    n_points : int, default=100
        Number of grid cells.
    bandwidth : float or {"ksdensity"}, default="ksdensity"
        KDE bandwidth of ``method="paper"``; ``"ksdensity"`` is MATLAB's
        normal-reference rule, the tool the paper used.
    privatizer : estimator or None, default=None
        A fitted-on-the-fly privatizer (e.g. ``LaplaceLDP``,
        :class:`GeneralizedGaussianLDP`); ``fit`` then takes raw values.
    method : {"auto", "ml", "paper"}, default="auto"
        ``"ml"``: the releases (within ``[a - t, b + t]``, ``t`` where the
        noise tail has probability ``exp(-20)``) are counted in bins of the
        cell width, and the cell probabilities maximize their likelihood by
        EM with a Gaussian smoothing step whose width is chosen from nine
        widths, 0.5 to 8 cells in steps of about ``sqrt(2)``, by the
        held-out log-likelihood over 5 folds of respondents; it needs the
        noise law, so a ``privatizer``
        (``LaplaceLDP``, :class:`GeneralizedGaussianLDP` or
        :class:`FlippedHuberLDP`).  ``"paper"``: the KDE of the releases
        on the grid, as in the paper.  ``"auto"`` is ``"ml"`` when the
        noise law is known and ``"paper"`` otherwise.
    moment_correction : bool, default=True
        With ``"ml"``, tilt the estimate to the mean and variance that the
        releases estimate without bias (see Notes); ``False`` keeps the EMS
        estimate.  ``"paper"`` is left as published.

    Attributes
    ----------
    bounds_ : tuple of float
        Domain used.
    edges_ : ndarray of shape (n_points + 1,)
        Cell edges.
    density_ : ndarray of shape (n_points,)
        Density at the grid points, normalized over ``[a, b]``.
    method_ : {"ml", "paper"}
        Method used.
    bandwidth_ : float or None
        KDE bandwidth used (None for ``"ml"``).
    smoothing_width_ : float or None
        Smoothing width of ``"ml"``, in cells (None for ``"paper"``).
    smoothing_scores_ : ndarray or None
        Held-out log-likelihood per report of each candidate width.
    n_iter_ : int or None
        EM iterations of the final ``"ml"`` fit.
    privatizer_ : estimator or None
        Fitted clone of ``privatizer``.
    released_ : ndarray of shape (n_samples, n_values) or None
        The release of ``privatizer`` (the released values), kept so
        that ``conf_int`` is computed from the release alone and refuses
        data (which would be the raw values given to ``fit``); the chunks
        of ``partial_fit`` are appended.  None without ``privatizer`` (the
        data given to ``fit`` are then the release) and after a fit on a
        dask collection.
    n_samples_seen_ : int
        Number of rows (respondents) the estimate is made of.
    n_features_in_ : int
        Number of columns seen in ``fit`` (one).

    See Also
    --------
    GeneralizedGaussianLDP, FlippedHuberLDP, RVNSDensityEstimator
    skprivate.DeconvolutionKernelDensity : Kernel deconvolution of Laplace noise.

    Notes
    -----
    For additive noise of variance ``s2``, ``E[Z | x] = x`` and
    ``E[Z**2 | x] = x**2 + s2``, so ``mean(Z)`` and ``mean(Z**2) - s2``
    estimate the clean mean and mean square without bias (``s2 = 2 b**2``
    for Laplace noise, ``s**2 Gamma(3/p) / Gamma(1/p)`` for the generalized
    Gaussian; by quadrature of the law otherwise).  With
    ``moment_correction=True`` the ``"ml"`` cell probabilities are replaced
    by their I-projection (Csiszár, 1975) onto those with these two
    moments, the tilt ``theta_i exp(l1 x_i + l2 x_i**2)``; targets out of
    reach on ``[a, b]`` are handled as in
    :class:`~skprivate.DeconvolutionKernelDensity`, with a
    :class:`~skprivate.exceptions.NotIdentifiableWarning`.

    References
    ----------
    H. Jiang et al., "A Privacy-Preserving Data Collection Method for
    Diversified Statistical Analysis", Section V (comparison methods).

    I. Csiszár, "I-divergence geometry of probability distributions and
    minimization problems", Annals of Probability 3, 1975.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.ldp import (
    ...     GeneralizedGaussianLDP,
    ...     PerturbedKDEEstimator,
    ... )
    >>> x = np.random.default_rng(0).uniform(2, 8, size=(5000, 1))
    >>> est = PerturbedKDEEstimator(
    ...     privatizer=GeneralizedGaussianLDP(
    ...         epsilon=5, delta=1e-3, bounds=(0, 10), random_state=1
    ...     )
    ... ).fit(x)
    >>> est.density_.shape
    (100,)
    """

    _parameter_constraints: ClassVar[dict[str, Any]] = {
        "bounds": ["array-like", None],
        "n_points": [Interval(numbers.Integral, 2, None, closed="left")],
        "bandwidth": [
            Interval(numbers.Real, 0, None, closed="neither"),
            Options({"ksdensity"}),
        ],
        "privatizer": [HasMethods(["fit", "transform"]), None],
        "method": [Options({"auto", "ml", "paper"})],
        "moment_correction": ["boolean"],
    }

    def __init__(
        self,
        bounds: tuple[float, float] | None = None,
        n_points: int = 100,
        bandwidth: float | str = "ksdensity",
        privatizer: Any = None,
        method: str = "auto",
        moment_correction: bool = True,
    ) -> None:
        self.bounds = bounds
        self.n_points = n_points
        self.bandwidth = bandwidth
        self.privatizer = privatizer
        self.method = method
        self.moment_correction = moment_correction

    def fit(self, X: ArrayLike, y: Any = None) -> PerturbedKDEEstimator:
        """Estimate the density from released values.

        Discards any state left by :meth:`partial_fit`.  ``X`` may be a dask
        array or DataFrame (see :meth:`partial_fit` for the settings that
        allow it): the counts of each row partition are computed on the
        workers and added.

        Parameters
        ----------
        X : array-like or dask collection of shape (n_samples, n_values)
            Released values (raw values when ``privatizer`` is set); every
            entry is a value of the one variable, so columns are pooled.
        y : Ignored
            Present for scikit-learn API compatibility.

        Returns
        -------
        self : PerturbedKDEEstimator
        """
        return self._fit_statistic(X)

    def partial_fit(self, X: ArrayLike, y: Any = None) -> PerturbedKDEEstimator:
        """Add a chunk of releases and estimate from all the releases so far.

        The releases are counted on a grid fixed by the bounds (per fold of
        respondents for ``"ml"``, folds assigned round robin by row number;
        linearly binned on the KDE grid for ``"paper"``), with their first
        four power sums; the counts of all chunks are added and the
        estimate is computed again from them, so the result equals
        :meth:`fit` on all the chunks at once with the same settings (up to
        rounding).  Memory does not grow with the number of releases, except
        for ``released_``: with a ``privatizer`` the values it released are
        kept, for ``conf_int``.

        Streaming needs bounds fixed in advance (``bounds``, or a
        ``privatizer`` with ``bounds``) and, for ``"paper"``, a float
        ``bandwidth`` (the ``"ksdensity"`` rule reads the spread of all the
        releases at once); the settings cannot change between calls.  A
        ``privatizer`` is fitted on the first chunk; its random stream
        continues over the chunks, so every chunk gets fresh noise.  The
        same settings let :meth:`fit` take a dask collection.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_values)
            Released values (raw values when ``privatizer`` is set).
        y : Ignored
            Present for scikit-learn API compatibility.

        Returns
        -------
        self : PerturbedKDEEstimator

        Examples
        --------
        >>> import numpy as np
        >>> from skprivate.ldp import LaplaceLDP, PerturbedKDEEstimator
        >>> rng = np.random.default_rng(0)
        >>> est = PerturbedKDEEstimator(
        ...     privatizer=LaplaceLDP(epsilon=4.0, bounds=(0, 10), random_state=1)
        ... )
        >>> for _ in range(4):  # e.g. pandas.read_csv(..., chunksize=5000)
        ...     est = est.partial_fit(rng.uniform(2, 8, size=(5000, 1)))
        >>> est.n_samples_seen_, est.method_
        (20000, 'ml')
        >>> bool(abs(est.mean() - 5.0) < 0.2)
        True
        """
        return self._partial_fit_statistic(X)

    # -- the statistic: releases counted on a fixed grid (fit, partial_fit, dask)
    def _not_streamable_reason(self) -> str | None:
        if self.bandwidth == "ksdensity" and (
            self.method == "paper"
            or (self.method == "auto" and self.privatizer is None)
        ):
            return (
                "partial_fit needs a float bandwidth with method='paper': the "
                "'ksdensity' rule reads the spread of all the releases at once."
            )
        return super()._not_streamable_reason()

    def _statistic_plan(self, data, stream):
        a, b = _bounds_of(self, self.privatizer_)
        edges = grid_edges((a, b), self.n_points)
        law = _noise_law(self, self.privatizer_)
        method = self.method
        if method == "auto":
            method = "paper" if law is None else "ml"
        if method == "ml" and law is None:
            raise ValueError(
                "method='ml' needs the noise law of the releases: pass "
                "privatizer=LaplaceLDP(...), GeneralizedGaussianLDP(...) or "
                "FlippedHuberLDP(...), or use method='paper'."
            )
        streamable = self._bounds_fixed()
        if method == "ml":
            M, out_edges = additive_transition(edges, law)
            return _PooledReports(
                "folds",
                edges=out_edges,
                moments=self.moment_correction,
                streamable=streamable,
                system=M,
            )
        if self.bandwidth == "ksdensity":
            if stream or is_dask_collection(data):
                raise ValueError(
                    f"{type(self).__name__} needs a float bandwidth with "
                    "method='paper' on a dask collection or in partial_fit: the "
                    "'ksdensity' rule reads the spread of all the releases at "
                    "once. Choose it on a sample that fits in memory, e.g. "
                    "PerturbedKDEEstimator(...).fit(sample).bandwidth_."
                )
            released = np.asarray(data, dtype=np.float64)
            check_finite(released, name="X")
            check_magnitude(released, name="X")
            h = ksdensity_bandwidth(released.ravel())
            streamable = False
        else:
            h = float(self.bandwidth)
        return _PooledReports(
            "kde",
            kde=_KDEGrid(edges[:-1], h),
            moments=False,
            streamable=streamable,
        )

    def _statistic_fit(self, statistic, total, added):
        counts, n_rows, n_values, sums = total
        self._check_rows(n_rows, folds=statistic.kind == "folds")
        a, b = _bounds_of(self, self.privatizer_)
        edges = grid_edges((a, b), self.n_points)
        widths = np.diff(edges)
        bandwidth = width = scores = n_iter = choice = None
        if statistic.kind == "folds":
            theta, n_iter, width, scores, choice = _smoothed_ml(
                statistic.system, counts
            )
            if self.moment_correction:
                # E[release | x] = x and E[release**2 | x] = x**2 + Var(noise)
                targets, powers = _moment_targets(n_values, sums)
                theta, _ = tilt_to_moments(
                    theta,
                    additive_features(
                        edges, noise_variance(_noise_law(self, self.privatizer_))
                    ),
                    targets,
                    cov=moment_covariance(*powers),
                    name=type(self).__name__,
                )
            dens = theta / widths
            method = "ml"
        else:
            dens = statistic.kde.density(counts, n_values)
            bandwidth = statistic.kde.bandwidth
            method = "paper"
        mass = np.dot(dens, widths)
        # A kernel mass in the bounds at the level of floating-point round-off
        # (the FFT leaves ~1e-16 of the total) is not a density: refuse it
        # rather than normalize noise into one.
        if not mass > _EMPTY_MASS:
            smoothing = (
                ""
                if bandwidth is None
                else f", the bandwidth ({bandwidth:g} against a range of {b - a:g})"
            )
            raise ValueError(
                f"no released value of X is near the bounds [{a:g}, {b:g}] (the "
                f"share of the reports' kernel mass there is {mass:.3g}, round-off "
                "level); the density estimate is empty there. Check the bounds"
                f"{smoothing} and the units of X."
            )
        self.bandwidth_ = bandwidth
        self.smoothing_width_ = width
        self.smoothing_scores_ = scores
        self._width_choice = choice
        self.n_iter_ = n_iter
        self.bounds_ = (a, b)
        self.edges_ = edges
        self.density_ = dens / mass
        self.method_ = method
        self._keep_stream(statistic, n_rows)
