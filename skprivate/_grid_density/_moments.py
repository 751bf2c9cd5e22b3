"""Matching a grid density to the moments of the privatized data.

A deconvolution or reconstruction estimate on cells of ``[a, b]`` is made
non-negative (clipping, positivity of EM) and smoothed, which moves its mean
and variance away from what the privatized data say about them.  When the
mechanism's report law has conditional moments ``E[Y | x]`` and
``E[Y**2 | x]`` that are known functions of the value, the sample moments of
the reports are unbiased estimates of ``sum_i theta_i E[Y | cell i]`` and
``sum_i theta_i E[Y**2 | cell i]``.  :func:`tilt_to_moments` replaces the
cell probabilities ``theta`` by the closest ones (Kullback-Leibler
divergence) that reproduce those two report moments: the I-projection
(Csiszár, 1975) onto a set given by linear constraints is the exponential
tilt ``theta_i exp(lambda . F_i)`` of the features ``F_i``, whose two
multipliers solve a smooth convex problem (Newton's method below).

When ``E[Y | x]`` is affine and ``E[Y**2 | x]`` quadratic in ``x`` (additive
noise, the Square Wave, the boundary-safe RVNS placement) the constraints
are the same as fixing the mean and the variance of the values to their
unbiased estimates, and the tilt is ``exp(l1 x + l2 x**2)``.
"""

from __future__ import annotations

import warnings

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.special import logsumexp

from ..exceptions import NotIdentifiableWarning
from ..utils._warnings import external_stacklevel

__all__ = [
    "additive_features",
    "binned_moments",
    "cell_moments",
    "moment_covariance",
    "noise_variance",
    "rvns_features",
    "square_wave_features",
    "tilt_to_moments",
]

_NEWTON_MAX_ITER = 200
_NEWTON_TOL = 1e-11
# Largest standardized moment error accepted when round-off stops Newton.
_ROUNDOFF_TOL = 1e-7
# Where an unattainable second moment is moved: this share of the attainable
# range inside its nearer end.
_FEASIBLE_SHARE = 0.01


def cell_moments(edges: ArrayLike) -> NDArray[np.float64]:
    """``(E[x], E[x**2])`` of the uniform law on each cell, shape ``(m, 2)``."""
    edges = np.asarray(edges, dtype=float)
    mid = 0.5 * (edges[:-1] + edges[1:])
    width = np.diff(edges)
    return np.column_stack([mid, mid * mid + width * width / 12.0])


def binned_moments(
    nodes: ArrayLike, counts: ArrayLike, spread: float = 0.0
) -> tuple[float, float, float]:
    """``(n, mean, mean of squares)`` of records known only by binned counts.

    ``counts[j]`` is the (possibly fractional) weight at ``nodes[j]``;
    ``spread`` is the expected excess of the mean square over the records'
    own: ``w**2 / 12`` for counts of cells of width ``w`` read at their
    midpoints (exact for records uniform within a cell) and
    ``-step**2 / 6`` for linear binning on nodes ``step`` apart, which keeps
    the mean exact and adds ``u (1 - u) step**2`` to each square (``u`` the
    record's position between its two nodes, uniform on average).
    """
    nodes = np.asarray(nodes, dtype=float)
    counts = np.asarray(counts, dtype=float)
    n = float(counts.sum())
    mean = float(np.dot(counts, nodes) / n)
    square = float(np.dot(counts, nodes * nodes) / n) + float(spread)
    return n, mean, square


def noise_variance(law) -> float:
    """Variance of a symmetric additive noise law with ``logpdf`` and ``scale``."""
    power = getattr(law, "power", None)
    if power is not None:  # generalized Gaussian: s**2 Gamma(3/p) / Gamma(1/p)
        from scipy.special import gammaln

        return float(law.scale**2 * np.exp(gammaln(3.0 / power) - gammaln(1.0 / power)))
    # Any other law: quadrature over 60 scales, far beyond any tail mass.
    t = np.linspace(0.0, 60.0 * law.scale, 200001)
    f = np.exp(law.logpdf(t))
    return float(2.0 * np.trapezoid(t * t * f, t) / (2.0 * np.trapezoid(f, t)))


def additive_features(edges: ArrayLike, noise_var: float) -> NDArray[np.float64]:
    """Report moments per cell for ``Y = X + noise``: ``(E x, E x**2 + var)``."""
    F = cell_moments(edges)
    F[:, 1] += float(noise_var)
    return F


