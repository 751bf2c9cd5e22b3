"""Exact checks of the page's samplers that kill the mutants of samplers.js.

``sampler_checks.js`` enumerates each job's law with ``static/exact_law.js``
and compares it with the law the mechanism claims (computed here, exactly,
from the spec), and runs the samplers on scripted random words.  The same
checks judge every mutant of ``benchmarks/mutation_js.py`` (Stryker): the
``existing`` group repeats the jobs of ``test_page_exact_laws.py`` and the
page-law jobs of ``test_frequency_questions.py``, the
``new`` group adds the cases that its surviving mutants showed were missing.
"""

from __future__ import annotations

import json
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest

from skprivate import SubsetUniform
from skprivate.subset import SubsetDesign, SubsetMechanism
from skprivate.survey import mechanism_spec
from skprivate.survey._page_audit import exp_neg, spec_law
from skprivate.survey._spec_frequency import frequency_law

from .conftest import node_path, skip_or_fail

HERE = Path(__file__).parent
CHECKS_JS = HERE / "sampler_checks.js"
SAMPLERS = HERE.parents[1] / "skprivate" / "survey" / "static" / "samplers.js"


# -- claimed laws as exact enclosures ------------------------------------------------
def _text(p: Fraction) -> str:
    p = Fraction(p)
    return f"{p.numerator}/{p.denominator}"


def _key(value) -> str:
    """The output's key as sampler_checks.js writes it (integral floats as ints)."""

    def norm(v):
        if isinstance(v, tuple | list):
            return [norm(x) for x in v]
        if isinstance(v, bool):
            return v
        v = float(v)
        if v.is_integer():
            return int(v)
        assert 1e-4 < abs(v) < 1e15, "keep coarse outputs plainly printable"
        return v

    return json.dumps(norm(value), separators=(",", ":"))


def _enclosures(law: dict) -> dict[str, list[str]]:
    return {_key(k): [_text(lo), _text(hi)] for k, (lo, hi) in law.items()}


def _exp(x: Fraction) -> tuple[Fraction, Fraction]:
    return exp_neg(Fraction(x))


def _diff(a: tuple, b: tuple) -> tuple[Fraction, Fraction]:
    """Enclosure of a - b from enclosures of a and b."""
    return max(a[0] - b[1], Fraction(0)), a[1] - b[0]


def _scaled(c: Fraction, a: tuple) -> tuple[Fraction, Fraction]:
    return c * a[0], c * a[1]


def geometric_law(g: Fraction, top: int) -> tuple[dict, Fraction]:
    """P(Y = y) = exp(-y g) - exp(-(y + 1) g), y <= top; bound of the rest."""
    law = {y: _diff(_exp(y * g), _exp((y + 1) * g)) for y in range(top + 1)}
    return law, _exp((top + 1) * g)[1]


def rounded_laplace_law(g: Fraction, top: int) -> tuple[dict, Fraction]:
    """N = rint(Laplace of scale 1/g): P(0) = 1 - exp(-g/2), and for n >= 1
    P(+-n) = (exp(-(n - 1/2) g) - exp(-(n + 1/2) g)) / 2."""
    half = Fraction(1, 2)
    lo, hi = _exp(g * half)
    law = {0: (1 - hi, 1 - lo)}
    for n in range(1, top + 1):
        p = _scaled(half, _diff(_exp((n - half) * g), _exp((n + half) * g)))
        law[n] = law[-n] = p
    return law, _exp((top + half) * g)[1]


def discrete_laplace_law(g: Fraction, top: int) -> tuple[dict, Fraction]:
    """P(N = n) = (1 - x) / (1 + x) x^|n|, x = exp(-g)."""
    x_lo, x_hi = _exp(g)
    c = ((1 - x_hi) / (1 + x_hi), (1 - x_lo) / (1 + x_lo))
    law = {}
    for n in range(-top, top + 1):
        e = _exp(abs(n) * g)
        law[n] = (c[0] * e[0], c[1] * e[1])
    return law, 2 * _exp((top + 1) * g)[1]


