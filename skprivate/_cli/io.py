"""Reading CSV input and writing output files atomically."""

from __future__ import annotations

import ast
import csv
import os
import signal
import tempfile
import threading
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

# Defined in the package (commands that read no CSV import no pandas) and
# imported from here by the commands that do.
from . import CLIError

# Field separators a one-column header is checked for (see delimiter_hint).
_OTHER_DELIMITERS = (";", "\t", "|")


def check_delimiter(delimiter: str | None) -> str:
    """The field separator of ``--delimiter`` (default ``","``).

    ``\\t`` and ``tab`` stand for the tab character.

    Examples
    --------
    >>> check_delimiter(None), check_delimiter(";"), check_delimiter("tab")
    (',', ';', '\\t')
    """
    if delimiter is None:
        return ","
    if delimiter in ("\\t", "tab", "TAB"):
        return "\t"
    if len(delimiter) != 1 or delimiter in ('"', "\n", "\r"):
        raise CLIError(
            f"--delimiter must be one character such as ';' or 'tab'; got {delimiter!r}"
        )
    return delimiter


def header_fields(frame: pd.DataFrame) -> list[str]:
    """The fields of the header as read, or split by the separator it holds.

    A file separated by ``;`` read with ``,`` has one column named, say,
    ``34;55012.5``: its fields are ``34`` and ``55012.5``.

    Examples
    --------
    >>> import pandas as pd
    >>> header_fields(pd.DataFrame({"34;55012.5": [1]}))
    ['34', '55012.5']
    >>> header_fields(pd.DataFrame({"age": [1], "id": [2]}))
    ['age', 'id']
    """
    names = [str(c) for c in frame.columns]
    if len(names) == 1:
        for sep in _OTHER_DELIMITERS:
            if sep in names[0]:
                return names[0].split(sep)
    return names


def header_is_a_record(frame: pd.DataFrame) -> bool:
    """Whether the header read looks like a record: some field is a number.

    A file without a header gives its first record as the column names,
    which no message may print.

    Examples
    --------
    >>> import pandas as pd
    >>> header_is_a_record(pd.DataFrame({"34;55012.5": [1]}))
    True
    >>> header_is_a_record(pd.DataFrame({"age;id": [1]}))
    False
    """
    return any(_is_number(field) for field in header_fields(frame))


def header_text(frame: pd.DataFrame) -> str:
    """The columns of ``frame`` as an error lists them, unless they are a record.

    Examples
    --------
    >>> import pandas as pd
    >>> header_text(pd.DataFrame({"age": [1], "id": [2]}))
    'age, id'
    >>> header_text(pd.DataFrame({"5": [1], "7": [2]}))
    "2 fields, some of them numbers (not shown: it may be a respondent's record)"
    """
    if header_is_a_record(frame):
        return (
            f"{len(header_fields(frame))} fields, some of them numbers (not shown: "
            "it may be a respondent's record)"
        )
    return ", ".join(map(str, frame.columns))


def delimiter_hint(frame: pd.DataFrame) -> str:
    """A hint when the header was read as one column holding another separator.

    A file separated by ``;`` read with ``,`` has one column named, say,
    ``age;id``; the hint names the separator and the option to pass.  A
    header that looks like a record (:func:`header_is_a_record`) is not
    quoted.
    """
    if frame.shape[1] != 1:
        return ""
    header = str(frame.columns[0])
    quoted = "" if header_is_a_record(frame) else f" {header!r}"
    for sep in _OTHER_DELIMITERS:
        if sep in header:
            shown = "tab" if sep == "\t" else sep
            return (
                f" (the header was read as one column{quoted}: the file seems "
                f"to be separated by {shown!r}; pass --delimiter '{shown}')"
            )
    return ""


# What each compressed suffix is read as (pandas infers it from the name).
_ARCHIVES = {
    ".gz": "gzip",
    ".bz2": "bzip2",
    ".xz": "xz",
    ".zip": "zip",
    ".zst": "Zstandard",
    ".tar": "tar",
}


def _archive_kind(path: str) -> str | None:
    """The compression :func:`pandas.read_csv` infers from the name of ``path``."""
    return _ARCHIVES.get(Path(path).suffix.lower())


