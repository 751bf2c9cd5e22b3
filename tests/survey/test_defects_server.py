"""The answer check refuses every malformed number and field with a 422 that
names the question or field, and never echoes what was sent.

Numbers: integers too large for a double (the float conversion used to
overflow into a 500 that dropped the connection), their negatives, integers
past Python's 4300-digit parsing limit, overflowing floats, booleans, nested
arrays and objects, in every numeric path (Laplace, Square Wave, RVNS,
subset indicators, interval cell index).
"""

from __future__ import annotations

import http.client
import json
from urllib.parse import urlsplit

import pytest

from skprivate.survey import background_server, issue_tokens
from skprivate.survey._server import PayloadError, _Checker
from skprivate.survey._store import SurveyStore

HUGE = "1" + "0" * 400  # about 1e400: an int that no double holds
LARGE = "9" * 320  # beyond the largest double, short enough to parse as an int
PAST_PARSER = "7" * 5000  # past Python's int parsing limit of 4300 digits
SENTINEL = "38.71935"  # a value that must not come back in a message


def _valid(survey) -> dict:
    spec = survey.respondent_spec()
    values = {
        "age": [37.0],
        "smoker_years": [3.0],
        "race": ["Black"],
        "hours": [40.0],
        "education": [12.0],
        "commute": [25.0],
    }
    return survey.simulate_answers([spec], values, random_state=0)[0]


def _body(answers: dict, name: str, raw: str) -> bytes:
    """The JSON body of ``answers`` with ``raw`` as the text of ``name``."""
    answers = {**answers, name: "__raw__"}
    return json.dumps({"answers": answers}).replace('"__raw__"', raw).encode()


# (question, JSON text of its answer)
BAD_NUMBERS = [
    ("hours", HUGE),
    ("hours", "-" + HUGE),
    ("hours", LARGE),
    ("hours", "-" + LARGE),
    ("hours", PAST_PARSER),
    ("hours", "-" + PAST_PARSER),
    ("hours", "1e400"),
    ("hours", "-1e400"),
    ("hours", "true"),
    ("hours", "[40.0]"),
    ("hours", '{"v": 40.0}'),
    ("hours", "null"),
    ("education", HUGE),
    ("education", LARGE),
    ("education", "-" + HUGE),
    ("education", "false"),
    ("commute", f"[{HUGE}, 26.0]"),
    ("commute", f"[-{HUGE}, 26.0]"),
    ("commute", f"[25.0, {LARGE}]"),
    ("commute", f"[{PAST_PARSER}, 26.0]"),
    ("commute", "[[25.0], 26.0]"),
    ("commute", "[true, 26.0]"),
    ("race", f"[1, {HUGE}, 0, 0, 0]"),
    ("race", f"[1, {PAST_PARSER}, 0, 0, 0]"),
    ("race", "[1, [1], 0, 0, 0]"),
    ("age", HUGE),
    ("age", "-" + HUGE),
    ("age", LARGE),
    ("age", PAST_PARSER),
    ("age", "[1]"),
    ("age", "true"),
    ("smoker_years", "1e400"),
]


@pytest.mark.parametrize(("name", "raw"), BAD_NUMBERS)
def test_every_bad_number_is_a_422_naming_the_question(survey, name, raw):
    checker = _Checker(survey)
    body = _body(_valid(survey), name, raw)
    with pytest.raises(PayloadError) as info:
        checker.parse(body)
    assert info.value.status == 422, info.value.message
    message = info.value.message
    assert f"answer to {name!r}" in message
    for digits in ("0000", "7777", "9999"):  # no number echoed
        assert digits not in message


def test_a_valid_body_still_passes(survey):
    answers = _valid(survey)
    assert _Checker(survey).parse(json.dumps({"answers": answers}).encode()) == answers


@pytest.mark.parametrize(
    ("extra", "named"),
    [
        ({"raw": SENTINEL}, "'raw'"),
        ({"raw": {"hours": float(SENTINEL)}}, "'raw'"),
        ({"debug": [SENTINEL], "raw": 1}, "'debug' in the body (and 1 more)"),
    ],
)
def test_an_extra_field_is_named_without_its_value(survey, extra, named):
    body = json.dumps({"answers": _valid(survey), **extra}).encode()
    with pytest.raises(PayloadError) as info:
        _Checker(survey).parse(body)
    assert info.value.status == 422
    message = info.value.message
    assert f"unexpected field {named}" in message
    assert SENTINEL not in message and "38.7" not in message
    assert "nothing else" in message


def test_a_body_without_answers_says_so(survey):
    with pytest.raises(PayloadError, match='the field "answers" is missing'):
        _Checker(survey).parse(b"{}")
    with pytest.raises(PayloadError, match="got an array"):
        _Checker(survey).parse(b"[1, 2]")


def _post(conn: http.client.HTTPConnection, path: str, body: bytes):
    conn.request("POST", path, body, {"Content-Type": "application/json"})
    reply = conn.getresponse()
    return reply.status, reply.read()


def test_over_http_a_huge_integer_is_refused_and_the_connection_kept(survey, tmp_path):
    database = tmp_path / "huge.db"
    token = issue_tokens(survey, database, 1)[0]
    store = SurveyStore(database)
    anchors = store.lookup(token)["anchors"]
    store.close()
    spec = survey.respondent_spec(anchors)
    values = {
        "age": [37.0],
        "smoker_years": [3.0],
        "race": ["Black"],
        "hours": [40.0],
        "education": [12.0],
        "commute": [25.0],
    }
    answers = survey.simulate_answers([spec], values, random_state=0)[0]
    with background_server(survey, database) as url:
        parts = urlsplit(url)
        conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
        try:
            status, reply = _post(conn, f"/s/{token}", _body(answers, "hours", LARGE))
            assert status == 422, reply
            assert "answer to 'hours'" in json.loads(reply)["error"]
            status, reply = _post(
                conn, f"/s/{token}", _body(answers, "commute", f"[-{HUGE}, 1]")
            )
            assert status == 422, reply
            # the same connection, still open, takes the valid answers
            status, reply = _post(
                conn, f"/s/{token}", json.dumps({"answers": answers}).encode()
            )
            assert status == 201, reply
        finally:
            conn.close()
