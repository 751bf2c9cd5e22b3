"""Longitudinal frequency estimates: intervals, partial_fit, dask."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import norm

from skprivate.frequency import LongitudinalFrequencyEstimator, LongitudinalOracle

SHARES = np.array([0.2, 0.3, 0.5])


def _reports(kind, n, waves, seed, eps_p=2.0, eps_i=1.0):
    lo = LongitudinalOracle(
        kind=kind,
        epsilon_permanent=eps_p,
        epsilon_instant=eps_i,
        waves=waves,
        categories=[[0, 1, 2]],
        random_state=seed,
    )
    x = np.random.default_rng(seed).choice(3, size=(n, 1), p=SHARES)
    return lo.fit(x), lo.transform(x)


@pytest.mark.parametrize("kind", ["krr", "oue"])
def test_normal_interval_is_the_pooled_estimate_and_its_variance(kind):
    lo, R = _reports(kind, 3000, 3, 0)
    est = LongitudinalFrequencyEstimator(oracle=lo).fit(R)
    ci = est.conf_int("pmf", level=0.9)
    z = norm.ppf(0.95)
    share = np.clip(est.distribution_raw_, 0, 1)
    se = np.sqrt(est.variance_ + share * (1 - share) / 3000)
    np.testing.assert_allclose(ci["estimate"], est.distribution_raw_)
    np.testing.assert_allclose(ci["lower"], est.distribution_raw_ - z * se)
    np.testing.assert_allclose(ci["upper"], est.distribution_raw_ + z * se)
    assert list(ci["point"]) == [0, 1, 2]
    assert (ci["method"].str.startswith("normal")).all()
    # the pooled variance keeps the waves' covariance: above V / T
    assert np.all(est.variance_ > est.wave_variance_ / 3)


def test_normal_interval_covers_at_its_level():
    # 300 samples of k-RR in 4 waves: each category's 95 % interval covers
    # its population share in 0.95 of them (binomial standard error 0.0126;
    # the band is about 2.8 of them)
    covered = np.zeros(3)
    lo = LongitudinalOracle(
        epsilon_permanent=1.0, epsilon_instant=2.0, waves=4, categories=[[0, 1, 2]]
    ).fit([[0]])
    est = LongitudinalFrequencyEstimator(oracle=lo)
    rng = np.random.default_rng(1)
    for _ in range(300):
        x = rng.choice(3, size=(800, 1), p=SHARES)
        lo.set_params(random_state=int(rng.integers(2**31)))
        ci = est.fit(lo.transform(x)).conf_int("pmf")
        covered += (ci["lower"] <= SHARES) & (ci["upper"] >= SHARES)
    assert np.all((covered / 300 > 0.915) & (covered / 300 < 0.985))


def test_bootstrap_resamples_respondents_with_all_their_waves():
    # A weak permanent stage and a strong instantaneous one: the waves of a
    # respondent are strongly dependent, so the pooled variance is far above
    # V / T.  The respondent bootstrap's standard error matches the closed
    # form (within 10 %: 400 replicates give about 3.5 %); resampling the
    # waves independently would give about sqrt(V / T).
    lo, R = _reports("krr", 4000, 4, 2, eps_p=0.7, eps_i=4.0)
    est = LongitudinalFrequencyEstimator(oracle=lo).fit(R)
    ci = est.conf_int("pmf", method="bootstrap", n_resamples=400, random_state=0)
    share = np.clip(est.distribution_raw_, 0, 1)
    total = np.sqrt(est.variance_ + share * (1 - share) / 4000)
    ratio = ci["se"].to_numpy() / total
    assert np.all(np.abs(ratio - 1) < 0.1)
    assert np.all(np.sqrt(est.wave_variance_ / 4) < 0.75 * np.sqrt(est.variance_))
    # norm-sub takes the bootstrap by default, around its own estimate
    ns = LongitudinalFrequencyEstimator(oracle=lo, method="norm-sub").fit(R)
    ci = ns.conf_int("pmf", n_resamples=200, random_state=0)
    assert ci["method"].str.startswith("bootstrap").all()
    np.testing.assert_allclose(ci["estimate"], ns.distribution_)
    assert np.isclose(ns.distribution_.sum(), 1.0)
    assert np.all((ci["lower"] <= ci["estimate"]) & (ci["estimate"] <= ci["upper"]))


@pytest.mark.parametrize("kind", ["krr", "oue"])
def test_partial_fit_in_chunks_equals_one_fit(kind):
    lo, R = _reports(kind, 1000, 2, 3)
    whole = LongitudinalFrequencyEstimator(oracle=lo).fit(R)
    parts = LongitudinalFrequencyEstimator(oracle=lo)
    for chunk in np.array_split(R, 4):
        parts.partial_fit(chunk)
    np.testing.assert_array_equal(parts.report_counts_, whole.report_counts_)
    np.testing.assert_array_equal(parts.distribution_raw_, whole.distribution_raw_)
    np.testing.assert_array_equal(parts.variance_, whole.variance_)
    assert parts.n_samples_seen_ == 1000


def test_a_bad_report_in_a_later_chunk_names_its_row_in_the_whole_data():
    lo, R = _reports("krr", 20, 2, 4)
    est = LongitudinalFrequencyEstimator(oracle=lo).partial_fit(R[:10])
    bad = R[10:].copy()
    bad[3, 1] = 7
    with pytest.raises(ValueError, match=r"row 13, column 1 does not"):
        est.partial_fit(bad)
    # nothing changed
    assert est.n_samples_seen_ == 10


def test_dask_fit_equals_the_in_memory_fit():
    da = pytest.importorskip("dask.array")
    lo, R = _reports("oue", 1200, 2, 5)
    whole = LongitudinalFrequencyEstimator(oracle=lo).fit(R)
    lazy = LongitudinalFrequencyEstimator(oracle=lo).fit(
        da.from_array(R, chunks=(250, R.shape[1]))
    )
    np.testing.assert_array_equal(lazy.distribution_raw_, whole.distribution_raw_)
    np.testing.assert_array_equal(lazy.report_counts_, whole.report_counts_)
    bad = R.copy()
    bad[777, 0] = 2
    with pytest.raises(ValueError, match=r"row 777, column 0 does not"):
        LongitudinalFrequencyEstimator(oracle=lo).fit(
            da.from_array(bad, chunks=(250, R.shape[1]))
        )
