"""The collection server under bad input, concurrent posts, a crash and load.

The server runs as ``python -m skprivate survey serve`` in a subprocess on
loopback; requests are raw HTTP/1.1.  The tests that touch the database run
on an SQLite file and on a PostgreSQL database (a throwaway cluster, see
``conftest.postgres``).
"""

from __future__ import annotations

import contextlib
import http.client
import json
import threading
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
from skprivate.survey._store import hash_token

from .conftest import (
    VALUES,
    ServerProcess,
    db_query,
    db_rows,
    post_all,
    running_server,
    simulated_answers,
)


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
    return survey.simulate_answers([spec], VALUES, random_state=seed)[0]


def _anchors(database, token: str) -> dict:
    from skprivate.survey._store import SurveyStore

    store = SurveyStore(database)
    try:
        return store.lookup(token)["anchors"]
    finally:
        store.close()


_db_rows = db_rows


@pytest.fixture(scope="module")
def server(survey, new_database, tmp_path_factory):
    """A server of ``survey`` on a fresh database of each backend:
    (url, database)."""
    folder = tmp_path_factory.mktemp("server")
    path = folder / "survey.pkl"
    survey.save(path)
    database = new_database()
    with running_server(path, database) as url:
        yield url, database


@pytest.fixture(scope="module")
def tokens(survey, server):
    _, database = server
    return issue_tokens(survey, database, 40)


def test_a_valid_answer_is_stored_once_and_a_replay_refused(survey, server, tokens):
    url, database = server
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
def test_malformed_bodies_are_refused(server, tokens, body, status, message):
    url, database = server
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
    survey, server, tokens, name, value, message
):
    url, database = server
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


def test_wrong_content_type_and_oversized_bodies_are_refused(survey, server, tokens):
    url, database = server
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
def test_forged_tokens_are_refused(survey, server, tokens, token):
    url, database = server
    body = _mutated(survey, database, tokens[4], "hours", 40.0)
    before = _db_rows(database)
    path = f"/s/{quote(token, safe='')}"
    status, reply = _post(url, path, body)
    assert status == 404, reply
    assert _get(url, path)[0] == 404
    assert _db_rows(database) == before
    assert db_query(database, "SELECT count(*) FROM skprivate_tokens")[0][0] >= 40


def test_an_interval_answer_in_a_cell_the_anchors_leave_empty_is_refused(
    survey, new_database
):
    from skprivate.survey._server import _Checker
    from skprivate.survey._store import SurveyStore

    database = new_database()
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


def test_pages_carry_a_strict_policy_and_no_external_resource(survey, server, tokens):
    url, _ = server
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


def test_the_server_refuses_a_database_of_another_questionnaire(
    survey, new_database, tmp_path, capsys
):
    from skprivate.__main__ import main
    from skprivate.survey import background_server
    from skprivate.survey._store import SurveyStore

    from .conftest import build_survey

    database = new_database()
    issue_tokens(survey, database, 1)
    other = build_survey()
    other.title = "Another survey"
    store = SurveyStore(database)
    with pytest.raises(ValueError, match="another questionnaire"):
        store.initialize(other.public_spec(), other.fingerprint())
    store.close()
    with (
        pytest.raises(ValueError, match="another questionnaire"),
        background_server(other, database, timeout=20),
    ):
        pass
    with pytest.raises(ValueError, match="another questionnaire"):
        issue_tokens(other, database, 1)
    # the command line says so in one line, before it listens
    other.save(tmp_path / "other.pkl")
    argv = ["survey", "serve", str(tmp_path / "other.pkl"), "--database"]
    assert main([*argv, str(database), "--port", "0"]) == 2
    out, err = capsys.readouterr()
    assert "ready:" not in out
    assert err.startswith("error: ") and "another questionnaire" in err


def test_open_enrollment_gives_each_visitor_a_token(survey, new_database):
    from skprivate.survey import background_server

    database = new_database()
    with background_server(survey, database, open_enrollment=True) as url:
        first = _get(url, "/")
        second = _get(url, "/")
        assert first[0] == second[0] == 303
        assert first[1]["location"] != second[1]["location"]
        status, _, page = _get(url, first[1]["location"])
        assert status == 200 and b"Test survey" in page
    with background_server(survey, database) as url:
        assert _get(url, "/")[0] == 404


