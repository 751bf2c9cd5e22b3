"""Errors about raw data that do not quote the data.

scikit-learn's input checks quote the whole input in a few of their
messages: "Expected 2D array, got 1D array instead: array=[...]" (and the
same for a scalar) and "Complex data not supported" followed by the array.
numpy and Python end a failed conversion with the value ("could not
convert string to float: 'abc'", "invalid literal for int() with base 10:
'abc'"), and scikit-learn's label checks end with the labels ("y contains
previously unseen labels: [...]", "Expected array-like (array or
non-string sequence), got 'abc'", "Mix of label input types (string and
number); Got [...]", "Unknown label type: ..."); a 0-d array is quoted as
"got scalar `array(...)` instead", and a parameter check refusing a data
argument (a scalar ``y`` given to a metric) as "Got ... instead.".
Messages end up in logs, notebooks and bug reports, where no privacy
guarantee holds, so wherever raw records enter the library the quoted
values are withheld and the rest of the message kept.

Where a quotation ends
----------------------
numpy prints an array over several lines, and a whole-number float is
printed with a bare full stop (``60.``), so no full stop or line break
inside a printout can be taken for its end.  A quotation ``array=...`` is
therefore read as follows:

* a printout opening with ``[`` runs to its matching ``]``, brackets
  inside quoted strings (``'a]'``, ``"it's"``) not counted; it must be
  followed by the end of a sentence (``.`` and a new line or the end of
  the message) or by the end of the message;
* scikit-learn's own quotation (``array=...`` followed by
  ``.\\nReshape your data ...``) runs to the *last* such advice of the
  message: scikit-learn prints the advice after the values, so nothing in
  the values can move it.  A bracketed printout that does not end right
  before that last advice is withheld up to it;
* any other quotation (a 0-d array, say) runs to the first full stop
  before a new line, and a printout whose end cannot be found runs to the
  end of the message: when in doubt, more is withheld, never less.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
R = TypeVar("R")

WITHHELD = "<values withheld: raw data>"

_MARK = "array="
# what scikit-learn's check_array writes after the values it quotes
_ADVICE = ".\nReshape your data"
_COMPLEX = "Complex data not supported"
# messages that end with the value(s) they quote: all after these is withheld
_QUOTING_TAIL = re.compile(
    r"could not convert string to \w+: "
    r"|invalid literal for \w+\(\) with base \d+: "
    r"|y contains previously unseen labels: "
    r"|Expected array-like \(array or non-string sequence\), got "
    r"|Mix of label input types \(string and number\)(?:; Got |: ?)"
    r"|Unknown label type(?: for [^:\n]*)?: "
)
# messages that quote a value between their words: the value is withheld
# and the words around it kept.  A parameter check ("The 'y' parameter of
# f must be an array-like. Got 5.0 instead.") quotes the value it refused;
# the value is withheld when the parameter takes data (its constraint names
# an array-like or a sparse matrix, or it is named as data).  The value runs
# from the first ". Got " after "must be" to the last " instead.": a value
# printing either text in its own characters is withheld whole.
_PARAMETER = re.compile(
    r"(The '(?P<name>[^'\n]*)' parameter of .*? must be (?P<expected>.*?)\. Got )"
    r"(?P<value>.*)( instead\.)",
    re.DOTALL,
)
_DATA_PARAMETERS = frozenset(
    {"X", "Y", "x", "y", "y_true", "y_pred", "y_score", "y_prob", "y_proba"}
    | {"sample_weight", "labels", "data", "points", "values"}
)
# scikit-learn's refusal of a 0-d array: "got scalar `array(5.)` instead."
_SCALAR = re.compile(r"(got scalar `)(.*)(` instead)", re.DOTALL)


def _closing_bracket(message: str, start: int) -> int | None:
    """Index just past the ``]`` matching the ``[`` at ``message[start]``.

    Brackets inside quoted strings (``'...'`` or ``"..."``, backslash
    escapes honoured, as numpy prints ``repr`` of strings and bytes) do not
    count.  ``None`` when the brackets never balance.
    """
    depth = 0
    quote = None
    i = start
    while i < len(message):
        char = message[i]
        if quote is not None:
            if char == "\\":
                i += 1  # the escaped character cannot close the string
            elif char == quote:
                quote = None
        elif char in "'\"":
            quote = char
        elif char == "[":
            depth += 1
        elif char == "]":
            depth -= 1
            if depth == 0:
                return i + 1
        i += 1
    return None


def _ends_a_sentence(message: str, end: int) -> bool:
    """Whether ``message[end:]`` is empty, ``"."`` or starts ``".\\n"``."""
    rest = message[end:]
    return rest in ("", ".") or rest.startswith(".\n")


def _quotation_end(message: str, start: int) -> int:
    """Index just past the values quoted from ``message[start]`` on.

    See the module docstring for the rules; a final full stop is left to
    the sentence.
    """
    advice = message.rfind(_ADVICE, start)
    if message.startswith("[", start):
        end = _closing_bracket(message, start)
        if end is not None and (
            end == advice or (advice < 0 and _ends_a_sentence(message, end))
        ):
            return end
    if advice >= 0:
        return advice
    if message.startswith("[", start):  # unbalanced or followed by more text
        return len(message) - 1 if message.endswith(".") else len(message)
    stop = message.find(".\n", start)
    if stop >= 0:
        return stop
    return len(message) - 1 if message.endswith(".") else len(message)


def redact_quoted_values(message: str) -> str:
    """``message`` with the input values scikit-learn quotes withheld.

    Parameters
    ----------
    message : str
        An error message from an input check.

    Returns
    -------
    message : str
        The same text with every quoted array (``array=`` followed by a
        numpy printout, over as many lines as it takes) and the value ending
        a failed conversion or label check replaced by a note that the
        values are withheld; a message quoting nothing is returned as is.

    Examples
    --------
    >>> text = "got 1D array instead:\\narray=[3.5 60.\\n 7.25].\\nReshape."
    >>> print(redact_quoted_values(text))
    got 1D array instead:
    array=<values withheld: raw data>.
    Reshape.
    >>> print(redact_quoted_values("could not convert string to float: 'x7'"))
    could not convert string to float: <values withheld: raw data>
    """
    if message.startswith(_COMPLEX):
        return f"{_COMPLEX} ({WITHHELD})."
    complex_data = message.find(_COMPLEX + "\n")
    if complex_data >= 0:  # the same message behind a prefix: the array follows
        return f"{message[:complex_data]}{_COMPLEX} ({WITHHELD})."
    parts = []
    done = 0
    mark = message.find(_MARK)
    while mark >= 0:
        start = mark + len(_MARK)
        parts.append(message[done:start] + WITHHELD)
        done = max(_quotation_end(message, start), start)
        mark = message.find(_MARK, done)
    parts.append(message[done:])
    text = _SCALAR.sub(rf"\g<1>{WITHHELD}\g<3>", "".join(parts))
    text = _PARAMETER.sub(_withhold_parameter_value, text)
    tail = _QUOTING_TAIL.search(text)
    if tail is not None:
        text = text[: tail.end()] + WITHHELD
    return text


def _withhold_parameter_value(match: re.Match) -> str:
    """A parameter check's refusal, its value withheld if the parameter is data."""
    expected = match.group("expected")
    if (
        match.group("name") in _DATA_PARAMETERS
        or "array-like" in expected
        or "sparse" in expected
    ):
        return f"{match.group(1)}{WITHHELD}{match.group(5)}"
    return match.group(0)


def _redact_chain(error: BaseException) -> None:
    """Redact ``error`` and every error chained to it, in place.

    An error raised while handling another keeps that one as its
    ``__context__`` (or ``__cause__``) even when ``raise ... from None``
    hides it from the traceback; debuggers and error trackers still read
    it, so its quotation is withheld too.  Only ``ValueError`` and
    ``TypeError`` messages are rewritten (their ``args`` are the message).
    """
    seen = set()
    pending = [error]
    while pending:
        current = pending.pop()
        if current is None or id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, ValueError | TypeError):
            message = str(current)
            text = redact_quoted_values(message)
            if text != message:
                current.args = (text,)
        pending += [current.__cause__, current.__context__]


