"""No raw value reaches an error, nor any error chained behind it.

A refusal raised inside an ``except`` clause keeps the error it handled as
its ``__context__``, even with ``raise ... from None`` (which only hides it
from the default traceback): debuggers, error trackers, a
``traceback.print_exception`` that walks the context and a log of
``exc.__context__`` all read it, and numpy's "could not convert string to
float: '...'" quotes the value.  Here every error of a bad input, and every
error chained to it through ``__cause__`` or ``__context__``, is searched
for a secret string (its ``str``, its ``repr`` and each of its ``args``).
The checks of :mod:`skprivate.utils.validation` chain nothing at all.
"""

from __future__ import annotations

import traceback
import warnings

import numpy as np
import pandas as pd
import pytest

from skprivate import LaplaceLDP
from skprivate.integral import Microaggregator, microaggregate
from skprivate.ldp import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
)
from skprivate.utils import validation

SECRET = "SECRET-123"
NUMBER = 123457.25  # a raw number, as numpy and Python print it
FORMS = (SECRET, "123457", "1.2345725e+05")
N = 30


def _chain(error: BaseException) -> list[BaseException]:
    """``error`` and every error chained to it, each once."""
    seen, pending, out = set(), [error], []
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        out.append(current)
        pending += [current.__cause__, current.__context__]
    return out


def _texts(error: BaseException) -> list[str]:
    texts = [str(error), repr(error)]
    texts += [str(a) for a in error.args] + [repr(a) for a in error.args]
    texts.append("".join(traceback.format_exception_only(type(error), error)))
    return texts


