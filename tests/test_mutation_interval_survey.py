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


# -- names in the refusals, and the cases that tell the steps apart -----------------


@pytest.mark.parametrize(
    "call, kind, message",
    [
        (
            lambda: intervals_from_answers([["a"]], np.array([0])),
            TypeError,
            "anchors must be numeric; entry (0, 0) is a str, not a number.",
        ),
        (
            lambda: intervals_from_answers([[1.0]], np.array([0]), within=[0.0, 1.0]),
            ValueError,
            "within must have shape (n, 2) with columns [lower, upper]; got a 1-D "
            "array of length 2.",
        ),
        (
            lambda: intervals_from_answers([[1.0]], np.array([0]), values=["x"]),
            TypeError,
            "values must be numeric; entry (0,) is a str, not a number.",
        ),
        (
            # the cell above a missing anchor is empty
            lambda: intervals_from_answers([[1.0, np.nan]], np.array([2])),
            ValueError,
            "intervals has a lower bound of +inf (an empty cell) at row 0 (1 such "
            "rows).",
        ),
    ],
)
def test_refusals_name_the_argument(call, kind, message):
    with pytest.raises(kind) as info:
        call()
    assert str(info.value) == message


def test_an_exact_report_stays_exact_whichever_cell_is_chosen():
    within = [[5.0, 5.0], [5.0, 5.0]]
    got = intervals_from_answers([[6.0], [1.0]], np.array([1, 0]), within=within)
    np.testing.assert_array_equal(got, [[5.0, 5.0], [5.0, 5.0]])


def test_anchors_use_the_first_columns_law_by_default_and_each_columns_on_request():
    mech = IntervalCaseI(
        anchor_loc=[0.0, 100.0], anchor_scale=[1.0, 1.0], random_state=3
    )
    mech.fit(np.zeros((1, 2)))
    first = mech.draw_anchors(400)
    second = mech.draw_anchors(400, feature=1)
    assert abs(first.mean()) < 5 / np.sqrt(400)
    assert abs(second.mean() - 100.0) < 5 / np.sqrt(400)


def test_each_request_gets_its_own_stream_under_one_seed():
    def fresh():
        return IntervalCaseII(anchor_loc=0.0, anchor_scale=1.0, random_state=7).fit(
            [[0.0]]
        )

    np.testing.assert_array_equal(fresh().draw_anchors(6), fresh().draw_anchors(6))
    five, six = fresh().draw_anchors(5), fresh().draw_anchors(6)
    assert not np.isin(five, six).any()
    cells = np.array([[-1.0, 1.0]] * 5)
    within = fresh().draw_anchors(5, within=cells)
    assert not np.isin(within, five).any()


def test_anchors_within_cells_are_drawn_independently_per_row():
    mech = IntervalCaseI(anchor_loc=0.0, anchor_scale=1.0).fit([[0.0]])
    q = mech.draw_anchors(200, within=np.tile([[-1.0, 1.0]], (200, 1)))
    assert np.unique(q).size == 200
    with pytest.raises(ValueError) as info:
        mech.draw_anchors(2, within=[0.0, 1.0])
    assert str(info.value) == (
        "within must have shape (n, 2) with columns [lower, upper]; got a 1-D "
        "array of length 2."
    )


def test_refine_narrows_every_cell_of_every_column_with_its_own_law():
    mech = IntervalCaseI(anchor_loc=[0.0, 100.0], anchor_scale=[1.0, 1.0])
    mech.fit(np.zeros((1, 2)))
    rng = np.random.default_rng(1)
    X = np.column_stack([rng.normal(0.0, 1.0, 300), rng.normal(100.0, 1.0, 300)])
    Z = mech.transform(X)
    R = mech.refine(Z, X)
    for j in range(2):
        old, new, y = Z[:, 2 * j : 2 * j + 2], R[:, 2 * j : 2 * j + 2], X[:, j]
        assert np.all((new[:, 0] < y) & (y <= new[:, 1]))
        assert np.all((new[:, 0] >= old[:, 0]) & (new[:, 1] <= old[:, 1]))
        # one anchor inside each cell: every cell loses part of itself
        assert np.all((new[:, 0] > old[:, 0]) | (new[:, 1] < old[:, 1]))


