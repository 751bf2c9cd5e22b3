"""The RVNS perturbation kernel: band sampling and the exact transition density."""

from __future__ import annotations

import numbers

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy import sparse

from ..utils.validation import check_float_array

__all__ = ["rvns_transition_density"]

#: Band placements of :class:`RVNSPerturber`: ``"boundary_safe"`` (the
#: default: the band is never moved and the reports range over
#: ``[a - d, b + d]``) and ``"paper"`` (the band is shifted inside ``[a, b]``).
PLACEMENTS = ("boundary_safe", "paper")


def check_placement(placement: str) -> str:
    """Validate a band placement name."""
    if placement not in PLACEMENTS:
        raise ValueError(f"placement must be one of {PLACEMENTS}; got {placement!r}.")
    return placement


def report_range(d, a, b, placement: str):
    """Range of the reports: ``[a - d, b + d]`` (boundary-safe) or ``[a, b]``."""
    if check_placement(placement) == "paper":
        return a, b
    return a - d, b + d


def _band_limits(
    x: NDArray, d: float, a: float, b: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Range [L, R] of the left offset d1 of the band [x - d1, x - d1 + d].

    L = max(0, x + d - b) keeps the band below b, R = min(d, x - a) keeps it
    above a; with d < b - a this gives L <= R for every x in [a, b].
    """
    low = np.maximum(0.0, x + d - b)
    high = np.minimum(d, x - a)
    return low, high


def unpack_bounds(bounds) -> tuple[float, float]:
    """``bounds`` as two floats ``(a, b)``, or a ValueError naming it."""
    try:
        a, b = bounds
        a, b = float(a), float(b)
    except (TypeError, ValueError):
        raise ValueError(
            f"bounds must be a pair of numbers (a, b); got {bounds!r}."
        ) from None
    return a, b


def _check_kernel_args(d: float, a: float, b: float) -> tuple[float, float, float]:
    if isinstance(d, bool) or not isinstance(d, numbers.Real):
        raise ValueError(f"d must be a number, the band width; got {d!r}.")
    d, a, b = float(d), float(a), float(b)
    if not (np.isfinite(a) and np.isfinite(b) and a < b):
        raise ValueError(f"bounds must be finite with a < b; got ({a}, {b}).")
    if not (np.isfinite(d) and 0 < d < b - a):
        raise ValueError(
            f"d must satisfy 0 < d < b - a = {b - a:g} (the band must leave room "
            f"for the reports); got d={d:g}."
        )
    return d, a, b


def rvns_transition_density(
    x: ArrayLike,
    y: ArrayLike,
    d: float,
    bounds: tuple[float, float],
    placement: str = "boundary_safe",
) -> NDArray[np.float64]:
    """Exact marginal density p(x, y) of one RVNS report y given the value x.

    With ``placement="boundary_safe"`` (the default of
    :class:`RVNSPerturber`) the band ``[x - d1, x - d1 + d]`` has the offset
    ``d1 ~ U[0, d]`` for every ``x`` and the report is uniform on
    ``[a - d, b + d]`` minus the band, so
    ``p = c' * min(1, |y - x| / d)`` on ``[a - d, b + d]`` with
    ``c' = 1 / (b - a + d)``: the same law, shifted, for every value.

    With ``placement="paper"`` it is the unified form of Eqs. (2)-(4) of
    Jiang et al.: the offset is ``d1 ~ U[L, R]`` with
    ``L = max(0, x + d - b)`` and ``R = min(d, x - a)``, and given the band
    the report is uniform on ``[a, b]`` minus the band, so

    * for ``y < x``: ``p = c * clip((x - y - L) / (R - L), 0, 1)``,
    * for ``y > x``: ``p = c * clip((R - (x + d - y)) / (R - L), 0, 1)``,

    with ``c = 1 / (b - a - d)``; when ``R = L`` (``x = a`` or ``x = b``) the
    band is fixed and ``p = c`` outside it.

    In both cases ``p(x, x) = 0`` and ``p = 0`` outside the range of the
    reports and for ``x`` outside ``[a, b]``.

    Parameters
    ----------
    x, y : array-like
        True values (in ``[a, b]``) and reports; broadcast against each other.
    d : float
        Band width, ``0 < d < b - a``.
    bounds : tuple (a, b)
        Domain of the values.
    placement : {"boundary_safe", "paper"}, default="boundary_safe"
        Band placement of the mechanism (see :class:`RVNSPerturber`).

    Returns
    -------
    p : ndarray
        Density of ``y`` given ``x`` (broadcast shape of ``x`` and ``y``).

    See Also
    --------
    RVNSPerturber : the mechanism this density describes.

    References
    ----------
    H. Jiang et al., "A Privacy-Preserving Data Collection Method for
    Diversified Statistical Analysis", Eqs. (2)-(4), with the corrections of
    its Algorithm 1 listed in the skprivate user guide.

    Examples
    --------
    >>> from skprivate.negative_survey import rvns_transition_density
    >>> y = [-1.0, 1.0, 4.0, 5.0, 6.5, 9.0]
    >>> rvns_transition_density(5.0, y, 2.0, (0, 10)) * 12
    array([1.  , 1.  , 0.5 , 0.  , 0.75, 1.  ])
    >>> rvns_transition_density(0.0, y, 2.0, (0, 10)) * 12  # the same law, shifted
    array([0.5, 0.5, 1. , 1. , 1. , 1. ])
    >>> rvns_transition_density(5.0, y, 2.0, (0, 10), placement="paper")
    array([0.     , 0.125  , 0.0625 , 0.     , 0.09375, 0.125  ])
    """
    a, b = unpack_bounds(bounds)
    d, a, b = _check_kernel_args(d, a, b)
    x = check_float_array(x, name="x")
    y = check_float_array(y, name="y")
    try:
        x, y = np.broadcast_arrays(x, y)
    except ValueError:
        raise ValueError(
            f"x and y must broadcast against each other; got shapes {x.shape} "
            f"and {y.shape}."
        ) from None
    if check_placement(placement) == "boundary_safe":
        p = np.minimum(1.0, np.abs(y - x) / d) / (b - a + d)
        inside = (y >= a - d) & (y <= b + d) & (x >= a) & (x <= b)
        return np.where(inside, p, 0.0)
    c = 1.0 / (b - a - d)
    low, high = _band_limits(x, d, a, b)
    width = high - low
    fixed = width <= 0
    safe = np.where(fixed, 1.0, width)
    # P(y outside the band) for y left / right of x, over d1 ~ U[L, R].
    left = np.clip((x - y - low) / safe, 0.0, 1.0)
    right = np.clip((high - (x + d - y)) / safe, 0.0, 1.0)
    # Deterministic band [x - L, x - L + d] when R == L.
    left = np.where(fixed, (y < x - low).astype(float), left)
    right = np.where(fixed, (y > x - low + d).astype(float), right)
    p = np.where(y < x, left, np.where(y > x, right, 0.0))
    inside = (y >= a) & (y <= b) & (x >= a) & (x <= b)
    return np.where(inside, c * p, 0.0)


def sample_rvns(
    x: NDArray,
    d: NDArray | float,
    a: NDArray | float,
    b: NDArray | float,
    k: int,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Corrected Algorithm 1 on a 1-D or 2-D array of values.

    Returns the reports, of shape ``(*x.shape, k)``, and the left edge of
    each value's band (``x - d1``), drawn once per value.
    """
    x = np.asarray(x, dtype=float)
    low, high = _band_limits(x, d, a, b)
    d1 = low + (high - low) * rng.random(x.shape)
    start = x - d1
    u = rng.random((*x.shape, k)) * np.expand_dims(b - a - d, -1)
    gap = np.expand_dims(start - a, -1)
    shift = np.where(u < gap, 0.0, np.expand_dims(np.broadcast_to(d, x.shape), -1))
    y = np.expand_dims(np.broadcast_to(a, x.shape), -1) + u + shift
    return y, start


def rvns_log_likelihood_grid(
    reports: NDArray,
    grid: NDArray,
    d: float,
    a: float,
    b: float,
    placement: str = "paper",
) -> NDArray[np.float64]:
    """Sum over the k reports of log p(x, y_j), for x on ``grid``.

    ``reports`` has shape (n, k); the result has shape (n, len(grid)).  Uses
    that only one of the two ramps of the unified form is non-zero for any
    pair: ``p / c = clip((x - L - y) / w) + clip((y - x - d + R) / w)`` with
    ``w = R - L``; at the two end points (``w = 0``, fixed band) a width of
    1e-12 (b - a) stands in, which is exact to that resolution.  With
    ``placement="boundary_safe"``, ``p = min(1, |y - x| / d) / (b - a + d)``.
    """
    if check_placement(placement) == "boundary_safe":
        out = np.zeros((reports.shape[0], grid.size))
        with np.errstate(divide="ignore"):
            for j in range(reports.shape[1]):
                dist = np.abs(reports[:, j, None] - grid[None, :])
                out += np.log(np.minimum(1.0, dist / d))
        return out - reports.shape[1] * np.log(b - a + d)
    c = 1.0 / (b - a - d)
    low, high = _band_limits(grid, d, a, b)
    inv = 1.0 / np.maximum(high - low, 1e-12 * (b - a))
    left_edge = grid - low
    right_edge = grid + d - high
    out = np.zeros((reports.shape[0], grid.size))
    with np.errstate(divide="ignore"):
        for j in range(reports.shape[1]):
            y = reports[:, j, None]
            ratio = np.clip((left_edge - y) * inv, 0.0, 1.0)
            ratio += np.clip((y - right_edge) * inv, 0.0, 1.0)
            out += np.log(ratio)
    return out + reports.shape[1] * np.log(c)


#: Grid of the float-safe sampler: ``2**-GRID_BITS`` of the smaller of the
#: band width and the room left beside it.
GRID_BITS = 24
#: Largest grid index allowed (integers up to ``2**52`` are exact doubles).
MAX_GRID_INDEX = 2.0**52


def sampler_grid(
    d: NDArray, a: NDArray, b: NDArray
) -> tuple[
    NDArray[np.float64], NDArray[np.int64], NDArray[np.int64], NDArray[np.int64]
]:
    """Public grid of the float-safe RVNS sampler, one per column.

    Returns the grid step ``h`` (a power of two), the first and last grid
    indices ``ja = ceil(a / h)`` and ``jb = floor(b / h)`` inside ``[a, b]``
    and the band width in steps ``D = rint(d / h)``.  The step is
    ``2**-GRID_BITS`` of ``min(d, b - a - d)`` rounded down to a power of two,
    raised if needed so that every index stays below ``2**52``.
    """
    d, a, b = (np.asarray(v, dtype=float) for v in (d, a, b))
    room = np.minimum(d, b - a - d)
    h = np.exp2(np.floor(np.log2(room)) - GRID_BITS)
    magnitude = np.maximum(np.abs(a), np.abs(b))
    h = np.maximum(h, np.exp2(np.ceil(np.log2(magnitude + 1e-300)) - 52.0))
    ja = np.ceil(a / h)
    jb = np.floor(b / h)
    D = np.rint(d / h)
    if np.any(D < 1) or np.any(jb - ja + 1 - (D + 1) < 1):
        j = int(np.flatnonzero((D < 1) | (jb - ja - D < 1))[0])
        raise ValueError(
            f"secure=True cannot place a grid for column {j}: bounds "
            f"[{a.flat[j]:g}, {b.flat[j]:g}] lie too far from 0 for d="
            f"{d.flat[j]:g} and the room b - a - d (grid step {h.flat[j]:g}); "
            "shift the data towards 0 or pass secure=False (not safe against "
            "floating-point attacks)."
        )
    return h, ja.astype(np.int64), jb.astype(np.int64), D.astype(np.int64)


def sample_rvns_grid(
    x: NDArray,
    grid: tuple[NDArray, NDArray, NDArray, NDArray],
    k: int,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """Float-safe Algorithm 1: exact discrete draws on the public grid.

    ``x`` has shape ``(n, p)`` and ``grid`` is :func:`sampler_grid` of the ``p``
    columns.  Each value is rounded to the grid index ``jx``; the band is the
    ``D + 1`` grid points ``s .. s + D`` with ``s`` uniform on the integers
    of ``[max(ja, jx - D), min(jx, jb - D)]``, drawn once per value, and each
    of the ``k`` reports is uniform on the ``A = jb - ja - D`` grid points of
    ``[ja, jb]`` outside the band.  All of it is integer arithmetic; the
    report ``j * h`` is exact.  Returns reports of shape ``(n, p, k)``.

    The reports of ``jx`` can be every grid index of ``[ja, jb]`` except
    the points all its bands cover, ``min(jx, jb - D)`` to
    ``max(ja, jx - D) + D`` (``jx`` alone for an interior value, the first
    ``D + 1`` points for ``jx = ja``), each with the exact probability of
    the discrete law: no floating-point operation decides which grid
    points occur, so there is no budget or range beyond which some become
    unreachable.
    """
    h, ja, jb, D = grid
    j = np.rint(x / h)
    np.clip(j, ja, jb, out=j)
    jx = j.astype(np.int64)
    start = rng.integers(np.maximum(ja, jx - D), np.minimum(jx, jb - D), endpoint=True)
    allowed = jb - ja - D
    r = rng.integers(0, allowed[:, None], size=(*jx.shape, k))
    below = (start - ja)[..., None]  # allowed points below the band
    r += np.where(r < below, ja[:, None], (ja + D + 1)[:, None])
    return r * h[:, None]


# -- the boundary-safe placement ---------------------------------------------------
def sample_rvns_safe(
    x: NDArray,
    d: NDArray | float,
    a: NDArray | float,
    b: NDArray | float,
    k: int,
    rng: np.random.Generator,
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Boundary-safe Algorithm 1 (continuous sampler) on an array of values.

    The offset ``d1 ~ U[0, d]`` is drawn once per value, whatever its
    distance to the bounds, and each report is uniform on ``[a - d, b + d]``
    minus the band ``[x - d1, x - d1 + d]``.  Returns the reports, of shape
    ``(*x.shape, k)``, and the left edge of each value's band.
    """
    x = np.asarray(x, dtype=float)
    d = np.broadcast_to(np.asarray(d, dtype=float), x.shape)
    lo = np.broadcast_to(np.asarray(a, dtype=float) - d, x.shape)
    room = np.broadcast_to(
        np.asarray(b, dtype=float) - np.asarray(a, dtype=float), x.shape
    )
    start = x - d * rng.random(x.shape)
    u = rng.random((*x.shape, k)) * np.expand_dims(room + d, -1)
    gap = np.expand_dims(start - lo, -1)
    shift = np.where(u < gap, 0.0, np.expand_dims(d, -1))
    return np.expand_dims(lo, -1) + u + shift, start


def sample_rvns_grid_safe(
    x: NDArray,
    grid: tuple[NDArray, NDArray, NDArray, NDArray],
    k: int,
    rng: np.random.Generator,
) -> NDArray[np.float64]:
    """Float-safe boundary-safe Algorithm 1: exact draws on the public grid.

    ``x`` has shape ``(n, p)`` and ``grid`` is :func:`sampler_grid` of the
    ``p`` columns (step ``h``, indices ``ja .. jb`` of ``[a, b]``, band of
    ``D`` steps).  Each value is rounded to the grid index
    ``jx = clip(rint(x / h), ja, jb)``; the band is the ``D + 1`` points
    ``s .. s + D`` with ``s`` uniform on ``jx - D .. jx`` (never clipped),
    drawn once per value, and each of the ``k`` reports is uniform on the
    ``jb - ja + D`` points of ``ja - D .. jb + D`` outside the band.  Integer
    arithmetic throughout; the report ``i * h`` is exact.  Returns reports of
    shape ``(n, p, k)``.
    """
    h, ja, jb, D = grid
    j = np.rint(x / h)
    np.clip(j, ja, jb, out=j)
    jx = j.astype(np.int64)
    start = jx - rng.integers(0, D + 1, size=jx.shape)
    first = ja - D
    r = rng.integers(0, (jb - ja + D)[:, None], size=(*jx.shape, k))
    below = (start - first)[..., None]  # allowed points below the band
    r += np.where(r < below, first[:, None], (first + D + 1)[:, None])
    return r * h[:, None]


def check_safe_grid(grid: tuple[NDArray, NDArray, NDArray, NDArray]) -> None:
    """Refuse a grid whose padded indices ``ja - D .. jb + D`` are not exact."""
    _, ja, jb, D = grid
    top = np.maximum(np.abs(ja - D), np.abs(jb + D))
    if np.any(top > 2**53):
        j = int(np.flatnonzero(top > 2**53)[0])
        raise ValueError(
            f"secure=True cannot place the padded report grid of column {j}: "
            "its bounds lie too far from 0 for its band width; shift the data "
            "towards 0, or pass secure=False (not safe against floating-point "
            "attacks)."
        )


def _second_antiderivative(t: NDArray, d: float) -> NDArray[np.float64]:
    """``H`` with ``H'' = min(1, |t| / d)`` and ``H(0) = H'(0) = 0`` (even)."""
    t = np.abs(t)
    return np.where(t <= d, t**3 / (6.0 * d), t * t / 2.0 - d * t / 2.0 + d * d / 6.0)


def safe_cell_probabilities(
    value_edges: ArrayLike, report_edges: ArrayLike, d: float, a: float, b: float
) -> NDArray[np.float64]:
    """``A[j, i]``: P(report in cell ``j`` | value uniform in cell ``i``), exactly.

    For the boundary-safe law ``p = min(1, |y - x| / d) / (b - a + d)`` the
    double integral over a value cell ``[x0, x1]`` and a report cell
    ``[y0, y1]`` is ``H(y1 - x0) - H(y1 - x1) - H(y0 - x0) + H(y0 - x1)``
    with ``H`` the second antiderivative of ``min(1, |t| / d)``; dividing by
    ``(b - a + d)(x1 - x0)`` gives the probability.  Columns sum to one when
    the report cells cover ``[a - d, b + d]``.
    """
    xe = np.asarray(value_edges, dtype=float)
    ye = np.asarray(report_edges, dtype=float)
    x0, x1 = xe[None, :-1], xe[None, 1:]
    y0, y1 = ye[:-1, None], ye[1:, None]
    H = _second_antiderivative
    mass = H(y1 - x0, d) - H(y1 - x1, d) - H(y0 - x0, d) + H(y0 - x1, d)
    return np.maximum(mass, 0.0) / ((b - a + d) * (x1 - x0))


# -- fast products with the boundary-safe cell matrix ---------------------------
class _CubicWindows:
    """``C(q) = sum_e jump_e (h - |q - s_e|)_+^3`` on a uniform grid ``s_e``.

    Index units: ``s_e = s0 + e * step``, ``e = 0..n``; the queries are fixed
    at construction.  The window sums are read from prefix sums that restart
    every ``B > h / step + 1`` edges, so each half-window spans at most two
    blocks and the polynomial is re-centred within a block's length
    (no cancellation across the whole grid).  The reads, with their
    weights, form a sparse matrix applied to the prefix sums of all the
    columns of a batch at once.
    """

    def __init__(
        self, s0: float, step: float, n_edges: int, queries: NDArray, h: float
    ) -> None:
        sigma = (np.asarray(queries, dtype=float) - s0) / step
        D = h / step
        B = int(np.floor(D)) + 2
        n = n_edges - 1  # last edge index
        floor = np.floor(sigma)
        # left half: e in [ceil(sigma - D), floor(sigma)], term (e - c)^3 with
        # c = sigma - D; right half: e in [floor(sigma) + 1, floor(sigma + D)],
        # term -(e - c)^3 with c = sigma + D
        lo = np.r_[np.ceil(sigma - D), floor + 1]
        hi = np.r_[floor, np.floor(sigma + D)] + 1  # exclusive
        centre = np.r_[sigma - D, sigma + D]
        sign = np.r_[np.ones(sigma.size), -np.ones(sigma.size)]
        lo = np.clip(lo, 0, n + 1).astype(np.intp)
        hi = np.clip(hi, 0, n + 1).astype(np.intp)
        hi = np.maximum(hi, lo)
        block = lo // B
        t0 = lo - block * B
        t1 = np.minimum(hi - block * B, B)
        t2 = np.maximum(hi - (block + 1) * B, 0)
        binom = np.array([1.0, 3.0, 3.0, 1.0])[:, None]
        expo = np.array([3, 2, 1, 0])[:, None]
        s1 = (block * B - centre)[None, :]
        k1 = sign * binom * s1**expo
        k2 = sign * binom * (s1 + B) ** expo
        # prefix sum t of a block (t = 1..B terms) is stored at t - 1; the
        # empty sum (t = 0) reads nothing
        block_of = np.concatenate([block, block, block + 1])
        t_of = np.concatenate([t1, t0, t2])
        coef = np.concatenate([k1, -k1, k2], axis=1) * step**3
        query = np.tile(np.arange(sigma.size), 6)
        keep = t_of > 0
        # the blocks holding the edges' jumps, and any block a window reads
        # (the cumulative sums restart per block, so a block neither holds
        # nor is read is dead work in every product)
        nb = max(-(-n_edges // B), int(block_of[keep].max(initial=-1)) + 1)
        self.B, self.nb = B, nb
        size = nb * B
        rows = np.tile(query[keep], 4)
        cols = (
            np.arange(4)[:, None] * size + (block_of * B + t_of - 1)[keep][None, :]
        ).ravel()
        self.matrix = sparse.csr_matrix(
            (coef[:, keep].ravel(), (rows, cols)), shape=(sigma.size, 4 * size)
        )
        self.tpow = (
            np.arange(B, dtype=float)[None, None, :, None]
            ** np.arange(4)[:, None, None, None]
        )

    def prefix(self, f: NDArray, out: NDArray | None = None) -> NDArray[np.float64]:
        """The block prefix sums of ``jump * t**p`` of the step functions ``f``.

        ``f`` has one column per step function (values per cell); the
        result, one column each, is what :attr:`matrix` reads (written to
        ``out``, of shape ``(4 * nb * B, k)``, when given).
        """
        B, nb, (n, k) = self.B, self.nb, f.shape
        jumps = np.zeros((nb * B, k))  # the jumps of f at its edges, zero beyond
        jumps[0] = f[0]
        np.subtract(f[1:], f[:-1], out=jumps[1:n])
        jumps[n] = -f[-1]
        if out is None:
            out = np.empty((4 * nb * B, k))
        terms = out.reshape(4, nb, B, k)
        np.multiply(jumps.reshape(1, nb, B, k), self.tpow, out=terms)
        np.cumsum(terms, axis=2, out=terms)
        return out

    def __call__(self, f: NDArray) -> NDArray[np.float64]:
        """``C`` at the queries for the step function ``f`` (values per cell)."""
        f = np.asarray(f, dtype=float)
        out = self.matrix @ self.prefix(f.reshape(f.shape[0], -1))
        return out.reshape((-1, *f.shape[1:]))


class _Cumulative:
    """``W(q) = integral of a piecewise-constant function up to q``.

    A sparse matrix applied to ``[cumsum(mass); mass]`` (per column).
    """

    def __init__(self, s0: float, step: float, n_cells: int, queries: NDArray) -> None:
        sigma = (np.asarray(queries, dtype=float) - s0) / step
        k = np.clip(np.floor(sigma), 0, n_cells - 1)
        self.k = k.astype(np.intp)
        self.frac = np.clip(sigma - k, 0.0, 1.0)
        q = np.arange(sigma.size)
        full = self.k > 0  # cells wholly below the query: cumsum up to k - 1
        self.matrix = sparse.csr_matrix(
            (
                np.r_[np.ones(full.sum()), self.frac],
                (np.r_[q[full], q], np.r_[self.k[full] - 1, n_cells + self.k]),
            ),
            shape=(sigma.size, 2 * n_cells),
        )

    def __call__(self, mass: NDArray) -> NDArray[np.float64]:
        mass = np.asarray(mass, dtype=float)
        cum = np.concatenate(([0.0], np.cumsum(mass)))
        return cum[self.k] + mass[self.k] * self.frac


class SafeCellOperator:
    """:func:`safe_cell_probabilities` as an operator with O(m) products.

    The boundary-safe law is ``p = (1 - tri(y - x)) / (b - a + d)`` with
    ``tri(t) = max(0, 1 - |t| / d)``, so ``A = (Delta_y 1^T - T) / (b - a + d)``
    where ``T[j, i]`` is the mean over value cell ``i`` of the mass of the
    triangle in report cell ``j``.  For a piecewise-constant density ``f``
    with jumps ``delta_e`` at its edges ``x_e``, ``T f`` over a report cell
    is the increment of ``G(y) = d W(y) + sum_e delta_e (d - |y - x_e|)_+^3
    / (6 d)``, with ``W`` the integral of ``f`` up to ``y``; ``T.T`` is the
    same with the roles of the grids exchanged.  Both sums are read from
    prefix sums, so the products cost O(m) instead of O(m * d / step).
    Agrees with the dense matrix to rounding (more closely than the dense
    matrix, whose entries are differences of terms of size ``(b - a)**2``).
    ``matvec`` and ``rmatvec`` take a vector or a matrix (one product per
    column, at about the cost of one call).
    """

    batched = True

    def __init__(
        self,
        value_edges: ArrayLike,
        report_edges: ArrayLike,
        d: float,
        a: float,
        b: float,
    ) -> None:
        xe = np.asarray(value_edges, dtype=float)
        ye = np.asarray(report_edges, dtype=float)
        m, mr = xe.size - 1, ye.size - 1
        self.shape = (mr, m)
        self.d, self.norm = float(d), 1.0 / (b - a + d)
        # both grids are uniform (rvns_grid); positions are read in cell units
        dx = (xe[-1] - xe[0]) / m
        dy = (ye[-1] - ye[0]) / mr
        self.widths_x, self.widths_y = np.diff(xe), np.diff(ye)
        self.profile = self.widths_y * self.norm
        # A w: G of the values' density at the report edges
        self.fw_c = _CubicWindows(xe[0], dx, m + 1, ye, d)
        self.fw_w = _Cumulative(xe[0], dx, m, ye)
        # A.T u: G of the reports' step function at the value edges
        self.bw_c = _CubicWindows(ye[0], dy, mr + 1, xe, d)
        self.bw_w = _Cumulative(ye[0], dy, mr, xe)
        # G = [C / (6 d), d W] read at once from the stacked prefix sums
        self._forward = sparse.hstack(
            [self.fw_c.matrix / (6.0 * self.d), self.fw_w.matrix * self.d]
        ).tocsr()
        self._backward = sparse.hstack(
            [self.bw_c.matrix / (6.0 * self.d), self.bw_w.matrix * self.d]
        ).tocsr()

    @staticmethod
    def _edge_integral(matrix, cubic, density, mass):
        # [prefix sums of the cubic windows; cumsum(mass); mass], written in
        # place into one array, read by the sparse matrix
        size = 4 * cubic.nb * cubic.B
        rows = mass.shape[0]
        stacked = np.empty((size + 2 * rows, mass.shape[1]))
        cubic.prefix(density, out=stacked[:size])
        np.cumsum(mass, axis=0, out=stacked[size : size + rows])
        stacked[size + rows :] = mass
        return matrix @ stacked

    def matvec(self, w: NDArray) -> NDArray[np.float64]:
        """``A @ w`` (``w`` a vector, or a matrix of one vector per column)."""
        w = np.asarray(w, dtype=float)
        W = w.reshape(w.shape[0], -1)
        G = self._edge_integral(self._forward, self.fw_c, W / self.widths_x[:, None], W)
        # profile * sum(w) - norm * (G[1:] - G[:-1]), without temporaries
        step = np.subtract(G[1:], G[:-1])
        step *= self.norm
        out = np.multiply(self.profile[:, None], W.sum(axis=0))
        out -= step
        return out.reshape((-1, *w.shape[1:]))

    def rmatvec(self, u: NDArray) -> NDArray[np.float64]:
        """``A.T @ u`` (``u`` a vector, or a matrix of one vector per column)."""
        u = np.asarray(u, dtype=float)
        U = u.reshape(u.shape[0], -1)
        mass = U * self.widths_y[:, None]
        G = self._edge_integral(self._backward, self.bw_c, U, mass)
        # norm * (sum(mass) - (G[1:] - G[:-1]) / widths_x), without temporaries
        out = np.subtract(G[1:], G[:-1])
        out /= self.widths_x[:, None]
        np.subtract(mass.sum(axis=0), out, out=out)
        out *= self.norm
        return out.reshape((-1, *u.shape[1:]))

    def __matmul__(self, w: NDArray) -> NDArray[np.float64]:
        return self.matvec(w)

    def toarray(self) -> NDArray[np.float64]:
        """The dense matrix (for checks on small grids)."""
        return self.matvec(np.eye(self.shape[1]))
