"""Deconvolution kernels for Laplace noise and fast kernel sums.

For Laplace noise of scale ``b`` and bandwidth ``h``, the deconvolution
kernel of a base kernel ``K`` is ``K_hat(u) = K(u) - r K''(u)`` with
``r = (b / h)**2`` (Farokhi, eq. 4): its Fourier transform is
``phi_K(t) * (1 + b**2 t**2 / h**2)``.  Multivariate kernels are products.

Kernel sums ``sum_i K_hat((x - z_i) / h) w_i`` are computed either directly
(in chunks, exact) or, in one dimension, by linear binning of the ``z_i`` on a
regular grid, one FFT convolution with the kernel sampled on that grid, and
linear interpolation (the binned estimator of Wand, 1994).

The local linear estimator also needs the deconvolution kernels of the
moments ``u**k K(u)`` (Delaigle, Fan & Carroll, 2009): ``L_k(u) = g_k(u) -
r g_k''(u)`` with ``g_k(u) = u**k K(u)``.  A "spec" is a tuple of per-feature
orders ``k``; the sums of a list of specs are laid out side by side, the
first spec's block followed by its sum of absolute weights (see
:func:`direct_sums`).
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import fft as sp_fft
from scipy.signal import fftconvolve

from ..utils.validation import check_float_array

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
# Exact sums with the Gaussian kernel use only the records within this many
# bandwidths of each point (in every feature) once there are more than
# _WINDOW_MIN_POINTS of them; see _windowed.
_GAUSSIAN_REACH = 12.0
_WINDOW_MIN_POINTS = 20_000


def _check_kernel(kernel: str) -> str:
    if kernel not in KERNELS:
        raise ValueError(f"kernel must be one of {KERNELS}; got {kernel!r}.")
    return kernel


def moment_specs(q: int, degree: int) -> list[tuple[int, ...]]:
    """Per-feature kernel orders of the sums of a local fit of ``degree`` 0 or 1.

    Degree 0 needs the plain kernel; degree 1 also the first moments
    ``e_a`` (for the design matrix's border and the slopes' right-hand side)
    and the second moments ``e_a + e_b`` (for the design matrix).
    """
    zero = (0,) * q
    if degree == 0:
        return [zero]
    units = [tuple(int(j == a) for j in range(q)) for a in range(q)]
    pairs = [
        tuple(x + y for x, y in zip(units[a], units[b], strict=True))
        for a in range(q)
        for b in range(a, q)
    ]
    return [zero, *units, *pairs]


def spec_width(spec: tuple[int, ...], columns: int) -> int:
    """Weight columns summed for ``spec``: all for orders up to 1, else the first.

    The second moments enter only the design matrix, never the right-hand
    side, so they are summed with unit weights alone.
    """
    return columns if sum(spec) < 2 else 1


def layout_width(specs: list[tuple[int, ...]], columns: int, absolute: bool) -> int:
    """Number of columns of the side-by-side sums of ``specs``."""
    return sum(spec_width(s, columns) for s in specs) + int(absolute)


def subtract_own(
    sums: NDArray,
    own: list[NDArray],
    own_abs: NDArray | None,
    W: NDArray,
    specs: list[tuple[int, ...]],
) -> None:
    """Remove each point's own weights ``own[i]`` (per spec) from laid-out ``sums``."""
    col = 0
    for i, spec in enumerate(specs):
        width = spec_width(spec, W.shape[1])
        sums[:, col : col + width] -= own[i][:, None] * W[:, :width]
        col += width
        if i == 0 and own_abs is not None:
            sums[:, col] -= own_abs * W[:, 0]
            col += 1


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
    u: ArrayLike, ratio: ArrayLike, kernel: str = "gaussian", order: int = 0
) -> NDArray[np.float64]:
    """Deconvolution kernel for Laplace noise, one coordinate.

    ``K_hat(u) = K(u) - r K''(u)`` with ``r = ratio**2 = (b / h)**2`` for
    Laplace noise of scale ``b`` and bandwidth ``h``.  In closed form

    * Gaussian base: ``phi(u) * (1 + r (1 - u**2))``;
    * Cauchy base: ``(1 / pi) * (1 / (1 + u**2) + r (2 - 6 u**2) / (1 + u**2)**3)``.

    It integrates to one but takes negative values.  With ``order=k`` (1 or
    2, Gaussian base only) it is the deconvolution kernel of ``u**k K(u)``
    used by the local linear estimator (Delaigle, Fan & Carroll, 2009):
    ``L_1(u) = phi(u) (u - r (u**3 - 3 u))`` and
    ``L_2(u) = phi(u) (u**2 - r (u**4 - 5 u**2 + 2))``; the expectation of
    ``L_k((x + e - x0) / h)`` over the Laplace noise ``e`` is
    ``((x - x0) / h)**k K((x - x0) / h)``.

    Parameters
    ----------
    u : array-like
        Points (already divided by the bandwidth).
    ratio : float or array-like
        Noise scale over bandwidth, ``b / h`` (broadcast against ``u``).
    kernel : {"gaussian", "cauchy"}, default="gaussian"
        Base kernel.
    order : {0, 1, 2}, default=0
        Moment ``k`` of the base kernel deconvolved (``u**k K(u)``); the
        Cauchy kernel has no moments and supports only 0.

    Returns
    -------
    ndarray
        ``K_hat(u)``, broadcast shape of ``u`` and ``ratio``.

    References
    ----------
    F. Farokhi, "Deconvoluting kernel density estimation and regression for
    locally differentially private data", Scientific Reports 10, 2020, eq. (4).

    A. Delaigle, J. Fan and R. J. Carroll, "A design-adaptive local
    polynomial estimator for the errors-in-variables problem", Journal of
    the American Statistical Association 104, 2009.

    Examples
    --------
    >>> from skprivate.ldp import deconvolution_kernel
    >>> float(deconvolution_kernel(0.0, 0.0))  # the Gaussian density at 0
    0.3989...
    >>> float(deconvolution_kernel(0.0, 1.0, kernel="cauchy"))  # (1 + 2) / pi
    0.9549...
    """
    try:
        u = np.asarray(u, dtype=float)
        r = np.asarray(ratio, dtype=float) ** 2
    except (TypeError, ValueError):
        check_float_array(u, name="u")
        check_float_array(ratio, name="ratio")
        raise
    u2 = u * u
    if order not in (0, 1, 2):
        raise ValueError(f"order must be 0, 1 or 2; got {order!r}.")
    if order and _check_kernel(kernel) != "gaussian":
        raise ValueError(
            f"kernel={kernel!r} has no moments: only order=0 is defined for it."
        )
    if _check_kernel(kernel) == "gaussian":
        phi = np.exp(-0.5 * u2) / _SQRT_2PI
        if order == 0:
            out = phi * (1.0 + r * (1.0 - u2))
        elif order == 1:
            out = phi * u * (1.0 + r * (3.0 - u2))
        else:
            out = phi * (u2 - r * ((u2 - 5.0) * u2 + 2.0))
    else:
        one = 1.0 + u2
        out = (1.0 / one + r * (2.0 - 6.0 * u2) / one**3) / np.pi
    if np.isnan(out).any():
        # Checked on the output (one pass) rather than on the inputs, so the
        # fitting loops that call this on large offset arrays pay nothing more.
        check_float_array(u, name="u", allow_inf=False)
        check_float_array(ratio, name="ratio", allow_inf=False)
    return out


