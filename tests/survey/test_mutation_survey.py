"""Exact checks of the survey's answer checks, body parsing and ledger.

Each test pins a documented behaviour with a small exact case: the output
space of each kind of question (grid, range, bands, admissible subsets,
cells), the refusal messages (the question named, never the value sent),
the body's JSON rules (no NaN or Infinity, no repeated key, no extra
field), and the lifetime budget of the ledger.
``benchmarks/_mutation_specs_survey.py`` lists the mutants of the survey
modules these tests kill.
"""

from __future__ import annotations

import json
import math
import re
from fractions import Fraction as F

import numpy as np
import pytest

from skprivate import LaplaceLDP
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.survey._server import PayloadError, _Checker, _parse_int
from skprivate.survey._spec import (
    AnswerError,
    admissible_subsets,
    check_answer,
    check_declared,
    json_type,
    subset_disclosure,
)
from skprivate.survey._spec_frequency import (
    _bit_law,
    _log_ratio,
    check_declared_categories,
    check_frequency_spec,
    frequency_disclosure,
    frequency_law,
    joint_epsilon,
    later_wave_epsilon,
)

NAMES = ["age", "smoker_years", "race", "hours", "education", "commute"]


def _valid(survey) -> dict:
    values = {
        "age": [37.0],
        "smoker_years": [3.0],
        "race": ["Black"],
        "hours": [40.0],
        "education": [12.0],
        "commute": [25.0],
    }
    spec = survey.respondent_spec()
    return survey.simulate_answers([spec], values, random_state=0)[0]


def _refusal(survey, body: bytes) -> tuple[int, str]:
    with pytest.raises(PayloadError) as info:
        _Checker(survey).parse(body)
    assert str(info.value) == info.value.message
    return info.value.status, info.value.message


# -- the body --------------------------------------------------------------------
@pytest.mark.parametrize("constant", ["NaN", "Infinity", "-Infinity"])
def test_json_constants_are_a_400_naming_the_constant(survey, constant):
    body = json.dumps({"answers": {**_valid(survey), "hours": "__c__"}})
    body = body.replace('"__c__"', constant).encode()
    assert _refusal(survey, body) == (
        400,
        f"malformed JSON: {constant} is not a number in JSON.",
    )


@pytest.mark.parametrize("where", ["top", "answers"])
def test_a_repeated_key_is_a_400(survey, where):
    answers = json.dumps(_valid(survey))
    if where == "top":
        body = '{"answers": ' + answers + ', "answers": ' + answers + "}"
    else:
        body = '{"answers": ' + answers[:-1] + ', "hours": 40.0}}'
    assert _refusal(survey, body.encode()) == (
        400,
        "malformed JSON: an object repeats a key.",
    )


def test_bodies_that_are_not_json_are_a_400(survey):
    status, message = _refusal(survey, b"\xff\xfe{}")
    assert status == 400 and message.startswith("malformed JSON: ")
    status, message = _refusal(survey, b"[" * 100_000)
    assert status == 400 and message.startswith("malformed JSON: ")
    status, message = _refusal(survey, b'{"answers": ')
    assert status == 400 and message.startswith("malformed JSON: ")


SHAPE = 'the body must be a JSON object {"answers": {...}} and nothing else'


def test_the_shape_of_the_body_is_named_exactly(survey):
    assert _refusal(survey, b"[1, 2]") == (422, f"{SHAPE}; got an array.")
    assert _refusal(survey, b"3") == (422, f"{SHAPE}; got a number.")
    assert _refusal(survey, b"{}") == (
        422,
        f'the field "answers" is missing: {SHAPE}.',
    )
    assert _refusal(survey, b'{"answers": [1]}') == (
        422,
        '"answers" must be an object: question -> answer.',
    )
    long = "x" * 80
    body = json.dumps({"answers": _valid(survey), "b": 1, long: 2, "c": 3})
    assert _refusal(survey, body.encode()) == (
        422,
        f"unexpected field 'b' in the body (and 2 more): {SHAPE}.",
    )
    body = json.dumps({"answers": _valid(survey), long: 2})
    assert _refusal(survey, body.encode()) == (
        422,
        f"unexpected field {'x' * 64!r} in the body: {SHAPE}.",
    )


def test_unknown_and_missing_questions_are_named(survey):
    answers = _valid(survey)
    for extra in ("zz", "aa", "y" * 70):
        body = json.dumps({"answers": {**answers, extra: 1, "zzz": 2}})
        first = min(extra, "zzz")[:64]
        assert _refusal(survey, body.encode()) == (
            422,
            f"unknown question {first!r}.",
        )
    for gone in (["race", "commute"], ["commute", "hours"]):
        kept = {k: v for k, v in answers.items() if k not in gone}
        first = next(n for n in NAMES if n in gone)
        assert _refusal(survey, json.dumps({"answers": kept}).encode()) == (
            422,
            f"question {first!r} is not answered.",
        )


def test_every_answer_is_checked_and_returned_as_checked(survey):
    answers = _valid(survey)
    answers["hours"] = 40  # an integer on the grid comes back as a float
    checked = _Checker(survey).parse(json.dumps({"answers": answers}).encode())
    assert list(checked) == NAMES
    assert checked["hours"] == 40.0 and isinstance(checked["hours"], float)
    assert checked == answers
    # the last question is checked too, with its own message
    for name, bad, text in [
        ("commute", [25.0], "answer to 'commute' must be a list of 2 numbers."),
        ("age", 3, "answer to 'age' must be the index of the chosen cell"),
        ("race", [1, 0, 0, 0, 0], "answer to 'race' is a subset its design never"),
    ]:
        body = json.dumps({"answers": {**answers, name: bad}}).encode()
        status, message = _refusal(survey, body)
        assert status == 422 and message.startswith(text)