def _unreadable(path: str, exc: BaseException) -> CLIError:
    """The error for a file that could not be opened or decompressed.

    The reason is the operating system's (``permission denied``) or ours:
    the decompressors quote the first bytes of the file (``Not a gzipped
    file (b'ag')``), which may be the start of a respondent's record.
    """
    if isinstance(exc, OSError) and exc.errno is not None and exc.strerror:
        return CLIError(f"cannot read {path}: {exc.strerror.lower()}")
    if isinstance(exc, ImportError):
        # pandas names the package to install
        return CLIError(f"cannot read {path}: {exc}".splitlines()[0])
    suffix = Path(path).suffix.lower()
    kind = _archive_kind(path) or "compressed"
    if isinstance(exc, EOFError):
        reason = f"its {kind} data end early (a truncated copy?)"
    else:
        reason = f"it is not a valid {kind} file (damaged, or not {kind} at all)"
    return CLIError(
        f"cannot read {path}: its name ends in {suffix}, but {reason}; give the "
        "CSV file itself or a complete archive"
    )


def read_csv(path: str, delimiter: str | None = None) -> pd.DataFrame:
    """Read a CSV file, turning every failure into a :class:`CLIError`.

    ``delimiter`` is the field separator (``--delimiter``; default ``","``).
    A file that cannot be opened (permission denied) or decompressed (a
    ``.gz``, ``.bz2``, ``.xz``, ``.zip`` or ``.tar`` name on a damaged,
    truncated or uncompressed file) is refused with the file's name and the
    reason, never with its bytes.
    """
    import lzma
    import tarfile
    import zipfile

    sep = check_delimiter(delimiter)
    if not Path(path).is_file():
        raise CLIError(f"input file not found: {path}")
    try:
        frame = pd.read_csv(path, sep=sep)
    except UnicodeDecodeError as exc:
        # its message quotes the offending byte, a piece of a record
        raise CLIError(
            f"cannot read {path} as CSV: it is not UTF-8 text; save it as UTF-8"
        ) from exc
    except (pd.errors.ParserError, pd.errors.EmptyDataError) as exc:
        raise CLIError(f"cannot read {path} as CSV: {exc}".splitlines()[0]) from exc
    except (
        OSError,
        EOFError,
        ImportError,
        lzma.LZMAError,
        zipfile.BadZipFile,
        tarfile.TarError,
    ) as exc:
        raise _unreadable(path, exc) from exc
    except ValueError as exc:
        # pandas refuses a zip or tar archive that holds no file or several
        # with a ValueError naming the count, not the contents
        kind = _archive_kind(path)
        what = f"a {kind} archive" if kind else "CSV"
        raise CLIError(f"cannot read {path} as {what}: {exc}".splitlines()[0]) from exc
    if frame.empty:
        raise CLIError(f"{path} has a header but no rows")
    return frame


def parse_names(columns: str | None, option: str = "--columns") -> list[str]:
    """The column names of ``option`` (``a,b``), each named once.

    Examples
    --------
    >>> parse_names(" age , income ,")
    ['age', 'income']
    """
    if not columns:
        raise CLIError(f"{option} is required (comma-separated column names)")
    names = [c.strip() for c in columns.split(",") if c.strip()]
    if not names:
        raise CLIError(f"{option} is required (comma-separated column names)")
    repeated = list(dict.fromkeys(c for c in names if names.count(c) > 1))
    if repeated:
        raise CLIError(
            f"{option} names column(s) {', '.join(repeated)} more than once; "
            "list each column once"
        )
    return names


def select_columns(
    frame: pd.DataFrame, columns: str | None, path: str, option: str = "--columns"
) -> list[str]:
    """Parse ``--columns a,b`` and check that every column exists, once.

    ``option`` is the option named in the errors (``--columns`` or
    ``--keep``).
    """
    names = parse_names(columns, option)
    missing = [c for c in names if c not in frame.columns]
    if missing:
        if header_is_a_record(frame):
            # a file without a header: its "names" are the first record
            raise CLIError(
                f"column(s) {', '.join(missing)} not in {path}: its first line "
                f"({len(header_fields(frame))} fields, some of them numbers) does "
                "not look like a header; the file needs a first line naming its "
                "columns (not shown: it may be a respondent's record)"
                f"{delimiter_hint(frame)}"
            )
        raise CLIError(
            f"column(s) {', '.join(missing)} not in {path}; it has "
            f"{', '.join(map(str, frame.columns))}{delimiter_hint(frame)}"
        )
    return names