@contextmanager
def raw_values_withheld() -> Iterator[None]:
    """Withhold the input values quoted by a ``ValueError``/``TypeError``.

    The error propagates as the same object, its message redacted by
    :func:`redact_quoted_values` (no second exception is raised, so no
    error holding the quoted values is chained to it as its context); the
    errors already chained to it (``__cause__``, ``__context__``, shown or
    suppressed) are redacted the same way.

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.utils import check_array
    >>> with raw_values_withheld():
    ...     check_array(np.array([3.5, 7.25]))
    Traceback (most recent call last):
    ...
    ValueError: Expected 2D array, got 1D array instead:
    array=<values withheld: raw data>.
    ...
    """
    try:
        yield
    except (ValueError, TypeError) as error:
        _redact_chain(error)
        raise


def withholds_raw_values(method: Callable[P, R]) -> Callable[P, R]:
    """Decorate a method that takes raw records with :func:`raw_values_withheld`.

    Examples
    --------
    >>> from sklearn.utils import check_array
    >>> @withholds_raw_values
    ... def fit(X):
    ...     return check_array(X)
    >>> fit(3.5)
    Traceback (most recent call last):
    ...
    ValueError: Expected 2D array, got scalar array instead:
    array=<values withheld: raw data>.
    ...
    """

    @functools.wraps(method)
    def checked(*args: P.args, **kwargs: P.kwargs) -> R:
        with raw_values_withheld():
            return method(*args, **kwargs)

    return checked
