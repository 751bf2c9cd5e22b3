"""Validation of the data formats skprivate shares across families.

* interval-valued data: ``(n, 2)`` float arrays ``[lower, upper]`` meaning the
  value lies in ``(lower, upper]``; ``lower == upper`` is an exact report;
* declared bounds of a numeric domain, per column;
* random states (int, ``RandomState`` or ``Generator``).
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.exceptions import DataConversionWarning
from sklearn.utils import check_array

from ..exceptions import PrivacyLeakWarning
from ._redact import redact_quoted_values
from ._warnings import external_stacklevel

__all__ = [
    "bounds_from_data",
    "check_bounds",
    "check_generator",
    "check_interval_array",
    "make_interval_array",
]


def make_interval_array(lower: ArrayLike, upper: ArrayLike) -> NDArray[np.float64]:
    """Stack lower and upper bounds into the ``(n, 2)`` interval format.

    Parameters
    ----------
    lower, upper : array-like of shape (n,)
        Bounds of the half-open cells ``(lower, upper]``.  Use ``-inf`` and
        ``inf`` for half-lines and ``lower == upper`` for exact values.

    Returns
    -------
    intervals : ndarray of shape (n, 2)
        Validated by :func:`check_interval_array`.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils import make_interval_array
    >>> make_interval_array([-np.inf, 1.0], [0.5, 1.0])
    array([[-inf,  0.5],
           [ 1. ,  1. ]])
    """
    lower = check_float_array(lower, name="lower")
    upper = check_float_array(upper, name="upper")
    if lower.ndim != 1 or upper.ndim != 1:
        raise ValueError(
            f"lower and upper must be 1-D; got shapes {lower.shape} and {upper.shape}."
        )
    if lower.shape != upper.shape:
        raise ValueError(
            f"lower and upper must have the same length; got {lower.shape[0]} "
            f"and {upper.shape[0]}."
        )
    return check_interval_array(np.column_stack([lower, upper]))


def check_interval_array(
    y: Any,
    *,
    name: str = "y",
    allow_1d: bool = True,
    allow_nan: bool = False,
    first_row: int = 0,
) -> NDArray[np.float64]:
    """Validate interval-valued data and return it as an ``(n, 2)`` float array.

    Parameters
    ----------
    y : array-like of shape (n, 2), (n,) or (n, 1)
        ``[lower, upper]`` per row, meaning the value lies in
        ``(lower, upper]``.  A 1-D array is read as exact values
        (``lower == upper``); ``(n, 1)`` is read the same way with a
        :class:`~sklearn.exceptions.DataConversionWarning`.
    name : str, default="y"
        Name used in error messages.
    allow_1d : bool, default=True
        Whether exact values given as a 1-D array are accepted.
    allow_nan : bool, default=False
        Whether NaN rows (both bounds NaN, meaning "no answer") are accepted.
        A row with exactly one NaN bound is always an error.
    first_row : int, default=0
        Number of the first row in error messages (when ``y`` is a block of
        a larger data set).

    Returns
    -------
    intervals : ndarray of shape (n, 2)

    Raises
    ------
    ValueError
        On a wrong shape, ``lower > upper``, a lower bound of ``+inf`` or an
        upper bound of ``-inf`` (empty cells), an exact value that is infinite,
        or a NaN where it is not allowed.  The message names the first
        offending row.

    Examples
    --------
    >>> from skprivate.utils import check_interval_array
    >>> check_interval_array([1.0, 2.0])
    array([[1., 1.],
           [2., 2.]])
    """
    for flag, value in (("allow_1d", allow_1d), ("allow_nan", allow_nan)):
        if not isinstance(value, bool | np.bool_):
            raise TypeError(f"{flag} must be a bool; got {value!r}.")
    if isinstance(first_row, bool) or not (
        isinstance(first_row, numbers.Integral) and first_row >= 0
    ):
        raise ValueError(f"first_row must be an int >= 0; got {first_row!r}.")
    checked = check_numeric_input(y, name=name, first_row=first_row)
    refusal = None
    try:
        arr = check_array(
            checked,
            ensure_2d=False,
            allow_nd=True,
            dtype=np.float64,
            ensure_all_finite=False,
            input_name=name,
        )
    except ValueError as exc:
        # scikit-learn's "Found array with 0 sample(s)" names no argument
        if str(exc).startswith(name):
            raise
        # "Complex data not supported" prints the values after it
        refusal = f"{name}: {redact_quoted_values(str(exc))}"
    if refusal is not None:
        # raised here, not in the except clause, so that scikit-learn's error,
        # which may quote the values, is not chained to it as its context
        raise ValueError(refusal)
    if arr.ndim > 2:
        raise ValueError(
            f"{name} must have shape (n, 2) with columns [lower, upper] "
            f"(or shape (n,) for exact values); got a {arr.ndim}-dim array of "
            f"shape {arr.shape}."
        )
    if arr.ndim == 2 and arr.shape[1] == 1:
        warnings.warn(
            # The opening words are scikit-learn's, which its common checks expect.
            f"A column-vector {name} was passed when a 1d array was expected "
            "(exact values) or an (n, 2) array of interval bounds; it is read as "
            "exact values.",
            DataConversionWarning,
            stacklevel=external_stacklevel(),
        )
        arr = arr[:, 0]
    if arr.ndim == 1:
        if not allow_1d:
            raise ValueError(
                f"{name} must have shape (n, 2) with columns [lower, upper]; "
                f"got a 1-D array of length {arr.shape[0]}."
            )
        arr = np.column_stack([arr, arr])
    if arr.ndim != 2 or arr.shape[1] != 2:
        raise ValueError(
            f"{name} must have shape (n, 2) with columns [lower, upper] "
            f"(or shape (n,) for exact values); got shape {arr.shape}."
        )
    lower, upper = arr[:, 0], arr[:, 1]
    nan_lo, nan_hi = np.isnan(lower), np.isnan(upper)
    half = nan_lo != nan_hi
    if half.any():
        row = int(np.flatnonzero(half)[0])
        raise ValueError(
            f"{name} has a row with exactly one NaN bound (row {first_row + row}); "
            "use -inf/inf for half-lines."
        )
    if nan_lo.any() and not allow_nan:
        row = int(np.flatnonzero(nan_lo)[0])
        raise ValueError(
            f"{name} contains NaN (first at row {first_row + row}); every row "
            "needs an interval [lower, upper]."
        )
    ok = ~nan_lo
    checks = [
        (lower > upper, "has lower > upper"),
        (lower == np.inf, "has a lower bound of +inf (an empty cell)"),
        (upper == -np.inf, "has an upper bound of -inf (an empty cell)"),
    ]
    for bad, text in checks:
        bad = bad & ok
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{name} {text} at row {first_row + row} ({int(bad.sum())} such rows)."
            )
    return arr


def check_bounds(
    bounds: Any,
    n_features: int,
    *,
    name: str = "bounds",
    feature_names: Any = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Validate declared domain bounds and broadcast them to every column.

    Parameters
    ----------
    bounds : tuple, list of tuples, ndarray or dict
        One of the accepted forms:

        * ``(low, high)`` with scalars: the same bounds for every column;
        * ``(lows, highs)`` with two lists or arrays of length ``n_features``
          (a scalar broadcasts);
        * ``[(low_0, high_0), (low_1, high_1), ...]``: one tuple per column
          (an array of shape ``(n_features, 2)`` is read the same way when it
          cannot be read as ``(lows, highs)``);
        * ``{column: (low, high), ...}``: one entry per column, keyed by the
          column name (or by position for data without names).

        A list of two tuples on two columns is read as one pair per column
        (tuples are records ``(low, high)``); two lists are read as
        ``(lows, highs)``.  A 2 x 2 array is ambiguous and refused.
    n_features : int
        Number of columns the bounds must cover.
    name : str, default="bounds"
        Name used in error messages.
    feature_names : array-like of str, optional
        Column names, used to read a dict and to name columns in errors.

    Returns
    -------
    low, high : ndarray of shape (n_features,)

    Raises
    ------
    ValueError
        On a form that is none of the above (the message lists the accepted
        forms), NaN or infinite bounds, ``low >= high`` in a column (named), or
        a width ``high - low`` that overflows.

    Examples
    --------
    >>> from skprivate.utils import check_bounds
    >>> check_bounds((0, [1, 2]), 2)
    (array([0., 0.]), array([1., 2.]))
    >>> check_bounds([(0, 100), (1, 120)], 2)
    (array([0., 1.]), array([100., 120.]))
    >>> check_bounds({"b": (1, 120), "a": (0, 100)}, 2, feature_names=["a", "b"])
    (array([0., 1.]), array([100., 120.]))
    """
    if isinstance(n_features, bool) or not (
        isinstance(n_features, numbers.Integral) and n_features >= 1
    ):
        raise ValueError(f"n_features must be an int >= 1; got {n_features!r}.")
    if feature_names is not None:
        if isinstance(feature_names, str) or not hasattr(feature_names, "__len__"):
            raise TypeError(
                f"feature_names must be a sequence of column names; got "
                f"{type(feature_names).__name__}."
            )
        if len(feature_names) != n_features:
            raise ValueError(
                f"feature_names must name the {n_features} columns; got "
                f"{len(feature_names)} names."
            )
    names = (
        [str(c) for c in feature_names]
        if feature_names is not None
        else [str(j) for j in range(n_features)]
    )
    forms = (
        f"Accepted forms: (low, high) for every column; (lows, highs) with two "
        f"lists of length {n_features}; [(low, high), ...] with one tuple per "
        "column; {column: (low, high), ...} with one entry per column."
    )

    def column(j: int) -> str:
        return f"column {j}" if feature_names is None else f"column {names[j]!r}"

    if isinstance(bounds, dict):
        keys = {str(k): k for k in bounds}
        unknown = [k for k in keys if k not in names]
        missing = [c for c in names if c not in keys]
        if unknown or missing:
            raise ValueError(
                f"{name} given as a dict must have one entry per column "
                f"{names}; unknown keys {unknown}, missing columns {missing}."
            )
        pairs = [bounds[keys[c]] for c in names]
        for c, pair in zip(names, pairs):
            # a scalar entry would otherwise be read as part of (low, high)
            try:
                is_pair = np.shape(pair) == (2,)
            except ValueError:  # a ragged nesting
                is_pair = False
            if not (is_pair and isinstance(pair, tuple | list | np.ndarray)):
                raise ValueError(
                    f"{name} given as a dict must map each column to a pair "
                    f"(low, high); column {c!r} has {pair!r}. {forms}"
                )
        return check_bounds(
            [tuple(p) if isinstance(p, list | np.ndarray) else p for p in pairs],
            n_features,
            name=name,
            feature_names=feature_names,
        )
    try:
        arr = np.asarray(bounds, dtype=float)
    except (ValueError, TypeError):
        arr = None
    per_column = False
    if isinstance(bounds, np.ndarray) and arr is not None and arr.ndim == 2:
        if arr.shape == (n_features, 2) and arr.shape != (2, n_features):
            per_column = True
        elif arr.shape == (2, 2) and n_features == 2:
            raise ValueError(
                f"{name} as a 2 x 2 array is ambiguous on two columns: it may be "
                f"(lows, highs) or one (low, high) row per column. {forms}"
            )
    elif isinstance(bounds, tuple | list) and len(bounds) > 0:
        pairs = [
            isinstance(b, tuple | list | np.ndarray) and len(b) == 2 for b in bounds
        ]
        tuples = all(isinstance(b, tuple) for b in bounds)
        if len(bounds) == n_features and all(pairs):
            # on two columns, two lists are (lows, highs) and two tuples are pairs
            per_column = n_features != 2 or tuples
    if per_column:
        try:
            arr = np.asarray([tuple(b) for b in bounds], dtype=float)
        except (ValueError, TypeError) as exc:
            raise ValueError(
                f"{name} must hold numbers; got {bounds!r}. {forms}"
            ) from exc
        bounds = (arr[:, 0], arr[:, 1])
    if not isinstance(bounds, tuple | list | np.ndarray) or len(bounds) != 2:
        raise ValueError(
            f"{name} must give bounds for {n_features} columns; got {bounds!r}. {forms}"
        )
    try:
        low = np.broadcast_to(np.asarray(bounds[0], dtype=float), (n_features,))
        high = np.broadcast_to(np.asarray(bounds[1], dtype=float), (n_features,))
    except (ValueError, TypeError) as exc:
        raise ValueError(
            f"{name} must give bounds for {n_features} columns; got {bounds!r}. {forms}"
        ) from exc
    for values, side in ((low, "low"), (high, "high")):
        bad = ~np.isfinite(values)
        if bad.any():
            j = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"{name} must be finite numbers; {column(j)} has "
                f"{side}={float(values[j])}."
            )
    bad = low >= high
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} must satisfy low < high for every column; {column(j)} has "
            f"low={low[j]:g} >= high={high[j]:g}. {forms}"
        )
    with np.errstate(over="ignore"):
        width = high - low
    bad = ~np.isfinite(width)
    if bad.any():
        j = int(np.flatnonzero(bad)[0])
        raise ValueError(
            f"{name} of {column(j)} span {low[j]:g} to {high[j]:g}, a width that "
            "overflows float64; declare bounds whose width high - low is finite."
        )
    return low.copy(), high.copy()


