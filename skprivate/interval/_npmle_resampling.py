"""Many NPMLE refits at once: the replicates of the resampling intervals.

The bootstrap and subsampling intervals of :class:`IntervalNPMLE` refit the
estimator on hundreds of row draws of the same data.  Refitted one by one,
each costs about a fit: at a few thousand rows the EM-ICM iteration is
dominated by the fixed cost of its numpy calls, not by its arithmetic, and
it converges linearly (ten to twenty iterations to the default tolerance).
Here every replicate is solved at once, side by side in padded
``(replicates, rows)`` arrays:

* set-up (:func:`replicate_problems`): the data's innermost intervals (its
  cells) are found once; a replicate's innermost intervals are runs of the
  data's cells, cut where one of its rows starts or stops, so they and the
  range of them each drawn row holds are counted over the places where
  the replicate's rows start or stop, without sorting any endpoints again;
* the fit's own first EM-ICM iterations (:class:`_Batch`, every step as
  the single fit takes it, from the same start) bring each replicate's
  support close to its optimum's; then the support reduction algorithm
  (:mod:`._npmle_active_set`: Newton steps on the few cells holding mass,
  cells entering and leaving the support) converges quadratically, to a
  hundredth of the fit's tolerance.  A start from the NPMLE of all the
  rows (the likelihood is concave, so only the path changes) was tried and
  saved nothing: a replicate's optimum holds its mass on other cells, and
  the first EM-ICM iterations from either start cost the same;
* a replicate the Newton steps do not settle, and every replicate when the
  fit's method is not EM-ICM, when ``max_iter`` is small enough to stop a
  refit short, or when the statistic is a quantile, runs the fit's own
  iteration from the fit's own start (:func:`solve_batch`): those replicates
  are the one-by-one refits' up to rounding.

The fast path reaches the optimum closer than a refit does, so its
replicates differ from the one-by-one refits by the refits' own distance
from the optimum: their optimality gap is at most the tolerance, which
leaves CDF values and means within about ``1e-7`` of the optimum's at the
default ``tol=1e-8`` (measured: a few ``1e-8``; against refits converged to
``tol=1e-13`` the fast path agrees to about ``1e-10``).  Compared on the
statistic, which is a function of the row probabilities (unique, the
log-likelihood being strictly concave in them) whenever the masses are
unique too; where the NPMLE is not unique the fast path and a refit may
settle on different maximizers.  A quantile, a step function of the masses,
would jump to a neighbouring atom wherever a replicate's CDF meets the level
to rounding: it keeps the fit's iteration.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..utils.validation import check_interval_array
from ._identified import check_value_bounds
from ._npmle_active_set import armijo_search, solve_active_set
from ._npmle_likelihood import endpoint_order
from ._resampled_statistics import CdfAt, Mean, QuantileAt

__all__ = [
    "DataCells",
    "ReplicateProblems",
    "replicate_problems",
    "resampled_statistics",
    "solve_batch",
]

# Replicates set up and solved together: about this many (replicate, drawn
# row) cells per batch, which bounds its memory (a few tens of MB; the dense
# set-up below is used only when it is at most four times this).
_CELLS = 2_000_000
# The fast path (the fit's first EM-ICM iterations, then support
# reduction): taken for EM-ICM with at least _NEWTON_MIN_ITER iterations
# allowed (the refit then converges; with fewer it may stop short of the
# optimum, and only its own iteration reproduces where).  The replicates run
# at most _EARLY_ITER EM-ICM iterations (until a gap of _EARLY_TOL), then
# support reduction to _NEWTON_TOL times the fit's tolerance, in at most
# _NEWTON_ITER steps; a replicate still holding mass on more than
# _SUPPORT_FLOOR cells and four times the median number after the EM-ICM
# iterations runs the fit's iteration instead.
_NEWTON_MIN_ITER = 1000
_SUPPORT_FLOOR = 64
# Entries of the (replicates, support, support) Newton systems solved at
# once (32 MB a copy).
_NEWTON_CELLS = 2**22
_EARLY_ITER = 3
_EARLY_TOL = 1e-3
_NEWTON_TOL = 0.01
_NEWTON_ITER = 50


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


class DataCells:
    """The data's innermost intervals (its cells) and each row's range of them.

    Row ``i`` contains the cells ``start[i] <= j < stop[i]``; ``rank[i]`` is
    its place when the rows are sorted by ``(start, stop)``, and ``order``
    the inverse permutation.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval._npmle_resampling import DataCells
    >>> cells = DataCells(np.array([[1.0, 3.0], [0.0, 2.0], [2.5, 4.0]]))
    >>> cells.m, cells.start.tolist(), cells.stop.tolist()  # (1, 2], (2.5, 3]
    (2, [0, 0, 1], [2, 1, 2])
    >>> cells.order.tolist()
    [1, 0, 2]
    """

    def __init__(self, Z: NDArray) -> None:
        # The fit's innermost intervals: endpoints sorted with its tie rule,
        # a cell wherever a left end is followed by a right end.
        n = Z.shape[0]
        lo, hi = Z[:, 0], Z[:, 1]
        tags = np.concatenate(
            [np.where(lo == hi, 0, 2).astype(np.int8), np.ones(n, dtype=np.int8)]
        )
        order, _ = endpoint_order(np.concatenate([lo, hi]), tags)
        is_left = tags[order] != 1
        boundary = is_left[:-1] & ~is_left[1:]
        self.m = int(boundary.sum())
        # The cells whose left ends come before each endpoint.
        before = np.zeros(2 * n, dtype=np.int64)
        np.cumsum(boundary, out=before[1:])
        rank = np.empty(2 * n, dtype=np.int64)
        rank[order] = before
        self.start, self.stop = rank[:n], rank[n:]
        self.order = np.argsort(self.start * (self.m + 1) + self.stop, kind="stable")
        self.rank = np.empty_like(self.order)
        self.rank[self.order] = np.arange(self.order.size)


def replicate_problems(
    Z: NDArray,
    block: NDArray,
    row: NDArray,
    count: NDArray,
    n_blocks: int,
    cells: DataCells | None = None,
) -> ReplicateProblems:
    """Innermost intervals and pooled rows of each replicate.

    Parameters
    ----------
    Z : ndarray of shape (n, 2)
        The data (validated interval rows).
    block, row, count : ndarray of int
        The draws: row ``row[k]`` is drawn ``count[k] > 0`` times in
        replicate ``block[k]``, each pair once.
    n_blocks : int
        Number of replicates (each draws at least one row).
    cells : DataCells, optional
        ``DataCells(Z)``, when already computed.

    Returns
    -------
    ReplicateProblems
        The replicates' innermost intervals and their pooled rows.

    Notes
    -----
    Between two neighbouring cells of the data its sorted endpoints are
    right ends, then left ends (a left end followed by a right end would
    make a cell).  So a replicate splits the data's cells into runs at the
    places where one of its rows starts or stops, and a run is one of its
    innermost intervals exactly when one of its rows starts at the run's
    first cell and one stops after its last cell: the innermost interval
    is then (largest such left end, smallest such right end].  A row
    holds the innermost intervals whose runs lie within its own cells.
    Only the places where a replicate's rows start or stop are visited
    (a subsample of ``n**(2/3)`` rows cuts a few hundred of the data's
    thousands of cells), in one sorted list over all replicates, without
    sorting the endpoints again.

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
    cells = cells or DataCells(Z)
    n, B, W = Z.shape[0], n_blocks, cells.m + 1
    block, row = np.asarray(block, dtype=np.int64), np.asarray(row, dtype=np.int64)
    count = np.asarray(count, dtype=float)
    # The draws in the order (replicate, start, stop) of their data cells.
    key = block * n + cells.rank[row]
    if np.any(key[1:] < key[:-1]):
        perm = np.argsort(key, kind="stable")
        block, row, count = block[perm], row[perm], count[perm]
    base = block * W
    # The draws are in the order (replicate, start, stop), so ``fs`` is sorted.
    fs, fe = base + cells.start[row], base + cells.stop[row]
    has_start = np.zeros(B * W, dtype=bool)
    has_start[fs] = True
    has_stop = np.zeros(B * W, dtype=bool)
    has_stop[fe] = True
    # The places where a replicate's rows start or stop, in order; a run
    # from a start to the next such place of the same replicate is
    # innermost when that place is a stop.  A replicate draws a few hundred
    # rows of thousands of cells: the cuts are a small part of the places.
    cuts = np.flatnonzero(has_start | has_stop)
    following = np.empty_like(cuts)
    following[:-1], following[-1:] = cuts[1:], cuts[-1:]
    inner = has_start[cuts] & has_stop[following]
    inner[:-1] &= cuts[1:] // W == cuts[:-1] // W
    inner[-1] = False
    first_cells = cuts[inner]
    b_in = first_cells // W
    m = np.bincount(b_in, minlength=B)
    M = int(m.max())
    # The innermost intervals before each cut, counted from its replicate's
    # first: a row holds those from the count at its start place to the
    # count at its stop place.
    preceding = np.cumsum(inner) - inner
    counted = np.empty(B * W, dtype=np.int64)
    counted[cuts] = preceding
    offset = np.cumsum(m) - m
    start = counted[fs] - offset[block]
    stop = counted[fe] - offset[block]
    slot = preceding[inner] - offset[b_in]
    # The innermost interval is (largest left end of the rows starting at
    # its first cell, smallest right end of those stopping after its last].
    opens = np.flatnonzero(np.r_[True, fs[1:] != fs[:-1]])
    lo = np.empty(B * W)
    lo[fs[opens]] = np.maximum.reduceat(Z[row, 0], opens)
    hi = np.full(B * W, np.inf)
    np.minimum.at(hi, fe, Z[row, 1])
    left = np.full((B, M), np.nan)
    right = np.full((B, M), np.nan)
    left[b_in, slot] = lo[first_cells]
    right[b_in, slot] = hi[following[inner]]
    # Draws with the same range are neighbours once sorted: pool them.
    key = (block * (M + 1) + start) * (M + 1) + stop
    head = np.ones(key.size, dtype=bool)
    head[1:] = key[1:] != key[:-1]
    heads = np.flatnonzero(head)
    pooled = np.add.reduceat(count, heads)
    b_key = block[heads]
    n_rows = np.bincount(b_key, minlength=B)
    R = int(n_rows.max())
    first = np.cumsum(n_rows) - n_rows
    flat = np.arange(heads.size) - first[b_key] + b_key * R
    size = np.bincount(block, weights=count, minlength=B)
    P_start = np.zeros(B * R, dtype=np.int64)
    P_stop = np.repeat(m, R)
    P_w = np.zeros(B * R)
    P_start[flat] = start[heads]
    P_stop[flat] = stop[heads]
    P_w[flat] = pooled * (1.0 / size)[b_key]
    shape = (B, R)
    return ReplicateProblems(
        left,
        right,
        m,
        P_start.reshape(shape),
        P_stop.reshape(shape),
        P_w.reshape(shape),
        n_rows,
    )


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
        out_s, out_P, out_ll = out_s.copy(), P.copy(), ll.copy()

        def confirm(i: NDArray, step: NDArray, gain: NDArray) -> NDArray:
            # The accepted step's masses; a row whose probability rounds to
            # zero refuses it.
            b = moving[i]
            F_new = np.ones((i.size, M + 1))
            F_new[:, 0] = 0.0
            F_new[:, 1:M] = np.where(inner[b], F[b] + step[:, None] * direction[b], 1.0)
            trial = np.clip(np.diff(F_new, axis=1), 0.0, None)
            trial /= trial.sum(axis=1, keepdims=True)
            c = np.zeros((i.size, M + 1))
            np.cumsum(trial, axis=1, out=c[:, 1:])
            sub = (np.arange(i.size) * (M + 1))[:, None]
            c = c.ravel()
            Q = c[local_stop[i] + sub] - c[local_start[i] + sub]
            good = Q.min(axis=1) > 0
            out_s[b[good]] = trial[good]
            out_P[b[good]] = Q[good]
            out_ll[b[good]] = ll[b[good]] + gain[good]
            return good

        armijo_search(
            ratio,
            self.w[moving],
            slope[moving],
            np.ones(moving.size, dtype=bool),
            confirm=confirm,
        )
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
    held = (s > 0) & ok[:, None]
    mass = np.where(held, s, 0.0)
    total = mass.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        weights = mass / total
    atoms = np.where(held, support, np.inf)
    if isinstance(statistic, Mean):
        return np.sum(np.where(held, weights * np.where(held, support, 0.0), 0.0), 1)[
            :, None
        ]
    cum = np.cumsum(weights, axis=1)
    last = held.shape[1] - 1 - np.argmax(held[:, ::-1], axis=1)
    after = np.arange(held.shape[1])[None, :] >= last[:, None]
    cum = np.where(after, 1.0, cum)
    if isinstance(statistic, CdfAt):
        x = np.asarray(statistic.points, dtype=float).ravel()
        out = np.empty((s.shape[0], x.size))
        for k, t in enumerate(x):
            below = held & (atoms <= t)
            n_below = below.sum(axis=1)
            # The cumulative mass at the last atom at or below t.
            pos = np.where(n_below > 0, _last_true(below), 0)
            out[:, k] = np.where(n_below > 0, cum[np.arange(s.shape[0]), pos], 0.0)
        return out
    if isinstance(statistic, QuantileAt):
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