def test_a_subset_question_is_checked_against_its_designs_subsets(survey):
    checker = _Checker(survey)
    assert set(checker.subsets) == {"race"}
    # SubsetUniform on 5 categories reports subsets of size 2 or 3
    assert sorted(bin(m).count("1") for m in checker.subsets["race"]) == (
        [2] * 10 + [3] * 10
    )


def test_integers_of_up_to_400_digits_parse_exactly_and_longer_ones_as_infinities():
    assert _parse_int("9" * 400) == int("9" * 400)
    assert _parse_int("-" + "9" * 399) == -int("9" * 399)
    assert _parse_int("1" * 401) == float("inf")
    assert _parse_int("-" + "1" * 400) == float("-inf")
    assert _parse_int("-" + "1" * 401) == float("-inf")


# -- the anchors -----------------------------------------------------------------
def test_a_cell_the_anchors_leave_empty_is_refused(survey):
    checker = _Checker(survey)
    answers = {"age": 1, "smoker_years": 0, "hours": 1.0}
    checker.check_anchors(answers, {"age": [30.0, 50.0], "smoker_years": [4.0]})
    # two equal anchors leave the middle cell empty
    with pytest.raises(
        AnswerError,
        match=re.escape(
            "answer to 'age' picks a cell that this respondent's anchors leave empty."
        ),
    ):
        checker.check_anchors(answers, {"age": [30.0, 30.0], "smoker_years": [4.0]})
    # the outer cells are never empty
    for cell in (0, 2):
        checker.check_anchors(
            {**answers, "age": cell}, {"age": [30.0, 30.0], "smoker_years": [4.0]}
        )
    checker.check_anchors(
        {**answers, "smoker_years": 1}, {"age": [1.0, 2.0], "smoker_years": [4.0]}
    )
    with pytest.raises(AnswerError, match="answer to 'smoker_years' picks"):
        checker.check_anchors(
            {**answers, "age": 0, "smoker_years": 1},
            {"age": [1.0, 2.0], "smoker_years": [float("inf")]},
        )


# -- the answer checks -----------------------------------------------------------
def _refused(spec: dict, value, message: str, subsets=None) -> None:
    with pytest.raises(AnswerError) as info:
        check_answer("q", spec, value, subsets)
    assert str(info.value) == message


@pytest.mark.parametrize(
    ("value", "name"),
    [
        (None, "null"),
        (True, "a boolean"),
        (False, "a boolean"),
        (3, "a number"),
        (2.5, "a number"),
        ("3", "a string"),
        ([3], "an array"),
        ({"v": 3}, "an object"),
        ((3,), "tuple"),
    ],
)
def test_json_type_names_the_type_never_the_value(value, name):
    assert json_type(value) == name


LAPLACE = {"kind": "laplace", "step": 0.5, "k_low": 0, "k_high": 4, "margin": 2}


def test_a_laplace_answer_is_a_grid_point_within_the_margins():
    # outputs: multiples of 0.5 in [(0 - 2) * 0.5, (4 + 2) * 0.5] = [-1, 3]
    for v in (-1.0, -0.5, 0.0, 1.5, 3.0, 2):
        assert check_answer("q", LAPLACE, v) == v
        assert isinstance(check_answer("q", LAPLACE, v), float)
    outside = (
        "answer to 'q' lies outside the output range of its mechanism [-1.0, 3.0]."
    )
    for v in (-1.5, 3.5, 1e300, -1e300):
        _refused(LAPLACE, v, outside)
    off = "answer to 'q' is not on the public output grid of its mechanism " + (
        "(multiples of 0.5)."
    )
    for v in (0.25, 2.75, 5e-324):
        _refused(LAPLACE, v, off)
    # a multiple whose quotient rounds to an integer is still off the grid
    # (0.9 / 0.3 == 3.0, but 3 * 0.3 == 0.8999999999999999)
    _refused(
        {**LAPLACE, "step": 0.3},
        0.9,
        "answer to 'q' is not on the public output grid of its mechanism "
        "(multiples of 0.3).",
    )


def test_a_number_is_a_finite_json_number():
    for value, got in [("40", "a string"), (True, "a boolean"), (None, "null")]:
        _refused(LAPLACE, value, f"answer to 'q' must be a number; got {got}.")
    finite = (
        "answer to 'q' must be a finite number within the range of a double "
        "(about 1.8e308 in magnitude)."
    )
    for value in (10**400, -(10**400), float("inf"), float("-inf"), float("nan")):
        _refused(LAPLACE, value, finite)


SQUARE = {
    "kind": "square_wave",
    "low": 1.0,
    "step": 0.25,
    "n_cells": 8,
    "half_cells": 2,
}


def test_a_square_wave_answer_is_one_of_its_cells():
    # outputs: 1 + j / 4 for j in [-2, 10], i.e. 0.5 .. 3.5
    outputs = [1.0 + j * 0.25 for j in range(-2, 11)]
    for v in outputs:
        assert check_answer("q", SQUARE, v) == v
    refused = (
        "answer to 'q' is not an output of its Square Wave mechanism: outputs are "
        "1.0 + j * 0.25 for integers j in [-2, 10]."
    )
    for v in (0.25, 3.75, 1.1, 1.125, 1e308, -1e308, 1.7e308):
        _refused(SQUARE, v, refused)
    # the quotient overflows to infinity: refused, not an error
    _refused({**SQUARE, "step": 1e-300}, 1e300, refused.replace("0.25", "1e-300"))


