"""Additive-noise privatizers calibrated to ``(epsilon, delta)``-LDP.

* :class:`GeneralizedGaussianLDP` - generalized Gaussian noise (Liu, 2018);
* :class:`FlippedHuberLDP` - Laplace-centre, Gaussian-tail noise
  (Muthukrishnan & Kalyani, 2023).

Both sample on a fixed grid by default (floating-point safe); their noise
laws and privacy profiles are in ``_noise_laws``.
"""

from __future__ import annotations

import decimal
import numbers
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from scipy import optimize
from sklearn.utils.validation import check_is_fitted

from ..utils import Interval
from ..utils._bounds import MAX_NOISE_SCALE
from ._bounded import CLAMP_LOG_TAIL, GRID_BITS, MAX_GRID_INDEX, _BoundedPrivatizer
from ._exact_laws import additive_exact_law
from ._noise_laws import (
    MAX_CELLS_PER_SCALE,
    FlippedHuberNoise,
    GeneralizedGaussianNoise,
    additive_privacy_profile,
    grid_privacy_profile,
)

__all__ = [
    "FlippedHuberLDP",
    "GeneralizedGaussianLDP",
]


def _limit_text(limit: float, smallest: bool) -> str:
    """An epsilon limit at 4 significant digits, rounded to the accepted side.

    A smallest accepted epsilon is rounded up and a largest one down, so
    that the figure a message names is itself accepted.
    """
    rounding = decimal.ROUND_CEILING if smallest else decimal.ROUND_FLOOR
    exact = decimal.Decimal(float(limit))
    step = decimal.Decimal(1).scaleb(exact.adjusted() - 3)
    return f"{float(exact.quantize(step, rounding=rounding)):.4g}"


def _clamp_distance(law) -> float:
    """Distance ``t`` with ``log P(Z < -t) = -CLAMP_LOG_TAIL`` for the noise ``Z``."""

    def gap(log_t: float) -> float:
        return float(law.logcdf(np.array(-np.exp(log_t)))) + CLAMP_LOG_TAIL

    lo, hi = np.log(law.scale) - 5.0, np.log(law.scale) + 5.0
    while gap(hi) > 0:
        hi += 2.0
    return float(np.exp(optimize.brentq(gap, lo, hi, xtol=1e-6)))


def _grid_cells(D: float, law) -> float:
    """Cells ``n`` of the grid sampler of ``law``: ``2**GRID_BITS`` per noise
    scale (at least per range); infinite for a scale far below the range."""
    per_range = max(1.0, D / law.scale)
    with np.errstate(over="ignore"):
        return float(np.exp2(np.ceil(np.log2(per_range)) + GRID_BITS))


def _grid_shape(D: float, law) -> tuple[float, float, float]:
    """Cells ``n``, step and clamp (in steps) of the grid sampler of ``law``.

    The clamp lies where the noise tail has probability
    ``exp(-CLAMP_LOG_TAIL)``.
    """
    n = _grid_cells(D, law)
    step = D / n
    return n, step, float(np.ceil(_clamp_distance(law) / step))


# Largest shape of the generalized Gaussian noise: beyond, the exact delta
# at 40 digits (an incomplete gamma of order 1 / power) is too slow.
MAX_POWER = 30.0

# Exact deltas already computed in this process (see _exact_deltas).
_EXACT_DELTAS: dict[tuple, float] = {}

# The exact delta is computed at 40 significant digits; the reported value
# is rounded up by this much to cover that rounding.
_EXACT_DELTA_ROUNDING = 1e-12


def _released_delta(law, D: float, eps: float, secure: bool) -> float:
    """Delta at ``eps`` of what is released: the grid law when ``secure``.

    Double precision, used by the calibration; the fitted privatizer then
    checks its delta at 40 digits (``_settle_delta``).
    """
    # beyond MAX_GRID_INDEX cells, the grid sampler refuses the budget
    if secure and _grid_cells(D, law) <= MAX_GRID_INDEX:
        n, _, margin = _grid_shape(D, law)
        return grid_privacy_profile(law, D, eps, int(n), int(margin))
    return additive_privacy_profile(law, D, eps)


def _safe_root(gap, lo: float, hi: float, xtol: float) -> float:
    """A root of the decreasing ``gap`` taken on its safe side (``gap <= 0``).

    ``gap`` is the excess of delta over its target as a function of the
    log noise level; a root found to ``xtol`` may lie on either side, so
    it is moved up (more noise) until the excess is not positive.
    """
    x = optimize.brentq(gap, lo, hi, xtol=xtol)
    move = xtol
    while gap(x) > 0 and x < hi:
        x = min(x + move, hi)
        move *= 2.0
    return float(x)


