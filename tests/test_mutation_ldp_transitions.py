"""The grid transition matrices of the additive and Square Wave mechanisms
(``ldp/_transitions.py``) against direct computations.

The additive matrix is rebuilt from closed-form noise CDFs (Laplace and
Gaussian) with explicit loops over input cells, points within them and
report bins, from the rule its docstring states: bins of the cell width or
an eighth of the noise scale (whichever is larger, at most ``max_bins``)
over ``[a - t, b + t]`` with ``P(Z < -t) = exp(-20)``, the end bins open.
The Square Wave matrix is rebuilt from Li et al.'s band half-width and
densities: ``p = e^eps q`` within ``w`` of the input, ``q`` elsewhere on
``[-w, 1 + w]``, ``q (1 + 2 w e^eps) = 1``.
"""

from __future__ import annotations

import re
from types import SimpleNamespace

import mpmath
import numpy as np
import pytest
from scipy import stats

from skprivate.ldp import LaplaceLDP
from skprivate.ldp._noise_laws import FlippedHuberNoise, GeneralizedGaussianNoise
from skprivate.ldp._transitions import (
    _noise_law,
    additive_transition,
    square_wave_transition,
)

TAIL = 20.0  # log of the clamp's tail probability


def _laplace_cdf(scale):
    def cdf(t):
        t = np.asarray(t, dtype=float)
        return np.where(t < 0, 0.5 * np.exp(t / scale), 1 - 0.5 * np.exp(-t / scale))

    return cdf, scale * (TAIL - np.log(2.0))


def _gauss_cdf(scale):
    sigma = scale / np.sqrt(2.0)  # density exp(-(t / scale)^2)
    return (
        lambda t: stats.norm.cdf(np.asarray(t, dtype=float) / sigma),
        -sigma * stats.norm.ppf(np.exp(-TAIL)),
    )


def _reference_additive(edges, cdf, t, scale, n_sub=16, max_bins=1024):
    a, b = edges[0], edges[-1]
    m = edges.size - 1
    step = max(min(np.diff(edges)), scale / 8.0)
    k = int(np.ceil((b - a + 2 * t) / step))
    if k > max_bins:
        k = max_bins
        step = (b - a + 2 * t) / k
    out = np.array([a - t + step * i for i in range(k + 1)])
    M = np.zeros((k, m))
    for j in range(m):
        for s in range(n_sub):
            v = edges[j] + (edges[j + 1] - edges[j]) * (s + 0.5) / n_sub
            upper = np.append(cdf(out[1:-1] - v), 1.0)
            lower = np.insert(cdf(out[1:-1] - v), 0, 0.0)
            M[:, j] += (upper - lower) / n_sub
    return M, out


@pytest.mark.parametrize(
    ("power", "scale", "edges", "n_sub", "max_bins"),
    [
        (1.0, 0.5, np.linspace(0.0, 1.0, 11), 16, 1024),  # cell width wins
        (1.0, 1.0, np.array([0.0, 0.01, 0.3, 1.0]), 16, 1024),  # scale / 8 wins
        (1.0, 0.5, np.linspace(-2.0, 3.0, 6), 4, 20),  # capped at max_bins
        (1.0, 0.5, np.linspace(0.0, 1.0, 11), 2, 204),  # exactly max_bins: kept
        (2.0, 0.3, np.array([1.0, 1.5, 1.6, 2.5, 4.0]), 3, 1024),
        (2.0, 2.0, np.linspace(0.0, 1.0, 5), 1, 1024),
    ],
)
def test_additive_transition_equals_the_direct_sum(
    power, scale, edges, n_sub, max_bins
):
    law = GeneralizedGaussianNoise(scale, power)
    cdf, t = (_laplace_cdf if power == 1.0 else _gauss_cdf)(scale)
    M, out = additive_transition(edges, law, n_sub=n_sub, max_bins=max_bins)
    M_ref, out_ref = _reference_additive(edges, cdf, t, scale, n_sub, max_bins)
    assert M.shape == M_ref.shape == (out.size - 1, edges.size - 1)
    # the clamp is found by root-finding to 1e-6 in log t
    np.testing.assert_allclose(out, out_ref, rtol=0, atol=2e-6 * t)
    np.testing.assert_allclose(M, M_ref, rtol=0, atol=1e-7)
    np.testing.assert_allclose(M.sum(axis=0), 1.0, rtol=0, atol=1e-14)
    assert (M >= 0).all()
    # the steps are even and the grid's ends are a - t and b + t
    np.testing.assert_allclose(np.diff(out), np.diff(out)[0], rtol=1e-12)
    np.testing.assert_allclose(np.diff(out)[0], np.diff(out_ref)[0], rtol=1e-5)