def test_a_square_wave_answer_is_matched_exactly_not_by_the_nearest_cell():
    # with a step that is not a power of two, low + j * step is the output;
    # a value one ulp away is refused
    spec = {**SQUARE, "step": 0.1, "low": 0.0, "n_cells": 30}
    import math

    for j in (-2, 3, 7, 31, 32):
        v = 0.0 + float(j) * 0.1
        assert check_answer("q", spec, v) == v
        with pytest.raises(AnswerError):
            check_answer("q", spec, math.nextafter(v, math.inf))
    with pytest.raises(AnswerError):
        check_answer("q", spec, 33 * 0.1)
    with pytest.raises(AnswerError):
        check_answer("q", spec, -3 * 0.1)


RVNS = {
    "kind": "rvns",
    "k": 2,
    "step": 0.5,
    "band": 2,
    "d": 1.0,
    "report_low": -2,
    "report_high": 6,
}


def test_an_rvns_answer_is_k_reports_on_the_grid_leaving_a_band_free():
    # reports: multiples of 0.5 in [-1, 3] (indices -2 .. 6); band D + 1 = 3
    assert check_answer("q", RVNS, [-1.0, -0.5]) == [-1.0, -0.5]
    assert check_answer("q", RVNS, [3.0, 3]) == [3.0, 3.0]
    assert check_answer("q", RVNS, [-1.0, 3.0]) == [-1.0, 3.0]
    # free: -2 .. 0 (three points) on the left
    assert check_answer("q", RVNS, [0.5, 3.0]) == [0.5, 3.0]
    # free: 3 .. 5 (indices) between the reports
    assert check_answer("q", RVNS, [1.0, 3.0]) == [1.0, 3.0]
    # free: -2 -1 and 1 2 and 4 5 6 after 0 and 3: the last run is the band
    assert check_answer("q", RVNS, [0.0, 1.5]) == [0.0, 1.5]
    no_band = (
        "answer to 'q' cannot come from its mechanism: the reports leave no band "
        "of width 1.0 free, and every report avoids one."
    )
    # free: -2 -1, 1 2, 4 5 6 minus 6: runs of two at most
    _refused({**RVNS, "k": 3}, [0.0, 1.5, 3.0], no_band)
    _refused({**RVNS, "k": 3}, [-0.5, 1.0, 2.5], no_band)
    # free: -2, 0 1, 3, 5 6: two points at the top of the range
    _refused({**RVNS, "k": 3}, [-0.5, 1.0, 2.0], no_band)
    # free: -2 .. 0, 2, 4, 6: the band is the bottom of the range only
    assert check_answer("q", {**RVNS, "k": 3}, [0.5, 1.5, 2.5]) == [0.5, 1.5, 2.5]
    # free: 0, 2, 4 .. 6: the top of the range only
    assert check_answer("q", {**RVNS, "k": 3}, [-0.5, 0.5, 1.5]) == [-0.5, 0.5, 1.5]
    length = "answer to 'q' must be a list of 2 numbers."
    for value in ([1.0], [1.0, 2.0, 2.5], (1.0, 2.0), 1.0, "1,2"):
        _refused(RVNS, value, length)
    outside = (
        "answer to 'q' holds a number that is not a report of its mechanism: "
        "reports are multiples of 0.5 in [-1.0, 3.0]."
    )
    for value in ([-1.5, 3.0], [-1.0, 3.5], [0.25, 3.0], [0.0, 5e-324]):
        _refused(RVNS, value, outside)
    _refused(RVNS, [0.0, "1"], "answer to 'q' must be a number; got a string.")


# -- what a subset report discloses --------------------------------------------
def _uniform(p, sizes, alpha=None):
    return {
        "p": p,
        "design": "uniform",
        "sizes": sizes,
        "dummies": alpha is not None,
        "alpha": alpha,
    }


def _listed(design, subsets, weights, alpha=None):
    return {
        "p": len(subsets[0]),
        "design": design,
        "subsets": subsets,
        "weights": [str(w) for w in weights],
        "total": str(sum(weights)),
        "dummies": alpha is not None,
        "alpha": alpha,
    }


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        # p = 4, sizes 1 .. 3: 14 subsets, 7 hold x, {x} and its complement
        # one each: P(x in A) = 1 - 2a + 2a 7/14, P(A = {x}) = (1 - 2a) 2/14
        # + 2a / 14 with a = 1/10
        (_uniform(4, [1, 3], "1/10"), (F(9, 10), F(9, 70))),
        (_uniform(4, [1, 3]), (F(1), F(1, 7))),
        # the alpha of a spec without dummies is not read
        ({**_uniform(4, [1, 3], "1/10"), "dummies": False}, (F(1), F(1, 7))),
        (_uniform(4, [2, 2], "1/4"), (F(1, 2) + F(1, 2) * F(3, 6), F(0))),
        (_uniform(5, [2, 3]), (F(1), F(0))),
        (
            _uniform(4, [1, 1], "1/4"),
            (F(1, 2) + F(1, 2) * F(1, 4), F(1, 2) * F(1, 4) + F(1, 2) * F(1, 4)),
        ),
        (_uniform(4, [3, 3], "1/4"), (F(1, 2) + F(1, 2) * F(3, 4), F(1, 2) * F(1, 4))),
        # {0}: 1/6, {1, 2}: 1/6, {0, 1}: 3/6, {2}: 1/6 (a = 1/4):
        # x = 0: held 1/2 + 1/2 (4/6), alone 1/2 (2/6) + 1/2 (1/6)
        # x = 1: held 1/2 + 1/2 (4/6), alone 0
        # x = 2: held 1/2 + 1/2 (2/6), alone 1/2 (4/6) + 1/2 (1/6)
        (
            _listed(
                "independent",
                [[1, 0, 0], [0, 1, 1], [1, 1, 0], [0, 0, 1]],
                [1, 1, 3, 1],
                "1/4",
            ),
            (F(2, 3), F(5, 12)),
        ),
        (
            _listed(
                "independent",
                [[1, 0, 0], [0, 1, 1], [1, 1, 0], [0, 0, 1]],
                [1, 1, 3, 1],
            ),
            (F(1), F(2, 3)),
        ),
        # a conditional design: every report holds x; {1} weighs 2/6
        (
            _listed("conditional", [[1, 0, 0], [0, 1, 0], [1, 1, 1]], [1, 2, 3]),
            (F(1), F(1, 3)),
        ),
        (
            _listed("conditional", [[1, 0, 0], [0, 1, 0], [1, 1, 1]], [1, 2, 3], "1/4"),
            (F(1), F(1, 3)),
        ),
    ],
)
def test_subset_disclosure_is_exact(spec, expected):
    assert subset_disclosure(spec) == expected


