"""The bias-corrected linearized intervals of the grid EMS estimators."""

import numpy as np
import pytest
from scipy import stats

from skprivate._grid_density._intervals import (
    MomentTilt,
    binomial_filter_matrix,
    cell_cdf_weights,
    ems_bias_correction,
    ems_covariance,
    ems_gradient,
    smoothing_matrix,
)
from skprivate._grid_density._moments import cell_moments

# A tiny system: 4 cells, 5 report bins, known transition and smoothing.
A_SMALL = np.array(
    [
        [0.6, 0.2, 0.1, 0.1],
        [0.2, 0.5, 0.1, 0.1],
        [0.1, 0.2, 0.5, 0.1],
        [0.05, 0.05, 0.2, 0.2],
        [0.05, 0.05, 0.1, 0.5],
    ]
)
S_SMALL = binomial_filter_matrix(4)
T_SMALL = np.array([0.3, 0.25, 0.2, 0.1, 0.15])


def _ems(A, t, S, tol=1e-15, max_iter=200_000):
    """The EMS fixed point by plain iteration, to round-off."""
    theta = np.full(A.shape[1], 1.0 / A.shape[1])
    for _ in range(max_iter):
        new = S @ (theta * (A.T @ (t / (A @ theta))))
        new /= new.sum()
        if np.max(np.abs(new - theta)) < tol:
            return new
        theta = new
    raise AssertionError("EMS did not converge")


def _corrected(t, tilt_of=None):
    """``theta_bc`` as a function of the frequencies (and moments)."""
    theta = _ems(A_SMALL, t, S_SMALL)
    tilt = None if tilt_of is None else tilt_of(theta)
    if tilt is not None:
        theta = tilt.tilted()[0]
    theta_bc, _ = ems_bias_correction(
        A_SMALL, theta, S_SMALL, lambda f: _ems(A_SMALL, f, S_SMALL), tilt
    )
    return theta_bc


def test_exact_reports_give_the_twicing_estimate():
    # A = I: the EMS fixed point is S t, so the corrected estimate is
    # (2 S - S^2) t and its derivative 2 I - S (on directions summing to 0).
    S = np.array([[0.75, 0.25, 0.0], [0.25, 0.5, 0.25], [0.0, 0.25, 0.75]])
    t = np.array([0.2, 0.5, 0.3])
    theta = S @ t
    theta_bc, M = ems_bias_correction(np.eye(3), theta, S, lambda f: S @ f)
    np.testing.assert_allclose(theta_bc, (2 * S - S @ S) @ t, atol=1e-12)
    np.testing.assert_allclose(theta_bc, [0.25, 0.40625, 0.34375], atol=1e-12)
    direction = np.array([1.0, -2.0, 1.0])
    np.testing.assert_allclose(M @ direction, (2 * np.eye(3) - S) @ direction)


def test_corrected_estimate_and_derivative_match_finite_differences():
    theta = _ems(A_SMALL, T_SMALL, S_SMALL)
    theta_bc, M = ems_bias_correction(
        A_SMALL, theta, S_SMALL, lambda f: _ems(A_SMALL, f, S_SMALL)
    )
    # the correction is 2 theta - Phi(A theta), with Phi the EMS fixed point
    again = _ems(A_SMALL, A_SMALL @ theta, S_SMALL)
    np.testing.assert_allclose(theta_bc, 2 * theta - again, atol=1e-13)
    assert theta_bc.sum() == pytest.approx(1.0, abs=1e-12)
    assert np.max(np.abs(theta_bc - theta)) > 1e-3  # a real correction
    analytic = M @ ems_gradient(A_SMALL, theta, S_SMALL, T_SMALL)
    h = 1e-6
    for j in range(T_SMALL.size):
        # frequencies stay on the simplex: move mass from bin 0 to bin j
        step = np.zeros(T_SMALL.size)
        step[j] += h
        step[0 if j else 1] -= h
        numeric = (_corrected(T_SMALL + step) - _corrected(T_SMALL - step)) / (2 * h)
        np.testing.assert_allclose(analytic @ step / h, numeric, atol=2e-6)


