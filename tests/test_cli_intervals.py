"""``python -m skprivate estimate``: intervals next to the estimates, by default."""

import numpy as np
import pandas as pd
import pytest

from skprivate.__main__ import main


@pytest.fixture
def privatized(tmp_path):
    rng = np.random.default_rng(0)
    raw = tmp_path / "raw.csv"
    pd.DataFrame({"age": rng.normal(40, 12, 2000).clip(0, 100).round(1)}).to_csv(
        raw, index=False
    )
    out = tmp_path / "sw.csv"
    code = main(
        [
            "privatize",
            str(raw),
            "-o",
            str(out),
            "--mechanism",
            "square-wave",
            "--columns",
            "age",
            "--bounds",
            "0,100",
            "--param",
            "epsilon=2",
            "--seed",
            "1",
        ]
    )
    assert code == 0
    return out


def test_estimate_prints_intervals_at_the_asked_level(privatized, tmp_path, capsys):
    table_path = tmp_path / "table.csv"
    code = main(["estimate", str(privatized), "--level", "0.9", "-o", str(table_path)])
    assert code == 0
    table = pd.read_csv(table_path).set_index("statistic")
    assert {"centre", "lower", "upper", "level", "method", "covers"} <= set(
        table.columns
    )
    mean = table.loc["mean"]
    assert mean["level"] == 0.9 and mean["method"] == "moment (unbiased)"
    assert mean["lower"] < mean["centre"] < mean["upper"]
    assert table.loc["q50", "lower"] < table.loc["q50", "upper"]
    assert np.isnan(table.loc["std", "lower"])  # no interval for the SD
    captured = capsys.readouterr()
    assert "moment (unbiased)" in captured.out
    assert "90% confidence interval" in captured.err


def test_estimate_shows_95_percent_intervals_by_default(privatized, tmp_path, capsys):
    table_path = tmp_path / "table.csv"
    assert main(["estimate", str(privatized), "-o", str(table_path)]) == 0
    table = pd.read_csv(table_path).set_index("statistic")
    assert table.loc["mean", "level"] == 0.95
    assert table.loc["q50", "lower"] < table.loc["q50", "value"]
    captured = capsys.readouterr()
    # the terminal says what each interval covers, statistic by statistic
    # (on stderr, with the other notes: stdout is the table alone)
    assert "95% confidence interval" in captured.err
    legend = [line for line in captured.err.splitlines() if "covers" in line]
    assert any("age mean (moment (unbiased)): covers" in line for line in legend)
    assert any("q50" in line for line in legend)
    header = captured.out.splitlines()[0]
    assert "lower" in header and "covers" not in header


def test_the_intervals_flag_does_not_swallow_the_file_name(privatized, capsys):
    assert main(["estimate", "--intervals", str(privatized)]) == 0
    assert "95% confidence interval" in capsys.readouterr().err


def test_no_intervals_keeps_the_estimates_alone(privatized, tmp_path, capsys):
    table_path = tmp_path / "table.csv"
    assert (
        main(["estimate", str(privatized), "--no-intervals", "-o", str(table_path)])
        == 0
    )
    assert list(pd.read_csv(table_path).columns) == ["column", "statistic", "value"]
    captured = capsys.readouterr()
    assert "confidence interval" not in captured.out + captured.err


def test_estimate_refuses_a_level_outside_the_unit_interval(privatized, capsys):
    assert main(["estimate", str(privatized), "--level", "95"]) == 2
    assert "--level" in capsys.readouterr().err
