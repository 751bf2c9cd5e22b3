"""Learners fitted on dask collections from merged per-partition statistics.

Each fitter computes a sufficient statistic of every partition on the
workers (binned counts on a fixed grid, counts of distinct subsets or of
distinct intervals, moments), merges them in a tree (so neither the client
nor any worker ever holds more than a few statistics), and hands the merged
statistic to the learner's own estimation code: the estimate is the one an
in-memory ``fit`` of the same rows gives, up to the order of floating-point
additions.

Imported only when a dask collection is fitted.
"""

from __future__ import annotations

import numbers
from typing import Any

import dask
import numpy as np
from sklearn.base import clone

__all__ = ["FITTERS", "dask_laplace_statistic"]

SPLIT_EVERY = 8


# -- shared pieces ------------------------------------------------------------
def _is_frame(X: Any) -> bool:
    import dask.dataframe as dd

    return isinstance(X, dd.DataFrame | dd.Series)


def _as_2d(X: Any) -> Any:
    if _is_frame(X):
        return X.to_frame() if X.ndim == 1 else X
    if X.ndim == 1:
        X = X[:, None]
    if X.ndim != 2:
        raise ValueError(f"X must be 2-D; got a dask array of shape {X.shape}.")
    return X.rechunk({1: -1}) if X.numblocks[1] != 1 else X


def _blocks(X: Any) -> list:
    """One delayed in-memory block per row partition."""
    X = _as_2d(X)
    return list(np.ravel(X.to_delayed()))


def _row_offsets(X: Any) -> list[int]:
    """First row of every row partition (computes lengths when unknown)."""
    X = _as_2d(X)
    if _is_frame(X):
        lengths = X.map_partitions(len).compute().tolist()
    else:
        if any(np.isnan(c) for c in X.chunks[0]):
            X = X.compute_chunk_sizes()
        lengths = list(X.chunks[0])
    return np.concatenate([[0], np.cumsum(lengths)[:-1]]).astype(int).tolist()


def _tree(parts: list, merge: Any) -> Any:
    """Merge delayed statistics ``SPLIT_EVERY`` at a time, as a tree."""
    merge = dask.delayed(merge, pure=True)
    while len(parts) > 1:
        parts = [
            merge(*parts[i : i + SPLIT_EVERY])
            for i in range(0, len(parts), SPLIT_EVERY)
        ]
    return parts[0]


def _set_input_features(estimator: Any, X: Any, names: bool = True) -> None:
    """``n_features_in_`` (and ``feature_names_in_``) as ``validate_data`` sets them."""
    X = _as_2d(X)
    estimator.n_features_in_ = int(X.shape[1])
    estimator.__dict__.pop("feature_names_in_", None)
    if names and _is_frame(X):
        cols = np.asarray(X.columns, dtype=object)
        if all(isinstance(c, str) for c in cols):
            estimator.feature_names_in_ = cols


def _privatize(estimator: Any, X: Any) -> Any:
    """The learner's ``_privatize`` for a dask collection: lazy.

    A fresh clone of the privatizer releases ``X`` partition by partition
    (see :func:`skprivate.utils._dask.dask_transform` for the seeds).
    """
    if estimator.privatizer is None:
        estimator.privatizer_ = None
        return X
    privatizer = clone(estimator.privatizer)
    privatized = privatizer.fit_transform(X)
    estimator.privatizer_ = privatizer
    return privatized


def _values(block: Any) -> np.ndarray:
    return np.asarray(block, dtype=np.float64)


# -- DeconvolutionKernelDensity ---------------------------------------------------
def _bin_block(block, grid):
    z = _values(block)[:, 0]
    inside = grid.inside(z)
    counts = grid.bin(z[inside], None)[:, 0]
    return counts, z.size, int(z.size - inside.sum())


def _sum_bins(*parts):
    counts = parts[0][0].copy()
    for c, _, _ in parts[1:]:
        counts += c
    return counts, sum(p[1] for p in parts), sum(p[2] for p in parts)


