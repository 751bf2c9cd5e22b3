"""The accounting of repeated waves (``survey/_waves.py``) pinned exactly:
what each question is charged per wave, the per-question and total rows of
the wave report (the number of waves that fit the budget, the note), and
the simulated device's coins and stages.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from skprivate import IntervalCaseI, LaplaceLDP, SubsetUniform
from skprivate.frequency import LongitudinalOracle
from skprivate.survey import Question, Questionnaire
from skprivate.survey._spec_frequency import joint_epsilon, later_wave_epsilon
from skprivate.survey._waves import (
    SimulatedDevice,
    _coin,
    _kept_key,
    _stage,
    first_wave_epsilon,
    wave_charges,
    wave_report,
)

CATS = ["red", "green", "blue"]


def _oracle(kind):
    return LongitudinalOracle(
        kind=kind, epsilon_permanent=2.0, epsilon_instant=1.0, categories=[CATS]
    ).fit([[CATS[0]]])


def _questions():
    return [
        Question("colour", "Which colour?", _oracle("krr")),
        Question("shade", "Which shade?", _oracle("oue")),
        Question(
            "hours", "Hours?", LaplaceLDP(epsilon=1.5, bounds=(0, 10)).fit([[0.0]])
        ),
        Question(
            "years",
            "Years?",
            IntervalCaseI(anchor_loc=5.0, anchor_scale=2.0).fit([[0.0]]),
        ),
    ]


def _survey(budget=None):
    return Questionnaire(_questions(), lifetime_epsilon=budget)


def test_wave_charges_per_kind():
    survey = _survey()
    charges = wave_charges(survey)
    report = survey.privacy_report().set_index("question")["epsilon"]
    colour, shade = survey["colour"].spec, survey["shade"].spec
    assert charges["colour"] == (float(report["colour"]), later_wave_epsilon(colour))
    assert charges["shade"] == (float(report["shade"]), later_wave_epsilon(shade))
    assert charges["hours"] == (1.5, 1.5)
    assert charges["years"] is None
    assert list(charges) == ["colour", "shade", "hours", "years"]
    assert first_wave_epsilon(survey) == pytest.approx(
        float(report["colour"]) + float(report["shade"]) + 1.5, rel=1e-15
    )


@pytest.mark.parametrize("waves", [1, 2, 3])
def test_wave_report_rows(waves):
    survey = _survey()
    charges = wave_charges(survey)
    table = wave_report(survey, waves).set_index("question")
    assert list(table.index) == ["colour", "shade", "hours", "years", "total"]
    for name in ("colour", "shade"):
        first, later = charges[name]
        row = table.loc[name]
        assert row["kind"] == "frequency"
        assert row["epsilon_per_wave"] == first
        assert row["epsilon_lifetime_same_value"] == joint_epsilon(
            survey[name].spec, waves
        )
        assert row["epsilon_lifetime_any_values"] == pytest.approx(
            first + (waves - 1) * later, rel=1e-15
        )
        assert not row["discloses_change"]
        assert row["each_wave_sends"] == (
            "a fresh randomization of the kept permanent answer"
        )
    hours = table.loc["hours"]
    assert hours["epsilon_per_wave"] == 1.5
    assert hours["epsilon_lifetime_same_value"] == 1.5
    assert hours["epsilon_lifetime_any_values"] == pytest.approx(1.5 * waves)
    assert hours["discloses_change"]
    assert hours["each_wave_sends"] == "the kept answer, unchanged"
    years = table.loc["years"]
    assert math.isnan(years["epsilon_per_wave"])
    assert math.isnan(years["epsilon_lifetime_same_value"])
    assert math.isnan(years["epsilon_lifetime_any_values"])
    assert years["each_wave_sends"] == (
        "the cell of the value among the link's anchors (the same each wave)"
    )
    total = table.loc["total"]
    first = sum(c[0] for c in charges.values() if c)
    later = sum(c[1] for c in charges.values() if c)
    assert total["epsilon_per_wave"] == pytest.approx(first, rel=1e-15)
    assert total["epsilon_lifetime_any_values"] == pytest.approx(
        first + (waves - 1) * later, rel=1e-15
    )
    assert total["epsilon_lifetime_same_value"] == pytest.approx(
        table.loc[["colour", "shade", "hours"], "epsilon_lifetime_same_value"].sum()
    )
    assert bool(total["discloses_change"]) is True
    assert wave_report(survey, waves)["discloses_change"].dtype == bool
    assert list(wave_report(survey, waves).index) == list(range(5))
    assert total["kind"] == "" and total["each_wave_sends"] == ""
    note = total["note"]
    assert note.startswith(f"after {waves} wave(s): epsilon_lifetime_same_value (a)")
    assert note.endswith(
        "; years have a guarantee other than epsilon and are not charged"
    )
    assert "lifetime budget" not in note


def test_wave_report_refuses_no_wave():
    with pytest.raises(ValueError, match=r"^waves must be >= 1; got 0\.$"):
        wave_report(_survey(), 0)
    assert len(wave_report(_survey(), 1.0)) == 5


def _fit_count(survey, budget):
    charges = wave_charges(survey)
    first = sum(c[0] for c in charges.values() if c)
    later = sum(c[1] for c in charges.values() if c)
    return first, later


@pytest.mark.parametrize("extra", [0, 1, 2, 3])
def test_the_note_counts_the_waves_that_fit_the_budget(extra):
    first, later = _fit_count(_survey(), None)
    budget = first + extra * later
    table = wave_report(_survey(budget), 1).set_index("question")
    note = table.loc["total", "note"]
    assert (
        f"; lifetime budget lifetime_epsilon={budget:g}: the server refuses a wave "
        f"that would take a link past it ({1 + extra} wave(s) fit: {first:.6g} for "
        f"the first, {later:.6g} for each further one)"
    ) in note


def test_the_count_of_waves_allows_for_rounding_of_the_budget():
    first, later = _fit_count(_survey(), None)
    table = wave_report(_survey(first), 1).set_index("question")
    assert "(1 wave(s) fit:" in table.loc["total", "note"]
    # just under a further wave (rounding within 1e-9) still counts it
    budget = (first + 2 * later) * (1 - 1e-12)
    table = wave_report(_survey(budget), 1).set_index("question")
    assert "(3 wave(s) fit:" in table.loc["total", "note"]
    budget = (first + 2 * later) * (1 - 1e-6)
    table = wave_report(_survey(budget), 1).set_index("question")
    assert "(2 wave(s) fit:" in table.loc["total", "note"]


def test_only_uncharged_questions_fit_every_wave():
    survey = Questionnaire(_questions()[3:], lifetime_epsilon=1.0)
    table = wave_report(survey, 2).set_index("question")
    note = table.loc["total", "note"]
    assert "(inf wave(s) fit: 0 for the first, 0 for each further one)" in note
    assert table.loc["total", "epsilon_per_wave"] == 0
    assert bool(table.loc["total", "discloses_change"]) is True


class ScriptedRng:
    def __init__(self, *draws):
        self.draws = list(draws)
        self.calls = []

    def integers(self, low, high=None, dtype=None):
        self.calls.append((low, high))
        return self.draws.pop(0)


@pytest.mark.parametrize(
    ("rational", "draw", "heads", "den"),
    [
        ("3/8", 2, True, 8),
        ("3/8", 3, False, 8),
        ("1", 0, True, 1),
        ("0/5", 0, False, 5),
    ],
)
def test_coin_is_an_exact_rational(rational, draw, heads, den):
    rng = ScriptedRng(draw)
    assert _coin(rng, rational) is heads
    assert rng.calls == [(0, den)]


def test_coin_frequency_matches_its_rational():
    rng = np.random.default_rng(0)
    n = 20_000
    hits = sum(_coin(rng, "2/7") for _ in range(n))
    assert abs(hits / n - 2 / 7) < 4 * math.sqrt(2 / 7 * 5 / 7 / n)


def test_stage_of_krr_keeps_or_moves_to_another_category():
    spec = {"oracle": "krr", "k": 4}
    stage = {"keep": "1/2"}
    assert _stage(spec, stage, 2, ScriptedRng(0)) == 2  # kept
    # moved: the other category, skipping the kept one
    for other, want in ((0, 0), (1, 1), (2, 3)):
        rng = ScriptedRng(1, other)
        assert _stage(spec, stage, 2, rng) == want
        assert rng.calls == [(0, 2), (0, 3)]


def test_stage_of_unary_bits_flips_each_bit_by_its_own_coin():
    spec = {"oracle": "oue", "k": 3}
    stage = {"one": "3/4", "zero": "1/4"}
    rng = ScriptedRng(2, 1, 0)
    assert _stage(spec, stage, [1, 0, 0], rng) == [1, 0, 1]
    assert rng.calls == [(0, 4), (0, 4), (0, 4)]
    rng = ScriptedRng(3, 0, 1)
    assert _stage(spec, stage, [1, 1, 0], rng) == [0, 1, 0]


def test_simulated_device_keeps_one_answer_per_value_and_sends_cells():
    survey = Questionnaire(_questions(), lifetime_epsilon=100.0)
    page = survey.respondent_spec({"years": [4.5]}, "/s/x")
    device = SimulatedDevice(survey, random_state=3)
    first = device.answers(
        page, {"colour": "red", "shade": "blue", "hours": 4.0, "years": 6.0}
    )
    assert len(device.kept) == 3  # not the interval question
    anchors = next(e for e in page["questions"] if e["name"] == "years")["anchors"]
    assert first["years"] == sum(a < 6.0 for a in anchors)
    again = device.answers(
        page, {"colour": "red", "shade": "blue", "hours": 4.0, "years": 6.0}
    )
    assert again["hours"] == first["hours"]  # the kept answer itself
    assert len(device.kept) == 3
    device.answers(
        page, {"colour": "green", "shade": "blue", "hours": 5.0, "years": 1.0}
    )
    assert len(device.kept) == 5  # a new colour and a new hours value
    assert isinstance(pd.Series(first).to_dict(), dict)


def _laplace_survey(eps, budget, extra_interval=False):
    questions = [
        Question("h", "H?", LaplaceLDP(epsilon=eps, bounds=(0, 10)).fit([[0.0]]))
    ]
    if extra_interval:
        questions += [
            Question(
                name,
                f"{name}?",
                IntervalCaseI(anchor_loc=5.0, anchor_scale=2.0).fit([[0.0]]),
            )
            for name in ("u", "v")
        ]
    return Questionnaire(questions, lifetime_epsilon=budget)


def test_the_full_note_with_a_budget_and_uncharged_questions():
    table = wave_report(_laplace_survey(0.5, 1.2, extra_interval=True), 2)
    assert table.iloc[-1]["note"] == (
        "after 2 wave(s): epsilon_lifetime_same_value (a) is the exact loss of "
        "the joint law of the waves' reports of values that do not change; "
        "epsilon_lifetime_any_values (b) bounds the loss against any other "
        "sequence of values (values that change get fresh private answers; where "
        "discloses_change is set, the resent answer shows at which waves the "
        "value changed, and (b) compares values changing at the same waves); the "
        "server's ledger charges (b) per link; lifetime budget "
        "lifetime_epsilon=1.2: the server refuses a wave that would take a link "
        "past it (2 wave(s) fit: 0.5 for the first, 0.5 for each further one); "
        "u, v have a guarantee other than epsilon and are not charged"
    )


@pytest.mark.parametrize(
    ("eps", "budget", "fit"),
    [(0.5, 0.5, 1), (0.5, 0.99, 1), (0.5, 1.0, 2), (0.25, 1.0, 4), (0.5, 0.7, 1)],
)
def test_waves_that_fit_a_budget_of_small_charges(eps, budget, fit):
    note = wave_report(_laplace_survey(eps, budget), 1).iloc[-1]["note"]
    assert f"({fit} wave(s) fit: {eps:.6g} for the first" in note


class _Rng:
    """Scripted integers() draws for the device's coins and stages."""

    def __init__(self, *draws):
        self.draws = list(draws)

    def integers(self, low, high=None, dtype=None):
        return self.draws.pop(0)


