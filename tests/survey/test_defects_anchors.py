"""Interval anchors: inside the declared support, shown as stored, estimable.

A commute question used to offer "at most -3.71 minutes", and anchors could
be shown with every digit of a float.  The anchor law of an interval
mechanism is now truncated to its declared ``support`` (coverage and
refinement follow the truncated law), and a survey question shows each
anchor with its ``decimals``, strictly inside the support, the shown number
being the one stored and turned into a cell.  The learners need only the
cells: a Case-I answer is the pair (anchor shown, whether the value is at
most it), so the estimates stay consistent whatever the anchor law.
"""

from __future__ import annotations

import re

import numpy as np
import pytest
from scipy import integrate, stats

from skprivate import IntervalCaseI, IntervalNPMLE
from skprivate.interval import (
    IntervalCaseII,
    IntervalEnsemble,
    IntervalMechanism,
    intervals_from_answers,
)
from skprivate.interval._anchors import AnchorDistribution
from skprivate.survey import Question, Questionnaire, issue_tokens, read_responses
from skprivate.survey._server import _Checker
from skprivate.survey._store import SurveyStore

SUPPORT = (0.0, 120.0)


def _commute(**kw):
    return IntervalCaseII(
        anchor_loc=30.0, anchor_scale=20.0, support=SUPPORT, **kw
    ).fit([[1.0]])


def test_the_truncated_anchor_law_is_the_law_restricted_to_the_window():
    law = AnchorDistribution("logistic", 0.0, 1.0, 30.0, 20.0, window=SUPPORT)
    base = stats.logistic(30.0, 20.0)
    mass = base.cdf(120.0) - base.cdf(0.0)
    u = np.array([-5.0, 0.0, 3.0, 30.0, 77.5, 120.0, 500.0])
    want = np.clip((base.cdf(u) - base.cdf(0.0)) / mass, 0.0, 1.0)
    np.testing.assert_allclose(law.cdf(u), want, rtol=1e-12, atol=1e-15)
    p = np.array([0.0, 0.1, 0.5, 0.9, 1.0])
    np.testing.assert_allclose(
        law.ppf(p), base.ppf(base.cdf(0.0) + p * mass), rtol=1e-12
    )
    assert law.support() == SUPPORT


@pytest.mark.parametrize(
    "make",
    [
        lambda: IntervalCaseI(anchor_loc=30.0, anchor_scale=20.0, support=SUPPORT),
        lambda: IntervalCaseII(anchor_loc=30.0, anchor_scale=20.0, support=SUPPORT),
        lambda: IntervalMechanism(
            n_anchors=3, anchor_loc=30.0, anchor_scale=20.0, support=SUPPORT
        ),
        # a window of anchors U - 20, U + 20: U itself is kept in [20, 100]
        lambda: IntervalMechanism(
            n_anchors=2,
            offsets=[-1.0, 1.0],
            anchor_loc=30.0,
            anchor_scale=20.0,
            support=SUPPORT,
        ),
        lambda: IntervalEnsemble(
            [
                IntervalCaseI(anchor_loc=30.0, anchor_scale=20.0, support=SUPPORT),
                IntervalCaseI(anchor_loc=60.0, anchor_scale=5.0, support=SUPPORT),
            ]
        ),
    ],
    ids=["case-I", "case-II", "three", "offsets", "ensemble"],
)
def test_every_anchor_lies_in_the_support(make):
    mech = make().set_params(random_state=0).fit([[1.0]])
    anchors = mech.draw_anchors(50_000)
    assert anchors.min() >= 0.0 and anchors.max() <= 120.0
    # the untruncated law puts many anchors below 0: the support is doing it
    assert anchors.min() < 1.0
    cells = mech.transform(np.full((20_000, 1), 15.0))
    finite = cells[np.isfinite(cells)]
    assert finite.min() >= 0.0 and finite.max() <= 120.0
    # refinement draws inside the reported cells stay in the support too
    refined = mech.draw_anchors(cells.shape[0], within=cells[:, :2])
    kept = refined[np.isfinite(refined)]
    assert kept.min() >= 0.0 and kept.max() <= 120.0


def test_the_support_is_validated_with_its_name():
    for support, match in [
        ((5.0, 1.0), "low < high"),
        ((0.0, float("nan")), "low < high"),
        ((1.0,), "pair"),
        ("0-120", "'support' parameter"),
        ((1e6, 2e6), "no probability inside the declared support"),
    ]:
        with pytest.raises(ValueError, match=f"support.*{match}|{match}"):
            IntervalCaseI(anchor_loc=30.0, anchor_scale=20.0, support=support).fit(
                [[1.0]]
            )
    too_wide = IntervalMechanism(
        n_anchors=2, offsets=[-5.0, 5.0], anchor_scale=20.0, support=SUPPORT
    )
    with pytest.raises(ValueError, match="support of column 0 is narrower"):
        too_wide.fit([[1.0]])
    # unbounded sides
    half = IntervalCaseI(anchor_loc=30.0, anchor_scale=20.0, support=(0, None))
    assert half.fit([[1.0]]).draw_anchors(20_000).min() >= 0.0


