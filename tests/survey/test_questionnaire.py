"""Questionnaires, mechanism specs, pages, stored answers and the command line."""

from __future__ import annotations

import base64
import hashlib
import json
import pickle
import re
import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest

from skprivate import (
    DeconvolutionKernelDensity,
    IntervalNPMLE,
    LaplaceLDP,
    RVNSDensityEstimator,
    RVNSPerturber,
    SubsetDistributionEstimator,
    SubsetUniform,
)
from skprivate.interval import IntervalCaseII, IntervalMechanism
from skprivate.ldp import GeneralizedGaussianLDP, SquareWaveEMSEstimator, SquareWaveLDP
from skprivate.survey import (
    GUARANTEE,
    Question,
    Questionnaire,
    create_app,
    issue_tokens,
    mechanism_spec,
    read_responses,
    read_waves,
)
from skprivate.survey._store import SurveyStore

from .conftest import RACES


def test_laplace_spec_is_the_privatizers_grid_and_exact_rate():
    ldp = LaplaceLDP(epsilon=0.3, bounds=(-5, 15)).fit([[0.0]])
    spec = mechanism_spec(ldp)
    assert spec["kind"] == "laplace" and spec["noise"] == "rounded_laplace"
    assert spec["step"] == ldp.grid_step_[0]
    assert (spec["k_low"], spec["k_high"]) == (ldp._k_low[0], ldp._k_high[0])
    assert spec["margin"] == ldp._margin[0]
    # gamma = epsilon / K exactly: the inverse of the scale in grid steps
    K = spec["k_high"] - spec["k_low"]
    assert Fraction(spec["gamma"]) == Fraction(0.3) / K
    assert abs(1 / float(Fraction(spec["gamma"])) - ldp.scale_[0] / spec["step"]) < 1e-6
    json.dumps(spec, allow_nan=False)


def test_square_wave_rvns_and_subset_specs():
    sw = SquareWaveLDP(epsilon=1.5, bounds=(0, 10)).fit([[0.0]])
    spec = mechanism_spec(sw)
    assert (spec["n_cells"], spec["half_cells"]) == (sw._n_cells, sw._half_cells)
    assert Fraction(spec["epsilon"]) == Fraction(1.5)
    rvns = RVNSPerturber(d=2.0, k=3, bounds=(0, 10)).fit([[0.0]])
    spec = mechanism_spec(rvns)
    _h, ja, jb, D = rvns._grid
    assert (spec["ja"], spec["jb"], spec["band"], spec["k"]) == (ja[0], jb[0], D[0], 3)
    assert spec["placement"] == rvns.placement
    if rvns.placement == "boundary_safe":
        assert (spec["report_low"], spec["report_high"]) == (ja[0] - D[0], jb[0] + D[0])
    sub = SubsetUniform(categories=[["a", "b", "c"]]).fit([["a"]])
    spec = mechanism_spec(sub)
    assert spec["design"] == "uniform" and spec["sizes"] == [1, 2]
    assert spec["dummies"] and Fraction(spec["alpha"]) == Fraction(0.05)
    assert spec["n_outputs"] == 5


@pytest.mark.parametrize(
    ("privatizer", "error", "match"),
    [
        (LaplaceLDP(bounds=(0, 1)), ValueError, "not fitted"),
        (LaplaceLDP(bounds=(0, 1)).fit([[0.0, 0.0]]), ValueError, "2 columns"),
        (LaplaceLDP(bounds=(0, 1), secure=False).fit([[0.0]]), ValueError, "secure"),
        (
            IntervalMechanism(acceptable_range=(0, 1)).fit([[0.0]]),
            ValueError,
            "exactly",
        ),
        (
            IntervalMechanism(n_anchors=2, exact_cells=[1]).fit([[1e6]]),
            ValueError,
            "exactly",
        ),
        (SquareWaveLDP(epsilon=40.0, bounds=(0, 1)).fit([[0.0]]), ValueError, "rounds"),
        (GeneralizedGaussianLDP(bounds=(0, 1)).fit([[0.0]]), TypeError, "needs"),
        ("not a privatizer", TypeError, "needs"),
    ],
)
def test_unsupported_privatizers_are_refused(privatizer, error, match):
    with pytest.raises(error, match=match):
        mechanism_spec(privatizer)