def _frequency_survey(kind):
    oracle = LongitudinalOracle(
        kind=kind, epsilon_permanent=2.0, epsilon_instant=1.0, categories=[CATS]
    ).fit([[CATS[0]]])
    return Questionnaire([Question("c", "C?", oracle)], lifetime_epsilon=5.0)


def test_device_keeps_the_permanent_krr_answer_then_randomizes_it():
    survey = _frequency_survey("krr")
    page = survey.respondent_spec({}, "/s/x")
    device = SimulatedDevice(survey, random_state=0)
    # permanent stage: a draw of 3e18 (of 2**62) is below its keep numerator
    # (about 3.6e18) and keeps "green" (code 1); instant stage: the same draw
    # is above its numerator (about 2.7e18) and moves it, to the other
    # category 0 + (0 >= 1)
    device.rng = _Rng(3 * 10**18, 3 * 10**18, 0)
    assert device.answers(page, {"c": "green"})["c"] == 0
    (key,) = device.kept
    assert device.kept[key] == 1
    assert key[1:] == ("c", '"green"')
    device.rng = _Rng(0)  # instant stage only: kept
    assert device.answers(page, {"c": "green"})["c"] == 1


def test_device_keeps_the_permanent_unary_bits_then_randomizes_them():
    survey = _frequency_survey("oue")
    page = survey.respondent_spec({}, "/s/x")
    device = SimulatedDevice(survey, random_state=0)
    # a draw of 2e18 (of 2**62) passes a coin of 1/2 and fails one of about
    # 0.12 (first stage) and about 0.27 (second stage): each bit keeps its value
    device.rng = _Rng(*[2 * 10**18] * 6)
    assert device.answers(page, {"c": "blue"})["c"] == [0, 0, 1]
    (key,) = device.kept
    assert device.kept[key] == [0, 0, 1]


