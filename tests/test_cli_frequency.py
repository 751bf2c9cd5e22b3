"""The command line's frequency oracles: privatize categories, estimate shares."""

import json

import numpy as np
import pandas as pd
import pytest

from skprivate import FrequencyEstimator, FrequencyOracle
from skprivate.__main__ import main

CATEGORIES = "categories=[['A', 'B', 'C', 'D'], ['F', 'M']]"
SHARES = np.array([0.5, 0.3, 0.15, 0.05])


@pytest.fixture
def raw(tmp_path):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {
            "id": np.arange(4000),
            "race": rng.choice(list("ABCD"), size=4000, p=SHARES),
            "sex": rng.choice(["F", "M"], size=4000),
        }
    )
    path = tmp_path / "raw.csv"
    frame.to_csv(path, index=False)
    return frame, path


def _run(args, capsys):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _privatize(path, out, capsys, *extra):
    return _run(
        [
            "privatize",
            path,
            "-o",
            out,
            "--mechanism",
            "frequency",
            "--columns",
            "race,sex",
            "--keep",
            "id",
            "--param",
            "epsilon=4",
            "--param",
            CATEGORIES,
            *extra,
        ],
        capsys,
    )


@pytest.mark.parametrize(
    ("oracle", "columns"),
    [
        ("krr", ["race", "sex"]),
        ("oue", ["race=A", "race=B", "race=C", "race=D", "sex=F", "sex=M"]),
        ("olh", ["race_seed", "race_hash", "sex_seed", "sex_hash"]),
        ("hr", ["race_hadamard", "sex_hadamard"]),
    ],
)
def test_round_trip_estimates_the_shares_from_the_settings(
    raw, tmp_path, capsys, oracle, columns
):
    _, path = raw
    out = tmp_path / "out.csv"
    code, _, _ = _privatize(path, out, capsys, "--param", f"oracle={oracle}")
    assert code == 0
    released = pd.read_csv(out)
    assert list(released.columns) == ["id", *columns]
    settings = json.loads((tmp_path / "out.csv.skprivate.json").read_text())
    assert settings["mechanism"] == "frequency"
    code, stdout, err = _run(["estimate", out, "--no-intervals"], capsys)
    assert code == 0, err
    assert "frequency" in err
    # the command line's estimate is the library's on the same reports, with
    # the column's oracle: its categories and half of the budget per record
    lines = [line.split() for line in stdout.splitlines()[1:5]]
    cli = np.array([float(parts[-1]) for parts in lines])
    oracle_ = FrequencyOracle(
        epsilon=2.0, oracle=oracle, categories=[["A", "B", "C", "D"]]
    )
    reports = released[[c for c in columns if c.startswith("race")]].to_numpy()
    lib = FrequencyEstimator(oracle=oracle_).fit(reports)
    np.testing.assert_allclose(cli, lib.distribution_, atol=5e-7)
    # and it estimates the shares: within 4 standard errors
    se = np.sqrt(lib.variance_)
    assert np.all(np.abs(lib.distribution_ - SHARES) < 4 * se)


def test_intervals_cover_each_share(raw, tmp_path, capsys):
    _, path = raw
    out = tmp_path / "out.csv"
    _privatize(path, out, capsys, "--param", "oracle=krr")
    code, stdout, err = _run(["estimate", out, "--param", "method=norm-sub"], capsys)
    assert code == 0
    assert "P(A)" in stdout and "covers P(X = category)" in stdout + err
    code, _, _ = _run(
        ["estimate", out, "--param", "method=norm-sub", "-o", tmp_path / "e.csv"],
        capsys,
    )
    table = pd.read_csv(tmp_path / "e.csv")
    race = table[table["column"] == "race"]
    assert list(race["statistic"]) == ["P(A)", "P(B)", "P(C)", "P(D)"]
    assert np.all(race["lower"] <= race["value"]) and np.all(
        race["value"] <= race["upper"]
    )
    assert np.all(race["level"] == 0.95)


