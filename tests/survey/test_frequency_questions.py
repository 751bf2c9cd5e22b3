"""Frequency questions (k-RR, unary encoding, plain or memoized): their spec,
answer checks, page wording, and the exact laws of the page's samplers
(samplers.js under Node, every random word enumerated) against the Python law."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from skprivate._audit import MatrixLaw
from skprivate.frequency import (
    FrequencyOracle,
    GeneralizedRandomizedResponse,
    LongitudinalOracle,
    OptimizedLocalHashing,
    OptimizedUnaryEncoding,
)
from skprivate.frequency._coins import COIN_SCALE
from skprivate.survey import AnswerError, Question, Questionnaire, mechanism_spec
from skprivate.survey._page_audit import compare_laws, page_laws, spec_law
from skprivate.survey._spec import check_answer
from skprivate.survey._spec_frequency import (
    frequency_disclosure,
    frequency_law,
    joint_epsilon,
)

from .conftest import node_path, skip_or_fail

SAMPLERS = Path(__file__).parents[2] / "skprivate" / "survey" / "static" / "samplers.js"
CATS = ["a", "b", "c"]


def _lo(kind: str, perm: float = 2.0, inst: float = 1.0, cats=CATS):
    return LongitudinalOracle(
        kind=kind, epsilon_permanent=perm, epsilon_instant=inst, categories=[cats]
    ).fit([[cats[0]]])


# -- spec and answer checks ---------------------------------------------------------
def test_krr_spec_holds_the_privatizers_exact_coin():
    krr = GeneralizedRandomizedResponse(epsilon=1.0, categories=[CATS]).fit([["a"]])
    spec = mechanism_spec(krr)
    assert spec["kind"] == "frequency" and spec["oracle"] == "krr"
    assert spec["stages"] == [{"keep": f"{krr.oracles_[0].keep}/{COIN_SCALE}"}]
    assert spec["memoized"] is False and spec["categories"] == CATS
    assert spec["epsilon"] == 1.0


def test_longitudinal_spec_holds_both_stages_and_its_composed_law():
    lo = _lo("krr")
    spec = mechanism_spec(lo)
    channel = lo.oracles_[0]
    assert spec["memoized"] is True
    assert spec["stages"] == [
        {"keep": f"{channel.permanent.keep}/{COIN_SCALE}"},
        {"keep": f"{channel.instant.keep}/{COIN_SCALE}"},
    ]
    # one wave of the two stages is the composed channel of the privatizer
    a, b = channel._composed
    law = frequency_law(spec, 0)
    assert law[(0,)] == a and law[(1,)] == law[(2,)] == b
    assert spec["epsilon"] == lo.privacy_summary()["epsilon_per_wave"]

    oue = _lo("oue")
    spec = mechanism_spec(oue)
    channel = oue.oracles_[0]
    own, other = (f"{v}/{COIN_SCALE}" for v in channel.instant_numerators)
    assert spec["stages"][1] == {"one": own, "zero": other}
    a, b, _ = frequency_disclosure(spec)
    assert (a, b) == channel._composed


def test_oue_one_wave_law_is_the_product_of_its_bits():
    oue = OptimizedUnaryEncoding(epsilon=1.0, categories=[CATS]).fit([["a"]])
    spec = mechanism_spec(oue)
    p = Fraction(oue.oracles_[0].own, COIN_SCALE)
    q = Fraction(oue.oracles_[0].other, COIN_SCALE)
    law = frequency_law(spec, 1)
    assert law[((0, 1, 0),)] == (1 - q) * p * (1 - q)
    assert law[((1, 0, 1),)] == q * (1 - p) * q
    assert sum(law.values()) == 1


@pytest.mark.parametrize(
    "priv",
    [
        GeneralizedRandomizedResponse(epsilon=1.0),
        LongitudinalOracle(),
    ],
)
def test_categories_read_from_the_data_are_refused(priv):
    with pytest.warns(Warning):
        priv.fit([["a"], ["b"]])
    with pytest.raises(ValueError, match="declare `categories=`"):
        mechanism_spec(priv)


def test_unsupported_frequency_privatizers_are_refused():
    # every oracle has a page sampler (local hashing and Hadamard response:
    # tests/survey/test_frequency_hashing_questions.py)
    olh = OptimizedLocalHashing(epsilon=1.0, categories=[CATS]).fit([["a"]])
    assert mechanism_spec(olh)["oracle"] == "olh"
    lo = LongitudinalOracle(waves=3, categories=[CATS]).fit([["a"]])
    with pytest.raises(ValueError, match="set waves=1"):
        mechanism_spec(lo)
    auto = FrequencyOracle(oracle="auto", epsilon=1.0, categories=[CATS]).fit([["a"]])
    assert mechanism_spec(auto)["oracle"] == "krr"


def test_frequency_answers_are_checked():
    krr = mechanism_spec(_lo("krr"))
    assert check_answer("q", krr, 2) == 2
    for bad in (3, -1, True, 1.0, [1], None):
        with pytest.raises(AnswerError, match="from 0 to 2"):
            check_answer("q", krr, bad)
    oue = mechanism_spec(_lo("oue"))
    assert check_answer("q", oue, [0, 1, 1]) == [0, 1, 1]
    for bad in ([0, 1], [0, 1, 2], [0, 1, True], 1, "011"):
        with pytest.raises(AnswerError, match="list of 3 integers 0 or 1"):
            check_answer("q", oue, bad)


def test_read_responses_columns_follow_the_oracle():
    from skprivate.survey._collect import _column_names, _question_array

    oue = {"name": "q", "kind": "frequency", "spec": mechanism_spec(_lo("oue"))}
    assert _column_names(oue) == ["q=a", "q=b", "q=c"]
    rows = [({"q": [0, 1, 0]}, {}), ({"q": [1, 1, 0]}, {})]
    assert _question_array(oue, rows).tolist() == [[0, 1, 0], [1, 1, 0]]
    krr = {"name": "q", "kind": "frequency", "spec": mechanism_spec(_lo("krr"))}
    assert _column_names(krr) == ["q"]
    assert _question_array(krr, [({"q": 2}, {})]).tolist() == [[2]]


# -- the page's wording -----------------------------------------------------------
def test_the_page_says_what_a_frequency_answer_reveals():
    krr = GeneralizedRandomizedResponse(epsilon=math.log(2), categories=[["x", "y"]])
    survey = Questionnaire(
        [
            Question("k", "Which one?", krr.fit([["x"]]), labels={"x": "Ex"}),
            Question("o", "Which other?", _lo("oue")),
        ]
    )
    html = survey.render_html({}, submit_url="/s/t")
    # k-RR with e**eps = 2 on two categories: kept with probability 2/3
    assert "yours with probability 66.7%" in html
    assert "each other category with probability 33.3%" in html
    assert 'id="q0-0" name="q0" value="0"' in html and ">Ex</label>" in html
    own, other, alone = frequency_disclosure(survey["o"].spec)
    assert alone == own * (1 - other) ** 2
    shown = f"{float(alone) * 100:.1f}%"
    assert (
        f"single out your category alone: this happens with probability {shown}" in html
    )
    # one wave only: nothing is said about keeping draws
    assert "This device keeps" not in html
    repeated = Questionnaire(survey.questions, lifetime_epsilon=10.0)
    html = repeated.render_html({}, submit_url="/s/t", wave=2)
    assert "collects\nwave 2" in html
    assert "every wave of the survey sends a new random version of it" in html
    assert "Every wave of the survey sends the same draw for the same answer" in html


# -- exact laws of the page's samplers ----------------------------------------------
COARSE = {
    "krr": {"kind": "frequency", "oracle": "krr", "k": 3, "memoized": False,
            "stages": [{"keep": "5/8"}]},
    "oue": {"kind": "frequency", "oracle": "oue", "k": 3, "memoized": False,
            "stages": [{"one": "1/2", "zero": "1/4"}]},
    "long_krr": {"kind": "frequency", "oracle": "krr", "k": 3, "memoized": True,
                 "stages": [{"keep": "5/8"}, {"keep": "3/4"}]},
    "long_oue": {"kind": "frequency", "oracle": "oue", "k": 3, "memoized": True,
                 "stages": [{"one": "1/2", "zero": "1/4"},
                            {"one": "1/2", "zero": "3/8"}]},
}  # fmt: skip


@pytest.fixture
def node():
    if node_path() is None:
        skip_or_fail("node is not installed (apt-get install nodejs)")


def _one_wave_discrepancy(spec, samplers=None):
    jobs = [{"spec": spec, "value": c} for c in range(spec["k"])]
    worst = Fraction(0)
    for job, law in zip(jobs, page_laws(jobs, tail_bits=40, samplers=samplers)):
        assert law.residual == 0  # no rejection loop: enumerated in full
        worst = max(worst, compare_laws(law, spec_law(spec, job["value"]))[0])
    return worst


@pytest.mark.parametrize("name", list(COARSE))
def test_one_wave_of_the_page_follows_the_python_law_for_every_category(node, name):
    assert _one_wave_discrepancy(COARSE[name]) == 0


def _key(reports):
    return tuple(
        tuple(float(b) for b in r) if isinstance(r, tuple) else float(r)
        for r in reports
    )


def _waves_discrepancy(spec, value, waves, samplers=None):
    job = {"op": "waves", "spec": spec, "value": value, "waves": waves}
    (law,) = page_laws([job], tail_bits=40, samplers=samplers)
    assert law.residual == 0
    claimed = {_key(r): (p, p) for r, p in frequency_law(spec, value, waves).items()}
    return compare_laws(law, claimed)[0]


@pytest.mark.parametrize(
    ("name", "k"), [("long_krr", 3), ("long_oue", 2)], ids=["krr", "oue"]
)
def test_two_waves_of_the_page_share_one_permanent_answer(node, name, k):
    spec = {**COARSE[name], "k": k}
    for value in range(k):
        assert _waves_discrepancy(spec, value, 2) == 0


def _planted(tmp_path, old, new):
    text = SAMPLERS.read_text()
    assert text.count(old) == 1
    copy = tmp_path / "samplers.js"
    copy.write_text(text.replace(old, new))
    return str(copy)


def test_a_krr_stage_that_can_keep_the_category_as_other_is_caught(node, tmp_path):
    bad = _planted(
        tmp_path,
        "return other < input ? other : other + 1;",
        "return other <= input ? other : other + 1;",
    )
    assert _one_wave_discrepancy(COARSE["krr"], samplers=bad) > 0


def test_a_fresh_permanent_answer_per_wave_is_caught(node, tmp_path):
    bad = _planted(
        tmp_path,
        "for (let t = 0; t < waves; t++) out.push(instant(spec, kept));",
        "for (let t = 0; t < waves; t++) "
        "out.push(instant(spec, permanent(spec, value)));",
    )
    assert _waves_discrepancy(COARSE["long_krr"], 0, 2, samplers=bad) > 0


def test_swapped_unary_coins_are_caught(node, tmp_path):
    bad = _planted(
        tmp_path,
        "const hit = b === 1 ? bernoulli(oNum, oDen) : bernoulli(zNum, zDen);",
        "const hit = b === 1 ? bernoulli(zNum, zDen) : bernoulli(oNum, oDen);",
    )
    assert _one_wave_discrepancy(COARSE["oue"], samplers=bad) > 0


# -- the lifetime accounting against the exact-law audit --------------------------
def _two_stage_joint_table(lo, waves):
    """log P(reports of `waves` waves | category), from the channel's numerators
    (written independently of frequency_law), k-RR."""
    channel = lo.oracles_[0]
    k = channel.n_categories

    def krr(keep):
        p = Fraction(keep, COIN_SCALE)
        return [
            [p if i == j else (1 - p) / (k - 1) for j in range(k)] for i in range(k)
        ]

    perm, inst = krr(channel.permanent.keep), krr(channel.instant.keep)
    outputs = list(itertools.product(range(k), repeat=waves))
    table = [
        [
            sum(perm[x][b] * math.prod(inst[b][r] for r in rs) for b in range(k))
            for rs in outputs
        ]
        for x in range(k)
    ]
    return np.log(np.array([[float(p) for p in row] for row in table]))


@pytest.mark.parametrize("waves", [1, 2, 3])
def test_same_value_lifetime_equals_the_audit_of_the_joint_law_krr(waves):
    lo = _lo("krr")
    survey = Questionnaire([Question("q", "Which?", lo)], lifetime_epsilon=10.0)
    report = survey.wave_report(waves).set_index("question")
    audited = MatrixLaw(_two_stage_joint_table(lo, waves)).worst_epsilon().value
    assert report.loc["q", "epsilon_lifetime_same_value"] == pytest.approx(
        audited, rel=1e-12
    )
    assert audited < lo.oracles_[0].lifetime_epsilon  # below the permanent answer's


def test_one_value_over_two_oue_waves_costs_more_than_two_waves():
    # the joint law of one kept answer is not bounded by the composition of
    # its waves: the report states the exact figure, not the smaller one
    survey = Questionnaire([Question("q", "Which?", _lo("oue"))], lifetime_epsilon=9.0)
    row = survey.wave_report(2).set_index("question").loc["q"]
    assert row["epsilon_lifetime_same_value"] > 2 * row["epsilon_per_wave"]


def test_same_value_lifetime_equals_the_audit_of_the_joint_law_oue():
    lo = _lo("oue", cats=["a", "b", "c"])
    spec = mechanism_spec(lo)
    law = [frequency_law(spec, x, 2) for x in range(3)]
    outputs = list(law[0])
    table = np.log([[float(law[x][r]) for r in outputs] for x in range(3)])
    audited = MatrixLaw(table).worst_epsilon().value
    assert joint_epsilon(spec, 2) == pytest.approx(audited, rel=1e-12)


def test_fresh_draws_compose_the_waves():
    # two waves of values that differ: independent draws, whose product law
    # costs exactly twice one wave
    lo = _lo("krr")
    survey = Questionnaire([Question("q", "Which?", lo)], lifetime_epsilon=10.0)
    per_wave = survey.wave_report(2).set_index("question").loc["q", "epsilon_per_wave"]
    a, b = lo.oracles_[0]._composed  # one wave's law

    def one(x, r):
        return float(a if x == r else b)

    pairs = list(itertools.product(range(3), repeat=2))
    table = np.log(
        [[one(x1, r1) * one(x2, r2) for r1, r2 in pairs] for x1, x2 in pairs]
    )
    audited = MatrixLaw(table).worst_epsilon().value
    assert audited == pytest.approx(2 * per_wave, rel=1e-12)


def _sequence_law(spec, values):
    """Law of the reports of waves answered with `values` (one per wave): a
    value seen before reuses its kept answer, a new value draws a new one."""
    groups = {}
    for t, v in enumerate(values):
        groups.setdefault(v, []).append(t)
    parts = [list(frequency_law(spec, v, len(ts)).items()) for v, ts in groups.items()]
    law = {}
    for combo in itertools.product(*parts):
        reports, prob = [None] * len(values), Fraction(1)
        for ts, (r, p) in zip(groups.values(), combo):
            for t, x in zip(ts, r):
                reports[t] = x
            prob *= p
        law[tuple(reports)] = law.get(tuple(reports), Fraction(0)) + prob
    return law


def _worst_over_sequences(spec, waves):
    sequences = list(itertools.product(range(spec["k"]), repeat=waves))
    laws = [_sequence_law(spec, v) for v in sequences]
    outputs = list(laws[0])
    table = np.log([[float(law[r]) for r in outputs] for law in laws])
    return MatrixLaw(table).worst_epsilon().value


@pytest.mark.parametrize(
    ("kind", "perm", "inst", "waves"),
    [("krr", 2.0, 1.0, 2), ("krr", 1.0, 2.0, 3), ("oue", 2.0, 1.0, 2)],
)
def test_any_values_bound_covers_every_sequence_of_values(kind, perm, inst, waves):
    lo = _lo(kind, perm, inst)
    survey = Questionnaire([Question("q", "Which?", lo)], lifetime_epsilon=100.0)
    row = survey.wave_report(waves).set_index("question").loc["q"]
    worst = _worst_over_sequences(survey["q"].spec, waves)
    assert worst <= row["epsilon_lifetime_any_values"] * (1 + 1e-12)
    # memoized waves do not compose like fresh draws: comparing one value
    # kept over the waves with changing ones costs more than waves x one wave
    assert worst > waves * row["epsilon_per_wave"] + 0.01
    assert row["epsilon_lifetime_same_value"] <= worst


def test_audit_page_checks_frequency_questions(node):
    from skprivate.survey import audit_page

    survey = Questionnaire(
        [
            Question("k", "?", _lo("krr", cats=list("abcde"))),
            Question("o", "?", _lo("oue", cats=list("abcde"))),
        ]
    )
    table = audit_page(survey)
    assert table["question"].tolist() == ["k", "o"]
    assert table["agrees"].all() and (table["residual"] == 0).all()