def test_open_enrollment_never_replays_anchors_after_a_restart(new_database):
    """A seeded interval question used to give the visitors of a restarted
    server (or of another worker) the anchors of the first visitors."""
    import pickle

    from skprivate import IntervalCaseII
    from skprivate.survey import Question, background_server

    mech = IntervalCaseII(
        anchor_loc=40, anchor_scale=12, support=(0, 120), random_state=0
    ).fit([[0.0]])
    saved = pickle.dumps(Questionnaire([Question("age", "Age?", mech)]))
    database = new_database()
    anchors = []
    for _ in range(2):  # a restart: the same saved questionnaire, loaded again
        survey = pickle.loads(saved)
        with background_server(survey, database, open_enrollment=True) as url:
            for _ in range(2):
                status, headers, _ = _get(url, "/")
                assert status == 303
                token = headers["location"].rsplit("/", 1)[1]
                anchors.append(tuple(_anchors(database, token)["age"]))
    assert len(set(anchors)) == 4


def test_the_server_fixture_waits_for_the_ready_line_and_says_what_it_saw(
    tmp_path,
):
    # A server that cannot start: the fixture reports its exit code and the
    # tail of its output, not a bare timeout; a deadline hit while it still
    # runs says so too.
    process = ServerProcess(tmp_path / "missing.pkl", tmp_path / "s.db")
    try:
        with pytest.raises(RuntimeError, match="printed no ready line within 0 s"):
            process.wait_ready(0.0)
        with pytest.raises(RuntimeError) as info:
            process.wait_ready(600)
    finally:
        process.stop()
    text = str(info.value)
    assert text.startswith("the survey server exited before it was ready (exit code 2)")
    assert "--- stderr (last 1 lines) ---\nerror: questionnaire file" in text
    assert "missing.pkl' not found." in text


def test_concurrent_posts_of_one_token_store_exactly_one(survey, server):
    # 40 tokens, each posted 6 times at once with 6 different draws: one 201
    # per token, the other posts refused with 409, one row per token.
    url, database = server
    tokens = issue_tokens(survey, database, 40)
    draws = [simulated_answers(survey, database, tokens, seed) for seed in range(6)]
    requests = [
        (i, f"/s/{token}", draws[k][i])
        for k in range(6)
        for i, token in enumerate(tokens)
    ]
    order = np.random.default_rng(0).permutation(len(requests))
    requests = [requests[j] for j in order]
    statuses = post_all(url, [(path, a) for _, path, a in requests], limit=240)
    per_token = [[] for _ in tokens]
    for (i, _, _), status in zip(requests, statuses):
        per_token[i].append(status)
    assert all(sorted(st) == [201] + [409] * 5 for st in per_token), per_token
    hashes = {hash_token(t): i for i, t in enumerate(tokens)}
    mine = [(h, json.loads(a)) for h, a in _db_rows(database) if h in hashes]
    assert sorted(h for h, _ in mine) == sorted(hashes)
    # each stored answer is the draw of the post that got the 201
    winners = {i: a for (i, _, a), st in zip(requests, statuses) if st == 201}
    assert all(a == winners[hashes[h]] for h, a in mine)


