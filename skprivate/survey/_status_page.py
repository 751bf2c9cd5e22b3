"""The operator's status page of the collection server, behind a token.

``GET /status`` (HTML) and ``GET /status.json`` show what
:func:`~skprivate.survey.survey_status` returns: responses over time and the
running estimate of every question, from the stored private answers only.
The operator presents the token of ``--operator-token-file``, as the
password of HTTP Basic authentication (a browser asks for it; any user
name) or as ``Authorization: Bearer <token>``.  Without a token the answer
is 401, with a wrong one 403, with no other content.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import os
import secrets
import threading
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import Any

from ._questionnaire import Questionnaire
from ._status import (
    SurveyStatus,
    format_number,
    interval_legend,
    interval_text,
    statistic_name,
    status_from_store,
)
from ._store import SurveyStore

__all__ = ["StatusView", "check_operator", "read_operator_token", "render_status"]

OPERATOR_TOKEN_BYTES = 32
# Shortest token accepted from a file written by hand.
MIN_TOKEN_CHARS = 16
STATUS_LEVEL = 0.95

_STYLE = """
:root { color-scheme: light dark; }
html { background: #ffffff; color: #1a1a1a; }
@media (prefers-color-scheme: dark) {
  html { background: #121212; color: #ececec; }
}
body { font: 100%/1.5 system-ui, sans-serif; margin: 0 auto; max-width: 60rem;
  padding: 1rem; overflow-wrap: anywhere; }
table { border-collapse: collapse; margin: 0.5rem 0 1rem; }
caption { text-align: left; font-weight: bold; }
th, td { border: 1px solid; padding: 0.25rem 0.5rem; text-align: left; }
td.n { text-align: right; font-variant-numeric: tabular-nums; }
section { margin-top: 1.5rem; }
"""


def _style_hash() -> str:
    digest = hashlib.sha256(_STYLE.encode("utf-8")).digest()
    return base64.b64encode(digest).decode("ascii")


CSP = (
    f"default-src 'none'; style-src 'sha256-{_style_hash()}'; "
    "base-uri 'none'; form-action 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "Referrer-Policy": "no-referrer",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cache-Control": "no-store",
}


def read_operator_token(path: str | Path) -> tuple[str, bool]:
    """The operator token kept in ``path``, created there if the file is absent.

    A new token is ``secrets.token_urlsafe(32)`` in a file readable by its
    owner only.

    Returns
    -------
    token : str
    created : bool
        Whether the file was written now.
    """
    path = Path(path).expanduser()
    created = False
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(secrets.token_urlsafe(OPERATOR_TOKEN_BYTES) + "\n")
        created = True
    try:
        token = path.read_text(encoding="utf-8").strip()
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(
            f"operator token file {str(path)!r} cannot be read ({type(exc).__name__})."
        ) from None
    if len(token) < MIN_TOKEN_CHARS or any(c.isspace() for c in token):
        raise ValueError(
            f"operator token file {str(path)!r} must hold one token of at least "
            f"{MIN_TOKEN_CHARS} characters and no whitespace; delete the file to "
            "have a new one generated."
        )
    return token, created


def check_operator(authorization: str | None, token: str) -> int:
    """HTTP status of a request with this ``Authorization`` header: 200 when
    it carries ``token``, 401 when it carries none, 403 when another."""
    if not authorization:
        return 401
    scheme, _, value = authorization.strip().partition(" ")
    scheme, value = scheme.lower(), value.strip()
    if scheme == "bearer" and value:
        given = value
    elif scheme == "basic" and value:
        try:
            decoded = base64.b64decode(value, validate=True).decode("utf-8")
        except (binascii.Error, UnicodeDecodeError):
            return 403
        given = decoded.partition(":")[2]
    else:
        return 401
    same = hmac.compare_digest(given.encode("utf-8"), token.encode("utf-8"))
    return 200 if same else 403


# -- the page ------------------------------------------------------------------
def _question_section(index: int, q: Any, level: float) -> str:
    head = f"q{index}"
    parts = [
        f'<section aria-labelledby="{head}"><h3 id="{head}">{escape(q.name)}: '
        f"{escape(q.text)}</h3>",
        f"<p>{q.n_answers} stored answer{'s' * (q.n_answers != 1)}."
        + (f" Estimator: <code>{escape(q.estimator)}</code>." if q.estimator else "")
        + "</p>",
    ]
    if not q.estimates.empty:
        rows, legends = [], []
        for _, row in q.estimates.iterrows():
            name = statistic_name(str(row["statistic"]))
            value = format_number(row["value"]) or "not estimated"
            rows.append(
                f'<tr><th scope="row">{escape(name)}</th>'
                f'<td class="n">{escape(value)}</td>'
                f'<td class="n">{escape(interval_text(row))}</td></tr>'
            )
            legend = escape(interval_legend(row))
            legends.append(f"<li>{legend}</li>")
        parts += [
            f"<table><caption>Estimates of {escape(q.name)}</caption><thead><tr>"
            '<th scope="col">Statistic</th><th scope="col">Estimate</th>'
            f'<th scope="col">{100 * level:g}% interval</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table>",
            f"<ul>{''.join(legends)}</ul>",
        ]
    if q.notes:
        notes = "".join(f"<li>{escape(n)}</li>" for n in q.notes)
        parts.append(f"<p>Notes:</p><ul>{notes}</ul>")
    parts.append("</section>")
    return "".join(parts)


def render_status(status: SurveyStatus, now: datetime | None = None) -> str:
    """The status page: an HTML document with no script."""
    now = now or datetime.now(timezone.utc)
    title = f"Status: {status.title}"
    unit = "Hour (UTC) starting" if status.freq == "hour" else "Day (UTC)"
    waved = "wave" in status.counts.columns
    head = ('<th scope="col">Wave</th>' if waved else "") + (
        f'<th scope="col">{unit}</th><th scope="col">Responses</th>'
        '<th scope="col">Cumulative</th>'
    )
    lines = []
    for _, row in status.counts.iterrows():
        wave = f'<td class="n">{escape(str(row["wave"]))}</td>' if waved else ""
        lines.append(
            f"<tr>{wave}<td>{escape(str(row['period']))}</td>"
            f'<td class="n">{int(row["responses"])}</td>'
            f'<td class="n">{int(row["cumulative"])}</td></tr>'
        )
    counts = (
        f"<table><caption>Responses per {status.freq}</caption><thead><tr>{head}"
        f"</tr></thead><tbody>{''.join(lines)}</tbody></table>"
        if lines
        else "<p>No response yet.</p>"
    )
    sections = "".join(
        _question_section(i, q, status.level) for i, q in enumerate(status.questions)
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f"<title>{escape(title)}</title><style>{_STYLE}</style></head>\n"
        f"<body><main><h1>{escape(title)}</h1>"
        f"<p>From the stored private answers only, as of "
        f"{now.strftime('%Y-%m-%d %H:%M')} UTC. Links issued: {status.issued}; "
        f"responses stored: {status.responses}.</p>"
        f"<h2>Responses over time</h2>{counts}"
        "<h2>Estimates</h2><p>"
        + (f"From the responses of wave {status.wave}. " if status.wave else "")
        + f"Each {100 * status.level:g}% confidence interval "
        "is computed by the estimator's own method from the stored private "
        "answers alone; each statistic names its method and what its interval "
        f"covers.</p>{sections}</main></body></html>\n"
    )


class StatusView:
    """The server's status, recomputed only when the number of responses changed."""

    def __init__(self, questionnaire: Questionnaire, store: SurveyStore) -> None:
        self.questionnaire = questionnaire
        self.store = store
        self.lock = threading.Lock()
        self.key: Any = None
        self.status: SurveyStatus | None = None

    def current(self) -> SurveyStatus:
        """The status (blocking: call it from a worker thread)."""
        with self.lock:
            counts = self.store.counts()
            key = (counts["issued"], counts["responses"])
            if self.status is None or key != self.key:
                self.status = status_from_store(
                    self.questionnaire, self.store, STATUS_LEVEL, "auto", warn=False
                )
                self.key = key
            return self.status
