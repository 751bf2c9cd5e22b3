"""Where the privatized answers are kept: SQLAlchemy Core, SQLite by default.

Three tables: the public description of the questionnaire, one row per
respondent token (a SHA-256 of the token, the respondent's interval anchors
and whether the token was used) and one row per response (the privatized
answers, unique per token).  Nothing else is stored: no raw value, no time,
no address.

A token is answered at most once whatever the number of server processes:
the transaction that stores an answer locks the token rows (SQLite: the
database, ``BEGIN IMMEDIATE``; a server database: ``SELECT ... FOR UPDATE``
in one fixed order, so two batches never deadlock), claims them with one
``UPDATE ... WHERE used = 0`` and keeps only the answers of the rows that
update changed; the UNIQUE token column of the responses is a second guard.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "SurveyStore",
    "database_url",
    "display_url",
    "hash_token",
    "is_sqlite",
    "missing_driver",
    "valid_token",
]

TOKEN_BYTES = 32  # 256 random bits per respondent
TOKEN_PATTERN = re.compile(r"^[A-Za-z0-9_-]{43}$")


def database_url(database: str | Path) -> str:
    """A SQLAlchemy URL from a URL or a path to an SQLite file."""
    if not isinstance(database, str | os.PathLike):
        # str() of anything else would name a file in the working directory
        raise TypeError(
            "database must be a SQLAlchemy URL or the path of an SQLite file "
            f"(str or Path); got {type(database).__name__}."
        )
    text = str(database)
    if "://" in text:
        return text
    return "sqlite:///" + str(Path(text).expanduser().resolve())


def is_sqlite(database: str | Path) -> bool:
    """Whether ``database`` (a URL or a file path) names an SQLite database."""
    return database_url(database).startswith("sqlite")


def display_url(database: str | Path) -> str:
    """The database as messages may show it: a path as given, a URL with any
    password masked."""
    url = database_url(database)
    if "://" not in str(database) or url.startswith("sqlite"):
        return str(database)
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:  # not a URL SQLAlchemy reads: show its scheme only
        return url.split("://", 1)[0] + "://..."


def missing_driver(database: str | Path) -> str | None:
    """Why the Python driver of ``database`` cannot be loaded, or None."""
    from sqlalchemy.engine import make_url

    url = make_url(database_url(database))
    try:
        url.get_dialect().import_dbapi()
    except ImportError as exc:
        hint = ""
        if url.get_backend_name() == "postgresql":
            hint = (
                "; for PostgreSQL, pip install 'skprivate[postgresql]' and write "
                "the URL as postgresql+psycopg://user@host/dbname"
            )
        return (
            f"the database {display_url(database)} needs the Python driver "
            f"{url.get_driver_name()!r}, which cannot be imported ({exc}){hint}."
        )
    return None


def valid_token(token: str) -> bool:
    """Whether ``token`` has the form of an issued token (43 URL-safe chars)."""
    return isinstance(token, str) and bool(TOKEN_PATTERN.match(token))


def hash_token(token: str) -> str:
    """The stored form of a token: its SHA-256, so a copy of the database
    cannot answer in a respondent's name."""
    return hashlib.sha256(token.encode("ascii")).hexdigest()


# Key of the advisory lock that serializes the creation of the tables.
_LOCK = int.from_bytes(hashlib.sha256(b"skprivate survey").digest()[:4], "big")


def _dumps(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), sort_keys=True, allow_nan=False)


