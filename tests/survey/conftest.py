"""Fixtures of the survey tests: a questionnaire, a server, PostgreSQL, Node,
Chromium."""

from __future__ import annotations

import collections
import contextlib
import functools
import itertools
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest

from skprivate import (
    IntervalCaseI,
    IntervalCaseII,
    LaplaceLDP,
    RVNSPerturber,
    SubsetUniform,
)
from skprivate.ldp import SquareWaveLDP
from skprivate.survey import Question, Questionnaire

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
RACES = ["Asian", "Black", "Other", "White", "Mixed"]


def build_survey() -> Questionnaire:
    """A questionnaire with all five kinds of question."""
    return Questionnaire(
        [
            Question(
                "age",
                "How old are you?",
                IntervalCaseII(anchor_loc=40.0, anchor_scale=12.0).fit([[0.0]]),
                unit="years",
            ),
            Question(
                "smoker_years",
                "For how many years have you smoked?",
                IntervalCaseI(anchor_loc=10.0, anchor_scale=5.0).fit([[0.0]]),
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
                unit="hours",
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
        title="Test survey",
        intro="Six questions.",
    )


@pytest.fixture(scope="module")
def survey() -> Questionnaire:
    return build_survey()


# How long a server may take to say it is ready.  Generous: the wait ends as
# soon as the server prints its ready line or exits, so it only matters on a
# machine so loaded that the imports alone take minutes.
START_SECONDS = float(os.environ.get("SKPRIVATE_SERVER_START_SECONDS", "600"))


class ServerProcess:
    """``python -m skprivate survey serve`` in a subprocess of its own session.

    Threads drain its standard output and error into bounded buffers (so it
    never blocks on a full pipe); :meth:`wait_ready` waits for the line
    ``ready: <url>`` that the server prints once it accepts connections.
    """

    def __init__(self, survey_file: Path, database, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "skprivate",
                "survey",
                "serve",
                str(survey_file),
                "--database",
                str(database),
                "--port",
                "0",
                *extra,
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,  # its workers too can be signalled at once
        )
        self.url: str | None = None
        self.ready = threading.Event()
        self.lines = {"stdout": collections.deque(maxlen=60)}
        self.lines["stderr"] = collections.deque(maxlen=60)
        self.readers = [
            threading.Thread(target=self._drain, args=(name,), daemon=True)
            for name in self.lines
        ]
        for reader in self.readers:
            reader.start()

    def _drain(self, name: str) -> None:
        for raw in getattr(self.proc, name):
            line = raw.decode(errors="replace").rstrip()
            self.lines[name].append(line)
            if name == "stdout" and line.startswith("ready: ") and not self.url:
                self.url = line.split()[1]
                self.ready.set()

    def report(self, what: str) -> str:
        """``what`` happened, with the exit code and the tails of the output."""
        code = self.proc.poll()
        parts = [f"the survey server {what} (exit code {code})."]
        for name, lines in self.lines.items():
            parts.append(f"--- {name} (last {len(lines)} lines) ---")
            parts.extend(lines)
        return "\n".join(parts)

    def wait_ready(self, seconds: float = START_SECONDS) -> str:
        """The server's URL once it printed its ready line; else say why not."""
        deadline = time.monotonic() + seconds
        while not self.ready.wait(0.2):
            if self.proc.poll() is not None:
                for reader in self.readers:
                    reader.join(5)
                if self.ready.is_set():
                    break
                raise RuntimeError(self.report("exited before it was ready"))
            if time.monotonic() > deadline:
                raise RuntimeError(
                    self.report(f"printed no ready line within {seconds:.0f} s")
                )
        return self.url

    def kill(self) -> None:
        """SIGKILL to the server and its workers: a crash."""
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()

    def stop(self, seconds: float = 60) -> None:
        """SIGTERM (a graceful stop); SIGKILL to all after ``seconds``."""
        if self.proc.poll() is None:
            self.proc.terminate()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.proc.wait(seconds)
        # workers left behind, if any, go with the session
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGKILL)
        self.proc.wait()
        for reader in self.readers:
            reader.join(5)


@contextlib.contextmanager
def server_process(survey_file: Path, database, *extra: str):
    """A ready :class:`ServerProcess`, stopped at the end of the block."""
    server = ServerProcess(survey_file, database, *extra)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@contextlib.contextmanager
def running_server(survey_file: Path, database, *extra: str):
    """``python -m skprivate survey serve`` in a subprocess; yields its URL."""
    with server_process(survey_file, database, *extra) as server:
        yield server.url


@pytest.fixture(scope="module")
def served(survey, tmp_path_factory):
    """A server of ``survey`` on a fresh SQLite file: (url, database path)."""
    folder = tmp_path_factory.mktemp("served")
    path = folder / "survey.pkl"
    survey.save(path)
    database = folder / "responses.db"
    with running_server(path, database) as url:
        yield url, database


# -- databases: SQLite files and a throwaway PostgreSQL cluster -----------------

# CI sets this after installing PostgreSQL, so that a PostgreSQL test that
# cannot run fails there instead of skipping.
REQUIRE_POSTGRES = os.environ.get("SKPRIVATE_REQUIRE_POSTGRES") == "1"
BACKENDS = ["sqlite", "postgresql"]


@pytest.fixture(scope="session")
def postgres():
    """A PostgreSQL cluster for this test session (:mod:`._postgres`)."""
    from . import _postgres

    reason = _postgres.unavailable_reason()
    if reason is not None:
        if REQUIRE_POSTGRES:
            pytest.fail(f"SKPRIVATE_REQUIRE_POSTGRES=1 but {reason}")
        pytest.skip(reason)
    with _postgres.Cluster() as cluster:
        yield cluster


@pytest.fixture(scope="module", params=BACKENDS)
def backend(request) -> str:
    """The kind of database a test runs on: "sqlite" or "postgresql"."""
    return request.param


@pytest.fixture(scope="module")
def new_database(backend, request, tmp_path_factory):
    """A callable returning a fresh empty database of ``backend`` each call
    (an SQLite path or a PostgreSQL URL)."""
    if backend == "postgresql":
        return request.getfixturevalue("postgres").create_database
    folder = tmp_path_factory.mktemp("sqlite")
    numbers = itertools.count()
    return lambda: folder / f"survey_{next(numbers)}.db"


@functools.cache
def _engine(database: str):
    from sqlalchemy import create_engine

    from skprivate.survey._store import database_url

    return create_engine(database_url(database))


def db_query(database, sql: str) -> list[tuple]:
    """Rows of ``sql`` run on ``database`` (SQLite path or URL), directly."""
    from sqlalchemy import text

    with _engine(str(database)).connect() as conn:
        return [tuple(row) for row in conn.execute(text(sql))]


def db_rows(database) -> list[tuple]:
    """``(token_hash, answers)`` of every stored response, in order."""
    return db_query(
        database, "SELECT token_hash, answers FROM skprivate_responses ORDER BY id"
    )


def node_path() -> str | None:
    return shutil.which("node")


# CI sets this after installing the browser, so that a browser or Node test
# that cannot run fails there instead of skipping.
REQUIRE_BROWSER = os.environ.get("SKPRIVATE_REQUIRE_BROWSER") == "1"


def skip_or_fail(reason: str) -> None:
    """Skip with ``reason``, or fail where the browser tests are required."""
    if REQUIRE_BROWSER:
        pytest.fail(f"SKPRIVATE_REQUIRE_BROWSER=1 but {reason}")
    pytest.skip(reason)


def chromium_reason() -> str | None:
    """Why the browser tests cannot run here, or None."""
    if not os.path.exists(CHROMIUM):
        return f"{CHROMIUM} is not installed (apt-get install chromium)"
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "the playwright package is not installed (pip install playwright)"
    return None


@pytest.fixture(scope="module")
def browser_context():
    """A headless Chromium with a fresh profile, driven by Playwright."""
    reason = chromium_reason()
    if reason is not None:
        skip_or_fail(reason)
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as profile, sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
        )
        try:
            yield context
        finally:
            context.close()


