"""Exact laws of the grid samplers, index by index.

Each float-safe sampler maps a value to a grid index, draws an integer
offset and releases ``origin + index * step``.  With the default grids
(``2**20`` or more steps per noise scale) a one-step error in that
arithmetic moves an output by a millionth of the noise and no test on
samples would see it.  Here the grid resolution constant of each module is
lowered (the same code then builds a grid of 4 to 8 steps per noise scale
or band), and the frequencies of every output atom over 200,000 releases
are compared with probabilities computed independently from the documented
law: the position of every atom, the grid step, the rounding of inputs and
of off-grid bounds, the clamps and the band edges.  A chi-square test over
the atoms must not reject at the 1e-4 level; one step of error anywhere
changes atoms of probability 1e-2 or more and gives chi-square values in
the thousands.
"""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest
from scipy import integrate, optimize, stats

from skprivate import LaplaceLDP
from skprivate.ldp import FlippedHuberLDP, GeneralizedGaussianLDP, SquareWaveLDP

N_DRAWS = 200_000
LOW, HIGH = 0.2, 2.7  # neither bound is a multiple of the grid steps below


def check_law(outcomes, probs, label=""):
    """Observed outcomes against exact probabilities (a dict outcome -> p).

    Every observed outcome must have positive probability, every outcome of
    probability above 1e-3 must be observed, and the chi-square statistic
    over the atoms with expected count >= 5 (the rest pooled) must have
    p-value above 1e-4.
    """
    values, counts = np.unique(outcomes, axis=0, return_counts=True)
    observed = {
        tuple(np.atleast_1d(v).tolist()): int(c) for v, c in zip(values, counts)
    }
    probs = {tuple(np.atleast_1d(k).tolist()): float(p) for k, p in probs.items()}
    impossible = [k for k in observed if probs.get(k, 0.0) <= 0.0]
    assert not impossible, (label, "outcomes of probability 0", impossible[:5])
    n = len(outcomes)
    missing = [k for k, p in probs.items() if p > 1e-3 and k not in observed]
    assert not missing, (label, "likely outcomes never drawn", missing[:5])
    big = {k: p for k, p in probs.items() if p * n >= 5}
    obs = [observed.get(k, 0) for k in big]
    exp = [p * n for p in big.values()]
    rest_obs, rest_exp = n - sum(obs), n - sum(exp)
    if rest_exp >= 5:
        obs.append(rest_obs)
        exp.append(rest_exp)
    else:
        assert rest_obs <= max(5, 10 * rest_exp), (label, rest_obs, rest_exp)
        exp = np.asarray(exp) * sum(obs) / sum(exp)
    pvalue = stats.chisquare(obs, exp).pvalue
    assert pvalue > 1e-4, (label, pvalue)


def indices(values, origin, step):
    """Grid indices of the outputs, which must lie on the grid.

    With origin 0 and a power-of-two step (Laplace, RVNS) the outputs are
    exact multiples of the step; with the lower bound as origin (additive,
    Square Wave) ``low + j * step`` carries the rounding of one addition.
    """
    k = (np.asarray(values) - origin) / step
    tol = 0.0 if origin == 0.0 else 1e-9
    np.testing.assert_allclose(k, np.round(k), rtol=0, atol=tol)
    return np.round(k).astype(np.int64)


class _Queued:
    """Stand-in generator answering from fixed queues (then a default)."""

    def __init__(self, uniforms, exponentials, gamma):
        self.uniforms = list(uniforms)
        self.exponentials = list(exponentials)
        self.g = gamma

    def gamma(self, shape, scale=1.0, size=None):
        return np.full(size, self.g)

    def standard_exponential(self, size=None):
        value = self.exponentials.pop(0) if self.exponentials else 1.0
        return np.broadcast_to(np.asarray(value, dtype=float), size).copy()

    def random(self, size=None):
        return np.full(size, self.uniforms.pop(0) if self.uniforms else 0.0)


# ------------------------------------------------------------ Laplace (secure)


def rounded_laplace(n, s):
    """``P(rint(L) = n)`` for ``L`` Laplace of scale ``s`` (in grid steps)."""
    if n == 0:
        return -math.expm1(-0.5 / s)
    return math.exp(-abs(n) / s) * math.sinh(0.5 / s)


