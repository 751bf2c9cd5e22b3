"""Exact laws of the page's samplers, read off the JavaScript the page runs.

The respondent's page privatizes answers with ``static/samplers.js``, fed by
``crypto.getRandomValues``.  :func:`page_law` runs that file, unmodified,
under Node with the random words supplied by an enumerator
(``static/exact_law.js``) and returns the exact probability of every output.

**How the words are enumerated.**  samplers.js reads a random word in two
ways only: a uniform draw on ``m`` values calls ``Math.clz32(m - 1)`` and
then reads words through their top ``b = 32 - clz32(m - 1)`` bits, rejecting
values ``>= m``; any other read is a fair bit (the word's lowest bit).  The
harness wraps ``Math.clz32`` to learn ``m`` and serves every word read from a
depth-first enumerator: a pending uniform read branches on its ``m``
accepted values (probability ``2**-b`` each) and on one rejected class
(probability ``(2**b - m) / 2**b``, the draw still pending); a bit read
branches on 0 and 1.  Every output's probability is the sum of its paths'
products, an exact rational with a power-of-two denominator.  The bits a
read does not use are filled with zeros in one pass and with ones in a
second pass (the rejected class shown by its smallest, then its largest
member); the two laws must coincide, else the code reads a word in a way
this model does not describe and :func:`page_law` raises.  Draws wider than
32 bits stop the run: the configurations must be coarse.

**Rejection loops are infinite**, so a path whose probability falls below
``2**-tail_bits`` is cut and its probability added to a *residual*.  The
true law of the page then lies, output by output, in
``[law[o], law[o] + residual]``, and a change of any probability by more
than the residual contradicts the enumerated bounds (:func:`compare_laws`).

**What this covers.**  Finite-looking trees enumerate to a residual below
``2**-30`` in seconds: RVNS releases (both band placements, every input of
a coarse grid), subset releases (uniform designs with their size
rejection, general and conditional designs, dummy categories), the Square
Wave release at epsilon 0 (its near/far coin, near draw, far draw and
far-band placement; the coin's ``Bern(exp(-epsilon))`` is then the
constant 1), and the building block ``Bern(exp(-num/den))`` on its own.  A
Square Wave or Laplace release at a positive budget calls
``Bern(exp(-.))`` inside loops, whose trees grow too fast: their bounds keep
a residual of about ``0.05`` at ``tail_bits=16``, which catches gross
errors only.  Nothing in samplers.js uses floating point for a
probability; ``rint`` and the release ``low + j * step`` are checked
through the outputs of the coarse grids.

The *claimed* law of each mechanism, the law the Python privatizer
implements, is computed here from the spec as exact rational enclosures
(``exp`` by its alternating series, rounded outward at ``2**-120``).
:func:`audit_page` compares the two question by question.
"""

from __future__ import annotations

import json
import math
import shutil
import subprocess
from dataclasses import dataclass
from fractions import Fraction
from importlib import resources
from typing import Any

import pandas as pd

from ..frequency._hashing import hash_prime
from ._spec_frequency import frequency_law

__all__ = ["PageLaw", "audit_page", "compare_laws", "page_law", "spec_law"]

_ULP = Fraction(1, 2**120)
_MAX_LEAVES = 2_000_000


@dataclass(frozen=True)
class PageLaw:
    """The enumerated law of one draw of the page.

    Attributes
    ----------
    law : dict
        Output -> exact probability of the enumerated paths giving it.
        Outputs are floats, or tuples of floats for list-valued answers.
    residual : Fraction
        Total probability of the cut paths: the page's probability of ``o``
        lies in ``[law[o], law[o] + residual]``.
    leaves : int
        Paths enumerated (per filler).
    """

    law: dict[Any, Fraction]
    residual: Fraction
    leaves: int


def _key(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_key(v) for v in value)
    if isinstance(value, bool):
        return value
    return float(value)


def _node() -> str:
    node = shutil.which("node")
    if node is None:
        raise RuntimeError(
            "auditing the page's samplers runs them under Node.js, which is not "
            "installed: install Node.js 18 or later (e.g. apt-get install nodejs, "
            "or from https://nodejs.org) so that `node` is on the PATH."
        )
    return node


def _static(name: str) -> str:
    return str(resources.files("skprivate.survey").joinpath("static", name))


