"""Global sensitivities of the clamped moment statistics, one place.

The central-DP release (:mod:`._dp`) adds Laplace noise of scale ``Δ/ε``
to each moment computed from values clamped into public bounds
``[L, U]``, and the intervals of that release (:mod:`._intervals`) undo
exactly that noise; both read the scale here, so the two can never
disagree.  Neighbouring data sets differ in one record, replaced
(``U - L`` moves the clamped sum) or added and removed (``max(|L|, |U|)``
moves it); the sum's sensitivity covers both.
"""

from __future__ import annotations

import numpy as np

__all__ = ["MOMENT_STATISTICS", "global_scale", "sum_sensitivity"]

# Statistics with a global sensitivity from the bounds and n alone.
MOMENT_STATISTICS = ("count", "sum", "mean", "var", "std")


def sum_sensitivity(lo: float, hi: float) -> float:
    """Largest change of a sum of values clamped into ``[lo, hi]``.

    A replaced record moves it by up to ``hi - lo`` (15 for ``[-5, 10]``,
    where ``max(|lo|, |hi|) = 10`` would understate it); an added or removed
    one by up to ``max(|lo|, |hi|)`` (10 for ``[2, 10]``, above
    ``hi - lo = 8``).

    Examples
    --------
    >>> from skprivate.integral._sensitivity import sum_sensitivity
    >>> sum_sensitivity(-5.0, 10.0), sum_sensitivity(2.0, 10.0)
    (15.0, 10.0)
    """
    return max(hi - lo, abs(lo), abs(hi))


def global_scale(
    statistic: str, n: float, epsilon: float, lo: float, hi: float
) -> float:
    """Laplace scale ``Δ/ε`` of a moment of ``n`` values clamped into ``[lo, hi]``.

    With every value in ``[L, U]`` and ``S = Σ (x_i - mean)²``, removing
    record ``n`` gives ``S = S' + (n-1)/n (x_n - m')²`` (``S'``, ``m'`` of
    the other records), so replacing it changes ``S`` by at most
    ``(n-1)/n (U - L)²``: the sample variance ``S / (n - 1)`` moves by at
    most ``(U - L)² / n``.  ``sqrt(S' + c t²)`` is ``sqrt(c)``-Lipschitz in
    ``t``, so ``sqrt(S)`` moves by at most ``sqrt((n-1)/n) (U - L)`` and the
    sample SD ``sqrt(S / (n - 1))`` by at most ``(U - L) / sqrt(n)``.

    Examples
    --------
    >>> from skprivate.integral._sensitivity import global_scale
    >>> global_scale("mean", 4, 0.5, -2.0, 4.0)
    3.0
    """
    if statistic == "count":
        return 1.0 / epsilon
    if statistic == "sum":
        return sum_sensitivity(lo, hi) / epsilon
    if statistic == "mean":
        return (hi - lo) / (n * epsilon)
    if statistic == "var":
        return (hi - lo) ** 2 / (n * epsilon)
    if statistic == "std":
        return (hi - lo) / (np.sqrt(n) * epsilon)
    raise ValueError(f"no Laplace scale for statistic {statistic!r}.")
