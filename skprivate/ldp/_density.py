"""Deconvolution kernel density estimation from Laplace-privatized data."""

from __future__ import annotations

import numbers
import warnings
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import logsumexp
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from .._grid_density._moments import (
    additive_features,
    binned_moments,
    moment_covariance,
    tilt_to_moments,
)
from ..base import (
    ParamsValidationMixin,
    PrivatizedInputMixin,
    SufficientStatisticMixin,
)
from ..distributions import PiecewiseUniformDistribution, PopulationEstimateMixin
from ..utils import Interval, Options
from ..utils._dask import is_dask_collection
from ..utils._redact import raw_values_withheld
from ..utils._statistic import RowStatistic, reduce_rows, value_range
from ..utils._warnings import external_stacklevel
from ..utils.validation import (
    MAX_MAGNITUDE,
    check_finite,
    check_float_array,
    check_magnitude,
    check_numeric_input,
    check_unchanged_settings,
)
from ._bandwidth import select_cv_bandwidth
from ._binned_1d import BinnedSums, grid_geometry, linear_bin
from ._binned_nd import nd_binned_grid
from ._common import (
    ALGORITHM_CONSTRAINT,
    KERNEL_CONSTRAINT,
    NOISE_CONSTRAINT,
    PRIVATIZER_CONSTRAINT,
    check_candidates,
    default_candidates,
    resolve_noise_scale,
    use_binned,
)
from ._direct_sums import direct_sums
from ._intervals import DeconvolutionDensityIntervalsMixin
from ._rbc_check import BandwidthCheckMixin

__all__ = ["DeconvolutionKernelDensity"]

_DISTRIBUTION_CELLS = 4096
# Grid margin of the fixed-settings binned path, in Laplace scales: noise
# exceeds it with probability exp(-40).
_TAIL_SCALES = 40.0


class _BinnedCounts(RowStatistic):
    """Records linearly binned on a grid fixed before any block is read.

    The sufficient statistic of a one-feature estimate with a float
    bandwidth and binned sums: a block's value is ``(counts, n, outside)``,
    its binned counts, its number of records and how many fall outside the
    grid (refused once all blocks are counted); values add up.  The grid is
    the one :class:`BinnedSums` builds over ``span``; ``streamable`` when
    ``span`` comes from the settings, not from the records.
    """

    def __init__(
        self,
        span: tuple[float, float],
        bandwidth: float,
        ratio: float,
        support: tuple[float, float],
        streamable: bool,
    ) -> None:
        self.span, self.bandwidth, self.ratio = span, bandwidth, ratio
        self.support, self.streamable = support, streamable
        self.lo, self.hi, self.delta, self.size = grid_geometry(
            span[0], span[1], bandwidth, ratio
        )

    def block(self, rows, first_row):
        # a block of a dask collection is converted here: name, never quote
        z = check_float_array(rows, name="X", allow_nan=True, first_row=first_row)
        z = z.reshape(len(z), -1)[:, 0]
        inside = (z >= self.lo) & (z <= self.hi)
        if not inside.all():  # NaN, inf and huge values fall outside too
            check_finite(z, name="X", first_row=first_row)
            check_magnitude(z, name="X", first_row=first_row)
            z = z[inside]
        counts = linear_bin(z, None, self.lo, self.delta, self.size)[:, 0]
        return counts, len(inside), int(len(inside) - z.size)

    def merge(self, values):
        counts = values[0][0].copy()
        for value in values[1:]:
            counts += value[0]
        return counts, sum(v[1] for v in values), sum(v[2] for v in values)


class _ModerateValues(RowStatistic):
    """Refuses a value no grid can cover, naming its row in the whole data.

    Read only when the records' range already exceeds ``MAX_MAGNITUDE`` (a
    grid over it would have no finite step), so the fit fails with the
    message of the in-memory check instead of an overflow.
    """

    def block(self, rows, first_row):
        z = check_float_array(rows, name="X", allow_nan=True, first_row=first_row)
        z = z.reshape(len(z), -1)
        check_finite(z, name="X", first_row=first_row)
        check_magnitude(z, name="X", first_row=first_row)

    def merge(self, values):
        return None


