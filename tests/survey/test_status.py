"""The operator's view: ``survey_status``, ``survey status`` and ``/status``.

Counts over time are checked exactly on a small store whose hours are set by
hand; each estimate and interval is checked against the estimator of its
mechanism fitted in the test on the same answers, with its own ``conf_int``.
The tests that touch the database run on an SQLite file and on a PostgreSQL
database (``conftest.new_database``).
"""

from __future__ import annotations

import base64
import http.client
import json
import re
import stat
import time
import warnings
from urllib.parse import urlsplit

import numpy as np
import pandas as pd
import pytest

from skprivate import (
    DeconvolutionKernelDensity,
    IntervalCaseI,
    IntervalNPMLE,
    LaplaceLDP,
    RVNSDensityEstimator,
    RVNSPerturber,
    SubsetDistributionEstimator,
    SubsetUniform,
)
from skprivate.exceptions import NotIdentifiableWarning
from skprivate.ldp import SquareWaveEMSEstimator, SquareWaveLDP
from skprivate.survey import (
    Question,
    Questionnaire,
    background_server,
    issue_tokens,
    read_responses,
    survey_status,
)
from skprivate.survey._status_page import check_operator, read_operator_token
from skprivate.survey._store import SurveyStore, hash_token

from .conftest import RACES, db_query, running_server

OPERATOR = "operator-token-for-the-tests-0123456789"
HOUR = 3600
# 2026-11-27 22:00 UTC, the start of an hour
T0 = 1795816800


def small_survey() -> Questionnaire:
    """One question of each kind whose intervals take no resampling."""
    return Questionnaire(
        [
            Question(
                "smoker_years",
                "For how many years have you smoked?",
                IntervalCaseI(anchor_loc=15.0, anchor_scale=10.0, support=(0, 60)).fit(
                    [[0.0]]
                ),
            ),
            Question(
                "race",
                "Which of these best describes you?",
                SubsetUniform(categories=[RACES]).fit([[RACES[0]]]),
            ),
            Question(
                "hours",
                "How many hours did you work last week?",
                LaplaceLDP(epsilon=2.0, bounds=(0, 100)).fit([[0.0]]),
            ),
            Question(
                "education",
                "How many years of education have you completed?",
                SquareWaveLDP(epsilon=2.0, bounds=(1, 16)).fit([[1.0]]),
            ),
            Question(
                "commute",
                "How many minutes does your trip to work take?",
                RVNSPerturber(d=20.0, k=2, bounds=(0, 120)).fit([[0.0]]),
            ),
        ],
        title="Status survey",
    )


@pytest.fixture(scope="module")
def survey() -> Questionnaire:
    return small_survey()


def _raw_values(n: int, seed: int) -> dict:
    rng = np.random.default_rng(seed)
    return {
        # below the largest of 40 anchors but for a chance of 1e-6: the
        # NPMLE's mass lies between anchors, where it is identified
        "smoker_years": rng.uniform(0, 20, n),
        "race": rng.choice(RACES, n),
        "hours": rng.uniform(0, 100, n),
        "education": rng.uniform(1, 16, n),
        "commute": rng.uniform(0, 120, n),
    }


def _store_answers(survey, database, n: int, extra: int = 0, seed: int = 0):
    """Issue ``n + extra`` tokens and store simulated answers for ``n``;
    (tokens, answers, anchors) of the answered ones."""
    tokens = issue_tokens(survey, database, n + extra)[:n]
    if n == 0:
        return [], [], []
    store = SurveyStore(database)
    try:
        anchors = [store.lookup(t)["anchors"] for t in tokens]
        specs = [survey.respondent_spec(a) for a in anchors]
        answers = survey.simulate_answers(
            specs, _raw_values(n, seed), random_state=seed
        )
        assert set(store.store_batch(list(zip(tokens, answers)))) <= {"stored"}
    finally:
        store.close()
    return tokens, answers, anchors


