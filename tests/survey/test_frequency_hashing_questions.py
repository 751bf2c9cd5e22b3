"""Frequency questions of local hashing (OLH, BLH) and Hadamard response (HR):
their spec, the exact laws of the page's samplers (samplers.js under Node,
every random word enumerated) against the Python oracle's law, the server's
answer checks, the estimate from stored answers, and one respondent in
Chromium."""

from __future__ import annotations

import json
import math
from fractions import Fraction
from pathlib import Path

import numpy as np
import pytest

from skprivate.frequency import (
    BinaryLocalHashing,
    FrequencyEstimator,
    FrequencyOracle,
    HadamardResponse,
    OptimizedLocalHashing,
)
from skprivate.frequency._coins import COIN_SCALE
from skprivate.survey import (
    Question,
    Questionnaire,
    audit_page,
    issue_tokens,
    mechanism_spec,
    read_responses,
    survey_status,
)
from skprivate.survey._page_audit import compare_laws, page_laws
from skprivate.survey._server import PayloadError, _Checker
from skprivate.survey._spec_frequency import (
    check_frequency_spec,
    frequency_disclosure,
    frequency_law,
    joint_epsilon,
    later_wave_epsilon,
)
from skprivate.survey._store import SurveyStore

from .conftest import node_path, running_server, skip_or_fail

SAMPLERS = Path(__file__).parents[2] / "skprivate" / "survey" / "static" / "samplers.js"
CATS = ["a", "b", "c"]


def _fit(cls, epsilon, cats=CATS, **kw):
    return cls(epsilon=epsilon, categories=[cats], **kw).fit([[cats[0]]])


# -- the Python oracle's law, read off the oracle object ---------------------------
def oracle_law(oracle, code: int, keep: Fraction | None = None) -> dict:
    """Exact law of one report of category ``code`` from the oracle's own
    parts: its report space (``output_limits``), its ``support`` (the hash
    family or Hadamard rows the estimator reads) and its keep numerator over
    ``2**62`` (or ``keep``, a coarser coin, for the page's enumeration).

    Every report has probability ``base * (p if supported else q)``: local
    hashing ``1 / n_seeds`` times ``g``-ary randomized response of the
    bucket; Hadamard response ``2 / K`` times the coin of its half.
    """
    p = Fraction(oracle.keep, COIN_SCALE) if keep is None else keep
    limits = oracle.output_limits()
    if oracle.kind in ("olh", "blh"):
        seeds, g = limits
        reports = np.array([[s, v] for s in range(seeds) for v in range(g)])
        base, q = Fraction(1, seeds), (1 - p) / (g - 1)
        key = [(int(s), int(v)) for s, v in reports]
    else:
        (order,) = limits
        reports = np.arange(order).reshape(-1, 1)
        base, q = Fraction(2, order), 1 - p
        key = [int(j) for j in reports[:, 0]]
    hit = oracle.support(reports)[:, code]
    return {(r,): base * (p if h else q) for r, h in zip(key, hit)}


# -- specs ----------------------------------------------------------------------
@pytest.mark.parametrize(
    ("priv", "oracle"),
    [
        (OptimizedLocalHashing(epsilon=2.0, categories=[CATS]), "olh"),
        (BinaryLocalHashing(epsilon=1.0, categories=[CATS]), "blh"),
        (FrequencyOracle(oracle="olh", epsilon=2.0, categories=[CATS]), "olh"),
    ],
)
def test_local_hashing_spec_holds_the_exact_coin_and_the_hash_family(priv, oracle):
    priv.fit([["a"]])
    spec = mechanism_spec(priv)
    o = priv.oracles_[0]
    assert spec["kind"] == "frequency" and spec["oracle"] == oracle
    assert spec["stages"] == [{"keep": f"{o.keep}/{COIN_SCALE}"}]
    # e**2 rounds to 7: g = 8 buckets on the prime 11; BLH: 2 buckets on 3
    assert (spec["prime"], spec["buckets"]) == ((11, 8) if oracle == "olh" else (3, 2))
    assert (spec["prime"], spec["buckets"]) == (o.prime, o.n_buckets)
    assert spec["memoized"] is False and spec["categories"] == CATS
    assert spec["epsilon"] == float(priv.epsilon)
    assert "order" not in spec


