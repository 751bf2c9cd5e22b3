"""The collection server: a Starlette app on uvicorn, answers kept by SQLAlchemy.

The web framework and the server are imported inside the functions, so this
module (and ``import skprivate``) works without the ``survey`` extra.

Routes::

    GET  /                      invitation notice, or a new token (open survey)
    GET  /s/<token>             the respondent's page (self-contained HTML)
    GET  /s/<token>/questions.json  the same questions as JSON
    POST /s/<token>             {"answers": {...}}: privatized answers only
    GET  /healthz               "ok"
    GET  /status, /status.json  the operator's view (with an operator token)

Every POST is checked against the output space of each question's mechanism
before it is queued; one writer task stores the queued answers in batches,
one transaction per batch, claiming each token with
``UPDATE ... WHERE used < wave`` so that a token is answered at most once per
wave.  A survey with a ``lifetime_epsilon`` is collected in waves, one
server per wave (``wave=``); each stored wave is charged to the token's
ledger, and a wave that would take the token past the budget is refused
(403) and not stored (see :mod:`skprivate.survey._waves`).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import json
import math
import numbers
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..utils._param_validation import Interval, validate_params
from ._collect import check_questionnaire
from ._questionnaire import Questionnaire
from ._render import content_security_policy
from ._spec import AnswerError, admissible_subsets, check_answer, json_type
from ._spec_frequency import check_frequency_spec
from ._store import (
    SurveyStore,
    check_persistent,
    display_url,
    is_sqlite,
    valid_token,
)

__all__ = ["background_server", "create_app", "serve"]

MAX_BODY_BYTES = 64 * 1024
BATCH_SIZE = 512


class PayloadError(Exception):
    """A request refused with an HTTP status and a message."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def _reject_constant(name: str) -> None:
    raise PayloadError(400, f"malformed JSON: {name} is not a number in JSON.")


# Digits of the longest JSON integer parsed as an integer: every longer one
# lies beyond the largest double (about 1.8e308) and is read as an infinity,
# which the answer checks refuse with the question's name (Python itself
# refuses to parse integers of more than 4300 digits).
_MAX_INT_DIGITS = 400


def _parse_int(text: str) -> int | float:
    if len(text) > _MAX_INT_DIGITS:
        return -math.inf if text.startswith("-") else math.inf
    return int(text)


def _unique_keys(pairs: list[tuple[str, Any]]) -> dict:
    keys = [k for k, _ in pairs]
    if len(set(keys)) != len(keys):
        raise PayloadError(400, "malformed JSON: an object repeats a key.")
    return dict(pairs)


class _Checker:
    """Parse a request body and check every answer against its mechanism."""

    def __init__(self, questionnaire: Questionnaire) -> None:
        self.questions = {q.name: q for q in questionnaire.questions}
        for q in questionnaire.questions:
            if q.kind == "frequency":
                check_frequency_spec(q.name, q.spec)
        self.subsets = {
            q.name: admissible_subsets(q.privatizer.designs_[0])
            for q in questionnaire.questions
            if q.kind == "subset"
        }

    def parse(self, body: bytes) -> dict[str, Any]:
        try:
            data = json.loads(
                body.decode("utf-8"),
                parse_constant=_reject_constant,
                parse_int=_parse_int,
                object_pairs_hook=_unique_keys,
            )
        except PayloadError:
            raise
        except (ValueError, RecursionError, UnicodeDecodeError) as exc:
            raise PayloadError(400, f"malformed JSON: {exc}") from None
        shape = 'the body must be a JSON object {"answers": {...}} and nothing else'
        if not isinstance(data, dict):
            raise PayloadError(422, f"{shape}; got {json_type(data)}.")
        extra = sorted(set(data) - {"answers"})
        if extra:
            # the field's name only: its value may be anything, a raw value too
            raise PayloadError(
                422,
                f"unexpected field {extra[0][:64]!r} in the body"
                + (f" (and {len(extra) - 1} more)" if len(extra) > 1 else "")
                + f": {shape}.",
            )
        if "answers" not in data:
            raise PayloadError(422, f'the field "answers" is missing: {shape}.')
        answers = data["answers"]
        if not isinstance(answers, dict):
            raise PayloadError(422, '"answers" must be an object: question -> answer.')
        unknown = sorted(set(answers) - set(self.questions))
        if unknown:
            raise PayloadError(422, f"unknown question {unknown[0][:64]!r}.")
        missing = [name for name in self.questions if name not in answers]
        if missing:
            raise PayloadError(422, f"question {missing[0]!r} is not answered.")
        checked = {}
        for name, q in self.questions.items():
            try:
                checked[name] = check_answer(
                    name, q.spec, answers[name], self.subsets.get(name)
                )
            except AnswerError as exc:
                raise PayloadError(422, str(exc)) from None
        return checked

    def check_anchors(self, answers: dict, anchors: dict) -> None:
        """Refuse an interval answer that picks a cell the anchors leave empty."""
        for name, q in self.questions.items():
            if q.kind != "interval":
                continue
            padded = [float("-inf"), *anchors[name], float("inf")]
            cell = answers[name]
            if not padded[cell] < padded[cell + 1]:
                raise AnswerError(
                    f"answer to {name!r} picks a cell that this respondent's "
                    "anchors leave empty."
                )


