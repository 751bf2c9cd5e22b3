"""Exact checks of what the survey collector hands the learners.

Each test pins one documented behaviour of ``skprivate/survey/_collect.py``
with a small exact case: the array each kind of question's answers become
(the interval of the chosen cell among the respondent's own anchors, the
report bits, codes and values, with their dtypes and widths), the column
names of ``as_frame=True``, one wave or every wave, the respondents
``read_waves`` keeps (those who answered every wave asked for, in the
order of their first answer), the tokens bound to their anchors, and the
refusals, each naming the argument.
``benchmarks/_mutation_specs_survey.py`` (``survey_collect``) lists the
mutants these tests kill.
"""

from __future__ import annotations

import hashlib

import numpy as np
import pandas as pd
import pytest

from skprivate import IntervalCaseI, LaplaceLDP, SubsetUniform
from skprivate.frequency import LongitudinalOracle
from skprivate.survey import (
    Question,
    Questionnaire,
    issue_tokens,
    read_responses,
    read_waves,
)
from skprivate.survey._collect import (
    UnknownQuestionError,
    _column_names,
    _question_array,
)
from skprivate.survey._store import SurveyStore

CATS = ["red", "green", "blue"]


def _entry(kind: str, **spec) -> dict:
    return {"name": "q", "kind": kind, "spec": spec}


def _rows(answers: list, anchors: list | None = None) -> list[tuple[dict, dict]]:
    anchors = anchors or [[]] * len(answers)
    return [({"q": a}, {"q": q}) for a, q in zip(answers, anchors)]


# -- each kind of answer as the learners take it ------------------------------


def test_an_interval_answer_is_the_cell_of_the_respondents_own_anchors():
    rows = _rows([0, 1, 2, 1], [[1.0, 3.0], [2.0, 5.0], [0.5, 4.0], [-7.0, -6.0]])
    got = _question_array(_entry("interval", n_anchors=2), rows)
    expected = np.array(
        [[-np.inf, 1.0], [2.0, 5.0], [4.0, np.inf], [-7.0, -6.0]], dtype=float
    )
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, expected)


def test_three_anchors_per_respondent_stay_with_their_row():
    rows = _rows([3, 0], [[1.0, 2.0, 3.0], [10.0, 20.0, 30.0]])
    got = _question_array(_entry("interval", n_anchors=3), rows)
    np.testing.assert_array_equal(got, [[3.0, np.inf], [-np.inf, 10.0]])


def test_no_interval_answer_is_an_empty_two_column_array():
    got = _question_array(_entry("interval", n_anchors=2), [])
    assert got.shape == (0, 2)
    assert got.dtype == np.float64


def test_a_subset_answer_is_its_bits_as_int8():
    rows = _rows([[1, 0, 1, 0], [0, 1, 0, 1]])
    got = _question_array(_entry("subset", n_outputs=4), rows)
    assert got.dtype == np.int8
    np.testing.assert_array_equal(got, [[1, 0, 1, 0], [0, 1, 0, 1]])


def test_an_rvns_answer_is_its_k_reports():
    rows = _rows([[1.5, 7.25], [0.0, 3.0], [9.0, 2.0]])
    got = _question_array(_entry("rvns", k=2), rows)
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, [[1.5, 7.25], [0.0, 3.0], [9.0, 2.0]])


@pytest.mark.parametrize(
    "oracle, answers, width",
    [
        ("krr", [2, 0, 1], 1),
        ("hr", [5, 3, 0], 1),
        ("olh", [[11, 1], [7, 0], [3, 2]], 2),
        ("blh", [[4, 1], [9, 0], [2, 1]], 2),
        ("oue", [[1, 0, 0], [0, 0, 1], [1, 1, 0]], 3),
        ("sue", [[0, 1, 0], [0, 0, 0], [1, 0, 1]], 3),
    ],
)
def test_a_frequency_answer_has_the_width_of_its_oracle(oracle, answers, width):
    got = _question_array(_entry("frequency", oracle=oracle, k=3), _rows(answers))
    assert got.dtype == np.int64
    assert got.shape == (3, width)
    np.testing.assert_array_equal(got, np.reshape(answers, (3, width)))