def _set_hours(database, hours: list) -> None:
    """Set the hour received of the responses, in the order stored."""
    ids = [row[0] for row in db_query(database, "SELECT id FROM skprivate_responses")]
    from sqlalchemy import text

    from .conftest import _engine

    with _engine(str(database)).begin() as conn:
        for i, hour in zip(sorted(ids), hours, strict=True):
            conn.execute(
                text("UPDATE skprivate_responses SET received = :h WHERE id = :i"),
                {"h": hour, "i": i},
            )


# -- counts ----------------------------------------------------------------------
# the counts are checked here: 6 answers may not identify a median
@pytest.mark.filterwarnings("ignore::skprivate.exceptions.NotIdentifiableWarning")
def test_counts_per_hour_and_per_day_are_exact(survey, new_database):
    database = new_database()
    _store_answers(survey, database, 6, extra=3)
    # two before times were recorded, one at 22:00, two at 23:00 (day 27),
    # one at 01:00 the next day
    _set_hours(database, [None, None, T0, T0 + HOUR, T0 + HOUR, T0 + 3 * HOUR])
    status = survey_status(survey, database, freq="hour")
    assert (status.issued, status.responses, status.freq) == (9, 6, "hour")
    assert [q.n_answers for q in status.questions] == [6] * 5
    assert status.counts.to_dict(orient="list") == {
        "period": [
            "unrecorded",
            "2026-11-27T22:00Z",
            "2026-11-27T23:00Z",
            "2026-11-28T01:00Z",
        ],
        "responses": [2, 1, 2, 1],
        "cumulative": [2, 3, 5, 6],
    }
    daily = survey_status(survey, database, freq="day")
    assert daily.counts.to_dict(orient="list") == {
        "period": ["unrecorded", "2026-11-27", "2026-11-28"],
        "responses": [2, 3, 1],
        "cumulative": [2, 5, 6],
    }
    # auto: per hour within 48 hours, per day beyond
    assert survey_status(survey, database).freq == "hour"
    _set_hours(database, [None, None, T0, T0 + HOUR, T0 + HOUR, T0 + 49 * HOUR])
    assert survey_status(survey, database).freq == "day"


def test_a_response_records_the_hour_it_was_received(survey, new_database):
    database = new_database()
    before = int(time.time()) // HOUR * HOUR
    _store_answers(survey, database, 2)
    after = int(time.time()) // HOUR * HOUR
    hours = [
        r[0] for r in db_query(database, "SELECT received FROM skprivate_responses")
    ]
    assert len(hours) == 2
    assert all(h in (before, after) and h % HOUR == 0 for h in hours)


@pytest.mark.filterwarnings("ignore::skprivate.exceptions.NotIdentifiableWarning")
def test_an_older_database_gets_the_column_and_keeps_its_responses(
    survey, new_database
):
    database = new_database()
    _store_answers(survey, database, 5)
    from sqlalchemy import text

    from .conftest import _engine

    with _engine(str(database)).begin() as conn:  # the schema of before
        conn.execute(text("ALTER TABLE skprivate_responses DROP COLUMN received"))
    # read-only on the old schema: every response is of unrecorded time
    status = survey_status(survey, database, freq="hour")
    assert status.counts.to_dict(orient="list") == {
        "period": ["unrecorded"],
        "responses": [5],
        "cumulative": [5],
    }
    # a server (or issue_tokens) adds the column; new responses get an hour
    _store_answers(survey, database, 1, seed=1)
    hours = db_query(database, "SELECT received FROM skprivate_responses ORDER BY id")
    assert [h is None for (h,) in hours] == [True] * 5 + [False]
    status = survey_status(survey, database, freq="hour")
    assert status.counts["responses"].tolist() == [5, 1]
    assert status.responses == 6


