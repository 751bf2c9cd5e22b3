"""Transition matrices of the additive and Square Wave mechanisms on a grid.

The probability of each report bin given each input cell, shared by the EMS
density estimators and by their confidence intervals.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._additive import _clamp_distance
from ._laplace import LaplaceLDP
from ._noise_laws import GeneralizedGaussianNoise
from ._square_wave import _square_wave_terms

__all__ = ["additive_transition", "square_wave_transition"]


def _noise_law(estimator, priv) -> Any:
    """The additive noise law of ``priv`` (shared by its columns), or None."""
    if priv is None:
        return None
    if isinstance(priv, LaplaceLDP):
        # Laplace noise of scale ``scale_`` per column (power 1).
        laws = [GeneralizedGaussianNoise(float(s), 1.0) for s in np.ravel(priv.scale_)]
    else:
        laws = getattr(priv, "noise_", None)
    if not laws:
        return None
    keys = {
        (type(law).__name__, law.scale, getattr(law, "power", getattr(law, "beta", 0)))
        for law in laws
    }
    if len(keys) > 1:
        raise ValueError(
            f"{type(estimator).__name__} pools every column as values of one "
            "variable, so the privatizer's columns must share one noise law; got "
            f"{len(keys)} different laws."
        )
    return laws[0]


def additive_transition(
    edges: NDArray, law: Any, n_sub: int = 16, max_bins: int = 1024
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Probability of each report bin given each input cell, for additive noise.

    Inputs are the cells ``edges`` of ``[a, b]``; reports (value plus noise
    drawn from ``law``) are counted in bins of the cell width or an eighth of
    the noise scale, whichever is larger (wider if there would be more than
    ``max_bins``), covering ``[a - t, b + t]``, where the
    noise exceeds ``t`` with probability ``exp(-20)``; the two end bins are
    open, so every column sums to one.  Each entry averages the exact
    probability over ``n_sub`` points spread within the input cell.
    """
    a, b = float(edges[0]), float(edges[-1])
    t = _clamp_distance(law)
    # The noise density varies on the scale of law.scale: bins finer than an
    # eighth of it carry little more information and cost EM time.
    step = max(float(np.min(np.diff(edges))), law.scale / 8.0)
    k = int(np.ceil((b - a + 2.0 * t) / step))
    if k > max_bins:
        k = max_bins
        step = (b - a + 2.0 * t) / k
    out_edges = a - t + step * np.arange(k + 1)
    sub = (np.arange(n_sub) + 0.5) / n_sub
    v = (edges[:-1, None] + np.diff(edges)[:, None] * sub[None, :]).ravel()
    cdf = np.exp(law.logcdf(out_edges[1:-1, None] - v[None, :]))
    cdf = np.vstack([np.zeros(v.size), cdf, np.ones(v.size)])
    M = np.diff(cdf, axis=0).reshape(k, edges.size - 1, n_sub).mean(axis=2)
    M = np.maximum(M, 0.0)
    return M / M.sum(axis=0, keepdims=True), out_edges


def _band_share_below(t: NDArray, v: NDArray, w: float) -> NDArray[np.float64]:
    """Share of the band ``[v - w, v + w]`` that lies below ``t``.

    Parameters
    ----------
    t : ndarray
        Points (output cell edges), broadcast against ``v``.
    v : ndarray
        Centres of the band (values of the unit domain).
    w : float
        Half-width of the band, ``>= 0``.

    Returns
    -------
    share : ndarray
        ``clip(1/2 + (t - v) / (2 w), 0, 1)``.

    Notes
    -----
    The share is computed from the gap ``t - v`` (one correctly rounded
    subtraction) rather than from the ends ``v -/+ w``, which round to
    ``v`` once ``w`` is below half a unit in the last place of ``v``
    (``epsilon`` above about 37), so that the band's overlap with every
    cell would read 0.  Its limit as ``w -> 0`` is taken at ``w = 0`` (``w``
    underflows to 0 from ``epsilon`` about 709 on): ``0``, ``1/2`` or ``1``
    as ``t`` is below, at or above ``v``; a tiny ``w`` whose quotient
    overflows gives the same.
    """
    gap = np.asarray(t, dtype=float) - np.asarray(v, dtype=float)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        share = np.clip(0.5 + gap / (2.0 * w), 0.0, 1.0)
    # 0 / 0 (the value on an edge of a band of no width): half of it below
    return np.where(np.isnan(share), 0.5, share)


