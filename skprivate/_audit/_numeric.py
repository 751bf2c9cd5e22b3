"""Log-space helpers of the exact audits: differences of probabilities, tails.

Probabilities of the audited laws range from 1 to far below the smallest
double (a release two noise scales beyond a clamp at ``epsilon = 100``), so
every quantity is carried as a logarithm and differences are formed as
``log(e**a - e**b) = a + log(1 - e**(b - a))`` without cancellation.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import special

__all__ = ["log1mexp", "log_upper_gamma", "logdiffexp"]

# Below this value of the regularized upper incomplete gamma function the
# continued fraction replaces scipy's gammaincc, whose result underflows.
_DIRECT_FLOOR = 1e-250
_FRACTION_TERMS = 400


def log1mexp(x: ArrayLike) -> NDArray[np.float64]:
    """``log(1 - e**x)`` for ``x <= 0``, accurate near 0 and far below it.

    Parameters
    ----------
    x : array-like
        Non-positive values (``-inf`` gives 0, 0 gives ``-inf``).

    Returns
    -------
    out : ndarray

    Examples
    --------
    >>> float(log1mexp(-1e-20))
    -46.051701859880914
    """
    x = np.asarray(x, dtype=float)
    with np.errstate(divide="ignore", invalid="ignore"):
        near = np.log(-np.expm1(x))
        far = np.log1p(-np.exp(x))
    return np.where(x > -np.log(2.0), near, far)


def logdiffexp(a: ArrayLike, b: ArrayLike) -> NDArray[np.float64]:
    """``log(e**a - e**b)`` for ``a >= b`` (``-inf`` when they are equal).

    Examples
    --------
    >>> float(logdiffexp(0.0, -1000.0))
    0.0
    """
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    with np.errstate(invalid="ignore"):
        gap = np.where(np.isneginf(b), -np.inf, b - a)
    return a + log1mexp(gap)


def log_upper_gamma(a: float, x: ArrayLike) -> NDArray[np.float64]:
    """``log Q(a, x)``, the regularized upper incomplete gamma function.

    scipy's ``gammaincc`` where it is above ``1e-250``; beyond, the
    continued fraction of ``Q`` (Legendre's, evaluated by the modified
    Lentz method) times ``e**-x x**a / Gamma(a)``, in log space, which
    holds for any ``x > a + 1`` however small ``Q`` is.

    Parameters
    ----------
    a : float
        Shape, ``a > 0``.
    x : array-like
        Points, ``x >= 0``.

    Returns
    -------
    out : ndarray

    Examples
    --------
    >>> round(float(log_upper_gamma(1.0, 5000.0)), 9)  # Q(1, x) = e**-x
    -5000.0
    """
    x = np.asarray(x, dtype=float)
    direct = np.atleast_1d(special.gammaincc(a, x))
    shape = x.shape
    x = np.atleast_1d(x)
    with np.errstate(divide="ignore"):
        out = np.log(direct)
    far = direct < _DIRECT_FLOOR
    if np.any(far):
        xf = x[far]
        tiny = 1e-300
        b = xf + 1.0 - a
        c = np.full_like(xf, 1.0 / tiny)
        d = 1.0 / b
        h = d.copy()
        for i in range(1, _FRACTION_TERMS):
            an = -i * (i - a)
            b = b + 2.0
            d = an * d + b
            d = np.where(np.abs(d) < tiny, tiny, d)
            c = b + an / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            d = 1.0 / d
            step = d * c
            h = h * step
            if np.all(np.abs(step - 1.0) < 1e-17):
                break
        out[far] = -xf + a * np.log(xf) - special.gammaln(a) + np.log(h)
    return out.reshape(shape)
