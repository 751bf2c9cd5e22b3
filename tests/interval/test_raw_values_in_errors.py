"""No raw value of the interval learners' inputs reaches an error.

The pattern of ``tests/test_raw_values_in_errors.py``: every error of a bad
input, and every error chained to it through ``__cause__`` or
``__context__`` (debuggers and error trackers read them even when
``raise ... from None`` hides them), is searched for a secret string and a
secret number in its ``str``, ``repr``, ``args`` and formatted form.
:class:`IterativeIntervalRegressor` passes its features to the base
regressor unchanged (fit, the iterations, predict and score), and with a
privatizer its ``y`` is the raw responses.
"""

from __future__ import annotations

import traceback
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.linear_model import LinearRegression
from sklearn.tree import DecisionTreeRegressor
from sklearn.utils import check_array

from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalEnsemble,
    IntervalMechanism,
    IntervalMLE,
    IntervalNPMLE,
    IterativeIntervalRegressor,
)
from skprivate.interval._em import EMState, make_em_map
from skprivate.interval._refit import Refitter

SECRET = "SECRET-123"
NUMBER = 123457.25
# numpy prints the number as 123457.25, 1.2345725e+05 or 1.23457250e+05
FORMS = (SECRET, "123457", "2345725")
N = 40


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


def _unchained(call) -> BaseException:
    """As :func:`_refusal`, and nothing at all is chained to the error."""
    error = _refusal(call)
    assert error.__cause__ is None and error.__context__ is None, repr(
        error.__context__
    )
    return error


def _x(n: int = N) -> np.ndarray:
    return np.random.default_rng(0).uniform(1.0, 9.0, size=n)


def _X(n: int = N) -> np.ndarray:
    return _x(n).reshape(-1, 1)


def _y(n: int = N) -> np.ndarray:
    return 2.0 * _x(n) + np.random.default_rng(1).normal(size=n)


def _Z(n: int = N) -> np.ndarray:
    return IntervalCaseI(scale=3.0, random_state=0).fit_transform(_y(n)[:, None])


def _secret_object(values: np.ndarray) -> np.ndarray:
    out = np.asarray(values).astype(object)
    out.flat[2] = SECRET
    return out


def _tables() -> dict[str, object]:
    obj = _secret_object(_X())
    strings = _X().astype(str).astype("<U24")
    strings[2, 0] = SECRET
    return {
        "object array": obj,
        "string array": strings,
        "list": obj.tolist(),
        "pandas object column": pd.DataFrame({"a": obj[:, 0]}),
        "three-dimensional object array": obj[:, :, None],
        "three-dimensional list": obj[:, :, None].tolist(),
        "one-dimensional numbers": np.r_[NUMBER, _x()[1:]],
        "string scalar": SECRET,
    }


def _columns() -> dict[str, object]:
    obj = _secret_object(_y())
    return {
        "object array": obj,
        "list": obj.tolist(),
        "pandas object Series": pd.Series(obj),
        "numeric strings and a word": np.array(["12.5", SECRET, *["3.0"] * (N - 2)]),
        "three-dimensional object array": obj.reshape(-1, 1, 1),
        "string scalar": SECRET,
    }


TABLES = _tables()
COLUMNS = _columns()
BASES = {
    "linear": LinearRegression,
    "tree": lambda: DecisionTreeRegressor(max_depth=2, random_state=0),
}


def _regressor(base: str, **params) -> IterativeIntervalRegressor:
    return IterativeIntervalRegressor(
        BASES[base](), init="constant", max_iter=3, tol=None, **params
    )


# -- Leak 1: the base regressor's error chained behind the named refusal -----
@pytest.mark.parametrize("base", sorted(BASES))
@pytest.mark.parametrize(
    "variant", ["object array", "string array", "list", "pandas object column"]
)
def test_fit_names_a_string_column_with_nothing_chained(variant, base):
    error = _unchained(lambda: _regressor(base).fit(TABLES[variant], _Z()))
    assert isinstance(error, TypeError)
    assert str(error).startswith("X column ") and "row " in str(error)
    assert "cannot fit non-numeric features" in str(error)


# -- Leak 2: predict and score pass the features to the base regressor --------
@pytest.mark.parametrize("base", sorted(BASES))
@pytest.mark.parametrize("variant", sorted(TABLES))
def test_predict_and_score_keep_no_value(variant, base):
    reg = _regressor(base).fit(_X(), _Z())
    X = TABLES[variant]
    _refusal(lambda: reg.predict(X))
    _refusal(lambda: reg.score(X, _Z()))
    _refusal(lambda: reg.conf_int("predict", X))


