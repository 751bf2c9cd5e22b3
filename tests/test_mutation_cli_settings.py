"""Exact checks of the settings file ``privatize`` writes for ``estimate``.

Each test pins one documented behaviour of ``skprivate/_cli/settings.py``
with a small exact case: the file's name, its content (the format marker,
the version, what the caller gives and the SHA-256 of the output, read in
blocks), its atomic writing (the umask's mode, nothing left on a failure)
and the refusals of a file that is missing, unreadable, of another format
or version, or without a mechanism, parameters or columns.
``benchmarks/_mutation_specs_cli.py`` (``cli_settings``) lists the mutants
these tests kill.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from pathlib import Path

import pytest

from skprivate._cli import CLIError
from skprivate._cli import settings as cli_settings
from skprivate._cli.settings import (
    FORMAT,
    SUFFIX,
    VERSION,
    file_sha256,
    read_settings,
    settings_path,
    write_settings,
)

CONTENT = {"mechanism": "laplace", "parameters": ["epsilon=1.0"], "columns": ["x"]}


def _error(call, *args) -> str:
    with pytest.raises(CLIError) as info:
        call(*args)
    return str(info.value)


def test_the_settings_file_sits_next_to_the_output():
    assert SUFFIX == ".skprivate.json"
    assert settings_path("out/p.csv") == Path("out/p.csv.skprivate.json")
    assert settings_path(Path("a.b")) == Path("a.b.skprivate.json")


@pytest.mark.parametrize("size", [0, 5, (1 << 20) - 1, 1 << 20, (1 << 20) + 7])
def test_the_digest_is_the_files_sha256_at_every_size(tmp_path, size):
    data = bytes(range(256)) * (size // 256) + bytes(size % 256)
    path = tmp_path / "f.bin"
    path.write_bytes(data)
    assert file_sha256(path) == hashlib.sha256(data).hexdigest()
    assert file_sha256(str(path)) == hashlib.sha256(data).hexdigest()


def test_the_record_written_and_read_back(tmp_path):
    out = tmp_path / "p.csv"
    out.write_text("x\n1.5\n")
    old = os.umask(0o027)
    try:
        target = write_settings(str(out), dict(CONTENT))
    finally:
        os.umask(old)
    assert target == tmp_path / "p.csv.skprivate.json"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    text = target.read_text()
    assert text.endswith("}\n") and text.startswith('{\n  "format"')
    record = json.loads(text)
    assert list(record) == ["format", "version", *CONTENT, "output_sha256"]
    assert record["format"] == FORMAT == "skprivate privatize settings"
    assert record["version"] == VERSION == 1
    assert record["output_sha256"] == hashlib.sha256(b"x\n1.5\n").hexdigest()
    assert sorted(p.name for p in tmp_path.iterdir()) == [
        "p.csv",
        "p.csv.skprivate.json",
    ]
    back = read_settings(str(out))
    assert back == {**record, "path": str(target)}
    assert read_settings("ignored.csv", str(target)) == back


def test_the_callers_content_cannot_hide_the_digest(tmp_path):
    out = tmp_path / "p.csv"
    out.write_text("x\n2\n")
    target = write_settings(str(out), {**CONTENT, "output_sha256": "forged"})
    record = json.loads(target.read_text())
    assert record["output_sha256"] == hashlib.sha256(b"x\n2\n").hexdigest()


def test_a_failed_write_leaves_no_file(tmp_path, monkeypatch):
    out = tmp_path / "p.csv"
    out.write_text("x\n1\n")

    def fail(src, dst):
        raise OSError("disk full")

    monkeypatch.setattr(cli_settings.os, "replace", fail)
    with pytest.raises(OSError, match="disk full"):
        write_settings(str(out), dict(CONTENT))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.csv"]


def test_no_settings_file_is_none_unless_one_was_named(tmp_path):
    assert read_settings(str(tmp_path / "p.csv")) is None
    named = str(tmp_path / "s.json")
    assert _error(read_settings, "p.csv", named) == f"settings file not found: {named}"
    assert _error(read_settings, "p.csv", str(tmp_path)) == (
        f"settings file not found: {tmp_path}"
    )


def _settings(tmp_path, record) -> Path:
    path = tmp_path / "p.csv.skprivate.json"
    path.write_text(record if isinstance(record, str) else json.dumps(record))
    return path


def test_an_unreadable_file_is_refused_with_the_reason(tmp_path):
    path = _settings(tmp_path, "{not json")
    message = _error(read_settings, str(tmp_path / "p.csv"))
    assert message.startswith(f"cannot read the settings file {path}: Expecting")
    path.write_bytes(b"\xff\xfe")
    assert _error(read_settings, str(tmp_path / "p.csv")).startswith(
        f"cannot read the settings file {path}: "
    )


@pytest.mark.parametrize(
    "record",
    [[1, 2], "text", {"format": "other"}, {"version": 1}, {"format": FORMAT.upper()}],
)
def test_a_file_of_another_format_is_refused(tmp_path, record):
    path = _settings(tmp_path, record if not isinstance(record, str) else '"text"')
    assert _error(read_settings, str(tmp_path / "p.csv")) == (
        f"{path} is not a settings file written by privatize"
    )


@pytest.mark.parametrize("version", [0, 2, "1", None])
def test_a_file_of_another_version_is_refused(tmp_path, version):
    record = {"format": FORMAT, **CONTENT}
    if version is not None:
        record["version"] = version
    path = _settings(tmp_path, record)
    assert _error(read_settings, str(tmp_path / "p.csv")) == (
        f"{path} has settings version {version!r}; this version of skprivate "
        "reads version 1"
    )


@pytest.mark.parametrize(
    "key, bad",
    [
        ("mechanism", 3),
        ("mechanism", None),
        ("parameters", {"epsilon": 1}),
        ("parameters", None),
        ("columns", "x"),
        ("columns", None),
    ],
)
def test_a_file_without_a_valid_entry_is_refused_by_key(tmp_path, key, bad):
    record = {"format": FORMAT, "version": VERSION, **CONTENT}
    if bad is None:
        del record[key]
    else:
        record[key] = bad
    path = _settings(tmp_path, record)
    assert _error(read_settings, str(tmp_path / "p.csv")) == (
        f"the settings file {path} has no valid {key!r}"
    )


def test_the_record_goes_first_to_a_hidden_file_next_to_it(tmp_path, monkeypatch):
    out = tmp_path / "p.csv"
    out.write_text("x\n1\n")
    seen = []
    replace = os.replace

    def spy(src, dst):
        seen.append((src, dst))
        replace(src, dst)

    monkeypatch.setattr(cli_settings.os, "replace", spy)
    target = write_settings(str(out), dict(CONTENT))
    ((src, dst),) = seen
    assert os.path.dirname(src) == str(tmp_path)
    assert os.path.basename(src).startswith(".p.csv.skprivate.json.")
    assert dst == target


def test_a_temporary_file_that_cannot_be_made_is_the_error_raised(
    tmp_path, monkeypatch
):
    out = tmp_path / "p.csv"
    out.write_text("x\n1\n")

    def refuse(**kwargs):
        raise OSError("no space left")

    monkeypatch.setattr(cli_settings.tempfile, "mkstemp", refuse)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OSError, match="^no space left$"):
        write_settings(str(out), dict(CONTENT))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["p.csv"]
