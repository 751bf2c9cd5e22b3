"""The collection server under bad input and under load.

The server runs as ``python -m skprivate survey serve`` in a subprocess on
loopback, with an SQLite file; requests are raw HTTP/1.1.
"""

from __future__ import annotations

import http.client
import json
import sqlite3
import time
from urllib.parse import quote, urlsplit

import numpy as np
import pytest

from skprivate.survey import (
    Questionnaire,
    issue_tokens,
    read_responses,
    submit_answers,
)
from skprivate.survey._spec import AnswerError, check_answer

from .conftest import running_server


def _post(url: str, path: str, body: bytes, headers: dict | None = None):
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request(
            "POST", path, body, {"Content-Type": "application/json", **(headers or {})}
        )
        reply = conn.getresponse()
        return reply.status, reply.read()
    finally:
        conn.close()


def _get(url: str, path: str):
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    try:
        conn.request("GET", path)
        reply = conn.getresponse()
        return reply.status, dict(reply.getheaders()), reply.read()
    finally:
        conn.close()


def _valid_answers(survey: Questionnaire, anchors: dict, seed: int = 0) -> dict:
    spec = survey.respondent_spec(anchors)
    values = {
        "age": [37.0],
        "smoker_years": [3.0],
        "race": ["Black"],
        "hours": [40.0],
        "education": [12.0],
        "commute": [25.0],
    }
    return survey.simulate_answers([spec], values, random_state=seed)[0]


def _anchors(database, token: str) -> dict:
    from skprivate.survey._store import SurveyStore

    store = SurveyStore(database)
    try:
        return store.lookup(token)["anchors"]
    finally:
        store.close()


def _db_rows(database) -> list[tuple]:
    with sqlite3.connect(database) as conn:
        return conn.execute(
            "SELECT token_hash, answers FROM skprivate_responses ORDER BY id"
        ).fetchall()


@pytest.fixture(scope="module")
def tokens(survey, served):
    _, database = served
    return issue_tokens(survey, database, 40)


def test_a_valid_answer_is_stored_once_and_a_replay_refused(survey, served, tokens):
    url, database = served
    token = tokens[0]
    answers = _valid_answers(survey, _anchors(database, token))
    body = json.dumps({"answers": answers}).encode()
    status, reply = _post(url, f"/s/{token}", body)
    assert status == 201, reply
    assert _post(url, f"/s/{token}", body)[0] == 409
    # another draw for the same token is refused too
    again = json.dumps({"answers": _valid_answers(survey, None, 1)}).encode()
    assert _post(url, f"/s/{token}", again)[0] == 409
    status, _, page = _get(url, f"/s/{token}")
    assert status == 410 and b"already received" in page
    stored = [json.loads(a) for h, a in _db_rows(database)]
    assert answers in stored
    assert sum(a == answers for a in stored) == 1


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        (b"{not json", 400, "malformed JSON"),
        (b'{"answers": {"hours": NaN}}', 400, "NaN"),
        (b'{"answers": {"hours": Infinity}}', 400, "Infinity"),
        (b'{"answers": {}, "answers": {}}', 400, "repeats a key"),
        (b"\xff\xfe", 400, "malformed JSON"),
        (b"[" * 30_000 + b"]" * 30_000, 400, "malformed JSON"),
        (b'"answers"', 422, "JSON object"),
        (b'{"answers": [], "extra": 1}', 422, "nothing else"),
        (b'{"answers": []}', 422, "must be an object"),
        (
            b'{"answers": {"x\'; DROP TABLE skprivate_responses; --": 1}}',
            422,
            "unknown",
        ),
    ],
)
def test_malformed_bodies_are_refused(served, tokens, body, status, message):
    url, database = served
    before = _db_rows(database)
    got, reply = _post(url, f"/s/{tokens[1]}", body)
    assert got == status, reply
    assert message in json.loads(reply)["error"]
    assert _db_rows(database) == before


class Raw(str):
    """JSON text put as it is in a body."""


