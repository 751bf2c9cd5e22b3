"""Simulated respondents over HTTP: fetch each page's questions, post answers.

A small HTTP/1.1 client on :mod:`asyncio` streams (one connection per
request, ``Connection: close``), so that thousands of respondents can be
simulated at once with the standard library only.
"""

from __future__ import annotations

import asyncio
import json
import ssl
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

__all__ = ["fetch_questions", "submit_answers"]


def _target(base_url: str) -> tuple[str, int, str, ssl.SSLContext | None]:
    parts = urlsplit(base_url)
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"base_url must be http(s)://host[:port]; got {base_url!r}.")
    secure = parts.scheme == "https"
    port = parts.port or (443 if secure else 80)
    context = ssl.create_default_context() if secure else None
    return parts.hostname, port, parts.path.rstrip("/"), context


async def _request(
    target: tuple, method: str, path: str, body: bytes | None, timeout: float
) -> tuple[int, bytes]:
    host, port, prefix, context = target
    reader, writer = await asyncio.wait_for(
        asyncio.open_connection(host, port, ssl=context), timeout
    )
    try:
        head = (
            f"{method} {prefix}{path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
            "Connection: close\r\n"
        )
        if body is not None:
            head += f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n"
        writer.write(head.encode("ascii") + b"\r\n" + (body or b""))
        await writer.drain()
        data = await asyncio.wait_for(reader.read(), timeout)
    finally:
        writer.close()
    header, _, payload = data.partition(b"\r\n\r\n")
    status = int(header.split(b" ", 2)[1])
    return status, payload


async def _many(
    base_url: str, requests: list[tuple[str, str, bytes | None]], limit: int, timeout
) -> list[tuple[int, bytes]]:
    target = _target(base_url)
    gate = asyncio.Semaphore(limit)

    async def one(method, path, body):
        async with gate:
            return await _request(target, method, path, body, timeout)

    return await asyncio.gather(*(one(*r) for r in requests))


def fetch_questions(
    base_url: str, tokens: Sequence[str], *, max_connections: int = 64
) -> list[dict[str, Any]]:
    """Each respondent's questions and anchors, as their page receives them.

    Parameters
    ----------
    base_url : str
        ``http://host:port`` of the collection server.
    tokens : sequence of str
        Respondent tokens (:func:`issue_tokens`).
    max_connections : int, default=64
        Most requests in flight at once.

    Returns
    -------
    specs : list of dict
        One respondent spec per token (see
        :meth:`Questionnaire.respondent_spec`).

    Examples
    --------
    >>> from skprivate.survey import fetch_questions
    >>> fetch_questions("http://127.0.0.1:8000", [])
    []
    """
    if not tokens:
        return []
    requests = [("GET", f"/s/{t}/questions.json", None) for t in tokens]
    replies = asyncio.run(_many(base_url, requests, max_connections, 60.0))
    out = []
    for token, (status, payload) in zip(tokens, replies):
        if status != 200:
            raise ValueError(f"GET /s/{token[:6]}.../questions.json: status {status}.")
        out.append(json.loads(payload))
    return out


def submit_answers(
    base_url: str,
    tokens: Sequence[str],
    answers: Sequence[dict[str, Any]],
    *,
    max_connections: int = 64,
    timeout: float = 120.0,
) -> list[int]:
    """Post each respondent's privatized answers, as their page does.

    Parameters
    ----------
    base_url : str
        ``http://host:port`` of the collection server.
    tokens : sequence of str
        Respondent tokens.
    answers : sequence of dict
        The privatized answers of each respondent (question name to answer),
        e.g. from :meth:`Questionnaire.simulate_answers`.
    max_connections : int, default=64
        Most connections open at once.
    timeout : float, default=120.0
        Seconds allowed to each connection and to each reply.

    Returns
    -------
    statuses : list of int
        HTTP status of each submission (201 when stored).

    Examples
    --------
    >>> from skprivate.survey import submit_answers
    >>> submit_answers("http://127.0.0.1:8000", [], [])
    []
    """
    if len(tokens) != len(answers):
        raise ValueError(
            f"tokens and answers differ in length ({len(tokens)}, {len(answers)})."
        )
    if not tokens:
        return []
    requests = [
        ("POST", f"/s/{t}", json.dumps({"answers": a}).encode())
        for t, a in zip(tokens, answers)
    ]
    replies = asyncio.run(_many(base_url, requests, max_connections, timeout))
    return [status for status, _ in replies]
