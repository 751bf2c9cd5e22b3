"""The command line refuses bad input by name and prints no raw value.

A column listed twice, an input file that cannot be opened or
decompressed, and a hand-written settings file with a missing or mistyped
field are each refused in one line (``error: ...``, exit status 2) naming
the option, the file or the field and what was expected, never with a
traceback.  Bounds read from the data (no ``--bounds``) are the raw minimum
and maximum of a column: the summary ``privatize`` prints withholds them and
every entry computed from them, and so do its messages.  With ``--missing
drop`` the privatizer is not shown the gaps the dropped rows leave in the
row labels, so its advice about them does not reach the user.
"""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import zipfile

import numpy as np
import pandas as pd
import pytest

from skprivate.__main__ import main
from skprivate._cli import CLIError
from skprivate._cli.io import parse_names, read_csv, select_columns
from skprivate._cli.settings import FORMAT, VERSION


def _run(args, capsys):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _refused(code, out, err):
    """One ``error:`` line on stderr, exit status 2, nothing on stdout."""
    assert code == 2, err
    assert out == ""
    assert err.startswith("error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err
    return err


def _forms(value: float) -> set[str]:
    """The ways a message could print the number ``value``."""
    return {
        repr(float(value)),
        f"{value:g}",
        f"{value:.1f}",
        f"{value:.2f}",
        f"{value:.4g}",
        f"{value:e}",
        str(int(value)),
    }


@pytest.fixture
def survey(tmp_path):
    frame = pd.DataFrame(
        {"id": [1, 2, 3, 4], "age": [23, 45, 67, 30], "sex": ["F", "M", "M", "F"]}
    )
    path = tmp_path / "in.csv"
    frame.to_csv(path, index=False)
    return path


# -- a column listed twice ---------------------------------------------------
@pytest.mark.parametrize(
    "extra, message",
    [
        (
            ["--columns", "age,age"],
            "--columns names column(s) age more than once; list each column once",
        ),
        (
            ["--columns", "age, id ,age,id"],
            "--columns names column(s) age, id more than once",
        ),
        (
            ["--columns", "age", "--keep", "id,id"],
            "--keep names column(s) id more than once; list each column once",
        ),
    ],
)
def test_privatize_refuses_a_column_listed_twice(
    survey, tmp_path, capsys, extra, message
):
    out = tmp_path / "out.csv"
    args = ["privatize", survey, "-o", out, "--mechanism", "laplace", *extra]
    err = _refused(*_run([*args, "--bounds", "0,100"], capsys))
    assert message in err
    assert not out.exists()


def test_estimate_refuses_a_column_listed_twice(survey, capsys):
    args = ["estimate", survey, "--estimator", "integral", "--columns", "age,age"]
    err = _refused(*_run(args, capsys))
    assert "--columns names column(s) age more than once" in err


def test_column_lists_are_parsed_once_per_name():
    frame = pd.DataFrame({"a": [1], "b": [2]})
    assert parse_names(" a , b ,") == ["a", "b"]
    assert select_columns(frame, "b,a", "f.csv", "--keep") == ["b", "a"]
    for empty in (None, "", " , "):
        with pytest.raises(CLIError, match=r"^--keep is required \(comma"):
            parse_names(empty, "--keep")
    with pytest.raises(CLIError) as info:
        select_columns(frame, "a,b,a", "f.csv", "--keep")
    assert str(info.value) == (
        "--keep names column(s) a more than once; list each column once"
    )


# -- an input file that cannot be read ---------------------------------------
SECRET_LINE = "age\n48213\n"  # the start of the file: never shown


def _archive(path):
    """A file named as an archive of ``kind`` holding plain CSV text."""
    path.write_text(SECRET_LINE)


def _truncated_gzip(path):
    whole = gzip.compress(SECRET_LINE.encode() * 200)
    path.write_bytes(whole[: len(whole) // 2])


@pytest.mark.parametrize("command", ["privatize", "estimate"])
@pytest.mark.parametrize(
    "name, make, reason",
    [
        ("in.csv.gz", _archive, "its name ends in .gz, but it is not a valid gzip"),
        ("in.csv.bz2", _archive, "its name ends in .bz2, but it is not a valid bzip2"),
        ("in.csv.xz", _archive, "its name ends in .xz, but it is not a valid xz"),
        ("in.csv.zip", _archive, "its name ends in .zip, but it is not a valid zip"),
        (
            "in.csv.gz",
            _truncated_gzip,
            "its name ends in .gz, but its gzip data end early (a truncated copy?)",
        ),
    ],
)
def test_an_archive_that_cannot_be_decompressed_is_named(
    tmp_path, capsys, command, name, make, reason
):
    path = tmp_path / name
    make(path)
    out = tmp_path / "out.csv"
    if command == "privatize":
        args = ["privatize", path, "-o", out, "--mechanism", "laplace"]
        args += ["--columns", "age", "--bounds", "0,100"]
    else:
        args = ["estimate", path, "--estimator", "integral", "--columns", "age"]
    err = _refused(*_run(args, capsys))
    assert err.startswith(f"error: cannot read {path}: {reason}")
    # the decompressors quote the first bytes (b'ag'); the file's text is
    # not shown in any form
    assert "b'" not in err and "48213" not in err and "age\\n" not in err
    assert not out.exists()


def test_a_readable_archive_is_still_read(tmp_path):
    for suffix, opener in ((".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)):
        path = tmp_path / f"in.csv{suffix}"
        with opener(path, "wt") as handle:
            handle.write(SECRET_LINE)
        assert read_csv(str(path))["age"].tolist() == [48213]


def test_a_zip_archive_of_several_files_is_refused_by_name(tmp_path):
    path = tmp_path / "two.csv.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("a.csv", SECRET_LINE)
        archive.writestr("b.csv", SECRET_LINE)
    with pytest.raises(CLIError) as info:
        read_csv(str(path))
    message = str(info.value)
    assert message.startswith(f"cannot read {path} as a zip archive: Multiple files")
    assert "48213" not in message and "\n" not in message


@pytest.mark.parametrize(
    "error",
    [
        PermissionError(13, "Permission denied"),
        IsADirectoryError(21, "Is a directory"),
    ],
)
def test_a_file_the_system_will_not_open_is_named_with_the_reason(
    tmp_path, monkeypatch, error
):
    # (root reads a file of mode 000, so the refusal is simulated)
    path = tmp_path / "in.csv"
    path.write_text(SECRET_LINE)

    def refuse(*args, **kwargs):
        raise error

    monkeypatch.setattr(pd, "read_csv", refuse)
    with pytest.raises(CLIError) as info:
        read_csv(str(path))
    assert str(info.value) == f"cannot read {path}: {error.strerror.lower()}"


def test_text_that_is_not_utf8_is_refused_without_its_bytes(tmp_path):
    path = tmp_path / "latin.csv"
    path.write_bytes(b"name,age\nJos\xe9,48\n")
    with pytest.raises(CLIError) as info:
        read_csv(str(path))
    message = str(info.value)
    assert (
        message == f"cannot read {path} as CSV: it is not UTF-8 text; save it as UTF-8"
    )


# -- a hand-written settings file --------------------------------------------
def _settings(tmp_path, mechanism, parameters, columns=("c",), **extra):
    path = tmp_path / "s.json"
    record = {"format": FORMAT, "version": VERSION, "mechanism": mechanism}
    record.update(parameters=parameters, columns=list(columns), **extra)
    path.write_text(json.dumps(record))
    return path


@pytest.fixture
def reports(tmp_path):
    """Category indices (frequency), indicators (subset) and numbers."""
    frame = pd.DataFrame(
        {
            "c": [0, 1, 2, 1],
            "c=A": [1, 0, 1, 1],
            "c=B": [0, 1, 1, 0],
            "x": [1.5, 2.5, 3.5, 4.5],
            "x_s0": [1.5, 2.5, 3.5, 4.5],
        }
    )
    path = tmp_path / "reports.csv"
    frame.to_csv(path, index=False)
    return path


CATS = "categories=[['A', 'B', 'C']]"


@pytest.mark.parametrize(
    "mechanism, parameters, columns, expected",
    [
        # the four cases of the report: no categories, a number, an empty
        # list, an epsilon that is not a number
        (
            "frequency",
            ["epsilon=2"],
            ["c"],
            "declares no categories in 'parameters'; the frequency mechanism "
            "needs one non-empty list of categories per column (1: c)",
        ),
        ("frequency", ["categories=5"], ["c"], "has invalid categories in"),
        ("frequency", ["categories=[]"], ["c"], "got []"),
        ("frequency", ["categories=[[]]"], ["c"], "has invalid categories in"),
        (
            "frequency",
            [CATS, "epsilon='two'"],
            ["c"],
            "do not define the frequency mechanism: The 'epsilon' parameter",
        ),
        (
            "frequency",
            [CATS],
            ["c", "d"],
            "one non-empty list of categories per column (2: c, d)",
        ),
        ("frequency", [CATS, "oracle='nope'"], ["c"], "The 'oracle' parameter"),
        ("subset", ["categories=5"], ["c"], "has invalid categories in"),
        ("subset", ["min_coverage='x'"], ["c"], "The 'min_coverage' parameter"),
        (
            "laplace",
            ["bounds=(0, 10)", "epsilon='two'"],
            ["x"],
            "do not define the laplace mechanism: The 'epsilon' parameter",
        ),
        ("laplace", ["bounds=5"], ["x"], "The 'bounds' parameter"),
        (
            "laplace",
            ["bounds=(0, 10)", "scale=3"],
            ["x"],
            "sets scale in 'parameters', which the laplace mechanism (LaplaceLDP) "
            "does not take; it takes epsilon, bounds",
        ),
        ("square-wave", ["bounds=(0, 10)", "epsilon=-1"], ["x"], "'epsilon'"),
        ("generalized-gaussian", ["bounds=(0, 10)", "power='x'"], ["x"], "'power'"),
        ("flipped-huber", ["bounds=(0, 10)", "delta=2"], ["x"], "'delta'"),
        ("rvns", ["bounds=(0, 10)", "d='x'"], ["x"], "The 'd' parameter"),
        ("rvns", ["bounds=(0, 10)", "d=20"], ["x"], "d must be smaller than"),
        ("interval", ["n_anchors=0"], ["x"], "The 'n_anchors' parameter"),
        ("interval-case1", ["anchor_loc='x'"], ["x"], "interval-case1 mechanism"),
        # the fields the reader checks for every mechanism
        (
            "laplace",
            ["bounds=(0, 10)", 5],
            ["x"],
            "has an invalid 'parameters' entry 2: expected a \"key=value\" "
            'string such as "epsilon=2"; got 5',
        ),
        ("laplace", ["=3"], ["x"], "invalid 'parameters' entry 1"),
        (
            "laplace",
            ["epsilon=1", "epsilon=2"],
            ["x"],
            "sets the parameter 'epsilon' twice in 'parameters'",
        ),
        ("laplace", ["bounds=(0, 10)"], [], "has an empty 'columns'"),
        ("laplace", ["bounds=(0, 10)"], [5], "invalid 'columns' entry 1"),
        ("laplace", ["bounds=(0, 10)"], ["x,y"], "invalid 'columns' entry 1"),
        (
            "laplace",
            ["bounds=(0, 10)"],
            ["x", "x"],
            "names column(s) x more than once in 'columns'",
        ),
    ],
)
def test_a_bad_settings_field_is_refused_by_name(
    reports, tmp_path, capsys, mechanism, parameters, columns, expected
):
    settings = _settings(tmp_path, mechanism, parameters, columns)
    args = ["estimate", reports, "--settings", settings, "--no-intervals"]
    err = _refused(*_run(args, capsys))
    assert str(settings) in err
    assert expected in err


def test_a_digest_that_is_not_text_is_refused(reports, tmp_path, capsys):
    settings = _settings(tmp_path, "frequency", [CATS], output_sha256=[1, 2])
    err = _refused(*_run(["estimate", reports, "--settings", settings], capsys))
    assert f"the settings file {settings} has an invalid 'output_sha256'" in err


def test_a_valid_hand_written_settings_file_is_read(tmp_path, capsys):
    reports = tmp_path / "krr.csv"
    reports.write_text("c\n0\n1\n2\n1\n")
    settings = _settings(tmp_path, "frequency", [CATS, "epsilon=2"])
    args = ["estimate", reports, "--settings", settings, "--no-intervals"]
    code, out, err = _run(args, capsys)
    assert code == 0, err
    assert "P(A)" in out and "P(C)" in out


# -- bounds read from the data -----------------------------------------------
LOW, HIGH = 31250.25, 187345.75  # the raw extremes: never printed


@pytest.fixture
def salaries(tmp_path):
    rng = np.random.default_rng(3)
    values = np.r_[LOW, rng.uniform(40000, 150000, size=38).round(2), HIGH]
    path = tmp_path / "salaries.csv"
    pd.DataFrame({"id": np.arange(40), "salary": values}).to_csv(path, index=False)
    return path


BOUNDED = [
    ("laplace", []),
    ("square-wave", []),
    ("generalized-gaussian", []),
    ("flipped-huber", []),
    ("rvns", []),
    ("rvns", ["--param", "d=1000"]),
]


@pytest.mark.parametrize("mechanism, extra", BOUNDED)
def test_bounds_read_from_the_data_are_refused(
    salaries, tmp_path, capsys, mechanism, extra
):
    # the release would reveal the raw extremes (a grid sampler's outputs lie
    # on a grid starting at the minimum; every noise scale follows the
    # range), so without --bounds nothing is released
    out = tmp_path / "out.csv"
    args = ["privatize", salaries, "-o", out, "--mechanism", mechanism]
    err = _refused(*_run([*args, "--columns", "salary", *extra], capsys))
    assert f"the {mechanism} mechanism needs its bounds declared" in err
    assert "--bounds LOW,HIGH" in err
    assert not out.exists()
    assert not (tmp_path / "out.csv.skprivate.json").exists()
    width = HIGH - LOW
    for value in (LOW, HIGH, width):
        for form in _forms(value):
            assert form not in err
    # "bounds=None" given as a parameter reads them from the data too
    err = _refused(
        *_run([*args, "--columns", "salary", "--param", "bounds=None"], capsys)
    )
    assert "needs its bounds declared" in err


def test_declared_bounds_are_printed(salaries, tmp_path, capsys):
    out = tmp_path / "out.csv"
    args = ["privatize", salaries, "-o", out, "--mechanism", "laplace"]
    code, stdout, err = _run(
        [*args, "--columns", "salary", "--bounds", "0,200000"], capsys
    )
    assert code == 0, err
    assert "bounds=([0.0], [200000.0]), bounds_from_data=False" in stdout
    assert "scale=[200000.0]" in stdout and "withheld" not in stdout


# -- --missing drop ----------------------------------------------------------
def test_missing_drop_gives_no_advice_about_the_index(tmp_path, capsys):
    path = tmp_path / "holes.csv"
    path.write_text("id,x\n1,3\n2,\n3,5\n4,150\n5,7\n")
    out = tmp_path / "out.csv"
    args = ["privatize", path, "-o", out, "--mechanism", "laplace", "--columns", "x"]
    args += ["--bounds", "0,10", "--missing", "drop", "--keep", "id", "--seed", "0"]
    code, stdout, err = _run(args, capsys)
    assert code == 0, err
    assert "missing=drop (1 rows dropped)" in stdout
    assert "reset_index" not in err and "index" not in err
    # the other warnings still reach the user, naming the file's row: the
    # value above the bounds is the privatizer's row 2, the file's row 4
    assert "row 4 (line 5 of holes.csv)" in err
    assert "150" not in err
    assert "dropped 1 of 5 rows" in err
    written = pd.read_csv(out)
    assert written["id"].tolist() == [1, 3, 4, 5]
