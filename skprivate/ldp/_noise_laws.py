"""Noise laws of the comparison mechanisms and their privacy profiles.

An additive mechanism ``M(x) = x + Z`` with a symmetric log-concave noise
density ``f`` and sensitivity ``D`` (the width of the domain) is
``(epsilon, delta)``-DP exactly for
``delta(epsilon) = F(t*) - e^epsilon F(t* - D)``, where ``t*`` solves
``log f(t) - log f(t - D) = epsilon`` (the privacy-loss ratio decreases in
``t`` for log-concave noise), the "privacy profile" of the mechanism.
The grid samplers release a rounded, clamped version of it, whose exact
delta is the same objective maximised over a finite lattice
(:func:`grid_privacy_profile`).  Both are computed in log space, exact at
every budget the privatizers accept (``e**1000`` times ``e**-1000`` is no
underflow there).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special, stats

__all__ = [
    "FlippedHuberNoise",
    "GeneralizedGaussianNoise",
    "additive_privacy_profile",
    "grid_privacy_profile",
    "standard_exponential",
]

#: Below this cap numpy's exponential sampler returns, among others, every
#: value ``i * (r + 1) / 2**53`` (``r = 7.6971...``, the ziggurat's base
#: strip), a lattice of spacing below ``1e-15``: the tail samplers draw
#: their exponentials capped there.
FINE_EXPONENTIAL_CAP = 7.5
#: Largest resolution of a noise law's bulk sampler, in grid steps: below
#: ``tail_start`` consecutive values it can return lie at most ``2**-4``
#: grid steps apart, so every grid point is reachable.
BULK_RESOLUTION = 2.0**-4
#: Largest number of grid steps per noise scale the tail sampler resolves
#: (its values lie at most ``1e-15`` noise scales apart).
MAX_CELLS_PER_SCALE = 2.0**44
#: Relative rounding allowed for the logarithms of distribution functions
#: in the privacy profiles (16 units in the last place).
LOG_ROUNDING = 16 * 2.0**-52
#: Bernoulli(exp(-x)) coins are split into coins of probability at least
#: ``exp(-COIN_LOG)``, which a 53-bit uniform realises to ``6e-8``.
COIN_LOG = 20.0


def standard_exponential(rng: np.random.Generator, size, cap: float) -> NDArray:
    """Standard exponential draws with no largest value.

    numpy's ``standard_exponential`` cannot exceed ``r - log(2**-53) =
    44.43...`` (``r = 7.6971...`` is the start of its ziggurat tail, drawn
    as ``r - log(1 - U)`` from a 53-bit uniform ``U``), and above ``r`` its
    values are ``2**-53 e**(x - r)`` apart.  Here every draw above ``cap``
    is replaced by ``cap`` plus a fresh draw, again and again while the
    fresh draw exceeds ``cap``: by the memorylessness of the exponential
    law the result is still standard exponential, its values below ``cap``
    are numpy's own (bit for bit, with the same stream, as long as no draw
    exceeds ``cap``), and every value ``j * cap + e`` (``j >= 0``, ``e`` a
    value numpy returns below ``cap``) can occur.

    Parameters
    ----------
    rng : numpy.random.Generator
        Source of randomness.
    size : int or tuple of int
        Output shape.
    cap : float
        Largest value kept from a single draw, ``0 < cap < 44``.

    Returns
    -------
    draws : ndarray of shape ``size``

    Examples
    --------
    >>> import numpy as np
    >>> e = standard_exponential(np.random.default_rng(0), 5, cap=24.0)
    >>> bool(np.all(e >= 0))
    True
    """
    draws = rng.standard_exponential(size)
    flat = draws.reshape(-1)
    todo = np.flatnonzero(flat > cap)
    offset = np.full(todo.size, float(cap))
    while todo.size:
        fresh = rng.standard_exponential(todo.size)
        again = fresh > cap
        flat[todo[~again]] = offset[~again] + fresh[~again]
        todo, offset = todo[again], offset[again] + cap
    return draws


def _bernoulli_exp(rng: np.random.Generator, x: NDArray) -> NDArray:
    """Independent coins, True with probability ``exp(-x)`` (``x >= 0``).

    A coin is the conjunction of ``ceil(x / COIN_LOG)`` coins ``U < exp(-c)``
    with ``c <= COIN_LOG``; each is realised with probability
    ``ceil(exp(-c) 2**53) / 2**53``, so every finite ``x`` has a positive
    probability of acceptance, however small ``exp(-x)`` is in double
    precision.
    """
    rest = np.maximum(np.asarray(x, dtype=float), 0.0)
    accept = np.ones(rest.shape, dtype=bool)
    active = np.flatnonzero(rest > 0)
    while active.size:
        chunk = np.minimum(rest[active], COIN_LOG)
        accept[active] = rng.random(active.size) < np.exp(-chunk)
        rest[active] -= chunk
        active = active[accept[active] & (rest[active] > 0)]
    return accept


class _LogConcaveTail:
    """Redraw of the magnitudes beyond ``tail_start`` of a symmetric log-concave law.

    Subclasses sample the magnitude ``u = |Z| / scale`` (density
    ``exp(-rho(u))`` up to a constant, ``rho`` convex) with numpy's
    floating-point samplers, whose values are sparse or bounded far in the
    tail; every magnitude above ``tail_start`` is replaced by an independent
    draw from the law of ``u`` given ``u > tail_start``, which leaves the
    law of ``u`` unchanged.  That draw is ``T + E / c`` (``T =
    tail_start``, ``c = rho'(T)``, ``E`` a :func:`standard_exponential`
    capped at ``FINE_EXPONENTIAL_CAP``) accepted with probability
    ``exp(-(rho(u) - rho(T) - c (u - T)))`` (at most 1 by convexity),
    the exact rejection sampler of the tail with its tangent exponential
    envelope.
    """

    tail_start = np.inf

    def _rho(self, u: NDArray) -> NDArray:  # pragma: no cover - abstract
        raise NotImplementedError

    def _rho_slope(self, u: float) -> float:  # pragma: no cover - abstract
        raise NotImplementedError

    def set_resolution(self, cells_per_scale: float) -> None:
        """Set ``tail_start`` for a grid of ``cells_per_scale`` steps per scale."""
        if not cells_per_scale <= MAX_CELLS_PER_SCALE:
            raise ValueError(
                f"{cells_per_scale:.3g} grid steps per noise scale exceed the "
                f"{MAX_CELLS_PER_SCALE:.3g} the sampler resolves"
            )
        self.tail_start = float(self._fine_limit(cells_per_scale))

    def _tail(self, count: int, rng: np.random.Generator) -> NDArray:
        start = self.tail_start
        slope = float(self._rho_slope(start))
        base = float(self._rho(np.array(start)))
        out = np.empty(count)
        todo = np.arange(count)
        while todo.size:
            e = standard_exponential(rng, todo.size, FINE_EXPONENTIAL_CAP)
            u = start + e / slope
            excess = self._rho(u) - base - slope * (u - start)
            keep = _bernoulli_exp(rng, excess)
            out[todo[keep]] = u[keep]
            todo = todo[~keep]
        return out

    def _redraw_tail(self, mag: NDArray, rng: np.random.Generator) -> NDArray:
        far = mag > self.tail_start
        if far.any():
            mag[far] = self._tail(int(far.sum()), rng)
        return mag


class GeneralizedGaussianNoise(_LogConcaveTail):
    """``f(t) ∝ exp(-|t / scale| ** power)`` (Liu, 2018); power 1 is Laplace."""

    def __init__(self, scale: float, power: float) -> None:
        self.scale = float(scale)
        self.power = float(power)
        self._law = stats.gennorm(beta=self.power, scale=self.scale)
        self.set_resolution(2.0**21)

    def _rho(self, u: NDArray) -> NDArray:
        return u**self.power

    def _rho_slope(self, u: float) -> float:
        return self.power * u ** (self.power - 1.0)

    def _fine_limit(self, cells_per_scale: float) -> float:
        # numpy's gamma(a), a = 1 / power <= 1, returns u = g**a = U (a 53-bit
        # uniform) up to 1 - a and 1 - a + a Y beyond, Y = -log((1 - U) / a),
        # values 2**-53 e**Y apart; below u**power = 20 its acceptance step
        # (g <= V + Y, V exponential up to 44.4) passes every such value.
        a = 1.0 / self.power
        fine = 1.0 - a + a * np.log(BULK_RESOLUTION * 2.0**53 / cells_per_scale)
        return min(20.0**a, fine)

    def logpdf(self, t: NDArray) -> NDArray:
        return self._law.logpdf(t)

    def logcdf(self, t: NDArray) -> NDArray:
        # P(Z <= -|t|) = Q(1 / power, |t / scale| ** power) / 2, Q the
        # regularized upper incomplete gamma, taken in log space: scipy's
        # gennorm.logcdf is log(cdf) and is -inf once the cdf underflows.
        t = np.asarray(t, dtype=float)
        x = (np.abs(t) / self.scale) ** self.power
        low = np.log(0.5) + _log_upper_gamma(1.0 / self.power, x)
        with np.errstate(divide="ignore"):
            return np.where(t <= 0, low, np.log1p(-np.exp(low)))

    def sample(self, size: tuple, rng: np.random.Generator) -> NDArray:
        # |Z / scale| ** power ~ Gamma(1 / power), with a random sign.
        g = rng.gamma(1.0 / self.power, 1.0, size=size)
        sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
        mag = self._redraw_tail(g ** (1.0 / self.power), rng)
        return sign * self.scale * mag


class FlippedHuberNoise(_LogConcaveTail):
    """Laplace in the centre, Gaussian in the tails (Muthukrishnan & Kalyani, 2023).

    ``f(t) ∝ exp(-rho(t / scale))`` with ``rho(u) = |u|`` for ``|u| <=
    beta`` and ``rho(u) = (u**2 + beta**2) / (2 beta)`` beyond, the
    "flipped" Huber loss (continuous with a continuous derivative at
    ``beta``), where ``beta = threshold / scale``.
    """

    def __init__(self, scale: float, threshold: float) -> None:
        self.scale = float(scale)
        self.beta = float(threshold) / self.scale
        beta = self.beta
        self._centre = 2.0 * (-np.expm1(-beta))
        self._log_tail = (
            -beta / 2
            + 0.5 * np.log(2 * np.pi * beta)
            + special.log_ndtr(-np.sqrt(beta))
        )
        self._log_norm = np.logaddexp(
            np.log(self._centre), np.log(2.0) + self._log_tail
        )
        self.set_resolution(2.0**21)

    def _rho_slope(self, u: float) -> float:
        return max(1.0, u / self.beta)

    def _fine_limit(self, cells_per_scale: float) -> float:
        # Centre: u = -log(1 - v (1 - e**-beta)), values 2**-53 e**u apart.
        log_fine = np.log(BULK_RESOLUTION * 2.0**53 / cells_per_scale)
        if log_fine < self.beta:
            return float(log_fine)
        # Tail: u = sqrt(beta) z with Phi(-z) = v Phi(-sqrt(beta)), values
        # sqrt(beta) 2**-53 Phi(-sqrt(beta)) / phi(z) apart.
        root = np.sqrt(self.beta)
        z2 = 2.0 * (
            log_fine - 0.5 * np.log(2.0 * np.pi * self.beta) - special.log_ndtr(-root)
        )
        return float(max(self.beta, root * np.sqrt(max(z2, 0.0))))

    def _rho(self, u: NDArray) -> NDArray:
        au = np.abs(u)
        return np.where(au <= self.beta, au, (u**2 + self.beta**2) / (2 * self.beta))

    def logpdf(self, t: NDArray) -> NDArray:
        u = np.asarray(t, dtype=float) / self.scale
        return -self._rho(u) - self._log_norm - np.log(self.scale)

    def _logcdf_negative(self, u: NDArray) -> NDArray:
        beta = self.beta
        tail = (
            -beta / 2
            + 0.5 * np.log(2 * np.pi * beta)
            + special.log_ndtr(u / np.sqrt(beta))
        )
        # log(e**u - e**-beta) = u + log(1 - e**-(beta + u)): exact where
        # e**u underflows (u < -745, epsilon per column in the hundreds).
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            centre = u + np.log(-np.expm1(-(beta + u)))
            mid = np.logaddexp(self._log_tail, centre)
        return np.where(u <= -beta, tail, mid) - self._log_norm

    def logcdf(self, t: NDArray) -> NDArray:
        u = np.asarray(t, dtype=float) / self.scale
        neg = self._logcdf_negative(-np.abs(u))
        return np.where(u <= 0, neg, np.log1p(-np.exp(neg)))

    def sample(self, size: tuple, rng: np.random.Generator) -> NDArray:
        beta = self.beta
        p_centre = float(np.exp(np.log(self._centre) - self._log_norm))
        centre = rng.random(size) < p_centre
        v = rng.random(size)
        lap = -np.log1p(-v * (-np.expm1(-beta)))
        tail = -np.sqrt(beta) * special.ndtri(
            np.maximum(v, 1e-300) * special.ndtr(-np.sqrt(beta))
        )
        mag = np.where(centre, lap, tail)
        sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
        mag = self._redraw_tail(mag, rng)
        return sign * self.scale * mag


def _log_upper_gamma(a: float, x: NDArray) -> NDArray:
    """``log Q(a, x)``, the regularized upper incomplete gamma, for ``0 < a <= 1``.

    ``scipy.special.gammaincc`` where it is above ``1e-280``; beyond, its
    asymptotic series ``Q(a, x) = x**(a-1) e**-x / Gamma(a) * (1 + (a-1)/x
    + (a-1)(a-2)/x**2 + ...)``, alternating and taken to 16 terms, whose
    error is below the first term left out (``16! / x**16 < 1e-30`` for the
    ``x > 600`` it serves).
    """
    x = np.asarray(x, dtype=float)
    q = special.gammaincc(a, x)
    far = q < 1e-280
    if not np.any(far):
        with np.errstate(divide="ignore"):
            return np.log(q)
    xf = np.where(far, x, 1.0e3)
    term = np.ones_like(xf)
    series = np.ones_like(xf)
    for k in range(1, 17):
        term = term * (a - k) / xf
        series = series + term
    tail = (a - 1.0) * np.log(xf) - xf - special.gammaln(a) + np.log(series)
    with np.errstate(divide="ignore"):
        return np.where(far, tail, np.log(np.where(far, 1.0, q)))


def _loss(noise, D: float, t: NDArray) -> NDArray:
    """Privacy loss ``log f(t) - log f(t - D)`` of the shift by ``D``."""
    t = np.asarray(t, dtype=float)
    return noise.logpdf(t) - noise.logpdf(t - D)


def _hockey_stick(noise, D: float, epsilon: float, t: NDArray) -> NDArray:
    """``F(t) - e**epsilon F(t - D)``, clipped at 0, computed in log space.

    With ``a = log F(t)`` and ``b = epsilon + log F(t - D)`` the value is
    ``e**a (1 - e**(b - a)) = -e**a expm1(b - a)``: no term underflows (a
    ``F(t - D)`` of ``e**-1000`` times ``e**1000`` is fine), and the only
    rounding is that of ``b - a`` (a few units in the last place of
    ``max(|a|, |b|)`` and of ``t`` times the slopes of ``log F``), relative
    to ``a - b >= delta / F(t)``; ``b - a`` is lowered by a bound on it,
    so the value is an upper bound of the exact one (above it by that
    bound over ``a - b``, ``1e-10`` relative or less at moderate budgets).
    """
    t = np.asarray(t, dtype=float)
    a = noise.logcdf(t)
    log_q = noise.logcdf(t - D)
    b = epsilon + log_q
    # b - a carries the rounding of the two logarithms (a few units in the
    # last place of their size) and of their arguments (``|t|`` times the
    # slope ``f / F`` of ``log F``): widen it by LOG_ROUNDING of both, so
    # that the value returned is never below the exact one.
    with np.errstate(over="ignore", invalid="ignore"):
        slopes = np.abs(t) * np.exp(noise.logpdf(t) - a) + np.abs(t - D) * np.exp(
            noise.logpdf(t - D) - log_q
        )
    slack = LOG_ROUNDING * (np.abs(a) + np.abs(b) + 1.0 + np.nan_to_num(slopes))
    with np.errstate(invalid="ignore", over="ignore"):
        value = -np.exp(a) * np.expm1(np.minimum(b - a - slack, 0.0))
    return np.where(np.isfinite(a), value, 0.0)


def additive_privacy_profile(noise, sensitivity: float, epsilon: float) -> float:
    """Smallest ``delta`` with ``x + Z`` ``(epsilon, delta)``-DP for ``|x - x'| <= D``.

    The hockey-stick divergence of the continuous mechanism: ``sup_t F(t) -
    e**epsilon F(t - D)``, reached where the privacy loss ``log f(t) -
    log f(t - D)`` (non-increasing for log-concave noise) crosses
    ``epsilon``; the difference is taken in log space (see
    :func:`grid_privacy_profile` for the law the grid samplers release).

    Parameters
    ----------
    noise : GeneralizedGaussianNoise or FlippedHuberNoise
        Symmetric log-concave noise law.
    sensitivity : float
        Largest change ``D`` of the input.
    epsilon : float
        Privacy-loss level.

    Returns
    -------
    delta : float

    Examples
    --------
    >>> law = GeneralizedGaussianNoise(scale=1.0, power=1.0)  # Laplace
    >>> additive_privacy_profile(law, sensitivity=1.0, epsilon=1.0)
    0.0
    """
    D = float(sensitivity)

    def gap(t: float) -> float:
        return float(_loss(noise, D, t)) - epsilon

    # The loss is 0 at t = D / 2 and tends to its supremum as t -> -inf.
    # The search stops 1e6 scales out, or at the largest double (where the
    # doubling would reach -inf and never pass a limit beyond it).
    with np.errstate(over="ignore"):
        limit = max(-1e6 * (D + noise.scale), -np.finfo(float).max)
    left = -D
    while not gap(left) > 0:
        left *= 2.0
        if left < limit or not np.isfinite(left):
            left = max(left, -np.finfo(float).max)
            # the loss stays below epsilon this far out: delta <= F(left),
            # zero in double precision (exactly zero for Laplace noise)
            return float(np.exp(noise.logcdf(np.array(left))))
    t_star = optimize.brentq(gap, left, D / 2, xtol=1e-12 * D)
    return float(_hockey_stick(noise, D, epsilon, np.array(t_star)))


def grid_privacy_profile(
    noise, sensitivity: float, epsilon: float, n_cells: int, margin: int
) -> float:
    """Exact ``delta`` at ``epsilon`` of the grid sampler's released law.

    The grid sampler releases ``clip(k + rint(Z / g), -M, n + M)`` for an
    input index ``k`` in ``0 .. n`` (``g = D / n``).  Its distribution
    function below ``n + M`` is ``P(k + N <= j) = F((j - k + 1/2) g)`` (the
    clamps only move mass onto the end atoms), and its likelihood ratio
    between two inputs is monotone in ``j`` (``N`` is log-concave, and an
    end atom's ratio is an average of the ratios beyond it), so the
    hockey-stick divergence of ``k`` against ``k'`` is a maximum over the
    lower sets ``{j' <= j}``.  The pair of extreme inputs dominates every
    other, so ::

        delta = max over j in [-M, n + M - 1] of
                F(t_j) - e**epsilon F(t_j - D),   t_j = (j + 1/2) g,

    the continuous profile's objective restricted to a finite lattice.  The
    objective rises while the privacy loss at ``t_j`` exceeds ``epsilon``
    and falls after: a bisection over ``j`` finds the last lattice point
    where it rises, and the maximum is there or at the next point (at
    ``j = -M`` when the loss is below ``epsilon`` from the lower clamp on).

    Parameters
    ----------
    noise : GeneralizedGaussianNoise or FlippedHuberNoise
        Symmetric log-concave noise law.
    sensitivity : float
        Width ``D`` of the domain; the step is ``D / n_cells``.
    epsilon : float
        Privacy-loss level.
    n_cells : int
        Grid steps ``n`` across the domain.
    margin : int
        Clamp ``M`` in steps beyond either end.

    Returns
    -------
    delta : float
        Never above :func:`additive_privacy_profile` at the same
        arguments (the grid law is a post-processing of the continuous
        mechanism).

    Examples
    --------
    >>> law = GeneralizedGaussianNoise(scale=2.0, power=2.0)
    >>> grid = grid_privacy_profile(law, 1.0, 1.0, n_cells=8, margin=64)
    >>> 0 < grid <= additive_privacy_profile(law, 1.0, 1.0)
    True
    """
    D = float(sensitivity)
    n, M = int(n_cells), int(margin)
    step = D / n

    def rises(j: int) -> bool:
        return bool(_loss(noise, D, (j + 0.5) * step) > epsilon)

    lo, hi = -M, n + M - 1
    if not rises(lo):
        candidates = [lo]
    else:
        # invariant: rises(lo), not rises(hi) (the loss is <= 0 beyond D / 2)
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if rises(mid):
                lo = mid
            else:
                hi = mid
        candidates = [lo, hi]
    t = (np.asarray(candidates, dtype=float) + 0.5) * step
    return float(np.max(_hockey_stick(noise, D, epsilon, t)))
