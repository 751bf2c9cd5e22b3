"""The landing page's quick start prints what its comment says, a sane spread."""

import ast
import contextlib
import io
import re
import warnings
from pathlib import Path

from skprivate.datasets import load_adult
from skprivate.exceptions import PrivacyLeakWarning
from tests.test_readme import _expected, _matches

INDEX = Path(__file__).resolve().parents[1] / "doc" / "index.rst"


def _quick_start():
    text = INDEX.read_text(encoding="utf-8")
    start = text.index(".. code-block:: python", text.index("Quick start"))
    body = text[start:].split("\n\n", 1)[1]
    lines = []
    for line in body.splitlines():
        if line and not line.startswith("    "):
            break
        lines.append(line[4:])
    return "\n".join(lines)


def test_quick_start_density_has_the_clean_spread():
    code = _quick_start()
    lines = code.splitlines()
    tree = ast.parse(code)
    prints = [
        i
        for i, s in enumerate(tree.body)
        if isinstance(s, ast.Expr)
        and getattr(getattr(s.value, "func", None), "id", None) == "print"
    ]
    assert len(prints) == 1
    namespace = {}
    out = io.StringIO()
    with (
        warnings.catch_warnings(record=True) as caught,
        contextlib.redirect_stdout(out),
    ):
        warnings.simplefilter("always")
        # the statements up to the print (the grid search after it is left to
        # tests/test_first_contact.py)
        for stmt in tree.body[: prints[0] + 1]:
            exec(compile(ast.Module([stmt], []), "doc/index.rst", "exec"), namespace)
    assert not [w for w in caught if issubclass(w.category, PrivacyLeakWarning)]
    printed = out.getvalue()
    expected = _expected(lines, tree.body[prints[0]].end_lineno)
    assert expected is not None and _matches(printed, expected), (printed, expected)
    # clean sd 13.64: the estimate's sd within 15 %, its quartiles within 3 years
    age = load_adult()["age"]
    _, sd, *quartiles = map(float, re.findall(r"\d+\.\d+", printed))
    assert abs(sd - age.std()) < 0.15 * age.std()
    assert (
        max(abs(q - c) for q, c in zip(quartiles, age.quantile([0.25, 0.5, 0.75]))) < 3
    )
