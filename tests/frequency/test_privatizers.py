"""Frequency privatizers: exact coins, samplers, categories and the front door."""

from __future__ import annotations

import math
import warnings
from decimal import Decimal, localcontext
from fractions import Fraction

import numpy as np
import pandas as pd
import pytest

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.frequency import (
    BinaryLocalHashing,
    FrequencyOracle,
    GeneralizedRandomizedResponse,
    HadamardResponse,
    OptimizedLocalHashing,
    OptimizedUnaryEncoding,
    SymmetricUnaryEncoding,
)
from skprivate.frequency._coins import (
    COIN_SCALE,
    EPSILON_FLOOR,
    EPSILON_MARGIN,
    keep_numerator,
    unary_numerators,
)
from skprivate.frequency._hashing import collision_probability, hash_values

CLASSES = [
    GeneralizedRandomizedResponse,
    SymmetricUnaryEncoding,
    OptimizedUnaryEncoding,
    OptimizedLocalHashing,
    BinaryLocalHashing,
    HadamardResponse,
]


def _exp_target(eps):
    with localcontext() as ctx:
        ctx.prec = 80
        eps = Decimal(eps)
        return (eps - eps * Decimal(EPSILON_MARGIN) - Decimal(EPSILON_FLOOR)).exp()


class StubGenerator:
    """Returns the queued arrays from ``integers``, recording each call's range."""

    def __init__(self, *draws):
        self.draws = [np.asarray(d, dtype=np.int64) for d in draws]
        self.calls = []

    def integers(self, low, high, size=None, dtype=np.int64):
        self.calls.append((low, high))
        out = self.draws.pop(0)
        assert out.shape == (size if isinstance(size, tuple) else (size,))
        assert ((low <= out) & (out < high)).all()
        return out


# -- exact coins ------------------------------------------------------------
@pytest.mark.parametrize("eps, n_other", [(0.1, 1), (1.0, 3), (2.5, 9), (8.0, 99)])
def test_keep_numerator_is_the_largest_safe_one(eps, n_other):
    a = keep_numerator(eps, n_other)
    e = _exp_target(eps)
    with localcontext() as ctx:
        ctx.prec = 80
        assert Decimal(a * n_other) <= (COIN_SCALE - a) * e  # safe
        assert Decimal((a + 1) * n_other) > (COIN_SCALE - a - 1) * e  # tight
    ideal = math.exp(eps) / (math.exp(eps) + n_other)
    assert a / COIN_SCALE == pytest.approx(ideal, rel=1e-11)


@pytest.mark.parametrize("eps", [0.2, 1.0, 3.0])
def test_unary_numerators_are_safe_and_tight(eps):
    e = _exp_target(eps)
    with localcontext() as ctx:
        ctx.prec = 80
        a, b = unary_numerators(eps, symmetric=True)
        assert a + b == COIN_SCALE
        assert Decimal(a) ** 2 <= Decimal(b) ** 2 * e
        assert Decimal(a + 1) ** 2 > Decimal(b - 1) ** 2 * e
        a, b = unary_numerators(eps, symmetric=False)
        assert a == COIN_SCALE // 2
        assert COIN_SCALE - b <= b * e
        assert COIN_SCALE - (b - 1) > (b - 1) * e
    assert b / COIN_SCALE == pytest.approx(1 / (math.exp(eps) + 1), rel=1e-11)


# -- samplers, driven by exact integer draws --------------------------------
def test_krr_sampler_keeps_exactly_below_the_threshold():
    krr = GeneralizedRandomizedResponse(1.0, categories=[[0, 1, 2, 3]]).fit([[0]])
    oracle = krr.oracles_[0]
    a = oracle.keep
    codes = np.array([2, 2, 2, 0])
    # coins: a - 1 keeps, a does not; the other value skips the true one
    rng = StubGenerator([a - 1, a, a, a], [0, 1, 2, 2])
    out = oracle.sample(codes, rng)[:, 0]
    assert out.tolist() == [2, 1, 3, 3]
    assert rng.calls == [(0, COIN_SCALE), (0, 3)]


