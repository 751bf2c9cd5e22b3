"""The RVNS kernel (``negative_survey/_transition.py``) pinned exactly.

The samplers are driven by a scripted generator whose draws are fixed in
advance, so each formula of the corrected Algorithm 1 (band offset, report
position, the jump over the band; on the public grid, the integer ranges
of both draws) is checked entry by entry against the draws.  The density,
its log-likelihood on a grid, the boundary-safe cell probabilities and the
argument checks are checked against direct computations and exact
messages.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import integrate

from skprivate.negative_survey._transition import (
    _band_limits,
    _check_kernel_args,
    _second_antiderivative,
    check_placement,
    check_safe_grid,
    report_range,
    rvns_log_likelihood_grid,
    rvns_transition_density,
    safe_cell_probabilities,
    sample_rvns,
    sample_rvns_grid,
    sample_rvns_grid_safe,
    sample_rvns_safe,
    sampler_grid,
    unpack_bounds,
)


class Scripted:
    """A generator that returns scripted draws and records each call."""

    def __init__(self, *draws):
        self.draws = [np.asarray(v) for v in draws]
        self.calls = []

    def random(self, size):
        self.calls.append(("random", tuple(np.atleast_1d(size))))
        out = self.draws.pop(0)
        assert out.shape == tuple(np.atleast_1d(size))
        return out.astype(float)

    def integers(self, low, high=None, size=None, endpoint=False):
        self.calls.append(("integers", np.array(low), np.array(high), size, endpoint))
        out = self.draws.pop(0)
        shape = size if size is not None else np.broadcast(low, high).shape
        assert out.shape == tuple(np.atleast_1d(shape)) or out.shape == shape
        top = np.asarray(high) + (1 if endpoint else 0)
        assert np.all(out >= low) and np.all(out < top)
        return out.astype(np.int64)


# -- names, ranges and argument checks --------------------------------------------
def test_check_placement_returns_a_known_name_and_refuses_others():
    assert check_placement("paper") == "paper"
    assert check_placement("boundary_safe") == "boundary_safe"
    msg = "placement must be one of ('boundary_safe', 'paper'); got 'safe'."
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        check_placement("safe")


def test_report_range_of_each_placement():
    assert report_range(2.0, 1.0, 11.0, "paper") == (1.0, 11.0)
    assert report_range(2.0, 1.0, 11.0, "boundary_safe") == (-1.0, 13.0)
    with pytest.raises(ValueError, match="placement must be one of"):
        report_range(2.0, 1.0, 11.0, "other")


@pytest.mark.parametrize(
    ("x", "low", "high"),
    [
        (0.0, 0.0, 0.0),
        (1.0, 0.0, 1.0),
        (5.0, 0.0, 2.0),
        (8.5, 0.5, 2.0),
        (10.0, 2.0, 2.0),
    ],
)
def test_band_limits(x, low, high):
    lo, hi = _band_limits(np.array([x]), 2.0, 0.0, 10.0)
    assert lo[0] == low
    assert hi[0] == high


def test_unpack_bounds():
    assert unpack_bounds((1, "2.5")) == (1.0, 2.5)
    a, b = unpack_bounds(np.array([3, 4]))
    assert type(a) is float and type(b) is float
    for bad in ((1, 2, 3), 5, (1, "x"), None):
        msg = f"bounds must be a pair of numbers (a, b); got {bad!r}."
        with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
            unpack_bounds(bad)


def test_kernel_arguments_are_checked_with_exact_messages():
    assert _check_kernel_args(2, 0, 10) == (2.0, 0.0, 10.0)
    assert all(type(v) is float for v in _check_kernel_args(np.int64(2), 0, 10))
    for d in (True, "2", None):
        msg = f"d must be a number, the band width; got {d!r}."
        with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
            _check_kernel_args(d, 0.0, 10.0)
    for a, b in ((1.0, 1.0), (2.0, 1.0), (-np.inf, 1.0), (0.0, np.inf), (np.nan, 1.0)):
        msg = f"bounds must be finite with a < b; got ({a}, {b})."
        with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
            _check_kernel_args(0.1, a, b)
    for d in (0.0, -1.0, 10.0, 12.0, np.inf, np.nan):
        msg = (
            "d must satisfy 0 < d < b - a = 10 (the band must leave room for the "
            f"reports); got d={d:g}."
        )
        with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
            _check_kernel_args(d, 0.0, 10.0)
    assert _check_kernel_args(9.999, 0.0, 10.0)[0] == 9.999


# -- the exact density ----------------------------------------------------------
def test_boundary_safe_density_on_the_edges_of_its_support():
    d, (a, b) = 2.0, (0.0, 10.0)
    c = 1.0 / (b - a + d)
    y = np.array([-2.0 - 1e-12, -2.0, -1.0, 0.5, 1.0, 3.0, 12.0, 12.0 + 1e-12])
    got = rvns_transition_density(0.0, y, d, (a, b))
    want = c * np.minimum(1.0, np.abs(y) / d)
    want[[0, -1]] = 0.0
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)
    # the values' own bounds are included, beyond them the density is 0
    assert rvns_transition_density(10.0, 5.0, d, (a, b)) == pytest.approx(c)
    assert rvns_transition_density(10.0 + 1e-9, 5.0, d, (a, b)) == 0.0
    assert rvns_transition_density(-1e-9, 5.0, d, (a, b)) == 0.0


def test_paper_density_on_the_edges_of_its_support_and_fixed_bands():
    d, (a, b) = 2.0, (0.0, 10.0)
    c = 1.0 / (b - a - d)
    p = rvns_transition_density
    # x = a: the band [0, 2] is fixed, the reports are uniform on (2, 10]
    np.testing.assert_array_equal(
        p(
            0.0,
            [-1e-9, 0.0, 1.0, 2.0, 2.0 + 1e-9, 10.0, 10.0 + 1e-9],
            d,
            (a, b),
            "paper",
        ),
        [0.0, 0.0, 0.0, 0.0, c, c, 0.0],
    )
    # x = b: the band [8, 10] is fixed
    np.testing.assert_array_equal(
        p(10.0, [0.0, 8.0 - 1e-9, 8.0, 9.0, 10.0], d, (a, b), "paper"),
        [c, c, 0.0, 0.0, 0.0],
    )
    # an interior value: ramps of width d on both sides, p(x, x) = 0
    y = np.array([2.9, 3.0, 4.0, 5.0, 6.0, 7.0, 7.1])
    np.testing.assert_allclose(
        p(5.0, y, d, (a, b), "paper"),
        c * np.array([1.0, 1.0, 0.5, 0.0, 0.5, 1.0, 1.0]),
        rtol=1e-14,
    )
    # near a bound: L = 0, R = x - a = 1 (ramp of width 1 to the left)
    np.testing.assert_allclose(
        p(1.0, [0.0, 0.5, 1.0, 2.0, 2.5, 3.0, 4.0], d, (a, b), "paper"),
        c * np.array([1.0, 0.5, 0.0, 0.0, 0.5, 1.0, 1.0]),
        rtol=1e-14,
    )
    # near the upper bound: L = x + d - b = 0.5, R = d = 2 (width 1.5); y = 9
    # is outside the band [8.5 - d1, 10.5 - d1] when d1 > 1.5
    np.testing.assert_allclose(
        p(8.5, [6.0, 7.25, 8.0, 8.5, 9.0, 10.0], d, (a, b), "paper"),
        c * np.array([1.0, 0.5, 0.0, 0.0, 1.0 / 3.0, 1.0]),
        rtol=1e-14,
    )
    assert p(5.0, 5.0, d, (a, b), "paper") == 0.0
    assert p(10.5, 5.0, d, (a, b), "paper") == 0.0


def test_density_broadcasts_and_names_mismatched_shapes():
    got = rvns_transition_density([[1.0], [5.0]], [0.0, 4.0, 9.0], 2.0, (0, 10))
    assert got.shape == (2, 3)
    msg = "x and y must broadcast against each other; got shapes (2,) and (3,)."
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        rvns_transition_density([1.0, 2.0], [0.0, 4.0, 9.0], 2.0, (0, 10))
    with pytest.raises(ValueError, match="^placement must be one of"):
        rvns_transition_density(1.0, 2.0, 2.0, (0, 10), placement="x")
    with pytest.raises(ValueError, match="^bounds must be a pair"):
        rvns_transition_density(1.0, 2.0, 2.0, 3.0)


@pytest.mark.parametrize("placement", ["paper", "boundary_safe"])
@pytest.mark.parametrize(
    ("bounds", "grid", "reports"),
    [
        (
            (0.0, 10.0),
            [0.3, 1.0, 2.5, 5.0, 8.7, 9.5],
            [[0.1, 4.0, 9.9], [3.3, 7.7, 6.0], [5.5, 2.0, 1.2]],
        ),
        # more reports than grid points, bounds away from zero
        (
            (3.0, 13.0),
            [3.5, 6.0, 11.0, 12.5],
            [[3.1, 9.0], [6.5, 12.9], [4.0, 8.0], [10.0, 11.9], [5.0, 7.5]],
        ),
    ],
)
def test_log_likelihood_grid_is_the_sum_of_log_densities(
    placement, bounds, grid, reports
):
    d, (a, b) = 2.0, bounds
    grid, reports = np.array(grid), np.array(reports)
    got = rvns_log_likelihood_grid(reports, grid, d, a, b, placement)
    with np.errstate(divide="ignore"):
        want = np.log(
            rvns_transition_density(
                grid[None, :, None], reports[:, None, :], d, (a, b), placement
            )
        ).sum(axis=2)
    assert got.shape == (reports.shape[0], grid.size)
    np.testing.assert_allclose(got, want, rtol=1e-13)


def test_log_likelihood_grid_at_the_end_points_of_the_paper_placement():
    # at x = a and x = b the band is fixed: a report inside it is impossible
    # (log 0), one outside has density c
    d, a, b = 2.0, 0.0, 10.0
    c = 1.0 / (b - a - d)
    got = rvns_log_likelihood_grid(
        np.array([[1.0], [5.0], [9.0]]), np.array([a, b]), d, a, b, "paper"
    )
    np.testing.assert_allclose(got[1], np.log(c), rtol=1e-12)
    assert got[0, 0] == -np.inf
    assert got[2, 1] == -np.inf
    assert got[0, 1] == pytest.approx(np.log(c), rel=1e-12)
    assert got[2, 0] == pytest.approx(np.log(c), rel=1e-12)


def test_log_likelihood_grid_paper_is_the_default():
    grid = np.array([3.0, 6.0])
    reports = np.array([[1.0, 9.0]])
    np.testing.assert_array_equal(
        rvns_log_likelihood_grid(reports, grid, 2.0, 0.0, 10.0),
        rvns_log_likelihood_grid(reports, grid, 2.0, 0.0, 10.0, "paper"),
    )


# -- the continuous samplers, draw by draw ------------------------------------
def test_sample_rvns_maps_each_draw_by_the_corrected_algorithm():
    d, a, b = 2.0, 0.0, 10.0
    x = np.array([0.0, 1.0, 5.0, 8.5, 10.0])
    u_band = np.array([0.3, 0.5, 0.25, 0.5, 0.9])
    u_rep = np.array([[0.0, 0.1, 0.99], [0.05, 0.2, 0.7], [0.1, 0.45, 0.5]] * 2)[:5]
    rng = Scripted(u_band, u_rep)
    y, start = sample_rvns(x, d, a, b, 3, rng)
    low, high = _band_limits(x, d, a, b)
    want_start = x - (low + (high - low) * u_band)
    np.testing.assert_allclose(start, want_start, rtol=0, atol=1e-15)
    u = u_rep * (b - a - d)
    want = a + u + np.where(u < (want_start - a)[:, None], 0.0, d)
    np.testing.assert_allclose(y, want, rtol=0, atol=1e-14)
    assert [c[0] for c in rng.calls] == ["random", "random"]
    assert rng.calls[1][1] == (5, 3)
    # every report avoids its own band
    assert not np.any((y > start[:, None]) & (y < start[:, None] + d))


def test_sample_rvns_reports_below_and_above_the_band():
    # x = 5, d1 = 1: band [4, 6]; u < 4 stays, u >= 4 jumps by d
    rng = Scripted(np.array([0.5]), np.array([[0.0, 3.999 / 8, 0.5, 1.0 - 1e-12]]))
    y, start = sample_rvns(np.array([5.0]), 2.0, 0.0, 10.0, 4, rng)
    assert start[0] == 4.0
    np.testing.assert_allclose(y[0], [0.0, 3.999, 6.0, 10.0], rtol=0, atol=1e-10)


def test_sample_rvns_with_columns_of_their_own_bounds():
    x = np.array([[1.0, 50.0]])
    d = np.array([2.0, 10.0])
    a = np.array([0.0, 0.0])
    b = np.array([10.0, 100.0])
    rng = Scripted(np.array([[0.5, 0.5]]), np.array([[[0.9], [0.2]]]))
    y, start = sample_rvns(x, d, a, b, 1, rng)
    np.testing.assert_allclose(start, [[0.5, 45.0]])
    np.testing.assert_allclose(y[..., 0], [[0.9 * 8 + 2.0, 0.2 * 90]], atol=1e-12)


def test_sample_rvns_safe_maps_each_draw():
    d, a, b = 2.0, 0.0, 10.0
    x = np.array([0.0, 3.0, 10.0])
    u_band = np.array([0.25, 0.5, 1.0 - 1e-9])
    u_rep = np.array([[0.0, 0.3], [0.4, 0.999], [0.9, 0.05]])
    rng = Scripted(u_band, u_rep)
    y, start = sample_rvns_safe(x, d, a, b, 2, rng)
    want_start = x - d * u_band
    np.testing.assert_allclose(start, want_start, rtol=0, atol=1e-15)
    u = u_rep * (b - a + d)
    want = (a - d) + u + np.where(u < (want_start - (a - d))[:, None], 0.0, d)
    np.testing.assert_allclose(y, want, rtol=0, atol=1e-14)
    assert y.min() >= a - d and y.max() <= b + d
    assert rng.calls[1][1] == (3, 2)


def test_sample_rvns_safe_with_columns_of_their_own_bounds():
    x = np.array([[0.0, 50.0]])
    d = np.array([2.0, 10.0])
    a = np.array([0.0, -20.0])
    b = np.array([10.0, 100.0])
    rng = Scripted(np.array([[0.5, 0.25]]), np.array([[[0.0, 0.99], [0.0, 0.99]]]))
    y, start = sample_rvns_safe(x, d, a, b, 2, rng)
    np.testing.assert_allclose(start, [[-1.0, 47.5]])
    # column 0: range [-2, 12] minus the band [-1, 1], of length 12
    # column 1: range [-30, 110] minus the band [47.5, 57.5], of length 130
    u0 = np.array([0.0, 0.99]) * 12.0
    u1 = np.array([0.0, 0.99]) * 130.0
    want0 = -2.0 + u0 + np.where(u0 < 1.0, 0.0, 2.0)
    want1 = -30.0 + u1 + np.where(u1 < 77.5, 0.0, 10.0)
    np.testing.assert_allclose(y[0, 0], want0, atol=1e-12)
    np.testing.assert_allclose(y[0, 1], want1, atol=1e-12)


# -- the public grid and the float-safe samplers ---------------------------------
def test_sampler_grid_step_indices_and_band():
    h, ja, jb, D = sampler_grid(np.array([2.0]), np.array([0.0]), np.array([10.0]))
    assert h[0] == 2.0**-23  # 2**-24 of min(d, b - a - d) = 2, a power of two
    assert (ja[0], jb[0], D[0]) == (0, 10 * 2**23, 2 * 2**23)
    assert ja.dtype == jb.dtype == D.dtype == np.int64
    # room b - a - d smaller than d; bounds off the grid round inwards
    h, ja, jb, D = sampler_grid(np.array([6.0]), np.array([0.1]), np.array([9.0]))
    assert h[0] == 2.0 ** (np.floor(np.log2(2.9)) - 24)
    assert ja[0] == np.ceil(0.1 / h[0])
    assert jb[0] == np.floor(9.0 / h[0])
    assert D[0] == np.rint(6.0 / h[0])


def test_sampler_grid_step_is_raised_to_keep_indices_exact():
    # bounds near 2**40 with a narrow band: indices must stay below 2**52
    a, b, d = 2.0**40, 2.0**40 + 64.0, 1.0
    h, _ja, jb, D = sampler_grid(np.array([d]), np.array([a]), np.array([b]))
    assert h[0] == 2.0 ** (41 - 52)
    assert jb[0] <= 2**52
    assert D[0] == 2**11
    # and per column: the second column's own magnitude sets its step
    h, *_ = sampler_grid(np.array([1.0, 1.0]), np.array([0.0, a]), np.array([64.0, b]))
    np.testing.assert_array_equal(h, [2.0**-24, 2.0**-11])


def test_sampler_grid_refuses_a_column_without_room_naming_it():
    d = np.array([2.0, 1.0])
    a = np.array([0.0, 2.0**60])
    b = np.array([10.0, 2.0**60 + 3 * 2.0**8])
    with pytest.raises(ValueError) as info:
        sampler_grid(d, a, b)
    msg = str(info.value)
    assert msg.startswith("secure=True cannot place a grid for column 1: bounds [")
    assert "for d=1 and the room b - a - d (grid step 256)" in msg
    assert msg.endswith(
        "shift the data towards 0 or pass secure=False (not safe against "
        "floating-point attacks)."
    )


def test_sampler_grid_needs_one_allowed_point_beside_the_band():
    # jb - ja - D = 1 is the least room: allowed; D = 0 is refused
    _, ja, jb, D = sampler_grid(np.array([1.5]), np.array([0.0]), np.array([3.0]))
    assert jb[0] - ja[0] - D[0] >= 1
    a = np.array([2.0**60])
    with pytest.raises(ValueError, match="column 0"):
        sampler_grid(np.array([100.0]), a, a + 2.0**9)
    # exactly one point beside a band of one step: accepted
    _h, ja, jb, D = sampler_grid(np.array([256.0]), a, a + 512.0)
    assert (D[0], jb[0] - ja[0] - D[0]) == (1, 1)


def _grid(h, ja, jb, D):
    return (
        np.array([h], dtype=float),
        np.array([ja], dtype=np.int64),
        np.array([jb], dtype=np.int64),
        np.array([D], dtype=np.int64),
    )


def test_sample_rvns_grid_draws_on_integer_ranges():
    grid = _grid(0.5, 0, 20, 4)  # [0, 10] in half steps, band of 4 steps
    x = np.array([[0.0], [0.74], [5.0], [9.9], [12.0], [-3.0]])
    jx = np.array([0, 1, 10, 20, 20, 0])
    start = np.array([0, 0, 7, 16, 16, 0])
    r = np.array([[0, 15], [1, 14], [6, 7], [15, 0], [3, 12], [2, 14]])
    rng = Scripted(start[:, None], r[:, None, :])
    y = sample_rvns_grid(x, grid, 2, rng)
    _, low, high, size, endpoint = rng.calls[0]
    np.testing.assert_array_equal(low.ravel(), np.maximum(0, jx - 4))
    np.testing.assert_array_equal(high.ravel(), np.minimum(jx, 16))
    assert endpoint is True and size is None
    _kind, low, high, size, endpoint = rng.calls[1]
    assert low == 0 and size == (6, 1, 2) and endpoint is False
    np.testing.assert_array_equal(np.ravel(high), [16])  # jb - ja - D
    below = start[:, None]
    want = np.where(r < below, r, r + 5) * 0.5
    np.testing.assert_array_equal(y[:, 0, :], want)
    assert y.shape == (6, 1, 2)
    # never inside the band s .. s + D
    idx = y[:, 0, :] / 0.5
    assert not np.any((idx >= start[:, None]) & (idx <= start[:, None] + 4))


def test_sample_rvns_grid_with_an_offset_first_index():
    grid = _grid(0.25, 8, 40, 6)  # [2, 10] in quarter steps
    rng = Scripted(np.array([[12]]), np.array([[[0, 3, 4, 25]]]))
    y = sample_rvns_grid(np.array([[4.5]]), grid, 4, rng)
    _, low, high, _, _ = rng.calls[0]
    assert (low.item(), high.item()) == (12, 18)  # jx = 18
    # 4 points below the band (8..11), then 19.. above it
    np.testing.assert_array_equal(y[0, 0] / 0.25, [8, 11, 19, 40])


def test_sample_rvns_grid_safe_draws_on_integer_ranges():
    grid = _grid(0.5, 0, 20, 4)
    x = np.array([[0.0], [5.0], [10.0], [11.0]])
    jx = np.array([0, 10, 20, 20])
    back = np.array([4, 0, 2, 3])
    r = np.array([[0, 23], [5, 6], [17, 18], [16, 0]])
    rng = Scripted(back[:, None], r[:, None, :])
    y = sample_rvns_grid_safe(x, grid, 2, rng)
    _, low, high, size, endpoint = rng.calls[0]
    assert low == 0 and size == (4, 1) and endpoint is False
    np.testing.assert_array_equal(np.ravel(high), [5])  # D + 1
    _, low, high, size, endpoint = rng.calls[1]
    assert low == 0 and size == (4, 1, 2)
    np.testing.assert_array_equal(np.ravel(high), [24])  # jb - ja + D
    start = jx - back
    first = -4
    want = np.where(r < (start - first)[:, None], first + r, first + 5 + r) * 0.5
    np.testing.assert_array_equal(y[:, 0, :], want)
    idx = y[:, 0, :] / 0.5
    assert idx.min() >= -4 and idx.max() <= 24
    assert not np.any((idx >= start[:, None]) & (idx <= start[:, None] + 4))


def test_check_safe_grid_refuses_padded_indices_beyond_2_to_53():
    ok = (
        np.ones(2),
        np.array([0, -(2**53) + 5], dtype=np.int64),
        np.array([10, 0], dtype=np.int64),
        np.array([5, 5], dtype=np.int64),
    )
    assert check_safe_grid(ok) is None  # |ja - D| = 2**53 exactly
    bad = (ok[0], ok[1], np.array([10, 2**53 - 4], dtype=np.int64), ok[3])
    with pytest.raises(ValueError) as info:
        check_safe_grid(bad)
    assert str(info.value) == (
        "secure=True cannot place the padded report grid of column 1: its "
        "bounds lie too far from 0 for its band width; shift the data towards "
        "0, or pass secure=False (not safe against floating-point attacks)."
    )
    low = (ok[0], np.array([0, -(2**53) + 4], dtype=np.int64), ok[2], ok[3])
    with pytest.raises(ValueError, match="column 1"):
        check_safe_grid(low)


# -- the boundary-safe cell probabilities ---------------------------------------
def test_second_antiderivative_values():
    d = 2.0
    t = np.array([-3.0, -2.0, -1.0, 0.0, 0.5, 2.0, 3.0])
    want = [
        9 / 2 - 3 + 4 / 6,
        8 / 12,
        1 / 12,
        0.0,
        0.125 / 12,
        8 / 12,
        9 / 2 - 3 + 4 / 6,
    ]
    np.testing.assert_allclose(_second_antiderivative(t, d), want, rtol=1e-14)
    # H'' = min(1, |t| / d): the second difference at step 1e-3
    s = 1e-3
    for t0 in (-2.5, -0.7, 0.4, 1.5, 2.6):
        h = _second_antiderivative(np.array([t0 - s, t0, t0 + s]), d)
        assert (h[0] - 2 * h[1] + h[2]) / s**2 == pytest.approx(
            min(1.0, abs(t0) / d), rel=1e-5
        )


def test_safe_cell_probabilities_equal_the_double_integral():
    d, a, b = 2.0, 0.0, 10.0
    xe = np.array([0.0, 1.5, 4.0, 6.0, 10.0])
    ye = np.array([-2.0, -0.5, 1.0, 3.5, 5.0, 9.0, 12.0])
    A = safe_cell_probabilities(xe, ye, d, a, b)
    assert A.shape == (6, 4)
    for j in range(6):
        for i in range(4):
            val, _ = integrate.dblquad(
                lambda y, x: min(1.0, abs(y - x) / d) / (b - a + d),
                xe[i],
                xe[i + 1],
                ye[j],
                ye[j + 1],
                epsabs=1e-13,
            )
            assert A[j, i] == pytest.approx(val / (xe[i + 1] - xe[i]), abs=1e-8)
    np.testing.assert_allclose(A.sum(axis=0), 1.0, rtol=1e-13)
    assert (A >= 0).all()


# -- bounds away from zero, ties, warnings, and the grid's refusals ---------------
def test_band_limits_with_bounds_away_from_zero():
    x = np.array([3.0, 4.0, 8.0, 11.5, 13.0])
    lo, hi = _band_limits(x, 2.0, 3.0, 13.0)
    np.testing.assert_array_equal(lo, [0.0, 0.0, 0.0, 0.5, 2.0])
    np.testing.assert_array_equal(hi, [0.0, 1.0, 2.0, 2.0, 2.0])


def test_kernel_arguments_with_bounds_away_from_zero():
    assert _check_kernel_args(0.5, 0.0, 10.0) == (0.5, 0.0, 10.0)
    assert _check_kernel_args(9.5, 5.0, 15.0)[0] == 9.5
    msg = (
        "d must satisfy 0 < d < b - a = 10 (the band must leave room for the "
        "reports); got d=12."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        _check_kernel_args(12.0, 5.0, 15.0)
    with pytest.raises(ValueError, match="got d=10"):
        _check_kernel_args(10.0, 5.0, 15.0)


def test_density_names_a_non_numeric_x_or_y():
    with pytest.raises(TypeError, match=r"^x must be numeric; entry \(0,\) is a str"):
        rvns_transition_density(["a"], 1.0, 2.0, (0, 10))
    with pytest.raises(TypeError, match=r"^y must be numeric; entry \(0,\) is a str"):
        rvns_transition_density(1.0, ["b"], 2.0, (0, 10))


@pytest.mark.parametrize("placement", ["paper", "boundary_safe"])
def test_density_with_bounds_away_from_zero_is_the_shifted_density(placement):
    x = np.array([0.0, 0.5, 1.0, 5.0, 9.0, 10.0])[:, None]
    y = np.linspace(-2.5, 12.5, 31)[None, :]
    shifted = rvns_transition_density(x + 7.0, y + 7.0, 2.0, (7.0, 17.0), placement)
    base = rvns_transition_density(x, y, 2.0, (0.0, 10.0), placement)
    np.testing.assert_allclose(shifted, base, rtol=1e-12, atol=1e-15)
    assert shifted.max() > 0


def test_density_at_fixed_bands_raises_no_floating_point_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="raise"):
            got = rvns_transition_density(
                [0.0, 10.0], [5.0, 5.0], 2.0, (0, 10), "paper"
            )
    np.testing.assert_allclose(got, 1.0 / 8.0)


@pytest.mark.parametrize("placement", ["paper", "boundary_safe"])
def test_log_likelihood_grid_of_an_impossible_report_does_not_warn(placement):
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = rvns_log_likelihood_grid(
            np.array([[5.0], [1.0]]), np.array([5.0, 0.0]), 2.0, 0.0, 10.0, placement
        )
    assert got[0, 0] == -np.inf


def test_log_likelihood_grid_stand_in_width_with_bounds_away_from_zero():
    d, a, b = 2.0, 3.0, 13.0
    y = np.array([[a + d + 5e-12]])  # half-way up a ramp of width 1e-11
    got = rvns_log_likelihood_grid(y, np.array([a]), d, a, b, "paper")
    assert got[0, 0] == pytest.approx(np.log(0.5 / (b - a - d)), rel=1e-3)


def test_log_likelihood_grid_width_at_a_fixed_band_is_1e_12_of_the_range():
    # at x = a the band is [a, a + d]; a report 5e-12 above its end is on the
    # stand-in ramp of width 1e-12 (b - a) = 1e-11: half-way up
    d, a, b = 2.0, 0.0, 10.0
    y = np.array([[a + d + 5e-12]])
    got = rvns_log_likelihood_grid(y, np.array([a]), d, a, b, "paper")
    c = 1.0 / (b - a - d)
    assert got[0, 0] == pytest.approx(np.log(0.5 * c), rel=1e-4)


def test_safe_cell_probabilities_with_bounds_away_from_zero():
    xe = np.array([5.0, 6.5, 9.0, 11.0, 15.0])
    ye = np.array([3.0, 4.5, 6.0, 8.5, 10.0, 14.0, 17.0])
    A = safe_cell_probabilities(xe, ye, 2.0, 5.0, 15.0)
    B = safe_cell_probabilities(xe - 5.0, ye - 5.0, 2.0, 0.0, 10.0)
    np.testing.assert_allclose(A, B, rtol=1e-12)
    np.testing.assert_allclose(A.sum(axis=0), 1.0, rtol=1e-13)


def test_sample_rvns_with_bounds_away_from_zero():
    d, a, b = 2.0, 3.0, 13.0
    x = np.array([3.0, 4.0, 8.0, 12.0])
    u_band = np.array([0.5, 0.5, 0.25, 0.75])
    u_rep = np.array([[0.0, 0.5], [0.1, 0.9], [0.6, 0.4], [0.99, 0.2]])
    y, start = sample_rvns(x, d, a, b, 2, Scripted(u_band, u_rep))
    low, high = _band_limits(x, d, a, b)
    want_start = x - (low + (high - low) * u_band)
    np.testing.assert_allclose(start, want_start, rtol=0, atol=1e-14)
    u = u_rep * (b - a - d)
    want = a + u + np.where(u < (want_start - a)[:, None], 0.0, d)
    np.testing.assert_allclose(y, want, rtol=0, atol=1e-14)
    assert y.min() >= a and y.max() <= b


def test_sample_rvns_on_a_table_keeps_the_reports_last():
    x = np.array([[1.0, 50.0], [2.0, 60.0]])
    d = np.array([2.0, 10.0])
    a = np.array([0.0, 20.0])
    b = np.array([10.0, 100.0])
    u_rep = np.array([[[0.1, 0.9], [0.3, 0.6]], [[0.5, 0.0], [0.8, 0.2]]])
    y, start = sample_rvns(x, d, a, b, 2, Scripted(np.full((2, 2), 0.5), u_rep))
    assert y.shape == (2, 2, 2)
    assert start.shape == (2, 2)
    for i in range(2):
        for j in range(2):
            u = u_rep[i, j] * (b[j] - a[j] - d[j])
            want = a[j] + u + np.where(u < start[i, j] - a[j], 0.0, d[j])
            np.testing.assert_allclose(y[i, j], want, atol=1e-12)


def test_sample_rvns_safe_draw_at_the_band_edge_jumps_over_it():
    # u == gap exactly: the report is the band's right end, as in sample_rvns
    y, start = sample_rvns_safe(
        np.array([0.0]),
        2.0,
        0.0,
        10.0,
        1,
        Scripted(np.array([0.5]), np.array([[1 / 12]])),
    )
    assert start[0] == -1.0
    assert (1 / 12) * 12.0 == 1.0
    assert y[0, 0] == 1.0


def test_sampler_grid_room_with_bounds_away_from_zero():
    h, *_ = sampler_grid(np.array([6.0]), np.array([4.0]), np.array([13.0]))
    assert h[0] == 2.0 ** (np.floor(np.log2(3.0)) - 24)  # room 13 - 4 - 6 = 3


def test_sampler_grid_of_tiny_bounds_keeps_the_fine_step():
    # bounds below 1: the magnitude does not raise the step
    h, *_ = sampler_grid(np.array([4e-9]), np.array([0.0]), np.array([1e-8]))
    assert h[0] == 2.0 ** (np.floor(np.log2(4e-9)) - 24)


def test_sampler_grid_refuses_a_band_that_fills_the_grid_naming_the_column():
    a = 2.0**60  # grid step 256 at this magnitude
    d = np.array([256.0, 200.0])
    lows = np.array([a, a])
    highs = np.array([a + 512.0, a + 256.0])  # doubles 256 apart here
    # column 0: D = 1 with one point beside; column 1: D = 1 with none
    h, ja, jb, D = sampler_grid(d[:1], lows[:1], highs[:1])
    assert (h[0], D[0], jb[0] - ja[0] - D[0]) == (256.0, 1, 1)
    with pytest.raises(
        ValueError, match=r"^secure=True cannot place a grid for column 1:"
    ):
        sampler_grid(d, lows, highs)


def test_check_safe_grid_names_the_column_past_2_to_53_not_one_at_it():
    grid = (
        np.ones(3),
        np.array([-(2**53) + 5, 1000, 0], dtype=np.int64),
        np.array([10, 2000, 2**53 - 3], dtype=np.int64),
        np.array([5, 5, 5], dtype=np.int64),
    )
    with pytest.raises(ValueError, match="column 2:"):
        check_safe_grid(grid)


def test_sampler_grid_near_the_smallest_doubles_keeps_indices_exact():
    # bounds of about 1e-300 a hair apart: the magnitude, not the room,
    # sets the step, so that every index stays below 2**52
    a = 1e-300
    b = a + 1e-310
    h, _, jb, D = sampler_grid(np.array([5e-311]), np.array([a]), np.array([b]))
    assert h[0] == 2.0**-1047
    assert jb[0] < 2**52
    assert D[0] == np.rint(5e-311 / 2.0**-1047)
