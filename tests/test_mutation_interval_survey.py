"""Exact checks of the survey side of interval privacy.

Each test pins one documented behaviour of ``skprivate/interval/_survey.py``
with a small exact case: the interval each chosen cell becomes (the first
cell open below, the last open above, NaN anchors as missing ones), the
refinement that intersects a new cell with the one reported before (an
exact report stays exact, a disjoint one is refused naming its row),
disclosed exact values, each refusal naming the argument; the anchors drawn
afresh per respondent (sorted, truncated to the cells of a refinement, NaN
where a cell is exact) and ``refine`` locating each value among them.
``benchmarks/_mutation_specs_intervals.py`` (``interval_survey``) lists the
mutants these tests kill.
"""

from __future__ import annotations

import numpy as np
import pytest

from skprivate import IntervalCaseI, IntervalCaseII
from skprivate.interval import intervals_from_answers

INF = np.inf


# -- answers to intervals -----------------------------------------------------


def test_each_cell_is_the_range_between_its_anchors():
    q = [[1.0, 3.0, 5.0]] * 4 + [[-2.0, 0.5, 9.0]]
    got = intervals_from_answers(q, np.array([0, 1, 2, 3, 1]))
    np.testing.assert_array_equal(
        got, [[-INF, 1.0], [1.0, 3.0], [3.0, 5.0], [5.0, INF], [-2.0, 0.5]]
    )
    assert got.dtype == np.float64


def test_unsorted_and_missing_anchors_are_sorted_and_pushed_to_the_top():
    q = [[5.0, 1.0, np.nan], [np.nan, np.nan, 2.0]]
    got = intervals_from_answers(q, np.array([1, 1]))
    np.testing.assert_array_equal(got, [[1.0, 5.0], [2.0, INF]])


def test_answers_in_every_integer_dtype():
    for dtype in (np.int8, np.int32, np.uint16, np.int64):
        got = intervals_from_answers([[2.0], [4.0]], np.array([1, 0], dtype=dtype))
        np.testing.assert_array_equal(got, [[2.0, INF], [-INF, 4.0]])


def test_refinement_intersects_with_the_cell_reported_before():
    q = [[2.0, 6.0], [2.0, 6.0], [2.0, 6.0], [2.0, 6.0]]
    within = [[0.0, 10.0], [3.0, 4.0], [1.0, 7.0], [5.0, 5.0]]
    got = intervals_from_answers(q, np.array([0, 1, 2, 0]), within=within)
    # (-inf, 2] & (0, 10]; (2, 6] & (3, 4]; (6, inf) & (1, 7]; exact 5 stays
    np.testing.assert_array_equal(got, [[0.0, 2.0], [3.0, 4.0], [6.0, 7.0], [5.0, 5.0]])


def test_a_refinement_outside_the_cell_before_is_refused_by_row():
    q = [[2.0], [2.0], [2.0], [2.0]]
    within = [[0.0, 1.0], [3.0, 4.0], [0.0, 2.0], [2.0, 5.0]]
    answers = np.array([0, 1, 1, 0])
    with pytest.raises(ValueError) as info:
        intervals_from_answers(q, answers, within=within)
    assert str(info.value) == (
        "within does not overlap the cell chosen with the anchors at row 2 (2 "
        "such rows): a refinement must lie inside the cell reported before. "
        "Check that within and the anchors belong to the same respondents."
    )
    # touching at one end is no overlap: (-inf, 2] and (2, 5]
    with pytest.raises(ValueError, match="at row 0 \\(1 such rows\\)"):
        intervals_from_answers([[2.0]], np.array([0]), within=[[2.0, 5.0]])
    with pytest.raises(ValueError) as info:
        intervals_from_answers(q, answers, within=[[0.0, 1.0]])
    assert str(info.value) == (
        "within must have one row per respondent (4); got 1 rows."
    )


def test_disclosed_values_replace_their_cells():
    got = intervals_from_answers(
        [[1.0], [1.0], [1.0]], np.array([0, 1, 1]), values=[np.nan, 3.5, np.nan]
    )
    np.testing.assert_array_equal(got, [[-INF, 1.0], [3.5, 3.5], [1.0, INF]])
    with pytest.raises(ValueError) as info:
        intervals_from_answers([[1.0], [1.0]], np.array([0, 1]), values=[1.0])
    assert str(info.value) == "values must have shape (2,); got (1,)."


