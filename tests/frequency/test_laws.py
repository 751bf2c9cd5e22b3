"""Exact output laws of the frequency oracles against their closed formulas.

Every table is compared with the probabilities written out from the
mechanism's definition (enumerating outputs, seeds and Hadamard rows
independently of the package's code), with the realised dyadic coins.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy.linalg import hadamard

from skprivate import audit, privacy_report
from skprivate.frequency import FrequencyOracle
from skprivate.frequency._coins import COIN_SCALE
from skprivate.frequency._laws import PairReducedLaw, oracle_law

KINDS = ["krr", "sue", "oue", "olh", "blh", "hr"]


def _fit(kind, k, eps):
    return FrequencyOracle(kind, epsilon=eps, categories=[list(range(k))]).fit([[0]])


def _table(kind, k, eps):
    fo = _fit(kind, k, eps)
    law = oracle_law(fo.oracles_[0], [str(c) for c in range(k)], full=True)
    return fo.oracles_[0], np.exp(law.log_prob)


@pytest.mark.parametrize("k, eps", [(2, 0.5), (5, 1.0), (9, 3.0)])
def test_krr_table(k, eps):
    oracle, P = _table("krr", k, eps)
    p = oracle.keep / COIN_SCALE
    expected = np.full((k, k), (1 - p) / (k - 1))
    np.fill_diagonal(expected, p)
    np.testing.assert_allclose(P, expected, rtol=1e-13)
    assert p == pytest.approx(math.exp(eps) / (math.exp(eps) + k - 1), rel=1e-11)


@pytest.mark.parametrize("kind", ["sue", "oue"])
@pytest.mark.parametrize("k, eps", [(2, 0.5), (4, 1.0), (6, 2.0)])
def test_unary_table(kind, k, eps):
    oracle, P = _table(kind, k, eps)
    p, q = oracle.own / COIN_SCALE, oracle.other / COIN_SCALE
    for x in range(k):
        for y, bits in enumerate(itertools.product([0, 1], repeat=k)):
            bits = bits[::-1]  # output y has bit j = (y >> j) & 1
            prob = 1.0
            for j, b in enumerate(bits):
                on = p if j == x else q
                prob *= on if b else 1 - on
            assert P[x, y] == pytest.approx(prob, rel=1e-12)
    if kind == "sue":
        half = math.exp(eps / 2)
        assert p == pytest.approx(half / (half + 1), rel=1e-11)
        assert q == pytest.approx(1 - p, rel=1e-15)
    else:
        assert (p, q) == pytest.approx((0.5, 1 / (math.exp(eps) + 1)), rel=1e-11)


@pytest.mark.parametrize("kind, k, eps", [("olh", 4, 1.0), ("blh", 5, 1.0)])
def test_local_hashing_table(kind, k, eps):
    oracle, P = _table(kind, k, eps)
    prime, g = oracle.prime, oracle.n_buckets
    p = oracle.keep / COIN_SCALE
    q = (1 - p) / (g - 1)
    seeds = [(a, b) for a in range(1, prime) for b in range(prime)]
    for x in range(k):
        col = 0
        for a, b in seeds:
            h = ((a * x + b) % prime) % g
            for y in range(g):
                expected = (p if y == h else q) / len(seeds)
                assert P[x, col] == pytest.approx(expected, rel=1e-12)
                col += 1
    assert P.shape[1] == len(seeds) * g


@pytest.mark.parametrize("k, eps", [(3, 1.0), (7, 0.5), (12, 2.0)])
def test_hadamard_table(k, eps):
    oracle, P = _table("hr", k, eps)
    K = oracle.size
    H = hadamard(K)
    p = oracle.keep / COIN_SCALE
    expected = np.where(H[1 : k + 1] == 1, 2 * p / K, 2 * (1 - p) / K)
    np.testing.assert_allclose(P, expected, rtol=1e-13)
    assert p == pytest.approx(math.exp(eps) / (math.exp(eps) + 1), rel=1e-11)


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("k, eps", [(3, 0.7), (6, 1.5)])
def test_pair_reduction_has_the_full_worst_case(kind, k, eps):
    fo = _fit(kind, k, eps)
    labels = [str(c) for c in range(k)]
    full = oracle_law(fo.oracles_[0], labels, full=True)
    pair = oracle_law(fo.oracles_[0], labels, full=False)
    assert isinstance(pair, PairReducedLaw)
    assert pair.worst_epsilon().value == pytest.approx(
        full.worst_epsilon().value, abs=1e-12
    )
    for at in (0.0, eps / 3, eps / 2):
        assert pair.worst_delta(at).value == pytest.approx(
            full.worst_delta(at).value, abs=1e-12
        )


@pytest.mark.parametrize("kind", KINDS)
@pytest.mark.parametrize("k, eps", [(4, 1.0), (3000, 0.8)])
def test_audited_epsilon_equals_the_claim(kind, k, eps):
    fo = _fit(kind, k, eps)
    row = audit(fo).iloc[0]
    assert row["claimed_epsilon"] == eps
    assert eps * (1 - 1e-10) <= row["audited_epsilon"] <= eps
    assert bool(row["respected"])
    assert row["audited_epsilon"] == pytest.approx(fo.oracles_[0].realised_epsilon)


def test_privacy_report_rows():
    X = np.array([[0, 0]])
    fo = FrequencyOracle(epsilon=2.0, categories=[[0, 1, 2], list(range(50))]).fit(X)
    report = privacy_report(fo)
    assert report["epsilon"].tolist() == [1.0, 1.0, 2.0]
    assert report["mechanism"].iloc[0] == "FrequencyOracle"
    audited = report["audited_epsilon"].iloc[:2]
    assert ((audited <= 1.0) & (audited > 1.0 - 1e-10)).all()


@pytest.mark.parametrize("kind", KINDS)
def test_every_output_is_reachable_at_large_epsilon(kind):
    """At eps = 60 per column every coin is strictly between 0 and 1 and the
    exact law gives every output a positive probability from every input."""
    fo = _fit(kind, 3, 60.0)
    oracle = fo.oracles_[0]
    numerators = [oracle.own, oracle.other] if kind in ("sue", "oue") else [oracle.keep]
    assert all(0 < a < COIN_SCALE for a in numerators)
    law = oracle_law(oracle, ["0", "1", "2"], full=kind not in ("olh",))
    table = law.law.log_prob if isinstance(law, PairReducedLaw) else law.log_prob
    assert np.isfinite(table).all()
    assert law.worst_epsilon().value <= 60.0