@pytest.mark.parametrize(
    ("x", "k"),
    [(0.2, 0), (2.7, 5), (1.3, 3), (1.25, 2), (0.9, 2)],
    ids=["low", "high", "interior", "half-step-even", "interior-2"],
)
def test_laplace_grid_law(monkeypatch, x, k):
    """Bounds (0.2, 2.7), epsilon 1, grid bits 2: step 2**(1 - 2) = 0.5.

    ``k_lo = floor(0.2 / 0.5) = 0``, ``k_hi = ceil(2.7 / 0.5) = 6``, a
    Laplace scale of ``6 / 1`` steps and a clamp ``M = ceil(20 * 6)`` steps
    beyond; ``x`` goes to ``rint(x / 0.5)`` (half to even: 1.25 -> 2).
    """
    from skprivate.ldp import _laplace

    monkeypatch.setattr(_laplace, "GRID_BITS", 2)
    model = LaplaceLDP(epsilon=1.0, bounds=(LOW, HIGH), random_state=0)
    model.fit(np.zeros((1, 1)))
    assert model.grid_step_[0] == 0.5
    assert model.scale_[0] == 3.0  # 6 steps of 0.5
    k_lo, k_hi, s, M = 0, 6, 6.0, 120
    z = model.transform(np.full((N_DRAWS, 1), x))[:, 0]
    m = indices(z, 0.0, 0.5)
    probs = {}
    for out in range(k_lo - M, k_hi + M + 1):
        probs[out] = rounded_laplace(out - k, s)
    # the clamps collect the tails beyond them
    probs[k_lo - M] = 0.5 * math.exp(-(k - k_lo + M - 0.5) / s)
    probs[k_hi + M] = 0.5 * math.exp(-(k_hi + M - k - 0.5) / s)
    check_law(m, probs, label=f"laplace x={x}")
    # noise of 25 scales either way (a first draw of 44.4 and its extension)
    # stops exactly at the clamps
    for pair, want in [([44.4, 0.0], k_hi + M), ([0.0, 44.4], k_lo - M)]:
        rng = _Queued([], [np.array(pair).reshape(1, 1, 2)], gamma=None)
        out = model._secure_noise(np.array([[x]]), rng)
        assert float(out[0, 0]) == want * 0.5


# --------------------------------------------------- additive (GG and Huber)


def rounded_noise_probs(cdf, step, k, n, M, reach):
    """Law of ``clip(k + rint(Z / step), -M, n + M)`` from the cdf of ``Z``."""
    probs = {}
    for out in range(max(-M, k - reach), min(n + M, k + reach) + 1):
        j = out - k
        probs[out] = cdf((j + 0.5) * step) - cdf((j - 0.5) * step)
    return probs


def additive_model(monkeypatch, cls, **params):
    from skprivate.ldp import _additive

    monkeypatch.setattr(_additive, "GRID_BITS", 2)
    model = cls(bounds=(LOW, HIGH), random_state=0, **params)
    return model.fit(np.zeros((1, 1)))


def documented_grid(D, scale, tail_distance):
    """Cells ``n = 2**(ceil(log2(max(1, D / scale))) + 2)``, step and clamp."""
    n = 2 ** (math.ceil(math.log2(max(1.0, D / scale))) + 2)
    step = D / n
    return n, step, math.ceil(tail_distance / step)


ADDITIVE_INPUTS = [(LOW, "low"), (HIGH, "high"), (1.3, "interior"), (0.95, "other")]


@pytest.mark.parametrize(("x", "label"), ADDITIVE_INPUTS)
def test_generalized_gaussian_grid_law(monkeypatch, x, label):
    power = 1.5
    model = additive_model(
        monkeypatch, GeneralizedGaussianLDP, epsilon=1.0, delta=1e-3, power=power
    )
    sigma = float(model.scale_[0])
    law = stats.gennorm(power, scale=sigma)
    D = HIGH - LOW
    n, step, M = documented_grid(D, sigma, -law.ppf(math.exp(-20.0)))
    assert model.grid_step_[0] == pytest.approx(step, rel=1e-15)
    k = round((x - LOW) / step)
    z = model.transform(np.full((N_DRAWS, 1), x))[:, 0]
    out = indices(z, LOW, step)
    probs = rounded_noise_probs(law.cdf, step, k, n, M, reach=n + 2 * M)
    check_law(out, probs, label=f"gg {label}")
    _check_clamps(model, x, n, M)


