"""The oracles' samplers against the laws they state, by enumeration.

Every sampler of ``skprivate/frequency/_oracles.py`` draws from integer
uniforms only: coins ``U < a`` with ``U`` uniform on ``[0, 2**62)`` and
uniform integers on small ranges.  A stub generator walks every path of
those draws (the coin range cut at the oracle's thresholds, so that one
value stands for each run of equal outcomes, with its exact weight), which
gives the exact law of a report as fractions.  The tests check that law
against what the oracle states: its full table, ``p*`` and ``q*``, the base
weights of the Bayesian update, the variance and the realised epsilon.
``benchmarks/_mutation_specs_frequency.py`` lists the mutants of
``_oracles.py`` these tests were checked against.
"""

import math
import re
from collections import defaultdict
from fractions import Fraction

import numpy as np
import pytest

from skprivate.frequency._coins import COIN_SCALE
from skprivate.frequency._hashing import MAX_CATEGORIES
from skprivate.frequency._oracles import (
    MAX_BUCKETS,
    MAX_LAW_CELLS,
    GeneralizedRR,
    HadamardResponse,
    LocalHashing,
    UnaryEncoding,
    _parity,
    choose_oracle,
    make_oracle,
)


class PathGenerator:
    """A generator stub that returns the draws of one path of choices.

    Each element of each ``integers`` call is one choice: for the coin range
    ``[0, COIN_SCALE)`` one of the runs between ``cuts`` (the run's first
    value, weighted by its length), otherwise any value of the range
    (weighted equally).  The arguments are first passed to a real generator,
    which refuses what it would refuse and gives the shape and dtype.
    """

    def __init__(self, cuts, path, shape):
        self.starts = [0, *sorted(set(cuts))]
        self.ends = [*self.starts[1:], COIN_SCALE]
        self.path = path
        self.shape = shape
        self.choices, self.arity = [], []
        self.weight = Fraction(1)
        self.real = np.random.default_rng(0)

    def _choose(self, n):
        i = len(self.choices)
        c = self.path[i] if i < len(self.path) else 0
        self.choices.append(c)
        self.arity.append(n)
        return c

    def integers(self, low, high, size=None, dtype=np.int64):
        like = self.real.integers(low, high, size=size, dtype=dtype)
        assert np.shape(like) == self.shape, "one draw per coin expected"
        out = np.empty(np.shape(like), dtype=like.dtype)
        highs = np.broadcast_to(high, out.shape)
        for idx in np.ndindex(out.shape):
            h = int(highs[idx])
            if (low, h) == (0, COIN_SCALE):
                c = self._choose(len(self.starts))
                out[idx] = self.starts[c]
                self.weight *= Fraction(self.ends[c] - self.starts[c], COIN_SCALE)
            else:
                out[idx] = low + self._choose(h - low)
                self.weight *= Fraction(1, h - low)
        return out


def sampler_law(oracle, x, cuts):
    """``{report row: probability}`` of ``oracle.sample`` for category ``x``."""
    law = defaultdict(Fraction)
    path = []
    while True:
        shape = (1, oracle.n_categories) if isinstance(oracle, UnaryEncoding) else (1,)
        rng = PathGenerator(cuts, path, shape)
        out = oracle.sample(np.array([x], dtype=np.int64), rng)
        assert out.shape == (1, oracle.n_outputs)
        assert out.dtype == np.int64
        law[tuple(int(v) for v in out[0])] += rng.weight
        i = len(rng.choices) - 1
        while i >= 0 and rng.choices[i] == rng.arity[i] - 1:
            i -= 1
        if i < 0:
            break
        path = [*rng.choices[:i], rng.choices[i] + 1]
    assert sum(law.values()) == 1
    return dict(law)


def _cuts(oracle):
    if isinstance(oracle, UnaryEncoding):
        return [oracle.own, oracle.other]
    return [oracle.keep]


def _column(oracle, report):
    """The column of ``report`` in ``oracle.full_table``."""
    if isinstance(oracle, UnaryEncoding):
        return sum(bit << j for j, bit in enumerate(report))
    if isinstance(oracle, LocalHashing):
        return report[0] * oracle.n_buckets + report[1]
    return report[0]


ORACLES = [
    ("krr", 3, 1.0),
    ("krr", 2, 0.5),
    ("sue", 3, 1.0),
    ("oue", 3, 2.0),
    ("olh", 3, 1.0),
    ("blh", 3, 0.5),
    ("hr", 3, 1.0),
    ("hr", 4, 1.5),
]


@pytest.fixture(scope="module", params=ORACLES, ids=lambda p: "-".join(map(str, p)))
def law(request):
    kind, k, eps = request.param
    oracle = make_oracle(kind, k, eps)
    return oracle, [sampler_law(oracle, x, _cuts(oracle)) for x in range(k)]