class DeconvolutionKernelDensity(
    BandwidthCheckMixin,
    DeconvolutionDensityIntervalsMixin,
    SufficientStatisticMixin,
    PrivatizedInputMixin,
    PopulationEstimateMixin,
    ParamsValidationMixin,
    DensityMixin,
    BaseEstimator,
):
    """Density of the clean data estimated from Laplace-noised data.

    The deconvolution kernel density estimate (Farokhi, eq. 5) is
    ``f_hat(x) = (n h**q)**-1 sum_i K_hat((x - z_i) / h)`` where ``z_i`` are
    the noisy records and ``K_hat`` is the deconvolution kernel of
    :func:`deconvolution_kernel`.  Its expectation equals the expectation of
    the ordinary KDE of the clean data (eq. 6), so it undoes the flattening
    caused by the noise; it is not itself a density (it has negative lobes).

    Parameters
    ----------
    bandwidth : "cv", float or array-like, default="cv"
        ``h``.  ``"cv"`` minimizes the deconvolution cross-validation
        criterion of Stefanski & Carroll (1990) / Hesse (1999) (an unbiased
        estimate of the integrated squared error up to a constant) over a log
        grid of 30 values from 0.02 to 2 times the estimated clean standard
        deviation, keeping the local minimizer with the largest bandwidth
        (Hall & Marron, 1991) among the candidates whose variance term does
        not exceed a tenth of the roughness of the smoothest estimate (the
        criterion's sampling noise explodes at small bandwidths); an array
        gives the candidates instead.  With several
        features the 1-D criterion is applied to each and the geometric mean
        is used.  A float is used as is.
    kernel : {"gaussian", "cauchy"}, default="gaussian"
        Base kernel ``K``.  The paper's experiments use ``"cauchy"``.
    noise_scale : float, array-like or None, default=None
        Laplace scale ``b`` of the noise in the data given to ``fit`` (one per
        feature, or a scalar; ``0`` for clean data).  Must be None when
        ``privatizer`` is given.
    privatizer : LaplaceLDP or None, default=None
        If given, ``fit`` receives clean data, privatizes it with a clone of
        this privatizer (stored as ``privatizer_``) and reads the noise scale
        from its ``scale_``.
    algorithm : {"auto", "direct", "binned"}, default="auto"
        How kernel sums are computed: exactly (``"direct"``, ``O(n m)``), or
        by linear binning on a grid of about ``40 sqrt(1 + (b/h)**2)`` points
        per bandwidth, one FFT convolution and linear interpolation
        (``"binned"``; relative error about ``1e-5`` of the peak for one
        feature).  With 2-3 features the counts are binned multilinearly on a
        d-D grid of 8 steps per effective bandwidth ``h / sqrt(1 + (b/h)**2)``
        (at most ``2**22`` nodes), convolved with the product kernel one
        feature at a time and interpolated multilinearly: error about
        ``2e-3`` (Gaussian) and ``6e-3`` (Cauchy) of the peak.  ``"auto"``
        bins one feature above 2,000 points and 2-3 features above 5,000; a
        grid that cannot reach 2 steps per effective bandwidth within
        ``2**22`` nodes is refused by ``"binned"`` and replaced by exact sums
        (with a warning) by ``"auto"``.
    support : tuple (low, high) or None, default=None
        Interval carrying the clean data, used by the population-estimate
        methods (``pdf``, ``cdf``, ``quantile``, ``sample``, ``mean``...).
        ``None`` takes the privatizer's bounds when there is one and the range
        of the noisy data otherwise.  A support fixed in advance (with a
        float bandwidth) lets :meth:`partial_fit` stream the data.
    boundary : {"reflect", "clip"}, default="reflect"
        How the population-estimate methods turn the estimate into a density
        on ``support_`` (one feature).  The smoothing by ``K_h`` moves mass
        from near each end of the support to beyond it, so a density that
        does not vanish at an end is underestimated there.  ``"reflect"``
        folds that mass back: ``f_hat(x) + f_hat(2 low - x) +
        f_hat(2 high - x)`` on the support (the reflection estimator of
        Schuster, 1985, applied to the deconvolution estimate), then clips at
        zero and renormalizes.  ``"clip"`` only clips the estimate at zero
        on the support and renormalizes (the raw estimate of the paper
        restricted to the support).  ``raw_density`` and ``score_samples``
        are not affected.
    moment_correction : bool, default=True
        Tilt the density on the support towards the mean and variance that
        the noisy records estimate without bias, as far as needed to bring
        its moments within two standard errors of them (see Notes);
        ``False`` keeps the clipped (or reflected) estimate.

    Attributes
    ----------
    bandwidth_ : float
        Bandwidth used.
    noise_scale_ : ndarray of shape (n_features,)
        Laplace scale per feature used for deconvolution.
    bandwidth_candidates_ : ndarray or None
        Candidates searched by cross-validation (None for a fixed float).
    cv_scores_ : ndarray or None
        Criterion of each candidate (smaller is better; NaN where discarded
        as unreliable).
    support_ : tuple of float or None
        Support of the population estimate (one feature only).
    n_samples_seen_ : int
        Number of records the estimate is made of.
    bin_counts_ : ndarray of shape (n_grid,) or None
        Linearly binned counts of the records on the fixed grid, the only
        record-level state when the bandwidth and the support are fixed in
        advance (see :meth:`partial_fit`); None when the records are kept.
    privatizer_ : LaplaceLDP or None
        Fitted clone of ``privatizer``.
    released_ : ndarray of shape (n_samples, n_features) or None
        The release of ``privatizer`` (the noisy records the estimate is
        made of), kept so that ``conf_int`` is computed from the release
        alone and refuses data (which would be the raw values given to
        ``fit``); the chunks of ``partial_fit`` are appended.  None without
        ``privatizer`` (the data given to ``fit`` are then the release) and
        after a fit on a dask collection.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of features seen during ``fit`` (only for string column names).

    See Also
    --------
    LaplaceLDP : The mechanism whose noise is removed.
    DeconvolutionKernelRegressor : Regression on privatized inputs.
    PerturbedKDEEstimator : Maximum-likelihood distribution of privatized
        data with known bounds, through the exact noise law (more accurate
        than this estimate on most real columns measured by
        ``python -m benchmarks defaults``).
    sklearn.neighbors.KernelDensity : The ordinary (naive) estimate.

    Notes
    -----
    ``score_samples`` returns the log of the raw estimate of eq. (5) where
    it is positive and ``-inf`` elsewhere.  The population-estimate methods
    use the proper density obtained by reflecting the estimate at the ends
    of ``support_`` (see ``boundary``), clipping it at zero on the support
    and renormalizing; ``cdf``, ``quantile``, ``mean``,
    ``sample`` work on that density tabulated on 4,096 equal cells
    (piecewise constant).  They are available for one feature only.  The
    table is built by the first of these calls, not by ``fit`` (which then
    costs only what ``score_samples`` needs), so a bandwidth too narrow for
    the cells, or moments out of reach (see below), are reported there.

    With a float ``bandwidth`` and a ``support`` (or privatizer bounds) fixed
    in advance, one feature and binned sums, ``fit`` bins the records on a
    grid that does not depend on them and keeps only the counts; chunks
    given to :meth:`partial_fit` are binned on the same grid and their
    counts added, so streaming gives the same estimate as one ``fit``.

    Clipping the negative lobes and cutting the estimate at the support
    move its mean and variance away from what the records say.  The
    records estimate them without bias: mean ``mean(Z)`` and variance
    ``var(Z) - 2 b**2`` (``E[Z | x] = x``, ``Var[Z | x] = 2 b**2`` for
    Laplace noise of scale ``b``), with a sampling error of their own.
    With ``moment_correction=True`` an estimate whose mean and second
    moment lie within Mahalanobis distance 2 of those targets (in the
    targets' estimated covariance) is left as it is; one farther out is
    replaced by its I-projection (Csiszár, 1975) onto the densities on
    ``support_`` whose moments are the nearest point of that ellipse, on
    the segment from the targets to its own moments
    (:func:`~skprivate._grid_density._moments.tilt_to_moments`): the
    exponential tilt ``f(x) exp(l1 x + l2 x**2)``, whose two multipliers
    are found by Newton's method (in the support's units ``(x - low) /
    (high - low)``, so the estimate does not depend on the data's units or
    on their distance from zero).  When the variance estimate is out of
    reach (at or below zero for few records and much noise) it is moved
    just inside the attainable range, and when the mean is, nothing is
    changed; both cases warn (:class:`~skprivate.exceptions.NotIdentifiableWarning`).

    References
    ----------
    I. Csiszár, "I-divergence geometry of probability distributions and
    minimization problems", Annals of Probability 3, 1975.

    F. Farokhi, "Deconvoluting kernel density estimation and regression for
    locally differentially private data", Scientific Reports 10, 2020.

    L. A. Stefanski and R. J. Carroll, "Deconvoluting kernel density
    estimators", Statistics 21, 1990.

    E. F. Schuster, "Incorporating support constraints into nonparametric
    estimators of densities", Communications in Statistics - Theory and
    Methods 14, 1985.

    C. H. Hesse, "Data-driven deconvolution", Journal of Nonparametric
    Statistics 10, 1999.

    P. Hall and J. S. Marron, "Local minima in cross-validation functions",
    Journal of the Royal Statistical Society B 53, 1991.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import DeconvolutionKernelDensity, LaplaceLDP
    >>> x = np.random.default_rng(0).normal(size=(5000, 1))
    >>> kde = DeconvolutionKernelDensity(
    ...     privatizer=LaplaceLDP(epsilon=10, bounds=(-4, 4), random_state=0)
    ... ).fit(x)
    >>> kde.privatizer_.scale_
    array([0.8])
    >>> round(float(kde.pdf(0.0)), 2)  # N(0, 1) has 0.40
    0.45
    >>> round(kde.mean(), 1), abs(round(float(kde.quantile(0.5)), 1))
    (-0.0, 0.0)
    """

    _parameter_constraints: ClassVar[dict[str, Any]] = {
        "bandwidth": [
            Interval(numbers.Real, 0, None, closed="neither"),
            Options({"cv"}),
            "array-like",
        ],
        "kernel": KERNEL_CONSTRAINT,
        "noise_scale": NOISE_CONSTRAINT,
        "privatizer": PRIVATIZER_CONSTRAINT,
        "algorithm": ALGORITHM_CONSTRAINT,
        "support": [tuple, list, None],
        "boundary": [Options({"reflect", "clip"})],
        "moment_correction": ["boolean"],
    }

    def __init__(
        self,
        bandwidth: Any = "cv",
        kernel: str = "gaussian",
        noise_scale: Any = None,
        privatizer: Any = None,
        algorithm: str = "auto",
        support: Any = None,
        boundary: str = "reflect",
        moment_correction: bool = True,
    ) -> None:
        self.bandwidth = bandwidth
        self.kernel = kernel
        self.noise_scale = noise_scale
        self.privatizer = privatizer
        self.algorithm = algorithm
        self.support = support
        self.boundary = boundary
        self.moment_correction = moment_correction

    def fit(self, X: ArrayLike, y: Any = None) -> DeconvolutionKernelDensity:
        """Fit the estimate on noisy data (or on clean data with ``privatizer``).

        Discards any state left by :meth:`partial_fit`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Noisy records, or clean records when ``privatizer`` is set.
            With several features it needs more records than features:
            ``n`` records span an affine subspace of dimension at most
            ``n - 1``, and across the directions they leave out the data
            carry no information on the density.
        y : None
            Ignored.

        Returns
        -------
        self : DeconvolutionKernelDensity

        Raises
        ------
        ValueError
            With ``n_samples <= n_features`` for several features, and for
            non-finite records.
        """
        with raw_values_withheld():  # raw records when a privatizer is given
            return self._fit_statistic(X)

    def partial_fit(self, X: ArrayLike, y: Any = None) -> DeconvolutionKernelDensity:
        """Add a chunk of data; only binned counts on a fixed grid are kept.

        The records of each chunk are linearly binned on a grid that covers
        ``support_`` widened by ``40 * noise_scale_ + 4 * bandwidth_`` (Laplace
        noise exceeds 40 scales with probability ``exp(-40)``), the counts
        of all chunks are added, and the estimate is recomputed from them,
        so the result equals :meth:`fit` on all the chunks at once with the
        same settings (up to rounding).  Memory does not grow with the
        number of records, except for ``released_``: with a ``privatizer``
        the records it released are kept, for ``conf_int``.

        Streaming needs settings that do not depend on the data: a float
        ``bandwidth`` (cross-validation needs all the records), a ``support``
        (or a ``privatizer`` with ``bounds``), one feature and an
        ``algorithm`` other than ``"direct"``.  They cannot change between
        calls.  A ``privatizer`` is fitted on the first chunk; its random
        stream continues over the chunks, so every chunk gets fresh noise.

        Parameters
        ----------
        X : array-like of shape (n_samples, 1)
            Noisy records, or clean records when ``privatizer`` is set.
        y : None
            Ignored.

        Returns
        -------
        self : DeconvolutionKernelDensity

        Examples
        --------
        >>> import numpy as np
        >>> from skprivate import DeconvolutionKernelDensity, LaplaceLDP
        >>> rng = np.random.default_rng(0)
        >>> kde = DeconvolutionKernelDensity(
        ...     bandwidth=0.4,
        ...     privatizer=LaplaceLDP(epsilon=10, bounds=(-4, 4), random_state=0),
        ... )
        >>> for _ in range(5):  # e.g. pandas.read_csv(..., chunksize=2000)
        ...     kde = kde.partial_fit(rng.normal(size=(2000, 1)).clip(-4, 4))
        >>> kde.n_samples_seen_, kde.bin_counts_.shape  # memory set by the grid
        (10000, (16817,))
        >>> round(float(kde.pdf(0.0)), 2)  # N(0, 1) has 0.40; smoothed by h: 0.37
        0.37
        """
        with raw_values_withheld():  # raw records when a privatizer is given
            return self._partial_fit_statistic(X)

    # -- the statistic: binned counts on a fixed grid (fit, partial_fit, dask) --
    def _check_streaming(self, first: bool) -> None:
        if not first:
            check_unchanged_settings(self._stream, self._settings())
            return
        if hasattr(self, "bandwidth_"):
            raise ValueError(
                "partial_fit cannot add to an estimate that fit computed "
                "without the fixed grid (it needs a float bandwidth, a "
                "support or privatizer bounds, and binned sums: "
                "algorithm='binned', or 'auto' with more than 2000 "
                "points); call fit again, or stream from a fresh estimator."
            )
        self._check_streamable()

    def _statistic_input(self, X, reset):
        if reset:
            self.__dict__.pop("_stream", None)
        return self._privatize_numeric(X, reset)

    def _statistic_plan(self, data, stream):
        name = type(self).__name__
        q = self.n_features_in_
        float_bandwidth = isinstance(self.bandwidth, numbers.Real)
        if stream and q != 1:
            raise ValueError(
                "partial_fit needs a single feature (kernel sums of several "
                "features are computed from the stored records, which "
                f"streaming does not keep); got {q} features."
            )
        if is_dask_collection(data):
            if q != 1:
                raise ValueError(
                    f"{name} fits a dask collection of a single feature (binned "
                    f"kernel sums); got {q} features."
                )
            if not float_bandwidth:
                raise ValueError(
                    f"{name} on a dask collection needs a float bandwidth: "
                    f"choosing it by cross-validation (bandwidth={self.bandwidth!r})"
                    " needs all the records at once. Choose it on a sample that "
                    "fits in memory, e.g. "
                    "DeconvolutionKernelDensity(...).fit(sample).bandwidth_."
                )
            if self.algorithm == "direct":
                raise ValueError(
                    f"{name} on a dask collection uses binned kernel sums; "
                    "algorithm='direct' needs all the records. Use 'auto' or "
                    "'binned'."
                )
        elif not (
            stream
            or (q == 1 and float_bandwidth and use_binned(self.algorithm, len(data), 1))
        ):
            return None  # a bandwidth search, several features or exact sums
        noise = resolve_noise_scale(self, 1)
        h = float(self.bandwidth)
        fixed = self._fixed_support()
        if fixed:
            support = self._support_interval(None)
            span = self._grid_span(support, noise)
        else:  # the grid covers the records (one pass of dask) and the support
            low, high = value_range(data)
            if max(abs(low), abs(high)) > MAX_MAGNITUDE:
                reduce_rows(data, _ModerateValues())  # raises, naming the row
            support = self._support_interval((low, high))
            span = min(low, support[0]), max(high, support[1])
        return _BinnedCounts(span, h, float(noise[0] / h), support, streamable=fixed)

    def _statistic_fit(self, statistic, total, added):
        counts, n, outside = total
        if outside:
            raise ValueError(
                f"{outside} values of X lie outside [{statistic.lo:g}, "
                f"{statistic.hi:g}] = support widened by 40 noise scales, beyond "
                "the fixed grid; support (or the privatizer's bounds) must "
                "contain the clean data."
            )
        h = statistic.bandwidth
        binned = BinnedSums.from_counts(
            statistic.span, h, statistic.ratio, self.kernel, counts
        )
        self.noise_scale_ = resolve_noise_scale(self, 1)
        self.bandwidth_ = h
        self.bandwidth_candidates_ = None
        self.cv_scores_ = None
        self._ratio = self.noise_scale_ / h
        self._Z = None
        self._binned = binned
        self._grid = None
        self.bin_counts_ = counts if statistic.streamable else None
        self.n_samples_seen_ = int(n)
        self.support_ = statistic.support
        if statistic.streamable:
            self._stream = self._settings()
        # linear binning keeps the sum of the records exact; the moments are
        # those of the records in the support's units (see _unit_records)
        low, high = self.support_
        width = high - low
        step = statistic.delta / width
        nodes = (statistic.lo - low) / width + step * np.arange(statistic.size)
        self._noisy_moments = binned_moments(nodes, counts, -(step**2) / 6)
        self._noisy_powers = (
            float(np.dot(counts, nodes**3) / counts.sum()),
            float(np.dot(counts, nodes**4) / counts.sum()),
        )
        self._defer_distribution()

    def _fit_all_rows(self, Z) -> DeconvolutionKernelDensity:
        """Kernel sums over the stored records (a bandwidth search, several
        features, or exact sums)."""
        Z = np.asarray(Z, dtype=np.float64)
        check_finite(Z, name="X")
        check_magnitude(Z, name="X")
        n, q = Z.shape
        if q > 1 and n <= q:
            # n records span an affine subspace of dimension n - 1 < q: the
            # data say nothing of the density across it.
            raise ValueError(
                f"X has n_samples = {n} records for {q} features: a density "
                f"in {q} dimensions needs more records than features (the "
                f"records span at most {n - 1} of the {q} directions, so the "
                "estimate would only repeat the kernel across the others). "
                "Pass more records or fewer features."
            )
        noise = resolve_noise_scale(self, q)
        self.noise_scale_ = noise
        self.bandwidth_ = self._select_bandwidth(Z, noise)
        self._ratio = noise / self.bandwidth_
        self._Z = Z
        self._binned = None
        self._grid = None
        self.bin_counts_ = None
        self.n_samples_seen_ = n
        self.support_ = None
        if q > 1 and use_binned(self.algorithm, n, q):
            self._grid = nd_binned_grid(
                Z, None, self.bandwidth_, self._ratio, self.kernel, self.algorithm
            )
        elif use_binned(self.algorithm, n, q):
            self._binned = BinnedSums(
                Z[:, 0],
                None,
                self.bandwidth_,
                float(self._ratio[0]),
                self.kernel,
                span=self._support_interval(Z),
            )
        if q == 1:
            self.support_ = self._support_interval(Z)
            z = self._unit_records(Z[:, 0])
            self._noisy_moments = (n, float(z.mean()), float(np.dot(z, z) / n))
            self._noisy_powers = (float(np.mean(z**3)), float(np.mean(z**4)))
            self._defer_distribution()
        return self

    def _unit_records(self, z: NDArray) -> NDArray[np.float64]:
        """Records in the support's units: ``(z - low) / (high - low)``.

        The moment correction works with the values so centred and scaled
        (their moments, the tilt's features and multipliers), so that it
        does not depend on the data's units or on how far from zero they
        lie: the mean square of values near ``1e6`` varying by ``1`` would
        keep no digit of their variance.  A support of zero width (refused
        later) leaves the records as they are.
        """
        low, high = self.support_
        width = high - low
        return (z - low) / width if width > 0 else np.asarray(z, dtype=float)

    def _defer_distribution(self) -> None:
        """Tabulate the proper density on first use, not in ``fit``.

        The tabulation evaluates the estimate at 3 x 4,096 points (with the
        reflections) and solves the moment tilt: with exact sums that is a
        dozen times the kernel sums of a typical ``score_samples`` call, paid
        by every fit that only needs ``raw_density``, ``score_samples`` or
        ``score`` (a bandwidth grid search).  A support of zero width (one
        distinct record) has no density whatever the bandwidth, and is
        refused here, in ``fit``.
        """
        self._dist = None
        low, high = self.support_
        if not low < high:
            self._build_distribution()  # raises: no positive mass

    def _settings(self) -> dict[str, str]:
        return {k: repr(v) for k, v in self.get_params(deep=False).items()}

    def _check_streamable(self) -> None:
        if not isinstance(self.bandwidth, numbers.Real):
            raise ValueError(
                "partial_fit needs a float bandwidth: choosing it by "
                f"cross-validation (bandwidth={self.bandwidth!r}) needs all the "
                "records at once."
            )
        if self.algorithm == "direct":
            raise ValueError(
                "partial_fit uses binned kernel sums; algorithm='direct' needs "
                "all the records. Use algorithm='auto' or 'binned'."
            )
        if not self._fixed_support():
            raise ValueError(
                "partial_fit needs a support (low, high) fixed in advance (or a "
                "privatizer with bounds): the grid of binned counts cannot "
                "follow the range of the first chunk."
            )

    def _fixed_support(self) -> bool:
        return self.support is not None or (
            self.privatizer is not None
            and getattr(self.privatizer, "bounds", None) is not None
        )

    def _grid_span(
        self, support: tuple[float, float], noise: NDArray
    ) -> tuple[float, float]:
        pad = _TAIL_SCALES * float(noise[0])
        return support[0] - pad, support[1] + pad

    def _select_bandwidth(self, Z: NDArray, noise: NDArray) -> float:
        self.bandwidth_candidates_ = None
        self.cv_scores_ = None
        if isinstance(self.bandwidth, numbers.Real):
            return float(self.bandwidth)
        if isinstance(self.bandwidth, str):
            candidates = default_candidates(Z, noise, Z.shape[0])
        else:
            candidates = check_candidates(self.bandwidth, "bandwidth")
        chosen, scores = [], []
        for j in range(Z.shape[1]):
            h, s = select_cv_bandwidth(Z[:, j], noise[j], self.kernel, candidates)
            chosen.append(h)
            scores.append(s)
        self.bandwidth_candidates_ = candidates
        self.cv_scores_ = scores[0] if len(scores) == 1 else np.array(scores)
        return float(np.exp(np.mean(np.log(chosen))))

    def _support_interval(self, Z: Any) -> tuple[float, float]:
        if self.support is not None:
            if len(self.support) != 2 or not self.support[0] < self.support[1]:
                raise ValueError(
                    f"support must be a pair (low, high) with low < high; "
                    f"got {self.support!r}."
                )
            return float(self.support[0]), float(self.support[1])
        bounds = getattr(self.privatizer_, "bounds_", None)
        if bounds is not None:
            return float(bounds[0][0]), float(bounds[1][0])
        if isinstance(Z, tuple):  # the records' range, already computed
            return Z
        return value_range(Z)

    def _raw(self, X: NDArray) -> NDArray[np.float64]:
        n = self.n_samples_seen_
        if self._binned is not None:
            return self._binned.evaluate(X[:, 0])[:, 0] / n
        if getattr(self, "_grid", None) is not None:
            return self._grid.evaluate(X)[:, 0] / n
        W = np.full((n, 1), 1.0 / n)
        sums = direct_sums(X, self._Z, W, self.bandwidth_, self._ratio, self.kernel)
        return sums[:, 0] / self.bandwidth_ ** X.shape[1]

    def raw_density(self, X: ArrayLike) -> NDArray[np.float64]:
        """The deconvolution estimate of eq. (5), which may be negative.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points at which to evaluate.

        Returns
        -------
        density : ndarray of shape (n_samples,)
        """
        check_is_fitted(self, "bandwidth_")
        with raw_values_withheld():  # points may be records: no error quotes them
            X = validate_data(
                self, check_numeric_input(X), dtype=np.float64, reset=False
            )
        return self._raw(X)

    def score_samples(self, X: ArrayLike) -> NDArray[np.float64]:
        """Log of the estimate of eq. (5); ``-inf`` where it is not positive.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points at which to evaluate.

        Returns
        -------
        log_density : ndarray of shape (n_samples,)
            NaN, with a RuntimeWarning, where the estimate overflows the
            range of float64 (a product of many per-feature kernels from few
            samples).
        """
        raw = self.raw_density(X)
        with np.errstate(divide="ignore", invalid="ignore"):
            out = np.where(raw > 0, np.log(np.where(raw > 0, raw, 1.0)), -np.inf)
        overflow = ~np.isfinite(raw)
        if overflow.any():
            warnings.warn(
                "The density estimate overflows the range of float64 at "
                f"{int(overflow.sum())} of {raw.size} points: it is a product of "
                f"{self.n_features_in_} per-feature kernels, each up to "
                "1 / bandwidth, averaged over "
                f"{self.n_samples_seen_} samples. score_samples is NaN there; use "
                "fewer features, a larger bandwidth or more samples.",
                RuntimeWarning,
                stacklevel=external_stacklevel(),
            )
            out = np.where(overflow, np.nan, out)
        return out

    def score(self, X: ArrayLike, y: Any = None) -> float:
        """Total log-likelihood of ``X``, the estimate floored at ``1e-12``.

        The deconvolution estimate can be zero or negative at a point (its
        kernel has negative lobes), where :meth:`score_samples` is ``-inf``.
        The floor keeps one such point from making every candidate of a grid
        search (over the bandwidth or the privatizer's ε) score ``-inf``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Points at which to evaluate.
        y : None
            Ignored.

        Returns
        -------
        log_likelihood : float
        """
        return float(np.sum(np.maximum(self.score_samples(X), np.log(1e-12))))

    def _build_distribution(self) -> None:
        low, high = self.support_
        edges = np.linspace(low, high, _DISTRIBUTION_CELLS + 1)
        mids = 0.5 * (edges[:-1] + edges[1:])
        dens = np.maximum(self._on_support(mids), 0.0)
        mass = dens * np.diff(edges)
        total = mass.sum()
        if not total > 0:
            cell = float(edges[1] - edges[0])
            why = (
                f" bandwidth={self.bandwidth_:g} is narrower than the "
                f"{_DISTRIBUTION_CELLS} cells (width {cell:g}) on which the "
                "estimate is tabulated: its kernels fall between the cells. Use "
                f"a bandwidth of at least {cell:g}, or bandwidth='cv'."
                if self.bandwidth_ < cell
                else " Check bandwidth, noise_scale and support."
            )
            raise ValueError(
                "The deconvolution estimate is not positive anywhere on the "
                f"support {self.support_}.{why}"
            )
        self._norm = total
        self._tilt = None
        if self.moment_correction:
            # in the support's units u = (x - low) / (high - low), like the
            # records' moments (see _unit_records)
            n, mean, square = self._noisy_moments
            cov = moment_covariance(n, mean, square, *self._noisy_powers)
            width = high - low
            noise_var = 2.0 * (float(self.noise_scale_[0]) / width) ** 2
            unit_edges = np.linspace(0.0, 1.0, _DISTRIBUTION_CELLS + 1)
            features = additive_features(unit_edges, noise_var)
            mass, lam = tilt_to_moments(
                mass,
                features,
                [mean, square],
                cov=cov,
                name=type(self).__name__,
                units=(low, width),
            )
            if lam is not None:
                # pdf(x) = max(g(x), 0) / C * exp(l1 u + l2 (u**2 + shift) - log_c)
                # with u = (x - low) / (high - low), the continuous form of
                # the tilt of the cells
                unit_mids = 0.5 * (unit_edges[:-1] + unit_edges[1:])
                shift = float(features[0, 1] - unit_mids[0] ** 2)
                positive = dens > 0
                log_c = float(
                    logsumexp(
                        np.log(dens[positive] * np.diff(edges)[positive] / total)
                        + features[positive] @ lam
                    )
                )
                self._tilt = (float(lam[0]), float(lam[1]), shift, log_c)
        self._dist = PiecewiseUniformDistribution(edges, mass)

    def _on_support(self, x: NDArray) -> NDArray[np.float64]:
        """The estimate at points ``x`` of the support, before clipping."""
        raw = self._raw(x[:, None])
        if self.boundary == "reflect":
            low, high = self.support_
            raw = raw + self._raw((2 * low - x)[:, None])
            raw = raw + self._raw((2 * high - x)[:, None])
        return raw

    def _distribution(self) -> PiecewiseUniformDistribution:
        if self.support_ is None:
            raise ValueError(
                "The population-estimate methods (pdf, cdf, quantile, sample, "
                f"mean...) need one feature; this estimate has {self.n_features_in_}."
            )
        if getattr(self, "_dist", None) is None:
            self._build_distribution()
        return self._dist

    def pdf(self, x: ArrayLike) -> NDArray[np.float64]:
        """Proper density on ``support_`` (one feature; see ``boundary``).

        Parameters
        ----------
        x : array-like
            Points at which to evaluate.

        Returns
        -------
        ndarray
            ``max(g(x), 0) / C`` inside ``support_`` and 0 outside, where
            ``g(x) = f_hat(x) + f_hat(2 low - x) + f_hat(2 high - x)`` with
            ``boundary="reflect"`` and ``g = f_hat`` with ``"clip"``, and
            ``C`` is the integral of the positive part over ``support_``;
            same shape as ``x``.
        """
        self._fitted_distribution()
        x = check_float_array(x, name="x", allow_nan=True)  # names, never quotes
        flat = x.reshape(-1, 1)
        low, high = self.support_
        inside = (flat[:, 0] >= low) & (flat[:, 0] <= high)
        raw = np.zeros(flat.shape[0])
        raw[inside] = np.maximum(self._on_support(flat[inside, 0]), 0.0) / self._norm
        if self._tilt is not None:
            l1, l2, shift, log_c = self._tilt
            t = self._unit_records(flat[inside, 0])
            raw[inside] *= np.exp(l1 * t + l2 * (t * t + shift) - log_c)
        return np.where(inside, raw, 0.0).reshape(x.shape)
