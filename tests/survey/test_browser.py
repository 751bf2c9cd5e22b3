"""End to end in headless Chromium: a respondent fills the page and submits.

The page is served by ``python -m skprivate survey serve``; every request the
page makes is recorded, so the tests check that the raw answers never leave
the browser and that the database holds only privatized answers.
"""

from __future__ import annotations

import json
import sqlite3

import numpy as np
import pytest

from skprivate.survey import issue_tokens, read_responses
from skprivate.survey._server import _Checker

from . import _laws as laws

# Raw answers typed by the respondent; digits chosen to stand out in a request.
RAW = {
    "age": 47.0,
    "smoker_years": 3.0,
    "race": "Other",
    "hours": "38.7193",
    "education": "13.2917",
    "commute": "27.4361",
}


def _record(page) -> list[dict]:
    requests: list[dict] = []
    page.on(
        "request",
        lambda r: requests.append(
            {"url": r.url, "method": r.method, "body": r.post_data or ""}
        ),
    )
    return requests


def _errors(page) -> list[str]:
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    return errors


def _stored(database) -> list[dict]:
    with sqlite3.connect(database) as conn:
        rows = conn.execute("SELECT answers FROM skprivate_responses ORDER BY id")
        return [json.loads(a) for (a,) in rows]


def _choose_cell(page, question_index: int, anchors: list[float], value: float):
    cell = int(np.sum(np.asarray(anchors) < value))
    page.locator(f"#q{question_index}-{cell}").check()
    return cell


@pytest.fixture(scope="module")
def tokens(survey, served):
    _, database = served
    return issue_tokens(survey, database, 6)


def _anchors_of(survey, database, token):
    from skprivate.survey._store import SurveyStore

    store = SurveyStore(database)
    try:
        return store.lookup(token)["anchors"]
    finally:
        store.close()


def test_a_respondent_fills_the_page_and_only_private_answers_leave(
    survey, served, tokens, browser_context
):
    url, database = served
    token = tokens[0]
    anchors = _anchors_of(survey, database, token)
    page = browser_context.new_page()
    requests = _record(page)
    errors = _errors(page)
    page.goto(f"{url}/s/{token}")
    assert page.title() == "Test survey"
    # every field is reachable by its label, as a screen reader announces it
    age_cell = _choose_cell(page, 0, anchors["age"], RAW["age"])
    smoke_cell = _choose_cell(page, 1, anchors["smoker_years"], RAW["smoker_years"])
    page.get_by_role("radio", name="Other").check()
    page.get_by_label("How many hours did you work last week?").fill(RAW["hours"])
    page.get_by_label("How many years of education have you completed?").fill(
        RAW["education"]
    )
    page.get_by_label("How many minutes does your trip to work take?").fill(
        RAW["commute"]
    )
    page.get_by_role("button", name="Send my private answers").click()
    status = page.get_by_role("status")
    status.filter(has_text="received").wait_for(timeout=15_000)
    # the raw answers were erased from the page once sent
    assert page.locator("#q3").input_value() == ""
    assert not page.locator("#q2-2").is_checked()
    assert errors == [], errors

    # requests: the page itself and one POST of the private answers
    methods = [(r["method"], r["url"].removeprefix(url)) for r in requests]
    assert methods == [("GET", f"/s/{token}"), ("POST", f"/s/{token}")], methods
    posted = json.loads(requests[1]["body"])["answers"]
    for r in requests:
        for raw in (RAW["hours"], RAW["education"], RAW["commute"], "Other"):
            assert raw not in r["url"] and raw not in r["body"], (raw, r)

    # the database holds exactly the posted private answers
    stored = _stored(database)
    assert posted in stored
    assert posted["age"] == age_cell and posted["smoker_years"] == smoke_cell
    checker = _Checker(survey)
    assert checker.parse(json.dumps({"answers": posted}).encode()) == posted
    spec = {q.name: q.spec for q in survey.questions}
    # the subset holds the true category, the noisy values are grid outputs
    assert posted["race"][survey["race"].category_labels().index("Other")] == 1
    assert sum(posted["race"]) in (2, 3)
    laws.laplace_index(spec["hours"], [posted["hours"]])
    laws.square_wave_index(spec["education"], [posted["education"]])
    reports = laws.rvns_index(spec["commute"], posted["commute"])
    assert laws.rvns_band_free(spec["commute"], reports)
    # and the learners take it as it is
    cells = read_responses(database, "age")
    assert cells.shape[1] == 2
    assert any(
        row[0] < RAW["age"] <= row[1] for row in cells.tolist()
    )  # this respondent's cell holds the raw age
    page.close()


