"""Checks of the inputs of :class:`IterativeIntervalRegressor` beyond validation.

The features go to the base regressor unchanged, so a non-numeric column is
refused only when the base regressor cannot fit it; and interval answers
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
from ..utils._warnings import external_stacklevel
from ..utils.validation import check_numeric_input

__all__ = [
    "check_base_features",
    "check_rows_for_linear_base",
    "warn_if_scale_unidentified",
]


def check_base_features(est: Any, X: Any) -> None:
    """Name a non-numeric column of ``X`` the base regressor cannot take.

    ``X`` goes to the base regressor unchanged (LightGBM takes
    categorical columns), so a non-numeric column is refused only when
    a fit of the regressor on a few rows fails; the error then names
    the column instead of quoting one of its entries.
    """
    try:
        check_numeric_input(X)
    except TypeError as exc:
        head = X.iloc[:20] if hasattr(X, "iloc") else X[:20]
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                clone(est).fit(head, np.arange(len(head), dtype=float))
        except (TypeError, ValueError):
            raise TypeError(
                f"{exc} The base regressor {type(est).__name__} cannot fit "
                "such a column: encode it first (for example with a "
                "Pipeline and OneHotEncoder) or use a regressor that takes "
                "it."
            ) from None


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
