"""Statistics of rows that merge across blocks, and the one way to compute them.

A learner whose estimate depends on its rows only through a statistic that
merges (counts on a grid fixed in advance, counts of distinct rows,
moments) describes that statistic by a :class:`RowStatistic`: how a block
of rows becomes a value, validation included, and how values merge.
:func:`reduce_rows` computes the value of all the rows, as one block of an
in-memory array or as one block per row partition of a dask collection,
merged in a tree on the workers (:func:`skprivate.utils._dask.reduce_collection`);
``partial_fit`` merges the value of each chunk into the running one.  So
``fit``, ``partial_fit`` and a fit on a dask collection run the same code,
and refuse a bad value with the same message, naming its row in the whole
data.

Nothing here imports dask; nothing here knows a learner.
"""

from __future__ import annotations

import contextvars
import re
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from sklearn.utils.validation import validate_data

from ._dask import describe_collection, is_dask_collection, reduce_collection
from ._redact import raw_values_withheld
from .validation import check_float_array, check_numeric_input

__all__ = [
    "FiniteRange",
    "RowStatistic",
    "count_and_reduce_rows",
    "global_rows",
    "n_rows",
    "reduce_rows",
    "renumber_rows",
    "rows_counted_from",
    "validate_rows",
    "value_range",
]


class RowStatistic:
    """How a statistic of rows is computed block by block and merged.

    A subclass implements :meth:`block` and :meth:`merge`.  Its instances
    hold what a block needs besides its rows (a grid, a design, bounds);
    they and the values they compute are pickled to dask workers, so both
    stay small: a value's size does not grow with the number of rows (or
    grows only with the number of distinct rows).

    Attributes
    ----------
    streamable : bool
        Whether the statistic was set up without reading any row, so that
        later chunks (``partial_fit``) can be added to it.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils._statistic import RowStatistic, reduce_rows
    >>> class Count(RowStatistic):
    ...     def block(self, rows, first_row):
    ...         return len(rows)
    ...
    ...     def merge(self, values):
    ...         return sum(values)
    >>> reduce_rows(np.zeros((5, 2)), Count())
    5
    """

    streamable = True

    def block(self, rows: Any, first_row: int) -> Any:
        """The value of one block of rows.

        Parameters
        ----------
        rows : array-like
            Consecutive rows of the data (an array, or a pandas object for
            a partition of a dask DataFrame).
        first_row : int
            Position of the block's first row in the whole data: errors
            name row ``first_row + i``, and statistics that depend on row
            numbers (folds assigned round robin) use it.

        Returns
        -------
        value : object

        Raises
        ------
        ValueError
            On a bad value, naming its row in the whole data.
        """
        raise NotImplementedError

    def merge(self, values: list) -> Any:
        """Merge values as if their rows formed one block.

        Also called with a single value, to compact it before it travels
        between workers (for example pooling equal rows).

        Parameters
        ----------
        values : list
            Values of :meth:`block` or :meth:`merge`, in row order.

        Returns
        -------
        value : object
        """
        raise NotImplementedError


def reduce_rows(data: Any, statistic: RowStatistic) -> Any:
    """The value of ``statistic`` over all the rows of ``data``.

    See :func:`count_and_reduce_rows` for the number of rows too.

    Parameters
    ----------
    data : array-like or dask collection
        An in-memory array is one block; a dask array or DataFrame is one
        block per row partition, computed on the workers and merged in a
        tree (the first failing block's error is raised).
    statistic : RowStatistic
        The statistic.

    Returns
    -------
    value : object

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils._statistic import FiniteRange, reduce_rows
    >>> reduce_rows(np.array([[3.0], [np.nan], [-1.0]]), FiniteRange())
    (-1.0, 3.0)
    """
    return count_and_reduce_rows(data, statistic)[0]


def count_and_reduce_rows(data: Any, statistic: RowStatistic) -> tuple[Any, int]:
    """The value of ``statistic`` over the rows of ``data``, and their number.

    Parameters
    ----------
    data : array-like or dask collection
        As for :func:`reduce_rows`.
    statistic : RowStatistic
        The statistic.

    Returns
    -------
    value : object
    n_rows : int

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils._statistic import FiniteRange, count_and_reduce_rows
    >>> count_and_reduce_rows(np.array([[1.0], [4.0]]), FiniteRange())
    ((1.0, 4.0), 2)
    """
    if is_dask_collection(data):
        return reduce_collection(data, statistic)
    value = statistic.block(data, 0)  # validates: an error here names its row
    return value, n_rows(data)


