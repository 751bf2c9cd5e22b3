"""Deconvolution kernels for Laplace noise and the layout of moment sums.

For Laplace noise of scale ``b`` and bandwidth ``h``, the deconvolution
kernel of a base kernel ``K`` is ``K_hat(u) = K(u) - r K''(u)`` with
``r = (b / h)**2`` (Farokhi, eq. 4): its Fourier transform is
``phi_K(t) * (1 + b**2 t**2 / h**2)``.  Multivariate kernels are products.
This module holds the kernels themselves (:func:`base_kernel`,
:func:`base_kernel_ft`, :func:`deconvolution_kernel`,
:func:`product_kernel`) and the helpers that describe how the sums of
several moment kernels are laid out side by side (:func:`moment_specs`,
:func:`spec_width`, :func:`layout_width`, :func:`subtract_own`); the sums
are computed in :mod:`._direct_sums` (exact), :mod:`._binned_1d` and
:mod:`._binned_nd` (binned).

The local linear estimator also needs the deconvolution kernels of the
moments ``u**k K(u)`` (Delaigle, Fan & Carroll, 2009): ``L_k(u) = g_k(u) -
r g_k''(u)`` with ``g_k(u) = u**k K(u)``.  A "spec" is a tuple of per-feature
orders ``k``; the sums of a list of specs are laid out side by side, the
first spec's block followed by its sum of absolute weights (see
:func:`~._direct_sums.direct_sums`).
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..utils.validation import check_float_array

__all__ = [
    "KERNELS",
    "base_kernel",
    "base_kernel_ft",
    "deconvolution_kernel",
    "layout_width",
    "moment_specs",
    "product_kernel",
    "spec_kernels",
    "spec_width",
    "subtract_own",
]

KERNELS = ("gaussian", "cauchy")
_SQRT_2PI = np.sqrt(2.0 * np.pi)


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
        Noise scale over bandwidth, ``b / h`` (broadcast against ``u``):
        finite and non-negative, else a ValueError.
    kernel : {"gaussian", "cauchy"}, default="gaussian"
        Base kernel.
    order : {0, 1, 2}, default=0
        Moment ``k`` of the base kernel deconvolved (``u**k K(u)``); the
        Cauchy kernel has no moments and supports only 0.

    Returns
    -------
    ndarray
        ``K_hat(u)``, broadcast shape of ``u`` and ``ratio``; 0 where ``u**2``
        overflows (the kernel's limit).

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
    if np.asarray(ratio).dtype.kind in "US":
        raise TypeError("ratio must be a number or an array of numbers; got str.")
    try:
        u_float = np.asarray(u, dtype=float)
        ratio_float = np.asarray(ratio, dtype=float)
    except (TypeError, ValueError):
        u_float = ratio_float = None
    if u_float is None or ratio_float is None:
        # checked outside the except clause: numpy's error, which quotes the
        # entry, must not be chained to the refusal as its context
        u = check_float_array(u, name="u", allow_nan=True)
        ratio = check_float_array(ratio, name="ratio", allow_nan=True)
        raise TypeError("u and ratio must be arrays of numbers.")  # pragma: no cover
    u, ratio = u_float, ratio_float
    if not (np.all(np.isfinite(ratio)) and np.all(ratio >= 0)):
        check_float_array(ratio, name="ratio", allow_inf=False)
        raise ValueError(
            "ratio is the noise scale over the bandwidth, b / h: it must be "
            "finite and non-negative."
        )
    try:
        np.broadcast_shapes(u.shape, ratio.shape)
    except ValueError:
        raise ValueError(
            f"ratio of shape {ratio.shape} does not broadcast against u of shape "
            f"{u.shape}."
        ) from None
    r = ratio**2
    with np.errstate(over="ignore"):
        u2 = u * u
    if order not in (0, 1, 2):
        raise ValueError(f"order must be 0, 1 or 2; got {order!r}.")
    if order and _check_kernel(kernel) != "gaussian":
        raise ValueError(
            f"kernel={kernel!r} has no moments: only order=0 is defined for it."
        )
    with np.errstate(over="ignore", invalid="ignore"):
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
        # Far out (u**2 overflows) every form above tends to 0; the NaN there
        # is inf * 0 or inf / inf in floating point.
        out = np.where(np.isnan(out) & (np.abs(u) > 1e100), 0.0, out)
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
    out = next(spec_kernels(U, ratio, kernel, [tuple(orders)]))
    return np.abs(out) if absolute else out


def spec_kernels(
    U: NDArray, ratio: NDArray, kernel: str, specs: list[tuple[int, ...]]
) -> Iterator[NDArray[np.float64]]:
    """The product kernel of each spec (moment orders per coordinate) at ``U``.

    Each coordinate's kernel of each order the specs use is computed once and
    shared by the specs, which differ in one or two coordinates only.  The
    products are yielded one at a time (a block of sums holds one at once).
    """
    q = U.shape[-1]
    needed = [sorted({spec[j] for spec in specs}) for j in range(q)]
    parts = []
    for j in range(q):
        if len(needed[j]) > 1 and _check_kernel(kernel) == "gaussian":
            parts.append(_gaussian_orders(U[..., j], ratio[j], needed[j]))
        else:
            parts.append(
                {
                    k: deconvolution_kernel(U[..., j], ratio[j], kernel, k)
                    for k in needed[j]
                }
            )
    for spec in specs:
        K = parts[0][spec[0]]
        for j in range(1, q):
            K = K * parts[j][spec[j]]
        yield K


def _gaussian_orders(u: NDArray, ratio: float, orders: list[int]) -> dict:
    """:func:`deconvolution_kernel` of several orders (Gaussian base), at once.

    The orders share ``u**2`` and ``phi(u)``; the formulas are those of
    :func:`deconvolution_kernel`, to which any non-finite case is left.
    """
    u = np.asarray(u, dtype=float)
    r = float(ratio) ** 2
    with np.errstate(over="ignore", invalid="ignore"):
        u2 = u * u
        phi = np.exp(-0.5 * u2) / _SQRT_2PI
        forms = {
            0: lambda: phi * (1.0 + r * (1.0 - u2)),
            1: lambda: phi * u * (1.0 + r * (3.0 - u2)),
            2: lambda: phi * (u2 - r * ((u2 - 5.0) * u2 + 2.0)),
        }
        out = {k: forms[k]() for k in orders}
    for k, values in out.items():
        if not np.isfinite(r) or np.isnan(values).any():
            out[k] = deconvolution_kernel(u, ratio, "gaussian", k)
    return out