def _mutated(survey, database, token, name, value):
    answers = _valid_answers(survey, _anchors(database, token))
    if value is KeyError:
        del answers[name]
    elif isinstance(value, Raw):
        answers[name] = "__raw__"
        text = json.dumps({"answers": answers}).replace('"__raw__"', value)
        return text.encode()
    else:
        answers[name] = value
    return json.dumps({"answers": answers}).encode()


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("hours", 40.1, "not on the public output grid"),
        ("hours", 40, None),  # an int on the grid is a valid output
        ("hours", 1e6, "outside the output range"),
        ("hours", "40", "must be a number"),
        ("hours", True, "must be a number"),
        ("hours", Raw("1e400"), "finite"),
        ("hours", Raw("-1e999"), "finite"),
        ("education", 0.1234567, "not an output"),
        ("education", 1e300, "not an output"),
        ("education", 1.7e308, "not an output"),
        ("commute", [1.7e308, 26.0], "not a report"),
        ("hours", 1.7e308, "not on the public output grid"),
        ("commute", [25.0], "list of 2"),
        ("commute", [25.0, 150.0], "not a report"),
        ("commute", [25.0, 25.1], "not a report"),
        ("commute", ["25", 26.0], "must be a number"),
        ("race", [1, 1, 0, 0], "list of 5"),
        ("race", [1, 1, 0, 0, 2], "list of 5"),
        ("race", [True, True, False, False, False], "list of 5"),
        ("race", [1, 0, 0, 0, 0], "never reports"),
        ("race", [1, 1, 1, 1, 0], "never reports"),
        ("race", "Black", "list of 5"),
        ("age", 3, "integer from 0 to 2"),
        ("age", -1, "integer from 0 to 2"),
        ("age", 1.0, "integer from 0 to 2"),
        ("age", False, "integer from 0 to 2"),
        ("age", "1 OR 1=1", "integer from 0 to 2"),
        ("smoker_years", 2, "integer from 0 to 1"),
        ("age", KeyError, "not answered"),
    ],
)
def test_answers_outside_the_output_space_are_refused(
    survey, served, tokens, name, value, message
):
    url, database = served
    token = tokens[2] if message is not None else tokens[6]
    before = _db_rows(database)
    status, reply = _post(
        url, f"/s/{token}", _mutated(survey, database, token, name, value)
    )
    if message is None:
        assert status == 201, reply
        return
    assert status == 422, reply
    assert message in json.loads(reply)["error"]
    assert _db_rows(database) == before


def test_wrong_content_type_and_oversized_bodies_are_refused(survey, served, tokens):
    url, database = served
    token = tokens[3]
    body = _mutated(survey, database, token, "hours", 40.0)
    status, _ = _post(url, f"/s/{token}", body, {"Content-Type": "text/plain"})
    assert status == 415
    big = b'{"answers": {"pad": "' + b"x" * 70_000 + b'"}}'
    assert _post(url, f"/s/{token}", big)[0] == 413
    # no Content-Length: a chunked body is cut at the limit too
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    conn.putrequest("POST", f"/s/{token}")
    conn.putheader("Content-Type", "application/json")
    conn.putheader("Transfer-Encoding", "chunked")
    conn.endheaders()
    chunk = b"x" * 16_384
    try:
        for _ in range(6):
            conn.send(b"%x\r\n%s\r\n" % (len(chunk), chunk))
        conn.send(b"0\r\n\r\n")
        assert conn.getresponse().status == 413
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server may close the connection once it has refused
    finally:
        conn.close()
    # the token is still unused: a valid answer goes through afterwards
    assert _post(url, f"/s/{token}", body)[0] == 201


