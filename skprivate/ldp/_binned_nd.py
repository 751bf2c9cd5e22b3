"""Kernel sums of data with several features on a d-D grid.

Points are binned multilinearly on a regular d-D grid, the binned weights
are convolved with the product deconvolution kernel one feature at a time
(:class:`BinnedSumsND`, steps chosen by :func:`nd_grid_steps`), and sums at
evaluation points are multilinear interpolations of the convolved grid.
:func:`nd_binned_grid` builds the grid of a fit (:class:`GridSums`),
:func:`loo_sums_nd` the leave-one-out sums of one bandwidth and
:class:`LeaveOneOutGrid` those of many bandwidths on one grid.  Points
outside a grid get exact sums over its binned nodes
(:func:`~._direct_sums.direct_sums`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import fft as sp_fft

from ..utils._warnings import external_stacklevel
from ._direct_sums import direct_sums
from ._kernels import deconvolution_kernel, layout_width, spec_width, subtract_own

__all__ = [
    "ND_MAX_NODES",
    "ND_MIN_STEPS",
    "ND_STEPS",
    "BinnedSumsND",
    "GridSums",
    "LeaveOneOutGrid",
    "loo_sums_nd",
    "nd_binned_grid",
    "nd_grid_steps",
]

# Steps per effective bandwidth h / sqrt(1 + (b/h)**2) of the d-D grids, the
# largest grid (nodes) a fit may use, and the fewest steps it accepts before
# refusing the grid (algorithm="binned") or summing directly ("auto").
ND_STEPS = 8.0
ND_MAX_NODES = 2**22
ND_MIN_STEPS = 2.0
# Beyond this many bandwidths the Gaussian deconvolution kernel is below
# 1e-19 of its peak and is truncated; the Cauchy one is never truncated.
_GAUSSIAN_CUT = 10.0
_ND_CHUNK = 2**18


def nd_grid_steps(
    lo: NDArray,
    hi: NDArray,
    bandwidth: float,
    ratio: NDArray,
    steps: float = ND_STEPS,
    max_nodes: int = ND_MAX_NODES,
) -> tuple[NDArray, float]:
    """Grid steps of a d-D grid on ``[lo, hi]``, and steps per effective bandwidth.

    Feature ``j`` gets the step ``h / (s sqrt(1 + ratio_j**2))``, with ``s``
    equal to ``steps`` unless the grid would exceed ``max_nodes`` nodes, in
    which case ``s`` is lowered until it fits (the returned ``s`` says by how
    much).
    """
    lo, hi = np.asarray(lo, dtype=float), np.asarray(hi, dtype=float)
    width = np.maximum(hi - lo, 1e-12 * bandwidth)
    effective = bandwidth / np.sqrt(1.0 + np.asarray(ratio, dtype=float) ** 2)
    # nodes(s) ~ prod(width * s / effective + 1): solve for the largest s.
    s = float(steps)
    for _ in range(60):
        nodes = np.prod(np.ceil(width * s / effective) + 1.0)
        if nodes <= max_nodes:
            break
        s *= 0.97 * (max_nodes / nodes) ** (1.0 / lo.size)
    return effective / s, s


class BinnedSumsND:
    """Kernel sums of d-D data on a regular grid: linear binning, FFT, interpolation.

    Points are linearly binned on the ``2**d`` corners of their grid cell
    (multilinear weights), the binned weights are convolved with the
    product deconvolution kernel sampled on the grid, one feature at a time
    (the kernel is separable), and sums at evaluation points are multilinear
    interpolations of the convolved grid.  Cost ``O(n 2**d + G log G)`` for
    ``G`` grid nodes instead of ``O(n m)`` for ``m`` evaluation points.

    Parameters
    ----------
    lo, hi : ndarray of shape (d,)
        Corners of the grid.
    delta : ndarray of shape (d,)
        Grid step per feature (see :func:`nd_grid_steps`).
    """

    def __init__(self, lo: NDArray, hi: NDArray, delta: NDArray) -> None:
        lo = np.asarray(lo, dtype=float)
        delta = np.asarray(delta, dtype=float)
        shape = np.ceil((np.asarray(hi, dtype=float) - lo) / delta).astype(int) + 1
        self.shape = tuple(int(s) for s in np.maximum(shape, 2))
        self.lo, self.delta, self.d = lo, delta, lo.size
        self.hi = lo + delta * (np.array(self.shape) - 1)
        self.size = int(np.prod(self.shape))
        strides = np.cumprod((*self.shape[1:], 1)[::-1])[::-1]
        self._strides = strides.astype(np.intp)
        corners = np.array(np.meshgrid(*[[0, 1]] * self.d, indexing="ij"))
        self._corners = corners.reshape(self.d, -1).T  # (2**d, d) of 0/1
        self._offsets = self._corners @ self._strides
        self.values: NDArray | None = None

    @classmethod
    def for_data(
        cls,
        Z: NDArray,
        bandwidth: float,
        ratio: NDArray,
        span: tuple[NDArray, NDArray] | None = None,
        steps: float = ND_STEPS,
        max_nodes: int = ND_MAX_NODES,
        pad: float = 4.0,
    ) -> tuple[BinnedSumsND, float]:
        """Grid covering ``Z`` (and ``span``) widened by ``pad`` bandwidths.

        Returns the grid and its steps per effective bandwidth.
        """
        lo, hi = Z.min(axis=0), Z.max(axis=0)
        if span is not None:
            lo, hi = np.minimum(lo, span[0]), np.maximum(hi, span[1])
        lo, hi = lo - pad * bandwidth, hi + pad * bandwidth
        delta, s = nd_grid_steps(lo, hi, bandwidth, ratio, steps, max_nodes)
        return cls(lo, hi, delta), s

    # -- positions -------------------------------------------------------
    def positions(self, X: NDArray) -> tuple[NDArray, NDArray]:
        """Lower cell corner (integer, ``(m, d)``) and fraction in the cell."""
        pos = (X - self.lo) / self.delta
        idx = np.floor(pos)
        np.clip(idx, 0, np.array(self.shape) - 2, out=idx)
        return idx.astype(np.intp), pos - idx

    def _corner_weights(self, X: NDArray) -> tuple[NDArray, NDArray]:
        """Flat index of the lower corner, ``(m,)``, and the ``(m, 2**d)`` weights."""
        idx, frac = self.positions(X)
        base = idx @ self._strides
        w = None
        for j in range(self.d):
            pair = np.column_stack([1.0 - frac[:, j], frac[:, j]])
            part = pair[:, self._corners[:, j]]
            w = part if w is None else w * part
        return base, w

    def inside(self, X: NDArray) -> NDArray[np.bool_]:
        """Which rows of ``X`` lie within the grid."""
        return np.all((self.lo <= X) & (self.hi >= X), axis=1)

    # -- binning ---------------------------------------------------------
    def bin(self, Z: NDArray, W: NDArray | None) -> NDArray[np.float64]:
        """Multilinear binning of weighted points, ``(size, c)`` (``W=None``: ones).

        Points must lie inside the grid.  Rows are processed in chunks so
        that temporaries stay small.
        """
        c = 1 if W is None else W.shape[1]
        out = np.zeros((self.size, c))
        for start in range(0, Z.shape[0], _ND_CHUNK):
            stop = min(Z.shape[0], start + _ND_CHUNK)
            base, w = self._corner_weights(Z[start:stop])
            for k, off in enumerate(self._offsets):
                flat = base + off
                if W is None:
                    out[:, 0] += np.bincount(flat, w[:, k], self.size)
                    continue
                for col in range(c):
                    out[:, col] += np.bincount(
                        flat, w[:, k] * W[start:stop, col], self.size
                    )
        return out

    # -- convolution -----------------------------------------------------
    def kernels(
        self,
        bandwidth: float,
        ratio: NDArray,
        kernel: str,
        orders: tuple[int, ...] | None = None,
    ) -> list[NDArray[np.float64]]:
        """The 1-D deconvolution kernel of each feature sampled on the grid (``/h``).

        ``orders`` gives each feature's moment order (default all 0).
        """
        if orders is None:
            orders = (0,) * self.d
        out = []
        for j in range(self.d):
            reach = self.shape[j] - 1
            if kernel == "gaussian":
                reach = min(
                    reach, int(np.ceil(_GAUSSIAN_CUT * bandwidth / self.delta[j]))
                )
            u = np.arange(-reach, reach + 1) * (self.delta[j] / bandwidth)
            kern = deconvolution_kernel(u, ratio[j], kernel, orders[j])
            out.append(kern / bandwidth)
        return out

    def convolve_specs(
        self,
        counts: NDArray,
        bandwidth: float,
        ratio: NDArray,
        kernel: str,
        specs: list[tuple[int, ...]],
        absolute: bool = False,
    ) -> NDArray[np.float64]:
        """:meth:`convolve` for each spec, laid out as in :func:`direct_sums`."""
        out = []
        for i, spec in enumerate(specs):
            kernels = self.kernels(bandwidth, ratio, kernel, spec)
            width = spec_width(spec, counts.shape[1])
            out.append(self.convolve(counts[:, :width], kernels, absolute and i == 0))
        return np.concatenate(out, axis=1) if len(out) > 1 else out[0]

    def convolve(
        self, counts: NDArray, kernels: list[NDArray], absolute: bool = False
    ) -> NDArray[np.float64]:
        """Convolve ``(size, c)`` counts with the product kernel, ``(size, c[+1])``.

        With ``absolute`` the first column is also convolved with ``|K_hat|``
        (the product of the absolute 1-D kernels) and appended.
        """
        from scipy.signal import fftconvolve  # imported late: 0.5 s

        c = counts.shape[1]
        grid = counts.reshape((*self.shape, c))
        parts = [(grid, kernels)]
        if absolute:
            parts.append((grid[..., :1], [np.abs(k) for k in kernels]))
        out = []
        for values, kerns in parts:
            for j, kern in enumerate(kerns):
                shape = [1] * (self.d + 1)
                shape[j] = kern.size
                values = fftconvolve(values, kern.reshape(shape), mode="same", axes=j)
            out.append(values.reshape(self.size, -1))
        return np.concatenate(out, axis=1) if len(out) > 1 else out[0]

    # -- evaluation ------------------------------------------------------
    def interpolate(
        self, values: NDArray, X: NDArray | None = None, corners: Any = None
    ) -> NDArray[np.float64]:
        """Multilinear interpolation of grid ``values`` at rows of ``X`` (inside).

        ``corners`` may give precomputed ``_corner_weights(X)``.
        """
        if corners is None:
            m = X.shape[0]
            out = np.empty((m, values.shape[1]))
            for start in range(0, m, _ND_CHUNK):
                stop = min(m, start + _ND_CHUNK)
                out[start:stop] = self.interpolate(
                    values, corners=self._corner_weights(X[start:stop])
                )
            return out
        base, w = corners
        out = values[base] * w[:, :1]
        for k in range(1, self._offsets.size):
            out += values[base + self._offsets[k]] * w[:, k : k + 1]
        return out

    def evaluate(
        self,
        values: NDArray,
        counts: NDArray,
        X: NDArray,
        bandwidth: float,
        ratio: NDArray,
        kernel: str,
        specs: list[tuple[int, ...]] | None = None,
    ) -> NDArray[np.float64]:
        """Sums at any rows of ``X``: interpolated inside the grid, else direct.

        Points outside the grid get exact sums over the binned nodes (the
        nodes with a nonzero weight), so they cost ``O(nodes)`` each; the
        grid extends 4 bandwidths beyond the data, so they are rare.
        Returns ``(m, values.shape[1])`` sums scaled like ``values``.
        """
        out = np.empty((X.shape[0], values.shape[1]))
        inside = self.inside(X)
        out[inside] = self.interpolate(values, X[inside])
        if inside.all():
            return out
        keep = np.flatnonzero(np.any(counts != 0, axis=1))
        nodes = self.lo + self.delta * np.array(np.unravel_index(keep, self.shape)).T
        if specs is None:
            specs = [(0,) * self.d]
        absolute = values.shape[1] > layout_width(specs, counts.shape[1], False)
        sums = direct_sums(
            X[~inside], nodes, counts[keep], bandwidth, ratio, kernel, absolute, specs
        )
        out[~inside] = sums / bandwidth**self.d
        return out

    def pair_weight(
        self,
        zpos: tuple[NDArray, NDArray],
        xpos: tuple[NDArray, NDArray],
        kernels: list[NDArray],
    ) -> NDArray[np.float64]:
        """Weight of binned point ``z[j]`` in the interpolated sum at ``x[j]``.

        ``zpos`` and ``xpos`` are :meth:`positions` of the two samples.  The
        binning and interpolation weights and the kernel are all products over
        the features, so the weight is the product of 1-D weights; it is
        exactly what point ``j`` contributes, so leaving it out is a
        subtraction.
        """
        (zi, zf), (xi, xf) = zpos, xpos
        out = np.ones(zi.shape[0])
        for j, kern in enumerate(kernels):
            centre = kern.size // 2
            i, f, k, g = zi[:, j], zf[:, j], xi[:, j], xf[:, j]
            gap = k - i

            def at(
                offset: NDArray, kern: NDArray = kern, centre: int = centre
            ) -> NDArray:
                pos = centre + offset
                ok = (pos >= 0) & (pos < kern.size)
                return np.where(ok, kern[np.clip(pos, 0, kern.size - 1)], 0.0)

            out *= (1.0 - g) * ((1.0 - f) * at(gap) + f * at(gap - 1)) + g * (
                (1.0 - f) * at(gap + 1) + f * at(gap)
            )
        return out


def loo_sums_nd(
    Z: NDArray,
    X: NDArray,
    W: NDArray,
    bandwidth: float,
    ratio: NDArray,
    kernel: str,
    rows: NDArray | None = None,
    steps: float = ND_STEPS,
    max_nodes: int = ND_MAX_NODES,
    specs: list[tuple[int, ...]] | None = None,
) -> NDArray[np.float64]:
    """Binned sums at ``X[j]`` from ``Z`` without point ``j``, scaled by ``1/h**q``.

    ``Z`` and ``X`` are ``(n, q)`` (``X[j]`` is where point ``Z[j]`` is left
    out), ``W`` is ``(n, c)``; ``rows`` (boolean mask or indices) restricts
    the evaluation to some ``j``.  Returns ``(m, c + 1)``: the weighted sums
    and the sum of ``|K_hat| W[:, 0]`` (with ``specs``, the layout of
    :func:`direct_sums`).  The grid covers both samples.
    """
    if specs is None:
        specs = [(0,) * Z.shape[1]]
    grid, _ = BinnedSumsND.for_data(
        Z,
        bandwidth,
        ratio,
        span=(X.min(axis=0), X.max(axis=0)),
        steps=steps,
        max_nodes=max_nodes,
        pad=0.0,
    )
    values = grid.convolve_specs(
        grid.bin(Z, W), bandwidth, ratio, kernel, specs, absolute=True
    )
    if rows is not None:
        Z, X, W = Z[rows], X[rows], W[rows]
    sums = grid.interpolate(values, X)
    zpos, xpos = grid.positions(Z), grid.positions(X)
    own = []
    for spec in specs:
        own.append(
            grid.pair_weight(zpos, xpos, grid.kernels(bandwidth, ratio, kernel, spec))
        )
    kernels = grid.kernels(bandwidth, ratio, kernel, specs[0])
    own_abs = grid.pair_weight(zpos, xpos, [np.abs(k) for k in kernels])
    subtract_own(sums, own, own_abs, W, specs)
    return sums


class GridSums:
    """Convolved d-D grid of a fit, evaluated at any points (``evaluate``)."""

    def __init__(
        self,
        grid: BinnedSumsND,
        counts: NDArray,
        bandwidth: float,
        ratio: NDArray,
        kernel: str,
        absolute: bool,
        steps: float,
        specs: list[tuple[int, ...]] | None = None,
    ) -> None:
        self.grid, self.counts, self.steps = grid, counts, steps
        self.bandwidth, self.ratio, self.kernel = bandwidth, ratio, kernel
        self.specs = [(0,) * grid.d] if specs is None else specs
        self.values = grid.convolve_specs(
            counts, bandwidth, ratio, kernel, self.specs, absolute
        )

    def evaluate(self, X: NDArray) -> NDArray[np.float64]:
        """Sums at the rows of ``X``, scaled by ``1 / h**q``."""
        return self.grid.evaluate(
            self.values,
            self.counts,
            X,
            self.bandwidth,
            self.ratio,
            self.kernel,
            self.specs,
        )


def nd_binned_grid(
    Z: NDArray,
    W: NDArray | None,
    bandwidth: float,
    ratio: NDArray,
    kernel: str,
    algorithm: str,
    absolute: bool = False,
    specs: list[tuple[int, ...]] | None = None,
) -> GridSums | None:
    """Binned sums of a fit with several features, or None to sum directly.

    The grid has ``ND_STEPS`` steps per effective bandwidth
    ``h / sqrt(1 + (b_j / h)**2)`` in each feature, coarsened to at most
    ``ND_MAX_NODES`` nodes.  If that leaves fewer than ``ND_MIN_STEPS``
    steps, ``algorithm="binned"`` raises and ``"auto"`` warns and returns
    None (exact sums are used).
    """
    grid, steps = BinnedSumsND.for_data(Z, bandwidth, ratio)
    if steps < ND_MIN_STEPS:
        message = (
            f"The binned grid for {Z.shape[1]} features at bandwidth "
            f"{bandwidth:.3g} would need more than {ND_MAX_NODES} nodes for "
            f"{ND_MIN_STEPS:g} steps per effective bandwidth (it would get "
            f"{steps:.2g}): the data span too many bandwidths."
        )
        if algorithm == "binned":
            raise ValueError(
                message + " Use algorithm='direct' (exact, O(n m)) or a larger "
                "bandwidth, or fewer features."
            )
        warnings.warn(
            message + " Falling back to exact sums (algorithm='direct'), "
            "whose cost grows as n times the number of evaluation points.",
            UserWarning,
            stacklevel=external_stacklevel(),
        )
        return None
    return GridSums(
        grid, grid.bin(Z, W), bandwidth, ratio, kernel, absolute, steps, specs
    )


class LeaveOneOutGrid:
    """Leave-one-out binned sums for many bandwidths on one d-D grid.

    A bandwidth search evaluates the same fit sample ``Z`` (weights ``W``)
    at the same points ``X[rows]`` for every candidate.  Binning, the
    interpolation weights and the cell offsets of the left-out pairs do not
    depend on the bandwidth and are computed once; each candidate then costs
    one FFT convolution of the grid and ``O(m 2**d)`` gathers.  The grid has
    at most ``max_nodes`` nodes, its steps proportional to the effective
    bandwidths at ``reference`` (the smallest candidate); :meth:`steps`
    says how finely a candidate is resolved.

    Parameters
    ----------
    Z, X : ndarray of shape (n, q)
        Fit sample and evaluation points (``X[j]`` is where ``Z[j]`` is left out).
    W : ndarray of shape (n, c)
        Weights, first column the denominator's (ones).
    rows : ndarray of bool or None
        Evaluation rows (None for all).
    reference : float
        Smallest bandwidth that will be asked for.
    noise : ndarray of shape (q,)
        Laplace scale per feature.
    max_nodes : int
        Largest grid.
    """

    def __init__(
        self,
        Z: NDArray,
        X: NDArray,
        W: NDArray,
        rows: NDArray | None,
        reference: float,
        noise: NDArray,
        max_nodes: int,
    ) -> None:
        lo = np.minimum(Z.min(axis=0), X.min(axis=0))
        hi = np.maximum(Z.max(axis=0), X.max(axis=0))
        delta, _ = nd_grid_steps(
            lo, hi, reference, noise / reference, 1e6, max_nodes=max_nodes
        )
        self.grid = grid = BinnedSumsND(lo, hi, delta)
        counts = grid.bin(Z, W).reshape((*grid.shape, W.shape[1]))
        # The counts' spectrum is computed once; wide enough for any kernel
        # reach on the grid, so the circular convolution does not wrap.
        self._fft_shape = [sp_fft.next_fast_len(2 * m - 1, True) for m in grid.shape]
        self._axes = tuple(range(grid.d))
        # Single precision: rounding near 1e-7 of the peak, far below the
        # binning error, at half the cost of the per-candidate inverse FFTs.
        self.spectrum = sp_fft.rfftn(
            counts.astype(np.float32), s=self._fft_shape, axes=self._axes
        )
        if rows is not None:
            Z, X, W = Z[rows], X[rows], W[rows]
        self.W = W
        self.corners = grid._corner_weights(X)
        (zi, f), (xi, g) = grid.positions(Z), grid.positions(X)
        self.gap = xi - zi
        # Weights of K[gap - 1], K[gap], K[gap + 1] in the pair weight.
        self.coef = ((1.0 - g) * f, (1.0 - g) * (1.0 - f) + g * f, g * (1.0 - f))
        self.reach = int(np.abs(self.gap).max()) + 1 if self.gap.size else 1

    def steps(self, bandwidth: float, noise: NDArray) -> float:
        """Fewest grid steps per effective bandwidth over the features."""
        effective = bandwidth / np.sqrt(1.0 + (noise / bandwidth) ** 2)
        return float(np.min(effective / self.grid.delta))

    def sums(
        self,
        bandwidth: float,
        ratio: NDArray,
        kernel: str,
        specs: list[tuple[int, ...]] | None = None,
    ) -> NDArray[np.float64]:
        """Sums at the rows without their own point, scaled by ``1/h**q``.

        Returns ``(m, c + 1)``: the weighted sums and the sum of ``|K_hat|``
        (with ``specs``, the layout of :func:`direct_sums`).
        """
        grid = self.grid
        if specs is None:
            specs = [(0,) * grid.d]
        c = self.W.shape[1]
        jobs = []
        for i, spec in enumerate(specs):
            kernels = grid.kernels(bandwidth, ratio, kernel, spec)
            jobs.append((kernels, self.spectrum[..., : spec_width(spec, c)]))
            if i == 0:
                jobs.append(([np.abs(k) for k in kernels], self.spectrum[..., :1]))
        parts = []
        for kerns, spectrum in jobs:
            product = None
            for j, kern in enumerate(kerns):
                size = self._fft_shape[j]
                wrapped = np.zeros(size)
                reach = kern.size // 2
                wrapped[: reach + 1] = kern[reach:]
                wrapped[size - reach :] = kern[:reach]
                last = j == grid.d - 1
                # An odd kernel has an imaginary spectrum: keep it complex.
                ft = (sp_fft.rfft if last else sp_fft.fft)(wrapped).astype(np.complex64)
                product = ft if product is None else np.multiply.outer(product, ft)
            full = sp_fft.irfftn(
                spectrum * product[..., None], s=self._fft_shape, axes=self._axes
            )
            inside = full[tuple(slice(0, m) for m in grid.shape)]
            parts.append(inside.reshape(grid.size, -1).astype(np.float64))
        values = np.concatenate(parts, axis=1)
        sums = grid.interpolate(values, corners=self.corners)
        own = []
        own_abs = None
        for i, spec in enumerate(specs):
            signed, absolute = self._own(grid.kernels(bandwidth, ratio, kernel, spec))
            own.append(signed)
            if i == 0:
                own_abs = absolute
        subtract_own(sums, own, own_abs, self.W, specs)
        return sums

    def _own(self, kernels: list[NDArray]) -> tuple[NDArray, NDArray]:
        """Signed and absolute weight of each row's own point (see pair_weight)."""
        own = np.ones(self.gap.shape[0])
        own_abs = np.ones(self.gap.shape[0])
        for j, kern in enumerate(kernels):
            pad = np.pad(kern, self.reach)
            centre = kern.size // 2 + self.reach
            gap = self.gap[:, j] + centre
            signed = absolute = 0.0
            for shift, coef in zip((-1, 0, 1), self.coef, strict=True):
                value = pad[gap + shift]
                signed = signed + coef[:, j] * value
                absolute = absolute + coef[:, j] * np.abs(value)
            own *= signed
            own_abs *= absolute
        return own, own_abs
