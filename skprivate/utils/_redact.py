"""Errors about raw data that do not quote the data.

scikit-learn's input checks quote the whole input in a few of their
messages: "Expected 2D array, got 1D array instead: array=[...]" (and the
same for a scalar) and "Complex data not supported" followed by the array.
Messages end up in logs, notebooks and bug reports, where no privacy
guarantee holds, so wherever raw records enter the library the quoted
values are withheld and the rest of the message kept.
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

# "array=" up to the full stop that ends scikit-learn's quotation (the
# quotation itself may span lines), or to the end of the message.
_QUOTED_ARRAY = re.compile(r"array=.*?(?=\.\n|\.?\Z)", re.S)
_COMPLEX = "Complex data not supported"


def redact_quoted_values(message: str) -> str:
    """``message`` with the input values scikit-learn quotes withheld.

    Parameters
    ----------
    message : str
        An error message from an input check.

    Returns
    -------
    message : str
        The same text with every quoted array replaced by a note that the
        values are withheld; a message quoting nothing is returned as is.

    Examples
    --------
    >>> text = "got 1D array instead:\\narray=[3.5 7.25].\\nReshape."
    >>> print(redact_quoted_values(text))
    got 1D array instead:
    array=<values withheld: raw data>.
    Reshape.
    """
    if message.startswith(_COMPLEX):
        return f"{_COMPLEX} ({WITHHELD})."
    return _QUOTED_ARRAY.sub(f"array={WITHHELD}", message)


@contextmanager
def raw_values_withheld() -> Iterator[None]:
    """Withhold the input values quoted by a ``ValueError``/``TypeError``.

    The error propagates as the same object, its message redacted by
    :func:`redact_quoted_values` (no second exception is raised, so no
    error holding the quoted values is chained to it as its context).

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
        message = str(error)
        text = redact_quoted_values(message)
        if text != message:
            error.args = (text,)
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
