"""Helpers of the density estimators that pool every column as one variable.

:class:`~skprivate.ldp.PerturbedKDEEstimator` and
:class:`~skprivate.ldp.SquareWaveEMSEstimator` read the domain from the
privatizer (or their own ``bounds``), count the reports per fold of
respondents and fit EM with a smoothing step chosen by held-out likelihood.

Their estimates depend on the reports only through counts on a grid fixed
by the settings (per fold of respondents, folds by row number in the whole
data) and the first four power sums of the reports: :class:`_PooledReports`
computes them block by block, so ``fit``, ``partial_fit`` and a fit on a
dask collection share one statistic (:class:`_PooledStatisticMixin` holds
the hooks the two learners share).
"""

from __future__ import annotations

import re

import numpy as np
from numpy.typing import NDArray
from threadpoolctl import threadpool_limits

from .._grid_density._ems import (
    ML_FOLDS,
    ML_MAX_ITER,
    ML_TOL,
    ML_WIDTHS,
    ems_cell_probabilities,
    select_ems_width,
)
from .._grid_density._kde import _MAX_BINS, _bin_layout, _linear_bin, _smooth
from .._grid_density._width_choice import WidthChoice, width_choice
from ..base import SufficientStatisticMixin
from ..utils import check_bounds
from ..utils._dask import is_dask_collection
from ..utils._statistic import RowStatistic, reduce_rows, renumber_rows
from ..utils.validation import (
    check_finite,
    check_float_array,
    check_magnitude,
    check_numeric_input,
    check_unchanged_settings,
)

__all__ = [
    "_PooledReports",
    "_PooledStatisticMixin",
    "_bounds_of",
    "_fold_counts",
    "_smoothed_ml",
]


def _bounds_of(estimator, priv) -> tuple[float, float]:
    if priv is not None and hasattr(priv, "bounds_"):
        low, high = (np.ravel(v) for v in priv.bounds_)
        if np.ptp(low) > 0 or np.ptp(high) > 0:
            raise ValueError(
                f"{type(estimator).__name__} pools every column as values of one "
                "variable, so the privatizer's columns must share one domain; got "
                f"bounds {low.tolist()} to {high.tolist()}."
            )
        return float(low[0]), float(high[0])
    if estimator.bounds is None:
        raise ValueError(
            f"{type(estimator).__name__} needs bounds (the declared domain of the "
            "mechanism), or a privatizer to read them from."
        )
    low, high = check_bounds(estimator.bounds, 1)
    return float(low[0]), float(high[0])