def test_additive_transition_defaults_are_16_points_and_1024_bins():
    law = GeneralizedGaussianNoise(0.4, 1.0)
    edges = np.linspace(0.0, 2.0, 21)
    M, out = additive_transition(edges, law)
    M16, out16 = additive_transition(edges, law, n_sub=16, max_bins=1024)
    np.testing.assert_array_equal(M, M16)
    np.testing.assert_array_equal(out, out16)
    M17 = additive_transition(edges, law, n_sub=17)[0]
    assert not np.allclose(M, M17, rtol=1e-9, atol=0)
    # a fine grid under narrow noise wants more than 1024 bins: capped
    law = GeneralizedGaussianNoise(0.004, 1.0)
    edges = np.linspace(0.0, 1.0, 2001)
    _, t = _laplace_cdf(0.004)
    assert np.ceil((1.0 + 2 * t) / 0.0005) > 1025
    M, out = additive_transition(edges, law, n_sub=1)
    assert M.shape == (1024, 2000)
    assert out.size == 1025
    np.testing.assert_allclose(np.diff(out), (1.0 + 2 * t) / 1024, rtol=1e-5)
    np.testing.assert_allclose(out[[0, -1]], [-t, 1.0 + t], rtol=0, atol=1e-5)


def test_additive_transition_bins_of_the_cell_width_and_open_end_bins():
    law = GeneralizedGaussianNoise(0.4, 1.0)
    edges = np.linspace(0.0, 2.0, 21)
    M, out = additive_transition(edges, law)
    t = 0.4 * (TAIL - np.log(2.0))
    assert out.size - 1 == int(np.ceil((2.0 + 2 * t) / 0.1))
    np.testing.assert_allclose(np.diff(out), 0.1, rtol=1e-12)
    # the end bins carry the tails beyond the grid: P(Z < out[1] - v) averaged
    v = edges[0] + 0.1 * (np.arange(16) + 0.5) / 16
    first = np.mean(0.5 * np.exp((out[1] - v) / 0.4))
    assert M[0, 0] == pytest.approx(first, rel=1e-6)
    v = edges[-2] + 0.1 * (np.arange(16) + 0.5) / 16
    last = np.mean(0.5 * np.exp(-(out[-2] - v) / 0.4))
    assert M[-1, -1] == pytest.approx(last, rel=1e-6)


def test_additive_transition_with_the_flipped_huber_law_sums_its_cdf():
    law = FlippedHuberNoise(0.5, 0.8)
    edges = np.linspace(0.0, 1.0, 4)
    M, out = additive_transition(edges, law, n_sub=2)
    v = (edges[:-1, None] + np.diff(edges)[:, None] * np.array([0.25, 0.75])).ravel()
    F = np.exp(law.logcdf(out[1:-1, None] - v[None, :]))
    F = np.vstack([np.zeros(v.size), F, np.ones(v.size)])
    ref = np.diff(F, axis=0).reshape(out.size - 1, 3, 2).mean(axis=2)
    np.testing.assert_allclose(M, ref, rtol=0, atol=1e-15)
    assert np.exp(law.logcdf(np.array(out[0] - edges[0]))) == pytest.approx(
        np.exp(-TAIL), rel=1e-4
    )


def _reference_square_wave(edges, epsilon, n_sub=16):
    e = np.exp(epsilon)
    w = (epsilon * e - e + 1) / (2 * e * (e - 1 - epsilon))
    q = 1.0 / (1.0 + 2.0 * w * e)
    p = e * q
    m = edges.size - 1
    out = np.linspace(-w, 1 + w, m + 1)
    M = np.zeros((m, m))
    for j in range(m):
        for s in range(n_sub):
            v = edges[j] + (edges[j + 1] - edges[j]) * (s + 0.5) / n_sub
            for i in range(m):
                overlap = max(0.0, min(out[i + 1], v + w) - max(out[i], v - w))
                M[i, j] += (q * (out[i + 1] - out[i]) + (p - q) * overlap) / n_sub
    return M, out


