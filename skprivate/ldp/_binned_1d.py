"""Kernel sums of 1-D data by linear binning and one FFT convolution.

:class:`BinnedSums` bins the data linearly on a regular grid (about
``_STEPS_PER_BANDWIDTH`` steps per effective bandwidth, at most ``_MAX_GRID``
nodes), convolves the binned weights with the deconvolution kernel sampled
on that grid, and interpolates linearly (the binned estimator of Wand,
1994).  Points outside the grid are evaluated on the grid extended to reach
them (up to ``_MAX_EXTENDED_GRID`` nodes), beyond that by exact sums over
the binned nodes (:func:`~._direct_sums.direct_sums`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ._direct_sums import direct_sums
from ._kernels import deconvolution_kernel

__all__ = ["BinnedSums", "grid_geometry", "linear_bin"]

# Grid step of the binned sums: bandwidth / (_STEPS_PER_BANDWIDTH * sqrt(1 + r)).
_STEPS_PER_BANDWIDTH = 40.0
_MAX_GRID = 2**16
# Points outside the grid are evaluated on the grid extended to reach them,
# up to this many nodes; beyond, by direct sums over the binned nodes.
_MAX_EXTENDED_GRID = 2**20


def grid_geometry(
    lo: float, hi: float, bandwidth: float, ratio: float
) -> tuple[float, float, float, int]:
    """``(lo, hi, step, size)`` of the grid covering ``[lo, hi]`` (padded).

    The range is padded by 4 bandwidths; the step is about
    ``bandwidth / (40 sqrt(1 + ratio**2))``, with at most ``2**16`` nodes.
    """
    pad = 4.0 * bandwidth
    lo, hi = lo - pad, hi + pad
    delta = bandwidth / (_STEPS_PER_BANDWIDTH * np.sqrt(1.0 + ratio**2))
    size = int(np.ceil((hi - lo) / delta)) + 1
    if size > _MAX_GRID:
        size = _MAX_GRID
    delta = (hi - lo) / (size - 1)
    return lo, hi, delta, size


def linear_bin(
    z: NDArray, W: NDArray | None, lo: float, delta: float, size: int
) -> NDArray[np.float64]:
    """Linear binning of weighted points on a regular grid, ``(size, c)``.

    ``W=None`` means unit weights (one column).  Points must lie inside
    the grid.
    """
    pos = (z - lo) / delta
    idx = pos.astype(np.intp)  # pos >= 0, so truncation is floor
    np.minimum(idx, size - 2, out=idx)
    frac = pos - idx
    columns = [None] if W is None else [W[:, k] for k in range(W.shape[1])]
    out = np.empty((size, len(columns)))
    for k, w in enumerate(columns):
        total = np.bincount(idx, w, size)
        upper = np.bincount(idx, frac if w is None else w * frac, size)
        out[:, k] = total - upper
        out[1:, k] += upper[:-1]
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
    order : int, default=0
        Moment order of the kernel (see :func:`deconvolution_kernel`).
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
        order: int = 0,
    ) -> None:
        lo, hi = float(z.min()), float(z.max())
        if span is not None:
            lo, hi = min(lo, span[0]), max(hi, span[1])
        self.order = order
        self._make_grid(lo, hi, bandwidth, ratio, kernel)
        self.set_counts(self.bin(z, W), absolute)

    @classmethod
    def from_counts(
        cls,
        span: tuple[float, float],
        bandwidth: float,
        ratio: float,
        kernel: str,
        counts: NDArray,
    ) -> BinnedSums:
        """Sums of unit-weight points already binned on the grid of ``span``.

        The grid is the one the constructor builds for data inside ``span``
        (:func:`grid_geometry`), so counts binned block by block and added
        match binning all at once.
        """
        self = cls.__new__(cls)
        self.order = 0
        self._make_grid(float(span[0]), float(span[1]), bandwidth, ratio, kernel)
        self.set_counts(np.asarray(counts, dtype=float).reshape(self.size, 1))
        return self

    def _make_grid(
        self, lo: float, hi: float, bandwidth: float, ratio: float, kernel: str
    ) -> None:
        lo, hi, delta, size = grid_geometry(lo, hi, bandwidth, ratio)
        self.lo, self.hi, self.delta, self.size = lo, hi, delta, size
        self.bandwidth, self.ratio, self.kernel = bandwidth, ratio, kernel
        offsets = np.arange(-(size - 1), size) * (delta / bandwidth)
        self._kern = deconvolution_kernel(offsets, ratio, kernel, self.order)
        self._kern /= bandwidth

    def set_counts(self, counts: NDArray, absolute: bool = False) -> None:
        """Use binned ``counts`` of shape ``(size, c)`` and convolve them."""
        from scipy.signal import fftconvolve  # imported late: 0.5 s

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
        return linear_bin(z, W, self.lo, self.delta, self.size)

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
        from scipy.signal import fftconvolve  # imported late: 0.5 s

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
            kern = deconvolution_kernel(offsets, self.ratio, self.kernel, self.order)
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
            specs=[(self.order,)],
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
