"""The Square Wave's ``w`` and band odds at every finite budget, silently.

``w = (eps - 1 + e^-eps) / (2 (e^eps - 1 - eps))`` was the quotient of
``2 (e^eps - 1 - eps)``, which overflows from ``eps = 709.09`` (numpy's
"overflow encountered in scalar multiply" from the privatizer and the EMS
estimator), and read 0 there although ``w`` is a normal double up to
``eps`` about 714.3 and a subnormal one up to about 751.  Both terms are
pinned here against 50-digit mpmath to a few units in the last place (of
the subnormal spacing where ``w`` is subnormal), on each side of the
switches between the formulas, with every numpy floating-point condition
and every warning raised as an error.
"""

from __future__ import annotations

import warnings

import mpmath
import numpy as np
import pytest

from skprivate.ldp import SquareWaveEMSEstimator, SquareWaveLDP
from skprivate.ldp._square_wave import _square_wave_terms, square_wave_half_width

EPSILONS = [1e-6, 0.5, 1.0, 10.0, 37.0, 100.0, 700.0, 709.0, 709.1, 709.5]
EPSILONS += [709.78, 709.8, 710.0, 1e4, 1e300]
# the switches (series / quotient at 0.5, quotient / e^-eps at 709), the
# subnormal range of w, and budgets small enough for eps**2 to underflow
EDGES = [0.5 - 1e-16, 0.5 + 1e-16, 709.0 - 1e-12, 709.0 + 1e-12, 709.08]
EDGES += [714.0, 714.5, 720.0, 745.0, 751.0, 751.1, 1e-30, 1e-160, 1e-200, 5e-324]


def _reference(epsilon: float) -> tuple[float, float]:
    """``(w, 2 w e^eps)`` in 50 significant digits (more for the cancellation
    ``eps - 1 + e^-eps`` of a tiny ``eps``)."""
    digits = 50 + 2 * max(0, int(-np.log10(epsilon)))
    with mpmath.workdps(digits):
        eps = mpmath.mpf(epsilon)
        low = eps - 1 + mpmath.exp(-eps)
        w = low / (2 * (mpmath.expm1(eps) - eps))
        return float(w), float(2 * w * mpmath.exp(eps))


def _assert_exact(got: float, ref: float, ulps: float = 4.0) -> None:
    # np.spacing is the subnormal step for a subnormal (or zero) reference
    assert abs(got - ref) <= ulps * np.spacing(abs(ref)), (got, ref)


@pytest.mark.parametrize("epsilon", EPSILONS + EDGES)
def test_terms_are_exact_to_rounding_and_silent(epsilon):
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        w, odds = _square_wave_terms(epsilon)
        assert square_wave_half_width(epsilon) == w
    ref_w, ref_odds = _reference(epsilon)
    _assert_exact(w, ref_w)
    _assert_exact(odds, ref_odds)
    assert type(w) is float and type(odds) is float


def test_w_is_positive_until_it_underflows_and_decreasing():
    with warnings.catch_warnings(), np.errstate(all="raise"):
        warnings.simplefilter("error")
        eps = np.linspace(700.0, 760.0, 6001)
        w = np.array([_square_wave_terms(float(e))[0] for e in eps])
        odds = np.array([_square_wave_terms(float(e))[1] for e in eps])
    assert np.all(np.diff(w) <= 0)
    assert np.all(w[eps <= 751.0] > 0) and np.all(w[eps >= 751.1] == 0)
    np.testing.assert_allclose(odds, eps - 1, rtol=1e-15)  # e^-eps is negligible


@pytest.mark.parametrize("epsilon", [709.1, 709.5, 709.78, 709.8, 1e4])
@pytest.mark.parametrize("secure", [True, False])
def test_privatizer_is_silent_across_the_overflow(epsilon, secure):
    X = np.linspace(0.0, 10.0, 50).reshape(-1, 1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        sw = SquareWaveLDP(epsilon=epsilon, bounds=(0, 10), secure=secure)
        released = sw.set_params(random_state=0).fit_transform(X)
        summary = sw.privacy_summary()
    assert summary["half_width"] == _square_wave_terms(epsilon)[0]
    assert np.mean(np.abs(released - X) < 1e-6) > 0.9  # the value, almost always


@pytest.mark.parametrize("epsilon", [709.1, 709.5, 709.78])
def test_ems_estimator_is_silent_across_the_overflow(epsilon):
    rng = np.random.default_rng(0)
    x = rng.beta(2, 5, size=(500, 1)) * 10 + 5
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        privatizer = SquareWaveLDP(epsilon=epsilon, bounds=(5, 15), random_state=0)
        est = SquareWaveEMSEstimator(privatizer=privatizer).fit(x)
        released = SquareWaveEMSEstimator(
            epsilon=epsilon, bounds=(5, 15), n_points=20
        ).fit(est.released_)
    assert abs(est.mean() - x.mean()) < 0.05
    assert abs(released.mean() - x.mean()) < 0.1