def test_questionnaire_validation_and_privacy_report(survey):
    ldp = LaplaceLDP(bounds=(0, 1)).fit([[0.0]])
    with pytest.raises(ValueError, match="distinct"):
        Questionnaire([Question("a", "A?", ldp), Question("a", "B?", ldp)])
    with pytest.raises(ValueError, match="letters"):
        Question("1a; drop", "A?", ldp)
    with pytest.raises(ValueError, match="text"):
        Question("a", " ", ldp)
    report = survey.privacy_report()
    assert list(report["question"]) == [q.name for q in survey.questions] + ["total"]
    assert report["note"].iloc[-1] == GUARANTEE
    assert "The server receives only outputs" in GUARANTEE
    on_device = report.set_index("question")["privatized_on"]
    assert on_device["age"].startswith("collector draws anchors")
    assert on_device["hours"] == "respondent's device"
    # interval and subset questions have no epsilon: no composed total
    assert np.isnan(report["epsilon"].iloc[-1])
    only_ldp = Questionnaire(
        [
            Question("a", "A?", LaplaceLDP(epsilon=1, bounds=(0, 1)).fit([[0.0]])),
            Question("b", "B?", SquareWaveLDP(epsilon=2, bounds=(0, 1)).fit([[0.0]])),
        ]
    )
    assert only_ldp.privacy_report()["epsilon"].iloc[-1] == 3.0


def test_anchors_are_rounded_drawn_per_respondent_and_shown_exactly(survey):
    anchors = survey.draw_anchors(50)
    age = np.array([a["age"] for a in anchors])
    assert age.shape == (50, 2) and np.all(np.diff(age, axis=1) >= 0)
    decimals = survey["age"].decimals
    assert decimals == 1  # spread 12: about three significant digits
    assert np.all(np.round(age, decimals) == age)
    assert len({tuple(r) for r in age.tolist()}) > 40  # fresh per respondent
    html = survey.render_html(anchors[0], submit_url="/s/x")
    for value in anchors[0]["age"]:
        assert f"at most {value:.1f} years" in html


def test_the_page_is_self_contained_and_pinned_by_its_policy(survey):
    html = survey.render_html(submit_url="/s/x")
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    policy = policy.group(1).replace("&#x27;", "'")
    script = re.search(r"<script>(.*)</script>", html, re.S).group(1)
    style = re.search(r"<style>(.*)</style>", html, re.S).group(1)

    def digest(text):
        raw = hashlib.sha256(text.encode()).digest()
        return "'sha256-" + base64.b64encode(raw).decode() + "'"

    assert f"script-src {digest(script)}" in policy
    assert f"style-src {digest(style)}" in policy
    assert "default-src 'none'" in policy and "form-action 'none'" in policy
    assert "Math.random(" not in html
    assert not re.search(r"(src|href)=\"?https?:", html)
    # every input has a label, every group a legend
    ids = re.findall(r'<input id="([^"]+)"', html)
    assert ids and all(f'<label for="{i}"' in html for i in ids)
    assert html.count("<fieldset") == html.count("<legend")


def test_question_text_cannot_break_out_of_the_page():
    ldp = LaplaceLDP(bounds=(0, 1)).fit([[0.0]])
    nasty = '</script><script>alert(1)</script><b onmouseover="x">'
    page = Questionnaire([Question("a", nasty, ldp, help=nasty)], title=nasty)
    html = page.render_html(submit_url="/s/x")
    assert "<script>alert(1)" not in html and "<b onmouseover" not in html
    block = re.search(r'id="skp-spec">(.*?)</script>', html, re.S).group(1)
    assert json.loads(block)["questions"][0]["text"] == nasty


