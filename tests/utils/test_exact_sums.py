"""Weighted sums that are exact, hence the same on every BLAS kernel."""

from fractions import Fraction

import numpy as np
import pytest

from skprivate.utils._exact_sums import integer_weighted_sums


def _correctly_rounded(w_row, v):
    return float(sum(Fraction(int(c)) * Fraction(float(x)) for c, x in zip(w_row, v)))


@pytest.mark.parametrize("seed", range(3))
def test_sums_are_correctly_rounded_exact_sums(seed):
    rng = np.random.default_rng(seed)
    n = 300
    v = rng.normal(10, 4, n) * 10.0 ** rng.integers(-3, 4, n)
    counts = rng.multinomial(n, np.full(n, 1 / n), size=5)
    got = integer_weighted_sums(counts, v[:, None], max_row_total=n)[:, 0]
    want = [_correctly_rounded(row, v) for row in counts]
    assert got.tolist() == want


def test_sums_do_not_depend_on_the_order_of_terms():
    rng = np.random.default_rng(4)
    n = 2000
    v = rng.standard_cauchy((n, 3))
    counts = rng.multinomial(n, np.full(n, 1 / n), size=40)
    ref = integer_weighted_sums(counts, v, max_row_total=n)
    for _ in range(3):
        perm = rng.permutation(n)
        again = integer_weighted_sums(counts[:, perm], v[perm], max_row_total=n)
        assert np.array_equal(again, ref)
    # Computing a row on its own (a different BLAS path) changes nothing.
    assert np.array_equal(integer_weighted_sums(counts[3:4], v), ref[3:4])


def test_close_to_the_float_product_and_handles_zero_and_signs():
    rng = np.random.default_rng(5)
    negative = -np.abs(rng.normal(size=50))
    v = np.column_stack([rng.normal(size=50), np.zeros(50), negative])
    w = rng.integers(0, 4, size=(7, 50))
    got = integer_weighted_sums(w, v)
    np.testing.assert_allclose(got, w @ v, rtol=1e-13, atol=1e-13)
    assert np.all(got[:, 1] == 0.0)


def test_refusals():
    with pytest.raises(ValueError, match="2-D"):
        integer_weighted_sums(np.ones((2, 3)), np.ones(3))
    with pytest.raises(ValueError, match="rows"):
        integer_weighted_sums(np.ones((2, 3)), np.ones((4, 1)))
    with pytest.raises(ValueError, match="finite"):
        integer_weighted_sums(np.ones((2, 3)), np.array([[1.0], [np.inf], [0.0]]))
    with pytest.raises(ValueError, match="too large"):
        integer_weighted_sums(np.ones((1, 3)), np.ones((3, 1)), max_row_total=2**50)
