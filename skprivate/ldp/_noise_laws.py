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
]


class GeneralizedGaussianNoise:
    """``f(t) ∝ exp(-|t / scale| ** power)`` (Liu, 2018); power 1 is Laplace."""

    def __init__(self, scale: float, power: float) -> None:
        self.scale = float(scale)
        self.power = float(power)
        self._law = stats.gennorm(beta=self.power, scale=self.scale)

    def logpdf(self, t: NDArray) -> NDArray:
        return self._law.logpdf(t)

    def logcdf(self, t: NDArray) -> NDArray:
        return self._law.logcdf(t)

    def sample(self, size: tuple, rng: np.random.Generator) -> NDArray:
        # |Z / scale| ** power ~ Gamma(1 / power), with a random sign.
        g = rng.gamma(1.0 / self.power, 1.0, size=size)
        sign = np.where(rng.random(size) < 0.5, -1.0, 1.0)
        return sign * self.scale * g ** (1.0 / self.power)


class FlippedHuberNoise:
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