def test_hadamard_spec_holds_the_exact_coin_and_the_order():
    for k, order in ((3, 4), (4, 8), (7, 8), (8, 16)):
        cats = [f"c{j}" for j in range(k)]
        hr = _fit(HadamardResponse, 1.5, cats)
        spec = mechanism_spec(hr)
        assert spec["oracle"] == "hr" and spec["order"] == order
        assert spec["stages"] == [{"keep": f"{hr.oracles_[0].keep}/{COIN_SCALE}"}]
        assert "prime" not in spec and spec["memoized"] is False
    auto = FrequencyOracle(oracle="hr", epsilon=1.0, categories=[CATS]).fit([["a"]])
    assert mechanism_spec(auto)["order"] == 4


@pytest.mark.parametrize(
    ("cls", "eps", "k"),
    [
        (OptimizedLocalHashing, math.log(2), 3),  # g = 3, P = 3
        (OptimizedLocalHashing, 1.0, 4),  # g = 4, P = 5
        (BinaryLocalHashing, 0.7, 5),  # g = 2, P = 5
        (HadamardResponse, 1.0, 3),
        (HadamardResponse, 0.3, 6),
    ],
)
def test_spec_law_is_the_python_oracles_law_exactly(cls, eps, k):
    # the real 62-bit coins: every report's probability, as exact rationals
    cats = [f"c{j}" for j in range(k)]
    priv = _fit(cls, eps, cats)
    spec = mechanism_spec(priv)
    for code in range(k):
        law = frequency_law(spec, code)
        assert law == oracle_law(priv.oracles_[0], code)
        assert sum(law.values()) == 1
        # the package's own table of the law (log probabilities, reports in
        # the same order: seeds, then buckets; indices)
        table, _ = priv.oracles_[0].full_table(cats)
        got = np.log([float(p) for p in law.values()])
        np.testing.assert_allclose(got, table[code], rtol=0, atol=1e-12)
    if cls is not HadamardResponse:
        with pytest.raises(ValueError, match="1061930 seeds x 2 buckets are too many"):
            frequency_law({**spec, "prime": 1031, "buckets": 2}, 0, 1)
        with pytest.raises(ValueError, match="one report per value"):
            frequency_law(spec, 0, 2)


@pytest.mark.parametrize(
    ("cls", "eps"),
    [(OptimizedLocalHashing, 2.0), (BinaryLocalHashing, 1.0), (HadamardResponse, 1.0)],
)
def test_disclosure_and_loss_are_the_oracles(cls, eps):
    priv = _fit(cls, eps)
    o = priv.oracles_[0]
    spec = mechanism_spec(priv)
    own, other, alone = frequency_disclosure(spec)
    assert own == Fraction(o.keep, COIN_SCALE) and alone is None
    assert float(other) == pytest.approx(o.q_star, rel=1e-15)
    # P(another category is supported), summed over the exact law
    law = frequency_law(spec, 0)
    if spec["oracle"] == "hr":
        rows = np.arange(spec["order"]).reshape(-1, 1)
        supported = {(int(r[0]),) for r, h in zip(rows, o.support(rows)[:, 1]) if h}
    else:
        rows = np.array([r for (r,) in law])
        supported = {
            (tuple(map(int, r)),) for r, h in zip(rows, o.support(rows)[:, 1]) if h
        }
    assert other == sum(law[r] for r in supported)
    assert joint_epsilon(spec, 1) == pytest.approx(o.realised_epsilon, rel=1e-13)
    assert joint_epsilon(spec, 1) <= eps
    with pytest.raises(ValueError, match="one report per value"):
        joint_epsilon(spec, 2)
    with pytest.raises(ValueError, match="no memoized form"):
        later_wave_epsilon(spec)