def _read(result: dict) -> PageLaw:
    def frac(pair):
        return Fraction(int(pair[0]), 2 ** int(pair[1]))

    law = {_key(json.loads(k)): frac(v) for k, v in result["law"].items()}
    return PageLaw(law, frac(result["residual"]), int(result["leaves"]))


def page_laws(
    jobs: list[dict], *, tail_bits: int = 32, samplers: str | None = None
) -> list[PageLaw]:
    """Enumerated laws of several jobs in one Node process (see :func:`page_law`)."""
    if not isinstance(tail_bits, int) or not 1 <= tail_bits <= 60:
        raise ValueError(f"tail_bits must be an integer in [1, 60]; got {tail_bits!r}.")
    payload = [{"tail_bits": tail_bits, "max_leaves": _MAX_LEAVES, **j} for j in jobs]
    proc = subprocess.run(
        [_node(), _static("exact_law.js"), samplers or _static("samplers.js")],
        input=json.dumps(payload).encode(),
        capture_output=True,
        check=False,
    )
    if proc.returncode != 0:
        raise RuntimeError(
            "the enumeration of the page's samplers failed: "
            + proc.stderr.decode(errors="replace").strip()[-500:]
        )
    laws = []
    for i, result in enumerate(json.loads(proc.stdout)):
        zeros, ones = _read(result["zeros"]), _read(result["ones"])
        if zeros != ones:
            raise RuntimeError(
                f"job {i}: the law depends on bits the enumeration treats as "
                "unused; samplers.js reads its random words in a way the "
                "enumerator does not model."
            )
        if sum(zeros.law.values()) + zeros.residual != 1:
            raise RuntimeError(
                f"job {i}: the enumerated probabilities do not add to 1."
            )
        laws.append(zeros)
    return laws


def page_law(
    spec: dict | None = None,
    value: Any = None,
    *,
    op: str | None = None,
    num: int = 0,
    den: int = 1,
    tail_bits: int = 32,
    samplers: str | None = None,
) -> PageLaw:
    """Exact law of one release of the page's sampler, by enumeration.

    Parameters
    ----------
    spec : dict, optional
        A mechanism spec (:func:`~skprivate.survey.mechanism_spec`, or a
        coarse one of the same form: every uniform draw on at most 65,536
        values, every rational's denominator small).
    value : float or int, optional
        The respondent's answer (category index for a subset question).
    op : str, optional
        Instead of a release, one building block of samplers.js:
        ``"bernoulliExp"``, ``"roundedLaplace"``, ``"discreteLaplace"`` or
        ``"geometricExp"`` with arguments ``num``, ``den``.
    num, den : int
        Arguments of ``op``.
    tail_bits : int, default=32
        Paths of probability below ``2**-tail_bits`` are cut (their mass is
        the residual).
    samplers : str, optional
        Path of the samplers file (default: the one the page inlines).

    Returns
    -------
    PageLaw

    Raises
    ------
    RuntimeError
        When Node.js is not installed, or the sampler draws beyond what the
        enumeration models.

    Examples
    --------
    >>> from skprivate.survey._page_audit import page_law
    >>> spec = {
    ...     "kind": "rvns",
    ...     "ja": 0,
    ...     "jb": 3,
    ...     "band": 1,
    ...     "k": 1,
    ...     "step": 1.0,
    ...     "placement": "paper",
    ... }
    >>> law = page_law(spec, 0.0)  # doctest: +SKIP
    >>> sorted(law.law.items())[:1]  # doctest: +SKIP
    [((2.0,), Fraction(1, 2))]
    """
    job: dict[str, Any] = (
        {"spec": spec, "value": value}
        if op is None
        else {"op": op, "num": int(num), "den": int(den)}
    )
    return page_laws([job], tail_bits=tail_bits, samplers=samplers)[0]


# -- the claimed laws, as exact enclosures --------------------------------------------
def _round_out(lo: Fraction, hi: Fraction) -> tuple[Fraction, Fraction]:
    scale = 2**120
    return (
        Fraction(math.floor(lo * scale), scale),
        Fraction(math.ceil(hi * scale), scale),
    )


