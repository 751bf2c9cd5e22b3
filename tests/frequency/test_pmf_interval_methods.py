"""The base-cut interval, its bootstrap warning and the bootstrap's order statistics."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from scipy import stats

from skprivate._uncertainty import IntervalRequest
from skprivate.exceptions import CoverageWarning
from skprivate.frequency import (
    FrequencyEstimator,
    FrequencyOracle,
    LongitudinalFrequencyEstimator,
    LongitudinalOracle,
)
from skprivate.frequency._pmf_intervals import resample_reports


def _reports(counts, epsilon=1.0, seed=0):
    """KRR reports of respondents with exactly ``counts`` of each category."""
    codes = np.repeat(np.arange(len(counts)), counts)[:, None]
    fo = FrequencyOracle(
        "krr",
        epsilon=epsilon,
        categories=[list(range(len(counts)))],
        random_state=seed,
    )
    return fo.fit(codes).transform(codes), fo


def _caught(call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        frame = call()
    return frame, [w for w in caught if w.category is CoverageWarning]


def _request(n_resamples, random_state):
    return IntervalRequest(
        kind="pmf",
        points=None,
        level=0.95,
        method="bootstrap",
        X=None,
        y=None,
        n_resamples=n_resamples,
        random_state=random_state,
        n_jobs=None,
    )


def test_base_cut_default_is_the_unbiased_normal_interval_around_the_cut_estimate():
    # alpha = 1e-6 puts the cut at z = 5.2 null standard errors: category 1
    # (true share 0.15) is cut although its normal interval lies above 0.
    reports, fo = _reports([300, 150, 250, 300], seed=2)
    est = FrequencyEstimator(oracle=fo, method="base-cut", alpha=1e-6).fit(reports)
    raw = est.distribution_raw_
    sigma0 = np.sqrt(est.oracle_.variance(0.0, 1000))
    threshold = stats.norm.ppf(1 - 1e-6 / 4) * sigma0
    share = np.clip(raw, 0, 1)
    se = np.sqrt(est.variance_ + share * (1 - share) / 1000)
    z = stats.norm.ppf(0.975)
    assert raw[1] < threshold and raw[1] - z * se[1] > 0  # the setting
    np.testing.assert_array_equal(est.distribution_, [raw[0], 0.0, raw[2], raw[3]])
    ci = est.conf_int("pmf")
    assert ci["method"].iloc[0].startswith("normal")
    assert "widened to hold the base-cut estimate" in ci["method"].iloc[0]
    assert ci["target"].iloc[0] == "P(X = category)"
    np.testing.assert_allclose(ci["estimate"], est.distribution_)
    np.testing.assert_allclose(ci["se"], se)
    kept = [0, 2, 3]
    np.testing.assert_allclose(ci["lower"].to_numpy()[kept], (raw - z * se)[kept])
    np.testing.assert_allclose(ci["upper"].to_numpy()[kept], (raw + z * se)[kept])
    # the cut category: widened down to its estimate 0, upper end unchanged
    assert ci["lower"].iloc[1] == 0.0
    assert ci["upper"].iloc[1] == pytest.approx(raw[1] + z * se[1])


def test_base_cut_interval_is_clipped_to_the_unit_interval():
    # a category with no respondent: its unbiased estimate's interval
    # reaches below 0, clipped there
    reports, fo = _reports([0, 500, 500])
    est = FrequencyEstimator(oracle=fo, method="base-cut").fit(reports)
    ci = est.conf_int("pmf", level=0.99)
    assert (ci["lower"] >= 0).all() and (ci["upper"] <= 1).all()
    assert ci["lower"].iloc[0] == 0.0
    assert ((ci["lower"] <= ci["estimate"]) & (ci["estimate"] <= ci["upper"])).all()


def test_base_cut_bootstrap_warns_and_names_the_category_near_the_cut():
    # epsilon = 1, 500 respondents: the cut is near 0.13 and category 0
    # (share 0.1) lies under it, so the resamples fall on both sides
    reports, fo = _reports([50, 100, 150, 200], seed=3)
    est = FrequencyEstimator(oracle=fo, method="base-cut").fit(reports)
    _, found = _caught(
        lambda: est.conf_int(
            "pmf",
            method="bootstrap",
            level=(0.95, 0.99),
            n_resamples=200,
            random_state=0,
        )
    )
    # once per call, whatever the number of levels
    assert len(found) == 1
    message = str(found[0].message)
    assert message.startswith(
        "FrequencyEstimator: the bootstrap pmf interval of the base-cut estimate "
        "may cover less often than its level"
    )
    # the share of resamples cut, recomputed from the same replicates
    reps = resample_reports(
        _request(200, 0), est.reports_, est.report_counts_, est._resampled_estimate
    )
    zeroed = (reps == 0.0).mean(axis=0)
    # categories 0 and 2 are cut in more than 2.5% of the resamples (at the
    # first level, 0.95), 1 in fewer, 3 in none
    assert zeroed.tolist() == [0.865, 0.02, 0.085, 0.0]
    named = f"(category 0 in {zeroed[0]:.0%} of them, 2 in {zeroed[2]:.0%} of them)"
    assert named in message
    assert "method='normal'" in message
    assert found[0].filename == __file__


def test_base_cut_bootstrap_far_from_the_cut_and_other_methods_do_not_warn():
    # epsilon = 4: the cut is near 0.025, every share is far above it
    reports, fo = _reports([50, 100, 150, 200], epsilon=4.0, seed=3)
    est = FrequencyEstimator(oracle=fo, method="base-cut").fit(reports)
    _, found = _caught(
        lambda: est.conf_int("pmf", method="bootstrap", n_resamples=200, random_state=0)
    )
    assert found == []
    # a norm-sub bootstrap whose estimate sits at 0 is not the cut's concern
    reports, fo = _reports([0, 100, 150, 200], seed=3)
    ns = FrequencyEstimator(oracle=fo, method="norm-sub").fit(reports)
    _, found = _caught(lambda: ns.conf_int("pmf", n_resamples=200, random_state=0))
    assert found == []


@pytest.mark.parametrize("method", ["norm-sub", "ibu", "base-cut"])
def test_bootstrap_ends_are_the_b_plus_one_order_statistics(method):
    reports, fo = _reports([50, 100, 150, 200], seed=1)
    est = FrequencyEstimator(oracle=fo, method=method).fit(reports)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", CoverageWarning)
        ci = est.conf_int("pmf", method="bootstrap", n_resamples=199, random_state=5)
    reps = resample_reports(
        _request(199, 5), est.reports_, est.report_counts_, est._resampled_estimate
    )
    # with B = 199 the (B + 1) 0.025-th and 0.975-th order statistics are
    # the 5th and the 195th replicates
    ordered = np.sort(reps, axis=0)
    np.testing.assert_allclose(ci["lower"], ordered[4])
    np.testing.assert_allclose(ci["upper"], ordered[194])


def test_longitudinal_bootstrap_ends_are_the_b_plus_one_order_statistics():
    codes = np.repeat(np.arange(3), [100, 150, 250])[:, None]
    lo = LongitudinalOracle(
        kind="krr",
        epsilon_permanent=2.0,
        epsilon_instant=1.0,
        waves=2,
        categories=[[0, 1, 2]],
        random_state=0,
    )
    reports = lo.fit_transform(codes)
    est = LongitudinalFrequencyEstimator(oracle=lo, method="norm-sub").fit(reports)
    ci = est.conf_int("pmf", n_resamples=199, random_state=2)
    reps = resample_reports(
        _request(199, 2), est.reports_, est.report_counts_, est._resampled_estimate
    )
    ordered = np.sort(reps, axis=0)
    np.testing.assert_allclose(ci["lower"], ordered[4])
    np.testing.assert_allclose(ci["upper"], ordered[194])