def test_a_memoized_spec_of_a_one_stage_oracle_is_refused():
    olh = mechanism_spec(_fit(OptimizedLocalHashing, 1.0))
    for oracle in ("olh", "blh", "hr"):
        with pytest.raises(ValueError) as info:
            check_frequency_spec("pet", {**olh, "oracle": oracle, "memoized": True})
        message = str(info.value)
        assert f"question 'pet': the '{oracle}' oracle has no memoized form" in message
        assert "['krr', 'oue', 'sue']" in message
    check_frequency_spec("pet", olh)
    check_frequency_spec("pet", {**olh, "oracle": "krr", "memoized": True})
    with pytest.raises(ValueError, match="question 'pet': the frequency oracle 'x'"):
        check_frequency_spec("pet", {**olh, "oracle": "x"})
    # the server refuses to start on such a question
    survey = Questionnaire([Question("pet", "Which pet?", _fit(HadamardResponse, 1.0))])
    survey["pet"].spec["memoized"] = True
    with pytest.raises(ValueError, match="question 'pet': the 'hr' oracle has no"):
        _Checker(survey)


# -- the server's answer checks ------------------------------------------------
@pytest.fixture(scope="module")
def survey():
    return Questionnaire(
        [
            Question("olh", "Which?", _fit(OptimizedLocalHashing, 1.0, list("abcd"))),
            Question("blh", "Which?", _fit(BinaryLocalHashing, 1.0)),
            Question("hr", "Which?", _fit(HadamardResponse, 1.0, list("abcde"))),
        ]
    )


def _parse(checker, **answers):
    good = {"olh": [19, 3], "blh": [5, 1], "hr": 7}
    body = json.dumps({"answers": {**good, **answers}}).encode()
    return checker.parse(body)


def test_well_formed_answers_are_accepted(survey):
    # OLH on 4 categories at epsilon 1: g = 4, P = 5, 20 seeds; BLH: P = 3,
    # 6 seeds, 2 buckets; HR on 5 categories: order 8
    assert (survey["olh"].spec["prime"], survey["olh"].spec["buckets"]) == (5, 4)
    assert survey["hr"].spec["order"] == 8
    checker = _Checker(survey)
    assert _parse(checker) == {"olh": [19, 3], "blh": [5, 1], "hr": 7}
    assert _parse(checker, olh=[0, 0], blh=[0, 0], hr=0)["olh"] == [0, 0]


@pytest.mark.parametrize(
    ("name", "bad"),
    [
        ("olh", [20, 0]),  # seed (P - 1) P
        ("olh", [-1, 0]),
        ("olh", [0, 4]),  # bucket g
        ("olh", [0, -1]),
        ("olh", [3]),
        ("olh", [3, 1, 0]),
        ("olh", 3),
        ("olh", [1.0, 2]),
        ("olh", [True, 2]),
        ("olh", [2, False]),
        ("olh", "3,1"),
        ("olh", {"seed": 3, "bucket": 1}),
        ("blh", [6, 0]),
        ("blh", [0, 2]),
    ],
)
def test_malformed_hashing_answers_are_refused(survey, name, bad):
    seeds, g = (19, 3) if name == "olh" else (5, 1)
    with pytest.raises(PayloadError) as info:
        _parse(_Checker(survey), **{name: bad})
    assert info.value.status == 422
    assert str(info.value) == (
        f"answer to {name!r} must be a list [seed, bucket] of two integers: a "
        f"seed from 0 to {seeds} and a bucket from 0 to {g}."
    )


@pytest.mark.parametrize("bad", [8, -1, 2.0, True, [3], "3", None])
def test_malformed_hadamard_answers_are_refused(survey, bad):
    with pytest.raises(PayloadError) as info:
        _parse(_Checker(survey), hr=bad)
    assert str(info.value) == (
        "answer to 'hr' must be the reported Hadamard index, an integer from 0 to 7."
    )


