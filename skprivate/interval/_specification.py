"""A score test of the linear specification of a censored-normal regression.

``IterativeIntervalRegressor(LinearRegression(), init="auto")`` checks the
interval MLE against boosted models of the responses on held-out rows,
which costs several LightGBM fits.  Under a linear regression function no
flexible model can gain, and a Lagrange-multiplier (score) test at the MLE
says so at the cost of one least-squares solve: the per-row scores of the
interval log-likelihood in the directions of added terms (squares and
products of the standardized features, powers of the fitted values) have
mean zero when the linear model holds.  The check runs only when the test
rejects.

The statistic is the outer-product-of-gradients (OPG) form ``n R^2`` of the
regression of ones on the per-row scores (Godfrey, 1988, ch. 1; Chesher and
Irish, 1987, for censored models): asymptotically chi-square with as many
degrees of freedom as independent added directions.  In finite samples
the OPG form rejects more often than its level, which only makes the
screen run the full check more often.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy.stats import chi2

from ._truncated import _mills, truncated_moments

__all__ = ["linear_specification_pvalue", "specification_terms"]

# Pairwise products of the features join the added terms up to this many
# features (28 products at 8), squares up to _MAX_SQUARES features; beyond,
# only the powers of the fitted values (the RESET terms).
_MAX_PRODUCTS = 8
_MAX_SQUARES = 40
# Step in log sigma of the central differences.
_STEP = 1e-4


def specification_terms(X: NDArray, fitted: NDArray) -> NDArray:
    """The added directions of the test, one column each.

    The squares of the standardized non-constant features (at most
    ``_MAX_SQUARES`` features), their pairwise products (at most
    ``_MAX_PRODUCTS`` features), and the square and cube of the
    standardized fitted values.
    """
    sd = X.std(axis=0)
    keep = sd > 0
    S = (X[:, keep] - X[:, keep].mean(axis=0)) / sd[keep]
    p = S.shape[1]
    columns = []
    if p <= _MAX_SQUARES:
        columns.append(S * S)
    if p <= _MAX_PRODUCTS:
        i, j = np.triu_indices(p, k=1)
        columns.append(S[:, i] * S[:, j])
    f_sd = fitted.std()
    if f_sd > 0:
        t = (fitted - fitted.mean()) / f_sd
        columns.append(np.column_stack([t * t, t * t * t]))
    if not columns:
        return np.empty((X.shape[0], 0))
    return np.column_stack(columns)


def _row_derivatives(Z: NDArray, f: NDArray, sigma: float) -> tuple[NDArray, ...]:
    """Per-row derivatives of the interval log-likelihood at ``(f, sigma)``.

    ``s = d log P / d f``, ``h = d^2 log P / d f^2``, ``c = d s / d log sigma``
    and ``u = d^2 log P / d (log sigma)^2``.  For Gaussian noise ``s =
    E[e | cell] / sigma^2`` and ``h = (Var(e | cell) - sigma^2) / sigma^4``;
    the derivatives in ``log sigma`` are central differences of ``s`` and
    of ``t = d log P / d log sigma = E[e^2 | cell] / sigma^2 - 1``.  Exact
    values (equal ends) are the Gaussian density's, in closed form.
    """
    lo, hi = Z[:, 0] - f, Z[:, 1] - f
    up = np.isfinite(hi)
    if np.all(up ^ np.isfinite(lo)):
        return _half_line_derivatives(np.where(up, hi, -lo) / sigma, up, sigma)
    exact = Z[:, 0] == Z[:, 1]
    e = Z[:, 0] - f

    def first(scale: float) -> tuple[NDArray, NDArray]:
        with np.errstate(invalid="ignore"):
            m, m2 = truncated_moments(Z[:, 0] - f, Z[:, 1] - f, "gaussian", scale)
        return m / scale**2, m2 / scale**2 - 1.0, m, m2

    s, _, m, m2 = first(sigma)
    up, down = first(sigma * np.exp(_STEP)), first(sigma * np.exp(-_STEP))
    c = (up[0] - down[0]) / (2 * _STEP)
    u = (up[1] - down[1]) / (2 * _STEP)
    h = (m2 - m * m - sigma**2) / sigma**4
    if not exact.any():
        return s, h, c, u
    s = np.where(exact, e / sigma**2, s)
    h = np.where(exact, -1.0 / sigma**2, h)
    c = np.where(exact, -2.0 * e / sigma**2, c)
    u = np.where(exact, -2.0 * e * e / sigma**2, u)
    return s, h, c, u


def _half_line_derivatives(
    b: NDArray, up: NDArray, sigma: float
) -> tuple[NDArray, ...]:
    """:func:`_row_derivatives` of half-lines, in closed form.

    ``b`` is the standardized finite bound of the cell ``(-inf, b]`` (cells
    ``(a, inf)`` reflected to ``(-inf, -a]``, ``up`` False).  With the Mills
    ratio ``R = phi(b) / Phi(b)`` and ``A_k = -b^k R`` (``E[e] = A_0``,
    ``E[e^2] = 1 + A_1``), each ``A_k`` moves with ``log sigma`` as
    ``A_{k+2} - k A_k - A_k A_1``, so ``c = R (1 - b^2 - b R) / sigma`` and
    ``u = b R (1 - b^2 - b R)``; a reflected cell changes the sign of ``s``
    and ``c``.  The central differences of the general case agree to about
    1e-8 (their truncation error).
    """
    with np.errstate(invalid="ignore", over="ignore"):
        R = _mills(b)
        bR = b * R
        shape = 1.0 - b * b - bR
        sign = np.where(up, 1.0, -1.0)
        s = -sign * R / sigma
        h = -(bR + R * R) / sigma**2
        c = sign * R * shape / sigma
        u = bR * shape
    return s, h, c, u


def _null_rank(info: NDArray, k: int) -> int:
    # rank of the null model's block (the design's columns and log sigma)
    index = [*range(k), info.shape[0] - 1]
    evals = np.linalg.eigvalsh(info[np.ix_(index, index)])
    return int(np.sum(evals > evals.max() * 1e-10))


def linear_specification_pvalue(
    X: Any,
    Z: NDArray,
    w: NDArray,
    fitted: NDArray,
    sigma: float,
    fit_intercept: bool = True,
) -> float | None:
    """P-value of the score test of a linear regression function.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The design the MLE was fitted on.
    Z : ndarray of shape (n_samples, 2)
        Interval responses (equal ends for exact values).
    w : ndarray of shape (n_samples,)
        Sample weights (as in the held-out check, they enter the scores'
        variance squared).
    fitted : ndarray of shape (n_samples,)
        The interval MLE's fitted values.
    sigma : float
        The MLE's noise scale.
    fit_intercept : bool, default=True
        Whether the linear model has an intercept.

    Returns
    -------
    float or None
        The p-value, or None when the test does not apply (a design that
        is not a numeric array, no added direction, or fewer than ten rows
        per estimated direction).

    Examples
    --------
    >>> import numpy as np
    >>> rng = np.random.default_rng(0)
    >>> X = rng.normal(size=(400, 2))
    >>> f = X @ [1.0, -1.0]
    >>> Z = np.column_stack([f + rng.normal(size=400)] * 2)  # exact values
    >>> fitted = X @ np.linalg.lstsq(X, Z[:, 0], rcond=None)[0]
    >>> sigma = float(np.std(Z[:, 0] - fitted))
    >>> p = linear_specification_pvalue(
    ...     X, Z, np.ones(400), fitted, sigma, fit_intercept=False
    ... )
    >>> 0.0 <= p <= 1.0
    True
    """
    try:
        X = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        return None
    if X.ndim != 2 or not np.all(np.isfinite(X)):
        return None
    n = X.shape[0]
    G = specification_terms(X, fitted)
    # the statistic is invariant to rescaling the design's columns; scaled,
    # the information's eigenvalues are comparable
    scale = np.abs(X).max(axis=0)
    X = X / np.where(scale > 0, scale, 1.0)
    design = np.column_stack([np.ones(n), X]) if fit_intercept else X
    k = design.shape[1]
    if G.shape[1] == 0 or n < 10 * (k + 1 + G.shape[1]):
        return None
    s, h, c, u = _row_derivatives(Z, fitted, sigma)
    # Hessian of the extended model (location terms [design, G], then log
    # sigma) at the MLE, where the added terms' coefficients are zero; the
    # score is zero in the null directions.
    D = np.column_stack([design, G])
    hess = np.empty((D.shape[1] + 1, D.shape[1] + 1))
    hess[:-1, :-1] = D.T @ (D * (w * h)[:, None])
    hess[:-1, -1] = hess[-1, :-1] = D.T @ (w * c)
    hess[-1, -1] = float(w @ u)
    score = np.zeros(D.shape[1] + 1)
    score[k:-1] = G.T @ (w * s)
    info = -hess
    # the added directions that the design already spans carry nothing
    try:
        evals, evecs = np.linalg.eigh(info)
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(evals)) or evals.max() <= 0:
        return None
    if np.any(evals < -evals.max() * 1e-8):
        # At the MLE the null block is positive definite; a negative
        # eigenvalue of the whole means the log-likelihood rises along an
        # added direction there: evidence against the linear model.
        return 0.0
    positive = evals > evals.max() * 1e-10
    proj = evecs[:, positive].T @ score
    statistic = float(np.sum(proj * proj / evals[positive]))
    df = int(positive.sum()) - _null_rank(info, k)
    if df <= 0 or not np.isfinite(statistic):
        return None
    return float(chi2.sf(statistic, df))
