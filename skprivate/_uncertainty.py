"""Confidence intervals: the one interface and the shared machinery.

Every population estimate and every learner of skprivate answers
``conf_int(kind, points=None, level=0.95, method="auto", ...)`` with a tidy
:class:`pandas.DataFrame`, one row per point::

    quantity  point  estimate  se  lower  upper  level  method  target

``quantity`` is the ``kind`` asked for (``"mean"``, ``"quantile"``,
``"cdf"``, ``"pdf"``, ``"predict"``, ...), ``point`` where it is evaluated
(a probability level for a quantile, a value for a CDF, a row of ``X`` for a
prediction; ``NaN`` for the mean), ``se`` the standard error when the method
has one (``NaN`` for percentile and likelihood-ratio intervals), ``method``
how the interval was computed and ``target`` what it covers: an interval
that covers a smoothed version of the quantity (the expectation of a kernel
or EMS estimate at its bandwidth or smoothing) says so there.

An estimator provides a kind by defining ``_conf_int_<kind>(request)``; the
generic fallback of population estimates is the nonparametric bootstrap of
the privatized rows (each replicate refits a clone of the estimator, made to
take privatized data, on rows drawn with replacement).  Resampling runs in
parallel with joblib; the row draws are made up front from ``random_state``,
so the intervals do not depend on ``n_jobs``.

Intervals are computed from the release alone.  A learner fitted on data
the user privatized takes that release again as ``X`` (and ``y``).  A
learner fitted with ``privatizer=`` privatized raw input itself: it keeps
its release (``released_``, see :class:`~skprivate.base.PrivatizedInputMixin`)
and ``conf_int`` reads it, refusing data passed in its place, since the
data at hand are then the raw values (two intervals computed from raw
samples that differ in one record would give that record away).

A learner fitted on an in-memory array may record it at fit
(``ConfidenceIntervalMixin._ci_remember_fit_data``: its number of rows, a
content fingerprint and the ``sample_weight``, never the data):
``conf_int`` then refuses an ``X`` other than the fitted data, and the
resampling methods refit on the drawn rows with their weights (the rows
are the resampling units, each carrying its weight: the weights are
treated as sampling weights, not as counts of identical respondents).  A
method that does not read the weights (through
``IntervalRequest.fit_weights``) refuses a weighted fit.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from numpy.typing import ArrayLike, NDArray
from scipy import sparse, stats
from sklearn.base import clone
from sklearn.utils.validation import check_is_fitted

from .utils._seeding import data_fingerprint
from .utils._warnings import external_stacklevel
from .utils.validation import check_float_array

__all__ = [
    "COLUMNS",
    "ConfidenceIntervalMixin",
    "FitDataRecord",
    "IntervalRequest",
    "PopulationIntervalMixin",
    "bootstrap_replicates",
    "check_level",
    "check_levels",
    "check_points",
    "conf_int_rows",
    "group_jackknife_indices",
    "group_jackknife_interval",
    "interval_frame",
    "normal_frame",
    "normal_interval",
    "percentile_interval",
    "probabilities_of",
    "replicate_statistics",
    "subsampling_interval",
    "values_of",
    "z_value",
]

COLUMNS = [
    "quantity",
    "point",
    "estimate",
    "se",
    "lower",
    "upper",
    "level",
    "method",
    "target",
]

DEFAULT_RESAMPLES = 200

# Key of IntervalRequest.cache: the handler read the fit's weights.
_WEIGHTS_READ = ("fit weights read",)


@dataclass(frozen=True)
class FitDataRecord:
    """What ``conf_int`` remembers of the data a learner was fitted on.

    Not the data: the number of rows and a SHA-256 fingerprint of the
    validated array (:func:`~skprivate.utils._seeding.data_fingerprint`), to
    check that ``X`` given to ``conf_int`` is the data given to ``fit``, and
    the ``sample_weight`` of the fit (``None`` when unweighted), which the
    resampling methods carry with the rows.
    """

    n_rows: int
    fingerprint: int
    sample_weight: NDArray[np.float64] | None = None


def check_levels(level: Any) -> list[float]:
    """The confidence levels of ``conf_int``: one number, or a non-empty sequence.

    Parameters
    ----------
    level : float or sequence of float
        Each in (0, 1).

    Returns
    -------
    list of float

    Raises
    ------
    ValueError
        For an empty sequence, or an entry not in (0, 1).

    Examples
    --------
    >>> check_levels([0.9, 0.95])
    [0.9, 0.95]
    """
    values = np.atleast_1d(np.asarray(level, dtype=object)).ravel()
    if values.size == 0:
        raise ValueError(
            "level must be a number in (0, 1) or a non-empty sequence of them; "
            f"got an empty {type(level).__name__}."
        )
    return [check_level(v) for v in values]


def check_points(points: Any) -> None:
    """Refuse an empty ``points`` (``None`` asks for the kind's defaults).

    Parameters
    ----------
    points : object
        The ``points`` of ``conf_int``: ``None``, a scalar, a sequence, an
        array or a frame (its rows).

    Raises
    ------
    ValueError
        When ``points`` holds no point.

    Examples
    --------
    >>> check_points([0.5])
    >>> check_points([])
    Traceback (most recent call last):
    ...
    ValueError: points is empty: ...
    """
    if points is None or isinstance(points, (str, bytes)):
        return
    shape = getattr(points, "shape", None)
    if shape is not None:
        size = int(shape[0]) if len(shape) else 1
    elif hasattr(points, "__len__"):
        size = len(points)
    else:
        return
    if size == 0:
        raise ValueError(
            "points is empty: conf_int needs at least one point at which to "
            "evaluate the quantity (or points=None for the kind's default "
            f"points); got {type(points).__name__} with no entries."
        )


def check_level(level: Any) -> float:
    """A confidence level strictly between 0 and 1."""
    if (
        isinstance(level, bool)
        or not isinstance(level, numbers.Real)
        or not 0.0 < float(level) < 1.0
    ):
        raise ValueError(f"level must be a number in (0, 1); got {level!r}.")
    return float(level)


def z_value(level: float) -> float:
    """Two-sided standard normal quantile ``z_{(1 + level) / 2}``."""
    return float(stats.norm.ppf(0.5 + 0.5 * level))


def normal_interval(
    estimate: ArrayLike, se: ArrayLike, level: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """``estimate -/+ z se``."""
    estimate = np.asarray(estimate, dtype=float)
    half = z_value(level) * np.asarray(se, dtype=float)
    return estimate - half, estimate + half


def normal_frame(
    quantity: str,
    points: Any,
    estimate: ArrayLike,
    se: ArrayLike,
    level: float,
    method: str,
    target: str,
    clip: tuple[float, float] | None = None,
) -> pd.DataFrame:
    """:func:`interval_frame` of the normal interval ``estimate -/+ z se``.

    ``clip`` bounds the interval to the range of the quantity (e.g. ``(0, 1)``
    for a probability).
    """
    lower, upper = normal_interval(estimate, se, level)
    if clip is not None:
        lower, upper = np.clip(lower, *clip), np.clip(upper, *clip)
    return interval_frame(
        quantity, points, estimate, lower, upper, level, method, target, se=se
    )


def interval_frame(
    quantity: str,
    points: Any,
    estimate: ArrayLike,
    lower: ArrayLike,
    upper: ArrayLike,
    level: float,
    method: str | Sequence[str],
    target: str | Sequence[str],
    se: ArrayLike | None = None,
) -> pd.DataFrame:
    """The tidy result of ``conf_int``: one row per point, columns :data:`COLUMNS`."""
    estimate = np.atleast_1d(np.asarray(estimate, dtype=float))
    m = estimate.size
    if points is None:
        points = [np.nan] * m
    elif isinstance(points, np.ndarray) and points.ndim == 2:
        points = (
            list(points[:, 0])
            if points.shape[1] == 1
            else [tuple(row) for row in points.tolist()]
        )
    else:
        points = list(np.ravel(np.asarray(points, dtype=object)))
    return pd.DataFrame(
        {
            "quantity": [quantity] * m,
            "point": points,
            "estimate": estimate,
            "se": (
                np.full(m, np.nan)
                if se is None
                else np.atleast_1d(np.asarray(se, dtype=float))
            ),
            "lower": np.atleast_1d(np.asarray(lower, dtype=float)),
            "upper": np.atleast_1d(np.asarray(upper, dtype=float)),
            "level": np.full(m, level),
            "method": [method] * m if isinstance(method, str) else list(method),
            "target": [target] * m if isinstance(target, str) else list(target),
        },
        columns=COLUMNS,
    )


@dataclass(frozen=True)
class IntervalRequest:
    """The arguments of one ``conf_int`` call, handed to the kind's handler."""

    kind: str
    points: Any
    level: float
    method: str
    X: Any
    y: Any
    n_resamples: int | None
    random_state: Any
    n_jobs: int | None
    cache: dict = field(default_factory=dict, compare=False, repr=False)
    # The estimator privatized its input itself: X/y are its kept release.
    released: bool = False
    # Weights of the rows of X given to fit (None: unweighted); read them
    # through fit_weights(), which records that the handler used them.
    sample_weight: Any = None

    def fit_weights(self) -> NDArray[np.float64] | None:
        """The fit's ``sample_weight`` for the rows of ``X`` (``None``: unweighted).

        A handler that computes its interval from the weighted rows reads
        them here; ``conf_int`` refuses the interval of a weighted fit whose
        handler never asked for them (it would be computed as if the rows
        were unweighted).
        """
        self.cache[_WEIGHTS_READ] = True
        return self.sample_weight

    def memo(self, key: Any, compute: Callable[[], Any]) -> Any:
        """``compute()`` once per ``conf_int`` call (shared by its levels)."""
        if key not in self.cache:
            self.cache[key] = compute()
        return self.cache[key]

    def resamples(self, default: int = DEFAULT_RESAMPLES) -> int:
        return default if self.n_resamples is None else int(self.n_resamples)

    def choose(self, allowed: Sequence[str], auto: str, owner: str) -> str:
        """The method to use: ``auto`` for ``"auto"``, else one of ``allowed``."""
        if self.method == "auto":
            return auto
        if self.method not in allowed:
            raise ValueError(
                f"{owner} computes {self.kind!r} intervals with method in "
                f"{sorted(allowed)} (or 'auto'); got method={self.method!r}."
            )
        return self.method

    def data(self, name: str = "X", fallback: Any = None) -> Any:
        """``X`` (or ``y``), else ``fallback``, else a clear error."""
        value = getattr(self, name)
        if value is None:
            value = fallback
        if value is None:
            raise ValueError(self.missing_data_message(name))
        return value

    def missing_data_message(self, name: str = "X") -> str:
        """Why the records are missing, and what to do (never "pass the raw data")."""
        if self.released:
            return (
                f"{self.kind!r} intervals by this method are computed from the "
                "released records, and this estimator privatized a dask "
                "collection itself (privatizer=), whose release stays lazy and "
                "is not kept (computing it again would release the raw data a "
                "second time). Fit it on an in-memory array, or privatize the "
                "data first and fit an estimator without privatizer= on the "
                "release."
            )
        return (
            f"{self.kind!r} intervals by this method are computed from the "
            f"privatized records: pass {name}=, the release the estimator was "
            "fitted on (an estimator fitted with privatizer= keeps its own "
            "release and takes none)."
        )


def _seed_sequence(random_state: Any) -> np.random.SeedSequence:
    if isinstance(random_state, np.random.Generator):
        return np.random.SeedSequence(
            [int(v) for v in random_state.integers(0, 2**63 - 1, size=4)]
        )
    if isinstance(random_state, np.random.RandomState):
        return np.random.SeedSequence(
            [int(v) for v in random_state.randint(0, 2**31 - 1, size=4)]
        )
    if random_state is None:
        return np.random.SeedSequence()
    if isinstance(random_state, numbers.Integral) and not isinstance(
        random_state, bool
    ):
        return np.random.SeedSequence(int(random_state) % 2**63)
    raise ValueError(
        "random_state must be None, an int, a numpy RandomState or Generator; "
        f"got {type(random_state).__name__}."
    )


def resample_indices(
    n: int,
    n_resamples: int,
    random_state: Any,
    size: int | None = None,
    replace: bool = True,
) -> list[NDArray[np.intp]]:
    """Row draws of every replicate, made up front from ``random_state``."""
    if n_resamples < 2:
        raise ValueError(f"n_resamples must be at least 2; got {n_resamples}.")
    rng = np.random.default_rng(_seed_sequence(random_state))
    size = n if size is None else int(size)
    if replace:
        return [rng.integers(0, n, size=size) for _ in range(n_resamples)]
    # a uniform subset of size rows; unshuffled, as it is sorted anyway
    return [
        np.sort(rng.choice(n, size, replace=False, shuffle=False))
        for _ in range(n_resamples)
    ]


def _take(data: Any, idx: NDArray) -> Any:
    """The rows ``idx`` of ``data``, kept in its container (frame, sparse)."""
    if data is None:
        return None
    if hasattr(data, "iloc"):
        return data.iloc[idx]
    if sparse.issparse(data):
        # CSR takes rows by index; COO and others do not
        return sparse.csr_matrix(data)[idx]
    return np.asarray(data)[idx]


def _one_replicate(
    template: Any,
    X: Any,
    y: Any,
    idx: NDArray,
    statistic: Callable,
    fit_y: bool,
    sample_weight: NDArray | None = None,
) -> NDArray[np.float64] | None:
    est = clone(template)
    # Each drawn row carries its weight into the refit.
    params = {} if sample_weight is None else {"sample_weight": sample_weight[idx]}
    with warnings.catch_warnings():
        # A replicate's convergence or clipping warnings say nothing new.
        warnings.simplefilter("ignore")
        try:
            if fit_y:
                est.fit(_take(X, idx), _take(y, idx), **params)
            else:
                est.fit(_take(X, idx), **params)
            return np.atleast_1d(np.asarray(statistic(est), dtype=float)).ravel()
        except (ValueError, FloatingPointError, np.linalg.LinAlgError):
            return None


def bootstrap_replicates(
    template: Any,
    X: Any,
    statistic: Callable[[Any], ArrayLike],
    *,
    y: Any = None,
    n_resamples: int = DEFAULT_RESAMPLES,
    random_state: Any = None,
    n_jobs: int | None = None,
    size: int | None = None,
    replace: bool = True,
    sample_weight: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """Refit clones of ``template`` on resampled rows; ``statistic`` of each.

    Parameters
    ----------
    template : estimator
        Unfitted estimator taking the privatized rows of ``X`` (and ``y``).
    X, y : array-like or DataFrame
        Privatized data; rows are the resampling units (respondents).
    statistic : callable
        ``fitted estimator -> array`` of the quantities of interest.
    n_resamples : int
        Number of replicates.
    random_state : None, int, RandomState or Generator
        Seeds the row draws, made before any fit: the replicates do not
        depend on ``n_jobs``.
    n_jobs : int or None
        joblib workers.
    size : int or None
        Rows per replicate (``n`` by default; fewer for the m-out-of-n
        bootstrap and subsampling).
    replace : bool
        Draw with replacement (bootstrap) or without (subsampling).
    sample_weight : array-like of shape (n_samples,) or None
        Weights of the rows of a weighted fit: the rows stay the resampling
        units, each drawn row carrying its weight into the refit
        (``fit(..., sample_weight=)``).

    Returns
    -------
    ndarray of shape (n_resamples, k)
        One row per replicate; a replicate whose fit failed is a row of NaN.
    """
    n = X.shape[0] if hasattr(X, "shape") else len(X)
    indices = resample_indices(n, n_resamples, random_state, size, replace)
    return replicate_statistics(
        template,
        X,
        statistic,
        indices,
        y=y,
        n_jobs=n_jobs,
        sample_weight=sample_weight,
    )


def replicate_statistics(
    template: Any,
    X: Any,
    statistic: Callable[[Any], ArrayLike],
    indices: Sequence[NDArray[np.intp]],
    *,
    y: Any = None,
    n_jobs: int | None = None,
    sample_weight: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """``statistic`` of clones of ``template`` refitted on the given row draws.

    The refits of :func:`bootstrap_replicates` and of the delete-a-group
    jackknife (:func:`group_jackknife_indices`): replicate ``b`` refits on
    the rows ``indices[b]``, with their weights ``sample_weight[indices[b]]``
    when ``sample_weight`` is given.  Returns one row per draw, a row of
    NaN where the fit failed (a warning says how many when more than one in
    ten).
    """
    fit_y = y is not None
    if sample_weight is not None:
        n = X.shape[0] if hasattr(X, "shape") else len(X)
        sample_weight = np.asarray(sample_weight, dtype=float)
        if sample_weight.shape != (n,):
            raise ValueError(
                f"sample_weight must have one weight per row of X ({n}); got "
                f"shape {sample_weight.shape}."
            )
    # An estimator may refit all the draws at once (the same values, one
    # per draw, None for a failed fit), or decline with None; the batched
    # refits take no weights.
    batched = getattr(template, "_resampled_statistics", None)
    outs = (
        None
        if batched is None or fit_y or sample_weight is not None
        else batched(X, indices, statistic)
    )
    if outs is None:
        outs = Parallel(n_jobs=n_jobs)(
            delayed(_one_replicate)(
                template, X, y, idx, statistic, fit_y, sample_weight
            )
            for idx in indices
        )
    width = max((o.size for o in outs if o is not None), default=0)
    if width == 0:
        raise ValueError(
            "Every resampled fit failed; the data are too few or too degenerate "
            "for resampling intervals."
        )
    reps = np.full((len(outs), width), np.nan)
    for i, o in enumerate(outs):
        if o is not None and o.size == width:
            reps[i] = o
    failed = int(np.isnan(reps).all(axis=1).sum())
    if failed > 0.1 * len(outs):
        warnings.warn(
            f"{failed} of {len(outs)} resampled fits failed; the interval uses "
            "the others.",
            RuntimeWarning,
            stacklevel=external_stacklevel(),
        )
    return reps


def group_jackknife_indices(
    n: int, n_groups: int, random_state: Any
) -> tuple[list[NDArray[np.intp]], NDArray[np.int64]]:
    """Rows kept by each refit of the delete-a-group jackknife.

    The ``n`` rows are split at random into ``n_groups`` groups whose sizes
    differ by at most one; refit ``g`` keeps every row outside group ``g``.

    Returns
    -------
    kept : list of ndarray
        The sorted rows of each refit.
    sizes : ndarray of int
        The number of rows left out by each refit (the group sizes).
    """
    if isinstance(n_groups, bool) or not isinstance(n_groups, numbers.Integral):
        raise TypeError(f"n_groups must be an integer; got {n_groups!r}.")
    if not 2 <= n_groups <= n:
        raise ValueError(
            f"the delete-a-group jackknife needs 2 <= n_groups <= n = {n} "
            f"(every group leaves out at least one row); got n_groups={n_groups}."
        )
    rng = np.random.default_rng(_seed_sequence(random_state))
    group = np.empty(n, dtype=np.int64)
    group[rng.permutation(n)] = np.arange(n) % n_groups
    rows = np.arange(n)
    kept = [rows[group != g] for g in range(n_groups)]
    return kept, np.bincount(group, minlength=n_groups)


def group_jackknife_interval(
    estimate: ArrayLike,
    replicates: NDArray,
    sizes: ArrayLike,
    level: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    """Delete-a-group jackknife interval ``estimate -/+ t_{G-1} se`` (column-wise).

    ``replicates[g]`` is the statistic refitted without group ``g`` of
    ``sizes[g]`` rows (``n = sum(sizes)``).  With ``h_g = n / sizes[g]``,
    the pseudo-values are ``p_g = h_g estimate - (h_g - 1) replicates[g]``,
    their centre ``J = G estimate - sum_g (1 - 1 / h_g) replicates[g]``
    and the variance ``se**2 = G**-1 sum_g (p_g - J)**2 / (h_g - 1)``
    (Busing, Meijer & van der Leeden, 1999; for equal groups the usual
    ``sum_g (p_g - mean p)**2 / (G (G - 1))``).  For an asymptotically
    linear estimator and a fixed number of groups ``G``, the pseudo-values
    are asymptotically independent and normal, so ``(estimate - theta) /
    se`` follows Student's t with ``G - 1`` degrees of freedom.  Groups
    whose refit failed (a row of NaN) are left out, with ``n`` and ``G``
    counted over the others.

    Returns
    -------
    lower, upper, se : ndarray
    """
    estimate = np.atleast_1d(np.asarray(estimate, dtype=float))
    replicates = np.asarray(replicates, dtype=float).reshape(-1, estimate.size)
    sizes = np.asarray(sizes, dtype=float)
    ok = ~np.isnan(replicates).all(axis=1)
    replicates, sizes = replicates[ok], sizes[ok]
    G = replicates.shape[0]
    if G < 2:
        raise ValueError(
            "the delete-a-group jackknife needs at least two groups whose "
            f"refit succeeded; got {G}."
        )
    h = (sizes.sum() / sizes)[:, None]
    pseudo = h * estimate[None, :] - (h - 1.0) * replicates
    centre = G * estimate - np.sum((1.0 - 1.0 / h) * replicates, axis=0)
    se = np.sqrt(np.sum((pseudo - centre) ** 2 / (h - 1.0), axis=0) / G)
    half = stats.t.ppf(0.5 + 0.5 * level, G - 1) * se
    return estimate - half, estimate + half, se


def percentile_interval(
    replicates: NDArray, level: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Efron's percentile interval of bootstrap replicates (column-wise)."""
    alpha = 1.0 - level
    lower = np.nanquantile(replicates, alpha / 2, axis=0)
    upper = np.nanquantile(replicates, 1 - alpha / 2, axis=0)
    return lower, upper


def subsampling_interval(
    estimate: ArrayLike,
    replicates: NDArray,
    n: int,
    size: int,
    rate: float,
    level: float,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Subsampling interval of Politis, Romano & Wolf for an ``n**rate`` estimator.

    The law of ``n**rate (theta_n - theta)`` is estimated by that of
    ``b**rate (theta_b - theta_n)`` over subsamples of ``b = size`` rows, so
    the interval is ``theta_n - q_{1 - alpha/2} / n**rate`` to ``theta_n -
    q_{alpha/2} / n**rate``.
    """
    estimate = np.asarray(estimate, dtype=float)
    roots = size**rate * (replicates - estimate[None, :])
    alpha = 1.0 - level
    q_low = np.nanquantile(roots, alpha / 2, axis=0)
    q_high = np.nanquantile(roots, 1 - alpha / 2, axis=0)
    return estimate - q_high / n**rate, estimate - q_low / n**rate


class ConfidenceIntervalMixin:
    """``conf_int``: confidence intervals for what an estimator estimates.

    A subclass offers an interval kind by defining ``_conf_int_<kind>``,
    which receives an :class:`IntervalRequest` and returns the frame of
    :func:`interval_frame`.  Resampling methods refit the estimator made by
    ``_ci_resampling_template`` (a clone that takes privatized data).
    """

    def _ci_interval_kinds(self) -> list[str]:
        kinds = []
        for name in dir(type(self)):
            if name.startswith("_conf_int_"):
                kind = name[len("_conf_int_") :]
                if self._ci_offers_kind(kind):
                    kinds.append(kind)
        return sorted(kinds)

    def _ci_resampling_template(self) -> Any:
        """An unfitted clone that takes the privatized data (no privatizer)."""
        if getattr(self, "privatizer", None) is not None:
            raise ValueError(
                f"{type(self).__name__} was fitted with a privatizer; resampling "
                "intervals need the released data and a clone that takes it, "
                "which this estimator does not provide."
            )
        return clone(self)

    def _ci_offers_kind(self, kind: str) -> bool:
        """Whether ``kind`` applies to this (fitted) estimator."""
        return True

    def _ci_kept_release(self) -> dict[str, Any] | None:
        """The records an estimator fitted with ``privatizer=`` released itself.

        ``None`` for an estimator fitted on data the user privatized: ``X``
        and ``y`` given to ``conf_int`` are then that release.  Otherwise a
        dict from the argument names of ``conf_int`` (``"X"``, ``"y"``) to
        the kept release that stands for them (``None`` when a handler reads
        the estimator's own records, or when nothing was kept); ``conf_int``
        refuses a value passed for any of these names.  By default ``X``
        and ``y`` are both the estimator's, and ``X`` is ``released_``.
        """
        if getattr(self, "privatizer_", None) is None:
            return None
        return {"X": getattr(self, "released_", None), "y": None}

    def _ci_remember_fit_data(
        self, data: Any, sample_weight: ArrayLike | None = None
    ) -> None:
        """Remember the data ``fit`` fitted on, for ``conf_int`` to check ``X``.

        A learner's ``fit`` calls this with the validated in-memory array it
        fitted (and its ``sample_weight``, ``None`` when unweighted); it
        stores a :class:`FitDataRecord` (the number of rows and a content
        fingerprint, never the data).  ``conf_int`` then refuses an ``X``
        whose validated form (:meth:`_ci_fit_data_form`) differs, and
        carries the weights into the resampling methods.  A learner that
        does not call it (fitted by ``partial_fit`` chunks, on a dask
        collection, or not yet wired) has no record: its ``X`` is not
        checked, and it has no weights to carry.

        Parameters
        ----------
        data : ndarray
            The validated rows given to ``fit``.
        sample_weight : array-like of shape (n_rows,) or None
            Their weights.
        """
        n = int(np.shape(data)[0])
        weights = None
        if sample_weight is not None:
            weights = np.array(sample_weight, dtype=float).reshape(-1)
            if weights.shape != (n,):
                raise ValueError(
                    f"sample_weight must have one weight per row ({n}); got "
                    f"shape {weights.shape}."
                )
        self._ci_fit_record = FitDataRecord(n, data_fingerprint(data), weights)

    def _ci_forget_fit_data(self) -> None:
        """Drop the record of the data of an earlier fit (a new fit starts)."""
        self.__dict__.pop("_ci_fit_record", None)

    def _ci_fit_data_form(self, X: Any) -> Any:
        """``X`` of ``conf_int`` validated as ``fit`` validates its data.

        The form whose fingerprint :meth:`_ci_remember_fit_data` stored;
        learners that record their data override it with their validation.
        """
        return np.asarray(X)

    def _ci_check_fit_data(self, X: Any) -> FitDataRecord | None:
        """Refuse an ``X`` that is not the data the estimator was fitted on.

        Returns the :class:`FitDataRecord` of the fit (``None`` when the
        learner kept none: then ``X`` is not checked).
        """
        record = self.__dict__.get("_ci_fit_record")
        if record is None:
            return None
        rows = self._ci_fit_data_form(X)
        shape = np.shape(rows)
        if not shape:
            # (named by its type only: a scalar given as X may be a raw value)
            raise ValueError(
                f"X must be the data passed to {type(self).__name__}.fit, an "
                f"array of rows; got a scalar of type {type(X).__name__}."
            )
        n = int(shape[0])
        if n != record.n_rows:
            differs = f"X has {n} rows, and the fit had {record.n_rows}"
        elif data_fingerprint(rows) != record.fingerprint:
            differs = (
                f"X has the fit's {n} rows in number but other values, or the "
                "rows in another order"
            )
        else:
            return record
        raise ValueError(
            f"X must be the data passed to {type(self).__name__}.fit (the "
            f"rows, in the same order): {differs}. The interval is centred on "
            "the fitted estimate, so an X other than the fitted data would "
            "give an interval for another estimate. To bound an estimate of "
            "other data, fit a new estimator on them."
        )

    def conf_int(
        self,
        kind: str = "mean",
        points: Any = None,
        *,
        level: float = 0.95,
        method: str = "auto",
        X: Any = None,
        y: Any = None,
        n_resamples: int | None = None,
        random_state: Any = None,
        n_jobs: int | None = None,
    ) -> pd.DataFrame:
        """Confidence intervals for a quantity the estimator estimates.

        Parameters
        ----------
        kind : str, default="mean"
            What to bound: ``"mean"``, ``"quantile"`` (at probability levels
            ``points``), ``"cdf"`` or ``"pdf"`` (at values ``points``) for a
            population estimate; ``"predict"`` (at rows ``points``) for a
            regressor, ``"predict_proba"`` for a classifier; the statistics
            released for the integral statistics.  The kinds available are
            listed in the error raised for an unknown one and in the
            estimator's documentation.
        points : array-like or None
            Where to evaluate (see ``kind``); ignored for the mean.  ``None``
            asks for the kind's default points (where it has them); an empty
            ``points`` is refused.
        level : float or sequence of float, default=0.95
            Confidence level, in (0, 1); several levels (a non-empty
            sequence) give one block of rows each, computed from the same
            resampled replicates.
        method : str, default="auto"
            How to compute the interval; ``"auto"`` picks the method the
            estimator documents as right for the kind.
        X, y : array-like, optional
            The privatized data the estimator was fitted on (``y`` for
            learners with a target), needed by methods that recompute
            per-record terms or resample; learners that keep their records
            use them when ``X`` is not given.  An estimator fitted with
            ``privatizer=`` privatized its raw input itself: it uses the
            release it kept (``released_``) and refuses data here, which
            would be raw values (the features of
            :class:`~skprivate.IterativeIntervalRegressor`, which its
            privatizer does not release, are still passed as ``X``).
            A learner that records its fitted data (the interval learners
            :class:`~skprivate.IntervalNPMLE` and
            :class:`~skprivate.IntervalMLE` fitted on an in-memory array)
            refuses an ``X`` other than that data, by its number of rows and
            a fingerprint of its content; fitted on a dask collection, it
            has no record and ``X`` is not checked.  The ``sample_weight``
            of such a fit goes with the rows: resampling methods refit on
            the drawn rows with their weights (rows of weight zero, which
            take no part in the fit, are left out), and a method that does
            not use the weights refuses a weighted fit.
        n_resamples : int or None
            Replicates of resampling methods (their default when None).
        random_state : None, int, RandomState or Generator
            Seeds resampling methods (reproducible for an int).
        n_jobs : int or None
            joblib workers for resampling methods.

        Returns
        -------
        pandas.DataFrame
            One row per point with columns ``quantity, point, estimate, se,
            lower, upper, level, method, target``.

        Raises
        ------
        ValueError
            For an unknown kind, method or level, an empty ``level`` or
            ``points``; for ``X`` or ``y`` given to an estimator fitted with
            ``privatizer=``, or an ``X`` other than the data the estimator
            recorded at fit (see above); for a method that does not use the
            weights of a weighted fit.

        Examples
        --------
        >>> import numpy as np
        >>> from skprivate import DeconvolutionKernelDensity, LaplaceLDP
        >>> x = np.random.default_rng(0).normal(size=(2000, 1)).clip(-4, 4)
        >>> ldp = LaplaceLDP(epsilon=4, bounds=(-4, 4), random_state=0)
        >>> z = ldp.fit_transform(x)
        >>> kde = DeconvolutionKernelDensity(noise_scale=ldp.scale_, support=(-4, 4))
        >>> ci = kde.fit(z).conf_int("mean", X=z)
        >>> ci[["estimate", "lower", "upper", "method"]].round(2)
           estimate  lower  upper      method
        0     -0.06  -0.19   0.07  noisy-mean
        """
        check_is_fitted(self)
        levels = check_levels(level)
        check_points(points)
        if not isinstance(kind, str):
            # data passed as the first argument (conf_int(X)) lands here: the
            # message names its type, never its values
            raise ValueError(
                f"kind must be a name; got an object of type "
                f"{type(kind).__name__}, not a str such as 'mean' (data goes in "
                "X=)."
            )
        if not kind.isidentifier():
            raise ValueError(
                "kind must be a name; got a str that is not a name (such as 'mean')."
            )
        handler = getattr(self, f"_conf_int_{kind}", None)
        if handler is None or not self._ci_offers_kind(kind):
            raise ValueError(
                f"{type(self).__name__} has no confidence intervals for "
                f"kind={kind!r}; available: {self._ci_interval_kinds()}."
            )
        if not isinstance(method, str):
            raise ValueError(f"method must be a string; got {method!r}.")
        if n_resamples is not None and (
            isinstance(n_resamples, bool)
            or not isinstance(n_resamples, numbers.Integral)
            or n_resamples < 2
        ):
            raise ValueError(
                f"n_resamples must be an integer >= 2; got {n_resamples!r}."
            )
        kept = self._ci_kept_release()
        if kept is not None:
            given = [n for n, v in (("X", X), ("y", y)) if v is not None and n in kept]
            if given:
                names = " and ".join(given)
                raise ValueError(
                    f"{type(self).__name__} was fitted with privatizer=, so it "
                    "privatized its input itself: its intervals are computed "
                    "from its own release (released_), and data passed as "
                    f"{names} would be the raw values given to fit, which an "
                    "interval must not use (two intervals on data that differ "
                    "in one record reveal that record). Call conf_int without "
                    f"{names}."
                )
            X = kept.get("X", X)
            y = kept.get("y", y)
        weights = None
        if kept is None and X is not None:
            record = self._ci_check_fit_data(X)
            if record is not None and record.sample_weight is not None:
                X, y, weights = _weighted_rows(X, y, record.sample_weight)
        # Several levels share one computation (resampled replicates,
        # information matrices): the requests share a cache.
        cache: dict = {}
        frames = []
        for v in levels:
            frames.append(
                handler(
                    IntervalRequest(
                        kind,
                        points,
                        v,
                        method,
                        X,
                        y,
                        n_resamples,
                        random_state,
                        n_jobs,
                        cache,
                        kept is not None,
                        weights,
                    )
                )
            )
            if weights is not None and not cache.get(_WEIGHTS_READ):
                label = frames[0]["method"].iloc[0] if len(frames[0]) else method
                raise ValueError(
                    f"{type(self).__name__} was fitted with sample_weight, and "
                    f"its {kind!r} interval by method {label!r} does not use "
                    "the weights (it would be computed as if the rows were "
                    "unweighted): intervals of a weighted fit are not offered "
                    "for that method. Use a resampling method that refits "
                    "with the rows' weights (method='bootstrap' where "
                    "offered), or fit without sample_weight."
                )
        return frames[0] if len(frames) == 1 else pd.concat(frames, ignore_index=True)


def _weighted_rows(
    X: Any, y: Any, weights: NDArray[np.float64]
) -> tuple[Any, Any, NDArray[np.float64] | None]:
    """The rows of a weighted fit that carry weight, and their weights.

    A row of weight zero takes no part in the fit, so it is dropped from
    the rows an interval resamples; when the rows left all weigh the same,
    the fit is that of the unweighted rows, and the weights are ``None``.
    """
    keep = weights > 0
    if not keep.all():
        X, y, weights = _take(X, keep), _take(y, keep), weights[keep]
    if weights.size and np.all(weights == weights[0]):
        return X, y, None
    return X, y, weights


class PopulationIntervalMixin(ConfidenceIntervalMixin):
    """Intervals of a population estimate, with the bootstrap as fallback.

    ``mean``, ``quantile`` and ``cdf`` default to the percentile bootstrap of
    the privatized rows (each replicate refits a clone of the estimator made
    by ``_ci_resampling_template``); estimators with a method right for them
    override these kinds.
    """

    def _ci_bootstrap_population(
        self, request: IntervalRequest, points: Any, statistic: Callable
    ) -> pd.DataFrame:
        """Percentile bootstrap of the privatized rows, refitting each time."""
        X = request.data("X")
        weights = request.fit_weights()
        reps = request.memo(
            "bootstrap",
            lambda: bootstrap_replicates(
                self._ci_resampling_template(),
                X,
                statistic,
                n_resamples=request.resamples(),
                random_state=request.random_state,
                n_jobs=request.n_jobs,
                sample_weight=weights,
            ),
        )
        lower, upper = percentile_interval(reps, request.level)
        return interval_frame(
            request.kind,
            points,
            np.asarray(statistic(self), dtype=float),
            lower,
            upper,
            request.level,
            "bootstrap-percentile",
            "the estimator's expectation at its smoothing (its bias not covered)",
            se=np.nanstd(reps, axis=0, ddof=1),
        )

    def _conf_int_mean(self, request: IntervalRequest) -> pd.DataFrame:
        request.choose(("bootstrap",), "bootstrap", type(self).__name__)
        return self._ci_bootstrap_population(request, None, lambda est: est.mean())

    def _conf_int_quantile(self, request: IntervalRequest) -> pd.DataFrame:
        request.choose(("bootstrap",), "bootstrap", type(self).__name__)
        q = probabilities_of(request.points)
        return self._ci_bootstrap_population(request, q, lambda est: est.quantile(q))

    def _conf_int_cdf(self, request: IntervalRequest) -> pd.DataFrame:
        request.choose(("bootstrap",), "bootstrap", type(self).__name__)
        x = values_of(request.points)
        return self._ci_bootstrap_population(request, x, lambda est: est.cdf(x))


def probabilities_of(points: Any) -> NDArray[np.float64]:
    if points is None:
        return np.array([0.25, 0.5, 0.75])
    q = np.atleast_1d(check_float_array(points, name="points", allow_nan=True))
    q = q.ravel()
    if np.any(~((q > 0) & (q < 1))):
        raise ValueError(
            f"quantile points must be probability levels in (0, 1); got {q.tolist()}."
        )
    return q


def values_of(points: Any) -> NDArray[np.float64]:
    if points is None:
        raise ValueError("points= is required: the values at which to evaluate.")
    # the values may be records: a refusal names the entry, never its value
    x = np.atleast_1d(check_float_array(points, name="points", allow_nan=True))
    x = x.ravel()
    if not np.all(np.isfinite(x)):
        entry = int(np.flatnonzero(~np.isfinite(x))[0])
        raise ValueError(
            "points must be finite numbers; got "
            f"{'NaN' if np.isnan(x[entry]) else 'an infinite value'} at entry "
            f"{entry} (in flat order)."
        )
    return x


def conf_int_rows(
    estimator: Any, kind: str, points: Any, level: float, X: Any = None
) -> list[tuple[float, float, str, float, str]]:
    """``(lower, upper, method, centre, covers)`` per point of one ``conf_int``.

    The call the reports make (``python -m skprivate estimate --level``, the
    survey's status): ``random_state=0``, so that a report is reproducible.
    When the estimator has no interval for ``kind`` (or cannot compute it on
    these data), every row has NaN bounds and the reason in place of the
    method.  An estimator fitted with ``privatizer=`` reads its own release:
    ``X`` is then not passed.
    """
    if getattr(estimator, "privatizer_", None) is not None:
        X = None
    try:
        ci = estimator.conf_int(kind, points, level=level, X=X, random_state=0)
    except (ValueError, TypeError, np.linalg.LinAlgError) as exc:
        reason = f"unavailable: {str(exc).splitlines()[0]}"
        size = 1 if points is None else len(points)
        return [(np.nan, np.nan, reason, np.nan, "")] * size
    return list(
        zip(
            ci["lower"],
            ci["upper"],
            ci["method"],
            ci["estimate"],
            ci["target"],
            strict=True,
        )
    )
