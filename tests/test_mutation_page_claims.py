"""The claimed laws the page audit compares the browser's samplers with
(``survey/_page_audit.py``), checked against independent references: the
Python privatizers' own samplers and exact laws, closed forms computed in
floating point, and 50-digit arithmetic for ``exp``.  A wrong claimed law
would let a wrong page pass its audit, so each is pinned here without
Node.
"""

from __future__ import annotations

import itertools
import math
import re
from fractions import Fraction

import mpmath
import numpy as np
import pytest

from skprivate.negative_survey._transition import (
    sample_rvns_grid,
    sample_rvns_grid_safe,
)
from skprivate.subset import SubsetDesign, SubsetMechanism, SubsetUniform
from skprivate.subset._exact_laws import _design_table
from skprivate.survey import Question
from skprivate.survey._page_audit import (
    PageLaw,
    _quarter,
    _round_out,
    _worst_epsilon,
    compare_laws,
    exp_neg,
    spec_law,
)


# -- exp(-x) enclosures ----------------------------------------------------------
@pytest.mark.parametrize(
    "x",
    [
        Fraction(0),
        Fraction(1, 8),
        Fraction(1, 2),
        Fraction(1),
        Fraction(5, 4),
        Fraction(7, 2),
        Fraction(10),
        Fraction(1, 1310720),
    ],
)
def test_exp_neg_encloses_exp_tightly(x):
    lo, hi = exp_neg(x)
    mpmath.mp.dps = 60
    true = mpmath.exp(-mpmath.mpf(x.numerator) / x.denominator)
    assert mpmath.mpf(lo.numerator) / lo.denominator <= true
    assert true <= mpmath.mpf(hi.numerator) / hi.denominator
    assert hi - lo < Fraction(1, 2**100)
    assert lo.denominator <= 2**120 and hi.denominator <= 2**120


def test_exp_neg_of_zero_is_one_and_negative_is_refused():
    assert exp_neg(Fraction(0)) == (Fraction(1), Fraction(1))
    assert exp_neg(0) == (Fraction(1), Fraction(1))
    with pytest.raises(ValueError, match=r"^exp_neg needs x >= 0\.$"):
        exp_neg(Fraction(-1, 3))


def test_round_out_is_outward_at_2_to_minus_120():
    third = Fraction(1, 3)
    lo, hi = _round_out(third, third)
    assert lo < third < hi
    assert hi - lo == Fraction(1, 2**120)
    assert lo == Fraction(math.floor(third * 2**120), 2**120)
    exact = Fraction(3, 2**10)
    assert _round_out(exact, exact) == (exact, exact)


def test_quarter_rounds_to_quarters_and_not_below_zero():
    assert _quarter(1.0) == 1
    assert _quarter(0.3) == Fraction(1, 4)
    assert _quarter(0.38) == Fraction(2, 4)
    assert _quarter(-0.5) == 0
    assert _quarter(2.6) == Fraction(10, 4)


# -- Square Wave and Laplace against closed forms ------------------------------------
def _contains(law, key, value, slack=1e-14):
    lo, hi = law[key]
    assert float(lo) - slack <= value <= float(hi) + slack, (key, value, lo, hi)
    assert hi - lo < Fraction(1, 2**90)


@pytest.mark.parametrize(
    ("n", "half", "eps", "low", "high", "x"),
    [
        (8, 2, "1/2", 0.0, 8.0, 3.0),
        (8, 3, "3/4", 0.0, 8.0, 0.0),
        (8, 1, "2", 0.0, 8.0, 8.0),
        (10, 2, "1", 5.0, 15.0, 7.25),  # off the grid: rint of 2.25 is 2
        (10, 2, "1", 5.0, 15.0, 7.5),  # a tie: rint(2.5) is 2 (half to even)
        (6, 1, "3/2", -3.0, 3.0, 9.0),  # beyond the bounds: clamped to n
    ],
)
def test_square_wave_claim_is_its_closed_form(n, half, eps, low, high, x):
    step = (high - low) / n
    spec = {
        "kind": "square_wave",
        "low": low,
        "high": high,
        "n_cells": n,
        "half_cells": half,
        "step": step,
        "epsilon": eps,
    }
    law = spec_law(spec, x)
    width = 2 * half + 1
    q = width / (width + n * math.exp(-float(Fraction(eps))))
    k = min(max(int(np.rint((x - low) / (high - low) * n)), 0), n)
    assert sorted(law) == [low + j * step for j in range(-half, n + half + 1)]
    for j in range(-half, n + half + 1):
        near = abs(j - k) <= half
        _contains(law, low + j * step, q / width if near else (1 - q) / n)
    total_lo = sum(lo for lo, _ in law.values())
    total_hi = sum(hi for _, hi in law.values())
    assert total_lo <= 1 <= total_hi