class SurveyStore:
    """Tables and transactions of one survey database (any SQLAlchemy URL)."""

    def __init__(self, database: str | Path) -> None:
        from sqlalchemy import (
            Column,
            ForeignKey,
            Integer,
            MetaData,
            String,
            Table,
            Text,
        )

        self.url = database_url(database)
        self.sqlite = self.url.startswith("sqlite")
        reason = missing_driver(self.url)
        if reason is not None:
            raise ImportError(reason)
        self.metadata = MetaData()
        self.meta = Table(
            "skprivate_survey",
            self.metadata,
            Column("key", String(64), primary_key=True),
            Column("value", Text, nullable=False),
        )
        self.tokens = Table(
            "skprivate_tokens",
            self.metadata,
            Column("token_hash", String(64), primary_key=True),
            Column("anchors", Text, nullable=False),
            Column("used", Integer, nullable=False, default=0),
        )
        self.responses = Table(
            "skprivate_responses",
            self.metadata,
            Column("id", Integer, primary_key=True, autoincrement=True),
            Column(
                "token_hash",
                String(64),
                ForeignKey("skprivate_tokens.token_hash"),
                nullable=False,
                unique=True,
            ),
            Column("answers", Text, nullable=False),
        )
        self.writer = self._engine(immediate=True)
        self.reader = self._engine(immediate=False)

    def _engine(self, immediate: bool):
        from sqlalchemy import create_engine, event

        if not self.sqlite:
            # A worker process holds at most 5 writing and 10 reading
            # connections (answers are written by one task; pages are read
            # from threads), so several workers fit PostgreSQL's default
            # max_connections of 100.
            size = (2, 3) if immediate else (5, 5)
            return create_engine(
                self.url, pool_pre_ping=True, pool_size=size[0], max_overflow=size[1]
            )
        engine = create_engine(
            self.url, connect_args={"timeout": 30.0, "check_same_thread": False}
        )

        @event.listens_for(engine, "connect")
        def _connect(dbapi_connection, _record):
            # SQLAlchemy then emits BEGIN itself (its pysqlite recipe).
            dbapi_connection.isolation_level = None
            cursor = dbapi_connection.cursor()
            cursor.execute("PRAGMA journal_mode=WAL")
            cursor.execute("PRAGMA synchronous=FULL")
            cursor.execute("PRAGMA foreign_keys=ON")
            cursor.close()

        @event.listens_for(engine, "begin")
        def _begin(connection):
            # A writer takes the lock at BEGIN: a deferred transaction that
            # reads and then writes can fail on a busy database whatever the
            # timeout.
            connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

        return engine

    def close(self) -> None:
        """Release the connections."""
        self.writer.dispose()
        self.reader.dispose()

    # -- the questionnaire ----------------------------------------------------
    def initialize(self, public_spec: dict, fingerprint: str) -> None:
        """Create the tables, or check that they hold this questionnaire."""
        from sqlalchemy import insert, select, text

        with self.writer.begin() as conn:
            # Several server processes may start on one new database at
            # once: the first creates the tables, the others wait and check.
            if conn.dialect.name == "postgresql":
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": _LOCK})
            self.metadata.create_all(conn)
            rows = dict(conn.execute(select(self.meta.c.key, self.meta.c.value)).all())
            if not rows:
                conn.execute(
                    insert(self.meta),
                    [
                        {"key": "questionnaire", "value": _dumps(public_spec)},
                        {"key": "fingerprint", "value": fingerprint},
                    ],
                )
            elif rows.get("fingerprint") != fingerprint:
                raise ValueError(
                    f"{display_url(self.url)} holds the responses of another "
                    "questionnaire "
                    f"(fingerprint {rows.get('fingerprint', '?')[:12]}, this one "
                    f"{fingerprint[:12]}); use a new database for a new "
                    "questionnaire."
                )

    def public_spec(self) -> dict:
        """The questionnaire description stored at :meth:`initialize`."""
        from sqlalchemy import inspect, select

        if not inspect(self.reader).has_table("skprivate_survey"):
            raise ValueError(f"{display_url(self.url)} holds no skprivate survey.")
        with self.reader.connect() as conn:
            text = conn.execute(
                select(self.meta.c.value).where(self.meta.c.key == "questionnaire")
            ).scalar_one_or_none()
        if text is None:
            raise ValueError(f"{display_url(self.url)} holds no skprivate survey.")
        return json.loads(text)

    # -- tokens -----------------------------------------------------------------
    def add_tokens(self, anchors: Sequence[dict]) -> list[str]:
        """Issue one token per entry of ``anchors``; return the tokens."""
        from sqlalchemy import insert

        tokens = [secrets.token_urlsafe(TOKEN_BYTES) for _ in anchors]
        rows = [
            {"token_hash": hash_token(t), "anchors": _dumps(a), "used": 0}
            for t, a in zip(tokens, anchors)
        ]
        if rows:
            with self.writer.begin() as conn:
                conn.execute(insert(self.tokens), rows)
        return tokens

    def lookup(self, token: str) -> dict | None:
        """``{"anchors": ..., "used": bool}`` of a token, or None if unknown."""
        from sqlalchemy import select

        if not valid_token(token):
            return None
        with self.reader.connect() as conn:
            row = conn.execute(
                select(self.tokens.c.anchors, self.tokens.c.used).where(
                    self.tokens.c.token_hash == hash_token(token)
                )
            ).one_or_none()
        if row is None:
            return None
        return {"anchors": json.loads(row.anchors), "used": bool(row.used)}

    # -- responses ----------------------------------------------------------------
    def store_batch(
        self,
        items: Sequence[tuple[str, dict]],
        check: Callable[[dict, dict], None] | None = None,
    ) -> list[str]:
        """Store answers, one response per token, in one transaction.

        ``items`` holds ``(token, answers)`` pairs; ``check(answers,
        anchors)`` may raise ``ValueError`` to refuse an answer that does not
        fit the token's anchors.  Returns one outcome per item: ``"stored"``,
        ``"unknown"`` (no such token), ``"used"`` (already answered) or
        ``"invalid: <message>"``.
        """
        from sqlalchemy import insert, select, update

        hashes = [hash_token(t) for t, _ in items]
        outcomes: list[str] = []
        rows = []
        with self.writer.begin() as conn:
            # Locks the token rows in hash order (FOR UPDATE is a no-op on
            # SQLite, which holds the database lock since BEGIN IMMEDIATE);
            # what is read is then current until the commit.
            found = {
                r.token_hash: r
                for r in conn.execute(
                    select(
                        self.tokens.c.token_hash,
                        self.tokens.c.anchors,
                        self.tokens.c.used,
                    )
                    .where(self.tokens.c.token_hash.in_(sorted(set(hashes))))
                    .order_by(self.tokens.c.token_hash)
                    .with_for_update()
                )
            }
            taken = {h for h, r in found.items() if r.used}
            for h, (_, answers) in zip(hashes, items):
                if h not in found:
                    outcomes.append("unknown")
                    continue
                if h in taken:
                    outcomes.append("used")
                    continue
                if check is not None:
                    try:
                        check(answers, json.loads(found[h].anchors))
                    except ValueError as exc:
                        outcomes.append(f"invalid: {exc}")
                        continue
                taken.add(h)
                rows.append({"token_hash": h, "answers": _dumps(answers)})
                outcomes.append("stored")
            if rows:
                # The claim itself is conditional: only the rows it changes
                # get a response, whatever was read above.
                claimed = set(
                    conn.execute(
                        update(self.tokens)
                        .where(
                            self.tokens.c.token_hash.in_(
                                [r["token_hash"] for r in rows]
                            ),
                            self.tokens.c.used == 0,
                        )
                        .values(used=1)
                        .returning(self.tokens.c.token_hash)
                    ).scalars()
                )
                if len(claimed) != len(rows):
                    outcomes = [
                        "used" if o == "stored" and h not in claimed else o
                        for h, o in zip(hashes, outcomes)
                    ]
                    rows = [r for r in rows if r["token_hash"] in claimed]
            if rows:
                conn.execute(insert(self.responses), rows)
        return outcomes

    def rows(self) -> list[tuple[dict, dict]]:
        """Every response as ``(answers, anchors)``, in the order received."""
        from sqlalchemy import select

        query = (
            select(self.responses.c.answers, self.tokens.c.anchors)
            .join(self.tokens, self.tokens.c.token_hash == self.responses.c.token_hash)
            .order_by(self.responses.c.id)
        )
        with self.reader.connect() as conn:
            return [
                (json.loads(a), json.loads(q)) for a, q in conn.execute(query).all()
            ]

    def counts(self) -> dict[str, int]:
        """Numbers of tokens issued, used, and of responses stored."""
        from sqlalchemy import func, select

        with self.reader.connect() as conn:
            issued = conn.execute(select(func.count()).select_from(self.tokens))
            issued = issued.scalar_one()
            used = conn.execute(
                select(func.count())
                .select_from(self.tokens)
                .where(self.tokens.c.used == 1)
            ).scalar_one()
            stored = conn.execute(
                select(func.count()).select_from(self.responses)
            ).scalar_one()
        return {"issued": int(issued), "used": int(used), "responses": int(stored)}
