"""The respondent's page: one self-contained HTML document."""

from __future__ import annotations

import base64
import hashlib
import json
from fractions import Fraction
from functools import cache
from html import escape
from importlib import resources
from typing import Any

from ._spec import subset_disclosure
from ._spec_frequency import frequency_disclosure

__all__ = ["content_security_policy", "render_page"]


@cache
def _static(name: str) -> str:
    return (
        resources.files("skprivate.survey")
        .joinpath("static", name)
        .read_text(encoding="utf-8")
    )


def _hash(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


@cache
def _assets() -> tuple[str, str, str]:
    script = "\n" + _static("samplers.js") + "\n" + _static("page.js") + "\n"
    style = "\n" + _static("page.css") + "\n"
    policy = (
        "default-src 'none'; "
        f"script-src {_hash(script)}; "
        f"style-src {_hash(style)}; "
        "connect-src 'self'; form-action 'none'; base-uri 'none'; img-src 'none'"
    )
    return script, style, policy


def content_security_policy() -> str:
    """The Content-Security-Policy of every page (also sent as a header)."""
    return _assets()[2] + "; frame-ancestors 'none'"


def _json_block(data: Any) -> str:
    text = json.dumps(data, separators=(",", ":"), allow_nan=False)
    # Inside <script> only "</" could end the block; escape the three
    # characters that matter to HTML as JSON escapes.
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def _number(value: float, decimals: int | None = None) -> str:
    if decimals is not None:
        return f"{float(value) + 0.0:.{decimals}f}"
    text = repr(float(value) + 0.0)
    return text[:-2] if text.endswith(".0") else text


def _with_unit(text: str, unit: str) -> str:
    return f"{text} {escape(unit)}" if unit else text


def _interval_cells(anchors: list[float], decimals: int, unit: str) -> list[str]:
    shown = [_with_unit(_number(a, decimals), unit) for a in anchors]
    cells = [f"at most {shown[0]}"]
    for i in range(1, len(anchors)):
        cells.append(f"more than {shown[i - 1]} and at most {shown[i]}")
    cells.append(f"more than {shown[-1]}")
    return cells


def _percent(prob: Fraction) -> str:
    """A probability as a percentage that never reads 0 or 100 when it is not."""
    if prob == 0 or prob == 1:
        return f"{int(prob) * 100}%"
    if prob < Fraction(1, 1000):
        return "less than 0.1%"
    if prob > Fraction(999, 1000):
        return "more than 99.9%"
    return f"{float(prob) * 100:.1f}%"


def _subset_note(spec: dict) -> str:
    contains, alone = subset_disclosure(spec)
    if contains == 1:
        parts = [
            "This device sends a group of categories drawn at random among "
            "those that contain yours: the group tells that your category is "
            "one of its members."
        ]
    else:
        parts = [
            "This device sends a group of categories drawn at random: it "
            f"contains yours with probability {_percent(contains)}"
            + (" or more" if spec["design"] != "uniform" else "")
            + "; otherwise your answer was set aside and the group says "
            "nothing about it."
        ]
    if alone > 0:
        parts.append(
            "The group can be your category alone, and your answer is then sent "
            f"as it is: this happens with probability {_percent(alone)}"
            + (" at most" if spec["design"] != "uniform" else "")
            + "."
        )
    else:
        parts.append("The group always has at least two categories.")
    return " ".join(parts)


def _frequency_note(spec: dict, repeated: bool) -> str:
    own, other, alone = frequency_disclosure(spec)
    if spec["oracle"] in ("olh", "blh"):
        text = (
            "This device sends a random public code and a group number: the "
            f"code sorts the categories into {spec['buckets']} groups, and the "
            f"number sent is your category's group with probability {_percent(own)}"
            " (otherwise another group, drawn at random). Each other category "
            f"is in the group sent with probability {_percent(other)}."
        )
    elif spec["oracle"] == "hr":
        text = (
            f"This device sends a number from 0 to {spec['order'] - 1} drawn at "
            "random: half of the numbers stand for your category, and the "
            f"number sent is one of them with probability {_percent(own)}. "
            f"Each other category's half holds it with probability {_percent(other)}."
        )
    elif spec["oracle"] == "krr":
        text = (
            "This device sends one category drawn at random: yours with "
            f"probability {_percent(own)} (your answer is then sent as it is), "
            f"each other category with probability {_percent(other)}."
        )
    else:
        text = (
            "This device sends one mark per category, each set at random: the "
            f"mark of your category with probability {_percent(own)}, the mark "
            f"of each other category with probability {_percent(other)}. The "
            "marks can single out your category alone: this happens with "
            f"probability {_percent(alone)}."
        )
    if repeated and spec["memoized"]:
        text += (
            " This device keeps the first random draw for your answer, and "
            "every wave of the survey sends a new random version of it: the "
            "probabilities above are those of one wave."
        )
    elif repeated:
        text += " Every wave of the survey sends the same draw for the same answer."
    return text


def _privacy_note(entry: dict, repeated: bool = False) -> str:
    spec = entry["spec"]
    kind = entry["kind"]
    if kind == "frequency":
        return _frequency_note(spec, repeated)
    if kind == "interval":
        return (
            "Your value itself is never asked: only the range you pick is sent, "
            "and the limits of the ranges were drawn at random for you."
        )
    if kind == "laplace":
        return (
            "Random noise is added to your answer on this device before it is "
            f"sent (Laplace mechanism, epsilon = {spec['epsilon']:g})."
        )
    if kind == "square_wave":
        return (
            "Your answer is replaced on this device by a random value drawn "
            "mostly near it (Square Wave mechanism, epsilon = "
            f"{spec['epsilon_value']:g}); only that value is sent."
        )
    if kind == "rvns":
        k = spec["k"]
        what = "a value" if k == 1 else f"{k} values"
        return (
            f"This device sends {what} drawn away from your answer (a negative "
            "survey); your answer itself is never sent."
        )
    return _subset_note(spec)


def _question_html(i: int, entry: dict, repeated: bool = False) -> str:
    qid = f"q{i}"
    kind = entry["kind"]
    spec = entry["spec"]
    name = escape(entry["name"])
    text = escape(entry["text"])
    unit = entry.get("unit", "")
    hints = []
    if entry.get("help"):
        hints.append(escape(entry["help"]))
    described = f"{qid}-hint {qid}-privacy {qid}-error"
    privacy = escape(_privacy_note(entry, repeated))
    error = f'<p id="{qid}-error" class="skp-error" hidden></p>'
    if kind in ("laplace", "square_wave", "rvns"):
        # the unit once, after the range: "from 1 to 16 years"
        low = _number(spec["low"])
        high = _with_unit(_number(spec["high"]), unit)
        if kind == "laplace" and spec["clip"]:
            hints.append(
                f"Enter a number from {low} to {high}; a number outside is "
                "counted as the nearer of the two."
            )
        else:
            hints.append(f"Enter a number from {low} to {high}.")
        return (
            f'<div class="skp-question" data-index="{i}" data-name="{name}">'
            f'<label for="{qid}" class="skp-label">{text}</label>'
            f'<p id="{qid}-hint" class="skp-hint">{" ".join(hints)}</p>'
            f'<p id="{qid}-privacy" class="skp-privacy">{privacy}</p>'
            f'<input id="{qid}" type="text" inputmode="decimal" autocomplete="off" '
            f'spellcheck="false" aria-describedby="{described}" '
            f'aria-required="true">{error}</div>'
        )
    if kind in ("subset", "frequency"):
        options = list(enumerate(entry["labels"]))
        hints.append("Choose one.")
    else:
        cells = _interval_cells(entry["anchors"], entry["decimals"], unit)
        padded = [float("-inf"), *entry["anchors"], float("inf")]
        # A cell emptied by two equal anchors cannot hold a value: not offered.
        options = [
            (c, label) for c, label in enumerate(cells) if padded[c] < padded[c + 1]
        ]
        hints.append("Choose the range that holds your value.")
    radios = "".join(
        f'<div class="skp-option"><input type="radio" id="{qid}-{value}" '
        f'name="{qid}" value="{value}">'
        f'<label for="{qid}-{value}">{escape(str(label))}</label></div>'
        for value, label in options
    )
    return (
        # A fieldset's group role takes no aria-required; a radio group does.
        f'<fieldset class="skp-question" data-index="{i}" data-name="{name}" '
        f'role="radiogroup" aria-describedby="{described}" aria-required="true">'
        f'<legend class="skp-label">{text}</legend>'
        f'<p id="{qid}-hint" class="skp-hint">{" ".join(hints)}</p>'
        f'<p id="{qid}-privacy" class="skp-privacy">{privacy}</p>'
        f'<div class="skp-options">{radios}</div>{error}</fieldset>'
    )


def render_page(spec: dict, lang: str = "en") -> str:
    """HTML of a respondent's page for a respondent spec."""
    script, style, policy = _assets()
    title = escape(spec["title"])
    intro = f'<p class="skp-intro">{escape(spec["intro"])}</p>' if spec["intro"] else ""
    repeated = "wave" in spec
    questions = "\n".join(
        _question_html(i, entry, repeated) for i, entry in enumerate(spec["questions"])
    )
    waves = ""
    if repeated:
        waves = f"""<p>This survey is asked again in waves; this page collects
wave {int(spec["wave"])}.  For every question but the range questions, this
device keeps, in this browser's storage for this site, the private answer it
drew for each of your answers, so that a later wave sends that private answer
again, or a new random version of it, and not a new draw: asking again then
reveals little more about an answer that did not change, but a resent answer
can show that it did change.  Anyone who uses this browser can read from that
storage which answers were given on it.</p>
"""
    return f"""<!DOCTYPE html>
<html lang="{escape(lang)}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">
<meta name="referrer" content="no-referrer">
<title>{title}</title>
<style>{style}</style>
</head>
<body>
<main>
<h1>{title}</h1>
{intro}
<section class="skp-about" aria-labelledby="skp-about-heading">
<h2 id="skp-about-heading">How your answers are protected</h2>
<p>This page does not send your answers as you give them.  For a range
question it sends the range you pick, between limits drawn at random for
you; for any other question it sends an answer drawn at random on your
device from yours.  What is sent can still coincide with your answer or
reveal part of it: each question below says what it sends.  Your answers
are erased from the page once the private answers are sent.</p>
{waves}</section>
<noscript><p class="skp-error">This survey needs JavaScript: it makes your
answers private on your device, and without it nothing is sent.</p></noscript>
<form id="skp-form" novalidate>
<div id="skp-errors" class="skp-errors" role="alert" tabindex="-1" hidden></div>
{questions}
<button type="submit" id="skp-submit">Send my private answers</button>
</form>
<p id="skp-status" class="skp-status" role="status" aria-live="polite"></p>
<section id="skp-sent" class="skp-sent" aria-labelledby="skp-sent-heading" hidden>
<h2 id="skp-sent-heading" tabindex="-1">What was sent</h2>
<dl id="skp-sent-list"></dl>
</section>
</main>
<script type="application/json" id="skp-spec">{_json_block(spec)}</script>
<script>{script}</script>
</body>
</html>
"""