def square_wave_features(
    edges: ArrayLike, w: float, near_odds: float
) -> NDArray[np.float64]:
    """Report moments per cell of the unit domain for the Square Wave.

    Parameters
    ----------
    edges : array-like of shape (m + 1,)
        Edges of the cells of ``[0, 1]``.
    w : float
        Half-width of the band, ``>= 0`` (0 where it underflows).
    near_odds : float
        Odds ``k = 2 w e**eps`` of a report in the band (the mechanism's
        own terms, from its family module).

    Returns
    -------
    features : ndarray of shape (m, 2)
        ``(E[Y | cell], E[Y**2 | cell])`` for a value uniform in the cell.

    Notes
    -----
    The report density given ``v`` is ``q`` on ``[-w, 1 + w]`` plus
    ``p - q`` on ``[v - w, v + w]`` (``p = e**eps q``,
    ``q = 1 / (1 + k)``), so with ``r = 2 w (p - q)`` the band's extra mass,
    ``E[Y | v] = q (1 + 2 w) / 2 + r v`` and
    ``E[Y**2 | v] = q ((1 + w)**3 + w**3) / 3 + r (v**2 + w**2 / 3)``.
    ``r = (k - 2 w) q`` needs neither ``1 / w`` nor ``e**eps``, so it holds
    for every finite ``eps``, also where ``w`` underflows to 0 (``eps``
    about 709 and more): there the report is ``v`` with probability
    ``k / (1 + k)`` and uniform on ``[0, 1]`` otherwise, the limit of the
    law as ``w -> 0``.  (For small ``eps``, ``k - 2 w = 2 w (e**eps - 1)``
    loses relative digits, but its absolute error stays at the round-off
    of ``k`` (of order 1 there), below that of the moments themselves.)

    Examples
    --------
    >>> import numpy as np
    >>> F = square_wave_features(np.array([0.0, 0.5, 1.0]), 0.0, 3.0)
    >>> (48 * F).round(9).tolist()  # 3/4 of reports at v, 1/4 uniform on [0, 1]
    [[15.0, 7.0], [33.0, 25.0]]
    """
    q = 1.0 / (1.0 + near_odds)
    extra = (near_odds - 2.0 * w) * q  # = 2 w (p - q)
    X = cell_moments(edges)
    F = np.empty_like(X)
    F[:, 0] = q * (1.0 + 2.0 * w) / 2.0 + extra * X[:, 0]
    F[:, 1] = q * ((1.0 + w) ** 3 + w**3) / 3.0 + extra * (X[:, 1] + w * w / 3.0)
    return F


def _rvns_conditional(x: NDArray, d: float, a: float, b: float, placement: str):
    """``(E[Y | x], E[Y**2 | x])`` of one RVNS report given the value ``x``."""
    if placement == "boundary_safe":
        # uniform on [a - d, b + d] minus a tent of area d centred at x
        c = 1.0 / (b - a + d)
        lo, hi = a - d, b + d
        m1 = c * ((hi * hi - lo * lo) / 2.0 - d * x)
        m2 = c * ((hi**3 - lo**3) / 3.0 - d * x * x - d**3 / 6.0)
        return m1, m2
    # paper: band start s = x - d1, d1 ~ U[L, R]; uniform on [a, b] minus it
    low = np.maximum(0.0, x + d - b)
    high = np.minimum(d, x - a)
    s1 = x - 0.5 * (low + high)
    s2 = s1 * s1 + (high - low) ** 2 / 12.0
    c = 1.0 / (b - a - d)
    m1 = c * ((b * b - a * a) / 2.0 - d * s1 - d * d / 2.0)
    m2 = c * ((b**3 - a**3) / 3.0 - d * s2 - d * d * s1 - d**3 / 3.0)
    return m1, m2