def flipped_huber_cdf(scale, threshold):
    """Distribution function of ``exp(-rho(z / scale))``, normalised numerically."""
    beta = threshold / scale

    def density(t):
        u = abs(t) / scale
        return math.exp(-(u if u <= beta else (u * u + beta * beta) / (2 * beta)))

    def upper(t):  # integral of the density over [t, inf), t >= 0
        if t >= threshold:
            return integrate.quad(density, t, np.inf)[0]
        return (
            integrate.quad(density, t, threshold)[0]
            + integrate.quad(density, threshold, np.inf)[0]
        )

    total = 2.0 * upper(0.0)

    def cdf(t):
        return upper(-t) / total if t <= 0 else 1.0 - upper(t) / total

    return cdf


@pytest.mark.parametrize(("x", "label"), ADDITIVE_INPUTS)
def test_flipped_huber_grid_law(monkeypatch, x, label):
    model = additive_model(monkeypatch, FlippedHuberLDP, epsilon=1.0, delta=1e-3)
    scale, threshold = float(model.scale_[0]), float(model.threshold_[0])
    D = HIGH - LOW
    assert scale == pytest.approx(D / 1.0)
    cdf = flipped_huber_cdf(scale, threshold)
    target = math.exp(-20.0)  # the clamp: P(Z < -t) = e**-20
    top = scale
    while cdf(-top) > target:
        top *= 2.0
    t = optimize.brentq(lambda t: cdf(-t) / target - 1.0, 0.0, top, xtol=1e-12)
    n, step, M = documented_grid(D, scale, t)
    assert model.grid_step_[0] == pytest.approx(step, rel=1e-15)
    k = round((x - LOW) / step)
    z = model.transform(np.full((N_DRAWS, 1), x))[:, 0]
    out = indices(z, LOW, step)
    probs = rounded_noise_probs(cdf, step, k, n, M, reach=n + 2 * M)
    check_law(out, probs, label=f"huber {label}")
    _check_clamps(model, x, n, M)


def _check_clamps(model, x, n, M):
    """Outputs clamp at exactly ``-M`` and ``n + M`` steps from the lower bound.

    The draws make the noise far larger than the clamp: a huge gamma draw
    (generalized Gaussian), the tail branch at ``v = 0`` (Flipped Huber), and
    for the tail redraw 50 exponentials above its cap, accepted on uniforms 0.
    """
    low, high = model.bounds_
    gg = isinstance(model, GeneralizedGaussianLDP)
    for sign, want in [(0.75, n + M), (0.25, -M)]:
        uniforms = [sign] if gg else [1.0 - 2.0**-53, 0.0, sign]
        rng = _Queued(uniforms, [44.4] * 50, gamma=1e6)
        out = model._release(np.array([[x]]), low, high, rng)
        assert round((float(out[0, 0]) - LOW) / model.grid_step_[0]) == want


# ---------------------------------------------------------------- Square Wave


def square_wave_half_width(eps):
    return (eps - 1 + math.exp(-eps)) / (2 * (math.expm1(eps) - eps))


@pytest.mark.parametrize("epsilon", [1.0, 2.0])
@pytest.mark.parametrize(
    ("x", "label"),
    [
        (LOW, "low"),
        (HIGH, "high"),
        (LOW + 0.33 * 2.5, "interior"),
        (LOW + 2.5 / 8 * 2.5, "half"),
    ],
)
def test_square_wave_grid_law(monkeypatch, epsilon, x, label):
    """Grid bits 3: ``n = 8`` cells, band ``W = floor(8 w)`` cells each side.

    epsilon 1: ``w = 0.256``, ``W = 2``; epsilon 2: ``w = 0.129``, ``W = 1``.
    The near band ``[k - W, k + W]`` has probability ``1 - p_far`` spread
    evenly, the ``n`` other points of ``[-W, n + W]`` share ``p_far``, with
    ``p_far = n / (n + (2 W + 1) e**epsilon)``.
    """
    from skprivate.ldp import _square_wave

    monkeypatch.setattr(_square_wave, "GRID_BITS", 3)
    model = SquareWaveLDP(epsilon=epsilon, bounds=(LOW, HIGH), random_state=0)
    model.fit(np.zeros((1, 1)))
    n = 8
    W = math.floor(square_wave_half_width(epsilon) * n)
    assert (epsilon, W) in {(1.0, 2), (2.0, 1)}
    step = (HIGH - LOW) / n
    assert model.grid_step_[0] == step
    k = round((x - LOW) / (HIGH - LOW) * n)
    p_far = n / (n + (2 * W + 1) * math.exp(epsilon))
    probs = {
        j: (1 - p_far) / (2 * W + 1) if abs(j - k) <= W else p_far / n
        for j in range(-W, n + W + 1)
    }
    z = model.transform(np.full((N_DRAWS, 1), x))[:, 0]
    check_law(indices(z, LOW, step), probs, label=f"square wave {label}")