def bernoulli_exp_law(g: Fraction) -> dict:
    lo, hi = _exp(g)
    return {True: (lo, hi), False: (1 - hi, 1 - lo)}


def laplace_release_law(spec: dict, x: float, noise_law: dict) -> dict:
    """m = clip(k + N, k_low - margin, k_high + margin), released as m * step,
    from N's enclosures (which must cover every n that reaches the interior)."""
    k = min(max(round(x / spec["step"]), spec["k_low"]), spec["k_high"])
    low, high = spec["k_low"] - spec["margin"], spec["k_high"] + spec["margin"]
    law = {}
    for m in range(low + 1, high):
        law[float(m * spec["step"])] = noise_law[m - k]
    # the clipped ends: everything below / above, as 1 minus the rest
    inner_lo = sum(p[0] for p in law.values())
    inner_hi = sum(p[1] for p in law.values())
    below_lo = sum(noise_law[n][0] for n in noise_law if n <= low - k)
    below_hi = 1 - inner_lo - sum(noise_law[n][0] for n in noise_law if n >= high - k)
    above_lo = sum(noise_law[n][0] for n in noise_law if n >= high - k)
    above_hi = 1 - inner_lo - below_lo
    assert inner_hi <= 1
    law[float(low * spec["step"])] = (below_lo, below_hi)
    law[float(high * spec["step"])] = (above_lo, above_hi)
    return law


def waves_law(spec: dict, value, waves: int) -> dict:
    """Claimed law of ``releaseWaves(spec, value, waves)``: a memoized frequency
    question's joint law (one permanent answer, ``waves`` instantaneous ones),
    any other question's single release repeated ``waves`` times."""
    if spec["kind"] == "frequency" and spec["memoized"]:
        return {r: (p, p) for r, p in frequency_law(spec, value, waves).items()}
    return {(r,) * waves: p for r, p in spec_law(spec, value).items()}


# -- the checks ---------------------------------------------------------------------
def _check(name, group, job, expected, tail, residual, other=Fraction(0)) -> dict:
    check = {
        "name": name,
        "group": group,
        "job": job,
        "tail_bits": tail,
        "max_residual": _text(residual),
        "expected": _enclosures(expected),
        "other": _text(other),
    }
    if job.get("spec", {}).get("kind") == "frequency":
        # exact trees of many coins: a cut at 2**-10 would drop most of
        # their mass; the mutation benchmark's fast run cuts them at 2**-24
        check["fast_tail"] = min(tail, 24)
    return check


def _releases(name, group, spec, inputs, tail, residual, law=spec_law) -> list[dict]:
    return [
        _check(
            f"{name} at {x}",
            group,
            {"spec": spec, "value": x},
            law(spec, x),
            tail,
            residual,
        )
        for x in inputs
    ]


SQUARE = {
    "kind": "square_wave",
    "low": 0.0,
    "high": 5.0,
    "n_cells": 5,
    "half_cells": 1,
    "step": 1.0,
    "epsilon": "0/1",
}
PAIRS = [
    [1, 1, 0, 0],
    [0, 0, 1, 1],
    [1, 0, 1, 0],
    [0, 1, 0, 1],
    [1, 0, 0, 1],
    [0, 1, 1, 0],
]
MILLIONTH = Fraction(1, 10**6)


def _waves(name, group, spec, inputs, waves, tail, residual) -> list[dict]:
    return [
        _check(
            f"{name} at {x}",
            group,
            {"op": "waves", "spec": spec, "value": x, "waves": waves},
            waves_law(spec, x, waves),
            tail,
            residual,
        )
        for x in inputs
    ]


def _krr(k: int, *keeps: str) -> dict:
    """A k-RR frequency spec with coarse coins (one stage, or two: memoized)."""
    return {
        "kind": "frequency",
        "oracle": "krr",
        "k": k,
        "memoized": len(keeps) == 2,
        "stages": [{"keep": keep} for keep in keeps],
    }


