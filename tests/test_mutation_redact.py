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


# --- pinned cases for the private helpers (each kills specific mutants) ---


def _bracket_end(message, start=0):
    """``_closing_bracket`` run in a thread: a mutant that never ends fails fast."""
    import threading

    from skprivate.utils._redact import _closing_bracket

    result = []
    worker = threading.Thread(
        target=lambda: result.append(_closing_bracket(message, start)), daemon=True
    )
    worker.start()
    worker.join(timeout=5)
    assert result, "_closing_bracket did not finish"
    return result[0]


def test_closing_bracket_skips_brackets_inside_a_string():
    assert _bracket_end("['ab']") == 6
    assert _bracket_end("['a]']") == 6
    assert _bracket_end("[']']") == 5


def test_closing_bracket_counts_brackets_after_a_closed_string():
    assert _bracket_end("['a']") == 5
    assert _bracket_end("['a'] [") == 5


def test_closing_bracket_opens_strings_only_at_quote_characters():
    assert _bracket_end("[X]") == 3
    assert _bracket_end("[\\]") == 3


def test_closing_bracket_honours_a_backslash_escape_in_a_string():
    # [ ' \ ' ] ' ]: the escaped quote does not close the string
    assert _bracket_end("['\\']']") == 7
    # [ ' \ ' ' ]: only the one character after the backslash is skipped
    assert _bracket_end("['\\'']") == 6


def test_closing_bracket_escape_skips_forward_from_a_later_start():
    # the text before ``start`` is never read again
    assert _bracket_end("ab']['\\']']", 4) == 11


def test_closing_bracket_unbalanced_is_none():
    assert _bracket_end("[1 [2]") is None


def test_advice_before_the_quotation_is_not_its_end():
    message = "a.\nReshape your data\narray=secret"
    assert redact_quoted_values(message) == f"a.\nReshape your data\narray={WITHHELD}"


def test_quotation_runs_to_the_last_advice():
    message = "array=[1].\nReshape your data [2].\nReshape your data"
    assert redact_quoted_values(message) == f"array={WITHHELD}.\nReshape your data"


def test_unbalanced_printout_runs_to_the_end_of_the_message():
    assert redact_quoted_values("array=[1 2") == f"array={WITHHELD}"
    assert redact_quoted_values("array=[1 2.") == f"array={WITHHELD}."


def test_full_stop_before_the_quotation_is_not_its_end():
    assert redact_quoted_values("a.\narray=secret") == f"a.\narray={WITHHELD}"


def test_other_quotation_ends_at_the_first_full_stop_before_a_new_line():
    message = "array=secret.\nnext.\nlast"
    assert redact_quoted_values(message) == f"array={WITHHELD}.\nnext.\nlast"
    assert redact_quoted_values("array=x.\nmore") == f"array={WITHHELD}.\nmore"


def test_other_quotation_at_the_end_leaves_its_final_full_stop():
    assert redact_quoted_values("got array=secret.") == f"got array={WITHHELD}."
    assert redact_quoted_values("got array=secret") == f"got array={WITHHELD}"


def test_quotation_end_at_the_very_start():
    from skprivate.utils._redact import _quotation_end

    assert _quotation_end(".\nabc", 0) == 0
    assert _quotation_end(".\nReshape your data", 0) == 0


def test_complex_data_behind_a_prefix_keeps_the_prefix_up_to_its_first_mention():
    message = "p: Complex data not supported\nComplex data not supported\n[1j]"
    assert (
        redact_quoted_values(message) == f"p: Complex data not supported ({WITHHELD})."
    )


def test_three_quotations_are_all_withheld():
    message = "array=1.\n array=2.\n array=3"
    assert redact_quoted_values(message) == (
        f"array={WITHHELD}.\n array={WITHHELD}.\n array={WITHHELD}"
    )


def test_chain_cause_is_redacted_when_there_is_no_context():
    from skprivate.utils._redact import _redact_chain

    error = ValueError("outer")
    cause = ValueError("array=secret")
    error.__cause__ = cause
    _redact_chain(error)
    assert cause.args == (f"array={WITHHELD}",)


def test_chain_redacts_both_cause_and_context():
    from skprivate.utils._redact import _redact_chain

    error = ValueError("outer")
    cause = ValueError("array=first")
    context = TypeError("array=second")
    error.__cause__ = cause
    error.__context__ = context
    _redact_chain(error)
    assert cause.args == (f"array={WITHHELD}",)
    assert context.args == (f"array={WITHHELD}",)


def test_chain_reads_an_error_reached_twice_only_once():
    from skprivate.utils._redact import _redact_chain

    class Counted(ValueError):
        reads = 0

        def __str__(self):
            type(self).reads += 1
            return super().__str__()

    shared = Counted("array=secret")
    error = ValueError("outer")
    middle = ValueError("middle")
    error.__cause__ = shared
    error.__context__ = middle
    middle.__context__ = shared
    _redact_chain(error)
    assert Counted.reads == 1
    assert shared.args == (f"array={WITHHELD}",)


@pytest.mark.parametrize(
    "expected",
    [
        "an array-like",
        "a sparse matrix",
        "an array-like or a sparse matrix",
    ],
)
def test_a_parameter_that_takes_data_is_known_by_its_constraint(expected):
    # a parameter not named as data ('table') whose constraint names an
    # array-like or a sparse matrix takes data: its value is withheld
    message = f"The 'table' parameter of f must be {expected}. Got [1.5, 2.25] instead."
    assert redact_quoted_values(message) == (
        f"The 'table' parameter of f must be {expected}. Got {WITHHELD} instead."
    )


def test_a_parameter_that_takes_no_data_keeps_its_value():
    message = "The 'alpha' parameter of f must be a float. Got 'x' instead."
    assert redact_quoted_values(message) == message
