"""Newton's method for the censored-normal (interval regression) MLE.

With Gaussian noise and an ordinary least-squares base model, the fixed point
of Algorithm 1 is the maximum-likelihood estimate of the interval regression
model ``Y = X β + σ e``: the observed-data log-likelihood

    ℓ(β, σ) = Σ w_i log P(lower_i < x_iᵀβ + σ e <= upper_i)

(plus ``log φ((y_i - x_iᵀβ) / σ) - log σ`` for exact responses).  In Olsen's
parameters ``δ = β / σ`` and ``θ = 1 / σ`` each term depends on ``θ c - x_iᵀδ``
through ``log Φ`` (or ``log φ``), whose log-concavity makes ``ℓ`` concave in
``(δ, θ)`` (Pratt, 1981; Burridge, 1981), so Newton's method with a
step-halving line search converges from any start, quadratically near the
optimum.

A pass evaluates ``ℓ``, its gradient and its Hessian with the same
``log_ndtr`` and Mills-ratio terms as the E-step of Algorithm 1 (one
``log_ndtr`` per finite bound), plus ``Dᵀ diag(h) D`` on the standardized
design ``D``: ``O(n p²)`` for ``p`` columns.  Half-lines (Case-I reports) need
one ``log_ndtr`` per row, and when every row is one, the gradient and
Hessian in ``(δ, θ)`` are one product and one symmetric Gram product of the
augmented design ``[D, -c]`` (``c`` the finite bounds), taken in blocks of
rows that stay in cache, with ``log Φ`` as ``log(ndtr)`` (``log_ndtr``
only in the far lower tail); the pass after a step of a few millionths of
``σ`` keeps the Hessian of the pass before and moves that pass's ``log Φ``
and Mills ratios by their Taylor terms (no ``ndtr`` or ``exp``), and the
imputations after the converged step are the last pass's terms moved to
first order (no further ``log_ndtr``).  Two-sided cells
are reflected so that the difference of normal CDFs is taken where it does
not cancel.  Cells narrower than ``1e-9`` of their location are treated as
exact values at their midpoint (as the E-step does); their likelihood
differs from the density's by a constant.

The estimator runs all this on the responses in the units of
:class:`ResponseFrame` (centred and scaled by a least-squares pilot fit,
an exact change for a linear model), where the problem is as well
conditioned for ``y + 1e9`` or ``1e-6 y`` as for ``y``; and a step is taken
for the last only when the quadratic model of the log-likelihood promises
no further rise, so that a point reported as the maximum is one.
"""

from __future__ import annotations

import contextlib
from typing import NamedTuple

import numpy as np
from numpy.typing import NDArray
from scipy.special import log_ndtr, ndtr
from threadpoolctl import ThreadpoolController

__all__ = [
    "CensoredNormal",
    "NewtonResult",
    "ResponseFrame",
    "newton_interval_mle",
    "one_blas_thread",
]

_LOG_SQRT_2PI = 0.5 * np.log(2.0 * np.pi)
# A step whose largest change of a fitted value is below this fraction of
# sigma is taken without a further pass: Newton's error after it is of the
# order of its square (measured: a step of 2.7e-4 sigma leaves 1.3e-7, one of
# 1.3e-7 leaves 4e-14), about 1e-12 sigma here.
_STEP_TOL = 1e-6
_MAX_PASSES = 50
# At the pass before a converged step, the quadratic model of the
# log-likelihood may promise at most this rise per unit weight: half the
# Newton decrement g·step (about (step_tol)**2 per row after a step below
# step_tol sigma, 1e-12) plus the rise along the directions the step leaves
# out as flat (_newton_step: about zero for a rank-deficient design).  A
# nearly flat but sloped direction (an ill-conditioned problem) or a
# Hessian far off (rows in the far tails, where r (s + r) cancels) leave
# far more: the point is then not the maximum.
_GAIN_TOL = 1e-8
_MAX_HALVINGS = 40
# The pass after a step that changes no fitted value, and not sigma, by
# more than this fraction of sigma keeps the Hessian of the pass before
# (half-lines): the Hessian has moved by a few times that fraction, so the
# next Newton step (itself of the order of the square of this one) is off
# by as much of itself, about 1e-16 sigma (measured: after a step of 4e-5
# sigma, the next one was off by 2e-13 sigma).
_LAG_HESSIAN_STEP = 3e-6
# Rows per block of a pass over half-lines (its temporaries, about 150
# bytes per row, stay in the processor's cache).
_BLOCK_ROWS = 16384
# impute_near: the largest change of a row's standardized bound for which
# the first-order terms are used (the second-order ones are below 1e-16).
_TAYLOR_MAX_STEP = 1e-8
# evaluate_near: the same for a pass that keeps the Hessian (the terms of r
# to third order; the fourth-order ones are below 0.26 / 24 * 2e-4**4).
_TAYLOR_PASS_MAX_STEP = 2e-4


_CONTROLLER: list = []


def one_blas_thread() -> contextlib.AbstractContextManager:
    """A context limiting the BLAS libraries to one thread.

    The products of a pass have ``p + 2`` rows: BLAS threads save little
    there, and their waits count as CPU time (the more so on a loaded
    machine).  The libraries are found once per process (a search costs a
    few milliseconds, more than a pass on a thousand rows).
    """
    if not _CONTROLLER:
        _CONTROLLER.append(ThreadpoolController())
    return _CONTROLLER[0].limit(limits=1, user_api="blas")


