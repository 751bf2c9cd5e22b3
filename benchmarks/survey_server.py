"""Throughput of the survey collection server under concurrent submissions.

The server runs as ``python -m skprivate survey serve`` (uvicorn, one
process, SQLite file in WAL mode) on loopback; a client on asyncio streams
opens one connection per submission and sends all of them at once.  Each
submission is a six-question answer checked against its mechanisms' output
spaces; the run then counts the stored responses (none lost, none
duplicated) and replays every token (all refused).
"""

from __future__ import annotations

import json
import os
import platform
import socket
import sqlite3
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np
import pandas as pd

from skprivate import (
    IntervalCaseI,
    IntervalCaseII,
    LaplaceLDP,
    RVNSPerturber,
    SubsetUniform,
)
from skprivate.ldp import SquareWaveLDP
from skprivate.survey import Question, Questionnaire, issue_tokens, submit_answers
from skprivate.survey._store import hash_token

from ._common import Section

TITLE = "Survey server: concurrent submissions on loopback"
RACES = ["Asian", "Black", "Other", "White", "Mixed"]


def _survey() -> Questionnaire:
    return Questionnaire(
        [
            Question(
                "age",
                "How old are you?",
                IntervalCaseII(anchor_loc=40, anchor_scale=12).fit([[0.0]]),
            ),
            Question(
                "smoker_years",
                "Years smoked?",
                IntervalCaseI(anchor_loc=10, anchor_scale=5).fit([[0.0]]),
            ),
            Question(
                "race",
                "Race?",
                SubsetUniform(categories=[RACES]).fit([[RACES[0]]]),
            ),
            Question(
                "hours",
                "Hours worked?",
                LaplaceLDP(epsilon=2, bounds=(0, 100)).fit([[0.0]]),
            ),
            Question(
                "education",
                "Years of education?",
                SquareWaveLDP(epsilon=2, bounds=(1, 16)).fit([[1.0]]),
            ),
            Question(
                "commute",
                "Minutes to work?",
                RVNSPerturber(d=20, k=2, bounds=(0, 120)).fit([[0.0]]),
            ),
        ]
    )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _run_once(n: int, connections: int, folder: Path) -> dict:
    survey = _survey()
    path = folder / f"survey-{n}-{connections}.pkl"
    database = folder / f"responses-{n}-{connections}.db"
    survey.save(path)
    tokens = issue_tokens(survey, database, n)
    with sqlite3.connect(database) as conn:
        anchors = dict(conn.execute("SELECT token_hash, anchors FROM skprivate_tokens"))
    specs = [survey.respondent_spec(json.loads(anchors[hash_token(t)])) for t in tokens]
    rng = np.random.default_rng(0)
    values = {
        "age": rng.uniform(18, 80, n),
        "smoker_years": rng.uniform(0, 30, n),
        "race": rng.choice(RACES, n),
        "hours": rng.uniform(0, 100, n),
        "education": rng.uniform(1, 16, n),
        "commute": rng.uniform(0, 120, n),
    }
    answers = survey.simulate_answers(specs, values, random_state=0)
    port = _free_port()
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "skprivate",
            "survey",
            "serve",
            str(path),
            "--database",
            str(database),
            "--port",
            str(port),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(600):
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=2):
                    break
            except OSError:
                time.sleep(0.1)
        cpu0 = _cpu_seconds(server.pid)
        start = time.perf_counter()
        statuses = submit_answers(url, tokens, answers, max_connections=connections)
        seconds = time.perf_counter() - start
        cpu = _cpu_seconds(server.pid) - cpu0
        replay = submit_answers(url, tokens, answers, max_connections=connections)
    finally:
        server.terminate()
        server.wait(30)
    with sqlite3.connect(database) as conn:
        stored = conn.execute("SELECT count(*) FROM skprivate_responses").fetchone()[0]
        distinct = conn.execute(
            "SELECT count(DISTINCT token_hash) FROM skprivate_responses"
        ).fetchone()[0]
    return {
        "submissions": n,
        "connections at once": connections,
        "stored (201)": statuses.count(201),
        "rows in database": stored,
        "distinct tokens": distinct,
        "replays refused (409)": replay.count(409),
        "seconds": seconds,
        "submissions / s": n / seconds,
        "server CPU ms / submission": 1000 * cpu / n if cpu == cpu else float("nan"),
    }


def _cpu_seconds(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat") as fh:
            fields = fh.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def run(quick: bool = False, n_jobs: int = -1) -> list[Section]:
    """10,000 submissions at once (2,000 with ``quick``), and over 100 connections."""
    n = 2_000 if quick else 10_000
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for connections in (n, 100):
            rows.append(_run_once(n, connections, Path(tmp)))
    table = pd.DataFrame(rows)
    lost = [r["submissions"] - r["rows in database"] for r in rows]
    text = (
        f"{n:,} six-question submissions, each on its own TCP connection, sent "
        "all at once and then through at most 100 connections at a time, to "
        "one uvicorn process on loopback (SQLite, WAL, synchronous=FULL); the "
        "client (asyncio streams) runs in a second process on the same "
        f"machine ({os.cpu_count()} cores, {platform.machine()}, Python "
        f"{platform.python_version()}).  Lost or duplicated responses: "
        f"{', '.join(map(str, lost))}; every replay of a used token was "
        "refused.  The figures depend on the machine's load; server CPU time "
        "per submission (from /proc) is the steadier one."
    )
    return [Section("Throughput", text, [table])]
