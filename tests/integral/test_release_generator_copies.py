"""No noise stream of an integral release is state a copy can carry.

A ``Generator`` (or ``RandomState``) given as ``random_state`` is a source of
entropy: each release draws fresh words from it and mixes them with the
release's settings and data.  It was used as given: two deep copies of one
generator releasing the same statistic of two batches drew the same noise,
so the difference of the releases was the exact difference of the true
statistics.  An int seed enters with every bit (``seed`` and
``seed + 2**64`` are two seeds), a negative one is refused, and ``None``
stays fresh OS entropy.
"""

from __future__ import annotations

import copy
import pickle
import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skprivate.integral import (
    IntegralPrivateStatistics,
    laplace_describe,
    laplace_statistic,
)
from skprivate.integral import _statistics as integral_statistics
from skprivate.integral._release_seed import release_generator
from skprivate.utils._seeding import canonical, data_fingerprint, words

REPS = 400
LO, HI, EPS = 0.0, 10.0, 1.0
N = 50
# two batches of the same size (so the same noise law) and other values
X = np.random.default_rng(100).uniform(2.0, 8.0, N)
Y = np.random.default_rng(200).uniform(1.0, 9.0, N)
TRUE = {"mean": np.mean, "median": np.median}
NEGATIVE = "random_state must be a non-negative int (a seed); got -1."


def _noise_of_copies(statistic, copier=copy.deepcopy):
    """The noise of X's and Y's releases by two copies of one generator."""
    on_x, on_y = [], []
    for rep in range(REPS):
        source = np.random.default_rng([1, rep])
        a, b = copier(source), copier(source)
        on_x.append(laplace_statistic(X, statistic, EPS, (LO, HI), random_state=a))
        on_y.append(laplace_statistic(Y, statistic, EPS, (LO, HI), random_state=b))
    truth = TRUE[statistic]
    return np.array(on_x) - truth(X), np.array(on_y) - truth(Y)


@pytest.mark.parametrize("statistic", ["mean", "median"])
def test_copies_of_one_generator_draw_independent_noise_for_two_batches(statistic):
    noise_x, noise_y = _noise_of_copies(statistic)
    # the difference of the releases is not the difference of the truths
    gap = noise_x - noise_y
    assert np.mean(np.abs(gap) < 1e-9) < 0.01
    # and the two noises are uncorrelated: within 4 standard errors of 0
    r = np.corrcoef(noise_x, noise_y)[0, 1]
    assert abs(r) < 4 / np.sqrt(REPS), r


def test_pickled_copies_of_one_generator_draw_independent_noise():
    noise_x, noise_y = _noise_of_copies("mean", lambda g: pickle.loads(pickle.dumps(g)))
    assert abs(np.corrcoef(noise_x, noise_y)[0, 1]) < 4 / np.sqrt(REPS)


def test_copies_of_one_generator_draw_independent_noise_for_two_tables():
    first = pd.DataFrame({"a": X, "b": Y})
    second = pd.DataFrame({"a": Y, "b": X})
    statistics = ("count", "mean", "sum")  # the order of the table's rows
    on_x = [N, X.mean(), X.sum()]
    on_y = [N, Y.mean(), Y.sum()]
    truths = np.array([on_x, on_y]).T, np.array([on_y, on_x]).T
    gaps = []
    for rep in range(50):
        source = np.random.default_rng([2, rep])
        a, b = copy.deepcopy(source), copy.deepcopy(source)
        one = laplace_describe(first, EPS, (LO, HI), statistics, random_state=a)
        two = laplace_describe(second, EPS, (LO, HI), statistics, random_state=b)
        assert list(one.index) == list(two.index) == list(statistics)
        # the noise of each cell of one table against the same cell of the other
        gaps.append((one.to_numpy() - truths[0]) - (two.to_numpy() - truths[1]))
    assert np.mean(np.abs(np.array(gaps)) < 1e-9) < 0.01


def test_copies_of_one_generator_resample_two_batches_by_other_index_sets(
    monkeypatch,
):
    seeds = []
    real = integral_statistics.integral_private_column

    def recording(col, statistics, n_resamples, decimals, k, seed, *args, **kw):
        seeds.append(seed)
        return real(col, statistics, n_resamples, decimals, k, seed, *args, **kw)

    monkeypatch.setattr(integral_statistics, "integral_private_column", recording)
    source = np.random.default_rng(3)
    for batch in (X, Y):
        IntegralPrivateStatistics(
            statistics=("mean",), n_resamples=20, random_state=copy.deepcopy(source)
        ).fit(batch[:, None])
    assert seeds[0] != seeds[1]


