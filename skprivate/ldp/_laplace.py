"""The Laplace mechanism applied locally, one record at a time (Theorem 1)."""

from __future__ import annotations

import numbers
import warnings
from fractions import Fraction
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, OneToOneFeatureMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import PrivatizerMixin
from ..utils import Interval, bounds_from_data, check_bounds
from ..utils._bounds import (
    bounds_text,
    check_grid_width,
    check_noise_scale,
    column_label,
)
from ..utils._budget import budget_share
from ..utils._row_blocks import in_row_blocks
from ..utils._statistic import global_rows
from ..utils._warnings import external_stacklevel
from ..utils.validation import check_numeric_input
from ._exact_laws import laplace_exact_law
from ._noise_laws import standard_exponential

__all__ = ["LaplaceLDP"]

# Secure mode: the grid step is 2**-GRID_BITS of the column range, or of the
# continuous noise scale when that is smaller (rounded down to a power of two),
# and outputs are clamped CLAMP_SCALES noise scales beyond the bounds, a
# data-independent post-processing that keeps every output atom reachable from
# every input.  Grid indices must stay exact integers in double precision.
GRID_BITS = 20
CLAMP_SCALES = 20.0
MAX_GRID_INDEX = 2.0**52
# Exponential draws above this are extended by memorylessness (see Notes):
# numpy's own sampler stops at 44.43 and is sparse above about 30.
EXPONENTIAL_CAP = 24.0


def _scale_at_least(width: NDArray, step: NDArray, eps: float) -> NDArray:
    """``width * step / eps``, rounded up where floating point rounded it down.

    The sampler's scale in grid steps is ``scale / step`` (exact: ``step``
    is a power of two); its realised loss ``width / (scale / step)`` must
    not exceed ``eps``, which a downward rounding would break by an ulp.
    """
    scale = width * step / eps
    for j in range(scale.size):
        steps = Fraction(float(scale[j])) / Fraction(float(step[j]))
        if Fraction(float(width[j])) > Fraction(float(eps)) * steps:
            scale[j] = np.nextafter(scale[j], np.inf)
    return scale


def _shown_above(limit: float) -> float:
    """``limit`` rounded up to 3 significant digits, strictly above it.

    A refused budget names the smallest one accepted; the exact limit itself
    is refused (the clamp then reaches the last grid index), so the value
    shown must lie above it, not be rounded to either side.
    """
    unit = 10.0 ** (np.floor(np.log10(limit)) - 2)
    shown = np.ceil(limit / unit) * unit
    return float(shown if shown > limit else shown + unit)


