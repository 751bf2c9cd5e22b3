"""The exact windowed audit of the negative survey against brute force.

``skprivate.audit`` tests the claim of :meth:`RVNSPerturber.epsilon`: the
largest ratio, over input pairs, of the probabilities of windows of
``2 m + 1`` grid points centred on a (tuple of) report(s) the less likely
input can produce.  The audit finds it from the structure of the grid law;
here every input pair, every band start and every tuple of window centres is
enumerated from the documented law of the grid sampler (whose agreement with
the sampler is checked in ``tests/test_grid_sampler_laws.py``), on grids of
a few dozen points, for both placements and ``k = 1, 2, 3``.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

import skprivate
from skprivate.negative_survey import RVNSPerturber
from skprivate.negative_survey._window_audit import GridWindowLaw


def brute_force(K, D, m, k, safe, x_lo=None, x_hi=None):
    """Largest window ratio and its argument, enumerating everything.

    Inputs ``x_lo .. x_hi`` (relative grid indices, default ``0 .. K``); band
    starts and report range of the documented law; a window is the points
    within ``m`` of its centre, cut to the range; a tuple of centres counts
    for ``x'`` when one band start of ``x'`` leaves every centre outside.
    """
    x_lo = 0 if x_lo is None else x_lo
    x_hi = K if x_hi is None else x_hi
    r0, r1 = (-D, K + D) if safe else (0, K)
    points = np.arange(r0, r1 + 1)
    in_window = np.abs(points[:, None] - points[None, :]) <= m  # [centre, point]
    prob, possible = {}, {}
    for x in range(x_lo, x_hi + 1):
        starts = (
            range(x - D, x + 1) if safe else range(max(0, x - D), min(x, K - D) + 1)
        )
        total = np.zeros((points.size,) * k)
        can = np.zeros((points.size,) * k, dtype=bool)
        for s in starts:
            allowed = (points < s) | (points > s + D)
            count = (in_window & allowed[None, :]).sum(axis=1).astype(float)
            prod, ok = count, allowed
            for _ in range(k - 1):
                prod = np.multiply.outer(prod, count)
                ok = np.logical_and.outer(ok, allowed)
            total += prod
            can |= ok
        prob[x], possible[x] = total / len(starts), can  # A**k cancels
    top = np.max(np.stack(list(prob.values())), axis=0)
    best, arg = -1.0, None
    for x2 in prob:
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(possible[x2], top / prob[x2], -1.0)
        i = np.unravel_index(int(np.argmax(ratio)), ratio.shape)
        if ratio[i] > best:
            best, arg = float(ratio[i]), (x2, tuple(int(points[j]) for j in i))
    return best, arg


CASES = [
    # K, D, m, k, safe, x_lo, x_hi
    (30, 6, 2, 1, True, None, None),
    (30, 6, 3, 2, True, None, None),
    (20, 8, 2, 3, True, None, None),  # worst tuple mixes a cut window and two
    (12, 6, 2, 3, True, None, None),
    (9, 6, 3, 1, True, None, None),  # b - a < 2 d: the bound is not reached
    (9, 6, 6, 1, True, None, None),  # delta = d: windows cut at both ends
    (25, 12, 5, 2, True, None, None),
    (14, 4, 2, 3, True, None, None),
    (30, 6, 2, 1, False, None, None),
    (30, 6, 2, 2, False, 2, 27),
    (20, 8, 2, 2, False, None, None),
    (40, 10, 3, 1, False, 1, 39),
    (18, 9, 4, 3, False, None, None),
    (14, 4, 2, 3, False, 1, 12),
    (13, 9, 4, 1, False, 3, 10),  # b - a < 2 d: every input near a bound
    (25, 12, 5, 2, False, 2, 20),
    (15, 7, 1, 2, False, None, None),
]


@pytest.mark.parametrize(("K", "D", "m", "k", "safe", "x_lo", "x_hi"), CASES)
def test_worst_window_matches_brute_force(K, D, m, k, safe, x_lo, x_hi):
    law = GridWindowLaw(K, D, m, k, safe, x_lo, x_hi)
    found = law.worst()
    want, _ = brute_force(K, D, m, k, safe, x_lo, x_hi)
    assert float(found.ratio) == pytest.approx(want, rel=1e-9)
    # the reported pair and tuple attain it, and the tuple is possible for x'
    x, x2_found = found.inputs
    assert law.possible(x2_found, found.centres)
    assert law.ratio(x, x2_found, found.centres) == found.ratio
    lo, hi = law.inputs
    assert lo <= x <= hi and lo <= x2_found <= hi


def test_window_weight_by_hand():
    """Boundary-safe, K = 4, D = 1, m = 1, input 0: starts -1 and 0.

    The report range is -1 .. 5; the window around 1 is {0, 1, 2}.  Band
    {-1, 0} leaves {1, 2} (2 points), band {0, 1} leaves {2} (1 point):
    the weight is (2 + 1) / 2 for one report and (4 + 1) / 2 for two.
    Around -1 the window is cut to {-1, 0}: bands leave 0 and 1 point.
    """
    law1 = GridWindowLaw(4, 1, 1, 1, True)
    assert law1.weight(0, (1,)) == pytest.approx(1.5)
    assert law1.weight(0, (-1,)) == pytest.approx(0.5)
    law2 = GridWindowLaw(4, 1, 1, 2, True)
    assert law2.weight(0, (1, 1)) == pytest.approx(2.5)
    assert law2.weight(0, (1, -1)) == pytest.approx(0.5)  # 2*0 + 1*1, halved
    # 0 is always covered; 1 and -1 together need band {0, 1} and {-1, 0}
    assert not law2.possible(0, (0,)) and not law2.possible(0, (-1, 1))
    assert law2.possible(0, (-1, 2)) and law2.possible(0, (1, 1))


def _coarse_model(monkeypatch, placement, k):
    """Bounds (0.3, 2.7), d = 0.7, grid bits 4: step 1/32, ``K = 76``,
    ``D = rint(22.4) = 22``; the default delta ``d / 20 = 0.035`` gives
    ``m = floor(1.12) = 1``."""
    from skprivate.negative_survey import _transition

    monkeypatch.setattr(_transition, "GRID_BITS", 4)
    model = RVNSPerturber(d=0.7, k=k, bounds=(0.3, 2.7), placement=placement)
    model.fit([[1.0]])
    h, ja, jb, D = (int(v[0]) if i else float(v[0]) for i, v in enumerate(model._grid))
    assert (h, ja, jb, D) == (1 / 32, 10, 86, 22)
    return model


@pytest.mark.parametrize("k", [1, 2])
@pytest.mark.parametrize("placement", ["boundary_safe", "paper"])
def test_audit_row_matches_brute_force(monkeypatch, placement, k):
    model = _coarse_model(monkeypatch, placement, k)
    row = skprivate.audit(model).iloc[0]
    safe = placement == "boundary_safe"
    x_lo = x_hi = None
    if not safe:
        margin = model.boundary_margin(0.035)
        assert margin == pytest.approx((1 / (2 * 22 - 1) + 1) / 32)
        x_lo, x_hi = round((0.3 + margin) * 32) - 10, round((2.7 - margin) * 32) - 10
        assert (x_lo, x_hi) == (1, 75)
    want, _ = brute_force(76, 22, 1, k, safe, x_lo, x_hi)
    assert row["audited_epsilon"] == pytest.approx(math.log(want), rel=1e-9)
    assert row["claimed_epsilon"] == pytest.approx(model.epsilon(0.035), rel=1e-15)
    assert row["respected"] == (row["audited_epsilon"] <= row["claimed_epsilon"])
    assert row["respected"]
    x, x2 = row["worst_inputs"]
    assert 0.3 <= x <= 2.7 and 0.3 <= x2 <= 2.7
    assert "half-width 0.035" in row["worst_output"]
    assert row["method"].startswith(f"windowed grid law ({placement}, k={k}")


@pytest.mark.parametrize("k", [1, 2, 3])
@pytest.mark.parametrize("placement", ["boundary_safe", "paper"])
def test_claims_respected_at_defaults(placement, k):
    """Bounds (0, 1), d = 0.2 (``2**27`` grid points), delta = d / 20."""
    model = RVNSPerturber(bounds=(0, 1), k=k, placement=placement).fit([[0.5]])
    row = skprivate.audit(model).iloc[0]
    assert row["respected"]
    audited, claimed = row["audited_epsilon"], row["claimed_epsilon"]
    # m = floor(0.01 * 2**27) steps, D = rint(0.2 * 2**27)
    m, D = 1342177, 26843546
    if placement == "boundary_safe":
        # k = 1 is exact (the claim is attained); for k >= 2 the worst tuple is
        # k windows one step from a bound, (k + 1) 2**(k - 1) d / delta, against
        # the bound (k + 1) M_k d / delta: ln 2 below for k = 2, ln 3 for k = 3
        want = {1: math.log(2 * D / m), 2: math.log(6 * D / m), 3: math.log(16 * D / m)}
        assert audited == pytest.approx(want[k], abs=1e-6)
        assert claimed - audited == pytest.approx(
            {1: 0.0, 2: math.log(2), 3: math.log(3)}[k], abs=1e-5
        )
    else:
        # the worst input is the one at the boundary margin; below k ln(4 D / m)
        assert claimed == pytest.approx(k * math.log(4 * D / m), rel=1e-15)
        assert 0 < claimed - audited < 0.7
        x2 = row["worst_inputs"][1]
        assert min(x2, 1 - x2) == pytest.approx(model.boundary_margin(0.01), abs=1e-8)


def test_planted_wider_paper_inputs_break_the_claim():
    """Inputs one step inside the boundary margin's grid point of the
    paper placement exceed its claim: the audit sees the margin."""
    K, D, m = 60, 20, 4
    claim = 4 * D / m  # k = 1
    margin = m * m / (2 * D - m)  # 0.44 steps: the first input is 1
    inside = GridWindowLaw(K, D, m, 1, False, 1, K - 1).worst()
    assert margin < 1 and float(inside.ratio) <= claim
    outside = GridWindowLaw(K, D, m, 1, False, 0, K).worst()
    assert float(outside.ratio) <= claim  # r = 0: the band is fixed, ratio <= 2
    near = GridWindowLaw(200, 80, 30, 1, False, 1, 199).worst()
    # r = 1 < m**2 / (2 D - m) = 6.9: ln(2 + 2 m / r) territory, above 4 D / m
    assert float(near.ratio) > 4 * 80 / 30


@pytest.mark.parametrize(
    ("K", "D", "m", "k"), [(30, 6, 2, 1), (30, 6, 3, 2), (9, 6, 6, 1), (14, 4, 2, 2)]
)
def test_pattern_search_climbs_from_the_middle(K, D, m, k):
    """The integer pattern search alone, started from windows two steps
    above the middle input, reaches the boundary-safe maximum (the value
    next to a bound, windows one step beyond it)."""
    law = GridWindowLaw(K, D, m, k, True)
    start = (K // 2, (K // 2 + 2,) * k)
    assert law.ratio(0, *start) < brute_force(K, D, m, k, True)[0]
    found = law._climb(*start, law._input_candidates())
    assert float(found.ratio) == pytest.approx(brute_force(K, D, m, k, True)[0])
