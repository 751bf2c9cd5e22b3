"""Frequency questions: every frequency oracle; k-RR and unary encoding memoized too.

A frequency question asks for one category and sends a report of a
frequency oracle of :mod:`skprivate.frequency`: the code of a category
(k-RR), one bit per category (unary encoding: OUE, SUE), a public seed
and a hash bucket (local hashing: OLH, BLH) or an index of the Hadamard
matrix (Hadamard response, HR).  A
:class:`~skprivate.frequency.LongitudinalOracle` question (k-RR or unary
encoding) has two stages (RAPPOR's permanent and instantaneous answers):
the device draws the permanent answer once per value and keeps it, and
every wave sends a fresh randomization of it.  Local hashing and Hadamard
response questions have one stage only (``memoized`` is False).

The spec lists the stages, each with its coins as exact rationals (the
dyadic numerators over ``2**62`` of :mod:`skprivate.frequency._coins`):

* a k-RR stage ``{"keep": "a/2**62"}``: the input category is kept with
  probability ``keep``, else replaced by one of the ``k - 1`` others,
  uniformly;
* a unary stage ``{"one": ..., "zero": ...}``: every output bit is 1 with
  probability ``one`` when its input bit is 1 and ``zero`` when it is 0
  (the first stage's input is the one-hot vector of the category);
* a local hashing stage ``{"keep": ...}`` with the spec's ``prime`` ``P``
  and ``buckets`` ``g`` (:mod:`skprivate.frequency._hashing`): the seed
  ``s`` is uniform on ``[0, (P - 1) P)``, the category ``x`` hashes to
  ``h_s(x) = ((a x + b) mod P) mod g`` (``a = 1 + s // P``,
  ``b = s % P``), kept with probability ``keep``, else replaced by one of
  the ``g - 1`` other buckets uniformly; the report is ``[s, bucket]``;
* a Hadamard stage ``{"keep": ...}`` with the spec's ``order`` ``K`` (a
  power of two above ``k``): category ``x`` owns the indices ``j`` where
  ``(x + 1) & j`` has an even number of set bits (half of ``0..K-1``); the
  report is an index uniform in that half with probability ``keep``, else
  uniform in the other half.

:func:`frequency_law` gives the exact law of the reports of any number of
waves sent from one permanent answer, and :func:`joint_epsilon` its exact
privacy loss.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction
from typing import Any

import numpy as np

from ..frequency import LongitudinalOracle
from ..frequency._coins import COIN_SCALE
from ..frequency._hashing import collision_probability
from ..frequency._privatizers import _FrequencyPrivatizer

__all__ = [
    "check_frequency_answer",
    "check_frequency_spec",
    "frequency_disclosure",
    "frequency_law",
    "frequency_spec",
    "is_frequency",
    "joint_epsilon",
    "later_wave_epsilon",
]

#: Oracles a frequency question supports (their spec has stages above).
ORACLES = ("krr", "oue", "sue", "olh", "blh", "hr")
#: Oracles that can be memoized (a LongitudinalOracle's two stages).
MEMOIZABLE = ("krr", "oue", "sue")
#: Local hashing oracles (a report is ``[seed, bucket]``).
HASHED = ("olh", "blh")
#: Largest number of joint outputs (k-RR: k**waves) enumerated exactly.
MAX_JOINT_OUTPUTS = 1 << 20


def is_frequency(privatizer: Any) -> bool:
    """Whether ``privatizer`` is a frequency privatizer of skprivate."""
    return isinstance(privatizer, _FrequencyPrivatizer)


def _coin(numerator: int) -> str:
    return f"{int(numerator)}/{COIN_SCALE}"


def _stage(oracle: Any) -> dict[str, str]:
    if oracle.kind in ("krr", *HASHED, "hr"):
        return {"keep": _coin(oracle.keep)}
    return {"one": _coin(oracle.own), "zero": _coin(oracle.other)}


def check_declared_categories(privatizer: Any) -> None:
    """Refuse a frequency privatizer whose categories come from the data."""
    if isinstance(getattr(privatizer, "categories", "auto"), str):
        raise ValueError(
            f"declare `categories=` on {type(privatizer).__name__}: a survey "
            "question shows every category in every respondent's page, and "
            "categories read from the data (categories='auto') include values "
            "held by a single respondent. Fit it with categories=[[...]] listed "
            "before seeing the data."
        )
    fitted = getattr(privatizer, "categories_", None)
    if fitted is not None:
        declared = privatizer.categories
        same = len(declared) == len(fitted) and all(
            list(np.asarray(list(d), dtype=object).tolist())
            == list(np.asarray(f, dtype=object).tolist())
            for d, f in zip(declared, fitted, strict=False)
        )
        if not same:
            raise ValueError(
                f"{type(privatizer).__name__} was fitted with other categories "
                "than it declares; fit it again with categories=[[...]] declared."
            )


def frequency_spec(priv: Any) -> dict[str, Any]:
    """The spec of a fitted one-column frequency privatizer (see the module)."""
    labels = [str(c) for c in np.asarray(priv.categories_[0], dtype=object).tolist()]
    if isinstance(priv, LongitudinalOracle):
        if int(priv.waves) != 1:
            raise ValueError(
                f"LongitudinalOracle(waves={priv.waves}) on a survey question: set "
                "waves=1; the survey collects its waves one at a time, and the "
                "respondent's device keeps the permanent answer between them."
            )
        channel = priv.oracles_[0]
        instant = (
            {"keep": _coin(channel.instant.keep)}
            if channel.kind == "krr"
            else {
                "one": _coin(channel.instant_numerators[0]),
                "zero": _coin(channel.instant_numerators[1]),
            }
        )
        summary = priv.privacy_summary()
        return {
            "kind": "frequency",
            "oracle": channel.kind,
            "k": len(labels),
            "categories": labels,
            "memoized": True,
            "stages": [_stage(channel.permanent), instant],
            "epsilon": float(summary["epsilon_per_wave"]),
            "epsilon_permanent": float(summary["epsilon_lifetime"]),
        }
    oracle = priv.oracles_[0]
    if oracle.kind not in ORACLES:
        raise ValueError(
            f"{type(priv).__name__} uses the {oracle.kind!r} oracle, which has no "
            f"page sampler; a survey question takes one of {list(ORACLES)}."
        )
    eps = float(priv.privacy_summary()["epsilon_per_feature"])
    spec = {
        "kind": "frequency",
        "oracle": oracle.kind,
        "k": len(labels),
        "categories": labels,
        "memoized": False,
        "stages": [_stage(oracle)],
        "epsilon": eps,
        "epsilon_permanent": None,
    }
    if oracle.kind in HASHED:
        spec.update(prime=int(oracle.prime), buckets=int(oracle.n_buckets))
    elif oracle.kind == "hr":
        spec["order"] = int(oracle.size)
    return spec


def check_frequency_spec(name: str, spec: dict) -> None:
    """Refuse a frequency spec the page cannot run, naming question ``name``.

    Local hashing and Hadamard response questions are collected plainly:
    one report per value, sent again unchanged in later waves; only k-RR and
    unary encoding have a memoized (two-stage) form.

    Parameters
    ----------
    name : str
        The question's name.
    spec : dict
        Its frequency spec (:func:`frequency_spec`).

    Raises
    ------
    ValueError
        For an oracle without a page sampler, or a memoized spec of an
        oracle that has no memoized form.

    Examples
    --------
    >>> from skprivate.survey._spec_frequency import check_frequency_spec
    >>> check_frequency_spec("q", {"oracle": "hr", "memoized": True})
    Traceback (most recent call last):
    ...
    ValueError: question 'q': the 'hr' oracle has no memoized form; ...
    """
    oracle = spec.get("oracle")
    if oracle not in ORACLES:
        raise ValueError(
            f"question {name!r}: the frequency oracle {oracle!r} has no page "
            f"sampler; one of {list(ORACLES)} is expected."
        )
    if spec.get("memoized") and oracle not in MEMOIZABLE:
        raise ValueError(
            f"question {name!r}: the {oracle!r} oracle has no memoized form; "
            f"memoized questions take {list(MEMOIZABLE)} (a LongitudinalOracle), "
            "and a local hashing or Hadamard response question sends one plain "
            "report per value (memoized=False)."
        )


def _is_code(value: Any, k: int) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < k


def check_frequency_answer(name: str, spec: dict, value: Any, error: type) -> Any:
    """Check a frequency answer: one code (k-RR), ``k`` bits (unary),
    ``[seed, bucket]`` (local hashing) or one index (Hadamard response)."""
    k = spec["k"]
    if spec["oracle"] in HASHED:
        seeds, g = (spec["prime"] - 1) * spec["prime"], spec["buckets"]
        if (
            not isinstance(value, list)
            or len(value) != 2
            or not _is_code(value[0], seeds)
            or not _is_code(value[1], g)
        ):
            raise error(
                f"answer to {name!r} must be a list [seed, bucket] of two "
                f"integers: a seed from 0 to {seeds - 1} and a bucket from 0 to "
                f"{g - 1}."
            )
        return [int(value[0]), int(value[1])]
    if spec["oracle"] == "hr":
        if not _is_code(value, spec["order"]):
            raise error(
                f"answer to {name!r} must be the reported Hadamard index, an "
                f"integer from 0 to {spec['order'] - 1}."
            )
        return int(value)
    if spec["oracle"] == "krr":
        if not _is_code(value, k):
            raise error(
                f"answer to {name!r} must be the index of the reported category, "
                f"an integer from 0 to {k - 1}."
            )
        return int(value)
    if (
        not isinstance(value, list)
        or len(value) != k
        or not all(_is_code(b, 2) for b in value)
    ):
        raise error(
            f"answer to {name!r} must be a list of {k} integers 0 or 1 (one per "
            "category)."
        )
    return list(value)


# -- exact laws ------------------------------------------------------------------
def _stage_rows(spec: dict, stage: dict) -> Any:
    """One stage's transition ``P(output | input)`` as exact fractions.

    k-RR: a ``k x k`` table; unary: the per-bit ``2 x 2`` table (input bit,
    output bit), the bits being independent given the input.
    """
    k = spec["k"]
    if spec["oracle"] == "krr":
        keep = Fraction(stage["keep"])
        other = (1 - keep) / (k - 1)
        return [[keep if i == j else other for j in range(k)] for i in range(k)]
    one, zero = Fraction(stage["one"]), Fraction(stage["zero"])
    return [[1 - zero, zero], [1 - one, one]]


def _bit_law(spec: dict, own: bool, waves: int) -> dict[tuple, Fraction]:
    """Law of one bit's reports over ``waves`` waves (unary encoding)."""
    first = _stage_rows(spec, spec["stages"][0])[int(own)]
    if len(spec["stages"]) == 1:
        if waves != 1:
            raise ValueError("a one-stage question releases one report per value.")
        return {(b,): first[b] for b in (0, 1)}
    second = _stage_rows(spec, spec["stages"][1])
    law = {}
    for reports in itertools.product((0, 1), repeat=waves):
        law[reports] = sum(
            first[b] * math.prod(second[b][r] for r in reports) for b in (0, 1)
        )
    return law