def _unary(oracle: str, k: int, *stages: tuple[str, str]) -> dict:
    """A unary-encoding spec: per stage, (P(1 | bit 1), P(1 | bit 0))."""
    return {
        "kind": "frequency",
        "oracle": oracle,
        "k": k,
        "memoized": len(stages) == 2,
        "stages": [{"one": one, "zero": zero} for one, zero in stages],
    }


def _existing_frequency_checks() -> list[dict]:
    """The page-law jobs of test_frequency_questions.py (coins over 8)."""
    from .test_frequency_questions import COARSE

    checks = []
    for name, spec in COARSE.items():
        checks += _releases(
            f"frequency {name}", "existing", spec, range(spec["k"]), 40, Fraction(0)
        )
    for name, k in (("long_krr", 3), ("long_oue", 2)):
        spec = {**COARSE[name], "k": k}
        checks += _waves(
            f"frequency {name} k={k}, 2 waves",
            "existing",
            spec,
            range(k),
            2,
            40,
            Fraction(0),
        )
    return checks


def frequency_checks(group: str = "new") -> list[dict]:
    """k-RR, unary encoding and the two-stage draw from a kept answer.

    Dyadic coins are enumerated over their whole bit budget (no cut, no
    residual: any change of a probability, even by one in 2**b, fails);
    coins with an odd denominator run a rejection loop and are cut at
    2**-28 with a residual below one in a million.
    """
    checks = []
    # k-RR: k = 2 (the other category needs no word), 5 (2 bits), 4 with
    # a rejection both in the coin (5/7) and in the other category (1 of 3),
    # and the ends of the coin ("0", "1": rationals without "/")
    for name, spec, inputs in [
        ("k=2 keep 3/4", _krr(2, "3/4"), [0, 1]),
        ("k=5 keep 11/16", _krr(5, "11/16"), [0, 2, 4]),
        ("k=3 keep 0", _krr(3, "0"), [1]),
        ("k=3 keep 1", _krr(3, "1"), [2]),
    ]:
        checks += _releases(f"krr {name}", group, spec, inputs, 40, Fraction(0))
    checks += _releases(
        "krr k=4 keep 5/7", group, _krr(4, "5/7"), [0, 3], 28, MILLIONTH
    )
    # unary encoding at several (k, epsilon): OUE at ln 3 (zero 1/4), SUE
    # at 2 ln 7 (7/8, 1/8), OUE at ln 2 (zero 1/3: a rejection loop)
    checks += _releases(
        "oue k=4 eps ln 3",
        group,
        _unary("oue", 4, ("1/2", "1/4")),
        [0, 3],
        40,
        Fraction(0),
    )
    checks += _releases(
        "sue k=3 eps 2 ln 7",
        group,
        _unary("sue", 3, ("7/8", "1/8")),
        [0, 2],
        40,
        Fraction(0),
    )
    checks += _releases(
        "oue k=3 eps ln 2",
        group,
        _unary("oue", 3, ("1/2", "1/3")),
        [1],
        28,
        MILLIONTH,
    )
    # the two-stage draw: several waves from one kept answer, and one wave
    # (release) of a memoized question
    checks += _waves(
        "memoized krr k=3, 3 waves",
        group,
        _krr(3, "5/8", "3/4"),
        [2],
        3,
        40,
        Fraction(0),
    )
    checks += _waves(
        "memoized krr k=2, 2 waves",
        group,
        _krr(2, "3/4", "5/8"),
        [0, 1],
        2,
        40,
        Fraction(0),
    )
    checks += _waves(
        "memoized krr k=3 instant 2/3, 2 waves",
        group,
        _krr(3, "5/8", "2/3"),
        [0],
        2,
        32,
        MILLIONTH,
    )
    checks += _waves(
        "memoized sue k=2, 2 waves",
        group,
        _unary("sue", 2, ("3/4", "1/4"), ("1/2", "1/4")),
        [1],
        2,
        40,
        Fraction(0),
    )
    checks += _releases(
        "memoized oue k=3, one wave",
        group,
        _unary("oue", 3, ("1/2", "1/4"), ("3/4", "1/8")),
        [2],
        40,
        Fraction(0),
    )
    # waves of questions that keep their release: the same report each wave
    checks += _waves(
        "plain krr k=3, 2 waves", group, _krr(3, "5/8"), [0], 2, 40, Fraction(0)
    )
    checks += _waves(
        "plain oue k=2, 2 waves",
        group,
        _unary("oue", 2, ("1/2", "1/4")),
        [1],
        2,
        40,
        Fraction(0),
    )
    conditional = mechanism_spec(
        SubsetMechanism(
            SubsetDesign.conditional(
                [[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 1]], [0.25, 0.25, 0.25, 0.5]
            ),
            categories=[list("abc")],
        ).fit([["a"]])
    )
    checks += _waves(
        "subset conditional, 2 waves", group, conditional, [1], 2, 40, Fraction(0)
    )
    checks += _waves(
        "square wave, 2 waves",
        group,
        SQUARE,
        [2.0],
        2,
        20,
        Fraction(1, 10**4),
    )
    return checks


