"""Exact audits (``skprivate.audit``) against brute-force enumeration.

The audit computes worst cases from the structure of each law (shift
invariance, monotone likelihood ratio, two-level bands); here the grid
resolution constants are lowered so that the same code builds laws of a few
inputs and a few thousand outputs, and every input pair and every output is
enumerated independently.  Planted bugs (an input range one step too wide,
an off-by-one clamp) must be caught.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import special, stats

import skprivate
from skprivate import (
    IntervalCaseI,
    LaplaceLDP,
    RVNSPerturber,
    SubsetUniform,
)
from skprivate._audit import (
    BandLaw,
    MatrixLaw,
    RoundedNoise,
    ShiftLaw,
    audited_columns,
    log_upper_gamma,
)
from skprivate.ldp import FlippedHuberLDP, GeneralizedGaussianLDP, SquareWaveLDP

EPSILONS = [0.1, 1.0, 10.0, 100.0]
ONE = ((0.2,), (2.7,))
TWO = ([0.2, -1.0], [2.7, 3.1])


def brute_force(log_prob, epsilon=None):
    """Loss and delta by enumerating every ordered input pair and output."""
    log_prob = np.asarray(log_prob, dtype=float)
    prob = np.exp(log_prob)
    finite = np.isfinite(log_prob)
    loss, delta = -np.inf, 0.0
    for i in range(log_prob.shape[0]):
        # input i against every input i2 at once
        if np.any(finite[i][None, :] & ~finite):
            loss = np.inf
        both = finite[i][None, :] & finite
        with np.errstate(invalid="ignore"):
            diff = np.where(both, log_prob[i][None, :] - log_prob, -np.inf)
        loss = max(loss, float(diff.max()))
        if epsilon is not None:
            terms = prob[i][None, :] - math.exp(epsilon) * prob
            delta = max(delta, float(np.where(terms > 0, terms, 0.0).sum(axis=1).max()))
    return loss, delta


def small_model(monkeypatch, cls, epsilon, bounds):
    from skprivate.ldp import _additive, _laplace, _square_wave

    # fewer steps at epsilon 100, where the grids are finer per range
    monkeypatch.setattr(_laplace, "GRID_BITS", 1 if epsilon < 50 else 0)
    monkeypatch.setattr(_additive, "GRID_BITS", 2 if epsilon < 50 else 0)
    monkeypatch.setattr(_square_wave, "GRID_BITS", 3)
    monkeypatch.setattr(_square_wave, "MAX_GRID_INDEX", 2.0**8)
    model = cls(epsilon=epsilon, bounds=bounds, random_state=0)
    return model.fit(np.zeros((1, len(bounds[0]))))


LDP_CLASSES = [LaplaceLDP, GeneralizedGaussianLDP, FlippedHuberLDP, SquareWaveLDP]


@pytest.mark.parametrize("bounds", [ONE, TWO], ids=["1col", "2col"])
@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("cls", LDP_CLASSES, ids=lambda c: c.__name__)
def test_audit_matches_brute_force(monkeypatch, cls, epsilon, bounds):
    model = small_model(monkeypatch, cls, epsilon, bounds)
    rows = audited_columns(model)
    assert len(rows) == len(bounds[0])
    for j, row in enumerate(rows):
        law = model._exact_law(j)
        matrix = law.to_matrix()
        assert matrix.shape[0] <= 1000 and matrix.shape[1] < 20_000
        np.testing.assert_allclose(np.exp(matrix).sum(axis=1), 1.0, rtol=1e-12)
        claimed_delta = row["claimed_delta"]
        loss, delta = brute_force(matrix, row["claimed_epsilon"])
        assert row["audited_epsilon"] == pytest.approx(loss, rel=1e-9), j
        if claimed_delta is not None:
            assert row["audited_delta"] == pytest.approx(delta, rel=1e-9, abs=1e-300)
            assert delta > 0  # a non-trivial (epsilon, delta) comparison
        else:
            assert delta <= 1e-12  # a pure claim: nothing above e**epsilon
        low, high = model.bounds_[0][j], model.bounds_[1][j]
        assert set(row["worst_inputs"]) == {low, high}


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize("cls", [LaplaceLDP, SquareWaveLDP], ids=lambda c: c.__name__)
@pytest.mark.parametrize("bounds", [((0.0,), (1.0,)), ([17.0, 0.3], [90.0, 0.9])])
def test_pure_claims_respected_at_defaults(cls, epsilon, bounds):
    model = cls(epsilon=epsilon, bounds=bounds).fit(np.zeros((1, len(bounds[0]))))
    report = skprivate.audit(model)
    assert report["respected"].tolist() == [True] * len(bounds[0])
    assert (report["audited_epsilon"] <= report["claimed_epsilon"]).all()
    if cls is LaplaceLDP or epsilon < 50:
        # the claim is tight on these grids
        np.testing.assert_allclose(
            report["audited_epsilon"], report["claimed_epsilon"], rtol=1e-6
        )


def test_square_wave_coin_floor_at_epsilon_100():
    """At epsilon 100 the far probability is below the coin's 2**-53: the
    sampler realises 2**-53, so the exact loss is ``log((1 - 2**-53) n /
    2**-53)`` with ``W = 0``, below the claim."""
    model = SquareWaveLDP(epsilon=100.0, bounds=(0, 1)).fit([[0.0]])
    n, half = model._n_cells, model._half_cells
    assert half == 0 and model._p_far < 2.0**-53
    want = math.log1p(-(2.0**-53)) + math.log(n) + 53 * math.log(2.0)
    row = audited_columns(model)[0]
    assert row["audited_epsilon"] == pytest.approx(want, rel=1e-14)
    assert row["respected"]


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize(
    "cls", [GeneralizedGaussianLDP, FlippedHuberLDP], ids=lambda c: c.__name__
)
def test_additive_delta_within_claim_precision(cls, epsilon):
    """The claimed delta is the exact delta of the grid law, rounded up.

    The privatizer settles its delta at fit with the audit's 40-digit
    computation and reports it rounded up by one part in 1e12; a claim
    computed in double precision alone fell short by up to 1e-6 relative.
    """
    model = cls(epsilon=epsilon, bounds=TWO).fit(np.zeros((1, 2)))
    for row in audited_columns(model):
        assert row["audited_delta"] <= row["claimed_delta"]
        assert row["claimed_delta"] <= row["audited_delta"] * (1 + 2e-12)


@pytest.mark.parametrize("epsilon", EPSILONS)
@pytest.mark.parametrize(
    "cls", [GeneralizedGaussianLDP, FlippedHuberLDP], ids=lambda c: c.__name__
)
def test_additive_delta_claims_strict(cls, epsilon):
    model = cls(epsilon=epsilon, bounds=TWO).fit(np.zeros((1, 2)))
    assert all(row["respected"] for row in audited_columns(model))


def test_laplace_law_matches_the_documented_formula(monkeypatch):
    """Rows of the law against ``P(N = n) = e**(-|n|/s) sinh(1/(2s))``."""
    model = small_model(monkeypatch, LaplaceLDP, 1.0, ONE)
    from skprivate.ldp import _laplace

    monkeypatch.setattr(_laplace, "GRID_BITS", 2)
    model.fit(np.zeros((1, 1)))
    law = model._exact_law(0)
    assert (law.a, law.b, law.c_lo, law.c_hi) == (0, 5, -120, 126)  # rint(2.7/.5) = 5
    s = 6.0
    matrix = np.exp(law.to_matrix())
    for k in range(law.a, law.b + 1):
        m = np.arange(law.c_lo + 1, law.c_hi)
        n = m - k
        want = np.where(
            n == 0, -np.expm1(-0.5 / s), np.exp(-np.abs(n) / s) * np.sinh(0.5 / s)
        )
        np.testing.assert_allclose(matrix[k, 1:-1], want, rtol=1e-12)
        assert matrix[k, 0] == pytest.approx(0.5 * math.exp(-(k + 120 - 0.5) / s))
    # the audit: (b - a) / s on the clamp, below the claim (K = 6 steps)
    row = audited_columns(model)[0]
    assert row["audited_epsilon"] == pytest.approx(5 / 6, rel=1e-14)
    assert row["worst_inputs"] == (0.2, 2.7)
    assert row["worst_output"] == -60.0


def test_generalized_gaussian_law_matches_scipy(monkeypatch):
    model = small_model(monkeypatch, GeneralizedGaussianLDP, 1.0, ONE)
    law = model._exact_law(0)
    noise = model.noise_[0]
    gennorm = stats.gennorm(noise.power, scale=noise.scale)
    step = model.grid_step_[0]
    matrix = np.exp(law.to_matrix())
    m = np.arange(law.c_lo + 1, law.c_hi)
    for k in (0, 2, law.b):
        n = m - k
        # upper tails from sf: no cancellation against 1 on either side
        want = np.where(
            n > 0,
            gennorm.sf((n - 0.5) * step) - gennorm.sf((n + 0.5) * step),
            gennorm.cdf((n + 0.5) * step) - gennorm.cdf((n - 0.5) * step),
        )
        big = want > 1e-12
        np.testing.assert_allclose(matrix[k, 1:-1][big], want[big], rtol=1e-9)


def test_log_upper_gamma_far_tail():
    """The continued fraction agrees with scipy where both hold, and with
    ``Q(1, x) = e**-x`` and ``Q(1/2, x) = erfc(sqrt(x))`` far beyond."""
    x = np.array([2.5, 10.0, 80.0, 300.0])
    for a in (1.0, 0.5, 0.25):
        from skprivate._audit import _numeric

        direct = np.log(special.gammaincc(a, x))
        old = _numeric._DIRECT_FLOOR
        try:
            _numeric._DIRECT_FLOOR = 2.0  # force the continued fraction
            fraction = log_upper_gamma(a, x)
        finally:
            _numeric._DIRECT_FLOOR = old
        np.testing.assert_allclose(fraction, direct, rtol=1e-13)
    far = np.array([1e3, 1e5])
    np.testing.assert_allclose(log_upper_gamma(1.0, far), -far, rtol=1e-15)
    want = special.log_ndtr(-np.sqrt(2 * far)) + np.log(2.0)
    np.testing.assert_allclose(log_upper_gamma(0.5, far), want, rtol=1e-12)


def test_epsilon_100_has_no_cancellation():
    """At epsilon 100 the clamp ratio is e**100 and delta at 99 is exact."""
    s, K, M = 0.1, 10, 5

    def log_cdf(t):
        return np.log(0.5) + np.asarray(t, dtype=float) / s

    noise = RoundedNoise(log_cdf)
    law = ShiftLaw(0, K, -M, K + M, noise)
    assert law.worst_epsilon().value == pytest.approx(K / s, rel=1e-12)
    loss, delta = brute_force(law.to_matrix(), 99.0)
    assert loss == pytest.approx(100.0, rel=1e-12)
    assert law.worst_delta(99.0).value == pytest.approx(delta, rel=1e-9)
    assert delta > 0


@pytest.mark.parametrize("K,W", [(1, 0), (5, 1), (8, 2), (3, 4)])
@pytest.mark.parametrize("r", [0.7, -0.4])
def test_band_law_matches_brute_force(K, W, r):
    # q (2W + 1) e**r + q K = 1
    log_far = -math.log((2 * W + 1) * math.exp(r) + K)
    law = BandLaw(K, W, log_far, r)
    for eps in (0.0, 0.3, 1.0):
        loss, delta = brute_force(law.to_matrix(), eps)
        assert law.worst_epsilon().value == pytest.approx(loss, rel=1e-12)
        assert law.worst_delta(eps).value == pytest.approx(delta, rel=1e-9, abs=1e-15)


def test_matrix_law_matches_brute_force():
    rng = np.random.default_rng(0)
    table = rng.dirichlet(np.ones(7), size=5)
    table[1, 3] = 0.0
    table[1] /= table[1].sum()
    table[2, [0, 3]] = 0.0
    table[2] /= table[2].sum()
    law = MatrixLaw(np.log(table))
    loss, _ = brute_force(np.log(table))
    assert law.worst_epsilon().value == loss == np.inf
    finite = MatrixLaw(np.log(table[[0, 3, 4]]))
    for eps in (0.0, 0.5, 2.0):
        loss, delta = brute_force(np.log(table[[0, 3, 4]]), eps)
        assert finite.worst_epsilon().value == pytest.approx(loss, rel=1e-12)
        assert finite.worst_delta(eps).value == pytest.approx(delta, rel=1e-12)


@pytest.mark.parametrize("alpha", [0.05, 0.2, 0.4])
@pytest.mark.parametrize("p", [2, 3, 4, 6])
def test_subset_dummies_closed_form(alpha, p):
    """With dummies a report ``B`` has ``alpha nu_B`` from a category outside
    ``B`` and ``alpha nu_B + (1 - 2 alpha) nu_B`` from one inside (the
    uniform design is symmetric, ``nu_B = nu_{B^c}``): the loss is
    ``log((1 - alpha) / alpha)``, attained by a category in ``B`` against
    one outside it."""
    cats = [f"c{i}" for i in range(p)]
    model = SubsetUniform(categories=[cats], min_coverage=alpha).fit([[cats[0]]])
    row = audited_columns(model)[0]
    assert row["audited_epsilon"] == pytest.approx(math.log((1 - alpha) / alpha))
    inside, outside = row["worst_inputs"]
    members = row["worst_output"].split(" + ")[0].strip("{}").split(", ")
    assert inside in members and outside not in members
    law = model._exact_law(0)
    loss, _ = brute_force(law.log_prob)
    assert row["audited_epsilon"] == pytest.approx(loss, rel=1e-12)


def test_subset_without_dummies_is_infinite_two_columns():
    cats = [list("abcd"), list("pqrst")]
    model = SubsetUniform(categories=cats).fit([["a", "p"]])
    report = skprivate.audit(model)
    assert report["audited_epsilon"].tolist() == [np.inf, np.inf]
    assert report["respected"].isna().all()


def test_planted_off_by_one_input_range_is_caught():
    """A sampler whose inputs reach one step past the range breaks the claim."""
    K, eps, M = 6, 1.0, 40
    s = K / eps

    def log_cdf(t):
        return np.log(0.5) + np.asarray(t, dtype=float) / s

    good = ShiftLaw(0, K, -M, K + M, RoundedNoise(log_cdf))
    assert good.worst_epsilon().value <= eps
    bad = ShiftLaw(0, K + 1, -M, K + 1 + M, RoundedNoise(log_cdf))
    assert bad.worst_epsilon().value == pytest.approx((K + 1) / s)
    assert bad.worst_epsilon().value > eps


def test_planted_off_by_one_clamp_is_caught():
    """One input's clamp one step inside: its lowest output becomes impossible."""
    K, eps, M = 4, 1.0, 30
    s = K / eps

    def log_cdf(t):
        return np.log(0.5) + np.asarray(t, dtype=float) / s

    matrix = ShiftLaw(0, K, -M, K + M, RoundedNoise(log_cdf)).to_matrix()
    assert MatrixLaw(matrix).worst_epsilon().value == pytest.approx(eps)
    broken = matrix.copy()
    # input K clamps at -M + 1: the mass of -M moves up one output
    broken[K, 1] = np.logaddexp(broken[K, 0], broken[K, 1])
    broken[K, 0] = -np.inf
    worst = MatrixLaw(broken).worst_epsilon()
    assert worst.value == np.inf and worst.inputs == (0, K) and worst.output == 0


