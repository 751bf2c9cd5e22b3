"""Dask collections in privatizers and learners, without importing dask eagerly.

A dask array or DataFrame given to a privatizer's ``transform`` is privatized
lazily, block by block (``map_blocks`` / ``map_partitions``), and the result
is the same lazy type.  Each block draws from its own random stream: the
*call's* stream (the privatizer's next stream, see
:class:`skprivate.base.PrivatizerMixin`) draws a 256-bit root, and the
block whose first row is row ``r`` of the collection uses child ``r`` of
that root (:func:`call_seed`, :func:`block_seed`) with a fingerprint of the
block's rows mixed in, seeded or not.  The key is the first row, not the
block's number: dask renumbers the partitions it selects (``partitions[i]``,
``get_partition``, ``tail``, ``loc`` on known divisions), and a key that
moved with the selection would release a selected partition's rows with
other noise than the whole result.  The lazy
result holds a copy of the privatizer as it was at the ``transform`` call,
so

* computing the same lazy result twice gives the same noise (a lazy release
  that changed every time it was computed would leak the data through the
  average of its computations), and a partition recomputed after a lost
  worker adds no new noise;
* a partition whose rows changed between two computations (a source file
  rewritten in between) draws other noise: the same stream on two versions
  of the data would release their differences exactly;
* refitting the privatizer with other settings (another ``epsilon``, other
  bounds) after the call does not reach the lazy result, which keeps
  releasing at the settings of its call: the same stream at two noise
  scales would give the data back by a linear combination;
* a fixed int ``random_state`` gives the same release on any number of
  workers and with any chunking of the columns, as long as the row
  partitions hold the same rows, and independent noise on other rows (the
  same seed on another month's data, or the same data in other row
  partitions);
* two ``transform`` calls draw fresh noise.

A learner whose estimate depends on its rows through a statistic that
merges (:class:`skprivate.utils._statistic.RowStatistic`) is fitted by
:func:`reduce_collection`: the statistic of every row partition is computed
on the workers, with the partition's first row number, and the values are
merged in a tree.  What to privatize, to summarize or to count comes from
the estimators' own hooks (``_transform_with_seed``, ``_fit_summary``,
``_release_dtype``, the statistic's ``block`` and ``merge``): nothing here
knows a family.

Nothing here imports dask at import time: a collection can only be a dask
collection when dask has been imported by whoever built it.
"""

from __future__ import annotations

import copy
import operator
import sys
from typing import Any

import numpy as np

from ._seeding import data_fingerprint, words

__all__ = [
    "block_seed",
    "call_seed",
    "dask_transform",
    "describe_collection",
    "fit_sample",
    "is_dask_collection",
    "partition_seed",
    "reduce_collection",
]

#: Values merged at a time in the tree of :func:`reduce_collection`.
SPLIT_EVERY = 8


def is_dask_collection(X: Any) -> bool:
    """Whether ``X`` is a dask collection (array, DataFrame, Series, ...).

    Never imports dask: if dask has not been imported, nothing is a dask
    collection.

    Parameters
    ----------
    X : object
        Anything.

    Returns
    -------
    bool

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils._dask import is_dask_collection
    >>> is_dask_collection(np.zeros(3))
    False
    """
    if "dask" not in sys.modules:
        return False
    from dask.base import is_dask_collection as _is_dask

    return bool(_is_dask(X))


def _is_dask_frame(X: Any) -> bool:
    import dask.dataframe as dd

    return isinstance(X, dd.DataFrame | dd.Series)