def n_rows(data: Any) -> int:
    """Number of rows of in-memory ``data`` (array, frame, list or array-like).

    Examples
    --------
    >>> from skprivate.utils._statistic import n_rows
    >>> n_rows([[1, 2], [3, 4], [5, 6]])
    3
    """
    if hasattr(data, "__len__"):
        return len(data)
    return int(np.asarray(data).shape[0])


class FiniteRange(RowStatistic):
    """Smallest and largest finite value of the rows (``None`` when none).

    By default non-finite values are left to the statistic that follows,
    which refuses them naming their row.

    Parameters
    ----------
    name : str, default="X"
        Name of the data in the refusal of a value that is not a number
        (which names its row and type, never the value).
    columns : bool, default=False
        The range of each column (a pair of arrays ``(lows, highs)``; a
        column without a finite value has ``inf`` and ``-inf``) instead of
        the range of all the values.
    finite : bool, default=False
        Refuse a NaN or an infinite value instead of leaving it out: the
        rows are checked by :func:`~skprivate.utils.validation.check_numeric_input`
        with ``finite=True``, as an in-memory ``fit`` that reads the range
        checks them, so a block refuses a value with the same message,
        naming its row in the whole data and its column (by name in a
        frame).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils._statistic import FiniteRange
    >>> FiniteRange().merge([(0.0, 2.0), None, (-1.0, 1.0)])
    (-1.0, 2.0)
    >>> lows, highs = FiniteRange(columns=True).block(np.array([[1, 5], [3, 4]]), 0)
    >>> lows.tolist(), highs.tolist()
    ([1.0, 4.0], [3.0, 5.0])
    """

    def __init__(
        self, name: str = "X", columns: bool = False, finite: bool = False
    ) -> None:
        self.name = name
        self.columns = columns
        self.finite = finite

    def block(self, rows: Any, first_row: int) -> Any:
        if self.finite:
            rows = check_numeric_input(
                rows, name=self.name, finite=True, first_row=first_row
            )
        # a block of a dask collection is converted here: a string is refused
        # by its row and type, never quoted (numpy's error would quote it)
        values = check_float_array(
            rows, name=self.name, allow_nan=True, first_row=first_row
        )
        if self.columns:
            if values.ndim == 1:
                values = values[:, None]
            if values.shape[0] == 0:
                return None
            # a column without a finite value has the empty range (inf, -inf)
            finite = np.isfinite(values)
            lows = np.where(finite, values, np.inf).min(axis=0)
            highs = np.where(finite, values, -np.inf).max(axis=0)
            return lows, highs
        finite = np.isfinite(values)
        if not finite.all():
            values = values[finite]
        if values.size == 0:
            return None
        return float(values.min()), float(values.max())

    def merge(self, values: list) -> Any:
        found = [v for v in values if v is not None]
        if not found:
            return None
        if self.columns:
            lows = np.min([v[0] for v in found], axis=0)
            highs = np.max([v[1] for v in found], axis=0)
            return lows, highs
        return min(v[0] for v in found), max(v[1] for v in found)


def value_range(data: Any, name: str = "X") -> tuple[float, float]:
    """Smallest and largest finite value of ``data`` (one pass of dask).

    Parameters
    ----------
    data : array-like or dask collection
        Values.
    name : str, default="X"
        Name used in the error message.

    Returns
    -------
    low, high : float

    Raises
    ------
    ValueError
        When ``data`` holds no finite value.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils._statistic import value_range
    >>> value_range(np.array([[2.0], [5.0], [np.inf]]))
    (2.0, 5.0)
    """
    found = reduce_rows(data, FiniteRange(name))
    if found is None:
        raise ValueError(f"{name} holds no finite value.")
    return found


def validate_rows(estimator: Any, X: Any, *, reset: bool = True, **check_params):
    """:func:`sklearn.utils.validation.validate_data`, lazy for a dask collection.

    An in-memory ``X`` is validated by scikit-learn (and ``n_features_in_``
    and ``feature_names_in_`` set or checked).  A dask collection is left
    lazy: its values are validated block by block by the statistic that
    reads them, and only its column count and names are read here.

    Parameters
    ----------
    estimator : estimator
        The learner.
    X : array-like or dask collection
        Its input.
    reset : bool, default=True
        Set (``True``) or check the input attributes.
    **check_params
        Passed to ``validate_data`` for in-memory data.

    Returns
    -------
    X : ndarray, DataFrame or dask collection

    Examples
    --------
    >>> import numpy as np
    >>> from sklearn.base import BaseEstimator
    >>> from skprivate.utils._statistic import validate_rows
    >>> est = BaseEstimator()
    >>> validate_rows(est, np.zeros((4, 3))).shape, est.n_features_in_
    ((4, 3), 3)
    """
    if not is_dask_collection(X):
        with raw_values_withheld():
            return validate_data(estimator, X, reset=reset, **check_params)
    n_features, names = describe_collection(X)
    if not reset:
        if n_features != estimator.n_features_in_:
            raise ValueError(
                f"X has {n_features} features, but {type(estimator).__name__} is "
                f"expecting {estimator.n_features_in_} features as input."
            )
        return X
    estimator.n_features_in_ = n_features
    estimator.__dict__.pop("feature_names_in_", None)
    if names is not None:
        estimator.feature_names_in_ = names
    return X


