"""Noise laws and privacy profiles of ``skprivate/ldp/_noise_laws.py``, exactly.

Each test pins one documented behaviour with an exact small case: the
hockey-stick objective where a distribution function vanishes or its
rounding bound overflows (0, and no floating-point warning reaches the
user), its value where the rounding bound is the whole value (Laplace noise
in closed form, against ``mpmath``), its clipping at 0, and the Gaussian
privacy profile at widths down to 1e-12 against its analytic formula.
``benchmarks/_mutation_modules.py`` (entry ``noise_laws``) lists the
mutants these tests kill.
"""

import math
import warnings

import mpmath
import numpy as np
import pytest
from scipy import special

from skprivate.ldp._noise_laws import (
    LOG_ROUNDING,
    FlippedHuberNoise,
    GeneralizedGaussianNoise,
    _hockey_stick,
    additive_privacy_profile,
)


@pytest.mark.parametrize(
    "law",
    [GeneralizedGaussianNoise(1.0, 2.0), FlippedHuberNoise(1.0, 1.0)],
    ids=["gaussian", "flipped huber"],
)
def test_hockey_stick_is_zero_and_silent_where_the_distribution_vanishes(law):
    # at t = -inf both F(t) and F(t - D) are 0: the objective is 0, although
    # its log-space form meets -inf - (-inf) on the way
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _hockey_stick(law, 1.0, 1.0, np.array([-np.inf, 0.0]))
    assert got.dtype == np.float64
    assert got[0] == 0.0
    assert got[1] > 0.1


def test_hockey_stick_is_silent_where_its_rounding_bound_overflows():
    # far in the flipped Huber tail (t = -1e9 .. -1e12 scales) log f - log F
    # is a difference of two numbers near -1e20 and beyond, whose rounding
    # alone reaches thousands: the slope term of the rounding bound
    # overflows to infinity there, which only widens the bound; F(t) is 0 in
    # double precision, so the objective is 0, with no warning
    law = FlippedHuberNoise(1.0, 1.0)
    t = -np.logspace(9, 12, 13)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = _hockey_stick(law, 1.0, 1.0, t)
    np.testing.assert_array_equal(got, np.zeros(13))


def test_hockey_stick_lowers_the_log_gap_by_the_documented_rounding_bound():
    # Laplace noise of scale 1 below 0: log F(t) = t - log 2 and the reverse
    # hazard f / F is 1, so at epsilon = D the exact objective F(t) -
    # e**eps F(t - D) is 0, and what is returned is F(t) (1 - e**-slack),
    # slack = LOG_ROUNDING (|a| + |b| + 1 + |t| f(t) / F(t) + |t - D| f(t -
    # D) / F(t - D)) with a = log F(t), b = eps + log F(t - D): the bound on
    # the rounding of b - a, here the whole value (to the rounding of a and
    # b, under 2 %)
    law = GeneralizedGaussianNoise(1.0, 1.0)
    t = np.array([-0.25, -3.0])
    got = _hockey_stick(law, 1.0, 1.0, t)
    want = []
    with mpmath.workdps(40):
        for v in t:
            v = mpmath.mpf(float(v))
            a = v - mpmath.log(2)
            b = 1 + (v - 1) - mpmath.log(2)
            slack = LOG_ROUNDING * (abs(a) + abs(b) + 1 + abs(v) + abs(v - 1))
            want.append(float(-mpmath.exp(a) * mpmath.expm1(b - a - slack)))
    np.testing.assert_allclose(got, want, rtol=0.03)
    # a privacy loss below epsilon everywhere: the objective is negative,
    # clipped at 0
    assert _hockey_stick(law, 1.0, 1.5, t).tolist() == [0.0, 0.0]


@pytest.mark.parametrize(
    ("width", "epsilon"), [(1e-12, 0.5), (1e-9, 1.0), (1e-9, 3.0), (1e-7, 2.0)]
)
def test_gaussian_profile_is_exact_at_tiny_widths(width, epsilon):
    # the crossing of the privacy loss is located relative to the width D
    # (to 1e-12 D), so the profile is exact however small D and the noise
    # are: power 2 at scale D is Gaussian with sigma = D / sqrt(2), whose
    # profile is Phi(D / (2 sigma) - eps sigma / D) - e**eps Phi(-D / (2
    # sigma) - eps sigma / D)
    sigma = width / math.sqrt(2.0)
    a, b = width / (2 * sigma), epsilon * sigma / width
    want = special.ndtr(a - b) - math.exp(epsilon) * special.ndtr(-a - b)
    got = additive_privacy_profile(GeneralizedGaussianNoise(width, 2.0), width, epsilon)
    assert got == pytest.approx(want, rel=1e-9)