# -- random streams -----------------------------------------------------------
def call_seed(privatizer: Any) -> np.random.SeedSequence:
    """The seed sequence of one release call of ``privatizer`` on a collection.

    The call's generator (:meth:`PrivatizerMixin._next_generator`) draws 256
    bits that root the call's partition streams.  Those roots are drawn, not
    derived from the call's own seed sequence, so no partition shares noise
    with another release.  The data enter per partition (see
    :func:`dask_transform`), where they are known.

    Parameters
    ----------
    privatizer : PrivatizerMixin
        A fitted privatizer.

    Returns
    -------
    numpy.random.SeedSequence
    """
    rng = privatizer._next_generator("dask release")
    return np.random.SeedSequence([int(e) for e in rng.integers(0, 2**63, size=4)])


def block_seed(seq: np.random.SeedSequence, position: int) -> np.random.SeedSequence:
    """Child ``position`` of ``seq``, as ``seq.spawn`` would give it.

    Computed directly from the position, so that it does not depend on how
    many blocks there are nor on the order in which they are computed.

    Parameters
    ----------
    seq : numpy.random.SeedSequence
        Seed of the call.
    position : int
        Position of the block (row partition) in the collection.

    Returns
    -------
    numpy.random.SeedSequence

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils._dask import block_seed
    >>> seq = np.random.SeedSequence(0)
    >>> block_seed(seq, 3).generate_state(2).tolist() == (
    ...     np.random.SeedSequence(0).spawn(4)[3].generate_state(2).tolist()
    ... )
    True
    """
    return np.random.SeedSequence(
        seq.entropy,
        spawn_key=(*seq.spawn_key, int(position)),
        pool_size=seq.pool_size,
    )


# -- privatizers ----------------------------------------------------------------
def partition_seed(
    seq: np.random.SeedSequence, position: int, block: Any
) -> np.random.SeedSequence:
    """The seed of the partition keyed ``position`` holding the rows ``block``.

    Child ``position`` of the call's ``seq`` (as :func:`block_seed`), with a
    fingerprint of the partition's rows mixed into its entropy, seeded
    privatizer or not: a partition recomputed from the same rows gets the
    same seed, hence the same release, and one whose rows changed between
    two computations (a source rewritten in between) gets another, so no
    stream is shared by two versions of the data.

    Parameters
    ----------
    seq : numpy.random.SeedSequence
        Seed of the call (:func:`call_seed`).
    position : int
        The partition's key: its first row in the collection (a number that
        a selection of partitions does not change).
    block : array-like
        The partition's raw rows.

    Returns
    -------
    numpy.random.SeedSequence

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils._dask import partition_seed
    >>> seq = np.random.SeedSequence(0)
    >>> a = partition_seed(seq, 1, np.array([[1.0], [2.0]])).generate_state(1)
    >>> b = partition_seed(seq, 1, np.array([[1.0], [2.5]])).generate_state(1)
    >>> bool(a[0] != b[0])
    True
    """
    child = block_seed(seq, position)
    fingerprint = data_fingerprint(np.asarray(block))
    return np.random.SeedSequence(
        [*np.atleast_1d(seq.entropy).tolist(), *words(fingerprint)],
        spawn_key=child.spawn_key,
        pool_size=child.pool_size,
    )


def _privatize_block(block, privatizer, seq, dtype, first_row, width):
    # One partition with its own stream (partition_seed): a recomputed
    # partition of the same rows gets the same seed, hence the same release.
    if len(block) == 0:  # an empty partition releases nothing
        return np.empty((0, width), dtype=dtype)
    seed = partition_seed(seq, first_row, block)
    released = privatizer._transform_with_seed(block, seed, first_row=first_row)
    return np.asarray(released, dtype=dtype)


# A block's stream is keyed by its first row in the collection (see the
# module docstring); two non-empty blocks never share one.
def _array_block(block, privatizer, seq, dtype, first_rows, width, block_id=None):
    first_row = first_rows[block_id[0]]
    return _privatize_block(block, privatizer, seq, dtype, first_row, width)