@pytest.mark.parametrize("epsilon", [0.2, 0.5, 1.0, 2.5, 8.0])
@pytest.mark.parametrize(
    "edges", [np.linspace(0.0, 1.0, 8), np.array([0.0, 0.05, 0.2, 0.6, 0.65, 1.0])]
)
def test_square_wave_transition_equals_the_band_densities(epsilon, edges):
    M, out = square_wave_transition(edges, epsilon)
    M_ref, out_ref = _reference_square_wave(edges, epsilon)
    # unnormalized, the reference's columns already sum to one
    np.testing.assert_allclose(M_ref.sum(axis=0), 1.0, atol=1e-12)
    np.testing.assert_allclose(out, out_ref, rtol=0, atol=1e-12)
    np.testing.assert_allclose(M, M_ref, rtol=0, atol=1e-12)


def test_square_wave_transition_with_fewer_points_per_cell():
    edges = np.linspace(0.0, 1.0, 5)
    M, _ = square_wave_transition(edges, 1.3, n_sub=1)
    M_ref, _ = _reference_square_wave(edges, 1.3, n_sub=1)
    np.testing.assert_allclose(M, M_ref, rtol=0, atol=1e-12)
    assert not np.allclose(M, square_wave_transition(edges, 1.3)[0], atol=1e-6)


def _mp_square_wave_transition(edges, epsilon, n_sub):
    """The matrix by quadrature of the Square Wave density at 60 digits.

    Li et al.'s ``w``, ``q`` and band density ``e^eps q`` in mpmath, where
    ``w`` does not underflow (above ``epsilon`` about 709); each report
    cell's probability is ``mpmath.quad`` of the density over the cell, cut
    where the band starts and ends, at the points of the implementation's
    rule.  The density is integrated over the offset ``u = y - v`` of the
    report from the value, so that a band far narrower than the precision
    of ``v`` (``w = 3e-302`` at ``epsilon = 700``) keeps its width.
    """
    with mpmath.workdps(60):
        eps = mpmath.mpf(epsilon)
        e = mpmath.exp(eps)
        w = (eps * e - e + 1) / (2 * e * (e - 1 - eps))
        q = 1 / (1 + 2 * w * e)
        m = edges.size - 1
        out = [-w + (1 + 2 * w) * mpmath.mpf(k) / m for k in range(m + 1)]
        M = np.zeros((m, m))
        for i in range(m):
            a, b = mpmath.mpf(edges[i]), mpmath.mpf(edges[i + 1])
            for s in range(n_sub):
                v = a + (b - a) * (s + mpmath.mpf(0.5)) / n_sub

                def density(u):
                    return e * q if -w <= u <= w else q

                for j in range(m):
                    lo, hi = out[j] - v, out[j + 1] - v
                    cuts = sorted({lo, hi} | {c for c in (-w, w) if lo < c < hi})
                    M[j, i] += float(mpmath.quad(density, cuts)) / n_sub
    return M


@pytest.mark.parametrize("epsilon", [0.3, 1.5, 40.0, 700.0, 800.0])
def test_square_wave_transition_against_quadrature_of_the_density(epsilon):
    # 0.3: the expm1 form of the band's mass; 40: w (8e-17) below the
    # spacing of doubles near the values; 700: w = 3e-302; 800: w
    # underflows in doubles (not in mpmath), the limit w -> 0 is used
    edges = np.array([0.0, 0.15, 0.5, 0.8, 1.0])
    M, _ = square_wave_transition(edges, epsilon, n_sub=4)
    ref = _mp_square_wave_transition(edges, epsilon, 4)
    np.testing.assert_allclose(ref.sum(axis=0), 1.0, rtol=0, atol=1e-14)
    np.testing.assert_allclose(M, ref, rtol=0, atol=1e-13)


def test_square_wave_transition_past_the_underflow_is_the_point_mass_limit():
    # w < 2e-306 beyond epsilon ~ 709.78 (0 from ~751 on): the report is the
    # value with probability k / (1 + k), k = 2 w e^eps = eps - 1 there, and
    # uniform on [0, 1] otherwise; on the cells of [0, 1] with the points of
    # each cell inside it, M = I (eps - 1) / eps + 1 / (5 eps)
    edges = np.linspace(0.0, 1.0, 6)
    for epsilon in (709.79, 710.0, 800.0, 1e4, 1e300):
        M, out = square_wave_transition(edges, epsilon)
        np.testing.assert_allclose(out, edges, rtol=0, atol=1e-305)
        expected = np.eye(5) * (epsilon - 1) / epsilon + 0.2 / epsilon
        np.testing.assert_allclose(M, expected, rtol=0, atol=1e-15)
    M, _ = square_wave_transition(edges, 800.0)
    assert M[0, 0] == pytest.approx(0.999, abs=1e-15)
    assert M[1, 0] == pytest.approx(0.00025, abs=1e-18)