# -- subset and interval answers ---------------------------------------------------
DUMMIES = {
    "kind": "subset",
    "p": 3,
    "n_outputs": 5,
    "dummies": True,
    "design": "uniform",
    "sizes": [1, 2],
}


def test_a_subset_answer_with_dummies_sets_exactly_one_dummy():
    assert check_answer("q", DUMMIES, [1, 0, 0, 1, 0]) == [1, 0, 0, 1, 0]
    assert check_answer("q", DUMMIES, [1, 1, 0, 0, 1]) == [1, 1, 0, 0, 1]
    shape = (
        "answer to 'q' must be a list of 5 integers 0 or 1 (one per category, "
        "then the two dummy categories)."
    )
    for value in (
        [1, 0, 0, 1],
        [1, 0, 0, 1, 0, 0],
        [1, 0, 0, 1, 2],
        [1, 0, 0, 1.0, 0],
        [True, 0, 0, 1, 0],
        "10010",
        None,
    ):
        _refused(DUMMIES, value, shape)
    one = "answer to 'q' must set exactly one of its two dummy categories."
    for dummies in ([0, 0], [1, 1]):
        _refused(DUMMIES, [1, 0, 0, *dummies], one)
    for bits in ([0, 0, 0], [1, 1, 1]):
        _refused(
            DUMMIES,
            [*bits, 1, 0],
            "answer to 'q' is a subset its design never reports "
            f"(size {sum(bits)} of 3).",
        )


def test_a_subset_answer_without_dummies_is_one_bit_per_category():
    spec = {**DUMMIES, "n_outputs": 3, "dummies": False}
    assert check_answer("q", spec, [0, 1, 0]) == [0, 1, 0]
    _refused(
        spec,
        [1, 0, 0, 1, 0],
        "answer to 'q' must be a list of 3 integers 0 or 1 (one per category).",
    )


def test_a_listed_design_admits_its_subsets_only():
    spec = {
        "kind": "subset",
        "p": 4,
        "n_outputs": 4,
        "dummies": False,
        "design": "independent",
    }
    # {0, 1} = 0b0011 and {2, 3} = 0b1100
    subsets = frozenset({0b0011, 0b1100})
    assert check_answer("q", spec, [1, 1, 0, 0], subsets) == [1, 1, 0, 0]
    assert check_answer("q", spec, [0, 0, 1, 1], subsets) == [0, 0, 1, 1]
    for bits in ([1, 0, 1, 0], [0, 1, 1, 0], [1, 0, 0, 0]):
        _refused(
            spec,
            bits,
            "answer to 'q' is a subset its design never reports "
            f"(size {sum(bits)} of 4).",
            subsets,
        )
    # a uniform design decides by size whatever the listed subsets
    uniform = {**spec, "design": "uniform", "sizes": [2, 2]}
    assert check_answer("q", uniform, [1, 0, 1, 0], subsets) == [1, 0, 1, 0]
    _refused(
        uniform,
        [1, 1, 1, 0],
        "answer to 'q' is a subset its design never reports (size 3 of 4).",
        subsets,
    )
    # without listed subsets: by size, sizes 2 .. p - 2 when the spec has none
    bare = {
        "kind": "subset",
        "p": 6,
        "n_outputs": 6,
        "dummies": False,
        "design": "uniform",
    }
    for size in (2, 3, 4):
        bits = [1] * size + [0] * (6 - size)
        assert check_answer("q", bare, bits) == bits
    for size in (0, 1, 5, 6):
        bits = [1] * size + [0] * (6 - size)
        _refused(
            bare,
            bits,
            f"answer to 'q' is a subset its design never reports (size {size} of 6).",
        )
    independent = {**bare, "design": "independent"}
    assert check_answer("q", independent, [1, 1, 0, 0, 0, 0]) == [1, 1, 0, 0, 0, 0]
    _refused(
        independent,
        [1, 0, 0, 0, 0, 0],
        "answer to 'q' is a subset its design never reports (size 1 of 6).",
    )


def test_admissible_subsets_are_the_designs_positive_ones():
    from skprivate.subset import SubsetDesign

    assert admissible_subsets(SubsetDesign.uniform(21)) is None
    design = SubsetDesign.conditional(
        [[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 1]], [0.5, 0.5, 0.5, 0.0]
    )
    assert admissible_subsets(design) == frozenset({0b011, 0b110, 0b101})
    assert all(isinstance(m, int) for m in admissible_subsets(design))
    # a design that stores a subset of weight 0 (built directly) never
    # reports it: the server refuses that answer too
    stored = SubsetDesign(
        3,
        "conditional",
        np.array([0b011, 0b101, 0b110, 0b111]),
        np.array([0.5, 0.5, 0.5, 0.0]),
    )
    assert admissible_subsets(stored) == frozenset({0b011, 0b110, 0b101})