def _case_one_coverage(support):
    """E_U[F(U)² + (1 - F(U))²] and its standard deviation, by quadrature."""
    a, b = support
    anchors = stats.logistic(30.0, 20.0)
    if np.isfinite(a):
        ref = stats.truncnorm((a - 30.0) / 20.0, (b - 30.0) / 20.0, 30.0, 20.0)
        mass = anchors.cdf(b) - anchors.cdf(a)
    else:
        ref, mass = stats.norm(30.0, 20.0), 1.0

    def term(u):
        f = ref.cdf(u)
        return f * f + (1 - f) * (1 - f)

    def moment(k):
        value, _ = integrate.quad(
            lambda u: term(u) ** k * anchors.pdf(u) / mass, a, b, limit=200
        )
        return value

    mean = moment(1)
    return mean, np.sqrt(moment(2) - mean**2)


def test_the_coverage_follows_the_truncated_law():
    mech = IntervalCaseI(anchor_loc=30.0, anchor_scale=20.0, support=SUPPORT)
    summary = mech.fit([[1.0]]).privacy_summary()
    assert "truncated to the support [0, 120]" in summary["coverage_reference"]
    exact, sd = _case_one_coverage(SUPPORT)
    se = sd / np.sqrt(200_000)  # the Monte Carlo draws of privacy_summary
    assert abs(summary["coverage"] - exact) < 4 * se, (summary["coverage"], exact)
    untruncated, _ = _case_one_coverage((-np.inf, np.inf))
    assert abs(untruncated - exact) > 20 * se  # the test can tell them apart


def test_an_ensemble_whose_members_disagree_on_the_support_is_refused():
    ens = IntervalEnsemble(
        [
            IntervalCaseI(anchor_loc=30.0, anchor_scale=20.0, support=SUPPORT),
            IntervalCaseI(anchor_loc=30.0, anchor_scale=20.0),
        ]
    ).fit([[1.0]])
    with pytest.raises(ValueError, match="outside the support declared"):
        Question("commute", "Minutes?", ens)


def _survey(**kw):
    return Questionnaire(
        [Question("commute", "Minutes to work?", _commute(), unit="minutes", **kw)]
    )


def test_drawn_anchors_are_the_shown_numbers_strictly_inside_the_support():
    survey = _survey()
    q = survey["commute"]
    assert q.decimals == 1  # about three significant digits of a spread of 20
    grid = q.anchor_grid()
    anchors = np.array([a["commute"] for a in survey.draw_anchors(20_000)])
    assert anchors.min() > 0.0 and anchors.max() < 120.0
    assert np.all(np.diff(anchors, axis=1) >= 0)
    texts = {grid.text(v) for v in anchors.ravel()}
    assert all(re.fullmatch(r"\d+\.\d", t) for t in texts)
    assert all(float(grid.text(v)) == v for v in anchors.ravel())
    # the page reads what was drawn: every range offered can hold a value
    for row in survey.draw_anchors(300):
        html = survey.render_html(row, submit_url="/s/x")
        labels = re.findall(r'<label for="q0-\d">([^<]*)</label>', html)
        shown = [float(x) for x in re.findall(r"([-\d.]+) minutes", " ".join(labels))]
        assert all(0.0 < x < 120.0 for x in shown), labels
        assert shown[0] == row["commute"][0] and shown[-1] == row["commute"][-1]


def test_anchors_rounding_onto_the_edges_are_kept_inside():
    coarse = Question("c", "Minutes?", _commute(), decimals=0)
    anchors = coarse.anchor_grid().snap([-7.0, 0.2, 0.6, 119.7, 125.0])
    assert anchors.tolist() == [1.0, 1.0, 1.0, 119.0, 119.0]
    narrow = IntervalCaseI(anchor_scale=0.5, support=(0, 2)).fit([[1.0]])
    assert set(Question("n", "N?", narrow, decimals=0).anchor_grid().snap([0.1, 1.9]))
    with pytest.raises(ValueError, match="decimals=0 of question 'n' leaves no"):
        Question("n", "N?", IntervalCaseI(support=(0, 1)).fit([[0.5]]), decimals=0)
    # -0.0 is shown as 0
    around_zero = Question("z", "Z?", IntervalCaseI(support=(-5, 5)).fit([[0.0]]))
    grid = around_zero.anchor_grid()
    assert grid.text(grid.snap(-0.0001)) == "0.00"


