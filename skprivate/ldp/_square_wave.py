"""The Square Wave mechanism of Li et al. (SIGMOD 2020), epsilon-LDP."""

from __future__ import annotations

import numbers
from typing import Any, ClassVar

import numpy as np
from numpy.typing import NDArray
from sklearn.utils.validation import check_is_fitted

from ..utils import Interval
from ._bounded import GRID_BITS, MAX_GRID_INDEX, _BoundedPrivatizer
from ._exact_laws import square_wave_exact_law

__all__ = [
    "SquareWaveLDP",
    "square_wave_half_width",
]


#: Below this budget ``e^epsilon - 1 - epsilon`` is far from overflowing
#: (``2 (e^epsilon - 1 - epsilon)`` overflows from 709.09, ``e^epsilon`` from
#: 709.78), so ``w`` is taken from it; from it on, from ``e^-epsilon``.
_DIRECT_LIMIT = 709.0


def _exp_tail_over_square(epsilon: float, sign: float) -> float:
    """``sum_{k >= 2} sign**k epsilon**(k - 2) / k!`` for ``epsilon < 0.5``.

    The tail of the exponential series divided by ``epsilon**2``: it tends
    to 1/2 as ``epsilon -> 0`` and, unlike the tail itself (below
    ``epsilon = 1e-154``), never underflows.
    """
    total, term = 0.5, 0.5
    for k in range(3, 30):
        term *= sign * epsilon / k
        total += term
    return total


def _exp_tail_series(epsilon: float, sign: float) -> float:
    """``sum_{k >= 2} sign**k epsilon**k / k!`` for ``epsilon < 0.5``."""
    return epsilon * epsilon * _exp_tail_over_square(epsilon, sign)


def _square_wave_terms(epsilon: float) -> tuple[float, float]:
    """``(w, 2 w e^epsilon)`` of the Square Wave, exact to rounding.

    For every finite ``epsilon > 0``, with no overflow:
    ``w = (eps - 1 + e^-eps) / (2 (e^eps - 1 - eps))`` and
    ``2 w e^eps = (eps - 1 + e^-eps) / (1 - (1 + eps) e^-eps)``.  Below
    ``eps = 0.5`` both come from the exponential series divided by
    ``eps**2`` (no cancellation, no underflow however small ``eps``).  Up to
    ``eps = 709`` ``w`` is the quotient above, with ``e^eps - 1 - eps``
    finite; from there on ``w = (2 w e^eps) e^-eps / 2``, with ``e^-eps``
    taken as the square of ``e^(-eps/2)`` so that only the last product
    leaves the normal range: ``w`` stays exact to rounding as it becomes
    subnormal (from ``eps`` about 714.3) and rounds to 0 (from about 751.1),
    and no intermediate result overflows.
    """
    epsilon = float(epsilon)
    if epsilon < 0.5:
        low = _exp_tail_over_square(epsilon, -1.0)  # (eps - 1 + e^-eps) / eps^2
        high = _exp_tail_over_square(epsilon, 1.0)  # (e^eps - 1 - eps) / eps^2
        numerator = epsilon * high + (1.0 - high)  # (eps e^eps - e^eps + 1) / eps^2
        return low / (2.0 * high), numerator / high
    low = epsilon + np.expm1(-epsilon)
    near_odds = low / (-np.expm1(np.log1p(epsilon) - epsilon))
    if epsilon < _DIRECT_LIMIT:
        w = 0.5 * low / (np.expm1(epsilon) - epsilon)
    else:
        with np.errstate(under="ignore"):  # w is subnormal, then 0, by design
            root = np.exp(-0.5 * epsilon)
            w = 0.5 * near_odds * root * root
    return float(w), float(near_odds)


def square_wave_half_width(epsilon: float) -> float:
    """Half-width ``b`` of the Square Wave's high band on the unit domain.

    ``b = (eps e^eps - e^eps + 1) / (2 e^eps (e^eps - 1 - eps))``, the value
    Li et al. derive by maximizing the mutual information; it tends to 1/2
    as ``epsilon -> 0`` and to 0 as ``epsilon -> inf``.  Computed as
    ``(eps - 1 + e^-eps) / (2 (e^eps - 1 - eps))`` (a series below
    ``eps = 0.5``, and ``(2 b e^eps) e^-eps / 2`` from ``eps = 709``, where
    ``e^eps`` nears the largest double), which neither overflows nor loses
    precision: ``b`` is exact to rounding, subnormal from ``eps`` about 714
    and 0 from about 751.
    """
    return _square_wave_terms(epsilon)[0]


