"""Exact laws of the on-device samplers, computed from a mechanism spec.

Each ``*_law(spec, x)`` returns bins of the output (as grid indices) and the
exact probability of each bin under the law the spec describes; ``*_index``
maps released values to grid indices.  :func:`chi_square_p` compares counts
with such probabilities.
"""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import numpy as np
from scipy import integrate, stats

from skprivate.negative_survey import rvns_transition_density

# One comparison in a run fails wrongly with this probability.
ALPHA = 1e-5


def rint(v: float) -> int:
    return int(np.rint(v))


def chi_square_p(counts, probs) -> float:
    """p-value of Pearson's test of ``counts`` against ``probs``.

    Bins with expected counts below 5 are pooled with their neighbour so the
    chi-square approximation holds.
    """
    counts = np.asarray(counts, dtype=float)
    probs = np.asarray(probs, dtype=float)
    assert abs(probs.sum() - 1.0) < 1e-9, probs.sum()
    n = counts.sum()
    pooled_c, pooled_p = [], []
    c_acc = p_acc = 0.0
    for c, p in zip(counts, probs):
        c_acc += c
        p_acc += p
        if p_acc * n >= 5:
            pooled_c.append(c_acc)
            pooled_p.append(p_acc)
            c_acc = p_acc = 0.0
    if p_acc > 0 or c_acc > 0:
        pooled_c[-1] += c_acc
        pooled_p[-1] += p_acc
    pooled_c = np.asarray(pooled_c)
    expected = n * np.asarray(pooled_p)
    stat = float(np.sum((pooled_c - expected) ** 2 / expected))
    return float(stats.chi2.sf(stat, len(pooled_c) - 1))


def binned_counts(index, edges) -> np.ndarray:
    """Counts of integer ``index`` in bins ``[edges[i], edges[i+1])``."""
    return np.histogram(np.asarray(index, dtype=float), bins=np.asarray(edges))[0]


# -- Laplace ------------------------------------------------------------------------
def laplace_index(spec, values) -> np.ndarray:
    m = np.asarray(values, dtype=float) / spec["step"]
    assert np.all(m == np.rint(m)), "an output off the grid"
    return m


def _rounded_laplace_cdf(n: np.ndarray, gamma: float) -> np.ndarray:
    """P(N <= n) for N = rint(L), L Laplace of scale 1 / gamma."""
    t = (np.asarray(n, dtype=float) + 0.5) * gamma
    return np.where(t < 0, 0.5 * np.exp(np.minimum(t, 0)), 1 - 0.5 * np.exp(-t))


def laplace_law(spec, x: float, n_bins: int = 40):
    """Bins ``[edges[i], edges[i+1])`` of the output index and their probabilities."""
    assert spec["noise"] == "rounded_laplace"
    gamma = float(Fraction(spec["gamma"]))
    scale = 1.0 / gamma
    k = min(max(rint(x / spec["step"]), spec["k_low"]), spec["k_high"])
    low = spec["k_low"] - spec["margin"]
    high = spec["k_high"] + spec["margin"]
    inner = np.unique(np.rint(k + scale * np.linspace(-6, 6, n_bins - 1)))
    edges = np.concatenate([[low], inner, [high + 1]])
    # P(k + N < e) = P(N <= e - k - 1); the clamp puts the tails on low/high.
    cdf = _rounded_laplace_cdf(edges - k - 1, gamma)
    cdf[0], cdf[-1] = 0.0, 1.0
    return edges, np.diff(cdf)


# -- Square Wave ---------------------------------------------------------------------
def square_wave_index(spec, values) -> np.ndarray:
    v = np.asarray(values, dtype=float)
    j = np.rint((v - spec["low"]) / spec["step"])
    assert np.all(spec["low"] + j * spec["step"] == v), "an output off the grid"
    return j


def square_wave_k(spec, x: float) -> int:
    v = (x - spec["low"]) / (spec["high"] - spec["low"])
    return min(max(rint(v * spec["n_cells"]), 0), spec["n_cells"])


def square_wave_near(spec) -> float:
    """Exact probability of the window around the input."""
    n, half = spec["n_cells"], spec["half_cells"]
    c = n / (2 * half + 1)
    return 1.0 / (1.0 + c * math.exp(-spec["epsilon_value"]))


