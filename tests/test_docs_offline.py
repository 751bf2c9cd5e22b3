"""The documentation renders its maths without network access or LaTeX."""

import importlib.util
import re
from pathlib import Path

import pytest

pytest.importorskip("matplotlib")
# The renderer is a Sphinx extension: with the docs extra installed (as in
# CI's documentation step) every formula is checked here before the build.
pytest.importorskip("sphinx")

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [
    *ROOT.joinpath("skprivate").rglob("*.py"),
    *ROOT.joinpath("doc").rglob("*.rst"),
    *ROOT.joinpath("examples").rglob("*.py"),
]


def _mathsvg():
    path = ROOT / "doc" / "_ext" / "mathsvg.py"
    spec = importlib.util.spec_from_file_location("mathsvg", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _formulas():
    found = set()
    for path in SOURCES:
        text = path.read_text(encoding="utf-8")
        if path.suffix == ".py":
            text = text.replace("\\\\", "\\")
        found.update(re.findall(r":math:`([^`]*)`", text))
        for block in re.findall(r"\.\. math::\s*\n((?:\s*\n|[ \t]+\S.*\n)+)", text):
            found.add(block)
    return sorted(found)


def test_every_formula_of_the_docs_renders_to_svg():
    mathsvg = _mathsvg()
    formulas = _formulas()
    assert len(formulas) > 20
    failed = []
    for latex in formulas:
        for line in re.split(r"\\\\\s*|\n\s*\n", latex):
            if line.strip():
                try:
                    svg, _ = mathsvg.render_svg(line)
                except Exception as exc:
                    failed.append(f"{line!r}: {exc}")
                else:
                    assert svg.startswith(b"<?xml") and b"<svg" in svg
    assert not failed, "\n".join(failed)


def test_docs_do_not_load_mathjax_from_the_network():
    conf = (ROOT / "doc" / "conf.py").read_text(encoding="utf-8")
    assert "sphinx.ext.mathjax" not in conf
    assert 'html_math_renderer = "mathsvg"' in conf
