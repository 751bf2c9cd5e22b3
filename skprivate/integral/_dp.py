"""Differentially private baselines of the integral-privacy paper, and ARE.

Neighbouring data sets differ by replacing one record (the number of
records ``n`` is public, as the mean's sensitivity ``(U - L) / n``
assumes), and every value is first clamped into the declared public bounds
``[L, U]`` (all of them: order statistics, the IQR and the paper's
local-sensitivity variants read the clamped values too).  By default every
statistic is ε-DP with a global sensitivity derived from the bounds:

* count (Δ = 1), clamped sum (Δ = max(U - L, |L|, |U|): replacing a
  record moves it by at most U - L, adding or removing one by at most
  max(|L|, |U|)), clamped mean (Δ = (U - L) / n): the Laplace mechanism;
* min, max and median: the exponential mechanism over the bounded domain
  (a DP quantile, :func:`_dp_quantile`);
* variance (``ddof=1``): Laplace with Δ = (U - L)² / n, and standard
  deviation: Laplace with Δ = (U - L) / √n (derived in
  :func:`laplace_statistic`);
* the IQR uses propose-test-release on a logarithmic grid (Dwork and Lei's
  "Scale"), (ε, δ)-DP.

``sensitivity="local"`` reproduces the paper's own variants, which the
paper compares against: median, min and max with noise scaled to their
*local* sensitivity, variance and SD with a sensitivity built from the noisy
min and max.  The noise scale then depends on the data, so these are **not**
ε-DP (the minimum of ``[1, 1, 5, 7]`` is released exactly, for every seed);
they warn :class:`~skprivate.exceptions.PrivacyLeakWarning`.
"""

from __future__ import annotations

import numbers
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd
from numpy.typing import ArrayLike

from ..base import _check_random_state_value, _seed_words
from ..exceptions import PrivacyLeakWarning
from ..utils import check_generator
from ..utils._dask import is_dask_collection
from ..utils._redact import raw_values_withheld
from ..utils._seeding import data_fingerprint, multiset_hash, words
from ..utils._statistic import RowStatistic, reduce_rows
from ..utils._warnings import external_stacklevel
from ..utils.validation import check_float_array, check_numeric_input
from ._release_seed import release_generator as _release_generator
from ._resampling import STATISTICS
from ._sensitivity import MOMENT_STATISTICS, global_scale
from ._statistics import DEFAULT_STATISTICS, check_statistics, numeric_frame
from ._validation import check_pair

__all__ = [
    "absolute_relative_error",
    "laplace_describe",
    "laplace_statistic",
]

FORMALLY_DP = {"count": True, "sum": True, "mean": True, "iqr": True}


def absolute_relative_error(true: ArrayLike, private: ArrayLike) -> np.ndarray:
    """Absolute relative error ``|true - private| / max(1, |true|)`` (eq. 3).

    Parameters
    ----------
    true, private : array-like, pandas.Series or pandas.DataFrame
        True and released values (broadcast, or aligned on labels when
        ``true`` is a pandas object); NaN (no answer) gives NaN.

    Returns
    -------
    are : ndarray, float, or a pandas object shaped like ``true``

    Notes
    -----
    The paper writes ``max{1, true}``; the absolute value keeps the error
    relative for negative statistics (SPEC erratum).

    Examples
    --------
    >>> from skprivate.integral import absolute_relative_error
    >>> float(absolute_relative_error(-200.0, -190.0))
    0.05
    >>> float(absolute_relative_error(0.5, 0.75))
    0.25
    """
    if isinstance(true, pd.DataFrame | pd.Series):
        true = _pandas_as_float(true, "true")
        if isinstance(private, pd.DataFrame | pd.Series):
            private = _pandas_as_float(private, "private")
        else:
            private = check_float_array(private, name="private", allow_nan=True)
        return (true - private).abs() / true.abs().clip(lower=1.0)
    true = check_float_array(true, name="true", allow_nan=True)
    private = check_float_array(private, name="private", allow_nan=True)
    try:
        np.broadcast_shapes(true.shape, private.shape)
    except ValueError:
        raise ValueError(
            f"true and private must have the same shape (or broadcast); got "
            f"{true.shape} and {private.shape}."
        ) from None
    out = np.abs(true - private) / np.maximum(1.0, np.abs(true))
    return out if out.ndim else out[()]


