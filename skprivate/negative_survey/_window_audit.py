"""Exact window probabilities of the negative survey's grid law, and the worst case.

The grid sampler (``secure=True``) maps a value to a grid index, draws a band
start ``s`` uniformly on a finite set of integers ``S_x`` and releases ``k``
grid indices uniformly on the report range minus the band ``s .. s + D``.
Indices here are relative to the first grid point of ``[a, b]``: inputs are
``0 .. K`` (``K = jb - ja``), the report range is ``-D .. K + D`` with the
boundary-safe placement (``S_x = x - D .. x``) and ``0 .. K`` with the
paper's (``S_x = max(0, x - D) .. min(x, K - D)``); ``A`` points of the range
lie outside a band, whatever ``s``.

A window of half-width ``m`` steps around a report index ``c`` is the grid
points ``c - m .. c + m`` cut to the report range.  Given the band, the ``k``
reports are independent and uniform on ``A`` points, so a ``k``-tuple of
windows ``W_1 .. W_k`` has probability

    P_x(W_1 .. W_k) = (1 / (|S_x| A**k)) sum_{s in S_x} prod_j g_j(s),

``g_j(s)`` the number of points of ``W_j`` outside the band ``s .. s + D``.
Each ``g_j`` is piecewise affine in ``s`` with four kinks (the band's ends
crossing the window's), so the sum is a sum of integer polynomials over
integer ranges, evaluated exactly with power sums: a window probability on a
grid of ``2**27`` points costs a few dozen integer operations.  ``A**k`` is
common to all inputs and cancels in every ratio.

The worst case is the largest ratio ``P_x(W) / P_x'(W)`` over input pairs
and tuples of windows centred on a tuple of reports that ``x'`` can produce
together (some band start leaves every centre outside the band).  It is
searched from the structure of the law: the ratio is a ratio of piecewise
polynomials whose pieces end where a window edge meets a band edge, a value,
an edge of the offsets' range or an end of the report range, so the
candidates are those positions (and the inputs where the offsets' range
changes form), refined by an integer pattern search (steps of every power of
two) that reaches the maxima inside pieces.  Every figure reported is an
exact ratio of integers attained by a named pair and tuple; the tests check
on coarse grids that it equals the maximum over every pair and every tuple.
"""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache

__all__ = ["GridWindowLaw", "WindowWorst"]


