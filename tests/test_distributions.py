import numpy as np
import pytest
from scipy import stats

from skprivate.distributions import DiscreteDistribution, PiecewiseUniformDistribution


def test_discrete_matches_direct_computation():
    d = DiscreteDistribution([3.0, -1.0, 2.0], [0.2, 0.5, 0.3])
    np.testing.assert_allclose(d.support, [-1, 2, 3])
    assert d.mean() == pytest.approx(0.5 * -1 + 0.3 * 2 + 0.2 * 3)
    assert d.moment(2) == pytest.approx(0.5 + 0.3 * 4 + 0.2 * 9)
    np.testing.assert_allclose(d.cdf([-2, -1, 0, 2, 3, 4]), [0, 0.5, 0.5, 0.8, 1, 1])
    np.testing.assert_allclose(d.quantile([0, 0.5, 0.50001, 0.8, 1]), [-1, -1, 2, 2, 3])
    np.testing.assert_allclose(d.pmf([2.0, 2.5]), [0.3, 0.0])
    assert d.expect(np.abs) == pytest.approx(0.5 + 0.6 + 0.6)
    with pytest.raises(TypeError, match="pmf"):
        d.pdf(0.0)


def test_discrete_sampling_frequencies():
    d = DiscreteDistribution([0.0, 1.0, 2.0], [0.2, 0.3, 0.5])
    x = d.sample(100_000, random_state=0)
    freq = np.array([(x == v).mean() for v in (0.0, 1.0, 2.0)])
    se = np.sqrt(d.weights * (1 - d.weights) / x.size)
    assert np.all(np.abs(freq - d.weights) < 4 * se)


@pytest.mark.parametrize(
    "support, weights, match",
    [
        ([0, 0], [1, 1], "distinct"),
        ([0, np.inf], [1, 1], "finite"),
        ([0, 1], [1, -1], "non-negative"),
        ([0, 1], [0, 0], "positive sum"),
        ([0, 1], [1], "one entry per atom"),
    ],
)
def test_discrete_errors(support, weights, match):
    with pytest.raises(ValueError, match=match):
        DiscreteDistribution(support, weights)


def test_piecewise_uniform_against_uniform_mixture():
    d = PiecewiseUniformDistribution([0.0, 1.0, 3.0], [0.25, 0.75])
    np.testing.assert_allclose(
        d.pdf([-1, 0, 0.5, 1, 2.9, 3, 3.1]), [0, 0.25, 0.25, 0.375, 0.375, 0.375, 0]
    )
    np.testing.assert_allclose(d.cdf([0, 0.5, 1, 2, 3]), [0, 0.125, 0.25, 0.625, 1])
    np.testing.assert_allclose(
        d.quantile([0.125, 0.25, 0.625, 1.0]), [0.5, 1.0, 2.0, 3.0]
    )
    assert d.mean() == pytest.approx(0.25 * 0.5 + 0.75 * 2.0)
    second = 0.25 * (1 / 3) + 0.75 * (27 - 1) / 6
    assert d.moment(2) == pytest.approx(second)
    assert d.expect(lambda x: x**2) == pytest.approx(second)
    assert d.expect(np.exp) == pytest.approx(
        0.25 * (np.e - 1) + 0.75 * (np.exp(3) - np.e) / 2
    )


def test_piecewise_uniform_quantile_skips_empty_cells():
    d = PiecewiseUniformDistribution([0.0, 1.0, 2.0, 3.0], [0.5, 0.0, 0.5])
    np.testing.assert_allclose(d.quantile([0.5, 0.75]), [1.0, 2.5])
    np.testing.assert_allclose(d.cdf(d.quantile([0.1, 0.9])), [0.1, 0.9])


def test_piecewise_uniform_samples_follow_the_density():
    d = PiecewiseUniformDistribution(np.linspace(0, 1, 11), np.arange(1, 11))
    x = d.sample(20_000, random_state=1)
    assert stats.kstest(x, d.cdf).pvalue > 0.01


def test_quantile_levels_validated():
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        PiecewiseUniformDistribution([0, 1], [1]).quantile(1.5)


