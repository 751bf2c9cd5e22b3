"""A survey asked again in waves: one answer per link and wave, the ledger,
the lifetime budget, and the estimators reading the waves (SQLite and
PostgreSQL)."""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from skprivate import LaplaceLDP
from skprivate._audit import MatrixLaw
from skprivate.frequency import (
    FrequencyEstimator,
    GeneralizedRandomizedResponse,
    LongitudinalFrequencyEstimator,
    LongitudinalOracle,
)
from skprivate.survey import (
    Question,
    Questionnaire,
    background_server,
    create_app,
    fetch_questions,
    issue_tokens,
    read_responses,
    read_waves,
    submit_answers,
)
from skprivate.survey._spec_frequency import frequency_law
from skprivate.survey._store import SurveyStore, hash_token
from skprivate.survey._waves import (
    SimulatedDevice,
    first_wave_epsilon,
    wave_charges,
)

from .conftest import db_query, post_all

CATS = ["red", "green", "blue"]


def _oracle(kind="krr", waves=1):
    return LongitudinalOracle(
        kind=kind,
        epsilon_permanent=2.0,
        epsilon_instant=1.0,
        waves=waves,
        categories=[CATS],
    ).fit([[CATS[0]]])


def _questions():
    return [
        Question("colour", "Which colour?", _oracle("krr")),
        Question("shade", "Which shade?", _oracle("oue")),
        Question(
            "hours", "Hours?", LaplaceLDP(epsilon=1.0, bounds=(0, 10)).fit([[0.0]])
        ),
    ]


def two_wave_survey() -> Questionnaire:
    """A survey whose budget is the worst case of two waves, exactly."""
    plain = Questionnaire(_questions())
    two = plain.wave_report(2).set_index("question")
    budget = two.loc["total", "epsilon_lifetime_any_values"]
    return Questionnaire(_questions(), lifetime_epsilon=float(budget))


def _joint_audit(spec, waves):
    """The exact-law audit of the joint law of `waves` reports of one value."""
    laws = [frequency_law(spec, x, waves) for x in range(spec["k"])]
    outputs = list(laws[0])
    table = np.log([[float(law[r]) for r in outputs] for law in laws])
    return MatrixLaw(table).worst_epsilon().value


