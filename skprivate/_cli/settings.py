"""The settings file ``privatize`` writes next to its output for ``estimate``.

``privatize ... -o private.csv`` also writes ``private.csv.skprivate.json``:
the mechanism, the parameters as declared on the command line (and the
anchors placed from ``--bounds``), the privatized and kept column names,
whether the noise was seeded and the ``--missing`` choice.  ``estimate
private.csv`` reads it, so the public description of the mechanism (noise
scale, bounds, budget, design) never has to be typed twice.

The file holds no raw value and nothing computed from the raw values: not
the seed (only whether there was one), not bounds read from the data, not
the number of rows dropped.  It holds the SHA-256 of the output file, so
``estimate`` can tell when the file it describes has changed.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any

from .io import CLIError

SUFFIX = ".skprivate.json"
FORMAT = "skprivate privatize settings"
VERSION = 1


def settings_path(output: str | os.PathLike) -> Path:
    """The settings file of the output file ``output``.

    Examples
    --------
    >>> settings_path("out/private.csv").name
    'private.csv.skprivate.json'
    """
    return Path(str(output) + SUFFIX)


def file_sha256(path: str | os.PathLike) -> str:
    """Hex SHA-256 of the bytes of ``path``."""
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def write_settings(output: str, content: dict[str, Any]) -> Path:
    """Write ``content`` as the settings file of ``output``, atomically.

    ``content`` gets the format marker, the version and the SHA-256 of
    ``output`` (which must already be written).  Returns the path written.
    """
    target = settings_path(output)
    record = {
        "format": FORMAT,
        "version": VERSION,
        **content,
        "output_sha256": file_sha256(output),
    }
    text = json.dumps(record, indent=2) + "\n"
    tmp = None
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", dir=target.parent)
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, 0o666 & ~umask)
        os.replace(tmp, target)
    except BaseException:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)
        raise
    return target


def read_settings(path: str, explicit: str | None = None) -> dict[str, Any] | None:
    """The settings of the privatized file ``path``, or None if it has none.

    ``explicit`` names the settings file (``--settings``); otherwise
    ``<path>.skprivate.json`` is read when it exists.  A file that is not a
    settings file of this format is refused with a :class:`CLIError`.
    """
    target = Path(explicit) if explicit else settings_path(path)
    if not target.is_file():
        if explicit:
            raise CLIError(f"settings file not found: {explicit}")
        return None
    try:
        record = json.loads(target.read_text())
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise CLIError(f"cannot read the settings file {target}: {exc}") from exc
    if not isinstance(record, dict) or record.get("format") != FORMAT:
        raise CLIError(f"{target} is not a settings file written by privatize")
    if record.get("version") != VERSION:
        raise CLIError(
            f"{target} has settings version {record.get('version')!r}; this "
            f"version of skprivate reads version {VERSION}"
        )
    for key, kind in (("mechanism", str), ("parameters", list), ("columns", list)):
        if not isinstance(record.get(key), kind):
            raise CLIError(f"the settings file {target} has no valid {key!r}")
    _check_parameters(target, record["parameters"])
    _check_columns(target, record["columns"])
    digest = record.get("output_sha256")
    if digest is not None and not isinstance(digest, str):
        raise CLIError(
            f"the settings file {target} has an invalid 'output_sha256': expected "
            f"the hex SHA-256 of the file it describes; got {_shown(digest)}"
        )
    record["path"] = str(target)
    return record


def _shown(value: Any) -> str:
    """``repr(value)``, cut short (a settings file holds no raw value)."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _check_parameters(target: Path, items: list[Any]) -> None:
    """Refuse ``parameters`` that are not distinct ``"key=value"`` strings."""
    seen: set[str] = set()
    for i, item in enumerate(items, start=1):
        key, sep, _ = item.partition("=") if isinstance(item, str) else ("", "", "")
        if not sep or not key.strip():
            raise CLIError(
                f"the settings file {target} has an invalid 'parameters' entry "
                f'{i}: expected a "key=value" string such as "epsilon=2"; got '
                f"{_shown(item)}"
            )
        if key.strip() in seen:
            raise CLIError(
                f"the settings file {target} sets the parameter {key.strip()!r} "
                "twice in 'parameters'; keep one"
            )
        seen.add(key.strip())


def _check_columns(target: Path, names: list[Any]) -> None:
    """Refuse ``columns`` that are not a non-empty list of distinct names."""
    if not names:
        raise CLIError(
            f"the settings file {target} has an empty 'columns': expected the "
            "names of the privatized columns"
        )
    for i, name in enumerate(names, start=1):
        if not isinstance(name, str) or not name.strip() or "," in name:
            raise CLIError(
                f"the settings file {target} has an invalid 'columns' entry {i}: "
                f"expected a column name (a string without commas); got "
                f"{_shown(name)}"
            )
    repeated = list(dict.fromkeys(c for c in names if names.count(c) > 1))
    if repeated:
        raise CLIError(
            f"the settings file {target} names column(s) {', '.join(repeated)} "
            "more than once in 'columns'"
        )
