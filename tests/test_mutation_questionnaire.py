"""Exact checks of the questionnaire's construction and anchor drawing.

Each test pins one documented behaviour of
``skprivate/survey/_questionnaire.py`` with a small exact case: the names,
texts and decimals a question accepts (the default number of decimals from
the anchors' spread), the refusal of anchors that may fall outside the
values' support, the public description and its fingerprint, the lifetime
budget (a number, finite, positive, at least one wave, within the rounding
of a sum), and the anchors drawn per respondent (sorted within a
respondent, on the grid of the shown decimals, strictly inside the
support, one entry per interval question).
``benchmarks/_mutation_specs_survey.py`` (``survey_questionnaire``) lists
the mutants these tests kill.
"""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from skprivate import IntervalCaseI, IntervalCaseII, LaplaceLDP, SubsetUniform
from skprivate.frequency import GeneralizedRandomizedResponse
from skprivate.interval import IntervalEnsemble
from skprivate.survey import Question, Questionnaire
from skprivate.survey._waves import first_wave_epsilon


def _laplace():
    return LaplaceLDP(epsilon=1.0, bounds=(0, 10)).fit([[0.0]])


def _case_one(scale=12.0, **kw):
    return IntervalCaseI(anchor_loc=40.0, anchor_scale=scale, **kw).fit([[0.0]])


# -- questions ----------------------------------------------------------------


@pytest.mark.parametrize("name", ["a", "a_1", "Q9", "a" * 64])
def test_question_names_accepted(name):
    assert Question(name, "Text?", _laplace()).name == name


@pytest.mark.parametrize("name", ["1a", "_a", "a-b", "a b", "", "a" * 65, 3, None])
def test_question_names_refused_whole(name):
    with pytest.raises(ValueError) as info:
        Question(name, "Text?", _laplace())
    assert str(info.value) == (
        "Question name must be letters, digits or _, starting with a letter, "
        f"at most 64 characters; got {name!r}."
    )


@pytest.mark.parametrize("text", ["", "   ", "\n", None, 3])
def test_a_question_needs_a_text(text):
    with pytest.raises(ValueError) as info:
        Question("q", text, _laplace())
    assert str(info.value) == "Question 'q' needs a non-empty text."


def test_help_and_unit_are_kept_as_text():
    q = Question("q", "Text?", _laplace(), help=5, unit=2.5)
    assert (q.help, q.unit, q.text) == ("5", "2.5", "Text?")
    assert (q.kind, q.decimals, q.labels) == ("laplace", None, None)
    plain = Question("q", "Text?", _laplace())
    assert (plain.help, plain.unit) == ("", "")


@pytest.mark.parametrize(
    "scale, decimals",
    [(12.0, 1), (10.0, 1), (9.99, 2), (100.0, 0), (5000.0, 0), (0.05, 4), (1e-9, 10)],
)
def test_the_default_decimals_keep_three_digits_of_the_spread(scale, decimals):
    assert Question("age", "Age?", _case_one(scale)).decimals == decimals


@pytest.mark.parametrize("decimals", [0, 3, 15])
def test_declared_decimals_are_kept(decimals):
    q = Question("age", "Age?", _case_one(), decimals=decimals)
    assert q.decimals == decimals
    assert q.anchor_grid().decimals == decimals


@pytest.mark.parametrize("decimals", [-1, 16, 1.5, "2"])
def test_decimals_out_of_range_are_refused(decimals):
    with pytest.raises(ValueError) as info:
        Question("age", "Age?", _case_one(), decimals=decimals)
    assert str(info.value) == f"decimals must be an int in [0, 15]; got {decimals!r}."


@pytest.mark.parametrize("other", [(0.0, None), (None, 120.0)])
def test_anchors_outside_the_support_on_one_side_are_refused(other):
    ens = IntervalEnsemble(
        [
            IntervalCaseI(anchor_loc=30.0, anchor_scale=20.0, support=(0.0, 120.0)),
            IntervalCaseI(anchor_loc=30.0, anchor_scale=20.0, support=other),
        ]
    ).fit([[1.0]])
    with pytest.raises(ValueError, match="can fall outside the support declared"):
        Question("commute", "Minutes?", ens)


def test_anchors_outside_the_values_support_are_refused_by_question():
    ens = IntervalEnsemble(
        [
            IntervalCaseI(anchor_loc=30.0, anchor_scale=20.0, support=(0.0, 120.0)),
            IntervalCaseI(anchor_loc=30.0, anchor_scale=20.0),
        ]
    ).fit([[1.0]])
    with pytest.raises(ValueError) as info:
        Question("commute", "Minutes?", ens)
    assert str(info.value) == (
        "the anchors of question 'commute' can fall outside the support declared "
        "for its values: declare the same support= on every mechanism of the "
        "ensemble."
    )
    same = IntervalEnsemble(
        [
            IntervalCaseI(anchor_loc=30.0, anchor_scale=20.0, support=(0.0, 120.0)),
            IntervalCaseI(anchor_loc=50.0, anchor_scale=20.0, support=(0.0, 120.0)),
        ]
    ).fit([[1.0]])
    assert Question("commute", "Minutes?", same).kind == "interval"


