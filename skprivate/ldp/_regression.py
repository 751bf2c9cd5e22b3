"""Local constant and local linear regression on Laplace-privatized inputs."""

from __future__ import annotations

import numbers
import warnings
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, ClassifierMixin, RegressorMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import ParamsValidationMixin, PrivatizedInputMixin, check_in_memory
from ..utils import Interval, Options, check_generator
from ..utils._redact import raw_values_withheld
from ..utils._warnings import external_stacklevel
from ..utils.validation import (
    check_float_array,
    check_magnitude,
    check_numeric_input,
)
from ._binned_1d import BinnedSums
from ._binned_nd import LeaveOneOutGrid, loo_sums_nd, nd_binned_grid
from ._common import (
    ALGORITHM_CONSTRAINT,
    KERNEL_CONSTRAINT,
    LOCAL_LINEAR_TOLERANCE,
    NOISE_CONSTRAINT,
    PRIVATIZER_CONSTRAINT,
    check_candidates,
    default_candidates,
    resolve_noise_scale,
    use_binned,
)
from ._direct_sums import direct_sums
from ._fieller_check import FiellerCheckMixin
from ._intervals import DeconvolutionRegressionIntervalsMixin
from ._kernels import (
    moment_specs,
    product_kernel,
    spec_kernels,
    spec_width,
    subtract_own,
)

__all__ = ["DeconvolutionKernelClassifier", "DeconvolutionKernelRegressor"]

SIMEX_REPEATS = 5
# The SIMEX losses count only evaluation points between these quantiles of
# their own sample (the weight function of Delaigle & Hall, 2008).
SIMEX_TRIM = 0.1
# Grids of the leave-one-out sums of the bandwidth search with several
# features: steps per effective bandwidth and largest grid (nodes).
SELECT_STEPS = 4.0
SELECT_MAX_NODES = 2**17
# Candidates resolved by fewer steps of that grid are skipped (but never the
# three largest).
SELECT_MIN_STEPS = 2.0
# Largest number of evaluation points in the loss of one candidate.
SELECT_POINTS = 100_000
# A prediction falls back to the training mean where the kernel weights
# sum to at most this fraction of the sum of their absolute values.
DENOMINATOR_TOLERANCE = 1e-4
ABSOLUTE_FLOOR = 1e-12
PROBA_FLOOR = 1e-6
# The SIMEX bandwidth of the local linear fit is at least this many noise
# scales.  Below b, the r**2 g_k'' terms of its moment kernels (r = b / h)
# outweigh g_k and the sums at the ends of the data are mostly cancellation
# (sum |L_0| / sum L_0 near 9 at x = 16 on Adult at epsilon 5, h near b / 2):
# the fit there lands far off (P(>50K) of 2.7 or -0.2) on 2 of 10 seeds.
# From b on it is stable on every seed of benchmarks/ldp_regression_edge.py.
LOCAL_LINEAR_MIN_BANDWIDTH = 1.0

_SHARED_PARAMS_DOC = """
    degree : {"auto", 0, 1}, default="auto"
        Degree of the local polynomial.  ``"auto"``: 1 with the Gaussian
        kernel, 0 with the Cauchy kernel (which has no moments).  ``0`` is
        the deconvolution Nadaraya–Watson (local constant) estimator of
        Farokhi, eq. (7), the default before the local linear fit (it is
        pulled toward the interior at the ends of the data: on Adult at
        epsilon = 5, P(>50K | education = 16) ranges over 0.53 to 0.81 with
        10 privatization seeds, against 0.74 on the clean data).  ``1`` is
        the local linear estimator of Delaigle, Fan & Carroll
        (2009): with ``u_j = (z_j - x) / h``, the deconvolution kernels
        ``L_k(u) = g_k(u) - (b / h)**2 g_k''(u)`` of ``g_k(u) = u**k K(u)``
        (exact for Laplace noise) give ``S_k = sum_j L_k(u_j)`` and ``T_k =
        sum_j y_j L_k(u_j)``, and ``m_hat(x) = (S_2 T_0 - S_1 T_1) / (S_0 S_2
        - S_1**2)``; with several features, the ``(q + 1) x (q + 1)`` system
        of product kernels.  Its bias does not grow at the edges of the
        data, where the local constant fit is pulled toward the interior.
        Where the local design is nearly singular (its matrix scaled to a
        unit diagonal has smallest eigenvalue at most 0.05, for instance
        more than about a bandwidth beyond the data) the local constant
        estimate is used instead.  Requires ``kernel="gaussian"``.  The
        bandwidth criteria score the local linear fit.  The SIMEX losses,
        over the central 80% of the points, do not see the edges, where a
        bandwidth below the noise scale ``b`` leaves the local linear fit
        unstable (its moment kernels' ``(b / h)**2`` terms dominate and the
        sums there are mostly cancellation), so with ``bandwidth="simex"``
        the local linear bandwidth is at least ``max(noise_scale)``: on
        Adult at epsilon = 5 (``b = 3``) the estimate at education 16 is
        then within 0.09 of the clean 0.74 on 10 seeds of 10, and the error
        over all records is 1.7 to 3.8 times lower than the local constant
        fit's (``benchmarks/results/ldp_regression_edge.md``).
    kernel : {"gaussian", "cauchy"}, default="gaussian"
        Base kernel ``K`` of the deconvolution kernel.  The paper's
        experiments use ``"cauchy"``, which supports only ``degree=0`` (it
        has no moments).
    noise_scale : float, array-like or None, default=None
        Laplace scale ``b`` of the noise in the inputs given to ``fit`` (one
        per feature, or a scalar; ``0`` gives the ordinary estimator).  Must
        be None when ``privatizer`` is given.
    privatizer : LaplaceLDP or None, default=None
        If given, ``fit`` receives clean inputs, privatizes them with a clone
        of this privatizer (stored as ``privatizer_``) and reads the noise
        scale from its ``scale_``; a grid search can then tune
        ``privatizer__epsilon``.
    algorithm : {"auto", "direct", "binned"}, default="auto"
        How kernel sums are computed: exactly (``"direct"``, ``O(n m)``), or
        by linear binning on a grid, FFT convolution with the (separable)
        product kernel and (multi)linear interpolation (``"binned"``, up to 3
        features).  ``"auto"`` bins one-feature data with more than 2,000
        points and 2-3 features with more than 5,000; with 2-3 features a
        grid that would need more than ``2**22`` nodes for 2 steps per
        effective bandwidth ``h / sqrt(1 + (b/h)**2)`` is refused by
        ``"binned"`` and replaced by exact sums (with a warning) by
        ``"auto"``.  With 2-3 features the binned sums have 8 steps per
        effective bandwidth (fewer if the grid would exceed ``2**22``
        nodes): their error is about ``2e-3`` (Gaussian) and ``6e-3``
        (Cauchy) of the peak of the exact sums; the bandwidth search runs on
        one coarser grid per noisy sample (at most ``2**17`` nodes,
        candidates resolved by fewer than 2 steps skipped except the three
        largest).  With binned sums, the SIMEX search (any number of
        features) and the leave-one-out search with 2-3 features average
        each loss over at most 100,000 evaluation points (a seeded random
        subset, the same for every candidate).  The bandwidth is common to
        all features, as in the paper's product kernel: standardize
        features with very different spreads first.
    random_state : None, int, RandomState or Generator, default=None
        Source of the extra noise drawn by ``bandwidth="simex"``, the
        default (unused otherwise).
"""

