"""Checks of the inputs of :class:`IterativeIntervalRegressor` beyond validation.

The features go to the base regressor unchanged, so a non-numeric column is
refused only when the base regressor cannot fit it (or predict from it),
the refusal naming the column and row, never the entry; and interval answers
whose cut points all lie in a narrow band identify the response's location
relative to its scale but not the scale itself; and a linear base regressor
with at least as many coefficients as rows interpolates any answers, so its
interval MLE does not exist.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone
from sklearn.linear_model import LinearRegression

from ..exceptions import NotIdentifiableWarning
from ..utils._redact import raw_values_withheld, redact_quoted_values
from ..utils._warnings import external_stacklevel
from ..utils.validation import check_float_array, check_numeric_input

__all__ = [
    "base_predict",
    "check_base_features",
    "check_rows_for_linear_base",
    "warn_if_scale_unidentified",
]


def non_numeric_features(X: Any) -> str | None:
    """Why ``X`` is not numeric, naming the column (or entry), or None.

    :func:`check_numeric_input`'s refusal of a non-numeric column (its
    name, the first row holding a non-number and its type), and for an
    array of more than two dimensions, which that check leaves alone, the
    position and type of its first non-number.  The message never holds an
    entry: it is a raw value.  Only the text of the refusal is kept, so no
    error (nor the conversion error behind it) outlives this call.
    """
    try:
        check_numeric_input(X)
    except TypeError as exc:
        return redact_quoted_values(str(exc))
    if not isinstance(X, np.ndarray | list | tuple):
        return None
    try:
        # (a nested list as objects: its numbers are not read as strings)
        arr = X if isinstance(X, np.ndarray) else np.asarray(X, dtype=object)
    except (TypeError, ValueError):  # a ragged nesting: left to the regressor
        return None
    if arr.ndim <= 2 or arr.dtype.kind not in "OUSV":
        return None
    try:
        check_float_array(arr, name="X", allow_nan=True)
    except TypeError as exc:
        return redact_quoted_values(str(exc))
    return None


def check_base_features(est: Any, X: Any) -> None:
    """Name a non-numeric column of ``X`` the base regressor cannot take.

    ``X`` goes to the base regressor unchanged (LightGBM takes
    categorical columns), so a non-numeric column is refused only when
    a fit of the regressor on a few rows fails; the error then names
    the column instead of quoting one of its entries.  It is raised
    outside the ``except`` clause that caught the regressor's error, which
    quotes the entry, so that error is not chained to it as its context.
    """
    refusal = non_numeric_features(X)
    if refusal is None:
        return
    head = X.iloc[:20] if hasattr(X, "iloc") else X[:20]
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            clone(est).fit(head, np.arange(len(head), dtype=float))
    except (TypeError, ValueError):
        failed = True
    else:
        failed = False
    if failed:
        raise TypeError(
            f"{refusal} The base regressor {type(est).__name__} cannot fit "
            "non-numeric features: encode them first (for example with a "
            "Pipeline and OneHotEncoder) or use a regressor that takes "
            "them."
        )


def base_predict(est: Any, X: Any) -> Any:
    """``est.predict(X)`` with no value of ``X`` in an error.

    The base regressor's own error (scikit-learn's quotes a 1-D ``X`` whole,
    numpy's the string it could not convert) has its values withheld, as
    has every error chained to it.  When ``X`` holds a non-numeric column,
    the refusal names it (and the first row holding a non-number) instead,
    with the regressor's redacted message; it is raised outside the
    ``except`` clause, so nothing is chained to it.
    """
    try:
        with raw_values_withheld():
            return est.predict(X)
    except (TypeError, ValueError) as exc:
        failure = exc
    try:
        refusal = non_numeric_features(X)
    except (TypeError, ValueError):  # (duplicate column names, say)
        refusal = None
    if refusal is None:
        raise failure
    raise TypeError(
        f"{refusal} The base regressor {type(est).__name__} cannot predict from "
        f"non-numeric features ({failure}): encode them as for fit."
    )


def linear_base_coefficients(est: Any, X: Any) -> tuple[int, int, int] | None:
    """``(rows, features, coefficients)`` of a ``LinearRegression`` base.

    None for any other base regressor (or an ``X`` that is not 2-D).
    """
    if type(est) is not LinearRegression:
        return None
    shape = getattr(X, "shape", None)
    if shape is None:
        shape = np.asarray(X).shape
    if len(shape) != 2:
        return None
    n, p = int(shape[0]), int(shape[1])
    return n, p, p + int(bool(est.fit_intercept))


def check_rows_for_linear_base(est: Any, X: Any, Z: NDArray) -> bool:
    """Refuse a linear base regressor with as many coefficients as rows.

    With ``p`` features and an intercept, ``LinearRegression`` has ``p + 1``
    coefficients; on ``n <= p + 1`` rows some coefficients put every fitted
    value inside its interval and the interval likelihood grows without
    bound as the noise scale shrinks to zero, so the interval MLE does not
    exist (with a known ``sigma`` the coefficients are still not
    identified).  It needs ``n > p + 1`` rows when some answer is an
    interval.  Exact answers alone are a least-squares fit, which the base
    regressor solves as it always does: then the return value says whether
    the fit is underdetermined (no Newton solve over the coefficients).
    """
    sizes = linear_base_coefficients(est, X)
    if sizes is None:
        return False
    n, p, coefs = sizes
    if n > coefs:
        return False
    if np.all(Z[:, 0] == Z[:, 1]):
        return True
    raise ValueError(
        f"X has {n} row{'s' * (n != 1)} and {p} features: the interval MLE "
        "with a "
        f"LinearRegression base has {coefs} coefficients, which can place "
        "every fitted value inside its interval, so the noise scale is not "
        "identified and the likelihood has no maximum. It needs more rows "
        f"than coefficients (at least {coefs + 1}); reduce the features or "
        "use a regularized base regressor (e.g. Ridge)."
    )


def warn_if_scale_unidentified(Z: NDArray, scale: float) -> None:
    """Warn when the answers' cut points cannot identify the noise scale.

    When every cut point lies in a narrow band (anchors drawn with a tiny
    scale), the answers say little more than on which side of the band y
    lies: only f/sigma is identified, the marginal scale fit is arbitrary,
    and re-estimating sigma drifts along a flat ridge.
    """
    # Every 64th row first: when those span enough, so do all (the common
    # case, without a pass over all of them).
    for rows in (Z[::64], Z):
        finite = rows[np.isfinite(rows)]
        spread = float(np.ptp(finite)) if finite.size else 0.0
        if spread >= 0.5 * scale:
            return
    if spread < 0.5 * scale:
        warnings.warn(
            f"The interval endpoints span only {spread:.3g}, much less than "
            f"the fitted scale of y ({scale:.3g}): the intervals barely "
            "identify the noise scale, so sigma='auto' can drift to huge "
            "values. Pass a known sigma, or anchors with a wider spread.",
            NotIdentifiableWarning,
            stacklevel=external_stacklevel(),
        )
