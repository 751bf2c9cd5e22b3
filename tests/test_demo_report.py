"""The demo's report and terminal output, checked the way a reader meets them.

The HTML is parsed with the standard library's parser: an introduction, real
tables, captions, images that exist; figures never draw a missing answer as 0;
no printed line is wider than 120 columns.
"""

import re
from html.parser import HTMLParser
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from skprivate._app import demo as demo_module
from skprivate._app.demo import DemoRow, DemoSection, DemoTable, run_demo
from skprivate._app.report import format_text_table, write_report


class _Report(HTMLParser):
    """Collect the parts of report.html a test looks at."""

    def __init__(self):
        super().__init__()
        self.stack = []
        self.tables = []  # each: list of rows, each a list of cell texts
        self.images = []
        self.captions = []
        self.paragraphs = []
        self.ids = set()
        self.tags = set()
        self.sections = []  # ids of the enclosing <section> elements
        self.table_sections = []  # the innermost section id of each table
        self.caption_sections = []  # the same for each figure caption
        self._text = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        self.tags.add(tag)
        if "id" in attrs:
            self.ids.add(attrs["id"])
        if tag == "section":
            self.sections.append(attrs.get("id"))
        section = self.sections[-1] if self.sections else None
        if tag == "table":
            self.tables.append([])
            self.table_sections.append(section)
        elif tag == "tr":
            self.tables[-1].append([])
        elif tag == "img":
            self.images.append({**attrs, "section": section})
        if tag in ("td", "th", "p", "figcaption", "caption"):
            self._text = []
        self.stack.append(tag)

    def handle_endtag(self, tag):
        text = " ".join("".join(self._text).split())
        if tag in ("td", "th") and self.tables and self.tables[-1]:
            self.tables[-1][-1].append(text)
        elif tag == "p":
            self.paragraphs.append(text)
        elif tag == "figcaption":
            self.captions.append(text)
            self.caption_sections.append(self.sections[-1] if self.sections else None)
        elif tag == "section" and self.sections:
            self.sections.pop()
        if self.stack and self.stack[-1] == tag:
            self.stack.pop()

    def handle_data(self, data):
        self._text.append(data)


def _parse(path: Path) -> _Report:
    parser = _Report()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser


def _check_report(out: Path, stdout: str) -> _Report:
    report = _parse(out / "report.html")
    assert "intro" in report.ids
    intro = " ".join(report.paragraphs[:3]) + " ".join(
        " ".join(row) for table in report.tables[:2] for row in table
    )
    for word in ("private", "clean", "error", "privacy"):
        assert word in intro
    assert "pre" not in report.tags  # numbers live in tables, not preformatted text
    assert all(len(p) < 1500 for p in report.paragraphs)
    results = [t for t in report.tables if t and {"private", "clean"} <= set(t[0])]
    assert results, "no results table"
    for table in results:
        header = table[0]
        assert {"private", "clean", "error", "unit"} <= set(header)
        assert all(len(row) == len(header) for row in table[1:])
    for image in report.images:
        assert (out / image["src"]).is_file(), image["src"]
        assert image.get("alt")
    assert len(report.captions) == len(report.images)
    too_wide = [line for line in stdout.splitlines() if len(line) > 120]
    assert not too_wide, too_wide
    return report


def _fake_section(context):
    rows = [
        DemoRow("fake", demo_module.LIFE, "mean", "t=3", "NA", "1.50", "NA", "years"),
        DemoRow("fake", demo_module.ADULT, "median " * 30, "t=3", "2", "2", "+0", "x"),
    ]
    section = DemoSection(
        "fake",
        rows,
        title="a fake family",
        lead="One line.",
        glossary={"t": "resamples"},
        tables=[DemoTable("describe", pd.DataFrame({"a": [1.0, np.nan]}))],
    )
    plt = demo_module.pyplot()
    if plt is not None:
        fig, ax = plt.subplots()
        ax.bar([0], [1.0])
        section.figures["bars"] = demo_module.DemoFigure(
            fig, "What to look for.", pd.DataFrame({"are": [np.nan, 1.0]})
        )
    return section