# -- respondents ----------------------------------------------------------------
VALUES = {
    "age": [37.0],
    "smoker_years": [3.0],
    "race": ["Black"],
    "hours": [40.0],
    "education": [12.0],
    "commute": [25.0],
}


def simulated_answers(survey, database, tokens, seed: int = 0) -> list[dict]:
    """Privatized answers of one simulated respondent per token, drawn with
    each token's anchors as stored in ``database``."""
    import json

    import numpy as np

    from skprivate.survey._store import hash_token

    anchors = dict(
        db_query(database, "SELECT token_hash, anchors FROM skprivate_tokens")
    )
    specs = [survey.respondent_spec(json.loads(anchors[hash_token(t)])) for t in tokens]
    n = len(tokens)
    rng = np.random.default_rng(seed)
    values = {
        "age": rng.uniform(18, 80, n),
        "smoker_years": rng.uniform(0, 30, n),
        "race": rng.choice(RACES, n),
        "hours": rng.uniform(0, 100, n),
        "education": rng.uniform(1, 16, n),
        "commute": rng.uniform(0, 120, n),
    }
    return survey.simulate_answers(specs, values, random_state=seed)


def post_all(url: str, requests, limit: int = 64, timeout: float = 120.0) -> list:
    """POST ``(path, answers)`` pairs concurrently (at most ``limit`` at once);
    the status of each, or None where the connection failed."""
    import asyncio
    import json

    from skprivate.survey._client import _request, _target

    target = _target(url)

    async def main():
        gate = asyncio.Semaphore(limit)

        async def one(path, answers):
            body = json.dumps({"answers": answers}).encode()
            async with gate:
                try:
                    return (await _request(target, "POST", path, body, timeout))[0]
                except (OSError, asyncio.TimeoutError, IndexError, ValueError):
                    return None

        return await asyncio.gather(*(one(p, a) for p, a in requests))

    return asyncio.run(main())
