"""What each question says it sends is true for every draw of its mechanism.

A subset question used to promise "your category itself is never sent"
while a uniform design on three categories sends the category alone about
30% of the time.  The note now states the probabilities the design implies,
computed exactly (:func:`subset_disclosure`); they are checked here against
an enumeration of the claimed law of every report and against the Python
privatizer's draws.
"""

from __future__ import annotations

import re
from fractions import Fraction

import numpy as np
import pytest

from skprivate import IntervalCaseI, LaplaceLDP, RVNSPerturber, SubsetUniform
from skprivate.ldp import SquareWaveLDP
from skprivate.subset import SubsetDesign, SubsetMechanism
from skprivate.survey import GUARANTEE, Question, Questionnaire, mechanism_spec
from skprivate.survey._page_audit import _subset_law
from skprivate.survey._spec import subset_disclosure

SPORTS = ["Fencing", "Rowing", "Judo"]


def _subset(categories, **kw):
    return SubsetUniform(categories=[categories], **kw).fit([[categories[0]]])


def _designs():
    pairs = [[int(i in (j, k)) for i in range(4)] for j in range(4) for k in range(j)]
    # {a} and its complement, then two pairs and their complements: only
    # category a can be sent alone
    independent = SubsetDesign.independent(
        [
            [1, 0, 0, 0],
            [0, 1, 1, 1],
            [1, 1, 0, 0],
            [0, 0, 1, 1],
            [1, 0, 1, 0],
            [0, 1, 0, 1],
        ],
        [0.1, 0.1, 0.2, 0.2, 0.2, 0.2],
        min_coverage=0.125,
    )
    conditional = SubsetDesign.conditional(pairs, [1 / 3] * 6)
    return {
        "uniform-3": _subset(SPORTS),
        "uniform-2": _subset(["yes", "no"]),
        "uniform-5": _subset(list("abcde")),
        "uniform-5-dummies": _subset(list("abcde"), min_coverage=0.1),
        "independent-dummies": SubsetMechanism(
            design=independent, categories=[list("abcd")]
        ).fit([["a"]]),
        "conditional": SubsetMechanism(
            design=conditional, categories=[list("abcd")]
        ).fit([["a"]]),
    }


def _enumerated(spec):
    """(min P(x in A), max P(A = {x})) from the claimed law of every report."""
    p = spec["p"]
    contains, alone = Fraction(1), Fraction(0)
    for x in range(p):
        law = _subset_law(spec, x)
        held = sum(lo for report, (lo, _) in law.items() if report[x] == 1)
        single = sum(
            lo
            for report, (lo, _) in law.items()
            if report[x] == 1 and sum(report[:p]) == 1
        )
        contains, alone = min(contains, held), max(alone, single)
    return contains, alone


@pytest.mark.parametrize("name", list(_designs()))
def test_subset_disclosure_is_the_exact_law_of_the_reports(name):
    spec = mechanism_spec(_designs()[name])
    assert subset_disclosure(spec) == _enumerated(spec)


def test_three_categories_send_the_category_alone_about_a_third_of_the_time():
    spec = mechanism_spec(_subset(SPORTS))
    contains, alone = subset_disclosure(spec)
    alpha = Fraction(0.05)
    # nu uniform on the 6 subsets of size 1 or 2; a true respondent sends {x}
    # when nu draws {x} or its complement, a dummy when nu draws {x}
    assert alone == (1 - 2 * alpha) * Fraction(2, 6) + 2 * alpha * Fraction(1, 6)
    assert contains == 1 - 2 * alpha + 2 * alpha * Fraction(3, 6)
    assert abs(float(alone) - 0.3167) < 1e-4


def test_the_python_privatizer_sends_the_category_alone_as_often():
    n = 200_000
    priv = SubsetUniform(categories=[SPORTS], random_state=7).fit([["Fencing"]])
    reports = np.asarray(priv.transform(np.array([["Fencing"]] * n, dtype=object)))
    true_part = reports[:, :3]
    share = np.mean((true_part.sum(axis=1) == 1) & (true_part[:, 0] == 1))
    held = np.mean(true_part[:, 0] == 1)
    _, alone = subset_disclosure(mechanism_spec(priv))
    contains, _ = subset_disclosure(mechanism_spec(priv))
    for got, want in ((share, float(alone)), (held, float(contains))):
        se = np.sqrt(want * (1 - want) / n)
        assert abs(got - want) < 4 * se, (got, want)


def _notes(html: str) -> list[str]:
    return re.findall(r'class="skp-privacy">([^<]*)<', html)


def _survey():
    return Questionnaire(
        [
            Question("sport", "Which sport?", _subset(SPORTS)),
            Question("team", "Which team?", _subset(list("abcde"))),
            Question("pair", "Yes or no?", _subset(["yes", "no"])),
            Question(
                "hours",
                "Hours?",
                LaplaceLDP(epsilon=1.0, bounds=(0, 100)).fit([[0.0]]),
            ),
            Question(
                "years", "Years?", SquareWaveLDP(epsilon=1, bounds=(0, 9)).fit([[0.0]])
            ),
            Question(
                "commute",
                "Minutes?",
                RVNSPerturber(d=20.0, k=2, bounds=(0, 120)).fit([[0.0]]),
            ),
            Question("age", "Age?", IntervalCaseI(support=(-5, 5)).fit([[0.0]])),
        ]
    )


def test_the_subset_notes_state_what_is_sent_and_how_often():
    notes = _notes(_survey().render_html(submit_url="/s/x"))
    sport, team, pair = notes[:3]
    assert "never sent" not in " ".join(notes[:3])
    assert "your category alone" in sport and "probability 31.7%" in sport
    assert "contains yours with probability 95.0%" in sport
    assert "at least two categories" in team and "alone" not in team
    assert "among those that contain yours" in team
    assert "probability 95.0%" in pair  # two categories: alone unless set aside


def test_no_note_or_heading_promises_that_the_value_never_leaves():
    html = _survey().render_html(submit_url="/s/x")
    notes = _notes(html)
    # only the negative survey never sends the value (its reports avoid a
    # band holding it), and only its note says so
    for note, kind in zip(notes, ["subset"] * 3 + ["ldp"] * 2 + ["rvns", "interval"]):
        if kind != "rvns":
            assert "never sent" not in note and "never leaves" not in note, note
    about = re.search(r'<section class="skp-about".*?</section>', html, re.S).group(0)
    assert "never sent" not in about
    assert "can still coincide with your answer" in " ".join(about.split())
    assert "No raw value can reach the server" not in GUARANTEE
    assert "An output can still reveal the value" in GUARANTEE
    report = _survey().privacy_report().set_index("question")["sent"]
    assert "it can be the category alone" in report["sport"]


def test_number_hints_name_the_unit_once_after_the_range():
    survey = Questionnaire(
        [
            Question(
                "edu",
                "Years of education?",
                LaplaceLDP(epsilon=1.0, bounds=(1, 16)).fit([[1.0]]),
                unit="years",
            ),
            Question(
                "hours", "Hours?", LaplaceLDP(epsilon=1.0, bounds=(0, 100)).fit([[0.0]])
            ),
        ]
    )
    html = survey.render_html(submit_url="/s/x")
    assert "Enter a number from 1 to 16 years" in html
    assert "1 years" not in html
    assert "Enter a number from 0 to 100" in html
