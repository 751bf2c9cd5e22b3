"""A subset question asked in several waves is flagged in the wave report.

A device that keeps no answer draws a fresh subset at each wave; the ledger
does not charge subset questions, and the subsets intersect towards the
true category.  The report says so whenever more than one wave is asked.
"""

from __future__ import annotations

import warnings

import pytest

from skprivate import SubsetUniform
from skprivate.frequency import LongitudinalOracle
from skprivate.survey import Question, Questionnaire

_CAUTION = (
    "s: a device that keeps no answer (storage refused or cleared, another "
    "browser) draws a fresh subset at each wave, uncharged, and the subsets "
    "intersect towards the true category: ask subset questions in one wave only (a "
    "server for a later wave refuses them)"
)


def _survey():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        lo = LongitudinalOracle(
            epsilon_permanent=2.0, epsilon_instant=1.0, categories=[["a", "b", "c"]]
        ).fit([["a"]])
        su = SubsetUniform(categories=[["a", "b", "c", "d"]]).fit([["a"]])
    return Questionnaire(
        [Question("q", "Which?", lo), Question("s", "Pick?", su)],
        lifetime_epsilon=4.0,
    )


def test_later_waves_of_a_subset_question_carry_the_caution():
    survey = _survey()
    assert survey.wave_report(2).iloc[-1]["note"].endswith(_CAUTION)
    assert _CAUTION not in survey.wave_report(1).iloc[-1]["note"]


def test_a_server_for_a_later_wave_refuses_subset_questions(tmp_path):
    from skprivate.survey import create_app

    database = f"sqlite:///{tmp_path / 'waves.db'}"
    create_app(_survey(), database, wave=1)
    with pytest.raises(ValueError) as refused:
        create_app(_survey(), database, wave=2)
    message = str(refused.value)
    assert message.startswith("wave=2: the subset question(s) s cannot be asked")
    assert message.endswith("Ask subset questions in one wave only.")