@pytest.mark.parametrize(
    "token",
    [
        "A" * 43,  # the right form, never issued
        "' OR '1'='1",
        "x; DROP TABLE skprivate_tokens",
        "%27%20OR%201%3D1",
        "A" * 44,
    ],
)
def test_forged_tokens_are_refused(survey, served, tokens, token):
    url, database = served
    body = _mutated(survey, database, tokens[4], "hours", 40.0)
    before = _db_rows(database)
    path = f"/s/{quote(token, safe='')}"
    status, reply = _post(url, path, body)
    assert status == 404, reply
    assert _get(url, path)[0] == 404
    assert _db_rows(database) == before
    with sqlite3.connect(database) as conn:
        assert conn.execute("SELECT count(*) FROM skprivate_tokens").fetchone()[0] >= 40


def test_an_interval_answer_in_a_cell_the_anchors_leave_empty_is_refused(
    survey, tmp_path
):
    from skprivate.survey._server import _Checker
    from skprivate.survey._store import SurveyStore

    database = tmp_path / "s.db"
    store = SurveyStore(database)
    store.initialize(survey.public_spec(), survey.fingerprint())
    anchors = survey.draw_anchors(2)
    anchors[0]["age"] = [30.0, 30.0]  # two equal anchors: cell 1 is empty
    token, other = store.add_tokens(anchors)
    answers = _valid_answers(survey, anchors[0])
    checker = _Checker(survey)
    outcomes = store.store_batch(
        [(token, {**answers, "age": 1}), (token, {**answers, "age": 2})],
        checker.check_anchors,
    )
    assert outcomes[0].startswith("invalid:") and "empty" in outcomes[0]
    assert outcomes[1] == "stored"
    # the same token twice in one batch: the first wins
    good = _valid_answers(survey, anchors[1])
    assert store.store_batch([(other, good), (other, good)]) == ["stored", "used"]
    assert store.counts() == {"issued": 2, "used": 2, "responses": 2}
    store.close()


def test_pages_carry_a_strict_policy_and_no_external_resource(survey, served, tokens):
    url, _ = served
    status, headers, page = _get(url, f"/s/{tokens[5]}")
    assert status == 200
    policy = headers["content-security-policy"]
    for rule in (
        "default-src 'none'",
        "connect-src 'self'",
        "form-action 'none'",
        "frame-ancestors 'none'",
    ):
        assert rule in policy
    assert headers["referrer-policy"] == "no-referrer"
    assert headers["cache-control"] == "no-store"
    text = page.decode()
    assert "http://" not in text and "https://" not in text
    assert " src=" not in text and "<link" not in text
    status, _, body = _get(url, f"/s/{tokens[5]}/questions.json")
    spec = json.loads(body)
    assert spec["submit"] == f"/s/{tokens[5]}"
    assert len(spec["questions"][0]["anchors"]) == 2


def test_the_server_refuses_a_database_of_another_questionnaire(survey, tmp_path):
    from skprivate.survey import background_server
    from skprivate.survey._store import SurveyStore

    from .conftest import build_survey

    database = tmp_path / "other.db"
    issue_tokens(survey, database, 1)
    other = build_survey()
    other.title = "Another survey"
    store = SurveyStore(database)
    with pytest.raises(ValueError, match="another questionnaire"):
        store.initialize(other.public_spec(), other.fingerprint())
    store.close()
    with (
        pytest.raises(RuntimeError, match="did not start"),
        background_server(other, database, timeout=20),
    ):
        pass
    with pytest.raises(ValueError, match="another questionnaire"):
        issue_tokens(other, database, 1)


def test_open_enrollment_gives_each_visitor_a_token(survey, tmp_path):
    from skprivate.survey import background_server

    database = tmp_path / "open.db"
    with background_server(survey, database, open_enrollment=True) as url:
        first = _get(url, "/")
        second = _get(url, "/")
        assert first[0] == second[0] == 303
        assert first[1]["location"] != second[1]["location"]
        status, _, page = _get(url, first[1]["location"])
        assert status == 200 and b"Test survey" in page
    with background_server(survey, database) as url:
        assert _get(url, "/")[0] == 404


