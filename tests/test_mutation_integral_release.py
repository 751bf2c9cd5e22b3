"""The integrally private release (``integral/_resampling.py``) against a
direct implementation of Algorithm 1.

The reference draws the same resamples (the module's chunk seeds and count
draws), computes each resample's statistic from its records one by one,
and then does every step of the release by hand: rounding, the distinct
record sets generating each value (compared as sets, not hashes), the
candidates above the threshold, their ranking, and the first candidate
whose generators share no record.  The module's single pass, its bit masks,
eviction under a small memory budget and its second pass must give the
same answer in every field.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from skprivate.integral._resampling import (
    STATISTICS,
    _chunks,
    _draw_counts,
    _packed_sets,
    _round,
    integral_private_column,
    resample_statistics,
)


def _sample_statistic(sample, name):
    """A statistic of one resample's values, by its definition."""
    if name == "count":
        return float(sample.size)
    if name == "mean":
        return float(np.mean(sample))
    if name == "sum":
        return float(np.sum(sample))
    if name == "min":
        return float(np.min(sample))
    if name == "max":
        return float(np.max(sample))
    raise KeyError(name)


def _reference(x, statistics, n_resamples, decimals, k, seed, selection):
    xs = np.sort(np.asarray(x, dtype=float))
    n = xs.size
    counts = np.vstack(
        [
            _draw_counts(np.random.default_rng(c), B, n)
            for c, B in _chunks(n, n_resamples, seed)
        ]
    )
    assert counts.shape == (n_resamples, n)
    sets = [frozenset(np.flatnonzero(row).tolist()) for row in counts]
    stats = resample_statistics(xs, counts, statistics, presorted=True)
    out = []
    for s in statistics:
        values = _round(stats[s], decimals)
        generators: dict = {}
        resamples: dict = {}
        for v, rows in zip(values.tolist(), sets):
            if np.isnan(v):
                continue
            generators.setdefault(v, set()).add(rows)
            resamples[v] = resamples.get(v, 0) + 1
        freq = {v: len(g) for v, g in generators.items()}
        candidates = [v for v in freq if freq[v] > k]
        if selection == "least_error":
            truth = resample_statistics(
                xs, np.ones((1, n), dtype=int), (s,), presorted=True
            )[s][0]
            candidates.sort(key=lambda v: (abs(v - truth), -freq[v], v))
        else:
            candidates.sort(key=lambda v: (-freq[v], v))
        released = None
        for v in candidates:
            if not frozenset.intersection(*generators[v]):
                released = v
                break
        top = max(freq.values()) if freq else 0
        if released is None:
            out.append((s, None, 0, 0, len(candidates), top, False))
        else:
            out.append(
                (
                    s,
                    released,
                    freq[released],
                    resamples[released],
                    len(candidates),
                    top,
                    True,
                )
            )
    return out


def _as_tuples(results):
    return [
        (
            r.statistic,
            None if np.isnan(r.value) else r.value,
            r.frequency,
            r.n_resamples_with_value,
            r.n_candidates,
            r.max_frequency,
            r.empty_intersection,
        )
        for r in results
    ]


CASES = [
    # n, values, n_resamples, decimals, k, selection
    (8, "ints", 400, 0, 2, "frequency"),
    (12, "ints", 1000, 1, 5, "frequency"),
    (6, "ints", 300, None, 0, "frequency"),
    (20, "normal", 800, 1, 3, "frequency"),
    (20, "normal", 800, 0, 3, "least_error"),
    (5, "ties", 500, 0, 1, "frequency"),
    (3, "ints", 200, 0, 50, "frequency"),  # few generators: nothing released
]


def _data(n, kind, seed):
    rng = np.random.default_rng(seed)
    if kind == "ints":
        return rng.integers(0, 6, size=n).astype(float)
    if kind == "ties":
        return np.array([1.0, 1.0, 2.0, 2.0, 7.0])[:n]
    return rng.normal(3.0, 2.0, size=n)


@pytest.mark.parametrize("case", CASES, ids=str)
@pytest.mark.parametrize("budget", [1 << 26, 64], ids=["memory", "evicting"])
def test_release_equals_the_reference_algorithm(case, budget):
    n, kind, B, decimals, k, selection = case
    x = _data(n, kind, seed=n + B)
    names = ("count", "mean", "sum", "min", "max", "median", "iqr", "std", "var")
    got = integral_private_column(
        x, names, B, decimals, k, seed=11, selection=selection, memory_budget=budget
    )
    want = _reference(x, names, B, decimals, k, 11, selection)
    assert _as_tuples(got) == want