def test_categories_must_be_declared(raw, tmp_path, capsys):
    _, path = raw
    code, _, err = _run(
        [
            "privatize",
            path,
            "-o",
            tmp_path / "out.csv",
            "--mechanism",
            "frequency",
            "--columns",
            "race",
            "--param",
            "epsilon=2",
        ],
        capsys,
    )
    assert code != 0
    assert "categories" in err and "declared" in err
    assert not (tmp_path / "out.csv").exists()


def test_bounds_do_not_apply(raw, tmp_path, capsys):
    _, path = raw
    code, _, err = _privatize(path, tmp_path / "out.csv", capsys, "--bounds", "0,1")
    assert code != 0
    assert "--bounds does not apply to the frequency mechanism" in err


def test_missing_keep_blanks_every_report_column_of_the_cell(tmp_path, capsys):
    frame = pd.DataFrame({"race": ["A", None, "B", "C"] * 25, "sex": ["F", "M"] * 50})
    path = tmp_path / "raw.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out.csv"
    code, _, err = _run(
        [
            "privatize",
            path,
            "-o",
            out,
            "--mechanism",
            "frequency",
            "--columns",
            "race,sex",
            "--param",
            CATEGORIES,
            "--param",
            "oracle=olh",
            "--missing",
            "keep",
        ],
        capsys,
    )
    assert code == 0, err
    released = pd.read_csv(out)
    gaps = released[["race_seed", "race_hash"]].isna()
    np.testing.assert_array_equal(gaps.all(axis=1), frame["race"].isna())
    np.testing.assert_array_equal(gaps.any(axis=1), frame["race"].isna())
    assert not released[["sex_seed", "sex_hash"]].isna().any(axis=None)


def test_estimate_without_settings_names_what_is_missing(raw, tmp_path, capsys):
    _, path = raw
    out = tmp_path / "out.csv"
    _privatize(path, out, capsys, "--param", "oracle=krr")
    (tmp_path / "out.csv.skprivate.json").unlink()
    code, _, err = _run(
        ["estimate", out, "--estimator", "frequency", "--columns", "race"], capsys
    )
    assert code != 0
    assert "settings file" in err and "oracle" in err


def test_estimate_refuses_or_drops_blank_reports(tmp_path, capsys):
    frame = pd.DataFrame({"race": ["A", None, "B", "C", "D"] * 40})
    path = tmp_path / "raw.csv"
    frame.to_csv(path, index=False)
    out = tmp_path / "out.csv"
    args = ["privatize", path, "-o", out, "--mechanism", "frequency"]
    args += ["--columns", "race", "--param", "categories=[['A', 'B', 'C', 'D']]"]
    assert _run([*args, "--missing", "keep"], capsys)[0] == 0
    code, _, err = _run(["estimate", out], capsys)
    assert code == 2
    assert "column 'race' has 40 missing value(s), the first at row 2 (line 3" in err
    table_path = tmp_path / "e.csv"
    drop = ["estimate", out, "--missing", "drop", "-o", table_path]
    code, _, err = _run(drop, capsys)
    assert code == 0, err
    assert "dropped 40 of 200 rows with a missing value" in err
    table = pd.read_csv(table_path)
    assert table.loc[table.statistic == "rows dropped (missing)", "value"].item() == 40


def test_estimate_names_a_non_numeric_report(raw, tmp_path, capsys):
    _, path = raw
    out = tmp_path / "out.csv"
    _privatize(path, out, capsys, "--param", "oracle=krr")
    released = pd.read_csv(out).astype({"race": object})
    released.loc[5, "race"] = "B"
    released.to_csv(out, index=False)
    code, _, err = _run(["estimate", out, "--columns", "race"], capsys)
    assert code == 2
    assert "column 'race' is not numeric: row 6 (line 7 of out.csv)" in err