def test_derivative_through_the_moment_tilt_matches_finite_differences():
    edges = np.linspace(0.0, 1.0, 5)
    F = cell_moments(edges)
    # a tight ellipse, so that both tilts (of the fit and of its refit at
    # the fitted law) are active
    cov_mu = np.array([[1e-6, 0.0], [0.0, 1e-6]])
    mu0 = np.array([0.47, 0.30])

    def tilt_of(mu):
        return lambda untilted: MomentTilt(F, mu[None, :], untilted, cov_mu, 2.0)

    def corrected(t, mu):
        return _corrected(t, tilt_of(mu))

    theta = _ems(A_SMALL, T_SMALL, S_SMALL)
    tilt = tilt_of(mu0)(theta)
    tilted, lam = tilt.tilted()
    assert np.all(lam != 0)
    again = tilt_of(F.T @ tilted)(_ems(A_SMALL, A_SMALL @ tilted, S_SMALL))
    assert np.all(again.tilted()[1] != 0)
    _, M = ems_bias_correction(
        A_SMALL, tilted, S_SMALL, lambda f: _ems(A_SMALL, f, S_SMALL), tilt
    )
    J_w, J_mu = tilt.jacobians()
    d_t = M @ J_w @ ems_gradient(A_SMALL, theta, S_SMALL, T_SMALL)
    d_mu = M @ J_mu
    h = 1e-6
    for j in range(1, T_SMALL.size):
        step = np.zeros(T_SMALL.size)
        step[j], step[0] = h, -h
        numeric = (corrected(T_SMALL + step, mu0) - corrected(T_SMALL - step, mu0)) / (
            2 * h
        )
        np.testing.assert_allclose(d_t @ step / h, numeric, atol=1e-5)
    for c in range(2):
        step = np.zeros(2)
        step[c] = h
        numeric = (corrected(T_SMALL, mu0 + step) - corrected(T_SMALL, mu0 - step)) / (
            2 * h
        )
        np.testing.assert_allclose(d_mu[:, c], numeric, atol=1e-5)


def test_corrected_interval_covers_the_true_cdf_where_the_smoothed_one_misses():
    # Reports: the value's cell with probability 0.8, else a uniform cell;
    # a peaked law (Beta(2, 8) on 20 cells) smoothed by a Gaussian of 1.5
    # cells: at x = 0.15 the smoothed CDF is about 2 standard errors from
    # the true one, so the smoothed interval misses it systematically.
    m, n, reps = 20, 2000, 200
    edges = np.linspace(0.0, 1.0, m + 1)
    A = 0.8 * np.eye(m) + 0.2 / m
    S = smoothing_matrix(m, 1.5)
    theta0 = np.diff(stats.beta(2, 8).cdf(edges))
    W = cell_cdf_weights(edges, np.array([0.15]))[0]
    truth = W @ theta0
    rng = np.random.default_rng(0)
    z = stats.norm.ppf(0.975)
    hits = {"smoothed": 0, "rbc": 0}
    for _ in range(reps):
        counts = rng.multinomial(n, A @ theta0)
        bins = np.repeat(np.arange(m), counts)[:, None]
        theta = _ems(A, counts / n, S, tol=1e-12)
        cov = ems_covariance(A, theta, S, bins)
        theta_bc, M = ems_bias_correction(
            A, theta, S, lambda f: _ems(A, f, S, tol=1e-12)
        )
        for name, cells, c in (
            ("smoothed", theta, cov),
            ("rbc", theta_bc, M @ cov @ M.T),
        ):
            hits[name] += abs(W @ cells - truth) <= z * np.sqrt(W @ c @ W)
    se = np.sqrt(0.95 * 0.05 / reps)
    assert hits["smoothed"] / reps < 0.95 - 6 * se
    assert abs(hits["rbc"] / reps - 0.95) < 3 * se
