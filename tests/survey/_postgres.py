"""A throwaway PostgreSQL cluster on loopback, for the survey server's tests
and benchmark.

``initdb`` into a fresh temporary folder, ``pg_ctl start`` on 127.0.0.1 at a
free port (the unix socket in the same folder), ``CREATE DATABASE`` per
caller, ``pg_ctl stop`` and the folder removed at the end.  PostgreSQL
refuses to run as root: as root, the cluster belongs to the ``postgres``
user (Debian's package creates it), else to ``nobody``, and its commands run
through ``runuser``.
"""

from __future__ import annotations

import itertools
import os
import pwd
import re
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

__all__ = ["Cluster", "find_binaries", "unavailable_reason"]

START_SECONDS = 300  # pg_ctl -w waits this long at most, then says why


def _version(folder: Path) -> tuple[int, ...]:
    return tuple(int(x) for x in re.findall(r"\d+", folder.parent.name)) or (0,)


def find_binaries() -> Path | None:
    """The folder holding ``initdb`` and ``pg_ctl`` (newest version), or None.

    ``pg_ctl`` on PATH first (through symlinks), then Debian's
    ``/usr/lib/postgresql/<version>/bin``.
    """
    candidates = []
    on_path = shutil.which("pg_ctl")
    if on_path:
        candidates.append(Path(os.path.realpath(on_path)).parent)
    candidates += sorted(
        Path("/usr/lib/postgresql").glob("*/bin"), key=_version, reverse=True
    )
    for folder in candidates:
        if (folder / "initdb").is_file() and (folder / "pg_ctl").is_file():
            return folder
    return None


def _owner() -> str | None:
    """The unprivileged user that runs the cluster when we are root."""
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
        except KeyError:
            continue
        return name
    return None


def unavailable_reason() -> str | None:
    """Why a throwaway cluster cannot run here, or None."""
    if find_binaries() is None:
        return (
            "the PostgreSQL server programs (initdb, pg_ctl) are not installed "
            "(apt-get install postgresql)"
        )
    try:
        import psycopg  # noqa: F401
    except ImportError:
        return "psycopg is not installed (pip install 'skprivate[postgresql]')"
    if os.geteuid() == 0:
        if shutil.which("runuser") is None:
            return "running as root without runuser to start PostgreSQL as a user"
        if _owner() is None:
            return "running as root and no 'postgres' or 'nobody' user exists"
    return None


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Cluster:
    """A PostgreSQL cluster in a temporary folder; a context manager.

    Parameters
    ----------
    durable : bool, default=False
        Keep PostgreSQL's defaults (``fsync``, ``synchronous_commit``); the
        tests turn them off, which changes nothing that another connection
        sees, only what a power cut would keep.
    """

    def __init__(self, durable: bool = False) -> None:
        self.durable = durable
        self.bin = find_binaries()
        self.folder: Path | None = None
        self.port: int | None = None
        self._names = itertools.count()

    # -- running the server programs ----------------------------------------
    def _command(self, program: str, *args: str) -> list[str]:
        command = [str(self.bin / program), *args]
        if os.geteuid() == 0:
            command = ["runuser", "-u", _owner(), "--", *command]
        return command

    def _run(self, program: str, *args: str) -> None:
        done = subprocess.run(
            self._command(program, *args),
            capture_output=True,
            text=True,
            cwd=self.folder,
            check=False,
        )
        if done.returncode != 0:
            raise RuntimeError(
                f"{program} failed (exit code {done.returncode}):\n"
                f"{done.stdout[-2000:]}{done.stderr[-2000:]}{self._log_tail()}"
            )

    def _log_tail(self) -> str:
        log = self.folder / "server.log" if self.folder else None
        if log is None or not log.exists():
            return ""
        return "\n--- server.log (last lines) ---\n" + "\n".join(
            log.read_text(errors="replace").splitlines()[-30:]
        )

    # -- life cycle -----------------------------------------------------------
    def start(self) -> Cluster:
        """initdb, then pg_ctl start on a free port (three tries)."""
        self.folder = Path(tempfile.mkdtemp(prefix="skprivate-pg-"))
        if os.geteuid() == 0:
            user = pwd.getpwnam(_owner())
            os.chown(self.folder, user.pw_uid, user.pw_gid)
        self._run(
            "initdb",
            "-D",
            str(self.folder / "data"),
            "-U",
            "postgres",
            "--auth=trust",
            "--encoding=UTF8",
            "--locale=C",
            "--no-sync",
        )
        settings = f"-c listen_addresses=127.0.0.1 -k {self.folder}"
        if not self.durable:
            settings += " -c fsync=off -c synchronous_commit=off"
            settings += " -c full_page_writes=off -c max_connections=200"
        for attempt in range(3):
            self.port = _free_port()
            try:
                self._run(
                    "pg_ctl",
                    "-D",
                    str(self.folder / "data"),
                    "-l",
                    str(self.folder / "server.log"),
                    "-w",
                    "-t",
                    str(START_SECONDS),
                    "-o",
                    f"-p {self.port} {settings}",
                    "start",
                )
                return self
            except RuntimeError:
                # another process took the port in between: try another
                if attempt == 2 or "already in use" not in self._log_tail():
                    self.stop()
                    raise
        return self  # pragma: no cover

    def stop(self) -> None:
        """Stop the server and remove its folder."""
        if self.folder is None:
            return
        if (self.folder / "data" / "postmaster.pid").exists():
            subprocess.run(
                self._command(
                    "pg_ctl", "-D", str(self.folder / "data"), "-m", "fast", "stop"
                ),
                capture_output=True,
                cwd=self.folder,
                check=False,
                timeout=120,
            )
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None

    def __enter__(self) -> Cluster:
        return self.start()

    def __exit__(self, *exc) -> None:
        self.stop()

    # -- databases --------------------------------------------------------------
    def url(self, name: str) -> str:
        """SQLAlchemy URL of database ``name`` (psycopg 3 driver)."""
        return f"postgresql+psycopg://postgres@127.0.0.1:{self.port}/{name}"

    def create_database(self, prefix: str = "survey") -> str:
        """A new empty database; returns its SQLAlchemy URL."""
        import psycopg

        name = f"{prefix}_{next(self._names)}"
        with psycopg.connect(
            host="127.0.0.1",
            port=self.port,
            user="postgres",
            dbname="postgres",
            autocommit=True,
        ) as conn:
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)
