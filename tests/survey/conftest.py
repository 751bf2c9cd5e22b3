"""Fixtures of the survey tests: a questionnaire, a server, Node, Chromium."""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextlib.contextmanager
def running_server(survey_file: Path, database: Path, *extra: str):
    """``python -m skprivate survey serve`` in a subprocess; yields its URL."""
    port = free_port()
    proc = subprocess.Popen(
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
            str(port),
            *extra,
        ],
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "/healthz", timeout=2) as r:
                    if r.read() == b"ok":
                        break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    out = proc.stdout.read().decode() if proc.stdout else ""
                    raise RuntimeError(f"the server did not start:\n{out}") from None
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(20)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@pytest.fixture(scope="module")
def served(survey, tmp_path_factory):
    """A server of ``survey`` on a fresh SQLite file: (url, database path)."""
    folder = tmp_path_factory.mktemp("served")
    path = folder / "survey.pkl"
    survey.save(path)
    database = folder / "responses.db"
    with running_server(path, database) as url:
        yield url, database


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