def test_ten_thousand_concurrent_submissions_none_lost_or_duplicated(survey, tmp_path):
    n = 10_000
    clock = time.perf_counter()
    path = tmp_path / "survey.pkl"
    survey.save(path)
    database = tmp_path / "load.db"
    tokens = issue_tokens(survey, database, n)
    from skprivate.survey._store import SurveyStore

    store = SurveyStore(database)
    import sqlite3 as _sqlite

    with _sqlite.connect(database) as conn:
        anchors = dict(conn.execute("SELECT token_hash, anchors FROM skprivate_tokens"))
    from skprivate.survey._store import hash_token

    specs = [survey.respondent_spec(json.loads(anchors[hash_token(t)])) for t in tokens]
    rng = np.random.default_rng(0)
    values = {
        "age": rng.uniform(18, 80, n),
        "smoker_years": rng.uniform(0, 30, n),
        "race": rng.choice(["Asian", "Black", "Other", "White", "Mixed"], n),
        "hours": rng.uniform(0, 100, n),
        "education": rng.uniform(1, 16, n),
        "commute": rng.uniform(0, 120, n),
    }
    answers = survey.simulate_answers(specs, values, random_state=0)
    print(f"\nprepared in {time.perf_counter() - clock:.1f} s")
    with running_server(path, database) as url:
        start = time.perf_counter()
        statuses = submit_answers(url, tokens, answers, max_connections=n, timeout=600)
        seconds = time.perf_counter() - start
        assert statuses == [201] * n, np.unique(statuses, return_counts=True)
        # 2,000 tokens replayed at once: all refused, nothing added
        again = submit_answers(
            url, tokens[:2000], answers[:2000], max_connections=n, timeout=600
        )
        assert again == [409] * 2000
        print(f"replayed in {time.perf_counter() - start - seconds:.1f} s")
    print(
        f"\n{n} concurrent submissions stored in {seconds:.1f} s ({n / seconds:.0f}/s)"
    )
    assert store.counts() == {"issued": n, "used": n, "responses": n}
    store.close()
    rows = _db_rows(database)
    assert len({h for h, _ in rows}) == n
    stored = sorted(json.dumps(json.loads(a), sort_keys=True) for _, a in rows)
    sent = sorted(json.dumps(a, sort_keys=True) for a in answers)
    assert stored == sent
    frame = read_responses(database, as_frame=True)
    assert frame.shape[0] == n
    q = survey.public_spec()["questions"]
    subsets = {e["name"]: None for e in q}
    for answer in answers[:200]:
        for entry in q:
            check_answer(
                entry["name"],
                entry["spec"],
                answer[entry["name"]],
                subsets[entry["name"]],
            )


# RVNS with a coarse grid: reports on 0 .. 6, band of D + 1 = 3 points.
RVNS_SPEC = {
    "kind": "rvns",
    "k": 4,
    "step": 1.0,
    "band": 2,
    "d": 2.0,
    "report_low": 0,
    "report_high": 6,
}


@pytest.mark.parametrize(
    ("reports", "accepted"),
    [
        ([0, 1, 2, 3], True),  # free 4 5 6: exactly one band of D + 1
        ([0, 4, 5, 6], True),  # free 1 2 3
        ([0, 1, 5, 6], True),  # free 2 3 4
        ([0, 1, 2, 2], True),  # free 3 4 5 6: D + 2 points, a repeated report
        ([3, 3, 3, 3], True),  # two free runs of D + 1: either can be the band
        ([0, 1, 2, 6], True),  # free 3 4 5
        ([0, 1, 4, 6], False),  # free 2 3 and 5: D points at most
        ([1, 2, 4, 5], False),  # free 0, 3, 6: three bands of one point
        ([0, 2, 4, 6], False),  # free 1, 3, 5
        ([0, 3, 6, 6], False),  # free 1 2 and 4 5: two bands of D points
    ],
)
def test_rvns_reports_must_leave_one_band_of_d_plus_one_free(reports, accepted):
    values = [float(r) for r in reports]
    if accepted:
        assert check_answer("commute", RVNS_SPEC, values) == values
    else:
        with pytest.raises(AnswerError, match="no band of width"):
            check_answer("commute", RVNS_SPEC, values)