def test_continuous_samplers_are_not_auditable():
    for cls in LDP_CLASSES:
        model = cls(epsilon=1.0, bounds=(0, 1), secure=False).fit([[0.5]])
        row = skprivate.audit(model).iloc[0]
        assert row["audited_epsilon"] is None and row["respected"] is None
        assert row["method"].startswith("not auditable: secure=False")


def test_interval_release_has_infinite_loss():
    model = IntervalCaseI(random_state=0).fit(np.zeros((5, 1)))
    row = skprivate.audit(model).iloc[0]
    assert row["audited_epsilon"] == np.inf
    u, v = row["worst_inputs"]
    assert u < v and row["respected"] is None


@pytest.mark.parametrize("placement", ["boundary_safe", "paper"])
def test_negative_survey_windowed_claim(placement):
    """The negative survey is audited on its own notion, windows of half-width
    delta (the ``privacy_summary`` delta, d / 20); brute-force checks are in
    ``tests/negative_survey/test_audit_windows.py``."""
    model = RVNSPerturber(bounds=(0, 10), placement=placement, k=2)
    row = skprivate.audit(model.fit(np.zeros((3, 1)))).iloc[0]
    assert np.isfinite(row["audited_epsilon"]) and row["respected"]
    assert row["audited_epsilon"] <= row["claimed_epsilon"]
    assert row["claimed_epsilon"] == model.privacy_summary()["epsilon"]
    assert "2 windows of half-width 0.1" in row["worst_output"]
    low, high = sorted(row["worst_inputs"])
    assert 0 <= low < high <= 10


