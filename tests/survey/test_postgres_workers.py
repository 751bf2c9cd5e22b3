"""``survey serve --workers N``: several server processes on one PostgreSQL
database, and the refusal of several workers on an SQLite file.

A token is answered at most once across processes because the database
refuses the second claim (rows locked, ``UPDATE ... WHERE used = 0``, a
UNIQUE response column), not because one process remembers it.
"""

from __future__ import annotations

import json
import os
import re
import signal
import time
from pathlib import Path

from skprivate.survey import issue_tokens
from skprivate.survey._store import hash_token

from .conftest import ServerProcess, db_query, db_rows, post_all, simulated_answers


def test_several_workers_on_sqlite_are_refused_naming_the_flag_and_file(
    survey, tmp_path, capsys
):
    from skprivate.__main__ import main

    survey.save(tmp_path / "survey.pkl")
    database = tmp_path / "answers.db"
    argv = ["survey", "serve", str(tmp_path / "survey.pkl"), "--port", "0"]
    assert main([*argv, "--database", str(database), "--workers", "2"]) == 2
    out, err = capsys.readouterr()
    assert "ready:" not in out
    assert err.startswith("error: --workers 2 needs a PostgreSQL database")
    assert str(database) in err and "SQLite" in err
    assert not database.exists()  # refused before anything was created
    assert main([*argv, "--database", str(database), "--workers", "0"]) == 2
    assert "--workers must be at least 1" in capsys.readouterr().err


def _children(pid: int) -> list[int]:
    """The worker processes of a server (the spawn children, not the
    resource tracker)."""
    found = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        for child in (task / "children").read_text().split():
            cmdline = Path(f"/proc/{child}/cmdline").read_bytes()
            if b"spawn_main" in cmdline:
                found.append(int(child))
    return sorted(found)


def _cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _gone(pid: int, seconds: float) -> bool:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except FileNotFoundError:
            return True
        if state == "Z":  # exited, not yet reaped
            return True
        time.sleep(0.05)
    return False


def test_two_workers_and_a_third_process_store_each_token_once(
    survey, postgres, tmp_path
):
    # One database, ``--workers 2`` on one port and a single-process server
    # on another: each of 60 tokens is posted 4 times to each port at once,
    # with 8 different draws.  Exactly one post per token is stored (201),
    # the 7 others are refused with 409, the database holds one row per
    # token, and both workers served posts.
    path = tmp_path / "survey.pkl"
    survey.save(path)
    database = postgres.create_database()
    tokens = issue_tokens(survey, database, 60)
    draws = [simulated_answers(survey, database, tokens, seed) for seed in range(8)]
    pool = ServerProcess(path, database, "--workers", "2")
    single = ServerProcess(path, database)
    try:
        urls = [pool.wait_ready(), single.wait_ready()]
        assert pool.lines["stdout"][-1].endswith("(2 workers)")
        workers = _children(pool.proc.pid)
        assert len(workers) == 2
        cpu = [_cpu_seconds(pid) for pid in workers]
        requests = [
            (i, k % 2, f"/s/{token}", draws[k][i])
            for i, token in enumerate(tokens)
            for k in range(8)
        ]  # the 8 posts of a token together, so that they arrive together
        statuses = _post_to_both(urls, requests)
        used = [_cpu_seconds(pid) - c for pid, c in zip(workers, cpu)]
        per_token = [[] for _ in tokens]
        for (i, _, _, _), status in zip(requests, statuses):
            per_token[i].append(status)
        assert all(sorted(st) == [201] + [409] * 7 for st in per_token), per_token
        rows = db_rows(database)
        assert sorted(h for h, _ in rows) == sorted(hash_token(t) for t in tokens)
        winners = {
            hash_token(tokens[i]): a
            for (i, _, _, a), st in zip(requests, statuses)
            if st == 201
        }
        assert all(json.loads(a) == winners[h] for h, a in rows)
        count = db_query(
            database, "SELECT count(*) FROM skprivate_tokens WHERE used = 1"
        )
        assert count[0][0] == len(tokens)
        # both workers took part: each spent at least a tenth of their CPU
        assert min(used) >= 0.1 * sum(used), used
        # SIGTERM stops the workers with the server, which exits cleanly
        pool.proc.send_signal(signal.SIGTERM)
        assert pool.proc.wait(60) == 0, pool.report("did not stop cleanly")
        assert all(_gone(pid, 30) for pid in workers)
    finally:
        pool.stop()
        single.stop()


