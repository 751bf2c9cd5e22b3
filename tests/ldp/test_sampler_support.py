"""Every output of the grid samplers is reachable from every input.

A grid sampler is floating-point safe only if the set of outputs it can
produce is the same for every input in the bounds.  numpy's samplers have
finite ranges and sparse far tails (``standard_exponential`` never exceeds
``r - log(2**-53) = 44.43`` and above ``r = 7.697`` its values are
``2**-53 e**(x - r)`` apart), so at large budgets an output next to one
input could lie beyond the reach of another.

These tests evaluate the samplers' own arithmetic on draws that numpy's
samplers can return: a stand-in generator answers each call with chosen
values, each of them a value the real sampler produces with positive
probability (derived below from numpy's algorithms), and the test checks
that the release hits a given grid output exactly.  For each input at the
bounds and each target output across the whole clamped output range, some
such draws must produce it.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from skprivate import LaplaceLDP
from skprivate.ldp import FlippedHuberLDP, GeneralizedGaussianLDP, SquareWaveLDP
from skprivate.ldp._noise_laws import FlippedHuberNoise, GeneralizedGaussianNoise

# numpy's exponential ziggurat (random_standard_exponential_zig): a 64-bit word
# gives idx = bits 3..10 and ri = bits 11..63; idx 0 with ri < KE0 returns
# ri * WE0 (values below R), idx 0 with ri >= KE0 returns R - log(1 - U) with
# U = (word >> 11) * 2**-53 a fresh 53-bit uniform.
ZIG_R = 7.69711747013104972
WE0 = 9.655740063209182975e-16
KE0 = 0x001C5214272497C6
ULP = 2.0**-53
EXP_MAX = ZIG_R - math.log(ULP)  # U = 1 - 2**-53, the largest value
# cap of the exponentials of the tail samplers (FINE_EXPONENTIAL_CAP)
FINE_CAP = 7.5


def exponential_value(t: float) -> float:
    """A value numpy's standard exponential returns, the nearest one to ``t``."""
    if t < (KE0 - 1) * WE0:
        return min(max(round(t / WE0), 0), KE0 - 1) * WE0
    j = round(-math.expm1(ZIG_R - t) / ULP)
    j = min(max(j, 0), 2**53 - 1)
    return ZIG_R - math.log(1.0 - j * ULP)


def exponential_above(t: float) -> float:
    """The smallest value numpy's standard exponential returns at or above ``t``."""
    if t <= (KE0 - 1) * WE0:
        return max(math.ceil(t / WE0), 0) * WE0
    j = max(math.ceil(-math.expm1(ZIG_R - t) / ULP) - 1, 0)
    while ZIG_R - math.log(1.0 - j * ULP) < t:
        j += 1
    return ZIG_R - math.log(1.0 - j * ULP)


def uniform_value(t: float) -> float:
    """The 53-bit uniform of ``Generator.random`` nearest to ``t``."""
    return min(max(round(t / ULP), 0), 2**53 - 1) * ULP


def gamma_value(shape: float, u: float, step: int = 0) -> float:
    """A value ``g`` of numpy's ``standard_gamma(shape)`` with ``g**shape`` near ``u``.

    ``shape <= 1``; for ``shape < 1`` numpy draws ``U`` and ``V`` (exponential)
    and returns ``U**(1/shape)`` if ``U <= 1 - shape`` and that is ``<= V``,
    else ``(1 - shape + shape Y)**(1/shape)`` with ``Y = -log((1 - U) / shape)``
    if that is ``<= V + Y``.  ``step`` moves to a neighbouring uniform.
    """
    a = shape
    if a == 1.0:
        return exponential_value(u) + step * WE0
    if u <= 1.0 - a:
        U = uniform_value(u) + step * ULP
        return U ** (1.0 / a)
    y = (u - 1.0 + a) / a
    i = max(round(a * math.exp(-y) / ULP) - step, 1)
    U = 1.0 - i * ULP
    Y = -math.log((1.0 - U) / a)
    X = (1.0 - a + a * Y) ** (1.0 / a)
    if X > EXP_MAX + Y:
        raise ValueError("not a value numpy's gamma sampler accepts")
    return X