def exp_neg(x: Fraction) -> tuple[Fraction, Fraction]:
    """An enclosure ``[lo, hi]`` of ``exp(-x)`` for a rational ``x >= 0``."""
    x = Fraction(x)
    if x < 0:
        raise ValueError("exp_neg needs x >= 0.")
    pieces = max(1, math.ceil(x))
    y = x / pieces  # in [0, 1]: the series alternates with decreasing terms
    total, term, j = Fraction(1), Fraction(1), 0
    while True:
        j += 1
        term = term * y / j
        nxt = total - term if j % 2 else total + term
        if term < _ULP:
            lo, hi = sorted((total, nxt))
            break
        total = nxt
    lo, hi = _round_out(lo, hi)
    return _round_out(lo**pieces, hi**pieces)


def _exact(p: Fraction) -> tuple[Fraction, Fraction]:
    return (p, p)


def _rint(v: float) -> int:
    return round(v)  # round half to even, as numpy.rint


def _square_wave_law(spec: dict, x: float) -> dict:
    n, half = spec["n_cells"], spec["half_cells"]
    width = 2 * half + 1
    e_lo, e_hi = exp_neg(Fraction(spec["epsilon"]))
    q_lo, q_hi = (
        Fraction(width) / (width + n * e_hi),
        Fraction(width) / (width + n * e_lo),
    )
    v = (x - spec["low"]) / (spec["high"] - spec["low"])
    k = min(max(_rint(v * n), 0), n)
    law = {}
    for j in range(-half, n + half + 1):
        near = abs(j - k) <= half
        p = (q_lo / width, q_hi / width) if near else ((1 - q_hi) / n, (1 - q_lo) / n)
        law[float(spec["low"] + j * spec["step"])] = p
    return law


def _laplace_law(spec: dict, x: float) -> dict:
    if spec.get("noise", "rounded_laplace") != "rounded_laplace":
        raise ValueError("only the rounded Laplace noise has a claimed law here.")
    gamma = Fraction(spec["gamma"])
    k = min(max(_rint(x / spec["step"]), spec["k_low"]), spec["k_high"])
    low, high = spec["k_low"] - spec["margin"], spec["k_high"] + spec["margin"]

    def tail(t: int) -> tuple[Fraction, Fraction]:  # P(N >= t)
        if t >= 1:
            lo, hi = exp_neg(gamma * (t - Fraction(1, 2)))
            return lo / 2, hi / 2
        lo, hi = tail(1 - t)
        return 1 - hi, 1 - lo

    law = {}
    for m in range(low, high + 1):
        a = tail(m - k) if m > low else (Fraction(1), Fraction(1))
        b = tail(m - k + 1) if m < high else (Fraction(0), Fraction(0))
        law[float(m * spec["step"])] = (max(a[0] - b[1], Fraction(0)), a[1] - b[0])
    return law


def _rvns_law(spec: dict, x: float) -> dict:
    ja, jb, band, k = spec["ja"], spec["jb"], spec["band"], spec["k"]
    jx = min(max(_rint(x / spec["step"]), ja), jb)
    if spec["placement"] == "boundary_safe":
        starts = range(jx - band, jx + 1)
        first, last = ja - band, jb + band
    else:
        starts = range(max(ja, jx - band), min(jx, jb - band) + 1)
        first, last = ja, jb
    law: dict = {}
    for s in starts:
        free = [i for i in range(first, last + 1) if not s <= i <= s + band]
        p = Fraction(1, len(starts) * len(free) ** k)
        for reports in _tuples(free, k):
            key = tuple(float(i * spec["step"]) for i in reports)
            law[key] = law.get(key, Fraction(0)) + p
    return {key: _exact(p) for key, p in law.items()}


def _tuples(values: list[int], k: int):
    if k == 0:
        yield ()
        return
    for head in values:
        for rest in _tuples(values, k - 1):
            yield (head, *rest)