def _one_report(waves: int) -> None:
    if waves != 1:
        raise ValueError("a one-stage question releases one report per value.")


def _hashed_law(spec: dict, code: int) -> dict[tuple, Fraction]:
    """Law of ``[seed, bucket]``: every seed, and ``g``-ary randomized response
    of the category's bucket under it."""
    prime, g = spec["prime"], spec["buckets"]
    seeds = (prime - 1) * prime
    if seeds * g > MAX_JOINT_OUTPUTS:
        raise ValueError(
            f"{seeds} seeds x {g} buckets are too many reports to enumerate."
        )
    keep = Fraction(spec["stages"][0]["keep"])
    other = (1 - keep) / (g - 1)
    law = {}
    for s in range(seeds):
        a, b = 1 + s // prime, s % prime
        bucket = ((a * code + b) % prime) % g
        for v in range(g):
            law[((s, v),)] = (keep if v == bucket else other) / seeds
    return law


def _in_half(code: int, index: int) -> bool:
    """Whether Hadamard index ``index`` lies in category ``code``'s half."""
    return bin((code + 1) & index).count("1") % 2 == 0


def _hadamard_law(spec: dict, code: int) -> dict[tuple, Fraction]:
    half = spec["order"] // 2
    keep = Fraction(spec["stages"][0]["keep"])
    return {
        (j,): (keep if _in_half(code, j) else 1 - keep) / half
        for j in range(spec["order"])
    }


