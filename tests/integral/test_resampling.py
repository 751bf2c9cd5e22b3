"""Algorithm 1 on one column: statistics, generators, the intersection rule."""

import numpy as np
import pytest

from skprivate.integral import _resampling
from skprivate.integral._resampling import (
    STATISTICS,
    _draw_counts,
    integral_private_column,
    resample_statistics,
)

# A hand-checked toy table.  Records 0..3 hold the values 0, 1, 2, 3 and the
# statistic is the mean rounded to integers (numpy rounds half to even).
# Each row lists a resample's index multiset, its mean, rounded value and
# generator (its set of records):
TOY_X = np.array([0.0, 1.0, 2.0, 3.0])
TOY_RESAMPLES = [
    (0, 0, 1, 3),  # mean 1.00 -> 1, U = {0, 1, 3}
    (0, 1, 1, 2),  # mean 1.00 -> 1, U = {0, 1, 2}
    (1, 1, 1, 1),  # mean 1.00 -> 1, U = {1}
    (0, 0, 2, 2),  # mean 1.00 -> 1, U = {0, 2}
    (1, 1, 1, 1),  # mean 1.00 -> 1, U = {1} again: the same generator
    (2, 2, 2, 3),  # mean 2.25 -> 2, U = {2, 3}
    (1, 2, 3, 2),  # mean 2.00 -> 2, U = {1, 2, 3}
    (3, 3, 1, 1),  # mean 2.00 -> 2, U = {1, 3}
    (3, 3, 3, 0),  # mean 2.25 -> 2, U = {0, 3}
    (3, 2, 3, 0),  # mean 2.00 -> 2, U = {0, 2, 3}
    (2, 3, 3, 3),  # mean 2.75 -> 3, U = {2, 3}
    (0, 0, 0, 0),  # mean 0.00 -> 0, U = {0}
]
# By hand: value 2 has 5 resamples and 5 distinct generators, all containing
# record 3, so the intersection rule removes it.  Value 1 has 5 resamples
# but 4 distinct generators ({1} twice), whose intersection is empty
# (record 1 is missing from {0, 2}); it is released with frequency 4.
# Values 3 and 0 have one generator each.


@pytest.fixture
def toy_draws(monkeypatch):
    counts = np.array([np.bincount(r, minlength=4) for r in TOY_RESAMPLES])

    def fixed(rng, B, n):
        assert (B, n) == counts.shape
        return counts.copy()

    monkeypatch.setattr(_resampling, "_draw_counts", fixed)


def _toy(k, selection="frequency"):
    (res,) = integral_private_column(
        TOY_X, ("mean",), len(TOY_RESAMPLES), 0, k, seed=0, selection=selection
    )
    return res


def test_toy_table_frequencies_and_intersection_rule(toy_draws):
    res = _toy(k=2)
    assert res.value == 1.0
    assert res.frequency == 4  # distinct generators, not resamples
    assert res.n_resamples_with_value == 5
    assert res.n_candidates == 2  # values 1 and 2 have more than 2 generators
    assert res.max_frequency == 5  # value 2, removed by the intersection rule
    assert res.empty_intersection


def test_toy_table_threshold_is_strict(toy_draws):
    assert _toy(k=3).value == 1.0  # 4 > 3
    res = _toy(k=4)  # 4 is not > 4, and value 2 (5 > 4) fails the rule
    assert np.isnan(res.value) and res.frequency == 0 and res.n_candidates == 1
    res = _toy(k=5)
    assert np.isnan(res.value) and res.n_candidates == 0


def test_toy_table_least_error_picks_closest_survivor(toy_draws):
    # true mean is 1.5; the only survivor is 1 either way
    assert _toy(k=2, selection="least_error").value == 1.0


def _naive(values):
    q75, q25 = np.percentile(values, [75, 25])
    return {
        "count": values.size,
        "mean": values.mean(),
        "std": values.std(ddof=1),
        "var": values.var(ddof=1),
        "min": values.min(),
        "max": values.max(),
        "median": np.median(values),
        "iqr": q75 - q25,
        "sum": values.sum(),
    }


@pytest.mark.filterwarnings("ignore::RuntimeWarning")
@pytest.mark.parametrize("n", [1, 2, 5, 37, 100])
@pytest.mark.parametrize("presorted", [False, True])
def test_vectorized_statistics_equal_a_loop_over_resamples(n, presorted):
    rng = np.random.default_rng(n)
    x = rng.normal(size=n).round(1)  # ties included
    if presorted:
        x = np.sort(x)
    counts = _draw_counts(rng, 60, n)
    assert (counts.sum(axis=1) == n).all()
    fast = resample_statistics(x, counts, STATISTICS, presorted=presorted)
    for i in range(60):
        ref = _naive(np.repeat(x, counts[i]))
        for s in STATISTICS:
            if n == 1 and s in ("std", "var"):
                assert np.isnan(fast[s][i])
            else:
                assert fast[s][i] == pytest.approx(ref[s], rel=1e-9, abs=1e-9), s


