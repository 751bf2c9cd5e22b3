"""Redaction of raw values quoted by input checks, pinned exactly.

Each test pins a documented behaviour of ``skprivate/utils/_redact.py``
with a small exact case: where a quotation ends (a full stop before a new
line, or the end of the message), every quotation of a message, the
complex-data message, a message quoting nothing, and the error that
propagates (the same object, nothing chained, other exceptions untouched).
``benchmarks/_mutation_specs_validation.py`` lists the mutants these tests
kill.
"""

import pytest

from skprivate.utils._redact import (
    WITHHELD,
    raw_values_withheld,
    redact_quoted_values,
    withholds_raw_values,
)


def test_withheld_note_text():
    assert WITHHELD == "<values withheld: raw data>"


def test_quotation_over_lines_ends_at_the_full_stop_before_a_new_line():
    message = (
        "Expected 2D array, got 1D array instead:\narray=[1.5 2.25\n 3.125].\n"
        "Reshape your data either using array.reshape(-1, 1)."
    )
    assert redact_quoted_values(message) == (
        "Expected 2D array, got 1D array instead:\n"
        f"array={WITHHELD}.\n"
        "Reshape your data either using array.reshape(-1, 1)."
    )


def test_quotation_at_the_end_keeps_its_full_stop_or_none():
    assert redact_quoted_values("got array=[7.5 8.25].") == f"got array={WITHHELD}."
    assert redact_quoted_values("got array=[7.5 8.25]") == f"got array={WITHHELD}"
    # decimals inside the quotation are not where it ends
    assert redact_quoted_values("array=1.5") == f"array={WITHHELD}"


def test_every_quotation_of_a_message_is_withheld():
    message = "first array=[1.5].\nsecond array=[2.5].\nend"
    assert redact_quoted_values(message) == (
        f"first array={WITHHELD}.\nsecond array={WITHHELD}.\nend"
    )


def test_complex_data_message_keeps_only_its_first_words():
    message = "Complex data not supported\n[1.+2.j 3.+0.j]\n"
    assert redact_quoted_values(message) == f"Complex data not supported ({WITHHELD})."
    # the words elsewhere in a message are not that message
    other = "Input contains: Complex data not supported"
    assert redact_quoted_values(other) == other


def test_message_quoting_nothing_is_returned_as_is():
    message = "X has 3 features, but the model expects 2."
    assert redact_quoted_values(message) == message


@pytest.mark.parametrize("kind", [ValueError, TypeError])
def test_the_same_error_propagates_redacted_with_nothing_chained(kind):
    error = kind("bad input:\narray=[4.5 6.75].\nFix it.")
    with pytest.raises(kind) as caught, raw_values_withheld():
        raise error
    assert caught.value is error
    assert caught.value.args == (f"bad input:\narray={WITHHELD}.\nFix it.",)
    assert caught.value.__context__ is None and caught.value.__cause__ is None


def test_an_error_quoting_nothing_keeps_its_arguments():
    error = ValueError("bad input", 3)
    with pytest.raises(ValueError) as caught, raw_values_withheld():
        raise error
    assert caught.value.args == ("bad input", 3)


def test_other_exceptions_pass_untouched():
    error = RuntimeError("array=[4.5 6.75]")
    with pytest.raises(RuntimeError) as caught, raw_values_withheld():
        raise error
    assert caught.value.args == ("array=[4.5 6.75]",)


def test_no_error_passes_through():
    with raw_values_withheld():
        value = 1 + 1
    assert value == 2


def test_decorated_method_keeps_its_name_arguments_and_result():
    @withholds_raw_values
    def fit(a, b=0, *, c=0):
        """Fit."""
        if a < 0:
            raise ValueError(f"array=[{a}]")
        return a + b + c

    assert fit.__name__ == "fit" and fit.__doc__ == "Fit."
    assert fit(1, 2, c=3) == 6
    with pytest.raises(ValueError, match="values withheld") as caught:
        fit(-2.5)
    assert "2.5" not in str(caught.value)
