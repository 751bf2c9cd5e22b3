"""Active-set Newton iterations for many interval NPMLEs at once.

The resampling intervals of :class:`IntervalNPMLE` need the NPMLE of
hundreds of row draws.  Its EM-ICM iteration converges linearly (the
optimality gap falls by a factor of a few per iteration), so a replicate
costs ten to twenty passes over its rows however well it is started.  The
NPMLE of interval data holds its mass on few innermost intervals (a few
dozen at a few thousand rows), and on its support the log-likelihood is
smooth: Newton's method there converges quadratically.  This module runs
the support reduction algorithm of Groeneboom, Jongbloed & Wellner (2008)
on all replicates side by side, one per row of padded arrays:

* the objective is ``phi(s) = sum_i w_i log P_i(s) - sum_j s_j`` over
  ``s >= 0``; its maximizer sums to one and is the NPMLE, and its gradient
  is ``d_j - 1`` with ``d`` the gradient of the log-likelihood, so the
  fit's optimality gap ``max_j d_j - 1`` (at the masses scaled to sum to
  one) is the stopping rule here too;
* each iteration adds to the support, in every gap between its cells, the
  cell where ``d`` is largest if it is above one; takes the Newton step of
  ``phi`` on the support (the negative Hessian there is a cumulative sum
  of a small ``support x support`` table of the rows' ranges); where the
  step would make masses negative, moves only until the first one reaches
  zero, drops that cell and solves again on the smaller support (a cell
  just added whose mass would go negative leaves at once); and backtracks
  along the step until the Armijo condition holds (the gain
  ``sum_i w_i log1p(dP_i / P_i) - sum_j ds_j`` is exact where differencing
  two log-likelihoods would lose it to rounding near the optimum).

A replicate stops when its gap is at most ``target``; one that does not
(stalled or out of iterations) is reported unconverged and left to the
caller.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray

__all__ = ["armijo_search", "solve_active_set"]

_ARMIJO = 0.1
_MAX_HALVINGS = 30
# Relative ridge on the Newton systems: the support's Hessian is singular
# only where the NPMLE's masses are not unique (several masses give the same
# row probabilities), and then any of the solutions serves.
_RIDGE = 1e-13


class _Rows:
    """Padded rows of the live replicates and their flat cell indices."""

    def __init__(self, start: NDArray, stop: NDArray, w: NDArray, m: NDArray, M: int):
        B = w.shape[0]
        self.start, self.stop, self.w, self.m, self.M, self.B = start, stop, w, m, M, B
        base = (np.arange(B) * (M + 1))[:, None]
        self.fstart = start + base
        self.fstop = stop + base
        self.valid = np.arange(M)[None, :] < m[:, None]

    def subset(self, keep: NDArray) -> _Rows:
        return _Rows(
            self.start[keep], self.stop[keep], self.w[keep], self.m[keep], self.M
        )

    def cumulative(self, s: NDArray) -> NDArray:
        c = np.zeros((s.shape[0], self.M + 1))
        np.cumsum(s, axis=1, out=c[:, 1:])
        return c.ravel()

    def probabilities(self, s: NDArray) -> NDArray:
        c = self.cumulative(s)
        return np.take(c, self.fstop) - np.take(c, self.fstart)

    def counts(self, index: NDArray, weights: NDArray, width: int) -> NDArray:
        out = np.bincount(index.ravel(), weights.ravel(), minlength=self.B * width)
        return out.reshape(self.B, width)

    def gradient(self, r: NDArray) -> NDArray:
        W = self.M + 1
        d = np.cumsum(self.counts(self.fstart, r, W) - self.counts(self.fstop, r, W), 1)
        return np.where(self.valid, d[:, : self.M], -np.inf)


def _weighted_ratio(w: NDArray, P: NDArray, where: NDArray | None = None) -> NDArray:
    """``w / P`` where ``where`` (default ``w > 0``), 0 elsewhere, silently.

    A row of positive weight and probability zero gives ``inf`` (the
    replicate's gap is then not finite and it stops, see
    :func:`solve_active_set`).
    """
    where = w > 0 if where is None else where
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.divide(w, P, out=np.zeros_like(P), where=where)


def _new_cells(d: NDArray, support: NDArray, valid: NDArray) -> NDArray:
    """In each gap of the support, the cell where ``d`` is largest, if above one."""
    B, M = d.shape
    free = valid & ~support
    dm = np.where(free, d, -np.inf).ravel()
    # Gaps start at each replicate's first cell and after each support cell.
    head = np.zeros((B, M), dtype=bool)
    head[:, 0] = True
    head[:, 1:] |= support[:, :-1]
    heads = np.flatnonzero(head)
    best = np.maximum.reduceat(dm, heads)
    gap_of = np.cumsum(head.ravel()) - 1
    return ((dm == best[gap_of]) & (dm > 1.0)).reshape(B, M)


def _hessian(rows: _Rows, r2: NDArray, alpha: NDArray, beta: NDArray, K: int):
    """Negative Hessian of ``phi`` on the support, ``(B, K, K)``.

    Row ``i`` holds the support cells ``alpha_i <= a < beta_i``; the entry
    ``(a, b)``, ``a <= b``, sums ``w_i / P_i^2`` over the rows holding
    both, that is over ``alpha_i <= a`` and ``beta_i - 1 >= b``: a table of
    the rows by ``(alpha_i, beta_i - 1)``, summed down and leftwards.  A
    row holding no support cell (``alpha_i = beta_i``: a row of weight
    zero, as every other row has a positive probability) has no entry.
    """
    B = rows.B
    index = (np.arange(B)[:, None] * K + alpha) * K + (beta - 1)
    held = beta > alpha
    table = rows.counts(np.where(held, index, 0), np.where(held, r2, 0.0), K * K)
    table = table.reshape(B, K, K)
    np.cumsum(table, axis=1, out=table)
    upper = np.cumsum(table[:, :, ::-1], axis=2)[:, :, ::-1]
    return np.triu(upper) + np.triu(upper, 1).transpose(0, 2, 1)


def _solve(H: NDArray, rhs: NDArray, keep: NDArray) -> NDArray:
    """``H z = rhs`` on the kept slots of each replicate, ``z = 0`` elsewhere."""
    K = H.shape[1]
    both = keep[:, :, None] & keep[:, None, :]
    A = np.where(both, H, 0.0)
    diag = np.einsum("bii->bi", A)
    scale = np.maximum(diag.max(axis=1, initial=0.0), np.finfo(float).tiny)
    eye = np.arange(K)
    A[:, eye, eye] = np.where(keep, diag + _RIDGE * scale[:, None], 1.0)
    z = np.linalg.solve(A, np.where(keep, rhs, 0.0)[:, :, None])[:, :, 0]
    return np.where(keep, z, 0.0)


def _support_step(H: NDArray, g: NDArray, sA: NDArray, valid: NDArray) -> NDArray:
    """The support-reduction target of the quadratic model at ``sA``.

    Maximizes ``g.(z - sA) - (z - sA).H.(z - sA) / 2`` over the slots kept;
    while the maximizer has a negative entry, moves from the current point
    towards it until the first mass reaches zero, drops that slot and
    solves again (Groeneboom, Jongbloed & Wellner, 2008).
    """
    rhs = g + np.einsum("bjl,bl->bj", H, sA)
    keep = valid & True
    current = sA.copy()
    target = np.zeros_like(sA)
    todo = np.arange(sA.shape[0])
    for _ in range(sA.shape[1] + 1):
        z = _solve(H[todo], rhs[todo], keep[todo])
        negative = keep[todo] & (z < 0)
        fine = ~negative.any(axis=1) | ~np.isfinite(z).all(axis=1)
        target[todo[fine]] = z[fine]
        todo, z, negative = todo[~fine], z[~fine], negative[~fine]
        if todo.size == 0:
            break
        cur = current[todo]
        # Cells at zero that the maximizer makes negative leave at once;
        # otherwise move until the first mass reaches zero and drop it.
        empty = negative & (cur <= 0.0)
        with np.errstate(divide="ignore", invalid="ignore"):
            t = np.where(negative, cur / (cur - z), np.inf)
        first = np.argmin(t, axis=1)
        rows = np.arange(todo.size)
        t = np.clip(t[rows, first], 0.0, 1.0)
        t = np.where(empty.any(axis=1), 0.0, t)[:, None]
        cur = np.where(keep[todo], cur + t * (z - cur), 0.0)
        cur[rows, first] = 0.0
        drop = negative & (cur <= 0.0)
        drop[rows, first] = True
        current[todo] = np.clip(cur, 0.0, None)
        keep[todo] &= ~drop
    return target


def armijo_search(
    ratio: NDArray,
    w: NDArray,
    slope: NDArray,
    pending: NDArray,
    linear: NDArray | None = None,
    confirm: Callable[[NDArray, NDArray, NDArray], NDArray] | None = None,
) -> tuple[NDArray, NDArray, NDArray]:
    """Backtracking along a direction, every replicate at once.

    Replicate ``b`` moves by ``lam`` times its direction, which changes row
    ``i``'s probability by the factor ``1 + lam * ratio[b, i]`` and the
    objective by the gain
    ``sum_i w[b, i] log1p(lam * ratio[b, i]) - lam * linear[b]``.  Starting
    at ``lam = 1``, the step is halved (at most ``_MAX_HALVINGS`` tries)
    until every row keeps a positive probability and the gain is at least
    ``_ARMIJO * lam * slope[b]``; ``confirm(b, lam, gain)``, when given, is
    asked about the replicates accepted in a round and may still refuse
    some (they go on halving).

    Parameters
    ----------
    ratio, w : ndarray of shape (B, R)
        Relative change of each row's probability per unit step; row
        weights.
    slope : ndarray of shape (B,)
        Directional derivative of the objective at ``lam = 0``.
    pending : ndarray of bool, shape (B,)
        The replicates searched (the others keep ``lam = 1``, unaccepted).
    linear : ndarray of shape (B,), optional
        Linear part of the objective's change per unit step.
    confirm : callable, optional
        ``confirm(b, lam, gain)`` on the replicates ``b`` passing the test
        in a round, returning which of them are accepted.

    Returns
    -------
    lam : ndarray of shape (B,)
        The step accepted (for others, the last one tried, halved).
    accepted : ndarray of bool, shape (B,)
    gain : ndarray of shape (B,)
        The gain at the accepted step (NaN where none was).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval._npmle_active_set import armijo_search
    >>> lam, ok, gain = armijo_search(
    ...     np.array([[-1.5, 3.0]]),
    ...     np.array([[0.5, 0.5]]),
    ...     np.array([0.75]),
    ...     np.array([True]),
    ... )
    >>> lam.tolist(), ok.tolist()  # 1 leaves a row negative, 0.5 loses
    ([0.25], [True])
    """
    lam = np.ones(slope.shape[0])
    pending = pending.copy()
    accepted = np.zeros(slope.shape[0], dtype=bool)
    gains = np.full(slope.shape[0], np.nan)
    for _ in range(_MAX_HALVINGS):
        idx = np.flatnonzero(pending)
        if idx.size == 0:
            break
        change = ratio[idx] * lam[idx, None]
        positive = change.min(axis=1) > -1.0
        with np.errstate(invalid="ignore", divide="ignore"):
            gain = np.einsum("ij,ij->i", np.log1p(change), w[idx])
        if linear is not None:
            gain -= lam[idx] * linear[idx]
        ok = positive & (gain >= _ARMIJO * lam[idx] * slope[idx])
        if confirm is not None and ok.any():
            ok[ok] = confirm(idx[ok], lam[idx[ok]], gain[ok])
        accepted[idx[ok]] = True
        gains[idx[ok]] = gain[ok]
        pending[idx[ok]] = False
        lam[idx[~ok]] *= 0.5
    return lam, accepted, gains


def solve_active_set(
    start: NDArray,
    stop: NDArray,
    w: NDArray,
    m: NDArray,
    s0: NDArray,
    target: float,
    max_iter: int,
) -> tuple[NDArray, NDArray, NDArray]:
    """The NPMLE of each replicate by support reduction from ``s0``.

    Parameters
    ----------
    start, stop : ndarray of int64, shape (B, R)
        Row ``i`` of replicate ``b`` holds its cells
        ``start[b, i] <= j < stop[b, i]``.
    w : ndarray of shape (B, R)
        Row weights, summing to one per replicate (padding rows weigh 0).
    m : ndarray of int, shape (B,)
        Cells of each replicate (at most ``s0.shape[1]``).
    s0 : ndarray of shape (B, M)
        Start: non-negative masses, zero beyond ``m``, giving every row of
        positive weight a positive probability.
    target : float
        Stop when the optimality gap ``max_j d_j - 1`` at the masses scaled
        to sum to one is at most ``target``.
    max_iter : int
        Newton iterations at most.

    Returns
    -------
    masses : ndarray of shape (B, M)
        Summing to one.
    converged : ndarray of bool, shape (B,)
    n_iter : ndarray of int, shape (B,)
        Newton steps taken.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval._npmle_active_set import solve_active_set
    >>> start, stop = np.array([[0, 0, 1]]), np.array([[1, 2, 2]])
    >>> w = np.array([[0.5, 0.25, 0.25]])
    >>> s, ok, _ = solve_active_set(
    ...     start, stop, w, np.array([2]), np.array([[0.5, 0.5]]), 1e-12, 50
    ... )
    >>> s.round(6).tolist(), ok.tolist()
    ([[0.666667, 0.333333]], [True])
    """
    B, M = s0.shape
    rows = _Rows(start, stop, w, np.asarray(m), M)
    masses = np.full((B, M), np.nan)
    converged = np.zeros(B, dtype=bool)
    n_iter = np.zeros(B, dtype=np.int64)
    live = np.arange(B)
    s = s0.copy()
    P = rows.probabilities(s)
    moved = np.ones(B, dtype=bool)
    for it in range(max_iter + 1):
        # A row of weight zero adds nothing, whatever its probability (a
        # padding row, or a row a replicate did not draw, may have none).
        r = _weighted_ratio(rows.w, P)
        with np.errstate(invalid="ignore"):  # inf - inf: that gap is not finite
            d = rows.gradient(r)
        total = s.sum(axis=1)
        gap = d.max(axis=1) * total - 1.0
        done = (gap <= target) | ~np.isfinite(gap)
        if it == max_iter:
            done[:] = True
        # No step improves phi in floating point: the gap is final.
        done |= ~moved
        if done.any():
            ok = done & np.isfinite(gap)
            masses[live[ok]] = s[ok] / total[ok, None]
            n_iter[live[done]] = it
            converged[live[done]] = ok[done] & (gap[done] <= target)
            keep = ~done
            if not keep.any():
                break
            live, rows = live[keep], rows.subset(keep)
            s, P, r, d = s[keep], P[keep], r[keep], d[keep]
        s, P, moved = _newton_step(rows, s, P, r, d)
    return masses, converged, n_iter


def _newton_step(
    rows: _Rows, s: NDArray, P: NDArray, r: NDArray, d: NDArray
) -> tuple[NDArray, NDArray, NDArray]:
    """One support-reduction Newton step of every live replicate."""
    B, M = s.shape
    support = s > 0
    support |= _new_cells(d, support, rows.valid)
    count = np.zeros((B, M + 1), dtype=np.int64)
    np.cumsum(support, axis=1, out=count[:, 1:])
    K = int(count[:, -1].max())
    flat = count.ravel()
    alpha, beta = np.take(flat, rows.fstart), np.take(flat, rows.fstop)
    r2 = _weighted_ratio(r, P, rows.w > 0)
    H = _hessian(rows, r2, alpha, beta, K)
    b, j = np.nonzero(support)
    slot = count[b, j]
    sA = np.zeros((B, K))
    sA[b, slot] = s[b, j]
    g = np.zeros((B, K))
    g[b, slot] = d[b, j] - 1.0
    valid = np.arange(K)[None, :] < count[:, -1][:, None]
    step = _support_step(H, g, sA, valid) - sA
    slope = np.sum(g * step, axis=1)
    # The step in the cells, and the relative change of each row's
    # probability per unit step.
    ds = np.zeros((B, M))
    ds[b, j] = step[b, slot]
    dc = rows.cumulative(ds)
    with np.errstate(divide="ignore", invalid="ignore"):
        ratio = (np.take(dc, rows.fstop) - np.take(dc, rows.fstart)) / P
    ratio = np.where(rows.w > 0, ratio, 0.0)
    mass_change = ds.sum(axis=1)
    pending = np.isfinite(slope) & (slope > 0) & np.isfinite(ratio).all(axis=1)
    lam, accepted, _ = armijo_search(ratio, rows.w, slope, pending, mass_change)
    moved = accepted
    s_new = np.where(moved[:, None], np.clip(s + lam[:, None] * ds, 0.0, None), s)
    return s_new, rows.probabilities(s_new), moved