def _mixed_survey(budget=10.0, text="Hours?"):
    return Questionnaire(
        [
            Question(
                "years",
                "Years?",
                IntervalCaseI(anchor_loc=5.0, anchor_scale=2.0).fit([[0.0]]),
            ),
            Question(
                "hours", text, LaplaceLDP(epsilon=1.0, bounds=(0, 10)).fit([[0.0]])
            ),
            Question(
                "race",
                "Race?",
                SubsetUniform(categories=[["a", "b", "c", "d"]]).fit([["a"]]),
            ),
        ],
        lifetime_epsilon=budget,
    )


def test_device_answers_every_question_after_an_interval_one():
    survey = _mixed_survey()
    page = survey.respondent_spec({"years": [4.5]}, "/s/x")
    device = SimulatedDevice(survey, random_state=4)
    out = device.answers(page, {"years": 4.5, "hours": 3.0, "race": "b"})
    assert set(out) == {"years", "hours", "race"}
    # a value equal to an anchor lies in the cell below it: (q_{i-1}, q_i]
    assert out["years"] == 0
    assert device.answers(page, {"years": 4.6, "hours": 3.0, "race": "b"})["years"] == 1


def test_device_draws_the_seed_of_the_other_questions_from_its_own_stream():
    survey = _mixed_survey()
    page = survey.respondent_spec({"years": [4.5]}, "/s/x")
    values = {"years": 1.0, "hours": 3.0, "race": "b"}
    seed = int(np.random.default_rng(7).integers(2**31))
    want = survey.simulate_answers(
        [page], {n: [v] for n, v in values.items()}, random_state=seed
    )[0]
    got = SimulatedDevice(survey, random_state=7).answers(page, values)
    assert got["hours"] == want["hours"]
    assert got["race"] == want["race"]
    assert isinstance(got["hours"], float)
    again = SimulatedDevice(survey, random_state=7).answers(page, values)
    assert again == got