def test_two_waves_then_a_third_over_the_budget_is_refused(new_database):
    survey = two_wave_survey()
    database = new_database()
    n = 12
    tokens = issue_tokens(survey, database, n)
    values = [
        {"colour": CATS[i % 3], "shade": CATS[(i + 1) % 3], "hours": float(i % 10)}
        for i in range(n)
    ]
    devices = [SimulatedDevice(survey, random_state=i) for i in range(n)]
    sent = {}
    for wave in (1, 2):
        with background_server(survey, database, wave=wave) as url:
            specs = fetch_questions(url, tokens)
            assert {s["wave"] for s in specs} == {wave}
            answers = [d.answers(s, v) for d, s, v in zip(devices, specs, values)]
            sent[wave] = answers
            assert submit_answers(url, tokens, answers) == [201] * n
            # one answer per link and wave
            assert submit_answers(url, tokens[:2], answers[:2]) == [409, 409]
    # the Laplace answer is the kept one, resent unchanged
    assert [a["hours"] for a in sent[1]] == [a["hours"] for a in sent[2]]

    report = survey.wave_report(2).set_index("question")
    for name in ("colour", "shade"):
        spec = survey[name].spec
        assert report.loc[name, "epsilon_lifetime_same_value"] == pytest.approx(
            _joint_audit(spec, 2), rel=1e-12
        )
    # the ledger charged the worst case, two waves of every question
    ledger = db_query(
        database, "SELECT token_hash, wave, question, epsilon FROM skprivate_ledger"
    )
    assert len(ledger) == n * 2 * 3
    charges = wave_charges(survey)
    # a link's first wave costs one wave's loss, the next what it adds (b)
    assert all(e == charges[q][w - 1] for _, w, q, e in ledger)
    spent = {}
    for h, _, _, e in ledger:
        spent[h] = spent.get(h, 0.0) + e
    assert set(spent) == {hash_token(t) for t in tokens}
    assert all(
        v == pytest.approx(report.loc["total", "epsilon_lifetime_any_values"])
        for v in spent.values()
    )
    assert report.loc["total", "epsilon_lifetime_any_values"] == pytest.approx(
        survey.lifetime_epsilon, rel=1e-12
    )

    stored = len(db_query(database, "SELECT id FROM skprivate_responses"))
    with background_server(survey, database, wave=3) as url:
        page = post_all(url, [])  # the server is up
        assert page == []
        third = [d.answers(s, v) for d, s, v in zip(devices, specs, values)]
        statuses = post_all(url, [(f"/s/{t}", a) for t, a in zip(tokens, third)])
        assert statuses == [403] * n
        with pytest.raises(ValueError, match="status 403"):
            fetch_questions(url, tokens[:1])
        import urllib.request

        request = urllib.request.Request(
            f"{url}/s/{tokens[0]}",
            data=json.dumps({"answers": third[0]}).encode(),
            headers={"Content-Type": "application/json"},
        )
        with pytest.raises(urllib.error.HTTPError) as caught:
            urllib.request.urlopen(request)
        message = json.loads(caught.value.read())["error"]
        assert caught.value.code == 403
        assert f"lifetime_epsilon={survey.lifetime_epsilon:g}" in message
        assert "nothing was stored" in message
    # nothing of the refused wave was stored, in the responses or the ledger
    assert len(db_query(database, "SELECT id FROM skprivate_responses")) == stored
    assert len(db_query(database, "SELECT wave FROM skprivate_ledger")) == n * 6
    # the waves read back, per wave and across waves
    assert read_responses(database, "colour", wave=1).ravel().tolist() == [
        a["colour"] for a in sent[1]
    ]
    assert read_responses(database, "colour", wave=2).ravel().tolist() == [
        a["colour"] for a in sent[2]
    ]
    assert read_responses(database, "colour").shape == (2 * n, 1)
    wide = read_waves(database, "shade")
    assert wide.shape == (n, 2 * 3)
    assert wide[:, :3].tolist() == [a["shade"] for a in sent[1]]
    assert wide[:, 3:].tolist() == [a["shade"] for a in sent[2]]


def test_the_database_keeps_one_response_per_token_and_wave(new_database):
    from sqlalchemy import insert
    from sqlalchemy.exc import IntegrityError

    survey = two_wave_survey()
    database = new_database()
    (token,) = issue_tokens(survey, database, 1)
    store = SurveyStore(database)
    try:
        row = {"token_hash": hash_token(token), "answers": "{}", "wave": 2}
        with store.writer.begin() as conn:
            conn.execute(insert(store.responses), [row])
        with pytest.raises(IntegrityError), store.writer.begin() as conn:
            conn.execute(insert(store.responses), [row])
        with store.writer.begin() as conn:  # another wave of the same token
            conn.execute(insert(store.responses), [{**row, "wave": 1}])
    finally:
        store.close()


def test_a_link_may_skip_a_wave_but_not_answer_an_earlier_one(tmp_path):
    survey = two_wave_survey()
    database = tmp_path / "s.db"
    (token,) = issue_tokens(survey, database, 1)
    device = SimulatedDevice(survey, random_state=0)
    values = {"colour": "red", "shade": "blue", "hours": 3.0}
    answers = device.answers(survey.respondent_spec({}, "/s/x"), values)
    store = SurveyStore(database)
    try:
        charges = wave_charges(survey)
        budget = survey.lifetime_epsilon
        options = {"charges": charges, "budget": budget}
        assert store.store_batch([(token, answers)], wave=2, **options) == ["stored"]
        assert store.store_batch([(token, answers)], wave=1, **options) == ["used"]
        assert store.lookup(token)["last_wave"] == 2
        first = sum(c[0] for c in charges.values())
        assert store.lookup(token)["spent"] == pytest.approx(first)
        # the next wave costs what a later wave adds, more than a first one
        later = sum(c[1] for c in charges.values())
        assert later > first
        tight = {"charges": charges, "budget": (first + later) * 0.999}
        (outcome,) = store.store_batch([(token, answers)], wave=3, **tight)
        assert outcome.startswith("budget: wave 3 would take")
        assert store.store_batch([(token, answers)], wave=3, **options) == ["stored"]
        (outcome,) = store.store_batch([(token, answers)], wave=4, **options)
        assert outcome.startswith("budget: wave 4 would take")
    finally:
        store.close()