def test_negative_survey_float_sampler_not_auditable():
    model = RVNSPerturber(bounds=(0, 10), secure=False).fit(np.zeros((3, 1)))
    row = skprivate.audit(model).iloc[0]
    assert row["audited_epsilon"] is None and row["respected"] is None
    assert row["method"].startswith("not auditable: secure=False")


def test_report_columns_and_note():
    model = LaplaceLDP(epsilon=2.0, bounds=([0, 18], [1, 90])).fit(np.zeros((1, 2)))
    report = skprivate.audit(model)
    assert list(report.columns) == [
        "column",
        "mechanism",
        "claimed_epsilon",
        "audited_epsilon",
        "claimed_delta",
        "audited_delta",
        "worst_inputs",
        "worst_output",
        "method",
        "respected",
    ]
    assert report["column"].tolist() == ["x0", "x1"]
    assert "never sampled" in report.attrs["note"]
    assert "audit" in skprivate.__all__


class TwoSidedGeometric:
    """``P(N = n)`` proportional to ``e**(l1 n)`` below 0 and ``e**(-l2 n)``
    above: log-concave and, for ``l1 != l2``, asymmetric, so the two
    directions of a pair (lower and upper clamps, lower and upper half-lines)
    give different figures."""

    def __init__(self, l1, l2):
        self.l1, self.l2 = l1, l2
        self.left = -math.log(-math.expm1(-l1))  # log sum_{n <= 0} e**(l1 n)
        self.right = -l2 - math.log(-math.expm1(-l2))  # log sum_{n >= 1}
        self.norm = np.logaddexp(self.left, self.right)

    def _below(self, n):  # log P(N <= n) for n <= 0
        return self.l1 * n + self.left - self.norm

    def _above(self, n):  # log P(N >= n) for n >= 1
        return -self.l2 * (n - 1) + self.right - self.norm

    def logcdf(self, n):
        n = np.asarray(n, dtype=float)
        from skprivate._audit import log1mexp

        return np.where(
            n <= 0,
            self._below(np.minimum(n, 0)),
            log1mexp(self._above(np.maximum(n, 0) + 1)),
        )

    def logsf(self, n):
        n = np.asarray(n, dtype=float)
        from skprivate._audit import log1mexp

        return np.where(
            n >= 1,
            self._above(np.maximum(n, 1)),
            log1mexp(self._below(np.minimum(n, 1) - 1)),
        )

    def logpmf(self, n):
        n = np.asarray(n, dtype=float)
        return np.where(n <= 0, self.l1 * n, -self.l2 * n) - self.norm