# ----------------------------------------------------------------------- RVNS


def rvns_pair_law(jx, ja, jb, D, safe=False):
    """Exact law of two reports sharing one band, as fractions.

    Paper placement: the band start is uniform on ``[max(ja, jx - D),
    min(jx, jb - D)]`` and reports are uniform on ``[ja, jb]`` outside the
    band.  Boundary-safe placement: the start is uniform on ``[jx - D, jx]``
    and reports are uniform on ``[ja - D, jb + D]`` outside the band.
    """
    if safe:
        starts, first, last = range(jx - D, jx + 1), ja - D, jb + D
    else:
        starts, first, last = range(max(ja, jx - D), min(jx, jb - D) + 1), ja, jb
    probs = {}
    for s in starts:
        allowed = [i for i in range(first, last + 1) if not s <= i <= s + D]
        A = len(allowed)
        for i1 in allowed:
            for i2 in allowed:
                probs[(i1, i2)] = probs.get((i1, i2), 0) + Fraction(
                    1, len(starts) * A * A
                )
    return probs, starts, first, last


RVNS_INPUTS = [(0.3, 3), (2.7, 21), (1.26, 10), (0.9, 7), (1.1875, 10), (2.5, 20)]
RVNS_IDS = ["low", "high", "interior", "near-low", "half-step-even", "near-high"]


def _rvns_grid(monkeypatch):
    """Bounds (0.3, 2.7), d = 0.7, grid bits 2: step ``2**(-1 - 2) = 0.125``.

    ``ja = ceil(0.3 / h) = 3``, ``jb = floor(2.7 / h) = 21``,
    ``D = rint(0.7 / h) = rint(5.6) = 6``; a value goes to
    ``clip(rint(x / h), ja, jb)`` (1.1875 / h = 9.5 -> 10).
    """
    from skprivate.negative_survey import _transition

    monkeypatch.setattr(_transition, "GRID_BITS", 2)
    grid = _transition.sampler_grid(np.array([0.7]), np.array([0.3]), np.array([2.7]))
    h, ja, jb, D = grid
    assert (h[0], ja[0], jb[0], D[0]) == (0.125, 3, 21, 6)
    return _transition, grid


def _check_rvns(sampler, grid, x, jx, safe):
    reports = sampler(np.full((N_DRAWS, 1), x), grid, 2, np.random.default_rng(0))
    pairs = indices(reports[:, 0, :], 0.0, 0.125)
    probs, starts, first, last = rvns_pair_law(jx, 3, 21, 6, safe=safe)
    check_law(pairs, probs, label=f"rvns x={x} safe={safe}")
    # the points every band covers never appear, all the others do
    covered = set(range(max(starts), min(starts) + 6 + 1))
    seen = set(np.unique(pairs).tolist())
    assert covered == set(range(first, last + 1)) - seen


@pytest.mark.parametrize(("x", "jx"), RVNS_INPUTS, ids=RVNS_IDS)
def test_rvns_grid_law(monkeypatch, x, jx):
    """The paper's placement: the band is shifted to stay inside ``[a, b]``."""
    transition, grid = _rvns_grid(monkeypatch)
    _check_rvns(transition.sample_rvns_grid, grid, x, jx, safe=False)


@pytest.mark.parametrize(("x", "jx"), RVNS_INPUTS, ids=RVNS_IDS)
def test_rvns_boundary_safe_grid_law(monkeypatch, x, jx):
    """The boundary-safe placement: the band never moves, reports reach ``d`` out."""
    transition, grid = _rvns_grid(monkeypatch)
    sampler = getattr(transition, "sample_rvns_grid_safe", None)
    if sampler is None:
        pytest.skip("this version has no boundary-safe grid sampler")
    _check_rvns(sampler, grid, x, jx, safe=True)


def test_chi_square_check_rejects_a_one_step_shift():
    """The check itself: a law shifted by one atom is rejected."""
    rng = np.random.default_rng(0)
    s = 6.0
    probs = {j: rounded_laplace(j, s) for j in range(-150, 151)}
    support = np.array(list(probs))
    weights = np.array(list(probs.values()))
    draws = rng.choice(support, size=N_DRAWS, p=weights / weights.sum())
    check_law(draws, probs)
    with pytest.raises(AssertionError):
        check_law(draws + 1, probs)