def test_an_interval_answer_is_a_cell_index():
    spec = {"kind": "interval", "n_anchors": 2}
    for cell in (0, 1, 2):
        assert check_answer("q", spec, cell) == cell
    message = (
        "answer to 'q' must be the index of the chosen cell, an integer from 0 to "
        "2 (cell i lies between the i-th and (i+1)-th anchors)."
    )
    for value in (-1, 3, 1.0, True, False, "1", None, [1]):
        _refused(spec, value, message)


def test_an_unknown_kind_is_refused_by_name():
    _refused({"kind": "poll"}, 1, "question 'q' has an unknown kind 'poll'.")


# -- declared bounds and categories -------------------------------------------------
BOUNDS_REFUSED = (
    "declare `bounds=` on LaplaceLDP: a survey question publishes its bounds in "
    "every respondent's page, and bounds read from the data (bounds=None, or a "
    "fit on data before bounds were set) are a raw minimum and maximum. Fit it "
    "with bounds=(low, high) fixed before seeing the data."
)


def _declared_refusal(privatizer) -> str:
    with pytest.raises(ValueError) as info:
        check_declared(privatizer)
    return str(info.value)


def test_bounds_read_from_data_equal_to_the_declared_ones_are_refused():
    # fitted on data whose minimum and maximum are the bounds set afterwards:
    # the fitted bounds equal the declared ones, but came from the data
    with pytest.warns(PrivacyLeakWarning, match="fitted without bounds"):
        priv = LaplaceLDP(epsilon=1.0).fit([[0.0], [10.0]])
    priv.set_params(bounds=(0.0, 10.0))
    assert _declared_refusal(priv) == BOUNDS_REFUSED
    check_declared(LaplaceLDP(epsilon=1.0, bounds=(0.0, 10.0)).fit([[3.0]]))
    check_declared(LaplaceLDP(epsilon=1.0, bounds=(0.0, 10.0)))


def test_bounds_changed_after_fit_are_refused():
    for new in [(0.0, 20.0), (-5.0, 10.0)]:
        priv = LaplaceLDP(epsilon=1.0, bounds=(0.0, 10.0)).fit([[3.0]])
        priv.set_params(bounds=new)
        assert _declared_refusal(priv) == BOUNDS_REFUSED
    # bounds that no longer fit the fitted column count: refused too
    priv = LaplaceLDP(epsilon=1.0, bounds=(0.0, 10.0)).fit([[3.0]])
    priv.set_params(bounds=[(0.0, 10.0), (0.0, 1.0)])
    assert _declared_refusal(priv) == BOUNDS_REFUSED


def test_bounds_declared_by_column_name_are_accepted():
    import pandas as pd

    frame = pd.DataFrame({"hours": [3.0]})
    check_declared(LaplaceLDP(epsilon=1.0, bounds={"hours": (0.0, 10.0)}).fit(frame))
    priv = LaplaceLDP(epsilon=1.0, bounds={"hours": (0.0, 10.0)}).fit(frame)
    priv.set_params(bounds={"hours": (0.0, 20.0)})
    assert _declared_refusal(priv) == BOUNDS_REFUSED


# -- frequency questions --------------------------------------------------------------
KRR = {"kind": "frequency", "oracle": "krr", "k": 3, "stages": [{"keep": "1/2"}]}
KRR2 = {
    "kind": "frequency",
    "oracle": "krr",
    "k": 2,
    "stages": [{"keep": "3/4"}, {"keep": "2/3"}],
}
OUE = {
    "kind": "frequency",
    "oracle": "oue",
    "k": 2,
    "stages": [{"one": "1/2", "zero": "1/4"}],
}
OUE2 = {
    "kind": "frequency",
    "oracle": "oue",
    "k": 2,
    "stages": [{"one": "1/2", "zero": "1/4"}, {"one": "3/4", "zero": "1/2"}],
}


def test_frequency_answers_are_a_code_or_k_bits():
    for code in (0, 1, 2):
        assert check_answer("q", KRR, code) == code
    for bad in (-1, 3, True, 1.0, "1", [1]):
        _refused(
            KRR,
            bad,
            "answer to 'q' must be the index of the reported category, an integer "
            "from 0 to 2.",
        )
    assert check_answer("q", OUE, [1, 0]) == [1, 0]
    assert check_answer("q", OUE, [0, 0]) == [0, 0]
    for bad in ([1], [1, 0, 0], [2, 0], [-1, 0], [True, 0], [1.0, 0], (1, 0), 1):
        _refused(
            OUE,
            bad,
            "answer to 'q' must be a list of 2 integers 0 or 1 (one per category).",
        )


def test_one_stage_laws_are_exact():
    assert frequency_law(KRR, 0) == {(0,): F(1, 2), (1,): F(1, 4), (2,): F(1, 4)}
    assert frequency_law(KRR, 2) == {(0,): F(1, 4), (1,): F(1, 4), (2,): F(1, 2)}
    # code 1: own bit 1 w.p. 1/2, the other bit 1 w.p. 1/4
    assert frequency_law(OUE, 1) == {
        ((0, 0),): F(1, 2) * F(3, 4),
        ((0, 1),): F(1, 2) * F(3, 4),
        ((1, 0),): F(1, 2) * F(1, 4),
        ((1, 1),): F(1, 2) * F(1, 4),
    }
    for spec in (KRR, OUE):
        with pytest.raises(
            ValueError, match="^a one-stage question releases one report per value.$"
        ):
            frequency_law(spec, 0, 2)