@pytest.mark.parametrize("epsilon", [40.0, 700.0])
def test_square_wave_transition_of_a_value_at_the_top_edge(epsilon):
    # the last cell's points reach 1.0 in doubles, where w is below half an
    # ulp of 1 and the top report edge 1 + w rounds to 1: the band of a
    # value at 1 stays whole in the report range
    edges = np.array([0.0, 0.5, 1 - 2.0**-53, 1.0])
    M, out = square_wave_transition(edges, epsilon)
    assert out[-1] == 1.0
    ref = _mp_square_wave_transition(edges, epsilon, 16)
    np.testing.assert_allclose(M, ref, rtol=0, atol=1e-13)
    # past the underflow (w = 0): the point-mass limit, as for other values
    M, _ = square_wave_transition(edges, 800.0)
    floor = (1 / 800.0) / 3
    np.testing.assert_allclose(M[:, 2], [floor, floor, 1 - 2 * floor], atol=1e-15)


def test_square_wave_transition_where_the_odds_round_to_one():
    # below epsilon ~ 1e-16, w rounds to 1/2 and the odds k = 2 w e^eps to 1:
    # the reports are uniform on [-1/2, 3/2] to within about epsilon
    edges = np.array([0.0, 0.15, 0.5, 0.8, 1.0])
    for epsilon in (1e-16, 1e-20, 5e-324):
        M, out = square_wave_transition(edges, epsilon, n_sub=4)
        np.testing.assert_array_equal(out, [-0.5, 0.0, 0.5, 1.0, 1.5])
        np.testing.assert_allclose(M, 0.25, rtol=0, atol=1e-15)


def test_square_wave_transition_past_the_underflow_raises_no_floating_point_error():
    # w subnormal (epsilon 723): (t - v) / (2 w) overflows to +-inf; w = 0
    # (epsilon 800): it divides by zero.  Both are the intended limits, so a
    # caller that makes numpy raise on such errors gets the matrix all the same
    edges = np.linspace(0.0, 1.0, 6)
    with np.errstate(over="raise", divide="raise", invalid="raise"):
        for epsilon in (723.0, 800.0):
            M, _ = square_wave_transition(edges, epsilon)
            expected = np.eye(5) * (epsilon - 1) / epsilon + 0.2 / epsilon
            np.testing.assert_allclose(M, expected, rtol=0, atol=1e-15)


def test_square_wave_transition_is_continuous_across_the_underflow():
    from skprivate.ldp._square_wave import square_wave_half_width

    # w is 4e-306 at 709.08 and 2e-306 at 709.8 (where e^eps overflows): the
    # matrix moves by what the change of budget moves it (q ~ 1/eps changes
    # by 1.4e-6), not by a jump
    assert square_wave_half_width(709.08) > square_wave_half_width(709.8) > 0
    edges = np.array([0.0, 0.15, 0.5, 0.8, 1.0])
    below, _ = square_wave_transition(edges, 709.08)
    above, _ = square_wave_transition(edges, 709.8)
    assert 1e-7 < np.abs(below - above).max() < 1e-5
    # and in the regime where w is below the resolution of the values
    # (epsilon > 37), the matrix tends to the identity with 1 - 1/eps on it
    for epsilon in (30.0, 40.0, 100.0, 700.0, 709.08, 709.8, 1e4):
        M, _ = square_wave_transition(np.linspace(0.0, 1.0, 6), epsilon)
        diag = np.diag(M)
        assert diag.min() > 1 - 1.0 / epsilon
        np.testing.assert_allclose(diag, 1 - 0.8 / epsilon, rtol=0, atol=1e-12)


