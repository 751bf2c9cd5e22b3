"""Property-based tests of the shared representations (hypothesis)."""

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from skprivate.distributions import DiscreteDistribution, PiecewiseUniformDistribution
from skprivate.utils import check_interval_array

finite = st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(finite, finite), min_size=1, max_size=30))
def test_sorted_pairs_are_valid_intervals_and_round_trip(pairs):
    arr = np.sort(np.array(pairs, dtype=float), axis=1)
    out = check_interval_array(arr)
    np.testing.assert_array_equal(out, arr)


@settings(max_examples=60, deadline=None)
@given(
    arrays(float, st.integers(1, 20), elements=st.floats(0.01, 10)),
    st.floats(0.0, 1.0),
)
def test_discrete_quantile_is_generalized_inverse_of_cdf(weights, q):
    d = DiscreteDistribution(np.arange(weights.size, dtype=float), weights)
    t = d.quantile(q)
    assert d.cdf(t) >= q - 1e-12
    below = d.support[d.support < t]
    if below.size:
        assert d.cdf(below[-1]) < q + 1e-12


@settings(max_examples=60, deadline=None)
@given(
    arrays(float, st.integers(1, 20), elements=st.floats(0.0, 10)).filter(
        lambda w: w.sum() > 0
    ),
    st.floats(0.001, 0.999),
)
def test_piecewise_uniform_cdf_inverts_quantile(weights, q):
    d = PiecewiseUniformDistribution(np.linspace(-1, 1, weights.size + 1), weights)
    assert abs(float(d.cdf(d.quantile(q))) - q) < 1e-9
    assert abs(d.expect(lambda x: x) - d.mean()) < 1e-9
