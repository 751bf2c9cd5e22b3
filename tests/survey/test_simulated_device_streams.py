"""Seeded simulated devices do not share coins across answers.

Two ``SimulatedDevice`` objects with the same seed drew the memoized
frequency answers (k-RR and unary encoding, permanent and instant stages)
from one stream whatever the value: whether each reported its value
truthfully agreed across devices answering 1 and 2 (correlation 0.66 over
600 seeds).  A seeded device now keys each answer's draws by the answer,
as a seeded privatizer mixes in its data.
"""

import numpy as np
import pytest

from skprivate.frequency import LongitudinalOracle
from skprivate.survey import Question, Questionnaire, SimulatedDevice

SEEDS = 400


@pytest.fixture(scope="module")
def survey():
    oracle = LongitudinalOracle(
        categories=[["0", "1", "2", "3"]], epsilon_permanent=1.0, epsilon_instant=1.0
    ).fit([["0"]])
    return Questionnaire([Question("q", "Which?", oracle)], lifetime_epsilon=4.0)


def _truthful(survey, seed, value):
    page = survey.respondent_spec({}, "/s/x")
    device = SimulatedDevice(survey, random_state=seed)
    return device.answers(page, {"q": value})["q"] == int(value)


def test_one_seed_and_two_answers_draw_independent_coins(survey):
    pairs = np.array(
        [(_truthful(survey, s, "1"), _truthful(survey, s, "2")) for s in range(SEEDS)]
    )
    r = np.corrcoef(pairs.T)[0, 1]
    # independent: |r| below 5 standard errors (1 / sqrt(SEEDS)) but for
    # a chance of about 6e-7; a shared stream gave about 0.66
    assert abs(r) < 5 / np.sqrt(SEEDS), r


def test_a_seeded_device_reproduces_its_answers(survey):
    page = survey.respondent_spec({}, "/s/x")
    first = [SimulatedDevice(survey, random_state=7).answers(page, {"q": "2"})]
    again = [SimulatedDevice(survey, random_state=7).answers(page, {"q": "2"})]
    assert first == again
    device = SimulatedDevice(survey, random_state=7)
    # the kept (permanent) answer is reused by later waves of one device
    device.answers(page, {"q": "2"})
    kept = dict(device.kept)
    device.answers(page, {"q": "2"})
    assert device.kept == kept


def _stages(kind, seed, value):
    """The permanent and the reported answer of one seeded device."""
    oracle = LongitudinalOracle(
        kind=kind,
        categories=[["0", "1", "2", "3"]],
        epsilon_permanent=1.0,
        epsilon_instant=1.0,
    ).fit([["0"]])
    survey = Questionnaire([Question("q", "Which?", oracle)], lifetime_epsilon=4.0)
    device = SimulatedDevice(survey, random_state=seed)
    out = device.answers(survey.respondent_spec({}, "/s/x"), {"q": value})["q"]
    (kept,) = device.kept.values()
    return kept, out


@pytest.mark.parametrize("kind", ["krr", "oue"])
def test_each_stage_draws_its_own_coins_per_answer(kind):
    # each stage separately: a stage drawn from the device stream alone
    # (not keyed by the answer) couples the two devices' coins of that stage
    rows = []
    for seed in range(SEEDS):
        (k1, o1), (k2, o2) = _stages(kind, seed, "1"), _stages(kind, seed, "2")
        if kind == "krr":
            # permanent stage: value kept; instant stage: kept answer sent
            rows.append((k1 == 1, k2 == 2, o1 == k1, o2 == k2))
        else:
            # bit 0 is 0 for both values: its permanent and reported bits
            rows.append((k1[0], k2[0], o1[0], o2[0]))
    rows = np.array(rows, dtype=float)
    for a, b in ((0, 1), (2, 3)):
        r = np.corrcoef(rows[:, a], rows[:, b])[0, 1]
        assert abs(r) < 5 / np.sqrt(SEEDS), (kind, a, r)