# -- stored answers, the estimate and the wording -------------------------------
def test_the_estimate_from_stored_answers_is_the_estimators_own(survey, tmp_path):
    n = 60
    database = tmp_path / "s.db"
    tokens = issue_tokens(survey, database, n)
    rng = np.random.default_rng(3)
    values = {
        "olh": rng.choice(list("abcd"), n, p=[0.4, 0.3, 0.2, 0.1]),
        "blh": rng.choice(CATS, n),
        "hr": rng.choice(list("abcde"), n),
    }
    answers = survey.simulate_answers([{}] * n, values, random_state=3)
    store = SurveyStore(database)
    try:
        assert store.store_batch(list(zip(tokens, answers))) == ["stored"] * n
    finally:
        store.close()
    status = {q.name: q for q in survey_status(survey, database).questions}
    for name, width in (("olh", 2), ("blh", 2), ("hr", 1)):
        sent = np.array([a[name] for a in answers], dtype=np.int64).reshape(n, width)
        stored = read_responses(database, name)
        assert stored.dtype == np.int64 and stored.tolist() == sent.tolist()
        est = FrequencyEstimator(oracle=survey[name].privatizer).fit(sent)
        got = status[name]
        assert (
            got.estimator == f"FrequencyEstimator(oracle={type(est.oracle).__name__})"
        )
        assert got.estimates["value"].tolist() == est.distribution_.tolist()
        ci = est.conf_int("pmf", random_state=0)
        assert got.estimates["lower"].tolist() == ci["lower"].tolist()
    frame = read_responses(database, as_frame=True)
    assert [c for c in frame.columns if c != "wave"][:5] == [
        "olh_seed",
        "olh_hash",
        "blh_seed",
        "blh_hash",
        "hr_hadamard",
    ]


def test_simulated_answers_have_the_reports_shape(survey):
    answers = survey.simulate_answers(
        [{}] * 4, {"olh": ["a"] * 4, "blh": ["b"] * 4, "hr": ["e"] * 4}, 0
    )
    for a in answers:
        assert isinstance(a["hr"], int) and 0 <= a["hr"] < 8
        assert len(a["olh"]) == 2 and all(isinstance(v, int) for v in a["olh"])
    report = survey.privacy_report().set_index("question")
    assert "hash seed and a bucket" in report.loc["olh", "sent"]
    assert "Hadamard" in report.loc["hr", "sent"]


def test_a_simulated_device_resends_its_kept_report(survey):
    from skprivate.survey import SimulatedDevice

    waves = Questionnaire(survey.questions, lifetime_epsilon=20.0)
    device = SimulatedDevice(waves, random_state=0)
    page = waves.respondent_spec({}, "/s/x")
    values = {"olh": "b", "blh": "c", "hr": "d"}
    first = device.answers(page, values)
    assert len(first["olh"]) == 2 and isinstance(first["hr"], int)
    # plain questions: the kept report again, a copy, at every wave
    again = device.answers(page, values)
    assert again == first and again["olh"] is not first["olh"]
    report = waves.wave_report(3).set_index("question")
    for name in ("olh", "blh", "hr"):
        eps = report.loc[name, "epsilon_per_wave"]
        assert report.loc[name, "epsilon_lifetime_same_value"] == eps


def test_the_page_says_what_a_hashed_answer_reveals(survey):
    html = survey.render_html({}, submit_url="/s/t").replace("&#x27;", "'")
    own, other, _ = frequency_disclosure(survey["olh"].spec)
    assert (
        "the code sorts the categories into 4 groups, and the number sent is "
        f"your category's group with probability {float(own) * 100:.1f}%" in html
    )
    assert f"is in the group sent with probability {float(other) * 100:.1f}%" in html
    assert "This device sends a number from 0 to 7 drawn at random" in html
    assert "Each other category's half holds it with probability 50.0%" in html


# -- exact laws of the page's samplers ---------------------------------------------
@pytest.fixture
def node():
    if node_path() is None:
        skip_or_fail("node is not installed (apt-get install nodejs)")


# (privatizer, epsilon, k, coarse keep, tail bits): the real spec with only the
# 62-bit keep coin replaced by a coarse dyadic one (the enumeration follows
# uniform draws of at most 2**16 values); the Python law is the oracle's
# with the same coin
PAGE_CASES = {
    "olh k=3 eps ln 2": (OptimizedLocalHashing, math.log(2), 3, "5/8", 40),
    "olh k=4 eps 1": (OptimizedLocalHashing, 1.0, 4, "3/4", 28),
    "blh k=3": (BinaryLocalHashing, 1.0, 3, "11/16", 40),
    "hr k=3": (HadamardResponse, 1.0, 3, "5/8", 40),
    "hr k=5": (HadamardResponse, 0.5, 5, "9/16", 40),
}


