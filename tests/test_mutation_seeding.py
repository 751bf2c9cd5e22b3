"""Exact forms of the fingerprints that seed reproducible noise streams.

A seeded privatizer's noise is a function of its seed, the canonical text of
its settings and the fingerprint of the data, so these forms must be the
same in every process and must separate what they claim to separate.  The
expected values are written out from the documented rules (SHA-256 of the
stated bytes, 128 bits read little-endian).  ``benchmarks/_mutation_modules.py``
lists the mutants of ``skprivate/utils/_seeding.py`` these tests kill.
"""

import hashlib
import pickle

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import TransformedTargetRegressor
from sklearn.linear_model import Ridge

from skprivate.utils._seeding import canonical, data_fingerprint, words


def _sha128(payload: bytes) -> int:
    digest = hashlib.sha256(b"skprivate release data\0" + payload).digest()
    return int.from_bytes(digest[:16], "little")


def _entry(text: str) -> bytes:
    """One tagged entry of an object array: its UTF-8 length, then its bytes."""
    body = text.encode("utf-8", "surrogatepass")
    return len(body).to_bytes(8, "little") + body


def _function():
    return None


class _Plain:
    pass


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (None, "None"),
        (True, "True"),
        (False, "False"),
        (np.bool_(True), "True"),
        (np.bool_(False), "False"),
        ("a", "'a'"),
        (b"x", "b'x'"),
        (3, "n:3"),
        (np.int64(-7), "n:-7"),
        (3.0, "n:3"),
        (np.float32(2.0), "n:2"),
        (1.5, "f:0x1.8000000000000p+0"),
        (-0.25, "f:-0x1.0000000000000p-2"),
        (2.0**62, f"n:{2**62}"),
        (2.0**63, "f:0x1.0000000000000p+63"),
        (-(2.0**63), "f:-0x1.0000000000000p+63"),
        ([1, 2.0], "[n:1,n:2]"),
        ((1, 2), "[n:1,n:2]"),
        ([], "[]"),
        ({"b": 2, "a": 1.5}, "{'a'=f:0x1.8000000000000p+0,'b'=n:2}"),
        (np.array(["u", 1], dtype=object), "a:(2,):['u',n:1]"),
        (_Plain(), f"o:{__name__}._Plain"),
        (_function, f"c:{__name__}._function"),
        (_Plain, f"c:{__name__}._Plain"),
    ],
)
def test_canonical_text(value, text):
    assert canonical(value) == text


def test_canonical_numeric_array_is_dtype_shape_and_hash():
    array = np.arange(6, dtype=np.int32).reshape(2, 3)
    digest = hashlib.sha256(array.tobytes()).hexdigest()
    assert canonical(array) == f"a:<i4:(2, 3):{digest}"
    # a non-contiguous view is hashed by its values
    assert canonical(array.T) == canonical(np.ascontiguousarray(array.T))


def test_canonical_estimator_is_class_and_parameters():
    text = canonical(Ridge(alpha=2.0))
    assert text.startswith("e:sklearn.linear_model._ridge.Ridge{")
    assert "'alpha'=n:2" in text
    assert canonical(Ridge(alpha=2.0)) == canonical(Ridge(alpha=2))
    assert canonical(Ridge(alpha=2.0)) != canonical(Ridge(alpha=3.0))


def test_canonical_nested_estimator_is_its_own_parameters_only():
    # deep=False: the inner estimator appears once, as its own canonical text,
    # never as flattened regressor__alpha keys
    outer = TransformedTargetRegressor(regressor=Ridge(alpha=2))
    text = canonical(outer)
    assert f"'regressor'={canonical(Ridge(alpha=2))}" in text
    assert "regressor__" not in text


def test_canonical_callable_without_module_has_an_empty_module():
    # method descriptors of builtin types have a qualified name but no module
    assert not hasattr(str.upper, "__module__")
    assert canonical(str.upper) == "c:.str.upper"


class _Holder:
    def __init__(self, value):
        self.value = value
        self.me = self  # a cycle: read once


