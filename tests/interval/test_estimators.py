"""Population estimates: NPMLE, parametric MLE, Example 2, optimal anchors."""

import numpy as np
import pytest
from scipy import stats
from sklearn.exceptions import ConvergenceWarning

from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalMechanism,
    IntervalMLE,
    IntervalNPMLE,
    optimal_anchor_density,
    turnbull_intervals,
    uniform_anchor_mean,
)


def _case_one(n, seed, **kw):
    y = np.random.default_rng(seed).normal(size=(n, 1))
    return y, IntervalCaseI(random_state=seed + 1, **kw).fit_transform(y)


def test_pava_npmle_estimates_the_cdf():
    _y, Z = _case_one(20000, 0)
    npmle = IntervalNPMLE().fit(Z)
    assert npmle.method_ == "pava"
    grid = np.linspace(-2, 2, 9)
    # Case-I NPMLE converges at rate n^{-1/3}: 0.05 is several standard errors.
    np.testing.assert_allclose(npmle.cdf(grid), stats.norm.cdf(grid), atol=0.05)
    assert abs(npmle.mean()) < 0.05
    assert abs(npmle.quantile(0.5)) < 0.1
    assert npmle.sample(10, random_state=0).shape == (10,)


def test_turnbull_agrees_with_pava_on_case_one_data():
    _, Z = _case_one(400, 1)
    a = IntervalNPMLE(method="pava").fit(Z)
    b = IntervalNPMLE(method="turnbull", tol=1e-9, max_iter=200000).fit(Z)
    assert b.converged_
    grid = np.linspace(-3, 3, 61)
    np.testing.assert_allclose(a.cdf(grid), b.cdf(grid), atol=1e-4)
    assert a.log_likelihood_ == pytest.approx(b.log_likelihood_, abs=1e-6)


def test_pava_is_the_likelihood_maximizer():
    _, Z = _case_one(300, 2)
    a = IntervalNPMLE().fit(Z)
    p = a.probabilities_
    rng = np.random.default_rng(0)
    for _ in range(20):  # random feasible perturbations never do better
        q = np.clip(p + rng.normal(scale=1e-3, size=p.size), 0, None)
        q /= q.sum()
        c = np.concatenate([[0.0], np.cumsum(q)])
        delta = np.isneginf(Z[:, 0])
        u = np.where(delta, Z[:, 1], Z[:, 0])
        Fu = c[np.searchsorted(np.unique(u), u) + 1]
        with np.errstate(divide="ignore", invalid="ignore"):
            ll = np.mean(np.where(delta, np.log(Fu), np.log1p(-Fu)))
        assert ll <= a.log_likelihood_ + 1e-12


def test_turnbull_on_case_two_and_mixed_data():
    y = np.random.default_rng(3).normal(loc=1.0, size=(3000, 1))
    Z2 = IntervalCaseII(anchor_loc=1.0, random_state=0).fit_transform(y)
    est = IntervalNPMLE().fit(Z2)
    assert est.method_ == "em-icm" and est.converged_
    assert abs(est.mean() - 1.0) < 0.1
    Z3 = IntervalMechanism(
        offsets=[-1, 1], exact_cells=[1], anchor_loc=1.0, random_state=0
    ).fit_transform(y)
    est3 = IntervalNPMLE().fit(Z3)
    assert abs(est3.mean() - 1.0) < 0.1
    assert abs(est3.cdf(1.0) - 0.5) < 0.05


def test_negative_support_and_infinite_bounds_are_native():
    y = -50 + np.random.default_rng(4).normal(size=(2000, 1))
    Z = IntervalCaseI(anchor_loc=-50, random_state=0).fit_transform(y)
    est = IntervalNPMLE().fit(Z)
    assert abs(est.mean() + 50) < 0.1


