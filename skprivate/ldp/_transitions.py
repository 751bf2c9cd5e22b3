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


def square_wave_transition(
    edges: NDArray, epsilon: float, n_sub: int = 16
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Probability of each output bucket given each input bucket (unit domain).

    Inputs are the ``m`` cells of ``[0, 1]``; outputs are ``m`` equal cells
    of ``[-w, 1 + w]``.  Each entry averages the exact interval probability
    over ``n_sub`` points spread within the input cell.
    """
    w, near_odds = _square_wave_terms(epsilon)
    p_lo = 1.0 / (1.0 + near_odds)
    p_hi = near_odds / (2.0 * w) * p_lo if w > 0 else 0.0  # = e^epsilon p_lo
    m = edges.size - 1
    out_edges = np.linspace(-w, 1 + w, m + 1)
    sub = (np.arange(n_sub) + 0.5) / n_sub
    v = edges[:-1, None] + np.diff(edges)[:, None] * sub[None, :]
    lo = np.maximum(out_edges[:-1, None, None], v[None] - w)
    hi = np.minimum(out_edges[1:, None, None], v[None] + w)
    overlap = np.clip(hi - lo, 0.0, None)
    cell = np.diff(out_edges)[:, None, None]
    M = (p_lo * cell + (p_hi - p_lo) * overlap).mean(axis=2)
    return M / M.sum(axis=0, keepdims=True), out_edges