def _subset(problems: ReplicateProblems, keep: NDArray) -> ReplicateProblems:
    return ReplicateProblems(
        problems.left[keep],
        problems.right[keep],
        problems.m[keep],
        problems.start[keep],
        problems.stop[keep],
        problems.w[keep],
        problems.n_rows[keep],
    )


def _solve(
    problems: ReplicateProblems,
    method: str,
    estimator: Any,
    isotonic,
    newton: bool,
) -> tuple[NDArray, NDArray]:
    """Each replicate's masses and whether its refit succeeds.

    On the fast path: the fit's first EM-ICM iterations, then support
    reduction to a gap well inside the fit's tolerance; a replicate that
    does not settle, and every replicate off the fast path, runs the fit's
    own iteration from the fit's start.
    """
    tol, max_iter = estimator.tol, estimator.max_iter
    if not newton:
        s, finite, _ = solve_batch(problems, method, tol, max_iter, isotonic)
        return s, finite
    # Far from the optimum the Newton model is poor and the support changes
    # cell by cell; the EM-ICM iteration moves it wholesale.
    s0, _, _ = solve_batch(problems, method, _EARLY_TOL, _EARLY_ITER, isotonic)
    # The Newton systems are padded to the largest support: a replicate
    # whose support is still far larger than the others' (its EM-ICM steps
    # emptied few cells) would make every system that large.
    size = (s0 > 0).sum(axis=1)
    small = np.flatnonzero(size <= max(_SUPPORT_FLOOR, 4 * np.median(size)))
    s = np.full_like(s0, np.nan)
    converged = np.zeros(s0.shape[0], dtype=bool)
    # A step adds at most one cell per gap of the support: the first
    # systems of supports of k cells have at most 2 k + 1, and about
    # _NEWTON_CELLS of their entries are solved at a time.
    width = 2 * int(size[small].max(initial=0)) + 1
    step = max(1, _NEWTON_CELLS // width**2)
    for first in range(0, small.size, step):
        part = small[first : first + step]
        s[part], converged[part], _ = solve_active_set(
            problems.start[part],
            problems.stop[part],
            problems.w[part],
            problems.m[part],
            s0[part],
            _NEWTON_TOL * tol,
            _NEWTON_ITER,
        )
    finite = converged.copy()
    if not converged.all():
        rest = np.flatnonzero(~converged)
        s[rest], finite[rest], _ = solve_batch(
            _subset(problems, rest), method, tol, max_iter, isotonic
        )
    return s, finite


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
        of :mod:`._resampled_statistics`; another statistic is not batched.

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
    >>> from skprivate.interval._resampled_statistics import Mean
    >>> from skprivate.interval._npmle_resampling import resampled_statistics
    >>> Z = np.array([[0.0, 2.0], [1.0, 3.0], [2.5, 4.0], [0.5, 1.5]])
    >>> out = resampled_statistics(IntervalNPMLE(), Z, [np.arange(4)], Mean())
    >>> round(float(out[0][0]), 6) == round(IntervalNPMLE().fit(Z).mean(), 6)
    True
    """
    isotonic = _isotonic_blocks()
    if isotonic is None or not isinstance(statistic, (CdfAt, Mean, QuantileAt)):
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
    cells = DataCells(Z)
    # A quantile is a step function of the masses: where a replicate's CDF
    # meets the level to rounding, only the fit's own iteration lands on
    # the fit's side of the step.
    newton = (
        method == "em-icm"
        and estimator.max_iter >= _NEWTON_MIN_ITER
        and not isinstance(statistic, QuantileAt)
    )
    out: list[NDArray | None] = [None] * len(indices)
    serial: list[int] = []
    chunk_size = max(1, _CELLS // max(len(i) for i in indices))
    for first in range(0, len(indices), chunk_size):
        chunk = indices[first : first + chunk_size]
        B = len(chunk)
        block = np.repeat(np.arange(B), [len(i) for i in chunk])
        # Draws keyed by replicate and the rows' order by their data cells,
        # each (replicate, row) pair once with its count.
        keys = block * n + cells.rank[np.concatenate(chunk).astype(np.int64)]
        if 4 * keys.size > B * n:
            counts = np.bincount(keys, minlength=B * n)
            keys = np.flatnonzero(counts)
            count = counts[keys].astype(float)
        else:
            # np.unique's sort and counts; the stable sort (a merge sort)
            # is the faster of numpy's on these keys
            keys = np.sort(keys, kind="stable")
            heads = np.flatnonzero(np.r_[True, keys[1:] != keys[:-1]])
            count = np.diff(np.r_[heads, keys.size]).astype(float)
            keys = keys[heads]
        block, row = np.divmod(keys, n)
        row = cells.order[row]
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
        problems = replicate_problems(Z, block, row, count, batched.size, cells)
        s, finite = _solve(problems, method, estimator, isotonic, newton)
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
