"""Integrally private descriptive statistics (the estimator and describe)."""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import Any, ClassVar

import numpy as np
import pandas as pd
from joblib import Parallel, delayed, effective_n_jobs
from numpy.typing import ArrayLike
from sklearn.base import BaseEstimator
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import ParamsValidationMixin, check_in_memory
from ..exceptions import InvalidParameterError, PrivacyLeakWarning
from ..utils import Interval, Options
from ..utils._redact import withholds_raw_values
from ..utils._warnings import external_stacklevel
from ..utils.validation import check_numeric_input
from ._intervals import IntegralIntervalsMixin
from ._microaggregation import microaggregate
from ._release_seed import release_generator
from ._resampling import STATISTICS, integral_private_column
from ._rounding_check import RoundingCheckMixin

__all__ = ["IntegralPrivateStatistics", "integral_describe"]

DEFAULT_STATISTICS = (
    "mean",
    "median",
    "iqr",
    "std",
    "var",
    "count",
    "sum",
    "min",
    "max",
)


def check_statistics(statistics: Any) -> tuple[str, ...]:
    """Validate a sequence of statistic names; return them in describe order."""
    if isinstance(statistics, str):
        statistics = (statistics,)
    try:
        names = list(statistics)
    except TypeError:
        raise TypeError(
            f"statistics must be a sequence of statistic names among "
            f"{list(STATISTICS)}; got {statistics!r}."
        ) from None
    if not names:
        raise ValueError("statistics must name at least one statistic; got none.")
    unknown = [s for s in names if s not in STATISTICS]
    if unknown:
        raise ValueError(
            f"statistics contains unknown names {unknown}; expected names among "
            f"{list(STATISTICS)}."
        )
    return tuple(s for s in STATISTICS if s in names)


def numeric_frame(
    X: Any, caller: str, arg: str = "X"
) -> tuple[pd.DataFrame | None, list[str]]:
    """Numeric columns of a DataFrame and the names of skipped ones.

    A polars DataFrame is read as the pandas DataFrame of its columns.
    """
    X = _polars_as_pandas(X)
    if not isinstance(X, pd.DataFrame):
        return None, []
    duplicated = sorted({str(c) for c in X.columns[X.columns.duplicated()]})
    if duplicated:
        raise ValueError(
            f"{caller} needs unique column names; {arg} has duplicate columns "
            f"{duplicated}. Rename them first."
        )
    numeric = [
        c
        for c in X.columns
        if pd.api.types.is_numeric_dtype(X[c]) and not pd.api.types.is_bool_dtype(X[c])
    ]
    skipped = [c for c in X.columns if c not in numeric]
    if skipped:
        warnings.warn(
            f"{caller} skips non-numeric columns {skipped}.",
            UserWarning,
            stacklevel=external_stacklevel(),
        )
    if not numeric:
        raise ValueError(
            f"{caller} needs at least one numeric column in {arg}; got none."
        )
    return X[numeric], skipped


def _polars_as_pandas(X: Any) -> Any:
    """A polars DataFrame as pandas, column by column (nulls of numbers: NaN)."""
    if type(X).__module__.split(".")[0] != "polars" or not hasattr(X, "schema"):
        return X
    import polars as pl

    columns = {}
    for column, dtype in X.schema.items():
        values = X.get_column(column)
        if dtype.is_numeric() and values.null_count():
            values = values.cast(pl.Float64)
        columns[column] = values.to_numpy()
    return pd.DataFrame(columns)


def _check_not_infinite(X: Any) -> None:
    """Refuse an infinite value (NaN is a missing value), naming row and column."""
    try:
        values = np.asarray(X, dtype=float)
    except (TypeError, ValueError):
        return  # left to the numeric validation
    if values.ndim != 2:
        return
    inf = np.isinf(values)
    if inf.any():
        j = int(np.flatnonzero(inf.any(axis=0))[0])
        row = int(np.flatnonzero(inf[:, j])[0])
        name = repr(X.columns[j]) if hasattr(X, "columns") else str(j)
        raise ValueError(
            f"X contains infinity at row {row}, column {name}; values must be finite "
            "(NaN marks a missing value)."
        )