def _rvns(placement, k, band=1, jb=4) -> dict:
    return {
        "kind": "rvns",
        "ja": 0,
        "jb": jb,
        "band": band,
        "k": k,
        "step": 1.0,
        "placement": placement,
    }


def existing_checks() -> list[dict]:
    """The jobs of test_frequency_questions.py and test_page_exact_laws.py."""
    checks = _existing_frequency_checks()
    checks += _releases(
        "square wave eps 0",
        "existing",
        SQUARE,
        [float(k) for k in range(6)],
        28,
        MILLIONTH,
    )
    for num, den in [(1, 1), (1, 2), (0, 3)]:
        checks.append(
            _check(
                f"bernoulliExp({num}/{den})",
                "existing",
                {"op": "bernoulliExp", "num": num, "den": den},
                bernoulli_exp_law(Fraction(num, den)),
                26,
                Fraction(1, 10**4),
            )
        )
    for placement in ("boundary_safe", "paper"):
        for k in (1, 2):
            checks += _releases(
                f"rvns {placement} k={k}",
                "existing",
                _rvns(placement, k),
                [float(j) for j in range(5)],
                28,
                MILLIONTH,
            )
        checks += _releases(
            f"rvns {placement} band 2",
            "existing",
            _rvns(placement, 2, band=2),
            [0.0, 4.0],
            28,
            Fraction(1, 10**5),
        )
    priv = SubsetUniform(categories=[list("abc")]).fit([["a"]])
    spec = mechanism_spec(priv)
    if spec["dummies"]:
        spec = {**spec, "alpha": "1/8"}
    checks += _releases(
        "subset uniform", "existing", spec, [0, 1, 2], 24, Fraction(1, 10**4)
    )
    design = SubsetDesign.independent(PAIRS, [0.25, 0.25, 0.125, 0.125, 0.125, 0.125])
    spec = mechanism_spec(
        SubsetMechanism(design=design, categories=[list("abcd")]).fit([["a"]])
    )
    checks += _releases(
        "subset independent", "existing", spec, [0, 1, 2, 3], 28, MILLIONTH
    )
    return checks


def _ops(group, tail, residual) -> list[dict]:
    checks = []
    for num, den in [(5, 2), (7, 3), (2, 1)]:
        checks.append(
            _check(
                f"bernoulliExp({num}/{den})",
                group,
                {"op": "bernoulliExp", "num": num, "den": den},
                bernoulli_exp_law(Fraction(num, den)),
                tail,
                residual,
            )
        )
    noises = [
        ("geometricExp", 1, 2, geometric_law),
        ("geometricExp", 3, 2, geometric_law),
        ("roundedLaplace", 1, 2, rounded_laplace_law),
        ("discreteLaplace", 2, 3, discrete_laplace_law),
    ]
    # the discrete Laplace tree is the widest: a loose residual, still
    # enough for any change of support
    for op, num, den, law in noises:
        expected, rest = law(Fraction(num, den), 40)
        checks.append(
            _check(
                f"{op}({num}/{den})",
                group,
                {"op": op, "num": num, "den": den},
                expected,
                tail,
                Fraction(3, 4) if op == "discreteLaplace" else residual,
                other=rest,
            )
        )
    return checks


