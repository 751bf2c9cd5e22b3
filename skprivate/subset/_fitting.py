"""Estimators of the category distribution from counts of distinct subsets.

Every routine takes ``U`` (``k x p``, the distinct observed subsets of the
true categories as 0/1 rows), ``counts`` (``k``, how often each was
observed) and the affine map ``L(a) = s 1_aᵀw + t`` of the design (see
:mod:`._design`).  The counts are a sufficient statistic, so after one pass
over the data the cost depends on ``k`` (at most ``min(n, 2^p)``), never on
``n``.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import NDArray
from sklearn.exceptions import ConvergenceWarning

FLOOR = 1e-10


def project_simplex(v: NDArray) -> NDArray[np.float64]:
    """Euclidean projection of ``v`` onto the probability simplex."""
    v = np.asarray(v, dtype=float)
    u = np.sort(v)[::-1]
    css = np.cumsum(u) - 1.0
    k = np.arange(1, v.size + 1)
    rho = np.flatnonzero(u - css / k > 0)[-1]
    return np.maximum(v - css[rho] / (rho + 1.0), 0.0)


def interior(w: NDArray) -> NDArray[np.float64]:
    """Simplex projection floored at ``FLOOR`` and renormalized (for logs)."""
    w = np.maximum(project_simplex(w), FLOOR)
    return w / w.sum()


def log_likelihood(U, counts, w, s=1.0, t=0.0) -> float:
    """``sum_a n_a log(s 1_aᵀw + t)`` (the part that depends on ``w``)."""
    lik = s * (U @ w) + t
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(counts @ np.log(lik))


def gamma_hat(U, counts) -> NDArray[np.float64]:
    """``n^{-1} sum_i 1_{a_i}``."""
    return (counts @ U) / counts.sum()


def second_moment(U, counts) -> NDArray[np.float64]:
    """``n^{-1} sum_i 1_{a_i} 1_{a_i}ᵀ``."""
    return (U.T * counts) @ U / counts.sum()


def mom(U, counts, q, s=1.0, t=0.0, uniform_r=None) -> NDArray[np.float64]:
    """Method of moments ``Q^{-1}(γ̂ - t)/s`` (raw: may leave the simplex).

    With ``uniform_r`` the closed form of the uniform design is used,
    ``(r (γ̂ - t)/s - 1)/(r - 1)``, which sums to one exactly.
    """
    g = (gamma_hat(U, counts) - t) / s
    if uniform_r is not None:
        return (uniform_r * g - 1.0) / (uniform_r - 1.0)
    return np.linalg.solve(q, g)


def mom_covariance(U, counts, q, s=1.0, uniform_r=None) -> NDArray[np.float64]:
    """Plug-in ``Q^{-1} C Q^{-1} / (n s^2)`` with ``C`` the indicator covariance."""
    n = counts.sum()
    g = gamma_hat(U, counts)
    c = second_moment(U, counts) - np.outer(g, g)
    if uniform_r is not None:
        return (uniform_r / (uniform_r - 1.0)) ** 2 * c / (n * s * s)
    qinv = np.linalg.inv(q)
    return qinv @ c @ qinv.T / (n * s * s)


def _grad_hess(U, counts, w, s, t):
    lik = s * (U @ w) + t
    r = counts / lik
    grad = s * (U.T @ r)
    hess = -(s * s) * (U.T * (counts / lik**2)) @ U
    return grad, hess


def _reduce(grad, hess, free, ref):
    """Gradient and Hessian in ``θ`` = the free coordinates except ``ref``."""
    others = free[free != ref]
    g = grad[others] - grad[ref]
    h = (
        hess[np.ix_(others, others)]
        - hess[others, ref][:, None]
        - hess[ref, others][None, :]
        + hess[ref, ref]
    )
    return others, g, h


def _solve(h, g):
    try:
        return np.linalg.solve(h, g)
    except np.linalg.LinAlgError:
        return np.linalg.lstsq(h, g, rcond=None)[0]


def fisher_covariance(U, counts, w, s=1.0, t=0.0) -> NDArray[np.float64]:
    """Inverse observed Fisher information, mapped back to ``w``: ``B I^{-1} Bᵀ``.

    Computed on the categories with positive estimated mass; the others get
    zero variance.
    """
    p = w.size
    wi = np.maximum(w, FLOOR)
    free = np.flatnonzero(w > FLOOR)
    cov = np.zeros((p, p))
    if free.size < 2:
        return cov
    ref = free[np.argmax(w[free])]
    grad, hess = _grad_hess(U, counts, wi, s, t)
    others, _, h = _reduce(grad, hess, free, ref)
    info_inv = np.linalg.pinv(-h)
    b = np.vstack([np.eye(others.size), -np.ones(others.size)])
    idx = np.concatenate([others, [ref]])
    cov[np.ix_(idx, idx)] = b @ info_inv @ b.T
    return cov


def em(U, counts, w0, s=1.0, t=0.0, max_iter=1000, tol=1e-8):
    """Expectation–maximization (Section III); returns ``(w, n_iter)``."""
    w = np.asarray(w0, dtype=float).copy()
    for it in range(1, max_iter + 1):
        lik = s * (U @ w) + t
        expected = s * w * (U.T @ (counts / lik))
        new = expected / expected.sum()
        delta = np.max(np.abs(new - w))
        w = new
        if delta < tol:
            return w, it
    warnings.warn(
        f"EM did not converge in max_iter={max_iter} iterations (last change "
        f"{delta:.3g} > tol={tol}).",
        ConvergenceWarning,
        stacklevel=3,
    )
    return w, max_iter


def mle_newton(U, counts, w0, s=1.0, t=0.0, max_iter=200, tol=1e-8):
    """Maximum likelihood by active-set projected Newton; returns ``(w, n_iter)``.

    The log-likelihood is concave on the simplex.  Newton steps are taken in
    the free coordinates with the sum-to-one constraint eliminated, with a
    backtracking line search that stops at the boundary; a coordinate that
    reaches zero leaves the free set and re-enters when its KKT condition
    (gradient above the multiplier) is violated.
    """
    p = w0.size
    n = counts.sum()
    seen = (counts @ U) > 0
    w = np.where(seen, np.maximum(np.asarray(w0, dtype=float), 1e-3 / p), 0.0)
    w /= w.sum()
    free = np.flatnonzero(w > 0)
    ll = log_likelihood(U, counts, w, s, t)
    for it in range(1, max_iter + 1):
        grad, hess = _grad_hess(U, counts, w, s, t)
        if free.size <= 1:
            lam = grad[free].max() if free.size else 0.0
            kkt = np.flatnonzero(seen & (w == 0) & (grad > lam * (1 + 1e-9)))
            if kkt.size == 0:
                return w, it
            free = np.union1d(free, kkt)
            continue
        ref = free[np.argmax(w[free])]
        others, g, h = _reduce(grad, hess, free, ref)
        d_theta = -_solve(h, g)
        d = np.zeros(p)
        d[others] = d_theta
        d[ref] = -d_theta.sum()
        # A zero coordinate the step would push negative leaves the free set.
        stuck = free[(w[free] <= 0) & (d[free] < 0)]
        if stuck.size:
            free = np.setdiff1d(free, stuck)
            continue
        neg = d < 0
        step_max = np.min(w[neg] / -d[neg]) if np.any(neg) else np.inf
        step = min(1.0, step_max)
        slope = grad @ d
        new_ll = log_likelihood(U, counts, w + step * d, s, t)
        # ``not >=`` also rejects NaN/-inf (a report whose coverage hits 0).
        while not new_ll >= ll + 1e-4 * step * slope and step > 1e-12:
            step *= 0.5
            new_ll = log_likelihood(U, counts, w + step * d, s, t)
        w_new = w + step * d
        if step == step_max:
            w_new[np.flatnonzero(neg)[np.argmin(w[neg] / -d[neg])]] = 0.0
        w = np.maximum(w_new, 0.0)
        w /= w.sum()
        free = np.flatnonzero(w > 0)
        improvement = new_ll - ll
        ll = log_likelihood(U, counts, w, s, t)
        small = abs(improvement) <= tol * n or np.max(np.abs(step * d)) < tol
        if small:
            grad, _ = _grad_hess(U, counts, np.maximum(w, 0), s, t)
            lam = np.max(grad[free])
            kkt = np.flatnonzero(seen & (w == 0) & (grad > lam * (1 + 1e-9)))
            if kkt.size == 0:
                return w, it
            w[kkt] = 1e-6
            w /= w.sum()
            free = np.flatnonzero(w > 0)
            ll = log_likelihood(U, counts, w, s, t)
    warnings.warn(
        f"Newton's method for the MLE did not converge in max_iter={max_iter} "
        "iterations.",
        ConvergenceWarning,
        stacklevel=3,
    )
    return w, max_iter


def one_step(U, counts, w_mom, s=1.0, t=0.0) -> NDArray[np.float64]:
    """One safeguarded Newton step from the projected MoM.

    The step is ``θ̂ - [∇²ℓ]^{-1} ∇ℓ`` with ``θ = (w_1, ..., w_{p-1})`` and
    ``w_p = 1 - sum θ`` (the paper's eq. (7) writes "+", an erratum: with the
    Hessian the Newton step subtracts).  It is taken in full unless it
    leaves the simplex or lowers the likelihood; then it is halved until it
    does neither.  When a rare category's MoM sits at the simplex boundary,
    the undamped step can be enormous (mean losses of 10⁴ and more in
    Table III's setting); the safeguard removes that, reproduces the paper's
    ONE row, and leaves the asymptotics alone because the full step is
    accepted with probability tending to one.
    """
    w = interior(w_mom)
    p = w.size
    grad, hess = _grad_hess(U, counts, w, s, t)
    others, g, h = _reduce(grad, hess, np.arange(p), p - 1)
    step = np.zeros(p)
    step[others] = -_solve(h, g)
    step[p - 1] = -step[others].sum()
    if not np.all(np.isfinite(step)):
        warnings.warn(
            "The one-step Newton update is not finite (singular information at "
            "the projected MoM); returning the projected MoM.",
            ConvergenceWarning,
            stacklevel=3,
        )
        return w
    start = log_likelihood(U, counts, w, s, t)
    scale = 1.0
    for _ in range(60):
        candidate = w + scale * step
        if (
            np.all(candidate > 0)
            and log_likelihood(U, counts, candidate, s, t) >= start
        ):
            return candidate
        scale *= 0.5
    return w


def limit_covariance(design, w, method="mle") -> NDArray[np.float64]:
    """Limit of ``n Cov(ŵ)`` (its trace is the limit of ``n E||ŵ - w||²``).

    ``method="mom"``: ``Q^{-1} C Q^{-1} / s²`` with ``C = H - γγᵀ`` (the
    uniform closed form uses ``(r/(r-1))² C / s²`` instead); ``"mle"``:
    ``B I(θ)^{-1} Bᵀ``.  Sums over every subset of the design.
    """
    from ._design import masks_to_indicators, uniform_ratio

    design._require_enumeration("The limit covariance")
    w = np.asarray(w, dtype=float)
    p = w.size
    ind = masks_to_indicators(design._masks, p).astype(float)
    s = design.scale
    lik = design.coverage(ind, w)
    prob = design._mu * lik
    if method in ("mom", "mom-closed"):
        gam = prob @ ind
        c = (ind.T * prob) @ ind - np.outer(gam, gam)
        if method == "mom-closed":
            r = uniform_ratio(p)
            return (r / (r - 1.0)) ** 2 * c / (s * s)
        qinv = np.linalg.inv(design.q_matrix())
        return qinv @ c @ qinv.T / (s * s)
    b = np.vstack([np.eye(p - 1), -np.ones(p - 1)])
    ub = s * ind @ b
    info = (ub.T * (prob / lik**2)) @ ub
    return b @ np.linalg.inv(info) @ b.T