def test_a_small_budget_needs_the_second_pass_and_agrees():
    # many distinct values (no rounding) and a budget of one mask: the first
    # pass evicts almost every value, the second pass settles the answer
    x = np.random.default_rng(5).normal(size=40)
    names = ("mean", "median")
    full = integral_private_column(x, names, 3000, 1, 2, seed=3)
    tight = integral_private_column(x, names, 3000, 1, 2, seed=3, memory_budget=8)
    assert _as_tuples(full) == _as_tuples(tight)
    assert _as_tuples(full) == _reference(x, names, 3000, 1, 2, 3, "frequency")


@pytest.mark.parametrize("n_threads", [2, 3])
def test_threads_do_not_change_the_answer(n_threads):
    x = np.random.default_rng(2).normal(size=30)
    one = integral_private_column(x, STATISTICS, 600, 1, 2, seed=8)
    many = integral_private_column(
        x, STATISTICS, 600, 1, 2, seed=8, n_threads=n_threads
    )
    assert _as_tuples(one) == _as_tuples(many)


def test_moments_and_extremes_of_each_resample_by_their_definition():
    x = np.sort(np.random.default_rng(4).normal(size=15))
    counts = _draw_counts(np.random.default_rng(0), 50, 15)
    stats = resample_statistics(
        x, counts, ("count", "mean", "sum", "min", "max"), presorted=True
    )
    for i, row in enumerate(counts):
        sample = np.repeat(x, row)
        for name in ("count", "mean", "sum", "min", "max"):
            assert stats[name][i] == pytest.approx(
                _sample_statistic(sample, name), rel=1e-13, abs=1e-13
            )


def test_count_draws_are_bootstrap_multisets_and_packed_sets_hold_them():
    rng = np.random.default_rng(1)
    counts = _draw_counts(rng, 7, 70)
    assert counts.shape == (7, 70) and np.all(counts.sum(axis=1) == 70)
    packed = _packed_sets(counts)
    assert packed.dtype == np.uint64 and packed.shape == (7, 2)
    bits = np.unpackbits(packed.view(np.uint8), axis=1)[:, :70].astype(bool)
    np.testing.assert_array_equal(bits, counts > 0)
    assert np.all(np.unpackbits(packed.view(np.uint8), axis=1)[:, 70:] == 0)


def test_chunks_cover_the_resamples_with_independent_seeds():
    chunks = _chunks(100, 25_000, seed=4)
    sizes = [B for _, B in chunks]
    assert sum(sizes) == 25_000 and max(sizes) == (1 << 20) // 100
    seeds = {tuple(c.generate_state(2)) for c, _ in chunks}
    assert len(seeds) == len(chunks)
    assert _chunks(1, 5, seed=0)[0][1] == 5


def test_rounding_merges_negative_zero():
    out = _round(np.array([-0.04, 0.04, -0.0, 1.26]), 1)
    assert out.tolist() == [0.0, 0.0, 0.0, 1.3]
    assert not np.signbit(out[:3]).any()
    raw = _round(np.array([-0.0, 2.5]), None)
    assert raw.tolist() == [0.0, 2.5] and not np.signbit(raw[0])


# -- each part on its own -----------------------------------------------------


def _by_definition(sample, name):
    if name == "median":
        return float(np.median(sample))
    if name == "iqr":
        return float(np.quantile(sample, 0.75) - np.quantile(sample, 0.25))
    if name == "var":
        return float(np.var(sample, ddof=1)) if sample.size > 1 else np.nan
    if name == "std":
        return float(np.std(sample, ddof=1)) if sample.size > 1 else np.nan
    return _sample_statistic(sample, name)


@pytest.mark.parametrize("n", [1, 2, 10, 17, 50, 101])
@pytest.mark.parametrize("presorted", [True, False])
def test_every_statistic_of_every_resample_by_its_definition(n, presorted):
    rng = np.random.default_rng(n)
    x = rng.normal(size=n).round(1)  # ties among the values
    if presorted:
        x = np.sort(x)
    counts = _draw_counts(np.random.default_rng(n + 1), 30, n)
    got = resample_statistics(x, counts, STATISTICS, presorted=presorted)
    for i, row in enumerate(counts):
        sample = np.repeat(x, row)
        for name in STATISTICS:
            want = _by_definition(sample, name)
            if np.isnan(want):
                assert np.isnan(got[name][i])
            else:
                assert got[name][i] == pytest.approx(want, rel=1e-12, abs=1e-12), name