async def _run_db(store: SurveyStore, func, *args):
    """Run a database call: inline for SQLite, in a worker thread otherwise.

    An SQLite call takes tens of microseconds per row, less than a hop to a
    thread costs, and a worker thread waits for the interpreter lock at
    every row it reads while the event loop is busy; a network database
    would block the loop instead, so it gets a thread.
    """
    if store.url.startswith("sqlite"):
        return func(*args)
    import anyio

    return await anyio.to_thread.run_sync(func, *args)


class _Writer:
    """Queue of checked answers, stored in batches by one task."""

    def __init__(
        self, store: SurveyStore, check, batch_size: int, **options: Any
    ) -> None:
        self.store = store
        self.check = check
        self.batch_size = batch_size
        self.options = options  # wave, charges, budget of store_batch
        self.queue: asyncio.Queue = asyncio.Queue()

    async def submit(self, token: str, answers: dict) -> str:
        future = asyncio.get_running_loop().create_future()
        await self.queue.put((token, answers, future))
        return await future

    async def run(self) -> None:
        while True:
            batch = [await self.queue.get()]
            while len(batch) < self.batch_size:
                try:
                    batch.append(self.queue.get_nowait())
                except asyncio.QueueEmpty:
                    break
            items = [(token, answers) for token, answers, _ in batch]
            try:
                outcomes = await _run_db(
                    self.store,
                    functools.partial(self.store.store_batch, **self.options),
                    items,
                    self.check,
                )
            except Exception as exc:  # the transaction rolled back: nothing kept
                for _, _, future in batch:
                    if not future.done():
                        future.set_exception(exc)
                continue
            for (_, _, future), outcome in zip(batch, outcomes):
                if not future.done():
                    future.set_result(outcome)


