"""Text and HTML output of the demo: the terminal summary and ``report.html``."""

from __future__ import annotations

import html
import textwrap
from pathlib import Path
from typing import Any

import pandas as pd

from .model import ADULT, LIFE, DemoSection

__all__ = ["INTRO", "format_summary", "format_text_table", "write_report"]

INTRO = (
    "Each family privatizes a column of a bundled dataset with its mechanism and "
    "then estimates something from the privatized data alone. 'private' is that "
    "estimate and 'interval' its 95% confidence interval; 'clean' is the same "
    "quantity computed from the original data, the "
    "answer one would get without privacy; 'error' says how far apart they are, "
    "in the measure it names (a signed difference private - clean in the row's "
    "unit unless it says ARE = |private - clean| / |clean| or L1 distance). "
    "'privacy' gives the mechanism's setting; its symbols are explained in the "
    "report."
)

_COLUMNS = [
    "dataset",
    "task",
    "privacy",
    "private",
    "interval",
    "clean",
    "error",
    "unit",
]

_CSS = """
body{font-family:system-ui,sans-serif;max-width:72em;margin:2em auto;padding:0 1em;
line-height:1.45;color:#222}
table{border-collapse:collapse;margin:0.8em 0;font-size:0.92em}
th,td{border:1px solid #ccc;padding:3px 8px;vertical-align:top}
th{background:#f2f2f2;text-align:left}
td.num{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}
caption{caption-side:top;text-align:left;font-weight:600;padding:0.3em 0}
figure{margin:1em 0}
figure img{max-width:100%;border:1px solid #eee}
figcaption{font-size:0.92em;color:#444;max-width:60em}
.note{background:#fff4d6;border-left:4px solid #e0a800;padding:0.6em 1em}
.lead{font-size:1.05em;font-weight:500}
.meta{color:#555}
ul.notes{font-size:0.88em;color:#555}
"""


def _wrap_cell(text: str, width: int) -> list[str]:
    lines = textwrap.wrap(str(text), width, break_long_words=True) or [""]
    return lines


def format_text_table(frame: pd.DataFrame, max_width: int = 120, indent: int = 2):
    """Format ``frame`` as plain text no wider than ``max_width``.

    Columns are as wide as their content until the table would be too wide;
    then the widest columns are narrowed and their cells wrapped.
    """
    columns = list(frame.columns)
    cells = [[str(v) for v in row] for row in frame.itertuples(index=False)]
    widths = [
        max([len(str(c))] + [len(row[j]) for row in cells])
        for j, c in enumerate(columns)
    ]
    budget = max_width - indent - 2 * (len(columns) - 1)
    while sum(widths) > budget:
        j = max(range(len(widths)), key=widths.__getitem__)
        widths[j] -= 1
    numeric = [
        all(_looks_numeric(row[j]) for row in cells) for j in range(len(columns))
    ]
    lines = []

    def emit(values):
        wrapped = [_wrap_cell(v, w) for v, w in zip(values, widths)]
        for k in range(max(len(w) for w in wrapped)):
            parts = []
            for j, w in enumerate(widths):
                text = wrapped[j][k] if k < len(wrapped[j]) else ""
                parts.append(text.rjust(w) if numeric[j] else text.ljust(w))
            lines.append((" " * indent + "  ".join(parts)).rstrip())

    emit(columns)
    lines.append(" " * indent + "  ".join("-" * w for w in widths))
    for row in cells:
        emit(row)
    return "\n".join(lines)


def _looks_numeric(text: str) -> bool:
    try:
        float(text.replace(",", ""))
    except ValueError:
        return text == "NA"
    return True


def _frame(rows) -> pd.DataFrame:
    return pd.DataFrame([{c: getattr(r, c) for c in _COLUMNS} for r in rows])