@pytest.mark.parametrize("kind", ["laplace", "square_wave"])
def test_a_numeric_answer_is_one_float_column(kind):
    got = _question_array(_entry(kind), _rows([3, 2.5, -1]))
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, [[3.0], [2.5], [-1.0]])


def test_whole_numbers_sent_as_json_integers_are_still_floats():
    # a page's JSON writes 7.0 as 7: the learners still get floats
    got = _question_array(_entry("laplace"), _rows([7, -2]))
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, [[7.0], [-2.0]])
    got = _question_array(_entry("rvns", k=2), _rows([[1, 7], [0, 3]]))
    assert got.dtype == np.float64
    np.testing.assert_array_equal(got, [[1.0, 7.0], [0.0, 3.0]])


# -- the column names of as_frame=True ----------------------------------------


@pytest.mark.parametrize(
    "kind, spec, names",
    [
        ("interval", {"n_anchors": 2}, ["q_lower", "q_upper"]),
        ("subset", {"categories": ["a", "b"], "dummies": False}, ["q=a", "q=b"]),
        (
            "subset",
            {"categories": ["a", "b"], "dummies": True},
            ["q=a", "q=b", "q=<dummy1>", "q=<dummy2>"],
        ),
        ("rvns", {"k": 3}, ["q_s0", "q_s1", "q_s2"]),
        ("frequency", {"oracle": "olh", "categories": CATS}, ["q_seed", "q_hash"]),
        ("frequency", {"oracle": "blh", "categories": CATS}, ["q_seed", "q_hash"]),
        ("frequency", {"oracle": "hr", "categories": CATS}, ["q_hadamard"]),
        (
            "frequency",
            {"oracle": "oue", "categories": CATS},
            ["q=red", "q=green", "q=blue"],
        ),
        ("frequency", {"oracle": "krr", "categories": CATS}, ["q"]),
        ("laplace", {}, ["q"]),
    ],
)
def test_column_names_follow_the_privatizers(kind, spec, names):
    assert _column_names({"name": "q", "kind": kind, "spec": spec}) == names


# -- reading a database -------------------------------------------------------


def _survey(**options) -> Questionnaire:
    return Questionnaire(
        [
            Question(
                "age",
                "How old are you?",
                IntervalCaseI(anchor_loc=40.0, anchor_scale=10.0).fit([[0.0]]),
            ),
            Question(
                "race",
                "Which one?",
                SubsetUniform(categories=[CATS]).fit([[CATS[0]]]),
            ),
            Question(
                "hours",
                "Hours?",
                LaplaceLDP(epsilon=1.0, bounds=(0, 10)).fit([[0.0]]),
            ),
        ],
        **options,
    )


def _stored(tmp_path, answers: list[dict], waves: list[int] | None = None):
    """A database of ``_survey()`` holding ``answers`` of as many tokens."""
    survey = _survey()
    database = tmp_path / "c.db"
    tokens = issue_tokens(survey, database, len(answers))
    store = SurveyStore(database)
    try:
        anchors = [store.lookup(t)["anchors"] for t in tokens]
        for token, answer, wave in zip(tokens, answers, waves or [1] * len(answers)):
            assert store.store_batch([(token, answer)], wave=wave) == ["stored"]
    finally:
        store.close()
    return database, tokens, anchors


def _answer(cell: int, bits: list[int], hours: float) -> dict:
    return {"age": cell, "race": bits, "hours": hours}


def test_read_responses_gives_each_question_its_array_in_received_order(tmp_path):
    answers = [
        _answer(0, [1, 0, 0, 1, 0], 4.0),
        _answer(1, [0, 1, 1, 0, 1], -2.5),
        _answer(0, [0, 0, 1, 1, 0], 11.0),
    ]
    database, _, anchors = _stored(tmp_path, answers)
    got = read_responses(database)
    assert list(got) == ["age", "race", "hours"]
    first = [a["age"][0] for a in anchors]
    np.testing.assert_array_equal(
        got["age"],
        [[-np.inf, first[0]], [first[1], np.inf], [-np.inf, first[2]]],
    )
    np.testing.assert_array_equal(
        got["race"], [[1, 0, 0, 1, 0], [0, 1, 1, 0, 1], [0, 0, 1, 1, 0]]
    )
    assert got["race"].dtype == np.int8
    np.testing.assert_array_equal(got["hours"], [[4.0], [-2.5], [11.0]])
    one = read_responses(database, "race")
    assert isinstance(one, np.ndarray)
    np.testing.assert_array_equal(one, got["race"])