_NOTICE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title}</title></head>
<body><main><h1>{title}</h1><p>{text}</p></main></body></html>
"""


def create_app(
    questionnaire: Questionnaire,
    database: str | Path,
    *,
    open_enrollment: bool = False,
    max_body_bytes: int = MAX_BODY_BYTES,
    batch_size: int = BATCH_SIZE,
    operator_token: str | None = None,
    wave: int = 1,
):
    """The ASGI application that collects a questionnaire's private answers.

    Parameters
    ----------
    questionnaire : Questionnaire
        The survey.
    database : str or Path
        SQLAlchemy URL, or the path of an SQLite file (WAL mode).  Created
        if needed; a database holding another questionnaire, or an
        in-memory SQLite database (the answers would vanish with it), is
        refused.
    open_enrollment : bool, default=False
        ``GET /`` issues a fresh token to every visitor and redirects to its
        page (an open survey), with interval anchors drawn from fresh
        operating-system entropy whatever the privatizers' ``random_state``
        (so that no restart and no other worker repeats them); otherwise
        only issued tokens can answer (:func:`issue_tokens`).
    max_body_bytes : int, default=65536
        Larger request bodies are refused with status 413.
    batch_size : int, default=512
        Most answers stored in one transaction.
    wave : int, default=1
        The wave collected: each token answers it at most once.  Waves after
        the first need a questionnaire with ``lifetime_epsilon``; every
        stored wave is charged to the token's ledger, and a submission that
        would take the token past the budget is refused (403, not stored).
    operator_token : str or None, default=None
        Serve the operator's view at ``/status`` (HTML) and ``/status.json``
        (:func:`survey_status` of the stored answers) to requests carrying
        this token, as the password of HTTP Basic authentication or as
        ``Authorization: Bearer <token>``; 401 without a token, 403 with
        another.  ``None``: no such pages (404).

    Returns
    -------
    app : starlette.applications.Starlette
        Run it with any ASGI server, e.g. ``uvicorn``; :func:`serve` does.

    Examples
    --------
    >>> import tempfile, os
    >>> from skprivate import IntervalCaseI
    >>> from skprivate.survey import Question, Questionnaire, create_app
    >>> survey = Questionnaire(
    ...     [Question("age", "How old are you?", IntervalCaseI().fit([[0.0]]))]
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     app = create_app(survey, os.path.join(tmp, "survey.db"))
    >>> type(app).__name__
    'Starlette'
    """
    check_questionnaire(questionnaire)
    validate_params(
        {
            "open_enrollment": ["boolean"],
            "max_body_bytes": [Interval(numbers.Integral, 1, None, closed="left")],
            "batch_size": [Interval(numbers.Integral, 1, None, closed="left")],
            "operator_token": [str, None],
            "wave": [Interval(numbers.Integral, 1, None, closed="left")],
        },
        {
            "open_enrollment": open_enrollment,
            "max_body_bytes": max_body_bytes,
            "batch_size": batch_size,
            "operator_token": operator_token,
            "wave": wave,
        },
        "create_app",
    )
    check_persistent(database, "the collection server")
    budget, charges = _wave_terms(questionnaire, wave)
    from ._status_page import MIN_TOKEN_CHARS

    if operator_token is not None and len(operator_token) < MIN_TOKEN_CHARS:
        raise ValueError(
            f"operator_token must have at least {MIN_TOKEN_CHARS} characters."
        )
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import (
        HTMLResponse,
        JSONResponse,
        PlainTextResponse,
        RedirectResponse,
    )
    from starlette.routing import Route

    store = SurveyStore(database)
    checker = _Checker(questionnaire)
    spec = questionnaire.public_spec()
    fingerprint = questionnaire.fingerprint()
    page_headers = {
        "Content-Security-Policy": content_security_policy(),
        "Referrer-Policy": "no-referrer",
        "X-Content-Type-Options": "nosniff",
        "X-Frame-Options": "DENY",
        "Cache-Control": "no-store",
    }
    json_headers = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}

    def notice(status: int, title: str, text: str) -> HTMLResponse:
        body = _NOTICE.format(title=title, text=text)
        return HTMLResponse(body, status_code=status, headers=page_headers)

    def refusal(status: int, message: str) -> JSONResponse:
        return JSONResponse(
            {"error": message}, status_code=status, headers=json_headers
        )

    @contextlib.asynccontextmanager
    async def lifespan(app):
        await _run_db(store, store.initialize, spec, fingerprint)
        writer = _Writer(
            store,
            checker.check_anchors,
            batch_size,
            wave=wave,
            charges=charges,
            budget=budget,
        )
        task = asyncio.create_task(writer.run())
        app.state.writer = writer
        try:
            yield
        finally:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
            store.close()

    async def respondent(request: Request):
        token = request.path_params["token"]
        found = await _run_db(store, store.lookup, token)
        if found is None:
            return None, notice(404, "Unknown link", "This survey link is not valid.")
        if found["last_wave"] >= wave:
            return None, notice(
                410, "Already answered", "Answers from this link were already received."
            )
        if budget is not None:
            later = int(found["charged"])  # the first charged wave costs c[0]
            cost = sum(c[later] for c in charges.values() if c is not None)
            if found["spent"] + cost > budget * (1 + 1e-9):
                return None, notice(
                    403,
                    "Privacy budget reached",
                    "Answering this wave would release more than the lifetime "
                    f"privacy budget of this survey (epsilon {budget:g}) allows "
                    "for this link: nothing more is asked.",
                )
        return found["anchors"], None

    async def page(request: Request):
        anchors, failure = await respondent(request)
        if failure is not None:
            return failure
        token = request.path_params["token"]
        html = questionnaire.render_html(anchors, submit_url=f"/s/{token}", wave=wave)
        return HTMLResponse(html, headers=page_headers)

    async def questions(request: Request):
        anchors, failure = await respondent(request)
        if failure is not None:
            if failure.status_code == 403:
                return refusal(
                    403, "the lifetime privacy budget of this link is reached."
                )
            return refusal(failure.status_code, "unknown or used link")
        token = request.path_params["token"]
        data = questionnaire.respondent_spec(
            anchors, submit_url=f"/s/{token}", wave=wave
        )
        return JSONResponse(data, headers=json_headers)

    async def submit(request: Request):
        token = request.path_params["token"]
        if not valid_token(token):
            return refusal(404, "unknown link: no respondent has this token.")
        ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if ctype != "application/json":
            return refusal(
                415, "the body must be JSON (Content-Type: application/json)."
            )
        declared = request.headers.get("content-length")
        if declared is not None:
            if not declared.isdigit():
                return refusal(400, "invalid Content-Length.")
            if int(declared) > max_body_bytes:
                return refusal(413, f"the body exceeds {max_body_bytes} bytes.")
        body = bytearray()
        async for chunk in request.stream():
            body += chunk
            if len(body) > max_body_bytes:
                return refusal(413, f"the body exceeds {max_body_bytes} bytes.")
        try:
            answers = checker.parse(bytes(body))
        except PayloadError as exc:
            return refusal(exc.status, exc.message)
        try:
            outcome = await request.app.state.writer.submit(token, answers)
        except Exception:
            return refusal(503, "the answers could not be stored; send them again.")
        if outcome == "stored":
            return JSONResponse(
                {"status": "stored"}, status_code=201, headers=json_headers
            )
        if outcome == "unknown":
            return refusal(404, "unknown link: no respondent has this token.")
        if outcome == "used":
            return refusal(409, "answers from this link were already received.")
        if outcome.startswith("budget: "):
            return refusal(403, outcome.removeprefix("budget: "))
        return refusal(422, outcome.removeprefix("invalid: "))

    async def index(request: Request):
        if not open_enrollment:
            return notice(
                404,
                questionnaire.title,
                "This survey is by invitation: open the link you were sent.",
            )

        def enroll() -> str:
            # fresh entropy whatever the privatizers' seeds: a restart or
            # another worker never hands out earlier respondents' anchors
            anchors = questionnaire.draw_anchors(1, random_state=None)
            return store.add_tokens(anchors)[0]

        token = await _run_db(store, enroll)
        return RedirectResponse(f"/s/{token}", status_code=303, headers=json_headers)

    async def health(request: Request):
        return PlainTextResponse("ok")

    from ._status_page import HEADERS, StatusView, check_operator, render_status

    view = StatusView(questionnaire, store)

    async def status(request: Request):
        # the same refusal whatever the page: nothing but the status code
        code = check_operator(request.headers.get("authorization"), operator_token)
        if code == 401:
            return PlainTextResponse(
                "operator token required",
                status_code=401,
                headers={**json_headers, "WWW-Authenticate": 'Basic realm="status"'},
            )
        if code != 200:
            return PlainTextResponse("forbidden", 403, headers=json_headers)
        import anyio

        current = await anyio.to_thread.run_sync(view.current)
        if request.url.path.endswith(".json"):
            return JSONResponse(current.to_dict(), headers=json_headers)
        return HTMLResponse(render_status(current), headers=HEADERS)

    routes = [
        Route("/", index, methods=["GET"]),
        Route("/healthz", health, methods=["GET"]),
        Route("/s/{token}", page, methods=["GET"]),
        Route("/s/{token}", submit, methods=["POST"]),
        Route("/s/{token}/questions.json", questions, methods=["GET"]),
    ]
    if operator_token is not None:
        routes += [
            Route("/status", status, methods=["GET"]),
            Route("/status.json", status, methods=["GET"]),
        ]
    return Starlette(routes=routes, lifespan=lifespan)


def _wave_terms(
    questionnaire: Questionnaire, wave: int
) -> tuple[float | None, dict[str, tuple[float, float] | None] | None]:
    """The budget and the ledger's charges per question (None, None: one wave)."""
    budget = questionnaire.lifetime_epsilon
    if budget is None:
        if wave != 1:
            raise ValueError(
                f"wave={wave}: a survey asked again in waves must declare its "
                "lifetime budget, Questionnaire(..., lifetime_epsilon=...)."
            )
        return None, None
    fresh = [q.name for q in questionnaire.questions if q.spec["kind"] == "subset"]
    if wave > 1 and fresh:
        raise ValueError(
            f"wave={wave}: the subset question(s) {', '.join(fresh)} cannot be "
            "asked again. The wave ledger charges no subset question, and a "
            "device that keeps no answer (storage refused or cleared, another "
            "browser) draws a fresh subset at each wave; the subsets intersect "
            "towards the true category. Ask subset questions in one wave only."
        )
    from ._waves import wave_charges

    return budget, wave_charges(questionnaire)


def _prepare(questionnaire: Questionnaire, database: str | Path) -> None:
    """Create the tables, or check that they hold this questionnaire, now.

    So that a wrong database is a ``ValueError`` in the caller rather than a
    server that fails its startup.
    """
    from sqlalchemy.exc import OperationalError

    store = SurveyStore(database)
    try:
        store.initialize(questionnaire.public_spec(), questionnaire.fingerprint())
    except OperationalError as exc:  # unreachable, refused, no such database
        first = str(exc.orig or exc).strip().splitlines()[0]
        raise RuntimeError(
            f"cannot use the database {display_url(database)}: {first}"
        ) from None
    finally:
        store.close()


def serve(
    questionnaire: Questionnaire,
    database: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 8000,
    open_enrollment: bool = False,
    max_body_bytes: int = MAX_BODY_BYTES,
    log_level: str = "info",
    workers: int = 1,
    operator_token_file: str | Path | None = None,
    wave: int = 1,
) -> None:
    """Run the collection server with uvicorn until interrupted.

    Access logs are off (they would record which respondent connected
    when); put a TLS-terminating reverse proxy in front of it on a network.
    Once the server accepts connections it prints one line ``ready:
    http://host:port`` on standard output (the port actually bound, which
    is how a script that passed ``port=0`` learns it).

    Parameters
    ----------
    questionnaire : Questionnaire
        The survey.
    database : str or Path
        SQLAlchemy URL or SQLite file.  Checked (and its tables created)
        before the server starts: a database of another questionnaire, or an
        in-memory SQLite database, raises ``ValueError`` here.
    host : str, default="127.0.0.1"
        Interface to listen on.
    port : int, default=8000
        TCP port; 0 picks a free one.
    open_enrollment : bool, default=False
        Give a token to every visitor of ``/`` (see :func:`create_app`).
    max_body_bytes : int, default=65536
        Largest accepted request body.
    log_level : str, default="info"
        uvicorn's log level.
    workers : int, default=1
        Server processes sharing the listening socket, each with its own
        connections to the database.  More than one needs a server database
        such as PostgreSQL (``postgresql+psycopg://user@host/dbname``, the
        ``postgresql`` extra); an SQLite file is refused.  A token is still
        answered at most once: the database itself refuses a second claim.
        Each worker is a fresh Python process, so a script that calls
        ``serve(..., workers=2)`` must do it under ``if __name__ ==
        "__main__":``.  SIGINT or SIGTERM stops every worker; a worker that
        exits on its own stops the others and ``serve`` raises
        ``RuntimeError``.
    operator_token_file : str, Path or None, default=None
        Serve the operator's view at ``/status`` to the holder of the token
        in this file (see :func:`create_app`); a missing file is created
        with a new random token, readable by its owner only.  Where the
        token is, never the token, is printed.
    wave : int, default=1
        The wave collected (see :func:`create_app`).

    Examples
    --------
    >>> from skprivate.survey import serve
    >>> callable(serve)
    True
    """
    check_questionnaire(questionnaire)
    validate_params(
        {
            "port": [Interval(numbers.Integral, 0, 65535, closed="both")],
            "workers": [Interval(numbers.Integral, 1, None, closed="left")],
        },
        {"port": port, "workers": workers},
        "serve",
    )
    if workers > 1 and is_sqlite(database):
        raise ValueError(
            f"workers={workers} needs a server database such as PostgreSQL; "
            f"{display_url(database)} is an SQLite file, which takes one "
            "writer at a time: serve it with workers=1."
        )
    from functools import partial

    from ._serving import listen, run_many, run_one, url_of

    if isinstance(wave, bool) or not isinstance(wave, numbers.Integral) or wave < 1:
        raise ValueError(f"wave must be an integer >= 1; got {wave!r}.")
    _wave_terms(questionnaire, wave)  # a wave after the first needs a budget
    check_persistent(database, "the collection server")
    _prepare(questionnaire, database)
    operator_token = None
    if operator_token_file is not None:
        from ._status_page import read_operator_token

        operator_token, created = read_operator_token(operator_token_file)
        where = "written to" if created else "read from"
        print(
            f"operator view: /status, with the token {where} {operator_token_file}",
            flush=True,
        )
    make_app = partial(
        create_app,
        questionnaire,
        database,
        open_enrollment=open_enrollment,
        max_body_bytes=max_body_bytes,
        operator_token=operator_token,
        wave=wave,
    )
    options = {"log_level": log_level}
    sock = listen(host, port)
    url = url_of(host, sock)
    plural = "s" if workers > 1 else ""

    def announce() -> None:
        print(f"ready: {url} ({workers} worker{plural})", flush=True)

    try:
        if workers == 1:
            run_one(make_app, sock, options, announce)
        else:
            run_many(make_app, sock, int(workers), options, announce)
    finally:
        sock.close()


@contextlib.contextmanager
def background_server(
    questionnaire: Questionnaire,
    database: str | Path,
    *,
    host: str = "127.0.0.1",
    port: int = 0,
    open_enrollment: bool = False,
    timeout: float = 30.0,
    operator_token: str | None = None,
    wave: int = 1,
) -> Iterator[str]:
    """Run the collection server in a thread while a ``with`` block runs.

    For scripts, notebooks and tests that collect on this machine.

    Parameters
    ----------
    questionnaire : Questionnaire
        The survey.
    database : str or Path
        SQLAlchemy URL or SQLite file, checked first: one holding another
        questionnaire raises ``ValueError``.
    host : str, default="127.0.0.1"
        Interface to listen on.
    port : int, default=0
        TCP port; 0 picks a free one.
    open_enrollment : bool, default=False
        See :func:`create_app`.
    timeout : float, default=30.0
        Seconds to wait for the server to start and to stop.
    operator_token : str or None, default=None
        Serve the operator's view to this token (see :func:`create_app`).
    wave : int, default=1
        The wave collected (see :func:`create_app`).

    Yields
    ------
    base_url : str
        ``http://host:port`` of the running server.

    Examples
    --------
    >>> import tempfile, os, urllib.request
    >>> from skprivate import IntervalCaseI
    >>> from skprivate.survey import Question, Questionnaire, background_server
    >>> survey = Questionnaire(
    ...     [Question("age", "How old are you?", IntervalCaseI().fit([[0.0]]))]
    ... )
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     with background_server(survey, os.path.join(tmp, "s.db")) as url:
    ...         print(urllib.request.urlopen(url + "/healthz").read())
    b'ok'
    """
    import uvicorn

    app = create_app(
        questionnaire,
        database,
        open_enrollment=open_enrollment,
        operator_token=operator_token,
        wave=wave,
    )
    _prepare(questionnaire, database)
    config = uvicorn.Config(
        app, host=host, port=port, access_log=False, log_level="warning"
    )
    server = uvicorn.Server(config)

    def run() -> None:
        # uvicorn exits (SystemExit) when the app fails to start; the caller
        # sees it as a server that never started.
        with contextlib.suppress(SystemExit):
            server.run()

    thread = threading.Thread(target=run, name="skprivate-survey", daemon=True)
    thread.start()
    deadline = time.monotonic() + timeout
    while not server.started:
        if not thread.is_alive():
            raise RuntimeError(
                "the survey server did not start: its startup failed (uvicorn "
                "logged why above)."
            )
        if time.monotonic() > deadline:
            server.should_exit = True
            raise RuntimeError(
                f"the survey server did not start within {timeout} s (timeout)."
            )
        time.sleep(0.01)
    bound = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://{host}:{bound}"
    finally:
        server.should_exit = True
        thread.join(timeout)