def format_summary(sections: list[DemoSection], max_width: int = 120) -> str:
    """The terminal summary: a table per family and dataset, lines <= max_width."""
    parts = []
    for section in sections:
        frame = _frame(section.rows)
        for dataset, rows in frame.groupby("dataset", sort=False):
            heading = f"{section.family} on {dataset}"
            if section.lead:
                heading += f" -- {section.lead}"
            parts.append(textwrap.fill(heading, max_width, subsequent_indent="  "))
            table = rows.drop(columns="dataset")
            parts.append(format_text_table(table, max_width))
            parts.append("")
    return "\n".join(parts)


def _html_table(frame: pd.DataFrame, caption: str = "", index: bool = False) -> str:
    out = ["<table>"]
    if caption:
        out.append(f"<caption>{html.escape(caption)}</caption>")
    head = ([frame.index.name or ""] if index else []) + [str(c) for c in frame]
    out.append(
        "<thead><tr>" + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>"
    )
    out.append("</thead><tbody>")
    for label, row in frame.iterrows():
        cells = [f"<th>{html.escape(str(label))}</th>"] if index else []
        for value in row:
            text = _cell(value)
            cls = " class='num'" if _looks_numeric(text) else ""
            cells.append(f"<td{cls}>{html.escape(text)}</td>")
        out.append("<tr>" + "".join(cells) + "</tr>")
    out.append("</tbody></table>")
    return "\n".join(out)


def _cell(value: Any) -> str:
    if isinstance(value, float):
        if value != value:  # NaN
            return "NA"
        return f"{value:,.4g}" if abs(value) < 1e4 else f"{value:,.0f}"
    return str(value)


def _intro_html(sections, has_plots: bool, meta: dict) -> str:
    n_adult, c_adult = meta["adult_shape"]
    n_life, c_life = meta["life_shape"]
    parts = [
        "<section id='intro'><h2>How to read this report</h2>",
        "<p>skprivate implements five families of local privacy. For each, this "
        "report privatizes a column of a bundled dataset with the family's "
        "mechanism, as a data collector would, and then estimates something from "
        "the privatized data alone, as an analyst would. Datasets: "
        f"<b>{html.escape(ADULT)}</b> ({n_adult:,} people, {c_adult} columns) and "
        f"<b>{html.escape(LIFE)}</b> ({n_life:,} country-years, {c_life} "
        "columns).</p>",
        "<table><caption>Columns of every results table</caption>"
        "<thead><tr><th>column</th><th>meaning</th></tr></thead><tbody>",
    ]
    meanings = [
        ("task", "what is estimated, and how"),
        (
            "privacy",
            "the mechanism's setting; its symbols are listed in the next table",
        ),
        ("private", "the estimate computed from the privatized data only"),
        (
            "interval",
            "the 95% confidence interval of the private estimate, also computed "
            "from the privatized data only (conf_int: the method right for the "
            "estimator); empty where the quantity has none. Some methods centre "
            "it on their own estimate (a bias-corrected one for the "
            "deconvolution density), so it need not contain 'private'",
        ),
        (
            "clean",
            "the same quantity computed from the original data: the answer "
            "without privacy, the target of the private estimate",
        ),
        (
            "error",
            "how far 'private' is from 'clean' in the measure it names: a signed "
            "difference private − clean in the row's unit, ARE = |private − clean| "
            "/ |clean| (absolute relative error), or the L1 distance between two "
            "distributions (0 = identical, 2 = disjoint)",
        ),
        ("unit", "the unit of 'private' and 'clean'"),
    ]
    for name, meaning in meanings:
        parts.append(
            f"<tr><th>{html.escape(name)}</th><td>{html.escape(meaning)}</td></tr>"
        )
    parts.append("</tbody></table>")
    parts.append(
        "<table><caption>Symbols in the privacy settings</caption><thead><tr>"
        "<th>family</th><th>symbol</th><th>meaning</th></tr></thead><tbody>"
    )
    for section in sections:
        for symbol, meaning in section.glossary.items():
            parts.append(
                f"<tr><td>{html.escape(section.family)}</td>"
                f"<td>{html.escape(symbol)}</td><td>{html.escape(meaning)}</td></tr>"
            )
    parts.append("</tbody></table>")
    if not has_plots:
        parts.append(
            "<p class='note' id='no-figures'><b>Figures are missing:</b> "
            "matplotlib is not installed. Install the <code>plot</code> extra "
            '(<code>pip install "skprivate[plot]"</code>, or '
            '<code>pip install ".[plot]"</code> from a clone) and run the demo '
            "again to get them.</p>"
        )
    parts.append("</section>")
    return "\n".join(parts)