@pytest.mark.parametrize("l1,l2", [(0.3, 1.1), (1.1, 0.3), (0.05, 0.4)])
@pytest.mark.parametrize("clamps", [(-30, 37), (-9, 60)])
def test_asymmetric_shift_law_matches_brute_force(l1, l2, clamps):
    noise = TwoSidedGeometric(l1, l2)
    law = ShiftLaw(2, 9, clamps[0], clamps[1], noise)
    matrix = law.to_matrix()
    np.testing.assert_allclose(np.exp(matrix).sum(axis=1), 1.0, rtol=1e-12)
    loss, _ = brute_force(matrix)
    assert law.worst_epsilon().value == pytest.approx(loss, rel=1e-12)
    for eps in (0.0, 0.5, 0.9 * loss, 2.0):
        _, delta = brute_force(matrix, eps)
        assert law.worst_delta(eps).value == pytest.approx(delta, rel=1e-9, abs=1e-15)


def _flipped_huber_cdf(scale: float, beta: float):
    """P(Z <= t) of flipped Huber noise, written from its density at 40 digits."""
    import mpmath

    beta = mpmath.mpf(beta)
    with mpmath.workdps(40):
        mass = mpmath.exp(-beta / 2) * mpmath.sqrt(2 * mpmath.pi * beta)

    def below(u):  # unnormalized mass below u <= 0
        if u <= -beta:
            return mass * mpmath.ncdf(u / mpmath.sqrt(beta))
        return (
            mass * mpmath.ncdf(-mpmath.sqrt(beta)) + mpmath.exp(u) - mpmath.exp(-beta)
        )

    def cdf(t):
        u = mpmath.mpf(t) / scale
        total = 2 * below(mpmath.mpf(0))
        return below(u) / total if u <= 0 else 1 - below(-u) / total

    return cdf