_ROW_NUMBER = re.compile(r"\b([Rr]ow|entry \() ?(\d+)")

#: First row, in the whole data, of the block being processed (see
#: :func:`rows_counted_from`); a context variable, so threads (dask workers)
#: processing other blocks do not see it.
_FIRST_ROW: contextvars.ContextVar[int] = contextvars.ContextVar(
    "skprivate_first_row", default=0
)


def _shift_rows(text: str, first_row: int) -> str:
    """``text`` with every ``row N`` (or ``entry (N, ...``) moved by ``first_row``."""
    if not first_row:
        return text

    def shift(match: re.Match) -> str:
        word = match.group(1)
        space = "" if word.endswith("(") else " "
        return f"{word}{space}{int(match.group(2)) + first_row}"

    return _ROW_NUMBER.sub(shift, text)


def renumber_rows(error: Exception, first_row: int) -> Exception:
    """``error`` of a block with its row numbers counted in the whole data.

    Messages of skprivate name a row as ``row N`` (or an entry as
    ``entry (N, ...)``), counted from the first row of what they were
    given; a block starting at row ``first_row`` of the data gets its
    numbers shifted by ``first_row``, in an error of the same type.

    Parameters
    ----------
    error : Exception
        Raised on one block.
    first_row : int
        Position of the block's first row in the whole data.

    Returns
    -------
    Exception
        ``error`` itself when ``first_row`` is 0, else a new one.

    Examples
    --------
    >>> from skprivate.utils._statistic import renumber_rows
    >>> str(renumber_rows(ValueError("X contains NaN at row 3, column 0."), 100))
    'X contains NaN at row 103, column 0.'
    """
    if not first_row or len(error.args) != 1 or not isinstance(error.args[0], str):
        return error
    return type(error)(_shift_rows(error.args[0], first_row))


@contextmanager
def rows_counted_from(first_row: int) -> Iterator[None]:
    """Name the rows of a block by their place in the whole data.

    Inside, the block being validated or released starts at row
    ``first_row`` of the data (a later ``partial_fit`` chunk, a dask
    partition): a ``ValueError`` or ``TypeError`` raised inside leaves
    with its rows renumbered (:func:`renumber_rows`), and a warning whose
    message goes through :func:`global_rows` names them the same way.
    Blocks nest: an inner block's rows count from the outer one's.

    Parameters
    ----------
    first_row : int
        Position of the block's first row in the whole data.

    Examples
    --------
    >>> from skprivate.utils._statistic import global_rows, rows_counted_from
    >>> with rows_counted_from(700):
    ...     global_rows("row 534 was clipped")
    'row 1234 was clipped'
    >>> try:
    ...     with rows_counted_from(700):
    ...         raise ValueError("X contains NaN at row 534, column 0.")
    ... except ValueError as error:
    ...     print(error)
    X contains NaN at row 1234, column 0.
    """
    token = _FIRST_ROW.set(_FIRST_ROW.get() + int(first_row))
    try:
        yield
    except (ValueError, TypeError) as error:
        renumbered = renumber_rows(error, int(first_row))
        if renumbered is error:
            raise
        raise renumbered from None
    finally:
        _FIRST_ROW.reset(token)


def global_rows(text: str) -> str:
    """A message's row numbers counted in the whole data.

    For a warning about a block: inside :func:`rows_counted_from`, every
    ``row N`` of ``text`` is moved by the block's first row; elsewhere
    ``text`` is returned as it is.

    Parameters
    ----------
    text : str
        A message naming rows of the block, counted from its first row.

    Returns
    -------
    str

    Examples
    --------
    >>> from skprivate.utils._statistic import global_rows
    >>> global_rows("row 3 was clipped")
    'row 3 was clipped'
    """
    return _shift_rows(text, _FIRST_ROW.get())