def test_canonical_reads_the_content_of_other_objects():
    # a frozen scipy distribution by its family and parameters
    from scipy import stats

    assert canonical(stats.norm(0, 1)) == "d:norm[[n:0,n:1],{}]"
    assert canonical(stats.norm(3, 0.2)) != canonical(stats.norm(0, 1))
    assert canonical(stats.logistic(0, 1)) != canonical(stats.norm(0, 1))
    assert canonical(stats.norm(loc=1.0)) == "d:norm[[],{'loc'=n:1}]"
    # array-likes by their values
    assert canonical(pd.Index(["a", "b"])) == canonical(np.array(["a", "b"], object))
    assert canonical(pd.Index([1.5])) == canonical(np.array([1.5]))
    # other objects by their attributes, each object read once
    one, other = _Holder(np.arange(3)), _Holder(np.arange(4))
    name = f"{__name__}._Holder"
    assert canonical(one) == (
        f"o:{name}{{'me'=o:{name},'value'={canonical(np.arange(3))}}}"
    )
    assert canonical(one) != canonical(other)
    assert canonical(one) == canonical(_Holder(np.arange(3)))


def test_privatizers_that_differ_in_an_object_setting_share_no_stream():
    import warnings

    from scipy import stats

    from skprivate.base import _settings_fingerprint
    from skprivate.interval import IntervalCaseII
    from skprivate.subset import SubsetDesign, SubsetMechanism

    x = np.random.default_rng(0).normal(0, 1, (400, 1))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a = IntervalCaseII(distribution=stats.norm(0, 1), random_state=0).fit(x)
        b = IntervalCaseII(distribution=stats.norm(3, 0.2), random_state=0).fit(x)
        _, anchors_a = a.transform(x, return_anchors=True)
        _, anchors_b = b.transform(x, return_anchors=True)
    # the same uniforms would map to the same probabilities
    assert not np.allclose(
        stats.norm(0, 1).cdf(anchors_a), stats.norm(3, 0.2).cdf(anchors_b)
    )
    a.set_params(distribution=stats.norm(0, 50))
    with pytest.raises(
        ValueError, match=r"settings changed since fit \(distribution\)"
    ):
        a.transform(x)
    pairs = np.array(
        [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 0, 1]]
    )
    first = SubsetDesign.independent(pairs, [0.3, 0.3, 0.1, 0.1, 0.2])
    second = SubsetDesign.independent(pairs, [0.1, 0.1, 0.3, 0.3, 0.2])
    same = SubsetDesign.independent(pairs, [0.3, 0.3, 0.1, 0.1, 0.2])
    cats = [list("abcd")]
    fingerprints = [
        _settings_fingerprint(SubsetMechanism(d, categories=cats, random_state=0))
        for d in (first, second, same)
    ]
    assert fingerprints[0] != fingerprints[1]
    assert fingerprints[0] == fingerprints[2]
    mech = SubsetMechanism(first, categories=cats, random_state=0)
    mech.fit(np.array([["a"], ["b"], ["c"], ["d"]]))
    mech.set_params(design=second)
    with pytest.raises(ValueError, match=r"settings changed since fit \(design\)"):
        mech.transform(np.array([["a"]]))


def test_fingerprint_of_an_array_is_sha256_of_dtype_shape_and_bytes():
    X = np.array([[1.0, 2.0], [3.0, 4.0]])
    expected = _sha128(b"<f8:(2, 2):" + X.tobytes())
    assert data_fingerprint(X) == expected
    assert data_fingerprint(X.T) == _sha128(
        b"<f8:(2, 2):" + np.ascontiguousarray(X.T).tobytes()
    )
    assert 0 <= expected < 2**128


def test_fingerprint_of_a_frame_is_its_column_names_and_values():
    frame = pd.DataFrame({"age": [1.0, 2.0], "x": [3.0, 4.0]})
    values = np.asarray(frame.to_numpy())
    expected = _sha128(
        canonical(["age", "x"]).encode() + b"<f8:(2, 2):" + values.tobytes()
    )
    assert data_fingerprint(frame) == expected
    renamed = frame.rename(columns={"x": "y"})
    assert data_fingerprint(renamed) != data_fingerprint(frame)


def test_fingerprint_of_a_series_is_its_name_and_values():
    series = pd.Series([1.0, 2.0], name="age")
    expected = _sha128(
        canonical("age").encode() + b"<f8:(2,):" + np.array([1.0, 2.0]).tobytes()
    )
    assert data_fingerprint(series) == expected
    assert data_fingerprint(series.rename("other")) != expected