class NewtonResult(NamedTuple):
    """Solution of :func:`newton_interval_mle`."""

    coef: NDArray
    intercept: float
    sigma: float
    fitted: NDArray
    imputed: NDArray | None
    log_likelihood: float
    n_passes: int
    changes: list
    sigmas: list


class ResponseFrame:
    """Units of the response in which Newton's method is well conditioned.

    The bounds are seen as ``y' = (y - m(x)) / scale`` with the pilot
    ``m(x) = shift + (x - center)ᵀ slopes``: ``shift`` and ``center`` are
    the weighted means of the rows' finite bound centres (the midpoint of a
    two-sided row, the finite end of a half-line) and of the features
    (zero without an intercept), ``slopes`` the weighted least-squares
    slopes of those centres on the features, and ``scale`` the root mean
    square of what the pilot leaves.  In raw units a response far from zero
    on the scale of its noise (``y + 1e6``) makes the intercept column and
    the bounds column of the standardized problem nearly collinear
    (condition number about ``(offset / sigma)**2``), so that the
    direction of ``σ`` falls below the rank cut of the Newton step and the
    iteration stops at a point that is not the maximum; in these units the
    problem is the same for ``y``, ``y + c`` and ``c y``.

    The change is exact for a linear model: ``y' = x'ᵀβ' + σ' e`` is
    ``y = x'ᵀ(slopes + scale β') + (shift - centerᵀ slopes + scale α') +
    scale σ' e`` (``α'`` the intercept), so with or without an intercept the
    MLE in either units maps to the other; without an intercept ``shift``
    and ``center`` are zero (a constant shift would not be exact there).

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Design (finite).
    lower, upper : ndarray of shape (n_samples,)
        Response bounds (``±inf`` for open ends).
    weights : ndarray of shape (n_samples,)
        Non-negative row weights.
    fit_intercept : bool
        Whether the model has an intercept.

    Attributes
    ----------
    shift, scale : float
        The location and unit of the new response.
    center, slopes : ndarray of shape (n_features,)
        The pilot's feature means and slopes.
    pilot : ndarray of shape (n_samples,)
        ``(x_i - center)ᵀ slopes`` of each row.
    """

    def __init__(
        self,
        X: NDArray,
        lower: NDArray,
        upper: NDArray,
        weights: NDArray,
        fit_intercept: bool,
    ) -> None:
        X = np.asarray(X, dtype=float)
        n, p = X.shape
        lower = np.asarray(lower, dtype=float)
        upper = np.asarray(upper, dtype=float)
        fin_l, fin_u = np.isfinite(lower), np.isfinite(upper)
        seen = fin_l | fin_u
        # each row's centre: its midpoint, or its finite end (0 if none)
        with np.errstate(invalid="ignore"):
            mid = 0.5 * lower + 0.5 * upper
        end = np.where(fin_l, lower, np.where(fin_u, upper, 0.0))
        centre = np.where(fin_l & fin_u, mid, end)
        w = np.where(seen, np.asarray(weights, dtype=float), 0.0)
        total = float(w.sum())
        self.fit_intercept = fit_intercept
        self.shift, self.scale = 0.0, 1.0
        self.center, self.slopes = np.zeros(p), np.zeros(p)
        self.pilot = np.zeros(n)
        if not (total > 0 and np.isfinite(total)):
            return
        w = w / total
        if fit_intercept:
            self.shift = float(w @ centre)
            self.center = w @ X
        # (the finite centres about the shift: exact for close numbers)
        resid = centre - self.shift
        # The weighted Gram matrix of the centred features and its product
        # with the centres, in blocks of rows (no copy of the design).
        gram, rhs = np.zeros((p, p)), np.zeros(p)
        for start in range(0, n, _BLOCK_ROWS):
            rows = slice(start, min(start + _BLOCK_ROWS, n))
            Xb = X[rows] - self.center
            wXb = Xb * w[rows, None]
            gram += wXb.T @ Xb
            rhs += wXb.T @ resid[rows]
        if p and np.all(np.isfinite(gram)) and np.all(np.isfinite(rhs)):
            slopes, _ = _newton_step(rhs, -gram)
            if np.all(np.isfinite(slopes)):
                self.slopes = slopes
                for start in range(0, n, _BLOCK_ROWS):
                    rows = slice(start, min(start + _BLOCK_ROWS, n))
                    self.pilot[rows] = (X[rows] - self.center) @ slopes
        with np.errstate(over="ignore", invalid="ignore"):
            for left in (resid - self.pilot, resid):
                scale = float(np.sqrt(w @ (left * left)))
                if scale > 0 and np.isfinite(scale):
                    self.scale = scale
                    break

    def bounds(self, lower: NDArray, upper: NDArray) -> tuple[NDArray, NDArray]:
        """The bounds in the new units.

        Parameters
        ----------
        lower, upper : ndarray of shape (n_samples,)
            Bounds of the rows the frame was made from (``±inf`` stay).

        Returns
        -------
        lower, upper : ndarray of shape (n_samples,)
        """
        lower = (
            (np.asarray(lower, dtype=float) - self.shift) - self.pilot
        ) / self.scale
        upper = (
            (np.asarray(upper, dtype=float) - self.shift) - self.pilot
        ) / self.scale
        return lower, upper

    def constant_start(
        self, model: CensoredNormal, loc: float, sigma: float
    ) -> NDArray:
        """``model``'s parameters of the start ``(loc, sigma)``.

        With an intercept, every fitted value at ``loc``; without one (no
        constant fit), the pilot: the fit at zero that
        :meth:`CensoredNormal.start` takes may lie a great many ``sigma``
        from every bound (a response near ``1e9``), where the tail terms of
        the likelihood lose their digits.

        Parameters
        ----------
        model : CensoredNormal
            A model on the bounds in the new units (of these rows or of a
            subsample of them).
        loc, sigma : float
            Location and noise scale of the start, in the units of the data.

        Returns
        -------
        ndarray
            The parameters of ``model`` (see :meth:`CensoredNormal.params_for`).
        """
        if not model.fit_intercept:
            zeros = np.zeros(self.slopes.size)
            return model.params_for(zeros, 0.0, sigma / self.scale)
        slopes = -self.slopes / self.scale
        intercept = ((loc - self.shift) + self.center @ self.slopes) / self.scale
        return model.params_for(slopes, intercept, sigma / self.scale)

    def restore(self, result: NewtonResult, exact_weight: float) -> NewtonResult:
        """A solution found in the new units, in the units of the data.

        Parameters
        ----------
        result : NewtonResult
            :func:`newton_interval_mle`'s solution on the bounds in the new
            units, of the rows the frame was made from.
        exact_weight : float
            The weight of the exact responses, whose log densities change
            by ``-log(scale)``.

        Returns
        -------
        NewtonResult
            Coefficients, intercept, noise scale, fitted values,
            imputations, log-likelihood and the steps' changes and scales
            in the units of the data.
        """
        scale = self.scale
        coef = self.slopes + scale * np.asarray(result.coef, dtype=float)
        intercept = 0.0
        if self.fit_intercept:
            intercept = self.shift + (
                scale * result.intercept - float(self.center @ self.slopes)
            )
        ll = result.log_likelihood - exact_weight * np.log(scale)
        imputed = result.imputed
        if imputed is not None:
            imputed = self.shift + (self.pilot + scale * imputed)
        return NewtonResult(
            coef=coef,
            intercept=float(intercept),
            sigma=scale * result.sigma,
            fitted=self.shift + (self.pilot + scale * result.fitted),
            imputed=imputed,
            log_likelihood=float(ll),
            n_passes=result.n_passes,
            changes=[scale * c for c in result.changes],
            sigmas=[scale * s for s in result.sigmas],
        )