def test_waves_need_a_declared_budget_within_reach(tmp_path):
    plain = Questionnaire(_questions())
    with pytest.raises(ValueError, match="must declare its lifetime budget"):
        create_app(plain, tmp_path / "a.db", wave=2)
    create_app(plain, tmp_path / "b.db", wave=1)
    one = first_wave_epsilon(plain)
    with pytest.raises(ValueError, match="below the epsilon of one wave"):
        Questionnaire(_questions(), lifetime_epsilon=one * 0.99)
    with pytest.raises(ValueError, match="finite number > 0"):
        Questionnaire(_questions(), lifetime_epsilon=math.inf)
    # a one-wave survey keeps its fingerprint: its databases stay readable
    assert "lifetime_epsilon" not in plain.public_spec()
    assert "wave" not in plain.respondent_spec({}, "/s/x")


def test_the_estimators_read_the_waves(tmp_path):
    # store_batch directly: many respondents without the HTTP round trips
    plain = GeneralizedRandomizedResponse(epsilon=1.0, categories=[CATS])
    survey = Questionnaire(
        [
            Question("colour", "Which colour?", _oracle("krr")),
            Question("tone", "Which tone?", plain.fit([[CATS[0]]])),
        ],
        lifetime_epsilon=5.0,
    )
    database = tmp_path / "s.db"
    n = 4000
    tokens = issue_tokens(survey, database, n)
    truth = np.array([0.5, 0.3, 0.2])
    rng = np.random.default_rng(3)
    codes = rng.choice(3, size=n, p=truth)
    devices = [SimulatedDevice(survey, random_state=i) for i in range(n)]
    page = survey.respondent_spec({}, "/s/x")
    store = SurveyStore(database)
    charges = wave_charges(survey)
    try:
        for wave in (1, 2):
            items = [
                (
                    token,
                    device.answers(page, {"colour": CATS[code], "tone": CATS[code]}),
                )
                for token, device, code in zip(tokens, devices, codes)
            ]
            outcomes = store.store_batch(items, wave=wave, charges=charges)
            assert set(outcomes) == {"stored"}
    finally:
        store.close()
    wide = read_waves(database, "colour")
    est = LongitudinalFrequencyEstimator(oracle=_oracle("krr", waves=2)).fit(wide)
    se = np.sqrt(est.variance_)
    assert np.all(np.abs(est.distribution_raw_ - truth) < 5 * se)
    # each wave alone: the one-wave oracle, and the ordinary estimator of a
    # plain question (whose kept answer is resent: the same estimate)
    tones = []
    for wave in (1, 2):
        one = read_responses(database, "colour", wave=wave)
        assert np.array_equal(one, wide[:, wave - 1 : wave])
        single = LongitudinalFrequencyEstimator(oracle=_oracle("krr")).fit(one)
        assert np.allclose(single.distribution_raw_, est.wave_estimates_[wave - 1])
        tone = read_responses(database, "tone", wave=wave)
        freq = FrequencyEstimator(oracle=survey["tone"].privatizer).fit(tone)
        se = np.sqrt(freq.variance_)
        assert np.all(np.abs(freq.distribution_raw_ - truth) < 5 * se)
        tones.append(tone)
    assert np.array_equal(tones[0], tones[1])
    # the two waves of one respondent share the permanent answer: agreeing
    # more often than independent draws would
    a, b = _oracle("krr").oracles_[0]._composed
    independent = sum(
        float(truth[x]) * sum(float(p) ** 2 for p in [a, b, b]) for x in range(3)
    )
    agree = float(np.mean(wide[:, 0] == wide[:, 1]))
    assert agree > independent + 5 * math.sqrt(independent * (1 - independent) / n)


