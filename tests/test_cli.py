"""The collector's command line: privatize CSV files without writing Python."""

import os
import signal

import numpy as np
import pandas as pd
import pytest

from skprivate.__main__ import main


@pytest.fixture
def survey(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "id": np.arange(200),
            "age": rng.integers(18, 90, size=200),
            "income": rng.uniform(0, 10, size=200),
            "race": rng.choice(["A", "B", "C", "D", "E"], size=200),
        }
    )
    path = tmp_path / "survey.csv"
    frame.to_csv(path, index=False)
    return frame, path


def _run(args, capsys):
    code = main(args)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_laplace_writes_noisy_columns_with_header(survey, tmp_path, capsys):
    frame, path = survey
    out = tmp_path / "out.csv"
    code, stdout, _ = _run(
        [
            "privatize",
            "--mechanism",
            "laplace",
            "--columns",
            "age",
            "--param",
            "epsilon=2",
            "--param",
            "bounds=(18, 90)",
            "--keep",
            "id",
            "--seed",
            "3",
            str(path),
            "-o",
            str(out),
        ],
        capsys,
    )
    assert code == 0 and "wrote 200 rows" in stdout and "epsilon" in stdout
    written = pd.read_csv(out)
    assert list(written.columns) == ["id", "age"]
    np.testing.assert_array_equal(written["id"], frame["id"])
    noise = written["age"] - frame["age"]
    assert abs(noise.std() - np.sqrt(2) * 72 / 2) < 0.25 * np.sqrt(2) * 72 / 2
    again = tmp_path / "again.csv"
    _run(
        [
            "privatize",
            "--mechanism",
            "laplace",
            "--columns",
            "age",
            "--param",
            "epsilon=2",
            "--param",
            "bounds=(18, 90)",
            "--seed",
            "3",
            str(path),
            "-o",
            str(again),
        ],
        capsys,
    )
    np.testing.assert_array_equal(pd.read_csv(again)["age"], written["age"])


def test_interval_and_rvns_and_subset_formats(survey, tmp_path, capsys):
    frame, path = survey
    out = tmp_path / "iv.csv"
    assert (
        _run(
            [
                "privatize",
                "--mechanism",
                "interval-case1",
                "--columns",
                "income",
                "--seed",
                "0",
                str(path),
                "-o",
                str(out),
            ],
            capsys,
        )[0]
        == 0
    )
    iv = pd.read_csv(out)
    assert list(iv.columns) == ["income_lower", "income_upper"]
    assert (
        (iv["income_lower"] < frame["income"]) & (frame["income"] <= iv["income_upper"])
    ).all()

    out = tmp_path / "rvns.csv"
    assert (
        _run(
            [
                "privatize",
                "--mechanism",
                "rvns",
                "--columns",
                "income",
                "--param",
                "d=2",
                "--param",
                "k=2",
                "--param",
                "bounds=(0, 10)",
                "--seed",
                "0",
                str(path),
                "-o",
                str(out),
            ],
            capsys,
        )[0]
        == 0
    )
    rv = pd.read_csv(out)
    assert list(rv.columns) == ["income_s0", "income_s1"]

    out = tmp_path / "subset.csv"
    assert (
        _run(
            [
                "privatize",
                "--mechanism",
                "subset",
                "--columns",
                "race",
                "--seed",
                "0",
                str(path),
                "-o",
                str(out),
            ],
            capsys,
        )[0]
        == 0
    )
    sub = pd.read_csv(out)
    assert all(c.startswith("race=") for c in sub.columns)
    truth = frame["race"].to_numpy()
    contains = sub[[f"race={c}" for c in "ABCDE"]].to_numpy()
    assert contains[np.arange(200), np.searchsorted(list("ABCDE"), truth)].all()


@pytest.mark.parametrize(
    "args, message",
    [
        (["--columns", "nope"], "column(s) nope not in"),
        (
            ["--columns", "age", "--param", "epsilon=-1", "--param", "bounds=(0,1)"],
            "epsilon",
        ),
        (["--columns", "age", "--param", "nonsense=1"], "has no parameter(s) nonsense"),
        (["--columns", "age", "--param", "novalue"], "key=value"),
    ],
)
def test_errors_are_one_line_and_leave_no_file(survey, tmp_path, capsys, args, message):
    _, path = survey
    out = tmp_path / "out.csv"
    code, _, err = _run(
        ["privatize", "--mechanism", "laplace", *args, str(path), "-o", str(out)],
        capsys,
    )
    assert code == 2
    assert err.startswith("error: ") and message in err
    assert err.count("\n") == 1
    assert not out.exists()
    assert list(tmp_path.iterdir()) == [path]