def bounds_from_data(
    X: NDArray, *, owner: str
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Column-wise min and max of ``X``, with a :class:`PrivacyLeakWarning`.

    Used when a privatizer is fitted without declared bounds.  A column whose
    min equals its max is widened by 0.5 on each side so that the domain is
    not empty.
    """
    warnings.warn(
        f"{owner} was fitted without bounds, so the domain of each column was "
        "read from the data. The bounds are then a function of the private "
        "values and the privacy guarantee does not hold for the records at "
        "the extremes. Pass bounds known before seeing the data.",
        PrivacyLeakWarning,
        stacklevel=external_stacklevel(),
    )
    X = check_float_array(X, name="X", allow_nan=True)
    if X.ndim != 2 or X.shape[0] == 0:
        raise ValueError(
            f"X must be a non-empty 2-D array to read bounds from; got shape {X.shape}."
        )
    finite = np.isfinite(X)
    if not finite.all():
        # Bounds are read from finite values only; a column without one has none.
        j = int(np.flatnonzero(~finite.all(axis=0))[0])
        row = int(np.flatnonzero(~finite[:, j])[0])
        raise ValueError(
            f"X column {j} holds a NaN or infinite value at row {row}; bounds "
            "cannot be read from it. Pass finite data or declare bounds."
        )
    low = X.min(axis=0).astype(float)
    high = X.max(axis=0).astype(float)
    flat = low >= high
    low[flat] -= 0.5
    high[flat] += 0.5
    return low, high


def check_generator(random_state: Any) -> np.random.Generator:
    """Turn ``random_state`` into a :class:`numpy.random.Generator`.

    Parameters
    ----------
    random_state : None, int, RandomState or Generator
        ``None`` gives fresh OS entropy; an int seeds a new generator (the
        same int always gives the same stream); a ``Generator`` is used as
        is; a ``RandomState`` seeds a new generator from one draw of it, so
        repeated calls with the same instance differ, as with scikit-learn.

    Returns
    -------
    numpy.random.Generator

    Examples
    --------
    >>> from skprivate.utils import check_generator
    >>> int(check_generator(0).integers(10)) == int(check_generator(0).integers(10))
    True
    """
    if random_state is None:
        return np.random.default_rng()
    if isinstance(random_state, np.random.Generator):
        return random_state
    if isinstance(random_state, np.random.RandomState):
        return np.random.default_rng(random_state.randint(np.iinfo(np.int32).max))
    if isinstance(random_state, numbers.Integral) and not isinstance(
        random_state, bool
    ):
        if random_state < 0:
            raise ValueError(
                f"random_state must be a non-negative int (a seed); got "
                f"{random_state!r}."
            )
        return np.random.default_rng(int(random_state))
    raise ValueError(
        "random_state must be None, an int, a numpy RandomState or Generator; "
        f"got {random_state!r}."
    )


def check_bool(value: Any, name: str) -> bool:
    """Refuse a flag that is not a bool (``"no"`` is truthy), naming it.

    Examples
    --------
    >>> from skprivate.utils.validation import check_bool
    >>> check_bool("yes", "return_std")
    Traceback (most recent call last):
    ...
    TypeError: return_std must be a bool (True or False); got 'yes'.
    """
    if not isinstance(value, bool | np.bool_):
        raise TypeError(f"{name} must be a bool (True or False); got {value!r}.")
    return bool(value)


def check_unchanged_settings(first: dict, now: dict) -> None:
    """Raise if settings used by the first ``partial_fit`` call have changed.

    Streaming estimators keep statistics computed with their settings at the
    first chunk (a grid, a bandwidth); later chunks must use the same ones.

    Parameters
    ----------
    first : dict
        Settings recorded at the first call.
    now : dict
        Current settings (same keys).

    Raises
    ------
    ValueError
        Naming every changed setting.

    Examples
    --------
    >>> from skprivate.utils.validation import check_unchanged_settings
    >>> check_unchanged_settings({"bandwidth": 0.5}, {"bandwidth": 0.5})
    >>> check_unchanged_settings({"bandwidth": 0.5}, {"bandwidth": 0.7})
    Traceback (most recent call last):
    ...
    ValueError: bandwidth changed since the first call to partial_fit; ...
    """
    changed = [k for k, v in now.items() if first[k] != v]
    if changed:
        raise ValueError(
            f"{', '.join(changed)} changed since the first call to partial_fit; "
            "the binned counts were made with the old value.  Call fit to start "
            "again."
        )


def check_weights(sample_weight: Any, n_samples: int) -> NDArray[np.float64]:
    """Validate ``sample_weight``: ``n_samples`` finite non-negative numbers.

    Parameters
    ----------
    sample_weight : array-like of shape (n_samples,) or None
        Weights; ``None`` means all ones.
    n_samples : int
        Number of rows they weight.

    Returns
    -------
    ndarray of shape (n_samples,)

    Raises
    ------
    ValueError
        On a wrong shape, a negative or non-finite weight, or all-zero weights.

    Examples
    --------
    >>> from skprivate.utils.validation import check_weights
    >>> check_weights(None, 3)
    array([1., 1., 1.])
    >>> check_weights([1, -1], 2)
    Traceback (most recent call last):
    ...
    ValueError: sample_weight must have finite non-negative entries; entry 1 is ...
    """
    if sample_weight is None:
        return np.ones(n_samples)
    w = check_float_array(sample_weight, name="sample_weight", allow_nan=True)
    if w.shape != (n_samples,):
        raise ValueError(
            f"sample_weight must have shape ({n_samples},) with finite non-negative "
            f"entries; got shape {w.shape}."
        )
    bad = ~np.isfinite(w) | (w < 0)
    if bad.any():
        i = int(np.flatnonzero(bad)[0])
        what = "negative" if w[i] < 0 else "not finite"
        raise ValueError(
            f"sample_weight must have finite non-negative entries; entry {i} is "
            f"{what} ({int(bad.sum())} such entries)."
        )
    if w.sum() <= 0:
        raise ValueError("sample_weight: all weights are zero.")
    return w


def check_numeric_input(
    X: Any, *, name: str = "X", finite: bool = False, first_row: int = 0
) -> Any:
    """Refuse non-numeric columns by name before numeric validation.

    scikit-learn's ``check_array`` reports a string column as "could not
    convert string to float: '...'", quoting the entry but not its column.
    This check names the column, the dtype found and the first row holding
    a non-number (arrays, DataFrames and nested lists), without the entry.
    Numeric pandas Categoricals are converted to their float values; boolean
    columns are accepted as 0/1.

    Every container goes through the same rules: a polars DataFrame (or
    Series) has its dtypes checked, then is converted to a pandas DataFrame
    (a numpy array) with the same column names; pandas nullable columns
    (``Int64``, ``Float64``, ``boolean``) become float columns with NaN
    where they hold ``pd.NA``, so that a missing value is treated as NaN.

    Parameters
    ----------
    X : array-like, pandas or polars DataFrame or Series
        Data about to be validated as float.
    name : str, default="X"
        Name used in error messages.
    finite : bool, default=False
        Also refuse NaN (missing) and infinite values, naming the first
        one's row and column.
    first_row : int, default=0
        Number of the first row in messages (``X`` a block of a larger data
        set, as one partition of a dask collection).

    Returns
    -------
    X : array-like or DataFrame
        ``X`` itself, or a copy with numeric Categoricals and nullable
        columns decoded (a pandas DataFrame or numpy array for polars input).

    Raises
    ------
    TypeError
        On a column of strings, objects, datetimes, timedeltas or a
        non-numeric Categorical.  The message names the column, and the
        first row holding a non-number with its type, never the entry
        itself: messages end up in logs, and the entry is a raw value.
    ValueError
        On duplicate column names (named).

    Examples
    --------
    >>> import pandas as pd
    >>> from skprivate.utils.validation import check_numeric_input
    >>> check_numeric_input(pd.DataFrame({"age": ["x"]}))
    Traceback (most recent call last):
    ...
    TypeError: X column 'age' must be numeric; got dtype ...
    """
    X = _from_polars(X, name)
    X = _decode_series(X, name)
    X = _check_numeric_columns(X, name, first_row)
    if finite:
        _check_finite_named(X, name, first_row)
    return X


def _from_polars(X: Any, name: str) -> Any:
    """A polars DataFrame as pandas, a polars Series as numpy, dtypes checked.

    Only numeric, boolean and all-null columns convert; nulls become NaN.
    The conversion reads each column with ``to_numpy`` (no pyarrow needed).
    """
    if type(X).__module__.split(".")[0] != "polars":
        return X
    import pandas as pd
    import polars as pl

    if isinstance(X, pl.LazyFrame):
        raise TypeError(
            f"{name} is a polars LazyFrame; call .collect() to pass its rows."
        )
    series = isinstance(X, pl.Series)
    frame = X.to_frame() if series else X
    if not isinstance(frame, pl.DataFrame):
        raise TypeError(f"{name} of type {type(X).__name__} is not supported.")
    columns = {}
    for column, dtype in frame.schema.items():
        values = frame.get_column(column)
        if dtype == pl.Null:
            columns[column] = np.full(len(values), np.nan)
        elif dtype.is_numeric() or dtype == pl.Boolean:
            if values.null_count() or not (dtype.is_integer() or dtype.is_float()):
                values = values.cast(pl.Float64)
            columns[column] = values.to_numpy()
        else:
            label = "" if series else f" column {column!r}"
            where = "" if dtype.is_temporal() else _where(values.to_list(), 0)
            raise TypeError(
                f"{name}{label} must be numeric; got polars dtype {dtype}{where}."
            )
    if series:
        return next(iter(columns.values()))
    return pd.DataFrame(columns, index=pd.RangeIndex(frame.height))


def _is_pandas(X: Any) -> bool:
    return type(X).__module__.split(".")[0] == "pandas"


def _is_nullable(dtype: Any) -> bool:
    """Whether ``dtype`` is a pandas extension dtype of numbers or booleans."""
    try:
        from pandas.api.extensions import ExtensionDtype
    except ImportError:  # pragma: no cover
        return False
    return isinstance(dtype, ExtensionDtype) and getattr(dtype, "kind", "") in "biuf"


def _decode_series(X: Any, name: str) -> Any:
    """A pandas Series: nullable numbers as float with NaN, strings named."""
    if hasattr(X, "columns") or not _is_pandas(X) or not hasattr(X, "dtype"):
        return X
    dtype = X.dtype
    if isinstance(dtype, _pd_categorical()):
        if dtype.categories.dtype.kind in "biuf":  # a missing entry: NaN
            return np.asarray(X.astype(float), dtype=float)
    elif _is_nullable(dtype):
        return X.to_numpy(dtype=float, na_value=np.nan)
    elif getattr(dtype, "kind", "O") in "biuf":
        return X
    where = "" if getattr(dtype, "kind", "O") in "Mm" else _where(X.tolist(), 0)
    raise TypeError(f"{name} must be numeric; got dtype {dtype}{where}.")


def _check_finite_named(X: Any, name: str, first_row: int = 0) -> None:
    """Raise on the first NaN or infinite value, naming its row and column."""
    if not (_is_pandas(X) or isinstance(X, np.ndarray | list | tuple)):
        return  # lazy collections are checked block by block
    names = list(X.columns) if hasattr(X, "columns") else None
    try:
        values = X.to_numpy(dtype=float) if names is not None else np.asarray(X, float)
    except (TypeError, ValueError):
        return  # not numbers: left to the numeric validation that follows
    if values.ndim == 0 or values.size == 0:
        return
    finite = np.isfinite(values)
    if finite.all():
        return
    flat = finite.reshape(len(values), -1)
    row, col = (int(i) for i in np.argwhere(~flat)[0])
    value = values.reshape(len(values), -1)[row, col]
    kind = "NaN" if np.isnan(value) else "infinity"
    label = f"column {names[col]!r}" if names is not None else f"column {col}"
    raise ValueError(
        f"{name} contains {kind} at row {first_row + row}, {label}; every value "
        "must be finite (a missing value is NaN)."
    )


def _check_numeric_columns(X: Any, name: str, first_row: int = 0) -> Any:
    """The column rules of :func:`check_numeric_input`, without finiteness.

    Rows are numbered from ``first_row`` (a block's place in the data).
    """
    if hasattr(X, "columns") and hasattr(X, "dtypes"):
        columns = list(X.columns)
        seen = {c for c in columns if columns.count(c) > 1}
        if seen:
            raise ValueError(
                f"{name} has duplicate column names {sorted(map(str, seen))}; "
                "every column needs a unique name."
            )
        decoded = {}
        for j, (column, dtype) in enumerate(X.dtypes.items()):
            if isinstance(dtype, _pd_categorical()):
                cats = dtype.categories
                if cats.dtype.kind in "biuf":
                    # as float: a missing entry becomes NaN, named as NaN is
                    decoded[column] = np.asarray(X.iloc[:, j].astype(float))
                    continue
            elif _is_nullable(dtype) and _is_pandas(X):
                # pd.NA is a missing value: NaN, refused or dropped as NaN is
                decoded[column] = X.iloc[:, j].to_numpy(dtype=float, na_value=np.nan)
                continue
            elif dtype.kind in "biuf":
                continue
            where = ""
            # a lazy frame's rows are not read here: its dtype names the column
            if dtype.kind not in "Mm" and _is_pandas(X):
                where = _where(X.iloc[:, j].tolist(), first_row)
            raise TypeError(
                f"{name} column {column!r} must be numeric; got dtype {dtype}{where}."
            )
        if decoded:
            X = X.copy()
            for column, values in decoded.items():
                X[column] = values.astype(float)
        return X
    arr = X
    if isinstance(X, str | bytes):  # np.str_ and np.bytes_ too
        # a bare scalar: numpy's own error would quote it
        arr = np.asarray(X, dtype=object)
    if isinstance(X, list | tuple):
        # nested lists: numpy's own error would quote the offending string
        try:
            arr = np.asarray(X)
        except (TypeError, ValueError):
            return X
    if isinstance(arr, np.ndarray) and arr.dtype.kind == "c" and arr.ndim <= 2:
        raise _complex_refusal(arr, name, first_row)
    if isinstance(arr, np.ndarray) and arr.dtype.kind in "OUSMm" and arr.ndim <= 2:
        data = arr.reshape(-1, 1) if arr.ndim < 2 else arr  # 0-d: one cell
        for j in range(data.shape[1]):
            if arr.dtype.kind in "Mm":
                raise TypeError(
                    f"{name} column {j} must be numeric; got dtype {arr.dtype}."
                )
            # numpy's cast is the fast test; its warning on a complex number
            # (cast to its real part) is an error here
            with warnings.catch_warnings():
                warnings.simplefilter("error", np.exceptions.ComplexWarning)
                try:
                    data[:, j].astype(float)
                except (TypeError, ValueError, np.exceptions.ComplexWarning):
                    found = _first_non_number(data[:, j].tolist())
                else:
                    found = None
            # raised outside the except clause: numpy's error, which quotes the
            # entry, must not be chained to the refusal as its context
            if found is not None:
                raise _refusal(
                    f"{name} column {j} must be numeric; row {first_row + found[0]} "
                    f"holds a {found[1]}",
                    data[found[0], j],
                )
        # numbers held as text or objects: read once here, as every
        # estimator reads them (scikit-learn refuses arrays of strings)
        return arr.astype(float)
    return X


def _where(values: list, first_row: int) -> str:
    """Why a column of a frame's non-numeric dtype is refused, for its message.

    The first entry that is not a number, by row and type; or, when every
    entry reads as a number, that the column holds numbers as text or
    objects (a frame's dtype is its contract: such a column is converted by
    the caller, not guessed here).
    """
    found = _first_non_number(values)
    if found is None:
        return (
            "; it holds numbers as text or objects: convert it to a numeric "
            "dtype first (pandas.to_numeric, polars' cast)"
        )
    return f"; row {first_row + found[0]} holds a {found[1]}"


def _complex_refusal(arr: NDArray, name: str, first_row: int) -> ValueError:
    """The refusal of a complex array: the first entry off the real line.

    Every entry of a complex array is a complex number; the row named is
    the first whose imaginary part is not zero, which the caller can find.
    """
    data = arr.reshape(-1, 1) if arr.ndim < 2 else arr
    for j in range(data.shape[1]):
        rows = np.flatnonzero(data[:, j].imag != 0)
        if rows.size:
            return ValueError(
                f"{name} column {j} must be numeric; row {first_row + rows[0]} "
                f"holds a complex that is not a real number ({_COMPLEX_DATA})."
            )
    return ValueError(
        f"{name} must be numeric; got dtype {arr.dtype}, complex numbers with no "
        f"imaginary part: give them as real numbers ({_COMPLEX_DATA})."
    )


def _refusal(message: str, entry: Any) -> TypeError | ValueError:
    """The refusal of an array-like for ``entry``, its first non-number.

    A TypeError; a ValueError for a complex number, as scikit-learn refuses
    a complex array ("Complex data not supported").
    """
    if isinstance(entry, complex | np.complexfloating):
        return ValueError(f"{message} ({_COMPLEX_DATA}).")
    return TypeError(f"{message}.")


#: scikit-learn's words for a complex input, which its own checks look for.
_COMPLEX_DATA = "Complex data not supported"


def _first_non_number(values: list) -> tuple[int, str] | None:
    """Position and description of the first entry ``float`` refuses.

    Messages name the row and the type, never the entry: it is a raw value.
    ``float`` quotes a string it cannot parse (ValueError), so only its
    TypeError, which names the type alone, is passed on.
    """
    first_complex = None
    for i, value in enumerate(values):
        if isinstance(value, complex | np.complexfloating):
            # float() of a numpy complex keeps the real part with a warning;
            # the first off the real line is named, else the first complex
            kind = type(value).__name__
            if value.imag != 0:
                return i, f"{kind} that is not a real number"
            if first_complex is None:
                first_complex = i, f"{kind} (a complex type, with no imaginary part)"
            continue
        try:
            float(value)
        except TypeError as exc:
            return i, f"{type(value).__name__} that is not a number ({exc})"
        except ValueError:
            return i, f"{type(value).__name__} that is not a number"
    return first_complex


def _pd_categorical():
    try:
        import pandas as pd
    except ImportError:  # pragma: no cover
        return ()
    return pd.CategoricalDtype


#: Largest magnitude whose square is finite in float64 (with room for sums).
MAX_MAGNITUDE = 1e150


def check_magnitude(
    X: Any, *, name: str = "X", limit: float = MAX_MAGNITUDE, first_row: int = 0
) -> Any:
    """Refuse finite values too large for the squares and sums of a fit.

    A value such as ``1e300`` is finite, but its square overflows, and the
    variances, bandwidths and grids computed from it turn into inf or NaN;
    the estimate then collapses silently.  This check names the column and
    the row instead.

    Parameters
    ----------
    X : ndarray
        Validated float data (1-D or 2-D).
    name : str, default="X"
        Name used in error messages.
    limit : float, default=1e150
        Largest accepted magnitude.
    first_row : int, default=0
        Number of the first row in the message (``X`` a block of more rows).

    Returns
    -------
    X : ndarray
        Unchanged.

    Raises
    ------
    ValueError
        Naming the first offending column and row.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils.validation import check_magnitude
    >>> check_magnitude(np.array([[1.0], [1e300]]))
    Traceback (most recent call last):
    ...
    ValueError: X column 0 has a value of 1e+300 at row 1; values beyond ...
    """
    arr = np.asarray(X)
    if arr.dtype.kind != "f" or arr.size == 0:
        return X
    with np.errstate(invalid="ignore"):
        big = np.abs(arr) > limit
    big &= np.isfinite(arr)
    if big.any():
        where = np.argwhere(big.reshape(len(arr), -1))[0]
        row, col = int(where[0]), int(where[1])
        value = float(arr.reshape(len(arr), -1)[row, col])
        row += first_row
        raise ValueError(
            f"{name} column {col} has a value of {value:g} at row {row}; values "
            f"beyond +-{limit:g} overflow the squares and sums of the fit. "
            "Rescale the data (e.g. change units) or remove the row."
        )
    return X


def check_two_sided(Z: NDArray, *, name: str = "y") -> NDArray:
    """Refuse interval data that bound the values from one side only.

    When no row of ``Z`` has a finite upper bound (every row is ``(l, inf)``),
    the likelihood of a location family keeps increasing as the location
    moves to ``+inf``: the maximum-likelihood estimate does not exist, and an
    optimizer stops wherever its tolerance lets it.  The same holds with no
    finite lower bound.  Exact rows count as both.

    Parameters
    ----------
    Z : ndarray of shape (n, 2)
        Validated interval data (:func:`check_interval_array`).
    name : str, default="y"
        Name used in error messages.

    Returns
    -------
    Z : ndarray
        Unchanged.

    Raises
    ------
    ValueError
        Naming the side that is never bounded.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils.validation import check_two_sided
    >>> check_two_sided(np.array([[0.0, np.inf], [1.0, np.inf]]))
    Traceback (most recent call last):
    ...
    ValueError: y has no row with a finite upper bound (all 2 rows are ...
    """
    for column, side, end in ((1, "upper", "+inf"), (0, "lower", "-inf")):
        if Z.shape[0] and not np.isfinite(Z[:, column]).any():
            raise ValueError(
                f"{name} has no row with a finite {side} bound (all {Z.shape[0]} "
                f"rows are open towards {end}): the likelihood increases without "
                f"bound as the location moves to {end}, so the estimate does not "
                "exist. Collect answers that bound the values from both sides."
            )
    return Z


def check_float_array(
    x: Any,
    *,
    name: str,
    allow_nan: bool = False,
    allow_inf: bool = True,
    first_row: int = 0,
) -> NDArray[np.float64]:
    """Convert an array argument of a public function to float, naming it.

    numpy's own messages ("could not convert string to float") do not say
    which argument was wrong; NaN usually propagates into a NaN answer.
    This check names the argument and the first offending position.

    Parameters
    ----------
    x : array-like
        The argument's value.
    name : str
        The argument's name, used in error messages.
    allow_nan : bool, default=False
        Whether NaN entries are meaningful for this argument.
    allow_inf : bool, default=True
        Whether infinite entries are meaningful for this argument.
    first_row : int, default=0
        Added to the first index of a position in messages (``x`` a block
        of a larger argument).

    Returns
    -------
    x : ndarray of float64

    Raises
    ------
    TypeError
        If an entry is not a number (the message gives its position and
        type, not the entry, which may be a raw value).
    ValueError
        If an entry is NaN (or infinite, with ``allow_inf=False``).

    Examples
    --------
    >>> from skprivate.utils.validation import check_float_array
    >>> check_float_array([1.0, "x"], name="values")
    Traceback (most recent call last):
    ...
    TypeError: values must be numeric; entry (1,) is a str, not a number.
    """
    if _is_pandas(x) or type(x).__module__.split(".")[0] == "polars":
        # nullable columns (pd.NA) and polars nulls become NaN; strings named
        x = check_numeric_input(x, name=name)
    try:
        raw = np.asarray(x)
    except (TypeError, ValueError):  # a ragged nesting: refused below
        raw = None
    try:
        # numpy casts complex numbers to their real part with only a warning
        arr = None if _holds_complex(raw) else np.asarray(x, float)
    except (TypeError, ValueError):
        arr = None
    if arr is None:
        # raised outside the except clause: numpy's error, which quotes the
        # entry, must not be chained to the refusal as its context
        raise _not_numbers(x, name, first_row)
    if raw is not None and raw.dtype.kind in "Mm":
        raise TypeError(f"{name} must be numeric; got datetimes or timedeltas.")
    if not allow_nan and np.isnan(arr).any():
        index = _position(np.argwhere(np.isnan(arr))[0], first_row)
        raise ValueError(f"{name} contains NaN at entry {index}; expected numbers.")
    if not allow_inf and np.isinf(arr).any():
        index = _position(np.argwhere(np.isinf(arr))[0], first_row)
        raise ValueError(
            f"{name} contains an infinite value at entry {index}; expected finite "
            "numbers."
        )
    return arr


def _holds_complex(raw: NDArray | None) -> bool:
    """Whether an array is complex or holds a complex number as an object."""
    if raw is None:
        return False
    if raw.dtype.kind == "O":
        return any(isinstance(v, complex | np.complexfloating) for v in raw.flat)
    return raw.dtype.kind == "c"


#: Entries refused even where ``float`` would read them (a numeric string,
#: the real part of a complex number, a datetime's count).
_NOT_REAL = (str, bytes, complex, np.complexfloating, np.datetime64, np.timedelta64)


def _not_numbers(x: Any, name: str, first_row: int) -> TypeError | ValueError:
    """The refusal of ``x``, which numpy cannot convert to float.

    It names the first entry that is not a number by its position and
    type, never its value; no error is chained to it (every conversion
    that fails here is caught and dropped before the refusal is made).
    """
    try:
        raw = np.asarray(x, dtype=object)
    except (TypeError, ValueError):  # a ragged nesting numpy cannot hold
        raw = np.empty(0, dtype=object)
    found = first_complex = None
    for index in np.ndindex(raw.shape):
        value = raw[index]
        if isinstance(value, complex | np.complexfloating) and value.imag == 0:
            # named only if no entry lies off the real line
            first_complex = first_complex or (index, value)
            continue
        if isinstance(value, _NOT_REAL):
            found = index, value
            break
        try:
            float(value)
        except (TypeError, ValueError):
            found = index, value
            break
    found = found or first_complex
    if found is None:
        return TypeError(f"{name} must be an array of numbers.")
    index, value = found
    return _refusal(
        f"{name} must be numeric; entry {_position(index, first_row)} "
        f"is a {type(value).__name__}, not a number",
        value,
    )


def _position(index: Any, first_row: int) -> tuple[int, ...]:
    """An array position with its first index counted from ``first_row``."""
    index = [int(i) for i in index]
    if index:
        index[0] += first_row
    return tuple(index)


def check_finite(X: Any, *, name: str = "X", first_row: int = 0) -> Any:
    """Refuse NaN and infinite values, naming the first one's row and column.

    Parameters
    ----------
    X : ndarray
        Float data, 1-D or 2-D (rows first).
    name : str, default="X"
        Name used in error messages.
    first_row : int, default=0
        Number of the first row in the message (``X`` a block of a larger
        data set, as one partition of a dask collection).

    Returns
    -------
    X : ndarray
        Unchanged.

    Raises
    ------
    ValueError
        On the first NaN or infinite value in row order.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.utils.validation import check_finite
    >>> check_finite(np.array([[1.0], [np.nan]]), first_row=10)
    Traceback (most recent call last):
    ...
    ValueError: X contains NaN at row 11, column 0; every value must be finite ...
    """
    _check_finite_named(X, name, first_row)
    return X