def _laplace_law(noise):
    def law(spec, x):
        g = Fraction(spec["gamma"])
        return laplace_release_law(spec, x, noise(g, 8)[0])

    return law


def new_checks() -> list[dict]:
    """Cases added for the mutants the existing jobs let through."""
    from .test_frequency_hashing_questions import hashing_checks

    group = "new"
    checks = frequency_checks(group) + hashing_checks(group)
    # square wave: an off-origin grid, a rational without "/", half-way
    # inputs (rint) and inputs outside the bounds (clip); a positive budget
    square = {**SQUARE, "low": 2.0, "high": 4.5, "step": 0.5, "epsilon": "0"}
    checks += _releases(
        "square wave off origin",
        group,
        square,
        [2.0, 2.25, 2.75, 4.5, 5.0, 1.0],
        28,
        MILLIONTH,
    )
    checks += _releases(
        "square wave eps 1/4",
        group,
        {**square, "epsilon": "1/4"},
        [2.0, 2.25, 2.75, 4.5, 5.0, 1.0],
        12,
        Fraction(1, 4),
    )
    # a window of two cells each side (width 2 * half + 1 with half != 1)
    checks += _releases(
        "square wave half 2",
        group,
        {**SQUARE, "half_cells": 2},
        [2.0],
        20,
        Fraction(1, 10**4),
    )
    # RVNS off the origin, half steps, both placements, inputs outside
    for placement in ("boundary_safe", "paper"):
        spec = {**_rvns(placement, 1, band=2, jb=7), "ja": 2, "step": 0.5}
        checks += _releases(
            f"rvns {placement} off origin",
            group,
            spec,
            [0.0, 1.25, 1.75, 2.25, 2.75, 3.5, 4.0],
            20,
            Fraction(1, 10**4),
        )
    # subsets: no dummies, dummies with independent and conditional designs
    uniform = mechanism_spec(SubsetUniform(categories=[list("abcde")]).fit([["a"]]))
    assert not uniform["dummies"]
    checks += _releases(
        "subset uniform p=5", group, uniform, [0, 4], 14, Fraction(1, 5)
    )
    design = SubsetDesign.independent(PAIRS, [0.25, 0.25, 0.125, 0.125, 0.125, 0.125])
    independent = mechanism_spec(
        SubsetMechanism(design=design, categories=[list("abcd")]).fit([["a"]])
    )
    checks += _releases(
        "subset independent, dummies",
        group,
        {**independent, "dummies": True, "alpha": "1/8", "n_outputs": 6},
        [0, 3],
        20,
        Fraction(1, 10**4),
    )
    # dummies with an alpha whose numerator is not 1
    checks += _releases(
        "subset uniform, alpha 3/16",
        group,
        {
            **uniform,
            "p": 3,
            "sizes": [1, 2],
            "dummies": True,
            "alpha": "3/16",
            "n_outputs": 5,
        },
        [1],
        16,
        Fraction(1, 10**2),
    )
    conditional = mechanism_spec(
        SubsetMechanism(
            SubsetDesign.conditional(
                [[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 1]], [0.25, 0.25, 0.25, 0.5]
            ),
            categories=[list("abc")],
        ).fit([["a"]])
    )
    checks += _releases(
        "subset conditional", group, conditional, [0, 1, 2], 20, Fraction(1, 10**4)
    )
    checks += _releases(
        "subset conditional, dummies",
        group,
        {**conditional, "dummies": True, "alpha": "1/8", "n_outputs": 5},
        [1],
        20,
        Fraction(1, 10**4),
    )
    checks += _ops(group, 12, Fraction(1, 4))
    # Laplace releases, both noises: clip of the input, rint, clip of the output
    laplace = {
        "kind": "laplace",
        "step": 1.0,
        "k_low": 0,
        "k_high": 2,
        "margin": 1,
        "noise": "rounded_laplace",
        "gamma": "1/1",
    }
    checks += _releases(
        "laplace rounded",
        group,
        laplace,
        [-0.7, 0.5, 1.5, 2.6],
        12,
        Fraction(1, 4),
        law=_laplace_law(rounded_laplace_law),
    )
    checks += _releases(
        "laplace step 1/2",
        group,
        {**laplace, "step": 0.5},
        [0.75],
        12,
        Fraction(1, 4),
        law=_laplace_law(rounded_laplace_law),
    )
    checks += _releases(
        "laplace discrete",
        group,
        {**laplace, "noise": "discrete_laplace"},
        [1.0],
        12,
        Fraction(1, 4),
        law=_laplace_law(discrete_laplace_law),
    )
    return checks