def _laplace_reference(k, low, high, gamma):
    def tail(t):  # P(N >= t)
        if t >= 1:
            return math.exp(-gamma * (t - 0.5)) / 2
        return 1 - tail(1 - t)

    law = {}
    for m in range(low, high + 1):
        above = tail(m - k) if m > low else 1.0
        beyond = tail(m - k + 1) if m < high else 0.0
        law[m] = above - beyond
    return law


@pytest.mark.parametrize(
    ("x", "step", "k_low", "k_high", "margin", "gamma"),
    [
        (1.0, 1.0, 0, 2, 1, "1/8"),
        (0.0, 1.0, 0, 2, 3, "1/2"),
        (2.0, 0.5, 0, 4, 2, "3/4"),
        (0.74, 0.5, 0, 4, 2, "1"),  # rint(1.48) = 1
        (0.75, 0.5, 0, 4, 2, "1"),  # rint(1.5) = 2
        (9.0, 1.0, -2, 3, 2, "1/4"),  # clamped to k_high
        (-9.0, 1.0, -2, 3, 2, "1/4"),  # clamped to k_low
    ],
)
def test_laplace_claim_is_the_clamped_rounded_laplace(
    x, step, k_low, k_high, margin, gamma
):
    spec = {
        "kind": "laplace",
        "step": step,
        "k_low": k_low,
        "k_high": k_high,
        "margin": margin,
        "noise": "rounded_laplace",
        "gamma": gamma,
    }
    law = spec_law(spec, x)
    k = min(max(int(np.rint(x / step)), k_low), k_high)
    ref = _laplace_reference(k, k_low - margin, k_high + margin, float(Fraction(gamma)))
    assert sorted(law) == [m * step for m in range(k_low - margin, k_high + margin + 1)]
    for m, p in ref.items():
        _contains(law, m * step, p)
    assert sum(lo for lo, _ in law.values()) <= 1 <= sum(hi for _, hi in law.values())


def test_laplace_claim_refuses_other_noise():
    spec = {"kind": "laplace", "noise": "gaussian"}
    with pytest.raises(
        ValueError, match=r"^only the rounded Laplace noise has a claimed law here\.$"
    ):
        spec_law(spec, 0.0)
    # the rounded Laplace is the default noise of a spec without one
    spec = {"kind": "laplace", "step": 1.0, "k_low": 0, "k_high": 1, "margin": 0}
    law = spec_law({**spec, "gamma": "1"}, 0.0)
    assert set(law) == {0.0, 1.0}


# -- RVNS against the Python samplers, every draw enumerated --------------------------
def _python_rvns_law(spec, x):
    ja, jb, band, k, step = (
        spec["ja"],
        spec["jb"],
        spec["band"],
        spec["k"],
        spec["step"],
    )
    grid = (np.array([step]), np.array([ja]), np.array([jb]), np.array([band]))
    jx = min(max(round(x / step), ja), jb)
    if spec["placement"] == "paper":
        starts = range(max(ja, jx - band), min(jx, jb - band) + 1)
        offsets = list(starts)
        allowed = jb - ja - band
        sampler = sample_rvns_grid
    else:
        offsets = list(range(band + 1))  # jx - s for s in jx - band .. jx
        allowed = jb - ja + band
        sampler = sample_rvns_grid_safe
    law = {}
    for first in offsets:
        for reports in itertools.product(range(allowed), repeat=k):
            # two integers() calls: the band's draw, then the k reports
            rng = _Scripted(first, reports)
            out = sampler(np.array([[x]]), grid, k, rng)
            key = tuple(float(v) for v in out[0, 0])
            p = Fraction(1, len(offsets) * allowed**k)
            law[key] = law.get(key, Fraction(0)) + p
    return law


