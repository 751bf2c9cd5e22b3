"""Exact checks of the command line's input reading and atomic output.

Each test pins one documented behaviour of ``skprivate/_cli/io.py`` with a
small exact case: the field separators, the hint for a file read with the
wrong one, the refusals of unreadable input (each message whole), the
``--columns`` and ``--param`` parsing, the row and line named in an error
(blank lines and quoted line breaks counted as a reader counts them,
compressed files read), the numeric, finite and missing-value checks (the
column and row named, never the cell), and the output written atomically:
a temporary file of mode 0600 in the output folder, the final mode from
the umask, nothing left behind on a failure or on SIGTERM, and the SIGTERM
handler put back.  ``benchmarks/_mutation_specs_cli.py`` (``cli_io``)
lists the mutants these tests kill.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import signal
import stat
import threading
import zipfile

import numpy as np
import pandas as pd
import pytest

from skprivate._cli import CLIError
from skprivate._cli import io as cli_io
from skprivate._cli.io import (
    check_delimiter,
    check_finite,
    check_numeric,
    delimiter_hint,
    file_line,
    missing_error,
    parse_params,
    read_csv,
    same_file,
    select_columns,
    where,
    write_csv_atomically,
)


def _error(call, *args) -> str:
    with pytest.raises(CLIError) as info:
        call(*args)
    return str(info.value)


# -- separators ---------------------------------------------------------------


@pytest.mark.parametrize(
    "given, sep",
    [(None, ","), (";", ";"), ("|", "|"), ("\\t", "\t"), ("tab", "\t"), ("TAB", "\t")],
)
def test_delimiters_accepted(given, sep):
    assert check_delimiter(given) == sep


@pytest.mark.parametrize("given", ["", "ab", "Tab", '"', "\n", "\r"])
def test_delimiters_refused_by_name(given):
    message = _error(check_delimiter, given)
    assert message == (
        f"--delimiter must be one character such as ';' or 'tab'; got {given!r}"
    )


def test_the_hint_names_the_separator_of_a_one_column_header():
    def one(header):
        return delimiter_hint(pd.DataFrame({header: [1]}))

    assert one("age;id") == (
        " (the header was read as one column 'age;id': the file seems to be "
        "separated by ';'; pass --delimiter ';')"
    )
    assert one("age\tid") == (
        " (the header was read as one column 'age\\tid': the file seems to be "
        "separated by 'tab'; pass --delimiter 'tab')"
    )
    assert "separated by '|'" in one("a|b")
    # the first of ; tab | found is the one named
    assert "separated by ';'" in one("a|b;c")
    assert one("age") == ""
    assert delimiter_hint(pd.DataFrame({"a;b": [1], "c;d": [2]})) == ""


# -- reading ------------------------------------------------------------------


def test_read_csv_reads_with_the_separator(tmp_path):
    path = tmp_path / "in.csv"
    path.write_text("a;b\n1;2\n3;4\n")
    frame = read_csv(str(path), ";")
    assert list(frame.columns) == ["a", "b"]
    assert frame["b"].tolist() == [2, 4]
    assert list(read_csv(str(path)).columns) == ["a;b"]


def test_read_csv_refusals_are_whole_sentences(tmp_path):
    missing = str(tmp_path / "none.csv")
    assert _error(read_csv, missing) == f"input file not found: {missing}"
    assert _error(read_csv, str(tmp_path)) == f"input file not found: {tmp_path}"
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert _error(read_csv, str(empty)) == (
        f"cannot read {empty} as CSV: No columns to parse from file"
    )
    header = tmp_path / "header.csv"
    header.write_text("a,b\n")
    assert _error(read_csv, str(header)) == f"{header} has a header but no rows"
    ragged = tmp_path / "ragged.csv"
    ragged.write_text("a,b\n1,2\n3,4,5,6\n")
    message = _error(read_csv, str(ragged))
    assert message.startswith(f"cannot read {ragged} as CSV: Error tokenizing data")
    assert "\n" not in message
    binary = tmp_path / "binary.csv"
    binary.write_bytes(b"a,b\n\xff\xfe,1\n")
    assert _error(read_csv, str(binary)).startswith(f"cannot read {binary} as CSV: ")
    assert _error(read_csv, str(header), "ab").startswith("--delimiter must be")


def test_columns_are_parsed_and_checked():
    frame = pd.DataFrame({"age": [1], "id": [2], "x y": [3]})
    assert select_columns(frame, " age , x y ,", "f.csv") == ["age", "x y"]
    for empty in (None, ""):
        assert _error(select_columns, frame, empty, "f.csv") == (
            "--columns is required (comma-separated column names)"
        )
    assert _error(select_columns, frame, "age,zip,pin", "f.csv") == (
        "column(s) zip, pin not in f.csv; it has age, id, x y"
    )
    one = pd.DataFrame({"age;id": [1]})
    assert _error(select_columns, one, "age", "g.csv").endswith(
        "it has age;id (the header was read as one column 'age;id': the file "
        "seems to be separated by ';'; pass --delimiter ';')"
    )


def test_params_are_literals_or_strings():
    assert parse_params(None) == {}
    assert parse_params([]) == {}
    got = parse_params(["a=1", "b=x", "c=[1, 2]", " d =2.5", "e=", "f==1", "g=None"])
    assert got == {
        "a": 1,
        "b": "x",
        "c": [1, 2],
        "d": 2.5,
        "e": "",
        "f": "=1",
        "g": None,
    }
    for item in ("noeq", "=3", " =3"):
        assert (
            _error(parse_params, [item]) == f"--param expects key=value; got {item!r}"
        )


def test_same_file_follows_links_and_paths(tmp_path):
    a, b = tmp_path / "a.csv", tmp_path / "b.csv"
    a.write_text("x\n1\n")
    b.write_text("x\n1\n")
    link = tmp_path / "link.csv"
    link.symlink_to(a)
    assert same_file(str(a), str(a))
    assert same_file(str(a), str(link))
    assert not same_file(str(a), str(b))
    # a path not yet written is compared by where it resolves
    new = tmp_path / "new.csv"
    assert same_file(str(new), str(tmp_path / "sub" / ".." / "new.csv"))
    assert not same_file(str(new), str(tmp_path / "other.csv"))
    assert not same_file(str(a), str(new))


# -- rows and lines -----------------------------------------------------------


def test_file_line_counts_as_the_reader_reads(tmp_path):
    plain = tmp_path / "plain.csv"
    plain.write_text("a,b\n1,2\n3,4\n")
    assert [file_line(str(plain), i) for i in range(3)] == [2, 3, None]
    blank = tmp_path / "blank.csv"
    blank.write_text("\n\na,b\n1,2\n\n\n3,4\n")
    assert [file_line(str(blank), i) for i in range(2)] == [4, 7]
    quoted = tmp_path / "quoted.csv"
    quoted.write_text('a,b\n"x\ny",1\n2,3\n')
    assert [file_line(str(quoted), i) for i in range(2)] == [2, 4]
    assert file_line(str(tmp_path / "none.csv"), 0) is None


@pytest.mark.parametrize(
    "suffix, opener", [(".gz", gzip.open), (".bz2", bz2.open), (".xz", lzma.open)]
)
def test_file_line_reads_compressed_files(tmp_path, suffix, opener):
    path = tmp_path / f"in.csv{suffix.upper()}"
    with opener(path, "wt") as handle:
        handle.write("a\n1\n\n2\n")
    assert [file_line(str(path), i) for i in range(2)] == [2, 4]


def test_a_zip_archive_is_not_scanned(tmp_path):
    path = tmp_path / "in.zip"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("in.csv", "a\n1\n")
    assert file_line(str(path), 0) is None
    assert where(str(path), 2) == "row 3"


def test_where_names_the_row_and_the_line(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("a\n1\n\n2\n")
    assert where(str(path), 0) == "row 1 (line 2 of f.csv)"
    assert where(str(path), 1) == "row 2 (line 4 of f.csv)"
    assert where(str(path), 5) == "row 6"


# -- numeric, finite, missing -------------------------------------------------


def test_check_numeric_converts_and_names_the_first_bad_cell(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("a,b,c,d\n1,true,2,x\n2,false,y,3\n3,true,,z\n")
    frame = pd.read_csv(path)
    ok = check_numeric(frame, ["a", "b"], str(path), "laplace")
    assert ok["b"].dtype == np.float64
    assert ok["b"].tolist() == [1.0, 0.0, 1.0]
    assert ok["a"].tolist() == [1, 2, 3]
    assert frame["b"].dtype == bool  # the input is left as it was
    message = _error(check_numeric, frame, ["a", "c"], str(path), "laplace")
    assert message == (
        "column 'c' is not numeric: row 2 (line 3 of f.csv) holds a cell that "
        "is not a number (1 non-numeric value(s) in all); laplace needs numbers"
    )
    message = _error(check_numeric, frame, ["d"], str(path), "rvns")
    assert message == (
        "column 'd' is not numeric: row 1 (line 2 of f.csv) holds a cell that "
        "is not a number (2 non-numeric value(s) in all); rvns needs numbers"
    )
    text = pd.DataFrame({"v": ["1.5", None, "-2"]})
    got = check_numeric(text, ["v"], str(path), "laplace")
    assert got["v"].tolist()[0] == 1.5 and got["v"].tolist()[2] == -2.0
    assert np.isnan(got["v"].tolist()[1])


def test_check_finite_names_the_first_infinite_cell(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("a,b\n1,2\n2,3\n3,4\n")
    data = pd.DataFrame(
        {
            "a": [1.0, np.nan, 3.0],
            "b": pd.array([1, None, 2], dtype="Int64"),
            "c": [0.0, -np.inf, np.inf],
        }
    )
    check_finite(data[["a", "b"]], str(path), "laplace")
    assert _error(check_finite, data, str(path), "laplace") == (
        "column 'c' has an infinite value at row 2 (line 3 of f.csv) (2 in all); "
        "laplace needs finite numbers"
    )


def test_missing_error_names_the_first_column_and_the_others(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("a\n1\n2\n3\n")
    full = pd.DataFrame({"a": [1.0, 2.0, 3.0]})
    assert missing_error(full, str(path), "use --missing") is None
    data = pd.DataFrame(
        {
            "a": [1.0, 2.0, 3.0],
            "b": [1.0, np.nan, np.nan],
            "c": [np.nan, 1.0, 2.0],
            "d": [None, None, "x"],
        }
    )
    error = missing_error(data, str(path), "pass --missing drop or keep")
    assert isinstance(error, CLIError)
    assert str(error) == (
        "column 'b' has 2 missing value(s), the first at row 2 (line 3 of f.csv); "
        "also missing in 'c' (1), 'd' (2); pass --missing drop or keep"
    )
    alone = missing_error(data[["a", "c"]], str(path), "choose")
    assert str(alone) == (
        "column 'c' has 1 missing value(s), the first at row 1 (line 2 of f.csv); "
        "choose"
    )


# -- atomic output ------------------------------------------------------------


def _frame() -> pd.DataFrame:
    return pd.DataFrame({"x": [1.5, -2.0], "y": ["a", "b"]})


@pytest.mark.parametrize(
    "umask, mode", [(0o022, 0o644), (0o077, 0o600), (0o002, 0o664)]
)
def test_the_output_is_written_whole_with_the_umasks_mode(tmp_path, umask, mode):
    path = tmp_path / "out.csv"
    old = os.umask(umask)
    try:
        write_csv_atomically(_frame(), str(path))
        after = os.umask(umask)
    finally:
        os.umask(old)
    assert after == umask  # the umask is left as it was
    assert path.read_text() == "x,y\n1.5,a\n-2.0,b\n"
    assert stat.S_IMODE(path.stat().st_mode) == mode
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]


def test_the_rows_go_first_to_a_private_file_in_the_output_folder(
    tmp_path, monkeypatch
):
    path = tmp_path / "out.csv"
    path.write_text("old\n")
    seen = []
    replace = os.replace

    def spy(src, dst):
        seen.append((src, dst, stat.S_IMODE(os.stat(src).st_mode), path.read_text()))
        replace(src, dst)

    monkeypatch.setattr(cli_io.os, "replace", spy)
    old = os.umask(0o022)
    try:
        write_csv_atomically(_frame(), str(path))
    finally:
        os.umask(old)
    ((src, dst, _mode, before),) = seen
    assert os.path.dirname(src) == str(tmp_path)
    assert os.path.basename(src).startswith(".out.csv.")
    assert dst == path
    assert before == "old\n"  # the old file stands until the new one is whole


def test_the_temporary_file_is_created_private(tmp_path, monkeypatch):
    modes = []
    to_csv = pd.DataFrame.to_csv

    def spy(self, handle, **kwargs):
        modes.append(stat.S_IMODE(os.fstat(handle.fileno()).st_mode))
        return to_csv(self, handle, **kwargs)

    monkeypatch.setattr(pd.DataFrame, "to_csv", spy)
    old = os.umask(0)
    try:
        write_csv_atomically(_frame(), str(tmp_path / "out.csv"))
    finally:
        os.umask(old)
    assert modes == [0o600]


def test_a_failure_leaves_no_file_and_the_old_one_intact(tmp_path, monkeypatch):
    path = tmp_path / "out.csv"
    path.write_text("old\n")

    def fail(self, handle, **kwargs):
        handle.write("x,y\n1.5,a\n")
        raise KeyboardInterrupt

    monkeypatch.setattr(pd.DataFrame, "to_csv", fail)
    with pytest.raises(KeyboardInterrupt):
        write_csv_atomically(_frame(), str(path))
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv"]
    assert path.read_text() == "old\n"


def test_sigterm_while_writing_exits_and_removes_the_file(tmp_path, monkeypatch):
    path = tmp_path / "out.csv"
    seen = []

    def kill(self, handle, **kwargs):
        handle.write("x\n")
        seen.append(signal.getsignal(signal.SIGTERM))
        os.kill(os.getpid(), signal.SIGTERM)

    monkeypatch.setattr(pd.DataFrame, "to_csv", kill)

    def mine(signum, frame):  # pragma: no cover - replaced while writing
        raise AssertionError("the writer's handler should have run")

    previous = signal.signal(signal.SIGTERM, mine)
    try:
        with pytest.raises(SystemExit) as info:
            write_csv_atomically(_frame(), str(path))
        assert signal.getsignal(signal.SIGTERM) is mine
    finally:
        signal.signal(signal.SIGTERM, previous)
    assert info.value.code == 128 + signal.SIGTERM
    assert seen == [cli_io._raise_on_sigterm]
    assert list(tmp_path.iterdir()) == []


def test_the_handler_is_put_back_after_a_clean_write(tmp_path):
    previous = signal.getsignal(signal.SIGTERM)
    write_csv_atomically(_frame(), str(tmp_path / "out.csv"))
    assert signal.getsignal(signal.SIGTERM) == previous


def test_a_write_from_another_thread_leaves_the_handlers_alone(tmp_path):
    errors = []
    path = tmp_path / "out.csv"

    def work():
        try:
            write_csv_atomically(_frame(), str(path))
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    thread = threading.Thread(target=work)
    thread.start()
    thread.join()
    assert errors == []
    assert path.read_text() == "x,y\n1.5,a\n-2.0,b\n"


def test_an_output_that_cannot_be_written_is_refused_by_name(tmp_path):
    assert _error(write_csv_atomically, _frame(), str(tmp_path)) == (
        f"-o {tmp_path} is a folder; give a file name, such as "
        f"{tmp_path / 'private.csv'}"
    )
    missing = tmp_path / "no" / "out.csv"
    assert _error(write_csv_atomically, _frame(), str(missing)) == (
        f"output folder does not exist: {tmp_path / 'no'}"
    )


def test_file_line_decompresses_rather_than_reading_the_bytes(tmp_path):
    # a short file is stored verbatim inside an xz or gzip stream, so its
    # lines would show through the bytes; a longer one is compressed
    text = "a\n" + "1\n" * 200 + "\n" + "2\n"
    for suffix, opener in ((".xz", lzma.open), (".gz", gzip.open), (".bz2", bz2.open)):
        path = tmp_path / f"long.csv{suffix}"
        with opener(path, "wt") as handle:
            handle.write(text)
        assert b"1\n1\n1\n" not in path.read_bytes()
        assert file_line(str(path), 0) == 2
        assert file_line(str(path), 200) == 203


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_bytes_that_are_not_utf8_do_not_stop_the_scan(tmp_path, suffix):
    raw = b"a,b\n\xff\xfe,1\n2,\xe9\n3,4\n"
    path = tmp_path / f"latin.csv{suffix}"
    path.write_bytes(gzip.compress(raw) if suffix else raw)
    assert [file_line(str(path), i) for i in range(3)] == [2, 3, 4]


def test_a_bool_column_does_not_end_the_checks_of_the_next_ones(tmp_path):
    path = tmp_path / "f.csv"
    path.write_text("b,c\ntrue,1\nfalse,x\n")
    frame = pd.read_csv(path)
    message = _error(check_numeric, frame, ["b", "c"], str(path), "laplace")
    assert message.startswith("column 'c' is not numeric: row 2 (line 3 of f.csv)")


def test_a_temporary_file_that_cannot_be_made_is_the_error_raised(
    tmp_path, monkeypatch
):
    def refuse(**kwargs):
        raise OSError("no space left")

    monkeypatch.setattr(cli_io.tempfile, "mkstemp", refuse)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(OSError, match="^no space left$"):
        write_csv_atomically(_frame(), str(tmp_path / "out.csv"))
    assert list(tmp_path.iterdir()) == []


def test_a_header_of_numbers_is_not_shown():
    # A file without a header: pandas reads the first record as the names,
    # which the message must not print.
    frame = pd.DataFrame({"5": [1], "123456.789": [2], "SECRET": [3], "1e3": [4]})
    assert _error(select_columns, frame, "income,zip", "s.csv") == (
        "column(s) income, zip not in s.csv: its first line (4 fields, some of them "
        "numbers) does not look like a header; the file needs a first line "
        "naming its columns (not shown: it may be a respondent's record)"
    )
    words = pd.DataFrame({"age": [1], "inf_rate": [2], "nan_count": [3]})
    assert _error(select_columns, words, "zip", "w.csv") == (
        "column(s) zip not in w.csv; it has age, inf_rate, nan_count"
    )


def test_a_column_list_naming_a_column_twice_names_the_option():
    assert _error(cli_io.parse_names, "a,b,a") == (
        "--columns names column(s) a more than once; list each column once"
    )


def _reader_raises(monkeypatch, error):
    """Make pandas' CSV reader raise ``error``, as a decompressor or pandas would."""

    def refuse(*args, **kwargs):
        raise error

    monkeypatch.setattr(cli_io.pd, "read_csv", refuse)


