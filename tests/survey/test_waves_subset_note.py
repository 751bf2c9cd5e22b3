"""A subset question asked in several waves is flagged in the wave report.

A device that keeps no answer draws a fresh subset at each wave; the ledger
does not charge subset questions, and the subsets intersect towards the
true category.  The report says so whenever more than one wave is asked.
"""

from __future__ import annotations

import warnings

from skprivate import SubsetUniform
from skprivate.frequency import LongitudinalOracle
from skprivate.survey import Question, Questionnaire

_CAUTION = (
    "s: a device that keeps no answer (storage refused or cleared, another "
    "browser) draws a fresh subset at each wave, uncharged, and the subsets "
    "intersect towards the true category: ask subset questions in one wave only"
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
