"""The iteration of Algorithm 1 behind :class:`IterativeIntervalRegressor`.

One iteration (:func:`make_em_map`) is an E-step at the current fitted
values and noise scale (conditional means of the interval responses, and
for ``sigma="auto"`` their conditional second moments), a refit of the base
regressor on the imputed responses and the M-step of the noise scale.
:func:`squarem` and :func:`squarem_cached` accelerate the sequence of
iterations (SQUAREM, Varadhan and Roland, 2008) and keep an extrapolation
only when the observed-data log-likelihood (:func:`log_likelihood`) does not
drop; :func:`plain_em` runs the plain iteration.  :func:`impute` and
:func:`update_sigma` are the E-step and scale update on their own (used by
the boosted start).  The estimator itself, its validation and the choice of
solver live in :mod:`._regression`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np
from numpy.typing import NDArray

from ..utils._redact import raw_values_withheld
from ._truncated import (
    interval_log_likelihood,
    truncated_mean,
    truncated_moments,
    truncated_second_moment,
)

__all__ = [
    "LOGISTIC_VAR",
    "EMState",
    "impute",
    "log_likelihood",
    "make_em_map",
    "plain_em",
    "squarem",
    "squarem_cached",
    "update_sigma",
]

LOGISTIC_VAR = np.pi**2 / 3.0


class EMState(NamedTuple):
    """Fitted values, noise scale, the regressor behind them, last change."""

    f: NDArray
    sigma: float
    estimator: Any
    change: float
    # Observed-data log-likelihood at the (f, sigma) this state was computed
    # from (a by-product of its E-step).
    ll_from: float = np.nan


EMMap = Callable[[NDArray, float], EMState]


def _pack(state: EMState, with_sigma: bool) -> NDArray:
    if with_sigma:
        return np.append(state.f, np.log(state.sigma))
    return state.f


def _unpack(theta: NDArray, like: EMState, with_sigma: bool) -> EMState:
    if with_sigma:
        return EMState(theta[:-1], float(np.exp(theta[-1])), None, like.change)
    return EMState(theta, like.sigma, None, like.change)


def _extrapolation(
    state: EMState, s1: EMState, s2: EMState, with_sigma: bool
) -> tuple[NDArray, NDArray, NDArray, float]:
    """SQUAREM's ``theta0``, ``r``, ``v`` and first step length ``alpha``.

    ``alpha = min(-1, -|r| / |v|)`` (scheme S3), or ``-1`` (the plain double
    step, no extrapolation) when ``v`` vanishes.  The norms measure the
    fitted values in units of the cycle's starting ``sigma``, as the log
    scale is unitless: the step then does not depend on the unit of y.
    """
    theta0 = _pack(state, with_sigma)
    r = _pack(s1, with_sigma) - theta0
    v = _pack(s2, with_sigma) - _pack(s1, with_sigma) - r
    unit = np.full(r.size, 1.0 / state.sigma)
    if with_sigma:
        unit[-1] = 1.0
    nv = float(np.linalg.norm(v * unit))
    alpha = min(-1.0, -float(np.linalg.norm(r * unit)) / nv) if nv > 0 else -1.0
    return theta0, r, v, alpha


def impute(f: NDArray, Z: NDArray, noise: str, sigma: float) -> NDArray:
    """Conditional means of the responses ``Z`` given fitted values ``f``.

    Parameters
    ----------
    f : ndarray of shape (n,)
        Fitted values.
    Z : ndarray of shape (n, 2)
        Interval responses (equal bounds for exact values, kept as they are).
    noise : {"gaussian", "logistic"}
        Noise family.
    sigma : float
        Noise scale.

    Returns
    -------
    ndarray of shape (n,)
        ``f + E[e | lower - f < e <= upper - f]``, or the exact value.
    """
    exact = Z[:, 0] == Z[:, 1]
    with np.errstate(invalid="ignore"):
        m = truncated_mean(Z[:, 0] - f, Z[:, 1] - f, noise, sigma)
    return np.where(exact, Z[:, 0], f + m)


def update_sigma(f: NDArray, Z: NDArray, noise: str, sigma: float, w: NDArray) -> float:
    """EM update of the noise scale at fitted values ``f`` and scale ``sigma``.

    Parameters
    ----------
    f : ndarray of shape (n,)
        Fitted values.
    Z : ndarray of shape (n, 2)
        Interval responses.
    noise : {"gaussian", "logistic"}
        Noise family (the logistic scale matches the variance).
    sigma : float
        Current noise scale.
    w : ndarray of shape (n,)
        Sample weights.

    Returns
    -------
    float
        ``sqrt`` of the weighted mean conditional second moment of the
        residuals (divided by ``pi**2 / 3`` for the logistic).
    """
    exact = Z[:, 0] == Z[:, 1]
    second = np.empty(Z.shape[0])
    second[exact] = (Z[exact, 0] - f[exact]) ** 2
    iv = ~exact
    second[iv] = truncated_second_moment(
        Z[iv, 0] - f[iv], Z[iv, 1] - f[iv], noise, sigma
    )
    var = float(np.average(second, weights=w))
    if noise == "logistic":
        return float(np.sqrt(var / LOGISTIC_VAR))
    return float(np.sqrt(var))


def log_likelihood(state: EMState, Z: NDArray, noise: str, w: NDArray) -> float:
    """Observed-data log-likelihood of ``Z`` at ``state`` (``-inf`` if not finite).

    Parameters
    ----------
    state : EMState
        Fitted values and noise scale.
    Z : ndarray of shape (n, 2)
        Interval responses.
    noise : {"gaussian", "logistic"}
        Noise family.
    w : ndarray of shape (n,)
        Sample weights.

    Returns
    -------
    float
    """
    with np.errstate(divide="ignore", invalid="ignore"):
        ll = interval_log_likelihood(Z[:, 0], Z[:, 1], state.f, noise, state.sigma, w)
    return ll if np.isfinite(ll) else -np.inf


def make_em_map(
    X: Any,
    Z: NDArray,
    w: NDArray,
    noise: str,
    auto_sigma: bool,
    fitter: Callable,
    fit_params: dict,
    history: list[float],
    sigma_history: list[float],
    verbose: int | bool = 0,
) -> EMMap:
    """One iteration of Algorithm 1 as a function of ``(f, sigma)``.

    Parameters
    ----------
    X : array-like of shape (n, p)
        Features, passed to ``fitter`` unchanged.
    Z : ndarray of shape (n, 2)
        Interval responses.
    w : ndarray of shape (n,)
        Sample weights (for the scale update).
    noise : {"gaussian", "logistic"}
        Noise family.
    auto_sigma : bool
        Whether the noise scale is re-estimated (``sigma="auto"``).
    fitter : callable
        ``fitter(X, y, **fit_params)`` returns a fitted regressor and its
        fitted values; the values an error of it quotes are withheld.
    fit_params : dict
        Passed to ``fitter``.
    history, sigma_history : list of float
        Each iteration appends the largest change of the fitted values and
        the noise scale it used.
    verbose : int or bool, default=0
        Print each iteration's change when set.

    Returns
    -------
    callable
        ``em_map(f, sigma)`` returning the next :class:`EMState`, whose
        ``change`` is relative to ``sigma`` and whose ``ll_from`` is the
        log-likelihood at ``(f, sigma)``.
    """
    n = Z.shape[0]
    exact = Z[:, 0] == Z[:, 1]
    interval = ~exact
    exact_y = Z[exact, 0]
    w_exact = w[exact]
    # Without exact responses (Case I and II reports) no row is selected
    # and the E-step works on whole contiguous arrays.
    all_interval = not exact.any()

    def _part(a):
        return a if all_interval else a[interval]

    lower_iv = np.ascontiguousarray(_part(Z[:, 0]))
    upper_iv = np.ascontiguousarray(_part(Z[:, 1]))
    w_iv = _part(w)

    def _exact_log_density(t, sigma):
        if not t.size:
            return 0.0
        t = t / sigma
        if noise == "gaussian":
            dens = -0.5 * t * t - 0.5 * np.log(2.0 * np.pi)
        else:
            dens = -t - 2.0 * np.logaddexp(0.0, -t)
        return float(w_exact @ (dens - np.log(sigma)))

    def em_map(f: NDArray, sigma: float) -> EMState:
        # One iteration of Algorithm 1: impute at (f, sigma), refit, and
        # (for sigma="auto") update sigma.  One E-step at (f, sigma) gives
        # both truncated moments (one log_ndtr pair per bound): the
        # imputations and, for the M-step of sigma,
        # E[(Y - f_new)^2] = (f - f_new)^2 + 2 (f - f_new) m + E[e^2].
        f_iv = _part(f)
        with np.errstate(invalid="ignore", divide="ignore"):
            m, m2, logp = truncated_moments(
                lower_iv - f_iv,
                upper_iv - f_iv,
                noise,
                sigma,
                log_prob=True,
            )
            ll_from = float(logp @ w_iv)
            if not all_interval:
                ll_from += _exact_log_density(exact_y - f[exact], sigma)
        if all_interval:
            y_imp = f + m
        else:
            y_imp = np.empty(n)
            y_imp[exact] = exact_y
            y_imp[interval] = f_iv + m
        with raw_values_withheld():  # X holds raw records
            est, f_new = fitter(X, y_imp, **fit_params)
        if auto_sigma:
            d = f_iv - _part(f_new)
            second_iv = d * d + 2.0 * d * m + m2
            if all_interval:
                second = second_iv
            else:
                second = np.empty(n)
                second[exact] = (exact_y - f_new[exact]) ** 2
                second[interval] = second_iv
            var = float(np.average(second, weights=w))
            if noise == "logistic":
                var /= LOGISTIC_VAR
            sigma_new = max(float(np.sqrt(max(var, 0.0))), 1e-12)
        else:
            sigma_new = sigma
        change = float(np.max(np.abs(f_new - f)))
        history.append(change)
        # Convergence is judged on the noise scale: tol is relative to sigma.
        change /= sigma
        sigma_history.append(sigma)
        if verbose:
            print(
                f"[IterativeIntervalRegressor] iter {len(history)}: "
                f"change={change:.3g}, sigma={sigma_new:.4g}"
            )
        return EMState(f_new, sigma_new, est, change, ll_from)

    return em_map


def plain_em(
    em_map: EMMap, state: EMState, tol: float, budget: int, history: list[float]
) -> EMState:
    """Iterate ``em_map`` until a change below ``tol`` or ``budget`` iterations.

    Parameters
    ----------
    em_map : callable
        One iteration, from :func:`make_em_map`.
    state : EMState
        Start.
    tol : float
        Stop once an iteration changes the fitted values by less (relative
        to sigma); ``-inf`` for a fixed budget.
    budget : int
        Largest length of ``history``.
    history : list of float
        The list ``em_map`` appends to (its length counts the iterations).

    Returns
    -------
    EMState
    """
    while len(history) < budget and state.change >= tol:
        state = em_map(state.f, state.sigma)
    return state


def squarem(
    em_map: EMMap,
    state: EMState,
    Z: NDArray,
    w: NDArray,
    noise: str,
    auto_sigma: bool,
    tol: float,
    budget: int,
    history: list[float],
) -> EMState:
    """SQUAREM on ``(f, log sigma)`` with a likelihood safeguard.

    SQUAREM (Varadhan & Roland, 2008, scheme S3) on theta = (f, log sigma):
    two iterations of Algorithm 1 give r and v, the squared extrapolation
    theta0 - 2 a r + a^2 v jumps along the slow direction, and one more
    iteration from there stabilizes it.  The step length is halved towards
    the plain double step (a = -1) until the observed log-likelihood is not
    below the cycle's start, so the accepted sequence keeps the monotonicity
    of EM.

    Parameters
    ----------
    em_map : callable
        One iteration, from :func:`make_em_map`.
    state : EMState
        Start.
    Z : ndarray of shape (n, 2)
        Interval responses (for the likelihood).
    w : ndarray of shape (n,)
        Sample weights.
    noise : {"gaussian", "logistic"}
        Noise family.
    auto_sigma : bool
        Whether ``log sigma`` is extrapolated along with ``f``.
    tol : float
        Convergence threshold on the change relative to sigma.
    budget : int
        Largest length of ``history``.
    history : list of float
        The list ``em_map`` appends to.

    Returns
    -------
    EMState
    """
    state = em_map(state.f, state.sigma)
    ll = log_likelihood(state, Z, noise, w)
    while state.change >= tol and len(history) < budget:
        s1 = em_map(state.f, state.sigma)
        if s1.change < tol or len(history) >= budget:
            return s1
        s2 = em_map(s1.f, s1.sigma)
        if s2.change < tol or len(history) >= budget:
            return s2
        theta0, r, v, alpha = _extrapolation(state, s1, s2, auto_sigma)
        ll2 = log_likelihood(s2, Z, noise, w)
        best, best_ll = s2, ll2
        while alpha < -1.0:
            trial = _unpack(theta0 - 2 * alpha * r + alpha**2 * v, s2, auto_sigma)
            if log_likelihood(trial, Z, noise, w) >= ll:
                break
            alpha = 0.5 * (alpha - 1.0)
        if alpha < -1.0:
            s3 = em_map(trial.f, trial.sigma)
            ll3 = log_likelihood(s3, Z, noise, w)
            if ll3 >= ll2:
                best, best_ll = s3, ll3
        state, ll = best, best_ll
    return state


def squarem_cached(
    em_map: EMMap,
    state: EMState,
    auto_sigma: bool,
    tol: float,
    budget: int,
    history: list[float],
) -> EMState:
    """SQUAREM for cached linear solves, with no separate likelihood pass.

    An iteration of the cached linear solves costs no more than a
    likelihood evaluation: every E-step returns the log-likelihood of its
    starting point, so the extrapolated point is tested by running the
    iteration from it (whose E-step gives its likelihood) and, when
    accepted, that iteration is the first of the next cycle, which starts at
    the extrapolated point.  Rejected points move the step halfway to the
    plain double step, as in :func:`squarem`.

    Parameters
    ----------
    em_map, state, auto_sigma, tol, budget, history
        As for :func:`squarem`.

    Returns
    -------
    EMState
    """
    s1 = em_map(state.f, state.sigma)
    while s1.change >= tol and len(history) < budget:
        ll0 = s1.ll_from
        s2 = em_map(s1.f, s1.sigma)
        if s2.change < tol or len(history) >= budget:
            return s2
        theta0, r, v, alpha = _extrapolation(state, s1, s2, auto_sigma)
        nxt = None
        while alpha < -1.0 and len(history) < budget:
            trial = _unpack(theta0 - 2 * alpha * r + alpha**2 * v, s2, auto_sigma)
            cand = em_map(trial.f, trial.sigma)
            if cand.ll_from >= ll0:
                state, nxt = trial, cand
                break
            alpha = 0.5 * (alpha - 1.0)
            if alpha > -1.01:
                alpha = -1.0
        if nxt is None:
            if len(history) >= budget:
                return s2
            state, nxt = s2, em_map(s2.f, s2.sigma)
        s1 = nxt
    return s1