# The fitted attributes the regressor and the classifier share.
_SHARED_FITTED_DOC = """    privatizer_ : LaplaceLDP or None
        Fitted clone of ``privatizer``.
    released_ : ndarray of shape (n_samples, n_features) or None
        The noisy inputs ``privatizer`` released, read by ``conf_int``
        (which then refuses data: it would be raw); None without it.
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of features seen during ``fit`` (only for string column names).
"""


def _central(X: NDArray) -> NDArray[np.bool_]:
    """Rows of ``X`` inside the central ``1 - 2 * SIMEX_TRIM`` of every column."""
    lo, hi = np.quantile(X, [SIMEX_TRIM, 1.0 - SIMEX_TRIM], axis=0)
    return np.all((lo <= X) & (hi >= X), axis=1)


def _canonical_order(Z: NDArray, Y: NDArray) -> NDArray[np.intp]:
    """Row order sorting ``Z`` then ``Y`` (rows equal in both are interchangeable)."""
    keys = np.column_stack([Z, Y.reshape(Z.shape[0], -1)])
    return np.lexsort(keys.T[::-1])


class _DeconvolutionNadarayaWatson(
    FiellerCheckMixin,
    DeconvolutionRegressionIntervalsMixin,
    PrivatizedInputMixin,
    ParamsValidationMixin,
    BaseEstimator,
):
    """Shared fit/predict of the deconvolution Nadaraya–Watson estimators."""

    _parameter_constraints: ClassVar[dict[str, Any]] = {
        "bandwidth": [
            Interval(numbers.Real, 0, None, closed="neither"),
            Options({"loo", "simex"}),
            "array-like",
        ],
        "degree": [Options({"auto", 0, 1})],
        "kernel": KERNEL_CONSTRAINT,
        "noise_scale": NOISE_CONSTRAINT,
        "privatizer": PRIVATIZER_CONSTRAINT,
        "algorithm": ALGORITHM_CONSTRAINT,
        "random_state": ["random_state"],
    }

    def __init__(
        self,
        bandwidth: Any = "simex",
        degree: int | str = "auto",
        kernel: str = "gaussian",
        noise_scale: Any = None,
        privatizer: Any = None,
        algorithm: str = "auto",
        random_state: Any = None,
    ) -> None:
        self.bandwidth = bandwidth
        self.degree = degree
        self.kernel = kernel
        self.noise_scale = noise_scale
        self.privatizer = privatizer
        self.algorithm = algorithm
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.non_deterministic = self.privatizer is not None or (
            self.bandwidth == "simex" and self.random_state is None
        )
        return tags

    # -- subclasses define the target encoding and the loss ---------------
    _y_numeric = True

    def _encode_targets(self, y: NDArray) -> NDArray:
        raise AttributeError

    def _loss(self, Y: NDArray, pred: NDArray) -> float:
        raise AttributeError

    def _fit(self, X: ArrayLike, y: ArrayLike) -> None:
        check_in_memory(self, X)  # kernel sums over all the records
        self._check_params()
        if self.degree == 1 and self.kernel != "gaussian":
            raise ValueError(
                f"degree={self.degree!r} needs kernel='gaussian': the "
                f"kernel={self.kernel!r} has no moments (u**2 K(u) is not "
                "integrable), so only degree=0 is defined for it."
            )
        # X is raw when a privatizer is given, and y is always raw: both are
        # converted under the redaction, so no error quotes their values
        with raw_values_withheld():
            if self._y_numeric:
                y = check_numeric_input(y, name="y")  # names the row, not the value
            X, y = validate_data(
                self,
                check_numeric_input(X, finite=True),
                y,
                dtype=np.float64,
                y_numeric=self._y_numeric,
            )
            Y = self._encode_targets(y)
        Z = np.asarray(self._privatize(X), dtype=np.float64)
        check_magnitude(Z, name="X")
        n, q = Z.shape
        self.noise_scale_ = resolve_noise_scale(self, q)
        self._fallback_value = Y.mean(axis=0)
        self._W = np.column_stack([np.ones(n), Y])
        self.degree_ = self._resolved_degree()
        self._specs = moment_specs(q, self.degree_)
        self._binned_mode = use_binned(self.algorithm, n, q)
        self._Z = Z
        self.bandwidth_candidates_ = None
        self.loo_scores_ = None
        self.simex_bandwidths_ = None
        self.loo_score_ = None
        self.loo_fallback_ = None
        if isinstance(self.bandwidth, numbers.Real):
            # A given bandwidth needs no criterion: fit only stores the data.
            self.bandwidth_ = float(self.bandwidth)
        else:
            # The criterion sees the rows in a canonical order (sorted by
            # their values), so the simulated noise of SIMEX, the subsets of
            # loss points and every sum fall on the same rows whatever order
            # the data came in: the bandwidth is a function of the set of rows.
            order = _canonical_order(Z, Y)
            if isinstance(self.bandwidth, str):
                candidates = default_candidates(Z[order], self.noise_scale_, n)
            else:
                candidates = check_candidates(self.bandwidth, "bandwidth")
            self.bandwidth_candidates_ = candidates
            self._select_bandwidth(Z[order], Y[order], order, candidates)
        ratio = self.noise_scale_ / self.bandwidth_
        self._ratio = ratio
        self._binned = None
        self._grid = None
        if self._binned_mode and q == 1:
            self._binned = self._binned_1d(Z[:, 0], self.bandwidth_)
        elif self._binned_mode:
            self._grid = nd_binned_grid(
                Z,
                self._W,
                self.bandwidth_,
                ratio,
                self.kernel,
                self.algorithm,
                True,
                self._specs,
            )
            self._binned_mode = self._grid is not None

    def _select_bandwidth(
        self, Z: NDArray, Y: NDArray, order: NDArray, candidates: NDArray
    ) -> None:
        """Choose ``bandwidth_`` among ``candidates`` by leave-one-out or SIMEX.

        ``Z`` and ``Y`` are the rows in the order ``order``; the weights of
        the kernel sums are put in the same order while the criterion runs.
        """
        weights = self._W
        self._W = weights[order]
        try:
            self._run_bandwidth_criterion(Z, Y, candidates)
        finally:
            self._W = weights

    def _run_bandwidth_criterion(
        self, Z: NDArray, Y: NDArray, candidates: NDArray
    ) -> None:
        n, q = Z.shape
        if self._binned_mode and (q > 1 or n > SELECT_POINTS):
            # Seed of the subsets of loss points (see _loss_points).
            seed = check_generator(self.random_state).integers(2**63)
            self._select_seed = int(seed)
        if self.bandwidth == "simex":
            self.bandwidth_ = self._simex_bandwidth(Z, Y, candidates)
        else:
            if self._binned_mode and q > 1:
                scores = self._grid_curve(Z, Z, Y, None, candidates)
            else:
                scores = np.array([self._loo_score(Z, Z, Y, h)[0] for h in candidates])
            self.loo_scores_ = scores
            self.bandwidth_ = float(candidates[int(np.nanargmin(scores))])
        self.loo_score_, self.loo_fallback_ = self._loo_score(Z, Z, Y, self.bandwidth_)

    def _resolved_degree(self) -> int:
        if self.degree == "auto":
            return 1 if self.kernel == "gaussian" else 0
        return int(self.degree)

    def _binned_1d(
        self, z: NDArray, h: float, span: tuple[float, float] | None = None
    ) -> list[BinnedSums]:
        """One binned grid of sums per kernel moment (one feature)."""
        ratio = float(self.noise_scale_[0] / h)
        c = self._W.shape[1]
        return [
            BinnedSums(
                z,
                self._W[:, : spec_width(spec, c)],
                h,
                ratio,
                self.kernel,
                i == 0,
                span=span,
                order=spec[0],
            )
            for i, spec in enumerate(self._specs)
        ]

    def _simex_bandwidth(self, Z: NDArray, Y: NDArray, candidates: NDArray) -> float:
        """SIMEX bandwidth of Delaigle & Hall (2008).

        Adding fresh Laplace noise of the same scale to ``z`` makes ``z*``,
        which relates to ``z`` as ``z`` relates to the private ``x``; adding
        it again makes ``z**``.  The leave-one-out losses of fitting on
        ``z*`` and predicting at ``z`` (and of ``z** -> z*``) give
        bandwidths ``h1`` and ``h2``, and ``h1**2 / h2`` extrapolates to the
        bandwidth for ``z -> x``.  Losses are averaged over
        ``SIMEX_REPEATS`` noise draws.  For the local linear fit the
        candidates and the result are at least ``LOCAL_LINEAR_MIN_BANDWIDTH``
        noise scales.

        As in Delaigle & Hall, the losses are weighted: only evaluation
        points between the ``SIMEX_TRIM`` and ``1 - SIMEX_TRIM`` quantiles of
        their sample count (in every feature).  Without the weight, the
        noisy points far outside the clean support, where any fit
        extrapolates, dominate the losses and both ``h1`` and ``h2`` (hence
        the extrapolation) come out several times too large.
        """
        rng = check_generator(self.random_state)
        noise = self.noise_scale_
        # Bandwidths below a tenth of the noise scale give deconvolution
        # kernels too wild to be chosen; skipping them saves most of the cost.
        usable = candidates >= 0.1 * float(np.max(noise))
        if usable.sum() >= 3:
            candidates = candidates[usable]
        floor = 0.0
        if self.degree_ == 1:
            floor = LOCAL_LINEAR_MIN_BANDWIDTH * float(np.max(noise))
            if (candidates >= floor).sum() >= 3:
                candidates = candidates[candidates >= floor]
        curves = np.zeros((2, candidates.size))
        for _ in range(SIMEX_REPEATS):
            z1 = Z + rng.laplace(0.0, 1.0, Z.shape) * noise
            z2 = z1 + rng.laplace(0.0, 1.0, Z.shape) * noise
            if self._binned_mode and Z.shape[1] > 1:
                curves[0] += self._grid_curve(z1, Z, Y, _central(Z), candidates)
                curves[1] += self._grid_curve(z2, z1, Y, _central(z1), candidates)
                continue
            # The loss points do not depend on the candidate.
            keep_z, keep_z1 = _central(Z), _central(z1)
            if self._binned_mode:
                keep_z, keep_z1 = self._loss_points(keep_z), self._loss_points(keep_z1)
            for k, h in enumerate(candidates):
                curves[0, k] += self._loo_score(z1, Z, Y, h, keep_z)[0]
                curves[1, k] += self._loo_score(z2, z1, Y, h, keep_z1)[0]
        if np.isnan(curves).all(axis=1).any():
            # Too few reports inside the central region for any candidate to
            # be scored (tiny or degenerate samples): smooth the most.
            warnings.warn(
                "the SIMEX losses are undefined for every candidate bandwidth "
                "(too few reports in the central region); the largest "
                f"candidate, {candidates[-1]:.3g}, is used.",
                UserWarning,
                stacklevel=external_stacklevel(),
            )
            self.simex_bandwidths_ = np.array([np.nan, np.nan])
            return max(float(candidates[-1]), floor)
        h1, h2 = candidates[np.nanargmin(curves, axis=1)]
        self.simex_bandwidths_ = np.array([h1, h2])
        return max(float(np.clip(h1**2 / h2, candidates[0], candidates[-1])), floor)

    def _grid_curve(
        self,
        Z: NDArray,
        X: NDArray,
        Y: NDArray,
        keep: NDArray | None,
        candidates: NDArray,
    ) -> NDArray[np.float64]:
        """Leave-one-out losses of all candidates on one binned grid (q >= 2).

        The grid (at most ``SELECT_MAX_NODES`` nodes) is binned once;
        candidates it resolves with fewer than ``SELECT_MIN_STEPS`` steps per
        effective bandwidth get NaN, except the three largest.
        """
        if keep is None:
            keep = np.ones(Z.shape[0], dtype=bool)
        keep = self._loss_points(keep)
        prepared = LeaveOneOutGrid(
            Z,
            X,
            self._W,
            keep,
            float(candidates[0]),
            self.noise_scale_,
            SELECT_MAX_NODES,
        )
        if keep is not None:
            Y = Y[keep]
        losses = np.full(candidates.size, np.nan)
        for k, h in enumerate(candidates):
            resolved = prepared.steps(h, self.noise_scale_) >= SELECT_MIN_STEPS
            if not resolved and k < candidates.size - 3:
                continue
            sums = prepared.sums(h, self.noise_scale_ / h, self.kernel, self._specs)
            pred, _ = self._ratio_of_sums(sums, h)
            losses[k] = self._loss(Y, pred)
        return losses

    def _loss_points(self, keep: NDArray) -> NDArray:
        """At most ``SELECT_POINTS`` of the points in the mask ``keep``.

        A selection loss is a mean over points: a random subset of
        ``SELECT_POINTS`` of them (the same for every candidate bandwidth,
        drawn from the selection seed) estimates it to a relative error of
        order ``1 / sqrt(SELECT_POINTS)`` at a fraction of the cost.
        """
        if keep.sum() <= SELECT_POINTS:
            return keep
        rng = np.random.default_rng(self._select_seed)
        chosen = rng.choice(np.flatnonzero(keep), SELECT_POINTS, replace=False)
        keep = np.zeros_like(keep)
        keep[chosen] = True
        return keep

    def _loo_score(
        self,
        Z: NDArray,
        X: NDArray,
        Y: NDArray,
        h: float,
        keep: NDArray | None = None,
    ) -> tuple[float, int]:
        """Loss of leave-one-out predictions at ``X[j]`` from fits on ``Z``.

        With ``X = Z`` this is eq. (8) evaluated at ``z_j`` (SPEC 2.2,
        errata 3).  ``keep`` restricts the loss to some points.  Also
        returns the number of fallbacks.
        """
        if self._binned_mode and keep is not None:
            # Evaluate only the points the loss counts (at most
            # SELECT_POINTS of them).
            keep = self._loss_points(keep)
            sums = self._loo_sums(Z, X, h, rows=keep)
            pred, fallback = self._ratio_of_sums(sums, h)
            return self._loss(Y[keep], pred), int(fallback.sum())
        sums = self._loo_sums(Z, X, h)
        pred, fallback = self._ratio_of_sums(sums, h)
        if keep is not None:
            Y, pred = Y[keep], pred[keep]
        return self._loss(Y, pred), int(fallback.sum())

    def _loo_sums(
        self, Z: NDArray, X: NDArray, h: float, rows: NDArray | None = None
    ) -> NDArray:
        """Kernel sums at ``X[j]`` from ``Z`` without point ``j``, scaled by ``1/h**q``.

        Columns: denominator, numerators, sum of absolute weights (then, for
        ``degree=1``, the moment sums; see :func:`direct_sums`): each
        point's own contribution is removed from every one.  With binned
        sums, only the ``rows`` (a mask) are evaluated; with several
        features on a grid of ``SELECT_STEPS`` steps per effective bandwidth
        (at most ``SELECT_MAX_NODES`` nodes).
        """
        ratio = self.noise_scale_ / h
        if self._binned_mode and Z.shape[1] > 1:
            return (
                loo_sums_nd(
                    Z,
                    X,
                    self._W,
                    h,
                    ratio,
                    self.kernel,
                    rows=rows,
                    steps=SELECT_STEPS,
                    max_nodes=SELECT_MAX_NODES,
                    specs=self._specs,
                )
                / h ** Z.shape[1]
            )
        W = self._W
        if self._binned_mode:
            binned = self._binned_1d(Z[:, 0], h, span=(float(X.min()), float(X.max())))
            if rows is not None:
                Z, X, W = Z[rows], X[rows], W[rows]
            sums = np.concatenate([b(X[:, 0]) for b in binned], axis=1)
            own = [b.pair_weight(Z[:, 0], X[:, 0]) for b in binned]
            own_abs = np.abs(own[0])
        else:
            scale = h ** Z.shape[1]
            sums = direct_sums(X, Z, self._W, h, ratio, self.kernel, True, self._specs)
            sums /= scale
            U = (X - Z) / h
            own = [K / scale for K in spec_kernels(U, ratio, self.kernel, self._specs)]
            own_abs = np.abs(own[0])
        subtract_own(sums, own, own_abs, W, self._specs)
        return sums

    def _ratio_of_sums(self, sums: NDArray, h: float) -> tuple[NDArray, NDArray]:
        """Eq. (7) from kernel sums scaled by ``1 / h**q``, with fallbacks.

        Sums below ``1e-12`` of the largest possible one, ``n K_hat(0) / h**q``,
        are rounding noise (of the FFT in binned mode) and fall back too, as
        do denominators at or below the bound ``sqrt(K_hat(0) sum_i
        |K_hat_i|) / h**q`` on their standard error.
        With ``degree=1``, the local linear fit replaces eq. (7) where its
        design is well conditioned (see :meth:`_local_linear`).
        """
        c = self._W.shape[1]
        den, num, absden = sums[:, 0], sums[:, 1:c], sums[:, c]
        q = self._Z.shape[1]
        k0 = product_kernel(np.zeros((1, q)), self.noise_scale_ / h, self.kernel)[0]
        peak = self._Z.shape[0] * k0 / h**q
        # sum_i K_hat_i**2 <= K_hat(0) sum_i |K_hat_i| bounds the variance of
        # the denominator: at or below that standard error it is not
        # distinguishable from zero and the ratio is noise over noise.
        noise_bound = np.sqrt(np.maximum(absden, 0.0) * k0 / h**q)
        fallback = ~(
            (den > DENOMINATOR_TOLERANCE * absden)
            & (den > noise_bound)
            & (absden > ABSOLUTE_FLOOR * peak)
        )
        safe = np.where(fallback, 1.0, den)
        pred = np.where(fallback[:, None], self._fallback_value, num / safe[:, None])
        if self.degree_ == 1:
            self._local_linear(sums, pred, ~fallback)
        return pred, fallback

    def _local_linear(self, sums: NDArray, pred: NDArray, usable: NDArray) -> None:
        """Overwrite ``pred`` with the local linear fit where it is well posed.

        The fit solves ``M beta = t`` with ``M[a, b] = S_{e_a + e_b}`` and
        ``t[a] = T_{e_a}`` (``e_0 = 0``) and returns ``beta[0]``.  The
        deconvolution kernels are not positive, so ``M`` can be singular or
        indefinite (the local linear counterpart of a vanishing eq. (7)
        denominator); where its diagonal is not positive or, scaled to a
        unit diagonal, its smallest eigenvalue is at most
        ``LOCAL_LINEAR_TOLERANCE``, ``pred`` keeps the local constant value.
        """
        q = self._Z.shape[1]
        c = self._W.shape[1]
        m = sums.shape[0]
        M = np.empty((m, q + 1, q + 1))
        t = np.empty((m, q + 1, c - 1))
        M[:, 0, 0] = sums[:, 0]
        t[:, 0] = sums[:, 1:c]
        col = c + 1
        for spec in self._specs[1:]:
            width = spec_width(spec, c)
            block = sums[:, col : col + width]
            col += width
            hot = [j + 1 for j, k in enumerate(spec) for _ in range(k)]
            if len(hot) == 1:
                a = hot[0]
                M[:, 0, a] = M[:, a, 0] = block[:, 0]
                t[:, a] = block[:, 1:]
            else:
                a, b = hot
                M[:, a, b] = M[:, b, a] = block[:, 0]
        diag = np.diagonal(M, axis1=1, axis2=2)
        usable = usable & np.all(diag > 0, axis=1)
        rows = np.flatnonzero(usable)
        if rows.size == 0:
            return
        M, t = M[rows], t[rows]
        scale = 1.0 / np.sqrt(np.diagonal(M, axis1=1, axis2=2))
        scaled = M * scale[:, :, None] * scale[:, None, :]
        if q == 1:
            smallest = 1.0 - np.abs(scaled[:, 0, 1])
        else:
            smallest = np.linalg.eigvalsh(scaled)[:, 0]
        good = smallest > LOCAL_LINEAR_TOLERANCE
        rows = rows[good]
        if rows.size:
            pred[rows] = np.linalg.solve(M[good], t[good])[:, 0]

    def _sums(self, X: NDArray) -> NDArray:
        if self._binned is not None:
            return np.concatenate([b.evaluate(X[:, 0]) for b in self._binned], axis=1)
        if getattr(self, "_grid", None) is not None:
            return self._grid.evaluate(X)
        return (
            direct_sums(
                X,
                self._Z,
                self._W,
                self.bandwidth_,
                self._ratio,
                self.kernel,
                True,
                self._specs,
            )
            / self.bandwidth_ ** X.shape[1]
        )

    def _predict_raw(self, X: ArrayLike) -> tuple[NDArray, NDArray]:
        check_is_fitted(self, "bandwidth_")
        with raw_values_withheld():  # clean inputs: no error quotes them
            X = validate_data(
                self, check_numeric_input(X, finite=True), dtype=np.float64, reset=False
            )
        return self._ratio_of_sums(self._sums(X), self.bandwidth_)

    def fallback_mask(self, X: ArrayLike) -> NDArray[np.bool_]:
        """Points where the kernel weights nearly cancel and the mean is returned.

        The deconvolution kernel takes negative values, so the denominator
        ``sum_i K_hat((x - z_i) / h)`` of eq. (7) can vanish or turn negative
        (far from the data, or where the density estimate dips below zero).
        Where it is at most ``1e-4`` times ``sum_i |K_hat((x - z_i) / h)|``,
        or at most ``sqrt(K_hat(0) sum_i |K_hat((x - z_i) / h)|)``, an upper
        bound on its standard error (``sum_i K_hat_i**2`` is at most
        ``K_hat(0) sum_i |K_hat_i|``), so that it cannot be told from zero
        (near the edges of the data: the ratio of eq. (7) is then noise over
        noise and can land far outside the range of the target), or where
        that sum is below ``1e-12`` of its largest possible value,
        ``n K_hat(0)`` (no training point is near), the prediction is the
        training mean of the target instead.  With ``degree=1`` the same
        test applies to the local constant sums; points where only the local
        linear design is nearly singular get the local constant estimate and
        are not in the mask.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Clean inputs.

        Returns
        -------
        mask : ndarray of shape (n_samples,) of bool
        """
        return self._predict_raw(X)[1]