def _subset_law(spec: dict, code: int) -> dict:
    p = spec["p"]
    if spec["design"] == "uniform":
        low, high = spec["sizes"]
        drawn = [
            tuple((mask >> i) & 1 for i in range(p))
            for mask in range(2**p)
            if low <= bin(mask).count("1") <= high
        ]
        weights = [Fraction(1, len(drawn))] * len(drawn)
    else:
        total = Fraction(int(spec["total"]))
        drawn = [tuple(s) for s in spec["subsets"]]
        weights = [Fraction(int(w)) / total for w in spec["weights"]]
    alpha = Fraction(spec["alpha"]) if spec["dummies"] else Fraction(0)
    law: dict = {}

    def add(report, prob):
        key = tuple(float(b) for b in report)
        law[key] = law.get(key, Fraction(0)) + prob

    if spec["design"] == "conditional":
        mass = sum(w for s, w in zip(drawn, weights) if s[code])
        chosen = [(s, w / mass) for s, w in zip(drawn, weights) if s[code]]
        for s, w in chosen:
            if not spec["dummies"]:
                add(s, w)
                continue
            # a dummy respondent still reports a subset holding `code` here
            add((*s, 1, 0), w * (alpha + (1 - 2 * alpha) / 2))
            add((*s, 0, 1), w * (alpha + (1 - 2 * alpha) / 2))
        return {key: _exact(v) for key, v in law.items()}
    for s, w in zip(drawn, weights):
        kept = s if s[code] else tuple(1 - b for b in s)
        if not spec["dummies"]:
            add(kept, w)
            continue
        real = (1 - 2 * alpha) * w / 2
        add((*kept, 1, 0), real)
        add((*kept, 0, 1), real)
        add((*s, 1, 0), alpha * w)
        add((*s, 0, 1), alpha * w)
    return {key: _exact(v) for key, v in law.items()}


def _frequency_law(spec: dict, code: int) -> dict:
    law = {}
    for (report,), p in frequency_law(spec, code).items():
        key = tuple(float(b) for b in report) if isinstance(report, tuple) else None
        law[float(report) if key is None else key] = _exact(p)
    return law


def spec_law(spec: dict, value: Any) -> dict[Any, tuple[Fraction, Fraction]]:
    """The law the mechanism claims for one answer, as exact enclosures.

    Parameters
    ----------
    spec : dict
        A mechanism spec of kind ``"square_wave"``, ``"laplace"``,
        ``"rvns"``, ``"subset"`` or ``"frequency"`` (one wave).
    value : float or int
        The answer (category index for a subset question).

    Returns
    -------
    law : dict
        Output -> ``(lo, hi)``, rationals with ``lo <= P(output) <= hi``
        (equal unless the probability involves ``exp``).

    Examples
    --------
    >>> from skprivate.survey._page_audit import spec_law
    >>> spec = {
    ...     "kind": "rvns",
    ...     "ja": 0,
    ...     "jb": 3,
    ...     "band": 1,
    ...     "k": 1,
    ...     "step": 1.0,
    ...     "placement": "paper",
    ... }
    >>> spec_law(spec, 0.0)[(2.0,)]
    (Fraction(1, 2), Fraction(1, 2))
    """
    builders = {
        "square_wave": _square_wave_law,
        "laplace": _laplace_law,
        "rvns": _rvns_law,
        "subset": _subset_law,
        "frequency": _frequency_law,
    }
    if spec.get("kind") not in builders:
        raise ValueError(f"spec['kind'] has no claimed law here: {spec.get('kind')!r}.")
    return builders[spec["kind"]](spec, value)


def compare_laws(page: PageLaw, claimed: dict) -> tuple[Fraction, Fraction]:
    """Certified lower and upper bounds of ``max |P_page - P_claimed|``.

    The lower bound is positive exactly when the enumerated bounds and the
    claimed enclosures contradict each other for some output.

    Examples
    --------
    >>> from fractions import Fraction
    >>> from skprivate.survey._page_audit import PageLaw, compare_laws
    >>> page = PageLaw({1.0: Fraction(1, 2), 2.0: Fraction(1, 2)}, Fraction(0), 2)
    >>> compare_laws(page, {1.0: (Fraction(1, 2),) * 2, 2.0: (Fraction(1, 2),) * 2})
    (Fraction(0, 1), Fraction(0, 1))
    """
    zero = (Fraction(0), Fraction(0))
    low = high = Fraction(0)
    for key in set(page.law) | set(claimed):
        a = page.law.get(key, Fraction(0))
        b = a + page.residual
        c, d = claimed.get(key, zero)
        low = max(low, a - d, c - b)
        high = max(high, abs(b - c), abs(d - a))
    return low, high


