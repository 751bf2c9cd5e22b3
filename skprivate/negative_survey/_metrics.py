"""Privacy and utility metrics of the RVNS paper (Eqs. 17-19, six indicators)."""

from __future__ import annotations

import numbers
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import stats

from .._grid_density._kde import (
    BINNING_ERROR,
    direct_kde,
    grid_kde,
    ksdensity_bandwidth,
)
from ..utils import Interval, check_generator, validate_params
from ..utils.validation import check_bool, check_float_array
from ._transition import (
    _check_kernel_args,
    check_placement,
    report_range,
    rvns_log_likelihood_grid,
    unpack_bounds,
)

__all__ = [
    "indicator_errors",
    "privacy_distance",
    "rvns_adversary_inference",
    "six_indicators",
    "wasserstein_on_grid",
]

_TIE_BREAKS = ("midpoint", "mean", "first", "random")


def rvns_adversary_inference(
    reports: ArrayLike,
    d: float,
    bounds: tuple[float, float],
    *,
    n_grid: int = 1001,
    tie_break: str = "midpoint",
    random_state: Any = None,
    chunk_size: int = 2048,
    placement: str = "boundary_safe",
) -> NDArray[np.float64]:
    """The adversary's maximum-likelihood guess of each value (Eqs. 17-18).

    For each respondent with reports ``y_1 .. y_k`` the adversary picks
    ``argmax_x prod_j p(x, y_j)`` over ``[a, b]``, with ``p`` the exact
    transition density.  As in the paper the likelihood is the product of
    the marginals, which ignores that the reports share one band.  The
    maximization is a grid search; the likelihood is flat (``c**k``) over
    whole intervals, so ties are common and resolved by ``tie_break``.

    Parameters
    ----------
    reports : array-like of shape (n_samples, k) or (n_samples,)
        RVNS reports of one variable.
    d : float
        Band width of the mechanism.
    bounds : tuple (a, b)
        Domain of the mechanism.
    n_grid : int, default=1001
        Number of equally spaced candidate values in ``[a, b]`` (ten times
        the paper's ``m = 100`` grid, plus the end point).
    tie_break : {"midpoint", "mean", "first", "random"}, default="midpoint"
        Which maximizer to return: the midpoint between the smallest and
        largest maximizer, their mean, the smallest, or one at random.
    random_state : int, RandomState, Generator or None, default=None
        Used by ``tie_break="random"`` only.
    chunk_size : int, default=2048
        Respondents processed at once (memory is ``chunk_size * n_grid``).
    placement : {"boundary_safe", "paper"}, default="boundary_safe"
        Band placement of the mechanism (see :class:`RVNSPerturber`), whose
        transition density the likelihood uses.

    Returns
    -------
    x_infer : ndarray of shape (n_samples,)

    See Also
    --------
    privacy_distance : the paper's privacy metric on these guesses.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.negative_survey import rvns_adversary_inference
    >>> rvns_adversary_inference(np.array([[0.5, 9.5]]), 2.0, (0, 10))
    array([5.])
    """
    a, b = unpack_bounds(bounds)
    validate_params(
        {
            "n_grid": [Interval(numbers.Integral, 2, None, closed="left")],
            "chunk_size": [Interval(numbers.Integral, 1, None, closed="left")],
        },
        {"n_grid": n_grid, "chunk_size": chunk_size},
        "rvns_adversary_inference",
    )
    d, a, b = _check_kernel_args(d, a, b)
    check_placement(placement)
    if not isinstance(tie_break, str) or tie_break not in _TIE_BREAKS:
        raise ValueError(f"tie_break must be one of {_TIE_BREAKS}; got {tie_break!r}.")
    rng = check_generator(random_state)
    Y = check_float_array(reports, name="reports", allow_nan=True)
    if Y.ndim == 1:
        Y = Y[:, None]
    if Y.ndim != 2 or not np.all(np.isfinite(Y)):
        raise ValueError("reports must be a finite array of shape (n_samples, k).")
    low, high = report_range(d, a, b, placement)
    outside = ((low > Y) | (high < Y)).any(axis=1)
    if outside.any():
        row = int(np.flatnonzero(outside)[0])
        raise ValueError(
            f"reports has a value outside the range of the mechanism's reports, "
            f"[{low:g}, {high:g}] for bounds ({a:g}, {b:g}), d={d:g} and "
            f"placement={placement!r}, at row {row} ({int(outside.sum())} such "
            "rows); check d, bounds and placement."
        )
    grid = np.linspace(a, b, int(n_grid))
    out = np.empty(Y.shape[0])
    for start in range(0, Y.shape[0], chunk_size):
        block = Y[start : start + chunk_size]
        ll = rvns_log_likelihood_grid(block, grid, d, a, b, placement)
        best = ll.max(axis=1, keepdims=True)
        finite = np.isfinite(best[:, 0])
        # Equal likelihoods are computed identically, so exact ties are exact.
        tied = (ll >= best - 1e-9 * np.abs(best)) & finite[:, None]
        tied[~finite] = True
        idx = np.arange(grid.size)
        first = np.where(tied, idx, grid.size).min(axis=1)
        last = np.where(tied, idx, -1).max(axis=1)
        if tie_break == "midpoint":
            guess = 0.5 * (grid[first] + grid[last])
        elif tie_break == "first":
            guess = grid[first]
        elif tie_break == "mean":
            guess = (tied * grid).sum(axis=1) / tied.sum(axis=1)
        else:
            counts = tied.sum(axis=1)
            pick = np.floor(rng.random(counts.size) * counts).astype(int)
            rank = np.cumsum(tied, axis=1) - 1
            guess = grid[np.argmax(tied & (rank == pick[:, None]), axis=1)]
        out[start : start + block.shape[0]] = guess
    return out


