"""Newton's method for a location-scale MLE from interval data.

The log-likelihood of :class:`~skprivate.interval.IntervalMLE` is

    ℓ(μ, s) = Σ w_i log (F(b_i) - F(a_i)) + Σ_exact w_i (log f(t_i) - s),

with ``σ = exp(s)``, ``a_i = (lower_i - μ) / σ``, ``b_i = (upper_i - μ) / σ``
and ``t_i = (y_i - μ) / σ`` for exact values, ``F`` the standard normal or
logistic CDF.  Its gradient and Hessian are closed forms in the ratios
``r = f(end) / (F(b) - F(a))``, computed from logarithms (no cancellation in
either tail), and ``ψ = -f' / f`` (``t`` for the normal, ``tanh(t / 2)`` for
the logistic).  With ``c_θ`` the derivative of an end ``c`` in a parameter
(``c_μ = -1 / σ``, ``c_s = -c``, ``c_μμ = 0``, ``c_μs = 1 / σ``, ``c_ss = c``):

    ∂_θ log P = r_b b_θ - r_a a_θ,
    ∂_θφ log P = r_b (b_θφ - ψ(b) b_θ b_φ) - r_a (a_θφ - ψ(a) a_θ a_φ)
                 - ∂_θ log P ∂_φ log P,

and for an exact value ``∂_θ = -ψ(t) t_θ - [θ = s]``,
``∂_θφ = -ψ'(t) t_θ t_φ - ψ(t) t_θφ``.

Newton's step is damped (Levenberg) where the Hessian is not negative
definite and halved until the likelihood rises, so the iteration climbs from
any start; near the optimum it converges quadratically, so stopping on a
step below ``1e-10`` (in units of the spread of the data) leaves an error of
the order of the rounding of the gradient, far below the difference of
likelihood values (about ``1e-5`` in the same units) at which methods that
compare likelihoods stop.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

from ._truncated import log_interval_prob

__all__ = ["fit_location_scale"]

_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
_STEP_TOL = 1e-10
# A Newton step below this (in units of the spread of the data) is taken
# without a further pass: the error after it is of the order of its square.
_TAKE_TOL = 1e-6
# Rows of the first solve on large data.
_SUBSAMPLE = 20_000
_MAX_ITER = 100
_MAX_HALVINGS = 60


def _dot(a: NDArray, b: NDArray) -> float:
    # not BLAS: its threads cost more than these sums on a busy machine
    return float(np.einsum("i,i->", a, b))


def _log_density(t: NDArray, family: str) -> NDArray:
    if family == "normal":
        return -0.5 * t * t - _LOG_SQRT_2PI
    u = np.abs(t)  # the logistic density is even
    return -u - 2.0 * np.log1p(np.exp(-u))


def _psi(t: NDArray, family: str) -> tuple[NDArray, NDArray]:
    """``ψ = -f'/f`` of the standard density and its derivative."""
    if family == "normal":
        return t, np.ones_like(t)
    th = np.tanh(0.5 * t)
    return th, 0.5 * (1.0 - th * th)


class _Problem:
    """The weighted interval rows, split once into cells and exact values."""

    def __init__(self, lo: NDArray, hi: NDArray, w: NDArray, family: str) -> None:
        exact = lo == hi
        self.family = family
        self.noise = "gaussian" if family == "normal" else "logistic"
        self.lo, self.hi, self.w = lo[~exact], hi[~exact], w[~exact]
        self.y, self.w_exact = lo[exact], w[exact]
        # the finite ends of the cells (the same at every iteration)
        self.ends = []
        for end, sign in ((self.lo, -1.0), (self.hi, 1.0)):
            idx = np.flatnonzero(np.isfinite(end))
            self.ends.append((idx, end[idx], self.w[idx], sign))

    def derivatives(self, mu: float, s: float) -> tuple[float, NDArray, NDArray]:
        """``ℓ``, its gradient and its Hessian in ``(μ, s)``."""
        sigma = np.exp(s)
        inv = 1.0 / sigma
        log_p = log_interval_prob(self.lo - mu, self.hi - mu, self.noise, sigma)
        ll = _dot(self.w, log_p)
        # per-row d log P / d mu and d log P / d s; the f' terms of the
        # Hessian are summed directly, the product of first derivatives below
        g_mu = np.zeros(log_p.shape)
        g_s = np.zeros(log_p.shape)
        h = np.zeros(3)  # mu mu, mu s, s s
        for idx, end, w, sign in self.ends:
            if not idx.size:
                continue
            c = (end - mu) * inv
            r = sign * np.exp(_log_density(c, self.family) - log_p[idx])
            psi, _ = _psi(c, self.family)
            # c_mu = -1/sigma, c_s = -c; c_mumu = 0, c_mus = 1/sigma, c_ss = c
            rc = r * c
            g_mu[idx] -= r * inv
            g_s[idx] -= rc
            one_minus = 1.0 - psi * c
            h += [
                -_dot(w, r * psi) * inv * inv,
                _dot(w, r * one_minus) * inv,
                _dot(w, rc * one_minus),
            ]
        wg_mu = self.w * g_mu
        grad = np.array([wg_mu.sum(), _dot(self.w, g_s)])
        h -= [_dot(wg_mu, g_mu), _dot(wg_mu, g_s), _dot(self.w, g_s * g_s)]
        if self.y.size:
            t = (self.y - mu) * inv
            psi, dpsi = _psi(t, self.family)
            we = self.w_exact
            ll += _dot(we, _log_density(t, self.family) - s)
            # t_mu = -1/sigma, t_s = -t; t_mumu = 0, t_mus = 1/sigma, t_ss = t
            grad += [_dot(we, psi) * inv, _dot(we, psi * t - 1.0)]
            h += [
                -_dot(we, dpsi) * inv * inv,
                -_dot(we, dpsi * t + psi) * inv,
                -_dot(we, (dpsi * t + psi) * t),
            ]
        hess = np.array([[h[0], h[1]], [h[1], h[2]]])
        return ll, grad, hess