def _fit_deconvolution_density(est: Any, X: Any) -> Any:
    from ..ldp._binned_1d import BinnedSums
    from ..ldp._common import resolve_noise_scale

    est._check_params()
    est.__dict__.pop("_stream", None)
    name = type(est).__name__
    X = _as_2d(X)
    if X.shape[1] != 1:
        raise ValueError(
            f"{name} fits a dask collection of a single feature (binned kernel "
            f"sums); got {X.shape[1]} features."
        )
    if not isinstance(est.bandwidth, numbers.Real):
        raise ValueError(
            f"{name} on a dask collection needs a float bandwidth: choosing it "
            f"by cross-validation (bandwidth={est.bandwidth!r}) needs all the "
            "records at once. Choose it on a sample that fits in memory, e.g. "
            "DeconvolutionKernelDensity(...).fit(sample).bandwidth_."
        )
    if est.algorithm == "direct":
        raise ValueError(
            f"{name} on a dask collection uses binned kernel sums; "
            "algorithm='direct' needs all the records. Use 'auto' or 'binned'."
        )
    _set_input_features(est, X)
    Z = _privatize(est, X)
    noise = resolve_noise_scale(est, 1)
    h = float(est.bandwidth)
    fixed = est._fixed_support()
    z = _as_2d(Z)
    if fixed:
        support = est._support_interval(None)
        span = est._grid_span(support, noise)
    else:  # one reduction: the range of the records, as fit reads it
        stats = dask.compute(z.min(axis=0), z.max(axis=0))
        support = (float(np.ravel(stats[0])[0]), float(np.ravel(stats[1])[0]))
        span = support
    binned = BinnedSums.empty(span, h, float(noise[0] / h), est.kernel)
    grid = BinnedSums.__new__(BinnedSums)  # what binning needs, without kernels
    grid.lo, grid.hi, grid.delta, grid.size = (
        binned.lo,
        binned.hi,
        binned.delta,
        binned.size,
    )
    grid = dask.delayed(grid, pure=True)
    parts = [dask.delayed(_bin_block, pure=True)(b, grid) for b in _blocks(z)]
    counts, n, outside = dask.compute(_tree(parts, _sum_bins))[0]
    if outside:
        lo, hi = binned.lo, binned.hi
        raise ValueError(
            f"{outside} values of X lie outside [{lo:g}, {hi:g}] = support "
            "widened by 40 noise scales, beyond the fixed grid; support (or the "
            "privatizer's bounds) must contain the clean data."
        )
    binned.set_counts(counts[:, None])
    est.noise_scale_ = noise
    est.bandwidth_ = h
    est.bandwidth_candidates_ = None
    est.cv_scores_ = None
    est._ratio = noise / h
    est._Z = None
    est._binned = binned
    est.bin_counts_ = counts if fixed else None
    est.n_samples_seen_ = int(n)
    est.support_ = support
    if fixed:
        est._stream = est._settings()
    est._build_distribution()
    return est


# -- RVNSDensityEstimator ---------------------------------------------------------
def _rvns_block(block, binned, start, ml):
    Y = _values(block)
    counts = binned.bin(Y, start) if ml else binned.bin(Y)
    return counts, Y.size, Y.shape[0], float(Y.min()), float(Y.max())


def _sum_reports(*parts):
    counts = parts[0][0].copy()
    for p in parts[1:]:
        counts += p[0]
    return (
        counts,
        sum(p[1] for p in parts),
        sum(p[2] for p in parts),
        min(p[3] for p in parts),
        max(p[4] for p in parts),
    )


