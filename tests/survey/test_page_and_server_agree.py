"""The page (samplers.js, page.js) and the server agree on what is released.

The server accepts every Square Wave output the page can send, however
large the bounds are against their width; and two respondents answering
one value on one browser send independent draws.  Each test failed before
its fix.

Every test runs the unmodified static files under Node: samplers.js in a vm
context whose ``crypto.getRandomValues`` is scripted (to reach one chosen
output), or samplers.js + page.js in a minimal fake DOM (to see what the
page posts and keeps, as the browser would).
"""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import numpy as np
import pytest

from skprivate import LaplaceLDP
from skprivate.ldp import SquareWaveLDP
from skprivate.survey import Question, Questionnaire, mechanism_spec
from skprivate.survey._spec import AnswerError, check_answer

from .conftest import node_path, skip_or_fail

STATIC = Path(__file__).parents[2] / "skprivate" / "survey" / "static"

# samplers.js with every random word fixed to `word` (stdin: {spec, value, word}).
SCRIPTED_RELEASE = r"""
"use strict";
const fs = require("fs");
const vm = require("vm");
const job = JSON.parse(fs.readFileSync(0, "utf8"));
const context = vm.createContext({
  crypto: { getRandomValues: function (a) { a.fill(job.word); return a; } },
  module: { exports: {} },
});
vm.runInContext(fs.readFileSync(process.argv[2], "utf8"), context);
const released = context.module.exports.release(job.spec, job.value);
process.stdout.write(JSON.stringify(released));
"""

# samplers.js + page.js in a fake DOM; one localStorage for all page loads
# (one browser).  stdin: {spec, loads: [{submit, values: {name: text}}]};
# stdout: per load, the bodies posted and the storage after it.
PAGE_HARNESS = r"""
"use strict";
const fs = require("fs");
const path = require("path");
const vm = require("vm");

class El {
  constructor(tag, props) {
    Object.assign(this, { tagName: tag, attrs: {}, children: [], listeners: {},
      hidden: false, disabled: false, textContent: "", value: "", checked: false,
      type: "" }, props);
  }
  setAttribute(k, v) { this.attrs[k] = String(v); }
  removeAttribute(k) { delete this.attrs[k]; }
  focus() {}
  replaceChildren() { this.children = []; }
  append(...c) { this.children.push(...c); }
  appendChild(c) { this.children.push(c); }
  addEventListener(t, f) { (this.listeners[t] = this.listeners[t] || []).push(f); }
}

function buildDom(spec, values) {
  const byId = {};
  const inputs = [];
  const groups = {};
  const add = (el) => { if (el.id) byId[el.id] = el; return el; };
  spec.questions.forEach(function (entry, i) {
    if (!["laplace", "square_wave", "rvns"].includes(entry.kind)) {
      throw new Error("the harness types numbers only");
    }
    add(new El("p", { id: "q" + i + "-error" }));
    const field = add(new El("input", { id: "q" + i, type: "text",
      value: String(values[entry.name]) }));
    inputs.push(field);
    groups[i] = field;
  });
  const form = add(new El("form", { id: "skp-form" }));
  form.querySelector = function (sel) {
    const m = /^\[data-index="(\d+)"\]$/.exec(sel);
    if (m) return groups[m[1]];
    throw new Error("unsupported selector " + sel);
  };
  form.querySelectorAll = function (sel) {
    if (sel !== "input") throw new Error("unsupported selector " + sel);
    return inputs;
  };
  for (const id of ["skp-submit", "skp-errors", "skp-status", "skp-sent-list",
                    "skp-sent", "skp-sent-heading"]) add(new El("div", { id: id }));
  add(new El("script", { id: "skp-spec", textContent: JSON.stringify(spec) }));
  return { byId: byId, form: form };
}

async function load(code, spec, submit, values, storage) {
  const dom = buildDom(Object.assign({}, spec, { submit: submit }), values);
  const posted = [];
  const context = vm.createContext({
    crypto: globalThis.crypto,
    localStorage: storage,
    document: {
      getElementById: (id) => dom.byId[id] || null,
      createElement: (tag) => new El(tag),
    },
    fetch: async function (url, init) {
      posted.push({ url: url, body: JSON.parse(init.body) });
      return { status: 201, json: async () => ({}) };
    },
  });
  vm.runInContext(code, context);
  for (const f of dom.form.listeners.submit) f({ preventDefault() {} });
  for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
  return { posted: posted, error: dom.byId["q0-error"].textContent || "" };
}

(async function main() {
  const dir = process.argv[2];
  const code = fs.readFileSync(path.join(dir, "samplers.js"), "utf8") + "\n" +
    fs.readFileSync(path.join(dir, "page.js"), "utf8");
  const job = JSON.parse(fs.readFileSync(0, "utf8"));
  const data = new Map();
  const storage = {
    getItem: (k) => (data.has(k) ? data.get(k) : null),
    setItem: (k, v) => { data.set(k, String(v)); },
    removeItem: (k) => { data.delete(k); },
  };
  const out = [];
  for (const l of job.loads) {
    const got = await load(code, job.spec, l.submit, l.values, storage);
    out.push({ posted: got.posted, error: got.error,
               storage: Object.fromEntries(data) });
  }
  process.stdout.write(JSON.stringify(out));
})().catch((e) => { process.stderr.write(String(e.stack || e)); process.exit(2); });
"""