@pytest.mark.parametrize("variant", ["object array", "pandas object column"])
def test_predict_names_the_string_column(variant):
    reg = _regressor("linear").fit(_X(), _Z())
    error = _unchained(lambda: reg.predict(TABLES[variant]))
    assert isinstance(error, TypeError)
    assert str(error).startswith("X column ") and "row 2 holds a str" in str(error)
    assert "cannot predict from non-numeric features" in str(error)


def test_predict_of_one_dimensional_numbers_withholds_them():
    reg = _regressor("linear").fit(_X(), _Z())
    error = _refusal(lambda: reg.predict(TABLES["one-dimensional numbers"]))
    assert "Expected 2D array" in str(error) and "values withheld" in str(error)


@pytest.mark.parametrize("variant", sorted(COLUMNS))
def test_score_y_and_weights_keep_no_value(variant):
    reg = _regressor("linear").fit(_X(), _Z())
    _refusal(lambda: reg.score(_X(), COLUMNS[variant]))
    _refusal(lambda: reg.score(_X(), _Z(), sample_weight=COLUMNS[variant]))


# -- Leak 3: features the numeric checks leave to the base regressor ---------
@pytest.mark.parametrize("base", sorted(BASES))
@pytest.mark.parametrize("variant", sorted(TABLES))
def test_fit_X_keeps_no_value(variant, base):
    _refusal(lambda: _regressor(base).fit(TABLES[variant], _Z()))
    default = IterativeIntervalRegressor(BASES[base]())  # init="auto", Newton
    _refusal(lambda: default.fit(TABLES[variant], _Z()))


@pytest.mark.parametrize(
    "variant", ["three-dimensional object array", "three-dimensional list"]
)
def test_fit_names_the_entry_of_a_three_dimensional_X(variant):
    error = _unchained(lambda: _regressor("linear").fit(TABLES[variant], _Z()))
    assert isinstance(error, TypeError)
    assert str(error).startswith("X must be numeric; entry (2, 0, 0) is a str")


def test_fit_of_a_scalar_X_is_refused_by_its_type():
    error = _unchained(lambda: _regressor("linear").fit(SECRET, _Z()))
    assert str(error).endswith("got a scalar of type str.")


def test_refits_of_the_base_regressor_keep_no_value():
    # what the iterations do with the features the fit was given
    X = TABLES["three-dimensional object array"]
    _refusal(lambda: Refitter(LinearRegression())(X, _y()))
    start = EMState(np.full(N, float(np.mean(_y()))), 1.0, None, np.inf)
    # any fitter of the iteration (a warm start's too), not only Refitter's
    for fitter in Refitter(LinearRegression()), _bare_fitter:
        em_map = make_em_map(X, _Z(), np.ones(N), "gaussian", True, fitter, {}, [], [])
        _refusal(lambda em_map=em_map: em_map(start.f, start.sigma))


def _bare_fitter(X, y, **fit_params):
    est = LinearRegression().fit(X, y, **fit_params)
    return est, est.predict(X)


# -- Leak 4: raw responses of a fit with a privatizer ------------------------
@pytest.mark.parametrize("variant", sorted(COLUMNS))
def test_privatized_fit_y_keeps_no_value(variant):
    reg = _regressor("linear", privatizer=IntervalCaseI(scale=3.0, random_state=0))
    _refusal(lambda: reg.fit(_X(), COLUMNS[variant]))
    # the check itself, outside the fit's redaction, quotes nothing either
    _unchained(lambda: reg._responses(COLUMNS[variant]))


def test_privatized_fit_names_the_entry_of_a_three_dimensional_y():
    reg = _regressor("linear", privatizer=IntervalCaseI(scale=3.0, random_state=0))
    y = COLUMNS["three-dimensional object array"]
    error = _unchained(lambda: reg.fit(_X(), y))
    assert str(error) == "y must be numeric; entry (2, 0, 0) is a str, not a number."
    numbers = np.r_[NUMBER, _y()[1:]].reshape(-1, 1, 1)
    error = _unchained(lambda: reg.fit(_X(), numbers))
    assert "got shape (40, 1, 1)" in str(error)