@pytest.mark.parametrize(
    ("anchors", "rule"),
    [
        ([37.25, 50.0], "numbers with 1 decimals"),
        ([-3.7, 50.0], "strictly inside the support"),
        ([0.0, 50.0], "strictly inside the support"),
        ([50.0, 120.0], "strictly inside the support"),
        ([60.0, 50.0], "sorted"),
        ([float("nan"), 50.0], "finite"),
    ],
)
def test_anchors_a_page_would_misstate_are_refused(anchors, rule):
    survey = _survey()
    with pytest.raises(
        ValueError, match=f"anchors of question 'commute' must be {rule}"
    ):
        survey.respondent_spec({"commute": anchors})
    try:
        survey.render_html({"commute": anchors}, submit_url="/s/x")
    except ValueError as exc:
        assert "37.25" not in str(exc) and "-3.7" not in str(exc)


def _ranges(html: str) -> list[tuple[int, float, float]]:
    """The ranges a page offers: (radio value, lower, upper), read as text."""
    out = []
    for value, text in re.findall(
        r'name="q0" value="(\d)"><label for="q0-\d">([^<]*)</label>', html
    ):
        numbers = [float(x) for x in re.findall(r"([-\d.]+) minutes", text)]
        if text.startswith("at most"):
            out.append((int(value), -np.inf, numbers[0]))
        elif " and at most " in text:
            out.append((int(value), numbers[0], numbers[1]))
        else:
            out.append((int(value), numbers[0], np.inf))
    return out


def test_the_cell_stored_is_the_range_the_respondent_read(tmp_path):
    """Through the database: the respondent answers from the page's text."""
    survey = Questionnaire(
        [Question("commute", "Minutes?", _commute(random_state=3), unit="minutes")]
    )
    database = tmp_path / "s.db"
    tokens = issue_tokens(survey, database, 150)
    store = SurveyStore(database)
    rng = np.random.default_rng(5)
    values = rng.uniform(0.5, 119.5, len(tokens))
    items, read = [], []
    for token, value in zip(tokens, values):
        html = survey.render_html(store.lookup(token)["anchors"], submit_url="/s/t")
        # the respondent reads the page, not the database
        (choice,) = [r for r in _ranges(html) if r[1] < value <= r[2]]
        items.append((token, {"commute": choice[0]}))
        read.append(choice[1:])
    assert store.store_batch(items, _Checker(survey).check_anchors) == ["stored"] * 150
    store.close()
    cells = read_responses(database, "commute")
    assert [tuple(c) for c in cells.tolist()] == read


def test_case_one_estimates_stay_consistent_with_truncated_rounded_anchors():
    """Anchors on the integers 1..119; values Gamma(3, 9) minutes.

    Among the respondents shown anchor t, the share answering "at most t"
    estimates F(t) with the binomial standard error, whatever the anchor
    law: E[1{Y <= U} | U = t] = F(t) for anchors independent of the
    values.  The NPMLE (isotonic in t) is no further from F(t).
    """
    mech = IntervalCaseI(
        anchor_loc=30.0, anchor_scale=20.0, support=SUPPORT, random_state=0
    ).fit([[1.0]])
    survey = Questionnaire([Question("commute", "Minutes?", mech, decimals=0)])
    grid = survey["commute"].anchor_grid()
    n = 20_000
    anchors = np.array([a["commute"] for a in survey.draw_anchors(n, random_state=0)])
    law = stats.gamma(3.0, scale=9.0)
    values = law.rvs(n, random_state=np.random.default_rng(100))
    shown = np.array([[float(grid.text(v)) for v in row] for row in anchors])
    cells = np.sum(shown < values[:, None], axis=1)  # answers to the page
    intervals = intervals_from_answers(anchors, cells)  # what the collector reads
    npmle = IntervalNPMLE().fit(intervals)
    at_most = cells == 0
    for t in (10.0, 20.0, 30.0, 45.0, 60.0):
        shown_t = anchors[:, 0] == t
        f = law.cdf(t)
        se = np.sqrt(f * (1 - f) / shown_t.sum())
        assert shown_t.sum() > 150
        assert abs(at_most[shown_t].mean() - f) < 4 * se, t
        assert abs(npmle.cdf(t) - f) < 4 * se, t


def test_without_a_support_seeded_releases_are_unchanged(monkeypatch):
    """`support` enters the seed of a release only when it is declared."""
    from skprivate.base import _settings_fingerprint

    mech = IntervalCaseII(anchor_loc=30.0, anchor_scale=20.0)
    declared = _settings_fingerprint(mech.set_params(support=SUPPORT))
    mech.set_params(support=None)
    plain = _settings_fingerprint(mech)
    # the fingerprint of the same settings in a class without `support`
    params = mech.get_params(deep=False)
    params.pop("support")
    monkeypatch.setattr(IntervalCaseII, "get_params", lambda self, deep=True: params)
    assert _settings_fingerprint(mech) == plain != declared