def _check_magnitudes(X: np.ndarray, names: Sequence[str], statistics) -> None:
    """Refuse finite values whose sums (or squares) overflow float64.

    The mean and the sum add up to ``n`` values, the variance and SD their
    squared deviations: beyond these limits the resampled statistics are
    infinite or NaN whatever the column holds otherwise.
    """
    wanted = set(statistics)
    if not wanted & {"mean", "sum", "std", "var"} or X.size == 0:
        return
    limit = np.finfo(np.float64).max / (4.0 * X.shape[0])
    if wanted & {"std", "var"}:
        limit = min(limit, np.sqrt(limit))
    with np.errstate(invalid="ignore"):
        big = np.abs(X) > limit
    if big.any():
        j = int(np.flatnonzero(big.any(axis=0))[0])
        row = int(np.flatnonzero(big[:, j])[0])
        asked = sorted(wanted & {"mean", "sum", "std", "var"})
        raise ValueError(
            f"X column {names[j]!r} holds a value too large for the sums of "
            f"{asked} at row {row} ({int(big[:, j].sum())} such rows): with "
            f"{X.shape[0]} rows every |value| must stay below {limit:.3g} for "
            "them to be finite in float64. Rescale the column (e.g. change "
            "units)."
        )


def column_values(X: np.ndarray, names: Sequence[str]) -> list[np.ndarray]:
    """Non-missing values of each column, with clear errors for empty ones."""
    if X.shape[0] == 0:
        raise ValueError("X has no rows; descriptive statistics need data.")
    out = []
    for j, name in enumerate(names):
        col = X[:, j]
        col = col[~np.isnan(col)]
        if col.size == 0:
            raise ValueError(f"Column {name!r} has only missing values.")
        out.append(col)
    return out


