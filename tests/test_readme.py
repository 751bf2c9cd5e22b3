"""The README's tour runs as written."""

import re
from pathlib import Path

import matplotlib

README = Path(__file__).resolve().parents[1] / "README.md"


def test_readme_tour_runs(capsys):
    text = README.read_text(encoding="utf-8")
    start = text.index("```python", text.index("## A short tour")) + len("```python")
    code = text[start : text.index("```", start)]
    matplotlib.use("Agg")
    exec(compile(code, "README.md", "exec"), {})
    out = capsys.readouterr().out
    assert "privatizer__scale" in out and "count" in out
    assert "np.float64(" not in out  # numbers print as plain numbers
    # P(>50K | education = 9, 16): clean 0.16 and 0.74; the comment states
    # the printed 0.17 and 0.70 (issue 16 asks for 16 within 0.15).
    p9, p16 = map(float, re.search(r"^\[\s*([\d.]+)\s+([\d.]+)\]$", out, re.M).groups())
    assert abs(p9 - 0.16) < 0.05 and abs(p16 - 0.74) < 0.15
    assert round(p9, 2) == 0.17 and round(p16, 2) == 0.70
