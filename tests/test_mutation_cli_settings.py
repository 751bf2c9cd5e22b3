"""Exact checks of the settings file ``privatize`` writes for ``estimate``.

Each test pins one documented behaviour of ``skprivate/_cli/settings.py``
with a small exact case: the file's name, its content (the format marker,
the version, what the caller gives and the SHA-256 of the output, read in
blocks), its atomic writing (the umask's mode, nothing left on a failure)
and the refusals of a file that is missing, unreadable, of another format
or version, or without a mechanism, parameters or columns; and the checks
of a hand-written file, each refusal exact: a parameter that is not a
distinct ``key=value`` string, a column name that is not a distinct string
without commas, a digest that is not text, with the entry's position, the
offending value shown cut after 60 characters and the file named.
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


def _record(**fields) -> dict:
    return {"format": FORMAT, "version": VERSION, **CONTENT, **fields}


def _refusal(tmp_path, **fields) -> tuple[Path, str]:
    """The settings file written with ``fields`` and the message refusing it."""
    path = _settings(tmp_path, _record(**fields))
    return path, _error(read_settings, str(tmp_path / "p.csv"))


@pytest.mark.parametrize(
    "value, shown",
    [
        ("a" * 57, "'" + "a" * 57 + "'"),
        ("b" * 58, "'" + "b" * 58 + "'"),
        ("c" * 59, "'" + "c" * 56 + "..."),
        (None, "None"),
        (5, "5"),
        ([1, "x"], "[1, 'x']"),
    ],
)
def test_a_value_is_shown_as_its_repr_cut_after_60_characters(value, shown):
    # the reprs of the first three are 59, 60 and 61 characters long
    assert cli_settings._shown(value) == shown
    assert len(cli_settings._shown(value)) <= 60


def test_a_long_value_keeps_its_first_57_characters():
    text = "".join(chr(ord("a") + i % 26) for i in range(100))
    shown = cli_settings._shown(text)
    assert shown == repr(text)[:57] + "..."
    assert len(shown) == 60 and shown.startswith("'abcdefghij")


def test_an_empty_column_list_is_refused(tmp_path):
    path, message = _refusal(tmp_path, columns=[])
    assert message == (
        f"the settings file {path} has an empty 'columns': expected the names "
        "of the privatized columns"
    )


@pytest.mark.parametrize(
    "columns, position, shown",
    [
        ([5], 1, "5"),
        (["x", None], 2, "None"),
        (["x", "y", ["z"]], 3, "['z']"),
        (["x", "  "], 2, "'  '"),
        (["", "x"], 1, "''"),
        (["x", "y", "a,b"], 3, "'a,b'"),
        ([","], 1, "','"),
    ],
)
def test_a_bad_column_name_is_refused_at_its_position(
    tmp_path, columns, position, shown
):
    path, message = _refusal(tmp_path, columns=columns)
    assert message == (
        f"the settings file {path} has an invalid 'columns' entry {position}: "
        f"expected a column name (a string without commas); got {shown}"
    )


def test_a_long_bad_column_name_is_shown_cut(tmp_path):
    name = "e," + "f" * 80
    path, message = _refusal(tmp_path, columns=["x", name])
    assert message.endswith(
        f"entry 2: expected a column name (a string without "
        f"commas); got {repr(name)[:57]}..."
    )
    assert message.startswith(f"the settings file {path} has")


@pytest.mark.parametrize(
    "columns, repeated",
    [
        (["x", "x"], "x"),
        (["x", "y", "x"], "x"),
        (["y", "x", "y", "y"], "y"),
        (["b", "a", "c", "a", "b"], "b, a"),
    ],
)
def test_a_column_named_twice_is_refused_by_name(tmp_path, columns, repeated):
    path, message = _refusal(tmp_path, columns=columns)
    assert message == (
        f"the settings file {path} names column(s) {repeated} more than once "
        "in 'columns'"
    )


def test_distinct_column_names_are_read(tmp_path):
    columns = ["x", "y z", " w", "d" * 70]
    _settings(tmp_path, _record(columns=columns))
    assert read_settings(str(tmp_path / "p.csv"))["columns"] == columns


@pytest.mark.parametrize(
    "parameters, position, shown",
    [
        ([5], 1, "5"),
        (["epsilon=1", None], 2, "None"),
        (["a=1", "b=2", ["c=3"]], 3, "['c=3']"),
        (["epsilon"], 1, "'epsilon'"),
        (["a=1", "epsilon 2"], 2, "'epsilon 2'"),
        (["=3"], 1, "'=3'"),
        (["a=1", "b=2", " =3"], 3, "' =3'"),
        ([""], 1, "''"),
    ],
)
def test_a_bad_parameter_is_refused_at_its_position(
    tmp_path, parameters, position, shown
):
    path, message = _refusal(tmp_path, parameters=parameters)
    assert message == (
        f"the settings file {path} has an invalid 'parameters' entry {position}: "
        f'expected a "key=value" string such as "epsilon=2"; got {shown}'
    )


@pytest.mark.parametrize(
    "parameters, key",
    [
        (["epsilon=1", "epsilon=2"], "epsilon"),
        (["epsilon=1", " epsilon =2"], "epsilon"),
        (["a=b=c", "a=d"], "a"),
        (["a=b=c", "a=b=c"], "a"),
        (["x=1", "y=2", "x=3", "y=4"], "x"),
    ],
)
def test_a_parameter_set_twice_is_refused_by_key(tmp_path, parameters, key):
    path, message = _refusal(tmp_path, parameters=parameters)
    assert message == (
        f"the settings file {path} sets the parameter {key!r} twice in "
        "'parameters'; keep one"
    )


def test_distinct_parameters_are_read(tmp_path):
    parameters = ["a=b=c", "b=a", "epsilon=", "bounds=(0, 1)", " k = v "]
    _settings(tmp_path, _record(parameters=parameters))
    assert read_settings(str(tmp_path / "p.csv"))["parameters"] == parameters


@pytest.mark.parametrize(
    "digest, shown",
    [
        (5, "5"),
        ([1, 2], "[1, 2]"),
        (False, "False"),
        ({"sha": "ab"}, "{'sha': 'ab'}"),
        (list(range(30)), repr(list(range(30)))[:57] + "..."),
    ],
)
def test_a_digest_that_is_not_text_is_refused(tmp_path, digest, shown):
    path, message = _refusal(tmp_path, output_sha256=digest)
    assert message == (
        f"the settings file {path} has an invalid 'output_sha256': expected the "
        f"hex SHA-256 of the file it describes; got {shown}"
    )


@pytest.mark.parametrize("digest", [None, "", "abc", "0" * 64])
def test_a_missing_or_textual_digest_is_read(tmp_path, digest):
    record = _record()
    if digest is not None:
        record["output_sha256"] = digest
    path = _settings(tmp_path, record)
    assert read_settings(str(tmp_path / "p.csv")) == {**record, "path": str(path)}


@pytest.mark.parametrize(
    "fields, start",
    [
        ({"parameters": [7]}, "has an invalid 'parameters' entry 1"),
        ({"parameters": ["k=1", "k=2"]}, "sets the parameter 'k' twice"),
        ({"columns": []}, "has an empty 'columns'"),
        ({"columns": [7]}, "has an invalid 'columns' entry 1"),
        ({"columns": ["x", "x"]}, "names column(s) x more than once"),
        ({"output_sha256": 7}, "has an invalid 'output_sha256'"),
    ],
)
def test_each_refusal_names_the_settings_file_read(tmp_path, fields, start):
    named = tmp_path / "chosen.json"
    named.write_text(json.dumps(_record(**fields)))
    message = _error(read_settings, "elsewhere.csv", str(named))
    assert message.startswith(f"the settings file {named} {start}")