def test_the_page_works_with_the_keyboard_alone(
    survey, served, tokens, browser_context
):
    url, database = served
    token = tokens[1]
    anchors = _anchors_of(survey, database, token)
    page = browser_context.new_page()
    requests = _record(page)
    page.goto(f"{url}/s/{token}")
    kb = page.keyboard

    def tab_to(selector: str):
        for _ in range(40):
            kb.press("Tab")
            if page.evaluate("s => document.activeElement.matches(s)", selector):
                return
        raise AssertionError(f"Tab never reached {selector}")

    # radio groups: Tab enters the group, arrows move the choice
    for q, name in ((0, "age"), (1, "smoker_years")):
        cell = int(np.sum(np.asarray(anchors[name]) < RAW[name]))
        ids = page.locator(f'input[name="q{q}"]').evaluate_all(
            "inputs => inputs.map(i => i.id)"
        )
        tab_to(f'input[name="q{q}"]')
        for _ in range(ids.index(f"q{q}-{cell}")):
            kb.press("ArrowDown")
        kb.press("Space")
        assert page.locator(f"#q{q}-{cell}").is_checked()
    tab_to('input[name="q2"]')
    kb.press("Space")
    for index, text in ((3, "55"), (4, "9"), (5, "70")):
        tab_to(f"#q{index}")
        kb.type(text)
    kb.press("Enter")  # submits the form
    page.get_by_role("status").filter(has_text="received").wait_for(timeout=15_000)
    assert [r["method"] for r in requests] == ["GET", "POST"]
    assert page.evaluate("document.activeElement.id") == "skp-sent-heading"
    page.close()


def test_missing_and_invalid_answers_are_announced_and_nothing_is_sent(
    survey, served, tokens, browser_context
):
    url, _ = served
    page = browser_context.new_page()
    requests = _record(page)
    page.goto(f"{url}/s/{tokens[2]}")
    page.get_by_label("How many hours did you work last week?").fill("lots")
    page.get_by_label("How many years of education have you completed?").fill("40")
    page.get_by_role("button", name="Send my private answers").click()
    alert = page.get_by_role("alert")
    assert alert.is_visible()
    assert "6 answers need your attention" in alert.inner_text()
    assert page.evaluate("document.activeElement.id") == "skp-errors"
    assert page.locator("#q3").get_attribute("aria-invalid") == "true"
    assert "number" in page.locator("#q3-error").inner_text()
    assert "from 1 to 16" in page.locator("#q4-error").inner_text()
    # each question's error is part of its accessible description
    assert "q3-error" in page.locator("#q3").get_attribute("aria-describedby")
    assert [r["method"] for r in requests] == ["GET"]
    page.close()


def test_a_used_or_forged_link_shows_no_form(survey, served, tokens, browser_context):
    url, _ = served
    page = browser_context.new_page()
    response = page.goto(f"{url}/s/{tokens[0]}")  # answered in the first test
    assert response.status in (200, 410)
    if response.status == 410:
        assert page.locator("form").count() == 0
    response = page.goto(f"{url}/s/{'B' * 43}")
    assert response.status == 404 and page.locator("form").count() == 0
    page.close()
