"""Frequency-oracle behaviour that mutation testing found unchecked.

Each test pins a documented rule of the exact coins, the seeded hash family
or the privatizers' release with a small exact case: integer thresholds
compared with integer draws (driven by a stub generator that records every
call), the hash family and its collision probability by enumeration, the
refusals with their messages (column and row named, no data value shown)
and the privacy summary.  ``benchmarks/_mutation_specs_validation.py``
lists the mutants of ``skprivate/frequency/_coins.py``, ``_hashing.py`` and
``_privatizers.py`` these tests kill.
"""

import math
import re
import signal
import time
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
    coin_thresholds,
    draw_coins,
    keep_numerator,
    log_prob,
    unary_numerators,
)
from skprivate.frequency._hashing import (
    _is_prime,
    collision_probability,
    hash_prime,
    hash_values,
    n_seeds,
)
from skprivate.frequency._privatizers import (
    _check_present,
    _column_codes,
    _PresentValues,
)

#: Seconds a test may take: each runs in well under one, and the rounding
#: loops of the coins and the prime search must stop after a few steps.
TIME_BUDGET = 30


class BudgetExceeded(Exception):
    """A test ran past TIME_BUDGET: a loop that should stop did not."""


@pytest.fixture(autouse=True)
def _time_budget():
    """Fail a test that runs past TIME_BUDGET instead of hanging.

    An alarm set by whoever runs the tests is restored afterwards, with the
    time it had left.
    """
    if not hasattr(signal, "setitimer"):  # pragma: no cover - not on Windows
        yield
        return

    def _stop(signum, frame):
        raise BudgetExceeded(f"the test ran for over {TIME_BUDGET} s")

    previous = signal.signal(signal.SIGALRM, _stop)
    left, _ = signal.setitimer(signal.ITIMER_REAL, TIME_BUDGET)
    start = time.monotonic()
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
        if left:
            remaining = max(left - (time.monotonic() - start), 1e-3)
            signal.setitimer(signal.ITIMER_REAL, remaining)


def _raises(kind, text):
    """``pytest.raises`` matching the whole message ``text`` literally."""
    return pytest.raises(kind, match="^" + re.escape(text) + "$")


class Recorder:
    """A generator whose ``integers`` returns queued draws and records calls."""

    def __init__(self, *draws):
        self.draws = [np.asarray(d, dtype=np.int64) for d in draws]
        self.calls = []

    def integers(self, low, high, size=None, dtype=np.int64):
        self.calls.append((low, np.asarray(high).tolist(), size, dtype))
        out = self.draws.pop(0)
        want = size if isinstance(size, tuple) else (() if size is None else (size,))
        assert out.shape == np.broadcast_shapes(np.shape(high), want)
        assert ((low <= out) & (out < high)).all()
        return out


def _exp_target(eps):
    """``exp(eps (1 - 1e-12) - 1e-14)`` in 80 digits, ``eps`` capped at 200."""
    with localcontext() as ctx:
        ctx.prec = 80
        eps = Decimal(min(float(eps), 200.0))
        return (eps - eps * Decimal("1e-12") - Decimal("1e-14")).exp()


# -- exact coins -----------------------------------------------------------------
@pytest.mark.parametrize("eps, n_other", [(0.5, 1), (1.0, 2), (3.0, 7), (30.0, 1)])
def test_keep_numerator_is_the_largest_safe_numerator(eps, n_other):
    a = keep_numerator(eps, n_other)
    e = _exp_target(eps)
    with localcontext() as ctx:
        ctx.prec = 80
        assert Decimal(a * n_other) <= (COIN_SCALE - a) * e
        assert Decimal((a + 1) * n_other) > (COIN_SCALE - a - 1) * e


