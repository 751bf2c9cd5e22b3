"""Exact checks of the block-by-block release of large inputs.

:func:`~skprivate.utils._row_blocks.in_row_blocks` is on the release path of
every additive, interval and RVNS privatizer: each output row must be the
release of its own input row, in place, with the dtype and shape the
release gives.  Spec ``row_blocks`` of ``benchmarks/_mutation_specs_validation.py``.
"""

from __future__ import annotations

import numpy as np
import pytest

from skprivate.utils._row_blocks import ROW_BLOCK, in_row_blocks


def test_the_default_block_is_65536_rows():
    assert ROW_BLOCK == 65536
    sizes = []

    def release(B):
        sizes.append(B.shape[0])
        return B[:, 0]

    X = np.zeros((ROW_BLOCK + 3, 1))
    in_row_blocks(release, X)
    assert sizes == [ROW_BLOCK, 3]
    sizes.clear()
    in_row_blocks(release, X[:ROW_BLOCK])
    assert sizes == [ROW_BLOCK]


@pytest.mark.parametrize(
    ("n", "rows"), [(10, 10), (11, 10), (20, 10), (21, 10), (7, 3)]
)
def test_every_row_is_released_once_in_place(n, rows):
    X = np.arange(n * 2, dtype=float).reshape(n, 2)
    seen = []

    def release(B):
        seen.append(B.copy())
        # rows map independently: each output row is a function of its row
        return B[:, :1] * 10 + B[:, 1:], (B[:, 0] * 3).astype(np.int32)

    out, codes = in_row_blocks(release, X, rows=rows)
    np.testing.assert_array_equal(np.vstack(seen), X)
    assert [b.shape[0] for b in seen] == [min(rows, n - s) for s in range(0, n, rows)]
    np.testing.assert_array_equal(out, X[:, :1] * 10 + X[:, 1:])
    assert out.shape == (n, 1) and out.dtype == np.float64
    np.testing.assert_array_equal(codes, (X[:, 0] * 3).astype(np.int32))
    assert codes.shape == (n,) and codes.dtype == np.int32


def test_a_single_array_output_keeps_trailing_dimensions():
    X = np.arange(12.0).reshape(6, 2)

    def release(B):
        return np.stack([B, -B], axis=-1).astype(np.float32)

    out = in_row_blocks(release, X, rows=4)
    assert isinstance(out, np.ndarray)
    assert out.shape == (6, 2, 2) and out.dtype == np.float32
    np.testing.assert_array_equal(out, np.stack([X, -X], axis=-1))


def test_one_block_is_the_releases_own_output():
    X = np.arange(4.0).reshape(4, 1)
    marker = (np.zeros(4), np.ones(4))
    assert in_row_blocks(lambda B: marker, X, rows=4) is marker
    assert in_row_blocks(lambda B: marker, X, rows=5) is marker


def test_a_block_that_returns_fewer_or_more_arrays_is_an_error():
    # every block must release the same arrays; a later block giving a
    # different number is refused rather than dropped or truncated
    X = np.arange(6.0).reshape(6, 1)
    for extra in ((), (np.zeros(2), np.zeros(2))):
        calls = []

        def release(B, extra=extra, calls=calls):
            calls.append(B.shape[0])
            if len(calls) == 1:
                return B[:, 0], B[:, 0]
            return (B[:, 0], *extra)

        with pytest.raises(ValueError, match="zip"):
            in_row_blocks(release, X, rows=4)