@pytest.mark.filterwarnings("ignore::skprivate.exceptions.NotIdentifiableWarning")
def test_counts_are_per_wave_and_estimates_of_the_latest_wave(survey, new_database):
    database = new_database()
    tokens, answers, _ = _store_answers(survey, database, 6)
    store = SurveyStore(database)
    try:
        again = list(zip(tokens[:5], answers[:5]))
        assert store.store_batch(again, wave=2) == ["stored"] * 5
    finally:
        store.close()
    _set_hours(database, [T0] * 6 + [T0 + 25 * HOUR] * 5)
    status = survey_status(survey, database, freq="day")
    assert status.counts.to_dict(orient="list") == {
        "wave": [1, 2],
        "period": ["2026-11-27", "2026-11-28"],
        "responses": [6, 5],
        "cumulative": [6, 5],
    }
    assert status.wave == 2
    assert [q.n_answers for q in status.questions] == [5] * 5
    assert status.responses == 11


# -- estimates ---------------------------------------------------------------------
def _expected(survey, database) -> dict:
    """Each question's estimator fitted here, and its statistics and intervals:
    {question: [(statistic, value, lower, upper, centre, method, covers)]}."""
    data = read_responses(database)
    p = {q.name: q.privatizer for q in survey.questions}
    fitted = {
        "smoker_years": IntervalNPMLE(bounds=(0.0, 60.0)),
        "race": SubsetDistributionEstimator(design=p["race"]),
        "hours": DeconvolutionKernelDensity(
            noise_scale=float(p["hours"].scale_[0]), support=(0.0, 100.0)
        ),
        "education": SquareWaveEMSEstimator(epsilon=2.0, bounds=(1.0, 16.0)),
        "commute": RVNSDensityEstimator(
            d=20.0, bounds=(0.0, 120.0), placement=p["commute"].placement
        ),
    }
    out = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, est in fitted.items():
            X = data[name]
            est.fit(X)
            if name == "race":
                ci = est.conf_int("pmf", level=0.95, random_state=0)
                stats = [f"P({c})" for c in RACES]
                values = list(est.distribution_[: len(RACES)])
            else:
                ci = pd.concat(
                    [
                        est.conf_int("mean", X=X, random_state=0),
                        est.conf_int("quantile", [0.5], X=X, random_state=0),
                    ],
                    ignore_index=True,
                )
                stats = ["mean", "q50"]
                values = [est.mean(), float(est.quantile(0.5))]
            out[name] = [
                (s, float(v), float(lo), float(hi), float(c), m, t)
                for s, v, lo, hi, c, m, t in zip(
                    stats,
                    values,
                    ci["lower"],
                    ci["upper"],
                    ci["estimate"],
                    ci["method"],
                    ci["target"],
                    strict=True,
                )
            ]
    return out


@pytest.fixture(scope="module")
def collected(survey, new_database):
    """A database with 40 stored responses: (database, tokens, answers, anchors)."""
    database = new_database()
    tokens, answers, anchors = _store_answers(survey, database, 40, extra=2)
    return database, tokens, answers, anchors


def test_each_estimate_and_interval_is_the_estimators_own(survey, collected):
    database = collected[0]
    status = survey_status(survey, database)
    expected = _expected(survey, database)
    assert [q.name for q in status.questions] == list(expected)
    for q in status.questions:
        got = [
            (
                r.statistic,
                r.value,
                r.lower,
                r.upper,
                r.centre,
                r.method,
                r.covers,
            )
            for r in q.estimates.itertuples()
        ]
        assert got == expected[q.name], q.name
        assert q.n_answers == 40
        assert (q.estimates["level"] == 0.95).all()
        assert not q.estimates["note"].any()
    assert status.questions[0].estimator == "IntervalNPMLE(bounds=(0, 60))"
    # another level is another interval of the same estimator
    wider = survey_status(survey, database, level=0.99).questions[2].estimates
    narrow = status.questions[2].estimates
    assert (wider["lower"] < narrow["lower"]).all()
    assert (wider["upper"] > narrow["upper"]).all()