def _post_to_both(urls: list[str], requests) -> list:
    """Post each request to ``urls[port]`` at once, all concurrently."""
    import threading

    out: dict[int, list] = {}
    groups = {p: [(i, r) for i, r in enumerate(requests) if r[1] == p] for p in (0, 1)}

    def send(port: int) -> None:
        batch = [(path, answers) for _, (_, _, path, answers) in groups[port]]
        out[port] = post_all(urls[port], batch, limit=len(batch))

    threads = [threading.Thread(target=send, args=(p,)) for p in (0, 1)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(300)
    statuses = [None] * len(requests)
    for port, group in groups.items():
        for (index, _), status in zip(group, out[port]):
            statuses[index] = status
    return statuses


def test_a_worker_that_dies_stops_the_others_and_the_server_says_so(
    survey, postgres, tmp_path
):
    path = tmp_path / "survey.pkl"
    survey.save(path)
    pool = ServerProcess(path, postgres.create_database(), "--workers", "2")
    try:
        pool.wait_ready()
        first, second = _children(pool.proc.pid)
        os.kill(first, signal.SIGKILL)
        assert pool.proc.wait(60) == 1
        assert _gone(second, 30)
        for reader in pool.readers:
            reader.join(5)
        text = pool.report("stopped")
        assert re.search(r"error: survey-worker-[12] exited with code -9;", text), text
        assert "the other workers were stopped" in text
    finally:
        pool.stop()


def test_database_urls_in_messages_hide_the_password_and_name_the_driver():
    from skprivate.survey._store import display_url, missing_driver

    url = "postgresql+psycopg://survey:s3cret@db.example.org:5432/answers"
    assert display_url(url) == (
        "postgresql+psycopg://survey:***@db.example.org:5432/answers"
    )
    assert display_url("answers.db") == "answers.db"
    assert missing_driver(url) is None
    try:
        import pg8000  # noqa: F401
    except ImportError:  # another PostgreSQL driver, not installed here
        reason = missing_driver(url.replace("+psycopg", "+pg8000"))
        assert "needs the Python driver 'pg8000'" in reason
        assert "postgresql+psycopg://user@host/dbname" in reason
        assert "s3cret" not in reason


def test_a_worker_stops_by_itself_when_its_parent_is_gone():
    import types

    from skprivate.survey._serving import _watch_parent

    server = types.SimpleNamespace(should_exit=False)
    _watch_parent(server, parent=-1)  # never a parent's pid: gone
    assert server.should_exit


def test_an_unreachable_database_is_one_line_without_its_password(
    survey, tmp_path, capsys
):
    import socket

    import pytest

    pytest.importorskip("psycopg")
    from skprivate.__main__ import main

    survey.save(tmp_path / "survey.pkl")
    with socket.socket() as closed:  # bound, never listening: refused
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
        url = f"postgresql+psycopg://survey:s3cret@127.0.0.1:{port}/answers"
        argv = ["survey", "serve", str(tmp_path / "survey.pkl"), "--port", "0"]
        assert main([*argv, "--database", url]) == 1
    out, err = capsys.readouterr()
    assert "s3cret" not in out + err and "ready:" not in out
    assert err.startswith(
        f"error: cannot use the database postgresql+psycopg://survey:***@127.0.0.1:{port}"
        "/answers: connection failed"
    )
    assert len(err.strip().splitlines()) == 1