def test_unreadable_or_missing_input(tmp_path, capsys):
    bad = tmp_path / "bad.csv"
    bad.write_bytes(b"")
    code, _, err = _run(
        [
            "privatize",
            "--mechanism",
            "laplace",
            "--columns",
            "a",
            str(bad),
            "-o",
            str(tmp_path / "o.csv"),
        ],
        capsys,
    )
    assert code == 2 and "cannot read" in err
    code, _, err = _run(
        [
            "privatize",
            "--mechanism",
            "laplace",
            "--columns",
            "a",
            str(tmp_path / "none.csv"),
            "-o",
            str(tmp_path / "o.csv"),
        ],
        capsys,
    )
    assert code == 2 and "not found" in err


def test_estimate_round_trips_through_privatize(survey, tmp_path, capsys):
    frame, path = survey
    iv = tmp_path / "iv.csv"
    assert (
        _run(
            [
                "privatize",
                "--mechanism",
                "interval-case1",
                "--columns",
                "income",
                "--param",
                "anchor_loc=5",
                "--param",
                "anchor_scale=3",
                "--seed",
                "1",
                str(path),
                "-o",
                str(iv),
            ],
            capsys,
        )[0]
        == 0
    )
    out = tmp_path / "est.csv"
    code, stdout, _ = _run(
        [
            "estimate",
            "--estimator",
            "interval-npmle",
            "--columns",
            "income",
            str(iv),
            "-o",
            str(out),
        ],
        capsys,
    )
    assert code == 0 and "mean" in stdout
    table = pd.read_csv(out)
    assert list(table.columns) == ["column", "statistic", "value"]
    mean = table.loc[table.statistic == "mean", "value"].item()
    assert abs(mean - frame["income"].mean()) < 1.0  # n=200 Case-I data: coarse

    sub = tmp_path / "sub.csv"
    _run(
        [
            "privatize",
            "--mechanism",
            "subset",
            "--columns",
            "race",
            "--seed",
            "0",
            str(path),
            "-o",
            str(sub),
        ],
        capsys,
    )
    code, stdout, _ = _run(
        ["estimate", "--estimator", "subset", "--columns", "race", str(sub)], capsys
    )
    assert code == 0 and "P(A)" in stdout


def test_estimate_errors(survey, tmp_path, capsys):
    _, path = survey
    code, _, err = _run(
        ["estimate", "--estimator", "rvns", "--columns", "income", str(path)], capsys
    )
    assert code == 2 and "needs --param d --param bounds" in err
    code, _, err = _run(
        ["estimate", "--estimator", "interval-npmle", "--columns", "income", str(path)],
        capsys,
    )
    assert code == 2 and "income_lower, income_upper" in err


@pytest.mark.parametrize(
    "mechanism, params",
    [
        ("interval", ["n_anchors=3", "scale=2", "anchor_loc=5"]),
        ("interval-case2", ["scale=2", "anchor_loc=5"]),
        ("generalized-gaussian", ["epsilon=2", "bounds=(0, 10)"]),
        ("flipped-huber", ["epsilon=2", "bounds=(0, 10)"]),
        ("square-wave", ["epsilon=2", "bounds=(0, 10)"]),
    ],
)
def test_every_numeric_mechanism_is_available(
    survey, tmp_path, capsys, mechanism, params
):
    frame, path = survey
    out = tmp_path / "out.csv"
    args = ["privatize", "--mechanism", mechanism, "--columns", "income", "--seed", "0"]
    for p in params:
        args += ["--param", p]
    code, stdout, err = _run([*args, str(path), "-o", str(out)], capsys)
    assert code == 0, err
    written = pd.read_csv(out)
    assert len(written) == len(frame) and "notion=" in stdout


# -- the privacy contract of the command line (issue 14) ----------------------
def _laplace_args(path, out, *extra):
    return [
        "privatize",
        "--mechanism",
        "laplace",
        "--columns",
        "age",
        "--param",
        "epsilon=1",
        "--param",
        "bounds=(0, 100)",
        *extra,
        str(path),
        "-o",
        str(out),
    ]