class _FakeModule:
    run = staticmethod(_fake_section)


@pytest.mark.parametrize("with_matplotlib", [True, False])
def test_runner_report_structure_with_and_without_matplotlib(
    tmp_path, capsys, monkeypatch, with_matplotlib
):
    monkeypatch.setattr(demo_module, "_sections", lambda: {"fake": _FakeModule})
    if not with_matplotlib:
        monkeypatch.setattr(demo_module, "pyplot", lambda: None)
    run_demo(out=str(tmp_path), random_state=0)
    stdout = capsys.readouterr().out
    report = _check_report(tmp_path, stdout)
    missing_note = "matplotlib is not installed"
    if with_matplotlib:
        assert len(report.images) == 1
        assert report.images[0]["src"] == "fake_bars.png"
        assert missing_note not in stdout
    else:
        assert not report.images
        assert missing_note in stdout and "skprivate[plot]" in stdout
        assert "no-figures" in report.ids
        assert any(missing_note in p and "plot" in p for p in report.paragraphs)
    # a missing answer shows as NA in the tables, never as 0
    cells = [c for t in report.tables for row in t for c in row]
    assert "NA" in cells


def test_text_table_wraps_to_the_width():
    frame = pd.DataFrame({"task": ["word " * 60], "private": ["1.0"]})
    text = format_text_table(frame, max_width=60)
    assert max(len(line) for line in text.splitlines()) <= 60
    assert "1.0" in text


def test_write_report_without_figures_has_a_note(tmp_path):
    section = DemoSection("x", [DemoRow("x", "d", "t", "p", "1", "1", "0", "u")])
    write_report(tmp_path, [section], has_plots=False)
    report = _parse(tmp_path / "report.html")
    assert "no-figures" in report.ids


@pytest.fixture(scope="module")
def full_demo(tmp_path_factory):
    out = tmp_path_factory.mktemp("demo")
    import io

    stream = io.StringIO()
    sections = run_demo(out=str(out), random_state=0, stream=stream)
    return out, stream.getvalue(), sections


def test_full_demo_report(full_demo):
    out, stdout, sections = full_demo
    assert "Adult census (UCI) 32,561 rows" in stdout
    for family in ("interval", "ldp", "subset", "negative_survey", "integral"):
        assert family in stdout
    report = _check_report(out, stdout)
    assert (out / "report.html").read_text().startswith("<!DOCTYPE html>")
    assert len(report.images) == sum(len(s.figures) for s in sections) >= 5
    for image in report.images:  # file names say family and subject once
        family = next(f for f in demo_module.SECTIONS if image["src"].startswith(f))
        assert family not in image["src"][len(family) :]
    datasets = {row.dataset for s in sections for row in s.rows}
    assert datasets == {demo_module.ADULT, demo_module.LIFE}


def test_full_demo_never_draws_a_missing_answer_as_zero(full_demo):
    _, _, sections = full_demo
    integral = next(s for s in sections if s.family == "integral")
    data = integral.figures["life_expectancy_are"].data
    ip = data[data["method"] == "integral privacy"]
    missing = [r for r in integral.rows if r.private == "NA"]
    assert missing, "the demo is expected to show at least one NA answer"
    for row in missing:
        statistic, _, column = row.task.partition(" of ")
        value = ip[(ip["statistic"] == statistic) & (ip["column"] == column)]["are"]
        assert value.isna().all(), row.task
    described = next(t for t in integral.tables if "Integrally private" in t.title)
    assert described.frame.isna().sum().sum() == ip["are"].isna().sum()


def test_full_demo_declares_what_it_privatizes(full_demo):
    # categories and bounds are declared, never read from the data, so the
    # library's own PrivacyLeakWarning never shows in the report
    _, stdout, sections = full_demo
    notes = [n for s in sections for n in s.notes]
    assert not [n for n in notes if n.startswith("PrivacyLeakWarning")], notes
    assert "PrivacyLeakWarning" not in stdout