def _fold_counts(
    bins: NDArray, n_bins: int, n_cols: int, first_row: int = 0
) -> NDArray[np.int64]:
    """Counts per bin for each of ``ML_FOLDS`` folds of respondents.

    ``bins`` is the raveled (row-major) bin index of every released value, so
    value ``i`` belongs to respondent ``first_row + i // n_cols``;
    respondents go to the folds round robin by their row in the whole data,
    keeping one respondent's values in one fold, so the counts of
    consecutive blocks add up to the counts of all their rows.
    """
    fold = (first_row + np.arange(bins.size) // n_cols) % ML_FOLDS
    flat = fold * n_bins + bins
    return np.bincount(flat, minlength=ML_FOLDS * n_bins).reshape(ML_FOLDS, n_bins)


def _smoothed_ml(
    M: NDArray, folds: NDArray
) -> tuple[NDArray[np.float64], int, float, NDArray[np.float64], WidthChoice | None]:
    """EMS with the smoothing width chosen by held-out likelihood of the reports.

    The last item judges the choice (:mod:`skprivate._grid_density._width_choice`).
    """
    diagnostics: dict = {}
    with threadpool_limits(limits=1, user_api="blas"):
        width, scores = select_ems_width(
            M,
            folds,
            np.array(ML_WIDTHS),
            max_iter=ML_MAX_ITER,
            tol=ML_TOL,
            diagnostics=diagnostics,
        )
        theta, n_iter = ems_cell_probabilities(
            M, folds.sum(axis=0), width, max_iter=ML_MAX_ITER, tol=ML_TOL
        )
    choice = width_choice(np.array(ML_WIDTHS), width, diagnostics)
    return theta, n_iter, width, scores, choice


class _KDEGrid:
    """The grid on which :func:`~skprivate.grid_kde` bins values for ``points``.

    It depends on the points and the bandwidth only, so the linearly binned
    counts of several blocks add up; :meth:`density` then gives what
    ``grid_kde`` gives on all the values at once.  When the points span more
    bandwidths than the grid resolves, the value of a block is instead its
    kernel sums at the points (values within five bandwidths), which add up
    too.
    """

    def __init__(self, points: NDArray, bandwidth: float) -> None:
        self.points, self.bandwidth = points, float(bandwidth)
        h = self.bandwidth
        self.lo = points.min() - 5 * h
        self.hi = points.max() + 5 * h
        self.direct = (self.hi - self.lo) / (h / 10) > _MAX_BINS
        if not self.direct:
            self.n_bins, self.step = _bin_layout(self.lo, self.hi, h)

    def bin(self, values: NDArray) -> NDArray[np.float64]:
        y = values[(values >= self.lo) & (values <= self.hi)]
        if not self.direct:
            return _linear_bin(y, self.lo, self.step, self.n_bins)
        y = np.sort(y)
        h, z = self.bandwidth, self.points
        start = np.searchsorted(y, z - 5 * h, side="left")
        stop = np.searchsorted(y, z + 5 * h, side="right")
        sums = np.empty(z.size)
        for i in range(z.size):
            u = (y[start[i] : stop[i]] - z[i]) / h
            sums[i] = np.exp(-0.5 * u * u).sum()
        return sums

    def density(self, counts: NDArray, n_values: int) -> NDArray[np.float64]:
        h = self.bandwidth
        if self.direct:
            return counts / (np.sqrt(2 * np.pi) * h * n_values)
        return _smooth(counts, self.lo, self.step, h, self.points, n_values)


class _PooledReports(RowStatistic):
    """Reports of every column counted on a grid fixed by the settings.

    The sufficient statistic of the pooled-report density estimators: a
    block's value is ``(counts, n_rows, n_values, sums)`` with

    * ``counts``: the reports counted in the bins ``edges`` per fold of
      respondents (``"folds"``, shape ``(ML_FOLDS, k)``, folds by row
      number in the whole data), counted in them after clipping to the
      output range (``"histogram"``, shape ``(k,)``), or binned on the grid
      of the KDE (``"kde"``);
    * ``n_rows`` and ``n_values``: its respondents and reports;
    * ``sums``: ``sum(v)``, ``dot(v, v)`` and ``sum(v**p)`` for ``p`` in
      2, 3, 4 (None unless ``moments``), for the moment correction.

    Values add up.  Reports are read as ``(y - a) / (b - a)`` when ``unit``
    is ``(a, b)``, and must then lie in ``[-reach, 1 + reach]`` (to
    ``1e-9``), else the block is refused naming the first row outside.
    ``system`` is the transition matrix of the learner, computed with the
    plan; blocks do not read it.
    """

    def __init__(
        self,
        kind: str,
        *,
        edges: NDArray | None = None,
        kde: _KDEGrid | None = None,
        unit: tuple[float, float] | None = None,
        reach: float | None = None,
        outside: str = "",
        moments: bool,
        streamable: bool,
        system: NDArray | None = None,
    ) -> None:
        self.kind, self.edges, self.kde = kind, edges, kde
        self.unit, self.reach, self.outside = unit, reach, outside
        self.moments, self.streamable, self.system = moments, streamable, system

    def block(self, rows, first_row):
        # a block of a dask collection is converted here: name, never quote
        Y = check_float_array(rows, name="X", allow_nan=True, first_row=first_row)
        if Y.ndim == 1:
            Y = Y[:, None]
        check_finite(Y, name="X", first_row=first_row)
        check_magnitude(Y, name="X", first_row=first_row)
        if self.unit is not None:
            a, b = self.unit
            Y = (Y - a) / (b - a)
            self._check_reach(Y, first_row)
        values = Y.ravel()
        if self.kind == "folds":
            k = self.edges.size - 1
            bins = np.clip(
                np.searchsorted(self.edges, values, side="right") - 1, 0, k - 1
            )
            counts = _fold_counts(bins, k, Y.shape[1], first_row)
        elif self.kind == "histogram":
            w = self.reach
            counts = np.histogram(np.clip(values, -w, 1 + w), self.edges)[0]
        else:
            counts = self.kde.bin(values)
        sums = None
        if self.moments:
            sums = (
                values.sum(),
                np.dot(values, values),
                (values**2).sum(),
                (values**3).sum(),
                (values**4).sum(),
            )
        return counts, Y.shape[0], values.size, sums

    def _check_reach(self, v: NDArray, first_row: int) -> None:
        if self.reach is None or v.size == 0:
            return
        w = self.reach
        if v.min() < -w - 1e-9 or v.max() > 1 + w + 1e-9:
            bad = (v < -w - 1e-9) | (v > 1 + w + 1e-9)
            row, col = (int(i) for i in np.argwhere(bad)[0])
            raise ValueError(
                f"{self.outside}; the first is at row {first_row + row}, column {col}."
            )

    def merge(self, values):
        counts = values[0][0].copy()
        for value in values[1:]:
            counts += value[0]
        sums = None
        if self.moments:
            sums = tuple(sum(parts) for parts in zip(*(v[3] for v in values)))
        return (
            counts,
            sum(v[1] for v in values),
            sum(v[2] for v in values),
            sums,
        )


def _moment_targets(n: int, sums: tuple) -> tuple[list, tuple]:
    """Mean and mean square of ``n`` reports, and the arguments of
    :func:`moment_covariance`, from their power sums (as ``values.mean()``,
    ``np.dot(values, values) / n`` and ``np.mean(values**p)`` give them)."""
    total, dot, square, cube, fourth = sums
    mean = total / n
    return [mean, dot / n], (n, mean, square / n, cube / n, fourth / n)


_ROW = re.compile(r"\brow \d+")


class _NumericRows(RowStatistic):
    """Refuses a block with a non-number, naming its row in the whole data."""

    def block(self, rows, first_row):
        try:
            check_numeric_input(rows)
        except TypeError as error:
            if _ROW.search(str(error)) is None:
                return None  # a non-numeric dtype, but every entry a number
            raise renumber_rows(error, first_row) from None

    def merge(self, values):
        return None


class _PooledStatisticMixin(SufficientStatisticMixin):
    """The hooks that the pooled-report density estimators share.

    Input validation and privatization, refusals of ``partial_fit`` before
    anything is read, and the settings checked between chunks.  A learner
    implements ``_statistic_plan`` and ``_statistic_fit``, and may add to
    ``_not_streamable_reason``.
    """

    def _statistic_input(self, X, reset):
        if reset:
            self.__dict__.pop("_stream", None)
        try:
            return self._privatize_numeric(X, reset)
        except TypeError:
            # A lazy frame's dtype names the column only; its rows say which
            # row holds the first non-number, as the in-memory message does.
            if is_dask_collection(X) and hasattr(X, "columns"):
                reduce_rows(X, _NumericRows())
            raise

    def _check_streaming(self, first: bool) -> None:
        if not first:
            check_unchanged_settings(self._stream, self._settings())
            return
        if hasattr(self, "density_"):
            raise ValueError(
                "partial_fit cannot add to an estimate that fit made with "
                "settings read from the data (a bandwidth, or a privatizer's "
                "bounds); call fit again, or stream from a fresh estimator."
            )
        reason = self._not_streamable_reason()
        if reason is not None:
            raise ValueError(reason)

    def _bounds_fixed(self) -> bool:
        """Whether the domain comes from the settings, not from the data."""
        if self.privatizer is None:
            return self.bounds is not None
        return getattr(self.privatizer, "bounds", None) is not None

    def _not_streamable_reason(self) -> str | None:
        if self._bounds_fixed():
            return None
        return (
            "partial_fit needs bounds (a, b) fixed in advance (or a privatizer "
            "with bounds): the grid of counts cannot follow the range of the "
            "first chunk."
        )

    def _settings(self) -> dict[str, str]:
        return {k: repr(v) for k, v in self.get_params(deep=False).items()}

    def _check_rows(self, n_rows: int, folds: bool = False) -> None:
        if n_rows == 0:
            raise ValueError(
                f"X has 0 rows; {type(self).__name__} needs at least one report."
            )
        if folds and n_rows < 2:
            # each fold is predicted by the fit on the other folds' reports:
            # with one respondent, no fold has any
            raise ValueError(
                f"X has {n_rows} sample(s); {type(self).__name__} chooses its "
                "smoothing by the held-out likelihood of folds of respondents "
                "and needs at least 2 rows."
            )

    def _keep_stream(self, statistic: _PooledReports, n_rows: int) -> None:
        if statistic.streamable:
            # The grid depends on no report, so partial_fit may add chunks;
            # the privatizer's stream continues into them.
            self._stream = self._settings()
        self.n_samples_seen_ = int(n_rows)
