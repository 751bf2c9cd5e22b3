"""Truncated Gaussian moments far in a tail (cells millions of scales away)."""

import numpy as np
import pytest
from scipy import stats

from skprivate.interval import truncated_mean, truncated_second_moment
from skprivate.interval._truncated import truncated_moments


def _mills_series(x):
    """phi(-x) / Phi(-x) for large x: x + 1/x - 2/x**3 (error below 10/x**5)."""
    return x + 1.0 / x - 2.0 / x**3


@pytest.mark.parametrize("x", [2e4, 1e6, 3e11])
def test_half_line_deep_in_the_lower_tail(x):
    # E[e | e <= -x] = -phi(-x)/Phi(-x); E[e^2 | e <= -x] = 1 + x phi/Phi
    m = truncated_mean(-np.inf, -x)
    m2 = truncated_second_moment(-np.inf, -x)
    assert np.isfinite(m) and np.isfinite(m2)
    assert m == pytest.approx(-_mills_series(x), rel=1e-14)
    assert m2 == pytest.approx(1.0 + x * _mills_series(x), rel=1e-14)
    # and by symmetry in the upper tail
    assert truncated_mean(x, np.inf) == pytest.approx(_mills_series(x), rel=1e-14)


def test_bounded_cell_deep_in_the_tail():
    # (-x - 1, -x]: the mass piles at the upper end, mean -x - 1/x + O(1/x^3)
    x = 1e6
    m = truncated_mean(-x - 1.0, -x)
    m2 = truncated_second_moment(-x - 1.0, -x)
    assert m == pytest.approx(-_mills_series(x), rel=1e-12)
    assert m2 == pytest.approx(1.0 + x * _mills_series(x), rel=1e-12)


@pytest.mark.parametrize("a, b", [(-50.0, -49.0), (-2.0, 1.0), (-30.0, -29.5)])
def test_agrees_with_scipy_where_it_is_accurate(a, b):
    d = stats.truncnorm(a, b)
    assert truncated_mean(a, b) == pytest.approx(d.mean(), rel=1e-10)
    assert truncated_second_moment(a, b) == pytest.approx(d.moment(2), rel=1e-9)
    m, m2, lp = truncated_moments(np.array([a]), np.array([b]), log_prob=True)
    assert m[0] == pytest.approx(d.mean(), rel=1e-10)
    assert m2[0] == pytest.approx(d.moment(2), rel=1e-9)
    la, lb = stats.norm.logcdf(a), stats.norm.logcdf(b)
    assert lp[0] == pytest.approx(lb + np.log1p(-np.exp(la - lb)), rel=1e-10)


def test_tiny_noise_scale_gives_finite_imputations():
    """A scale 1e-12: the point of each cell nearest 0, not inf."""
    lower = np.array([0.1, -np.inf, 0.3]) - 0.5
    upper = np.array([0.7, 0.2, np.inf]) - 0.5
    m = truncated_mean(lower, upper, scale=1e-12)
    np.testing.assert_allclose(m, [0.0, -0.3, 0.0], atol=1e-11)


def test_truncated_mean_refuses_what_is_no_cell():
    with pytest.raises(ValueError, match="noise must be one of"):
        truncated_mean(0.0, 1.0, noise="foo")
    with pytest.raises(
        ValueError, match=r"lower is \+inf \(an empty cell\) at position 0"
    ):
        truncated_mean([np.inf], [np.inf])
    with pytest.raises(ValueError, match=r"shapes \(3,\) and \(4,\)"):
        truncated_second_moment(np.zeros(3), np.ones(4))