@pytest.mark.parametrize(
    "anchors, answers, message",
    [
        ([1.0, 2.0], [0, 1], "anchors must be 2-D (n_samples, n_anchors); got (2,)."),
        (
            [[1.0]],
            [0.0],
            "answers must be integer cell indices, one per row (1-D); got dtype "
            "float64 and shape (1,).",
        ),
        (
            [[1.0]],
            [[0]],
            "answers must be integer cell indices, one per row (1-D); got dtype "
            "int64 and shape (1, 1).",
        ),
        (
            [[1.0], [2.0]],
            [0],
            "anchors and answers must have one row per respondent; anchors has 2 "
            "rows and answers 1.",
        ),
        (
            np.empty((0, 2)),
            np.empty(0, dtype=int),
            "anchors has 0 rows; there are no answers to read.",
        ),
        ([[1.0, 2.0]], [3], "answers must lie in [0, 2] (the cell indices)."),
        ([[1.0, 2.0]], [-1], "answers must lie in [0, 2] (the cell indices)."),
    ],
)
def test_bad_answers_are_refused_whole(anchors, answers, message):
    with pytest.raises(ValueError) as info:
        intervals_from_answers(anchors, np.array(answers))
    assert str(info.value) == message


def test_the_last_and_first_cells_are_accepted():
    got = intervals_from_answers([[1.0, 2.0]] * 2, np.array([2, 0]))
    np.testing.assert_array_equal(got, [[2.0, INF], [-INF, 1.0]])


# -- anchors and refinement ---------------------------------------------------


def test_anchors_are_sorted_per_row_and_fresh_per_call():
    mech = IntervalCaseII(anchor_loc=0.0, anchor_scale=1.0, random_state=0).fit([[0.0]])
    q = mech.draw_anchors(400)
    assert q.shape == (400, 2)
    assert np.all(q[:, 0] <= q[:, 1])
    assert not np.all(np.diff(q[:, 0]) >= 0)
    assert not np.array_equal(q, mech.draw_anchors(400))
    # the standard normal anchors: the mean of both within 5 standard errors
    assert abs(q.mean()) < 5 / np.sqrt(800)


def test_anchors_within_cells_stay_inside_and_exact_cells_get_none():
    mech = IntervalCaseII(anchor_loc=0.0, anchor_scale=1.0, random_state=1).fit([[0.0]])
    within = np.array([[-0.5, 0.25]] * 300 + [[1.0, 1.0]] + [[-np.inf, -1.0]] * 99)
    q = mech.draw_anchors(400, within=within)
    assert q.shape == (400, 2)
    inside = q[:300]
    assert np.all((inside > -0.5) & (inside <= 0.25))
    assert np.all(inside[:, 0] <= inside[:, 1])
    assert np.isnan(q[300]).all()
    assert np.all(q[301:] <= -1.0)
    assert not np.isnan(q[301:]).any()
    with pytest.raises(ValueError) as info:
        mech.draw_anchors(3, within=within)
    assert str(info.value) == "within must have n_samples=3 rows; got 400."


def test_refine_locates_each_value_in_a_narrower_cell():
    mech = IntervalCaseI(anchor_loc=0.0, anchor_scale=2.0, random_state=2).fit([[0.0]])
    X = np.random.default_rng(0).normal(size=(500, 1))
    Z = mech.transform(X)
    R = mech.refine(Z, X)
    assert R.shape == (500, 2)
    assert np.all((R[:, 0] < X[:, 0]) & (X[:, 0] <= R[:, 1]))
    assert np.all((R[:, 0] >= Z[:, 0]) & (R[:, 1] <= Z[:, 1]))
    # a one-sided cell gets a finite end from the new anchor
    assert np.isfinite(R).all(axis=1).sum() > np.isfinite(Z).all(axis=1).sum()


def test_refine_keeps_exact_reports_and_checks_its_inputs():
    mech = IntervalCaseII(anchor_loc=0.0, anchor_scale=1.0, random_state=3).fit([[0.0]])
    X = np.array([[0.5], [-0.2], [2.0]])
    Z = np.array([[0.5, 0.5], [-1.0, 0.0], [1.0, 3.0]])
    R = mech.refine(Z, X)
    np.testing.assert_array_equal(R[0], [0.5, 0.5])
    assert -1.0 <= R[1, 0] < -0.2 <= R[1, 1] <= 0.0
    assert 1.0 <= R[2, 0] < 2.0 <= R[2, 1] <= 3.0
    with pytest.raises(ValueError) as info:
        mech.refine(Z, X + 5.0)
    assert str(info.value) == "intervals of column 0 do not contain the values of X."
    # a value at the lower end of its cell is outside it (cells are (l, u])
    with pytest.raises(ValueError, match="do not contain the values"):
        mech.refine(np.array([[-1.0, 0.0]]), np.array([[-1.0]]))
    with pytest.raises(ValueError) as info:
        mech.refine(Z[:, :1], X)
    assert str(info.value) == "intervals must have shape (3, 2); got (3, 1)."
