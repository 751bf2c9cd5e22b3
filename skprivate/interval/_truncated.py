"""Truncated moments of the Gaussian and logistic noise families.

``m(a, b) = E[e | a < e <= b]`` and ``E[e**2 | a < e <= b]`` for standard
noise ``e`` (scale 1), vectorized and stable in the tails: the Gaussian forms
use ``log_ndtr`` ratios, the logistic ones are evaluated after rescaling by
``exp(-min(b, 0))`` so that deep-tail cells do not underflow to ``0 / 0``.
Both families are symmetric, so an interval lying mostly in the upper tail is
reflected, ``m(a, b) = -m(-b, -a)``, and only the lower-tail case is coded.
"""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import NDArray
from scipy.special import log_ndtr

from ..utils.validation import check_float_array

__all__ = [
    "interval_log_likelihood",
    "log_interval_prob",
    "truncated_mean",
    "truncated_second_moment",
]

_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
_LOGISTIC_VARIANCE = np.pi**2 / 3.0


def _reflect(a: NDArray, b: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """Reflect rows with ``a + b > 0`` so that every cell has ``a + b <= 0``."""
    with np.errstate(invalid="ignore"):
        flip = (a + b) > 0
    a2 = np.where(flip, -b, a)
    b2 = np.where(flip, -a, b)
    return a2, b2, flip


def _log_phi(t: NDArray) -> NDArray:
    return -0.5 * t * t - _LOG_SQRT_2PI


# Below this, log_phi(t) and log_ndtr(t) exceed 5e7 in magnitude and their
# difference loses digits: the Mills ratio comes from its asymptotic series.
_DEEP = -1e4


def _mills(b: NDArray, log_cdf: NDArray | None = None) -> NDArray:
    """``phi(b) / Phi(b)``, accurate far into the lower tail.

    ``log_cdf`` is ``log_ndtr(b)`` when the caller has it already.
    """
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        if log_cdf is None:
            log_cdf = log_ndtr(b)
        direct = np.exp(_log_phi(b) - log_cdf)
        deep = b < _DEEP
        if not deep.any():
            return direct
        x = -np.minimum(b, _DEEP)
        series = x + 1.0 / x - 2.0 / x**3
    return np.where(deep, series, direct)


def _log_cdf_ratio(a: NDArray, b: NDArray) -> NDArray:
    """``log Phi(a) - log Phi(b)`` for ``a <= b``, accurate in the lower tail.

    ``log Phi(t) = log phi(t) - log(phi(t) / Phi(t))``, and the difference
    of the ``log phi`` is ``-(a - b)(a + b) / 2``, free of cancellation.
    """
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        direct = log_ndtr(a) - log_ndtr(b)
        deep = -0.5 * (a - b) * (a + b) - np.log(_mills(a) / _mills(b))
    return np.where(b < _DEEP, deep, direct)


def _gauss_mean(a: NDArray, b: NDArray) -> NDArray:
    a, b, flip = _reflect(a, b)
    whole = np.isneginf(a) & np.isposinf(b)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        ratio_b = _mills(b)
        num = np.expm1(0.5 * (b - a) * (b + a))
        den = np.expm1(_log_cdf_ratio(a, b))
        m = -ratio_b * num / den
    m = np.where(whole, 0.0, m)
    return np.where(flip, -m, m)


def _gauss_second(a: NDArray, b: NDArray) -> NDArray:
    # E[e^2 | a < e <= b] = 1 + (a phi(a) - b phi(b)) / (Phi(b) - Phi(a)); even in
    # the reflection, so no sign change is needed.
    a, b, _ = _reflect(a, b)
    whole = np.isneginf(a) & np.isposinf(b)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        ratio_b = _mills(b)
        scale = -np.expm1(_log_cdf_ratio(a, b))  # (Phi(b) - Phi(a)) / Phi(b)
        # phi(a) / Phi(b) = (phi(b) / Phi(b)) exp(-(a - b)(a + b) / 2)
        term_a = np.where(
            np.isfinite(a), a * ratio_b * np.exp(-0.5 * (a - b) * (a + b)), 0.0
        )
        term_b = np.where(np.isfinite(b), b * ratio_b, 0.0)
        out = 1.0 + (term_a - term_b) / scale
    return np.where(whole, 1.0, out)


def _gauss_moments(a: NDArray, b: NDArray, log_prob: bool = False):
    """``E[e | cell]`` and ``E[e² | cell]`` from one pair of ``log_ndtr`` calls.

    After reflection every half-line cell is ``(-inf, b]``, whose moments
    need only ``log_ndtr(b)``: ``m = -φ(b)/Φ(b)``, ``E[e²] = 1 - b φ(b)/Φ(b)``
    (Case-I reports are all of this kind); the other cells use the general
    forms of :func:`_gauss_mean` and :func:`_gauss_second`.
    """
    a, b, flip = _reflect(a, b)
    half = np.isneginf(a) & np.isfinite(b)
    if half.all():
        # Only half-lines (Case-I reports): the terms below without the
        # selection of their rows.
        with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
            lp = log_ndtr(b)
            ratio = _mills(b, lp)
            m2 = 1.0 - b * ratio
        m = np.negative(ratio, out=ratio)
        np.negative(m, out=m, where=flip)
        return (m, m2, lp) if log_prob else (m, m2)
    m = np.zeros(a.shape)
    m2 = np.ones(a.shape)
    lp = np.zeros(a.shape) if log_prob else None
    both = np.isfinite(a) & np.isfinite(b)
    with np.errstate(invalid="ignore", over="ignore", divide="ignore"):
        bh = b[half]
        ln_bh = log_ndtr(bh)
        ratio = _mills(bh, ln_bh)
        if log_prob:
            lp[half] = ln_bh
        m[half] = -ratio
        m2[half] = 1.0 - bh * ratio
        ab, bb = a[both], b[both]
        ln_b = log_ndtr(bb)
        den = np.expm1(_log_cdf_ratio(ab, bb))  # -(Phi(b) - Phi(a)) / Phi(b)
        ratio_b = _mills(bb, ln_b)
        m[both] = -ratio_b * np.expm1(0.5 * (bb - ab) * (bb + ab)) / den
        term_a = ab * ratio_b * np.exp(-0.5 * (ab - bb) * (ab + bb))
        m2[both] = 1.0 - (term_a - bb * ratio_b) / den
        if log_prob:
            lp[both] = ln_b + np.log(-den)
    # Remaining cells: (-inf, inf) keeps (0, 1); NaN bounds give NaN.
    bad = np.isnan(a) | np.isnan(b)
    m[bad] = np.nan
    m2[bad] = np.nan
    np.negative(m, out=m, where=flip)
    if log_prob:
        lp[bad] = np.nan
        return m, m2, lp
    return m, m2


def truncated_moments(
    lower, upper, noise: str = "gaussian", scale: float = 1.0, log_prob: bool = False
):
    """First and second truncated moments at once (see :func:`truncated_mean`).

    For Gaussian noise both come from one evaluation of ``log_ndtr`` at each
    bound, half the work of calling :func:`truncated_mean` and
    :func:`truncated_second_moment`; for the logistic, it calls them.  With
    ``log_prob=True`` the cells' ``log P(lower < e <= upper)`` (as
    :func:`log_interval_prob`) is returned third, from the same terms.
    """
    _check_noise(noise)
    if noise != "gaussian":
        out = (
            truncated_mean(lower, upper, noise, scale),
            truncated_second_moment(lower, upper, noise, scale),
        )
        if log_prob:
            return (*out, log_interval_prob(lower, upper, noise, scale))
        return out
    a, b, shape = _prepare(lower, upper, scale)
    narrow = _narrow(a, b)
    m, m2, lp = _gauss_moments(a, b, log_prob=True)
    with np.errstate(invalid="ignore", over="ignore"):
        mid = 0.5 * (a + b)
        m = np.where(narrow, mid, m)
        m2 = np.where(narrow, mid * mid, m2)
    out = (scale * m).reshape(shape), (scale * scale * m2).reshape(shape)
    if log_prob:
        return (*out, lp.reshape(shape))
    return out


def _log_softplus(t: NDArray) -> NDArray:
    # log(log(1 + e^t)); for very negative t, log(1 + x) ~ x (1 - x / 2).
    with np.errstate(divide="ignore", invalid="ignore"):
        deep = t < -30
        x = np.exp(np.minimum(t, -30.0))
        return np.where(
            deep, t + np.log1p(-0.5 * x), np.log(np.logaddexp(0.0, np.maximum(t, -30)))
        )


def _logistic_mean(a: NDArray, b: NDArray) -> NDArray:
    a, b, flip = _reflect(a, b)
    whole = np.isneginf(a) & np.isposinf(b)
    c = np.minimum(np.where(np.isfinite(b), b, 0.0), 0.0)

    def scaled(t):
        # F(t) e^{-c} and G(t) e^{-c} with G(t) = t F(t) - softplus(t); G(-inf) = 0.
        with np.errstate(invalid="ignore", over="ignore"):
            f = np.exp(-np.logaddexp(0.0, -t) - c)
            g = np.where(np.isneginf(t), 0.0, t * f) - np.exp(_log_softplus(t) - c)
        return np.where(np.isneginf(t), 0.0, f), np.where(np.isneginf(t), 0.0, g)

    fa, ga = scaled(a)
    fb, gb = scaled(b)
    # b = +inf only when a = -inf after reflection (whole line), handled below.
    with np.errstate(invalid="ignore", divide="ignore"):
        m = (gb - ga) / (fb - fa)
    m = np.where(whole, 0.0, m)
    return np.where(flip, -m, m)


_GL_NODES, _GL_WEIGHTS = np.polynomial.legendre.leggauss(96)


def _logistic_second(a: NDArray, b: NDArray) -> NDArray:
    # Gauss-Legendre quadrature of e^2 f(e) over the cell, a half-line being
    # cut 40 scale units past its finite end (the logistic tail mass beyond is
    # below e^-40 of the cell's); the log-density is shifted by its row
    # maximum so that far-tail cells do not underflow.
    both = np.isneginf(a) & np.isposinf(b)
    lo = np.where(both, -40.0, np.where(np.isneginf(a), b - 40.0, a))[:, None]
    hi = np.where(both, 40.0, np.where(np.isposinf(b), a + 40.0, b))[:, None]
    half = 0.5 * (hi - lo)
    t = lo + half * (_GL_NODES[None, :] + 1.0)
    log_dens = -t - 2.0 * np.logaddexp(0.0, -t)
    dens = np.exp(log_dens - log_dens.max(axis=1, keepdims=True))
    num = (_GL_WEIGHTS[None, :] * t * t * dens).sum(axis=1)
    den = (_GL_WEIGHTS[None, :] * dens).sum(axis=1)
    return np.where(both, _LOGISTIC_VARIANCE, num / den)


_NOISES = ("gaussian", "logistic")


def _check_noise(noise) -> None:
    if not isinstance(noise, str) or noise not in _NOISES:
        raise ValueError(f"noise must be one of {list(_NOISES)}; got {noise!r}.")


def _prepare(lower, upper, scale):
    if not (
        isinstance(scale, numbers.Real)
        and not isinstance(scale, bool)
        and np.isfinite(scale)
        and scale > 0
    ):
        raise ValueError(f"scale must be a finite positive float; got {scale!r}.")
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    try:
        lower, upper = np.broadcast_arrays(lower, upper)
    except ValueError:
        raise ValueError(
            f"lower and upper must have the same shape (or broadcast together); "
            f"got shapes {lower.shape} and {upper.shape}."
        ) from None
    # Messages give positions only: the bounds may be privatized responses.
    checks = (
        (lower > upper, "lower exceeds upper"),
        (lower == np.inf, "lower is +inf (an empty cell)"),
        (upper == -np.inf, "upper is -inf (an empty cell)"),
    )
    for bad, text in checks:
        if bad.any():
            i = int(np.flatnonzero(bad.ravel())[0])
            raise ValueError(
                f"lower and upper must bound a non-empty cell (lower, upper]; "
                f"{text} at position {i} ({int(bad.sum())} such position(s))."
            )
    return lower.ravel() / scale, upper.ravel() / scale, lower.shape


def _narrow(a: NDArray, b: NDArray) -> NDArray:
    with np.errstate(invalid="ignore", over="ignore"):
        return np.isfinite(a) & np.isfinite(b) & ((b - a) <= 1e-9 * (1 + np.abs(a)))


def truncated_mean(
    lower, upper, noise: str = "gaussian", scale: float = 1.0
) -> NDArray[np.float64]:
    """E[e | lower < e <= upper] for Gaussian (sd ``scale``) or logistic noise.

    Parameters
    ----------
    lower, upper : array-like
        Cell bounds (``-inf``/``inf`` allowed), broadcast together.
    noise : {"gaussian", "logistic"}
        Noise family, centred at zero.
    scale : float
        Standard deviation (Gaussian) or scale ``s`` (logistic).

    Returns
    -------
    ndarray
        Same shape as the broadcast bounds.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import truncated_mean
    >>> float(truncated_mean(0.0, np.inf, "gaussian", 1.0))  # sqrt(2 / pi)
    0.7978845608028654
    >>> float(truncated_mean(-np.inf, 0.0, "logistic", 1.0))  # -2 log 2
    -1.3862943611198906
    """
    _check_noise(noise)
    lower = check_float_array(lower, name="lower")
    upper = check_float_array(upper, name="upper")
    a, b, shape = _prepare(lower, upper, scale)
    narrow = _narrow(a, b)
    m = _gauss_mean(a, b) if noise == "gaussian" else _logistic_mean(a, b)
    with np.errstate(invalid="ignore"):
        m = np.where(narrow, 0.5 * (a + b), m)
    return (scale * m).reshape(shape)


def truncated_second_moment(
    lower, upper, noise: str = "gaussian", scale: float = 1.0
) -> NDArray[np.float64]:
    """E[e**2 | lower < e <= upper] for Gaussian or logistic noise.

    Closed form for the Gaussian; 96-point Gauss-Legendre quadrature for the
    logistic.

    Parameters
    ----------
    lower, upper : array-like
        Bounds of the truncation cell ``(lower, upper]``; ``-inf``/``inf``
        allowed.
    noise : {"gaussian", "logistic"}, default="gaussian"
        Noise family.
    scale : float, default=1.0
        Standard deviation (Gaussian) or scale (logistic).

    Returns
    -------
    ndarray
        Broadcast shape of ``lower`` and ``upper``.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate import truncated_second_moment
    >>> float(truncated_second_moment(0.0, np.inf, "gaussian", 1.0))
    1.0
    """
    _check_noise(noise)
    lower = check_float_array(lower, name="lower")
    upper = check_float_array(upper, name="upper")
    a, b, shape = _prepare(lower, upper, scale)
    narrow = _narrow(a, b)
    m2 = _gauss_second(a, b) if noise == "gaussian" else _logistic_second(a, b)
    with np.errstate(invalid="ignore", over="ignore"):
        m2 = np.where(narrow, (0.5 * (a + b)) ** 2, m2)
    return (scale * scale * m2).reshape(shape)


def log_interval_prob(
    lower, upper, noise: str = "gaussian", scale: float = 1.0
) -> NDArray[np.float64]:
    """log P(lower < e <= upper), stable in both tails."""
    a, b, shape = _prepare(lower, upper, scale)
    a, b, _ = _reflect(a, b)
    with np.errstate(divide="ignore", invalid="ignore"):
        if noise == "gaussian" and np.all(np.isneginf(a)):
            # half-lines (-inf, b] only: the general form below is log Phi(b)
            # plus log(1)
            return log_ndtr(b).reshape(shape)
        if noise == "gaussian":
            ln_a, ln_b = log_ndtr(a), log_ndtr(b)
        else:
            ln_a, ln_b = -np.logaddexp(0.0, -a), -np.logaddexp(0.0, -b)
        out = ln_b + np.log(-np.expm1(ln_a - ln_b))
    return out.reshape(shape)


def interval_log_likelihood(
    lower, upper, center, noise: str = "gaussian", scale: float = 1.0, weights=None
) -> float:
    """Observed-data log-likelihood of responses ``center + e`` seen as cells.

    Rows with ``lower == upper`` are exact values and contribute the log
    density; the others contribute ``log P(lower < center + e <= upper)``.

    Parameters
    ----------
    lower, upper : ndarray of shape (n,)
        Response bounds.
    center : float or ndarray of shape (n,)
        Location of each response (fitted values).
    noise : {"gaussian", "logistic"}
        Noise family.
    scale : float
        Standard deviation (Gaussian) or scale (logistic).
    weights : ndarray of shape (n,), optional
        Row weights.

    Returns
    -------
    float
    """
    lower = np.asarray(lower, dtype=float)
    upper = np.asarray(upper, dtype=float)
    center = np.broadcast_to(np.asarray(center, dtype=float), lower.shape)
    exact = lower == upper
    ll = np.empty(lower.shape)
    iv = ~exact
    ll[iv] = log_interval_prob(
        lower[iv] - center[iv], upper[iv] - center[iv], noise, scale
    )
    t = (lower[exact] - center[exact]) / scale
    if noise == "gaussian":
        ll[exact] = -0.5 * t * t - _LOG_SQRT_2PI - np.log(scale)
    else:
        ll[exact] = -t - 2.0 * np.logaddexp(0.0, -t) - np.log(scale)
    if weights is None:
        return float(ll.sum())
    return float(np.dot(weights, ll))
