"""Waves in headless Chromium: the page of a later wave, loaded afresh, sends a
randomization of the answer the device kept, never a fresh permanent draw."""

from __future__ import annotations

import json
import socket

from skprivate.frequency import LongitudinalOracle
from skprivate.survey import Question, Questionnaire, issue_tokens

from .conftest import running_server

CATS = ["north", "south", "east", "west", "up", "down"]


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _survey() -> Questionnaire:
    # a near-uniform permanent answer and a near-identity instantaneous stage:
    # a wave's report is the kept answer (but for about 1e-13), while a fresh
    # permanent draw would be any of the six categories
    lo = LongitudinalOracle(
        kind="krr", epsilon_permanent=0.05, epsilon_instant=30.0, categories=[CATS]
    ).fit([[CATS[0]]])
    questions = [Question("way", "Which way?", lo)]
    budget = Questionnaire(questions).wave_report(2)["epsilon_lifetime_any_values"]
    return Questionnaire(questions, lifetime_epsilon=float(budget.iloc[-1]))


def _answer(page, url: str, token: str, label: str) -> int:
    posted = []
    page.on(
        "request",
        lambda r: posted.append(r.post_data) if r.method == "POST" else None,
    )
    page.goto(f"{url}/s/{token}")
    page.get_by_role("radio", name=label).check()
    page.get_by_role("button", name="Send my private answers").click()
    page.get_by_role("status").filter(has_text="received").wait_for(timeout=15_000)
    (body,) = posted
    return json.loads(body)["answers"]["way"]


def _kept(page) -> dict:
    return page.evaluate(
        "() => Object.fromEntries(Object.keys(localStorage)"
        ".filter(k => k.startsWith('skprivate:')).map(k => [k, localStorage[k]]))"
    )


def test_a_later_wave_sends_a_randomization_of_the_kept_answer(
    tmp_path, browser_context
):
    survey = _survey()
    path = tmp_path / "survey.pkl"
    survey.save(path)
    database = tmp_path / "waves.db"
    tokens = issue_tokens(survey, database, 5)
    port = str(_free_port())  # the same origin at every wave: one storage
    with running_server(path, database, "--port", port, "--wave", "1") as url:
        page = browser_context.new_page()
        first = _answer(page, url, tokens[0], "east")
        kept = _kept(page)
        shown = page.locator("#skp-sent-list").inner_text()
        assert f"the category {CATS[first]}, drawn at random" in shown
        assert "collects\nwave 1" in page.content()
        page.close()
    (key,) = kept
    assert key == (
        f"skprivate:{survey.fingerprint()}:/s/{tokens[0]}:way:{CATS.index('east')}"
    )
    permanent = json.loads(kept[key])
    assert first == permanent
    with running_server(path, database, "--port", port, "--wave", "2") as url:
        page = browser_context.new_page()  # the same link, loaded afresh
        assert _answer(page, url, tokens[0], "east") == permanent
        assert _kept(page) == kept  # read back, never drawn again
        page.close()
        # another respondent on this browser, with the same value, and one
        # with another value: each link draws and keeps its own answer
        for token, label in ((tokens[1], "east"), (tokens[2], "west")):
            page = browser_context.new_page()
            _answer(page, url, token, label)
            now = _kept(page)
            page.close()
    assert now[key] == kept[key]
    assert sorted(now) == sorted(
        [
            key,
            f"skprivate:{survey.fingerprint()}:/s/{tokens[1]}:way:{CATS.index('east')}",
            f"skprivate:{survey.fingerprint()}:/s/{tokens[2]}:way:{CATS.index('west')}",
        ]
    )
