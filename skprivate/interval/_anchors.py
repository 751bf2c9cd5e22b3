"""Anchor distributions and the geometry of cells shared by every mechanism.

An anchor ``U`` is drawn on a *standardized* scale and mapped to the scale of
the response by the public, fixed-before-collection standardization
``U_raw = anchor_loc + anchor_scale * U``.  On the standardized scale ``U =
loc + scale * Z`` where ``Z`` follows the base family (standard logistic,
standard normal, uniform on [0, 1]) or any distribution object with ``cdf``
and ``ppf`` (a frozen :mod:`scipy.stats` distribution, ``rv_histogram``).
Every draw uses the inverse CDF, so draws truncated to a cell (progressive
refinement) use the same code.  A mechanism's declared ``support`` (the
range its values can take) truncates the law on the raw scale, so that no
anchor falls where no value can lie; the CDF, the quantiles and hence the
coverage and every planning formula then follow the truncated law.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from numpy.typing import NDArray
from scipy import stats

from ..utils.validation import check_float_array

_FAMILIES = {"logistic": stats.logistic, "normal": stats.norm, "uniform": stats.uniform}
# Least probability the untruncated anchor law may give a declared support:
# below it the truncated quantiles lose their digits to the cancellation
# F(high) - F(low).
_MIN_WINDOW_MASS = 1e-9


class AnchorDistribution:
    """The distribution of one anchor on the raw scale of one column.

    ``window=(low, high)`` truncates the law to ``[low, high]`` (either end
    may be infinite): the CDF is ``(F(u) - F(low)) / (F(high) - F(low))``
    inside the window, and every draw, quantile and truncated draw follows
    the truncated law.
    """

    def __init__(
        self,
        distribution: Any,
        loc: float,
        scale: float,
        a_loc,
        a_scale,
        window: tuple[float, float] = (-np.inf, np.inf),
    ):
        if isinstance(distribution, str):
            self.base = _FAMILIES[distribution]()
            self.name = distribution
        else:
            self.base = distribution
            self.name = getattr(getattr(distribution, "dist", None), "name", None) or (
                type(distribution).__name__
            )
        self.shift = a_loc + a_scale * loc
        self.mult = a_scale * scale
        self.low, self.high = float(window[0]), float(window[1])
        self.truncated = bool(np.isfinite(self.low) or np.isfinite(self.high))
        if self.truncated:
            p_low, p_high = self._base_cdf(np.array([self.low, self.high]))
            self.p_low, self.mass = float(p_low), float(p_high - p_low)
            if not self.mass > _MIN_WINDOW_MASS:
                raise ValueError(
                    "the anchor law (distribution, loc, scale, anchor_loc, "
                    "anchor_scale) puts no probability inside the declared "
                    "support; centre the anchors inside the support."
                )

    def _base_cdf(self, u: NDArray) -> NDArray:
        return np.asarray(self.base.cdf((np.asarray(u) - self.shift) / self.mult))

    def cdf(self, u: NDArray) -> NDArray:
        if not self.truncated:
            return self._base_cdf(u)
        p = np.clip(self._base_cdf(u), self.p_low, self.p_low + self.mass)
        return np.clip((p - self.p_low) / self.mass, 0.0, 1.0)

    def ppf(self, p: NDArray) -> NDArray:
        if not self.truncated:
            return self.shift + self.mult * np.asarray(self.base.ppf(p), dtype=float)
        q = self.p_low + np.asarray(p, dtype=float) * self.mass
        out = self.shift + self.mult * np.asarray(self.base.ppf(q), dtype=float)
        return np.clip(out, self.low, self.high)

    def support(self) -> tuple[float, float]:
        ends = self.shift + self.mult * np.asarray(self.base.ppf([0.0, 1.0]), float)
        # the window's ends exactly, not their round trip through cdf and ppf
        return max(float(ends[0]), self.low), min(float(ends[1]), self.high)

    def draw(self, rng: np.random.Generator, size, low=None, high=None) -> NDArray:
        """Inverse-CDF draws, optionally truncated to ``(low, high]`` per row."""
        v = rng.random(size)
        if low is None:
            # Keep away from 0 and 1, where ppf is infinite for unbounded families.
            return self.ppf(np.clip(v, 1e-300, 1.0 - 2**-53))
        p_lo = self.cdf(low)
        p_hi = self.cdf(high)
        p = p_lo + v * (p_hi - p_lo)
        out = self.ppf(np.clip(p, 1e-300, 1.0 - 2**-53))
        empty = ~(p_hi > p_lo)
        return np.where(empty, np.nan, np.clip(out, low, high))


def as_cdf(reference: Any, name: str = "reference") -> Callable[[NDArray], NDArray]:
    """A CDF from a callable, an object with ``cdf``, or a sample (empirical CDF).

    A callable (or ``cdf`` method) is checked at every evaluation: it must
    return one probability per point, in ``[0, 1]``, never NaN, with
    ``F(-inf) = 0`` and ``F(inf) = 1`` and non-decreasing over the points
    it is given; otherwise a ValueError names ``name`` and the rule broken.
    """
    if hasattr(reference, "cdf") and callable(reference.cdf):
        return _checked_cdf(reference.cdf, f"{name}.cdf")
    if callable(reference):
        return _checked_cdf(reference, name)
    try:
        sample = np.asarray(reference, dtype=float).ravel()
    except (TypeError, ValueError):
        raise TypeError(
            f"{name} must be a CDF (a callable or an object with cdf) or a "
            "sample of numbers."
        ) from None
    sample = np.sort(sample)
    if sample.size == 0 or not np.all(np.isfinite(sample)):
        raise ValueError(
            f"{name} as a sample must be a non-empty array of finite values."
        )
    n = sample.size
    return lambda t: np.searchsorted(sample, np.asarray(t, dtype=float), "right") / n


def _checked_cdf(func: Callable, name: str) -> Callable[[NDArray], NDArray]:
    """``func`` wrapped so that a value that no CDF takes is an error."""

    def cdf(t):
        t = np.asarray(t, dtype=float)
        with np.errstate(all="ignore"):
            raw = np.asarray(func(t), dtype=float)
        try:
            values = np.broadcast_to(raw, t.shape)
        except ValueError:
            raise ValueError(
                f"{name} returned shape {raw.shape} for points of shape "
                f"{t.shape}; a CDF returns one probability per point."
            ) from None
        points = ~np.isnan(t)
        rules = (
            (np.isnan(values) & points, "returned NaN"),
            ((values < 0) | (values > 1), "returned a value outside [0, 1]"),
            ((t == -np.inf) & (values != 0), "is not 0 at -inf"),
            ((t == np.inf) & (values != 1), "is not 1 at +inf"),
        )
        for bad, text in rules:
            if bad.any():
                raise ValueError(
                    f"{name} {text} at {int(bad.sum())} of {t.size} points; it "
                    "must be a cumulative distribution function."
                )
        flat_t, flat_v = t[points].ravel(), values[points].ravel()
        order = np.argsort(flat_t, kind="stable")
        if np.any(np.diff(flat_v[order]) < -1e-12):
            raise ValueError(
                f"{name} decreases between two of the points it was evaluated "
                "at; a cumulative distribution function is non-decreasing."
            )
        return np.array(values, dtype=float)

    return cdf


def check_acceptable_range(acceptable_range: Any) -> NDArray[np.float64]:
    """Validate a fixed acceptable set: a pair ``(low, high)`` or a list of pairs.

    Returns an ``(r, 2)`` array of disjoint cells ``(low, high]`` sorted by
    ``low`` (``r = 0`` for ``None``).
    """
    if acceptable_range is None:
        return np.empty((0, 2))
    arr = check_float_array(acceptable_range, name="acceptable_range", allow_nan=True)
    if arr.ndim == 1:
        arr = arr[None, :]
    if arr.ndim != 2 or arr.shape[1] != 2 or arr.shape[0] == 0:
        raise ValueError(
            "acceptable_range must be a pair (low, high) or a list of pairs; "
            f"got {acceptable_range!r}."
        )
    if np.any(np.isnan(arr)) or np.any(arr[:, 0] >= arr[:, 1]):
        raise ValueError(
            "acceptable_range needs low < high in every pair; "
            f"got {acceptable_range!r}."
        )
    arr = arr[np.argsort(arr[:, 0])]
    if np.any(arr[1:, 0] < arr[:-1, 1]):
        raise ValueError(
            f"acceptable_range pairs must not overlap; got {acceptable_range!r}."
        )
    return arr


def in_fixed_set(y: NDArray, fixed: NDArray) -> NDArray[np.bool_]:
    """Whether each ``y`` lies in the union of the cells ``(low, high]``."""
    if fixed.shape[0] == 0:
        return np.zeros(np.shape(y), dtype=bool)
    y = np.asarray(y)[..., None]
    return np.any((y > fixed[:, 0]) & (y <= fixed[:, 1]), axis=-1)


def mass_in_fixed_set(lo: NDArray, hi: NDArray, fixed: NDArray, cdf) -> NDArray:
    """P_Y(cell ∩ A) for cells ``(lo, hi]`` and a fixed set ``A``."""
    out = np.zeros(np.broadcast(lo, hi).shape)
    for low, high in fixed:
        a = np.maximum(lo, low)
        b = np.minimum(hi, high)
        out += np.where(b > a, cdf(b) - cdf(a), 0.0)
    return out


def pad_anchors(anchors: NDArray) -> NDArray:
    """``[-inf, q_1, ..., q_k, inf]`` per row."""
    n = anchors.shape[0]
    return np.hstack([np.full((n, 1), -np.inf), anchors, np.full((n, 1), np.inf)])


def cell_bounds(anchors: NDArray, y: NDArray) -> tuple[NDArray, NDArray, NDArray]:
    """Index, lower and upper bound of the cell ``(q_{i-1}, q_i]`` holding ``y``."""
    idx = np.sum(anchors < y[:, None], axis=1)
    padded = pad_anchors(anchors)
    lo = np.take_along_axis(padded, idx[:, None], axis=1)[:, 0]
    hi = np.take_along_axis(padded, idx[:, None] + 1, axis=1)[:, 0]
    return idx, lo, hi


def design_coverage(
    components: list[tuple[NDArray, tuple[int, ...]]],
    cdf,
    fixed: NDArray,
) -> NDArray[np.float64]:
    """Σ_j P_Y(cell_j \\ A)² for each row of anchors (the expected coverage given Q).

    ``components`` lists, per pooled mechanism, its anchors ``(n, k_i)`` and
    the indices of its cells reported exactly; ``fixed`` is the fixed
    acceptable set.  Pooled cells inside an exactly reported cell of any
    component, and the part of a cell inside ``fixed``, carry no coverage.
    """
    pooled = np.sort(np.hstack([a for a, _ in components]), axis=1)
    padded = pad_anchors(pooled)
    lo, hi = padded[:, :-1], padded[:, 1:]
    prob = cdf(hi) - cdf(lo)
    prob = prob - mass_in_fixed_set(lo, hi, fixed, cdf)
    keep = np.ones(prob.shape, dtype=bool)
    for anchors, exact in components:
        if not exact:
            continue
        # A pooled cell lies in the component cell whose index counts the
        # component's anchors strictly below the pooled cell's upper bound.
        comp_idx = np.sum(anchors[:, None, :] < hi[:, :, None], axis=2)
        keep &= ~np.isin(comp_idx, exact)
    prob = np.where(keep, np.clip(prob, 0.0, 1.0), 0.0)
    return np.sum(prob * prob, axis=1)