def test_simulated_answers_pick_the_cell_of_the_value(survey):
    specs = [survey.respondent_spec() for _ in range(200)]
    rng = np.random.default_rng(3)
    values = {
        "age": rng.uniform(0, 90, 200),
        "smoker_years": rng.uniform(0, 30, 200),
        "race": rng.choice(RACES, 200),
        "hours": rng.uniform(0, 100, 200),
        "education": rng.uniform(1, 16, 200),
        "commute": rng.uniform(0, 120, 200),
    }
    answers = survey.simulate_answers(specs, values, random_state=0)
    for spec, answer, age in zip(specs, answers, values["age"]):
        q = [-np.inf, *spec["questions"][0]["anchors"], np.inf]
        assert q[answer["age"]] < age <= q[answer["age"] + 1]
    again = survey.simulate_answers(specs, values, random_state=0)
    assert again == answers  # seeded simulations reproduce


def test_read_responses_feeds_the_learners_as_it_is(survey, tmp_path):
    database = tmp_path / "r.db"
    tokens = issue_tokens(survey, database, 300)
    store = SurveyStore(database)
    specs = [survey.respondent_spec(store.lookup(t)["anchors"]) for t in tokens]
    rng = np.random.default_rng(0)
    values = {
        "age": rng.normal(40, 10, 300),
        "smoker_years": rng.uniform(0, 30, 300),
        "race": rng.choice(RACES, 300),
        "hours": rng.uniform(20, 60, 300),
        "education": rng.uniform(8, 16, 300),
        "commute": rng.uniform(10, 60, 300),
    }
    answers = survey.simulate_answers(specs, values, random_state=0)
    assert store.store_batch(list(zip(tokens, answers))) == ["stored"] * 300
    store.close()
    got = read_responses(database)
    assert set(got) == {q.name for q in survey.questions}
    cells = got["age"]
    assert cells.shape == (300, 2)
    assert np.all((cells[:, 0] < values["age"]) & (values["age"] <= cells[:, 1]))
    IntervalNPMLE().fit(cells)
    IntervalNPMLE().fit(read_responses(database, "smoker_years"))
    race = survey["race"].privatizer
    assert got["race"].dtype == np.int8
    SubsetDistributionEstimator(design=race).fit(got["race"])
    ldp = survey["hours"].privatizer
    DeconvolutionKernelDensity(noise_scale=ldp.scale_, bandwidth=5.0).fit(got["hours"])
    SquareWaveEMSEstimator(epsilon=2.0, bounds=(1, 16)).fit(got["education"])
    rvns = survey["commute"].privatizer
    RVNSDensityEstimator(
        d=20.0, bounds=(0, 120), placement=getattr(rvns, "placement", "paper")
    ).fit(got["commute"])
    frame = read_responses(database, as_frame=True)
    expected = [
        str(c)
        for q in survey.questions
        for c in q.privatizer.get_feature_names_out([q.name])
    ]
    assert list(frame.columns) == expected
    with pytest.raises(KeyError, match="No question named"):
        read_responses(database, "nope")


def test_save_and_load_round_trip(survey, tmp_path):
    path = tmp_path / "s.pkl"
    survey.save(path)
    again = Questionnaire.load(path)
    assert again.fingerprint() == survey.fingerprint()
    (tmp_path / "other.pkl").write_bytes(
        __import__("pickle").dumps({"not": "a questionnaire"})
    )
    with pytest.raises(TypeError, match="not a Questionnaire"):
        Questionnaire.load(tmp_path / "other.pkl")


def _cli(capsys, *args):
    from skprivate.__main__ import main

    code = main(["survey", *args])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_command_line_report_issue(survey, tmp_path, capsys):
    path = tmp_path / "s.pkl"
    survey.save(path)
    code, out, err = _cli(capsys, "report", str(path))
    assert code == 0, err
    assert "The server receives only outputs" in out
    database = tmp_path / "cli.db"
    code, out, err = _cli(
        capsys, "issue", str(path), "--database", str(database), "-n", "3"
    )
    assert code == 0, err
    links = out.split()
    assert len(links) == 3 and all(
        re.fullmatch(r"http://127\.0\.0\.1:8000/s/[A-Za-z0-9_-]{43}", x) for x in links
    )
    store = SurveyStore(database)
    assert store.counts() == {"issued": 3, "used": 0, "responses": 0}
    assert all(store.lookup(x.rsplit("/", 1)[1]) for x in links)
    store.close()
    code, out, err = _cli(capsys, "serve", str(tmp_path / "missing.pkl"))
    assert code == 2 and "not found" in err
    code, out, err = _cli(capsys, "issue", str(path), "-n", "0")
    assert code == 2 and "at least 1" in err


