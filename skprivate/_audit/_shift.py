"""Shift laws: an integer input plus integer noise, clamped to a range.

A :class:`ShiftLaw` releases ``m = clip(k + N, c_lo, c_hi)`` for an input
grid index ``k`` in ``[a, b]`` and an integer noise ``N`` with a log-concave
probability mass function.  Its exact worst case needs no enumeration:

* **shift invariance**: ``P_k(m) = P(N = m - k)`` between the clamps,
  ``P(N <= c_lo - k)`` and ``P(N >= c_hi - k)`` on them, so the law of every
  input is the noise law moved;
* **monotone likelihood ratio**: a log-concave pmf makes
  ``P_k(m) / P_k'(m)`` non-increasing in ``m`` for ``k < k'`` (clamping
  keeps this, as the tails of a log-concave pmf are log-concave), so for
  each pair the largest ratio is on a clamp, and on the clamp ``c_lo`` the
  ratio ``P(N <= c_lo - k) / P(N <= c_lo - k')`` grows as ``k`` falls and
  ``k'`` rises: the worst pair is the extreme inputs ``(a, b)``, the worst
  output a clamp, and the exact loss is

  ``max(log F(c_lo - a) - log F(c_lo - b), log S(c_hi - b) - log S(c_hi - a))``

  with ``F`` and ``S`` the lower and upper tails of ``N``;
* **delta**: by the same ratio order the set of outputs where ``P_k``
  exceeds ``e**eps P_k'`` is a half-line ``{m <= t}``, so the
  hockey-stick divergence of a pair is ``max_t F(t - k) - e**eps F(t - k')``;
  for each ``t`` this falls in ``k`` and rises in ``k'``, so again the pair
  ``(a, b)`` is worst, and the best ``t`` is the last one where
  ``P(N = t - a) > e**eps P(N = t - b)`` (a monotone condition, found by
  bisection).  Every evaluation is a tail probability in log space.

So the audit of a grid of ``2**20`` steps with a clamp ``2 * 10**8`` steps
out costs a few dozen tail evaluations.  ``to_matrix`` gives the full law
on small grids, which the tests enumerate to check these arguments.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ._numeric import log1mexp, logdiffexp
from ._result import WorstCase

__all__ = ["RoundedNoise", "ShiftLaw"]


def _show(value: Any) -> str:
    return format(value, ".10g") if isinstance(value, float) else str(value)


@dataclass(frozen=True)
class RoundedNoise:
    """``N = rint(Z)`` for a continuous symmetric log-concave ``Z``.

    Parameters
    ----------
    log_cdf_negative : callable
        ``t -> log P(Z <= t)`` for ``t <= 0`` (vectorized), accurate in the
        far tail; ``Z`` is in grid steps.
    description : str
        The law of ``Z``, for the audit's method text.
    log_ratio_negative : callable or None
        ``(t1, t2) -> log P(Z <= t1) - log P(Z <= t2)`` for ``t1, t2 <= 0``
        without the cancellation of two large logarithms (for Laplace noise
        ``(t1 - t2) / s``); ``None`` subtracts ``log_cdf_negative``.
    cdf_precise : callable or None
        ``t -> P(Z <= t)`` as an ``mpmath`` number at the working precision,
        for any real ``t`` given as an ``mpmath`` number.  The hockey-stick
        divergence ``P(S) - e**epsilon Q(S)`` of a small ``delta`` is the
        difference of two much larger probabilities: in double precision
        it loses about ``log10(P(S) / delta)`` digits (1e-7 relative at
        ``delta = 1e-9``), so the audit re-evaluates it at its candidate
        sets with this function (40 significant digits) when it is given.

    Notes
    -----
    ``P(N = n) = P(n - 1/2 < Z < n + 1/2)``, ``P(N <= n) = P(Z < n + 1/2)``
    and ``P(N >= n) = P(Z > n - 1/2) = P(Z < 1/2 - n)`` by symmetry.
    """

    log_cdf_negative: Callable[[NDArray], NDArray]
    description: str = "rounded continuous noise"
    log_ratio_negative: Callable[[NDArray, NDArray], NDArray] | None = None
    cdf_precise: Callable[[Any], Any] | None = None

    def log_tail_ratio(self, n1: ArrayLike, n2: ArrayLike, upper: bool) -> NDArray:
        """``log P(N <= n1) / P(N <= n2)`` (``upper``: ``P(N >= .)``)."""
        n1 = np.asarray(n1, dtype=float)
        n2 = np.asarray(n2, dtype=float)
        t1, t2 = (0.5 - n1, 0.5 - n2) if upper else (n1 + 0.5, n2 + 0.5)
        if self.log_ratio_negative is not None and np.all((t1 <= 0) & (t2 <= 0)):
            return np.asarray(self.log_ratio_negative(t1, t2), dtype=float)
        return self._log_cdf(t1) - self._log_cdf(t2)

    def _log_cdf(self, t: NDArray) -> NDArray:
        t = np.asarray(t, dtype=float)
        low = self.log_cdf_negative(-np.abs(t))
        return np.where(t <= 0, low, log1mexp(low))

    def logcdf(self, n: ArrayLike) -> NDArray:
        """``log P(N <= n)``."""
        return self._log_cdf(np.asarray(n, dtype=float) + 0.5)

    def logsf(self, n: ArrayLike) -> NDArray:
        """``log P(N >= n)``."""
        return self._log_cdf(0.5 - np.asarray(n, dtype=float))

    def logpmf(self, n: ArrayLike) -> NDArray:
        """``log P(N = n)``."""
        n = np.abs(np.asarray(n, dtype=float))  # symmetric
        upper = self.log_cdf_negative(-(n - 0.5))  # P(Z > n - 1/2)
        lower = self.log_cdf_negative(-(n + 0.5))  # P(Z > n + 1/2)
        tail = logdiffexp(upper, lower)
        centre = log1mexp(np.log(2.0) + self.log_cdf_negative(np.full(n.shape, -0.5)))
        return np.where(n == 0, centre, tail)


@dataclass(frozen=True)
class ShiftLaw:
    """Exact law of ``clip(k + N, c_lo, c_hi)`` for inputs ``k`` in ``[a, b]``.

    Parameters
    ----------
    a, b : int
        Smallest and largest input grid index reachable from the domain.
    c_lo, c_hi : int
        The clamps of the output (``c_lo <= a <= b <= c_hi``).
    noise : RoundedNoise or object with ``logcdf``, ``logsf``, ``logpmf``
        Integer noise with a log-concave pmf.
    input_label, output_label : callable
        Map a grid index to what the user sees (a data value); default the
        index itself.
    """

    a: int
    b: int
    c_lo: int
    c_hi: int
    noise: Any
    input_label: Callable[[int], Any] = field(default=lambda k: k)
    output_label: Callable[[int], Any] = field(default=lambda m: m)

    def __post_init__(self) -> None:
        if not self.c_lo <= self.a <= self.b <= self.c_hi or self.c_lo == self.c_hi:
            raise ValueError(
                "ShiftLaw needs c_lo <= a <= b <= c_hi and c_lo < c_hi; got "
                f"a={self.a}, b={self.b}, c_lo={self.c_lo}, c_hi={self.c_hi}."
            )

    # -------------------------------------------------------------- law
    def log_prob(self, k: ArrayLike, m: ArrayLike) -> NDArray:
        """``log P(output = m | input = k)`` (broadcast)."""
        k = np.asarray(k, dtype=float)
        m = np.asarray(m, dtype=float)
        k, m = np.broadcast_arrays(k, m)
        out = self.noise.logpmf(m - k)
        out = np.where(m == self.c_lo, self.noise.logcdf(self.c_lo - k), out)
        out = np.where(m == self.c_hi, self.noise.logsf(self.c_hi - k), out)
        return np.where((m < self.c_lo) | (m > self.c_hi), -np.inf, out)

    def to_matrix(self, max_cells: int = 4_000_000) -> NDArray:
        """Log probabilities, inputs ``a..b`` by outputs ``c_lo..c_hi``."""
        rows = self.b - self.a + 1
        cols = self.c_hi - self.c_lo + 1
        if rows * cols > max_cells:
            raise ValueError(
                f"the law has {rows} x {cols} cells, more than max_cells="
                f"{max_cells}; enumerate only small grids."
            )
        k = np.arange(self.a, self.b + 1)[:, None]
        m = np.arange(self.c_lo, self.c_hi + 1)[None, :]
        return self.log_prob(k, m)

    # ------------------------------------------------------------ audit
    def worst_epsilon(self) -> WorstCase:
        """Largest ``log P_k(m) / P_k'(m)`` over all inputs and outputs."""
        method = (
            "shift law: monotone likelihood ratio, extreme inputs, clamp outputs "
            "(tail probabilities in log space)"
        )
        a, b = self.a, self.b
        if a == b:
            return WorstCase(0.0, (self.input_label(a),) * 2, None, method)
        low, high = self._clamp_ratios()
        if low >= high:
            pair, out, value = (a, b), self.c_lo, low
        else:
            pair, out, value = (b, a), self.c_hi, high
        inputs = (self.input_label(pair[0]), self.input_label(pair[1]))
        return WorstCase(value, inputs, self.output_label(out), method)

    def _clamp_ratios(self) -> tuple[float, float]:
        """Log ratios of the extreme inputs on the two clamps."""
        a, b, noise = self.a, self.b, self.noise
        if hasattr(noise, "log_tail_ratio"):
            low = noise.log_tail_ratio(self.c_lo - a, self.c_lo - b, upper=False)
            high = noise.log_tail_ratio(self.c_hi - b, self.c_hi - a, upper=True)
        else:
            low = noise.logcdf(self.c_lo - a) - noise.logcdf(self.c_lo - b)
            high = noise.logsf(self.c_hi - b) - noise.logsf(self.c_hi - a)
        return float(low), float(high)

    def _last_true(self, lo: int, hi: int, pred: Callable[[int], bool]) -> int:
        """Last ``t`` in ``[lo, hi]`` with ``pred(t)``, else ``lo - 1``."""
        if lo > hi or not pred(lo):
            return lo - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if pred(mid):
                lo = mid
            else:
                hi = mid - 1
        return lo

    def worst_delta(self, epsilon: float) -> WorstCase:
        """Largest hockey-stick divergence at ``epsilon`` over all input pairs."""
        a, b, noise, eps = self.a, self.b, self.noise, float(epsilon)
        method = (
            "shift law: half-line rejection sets, extreme inputs, threshold by "
            "bisection (tail probabilities in log space)"
        )
        if a == b:
            return WorstCase(0.0, (self.input_label(a),) * 2, None, method)

        def gap(log_p: NDArray, log_q: NDArray) -> NDArray:
            # log(e**log_p - e**(eps + log_q)) where positive, else -inf
            d = eps + log_q - log_p
            with np.errstate(invalid="ignore"):
                return np.where(d < 0, log_p + log1mexp(np.minimum(d, 0.0)), -np.inf)

        def ratio(t: int, first: int, second: int) -> float:
            return float(noise.logpmf(t - first) - noise.logpmf(t - second))

        precise = getattr(noise, "cdf_precise", None)
        if precise is not None:
            ratio_above = _precise_ratio_test(precise, eps)
        else:

            def ratio_above(t: int, first: int, second: int) -> bool:
                return ratio(t, first, second) > eps

        # lower half-lines {m <= t}, t in [c_lo, c_hi - 1]: a above b
        t_star = self._last_true(
            self.c_lo + 1, self.c_hi - 1, lambda t: ratio_above(t, a, b)
        )
        ts = np.unique(
            np.clip(np.arange(t_star - 8, t_star + 9), self.c_lo, self.c_hi - 1)
        )
        lower = gap(noise.logcdf(ts - a), noise.logcdf(ts - b))
        # upper half-lines {m >= t}, t in [c_lo + 1, c_hi]: b above a (mirror)
        u_star = -self._last_true(
            -(self.c_hi - 1), -(self.c_lo + 1), lambda s: ratio_above(-s, b, a)
        )
        us = np.unique(
            np.clip(np.arange(u_star - 8, u_star + 9), self.c_lo + 1, self.c_hi)
        )
        upper = gap(noise.logsf(us - b), noise.logsf(us - a))
        if precise is not None:
            lower, upper = _precise_gaps(precise, eps, ts, us, a, b)
            method = f"{method}; delta evaluated at 40 significant digits"
        i, j = int(np.argmax(lower)), int(np.argmax(upper))
        if lower[i] >= upper[j]:
            log_delta, pair = lower[i], (a, b)
            out = f"outputs <= {_show(self.output_label(int(ts[i])))}"
        else:
            log_delta, pair = upper[j], (b, a)
            out = f"outputs >= {_show(self.output_label(int(us[j])))}"
        inputs = (self.input_label(pair[0]), self.input_label(pair[1]))
        return WorstCase(float(np.exp(log_delta)), inputs, out, method)