def fit_location_scale(
    lo: NDArray,
    hi: NDArray,
    w: NDArray,
    family: str,
    centre: float,
    unit: float,
) -> tuple[float, float, float, int, bool]:
    """Maximize the interval log-likelihood.

    ``w`` are row weights summing to one; the iteration starts at location
    ``centre`` and scale ``unit`` and works in units of ``unit`` (location
    ``(μ - centre) / unit``, log scale less ``log unit``), so the result does
    not depend on the unit of the data.

    Returns
    -------
    loc, scale, log_likelihood : float
        The estimate and ``ℓ`` there.
    n_iter : int
        Newton iterations, over the subsample and the full data.
    converged : bool
        False when the full-data iteration stopped at ``_MAX_ITER`` steps
        without meeting its stopping rule.
    """
    scaling = np.array([unit, 1.0])  # d(mu, s) / d(units)
    x = np.array([centre, np.log(unit)])
    n_iter = 0
    if lo.size > 2 * _SUBSAMPLE:
        # Most steps are taken on evenly spaced rows; the full data then
        # need two or three (quadratic convergence from close by).
        rows = np.linspace(0, lo.size - 1, _SUBSAMPLE).astype(np.intp)
        sub = _Problem(lo[rows], hi[rows], w[rows] / w[rows].sum(), family)
        # only the start of the full solve: its convergence does not matter
        x, _, n_iter, _ = _newton(sub, x, scaling)
    x, ll, more, converged = _newton(_Problem(lo, hi, w, family), x, scaling)
    return float(x[0]), float(np.exp(x[1])), ll, n_iter + more, converged


def _newton(
    problem: _Problem, x: NDArray, scaling: NDArray
) -> tuple[NDArray, float, int, bool]:
    """Newton ascent from ``x = (μ, s)``; ``(x, ℓ, iterations, converged)``."""
    ll, grad, hess = problem.derivatives(*x)
    for it in range(1, _MAX_ITER + 1):
        step = _ascent_step(grad * scaling, hess * np.outer(scaling, scaling))
        if np.max(np.abs(step)) < _TAKE_TOL:
            # its error after it is of the order of its square; ll is that
            # of x, which it changes by about |grad| |step|, below 1e-12
            return x + step * scaling, ll, it, True
        size = 1.0
        while True:
            cand = x + size * step * scaling
            found = _trial(problem, cand)
            if found[0] >= ll or size < 2.0**-_MAX_HALVINGS:
                break
            size *= 0.5
        if not found[0] >= ll:  # no rise along the step: at the optimum
            return x, ll, it, True
        x = cand
        ll, grad, hess = found
        if np.max(np.abs(size * step)) < _STEP_TOL:
            return x, ll, it, True
    return x, ll, _MAX_ITER, False


def _trial(
    problem: _Problem, cand: NDArray
) -> tuple[float, NDArray | None, NDArray | None]:
    """``problem.derivatives`` at a trial point; ``ℓ = -inf`` where it has none.

    A long step may leave the floats: ``exp(s)`` underflows to 0 below
    ``s ≈ -745`` and overflows above ``s ≈ 709``, where the likelihood is not
    defined; such a point is rejected like one whose likelihood falls, and
    the step is halved.
    """
    with np.errstate(over="ignore", under="ignore"):
        sigma = np.exp(cand[1])
    if not (np.all(np.isfinite(cand)) and 0.0 < sigma < np.inf):
        return -np.inf, None, None
    # A trial point far out may overflow; its likelihood is then not
    # finite, not above ll, and the step is halved.
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return problem.derivatives(*cand)


def _ascent_step(g: NDArray, h: NDArray) -> NDArray:
    """Newton's step, damped until ``-h + λ I`` is positive definite."""
    neg = -h
    damping = 0.0
    scale = max(float(np.abs(neg).max()), 1e-12)
    for _ in range(60):
        try:
            chol = np.linalg.cholesky(neg + damping * np.eye(2))
        except np.linalg.LinAlgError:
            damping = max(2.0 * damping, 1e-8 * scale)
            continue
        return np.linalg.solve(chol.T, np.linalg.solve(chol, g))
    return g / scale