def write_report(
    out: Path,
    sections: list[DemoSection],
    *,
    has_plots: bool = True,
    meta: dict | None = None,
) -> Path:
    """Write ``report.html`` and one PNG per figure into ``out``."""
    meta = {
        "version": "",
        "seed": 0,
        "seconds": float("nan"),
        "adult_shape": (0, 0),
        "life_shape": (0, 0),
        **(meta or {}),
    }
    out.mkdir(parents=True, exist_ok=True)
    parts = [
        "<!DOCTYPE html>",
        "<html lang='en'><head><meta charset='utf-8'>",
        "<meta name='viewport' content='width=device-width, initial-scale=1'>",
        "<title>skprivate demo report</title>",
        f"<style>{_CSS}</style></head><body>",
        "<h1>skprivate demo report</h1>",
        f"<p class='meta'>skprivate {html.escape(str(meta['version']))}, random "
        f"seed {meta['seed']}, computed in {meta['seconds']:.0f} s.</p>",
        _intro_html(sections, has_plots, meta),
        "<h2>Summary</h2>",
        "<p>Every private answer of every family next to its clean answer. The "
        "sections below explain each family's numbers.</p>",
    ]
    summary = pd.concat(
        [_frame(s.rows).assign(family=s.family) for s in sections], ignore_index=True
    )
    parts.append(_html_table(summary[["family", *_COLUMNS]]))
    for section in sections:
        title = section.title or section.family
        parts.append(f"<section id='{html.escape(section.family)}'>")
        parts.append(f"<h2>{html.escape(section.family)}: {html.escape(title)}</h2>")
        if section.lead:
            parts.append(f"<p class='lead'>{html.escape(section.lead)}</p>")
        if section.text:
            for paragraph in section.text.split("\n\n"):
                parts.append(f"<p>{html.escape(paragraph)}</p>")
        parts.append(
            _html_table(_frame(section.rows), caption=f"{section.family}: results")
        )
        for table in section.tables:
            parts.append(_html_table(table.frame, caption=table.title, index=True))
            if table.caption:
                parts.append(f"<p>{html.escape(table.caption)}</p>")
        for name, fig in section.figures.items():
            filename = f"{section.family}_{name}.png"
            fig.figure.savefig(out / filename, dpi=100, bbox_inches="tight")
            parts.append(
                f"<figure><img src='{html.escape(filename)}' "
                f"alt='{html.escape(fig.caption)}'>"
                f"<figcaption>{html.escape(fig.caption)}</figcaption></figure>"
            )
        if not section.figures and not has_plots:
            parts.append(
                "<p class='note'>No figure: matplotlib is not installed "
                "(see the note at the top).</p>"
            )
        if section.notes:
            parts.append("<p>Warnings raised while computing this section:</p>")
            parts.append(
                "<ul class='notes'>"
                + "".join(f"<li>{html.escape(n)}</li>" for n in section.notes)
                + "</ul>"
            )
        parts.append("</section>")
    parts.append("</body></html>")
    path = out / "report.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    try:  # free the figures' memory once written
        import matplotlib.pyplot as plt

        for section in sections:
            for fig in section.figures.values():
                plt.close(fig.figure)
    except ImportError:
        pass
    return path