def _pandas_as_float(values: pd.DataFrame | pd.Series, name: str) -> Any:
    """A pandas argument as float, refusing a non-number by its row, not its value.

    pandas' ``astype(float)`` quotes the entry it cannot convert ("could not
    convert string to float: '...'"), and the statistics may be computed on
    raw records: the columns are checked first, and a conversion that still
    fails is refused outside the ``except`` clause, so that no error quoting
    the entry is chained to the refusal.
    """
    check_numeric_input(values, name=name)
    try:
        converted = values.astype(float)
    except (TypeError, ValueError):
        converted = None
    if converted is None:
        raise TypeError(f"{name} must hold numbers.")
    return converted


def _non_missing(values: np.ndarray, column: Any) -> np.ndarray:
    """The non-missing values of one column (as pandas ``describe`` skips)."""
    values = values[~np.isnan(values)]
    if values.size == 0:
        raise ValueError(f"Column {column!r} has no non-missing values.")
    return values


def _check_bounds(x: np.ndarray, bounds: Any) -> tuple[float, float]:
    """The domain ``(lo, hi)``, ``lo < hi``: declared, or read from ``x``.

    Bounds read from the data are its min and max (with a
    :class:`~skprivate.exceptions.PrivacyLeakWarning`).  Data holding a single
    value have a zero-width range, on which no mechanism is defined (the
    exponential mechanism has no interval to draw from); that range is
    widened by 0.5 on each side, as the privatizers do when they read their
    bounds from the data (:func:`skprivate.utils.validation.bounds_from_data`),
    or by one floating-point step where 0.5 is below the resolution of the
    value.
    """
    if bounds is None:
        warnings.warn(
            "bounds were taken from the data (its min and max), as in the paper's "
            "real-data experiments; pass public bounds for a DP release.",
            PrivacyLeakWarning,
            stacklevel=external_stacklevel(),
        )
        lo, hi = float(x.min()), float(x.max())
        if lo == hi:
            lo = min(lo - 0.5, float(np.nextafter(lo, -np.inf)))
            hi = max(hi + 0.5, float(np.nextafter(hi, np.inf)))
        return lo, hi
    return check_pair(bounds, "bounds")


def _iqr_ptr(xs, lo, hi, epsilon, delta, rng):
    """Propose-test-release of the IQR on a grid of ratio ``1 + 1/ln n``."""
    n = xs.size
    if n < 4:
        return np.nan
    iqr = np.quantile(xs, 0.75) - np.quantile(xs, 0.25)
    if iqr <= 0:
        return np.nan
    base = 1.0 + 1.0 / np.log(n)
    j = np.floor(np.log(iqr) / np.log(base))
    # Replacing m records moves every order statistic by at most m ranks, so
    # after m changes each quartile (interpolated between two order
    # statistics) stays between these bounds; beyond the data, the domain.
    h1, h3 = (n - 1) * 0.25, (n - 1) * 0.75
    m = np.arange(1, n + 1)
    padded = np.concatenate(([lo], xs, [hi]))

    def at(i):
        return padded[np.clip(i, -1, n) + 1]

    smallest = np.maximum(at(int(np.floor(h3)) - m) - at(int(np.ceil(h1)) + m), 0.0)
    largest = at(int(np.ceil(h3)) + m) - at(int(np.floor(h1)) - m)
    leaves = (smallest < base**j) | (largest >= base ** (j + 1))
    changes = int(m[np.argmax(leaves)]) if leaves.any() else n
    distance = changes - 1
    if distance + rng.laplace(0.0, 1.0 / epsilon) <= np.log(1.0 / delta) / epsilon:
        return np.nan
    return float(base ** (j + 0.5))