def _fit_rvns_density(est: Any, X: Any) -> Any:
    from .._grid_density._kde import BinnedReports
    from ..negative_survey import _reconstruction as rec
    from ..negative_survey._transition import _check_kernel_args

    est._check_params()
    est.__dict__.pop("_stream", None)
    name = type(est).__name__
    ml = est.method == "ml"
    if not ml and est.bandwidth == "ksdensity":
        raise ValueError(
            f"{name} on a dask collection needs a float bandwidth with "
            "method='paper': the 'ksdensity' rule reads the spread of all the "
            "reports at once. Choose it on a sample that fits in memory."
        )
    X = _as_2d(X)
    _set_input_features(est, X)
    offsets = _row_offsets(X) if ml else None
    Y = _as_2d(_privatize(est, X))
    if est.privatizer_ is None and est.bounds is None:
        lo, hi = dask.compute(Y.min(), Y.max())
        sample = np.array([[float(np.min(lo))], [float(np.max(hi))]])
    else:
        sample = np.zeros((1, 1))
    d, a, b = _check_kernel_args(*est._mechanism(sample))
    if ml:
        binned = rec._CellReports((a, b), est.n_points)
    else:
        binned = BinnedReports((a, b), float(est.bandwidth), est.boundary == "reflect")
    shared = dask.delayed(binned, pure=True)
    blocks = _blocks(Y)
    parts = [
        dask.delayed(_rvns_block, pure=True)(block, shared, offsets[i] if ml else 0, ml)
        for i, block in enumerate(blocks)
    ]
    counts, n_reports, n_rows, y_min, y_max = dask.compute(_tree(parts, _sum_reports))[
        0
    ]
    est._check_reports(np.array([y_min, y_max]), a, b)
    est._update(d, binned, counts, int(n_reports), int(n_rows))
    if est._streamable():
        est._stream = est._settings()
    return est


# -- SubsetDistributionEstimator --------------------------------------------------
def _subset_block(block, design):
    from ..subset._estimator import count_reports

    counter = count_reports(np.asarray(block), design, skip_unknown=True)
    return (*counter.result(), counter.n_unknown)


def _merge_subsets(*parts):
    from ..subset._estimator import SubsetCounter

    counter = SubsetCounter(parts[0][0].shape[1])
    for rows, counts, _ in parts:
        counter.add_rows(rows, counts)
    return (*counter.result(), sum(part[2] for part in parts))


def _fit_subset_distribution(est: Any, A: Any) -> Any:
    from ..subset._estimator import resolve_design, warn_unknown_rows

    est._check_params()
    for attr in ("subsets_", "subset_counts_"):
        est.__dict__.pop(attr, None)
    data = _as_2d(_privatize(est, A))
    # In memory the privatizer returns an array: no column names then.
    _set_input_features(est, data, names=est.privatizer is None)
    if est.privatizer is not None:
        design, cats = resolve_design(est.privatizer_, 0, name="privatizer")
    else:
        design, cats = resolve_design(est.design, est.n_features_in_)
    shared = dask.delayed(design, pure=True)
    parts = [dask.delayed(_subset_block, pure=True)(b, shared) for b in _blocks(data)]
    rows, counts, n_unknown = dask.compute(_tree(parts, _merge_subsets))[0]
    warn_unknown_rows(n_unknown, round(counts.sum()) + n_unknown, counts.sum())
    est.design_ = design
    est.categories_ = cats
    est.subsets_ = rows
    est.subset_counts_ = counts
    est.n_unknown_ = int(n_unknown)
    est.n_samples_seen_ = round(counts.sum()) + est.n_unknown_
    est._estimate()
    return est


# -- IntervalNPMLE ------------------------------------------------------------------
def _interval_block(block):
    from .validation import check_interval_array

    Z = check_interval_array(np.asarray(block, dtype=np.float64), name="X")
    rows, counts = np.unique(Z, axis=0, return_counts=True)
    return rows, counts.astype(np.float64)


def _merge_intervals(*parts):
    rows = np.concatenate([r for r, _ in parts])
    weights = np.concatenate([c for _, c in parts])
    rows, inverse = np.unique(rows, axis=0, return_inverse=True)
    return rows, np.bincount(inverse.ravel(), weights=weights, minlength=len(rows))


def _fit_interval_npmle(est: Any, X: Any) -> Any:
    """Counts of distinct interval rows (per anchor cell for Case-I data).

    The NPMLE (and the parametric MLE) depends on the rows only through
    these counts, so fitting the distinct rows weighted by their counts
    gives the in-memory estimate.
    """
    parts = [dask.delayed(_interval_block, pure=True)(b) for b in _blocks(X)]
    rows, counts = dask.compute(_tree(parts, _merge_intervals))[0]
    return est.fit(rows, sample_weight=counts)


# -- DP baselines -----------------------------------------------------------------
_MOMENT_STATISTICS = ("count", "sum", "mean", "var", "std")