def _refusal(call) -> BaseException:
    """The error ``call`` raises, every error chained to it free of raw values."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((TypeError, ValueError)) as caught:
            call()
    for error in _chain(caught.value):
        for text in _texts(error):
            for form in FORMS:
                assert form not in text, (
                    f"{form!r} in {type(error).__name__} chained to "
                    f"{type(caught.value).__name__}: {text}"
                )
    return caught.value


def _values(n: int = N) -> np.ndarray:
    return np.random.default_rng(0).uniform(1.0, 9.0, size=n)


# Bad columns: a string in a float column, in every container a user passes.
def _column_variants() -> dict[str, object]:
    x = _values()
    obj = x.astype(object)
    obj[2] = SECRET
    strings = x.astype(str).astype("<U24")
    strings[2] = SECRET
    return {
        "object array": obj,
        "string array": strings,
        "numeric strings and a word": np.array(["12.5", SECRET, *["3.0"] * (N - 2)]),
        "list": obj.tolist(),
        "pandas object Series": pd.Series(obj),
        "bytes array": np.array([b"1.5", SECRET.encode(), *[b"2"] * (N - 2)]),
    }


def _table_variants() -> dict[str, object]:
    out = {
        name: (col.to_frame("a") if isinstance(col, pd.Series) else None)
        for name, col in _column_variants().items()
    }
    for name, col in _column_variants().items():
        if out[name] is None:
            arr = np.asarray(col) if not isinstance(col, list) else col
            out[name] = (
                [[v] for v in arr] if isinstance(col, list) else arr.reshape(-1, 1)
            )
    obj = _values().reshape(-1, 1).astype(object)
    obj[2, 0] = SECRET
    out["three-dimensional object array"] = obj[:, :, None]
    out["string scalar"] = SECRET
    return out


COLUMNS = _column_variants()
TABLES = _table_variants()


def _X(n: int = N) -> np.ndarray:
    return _values(n).reshape(-1, 1)


def _learner(cls, privatized: bool):
    """A deconvolution learner on released records, or on raw ones."""
    if privatized:
        return cls(privatizer=LaplaceLDP(epsilon=1.0, bounds=(0, 10)), bandwidth=1.0)
    return cls(noise_scale=0.1, bandwidth=1.0)


# -- Bug 1: string responses of the regressor --------------------------------
def test_string_response_of_the_regressor_is_named_not_quoted():
    y = np.array(["12.5", "abc", *["3.0"] * (N - 2)])
    error = _refusal(lambda: DeconvolutionKernelRegressor(noise_scale=0.1).fit(_X(), y))
    assert "abc" not in str(error)
    assert isinstance(error, TypeError)
    assert str(error).startswith("y ") and "row 1" in str(error)


def test_numeric_strings_are_still_numbers_for_the_regressor():
    x, y = _X(), _values()[::-1]
    ref = DeconvolutionKernelRegressor(noise_scale=0.1, bandwidth=1.0).fit(x, y)
    got = DeconvolutionKernelRegressor(noise_scale=0.1, bandwidth=1.0).fit(
        x, y.astype(str)
    )
    np.testing.assert_array_equal(got.predict(x), ref.predict(x))


@pytest.mark.parametrize("variant", sorted(COLUMNS))
@pytest.mark.parametrize("privatized", [False, True], ids=["released", "raw"])
def test_regressor_fit_y_keeps_no_value(variant, privatized):
    _refusal(
        lambda: _learner(DeconvolutionKernelRegressor, privatized).fit(
            _X(), COLUMNS[variant]
        )
    )


@pytest.mark.parametrize("variant", sorted(TABLES))
@pytest.mark.parametrize("privatized", [False, True], ids=["released", "raw"])
def test_regressor_and_classifier_fit_X_keep_no_value(variant, privatized):
    X = TABLES[variant]
    reg = _learner(DeconvolutionKernelRegressor, privatized)
    _refusal(lambda: reg.fit(X, _values()))
    clf = _learner(DeconvolutionKernelClassifier, privatized)
    _refusal(lambda: clf.fit(X, (_values() > 5).astype(int)))


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_regressor_predict_and_score_keep_no_value(variant):
    reg = DeconvolutionKernelRegressor(noise_scale=0.1, bandwidth=1.0)
    reg.fit(_X(), _values())
    _refusal(lambda: reg.predict(TABLES[variant]))
    _refusal(lambda: reg.fallback_mask(TABLES[variant]))
    _refusal(lambda: reg.score(TABLES[variant], _values()))


@pytest.mark.parametrize("variant", sorted(COLUMNS))
def test_regressor_score_y_and_weights_keep_no_value(variant):
    reg = DeconvolutionKernelRegressor(noise_scale=0.1, bandwidth=1.0)
    reg.fit(_X(), _values())
    _refusal(lambda: reg.score(_X(), COLUMNS[variant]))
    _refusal(lambda: reg.score(_X(), _values(), sample_weight=COLUMNS[variant]))


def test_queries_of_a_deconvolution_learner_quote_no_number():
    one_d = np.r_[NUMBER, _values()[1:]]  # scikit-learn quotes a 1-D array whole
    reg = DeconvolutionKernelRegressor(noise_scale=0.1, bandwidth=1.0)
    reg.fit(_X(), _values())
    kde = DeconvolutionKernelDensity(noise_scale=0.1, bandwidth=1.0).fit(_X())
    for call in (
        lambda: reg.predict(one_d),
        lambda: reg.score(one_d, _values()),
        lambda: kde.score_samples(one_d),
        lambda: kde.raw_density(one_d),
        lambda: kde.score(one_d),
    ):
        assert "values withheld" in str(_refusal(call))


# -- Bug 2: errors chained behind a refusal ---------------------------------
@pytest.mark.parametrize("variant", [*sorted(COLUMNS), "3-d", "string scalar"])
def test_microaggregate_keeps_no_value_behind_its_refusal(variant):
    x = COLUMNS.get(variant)
    if variant == "3-d":
        x = np.array([[[SECRET]], [[1.0]]], dtype=object)
    elif variant == "string scalar":
        x = SECRET
    error = _refusal(lambda: microaggregate(x, 2))
    assert "x" in str(error)


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_microaggregator_keeps_no_value(variant):
    X = TABLES[variant]
    _refusal(lambda: Microaggregator(3).fit(X))
    _refusal(lambda: Microaggregator(3).fit_transform(X))
    _refusal(lambda: Microaggregator(3).fit(_X()).transform(X))


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_deconvolution_density_keeps_no_value(variant):
    X = TABLES[variant]
    _refusal(lambda: DeconvolutionKernelDensity(noise_scale=0.1).fit(X))
    _refusal(
        lambda: DeconvolutionKernelDensity(
            privatizer=LaplaceLDP(epsilon=1.0, bounds=(0, 10))
        ).fit(X)
    )
    _refusal(
        lambda: DeconvolutionKernelDensity(
            noise_scale=0.1, bandwidth=0.5, support=(0, 10)
        ).partial_fit(X)
    )
    kde = DeconvolutionKernelDensity(noise_scale=0.1, bandwidth=1.0).fit(_X())
    _refusal(lambda: kde.score_samples(X))
    _refusal(lambda: kde.score(X))


@pytest.mark.parametrize("variant", sorted(COLUMNS))
def test_deconvolution_density_pdf_names_the_points(variant):
    kde = DeconvolutionKernelDensity(noise_scale=0.1, bandwidth=1.0).fit(_X())
    error = _refusal(lambda: kde.pdf(COLUMNS[variant]))
    assert str(error).startswith("x ")


def test_deconvolution_density_of_a_dask_array_keeps_no_value():
    da = pytest.importorskip("dask.array")
    obj = _X().astype(object)
    obj[12, 0] = SECRET
    X = da.from_array(obj, chunks=(10, 1))
    error = _refusal(
        lambda: DeconvolutionKernelDensity(
            noise_scale=0.1, bandwidth=0.5, support=(0, 10)
        ).fit(X)
    )
    assert "(12, 0)" in str(error)  # counted in the whole data
    _refusal(lambda: DeconvolutionKernelDensity(noise_scale=0.1, bandwidth=0.5).fit(X))


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_laplace_fit_and_transform_keep_no_value(variant):
    X = TABLES[variant]
    _refusal(lambda: LaplaceLDP(epsilon=1.0, bounds=(0, 10)).fit(X))
    fitted = LaplaceLDP(epsilon=1.0, bounds=(0, 10)).fit(_X())
    _refusal(lambda: fitted.transform(X))


# the checks themselves raise outside their except clauses: nothing is chained
def _no_chain(call) -> BaseException:
    error = _refusal(call)
    assert error.__context__ is None and error.__cause__ is None, repr(
        error.__context__
    )
    return error


@pytest.mark.parametrize("variant", sorted(COLUMNS))
def test_validation_chains_nothing_to_a_refusal_of_a_column(variant):
    x = COLUMNS[variant]
    _no_chain(lambda: validation.check_numeric_input(x, name="x"))
    _no_chain(lambda: validation.check_float_array(x, name="x"))
    _no_chain(lambda: validation.check_interval_array(x, name="x"))
    _no_chain(lambda: validation.check_weights(x, N))
    _no_chain(lambda: validation.make_interval_array(x, _values()))
    _no_chain(lambda: validation.make_interval_array(_values(), x))


@pytest.mark.parametrize("variant", sorted(TABLES))
def test_validation_chains_nothing_to_a_refusal_of_a_table(variant):
    X = TABLES[variant]
    if variant != "three-dimensional object array":  # left to check_array
        _no_chain(lambda: validation.check_numeric_input(X))
        _no_chain(lambda: validation.check_interval_array(X))
    _no_chain(lambda: validation.check_float_array(X, name="X"))
    _no_chain(lambda: validation.bounds_from_data(X, owner="test"))


def test_check_float_array_of_a_ragged_nesting_chains_nothing():
    error = _no_chain(
        lambda: validation.check_float_array([[1.0], [SECRET, 2.0]], name="x")
    )
    assert str(error) == "x must be numeric; entry (0,) is a list, not a number."
    error = _no_chain(
        lambda: validation.check_float_array([1.0, {"k": SECRET}], name="x")
    )
    assert str(error) == "x must be numeric; entry (1,) is a dict, not a number."


def test_complex_interval_data_is_refused_without_its_values():
    y = np.array([NUMBER + 1j, 2.0, 3.0])
    error = _no_chain(lambda: validation.check_interval_array(y))
    assert str(error) == (
        "y column 0 must be numeric; row 0 holds a complex that is not a real number "
        "(Complex data not supported)."
    )


def test_first_row_still_counts_in_the_refusal():
    x = np.array([1.0, 2.0, SECRET], dtype=object)
    error = _no_chain(lambda: validation.check_float_array(x, name="x", first_row=10))
    assert "entry (12,)" in str(error)