def _frame_block(part, first, privatizer, seq, dtype, names):
    import pandas as pd

    first_row = int(first.iloc[0]) if len(first) else 0
    out = _privatize_block(part, privatizer, seq, dtype, first_row, len(names))
    # The rows' positions in the collection, never X's labels: an index of
    # identifiers or of a raw value (set_index("income")) would leave as it is.
    index = pd.RangeIndex(first_row, first_row + len(out))
    return pd.DataFrame(out, columns=names, index=index)


def _first_rows(lengths: Any) -> list[int]:
    return np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(int).tolist()


def dask_transform(privatizer: Any, X: Any, **kwargs: Any) -> Any:
    """Privatize a dask array or DataFrame lazily, one stream per block.

    Every row partition is released by the privatizer's
    ``_transform_with_seed`` with the partition's seed (see the module
    docstring).

    Parameters
    ----------
    privatizer : PrivatizerMixin
        A fitted privatizer.
    X : dask.array.Array or dask.dataframe.DataFrame
        Raw records, 2-D.  Array columns are gathered in one chunk; the row
        chunks (partitions) are the unit of randomness.
    **kwargs
        Extra ``transform`` arguments; none is supported with dask input.

    Returns
    -------
    dask.array.Array or dask.dataframe.DataFrame
        Same lazy type as ``X`` (an array with unknown row chunks has their
        sizes computed first, one pass over its rows; a refused value is
        named by its row in the whole collection); DataFrame columns are named by
        ``get_feature_names_out`` and all have the privatizer's output dtype
        (its ``_release_dtype``).  A released DataFrame is indexed by the
        rows' positions in the collection (``0 .. n - 1``, divisions
        unknown), never by ``X``'s index, whose labels (identifiers, a raw
        value set as the index) would leave unprivatized.
    """
    from dask.base import tokenize
    from sklearn.utils.validation import check_is_fitted

    name = type(privatizer).__name__
    if kwargs:
        raise ValueError(
            f"{name}.transform of a dask collection takes no other argument; "
            f"got {sorted(kwargs)}."
        )
    check_is_fitted(privatizer)
    dtype = np.dtype(privatizer._release_dtype)
    names = [str(c) for c in privatizer.get_feature_names_out()]
    seq = call_seed(privatizer)  # advances the caller's privatizer, not a copy
    # The lazy release is that of the privatizer as it is at this call: the
    # graph holds a copy, so a refit with other settings (or bounds) cannot
    # put the call's streams at another noise scale.
    privatizer = copy.deepcopy(privatizer)
    token = tokenize(X, name, seq.entropy, seq.spawn_key, names)
    if _is_dask_frame(X):
        import pandas as pd

        if X.ndim == 1:
            X = X.to_frame()
        meta = pd.DataFrame({c: np.empty(0, dtype=dtype) for c in names})
        # first row of every partition (one small scan of the lengths), so
        # that a refused value is named by its row in the whole data
        lengths = X.map_partitions(len)
        released = X.map_partitions(
            _frame_block,
            lengths.cumsum() - lengths,
            privatizer,
            seq,
            dtype,
            names,
            meta=meta,
            token=f"privatize-{name}-{token}",
            enforce_metadata=False,
            align_dataframes=False,
        )
        # X's divisions are its raw labels (the first and last of each
        # partition): the release is indexed by position and has none known
        return released.clear_divisions()
    if X.dtype.kind == "c":
        # refused by its dtype, as a lazy frame's column is: the blocks would
        # race to name a row, and a block of numbers with no imaginary part
        # names none
        raise ValueError(
            f"X must be numeric; got dtype {X.dtype} (Complex data not supported)."
        )
    if X.ndim != 2:
        raise ValueError(
            f"X must be a 2-D dask array (n_samples, n_features) for {name}; got "
            f"{X.ndim} dimensions. Reshape a single column with X[:, None]."
        )
    if X.numblocks[1] != 1:
        X = X.rechunk({1: -1})
    if any(np.isnan(c) for c in X.chunks[0]):  # unknown row chunks: their lengths
        X = X.compute_chunk_sizes()
    return X.map_blocks(
        _array_block,
        privatizer,
        seq,
        dtype,
        _first_rows(X.chunks[0]),
        len(names),
        dtype=dtype,
        chunks=(X.chunks[0], (len(names),)),
        meta=np.empty((0, 0), dtype=dtype),
        name=f"privatize-{name}-{token}",
    )