def test_import_skprivate_needs_no_survey_extra(tmp_path):
    code = """
import sys
class Block:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"starlette", "uvicorn", "sqlalchemy"}:
            raise ImportError(f"blocked {name}")
sys.meta_path.insert(0, Block())
import skprivate
from skprivate.survey import Question, Questionnaire, create_app
from skprivate import LaplaceLDP
q = Questionnaire([Question("a", "A?", LaplaceLDP(bounds=(0, 1)).fit([[0.0]]))])
assert "<form" in q.render_html(submit_url="/s/x")
try:
    create_app(q, "x.db")
except ImportError as exc:
    print("server needs the extra:", exc)
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path
    )
    assert out.returncode == 0, out.stderr
    assert "server needs the extra" in out.stdout


RAW_MAX = 123456.789
RAW = np.array([[0.5], [RAW_MAX]])
RARE = np.array([["a"], ["a"], ["b"], ["c"], ["only-one-person"]], dtype=object)


def _fitted_quietly(privatizer, X):
    with pytest.warns(Warning):  # the PrivacyLeakWarning of a fit on data
        return privatizer.fit(X)


@pytest.mark.parametrize(
    ("make", "param"),
    [
        (lambda: LaplaceLDP(epsilon=1.0), "bounds"),
        (lambda: _fitted_quietly(LaplaceLDP(epsilon=1.0), RAW), "bounds"),
        (lambda: SquareWaveLDP(epsilon=1.0), "bounds"),
        (lambda: _fitted_quietly(SquareWaveLDP(epsilon=1.0), RAW), "bounds"),
        (lambda: RVNSPerturber(d=1.0), "bounds"),
        (lambda: _fitted_quietly(RVNSPerturber(d=1.0), RAW), "bounds"),
        (lambda: SubsetUniform(), "categories"),
        (lambda: _fitted_quietly(SubsetUniform(), RARE), "categories"),
        # fitted on data, then given declared settings without a refit
        (
            lambda: _fitted_quietly(LaplaceLDP(epsilon=1.0), RAW).set_params(
                bounds=(0, 1)
            ),
            "bounds",
        ),
        (
            lambda: _fitted_quietly(SubsetUniform(), RARE).set_params(
                categories=[["a", "b", "c", "d"]]
            ),
            "categories",
        ),
    ],
    ids=[
        "laplace",
        "laplace-fitted",
        "square-wave",
        "square-wave-fitted",
        "rvns",
        "rvns-fitted",
        "subset",
        "subset-fitted",
        "laplace-set-after-fit",
        "subset-set-after-fit",
    ],
)
def test_data_derived_bounds_or_categories_are_refused(make, param):
    privatizer = make()
    with pytest.raises(ValueError, match=rf"declare `{param}=` on"):
        Question("q", "A question?", privatizer)


def test_declared_bounds_and_categories_are_accepted_and_raw_values_stay_out():
    cats = [["a", "b", "c", "d"]]
    survey = Questionnaire(
        [
            Question("x", "x?", LaplaceLDP(epsilon=1.0, bounds=(0, 100)).fit(RAW[:1])),
            Question("s", "s?", SubsetUniform(categories=cats).fit(RARE[:4])),
            Question(
                "w", "w?", SquareWaveLDP(epsilon=1.0, bounds=(0, 100)).fit(RAW[:1])
            ),
        ]
    )
    html = survey.render_html(submit_url="/s/x")
    assert "123456" not in html
    assert "only-one-person" not in html
    assert survey["x"].spec["high"] == 100.0


def test_loading_a_file_with_data_derived_bounds_is_refused(tmp_path):
    """A questionnaire pickled before the check is refused when loaded."""
    import pickle

    survey = Questionnaire(
        [Question("x", "x?", LaplaceLDP(epsilon=1.0, bounds=(0, 100)).fit(RAW[:1]))]
    )
    # what an older version let through: the bounds read from the data
    survey.questions[0].privatizer = _fitted_quietly(LaplaceLDP(epsilon=1.0), RAW)
    path = tmp_path / "old.pkl"
    path.write_bytes(pickle.dumps(survey))
    with pytest.raises(ValueError, match=r"declare `bounds=` on LaplaceLDP"):
        Questionnaire.load(path)


# -- seeds are for simulation: the collection never replays a draw -------------
def _seeded_age_survey(seed=7):
    mech = IntervalCaseII(
        anchor_loc=40, anchor_scale=12, support=(0, 120), random_state=seed
    ).fit([[0.0]])
    return Questionnaire([Question("age", "How old are you?", mech)])


def _stored_anchors(database) -> list[tuple[float, ...]]:
    store = SurveyStore(database)
    try:
        with store.reader.connect() as conn:
            rows = conn.execute(store.tokens.select()).all()
    finally:
        store.close()
    return [tuple(json.loads(row.anchors)["age"]) for row in rows]


def test_a_seeded_interval_question_never_replays_anchors_when_issuing(
    tmp_path, capsys
):
    """Two ``survey issue`` runs of one saved questionnaire (and two loads of
    it) used to give the new respondents the earlier respondents' anchors: the
    seed and the call counter travelled in the pickle."""
    path = tmp_path / "s.pkl"
    _seeded_age_survey().save(path)
    database = tmp_path / "cli.db"
    for _ in range(2):
        code, _, err = _cli(
            capsys, "issue", str(path), "--database", str(database), "-n", "3"
        )
        assert code == 0, err
    anchors = _stored_anchors(database)
    assert len(anchors) == 6 and len(set(anchors)) == 6
    database = tmp_path / "python.db"
    for _ in range(2):
        issue_tokens(Questionnaire.load(path), database, 3)
    anchors = _stored_anchors(database)
    assert len(anchors) == 6 and len(set(anchors)) == 6
    # a copy of the questionnaire draws its own anchors too
    survey = Questionnaire.load(path)
    copy = pickle.loads(pickle.dumps(survey))
    assert copy.draw_anchors(3) != survey.draw_anchors(3)
    # the privatizer's seed is not reported as what the collection does
    assert not survey.privacy_report()["reproducible"].iloc[0]


def test_anchors_reproduce_only_with_an_explicit_seed(tmp_path):
    survey = _seeded_age_survey()
    path = tmp_path / "s.pkl"
    survey.save(path)
    drawn = survey.draw_anchors(4, random_state=3)
    assert Questionnaire.load(path).draw_anchors(4, random_state=3) == drawn
    assert survey.draw_anchors(4, random_state=3) == drawn  # no hidden counter
    assert survey.draw_anchors(4, random_state=4) != drawn
    # the question's own privatizer is left as it was
    assert survey["age"].privatizer.random_state == 7
    with pytest.raises(TypeError, match="random_state must be an int"):
        survey.draw_anchors(2, random_state=1.5)
    with pytest.raises(ValueError, match="random_state must be an int >= 0"):
        survey.draw_anchors(2, random_state=-1)


def test_simulated_answers_without_a_seed_draw_afresh_in_every_copy():
    """``random_state=None`` replayed a seeded privatizer's noise across a
    pickle of the questionnaire."""
    ldp = LaplaceLDP(epsilon=1, bounds=(0, 100), random_state=0).fit([[0.0]])
    survey = Questionnaire([Question("h", "Hours?", ldp)])
    specs = [survey.respondent_spec({}, None) for _ in range(5)]
    values = {"h": [50.0] * 5}
    survey.simulate_answers(specs, values)
    copy = pickle.loads(pickle.dumps(survey))
    assert copy.simulate_answers(specs, values) != survey.simulate_answers(
        specs, values
    )
    # an explicit seed reproduces, in any copy
    seeded = survey.simulate_answers(specs, values, random_state=5)
    assert copy.simulate_answers(specs, values, random_state=5) == seeded


# -- a question keeps its own privatizer ----------------------------------------
def test_a_question_keeps_its_own_copy_of_the_privatizer(tmp_path):
    """Changing the privatizer passed used to change the report and the
    ledger's charges while the pages kept sampling the spec built first."""
    ldp = LaplaceLDP(epsilon=1.0, bounds=(0, 100)).fit([[0.0]])
    survey = Questionnaire([Question("h", "Hours?", ldp)], lifetime_epsilon=2.0)
    fingerprint = survey.fingerprint()
    ldp.set_params(epsilon=0.25).fit([[0.0]])
    q = survey["h"]
    assert q.privatizer is not ldp and q.privatizer.epsilon == 1.0
    assert q.spec["epsilon"] == 1.0
    assert survey.privacy_report()["epsilon"].tolist() == [1.0, 1.0]
    lifetime = survey.wave_report(3)["epsilon_lifetime_any_values"]
    assert lifetime.tolist() == [3.0, 3.0]
    assert survey.fingerprint() == fingerprint
    issue_tokens(survey, tmp_path / "s.db", 1)