def test_band_share_below_and_its_limit_at_no_width():
    from skprivate.ldp._transitions import _band_share_below

    t = np.array([0.25, 0.4375, 0.5, 0.5625, 0.75])  # exact in binary
    np.testing.assert_array_equal(
        _band_share_below(t, 0.5, 0.125), [0.0, 0.25, 0.5, 0.75, 1.0]
    )
    # a band narrower than the spacing of the values, one whose quotient
    # overflows (w denormal), and none at all: a step with 1/2 at the value
    for w in (1e-20, 5e-324, 0.0):
        np.testing.assert_array_equal(
            _band_share_below(t, 0.5, w), [0.0, 0.0, 0.5, 1.0, 1.0]
        )


def test_band_share_below_raises_no_floating_point_error():
    from skprivate.ldp._transitions import _band_share_below

    # w denormal: the quotient overflows; w = 0: x / 0 away from the centre
    # and 0 / 0 on it
    t = np.array([0.25, 0.5, 0.75])
    with np.errstate(over="raise", divide="raise", invalid="raise"):
        for w in (5e-324, 0.0):
            np.testing.assert_array_equal(_band_share_below(t, 0.5, w), [0, 0.5, 1])


@pytest.mark.skipif(
    np.finfo(np.longdouble).nmant <= np.finfo(np.float64).nmant,
    reason="long double is no wider than double on this platform",
)
def test_band_share_below_takes_the_gap_in_doubles():
    from skprivate.ldp._transitions import _band_share_below

    # 1 + 2^-60 is 1 once rounded to a double: the point is the centre
    near = np.longdouble(1) + np.longdouble(2) ** -60
    w = 2.0**-70
    assert _band_share_below(np.array([near]), 1.0, w).tolist() == [0.5]
    assert _band_share_below(np.array([1.0]), np.array([near]), w).tolist() == [0.5]


def test_noise_law_of_no_privatizer_or_no_laws_is_none():
    assert _noise_law(None, None) is None
    assert _noise_law(None, SimpleNamespace()) is None
    assert _noise_law(None, SimpleNamespace(noise_=[])) is None


def test_noise_law_of_laplace_is_the_power_one_law_of_its_scale():
    priv = LaplaceLDP(epsilon=2.0, bounds=(0.0, 3.0)).fit(np.zeros((4, 2)))
    law = _noise_law(None, priv)
    assert isinstance(law, GeneralizedGaussianNoise)
    assert law.power == 1.0
    assert law.scale == pytest.approx(1.5 * 2, rel=1e-12)  # 2 columns share eps
    np.testing.assert_allclose(law.scale, np.ravel(priv.scale_)[0], rtol=0)


def test_noise_law_returns_the_first_of_equal_laws():
    first = GeneralizedGaussianNoise(1.0, 2.0)
    priv = SimpleNamespace(noise_=[first, GeneralizedGaussianNoise(1.0, 2.0)])
    assert _noise_law(None, priv) is first


@pytest.mark.parametrize(
    "laws",
    [
        [GeneralizedGaussianNoise(1.0, 2.0), GeneralizedGaussianNoise(1.5, 2.0)],
        [GeneralizedGaussianNoise(1.0, 2.0), GeneralizedGaussianNoise(1.0, 1.5)],
        [FlippedHuberNoise(1.0, 2.0), FlippedHuberNoise(1.0, 3.0)],
        [GeneralizedGaussianNoise(1.0, 1.0), FlippedHuberNoise(1.0, 1.0)],
        [
            GeneralizedGaussianNoise(1.0, 2.0),
            GeneralizedGaussianNoise(1.0, 2.0),
            GeneralizedGaussianNoise(1.0, 3.0),
        ],
    ],
)
def test_noise_law_refuses_columns_of_different_laws(laws):
    class Pooling:
        pass

    n = len(
        {
            (
                type(law).__name__,
                law.scale,
                getattr(law, "power", None),
                getattr(law, "beta", None),
            )
            for law in laws
        }
    )
    msg = (
        "Pooling pools every column as values of one variable, so the "
        f"privatizer's columns must share one noise law; got {n} different laws."
    )
    with pytest.raises(ValueError, match=f"^{re.escape(msg)}$"):
        _noise_law(Pooling(), SimpleNamespace(noise_=laws))


def test_noise_law_refuses_laplace_columns_of_different_widths():
    priv = LaplaceLDP(epsilon=1.0, bounds=([0.0, 0.0], [1.0, 2.0])).fit(
        np.zeros((3, 2))
    )

    class Kde:
        pass

    with pytest.raises(ValueError, match=r"^Kde pools every column .* got 2 different"):
        _noise_law(Kde(), priv)
