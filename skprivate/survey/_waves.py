"""Repeated waves of a survey: what the device keeps, and what each wave costs.

A questionnaire that declares ``lifetime_epsilon`` may be asked again of the
same respondents, in waves 1, 2, ... (one collection server per wave,
``serve(..., wave=w)``).  The respondent's link stays the same, and so do
its interval anchors.  The respondent's device keeps, per survey, question
and value, the private answer it drew the first time (the *permanent*
answer of RAPPOR), so that asking again does not let the collector average
the noise away:

* a memoized frequency question (:class:`~skprivate.frequency.LongitudinalOracle`)
  sends, at every wave, a fresh randomization of the kept permanent answer
  (the instantaneous stage);
* every other question sends the kept answer itself again: the
  instantaneous stage is the identity;
* an interval question sends the cell of the value among the link's own
  anchors, the same at every wave.

**Accounting.**  For one question, with ``eps_wave`` the loss of one wave:

* (a) a value that does not change: the reports of ``w`` waves are a
  randomization of one kept answer, and their loss is the exact loss of
  their joint law (a memoized frequency question: enumerated from the
  two-stage law, at most the permanent answer's loss; any other question:
  ``eps_wave``, since identical copies carry nothing more).  The joint law
  of a memoized question does not compose like fresh draws: it can exceed
  ``w eps_wave`` (unary encoding, two waves).
* (b) values that may change between waves: a value seen before reuses its
  kept answer, a new value gets a fresh one.  For a memoized frequency
  question every wave after the first, given all earlier reports, is a
  mixture of the rows of the instantaneous stage whatever the values, so
  by adaptive composition ``w`` waves cost at most ``eps_wave + (w - 1)
  eps_later`` (:func:`~skprivate.survey._spec_frequency.later_wave_epsilon`)
  against any other sequence of values.  This is more than ``w eps_wave``:
  the waves of one value are correlated, and comparing a constant value
  with changing ones can cost more than ``w eps_wave`` (the tests enumerate
  such a case).  Any other question resends its kept answer, so its
  reports show exactly at which waves the value changed; between two
  sequences of values that change at the same waves, ``w`` waves cost at
  most ``w eps_wave`` (one fresh draw per distinct value), the figure
  stated, with ``discloses_change`` set.

The server cannot know whether a value changed: its ledger charges every
stored wave the figure of (b) (``eps_wave`` for a link's first stored wave,
``eps_later`` for the next ones) and refuses a wave that would take a link
past ``lifetime_epsilon``.  :func:`wave_report` states (a) and (b).
Questions whose guarantee is not an epsilon (subset and interval privacy)
are not charged: their rows show no epsilon, and the budget covers the
others.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

import numpy as np
import pandas as pd

from ..utils._seeding import canonical, data_fingerprint, words
from ._spec_frequency import MEMOIZABLE, joint_epsilon, later_wave_epsilon

__all__ = ["SimulatedDevice", "first_wave_epsilon", "wave_charges", "wave_report"]


def wave_charges(questionnaire: Any) -> dict[str, tuple[float, float] | None]:
    """What the ledger charges per question: ``(first, later)`` wave, or None.

    ``first``: the loss of one wave, the figure the question's row of
    :meth:`~skprivate.survey.Questionnaire.privacy_report` states;
    ``later``: what each further wave of a link adds in the worst case over
    the values (see the module notes); None for a question whose guarantee
    is not an epsilon.
    """
    report = questionnaire.privacy_report()
    out: dict[str, tuple[float, float] | None] = {}
    for q in questionnaire.questions:
        eps = float(report.loc[report["question"] == q.name, "epsilon"].iloc[0])
        if not math.isfinite(eps):
            out[q.name] = None
        elif _memoized(q):
            out[q.name] = (eps, later_wave_epsilon(q.spec))
        else:
            out[q.name] = (eps, eps)
    return out


def first_wave_epsilon(questionnaire: Any) -> float:
    """Total epsilon of one wave over the questions that have one."""
    return float(sum(c[0] for c in wave_charges(questionnaire).values() if c))


def _memoized(question: Any) -> bool:
    return question.spec["kind"] == "frequency" and bool(question.spec["memoized"])


def _same_value(question: Any, eps: float | None, waves: int) -> float | None:
    if eps is None:
        return None
    if _memoized(question):
        return joint_epsilon(question.spec, waves)
    return eps


def _resent(question: Any) -> str:
    spec = question.spec
    if spec["kind"] == "interval":
        return "the cell of the value among the link's anchors (the same each wave)"
    if _memoized(question):
        return "a fresh randomization of the kept permanent answer"
    return "the kept answer, unchanged"


def wave_report(questionnaire: Any, waves: int) -> pd.DataFrame:
    """Per-wave and lifetime epsilon of every question after ``waves`` waves.

    Parameters
    ----------
    questionnaire : Questionnaire
        The survey.
    waves : int
        Number of waves answered by one respondent, ``>= 1``.

    Returns
    -------
    report : pandas.DataFrame
        One row per question and a ``total`` row: ``question``, ``kind``,
        ``each_wave_sends``, ``epsilon_per_wave``,
        ``epsilon_lifetime_same_value`` ((a) the exact loss of the joint
        law of the ``waves`` reports of an unchanged value),
        ``epsilon_lifetime_any_values`` ((b) the bound against any other
        sequence of values, what the ledger charges), ``discloses_change``
        (the resent answer shows at which waves the value changed; (b) then
        compares values changing at the same waves) and, on the ``total``
        row, ``note``: the budget and how the figures read.  NaN for a
        question whose guarantee is not an epsilon.

    Examples
    --------
    >>> from skprivate.frequency import LongitudinalOracle
    >>> from skprivate.survey import Question, Questionnaire
    >>> lo = LongitudinalOracle(
    ...     epsilon_permanent=2.0, epsilon_instant=1.0, categories=[["a", "b", "c"]]
    ... ).fit([["a"]])
    >>> survey = Questionnaire([Question("q", "Which?", lo)], lifetime_epsilon=2.0)
    >>> table = survey.wave_report(2)
    >>> row = table.iloc[0]
    >>> bool(row["epsilon_lifetime_same_value"] < row["epsilon_lifetime_any_values"])
    True
    """
    waves = int(waves)
    if waves < 1:
        raise ValueError(f"waves must be >= 1; got {waves}.")
    charges = wave_charges(questionnaire)
    rows = []
    for q in questionnaire.questions:
        charge = charges[q.name]
        eps = None if charge is None else charge[0]
        same = _same_value(q, eps, waves)
        rows.append(
            {
                "question": q.name,
                "kind": q.kind,
                "each_wave_sends": _resent(q),
                "epsilon_per_wave": np.nan if eps is None else eps,
                "epsilon_lifetime_same_value": np.nan if same is None else same,
                "epsilon_lifetime_any_values": np.nan
                if charge is None
                else charge[0] + (waves - 1) * charge[1],
                "discloses_change": not _memoized(q),
            }
        )
    frame = pd.DataFrame(rows)
    budget = questionnaire.lifetime_epsilon
    first = sum(c[0] for c in charges.values() if c is not None)
    later = sum(c[1] for c in charges.values() if c is not None)
    uncharged = [name for name, c in charges.items() if c is None]
    note = (
        f"after {waves} wave(s): epsilon_lifetime_same_value (a) is the exact "
        "loss of the joint law of the waves' reports of values that do not "
        "change; epsilon_lifetime_any_values (b) bounds the loss against any "
        "other sequence of values (values that change get fresh private "
        "answers; where discloses_change is set, the resent answer shows at "
        "which waves the value changed, and (b) compares values changing at "
        "the same waves); the server's ledger charges (b) per link"
    )
    if budget is not None:
        # the questionnaire refuses a budget below one wave: the first fits
        fit = (
            1 + math.floor(max(budget - first, 0.0) / later * (1 + 1e-9))
            if later > 0
            else math.inf
        )
        note += (
            f"; lifetime budget lifetime_epsilon={budget:g}: the server refuses a "
            f"wave that would take a link past it ({fit} wave(s) fit: "
            f"{first:.6g} for the first, {later:.6g} for each further one)"
        )
    if uncharged:
        note += (
            f"; {', '.join(uncharged)} have a guarantee other than epsilon and "
            "are not charged"
        )
    fresh = [q.name for q in questionnaire.questions if q.spec["kind"] == "subset"]
    if fresh and waves > 1:
        note += (
            f"; {', '.join(fresh)}: a device that keeps no answer (storage "
            "refused or cleared, another browser) draws a fresh subset at each "
            "wave, uncharged, and the subsets intersect towards the true "
            "category: ask subset questions in one wave only (a server for a "
            "later wave refuses them)"
        )
    total = {
        "question": "total",
        "kind": "",
        "each_wave_sends": "",
        "epsilon_per_wave": first,
        "epsilon_lifetime_same_value": float(
            frame["epsilon_lifetime_same_value"].sum()
        ),
        "epsilon_lifetime_any_values": first + (waves - 1) * later,
        "discloses_change": bool(frame["discloses_change"].any()),
        "note": note,
    }
    return pd.concat([frame, pd.DataFrame([total])], ignore_index=True)


# -- a simulated device -----------------------------------------------------------
def _coin(rng: np.random.Generator, rational: str) -> bool:
    num, _, den = rational.partition("/")
    return int(rng.integers(0, int(den or 1), dtype=np.int64)) < int(num)


def _stage(spec: dict, stage: dict, kept: Any, rng: np.random.Generator) -> Any:
    if spec["oracle"] == "krr":
        if _coin(rng, stage["keep"]):
            return kept
        other = int(rng.integers(0, spec["k"] - 1))
        return other + (other >= kept)
    return [int(_coin(rng, stage["one"] if b else stage["zero"])) for b in kept]


def _kept_key(entry: Mapping, value: Any) -> str:
    """The key of a value's kept answer: two values share it as on the page.

    The page keys a kept answer by ``JSON.stringify`` of the number it read
    (``Number`` of the text typed, clipped to the bounds of a Laplace
    question with ``clip``), or of the category chosen.  The device keys by
    the JSON text of the number's shortest text (an integral value without
    a fraction, ``-0`` as ``0``), or of the category's text: so ``40``,
    ``40.0``, ``numpy.int64(40)`` and ``numpy.float64(40)`` are one value,
    and so are two values clipped to the same bound, as on the page.
    """
    kind, spec = entry["kind"], entry["spec"]
    if kind in ("subset", "frequency"):
        return json.dumps(str(value))
    try:
        number = float(value)
    except (TypeError, ValueError):
        raise ValueError(
            f"the value of question {entry['name']!r} must be a number "
            f"(a {kind} question); got {type(value).__name__}."
        ) from None
    if kind == "laplace" and spec.get("clip") and math.isfinite(number):
        number = min(max(number, spec["low"]), spec["high"])
    # the shortest round-trip text; an integral value without a fraction
    text = str(int(number)) if number.is_integer() else repr(number)
    return json.dumps(text)


class SimulatedDevice:
    """One respondent's device in a simulation: keeps answers as the page does.

    :meth:`answers` returns what the respondent's page would send in the
    current wave: the first time a value is answered, the device draws and
    keeps its private answer (a memoized frequency question: the permanent
    answer); every wave then sends a fresh instantaneous randomization of it
    (memoized frequency questions) or the kept answer itself (the other
    questions), exactly as ``static/page.js`` does with the samplers of
    ``static/samplers.js``.

    Parameters
    ----------
    questionnaire : Questionnaire
        The survey.
    random_state : int or None, default=None
        Seed of the device's draws, for a reproducible simulation.  None
        draws from fresh operating-system entropy on every call, so a copy
        of the device (deep copy, pickle) draws its own.

    Examples
    --------
    >>> from skprivate.frequency import LongitudinalOracle
    >>> from skprivate.survey import Question, Questionnaire, SimulatedDevice
    >>> lo = LongitudinalOracle(categories=[["a", "b", "c"]]).fit([["a"]])
    >>> survey = Questionnaire([Question("q", "Which?", lo)], lifetime_epsilon=4.0)
    >>> device = SimulatedDevice(survey, random_state=0)
    >>> page = survey.respondent_spec({}, "/s/x")
    >>> answer = device.answers(page, {"q": "b"})["q"]
    >>> answer in (0, 1, 2), len(device.kept)
    (True, 1)
    """

    def __init__(self, questionnaire: Any, random_state: int | None = None) -> None:
        self.questionnaire = questionnaire
        self.random_state = random_state
        # seeded: one stream, for a reproducible simulation; unseeded: fresh
        # operating-system entropy on every call, so that no copy of the
        # device (deepcopy, pickle) carries a stream that replays its draws
        self._seeded_rng = (
            None if random_state is None else np.random.default_rng(random_state)
        )
        # a seeded stream keys each answer's draws by the answer (see _drawn)
        self._keyed = random_state is not None
        self.kept: dict[tuple[str, str, str], Any] = {}

    @property
    def rng(self) -> np.random.Generator:
        """The generator of one call's draws (see ``random_state``)."""
        if self._seeded_rng is None:
            return np.random.default_rng(np.random.SeedSequence())
        return self._seeded_rng

    @rng.setter
    def rng(self, generator: Any) -> None:
        # a fixed generator (a scripted one in tests) for every later call,
        # its draws used as they come
        self._seeded_rng = generator
        self._keyed = False

    def _drawn(self, rng: np.random.Generator, key: tuple) -> np.random.Generator:
        """The generator of the draws of one answer of a seeded device.

        Two seeded devices with one seed but other answers must not share
        their coins (the indicators of a truthful report would agree across
        them): the device stream gives a fresh seed, mixed with the answer's
        key (survey, question and value) as a seeded privatizer mixes its
        data.  Unseeded (fresh entropy) and scripted streams are used as
        they come.
        """
        if not self._keyed:
            return rng
        seed = [int(w) for w in rng.integers(0, 2**32, size=4)]
        mixed = words(data_fingerprint(canonical(key)))
        return np.random.default_rng(np.random.SeedSequence([*seed, *mixed]))

    def answers(self, respondent: Mapping, values: Mapping[str, Any]) -> dict:
        """The answers the page sends this wave (question name -> answer).

        Parameters
        ----------
        respondent : mapping
            The respondent spec of the wave (its ``questions.json``).
        values : mapping
            The raw value of each question (a category of a subset or
            frequency question).  Two values share a kept answer when the
            page would key them alike: a number by its value (clipped to the
            bounds of a Laplace question with ``clip``), so ``40``, ``40.0``
            and ``numpy.float64(40)`` reuse one kept answer; a category by
            its text.

        Returns
        -------
        answers : dict
        """
        survey = respondent.get("survey", "")
        out: dict[str, Any] = {}
        rng = self.rng
        fresh = None
        for entry in respondent["questions"]:
            name, spec = entry["name"], entry["spec"]
            value = values[name]
            if entry["kind"] == "interval":
                out[name] = int(sum(a < float(value) for a in entry["anchors"]))
                continue
            key = (survey, name, _kept_key(entry, value))
            if key not in self.kept:
                # local hashing and Hadamard response: one plain release
                # per value, drawn by the privatizer like the other kinds
                if entry["kind"] == "frequency" and spec["oracle"] in MEMOIZABLE:
                    code = spec["categories"].index(str(value))
                    start = code
                    if spec["oracle"] != "krr":
                        start = [int(j == code) for j in range(spec["k"])]
                    self.kept[key] = _stage(
                        spec, spec["stages"][0], start, self._drawn(rng, key)
                    )
                else:
                    if fresh is None:
                        seed = int(rng.integers(2**31))
                        fresh = self.questionnaire.simulate_answers(
                            [respondent],
                            {n: [v] for n, v in values.items()},
                            random_state=seed,
                        )[0]
                    self.kept[key] = fresh[name]
            kept = self.kept[key]
            if entry["kind"] == "frequency" and spec["memoized"]:
                out[name] = _stage(spec, spec["stages"][1], kept, self._drawn(rng, key))
            else:
                out[name] = list(kept) if isinstance(kept, list) else kept
        return out
