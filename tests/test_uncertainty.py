"""The shared interval machinery: the frame, levels, resampling, the interface."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError

from skprivate import DeconvolutionKernelDensity, IntervalCaseI, IntervalNPMLE
from skprivate._uncertainty import (
    COLUMNS,
    bootstrap_replicates,
    check_level,
    interval_frame,
    percentile_interval,
    subsampling_interval,
)
from skprivate.distributions import DiscreteDistribution, PopulationEstimateMixin
from skprivate.integral._intervals import normal_laplace_half_width


def test_interval_frame_has_the_tidy_columns_and_one_row_per_point():
    frame = interval_frame(
        "cdf",
        [1.0, 2.0],
        [0.2, 0.4],
        [0.1, 0.3],
        [0.3, 0.5],
        0.9,
        "m",
        "F(x)",
        se=[0.05, 0.06],
    )
    assert list(frame.columns) == COLUMNS
    assert frame["point"].tolist() == [1.0, 2.0]
    assert frame["level"].tolist() == [0.9, 0.9]
    assert frame["se"].tolist() == [0.05, 0.06]


@pytest.mark.parametrize("level", [0, 1, 1.5, -0.1, True, "0.95"])
def test_levels_outside_the_open_unit_interval_are_refused(level):
    with pytest.raises(ValueError, match="level"):
        check_level(level)


def test_percentile_and_subsampling_intervals_follow_their_formulas():
    reps = np.arange(1.0, 101.0)[:, None]  # 1..100
    lower, upper = percentile_interval(reps, 0.9)
    assert lower[0] == pytest.approx(np.quantile(reps, 0.05))
    assert upper[0] == pytest.approx(np.quantile(reps, 0.95))
    # theta_n = 50, b = 8, n = 64, rate 1/3: roots 2 (theta_b - 50).
    lower, upper = subsampling_interval([50.0], reps, 64, 8, 1 / 3, 0.9)
    roots = 2.0 * (reps[:, 0] - 50.0)
    assert lower[0] == pytest.approx(50.0 - np.quantile(roots, 0.95) / 4.0)
    assert upper[0] == pytest.approx(50.0 - np.quantile(roots, 0.05) / 4.0)


class _Empirical(PopulationEstimateMixin, BaseEstimator):
    def fit(self, x, y=None):
        self.values_ = np.asarray(x, dtype=float).ravel()
        return self

    def _distribution(self):
        v, c = np.unique(self.values_, return_counts=True)
        return DiscreteDistribution(v, c)


def test_resampling_is_reproducible_and_independent_of_n_jobs():
    x = np.random.default_rng(0).normal(size=(200, 1))
    a = bootstrap_replicates(
        _Empirical(), x, lambda e: e.mean(), n_resamples=20, random_state=3, n_jobs=1
    )
    b = bootstrap_replicates(
        _Empirical(), x, lambda e: e.mean(), n_resamples=20, random_state=3, n_jobs=2
    )
    c = bootstrap_replicates(
        _Empirical(), x, lambda e: e.mean(), n_resamples=20, random_state=4, n_jobs=1
    )
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_generic_bootstrap_of_a_population_estimate_matches_the_mean_se():
    # The bootstrap SE of a sample mean is s / sqrt(n) up to its own noise
    # (relative SD about 1 / sqrt(2 B) = 5% for B = 200).
    x = np.random.default_rng(1).normal(size=(400, 1))
    est = _Empirical().fit(x)
    ci = est.conf_int("mean", X=x, random_state=0, n_resamples=200)
    assert ci["method"].iloc[0] == "bootstrap-percentile"
    assert ci["se"].iloc[0] == pytest.approx(x.std(ddof=1) / 20.0, rel=0.2)
    assert ci["lower"].iloc[0] < x.mean() < ci["upper"].iloc[0]


def test_several_levels_share_replicates_and_nest():
    x = np.random.default_rng(2).normal(size=(300, 1))
    est = _Empirical().fit(x)
    ci = est.conf_int(
        "cdf", [0.0], X=x, level=[0.8, 0.95], random_state=0, n_resamples=100
    )
    assert ci["level"].tolist() == [0.8, 0.95]
    assert ci["lower"].iloc[1] <= ci["lower"].iloc[0]
    assert ci["upper"].iloc[0] <= ci["upper"].iloc[1]
    assert ci["se"].iloc[0] == ci["se"].iloc[1]  # one set of replicates


def test_conf_int_refuses_unfitted_estimators_and_unknown_kinds():
    with pytest.raises(NotFittedError):
        IntervalNPMLE().conf_int("mean")
    Z = IntervalCaseI(random_state=0).fit_transform(
        np.random.default_rng(0).normal(size=(300, 1))
    )
    npmle = IntervalNPMLE().fit(Z)
    with pytest.raises(ValueError, match=r"available: \['cdf', 'mean', 'quantile'\]"):
        npmle.conf_int("pdf", [0.0], X=Z)
    with pytest.raises(ValueError, match="pass X="):
        npmle.conf_int("cdf", [0.0])
    with pytest.raises(ValueError, match="method in"):
        npmle.conf_int("cdf", [0.0], X=Z, method="naive-bootstrap")


def test_multi_feature_deconvolution_density_offers_no_population_intervals():
    z = np.random.default_rng(0).normal(size=(300, 2))
    kde = DeconvolutionKernelDensity(bandwidth=0.5, noise_scale=0.1).fit(z)
    with pytest.raises(ValueError, match="available: \\[\\]"):
        kde.conf_int("mean", X=z)


def test_normal_laplace_half_width_limits_and_monte_carlo():
    assert normal_laplace_half_width(0.0, 2.0, 0.9) == pytest.approx(2.0 * np.log(10))
    assert normal_laplace_half_width(3.0, 0.0, 0.95) == pytest.approx(
        3.0 * stats.norm.ppf(0.975)
    )
    rng = np.random.default_rng(0)
    draws = np.abs(rng.normal(0, 1.0, 400_000) + rng.laplace(0, 0.7, 400_000))
    c = normal_laplace_half_width(1.0, 0.7, 0.95)
    # Binomial SE of the empirical coverage: sqrt(.95 .05 / 4e5) = 3.4e-4.
    assert abs(np.mean(draws <= c) - 0.95) < 4 * 3.4e-4


def test_the_interface_is_on_the_population_estimate_protocol():
    from skprivate.distributions import PopulationEstimate

    assert "conf_int" in PopulationEstimate.__dict__
    # Every population estimate of the families answers it.
    Z = IntervalCaseI(random_state=0).fit_transform(
        np.random.default_rng(0).normal(size=(300, 1))
    )
    ci = IntervalNPMLE().fit(Z).conf_int("mean", X=Z)
    assert isinstance(ci, pd.DataFrame) and list(ci.columns) == COLUMNS
