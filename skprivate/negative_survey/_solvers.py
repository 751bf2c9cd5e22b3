"""Solvers of the RVNS reconstruction problem (Eqs. 9-11 of Jiang et al.).

The problem, with ``P`` the discretized transition matrix (``P[j, i] =
p(z_i, z_j) * Delta_i``), ``G`` the KDE of the reports on the grid and ``V``
the density on the grid::

    min_V  KL(G || P V) + KL(P V || G) + l1 * ||V||_1 + l2 * ||V||_2^2
    s.t.   sum_i V_i Delta_i = 1,  V >= 0,

with both KL terms taken between the vectors normalized to sum one (a
floor of 1e-12 inside the logarithms).
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import minimize
from sklearn.exceptions import ConvergenceWarning

from ..utils._warnings import external_stacklevel

__all__ = ["objective_and_gradient", "solve_em", "solve_lbfgs", "solve_slsqp"]

_FLOOR = 1e-12


def objective_and_gradient(
    v: NDArray, P: NDArray, g_hat: NDArray, l1: float, l2: float
) -> tuple[float, NDArray[np.float64]]:
    """Value and gradient of the paper's objective at the density ``v``."""
    s = P @ v
    total = s.sum()
    q = np.maximum(s / total, _FLOOR)
    log_q, log_g = np.log(q), np.log(g_hat)
    value = float(
        np.dot(g_hat, log_g - log_q)
        + np.dot(q, log_q - log_g)
        + l1 * np.abs(v).sum()
        + l2 * np.dot(v, v)
    )
    dq = -g_hat / q + log_q + 1.0 - log_g
    ds = (dq - np.dot(q, dq)) / total
    grad = P.T @ ds + l1 * np.sign(v) + 2.0 * l2 * v
    return value, grad


def _normalized_target(G: NDArray) -> NDArray[np.float64]:
    g = np.maximum(np.asarray(G, dtype=float), 0.0)
    g = g / g.sum()
    return np.maximum(g, _FLOOR)


def solve_slsqp(
    P: NDArray,
    G: NDArray,
    widths: NDArray,
    l1: float,
    l2: float,
    *,
    upper: float,
    max_iter: int,
    tol: float,
) -> tuple[NDArray[np.float64], int, float]:
    """The published solver: SQP (SLSQP) from the uniform density.

    Each iteration factorizes a dense m x m quasi-Newton system, O(m^3).
    """
    g_hat = _normalized_target(G)
    m = widths.size
    v0 = np.full(m, 1.0 / widths.sum())
    res = minimize(
        objective_and_gradient,
        v0,
        args=(P, g_hat, l1, l2),
        jac=True,
        method="SLSQP",
        bounds=[(0.0, upper)] * m,
        constraints=[
            {
                "type": "eq",
                "fun": lambda v: np.dot(v, widths) - 1.0,
                "jac": lambda v: widths,
            }
        ],
        options={"maxiter": max_iter, "ftol": tol},
    )
    if not res.success:
        warnings.warn(
            f"SLSQP stopped without converging: {res.message}",
            ConvergenceWarning,
            stacklevel=external_stacklevel(),
        )
    v = np.clip(res.x, 0.0, None)
    return v / np.dot(v, widths), int(res.nit), float(res.fun)


def solve_lbfgs(
    P: NDArray,
    G: NDArray,
    widths: NDArray,
    l1: float,
    l2: float,
    *,
    max_iter: int,
    tol: float,
) -> tuple[NDArray[np.float64], int, float]:
    """The same problem by L-BFGS-B on a scale-free parametrization.

    ``V = u / sum(u * Delta)`` with ``u >= 0`` satisfies the area
    constraint by construction, leaving only simple bounds, which L-BFGS-B
    handles with O(m^2) work per iteration (the products with ``P``).
    """
    g_hat = _normalized_target(G)

    def fun(u: NDArray) -> tuple[float, NDArray]:
        z = np.dot(u, widths)
        v = u / z
        value, grad_v = objective_and_gradient(v, P, g_hat, l1, l2)
        grad_u = (grad_v - widths * np.dot(v, grad_v)) / z
        return value, grad_u

    u0 = np.full(widths.size, 1.0 / widths.sum())
    res = minimize(
        fun,
        u0,
        jac=True,
        method="L-BFGS-B",
        bounds=[(0.0, None)] * widths.size,
        options={"maxiter": max_iter, "ftol": tol, "gtol": 1e-10, "maxcor": 20},
    )
    if res.status == 1:
        warnings.warn(
            f"L-BFGS-B reached max_iter={max_iter} before converging; "
            "increase max_iter.",
            ConvergenceWarning,
            stacklevel=external_stacklevel(),
        )
    v = np.clip(res.x, 0.0, None)
    return v / np.dot(v, widths), int(res.nit), float(res.fun)