def test_a_generator_is_mixed_with_the_settings_and_the_data():
    settings = ("mean", EPS, LO, HI, 1e-6, "global")
    source = np.random.default_rng(4)
    drawn = copy.deepcopy(source).integers(0, 2**63 - 1, size=4)
    rng = release_generator(source, settings, X)
    assert rng is not source
    entropy = [
        *(int(w) for w in drawn),
        *words(data_fingerprint((canonical(settings), X))),
    ]
    expected = np.random.default_rng(np.random.SeedSequence(entropy))
    assert rng.random(8).tolist() == expected.random(8).tolist()
    # the source gave those four words and no more
    assert source.bit_generator.state == expected_state_after(4, 4)
    # the same words with other settings or other data: other streams
    again = np.random.default_rng(4)
    first = release_generator(copy.deepcopy(again), settings, X).random()
    assert release_generator(copy.deepcopy(again), settings, Y).random() != first
    other = ("mean", 2 * EPS, LO, HI, 1e-6, "global")
    assert release_generator(copy.deepcopy(again), other, X).random() != first
    assert release_generator(copy.deepcopy(again), settings, X).random() == first


def expected_state_after(seed, n_words):
    """The state of ``default_rng(seed)`` after ``n_words`` 63-bit draws."""
    rng = np.random.default_rng(seed)
    rng.integers(0, 2**63 - 1, size=n_words)
    return rng.bit_generator.state


@pytest.mark.parametrize(
    "make", [np.random.default_rng, np.random.RandomState], ids=["Generator", "RS"]
)
def test_a_generator_advances_so_two_releases_differ(make):
    source = make(5)
    before = copy.deepcopy(source)
    values = [
        laplace_statistic(X, s, EPS, (LO, HI), random_state=source)
        for s in ("mean", "mean", "median", "median")
    ]
    assert values[0] != values[1] and values[2] != values[3]
    # the source moved on: its next draw is not what it was
    assert source.random() != before.random()


def test_a_released_mean_has_the_stated_laplace_law():
    # docstring: Laplace noise of scale (U - L) / (n epsilon)
    scale = (HI - LO) / (N * EPS)
    source = np.random.default_rng(6)
    reps = 3000
    noise = np.array(
        [
            laplace_statistic(X, "mean", EPS, (LO, HI), random_state=source)
            for _ in range(reps)
        ]
    ) - np.mean(X)
    # |noise| is exponential of mean `scale` and sd `scale`
    assert abs(np.mean(np.abs(noise)) - scale) < 4 * scale / np.sqrt(reps)
    assert abs(np.mean(noise)) < 4 * np.sqrt(2) * scale / np.sqrt(reps)
    assert stats.kstest(noise, stats.laplace(0, scale).cdf).pvalue > 1e-3
    # consecutive releases of one generator are uncorrelated
    assert abs(np.corrcoef(noise[:-1], noise[1:])[0, 1]) < 4 / np.sqrt(reps)


@pytest.mark.parametrize("seed", [5, 2**64 + 5, 3 * 2**64 + 5])
def test_every_bit_of_an_int_seed_enters(seed):
    for statistic in ("mean", "median"):
        one = laplace_statistic(X, statistic, EPS, (LO, HI), random_state=seed)
        two = laplace_statistic(X, statistic, EPS, (LO, HI), random_state=seed + 2**64)
        assert one != two
        assert one == laplace_statistic(X, statistic, EPS, (LO, HI), random_state=seed)
    frame = pd.DataFrame({"a": X})
    tables = [
        laplace_describe(frame, EPS, (LO, HI), ("sum",), random_state=s)
        for s in (seed, seed + 2**64)
    ]
    assert not tables[0].equals(tables[1])
    settings = ("mean", EPS, LO, HI, 1e-6, "global")
    assert (
        release_generator(seed, settings, X).random()
        != release_generator(seed + 2**64, settings, X).random()
    )


@pytest.mark.parametrize("seed", [-1, np.int64(-1)])
def test_a_negative_seed_is_refused_as_privatizers_refuse_it(seed):
    message = f"^{re.escape(NEGATIVE)}$"
    with pytest.raises(ValueError, match=message):
        laplace_statistic(X, "mean", EPS, (LO, HI), random_state=seed)
    with pytest.raises(ValueError, match=message):
        laplace_describe(pd.DataFrame({"a": X}), EPS, (LO, HI), random_state=seed)
    with pytest.raises(ValueError, match=message):
        release_generator(seed, (), X)


def test_none_draws_fresh_entropy():
    values = [
        laplace_statistic(X, "mean", EPS, (LO, HI), random_state=None) for _ in range(3)
    ]
    assert all(np.isfinite(values)) and len(set(values)) == 3
    table = laplace_describe(pd.DataFrame({"a": X}), EPS, (LO, HI), ("mean",))
    assert np.isfinite(table.loc["mean", "a"])


@pytest.mark.parametrize("statistic", ["mean", "median", "sum"])
def test_an_int_seed_reproduces_on_the_same_data_and_differs_on_another(statistic):
    def release(data):
        return laplace_statistic(data, statistic, EPS, (LO, HI), random_state=7)

    assert release(X) == release(X.copy())
    noise_x = release(X) - TRUE.get(statistic, np.sum)(X)
    noise_y = release(Y) - TRUE.get(statistic, np.sum)(Y)
    assert noise_x != noise_y
