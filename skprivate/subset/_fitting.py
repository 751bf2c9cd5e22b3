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

from ..utils._support_mle import (  # noqa: F401 (the subset estimators' solvers)
    FLOOR,
    SupportMatrix,
    _em_not_converged,
    _em_step,
    _grad_hess,
    _reduce,
    _solve,
    _squarem,
    as_matrix,
    em,
    fisher_covariance,
    interior,
    log_likelihood,
    mle_newton,
    project_simplex,
)
from ..utils._warnings import external_stacklevel

#: The distinct subsets as a linear operator (the shared support operator).
SubsetMatrix = SupportMatrix


def gamma_hat(U, counts) -> NDArray[np.float64]:
    """``n^{-1} sum_i 1_{a_i}``."""
    return as_matrix(U).tdot(counts) / counts.sum()


def second_moment(U, counts) -> NDArray[np.float64]:
    """``n^{-1} sum_i 1_{a_i} 1_{a_i}ᵀ``."""
    return as_matrix(U).gram(counts) / counts.sum()


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
            stacklevel=external_stacklevel(),
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