def test_keep_numerator_at_the_ends_of_the_range():
    # e**200 / (e**200 + 1) is 1 to 80 digits: the numerator stops below 2**62
    assert keep_numerator(200.0, 1) == COIN_SCALE - 1
    # targets are capped at epsilon 200
    assert keep_numerator(1e12, 1) == COIN_SCALE - 1
    assert keep_numerator(1e12, 10**6) == keep_numerator(200.0, 10**6)
    assert keep_numerator(300.0, 2**40) == keep_numerator(200.0, 2**40)
    # the smallest keep probability is one step, never zero
    assert keep_numerator(1e-9, 2**63) == 1
    # a keep probability of exactly 1/2 (e**eps = 1 almost) moves down to safety
    a = keep_numerator(1e-9, 1)
    assert a <= COIN_SCALE // 2 + COIN_SCALE * 1e-9 / 4 + 2
    assert a > COIN_SCALE // 2


def test_keep_numerator_returns_a_python_int():
    assert type(keep_numerator(1.0, 3)) is int


@pytest.mark.parametrize("eps", [0.01, 0.7, 2.0, 9.0])
def test_unary_numerators_are_the_tightest_safe_pair(eps):
    e = _exp_target(eps)
    with localcontext() as ctx:
        ctx.prec = 80
        a, b = unary_numerators(eps, symmetric=True)
        assert a + b == COIN_SCALE and a >= COIN_SCALE // 2
        assert Decimal(a) ** 2 <= Decimal(b) ** 2 * e
        assert Decimal(a + 1) ** 2 > Decimal(b - 1) ** 2 * e
        a, b = unary_numerators(eps, symmetric=False)
        assert a == COIN_SCALE // 2
        assert COIN_SCALE - b <= b * e
        assert COIN_SCALE - (b - 1) > (b - 1) * e