def test_full_demo_explains_the_baselines_missing_answers(full_demo):
    out, _, sections = full_demo
    integral = next(s for s in sections if s.family == "integral")
    table = next(t for t in integral.tables if t.title.startswith("Laplace DP"))
    missing = [
        f"{statistic} of {column}"
        for statistic in table.frame.index
        for column in table.frame.columns
        if np.isnan(table.frame.loc[statistic, column])
    ]
    assert missing, "the demo is expected to show the baseline's NA"
    assert "propose-test-release" in table.caption
    for cell in missing:
        assert cell in table.caption
    # the explanation is printed under the table in the report
    report = _parse(out / "report.html")
    assert table.caption.split(" Here")[0] in " ".join(report.paragraphs)


def test_full_demo_subset_legend_leaves_the_bars_visible(full_demo):
    _, _, sections = full_demo
    subset = next(s for s in sections if s.family == "subset")
    fig = subset.figures["adult_race_shares"].figure
    # the report closed the figure; draw it again on its own canvas
    from matplotlib.backends.backend_agg import FigureCanvasAgg

    canvas = FigureCanvasAgg(fig)
    canvas.draw()
    renderer = canvas.get_renderer()
    (ax,) = fig.axes
    legend = ax.get_legend().get_window_extent(renderer)
    bars = [p.get_window_extent(renderer) for p in ax.patches]
    assert len(bars) == 25  # 5 races x (clean + 4 estimators)
    assert not [b for b in bars if legend.overlaps(b)]


def test_full_demo_negative_survey_shows_intervals_and_a_band(full_demo):
    # the report's negative-survey section prints the intervals of the mean
    # and the median and draws a 95% band whose caption names its target
    out, _, sections = full_demo
    report = _parse(out / "report.html")
    tables = [
        t
        for t, where in zip(report.tables, report.table_sections)
        if where == "negative_survey" and t and "interval" in t[0]
    ]
    assert len(tables) == 1
    header, *rows = tables[0]
    task, interval = header.index("task"), header.index("interval")
    cells = {row[task].split(" of ")[0]: row[interval] for row in rows}
    for name in ("mean", "median"):
        # "[lower, upper]", and " around c" when the interval is built around
        # an estimate of its own that differs from the printed one
        match = re.fullmatch(
            r"\[(\d+\.\d\d), (\d+\.\d\d)\]( around (\d+\.\d\d))?", cells[name]
        )
        assert match, (name, cells[name])
        lower, upper = float(match.group(1)), float(match.group(2))
        assert 17 < lower < upper < 90, (name, cells[name])
        if match.group(4) is not None:
            assert lower <= float(match.group(4)) <= upper, (name, cells[name])
    captions = [
        c
        for c, where in zip(report.captions, report.caption_sections)
        if where == "negative_survey" and "95%" in c
    ]
    assert len(captions) == 1, captions
    assert "bias removed" in captions[0] and "true distribution" in captions[0]
    assert any(
        i["section"] == "negative_survey" and i["src"].endswith("_cdf.png")
        for i in report.images
    )
    section = next(s for s in sections if s.family == "negative_survey")
    figure = section.figures["adult_age_cdf"]
    band = figure.data
    assert len(band) >= 50
    assert (band["lower"] <= band["reconstructed"] + 1e-12).all()
    assert (band["reconstructed"] <= band["upper"] + 1e-12).all()
    assert (band["upper"] - band["lower"]).max() > 0.01
    # the band is drawn: a filled area of the top panel spans the intervals
    from matplotlib.collections import PolyCollection

    top = figure.figure.axes[0]
    (fill,) = [c for c in top.collections if isinstance(c, PolyCollection)]
    heights = np.concatenate([p.vertices[:, 1] for p in fill.get_paths()])
    assert heights.max() == pytest.approx(band["upper"].max())
    assert heights.min() == pytest.approx(band["lower"].min())