class LaplaceLDP(OneToOneFeatureMixin, PrivatizerMixin, BaseEstimator):
    """Release each record with Laplace noise: epsilon-local differential privacy.

    Each feature ``j`` of each record ``x`` is clipped into the declared
    bounds ``[low_j, high_j]`` and released as ``z_j = x_j + n_j`` with
    ``n_j ~ Laplace(0, b_j)`` independent and
    ``b_j = q * (high_j - low_j) / epsilon`` for ``q`` features
    (Farokhi, Theorem 1).  The whole row is then epsilon-LDP: the budget is
    split as ``epsilon / q`` per feature.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget of one record (all features together), ``> 0``.
    bounds : tuple, list of tuples, dict or None, default=None
        Declared domain: ``(low, high)`` for every column, ``(lows, highs)``
        with one entry per column, one tuple per column
        ``[(0, 100), (1, 120)]``, or a dict ``{"age": (0, 100), ...}`` keyed by
        column name (see :func:`~skprivate.utils.check_bounds`).  ``None``
        reads them from the data at ``fit`` with a
        :class:`~skprivate.exceptions.PrivacyLeakWarning` (the bounds then
        depend on private values).
    clip : bool, default=True
        What to do with values outside the bounds at ``transform``: clip them
        to the nearest bound with a :class:`UserWarning` giving the count
        (``True``), or raise a :class:`ValueError` (``False``).  Clipping is
        needed for the guarantee: the noise scale only covers the declared
        range.
    random_state : None, int, RandomState or Generator, default=None
        Source of the noise.  Pass an int for reproducible releases.
    secure : bool, default=True
        Sample exactly on a grid (the default) instead of adding
        floating-point Laplace noise.  The textbook sampler
        ``x + b * log(U)`` leaves gaps in the set of floating-point outputs
        that depend on ``x``, which reveals ``x`` exactly with high
        probability (Mironov, 2012).  With ``secure=True`` each value is
        rounded to a grid of step ``g_j`` (a power of two, ``2**-20`` of the
        column range or of the noise scale, whichever is smaller), the noise
        is a Laplace draw rounded to an integer multiple of ``g_j`` before
        it is added, and outputs are clamped to ``CLAMP_SCALES = 20`` noise scales
        beyond the bounds; see Notes for the guarantee.  ``secure=False`` is
        the fast continuous sampler, kept as an explicit opt-out: it is not
        safe against the floating-point attack, and ``privacy_summary()``
        reports ``"floating_point_safe": False``.

    Attributes
    ----------
    scale_ : ndarray of shape (n_features,)
        Laplace scale ``b_j`` of each feature (in secure mode, the scale of
        the discrete Laplace law in data units); the deconvolution learners
        read it as the noise scale.
    bounds_ : tuple of two ndarrays of shape (n_features,)
        The bounds used, ``(low, high)``.
    bounds_from_data_ : bool
        Whether the bounds were read from the data.
    grid_step_ : ndarray of shape (n_features,) or None
        Grid step of the secure mode (``None`` otherwise).
    n_features_in_ : int
        Number of features seen during ``fit``.
    feature_names_in_ : ndarray of shape (n_features,)
        Names of features seen during ``fit`` (only for string column names).

    Notes
    -----
    **Guarantee of the default sampler** (``secure=True``).  For column
    ``j`` with bounds ``[l_j, h_j]`` and grid step ``g_j``, let
    ``k_lo = floor(l_j / g_j)``, ``k_hi = ceil(h_j / g_j)`` and
    ``K_j = k_hi - k_lo`` (the range in grid steps).  A value is mapped to
    the integer ``k = clip(rint(x / g_j), k_lo, k_hi)``; this map does not
    depend on the noise, so any two inputs give ``|k - k'| <= K_j``.  The
    released integer is ``m = clip(k + N, k_lo - M_j, k_hi + M_j)`` with
    ``N = rint(L)``, ``L`` Laplace of scale ``s_j = K_j / epsilon_j`` grid
    steps (drawn as the difference of two standard exponentials) and
    ``epsilon_j = epsilon / q``, so that
    ``P(N = n) = integral of f over [n - 1/2, n + 1/2]`` with
    ``f(t) = exp(-|t| / s_j) / (2 s_j)``.  Since
    ``f(t) <= exp(|d| / s_j) f(t + d)`` for every shift ``d``, integrating
    over a cell gives, for every integer ``m`` and inputs ``k, k'``,
    ``P(k + N = m) / P(k' + N = m) <= exp(|k - k'| / s_j)
    <= exp(K_j / s_j) = exp(epsilon_j)``; clamping and the map
    ``m -> m * g_j`` are post-processing, so each column is
    ``epsilon_j``-LDP and the ``q`` independent columns of one record are
    ``epsilon``-LDP by sequential composition.  The arithmetic that
    touches ``x`` (rounding to the grid) happens *before* the noise and the
    noise is added in exact integer arithmetic, so the set of possible
    outputs ``{m * g_j : k_lo - M_j <= m <= k_hi + M_j}`` is the same for
    every input, provided ``N`` takes every integer of
    ``[-(K_j + M_j), K_j + M_j]``, so that each input reaches both clamps.

    **The noise reaches every grid point, at every budget.**  numpy's
    ``standard_exponential`` alone does not: its largest value is
    ``r - log(2**-53) = 44.43`` (``r = 7.697`` starts its ziggurat tail,
    drawn as ``r - log(1 - U)`` from a 53-bit uniform ``U``), while an input
    at one bound needs ``(K_j + M_j) / s_j = epsilon_j + 20`` noise scales
    to reach the clamp beyond the other; above ``epsilon_j = 24.4`` outputs
    near one bound were impossible from the other (0.6 % of the outputs of
    ``x = l_j`` at ``epsilon_j = 40``).  Here a draw above
    ``EXPONENTIAL_CAP = 24`` is replaced by 24 plus a fresh draw, again
    while the fresh draw exceeds 24: by memorylessness the law is still
    standard exponential, and the draws are numpy's own, bit for bit,
    unless one exceeds 24 (probability ``4e-11`` per draw).  Below 24 the
    values of ``E_1`` lie at most ``2**-53 e**(24 - r) < 2e-9`` apart, and
    ``E_2`` takes every multiple of ``(r + 1) 2**-53 < 1e-15`` below ``r``
    (the ziggurat's base strip), so ``E_1 - E_2`` takes values at most
    ``1e-15`` apart on the whole line (shifted by multiples of 24 beyond).
    Scaled by ``s_j < 2**52 / 20`` (the clamp keeps grid indices below
    ``2**52``) consecutive values of ``s_j (E_1 - E_2)`` are less than a
    quarter step apart, so ``N`` takes every integer and the set of outputs
    of every input is the whole grid
    ``{m g_j : k_lo - M_j <= m <= k_hi + M_j}``, for every ``epsilon``
    that ``fit`` accepts (it refuses grid indices of ``2**52`` or more).
    The probabilities are numpy's, which realise the ideal ones to double
    precision.

    The discrete noise is a Laplace law of scale
    ``b_j = K_j g_j / epsilon_j`` (``scale_``) rounded to the grid: its
    variance exceeds ``2 b_j**2`` by ``g_j**2 / 12``, a relative
    ``2**-43`` at most, and the rounding of the input adds at most
    ``g_j / 2``; the deconvolution learners, which assume continuous
    Laplace noise of scale ``scale_``, are unaffected in practice.

    ``secure=False`` releases ``x + b_j * L`` with ``L`` a floating-point
    standard Laplace draw.  Its law is ``epsilon``-LDP in exact
    arithmetic, but the rounding of ``x + b_j * L`` depends on ``x``: for
    bounds ``(0, 1)`` and ``epsilon = 1`` about 40 % of the outputs for
    ``x = 0`` cannot occur for ``x = 1``.  Use it only where the released
    values are never seen at full precision by an adversary.

    See Also
    --------
    DeconvolutionKernelDensity : Recover the density of the clean data.
    DeconvolutionKernelRegressor : Regress on Laplace-privatized inputs.

    References
    ----------
    F. Farokhi, "Deconvoluting kernel density estimation and regression for
    locally differentially private data", Scientific Reports 10, 2020.

    I. Mironov, "On significance of the least significant bits for
    differential privacy", ACM CCS 2012.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import LaplaceLDP
    >>> X = np.array([[20.0, 1.0], [35.0, 0.0], [60.0, 1.0]])
    >>> ldp = LaplaceLDP(epsilon=2.0, bounds=([18, 0], [90, 1]), random_state=0)
    >>> Z = ldp.fit_transform(X)
    >>> Z.shape
    (3, 2)
    >>> ldp.scale_
    array([72.,  1.])
    >>> ldp.privacy_summary()["epsilon_per_feature"]
    1.0
    """

    _parameter_constraints: ClassVar[dict[str, Any]] = {
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither")],
        "bounds": [tuple, list, dict, None],
        "clip": ["boolean"],
        "random_state": ["random_state"],
        "secure": ["boolean"],
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        bounds: Any = None,
        clip: bool = True,
        random_state: Any = None,
        secure: bool = True,
    ) -> None:
        self.epsilon = epsilon
        self.bounds = bounds
        self.clip = clip
        self.random_state = random_state
        self.secure = secure

    def fit(self, X: ArrayLike, y: Any = None) -> LaplaceLDP:
        """Fix the bounds and the noise scale of each feature.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data to privatize later; only its shape (and, when ``bounds`` is
            None, its column minima and maxima) is used.
        y : None
            Ignored.

        Returns
        -------
        self : LaplaceLDP
        """
        return super().fit(X, y)

    def _fit(self, X: ArrayLike, y: Any = None) -> LaplaceLDP:
        self._check_params()
        X = validate_data(self, check_numeric_input(X, finite=True), dtype=np.float64)
        q = X.shape[1]
        if self.bounds is None:
            low, high = bounds_from_data(X, owner=type(self).__name__)
            self.bounds_from_data_ = True
        else:
            names = getattr(self, "feature_names_in_", None)
            low, high = check_bounds(self.bounds, q, feature_names=names)
            self.bounds_from_data_ = False
        check_grid_width(
            low,
            high,
            getattr(self, "feature_names_in_", None),
            declared=self.bounds is not None,
        )
        self.bounds_ = (low, high)
        eps_j = budget_share(self.epsilon, q)
        check_noise_scale(
            low,
            high,
            eps_j,
            getattr(self, "feature_names_in_", None),
            declared=self.bounds is not None,
        )
        if self.secure:
            unit = (high - low) / max(eps_j, 1.0)
            step = np.exp2(np.floor(np.log2(unit)) - GRID_BITS)
            self._k_low = np.floor(low / step)
            self._k_high = np.ceil(high / step)
            width = self._k_high - self._k_low  # sensitivity in grid units
            margin = np.ceil(CLAMP_SCALES * width / eps_j)
            reach = np.maximum(np.abs(self._k_low), np.abs(self._k_high)) + margin
            ends = np.maximum(np.abs(self._k_low), np.abs(self._k_high))
            if np.any((reach >= MAX_GRID_INDEX) & (ends < MAX_GRID_INDEX / 2)):
                # The clamp CLAMP_SCALES noise scales out, not the bounds, is
                # beyond the grid: the budget is too small, not too large.
                smallest = _shown_above(
                    float(np.max(CLAMP_SCALES * width / (MAX_GRID_INDEX - ends)) * q)
                )
                raise ValueError(
                    f"secure=True cannot place its noise grid for epsilon="
                    f"{self.epsilon:g} ({eps_j:g} per column): so small a budget "
                    f"has a noise scale beyond the {MAX_GRID_INDEX:.0e} grid "
                    f"steps available. Pass epsilon >= {smallest:.3g}, or "
                    "secure=False (not safe against floating-point attacks)."
                )
            if np.any(reach >= MAX_GRID_INDEX):
                shown = (
                    f"bounds {low.tolist()} to {high.tolist()}"
                    if self.bounds is not None
                    else "the bounds read from the data"
                )
                raise ValueError(
                    "secure=True needs grid indices below 2**52: epsilon / "
                    f"n_features = {eps_j:g} with {shown} "
                    "is too large a budget for bounds this far "
                    "from 0 relative to their width; shift the data towards 0 or "
                    "pass secure=False (not safe against floating-point attacks)."
                )
            self._margin = margin
            self.grid_step_ = step
            self.scale_ = _scale_at_least(width, step, eps_j)
        else:
            self.grid_step_ = None
            self.scale_ = (high - low) / eps_j
        return self

    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """Release ``X`` with fresh Laplace noise.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Raw records.  NaN and infinite values are refused.

        Returns
        -------
        Z : ndarray of shape (n_samples, n_features)
            Privatized records (a DataFrame with the input column names under
            ``set_output(transform="pandas")``).
        """
        return super().transform(X)

    def _transform(self, X: ArrayLike) -> NDArray[np.float64]:
        check_is_fitted(self, "scale_")
        X = check_numeric_input(X, finite=True)
        X = validate_data(self, X, dtype=np.float64, reset=False, copy=True)
        X = self._enforce_bounds(X)
        rng = self._next_generator(X)
        if self.secure:
            return in_row_blocks(lambda B: self._secure_noise(B, rng), X)
        X += rng.laplace(0.0, 1.0, size=X.shape) * self.scale_
        return X

    def _enforce_bounds(self, X: NDArray) -> NDArray:
        low, high = self.bounds_
        outside = (low > X) | (high < X)
        if outside.any():
            # the row, the column and the bounds broken, never the value
            j = int(np.flatnonzero(outside.any(axis=0))[0])
            row = int(np.flatnonzero(outside[:, j])[0])
            names = getattr(self, "feature_names_in_", None)
            bounds = bounds_text(low[j], high[j], declared=self.bounds is not None)
            msg = (
                f"{int(outside.sum())} values lie outside the bounds (first: X "
                f"{column_label(j, names)}, row {row}, outside {bounds})"
            )
            if not self.clip:
                raise ValueError(msg + "; pass clip=True to clip them.")
            warnings.warn(
                # a block of a larger release (a dask partition, a later
                # partial_fit chunk) names the row in the whole data
                global_rows(msg + " and were clipped to them."),
                UserWarning,
                stacklevel=external_stacklevel(),
            )
            np.clip(X, low, high, out=X)
        return X

    def _secure_noise(self, X: NDArray, rng: np.random.Generator) -> NDArray:
        step = self.grid_step_
        k = np.clip(np.rint(X / step), self._k_low, self._k_high)
        # Laplace noise in grid units (difference of two exponentials), rounded
        # to an integer *before* it meets the data: the sum k + n is exact.
        # (two draws per value in row order, so chunks continue one stream)
        draws = standard_exponential(rng, (*X.shape, 2), cap=EXPONENTIAL_CAP)
        noise = draws[..., 0] - draws[..., 1]
        noise *= self.scale_ / step
        np.rint(noise, out=noise)
        k += noise
        np.clip(k, self._k_low - self._margin, self._k_high + self._margin, out=k)
        k *= step
        # rint(x / step) is -0.0 for x in [-step/2, 0]: with a noise that
        # rounds to -0.0 the release would be -0.0, which no input above 0
        # gives.  Adding +0.0 makes every zero +0.0 and changes nothing else.
        k += 0.0
        return k

    def _exact_law(self, column: int) -> Any:
        """Exact output law of ``column`` for :func:`skprivate.audit`."""
        check_is_fitted(self)
        return laplace_exact_law(self, column)

    def privacy_summary(self) -> dict[str, Any]:
        """The guarantee in the paper's terms.

        Returns
        -------
        summary : dict
            ``notion`` ("epsilon-local differential privacy"), ``epsilon``
            (per record), ``epsilon_per_feature``, ``scale`` (``b_j``),
            ``bounds``, ``bounds_from_data``, ``sampler``,
            ``floating_point_safe`` (False only for ``secure=False``) and,
            in secure mode, ``output_grid`` (``origin`` and ``step`` per
            feature: every output is ``origin + integer * step``);
            ``reproducible`` and ``random_state_note`` (a seeded release is
            for simulation, not for release).
        """
        check_is_fitted(self, "scale_")
        summary = {
            "notion": "epsilon-local differential privacy",
            "epsilon": float(self.epsilon),
            # the nominal share; the noise is calibrated to budget_share, at most it
            "epsilon_per_feature": float(self.epsilon) / self.n_features_in_,
            "scale": self.scale_.tolist(),
            "bounds": (self.bounds_[0].tolist(), self.bounds_[1].tolist()),
            "bounds_from_data": bool(self.bounds_from_data_),
            "sampler": "discrete Laplace on a grid" if self.secure else "Laplace",
            "floating_point_safe": bool(self.secure),
            **self._release_policy(),
        }
        if self.secure:
            summary["output_grid"] = {
                "origin": [0.0] * self.n_features_in_,
                "step": self.grid_step_.tolist(),
            }
        return summary