def test_refine_keeps_a_cell_without_anchor_probability_as_it_is():
    # the anchors' law puts no mass on (-1, 1] (in floating point): no
    # anchor, nothing learnt
    mech = IntervalCaseI(anchor_loc=100.0, anchor_scale=1.0, distribution="normal").fit(
        [[100.0]]
    )
    assert mech._anchor_distribution(0).cdf(1.0) == 0.0
    R = mech.refine(np.array([[-1.0, 1.0]]), np.array([[0.5]]))
    np.testing.assert_array_equal(R, [[-1.0, 1.0]])


def test_refine_with_a_value_equal_to_an_anchor():
    # a cell so narrow that the anchors drawn in it are its ends: the value
    # at the upper end equals the anchor half the time, and a cell is
    # (lower, upper], so the value is not above that anchor
    mech = IntervalCaseI(anchor_loc=0.0, anchor_scale=1.0, random_state=0).fit([[0.0]])
    cells = np.tile([[0.0, 3e-16]], (40, 1))
    R = mech.refine(cells, np.full((40, 1), 3e-16))
    assert np.all((R[:, 0] < 3e-16) & (R[:, 1] >= 3e-16))


@pytest.mark.parametrize(
    "Z, X, message",
    [
        (
            [[1.0, 0.0]],
            [[0.5]],
            "intervals has lower > upper at row 0 (1 such rows).",
        ),
        (
            [[0.0, 1.0]],
            [[np.nan]],
            "X contains NaN at row 0, column 0; every value must be finite (a "
            "missing value is NaN).",
        ),
        (
            [[0.0, 1.0]],
            [[np.inf]],
            "X contains infinity at row 0, column 0; every value must be finite (a "
            "missing value is NaN).",
        ),
        (
            [[0.0, 1.0, 0.0, 1.0]],
            [[0.5, 0.5]],
            "X has 2 features, but IntervalCaseII is expecting 1 features as input.",
        ),
    ],
)
def test_refine_refuses_what_it_cannot_refine(Z, X, message):
    mech = IntervalCaseII(anchor_loc=0.0, anchor_scale=1.0).fit([[0.0]])
    with pytest.raises(ValueError) as info:
        mech.refine(np.array(Z), np.array(X))
    assert str(info.value) == message
    assert mech.n_features_in_ == 1


def test_refine_reads_each_columns_pair_of_ends():
    mech = IntervalCaseI(anchor_loc=[0.0, 100.0], anchor_scale=[1.0, 1.0])
    mech.fit(np.zeros((1, 2)))
    X = np.array([[0.5, 99.5]])
    with pytest.raises(ValueError) as info:
        mech.refine(np.array([[0.0, 1.0]]), X)
    assert str(info.value) == "intervals must have shape (1, 4); got (1, 2)."
    Z = np.array([[0.0, 1.0, 99.0, 100.0]])
    R = mech.refine(Z, X)
    assert 0.0 <= R[0, 0] < 0.5 <= R[0, 1] <= 1.0
    assert 99.0 <= R[0, 2] < 99.5 <= R[0, 3] <= 100.0


def test_refine_reads_the_middle_column_of_three():
    mech = IntervalCaseI(anchor_loc=[0.0, 50.0, 100.0], anchor_scale=[1.0, 1.0, 1.0])
    mech.fit(np.zeros((1, 3)))
    X = np.array([[0.5, 49.5, 99.5]])
    Z = np.array([[0.0, 1.0, 49.0, 50.0, 99.0, 100.0]])
    R = mech.refine(Z, X)
    for j in range(3):
        lo, hi = Z[0, 2 * j : 2 * j + 2]
        assert lo <= R[0, 2 * j] < X[0, j] <= R[0, 2 * j + 1] <= hi
