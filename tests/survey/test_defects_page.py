"""The page: no offline variant, honest "What was sent", invalid groups drawn
without a line through their legend.

The offline page (``survey page``) showed codes that nothing could load
back, with one draw of anchors shared by every copy of the file; it is
removed, and asking for it says why.
"""

from __future__ import annotations

import re

import pytest

from skprivate import LaplaceLDP, SubsetUniform
from skprivate.survey import Question, Questionnaire, background_server, issue_tokens
from skprivate.survey._render import _static

SPORTS = ["Fencing", "Rowing", "Judo"]


def _survey() -> Questionnaire:
    return Questionnaire(
        [
            Question(
                "sport",
                "Which sport do you practise?",
                SubsetUniform(categories=[SPORTS]).fit([[SPORTS[0]]]),
            ),
            Question(
                "hours",
                "Hours of training last week?",
                LaplaceLDP(epsilon=1.0, bounds=(0, 40)).fit([[0.0]]),
            ),
        ],
        title="Training",
    )


def test_a_page_without_a_link_to_post_to_is_refused():
    survey = _survey()
    for call in (
        lambda: survey.render_html(),
        lambda: survey.render_html({}, None),
        lambda: survey.render_html({}, ""),
    ):
        with pytest.raises(ValueError, match="render_html needs submit_url"):
            call()
    html = survey.render_html({}, "/s/x")
    assert "skp-code" not in html and "Show my private answers" not in html
    assert "give this text" not in html
    script = _static("page.js")
    assert "Nothing was sent" not in script and "skp-code" not in script


def test_the_page_command_is_gone_and_says_why(tmp_path, capsys):
    from skprivate.__main__ import main

    path = tmp_path / "s.pkl"
    _survey().save(path)
    out = tmp_path / "page.html"
    code = main(["survey", "page", str(path), "-o", str(out)])
    err = capsys.readouterr().err
    assert code == 2
    assert "'survey page' was removed" in err and "survey issue" in err
    assert not out.exists()


def test_an_invalid_group_has_one_border_and_no_outline_through_its_legend(
    browser_context, tmp_path
):
    path = tmp_path / "page.html"
    path.write_text(_survey().render_html({}, "/s/x"), encoding="utf-8")
    page = browser_context.new_page()
    page.goto(path.as_uri())
    page.get_by_role("button", name="Send my private answers").click()
    group = page.locator('fieldset[data-index="0"]')
    assert group.get_attribute("aria-invalid") == "true"
    style = group.evaluate(
        """el => {
            const s = getComputedStyle(el);
            return [s.outlineStyle, s.borderTopWidth, s.borderTopColor];
        }"""
    )
    # an outline is a rectangle round the box that ignores the legend: the
    # error is drawn by the border alone, which opens around the legend
    assert style == ["none", "3px", "rgb(176, 0, 32)"], style
    field = page.locator("#q1")
    assert field.evaluate("el => getComputedStyle(el).outlineStyle") == "solid"
    page.close()


def test_what_was_sent_names_the_group_as_it_is(browser_context, tmp_path):
    survey = _survey()
    database = tmp_path / "s.db"
    token = issue_tokens(survey, database, 1)[0]
    with background_server(survey, database) as url:
        page = browser_context.new_page()
        page.goto(f"{url}/s/{token}")
        page.get_by_role("radio", name="Rowing").check()
        page.get_by_label("Hours of training last week?").fill("6")
        page.get_by_role("button", name="Send my private answers").click()
        page.get_by_role("status").filter(has_text="received").wait_for(timeout=15_000)
        sent = page.locator("#skp-sent-list dd").all_inner_texts()
        page.close()
    placeholder = " (and one of two placeholder categories)"
    assert sent[0].endswith(placeholder)
    group = sent[0].removesuffix(placeholder)
    match = re.fullmatch(
        r"the single category (\w+)|the group of categories (\w+, \w+)", group
    )
    assert match is not None, sent[0]
    named = (match.group(1) or match.group(2)).split(", ")
    assert set(named) <= set(SPORTS)