def solve_em(
    P: NDArray,
    G: NDArray,
    widths: NDArray,
    l1: float,
    l2: float,
    *,
    max_iter: int,
    tol: float,
) -> tuple[NDArray[np.float64], int, float]:
    """Richardson-Lucy (EM) iterations on the discretized system.

    With cell probabilities ``w = V * Delta`` and the column-normalized
    kernel ``A`` (column ``i`` is the distribution of a report's cell given
    a value in cell ``i``), EM for ``min KL(g || A w)`` is the
    multiplicative update ``w <- w * A^T (g / A w) / A^T 1``.  The L2
    penalty enters by the one-step-late rule (Green, 1990), which adds its
    gradient to the denominator.  Stops when the relative change of the
    penalized KL objective falls below ``tol``.
    """
    g_hat = _normalized_target(G)
    A = P * (widths[:, None] / widths[None, :])
    col = A.sum(axis=0)
    A = A / np.where(col > 0, col, 1.0)
    w = widths / widths.sum()

    def penalized_kl(w: NDArray, fitted: NDArray) -> float:
        v = w / widths
        return float(
            np.dot(g_hat, np.log(g_hat / fitted)) + l1 * v.sum() + l2 * np.dot(v, v)
        )

    fitted = np.maximum(A @ w, _FLOOR)
    previous = penalized_kl(w, fitted)
    change = np.inf
    n_iter = 0
    while n_iter < max_iter:
        n_iter += 1
        penalty = (l1 + 2.0 * l2 * w / widths) / widths
        w = w * (A.T @ (g_hat / fitted)) / (1.0 + penalty)
        w /= w.sum()
        fitted = np.maximum(A @ w, _FLOOR)
        current = penalized_kl(w, fitted)
        change = abs(previous - current) / max(abs(current), _FLOOR)
        previous = current
        if change < tol:
            break
    if change >= tol:
        warnings.warn(
            f"EM reached max_iter={max_iter} with a relative objective change "
            f"of {change:.2e} > tol={tol:g}.",
            ConvergenceWarning,
            stacklevel=external_stacklevel(),
        )
    v = w / widths
    value, _ = objective_and_gradient(v, P, g_hat, l1, l2)
    return v, n_iter, value


def cell_transition_matrix(
    edges: NDArray,
    d: float,
    bounds: tuple[float, float],
    sub: int | None = None,
    normalize: bool = True,
) -> NDArray[np.float64]:
    """``A[j, i]``: P(report in cell ``j`` | value uniform in cell ``i``).

    Computed from the exact RVNS transition density averaged over ``sub``
    points per cell in both the value and the report (midpoint rule on
    each cell's sub-cells); columns are normalized to sum to one (every
    report lies in ``[a, b]``); ``normalize=False`` skips that.
    """
    from ._transition import rvns_transition_density

    edges = np.asarray(edges, dtype=float)
    m = edges.size - 1
    if sub is None:  # 8 points per cell, fewer for fine grids (memory)
        sub = int(np.clip(1600 // m, 2, 8))
    widths = np.diff(edges)
    frac = (np.arange(sub) + 0.5) / sub
    pts = (edges[:-1, None] + widths[:, None] * frac[None, :]).ravel()
    p = rvns_transition_density(pts[None, :], pts[:, None], d, bounds, "paper")
    p *= np.repeat(widths / sub, sub)[:, None]
    A = p.reshape(m, sub, m, sub).sum(axis=(1, 3)) / sub
    if not normalize:
        return A
    col = A.sum(axis=0)
    return A / np.where(col > 0, col, 1.0)