class DeconvolutionKernelRegressor(RegressorMixin, _DeconvolutionNadarayaWatson):
    __doc__ = (
        """Kernel regression when the inputs carry Laplace noise.

    With ``degree=0`` fits the Nadaraya–Watson (local constant) estimate
    ``m_hat(x) = sum_i K_hat((x - z_i) / h) y_i / sum_i K_hat((x - z_i) / h)``
    (Farokhi, eq. 7) on noisy inputs ``z_i`` and clean responses ``y_i``,
    with the deconvolution kernel ``K_hat`` of :func:`deconvolution_kernel`.
    With ``degree=1`` it fits the local linear estimate of Delaigle, Fan &
    Carroll (2009), which solves the local least-squares equations with the
    deconvolution kernels of the moments ``u**k K(u)`` (see ``degree``);
    unlike the local constant fit, its bias does not grow at the edges of
    the data.  Predictions are made at clean inputs ``x``.  Every kernel sum
    is, up to the factor ``n h**q``, unbiased for its noiseless counterpart,
    which is what removes the attenuation of the naive estimator.

    Parameters
    ----------
    bandwidth : "simex", "loo", float or array-like, default="simex"
        ``h``.  ``"simex"`` (default) is the simulation-extrapolation choice
        of Delaigle & Hall (2008), with their weight function (losses over
        the central 80% of the evaluation points), over a log grid of 30
        values from 0.02 to 2 times the estimated clean standard deviation
        of the inputs (those below a tenth of the noise scale skipped); it
        targets the error at clean inputs and is random (see
        ``random_state``).  ``"loo"`` is the paper's choice: the
        leave-one-out squared error of eq. (8), evaluated at the noisy
        ``z_j`` (the clean ``x_j`` are private), over the same grid; it
        over-smooths, often several times over (on Adult at epsilon = 5 its
        error is 4-5 times the SIMEX one).  An array gives the candidates of
        the leave-one-out choice.  A float is used as is, and ``fit`` then
        does no selection work.
"""
        + _SHARED_PARAMS_DOC
        + """
    Attributes
    ----------
    bandwidth_ : float
        Bandwidth used.
    degree_ : int
        Degree of the local polynomial used (``degree`` with ``"auto"``
        resolved).
    noise_scale_ : ndarray of shape (n_features,)
        Laplace scale per feature used for deconvolution.
    bandwidth_candidates_, loo_scores_ : ndarray or None
        Candidates and their leave-one-out mean squared error (None for a
        fixed bandwidth; ``loo_scores_`` is None for ``"simex"``).
    loo_score_ : float or None
        Leave-one-out mean squared error at ``bandwidth_`` (None for a
        fixed bandwidth).
    simex_bandwidths_ : ndarray of shape (2,) or None
        The SIMEX bandwidths ``h1`` and ``h2`` (``bandwidth="simex"`` only).
    loo_fallback_ : int or None
        Number of training points whose leave-one-out prediction fell back
        to the mean (see :meth:`fallback_mask`); None for a fixed bandwidth.
"""
        + _SHARED_FITTED_DOC
        + """
    See Also
    --------
    DeconvolutionKernelClassifier : The same estimator for class probabilities.
    LaplaceLDP : The mechanism producing the noisy inputs.

    Notes
    -----
    Where the kernel weights nearly cancel (see :meth:`fallback_mask`) the
    prediction is the training mean of ``y``: the ratio is meaningless
    there, and the mean is the estimate a constant model would give.  With a
    binary 0/1 target the prediction estimates ``P(y = 1 | x)`` but can leave
    ``[0, 1]``; :class:`DeconvolutionKernelClassifier` clips it.

    References
    ----------
    F. Farokhi, "Deconvoluting kernel density estimation and regression for
    locally differentially private data", Scientific Reports 10, 2020.

    A. Delaigle, J. Fan and R. J. Carroll, "A design-adaptive local
    polynomial estimator for the errors-in-variables problem", Journal of
    the American Statistical Association 104, 2009.

    A. Delaigle and P. Hall, "Using SIMEX for smoothing-parameter choice in
    errors-in-variables problems", Journal of the American Statistical
    Association 103, 2008.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import DeconvolutionKernelRegressor, LaplaceLDP
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(-2, 2, size=(3000, 1))
    >>> y = np.sin(2 * x[:, 0]) + 0.1 * rng.normal(size=3000)
    >>> reg = DeconvolutionKernelRegressor(
    ...     privatizer=LaplaceLDP(epsilon=20, bounds=(-2, 2), random_state=0),
    ...     random_state=0,
    ... ).fit(x, y)
    >>> reg.privatizer_.scale_
    array([0.2])
    >>> np.round(reg.predict([[-0.75], [0.75]]), 1)  # sin(+-1.5) = +-1.0
    array([-0.9,  0.9])
    """
    )

    def _encode_targets(self, y: NDArray) -> NDArray:
        # numpy's own conversion error would quote the offending response
        y = check_float_array(y, name="y", allow_nan=True)
        if not np.all(np.isfinite(y)):
            raise ValueError("y contains NaN or infinity.")
        return y[:, None]

    def _loss(self, Y: NDArray, pred: NDArray) -> float:
        if Y.shape[0] == 0:  # no loss points (the SIMEX selection warns)
            return np.nan
        return float(np.mean((Y - pred) ** 2))

    def fit(self, X: ArrayLike, y: ArrayLike) -> DeconvolutionKernelRegressor:
        """Fit on noisy inputs (or clean inputs with ``privatizer``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Noisy inputs, or clean inputs when ``privatizer`` is set.
        y : array-like of shape (n_samples,)
            Responses (released as they are).

        Returns
        -------
        self : DeconvolutionKernelRegressor
        """
        self._fit(X, y)
        return self

    def predict(self, X: ArrayLike) -> NDArray[np.float64]:
        """Estimated regression function at clean inputs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Clean inputs.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        return self._predict_raw(X)[0][:, 0]

    def score(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> float:
        """Coefficient of determination R^2 of :meth:`predict` against ``y``.

        As :meth:`sklearn.base.RegressorMixin.score`, except that an error
        about ``X``, ``y`` or ``sample_weight`` quotes none of their values.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Clean inputs.
        y : array-like of shape (n_samples,)
            True responses.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples.

        Returns
        -------
        score : float
        """
        with raw_values_withheld():
            return super().score(X, y, sample_weight=sample_weight)


class DeconvolutionKernelClassifier(ClassifierMixin, _DeconvolutionNadarayaWatson):
    __doc__ = (
        """Class probabilities by deconvolution kernel regression on noisy inputs.

    ``P(y = k | x)`` is estimated by the regression of the indicator of
    class ``k`` on the noisy inputs (eq. 7 of Farokhi with ``degree=0``, the
    paper's Adult experiment for two classes; the local linear estimate of
    Delaigle, Fan & Carroll, 2009, with ``degree=1``; see
    :class:`DeconvolutionKernelRegressor`), then clipped to ``[1e-6, 1]``
    and renormalized, since the deconvolution kernels' negative lobes (and
    the local linear extrapolation) can push the raw estimate outside
    ``[0, 1]``.

    Parameters
    ----------
    bandwidth : "simex", "loo", float or array-like, default="simex"
        ``h``.  ``"simex"`` (default) is the weighted simulation-extrapolation
        choice of Delaigle & Hall (2008) with the log-loss (see
        :class:`DeconvolutionKernelRegressor`).  ``"loo"`` is the paper's:
        the leave-one-out log-loss (eq. 8 with the logarithmic loss),
        evaluated at the noisy ``z_j``, over a log grid of 30 values from
        0.02 to 2 times the estimated clean standard deviation of the
        inputs; it over-smooths.  An array gives its candidates; a float is
        used as is.