class _Pass(NamedTuple):
    ll: float
    grad: NDArray
    hess: NDArray
    eta: NDArray
    # Half-lines only: log Φ(s) and the Mills ratio r of each row (the
    # terms :meth:`CensoredNormal.impute_near` and ``evaluate_near`` extend
    # to a nearby point).
    half_terms: tuple | None = None


class CensoredNormal:
    """Log-likelihood, gradient and Hessian of interval regression in ``(δ, θ)``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Design (finite).
    lower, upper : ndarray of shape (n_samples,)
        Response bounds (``lower == upper`` for exact values).
    weights : ndarray of shape (n_samples,)
        Non-negative row weights.
    fit_intercept : bool
        Whether the model has an intercept.
    sigma : float or None
        Known noise scale (``θ`` fixed at ``1 / sigma``), or ``None`` to
        estimate it.
    """

    def __init__(
        self,
        X: NDArray,
        lower: NDArray,
        upper: NDArray,
        weights: NDArray,
        fit_intercept: bool,
        sigma: float | None = None,
    ) -> None:
        X = np.asarray(X, dtype=float)
        n, p = X.shape
        w = np.asarray(weights, dtype=float)
        self.n = n
        self.w = w
        self.fit_intercept = fit_intercept
        total = float(w.sum())
        self._mean = (w @ X) / total if fit_intercept else np.zeros(p)
        # The standardized design, stored by column (q x n, C order): its
        # products with vectors are twice as fast as a row-major n x q.
        q = p + fit_intercept
        lower = np.asarray(lower, dtype=float)
        upper = np.asarray(upper, dtype=float)
        fin_l, fin_u = np.isfinite(lower), np.isfinite(upper)
        half = fin_l ^ fin_u
        all_half = bool(half.all())
        # One more row for the augmented design of half-lines (below).
        aug = np.empty((q + all_half, n))
        Dt = aug[:q]
        cols = Dt[1:] if fit_intercept else Dt
        np.subtract(X.T, self._mean[:, None], out=cols)
        # (one dot product per column: a fraction of einsum's time)
        unit = bool(np.all(w == 1.0))
        scale = np.array([col @ (col if unit else col * w) for col in cols])
        scale = np.sqrt(scale / total)
        scale[~(scale > 0)] = 1.0
        cols /= scale[:, None]
        if fit_intercept:
            Dt[0] = 1.0
        self._scale = scale
        self.Dt = Dt
        self.known_theta = None if sigma is None else 1.0 / float(sigma)

        self._groups = []
        self._exact_w = 0.0
        if all_half:
            # (the general grouping below, without its index arrays)
            c = np.where(fin_u, upper, lower)
            sign = fin_u * 2.0 - 1.0
            self._groups.append(("half", None, (c, sign)))
            exact = cell = half = np.zeros(0, dtype=bool)
        else:
            both = fin_l & fin_u
            with np.errstate(invalid="ignore"):
                narrow = both & (
                    (upper - lower) <= 1e-9 * (1.0 + np.abs(lower) + np.abs(upper))
                )
            exact = narrow
            cell = both & ~exact
        if exact.any():
            idx = np.flatnonzero(exact)
            y = 0.5 * (lower[idx] + upper[idx])
            self._groups.append(("exact", idx, (y,)))
            self._exact_w = float(w[idx].sum())
        if half.any():
            idx = np.flatnonzero(half)
            up = fin_u[idx]
            c = np.where(up, upper[idx], lower[idx])
            sign = np.where(up, 1.0, -1.0)
            self._groups.append(("half", idx, (c, sign)))
        if cell.any():
            idx = np.flatnonzero(cell)
            self._groups.append(("cell", idx, (lower[idx], upper[idx])))
        if (
            len(self._groups) == 1
            and self._groups[0][1] is not None
            and self._groups[0][1].size == n
        ):
            kind, _, data = self._groups[0]
            self._groups = [(kind, None, data)]
        self._unit = unit
        # Only half-lines (Case-I reports): each row's terms in (δ, θ) are
        # those in η times the row (d_i, -c_i), so the gradient and the
        # Hessian are one product and one Gram matrix of the augmented
        # design [D, -c] (see _evaluate_half_lines).
        self._aug = None
        if all_half:
            np.negative(self._groups[0][2][0], out=aug[q])
            self._aug = aug
            self._neg_sign = -self._groups[0][2][1]

    @property
    def n_params(self) -> int:
        """Number of free parameters (``δ`` and, unless known, ``θ``)."""
        return self.Dt.shape[0] + (self.known_theta is None)

    def start(self, loc: float, sigma: float) -> NDArray:
        """Parameters of the constant fit ``loc`` with scale ``sigma``."""
        delta = np.zeros(self.Dt.shape[0])
        if self.fit_intercept:
            delta[0] = loc / sigma
        if self.known_theta is not None:
            return delta
        return np.append(delta, 1.0 / sigma)

    def params_for(self, coef: NDArray, intercept: float, sigma: float) -> NDArray:
        """Parameters of the linear fit ``X coef + intercept`` with scale ``sigma``.

        The inverse of :meth:`coefficients`: carries a solution found on
        other rows (a subsample) over to this model's standardized design.
        """
        theta = 1.0 / sigma if self.known_theta is None else self.known_theta
        slopes = np.asarray(coef, dtype=float) * self._scale
        if self.fit_intercept:
            beta = np.append(float(intercept) + self._mean @ coef, slopes)
        else:
            beta = slopes
        delta = beta * theta
        if self.known_theta is not None:
            return delta
        return np.append(delta, theta)

    def split(self, params: NDArray) -> tuple[NDArray, float]:
        """``(δ, θ)`` from the parameter vector."""
        if self.known_theta is not None:
            return params, self.known_theta
        return params[:-1], float(params[-1])

    def fitted(self, params: NDArray, eta: NDArray | None = None) -> NDArray:
        """Fitted values ``x_iᵀβ = x_iᵀδ / θ``."""
        delta, theta = self.split(params)
        if eta is None:
            eta = delta @ self.Dt
        return eta / theta

    def coefficients(self, params: NDArray) -> tuple[NDArray, float, float]:
        """``β`` on the original features, the intercept and ``σ``."""
        delta, theta = self.split(params)
        beta = delta / theta
        slopes = beta[1:] if self.fit_intercept else beta
        coef = slopes / self._scale
        intercept = float(beta[0] - self._mean @ coef) if self.fit_intercept else 0.0
        return coef, intercept, 1.0 / theta

    def linear_predictor(self, params: NDArray) -> NDArray:
        """``η = D δ`` on the standardized design."""
        return self.split(params)[0] @ self.Dt

    def impute(self, params: NDArray) -> tuple[NDArray, float]:
        """E-step imputations ``E[Y_i | response_i]`` and the log-likelihood.

        The log-likelihood is ``nan`` when some cells are narrow (treated
        as exact values, whose density differs from the cell probability).
        """
        delta, theta = self.split(params)
        eta = delta @ self.Dt
        sigma = 1.0 / theta
        y = eta * sigma
        ll = 0.0
        for kind, idx, data in self._groups:
            e = eta if idx is None else eta[idx]
            wk = self.w if idx is None else self.w[idx]
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                if kind == "exact":
                    out = data[0]
                    ll = np.nan
                elif kind == "half":
                    c, sign = data
                    s = sign * (theta * c - e)
                    lp = log_ndtr(s)
                    r = np.exp(-0.5 * s * s - _LOG_SQRT_2PI - lp)
                    out = sigma * (e - sign * r)
                    ll += float(wk @ lp)
                else:
                    lo, hi = data
                    lp, ra, rb = _cell_terms(theta * lo - e, theta * hi - e)
                    out = sigma * (e + ra - rb)
                    ll += float(wk @ lp)
            if idx is None:
                y = out
            else:
                y[idx] = out
        return y, ll

    def evaluate(
        self, params: NDArray, eta: NDArray | None = None, hess: NDArray | None = None
    ) -> _Pass:
        """Log-likelihood, gradient and Hessian at ``params``.

        A ``hess`` passed in (of a point close by) is returned as the
        Hessian instead of being computed, when every row is a half-line.
        """
        delta, theta = self.split(params)
        if eta is None:
            eta = delta @ self.Dt
        if self._aug is not None:
            return self._evaluate_half_lines(theta, eta, hess)
        n = self.n
        g_eta = np.empty(n)
        h_eta = np.empty(n)
        h_cross = np.empty(n)
        ll = 0.0
        g_theta = 0.0
        h_theta = 0.0
        w = self.w
        for kind, idx, data in self._groups:
            e = eta if idx is None else eta[idx]
            wk = w if idx is None else w[idx]
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                if kind == "exact":
                    (y,) = data
                    t = theta * y - e
                    lp = -0.5 * t * t - _LOG_SQRT_2PI
                    ge, gt = t, -t * y
                    he, hc, ht = np.full(t.shape, -1.0), y, -y * y
                elif kind == "half":
                    c, sign = data
                    s = sign * (theta * c - e)
                    lp = log_ndtr(s)
                    r = np.exp(-0.5 * s * s - _LOG_SQRT_2PI - lp)
                    hs = -r * (s + r)
                    ge, gt = -sign * r, sign * c * r
                    he, hc, ht = hs, -c * hs, c * c * hs
                else:
                    lo, hi = data
                    a, b = theta * lo - e, theta * hi - e
                    lp, ra, rb = _cell_terms(a, b)
                    laa = a * ra - ra * ra
                    lbb = -b * rb - rb * rb
                    lab = ra * rb
                    ge = ra - rb
                    gt = -lo * ra + hi * rb
                    he = laa + 2.0 * lab + lbb
                    hc = -(lo * laa + (lo + hi) * lab + hi * lbb)
                    ht = lo * lo * laa + 2.0 * lo * hi * lab + hi * hi * lbb
            ll += float(wk @ lp)
            if self.known_theta is None:
                g_theta += float(wk @ gt)
                h_theta += float(wk @ ht)
            if idx is None:
                g_eta, h_eta, h_cross = ge, he, hc
            else:
                g_eta[idx], h_eta[idx], h_cross[idx] = ge, he, hc
        if self._exact_w:
            ll += self._exact_w * np.log(theta)
        Dt = self.Dt
        grad_delta = Dt @ (w * g_eta)
        hess_delta = (Dt * (w * h_eta)) @ Dt.T
        if self.known_theta is not None:
            return _Pass(ll, grad_delta, hess_delta, eta)
        if self._exact_w:
            g_theta += self._exact_w / theta
            h_theta -= self._exact_w / theta**2
        cross = Dt @ (w * h_cross)
        q = Dt.shape[0]
        hess = np.empty((q + 1, q + 1))
        hess[:q, :q] = hess_delta
        hess[:q, q] = hess[q, :q] = cross
        hess[q, q] = h_theta
        return _Pass(ll, np.append(grad_delta, g_theta), hess, eta)

    def _evaluate_half_lines(
        self, theta: float, eta: NDArray, hess: NDArray | None = None
    ) -> _Pass:
        # Every row a half-line: with s = sign (θ c - η) and the Mills ratio
        # r = φ(s) / Φ(s), the row's gradient is -sign r (d, -c) and its
        # Hessian -r (s + r) (d, -c)(d, -c)ᵀ in (δ, θ).  One log_ndtr and a
        # handful of in-place operations per row, then one product and one
        # symmetric Gram product (A diag(r (s + r)) Aᵀ with A = [D, -c]),
        # its upper triangle as one matrix-vector product per row of A: with
        # a few rows and many columns, a third faster than BLAS's rank-k
        # update.  The rows are taken in blocks that stay in the processor's
        # cache through all these steps (one pass over memory instead of one
        # per step).  A Hessian given (from a point close by) skips the Gram
        # products.
        c, sign = self._groups[0][2]
        n = self.n
        E = self._aug if self.known_theta is None else self.Dt
        lp = np.empty(n)
        r = np.empty(n)
        grad = np.zeros(E.shape[0])
        total = None
        for start in range(0, n, _BLOCK_ROWS):
            rows = slice(start, min(start + _BLOCK_ROWS, n))
            s = np.multiply(c[rows], theta)
            s -= eta[rows]
            s *= sign[rows]
            lp_b, r_b = lp[rows], r[rows]
            with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
                _log_ndtr_into(s, lp_b)
                np.square(s, out=r_b)
                r_b *= -0.5
                r_b -= _LOG_SQRT_2PI
                r_b -= lp_b
                np.exp(r_b, out=r_b)
            g = np.multiply(r_b, self._neg_sign[rows])
            if not self._unit:
                g *= self.w[rows]
            E_b = E[:, rows]
            grad += E_b @ g
            if hess is None:
                curv = np.add(s, r_b, out=s)
                curv *= r_b
                # r (s + r) > 0; rounding in the far tail must not make it
                # negative.
                np.maximum(curv, 0.0, out=curv)
                if not self._unit:
                    curv *= self.w[rows]
                B = np.multiply(E_b, curv, out=self._gram_buffer(E_b.shape))
                if total is None:
                    total = np.zeros((E.shape[0], E.shape[0]))
                # the upper triangle, one matrix-vector product per row
                for i in range(E.shape[0]):
                    total[i, i:] += E_b[i:] @ B[i]
        ll = float(lp.sum()) if self._unit else float(self.w @ lp)
        if hess is None:
            hess = np.triu(total, 1)
            hess += total.T
            np.negative(hess, out=hess)
        return _Pass(ll, grad, hess, eta, (lp, r))

    def _gram_buffer(self, shape: tuple) -> NDArray:
        # The scaled block of the Gram product, allocated once per model.
        buffer = getattr(self, "_buffer", None)
        if buffer is None or buffer.shape[0] != shape[0] or buffer.shape[1] < shape[1]:
            buffer = self._buffer = np.empty((shape[0], max(shape[1], _BLOCK_ROWS)))
        return buffer[:, : shape[1]]

    def _moved_bounds(
        self,
        rows: slice,
        theta: float,
        near: _Pass,
        near_theta: float,
        d_eta: NDArray,
        max_step: float,
    ) -> tuple[NDArray, NDArray, NDArray] | None:
        """Signs, ``Δs`` and ``s`` of half-line rows since ``near``, or ``None``.

        ``s`` is each row's signed standardized bound at ``near`` and ``Δs``
        its change; a Taylor extension of ``near``'s terms holds only while
        every ``|Δs|`` is at most ``max_step``.
        """
        c, sign = self._groups[0][2]
        sign_b = sign[rows]
        ds = np.multiply(c[rows], theta - near_theta)
        ds -= d_eta[rows]
        ds *= sign_b
        if not np.max(np.abs(ds), initial=0.0) <= max_step:
            return None
        s = np.multiply(c[rows], near_theta)
        s -= near.eta[rows]
        s *= sign_b
        return sign_b, ds, s

    def evaluate_near(
        self,
        params: NDArray,
        eta: NDArray,
        near: _Pass,
        near_theta: float,
        d_eta: NDArray,
        hess: NDArray,
    ) -> _Pass | None:
        """:meth:`evaluate` at ``params`` from the terms of a pass close by.

        Half-lines only, keeping the Hessian ``hess`` of that pass (the
        step from it was tiny): each row's ``s`` moves by ``Δs``, and the
        Mills ratio ``r`` and ``log Φ`` move by their Taylor terms up to
        ``Δs³`` and ``Δs⁴``: ``(log Φ)' = r``, ``r' = -r q`` with ``q = s +
        r``, ``r'' = r P`` with ``P = q (s + 2 r) - 1``, and ``r''' = r' P +
        r ((1 + r') (s + 2 r) + q (1 + 2 r'))``.  The fourth derivative of
        ``r`` stays below 0.26 in absolute value on the real line, so with
        every ``|Δs|`` at most ``_TAYLOR_PASS_MAX_STEP`` the terms left out
        are below ``2e-17``: the log-likelihood and the gradient equal
        :meth:`evaluate`'s to rounding, without its ``log_ndtr`` and
        ``exp``.  None when the pass has no such terms, a row moved
        further, or the terms are not finite.
        """
        if near.half_terms is None:
            return None
        lp0, r0 = near.half_terms
        _, theta = self.split(params)
        n = self.n
        E = self._aug if self.known_theta is None else self.Dt
        lp = np.empty(n)
        r = np.empty(n)
        grad = np.zeros(E.shape[0])
        for start in range(0, n, _BLOCK_ROWS):
            rows = slice(start, min(start + _BLOCK_ROWS, n))
            moved_rows = self._moved_bounds(
                rows, theta, near, near_theta, d_eta, _TAYLOR_PASS_MAX_STEP
            )
            if moved_rows is None:
                return None
            _, ds, s = moved_rows
            r_b = r0[rows]
            with np.errstate(over="ignore", invalid="ignore"):
                q = s + r_b
                s2r = q + r_b
                r1 = -r_b * q
                P = q * s2r
                P -= 1.0
                r3 = (1.0 + r1) * s2r
                r3 += q * (1.0 + 2.0 * r1)
                r3 *= r_b
                r3 += r1 * P
                r2 = np.multiply(r_b, P, out=P)
                # r + Δs (r' + Δs (r'' / 2 + Δs r''' / 6))
                r_new = np.multiply(r3, ds * (1.0 / 6.0), out=r[rows])
                r_new += 0.5 * r2
                r_new *= ds
                r_new += r1
                r_new *= ds
                r_new += r_b
                # log Φ + Δs (r + Δs (r' / 2 + Δs (r'' / 6 + Δs r''' / 24)))
                lp_new = np.multiply(r3, ds * (1.0 / 24.0), out=lp[rows])
                lp_new += r2 * (1.0 / 6.0)
                lp_new *= ds
                lp_new += 0.5 * r1
                lp_new *= ds
                lp_new += r_b
                lp_new *= ds
                lp_new += lp0[rows]
            g = np.multiply(r_new, self._neg_sign[rows])
            if not self._unit:
                g *= self.w[rows]
            grad += E[:, rows] @ g
        ll = float(lp.sum()) if self._unit else float(self.w @ lp)
        if not (np.isfinite(ll) and np.all(np.isfinite(grad))):
            # (bounds so far out that s² overflows: a full pass decides)
            return None
        return _Pass(ll, grad, hess, eta, (lp, r))

    def impute_near(
        self,
        params: NDArray,
        eta: NDArray,
        near: _Pass,
        near_theta: float,
        d_eta: NDArray | None = None,
    ) -> tuple[NDArray, float] | None:
        """:meth:`impute` at ``params`` from the terms of a pass close by.

        Half-lines only: each row's ``s`` moves by ``Δs`` from the pass at
        ``θ = near_theta`` (linear predictor ``near.eta``), and ``log Φ`` and
        the Mills ratio move by their first-order terms ``r Δs`` and ``-r (s
        + r) Δs``.  Used when every ``|Δs|`` is below ``1e-8`` (a converged
        Newton step), where the second-order terms are below ``1e-16``:
        the result equals :meth:`impute`'s to rounding, without its
        ``log_ndtr``.  None when the pass has no such terms or a row moved
        further.  ``d_eta`` is ``eta - near.eta`` when the caller has it.
        """
        if near.half_terms is None:
            return None
        lp, r = near.half_terms
        _, theta = self.split(params)
        if d_eta is None:
            d_eta = eta - near.eta
        n = self.n
        y = np.empty(n)
        ll = float(self.w @ lp)
        # in blocks that stay in cache, as the passes
        for start in range(0, n, _BLOCK_ROWS):
            rows = slice(start, min(start + _BLOCK_ROWS, n))
            moved_rows = self._moved_bounds(
                rows, theta, near, near_theta, d_eta, _TAYLOR_MAX_STEP
            )
            if moved_rows is None:
                return None
            sign_b, ds, s = moved_rows
            r_b = r[rows]
            with np.errstate(over="ignore", invalid="ignore"):
                ll += float(self.w[rows] @ (r_b * ds))
                # r at the new point: r - r (s + r) Δs
                s += r_b
                s *= r_b
                s *= ds
                moved = np.subtract(r_b, s, out=s)
            moved *= sign_b
            y_b = np.subtract(eta[rows], moved, out=y[rows])
            y_b *= 1.0 / theta
        return y, ll