def _laplace_scale(xs, statistic, epsilon, lo, hi, spread=None):
    """Noise scale ``Δ/ε`` of one statistic (``spread``: DP max - DP min)."""
    n = xs.size
    if statistic in ("count", "sum", "mean"):
        return global_scale(statistic, n, epsilon, lo, hi)
    if statistic == "min":
        return (xs[1] - xs[0]) / epsilon if n > 1 else (hi - lo) / epsilon
    if statistic == "max":
        return (xs[-1] - xs[-2]) / epsilon if n > 1 else (hi - lo) / epsilon
    if statistic == "median":
        if n < 3:
            return (hi - lo) / epsilon
        m = (n - 1) // 2
        return max(xs[m] - xs[m - 1], xs[m + 1] - xs[m]) / epsilon
    if statistic == "var":
        return spread**2 / (n * epsilon)
    if statistic == "std":
        return spread / (np.sqrt(n) * epsilon)
    raise ValueError(f"no Laplace scale for statistic {statistic!r}.")


def _dp_quantile(xs, q, epsilon, lo, hi, rng):
    """ε-DP ``q``-quantile of ``xs`` on ``[lo, hi]`` by the exponential mechanism.

    The clamped sorted values ``x(1) <= ... <= x(n)`` and the bounds cut
    ``[lo, hi]`` into ``n + 1`` intervals; the interval ``i`` (between
    ``x(i)`` and ``x(i+1)``, with ``x(0) = lo`` and ``x(n+1) = hi``) holds
    the outputs with ``i`` values below them and gets the utility
    ``-|i - q n|``.  Replacing one record moves every such count by at most
    one, so the utility has sensitivity 1; the interval is drawn with
    probability proportional to ``length * exp(epsilon * utility / 2)`` and
    the output uniformly within it: ε-DP, and never a data value except
    with probability zero.
    """
    n = xs.size
    edges = np.concatenate(([lo], np.clip(xs, lo, hi), [hi]))
    widths = np.diff(edges)
    utility = -np.abs(np.arange(n + 1) - q * n)
    with np.errstate(divide="ignore"):
        logw = np.log(widths) + 0.5 * epsilon * utility
    logw -= logw.max()
    weights = np.exp(logw)
    i = int(rng.choice(n + 1, p=weights / weights.sum()))
    return float(edges[i] + rng.random() * widths[i])


_QUANTILES = {"min": 0.0, "median": 0.5, "max": 1.0}


class _Moments(RowStatistic):
    """``(n, sum, mean, M2, hash)`` of the values clamped into ``[lo, hi]``.

    One block's moments are the sums :func:`laplace_statistic` takes of the
    sorted values in memory; blocks merge by Chan, Golub and LeVeque's
    pairwise update.  ``hash`` is the :func:`multiset_hash` of the values,
    what a seeded release reads of its batch.  ``clip=False`` (the count)
    leaves the values as they are.  A missing value is refused with its
    position.
    """

    def __init__(self, lo: float, hi: float, clip: bool) -> None:
        self.lo, self.hi, self.clip = lo, hi, clip

    def block(self, rows, first_row):
        with raw_values_withheld():  # raw records: no value behind an error
            x = check_float_array(
                rows, name="x", allow_inf=False, first_row=first_row
            ).ravel()
        if self.clip:
            x = np.clip(x, self.lo, self.hi)
        n = x.size
        if n == 0:
            return 0, 0.0, 0.0, 0.0, 0
        total = x.sum()
        mean = total / n
        m2 = float(np.sum((x - mean) ** 2))
        return n, float(total), float(mean), m2, multiset_hash(x)

    def merge(self, values):
        n, total, mean, m2, hashed = values[0]
        for nb, tb, mb, m2b, hb in values[1:]:
            hashed = (hashed + hb) % 2**64
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
        return n, total, mean, m2, hashed