def _epsilon_limit(make_law, D: float, delta: float) -> float | None:
    """The epsilon at which a fixed noise law has privacy profile ``delta``."""

    def gap(log_eps: float) -> float:
        # a law far below the range overflows the profile's terms: the
        # value is then NaN (no limit), numpy's warnings are noise
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            value = additive_privacy_profile(make_law(), D, float(np.exp(log_eps)))
        return float(np.log(max(value, 1e-300)) - np.log(delta))

    lo, hi = np.log(1e-12), np.log(1e12)
    try:
        if gap(lo) > 0 > gap(hi):
            return float(np.exp(optimize.brentq(gap, lo, hi, xtol=1e-6)))
    except (ValueError, FloatingPointError):
        pass
    return None


def _generalized_gaussian_scale(
    D: float,
    eps: float,
    delta: float,
    power: float,
    epsilon: float,
    budget: float,
    secure: bool,
) -> float:
    """Smallest scale of power-``power`` noise giving ``(eps, delta)`` at width ``D``.

    ``epsilon`` and ``budget`` (the record's epsilon and delta) only word
    the error.  Scales range from ``e**-10 D / max(eps, 1)`` to
    ``2**24 D`` (where a noise scale holds ``MAX_CELLS_PER_SCALE`` steps
    of the finest grid, ``2**20`` per range), and never beyond
    ``MAX_NOISE_SCALE``.
    """

    def gap(log_scale: float) -> float:
        law = GeneralizedGaussianNoise(np.exp(log_scale), power)
        try:
            # far below the range (a huge epsilon) the profile's terms over-
            # flow: the value is checked below, numpy's warnings are noise
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                value = _released_delta(law, D, eps, secure)
        except (ValueError, FloatingPointError):
            value = np.nan
        if not np.isfinite(value):
            raise ValueError(
                f"GeneralizedGaussianLDP cannot compute the privacy profile of "
                f"power={power:g} noise at epsilon per column {eps:g}: noise so "
                "close to uniform is beyond floating point. Choose a smaller "
                "power (up to 30 is supported at every epsilon)."
            )
        return value - delta

    lo = np.log(D) - np.log(max(eps, 1.0)) - 10.0
    # no scale beyond MAX_NOISE_SCALE: its tails would overflow double
    widest = np.log(D) + (np.log2(MAX_CELLS_PER_SCALE) - GRID_BITS) * np.log(2.0)
    hi = min(widest, np.log(MAX_NOISE_SCALE))
    q = epsilon / eps  # columns sharing the record's budget
    if not gap(hi) < 0:
        limit = _epsilon_limit(
            lambda: GeneralizedGaussianNoise(np.exp(hi), power), D, delta
        )
        bound = (
            ""
            if limit is None
            else f"; the smallest accepted is {_limit_text(limit * q, True)}"
        )
        raise ValueError(
            f"epsilon={epsilon:g} is too small for GeneralizedGaussianLDP at "
            f"delta={budget:g} and power={power:g}: no noise scale up to "
            f"{np.exp(hi):g} attains it{bound}."
        )
    if not gap(lo) > 0:
        limit = _epsilon_limit(
            lambda: GeneralizedGaussianNoise(np.exp(lo), power), D, delta
        )
        bound = (
            ""
            if limit is None
            else f"; the largest accepted is {_limit_text(limit * q, False)}"
        )
        raise ValueError(
            f"epsilon={epsilon:g} is too large for GeneralizedGaussianLDP at "
            f"delta={budget:g} and power={power:g}: no noise scale down to "
            f"{np.exp(lo):g} attains it{bound}."
        )
    return float(np.exp(_safe_root(gap, lo, hi, xtol=1e-10)))


# Largest epsilon per column of FlippedHuberLDP: the privacy loss of its
# noise squares the ratio of the range to the noise scale, epsilon itself,
# which must stay finite in double precision (about 1.8e308).
_FLIPPED_HUBER_MAX_EPSILON = 1e100


