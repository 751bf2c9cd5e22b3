"""The main job: every installed family end to end on the bundled datasets.

Each family contributes a section by providing ``skprivate/<family>/_demo.py``
with a function ``run(context: DemoContext) -> DemoSection``.  The demo
imports those modules, runs them in turn with a progress line, prints one
summary table and, with ``--out``, writes ``report.html`` and the figures.
"""

from __future__ import annotations

import html
import importlib
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = ["DemoContext", "DemoRow", "DemoSection", "run_demo"]


@dataclass
class DemoRow:
    """One line of the summary: a private answer next to the clean one."""

    family: str
    dataset: str
    task: str
    privacy: str
    private: str
    clean: str
    error: str


@dataclass
class DemoSection:
    """What a family's demo returns."""

    family: str
    rows: list[DemoRow]
    figures: dict[str, Any] = field(default_factory=dict)  # name -> matplotlib Figure
    text: str = ""


@dataclass
class DemoContext:
    """Inputs shared by every family's demo."""

    adult: pd.DataFrame
    life_expectancy: pd.DataFrame
    random_state: int = 0
    out_dir: Path | None = None


def _family_demos() -> dict[str, Any]:
    from skprivate import FAMILIES

    demos = {}
    for name in FAMILIES:
        try:
            demos[name] = importlib.import_module(f"skprivate.{name}._demo")
        except ModuleNotFoundError as exc:
            if exc.name != f"skprivate.{name}._demo":
                raise
            demos[name] = None
    return demos


def _progress(i: int, total: int, label: str) -> None:
    stream = sys.stderr
    width = 24
    filled = int(width * i / max(total, 1))
    stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {i}/{total} {label:<40}")
    stream.flush()
    if i == total:
        stream.write("\n")


def _format_table(rows: list[DemoRow]) -> str:
    frame = pd.DataFrame([r.__dict__ for r in rows])
    return frame.to_string(index=False)


def _write_report(out: Path, sections: list[DemoSection], summary: str) -> Path:
    out.mkdir(parents=True, exist_ok=True)
    parts = [
        "<!DOCTYPE html><html><head><meta charset='utf-8'>",
        "<title>skprivate demo</title>",
        "<style>body{font-family:sans-serif;max-width:60em;margin:auto}"
        "table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:4px}"
        "</style></head><body><h1>skprivate demo</h1>",
    ]
    if sections:
        rows = [r for s in sections for r in s.rows]
        frame = pd.DataFrame([r.__dict__ for r in rows])
        parts.append("<h2>Summary</h2>" + frame.to_html(index=False, escape=True))
    else:
        parts.append(f"<pre>{html.escape(summary)}</pre>")
    for section in sections:
        parts.append(f"<h2>{html.escape(section.family)}</h2>")
        if section.text:
            parts.append(f"<p>{html.escape(section.text)}</p>")
        for name, fig in section.figures.items():
            filename = f"{section.family}_{name}.png"
            fig.savefig(out / filename, dpi=100, bbox_inches="tight")
            parts.append(f"<img src='{filename}' alt='{html.escape(name)}'>")
    parts.append("</body></html>")
    path = out / "report.html"
    path.write_text("\n".join(parts), encoding="utf-8")
    return path


def run_demo(
    out: str | None = None, random_state: int = 0, stream=None
) -> list[DemoSection]:
    """Run every family's demo section and print the summary.

    Parameters
    ----------
    out : str, optional
        Folder for ``report.html`` and the figures.
    random_state : int, default=0
        Seed shared by every section.
    stream : file-like, optional
        Where the summary is printed (default: the current ``sys.stdout``).

    Returns
    -------
    sections : list of DemoSection
    """
    from skprivate import FAMILIES, __version__
    from skprivate.datasets import load_adult, load_life_expectancy

    stream = sys.stdout if stream is None else stream
    start = time.perf_counter()
    adult = load_adult()
    life = load_life_expectancy()
    print(f"skprivate {__version__}", file=stream)
    print(
        f"Bundled data: Adult {adult.shape[0]:,} rows x {adult.shape[1]} columns; "
        f"life expectancy {life.shape[0]:,} rows x {life.shape[1]} columns.",
        file=stream,
    )
    print("\nFamilies:", file=stream)
    demos = _family_demos()
    for name, module in FAMILIES.items():
        public = ", ".join(module.__all__) or "(no public estimators yet)"
        status = "demo section" if demos[name] is not None else "no demo section yet"
        print(f"  {name:<16} {status:<20} {public}", file=stream)

    runnable = [(name, mod) for name, mod in demos.items() if mod is not None]
    context = DemoContext(
        adult=adult,
        life_expectancy=life,
        random_state=random_state,
        out_dir=Path(out) if out else None,
    )
    sections: list[DemoSection] = []
    for i, (name, module) in enumerate(runnable):
        _progress(i, len(runnable), name)
        sections.append(module.run(context))
    if runnable:
        _progress(len(runnable), len(runnable), "done")
    summary = ""
    if sections:
        summary = _format_table([r for s in sections for r in s.rows])
        print("\nSummary (private answer vs the clean-data answer):\n", file=stream)
        print(summary, file=stream)
    else:
        print("\nNo family provides a demo section yet.", file=stream)
    if out:
        path = _write_report(Path(out), sections, summary)
        print(f"\nReport written to {path}", file=stream)
    print(f"\nFinished in {time.perf_counter() - start:.1f} s.", file=stream)
    return sections