def test_fingerprint_of_strings_is_their_lengths_and_characters():
    objects = np.array([["ab"], ["ç"]], dtype=object)
    expected = _sha128(
        b"O:(2, 1):" + np.array([2, 1], dtype=np.int64).tobytes() + "abç".encode()
    )
    assert data_fingerprint(objects) == expected
    # a fixed value: the same on every numpy and pandas version
    race = np.array([["Black"], ["White"]], dtype=object)
    assert data_fingerprint(race) == _sha128(
        b"O:(2, 1):" + np.array([5, 5], dtype=np.int64).tobytes() + b"BlackWhite"
    )
    # the split between entries counts
    assert data_fingerprint(np.array(["a", "bc"], dtype=object)) != (
        data_fingerprint(np.array(["ab", "c"], dtype=object))
    )


def test_fingerprint_of_objects_is_by_content_not_by_identity():
    # one object shared by every entry, or one object per entry (as pandas'
    # string columns give): the same content, the same fingerprint (a pickle
    # writes the shared object once and refers back to it)
    shared = "White"
    one = np.array([shared, shared, shared], dtype=object)
    many = np.array(["".join(["Wh", "ite"]) for _ in range(3)], dtype=object)
    assert many[0] is not many[1]
    assert data_fingerprint(one) == data_fingerprint(many)
    frame = pd.DataFrame({"race": ["White", "Black"]}, dtype=object)
    assert data_fingerprint(frame) == data_fingerprint(
        pd.DataFrame({"race": ["White", "Black"]}, dtype="string")
    )
    # numpy's string scalars are strings
    assert data_fingerprint(np.array([np.str_("a"), 1], dtype=object)) == (
        data_fingerprint(np.array(["a", 1], dtype=object))
    )


def test_fingerprint_of_mixed_objects_tags_each_entry():
    mixed = np.array(["1", 1, 2.5, None, float("nan"), True], dtype=object)
    expected = _sha128(
        b"O:(6,):"
        + _entry("s1")
        + _entry("vn:1")
        + _entry("vf:" + (2.5).hex())
        + _entry("m")
        + _entry("m")
        + _entry("vTrue")
    )
    assert data_fingerprint(mixed) == expected
    # a number and its text differ; 1 and 1.0 agree; None and NaN agree
    assert data_fingerprint(np.array([1, "x"], dtype=object)) == data_fingerprint(
        np.array([1.0, "x"], dtype=object)
    )
    stamp = pd.Timestamp("2020-01-02")
    other = np.array([stamp, "x"], dtype=object)
    assert data_fingerprint(other) == _sha128(
        b"O:(2,):" + _entry("p" + pickle.dumps(stamp, protocol=4).hex()) + _entry("sx")
    )


def test_fingerprint_of_other_data_pickles_or_falls_back_to_canonical():
    data = [1, "a"]
    assert data_fingerprint(data) == _sha128(pickle.dumps(data, protocol=4))
    unpicklable = lambda: None  # noqa: E731
    assert data_fingerprint(unpicklable) == _sha128(canonical(unpicklable).encode())


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (0, [0, 0, 0, 0]),
        (5 + 2**32, [5, 1, 0, 0]),
        (2**128 - 1, [0xFFFFFFFF] * 4),
        (3 << 96, [0, 0, 0, 3]),
    ],
)
def test_words_are_four_little_endian_32_bit_words(value, expected):
    assert words(value) == expected


def test_fingerprint_of_text_keeps_lone_surrogates():
    # text decoded with surrogateescape (file names, raw bytes) holds lone
    # surrogates: they are written as they are, not refused
    odd = "a\udcff"
    alone = np.array([odd, "b"], dtype=object)
    assert data_fingerprint(alone) == _sha128(
        b"O:(2,):"
        + np.array([2, 1], dtype=np.int64).tobytes()
        + (odd + "b").encode("utf-8", "surrogatepass")
    )
    mixed = np.array([odd, 1], dtype=object)
    assert data_fingerprint(mixed) == _sha128(
        b"O:(2,):" + _entry("s" + odd) + _entry("vn:1")
    )


