"""Dask collections in privatizers and learners, without importing dask eagerly.

A dask array or DataFrame given to a privatizer's ``transform`` is privatized
lazily, block by block (``map_blocks`` / ``map_partitions``), and the result
is the same lazy type.  Each block draws from its own random stream: the
*call's* stream (the privatizer's next stream, see
:class:`skprivate.base.PrivatizerMixin`) draws a 256-bit root, and block
``i`` uses child ``i`` of that root (:func:`call_seed`, :func:`block_seed`),
with a fingerprint of the block's rows mixed in when the privatizer is
seeded, so

* computing the same lazy result twice gives the same noise (a lazy release
  that changed every time it was computed would leak the data through the
  average of its computations), and a partition recomputed after a lost
  worker adds no new noise;
* a fixed int ``random_state`` gives the same release on any number of
  workers and with any chunking of the columns, as long as the row
  partitions hold the same rows, and independent noise on other rows (the
  same seed on another month's data, or the same data in other row
  partitions);
* two ``transform`` calls draw fresh noise.

Learners whose sufficient statistics merge are fitted from per-partition
statistics computed on the workers (see :mod:`skprivate.utils._dask_fit`);
the others refuse dask input with a :class:`TypeError` naming those that
accept it.

Nothing here imports dask at import time: a collection can only be a dask
collection when dask has been imported by whoever built it.
"""

from __future__ import annotations

import functools
import sys
from typing import Any

import numpy as np

from ._seeding import data_fingerprint, words

__all__ = [
    "DASK_LEARNERS",
    "add_dask_dispatch",
    "block_seed",
    "call_seed",
    "dask_fit",
    "dask_fit_privatizer",
    "dask_laplace_statistic",
    "dask_transform",
    "is_dask_collection",
]

# Learners whose fit accepts a dask array or DataFrame (documented in the
# user guide, "Data larger than memory: dask").
DASK_LEARNERS = (
    "SubsetDistributionEstimator",
    "DeconvolutionKernelDensity",
    "RVNSDensityEstimator",
    "IntervalNPMLE",
    "IntervalMLE",
)
# Functions accepting a dask array (and the statistics they merge).
DASK_FUNCTIONS = ('laplace_statistic (statistic="count", "sum", "mean", "var", "std")',)


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
def _output_dtype(privatizer: Any) -> np.dtype:
    # Subset mechanisms release 0/1 indicators; every other one floats.
    from ..subset._mechanism import _BaseSubsetPrivatizer

    if isinstance(privatizer, _BaseSubsetPrivatizer):
        return np.dtype(np.int8)
    return np.dtype(np.float64)


def _privatize_block(block, privatizer, seq, dtype, position):
    # One partition with its own stream: block_seed of the call's seed and the
    # partition's position, plus a fingerprint of the partition's rows when the
    # privatizer is seeded (the same seed on other data draws other noise).
    # A recomputed partition gets the same seed, hence the same release.
    seed = block_seed(seq, position)
    if privatizer._is_seeded():
        fingerprint = data_fingerprint(np.asarray(block))
        seed = np.random.SeedSequence(
            [*np.atleast_1d(seq.entropy).tolist(), *words(fingerprint)],
            spawn_key=(*seq.spawn_key, int(position)),
        )
    released = privatizer._transform_with_seed(block, seed, _raw_transform)
    return np.asarray(released, dtype=dtype)


def _raw_transform(privatizer: Any, X: Any) -> Any:
    # The undecorated transform: returns arrays whatever set_output says.
    method = type(privatizer).transform
    while hasattr(method, "__wrapped__"):
        method = method.__wrapped__
    return method(privatizer, X)


def _array_block(block, privatizer, seq, dtype, block_id=None):
    return _privatize_block(block, privatizer, seq, dtype, block_id[0])


def _frame_block(part, privatizer, seq, dtype, names, partition_info=None):
    import pandas as pd

    position = partition_info["number"] if partition_info else 0
    out = _privatize_block(part, privatizer, seq, dtype, position)
    return pd.DataFrame(out, columns=names, index=part.index)