def _column_seed(seed: int, column: Any) -> int:
    """The int seed of one column of a seeded table release.

    Every 64-bit word of ``seed`` enters (``seed`` and ``seed + 2**64``
    differ), as in :func:`~skprivate.integral._release_seed.release_generator`;
    a negative seed is refused.
    """
    _check_random_state_value(seed)
    entropy = [*_seed_words(seed), *words(data_fingerprint(str(column)))]
    return int(np.random.SeedSequence(entropy).generate_state(1, np.uint64)[0])


def _moments_fingerprint(moments) -> Any:
    """What a moment statistic's seed reads of its data.

    The count and the :func:`multiset_hash` of the clamped values: the same
    in memory and on dask (whatever the partitions and their merge order),
    different for another batch however small the change.  (Rounded sums
    would not do: two batches of 100,000 rows that differ by 0.2 in one
    value have the same single-precision sums, so the same noise, and the
    difference of their releases would be the exact difference of sums.)
    """
    n, _, _, _, hashed = moments
    return (int(n), int(hashed))


def _moment_value(moments, statistic):
    """The statistic (without noise) of merged moments."""
    n, total, _, m2, _ = moments
    if statistic == "count":
        return float(n)
    if statistic == "sum":
        return total
    if statistic == "mean":
        return total / n
    if statistic == "var":
        return m2 / (n - 1) if n > 1 else np.nan
    return float(np.sqrt(m2 / (n - 1))) if n > 1 else np.nan


def _check_collection_request(statistic, bounds, sensitivity):
    """What a dask collection supports: global moments, public bounds."""
    if statistic not in MOMENT_STATISTICS or sensitivity != "global":
        raise ValueError(
            "laplace_statistic of a dask collection supports statistic in "
            f"{list(MOMENT_STATISTICS)} with sensitivity='global' (their "
            f"moments merge across partitions); got statistic={statistic!r}, "
            f"sensitivity={sensitivity!r}. Min, max, median and IQR need the "
            "sorted values."
        )
    if bounds is None:
        raise ValueError(
            "bounds must be given for laplace_statistic of a dask collection: "
            "reading them from the data leaks them (and needs another pass)."
        )


def _true_value(xs, statistic, lo, hi):
    """The statistic (without noise) of the sorted, clamped values ``xs``.

    The moments come from :class:`_Moments`, the one implementation that
    dask blocks merge (it clamps sum and mean again, which changes nothing
    here).
    """
    if statistic == "min":
        return float(xs[0])
    if statistic == "max":
        return float(xs[-1])
    if statistic == "median":
        return float(np.median(xs))
    clip = statistic in ("sum", "mean")
    return _moment_value(reduce_rows(xs, _Moments(lo, hi, clip)), statistic)