def rvns_features(
    edges: ArrayLike, d: float, placement: str, n_sub: int = 64
) -> NDArray[np.float64]:
    """Moments of one RVNS report given a value uniform in each cell.

    Boundary-safe placement: the report is uniform on ``[a - d, b + d]``
    less a tent of area ``d`` centred at ``x``, so
    ``E[Y | x] = ((b + d)**2 - (a - d)**2) / (2 (b - a + d)) - d x / (b - a + d)``
    (affine, of slope ``-d / (b - a + d)``: a report says where the value is
    not) and ``E[Y**2 | x]`` is quadratic.  The paper's placement moves the
    band near the bounds, so its moments are affine only on
    ``[a + d, b - d]``; the cell averages are taken over ``n_sub`` points.
    """
    edges = np.asarray(edges, dtype=float)
    a, b = float(edges[0]), float(edges[-1])
    if placement == "boundary_safe":
        X = cell_moments(edges)
        c = 1.0 / (b - a + d)
        lo, hi = a - d, b + d
        m1 = c * ((hi * hi - lo * lo) / 2.0 - d * X[:, 0])
        m2 = c * ((hi**3 - lo**3) / 3.0 - d * X[:, 1] - d**3 / 6.0)
        return np.column_stack([m1, m2])
    sub = (np.arange(n_sub) + 0.5) / n_sub
    x = edges[:-1, None] + np.diff(edges)[:, None] * sub[None, :]
    m1, m2 = _rvns_conditional(x, float(d), a, b, placement)
    return np.column_stack([m1.mean(axis=1), m2.mean(axis=1)])


def _located(value: float, spread: float) -> str:
    """Format ``value`` to six significant digits of ``spread``.

    A location far from zero keeps the digits that tell it apart within the
    support (``1000000.4`` rather than ``1e+06``).
    """
    value = float(value)
    if not (np.isfinite(value) and value != 0 and spread > 0):
        return f"{value:.6g}"
    extra = max(0, int(np.ceil(np.log10(abs(value) / spread))))
    return f"{value:.{min(6 + extra, 17)}g}"


def _standard_frame(F: NDArray) -> tuple[NDArray, NDArray, bool]:
    """Affine frame of the feature plane in which the moments are compared.

    Returns ``(centre, M, flat)`` with ``U = (F - centre) @ M`` the
    standardized features: the first centred and scaled to unit standard
    deviation over the cells, the second with its linear dependence on the
    first removed, then centred and scaled the same way (``M`` is upper
    triangular, so a constraint on the first feature alone stays one on
    ``U[:, 0]``).  Every constraint ``sum theta F = t`` is the constraint
    ``sum theta U = (t - centre) @ M``, and ``exp(lam . U)`` is
    ``exp((M @ lam) . F)`` up to a constant, so nothing is lost; what is
    gained is that the margins of the feasibility checks and the tolerances
    of Newton's method no longer depend on the data's units (a second
    feature of order ``1e24`` or ``1e-24``).  ``flat`` is
    True when the second feature is an affine function of the first over
    the cells (to round-off): its range at a given mean is then a point.
    """
    centre = F.mean(axis=0)
    D = F - centre
    s1 = float(np.sqrt(np.mean(D[:, 0] ** 2)))
    s1 = s1 if s1 > 0 else 1.0
    beta = float(np.mean(D[:, 0] * D[:, 1])) / (s1 * s1)
    residual = D[:, 1] - beta * D[:, 0]
    s2 = float(np.sqrt(np.mean(residual**2)))
    spread2 = float(np.sqrt(np.mean(D[:, 1] ** 2)))
    flat = not s2 > 1e-12 * spread2
    s2 = s2 if s2 > 0 else 1.0
    M = np.array([[1.0 / s1, -beta / s2], [0.0, 1.0 / s2]])
    return centre, M, flat


def _hull_chain(x: list, y: list, upper: bool) -> list:
    """Indices of the lower (or upper) convex hull of points sorted by ``x``."""
    hull: list = []
    for i in range(len(x)):
        while len(hull) >= 2:
            o, a = hull[-2], hull[-1]
            cross = (x[a] - x[o]) * (y[i] - y[o]) - (y[a] - y[o]) * (x[i] - x[o])
            # the lower hull turns left (cross > 0), the upper one right
            if (cross >= 0) if upper else (cross <= 0):
                hull.pop()
            else:
                break
        hull.append(i)
    return hull


def _hull_at(x: NDArray, y: NDArray, hull: list, t: float) -> float:
    """Height at ``t`` of the polygonal chain of ``hull`` (``t`` within its span)."""
    hx, hy = x[hull], y[hull]
    k = int(np.clip(np.searchsorted(hx, t, side="right") - 1, 0, hx.size - 2))
    run = hx[k + 1] - hx[k]
    frac = 0.0 if not run > 0 else (t - hx[k]) / run
    return float(hy[k] + min(max(frac, 0.0), 1.0) * (hy[k + 1] - hy[k]))


