"""The README's tour runs as written."""

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