class Scripted:
    """Stand-in for ``numpy.random.Generator`` answering from queues.

    Each method pops the next entry of its queue (broadcast to the requested
    shape) and falls back to its default once the queue is empty.
    """

    def __init__(self, **queues):
        self.queues = {name: list(values) for name, values in queues.items()}
        self.defaults = {"standard_exponential": 0.0, "random": 0.0}

    def _next(self, name, size):
        queue = self.queues.get(name, [])
        value = queue.pop(0) if queue else self.defaults[name]
        shape = () if size is None else size
        return np.broadcast_to(np.asarray(value, dtype=float), shape).copy()

    def standard_exponential(self, size=None):
        out = self._next("standard_exponential", size)
        assert np.all((out >= 0) & (out <= EXP_MAX))
        return out

    def random(self, size=None):
        out = self._next("random", size)
        assert np.all((out >= 0) & (out <= 1 - ULP))
        return out

    def gamma(self, shape, scale=1.0, size=None):
        return self._next("gamma", size)

    def integers(self, low, high=None, size=None, endpoint=False):
        out = self._next("integers", size)
        top = high if endpoint else high - 1
        assert np.all((out >= low) & (out <= top))
        return out.astype(np.int64)


def exponential_chain(t: float, cap: float) -> list[float]:
    """Draws making a capped exponential (see ``standard_exponential``) near ``t``.

    Beyond ``cap`` the sampler adds ``cap`` per draw above ``cap`` and ends on
    the first draw below it: ``EXP_MAX`` (reachable, above every cap) ``R``
    times, then a value near ``t - R cap``.
    """
    repeats = int(t // cap)
    rest = exponential_above(t - repeats * cap)
    if rest > cap:  # the last draw must stay at or below cap
        repeats, rest = repeats + 1, exponential_above(t - (repeats + 1) * cap)
    return [EXP_MAX] * repeats + [rest]


def spread(lo: int, hi: int, count: int, seed: int) -> list[int]:
    """Both ends, their neighbours and ``count`` random integers of ``[lo, hi]``."""
    inner = np.random.default_rng(seed).integers(lo, hi, size=count, endpoint=True)
    return sorted({lo, lo + 1, hi - 1, hi, *inner.tolist()})


# ---------------------------------------------------------------- Laplace


def laplace_grid(epsilon: float, low: float, high: float):
    """Step, index range, scale in steps and clamp of the documented grid."""
    unit = (high - low) / max(epsilon, 1.0)
    step = 2.0 ** (math.floor(math.log2(unit)) - 20)
    k_lo, k_hi = math.floor(low / step), math.ceil(high / step)
    scale = (k_hi - k_lo) / epsilon
    margin = math.ceil(20 * (k_hi - k_lo) / epsilon)
    return step, k_lo, k_hi, scale, margin


def laplace_output(model, x, first, refills):
    rng = Scripted(standard_exponential=[np.array(first).reshape(1, 1, 2), *refills])
    out = model._secure_noise(np.array([[x]]), rng)
    return round(float(out[0, 0]) / model.grid_step_[0])


def laplace_reaches(model, x, k, target, scale, cap):
    """Whether draws numpy can produce take input index ``k`` to ``target``."""
    need = (target - k) / scale
    for nudge in (0.0, 0.3, -0.3):
        t = abs(need) + nudge / scale
        if t < 0:
            continue
        chain = exponential_chain(t, cap)
        big = chain[-1] + cap * (len(chain) - 1)
        small = exponential_value(big - t)  # E2 ~ big - t >= 0, the fine lattice
        pair = [chain[0], small] if need >= 0 else [small, chain[0]]
        if laplace_output(model, x, pair, chain[1:]) == target:
            return True
    return False


LAPLACE_EPSILONS = [18, 25, 30, 40, 1000]


@pytest.mark.parametrize("epsilon", [*LAPLACE_EPSILONS, 1e6])
def test_laplace_clamps_are_reached_from_both_bounds(epsilon):
    """The extreme outputs ``(k_lo - M) g`` and ``(k_hi + M) g``, from each bound."""
    from skprivate.ldp import _laplace

    model = LaplaceLDP(epsilon=epsilon, bounds=(0.0, 1.0)).fit(np.zeros((1, 1)))
    step, k_lo, k_hi, scale, margin = laplace_grid(epsilon, 0.0, 1.0)
    assert model.grid_step_[0] == step
    cap = getattr(_laplace, "EXPONENTIAL_CAP", EXP_MAX)
    for x, k in [(0.0, k_lo), (1.0, k_hi)]:
        for target in (k_lo - margin, k_hi + margin):
            assert laplace_reaches(model, x, k, target, scale, cap), (x, target)


@pytest.mark.parametrize("epsilon", LAPLACE_EPSILONS)
def test_laplace_every_output_is_reachable_from_both_bounds(epsilon):
    from skprivate.ldp import _laplace

    model = LaplaceLDP(epsilon=epsilon, bounds=(0.0, 1.0)).fit(np.zeros((1, 1)))
    _, k_lo, k_hi, scale, margin = laplace_grid(epsilon, 0.0, 1.0)
    cap = getattr(_laplace, "EXPONENTIAL_CAP", EXP_MAX)
    targets = spread(k_lo - margin, k_hi + margin, 30, seed=int(epsilon))
    # the outputs where numpy's own range ends for the farther input
    for edge in (k_lo - round(EXP_MAX * scale), k_hi + round(EXP_MAX * scale)):
        targets += [edge - 1, edge, edge + 1]
    for x, k in [(0.0, k_lo), (1.0, k_hi)]:
        missed = [
            t
            for t in targets
            if k_lo - margin <= t <= k_hi + margin
            and not laplace_reaches(model, x, k, t, scale, cap)
        ]
        assert not missed, (x, missed[:5])


def test_numpy_exponential_range_is_as_derived():
    """The largest exponential numpy returns is ``EXP_MAX`` (44.43...)."""
    draws = np.random.default_rng(0).standard_exponential(2_000_000)
    assert draws.max() < EXP_MAX
    assert math.isclose(EXP_MAX, ZIG_R + 53 * math.log(2.0), rel_tol=1e-15)
    # the base strip's lattice (spacing (r + 1) / 2**53) ends at the tail start
    assert math.isclose(KE0 * WE0, ZIG_R, rel_tol=1e-14)
    assert math.isclose(WE0, (ZIG_R + 1) / 2**53, rel_tol=1e-14)


def test_capped_exponential_keeps_numpy_draws_and_extends_the_range():
    from skprivate.ldp._noise_laws import standard_exponential

    rng, ref = np.random.default_rng(3), np.random.default_rng(3)
    np.testing.assert_array_equal(
        standard_exponential(rng, (500, 2), cap=24.0),
        ref.standard_exponential((500, 2)),
    )
    chain = [EXP_MAX, EXP_MAX, EXP_MAX, 1.25]
    out = standard_exponential(Scripted(standard_exponential=chain), 1, cap=24.0)
    assert out[0] == 3 * 24.0 + 1.25 > EXP_MAX


# ------------------------------------------------- additive (GG, Flipped Huber)


def additive_output(model, x, queues):
    low, high = model.bounds_
    out = model._release(np.array([[x]]), low, high, Scripted(**queues))
    return round((float(out[0, 0]) - low[0]) / model.grid_step_[0])


def additive_reaches(model, x, target, bulk_queues, tail_queue):
    """Whether draws numpy can produce take ``x`` to grid output ``target``.

    ``bulk_queues(u, sign, step)`` gives the draws of the bulk sampler for a
    magnitude ``u`` (noise scales) and ``tail_queue(sign)`` draws whose bulk
    magnitude exceeds every tail start (the tail sampler then draws its
    exponentials, given here, and accepts on uniforms 0).
    """
    law = model.noise_[0]
    g = model.grid_step_[0]
    k = round((x - model.bounds_[0][0]) / g)
    noise = target - k
    sign = 0.75 if noise >= 0 else 0.25
    u = abs(noise) * g / law.scale
    for step in (0, 1, -1, 2, -2):
        try:
            queues = bulk_queues(u, sign, step)
        except ValueError:  # beyond the reach of numpy's sampler
            break
        if additive_output(model, x, queues) == target:
            return True
    start = getattr(law, "tail_start", np.inf)
    if u <= start:
        return False
    slope = law._rho_slope(start)
    for nudge in (0.0, 0.3, -0.3):
        e = (u + nudge * g / law.scale - start) * slope
        if e < 0:
            continue
        queues = tail_queue(sign)
        queues["standard_exponential"] = exponential_chain(e, FINE_CAP)
        if additive_output(model, x, queues) == target:
            return True
    return False


def gg_queues(power):
    a = 1.0 / power

    def bulk(u, sign, step):
        return {"gamma": [gamma_value(a, u, step)], "random": [sign]}

    def tail(sign):
        # the largest acceptable value of numpy's gamma: beyond any tail start
        return {"gamma": [gamma_value(a, 20.0**a * 1.5)], "random": [sign]}

    return bulk, tail


def fh_queues(beta, tail_start):
    from scipy import special

    centre_mass = -math.expm1(-beta)
    tail_mass = math.exp(-beta / 2) * math.sqrt(2 * math.pi * beta)
    tail_mass *= special.ndtr(-math.sqrt(beta))
    # the branch coin is U < P(centre): the tail branch needs some U above it
    tail_reachable = centre_mass / (centre_mass + tail_mass) <= 1.0 - ULP

    def bulk(u, sign, step):
        if u < beta:  # centre: u = -log(1 - v (1 - e**-beta))
            v = uniform_value(-math.expm1(-u) / centre_mass) + step * ULP
            return {"random": [0.0, min(max(v, 0.0), 1.0 - ULP), sign]}
        if not tail_reachable:
            raise ValueError("the tail branch is never drawn")
        # tail: Phi(-u / sqrt(beta)) = v Phi(-sqrt(beta))
        v = special.ndtr(-u / math.sqrt(beta)) / special.ndtr(-math.sqrt(beta))
        v = min(max(uniform_value(v) + step * ULP, 0.0), 1.0 - ULP)
        return {"random": [1.0 - ULP, v, sign]}

    def tail(sign):
        # the farthest value of the bulk sampler: v = 1 - 2**-53 in the centre,
        # or v = 0 in the tail branch
        top = -math.log1p(-(1.0 - ULP) * centre_mass)
        if top > tail_start:
            return {"random": [0.0, 1.0 - ULP, sign]}
        assert tail_reachable
        return {"random": [1.0 - ULP, 0.0, sign]}

    return bulk, tail


def additive_targets(model, seed):
    n, M = int(model._n_cells[0]), int(model._margin[0])
    law = model.noise_[0]
    targets = spread(-M, n + M, 24, seed)
    start = getattr(law, "tail_start", None)
    if start is not None and np.isfinite(start):
        edge = round(start * law.scale / model.grid_step_[0])
        for t in (edge - 1, edge, edge + 1, n - edge, n - edge - 1):
            if -M <= t <= n + M:
                targets.append(t)
    return n, M, sorted(set(targets))


def check_additive(model, queues, seed):
    _, _, targets = additive_targets(model, seed)
    low, high = model.bounds_[0][0], model.bounds_[1][0]
    for x in (low, high):
        missed = [t for t in targets if not additive_reaches(model, x, t, *queues)]
        assert not missed, (x, len(missed), missed[:5])


ADDITIVE_EPSILONS = [18, 25, 30, 40]


@pytest.mark.parametrize(
    ("epsilon", "power"),
    [(e, p) for p in (1.2, 2.0) for e in ADDITIVE_EPSILONS] + [(1000, 1.2)],
)
def test_generalized_gaussian_every_output_is_reachable(epsilon, power):
    model = GeneralizedGaussianLDP(epsilon=epsilon, power=power, bounds=(0.0, 1.0))
    model.fit(np.zeros((1, 1)))
    check_additive(model, gg_queues(power), seed=int(epsilon))


@pytest.mark.parametrize("epsilon", [*ADDITIVE_EPSILONS, 1000])
def test_flipped_huber_every_output_is_reachable(epsilon):
    model = FlippedHuberLDP(epsilon=epsilon, delta=1e-5, bounds=(0.0, 1.0))
    model.fit(np.zeros((1, 1)))
    law = model.noise_[0]
    queues = fh_queues(law.beta, getattr(law, "tail_start", np.inf))
    check_additive(model, queues, seed=int(epsilon))


def test_flipped_huber_refuses_budgets_below_its_resolution():
    with pytest.raises(ValueError, match="below the smallest budget the grid sampler"):
        FlippedHuberLDP(epsilon=1e-8, delta=1e-5, bounds=(0, 1)).fit(np.zeros((1, 1)))


@pytest.mark.parametrize(
    "law",
    [
        GeneralizedGaussianNoise(1.0, 1.0),
        GeneralizedGaussianNoise(1.0, 1.2),
        GeneralizedGaussianNoise(1.0, 2.0),
        FlippedHuberNoise(1.0, 0.7),
        FlippedHuberNoise(1.0, 3.0),
    ],
    ids=["gg1", "gg1.2", "gg2", "fh-narrow", "fh-wide"],
)
def test_tail_redraw_keeps_the_noise_law(law):
    """With the tail starting at the median of ``|Z|``, half the draws are redrawn.

    Their law must still be the noise law: the Kolmogorov distance of
    100,000 draws to the exact distribution function stays within the
    99.99 % band ``2.1 / sqrt(n)`` (KS critical value).
    """
    from scipy import optimize

    def abs_cdf(t):
        return 2.0 * np.exp(law.logcdf(np.asarray(t))) - 1.0

    median = optimize.brentq(lambda t: abs_cdf(t) - 0.5, 1e-9, 50.0)
    law.tail_start = median
    draws = np.abs(law.sample((100_000,), np.random.default_rng(11)))
    assert np.mean(draws > median) == pytest.approx(0.5, abs=4 * 0.5 / np.sqrt(1e5))
    xs = np.sort(draws)
    cdf = abs_cdf(xs)
    n = xs.size
    d = max(np.max(np.arange(1, n + 1) / n - cdf), np.max(cdf - np.arange(n) / n))
    assert d < 2.1 / np.sqrt(n), d


# ---------------------------------------------------------------- Square Wave


def square_wave_grid(epsilon):
    """Cells ``n`` and half band ``W`` from the documented construction."""
    e = epsilon
    # w underflows to 0 beyond e**700
    w = 0.0 if e > 700 else (e - 1 + math.exp(-e)) / (2 * (math.expm1(e) - e))
    n = 2.0**20
    if w < 2.0**-20:
        bits = math.ceil(-math.log2(w)) + 20 if w > 0 else math.inf
        n = 2.0 ** min(bits, 50)
    return int(n), math.floor(w * n)


@pytest.mark.parametrize("epsilon", [18, 25, 30, 40, 745, 1e4])
def test_square_wave_every_output_is_reachable(epsilon):
    model = SquareWaveLDP(epsilon=epsilon, bounds=(0.0, 1.0)).fit(np.zeros((1, 1)))
    n, W = square_wave_grid(epsilon)
    assert model.grid_step_[0] == 1.0 / n
    for x, k in [(0.0, 0), (1.0, n)]:
        for j in [*spread(-W, n + W, 20, seed=7), k - W - 1, k - W, k + W, k + W + 1]:
            if not -W <= j <= n + W:
                continue
            if abs(j - k) <= W:
                queues = {"random": [1.0 - ULP], "integers": [j - k + W, 0]}
            else:
                u = j + W if j < k else j - W - 1
                queues = {"random": [0.0], "integers": [0, u]}
            out = model._release(np.array([[x]]), 0.0, 1.0, Scripted(**queues))
            assert round(float(out[0, 0]) * n) == j, (x, j)
