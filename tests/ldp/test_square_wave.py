"""The Square Wave mechanism and its EMS estimator."""

import numpy as np
import pytest
from scipy import stats

from skprivate._grid_density._ems import ML_WIDTHS
from skprivate.ldp import SquareWaveEMSEstimator, SquareWaveLDP
from skprivate.ldp._square_wave import square_wave_half_width
from skprivate.negative_survey import wasserstein_on_grid

from .test_perturbed_kde import _w1_over_range


def test_square_wave_half_width_limits():
    assert square_wave_half_width(1e-6) == pytest.approx(0.5, abs=1e-3)
    assert square_wave_half_width(20.0) < 1e-6
    assert 0 < square_wave_half_width(1.0) < 0.5


def test_square_wave_density_and_ldp_ratio():
    eps = 1.0
    priv = SquareWaveLDP(epsilon=eps, bounds=(0, 10), random_state=0)
    out = priv.fit_transform(np.full((200_000, 1), 3.0)).ravel()
    w = priv.half_width_ * 10
    e = np.exp(eps)
    p_hi = e / (2 * priv.half_width_ * e + 1) / 10
    p_lo = 1 / (2 * priv.half_width_ * e + 1) / 10
    assert out.min() >= -w and out.max() <= 10 + w
    near = np.mean(np.abs(out - 3.0) <= w)
    expected = 2 * w * p_hi
    assert near == pytest.approx(
        expected, abs=4 * np.sqrt(expected * (1 - expected) / out.size)
    )
    assert p_hi / p_lo == pytest.approx(e)


def test_square_wave_ems_recovers_distribution():
    x = np.random.default_rng(0).beta(2, 5, size=(50_000, 1)) * 10
    est = SquareWaveEMSEstimator(
        privatizer=SquareWaveLDP(epsilon=3.0, bounds=(0, 10), random_state=1)
    ).fit(x)
    truth = np.diff(stats.beta(2, 5).cdf(est.edges_ / 10)) / np.diff(est.edges_)
    assert wasserstein_on_grid(est.density_, truth, est.edges_, continuous=True) < 0.3
    assert est.mean() == pytest.approx(x.mean(), abs=0.3)


def test_square_wave_auto_smoothing_is_an_option():
    """smoothing='auto' chooses the width by held-out likelihood; the paper's
    fixed filter stays the default (neither is better across designs)."""
    x = np.random.default_rng(0).beta(2, 5, size=(20_000, 1)) * 10
    priv = SquareWaveLDP(epsilon=2.0, bounds=(0, 10), random_state=1)
    default = SquareWaveEMSEstimator(privatizer=priv).fit(x)
    auto = SquareWaveEMSEstimator(privatizer=priv, smoothing="auto").fit(x)
    assert default.smoothing_width_ is None
    assert auto.smoothing_width_ in ML_WIDTHS
    assert auto.smoothing_scores_.shape == (len(ML_WIDTHS),)
    assert abs(_w1_over_range(auto, x[:, 0]) - _w1_over_range(default, x[:, 0])) < 0.01
