"""Exact coins from random bits, rounded so that a claimed epsilon holds.

Every probability a frequency oracle uses is a dyadic rational
``a / 2**COIN_BITS``; a coin is the integer comparison ``U < a`` of a
uniform integer ``U`` on ``[0, 2**COIN_BITS)`` (``Generator.integers`` on a
power-of-two range: exactly uniform), and every uniform choice among ``m``
values is ``Generator.integers(0, m)`` (exactly uniform, by rejection).  No
float is ever compared with a random draw.

The numerators are rounded in the direction that lowers the privacy loss,
and checked in 80-digit decimal arithmetic against ``exp`` of a target a
hair below the claimed epsilon (:data:`EPSILON_MARGIN`), so that the
realised loss never exceeds the claim, and a float computation of it (the
audit's) does not either.
"""

from __future__ import annotations

import math
from decimal import Decimal, localcontext

import numpy as np
from numpy.typing import NDArray

__all__ = [
    "COIN_BITS",
    "COIN_SCALE",
    "EPSILON_FLOOR",
    "EPSILON_MARGIN",
    "MIN_EPSILON",
    "coin_thresholds",
    "draw_coins",
    "keep_numerator",
    "log_prob",
    "unary_numerators",
]

#: Coins have probabilities ``a / 2**COIN_BITS``.
COIN_BITS = 62
COIN_SCALE = 1 << COIN_BITS
#: The realised loss is at most ``epsilon * (1 - EPSILON_MARGIN) - EPSILON_FLOOR``:
#: a float computation of it (the audit's, accurate to about 1e-15) stays
#: below the claim.
EPSILON_MARGIN = 1e-12
EPSILON_FLOOR = 1e-14
#: Smallest epsilon (per column) the coins are set up for.
MIN_EPSILON = 1e-9
_DIGITS = 80


#: Targets are capped here: 62-bit coins cannot realise a larger loss anyway
#: (their ratios stay below ``2**62`` times the number of outputs).
MAX_TARGET_EPSILON = 200.0


def _target(epsilon: float) -> Decimal:
    """``exp`` of the loss the rounding aims at (a hair below ``epsilon``)."""
    capped = min(float(epsilon), MAX_TARGET_EPSILON)
    margin = Decimal(capped) * Decimal(EPSILON_MARGIN) + Decimal(EPSILON_FLOOR)
    return (Decimal(capped) - margin).exp()


def keep_numerator(epsilon: float, n_other: int) -> int:
    """Largest ``a`` with ``a n_other / (2**COIN_BITS - a) <= e**epsilon``.

    The keep probability ``a / 2**COIN_BITS`` of randomized response over
    ``n_other + 1`` values: with the other values uniform, the ratio of the
    kept value's probability to another's is ``a n_other / (2**B - a)``.

    Parameters
    ----------
    epsilon : float
        Claimed loss, ``> 0``.
    n_other : int
        Number of values the report may move to, ``>= 1``.

    Returns
    -------
    int
    """
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        e = _target(epsilon)
        scale = Decimal(COIN_SCALE)
        a = int((scale * e / (e + n_other)).to_integral_value(rounding="ROUND_FLOOR"))
        a = min(max(a, 1), COIN_SCALE - 1)
        while a > 1 and Decimal(a * n_other) > (scale - a) * e:
            a -= 1
    return a


def unary_numerators(epsilon: float, symmetric: bool) -> tuple[int, int]:
    """Numerators ``(a, b)`` of the bit probabilities of unary encoding.

    The bit of the respondent's category is 1 with probability ``a / 2**B``
    and every other bit with probability ``b / 2**B``; the loss is
    ``log[a (2**B - b) / (b (2**B - a))]``.

    * symmetric (SUE): ``b = 2**B - a``, ``a`` the largest with
      ``(a / b)**2 <= e**epsilon``;
    * optimized (OUE): ``a = 2**(B - 1)`` (one half), ``b`` the smallest
      with ``(2**B - b) / b <= e**epsilon``.

    Parameters
    ----------
    epsilon : float
        Claimed loss, ``> 0``.
    symmetric : bool
        SUE (True) or OUE (False).

    Returns
    -------
    a, b : int
    """
    with localcontext() as ctx:
        ctx.prec = _DIGITS
        e = _target(epsilon)
        scale = Decimal(COIN_SCALE)
        if symmetric:
            half = e.sqrt()
            a = int(
                (scale * half / (half + 1)).to_integral_value(rounding="ROUND_FLOOR")
            )
            a = min(max(a, COIN_SCALE // 2), COIN_SCALE - 1)
            while a > COIN_SCALE // 2 and Decimal(a) ** 2 > (scale - a) ** 2 * e:
                a -= 1
            return a, COIN_SCALE - a
        b = int((scale / (e + 1)).to_integral_value(rounding="ROUND_CEILING"))
        b = min(max(b, 1), COIN_SCALE // 2)
        while b < COIN_SCALE // 2 and scale - b > b * e:
            b += 1
        return COIN_SCALE // 2, b


def log_prob(numerator: int) -> float:
    """``log(numerator / 2**COIN_BITS)`` (``-inf`` for 0)."""
    if numerator <= 0:
        return -math.inf
    # the quotient is exact up to one rounding of the numerator, so the log
    # is accurate to about 1e-16 (log(a) - 62 log 2 would lose 1e-14)
    return math.log(numerator / COIN_SCALE)


def coin_thresholds(numerators: NDArray) -> NDArray[np.int64]:
    """Numerators as int64 thresholds (each in ``[0, 2**COIN_BITS]``)."""
    return np.asarray(numerators, dtype=np.int64)


def draw_coins(
    rng: np.random.Generator, thresholds: NDArray[np.int64]
) -> NDArray[np.bool_]:
    """Coins ``U < a`` with ``U`` uniform on ``[0, 2**COIN_BITS)``, elementwise.

    Parameters
    ----------
    rng : numpy.random.Generator
        The release's generator.
    thresholds : ndarray of int64
        Numerators ``a`` (shape of the coins wanted).

    Returns
    -------
    ndarray of bool
        True with probability exactly ``a / 2**COIN_BITS``.
    """
    thresholds = np.asarray(thresholds, dtype=np.int64)
    u = rng.integers(0, COIN_SCALE, size=thresholds.shape, dtype=np.int64)
    return u < thresholds