def test_every_report_has_the_probability_of_the_full_table(law):
    oracle, laws = law
    table, labels = oracle.full_table([f"c{j}" for j in range(oracle.n_categories)])
    probs = np.exp(table)
    assert probs.shape[1] == len(labels)
    # every output of the table is reachable, and nothing else is
    assert set(laws[0]) == set().union(*laws)
    assert len(laws[0]) == probs.shape[1]
    limits = oracle.output_limits()
    for x, exact in enumerate(laws):
        for report, p in exact.items():
            assert all(0 <= r < m for r, m in zip(report, limits))
            assert probs[x, _column(oracle, report)] == pytest.approx(
                float(p), rel=1e-12
            )
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-12)


def test_support_probabilities_are_p_star_and_q_star(law):
    oracle, laws = law
    k = oracle.n_categories
    reports = {r for exact in laws for r in exact}
    support = {r: oracle.support(np.array([r], dtype=np.int64))[0] for r in reports}
    assert all(s.dtype == bool and s.shape == (k,) for s in support.values())
    for x, exact in enumerate(laws):
        for v in range(k):
            hit = sum(p for r, p in exact.items() if support[r][v])
            want = oracle.p_star if v == x else oracle.q_star
            assert float(hit) == pytest.approx(want, rel=1e-13), (x, v)


def test_base_weight_times_rho_is_the_probability(law):
    oracle, laws = law
    reports = sorted({r for exact in laws for r in exact})
    rows = np.array(reports, dtype=np.int64)
    base = oracle.log_base(rows)
    support = oracle.support(rows)
    assert base.shape == (len(reports),)
    for x, exact in enumerate(laws):
        got = base + oracle.log_rho * support[:, x]
        want = [math.log(exact[r]) for r in reports]
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12)


def test_realised_epsilon_is_the_largest_log_ratio(law):
    oracle, laws = law
    worst = max(math.log(a[r] / b[r]) for a in laws for b in laws for r in a if r in b)
    assert oracle.realised_epsilon == pytest.approx(worst, rel=1e-12)
    assert oracle.realised_epsilon <= oracle.epsilon


def test_variance_given_the_values(law):
    oracle, _ = law
    k = oracle.n_categories
    p, q = oracle.p_star, oracle.q_star
    f = np.array([0.5, 0.25, *([0.25 / (k - 2)] * (k - 2))] if k > 2 else [0.75, 0.25])
    n = 8
    # the support indicator of v is Bernoulli(p) for a respondent of v and
    # Bernoulli(q) otherwise: the estimate's variance given the values
    want = (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)
    np.testing.assert_allclose(oracle.variance(f, n), want, rtol=1e-13)
    assert oracle.variance(0.0, 1) == pytest.approx(q * (1 - q) / (p - q) ** 2)


def _loss_distribution(p0, p1):
    """Mass under each row at each log ratio, as sorted rounded tuples."""
    mass = defaultdict(lambda: [0.0, 0.0])
    for a, b in zip(p0, p1):
        key = round(math.log(a) - math.log(b), 9)
        mass[key][0] += a
        mass[key][1] += b
    return sorted((key, round(m0, 12), round(m1, 12)) for key, (m0, m1) in mass.items())


def test_pair_table_is_the_law_of_two_categories_by_classes(law):
    oracle, _ = law
    table, _ = oracle.full_table([f"c{j}" for j in range(oracle.n_categories)])
    pair, labels = oracle.pair_table()
    assert pair.shape == (2, len(labels))
    probs = np.exp(pair)
    np.testing.assert_allclose(probs.sum(axis=1), 1.0, rtol=1e-12)
    full = np.exp(table[:2])
    assert _loss_distribution(*probs) == _loss_distribution(*full)


# -- the stated numbers on exact small cases -------------------------------------


def test_krr_pair_table_by_category():
    oracle = make_oracle("krr", 4, 1.0)
    p, q = oracle.p_star, oracle.q_star
    pair, labels = oracle.pair_table()
    assert labels == [
        "the first category",
        "the second category",
        "any other category",
    ]
    np.testing.assert_allclose(np.exp(pair), [[p, q, 2 * q], [q, p, 2 * q]], rtol=1e-13)
    two = make_oracle("krr", 2, 1.0)
    assert two.pair_table()[1] == ["the first category", "the second category"]


def test_unary_pair_table_by_bits():
    oracle = make_oracle("oue", 3, 1.0)
    p, q = oracle.p_star, oracle.q_star
    pair, labels = oracle.pair_table()
    assert labels == [
        f"first category's bit {a}, second's {b} (other bits alike)"
        for a in (0, 1)
        for b in (0, 1)
    ]
    first = [(1 - p) * (1 - q), (1 - p) * q, p * (1 - q), p * q]
    second = [(1 - q) * (1 - p), (1 - q) * p, q * (1 - p), q * p]
    np.testing.assert_allclose(np.exp(pair), [first, second], rtol=1e-12)


