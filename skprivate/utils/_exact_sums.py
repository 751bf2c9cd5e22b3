"""Weighted sums whose result does not depend on the BLAS kernel.

A matrix product through BLAS adds its terms in an order chosen by the
kernel (SIMD width, blocking, threads), so the last bits of ``W @ v`` change
with the CPU.  When such a sum is later rounded, grouped or compared, the
discrete outcome changes with the machine.

:func:`integer_weighted_sums` removes the dependence for integer weights.
Each column ``v`` is written in fixed point as ``sum_p d_p * 2**(e - D*(p+1))``
with integer digits ``|d_p| < 2**D``, where ``2**e`` bounds ``|v|`` and ``D``
is chosen so that ``sum_j |w_ij| * 2**D <= 2**53``.  Every product and every
partial sum of ``W @ d_p`` is then an integer below ``2**53``, which float64
represents exactly, so BLAS returns the exact integer in any order, with or
without FMA.  The digits are recombined with power-of-two scalings (exact)
and a fixed sequence of additions.  The result is deterministic; it equals
the exactly rounded weighted sum of the values truncated to the fixed-point
grid, which is at least 53 bits below the largest ``|v|``.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import NDArray

__all__ = ["FixedPointColumns", "integer_weighted_sums"]

# Bits kept below the largest magnitude of a column: more than float64's 53,
# so the largest values are represented exactly.
_FIXED_POINT_BITS = 56
# Weights converted to float64 at once (a block of columns of every row).
_BLOCK_ELEMENTS = 1 << 16


class FixedPointColumns:
    """Columns split into fixed-point digits once, for many weighted sums.

    Parameters
    ----------
    columns : ndarray of shape (n, m)
        Finite float values.
    max_row_total : int
        An upper bound of ``sum_j |w_ij|`` for every weight row that will be
        summed against these columns.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils._exact_sums import FixedPointColumns
    >>> fixed = FixedPointColumns(np.array([[0.1], [0.2], [0.3]]), max_row_total=3)
    >>> fixed.weighted_sums(np.array([[1, 2, 0], [0, 1, 2]])).ravel().round(12)
    array([0.5, 0.8])
    """

    def __init__(self, columns: NDArray[np.float64], max_row_total: int) -> None:
        columns = np.asarray(columns, dtype=np.float64)
        if columns.ndim != 2:
            raise ValueError(f"columns must be 2-D; got shape {columns.shape}.")
        n, m = columns.shape
        self.n_rows, self.n_columns = n, m
        max_row_total = max(int(max_row_total), 1)
        digit_bits = 53 - max_row_total.bit_length()
        if digit_bits < 8:
            raise ValueError(
                f"integer weights summing to {max_row_total} per row are too "
                "large for exact float64 sums."
            )
        n_digits = -(-_FIXED_POINT_BITS // digit_bits)
        top = np.array([np.abs(columns[:, j]).max() if n else 0.0 for j in range(m)])
        if not np.isfinite(top).all():
            raise ValueError("columns must be finite.")
        # |v| < 2**exponent for every value of the column.
        exponents = np.frexp(top)[1].tolist()
        # One row of digits per (digit, column), in the order the sums are
        # recombined.  Rows of a C-ordered matrix: each product reads every
        # row once, contiguously.
        digits = np.empty((n_digits * m, n))
        terms = []
        for j in range(m):
            scaled = np.ldexp(columns[:, j], np.int32(digit_bits - exponents[j]))
            for p in range(n_digits):
                d = digits[p * m + j]
                np.trunc(scaled, out=d)
                scaled -= d
                scaled *= 2.0**digit_bits
        for p in range(n_digits):
            terms += [(j, exponents[j] - digit_bits * (p + 1)) for j in range(m)]
        # All-zero rows (values with few significant bits) are left out: their
        # sums are exactly zero.
        keep = digits.any(axis=1)
        self._digits = digits if keep.all() else digits[keep]
        self._terms = [term for term, k in zip(terms, keep.tolist()) if k]

    def weighted_sums(self, weights) -> NDArray[np.float64]:
        """``weights @ columns``, exact digit by digit, identical on every machine.

        Parameters
        ----------
        weights : ndarray of shape (B, n) or sequence of ndarray
            Integer-valued weights whose absolute row sums do not exceed
            ``max_row_total``; a sequence of arrays with ``n`` columns
            stands for their rows stacked in order.

        Returns
        -------
        sums : ndarray of shape (B, m)
        """
        stacked = isinstance(weights, (list, tuple)) and np.ndim(weights[0]) == 2
        parts = [np.asarray(w) for w in (weights if stacked else [weights])]
        for W in parts:
            if W.ndim != 2 or W.shape[1] != self.n_rows:
                raise ValueError(
                    f"weights must have shape (B, {self.n_rows}); got {W.shape}."
                )
        B = sum(W.shape[0] for W in parts)
        out = np.zeros((B, self.n_columns))
        if not self._terms or B == 0:
            return out
        # Column blocks converted to float64 one at a time (the block stays in
        # cache), and the digits read once for all B rows.  Every block's
        # product and their sum are integers below 2**53: exact.
        n = self.n_rows
        width = max(256, _BLOCK_ELEMENTS // B)
        block = np.empty((B, min(width, n)))
        exact = np.zeros((len(self._terms), B))
        for start in range(0, n, width):
            stop = min(n, start + width)
            w = block[:, : stop - start]
            row = 0
            for W in parts:
                w[row : row + W.shape[0]] = W[:, start:stop]
                row += W.shape[0]
            digits = self._digits[:, start:stop]
            if B == 1:
                exact[:, 0] += digits @ w[0]
            else:
                exact += digits @ w.T
        # Recombined column by column in digit order: a fixed sequence of
        # exact scalings and rounded additions.
        for row, (j, scale) in zip(exact, self._terms):
            out[:, j] += np.ldexp(row, np.int32(scale))
        return out


def integer_weighted_sums(
    weights: NDArray, columns: NDArray[np.float64], max_row_total: int | None = None
) -> NDArray[np.float64]:
    """``weights @ columns`` for integer weights, identical on every machine.

    Parameters
    ----------
    weights : ndarray of shape (B, n)
        Integer-valued weights (any integer or float dtype holding integers).
    columns : ndarray of shape (n, m)
        Finite float values.
    max_row_total : int, optional
        An upper bound of ``sum_j |weights[i, j]|`` over rows; computed when
        not given.  Bootstrap count rows sum to ``n``.

    Returns
    -------
    sums : ndarray of shape (B, m)
        Deterministic weighted sums (see the module notes for their
        accuracy).

    See Also
    --------
    FixedPointColumns : the same for many weight matrices against the same
        columns, splitting the columns once.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils._exact_sums import integer_weighted_sums
    >>> w = np.array([[1, 2, 0], [0, 1, 3]])
    >>> v = np.array([[0.1], [0.2], [0.3]])
    >>> integer_weighted_sums(w, v).ravel().round(12)
    array([0.5, 1.1])
    """
    columns = np.asarray(columns, dtype=np.float64)
    if columns.ndim != 2:
        raise ValueError(f"columns must be 2-D; got shape {columns.shape}.")
    W = np.asarray(weights)
    if W.ndim != 2 or W.shape[1] != columns.shape[0]:
        raise ValueError(
            f"weights has shape {W.shape} but columns has {columns.shape[0]} rows."
        )
    if max_row_total is None:
        max_row_total = int(np.abs(W).sum(axis=1).max()) if W.size else 1
    return FixedPointColumns(columns, max_row_total).weighted_sums(W)