def fit_sample(X: Any, summary: str | None, column_range: Any = None) -> Any:
    """A few rows carrying what a privatizer's ``fit`` reads, by one reduction.

    Fitted on these rows, a privatizer equals the one fitted on all the
    rows in memory, and no row is collected on the client.

    Parameters
    ----------
    X : dask.array.Array or dask.dataframe.DataFrame
        Raw records.
    summary : {None, "range", "distinct"}
        What ``fit`` reads from the values (the privatizer's
        ``_fit_summary()``): nothing but the columns (the first rows of the
        first partition are returned), each column's minimum and maximum
        (two rows), or each column's distinct values (as many rows as the
        longest list, shorter columns padded with their first value).
    column_range : RowStatistic
        For ``summary="range"``: the statistic whose value is each column's
        ``(lows, highs)`` (``None`` without rows), computed partition by
        partition with :func:`reduce_collection`.  Its ``block`` validates
        the partition's rows as the in-memory ``fit`` validates the data,
        naming a refused value by its row in the whole collection (the
        caller's :class:`~skprivate.utils._statistic.FiniteRange`); an
        empty partition adds nothing.

    Returns
    -------
    ndarray or pandas.DataFrame
        The rows, of the same kind and column types as ``X``.
    """
    import dask

    frame = _is_dask_frame(X)
    if frame and X.ndim == 1:
        X = X.to_frame()
    if summary == "range":
        if column_range is None:
            raise ValueError("summary='range' needs the column_range statistic.")
        found, _ = reduce_collection(X, column_range)
        if found is None:  # no row at all: fit refuses it as in memory
            summary = None
        else:
            cols = [np.array([lo, hi]) for lo, hi in zip(*found)]
    if summary is None:
        if frame:  # the first rows, past empty partitions
            return X.head(8, npartitions=-1)
        if any(np.isnan(c) for c in X.chunks[0]):
            X = X.compute_chunk_sizes()
        return X[:8].compute()
    if summary == "distinct":
        if frame:
            columns = [X[c].drop_duplicates() for c in X.columns]
        else:
            import dask.array as da

            columns = [da.unique(X[:, j]) for j in range(X.shape[1])]
        values = [np.unique(np.asarray(v)) for v in dask.compute(*columns)]
        size = max(v.size for v in values)
        cols = [np.concatenate([v, np.repeat(v[:1], size - v.size)]) for v in values]
    elif summary != "range":
        raise ValueError(
            f"summary must be None, 'range' or 'distinct'; got {summary!r}."
        )
    if frame:
        import pandas as pd

        sample = pd.DataFrame(dict(zip(X.columns, cols)))
        return sample.astype(X.dtypes.to_dict())
    if X.ndim == 1:  # refused by fit as in memory, not read as one column
        return cols[0].astype(X.dtype)
    return np.column_stack(cols).astype(X.dtype)


# -- statistics of rows ---------------------------------------------------------
def describe_collection(X: Any) -> tuple[int, Any]:
    """Column count and column names (``None`` unless all are strings).

    Parameters
    ----------
    X : dask.array.Array or dask.dataframe.DataFrame
        A 2-D collection.

    Returns
    -------
    n_features : int
    names : ndarray of object or None
    """
    if X.ndim != 2:
        raise ValueError(
            f"Expected a 2-D dask collection (n_samples, n_features); got {X.ndim} "
            "dimension(s). Reshape a single column with X[:, None] (an array) "
            "or X.to_frame() (a Series)."
        )
    if not _is_dask_frame(X):
        return int(X.shape[1]), None
    names = np.asarray(X.columns, dtype=object)
    if all(isinstance(c, str) for c in names):
        return int(names.size), names
    return int(names.size), None