@pytest.mark.parametrize(
    "name, what",
    [("in.csv", "CSV"), ("in.csv.zip", "a zip archive"), ("in.tar", "a tar archive")],
)
def test_a_value_error_of_the_reader_names_what_was_read(
    tmp_path, monkeypatch, name, what
):
    # pandas refuses an archive holding several files with a ValueError;
    # only its first line is shown
    path = tmp_path / name
    path.write_text("a\n1\n")

    _reader_raises(
        monkeypatch, ValueError("Multiple files found in ZIP file.\nsecond line")
    )
    assert _error(read_csv, str(path)) == (
        f"cannot read {path} as {what}: Multiple files found in ZIP file."
    )


def test_a_missing_decompressor_is_named_by_its_first_line(tmp_path, monkeypatch):
    path = tmp_path / "in.csv.zst"
    path.write_text("a\n1\n")

    _reader_raises(
        monkeypatch, ImportError("Missing optional dependency 'zstandard'.\nUse pip.")
    )
    assert _error(read_csv, str(path)) == (
        f"cannot read {path}: Missing optional dependency 'zstandard'."
    )


@pytest.mark.parametrize(
    "name, error, reason",
    [
        (
            "in.csv.gz",
            EOFError("Compressed file ended before the end-of-stream marker"),
            "its gzip data end early (a truncated copy?)",
        ),
        (
            "in.csv.lz4",
            OSError("Not an lz4 file"),
            "it is not a valid compressed file (damaged, or not compressed at all)",
        ),
    ],
)
def test_an_undecompressable_file_is_named_with_its_reason(
    tmp_path, monkeypatch, name, error, reason
):
    # the decompressor's own message (it quotes the first bytes) is not shown
    path = tmp_path / name
    path.write_text("a\n1\n")

    _reader_raises(monkeypatch, error)
    suffix = name[name.rindex(".") :]
    assert _error(read_csv, str(path)) == (
        f"cannot read {path}: its name ends in {suffix}, but {reason}; give the "
        "CSV file itself or a complete archive"
    )
