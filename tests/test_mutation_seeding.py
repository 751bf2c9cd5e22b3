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
    values = (["age", "x"], np.asarray(frame.to_numpy()))
    assert data_fingerprint(frame) == _sha128(pickle.dumps(values, protocol=4))
    renamed = frame.rename(columns={"x": "y"})
    assert data_fingerprint(renamed) != data_fingerprint(frame)


def test_fingerprint_of_a_series_is_its_pickle():
    # a Series has to_numpy but no columns: it is not read as a frame
    series = pd.Series([1.0, 2.0], name="age")
    assert data_fingerprint(series) == _sha128(pickle.dumps(series, protocol=4))


def test_fingerprint_of_other_data_pickles_or_falls_back_to_canonical():
    data = [1, "a"]
    assert data_fingerprint(data) == _sha128(pickle.dumps(data, protocol=4))
    unpicklable = lambda: None  # noqa: E731
    assert data_fingerprint(unpicklable) == _sha128(canonical(unpicklable).encode())
    objects = np.array(["a", None], dtype=object)
    assert data_fingerprint(objects) == _sha128(pickle.dumps(objects, protocol=4))


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