def frequency_law(spec: dict, code: int, waves: int = 1) -> dict[tuple, Fraction]:
    """Exact law of the reports of ``waves`` waves sent for one category.

    The waves share one permanent answer (a memoized question), so the
    reports are dependent; a one-stage question has one report.

    Parameters
    ----------
    spec : dict
        A frequency question's spec (:func:`frequency_spec`).
    code : int
        The category's index.
    waves : int, default=1
        Number of waves.

    Returns
    -------
    law : dict
        Tuple of the waves' answers (a code, a tuple of bits, a
        ``(seed, bucket)`` pair or a Hadamard index, per wave) -> exact
        probability.

    Examples
    --------
    >>> from skprivate.survey._spec_frequency import frequency_law
    >>> spec = {"oracle": "krr", "k": 2, "stages": [{"keep": "3/4"}]}
    >>> frequency_law(spec, 0)
    {(0,): Fraction(3, 4), (1,): Fraction(1, 4)}
    """
    k = spec["k"]
    if spec["oracle"] in HASHED:
        _one_report(waves)
        return _hashed_law(spec, code)
    if spec["oracle"] == "hr":
        _one_report(waves)
        return _hadamard_law(spec, code)
    if spec["oracle"] == "krr":
        first = _stage_rows(spec, spec["stages"][0])[code]
        if len(spec["stages"]) == 1:
            if waves != 1:
                raise ValueError("a one-stage question releases one report per value.")
            return {(j,): first[j] for j in range(k)}
        second = _stage_rows(spec, spec["stages"][1])
        return {
            reports: sum(
                first[b] * math.prod(second[b][r] for r in reports) for b in range(k)
            )
            for reports in itertools.product(range(k), repeat=waves)
        }
    own, other = _bit_law(spec, True, waves), _bit_law(spec, False, waves)
    law = {}
    for bits in itertools.product(own, repeat=k):
        prob = math.prod((own if j == code else other)[bits[j]] for j in range(k))
        # per wave, the vector of the k bits
        law[tuple(tuple(b[t] for b in bits) for t in range(waves))] = prob
    return law


