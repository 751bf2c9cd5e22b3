"""Where the privatized answers are kept: SQLAlchemy Core, SQLite by default.

Three tables: the public description of the questionnaire, one row per
respondent token (a SHA-256 of the token, the respondent's interval anchors
and whether the token was used) and one row per response (the privatized
answers, unique per token, and the hour it was received, for the operator's
counts over time).  Nothing else is stored: no raw value, no finer time, no
address.  A database created before responses had an hour gets the column
at the next :meth:`SurveyStore.initialize`, empty for its older responses.

A survey asked in waves stores the wave of each response, and a fourth
table, the ledger, the epsilon each stored wave cost the token per question
(see :mod:`skprivate.survey._waves`).

A token is answered at most once per wave whatever the number of server
processes: the transaction that stores an answer locks the token rows
(SQLite: the database, ``BEGIN IMMEDIATE``; a server database: ``SELECT ...
FOR UPDATE`` in one fixed order, so two batches never deadlock), checks the
ledger against the budget, claims them with one ``UPDATE ... SET used =
wave WHERE used < wave`` (``used`` holds the last wave answered) and keeps
only the answers of the rows that update changed; the UNIQUE (token, wave)
pair of the responses is a second guard.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

__all__ = [
    "SurveyStore",
    "check_existing",
    "check_persistent",
    "database_url",
    "display_url",
    "hash_token",
    "in_memory",
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


def _sqlite_url(database: str | Path):
    """The parsed SQLAlchemy URL of an SQLite ``database``, or None."""
    url = database_url(database)
    if not url.startswith("sqlite"):
        return None
    from sqlalchemy.engine import make_url

    return make_url(url)


def in_memory(database: str | Path) -> bool:
    """Whether ``database`` is an SQLite database held in memory
    (``sqlite://``, ``sqlite:///:memory:``, ``mode=memory``), which vanishes
    with its connection."""
    url = _sqlite_url(database)
    if url is None:
        return False
    name = url.database or ""
    return (
        name in ("", ":memory:")
        or name.startswith("file::memory:")
        or url.query.get("mode") == "memory"
    )


def check_persistent(database: str | Path, caller: str) -> None:
    """Refuse an in-memory SQLite ``database`` for ``caller``, which stores
    what must outlive it (tokens, answers).

    Raises
    ------
    ValueError
        Naming ``database`` and what would be lost.
    """
    if in_memory(database):
        raise ValueError(
            f"{caller} needs a database that outlives it; database="
            f"{display_url(database)!r} is an in-memory SQLite database, which "
            "vanishes with its connection, and the tokens and answers with it. "
            "Give the path of an SQLite file or the URL of a server database."
        )


def check_existing(database: str | Path) -> None:
    """Refuse to read an SQLite file that does not exist.

    Connecting to a missing SQLite file would create it, empty: a wrong path
    would leave a stray file and read as a survey without answers.

    Raises
    ------
    ValueError
        ``no survey database at <database>``.
    """
    url = _sqlite_url(database)
    if url is None or in_memory(database) or url.query.get("uri") in ("true", "1"):
        return  # a server database, memory, or an SQLite URI left to SQLite
    if not Path(url.database).is_file():
        raise ValueError(f"no survey database at {display_url(database)}.")


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


def _add_missing_columns(conn, table) -> None:
    """Add to an existing ``table`` the nullable columns it lacks (a database
    created by an older version); its rows get NULL there."""
    from sqlalchemy import inspect

    have = {c["name"] for c in inspect(conn).get_columns(table.name)}
    for col in table.columns:
        if col.name not in have and col.nullable:
            kind = col.type.compile(dialect=conn.dialect)
            conn.exec_driver_sql(
                f"ALTER TABLE {table.name} ADD COLUMN {col.name} {kind}"
            )


class SurveyStore:
    """Tables and transactions of one survey database (any SQLAlchemy URL)."""

    def __init__(self, database: str | Path) -> None:
        from sqlalchemy import (
            BigInteger,
            Column,
            Float,
            ForeignKey,
            Integer,
            MetaData,
            String,
            Table,
            Text,
            UniqueConstraint,
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
            ),
            Column("answers", Text, nullable=False),
            # Unix time of the start of the hour (UTC) it was received; the
            # hour only, so that the time links an answer to no finer event.
            Column("received", BigInteger, nullable=True),
            # The wave the response answers (1, 2, ...).  Nullable only so
            # that an older database gets the column: its rows are wave 1.
            Column("wave", Integer, nullable=True),
            # One response per token and wave, enforced by the database.
            UniqueConstraint("token_hash", "wave", name="skprivate_token_wave"),
        )
        # Per token, the privacy loss each released wave cost per question
        # (NULL for a question whose guarantee is not an epsilon).
        self.ledger = Table(
            "skprivate_ledger",
            self.metadata,
            Column(
                "token_hash",
                String(64),
                ForeignKey("skprivate_tokens.token_hash"),
                nullable=False,
            ),
            Column("wave", Integer, nullable=False),
            Column("question", String(64), nullable=False),
            Column("epsilon", Float, nullable=True),
            UniqueConstraint(
                "token_hash", "wave", "question", name="skprivate_ledger_once"
            ),
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
            _add_missing_columns(conn, self.responses)
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
        """``{"anchors", "used", "last_wave", "spent"}`` of a token, or None.

        ``used``: whether any wave was answered; ``last_wave``: the last
        wave answered (0: none); ``spent``: the epsilon its ledger holds;
        ``charged``: whether it has a ledger row."""
        from sqlalchemy import select

        if not valid_token(token):
            return None
        digest = hash_token(token)
        with self.reader.connect() as conn:
            row = conn.execute(
                select(self.tokens.c.anchors, self.tokens.c.used).where(
                    self.tokens.c.token_hash == digest
                )
            ).one_or_none()
            charged = self._spent(conn, [digest])
            spent = charged.get(digest, 0.0)
        if row is None:
            return None
        return {
            "anchors": json.loads(row.anchors),
            "used": bool(row.used),
            # the tokens' used column holds the last wave answered (0: none)
            "last_wave": int(row.used),
            "spent": spent,
            "charged": digest in charged,
        }

    def _spent(self, conn, hashes: Sequence[str]) -> dict[str, float]:
        """Epsilon charged so far to each token in ``hashes`` that has a
        ledger row (absent: never charged)."""
        from sqlalchemy import func, select

        query = (
            select(self.ledger.c.token_hash, func.sum(self.ledger.c.epsilon))
            .where(self.ledger.c.token_hash.in_(list(hashes)))
            .group_by(self.ledger.c.token_hash)
        )
        return {h: float(total or 0.0) for h, total in conn.execute(query).all()}

    # -- responses ----------------------------------------------------------------
    def store_batch(
        self,
        items: Sequence[tuple[str, dict]],
        check: Callable[[dict, dict], None] | None = None,
        *,
        wave: int = 1,
        charges: dict[str, tuple[float, float] | None] | None = None,
        budget: float | None = None,
    ) -> list[str]:
        """Store answers of one wave, one response per token, in one transaction.

        ``items`` holds ``(token, answers)`` pairs; ``check(answers,
        anchors)`` may raise ``ValueError`` to refuse an answer that does not
        fit the token's anchors.  ``charges`` (question -> epsilon of a
        token's first stored wave and of each later one, None for a question
        without one) is written to the ledger for every stored response;
        with a ``budget``, a token whose ledger total plus this wave's charge
        exceeds it is refused (within a relative 1e-9, the rounding of a sum
        of floats).  Returns one
        outcome per item: ``"stored"``, ``"unknown"`` (no such token),
        ``"used"`` (already answered in this wave or a later one),
        ``"budget: <message>"`` or ``"invalid: <message>"``.
        """
        from sqlalchemy import insert, select, update

        hashes = [hash_token(t) for t, _ in items]
        outcomes: list[str] = []
        rows = []
        hour = int(time.time()) // 3600 * 3600
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
            taken = {h for h, r in found.items() if r.used >= wave}
            costs = [c for c in (charges or {}).values() if c is not None]
            spent = self._spent(conn, sorted(found)) if charges else {}
            for h, (_, answers) in zip(hashes, items):
                if h not in found:
                    outcomes.append("unknown")
                    continue
                if h in taken:
                    outcomes.append("used")
                    continue
                # a token's first charged wave costs c[0], the later ones c[1]
                later = int(h in spent)
                total = spent.get(h, 0.0) + sum(c[later] for c in costs)
                if budget is not None and total > budget * (1 + 1e-9):
                    outcomes.append(
                        f"budget: wave {wave} would take the privacy loss released "
                        f"by this link to epsilon {total:.6g}, past the survey's "
                        f"lifetime budget lifetime_epsilon={budget:g}; nothing "
                        "was stored."
                    )
                    continue
                if check is not None:
                    try:
                        check(answers, json.loads(found[h].anchors))
                    except ValueError as exc:
                        outcomes.append(f"invalid: {exc}")
                        continue
                taken.add(h)
                rows.append(
                    {
                        "token_hash": h,
                        "answers": _dumps(answers),
                        "received": hour,
                        "wave": wave,
                    }
                )
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
                            self.tokens.c.used < wave,
                        )
                        .values(used=wave)
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
                ledger = [
                    {
                        "token_hash": r["token_hash"],
                        "wave": wave,
                        "question": q,
                        "epsilon": None
                        if c is None
                        else c[int(r["token_hash"] in spent)],
                    }
                    for r in rows
                    for q, c in (charges or {}).items()
                ]
                if ledger:
                    conn.execute(insert(self.ledger), ledger)
        return outcomes

    def wave_rows(self, wave: int | None = None) -> list[tuple[str, int, dict, dict]]:
        """Responses as ``(token_hash, wave, answers, anchors)``, in the order
        received; only those of ``wave`` unless it is None."""
        from sqlalchemy import func, select

        wave_col = func.coalesce(self.responses.c.wave, 1)
        query = (
            select(
                self.responses.c.token_hash,
                wave_col,
                self.responses.c.answers,
                self.tokens.c.anchors,
            )
            .join(self.tokens, self.tokens.c.token_hash == self.responses.c.token_hash)
            .order_by(self.responses.c.id)
        )
        if wave is not None:
            query = query.where(wave_col == int(wave))
        with self.reader.connect() as conn:
            return [
                (h, int(w), json.loads(a), json.loads(q))
                for h, w, a, q in conn.execute(query).all()
            ]

    def ledger_rows(self) -> list[tuple[str, int, str, float | None]]:
        """The ledger: ``(token_hash, wave, question, epsilon)`` per release."""
        from sqlalchemy import select

        query = select(
            self.ledger.c.token_hash,
            self.ledger.c.wave,
            self.ledger.c.question,
            self.ledger.c.epsilon,
        ).order_by(self.ledger.c.token_hash, self.ledger.c.wave, self.ledger.c.question)
        with self.reader.connect() as conn:
            return [tuple(r) for r in conn.execute(query).all()]

    def rows(self, wave: int | None = None) -> list[tuple[dict, dict]]:
        """Responses as ``(answers, anchors)``, in the order received; only
        those of ``wave`` unless it is None."""
        return [(a, q) for _, _, a, q in self.wave_rows(wave)]

    def counts(self) -> dict[str, int]:
        """Numbers of tokens issued, used, and of responses stored."""
        from sqlalchemy import func, select

        with self.reader.connect() as conn:
            issued = conn.execute(select(func.count()).select_from(self.tokens))
            issued = issued.scalar_one()
            used = conn.execute(
                select(func.count())
                .select_from(self.tokens)
                .where(self.tokens.c.used >= 1)
            ).scalar_one()
            stored = conn.execute(
                select(func.count()).select_from(self.responses)
            ).scalar_one()
        return {"issued": int(issued), "used": int(used), "responses": int(stored)}
