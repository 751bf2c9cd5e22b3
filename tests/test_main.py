import subprocess
import sys
from pathlib import Path

from skprivate.__main__ import main

REPO = Path(__file__).resolve().parents[1]


def test_demo_lists_every_family_and_writes_a_report(tmp_path, capsys):
    assert main(["demo", "--out", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    for family in ("interval", "ldp", "subset", "negative_survey", "integral"):
        assert family in out
    assert "Adult 32,561 rows" in out
    assert (tmp_path / "report.html").read_text().startswith("<!DOCTYPE html>")


def test_module_entry_point_runs():
    result = subprocess.run(
        [sys.executable, "-m", "skprivate", "--help"], capture_output=True, text=True
    )
    assert result.returncode == 0 and "demo" in result.stdout


def test_benchmark_runner_lists_benchmarks():
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--list"],
        capture_output=True,
        text=True,
        cwd=REPO,
    )
    assert result.returncode == 0, result.stderr