def _splitmix_hash(bits_rows, words):
    """The documented hash in Python integers: the splitmix64 finalizer of
    each 64-bit word, then a linear combination with odd words mod 2**64."""
    mask = (1 << 64) - 1
    out = []
    for row in bits_rows:
        total = 0
        for z, w in zip(row, words):
            z = int(z)
            z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
            z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
            z ^= z >> 31
            total = (total + z * int(w)) & mask
        out.append(total)
    return out


def test_set_hash_is_the_splitmix_finalizer_combined_mod_two_to_the_64():
    from skprivate.integral._resampling import _set_hash

    counts = _draw_counts(np.random.default_rng(3), 40, 150)
    packed = _packed_sets(counts)
    words = np.random.default_rng(9).integers(0, 2**63, size=3, dtype=np.uint64)
    words = words * np.uint64(2) + np.uint64(1)
    got = _set_hash(packed.copy(), words)
    assert [int(h) for h in got] == _splitmix_hash(packed, words)
    # one record's set, in each word
    single = _packed_sets(np.eye(150, dtype=int)[[0, 63, 64, 149]])
    assert len({int(h) for h in _set_hash(single.copy(), words)}) == 4


def test_intersection_tracker_states_equal_the_intersections():
    from skprivate.integral._resampling import _IntersectionTracker

    rng = np.random.default_rng(0)
    n = 30
    counts = _draw_counts(rng, 400, n)
    packed = _packed_sets(counts)
    sets = [frozenset(np.flatnonzero(r).tolist()) for r in counts]
    values = rng.integers(0, 12, size=400).astype(float)
    # value 99: only resamples holding record 3 (never empty)
    holding = np.flatnonzero(counts[:, 3] > 0)[:30]
    values[holding] = 99.0
    values[5] = np.nan
    for capacity in (1000, 3, 1):
        tracker = _IntersectionTracker(("s",), 1, capacity)
        for start in range(0, 400, 50):  # eight batches
            tracker.add("s", values[start : start + 50], packed[start : start + 50])
        seen = np.unique(values[~np.isnan(values)])
        states = tracker.states("s", seen)
        for v, state in zip(seen.tolist(), states.tolist()):
            rows = [s for s, u in zip(sets, values.tolist()) if u == v]
            empty = not frozenset.intersection(*rows)
            if state == tracker.EMPTY:
                assert empty, (capacity, v)
            elif state == tracker.NONEMPTY:
                assert not empty, (capacity, v)
            else:
                assert capacity < 1000  # unknown only when masks were evicted
        assert tracker.n_alive <= max(capacity, 1)
        counts_seen = {v: int(np.sum(values == v)) for v in seen.tolist()}
        assert {v: tracker.count[tracker.entries["s"][v]] for v in seen.tolist()} == (
            counts_seen
        )
        assert states[seen.tolist().index(99.0)] != tracker.EMPTY


