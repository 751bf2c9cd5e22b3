"""Many NPMLE refits at once: the replicates of the resampling intervals.

The bootstrap and subsampling intervals of :class:`IntervalNPMLE` refit the
estimator on hundreds of row draws of the same data.  Refitted one by one,
each costs about a fit: at a few thousand rows the EM-ICM iteration is
dominated by the fixed cost of its numpy calls, not by its arithmetic.
Here every replicate is the same computation, done for all replicates at
once:

* the endpoints of the data are sorted once; a replicate's endpoints, in
  the same order, are the positions of its rows, so its innermost
  intervals and the range of innermost intervals each of its rows contains
  follow without sorting again (:func:`replicate_problems`);
* the EM-ICM iteration of :class:`~._npmle_likelihood.IntervalLikelihood`
  runs on all replicates side by side, one replicate per row of padded
  ``(replicates, rows)`` arrays, every step taken per replicate as the
  single fit takes it (same start, same SQUAREM cycle, same ICM step and
  line search, same stopping rule); a replicate leaves the batch when it
  stops (:class:`_Batch`).

The replicates are therefore those of the one-by-one refits up to rounding
(the sums of the batch run in another order), and to the solver's tolerance
where rounding moves a stopping decision by an iteration.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..utils.validation import check_interval_array
from ._identified import check_value_bounds
from ._npmle_likelihood import endpoint_order

__all__ = [
    "ReplicateProblems",
    "replicate_problems",
    "resampled_statistics",
    "solve_batch",
]

# Armijo constant and step halvings of the ICM line search (as the fit's).
_ARMIJO = 0.1
_MAX_HALVINGS = 30
# Replicates set up and solved together: about this many (replicate, drawn
# row) cells per batch, which bounds its memory (a few tens of MB; the dense
# set-up below is used only when it is at most four times this).
_CELLS = 2_000_000


def _isotonic_blocks():
    """scipy's PAVA returning its pools, or None before scipy 1.12."""
    try:
        from scipy.optimize import isotonic_regression
    except ImportError:  # pragma: no cover - old scipy
        return None
    return isotonic_regression


class ReplicateProblems:
    """The likelihoods of the replicates, padded to common sizes.

    Replicate ``b`` has ``m[b]`` innermost intervals ``left[b, :m[b]]``,
    ``right[b, :m[b]]`` and ``n_rows[b]`` pooled rows: row ``i`` contains
    the innermost intervals ``start[b, i] <= j < stop[b, i]`` and has
    weight ``w[b, i]`` (its count over the replicate's size).  Padding rows
    contain every innermost interval of their replicate and weigh zero.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval._npmle_resampling import replicate_problems
    >>> Z = np.array([[0.0, 2.0], [1.0, 3.0], [2.5, 4.0]])
    >>> p = replicate_problems(Z, [0, 0, 0], [0, 1, 2], [2, 1, 1], 1)
    >>> p.left.tolist(), p.right.tolist()  # innermost (1, 2] and (2.5, 3]
    ([[1.0, 2.5]], [[2.0, 3.0]])
    >>> p.start.tolist(), p.stop.tolist(), p.w.tolist()
    ([[0, 0, 1]], [[1, 2, 2]], [[0.5, 0.25, 0.25]])
    """

    def __init__(self, left, right, m, start, stop, w, n_rows) -> None:
        self.left, self.right, self.m = left, right, m
        self.start, self.stop, self.w, self.n_rows = start, stop, w, n_rows