def test_fingerprint_of_an_unpicklable_entry_is_its_canonical_form():
    f = lambda: None  # noqa: E731
    objects = np.array([f, "x"], dtype=object)
    assert data_fingerprint(objects) == _sha128(
        b"O:(2,):" + _entry("c" + canonical(f)) + _entry("sx")
    )


def test_fingerprint_of_a_nameless_series_like_reads_its_values():
    class Column:
        dtype = np.dtype(float)

        def to_numpy(self):
            return np.array([1.0, 2.0])

    expected = _sha128(
        canonical("None").encode() + b"<f8:(2,):" + np.array([1.0, 2.0]).tobytes()
    )
    assert data_fingerprint(Column()) == expected


def test_fingerprint_of_a_draw_description_is_its_parts_fingerprints():
    cells = np.array([[0.0, 1.0], [2.0, 3.0]])
    description = (5, 0, cells)
    expected = _sha128(
        b"T:3:"
        + data_fingerprint(5).to_bytes(16, "little")
        + data_fingerprint(0).to_bytes(16, "little")
        + data_fingerprint(cells).to_bytes(16, "little")
    )
    assert data_fingerprint(description) == expected
    assert data_fingerprint((5, 0, None)) != data_fingerprint((5, 0))
    # a part held by other objects of the same content: the same fingerprint
    shared = "c"
    one = (3, pd.DataFrame({"k": [shared, shared]}, dtype=object))
    other = (3, pd.DataFrame({"k": ["c", "c"]}, dtype="string"))
    assert data_fingerprint(one) == data_fingerprint(other)


def test_fingerprint_of_numpy_text_reads_its_entries():
    # A list of strings becomes a fixed-width '<U' array, a frame's column an
    # object array: the same text seeds the same stream.
    text = ["a", "bc", "", "é"]
    want = data_fingerprint(np.array(text, dtype=object))
    assert data_fingerprint(np.array(text)) == want
    assert data_fingerprint(np.array(text, dtype="<U8")) == want
    raw = [b"a", b"bc"]
    assert data_fingerprint(np.array(raw)) == data_fingerprint(
        np.array(raw, dtype=object)
    )
    assert data_fingerprint(np.array(["a", "b"])) != data_fingerprint(
        np.array(["a", "c"])
    )
    assert data_fingerprint(np.array([["a", "b"]])) != data_fingerprint(
        np.array([["a"], ["b"]])
    )


@pytest.mark.parametrize("dtype", [np.int64, np.float32, np.int8])
def test_interval_releases_are_seeded_by_values_not_their_dtype(dtype):
    from skprivate import IntervalCaseI, IntervalCaseII

    x = np.array([[1], [2], [3], [5], [8]], dtype=dtype)
    for kind in (IntervalCaseI, IntervalCaseII):
        got = kind(random_state=0).fit_transform(x)
        want = kind(random_state=0).fit_transform(x.astype(np.float64))
        np.testing.assert_array_equal(got, want)


class _Attrs:
    """An object read by its attributes, which are given as keywords."""

    def __init__(self, **attributes):
        self.__dict__.update(attributes)


class _Slotted:
    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


class _UnnamedFamily:
    """A distribution family without a ``name`` attribute."""


class _OtherUnnamedFamily:
    """Another distribution family without a ``name`` attribute."""


def test_objects_inside_containers_are_read_by_their_content():
    # an object met inside a list, a tuple, a dict (key or value), an object
    # array or an array-like is read by its attributes, as it is alone
    inner = f"o:{__name__}._Attrs{{'v'=n:1}}"
    assert canonical([_Attrs(v=1)]) == f"[{inner}]"
    assert canonical((_Attrs(v=1),)) == f"[{inner}]"
    assert canonical({_Attrs(v=1): 0}) == f"{{{inner}=n:0}}"
    assert canonical({"k": _Attrs(v=1)}) == f"{{'k'={inner}}}"
    array = np.array([_Attrs(v=1)], dtype=object)
    assert canonical(array) == f"a:(1,):[{inner}]"
    assert canonical(pd.Index(array)) == f"a:(1,):[{inner}]"
    assert canonical([_Attrs(v=1)]) != canonical([_Attrs(v=2)])