def test_as_frame_joins_the_questions_named_columns(tmp_path):
    answers = [_answer(1, [0, 1, 0, 0, 1], 7.0), _answer(0, [1, 1, 0, 1, 0], 0.5)]
    database, _, anchors = _stored(tmp_path, answers)
    frame = read_responses(database, as_frame=True)
    assert isinstance(frame, pd.DataFrame)
    assert list(frame.columns) == [
        "age_lower",
        "age_upper",
        "race=red",
        "race=green",
        "race=blue",
        "race=<dummy1>",
        "race=<dummy2>",
        "hours",
    ]
    assert frame.shape == (2, 8)
    assert frame["age_lower"].tolist() == [anchors[0]["age"][0], -np.inf]
    assert frame["race=green"].tolist() == [1, 1]
    assert frame["hours"].tolist() == [7.0, 0.5]
    alone = read_responses(database, "hours", as_frame=True)
    assert list(alone.columns) == ["hours"]
    assert alone["hours"].tolist() == [7.0, 0.5]


def test_one_wave_or_every_wave(tmp_path):
    bits = [1, 0, 0, 1, 0]
    answers = [_answer(0, bits, 1.0), _answer(0, bits, 2.0), _answer(0, bits, 3.0)]
    database, _, _ = _stored(tmp_path, answers, waves=[2, 1, 2])
    assert read_responses(database, "hours", wave=2).ravel().tolist() == [1.0, 3.0]
    assert read_responses(database, "hours", wave=1).ravel().tolist() == [2.0]
    assert read_responses(database, "hours", wave=3).shape == (0, 1)
    every = read_responses(database, "hours")
    assert every.ravel().tolist() == [1.0, 2.0, 3.0]


def test_an_unknown_question_is_named_with_the_surveys_questions(tmp_path):
    database, _, _ = _stored(tmp_path, [])
    with pytest.raises(UnknownQuestionError) as info:
        read_responses(database, "nope")
    message = "No question named 'nope'; the survey has ['age', 'race', 'hours']."
    assert str(info.value) == message
    assert isinstance(info.value, KeyError)
    assert isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "kwargs, match",
    [
        ({"question": 3}, "'question' parameter of read_responses"),
        ({"as_frame": "yes"}, "'as_frame' parameter of read_responses"),
        ({"wave": 0}, "'wave' parameter of read_responses"),
        ({"wave": 1.0}, "'wave' parameter of read_responses"),
    ],
)
def test_read_responses_refuses_its_arguments_by_name(tmp_path, kwargs, match):
    database, _, _ = _stored(tmp_path, [])
    with pytest.raises((TypeError, ValueError), match=match):
        read_responses(database, **kwargs)


# -- the waves of a memoized question -----------------------------------------


def _wave_survey() -> Questionnaire:
    oracle = LongitudinalOracle(
        kind="krr",
        epsilon_permanent=2.0,
        epsilon_instant=1.0,
        categories=[CATS],
    ).fit([[CATS[0]]])
    return Questionnaire([Question("colour", "Which?", oracle)], lifetime_epsilon=8.0)


def _waves_database(tmp_path, plan: list[tuple[int, int, int]]):
    """Store ``(respondent, wave, code)`` answers in the order listed."""
    survey = _wave_survey()
    tmp_path.mkdir(parents=True, exist_ok=True)
    database = tmp_path / "w.db"
    tokens = issue_tokens(survey, database, 1 + max(r for r, _, _ in plan))
    store = SurveyStore(database)
    try:
        for respondent, wave, code in plan:
            item = (tokens[respondent], {"colour": code})
            assert store.store_batch([item], wave=wave) == ["stored"]
    finally:
        store.close()
    return database


