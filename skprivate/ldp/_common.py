"""Pieces shared by the deconvolution estimators: noise description, inputs."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import NDArray

from ..utils import HasMethods, Interval, Options

# The local linear fit is used where its design matrix, scaled to a unit
# diagonal, has smallest eigenvalue above this; elsewhere the local constant
# one.  With one feature the eigenvalue is 1 - |S_1| / sqrt(S_0 S_2), and
# 0.05 keeps the slope up to about one bandwidth beyond a sharp edge of the
# data (noise-free design).
LOCAL_LINEAR_TOLERANCE = 0.05

KERNEL_CONSTRAINT = [Options({"gaussian", "cauchy"})]
NOISE_CONSTRAINT = [Interval(numbers.Real, 0, None, closed="left"), "array-like", None]
PRIVATIZER_CONSTRAINT = [HasMethods(["fit_transform"]), None]
ALGORITHM_CONSTRAINT = [Options({"auto", "direct", "binned"})]
# Above this many training points a 1-D estimator uses binned sums.
BINNED_THRESHOLD = 2000
# Above this many points an estimator with 2 or 3 features uses binned sums
# on a d-D grid; beyond 3 features sums are always direct.
BINNED_THRESHOLD_ND = 5000
MAX_BINNED_FEATURES = 3


def resolve_noise_scale(estimator: Any, n_features: int) -> NDArray[np.float64]:
    """Laplace scale per feature, from ``noise_scale`` or the fitted privatizer."""
    privatizer = getattr(estimator, "privatizer_", None)
    if privatizer is not None:
        if estimator.noise_scale is not None:
            raise ValueError(
                "Give either noise_scale or privatizer, not both: with a "
                "privatizer the noise scale is read from its scale_."
            )
        scale = getattr(privatizer, "scale_", None)
        if scale is None:
            raise ValueError(
                "The privatizer must expose the Laplace scale of each feature "
                "as scale_ (as LaplaceLDP does)."
            )
    elif estimator.noise_scale is None:
        raise ValueError(
            "noise_scale is required when privatizer is None: pass the Laplace "
            "scale b of the noise in the data (0 for clean data), or a "
            "LaplaceLDP privatizer to privatize clean data in fit."
        )
    else:
        scale = estimator.noise_scale
    scale = np.asarray(scale, dtype=float)
    try:
        scale = np.broadcast_to(scale, (n_features,)).copy()
    except ValueError as exc:
        raise ValueError(
            f"noise_scale must be a scalar or have one entry per feature "
            f"({n_features}); got shape {scale.shape}."
        ) from exc
    if not np.all(np.isfinite(scale)) or np.any(scale < 0):
        raise ValueError(f"noise_scale must be finite and >= 0; got {scale!r}.")
    return scale


def check_candidates(values: Any, name: str) -> NDArray[np.float64]:
    """Validate an array of candidate bandwidths (all finite and > 0)."""
    arr = np.asarray(values, dtype=float).ravel()
    if arr.size == 0 or not np.all(np.isfinite(arr)) or np.any(arr <= 0):
        raise ValueError(
            f"{name} candidates must be a non-empty array of finite values > 0; "
            f"got {values!r}."
        )
    return np.unique(arr)


def default_candidates(Z: NDArray, noise: NDArray, n: int) -> NDArray[np.float64]:
    """Log grid of bandwidths scaled to the clean data's spread.

    The clean variance is estimated as ``var(z) - 2 b**2`` (Laplace noise has
    variance ``2 b**2``), floored at a hundredth of the noisy variance.
    """
    var = np.var(Z, axis=0) - 2.0 * noise**2
    var = np.maximum(var, 0.01 * np.var(Z, axis=0))
    spread = float(np.sqrt(np.mean(var)))
    if spread == 0:
        spread = 1.0
    return np.geomspace(0.02 * spread, 2.0 * spread, 30)


def use_binned(algorithm: str, n_samples: int, n_features: int) -> bool:
    """Whether kernel sums are binned on a grid or computed directly.

    One feature is binned above ``BINNED_THRESHOLD`` points, two or three
    above ``BINNED_THRESHOLD_ND`` (a d-D grid costs more than a 1-D one);
    more features are always summed directly.
    """
    if algorithm == "binned":
        if n_features > MAX_BINNED_FEATURES:
            raise ValueError(
                f"algorithm='binned' supports at most {MAX_BINNED_FEATURES} "
                f"features (a grid per feature); got {n_features}. Use "
                "'direct' or 'auto'."
            )
        return True
    if algorithm == "direct":
        return False
    if n_features == 1:
        return n_samples > BINNED_THRESHOLD
    return n_features <= MAX_BINNED_FEATURES and n_samples > BINNED_THRESHOLD_ND
