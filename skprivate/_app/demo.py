"""The main job: every family end to end on the bundled datasets.

Each family has a section in :mod:`skprivate._app.sections` with a function
``run(context: DemoContext) -> DemoSection``.  :func:`run_demo` runs them in
turn with a progress line, prints one summary (at most 120 columns wide) and,
with ``out``, writes ``report.html`` and the figures.
"""

from __future__ import annotations

import importlib
import sys
import textwrap
import time
import warnings
from pathlib import Path
from typing import Any

from .model import (
    ADULT,
    LIFE,
    DemoContext,
    DemoFigure,
    DemoRow,
    DemoSection,
    DemoTable,
)

__all__ = [
    "ADULT",
    "LIFE",
    "DemoContext",
    "DemoFigure",
    "DemoRow",
    "DemoSection",
    "DemoTable",
    "pyplot",
    "run_demo",
]

#: Widest line the demo prints.
LINE_WIDTH = 120

SECTIONS = ("interval", "ldp", "subset", "negative_survey", "integral")


def pyplot():
    """Return ``matplotlib.pyplot`` on the Agg backend, or None without matplotlib."""
    try:
        import matplotlib
    except ImportError:
        return None
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _sections() -> dict[str, Any]:
    return {
        name: importlib.import_module(f"skprivate._app.sections.{name}")
        for name in SECTIONS
    }


def _progress(i: int, total: int, label: str, stream) -> None:
    width = 24
    filled = int(width * i / max(total, 1))
    stream.write(f"\r[{'#' * filled}{'.' * (width - filled)}] {i}/{total} {label:<20}")
    stream.flush()
    if i == total:
        stream.write("\n")


def _run_section(module, context: DemoContext) -> DemoSection:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        section = module.run(context)
    seen = set()
    for w in caught:
        message = " ".join(str(w.message).split())
        key = (w.category.__name__, message)
        if key not in seen:
            seen.add(key)
            section.notes.append(f"{w.category.__name__}: {message}")
    return section


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

    from .report import INTRO, format_summary, write_report

    stream = sys.stdout if stream is None else stream
    start = time.perf_counter()
    adult = load_adult()
    life = load_life_expectancy()
    print(f"skprivate {__version__}", file=stream)
    print(
        f"Bundled data: {ADULT} {adult.shape[0]:,} rows x {adult.shape[1]} columns; "
        f"{LIFE} {life.shape[0]:,} rows x {life.shape[1]} columns.",
        file=stream,
    )
    print("\nFamilies and their public names:", file=stream)
    for name, module in FAMILIES.items():
        names = ", ".join(module.__all__) or "(no public names yet)"
        print(
            textwrap.fill(
                names,
                LINE_WIDTH,
                initial_indent=f"  {name:<16} ",
                subsequent_indent=" " * 19,
            ),
            file=stream,
        )
    has_plots = pyplot() is not None
    if not has_plots:
        print(
            "\nNote: matplotlib is not installed, so the report has no figures. "
            "Install the 'plot' extra to get them:\n"
            '  pip install "skprivate[plot]"   (from a clone: pip install ".[plot]")',
            file=stream,
        )

    modules = _sections()
    context = DemoContext(
        adult=adult,
        life_expectancy=life,
        random_state=random_state,
        out_dir=Path(out) if out else None,
    )
    sections: list[DemoSection] = []
    for i, (name, module) in enumerate(modules.items()):
        _progress(i, len(modules), name, sys.stderr)
        sections.append(_run_section(module, context))
    _progress(len(modules), len(modules), "done", sys.stderr)

    print("\n" + textwrap.fill(INTRO, LINE_WIDTH) + "\n", file=stream)
    print(format_summary(sections, LINE_WIDTH), file=stream)
    for section in sections:
        for note in section.notes:
            print(
                textwrap.shorten(f"note ({section.family}): {note}", LINE_WIDTH),
                file=stream,
            )
    elapsed = time.perf_counter() - start
    if out:
        path = write_report(
            Path(out),
            sections,
            has_plots=has_plots,
            meta={
                "version": __version__,
                "seed": random_state,
                "seconds": elapsed,
                "adult_shape": adult.shape,
                "life_shape": life.shape,
            },
        )
        print(f"\nReport written to {path}", file=stream)
    print(f"\nFinished in {time.perf_counter() - start:.1f} s.", file=stream)
    return sections