class IntegralPrivateStatistics(
    RoundingCheckMixin, IntegralIntervalsMixin, ParamsValidationMixin, BaseEstimator
):
    """Integrally private descriptive statistics (Algorithm 1 of the paper).

    For every column and statistic, ``fit`` draws ``n_resamples`` bootstrap
    resamples (index multisets of the column's size), computes the statistic
    on each and rounds it to ``decimals``.  The distinct index sets that
    give a value are its *generators*.  A value is a candidate when it has
    strictly more than ``min_frequency`` generators, and it survives when no
    record belongs to all of its generators.  The released value is the
    surviving candidate with the most generators; when none survives the
    answer is missing (NA), never a silent number.

    Parameters
    ----------
    statistics : sequence of str, default=("mean", "median", "iqr", "std", \
"var", "count", "sum", "min", "max")
        Statistics to release, among ``"count"``, ``"mean"``, ``"std"``,
        ``"var"`` (both with ``ddof=1``, as :meth:`pandas.DataFrame.describe`),
        ``"min"``, ``"median"``, ``"iqr"`` (75th minus 25th percentile, linear
        interpolation), ``"max"`` and ``"sum"``.
    n_resamples : int, default=1000
        Number of bootstrap resamples ``t``.
    min_cluster_size : int or None, default=None
        Input discretization: microaggregate each column into clusters of at
        least this many records (the paper's ``y``) before resampling.
        ``None`` skips it.
    decimals : int or None, default=2
        Output discretization: round each resample's statistic with
        :func:`numpy.round`.  Negative values round to tens (-1), hundreds
        (-2), ...; ``None`` does not round (then ties are rare and answers
        mostly NA).
    min_frequency : int, default=2
        Threshold ``k`` (at least 2): a value is a candidate when it has
        strictly more than ``k`` generators.
    random_state : int, RandomState, Generator or None, default=None
        Seed of the resampling.  Each column gets its own stream drawn from
        it, so results do not depend on ``n_jobs``.  A ``Generator`` or
        ``RandomState`` is a source of entropy: each ``fit`` draws fresh
        words from it (so it advances), mixed with the other settings and
        the table, so copies of one generator fitted on two batches draw
        independent resamples.  An int (for simulation) is mixed with the
        other settings and the table, so another batch, even of the same
        size, is resampled by other index sets; the same seed, settings and
        table reproduce the release.
    n_jobs : int or None, default=None
        Workers: columns are processed in parallel with joblib when there
        are at least as many columns as workers; otherwise the workers share
        each column's resamples as threads.  Answers do not depend on it.
    selection : {"frequency", "least_error"}, default="frequency"
        ``"frequency"`` releases the most frequent surviving value (ties to
        the smaller value).  ``"least_error"`` releases the surviving value
        closest to the true statistic, the paper's alternative; it reads the
        true statistic, which leaks it, and warns with
        :class:`~skprivate.exceptions.PrivacyLeakWarning`.
    microaggregation : {"consecutive", "optimal"}, default="consecutive"
        Univariate partition used when ``min_cluster_size`` is set (see
        :class:`Microaggregator`); ``"consecutive"`` is the paper's setting.

    Attributes
    ----------
    results_ : pandas.DataFrame
        One row per column and statistic: ``column``, ``statistic``,
        ``value`` (NaN when no integrally private answer exists),
        ``frequency`` (number of generators of the released value, the
        winning frequency the paper reports; 0 when NA),
        ``empty_intersection`` (whether the released value's generators
        share no record) and ``integrally_private`` (whether a value was
        released).  The fitted object is the release, so it holds nothing
        about the values that were not released: how many values passed
        the threshold, or how often the most frequent of them was drawn,
        would tell, say, that the raw maximum is one record's (its
        generators then hold that record about 63% of the time).
    skipped_columns_ : list of str
        Non-numeric DataFrame columns that were skipped (with a warning).
    n_features_in_ : int
        Number of columns used.
    feature_names_in_ : ndarray of str
        Their names, when ``X`` is a DataFrame.

    See Also
    --------
    integral_describe : the same as a :meth:`pandas.DataFrame.describe` table.
    Microaggregator : the input discretization as a transformer.
    laplace_describe : differentially private baselines.

    Notes
    -----
    Records are row positions: equal values in different rows are
    different records.  Missing values are dropped per column, so ``count``
    is the number of non-missing values; bootstrap resamples have that size,
    so ``count`` is always released exactly (with as many generators as
    distinct resamples).  Non-numeric DataFrame columns are skipped with a
    :class:`UserWarning`; non-numeric arrays raise.

    Resamples are drawn in chunks as count matrices and the statistics are
    computed on them without a Python loop over resamples; the intersection
    rule accumulates, for the candidate values only, how many generators
    contain each record.  Memory is O(n + n_resamples) besides one chunk.

    References
    ----------
    .. [1] N. Senavirathne and V. Torra, "Integral privacy compliant
       statistics computation", Data Privacy Management, Cryptocurrencies
       and Blockchain Technology (DPM 2019), LNCS 11737, Springer.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.integral import IntegralPrivateStatistics
    >>> x = np.random.default_rng(0).normal(10, 2, size=(500, 1))
    >>> ips = IntegralPrivateStatistics(
    ...     statistics=("count", "mean", "max"), n_resamples=500, random_state=0
    ... ).fit(x)
    >>> ips.results_[["statistic", "value", "integrally_private"]]
      statistic   value  integrally_private
    0     count  500.00                True
    1      mean    9.94                True
    2       max     NaN               False
    """

    _parameter_constraints: ClassVar[dict] = {
        "statistics": ["array-like", "string"],
        "n_resamples": [Interval(numbers.Integral, 1, None, closed="left")],
        "min_cluster_size": [Interval(numbers.Integral, 1, None, closed="left"), None],
        "decimals": [numbers.Integral, None],
        "min_frequency": [Interval(numbers.Integral, 2, None, closed="left")],
        "random_state": ["random_state"],
        "n_jobs": [numbers.Integral, None],
        "selection": [Options({"frequency", "least_error"})],
        "microaggregation": [Options({"consecutive", "optimal"})],
    }

    def __init__(
        self,
        statistics: Sequence[str] = DEFAULT_STATISTICS,
        n_resamples: int = 1000,
        min_cluster_size: int | None = None,
        decimals: int | None = 2,
        min_frequency: int = 2,
        random_state: Any = None,
        n_jobs: int | None = None,
        selection: str = "frequency",
        microaggregation: str = "consecutive",
    ) -> None:
        self.statistics = statistics
        self.n_resamples = n_resamples
        self.min_cluster_size = min_cluster_size
        self.decimals = decimals
        self.min_frequency = min_frequency
        self.random_state = random_state
        self.n_jobs = n_jobs
        self.selection = selection
        self.microaggregation = microaggregation

    @withholds_raw_values
    def fit(self, X: ArrayLike, y: None = None) -> IntegralPrivateStatistics:
        """Compute the integrally private statistics of every column.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            The table; NaN marks a missing value.
        y : None
            Ignored.

        Returns
        -------
        self : IntegralPrivateStatistics
        """
        check_in_memory(self, X)  # resamples need all the records
        self._check_params()
        if self.n_jobs == 0:
            raise InvalidParameterError(
                "The 'n_jobs' parameter of IntegralPrivateStatistics must be a "
                "non-zero int (-1: every core) or None. Got 0 instead."
            )
        statistics = check_statistics(self.statistics)
        if self.selection == "least_error":
            warnings.warn(
                "selection='least_error' picks the answer closest to the true "
                "statistic, which depends on the data beyond the generators and "
                "leaks it; use selection='frequency' for a release.",
                PrivacyLeakWarning,
                stacklevel=external_stacklevel(),
            )
        frame, skipped = numeric_frame(X, type(self).__name__)
        X = check_numeric_input(X) if frame is None else frame
        _check_not_infinite(X)
        X = validate_data(
            self,
            X,
            dtype=np.float64,
            ensure_all_finite="allow-nan",
            ensure_min_samples=1,
        )
        self.skipped_columns_ = skipped
        names = (
            list(self.feature_names_in_)
            if hasattr(self, "feature_names_in_")
            else [f"x{j}" for j in range(X.shape[1])]
        )
        _check_magnitudes(X, names, statistics)
        columns = column_values(X, names)
        # an int seed is mixed with the settings and the table, so another
        # batch of the same size is resampled by other index sets
        settings = {
            k: v for k, v in self.get_params(deep=False).items() if k != "n_jobs"
        }
        settings.pop("random_state", None)
        rng = release_generator(self.random_state, settings, (names, X))
        seeds = rng.integers(0, 2**63 - 1, size=len(columns))
        k = self.min_cluster_size

        # Columns in parallel when there are enough of them; otherwise the
        # workers share each column's resamples as threads.  The answers do
        # not depend on how the work is split.
        workers = effective_n_jobs(self.n_jobs)
        threads = 1 if len(columns) >= workers else workers

        def one(col, seed):
            if k is not None:
                col, _ = microaggregate(col, k, self.microaggregation)
            return integral_private_column(
                col,
                statistics,
                self.n_resamples,
                self.decimals,
                self.min_frequency,
                int(seed),
                self.selection,
                n_threads=threads,
            )

        if threads > 1:
            outs = [one(col, seed) for col, seed in zip(columns, seeds)]
        else:
            outs = Parallel(n_jobs=self.n_jobs)(
                delayed(one)(col, seed) for col, seed in zip(columns, seeds)
            )
        rows = [
            {"column": name, **r.__dict__}
            for name, out in zip(names, outs)
            for r in out
        ]
        results = pd.DataFrame(rows)
        results["integrally_private"] = ~results["value"].isna()
        self.results_ = results[
            [
                "column",
                "statistic",
                "value",
                "frequency",
                "empty_intersection",
                "integrally_private",
            ]
        ]
        return self

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    def privacy_summary(self) -> dict:
        """The release rule in the paper's terms.

        Returns
        -------
        summary : dict
            ``notion``, the resampling and discretization parameters
            (``n_resamples`` t, ``min_frequency`` k, ``min_cluster_size`` y,
            ``decimals`` r), ``selection`` and whether it reads the true
            statistic (``reads_true_statistic``).
        """
        return {
            "notion": "integral privacy: many generators, none shared record",
            "n_resamples": self.n_resamples,
            "min_frequency": self.min_frequency,
            "min_cluster_size": self.min_cluster_size,
            "decimals": self.decimals,
            "selection": self.selection,
            "reads_true_statistic": self.selection == "least_error",
        }

    def describe(self) -> pd.DataFrame:
        """The released values as a :meth:`pandas.DataFrame.describe` table.

        Returns
        -------
        table : pandas.DataFrame
            Indexed by statistic (``count, mean, std, var, min, median,
            iqr, max, sum``, those computed), one column per input column,
            NaN where no integrally private answer exists.
        """
        check_is_fitted(self)
        table = self.results_.pivot(index="statistic", columns="column", values="value")
        order = [s for s in STATISTICS if s in table.index]
        columns = list(dict.fromkeys(self.results_["column"]))
        table = table.loc[order, columns]
        table.index.name = None
        table.columns.name = None
        return table

    def frequencies(self) -> pd.DataFrame:
        """Number of generators of each released value, describe-shaped.

        Returns
        -------
        table : pandas.DataFrame
            Same shape as :meth:`describe`; 0 where the answer is NA.
        """
        check_is_fitted(self)
        table = self.results_.pivot(
            index="statistic", columns="column", values="frequency"
        )
        order = [s for s in STATISTICS if s in table.index]
        columns = list(dict.fromkeys(self.results_["column"]))
        table = table.loc[order, columns]
        table.index.name = None
        table.columns.name = None
        return table