def test_same_seed_on_two_files_adds_different_noise(tmp_path, capsys):
    # Issue 14, finding 1: --seed 0 on day1.csv and day2.csv added the same noise.
    rng = np.random.default_rng(1)
    day1 = pd.DataFrame({"age": rng.integers(18, 90, size=300)})
    day2 = day1.copy()
    day2.loc[0, "age"] = 50 if day1.loc[0, "age"] != 50 else 51
    for name, frame in (("day1", day1), ("day2", day2)):
        frame.to_csv(tmp_path / f"{name}.csv", index=False)
        code, _, _ = _run(
            _laplace_args(
                tmp_path / f"{name}.csv", tmp_path / f"{name}_out.csv", "--seed", "0"
            ),
            capsys,
        )
        assert code == 0
    noise1 = pd.read_csv(tmp_path / "day1_out.csv")["age"] - day1["age"]
    noise2 = pd.read_csv(tmp_path / "day2_out.csv")["age"] - day2["age"]
    assert not np.allclose(noise1[1:], noise2[1:])
    # the same file and seed reproduce the same output
    _run(
        _laplace_args(tmp_path / "day1.csv", tmp_path / "again.csv", "--seed", "0"),
        capsys,
    )
    pd.testing.assert_frame_equal(
        pd.read_csv(tmp_path / "again.csv"), pd.read_csv(tmp_path / "day1_out.csv")
    )
    # another seed or other settings give other noise
    _run(
        _laplace_args(tmp_path / "day1.csv", tmp_path / "s1.csv", "--seed", "1"), capsys
    )
    assert not pd.read_csv(tmp_path / "s1.csv").equals(
        pd.read_csv(tmp_path / "again.csv")
    )


def test_keep_of_a_privatized_column_is_refused(survey, tmp_path, capsys):
    # Issue 14, finding 5: --keep age --columns age wrote the raw age.
    _, path = survey
    out = tmp_path / "out.csv"
    code, _, err = _run(_laplace_args(path, out, "--keep", "id,age"), capsys)
    assert code == 2 and err.count("\n") == 1
    assert "--keep age is also in --columns" in err
    assert not out.exists()


@pytest.mark.parametrize("spelling", ["same", "dotted", "symlink"])
def test_output_equal_to_the_input_is_refused(survey, tmp_path, capsys, spelling):
    # Issue 14, finding 5: -o equal to the input replaced the raw file.
    _, path = survey
    before = path.read_bytes()
    if spelling == "same":
        out = path
    elif spelling == "dotted":
        (tmp_path / "sub").mkdir()
        out = tmp_path / "sub" / ".." / path.name
    else:
        out = tmp_path / "link.csv"
        out.symlink_to(path)
    code, _, err = _run(_laplace_args(path, out), capsys)
    assert code == 2 and "is the input file" in err and err.count("\n") == 1
    assert path.read_bytes() == before


@pytest.mark.parametrize("value", ["1e999", "float('inf')", "float('nan')", "0"])
def test_infinite_epsilon_is_refused_on_the_command_line(
    survey, tmp_path, capsys, value
):
    # Issue 14, finding 4: --param epsilon=1e999 wrote raw ages with exit code 0.
    _, path = survey
    out = tmp_path / "out.csv"
    args = [
        "privatize",
        "--mechanism",
        "laplace",
        "--columns",
        "age",
        "--param",
        f"epsilon={value}",
        "--param",
        "bounds=(0, 100)",
        str(path),
        "-o",
        str(out),
    ]
    code, _, err = _run(args, capsys)
    assert code == 2 and "epsilon" in err and err.count("\n") == 1
    assert not out.exists()


def _failing_writer(monkeypatch, error, seen, folder):
    original = pd.DataFrame.to_csv

    def write_then_fail(self, handle, *args, **kwargs):
        # write part of the rows (the kept raw columns among them), then fail
        original(self.iloc[:50], handle, *args, **kwargs)
        handle.flush()
        seen["mode"] = os.fstat(handle.fileno()).st_mode & 0o777
        seen["files"] = sorted(p.name for p in folder.iterdir())
        if error == "sigterm":
            os.kill(os.getpid(), signal.SIGTERM)
        raise error

    monkeypatch.setattr(pd.DataFrame, "to_csv", write_then_fail)


@pytest.mark.parametrize(
    "error, expected",
    [
        (RuntimeError("disk full"), RuntimeError),
        (KeyboardInterrupt(), KeyboardInterrupt),
        ("sigterm", SystemExit),
    ],
    ids=["error", "interrupt", "sigterm"],
)
def test_partial_output_is_private_and_removed(
    survey, tmp_path, capsys, monkeypatch, error, expected
):
    # Issue 14, finding 5: a killed run left a hidden partial file with the
    # --keep columns.
    _, path = survey
    out = tmp_path / "out.csv"
    seen = {}
    _failing_writer(monkeypatch, error, seen, tmp_path)
    with pytest.raises(expected):
        main(_laplace_args(path, out, "--keep", "id"))
    assert seen["mode"] == 0o600
    assert any(name.startswith(".out.csv.") for name in seen["files"])
    assert sorted(tmp_path.iterdir()) == [path]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_finished_output_has_the_usual_permissions(survey, tmp_path, capsys):
    _, path = survey
    out = tmp_path / "out.csv"
    umask = os.umask(0o022)
    try:
        assert _run(_laplace_args(path, out), capsys)[0] == 0
    finally:
        os.umask(umask)
    assert out.stat().st_mode & 0o777 == 0o644
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.csv", "survey.csv"]
