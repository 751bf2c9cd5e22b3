"""``python -m skprivate estimate --intervals``: intervals next to the estimates."""

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
    code = main(
        ["estimate", str(privatized), "--intervals", "0.9", "-o", str(table_path)]
    )
    assert code == 0
    table = pd.read_csv(table_path).set_index("statistic")
    assert {"centre", "lower", "upper", "level", "method"} <= set(table.columns)
    mean = table.loc["mean"]
    assert mean["level"] == 0.9 and mean["method"] == "moment (unbiased)"
    assert mean["lower"] < mean["centre"] < mean["upper"]
    assert table.loc["q50", "lower"] < table.loc["q50", "upper"]
    assert np.isnan(table.loc["std", "lower"])  # no interval for the SD
    assert "moment (unbiased)" in capsys.readouterr().out


def test_estimate_without_intervals_keeps_its_columns(privatized, tmp_path):
    table_path = tmp_path / "table.csv"
    assert main(["estimate", str(privatized), "-o", str(table_path)]) == 0
    assert list(pd.read_csv(table_path).columns) == ["column", "statistic", "value"]


def test_estimate_refuses_a_level_outside_the_unit_interval(privatized, capsys):
    assert main(["estimate", str(privatized), "--intervals", "95"]) == 2
    assert "--intervals" in capsys.readouterr().err