def test_read_waves_keeps_the_complete_respondents_in_order_of_first_answer(tmp_path):
    plan = [
        (2, 1, 0),  # respondent 2 answers first: its row comes first
        (0, 1, 1),
        (1, 2, 2),  # respondent 1 skips wave 1: dropped from waves 1-2
        (0, 2, 2),
        (3, 1, 1),  # respondent 3 answers wave 1 only
        (2, 2, 1),
    ]
    database = _waves_database(tmp_path, plan)
    got = read_waves(database, "colour")
    assert got.dtype == np.int64
    np.testing.assert_array_equal(got, [[0, 1], [1, 2]])
    np.testing.assert_array_equal(read_waves(database, "colour", waves=2), got)
    # one wave: every respondent who answered it
    np.testing.assert_array_equal(
        read_waves(database, "colour", waves=1), [[0], [1], [1]]
    )
    # a wave nobody answered leaves nobody complete
    assert read_waves(database, "colour", waves=3).shape == (0, 3)


def test_read_waves_of_the_last_wave_stored(tmp_path):
    # respondent 0 answered waves 1 and 3: three waves asked, nobody complete
    gap = _waves_database(tmp_path / "gap", [(0, 1, 2), (0, 3, 1), (1, 1, 0)])
    assert read_waves(gap, "colour").shape == (0, 3)
    plan = [(0, 1, 2), (1, 1, 1), (0, 2, 1), (1, 2, 0), (0, 3, 0)]
    full = _waves_database(tmp_path / "full", plan)
    np.testing.assert_array_equal(read_waves(full, "colour"), [[2, 1, 0]])
    np.testing.assert_array_equal(read_waves(full, "colour", waves=2), [[2, 1], [1, 0]])


def test_read_waves_of_an_empty_database_is_one_wave_of_nobody(tmp_path):
    database = tmp_path / "e.db"
    issue_tokens(_wave_survey(), database, 2)
    got = read_waves(database, "colour")
    assert got.shape == (0, 1)


def test_read_waves_names_an_unknown_question_and_its_bad_arguments(tmp_path):
    database = tmp_path / "e.db"
    issue_tokens(_wave_survey(), database, 1)
    with pytest.raises(UnknownQuestionError) as info:
        read_waves(database, "shade")
    assert str(info.value) == "No question named 'shade'; the survey has ['colour']."
    with pytest.raises(
        (TypeError, ValueError), match="'question' parameter of read_waves"
    ):
        read_waves(database, None)
    with pytest.raises(
        (TypeError, ValueError), match="'waves' parameter of read_waves"
    ):
        read_waves(database, "colour", waves=0)


# -- issuing tokens -----------------------------------------------------------


def test_tokens_are_bound_to_anchors_and_only_their_hashes_are_kept(tmp_path):
    survey = _survey()
    database = tmp_path / "t.db"
    tokens = issue_tokens(survey, database, 4)
    assert len(tokens) == len(set(tokens)) == 4
    store = SurveyStore(database)
    try:
        found = [store.lookup(t) for t in tokens]
        assert store.counts()["issued"] == 4
    finally:
        store.close()
    assert all(f is not None for f in found)
    anchors = [f["anchors"]["age"] for f in found]
    assert all(len(a) == 1 for a in anchors)
    assert len({a[0] for a in anchors}) == 4  # drawn per respondent
    raw = b"".join(f.read_bytes() for f in tmp_path.iterdir())
    for token in tokens:
        assert token.encode() not in raw
        assert hashlib.sha256(token.encode()).hexdigest().encode() in raw


def test_issue_tokens_refuses_its_arguments_by_name(tmp_path):
    with pytest.raises(
        TypeError, match="^questionnaire must be a Questionnaire; got dict.$"
    ):
        issue_tokens({}, tmp_path / "a.db", 1)
    with pytest.raises(
        (TypeError, ValueError), match="'n_respondents' parameter of issue_tokens"
    ):
        issue_tokens(_survey(), tmp_path / "b.db", -1)
    assert issue_tokens(_survey(), tmp_path / "c.db", 0) == []


def test_issuing_tokens_into_an_in_memory_database_is_refused_by_name():
    survey = Questionnaire(
        [Question("age", "How old are you?", IntervalCaseI().fit([[0.0]]))]
    )
    with pytest.raises(ValueError) as info:
        issue_tokens(survey, "sqlite://", 2)
    assert str(info.value).startswith(
        "issue_tokens needs a database that outlives it; database='sqlite://' "
        "is an in-memory SQLite database"
    )
