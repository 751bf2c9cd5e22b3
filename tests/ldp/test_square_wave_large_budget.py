"""The Square Wave EMS estimator at every finite budget.

The band half-width ``w`` falls below the spacing of doubles near the values
from ``epsilon`` about 37 on and underflows to 0 from about 709 on, while
the probability ``k / (1 + k)`` of a report in the band (``k = 2 w e^eps``,
about ``eps - 1``) tends to one: the reports tend to the values themselves.
The report moments and the fit must follow that law, not drop the band.
"""

import warnings

import mpmath
import numpy as np
import pytest

from skprivate._grid_density._moments import square_wave_features
from skprivate.ldp import SquareWaveEMSEstimator, SquareWaveLDP
from skprivate.ldp._square_wave import _square_wave_terms


def _mp_features(edges, epsilon):
    """``(E[Y | cell], E[Y**2 | cell])`` by quadrature, at 60 digits.

    The report density (``e^eps q`` within ``w`` of ``v``, ``q`` elsewhere
    on ``[-w, 1 + w]``) is integrated with ``mpmath.quad`` over the offset
    ``u = y - v`` (so that a band of ``w = 1e-345`` keeps its width), and
    the moments given ``v`` (quadratic in ``v``) are averaged over the cell
    by the three-point Gauss-Legendre rule, exact for them.
    """
    nodes = [-np.sqrt(0.6), 0.0, np.sqrt(0.6)]
    weights = [5 / 18, 8 / 18, 5 / 18]
    with mpmath.workdps(60):
        eps = mpmath.mpf(epsilon)
        e = mpmath.exp(eps)
        w = (eps * e - e + 1) / (2 * e * (e - 1 - eps))
        q = 1 / (1 + 2 * w * e)

        def moment(v, power):
            def f(u):
                return (v + u) ** power * (e * q if -w <= u <= w else q)

            return mpmath.quad(f, [-w - v, -w, w, 1 + w - v])

        F = np.zeros((edges.size - 1, 2))
        for i in range(edges.size - 1):
            a, b = mpmath.mpf(edges[i]), mpmath.mpf(edges[i + 1])
            for node, weight in zip(nodes, weights):
                v = (a + b) / 2 + (b - a) / 2 * mpmath.mpf(node)
                for power in (1, 2):
                    F[i, power - 1] += float(weight * moment(v, power))
    return F


@pytest.mark.parametrize("epsilon", [0.3, 2.0, 40.0, 700.0, 800.0, 1e4])
def test_square_wave_features_against_quadrature(epsilon):
    edges = np.array([0.0, 0.1, 0.45, 1.0])
    got = square_wave_features(edges, *_square_wave_terms(epsilon))
    np.testing.assert_allclose(got, _mp_features(edges, epsilon), rtol=0, atol=1e-13)


def test_square_wave_features_at_no_width_are_the_point_mass_mixture():
    # w = 0, k = 799 (epsilon = 800): the report is v with probability
    # 799/800 and uniform on [0, 1] otherwise; cell [0, 1/2] has E v = 1/4,
    # E v**2 = 1/12, cell [1/2, 1] E v = 3/4, E v**2 = 7/12
    w, k = _square_wave_terms(800.0)
    assert (w, k) == (0.0, 799.0)
    F = square_wave_features(np.array([0.0, 0.5, 1.0]), w, k)
    expected = [
        [0.5 / 800 + 0.25 * 799 / 800, (1 / 3) / 800 + (1 / 12) * 799 / 800],
        [0.5 / 800 + 0.75 * 799 / 800, (1 / 3) / 800 + (7 / 12) * 799 / 800],
    ]
    np.testing.assert_allclose(F, expected, rtol=1e-15, atol=0)


def _sample():
    rng = np.random.default_rng(0)
    return rng.beta(2, 5, size=(2000, 1)) * 10 + 5  # mean ~7.88 on (5, 15)


def _fit(x, epsilon):
    # no warning either: the moment correction matches the report moments
    # (with moments of a law without its band it warns and gives up)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        return SquareWaveEMSEstimator(
            privatizer=SquareWaveLDP(epsilon=epsilon, bounds=(5, 15), random_state=0)
        ).fit(x)


def test_square_wave_ems_is_continuous_across_the_underflow_of_w():
    # w = 3e-302 at 700, 4e-306 at 709, 1.6e-306 at 710, 7e-311 (subnormal)
    # at 720 and 0 from about 751 on (the sampler releases the same reports
    # throughout: the values to 4e-15)
    x = _sample()
    fits = {eps: _fit(x, eps) for eps in (700.0, 705.0, 709.0, 710.0, 720.0, 1e4)}
    w = {eps: _square_wave_terms(eps)[0] for eps in fits}
    assert w[709.0] > w[710.0] > 1e-306 > w[720.0] > 0 == w[1e4]
    reference = fits[709.0]
    for eps, est in fits.items():
        assert abs(est.mean() - reference.mean()) < 2e-3, eps
        gap = np.abs(est.density_ - reference.density_).max()
        assert gap < 1e-3 * reference.density_.max(), eps
    # no jump between the last budget with a band and the first without
    assert abs(fits[710.0].mean() - fits[709.0].mean()) < 1e-5
    gap = np.abs(fits[710.0].density_ - fits[709.0].density_).max()
    assert gap < 1e-5 * fits[709.0].density_.max()


def test_square_wave_ems_recovers_mean_and_median_at_a_huge_budget():
    x = _sample()
    est = _fit(x, 1e4)
    step = 10.0 / est.n_points  # the grid's resolution
    assert abs(est.mean() - x.mean()) < step / 10
    assert abs(float(est.quantile(0.5)) - np.median(x)) < step / 2
    # the density is the data's, not the uniform 0.1 of a dropped band
    assert est.density_.max() > 0.2 and est.density_[-20:].max() < 0.01
    ci = est.conf_int("quantile", [0.5]).iloc[0]
    assert ci["lower"] <= np.median(x) <= ci["upper"]
    assert ci["upper"] - ci["lower"] < 2 * step
    ci = est.conf_int("mean").iloc[0]
    assert ci["lower"] <= x.mean() <= ci["upper"]
