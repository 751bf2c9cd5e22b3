"""The documentation works offline: maths without network access or LaTeX,
and built pages that load nothing from the network.

The built pages are checked in the directory named by ``SKPRIVATE_DOCS_HTML``
(after ``python -m sphinx -b html doc doc/_build/html``, for instance), or in
``doc/_build/html`` when it exists; with neither, that test is skipped.
"""

import importlib.util
import os
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = [
    *ROOT.joinpath("skprivate").rglob("*.py"),
    *ROOT.joinpath("doc").rglob("*.rst"),
    *ROOT.joinpath("examples").rglob("*.py"),
]


def _needs_sphinx():
    # The renderer is a Sphinx extension: with the docs extra installed (as in
    # CI's documentation step) every formula is checked here before the build.
    pytest.importorskip("matplotlib")
    pytest.importorskip("sphinx")


def _mathsvg():
    _needs_sphinx()
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
    _needs_sphinx()
    conf = (ROOT / "doc" / "conf.py").read_text(encoding="utf-8")
    assert "sphinx.ext.mathjax" not in conf
    assert 'html_math_renderer = "mathsvg"' in conf


# Attributes through which a browser fetches a resource when it renders a
# page (an <a href> is followed only on a click).
_FETCHED = {
    "script": ("src",),
    "img": ("src", "srcset"),
    "iframe": ("src",),
    "frame": ("src",),
    "embed": ("src",),
    "object": ("data",),
    "source": ("src", "srcset"),
    "audio": ("src",),
    "video": ("src", "poster"),
    "track": ("src",),
    "input": ("src",),
    "image": ("href", "xlink:href"),  # inline SVG
    "use": ("href", "xlink:href"),
}
# <link rel=...> kinds that load something (a stylesheet, an icon, a font...)
_LOADING_LINKS = {
    "stylesheet",
    "icon",
    "shortcut",
    "apple-touch-icon",
    "preload",
    "prefetch",
    "modulepreload",
    "manifest",
    "import",
}
_REMOTE = re.compile(r"^\s*(?:https?:)?//", re.I)
_CSS_URL = re.compile(
    r"""(?:url\(\s*['"]?|@import\s+['"])\s*((?:https?:)?//[^'")\s]+)""", re.I
)


class _Resources(HTMLParser):
    """Collect the remote resources a browser would load for one page."""

    def __init__(self):
        super().__init__()
        self.remote = []
        self._in_style = False

    def handle_starttag(self, tag, attrs):
        attrs = {k.lower(): v or "" for k, v in attrs}
        if tag == "style":
            self._in_style = True
        names = list(_FETCHED.get(tag, ()))
        rel = set(attrs.get("rel", "").lower().split())
        if tag == "link" and rel & _LOADING_LINKS:
            names.append("href")
        for name in names:
            for url in re.split(r",\s*", attrs.get(name, "")):
                if _REMOTE.match(url):
                    self.remote.append(f"<{tag} {name}={url.split()[0]}>")
        for url in _CSS_URL.findall(attrs.get("style", "")):
            self.remote.append(f"<{tag} style> {url}")

    handle_startendtag = handle_starttag

    def handle_endtag(self, tag):
        if tag == "style":
            self._in_style = False

    def handle_data(self, data):
        if self._in_style:
            self.remote.extend(f"<style> {url}" for url in _CSS_URL.findall(data))


def network_resources(html_dir):
    """Remote resources (scripts, stylesheets, images, frames...) of a build.

    Returns ``{relative path: [resource, ...]}`` for every HTML page and
    stylesheet under ``html_dir`` that would make a browser reach the network.
    """
    found = {}
    html_dir = Path(html_dir)
    for path in sorted(html_dir.rglob("*.html")):
        parser = _Resources()
        parser.feed(path.read_text(encoding="utf-8", errors="replace"))
        if parser.remote:
            found[path.relative_to(html_dir).as_posix()] = parser.remote
    for path in sorted(html_dir.rglob("*.css")):
        urls = _CSS_URL.findall(path.read_text(encoding="utf-8", errors="replace"))
        if urls:
            found[path.relative_to(html_dir).as_posix()] = urls
    return found


def test_remote_resources_are_found(tmp_path):
    # among them, what the gallery's execution-times pages used to load
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "times.html").write_text(
        "<html><head><style scoped>"
        '<link href="https://cdn.example.org/b.css" rel="stylesheet" />'
        "</style>"
        '<script src="https://code.jquery.com/jquery-3.7.0.js"></script>'
        '<link rel="stylesheet" href="//cdn.example.org/t.css">'
        "</head><body><img src='http://example.org/a.png'>"
        '<div style="background: url(https://example.org/bg.png)"></div>'
        "<style>@import 'https://fonts.example.org/f.css';</style>"
        '<a href="https://example.org/page">a link is not loaded</a>'
        '<link rel="canonical" href="https://example.org/page">'
        '<script src="_static/local.js"></script>'
        '<img src="data:image/png;base64,AA">'
        "</body></html>",
        encoding="utf-8",
    )
    (tmp_path / "theme.css").write_text(
        "body { background: url('https://example.org/x.png') }", encoding="utf-8"
    )
    (tmp_path / "clean.html").write_text(
        '<script src="_static/a.js"></script><a href="https://x.org">x</a>',
        encoding="utf-8",
    )
    found = network_resources(tmp_path)
    assert set(found) == {"sub/times.html", "theme.css"}
    page = " ".join(found["sub/times.html"])
    for url in [
        "https://code.jquery.com/jquery-3.7.0.js",
        "//cdn.example.org/t.css",
        "http://example.org/a.png",
        "https://example.org/bg.png",
        "https://fonts.example.org/f.css",
    ]:
        assert url in page
    assert "example.org/page" not in page and "local.js" not in page
    assert len(found["sub/times.html"]) == 5


def test_built_docs_load_nothing_from_the_network():
    explicit = os.environ.get("SKPRIVATE_DOCS_HTML")
    html_dir = Path(explicit) if explicit else ROOT / "doc" / "_build" / "html"
    if not (html_dir / "index.html").is_file():
        if explicit:
            pytest.fail(f"SKPRIVATE_DOCS_HTML={explicit} holds no built index.html")
        pytest.skip("no built documentation (set SKPRIVATE_DOCS_HTML)")
    assert len(list(html_dir.rglob("*.html"))) > 20
    assert network_resources(html_dir) == {}