def laplace_statistic(
    x: ArrayLike,
    statistic: str,
    epsilon: float,
    bounds: tuple[float, float] | None = None,
    delta: float = 1e-6,
    random_state: Any = None,
    sensitivity: str = "global",
) -> float:
    """One statistic released by a differentially private baseline.

    Parameters
    ----------
    x : array-like of shape (n_samples,) or dask collection
        Values (no NaN or infinity: either is refused with its position;
        :func:`laplace_describe` drops missing values per column first).  A
        dask array or Series is read block by block on the workers (count,
        sum, mean, var and std with global sensitivity and given
        ``bounds``: their moments merge).
    statistic : str
        One of ``"count", "mean", "std", "var", "min", "median", "iqr",
        "max", "sum"``.
    epsilon : float
        Privacy budget of this statistic (finite, > 0).  Releasing several
        statistics spends the sum of their budgets; with
        ``sensitivity="local"``, ``"var"`` and ``"std"`` also spend
        ``epsilon`` on each of the noisy min and max they use.
    bounds : (float, float) or None, default=None
        Public domain ``(L, U)``: every value is clamped to it before any
        statistic is computed (values outside count as ``L`` or ``U``), the
        sum's sensitivity is ``max(U - L, |L|, |U|)``.  ``None`` takes the data
        min and max (as the paper does for real data) with a
        :class:`~skprivate.exceptions.PrivacyLeakWarning`; data holding a
        single value (a constant column) then get ``(v - 0.5, v + 0.5)``, as
        privatizers reading their bounds from the data do.
    delta : float, default=1e-6
        δ of the propose-test-release IQR (the paper does not state it).
    random_state : int, Generator, RandomState or None, default=None
        Source of the noise: ``None`` draws fresh OS entropy.  A
        ``Generator`` or ``RandomState`` is a source of entropy, never the
        noise stream itself: each release draws fresh words from it (so it
        advances, and two releases with it never share noise) and mixes
        them with the settings and the data, so copies of one generator
        (``copy.deepcopy``, ``pickle``) releasing two batches draw
        independent noise.  An int is for simulation: every bit of it is
        mixed with the settings and the data, so the same seed reproduces
        the release of the same data and draws independent noise for
        another batch or another statistic (never the same noise twice); a
        negative int is refused.
    sensitivity : {"global", "local"}, default="global"
        ``"global"``: every statistic is ε-DP (IQR: (ε, δ)-DP) with a
        sensitivity from the bounds; min, max and median come from the
        exponential mechanism over ``[L, U]``.  ``"local"``: the paper's
        variants for min, max, median, var and std, which are **not**
        differentially private; a
        :class:`~skprivate.exceptions.PrivacyLeakWarning` says so.

    Returns
    -------
    value : float
        The noisy statistic; NaN when the IQR test refuses to answer.

    Notes
    -----
    Neighbouring data sets differ by one replaced record (``n`` public);
    values are clamped into ``[L, U]`` first, for every statistic and both
    sensitivities.  With ``sensitivity="global"``:
    count, sum and mean add Laplace noise of scale ``1/ε``,
    ``max(U - L, |L|, |U|)/ε`` and ``(U - L)/(n ε)``; the sample variance
    (``ddof=1``) ``(U - L)²/(n ε)`` and the sample SD ``(U - L)/(√n ε)``.
    With ``S = Σ(x_i - mean)²`` and ``S'``, ``m'`` the same quantities
    without record ``n``, ``S = S' + (n-1)/n (x_n - m')²``: replacing
    ``x_n`` changes ``S`` by at most ``(n-1)/n (U - L)²`` and, ``sqrt`` of
    ``S' + c t²`` being ``√c``-Lipschitz in ``t``, changes ``√S`` by at
    most ``√((n-1)/n) (U - L)``; dividing by ``n - 1`` (or its root) gives
    the two sensitivities.  Min, max and median are the ``q = 0, 1, 1/2``
    quantiles drawn by the exponential mechanism: the interval between
    consecutive clamped values holding ``i`` values below it has utility
    ``-|i - q n|`` (sensitivity 1) and is drawn with probability
    proportional to its length times ``exp(ε utility / 2)``, the output
    uniformly inside it.  The IQR is propose-test-release, (ε, δ)-DP.

    With ``sensitivity="local"`` (the paper's baselines), median, min and
    max use the local sensitivity (``max(x(m) - x(m-1), x(m+1) - x(m))``,
    ``x(2) - x(1)``, ``x(s) - x(s-1)``), and variance and SD a sensitivity
    from the noisy min and max (``(max - min)**2 / s`` and
    ``(max - min) / sqrt(s)``), spending ``epsilon`` on each of these too:
    the noise scale is a function of the data, so these are **not** ε-DP.

    References
    ----------
    .. [1] C. Dwork and J. Lei, "Differential privacy and robust
       statistics", STOC 2009 (propose-test-release, the Scale algorithm).

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.integral import laplace_statistic
    >>> x = np.random.default_rng(0).uniform(0, 100, 1000)
    >>> round(laplace_statistic(x, "count", 2.0, bounds=(0, 100), random_state=0), 2)
    1000.06
    """
    if statistic not in STATISTICS:
        raise ValueError(
            f"statistic must be one of {list(STATISTICS)}; got {statistic!r}."
        )
    if (
        isinstance(epsilon, bool)
        or not isinstance(epsilon, numbers.Real)
        or not 0 < epsilon < np.inf
    ):
        raise ValueError(f"epsilon must be a finite positive number; got {epsilon!r}.")
    if (
        isinstance(delta, bool)
        or not isinstance(delta, numbers.Real)
        or not (0 < delta < 1)
    ):
        raise ValueError(f"delta must be in (0, 1); got {delta!r}.")
    if sensitivity not in ("global", "local"):
        raise ValueError(
            f"sensitivity must be 'global' or 'local'; got {sensitivity!r}."
        )
    lazy = is_dask_collection(x)
    if lazy:
        _check_collection_request(statistic, bounds, sensitivity)
        xs = None
    else:
        with raw_values_withheld():  # raw records: no value behind an error
            xs = np.sort(check_float_array(x, name="x", allow_inf=False).ravel())
        if xs.size == 0:
            raise ValueError("x is empty; a statistic needs at least one value.")
    lo, hi = _check_bounds(xs, bounds)
    if not lazy:
        # every statistic reads the clamped values (dask blocks: _Moments)
        xs = np.clip(xs, lo, hi)
    settings = (statistic, epsilon, lo, hi, delta, sensitivity)
    if statistic == "iqr":
        rng = _release_generator(random_state, settings, xs)
        return _iqr_ptr(xs, lo, hi, epsilon, delta, rng)
    if sensitivity == "global":
        if statistic in _QUANTILES:
            rng = _release_generator(random_state, settings, xs)
            return _dp_quantile(xs, _QUANTILES[statistic], epsilon, lo, hi, rng)
        # the moments of the sorted values in memory, of the blocks on dask
        moments = reduce_rows(x if lazy else xs, _Moments(lo, hi, clip=True))
        if moments[0] == 0:
            raise ValueError("x is empty; a statistic needs at least one value.")
        scale = global_scale(statistic, moments[0], epsilon, lo, hi)
        rng = _release_generator(random_state, settings, _moments_fingerprint(moments))
        return float(_moment_value(moments, statistic) + rng.laplace(0.0, scale))
    rng = _release_generator(random_state, settings, xs)
    if statistic in ("min", "max", "median", "var", "std"):
        warnings.warn(
            f"sensitivity='local': the {statistic} is released with a noise "
            "scale computed from the data (the paper's baseline), which is not "
            "differentially private and can reveal values exactly; use "
            "sensitivity='global' for an epsilon-DP release.",
            PrivacyLeakWarning,
            stacklevel=external_stacklevel(),
        )
    spread = None
    if statistic in ("var", "std"):
        dp_min = xs[0] + rng.laplace(0.0, _laplace_scale(xs, "min", epsilon, lo, hi))
        dp_max = xs[-1] + rng.laplace(0.0, _laplace_scale(xs, "max", epsilon, lo, hi))
        spread = abs(dp_max - dp_min)
    scale = _laplace_scale(xs, statistic, epsilon, lo, hi, spread)
    return float(_true_value(xs, statistic, lo, hi) + rng.laplace(0.0, scale))