def test_a_question_whose_privatizer_was_changed_is_refused(tmp_path):
    survey = Questionnaire(
        [Question("h", "Hours?", LaplaceLDP(epsilon=1.0, bounds=(0, 100)).fit([[0]]))]
    )
    path = tmp_path / "s.pkl"
    survey["h"].privatizer.set_params(epsilon=0.25).fit([[0.0]])
    survey.save(path)  # a file written with a changed privatizer
    match = r"privatizer of question 'h' changed since the question was built"
    for call in (
        survey.privacy_report,
        lambda: survey.wave_report(2),
        lambda: issue_tokens(survey, tmp_path / "s.db", 1),
        lambda: Questionnaire.load(path),
        lambda: Questionnaire(survey.questions),
    ):
        with pytest.raises(ValueError, match=match):
            call()
    # a setting changed without a new fit is refused with the question's name
    survey["h"].privatizer.set_params(epsilon=3.0)
    with pytest.raises(ValueError, match=r"question 'h'.*settings changed"):
        survey.privacy_report()


@pytest.mark.parametrize(
    ("make", "param"),
    [
        (lambda: LaplaceLDP(epsilon=1, bounds=(0, 100)), "epsilon"),
        (lambda: SquareWaveLDP(epsilon=1, bounds=(0, 100)), "epsilon"),
        (lambda: RVNSPerturber(d=10, k=1, bounds=(0, 100)), "d"),
        (lambda: IntervalCaseII(anchor_loc=40, anchor_scale=12), "anchor_scale"),
    ],
    ids=["laplace", "square-wave", "rvns", "interval"],
)
def test_a_spec_of_settings_changed_after_fit_is_refused(make, param):
    """The spec used to mix the new setting with the fitted scale or grid."""
    privatizer = make().fit([[0.0]])
    mechanism_spec(privatizer)
    privatizer.set_params(**{param: 5})
    with pytest.raises(ValueError, match=rf"settings changed since fit \({param}\)"):
        mechanism_spec(privatizer)
    with pytest.raises(ValueError, match="settings changed since fit"):
        Question("x", "X?", privatizer)
    mechanism_spec(privatizer.fit([[0.0]]))  # fitted again: accepted


# -- databases -------------------------------------------------------------------
def test_reading_a_missing_database_refuses_and_creates_no_file(tmp_path):
    for database in (tmp_path / "nope.db", f"sqlite:///{tmp_path}/nope2.db"):
        with pytest.raises(ValueError, match="no survey database at"):
            read_responses(database)
        with pytest.raises(ValueError, match="no survey database at"):
            read_waves(database, "age")
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("database", ["sqlite://", "sqlite:///:memory:"])
def test_tokens_are_never_issued_into_an_in_memory_database(survey, database):
    with pytest.raises(ValueError, match=r"database='sqlite:.*in-memory SQLite"):
        issue_tokens(survey, database, 3)
    with pytest.raises(ValueError, match="in-memory SQLite"):
        create_app(survey, database)