def integral_describe(
    df: Any,
    statistics: Sequence[str] = DEFAULT_STATISTICS,
    n_resamples: int = 1000,
    min_cluster_size: int | None = None,
    decimals: int | None = 2,
    min_frequency: int = 2,
    random_state: Any = None,
    n_jobs: int | None = None,
) -> pd.DataFrame:
    """Integrally private :meth:`pandas.DataFrame.describe`.

    Parameters
    ----------
    df : pandas.DataFrame, pandas.Series or array-like of shape (n_samples, n_features)
        The table.  Non-numeric columns are skipped with a warning; missing
        values are excluded per column.
    statistics : sequence of str, default=all nine
        See :class:`IntegralPrivateStatistics`.
    n_resamples : int, default=1000
        Number of bootstrap resamples.
    min_cluster_size : int or None, default=None
        Microaggregation cluster size (input discretization).
    decimals : int or None, default=2
        Output rounding.
    min_frequency : int, default=2
        Candidates need strictly more generators than this.
    random_state : int, RandomState, Generator or None, default=None
        Seed of the resampling.
    n_jobs : int or None, default=None
        Workers (columns in parallel, or threads sharing a column's
        resamples when there are fewer columns than workers).

    Returns
    -------
    table : pandas.DataFrame
        Indexed by ``count, mean, std, var, min, median, iqr, max, sum``
        (those asked for), one column per numeric input column, NaN where no
        integrally private answer exists.

    See Also
    --------
    IntegralPrivateStatistics : the estimator, with frequencies and flags.

    Examples
    --------
    >>> import numpy as np, pandas as pd
    >>> from skprivate.integral import integral_describe
    >>> rng = np.random.default_rng(0)
    >>> df = pd.DataFrame({"a": rng.normal(10, 2, 400), "b": rng.integers(0, 9, 400)})
    >>> integral_describe(df, n_resamples=300, min_cluster_size=20, random_state=0)
                 a       b
    count   400.00  400.00
    mean      9.94    4.07
    std       1.95    2.40
    var        NaN     NaN
    min       5.83    0.00
    median   10.03    4.20
    iqr       2.73    4.15
    max      13.98    8.00
    sum        NaN     NaN
    """
    if isinstance(df, pd.Series):
        df = df.to_frame()
    frame, _ = numeric_frame(df, "integral_describe", arg="df")
    if frame is not None and len(frame) == 0:
        raise ValueError("df has no rows; descriptive statistics need data.")
    est = IntegralPrivateStatistics(
        statistics=statistics,
        n_resamples=n_resamples,
        min_cluster_size=min_cluster_size,
        decimals=decimals,
        min_frequency=min_frequency,
        random_state=random_state,
        n_jobs=n_jobs,
    )
    # the numeric columns only: the skipped ones were warned about above
    return est.fit(df if frame is None else frame).describe()