class _Failure:
    """A block's error, carried to the client and raised there.

    Errors travel as values so that, among failing blocks, the one holding
    the first rows is reported whichever the workers finish first: the same
    error as one block of all the rows in memory.
    """

    def __init__(self, first_row: int, error: Exception) -> None:
        self.first_row = first_row
        self.error = error


class _Empty:
    """An empty partition: it adds nothing to the statistic."""

    def __init__(self, block: Any) -> None:
        self.block = block


def _leaf(statistic, block, first_row):
    if len(block) == 0:
        return _Empty(block)
    try:
        return statistic.merge([statistic.block(block, first_row)]), len(block)
    except (ValueError, TypeError) as error:
        return _Failure(first_row, error)


def _merge(statistic, *parts):
    failures = [p for p in parts if isinstance(p, _Failure)]
    if failures:
        return min(failures, key=lambda f: f.first_row)
    found = [p for p in parts if not isinstance(p, _Empty)]
    if not found:
        return parts[0]
    value = statistic.merge([value for value, _ in found])
    return value, sum(n for _, n in found)


def _row_blocks(X: Any) -> tuple[list, list]:
    """One delayed in-memory block per row partition, and its first row.

    First rows are known ints when the row chunks are known, else delayed
    sums of the lengths of the blocks before (computed with the blocks, in
    the same pass).
    """
    import dask

    if _is_dask_frame(X):
        blocks = list(X.to_delayed())
        lengths = None
    else:
        if X.ndim > 2:
            raise ValueError(
                f"X must be 1-D or 2-D; got a dask array of shape {X.shape}."
            )
        if X.ndim == 2 and X.numblocks[1] != 1:
            X = X.rechunk({1: -1})
        blocks = list(np.ravel(X.to_delayed()))
        lengths = X.chunks[0]
    if lengths is not None and not any(np.isnan(c) for c in lengths):
        first_rows = np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(int).tolist()
        return blocks, first_rows
    size = dask.delayed(len, pure=True)
    add = dask.delayed(operator.add, pure=True)
    first_rows = [0]
    for block in blocks[:-1]:
        first_rows.append(add(first_rows[-1], size(block)))
    return blocks, first_rows


def reduce_collection(X: Any, statistic: Any) -> Any:
    """The value of a row statistic over a dask collection.

    Every row partition's value is computed on the workers from the
    partition and its first row number (``statistic.block``, then
    ``statistic.merge`` of that one value, which compacts it before it
    travels), and the values are merged ``SPLIT_EVERY`` at a time in a
    tree, so neither the client nor a worker holds more than a few values.

    Parameters
    ----------
    X : dask.array.Array or dask.dataframe.DataFrame or Series
        The rows (a 2-D array's columns are gathered in one chunk).
    statistic : RowStatistic
        What to compute.

    Returns
    -------
    value : object
    n_rows : int
        Number of rows.

    Raises
    ------
    ValueError, TypeError
        The error of the first failing partition (in row order).
    """
    import dask

    blocks, first_rows = _row_blocks(X)
    shared = dask.delayed(statistic, pure=True)
    leaf = dask.delayed(_leaf, pure=True)
    merge = dask.delayed(_merge, pure=True)
    values = [leaf(shared, b, r) for b, r in zip(blocks, first_rows)]
    while len(values) > 1:
        values = [
            merge(shared, *values[i : i + SPLIT_EVERY])
            for i in range(0, len(values), SPLIT_EVERY)
        ]
    (result,) = dask.compute(values[0])
    if isinstance(result, _Failure):
        raise result.error
    if isinstance(result, _Empty):  # no row at all: the statistic says what then
        return statistic.merge([statistic.block(result.block, 0)]), 0
    return result
