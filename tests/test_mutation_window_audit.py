"""The negative survey's windowed audit (``negative_survey/_window_audit.py``),
each part of its search checked on its own.

``tests/negative_survey/test_audit_windows.py`` checks the search as a whole
against enumeration: there the pattern search recovers from a missing
candidate, so a broken candidate rule would pass.  Here the structured
candidates are checked without the pattern search, the pattern search
without the candidates, and the exact weights against a direct sum over the
band starts, each on laws enumerated in full.
"""

from __future__ import annotations

import itertools
import math
import random
import zlib
from fractions import Fraction

import pytest

from skprivate.negative_survey._window_audit import (
    GridWindowLaw,
    WindowWorst,
    _power_sums,
    _sum_product,
)

from .negative_survey.test_audit_windows import CASES, brute_force


def _random_cases(count, seed):
    rng = random.Random(seed)
    cases = []
    while len(cases) < count:
        K = rng.randint(5, 22)
        D = rng.randint(1, K - 1)
        m = rng.randint(1, D + 2)
        k = rng.randint(1, 3)
        safe = rng.random() < 0.5
        if rng.random() < 0.3:
            x_lo = rng.randint(0, K // 3)
            x_hi = rng.randint(max(x_lo, 2 * K // 3), K)
        else:
            x_lo = x_hi = None
        cases.append((K, D, m, k, safe, x_lo, x_hi))
    return cases


# the laws of the whole-search test, and as many more drawn at random
SEARCH_CASES = [*CASES, *_random_cases(24, seed=11)]

# boundary-safe laws whose band covers nearly the whole grid, audited on part
# of the inputs: few of the candidate base positions coincide
NARROW_CASES = [
    (28, 25, 13, 1, True, 4, 18),
    (34, 32, 16, 1, True, 6, 24),
    (26, 25, 16, 1, True, 7, 24),
    (13, 12, 11, 2, True, 1, 13),
    (28, 25, 11, 2, True, 4, 19),
]


def _seeds_alone(law, starts=6):
    """``law.worst`` with the pattern search switched off."""

    def no_climb(self, x2, centres, numerators):
        got = self._score(x2, centres, numerators)
        return WindowWorst(got[0], (got[1], x2), centres)

    original = GridWindowLaw._climb
    GridWindowLaw._climb = no_climb
    try:
        return law.worst(starts)
    finally:
        GridWindowLaw._climb = original


def _direct_weight(law, x, centres):
    """``A**k P_x(windows)``: the mean over band starts of the product of the
    windows' points outside the band, by counting points."""
    s_lo, s_hi = law.offsets(x)
    total = 0
    for s in range(s_lo, s_hi + 1):
        prod = 1
        for c in centres:
            lo, hi = law.window(c)
            prod *= sum(1 for p in range(lo, hi + 1) if p < s or p > s + law.D)
        total += prod
    return Fraction(total, s_hi - s_lo + 1)


@pytest.mark.parametrize("case", [*SEARCH_CASES, *NARROW_CASES], ids=str)
def test_structured_candidates_alone_reach_the_maximum(case):
    """The candidate inputs and window centres, scored without any pattern
    search, already attain the enumerated maximum: they hold every place
    where the ratio's pieces end."""
    law = GridWindowLaw(*case)
    found = _seeds_alone(law)
    want, _ = brute_force(*case)
    assert float(found.ratio) == pytest.approx(want, rel=1e-12)
    x, x2 = found.inputs
    assert law.possible(x2, found.centres)
    assert law.ratio(x, x2, found.centres) == found.ratio


@pytest.mark.parametrize("case", _random_cases(10, seed=5), ids=str)
def test_whole_search_on_random_laws(case):
    law = GridWindowLaw(*case)
    want, _ = brute_force(*case)
    assert float(law.worst().ratio) == pytest.approx(want, rel=1e-12)


@pytest.mark.parametrize(
    ("K", "D", "m", "k"),
    [(30, 6, 2, 1), (20, 8, 5, 1), (9, 6, 6, 1), (24, 9, 5, 1), (40, 10, 3, 1)],
)
def test_pattern_search_alone_from_the_far_end(K, D, m, k):
    """One report, boundary-safe placement (its ratio rises towards the input
    next to a bound): from the middle input with the window at the far end
    of the report range, the pattern search alone (steps of every power of
    two) reaches the enumerated maximum.  (With several reports, or the
    paper's placement, the ratio has local maxima the pattern search does
    not leave; the structured candidates supply those, checked above
    without the pattern search.)"""
    law = GridWindowLaw(K, D, m, k, True)
    want, _ = brute_force(K, D, m, k, True)
    r0, r1 = law.report_range
    x2 = K // 2
    centres = next(
        t
        for t in itertools.combinations_with_replacement(range(r1, r0 - 1, -1), k)
        if law.possible(x2, t)
    )
    start = law._score(x2, centres, law._input_candidates())
    assert float(start[0]) < want
    found = law._climb(x2, centres, law._input_candidates())
    assert float(found.ratio) == pytest.approx(want, rel=1e-12)
    assert law.possible(found.inputs[1], found.centres)
    assert law.ratio(*found.inputs, found.centres) == found.ratio


@pytest.mark.parametrize("case", SEARCH_CASES[::4], ids=str)
def test_weights_equal_a_direct_count(case):
    law = GridWindowLaw(*case)
    r0, r1 = law.report_range
    lo, hi = law.inputs
    rng = random.Random(case[0] * 31 + case[1])
    for _ in range(40):
        x = rng.randint(lo, hi)
        centres = tuple(sorted(rng.randint(r0 - 2, r1 + 2) for _ in range(law.k)))
        assert law.weight(x, centres) == _direct_weight(law, x, centres)
        assert law.weight(x, centres) == law.weight(x, centres)  # from the cache


def test_power_sums_and_sum_product_exactly():
    for n in (0, 1, 2, 7, 40):
        sums = _power_sums(n, 5)
        assert sums == tuple(sum(u**e for u in range(n + 1)) for e in range(6))
    lines = [(3, -1), (2, 2), (-5, 1)]
    for n in (0, 1, 4, 9):
        want = sum(math.prod(a + b * u for a, b in lines) for u in range(n + 1))
        assert _sum_product(lines, n) == want
    assert _sum_product([], 6) == 7


def test_input_candidates_hold_the_extremes_first_and_the_bound_margins():
    law = GridWindowLaw(40, 10, 3, 1, False, 1, 39)
    got = law._input_candidates()
    assert got[:2] == [1, 39]
    assert sorted(got) == [1, 2, 9, 10, 11, 29, 30, 31, 38, 39]
    # inputs outside x_lo .. x_hi are never candidates
    law = GridWindowLaw(12, 2, 1, 1, True, 3, 9)
    assert law._input_candidates() == [3, 9, 4, 8]


def test_possible_needs_one_band_start_clear_of_every_centre():
    law = GridWindowLaw(10, 3, 1, 2, True)
    for x in range(11):
        s_lo, s_hi = law.offsets(x)
        for centres in itertools.combinations_with_replacement(range(-5, 16), 2):
            want = all(-3 <= c <= 13 for c in centres) and any(
                all(c < s or c > s + 3 for c in centres) for s in range(s_lo, s_hi + 1)
            )
            assert law.possible(x, centres) == want, (x, centres)


def test_law_refusals_name_the_parameters():
    with pytest.raises(ValueError, match=r"K=4, D=4, m=1, k=1"):
        GridWindowLaw(4, 4, 1, 1, True)
    with pytest.raises(ValueError, match=r"D >= 1, m >= 1, K > D and k >= 1"):
        GridWindowLaw(6, 2, 0, 1, True)
    with pytest.raises(ValueError, match=r"inputs 3\.\.7 must lie within 0\.\.6"):
        GridWindowLaw(6, 2, 1, 1, True, 3, 7)


@pytest.mark.parametrize("case", SEARCH_CASES[::3], ids=str)
def test_best_numerator_is_the_likeliest_candidate_input(case):
    """The numerator search stops early only when an input attains the
    largest weight any input can have (every window point outside every
    band): its answer is the maximum over the candidate inputs."""
    law = GridWindowLaw(*case)
    r0, r1 = law.report_range
    numerators = law._input_candidates()
    rng = random.Random(zlib.crc32(str(case).encode()))
    for _ in range(60):
        centres = tuple(sorted(rng.randint(r0, r1) for _ in range(law.k)))
        got, x = law._best_numerator(centres, numerators)
        assert got == max(law.weight(n, centres) for n in numerators)
        assert got == law.weight(x, centres) and x in numerators
        full = math.prod(hi - lo + 1 for lo, hi in map(law.window, centres))
        assert got <= full


@pytest.mark.parametrize(
    "case",
    [(9, 3, 1, 1, True), (9, 3, 2, 2, True), (10, 4, 2, 1, False), (8, 5, 3, 2, False)],
    ids=str,
)
def test_every_weight_equals_a_direct_count(case):
    law = GridWindowLaw(*case)
    r0, r1 = law.report_range
    lo, hi = law.inputs
    for x in range(lo, hi + 1):
        for centres in itertools.combinations_with_replacement(
            range(r0 - 1, r1 + 2), law.k
        ):
            assert law.weight(x, centres) == _direct_weight(law, x, centres), (
                x,
                centres,
            )


def test_a_single_audited_input_is_accepted():
    law = GridWindowLaw(12, 3, 1, 1, False, 5, 5)
    assert law.inputs == (5, 5)
    assert law._input_candidates() == [5]


def _documented_centres(law, x2, numerators):
    """The centre candidates as the module's notes state them: each base
    position (the input, the edges of its bands' range, one step beyond each
    end of the report range, and the same for every numerator input),
    moved by 0, 1, 2, m - 1, m, m + 1 or m + 2 steps either way and by one
    band (D + 1) either way; and the windows cut at an end of the range,
    whose ratio peaks near sqrt(2 D (D + 1)) points from it."""
    D, m = law.D, law.m
    r0, r1 = law.report_range
    s_lo, s_hi = law.offsets(x2)
    bases = [x2, s_hi, s_lo + D, r0 - 1, r1 + 1]
    for x in numerators:
        a, b = law.offsets(x)
        bases += [a, b + D, x]
    found = set()
    for base in bases:
        for t in (0, 1, 2, m - 1, m, m + 1, m + 2):
            for shift in (0, D + 1, -(D + 1)):
                found |= {base + shift + t, base + shift - t}
    root = math.isqrt(2 * D * (D + 1))
    for ell in (root - m, root - m + 1, m, m + 1):
        found |= {r0 + ell, r1 - ell}
    return sorted(c for c in found if r0 <= c <= r1)


@pytest.mark.parametrize(
    "case",
    [
        (60, 9, 3, 1, True, None, None),
        (70, 12, 4, 2, False, 2, 66),
        (17, 15, 3, 1, True, 3, 4),
        (16, 2, 2, 1, True, 1, 3),
        (10, 9, 1, 1, False, 0, 1),
        (10, 7, 6, 1, True, 3, 3),
        *_random_cases(30, seed=23),
        *[
            (K, D, m, 1, safe, None, None)
            for K, D, m, safe in (
                (200, 37, 5, False),
                (150, 23, 11, True),
                (90, 40, 2, False),
                (120, 7, 6, True),
            )
        ],
    ],
    ids=str,
)
def test_centre_candidates_are_the_documented_positions(case):
    law = GridWindowLaw(*case)
    numerators = law._input_candidates()
    for x2 in numerators:
        assert law._centre_candidates(x2, numerators) == _documented_centres(
            law, x2, numerators
        ), x2


def test_reported_likelier_input_is_the_first_candidate_with_the_full_window():
    """Boundary-safe, K = 5, D = 1, m = 2: the window around 6 is cut to
    {4, 5, 6}; inputs 0, 1 and 2 all leave it whole (weight 3), input 5
    covers two of its points (weight 1).  The numerator search takes the
    candidate inputs in their order (the audited bounds first) and stops at
    the first full window: the reported pair is (0, 5), not (2, 5)."""
    law = GridWindowLaw(5, 1, 2, 1, True)
    assert [law.weight(x, (6,)) for x in range(6)] == [
        3,
        3,
        3,
        Fraction(5, 2),
        Fraction(3, 2),
        1,
    ]
    numerators = law._input_candidates()
    assert numerators == [0, 5, 1, 2, 3, 4]
    assert law._best_numerator((6,), numerators) == (3, 0)
    assert law.worst() == WindowWorst(Fraction(3), (0, 5), (6,))


def test_upper_audited_bound_is_audited_as_the_less_likely_input():
    """Paper placement, K = 8, D = 4, m = 3, inputs 2 .. 7: the worst pair
    has the upper audited bound 7 as the less likely input (ratio 6 at the
    window around 8); every other denominator gives at most 7 / 2."""
    law = GridWindowLaw(8, 4, 3, 1, False, 2, 7)
    numerators = law._input_candidates()
    best = {
        x2: max(
            got[0]
            for c in range(9)
            if (got := law._score(x2, (c,), numerators)) is not None
        )
        for x2 in range(2, 8)
    }
    assert best == {
        2: Fraction(7, 2),
        3: Fraction(7, 3),
        4: Fraction(7, 4),
        5: 2,
        6: 3,
        7: 6,
    }
    assert law.worst() == WindowWorst(Fraction(6), (2, 7), (8,))
    want, _ = brute_force(8, 4, 3, 1, False, 2, 7)
    assert want == 6


@pytest.mark.parametrize(
    ("case", "x2", "centres", "want"),
    [
        ((4, 2, 1, 1, False), 0, (3,), Fraction(4)),
        ((6, 1, 1, 1, False), 3, (5,), Fraction(4)),
        ((6, 1, 1, 2, True), 0, (2, 6), Fraction(8)),
        ((6, 2, 1, 2, True), 2, (3, 5), Fraction(27, 5)),
        ((7, 5, 5, 1, False), 7, (1,), Fraction(4)),
    ],
    ids=str,
)
def test_pattern_search_moves_reach_the_maximum_from_a_poor_start(
    case, x2, centres, want
):
    """From these starts the pattern search reaches the enumerated maximum
    only with all its moves: the input alone, the input with every window,
    every window together, each window alone; and it repeats a step size
    while that step improves."""
    law = GridWindowLaw(*case)
    numerators = law._input_candidates()
    start, _ = law._score(x2, centres, numerators)
    assert start < want
    found = law._climb(x2, centres, numerators)
    assert found.ratio == want
    assert float(want) == pytest.approx(brute_force(*case)[0], rel=1e-12)
    assert law.possible(found.inputs[1], found.centres)
    assert law.ratio(*found.inputs, found.centres) == want


@pytest.mark.parametrize(
    ("K", "D", "m", "k", "want"),
    [
        (6, 5, 1, 1, Fraction(6)),
        (7, 5, 2, 2, Fraction(10)),
        (7, 6, 1, 2, Fraction(63, 5)),
        (12, 11, 3, 2, Fraction(551, 35)),
    ],
)
def test_pattern_search_first_steps_span_the_whole_report_range(K, D, m, k, want):
    """Boundary-safe, D > K / 2: the report range -D .. K + D is more than
    twice the inputs' range.  From input 0 with every window at the upper
    end (no band meets them: ratio 1, flat around), only a step spanning the
    report range reaches the windows at the lower end, where the maximum
    (input K against input 0) lies."""
    law = GridWindowLaw(K, D, m, k, True)
    numerators = law._input_candidates()
    top = (K + D,) * k
    assert law._score(0, top, numerators) == (1, 0)
    found = law._climb(0, top, numerators)
    assert found.ratio == want
    assert float(want) == pytest.approx(brute_force(K, D, m, k, True)[0], rel=1e-12)


@pytest.mark.parametrize(
    ("case", "want"),
    [
        (
            (34, 29, 10, 2, True, 7, 18),
            WindowWorst(Fraction(1492, 295), (7, 18), (19, 23)),
        ),
        ((26, 23, 12, 1, True, 4, 18), WindowWorst(Fraction(429, 172), (18, 4), (0,))),
        ((25, 23, 12, 1, True, 6, 19), WindowWorst(Fraction(205, 86), (6, 19), (23,))),
        ((26, 25, 16, 1, True, 7, 24), WindowWorst(Fraction(24, 11), (24, 7), (2,))),
        (
            (28, 25, 11, 2, True, 4, 19),
            WindowWorst(Fraction(7319, 1137), (19, 4), (-1, 3)),
        ),
    ],
    ids=str,
)
def test_worst_pair_and_windows_on_narrow_input_ranges(case, want):
    """Boundary-safe laws audited on part of the inputs, far from the ends
    of the report range: the worst ratio comes in mirrored pairs (inputs and
    windows reflected about the middle of the audited inputs) of equal
    ratio, and the audit reports the one its best-ranked start reaches."""
    law = GridWindowLaw(*case)
    assert law.worst() == want
    assert float(want.ratio) == pytest.approx(brute_force(*case)[0], rel=1e-12)
    lo, hi = law.inputs
    x, x2 = want.inputs
    mirror = tuple(sorted(lo + hi - c for c in want.centres))
    assert law.possible(lo + hi - x2, mirror)
    assert law.ratio(lo + hi - x, lo + hi - x2, mirror) == want.ratio


def _documented_seeds(law):
    """The starts of the pattern search, best first: for each candidate
    input as the less likely one, the window tuples over its candidate
    centres (one report), or over a pool (several reports) of the six best
    centres with every window there, the four best centres for one window
    alone and the two outermost points at each end of the report range;
    ranked by ratio, then input, then tuple."""
    numerators = law._input_candidates()
    r0, r1 = law.report_range
    seeds = []

    def ranked(x2, tuples):
        scored = ((law._score(x2, t, numerators), t) for t in tuples)
        return sorted(
            ((got[0], t) for got, t in scored if got is not None), reverse=True
        )

    for x2 in numerators:
        centres = _documented_centres(law, x2, numerators)
        singles = ranked(x2, [(c,) * law.k for c in centres])
        if law.k == 1:
            seeds += [(r, x2, t) for r, t in singles]
            continue
        alone = ranked(x2, [(c,) for c in centres])
        pool = (
            {t[0] for _, t in singles[:6]}
            | {t[0] for _, t in alone[:4]}
            | {r0, r0 + 1, r1 - 1, r1}
        )
        tuples = itertools.combinations_with_replacement(sorted(pool), law.k)
        seeds += [(r, x2, t) for r, t in ranked(x2, tuples)]
    seeds.sort(reverse=True)
    return [(x2, t) for _, x2, t in seeds]


@pytest.mark.parametrize(
    "case",
    [
        (7, 1, 1, 2, False),
        (6, 3, 1, 3, True),
        (7, 4, 1, 3, True, 2, 4),
        (10, 9, 8, 2, True),
        (19, 17, 13, 2, True, 5, 18),
    ],
    ids=str,
)
def test_pattern_search_starts_from_the_best_ranked_seeds(case, monkeypatch):
    """``worst`` climbs from the best six seeds by default and from the best
    ``starts`` otherwise, in rank order, seeds pooled as documented."""
    law = GridWindowLaw(*case)
    climbed = []

    def record(self, x2, centres, numerators):
        climbed.append((x2, centres))
        got = self._score(x2, centres, numerators)
        return WindowWorst(got[0], (got[1], x2), centres)

    monkeypatch.setattr(GridWindowLaw, "_climb", record)
    want = _documented_seeds(law)
    law.worst()
    assert climbed == want[:6]
    climbed.clear()
    law.worst(len(want) + 1)
    assert climbed == want
