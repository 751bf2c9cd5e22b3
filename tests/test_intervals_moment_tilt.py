"""The delta method of the moment tilt that follows EMS (perturbed KDE, RVNS)."""

import numpy as np
import pytest

from skprivate._grid_density._ems import ems_cell_probabilities
from skprivate._grid_density._intervals import (
    MomentTilt,
    ems_covariance,
    smoothing_matrix,
)
from skprivate._grid_density._moments import moment_covariance

M = 20
MIDS = (np.arange(M) + 0.5) / M
# A report lands in a cell near the value's: a blur of the cell index.
_A = np.exp(-np.abs(np.subtract.outer(np.arange(M), np.arange(M))) / 2.0)
A = _A / _A.sum(axis=0)
# Reports read at the cell midpoints: the expected report and its square.
FEATURES = A.T @ np.column_stack([MIDS, MIDS**2])
THETA = np.exp(-0.5 * ((MIDS - 0.35) / 0.15) ** 2)
THETA /= THETA.sum()
WIDTH = 3.0


def _tilt_of(bins, untilted, within):
    reports = MIDS[bins]
    mean, square = reports.mean(), np.mean(reports**2)
    cov = moment_covariance(
        bins.size, mean, square, np.mean(reports**3), np.mean(reports**4)
    )
    return MomentTilt(
        features=FEATURES,
        unit_moments=np.column_stack([reports, reports**2]),
        untilted=untilted,
        moment_cov=cov,
        within=within,
    )


def _fit(bins):
    counts = np.bincount(bins, minlength=M).astype(float)
    w, _ = ems_cell_probabilities(A, counts, WIDTH, max_iter=20000, tol=1e-9)
    return w


CUMULATIVE = np.cumsum(A, axis=0)


def _draw(rng, n):
    cells = rng.choice(M, size=n, p=THETA)
    u = rng.uniform(size=n)
    return np.minimum((CUMULATIVE[:, cells] < u[None, :]).sum(axis=0), M - 1)


@pytest.mark.parametrize("within", [0.0, 0.5])
def test_tilt_jacobians_are_the_derivatives_of_the_projection(within):
    rng = np.random.default_rng(0)
    bins = _draw(rng, 400)
    tilt = _tilt_of(bins, _fit(bins), within)
    base, lam = tilt.tilted()
    assert lam is not None and np.all(lam != 0)  # the tilt is active
    J_w, J_mu = tilt.jacobians()
    w = tilt.untilted / tilt.untilted.sum()
    dw = rng.normal(size=M) * w
    dw -= w * dw.sum()  # stay on the simplex
    dmu = np.array([1e-2, 2e-2])
    step = 1e-6
    moved = MomentTilt(
        FEATURES, tilt.unit_moments, w + step * dw, tilt.moment_cov, within
    ).tilted()[0]
    np.testing.assert_allclose((moved - base) / step, J_w @ dw, atol=1e-5)
    shifted = MomentTilt(
        FEATURES, tilt.unit_moments + step * dmu, w, tilt.moment_cov, within
    ).tilted()[0]
    np.testing.assert_allclose((shifted - base) / step, J_mu @ dmu, atol=1e-5)


def test_tilted_ems_standard_error_matches_the_spread_of_tilted_fits():
    # Exact moment matching (within=0) after EMS: the chained delta method
    # against the spread of 100 refits on fresh reports.  The SD of 100
    # values has a relative SE of 1/sqrt(200) = 7%, so 0.2 is 3 SE; a
    # variance off by a factor 2 moves the ratio by 29-41%, and leaving the
    # tilt out (the plain EMS covariance, about 0.6 of the spread here with
    # the wide smoothing) fails as well.
    rng = np.random.default_rng(1)
    W = (MIDS <= 0.3).astype(float)  # the CDF at 0.3 (cell edge)
    values, tilted_se, plain_se = [], [], []
    S = smoothing_matrix(M, WIDTH)
    for _ in range(100):
        bins = _draw(rng, 1000)
        w = _fit(bins)
        tilt = _tilt_of(bins, w, 0.0)
        theta, _ = tilt.tilted()
        values.append(W @ theta)
        cov = ems_covariance(A, theta, S, bins[:, None], tilt)
        tilted_se.append(np.sqrt(W @ cov @ W))
        plain = ems_covariance(A, w, S, bins[:, None])
        plain_se.append(np.sqrt(W @ plain @ W))
    spread = np.std(values, ddof=1)
    assert np.mean(tilted_se) / spread == pytest.approx(1.0, abs=0.2)
    assert abs(np.mean(plain_se) / spread - 1.0) > 0.3


def test_a_tilt_that_moves_nothing_keeps_the_ems_covariance():
    rng = np.random.default_rng(2)
    bins = _draw(rng, 300)
    w = _fit(bins)
    tilt = _tilt_of(bins, w, 1e6)  # inside the ellipse: no tilt
    assert np.all(tilt.tilted()[1] == 0)
    S = smoothing_matrix(M, WIDTH)
    np.testing.assert_allclose(
        ems_covariance(A, w, S, bins[:, None], tilt),
        ems_covariance(A, w, S, bins[:, None]),
        atol=1e-15,
    )
