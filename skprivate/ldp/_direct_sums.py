"""Exact deconvolution kernel sums, chunked and windowed.

:func:`direct_sums` computes ``sum_i K_hat((x - z_i) / h) W_i`` exactly for
each evaluation point, in chunks of rows so that no temporary exceeds about
``2**21`` kernel values; with the Gaussian kernel and more than
``_WINDOW_MIN_POINTS`` records, :func:`_windowed` restricts each group of
points to the records within ``_GAUSSIAN_REACH`` bandwidths (the terms left
out are below the rounding of the sums).  The binned sums of
:mod:`._binned_1d` and :mod:`._binned_nd` fall back on these for points
outside their grids.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ._kernels import _SQRT_2PI, layout_width, spec_kernels, spec_width

__all__ = ["direct_sums"]

_CHUNK = 2**21
# Exact sums with the Gaussian kernel use only the records within this many
# bandwidths of each point (in every feature) once there are more than
# _WINDOW_MIN_POINTS of them; see _windowed.
_GAUSSIAN_REACH = 12.0
_WINDOW_MIN_POINTS = 20_000


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
    if (
        q == 1
        and specs is None
        and not absolute
        and kernel == "gaussian"
        and n <= _WINDOW_MIN_POINTS
        and _squares_finite(X, Z, bandwidth)
    ):
        return _gaussian_sums_1d(X[:, 0], Z[:, 0], W, bandwidth, float(ratio[0]))
    if specs is None:
        specs = [(0,) * q]
    out = np.empty((m, layout_width(specs, c, absolute)))

    def block(rows: NDArray | slice, Zb: NDArray, Wb: NDArray) -> None:
        U = (X[rows, None, :] - Zb[None, :, :]) / bandwidth
        col = 0
        for i, (spec, K) in enumerate(
            zip(specs, spec_kernels(U, ratio, kernel, specs))
        ):
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


# Rows of (point, record) offsets per block of the Gaussian 1-D sums: about
# 512 kB per temporary, so that the passes over a block stay in cache.
_CACHE_BLOCK = 2**16


def _squares_finite(X: NDArray, Z: NDArray, bandwidth: float) -> bool:
    """Whether every squared offset ``((x - z) / h)**2`` is finite."""
    reach = (np.abs(X).max(initial=0.0) + np.abs(Z).max(initial=0.0)) / bandwidth
    return bool(reach < 1e150)


def _gaussian_sums_1d(
    x: NDArray, z: NDArray, W: NDArray, bandwidth: float, ratio: float
) -> NDArray[np.float64]:
    """``sum_i phi(u) (1 + r (1 - u**2)) W_i`` with ``u = (x - z_i) / h``, one feature.

    The same kernel as :func:`~._kernels.deconvolution_kernel` (Gaussian
    base, order 0), computed in place on blocks of rows small enough to stay
    in cache: two temporaries per block instead of one per operation.
    """
    m, n = x.size, z.size
    out = np.empty((m, W.shape[1]))
    step = max(1, _CACHE_BLOCK // max(n, 1))
    xs, zs = x / bandwidth, z / bandwidth
    r = ratio * ratio
    u2 = np.empty((min(step, m), n))
    phi = np.empty_like(u2)
    for start in range(0, m, step):
        stop = min(m, start + step)
        a, p = u2[: stop - start], phi[: stop - start]
        np.subtract(xs[start:stop, None], zs[None, :], out=a)
        np.multiply(a, a, out=a)
        np.multiply(a, -0.5, out=p)
        np.exp(p, out=p)
        np.subtract(1.0, a, out=a)
        a *= r
        a += 1.0
        a *= p
        np.matmul(a, W, out=out[start:stop])
    out /= _SQRT_2PI
    return out
