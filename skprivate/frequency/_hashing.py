"""The universal hash family of local hashing, with a public seed per report.

Carter and Wegman's family on a prime ``P >= max(k, g)``: the seed
``s in [0, (P - 1) P)`` names ``a = 1 + s // P`` and ``b = s % P``, and

    h_s(x) = ((a x + b) mod P) mod g.

A respondent draws ``s`` uniformly (exactly: ``Generator.integers``) and
reports it with the randomized hash value; the seed is public, part of the
release, and says nothing about the value.  For two categories
``x != x'`` below ``P`` the map ``(a, b) -> (a x + b, a x' + b) mod P`` is a
bijection onto the pairs of distinct residues, so the collision
probability of the family is the same for every pair::

    c = sum_t n_t (n_t - 1) / (P (P - 1)),   n_t = #{r < P : r mod g = t},

at most ``1 / g`` (the family is universal).  The estimators use this
exact ``c``, so they are unbiased for this family, not only for an ideal
random hash.
"""

from __future__ import annotations

from fractions import Fraction

import numpy as np
from numpy.typing import NDArray

__all__ = ["collision_probability", "hash_prime", "hash_values", "n_seeds"]

#: Largest number of categories local hashing accepts (``a x`` stays exact).
MAX_CATEGORIES = 1 << 24


def _is_prime(n: int) -> bool:
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    f = 3
    while f * f <= n:
        if n % f == 0:
            return False
        f += 2
    return True


def hash_prime(n_categories: int, n_buckets: int) -> int:
    """The smallest prime ``P >= max(n_categories, n_buckets, 3)``.

    Parameters
    ----------
    n_categories, n_buckets : int
        ``k`` and ``g``.

    Returns
    -------
    int
    """
    p = max(int(n_categories), int(n_buckets), 3)
    while not _is_prime(p):
        p += 1
    return p


def n_seeds(prime: int) -> int:
    """Size ``(P - 1) P`` of the seed space."""
    return (prime - 1) * prime


def hash_values(
    seeds: NDArray[np.int64], codes: NDArray[np.int64], prime: int, n_buckets: int
) -> NDArray[np.int64]:
    """``h_s(x)`` elementwise (broadcasting ``seeds`` against ``codes``).

    Parameters
    ----------
    seeds : ndarray of int64
        Seeds in ``[0, (P - 1) P)``.
    codes : ndarray of int64
        Category codes in ``[0, P)``.
    prime : int
        ``P``.
    n_buckets : int
        ``g``.

    Returns
    -------
    ndarray of int64
    """
    seeds = np.asarray(seeds, dtype=np.int64)
    a = 1 + seeds // prime
    b = seeds % prime
    return ((a * np.asarray(codes, dtype=np.int64) + b) % prime) % n_buckets


def collision_probability(prime: int, n_buckets: int) -> Fraction:
    """Exact ``P_s[h_s(x) = h_s(x')]`` for ``x != x'`` (the same for every pair).

    Parameters
    ----------
    prime : int
        ``P``.
    n_buckets : int
        ``g``.

    Returns
    -------
    fractions.Fraction
    """
    full, rest = divmod(prime, n_buckets)
    sizes = [full + 1] * rest + [full] * (n_buckets - rest)
    pairs = sum(n * (n - 1) for n in sizes)
    return Fraction(pairs, prime * (prime - 1))