def _feasible_second(U: NDArray, t1: float) -> tuple[float, float]:
    """Range of ``sum theta U2`` over the simplex with ``sum theta U1 = t1``.

    The moments ``(sum theta U1, sum theta U2)`` the cell probabilities can
    give are the convex hull of the points ``U_i``; the range at ``t1`` is
    where the vertical line through ``t1`` crosses its lower and upper
    chains.  The chains are built exactly (Andrew's monotone chain), with no
    solver and its tolerances; ``t1`` must lie within the range of ``U1``
    (the caller checks it).
    """
    order = np.lexsort((U[:, 1], U[:, 0]))
    x, y = U[order, 0], U[order, 1]
    # of points sharing an abscissa, only the lowest and highest can be on
    # the chains
    starts = np.flatnonzero(np.r_[True, np.diff(x) > 0])
    ends = np.r_[starts[1:], x.size] - 1
    xs = x[starts]
    if xs.size == 1:
        return float(y[starts[0]]), float(y[ends[0]])
    low_y, high_y = y[starts], y[ends]
    lower = _hull_chain(xs.tolist(), low_y.tolist(), upper=False)
    upper = _hull_chain(xs.tolist(), high_y.tolist(), upper=True)
    return _hull_at(xs, low_y, lower, t1), _hull_at(xs, high_y, upper, t1)


def _newton_tilt(
    logp: NDArray, G: NDArray
) -> tuple[NDArray[np.float64] | None, NDArray[np.float64]]:
    """Minimize ``log sum exp(logp + G lam)``; the minimizer's tilt has
    ``E[G] = 0``.  Returns ``(lam, log weights)`` or ``(None, logp)``."""
    lam = np.zeros(G.shape[1])

    def value(lam):
        return float(logsumexp(logp + G @ lam))

    current = value(lam)
    for _ in range(_NEWTON_MAX_ITER):
        logw = logp + G @ lam
        logw -= logsumexp(logw)
        w = np.exp(logw)
        grad = w @ G
        if np.max(np.abs(grad)) < _NEWTON_TOL:
            return lam, logw
        centred = G - grad
        hess = (centred * w[:, None]).T @ centred
        try:
            step = -np.linalg.solve(hess, grad)
        except np.linalg.LinAlgError:
            return None, logp
        rate = 1.0
        while rate > 1e-12:
            trial = lam + rate * step
            new = value(trial)
            # Armijo's rule, with the round-off of the value forgiven near
            # the minimum (where the full Newton step is right)
            slack = 1e-13 * (1.0 + abs(current))
            if new <= current + 1e-4 * rate * float(grad @ step) + slack:
                break
            rate *= 0.5
        else:
            # no decrease left to find within round-off: the gradient is as
            # small as the arithmetic allows
            if np.max(np.abs(grad)) < _ROUNDOFF_TOL:
                return lam, logw
            return None, logp
        lam, current = trial, new
    return None, logp


def moment_covariance(
    n: float, mean: float, square: float, third: float, fourth: float
) -> NDArray[np.float64]:
    """Covariance of the sample mean and mean square of ``n`` reports.

    Parameters
    ----------
    n : float
        Number of reports.
    mean, square, third, fourth : float
        Sample means of the reports and of their second, third and fourth
        powers.

    Returns
    -------
    cov : ndarray of shape (2, 2)
        ``cov((z, z**2)) / n``.

    Examples
    --------
    >>> moment_covariance(100, 0.0, 1.0, 0.0, 3.0).round(3).tolist()
    [[0.01, 0.0], [0.0, 0.02]]
    """
    c11 = max(square - mean * mean, 0.0)
    c12 = third - mean * square
    c22 = max(fourth - square * square, 0.0)
    return np.array([[c11, c12], [c12, c22]]) / max(float(n), 1.0)


