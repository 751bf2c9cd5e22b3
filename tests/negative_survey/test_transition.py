"""The RVNS kernel: the exact density p(x, y) and the corrected Algorithm 1.

These tests check the paper's placement (``placement="paper"``); the
boundary-safe default is tested in ``test_boundary_safe.py``.
"""

import numpy as np
import pytest
from scipy import integrate, stats

from skprivate.negative_survey import rvns_transition_density
from skprivate.negative_survey._transition import sample_rvns

A, B, D = 0.0, 10.0, 2.0
C = 1.0 / (B - A - D)


def paper_density(x, y):
    """Eqs. (2)-(4) of the paper, case by case (with the corrected Eq. 4)."""
    if y < A or y > B:
        return 0.0
    if x < A + D:  # case 1
        if x <= y <= A + D:
            return 0.0
        if y > x + D:
            return C
        if y < x:
            return C * (x - y) / (x - A)
        return C * (y - A - D) / (x - A)
    if x <= B - D:  # case 2
        if y == x:
            return 0.0
        if y < x - D or y > x + D:
            return C
        if y < x:
            return C * (x - y) / D
        return C * (y - x) / D
    # case 3
    if B - D <= y <= x:
        return 0.0
    if y < x - D:
        return C
    if y < B - D:
        return C * (B - D - y) / (B - x)
    return C * (y - x) / (B - x)


@pytest.mark.parametrize("x", [0, 0.7, 1.99, 2, 5, 8, 8.3, 9.6, 10])
def test_density_integrates_to_one(x):
    breaks = sorted({x, x - D, x + D, A + D, B - D})
    total, _ = integrate.quad(
        lambda y: rvns_transition_density(x, y, D, (A, B), "paper"),
        A,
        B,
        points=[p for p in breaks if A < p < B],
        limit=200,
    )
    assert total == pytest.approx(1.0, abs=1e-9)


@pytest.mark.parametrize("d", [6.0, 9.0])
def test_density_integrates_to_one_for_wide_bands(d):
    for x in [0.0, 1.0, 4.5, 7.2, 10.0]:
        total = integrate.quad(
            lambda y, x=x: rvns_transition_density(x, y, d, (A, B), "paper"),
            A,
            B,
            points=[x],
            limit=400,
        )[0]
        assert total == pytest.approx(1.0, abs=1e-7)


def test_unified_form_equals_paper_equations():
    xs = np.concatenate([np.linspace(0.01, 9.99, 97), [0.7, 5, 8.3, 9.6]])
    ys = np.linspace(0, 10, 1001)
    got = rvns_transition_density(xs[:, None], ys[None, :], D, (A, B), "paper")
    want = np.array([[paper_density(x, y) for y in ys] for x in xs])
    assert np.max(np.abs(got - want)) < 1e-13 * C


def test_density_is_zero_at_the_value_and_outside_bounds():
    xs = np.linspace(0, 10, 41)
    assert np.all(rvns_transition_density(xs, xs, D, (A, B), "paper") == 0)
    assert np.all(rvns_transition_density(5.0, [-0.1, 10.1], D, (A, B), "paper") == 0)


@pytest.mark.parametrize("x", [0.0, 0.7, 5.0, 9.6, 10.0])
def test_reports_follow_the_density_ks(x):
    rng = np.random.default_rng(12345)
    y, _ = sample_rvns(np.full(100_000, x), D, A, B, 1, rng)
    grid = np.linspace(A, B, 200_001)
    pdf = rvns_transition_density(x, grid, D, (A, B), "paper")
    cdf = integrate.cumulative_trapezoid(pdf, grid, initial=0.0)
    cdf /= cdf[-1]
    result = stats.kstest(y.ravel(), lambda t: np.interp(t, grid, cdf))
    assert result.pvalue > 1e-3, result


def test_no_report_inside_its_own_band():
    rng = np.random.default_rng(0)
    x = rng.uniform(A, B, 200_000)
    x[:10] = A
    x[10:20] = B
    y, start = sample_rvns(x, D, A, B, 5, rng)
    # The band has width d, lies in [a, b] and contains the value.
    assert np.all(start >= A) and np.all(start + D <= B + 1e-12)
    assert np.all((start <= x) & (x <= start + D))
    inside = (y > start[:, None]) & (y < start[:, None] + D)
    assert not inside.any()
    assert np.all((y >= A) & (y <= B))


def test_band_offset_uniform_in_its_range():
    # Middle case: d1 ~ U[0, d]; near the right end: d2 = d - d1 ~ U[0, b - x].
    rng = np.random.default_rng(1)
    _, start = sample_rvns(np.full(50_000, 5.0), D, A, B, 1, rng)
    assert stats.kstest(5.0 - start, stats.uniform(0, D).cdf).pvalue > 1e-3
    _, start = sample_rvns(np.full(50_000, 9.6), D, A, B, 1, rng)
    d2 = start + D - 9.6
    assert stats.kstest(d2, stats.uniform(0, 0.4).cdf).pvalue > 1e-3


def test_bad_kernel_arguments():
    with pytest.raises(ValueError, match="d must satisfy"):
        rvns_transition_density(1.0, 2.0, 10.0, (0, 10))
    with pytest.raises(ValueError, match="bounds"):
        rvns_transition_density(1.0, 2.0, 1.0, (5, 0))