def square_wave_transition(
    edges: NDArray, epsilon: float, n_sub: int = 16
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Probability of each output bucket given each input bucket (unit domain).

    Inputs are the ``m`` cells ``edges`` of ``[0, 1]``; outputs are ``m``
    equal cells of ``[-w, 1 + w]``.  Each entry averages the exact interval
    probability over ``n_sub`` points spread within the input cell.

    Parameters
    ----------
    edges : ndarray of shape (m + 1,)
        Increasing edges of the input cells, from 0 to 1.
    epsilon : float
        Budget of the Square Wave mechanism (per column), ``> 0``; every
        finite value works.
    n_sub : int, default=16
        Number of points, evenly spread, over which each input cell is
        averaged.

    Returns
    -------
    M : ndarray of shape (m, m)
        ``M[j, i]``: probability that the report falls in output cell ``j``
        given a value in input cell ``i``; every column sums to one.
    out_edges : ndarray of shape (m + 1,)
        Edges of the output cells.

    Notes
    -----
    A report given ``v`` has density ``q`` on ``[-w, 1 + w]`` plus
    ``(e**epsilon - 1) q`` on the band ``[v - w, v + w]``, with
    ``q = 1 / (1 + 2 w e**epsilon)``.  The mass of an output cell
    ``[s, t]`` is therefore

    ``q (t - s) + r (S(t) - S(s))``, with ``r = 2 w (e**epsilon - 1) q``

    the band's extra mass and ``S(t) = clip(1/2 + (t - v) / (2 w), 0, 1)``
    the share of the band below ``t``.  Both are computed without ``1 / w``
    or ``e**epsilon``: ``q = 1 / (1 + k)`` and ``r = (k - 2 w) q`` from the
    odds ``k = 2 w e**epsilon`` of a report in the band, which stay finite
    (``k ~ epsilon - 1`` for large ``epsilon``), and ``r = 2 w q
    expm1(epsilon)`` below ``epsilon = 1``, where ``k - 2 w`` would cancel.
    As ``w -> 0`` (it underflows to 0 beyond ``epsilon`` about 709) the
    band becomes a point mass ``k / (1 + k)`` at ``v`` and ``S`` a step at
    ``v``, which is the value used there: the matrix is continuous in
    ``epsilon`` and tends to the identity (``r -> 1``) as ``epsilon``
    grows, as the reports tend to the values themselves.
    """
    epsilon = float(epsilon)
    w, near_odds = _square_wave_terms(epsilon)
    q = 1.0 / (1.0 + near_odds)
    # the band's mass above the floor q: 2 w (e^epsilon - 1) q
    extra = (
        2.0 * w * float(np.expm1(epsilon)) * q
        if epsilon < 1.0
        else (near_odds - 2.0 * w) * q
    )
    m = edges.size - 1
    out_edges = np.linspace(-w, 1 + w, m + 1)
    sub = (np.arange(n_sub) + 0.5) / n_sub
    v = edges[:-1, None] + np.diff(edges)[:, None] * sub[None, :]
    below = _band_share_below(out_edges[:, None, None], v[None], w)
    # The report range holds every band whole.  Computed, the end shares can
    # miss it: once w is below half an ulp of 1, the top edge 1 + w rounds
    # to 1 and would cut the band of a value at 1 in half.
    below[0], below[-1] = 0.0, 1.0
    cell = np.diff(out_edges)[:, None, None]
    M = (q * cell + extra * np.diff(below, axis=0)).mean(axis=2)
    return M / M.sum(axis=0, keepdims=True), out_edges
