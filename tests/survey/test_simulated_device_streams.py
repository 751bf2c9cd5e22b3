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
