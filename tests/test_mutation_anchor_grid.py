"""The grid of anchors a respondent reads (``survey/_anchor_grid.py``): the
integer codes strictly inside the support, snapping, the printed text and
the refusals, each with its exact value or message.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from skprivate.survey._anchor_grid import _EXACT_CODES, AnchorGrid


@pytest.mark.parametrize(
    ("decimals", "low", "high", "k_low", "k_high"),
    [
        (0, 0.0, 120.0, 1, 119),
        (1, 0.0, 1.0, 1, 9),
        (2, -1.0, 1.0, -99, 99),
        (1, 0.05, 0.35, 1, 3),  # off-grid bounds: the codes strictly inside
        (0, -2.5, 2.5, -2, 2),
        (1, 0.1, 0.3, 2, 2),  # 0.1 is not exactly 1/10: the float decides
        (0, -np.inf, 3.0, -_EXACT_CODES, 2),
        (0, 3.0, np.inf, 4, _EXACT_CODES),
    ],
)
def test_codes_strictly_inside_the_support(decimals, low, high, k_low, k_high):
    grid = AnchorGrid(decimals, low, high, "q")
    assert (grid.k_low, grid.k_high) == (k_low, k_high)
    assert grid.scale == 10**decimals
    assert (grid.low, grid.high) == (low, high)


def test_a_support_with_no_code_inside_is_refused():
    msg = (
        "decimals=0 of question 'hours' leaves no anchor strictly inside the "
        "support of its values; show more decimals."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        AnchorGrid(0, 0.0, 1.0, "hours")
    # one code inside is enough
    grid = AnchorGrid(0, 0.0, 2.0, "hours")
    assert grid.k_low == grid.k_high == 1


def test_snap_rounds_then_clips_into_the_support():
    grid = AnchorGrid(1, 0.0, 10.0, "q")
    got = grid.snap([-3.0, 0.04, 0.06, 2.25, 2.35, 9.96, 12.0, -0.01])
    np.testing.assert_array_equal(got, [0.1, 0.1, 0.1, 2.2, 2.4, 9.9, 9.9, 0.1])
    assert got.dtype == np.float64
    grid = AnchorGrid(0, -5.0, 5.0, "q")
    got = grid.snap([-0.4, 0.4, -7.0, 3.5])
    np.testing.assert_array_equal(got, [0.0, 0.0, -4.0, 4.0])
    assert not np.signbit(got[0])  # not -0.0
    # an unbounded side does not clip
    assert AnchorGrid(0, 0.0, np.inf, "q").snap([1e9])[0] == 1e9


def test_snap_refuses_anchors_too_large_to_show_exactly():
    grid = AnchorGrid(2, -np.inf, np.inf, "big")
    msg = (
        "anchors of question 'big' are too large to show with decimals=2 exactly; "
        "show fewer decimals."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        grid.snap([1.0, 2.0**52 / 100])
    assert grid.snap([(2.0**52 - 2) / 100]).size == 1
    with pytest.raises(ValueError, match="too large"):
        grid.snap([-(2.0**52) / 100])


def test_text_prints_the_decimals_and_never_minus_zero():
    grid = AnchorGrid(2, -1.0, 1.0, "q")
    assert grid.text(0.5) == "0.50"
    assert grid.text(-0.0) == "0.00"
    assert grid.text(np.float64(-0.25)) == "-0.25"
    assert AnchorGrid(0, 0.0, 9.0, "q").text(3.0) == "3"


def test_check_returns_the_anchors_as_floats():
    grid = AnchorGrid(1, 0.0, 10.0, "q")
    got = grid.check(np.array([[0.1, 2.5], [2.5, 9.9]]))
    assert got == [0.1, 2.5, 2.5, 9.9]
    assert all(type(v) is float for v in got)


@pytest.mark.parametrize(
    ("anchors", "rule"),
    [
        ([1.0, np.nan], "finite"),
        ([1.0, np.inf], "finite"),
        ([2.0, 1.0], "sorted"),
        ([1.0, 1.25], "numbers with 1 decimals, as shown"),
        ([0.0, 1.0], "strictly inside the support of the values"),
        ([1.0, 10.0], "strictly inside the support of the values"),
    ],
)
def test_check_names_the_first_rule_broken(anchors, rule):
    grid = AnchorGrid(1, 0.0, 10.0, "sleep")
    msg = (
        f"anchors of question 'sleep' must be {rule} (draw them with "
        "Questionnaire.draw_anchors or issue_tokens)."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        grid.check(anchors)


def test_check_order_of_the_rules():
    grid = AnchorGrid(1, 0.0, 10.0, "q")
    # unsorted and off-grid: sorted is named first; off-grid and outside:
    # the decimals first
    with pytest.raises(ValueError, match="must be sorted"):
        grid.check([5.55, 1.0])
    with pytest.raises(ValueError, match="must be numbers with 1 decimals"):
        grid.check([1.0, 11.55])


def test_snap_converts_integer_anchors_before_scaling():
    # 100 * 184467440737095516 is 2**64 - 16: in int64 it would wrap to -16
    # and pass as a small anchor; as a float it is far too large to show
    grid = AnchorGrid(2, -np.inf, np.inf, "big")
    with pytest.raises(ValueError, match="too large to show with decimals=2"):
        grid.snap([184467440737095516])
    np.testing.assert_array_equal(grid.snap([3, -2]), [3.0, -2.0])
