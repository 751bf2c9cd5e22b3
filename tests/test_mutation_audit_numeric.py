"""The audits' log-space helpers (``_audit/_numeric.py``) against 50-digit
arithmetic, on both sides of each branch (``log 2`` for ``log1mexp``, the
``1e-250`` floor of scipy's ``gammaincc`` for ``log_upper_gamma``)."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest

from skprivate._audit import log1mexp, log_upper_gamma, logdiffexp

mpmath.mp.dps = 50


def _log1mexp_exact(x):
    return float(mpmath.log(-mpmath.expm1(mpmath.mpf(x))))


@pytest.mark.parametrize(
    "x",
    [
        -1e-300,
        -1e-20,
        -1e-8,
        -0.01,
        -0.5,
        -0.6931,
        -math.log(2.0),
        -0.6932,
        -0.7,
        -1.0,
        -5.0,
        -36.0,
        -40.0,
        -700.0,
        -745.0,
    ],
)
def test_log1mexp_to_the_last_digits(x):
    assert float(log1mexp(x)) == pytest.approx(
        _log1mexp_exact(x), rel=1e-15, abs=1e-300
    )


def test_log1mexp_ends_and_shapes():
    assert float(log1mexp(-np.inf)) == 0.0
    assert float(log1mexp(0.0)) == -np.inf
    out = log1mexp([[-1.0, -2.0], [-1e-10, -50.0]])
    assert out.shape == (2, 2) and out.dtype == np.float64
    want = [
        [_log1mexp_exact(v) for v in row] for row in [[-1.0, -2.0], [-1e-10, -50.0]]
    ]
    np.testing.assert_allclose(out, want, rtol=1e-15)


def test_logdiffexp_to_the_last_digits():
    pairs = [
        (0.0, -1000.0),
        (0.0, -1e-12),
        (5.0, 4.0),
        (-700.0, -700.5),
        (3.0, -np.inf),
    ]
    for a, b in pairs:
        want = float(mpmath.log(mpmath.exp(mpmath.mpf(a)) - mpmath.exp(mpmath.mpf(b))))
        assert float(logdiffexp(a, b)) == pytest.approx(want, rel=1e-15), (a, b)
    assert float(logdiffexp(2.0, 2.0)) == -np.inf
    assert float(logdiffexp(-np.inf, -np.inf)) == -np.inf
    out = logdiffexp(np.array([1.0, 2.0, 3.0]), -np.inf)
    np.testing.assert_array_equal(out, [1.0, 2.0, 3.0])


def _log_q_exact(a, x):
    q = mpmath.gammainc(mpmath.mpf(a), mpmath.mpf(x), mpmath.inf, regularized=True)
    return float(mpmath.log(q))


@pytest.mark.parametrize("a", [0.5, 1.0, 2.5, 10.0])
@pytest.mark.parametrize("x", [0.5, 3.0, 30.0, 200.0, 560.0, 600.0, 1000.0, 5000.0])
def test_log_upper_gamma_on_both_sides_of_the_floor(a, x):
    got = float(log_upper_gamma(a, x))
    assert got == pytest.approx(_log_q_exact(a, x), rel=1e-13)


def test_log_upper_gamma_of_an_array_mixing_both_branches():
    x = np.array([[1.0, 700.0], [50.0, 2000.0]])
    out = log_upper_gamma(3.0, x)
    assert out.shape == (2, 2)
    want = [[_log_q_exact(3.0, v) for v in row] for row in x]
    np.testing.assert_allclose(out, want, rtol=1e-13)
    assert log_upper_gamma(2.0, 4.0).shape == ()
    assert float(log_upper_gamma(1.0, 0.0)) == 0.0
    # Q(1, x) = e**-x exactly, far beyond the floor
    np.testing.assert_allclose(
        log_upper_gamma(1.0, np.array([600.0, 5000.0, 1e5])),
        [-600.0, -5000.0, -1e5],
        rtol=1e-15,
    )


def test_the_ends_of_each_helper_raise_no_floating_point_warning():
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        with np.errstate(all="warn"):
            assert float(log1mexp(0.0)) == -np.inf
            assert float(log1mexp(-np.inf)) == 0.0
            assert float(logdiffexp(-np.inf, -np.inf)) == -np.inf
            assert float(logdiffexp(1.0, 1.0)) == -np.inf
            # Q underflows to 0 in scipy here: its log is taken, then replaced
            out = log_upper_gamma(2.0, np.array([1.0, 1e4]))
    assert out[1] == pytest.approx(_log_q_exact(2.0, 1e4), rel=1e-13)