def test_two_stage_laws_share_one_kept_answer():
    # kept answer b: 0 w.p. 3/4, 1 w.p. 1/4; each wave keeps b w.p. 2/3
    keep, flip = F(2, 3), F(1, 3)
    law = frequency_law(KRR2, 0, 2)
    assert law == {
        (0, 0): F(3, 4) * keep * keep + F(1, 4) * flip * flip,
        (0, 1): F(3, 4) * keep * flip + F(1, 4) * flip * keep,
        (1, 0): F(3, 4) * keep * flip + F(1, 4) * flip * keep,
        (1, 1): F(3, 4) * flip * flip + F(1, 4) * keep * keep,
    }
    assert frequency_law(KRR2, 1, 1) == {
        (0,): F(1, 4) * keep + F(3, 4) * flip,
        (1,): F(3, 4) * keep + F(1, 4) * flip,
    }

    # unary: per bit, kept bit 1 w.p. 1/2 (own) or 1/4 (other); a wave
    # reports 1 w.p. 3/4 from a kept 1 and 1/2 from a kept 0
    def bit(p_one, reports):
        kept = {1: p_one, 0: 1 - p_one}
        wave = {1: F(3, 4), 0: F(1, 2)}
        return sum(
            kept[b] * math.prod(wave[b] if r else 1 - wave[b] for r in reports)
            for b in (0, 1)
        )

    law = frequency_law(OUE2, 0, 2)
    assert len(law) == 16
    for (w1, w2), prob in law.items():
        own = bit(F(1, 2), (w1[0], w2[0]))
        other = bit(F(1, 4), (w1[1], w2[1]))
        assert prob == own * other
    assert sum(law.values()) == 1


def test_frequency_disclosure_is_exact():
    assert frequency_disclosure(KRR) == (F(1, 2), F(1, 4), F(1, 2))
    own = F(3, 4) * F(2, 3) + F(1, 4) * F(1, 3)
    assert frequency_disclosure(KRR2) == (own, 1 - own, own)
    three = {**OUE, "k": 3}
    assert frequency_disclosure(three) == (F(1, 2), F(1, 4), F(1, 2) * F(3, 4) ** 2)
    own = F(1, 2) * F(3, 4) + F(1, 2) * F(1, 2)
    other = F(1, 4) * F(3, 4) + F(3, 4) * F(1, 2)
    assert frequency_disclosure(OUE2) == (own, other, own * (1 - other))


def test_log_ratios_are_exact_beyond_the_range_of_a_double():
    assert _log_ratio(F(3, 4), F(1, 4)) == pytest.approx(math.log(3), rel=1e-15)
    assert _log_ratio(F(1, 4), F(3, 4)) == pytest.approx(-math.log(3), rel=1e-15)
    assert _log_ratio(F(2, 3), F(5, 7)) == pytest.approx(math.log(14 / 15), rel=1e-12)
    big = F(2**2000, 3**1000)
    assert _log_ratio(big, big / 5) == pytest.approx(math.log(5), rel=1e-9)


def test_joint_epsilon_is_the_worst_log_ratio_of_the_joint_law():
    assert joint_epsilon(KRR, 1) == pytest.approx(math.log(2), rel=1e-15)
    # keep 1/4 on 3 categories: the others get 3/8 each
    assert joint_epsilon({**KRR, "stages": [{"keep": "1/4"}]}, 1) == pytest.approx(
        math.log(3 / 2), rel=1e-15
    )
    # the two-stage k-RR over two waves, by the law above
    law0, law1 = frequency_law(KRR2, 0, 2), frequency_law(KRR2, 1, 2)
    worst = max(abs(math.log(law0[r] / law1[r])) for r in law0)
    assert joint_epsilon(KRR2, 2) == pytest.approx(worst, rel=1e-12)
    # unary: log((1/2) / (1/4)) up, log((3/4) / (1/2)) down
    assert joint_epsilon(OUE, 1) == pytest.approx(math.log(3), rel=1e-15)
    assert joint_epsilon({**OUE, "k": 5}, 1) == pytest.approx(math.log(3), rel=1e-15)
    own, other = _bit_law(OUE2, True, 2), _bit_law(OUE2, False, 2)
    expected = max(math.log(own[r] / other[r]) for r in own) + max(
        math.log(other[r] / own[r]) for r in own
    )
    assert joint_epsilon(OUE2, 2) == pytest.approx(expected, rel=1e-12)


def test_joint_epsilon_refuses_more_than_2_to_the_20_sequences():
    with pytest.raises(
        ValueError, match=re.escape("2**21 report sequences are too many to enumerate.")
    ):
        joint_epsilon(KRR2, 21)
    # 2**20 sequences are allowed (the one-stage law then refuses 20 waves)
    with pytest.raises(ValueError, match="one-stage question"):
        joint_epsilon({**KRR2, "stages": KRR2["stages"][:1]}, 20)


def test_later_wave_epsilon_bounds_the_instantaneous_stage():
    # k-RR: log(keep / ((1 - keep) / (k - 1))) of the last stage
    assert later_wave_epsilon(KRR2) == pytest.approx(math.log(2), rel=1e-15)
    three = {**KRR2, "k": 3}
    assert later_wave_epsilon(three) == pytest.approx(math.log(4), rel=1e-15)
    assert later_wave_epsilon({**three, "k": 5}) == pytest.approx(
        math.log(8), rel=1e-15
    )
    # unary: k times the larger of log(one / zero), log((1 - zero) / (1 - one))
    assert later_wave_epsilon(OUE2) == pytest.approx(2 * math.log(2), rel=1e-15)
    flat = {**OUE2, "k": 3, "stages": [{}, {"one": "1/2", "zero": "3/8"}]}
    assert later_wave_epsilon(flat) == pytest.approx(3 * math.log(4 / 3), rel=1e-15)