@pytest.fixture(autouse=True)
def _node():
    if node_path() is None:
        skip_or_fail("node is not installed (apt-get install nodejs)")


def _node_json(tmp_path: Path, name: str, source: str, args: list[str], job: dict):
    script = tmp_path / name
    script.write_text(source)
    done = subprocess.run(
        [node_path(), str(script), *args],
        input=json.dumps(job),
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_server_refuses_square_wave_outputs_that_the_page_and_python_release(
    tmp_path,
):
    """The server's check refuses outputs of the Square Wave mechanism.

    Where: skprivate/survey/_spec.py:_square_wave_answer (the server's
    answer check) against samplers.js:squareWave (and
    SquareWaveLDP._release, which releases the same floats).

    What differs: an output is ``low + j * step`` for an integer
    ``j in [-W, n + W]``, computed in floating point.  The check guesses
    ``j`` as ``round((v - low) / step)`` and tries only ``guess - 2 ..
    guess + 2``.  When ``|low|`` is large against the width (here bounds
    ``(1e12, 1e12 + 1)``: one ulp of ``low`` is 128 grid steps), ``v - low``
    is rounded by up to 64 steps, and for ``j`` near ``-W`` (or ``n + W``)
    every candidate tried lies outside ``[-W, n + W]``: the check refuses
    ``v``, although ``j = -W`` produces exactly ``v``.  With all random words
    zero the page's sampler releases this ``j = -W`` output for the input
    ``x = low`` (the near branch, first near index); 86 outputs are refused,
    ``j`` in ``[-W, -W + 42]`` and ``[n + W - 42, n + W]``.

    Why it matters for privacy: the set of answers the server accepts is
    not the mechanism's output space.  The refused outputs are near outputs
    of values within 42 grid steps of a bound only (far outputs, with
    probability ``e**-epsilon`` times smaller, of the others), so whether a
    respondent is refused depends on the value: answers at the bounds are
    lost (a bias), and
    a respondent who reloads the page to answer again sends a second,
    independent draw of the same value to the collection endpoint, which
    has already received the first (the refused body), a release the
    claimed epsilon does not cover.
    """
    low = 1e12
    sw = SquareWaveLDP(epsilon=1.0, bounds=(low, low + 1.0)).fit([[low]])
    spec = mechanism_spec(sw)
    half = spec["half_cells"]
    out = _node_json(
        tmp_path,
        "scripted_release.js",
        SCRIPTED_RELEASE,
        [str(STATIC / "samplers.js")],
        {"spec": spec, "value": low, "word": 0},
    )
    # the page released j = -W: an output of the mechanism (the same float
    # SquareWaveLDP._release computes, low + j * grid_step_)
    assert out == spec["low"] + float(-half) * spec["step"]
    assert out == float(sw.bounds_[0][0] + float(-half) * sw.grid_step_[0])
    try:
        check_answer("q", spec, out)
    except AnswerError as exc:
        pytest.fail(f"the server refuses an output the page sends: {exc}")


def test_two_respondents_on_one_browser_send_the_same_laplace_draw(tmp_path):
    """A second respondent on the same browser sends the first one's release.

    Where: skprivate/survey/static/page.js:keptAnswer (and privateAnswer),
    for a survey asked in waves (``lifetime_epsilon``).

    What differs: the kept answer is keyed by survey fingerprint, question
    and raw value only, not by the respondent's link (``spec.submit``,
    ``/s/<token>``, which stays the same across waves).  Two respondents
    with different links who answer on one browser (a household computer)
    and give the same value do not get independent draws: the second page
    posts, byte for byte, the first respondent's Laplace release.  The
    Python privatizer (LaplaceLDP(secure=True)) draws fresh noise for every
    record; two independent releases of this question coincide with
    probability below 1e-6.

    Why it matters for privacy: the per-respondent epsilon the page shows
    assumes the respondent's noise is independent of everyone else's.
    Here the collector sees two links send the same noisy value, and learns
    that the two values are equal (a point mass against a law spread over
    millions of grid points): given the first respondent's report, the
    second's has an unbounded privacy loss about whether their value equals
    the first's, and whoever knows one of the two values learns the other.
    The page's note says others on the browser can *read* the stored
    answers; it does not say their answers become copies of each other.
    A fix: key the kept answer by the link as well (it is stable across
    waves), e.g. ``spec.submit`` in the storage key.
    """
    question = Question(
        "hours",
        "Hours worked last week?",
        LaplaceLDP(epsilon=1.0, bounds=(0, 100)).fit([[0.0]]),
    )
    budget = Questionnaire([question]).wave_report(2)["epsilon_lifetime_any_values"]
    survey = Questionnaire([question], lifetime_epsilon=float(budget.iloc[-1]))
    spec = survey.respondent_spec({}, "/s/first", wave=1)
    loads = [
        {"submit": "/s/first", "values": {"hours": "40"}},
        {"submit": "/s/second", "values": {"hours": "40"}},
    ]
    first, second = _node_json(
        tmp_path,
        "page_harness.js",
        PAGE_HARNESS,
        [str(STATIC)],
        {"spec": spec, "loads": loads},
    )
    (a,) = first["posted"]
    (b,) = second["posted"]
    assert (a["url"], b["url"]) == ("/s/first", "/s/second")
    assert a["body"]["answers"]["hours"] != b["body"]["answers"]["hours"], (
        "two respondents' links sent the identical release "
        f"{a['body']['answers']['hours']!r}: the second reused the first's draw "
        f"(storage {second['storage']})"
    )


def test_an_rvns_grid_the_page_cannot_draw_from_is_refused_by_name():
    """The page draws integers below 2**53: a finer report grid is refused
    when the question is built, not left to fail on the respondent's page."""
    from skprivate import RVNSPerturber

    fine = RVNSPerturber(d=2**-33, bounds=(-1, 1)).fit(np.zeros((2, 1)))
    with pytest.raises(ValueError) as caught:
        mechanism_spec(fine)
    assert str(caught.value) == (
        f"RVNSPerturber(d={2**-33!r}) on the bounds [-1.0, 1.0] has a report "
        "grid of 9007199255789569 points, more than the 2**53 the page can draw "
        "from: give a larger d or narrower bounds."
    )
    coarse = RVNSPerturber(d=2**-20, bounds=(-1, 1)).fit(np.zeros((2, 1)))
    spec = mechanism_spec(coarse)
    assert spec["report_high"] - spec["report_low"] + 1 < 2**53


def test_a_number_with_a_thousands_comma_is_asked_again_not_read_as_one(tmp_path):
    """'1,000' was read as 1 (the comma taken as the decimal point): a value
    the respondent did not give.  It is now asked again; a comma with other
    than three decimals, or a point, is still a decimal separator."""
    question = Question(
        "income",
        "Income last month?",
        LaplaceLDP(epsilon=1.0, bounds=(0, 10_000)).fit([[0.0]]),
    )
    spec = Questionnaire([question]).respondent_spec({}, "/s/a")
    typed = ["1,000", "-12,345", "1,5", "0,125", "1.000", "1,0000", "1000"]
    loads = [
        {"submit": f"/s/{i}", "values": {"income": v}} for i, v in enumerate(typed)
    ]
    out = _node_json(
        tmp_path,
        "page_harness.js",
        PAGE_HARNESS,
        [str(STATIC)],
        {"spec": spec, "loads": loads},
    )
    refused = (
        "Please write the number without a thousands separator (1000), or with "
        "a point before its decimals (1.5)."
    )
    for value, got in zip(typed, out):
        if value in ("1,000", "-12,345"):
            assert (got["posted"], got["error"]) == ([], refused), value
        else:
            assert got["error"] == "" and len(got["posted"]) == 1, value
