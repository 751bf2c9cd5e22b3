"""Whole quotations of raw data are withheld, however numpy prints them.

numpy prints an array over several lines and a whole-number float with a
bare full stop (``60.``), so a quotation cannot be cut at the first full
stop before a new line: here every kind of printout (floats with whole
numbers at line ends, ints, 2-D, strings holding brackets and quotes,
object arrays, summarised arrays) is withheld whole and the advice that
follows it kept, through :func:`redact_quoted_values` and end to end
through the estimators and functions that take raw records.  The messages
ending with a value (failed conversions, label checks) and the errors
chained to a refusal are withheld too.
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest
from sklearn.preprocessing import LabelEncoder
from sklearn.utils import check_array
from sklearn.utils.multiclass import type_of_target

from skprivate import (
    IntegralPrivateStatistics,
    LaplaceLDP,
    Microaggregator,
    integral_describe,
    laplace_describe,
    laplace_statistic,
)
from skprivate.integral._dp import _Moments
from skprivate.utils._redact import (
    WITHHELD,
    raw_values_withheld,
    redact_quoted_values,
)

AGES = np.array(
    [
        *(23.0, 45.0, 31.0, 64.0, 25.0, 52.0, 47.0, 39.0, 60.0, 33.0),
        *(41.0, 58.0, 29.0, 36.0, 50.0, 44.0, 61.0, 27.0, 38.0, 55.0),
    ]
)
ADVICE = (
    "Reshape your data either using array.reshape(-1, 1) if your data has a "
    "single feature or array.reshape(1, -1) if it contains a single sample."
)
ONE_D = f"Expected 2D array, got 1D array instead:\narray={WITHHELD}.\n{ADVICE}"
SECRET = "zq-secret-71c3"


def _sklearn_message(values, **params) -> str:
    """The message scikit-learn's ``check_array`` refuses ``values`` with."""
    with pytest.raises(ValueError) as caught:
        check_array(values, **params)
    return str(caught.value)


def _numbers_shown(text: str, values) -> list[str]:
    """Every way ``text`` shows one of ``values``: ``64``, ``64.``, ``64.0``."""
    shown = []
    for value in np.ravel(values):
        if float(value).is_integer():
            digits = str(int(value))
            if re.search(rf"(?<![\d.]){digits}(?![\d]|\.\d)", text):
                shown.append(digits)
        for form in (repr(float(value)), f"{value:g}", f"{value:.3e}"):
            if form in text:
                shown.append(form)
    return shown


# -- the printouts numpy makes, in scikit-learn's message ---------------------
def test_floats_over_lines_with_whole_numbers_at_line_ends():
    message = _sklearn_message(AGES)
    assert re.search(r"\d\.\n ", message)  # "27.\n": the case that leaked
    text = redact_quoted_values(message)
    assert text == ONE_D
    assert _numbers_shown(text, AGES) == []


def test_ints_over_lines():
    values = np.arange(1000, 1040)
    message = _sklearn_message(values)
    assert message.count("\n") > 3  # printed over several lines
    assert redact_quoted_values(message) == ONE_D


def test_a_summarised_array():
    values = np.arange(3000.0) + 0.25
    message = _sklearn_message(values)
    assert "..." in message
    text = redact_quoted_values(message)
    assert text == ONE_D
    assert "e+03" not in text and "..." not in text


def test_strings_holding_brackets_quotes_and_full_stops():
    values = np.array(["a]", "it's", 'say "x".', "b].", SECRET, "[c"] * 3)
    message = _sklearn_message(values, dtype=None)
    assert redact_quoted_values(message) == ONE_D


def test_an_object_array():
    values = np.array([1, SECRET, None, 2.5, {"k": "]"}, 60.0] * 4, dtype=object)
    message = _sklearn_message(values, dtype=None)
    assert redact_quoted_values(message) == ONE_D


def test_a_scalar_array_of_a_string_with_a_line_break():
    message = _sklearn_message(np.array(f"{SECRET}.\nmore"), dtype=None)
    assert redact_quoted_values(message) == ONE_D.replace("1D array", "scalar array")