def privacy_distance(x: ArrayLike, x_prime: ArrayLike) -> float:
    """Euclidean distance between true and released or inferred data.

    ``dis(X, X') = sqrt(sum_i (x_i - x'_i)**2)``, unnormalized as in the
    paper, so it grows with ``sqrt(n)``: compare methods at equal ``n``.

    Parameters
    ----------
    x, x_prime : array-like of shape (n_samples,)
        True values and the adversary's version of them (the released
        value for noise-addition mechanisms, the MLE guess for RVNS).

    Returns
    -------
    distance : float

    Examples
    --------
    >>> from skprivate.negative_survey import privacy_distance
    >>> privacy_distance([0.0, 0.0], [3.0, 4.0])
    5.0
    """
    x = check_float_array(x, name="x").ravel()
    x_prime = check_float_array(x_prime, name="x_prime").ravel()
    if x.shape != x_prime.shape:
        raise ValueError(
            f"x and x_prime must have the same length; got {x.size} and {x_prime.size}."
        )
    return float(np.sqrt(np.sum((x - x_prime) ** 2)))


def wasserstein_on_grid(
    f: ArrayLike,
    g: ArrayLike,
    edges: ArrayLike | None = None,
    *,
    continuous: bool = False,
) -> float:
    """Wasserstein-1 distance between two densities on one grid (Eq. 19).

    With ``r_i = f(z_i) Delta_i`` and ``s_i = g(z_i) Delta_i`` normalized to
    probability vectors, Eq. (19) is ``sum_i |R_i - S_i|`` over the
    cumulative sums, a number of grid steps.  ``continuous=True`` multiplies
    each term by ``Delta_i``, giving the W1 distance in the units of the data
    between the two histogram densities.

    Parameters
    ----------
    f, g : array-like of shape (m,)
        Densities (or masses) at the grid points.
    edges : array-like of shape (m + 1,) or None, default=None
        Cell edges; ``None`` means equal cells of width 1.
    continuous : bool, default=False
        Return the distance in data units instead of the paper's grid units.

    Returns
    -------
    distance : float

    Examples
    --------
    >>> from skprivate.negative_survey import wasserstein_on_grid
    >>> wasserstein_on_grid([1, 0, 0], [0, 0, 1])
    2.0
    >>> wasserstein_on_grid([1, 0, 0], [0, 0, 1], [0, 0.5, 1.0, 1.5], continuous=True)
    1.0
    """
    check_bool(continuous, "continuous")
    f = check_float_array(f, name="f", allow_inf=False).ravel()
    g = check_float_array(g, name="g", allow_inf=False).ravel()
    if f.shape != g.shape:
        raise ValueError(f"f and g must have the same length; got {f.size}, {g.size}.")
    for name, arr in (("f", f), ("g", g)):
        if np.any(arr < 0):
            i = int(np.flatnonzero(arr < 0)[0])
            raise ValueError(
                f"{name} must be a density (or masses), non-negative; {name}[{i}] "
                "is negative."
            )
    if edges is None:
        widths = np.ones_like(f)
    else:
        edges = check_float_array(edges, name="edges", allow_inf=False)
        if edges.ndim != 1 or np.any(np.diff(edges) <= 0):
            raise ValueError("edges must be a strictly increasing 1-D array.")
        widths = np.diff(edges)
    if widths.shape != f.shape:
        raise ValueError("edges must have one more entry than f and g.")
    r, s = f * widths, g * widths
    if not (r.sum() > 0 and s.sum() > 0):
        raise ValueError("both densities must have positive mass.")
    diff = np.abs(np.cumsum(r / r.sum()) - np.cumsum(s / s.sum()))
    return float(np.sum(diff * widths) if continuous else np.sum(diff))