def test_the_anchor_grid_is_the_supports_and_only_for_interval_questions():
    q = Question("age", "Age?", _case_one(support=(0.0, 120.0)), decimals=2)
    grid = q.anchor_grid()
    assert (grid.decimals, grid.low, grid.high) == (2, 0.0, 120.0)
    with pytest.raises(ValueError) as info:
        Question("hours", "Hours?", _laplace()).anchor_grid()
    assert str(info.value) == "question 'hours' is not an interval question."


def test_the_public_entry_of_each_kind():
    base = {"help": "h", "unit": "u"}
    laplace = Question("hours", "Hours?", _laplace(), **base).public()
    assert set(laplace) == {"name", "text", "help", "unit", "kind", "spec"}
    assert (laplace["name"], laplace["text"], laplace["kind"]) == (
        "hours",
        "Hours?",
        "laplace",
    )
    assert (laplace["help"], laplace["unit"]) == ("h", "u")
    interval = Question("age", "Age?", _case_one(), decimals=2).public()
    assert interval["decimals"] == 2 and "labels" not in interval
    race = SubsetUniform(categories=[["a", "b", "c"]]).fit([["a"]])
    subset = Question("race", "Race?", race, labels={"b": "Bee"}).public()
    assert subset["labels"] == ["a", "Bee", "c"] and "decimals" not in subset
    bare = Question("race", "Race?", race).public()
    assert bare["labels"] == ["a", "b", "c"]
    grr = GeneralizedRandomizedResponse(epsilon=1.0, categories=[[1, 2]])
    frequency = Question("f", "F?", grr.fit([[1]]), labels={2: "two"}).public()
    assert frequency["labels"] == ["1", "two"] and "decimals" not in frequency


# -- the questionnaire --------------------------------------------------------


def test_a_questionnaire_refuses_bad_question_lists():
    with pytest.raises(ValueError) as info:
        Questionnaire([])
    assert str(info.value) == "A questionnaire needs at least one question."
    with pytest.raises(TypeError) as info:
        Questionnaire([Question("a", "A?", _laplace()), "b"])
    assert str(info.value) == "questions must be Question objects; got str."
    qs = [Question(n, "Q?", _laplace()) for n in ("c", "b", "a", "b", "a")]
    with pytest.raises(ValueError) as info:
        Questionnaire(qs)
    assert str(info.value) == "Question names must be distinct; 'b' repeats."


def test_the_default_title_and_intro():
    survey = Questionnaire([Question("a", "A?", _laplace())])
    assert (survey.title, survey.intro) == ("A private survey", "")


def test_a_questionnaire_saved_before_budgets_existed_describes_itself():
    survey = Questionnaire([Question("a", "A?", _laplace())])
    del survey.lifetime_epsilon  # as unpickled from an older version
    assert "lifetime_epsilon" not in survey.public_spec()


def test_questions_are_found_by_name_and_the_text_is_kept():
    qs = [Question(n, "Q?", _laplace()) for n in ("a", "b")]
    survey = Questionnaire(iter(qs), title=7, intro=None)
    assert survey.questions == qs
    assert survey["b"] is qs[1]
    assert (survey.title, survey.intro) == ("7", "None")
    with pytest.raises(KeyError) as info:
        survey["c"]
    assert info.value.args[0] == "No question named 'c'."


def test_the_public_spec_and_its_fingerprint():
    qs = [Question("h", "H?", _laplace())]
    plain = Questionnaire(qs, title="T", intro="I")
    spec = plain.public_spec()
    assert spec == {"title": "T", "intro": "I", "questions": [qs[0].public()]}
    text = json.dumps(spec, sort_keys=True, separators=(",", ":"))
    assert plain.fingerprint() == hashlib.sha256(text.encode()).hexdigest()
    waves = Questionnaire(qs, title="T", intro="I", lifetime_epsilon=5)
    assert waves.public_spec()["lifetime_epsilon"] == 5.0
    assert isinstance(waves.lifetime_epsilon, float)
    assert waves.fingerprint() != plain.fingerprint()
    assert plain.lifetime_epsilon is None


@pytest.mark.parametrize("budget, kind", [(True, "bool"), ("3", "str"), (None, None)])
def test_a_budget_must_be_a_number(budget, kind):
    qs = [Question("h", "H?", _laplace())]
    if kind is None:
        assert Questionnaire(qs, lifetime_epsilon=budget).lifetime_epsilon is None
        return
    with pytest.raises(TypeError) as info:
        Questionnaire(qs, lifetime_epsilon=budget)
    assert str(info.value) == f"lifetime_epsilon must be a number; got {kind}."


@pytest.mark.parametrize("budget", [0, 0.0, -1.0, float("inf"), float("nan")])
def test_a_budget_must_be_finite_and_positive(budget):
    with pytest.raises(ValueError) as info:
        Questionnaire([Question("h", "H?", _laplace())], lifetime_epsilon=budget)
    assert str(info.value) == (
        f"lifetime_epsilon must be a finite number > 0; got {budget!r}."
    )


