"""Exact output laws of the grid samplers, for :func:`skprivate.audit`.

Each function reads a fitted privatizer and describes, in grid steps, the
law its ``secure=True`` sampler implements (the class Notes derive them):

* :class:`~skprivate.LaplaceLDP`: ``clip(k + rint(L), k_lo - M, k_hi + M)``
  with ``k = clip(rint(x / g), k_lo, k_hi)`` and ``L`` Laplace of scale
  ``scale_ / g`` steps (the factor the sampler multiplies by);
* the additive privatizers: ``clip(k + rint(Z / g), -M, n + M)`` with
  ``k = clip(rint((x - a) / g), 0, n)``;
* :class:`~skprivate.ldp.SquareWaveLDP`: the band law with the far
  probability its coin realises, ``ceil(p 2**53) / 2**53`` for the rounded
  ``p`` it stores (a 53-bit uniform below ``p``).

The input range is the set of indices the bounds reach after rounding (the
index of ``low`` and of ``high``), not the whole clamp-free grid.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
from scipy import special

from .._audit import BandLaw, NoExactLaw, RoundedNoise, ShiftLaw, log_upper_gamma
from .._audit._numeric import log1mexp

__all__ = [
    "additive_exact_law",
    "laplace_exact_law",
    "square_wave_exact_law",
]

_CONTINUOUS = (
    "secure=False draws floating-point noise: the rounding of its outputs "
    "depends on the input, so it has no exact law on a common output set and "
    "is not floating-point safe"
)


def _labels(low: float, high: float, a: int, b: int, origin: float, step: float):
    def input_label(k: int) -> float:
        return low if k == a else high if k == b else origin + k * step

    def output_label(m: int) -> float:
        return origin + m * step

    return input_label, output_label


def laplace_exact_law(model: Any, j: int) -> ShiftLaw | NoExactLaw:
    """Law of column ``j`` of a fitted :class:`~skprivate.LaplaceLDP`."""
    if not model.secure:
        return NoExactLaw(_CONTINUOUS)
    step = float(model.grid_step_[j])
    k_lo, k_hi = int(model._k_low[j]), int(model._k_high[j])
    margin = int(model._margin[j])
    low, high = float(model.bounds_[0][j]), float(model.bounds_[1][j])
    a = int(np.clip(np.rint(low / step), k_lo, k_hi))
    b = int(np.clip(np.rint(high / step), k_lo, k_hi))
    s = float((model.scale_ / model.grid_step_)[j])  # as the sampler computes it

    def log_cdf_negative(t):
        return np.log(0.5) + np.asarray(t, dtype=float) / s

    def log_ratio_negative(t1, t2):
        return (np.asarray(t1, dtype=float) - np.asarray(t2, dtype=float)) / s

    text = f"rounded Laplace of scale {s:.6g} steps"
    noise = RoundedNoise(log_cdf_negative, text, log_ratio_negative)
    inp, out = _labels(low, high, a, b, 0.0, step)
    return ShiftLaw(a, b, k_lo - margin, k_hi + margin, noise, inp, out)


def _generalized_gaussian_log_cdf(law: Any, step: float):
    sigma = float(law.scale) / step
    power = float(law.power)

    def log_cdf_negative(t):
        u = np.abs(np.asarray(t, dtype=float)) / sigma
        return np.log(0.5) + log_upper_gamma(1.0 / power, u**power)

    return log_cdf_negative


def _generalized_gaussian_cdf_precise(law: Any, step: float):
    """``P(Z <= t)`` at the working precision of ``mpmath`` (``t`` in steps)."""
    import mpmath

    with mpmath.workdps(40):  # the quotient of the two floats, not its rounding
        sigma = mpmath.mpf(float(law.scale)) / mpmath.mpf(step)
    power = mpmath.mpf(float(law.power))

    def cdf(t):
        half_tail = (
            mpmath.gammainc(
                1 / power, (abs(t) / sigma) ** power, mpmath.inf, regularized=True
            )
            / 2
        )
        return half_tail if t <= 0 else 1 - half_tail

    return cdf


def _flipped_huber_cdf_precise(law: Any, step: float):
    """``P(Z <= t)`` at the working precision of ``mpmath`` (``t`` in steps).

    The density is ``exp(-rho(u))`` up to its normalization, ``u = t /
    unit``: ``|u|`` for ``|u| <= beta`` and ``(u**2 + beta**2) / (2 beta)``
    beyond; its mass below ``-beta`` is ``e**(-beta/2) sqrt(2 pi beta)
    Phi(u / sqrt(beta))`` and between ``-beta`` and ``u <= 0`` it is
    ``e**u - e**-beta``.
    """
    import mpmath

    # The quotient of the two floats at 40 digits: delta, a difference of
    # probabilities near 1/2, moves by 1e-7 relative with a 1e-16 change of
    # the scale.
    with mpmath.workdps(40):
        unit = mpmath.mpf(float(law.scale)) / mpmath.mpf(step)
    beta = mpmath.mpf(float(law.beta))

    def gauss(u):
        return (
            mpmath.exp(-beta / 2)
            * mpmath.sqrt(2 * mpmath.pi * beta)
            * mpmath.ncdf(u / mpmath.sqrt(beta))
        )

    def below(u):  # unnormalized mass below u <= 0
        if u <= -beta:
            return gauss(u)
        return gauss(-beta) + mpmath.exp(u) - mpmath.exp(-beta)

    def cdf(t):
        norm = 2 * below(mpmath.mpf(0))
        u = t / unit
        return below(u) / norm if u <= 0 else 1 - below(-u) / norm

    return cdf


def _flipped_huber_log_cdf(law: Any, step: float):
    unit = float(law.scale) / step  # noise scale in grid steps
    beta = float(law.beta)
    log_tail = (
        -beta / 2 + 0.5 * np.log(2 * np.pi * beta) + special.log_ndtr(-np.sqrt(beta))
    )
    log_centre = np.log(2.0) + log1mexp(-beta)
    log_norm = np.logaddexp(log_centre, np.log(2.0) + log_tail)

    def log_cdf_negative(t):
        u = -np.abs(np.asarray(t, dtype=float)) / unit
        gauss = (
            -beta / 2
            + 0.5 * np.log(2 * np.pi * beta)
            + special.log_ndtr(u / np.sqrt(beta))
        )
        with np.errstate(invalid="ignore"):
            middle = np.logaddexp(log_tail, u + log1mexp(np.minimum(-beta - u, 0.0)))
        return np.where(u <= -beta, gauss, middle) - log_norm

    return log_cdf_negative


def additive_exact_law(model: Any, j: int) -> ShiftLaw | NoExactLaw:
    """Law of column ``j`` of a fitted generalized Gaussian or flipped Huber model."""
    if not model.secure:
        return NoExactLaw(_CONTINUOUS)
    law = model.noise_[j]
    step = float(model.grid_step_[j])
    n, margin = int(model._n_cells[j]), int(model._margin[j])
    low, high = float(model.bounds_[0][j]), float(model.bounds_[1][j])
    if hasattr(law, "power"):
        log_cdf = _generalized_gaussian_log_cdf(law, step)
        precise = _generalized_gaussian_cdf_precise(law, step)
        text = f"rounded generalized Gaussian (power {law.power:g})"
    else:
        log_cdf = _flipped_huber_log_cdf(law, step)
        precise = _flipped_huber_cdf_precise(law, step)
        text = "rounded flipped Huber"
    inp, out = _labels(low, high, 0, n, low, step)
    noise = RoundedNoise(log_cdf, text, cdf_precise=precise)
    return ShiftLaw(0, n, -margin, n + margin, noise, inp, out)


def square_wave_exact_law(model: Any, j: int) -> BandLaw | NoExactLaw:
    """Law of column ``j`` of a fitted :class:`~skprivate.ldp.SquareWaveLDP`."""
    if not model.secure:
        return NoExactLaw(_CONTINUOUS)
    n, half = int(model._n_cells), int(model._half_cells)
    # the coin rng.random() < p of a 53-bit uniform is true with ceil(p 2**53) / 2**53
    realised = math.ceil(float(model._p_far) * 2.0**53)
    log_far_total = math.log(realised) - 53 * math.log(2.0)
    log_near_total = math.log1p(-realised / 2.0**53)
    log_far = log_far_total - math.log(n)
    log_ratio = log_near_total - math.log(2 * half + 1) - log_far
    low, high = float(model.bounds_[0][j]), float(model.bounds_[1][j])
    step = float(model.grid_step_[j])
    inp, out = _labels(low, high, 0, n, low, step)
    return BandLaw(n, half, log_far, log_ratio, inp, out)
