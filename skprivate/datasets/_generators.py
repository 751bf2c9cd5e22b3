"""Synthetic data of the papers' experiments."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from ..utils._param_validation import HasMethods, Interval, Options, validate_params
from ..utils.validation import check_float_array, check_generator

_COUNT = [Interval(numbers.Integral, 0, None, closed="left")]
_BOUND = [Interval(numbers.Real, None, None, allow_inf=True)]

__all__ = [
    "make_gaussian_mixture",
    "make_interval_regression",
    "make_truncated_chi2",
    "sample_truncated",
]


def sample_truncated(
    draw: Callable[[np.random.Generator, int], NDArray],
    n_samples: int,
    low: float,
    high: float,
    random_state: Any = None,
    max_rounds: int = 1000,
) -> NDArray[np.float64]:
    """Draw from a distribution truncated to ``[low, high]`` by rejection.

    Parameters
    ----------
    draw : callable
        ``draw(rng, size)`` returns ``size`` i.i.d. draws of the untruncated
        distribution.
    n_samples : int
        Number of accepted draws.
    low, high : float
        Truncation bounds (inclusive).
    random_state : None, int, RandomState or Generator, default=None
        Source of randomness.
    max_rounds : int, default=1000
        Batches to try before concluding that ``[low, high]`` has
        (numerically) no mass.

    Returns
    -------
    ndarray of shape (n_samples,)

    Examples
    --------
    >>> from skprivate.datasets import sample_truncated
    >>> x = sample_truncated(lambda rng, m: rng.normal(size=m), 100, 0.0, 1.0, 0)
    >>> bool((x >= 0).all() and (x <= 1).all())
    True
    """
    validate_params(
        {
            "draw": ["callable"],
            "n_samples": _COUNT,
            "low": _BOUND,
            "high": _BOUND,
            "max_rounds": [Interval(numbers.Integral, 1, None, closed="left")],
        },
        {
            "draw": draw,
            "n_samples": n_samples,
            "low": low,
            "high": high,
            "max_rounds": max_rounds,
        },
        "sample_truncated",
    )
    if not low < high:
        raise ValueError(f"low must be smaller than high; got low={low}, high={high}.")
    rng = check_generator(random_state)
    out = np.empty(n_samples)
    filled = 0
    batch = max(64, n_samples)
    for _ in range(max_rounds):
        if filled >= n_samples:
            break
        x = check_float_array(draw(rng, batch), name="draw(rng, size)'s output")
        if x.shape != (batch,):
            raise ValueError(
                f"draw must return size values, an array of shape ({batch},); "
                f"draw(rng, {batch}) returned shape {x.shape}."
            )
        x = x[(x >= low) & (x <= high)]
        take = min(x.size, n_samples - filled)
        out[filled : filled + take] = x[:take]
        filled += take
        rate = max(x.size / batch, 1e-3)
        batch = int(min(max(64, 1.2 * (n_samples - filled) / rate), 10_000_000))
    if filled < n_samples:
        raise ValueError(
            f"Rejection sampling accepted only {filled} of {n_samples} draws in "
            f"[{low}, {high}]; the interval has almost no mass."
        )
    return out


def make_truncated_chi2(
    n_samples: int,
    df: float,
    *,
    low: float = 0.0,
    high: float = 10.0,
    random_state: Any = None,
) -> NDArray[np.float64]:
    """Chi-squared draws truncated to ``[low, high]`` (rejection sampling).

    The RVNS paper's synthetic data are chi-squared samples with 2, 3, 5, 8
    and 10 degrees of freedom on [0, 10]; the deconvolution paper uses
    chi-squared(3) on [0, 3].

    Parameters
    ----------
    n_samples : int
        Number of draws.
    df : float
        Degrees of freedom.
    low, high : float, default=(0, 10)
        Truncation bounds.
    random_state : None, int, RandomState or Generator, default=None
        Source of randomness.

    Returns
    -------
    ndarray of shape (n_samples,)

    Examples
    --------
    >>> from skprivate.datasets import make_truncated_chi2
    >>> x = make_truncated_chi2(1000, 3, high=3.0, random_state=0)
    >>> float(x.max()) <= 3.0
    True
    """
    validate_params(
        {
            "n_samples": _COUNT,
            "df": [Interval(numbers.Real, 0, None, closed="neither")],
            "low": _BOUND,
            "high": _BOUND,
        },
        {"n_samples": n_samples, "df": df, "low": low, "high": high},
        "make_truncated_chi2",
    )
    return sample_truncated(
        lambda rng, m: rng.chisquare(df, m), n_samples, low, high, random_state
    )


def make_gaussian_mixture(
    n_samples: int,
    *,
    weights: ArrayLike = (1 / 3, 2 / 3),
    means: ArrayLike = (-1.0, 1.5),
    scales: ArrayLike = (1.0, 0.5**0.5),
    low: float = -3.0,
    high: float = 3.0,
    random_state: Any = None,
) -> NDArray[np.float64]:
    """A univariate Gaussian mixture truncated to ``[low, high]``.

    The defaults are the deconvolution paper's synthetic input,
    (1/3) N(-1, 1) + (2/3) N(3/2, 1/2) on [-3, 3], reading 1/2 as the
    variance.

    Parameters
    ----------
    n_samples : int
        Number of draws.
    weights, means, scales : array-like of shape (k,)
        Mixture weights (normalized), component means and standard deviations.
    low, high : float, default=(-3, 3)
        Truncation bounds; use ``-np.inf``/``np.inf`` for none.
    random_state : None, int, RandomState or Generator, default=None
        Source of randomness.

    Returns
    -------
    ndarray of shape (n_samples,)

    Examples
    --------
    >>> from skprivate.datasets import make_gaussian_mixture
    >>> make_gaussian_mixture(5, random_state=0).shape
    (5,)
    """
    validate_params(
        {"n_samples": _COUNT, "low": _BOUND, "high": _BOUND},
        {"n_samples": n_samples, "low": low, "high": high},
        "make_gaussian_mixture",
    )
    weights = check_float_array(weights, name="weights", allow_inf=False)
    means = check_float_array(means, name="means", allow_inf=False)
    scales = check_float_array(scales, name="scales", allow_inf=False)
    if not (weights.shape == means.shape == scales.shape and weights.ndim == 1):
        raise ValueError("weights, means and scales must be 1-D of the same length.")
    if np.any(weights < 0) or weights.sum() <= 0 or np.any(scales <= 0):
        raise ValueError("weights must be non-negative and scales positive.")
    weights = weights / weights.sum()

    def draw(rng: np.random.Generator, m: int) -> NDArray:
        comp = rng.choice(weights.size, size=m, p=weights)
        return rng.normal(means[comp], scales[comp])

    return sample_truncated(draw, n_samples, low, high, random_state)


def make_interval_regression(
    n_samples: int = 200,
    *,
    function: str = "linear",
    noise: str = "gaussian",
    noise_scale: float = 1.0,
    noise_df: float | None = None,
    privatizer: Any = None,
    random_state: Any = None,
) -> tuple:
    """Data of the interval-privacy regression experiments (Sec. IV-B).

    ``X ~ N(0, 1)`` and ``y = f(X) + noise`` with ``f(x) = x`` (``"linear"``)
    or ``f(x) = x**2 - 2x + 3`` (``"quadratic"``, whose design matrix has the
    paper's features ``(x, x**2)``).

    Parameters
    ----------
    n_samples : int, default=200
        Number of rows.
    function : {"linear", "quadratic"}, default="linear"
        Regression function.
    noise : {"gaussian", "logistic", "t"}, default="gaussian"
        Noise family; ``"t"`` is Student's t with ``noise_df`` degrees of
        freedom (the misspecification study of Sec. IV-E).
    noise_scale : float, default=1.0
        Scale of the noise.
    noise_df : float, optional
        Degrees of freedom for ``noise="t"``.
    privatizer : transformer, optional
        An interval privatizer (for example ``IntervalCaseI``).  When given,
        ``y`` is privatized with ``privatizer.fit_transform(y[:, None])`` and
        the interval bounds are returned as well.
    random_state : None, int, RandomState or Generator, default=None
        Source of randomness (the privatizer keeps its own ``random_state``).

    Returns
    -------
    X : ndarray of shape (n_samples, 1) or (n_samples, 2)
    y : ndarray of shape (n_samples,)
        Clean responses.
    y_intervals : ndarray of shape (n_samples, 2)
        Only when ``privatizer`` is given: the privatized responses.

    Examples
    --------
    >>> from skprivate.datasets import make_interval_regression
    >>> X, y = make_interval_regression(50, random_state=0)
    >>> X.shape, y.shape
    ((50, 1), (50,))
    """
    validate_params(
        {
            "n_samples": [Interval(numbers.Integral, 1, None, closed="left")],
            "function": [Options(("linear", "quadratic"))],
            "noise": [Options(("gaussian", "logistic", "t"))],
            "noise_scale": [Interval(numbers.Real, 0, None, closed="neither")],
            "noise_df": [Interval(numbers.Real, 0, None, closed="neither"), None],
            "privatizer": [HasMethods("fit_transform"), None],
        },
        {
            "n_samples": n_samples,
            "function": function,
            "noise": noise,
            "noise_scale": noise_scale,
            "noise_df": noise_df,
            "privatizer": privatizer,
        },
        "make_interval_regression",
    )
    rng = check_generator(random_state)
    x = rng.normal(size=n_samples)
    if noise == "gaussian":
        eps = rng.normal(scale=noise_scale, size=n_samples)
    elif noise == "logistic":
        eps = rng.logistic(scale=noise_scale, size=n_samples)
    elif noise == "t":
        if noise_df is None or noise_df <= 0:
            raise ValueError("noise='t' needs a positive noise_df.")
        eps = noise_scale * rng.standard_t(noise_df, size=n_samples)
    else:
        raise ValueError(f"noise must be 'gaussian', 'logistic' or 't'; got {noise!r}.")
    if function == "linear":
        X, f = x[:, None], x
    else:
        X, f = np.column_stack([x, x**2]), x**2 - 2 * x + 3
    y = f + eps
    if privatizer is None:
        return X, y
    Z = np.asarray(privatizer.fit_transform(y[:, None]), dtype=float)
    if Z.shape != (n_samples, 2):
        raise ValueError(
            "privatizer must be an interval mechanism, whose transform returns "
            f"one interval [lower, upper] per row; {type(privatizer).__name__} "
            f"returned shape {Z.shape}."
        )
    return X, y, Z