def _flipped_huber_threshold(
    D: float,
    s: float,
    eps: float,
    delta: float,
    epsilon: float,
    budget: float,
    secure: bool,
) -> float:
    """Smallest tail threshold of flipped Huber noise giving ``(eps, delta)``."""

    def gap(log_t: float) -> float:
        law = FlippedHuberNoise(s, np.exp(log_t))
        return _released_delta(law, D, eps, secure) - delta

    lo = np.log(s) - 12.0
    hi = np.log(s) + np.log(max(eps, 1.0)) + 6.0
    if gap(hi) > 0:
        raise ValueError(
            f"delta={budget:g} is too small for FlippedHuberLDP at "
            f"epsilon={epsilon:g}; increase delta."
        )
    if gap(lo) <= 0:
        return float(np.exp(lo))
    return float(np.exp(_safe_root(gap, lo, hi, xtol=1e-10)))


class _AdditivePrivatizer(_BoundedPrivatizer):
    _noise_scales_with_range = True

    def _set_grid(self, sensitivity: NDArray) -> None:
        """Grid of ``2**GRID_BITS`` steps per noise scale (or per range) and clamp.

        None with ``secure=False``, which releases ``x + Z`` in floating
        point: no grid, and no limit of the grid's on epsilon.
        """
        if not self.secure:
            self.grid_step_ = self._n_cells = self._margin = None
            return
        cells = []
        margins = []
        # Columns sharing a noise law and a width share the grid (the laws of
        # equal columns are one object, see _calibrate).
        done: dict[tuple[int, float], tuple[float, float]] = {}
        for D, law in zip(sensitivity, self.noise_, strict=True):
            key = (id(law), float(D))
            if key in done:
                cells.append(done[key][0])
                margins.append(done[key][1])
                continue
            n, step, margin = _grid_shape(D, law)
            if n > MAX_GRID_INDEX:
                raise ValueError(
                    f"epsilon={self.epsilon:g} is too large for the grid sampler of "
                    f"{type(self).__name__} (noise scale {law.scale:g} against a "
                    f"range of {D:g}){self._largest_epsilon_text(D)}; lower "
                    "epsilon or pass secure=False."
                )
            cells_per_scale = law.scale / step
            if cells_per_scale > MAX_CELLS_PER_SCALE:
                # a ratio of the noise scale to the range: no raw value in it
                where = ""
                if self.bounds is not None:
                    where = f" for a range of {D:g}"
                limit = self._epsilon_at_scale(D, D * MAX_CELLS_PER_SCALE / n)
                smallest = ""
                if limit is not None:
                    smallest = (
                        " (the smallest accepted epsilon is "
                        f"{_limit_text(limit * self.n_features_in_, True)})"
                    )
                raise ValueError(
                    f"epsilon per column = {self._epsilon_per_feature:g} is below "
                    f"the smallest budget the grid sampler of {type(self).__name__} "
                    f"supports exactly{where}{smallest}: a noise scale would hold "
                    f"{cells_per_scale:.3g} grid steps, more than the "
                    f"{MAX_CELLS_PER_SCALE:.3g} its tail sampler resolves; raise "
                    "epsilon or pass secure=False."
                )
            law.set_resolution(cells_per_scale)
            cells.append(n)
            margins.append(margin)
            done[key] = (cells[-1], margins[-1])
        self.grid_step_ = sensitivity / np.asarray(cells)
        self._n_cells = np.asarray(cells)
        self._margin = np.asarray(margins)

    def _exact_law(self, column: int) -> Any:
        """Exact output law of ``column`` for :func:`skprivate.audit`."""
        check_is_fitted(self)
        return additive_exact_law(self, column)

    def _largest_epsilon_text(self, D: float) -> str:
        """``"; the largest accepted is ..."`` for the grid's index limit."""
        # n = 2**(ceil(log2(D / scale)) + GRID_BITS) <= MAX_GRID_INDEX
        scale = D * 2.0 ** (GRID_BITS - np.log2(MAX_GRID_INDEX))
        limit = self._epsilon_at_scale(D, scale)
        if limit is None:
            return ""
        largest = _limit_text(limit * self.n_features_in_, False)
        return f"; the largest accepted is {largest}"

    def _settle_delta(self, sensitivity: NDArray, factor: float) -> None:
        """Check the calibration against the exact delta; tighten it if short.

        The calibration's double-precision profile locates the maximum of
        the hockey-stick objective on the grid only to within the wavering
        of a privacy loss that stays within rounding of epsilon over
        millions of lattice points, and can fall short of the exact delta
        by about 1e-6 relative.  The exact delta of each column's grid law
        is computed once here at 40 significant digits (the computation of
        :func:`skprivate.audit`); when it is above the requested delta, the
        noise is calibrated again to a target lowered by the shortfall.
        """
        if not self.secure:
            self._delta_exact = None
            return
        exact = self._exact_deltas()
        target = self._delta_per_feature
        worst = max(exact) * (1.0 + _EXACT_DELTA_ROUNDING)
        if worst > target and factor > 0.5:
            self._calibrate(sensitivity, factor * (target / worst) * (1.0 - 1e-9))
            return
        self._delta_exact = exact

    def _exact_deltas(self) -> list[float]:
        """Exact delta per column at the per-column epsilon (40 digits).

        The value is a function of the law's parameters, the bounds, the
        grid and epsilon only; it is kept in a small process-wide table so
        that refits with the same settings (searches, clones, the columns
        of one fit) compute it once.
        """
        eps = self._epsilon_per_feature
        out = []
        for j, law in enumerate(self.noise_):
            key = (
                type(law).__name__,
                float(law.scale),
                float(getattr(law, "power", getattr(law, "beta", np.nan))),
                float(self.bounds_[0][j]),
                float(self.bounds_[1][j]),
                float(self.grid_step_[j]),
                int(self._n_cells[j]),
                int(self._margin[j]),
                float(eps),
            )
            if key not in _EXACT_DELTAS:
                if len(_EXACT_DELTAS) >= 512:
                    _EXACT_DELTAS.clear()
                law_j = additive_exact_law(self, j)
                _EXACT_DELTAS[key] = float(law_j.worst_delta(eps).value)
            out.append(_EXACT_DELTAS[key])
        return out

    def _delta_summary(self) -> dict[str, Any]:
        # The exact delta of what is released: the grid law (with its clamps)
        # when secure, the continuous law otherwise.
        low, high = self.bounds_
        eps = self._epsilon_per_feature
        profiles: dict[tuple[int, float], float] = {}
        deltas = []
        exact = getattr(self, "_delta_exact", None)
        if self.secure and exact is not None:
            deltas = [value * (1.0 + _EXACT_DELTA_ROUNDING) for value in exact]
            return {"delta": float(sum(deltas)), "delta_per_feature": deltas}
        for j, (law, D) in enumerate(zip(self.noise_, high - low, strict=True)):
            key = (id(law), float(D))
            if key not in profiles:
                if self.secure:
                    profiles[key] = grid_privacy_profile(
                        law, D, eps, int(self._n_cells[j]), int(self._margin[j])
                    )
                else:
                    profiles[key] = additive_privacy_profile(law, D, eps)
            deltas.append(profiles[key])
        return {"delta": float(sum(deltas)), "delta_per_feature": deltas}

    def _release(self, X, low, high, rng):
        noise = np.column_stack([law.sample((X.shape[0],), rng) for law in self.noise_])
        noise = noise.reshape(X.shape)
        if not self.secure:
            return X + noise
        step = self.grid_step_
        k = np.clip(np.rint((X - low) / step), 0, self._n_cells)
        # the noise becomes an integer number of steps before it meets the data
        np.rint(noise / step, out=noise)
        k += noise
        np.clip(k, -self._margin, self._n_cells + self._margin, out=k)
        return low + k * step


