"""Frequency-oracle intervals that mutation testing found unchecked.

``FrequencyEstimator.conf_int("pmf")``: the normal interval from the
oracle's closed-form variance plus the sampling variance, by hand, and the
percentile bootstrap of the reports, replicated draw by draw.  The spec
lists the mutants these tests were checked against
(``benchmarks/_mutation_specs_family_intervals.py``).
"""

import re

import numpy as np
import pytest
from scipy import stats

from skprivate.frequency import FrequencyEstimator, FrequencyOracle


def _exact(message):
    """The whole of an error message (a changed prefix or suffix fails too)."""
    return "^" + re.escape(message) + "$"


Z90 = stats.norm.ppf(0.95)


# -- frequency oracles -----------------------------------------------------------


def _krr(counts, method="unbiased"):
    fo = FrequencyOracle("krr", epsilon=1.0, categories=[[0, 1, 2]]).fit([[0]])
    reports = np.repeat(np.arange(3), counts)[:, None]
    return FrequencyEstimator(oracle=fo, method=method).fit(reports), reports


def test_frequency_normal_interval_by_hand():
    counts = np.array([2, 26, 12])
    est, _ = _krr(counts)
    e = np.e
    p, q, n = e / (e + 2), 1 / (e + 2), 40
    raw = (counts / n - q) / (p - q)
    assert raw[0] < 0 < raw[2] < 1 < raw[1]  # two plug-in frequencies clipped
    f = np.clip(raw, 0, 1)
    var = (f * p * (1 - p) + (1 - f) * q * (1 - q)) / (n * (p - q) ** 2)
    np.testing.assert_allclose(est.variance_, var, rtol=1e-9)
    # the interval covers the population share: the oracle's variance given
    # the respondents plus the sampling variance f (1 - f) / n
    var = var + f * (1 - f) / n
    ci = est.conf_int("pmf", level=0.9)
    np.testing.assert_allclose(ci["estimate"], raw, rtol=1e-9)
    np.testing.assert_allclose(ci["se"], np.sqrt(var), rtol=1e-9)
    # not clipped: the interval of the unbiased estimate may leave [0, 1]
    np.testing.assert_allclose(ci["lower"], raw - Z90 * np.sqrt(var), rtol=1e-9)
    np.testing.assert_allclose(ci["upper"], raw + Z90 * np.sqrt(var), rtol=1e-9)
    assert ci["lower"].iloc[0] < 0
    assert ci["point"].tolist() == [0, 1, 2]
    assert set(ci["method"]) == {
        "normal (closed-form oracle variance plus sampling variance, plug-in "
        "frequencies)"
    }
    assert set(ci["target"]) == {"P(X = category)"}
    # every report on one category: the plug-in frequency is clipped at 1
    top, _ = _krr(np.array([0, 0, 40]))
    var_top = p * (1 - p) / (n * (p - q) ** 2)
    assert top.conf_int("pmf")["se"].iloc[2] == pytest.approx(np.sqrt(var_top))
    with pytest.raises(ValueError, match="available: \\['pmf'\\]"):
        est.conf_int("mean")
    # fitted on reports the user gave: data passed to conf_int are not refused
    assert len(est.conf_int("pmf", X=np.zeros((3, 1)))) == 3


def test_frequency_bootstrap_interval_resamples_the_reports():
    counts = np.array([5, 21, 14])
    est, _ = _krr(counts, method="norm-sub")
    ci = est.conf_int(
        "pmf", level=0.8, n_resamples=6, random_state=np.random.default_rng(3)
    )
    # the same draws by hand: multinomial counts of the distinct reports,
    # each replicate the estimate refitted on the resampled reports
    rng = np.random.default_rng(3)
    reps = []
    for _ in range(6):
        drawn = rng.multinomial(40, counts / 40)
        reps.append(_krr(drawn, method="norm-sub")[0].distribution_)
    reps = np.array(reps)
    np.testing.assert_allclose(
        ci["lower"], np.quantile(reps, 0.1, axis=0, method="weibull")
    )
    np.testing.assert_allclose(
        ci["upper"], np.quantile(reps, 0.9, axis=0, method="weibull")
    )
    np.testing.assert_allclose(ci["se"], reps.std(axis=0, ddof=1))
    np.testing.assert_allclose(ci["estimate"], est.distribution_)
    assert set(ci["method"]) == {"bootstrap-percentile (reports resampled)"}
    assert set(ci["target"]) == {"P(X = category), norm-sub estimate"}
    # the unbiased estimate is bootstrapped on request only
    unbiased, _ = _krr(counts)
    assert unbiased.conf_int("pmf")["method"].iloc[0].startswith("normal")
    boot = unbiased.conf_int("pmf", method="bootstrap", n_resamples=3, random_state=0)
    assert boot["method"].iloc[0] == "bootstrap-percentile (reports resampled)"
    assert boot["target"].iloc[0] == "P(X = category), unbiased estimate"
    with pytest.raises(
        ValueError,
        match=_exact(
            "FrequencyEstimator computes 'pmf' intervals with method in "
            "['bootstrap', 'normal'] (or 'auto'); got method='wald'."
        ),
    ):
        unbiased.conf_int("pmf", method="wald")
