"""Longitudinal (memoized) k-RR and OUE: composed law, claims, estimators.

The composed laws are enumerated from the two stages written out here
(permanent answer, then one wave's randomization of it) with the realised
dyadic coins, independently of the package's formulas.
"""

from __future__ import annotations

import itertools
import math
import pickle
from fractions import Fraction

import numpy as np
import pytest

from skprivate import audit, privacy_report
from skprivate.frequency import LongitudinalFrequencyEstimator, LongitudinalOracle
from skprivate.frequency._coins import COIN_SCALE
from skprivate.frequency._laws import oracle_law


def _fit(kind, k, eps_p, eps_i, waves=1, random_state=None):
    lo = LongitudinalOracle(
        kind=kind,
        epsilon_permanent=eps_p,
        epsilon_instant=eps_i,
        waves=waves,
        categories=[list(range(k))],
        random_state=random_state,
    )
    return lo.fit([[0]])


def _krr_matrix(keep, k):
    """k-RR transition matrix (rows: input) from its keep numerator."""
    p = Fraction(keep, COIN_SCALE)
    q = (1 - p) / (k - 1)
    return [[p if i == j else q for j in range(k)] for i in range(k)]


def _bit_vectors(k):
    """Output ``i`` of unary encoding: bit ``j`` is bit ``j`` of ``i``."""
    return [tuple((i >> j) & 1 for j in range(k)) for i in range(2**k)]


def _stages(channel):
    """Per-stage laws: (permanent P(B | x), instant P(y | B), outputs)."""
    k = channel.n_categories
    if channel.kind == "krr":
        perm = _krr_matrix(channel.permanent.keep, k)
        inst = _krr_matrix(channel.instant.keep, k)
        return perm, inst, list(range(k))
    vectors = _bit_vectors(k)

    def bits_law(one_if_own, one_if_other, x_bits):
        def prob(v):
            out = Fraction(1)
            for own, bit in zip(x_bits, v, strict=True):
                p1 = one_if_own if own else one_if_other
                out *= p1 if bit else 1 - p1
            return out

        return prob

    p_own = Fraction(channel.permanent.own, COIN_SCALE)
    p_other = Fraction(channel.permanent.other, COIN_SCALE)
    own_i, other_i = (Fraction(a, COIN_SCALE) for a in channel.instant_numerators)
    perm = []
    for x in range(k):
        law = bits_law(p_own, p_other, [j == x for j in range(k)])
        perm.append([law(b) for b in vectors])
    # instant: a permanent 1 reports 1 with own_i, a permanent 0 with other_i
    inst = [[bits_law(own_i, other_i, b)(v) for v in vectors] for b in vectors]
    return perm, inst, vectors


def _composed(channel, waves=1):
    """Exact P(reports of ``waves`` waves | x), enumerated."""
    perm, inst, outputs = _stages(channel)
    k, m = channel.n_categories, len(outputs)
    table = []
    for x in range(k):
        row = []
        for ys in itertools.product(range(m), repeat=waves):
            total = Fraction(0)
            for b in range(m):
                term = perm[x][b]
                for y in ys:
                    term *= inst[b][y]
                total += term
            row.append(total)
        table.append(row)
    return table


def _worst(table):
    out = 0.0
    for col in zip(*table, strict=True):
        out = max(out, math.log(max(col) / min(col)))
    return out


@pytest.mark.parametrize(
    "kind, k, eps_p, eps_i",
    [("krr", 2, 1.0, 0.5), ("krr", 4, 2.0, 1.0), ("oue", 3, 1.0, 2.0)],
)
def test_composed_law_matches_enumeration(kind, k, eps_p, eps_i):
    channel = _fit(kind, k, eps_p, eps_i).oracles_[0]
    exact = _composed(channel)
    law = oracle_law(channel, [str(c) for c in range(k)], full=True)
    np.testing.assert_allclose(
        np.exp(law.log_prob), np.array(exact, dtype=float), rtol=1e-13
    )
    # the pure-oracle levels: own category a, any other b
    if kind == "krr":
        a, b = exact[0][0], exact[1][0]
    else:  # marginal of bit 0 given x = 0 and x = 1
        ones = [i for i, v in enumerate(_bit_vectors(k)) if v[0]]
        a, b = sum(exact[0][i] for i in ones), sum(exact[1][i] for i in ones)
    assert channel.p_star == pytest.approx(float(a), rel=1e-15)
    assert channel.q_star == pytest.approx(float(b), rel=1e-15)
    assert channel.wave_epsilon == pytest.approx(_worst(exact), rel=1e-12)


@pytest.mark.parametrize("kind, k", [("krr", 3), ("krr", 40), ("oue", 4), ("oue", 30)])
def test_audited_wave_epsilon_equals_claim(kind, k):
    lo = _fit(kind, k, 2.0, 1.5)
    summary = lo.privacy_summary()
    row = audit(lo).iloc[0]
    assert row["audited_epsilon"] == summary["epsilon_per_feature"][0]
    assert bool(row["respected"])
    assert summary["epsilon_per_wave"] == pytest.approx(
        lo.oracles_[0].wave_epsilon, rel=1e-12
    )
    # one wave is post-processing of either stage
    assert summary["epsilon_per_wave"] < min(1.5, 2.0)


