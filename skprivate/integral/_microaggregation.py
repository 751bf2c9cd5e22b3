"""Microaggregation: replace values by the centroid of a small cluster.

Three partitions are offered.  ``"consecutive"`` is the rule used to
reproduce the integral-privacy paper: sort one column and cut it into
consecutive groups of ``k`` records, the last group taking the remainder.
``"optimal"`` is the optimal univariate ``k``-partition: the consecutive
groups (sizes in ``[k, 2k - 1]``) that minimise the within-group sum of
squares, found by dynamic programming.  ``"mdav"`` is the multivariate
Maximum Distance to Average Vector heuristic.
"""

from __future__ import annotations

import numbers
import warnings
from typing import Any, ClassVar

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted, validate_data

from ..base import ParamsValidationMixin, check_in_memory
from ..exceptions import PrivacyLeakWarning
from ..utils import Interval, Options
from ..utils._redact import raw_values_withheld, withholds_raw_values
from ..utils._warnings import external_stacklevel
from ..utils.validation import check_float_array, check_numeric_input

__all__ = ["Microaggregator", "microaggregate"]


def _consecutive_labels(n: int, k: int) -> NDArray[np.intp]:
    """Group ids of ``n`` sorted positions cut into runs of ``k`` (remainder last)."""
    n_groups = max(n // k, 1)
    return np.minimum(np.arange(n) // k, n_groups - 1)


# Candidate group SSEs computed at once: about this many table entries.
_SSE_TABLE_ENTRIES = 1 << 18


def _group_sse_table(xs: NDArray[np.float64], k: int, lo: int, hi: int):
    """Within-group SSE of ``xs[j : j + m]`` for ``lo <= j < hi``, ``k <= m < 2k``.

    Each group's SSE is accumulated directly from its own values by
    Welford's update, vectorized over the starts ``j``: no difference of
    large prefix sums, so two tight groups far from each other (or from
    zero) keep their small SSEs exactly enough to be compared.  Entries of
    groups running past the end of ``xs`` are meaningless and never read.
    """
    n = xs.size
    starts = np.arange(lo, hi)
    table = np.empty((starts.size, k))
    mean = np.zeros(starts.size)
    m2 = np.zeros(starts.size)
    for m in range(1, 2 * k):
        x = xs[np.minimum(starts + (m - 1), n - 1)]
        delta = x - mean
        mean += delta / m
        m2 += delta * (x - mean)
        if m >= k:
            table[:, m - k] = m2
    return table


def _optimal_labels(xs: NDArray[np.float64], k: int) -> NDArray[np.intp]:
    """Optimal k-partition of sorted values (sizes in ``[k, 2k-1]``), by DP.

    ``cost[i]`` is the least within-group SSE of the first ``i`` sorted
    values.  A group ending at ``i`` starts at ``j`` with ``k <= i - j <=
    2k - 1``, so ``cost`` on a block of ``k`` consecutive ends depends only
    on earlier blocks: each block is computed in one vectorized step.  The
    candidate groups' SSEs come from :func:`_group_sse_table`, computed for
    many blocks at a time; the work is O(n k) and the memory
    O(``_SSE_TABLE_ENTRIES``).
    """
    n = xs.size
    if n < 2 * k:
        return np.zeros(n, dtype=np.intp)
    cost = np.full(n + 1, np.inf)
    cost[0] = 0.0
    start = np.zeros(n + 1, dtype=np.intp)
    sizes = np.arange(k, 2 * k)
    firsts = np.arange(k, n + 1, k)
    blocks_per_table = max(1, _SSE_TABLE_ENTRIES // (3 * k * k))
    for c in range(0, firsts.size, blocks_per_table):
        chunk = firsts[c : c + blocks_per_table]
        lo = max(int(chunk[0]) - (2 * k - 1), 0)
        hi = min(int(chunk[-1]) + k, n + 1) - k
        table = _group_sse_table(xs, k, lo, hi)
        for first in chunk:
            ends = np.arange(first, min(first + k, n + 1))
            j = ends[:, None] - sizes[None, :]
            valid = j >= 0
            jj = np.where(valid, j, lo)
            sse = table[jj - lo, sizes[None, :] - k]
            total = np.where(valid, cost[jj] + sse, np.inf)
            best = np.argmin(total, axis=1)
            rows = np.arange(ends.size)
            cost[ends] = total[rows, best]
            start[ends] = jj[rows, best]
    bounds = []
    i = n
    while i > 0:
        bounds.append(start[i])
        i = start[i]
    cuts = np.array(sorted(bounds)[1:], dtype=np.intp)
    labels = np.zeros(n, dtype=np.intp)
    labels[cuts] = 1
    return np.cumsum(labels)


def _mdav_labels(X: NDArray[np.float64], k: int) -> NDArray[np.intp]:
    """Maximum Distance to Average Vector (Domingo-Ferrer and Torra, 2005)."""
    n = X.shape[0]
    scale = X.std(axis=0)
    Z = X / np.where(scale > 0, scale, 1.0)
    labels = np.full(n, -1, dtype=np.intp)
    remaining = np.arange(n)
    group = 0

    def take_around(point: NDArray[np.float64], pool: NDArray[np.intp]):
        d = ((Z[pool] - point) ** 2).sum(axis=1)
        nearest = np.argpartition(d, k - 1)[:k] if pool.size > k else np.arange(k)
        return pool[nearest]

    while remaining.size >= 3 * k:
        centre = Z[remaining].mean(axis=0)
        r = remaining[np.argmax(((Z[remaining] - centre) ** 2).sum(axis=1))]
        members = take_around(Z[r], remaining)
        labels[members] = group
        group += 1
        remaining = remaining[labels[remaining] < 0]
        s = remaining[np.argmax(((Z[remaining] - Z[r]) ** 2).sum(axis=1))]
        members = take_around(Z[s], remaining)
        labels[members] = group
        group += 1
        remaining = remaining[labels[remaining] < 0]
    if remaining.size >= 2 * k:
        centre = Z[remaining].mean(axis=0)
        r = remaining[np.argmax(((Z[remaining] - centre) ** 2).sum(axis=1))]
        members = take_around(Z[r], remaining)
        labels[members] = group
        group += 1
        remaining = remaining[labels[remaining] < 0]
    labels[remaining] = group
    return labels


def _univariate_labels(x: NDArray[np.float64], k: int, method: str):
    """Cluster ids (in sorted order of the centroids) for one column."""
    order = np.argsort(x, kind="stable")
    if method == "consecutive":
        sorted_labels = _consecutive_labels(x.size, k)
    else:
        sorted_labels = _optimal_labels(x[order], k)
    labels = np.empty(x.size, dtype=np.intp)
    labels[order] = sorted_labels
    return labels


def _centroids(X: NDArray[np.float64], labels: NDArray[np.intp]):
    n_groups = labels.max() + 1
    sizes = np.bincount(labels, minlength=n_groups).astype(float)
    sums = np.zeros((n_groups, X.shape[1]))
    np.add.at(sums, labels, X)
    return sums / sizes[:, None]


def microaggregate(
    x: ArrayLike, min_cluster_size: int, method: str = "consecutive"
) -> tuple[NDArray[np.float64], NDArray[np.intp]]:
    """Microaggregate one numeric column; records keep their positions.

    Parameters
    ----------
    x : array-like of shape (n_samples,)
        Finite values.
    min_cluster_size : int
        Minimum number of records per cluster (the paper's ``y``).
    method : {"consecutive", "optimal"}, default="consecutive"
        ``"consecutive"`` cuts the sorted values into runs of
        ``min_cluster_size`` with the remainder in the last run;
        ``"optimal"`` minimises the within-cluster sum of squares over
        consecutive groups of sizes in ``[k, 2k - 1]``.

    Returns
    -------
    values : ndarray of shape (n_samples,)
        Each value replaced by its cluster mean.
    labels : ndarray of shape (n_samples,)
        Cluster of each record, numbered in increasing order of centroid.

    Examples
    --------
    >>> from skprivate.integral import microaggregate
    >>> values, labels = microaggregate([1.0, 9.0, 2.0, 8.0, 5.0], 2)
    >>> values.round(2)
    array([1.5 , 7.33, 1.5 , 7.33, 7.33])
    >>> labels
    array([0, 1, 0, 1, 1])
    """
    with raw_values_withheld():  # raw records: no error quotes them
        x = check_numeric_input(x, name="x")
        x = check_float_array(x, name="x", allow_nan=True)  # names, never quotes
    if x.ndim == 2 and x.shape[1] == 1:
        x = x[:, 0]
    if x.ndim != 1:
        raise ValueError(
            f"x must be one column of shape (n,) or (n, 1); got shape {x.shape}. "
            "Use Microaggregator for several columns."
        )
    if not np.all(np.isfinite(x)):
        i = int(np.flatnonzero(~np.isfinite(x))[0])
        raise ValueError(f"x must be finite; x[{i}] is {float(x[i])}.")
    if method not in ("consecutive", "optimal"):
        raise ValueError(
            f"method must be 'consecutive' or 'optimal' for one column; got {method!r}."
        )
    if (
        isinstance(min_cluster_size, bool)
        or not isinstance(min_cluster_size, numbers.Integral)
        or min_cluster_size < 1
    ):
        raise ValueError(
            f"min_cluster_size must be a positive int; got {min_cluster_size!r}."
        )
    if x.size == 0:
        return x.copy(), np.zeros(0, dtype=np.intp)
    labels = _univariate_labels(x, int(min_cluster_size), method)
    centroids = _centroids(x[:, None], labels)[:, 0]
    return centroids[labels], labels


class Microaggregator(
    ParamsValidationMixin, OneToOneFeatureMixin, TransformerMixin, BaseEstimator
):
    """Replace values by the mean of their micro-cluster.

    Microaggregation partitions the records into clusters of at least
    ``min_cluster_size`` records and replaces every value by its cluster
    centroid, so that each released value is shared by at least ``k``
    records.  It is the input discretization of the integral-privacy
    method for descriptive statistics.  The transformation is
    deterministic.

    Parameters
    ----------
    min_cluster_size : int, default=3
        Minimum number of records per cluster (``k``, the paper's ``y``).
        With fewer than ``2 * min_cluster_size`` records (fewer than ``k``
        for ``"consecutive"``) all records form one cluster.
    method : {"optimal", "consecutive", "mdav"}, default="optimal"
        ``"optimal"``: per column, the consecutive groups of sizes in
        ``[k, 2k - 1]`` of the sorted values with the least within-group
        sum of squares (dynamic programming, O(n k)).
        ``"consecutive"``: per column, runs of ``k`` sorted values, the last
        run taking the remainder (the rule used to reproduce the paper).
        ``"mdav"``: all columns together, Maximum Distance to Average Vector
        on standardized columns (clusters of exactly ``k`` records except
        the last, of size ``k`` to ``2k - 1``).

    Attributes
    ----------
    labels_ : ndarray
        Cluster of each training record: shape ``(n_samples, n_features)``
        for the univariate methods (one partition per column), shape
        ``(n_samples,)`` for ``"mdav"``.
    centroids_ : list of ndarray or ndarray
        Univariate methods: one sorted array of centroids per column.
        ``"mdav"``: array of shape ``(n_clusters, n_features)``.
    cut_points_ : list of ndarray
        Univariate methods only: per column, the midpoints between
        consecutive centroids; they cut the line into the cells of the
        nearest centroid for :meth:`transform`.  Computed from the centroids
        alone, so the fitted object holds no value derived from fewer than
        ``min_cluster_size`` records.
    n_features_in_ : int
        Number of columns seen in :meth:`fit`.
    feature_names_in_ : ndarray of str
        Column names, when ``X`` has string column names.

    See Also
    --------
    microaggregate : the univariate partition as a function.
    IntegralPrivateStatistics : uses microaggregation as input
        discretization.

    Notes
    -----
    :meth:`fit_transform` returns each training record's own cluster
    centroid; this is microaggregation.  :meth:`transform` maps values to
    the nearest centroid: for the univariate methods per column (the cell
    between consecutive ``cut_points_``), for ``"mdav"`` in standardized
    space (each column divided by the standard deviation of its released
    values, so that the fitted object, like the release, holds nothing
    derived from fewer than ``min_cluster_size`` records).  For a training
    record near a cluster boundary that may be the
    neighbouring cluster's centroid, so ``transform`` of the training data
    can differ from ``fit_transform`` there.  Cells bounded by the training
    records themselves would give every record back its own cluster, but
    their bounds (the mean of the largest record of one cluster and the
    smallest of the next) would put near-raw values into the fitted
    object.  Use :meth:`fit_transform` to mask a table.

    Cost: ``"consecutive"`` is a sort; ``"optimal"`` is O(n k) per column;
    ``"mdav"`` is O(n^2 d / k) (about 30 s for 32,561 rows, 4 columns and
    k = 2; see ``benchmarks/results/integral_microaggregation.md``).

    References
    ----------
    .. [1] J. Domingo-Ferrer and V. Torra, "Ordinal, continuous and
       heterogeneous k-anonymity through microaggregation", Data Mining and
       Knowledge Discovery 11 (2005) 195-212.
    .. [2] S. L. Hansen and S. Mukherjee, "A polynomial algorithm for optimal
       univariate microaggregation", IEEE TKDE 15 (2003) 1043-1044.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.integral import Microaggregator
    >>> X = np.array([[1.0], [2.0], [3.0], [10.0], [11.0], [30.0]])
    >>> ma = Microaggregator(min_cluster_size=3)
    >>> ma.fit_transform(X).ravel()
    array([ 2.,  2.,  2., 17., 17., 17.])
    >>> ma.labels_.ravel()
    array([0, 0, 0, 1, 1, 1])
    """

    _parameter_constraints: ClassVar[dict] = {
        "min_cluster_size": [Interval(numbers.Integral, 1, None, closed="left")],
        "method": [Options({"optimal", "consecutive", "mdav"})],
    }

    def __init__(self, min_cluster_size: int = 3, method: str = "optimal") -> None:
        self.min_cluster_size = min_cluster_size
        self.method = method

    def _fit(self, X):
        check_in_memory(self, X)  # clusters need all the records
        self._check_params()
        X = validate_data(self, check_numeric_input(X, finite=True), dtype=np.float64)
        k = int(self.min_cluster_size)
        if X.shape[0] < k:
            raise ValueError(
                f"X has {X.shape[0]} sample(s), fewer than min_cluster_size={k}: no "
                "group of that size exists, and a smaller one would publish "
                "near-raw values."
            )
        if k == 1:
            warnings.warn(
                "Microaggregator(min_cluster_size=1) lets a cluster hold a single "
                "record, whose centroid is its raw value: the output may repeat "
                "the data unchanged. Use min_cluster_size >= 2.",
                PrivacyLeakWarning,
                stacklevel=external_stacklevel(),
            )
        if self.method == "mdav":
            labels = _mdav_labels(X, k)
            centroids = _centroids(X, labels)
            self.labels_ = labels
            self.centroids_ = centroids
            released = centroids[labels]
            # transform's distances are standardized by the release's spread,
            # not the records': a raw standard deviation kept with the
            # centroids gives back both records of a two-record cluster
            spread = released.std(axis=0)
            self._scale = np.where(spread > 0, spread, 1.0)
            return released
        labels = np.empty(X.shape, dtype=np.intp)
        out = np.empty_like(X)
        centroids, cuts = [], []
        for j in range(X.shape[1]):
            labels[:, j] = _univariate_labels(X[:, j], k, self.method)
            c = _centroids(X[:, [j]], labels[:, j])[:, 0]
            centroids.append(c)
            # cells of the nearest centroid: from the released centroids
            # alone (a cell cut between a cluster's largest record and the
            # next one's smallest would keep the mean of two records)
            cuts.append((c[:-1] + c[1:]) / 2)
            out[:, j] = c[labels[:, j]]
        self.labels_ = labels
        self.centroids_ = centroids
        self.cut_points_ = cuts
        return out

    def privacy_summary(self) -> dict[str, Any]:
        """What microaggregation guarantees, and what it does not.

        Every cluster holds at least ``k = min_cluster_size`` records (all
        the records form one cluster when there are too few to split), so
        each released value is shared by at least ``k`` records: for
        ``"mdav"`` the whole row (k-anonymity on the microaggregated
        columns); for the univariate methods each column taken alone, so a
        combination of columns may still single out a record.  It is not
        differential privacy: a centroid is the mean of its members, so
        anyone who knows ``k - 1`` of them recovers the last, and ``k = 1``
        releases the raw values (``fit`` warns).

        Returns
        -------
        summary : dict
            ``notion``, ``min_cluster_size``, ``method``, ``k_anonymity``
            (``"rows"``, ``"each column alone"`` or ``"none"`` for ``k =
            1``), ``raw_values_released`` (True for ``k = 1``) and
            ``guarantee`` (one sentence).

        Examples
        --------
        >>> from skprivate.integral import Microaggregator
        >>> Microaggregator(min_cluster_size=5, method="mdav").privacy_summary()[
        ...     "k_anonymity"
        ... ]
        'rows'
        """
        k = int(self.min_cluster_size)
        if k == 1:
            scope = "none"
            guarantee = (
                "none: min_cluster_size=1 lets a cluster hold one record, whose "
                "centroid is its raw value"
            )
        else:
            scope = "rows" if self.method == "mdav" else "each column alone"
            where = (
                "each released row is shared by"
                if self.method == "mdav"
                else "each released value of a column is shared by"
            )
            guarantee = (
                f"{where} at least {k} training records (k-anonymity of "
                f"{'the rows' if self.method == 'mdav' else 'each column alone'}"
                "); not differential privacy: a centroid is the mean of its "
                f"members, so knowing {k - 1} of them reveals the last"
            )
        return {
            "notion": "microaggregation: every released value shared by >= k records",
            "min_cluster_size": self.min_cluster_size,
            "method": self.method,
            "k_anonymity": scope,
            "raw_values_released": k == 1,
            "guarantee": guarantee,
        }

    @withholds_raw_values
    def fit(self, X: ArrayLike, y: None = None) -> Microaggregator:
        """Find the micro-clusters of ``X``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric data without missing values.
        y : None
            Ignored.

        Returns
        -------
        self : Microaggregator
        """
        self._fit(X)
        return self

    @withholds_raw_values
    def fit_transform(self, X: ArrayLike, y: None = None) -> NDArray[np.float64]:
        """Find the micro-clusters and replace each value by its centroid.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric data without missing values.
        y : None
            Ignored.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_features)
            Microaggregated data.
        """
        return self._fit(X)

    @withholds_raw_values
    def transform(self, X: ArrayLike) -> NDArray[np.float64]:
        """Map values to the fitted clusters' centroids.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric data.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_features)
            Each value replaced by the nearest centroid of its column
            (``"mdav"``: each row by the nearest centroid in standardized
            space).
        """
        check_is_fitted(self)
        X = validate_data(
            self, check_numeric_input(X, finite=True), dtype=np.float64, reset=False
        )
        if self.method == "mdav":
            Z = X / self._scale
            C = self.centroids_ / self._scale
            d = ((Z[:, None, :] - C[None, :, :]) ** 2).sum(axis=2)
            return self.centroids_[np.argmin(d, axis=1)]
        out = np.empty_like(X)
        for j, (c, cuts) in enumerate(zip(self.centroids_, self.cut_points_)):
            out[:, j] = c[np.searchsorted(cuts, X[:, j], side="left")]
        return out