def _page_case(name):
    cls, eps, k, keep, tail = PAGE_CASES[name]
    priv = _fit(cls, eps, [f"c{j}" for j in range(k)])
    spec = {**mechanism_spec(priv), "stages": [{"keep": keep}]}
    return priv.oracles_[0], spec, Fraction(keep), tail


def _key(report):
    return (
        tuple(float(v) for v in report) if isinstance(report, tuple) else float(report)
    )


def _page_discrepancy(name, samplers=None, codes=None):
    oracle, spec, keep, tail = _page_case(name)
    codes = range(spec["k"]) if codes is None else codes
    jobs = [{"spec": spec, "value": c} for c in codes]
    worst = Fraction(0)
    for job, law in zip(jobs, page_laws(jobs, tail_bits=tail, samplers=samplers)):
        assert law.residual < Fraction(1, 10**6)
        python = oracle_law(oracle, job["value"], keep)
        claimed = {_key(r): (p, p) for (r,), p in python.items()}
        worst = max(worst, compare_laws(law, claimed)[0])
    return worst


@pytest.mark.parametrize("name", list(PAGE_CASES))
def test_the_page_law_is_the_python_oracles_law_for_every_category(node, name):
    assert _page_discrepancy(name) == 0


def _planted(tmp_path, old, new):
    text = SAMPLERS.read_text()
    assert text.count(old) == 1, old
    copy = tmp_path / "samplers.js"
    copy.write_text(text.replace(old, new))
    return str(copy)


PLANTED = [
    # a seed space one short: the last seed is never drawn
    ("const seeds = (p - 1) * p;", "const seeds = (p - 1) * p - 1;", "blh k=3"),
    # a = s // P instead of 1 + s // P (a = 0 hashes every category alike)
    ("const a = 1 + (seed - b) / p;", "const a = (seed - b) / p;", "olh k=3 eps ln 2"),
    # the moved bucket can be the hashed one
    (
        "return [seed, other < bucket ? other : other + 1];",
        "return [seed, other <= bucket ? other : other + 1];",
        "olh k=3 eps ln 2",
    ),
    # the index moved by the whole row instead of its lowest set bit
    (
        "index ^ (row & -row);",
        "index ^ row;",
        "hr k=5",
    ),
    # the row of category x taken as x instead of x + 1
    ("const row = code + 1;", "const row = code;", "hr k=3"),
]


@pytest.mark.parametrize(("old", "new", "name"), PLANTED, ids=[p[2] for p in PLANTED])
def test_planted_sampler_bugs_are_caught(node, tmp_path, old, new, name):
    bad = _planted(tmp_path, old, new)
    assert _page_discrepancy(name, samplers=bad) > 0


def test_audit_page_checks_the_new_questions(node, survey):
    table = audit_page(survey)
    assert table["question"].tolist() == ["olh", "blh", "hr"]
    assert table["agrees"].all()
    # the seeds' rejection loop is cut at 2**-20
    assert (table["residual"] < 1e-4).all()
    olh = json.loads(table.loc[0, "configuration"])
    assert (olh["prime"], olh["buckets"], olh["k"]) == (3, 3, 3)