def test_unary_sampler_uses_own_and_other_thresholds():
    ue = OptimizedUnaryEncoding(1.0, categories=[[0, 1, 2]]).fit([[0]])
    oracle = ue.oracles_[0]
    own, other = oracle.own, oracle.other
    draws = np.array([[own - 1, other - 1, other], [other, own, other - 1]])
    out = oracle.sample(np.array([0, 1]), StubGenerator(draws))
    assert out.tolist() == [[1, 1, 0], [0, 0, 1]]


def test_local_hashing_sampler_reports_the_public_seed_and_hash():
    olh = OptimizedLocalHashing(2.0, categories=[list(range(5))]).fit([[0]])
    oracle = olh.oracles_[0]
    assert (oracle.prime, oracle.n_buckets) == (11, 8)  # g = round(e**2) + 1
    seeds = np.array([0, 37, 109])  # (a, b) = (1, 0), (4, 4), (10, 10)
    codes = np.array([3, 3, 4])
    a = oracle.keep
    out = oracle.sample(codes, StubGenerator(seeds, [a - 1, a - 1, a], [6, 0, 2]))
    # ((a x + b) mod 11) mod 8: 3, 16 mod 11 = 5, 50 mod 11 = 6 (not kept: 2 < 6)
    assert out.tolist() == [[0, 3], [37, 5], [109, 2]]
    # the estimator's support recomputes the hash from the public seed
    support = oracle.support(out)
    assert support[np.arange(3), codes].tolist() == [True, True, False]


def test_hash_family_collision_probability_by_enumeration():
    P, g = 11, 3
    seeds = np.arange((P - 1) * P)
    collide = Fraction(0)
    for x, x2 in [(0, 1), (2, 9), (4, 10)]:
        same = hash_values(seeds, x, P, g) == hash_values(seeds, x2, P, g)
        collide = Fraction(int(same.sum()), seeds.size)
        assert collide == collision_probability(P, g)
    assert collide <= Fraction(1, g)


def test_hadamard_sampler_moves_to_the_chosen_half():
    hr = HadamardResponse(1.0, categories=[list("abc")]).fit([["a"]])
    oracle = hr.oracles_[0]
    assert oracle.size == 4
    a = oracle.keep
    # category b is row 2 of H_4: +1 on indices {0, 1}
    codes = np.array([1, 1, 1, 1])
    out = oracle.sample(codes, StubGenerator([0, 2, 1, 3], [a - 1, a - 1, a, a]))
    assert out[:, 0].tolist() == [0, 0, 3, 3]
    # category c is row 3 (binary 11): +1 on {0, 3}; index 1 moves to 0
    out = oracle.sample(np.array([2, 2]), StubGenerator([1, 2], [a - 1, a]))
    assert out[:, 0].tolist() == [0, 2]


