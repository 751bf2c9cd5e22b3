"""Reading CSV input and writing output files atomically."""

from __future__ import annotations

import ast
import os
import signal
import tempfile
import threading
from pathlib import Path
from typing import Any

import pandas as pd


class CLIError(Exception):
    """An error reported to the user as one line, with a non-zero exit code."""


def read_csv(path: str) -> pd.DataFrame:
    """Read a CSV file, turning every failure into a :class:`CLIError`."""
    if not Path(path).is_file():
        raise CLIError(f"input file not found: {path}")
    try:
        frame = pd.read_csv(path)
    except (pd.errors.ParserError, UnicodeDecodeError, pd.errors.EmptyDataError) as exc:
        raise CLIError(f"cannot read {path} as CSV: {exc}".splitlines()[0]) from exc
    if frame.empty:
        raise CLIError(f"{path} has a header but no rows")
    return frame


def select_columns(frame: pd.DataFrame, columns: str | None, path: str) -> list[str]:
    """Parse ``--columns a,b`` and check that every column exists."""
    if not columns:
        raise CLIError("--columns is required (comma-separated column names)")
    names = [c.strip() for c in columns.split(",") if c.strip()]
    missing = [c for c in names if c not in frame.columns]
    if missing:
        raise CLIError(
            f"column(s) {', '.join(missing)} not in {path}; it has "
            f"{', '.join(map(str, frame.columns))}"
        )
    return names


def parse_params(items: list[str] | None) -> dict[str, Any]:
    """Parse ``--param key=value`` items; values are Python literals or strings."""
    params: dict[str, Any] = {}
    for item in items or []:
        key, sep, raw = item.partition("=")
        if not sep or not key.strip():
            raise CLIError(f"--param expects key=value; got {item!r}")
        try:
            value = ast.literal_eval(raw)
        except (ValueError, SyntaxError):
            value = raw
        params[key.strip()] = value
    return params


def same_file(a: str, b: str) -> bool:
    """Whether the paths ``a`` and ``b`` name the same file (links included)."""
    pa, pb = Path(a), Path(b)
    if pa.exists() and pb.exists():
        return os.path.samefile(pa, pb)
    return pa.resolve() == pb.resolve()


class _Terminated(SystemExit):
    """SIGTERM received while an output file was being written."""


def _raise_on_sigterm(signum: int, frame: Any) -> None:
    raise _Terminated(128 + signum)


def write_csv_atomically(frame: pd.DataFrame, path: str) -> None:
    """Write ``frame`` to ``path`` so that a failure leaves no partial file.

    The rows go to a temporary file in the output folder, created readable
    and writable by its owner only (mode 0600), which replaces ``path`` once
    complete.  On any failure, including ``KeyboardInterrupt`` and SIGTERM
    (turned into :class:`SystemExit` while writing), the temporary file is
    removed.  The finished file gets the usual permissions (``0666`` less
    the umask).
    """
    target = Path(path)
    if not target.parent.exists():
        raise CLIError(f"output folder does not exist: {target.parent}")
    in_main = threading.current_thread() is threading.main_thread()
    if in_main:
        previous = signal.signal(signal.SIGTERM, _raise_on_sigterm)
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        with os.fdopen(fd, "w", newline="") as handle:
            frame.to_csv(handle, index=False)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise
    finally:
        if in_main:
            signal.signal(
                signal.SIGTERM, signal.SIG_DFL if previous is None else previous
            )