class _Scripted:
    """A generator whose two integers() calls return one enumerated path."""

    def __init__(self, first, reports):
        self.values = [first, reports]

    def integers(self, low, high=None, size=None, endpoint=False):
        shape = size if size is not None else np.shape(low)
        value = np.asarray(self.values.pop(0), dtype=np.int64)
        return (
            np.broadcast_to(value.reshape(-1), shape).copy()
            if value.size > 1
            else np.full(shape, value, dtype=np.int64)
        )


@pytest.mark.parametrize("placement", ["paper", "boundary_safe"])
@pytest.mark.parametrize(
    ("ja", "jb", "band", "k"), [(0, 5, 1, 1), (0, 5, 2, 2), (3, 9, 3, 1)]
)
@pytest.mark.parametrize("step", [1.0, 0.5])
def test_rvns_claim_is_the_law_of_the_python_sampler(placement, ja, jb, band, k, step):
    spec = {
        "kind": "rvns",
        "ja": ja,
        "jb": jb,
        "band": band,
        "k": k,
        "step": step,
        "placement": placement,
    }
    for j in range(ja - 1, jb + 2):  # every input, and one beyond each bound
        x = j * step
        claimed = spec_law(spec, x)
        assert all(lo == hi for lo, hi in claimed.values())
        assert {key: lo for key, (lo, _) in claimed.items()} == _python_rvns_law(
            spec, x
        )
        assert sum(lo for lo, _ in claimed.values()) == 1


# -- subset designs against the privatizer's exact law ------------------------------
def _claim_vs_design(privatizer, categories):
    privatizer.fit([[categories[0]]])
    spec = Question("q", "Q?", privatizer).spec
    design = privatizer.designs_[0]
    table, outputs = _design_table(design)
    p = design.n_categories
    for code in range(p):
        claimed = spec_law(spec, code)
        want = {}
        for (mask, dummy), prob in zip(outputs, table[code]):
            if prob == 0:
                continue
            bits = tuple(float((mask >> i) & 1) for i in range(p))
            if dummy >= 0:
                bits = (*bits, float(dummy == 0), float(dummy == 1))
            want[bits] = want.get(bits, 0.0) + prob
        got = {key: float(lo) for key, (lo, hi) in claimed.items() if lo > 0}
        assert set(got) == set(want), code
        for key, prob in want.items():
            assert got[key] == pytest.approx(prob, rel=1e-12), (code, key)
        assert sum(lo for lo, _ in claimed.values()) == 1


def test_subset_uniform_claim_is_the_privatizers_law():
    cats = ["a", "b", "c", "d", "e"]
    _claim_vs_design(SubsetUniform(categories=[cats]), cats)


@pytest.mark.parametrize("alpha", [0.125, 0.25])
def test_subset_uniform_with_dummies_claim_is_the_privatizers_law(alpha):
    cats = ["a", "b", "c"]
    _claim_vs_design(SubsetUniform(categories=[cats], min_coverage=alpha), cats)


def test_independent_design_claim_is_the_privatizers_law():
    design = SubsetDesign.independent(
        [
            [1, 1, 0, 0, 0],
            [0, 1, 1, 0, 0],
            [0, 0, 1, 1, 1],
            [1, 0, 1, 0, 1],
            [1, 1, 0, 1, 0],
        ],
        [0.1, 0.2, 0.3, 0.25, 0.15],
    )
    cats = ["v", "w", "x", "y", "z"]
    _claim_vs_design(SubsetMechanism(design=design, categories=[cats]), cats)


def test_conditional_design_claim_is_the_privatizers_law():
    design = SubsetDesign.conditional(
        [[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 1]], [0.3, 0.3, 0.3, 0.4]
    )
    cats = ["x", "y", "z"]
    _claim_vs_design(SubsetMechanism(design=design, categories=[cats]), cats)


def test_spec_law_refuses_an_unknown_kind():
    msg = "spec['kind'] has no claimed law here: 'interval'."
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        spec_law({"kind": "interval"}, 0.0)
    with pytest.raises(ValueError, match=r"no claimed law here: None\.$"):
        spec_law({}, 0.0)


# -- comparing laws and the worst log-ratio -------------------------------------------
def _page(law, residual=0):
    return PageLaw({k: Fraction(v) for k, v in law.items()}, Fraction(residual), 1)