@pytest.mark.parametrize("budget", [8, 16, 40, 1 << 20])
@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_second_pass_finds_the_first_candidate_with_an_empty_intersection(budget, seed):
    from skprivate.integral._resampling import _verify_candidates

    rng = np.random.default_rng(seed)
    n, B = 40, 900
    chunks = _chunks(n, B, seed)
    counts = np.vstack(
        [_draw_counts(np.random.default_rng(c), b, n) for c, b in chunks]
    )
    sets = [frozenset(np.flatnonzero(r).tolist()) for r in counts]
    # values 0 .. 9 at random; values 10 .. 13 only on resamples holding a
    # given record (their intersections are never empty)
    values = rng.integers(0, 10, size=B).astype(float)
    for v, record in zip(range(10, 14), (1, 2, 3, 4)):
        rows = np.flatnonzero(counts[:, record] > 0)
        values[rng.choice(rows, size=40, replace=False)] = v
    # a few values seen rarely: their intersections stay non-empty
    values[:3] = 20.0
    ranked = rng.permutation(np.unique(values))
    empty = [
        not frozenset.intersection(*[s for s, u in zip(sets, values) if u == v])
        for v in ranked
    ]
    pending = sorted(
        rng.choice(ranked.size, size=ranked.size // 2 + 2, replace=False).tolist()
    )
    fallback = next(
        (i for i in range(ranked.size) if empty[i] and i not in pending), None
    )
    if fallback is not None:
        pending = [i for i in pending if i < fallback]
    plans = {
        "s": {
            "values": ranked,
            "pending": list(pending),
            "fallback": fallback,
            "found": None,
        }
    }
    _verify_candidates(plans, {"s": values}, chunks, n, budget)
    want = next((i for i in pending if empty[i]), fallback)
    assert plans["s"]["found"] == want


def test_chunks_and_batches_exactly():
    from skprivate.integral._resampling import _batches

    assert [B for _, B in _chunks(1, 2**20, 0)] == [2**20]
    assert [B for _, B in _chunks(2**20 + 1, 3, 0)] == [1, 1, 1]
    assert [B for _, B in _chunks(0, 5, 0)] == [5]
    assert [B for _, B in _chunks(2**19, 5, 0)] == [2, 2, 1]
    fake = [(k, size) for k, size in enumerate([1, 1, 1, 1, 2, 5, 1, 1])]
    assert [[k for k, _ in batch] for batch in _batches(fake)] == [
        [0, 1, 2, 3],
        [4, 5],
        [6, 7],
    ]
    assert [[k for k, _ in b] for b in _batches([(0, 4), (1, 3), (2, 1)])] == [
        [0],
        [1, 2],
    ]


@pytest.mark.parametrize(("B", "n"), [(1, 9), (2, 9), (3, 2**16 + 1), (2, 2**17 + 3)])
def test_count_draws_of_every_shape(B, n):
    counts = _draw_counts(np.random.default_rng(B + n), B, n)
    assert counts.shape == (B, n)
    assert np.all(counts.sum(axis=1) == n) and counts.min() >= 0
    # the records at both ends are drawn as often as the others
    if n > 2**16:
        assert counts[:, -100:].sum() > 0 and counts[:, :100].sum() > 0
        tail = counts[:, 2**16 :].sum(axis=1) / n
        assert np.all(np.abs(tail - (n - 2**16) / n) < 0.01)


# -- cases that reach every branch of the release --------------------------------


def test_least_error_selection_differs_from_the_most_frequent_value():
    x = np.random.default_rng(0).exponential(size=12).round(2)
    names = ("std", "iqr", "mean")
    by_freq = integral_private_column(x, names, 600, 1, 3, seed=5)
    by_error = integral_private_column(
        x, names, 600, 1, 3, seed=5, selection="least_error"
    )
    assert _as_tuples(by_freq) == _reference(x, names, 600, 1, 3, 5, "frequency")
    assert _as_tuples(by_error) == _reference(x, names, 600, 1, 3, 5, "least_error")
    assert [r.value for r in by_freq] != [r.value for r in by_error]


@pytest.mark.parametrize("budget", [1 << 26, 256])
def test_many_records_and_chunks_with_evictions(budget):
    """2,000 records (32 words per mask), resamples in several chunks, and a
    budget of one mask: values are evicted between chunks and settled by
    the second pass, over several chunks too."""
    x = np.random.default_rng(7).normal(size=2000)
    names = ("mean", "median")
    got = integral_private_column(x, names, 1500, 2, 2, seed=4, memory_budget=budget)
    assert _as_tuples(got) == _reference(x, names, 1500, 2, 2, 4, "frequency")
    assert len(_chunks(2000, 1500, 4)) > 2


def test_a_single_record_has_no_spread_to_release():
    got = integral_private_column(
        np.array([3.0]), ("var", "std", "mean"), 50, 1, 2, seed=0
    )
    var, std, mean = got
    assert np.isnan(var.value) and not var.empty_intersection
    assert var.max_frequency == 0 and var.n_candidates == 0 and var.frequency == 0
    assert np.isnan(std.value) and std.max_frequency == 0
    # one record: every resample is that record, one generator only
    assert mean.max_frequency == 1 and np.isnan(mean.value)


def test_variance_of_values_far_from_zero_keeps_its_digits():
    x = 1e6 + np.random.default_rng(1).normal(size=40)
    counts = _draw_counts(np.random.default_rng(2), 20, 40)
    got = resample_statistics(np.sort(x), counts, ("var",), presorted=True)["var"]
    xs = np.sort(x)
    for i, row in enumerate(counts):
        want = np.var(np.repeat(xs, row) - 1e6, ddof=1)
        assert got[i] == pytest.approx(want, rel=1e-9)


def test_unsorted_values_are_sorted_by_default():
    x = np.random.default_rng(3).normal(size=25)
    counts = _draw_counts(np.random.default_rng(4), 10, 25)
    got = resample_statistics(x, counts, ("median", "min", "max", "iqr"))
    for i, row in enumerate(counts):
        sample = np.repeat(x, row)
        assert got["median"][i] == pytest.approx(np.median(sample), rel=1e-13)
        assert got["min"][i] == sample.min() and got["max"][i] == sample.max()


def test_the_intersection_holds_the_first_record_too():
    """Values whose generators share only record 0 (bit 0 of the first
    word) are not released, in the first pass and in the second."""
    from skprivate.integral._resampling import _IntersectionTracker, _verify_candidates

    n, B = 70, 600
    chunks = _chunks(n, B, 1)
    counts = np.vstack(
        [_draw_counts(np.random.default_rng(c), b, n) for c, b in chunks]
    )
    packed = _packed_sets(counts)
    rng = np.random.default_rng(2)
    values = rng.integers(0, 5, size=B).astype(float)
    holding = np.flatnonzero(counts[:, 0] > 0)
    values[holding[:60]] = 7.0
    values[np.flatnonzero(counts[:, 69] > 0)[-60:]] = 8.0  # the last record
    sets = [frozenset(np.flatnonzero(r).tolist()) for r in counts]
    for v in (7.0, 8.0):
        common = frozenset.intersection(*[s for s, u in zip(sets, values) if u == v])
        assert common  # holds record 0 (for 7) or 69 (for 8)
    tracker = _IntersectionTracker(("s",), 2, 1000)
    tracker.add("s", values, packed)
    assert tracker.states("s", np.array([7.0, 8.0])).tolist() == [tracker.NONEMPTY] * 2
    ranked = np.array([7.0, 8.0, 0.0, 1.0, 2.0])
    plans = {
        "s": {
            "values": ranked,
            "pending": [0, 1, 2, 3, 4],
            "fallback": None,
            "found": None,
        }
    }
    _verify_candidates(plans, {"s": values}, chunks, n, 1 << 20)
    assert plans["s"]["found"] == 2


@pytest.mark.parametrize("budget", [16, 48, 1 << 20])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_second_pass_over_two_statistics_and_several_chunks(budget, seed):
    """Candidates whose generators share a record rank first (the pass must
    get past them), for two statistics at once, over several chunks of
    resamples (2,000 records, 32 words per mask)."""
    from skprivate.integral._resampling import _verify_candidates

    rng = np.random.default_rng(seed)
    n, B = 2000, 1300
    chunks = _chunks(n, B, seed)
    assert len(chunks) > 2
    counts = np.vstack(
        [_draw_counts(np.random.default_rng(c), b, n) for c, b in chunks]
    )
    sets = [frozenset(np.flatnonzero(r).tolist()) for r in counts]
    plans, values, want = {}, {}, {}
    for s, shared in (("a", (0, 5, 1999)), ("b", (7, 1000))):
        v = rng.integers(0, 6, size=B).astype(float)
        for value, record in zip(range(10, 10 + len(shared)), shared):
            rows = np.flatnonzero(counts[:, record] > 0)
            v[rng.choice(rows, size=30, replace=False)] = value
        nonempty = [float(10 + i) for i in range(len(shared))]
        rest = [float(u) for u in rng.permutation(6)]
        ranked = np.array(nonempty + rest)
        empty = [
            not frozenset.intersection(*[t for t, u in zip(sets, v) if u == value])
            for value in ranked
        ]
        plans[s] = {
            "values": ranked,
            "pending": list(range(ranked.size)),
            "fallback": None,
            "found": None,
        }
        values[s] = v
        want[s] = next((i for i, e in enumerate(empty) if e), None)
        assert want[s] == len(shared)  # the first value drawn at random
    _verify_candidates(plans, values, chunks, n, budget)
    assert {s: p["found"] for s, p in plans.items()} == want


def test_second_pass_intersects_across_chunks_for_every_statistic():
    """Hand-made chunks of five resamples of 12 records.  Statistic "b" has
    a value given by one resample in each chunk, whose sets share no record
    overall though each chunk alone leaves a non-empty set; it is the
    largest value tested.  Statistic "a" has no resample in the later chunks,
    which must not stop the pass for "b"."""
    from skprivate.integral._resampling import _IntersectionTracker, _verify_candidates

    n, size = 12, 5
    chunks = [(np.random.SeedSequence([9, i]), size) for i in range(6)]
    counts = np.vstack(
        [_draw_counts(np.random.default_rng(c), b, n) for c, b in chunks]
    )
    sets = [frozenset(np.flatnonzero(r).tolist()) for r in counts]
    B = counts.shape[0]
    # one resample per chunk for the value 50 of "b", chosen so that the
    # running intersection over the chunks ends empty
    chosen, common = [], frozenset(range(n))
    for c in range(6):
        rows = range(c * size, (c + 1) * size)
        best = min(rows, key=lambda r: len(common & sets[r]))
        chosen.append(best)
        common &= sets[best]
    assert not common and all(sets[r] for r in chosen)
    b = np.full(B, np.nan)
    b[chosen] = 50.0
    others = [r for r in range(B) if r not in chosen]
    b[others[:10]] = 1.0
    # resamples holding record 7 (bit 0 of the first word), picked until
    # it is the only record they share
    sharing, left = [], frozenset(range(n))
    for r in np.flatnonzero(counts[:, 7] > 0).tolist():
        if r not in chosen and len(left & sets[r]) < len(left):
            sharing.append(r)
            left &= sets[r]
    assert left == {7}
    b[sharing] = 2.0
    a = np.full(B, np.nan)
    a[:size] = np.arange(size, dtype=float)  # only in the first chunk
    plans = {
        "a": {
            "values": np.array([0.0, 1.0]),
            "pending": [0, 1],
            "fallback": None,
            "found": None,
        },
        "b": {
            "values": np.array([2.0, 50.0]),
            "pending": [0, 1],
            "fallback": None,
            "found": None,
        },
    }
    _verify_candidates(plans, {"a": a, "b": b}, chunks, n, 1 << 20)
    assert plans["b"]["found"] == 1
    # each value of "a" comes from one resample, whose set is never empty
    assert plans["a"]["found"] is None
    # the first pass keeps record 7 (bit 0 of the first word) too
    tracker = _IntersectionTracker(("b",), 1, 1000)
    tracker.add("b", b[sharing], _packed_sets(counts[sharing]))
    assert tracker.states("b", np.array([2.0])).tolist() == [tracker.NONEMPTY]


@pytest.mark.parametrize(
    "x, released, other",
    [
        ([4.0, 5.0, 5.0, 3.0, 5.0, 5.0], 4.0, 5.0),
        ([3.0, 2.0, 2.0, 5.0, 2.0, 1.0], 2.0, 3.0),
    ],
)
def test_least_error_ties_go_to_the_more_frequent_value(x, released, other):
    # the mean is 4.5 (2.5): the rounded candidates on either side are
    # equally far from it, and the one with more generators is released
    x = np.asarray(x)
    (result,) = integral_private_column(
        x, ("mean",), 300, 0, 0, seed=7, selection="least_error"
    )
    assert _as_tuples([result]) == _reference(x, ("mean",), 300, 0, 0, 7, "least_error")
    assert abs(released - x.mean()) == abs(other - x.mean())
    assert result.value == released


def test_an_evicted_candidate_is_released_by_the_second_pass():
    """The only count value, n, is the best candidate; one mask of budget and
    the 16 mean values of the first chunk evict it while its first 16
    generators still share records, so only the second pass can release it."""
    n, t = 1 << 16, 64
    chunks = _chunks(n, t, 0)
    assert [b for _, b in chunks] == [16, 16, 16, 16]
    first = _draw_counts(np.random.default_rng(chunks[0][0]), 16, n)
    assert (first > 0).all(axis=0).any()
    x = np.arange(n, dtype=float)
    tight = integral_private_column(
        x, ("count", "mean"), t, None, 1, 0, memory_budget=8
    )
    full = integral_private_column(x, ("count", "mean"), t, None, 1, 0)
    assert _as_tuples(tight) == _as_tuples(full)
    # 64 resamples of n records: 64 distinct sets, sharing no record
    assert _as_tuples(tight)[0] == ("count", float(n), t, t, 1, t, True)


def test_a_single_record_has_an_undefined_variance_without_numpy_warnings():
    """With one record the variance and SD of every resample are NaN (no
    n - 1 to divide by), set directly rather than computed as 0 / 0."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = resample_statistics(
            np.array([3.0]), np.array([[1], [1]]), ("var", "std", "mean")
        )
        (var,) = integral_private_column(np.array([3.0]), ("var",), 20, 1, 0, 0)
    assert np.isnan(got["var"]).all() and np.isnan(got["std"]).all()
    assert got["mean"].tolist() == [3.0, 3.0]
    assert np.isnan(var.value) and var.max_frequency == 0