def product_kernel(
    U: NDArray,
    ratio: NDArray,
    kernel: str,
    absolute: bool = False,
    orders: tuple[int, ...] | None = None,
) -> NDArray[np.float64]:
    """Product deconvolution kernel over the last axis of ``U`` (q coordinates).

    ``orders`` gives the moment order of each coordinate (default all 0).
    """
    if orders is None:
        orders = (0,) * U.shape[-1]
    out = deconvolution_kernel(U[..., 0], ratio[0], kernel, orders[0])
    for j in range(1, U.shape[-1]):
        out = out * deconvolution_kernel(U[..., j], ratio[j], kernel, orders[j])
    return np.abs(out) if absolute else out


def direct_sums(
    X: NDArray,
    Z: NDArray,
    W: NDArray,
    bandwidth: float,
    ratio: NDArray,
    kernel: str,
    absolute: bool = False,
    specs: list[tuple[int, ...]] | None = None,
) -> NDArray[np.float64]:
    """Exact ``sum_i K_hat((x - z_i) / h) W_i`` for each row ``x`` of ``X``.

    ``X`` is ``(m, q)``, ``Z`` is ``(n, q)``, ``W`` is ``(n, c)``; returns
    ``(m, c)``, or ``(m, c + 1)`` with the sum of ``|K_hat| W[:, 0]``
    appended when ``absolute`` is set.  Rows of ``X`` are processed in chunks so that no
    temporary exceeds about ``2**21`` kernel values per coordinate.

    With ``specs`` (per-feature moment orders, see :func:`moment_specs`) the
    sums of each spec's product kernel are laid out side by side, each over
    :func:`spec_width` columns of ``W``, the absolute sum (if asked) right
    after the first spec's block.
    """
    m, n, q = X.shape[0], Z.shape[0], X.shape[1]
    c = W.shape[1]
    if specs is None:
        specs = [(0,) * q]
    out = np.empty((m, layout_width(specs, c, absolute)))
    needed = [sorted({spec[j] for spec in specs}) for j in range(q)]

    def block(rows: NDArray | slice, Zb: NDArray, Wb: NDArray) -> None:
        U = (X[rows, None, :] - Zb[None, :, :]) / bandwidth
        parts = [
            {k: deconvolution_kernel(U[..., j], ratio[j], kernel, k) for k in needed[j]}
            for j in range(q)
        ]
        col = 0
        for i, spec in enumerate(specs):
            K = parts[0][spec[0]]
            for j in range(1, q):
                K = K * parts[j][spec[j]]
            width = spec_width(spec, c)
            out[rows, col : col + width] = K @ Wb[:, :width]
            col += width
            if i == 0 and absolute:
                out[rows, col] = np.abs(K) @ Wb[:, 0]
                col += 1

    if kernel == "gaussian" and n > _WINDOW_MIN_POINTS:
        _windowed(X, Z, W, bandwidth, block)
        return out
    step = max(1, _CHUNK // max(n, 1))
    for start in range(0, m, step):
        block(slice(start, min(m, start + step)), Z, W)
    return out


def _windowed(X: NDArray, Z: NDArray, W: NDArray, bandwidth: float, block) -> None:
    """Run ``block`` on groups of rows of ``X`` with only the nearby ``Z``.

    The Gaussian deconvolution kernels (and their moment versions) are
    ``phi(u)`` times a polynomial of degree at most 4 in ``u`` whose
    coefficients are at most ``5 (1 + r**2)``: beyond ``|u| = 12`` in any
    feature a term is below ``1e-25`` of the peak ``K_hat(0)``, so even
    ``1e8`` left-out records move a sum by less than ``1e-17`` of the peak,
    below the rounding of the sum itself.  Records are sorted by the
    first feature and each group of points takes the slice within
    ``_GAUSSIAN_REACH * h`` of it, filtered in the other features.
    """
    order = np.argsort(Z[:, 0], kind="stable")
    Zs, Ws = Z[order], W[order]
    first = Zs[:, 0]
    rows = np.argsort(X[:, 0], kind="stable")
    reach = _GAUSSIAN_REACH * bandwidth
    lo = np.searchsorted(first, X[rows, 0] - reach, side="left")
    hi = np.searchsorted(first, X[rows, 0] + reach, side="right")
    m = rows.size
    start = 0
    while start < m:
        # Grow the group while its window times its rows stays within _CHUNK.
        stop = start + 1
        while stop < m and (hi[stop] - lo[start]) * (stop + 1 - start) <= _CHUNK:
            stop += 1
        group = rows[start:stop]
        a, b = lo[start], max(hi[stop - 1], lo[start])
        Zb, Wb = Zs[a:b], Ws[a:b]
        if X.shape[1] > 1 and b > a:
            near = np.ones(b - a, dtype=bool)
            for j in range(1, X.shape[1]):
                xj = X[group, j]
                near &= (Zb[:, j] >= xj.min() - reach) & (Zb[:, j] <= xj.max() + reach)
            Zb, Wb = Zb[near], Wb[near]
        block(group, Zb, Wb)
        start = stop


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
    def empty(
        cls, span: tuple[float, float], bandwidth: float, ratio: float, kernel: str
    ) -> BinnedSums:
        """Grid covering ``span`` with no point binned yet (unit weights).

        The grid is the one the constructor builds for data inside ``span``,
        so counts binned chunk by chunk and added match binning all at once.
        """
        self = cls.__new__(cls)
        self.order = 0
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
        self._kern = deconvolution_kernel(offsets, ratio, kernel, self.order)
        self._kern /= bandwidth

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


# -- several features: linear binning on a d-D grid ------------------------
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
            stacklevel=3,
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
