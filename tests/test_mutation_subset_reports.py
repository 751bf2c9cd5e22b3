"""The validation of 0/1 subset reports (``subset/_reports.py``), branch by
branch: each refusal's exact message and the global row it names (a block's
offset, rows left out as unknown), the dummy columns, the rows kept and the
count of unknown rows returned.
"""

from __future__ import annotations

import re

import numpy as np
import pytest

from skprivate.subset import SubsetDesign
from skprivate.subset._reports import (
    check_reports_block,
    check_reports_shape,
    check_subset_data,
)

P5 = SubsetDesign.uniform(5)  # sizes 2 and 3 only
DUMMY = SubsetDesign.uniform(4, min_coverage=0.1)  # 4 categories + 2 dummies


def _ok5():
    return np.array([[1, 1, 0, 0, 0], [0, 1, 1, 1, 0], [0, 0, 0, 1, 1]])


def test_a_valid_block_is_returned_as_booleans_of_the_true_categories():
    A = _ok5()
    out = check_reports_block(A, P5, "A", 0)
    assert out.dtype == bool
    np.testing.assert_array_equal(out, A.astype(bool))
    A = np.array([[1, 1, 0, 0, 1, 0], [0, 1, 1, 0, 0, 1]])
    out = check_reports_block(A, DUMMY, "A", 0)
    np.testing.assert_array_equal(out, A[:, :4].astype(bool))
    assert out.shape == (2, 4)


def test_float_reports_are_accepted_and_checked_for_finiteness_with_the_offset():
    A = _ok5().astype(float)
    np.testing.assert_array_equal(check_reports_block(A, P5, "A", 0), A.astype(bool))
    A[1, 2] = np.nan
    with pytest.raises(ValueError, match=r"^Rep contains NaN at row 41, column 2"):
        check_reports_block(A, P5, "Rep", 40)


