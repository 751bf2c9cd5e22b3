import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


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