def test_device_returns_a_copy_of_a_kept_list():
    survey = _mixed_survey()
    page = survey.respondent_spec({"years": [4.5]}, "/s/x")
    device = SimulatedDevice(survey, random_state=1)
    out = device.answers(page, {"years": 1.0, "hours": 3.0, "race": "c"})
    (key,) = [k for k in device.kept if k[1] == "race"]
    assert out["race"] == device.kept[key]
    assert out["race"] is not device.kept[key]


def test_device_keys_its_answers_by_survey():
    one, two = _mixed_survey(), _mixed_survey(text="Hours worked?")
    assert one.fingerprint() != two.fingerprint()
    device = SimulatedDevice(one, random_state=2)
    values = {"years": 1.0, "hours": 3.0, "race": "c"}
    device.answers(one.respondent_spec({"years": [4.5]}, "/s/x"), values)
    device.answers(two.respondent_spec({"years": [4.5]}, "/s/y"), values)
    assert len(device.kept) == 4  # two questions with a kept answer, per survey


def test_device_keys_values_that_json_cannot_write_by_their_text():
    survey = _mixed_survey()
    page = survey.respondent_spec({"years": [4.5]}, "/s/x")
    device = SimulatedDevice(survey, random_state=3)
    device.answers(page, {"years": 1.0, "hours": np.int64(3), "race": "c"})
    assert ("hours", '"3"') in {k[1:] for k in device.kept}


