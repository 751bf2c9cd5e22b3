"""Render maths to SVG at build time with matplotlib's mathtext.

The HTML then shows formulas without loading MathJax from the network and
without a LaTeX installation: each ``:math:`` role and ``.. math::`` block
becomes a small SVG file under ``_images/math/``, aligned on the text
baseline.  mathtext covers the TeX subset used in these docs; a formula it
cannot parse is reported as a Sphinx warning (an error under ``-W``).

Enable with ``extensions = [..., "mathsvg"]`` (instead of
``sphinx.ext.mathjax``); the extension registers itself as the HTML math
renderer.
"""

from __future__ import annotations

import hashlib
import html
import io
import re
import warnings
from pathlib import Path

from docutils import nodes
from sphinx.util import logging

logger = logging.getLogger(__name__)

FONT_SIZE = 12.0  # points, close to the body text of the theme

# TeX spellings mathtext does not know, and the ones it does.
ALIASES = {r"\le": r"\leq", r"\ge": r"\geq", r"\ne": r"\neq"}
_ALIAS_RE = re.compile(r"\\(le|ge|ne)(?![A-Za-z])")


def _normalize(latex: str) -> str:
    latex = " ".join(latex.split())
    return _ALIAS_RE.sub(lambda m: ALIASES["\\" + m.group(1)], latex)


def render_svg(latex: str) -> tuple[bytes, float]:
    """SVG bytes of ``latex`` and its depth below the baseline, in points."""
    from matplotlib import mathtext
    from matplotlib.font_manager import FontProperties

    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        depth = mathtext.math_to_image(
            f"${_normalize(latex)}$",
            buffer,
            prop=FontProperties(size=FONT_SIZE),
            dpi=72,
            format="svg",
        )
    svg = re.sub(rb"<metadata>.*?</metadata>", b"", buffer.getvalue(), flags=re.S)
    return svg, float(depth or 0.0)


def _image(self, node, latex: str) -> tuple[str, float] | None:
    """Write the SVG of ``latex`` once; return its relative URL and depth."""
    try:
        svg, depth = render_svg(latex)
    except Exception as exc:  # mathtext's parse errors are ValueErrors
        first = str(exc).strip().splitlines()
        logger.warning(
            "mathsvg cannot render %r: %s",
            latex,
            first[-1] if first else type(exc).__name__,
            location=node,
        )
        return None
    name = hashlib.sha1(svg).hexdigest()[:16] + ".svg"
    folder = Path(self.builder.outdir) / self.builder.imagedir / "math"
    folder.mkdir(parents=True, exist_ok=True)
    target = folder / name
    if not target.exists():
        target.write_bytes(svg)
    return f"{self.builder.imgpath}/math/{name}", depth


def visit_math(self, node):
    latex = node.astext()
    found = _image(self, node, latex)
    if found is None:
        self.body.append(f'<code class="math">{html.escape(latex)}</code>')
    else:
        url, depth = found
        self.body.append(
            f'<img class="math" src="{url}" alt="{html.escape(latex, quote=True)}"'
            f' style="vertical-align: -{depth:.2f}pt"/>'
        )
    raise nodes.SkipNode


def visit_math_block(self, node):
    latex = node.astext()
    self.body.append(
        self.starttag(node, "div", CLASS="math", style="text-align: center")
    )
    if node.get("number"):
        number = f"({node['number']})"
        self.body.append(f'<span class="eqno">{number}</span>')
    self.body.append("<p>")
    for line in re.split(r"\\\\\s*|\n\s*\n", latex):
        if not line.strip():
            continue
        found = _image(self, node, line)
        if found is None:
            self.body.append(f'<code class="math">{html.escape(line)}</code><br/>')
        else:
            url, _ = found
            alt = html.escape(line, quote=True)
            self.body.append(f'<img class="math" src="{url}" alt="{alt}"/><br/>')
    self.body.append("</p></div>\n")
    raise nodes.SkipNode


def setup(app):
    app.add_html_math_renderer(
        "mathsvg",
        inline_renderers=(visit_math, None),
        block_renderers=(visit_math_block, None),
    )
    return {"version": "1.0", "parallel_read_safe": True, "parallel_write_safe": True}
