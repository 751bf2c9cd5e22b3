"""Throughput of the survey collection server under concurrent submissions.

The server runs as ``python -m skprivate survey serve`` on loopback, on an
SQLite file (WAL, ``synchronous=FULL``; one process) and on PostgreSQL (a
throwaway cluster with its durable defaults, ``fsync`` and
``synchronous_commit`` on; one process, then ``--workers 2``).  A client on
asyncio streams, in this process, opens one connection per submission,
either all at once or at most 64 at a time.  Each submission is a
six-question answer checked against its mechanisms' output spaces; the run
then compares the stored responses with the ones sent (none lost, none
duplicated, each stored exactly as sent) and replays every token (all
refused).
"""

from __future__ import annotations

import contextlib
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
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
START_SECONDS = 600


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


def _query(database, sql: str) -> list[tuple]:
    from sqlalchemy import create_engine, text

    from skprivate.survey._store import database_url

    engine = create_engine(database_url(database))
    try:
        with engine.connect() as conn:
            return [tuple(r) for r in conn.execute(text(sql))]
    finally:
        engine.dispose()


def _answers(survey: Questionnaire, database, tokens: list[str]) -> list[dict]:
    anchors = dict(_query(database, "SELECT token_hash, anchors FROM skprivate_tokens"))
    specs = [survey.respondent_spec(json.loads(anchors[hash_token(t)])) for t in tokens]
    n = len(tokens)
    rng = np.random.default_rng(0)
    values = {
        "age": rng.uniform(18, 80, n),
        "smoker_years": rng.uniform(0, 30, n),
        "race": rng.choice(RACES, n),
        "hours": rng.uniform(0, 100, n),
        "education": rng.uniform(1, 16, n),
        "commute": rng.uniform(0, 120, n),
    }
    return survey.simulate_answers(specs, values, random_state=0)


def _start(
    path: Path, database, workers: int, log: Path
) -> tuple[subprocess.Popen, str]:
    """The server process and its URL, once it printed its ready line."""
    command = [sys.executable, "-m", "skprivate", "survey", "serve", str(path)]
    command += ["--database", str(database), "--port", "0"]
    command += ["--workers", str(workers)]
    with open(log, "wb") as err:
        server = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=err)
    deadline = time.monotonic() + START_SECONDS
    for raw in server.stdout:
        line = raw.decode(errors="replace")
        if line.startswith("ready: "):
            return server, line.split()[1]
        if time.monotonic() > deadline:
            break
    server.kill()
    server.wait()
    tail = log.read_text(errors="replace")[-3000:]
    raise RuntimeError(
        f"the server printed no ready line (exit code {server.returncode}):\n{tail}"
    )