@lru_cache(maxsize=4096)
def _power_sums(n: int, top: int) -> tuple[int, ...]:
    """``sum_{u=0..n} u**e`` for ``e = 0 .. top`` (``0**0 = 1``), exactly."""
    sums: list[int] = []
    for e in range(top + 1):
        # (n + 1)**(e + 1) = sum_{i <= e} C(e + 1, i) sum_u u**i
        rest = sum(math.comb(e + 1, i) * sums[i] for i in range(e))
        sums.append(((n + 1) ** (e + 1) - rest) // (e + 1))
    return tuple(sums)


def _sum_product(lines: list[tuple[int, int]], n: int) -> int:
    """``sum_{u=0..n} prod_j (alpha_j + beta_j u)`` exactly."""
    poly = [1]
    for alpha, beta in lines:
        nxt = [0] * (len(poly) + 1)
        for i, c in enumerate(poly):
            nxt[i] += c * alpha
            nxt[i + 1] += c * beta
        poly = nxt
    sums = _power_sums(n, len(poly) - 1)
    return sum(c * s for c, s in zip(poly, sums))


@dataclass(frozen=True)
class WindowWorst:
    """The worst window ratio found, as an exact fraction, and what attains it.

    Attributes
    ----------
    ratio : Fraction
        ``P_x(W) / P_x'(W)``.
    inputs : tuple of int
        ``(x, x')``, relative grid indices of the likelier and the less
        likely input.
    centres : tuple of int
        The window centres (report indices), one per report.
    """

    ratio: Fraction
    inputs: tuple[int, int]
    centres: tuple[int, ...]


@dataclass(frozen=True)
class GridWindowLaw:
    """The law of the grid sampler seen through windows of ``2 m + 1`` points.

    Parameters
    ----------
    K : int
        Inputs of the grid are ``0 .. K``.
    D : int
        The band covers ``D + 1`` grid points.
    m : int
        Half-width of a window in grid steps (``m = floor(delta / h)``).
    k : int
        Number of reports sharing one band.
    safe : bool
        Boundary-safe placement (else the paper's).
    x_lo, x_hi : int or None
        The inputs audited (default all, ``0 .. K``): the claim of the
        paper's placement covers only the inputs at least the boundary
        margin from both bounds.
    """

    K: int
    D: int
    m: int
    k: int
    safe: bool
    x_lo: int | None = None
    x_hi: int | None = None
    _cache: dict = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        K, D, m = self.K, self.D, self.m
        if not (D >= 1 and m >= 1 and K > D and self.k >= 1):
            raise ValueError(
                f"GridWindowLaw needs D >= 1, m >= 1, K > D and k >= 1; got "
                f"K={K}, D={D}, m={m}, k={self.k}."
            )
        lo, hi = self.inputs
        if not 0 <= lo <= hi <= K:
            raise ValueError(f"inputs {lo}..{hi} must lie within 0..{K}.")

    # ------------------------------------------------------------------ law
    @property
    def inputs(self) -> tuple[int, int]:
        lo = 0 if self.x_lo is None else int(self.x_lo)
        hi = self.K if self.x_hi is None else int(self.x_hi)
        return lo, hi

    @property
    def report_range(self) -> tuple[int, int]:
        return (-self.D, self.K + self.D) if self.safe else (0, self.K)

    def offsets(self, x: int) -> tuple[int, int]:
        """First and last band start ``s`` of input ``x``."""
        if self.safe:
            return x - self.D, x
        return max(0, x - self.D), min(x, self.K - self.D)

    def window(self, c: int) -> tuple[int, int]:
        r0, r1 = self.report_range
        return max(c - self.m, r0), min(c + self.m, r1)

    def _outside(self, lo: int, hi: int, s: int) -> int:
        """Points of ``lo .. hi`` outside the band ``s .. s + D``."""
        cover = min(hi, s + self.D) - max(lo, s) + 1
        return hi - lo + 1 - max(0, cover)

    def weight(self, x: int, centres: tuple[int, ...]) -> Fraction:
        """``A**k P_x(windows around centres)``, exactly."""
        key = (x, centres)
        if key in self._cache:
            return self._cache[key]
        s_lo, s_hi = self.offsets(x)
        wins = [self.window(c) for c in centres]
        if all(hi < s_lo or lo > s_hi + self.D for lo, hi in wins):
            # no band of x meets a window: every point counts
            return Fraction(math.prod(hi - lo + 1 for lo, hi in wins))
        cuts = {s_lo, s_hi + 1}
        for lo, hi in wins:
            for kink in (lo - self.D - 1, hi - self.D, lo, hi + 1):
                if s_lo < kink <= s_hi:
                    cuts.add(kink)
        edges = sorted(cuts)
        total = 0
        for p, q in itertools.pairwise(edges):
            lines = []
            for lo, hi in wins:
                g0 = self._outside(lo, hi, p)
                g1 = self._outside(lo, hi, p + 1) if q - p > 1 else g0
                lines.append((g0, g1 - g0))
            total += _sum_product(lines, q - 1 - p)
        value = Fraction(total, s_hi - s_lo + 1)
        if len(self._cache) < 200_000:
            self._cache[key] = value
        return value

    def possible(self, x: int, centres: tuple[int, ...]) -> bool:
        """Whether ``x`` can report every centre together (one band)."""
        r0, r1 = self.report_range
        if any(not r0 <= c <= r1 for c in centres):
            return False
        s_lo, s_hi = self.offsets(x)
        # band starts that cover centre c: c - D .. c; is any start left free?
        s = s_lo
        for lo in sorted(c - self.D for c in set(centres)):
            if s < lo:
                break
            s = max(s, lo + self.D + 1)
        return s <= s_hi

    # ---------------------------------------------------------------- search
    def _input_candidates(self) -> list[int]:
        lo, hi = self.inputs
        K, D = self.K, self.D
        raw = {lo, lo + 1, hi - 1, hi, D - 1, D, D + 1, K - D - 1, K - D, K - D + 1}
        # the extreme inputs first: they are the likeliest numerators
        return sorted(
            (x for x in raw if lo <= x <= hi), key=lambda x: (x != lo, x != hi, x)
        )

    def _centre_candidates(self, x2: int, numerators: list[int]) -> list[int]:
        D, m = self.D, self.m
        r0, r1 = self.report_range
        s_lo, s_hi = self.offsets(x2)
        steps = {0, 1, 2, m - 1, m, m + 1, m + 2}
        bases = [x2, s_hi, s_lo + D, r0 - 1, r1 + 1]
        for x in numerators:
            a, b = self.offsets(x)
            bases += [a, b + D, x]
        raw = set()
        for base in bases:
            for t in steps:
                for shift in (0, D + 1, -(D + 1)):
                    raw.update((base + shift + t, base + shift - t))
        # windows cut at an end of the range peak near sqrt(2 D (D + 1)) points
        root = math.isqrt(2 * D * (D + 1))
        for ell in (root - m, root - m + 1, 2 * m - m, m + 1):
            raw.update((r0 + ell, r1 - ell))
        return sorted(c for c in raw if r0 <= c <= r1)

    def ratio(self, x: int, x2: int, centres: tuple[int, ...]) -> Fraction:
        """``P_x(W) / P_x2(W)`` for the windows around ``centres``."""
        return self.weight(x, centres) / self.weight(x2, centres)

    def _best_numerator(
        self, centres: tuple[int, ...], numerators: list[int]
    ) -> tuple[Fraction, int]:
        cap = math.prod(hi - lo + 1 for lo, hi in map(self.window, centres))
        best = (Fraction(-1), -1)
        for x in numerators:
            best = max(best, (self.weight(x, centres), x))
            if best[0] == cap:  # no input can do better
                break
        return best

    def _score(
        self, x2: int, centres: tuple[int, ...], numerators: list[int]
    ) -> tuple[Fraction, int] | None:
        lo, hi = self.inputs
        if not lo <= x2 <= hi or not self.possible(x2, centres):
            return None
        top, x = self._best_numerator(centres, numerators)
        return top / self.weight(x2, centres), x

    def _climb(
        self, x2: int, centres: tuple[int, ...], numerators: list[int]
    ) -> WindowWorst:
        """Integer pattern search from one start, every power-of-two step."""
        best = self._score(x2, centres, numerators)
        span = self.report_range[1] - self.report_range[0]
        step = 1 << max(span.bit_length(), 1)
        k = len(centres)
        while step >= 1:
            improved = True
            while improved:
                improved = False
                moves = []
                for sign in (step, -step):
                    moves.append((sign, (0,) * k))  # the input alone
                    moves.append((sign, (sign,) * k))  # input and windows
                    moves.append((0, (sign,) * k))  # the windows together
                    for j in range(k):
                        moves.append(
                            (0, tuple(sign if i == j else 0 for i in range(k)))
                        )
                for dx, dc in moves:
                    cand = (x2 + dx, tuple(sorted(c + t for c, t in zip(centres, dc))))
                    got = self._score(cand[0], cand[1], numerators)
                    if got is not None and got[0] > best[0]:
                        best, (x2, centres), improved = got, cand, True
            step //= 2
        return WindowWorst(best[0], (best[1], x2), centres)

    def worst(self, starts: int = 6) -> WindowWorst:
        """The largest window ratio: structured candidates, then pattern search."""
        numerators = self._input_candidates()
        seeds: list[tuple[Fraction, int, tuple[int, ...]]] = []
        r0, r1 = self.report_range
        for x2 in numerators:
            cands = self._centre_candidates(x2, numerators)
            singles = []
            for c in cands:
                got = self._score(x2, (c,) * self.k, numerators)
                if got is not None:
                    singles.append((got[0], c))
            singles.sort(reverse=True)
            if self.k == 1:
                seeds += [(r, x2, (c,)) for r, c in singles]
                continue
            alone = []  # one window's own ratio, for tuples mixing positions
            for c in cands:
                got = self._score(x2, (c,), numerators)
                if got is not None:
                    alone.append((got[0], c))
            alone.sort(reverse=True)
            pool = sorted(
                {c for _, c in singles[:6]}
                | {c for _, c in alone[:4]}
                | {r0, r0 + 1, r1 - 1, r1}
            )
            for t in itertools.combinations_with_replacement(pool, self.k):
                got = self._score(x2, t, numerators)
                if got is not None:
                    seeds.append((got[0], x2, t))
        seeds.sort(reverse=True)
        results = [self._climb(x2, t, numerators) for _, x2, t in seeds[:starts]]
        return max(results, key=lambda w: w.ratio)