"""
        + _SHARED_PARAMS_DOC
        + """
    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
        Class labels.
    bandwidth_ : float
        Bandwidth used.
    degree_ : int
        Degree of the local polynomial used (``degree`` with ``"auto"``
        resolved).
    noise_scale_ : ndarray of shape (n_features,)
        Laplace scale per feature used for deconvolution.
    bandwidth_candidates_, loo_scores_ : ndarray or None
        Candidates and their leave-one-out mean log-loss.
    loo_score_ : float or None
        Leave-one-out mean log-loss at ``bandwidth_`` (None for a fixed
        bandwidth).
    simex_bandwidths_ : ndarray of shape (2,) or None
        The SIMEX bandwidths ``h1`` and ``h2`` (``bandwidth="simex"`` only).
    loo_fallback_ : int
        Number of training points whose leave-one-out prediction fell back
        to the class frequencies (see :meth:`fallback_mask`); None for a
        fixed bandwidth.
"""
        + _SHARED_FITTED_DOC
        + """
    See Also
    --------
    DeconvolutionKernelRegressor : The same estimator for a numeric response.

    References
    ----------
    F. Farokhi, "Deconvoluting kernel density estimation and regression for
    locally differentially private data", Scientific Reports 10, 2020.

    A. Delaigle, J. Fan and R. J. Carroll, "A design-adaptive local
    polynomial estimator for the errors-in-variables problem", Journal of
    the American Statistical Association 104, 2009.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import DeconvolutionKernelClassifier, LaplaceLDP
    >>> rng = np.random.default_rng(0)
    >>> x = rng.uniform(0, 1, size=(4000, 1))
    >>> y = (rng.uniform(size=4000) < x[:, 0]).astype(int)  # P(y=1|x) = x
    >>> clf = DeconvolutionKernelClassifier(
    ...     privatizer=LaplaceLDP(epsilon=10, bounds=(0, 1), random_state=0),
    ...     random_state=0,
    ... ).fit(x, y)
    >>> np.round(clf.predict_proba([[0.3], [0.7]])[:, 1], 1)
    array([0.3, 0.7])
    """
    )

    _y_numeric = False

    def _encode_targets(self, y: NDArray) -> NDArray:
        check_classification_targets(y)
        self.classes_, codes = np.unique(y, return_inverse=True)
        return (codes[:, None] == np.arange(self.classes_.size)).astype(float)

    @staticmethod
    def _clip(pred: NDArray) -> NDArray:
        p = np.clip(pred, PROBA_FLOOR, 1.0)
        return p / p.sum(axis=1, keepdims=True)

    def _loss(self, Y: NDArray, pred: NDArray) -> float:
        if Y.shape[0] == 0:  # no loss points (the SIMEX selection warns)
            return np.nan
        return float(-np.mean(np.sum(Y * np.log(self._clip(pred)), axis=1)))

    def fit(self, X: ArrayLike, y: ArrayLike) -> DeconvolutionKernelClassifier:
        """Fit on noisy inputs (or clean inputs with ``privatizer``).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Noisy inputs, or clean inputs when ``privatizer`` is set.
        y : array-like of shape (n_samples,)
            Class labels.

        Returns
        -------
        self : DeconvolutionKernelClassifier
        """
        self._fit(X, y)
        return self

    def predict_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Estimated class probabilities at clean inputs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Clean inputs.

        Returns
        -------
        proba : ndarray of shape (n_samples, n_classes)
        """
        return self._clip(self._predict_raw(X)[0])

    def predict_log_proba(self, X: ArrayLike) -> NDArray[np.float64]:
        """Logarithm of :meth:`predict_proba`.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Clean inputs.

        Returns
        -------
        log_proba : ndarray of shape (n_samples, n_classes)
        """
        return np.log(self.predict_proba(X))

    def predict(self, X: ArrayLike) -> NDArray:
        """Most probable class at clean inputs.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Clean inputs.

        Returns
        -------
        y_pred : ndarray of shape (n_samples,)
        """
        proba = self.predict_proba(X)
        return self.classes_[np.argmax(proba, axis=1)]

    def score(
        self, X: ArrayLike, y: ArrayLike, sample_weight: ArrayLike | None = None
    ) -> float:
        """Mean accuracy of :meth:`predict` against ``y``.

        As :meth:`sklearn.base.ClassifierMixin.score`, except that an error
        about ``X``, ``y`` or ``sample_weight`` quotes none of their values.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Clean inputs.
        y : array-like of shape (n_samples,)
            True labels.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the samples.

        Returns
        -------
        score : float
        """
        with raw_values_withheld():
            return super().score(X, y, sample_weight=sample_weight)
