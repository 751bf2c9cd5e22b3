"""Bounds read from a dask collection: the in-memory fit, errors and all.

A privatizer fitted without ``bounds`` reads each column's range.  On a dask
collection the range is a row statistic computed partition by partition,
each partition checked as the in-memory ``fit`` checks the data, so a bad
value gets the in-memory error naming its row in the whole collection, and
an empty partition adds nothing.  No cluster: dask's synchronous scheduler.
"""

import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from skprivate import LaplaceLDP, RVNSPerturber
from skprivate.ldp import GeneralizedGaussianLDP, SquareWaveLDP
from skprivate.utils._statistic import FiniteRange, reduce_rows

dask = pytest.importorskip("dask")
da = pytest.importorskip("dask.array")
dd = pytest.importorskip("dask.dataframe")

PRIVATIZERS = [
    LaplaceLDP(epsilon=1),
    SquareWaveLDP(epsilon=1),
    RVNSPerturber(d=2.0, k=2),
    GeneralizedGaussianLDP(epsilon=1),
]
IDS = [type(p).__name__ for p in PRIVATIZERS]
PARTS = (700, 0, 1300, 1000)  # uneven, with an empty partition


@pytest.fixture(autouse=True)
def _synchronous():
    with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bounds read from data: a leak warning
        yield


def _frame(bad=None):
    rng = np.random.default_rng(0)
    frame = pd.DataFrame(
        {"age": rng.uniform(0, 10, 3000), "score": rng.uniform(0, 10, 3000)}
    )
    if bad is not None:
        if isinstance(bad, str):
            frame = frame.astype({"score": object})
        frame.iloc[1234, 1] = bad
    return frame


def _lazy(frame):
    arr = frame.to_numpy()
    bounds = np.cumsum((0, *PARTS))
    pieces = [frame.iloc[bounds[i] : bounds[i + 1]] for i in range(len(PARTS))]
    return {
        "array-even": da.from_array(arr, chunks=(500, 2)),
        "array-empty-chunk": da.from_array(arr, chunks=(PARTS, 2)),
        "frame": dd.from_pandas(frame, npartitions=6, sort=False),
        "frame-empty-partition": dd.from_delayed(
            [dask.delayed(p) for p in pieces], meta=frame.iloc[:0]
        ),
    }


def _in_memory(lazy, frame):
    return frame if hasattr(lazy, "columns") else frame.to_numpy()


def _error(privatizer, X):
    """The refusal of ``fit(X)`` by a clone of ``privatizer``."""
    with pytest.raises((ValueError, TypeError)) as info:
        clone(privatizer).fit(X)
    return info.value


@pytest.mark.parametrize("privatizer", PRIVATIZERS, ids=IDS)
def test_bounds_from_a_collection_are_the_in_memory_bounds(privatizer):
    frame = _frame()
    eager = clone(privatizer).fit(frame.to_numpy())
    for label, X in _lazy(frame).items():
        lazy = clone(privatizer).fit(X)
        for got, want in zip(lazy.bounds_, eager.bounds_):
            np.testing.assert_array_equal(got, want, err_msg=label)


@pytest.mark.parametrize("privatizer", PRIVATIZERS, ids=IDS)
@pytest.mark.parametrize("bad", [np.nan, np.inf, -np.inf], ids=["nan", "inf", "-inf"])
def test_a_non_finite_value_gets_the_in_memory_error(privatizer, bad):
    frame = _frame(bad)
    for label, X in _lazy(frame).items():
        want = _error(privatizer, _in_memory(X, frame))
        got = _error(privatizer, X)
        assert "row 1234" in str(want), label
        assert type(got) is type(want), label
        assert str(got) == str(want), label


@pytest.mark.parametrize("privatizer", PRIVATIZERS, ids=IDS)
def test_a_string_gets_the_in_memory_error_without_its_value(privatizer):
    frame = _frame("secret")
    arr = frame.to_numpy()
    want = _error(privatizer, arr)
    for chunks in [(500, 2), (PARTS, 2)]:
        got = _error(privatizer, da.from_array(arr, chunks=chunks))
        assert type(got) is TypeError
        assert str(got) == str(want)
        assert "row 1234" in str(got)
    # dask stores an object column of a frame as strings: the column is named
    lazy = dd.from_pandas(frame, npartitions=6, sort=False)
    got = _error(privatizer, lazy)
    assert type(got) is TypeError
    assert "'score' must be numeric" in str(got)
    assert "secret" not in str(got)


def test_a_collection_without_rows_is_refused_as_in_memory():
    empty = np.empty((0, 2))
    want = _error(LaplaceLDP(epsilon=1), empty)
    got = _error(LaplaceLDP(epsilon=1), da.from_array(empty))
    assert type(got) is type(want)
    assert str(got) == str(want)


def test_the_column_range_statistic_merges_blocks():
    x = np.array([[1.0, 5.0], [3.0, -2.0], [2.0, 7.0]])
    statistic = FiniteRange(columns=True)
    lows, highs = statistic.merge(
        [statistic.block(x[:1], 0), None, statistic.block(x[1:], 1)]
    )
    assert lows.tolist() == [1.0, -2.0] and highs.tolist() == [3.0, 7.0]
    # without finite=True, non-finite values are left out, per column
    y = np.array([[np.nan, 1.0], [np.inf, 2.0]])
    lows, highs = statistic.block(y, 0)
    assert lows.tolist() == [np.inf, 1.0] and highs.tolist() == [-np.inf, 2.0]
    with pytest.raises(ValueError, match="NaN at row 10, column 0"):
        FiniteRange(columns=True, finite=True).block(y, 10)
    lows, highs = reduce_rows(da.from_array(x, chunks=((1, 0, 2), 2)), statistic)
    assert lows.tolist() == [1.0, -2.0] and highs.tolist() == [3.0, 7.0]