CATEGORIES_REFUSED = (
    "declare `categories=` on GeneralizedRandomizedResponse: a survey question "
    "shows every category in every respondent's page, and categories read from "
    "the data (categories='auto') include values held by a single respondent. "
    "Fit it with categories=[[...]] listed before seeing the data."
)
OTHER_CATEGORIES = (
    "GeneralizedRandomizedResponse was fitted with other categories than it "
    "declares; fit it again with categories=[[...]] declared."
)


def test_frequency_categories_must_be_the_declared_ones():
    from skprivate.frequency import GeneralizedRandomizedResponse as GRR

    with pytest.raises(ValueError) as info:
        check_declared_categories(GRR(epsilon=1.0))
    assert str(info.value) == CATEGORIES_REFUSED
    check_declared_categories(GRR(epsilon=1.0, categories=[["a", "b"]]))
    check_declared_categories(GRR(epsilon=1.0, categories=[["a", "b"]]).fit([["a"]]))
    for other in (
        [["a", "c"]],
        [["a", "b", "c"]],
        [["b", "a"]],
        [["a", "b"], ["c", "d"]],
    ):
        priv = GRR(epsilon=1.0, categories=[["a", "b"]]).fit([["a"]])
        priv.set_params(categories=other)
        with pytest.raises(ValueError) as info:
            check_declared_categories(priv)
        assert str(info.value) == OTHER_CATEGORIES


SUBSET_REFUSED = (
    "declare `categories=` on SubsetUniform: a survey question shows every "
    "category in every respondent's page, and categories read from the data "
    "(categories='auto', or a fit on data before categories were set) include "
    "values held by a single respondent. Fit it with categories=[[...]] listed "
    "before seeing the data."
)


def test_subset_categories_must_be_the_declared_ones():
    from skprivate.subset import SubsetUniform

    cats = [["a", "b", "c", "d"]]
    check_declared(SubsetUniform(categories=cats))
    check_declared(SubsetUniform(categories=cats).fit([["a"]]))
    assert _declared_refusal(SubsetUniform()) == SUBSET_REFUSED
    for other in ([["a", "b", "c", "e"]], [["a", "b", "c", "d"], ["x", "y", "z", "w"]]):
        priv = SubsetUniform(categories=cats).fit([["a"]])
        priv.set_params(categories=other)
        assert _declared_refusal(priv) == SUBSET_REFUSED


# -- the check of the anchors in any question order --------------------------------
def test_anchors_are_checked_after_questions_of_other_kinds():
    from skprivate import IntervalCaseI
    from skprivate.survey import Question, Questionnaire

    survey = Questionnaire(
        [
            Question(
                "hours", "Hours?", LaplaceLDP(epsilon=1.0, bounds=(0, 10)).fit([[0.0]])
            ),
            Question(
                "years",
                "Years?",
                IntervalCaseI(anchor_loc=10.0, anchor_scale=5.0).fit([[0.0]]),
            ),
        ]
    )
    checker = _Checker(survey)
    assert checker.subsets == {}
    checker.check_anchors({"hours": 1.0, "years": 1}, {"years": [4.0]})
    with pytest.raises(AnswerError, match="answer to 'years' picks a cell"):
        checker.check_anchors({"hours": 1.0, "years": 1}, {"years": [float("inf")]})


# -- the ledger ---------------------------------------------------------------------
def _one_question_store(tmp_path, n=3):
    from skprivate.survey import Question, Questionnaire, issue_tokens
    from skprivate.survey._store import SurveyStore

    survey = Questionnaire(
        [
            Question(
                "hours", "Hours?", LaplaceLDP(epsilon=1.0, bounds=(0, 10)).fit([[0.0]])
            )
        ]
    )
    database = tmp_path / "s.db"
    tokens = issue_tokens(survey, database, n)
    return SurveyStore(database), tokens


CHARGES = {"hours": (1.0, 0.5), "note": None}


def _budget_message(wave, total, budget):
    return (
        f"budget: wave {wave} would take the privacy loss released by this link to "
        f"epsilon {total}, past the survey's lifetime budget lifetime_epsilon="
        f"{budget}; nothing was stored."
    )


def test_the_ledger_charges_the_first_wave_then_the_later_ones(tmp_path):
    from skprivate.survey._store import hash_token

    store, (t0, t1, t2) = _one_question_store(tmp_path)
    try:
        opts = {"charges": CHARGES, "budget": 1.5}
        a = {"hours": 1.0}
        assert store.store_batch(
            [(t0, a), (t0, a), ("no-such-token", a), (t1, a)], wave=1, **opts
        ) == ["stored", "used", "unknown", "stored"]
        # exactly the budget: 1.0 + 0.5
        assert store.store_batch([(t0, a)], wave=2, **opts) == ["stored"]
        assert store.store_batch([(t0, a)], wave=3, **opts) == [
            _budget_message(3, 2, 1.5)
        ]
        assert store.lookup(t0)["spent"] == 1.5
        assert store.lookup(t1)["spent"] == 1.0
        assert store.lookup(t2)["spent"] == 0.0
        h0, h1 = hash_token(t0), hash_token(t1)
        assert sorted(store.ledger_rows(), key=str) == sorted(
            [
                (h0, 1, "hours", 1.0),
                (h0, 1, "note", None),
                (h1, 1, "hours", 1.0),
                (h1, 1, "note", None),
                (h0, 2, "hours", 0.5),
                (h0, 2, "note", None),
            ],
            key=str,
        )
        # a first wave past the budget is refused too, and stores nothing
        assert store.store_batch([(t2, a)], wave=2, charges=CHARGES, budget=0.5) == [
            _budget_message(2, 1, 0.5)
        ]
        assert store.lookup(t2)["last_wave"] == 0
        assert [h for h, w, _, _ in store.ledger_rows()].count(hash_token(t2)) == 0
    finally:
        store.close()