def all_checks() -> list[dict]:
    return existing_checks() + new_checks()


def run_checks(checks: list[dict], samplers: Path, tmp_path: Path, scripted=True):
    """(exit status, output) of sampler_checks.js on ``samplers``."""
    node = node_path()
    if node is None:
        skip_or_fail("node is not installed (apt-get install nodejs)")
    path = tmp_path / "checks.json"
    path.write_text(json.dumps({"laws": checks, "scripted": scripted}))
    proc = subprocess.run(
        [node, str(CHECKS_JS), str(samplers), str(path)],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    return proc.returncode, proc.stdout + proc.stderr


# -- tests ----------------------------------------------------------------------------
def test_new_exact_checks_pass_on_the_page_samplers(tmp_path):
    code, out = run_checks(new_checks(), SAMPLERS, tmp_path)
    assert code == 0, out


def test_existing_group_repeats_the_page_exact_law_tests():
    checks = existing_checks()
    names = {c["name"] for c in checks}
    assert len(names) == len(checks) == 57
    assert all(c["group"] == "existing" for c in checks)
    assert {c["group"] for c in new_checks()} == {"new"}


def test_claimed_noise_laws_are_exact_enclosures():
    # the enclosures add up to 1 and hold the closed forms
    for law, g in [
        (geometric_law, Fraction(1, 2)),
        (rounded_laplace_law, Fraction(1, 2)),
        (discrete_laplace_law, Fraction(2, 3)),
    ]:
        probs, rest = law(g, 60)
        assert (
            sum(p[0] for p in probs.values())
            <= 1
            <= sum(p[1] for p in probs.values()) + rest
        )
        assert rest < Fraction(1, 10**6)
        for lo, hi in probs.values():
            assert 0 <= lo <= hi and hi - lo < Fraction(1, 2**100)
    # P(N = 0) of the rounded Laplace noise: 1 - exp(-g/2)
    lo, hi = rounded_laplace_law(Fraction(1, 2), 3)[0][0]
    assert float(lo) == pytest.approx(1 - 0.7788007830714049, rel=1e-15)


# (planted change, checks to run (name prefixes), the check that must fail)
PLANTED = [
    (
        ("if (position === BUFFER_WORDS) {", "if (position >= BUFFER_WORDS - 1) {"),
        [],
        "buffer: whole words",
    ),
    (
        ("Math.floor((m - 1) / TWO32)", "Math.floor(m / TWO32)"),
        [],
        "uniformNumber(2^53) largest",
    ),
    (
        ("for (let i = 1; i < words; i++)", "for (let i = 1; i <= words; i++)"),
        [],
        "uniformBig(3*2^70) largest",
    ),
    (("r % 2 !== 0", "r % 2 === 0"), [], "rint rounds half to even"),
    (
        ("i < n; i++) out[i] = release", "i <= n; i++) out[i] = release"),
        [],
        "releaseMany(3)",
    ),
    (
        (
            'typeof module !== "undefined" && module.exports',
            'typeof module !== "undefined" || module.exports',
        ),
        [],
        "loads without a module system",
    ),
    (
        ('"category index out of range"', '"category out of range"'),
        [],
        "subset category out of range",
    ),
    (
        (
            "(x - spec.low) / (spec.high - spec.low)",
            "(x + spec.low) / (spec.high - spec.low)",
        ),
        ["square wave eps 1/4"],
        "square wave eps 1/4 at 2.0",
    ),
    (
        (
            "const hi = BigInt(spec.k_high + spec.margin);",
            "const hi = BigInt(spec.k_high);",
        ),
        ["laplace rounded"],
        "laplace rounded at",
    ),
    (
        ('spec.noise === "discrete_laplace"', 'spec.noise !== "discrete_laplace"'),
        ["laplace rounded"],
        "laplace rounded at -0.7",
    ),
    (
        (
            "return spec.subsets[drawWeighted(weights, BigInt(spec.total))].slice();",
            "return spec.subsets[drawWeighted(weights, BigInt(spec.total))];",
        ),
        ["subset independent, dummies"],
        "subset independent, dummies at 0",
    ),
    # frequency questions: a coin's `<` as `<=` (one in 16, and at the
    # boundary of a 62-bit coin), the wrong stage, the wrong one-hot bit,
    # the kept array sent as it is, a category k let through
    (
        (
            "if (bernoulli(kNum, kDen)) return input;",
            "if (uniformBig(kDen) <= kNum) return input;",
        ),
        ["krr k=5 keep 11/16"],
        "krr k=5 keep 11/16 at 0",
    ),
    (
        (
            "const hit = b === 1 ? bernoulli(oNum, oDen)",
            "const hit = b === 1 ? uniformBig(oDen) <= oNum",
        ),
        [],
        "unary 62-bit coins at their boundaries",
    ),
    (
        (
            "return frequencyStage(spec, spec.stages[1], kept);",
            "return frequencyStage(spec, spec.stages[0], kept);",
        ),
        ["memoized"],
        "memoized krr k=3, 3 waves at 2",
    ),
    (
        (
            "input.push(j === code ? 1 : 0)",
            "input.push(j !== code ? 1 : 0)",
        ),
        ["oue k=4"],
        "oue k=4 eps ln 3 at 0",
    ),
    (
        ("return Array.isArray(kept) ? kept.slice() : kept;", "return kept;"),
        [],
        "waves of a plain unary question",
    ),
    (
        ("code >= 0 && code < spec.k", "code >= 0 && code <= spec.k"),
        [],
        "krr category k",
    ),
]


@pytest.mark.parametrize(
    "name",
    [
        "krr k=4 keep 5/7 at 0",
        "oue k=3 eps ln 2 at 1",
        "memoized krr k=3, 3 waves at 2",
        "memoized krr k=3 instant 2/3, 2 waves at 0",
    ],
)
def test_a_claim_off_by_one_in_a_million_fails(name, tmp_path):
    # the checks pass on the samplers; moving one output's claimed
    # probability by 10**-6 (the mass moved to the next output) must fail
    (check,) = [c for c in frequency_checks() if c["name"] == name]
    code, out = run_checks([check], SAMPLERS, tmp_path, scripted=False)
    assert code == 0, out
    first, second = list(check["expected"])[:2]
    shifted = {k: [Fraction(x) for x in v] for k, v in check["expected"].items()}
    shifted[first] = [x + MILLIONTH for x in shifted[first]]
    shifted[second] = [x - MILLIONTH for x in shifted[second]]
    bad = {**check, "expected": {k: [_text(x) for x in v] for k, v in shifted.items()}}
    code, out = run_checks([bad], SAMPLERS, tmp_path, scripted=False)
    assert code == 1, out
    assert out.startswith(f"FAIL {name}: output "), out
    assert out.split(": output ")[1].split(" has ")[0] in (first, second), out


@pytest.mark.parametrize(
    ("change", "names", "killer"), PLANTED, ids=[p[2] for p in PLANTED]
)
def test_planted_bugs_are_caught(change, names, killer, tmp_path):
    text = SAMPLERS.read_text(encoding="utf-8")
    old, new = change
    assert text.count(old) == 1, old
    copy = tmp_path / "samplers.js"
    copy.write_text(text.replace(old, new), encoding="utf-8")
    checks = [c for c in new_checks() if any(c["name"].startswith(n) for n in names)]
    assert checks or not names
    code, out = run_checks(checks, copy, tmp_path, scripted=not names)
    assert code == 1, out
    assert out.startswith("FAIL " + killer), out