def _endpoints(Z: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """Sorted endpoint order of the data (the fit's tie rule) and its parts."""
    n = Z.shape[0]
    lo, hi = Z[:, 0], Z[:, 1]
    values = np.concatenate([lo, hi])
    tags = np.concatenate(
        [np.where(lo == hi, 0, 2).astype(np.int8), np.ones(n, dtype=np.int8)]
    )
    order, sorted_vals = endpoint_order(values, tags)
    return order, sorted_vals.copy(), tags[order] != 1


def replicate_problems(
    Z: NDArray,
    block: NDArray,
    row: NDArray,
    count: NDArray,
    n_blocks: int,
    sorted_ends: tuple | None = None,
) -> ReplicateProblems:
    """Innermost intervals and pooled rows of each replicate.

    Parameters
    ----------
    Z : ndarray of shape (n, 2)
        The data (validated interval rows).
    block, row, count : ndarray of int
        The draws: row ``row[k]`` is drawn ``count[k] > 0`` times in
        replicate ``block[k]``; sorted by ``(block, row)``, each pair once.
    n_blocks : int
        Number of replicates (each draws at least one row).
    sorted_ends : tuple, optional
        ``_endpoints(Z)``, when already computed.

    Returns
    -------
    ReplicateProblems
        A replicate's innermost intervals are those of its rows, found from
        the data's sorted endpoints; its rows are pooled by the range of
        innermost intervals they contain, in the order of the fit.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval._npmle_resampling import replicate_problems
    >>> Z = np.array([[0.0, 2.0], [1.0, 3.0], [2.5, 4.0]])
    >>> block, row = np.array([0, 0, 1, 1]), np.array([0, 1, 1, 2])
    >>> p = replicate_problems(Z, block, row, np.ones(4, dtype=int), 2)
    >>> p.m.tolist(), p.left[0, :1].tolist(), p.right[1, :1].tolist()
    ([1, 1], [1.0], [3.0])
    """
    n = Z.shape[0]
    B = n_blocks
    block, row = np.asarray(block, dtype=np.int64), np.asarray(row, dtype=np.int64)
    count = np.asarray(count, dtype=float)
    nnz = row.size
    order, sorted_vals, is_left = sorted_ends or _endpoints(Z)
    # Each replicate's endpoints in the data's sorted order: its number
    # ``e_block``, the sorted position ``pos``, and the draw it belongs to.
    if 4 * nnz > B * n:
        drawn = np.zeros((B, n), dtype=bool)
        drawn[block, row] = True
        e_block, pos = np.nonzero(drawn[:, order % n])
        which = np.zeros(B * n, dtype=np.int64)
        which[block * n + row] = np.arange(nnz)
        lower = (order < n)[pos]
        draw = which[e_block * n + (order % n)[pos]]
    else:
        rank_of = np.empty(2 * n, dtype=np.int64)
        rank_of[order] = np.arange(2 * n)
        shift = block * (2 * n)
        keys = np.concatenate([shift + rank_of[row], shift + rank_of[row + n]])
        perm = np.argsort(keys, kind="stable")
        e_block, pos = np.divmod(keys[perm], 2 * n)
        lower = perm < nnz
        draw = np.where(lower, perm, perm - nnz)
    flat = pos
    left_end = is_left[pos]
    boundary = np.zeros(flat.size, dtype=bool)
    boundary[:-1] = left_end[:-1] & ~left_end[1:] & (e_block[1:] == e_block[:-1])
    k = np.flatnonzero(boundary)
    m = np.bincount(e_block[k], minlength=B)
    M = int(m.max())
    # Innermost intervals, padded with NaN.
    first = np.searchsorted(e_block[k], np.arange(B))
    slot = np.arange(k.size) - first[e_block[k]]
    left = np.full((B, M), np.nan)
    right = np.full((B, M), np.nan)
    left[e_block[k], slot] = sorted_vals[pos[k]]
    right[e_block[k], slot] = sorted_vals[pos[k + 1]]
    # Innermost left ends before each endpoint, within its replicate.
    before = np.cumsum(boundary) - boundary
    block_first = np.searchsorted(e_block, np.arange(B))
    before -= before[np.minimum(block_first, flat.size - 1)][e_block]
    ends = np.empty(2 * nnz, dtype=np.int64)
    ends[np.where(lower, draw, draw + nnz)] = before
    start, stop = ends[:nnz], ends[nnz:]
    # Pool rows by (start, stop) within each replicate, in the fit's order.
    # Taken in the order of their lower ends, the draws are sorted by
    # (replicate, start) already: the stable sort only orders the stops.
    by_start = draw[lower]
    width = M + 1
    key = (block[by_start] * width + start[by_start]) * width + stop[by_start]
    sort = np.argsort(key, kind="stable")
    key = key[sort]
    new_key = np.ones(key.size, dtype=bool)
    new_key[1:] = key[1:] != key[:-1]
    heads = np.flatnonzero(new_key)
    pooled = np.add.reduceat(count[by_start][sort], heads)
    pick = by_start[sort[heads]]
    b_key, r_start, r_stop = block[pick], start[pick], stop[pick]
    n_rows = np.bincount(b_key, minlength=B)
    R = int(n_rows.max())
    row_first = np.searchsorted(b_key, np.arange(B))
    col = np.arange(heads.size) - row_first[b_key]
    size = np.bincount(block, weights=count, minlength=B)
    P_start = np.zeros((B, R), dtype=np.int64)
    P_stop = np.repeat(m[:, None], R, axis=1).astype(np.int64)
    P_w = np.zeros((B, R))
    P_start[b_key, col] = r_start
    P_stop[b_key, col] = r_stop
    P_w[b_key, col] = pooled * (1.0 / size)[b_key]
    return ReplicateProblems(left, right, m, P_start, P_stop, P_w, n_rows)


class _Batch:
    """EM-ICM on many replicates at once (one per row of the arrays)."""

    def __init__(self, start, stop, w, m, M, isotonic) -> None:
        B = w.shape[0]
        self.B, self.M, self.m, self.w = B, M, m, w
        self.start, self.stop = start, stop
        base = (np.arange(B) * (M + 1))[:, None]
        self.fstart = (start + base).ravel()
        self.fstop = (stop + base).ravel()
        self.shape = w.shape
        self.valid = np.arange(M)[None, :] < m[:, None]
        self.isotonic = isotonic

    def cumulative(self, s: NDArray) -> NDArray:
        c = np.zeros((self.B, self.M + 1))
        np.cumsum(s, axis=1, out=c[:, 1:])
        return c

    def probabilities(self, s: NDArray) -> NDArray:
        c = self.cumulative(s).ravel()
        return (c[self.fstop] - c[self.fstart]).reshape(self.shape)

    def loglik_at(self, P: NDArray) -> NDArray:
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.einsum("ij,ij->i", np.log(P), self.w)

    def _counts(self, index: NDArray, weights: NDArray) -> NDArray:
        out = np.bincount(
            index, weights=weights.ravel(), minlength=self.B * (self.M + 1)
        )
        return out.reshape(self.B, self.M + 1)

    def gradient_at(self, P: NDArray) -> NDArray:
        with np.errstate(divide="ignore", invalid="ignore"):
            r = self.w / P
        d = np.cumsum(self._counts(self.fstart, r) - self._counts(self.fstop, r), 1)
        return np.where(self.valid, d[:, : self.M], 0.0)

    @staticmethod
    def em(s: NDArray, d: NDArray) -> NDArray:
        with np.errstate(invalid="ignore"):
            out = s * d
            return out / out.sum(axis=1, keepdims=True)

    def squarem(self, s, ll, d):
        s1 = self.em(s, d)
        P = self.probabilities(s1)
        s2 = self.em(s1, self.gradient_at(P))
        P = self.probabilities(s2)
        candidate, ll_new = s2, self.loglik_at(P)
        r, v = s1 - s, s2 - 2 * s1 + s
        nv = np.sqrt(np.sum(v * v, axis=1))
        ok = nv > 0
        with np.errstate(divide="ignore", invalid="ignore"):
            alpha = np.minimum(-1.0, -np.sqrt(np.sum(r * r, axis=1)) / nv)
            alpha = np.where(ok, alpha, -1.0)[:, None]
            trial = np.clip(s - 2 * alpha * r + alpha**2 * v, 0.0, None)
            total = trial.sum(axis=1)
            ok &= total > 0
            trial = np.where(ok[:, None], trial / total[:, None], s2)
            Q = self.probabilities(trial)
            ok &= Q.min(axis=1) > 0
            trial = self.em(trial, self.gradient_at(Q))
            Q = self.probabilities(trial)
            ll_trial = self.loglik_at(Q)
        ok &= ll_trial >= ll_new
        candidate = np.where(ok[:, None], trial, candidate)
        P = np.where(ok[:, None], Q, P)
        return candidate, P, np.where(ok, ll_trial, ll_new)

    def _isotonic(self, y: NDArray, h: NDArray, inner: NDArray) -> NDArray:
        """Weighted isotonic regression of each replicate's ``y[b, :m_b - 1]``.

        One PAVA call over the replicates laid end to end, each shifted
        above the previous one (``|g / h| <= 1``, so ``y`` lies in
        ``[-1, 2]``), so that no pool spans two replicates; the pools'
        means are then taken on the unshifted values.
        """
        b, _ = np.nonzero(inner)
        yv, hv = y[inner], h[inner]
        fit = self.isotonic(yv + 8.0 * b, weights=hv, increasing=True)
        pools = np.asarray(fit.blocks[:-1], dtype=np.intp)
        means = np.add.reduceat(yv * hv, pools) / np.add.reduceat(hv, pools)
        out = np.zeros_like(y)
        out[inner] = np.repeat(means, np.diff(fit.blocks))
        return out

    def icm(self, s, P, ll):
        M = self.M
        out_s, out_P, out_ll = s, P, ll
        if M == 1:
            return out_s, out_P, out_ll
        with np.errstate(divide="ignore", invalid="ignore"):
            r = self.w / P
            r2 = r / P
        g = (self._counts(self.fstop, r) - self._counts(self.fstart, r))[:, 1:M]
        h = (self._counts(self.fstop, r2) + self._counts(self.fstart, r2))[:, 1:M]
        h = np.maximum(h, np.finfo(float).tiny)
        inner = np.arange(M - 1)[None, :] < (self.m - 1)[:, None]
        F = np.cumsum(s, axis=1)[:, :-1]
        with np.errstate(divide="ignore", invalid="ignore"):
            y = F + g / h
        usable = np.isfinite(np.where(inner, y, 0.0)).all(axis=1)
        inner &= usable[:, None]
        if not usable.all():
            # The fit's isotonic regression refuses these: the refit fails.
            out_s = s.copy()
            out_s[~usable] = np.nan
        target = self._isotonic(y, h, inner)
        direction = np.where(inner, np.clip(target, 0.0, 1.0) - F, 0.0)
        slope = np.sum(g * direction, axis=1)
        moving = np.flatnonzero((slope > 0) & usable & (self.m > 1))
        if moving.size == 0:
            return out_s, out_P, out_ll
        cum = np.zeros((moving.size, M + 1))
        cum[:, 1:M] = direction[moving]
        cum = cum.ravel()
        base = (np.arange(moving.size) * (M + 1))[:, None]
        local_start, local_stop = self.start[moving], self.stop[moving]
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = (cum[local_stop + base] - cum[local_start + base]) / P[moving]
        w = self.w[moving]
        step = np.ones(moving.size)
        pending = np.ones(moving.size, dtype=bool)
        out_s, out_P, out_ll = out_s.copy(), P.copy(), ll.copy()
        for _ in range(_MAX_HALVINGS):
            idx = np.flatnonzero(pending)
            if idx.size == 0:
                break
            change = ratio[idx] * step[idx, None]
            positive = change.min(axis=1) > -1.0
            with np.errstate(invalid="ignore", divide="ignore"):
                gain = np.sum(np.log1p(change) * w[idx], axis=1)
            accept = positive & (gain >= _ARMIJO * step[idx] * slope[moving[idx]])
            if accept.any():
                j = np.flatnonzero(accept)
                i, b = idx[j], moving[idx[j]]
                F_new = np.ones((j.size, M + 1))
                F_new[:, 0] = 0.0
                F_new[:, 1:M] = np.where(
                    inner[b], F[b] + step[i, None] * direction[b], 1.0
                )
                trial = np.clip(np.diff(F_new, axis=1), 0.0, None)
                trial /= trial.sum(axis=1, keepdims=True)
                c = np.zeros((j.size, M + 1))
                np.cumsum(trial, axis=1, out=c[:, 1:])
                sub = (np.arange(j.size) * (M + 1))[:, None]
                c = c.ravel()
                Q = c[local_stop[i] + sub] - c[local_start[i] + sub]
                good = Q.min(axis=1) > 0
                out_s[b[good]] = trial[good]
                out_P[b[good]] = Q[good]
                out_ll[b[good]] = ll[b[good]] + gain[j[good]]
                pending[i[good]] = False
            step[idx] *= 0.5
        return out_s, out_P, out_ll

    def subset(self, keep: NDArray) -> _Batch:
        return _Batch(
            self.start[keep],
            self.stop[keep],
            self.w[keep],
            self.m[keep],
            self.M,
            self.isotonic,
        )


def solve_batch(
    problems: ReplicateProblems, method: str, tol: float, max_iter: int, isotonic
) -> tuple[NDArray, NDArray, NDArray]:
    """The masses of every replicate, by the fit's iteration.

    Parameters
    ----------
    problems : ReplicateProblems
        The replicates' likelihoods.
    method : {"em-icm", "icm", "turnbull"}
        The fit's iteration.
    tol, max_iter : float, int
        The fit's stopping rule.
    isotonic : callable
        ``scipy.optimize.isotonic_regression``.

    Returns
    -------
    masses : ndarray of shape (B, M)
    finite : ndarray of bool, shape (B,)
        Whether the iteration stopped with finite masses (else the fit
        would have failed).
    n_iter : ndarray of int, shape (B,)

    Examples
    --------
    >>> import numpy as np
    >>> from scipy.optimize import isotonic_regression
    >>> from skprivate.interval._npmle_resampling import replicate_problems, solve_batch
    >>> Z = np.array([[0.0, 2.0], [1.0, 3.0], [2.5, 4.0]])
    >>> p = replicate_problems(Z, np.zeros(3, int), np.arange(3), np.ones(3), 1)
    >>> s, finite, _ = solve_batch(p, "em-icm", 1e-8, 100, isotonic_regression)
    >>> s.round(6).tolist(), finite.tolist()
    ([[0.5, 0.5]], [True])
    """
    B, M = problems.left.shape
    batch = _Batch(problems.start, problems.stop, problems.w, problems.m, M, isotonic)
    s = np.where(batch.valid, 1.0 / problems.m[:, None], 0.0)
    P = batch.probabilities(s)
    ll = batch.loglik_at(P)
    result = np.zeros((B, M))
    finite = np.zeros(B, dtype=bool)
    n_iter = np.full(B, max_iter)
    active = np.arange(B)
    stalled = np.zeros(B, dtype=bool)
    for it in range(max_iter + 1):
        d = batch.gradient_at(P)
        gap = np.where(batch.valid, d, -np.inf).max(axis=1) - 1.0
        done = (gap <= tol) | ~np.isfinite(gap) | np.isnan(s).any(axis=1)
        if it == max_iter:
            done[:] = True
        done |= stalled
        if done.any():
            result[active[done]] = s[done]
            finite[active[done]] = np.isfinite(s[done]).all(axis=1) & np.isfinite(
                gap[done]
            )
            n_iter[active[done]] = it
            keep = np.flatnonzero(~done)
            if keep.size == 0:
                break
            active = active[keep]
            batch = batch.subset(keep)
            s, P, ll = s[keep], P[keep], ll[keep]
            d = d[keep]
        previous = s
        if method != "icm":
            s, P, ll = batch.squarem(s, ll, d)
        if method != "turnbull":
            s, P, ll = batch.icm(s, P, ll)
        stalled = np.all(s == previous, axis=1)
    return result, finite, n_iter


def _statistic_values(
    statistic: Any, support: NDArray, s: NDArray, ok: NDArray
) -> NDArray | None:
    """The statistic of each replicate's discrete distribution, or None."""
    from ._intervals import _CdfAt, _Mean, _QuantileAt

    held = (s > 0) & ok[:, None]
    mass = np.where(held, s, 0.0)
    total = mass.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        weights = mass / total
    atoms = np.where(held, support, np.inf)
    if isinstance(statistic, _Mean):
        return np.sum(np.where(held, weights * np.where(held, support, 0.0), 0.0), 1)[
            :, None
        ]
    cum = np.cumsum(weights, axis=1)
    last = held.shape[1] - 1 - np.argmax(held[:, ::-1], axis=1)
    after = np.arange(held.shape[1])[None, :] >= last[:, None]
    cum = np.where(after, 1.0, cum)
    if isinstance(statistic, _CdfAt):
        x = np.asarray(statistic.points, dtype=float).ravel()
        out = np.empty((s.shape[0], x.size))
        for k, t in enumerate(x):
            below = held & (atoms <= t)
            n_below = below.sum(axis=1)
            # The cumulative mass at the last atom at or below t.
            pos = np.where(n_below > 0, _last_true(below), 0)
            out[:, k] = np.where(n_below > 0, cum[np.arange(s.shape[0]), pos], 0.0)
        return out
    if isinstance(statistic, _QuantileAt):
        q = np.asarray(statistic.points, dtype=float).ravel()
        out = np.empty((s.shape[0], q.size))
        rows = np.arange(s.shape[0])
        for k, p in enumerate(q):
            # The first held atom whose cumulative mass reaches p (else the last).
            reach = held & (cum >= p)
            pos = np.where(reach.any(axis=1), np.argmax(reach, axis=1), last)
            out[:, k] = support[rows, pos]
        return out
    return None


def _last_true(mask: NDArray) -> NDArray:
    return mask.shape[1] - 1 - np.argmax(mask[:, ::-1], axis=1)


def resampled_statistics(
    estimator: Any, X: Any, indices: list[NDArray], statistic: Any
) -> list[NDArray | None] | None:
    """``statistic`` of ``estimator`` refitted on each row draw, batched.

    Parameters
    ----------
    estimator : IntervalNPMLE
        The unfitted template of the refits (its parameters are used).
    X : array-like of shape (n, 2)
        The interval data resampled.
    indices : list of ndarray
        The rows of each replicate.
    statistic : callable
        The statistic of a refit: the CDF at points, quantiles or the mean
        of :mod:`._intervals`; another statistic is not batched.

    Returns
    -------
    list or None
        One value per replicate (``None`` where the refit would fail), or
        ``None`` when these refits are not batched (the caller refits one by
        one): another statistic, ``method="pava"``, sample weights, data
        that do not validate, or scipy before 1.12.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval import IntervalNPMLE
    >>> from skprivate.interval._intervals import _Mean
    >>> from skprivate.interval._npmle_resampling import resampled_statistics
    >>> Z = np.array([[0.0, 2.0], [1.0, 3.0], [2.5, 4.0], [0.5, 1.5]])
    >>> out = resampled_statistics(IntervalNPMLE(), Z, [np.arange(4)], _Mean())
    >>> round(float(out[0][0]), 6) == round(IntervalNPMLE().fit(Z).mean(), 6)
    True
    """
    from ._intervals import _CdfAt, _Mean, _QuantileAt

    isotonic = _isotonic_blocks()
    if isotonic is None or not isinstance(statistic, (_CdfAt, _Mean, _QuantileAt)):
        return None
    if estimator.method == "pava":
        return None
    try:
        Z = check_interval_array(X, name="X")
        bounds = check_value_bounds(estimator.bounds)
    except (TypeError, ValueError):
        return None
    informative = ~(np.isneginf(Z[:, 0]) & np.isposinf(Z[:, 1]))
    if not informative.all():
        return None
    n = Z.shape[0]
    case_one_row = np.isneginf(Z[:, 0]) ^ np.isposinf(Z[:, 1])
    method = "em-icm" if estimator.method == "auto" else estimator.method
    ends = _endpoints(Z)
    out: list[NDArray | None] = [None] * len(indices)
    serial: list[int] = []
    chunk_size = max(1, _CELLS // max(len(i) for i in indices))
    for first in range(0, len(indices), chunk_size):
        chunk = indices[first : first + chunk_size]
        B = len(chunk)
        block = np.repeat(np.arange(B), [len(i) for i in chunk])
        row = np.concatenate(chunk).astype(np.int64)
        keys = block * n + row
        if np.all(keys[1:] > keys[:-1]):
            # Subsamples (sorted rows, each once).
            count = np.ones(row.size)
        else:
            counts = np.bincount(keys, minlength=B * n).reshape(B, n)
            block, row = np.nonzero(counts)
            count = counts[block, row].astype(float)
        # A replicate of Case-I rows only is fitted by PAVA: one by one.
        two_sided = np.bincount(block, weights=~case_one_row[row], minlength=B)
        case_one = two_sided == 0
        serial += [first + b for b in np.flatnonzero(case_one)]
        batched = np.flatnonzero(~case_one)
        if batched.size == 0:
            continue
        if batched.size < B:
            keep = ~case_one[block]
            renumber = np.cumsum(~case_one) - 1
            block, row, count = renumber[block[keep]], row[keep], count[keep]
        problems = replicate_problems(Z, block, row, count, batched.size, ends)
        s, finite, _ = solve_batch(
            problems, method, estimator.tol, estimator.max_iter, isotonic
        )
        support = np.where(np.isfinite(problems.right), problems.right, problems.left)
        held = s > 0
        located = ~(held & ~np.isfinite(support)).any(axis=1)
        inside = ~(
            held & ((problems.left >= bounds[1]) | (problems.right < bounds[0]))
        ).any(axis=1)
        ok = finite & located & inside
        values = _statistic_values(statistic, support, s, ok)
        for j, b in enumerate(batched):
            if ok[j]:
                out[first + b] = np.atleast_1d(values[j]).astype(float).ravel()
    if serial:
        from .._uncertainty import _one_replicate

        for b in serial:
            out[b] = _one_replicate(estimator, Z, None, indices[b], statistic, False)
    return out