@pytest.mark.parametrize(
    ("epsilon", "delta", "bounds"),
    [(30.0, 1e-9, (-5.0, 3.3)), (10.0, 1e-9, (17.0, 90.0)), (1.0, 1e-5, (0.0, 1.0))],
)
def test_flipped_huber_claim_is_the_exact_grid_delta(epsilon, delta, bounds):
    # An independent computation: the released integer is clip(k + rint(Z /
    # g)), the worst pair the two ends (k = 0 and k = n), the worst set a
    # half-line {m <= j}; the objective F((j + 1/2) g) - e**eps F((j + 1/2) g
    # - D) rises while the pmf ratio exceeds e**eps, found by bisection with
    # every comparison at 40 digits.  The double-precision profile the
    # calibration uses fell short of this by 1e-6 relative at epsilon 30.
    import mpmath

    model = FlippedHuberLDP(epsilon=epsilon, delta=delta, bounds=bounds)
    model.fit(np.zeros((1, 1)))
    law, g = model.noise_[0], float(model.grid_step_[0])
    n, M = int(model._n_cells[0]), int(model._margin[0])
    cdf = _flipped_huber_cdf(law.scale, law.beta)
    with mpmath.workdps(40):
        e = mpmath.exp(mpmath.mpf(epsilon))
        half = mpmath.mpf(1) / 2

        def objective(j):
            t = (j + half) * mpmath.mpf(g)
            return cdf(t) - e * cdf(t - n * mpmath.mpf(g))

        lo, hi = -M, n + M - 1
        while hi - lo > 1:
            mid = (lo + hi) // 2
            if objective(mid + 1) > objective(mid):
                lo = mid
            else:
                hi = mid
        exact = float(max(objective(lo), objective(hi)))
    claimed = model.privacy_summary()["delta"]
    assert exact <= claimed <= exact * (1 + 1e-11)
    assert claimed <= delta
