"""Privatizers draw the noise of large inputs block by block of rows."""

import numpy as np
import pytest

import skprivate
from skprivate.utils._row_blocks import ROW_BLOCK, in_row_blocks


def test_blocks_are_released_in_order_and_stacked():
    X = np.arange(23.0).reshape(-1, 1)
    calls = []

    def release(B):
        calls.append(B[:, 0].tolist())
        return B * 2, B[:, 0] + 1

    doubled, plus_one = in_row_blocks(release, X, rows=5)
    assert calls == [list(range(k, min(k + 5, 23))) for k in range(0, 23, 5)]
    np.testing.assert_array_equal(doubled, X * 2)
    np.testing.assert_array_equal(plus_one, X[:, 0] + 1)
    # At most one block: a single call on the whole input.
    calls.clear()
    assert in_row_blocks(lambda B: B + 0, X, rows=23).shape == (23, 1)
    in_row_blocks(release, X, rows=23)
    assert len(calls) == 1


@pytest.mark.parametrize(
    ("name", "params"),
    [
        ("LaplaceLDP", {"epsilon": 1.0, "bounds": (0, 1)}),
        ("SquareWaveLDP", {"epsilon": 1.0, "bounds": (0, 1)}),
        ("FlippedHuberLDP", {"epsilon": 1.0, "bounds": (0, 1)}),
        ("RVNSPerturber", {"d": 0.2, "k": 2, "bounds": (0, 1)}),
        ("IntervalCaseI", {}),
        ("IntervalCaseII", {}),
    ],
)
def test_large_inputs_draw_block_after_block(name, params):
    # The first block of a large input gets the noise a call on those rows
    # alone gets from the same generator; later blocks continue the same
    # stream, so the whole output is reproducible and differs between calls.
    n = 2 * ROW_BLOCK + 7
    X = np.random.default_rng(0).uniform(0, 1, size=(n, 2))
    make = getattr(skprivate, name)
    big = make(random_state=3, **params).fit(X)
    seed = np.random.SeedSequence(11)
    whole = big._transform_with_seed(X, seed)
    head = big._transform_with_seed(X[:ROW_BLOCK], seed)
    np.testing.assert_array_equal(whole[:ROW_BLOCK], head)
    out = big.transform(X)
    again = make(random_state=3, **params).fit(X).transform(X)
    np.testing.assert_array_equal(out, again)
    assert not np.array_equal(out, big.transform(X))
    # Later blocks are fresh draws, not a repeat of the first block's noise.
    assert not np.array_equal(whole[ROW_BLOCK : 2 * ROW_BLOCK], head)