def test_draws_are_uniform_bootstrap_counts():
    counts = _draw_counts(np.random.default_rng(0), 4000, 50)
    # each multiplicity is Binomial(50, 1/50): mean 1, variance 49/50
    assert counts.mean() == pytest.approx(1.0, abs=4 * np.sqrt(0.98 / counts.size))
    inclusion = (counts > 0).mean()
    expected = 1 - (1 - 1 / 50) ** 50
    assert inclusion == pytest.approx(expected, abs=4 * np.sqrt(0.25 / counts.size))


@pytest.mark.parametrize("block", [16, 25])
def test_two_stage_draws_have_the_bootstrap_law(monkeypatch, block):
    # Blocks of 16 or 25 records (3 full blocks and a short one of 2, or 2
    # full blocks): every record's multiplicity is Binomial(50, 1/50), with
    # covariance -1/50 between records; every row sums to 50.
    monkeypatch.setattr(_resampling, "_DRAW_BLOCK", block)
    n, B = 50, 20000
    counts = _draw_counts(np.random.default_rng(1), B, n).astype(float)
    assert np.all(counts.sum(axis=1) == n) and counts.min() >= 0
    p = 1 / n
    se_mean = np.sqrt(p * (1 - p) * n / B)
    np.testing.assert_array_less(np.abs(counts.mean(axis=0) - 1), 4.5 * se_mean)
    variance = counts.var(axis=0)
    # Var of a sample variance of a Binomial(50, 1/50) ~ (mu4 - var^2) / B.
    se_var = np.sqrt((3 * 0.98**2 + 0.98 * (1 - 6 * p * (1 - p)) - 0.98**2) / B)
    np.testing.assert_array_less(np.abs(variance - 0.98), 4.5 * se_var)
    # Pairs of records in different blocks and in the same block.
    for i, j in [(0, 49), (block - 1, block), (3, 7)]:
        cov = np.mean((counts[:, i] - 1) * (counts[:, j] - 1))
        assert cov == pytest.approx(-p, abs=4.5 * 1.0 / np.sqrt(B))
    # Probability of a zero multiplicity: (1 - 1/n)^n, for every record.
    zeros = (counts == 0).mean(axis=0)
    p0 = (1 - p) ** n
    np.testing.assert_array_less(np.abs(zeros - p0), 4.5 * np.sqrt(p0 * (1 - p0) / B))


def test_full_blocks_use_every_position():
    # n = 2**16 + 1000: one full block of raw 16-bit positions and a short
    # block; the last position of the full block and the short block are
    # drawn as often as any other record.
    n, B = (1 << 16) + 1000, 30
    rng = np.random.default_rng(2)
    counts = _draw_counts(rng, B, n)
    again = _draw_counts(np.random.default_rng(2), B, n)
    np.testing.assert_array_equal(counts, again)
    assert np.all(counts.sum(axis=1) == n)
    assert counts[:, (1 << 16) - 1].max() > 0 and counts[:, 0].max() > 0
    short = counts[:, 1 << 16 :].sum(axis=1) / 1000
    assert short.mean() == pytest.approx(1.0, abs=4 * np.sqrt(1 / 1000 / B))
    p0 = (1 - 1 / n) ** n
    assert (counts == 0).mean() == pytest.approx(
        p0, abs=4 * np.sqrt(p0 * (1 - p0) / counts.size)
    )


def test_many_small_chunks_are_reproducible_and_exact(monkeypatch):
    x = np.random.default_rng(3).normal(10, 2, 300)
    monkeypatch.setattr(_resampling, "_CHUNK_ELEMENTS", 300 * 7)  # 58 chunks
    first = integral_private_column(x, STATISTICS, 400, 2, 2, seed=5)
    again = integral_private_column(x, STATISTICS, 400, 2, 2, seed=5)
    for a, b in zip(first, again):
        assert a == b or (np.isnan(a.value) and np.isnan(b.value))
    by_name = {r.statistic: r for r in first}
    assert by_name["count"].value == 300 and by_name["count"].frequency == 400
    assert np.isnan(by_name["max"].value) and np.isnan(by_name["min"].value)
    assert abs(by_name["mean"].value - x.mean()) < 4 * x.std() / np.sqrt(300)


def test_count_is_always_n_with_every_resample_a_generator():
    x = np.random.default_rng(0).normal(size=200)
    (res,) = integral_private_column(x, ("count",), 300, 2, 2, seed=1)
    assert res.value == 200 and res.frequency == 300 and res.empty_intersection