def test_an_estimator_parameter_holding_an_object_is_read_by_content():
    one = TransformedTargetRegressor(regressor=Ridge(), func=None, check_inverse=True)
    one.set_params(transformer=_Attrs(v=1))
    other = TransformedTargetRegressor(regressor=Ridge(), check_inverse=True)
    other.set_params(transformer=_Attrs(v=2))
    assert f"'transformer'=o:{__name__}._Attrs{{'v'=n:1}}" in canonical(one)
    assert canonical(one) != canonical(other)


def test_a_distribution_like_object_is_read_by_family_and_parameters():
    # duck-typed: an object with dist, args and kwds, whose parameters may be
    # objects themselves; a family without a name is named by its type
    one = _Attrs(dist=_UnnamedFamily(), args=(_Attrs(v=1),), kwds={})
    assert canonical(one) == (
        f"d:_UnnamedFamily[[o:{__name__}._Attrs{{'v'=n:1}}],{{}}]"
    )
    other = _Attrs(dist=_OtherUnnamedFamily(), args=(_Attrs(v=1),), kwds={})
    assert canonical(one) != canonical(other)
    # all three attributes are needed: with one missing, it is a plain object
    name = f"{__name__}._Attrs"
    assert canonical(_Attrs(kwds={})) == f"o:{name}{{'kwds'={{}}}}"
    assert canonical(_Attrs(dist=1)) == f"o:{name}{{'dist'=n:1}}"
    assert canonical(_Attrs(dist=None, args=(), kwds={})).startswith(f"o:{name}")


def test_callables_and_qualified_names():
    import functools

    # a callable without a qualified name (a partial) is read by its content
    assert canonical(functools.partial(_function)) == canonical(
        functools.partial(_function)
    )
    assert canonical(functools.partial(int, "1")) != canonical(
        functools.partial(int, "2")
    )
    # an object that is not callable but carries a __qualname__ attribute is
    # read by its attributes, not as a function
    named = _Attrs(__qualname__="f", v=1)
    assert canonical(named) != canonical(_Attrs(__qualname__="f", v=2))


def test_objects_without_a_dict_are_read_through_pickling():
    # slots: the state pickling keeps; a partial: its function, arguments
    # and keywords; an object without content or one that cannot be
    # pickled: its type name
    import functools
    import threading

    name = f"{__name__}._Slotted"
    assert canonical(_Slotted(1)) == f"o:{name}<[[],[None,{{'value'=n:1}}]]>"
    assert canonical(_Slotted(1)) != canonical(_Slotted(2))
    # (the partial's own attribute dict reads None or {} by Python version)
    assert canonical(functools.partial(int, "1")).startswith(
        "o:functools.partial<[[c:builtins.int],[c:builtins.int,['1'],{},"
    )
    assert canonical(object()) == "o:builtins.object"
    assert canonical(threading.Lock()) == "o:_thread.lock"


def test_what_pickling_keeps_is_read_whatever_its_form():
    # a two-part reduction (the callable and its arguments), and one given
    # as a global's name, which names nothing beyond the type
    assert canonical(range(3)) == "o:builtins.range<[[n:0,n:3,n:1],None]>"
    assert canonical(range(3)) != canonical(range(4))
    assert canonical(Ellipsis) == "o:builtins.ellipsis"


def test_a_source_of_randomness_is_named_by_its_type_alone():
    # its state is no setting and moves with every draw: a nested
    # privatizer's generator must not make its settings look changed
    generator = np.random.default_rng(0)
    before = canonical(generator)
    generator.random(3)
    assert canonical(generator) == before == "o:numpy.random._generator.Generator"
    assert canonical(np.random.RandomState(1)) == "o:numpy.random.mtrand.RandomState"
    assert canonical(np.random.PCG64(2)) == "o:numpy.random._pcg64.PCG64"
    assert canonical(np.random.SeedSequence(3)) == (
        "o:numpy.random.bit_generator.SeedSequence"
    )