def test_integer_reports_skip_the_finiteness_check():
    # an integer block cannot hold NaN: the 0/1 test is what refuses a 2
    A = _ok5()
    A[2, 0] = 2
    msg = (
        "Rep must contain only 0 and 1 (subset indicators); row 12 holds another "
        "value, in column 0."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        check_reports_block(A, P5, "Rep", 10)


def test_a_value_other_than_0_or_1_names_the_first_bad_row_of_the_data():
    A = _ok5().astype(float)
    A[1, 4] = 0.5
    A[2, 4] = -1.0
    msg = (
        "B must contain only 0 and 1 (subset indicators); row 8 holds another "
        "value, in column 4."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        check_reports_block(A, P5, "B", 7)


def test_an_empty_subset_is_refused_naming_its_row():
    A = _ok5()
    A[1] = 0
    A[2] = 0
    with pytest.raises(
        ValueError,
        match=r"^Row 4 of A is an empty subset \(all 0\); every report must contain "
        r"the respondent's category \(an all-zero row, the report of "
        r"SubsetUniform\(handle_unknown='ignore'\) for an unknown value, has no "
        r"posterior over the categories\)\.$",
    ):
        check_reports_block(A, P5, "A", 3)


def test_a_row_with_only_dummies_is_an_empty_subset():
    A = np.array([[1, 1, 0, 0, 1, 0], [0, 0, 0, 0, 0, 1]])
    with pytest.raises(ValueError, match=r"^Row 1 of A is an empty subset"):
        check_reports_block(A, DUMMY, "A", 0)
    # left out as unknown only when it is all zero
    with pytest.raises(ValueError, match=r"^Row 1 of A is an empty subset"):
        check_reports_block(A, DUMMY, "A", 0, skip_unknown=True)


@pytest.mark.parametrize("dummies", [[0, 0], [1, 1]])
def test_a_report_needs_exactly_one_dummy(dummies):
    A = np.array([[1, 1, 0, 0, 1, 0], [0, 1, 1, 0, *dummies], [1, 0, 1, 0, *dummies]])
    msg = (
        "Row 6 of D must contain exactly one of the two dummy categories "
        "(its last two columns)."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        check_reports_block(A, DUMMY, "D", 5)


def test_an_unknown_row_needs_no_dummy_when_unknown_rows_are_skipped():
    A = np.array([[0, 0, 0, 0, 0, 0], [0, 1, 1, 0, 0, 1]])
    ind, n_unknown = check_reports_block(A, DUMMY, "A", 0, skip_unknown=True)
    assert n_unknown == 1
    np.testing.assert_array_equal(ind, [[False, True, True, False]])


def test_a_subset_the_design_never_reports_is_refused_with_its_categories():
    A = _ok5()
    A[1] = [0, 0, 1, 0, 0]  # size 1: mu = 0 under the uniform design of 5
    msg = (
        "Row 21 of A is a subset the design never reports (inconsistent with "
        "the design); every report must be one of the design's admissible "
        "subsets."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        check_reports_block(A, P5, "A", 20)
    A[1] = [1, 1, 1, 1, 0]  # size 4 = p - 1
    with pytest.raises(ValueError, match=r"^Row 21 of A is a subset the design never"):
        check_reports_block(A, P5, "A", 20)


def test_a_conditional_design_refuses_the_subsets_outside_its_list():
    design = SubsetDesign.conditional(
        [[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 1]], [0.3, 0.3, 0.3, 0.4]
    )
    ok = np.array([[1, 1, 0], [1, 1, 1]])
    np.testing.assert_array_equal(check_reports_block(ok, design, "A", 0), ok == 1)
    bad = np.array([[1, 1, 0], [0, 1, 0]])
    with pytest.raises(ValueError, match=r"^Row 1 of A is a subset the design never"):
        check_reports_block(bad, design, "A", 0)


def test_unknown_rows_are_left_out_counted_and_do_not_shift_the_named_row():
    A = np.array(
        [
            [1, 1, 0, 0, 0],
            [0, 0, 0, 0, 0],
            [0, 0, 0, 0, 0],
            [0, 1, 1, 0, 0],
            [0, 0, 0, 0, 0],
        ]
    )
    ind, n_unknown = check_reports_block(A, P5, "A", 100, skip_unknown=True)
    assert n_unknown == 3
    np.testing.assert_array_equal(ind, A[[0, 3]].astype(bool))
    A[3] = [0, 0, 0, 1, 0]
    # the block's fourth row (global 103), not the kept rows' second
    with pytest.raises(ValueError, match=r"^Row 103 of A is a subset the design never"):
        check_reports_block(A, P5, "A", 100, skip_unknown=True)
    # a bad row before any unknown row keeps its own position
    A = np.array([[0, 0, 0, 1, 0], [0, 0, 0, 0, 0], [1, 1, 0, 0, 0]])
    with pytest.raises(ValueError, match=r"^Row 100 of A is a subset the design never"):
        check_reports_block(A, P5, "A", 100, skip_unknown=True)


def test_without_skipping_the_return_is_the_array_alone():
    out = check_reports_block(_ok5(), P5, "A", 0)
    assert isinstance(out, np.ndarray)
    out = check_reports_block(_ok5(), P5, "A", 0, skip_unknown=True)
    assert isinstance(out, tuple)
    assert out[1] == 0
    np.testing.assert_array_equal(out[0], _ok5().astype(bool))


def test_the_shape_check_names_the_dimensions_and_the_columns_expected():
    with pytest.raises(
        ValueError, match=r"^A must be 2-D 0/1 indicators; got shape \(5,\)\.$"
    ):
        check_reports_shape(np.ones(5), P5, "A")
    with pytest.raises(
        ValueError,
        match=r"^R has 4 columns but the design reports 5 \(5 categories\)\.$",
    ):
        check_reports_shape(np.ones((3, 4)), P5, "R")
    with pytest.raises(
        ValueError,
        match=r"^R has 4 columns but the design reports 6 \(4 categories \+ 2 "
        r"dummies\)\.$",
    ):
        check_reports_shape(np.ones((3, 4)), DUMMY, "R")
    assert check_reports_shape(np.ones((3, 6)), DUMMY, "R") is None


def test_check_subset_data_takes_lists_and_counts_rows_from_zero():
    out = check_subset_data(_ok5().tolist(), P5)
    np.testing.assert_array_equal(out, _ok5().astype(bool))
    A = _ok5()
    A[2] = [1, 0, 0, 0, 0]
    with pytest.raises(ValueError, match=r"^Row 2 of A is a subset the design never"):
        check_subset_data(A, P5)
    with pytest.raises(ValueError, match=r"^Row 2 of Z is a subset the design never"):
        check_subset_data(A, P5, name="Z")
    with pytest.raises(ValueError, match=r"^Z has 3 columns"):
        check_subset_data(np.ones((2, 3)), P5, name="Z")
    # an all-zero row is refused here (no skipping of unknown values)
    A[2] = 0
    with pytest.raises(ValueError, match=r"^Row 2 of A is an empty subset"):
        check_subset_data(A, P5)