class _FlatteningPrivatizer(BaseEstimator):
    """A privatizer of a user's that hands scikit-learn a 1-D array."""

    def fit_transform(self, X, y=None):
        return check_array(np.ravel(X))


def test_a_privatizer_that_is_not_an_interval_mechanism_is_refused_first():
    # a user's transformer states no guarantee privacy_report could read: it
    # is refused by its type before it sees a raw response
    reg = _regressor("linear", privatizer=_FlatteningPrivatizer())
    error = _refusal(lambda: reg.fit(_X(), np.r_[NUMBER, _y()[1:]]))
    assert isinstance(error, TypeError)
    assert str(error) == (
        "privatizer must be an interval mechanism (IntervalCaseI, IntervalCaseII, "
        "IntervalMechanism, IntervalEnsemble); got _FlatteningPrivatizer."
    )


def test_privatized_fit_still_takes_numeric_strings_and_nan_free_numbers():
    privatizer = IntervalCaseI(scale=3.0, random_state=0)
    reg = _regressor("linear", privatizer=privatizer, random_state=0)
    ref = reg.fit(_X(), _y()).predict(_X())
    got = _regressor("linear", privatizer=privatizer, random_state=0)
    got = got.fit(_X(), _y().astype(str)).predict(_X())
    np.testing.assert_array_equal(got, ref)


# -- The other interval estimators -------------------------------------------
def _interval_data() -> dict[str, object]:
    obj = _secret_object(_Z())
    return {
        "object intervals": obj,
        "pandas object intervals": pd.DataFrame(obj),
        "three-dimensional object intervals": obj[:, :, None],
        **{f"column: {k}": v for k, v in COLUMNS.items()},
    }


DATA = _interval_data()


@pytest.mark.parametrize("cls", [IntervalMLE, IntervalNPMLE])
@pytest.mark.parametrize("variant", sorted(DATA))
def test_population_estimates_keep_no_value(cls, variant):
    _refusal(lambda: cls().fit(DATA[variant]))
    fitted = cls().fit(_Z())
    _refusal(lambda: fitted.conf_int("mean", X=DATA[variant]))


@pytest.mark.parametrize("cls", [IntervalMLE, IntervalNPMLE])
@pytest.mark.parametrize("variant", sorted(COLUMNS))
def test_population_estimate_weights_keep_no_value(cls, variant):
    _refusal(lambda: cls().fit(_Z(), sample_weight=COLUMNS[variant]))


MECHANISMS = {
    "IntervalCaseI": lambda: IntervalCaseI(scale=3.0),
    "IntervalCaseII": lambda: IntervalCaseII(scale=3.0),
    "IntervalMechanism": IntervalMechanism,
    "IntervalEnsemble": lambda: IntervalEnsemble(
        [IntervalCaseI(scale=3.0), IntervalCaseII(scale=3.0)]
    ),
}


@pytest.mark.parametrize("mechanism", sorted(MECHANISMS))
@pytest.mark.parametrize("variant", sorted(TABLES))
def test_mechanisms_keep_no_value(mechanism, variant):
    make = MECHANISMS[mechanism]
    _refusal(lambda: make().fit(TABLES[variant]))
    _refusal(lambda: make().fit_transform(TABLES[variant]))
    fitted = make().fit(_X())
    _refusal(lambda: fitted.transform(TABLES[variant]))


def test_dask_data_keep_no_value():
    da = pytest.importorskip("dask.array")
    X = da.from_array(_secret_object(_X()), chunks=(10, 1))
    Z = da.from_array(_secret_object(_Z()), chunks=(10, 2))
    _refusal(lambda: IterativeIntervalRegressor().fit(X, _Z()))
    _refusal(lambda: IterativeIntervalRegressor().fit(_X(), Z))
    _refusal(lambda: IntervalNPMLE().fit(Z))
    _refusal(lambda: IntervalMLE().fit(Z))
    fitted = IntervalCaseI(scale=3.0).fit(_X())
    _refusal(lambda: fitted.transform(X).compute())


def test_interval_mle_of_one_repeated_value_does_not_quote_it():
    from skprivate import IntervalMLE

    Z = np.full((40, 2), 123457.25)
    with pytest.raises(ValueError) as info:
        IntervalMLE().fit(Z)
    assert str(info.value) == (
        "X holds a single distinct exact value (40 rows): the scale of the "
        "family is not identified (its MLE is 0)."
    )