def six_indicators(x: ArrayLike, grid: ArrayLike | None = None) -> dict[str, float]:
    """The six statistics of the paper's utility study, MATLAB conventions.

    Mean, standard deviation (``ddof=1``), mode (argmax over ``grid`` of a
    Gaussian KDE of ``x`` with the ``ksdensity`` bandwidth), median, and the
    biased skewness and (non-excess) kurtosis.

    Parameters
    ----------
    x : array-like of shape (n,)
        Sample.
    grid : array-like or None, default=None
        Candidate modes; ``None`` uses 1001 points spanning the sample.

    Returns
    -------
    stats : dict
        Keys ``mean``, ``std``, ``mode``, ``median``, ``skewness``,
        ``kurtosis``.

    Examples
    --------
    >>> import numpy as np
    >>> from skprivate.negative_survey import six_indicators
    >>> s = six_indicators(np.array([1.0, 2.0, 2.0, 3.0]))
    >>> s["mean"], s["median"], round(s["std"], 4)
    (2.0, 2.0, 0.8165)
    """
    return _six_indicators(x, grid, "x")


def _six_indicators(x: ArrayLike, grid: ArrayLike | None, name: str) -> dict:
    x = check_float_array(x, name=name, allow_inf=False).ravel()
    if x.size < 2:
        raise ValueError(f"{name} must hold at least two values; got {x.size}.")
    if grid is None:
        z = np.linspace(x.min(), x.max(), 1001)
    else:
        z = check_float_array(grid, name="grid", allow_inf=False).ravel()
        if z.size == 0:
            raise ValueError("grid must hold at least one candidate mode.")
    h = ksdensity_bandwidth(x)
    return {
        "mean": float(np.mean(x)),
        "std": float(np.std(x, ddof=1)),
        "mode": _kde_mode(x, z, h),
        "median": float(np.median(x)),
        "skewness": float(stats.skew(x, bias=True)),
        "kurtosis": float(stats.kurtosis(x, fisher=False, bias=True)),
    }


def _kde_mode(x: NDArray, z: NDArray, h: float) -> float:
    """The point of ``z`` where the Gaussian KDE of ``x`` is largest.

    The binned KDE (:func:`grid_kde`) is within ``BINNING_ERROR`` of the
    peak of the exact one, which can move its argmax across a flat top (to
    1.972 for the sample 1, 2, 2, 3, symmetric about 2).  The points whose
    binned density is within twice that of its largest hold the exact
    argmax (with room for rounding: 2.5 times); there the kernel sums are
    computed directly, over the values within five bandwidths (ties: the
    first point).
    """
    dens = grid_kde(x, z, h)
    near = np.flatnonzero(dens >= dens.max() * (1.0 - 2.5 * BINNING_ERROR))
    exact = direct_kde(x, z[near], h, x.size)
    return float(z[near[np.argmax(exact)]])


def indicator_errors(
    x: ArrayLike, x_hat: ArrayLike, grid: ArrayLike | None = None
) -> dict[str, float]:
    """Absolute errors ``|stat(X) - stat(X_hat)|`` of the six indicators.

    Parameters
    ----------
    x : array-like of shape (n,)
        Original data.
    x_hat : array-like of shape (n_hat,)
        Data drawn from an estimated density.
    grid : array-like or None, default=None
        Candidate modes, shared by both samples; ``None`` uses 1001 points
        spanning both.

    Returns
    -------
    errors : dict
        Same keys as :func:`six_indicators`.

    Examples
    --------
    >>> from skprivate.negative_survey import indicator_errors
    >>> indicator_errors([1.0, 2.0, 3.0], [1.0, 2.0, 4.0])["mean"]
    0.3333333333333335
    """
    x = check_float_array(x, name="x", allow_inf=False).ravel()
    x_hat = check_float_array(x_hat, name="x_hat", allow_inf=False).ravel()
    for name, arr in (("x", x), ("x_hat", x_hat)):
        if arr.size < 2:
            raise ValueError(f"{name} must hold at least two values; got {arr.size}.")
    if grid is None:
        lo = min(x.min(), x_hat.min())
        hi = max(x.max(), x_hat.max())
        grid = np.linspace(lo, hi, 1001)
    s, t = _six_indicators(x, grid, "x"), _six_indicators(x_hat, grid, "x_hat")
    return {key: abs(s[key] - t[key]) for key in s}