def test_local_hashing_pair_table_by_collision():
    oracle = make_oracle("olh", 3, 2.0)  # g = round(e**2) + 1 = 8
    g, c = oracle.n_buckets, float(oracle.collision)
    assert g == 8 and 0 < c < 1
    p = oracle.keep / COIN_SCALE
    q = (1 - p) / (g - 1)
    pair, labels = oracle.pair_table()
    assert labels == [
        "seeds hashing both alike; the shared hash",
        "seeds hashing both alike; another hash",
        "seeds hashing them apart; first's hash",
        "seeds hashing them apart; second's hash",
        "seeds hashing them apart; a third hash",
    ]
    want = [
        [c * p, c * (1 - p), (1 - c) * p, (1 - c) * q, (1 - c) * (g - 2) * q],
        [c * p, c * (1 - p), (1 - c) * q, (1 - c) * p, (1 - c) * (g - 2) * q],
    ]
    np.testing.assert_allclose(np.exp(pair), want, rtol=1e-12)
    # two buckets: no third hash
    assert len(make_oracle("blh", 3, 2.0).pair_table()[1]) == 4


def test_hadamard_pair_table_by_quarters():
    oracle = make_oracle("hr", 5, 1.0)  # 8 indices
    p = oracle.keep / COIN_SCALE
    pair, labels = oracle.pair_table()
    assert labels == [
        "indices in both rows' halves",
        "indices in the first row's half only",
        "indices in the second row's half only",
        "indices in neither half",
    ]
    i, o = p / 2, (1 - p) / 2
    np.testing.assert_allclose(np.exp(pair), [[i, i, o, o], [i, o, i, o]], rtol=1e-12)


def test_full_table_labels():
    krr = make_oracle("krr", 3, 1.0)
    assert krr.full_table(["a", "b", "c"])[1] == ["a", "b", "c"]
    ue = make_oracle("sue", 2, 1.0)
    assert ue.full_table(["a", "b"])[1] == ["{}", "{a}", "{b}", "{a, b}"]
    hr = make_oracle("hr", 3, 1.0)
    assert hr.full_table(["a", "b", "c"])[1] == [f"index {j}" for j in range(4)]
    lh = make_oracle("blh", 2, 1.0)
    labels = lh.full_table(["a", "b"])[1]
    assert labels[:3] == ["seed 0, hash 0", "seed 0, hash 1", "seed 1, hash 0"]
    assert len(labels) == lh.n_seeds * 2


def test_full_tables_stop_at_the_cell_limit():
    # 1448**2 cells fit in 2**21, 1449**2 do not
    assert make_oracle("krr", 1448, 1.0).full_table(["c"] * 1448) is not None
    assert make_oracle("krr", 1449, 1.0).full_table(["c"] * 1449) is None
    # 16 * 2**16 fit, 17 * 2**17 do not
    assert make_oracle("oue", 17, 1.0).full_table(["c"] * 17) is None
    # 1024 rows of 2048 indices are exactly 2**21 cells
    assert MAX_LAW_CELLS == 1024 * 2048
    assert make_oracle("hr", 1024, 1.0).full_table(["c"] * 1024) is not None
    assert make_oracle("hr", 1025, 1.0).full_table(["c"] * 1025) is None
    big = make_oracle("olh", 200, 3.0)
    assert 200 * big.n_seeds * big.n_buckets > MAX_LAW_CELLS
    assert big.full_table(["c"] * 200) is None


def test_unary_table_of_sixteen_categories_is_enumerated():
    oracle = make_oracle("sue", 16, 1.0)
    table, labels = oracle.full_table([str(j) for j in range(16)])
    assert table.shape == (16, 2**16) and len(labels) == 2**16


def test_local_hashing_buckets():
    # g = round(e**eps) + 1, at least 2, at most MAX_BUCKETS; BLH: 2
    assert make_oracle("olh", 3, 1.0).n_buckets == 4
    assert make_oracle("olh", 3, 0.1).n_buckets == 2
    assert make_oracle("olh", 3, 1.0).n_buckets == round(math.e) + 1
    assert make_oracle("olh", 3, 2.5).n_buckets == round(math.exp(2.5)) + 1
    assert make_oracle("blh", 3, 5.0).n_buckets == 2


def test_local_hashing_bucket_cap(monkeypatch):
    import skprivate.frequency._oracles as module

    # the exact collision probability of 2**24 buckets takes seconds; the
    # bucket count does not depend on it
    monkeypatch.setattr(module, "collision_probability", lambda P, g: Fraction(1, g))
    oracle = LocalHashing(2, 60.0, optimal=True)
    assert oracle.n_buckets == MAX_BUCKETS
    assert oracle.summary()["n_buckets"] == MAX_BUCKETS