def test_a_frequency_question_gets_its_estimators_shares(tmp_path):
    from skprivate.frequency import FrequencyEstimator, FrequencyOracle

    oracle = FrequencyOracle(epsilon=2.0, categories=[["a", "b", "c"]]).fit([["a"]])
    survey = Questionnaire([Question("pet", "Which pet do you have?", oracle)])
    database = tmp_path / "s.db"
    tokens = issue_tokens(survey, database, 30)
    values = {"pet": np.random.default_rng(0).choice(["a", "b", "c"], 30)}
    answers = survey.simulate_answers([{}] * 30, values, random_state=0)
    store = SurveyStore(database)
    try:
        assert store.store_batch(list(zip(tokens, answers))) == ["stored"] * 30
    finally:
        store.close()
    est = FrequencyEstimator(oracle=oracle).fit(read_responses(database, "pet"))
    ci = est.conf_int("pmf", random_state=0)
    got = survey_status(survey, database).questions[0]
    assert got.estimator == "FrequencyEstimator(oracle=FrequencyOracle)"
    assert got.estimates["statistic"].tolist() == ["P(a)", "P(b)", "P(c)"]
    assert got.estimates["value"].tolist() == est.distribution_.tolist()
    for column, own in (("lower", "lower"), ("upper", "upper"), ("method", "method")):
        assert got.estimates[column].tolist() == ci[own].tolist()


def test_a_memoized_frequency_question_gets_the_two_stage_estimate(tmp_path):
    from skprivate.frequency import LongitudinalFrequencyEstimator, LongitudinalOracle

    oracle = LongitudinalOracle(
        epsilon_permanent=2.0, epsilon_instant=1.0, categories=[["a", "b", "c"]]
    ).fit([["a"]])
    survey = Questionnaire([Question("pet", "Which pet do you have?", oracle)])
    database = tmp_path / "s.db"
    tokens = issue_tokens(survey, database, 40)
    values = {"pet": np.random.default_rng(1).choice(["a", "b", "c"], 40)}
    answers = survey.simulate_answers([{}] * 40, values, random_state=1)
    store = SurveyStore(database)
    try:
        assert store.store_batch(list(zip(tokens, answers))) == ["stored"] * 40
    finally:
        store.close()
    est = LongitudinalFrequencyEstimator(oracle=oracle).fit(
        read_responses(database, "pet")
    )
    ci = est.conf_int("pmf", random_state=0)
    got = survey_status(survey, database).questions[0]
    assert got.estimator.startswith("LongitudinalFrequencyEstimator(")
    assert got.estimates["value"].tolist() == est.distribution_.tolist()
    for column in ("lower", "upper", "method"):
        assert got.estimates[column].tolist() == ci[column].tolist()


@pytest.mark.parametrize("n", [0, 4])
def test_too_few_answers_give_no_number_and_say_so(survey, new_database, n):
    database = new_database()
    _store_answers(survey, database, n, extra=1)
    status = survey_status(survey, database)
    what = "no answers yet" if n == 0 else "only 4 answers"
    for q in status.questions:
        assert q.estimates.empty
        assert q.notes == (f"too few answers for an estimate ({what}; at least 5)",)
    frame = status.to_frame()
    assert frame["value"].isna().all() and frame["lower"].isna().all()
    assert json.loads(json.dumps(status.to_dict(), allow_nan=False))


def test_an_unidentified_statistic_gets_no_number_and_a_warning(tmp_path):
    survey = Questionnaire(
        [
            Question(
                "age",
                "How old are you?",
                IntervalCaseI(anchor_loc=40.0, anchor_scale=5.0).fit([[0.0]]),
            )
        ]
    )
    database = tmp_path / "s.db"
    tokens = issue_tokens(survey, database, 10)
    # every respondent above their anchor: the mass lies beyond every anchor
    cells = [1] * 10
    store = SurveyStore(database)
    try:
        assert (
            store.store_batch([(t, {"age": c}) for t, c in zip(tokens, cells)])
            == ["stored"] * 10
        )
    finally:
        store.close()
    with pytest.warns(NotIdentifiableWarning, match="age mean, age q50"):
        status = survey_status(survey, database)
    estimates = status.questions[0].estimates
    assert estimates["value"].isna().all()
    assert (estimates["note"] == "not identified by the stored answers").all()