def laplace_describe(
    df: Any,
    epsilon: float,
    bounds: dict | tuple[float, float] | None = None,
    statistics: Sequence[str] = DEFAULT_STATISTICS,
    delta: float = 1e-6,
    random_state: Any = None,
    sensitivity: str = "global",
) -> pd.DataFrame:
    """Differentially private baseline of :meth:`pandas.DataFrame.describe`.

    Every statistic is ε-DP by default (IQR: (ε, δ)-DP) given public
    ``bounds``; see :func:`laplace_statistic` for the mechanisms.

    Parameters
    ----------
    df : pandas.DataFrame or array-like of shape (n_samples, n_features)
        The table; non-numeric columns are skipped with a warning and
        missing values dropped per column.
    epsilon : float
        Budget of each statistic (see :func:`laplace_statistic`).
    bounds : dict, (float, float) or None, default=None
        Domain bounds: one pair for all columns, or a dict column -> pair;
        each column is clamped to its bounds before any statistic.  ``None``
        (or a column missing from the dict) takes the data range with a
        :class:`~skprivate.exceptions.PrivacyLeakWarning`; a column holding a
        single value then gets ``(v - 0.5, v + 0.5)`` (see
        :func:`laplace_statistic`).
    statistics : sequence of str, default=all nine
        Statistics to release.
    delta : float, default=1e-6
        δ of the IQR test.
    random_state : int, Generator, RandomState or None, default=None
        Source of the noise, as in :func:`laplace_statistic`.  A
        ``Generator`` (or ``RandomState``) is a source of entropy: every
        statistic of every column draws fresh words from it, mixed with the
        statistic's settings and the column's values, so copies of one
        generator releasing two tables draw independent noise.  An int
        seed is for simulation: it gives each column a seed of its own
        (from every bit of the seed and the column's name), mixed with each
        statistic's settings and the column's values, so it reproduces the
        release of the same table and draws independent noise for another
        table, column or statistic.
    sensitivity : {"global", "local"}, default="global"
        ε-DP releases from the bounds, or the paper's local-sensitivity
        variants (not DP, warned); see :func:`laplace_statistic`.

    Returns
    -------
    table : pandas.DataFrame
        Indexed by statistic, one column per numeric input column.

    See Also
    --------
    integral_describe : the integrally private counterpart.

    Examples
    --------
    >>> import pandas as pd
    >>> from skprivate.integral import laplace_describe
    >>> df = pd.DataFrame({"a": range(100)})
    >>> laplace_describe(
    ...     df, epsilon=4.0, bounds=(0, 99), statistics=("count",), random_state=0
    ... ).round(1)
               a
    count  100.2
    """
    statistics = check_statistics(statistics)
    frame, _ = numeric_frame(df, "laplace_describe", arg="df")
    if frame is None:
        with raw_values_withheld():  # raw records: no value behind an error
            arr = check_float_array(df, name="df", allow_nan=True)
        if arr.ndim == 1:
            arr = arr[:, None]
        if arr.ndim != 2:
            raise ValueError(f"df must be a table (2-D); got shape {arr.shape}.")
        frame = pd.DataFrame(arr, columns=[f"x{j}" for j in range(arr.shape[1])])
    if len(frame) == 0:
        raise ValueError("df has no rows; descriptive statistics need data.")
    if isinstance(bounds, dict):
        unknown = [k for k in bounds if k not in frame.columns]
        if unknown:
            raise ValueError(
                f"bounds has entries for {unknown}, which are not numeric columns "
                f"of df {list(frame.columns)}."
            )
        for key, pair in bounds.items():
            check_pair(pair, f"bounds[{key!r}]")
    elif bounds is not None:
        check_pair(bounds, "bounds")
    # An int seed gives each column its own seed (from the seed and the
    # column's name), which laplace_statistic mixes with the statistic, its
    # settings and the column's clamped values; anything else is one source
    # of entropy for the whole table, which every statistic draws from.
    seeded = isinstance(random_state, numbers.Integral) and not isinstance(
        random_state, bool
    )
    rng = None if seeded else check_generator(random_state)
    table = {}
    for name in frame.columns:
        col_bounds = bounds.get(name) if isinstance(bounds, dict) else bounds
        values = frame[name].to_numpy(dtype=float, na_value=np.nan)
        infinite = np.flatnonzero(np.isinf(values))
        if infinite.size:  # named before missing values are dropped
            raise ValueError(
                f"Column {name!r} of df has an infinite value at row "
                f"{int(infinite[0])}; expected finite numbers."
            )
        table[name] = [
            laplace_statistic(
                _non_missing(values, name),
                s,
                epsilon,
                col_bounds,
                delta,
                _column_seed(random_state, name) if seeded else rng,
                sensitivity=sensitivity,
            )
            for s in statistics
        ]
    return pd.DataFrame(table, index=list(statistics))