def test_the_budget_allows_the_rounding_of_a_sum_and_nothing_more(tmp_path):
    store, (t0, t1, t2) = _one_question_store(tmp_path)
    try:
        a = {"hours": 1.0}
        charges = {"hours": (1.0, 1.0)}
        # within a relative 1e-9 of the budget: stored
        assert store.store_batch(
            [(t0, a)], wave=1, charges=charges, budget=1.0 - 1e-10
        ) == ["stored"]
        (outcome,) = store.store_batch(
            [(t1, a)], wave=1, charges=charges, budget=1.0 - 1e-8
        )
        assert outcome.startswith("budget: wave 1 would take")
        # without a budget nothing is refused, and the ledger still charges
        assert store.store_batch([(t1, a)], wave=1, charges=charges) == ["stored"]
        assert store.store_batch([(t1, a)], wave=2, charges=charges) == ["stored"]
        assert store.lookup(t1)["spent"] == 2.0
        # no charges: no ledger rows, no refusal
        assert store.store_batch([(t2, a)], wave=1, budget=0.0) == ["stored"]
        assert store.lookup(t2)["spent"] == 0.0
    finally:
        store.close()


def test_a_wave_answered_is_closed_and_a_refused_answer_keeps_the_link(tmp_path):
    store, (t0, t1, _) = _one_question_store(tmp_path)
    try:
        a = {"hours": 2.0}

        def refuse(answers, anchors):
            assert anchors == {}
            raise ValueError("answer to 'hours' is off")

        assert store.store_batch([(t0, a)], refuse, wave=2) == [
            "invalid: answer to 'hours' is off"
        ]
        assert store.lookup(t0)["last_wave"] == 0
        assert store.store_batch([(t0, a)], wave=2) == ["stored"]
        assert store.store_batch([(t0, a), (t1, a)], wave=2) == ["used", "stored"]
        assert store.store_batch([(t0, a)], wave=1) == ["used"]
        assert store.store_batch([(t0, a)], wave=3) == ["stored"]
        assert store.lookup(t0)["last_wave"] == 3
        assert [(w, ans) for _, w, ans, _ in store.wave_rows()] == [
            (2, a),
            (2, a),
            (3, a),
        ]
    finally:
        store.close()


def test_the_checker_passes_a_listed_design_its_subsets():
    from skprivate.subset import SubsetDesign, SubsetMechanism
    from skprivate.survey import Question, Questionnaire

    ring = [
        [1, 1, 0, 0, 0],
        [0, 1, 1, 0, 0],
        [0, 0, 1, 1, 0],
        [0, 0, 0, 1, 1],
        [1, 0, 0, 0, 1],
    ]
    design = SubsetDesign.independent(ring, [0.2] * 5)
    priv = SubsetMechanism(design=design, categories=[list("abcde")]).fit([["a"]])
    survey = Questionnaire([Question("c", "Which?", priv)])
    checker = _Checker(survey)
    # the ring's pairs and their complements
    assert checker.subsets["c"] == frozenset(
        {0b00011, 0b00110, 0b01100, 0b11000, 0b10001}
        | {0b11100, 0b11001, 0b10011, 0b00111, 0b01110}
    )
    assert checker.parse(b'{"answers": {"c": [0, 1, 1, 0, 0]}}') == {
        "c": [0, 1, 1, 0, 0]
    }
    # a pair outside the ring has the right size but is never reported
    assert _refusal(survey, b'{"answers": {"c": [1, 0, 1, 0, 0]}}') == (
        422,
        "answer to 'c' is a subset its design never reports (size 2 of 5).",
    )


# -- local hashing and Hadamard response questions -----------------------------


def test_memoized_one_stage_oracles_are_refused_with_the_whole_reason():
    with pytest.raises(ValueError) as err:
        check_frequency_spec("pet", {"oracle": "olh", "memoized": True})
    assert str(err.value) == (
        "question 'pet': the 'olh' oracle has no memoized form; memoized "
        "questions take ['krr', 'oue', 'sue'] (a LongitudinalOracle), and a local "
        "hashing or Hadamard response question sends one plain report per "
        "value (memoized=False)."
    )


def test_a_one_stage_law_has_one_wave_only():
    spec = {
        "oracle": "hr",
        "k": 2,
        "order": 4,
        "stages": [{"keep": "3/4"}],
        "memoized": False,
    }
    with pytest.raises(ValueError) as err:
        frequency_law(spec, 0, waves=2)
    assert str(err.value) == "a one-stage question releases one report per value."


def test_declared_categories_of_mixed_types_are_the_fitted_ones():
    # [1, "a"] as an array without dtype=object would read ["1", "a"]: the
    # declared and fitted categories must be compared value by value.
    from skprivate.frequency import GeneralizedRandomizedResponse

    priv = GeneralizedRandomizedResponse(epsilon=1.0, categories=[[1, "a"]])
    check_declared_categories(priv.fit([[1]]))


def test_the_server_refuses_a_frequency_spec_the_page_cannot_run():
    # A questionnaire never builds a memoized local hashing spec; the
    # server checks the specs it is given all the same (a spec edited after
    # the fact), naming the question.
    from skprivate.frequency import OptimizedLocalHashing
    from skprivate.survey import Question, Questionnaire

    priv = OptimizedLocalHashing(epsilon=1.0, categories=[list("abcd")])
    survey = Questionnaire([Question("pet", "Which?", priv.fit([["a"]]))])
    _Checker(survey)  # the spec as built is accepted
    survey.questions[0].spec["memoized"] = True
    with pytest.raises(ValueError) as err:
        _Checker(survey)
    assert str(err.value).startswith(
        "question 'pet': the 'olh' oracle has no memoized form;"
    )
