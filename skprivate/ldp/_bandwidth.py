"""Cross-validation bandwidth of the deconvolution kernel density estimate.

The criterion is the unbiased estimate of the integrated squared error
``ISE(h) - int f**2`` of Stefanski & Carroll (1990) and Hesse (1999), written
with characteristic functions.  With ``c(t)`` the empirical characteristic
function of the noisy data, ``psi(t) = 1 + b**2 t**2`` the inverse Laplace
characteristic function and ``phi_K`` the base kernel's Fourier transform,

``CV(h) = (1/pi) int_0^inf phi_K(th) psi(t)**2
[phi_K(th) |c(t)|**2 - 2 (n |c(t)|**2 - 1) / (n - 1)] dt``.

The first term is ``int f_hat**2``; the second is minus twice the unbiased
(leave-one-out, pairs ``i != j``) estimate of ``int f_hat f``.  ``|c(t)|**2``
is computed for all ``t`` at once by one FFT of the linearly binned data.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._kernels import base_kernel_ft

# phi_K(s) is negligible beyond s = _S_MAX (exp(-40) for the Cauchy base).
_S_MAX = {"gaussian": 12.0, "cauchy": 40.0}
_MAX_FFT = 2**22


def deconvolution_cv_scores(
    z: NDArray,
    noise_scale: float,
    kernel: str,
    candidates: NDArray,
    return_variance: bool = False,
) -> Any:
    """CV criterion of each candidate bandwidth for 1-D noisy data ``z``.

    With ``return_variance`` also returns the variance term ``V(h)`` and the
    roughness ``int f_hat**2`` of each candidate.
    """
    z = np.asarray(z, dtype=float).ravel()
    n = z.size
    if n < 2:
        raise ValueError(
            f"Cross-validation needs at least 2 samples; got {n} sample(s)."
        )
    s_max = _S_MAX[kernel]
    h_min = float(np.min(candidates))
    delta = np.pi * h_min / (2.0 * s_max)
    span = float(z.max() - z.min()) + 4.0 * h_min
    size = int(2 ** np.ceil(np.log2(max(8.0 * span / delta, 64))))
    if size > _MAX_FFT:
        size = _MAX_FFT
        delta = 8.0 * span / size
    pos = (z - z.min() + 2.0 * h_min) / delta
    idx = np.floor(pos).astype(np.intp)
    frac = pos - idx
    counts = np.bincount(idx, 1.0 - frac, size) + np.bincount(idx + 1, frac, size)
    power = np.abs(np.fft.rfft(counts)) ** 2
    dt = 2.0 * np.pi / (size * delta)
    t = np.arange(power.size) * dt
    keep = t <= s_max / h_min
    t, power = t[keep], power[keep]
    # A point binned at fraction f contributes |1 - f + f exp(i t delta)|^2 to
    # the power instead of 1: remove these diagonal terms exactly, and undo
    # the attenuation sinc(t delta / 2)**4 of the pairs by linear binning.
    diag = n - np.sum(2.0 * frac * (1.0 - frac)) * (1.0 - np.cos(t * delta))
    transfer = np.sinc(t * delta / (2.0 * np.pi)) ** 4
    pair = (power - diag) / transfer / (n * (n - 1.0))
    ecf2 = pair * (n - 1.0) / n + 1.0 / n
    psi2 = (1.0 + (noise_scale * t) ** 2) ** 2
    scores = np.empty(len(candidates))
    variance = np.empty(len(candidates))
    roughness = np.empty(len(candidates))
    weights = np.full(t.size, dt)
    weights[0] = 0.5 * dt
    for k, h in enumerate(candidates):
        m = int(np.searchsorted(t, s_max / h, side="right"))
        phi = base_kernel_ft(t[:m] * h, kernel)
        w, p2, e2 = weights[:m] * psi2[:m], phi * phi, ecf2[:m]
        scores[k] = np.dot(w, p2 * e2 - 2.0 * phi * pair[:m]) / np.pi
        variance[k] = np.sum(w * p2) / (np.pi * n)
        roughness[k] = np.dot(w, p2 * e2) / np.pi
    if return_variance:
        return scores, variance, roughness
    return scores


def select_cv_bandwidth(
    z: NDArray, noise_scale: float, kernel: str, candidates: NDArray
) -> tuple[float, NDArray[np.float64]]:
    """Bandwidth chosen by the deconvolution CV criterion, and the criterion.

    The criterion's sampling noise is of the order of the variance term
    ``V(h) = (pi n)**-1 int phi_K(th)**2 psi(t)**2 dt``, which explodes as
    ``h -> 0``.  Candidates whose ``V(h)`` exceeds a tenth of the roughness
    ``int f_hat**2`` of the most smoothed estimate (a lower bound on
    ``int f**2``) are discarded as unreliable; among the others the local
    minimizer with the largest bandwidth is kept (Hall & Marron, 1991).
    Scores of discarded candidates are reported as NaN.
    """
    candidates = np.sort(np.asarray(candidates, dtype=float))
    scores, variance, roughness = deconvolution_cv_scores(
        z, noise_scale, kernel, candidates, return_variance=True
    )
    reliable = variance <= 0.1 * roughness[-1]
    scores = np.where(reliable, scores, np.nan)
    if not reliable.any():
        return float(candidates[-1]), scores
    first = int(np.flatnonzero(reliable)[0])
    return float(candidates[first + largest_local_minimizer(scores[first:])]), scores


def largest_local_minimizer(scores: NDArray) -> int:
    """Index of the largest-bandwidth local minimum of a CV curve.

    The deconvolution CV criterion is very variable at small bandwidths,
    where the ``(b t)**4`` growth of the inverse noise characteristic function
    amplifies sampling noise into deep spurious minima; following Hall &
    Marron (1991) for least-squares CV, the local minimizer with the largest
    bandwidth is kept.  ``scores`` are ordered by increasing bandwidth.
    """
    s = np.asarray(scores, dtype=float)
    if s.size == 1:
        return 0
    left = np.concatenate([[np.inf], s[:-1]])
    right = np.concatenate([s[1:], [np.inf]])
    minima = np.flatnonzero((s <= left) & (s <= right))
    return int(minima[-1]) if minima.size else int(np.argmin(s))
