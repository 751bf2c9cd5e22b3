"""Regenerate the screenshots of the respondent's page in the user guide.

Serves the demo survey (``python -m skprivate survey demo``) on a free local
port with an empty SQLite file, opens one respondent's page in headless
Chromium (Debian's ``/usr/bin/chromium``, driven by Playwright), answers it
with fixed values, submits it with one answer out of its range and takes two
screenshots of that state, the error summary on top:

* ``doc/_static/survey_page_desktop.png``: the whole page, 1280 px wide;
* ``doc/_static/survey_page_mobile.png``: one screen of a 375 px wide phone,
  from the error summary down.

Run it from the repository root after changing the page's HTML, CSS or
wording::

    .venv/bin/python doc/make_survey_screenshots.py

It needs the ``dev`` extra (Playwright, the survey server) and Pillow
(installed with matplotlib), which stores the images with a 64-colour
palette to keep them small.  The interval anchors are drawn afresh on each
run, so the ranges offered change from one run to the next.
"""

from __future__ import annotations

import argparse
import io
import tempfile
from pathlib import Path

from PIL import Image
from playwright.sync_api import sync_playwright

from skprivate._cli.survey import demo_questionnaire
from skprivate.survey import background_server, issue_tokens

CHROMIUM = "/usr/bin/chromium"
OUT = Path(__file__).resolve().parent / "_static"
# name: (width, height, whole page, element at the top of the screen)
SHOTS = {
    "desktop": (1280, 800, True, "body"),
    "mobile": (375, 740, False, "#skp-errors"),
}


def answer(page) -> None:
    """Fill the demo survey, with the years of education out of their range."""
    page.locator('input[name="q0"]').nth(1).check()
    page.get_by_role("radio", name="Asian-Pac-Islander").check()
    page.get_by_label("How many hours did you work last week?").fill("38")
    page.get_by_label("How many years of education have you completed?").fill("21")
    page.get_by_label("How many minutes does your trip to work take?").fill("25")
    page.get_by_role("button", name="Send my private answers").click()
    page.get_by_role("alert").wait_for()


def save_png(data: bytes, path: Path) -> None:
    image = Image.open(io.BytesIO(data)).convert("RGB")
    image = image.quantize(colors=64, method=Image.Quantize.MEDIANCUT)
    image.save(path, optimize=True)


def main(out: Path = OUT) -> list[Path]:
    """Write the screenshots into ``out``; return their paths."""
    out.mkdir(parents=True, exist_ok=True)
    survey = demo_questionnaire()
    written = []
    with tempfile.TemporaryDirectory() as tmp, sync_playwright() as pw:
        database = Path(tmp) / "survey.db"
        tokens = issue_tokens(survey, database, len(SHOTS))
        browser = pw.chromium.launch(
            executable_path=CHROMIUM, args=["--headless", "--no-sandbox"]
        )
        with background_server(survey, database) as url:
            for token, (name, shot) in zip(tokens, SHOTS.items()):
                width, height, full, top = shot
                page = browser.new_page(
                    viewport={"width": width, "height": height},
                    color_scheme="light",
                )
                page.goto(f"{url}/s/{token}")
                answer(page)
                page.evaluate(
                    "s => document.querySelector(s).scrollIntoView(true)", top
                )
                path = out / f"survey_page_{name}.png"
                save_png(page.screenshot(full_page=full), path)
                written.append(path)
                page.close()
        browser.close()
    return written


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=OUT, help="output folder")
    for path in main(parser.parse_args().out):
        print(f"wrote {path} ({path.stat().st_size // 1024} KiB)")