def frequency_disclosure(spec: dict) -> tuple[Fraction, Fraction, Fraction | None]:
    """What one wave's report says about the category, exactly.

    Returns ``(own, other, alone)``: k-RR: the probabilities that the
    report is the respondent's category and a given other one (``alone``
    equals ``own``: the category itself is sent); unary encoding: the
    probabilities that the respondent's bit and another's is 1, and that
    the respondent's bit alone is 1; local hashing: the probabilities that
    the reported bucket is the respondent's category's and a given other
    category's under the seed (the family's exact collision probability
    counted), ``alone`` None; Hadamard response: the probabilities that
    the index lies in the respondent's half and in another category's
    (one half), ``alone`` None.

    Parameters
    ----------
    spec : dict
        A frequency question's spec.

    Returns
    -------
    own, other : Fraction
    alone : Fraction or None

    Examples
    --------
    >>> from skprivate.survey._spec_frequency import frequency_disclosure
    >>> spec = {"oracle": "oue", "k": 3, "stages": [{"one": "1/2", "zero": "1/4"}]}
    >>> frequency_disclosure(spec)
    (Fraction(1, 2), Fraction(1, 4), Fraction(9, 32))
    """
    if spec["oracle"] in HASHED:
        keep = Fraction(spec["stages"][0]["keep"])
        moved = (1 - keep) / (spec["buckets"] - 1)
        shared = collision_probability(spec["prime"], spec["buckets"])
        return keep, shared * keep + (1 - shared) * moved, None
    if spec["oracle"] == "hr":
        # another row's half holds half of the respondent's half and half
        # of its complement
        return Fraction(spec["stages"][0]["keep"]), Fraction(1, 2), None
    if spec["oracle"] == "krr":
        law = frequency_law(spec, 0, 1)  # two stages: their composed law
        return law[(0,)], law[(1,)], law[(0,)]
    own = _bit_law(spec, True, 1)[(1,)]
    other = _bit_law(spec, False, 1)[(1,)]
    return own, other, own * (1 - other) ** (spec["k"] - 1)


