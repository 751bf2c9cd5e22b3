"""Privacy coverage: estimators vs Monte Carlo and closed forms (SPEC 1.5)."""

import numpy as np
import pytest
from scipy import integrate, stats

from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalEnsemble,
    IntervalMechanism,
    average_coverage,
    composition_bound,
    estimate_coverage,
    individual_coverage,
)


def _case_one_exact():
    def f(u):
        return (stats.norm.cdf(u) ** 2 + stats.norm.sf(u) ** 2) * stats.logistic.pdf(u)

    return integrate.quad(f, -np.inf, np.inf)[0]


def test_case_one_estimator_matches_quadrature_and_simulation():
    exact = _case_one_exact()
    assert abs(exact - 0.7605) < 5e-4  # SPEC 1.5: 0.7606 / 0.7602
    rng = np.random.default_rng(0)
    n = 40000
    y = rng.normal(size=(n, 1))
    Z, Q = IntervalCaseI(random_state=1).fit(y).transform(y, return_anchors=True)
    tau, se = estimate_coverage(Q[:, 0, :], stats.norm(), return_std=True)
    assert abs(tau - exact) < 4 * se
    ind = individual_coverage(Z, stats.norm())
    assert abs(ind.mean() - exact) < 4 * ind.std() / np.sqrt(n)
    assert average_coverage(Z, stats.norm()) == pytest.approx(ind.mean())


def test_case_two_estimator_matches_simulation():
    rng = np.random.default_rng(1)
    n = 40000
    y = rng.normal(size=(n, 1))
    Z, Q = IntervalCaseII(random_state=2).fit(y).transform(y, return_anchors=True)
    tau, se = estimate_coverage(Q[:, 0, :], stats.norm(), return_std=True)
    ind = individual_coverage(Z, stats.norm())
    assert abs(tau - 0.6077) < 4 * se  # SPEC 1.5
    assert abs(ind.mean() - tau) < 4 * ind.std() / np.sqrt(n)
    u, v = Q[:, 0, 0], Q[:, 0, 1]
    F = stats.norm.cdf
    formula = np.mean(F(u) ** 2 + (F(v) - F(u)) ** 2 + (1 - F(v)) ** 2)
    assert tau == pytest.approx(formula)


def test_privacy_summary_reports_expected_coverage():
    assert IntervalCaseI().privacy_summary()["coverage"] == pytest.approx(
        _case_one_exact(), abs=2e-3
    )
    assert IntervalCaseII().privacy_summary()["coverage"] == pytest.approx(
        0.6077, abs=3e-3
    )
    # Table II mechanisms on standardized Y (SPEC 1.5): M2 0.759, M3 0.944, M1 0.40.
    assert IntervalCaseII(scale=2.0).privacy_summary()["coverage"] == pytest.approx(
        0.759, abs=3e-3
    )
    assert IntervalCaseI(scale=5.0).privacy_summary()["coverage"] == pytest.approx(
        0.944, abs=3e-3
    )
    m1 = IntervalMechanism(offsets=[-1, 1], exact_cells=[1]).privacy_summary()
    assert m1["coverage"] == pytest.approx(0.40, abs=5e-3)
    assert m1["exact_disclosure"] is True
    # Coverage is scale-free under the standardization.
    s = IntervalCaseI(anchor_loc=70, anchor_scale=10).privacy_summary()
    assert s["coverage"] == pytest.approx(_case_one_exact(), abs=2e-3)
    # A user-given reference sample.
    ref = np.random.default_rng(0).normal(size=5000)
    assert IntervalCaseI().privacy_summary(ref)["coverage"] == pytest.approx(
        0.7605, abs=5e-3
    )


def test_exact_reports_and_acceptable_range_remove_coverage():
    Z = np.array([[1.0, 1.0], [-np.inf, 0.0], [-1.0, 1.0]])
    cov = individual_coverage(Z, stats.norm(), acceptable_range=(0.0, 0.5))
    F = stats.norm.cdf
    np.testing.assert_allclose(cov, [0.0, 0.5, F(1) - F(-1) - (F(0.5) - F(0))])
    # M1 formula of SPEC 1.2: F(U-1)^2 + (1-F(U+1))^2.
    u = np.random.default_rng(0).logistic(size=2000)
    tau = estimate_coverage(
        np.column_stack([u - 1, u + 1]), stats.norm(), exact_cells=[1]
    )
    assert tau == pytest.approx(np.mean(F(u - 1) ** 2 + (1 - F(u + 1)) ** 2))


def test_composition_bound_holds_for_an_ensemble():
    members = [IntervalCaseI(scale=3.0), IntervalCaseII(scale=4.0)]
    taus = [m.privacy_summary()["coverage"] for m in members]
    bound = composition_bound(taus)
    ens = IntervalEnsemble(members).privacy_summary()["coverage"]
    assert ens >= bound - 3e-3
    assert ens <= min(taus) + 3e-3
    assert composition_bound([0.9, 0.95]) == pytest.approx(0.85)
    assert composition_bound([0.5, 0.4]) == 0.0
    with pytest.raises(ValueError, match="coverages"):
        composition_bound([1.5])


def test_coverage_bad_inputs():
    with pytest.raises(ValueError, match="anchors"):
        estimate_coverage(np.array([[np.nan]]), stats.norm())
    with pytest.raises(ValueError, match="lower > upper"):
        individual_coverage([[1.0, 0.0]], stats.norm())