def test_the_record_attaining_the_max_blocks_the_raw_max():
    x = np.arange(50, dtype=float)  # distinct values: max = x[j] needs record j
    (res,) = integral_private_column(x, ("max",), 500, 2, 2, seed=0)
    assert np.isnan(res.value) and res.n_candidates > 0 and res.max_frequency > 100
    # the same value held by 20 different records is integrally private
    y = np.concatenate([np.arange(30.0), np.full(20, 99.0)])
    (res,) = integral_private_column(y, ("max",), 500, 2, 2, seed=0)
    assert res.value == 99.0 and res.frequency == 500


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_selection_equals_a_set_based_reference(seed):
    """Generators as Python sets, intersections by set algebra, on the same draws."""
    rng = np.random.default_rng(seed)
    x = np.sort(rng.normal(size=25).round(1))
    t, k = 300, 2
    results = integral_private_column(x, STATISTICS, t, 1, k, seed=seed)
    counts = np.vstack(
        [
            _draw_counts(np.random.default_rng(child), B, x.size)
            for child, B in _resampling._chunks(x.size, t, seed)
        ]
    )
    stats = resample_statistics(x, counts, STATISTICS, presorted=True)
    for res in results:
        values = np.round(stats[res.statistic], 1) + 0.0
        gens: dict[float, set] = {}
        for v, row in zip(values, counts):
            if not np.isnan(v):
                gens.setdefault(v, set()).add(frozenset(np.flatnonzero(row)))
        survivors = [
            (len(g), v)
            for v, g in gens.items()
            if len(g) > k and not frozenset.intersection(*g)
        ]
        if survivors:
            best = max(f for f, _ in survivors)
            expected = min(v for f, v in survivors if f == best)
            assert res.value == expected and res.frequency == best
        else:
            assert np.isnan(res.value)
        assert res.n_candidates == sum(len(g) > k for g in gens.values())


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
@pytest.mark.parametrize("decimals", [None, 0, 1])
def test_answers_do_not_depend_on_memory_budget_or_threads(seed, decimals):
    """Evicted masks (tiny budgets) and threads change the work, not the answer."""
    from dataclasses import astuple

    rng = np.random.default_rng(seed)
    x = rng.normal(0, 3, 60).round(1)
    kwargs = {"selection": ["frequency", "least_error"][seed % 2]}
    reference = [
        astuple(r)
        for r in integral_private_column(
            x, STATISTICS, 400, decimals, 2, seed, **kwargs
        )
    ]
    # 8 bytes: one mask at a time, so almost every value is evicted and the
    # second pass does the testing; 64 bytes: a few masks; threads: chunks
    # summarized out of order, merged in order.
    for budget, threads in [(8, 1), (64, 1), (1 << 12, 3), (1 << 26, 2)]:
        got = integral_private_column(
            x,
            STATISTICS,
            400,
            decimals,
            2,
            seed,
            memory_budget=budget,
            n_threads=threads,
            **kwargs,
        )
        assert [astuple(r) for r in got] == reference


def test_first_pass_settles_the_answer_without_a_second_pass(monkeypatch):
    # With room for every mask, no resample is drawn twice.
    x = np.random.default_rng(7).normal(10, 2, 300)
    n_draws = {"count": 0}
    original = _resampling._draw_counts

    def counting(rng, B, n):
        n_draws["count"] += B
        return original(rng, B, n)

    monkeypatch.setattr(_resampling, "_draw_counts", counting)
    integral_private_column(x, STATISTICS, 500, 2, 2, seed=0)
    assert n_draws["count"] == 500


def test_mean_and_sum_depend_only_on_the_multiset_of_values():
    # Two resamples with the same multiset sum get bit-identical means, so
    # they fall in the same group whatever the rounding.
    x = np.array([0.1, 0.2, 0.3, 0.7, 1.1, 2.9])
    counts = np.array([[2, 0, 1, 1, 1, 1], [1, 2, 0, 1, 1, 1]])  # same sums
    stats = resample_statistics(x, counts, ("mean", "sum"), presorted=True)
    assert stats["sum"][0] == stats["sum"][1] == pytest.approx(5.2)
    assert stats["mean"][0] == stats["mean"][1]


def test_batches_and_column_blocks_change_the_work_not_the_answer(monkeypatch):
    """Chunks summarized in batches, weights converted in blocks: same answers."""
    from dataclasses import astuple
    from fractions import Fraction

    from skprivate.utils import _exact_sums

    rng = np.random.default_rng(11)
    n = 1000
    x = rng.normal(10, 2, n)
    fixed = _resampling.moment_columns(np.sort(x))
    parts = [_draw_counts(rng, B, n) for B in (1, 3, 2)]
    whole = fixed.weighted_sums(np.concatenate(parts))
    monkeypatch.setattr(_exact_sums, "_BLOCK_ELEMENTS", 1)  # 256 columns a block
    assert np.array_equal(fixed.weighted_sums(parts), whole)
    # Exact: the correctly rounded sum of the values, which lie on the
    # fixed-point grid here (all within a factor 2**10 of the largest).
    want = [
        float(sum(Fraction(int(c)) * Fraction(v) for c, v in zip(row, np.sort(x))))
        for row in np.concatenate(parts)
    ]
    assert whole[:, 0].tolist() == want

    monkeypatch.setattr(_resampling, "_CHUNK_ELEMENTS", n)  # one resample a chunk
    results = []
    for batch in (1, 4, 7):
        monkeypatch.setattr(_resampling, "_BATCH_RESAMPLES", batch)
        got = integral_private_column(x, STATISTICS, 50, 2, 2, seed=3, n_threads=2)
        results.append([astuple(r) for r in got])
    assert results[0] == results[1] == results[2]