class _Tricky:
    """An object whose printout ends like a quotation does."""

    def __repr__(self) -> str:
        return "x" * 70 + "]."


def test_a_printout_that_looks_finished_early_is_withheld_to_the_advice():
    values = np.array([_Tricky(), 123457.25, _Tricky()], dtype=object)
    message = _sklearn_message(values, dtype=None)
    assert "].\n" in message.split("\nReshape")[0]  # a false end inside
    text = redact_quoted_values(message)
    assert text == ONE_D
    assert "123457" not in text


def test_two_dimensional_printouts():
    values = np.arange(40.0).reshape(2, 20) * 3  # rows wrap after "39."
    printed = str(values)
    assert printed.startswith("[[") and re.search(r"\d\.\n ", printed)
    template = f"Expected 2D array, got 1D array instead:\narray={printed}.\n{ADVICE}"
    assert redact_quoted_values(template) == ONE_D
    # in a message without scikit-learn's advice, up to the matching bracket
    message = f"first array={printed}.\nthen array={printed}.\nend"
    text = redact_quoted_values(message)
    assert text == f"first array={WITHHELD}.\nthen array={WITHHELD}.\nend"
    assert _numbers_shown(text, values) == []


def test_unbalanced_printout_is_withheld_to_the_end():
    assert redact_quoted_values("got array=[1. 60.\n 2.") == f"got array={WITHHELD}."
    assert redact_quoted_values("array=[1.] then 60.") == f"array={WITHHELD}."


# -- messages that end with the value they quote ------------------------------
def _raised(call) -> str:
    with pytest.raises(ValueError) as caught:
        call()
    return str(caught.value)


@pytest.mark.parametrize(
    ("call", "kept"),
    [
        (
            lambda: np.asarray([SECRET], dtype=float),
            "could not convert string to float: ",
        ),
        (
            lambda: np.asarray([SECRET], dtype=np.int64),
            "invalid literal for int() with base 10: ",
        ),
        (
            lambda: LabelEncoder().fit(["a", "b"]).transform([SECRET]),
            "y contains previously unseen labels: ",
        ),
        (
            lambda: type_of_target(SECRET),
            "Expected array-like (array or non-string sequence), got ",
        ),
    ],
)
def test_a_message_ending_with_the_value_keeps_only_its_words(call, kept):
    message = _raised(call)
    assert message.startswith(kept)
    assert redact_quoted_values(message) == kept + WITHHELD


def test_errors_chained_to_the_refusal_are_withheld_too():
    with pytest.raises(TypeError) as caught, raw_values_withheld():
        try:
            float(SECRET)
        except ValueError:
            raise TypeError("x row 0 holds a str that is not a number.") from None
    assert str(caught.value) == "x row 0 holds a str that is not a number."
    assert str(caught.value.__context__) == (
        f"could not convert string to float: {WITHHELD}"
    )


