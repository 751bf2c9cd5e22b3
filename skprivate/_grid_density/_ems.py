"""EM with a smoothing step (EMS) for reports counted in bins.

``A[j, i]`` is the probability that a report falls in bin ``j`` given a
value in cell ``i``; the cell probabilities maximize the multinomial
likelihood of the bin counts, with a Gaussian smoothing after each EM step
whose width is chosen by the held-out likelihood of folds of respondents.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import sparse
from sklearn.exceptions import ConvergenceWarning

from ..utils._warnings import external_stacklevel

__all__ = [
    "ML_FOLDS",
    "ML_MAX_ITER",
    "ML_TOL",
    "ML_WIDTHS",
    "TransitionOperator",
    "ems_cell_probabilities",
    "select_ems_width",
    "transition_operator",
]

_FLOOR = 1e-12

# Maximum-likelihood reconstruction: folds of respondents (round robin) for
# choosing the smoothing, the candidate widths (in cells), EM settings.
ML_FOLDS = 5

# Widths in steps of about sqrt(2): with steps of 2 the held-out likelihood
# chose between widths whose errors differed by up to 4.7x (flipped Huber
# reports, benchmarks/results/defaults.md); with these, within 2.7x of the
# best width on 20 seeds.  0.35 was left out: chosen where it is too narrow.
ML_WIDTHS = (0.5, 0.7, 1.0, 1.4, 2.0, 2.8, 4.0, 5.6, 8.0)

ML_MAX_ITER = 3000

ML_TOL = 1e-7


def _smoother_sparse(m: int, width: float) -> sparse.csr_matrix | None:
    """Gaussian smoothing of std ``width`` cells, reflected at the ends (sparse).

    Column ``i`` spreads cell ``i`` over the ``2 * ceil(4 * width) + 1``
    cells around it, so a product costs O(m * width), not O(m**2).
    """
    if width <= 0:
        return None
    i = np.arange(m)
    half = int(np.ceil(4 * width))
    offsets = np.arange(-half, half + 1)
    weights = np.exp(-0.5 * (offsets / width) ** 2)
    j = i[None, :] + offsets[:, None]
    j = np.where(j < 0, -j - 1, j)
    j = np.where(j >= m, 2 * m - j - 1, j)
    j = np.clip(j, 0, m - 1)  # only for widths wider than the grid itself
    cols = np.broadcast_to(i, j.shape)
    vals = np.broadcast_to(weights[:, None], j.shape)
    S = sparse.coo_matrix((vals.ravel(), (j.ravel(), cols.ravel())), shape=(m, m))
    S = S.tocsc()
    S.sum_duplicates()
    S = S @ sparse.diags(1.0 / np.asarray(S.sum(axis=0)).ravel())
    return S.tocsr()


def _smoother(m: int, width: float) -> NDArray[np.float64] | None:
    """Gaussian smoothing matrix of std ``width`` cells, reflected at the ends."""
    S = _smoother_sparse(m, width)
    return None if S is None else S.toarray()


class TransitionOperator:
    """A transition matrix stored as a row profile plus a sparse remainder.

    ``A = (r 1^T + B) diag(s)``: most mechanisms move a value to any report
    with a probability that does not depend on the value, except in a band
    around it (RVNS excludes the reports of a band; Square Wave favours
    one), so ``B`` has few nonzeros and the products ``A @ w`` and
    ``A.T @ u`` cost O(nnz(B) + m) instead of O(m**2).  Built by
    :func:`transition_operator`.
    """

    def __init__(self, profile: NDArray, rest: Any, scale: NDArray) -> None:
        self.profile = np.asarray(profile, dtype=float)
        self.rest = rest
        self.scale = np.asarray(scale, dtype=float)
        self.shape = (self.profile.size, self.scale.size)

    def matvec(self, w: NDArray) -> NDArray[np.float64]:
        """``A @ w``."""
        v = self.scale * w
        return self.profile * v.sum() + self.rest @ v

    def rmatvec(self, u: NDArray) -> NDArray[np.float64]:
        """``A.T @ u``."""
        return self.scale * (np.dot(self.profile, u) + self.rest.T @ u)

    def __matmul__(self, w: NDArray) -> NDArray[np.float64]:
        return self.matvec(w)

    def toarray(self) -> NDArray[np.float64]:
        """The dense matrix."""
        rest = self.rest.toarray() if sparse.issparse(self.rest) else self.rest
        return (self.profile[:, None] + rest) * self.scale[None, :]


def transition_operator(
    A: Any,
    profile: NDArray | None = None,
    scale: NDArray | None = None,
    band: NDArray | None = None,
) -> TransitionOperator:
    """``A`` (dense) as a :class:`TransitionOperator` for fast products.

    ``profile`` is the value of each row outside the band (the median of
    the row when not given) and ``scale`` a factor per column (1 when not
    given), so ``A = (profile 1^T + rest) diag(scale)``; entries of ``rest``
    within 1e-14 of the largest entry of ``A`` are rounding and dropped, and
    so are those outside ``band`` (a boolean mask of ``A``'s shape, where
    the caller knows that ``A`` equals the profile exactly and the computed
    entries differ from it by rounding only).
    The remainder is stored sparse when it has fewer than a third of the
    entries, dense otherwise (then nothing is gained).
    """
    if isinstance(A, TransitionOperator):
        return A
    A = np.asarray(A, dtype=float)
    m = A.shape[1]
    scale = np.ones(m) if scale is None else np.asarray(scale, dtype=float)
    base = A / scale[None, :]
    if profile is None:
        profile = np.median(base, axis=1)
    rest = base - np.asarray(profile, dtype=float)[:, None]
    top = np.abs(base).max() if base.size else 0.0
    rest[np.abs(rest) <= 1e-14 * top] = 0.0
    if band is not None:
        rest[~np.asarray(band, dtype=bool)] = 0.0
    if np.count_nonzero(rest) < base.size / 3:
        rest = sparse.csr_matrix(rest)
    return TransitionOperator(profile, rest, scale)


def _squarem(
    update: Callable[[NDArray], NDArray], w: NDArray, max_iter: int, tol: float
) -> tuple[NDArray[np.float64], int, bool]:
    """Fixed point of ``update`` on the simplex by SQUAREM (scheme S3).

    Varadhan and Roland (2008): from ``w0``, ``w1 = F(w0)``, ``w2 = F(w1)``,
    ``r = w1 - w0``, ``v = w2 - w1 - r`` and the step ``a = ||r|| / ||v||``
    clipped to ``[1, a_max]``; the extrapolation ``w0 + 2 a r + a^2 v`` is
    clipped at 0 and renormalized.  EMS maximizes no known objective, so,
    as the authors' SQUAREM package does without an objective, the
    extrapolation is accepted unless its update is not finite (then the
    cycle ends at ``w2``, two plain updates); the update ``F(w')`` that
    follows every extrapolation stabilizes it.  (Accepting only
    extrapolations that lower the residual ``||F(w') - w'||`` rejected most
    of them and saved little.)  ``a_max`` starts at 1, grows 4x after an
    accepted step at the cap and shrinks 4x after a rejected one.  The
    stopping rule is the plain iteration's, tested on a plain update, so
    both have the same fixed points.  Returns the last update, the number
    of evaluations of ``update`` and whether it converged.
    """
    n_eval = 0
    step_max = 1.0
    w1 = None
    while n_eval < max_iter:
        if w1 is None:
            w1 = update(w)
            n_eval += 1
        r = w1 - w
        res = np.max(np.abs(r))
        if res < tol * np.max(w1):
            return w1, n_eval, True
        if n_eval >= max_iter:
            break
        w2 = update(w1)
        n_eval += 1
        v = w2 - w1 - r
        norm_v = np.sqrt(v @ v)
        alpha = np.sqrt(r @ r) / norm_v if norm_v > 0 else 1.0
        alpha = min(max(alpha, 1.0), step_max)
        if alpha > 1.0 and n_eval < max_iter:
            cand = np.maximum(w + 2.0 * alpha * r + alpha * alpha * v, 0.0)
            cand /= cand.sum()
            new = update(cand)
            n_eval += 1
            if np.all(np.isfinite(new)):
                if alpha == step_max:
                    step_max *= 4.0
                w, w1 = cand, new
                continue
            if alpha == step_max:
                step_max = max(1.0, step_max / 4.0)
        elif step_max == 1.0:
            step_max = 4.0
        w, w1 = w2, None
    return (w if w1 is None else w1), n_eval, False


def ems_cell_probabilities(
    A: Any,
    counts: NDArray,
    width: float,
    *,
    max_iter: int,
    tol: float,
    start: NDArray | None = None,
    acceleration: str | None = "squarem",
    warn: bool = True,
) -> tuple[NDArray[np.float64], int]:
    """EM for the multinomial likelihood of binned reports, with smoothing.

    ``counts[j]`` reports fell in cell ``j``; ``A`` is the column-stochastic
    cell transition matrix (dense or a :class:`TransitionOperator`).  Each
    EM step ``w <- w * A^T (c / A w) / n`` is followed by a Gaussian
    smoothing of ``w`` with std ``width`` cells (EMS, Silverman et al.
    1990); ``width = 0`` is plain EM.  Stops when the largest change of a
    plain update of ``w`` falls below ``tol`` times its largest entry.
    ``start`` is the first iterate (uniform when not given);
    ``acceleration="squarem"`` extrapolates the iteration by SQUAREM
    (Varadhan and Roland, 2008), ``None`` runs the plain fixed-point
    iteration; both stop on the same rule.  A ConvergenceWarning is issued
    when ``max_iter`` evaluations of the update do not meet it (unless
    ``warn=False``).
    """
    op = transition_operator(A)
    m = op.shape[1]
    c = np.asarray(counts, dtype=float)
    target = c / c.sum()
    S = _smoother_sparse(m, width)
    if start is None:
        w = np.full(m, 1.0 / m)
    else:
        w = np.maximum(np.asarray(start, dtype=float), 0.0)
        w = w / w.sum()

    def update(w: NDArray) -> NDArray[np.float64]:
        fitted = np.maximum(op.matvec(w), _FLOOR)
        new = w * op.rmatvec(target / fitted)
        if S is not None:
            new = S @ new
        return new / new.sum()

    if acceleration == "squarem":
        w, n_iter, converged = _squarem(update, w, max_iter, tol)
    elif acceleration is None:
        n_iter, converged = 0, False
        while n_iter < max_iter:
            n_iter += 1
            new = update(w)
            converged = np.max(np.abs(new - w)) < tol * np.max(new)
            w = new
            if converged:
                break
    else:
        raise ValueError(
            f"acceleration must be 'squarem' or None; got {acceleration!r}."
        )
    if warn and not converged:
        warnings.warn(
            f"EM with smoothing (width {width:g} cells) reached max_iter="
            f"{max_iter} before its relative change fell below tol={tol:g}.",
            ConvergenceWarning,
            stacklevel=external_stacklevel(),
        )
    return w, n_iter


def select_ems_width(
    A: Any,
    counts_by_fold: NDArray,
    widths: NDArray,
    *,
    max_iter: int,
    tol: float,
    return_start: bool = False,
) -> (
    tuple[float, NDArray[np.float64]]
    | tuple[float, NDArray[np.float64], NDArray[np.float64]]
):
    """Smoothing width with the best held-out log-likelihood of the reports.

    ``counts_by_fold`` has one row of cell counts per fold of respondents;
    each fold is predicted by the EMS fit on the others, and the mean
    log-likelihood per held-out report is returned for each width.  Ties go
    to the larger width.  The widths are fitted from the widest down, each
    fold's fit starting from its fit at the previous width (a warm start:
    the fixed point moves little from one width to the next).  With
    ``return_start``, the mean of the fold fits at the chosen width is
    returned too, a start for the fit on all the reports.
    """
    op = transition_operator(A)
    folds = np.asarray(counts_by_fold, dtype=float)
    total = folds.sum(axis=0)
    widths = np.asarray(widths, dtype=float)
    scores = np.zeros(widths.size)
    fits = np.zeros((widths.size, folds.shape[0], op.shape[1]))
    previous: list[NDArray | None] = [None] * folds.shape[0]
    capped = []
    for k in np.argsort(-widths, kind="stable"):
        for f, held in enumerate(folds):
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always", ConvergenceWarning)
                w, _ = ems_cell_probabilities(
                    op,
                    total - held,
                    float(widths[k]),
                    max_iter=max_iter,
                    tol=tol,
                    start=previous[f],
                )
            capped += [str(x.message) for x in caught]
            previous[f] = fits[k, f] = w
            scores[k] += np.dot(held, np.log(np.maximum(op.matvec(w), _FLOOR)))
    if capped:
        warnings.warn(
            f"{len(capped)} of the {widths.size * folds.shape[0]} held-out fits "
            f"choosing the smoothing did not converge; first: {capped[0]}",
            ConvergenceWarning,
            stacklevel=external_stacklevel(),
        )
    scores /= total.sum()
    best = np.flatnonzero(scores >= scores.max() - 1e-12)[-1]
    if return_start:
        return float(widths[best]), scores, fits[best].mean(axis=0)
    return float(widths[best]), scores
