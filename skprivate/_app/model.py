"""What a demo section returns: its rows, figures and tables.

Shared by :mod:`skprivate._app.demo`, which runs the sections, and
:mod:`skprivate._app.report`, which writes them out; the sections build
these objects.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pandas as pd

__all__ = [
    "ADULT",
    "LIFE",
    "DemoContext",
    "DemoFigure",
    "DemoRow",
    "DemoSection",
    "DemoTable",
]

#: Display names of the bundled datasets, used everywhere in the demo.
ADULT = "Adult census (UCI)"
LIFE = "life expectancy (Gapminder)"


@dataclass
class DemoRow:
    """One line of the summary: a private answer next to the clean one.

    ``private`` is computed from privatized data only, ``clean`` is the same
    quantity computed from the original data, ``error`` says how far apart
    they are in the measure it names, and ``unit`` is the unit of
    ``private`` and ``clean``.  ``interval`` is the 95% confidence interval
    of the private estimate (``conf_int``, from the privatized data only),
    empty where the estimate has none.
    """

    family: str
    dataset: str
    task: str
    privacy: str
    private: str
    clean: str
    error: str
    unit: str = ""
    interval: str = ""


@dataclass
class DemoFigure:
    """A figure with the caption saying what to look for.

    ``data`` holds the numbers drawn (missing answers stay NaN, they are
    never drawn as 0).
    """

    figure: Any
    caption: str
    data: pd.DataFrame | None = None


@dataclass
class DemoTable:
    """An extra table of a section (e.g. a full ``describe()``)."""

    title: str
    frame: pd.DataFrame
    caption: str = ""


@dataclass
class DemoSection:
    """What a family's section returns."""

    family: str
    rows: list[DemoRow]
    figures: dict[str, DemoFigure] = field(default_factory=dict)
    text: str = ""
    title: str = ""
    lead: str = ""
    glossary: dict[str, str] = field(default_factory=dict)
    tables: list[DemoTable] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


@dataclass
class DemoContext:
    """Inputs shared by every section."""

    adult: pd.DataFrame
    life_expectancy: pd.DataFrame
    random_state: int = 0
    out_dir: Path | None = None