def _stat(pid: int, children: bool = False) -> float:
    """CPU seconds of a process (with its reaped children's)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return 0.0
    ticks = int(fields[11]) + int(fields[12])
    if children:
        ticks += int(fields[13]) + int(fields[14])
    return ticks / os.sysconf("SC_CLK_TCK")


def _tree(pid: int) -> list[int]:
    """A process and its descendants."""
    found, todo = [], [pid]
    while todo:
        current = todo.pop()
        found.append(current)
        for task in Path(f"/proc/{current}/task").glob("*"):
            with contextlib.suppress(OSError):  # a process that just ended
                todo += [int(c) for c in (task / "children").read_text().split()]
    return found


def _cpu(root: int | None) -> float:
    """CPU seconds of a process tree so far (live processes and reaped ones)."""
    if root is None:
        return float("nan")
    pids = _tree(root)
    return _stat(root, children=True) + sum(_stat(p) for p in pids[1:])


def _run_once(
    survey: Questionnaire,
    folder: Path,
    database,
    label: str,
    workers: int,
    n: int,
    connections: int,
    postmaster: int | None,
) -> dict:
    path = folder / "survey.pkl"
    survey.save(path)
    tokens = issue_tokens(survey, database, n)
    answers = _answers(survey, database, tokens)
    server, url = _start(path, database, workers, folder / f"server-{label}.log")
    try:
        cpu0, db0 = _cpu(server.pid), _cpu(postmaster)
        start = time.perf_counter()
        statuses = submit_answers(url, tokens, answers, max_connections=connections)
        seconds = time.perf_counter() - start
        cpu, db = _cpu(server.pid) - cpu0, _cpu(postmaster) - db0
        replay = submit_answers(url, tokens, answers, max_connections=connections)
    finally:
        server.terminate()
        server.wait(60)
    rows = _query(database, "SELECT token_hash, answers FROM skprivate_responses")
    sent = {hash_token(t): a for t, a in zip(tokens, answers)}
    stored = {h: json.loads(a) for h, a in rows}
    return {
        "database": label,
        "workers": workers,
        "submissions": n,
        "connections at once": connections,
        "stored (201)": statuses.count(201),
        "rows": len(rows),
        "lost": sum(h not in stored for h in sent),
        "duplicated": len(rows) - len(stored),
        "altered": sum(stored[h] != a for h, a in sent.items() if h in stored),
        "replays refused (409)": replay.count(409),
        "seconds": seconds,
        "submissions / s": n / seconds,
        "server CPU ms / submission": 1000 * cpu / n,
        "PostgreSQL CPU ms / submission": 1000 * db / n,
    }


def _postmaster(cluster) -> int:
    text = (cluster.folder / "data" / "postmaster.pid").read_text()
    return int(text.split()[0])


def run(quick: bool = False, n_jobs: int = -1) -> list[Section]:
    """10,000 submissions (2,000 with ``quick``) per setting."""
    n = 2_000 if quick else 10_000
    load = [os.getloadavg()[0]]
    survey = _survey()
    rows = []
    notes = []
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        for connections in (n, 64):
            database = folder / f"sqlite-{connections}.db"
            rows.append(
                _run_once(survey, folder, database, "SQLite", 1, n, connections, None)
            )
        from tests.survey._postgres import Cluster, unavailable_reason

        reason = unavailable_reason()
        if reason is not None:
            notes.append(f"PostgreSQL was not measured: {reason}.")
        else:
            with Cluster(durable=True) as cluster:
                postmaster = _postmaster(cluster)
                for workers, connections in ((1, 64), (2, 64), (2, n)):
                    rows.append(
                        _run_once(
                            survey,
                            folder,
                            cluster.create_database(),
                            "PostgreSQL",
                            workers,
                            n,
                            connections,
                            postmaster,
                        )
                    )
    load.append(os.getloadavg()[0])
    table = pd.DataFrame(rows)
    table.loc[table["database"] == "SQLite", "PostgreSQL CPU ms / submission"] = float(
        "nan"
    )
    return [Section("Throughput", _text(table, n, load, notes), [table])]


def _text(table: pd.DataFrame, n: int, load: list[float], notes: list[str]) -> str:
    faults = int(table[["lost", "duplicated", "altered"]].to_numpy().sum())
    text = (
        f"{n:,} six-question submissions per row, each on its own TCP "
        "connection, sent all at once or through at most 64 connections at a "
        "time, to `python -m skprivate survey serve` on loopback: on SQLite "
        "(WAL, synchronous=FULL, one process) and on PostgreSQL "
        "(a local cluster with its durable defaults, fsync and "
        "synchronous_commit on; one process, then `--workers 2`).  The client "
        "(asyncio streams) runs in a third process and PostgreSQL in its own, "
        f"all on the same machine ({os.cpu_count()} cores, {platform.machine()}, "
        f"Python {platform.python_version()}).  Lost, duplicated or altered "
        f"responses over all rows: {faults}; every replay of a used token was "
        "refused.  The figures depend on the machine's load (one-minute "
        f"load average {load[0]:.1f} at the start of this run, {load[1]:.1f} "
        f"at its end, on {os.cpu_count()} cores: compare the rows of one run "
        "with each other); CPU time per submission (from /proc: the server's "
        "processes, and PostgreSQL's) is the steadier figure."
    )
    pg = table[table["database"] == "PostgreSQL"]
    if len(pg):
        ratio = pg["server CPU ms / submission"] / pg["PostgreSQL CPU ms / submission"]
        rate = pg[pg["connections at once"] == 64].set_index("workers")
        rate = rate["submissions / s"]
        text += (
            "  On PostgreSQL the server's processes (HTTP, checking the "
            "answers, SQLAlchemy) spend "
            f"{ratio.min():.0f} to {ratio.max():.0f} times the CPU of "
            "PostgreSQL itself: the throughput follows the CPU time the "
            "server's processes get, which a second worker can raise (here "
            f"{rate.get(2, float('nan')):.0f} against "
            f"{rate.get(1, float('nan')):.0f} submissions per second through "
            "64 connections)."
        )
    if notes:
        text += "  " + " ".join(notes)
    return text