def test_report_limits_of_each_oracle():
    assert make_oracle("krr", 5, 1.0).output_limits() == [5]
    assert make_oracle("oue", 3, 1.0).output_limits() == [2, 2, 2]
    assert make_oracle("sue", 2, 1.0).output_limits() == [2, 2]
    lh = make_oracle("olh", 3, 1.0)
    assert lh.output_limits() == [lh.n_seeds, 4]
    assert make_oracle("hr", 5, 1.0).output_limits() == [8]


def test_a_unary_report_bit_of_two_is_refused():
    from skprivate.frequency import FrequencyEstimator, OptimizedUnaryEncoding

    fo = OptimizedUnaryEncoding(1.0, categories=[[0, 1, 2]]).fit([[0]])
    reports = np.array([[0, 1, 0], [1, 0, 2]])
    message = (
        "Row 1 of X has a report outside the oracle's outputs in column 2 "
        "(integers 0 to 1 expected)."
    )
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        FrequencyEstimator(oracle=fo).fit(reports)


def test_local_hashing_takes_the_largest_number_of_categories(monkeypatch):
    import skprivate.frequency._oracles as module

    # as in test_local_hashing_bucket_cap: the collision probability of a
    # prime above 2**24 takes seconds and does not matter here
    monkeypatch.setattr(module, "collision_probability", lambda P, g: Fraction(1, g))
    oracle = LocalHashing(MAX_CATEGORIES, 1.0, optimal=False)
    assert oracle.n_categories == MAX_CATEGORIES
    assert oracle.prime >= MAX_CATEGORIES


def test_local_hashing_refuses_too_many_categories():
    message = (
        f"local hashing takes at most {MAX_CATEGORIES} categories; got "
        f"{MAX_CATEGORIES + 1}."
    )
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        LocalHashing(MAX_CATEGORIES + 1, 1.0, optimal=True)


def test_local_hashing_q_star_counts_collisions():
    oracle = make_oracle("olh", 5, 1.0)
    p = Fraction(oracle.keep, COIN_SCALE)
    q = (1 - p) / (oracle.n_buckets - 1)
    c = Fraction(oracle.collision)
    assert oracle.p_star == float(p)
    assert oracle.q_star == pytest.approx(float(q + (p - q) * c), rel=1e-15)


def test_make_oracle_kinds_and_refusal():
    assert isinstance(make_oracle("krr", 3, 1.0), GeneralizedRR)
    sue, oue = make_oracle("sue", 3, 1.0), make_oracle("oue", 3, 1.0)
    assert (sue.kind, sue.symmetric, oue.kind, oue.symmetric) == (
        "sue",
        True,
        "oue",
        False,
    )
    assert sue.name == "symmetric unary encoding (SUE)"
    assert oue.name == "optimized unary encoding (OUE)"
    olh, blh = make_oracle("olh", 3, 1.0), make_oracle("blh", 3, 1.0)
    assert (olh.kind, blh.kind) == ("olh", "blh")
    assert olh.name == "optimized local hashing (OLH)"
    assert blh.name == "binary local hashing (BLH)"
    assert isinstance(make_oracle("hr", 3, 1.0), HadamardResponse)
    message = (
        "oracle must be one of ['krr', 'sue', 'oue', 'olh', 'blh', 'hr']; got 'rappor'."
    )
    with pytest.raises(ValueError, match="^" + re.escape(message) + "$"):
        make_oracle("rappor", 3, 1.0)


def test_choose_oracle_threshold():
    # k-RR while k < 3 e**eps + 2: at eps = 0 the threshold is 5
    assert choose_oracle(4, 0.0) == "krr"
    assert choose_oracle(5, 0.0) == "oue"
    # at eps = log 2 it is 8
    assert choose_oracle(7, math.log(2.0)) == "krr"
    assert choose_oracle(8, math.log(2.0)) == "oue"
    # huge budgets: e**eps is capped, no overflow
    assert choose_oracle(10**6, 1e6) == "krr"


def test_parity_of_set_bits():
    values = [
        0,
        1,
        2,
        3,
        7,
        2**31,
        2**32 + 1,
        2**40 + 2**35 + 3,
        2**62 - 1,
        2**61 + 2**17,
    ]
    want = [bin(v).count("1") % 2 for v in values]
    assert _parity(np.array(values, dtype=np.int64)).tolist() == want
    x = np.array([3], dtype=np.int64)
    _parity(x)
    assert x.tolist() == [3]  # the input is not changed


def test_hadamard_size_is_the_smallest_power_of_two_above_k():
    assert [make_oracle("hr", k, 1.0).size for k in (2, 3, 4, 7, 8)] == [
        4,
        4,
        8,
        8,
        16,
    ]
    assert make_oracle("hr", 7, 1.0).summary()["hadamard_size"] == 8