# -- the checks of the mutation benchmark ------------------------------------------
def hashing_checks(group: str = "new") -> list[dict]:
    """Law checks of sampler_checks.js for local hashing and Hadamard response:
    the page cases above (the Python oracle's law with the coarse coin), plus
    the coins' ends and a Hadamard order of 16."""
    from .test_mutation_js import _check

    checks = []
    cases = [(name, *_page_case(name)) for name in PAGE_CASES]
    _, spec, _, _ = _page_case("hr k=5")
    cases.append(("hr k=5 keep 1", None, {**spec, "stages": [{"keep": "1"}]}, 1, 40))
    _, spec, _, _ = _page_case("olh k=3 eps ln 2")
    cases.append(("olh k=3 keep 0", None, {**spec, "stages": [{"keep": "0"}]}, 0, 40))
    hr16 = _fit(HadamardResponse, 2.0, [f"c{j}" for j in range(9)])
    cases.append(
        (
            "hr k=9 order 16",
            hr16.oracles_[0],
            {**mechanism_spec(hr16), "stages": [{"keep": "13/16"}]},
            Fraction(13, 16),
            40,
        )
    )
    for name, oracle, spec, keep, tail in cases:
        for code in range(spec["k"]):
            if oracle is None:
                law = frequency_law(spec, code)
            else:
                law = oracle_law(oracle, code, Fraction(keep))
            expected = {_key(r): (p, p) for (r,), p in law.items()}
            # the seed's rejection loop is cut; Hadamard orders need none
            residual = Fraction(0) if spec["oracle"] == "hr" else Fraction(1, 10**6)
            checks.append(
                _check(
                    f"{name} at {code}",
                    group,
                    {"spec": spec, "value": code},
                    expected,
                    tail,
                    residual,
                )
            )
    return checks


def test_the_mutation_checks_pass_on_the_page_samplers(node, tmp_path):
    from .test_mutation_js import run_checks

    checks = hashing_checks()
    assert len(checks) == 3 + 4 + 3 + 3 + 5 + 5 + 3 + 9
    code, out = run_checks(checks, SAMPLERS, tmp_path)
    assert code == 0, out


@pytest.mark.parametrize(
    ("old", "new", "failing"),
    [
        (
            "const a = 1 + (seed - b) / p;",
            "const a = 2 + (seed - b) / p;",
            "olh 62-bit coin: r = keep moves it, past the bucket",
        ),
        (
            "if (!Number.isSafeInteger(seeds)) {",
            "if (false) {",
            "olh seeds beyond 2^53",
        ),
        (
            "if (bernoulli(kNum, kDen)) return [seed, bucket];",
            "if (!bernoulli(kNum, kDen)) return [seed, bucket];",
            "olh 62-bit coin: r = keep - 1 keeps the bucket",
        ),
        (
            "if (spec.memoized) {",
            "if (false) {",
            "memoized olh",
        ),
    ],
)
def test_the_scripted_checks_catch_planted_bugs(node, tmp_path, old, new, failing):
    from .test_mutation_js import run_checks

    bad = _planted(tmp_path, old, new)
    code, out = run_checks([], Path(bad), tmp_path)
    assert code == 1 and out.startswith(f"FAIL {failing}"), out


# -- one respondent in Chromium -----------------------------------------------------
def test_a_respondent_answers_an_olh_question_in_the_browser(tmp_path, browser_context):
    cats = ["north", "south", "east", "west", "up"]
    priv = _fit(OptimizedLocalHashing, 1.0, cats)
    survey = Questionnaire([Question("way", "Which way?", priv)], title="Ways")
    spec = survey["way"].spec
    path = tmp_path / "survey.pkl"
    survey.save(path)
    database = tmp_path / "ways.db"
    (token,) = issue_tokens(survey, database, 1)
    posted = []
    with running_server(path, database) as url:
        page = browser_context.new_page()
        errors = []
        page.on("pageerror", lambda e: errors.append(str(e)))
        page.on(
            "request",
            lambda r: posted.append(r.post_data) if r.method == "POST" else None,
        )
        page.goto(f"{url}/s/{token}")
        page.get_by_role("radio", name="west").check()
        page.get_by_role("button", name="Send my private answers").click()
        page.get_by_role("status").filter(has_text="received").wait_for(timeout=15_000)
        shown = page.locator("#skp-sent-list").inner_text()
        page.close()
    assert errors == []
    (body,) = posted
    assert "west" not in body
    seed, bucket = json.loads(body)["answers"]["way"]
    assert 0 <= seed < (spec["prime"] - 1) * spec["prime"]
    assert 0 <= bucket < spec["buckets"]
    assert f"code {seed} and group {bucket} (drawn at random)" in shown
    assert read_responses(database, "way").tolist() == [[seed, bucket]]