def square_wave_law(spec, x: float, n_bins: int = 12):
    n, half = spec["n_cells"], spec["half_cells"]
    k = square_wave_k(spec, x)
    near = square_wave_near(spec)
    per_near = near / (2 * half + 1)
    per_far = (1 - near) / n
    cuts = {-half, n + half + 1, k - half, k + half + 1}
    cuts |= {int(v) for v in np.linspace(k - half, k + half + 1, n_bins)}
    cuts |= {int(v) for v in np.linspace(-half, n + half + 1, 3 * n_bins)}
    edges = np.array(sorted(c for c in cuts if -half <= c <= n + half + 1))
    probs = []
    for a, b in itertools.pairwise(edges):
        in_near = max(0, min(b, k + half + 1) - max(a, k - half))
        probs.append(in_near * per_near + (b - a - in_near) * per_far)
    return edges, np.asarray(probs)


# -- RVNS ------------------------------------------------------------------------------
def rvns_index(spec, values) -> np.ndarray:
    i = np.asarray(values, dtype=float) / spec["step"]
    assert np.all(i == np.rint(i)), "a report off the grid"
    return i


def rvns_law(spec, x: float, n_bins: int = 40):
    """Bins of one report and their probabilities, from the package's exact
    transition density of the value on the grid (band and domain in grid
    units, which is what the grid sampler realises up to a relative 1e-7)."""
    h, ja, jb, D = spec["step"], spec["ja"], spec["jb"], spec["band"]
    jx = min(max(rint(x / h), ja), jb)
    # The grid law is the continuous law of the value jx on [ja - 1/2,
    # jb + 1/2] with band D + 1 (grid units), read at the cells of the grid
    # points of the report range.
    lo, hi = ja - 0.5, jb + 0.5
    d = D + 1
    placement = spec["placement"]
    first, last = spec["report_low"], spec["report_high"]
    edges = np.unique(np.rint(np.linspace(first, last + 1, n_bins + 1)))

    def density(y):
        return rvns_transition_density(jx, y, d, (lo, hi), placement)

    left, right = max(0.0, jx + d - hi), min(d, jx - lo)  # paper: offset range
    kinks = [jx - left, jx - right, jx, jx + d - right, jx + d - left, jx - d, jx + d]
    probs = []
    for a, b in itertools.pairwise(edges):
        pts = [p for p in kinks if a - 0.5 < p < b - 0.5]
        val, _ = integrate.quad(density, a - 0.5, b - 0.5, points=pts or None)
        probs.append(val)
    probs = np.asarray(probs)
    return edges, probs / probs.sum()


def rvns_band_free(spec, reports_index) -> bool:
    """Whether the reports of one respondent avoid a common band."""
    D = spec["band"]
    cuts = [
        spec["report_low"] - 1,
        *sorted({int(i) for i in reports_index}),
        spec["report_high"] + 1,
    ]
    return any(b - a - 1 >= D + 1 for a, b in itertools.pairwise(cuts))


# -- subsets ---------------------------------------------------------------------------
def subset_law(privatizer, code: int) -> dict[tuple, float]:
    """Exact probability of every report of category ``code``."""
    design = privatizer.designs_[0]
    p = design.n_categories
    from skprivate.subset._design import masks_to_indicators

    ind = [tuple(int(b) for b in row) for row in masks_to_indicators(design._masks, p)]
    law: dict[tuple, float] = {}

    def add(key, prob):
        if prob > 0:
            law[key] = law.get(key, 0.0) + prob

    if not design.is_independent:
        mu = design._mu
        total = sum(w for row, w in zip(ind, mu) if row[code])
        for row, w in zip(ind, mu):
            if row[code]:
                add(row, w / total)
        return law
    nu = design._nu / design._nu.sum()
    alpha = design.min_coverage if design.has_dummies else 0.0
    for row, w in zip(ind, nu):
        reported = row if row[code] else tuple(1 - b for b in row)
        if not design.has_dummies:
            add(reported, w)
            continue
        real = (1 - 2 * alpha) * w / 2
        add((*reported, 1, 0), real)
        add((*reported, 0, 1), real)
        add((*row, 1, 0), alpha * w)
        add((*row, 0, 1), alpha * w)
    return law


def subset_counts(law: dict, reports) -> tuple[np.ndarray, np.ndarray]:
    keys = sorted(law)
    position = {k: i for i, k in enumerate(keys)}
    counts = np.zeros(len(keys))
    for r in reports:
        key = tuple(int(b) for b in r)
        assert key in position, f"a report the design never makes: {key}"
        counts[position[key]] += 1
    return counts, np.array([law[k] for k in keys])