def tilt_to_moments(
    mass: ArrayLike,
    features: ArrayLike,
    target: ArrayLike,
    *,
    cov: ArrayLike | None = None,
    within: float = 2.0,
    name: str = "the estimate",
    units: tuple[float, float] | None = None,
) -> tuple[NDArray[np.float64], NDArray[np.float64] | None]:
    """Exponential tilt of cell probabilities that reproduces two moments.

    With ``cov`` (the covariance of the two targets), the estimate is moved
    only as far as it must be: when its own moments lie within Mahalanobis
    distance ``within`` of the targets it is returned unchanged
    (multipliers zero), and otherwise it is matched to the point of that
    ellipse on the segment from the targets to its own moments.  Inside the
    ellipse every linear combination of the two moments (the mean of the
    values, and their variance to first order) is within ``within`` of its
    own standard error, by the Cauchy-Schwarz inequality.  The targets are
    noisy (under strong noise their standard errors are large), so matching
    them exactly would trade the shape of a good estimate for the sampling
    error of the moments; the ellipse keeps every estimate consistent with
    the data's moments at no cost to the estimates that already are.

    Finds ``theta* = argmin KL(theta* || theta)`` subject to
    ``sum_i theta*_i F_i = target``; the solution is
    ``theta*_i ∝ theta_i exp(lambda . F_i)`` (Csiszár, 1975), with the
    multipliers found by Newton's method on the convex dual.  Cells with no
    mass keep none.  When the target mean (first feature) lies outside what
    the cells with mass can produce, ``theta`` is returned unchanged; when
    only the second moment is out of reach (e.g. a variance estimate at or
    below zero, or beyond the largest variance a density on the support
    with that mean can have), the target is moved into the attainable range
    by as much as it was outside (between 0.01% and 1% of the range; only
    the first moment is matched when that range is a point).  Both cases
    emit a :class:`~skprivate.exceptions.NotIdentifiableWarning`.

    The computations are made in a standardized frame of the features (see
    :func:`_standard_frame`), so the result does not depend on their units;
    the range of the second moment is read off the convex hull of the
    cells' features, exactly.  Features far from zero relative to their
    spread (values around ``1e6`` varying by ``1``) lose the precision of
    their second moment in ``x**2`` itself: pass features of the values
    centred and scaled by the support (and targets in the same units), as
    :class:`~skprivate.DeconvolutionKernelDensity` does.

    Parameters
    ----------
    mass : array-like of shape (m,)
        Non-negative cell probabilities (normalized here).
    features : array-like of shape (m, 2)
        ``F_i``: the expected report and squared report given a value in
        cell ``i``.
    target : array-like of shape (2,)
        Sample mean of the reports and of their squares.
    cov : array-like of shape (2, 2), optional
        Covariance of ``target`` (:func:`moment_covariance`); without it
        the targets are matched exactly.
    within : float, default=2.0
        Radius of the accepted ellipse (Mahalanobis distance).
    name : str
        What is corrected, for the warnings.
    units : tuple (low, width) or None
        When the features and targets are those of the values in the units
        ``u = (x - low) / width`` (see above), the warnings report the
        moments in the data's units ``x``; None reports them as given.

    Returns
    -------
    mass : ndarray of shape (m,)
        Tilted probabilities (sum 1).
    multipliers : ndarray of shape (2,) or None
        ``lambda``, in the units of ``features`` (zero for an unmatched
        second moment); None when nothing was matched.

    Raises
    ------
    ValueError
        When ``mass`` has a negative entry or no positive finite total.

    Examples
    --------
    >>> import numpy as np
    >>> edges = np.linspace(0.0, 1.0, 101)
    >>> F = cell_moments(edges)
    >>> p, lam = tilt_to_moments(np.full(100, 0.01), F, [0.3, 0.3**2 + 0.01])
    >>> round(float(p @ F[:, 0]), 6), round(float(p @ F[:, 1] - 0.09), 6)
    (0.3, 0.01)
    """
    p = np.asarray(mass, dtype=float)
    F = np.asarray(features, dtype=float)
    t = np.asarray(target, dtype=float)
    total = p.sum()
    if not (np.all(p >= 0) and np.isfinite(total) and total > 0):
        raise ValueError(
            f"mass must be non-negative with a positive finite total; got {total!r}."
        )
    p = p / total
    keep = p > 0
    # everything below is computed in the standardized frame U = (F - c) @ M
    # and mapped back: the result does not depend on the features' units
    centre, M, flat = _standard_frame(F[keep])
    back = np.linalg.inv(M)

    def raw(u):
        return centre + np.asarray(u, dtype=float) @ back

    low, width = (0.0, 1.0) if units is None else map(float, units)

    def shown(first, second=None):
        # a mean (or, with the mean square, a variance) of reports given in
        # the units of u, in the data's units
        if second is None:
            return low + width * first
        return width * width * (second - first * first)

    U = (F - centre) @ M
    u = (t - centre) @ M
    if cov is not None:
        gap = p @ U - u
        P = np.linalg.pinv(M.T @ np.asarray(cov, dtype=float) @ M)
        distance = float(np.sqrt(max(gap @ P @ gap, 0.0)))
        if distance <= within:
            return p, np.zeros(2)
        u = u + gap * (within / distance)
    Uk, logp = U[keep], np.log(p[keep])
    lo1, hi1 = float(Uk[:, 0].min()), float(Uk[:, 0].max())
    margin1 = 1e-9 * (hi1 - lo1)
    if not (np.all(np.isfinite(u)) and lo1 + margin1 < u[0] < hi1 - margin1):
        mean = raw(u)[0] if np.all(np.isfinite(u)) else t[0]
        first = [shown(F[keep, 0].min()), shown(F[keep, 0].max())]
        spread = first[1] - first[0]
        warnings.warn(
            f"The moment correction of {name} was skipped: the unbiased estimate "
            f"of the reports' mean ({_located(shown(mean), spread)}) is outside "
            f"the range [{_located(first[0], spread)}, "
            f"{_located(first[1], spread)}] that a density on the estimate's "
            "support can give (too few records for this noise, or a support that "
            "does not contain the data); the estimate keeps its own moments.",
            NotIdentifiableWarning,
            stacklevel=external_stacklevel(),
        )
        return p, None
    # the second feature's range at the target mean (a point when it is an
    # affine function of the first: only the mean can then be matched)
    lo2, hi2 = (0.0, 0.0) if flat else _feasible_second(Uk, float(u[0]))
    margin2 = 1e-9 * max(hi2 - lo2, 0.0)
    columns = [0, 1]
    if not lo2 + margin2 < u[1] < hi2 - margin2:
        given = float(u[1])
        # as far inside the range as it was outside (within limits)
        gap = max(lo2 - given, given - hi2)
        inside = min(_FEASIBLE_SHARE * (hi2 - lo2), max(gap, 1e-4 * (hi2 - lo2)))
        mean = raw(u)[0]
        spread = abs(shown(F[keep, 0].max()) - shown(F[keep, 0].min()))

        def variance(v):
            # the reports' variance at the target mean and mean square v: it
            # reads the same in any units, and far from zero
            return shown(mean, raw([u[0], v])[1])

        if inside > 0:
            u = np.array([u[0], np.clip(given, lo2 + inside, hi2 - inside)])
            what = (
                f"it was moved to {variance(u[1]):.6g}, as far inside that "
                "range as it was outside"
            )
        else:
            columns = [0]
            what = "only the mean was matched"
        warnings.warn(
            f"The moment correction of {name} could not match the unbiased "
            "estimate of the reports' mean square: the reports' variance it "
            f"implies ({variance(given):.6g}) is outside the range "
            f"[{variance(lo2):.6g}, {variance(hi2):.6g}] that a density on the "
            "estimate's support with the estimated mean "
            f"({_located(shown(mean), spread)}) can give (the implied variance "
            "of the values is at or below the smallest, or above the largest, "
            f"possible; usually too few records for this noise); {what}.",
            NotIdentifiableWarning,
            stacklevel=external_stacklevel(),
        )
    G = Uk[:, columns] - u[columns]
    scale = np.sqrt(np.exp(logp) @ (G - np.exp(logp) @ G) ** 2)
    scale = np.where(scale > 0, scale, 1.0)
    lam, logw = _newton_tilt(logp, G / scale)
    if lam is None:
        warnings.warn(
            f"The moment correction of {name} was skipped: Newton's method did "
            "not reach the target moments (they are at the edge of what the "
            "support allows).",
            NotIdentifiableWarning,
            stacklevel=external_stacklevel(),
        )
        return p, None
    out = np.zeros_like(p)
    out[keep] = np.exp(logw)
    multipliers = np.zeros(2)
    multipliers[columns] = lam / scale
    # exp(lam . U) = exp((M @ lam) . F) up to a constant; M is triangular, so
    # an unmatched second moment keeps a zero multiplier
    return out, M @ multipliers