def test_two_transactions_claiming_one_token_store_it_once(survey, new_database):
    # Two stores (two connections, as two server processes have) store the
    # same token at once.  The answer check runs between the read of the
    # token and its claim; there both transactions wait for each other (for
    # one second at most).  A store that read, then claimed without a lock
    # or a condition, would let both pass the wait and store twice; here the
    # second one is held at its read until the first commits, then refused.
    from skprivate.survey._store import SurveyStore

    database = new_database()
    (token,) = issue_tokens(survey, database, 1)
    answers = simulated_answers(survey, database, [token] * 2)
    meeting = threading.Barrier(2, timeout=1.0)

    def check(answers, anchors):
        with contextlib.suppress(threading.BrokenBarrierError):
            meeting.wait()

    outcomes = [None, None]

    def store(k: int) -> None:
        one = SurveyStore(database)
        try:
            outcomes[k] = one.store_batch([(token, answers[k])], check)[0]
        finally:
            one.close()

    threads = [threading.Thread(target=store, args=(k,)) for k in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    assert outcomes in (["stored", "used"], ["used", "stored"]), outcomes
    rows = db_rows(database)
    assert len(rows) == 1 and json.loads(rows[0][1]) in answers


def _stored_and_claimed(database) -> tuple[dict, int]:
    rows = _db_rows(database)
    stored = {h: json.loads(a) for h, a in rows}
    assert len(stored) == len(rows), "a token has two responses"
    used = db_query(database, "SELECT count(*) FROM skprivate_tokens WHERE used = 1")
    return stored, used[0][0]


def test_a_crash_keeps_every_acknowledged_answer_and_no_half_stored_one(
    survey, new_database, tmp_path
):
    from skprivate.survey import background_server

    # The server is killed (SIGKILL) while 600 submissions are in flight.
    # Every answer acknowledged with 201 is in the database, exactly as sent;
    # every used token has its response and no response lacks its claim.
    # Sent again after a restart, the stored ones are refused (409) and the
    # others stored: 600 responses in the end, one per token.
    n = 600
    path = tmp_path / "survey.pkl"
    survey.save(path)
    database = new_database()
    tokens = issue_tokens(survey, database, n)
    answers = simulated_answers(survey, database, tokens)
    hashes = [hash_token(t) for t in tokens]
    requests = [(f"/s/{t}", a) for t, a in zip(tokens, answers)]
    process = ServerProcess(path, database)
    try:
        url = process.wait_ready()
        result = {}
        sender = threading.Thread(
            target=lambda: result.setdefault("statuses", post_all(url, requests, 32))
        )
        sender.start()
        deadline = time.monotonic() + 120
        while len(_db_rows(database)) < 100 and time.monotonic() < deadline:
            time.sleep(0.005)
        process.kill()
        sender.join(180)
    finally:
        process.stop()
    statuses = result["statuses"]
    stored, used = _stored_and_claimed(database)
    acknowledged = [h for h, st in zip(hashes, statuses) if st == 201]
    assert 100 <= len(stored) < n, "the crash came too late to test anything"
    assert None in statuses  # connections were cut
    assert set(acknowledged) <= set(stored)
    assert used == len(stored)
    sent = dict(zip(hashes, answers))
    assert all(sent[h] == a for h, a in stored.items())
    with background_server(survey, database) as url:  # the restart
        again = post_all(url, requests, 64)
    assert [st for h, st in zip(hashes, again) if h in stored] == [409] * len(stored)
    assert all(st == 201 for h, st in zip(hashes, again) if h not in stored)
    final, used = _stored_and_claimed(database)
    assert final == sent and used == n


@pytest.mark.parametrize(
    "n",
    [1_000, pytest.param(10_000, marks=pytest.mark.slow)],
    ids=["1000", "10000"],
)
def test_concurrent_submissions_none_lost_or_duplicated(survey, server, n):
    # All at once (one connection each), then every token again: refused.
    # The 10,000 run is slow: benchmarks/survey_server.py runs it too.
    url, database = server
    before = len(_db_rows(database))
    clock = time.perf_counter()
    tokens = issue_tokens(survey, database, n)
    answers = simulated_answers(survey, database, tokens)
    print(f"\nprepared in {time.perf_counter() - clock:.1f} s")
    start = time.perf_counter()
    statuses = submit_answers(url, tokens, answers, max_connections=n, timeout=600)
    seconds = time.perf_counter() - start
    assert statuses == [201] * n, np.unique(statuses, return_counts=True)
    replayed = min(n, 2000)
    again = submit_answers(
        url, tokens[:replayed], answers[:replayed], max_connections=n, timeout=600
    )
    assert again == [409] * replayed
    print(f"{n} concurrent submissions stored in {seconds:.1f} s ({n / seconds:.0f}/s)")
    rows = _db_rows(database)[before:]
    assert sorted(h for h, _ in rows) == sorted(hash_token(t) for t in tokens)
    stored = sorted(json.dumps(json.loads(a), sort_keys=True) for _, a in rows)
    sent = sorted(json.dumps(a, sort_keys=True) for a in answers)
    assert stored == sent
    frame = read_responses(database, as_frame=True)
    assert frame.shape[0] == before + n
    q = survey.public_spec()["questions"]
    for answer in answers[:200]:
        for entry in q:
            check_answer(entry["name"], entry["spec"], answer[entry["name"]], None)


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
