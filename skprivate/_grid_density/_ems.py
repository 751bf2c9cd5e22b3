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
from scipy import ndimage, sparse
from sklearn.exceptions import ConvergenceWarning

from ..utils._warnings import external_stacklevel

__all__ = [
    "ML_FOLDS",
    "ML_MAX_ITER",
    "ML_SELECTION_TOL",
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

# Tolerance of the held-out fits that only rank the candidate widths.  Their
# scores need far less precision than the estimate: near the best width the
# mean held-out log-likelihoods of neighbouring widths usually differ by
# 1e-5 to 1e-4 nats per report, well inside the sampling noise of the
# criterion, and the slow modes of EMS at narrow widths (contraction rates
# above 0.999: at 1.4 cells on the RVNS design of benchmarks/peers.py row
# 6, 26 eigenvalues of the map's Jacobian above 0.99) make the last decades
# of tolerance the most expensive ones.  At this tolerance a held-out score
# is within about 1e-5 nats per report of its limit (measured there up to
# 4.5e-6 at the widths near the peak, and up to 2.7e-5 between two runs
# whose products differ only in rounding: SQUAREM's path, and so where it
# stops, depends on the last bits), so two widths closer than that are
# ranked by rounding: on that design 1.0, 1.4 and 2.0 cells score within
# 3e-5 of each other, and which one wins differs between CPUs and between
# equivalent products (W1 1.26, 1.18 and 1.04, all within the criterion's
# noise; the "rbc" intervals join the widths the data cannot tell apart,
# :mod:`._width_choice`).  A Newton-Krylov solve
# reaches 1e-9 in about 1.3-2 times SQUAREM's evaluations at this
# tolerance, so a precise ranking costs more, not less.  The fit at the
# chosen width runs to ``ML_TOL``.
ML_SELECTION_TOL = 3e-6


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


def _smoothing_step(
    m: int, width: float
) -> Callable[[NDArray], NDArray[np.float64]] | None:
    """``w -> S @ w`` for the smoother of :func:`_smoother_sparse` (columns).

    While the kernel is shorter than the grid, each reflected weight lands
    inside it once, so every column of ``S`` holds all the weights and
    ``S @ w`` is a correlation with the normalized kernel, reflected at the
    ends (half-sample symmetric, ``w[-1 - j] = w[j]``): a filter pass costs
    about half the sparse product, and agrees with it to rounding.  Wider
    kernels fold more than once and keep the sparse matrix.
    """
    if width <= 0:
        return None
    half = int(np.ceil(4 * width))
    if half >= m:
        S = _smoother_sparse(m, width)
        return lambda w: S @ w
    offsets = np.arange(-half, half + 1)
    weights = np.exp(-0.5 * (offsets / width) ** 2)
    weights /= weights.sum()

    def smooth(w: NDArray) -> NDArray[np.float64]:
        return ndimage.correlate1d(w, weights, axis=0, mode="reflect")

    return smooth


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
        # a sparse transpose built once: ``rest.T`` would rebuild it per product
        self._rest_t = rest.T.tocsr() if sparse.issparse(rest) else rest.T

    def matvec(self, w: NDArray) -> NDArray[np.float64]:
        """``A @ w`` (``w`` a vector, or a matrix of one vector per column)."""
        if np.ndim(w) == 2:
            v = self.scale[:, None] * w
            return self.profile[:, None] * v.sum(axis=0) + self.rest @ v
        v = self.scale * w
        return self.profile * v.sum() + self.rest @ v

    def rmatvec(self, u: NDArray) -> NDArray[np.float64]:
        """``A.T @ u`` (``u`` a vector, or a matrix of one vector per column)."""
        if np.ndim(u) == 2:
            return self.scale[:, None] * (self.profile @ u + self._rest_t @ u)
        return self.scale * (np.dot(self.profile, u) + self._rest_t @ u)

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
    entries, dense otherwise (then nothing is gained).  An object that
    already has ``matvec``, ``rmatvec`` and ``shape`` (a family's own fast
    operator) is returned as it is.
    """
    if isinstance(A, TransitionOperator) or all(
        hasattr(A, name) for name in ("matvec", "rmatvec", "shape")
    ):
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


def _squarem_columns(
    update: Callable[[NDArray, NDArray], NDArray],
    w: NDArray,
    max_iter: int,
    tol: float,
) -> tuple[NDArray[np.float64], NDArray[np.intp], NDArray[np.bool_]]:
    """:func:`_squarem` on the columns of ``w`` at once, each on its own path.

    ``update(W, cols)`` applies the map of columns ``cols`` to the columns
    of ``W``.  Every column follows the scheme of :func:`_squarem` with its
    own step length and cap, and stops on its own test; the columns still
    running share each evaluation of ``update`` (one call for a batch).  A
    cycle without extrapolation evaluates the map at ``w2`` in its third
    call, which is the first evaluation of the next cycle in the scalar
    scheme, so each column makes the same evaluations as there.
    """
    w = np.array(w, dtype=float)
    _m, k = w.shape
    out = w.copy()
    n_eval = np.zeros(k, dtype=np.intp)
    converged = np.zeros(k, dtype=bool)
    cols = np.arange(k)
    step_max = np.ones(k)
    w1 = update(w, cols)
    n_eval += 1
    while cols.size:
        r = w1 - w
        done = np.max(np.abs(r), axis=0) < tol * np.max(w1, axis=0)
        capped = ~done & (n_eval[cols] >= max_iter)
        stop = done | capped
        if stop.any():
            out[:, cols[stop]] = w1[:, stop]
            converged[cols[stop]] = done[stop]
            keep = ~stop
            cols, w, w1, r = cols[keep], w[:, keep], w1[:, keep], r[:, keep]
            step_max = step_max[keep]
            if not cols.size:
                break
        w2 = update(w1, cols)
        n_eval[cols] += 1
        v = w2 - w1 - r
        norm_v = np.sqrt(np.einsum("ij,ij->j", v, v))
        norm_r = np.sqrt(np.einsum("ij,ij->j", r, r))
        alpha = np.where(norm_v > 0, norm_r / np.where(norm_v > 0, norm_v, 1.0), 1.0)
        alpha = np.minimum(np.maximum(alpha, 1.0), step_max)
        room = n_eval[cols] < max_iter
        ext = (alpha > 1.0) & room
        if ext.all():  # the usual case: no column copies
            cand = np.maximum(w + 2.0 * alpha * r + alpha * alpha * v, 0.0)
            cand /= cand.sum(axis=0)
        else:
            cand = w2.copy()
            if ext.any():
                a = alpha[ext]
                e = w[:, ext] + 2.0 * a * r[:, ext] + a * a * v[:, ext]
                e = np.maximum(e, 0.0)
                cand[:, ext] = e / e.sum(axis=0)
        # a column at its cap without extrapolation ends at w2, as in _squarem
        last = ~ext & ~room
        if last.any():
            out[:, cols[last]] = w2[:, last]
            keep = ~last
            cols, w, w1, w2, cand = (
                cols[keep],
                w[:, keep],
                w1[:, keep],
                w2[:, keep],
                cand[:, keep],
            )
            alpha, ext, step_max = alpha[keep], ext[keep], step_max[keep]
            if not cols.size:
                break
        new = update(cand, cols)
        n_eval[cols] += 1
        bad = ext & ~np.all(np.isfinite(new), axis=0)
        at_cap = alpha == step_max
        step_max = np.where(ext & ~bad & at_cap, step_max * 4.0, step_max)
        step_max = np.where(bad & at_cap, np.maximum(1.0, step_max / 4.0), step_max)
        step_max = np.where(~ext & (step_max == 1.0), 4.0, step_max)
        w, w1 = cand, new
        if bad.any():
            # the extrapolation failed: the cycle ends at w2, whose update
            # starts the next one
            w[:, bad] = w2[:, bad]
            w1[:, bad] = update(w2[:, bad], cols[bad])
            n_eval[cols[bad]] += 1
    return out, n_eval, converged


def _ems_columns_update(
    op: Any, targets: NDArray, width: float
) -> Callable[[NDArray, NDArray], NDArray]:
    """The EMS map of each column of ``targets`` (report shares), batched."""
    smooth = _smoothing_step(op.shape[1], width)
    every = targets.shape[1]

    def update(w: NDArray, cols: NDArray) -> NDArray[np.float64]:
        # (in place on the arrays made here: the same values, fewer copies)
        fitted = op.matvec(w)
        np.maximum(fitted, _FLOOR, out=fitted)
        share = targets if cols.size == every else targets[:, cols]
        new = op.rmatvec(np.divide(share, fitted, out=fitted))
        new *= w
        if smooth is not None:
            new = smooth(new)
        new /= new.sum(axis=0)
        return new

    return update


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
    smooth = _smoothing_step(m, width)
    if start is None:
        w = np.full(m, 1.0 / m)
    else:
        w = np.maximum(np.asarray(start, dtype=float), 0.0)
        w = w / w.sum()

    def update(w: NDArray) -> NDArray[np.float64]:
        fitted = np.maximum(op.matvec(w), _FLOOR)
        new = w * op.rmatvec(target / fitted)
        if smooth is not None:
            new = smooth(new)
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
    patience: int | None = None,
    batch: bool = False,
    diagnostics: dict | None = None,
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

    ``patience`` (``None``: every width is fitted) stops the path once that
    many consecutive widths have scored below the best so far; the widths
    left out get the score ``-inf``.  With a held-out score that rises then
    falls along the path (the usual shape), the choice is the same and the
    narrowest widths, the slowest to fit, are skipped.

    ``batch=True`` fits the folds of a width together, one column each of
    a matrix (``A``'s products must accept matrices): each fold keeps its
    own SQUAREM path and stopping test (:func:`_squarem_columns`), so the
    fits are those of the fold-by-fold loop up to rounding, at the cost of
    about one product per evaluation for all the folds.

    A dict passed as ``diagnostics`` receives what judging the choice needs
    (:mod:`._width_choice`): ``"log_probs"``, the log-probability of each
    bin under each width's fit of each fold (``widths x folds x bins``,
    ``nan`` for widths left out), ``"fold_fits"``, the mean of the folds'
    fits at each width, ``"counts_by_fold"``, and the ``"tol"`` and
    ``"max_iter"`` of the held-out fits (to fit the widths left out later).
    """
    op = transition_operator(A)
    folds = np.asarray(counts_by_fold, dtype=float)
    total = folds.sum(axis=0)
    widths = np.asarray(widths, dtype=float)
    scores = np.zeros(widths.size)
    fits = np.zeros((widths.size, folds.shape[0], op.shape[1]))
    log_probs = np.full((widths.size, *folds.shape), np.nan)
    previous: list[NDArray | None] = [None] * folds.shape[0]
    capped = []
    best_so_far, worse = -np.inf, 0
    order = np.argsort(-widths, kind="stable")
    if batch:
        targets = (total - folds).T
        targets = targets / targets.sum(axis=0)
        current = np.full((op.shape[1], folds.shape[0]), 1.0 / op.shape[1])
    for step, k in enumerate(order):
        if patience is not None and worse >= patience:
            scores[order[step:]] = -np.inf
            break
        if batch:
            update = _ems_columns_update(op, targets, float(widths[k]))
            current, _, ok = _squarem_columns(update, current, max_iter, tol)
            capped += [
                f"EM with smoothing (width {widths[k]:g} cells) reached max_iter="
                f"{max_iter} before its relative change fell below tol={tol:g}."
            ] * int((~ok).sum())
            fits[k] = current.T
            fitted = np.log(np.maximum(op.matvec(current), _FLOOR))
            log_probs[k] = fitted.T
            scores[k] = float(np.einsum("fj,jf->", folds, fitted))
        for f, held in enumerate([] if batch else folds):
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
            log_probs[k, f] = np.log(np.maximum(op.matvec(w), _FLOOR))
            scores[k] += np.dot(held, log_probs[k, f])
        # ties count as improvements, as ties go to the larger width below
        if scores[k] > best_so_far - 1e-12 * total.sum():
            best_so_far, worse = max(best_so_far, scores[k]), 0
        else:
            worse += 1
    n_fitted = int(np.isfinite(scores).sum())
    if capped:
        warnings.warn(
            f"{len(capped)} of the {n_fitted * folds.shape[0]} held-out fits "
            f"choosing the smoothing did not converge; first: {capped[0]}",
            ConvergenceWarning,
            stacklevel=external_stacklevel(),
        )
    scores /= total.sum()
    best = np.flatnonzero(scores >= scores.max() - 1e-12)[-1]
    if diagnostics is not None:
        diagnostics.update(
            log_probs=log_probs,
            fold_fits=fits.mean(axis=1),
            counts_by_fold=folds,
            tol=tol,
            max_iter=max_iter,
        )
    if return_start:
        return float(widths[best]), scores, fits[best].mean(axis=0)
    return float(widths[best]), scores