def test_turnbull_innermost_intervals_tie_rules():
    Z = [[-np.inf, 1.0], [1.0, np.inf], [1.0, 1.0], [0.0, 2.0]]
    # The exact point {1} and (1, 2], inside both (1, inf) and (0, 2].
    np.testing.assert_array_equal(turnbull_intervals(Z), [[1.0, 1.0], [1.0, 2.0]])
    Z = [[-np.inf, 1.0], [0.5, np.inf]]
    np.testing.assert_array_equal(turnbull_intervals(Z), [[0.5, 1.0]])


def test_npmle_warns_when_not_converged_and_rejects_bad_input():
    y = np.random.default_rng(5).normal(size=(200, 1))
    Z = IntervalCaseII(random_state=0).fit_transform(y)
    with pytest.warns(ConvergenceWarning, match="max_iter"):
        IntervalNPMLE(method="turnbull", max_iter=3).fit(Z)
    with pytest.raises(ValueError, match="Case-I"):
        IntervalNPMLE(method="pava").fit(Z)
    with pytest.raises(ValueError, match="lower > upper"):
        IntervalNPMLE().fit([[1.0, 0.0]])
    with pytest.raises(ValueError, match="no information"):
        IntervalNPMLE().fit([[-np.inf, np.inf]])


@pytest.mark.parametrize("family", ["normal", "logistic"])
def test_parametric_mle_recovers_parameters(family):
    dist = stats.norm(2.0, 1.5) if family == "normal" else stats.logistic(2.0, 1.5)
    y = dist.rvs(size=(5000, 1), random_state=0)
    Z = IntervalCaseII(anchor_loc=2.0, anchor_scale=1.5, random_state=0).fit_transform(
        y
    )
    mle = IntervalMLE(family=family).fit(Z)
    assert mle.loc_ == pytest.approx(2.0, abs=0.1)
    assert mle.scale_ == pytest.approx(1.5, abs=0.1)
    assert mle.cdf(2.0) == pytest.approx(0.5, abs=0.03)
    # Exact values alone: the ordinary MLE.
    exact = IntervalMLE().fit(y[:, 0])
    assert exact.loc_ == pytest.approx(y.mean(), abs=1e-4)


def test_example_two_mean_is_unbiased():
    # 300 replications of n = 200; the mean of the estimates is within 4 SE of E[Y].
    rng = np.random.default_rng(6)
    est = []
    for seed in range(300):
        y = rng.uniform(0.0, 1.0, size=(200, 1)) ** 2  # E[Y] = 1/3
        Z = IntervalCaseI(
            distribution="uniform", loc=0.0, scale=1.0, random_state=seed
        ).fit_transform(y)
        est.append(uniform_anchor_mean(Z, 0.0, 1.0))
    est = np.asarray(est)
    assert abs(est.mean() - 1 / 3) < 4 * est.std(ddof=1) / np.sqrt(est.size)
    _m, se = uniform_anchor_mean(Z, 0.0, 1.0, return_std=True)
    assert se > 0
    with pytest.raises(ValueError, match="Case-I"):
        uniform_anchor_mean([[0.0, 1.0]], 0.0, 1.0)


def test_optimal_anchor_density_theorem_six():
    g = optimal_anchor_density(stats.norm())
    u = np.linspace(-2, 2, 5)
    target = np.sqrt(stats.norm.cdf(u) * stats.norm.sf(u))
    ratio = g.pdf(u) / target
    np.testing.assert_allclose(ratio, ratio[0], rtol=0.02)
    g2 = optimal_anchor_density(stats.norm(), "second_moment")
    assert g2.pdf(0.0) < 0.05 * g2.pdf(1.5)
    # Usable directly as the anchor distribution of a mechanism.
    Z = IntervalCaseI(distribution=g, random_state=0).fit_transform(np.zeros((10, 1)))
    assert Z.shape == (10, 2)
    with pytest.raises(ValueError, match="functional"):
        optimal_anchor_density(stats.norm(), "median")