@pytest.mark.parametrize("kind, k", [("krr", 3), ("oue", 2)])
def test_lifetime_claim(kind, k):
    lo = _fit(kind, k, 1.0, 2.0, waves=3)
    summary = lo.privacy_summary()
    channel = lo.oracles_[0]
    # the realised loss of the permanent answer, never below the audit's
    # float evaluation of its law
    realised = channel.permanent.realised_epsilon
    assert summary["epsilon_lifetime"] == pytest.approx(realised, rel=1e-12)
    assert summary["epsilon_lifetime"] >= realised
    assert summary["epsilon_lifetime"] <= 1.0
    assert summary["epsilon"] == summary["epsilon_lifetime"]
    assert "adds epsilon_permanent" in summary["condition"]
    # three waves of one value: above one wave, within the permanent answer's loss
    three = _worst(_composed(channel, waves=3))
    assert summary["epsilon_per_wave"] < three <= summary["epsilon_lifetime"] + 1e-12
    # the report row covers the three waves one call releases (the
    # permanent answer's loss, at least the enumerated three-wave loss),
    # audited equal
    report = privacy_report(lo)
    assert report.loc[0, "epsilon"] == summary["epsilon_per_feature"][0]
    assert report.loc[0, "epsilon"] == summary["epsilon_lifetime"]
    assert report.loc[0, "epsilon"] >= three - 1e-12
    assert report.loc[0, "audited_epsilon"] == report.loc[0, "epsilon"]


def _mse_case(kind, eps_p, eps_i, waves, seed):
    k, n, reps = 3, 1000, 200
    f = np.array([0.5, 0.3, 0.2])
    codes = np.repeat(np.arange(k), (f * n).astype(int))
    lo = _fit(kind, k, eps_p, eps_i, waves=waves)
    channel = lo.oracles_[0]
    rng = np.random.default_rng(seed)
    wave0, pooled = [], []
    for _ in range(reps):
        est = LongitudinalFrequencyEstimator(oracle=lo).fit(
            channel.sample(codes, waves, rng)
        )
        wave0.append(est.wave_estimates_[0])
        pooled.append(est.distribution_)
    return channel, f, n, np.array(wave0), np.array(pooled)


@pytest.mark.parametrize("kind", ["krr", "oue"])
def test_mse_matches_closed_form(kind):
    waves = 4
    channel, f, n, wave0, pooled = _mse_case(kind, 1.0, 3.0, waves, seed=7)
    for estimates, expected in (
        (wave0, channel.variance(f, n)),
        (pooled, channel.pooled_variance(f, n, waves)),
    ):
        sq = (estimates - f) ** 2
        mse, se = sq.mean(axis=0), sq.std(axis=0, ddof=1) / np.sqrt(len(sq))
        assert np.all(np.abs(mse - expected) < 3 * se), (mse, expected, se)
    # the covariance matters here: averaging waves gains far less than 1/waves
    pooled_var = channel.pooled_variance(f, n, waves)
    assert np.all(pooled_var > 1.5 * channel.variance(f, n) / waves)


def test_pickle_carries_no_permanent_answer():
    x = np.repeat(np.arange(3), 4000).reshape(-1, 1)
    lo = LongitudinalOracle(
        epsilon_permanent=0.2, epsilon_instant=40.0, waves=2, categories=[[0, 1, 2]]
    ).fit(x)
    before = len(pickle.dumps(lo))
    first = lo.transform(x)
    second = lo.transform(x)
    assert len(pickle.dumps(lo)) == before
    copy = pickle.loads(pickle.dumps(lo))
    third = copy.transform(x)
    # within a call the waves share the permanent answer (the instant stage
    # is nearly the identity here); across calls and copies they do not
    assert np.mean(first[:, 0] == first[:, 1]) > 0.99
    for other in (second, third):
        agree = np.mean(first[:, 0] == other[:, 0])
        assert agree < 0.5, agree  # independent draws at eps 0.2: about 0.35


def test_seeded_simulation_reproducible():
    x = np.array([[0], [1], [2]] * 50)
    a = _fit("oue", 3, 1.0, 1.0, waves=2, random_state=3)
    b = _fit("oue", 3, 1.0, 1.0, waves=2, random_state=3)
    np.testing.assert_array_equal(a.transform(x), b.transform(x))
    assert list(a.get_feature_names_out())[:4] == [
        "x0_wave0=0",
        "x0_wave0=1",
        "x0_wave0=2",
        "x0_wave1=0",
    ]


def test_estimator_refuses_bad_reports():
    lo = _fit("krr", 3, 1.0, 1.0, waves=2)
    est = LongitudinalFrequencyEstimator(oracle=lo)
    with pytest.raises(ValueError, match="2 columns"):
        est.fit(np.zeros((4, 3), dtype=int))
    with pytest.raises(ValueError, match=r"report codes in \[0, 3\)"):
        est.fit(np.full((4, 2), 3))
    with pytest.raises(TypeError, match="LongitudinalOracle"):
        LongitudinalFrequencyEstimator(oracle=None).fit(np.zeros((4, 2), dtype=int))
    declared = LongitudinalOracle(waves=2, categories=[[0, 1, 2]])
    fitted = LongitudinalFrequencyEstimator(oracle=declared).fit(
        np.zeros((4, 2), dtype=int)
    )
    assert fitted.wave_estimates_.shape == (2, 3)
