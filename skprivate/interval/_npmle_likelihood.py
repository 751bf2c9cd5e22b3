"""Log-likelihood of interval data on innermost intervals and its EM-ICM steps.

Row ``i`` (weight ``w_i``, weights summing to one) contains the innermost
intervals ``start_i <= j < stop_i``; its probability is
``P_i = C[stop_i] - C[start_i]`` with ``C`` the cumulative masses, so every
quantity of an iteration (log-likelihood, gradient, the diagonal Hessian of
the ICM step, the gain of a line-search step) costs ``O(n + m)``.

The iteration carries pairs ``(s, P)`` so that no row probability is computed
twice, and every per-row array lives in a buffer taken from a small pool:
fresh temporaries of ``8 n`` bytes would be mapped and zeroed by the
operating system at every step once they outgrow the allocator's reuse limit
(tens of MB), which made large inputs cost more per row than small ones.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray
from sklearn.isotonic import isotonic_regression

# Armijo constant and maximum number of step halvings of the ICM line search.
_ARMIJO = 0.1
_MAX_HALVINGS = 30


def _dot(a: NDArray, b: NDArray) -> float:
    # Not np.dot: multithreaded BLAS dot products of a few 10^4 entries can
    # cost milliseconds each on a busy machine, dominating a step.
    return float(np.sum(a * b))


def endpoint_order(values: NDArray, tags: NDArray) -> tuple[NDArray, NDArray]:
    """Order of the endpoints by value, ties broken by tag, and sorted values.

    One unstable argsort instead of a lexsort: only runs of equal finite
    values are re-sorted by tag.  Infinite endpoints need no tie rule
    (``-inf`` is always an ordinary left end, ``+inf`` always a right end),
    and the order inside a run of equal value and tag does not matter.

    Parameters
    ----------
    values : ndarray of shape (k,)
        Endpoint values.
    tags : ndarray of int8, shape (k,)
        0 for the left end of an exact value, 1 for a right end, 2 for an
        ordinary left end.

    Returns
    -------
    order : ndarray of shape (k,)
        Positions of the endpoints in sorted order.
    sorted_vals : ndarray of shape (k,)
        ``values[order]``.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval._npmle_likelihood import endpoint_order
    >>> values = np.array([1.0, 1.0, 0.0])
    >>> endpoint_order(values, np.array([2, 1, 2], dtype=np.int8))[0].tolist()
    [2, 1, 0]
    """
    order = np.argsort(values)
    sorted_vals = values[order]
    tied = (sorted_vals[1:] == sorted_vals[:-1]) & np.isfinite(sorted_vals[1:])
    if tied.any():
        in_run = np.zeros(values.size, dtype=bool)
        in_run[1:] |= tied
        in_run[:-1] |= tied
        where = np.flatnonzero(in_run)
        sub = order[where]
        order[where] = sub[np.lexsort((tags[sub], values[sub]))]
    return order, sorted_vals


class IntervalLikelihood:
    """Log-likelihood of masses ``s`` on ``m`` innermost intervals.

    Parameters
    ----------
    start, stop : ndarray of int64
        Row ``i`` contains the innermost intervals ``start_i <= j < stop_i``.
    w : ndarray of float64
        Positive row weights summing to one.
    m : int
        Number of innermost intervals.
    """

    def __init__(self, start: NDArray, stop: NDArray, w: NDArray, m: int):
        self.start, self.stop, self.w, self.m = start, stop, w, m
        self._pool: list[NDArray] = []
        self._cumulative = np.zeros(m + 1)

    def _buffer(self) -> NDArray:
        return self._pool.pop() if self._pool else np.empty(self.w.size)

    def _release(self, *buffers: NDArray) -> None:
        self._pool.extend(buffers)

    def probabilities(self, s: NDArray, out: NDArray | None = None) -> NDArray:
        """Row probabilities ``P_i`` (in a pool buffer unless ``out``)."""
        c = self._cumulative
        np.cumsum(s, out=c[1:])
        out = self._buffer() if out is None else out
        scratch = self._buffer()
        np.take(c, self.stop, out=out)
        np.take(c, self.start, out=scratch)
        np.subtract(out, scratch, out=out)
        self._release(scratch)
        return out

    def loglik_at(self, P: NDArray) -> float:
        """``sum_i w_i log P_i`` (``-inf`` if a row has probability zero)."""
        scratch = self._buffer()
        with np.errstate(divide="ignore"):
            np.log(P, out=scratch)
        np.multiply(scratch, self.w, out=scratch)
        total = float(scratch.sum())
        self._release(scratch)
        return total

    def loglik(self, s: NDArray) -> float:
        P = self.probabilities(s)
        total = self.loglik_at(P)
        self._release(P)
        return total

    def _counts(self, index: NDArray, weights: NDArray) -> NDArray:
        return np.bincount(index, weights=weights, minlength=self.m + 1)

    def gradient_at(self, P: NDArray) -> NDArray:
        """``d_j = sum_i w_i 1{j in row i} / P_i``, the derivative in ``s_j``."""
        r = self._buffer()
        with np.errstate(divide="ignore"):
            np.divide(self.w, P, out=r)
        d = np.cumsum(self._counts(self.start, r) - self._counts(self.stop, r))
        self._release(r)
        return d[: self.m]

    def gradient(self, s: NDArray) -> NDArray:
        P = self.probabilities(s)
        d = self.gradient_at(P)
        self._release(P)
        return d

    @staticmethod
    def em(s: NDArray, d: NDArray) -> NDArray:
        """One self-consistency step ``s_j <- s_j d_j``."""
        out = s * d
        return out / out.sum()

    def squarem(
        self, s: NDArray, ll: float, d: NDArray
    ) -> tuple[NDArray, NDArray, float]:
        """One SQUAREM cycle (Varadhan & Roland, 2008), never lowering ``ll``.

        ``d`` is the gradient at ``s``.  Returns the new masses, their row
        probabilities (a pool buffer the caller now owns) and log-likelihood.
        """
        s1 = self.em(s, d)
        P = self.probabilities(s1)
        s2 = self.em(s1, self.gradient_at(P))
        P = self.probabilities(s2, out=P)
        candidate, ll_new = s2, self.loglik_at(P)
        r, v = s1 - s, s2 - 2 * s1 + s
        nv = np.sqrt(_dot(v, v))
        if nv > 0:
            alpha = min(-1.0, -np.sqrt(_dot(r, r)) / nv)
            trial = np.clip(s - 2 * alpha * r + alpha**2 * v, 0.0, None)
            total = trial.sum()
            if total > 0:
                trial /= total
                Q = self.probabilities(trial)
                # Keep the extrapolation only if every row keeps positive
                # probability (clipping may empty a row's innermost intervals).
                if Q.min() > 0:
                    trial = self.em(trial, self.gradient_at(Q))
                    Q = self.probabilities(trial, out=Q)
                    ll_trial = self.loglik_at(Q)
                    if ll_trial >= ll_new:
                        candidate, ll_new, P, Q = trial, ll_trial, Q, P
                self._release(Q)
        return candidate, P, ll_new

    def icm(self, s: NDArray, P: NDArray, ll: float) -> tuple[NDArray, NDArray, float]:
        """One modified ICM step on ``F_k = s_0 + ... + s_{k-1}``, ``0 < k < m``.

        The quadratic model with the diagonal of the negative Hessian is
        maximized over ``0 <= F_1 <= ... <= F_{m-1} <= 1`` by a weighted
        isotonic regression, and a backtracking line search along the
        segment to it keeps the Armijo condition (Jongbloed, 1998).  ``P``
        are the row probabilities at ``s`` (a pool buffer handed over);
        returns the new masses, their row probabilities and log-likelihood.
        """
        m = self.m
        if m == 1:
            return s, P, ll
        r, r2 = self._buffer(), self._buffer()
        np.divide(self.w, P, out=r)
        np.divide(r, P, out=r2)
        g = (self._counts(self.stop, r) - self._counts(self.start, r))[1:m]
        h = (self._counts(self.stop, r2) + self._counts(self.start, r2))[1:m]
        h = np.maximum(h, np.finfo(float).tiny)
        F = np.cumsum(s)[:-1]
        target = isotonic_regression(F + g / h, sample_weight=h, increasing=True)
        direction = np.clip(target, 0.0, 1.0) - F
        slope = _dot(g, direction)
        if not slope > 0:
            self._release(r, r2)
            return s, P, ll
        # Relative change of each row probability per unit step: the gain
        # sum_i w_i log1p(step * ratio_i) is exact where differencing two
        # log-likelihoods would lose it to rounding near the optimum.
        cum = np.concatenate([[0.0], direction, [0.0]])
        ratio, change = r2, r
        np.take(cum, self.stop, out=ratio)
        np.take(cum, self.start, out=change)
        np.subtract(ratio, change, out=ratio)
        np.divide(ratio, P, out=ratio)
        step = 1.0
        for _ in range(_MAX_HALVINGS):
            np.multiply(ratio, step, out=change)
            if change.min() > -1.0:
                np.log1p(change, out=change)
                np.multiply(change, self.w, out=change)
                gain = float(change.sum())
                if gain >= _ARMIJO * step * slope:
                    F_new = np.concatenate([[0.0], F + step * direction, [1.0]])
                    trial = np.clip(np.diff(F_new), 0.0, None)
                    trial /= trial.sum()
                    # A row whose range the isotonic fit flattened has ratio
                    # -1, which rounding can put a hair above -1: the step
                    # then empties the row.  Take a shorter one instead.
                    Q = self.probabilities(trial)
                    if Q.min() > 0:
                        self._release(r, r2, P)
                        return trial, Q, ll + gain
                    self._release(Q)
            step *= 0.5
        self._release(r, r2)
        return s, P, ll

    def solve(
        self, method: str, tol: float, max_iter: int
    ) -> tuple[NDArray, int, bool, float]:
        """Iterate from the uniform masses until ``max_j d_j - 1 <= tol``.

        Returns the masses, the iterations run, whether the criterion was
        met and the last gap.
        """
        s = np.full(self.m, 1.0 / self.m)
        P = self.probabilities(s)
        ll = self.loglik_at(P)
        try:
            for it in range(max_iter):
                d = self.gradient_at(P)
                gap = float(d.max()) - 1.0
                if gap <= tol:
                    return s, it, True, gap
                previous = s
                if method != "icm":
                    s, P_new, ll = self.squarem(s, ll, d)
                    self._release(P)
                    P = P_new
                if method != "turnbull":
                    s, P, ll = self.icm(s, P, ll)
                if np.array_equal(s, previous):
                    # No step improves the likelihood in floating point.
                    return s, it + 1, False, gap
            gap = float(self.gradient_at(P).max()) - 1.0
            return s, max_iter, gap <= tol, gap
        finally:
            self._pool.clear()
