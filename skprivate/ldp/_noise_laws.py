"""Noise laws of the comparison mechanisms and their privacy profiles.

An additive mechanism ``M(x) = x + Z`` with a symmetric log-concave noise
density ``f`` and sensitivity ``D`` (the width of the domain) is
``(epsilon, delta)``-DP exactly for
``delta(epsilon) = F(t*) - e^epsilon F(t* - D)``, where ``t*`` solves
``log f(t) - log f(t - D) = epsilon`` (the privacy-loss ratio decreases in
``t`` for log-concave noise), the "privacy profile" of the mechanism.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from scipy import optimize, special, stats

__all__ = [
    "FlippedHuberNoise",
    "GeneralizedGaussianNoise",
    "additive_privacy_profile",
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
        return self._law.logcdf(t)

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
        with np.errstate(divide="ignore", invalid="ignore"):
            mid = np.logaddexp(
                self._log_tail, np.log(np.maximum(np.exp(u) - np.exp(-beta), 1e-300))
            )
        return np.where(u <= -beta, tail, mid) - self._log_norm

    def logcdf(self, t: NDArray) -> NDArray:
        u = np.asarray(t, dtype=float) / self.scale
        neg = self._logcdf_negative(-np.abs(u))
        upper = np.log1p(-np.minimum(np.exp(neg), 1.0 - 1e-300))
        return np.where(u <= 0, neg, upper)

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


def additive_privacy_profile(noise, sensitivity: float, epsilon: float) -> float:
    """Smallest ``delta`` with ``x + Z`` ``(epsilon, delta)``-DP for ``|x - x'| <= D``.

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
    """
    D = float(sensitivity)

    def loss(t: float) -> float:
        return float(noise.logpdf(np.array(t)) - noise.logpdf(np.array(t - D)))

    # The loss decreases in t, is 0 at t = D / 2 and tends to its sup as t -> -inf.
    left = -D
    while loss(left) <= epsilon:
        left *= 2.0
        if left < -1e6 * (D + noise.scale):
            return 0.0
    t_star = optimize.brentq(lambda t: loss(t) - epsilon, left, D / 2, xtol=1e-12 * D)
    log_a = float(noise.logcdf(np.array(t_star)))
    log_b = float(noise.logcdf(np.array(t_star - D))) + epsilon
    return float(max(np.exp(log_a) - np.exp(log_b), 0.0))
