"""Checks of the inputs of :class:`IterativeIntervalRegressor` beyond validation.

The features go to the base regressor unchanged, so a non-numeric column is
refused only when the base regressor cannot fit it; and interval answers
whose cut points all lie in a narrow band identify the response's location
relative to its scale but not the scale itself.
"""

from __future__ import annotations

import warnings
from typing import Any

import numpy as np
from numpy.typing import NDArray
from sklearn.base import clone

from ..exceptions import NotIdentifiableWarning
from ..utils._warnings import external_stacklevel
from ..utils.validation import check_numeric_input

__all__ = ["check_base_features", "warn_if_scale_unidentified"]


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


def warn_if_scale_unidentified(Z: NDArray, scale: float) -> None:
    """Warn when the answers' cut points cannot identify the noise scale.

    When every cut point lies in a narrow band (anchors drawn with a tiny
    scale), the answers say little more than on which side of the band y
    lies: only f/sigma is identified, the marginal scale fit is arbitrary,
    and re-estimating sigma drifts along a flat ridge.
    """
    finite = Z[np.isfinite(Z)]
    spread = float(np.ptp(finite)) if finite.size else 0.0
    if spread < 0.5 * scale:
        warnings.warn(
            f"The interval endpoints span only {spread:.3g}, much less than "
            f"the fitted scale of y ({scale:.3g}): the intervals barely "
            "identify the noise scale, so sigma='auto' can drift to huge "
            "values. Pass a known sigma, or anchors with a wider spread.",
            NotIdentifiableWarning,
            stacklevel=external_stacklevel(),
        )
