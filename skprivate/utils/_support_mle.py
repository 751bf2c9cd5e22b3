"""Maximum likelihood of a category distribution seen through 0/1 supports.

Reports ``a`` whose likelihood given the category ``v`` is affine in one
0/1 indicator, ``P(a | v) ∝ s 1[v in a] + t``, give the log-likelihood

    l(w) = sum_a n_a log(s 1_aᵀw + t)

of the category distribution ``w`` on the simplex, where ``U`` holds the
distinct supports ``1_a`` as 0/1 rows and ``n_a`` their counts.  A
reported set of categories whose probability depends on the true one
only through membership, and a randomized report that "supports" some
categories (more likely, by a factor ``1 + s``, under each of them), are
both of this form.  The routines
here are the EM map with its SQUAREM acceleration, an active-set projected
Newton method, and the observed Fisher information, on the counts of
distinct supports: after one pass over the data their cost depends on the
number of distinct supports, never on ``n``.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import NDArray
from sklearn.exceptions import ConvergenceWarning

from ._warnings import external_stacklevel

__all__ = [
    "FLOOR",
    "SupportMatrix",
    "as_matrix",
    "em",
    "fisher_covariance",
    "interior",
    "log_likelihood",
    "mle_newton",
    "project_simplex",
]

FLOOR = 1e-10

# Above this many bytes a float64 copy of the supports is not made: products
# with ``U`` are taken block by block from the int8 rows instead.
DENSE_BYTES = 32 * 2**20
BLOCK_ROWS = 16_384


class SupportMatrix:
    """The distinct supports ``U`` (``k x p`` 0/1) as a linear operator.

    Small matrices are held as float64 and multiplied directly (exactly the
    products of a plain array).  Large ones are kept as int8 rows and
    multiplied block by block, converting ``BLOCK_ROWS`` rows to float64 at
    a time, so the memory of an estimator is ``k p`` bytes plus one block
    instead of ``8 k p`` bytes (plus as much again for a weighted copy).

    Parameters
    ----------
    U : array-like of shape (k, p)
        0/1 rows.
    """

    def __init__(self, U) -> None:
        U = np.asarray(U)
        if U.ndim != 2:
            raise ValueError(f"U must be 2-D; got shape {U.shape}.")
        self.shape = U.shape
        if U.dtype == np.float64 or U.size * 8 <= DENSE_BYTES:
            self._dense = np.asarray(U, dtype=float)
            self._rows = None
        else:
            self._dense = None
            self._rows = np.ascontiguousarray(U, dtype=np.int8)

    def _blocks(self):
        rows = self._rows
        buf = np.empty((min(BLOCK_ROWS, rows.shape[0]), rows.shape[1]))
        for start in range(0, rows.shape[0], BLOCK_ROWS):
            block = rows[start : start + BLOCK_ROWS]
            out = buf[: block.shape[0]]
            np.copyto(out, block)
            yield start, out

    def dot(self, w) -> NDArray[np.float64]:
        """``U @ w``."""
        if self._dense is not None:
            return self._dense @ w
        out = np.empty(self.shape[0])
        for start, block in self._blocks():
            out[start : start + block.shape[0]] = block @ w
        return out

    def tdot(self, r) -> NDArray[np.float64]:
        """``Uᵀ @ r``."""
        if self._dense is not None:
            return self._dense.T @ r
        out = np.zeros(self.shape[1])
        for start, block in self._blocks():
            out += block.T @ r[start : start + block.shape[0]]
        return out

    def gram(self, c) -> NDArray[np.float64]:
        """``Uᵀ diag(c) U``."""
        if self._dense is not None:
            return (self._dense.T * c) @ self._dense
        out = np.zeros((self.shape[1], self.shape[1]))
        for start, block in self._blocks():
            out += (block.T * c[start : start + block.shape[0]]) @ block
        return out


def as_matrix(U) -> SupportMatrix:
    """``U`` as a :class:`SupportMatrix` (unchanged if it already is one)."""
    return U if isinstance(U, SupportMatrix) else SupportMatrix(U)


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
    lik = s * as_matrix(U).dot(w) + t
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(counts @ np.log(lik))


def _grad_hess(U, counts, w, s, t):
    U = as_matrix(U)
    lik = s * U.dot(w) + t
    r = counts / lik
    grad = s * U.tdot(r)
    hess = -(s * s) * U.gram(counts / lik**2)
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


def _em_step(U, counts, w, s, t):
    """One EM update from ``w``; also returns the log-likelihood at ``w``."""
    lik = s * U.dot(w) + t
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = float(counts @ np.log(lik))
    expected = s * w * U.tdot(counts / lik)
    return expected / expected.sum(), ll


def _em_not_converged(max_iter, delta, tol):
    warnings.warn(
        f"EM did not converge in max_iter={max_iter} iterations (last change "
        f"{delta:.3g} > tol={tol}).",
        ConvergenceWarning,
        stacklevel=external_stacklevel(),
    )


def em(U, counts, w0, s=1.0, t=0.0, max_iter=1000, tol=1e-8, acceleration=None):
    """Expectation–maximization; returns ``(w, n_iter)``.

    Parameters
    ----------
    U, counts, w0, s, t
        Distinct supports, their counts, the start and the affine
        map (see the module docstring).
    max_iter : int
        Largest number of EM updates (with SQUAREM: of evaluations of the
        EM map, so the limit bounds the same work).
    tol : float
        Stop when an EM update changes no coordinate by more than ``tol``.
    acceleration : {None, "squarem"}
        ``None``: the plain fixed-point iteration of the paper;
        ``"squarem"``: SQUAREM (Varadhan and Roland, 2008, scheme S3).
        Both stop on the same criterion, evaluated on a plain EM update, and
        have the same fixed points.

    Returns
    -------
    w : ndarray
        The last EM update.
    n_iter : int
        Number of EM updates computed.
    """
    if acceleration not in (None, "squarem"):
        raise ValueError(
            f"acceleration must be None or 'squarem'; got {acceleration!r}."
        )
    U = as_matrix(U)
    w = np.asarray(w0, dtype=float).copy()
    if acceleration == "squarem":
        return _squarem(U, counts, w, s, t, max_iter, tol)
    delta = np.inf
    for it in range(1, max_iter + 1):
        new, _ = _em_step(U, counts, w, s, t)
        delta = np.max(np.abs(new - w))
        w = new
        if delta < tol:
            return w, it
    _em_not_converged(max_iter, delta, tol)
    return w, max_iter


def _squarem(U, counts, w, s, t, max_iter, tol):
    """SQUAREM S3 on the simplex with a monotone likelihood safeguard.

    One cycle from ``w0``: two EM updates ``w1 = F(w0)``, ``w2 = F(w1)``;
    with ``r = w1 - w0``, ``v = w2 - w1 - r`` and the steplength
    ``a = ||r|| / ||v||``, clipped to ``[1, a_max]``, the extrapolation
    ``w0 + 2 a r + a² v`` (which keeps the sum ``1``) is projected onto the
    simplex.  It is accepted when its log-likelihood is at least that of
    ``w0``; otherwise the cycle ends at ``w2``, a plain double EM update
    (``a = 1``; EM never lowers the likelihood).  As in Varadhan and
    Roland's SQUAREM package, ``a_max`` starts at 1, grows 4× when a step
    at the cap is accepted and shrinks 4× when one is rejected.  The EM
    update ``F(w')`` that tests ``w'`` computes its likelihood and is the
    first update of the next cycle, which starts at ``w'``: a cycle costs
    two EM updates, a rejected step one more.

    The projection lets a coordinate reach 0 exactly, which is where plain
    EM creeps towards, sublinearly, when the maximum lies on the boundary.
    EM cannot leave 0, so at convergence a zero coordinate whose gradient
    exceeds the multiplier of the positive ones (the Karush–Kuhn–Tucker
    condition fails) is given mass again and the iteration goes on.
    """
    n_eval = 0
    delta = np.inf
    w1 = ll0 = None
    step_max = 1.0
    while n_eval < max_iter:
        if w1 is None:
            w1, ll0 = _em_step(U, counts, w, s, t)
            n_eval += 1
        r = w1 - w
        delta = np.max(np.abs(r))
        if delta < tol:
            zero = w <= 0
            if not zero.any():
                return w1, n_eval
            lik = s * U.dot(w) + t
            grad = s * U.tdot(counts / lik)
            lam = np.max(grad[~zero])
            revive = zero & (grad > lam * (1 + 1e-9))
            if not revive.any():
                return w1, n_eval
            w = w1.copy()
            w[revive] = max(tol, 1e-6)
            w /= w.sum()
            w1 = None
            continue
        if n_eval >= max_iter:
            break
        w2, _ = _em_step(U, counts, w1, s, t)
        n_eval += 1
        v = w2 - w1 - r
        norm_v = np.sqrt(v @ v)
        alpha = np.sqrt(r @ r) / norm_v if norm_v > 0 else 1.0
        alpha = min(max(alpha, 1.0), step_max)
        if alpha > 1.0:
            cand = w + 2.0 * alpha * r + alpha * alpha * v
            if np.any(cand < 0):
                cand = project_simplex(cand)
            new, ll_cand = _em_step(U, counts, cand, s, t)
            n_eval += 1
            if ll_cand >= ll0:
                if alpha == step_max:
                    step_max *= 4.0
                # ``new = F(cand)`` is the first EM update of the next
                # cycle, which starts at ``cand``: it gives the convergence
                # test and the likelihood of ``cand`` at no extra cost.
                w, w1, ll0 = cand, new, ll_cand
                continue
            if alpha == step_max:
                step_max = max(1.0, step_max / 4.0)
        elif step_max == 1.0:
            step_max = 4.0
        w, w1 = w2, None
    _em_not_converged(max_iter, delta, tol)
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
    U = as_matrix(U)
    seen = U.tdot(counts) > 0
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
        stacklevel=external_stacklevel(),
    )
    return w, max_iter