def test_a_generator_drawn_from_between_chunks_is_no_changed_setting():
    import warnings

    from skprivate.frequency import FrequencyEstimator, GeneralizedRandomizedResponse

    generator = np.random.default_rng(0)
    X = np.random.default_rng(1).choice(["a", "b", "c"], size=(200, 1))
    est = FrequencyEstimator(
        privatizer=GeneralizedRandomizedResponse(
            categories=[["a", "b", "c"]], random_state=generator
        )
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.partial_fit(X[:100])
        generator.random(5)
        # refused as "privatizer__random_state changed" if the generator's
        # state entered the settings
        est.partial_fit(X[100:])


def test_a_set_is_read_by_its_items_the_same_in_every_process():
    import subprocess
    import sys

    assert canonical({"b", "a", 1}) == "set{'a','b',n:1}"
    assert canonical(frozenset({2.0, 1})) == "set{n:1,n:2}"
    assert canonical({"a", "b"}) != canonical(["a", "b"])
    assert canonical(set()) == "set{}"
    # strings hash differently in every process: the form must not follow
    code = (
        "from skprivate.utils._seeding import canonical;"
        "print(canonical({'red', 'green', 'blue', 'cyan', 'magenta'}))"
    )
    forms = {
        subprocess.run(
            [sys.executable, "-c", code],
            env={**__import__("os").environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert forms == {"set{'blue','cyan','green','magenta','red'}\n"}


def test_objects_inside_sets_and_pickled_state_are_read_by_content():
    inner = f"o:{__name__}._Attrs{{'v'=n:1}}"
    assert canonical({_Attrs(v=1)}) == f"set{{{inner}}}"
    assert canonical(_Slotted(_Attrs(v=1))) == (
        f"o:{__name__}._Slotted<[[],[None,{{'value'={inner}}}]]>"
    )
    assert canonical(_Slotted(_Attrs(v=1))) != canonical(_Slotted(_Attrs(v=2)))


# -- multiset_hash: the SplitMix64 finalizer of each value's bits, summed --------
def _splitmix_sum(values):
    """The hash by its definition, in pure Python integers."""
    import struct

    mask = 2**64 - 1
    total = 0
    for v in values:
        bits = struct.unpack("<Q", struct.pack("<d", float(v) + 0.0))[0]
        z = (bits + 0x9E3779B97F4A7C15) & mask
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & mask
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & mask
        z ^= z >> 31
        total = (total + z) & mask
    return total


@pytest.mark.parametrize(
    "values",
    [
        [0.0],
        [1.0],
        [1.0, 2.0, 3.0],
        [-2.5, 1e300, 5e-324, 7.25],
        [np.pi, -np.e, 0.1, 123456.789],
    ],
)
def test_multiset_hash_is_the_splitmix_sum_of_the_bits(values):
    from skprivate.utils._seeding import multiset_hash

    got = multiset_hash(np.array(values))
    assert got == _splitmix_sum(values)
    assert type(got) is int and 0 <= got < 2**64


def test_multiset_hash_reads_values_as_doubles_in_any_order_and_partition():
    from skprivate.utils._seeding import multiset_hash

    x = np.array([3.0, -1.5, 2.0, 9.75, 2.0])
    whole = multiset_hash(x)
    assert whole == multiset_hash(x[::-1]) == multiset_hash(list(x))
    assert whole == (multiset_hash(x[:2]) + multiset_hash(x[2:])) % 2**64
    assert whole == multiset_hash(x.reshape(1, 5)) == multiset_hash(x[:, None])
    # ints are read as the doubles of the same values, not as their bits
    assert multiset_hash(np.array([1, 2, 3])) == multiset_hash(
        np.array([1.0, 2.0, 3.0])
    )
    assert multiset_hash([1, 2]) == _splitmix_sum([1.0, 2.0])
    # single precision too: widened to the doubles of the same values
    assert multiset_hash(np.array([1.5, -2.25], dtype=np.float32)) == _splitmix_sum(
        [1.5, -2.25]
    )
    # -0.0 is 0.0; a value's last bit counts; a repeat counts
    assert multiset_hash(np.array([-0.0])) == multiset_hash(np.array([0.0]))
    assert multiset_hash(np.array([1.0])) != multiset_hash(
        np.array([np.nextafter(1.0, 2.0)])
    )
    assert multiset_hash(np.array([2.0, 2.0])) != multiset_hash(np.array([2.0]))
    assert multiset_hash(np.array([])) == 0