def _log_ndtr_into(s: NDArray, out: NDArray) -> NDArray:
    # log Φ(s) as log(ndtr(s)): what log_ndtr computes on [-20, 6], at 80 %
    # of its time; above 6 (where log_ndtr takes -ndtr(-s)) the two differ
    # by the spacing of doubles near 1 (1.1e-16); below -20, log_ndtr's
    # asymptotic series, on those rows only.
    ndtr(s, out=out)
    np.log(out, out=out)
    if s.min(initial=0.0) < -20.0:
        tail = s < -20.0
        out[tail] = log_ndtr(s[tail])
    return out


def _cell_terms(a: NDArray, b: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    # log P(a < Z <= b), φ(a)/P and φ(b)/P for two-sided cells; cells with
    # a + b > 0 are reflected to (-b, -a) so that Φ(b) - Φ(a) is taken in
    # the lower tail, where it does not cancel (φ is even, P unchanged).
    flip = (a + b) > 0
    a2 = np.where(flip, -b, a)
    b2 = np.where(flip, -a, b)
    ln_a, ln_b = log_ndtr(a2), log_ndtr(b2)
    den = -np.expm1(ln_a - ln_b)
    lp = ln_b + np.log(den)
    pa = np.exp(-0.5 * a2 * a2 - _LOG_SQRT_2PI - ln_b) / den
    pb = np.exp(-0.5 * b2 * b2 - _LOG_SQRT_2PI - ln_b) / den
    return lp, np.where(flip, pb, pa), np.where(flip, pa, pb)


def _newton_step(grad: NDArray, hess: NDArray) -> tuple[NDArray, float]:
    """The Newton step and the gain left in the directions it does not take.

    Solves ``(-H) step = g`` on the eigenvectors of ``-H``; directions
    without curvature (a rank-deficient design) get no step, as in the
    minimum-norm least-squares solution.  ``-H`` is first scaled to a unit
    diagonal: the curvature in ``θ = 1 / σ`` grows as ``σ**-2``, so without
    it a y in large units would have its coefficient directions taken for
    flat ones (the rank cut is relative to the largest value).

    Returns
    -------
    step : ndarray
        The Newton step on the directions kept.
    flat_gain : float
        The rise of the quadratic model of the log-likelihood along the
        directions left out, ``Σ (vᵀ g)² / (2 λ_v)`` on the scaled problem
        (each ``λ_v`` at least the rounding level of the largest
        eigenvalue).  About zero for a rank-deficient design, whose flat
        directions have no gradient; large when a direction is only
        nearly flat (an ill-conditioned problem) and the gradient along it
        is not zero: the point is then not a maximum however small the
        step.
    """
    scale = np.sqrt(np.abs(np.diag(hess)))
    scale[~(scale > 0)] = 1.0
    vals, vecs = np.linalg.eigh(-hess / np.outer(scale, scale))
    top = vals.max(initial=0.0)
    keep = vals > top * hess.shape[0] * 1e-13
    g = vecs.T @ (grad / scale)
    step = (vecs[:, keep] @ (g[keep] / vals[keep])) / scale
    floor = max(top * hess.shape[0] * np.finfo(float).eps, np.finfo(float).tiny)
    left = ~keep
    flat_gain = float(np.sum(g[left] ** 2 / (2.0 * np.maximum(vals[left], floor))))
    return step, flat_gain


def newton_interval_mle(
    model: CensoredNormal,
    loc: float,
    sigma: float,
    max_passes: int = _MAX_PASSES,
    step_tol: float = _STEP_TOL,
    start: NDArray | None = None,
    impute: bool = True,
) -> NewtonResult | None:
    """Maximize the interval-regression log-likelihood by Newton's method.

    Parameters
    ----------
    model : CensoredNormal
        The data.
    loc, sigma : float
        Start: constant fitted values ``loc`` and noise scale ``sigma``
        (``sigma`` is ignored when the model's scale is known).
    max_passes : int
        Largest number of likelihood passes.
    step_tol : float
        Stop after a step that changes no fitted value by more than
        ``step_tol * sigma``, nor ``sigma`` by more than ``step_tol`` of
        itself.
    start : ndarray or None
        Starting parameters (from :meth:`CensoredNormal.params_for`, e.g.
        the solution on a subsample); ``None`` starts at the constant fit
        ``(loc, sigma)``.
    impute : bool, default=True
        Whether to compute the imputations and the log-likelihood at the
        solution (``imputed`` None and ``log_likelihood`` nan without).

    Returns
    -------
    NewtonResult or None
        ``None`` when the iteration fails: a non-finite likelihood,
        gradient or Hessian, a Newton direction along which no step-halving
        raises the likelihood, no convergence within ``max_passes``, or a
        small step after which the quadratic model of the log-likelihood
        still promises more than ``_GAIN_TOL`` per unit weight (a sloped
        direction left aside as flat, or a Hessian far off: the point is
        not the maximum; see :class:`ResponseFrame` for the conditioning
        of the response).
    """
    params = model.start(loc, sigma) if start is None else np.asarray(start, float)
    # The largest rise of the log-likelihood the quadratic model may still
    # promise after the converged step.
    gain_tol = _GAIN_TOL * float(model.w.sum())
    cur = model.evaluate(params)
    passes = 1
    changes: list = []
    sigmas: list = []
    n = model.n
    final_eta = None
    while True:
        if not (
            np.isfinite(cur.ll)
            and np.all(np.isfinite(cur.grad))
            and np.all(np.isfinite(cur.hess))
        ):
            return None
        step, flat_gain = _newton_step(cur.grad, cur.hess)
        if not np.all(np.isfinite(step)):
            return None
        delta, theta = model.split(params)
        full = params + step
        if model.known_theta is None and not full[-1] > 0:
            full = None
        change_full = None
        if full is not None:
            # the change of the linear predictor and of the fitted values,
            # (δ + Δδ) D / θ' - δ D / θ, in one product with the design
            new_delta, new_theta = model.split(full)
            v = new_delta / new_theta - delta / theta
            d_eta, moved = np.stack([step[: delta.size], v]) @ model.Dt
            eta_full = cur.eta + d_eta
            change_full = float(np.max(np.abs(moved, out=moved), initial=0.0))
            # (σ's own change: fitted values near zero barely show it)
            moved_theta = 0.0
            if model.known_theta is None:
                moved_theta = abs(float(step[-1])) / theta
            if change_full * theta <= step_tol and moved_theta <= step_tol:
                # Converged: the error left after this step is about the
                # square of its size, provided that the quadratic model
                # promises no more rise: along the step (the Newton
                # decrement, tiny after a tiny step unless the Hessian is
                # off) and along the directions the step left out as flat
                # (a slope there: an ill-conditioned problem whose point is
                # not the maximum, which must not be reported as one).
                left = 0.5 * float(cur.grad @ step) + flat_gain
                if not left <= gain_tol:
                    return None
                params = full
                changes.append(change_full)
                sigmas.append(1.0 / theta)
                final_eta = eta_full
                break
        else:
            d_eta = model.linear_predictor(step)
        # Rounding of a sum of n log-probabilities.
        slack = 1e-12 * (abs(cur.ll) + n)
        t = 1.0
        accepted = None
        # A tiny step: the Hessian of its start still holds at its end
        # (half-lines).
        small = change_full is not None and change_full * theta <= _LAG_HESSIAN_STEP
        if small and model.known_theta is None:
            small = abs(step[-1]) <= _LAG_HESSIAN_STEP * theta
        lagged = cur.hess if small else None
        for _ in range(_MAX_HALVINGS):
            trial = params + t * step
            if model.known_theta is None and not trial[-1] > 0:
                t *= 0.5
                continue
            if passes >= max_passes:
                return None
            # (t == 1: the linear predictor and change of the full step)
            eta = eta_full if t == 1.0 and full is not None else cur.eta + t * d_eta
            if lagged is None:
                ev = model.evaluate(trial, eta)
            else:
                ev = None
                if t == 1.0 and full is not None:
                    ev = model.evaluate_near(trial, eta, cur, theta, d_eta, lagged)
                if ev is None:
                    ev = model.evaluate(trial, eta, hess=lagged)
            passes += 1
            if np.isfinite(ev.ll) and ev.ll >= cur.ll - slack:
                accepted = (trial, ev)
                break
            t *= 0.5
        if accepted is None:
            return None
        new_params, new = accepted
        if t == 1.0 and change_full is not None:
            changes.append(change_full)
        else:
            f_new = new.eta / model.split(new_params)[1]
            changes.append(float(np.max(np.abs(f_new - cur.eta / theta))))
        sigmas.append(1.0 / theta)
        params, cur = new_params, new
    coef, intercept, sig = model.coefficients(params)
    # (theta: that of the last pass, from which the converged step was taken)
    if impute:
        near = model.impute_near(params, final_eta, cur, theta, d_eta)
        imputed, ll = model.impute(params) if near is None else near
    else:
        imputed, ll = None, np.nan
    return NewtonResult(
        coef=coef,
        intercept=intercept,
        sigma=sig,
        fitted=final_eta / model.split(params)[1],
        imputed=imputed,
        log_likelihood=ll,
        n_passes=passes,
        changes=changes,
        sigmas=sigmas,
    )