# -- the transformers --------------------------------------------------------
@pytest.mark.parametrize("cls", CLASSES)
def test_declared_categories_release_without_warning(cls):
    X = pd.DataFrame({"race": ["White", "Black", "Asian", "White"]})
    priv = cls(epsilon=1.0, categories=[["Asian", "Black", "Other", "White"]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = priv.set_params(random_state=0).fit_transform(X)
    assert out.shape == (4, len(priv.get_feature_names_out()))
    assert out.dtype == np.int64


@pytest.mark.parametrize("cls", CLASSES)
def test_categories_read_from_data_warn(cls):
    with pytest.warns(PrivacyLeakWarning, match="categories='auto'"):
        priv = cls().fit(np.array([["a"], ["b"], ["c"]]))
    assert priv.categories_[0].tolist() == ["a", "b", "c"]


def test_unknown_and_missing_values_are_named_by_row_not_shown():
    priv = GeneralizedRandomizedResponse(categories=[["x", "y"]]).fit([["x"]])
    with pytest.raises(ValueError, match="column 'x0' at row 2") as info:
        priv.transform(np.array([["x"], ["y"], ["secret-value"]], dtype=object))
    assert "secret-value" not in str(info.value)
    with pytest.raises(ValueError, match="missing value .* row 1"):
        priv.transform(np.array([["x"], [None]], dtype=object))


@pytest.mark.parametrize("cls", CLASSES)
def test_extreme_epsilons_are_audited_or_refused(cls):
    from skprivate import audit

    cats = [["a", "b", "c"]]
    with pytest.raises(ValueError, match="epsilon per column"):
        cls(epsilon=1e-10, categories=cats).fit([["a"]])
    for eps in (1e-9, 1e-4, 60.0, 1e12):
        row = audit(cls(epsilon=eps, categories=cats).fit([["a"]])).iloc[0]
        assert bool(row["respected"]), (eps, row["audited_epsilon"])
        assert row["audited_epsilon"] <= eps


def test_too_few_categories_and_bad_epsilon():
    with pytest.raises(ValueError, match="at least 2"):
        GeneralizedRandomizedResponse(categories=[["x"]]).fit([["x"]])
    with pytest.raises(ValueError, match="epsilon"):
        GeneralizedRandomizedResponse(epsilon=0.0, categories=[["x", "y"]]).fit([["x"]])


def test_output_names_per_oracle():
    cats = [["a", "b", "c"]]
    X = pd.DataFrame({"f": ["a"]})
    names = {
        cls.__name__: list(cls(categories=cats).fit(X).get_feature_names_out())
        for cls in CLASSES
    }
    assert names["GeneralizedRandomizedResponse"] == ["f"]
    assert names["OptimizedUnaryEncoding"] == ["f=a", "f=b", "f=c"]
    assert names["OptimizedLocalHashing"] == ["f_seed", "f_hash"]
    assert names["HadamardResponse"] == ["f_hadamard"]


def test_budget_is_split_over_columns():
    X = np.array([[0, 0]])
    fo = FrequencyOracle(epsilon=2.0, categories=[[0, 1], [0, 1, 2]]).fit(X)
    summary = fo.privacy_summary()
    assert summary["epsilon_per_feature"] == 1.0
    assert all(o.epsilon == 1.0 for o in fo.oracles_)
    assert max(summary["realised_epsilon_per_feature"]) <= 1.0


@pytest.mark.parametrize("k, expected", [(7, "krr"), (8, "oue")])
def test_auto_picks_krr_below_3_e_eps_plus_2(k, expected):
    # eps = log 2: 3 e**eps + 2 = 8
    fo = FrequencyOracle(epsilon=math.log(2.0), categories=[list(range(k))])
    assert fo.fit([[0]]).oracles_[0].kind == expected


def test_seeded_release_reproduces_and_varies_with_data():
    cats = [list(range(6))]
    X = np.arange(6).reshape(-1, 1).repeat(50, axis=0)
    a = FrequencyOracle("oue", categories=cats, random_state=3).fit(X).transform(X)
    b = FrequencyOracle("oue", categories=cats, random_state=3).fit(X).transform(X)
    c = (
        FrequencyOracle("oue", categories=cats, random_state=3)
        .fit(X)
        .transform(X[::-1])
    )
    assert np.array_equal(a, b)
    assert not np.array_equal(a[::-1], c)


def test_dask_fit_names_the_row_of_a_missing_value():
    dd = pytest.importorskip("dask.dataframe")
    frame = pd.DataFrame({"race": ["a", "b"] * 10}, dtype=object)
    frame.iloc[13, 0] = None
    lazy = dd.from_pandas(frame, npartitions=3)
    with pytest.raises(ValueError, match="'race' has a missing value .* row 13"):
        GeneralizedRandomizedResponse(random_state=0).fit(lazy)