# -- end to end ---------------------------------------------------------------
@pytest.mark.parametrize(
    "call",
    [
        lambda: LaplaceLDP(epsilon=1, bounds=(0, 100)).fit(AGES),
        lambda: (
            LaplaceLDP(epsilon=1, bounds=(0, 100)).fit(AGES[:, None]).transform(AGES)
        ),
        lambda: Microaggregator(3).fit(AGES),
        lambda: IntegralPrivateStatistics().fit(AGES),
        lambda: integral_describe(AGES.tolist()),
    ],
    ids=["LaplaceLDP.fit", "LaplaceLDP.transform", "Microaggregator", "IPS", "list"],
)
def test_a_one_dimensional_input_is_refused_without_its_values(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises(ValueError) as caught:
            call()
    for text in (str(caught.value), repr(caught.value)):
        assert "64." not in text and "60." not in text
        assert _numbers_shown(text, AGES) == []
    assert str(caught.value) == ONE_D


@pytest.mark.parametrize(
    "call",
    [
        lambda x: laplace_statistic(x, "mean", 1.0, (0, 1)),
        lambda x: laplace_describe(x, 1.0, (0, 1)),
        lambda x: _Moments(0.0, 1.0, clip=True).block(x, 0),  # one dask block
    ],
    ids=["laplace_statistic", "laplace_describe", "dask block"],
)
def test_dp_baselines_keep_no_value_in_the_errors_behind_a_refusal(call):
    x = np.array([[SECRET], [1.0]], dtype=object)
    with pytest.raises((TypeError, ValueError)) as caught:
        call(x)
    error = caught.value
    while error is not None:
        assert SECRET not in str(error)
        error = error.__context__


# -- scikit-learn messages that quote a value between or after their words --
def _caught(call) -> str:
    with pytest.raises((TypeError, ValueError)) as caught, raw_values_withheld():
        call()
    return str(caught.value)


@pytest.mark.parametrize("value", [SECRET, 123457.25])
def test_a_parameter_check_refusing_data_withholds_the_value(value):
    from sklearn.metrics import accuracy_score

    text = _caught(lambda: accuracy_score(value, [1]))
    assert text == (
        "The 'y_true' parameter of accuracy_score must be an array-like or a "
        f"sparse array or matrix. Got {WITHHELD} instead."
    )
    text = _caught(lambda: accuracy_score([1], [1], sample_weight=value))
    assert text == (
        "The 'sample_weight' parameter of accuracy_score must be an array-like "
        f"or None. Got {WITHHELD} instead."
    )


def test_a_parameter_check_on_a_setting_keeps_the_value():
    message = (
        "The 'epsilon' parameter of Thing must be a float in the range "
        "(0, inf). Got -1 instead."
    )
    assert redact_quoted_values(message) == message
    # a data parameter by its name, whatever its constraint
    message = f"The 'y' parameter of f must be an int. Got '{SECRET}' instead."
    assert redact_quoted_values(message) == (
        f"The 'y' parameter of f must be an int. Got {WITHHELD} instead."
    )


def test_a_value_printing_the_words_of_the_message_is_withheld_whole():
    value = f"'{SECRET}. Got x instead. {SECRET}'"
    message = f"The 'y_true' parameter of f must be an array-like. Got {value} instead."
    text = redact_quoted_values(message)
    assert SECRET not in text
    assert text == (
        f"The 'y_true' parameter of f must be an array-like. Got {WITHHELD} instead."
    )


def test_mixed_label_types_are_named_without_the_labels():
    from sklearn.utils.multiclass import unique_labels

    text = _caught(lambda: unique_labels([SECRET, "b"], [1, 2]))
    assert SECRET not in text
    assert text.startswith("Mix of label input types (string and number)")
    assert WITHHELD in text
    message = f"Mix of label input types (string and number): ['{SECRET}' 1.5]"
    assert redact_quoted_values(message) == (
        f"Mix of label input types (string and number): {WITHHELD}"
    )


def test_unknown_label_types_and_scalars_are_named_without_the_values():
    from sklearn.utils.validation import check_consistent_length

    text = _caught(lambda: unique_labels_3d())
    assert "123457" not in text and text == f"Unknown label type: {WITHHELD}"
    message = f"Unknown label type for y: array(['{SECRET}'])"
    assert redact_quoted_values(message) == f"Unknown label type for y: {WITHHELD}"
    text = _caught(lambda: check_consistent_length(np.array(123457.25), [1]))
    assert "123457" not in text
    assert text.endswith(f"got scalar `{WITHHELD}` instead.")


def unique_labels_3d():
    from sklearn.utils.multiclass import unique_labels

    return unique_labels(np.array([[[123457.25]]]))


@pytest.mark.parametrize("prefix", ["y: ", "Bad input. "])
def test_complex_data_behind_a_prefix_is_withheld(prefix):
    message = f"{prefix}Complex data not supported\n[1.+2.j 123457.25+0.j]\n"
    assert redact_quoted_values(message) == (
        f"{prefix}Complex data not supported ({WITHHELD})."
    )
    # the words alone, with no printout after them, quote nothing
    other = f"{prefix}Complex data not supported"
    assert redact_quoted_values(other) == other