def _log_ratio(a: Fraction, b: Fraction) -> float:
    return (
        math.log(a.numerator)
        - math.log(a.denominator)
        - math.log(b.numerator)
        + math.log(b.denominator)
    )


def joint_epsilon(spec: dict, waves: int) -> float:
    """Exact privacy loss of ``waves`` reports sent for one unchanged category.

    The largest log ratio, over two categories and one sequence of
    reports, of their probabilities under :func:`frequency_law`.  Every
    pair of categories is alike (both oracles treat the categories
    symmetrically), so categories 0 and 1 attain it.  k-RR enumerates the
    ``k**waves`` sequences; unary encoding factors over the bits: only the
    two categories' own bits differ in law, so the loss is
    ``max_r log(P_own(r) / P_other(r)) + max_r log(P_other(r) / P_own(r))``
    over one bit's ``2**waves`` sequences.  Local hashing and Hadamard
    response send one report (``waves=1``), whose loss is the log ratio of
    the kept and a moved report's probabilities.

    Parameters
    ----------
    spec : dict
        A frequency question's spec.
    waves : int
        Number of waves (1 for a one-stage question).

    Returns
    -------
    epsilon : float

    Examples
    --------
    >>> from skprivate.survey._spec_frequency import joint_epsilon
    >>> spec = {"oracle": "krr", "k": 2, "stages": [{"keep": "3/4"}]}
    >>> round(joint_epsilon(spec, 1), 6)  # log 3
    1.098612
    """
    if spec["oracle"] in (*HASHED, "hr"):
        _one_report(waves)
        keep = Fraction(spec["stages"][0]["keep"])
        moved = 1 - keep
        if spec["oracle"] in HASHED:
            moved /= spec["buckets"] - 1
        return _log_ratio(keep, moved)
    if spec["oracle"] == "krr":
        if spec["k"] ** waves > MAX_JOINT_OUTPUTS:
            raise ValueError(
                f"{spec['k']}**{waves} report sequences are too many to enumerate."
            )
        a, b = frequency_law(spec, 0, waves), frequency_law(spec, 1, waves)
        return max(max(_log_ratio(a[r], b[r]), _log_ratio(b[r], a[r])) for r in a)
    own, other = _bit_law(spec, True, waves), _bit_law(spec, False, waves)
    up = max(_log_ratio(own[r], other[r]) for r in own)
    down = max(_log_ratio(other[r], own[r]) for r in own)
    return up + down


def later_wave_epsilon(spec: dict) -> float:
    """Loss bound of one later wave of a memoized question, given the earlier ones.

    Whatever the values of the earlier and the current wave, a later wave's
    report given all earlier reports is the instantaneous stage applied to
    a kept answer drawn from some law (the posterior of the kept answer of
    a value seen before, or the first stage of a new value): a mixture of
    the instantaneous stage's rows.  Two mixtures of the same rows differ
    at most by the stage's largest ratio over two inputs, so by adaptive
    composition the waves after the first add at most this each: k-RR, the
    instantaneous stage's own loss; unary encoding, ``k`` times the largest
    log ratio of one bit (two kept answers may differ in every bit).

    Parameters
    ----------
    spec : dict
        A memoized frequency question's spec.

    Returns
    -------
    epsilon : float

    Examples
    --------
    >>> from skprivate.survey._spec_frequency import later_wave_epsilon
    >>> spec = {"oracle": "krr", "k": 3, "stages": [{"keep": "1/2"}, {"keep": "1/2"}]}
    >>> round(later_wave_epsilon(spec), 6)  # log((1/2) / (1/4))
    0.693147
    """
    if spec["oracle"] not in MEMOIZABLE:
        raise ValueError(
            f"the {spec['oracle']!r} oracle has no memoized form; later waves "
            f"have a bound of their own for {list(MEMOIZABLE)} only."
        )
    stage = spec["stages"][-1]
    if spec["oracle"] == "krr":
        keep = Fraction(stage["keep"])
        return _log_ratio(keep, (1 - keep) / (spec["k"] - 1))
    one, zero = Fraction(stage["one"]), Fraction(stage["zero"])
    bit = max(_log_ratio(one, zero), _log_ratio(1 - zero, 1 - one))
    return spec["k"] * bit
