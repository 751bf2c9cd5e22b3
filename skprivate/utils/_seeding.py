"""Content fingerprints that seed reproducible (simulation) noise streams.

A seeded privatizer's noise is a function of its seed, its settings and the
data it releases; these helpers turn settings and data into integers that
are the same in every process (never ``id`` or ``hash``, which vary).
"""

from __future__ import annotations

import hashlib
import numbers
import pickle
from typing import Any

import numpy as np
from numpy.typing import NDArray

__all__ = ["canonical", "data_fingerprint", "multiset_hash", "words"]


def canonical(value: Any) -> str:
    """A text form of a parameter value that is the same in every process.

    Numbers compare by value (``1`` and ``1.0`` agree), sequences by their
    items (a tuple and a list agree), sets by their items in sorted order,
    arrays and array-likes (a pandas ``Index``) by dtype, shape and bytes,
    estimators by class and parameters, a frozen scipy distribution by its
    family and parameters, a source of randomness (a numpy generator) by
    its type alone (its state is no setting), and other objects by their
    type's qualified name and their attributes (or, for objects without a
    ``__dict__`` such as a :class:`functools.partial`, what pickling keeps
    of them), never by ``id`` or ``hash``, which vary between runs: two
    values that differ in content never share a form, so two settings that
    differ never share a noise stream, and a setting changed after ``fit``
    is seen.

    Examples
    --------
    >>> from scipy import stats
    >>> from skprivate.utils._seeding import canonical
    >>> canonical([1, 2.0]) == canonical((1.0, 2))
    True
    >>> canonical(stats.norm(0, 1)) == canonical(stats.norm(3, 0.2))
    False
    """
    return _canonical(value, ())


def _canonical(value: Any, open_objects: tuple[int, ...]) -> str:
    """:func:`canonical`, with the objects whose attributes are being read."""
    if value is None or isinstance(value, bool | np.bool_ | str | bytes):
        return repr(bool(value) if isinstance(value, np.bool_) else value)
    if isinstance(value, numbers.Integral):
        return f"n:{int(value)}"
    if isinstance(value, numbers.Real):
        number = float(value)
        if number.is_integer() and abs(number) < 2.0**63:
            return f"n:{int(number)}"
        return f"f:{number.hex()}"
    if isinstance(value, np.ndarray):
        if value.dtype == object:
            return f"a:{value.shape}:{_canonical(value.tolist(), open_objects)}"
        data = np.ascontiguousarray(value)
        digest = hashlib.sha256(data.tobytes()).hexdigest()
        return f"a:{data.dtype.str}:{data.shape}:{digest}"
    if isinstance(value, list | tuple):
        return "[" + ",".join(_canonical(v, open_objects) for v in value) + "]"
    if isinstance(value, set | frozenset):
        # by content, in sorted order: a set's iteration order follows the
        # hashes of its items, which vary between processes for strings
        return (
            "set{" + ",".join(sorted(_canonical(v, open_objects) for v in value)) + "}"
        )
    if isinstance(value, dict):
        items = sorted(
            (_canonical(k, open_objects), _canonical(v, open_objects))
            for k, v in value.items()
        )
        return "{" + ",".join(f"{k}={v}" for k, v in items) + "}"
    kind = type(value)
    name = f"{kind.__module__}.{kind.__qualname__}"
    if isinstance(value, type):
        return f"c:{value.__module__}.{value.__qualname__}"
    if hasattr(value, "get_params"):
        return f"e:{name}{_canonical(value.get_params(deep=False), open_objects)}"
    if callable(value) and hasattr(value, "__qualname__"):
        return f"c:{getattr(value, '__module__', '')}.{value.__qualname__}"
    family = getattr(value, "dist", None)
    if family is not None and hasattr(value, "args") and hasattr(value, "kwds"):
        # a frozen scipy distribution: its family and its parameters
        family_name = getattr(family, "name", type(family).__qualname__)
        parameters = _canonical([list(value.args), dict(value.kwds)], open_objects)
        return f"d:{family_name}{parameters}"
    if hasattr(value, "__array__"):  # a pandas Index or Series, say
        return _canonical(np.asarray(value), open_objects)
    if id(value) in open_objects or isinstance(value, _RANDOMNESS):
        # a source of randomness is named by its type: its state is not a
        # setting, and it changes with every draw
        return f"o:{name}"
    inner = (*open_objects, id(value))
    state = getattr(value, "__dict__", None)
    if isinstance(state, dict) and state:
        return f"o:{name}{_canonical(state, inner)}"
    content = _reduced_content(value)
    if content is not None:
        return f"o:{name}<{_canonical(content, inner)}>"
    return f"o:{name}"


_RANDOMNESS = (
    np.random.Generator,
    np.random.RandomState,
    np.random.BitGenerator,
    np.random.SeedSequence,
)