def test_simulated_device_follows_the_two_stage_law():
    # one kept answer, many waves: the second stage's law given it
    survey = Questionnaire(
        [Question("colour", "Which colour?", _oracle("krr"))], lifetime_epsilon=5.0
    )
    spec = survey["colour"].spec
    device = SimulatedDevice(survey, random_state=5)
    page = survey.respondent_spec({}, "/s/x")
    device.answers(page, {"colour": "green"})
    (key,) = device.kept
    kept_answer = device.kept[key]
    draws = [device.answers(page, {"colour": "green"})["colour"] for _ in range(4000)]
    assert len(device.kept) == 1 and device.kept[key] == kept_answer
    stage = {**spec, "memoized": False, "stages": spec["stages"][1:]}
    law = frequency_law(stage, kept_answer)
    counts = np.bincount(draws, minlength=3)
    for r in range(3):
        p = float(law[(r,)])
        assert abs(counts[r] / 4000 - p) < 5 * math.sqrt(p * (1 - p) / 4000)


def test_the_command_line_refuses_a_later_wave_without_a_budget(tmp_path, capsys):
    from skprivate.__main__ import main

    path = tmp_path / "plain.pkl"
    Questionnaire(_questions()).save(path)
    args = ["survey", "serve", str(path), "--database", str(tmp_path / "a.db")]
    assert main([*args, "--wave", "2", "--port", "0"]) == 2
    assert "must declare its lifetime budget" in capsys.readouterr().err
    assert main([*args, "--wave", "0"]) == 2
    assert "--wave takes a wave number >= 1" in capsys.readouterr().err


def test_the_ledger_charges_the_mechanism_the_pages_sample(tmp_path):
    """Changing the privatizer passed to a question used to change what the
    ledger charged (epsilon 0.25 a wave) while the pages kept drawing at
    epsilon 1: five waves passed a lifetime budget of 2."""
    ldp = LaplaceLDP(epsilon=1.0, bounds=(0, 100)).fit([[0.0]])
    survey = Questionnaire([Question("h", "Hours?", ldp)], lifetime_epsilon=2.0)
    ldp.set_params(epsilon=0.25).fit([[0.0]])
    assert wave_charges(survey) == {"h": (1.0, 1.0)}
    database = tmp_path / "s.db"
    tokens = issue_tokens(survey, database, 2)
    devices = [SimulatedDevice(survey, random_state=i) for i in range(2)]
    for wave in (1, 2):
        with background_server(survey, database, wave=wave) as url:
            pages = fetch_questions(url, tokens)
            assert {p["questions"][0]["spec"]["epsilon"] for p in pages} == {1.0}
            answers = [d.answers(p, {"h": 40.0}) for d, p in zip(devices, pages)]
            assert submit_answers(url, tokens, answers) == [201, 201]
    with background_server(survey, database, wave=3) as url:
        posts = [(f"/s/{t}", a) for t, a in zip(tokens, answers)]
        assert post_all(url, posts) == [403, 403]
    ledger = db_query(database, "SELECT wave, epsilon FROM skprivate_ledger")
    assert sorted(ledger) == [(1, 1.0), (1, 1.0), (2, 1.0), (2, 1.0)]


def test_the_simulated_device_keys_a_value_as_the_page_does():
    """The page keys a kept answer by ``JSON.stringify(Number(...))`` of the
    value after clipping; the device keyed ``json.dumps(value)``, so 40 and
    40.0 drew two private answers of one value."""
    hours = LaplaceLDP(epsilon=1.0, bounds=(0, 100)).fit([[0.0]])
    survey = Questionnaire(
        [
            Question("h", "Hours?", hours),
            Question("colour", "Which colour?", _oracle("krr")),
        ],
        lifetime_epsilon=10.0,
    )
    assert survey["h"].spec["clip"]
    page = survey.respondent_spec({}, "/s/x")
    device = SimulatedDevice(survey, random_state=0)
    first = device.answers(page, {"h": 40, "colour": "green"})["h"]
    for value in (40.0, np.float64(40.0), np.int64(40)):
        assert device.answers(page, {"h": value, "colour": "green"})["h"] == first
    assert len(device.kept) == 2
    # values clipped to the same bound are one value on the page
    top = device.answers(page, {"h": 100, "colour": np.str_("green")})["h"]
    assert device.answers(page, {"h": 150.0, "colour": "green"})["h"] == top
    assert len(device.kept) == 3
    with pytest.raises(ValueError, match="question 'h' must be a number") as info:
        device.answers(page, {"h": "forty", "colour": "green"})
    assert "forty" not in str(info.value)