def test_population_estimate_mixin_delegates_and_requires_fit():
    from sklearn.base import BaseEstimator
    from sklearn.exceptions import NotFittedError

    from skprivate.distributions import PopulationEstimate, PopulationEstimateMixin

    class Empirical(PopulationEstimateMixin, BaseEstimator):
        def fit(self, x):
            self.values_ = np.unique(x, return_counts=True)
            return self

        def _distribution(self):
            return DiscreteDistribution(*self.values_)

    with pytest.raises(NotFittedError):
        Empirical().mean()
    est = Empirical().fit([1.0, 2.0, 2.0, 5.0])
    assert isinstance(est, PopulationEstimate)
    assert est.mean() == pytest.approx(2.5)
    assert est.var() == pytest.approx(np.var([1, 2, 2, 5]))
    assert est.std() == pytest.approx(np.std([1, 2, 2, 5]))
    assert est.median() == 2.0
    assert est.moment(3) == pytest.approx(np.mean(np.array([1, 2, 2, 5.0]) ** 3))
    assert set(est.sample(50, random_state=0)) <= {1.0, 2.0, 5.0}


def test_piecewise_uniform_top_quantile_is_the_support_end_despite_rounding():
    # Weights whose float cumulative sum falls short of 1 before the last edge.
    weights = np.full(10, 0.1)
    edges = np.linspace(0.0, 10.0, 11)
    d = PiecewiseUniformDistribution(edges, weights)
    assert d.quantile(1.0) == 10.0
    np.testing.assert_allclose(d.quantile([0.3, 0.55]), [3.0, 5.5])


@pytest.mark.parametrize("shift", [0.0, 1e4, 1e6, 1e9, -1e9])
def test_histogram_moments_hold_far_from_zero(shift):
    # A histogram of two cells on [shift, shift + 2], masses 1/4 and 3/4:
    # mean shift + 1.25, variance 1/12 + 3/16 (cell spread plus midpoints').
    d = PiecewiseUniformDistribution(shift + np.array([0.0, 1.0, 2.0]), [0.25, 0.75])
    assert d.mean() - shift == pytest.approx(1.25, abs=1e-12 * max(1.0, abs(shift)))
    assert d.var() == pytest.approx(1 / 12 + 3 / 16, rel=1e-9)
    # raw moments: E[X^k] of the same law, by exact rational arithmetic
    from fractions import Fraction

    for k in (1, 2, 3):
        want = sum(
            Fraction(p)
            * sum(Fraction(a) ** j * Fraction(a + 1) ** (k - j) for j in range(k + 1))
            / (k + 1)
            for a, p in ((shift, 0.25), (shift + 1.0, 0.75))
        )
        assert d.moment(k) == pytest.approx(float(want), rel=1e-12)


@pytest.mark.parametrize("shift", [0.0, 1e6, 1e9])
def test_population_variance_is_taken_around_the_mean(shift):
    from sklearn.base import BaseEstimator

    from skprivate.distributions import PopulationEstimateMixin

    values = shift + np.array([0.0, 0.5, 2.0])

    class Atoms(PopulationEstimateMixin, BaseEstimator):
        def fit(self):
            self.fitted_ = True
            return self

        def _distribution(self):
            return DiscreteDistribution(values, [0.5, 0.25, 0.25])

    class Cells(Atoms):
        def _distribution(self):
            return PiecewiseUniformDistribution(values, [0.5, 0.5])

    class Quadrature(Atoms):  # a representation without its own var
        def _distribution(self):
            dist = PiecewiseUniformDistribution(values, [0.5, 0.5])
            return type("NoVar", (), {"expect": dist.expect, "mean": dist.mean})()

    atoms = np.array([0.0, 0.5, 2.0])
    want_atoms = np.dot(
        [0.5, 0.25, 0.25], (atoms - np.dot([0.5, 0.25, 0.25], atoms)) ** 2
    )
    assert Atoms().fit().var() == pytest.approx(want_atoms, rel=1e-9)
    mids, widths = np.array([0.25, 1.25]), np.array([0.5, 1.5])
    want_cells = np.dot([0.5, 0.5], (mids - mids.mean()) ** 2 + widths**2 / 12)
    assert Cells().fit().var() == pytest.approx(want_cells, rel=1e-9)
    # the quadrature nodes carry the rounding of values near ``shift``
    assert Quadrature().fit().var() == pytest.approx(want_cells, rel=1e-7)
    assert Cells().fit().std() == pytest.approx(np.sqrt(want_cells), rel=1e-9)
