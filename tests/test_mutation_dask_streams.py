"""The random streams of a dask release (``utils/_dask.py``) pinned exactly.

A scripted privatizer records the seed, first row and block each partition
is released with and writes them into its output, so every rule of the
module docstring is checked value by value on the synchronous scheduler:
the call's root is four draws of the privatizer's next generator, block
``i`` uses child ``i`` of it with the fingerprint of its rows mixed in
(seeded or not), the graph releases with a copy of the privatizer taken at
the call, an empty partition releases nothing, and rows are numbered in the
whole collection.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator

from skprivate import LaplaceLDP
from skprivate.utils._dask import (
    _array_block,
    _first_rows,
    _frame_block,
    _privatize_block,
    block_seed,
    call_seed,
    dask_transform,
    partition_seed,
)
from skprivate.utils._seeding import data_fingerprint, words

da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")


class _SharedLog(list):
    """A record of the calls that the copy held by a dask graph shares."""

    def __deepcopy__(self, memo):
        return self


class Scripted(BaseEstimator):
    """A fitted privatizer whose release shows the stream it was given."""

    _release_dtype = np.float64

    def __init__(self, seeded=False, root=11, names=("a", "b")):
        self.seeded = seeded
        self.root = root
        self.names = list(names)
        self.calls = _SharedLog()
        self.generator_reasons = []

    def fit(self, X=None, y=None):
        return self

    def __sklearn_is_fitted__(self):
        return True

    def get_feature_names_out(self):
        return np.array(self.names, dtype=object)

    def _is_seeded(self):
        return self.seeded

    def _next_generator(self, reason):
        self.generator_reasons.append(reason)
        return np.random.default_rng(self.root + len(self.generator_reasons))

    def _transform_with_seed(self, block, seed, first_row=0):
        block = np.asarray(block, dtype=float)
        self.calls.append((block.copy(), seed, first_row))
        tag = float(seed.generate_state(1)[0] % 100_000)
        out = np.empty((block.shape[0], len(self.names)))
        out[:, 0] = tag
        out[:, 1:] = first_row
        return out


def _tag(seq):
    return float(seq.generate_state(1)[0] % 100_000)


def test_call_seed_is_four_draws_of_the_next_generator():
    priv = Scripted(root=3)
    seq = call_seed(priv)
    draws = np.random.default_rng(4).integers(0, 2**63, size=4)
    assert list(seq.entropy) == [int(e) for e in draws]
    assert seq.spawn_key == ()
    assert priv.generator_reasons == ["dask release"]
    # the next call draws a fresh root
    assert list(call_seed(priv).entropy) != list(seq.entropy)


@pytest.mark.parametrize("pool_size", [4, 8])
def test_block_seed_is_the_spawned_child(pool_size):
    seq = np.random.SeedSequence(12345, pool_size=pool_size)
    children = seq.spawn(6)
    for i in range(6):
        child = block_seed(seq, i)
        assert child.spawn_key == children[i].spawn_key
        assert child.pool_size == pool_size
        np.testing.assert_array_equal(
            child.generate_state(4), children[i].generate_state(4)
        )
    # a nested sequence keeps its own key in front
    nested = np.random.SeedSequence(7, spawn_key=(2, 5))
    assert block_seed(nested, 3).spawn_key == (2, 5, 3)
    np.testing.assert_array_equal(
        block_seed(nested, 3).generate_state(2), nested.spawn(4)[3].generate_state(2)
    )
    assert type(block_seed(seq, np.int64(2)).spawn_key[-1]) is int


def test_first_rows_are_the_running_totals_before_each_block():
    assert _first_rows([3, 4, 2]) == [0, 3, 7]
    assert _first_rows(np.array([5])) == [0]
    assert all(type(v) is int for v in _first_rows([2, 2]))


@pytest.mark.parametrize("seeded", [False, True])
def test_privatize_block_releases_its_rows_with_their_own_stream(seeded):
    priv = Scripted(seeded=seeded)
    seq = np.random.SeedSequence(99)
    block = np.arange(6.0).reshape(3, 2)
    out = _privatize_block(block, priv, seq, np.float32, 40, 2)
    assert out.dtype == np.float32
    (seen, seed, first_row) = priv.calls[0]
    np.testing.assert_array_equal(seen, block)
    assert first_row == 40
    assert seed.spawn_key == (40,)  # keyed by its first row
    want = partition_seed(seq, 40, block)
    np.testing.assert_array_equal(seed.generate_state(2), want.generate_state(2))
    np.testing.assert_array_equal(out[:, 0], np.float32(_tag(want)))
    # not the bare child: the rows enter, seeded or not
    child = seq.spawn(41)[40]
    assert seed.generate_state(1)[0] != child.generate_state(1)[0]


@pytest.mark.parametrize("seeded", [False, True])
def test_privatize_block_mixes_in_the_rows(seeded):
    priv = Scripted(seeded=seeded)
    seq = np.random.SeedSequence([5, 6], spawn_key=(1,))
    block = np.array([[1.0, 2.0], [3.0, 4.0]])
    _privatize_block(block, priv, seq, np.float64, 4, 2)
    seed = priv.calls[0][1]
    want = np.random.SeedSequence(
        [5, 6, *words(data_fingerprint(block))], spawn_key=(1, 4)
    )
    assert list(seed.entropy) == list(want.entropy)
    assert seed.spawn_key == (1, 4)
    np.testing.assert_array_equal(seed.generate_state(4), want.generate_state(4))
    # other rows at the same position: another stream
    _privatize_block(block + 1, priv, seq, np.float64, 4, 2)
    assert list(priv.calls[1][1].entropy) != list(seed.entropy)
    # a scalar root entropy is taken as one word
    priv2 = Scripted(seeded=seeded)
    _privatize_block(block, priv2, np.random.SeedSequence(8), np.float64, 0, 2)
    assert priv2.calls[0][1].entropy[0] == 8
    assert len(priv2.calls[0][1].entropy) == 5


def test_an_empty_partition_releases_nothing():
    priv = Scripted()
    out = _privatize_block(
        np.empty((0, 3)), priv, np.random.SeedSequence(1), np.int8, 0, 5
    )
    assert out.shape == (0, 5)
    assert out.dtype == np.int8
    assert priv.calls == []


def test_array_block_reads_its_first_row_which_keys_its_stream():
    priv = Scripted()
    seq = np.random.SeedSequence(3)
    out = _array_block(
        np.ones((2, 4)), priv, seq, np.float64, [0, 10, 30], 2, block_id=(2, 0)
    )
    assert out.shape == (2, 2)
    assert priv.calls[0][2] == 30
    assert priv.calls[0][1].spawn_key == (30,)


def test_frame_block_reads_its_first_row_which_keys_its_stream():
    priv = Scripted()
    seq = np.random.SeedSequence(3)
    part = pd.DataFrame({"x": [1.0, 2.0], "y": [3.0, 4.0]}, index=[7, 8])
    out = _frame_block(part, pd.Series([7]), priv, seq, np.float64, ["p", "q"])
    assert list(out.columns) == ["p", "q"]
    assert out.index.tolist() == [7, 8]
    assert priv.calls[0][2] == 7
    assert priv.calls[0][1].spawn_key == (7,)
    # no first row: row 0
    _frame_block(part, pd.Series([], dtype=int), priv, seq, np.float64, ["p", "q"])
    assert priv.calls[1][2] == 0
    assert priv.calls[1][1].spawn_key == (0,)


def _expected_release(x, chunks, root):
    seq = call_seed(Scripted(root=root))
    rows, start = [], 0
    for n in chunks:
        block = x[start : start + n]
        # the rows' fingerprint enters seeded or not
        seed = np.random.SeedSequence(
            [*np.atleast_1d(seq.entropy).tolist(), *words(data_fingerprint(block))],
            spawn_key=(start,),
        )
        rows.append(np.column_stack([np.full(n, _tag(seed)), np.full(n, start)]))
        start += n
    return np.vstack(rows)


@pytest.mark.parametrize("seeded", [False, True])
def test_dask_array_release_is_block_by_block(seeded):
    x = np.arange(18.0).reshape(9, 2)
    X = da.from_array(x, chunks=((3, 4, 2), (1, 1)))  # column chunks gathered
    priv = Scripted(seeded=seeded, root=20)
    with dask.config.set(scheduler="synchronous"):
        out = dask_transform(priv, X)
        assert isinstance(out, da.Array)
        assert out.chunks == ((3, 4, 2), (2,))
        got = out.compute()
        assert out.dtype == np.float64
    np.testing.assert_array_equal(got, _expected_release(x, (3, 4, 2), 20))
    assert priv.generator_reasons == ["dask release"]
    # every block saw its own rows, whole
    blocks = sorted(priv.calls, key=lambda c: c[2])
    np.testing.assert_array_equal(np.vstack([c[0] for c in blocks]), x)


def test_dask_array_with_unknown_chunks_is_numbered_in_the_whole():
    x = np.arange(10.0).reshape(5, 2)
    X = da.from_array(x, chunks=(2, 2))
    X = X[X[:, 0] >= 0]  # unknown row chunks
    assert any(np.isnan(c) for c in X.chunks[0])
    priv = Scripted(root=5)
    with dask.config.set(scheduler="synchronous"):
        got = dask_transform(priv, X).compute()
    np.testing.assert_array_equal(got, _expected_release(x, (2, 2, 1), 5))


def test_dask_frame_release_is_partition_by_partition():
    frame = pd.DataFrame({"u": np.arange(7.0), "v": np.arange(7.0) * 2})
    ddf = dd.from_pandas(frame, npartitions=3)
    sizes = ddf.map_partitions(len).compute().tolist()
    priv = Scripted(root=8, names=("p", "q"))
    with dask.config.set(scheduler="synchronous"):
        out = dask_transform(priv, ddf)
        assert isinstance(out, dd.DataFrame)
        assert list(out.columns) == ["p", "q"]
        got = out.compute()
    assert (got.dtypes == np.float64).all()
    np.testing.assert_array_equal(
        got.to_numpy(), _expected_release(frame.to_numpy(), sizes, 8)
    )
    assert got.index.tolist() == list(range(7))


def test_dask_series_is_released_as_a_one_column_frame():
    s = pd.Series(np.arange(4.0), name="x")
    priv = Scripted(root=2, names=("x_out",))
    with dask.config.set(scheduler="synchronous"):
        got = dask_transform(priv, dd.from_pandas(s, npartitions=2)).compute()
    assert list(got.columns) == ["x_out"]
    assert len(got) == 4
    assert priv.calls[0][0].shape[1] == 1


def test_each_call_is_a_new_release_and_recomputing_is_not():
    x = np.arange(8.0).reshape(4, 2)
    X = da.from_array(x, chunks=(2, 2))
    priv = Scripted(root=1)
    with dask.config.set(scheduler="synchronous"):
        first = dask_transform(priv, X)
        again = first.compute()
        np.testing.assert_array_equal(first.compute(), again)
        second = dask_transform(priv, X)
        assert first.name != second.name
        assert not np.array_equal(second.compute()[:, 0], again[:, 0])


def test_dask_transform_refuses_other_arguments_and_other_shapes():
    priv = Scripted()
    X = da.ones((4, 2), chunks=(2, 2))
    with pytest.raises(ValueError) as info:
        dask_transform(priv, X, y=None, copy=True)
    assert str(info.value) == (
        "Scripted.transform of a dask collection takes no other argument; got "
        "['copy', 'y']."
    )
    with pytest.raises(ValueError) as info:
        dask_transform(priv, da.ones(4, chunks=2))
    assert str(info.value) == (
        "X must be a 2-D dask array (n_samples, n_features) for Scripted; got 1 "
        "dimensions. Reshape a single column with X[:, None]."
    )
    assert priv.generator_reasons == ["dask release"]  # the shape is seen later


def test_dask_transform_refuses_an_unfitted_privatizer():
    from sklearn.exceptions import NotFittedError

    X = da.ones((4, 1), chunks=(2, 1))
    with pytest.raises(NotFittedError):
        dask_transform(LaplaceLDP(epsilon=1, bounds=(0, 2)), X)


def test_a_real_privatizer_releases_each_block_with_its_child_stream():
    x = np.random.default_rng(0).uniform(0, 10, (12, 1))
    X = da.from_array(x, chunks=(5, 1))
    priv = LaplaceLDP(epsilon=1, bounds=(0, 10), random_state=4).fit(x)
    twin = LaplaceLDP(epsilon=1, bounds=(0, 10), random_state=4).fit(x)
    with dask.config.set(scheduler="synchronous"):
        got = priv.transform(X).compute()
    seq = call_seed(twin)  # the twin's first call: the same root
    want = []
    for start, n in ((0, 5), (5, 5), (10, 2)):
        block = x[start : start + n]
        seed = np.random.SeedSequence(
            [*np.atleast_1d(seq.entropy).tolist(), *words(data_fingerprint(block))],
            spawn_key=(start,),
        )
        want.append(twin._transform_with_seed(block, seed, first_row=start))
    np.testing.assert_array_equal(got, np.vstack(want))


class Narrow(Scripted):
    """A release declared and cast as float32."""

    _release_dtype = np.float32


def test_the_release_dtype_is_declared_and_computed_on_arrays():
    x = np.arange(12.0).reshape(4, 3)  # three columns in, two out
    X = da.from_array(x, chunks=(2, 3))
    with dask.config.set(scheduler="synchronous"):
        out = dask_transform(Narrow(root=3), X)
        assert out.dtype == np.float32
        assert out.shape == (4, 2)
        assert out.chunks == ((2, 2), (2,))
        got = out.compute()
    assert got.dtype == np.float32
    assert got.shape == (4, 2)


def test_the_release_dtype_is_declared_and_computed_on_frames():
    frame = pd.DataFrame({"u": np.arange(5.0), "v": np.arange(5.0)})
    with dask.config.set(scheduler="synchronous"):
        out = dask_transform(Narrow(root=3), dd.from_pandas(frame, npartitions=2))
        assert (out.dtypes == np.float32).all()
        assert len(out._meta) == 0
        got = out.compute()
    assert (got.dtypes == np.float32).all()


def test_empty_blocks_have_the_output_width():
    seq = np.random.SeedSequence(1)
    out = _array_block(
        np.empty((0, 3)), Narrow(), seq, np.float32, [0], 2, block_id=(0, 0)
    )
    assert out.shape == (0, 2) and out.dtype == np.float32
    part = pd.DataFrame({"x": np.empty(0), "y": np.empty(0), "z": np.empty(0)})
    out = _frame_block(
        part, pd.Series([], dtype=int), Narrow(), seq, np.float32, ["p", "q"]
    )
    assert out.shape == (0, 2)
    assert list(out.columns) == ["p", "q"]


def test_twin_privatizers_on_other_data_in_one_compute_keep_their_own_graphs():
    # two instances with one seed draw the same call root; their releases
    # of different data must not share graph keys (one would replace the
    # other in a joint compute)
    x1 = np.random.default_rng(0).uniform(0, 10, (8, 1))
    x2 = x1 + 1.0
    p1 = LaplaceLDP(epsilon=1, bounds=(0, 11), random_state=5).fit(x1)
    p2 = LaplaceLDP(epsilon=1, bounds=(0, 11), random_state=5).fit(x1)
    a1 = p1.transform(da.from_array(x1, chunks=(4, 1)))
    a2 = p2.transform(da.from_array(x2, chunks=(4, 1)))
    assert a1.name != a2.name
    with dask.config.set(scheduler="synchronous"):
        r1, r2 = dask.compute(a1, a2)
        q1 = LaplaceLDP(epsilon=1, bounds=(0, 11), random_state=5).fit(x1)
        alone = q1.transform(da.from_array(x2, chunks=(4, 1))).compute()
    np.testing.assert_array_equal(r2, alone)
    assert not np.array_equal(r1, r2)
    f1 = p1.transform(dd.from_pandas(pd.DataFrame({"x": x1[:, 0]}), npartitions=2))
    f2 = p2.transform(dd.from_pandas(pd.DataFrame({"x": x2[:, 0]}), npartitions=2))
    assert f1._name != f2._name


@pytest.mark.parametrize("seeded", [False, True])
def test_a_partition_whose_rows_changed_draws_other_noise(seeded):
    # A source rewritten between two computations of the same lazy release
    # (here a loader reading a table that changes in between): the same
    # stream on both versions would release their difference exactly.
    x = np.random.default_rng(1).uniform(0, 10, (6, 1))
    kept = x.copy()
    source = {"table": x}

    def load(i):
        return source["table"][3 * i : 3 * i + 3].copy()

    X = da.concatenate(
        [
            da.from_delayed(dask.delayed(load)(i), shape=(3, 1), dtype=float)
            for i in range(2)
        ]
    )
    state = 3 if seeded else None
    priv = LaplaceLDP(epsilon=1, bounds=(0, 10), random_state=state).fit(kept)
    with dask.config.set(scheduler="synchronous"):
        lazy = priv.transform(X)
        z1 = lazy.compute()
        np.testing.assert_array_equal(lazy.compute(), z1)  # same rows: same release
        x = x.copy()
        x[4, 0] += 1.0  # one row of the second partition changes
        source["table"] = x
        z2 = lazy.compute()
    np.testing.assert_array_equal(z2[:3], z1[:3])  # the first partition is unchanged
    noise1, noise2 = z1[3:, 0] - kept[3:, 0], z2[3:, 0] - x[3:, 0]
    assert np.all(np.abs(noise1 - noise2) > 1e-6)


@pytest.mark.parametrize("secure", [False, True])
def test_a_refit_does_not_reach_a_lazy_release(secure):
    # The graph holds the privatizer as it was at the call: recomputing after
    # a refit at another epsilon replays the first release instead of adding
    # the same stream at another scale (which gives x back exactly:
    # x = (b2 y1 - b1 y2) / (b2 - b1)).
    x = np.random.default_rng(2).uniform(0, 100, (8, 1))
    X = da.from_array(x, chunks=(4, 1))
    priv = LaplaceLDP(epsilon=1, bounds=(0, 100), secure=secure).fit(x)
    with dask.config.set(scheduler="synchronous"):
        lazy = priv.transform(X)
        y1 = lazy.compute()
        priv.set_params(epsilon=2).fit(x)
        y2 = lazy.compute()
        fresh = priv.transform(X).compute()
    np.testing.assert_array_equal(y2, y1)
    b1, b2 = 100.0, 50.0
    recovered = (b2 * fresh - b1 * y1) / (b2 - b1)
    assert np.min(np.abs(recovered - x)) > 1e-3  # a new call: independent noise


def test_the_graph_releases_with_a_copy_taken_at_the_call():
    x = np.arange(8.0).reshape(4, 2)
    X = da.from_array(x, chunks=(2, 2))
    priv = Scripted(root=6)
    with dask.config.set(scheduler="synchronous"):
        lazy = dask_transform(priv, X)
        priv.names[:] = ["changed"]  # a change in place, after the call
        got = lazy.compute()
    assert priv.generator_reasons == ["dask release"]  # drawn on the caller's object
    assert len(priv.calls) == 2  # by a copy sharing only the call log
    np.testing.assert_array_equal(got, _expected_release(x, (2, 2), 6))


def test_partition_seed_keeps_the_pool_size_of_the_call():
    seq = np.random.SeedSequence(5, pool_size=8)
    seed = partition_seed(seq, 2, np.ones((2, 1)))
    assert seed.pool_size == 8
    assert len(seed.generate_state(1)) == 1


@pytest.mark.parametrize("state", [None, 6])
def test_a_selected_partition_is_released_with_the_noise_of_the_whole(state):
    # dask renumbers the partitions it selects; a stream keyed by the
    # partition's number gave a selected partition fresh noise, and the
    # average of two computations of the same rows halves the noise variance
    rng = np.random.default_rng(12)
    frame = pd.DataFrame({"a": rng.uniform(0, 10, 60), "b": rng.uniform(0, 10, 60)})
    priv = LaplaceLDP(epsilon=1, bounds=(0, 10), random_state=state).fit(frame)
    out = priv.transform(dd.from_pandas(frame, npartitions=6))
    with dask.config.set(scheduler="synchronous"):
        whole = out.compute()
        for part in (
            out.partitions[2],
            out.partitions[[1, 4]],
            out.get_partition(3),
            out.loc[25:44],
        ):
            got = part.compute()
            assert len(got) > 0
            pd.testing.assert_frame_equal(got, whole.loc[got.index])
        pd.testing.assert_frame_equal(out.tail(4), whole.iloc[-4:])
        values = frame.to_numpy()
        priv = LaplaceLDP(epsilon=1, bounds=(0, 10), random_state=state).fit(values)
        lazy = priv.transform(da.from_array(values, chunks=(10, 2)))
        z = lazy.compute()
        np.testing.assert_array_equal(lazy.blocks[3].compute(), z[30:40])
        np.testing.assert_array_equal(lazy[35:52].compute(), z[35:52])
    if state is None:  # another call: another release
        assert not np.array_equal(z, whole.to_numpy())
    else:  # the same seed and the same rows in each partition: the same one
        np.testing.assert_array_equal(z, whole.to_numpy())


def test_an_empty_array_chunk_releases_no_row_at_the_output_width():
    # two columns in, four out (each value becomes an interval): the empty
    # chunk's release has the output's width, not the input's
    from skprivate.interval import IntervalCaseI

    x = np.random.default_rng(13).normal(size=(30, 2))
    priv = IntervalCaseI(random_state=0).fit(x)
    with dask.config.set(scheduler="synchronous"):
        lazy = priv.transform(da.from_array(x, chunks=((10, 0, 20), 2)))
        got = lazy.compute()
    assert got.shape == (30, 4)
    assert lazy.chunks == ((10, 0, 20), (4,))


def test_a_lazy_complex_array_is_refused_by_its_dtype():
    # refused when the release is built, by its dtype (its blocks would race
    # to name a row, and a block of numbers with no imaginary part names none)
    import re

    da = pytest.importorskip("dask.array")
    fitted = LaplaceLDP(bounds=(0, 10), random_state=0).fit(np.ones((4, 1)))
    lazy = da.from_array(np.array([[1.0], [2.0 + 1j], [3.0], [4.0]]), chunks=2)
    with pytest.raises(
        ValueError,
        match="^"
        + re.escape(
            "X must be numeric; got dtype complex128 (Complex data not supported)."
        )
        + "$",
    ):
        fitted.transform(lazy)
