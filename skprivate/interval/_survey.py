"""The survey side of interval privacy: anchors to show, answers to intervals.

A survey shows each respondent anchors drawn by the mechanism
(:meth:`~skprivate.interval.IntervalMechanism.draw_anchors`), turns the
chosen cells into the interval format (:func:`intervals_from_answers`) and can
ask again inside the cells already reported
(:meth:`~skprivate.interval.IntervalMechanism.refine`).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from sklearn.utils.validation import check_is_fitted, validate_data

from ..utils.validation import (
    check_float_array,
    check_interval_array,
    check_numeric_input,
)

__all__ = ["SurveyMixin", "intervals_from_answers"]


class SurveyMixin:
    """``draw_anchors`` and ``refine`` of every interval mechanism.

    Relies on the mechanism's design: ``_components``,
    ``_anchor_distribution``, ``_n_anchors`` and ``_validate_design``.
    """

    # -- the question side -------------------------------------------------
    def draw_anchors(
        self, n_samples: int, *, feature: int = 0, within: ArrayLike | None = None
    ) -> NDArray[np.float64]:
        """Draw the anchors to show respondents before they answer.

        Parameters
        ----------
        n_samples : int
            Number of respondents.
        feature : int, default=0
            Column whose standardization (``anchor_loc``, ``anchor_scale``)
            applies.
        within : array-like of shape (n_samples, 2), optional
            Cells already reported (progressive refinement): the anchors are
            drawn i.i.d. from the anchor distribution truncated to each cell.
            Rows whose cell is exact, or carries no anchor probability, get
            NaN anchors (nothing more to ask).

        Returns
        -------
        anchors : ndarray of shape (n_samples, n_anchors)
            Sorted per row.
        """
        self._check_params()
        self._validate_design()
        rng = self._next_generator((n_samples, feature, within))
        if within is None:
            comps = self._components(rng, int(n_samples), feature)
            return np.sort(np.hstack([q for q, _ in comps]), axis=1)
        cells = check_interval_array(within, name="within", allow_1d=False)
        if cells.shape[0] != n_samples:
            raise ValueError(
                f"within must have n_samples={n_samples} rows; got {cells.shape[0]}."
            )
        dist = self._anchor_distribution(feature)
        k = self._n_anchors()
        lo = np.repeat(cells[:, :1], k, axis=1)
        hi = np.repeat(cells[:, 1:], k, axis=1)
        q = dist.draw(rng, (n_samples, k), lo, hi)
        q[cells[:, 0] == cells[:, 1]] = np.nan
        return np.sort(q, axis=1)

    def refine(self, intervals: ArrayLike, X: ArrayLike) -> NDArray[np.float64]:
        """Progressive refinement: ask again inside the cells already reported.

        New anchors are drawn inside each reported cell (see
        :meth:`draw_anchors` with ``within``) and each value is located among
        them, so the result is the finer cell.  Exact reports stay exact; the
        acceptable range is not applied again.

        Parameters
        ----------
        intervals : array-like of shape (n_samples, 2 * n_features)
            Output of an earlier :meth:`transform` on the same rows.
        X : array-like of shape (n_samples, n_features)
            The raw values (the respondents' side of the simulation).

        Returns
        -------
        ndarray of shape (n_samples, 2 * n_features)
        """
        check_is_fitted(self)
        X = validate_data(
            self,
            check_numeric_input(X, finite=True),
            reset=False,
            ensure_all_finite=True,
        )
        Z = np.asarray(intervals, dtype=float)
        if Z.shape != (X.shape[0], 2 * X.shape[1]):
            raise ValueError(
                f"intervals must have shape {(X.shape[0], 2 * X.shape[1])}; "
                f"got {Z.shape}."
            )
        out = []
        for j in range(X.shape[1]):
            cells = check_interval_array(Z[:, 2 * j : 2 * j + 2], name="intervals")
            y = X[:, j].astype(float)
            if np.any((y <= cells[:, 0]) & (cells[:, 0] < cells[:, 1])) or np.any(
                y > cells[:, 1]
            ):
                raise ValueError(
                    f"intervals of column {j} do not contain the values of X."
                )
            q = self.draw_anchors(X.shape[0], feature=j, within=cells)
            answers = np.sum(np.nan_to_num(q, nan=np.inf) < y[:, None], axis=1)
            out.append(intervals_from_answers(q, answers, within=cells))
        return np.hstack(out)


def intervals_from_answers(
    anchors: ArrayLike,
    answers: ArrayLike,
    values: ArrayLike | None = None,
    *,
    within: ArrayLike | None = None,
) -> NDArray[np.float64]:
    """Turn survey answers into the interval format.

    Parameters
    ----------
    anchors : array-like of shape (n_samples, n_anchors)
        The anchors shown to each respondent, sorted per row (NaN anchors are
        ignored, as returned by ``draw_anchors(within=...)`` for exact rows).
    answers : array-like of int, shape (n_samples,)
        The cell chosen by each respondent: ``i`` means the value lies in
        ``(q_i, q_{i+1}]`` with ``q_0 = -inf`` and ``q_{k+1} = inf``
        (``0`` = "at most the first anchor").
    values : array-like of shape (n_samples,), optional
        Exact values for respondents who disclosed them (inside the
        acceptable range); NaN elsewhere.
    within : array-like of shape (n_samples, 2), optional
        Cells reported earlier (progressive refinement); the result is
        intersected with them.

    Returns
    -------
    intervals : ndarray of shape (n_samples, 2)

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.interval import intervals_from_answers
    >>> intervals_from_answers([[1.0], [2.0]], [0, 1])
    array([[-inf,   1.],
           [  2.,  inf]])
    """
    q = check_float_array(anchors, name="anchors", allow_nan=True)
    if q.ndim != 2:
        raise ValueError(f"anchors must be 2-D (n_samples, n_anchors); got {q.shape}.")
    q = np.where(np.isnan(q), np.inf, q)
    q = np.sort(q, axis=1)
    a = np.asarray(answers)
    if a.ndim != 1 or not np.issubdtype(a.dtype, np.integer):
        raise ValueError(
            f"answers must be integer cell indices, one per row (1-D); got dtype "
            f"{a.dtype} and shape {a.shape}."
        )
    if a.shape[0] != q.shape[0]:
        raise ValueError(
            f"anchors and answers must have one row per respondent; anchors has "
            f"{q.shape[0]} rows and answers {a.shape[0]}."
        )
    if q.shape[0] == 0:
        raise ValueError("anchors has 0 rows; there are no answers to read.")
    if np.any((a < 0) | (a > q.shape[1])):
        raise ValueError(f"answers must lie in [0, {q.shape[1]}] (the cell indices).")
    padded = np.hstack(
        [np.full((q.shape[0], 1), -np.inf), q, np.full((q.shape[0], 1), np.inf)]
    )
    lo = padded[np.arange(q.shape[0]), a]
    hi = padded[np.arange(q.shape[0]), a + 1]
    if within is not None:
        cells = check_interval_array(within, name="within", allow_1d=False)
        if cells.shape[0] != lo.shape[0]:
            raise ValueError(
                f"within must have one row per respondent ({lo.shape[0]}); got "
                f"{cells.shape[0]} rows."
            )
        inter_lo, inter_hi = np.maximum(lo, cells[:, 0]), np.minimum(hi, cells[:, 1])
        exact = cells[:, 0] == cells[:, 1]
        disjoint = ~exact & (inter_lo >= inter_hi)
        if disjoint.any():
            row = int(np.flatnonzero(disjoint)[0])
            raise ValueError(
                f"within does not overlap the cell chosen with the anchors at row "
                f"{row} ({int(disjoint.sum())} such rows): a refinement must lie "
                "inside the cell reported before. Check that within and the "
                "anchors belong to the same respondents."
            )
        lo, hi = inter_lo, inter_hi
        exact_before = cells[:, 0] == cells[:, 1]
        lo = np.where(exact_before, cells[:, 0], lo)
        hi = np.where(exact_before, cells[:, 1], hi)
    if values is not None:
        v = check_float_array(values, name="values", allow_nan=True)
        if v.shape != lo.shape:
            raise ValueError(f"values must have shape {lo.shape}; got {v.shape}.")
        given = ~np.isnan(v)
        lo = np.where(given, v, lo)
        hi = np.where(given, v, hi)
    return check_interval_array(np.column_stack([lo, hi]), name="intervals")