def test_compare_laws_bounds_the_largest_difference():
    half = (Fraction(1, 2), Fraction(1, 2))
    page = _page({1.0: Fraction(1, 2), 2.0: Fraction(1, 2)})
    assert compare_laws(page, {1.0: half, 2.0: half}) == (0, 0)
    # a claim of 3/8 and 5/8: off by 1/8, certainly
    claim = {1.0: (Fraction(3, 8),) * 2, 2.0: (Fraction(5, 8),) * 2}
    assert compare_laws(page, claim) == (Fraction(1, 8), Fraction(1, 8))
    # an output the claim does not have, and one the page does not have
    page = _page({1.0: Fraction(1, 2), 3.0: Fraction(1, 2)})
    assert compare_laws(page, {1.0: half, 2.0: half}) == (Fraction(1, 2),) * 2


def test_compare_laws_with_a_residual_and_claimed_enclosures():
    page = _page({1.0: Fraction(3, 8), 2.0: Fraction(1, 2)}, Fraction(1, 8))
    # the page's P(1) lies in [3/8, 1/2], the claim in [7/16, 9/16]: no
    # contradiction; the largest possible gap is 9/16 - 3/8 = 3/16
    claim = {1.0: (Fraction(7, 16), Fraction(9, 16)), 2.0: (Fraction(1, 2),) * 2}
    low, high = compare_laws(page, claim)
    assert low == 0
    assert high == Fraction(3, 16)  # output 2: [1/2, 5/8] against 1/2 gives 1/8
    # a claim above the page's upper bound: contradiction by its distance
    claim = {1.0: (Fraction(5, 8), Fraction(5, 8)), 2.0: (Fraction(1, 2),) * 2}
    low, high = compare_laws(page, claim)
    assert low == Fraction(1, 8)
    assert high == Fraction(1, 4)
    # and below the page's lower bound
    claim = {1.0: (Fraction(1, 8), Fraction(1, 4)), 2.0: (Fraction(1, 2),) * 2}
    low, _ = compare_laws(page, claim)
    assert low == Fraction(1, 8)


def test_worst_epsilon_of_page_laws():
    a = _page({0: Fraction(3, 4), 1: Fraction(1, 4)})
    b = _page({0: Fraction(1, 4), 1: Fraction(3, 4)})
    assert _worst_epsilon([a, b]) == pytest.approx(math.log(3), rel=1e-15)
    # a residual widens the upper probabilities
    a = _page({0: Fraction(3, 4), 1: Fraction(1, 4)}, Fraction(1, 4))
    assert _worst_epsilon([a, b]) == pytest.approx(math.log(4), rel=1e-15)
    # an output one input never gives: infinite
    c = _page({0: Fraction(1)})
    assert _worst_epsilon([c, b]) == math.inf
    assert _worst_epsilon([b, b]) == 0.0


# -- frequency oracles, exact enclosures, off-unit steps, and the rest ---------------
def test_frequency_claims_are_the_oracles_laws():
    from skprivate.frequency import (
        GeneralizedRandomizedResponse,
        OptimizedUnaryEncoding,
    )

    cats = ["a", "b", "c"]
    krr = Question(
        "c",
        "C?",
        GeneralizedRandomizedResponse(epsilon=1.0, categories=[cats]).fit([["a"]]),
    ).spec
    keep = Fraction(krr["stages"][0]["keep"])
    for code in range(3):
        law = spec_law(krr, code)
        assert set(law) == {0.0, 1.0, 2.0}
        for report in range(3):
            want = keep if report == code else (1 - keep) / 2
            assert law[float(report)] == (want, want)
    oue = Question(
        "c", "C?", OptimizedUnaryEncoding(epsilon=1.0, categories=[cats]).fit([["a"]])
    ).spec
    one = Fraction(oue["stages"][0]["one"])
    zero = Fraction(oue["stages"][0]["zero"])
    law = spec_law(oue, 1)
    assert len(law) == 8
    for bits in itertools.product((0, 1), repeat=3):
        want = Fraction(1)
        for j, b in enumerate(bits):
            q = one if j == 1 else zero
            want *= q if b else 1 - q
        assert law[tuple(float(b) for b in bits)] == (want, want)


