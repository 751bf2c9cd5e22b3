"""Deconvolution kernels for Laplace noise and fast kernel sums.

For Laplace noise of scale ``b`` and bandwidth ``h``, the deconvolution
kernel of a base kernel ``K`` is ``K_hat(u) = K(u) - r K''(u)`` with
``r = (b / h)**2`` (Farokhi, eq. 4): its Fourier transform is
``phi_K(t) * (1 + b**2 t**2 / h**2)``.  Multivariate kernels are products.

Kernel sums ``sum_i K_hat((x - z_i) / h) w_i`` are computed either directly
(in chunks, exact) or, in one dimension, by linear binning of the ``z_i`` on a
regular grid, one FFT convolution with the kernel sampled on that grid, and
linear interpolation (the binned estimator of Wand, 1994).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.signal import fftconvolve

__all__ = ["deconvolution_kernel"]

KERNELS = ("gaussian", "cauchy")
_SQRT_2PI = np.sqrt(2.0 * np.pi)
# Grid step of the binned sums: bandwidth / (_STEPS_PER_BANDWIDTH * sqrt(1 + r)).
_STEPS_PER_BANDWIDTH = 40.0
_MAX_GRID = 2**16
# Points outside the grid are evaluated on the grid extended to reach them,
# up to this many nodes; beyond, by direct sums over the binned nodes.
_MAX_EXTENDED_GRID = 2**20
_CHUNK = 2**21


def _check_kernel(kernel: str) -> str:
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}; got {kernel!r}.")
    return kernel


def base_kernel(u: ArrayLike, kernel: str = "gaussian") -> NDArray[np.float64]:
    """The base density kernel ``K``: standard normal or standard Cauchy."""
    u = np.asarray(u, dtype=float)
    if _check_kernel(kernel) == "gaussian":
        return np.exp(-0.5 * u * u) / _SQRT_2PI
    return 1.0 / (np.pi * (1.0 + u * u))


def base_kernel_ft(s: ArrayLike, kernel: str = "gaussian") -> NDArray[np.float64]:
    """Fourier transform ``phi_K(s) = E[exp(i s U)]`` of the base kernel."""
    s = np.asarray(s, dtype=float)
    if _check_kernel(kernel) == "gaussian":
        return np.exp(-0.5 * s * s)
    return np.exp(-np.abs(s))


def deconvolution_kernel(
    u: ArrayLike, ratio: ArrayLike, kernel: str = "gaussian"
) -> NDArray[np.float64]:
    """Deconvolution kernel for Laplace noise, one coordinate.

    ``K_hat(u) = K(u) - r K''(u)`` with ``r = ratio**2 = (b / h)**2`` for
    Laplace noise of scale ``b`` and bandwidth ``h``.  In closed form

    * Gaussian base: ``phi(u) * (1 + r (1 - u**2))``;
    * Cauchy base: ``(1 / pi) * (1 / (1 + u**2) + r (2 - 6 u**2) / (1 + u**2)**3)``.

    It integrates to one but takes negative values.

    Parameters
    ----------
    u : array-like
        Points (already divided by the bandwidth).
    ratio : float or array-like
        Noise scale over bandwidth, ``b / h`` (broadcast against ``u``).
    kernel : {"gaussian", "cauchy"}, default="gaussian"
        Base kernel.

    Returns
    -------
    ndarray
        ``K_hat(u)``, broadcast shape of ``u`` and ``ratio``.

    References
    ----------
    F. Farokhi, "Deconvoluting kernel density estimation and regression for
    locally differentially private data", Scientific Reports 10, 2020, eq. (4).

    Examples
    --------
    >>> from skprivate.ldp import deconvolution_kernel
    >>> float(deconvolution_kernel(0.0, 0.0))  # the Gaussian density at 0
    0.3989...
    >>> float(deconvolution_kernel(0.0, 1.0, kernel="cauchy"))  # (1 + 2) / pi
    0.9549...
    """
    u = np.asarray(u, dtype=float)
    r = np.asarray(ratio, dtype=float) ** 2
    u2 = u * u
    if _check_kernel(kernel) == "gaussian":
        return np.exp(-0.5 * u2) / _SQRT_2PI * (1.0 + r * (1.0 - u2))
    one = 1.0 + u2
    return (1.0 / one + r * (2.0 - 6.0 * u2) / one**3) / np.pi


def product_kernel(
    U: NDArray, ratio: NDArray, kernel: str, absolute: bool = False
) -> NDArray[np.float64]:
    """Product deconvolution kernel over the last axis of ``U`` (q coordinates)."""
    out = deconvolution_kernel(U[..., 0], ratio[0], kernel)
    for j in range(1, U.shape[-1]):
        out = out * deconvolution_kernel(U[..., j], ratio[j], kernel)
    return np.abs(out) if absolute else out


def direct_sums(
    X: NDArray,
    Z: NDArray,
    W: NDArray,
    bandwidth: float,
    ratio: NDArray,
    kernel: str,
    absolute: bool = False,
) -> NDArray[np.float64]:
    """Exact ``sum_i K_hat((x - z_i) / h) W_i`` for each row ``x`` of ``X``.

    ``X`` is ``(m, q)``, ``Z`` is ``(n, q)``, ``W`` is ``(n, c)``; returns
    ``(m, c)``, or ``(m, c + 1)`` with the sum of ``|K_hat| W[:, 0]``
    appended when ``absolute`` is set.  Rows of ``X`` are processed in chunks so that no
    temporary exceeds about ``2**21`` kernel values per coordinate.
    """
    m, n = X.shape[0], Z.shape[0]
    c = W.shape[1]
    out = np.empty((m, c + 1 if absolute else c))
    step = max(1, _CHUNK // max(n, 1))
    for start in range(0, m, step):
        stop = min(m, start + step)
        U = (X[start:stop, None, :] - Z[None, :, :]) / bandwidth
        K = product_kernel(U, ratio, kernel)
        out[start:stop, :c] = K @ W
        if absolute:
            out[start:stop, c] = np.abs(K) @ W[:, 0]
    return out


class BinnedSums:
    """Kernel sums of 1-D data on a regular grid, by linear binning + FFT.

    Parameters
    ----------
    z : ndarray of shape (n,)
        Data points.
    W : ndarray of shape (n, c) or None
        Weights (``y`` for regression); None for unit weights (a density).
    bandwidth, ratio : float
        Bandwidth ``h`` and noise-to-bandwidth ratio ``b / h``.
    kernel : str
        Base kernel.
    absolute : bool
        Also convolve the first column with ``|K_hat|`` (appended column).
    span : tuple of float, optional
        Interval the grid must cover besides the data.
    """

    def __init__(
        self,
        z: NDArray,
        W: NDArray | None,
        bandwidth: float,
        ratio: float,
        kernel: str,
        absolute: bool = False,
        span: tuple[float, float] | None = None,
    ) -> None:
        lo, hi = float(z.min()), float(z.max())
        if span is not None:
            lo, hi = min(lo, span[0]), max(hi, span[1])
        self._make_grid(lo, hi, bandwidth, ratio, kernel)
        self.set_counts(self.bin(z, W), absolute)

    @classmethod
    def empty(
        cls, span: tuple[float, float], bandwidth: float, ratio: float, kernel: str
    ) -> BinnedSums:
        """Grid covering ``span`` with no point binned yet (unit weights).

        The grid is the one the constructor builds for data inside ``span``,
        so counts binned chunk by chunk and added match binning all at once.
        """
        self = cls.__new__(cls)
        self._make_grid(float(span[0]), float(span[1]), bandwidth, ratio, kernel)
        self.set_counts(np.zeros((self.size, 1)))
        return self

    def _make_grid(
        self, lo: float, hi: float, bandwidth: float, ratio: float, kernel: str
    ) -> None:
        pad = 4.0 * bandwidth
        lo, hi = lo - pad, hi + pad
        delta = bandwidth / (_STEPS_PER_BANDWIDTH * np.sqrt(1.0 + ratio**2))
        size = int(np.ceil((hi - lo) / delta)) + 1
        if size > _MAX_GRID:
            size = _MAX_GRID
        delta = (hi - lo) / (size - 1)
        self.lo, self.hi, self.delta, self.size = lo, hi, delta, size
        self.bandwidth, self.ratio, self.kernel = bandwidth, ratio, kernel
        offsets = np.arange(-(size - 1), size) * (delta / bandwidth)
        self._kern = deconvolution_kernel(offsets, ratio, kernel) / bandwidth

    def set_counts(self, counts: NDArray, absolute: bool = False) -> None:
        """Use binned ``counts`` of shape ``(size, c)`` and convolve them."""
        self.counts = counts
        kern = self._kern
        values = [fftconvolve(counts, kern[:, None], mode="same", axes=0)]
        if absolute:
            values.append(
                fftconvolve(counts[:, :1], np.abs(kern)[:, None], mode="same", axes=0)
            )
        self.values = np.concatenate(values, axis=1)

    def nodes(self) -> tuple[NDArray, NDArray]:
        """Grid nodes with a nonzero count and their counts (first column)."""
        keep = np.flatnonzero(self.counts[:, 0])
        return self.lo + self.delta * keep, self.counts[keep, 0]

    def _positions(self, x: NDArray) -> tuple[NDArray, NDArray]:
        pos = (x - self.lo) / self.delta
        idx = np.clip(np.floor(pos), 0, self.size - 2).astype(np.intp)
        return idx, pos - idx

    def bin(self, z: NDArray, W: NDArray | None) -> NDArray[np.float64]:
        """Linear binning of weighted points on the grid, ``(size, c)``.

        ``W=None`` means unit weights (one column).  Points must lie inside
        the grid (they do for the data the grid was built from).
        """
        pos = (z - self.lo) / self.delta
        idx = pos.astype(np.intp)  # pos >= 0, so truncation is floor
        np.minimum(idx, self.size - 2, out=idx)
        frac = pos - idx
        columns = [None] if W is None else [W[:, k] for k in range(W.shape[1])]
        out = np.empty((self.size, len(columns)))
        for k, w in enumerate(columns):
            total = np.bincount(idx, w, self.size)
            upper = np.bincount(idx, frac if w is None else w * frac, self.size)
            out[:, k] = total - upper
            out[1:, k] += upper[:-1]
        return out

    def inside(self, x: NDArray) -> NDArray[np.bool_]:
        """Which points lie within the grid."""
        return (x >= self.lo) & (x <= self.hi)

    def __call__(self, x: NDArray) -> NDArray[np.float64]:
        """Interpolated sums at ``x`` (points inside the grid), ``(m, c)``."""
        idx, frac = self._positions(x)
        return (
            self.values[idx] * (1.0 - frac)[:, None]
            + self.values[idx + 1] * frac[:, None]
        )

    def evaluate(self, x: NDArray) -> NDArray[np.float64]:
        """Sums at any points ``x``, at binned cost also outside the grid.

        Points outside the grid get the convolution of the same counts on
        the grid extended (same step, zero counts) to reach them, so the
        cost is one FFT of the extended grid instead of a sum over all the
        data per point; when the extension would exceed ``2**20`` nodes
        (points very far away) they are summed directly over the binned
        nodes.
        """
        x = np.asarray(x, dtype=float)
        out = np.empty((x.size, self.values.shape[1]))
        inside = self.inside(x)
        out[inside] = self(x[inside])
        if inside.all():
            return out
        far = x[~inside]
        below = max(0, int(np.ceil((self.lo - far.min()) / self.delta)) + 1)
        above = max(0, int(np.ceil((far.max() - self.hi) / self.delta)) + 1)
        absolute = self.values.shape[1] > self.counts.shape[1]
        size = self.size + below + above
        if size <= _MAX_EXTENDED_GRID:
            counts = np.pad(self.counts, ((below, above), (0, 0)))
            offsets = np.arange(-(size - 1), size) * (self.delta / self.bandwidth)
            kern = deconvolution_kernel(offsets, self.ratio, self.kernel)
            kern /= self.bandwidth
            values = [fftconvolve(counts, kern[:, None], mode="same", axes=0)]
            if absolute:
                values.append(
                    fftconvolve(
                        counts[:, :1], np.abs(kern)[:, None], mode="same", axes=0
                    )
                )
            values = np.concatenate(values, axis=1)
            pos = (far - (self.lo - below * self.delta)) / self.delta
            idx = np.clip(np.floor(pos), 0, size - 2).astype(np.intp)
            frac = (pos - idx)[:, None]
            out[~inside] = values[idx] * (1.0 - frac) + values[idx + 1] * frac
            return out
        keep = np.flatnonzero(np.any(self.counts != 0, axis=1))
        nodes = self.lo + self.delta * keep
        sums = direct_sums(
            far[:, None],
            nodes[:, None],
            self.counts[keep],
            self.bandwidth,
            np.array([self.ratio]),
            self.kernel,
            absolute=absolute,
        )
        out[~inside] = sums / self.bandwidth
        return out

    def pair_weight(self, z: NDArray, x: NDArray) -> NDArray[np.float64]:
        """Kernel weight of binned point ``z[j]`` in the interpolated sum at ``x[j]``.

        Exactly what point ``j`` contributes to ``self(x)[j]`` (for unit
        weight), so that leaving it out is a subtraction.
        """
        i, f = self._positions(z)
        k, g = self._positions(x)
        centre = self.size - 1
        kern = self._kern

        def at(offset: NDArray) -> NDArray:
            return kern[np.clip(centre + offset, 0, kern.size - 1)]

        d = k - i
        return (1.0 - g) * ((1.0 - f) * at(d) + f * at(d - 1)) + g * (
            (1.0 - f) * at(d + 1) + f * at(d)
        )