def test_a_budget_below_one_is_accepted_when_one_wave_fits():
    qs = [Question("h", "H?", LaplaceLDP(epsilon=0.25, bounds=(0, 10)).fit([[0.0]]))]
    assert Questionnaire(qs, lifetime_epsilon=0.5).lifetime_epsilon == 0.5
    # the budget whose allowance for rounding equals one wave exactly
    one = first_wave_epsilon(Questionnaire(qs))
    edge = 0.24999999975
    assert edge * (1 + 1e-9) == one
    assert Questionnaire(qs, lifetime_epsilon=edge).lifetime_epsilon == edge
    below = 0.24999999974999995
    with pytest.raises(ValueError, match="below the epsilon of one wave"):
        Questionnaire(qs, lifetime_epsilon=below)


def test_a_budget_must_hold_one_wave_up_to_the_rounding_of_a_sum():
    qs = [Question("h", "H?", _laplace()), Question("g", "G?", _laplace())]
    one = first_wave_epsilon(Questionnaire(qs))
    assert one == pytest.approx(2.0)
    assert Questionnaire(qs, lifetime_epsilon=one).lifetime_epsilon == one
    near = one * (1 - 5e-10)
    assert Questionnaire(qs, lifetime_epsilon=near).lifetime_epsilon == near
    with pytest.raises(ValueError) as info:
        Questionnaire(qs, lifetime_epsilon=one * (1 - 2e-9))
    assert str(info.value) == (
        f"lifetime_epsilon={one * (1 - 2e-9):g} is below the epsilon of one wave "
        f"({one:.6g}, the sum over the questions): no wave could be answered."
    )


# -- anchors ------------------------------------------------------------------


def test_anchors_are_drawn_per_respondent_sorted_rounded_and_inside():
    support = (0.0, 100.0)
    survey = Questionnaire(
        [
            Question("h", "H?", _laplace()),
            Question(
                "age",
                "Age?",
                IntervalCaseII(anchor_loc=50.0, anchor_scale=30.0, support=support).fit(
                    [[1.0]]
                ),
                decimals=1,
            ),
            Question("smoke", "Years?", _case_one(4.0, support=support), decimals=0),
        ]
    )
    drawn = survey.draw_anchors(500)
    assert len(drawn) == 500
    assert all(set(row) == {"age", "smoke"} for row in drawn)
    age = np.array([row["age"] for row in drawn])
    smoke = np.array([row["smoke"] for row in drawn])
    assert age.shape == (500, 2) and smoke.shape == (500, 1)
    assert all(type(v) is float for row in drawn for v in row["age"] + row["smoke"])
    assert np.all(age[:, 0] <= age[:, 1])  # sorted within a respondent
    assert not np.all(np.diff(age[:, 0]) >= 0)  # not across respondents
    np.testing.assert_array_equal(age, np.round(age, 1))
    np.testing.assert_array_equal(smoke, np.round(smoke))
    assert np.all((age > 0.0) & (age < 100.0))
    assert np.all((smoke > 0.0) & (smoke < 100.0))
    # the anchors follow the privatizer's law (mean 40, sd 4 for smoke)
    assert abs(smoke.mean() - 40.0) < 5 * 4.0 / np.sqrt(500)
    assert len({tuple(a) for a in age.tolist()}) > 400  # drawn afresh per row


def test_no_anchor_for_no_respondent_or_no_interval_question():
    with_interval = Questionnaire([Question("age", "Age?", _case_one())])
    assert with_interval.draw_anchors(0) == []
    only_laplace = Questionnaire([Question("h", "H?", _laplace())])
    assert only_laplace.draw_anchors(3) == [{}, {}, {}]
    with pytest.raises(ValueError) as info:
        with_interval.draw_anchors(-1)
    assert str(info.value) == "n_respondents must be >= 0; got -1."


def test_a_question_keeps_its_own_deep_copy_of_the_privatizer():
    # per-column settings given as lists: the decimals read column 0, and an
    # in-place change of the caller's list does not reach the question
    privatizer = IntervalCaseI(
        anchor_loc=[40.0], anchor_scale=[5.0], support=(0, 120)
    ).fit([[0.0]])
    question = Question("age", "Your age?", privatizer)
    assert question.decimals == 2
    privatizer.anchor_scale[0] = 50.0
    assert question.privatizer.anchor_scale == [5.0]
    question._check_spec()  # the question's privatizer did not change


def test_seeded_anchor_draws_give_each_question_its_own_stream():
    # thirty questions with one design: a seeded draw gives each question
    # its own anchors (their streams are seeded from 2**31 states; with a
    # few dozen states two of thirty questions would share anchors)
    questions = [
        Question(
            f"q{i}",
            "t",
            IntervalCaseI(anchor_loc=40.0, anchor_scale=5.0, support=(0, 120)).fit(
                [[0.0]]
            ),
        )
        for i in range(30)
    ]
    anchors = Questionnaire(questions).draw_anchors(2, random_state=1)
    for row in anchors:
        assert len({tuple(row[f"q{i}"]) for i in range(30)}) == 30
    again = Questionnaire(questions).draw_anchors(2, random_state=1)
    assert again == anchors