def _moments_block(block, lo, hi, clip):
    x = _values(block).ravel()
    x = x[~np.isnan(x)]
    if clip:
        x = np.clip(x, lo, hi)
    n = x.size
    if n == 0:
        return 0, 0.0, 0.0, 0.0
    total = float(x.sum())
    mean = total / n
    return n, total, mean, float(np.sum((x - mean) ** 2))


def _merge_moments(*parts):
    # Chan, Golub and LeVeque's pairwise update of (n, sum, mean, M2).
    n, total, mean, m2 = 0, 0.0, 0.0, 0.0
    for nb, tb, mb, m2b in parts:
        if nb == 0:
            continue
        if n == 0:
            n, total, mean, m2 = nb, tb, mb, m2b
            continue
        both = n + nb
        delta = mb - mean
        mean = mean + delta * nb / both
        m2 = m2 + m2b + delta**2 * n * nb / both
        n, total = both, total + tb
    return n, total, mean, m2


def dask_laplace_statistic(
    x: Any,
    statistic: str,
    epsilon: float,
    bounds: tuple[float, float] | None = None,
    delta: float = 1e-6,
    random_state: Any = None,
    sensitivity: str = "global",
) -> float:
    """:func:`~skprivate.integral.laplace_statistic` of a dask collection.

    Count, sum, mean, variance and standard deviation with global
    sensitivity merge per-partition moments ``(n, sum, mean, M2)``; the
    noise is the one draw the in-memory function makes with the same
    ``random_state``.  Min, max, median and IQR need the sorted values (the
    exponential mechanism and propose-test-release) and are refused, as are
    bounds read from the data.

    Parameters
    ----------
    x : dask.array.Array or dask.dataframe.Series/DataFrame
        Values (NaN dropped).
    statistic, epsilon, bounds, delta, random_state, sensitivity
        As :func:`~skprivate.integral.laplace_statistic`.

    Returns
    -------
    value : float
    """
    from ..integral import _dp
    from .validation import check_generator

    if statistic not in _MOMENT_STATISTICS or sensitivity != "global":
        raise ValueError(
            "laplace_statistic of a dask collection supports statistic in "
            f"{list(_MOMENT_STATISTICS)} with sensitivity='global' (their "
            f"moments merge across partitions); got statistic={statistic!r}, "
            f"sensitivity={sensitivity!r}. Min, max, median and IQR need the "
            "sorted values."
        )
    if bounds is None:
        raise ValueError(
            "bounds must be given for laplace_statistic of a dask collection: "
            "reading them from the data leaks them (and needs another pass)."
        )
    if (
        isinstance(epsilon, bool)
        or not isinstance(epsilon, numbers.Real)
        or not 0 < epsilon < np.inf
    ):
        raise ValueError(f"epsilon must be a finite positive number; got {epsilon!r}.")
    lo, hi = float(bounds[0]), float(bounds[1])
    if not lo < hi:
        raise ValueError(f"bounds must be (low, high) with low < high; got {bounds!r}.")
    clip = statistic != "count"
    parts = [
        dask.delayed(_moments_block, pure=True)(b, lo, hi, clip)
        for b in _blocks(x if _is_frame(x) or x.ndim > 1 else x[:, None])
    ]
    n, total, _mean, m2 = dask.compute(_tree(parts, _merge_moments))[0]
    if n == 0:
        raise ValueError("x has no non-missing values.")
    if statistic == "count":
        value = float(n)
    elif statistic == "sum":
        value = total
    elif statistic == "mean":
        value = total / n
    elif statistic == "var":
        value = m2 / (n - 1) if n > 1 else np.nan
    else:
        value = float(np.sqrt(m2 / (n - 1))) if n > 1 else np.nan
    rng = check_generator(random_state)
    scale = _dp._global_scale(n, statistic, epsilon, lo, hi)
    return float(value + rng.laplace(0.0, scale))


FITTERS = {
    "DeconvolutionKernelDensity": _fit_deconvolution_density,
    "RVNSDensityEstimator": _fit_rvns_density,
    "SubsetDistributionEstimator": _fit_subset_distribution,
    "IntervalNPMLE": _fit_interval_npmle,
    # the interval likelihood also depends only on the distinct rows' counts
    "IntervalMLE": _fit_interval_npmle,
}