def _reduced_content(value: Any) -> list[Any] | None:
    """What pickling would keep of ``value`` beyond its type, if anything.

    Objects that hold their content outside ``__dict__`` (``__slots__``, or
    C types such as :class:`functools.partial`) describe it through
    ``__reduce_ex__``: the arguments that rebuild them and their state.
    ``None`` when that description is the bare type (an object without
    content) or when the object cannot be pickled (a lock, a generator):
    such values are told apart by their type alone.
    """
    try:
        reduced = value.__reduce_ex__(4)
    except Exception:
        return None
    if not isinstance(reduced, tuple) or len(reduced) < 2:
        return None
    arguments = reduced[1]
    state = reduced[2] if len(reduced) > 2 else None
    if tuple(arguments) == (type(value),):
        arguments = ()
    if not arguments and state is None:
        return None
    return [list(arguments), state]


def _object_values(digest: Any, values: NDArray) -> None:
    """Feed the values of an object array to ``digest`` by content alone.

    A pickle of the array would not do: it writes an object met again as a
    reference to its first copy, so the same strings give other bytes when
    the array holds one object per entry (pandas' string columns) than when
    its entries share objects (an object column read the older way).  Here
    every entry is written in full, tagged by kind: strings (``str`` and
    numpy's) by their characters, numbers by value (``1`` and ``1.0``
    agree, as in :func:`canonical`), missing values alike, and anything else
    by the pickle of that entry alone.
    """
    items = values.ravel().tolist()
    digest.update(f"O:{values.shape}:".encode())
    if all(type(v) is str for v in items):  # the common case, at C speed
        digest.update(np.array([len(v) for v in items], dtype=np.int64).tobytes())
        digest.update("".join(items).encode("utf-8", "surrogatepass"))
        return
    for v in items:
        if isinstance(v, str):
            text = "s" + str(v)
        elif v is None or (isinstance(v, float | np.floating) and v != v):
            text = "m"
        elif isinstance(v, bool | np.bool_ | numbers.Real | bytes):
            text = "v" + canonical(v)
        else:
            try:
                text = "p" + pickle.dumps(v, protocol=4).hex()
            except Exception:
                text = "c" + canonical(v)
        body = text.encode("utf-8", "surrogatepass")
        digest.update(len(body).to_bytes(8, "little") + body)


def data_fingerprint(data: Any) -> int:
    """A 128-bit SHA-256 fingerprint of the content of ``data``.

    Numeric arrays are hashed by dtype, shape and bytes (fast); object
    arrays, frames (with their column names) and Series (with their name)
    by their values, entry by entry, so the same content gives the same
    fingerprint whatever objects hold it, on every numpy and pandas
    version; a tuple (a description of a draw, such as the rows and cells
    anchors are drawn for) by the fingerprints of its parts; anything else
    by its pickle, or its canonical text form (:func:`canonical`).
    """
    digest = hashlib.sha256(b"skprivate release data\0")
    if hasattr(data, "to_numpy") and hasattr(data, "columns"):  # a frame
        digest.update(canonical(list(map(str, data.columns))).encode())
        data = np.asarray(data.to_numpy())
    elif hasattr(data, "to_numpy") and hasattr(data, "dtype"):  # a Series
        digest.update(canonical(str(getattr(data, "name", None))).encode())
        data = np.asarray(data.to_numpy())
    if isinstance(data, np.ndarray) and data.dtype.kind in "US":
        # text held in numpy's fixed-width dtypes (a list of strings made an
        # array): by its entries, as the same text in an object array
        data = data.astype(object)
    if isinstance(data, np.ndarray) and data.dtype != object:
        block = np.ascontiguousarray(data)
        digest.update(f"{block.dtype.str}:{block.shape}:".encode())
        digest.update(memoryview(block).cast("B"))
    elif isinstance(data, np.ndarray):
        _object_values(digest, data)
    elif isinstance(data, tuple):  # a description of a draw: its parts by content
        digest.update(f"T:{len(data)}:".encode())
        for part in data:
            digest.update(data_fingerprint(part).to_bytes(16, "little"))
    else:
        try:  # values by content (strings, numbers, timestamps, ...)
            digest.update(pickle.dumps(data, protocol=4))
        except Exception:  # unpicklable: the canonical text form
            digest.update(canonical(data).encode())
    return int.from_bytes(digest.digest()[:16], "little")


def multiset_hash(values: NDArray) -> int:
    """A 64-bit hash of the multiset of float values, in any order.

    The sum, modulo ``2**64``, of a 64-bit mix of each value's bits (the
    SplitMix64 finalizer; ``-0.0`` counted as ``0.0``).  Blocks of a
    collection hash separately and add: the same multiset gives the same
    hash in memory and over any partition, and a change of any value, down
    to its last bit, changes it (up to a collision of 64-bit sums).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils._seeding import multiset_hash
    >>> a = multiset_hash(np.array([1.0, 2.0, 3.0]))
    >>> a == (
    ...     multiset_hash(np.array([3.0, 1.0])) + multiset_hash(np.array([2.0]))
    ... ) % 2**64
    True
    >>> a == multiset_hash(np.array([1.0, 2.0, np.nextafter(3.0, 4.0)]))
    False
    """
    x = np.ascontiguousarray(np.asarray(values, dtype=np.float64).ravel()) + 0.0
    z = x.view(np.uint64) + np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return int(np.sum(z, dtype=np.uint64))


def words(value: int) -> list[int]:
    """A non-negative integer as 32-bit words (``SeedSequence`` entropy)."""
    return [(value >> (32 * i)) & 0xFFFFFFFF for i in range(4)]
