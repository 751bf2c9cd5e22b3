"""Exact weighted sums pinned on their grid, their paths and their refusals.

The integral release rounds and compares weighted sums of resampled counts;
a last bit that moves with the BLAS kernel would change which value is
released.  The sums are exact digit by digit: these tests pin the digit
width chosen from the weights' row total (one bit more and a digit sum can
pass 2**53), the fixed-point grid it keeps, the one-row and many-row paths,
weights given as a stack of matrices, and the texts of the refusals.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

from skprivate.utils._exact_sums import FixedPointColumns, integer_weighted_sums


def _rounded(W, v):
    """The correctly rounded sums of integer weights times float values."""
    return np.array(
        [
            [
                float(
                    sum(Fraction(int(c)) * Fraction(float(x)) for c, x in zip(row, col))
                )
                for col in np.asarray(v, dtype=float).T
            ]
            for row in np.asarray(W)
        ]
    )


@pytest.mark.parametrize(
    ("total", "bits"),
    # digit width 53 - bit_length(total), ceil(56 / width) digits: the grid
    # keeps width * digits bits below the column's top power of two
    [(1, 104), (3, 102), (2**20, 64), (2**44, 56)],
)
def test_the_fixed_point_grid_follows_the_row_total(total, bits):
    # top value 1.0: |v| < 2**1, so the grid step is 2**(1 - bits)
    kept = FixedPointColumns(np.array([[1.0], [2.0 ** (1 - bits)]]), total)
    assert kept.weighted_sums(np.array([[0, 1]]))[0, 0] == 2.0 ** (1 - bits)
    lost = FixedPointColumns(np.array([[1.0], [2.0 ** (-bits)]]), total)
    assert lost.weighted_sums(np.array([[0, 1]]))[0, 0] == 0.0


def test_the_row_total_is_read_from_every_row_of_the_weights():
    # rows summing to 1 each: the 104-bit grid of a total of 1 keeps 2**-103
    v = np.array([[1.0], [2.0**-103]])
    assert integer_weighted_sums(np.array([[0, 1], [1, 0]]), v)[0, 0] == 2.0**-103
    # a row summing to 3 narrows the grid to 102 bits: 2**-103 is lost
    assert integer_weighted_sums(np.array([[0, 3]]), v)[0, 0] == 0.0
    assert integer_weighted_sums(np.array([[0, 3]]), v, max_row_total=1)[0, 0] == (
        3 * 2.0**-103
    )


def test_digit_sums_at_the_largest_row_total_stay_exact():
    # 1023 values whose leading digit is all ones: the digit sums reach
    # 1023 * (2**43 - 1), just below 2**53 (one bit wider would round)
    rng = np.random.default_rng(1)
    v = 1.0 - rng.integers(1, 2**20, size=1023) * 2.0**-53
    W = np.ones((1, 1023), dtype=np.int64)
    got = integer_weighted_sums(W, v[:, None], max_row_total=1023)
    assert got.tolist() == _rounded(W, v[:, None]).tolist()
    got = FixedPointColumns(v[:, None], 1023).weighted_sums(np.vstack([W, W]))
    assert got.tolist() == _rounded(np.vstack([W, W]), v[:, None]).tolist()


def test_the_widest_digit_allowed():
    # 2**44 has 45 bits: 8-bit digits, the narrowest accepted
    FixedPointColumns(np.ones((2, 1)), 2**44)
    with pytest.raises(
        ValueError,
        match=r"^integer weights summing to 35184372088832 per row are too large "
        r"for exact float64 sums\.$",
    ):
        FixedPointColumns(np.ones((2, 1)), 2**45)


@pytest.mark.parametrize("B", [1, 2, 3])
def test_one_two_and_many_rows_over_several_column_blocks(B):
    # more than one block of columns: 65,536 // B columns, at least 256
    rng = np.random.default_rng(B)
    n = (1 << 16) + 300 if B == 1 else 40_000
    v = rng.normal(size=(n, 1))
    W = rng.integers(0, 3, size=(B, n))
    got = FixedPointColumns(v, int(np.abs(W).sum(axis=1).max())).weighted_sums(W)
    assert got.tolist() == _rounded(W, v).tolist()


def test_two_rows_are_each_summed():
    v = np.array([[0.1], [0.2], [0.3]])
    W = np.array([[1, 2, 0], [0, 1, 3]])
    assert integer_weighted_sums(W, v).tolist() == _rounded(W, v).tolist()


def test_a_stack_of_weight_matrices_is_their_rows_in_order():
    rng = np.random.default_rng(3)
    v = rng.normal(size=(50, 2))
    parts = [rng.integers(0, 4, size=(k, 50)) for k in (2, 1, 3)]
    fixed = FixedPointColumns(v, 200)
    stacked = fixed.weighted_sums(parts)
    assert stacked.tolist() == fixed.weighted_sums(np.vstack(parts)).tolist()
    assert stacked.tolist() == _rounded(np.vstack(parts), v).tolist()
    # a one-matrix stack, and a tuple
    assert fixed.weighted_sums([parts[2]]).tolist() == stacked[3:].tolist()
    assert fixed.weighted_sums(tuple(parts)).tolist() == stacked.tolist()
    # a list of rows is a matrix, not a stack
    rows = parts[0].tolist()
    assert fixed.weighted_sums(rows).tolist() == stacked[:2].tolist()


def test_float32_columns_are_split_in_double_precision():
    v32 = np.array([[0.1], [0.7], [1e-3]], dtype=np.float32)
    W = np.array([[1, 2, 3]])
    fixed = FixedPointColumns(v32, 6)
    assert fixed.weighted_sums(W).tolist() == _rounded(W, v32.astype(float)).tolist()


def test_empty_inputs():
    empty_rows = FixedPointColumns(np.zeros((0, 2)), 1)
    assert empty_rows.weighted_sums(np.zeros((3, 0))).tolist() == [[0.0, 0.0]] * 3
    fixed = FixedPointColumns(np.array([[1.5], [2.5]]), 4)
    out = fixed.weighted_sums(np.zeros((0, 2), dtype=int))
    assert out.shape == (0, 1)
    assert integer_weighted_sums(np.zeros((0, 2)), np.ones((2, 1))).shape == (0, 1)
    # zero columns have no digits: their sums are zero
    zero = FixedPointColumns(np.zeros((2, 2)), 4)
    assert zero.weighted_sums(np.array([[1, 2]])).tolist() == [[0.0, 0.0]]


def _refused(message, call, *args):
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        call(*args)


def test_the_refusals_in_full():
    _refused("columns must be 2-D; got shape (3,).", FixedPointColumns, np.ones(3), 1)
    _refused(
        "columns must be finite.",
        FixedPointColumns,
        np.array([[1.0], [np.nan]]),
        1,
    )
    fixed = FixedPointColumns(np.ones((3, 1)), 3)
    _refused(
        "weights must have shape (B, 3); got (1, 4).",
        fixed.weighted_sums,
        np.ones((1, 4)),
    )
    _refused(
        "weights must have shape (B, 3); got (3,).", fixed.weighted_sums, np.ones(3)
    )
    _refused(
        "weights must have shape (B, 3); got (2, 1, 3).",
        fixed.weighted_sums,
        np.ones((2, 1, 3)),
    )
    _refused(
        "weights must have shape (B, 3); got (1, 2).",
        fixed.weighted_sums,
        [np.ones((1, 3)), np.ones((1, 2))],
    )
    _refused(
        "columns must be 2-D; got shape (3,).",
        integer_weighted_sums,
        np.ones((2, 3)),
        np.ones(3),
    )
    _refused(
        "weights has shape (2, 3) but columns has 4 rows.",
        integer_weighted_sums,
        np.ones((2, 3)),
        np.ones((4, 1)),
    )
    _refused(
        "weights has shape (3,) but columns has 3 rows.",
        integer_weighted_sums,
        np.ones(3),
        np.ones((3, 1)),
    )