# The smallest per-column budget the exact coin is set up for.
_MIN_EPSILON = 1e-9


class SquareWaveLDP(_BoundedPrivatizer):
    """The Square Wave mechanism of Li et al. (SIGMOD 2020), epsilon-LDP.

    A value ``x`` is mapped to ``v = (x - a) / (b - a)`` in ``[0, 1]`` and
    released as ``a + (b - a) * v'`` with ``v'`` in ``[-w, 1 + w]`` drawn
    with density ``e^epsilon / (2 w e^epsilon + 1)`` within ``w`` of ``v``
    and ``1 / (2 w e^epsilon + 1)`` elsewhere, where ``w`` is
    :func:`square_wave_half_width`.  The density ratio between any two
    inputs is at most ``e^epsilon``.

    Parameters
    ----------
    epsilon : float, default=1.0
        Privacy budget of one record (all columns together), ``> 0``; each
        of ``q`` columns spends ``epsilon / q``.
    bounds : tuple (low, high) or None, default=None
        Domain of each column; ``None`` reads it from the data with a
        :class:`~skprivate.exceptions.PrivacyLeakWarning`.
    random_state : int, RandomState, Generator or None, default=None
        Source of randomness.
    secure : bool, default=True
        Sample exactly on a fixed grid (see Notes); ``False`` draws
        floating-point uniforms (not safe against the floating-point
        attack, reported by ``privacy_summary()``).

    Attributes
    ----------
    bounds_ : tuple of ndarray
        Bounds per column.
    half_width_ : float
        ``w`` on the unit domain, at the per-column budget ``epsilon / q``.
    grid_step_ : ndarray of shape (n_features,)
        Step of the output grid per column (with ``secure=True``).

    Notes
    -----
    **Accounting.**  With ``q`` columns each column runs the mechanism at
    ``epsilon_j = epsilon / q``; the ``q`` independent releases compose to
    ``epsilon`` for the record, the rule of :class:`~skprivate.LaplaceLDP`.
    ``w`` and the band probability are computed in a form that neither
    overflows nor cancels, so every finite ``epsilon`` from ``1e-9`` per
    column up works.

    **Exact sampling on a grid** (``secure=True``).  The unit domain is cut
    into ``n`` steps (a power of two, ``2**20`` or more so that the band
    holds about ``2**20`` steps, at most ``2**50``); ``v`` becomes the
    integer ``k = rint(v n)`` and the output the integer ``j`` in
    ``[-W, n + W]`` with ``W = floor(w n)``.  With probability ``p_far``,
    ``j`` is uniform on the ``n`` points farther than ``W`` from ``k``
    (``rng.integers``, exactly uniform), otherwise uniform on the
    ``2 W + 1`` points within ``W``.  For any two inputs the probability of
    an output ``j`` is either equal or in the ratio
    ``r = (1 - p_far) n / ((2 W + 1) p_far)``, and
    ``p_far = n / (n + (2 W + 1) e^epsilon_j)`` makes ``r = e^epsilon_j``
    exactly.  The coin is ``U < p`` with ``U`` a 53-bit uniform, whose
    probability is ``ceil(p 2**53) / 2**53 >= p``; ``p`` is ``p_far``
    rounded up (and at least ``2**-60``), so the realised far probability
    is never below ``p_far`` and the realised ratio never above
    ``e^epsilon_j``: the sampler is ``epsilon_j``-LDP with no
    floating-point caveat, for every finite ``epsilon`` of at least
    ``1e-9`` per column.  The release
    ``a + (b - a) j / n`` is post-processing.

    **Every output is reachable from every input.**  For an input ``k``
    the near draw ``k - W + i``, ``i`` uniform on ``0 .. 2 W``, covers
    ``[k - W, k + W]``, and the far draw maps ``u`` uniform on
    ``0 .. n - 1`` to ``u - W`` for ``u < k`` (covering ``-W .. k - W - 1``)
    and to ``u + W + 1`` otherwise (covering ``k + W + 1 .. n + W``): the
    two together cover ``[-W, n + W]`` exactly once.  Both integer draws
    are exact (``Generator.integers``) and each branch has positive
    probability, since the coin's realised probability
    ``ceil(p 2**53) / 2**53`` lies in ``(0, 1)`` for
    ``2**-60 <= p <= p_far (1 + 1e-12) < 1``.  So the set of outputs is
    ``{a + (b - a) j / n : -W <= j <= n + W}`` for every input and every
    ``epsilon`` of at least ``1e-9`` per column, with no upper limit on the
    budget (a smaller one is refused: the coin's rounding margin would
    exceed ``e**epsilon_j - 1``): when ``w n < 1``
    (``n`` is capped at ``2**50``, from about ``epsilon = 38``) ``W = 0``
    and the mechanism is randomized response over the ``n + 1`` grid
    points, still with the ratio ``e**epsilon_j`` exactly.

    See Also
    --------
    SquareWaveEMSEstimator : its EM-with-smoothing reconstruction.

    References
    ----------
    Z. Li, T. Wang, M. Lopuhaä-Zwakenberg, N. Li and B. Skoric, "Estimating
    Numerical Distributions under Local Differential Privacy", SIGMOD 2020.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.ldp import SquareWaveLDP
    >>> sw = SquareWaveLDP(epsilon=1.0, bounds=(0, 10), random_state=0)
    >>> out = sw.fit_transform(np.full((5, 1), 5.0))
    >>> bool(np.all((out >= -10 * sw.half_width_) & (out <= 10 + 10 * sw.half_width_)))
    True
    """

    _parameter_constraints: ClassVar[dict[str, Any]] = {
        "epsilon": [Interval(numbers.Real, 0, None, closed="neither")],
        "bounds": ["array-like", dict, None],
        "random_state": ["random_state"],
        "secure": ["boolean"],
    }

    def __init__(
        self,
        epsilon: float = 1.0,
        bounds: tuple[Any, Any] | None = None,
        random_state: Any = None,
        secure: bool = True,
    ) -> None:
        self.epsilon = epsilon
        self.bounds = bounds
        self.random_state = random_state
        self.secure = secure

    def _calibrate(self, sensitivity: NDArray) -> None:
        eps = self._epsilon_per_feature
        if eps < _MIN_EPSILON:
            # the coin's probability is raised by a relative 1e-12 to round
            # safely; below this budget that margin would exceed e**eps - 1
            # and the far outputs would outweigh the near ones
            raise ValueError(
                f"epsilon per column is {eps:.3g} over {self.n_features_in_} "
                "columns; SquareWaveLDP's exact coin is set up for at least "
                f"{_MIN_EPSILON:g} per column."
            )
        w, near_odds = _square_wave_terms(eps)
        self.half_width_ = w
        self._near_odds = near_odds
        n = 2.0**GRID_BITS
        if w < 2.0**-GRID_BITS:
            bits = np.ceil(-np.log2(w)) + GRID_BITS if w > 0 else np.inf
            n = float(np.exp2(min(bits, np.log2(MAX_GRID_INDEX))))
        half = np.floor(w * n)
        log_far = np.log(n) - np.logaddexp(np.log(n), eps + np.log(2 * half + 1))
        self._n_cells = n
        self._half_cells = half
        self._p_far = max(float(np.exp(log_far)) * (1 + 1e-12), 2.0**-60)
        self.grid_step_ = sensitivity / n

    def _release(self, X, low, high, rng):
        v = (X - low) / (high - low)
        if self.secure:
            n, half = self._n_cells, self._half_cells
            k = np.clip(np.rint(v * n), 0, n)
            far = rng.random(X.shape) < self._p_far
            near_j = k - half + rng.integers(0, 2 * half + 1, size=X.shape)
            u = rng.integers(0, n, size=X.shape).astype(float)
            far_j = np.where(u < k, u - half, u + half + 1)
            j = np.where(far, far_j, near_j)
            return low + j * self.grid_step_
        w = self.half_width_
        near = rng.random(X.shape) >= 1.0 / (1.0 + self._near_odds)
        u = rng.random(X.shape)
        out_near = v - w + 2 * w * u
        # The low-density part [-w, v - w) U (v + w, 1 + w] has total length 1.
        out_far = np.where(u < v, -w + u, v + w + (u - v))
        out = np.where(near, out_near, out_far)
        return low + (high - low) * out

    def _exact_law(self, column: int) -> Any:
        """Exact output law of ``column`` for :func:`skprivate.audit`."""
        check_is_fitted(self)
        return square_wave_exact_law(self, column)

    def privacy_summary(self) -> dict[str, Any]:
        """Pure epsilon-LDP.

        Returns
        -------
        summary : dict
            ``notion``, ``epsilon`` (one record), ``epsilon_per_feature``,
            ``bounds``, ``bounds_from_data``, ``floating_point_safe``,
            ``output_grid`` (with ``secure=True``) and the half-width ``w``.
        """
        check_is_fitted(self)
        return {
            "notion": "epsilon-LDP (square wave)",
            **self._base_summary(),
            "half_width": float(self.half_width_),
        }