def test_a_database_of_another_questionnaire_is_refused(survey, tmp_path):
    database = tmp_path / "s.db"
    issue_tokens(survey, database, 1)
    other = Questionnaire(list(survey.questions[:2]), title="Other")
    with pytest.raises(ValueError, match="another questionnaire"):
        survey_status(other, database)
    with pytest.raises(ValueError, match="level"):
        survey_status(survey, database, level=1.0)
    # a path with no database is refused, and not created
    missing = tmp_path / "typo.db"
    with pytest.raises(ValueError, match="no survey database at"):
        survey_status(survey, missing)
    assert not missing.exists()


# -- the operator's token --------------------------------------------------------------
def _basic(user: str, password: str) -> str:
    return "Basic " + base64.b64encode(f"{user}:{password}".encode()).decode()


@pytest.mark.parametrize(
    "header, status",
    [
        (None, 401),
        ("", 401),
        ("Bearer", 401),
        ("Digest x", 401),
        ("Bearer " + OPERATOR[:-1], 403),
        ("Bearer " + OPERATOR + "x", 403),
        (_basic("operator", "wrong"), 403),
        ("Basic !!!", 403),
        ("Bearer " + OPERATOR, 200),
        (_basic("anyone", OPERATOR), 200),
        (_basic("", OPERATOR), 200),
    ],
)
def test_the_operator_check(header, status):
    assert check_operator(header, OPERATOR) == status


def test_the_token_file_is_created_private_and_read_back(tmp_path):
    path = tmp_path / "operator.token"
    token, created = read_operator_token(path)
    assert created and len(token) >= 43
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert read_operator_token(path) == (token, False)
    path.write_text("short\n")
    with pytest.raises(ValueError, match="at least 16 characters"):
        read_operator_token(path)


def _get(url: str, path: str, authorization: str | None = None):
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=300)
    try:
        headers = {} if authorization is None else {"Authorization": authorization}
        conn.request("GET", path, headers=headers)
        reply = conn.getresponse()
        return reply.status, dict(reply.getheaders()), reply.read()
    finally:
        conn.close()


def test_the_status_page_needs_the_token_and_shows_the_same_numbers(survey, collected):
    database, tokens, answers, _ = collected
    with background_server(survey, database, operator_token=OPERATOR) as url:
        for path in ("/status", "/status.json"):
            status, headers, body = _get(url, path)
            assert status == 401
            assert headers["www-authenticate"].startswith("Basic ")
            assert body == b"operator token required"
            for wrong in ("Bearer " + "w" * 40, _basic("op", OPERATOR[:-1])):
                assert _get(url, path, wrong)[::2] == (403, b"forbidden")
        status, headers, page = _get(url, "/status", _basic("op", OPERATOR))
        assert status == 200, page
        assert "script-src" not in headers["content-security-policy"]
        assert headers["cache-control"] == "no-store"
        status, _, data = _get(url, "/status.json", "Bearer " + OPERATOR)
        assert status == 200
    expected = survey_status(survey, database).to_dict()
    assert json.loads(data) == json.loads(json.dumps(expected))
    text = page.decode()
    # every estimate and interval of survey_status, as the CLI prints them
    from skprivate.survey._status import format_number, interval_text

    for q in expected["questions"]:
        for row in q["estimates"]:
            assert f'<td class="n">{format_number(row["value"])}</td>' in text
            nan = {k: np.nan if v is None else v for k, v in row.items()}
            assert f'<td class="n">{interval_text(nan)}</td>' in text
    # no token, token hash, raw or private individual answer, and not the
    # operator's token (the anchors, drawn by the collector, may end an
    # NPMLE interval)
    forbidden = [OPERATOR] + tokens + [hash_token(t) for t in tokens]
    raw = _raw_values(40, 0)
    for name in ("hours", "education", "commute"):
        forbidden += [repr(float(v)) for v in raw[name]]
        for a in answers:
            for v in np.ravel(a[name]):
                # grid values short enough to be a rounded estimate are
                # checked in the JSON only, with full precision
                if len(format_number(v)) < len(repr(float(v))):
                    forbidden.append(repr(float(v)))
    shown = text + data.decode()
    leaked = sorted({f for f in forbidden if f in shown})
    assert not leaked, leaked
    numbers = set(re.findall(r"-?\d+\.\d+", data.decode()))
    private = {repr(float(v)) for a in answers for v in np.ravel(a["hours"])}
    assert not numbers & private