def dask_transform(privatizer: Any, X: Any, **kwargs: Any) -> Any:
    """Privatize a dask array or DataFrame lazily, one stream per block.

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
        Same lazy type as ``X``; DataFrame columns are named by
        ``get_feature_names_out`` and all have the privatizer's output dtype
        (``float64``, or ``int8`` for subset indicators).
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
    dtype = _output_dtype(privatizer)
    names = [str(c) for c in privatizer.get_feature_names_out()]
    seq = call_seed(privatizer)
    token = tokenize(X, name, seq.entropy, seq.spawn_key, names)
    if _is_dask_frame(X):
        import pandas as pd

        if X.ndim == 1:
            X = X.to_frame()
        meta = pd.DataFrame({c: np.empty(0, dtype=dtype) for c in names})
        return X.map_partitions(
            _frame_block,
            privatizer,
            seq,
            dtype,
            names,
            meta=meta,
            token=f"privatize-{name}-{token}",
            enforce_metadata=False,
            align_dataframes=False,
        )
    if X.ndim != 2:
        raise ValueError(
            f"X must be a 2-D dask array (n_samples, n_features) for {name}; got "
            f"{X.ndim} dimensions. Reshape a single column with X[:, None]."
        )
    if X.numblocks[1] != 1:
        X = X.rechunk({1: -1})
    return X.map_blocks(
        _array_block,
        privatizer,
        seq,
        dtype,
        dtype=dtype,
        chunks=(X.chunks[0], (len(names),)),
        meta=np.empty((0, 0), dtype=dtype),
        name=f"privatize-{name}-{token}",
    )


def _needs_data(privatizer: Any) -> bool:
    return (
        "bounds" in privatizer.get_params(deep=False)
        and privatizer.get_params(deep=False)["bounds"] is None
    ) or (
        isinstance(privatizer.get_params(deep=False).get("categories"), str)
        and privatizer.categories == "auto"
    )


def _summary_sample(privatizer: Any, X: Any) -> Any:
    """A few rows carrying what ``fit`` reads from the data, by one reduction.

    Bounds from the data need each column's minimum and maximum (two rows);
    categories from the data need each column's distinct values (as many
    rows as the longest list, shorter columns padded with their first
    value).  Without either, the first rows of the first partition.
    """
    import dask

    from ..subset._mechanism import _BaseSubsetPrivatizer

    frame = _is_dask_frame(X)
    if frame and X.ndim == 1:
        X = X.to_frame()
    if not _needs_data(privatizer):
        return X.head(8) if frame else X[:8].compute()
    if isinstance(privatizer, _BaseSubsetPrivatizer):
        if frame:
            columns = [X[c].drop_duplicates() for c in X.columns]
        else:
            import dask.array as da

            columns = [da.unique(X[:, j]) for j in range(X.shape[1])]
        values = [np.unique(np.asarray(v)) for v in dask.compute(*columns)]
        size = max(v.size for v in values)
        cols = [np.concatenate([v, np.repeat(v[:1], size - v.size)]) for v in values]
    else:
        lows, highs = dask.compute(X.min(axis=0), X.max(axis=0))
        cols = [np.array([lo, hi]) for lo, hi in zip(np.ravel(lows), np.ravel(highs))]
    if frame:
        import pandas as pd

        sample = pd.DataFrame(dict(zip(X.columns, cols)))
        return sample.astype(X.dtypes.to_dict())
    return np.column_stack(cols).astype(X.dtype)


def dask_fit_privatizer(privatizer: Any, X: Any, y: Any = None) -> Any:
    """Fit ``privatizer`` on a dask collection without collecting its rows.

    Privatizers learn only their feature count and names, plus bounds or
    categories when asked to read them from the data: those come from one
    dask reduction (column minima and maxima, or distinct values), and the
    privatizer is fitted on the few rows that carry them, so the fitted
    privatizer equals the one fitted on all the rows in memory.

    Parameters
    ----------
    privatizer : PrivatizerMixin
        Unfitted or fitted privatizer (refitted).
    X : dask.array.Array or dask.dataframe.DataFrame
        Raw records.
    y : None
        Ignored.

    Returns
    -------
    privatizer : PrivatizerMixin
        Fitted.
    """
    return _call_unwrapped(privatizer, "fit", _summary_sample(privatizer, X))


def _call_unwrapped(obj: Any, method: str, *args: Any, **kwargs: Any) -> Any:
    return getattr(obj, method)(*args, **kwargs)


# -- learners -------------------------------------------------------------------
def _supported_message(owner: str, action: str = "fit") -> str:
    return (
        f"{owner}.{action} does not accept dask collections (its estimate needs "
        "all the records at once, or its statistics do not merge across "
        "partitions). Learners that fit a dask array or DataFrame from merged "
        f"per-partition statistics: {', '.join(DASK_LEARNERS)}; functions: "
        f"{', '.join(DASK_FUNCTIONS)}. Otherwise compute a sample that fits in "
        "memory first (X.sample(...).compute())."
    )


def dask_fit(estimator: Any, X: Any, y: Any = None, **kwargs: Any) -> Any:
    """Fit a learner on a dask collection from merged per-partition statistics.

    Parameters
    ----------
    estimator : estimator
        One of :data:`DASK_LEARNERS`.
    X : dask.array.Array or dask.dataframe.DataFrame
        Data in the learner's input format (raw data with ``privatizer=``).
    y : None
        Ignored.
    **kwargs
        Other ``fit`` arguments; none is supported with dask input.

    Returns
    -------
    estimator : estimator
        Fitted.

    Raises
    ------
    TypeError
        When the learner cannot be fitted this way; the message lists those
        that can.
    """
    from . import _dask_fit

    name = type(estimator).__name__
    fitter = _dask_fit.FITTERS.get(name)
    if fitter is None:
        raise TypeError(_supported_message(name))
    if y is not None or any(v is not None for v in kwargs.values()):
        raise ValueError(
            f"{name}.fit of a dask collection takes no y, sample_weight or other "
            f"argument; got {sorted(['y'] * (y is not None) + list(kwargs))}."
        )
    return fitter(estimator, X)


def dask_laplace_statistic(x: Any, *args: Any) -> float:
    """:func:`~skprivate.integral.laplace_statistic` of a dask collection.

    See :func:`skprivate.utils._dask_fit.dask_laplace_statistic`.

    Parameters
    ----------
    x : dask collection
        Values.
    *args
        The other arguments of ``laplace_statistic``, in order.

    Returns
    -------
    value : float
    """
    from . import _dask_fit

    return _dask_fit.dask_laplace_statistic(x, *args)


# -- dispatch -------------------------------------------------------------------
def _privatizer_method(name: str, method: Any) -> Any:
    @functools.wraps(method)
    def dispatch(self, X, *args, **kwargs):
        if not is_dask_collection(X):
            return method(self, X, *args, **kwargs)
        if name == "fit":
            return dask_fit_privatizer(self, X, *args, **kwargs)
        if name == "transform":
            return dask_transform(self, X, **kwargs)
        # fit_transform
        return dask_transform(dask_fit_privatizer(self, X, *args), X, **kwargs)

    dispatch._skprivate_dask = True
    return dispatch


def _learner_method(name: str, method: Any) -> Any:
    @functools.wraps(method)
    def dispatch(self, X, *args, **kwargs):
        if not is_dask_collection(X):
            return method(self, X, *args, **kwargs)
        if name == "fit":
            return dask_fit(self, X, *args, **kwargs)
        raise TypeError(
            f"{type(self).__name__}.{name} takes in-memory chunks; give the whole "
            "dask collection to fit, which merges per-partition statistics "
            "(supported by " + ", ".join(DASK_LEARNERS) + ")."
        )

    dispatch._skprivate_dask = True
    return dispatch


def add_dask_dispatch(cls: type, role: str) -> None:
    """Route dask input of ``cls``'s methods to the dask implementations.

    Called from ``__init_subclass__`` of the privatizer and learner mixins,
    so every subclass (a user's too) gets it.  The dispatcher is the
    outermost wrapper, above scikit-learn's ``set_output`` wrapper, which
    would otherwise turn a lazy result into an in-memory one.

    Parameters
    ----------
    cls : type
        The new class.
    role : {"privatizer", "learner"}
        Privatizers get ``fit``, ``transform`` and ``fit_transform`` routed;
        learners ``fit`` and ``partial_fit`` (the latter refuses dask input).
    """
    if role == "privatizer":
        names, make = ("fit", "transform", "fit_transform"), _privatizer_method
    else:
        names, make = ("fit", "partial_fit"), _learner_method
    for name in names:
        method = cls.__dict__.get(name)
        if method is None:
            inherited = getattr(cls, name, None)
            if inherited is None or getattr(inherited, "_skprivate_dask", False):
                continue
            method = inherited
        if getattr(method, "_skprivate_dask", False):
            continue
        setattr(cls, name, make(name, method))
