"""The deconvolution learners are as accurate under the default grid sampler.

LaplaceLDP's default (float-safe) sampler rounds the input and the Laplace
noise to a grid of about 2**-20 of the column range; the learners assume
continuous Laplace noise of scale ``scale_``.  Over a few privatization
seeds the integrated squared errors of the density and regression estimates
must agree with those under ``secure=False`` within Monte Carlo error.
"""

from __future__ import annotations

import numpy as np
from scipy import stats

from skprivate import (
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    LaplaceLDP,
)

REPLICATIONS = 10
N = 2000
GRID = np.linspace(-2, 2, 81)


def _errors(secure: bool) -> np.ndarray:
    rng = np.random.default_rng(0)
    x = rng.normal(size=(N, 1)).clip(-4, 4)
    y = np.sin(2 * x[:, 0]) + 0.3 * rng.normal(size=N)
    out = []
    for seed in range(REPLICATIONS):
        ldp = LaplaceLDP(epsilon=20, bounds=(-4, 4), random_state=seed, secure=secure)
        z = ldp.fit_transform(x)
        kde = DeconvolutionKernelDensity(noise_scale=ldp.scale_, bandwidth=0.4).fit(z)
        reg = DeconvolutionKernelRegressor(noise_scale=ldp.scale_, bandwidth=0.4)
        reg.fit(z, y)
        out.append(
            [
                np.mean((kde.pdf(GRID) - stats.norm.pdf(GRID)) ** 2) * 4,
                np.mean((reg.predict(GRID[:, None]) - np.sin(2 * GRID)) ** 2) * 4,
            ]
        )
    return np.array(out)


def test_learner_accuracy_matches_the_continuous_sampler():
    grid, continuous = _errors(True), _errors(False)
    diff = grid.mean(axis=0) - continuous.mean(axis=0)
    se = np.sqrt(
        grid.var(axis=0, ddof=1) / REPLICATIONS
        + continuous.var(axis=0, ddof=1) / REPLICATIONS
    )
    # density ISE ~0.0016, regression ISE ~0.31 (noise scale 0.4, h = 0.4);
    # standard errors about 15% and 6% of them, so a change of the accuracy
    # by more than about 60% (density) or 25% (regression) would show
    assert np.all(np.abs(diff) < 4 * se), (diff, se)
    assert np.all(se < 0.25 * continuous.mean(axis=0))