def _precise_ratio_test(
    cdf: Callable[[Any], Any], eps: float
) -> Callable[[int, int, int], bool]:
    """``P(N = t - first) > e**eps P(N = t - second)``, decided at 40 digits.

    Near the maximum of the hockey-stick objective the privacy loss is
    within rounding of ``eps`` over a long run of lattice points, where a
    double-precision test wavers and the bisection can stop far from the
    maximum (measured: 1e-6 relative of ``delta`` for a flipped Huber law).
    """
    import mpmath

    half = mpmath.mpf(1) / 2

    def pmf(n: int) -> Any:
        return cdf(n + half) - cdf(n - half)

    def above(t: int, first: int, second: int) -> bool:
        with mpmath.workdps(40):
            return bool(pmf(t - first) > mpmath.exp(mpmath.mpf(eps)) * pmf(t - second))

    return above


def _precise_gaps(
    cdf: Callable[[Any], Any], eps: float, ts: NDArray, us: NDArray, a: int, b: int
) -> tuple[NDArray, NDArray]:
    """``log(P(S) - e**eps Q(S))`` of the candidate half-lines, at 40 digits.

    Lower half-lines ``{m <= t}``: ``P(N <= t - a) - e**eps P(N <= t - b)``
    with ``P(N <= n) = F(n + 1/2)``; upper ones ``{m >= u}``: ``P(N >= u - b)
    - e**eps P(N >= u - a)`` with ``P(N >= n) = F(1/2 - n)`` (``Z`` is
    symmetric).  Non-positive gaps are ``-inf``.
    """
    import mpmath

    half = mpmath.mpf(1) / 2

    def log_gap(p: Any, q: Any) -> float:
        value = p - mpmath.exp(mpmath.mpf(eps)) * q
        return float(mpmath.log(value)) if value > 0 else -np.inf

    with mpmath.workdps(40):
        lower = [log_gap(cdf(int(t) - a + half), cdf(int(t) - b + half)) for t in ts]
        upper = [log_gap(cdf(half - int(u) + b), cdf(half - int(u) + a)) for u in us]
    return np.asarray(lower), np.asarray(upper)
