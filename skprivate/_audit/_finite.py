"""Finite laws: a full probability table, and the two-level band law.

A :class:`MatrixLaw` holds ``log P(output j | input i)`` for finitely many
inputs and outputs and is audited by enumeration: the loss is the largest
spread of a column's log probabilities, the ``delta`` at ``epsilon`` the
largest ``sum_j max(0, P_ij - e**eps P_i'j)`` over ordered pairs.

A :class:`BandLaw` gives each output ``j`` in ``[-W, K + W]`` one of two
probabilities given an input ``k`` in ``[0, K]``: ``e**r q`` when
``|j - k| <= W`` (the band), ``q`` elsewhere.  Any two inputs' probabilities
of an output are then equal or in the ratio ``e**r``, so the loss is
``|r|`` (on the output ``-W``, near ``0`` and far from ``K``), and a pair
``k, k'`` has ``min(|k - k'|, 2 W + 1)`` outputs in the band of one only:
``delta = min(K, 2 W + 1) q max(0, e**r - e**eps)``, from the extreme pair.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ._numeric import log1mexp
from ._result import WorstCase

__all__ = ["BandLaw", "MatrixLaw"]

_MAX_PAIR_CELLS = 50_000_000


@dataclass(frozen=True)
class MatrixLaw:
    """Exact law on finite inputs and outputs, as log probabilities.

    Parameters
    ----------
    log_prob : ndarray of shape (n_inputs, n_outputs)
        ``log P(output j | input i)``; ``-inf`` for impossible outputs.
    input_labels, output_labels : sequence
        What the user sees for each input and output.
    """

    log_prob: NDArray
    input_labels: Sequence[Any] = field(default=())
    output_labels: Sequence[Any] = field(default=())

    def __post_init__(self) -> None:
        lp = np.asarray(self.log_prob, dtype=float)
        if lp.ndim != 2 or lp.shape[0] < 1:
            raise ValueError(f"log_prob must be a 2-D table; got shape {lp.shape}.")
        totals = np.exp(lp).sum(axis=1)
        if not np.allclose(totals, 1.0, rtol=0, atol=1e-9):
            row = int(np.argmax(np.abs(totals - 1.0)))
            raise ValueError(f"log_prob row {row} does not sum to one.")

    def _label(self, labels: Sequence[Any], i: int) -> Any:
        return labels[i] if len(labels) else i

    def worst_epsilon(self) -> WorstCase:
        """Largest log ratio of two inputs' probabilities of one output."""
        lp = np.asarray(self.log_prob, dtype=float)
        method = "finite law: every input pair and every output enumerated"
        top = lp.max(axis=0)
        bottom = lp.min(axis=0)
        with np.errstate(invalid="ignore"):
            spread = np.where(np.isneginf(top), -np.inf, top - bottom)
        j = int(np.argmax(spread))
        i, i2 = int(np.argmax(lp[:, j])), int(np.argmin(lp[:, j]))
        value = max(float(spread[j]), 0.0)
        inputs = (self._label(self.input_labels, i), self._label(self.input_labels, i2))
        return WorstCase(value, inputs, self._label(self.output_labels, j), method)

    def worst_delta(self, epsilon: float) -> WorstCase:
        """Largest ``sum_j max(0, P_ij - e**eps P_i'j)`` over ordered pairs."""
        lp = np.asarray(self.log_prob, dtype=float)
        n, c = lp.shape
        if n * n * c > _MAX_PAIR_CELLS:
            raise ValueError(
                f"{n} inputs x {c} outputs is too large a table to enumerate pairs."
            )
        eps = float(epsilon)
        with np.errstate(invalid="ignore"):
            d = eps + lp[None, :, :] - lp[:, None, :]  # [i, i', j]
            terms = np.where(
                d < 0, np.exp(lp[:, None, :] + log1mexp(np.minimum(d, 0.0))), 0.0
            )
        terms = np.nan_to_num(terms, nan=0.0)
        totals = terms.sum(axis=2)
        i, i2 = np.unravel_index(int(np.argmax(totals)), totals.shape)
        method = "finite law: every ordered input pair, all outputs summed"
        inputs = (self._label(self.input_labels, i), self._label(self.input_labels, i2))
        where = np.flatnonzero(terms[i, i2] > 0)
        out = [self._label(self.output_labels, j) for j in where[:5]]
        return WorstCase(float(totals[i, i2]), inputs, out, method)


@dataclass(frozen=True)
class BandLaw:
    """Two-level law on a band around the input (Square Wave on a grid).

    Parameters
    ----------
    K : int
        Inputs are ``0 .. K``.
    W : int
        Half-width of the band; outputs are ``-W .. K + W``.
    log_far : float
        ``log q``, the probability of each output outside the band.
    log_ratio : float
        ``r``: an output in the band has probability ``e**r q``.
    input_label, output_label : callable
        Map grid indices to what the user sees.
    """

    K: int
    W: int
    log_far: float
    log_ratio: float
    input_label: Callable[[int], Any] = field(default=lambda k: k)
    output_label: Callable[[int], Any] = field(default=lambda j: j)

    def __post_init__(self) -> None:
        near = np.exp(self.log_far + self.log_ratio) * (2 * self.W + 1)
        total = near + np.exp(self.log_far) * self.K
        if not abs(total - 1.0) < 1e-9:
            raise ValueError(f"the band law's probabilities sum to {total!r}, not 1.")

    def to_matrix(self) -> NDArray:
        """Log probabilities, inputs ``0..K`` by outputs ``-W..K+W``."""
        k = np.arange(self.K + 1)[:, None]
        j = np.arange(-self.W, self.K + self.W + 1)[None, :]
        near = np.abs(j - k) <= self.W
        return np.where(near, self.log_far + self.log_ratio, self.log_far)

    def worst_epsilon(self) -> WorstCase:
        """Exact loss ``|r|``, attained by the inputs ``0, K`` on ``-W``."""
        method = "band law: two probability levels, extreme inputs, edge output"
        if self.K == 0:
            return WorstCase(0.0, (self.input_label(0),) * 2, None, method)
        pair = (0, self.K) if self.log_ratio >= 0 else (self.K, 0)
        inputs = (self.input_label(pair[0]), self.input_label(pair[1]))
        value = abs(float(self.log_ratio))
        return WorstCase(value, inputs, self.output_label(-self.W), method)

    def worst_delta(self, epsilon: float) -> WorstCase:
        """Exact ``delta`` at ``epsilon`` over all pairs (the extreme one)."""
        method = "band law: outputs in one band only, counted for the extreme pair"
        count = min(self.K, 2 * self.W + 1)
        r, eps = abs(float(self.log_ratio)), float(epsilon)
        level = self.log_far + (self.log_ratio if self.log_ratio < 0 else 0.0)
        if count == 0 or r <= eps:
            value = 0.0
        else:
            value = float(count * np.exp(level + r + log1mexp(eps - r)))
        pair = (0, self.K) if self.log_ratio >= 0 else (self.K, 0)
        inputs = (self.input_label(pair[0]), self.input_label(pair[1]))
        out = f"{count} outputs from {self.output_label(-self.W)}"
        return WorstCase(value, inputs, out, method)