def _worst_epsilon(laws: list[PageLaw]) -> float:
    """Upper bound of the largest log-ratio of two inputs' page probabilities."""
    keys = set().union(*(law.law for law in laws))
    worst = 0.0
    for key in keys:
        lows = [law.law.get(key, Fraction(0)) for law in laws]
        highs = [lo + law.residual for lo, law in zip(lows, laws)]
        if min(lows) == 0:
            return math.inf
        worst = max(worst, math.log(max(highs) / min(lows)))
    return worst


# -- coarse configurations and the audit ---------------------------------------
def _quarter(eps: float) -> Fraction:
    return Fraction(max(0, round(4 * float(eps))), 4)


def _small(text: str | None, limit: int = 2**16) -> bool:
    return text is not None and Fraction(text).denominator <= limit


def _coarse_parts(
    spec: dict,
) -> list[tuple[str, dict, list, dict | None, float | None]]:
    """(part, coarse spec or op job, inputs, claimed law maker, claimed epsilon)."""
    kind = spec["kind"]
    if kind == "square_wave":
        n = 8
        half = min(3, math.floor(float(spec["half_width"]) * n))
        coarse = {
            "kind": "square_wave",
            "low": 0.0,
            "high": float(n),
            "n_cells": n,
            "half_cells": half,
            "step": 1.0,
            "epsilon": "0/1",
        }
        eps = _quarter(spec["epsilon_value"])
        coin = {"op": "bernoulliExp", "num": eps.numerator, "den": eps.denominator}
        return [
            (
                "release at epsilon 0",
                coarse,
                [float(k) for k in range(n + 1)],
                None,
                0.0,
            ),
            (f"coin Bern(exp(-{eps}))", coin, [None], None, None),
        ]
    if kind == "laplace":
        eps = _quarter(spec["epsilon"]) or Fraction(1, 4)
        coarse = {
            "kind": "laplace",
            "step": 1.0,
            "k_low": 0,
            "k_high": 2,
            "margin": 1,
            "noise": "rounded_laplace",
            "gamma": str(eps / 2),
        }
        return [
            (f"release at epsilon {eps}", coarse, [0.0, 1.0, 2.0], None, float(eps))
        ]
    if kind == "rvns":
        span = 5
        ratio = spec["band"] / max(1, spec["jb"] - spec["ja"])
        band = max(
            1, min(span - 1 if spec["placement"] == "paper" else 3, round(ratio * span))
        )
        coarse = {
            "kind": "rvns",
            "ja": 0,
            "jb": span,
            "band": band,
            "k": min(int(spec["k"]), 2),
            "step": 1.0,
            "placement": spec["placement"],
        }
        return [("release", coarse, [float(j) for j in range(span + 1)], None, None)]
    if kind == "subset":
        coarse = dict(spec)
        if spec["dummies"] and not _small(spec["alpha"]):
            coarse["alpha"] = "1/8"
        if spec["design"] == "uniform" and spec["p"] > 8:
            coarse.update(p=6, sizes=[2, 4], n_outputs=6 + 2 * spec["dummies"])
        elif spec["design"] != "uniform" and int(spec["total"]) > 2**16:
            weights = [
                max(1, round(64 * int(w) / int(spec["total"]))) for w in spec["weights"]
            ]
            coarse.update(weights=[str(w) for w in weights], total=str(sum(weights)))
        return [("release", coarse, list(range(coarse["p"])), None, None)]
    if kind == "frequency":
        # coins rounded to sixteenths (k-RR, local hashing, Hadamard) or
        # quarters (unary: k bits of two coins each), strictly between 0 and
        # 1; three categories, and for local hashing at most three buckets
        # (the prime is then 3: six seeds), for Hadamard response order 4
        den = 4 if spec["oracle"] in ("oue", "sue") else 16
        k = min(spec["k"], 3)

        def coin(text: str) -> str:
            return f"{min(den - 1, max(1, round(den * Fraction(text))))}/{den}"

        stages = [{n: coin(v) for n, v in stage.items()} for stage in spec["stages"]]
        coarse = {**spec, "k": k, "categories": spec["categories"][:k]}
        coarse["stages"] = stages
        if spec["oracle"] in ("olh", "blh"):
            g = min(spec["buckets"], 3)
            coarse.update(buckets=g, prime=hash_prime(k, g))
        elif spec["oracle"] == "hr":
            coarse["order"] = 4
        return [("release", coarse, list(range(k)), None, None)]
    return []