def _is_number(name: Any) -> bool:
    try:
        float(str(name))
    except ValueError:
        return False
    return True


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
    if target.is_dir():
        raise CLIError(
            f"-o {path} is a folder; give a file name, such as {target / 'private.csv'}"
        )
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


MISSING_CHOICES = ("error", "drop", "keep")


def _open_text(path: str):
    """Open ``path`` as text the way :func:`pandas.read_csv` infers compression."""
    import bz2
    import gzip
    import lzma

    openers = {".gz": gzip.open, ".bz2": bz2.open, ".xz": lzma.open}
    opener = openers.get(Path(path).suffix.lower())
    if opener is not None:
        return opener(path, "rt", encoding="utf-8", errors="replace", newline="")
    return open(path, encoding="utf-8", errors="replace", newline="")


def file_line(path: str, position: int) -> int | None:
    """Line number (1-based) in ``path`` on which data row ``position`` starts.

    ``position`` counts data rows from 0 in the order :func:`read_csv` returns
    them (blank lines skipped, quoted fields spanning several lines counted
    once).  Returns None when the file cannot be scanned (a zip archive, say).
    """
    if Path(path).suffix.lower() == ".zip":
        return None
    try:
        with _open_text(path) as handle:
            reader = csv.reader(handle)
            header_seen = False
            row = -1
            start = 1
            for record in reader:
                if record and header_seen:
                    row += 1
                    if row == position:
                        return start
                header_seen = header_seen or bool(record)
                start = reader.line_num + 1
    except (OSError, csv.Error):
        return None
    return None


def where(path: str, position: int) -> str:
    """``row R (line L of FILE)`` for data row ``position`` (0-based) of ``path``."""
    line = file_line(path, position)
    if line is None:
        return f"row {position + 1}"
    return f"row {position + 1} (line {line} of {Path(path).name})"


def check_numeric(
    frame: pd.DataFrame, columns: list[str], path: str, needed_by: str
) -> pd.DataFrame:
    """Return ``frame[columns]`` as numbers, or say which cell is not a number.

    Missing cells stay missing (they are handled by ``--missing``).  The error
    names the column and the row and line of the first offending cell, never
    the cell itself (a raw value, and error output ends up in logs).
    """
    data = frame[columns].copy()
    for name in columns:
        column = data[name]
        if pd.api.types.is_bool_dtype(column):
            data[name] = column.astype(float)
            continue
        if pd.api.types.is_numeric_dtype(column):
            continue
        numbers = pd.to_numeric(column, errors="coerce")
        bad = numbers.isna().to_numpy() & column.notna().to_numpy()
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise CLIError(
                f"column {name!r} is not numeric: {where(path, first)} holds a "
                f"cell that is not a number ({int(bad.sum())} non-numeric "
                f"value(s) in all); {needed_by} needs numbers"
            )
        data[name] = numbers
    return data


def check_finite(data: pd.DataFrame, path: str, needed_by: str) -> None:
    """Refuse infinite values, naming the column and the first row."""
    for name in data.columns:
        values = data[name].to_numpy(dtype=float, na_value=np.nan)
        bad = np.isinf(values)
        if bad.any():
            first = int(np.flatnonzero(bad)[0])
            raise CLIError(
                f"column {name!r} has an infinite value at {where(path, first)} "
                f"({int(bad.sum())} in all); {needed_by} needs finite numbers"
            )


def missing_error(data: pd.DataFrame, path: str, choices: str) -> CLIError | None:
    """The error for missing cells of ``data`` under ``--missing error``.

    Names the first column with missing values, their count and the first
    row, lists the other columns with missing values, and suggests the
    ``--missing`` options (``choices``).  None when nothing is missing.
    """
    counts = data.isna().sum()
    counts = counts[counts > 0]
    if counts.empty:
        return None
    name = counts.index[0]
    first = int(np.flatnonzero(data[name].isna().to_numpy())[0])
    others = ", ".join(f"{c!r} ({int(n)})" for c, n in counts.iloc[1:].items())
    also = f"; also missing in {others}" if others else ""
    return CLIError(
        f"column {name!r} has {int(counts.iloc[0])} missing value(s), the first at "
        f"{where(path, first)}{also}; {choices}"
    )