def test_without_an_operator_token_there_is_no_status_page(survey, collected):
    with background_server(survey, collected[0]) as url:
        assert _get(url, "/status", "Bearer " + OPERATOR)[0] == 404
    with pytest.raises(ValueError, match="at least 16"):
        background_server(survey, collected[0], operator_token="short").__enter__()


@pytest.mark.filterwarnings("ignore::skprivate.exceptions.NotIdentifiableWarning")
def test_serve_reads_the_token_file_and_never_prints_the_token(survey, tmp_path):
    path = tmp_path / "survey.pkl"
    survey.save(path)
    database = tmp_path / "s.db"
    _store_answers(survey, database, 6)
    token_file = tmp_path / "operator.token"
    extra = ("--operator-token-file", str(token_file))
    from .conftest import server_process

    with server_process(path, database, *extra) as server:
        token = token_file.read_text().strip()
        assert _get(server.url, "/status")[0] == 401
        assert _get(server.url, "/status", "Bearer " + token)[0] == 200
        assert _get(server.url, "/status", "Bearer " + OPERATOR)[0] == 403
    out = "\n".join(server.lines["stdout"]) + "\n".join(server.lines["stderr"])
    assert f"token written to {token_file}" in out
    assert token not in out
    assert stat.S_IMODE(token_file.stat().st_mode) == 0o600
    # a second start reads the same file
    with running_server(path, database, *extra) as url:
        assert _get(url, "/status", _basic("me", token))[0] == 200


# -- the command line ------------------------------------------------------------------
def test_the_status_command_prints_the_tables_and_json(
    survey, collected, tmp_path, capsys
):
    from skprivate.__main__ import main
    from skprivate.survey._status import format_number, interval_text

    database = collected[0]
    path = tmp_path / "survey.pkl"
    survey.save(path)
    assert main(["survey", "status", str(path), "--database", str(database)]) == 0
    out = capsys.readouterr().out
    status = survey_status(survey, database)
    assert out.startswith(
        "Status survey: 40 responses stored, 42 links issued (from the stored "
        "private answers only)\n\nresponses per hour (UTC)\n"
    )
    hours = status.counts
    assert f"{hours['period'].iloc[-1]}         40          40" in out
    lines = out.splitlines()
    for q in status.questions:
        assert f"{q.name} (40 answers): {q.estimator}" in lines
        for _, r in q.estimates.iterrows():
            name = "median (q50)" if r.statistic == "q50" else r.statistic
            printed = [
                line
                for line in lines
                if line.split()[: len(name.split())] == name.split()
                and "[" in line
                and ":" not in line
            ]
            cells = f"{format_number(r.value)}  {interval_text(r)}"
            assert any(cells in line for line in printed), (q.name, name, printed)
            assert f"  {name}: {r.method}; covers {r.covers}" in out
    argv = ["survey", "status", str(path), "--database", str(database), "--json"]
    assert main([*argv, "--level", "0.9"]) == 0
    printed = json.loads(capsys.readouterr().out)
    again = survey_status(survey, database, level=0.9).to_dict()
    assert printed == json.loads(json.dumps(again))
    assert main([*argv, "--level", "1.5"]) == 2
    assert "--level takes a level in (0, 1)" in capsys.readouterr().err