def test_an_unseeded_device_draws_fresh_entropy_and_a_seeded_one_replays():
    import copy

    from skprivate.survey import SimulatedDevice

    lo = LongitudinalOracle(categories=[list("abcdefgh")]).fit([["a"]])
    survey = Questionnaire([Question("q", "Which?", lo)], lifetime_epsilon=4.0)
    page = survey.respondent_spec({}, "/s/x")
    values = [{"q": v} for v in "abcdefgh" * 6]

    def draws(device):
        return [device.answers(page, v)["q"] for v in values]

    device = SimulatedDevice(survey)
    assert device.random_state is None
    twin = copy.deepcopy(device)
    assert draws(twin) != draws(device)  # no stream a copy carries
    seeded = SimulatedDevice(survey, random_state=3)
    assert seeded.random_state == 3
    assert draws(copy.deepcopy(seeded)) == draws(seeded)


def _entry(kind, **spec):
    return {"name": "age", "kind": kind, "spec": spec}


def test_kept_key_reads_the_number_as_the_page_does():
    laplace = _entry("laplace", clip=True, low=0.0, high=100.0)
    # one key for one number, whatever holds it; a fraction keeps its digits
    assert _kept_key(laplace, 40) == _kept_key(laplace, np.float64(40.0)) == '"40"'
    assert _kept_key(laplace, 1.5) == '"1.5"'
    assert _kept_key(laplace, "2.25") == '"2.25"'
    # a clipped Laplace question keys a value by the bound it is clipped to
    assert _kept_key(laplace, 150) == _kept_key(laplace, 100) == '"100"'
    assert _kept_key(laplace, -3.5) == '"0"'
    # an infinite value is not clipped (the page refuses it before)
    assert _kept_key(laplace, math.inf) == '"inf"'
    # no clip, or another kind with bounds: the number as typed
    assert _kept_key(_entry("laplace", low=0.0, high=100.0), 150) == '"150"'
    assert _kept_key(_entry("laplace", clip=False, low=0.0, high=1.0), 7) == '"7"'
    assert _kept_key(_entry("rvns", clip=True, low=0.0, high=100.0), 150) == '"150"'
    # categories by their text
    assert _kept_key(_entry("subset"), 3) == '"3"'
    assert _kept_key(_entry("frequency"), "a") == '"a"'


def test_kept_key_refuses_a_value_that_is_not_a_number():
    with pytest.raises(ValueError) as info:
        _kept_key(_entry("laplace", clip=True, low=0.0, high=1.0), "forty")
    assert str(info.value) == (
        "the value of question 'age' must be a number (a laplace question); got str."
    )
    with pytest.raises(ValueError, match=r"\(a rvns question\); got NoneType\.$"):
        _kept_key(_entry("rvns"), None)


def _subset_survey():
    questions = [
        Question(
            name,
            f"{name}?",
            SubsetUniform(categories=[["a", "b", "c", "d"]]).fit([["a"]]),
        )
        for name in ("race", "faith")
    ]
    questions.append(
        Question("hours", "Hours?", LaplaceLDP(epsilon=1.0, bounds=(0, 10)).fit([[0]]))
    )
    return Questionnaire(questions)


def test_the_note_warns_that_subset_questions_intersect_over_waves():
    survey = _subset_survey()
    note = wave_report(survey, 2).iloc[-1]["note"]
    assert note.endswith(
        "; race, faith have a guarantee other than epsilon and are not charged"
        "; race, faith: a device that keeps no answer (storage refused or "
        "cleared, another browser) draws a fresh subset at each wave, "
        "uncharged, and the subsets intersect towards the true category: ask "
        "subset questions in one wave only (a server for a later wave refuses "
        "them)"
    )
    # one wave: nothing to intersect
    assert "fresh subset" not in wave_report(survey, 1).iloc[-1]["note"]
    assert (
        wave_report(survey, 1)
        .iloc[-1]["note"]
        .endswith("race, faith have a guarantee other than epsilon and are not charged")
    )


def test_a_seeded_device_seeds_each_answer_with_128_bits_and_its_key():
    # the answer's generator: four 32-bit words of the device stream, then
    # the words of the key's fingerprint (as a seeded privatizer mixes data)
    from skprivate.utils._seeding import canonical, data_fingerprint, words

    device = SimulatedDevice(_frequency_survey("krr"), random_state=3)
    key = ("s", "c", '"red"')
    drawn = device._drawn(np.random.default_rng(11), key)
    stream = np.random.default_rng(11).integers(0, 2**32, size=4)
    expected = np.random.default_rng(
        np.random.SeedSequence(
            [*(int(w) for w in stream), *words(data_fingerprint(canonical(key)))]
        )
    )
    assert list(drawn.integers(0, 2**62, size=8)) == list(
        expected.integers(0, 2**62, size=8)
    )