class GeneralizedGaussianLDP(_AdditivePrivatizer):
    """Generalized Gaussian noise addition, calibrated to ``(epsilon, delta)``.

    Releases ``x + Z`` with ``Z`` of density proportional to
    ``exp(-|z / sigma| ** power)`` (Liu's generalized Gaussian mechanism;
    ``power=1`` is Laplace, ``power=2`` Gaussian).  ``sigma`` is the
    smallest scale for which the mechanism is ``(epsilon, delta)``-LDP
    for values in the declared bounds (sensitivity ``b - a``), computed from
    the exact privacy profile of the noise.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy-loss bound of one record (all columns together), ``> 0``.
    delta : float, default=1e-5
        Probability slack of one record, in ``(0, 1)``.
    power : float, default=2.0
        Shape ``1 <= p <= 30`` of the noise (log-concave for ``p >= 1``).
    bounds : tuple (low, high) or None, default=None
        Domain of each column; ``None`` reads it from the data with a
        :class:`~skprivate.exceptions.PrivacyLeakWarning`.
    random_state : int, RandomState, Generator or None, default=None
        Source of randomness.
    secure : bool, default=True
        Release on a fixed grid, safe against the floating-point attack
        (see Notes); ``False`` adds floating-point noise (faster, not safe,
        reported by ``privacy_summary()``).

    Attributes
    ----------
    bounds_ : tuple of ndarray
        Bounds per column.
    scale_ : ndarray of shape (n_features,)
        Calibrated ``sigma`` per column.
    noise_ : list
        Noise law per column.
    grid_step_ : ndarray of shape (n_features,) or None
        Step of the output grid per column (with ``secure=True``; ``None``
        otherwise).

    Notes
    -----
    **Accounting.**  The budget is of one record over all its columns:
    with ``q`` columns each column is calibrated to ``(epsilon / q,
    delta / q)``, and sequential composition of the ``q`` independent
    releases gives ``(epsilon, delta)`` for the record, the rule of
    :class:`~skprivate.LaplaceLDP`.

    **Reported delta.**  ``privacy_summary()["delta"]`` is the exact
    ``delta`` at ``epsilon`` of what is released: with ``secure=True`` the
    grid law with its clamps (see
    :func:`~skprivate.ldp._noise_laws.grid_privacy_profile`), otherwise the
    continuous law, computed in log space and rounded up; the noise is
    calibrated on that same value, so it never exceeds the ``delta`` asked.

    **Floating-point safety** (``secure=True``, the default).  Every value
    is mapped to the integer ``k = clip(rint((x - a) / g), 0, n)`` on a grid
    of ``n`` steps ``g = (b - a) / n`` (``2**20`` steps per noise scale, at
    least per range); the noise ``Z`` is drawn and rounded to
    ``N = rint(Z / g)`` *before* it meets the data, and the release is
    ``a + g * clip(k + N, -M, n + M)`` with the clamp ``M`` where the noise
    tail has probability ``exp(-20)``.  In exact arithmetic
    ``k + rint(Z / g) = rint((k g + Z) / g)`` is a post-processing of the
    continuous mechanism applied to ``k g``, an input in ``[0, b - a]``,
    so the grid sampler keeps the guarantee of the continuous one at the
    same sensitivity ``b - a``; and because ``k + N`` is an exact integer
    sum, the set of possible outputs is the same for every input (the
    attack of Mironov, 2012, needs the rounding of ``x + Z`` to depend on
    ``x``), provided ``N`` takes every integer of ``[-(n + M), n + M]``:
    then every input reaches every output ``-M .. n + M``.  ``secure=False``
    releases ``x + Z`` in floating point: the same law in exact
    arithmetic, but not safe against the floating-point attack
    (``privacy_summary()`` reports ``"floating_point_safe": False``).

    **Every output is reachable from every input.**  numpy's gamma sampler
    alone does not give that: the magnitude ``u = |Z| / sigma`` is
    ``g**a`` with ``g`` its ``Gamma(a)`` draw, ``a = 1 / power``, which
    beyond ``1 - a`` is ``1 - a + a Y``, ``Y = -log((1 - U) / a)`` for a
    53-bit uniform ``U``: values ``2**-53 e**Y`` apart, ending where the
    sampler's acceptance step would need an exponential above its largest
    value 44.43.  At ``power = 1.2`` and ``epsilon = 30`` (``delta =
    1e-5``), 0.05 % of the outputs of ``x = b`` were impossible for
    ``x = a``.  Here every magnitude above ``T = tail_start`` of the noise
    law is replaced by a draw from the law of ``u`` given ``u > T``, which
    leaves the law of ``u`` unchanged: ``T + E / c`` with
    ``c = power T**(power - 1)``, accepted with probability
    ``exp(-(u**power - T**power - c (u - T)))`` (the exact rejection
    sampler of the tail under its tangent exponential envelope, accepted
    through coins of probability at least ``e**-20``, each realised by a
    53-bit uniform with positive probability), where ``E`` is a standard
    exponential whose draws above 7.5 are extended as in
    :class:`~skprivate.LaplaceLDP`.  ``T`` is the smaller of
    ``20**(1 / power)`` (below it the acceptance step passes every value)
    and the largest ``u`` whose neighbouring values lie ``2**-4`` grid
    steps apart, ``1 - a + a log(2**49 g / sigma)``.  Below ``T`` the gamma
    draws reach every integer ``N``; above it ``E`` takes values ``1e-15``
    apart and ``c >= 1``, a sixteenth of a step at the at most
    ``2**34.4`` grid steps per noise scale that the calibration allows
    (``sigma < e**10 (b - a)``).  Hence the set of outputs is the whole
    grid for every input, at every ``epsilon`` that ``fit`` accepts.  The
    draws below ``T`` are numpy's own, bit for bit; the bulk exceeds ``T``
    with probability at most ``e**-19`` when a noise scale holds at most
    ``2**21`` grid steps.

    See Also
    --------
    PerturbedKDEEstimator : the paper's density estimate from the output.
    FlippedHuberLDP : another noise-addition baseline.

    References
    ----------
    F. Liu, "Generalized Gaussian mechanism for differential privacy",
    IEEE TKDE 31(4), 2018.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.ldp import GeneralizedGaussianLDP
    >>> gg = GeneralizedGaussianLDP(
    ...     epsilon=2.0, delta=1e-3, bounds=(0, 10), random_state=0
    ... ).fit(np.zeros((1, 1)))
    >>> round(float(gg.scale_[0]), 3)
    20.439
    >>> round(gg.privacy_summary()["delta"], 6)
    0.001
    """

    _parameter_constraints: ClassVar[dict[str, Any]] = {
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither")],
        "delta": [Interval(numbers.Real, 0, 1, closed="neither")],
        "power": [Interval(numbers.Real, 1, None, closed="left")],
        "bounds": ["array-like", dict, None],
        "random_state": ["random_state"],
        "secure": ["boolean"],
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 1e-5,
        power: float = 2.0,
        bounds: tuple[Any, Any] | None = None,
        random_state: Any = None,
        secure: bool = True,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.power = power
        self.bounds = bounds
        self.random_state = random_state
        self.secure = secure

    def _calibrate(self, sensitivity: NDArray, factor: float = 1.0) -> None:
        eps, delta = self._epsilon_per_feature, self._delta_per_feature * factor
        power = float(self.power)
        if power > MAX_POWER:
            raise ValueError(
                f"power={power:g} is not supported by GeneralizedGaussianLDP: "
                "noise so close to uniform has no delta that can be computed "
                f"exactly in reasonable time; choose power <= {MAX_POWER:g} "
                "(the law is then already within a few percent of uniform on "
                "its central range)."
            )
        # One calibration (and one noise law) per distinct setting: columns
        # of equal width share them, so wide data with shared bounds cost
        # one root search, not one per column.
        laws: dict[tuple[float, float, float, float], GeneralizedGaussianNoise] = {}
        self.noise_ = []
        for D in sensitivity:
            key = (float(D), eps, delta, power)
            if key not in laws:
                scale = _generalized_gaussian_scale(
                    *key, self.epsilon, self.delta, bool(self.secure)
                )
                laws[key] = GeneralizedGaussianNoise(scale, power)
            self.noise_.append(laws[key])
        self.scale_ = np.array([law.scale for law in self.noise_], dtype=float)
        self._set_grid(sensitivity)
        self._settle_delta(sensitivity, factor)

    def _epsilon_at_scale(self, D: float, scale: float) -> float | None:
        """Epsilon per column at which noise of this ``scale`` has our delta."""
        power = float(self.power)
        return _epsilon_limit(
            lambda: GeneralizedGaussianNoise(scale, power), D, self._delta_per_feature
        )

    def privacy_summary(self) -> dict[str, Any]:
        """``(epsilon, delta)``-LDP of the calibrated mechanism.

        Returns
        -------
        summary : dict
            ``notion``; ``epsilon`` and ``delta`` of one record (``delta``
            is the sum over columns of the profile recomputed at the
            calibrated scale); ``epsilon_per_feature`` and
            ``delta_per_feature``; ``bounds``, ``bounds_from_data``,
            ``floating_point_safe``, ``output_grid`` (with
            ``secure=True``), ``power`` and ``scale``.
        """
        check_is_fitted(self)
        return {
            "notion": "(epsilon, delta)-LDP (generalized Gaussian noise)",
            **self._base_summary(),
            **self._delta_summary(),
            "power": float(self.power),
            "scale": self.scale_.tolist(),
        }


class FlippedHuberLDP(_AdditivePrivatizer):
    """Flipped Huber noise addition: Laplace centre, Gaussian tails.

    The noise density is ``exp(-rho(z / s))`` with ``rho(u) = |u|`` near
    zero and quadratic beyond ``|z| = threshold``, with the Laplace scale
    ``s = (b - a) / epsilon``, so that the centre behaves as the
    ``epsilon``-DP Laplace mechanism.  The lighter Gaussian tails cost a
    ``delta``: the threshold is the smallest one for which the mechanism is
    ``(epsilon, delta)``-LDP (from its exact privacy profile).

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy-loss bound of one record (all columns together), ``> 0``.
    delta : float, default=1e-5
        Probability slack of one record, in ``(0, 1)``.
    bounds : tuple (low, high) or None, default=None
        Domain of each column; ``None`` reads it from the data with a
        :class:`~skprivate.exceptions.PrivacyLeakWarning`.
    random_state : int, RandomState, Generator or None, default=None
        Source of randomness.
    secure : bool, default=True
        Release on a fixed grid, safe against the floating-point attack
        (see Notes); ``False`` adds floating-point noise (faster, not safe,
        reported by ``privacy_summary()``).

    Attributes
    ----------
    bounds_ : tuple of ndarray
        Bounds per column.
    scale_ : ndarray of shape (n_features,)
        Laplace scale ``s`` per column.
    threshold_ : ndarray of shape (n_features,)
        Where the Gaussian tail starts, per column.
    noise_ : list
        Noise law per column.
    grid_step_ : ndarray of shape (n_features,) or None
        Step of the output grid per column (with ``secure=True``; ``None``
        otherwise).

    Notes
    -----
    **Accounting.**  The budget is of one record over all its columns:
    with ``q`` columns each column is calibrated to ``(epsilon / q,
    delta / q)``, and sequential composition of the ``q`` independent
    releases gives ``(epsilon, delta)`` for the record, the rule of
    :class:`~skprivate.LaplaceLDP`.

    **Reported delta.**  ``privacy_summary()["delta"]`` is the exact
    ``delta`` at ``epsilon`` of what is released: with ``secure=True`` the
    grid law with its clamps (see
    :func:`~skprivate.ldp._noise_laws.grid_privacy_profile`), otherwise the
    continuous law, computed in log space and rounded up; the noise is
    calibrated on that same value, so it never exceeds the ``delta`` asked.

    **Floating-point safety** (``secure=True``, the default).  Every value
    is mapped to the integer ``k = clip(rint((x - a) / g), 0, n)`` on a grid
    of ``n`` steps ``g = (b - a) / n`` (``2**20`` steps per noise scale, at
    least per range); the noise ``Z`` is drawn and rounded to
    ``N = rint(Z / g)`` *before* it meets the data, and the release is
    ``a + g * clip(k + N, -M, n + M)`` with the clamp ``M`` where the noise
    tail has probability ``exp(-20)``.  In exact arithmetic
    ``k + rint(Z / g) = rint((k g + Z) / g)`` is a post-processing of the
    continuous mechanism applied to ``k g``, an input in ``[0, b - a]``,
    so the grid sampler keeps the guarantee of the continuous one at the
    same sensitivity ``b - a``; and because ``k + N`` is an exact integer
    sum, the set of possible outputs is the same for every input (the
    attack of Mironov, 2012, needs the rounding of ``x + Z`` to depend on
    ``x``), provided ``N`` takes every integer of ``[-(n + M), n + M]``:
    then every input reaches every output ``-M .. n + M``.  ``secure=False``
    releases ``x + Z`` in floating point: the same law in exact
    arithmetic, but not safe against the floating-point attack
    (``privacy_summary()`` reports ``"floating_point_safe": False``).

    **Every output is reachable from every input.**  The floating-point
    samplers of the noise alone do not give that: the magnitude
    ``u = |Z| / s`` of the centre is ``-log(1 - v (1 - e**-beta))`` with
    ``v`` a 53-bit uniform, values ``2**-53 e**u`` apart, and the Gaussian
    tail is an inversion ``Phi(-u / sqrt(beta)) = v Phi(-sqrt(beta))``,
    sparse as ``v`` nears 0.  With ``beta > 22`` (``epsilon`` above about
    17 at ``delta = 1e-5``) parts of the centre an input needs were
    sparse: at ``epsilon = 18 / 20 / 25 / 30`` (bounds ``(0, 1)``)
    0.3 % / 2 % / 82 % / 99.7 % of the outputs of ``x = 1`` were
    impossible for ``x = 0``.  Here every magnitude above ``T =
    tail_start`` of the noise law is replaced by a draw from the law of
    ``u`` given ``u > T``, which leaves the law of ``u`` unchanged:
    ``T + E / c`` with ``c = rho'(T) = max(1, T / beta)``, accepted with
    probability ``exp(-(rho(u) - rho(T) - c (u - T)))`` (the exact
    rejection sampler of the tail under its tangent exponential envelope,
    accepted through coins of probability at least ``e**-20``, each
    realised by a 53-bit uniform with positive probability), where ``E``
    is a standard exponential whose draws above 7.5 are extended as in
    :class:`~skprivate.LaplaceLDP`.  ``T`` is the largest magnitude below
    which the centre and tail inversions give values at most ``2**-4``
    grid steps apart (``log(2**49 g / s)`` when that is below ``beta``,
    else ``max(beta, sqrt(beta) z)`` with ``phi(z) = 2**-49 sqrt(beta)
    Phi(-sqrt(beta)) s / g``).  Below ``T`` the inversions reach every
    integer ``N``; above it ``E`` takes values ``1e-15`` apart and
    ``c >= 1``, below a sixteenth of a step as long as a noise scale holds
    at most ``2**44`` grid steps: ``fit`` refuses budgets beyond that
    (``epsilon`` per column below about ``6e-8``).  Hence the set of
    outputs is the whole grid for every input, at every ``epsilon`` that
    ``fit`` accepts.  The draws below ``T`` are numpy's own, bit for bit;
    the bulk exceeds ``T`` with probability at most ``e**-19`` when a
    noise scale holds at most ``2**21`` grid steps (``epsilon >= 1`` per
    column).

    See Also
    --------
    GeneralizedGaussianLDP, PerturbedKDEEstimator

    References
    ----------
    G. Muthukrishnan and S. Kalyani, "Grafting Laplace and Gaussian
    distributions: A new noise mechanism for differential privacy", IEEE
    TIFS 18, 2023.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.ldp import FlippedHuberLDP
    >>> fh = FlippedHuberLDP(
    ...     epsilon=1.0, delta=1e-3, bounds=(0, 10), random_state=0
    ... ).fit(np.zeros((1, 1)))
    >>> float(fh.scale_[0])
    10.0
    >>> round(fh.privacy_summary()["delta"], 6)
    0.001
    """

    _parameter_constraints: ClassVar[dict[str, Any]] = {
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither")],
        "delta": [Interval(numbers.Real, 0, 1, closed="neither")],
        "bounds": ["array-like", dict, None],
        "random_state": ["random_state"],
        "secure": ["boolean"],
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        delta: float = 1e-5,
        bounds: tuple[Any, Any] | None = None,
        random_state: Any = None,
        secure: bool = True,
    ) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.bounds = bounds
        self.random_state = random_state
        self.secure = secure

    def _calibrate(self, sensitivity: NDArray, factor: float = 1.0) -> None:
        eps, delta = self._epsilon_per_feature, self._delta_per_feature * factor
        # One calibration (and one noise law) per distinct setting, shared
        # by the columns of equal width.
        laws: dict[tuple[float, float, float], tuple[float, FlippedHuberNoise]] = {}
        self.noise_, thresholds = [], []
        if eps > _FLIPPED_HUBER_MAX_EPSILON:
            raise ValueError(
                f"epsilon={self.epsilon:g} is too large for FlippedHuberLDP "
                f"({eps:g} per column): its privacy loss at a noise scale of "
                f"{1.0 / eps:.3g} of the range is beyond floating point; the "
                "largest accepted is "
                f"{_FLIPPED_HUBER_MAX_EPSILON * self.n_features_in_:.4g}"
                + (
                    ""
                    if not self.secure
                    else " (with secure=False; the grid "
                    "sampler of secure=True accepts far less)"
                )
                + "."
            )
        for D in sensitivity:
            key = (float(D), eps, delta)
            if key not in laws:
                s = key[0] / eps
                t = _flipped_huber_threshold(
                    key[0], s, eps, delta, self.epsilon, self.delta, bool(self.secure)
                )
                laws[key] = (t, FlippedHuberNoise(s, t))
            thresholds.append(laws[key][0])
            self.noise_.append(laws[key][1])
        self.scale_ = np.asarray(sensitivity / eps, dtype=float)
        self.threshold_ = np.asarray(thresholds, dtype=float)
        self._set_grid(sensitivity)
        self._settle_delta(sensitivity, factor)

    def _epsilon_at_scale(self, D: float, scale: float) -> float | None:
        """Epsilon per column whose Laplace scale ``D / epsilon`` is ``scale``."""
        return float(D / scale)

    def privacy_summary(self) -> dict[str, Any]:
        """``(epsilon, delta)``-LDP of the calibrated mechanism.

        Returns
        -------
        summary : dict
            ``notion``; ``epsilon`` and ``delta`` of one record (``delta``
            summed over columns from the privacy profile);
            ``epsilon_per_feature``, ``delta_per_feature``, ``bounds``,
            ``bounds_from_data``, ``floating_point_safe``, ``output_grid``
            (with ``secure=True``), ``scale`` and ``threshold``.
        """
        check_is_fitted(self)
        return {
            "notion": "(epsilon, delta)-LDP (flipped Huber noise)",
            **self._base_summary(),
            **self._delta_summary(),
            "scale": self.scale_.tolist(),
            "threshold": self.threshold_.tolist(),
        }