def _exact_contains(law, key, true):
    lo, hi = law[key]
    assert mpmath.mpf(lo.numerator) / lo.denominator <= true, key
    assert true <= mpmath.mpf(hi.numerator) / hi.denominator, key


def test_laplace_claim_encloses_the_exact_probabilities():
    mpmath.mp.dps = 60
    gamma = Fraction(3, 4)
    spec = {
        "kind": "laplace",
        "step": 1.0,
        "k_low": 0,
        "k_high": 3,
        "margin": 2,
        "noise": "rounded_laplace",
        "gamma": str(gamma),
    }
    g = mpmath.mpf(3) / 4

    def tail(t):
        if t >= 1:
            return mpmath.exp(-g * (t - mpmath.mpf(1) / 2)) / 2
        return 1 - tail(1 - t)

    for x in (0.0, 1.0, 3.0):
        law = spec_law(spec, x)
        k = int(x)
        for m in range(-2, 6):
            above = tail(m - k) if m > -2 else mpmath.mpf(1)
            beyond = tail(m - k + 1) if m < 5 else mpmath.mpf(0)
            _exact_contains(law, float(m), above - beyond)


def test_square_wave_claim_encloses_exactly_and_places_outputs_by_the_step():
    mpmath.mp.dps = 60
    spec = {
        "kind": "square_wave",
        "low": 1.0,
        "high": 5.0,
        "n_cells": 8,
        "half_cells": 2,
        "step": 0.5,
        "epsilon": "5/4",
    }
    law = spec_law(spec, 2.0)  # cell k = rint(0.25 * 8) = 2
    assert sorted(law) == [1.0 + 0.5 * j for j in range(-2, 11)]
    e = mpmath.exp(-mpmath.mpf(5) / 4)
    q = 5 / (5 + 8 * e)
    for j in range(-2, 11):
        want = q / 5 if abs(j - 2) <= 2 else (1 - q) / 8
        _exact_contains(law, 1.0 + 0.5 * j, want)


def test_subset_claim_of_a_conditional_design_with_dummies():
    # no SubsetDesign has both, but the page's sampler takes such a spec: a
    # dummy respondent (probability alpha each) reports a subset drawn for
    # the category itself with its own dummy, a true one adds a fair dummy
    spec = {
        "kind": "subset",
        "p": 3,
        "dummies": True,
        "alpha": "1/8",
        "design": "conditional",
        "subsets": [[1, 1, 0], [0, 1, 1], [1, 0, 1], [1, 1, 1]],
        "weights": ["3", "3", "3", "4"],
        "total": "13",
    }
    alpha = Fraction(1, 8)
    law = spec_law(spec, 0)
    held = {(1, 1, 0): 3, (1, 0, 1): 3, (1, 1, 1): 4}
    mass = sum(held.values())
    want = {}
    for s, w in held.items():
        for d in ((1, 0), (0, 1)):
            p = Fraction(w, mass) * (alpha + (1 - 2 * alpha) / 2)
            want[tuple(float(b) for b in (*s, *d))] = (p, p)
    assert law == want


def test_subset_claim_without_dummies_ignores_alpha():
    spec = {
        "kind": "subset",
        "p": 3,
        "dummies": False,
        "alpha": None,
        "design": "uniform",
        "sizes": [1, 2],
    }
    law = spec_law(spec, 2)
    assert sum(lo for lo, _ in law.values()) == 1
    assert all(key[2] == 1.0 for key in law)


def test_compare_laws_for_an_output_missing_from_the_claim():
    page = _page({1.0: Fraction(7, 8), 3.0: Fraction(1, 8)})
    claim = {1.0: (Fraction(7, 8),) * 2}
    assert compare_laws(page, claim) == (Fraction(1, 8), Fraction(1, 8))


def test_compare_laws_upper_bound_from_the_residual():
    page = _page({1.0: Fraction(1, 2), 2.0: Fraction(1, 4)}, Fraction(1, 4))
    claim = {1.0: (Fraction(1, 2),) * 2, 2.0: (Fraction(1, 4),) * 2}
    # P(1) may be as high as 3/4 against a claim of 1/2
    assert compare_laws(page, claim) == (Fraction(0), Fraction(1, 4))