def _coin_law(job: dict) -> dict:
    lo, hi = exp_neg(Fraction(job["num"], job["den"]))
    return {True: (lo, hi), False: (1 - hi, 1 - lo)}


def _specs(target: Any) -> list[tuple[str, dict]]:
    questions = getattr(target, "questions", None)
    if questions is not None:
        return [(q.name, q.spec) for q in questions]
    if hasattr(target, "spec") and hasattr(target, "name"):
        return [(target.name, target.spec)]
    if isinstance(target, dict) and "kind" in target:
        return [("spec", target)]
    raise TypeError(
        "audit_page needs a Questionnaire, a Question or a mechanism spec dict; "
        f"got {type(target).__name__}."
    )


def audit_page(
    target: Any, *, tail_bits: int = 20, samplers: str | None = None
) -> pd.DataFrame:
    """Compare each question's law on the page with its mechanism's law, exactly.

    For every question with an on-device sampler, a coarse configuration of
    the same mechanism (same kind, band placement, design and dummies; a
    small grid, and rationals with small denominators) is released by the
    page's own samplers.js under Node with every random word enumerated
    (see the module notes), for every input of the coarse grid, and the
    resulting exact bounds are compared with the mechanism's exact law.
    Square Wave questions are checked at epsilon 0 (all of the release but
    its ``Bern(exp(-epsilon))`` coin, which is then checked on its own at
    the question's epsilon rounded to a quarter).  Interval questions draw
    no randomness on the page and get no row.

    Parameters
    ----------
    target : Questionnaire, Question or dict
        What to audit; a dict is one mechanism spec.
    tail_bits : int, default=20
        Paths of probability below ``2**-tail_bits`` are cut (Laplace
        releases use ``min(tail_bits, 10)``: their trees grow fastest).
    samplers : str, optional
        Path of a samplers file to audit instead of the page's.

    Returns
    -------
    table : pandas.DataFrame
        One row per checked part: ``question``, ``kind``, ``part``,
        ``configuration`` (the coarse spec, JSON), ``max_abs_difference``
        (certified upper bound of the largest difference of an output's
        probability, over the inputs), ``discrepancy`` (certified lower
        bound: positive means the page's law differs from the mechanism's),
        ``residual`` (largest cut mass), ``page_epsilon`` (upper bound of the
        page law's worst log-ratio between two inputs; ``inf`` when an
        output is impossible for some input), ``claimed_epsilon`` (the
        mechanism's, on that configuration; NaN when it claims none) and
        ``agrees`` (``discrepancy == 0``).

    Raises
    ------
    RuntimeError
        When Node.js is not installed.
    TypeError
        For a target that is not a questionnaire, question or spec.

    Examples
    --------
    >>> from skprivate import RVNSPerturber
    >>> from skprivate.survey import Question, Questionnaire, audit_page
    >>> q = Question(
    ...     "t", "Minutes?", RVNSPerturber(d=20.0, k=2, bounds=(0, 120)).fit([[0.0]])
    ... )
    >>> table = audit_page(Questionnaire([q]))  # doctest: +SKIP
    >>> bool(table["agrees"].all())  # doctest: +SKIP
    True
    """
    rows = []
    for name, spec in _specs(target):
        for part, coarse, inputs, _, claimed_eps in _coarse_parts(spec):
            coin = "op" in coarse
            jobs = [coarse] if coin else [{"spec": coarse, "value": x} for x in inputs]
            bits = min(tail_bits, 10) if coarse.get("kind") == "laplace" else tail_bits
            laws = page_laws(jobs, tail_bits=bits, samplers=samplers)
            low = high = Fraction(0)
            for job, law in zip(jobs, laws):
                claim = _coin_law(job) if coin else spec_law(job["spec"], job["value"])
                lo, hi = compare_laws(law, claim)
                low, high = max(low, lo), max(high, hi)
            rows.append(
                {
                    "question": name,
                    "kind": spec["kind"],
                    "part": part,
                    "configuration": json.dumps(coarse, sort_keys=True),
                    "max_abs_difference": float(high),
                    "discrepancy": float(low),
                    "residual": float(max(law.residual for law in laws)),
                    "page_epsilon": math.nan if coin else _worst_epsilon(laws),
                    "claimed_epsilon": math.nan if claimed_eps is None else claimed_eps,
                    "agrees": low == 0,
                }
            )
    return pd.DataFrame(rows)
