"""WCAG 2.1 AA audit of the respondent's page with axe-core, in Chromium.

The page is served by ``python -m skprivate survey serve`` (the ``served``
fixture, the six-question survey of every question kind) and audited in each
state a respondent meets: as loaded, after a submit with missing and invalid
answers (the error summary and every question's error shown), and after a
successful submit (the thank-you state with what was sent); at a desktop
width and at a 375 px phone width; in the light and the dark colour scheme
(the page declares both).  axe-core checks only what is rendered, so each
state is audited once it is on screen.  The notices of a used or unknown
link are audited too.

axe-core comes from the ``axe-playwright-python`` package (in the ``dev``
extra), which bundles its ``axe.min.js``.
"""

from __future__ import annotations

import pytest

from skprivate.survey import issue_tokens

from .conftest import skip_or_fail

WCAG_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"]
VIEWPORTS = {"desktop": (1280, 800), "mobile": (375, 740)}
SCHEMES = ["light", "dark"]
CHOICES = [
    "How old are you?",
    "For how many years have you smoked?",
    "Which of these best describes you?",
]


@pytest.fixture(scope="module")
def axe():
    """axe-core, ready to be run on a Playwright page."""
    try:
        from axe_playwright_python.sync_playwright import Axe
    except ImportError:
        skip_or_fail(
            "the axe-playwright-python package is not installed "
            '(pip install -e ".[dev]")'
        )
    return Axe()


def audit(axe, page, state: str) -> list[str]:
    """One line per element that breaks a WCAG 2.1 A/AA rule in ``state``."""
    options = {
        "runOnly": {"type": "tag", "values": WCAG_AA},
        "resultTypes": ["violations"],
    }
    response = axe.run(page, options=options).response
    lines = []
    for violation in response["violations"]:
        for node in violation["nodes"]:
            lines.append(
                f"[{state}] {violation['id']} ({violation['impact']}) "
                f"at {' '.join(map(str, node['target']))}: {violation['help']} "
                f"({violation['helpUrl']})\n    {node['failureSummary']}"
            )
    # printed now too, in case a later step of the test fails first
    print(f"[{state}] {len(lines)} violations", *lines, sep="\n")
    return lines


def contrast_unchecked(axe, page) -> list[str]:
    """Elements whose colour contrast axe-core could not decide."""
    options = {"runOnly": {"type": "rule", "values": ["color-contrast"]}}
    response = axe.run(page, options=options).response
    return [
        " ".join(map(str, node["target"]))
        for item in response["incomplete"]
        for node in item["nodes"]
    ]


_OUTLINE = """el => {
    const s = getComputedStyle(el);
    return [s.outlineStyle, parseFloat(s.outlineWidth), s.outlineColor];
}"""


def focus_not_shown(page) -> list[str]:
    """Tab stops where the keyboard focus draws no ring of its own.

    axe-core cannot see focus (WCAG 2.4.7): tab through the page and record
    each focused element's outline, then compare it with the same element's
    outline once the focus has left the page.  The focus is shown when the
    focused outline is at least 2 px wide and is new, or of another colour
    than the outline the element has anyway (an invalid field has one).
    """
    page.evaluate("document.activeElement && document.activeElement.blur()")
    stops = []
    for _ in range(40):
        page.keyboard.press("Tab")
        stop = page.evaluate_handle("document.activeElement")
        if stop.evaluate("el => el === document.body"):
            break
        stops.append((stop, stop.evaluate(_OUTLINE)))
    page.evaluate("document.activeElement && document.activeElement.blur()")
    assert stops, "no element takes the keyboard focus"
    missing = []
    for stop, (style, width, colour) in stops:
        before_style, _, before_colour = stop.evaluate(_OUTLINE)
        shown = style != "none" and width >= 2
        new = before_style == "none" or before_colour != colour
        if not (shown and new):
            missing.append(stop.evaluate("el => el.outerHTML.slice(0, 80)"))
    return missing


def overflow(page) -> int:
    """CSS pixels the page is wider than the viewport (WCAG 1.4.10, reflow)."""
    return page.evaluate(
        "document.documentElement.scrollWidth - document.documentElement.clientWidth"
    )


