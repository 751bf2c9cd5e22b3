"""Exact laws of the page's samplers (samplers.js under Node, every random
word enumerated) against the mechanisms' exact laws, on coarse grids."""

from __future__ import annotations

import shutil
from fractions import Fraction
from pathlib import Path

import pytest

from skprivate import SubsetUniform
from skprivate.subset import SubsetDesign, SubsetMechanism
from skprivate.survey import mechanism_spec
from skprivate.survey._page_audit import (
    compare_laws,
    exp_neg,
    page_law,
    page_laws,
    spec_law,
)

from . import _laws
from .conftest import node_path, skip_or_fail

SAMPLERS = Path(__file__).parents[2] / "skprivate" / "survey" / "static" / "samplers.js"
# Any probability changed by more than the residual is caught; keep it far
# below one in a million.
TAIL = 28
RESIDUAL = Fraction(1, 10**6)


@pytest.fixture(autouse=True)
def _node():
    if node_path() is None:
        skip_or_fail("node is not installed (apt-get install nodejs)")


def _check(spec, inputs, samplers=None, tail=TAIL, residual=RESIDUAL):
    """Largest certified discrepancy over the inputs (residuals below ``residual``)."""
    jobs = [{"spec": spec, "value": x} for x in inputs]
    laws = page_laws(jobs, tail_bits=tail, samplers=samplers)
    worst = Fraction(0)
    for job, law in zip(jobs, laws):
        low, _ = compare_laws(law, spec_law(spec, job["value"]))
        worst = max(worst, low)
        assert law.residual < residual, law.residual
    return worst


SQUARE = {
    "kind": "square_wave",
    "low": 0.0,
    "high": 5.0,
    "n_cells": 5,
    "half_cells": 1,
    "step": 1.0,
    "epsilon": "0/1",
}


def test_square_wave_at_epsilon_zero_is_exact_for_every_input():
    # the near/far coin, the near draw, the far draw and its band placement
    assert _check(SQUARE, [float(k) for k in range(6)]) == 0


def test_square_wave_coin_with_le_instead_of_lt_is_caught(tmp_path):
    text = SAMPLERS.read_text()
    planted = "if (uniformNumber(width + n) <= width) {"
    assert text.count("if (uniformNumber(width + n) < width) {") == 1
    copy = tmp_path / "samplers.js"
    copy.write_text(text.replace("if (uniformNumber(width + n) < width) {", planted))
    worst = _check(SQUARE, [2.0], samplers=str(copy))
    # near mass 3/8 -> 4/8 spread over 3 outputs: 1/24 each
    assert worst >= Fraction(1, 24) - RESIDUAL


def test_square_wave_spec_law_matches_the_test_laws():
    spec = {**SQUARE, "epsilon": "1/1", "epsilon_value": 1.0}
    law = spec_law(spec, 2.0)
    near = _laws.square_wave_near(spec)
    assert float(law[2.0][0]) == pytest.approx(near / 3, rel=1e-14)
    assert float(law[5.0][0]) == pytest.approx((1 - near) / 5, rel=1e-14)


@pytest.mark.parametrize(("num", "den"), [(1, 1), (1, 2), (0, 3)])
def test_bernoulli_exp_coin_is_exact(num, den):
    law = page_law(op="bernoulliExp", num=num, den=den, tail_bits=26)
    lo, hi = exp_neg(Fraction(num, den))
    low, _ = compare_laws(law, {True: (lo, hi), False: (1 - hi, 1 - lo)})
    assert low == 0
    assert law.residual < Fraction(1, 10**4)


@pytest.mark.parametrize("placement", ["boundary_safe", "paper"])
@pytest.mark.parametrize("k", [1, 2])
def test_rvns_bands_are_exact_for_every_input(placement, k):
    spec = {
        "kind": "rvns",
        "ja": 0,
        "jb": 4,
        "band": 1,
        "k": k,
        "step": 1.0,
        "placement": placement,
    }
    assert _check(spec, [float(j) for j in range(5)]) == 0


def test_rvns_band_of_two_is_exact_at_the_bounds():
    # two nested rejection loops: a coarser residual, still below 1e-5
    spec = {"kind": "rvns", "ja": 0, "jb": 4, "band": 2, "k": 2, "step": 1.0}
    for placement in ("boundary_safe", "paper"):
        spec["placement"] = placement
        assert _check(spec, [0.0, 4.0], residual=Fraction(1, 10**5)) == 0


def _subset_spec_law_matches(priv, code):
    spec = mechanism_spec(priv)
    ours = spec_law(spec, code)
    theirs = _laws.subset_law(priv, code)
    assert {k: float(v[0]) for k, v in ours.items()} == pytest.approx(
        {tuple(float(b) for b in k): v for k, v in theirs.items()}, rel=1e-12
    )
    return spec


def test_subset_uniform_is_exact():
    # every rejected size restarts a distinct path, so the tree is bushy:
    # three categories, and a residual below 1e-4
    p = 3
    cats = list("abc")
    priv = SubsetUniform(categories=[cats]).fit([["a"]])
    spec = _subset_spec_law_matches(priv, 1)
    if spec["dummies"]:
        spec = {**spec, "alpha": "1/8"}  # the fitted alpha's denominator is too fine
    assert _check(spec, list(range(p)), tail=24, residual=Fraction(1, 10**4)) == 0


PAIRS = [
    [1, 1, 0, 0],
    [0, 0, 1, 1],
    [1, 0, 1, 0],
    [0, 1, 0, 1],
    [1, 0, 0, 1],
    [0, 1, 1, 0],
]


@pytest.mark.parametrize(
    ("kind", "subsets", "probs"),
    [
        ("independent", PAIRS, [0.25, 0.25, 0.125, 0.125, 0.125, 0.125]),
    ],
)
def test_general_subset_designs_are_exact(kind, subsets, probs):
    design = getattr(SubsetDesign, kind)(subsets, probs)
    cats = list("abcd")[: len(subsets[0])]
    priv = SubsetMechanism(design=design, categories=[cats]).fit([["a"]])
    spec = _subset_spec_law_matches(priv, 0)
    assert spec["design"] == kind
    assert _check(spec, list(range(len(cats)))) == 0


def test_missing_node_names_what_to_install(monkeypatch):
    monkeypatch.setattr(shutil, "which", lambda name: None)
    with pytest.raises(RuntimeError, match="install Node.js"):
        page_law(op="bernoulliExp", num=0, den=1)
