"""Reading CSV input and writing output files atomically."""

from __future__ import annotations

import ast
import os
import tempfile
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


def write_csv_atomically(frame: pd.DataFrame, path: str) -> None:
    """Write ``frame`` to ``path`` so that a failure leaves no partial file."""
    target = Path(path)
    if not target.parent.exists():
        raise CLIError(f"output folder does not exist: {target.parent}")
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
    try:
        with os.fdopen(fd, "w", newline="") as handle:
            frame.to_csv(handle, index=False)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
