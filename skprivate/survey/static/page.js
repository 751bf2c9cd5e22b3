/*
 * The respondent's page: read the answers, privatize them on this device
 * with the exact samplers, send only the private answers to the page's own
 * server (the respondent's link).
 *
 * Raw answers live only in the form fields: they have no part in any request
 * (the form is never submitted natively, and the page's policy forbids form
 * submission and every connection but to its own server), and they are
 * erased once the private answers are sent.  The private answers are drawn
 * once; a failed send is retried with the same draw.
 *
 * A survey asked again in waves (its spec has a wave) keeps, in this
 * browser's localStorage, the private answer drawn for each survey, link,
 * question and value (the link too: two respondents answering the same value
 * on one browser must not send one draw, which would tell the collector
 * that their values are equal): a later wave sends a fresh randomization of
 * it (a memoized
 * frequency question: the instantaneous stage of its permanent answer) or
 * the same answer (every other question), never a new draw.  Interval
 * questions keep nothing: their cell among the link's anchors is the same
 * at every wave.
 */
(function () {
  "use strict";
  const samplers = globalThis.SKPrivateSamplers;
  const spec = JSON.parse(document.getElementById("skp-spec").textContent);
  const form = document.getElementById("skp-form");
  const submit = document.getElementById("skp-submit");
  const errorBox = document.getElementById("skp-errors");
  const statusBox = document.getElementById("skp-status");
  let drawn = null;
  const repeated = typeof spec.wave === "number";

  function storage() {
    try {
      return globalThis.localStorage || null;
    } catch (err) {
      return null; // storage disabled: every wave draws afresh
    }
  }

  // The answer this device keeps for a value: read back, or drawn once.
  function keptAnswer(entry, value) {
    const store = storage();
    const key =
      "skprivate:" +
      spec.survey +
      ":" +
      spec.submit +
      ":" +
      entry.name +
      ":" +
      JSON.stringify(value);
    if (store !== null) {
      try {
        const text = store.getItem(key);
        if (text !== null) return JSON.parse(text);
      } catch (err) {
        // unreadable: drawn afresh below
      }
    }
    const kept = samplers.permanent(entry.spec, value);
    if (store !== null) {
      try {
        store.setItem(key, JSON.stringify(kept));
      } catch (err) {
        // full or refused: this wave's draw is still sent
      }
    }
    return kept;
  }

  function privateAnswer(entry, value) {
    if (entry.kind === "interval") return value;
    if (repeated) return samplers.instant(entry.spec, keptAnswer(entry, value));
    return samplers.release(entry.spec, value);
  }

  const NUMBER = /^[+-]?(\d+([.,]\d*)?|[.,]\d+)([eE][+-]?\d+)?$/;
  // "1,000" is a thousand to some and one to others: asked again, never
  // read as either (a point is always the decimal point)
  const THOUSANDS = /^[+-]?[1-9]\d{0,2},\d{3}$/;

  function setError(i, message) {
    const box = document.getElementById("q" + i + "-error");
    const field = document.getElementById("q" + i);
    const group = form.querySelector('[data-index="' + i + '"]');
    box.textContent = message || "";
    box.hidden = !message;
    const target = field || group;
    if (message) target.setAttribute("aria-invalid", "true");
    else target.removeAttribute("aria-invalid");
  }

  function checked(i) {
    const radio = form.querySelector('input[name="q' + i + '"]:checked');
    return radio === null ? null : radio;
  }

  function readValue(i, entry) {
    const kind = entry.kind;
    if (kind === "interval" || kind === "subset" || kind === "frequency") {
      const radio = checked(i);
      if (radio === null) return { error: "Please choose one answer." };
      const label = form.querySelector('label[for="' + radio.id + '"]');
      return { value: Number(radio.value), label: label.textContent };
    }
    const field = document.getElementById("q" + i);
    const text = field.value.trim();
    if (text === "") return { error: "Please answer this question." };
    if (!NUMBER.test(text)) {
      return { error: "Please enter a number, for example 42 or 3.5." };
    }
    if (THOUSANDS.test(text)) {
      return {
        error:
          "Please write the number without a thousands separator (1000), " +
          "or with a point before its decimals (1.5).",
      };
    }
    let value = Number(text.replace(",", "."));
    const s = entry.spec;
    if (!Number.isFinite(value)) return { error: "Please enter a number." };
    if (value < s.low || value > s.high) {
      if (kind === "laplace" && s.clip) {
        value = Math.min(Math.max(value, s.low), s.high);
      } else {
        return {
          error: "Please enter a number from " + s.low + " to " + s.high + ".",
        };
      }
    }
    return { value: value };
  }

  function describe(entry, answer, read) {
    const unit = entry.unit ? " " + entry.unit : "";
    switch (entry.kind) {
      case "interval":
        return read.label;
      case "laplace":
      case "square_wave":
        return String(answer) + unit;
      case "rvns":
        return answer.map(String).join(", ") + unit;
      case "frequency": {
        if (entry.spec.oracle === "krr") {
          return "the category " + entry.labels[answer] + ", drawn at random";
        }
        if (entry.spec.oracle === "olh" || entry.spec.oracle === "blh") {
          const pair = "code " + answer[0] + " and group " + answer[1];
          return pair + " (drawn at random)";
        }
        if (entry.spec.oracle === "hr") {
          return "the number " + answer + " (drawn at random)";
        }
        const marked = [];
        answer.forEach(function (b, c) {
          if (b === 1) marked.push(entry.labels[c]);
        });
        return marked.length === 0
          ? "no category marked (marks drawn at random)"
          : "marks on " + marked.join(", ") + " (drawn at random)";
      }
      default: {
        const names = [];
        for (let c = 0; c < entry.spec.p; c++) {
          if (answer[c] === 1) names.push(entry.labels[c]);
        }
        const extra = entry.spec.dummies
          ? " (and one of two placeholder categories)"
          : "";
        if (names.length === 1) return "the single category " + names[0] + extra;
        return "the group of categories " + names.join(", ") + extra;
      }
    }
  }

  function collect() {
    const problems = [];
    const reads = spec.questions.map(function (entry, i) {
      const read = readValue(i, entry);
      setError(i, read.error);
      if (read.error) problems.push([i, entry, read.error]);
      return read;
    });
    if (problems.length > 0) {
      errorBox.replaceChildren();
      const heading = document.createElement("p");
      heading.textContent =
        problems.length === 1
          ? "One answer needs your attention:"
          : problems.length + " answers need your attention:";
      const list = document.createElement("ul");
      problems.forEach(function (problem) {
        const item = document.createElement("li");
        const link = document.createElement("a");
        const target =
          document.getElementById("q" + problem[0]) ||
          form.querySelector('input[name="q' + problem[0] + '"]');
        link.href = "#" + target.id;
        const text = problem[1].text;
        link.textContent =
          text + (/[?!.:]$/.test(text) ? " " : ": ") + problem[2];
        item.appendChild(link);
        list.appendChild(item);
      });
      errorBox.append(heading, list);
      errorBox.hidden = false;
      errorBox.focus();
      return null;
    }
    errorBox.hidden = true;
    const answers = {};
    const shown = [];
    spec.questions.forEach(function (entry, i) {
      const read = reads[i];
      const answer = privateAnswer(entry, read.value);
      answers[entry.name] = answer;
      shown.push([entry.text, describe(entry, answer, read)]);
    });
    return { answers: answers, shown: shown };
  }

  function setLocked(locked) {
    form.querySelectorAll("input").forEach(function (input) {
      input.disabled = locked;
    });
  }

  function eraseRawAnswers() {
    form.querySelectorAll("input").forEach(function (input) {
      if (input.type === "radio") input.checked = false;
      else input.value = "";
    });
  }

  function showSent(message) {
    const list = document.getElementById("skp-sent-list");
    list.replaceChildren();
    drawn.shown.forEach(function (pair) {
      const term = document.createElement("dt");
      term.textContent = pair[0];
      const value = document.createElement("dd");
      value.textContent = pair[1];
      list.append(term, value);
    });
    const section = document.getElementById("skp-sent");
    section.hidden = false;
    statusBox.textContent = message;
    document.getElementById("skp-sent-heading").focus();
  }

  function finish(message) {
    eraseRawAnswers();
    form.hidden = true;
    showSent(message);
  }

  async function send() {
    submit.disabled = true;
    statusBox.textContent = "Sending your private answers…";
    let response;
    try {
      response = await fetch(spec.submit, {
        method: "POST",
        headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ answers: drawn.answers }),
        credentials: "omit",
        cache: "no-store",
        referrerPolicy: "no-referrer",
      });
    } catch (err) {
      response = null;
    }
    if (response !== null && response.status === 201) {
      finish("Thank you: your private answers were received.");
      return;
    }
    if (response !== null && response.status === 409) {
      finish(
        "Answers from this link were already received; nothing more was kept.",
      );
      return;
    }
    if (response !== null && response.status >= 400 && response.status < 500) {
      let detail = "";
      try {
        detail = (await response.json()).error || "";
      } catch (err) {
        detail = "";
      }
      statusBox.textContent =
        "The survey server refused the answers (" + response.status + "). " + detail;
      return;
    }
    statusBox.textContent =
      "The survey server could not be reached.  Your private answers are kept " +
      "on this page: press the button to try again (the same private answers " +
      "are sent).";
    submit.textContent = "Try again";
    submit.disabled = false;
  }

  form.addEventListener("submit", function (event) {
    event.preventDefault();
    if (drawn === null) {
      const result = collect();
      if (result === null) return;
      drawn = result;
      setLocked(true);
    }
    send();
  });
})();