def fill_valid(page) -> None:
    """Answer every question of the ``survey`` fixture acceptably."""
    for q in (0, 1):  # the first range offered, whatever the anchors
        page.locator(f'input[name="q{q}"]').first.check()
    page.get_by_role("radio", name="Black").check()
    page.get_by_label("How many hours did you work last week?").fill("40")
    page.get_by_label("How many years of education have you completed?").fill("12")
    page.get_by_label("How many minutes does your trip to work take?").fill("25")


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_every_state_of_the_page_meets_wcag_21_aa(
    axe, survey, served, browser_context, viewport, scheme
):
    url, database = served
    (token,) = issue_tokens(survey, database, 1)
    width, height = VIEWPORTS[viewport]
    page = browser_context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    page.goto(f"{url}/s/{token}")
    found = audit(axe, page, "as loaded")
    # a choice is a required radio group named by its question
    for question in CHOICES:
        group = page.get_by_role("radiogroup", name=question, exact=True)
        assert group.count() == 1, f"no radio group named {question!r}"
        assert group.get_attribute("aria-required") == "true", question
    unfocused = focus_not_shown(page)
    wider = [overflow(page)]

    page.get_by_label("How many hours did you work last week?").fill("lots")
    page.get_by_label("How many years of education have you completed?").fill("40")
    page.get_by_role("button", name="Send my private answers").click()
    page.get_by_role("alert").wait_for()
    assert page.locator(".skp-error:visible").count() == 6
    found += audit(axe, page, "errors shown")
    unchecked = contrast_unchecked(axe, page)
    unfocused += focus_not_shown(page)
    wider.append(overflow(page))

    fill_valid(page)
    page.get_by_role("button", name="Send my private answers").click()
    page.get_by_role("status").filter(has_text="received").wait_for(timeout=15_000)
    assert page.locator("#skp-sent dd").count() == 6
    found += audit(axe, page, "answers sent")
    unchecked += contrast_unchecked(axe, page)
    wider.append(overflow(page))
    page.close()

    report = "\n".join(found)
    assert not found, f"{len(found)} WCAG 2.1 AA violations:\n{report}"
    # a contrast axe-core cannot decide is not a pass
    assert not unchecked, f"colour contrast undecided at {unchecked}"
    assert not unfocused, f"the keyboard focus is not shown on {unfocused}"
    assert wider == [0, 0, 0], f"wider than the viewport by {wider} px"


@pytest.mark.parametrize("scheme", SCHEMES)
def test_the_notices_of_used_and_unknown_links_meet_wcag_21_aa(
    axe, survey, served, browser_context, scheme
):
    url, database = served
    (token,) = issue_tokens(survey, database, 1)
    page = browser_context.new_page()
    page.set_viewport_size({"width": 375, "height": 740})
    page.emulate_media(color_scheme=scheme)
    page.goto(f"{url}/s/{token}")
    fill_valid(page)
    page.get_by_role("button", name="Send my private answers").click()
    page.get_by_role("status").filter(has_text="received").wait_for(timeout=15_000)
    assert page.goto(f"{url}/s/{token}").status == 410
    found = audit(axe, page, "used link")
    # a phone shows the notice at its own width, not zoomed out
    assert page.locator('meta[name="viewport"]').count() == 1
    assert page.goto(f"{url}/s/{'B' * 43}").status == 404
    found += audit(axe, page, "unknown link")
    assert page.locator('meta[name="viewport"]').count() == 1
    page.close()
    report = "\n".join(found)
    assert not found, f"{len(found)} WCAG 2.1 AA violations:\n{report}"


@pytest.fixture(scope="module")
def status_server(tmp_path_factory):
    """A server with the operator's view, on a store with answers to every
    question: (url, operator token)."""
    from skprivate.survey import background_server

    from .test_status import OPERATOR, _store_answers, small_survey

    survey = small_survey()
    database = tmp_path_factory.mktemp("status") / "responses.db"
    _store_answers(survey, database, 40)
    with background_server(survey, database, operator_token=OPERATOR) as url:
        yield url, OPERATOR


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("viewport", list(VIEWPORTS))
def test_the_operators_status_page_meets_wcag_21_aa(
    axe, status_server, browser_context, viewport, scheme
):
    url, token = status_server
    width, height = VIEWPORTS[viewport]
    page = browser_context.new_page()
    page.set_viewport_size({"width": width, "height": height})
    page.emulate_media(color_scheme=scheme)
    page.set_extra_http_headers({"Authorization": f"Bearer {token}"})
    assert page.goto(f"{url}/status", timeout=600_000).status == 200
    # every question's estimates are on the page, as tables
    assert page.get_by_role("table").count() == 6
    found = audit(axe, page, "status")
    unchecked = contrast_unchecked(axe, page)
    wider = overflow(page)
    page.close()
    report = "\n".join(found)
    assert not found, f"{len(found)} WCAG 2.1 AA violations:\n{report}"
    assert not unchecked, f"colour contrast undecided at {unchecked}"
    assert wider == 0, f"wider than the viewport by {wider} px"