def test_unary_numerators_at_the_ends_of_the_range():
    # SUE at a huge budget: the own bit stops one step below certainty
    assert unary_numerators(200.0, symmetric=True) == (COIN_SCALE - 1, 1)
    assert unary_numerators(1e9, symmetric=True) == (COIN_SCALE - 1, 1)
    # OUE at a huge budget: the other bits keep one step
    assert unary_numerators(200.0, symmetric=False) == (COIN_SCALE // 2, 1)
    assert unary_numerators(1e9, symmetric=False) == (COIN_SCALE // 2, 1)
    # at a tiny budget both are (almost) fair coins, never past one half
    a, b = unary_numerators(1e-9, symmetric=True)
    assert COIN_SCALE // 2 <= a < COIN_SCALE // 2 + COIN_SCALE * 1e-9
    a, b = unary_numerators(1e-9, symmetric=False)
    assert COIN_SCALE // 2 - COIN_SCALE * 1e-9 < b <= COIN_SCALE // 2
    assert all(type(v) is int for v in unary_numerators(1.0, symmetric=True))
    assert all(type(v) is int for v in unary_numerators(1.0, symmetric=False))


def test_log_prob():
    assert log_prob(0) == -math.inf and log_prob(-5) == -math.inf
    assert log_prob(COIN_SCALE) == 0.0
    assert log_prob(COIN_SCALE // 2) == math.log(0.5)
    assert log_prob(3) == math.log(3 / 2**62)


def test_coin_thresholds_are_int64():
    out = coin_thresholds([0, 5, COIN_SCALE])
    assert out.dtype == np.int64 and out.tolist() == [0, 5, COIN_SCALE]
    out = coin_thresholds(np.array([3, 4], dtype=np.int32))
    assert out.dtype == np.int64 and out.tolist() == [3, 4]


def test_draw_coins_casts_thresholds_to_integers():
    # a threshold is an integer numerator: 7.5 acts as 7, so U = 7 loses
    rng = Recorder([7, 6])
    assert draw_coins(rng, np.array([7.5, 7.5])).tolist() == [False, True]


def test_draw_coins_compares_integer_words_strictly():
    thresholds = np.array([[0, 1, 7], [COIN_SCALE, 7, 7]])
    u = np.array([[0, 0, 6], [COIN_SCALE - 1, 7, 8]])
    rng = Recorder(u)
    coins = draw_coins(rng, thresholds)
    assert coins.dtype == np.bool_
    assert coins.tolist() == [[False, True, True], [True, False, False]]
    assert rng.calls == [(0, COIN_SCALE, (2, 3), np.int64)]


def test_draw_coins_with_a_generator_at_certain_thresholds():
    rng = np.random.default_rng(0)
    coins = draw_coins(rng, np.array([[0] * 50, [COIN_SCALE] * 50]))
    assert not coins[0].any() and coins[1].all()
    # a list of thresholds is accepted as int64
    assert draw_coins(rng, [COIN_SCALE, 0]).tolist() == [True, False]


# -- the hash family --------------------------------------------------------------
def test_is_prime_agrees_with_a_sieve():
    limit = 400
    sieve = [True] * limit
    sieve[0] = sieve[1] = False
    for i in range(2, limit):
        if sieve[i]:
            for j in range(i * i, limit, i):
                sieve[j] = False
    assert [n for n in range(-3, limit) if _is_prime(n)] == [
        n for n in range(limit) if sieve[n]
    ]


@pytest.mark.parametrize(
    ("k", "g", "prime"),
    [
        (1, 1, 3),
        (2, 2, 3),
        (3, 2, 3),
        (2, 3, 3),
        (4, 2, 5),
        (5, 8, 11),
        (8, 5, 11),
        (11, 2, 11),
        (24, 2, 29),
        (2, 25, 29),
        (120, 3, 127),
    ],
)
def test_hash_prime_is_the_smallest_prime_at_or_above(k, g, prime):
    assert hash_prime(k, g) == prime
    assert hash_prime(np.int64(k), np.int64(g)) == prime
    assert type(hash_prime(np.int64(k), np.int64(g))) is int


def test_seed_space():
    assert n_seeds(3) == 6 and n_seeds(11) == 110


def test_hash_values_by_enumeration():
    P, g = 7, 3
    seeds = np.arange(n_seeds(P))
    codes = np.arange(P)
    table = hash_values(seeds[:, None], codes[None, :], P, g)
    assert table.shape == (42, 7) and table.dtype == np.int64
    for s in range(42):
        a, b = 1 + s // P, s % P
        assert table[s].tolist() == [((a * x + b) % P) % g for x in range(P)]


def test_hash_values_of_float_or_list_input_are_exact_integers():
    P, g = 16777259, 1000  # a prime above 2**24: a x reaches 2**48
    seeds = [n_seeds(P) - 1, 12345678901]
    codes = [P - 1, 7]
    expected = [(((1 + s // P) * x + s % P) % P) % g for s, x in zip(seeds, codes)]
    out = hash_values(np.array(seeds, dtype=float), np.array(codes, dtype=float), P, g)
    assert out.dtype == np.int64 and out.tolist() == expected
    out = hash_values(seeds, codes, P, g)
    assert out.dtype == np.int64 and out.tolist() == expected


@pytest.mark.parametrize("P", [3, 5, 7, 11, 13])
def test_collision_probability_by_enumeration(P):
    seeds = np.arange(n_seeds(P))
    for g in range(1, P + 1):
        same = hash_values(seeds, 0, P, g) == hash_values(seeds, 1, P, g)
        expected = Fraction(int(same.sum()), seeds.size)
        assert collision_probability(P, g) == expected
        assert isinstance(collision_probability(P, g), Fraction)


def test_collision_probability_by_formula():
    # P = 11, g = 3: buckets of 4, 4 and 3 residues
    assert collision_probability(11, 3) == Fraction(4 * 3 + 4 * 3 + 3 * 2, 110)
    assert collision_probability(11, 11) == 0
    assert collision_probability(11, 1) == 1


# -- the privatizers: refusals ------------------------------------------------------
def test_missing_value_names_its_column_and_global_row():
    for missing in (None, np.nan, pd.NA):
        values = np.array(["a", "b", missing, "c", missing], dtype=object)
        with _raises(
            ValueError,
            "Column 'race' has a missing value (NaN/None) at row 12; a frequency "
            "oracle needs a category for every respondent.",
        ):
            _check_present(values, "race", first_row=10)
    _check_present(np.array(["a", "b"], dtype=object), "race")


def test_present_values_check_each_block_by_global_row():
    check = _PresentValues(["a", "b"])
    check.block(np.array([["x", "y"], ["z", "w"]], dtype=object), first_row=5)
    with _raises(
        ValueError,
        "Column 'b' has a missing value (NaN/None) at row 6; a frequency oracle "
        "needs a category for every respondent.",
    ):
        check.block(np.array([["x", "y"], ["z", None]], dtype=object), first_row=5)
    with pytest.raises(ValueError, match=r"^Column 'a' has a missing value .* row 3;"):
        check.block([[None, None]], first_row=3)
    assert check.merge([None, None]) is None


def test_column_codes_known_unknown_and_refused():
    cats = np.array(["a", "b", "c"], dtype=object)
    values = np.array(["c", "a", "zz", "b", "yy"], dtype=object)
    codes = _column_codes(values, cats, "f", declared=True, refuse=False)
    assert codes.dtype == np.int64 and codes.tolist() == [2, 0, -1, 1, -1]
    with _raises(
        ValueError,
        "Found an unknown category in column 'f' at row 2: the declared categories "
        "are ['a', 'b', 'c']. Set handle_unknown='ignore' to release such a value "
        "as a uniformly drawn category.",
    ):
        _column_codes(values, cats, "f", declared=True, refuse=True)
    with _raises(
        ValueError,
        "Found an unknown category in column 'f' at row 2: the 3 categories were "
        "read from the data. Set handle_unknown='ignore' to release such a value "
        "as a uniformly drawn category.",
    ):
        _column_codes(values, cats, "f", declared=False, refuse=True)
    with pytest.raises(ValueError, match=r"^Column 'f' has a missing value"):
        _column_codes(np.array(["a", None], dtype=object), cats, "f", True, False)


def test_defaults():
    for cls in (GeneralizedRandomizedResponse, HadamardResponse, FrequencyOracle):
        params = cls().get_params()
        assert params["epsilon"] == 1.0
        assert params["categories"] == "auto"
        assert params["handle_unknown"] == "error"
        assert params["random_state"] is None
    assert FrequencyOracle().oracle == "auto"


def test_categories_read_from_the_data_warn_exactly():
    with pytest.warns(PrivacyLeakWarning) as caught:
        priv = OptimizedUnaryEncoding().fit(np.array([["b"], ["a"], ["b"]]))
    assert [str(w.message) for w in caught] == [
        "OptimizedUnaryEncoding was fitted with categories='auto', so the "
        "categories of each column were read from the data and are published in "
        "categories_ and the output, including a value held by a single "
        "respondent. Declare the categories known before seeing the data instead: "
        "categories=[[...], ...], one list per column."
    ]
    assert priv.categories_[0].tolist() == ["a", "b"]
    assert priv._fit_summary() == "distinct"
    declared = OptimizedUnaryEncoding(categories=[["a", "b"]])
    assert declared._fit_summary() is None


def test_fit_refusals_name_the_column():
    X = pd.DataFrame({"g": ["a", "b", "a"], "h": ["x", "y", "x"]})
    with _raises(ValueError, "categories must list one array per column (2); got 1."):
        GeneralizedRandomizedResponse(categories=[["a", "b"]]).fit(X)
    with _raises(ValueError, "categories[1] contains a missing value."):
        GeneralizedRandomizedResponse(categories=[["a", "b"], ["x", None]]).fit(X)
    with _raises(ValueError, "categories[0] contains duplicates."):
        GeneralizedRandomizedResponse(categories=[["a", "b", "a"], ["x", "y"]]).fit(X)
    with _raises(
        ValueError,
        "Column 'h' has 1 category (from n_samples=3); a frequency oracle needs at "
        "least 2.",
    ):
        GeneralizedRandomizedResponse(categories=[["a", "b"], ["x"]]).fit(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        with _raises(
            ValueError,
            "Column 'h' has 1 category (from n_samples=3); a frequency oracle needs "
            "at least 2.",
        ):
            GeneralizedRandomizedResponse().fit(X.assign(h=["x", "x", "x"]))
        with _raises(
            TypeError,
            "Column 'x1' mixes values of several types, which have no order to list "
            "the categories in; convert it to one type or declare categories=[[...]].",
        ):
            GeneralizedRandomizedResponse().fit(
                np.array([["a", 1], ["b", "c"]], dtype=object)
            )
        with _raises(
            ValueError,
            "Column 'h' has a missing value (NaN/None) at row 1; a frequency oracle "
            "needs a category for every respondent.",
        ):
            GeneralizedRandomizedResponse().fit(X.assign(h=["x", None, "y"]))


def test_budget_per_column_must_reach_the_coins_floor():
    X = np.array([[0, 0]])
    cats = [[0, 1], [0, 1]]
    with _raises(
        ValueError,
        "epsilon per column is 5e-10 (epsilon=1e-09 over 2 columns); the exact "
        "coins are set up for at least 1e-09 per column.",
    ):
        GeneralizedRandomizedResponse(epsilon=1e-9, categories=cats).fit(X)
    fitted = GeneralizedRandomizedResponse(epsilon=2e-9, categories=cats).fit(X)
    assert [o.epsilon for o in fitted.oracles_] == [1e-9, 1e-9]
    assert fitted._epsilon_per_feature == 1e-9


def test_declared_categories_refuse_an_unknown_value_at_fit_unless_ignored():
    X = np.array([["a"], ["q"]], dtype=object)
    with _raises(
        ValueError,
        "Found an unknown category in column 'x0' at row 1: the declared categories "
        "are ['a', 'b']. Set handle_unknown='ignore' to release such a value as a "
        "uniformly drawn category.",
    ):
        GeneralizedRandomizedResponse(categories=[["a", "b"]]).fit(X)
    priv = GeneralizedRandomizedResponse(
        categories=[["a", "b"]], handle_unknown="ignore"
    ).fit(X)
    assert priv.categories_[0].tolist() == ["a", "b"]


def test_infinite_values_are_named_not_shown():
    priv = GeneralizedRandomizedResponse(categories=[[0.0, 1.0], [0.0, 1.0]])
    X = np.array([[0.0, 1.0], [1.0, 0.0], [1.0, -np.inf]])
    with _raises(
        ValueError,
        "Column 'x1' has an infinite value at row 2; categories must be finite.",
    ):
        priv.fit(X)
    priv.fit(X[:2])
    with _raises(
        ValueError,
        "Column 'x0' has an infinite value at row 0; categories must be finite.",
    ):
        priv.transform(np.array([[np.inf, 0.0]]))
    frame = pd.DataFrame({"u": [0.0, 1.0], "v": [1.0, np.inf]})
    with pytest.raises(ValueError, match=r"^Column 'v' has an infinite value at row 1"):
        priv.fit(frame)


# -- the privatizers: release ---------------------------------------------------------
def _with_draws(priv, *draws):
    rng = Recorder(*draws)
    priv._next_generator = lambda X: rng
    return rng


def test_release_of_known_values_through_the_oracle():
    priv = GeneralizedRandomizedResponse(categories=[["a", "b", "c"]]).fit([["a"]])
    a = priv.oracles_[0].keep
    rng = _with_draws(priv, [a - 1, a, a], [0, 1, 0])
    out = priv.transform(np.array([["c"], ["a"], ["b"]], dtype=object))
    # keep c; a moves to the second other value (c); b moves to a
    assert out.dtype == np.int64 and out.tolist() == [[2], [2], [0]]
    assert [c[:2] for c in rng.calls] == [(0, COIN_SCALE), (0, 2)]


def test_unknown_value_is_released_as_a_uniformly_drawn_category():
    priv = GeneralizedRandomizedResponse(
        categories=[["a", "b", "c"], ["x", "y"]], handle_unknown="ignore"
    ).fit([["a", "x"]])
    kb = priv.oracles_[1].keep
    X = np.array([["zz", "x"], ["b", "ww"], ["qq", "y"]], dtype=object)
    rng = _with_draws(
        priv,
        [2, 0, 1],  # the draws of the three unknown values, in row order
        [0, 0, 0],  # column 0: keep every value
        [0, 0, 0],
        [kb, 0, 0],  # column 1: the first row's value moves to the other one
        [0, 0, 0],
    )
    out = priv.transform(X)
    assert out.tolist() == [[2, 1], [1, 0], [1, 1]]
    assert rng.calls[0][:2] == (0, [3, 2, 3])


def test_release_hstacks_the_blocks_of_every_column():
    priv = FrequencyOracle("oue", categories=[["a", "b"], ["x", "y", "z"]])
    priv.fit([["a", "x"]])
    own, other = priv.oracles_[0].own, priv.oracles_[0].other
    _with_draws(
        priv,
        [[own - 1, other]],  # column 0: value b -> bits (1, 0)
        [[other, other - 1, own]],  # column 1: value z -> bits (0, 1, 0)
    )
    out = priv.transform(np.array([["a", "z"]], dtype=object))
    assert out.dtype == np.int64 and out.tolist() == [[1, 0, 0, 1, 0]]


def test_output_names_with_given_input_features():
    priv = FrequencyOracle("olh", categories=[["a", "b"], [0, 1, 2]])
    priv.fit(np.array([["a", 0]], dtype=object))
    assert priv.get_feature_names_out().tolist() == [
        "x0_seed",
        "x0_hash",
        "x1_seed",
        "x1_hash",
    ]
    names = priv.get_feature_names_out(["p", "q"])
    assert names.dtype == object and names.tolist() == [
        "p_seed",
        "p_hash",
        "q_seed",
        "q_hash",
    ]
    sue = SymmetricUnaryEncoding(categories=[[1, 2]]).fit(pd.DataFrame({"k": [1]}))
    assert sue.get_feature_names_out().tolist() == ["k=1", "k=2"]
    with _raises(ValueError, "input_features should have length 2; got 1."):
        priv.get_feature_names_out(["p"])


def test_privacy_summary_fields():
    X = pd.DataFrame({"r": ["a"], "s": [0]})
    priv = FrequencyOracle(epsilon=3.0, categories=[["a", "b"], list(range(40))])
    priv.fit(X)
    summary = priv.privacy_summary()
    assert summary["notion"] == "epsilon-LDP (frequency oracle)"
    assert summary["epsilon"] == 3.0 and summary["epsilon_per_feature"] == 1.5
    assert summary["floating_point_safe"] is True
    assert summary["realised_epsilon_per_feature"] == [
        o.realised_epsilon for o in priv.oracles_
    ]
    assert [c["feature"] for c in summary["oracles"]] == ["r", "s"]
    assert [c["oracle"] for c in summary["oracles"]] == ["krr", "oue"]
    assert summary["oracles"][1]["n_categories"] == 40


def test_oracle_choice():
    X = np.array([[0]])
    cats = [list(range(12))]
    # 3 e**eps + 2 > 12 at eps = 1.5: k-RR
    assert (
        FrequencyOracle(epsilon=1.5, categories=cats).fit(X).oracles_[0].kind == "krr"
    )
    assert (
        FrequencyOracle(epsilon=1.0, categories=cats).fit(X).oracles_[0].kind == "oue"
    )
    for kind in ("sue", "olh", "blh", "hr"):
        fitted = FrequencyOracle(kind, categories=cats).fit(X)
        assert fitted.oracles_[0].kind == kind
    kinds = {
        BinaryLocalHashing: "blh",
        OptimizedLocalHashing: "olh",
        HadamardResponse: "hr",
        SymmetricUnaryEncoding: "sue",
    }
    for cls, kind in kinds.items():
        assert cls(categories=cats).fit(X).oracles_[0].kind == kind


def test_estimator_tags():
    tags = GeneralizedRandomizedResponse().__sklearn_tags__()
    assert tags.input_tags.categorical is True
    assert tags.input_tags.string is True
    assert tags.input_tags.allow_nan is False
    assert tags.transformer_tags.preserves_dtype == []


def test_unfitted_privatizer_refuses_names_and_summary():
    from sklearn.exceptions import NotFittedError

    priv = GeneralizedRandomizedResponse(categories=[["a", "b"]])
    for call in (
        priv.get_feature_names_out,
        priv.privacy_summary,
        lambda: priv._exact_law(0),
    ):
        with pytest.raises(NotFittedError):
            call()


def test_declared_categories_keep_their_types():
    priv = GeneralizedRandomizedResponse(categories=[[1, "a"]]).fit(
        np.array([[1], ["a"]], dtype=object)
    )
    assert priv.categories_[0].dtype == object
    assert priv.categories_[0].tolist() == [1, "a"]


def test_unknown_value_against_categories_read_from_the_data():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        priv = GeneralizedRandomizedResponse().fit(np.array([["a"], ["b"]]))
    with _raises(
        ValueError,
        "Found an unknown category in column 'x0' at row 1: the 2 categories were "
        "read from the data. Set handle_unknown='ignore' to release such a value "
        "as a uniformly drawn category.",
    ):
        priv.transform(np.array([["a"], ["secret"]]))


def test_privacy_summary_carries_the_release_policy():
    seeded = GeneralizedRandomizedResponse(categories=[["a", "b"]], random_state=3)
    summary = seeded.fit([["a"]]).privacy_summary()
    assert summary["reproducible"] is True
    assert summary["random_state_note"].startswith("reproducible: for simulation")
    fresh = GeneralizedRandomizedResponse(categories=[["a", "b"]]).fit([["a"]])
    summary = fresh.privacy_summary()
    assert summary["reproducible"] is False
    assert (
        summary["random_state_note"] == "fresh operating-system entropy on every call"
    )


@pytest.fixture(scope="module")
def dask_modules():
    """dask, dask.array and dask.dataframe, imported outside the time budget."""
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    import dask

    return dask, da, dd


@pytest.mark.parametrize("npartitions", [1, 3])
def test_dask_fit_names_the_global_row_of_a_missing_value(npartitions, dask_modules):
    dask, da, dd = dask_modules

    frame = pd.DataFrame({"k": ["a", "b"] * 5, "race": ["a", "b"] * 5}, dtype=object)
    frame.iloc[7, 1] = None
    with dask.config.set(scheduler="synchronous"):
        with _raises(
            ValueError,
            "Column 'race' has a missing value (NaN/None) at row 7; a frequency "
            "oracle needs a category for every respondent.",
        ):
            GeneralizedRandomizedResponse().fit(
                dd.from_pandas(frame, npartitions=npartitions)
            )
        array = da.from_array(frame.to_numpy(), chunks=(4, 2))
        with _raises(
            ValueError,
            "Column 'x1' has a missing value (NaN/None) at row 7; a frequency "
            "oracle needs a category for every respondent.",
        ):
            GeneralizedRandomizedResponse().fit(array)


def test_parameters_are_kept_as_given():
    params = GeneralizedRandomizedResponse(
        epsilon=2.5, categories=[["a", "b"]], handle_unknown="ignore", random_state=7
    ).get_params()
    assert params == {
        "epsilon": 2.5,
        "categories": [["a", "b"]],
        "handle_unknown": "ignore",
        "random_state": 7,
    }
    params = FrequencyOracle("hr", 0.5, [[0, 1]], "ignore", 9).get_params()
    assert params == {
        "oracle": "hr",
        "epsilon": 0.5,
        "categories": [[0, 1]],
        "handle_unknown": "ignore",
        "random_state": 9,
    }


def test_transform_refuses_another_number_of_columns():
    priv = GeneralizedRandomizedResponse(categories=[["a", "b"]]).fit([["a"]])
    with pytest.raises(ValueError, match="X has 2 features, but"):
        priv.transform([["a", "b"]])


def test_seeded_noise_depends_on_the_released_data():
    cats = [list(range(6))]
    X = np.zeros((60, 1), dtype=int)
    other = X.copy()
    other[0, 0] = 5
    out = FrequencyOracle("oue", categories=cats, random_state=3).fit(X).transform(X)
    again = FrequencyOracle("oue", categories=cats, random_state=3).fit(X)
    assert np.array_equal(again.transform(X), out)
    moved = FrequencyOracle("oue", categories=cats, random_state=3).fit(X)
    # one record changed: every row's noise changes with it
    assert not np.array_equal(moved.transform(other)[1:], out[1:])


def test_privacy_summary_says_whether_categories_came_from_the_data():
    from skprivate.frequency import OptimizedUnaryEncoding

    X = [["a"], ["b"], ["a"]]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the fit's own PrivacyLeakWarning
        auto = OptimizedUnaryEncoding().fit(X).privacy_summary()
    declared = OptimizedUnaryEncoding(categories=[["a", "b"]]).fit(X).privacy_summary()
    assert auto["categories_from_data"] is True
    assert declared["categories_from_data"] is False
