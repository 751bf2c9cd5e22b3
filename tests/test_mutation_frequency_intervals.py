"""The ``conf_int("pmf")`` code the frequency estimators share, by hand.

``skprivate/frequency/_pmf_intervals.py``: the choice of the interval, the
normal interval (the mechanism's variance given the respondents plus the
sampling variance ``f (1 - f) / n`` at the clipped plug-in frequencies) and
the percentile bootstrap of respondents (multinomial counts of the distinct
report rows).  Each case is recomputed here from its definition, for the
longitudinal estimator and for the helper alone (the one-wave estimator's
cases are in ``tests/test_mutation_family_intervals_frequency.py``).
``benchmarks/_mutation_specs_frequency.py`` lists the mutants these tests
were checked against.
"""

import re
from types import SimpleNamespace

import numpy as np
import pytest
from scipy import stats

from skprivate._uncertainty import DEFAULT_RESAMPLES, IntervalRequest
from skprivate.frequency import (
    FrequencyEstimator,
    FrequencyOracle,
    LongitudinalFrequencyEstimator,
    LongitudinalOracle,
)
from skprivate.frequency._longitudinal import _wave_estimates
from skprivate.frequency._pmf_intervals import pmf_conf_int, resample_reports


def _exact(message):
    return "^" + re.escape(message) + "$"


def _request(method="auto", level=0.9, n_resamples=None, random_state=0):
    return IntervalRequest(
        kind="pmf",
        points=None,
        level=level,
        method=method,
        X=None,
        y=None,
        n_resamples=n_resamples,
        random_state=random_state,
        n_jobs=None,
    )


def _longitudinal(method="unbiased"):
    lo = LongitudinalOracle(
        epsilon_permanent=2.0, epsilon_instant=1.0, waves=2, categories=[[0, 1, 2]]
    ).fit([[0]])
    # 6 respondents: the plug-in frequency of category 1 is clipped at 0
    X = np.array([[0, 1]] * 3 + [[2, 2]] + [[0, 0]] * 2)
    return LongitudinalFrequencyEstimator(oracle=lo, method=method).fit(X)


def test_longitudinal_normal_interval_by_hand():
    est = _longitudinal()
    raw = est.distribution_raw_
    f = np.clip(raw, 0, 1)
    assert (raw < 0).any() or (raw > 1).any()
    se = np.sqrt(est.variance_ + f * (1 - f) / 6)
    z = stats.norm.ppf(0.95)
    ci = est.conf_int("pmf", level=0.9)
    np.testing.assert_allclose(ci["estimate"], raw, rtol=1e-13)
    np.testing.assert_allclose(ci["se"], se, rtol=1e-13)
    np.testing.assert_allclose(ci["lower"], raw - z * se, rtol=1e-12)
    np.testing.assert_allclose(ci["upper"], raw + z * se, rtol=1e-12)
    assert ci["point"].tolist() == [0, 1, 2]
    assert set(ci["quantity"]) == {"pmf"}
    assert set(ci["level"]) == {0.9}
    assert set(ci["method"]) == {
        "normal (closed-form pooled variance of the waves plus sampling variance, "
        "plug-in frequencies)"
    }
    assert set(ci["target"]) == {"P(X = category)"}


def test_longitudinal_bootstrap_by_hand():
    est = _longitudinal("norm-sub")
    ci = est.conf_int(
        "pmf", level=[0.5, 0.8], n_resamples=7, random_state=np.random.default_rng(4)
    )
    rng = np.random.default_rng(4)
    counts = est.report_counts_
    reps = []
    for _ in range(7):
        drawn = rng.multinomial(6, counts / 6)
        keep = drawn > 0
        raw = _wave_estimates(est.oracle_, 2, est.reports_[keep], drawn[keep])
        reps.append(est._resampled_estimate(est.reports_[keep], drawn[keep]))
        assert np.allclose(reps[-1].sum(), 1.0)
        assert not np.allclose(reps[-1], raw.mean(axis=0))
    reps = np.array(reps)
    assert ci["level"].tolist() == [0.5] * 3 + [0.8] * 3
    assert ci["point"].tolist() == [0, 1, 2] * 2
    assert set(ci["quantity"]) == {"pmf"}
    # both levels read the same replicates
    for level, block in ci.groupby("level"):
        a = 1 - level
        np.testing.assert_allclose(
            block["lower"], np.quantile(reps, a / 2, axis=0, method="weibull")
        )
        np.testing.assert_allclose(
            block["upper"], np.quantile(reps, 1 - a / 2, axis=0, method="weibull")
        )
        np.testing.assert_allclose(block["se"], reps.std(axis=0, ddof=1))
        np.testing.assert_allclose(block["estimate"], est.distribution_)
    assert set(ci["method"]) == {
        "bootstrap-percentile (respondents resampled with all their waves)"
    }
    assert set(ci["target"]) == {"P(X = category), norm-sub estimate"}


def test_longitudinal_auto_choice_and_refusal():
    assert _longitudinal().conf_int("pmf")["method"].iloc[0].startswith("normal")
    boot = _longitudinal("norm-sub").conf_int("pmf", n_resamples=3, random_state=0)
    assert boot["method"].iloc[0].startswith("bootstrap")
    asked = _longitudinal().conf_int(
        "pmf", method="bootstrap", n_resamples=3, random_state=0
    )
    assert asked["target"].iloc[0] == "P(X = category), unbiased estimate"
    message = (
        "LongitudinalFrequencyEstimator computes 'pmf' intervals with method in "
        "['bootstrap', 'normal'] (or 'auto'); got method='wald'."
    )
    with pytest.raises(ValueError, match=_exact(message)):
        _longitudinal().conf_int("pmf", method="wald")


# -- the helper alone ------------------------------------------------------------


class Recorder:
    """An estimate that records what it is given and returns its counts."""

    def __init__(self):
        self.calls = []

    def __call__(self, rows, counts):
        self.calls.append((rows.copy(), counts.copy()))
        return np.array([counts.sum(), rows[:, 0] @ counts], dtype=float)


def test_resample_reports_draws_multinomial_counts_of_the_rows():
    rows = np.array([[0], [1], [2], [3]])
    counts = np.array([1, 0, 5, 2])
    record = Recorder()
    reps = resample_reports(
        _request(n_resamples=5, random_state=9), rows, counts, record
    )
    assert reps.shape == (5, 2)
    rng = np.random.default_rng(9)
    for (got_rows, got_counts), rep in zip(record.calls, reps, strict=True):
        drawn = rng.multinomial(8, counts / 8)
        keep = drawn > 0
        np.testing.assert_array_equal(got_rows, rows[keep])
        np.testing.assert_array_equal(got_counts, drawn[keep])
        assert got_counts.min() > 0
        assert rep[0] == 8
    # a row never seen is never drawn
    assert all(1 not in r[:, 0] for r, _ in record.calls)


def test_resample_reports_default_count():
    record = Recorder()
    resample_reports(
        _request(random_state=1), np.array([[0], [1]]), np.array([2, 2]), record
    )
    assert len(record.calls) == DEFAULT_RESAMPLES


def _owner(method="unbiased"):
    return SimpleNamespace(
        method=method,
        categories_=np.array(["a", "b"]),
        distribution_raw_=np.array([1.25, -0.25]),
        distribution_=np.array([0.9, 0.1]),
        variance_=np.array([0.01, 0.04]),
        n_samples_seen_=4,
        reports_=np.array([[0], [1]]),
        report_counts_=np.array([3, 1]),
    )


def test_normal_frame_of_the_helper():
    owner = _owner()
    ci = pmf_conf_int(
        _request(level=0.8), owner, normal="N", bootstrap="B", estimate=None
    )
    # clipped plug-in frequencies 1 and 0: no sampling variance
    se = np.sqrt([0.01, 0.04])
    z = stats.norm.ppf(0.9)
    np.testing.assert_allclose(ci["se"], se, rtol=1e-15)
    np.testing.assert_allclose(ci["lower"], [1.25 - z * se[0], -0.25 - z * se[1]])
    assert ci["point"].tolist() == ["a", "b"]
    assert ci["method"].tolist() == ["N", "N"]
    owner.distribution_raw_ = np.array([0.75, 0.25])
    ci = pmf_conf_int(_request(), owner, normal="N", bootstrap="B", estimate=None)
    sampling = 0.75 * 0.25 / 4
    np.testing.assert_allclose(
        ci["se"], np.sqrt([0.01 + sampling, 0.04 + sampling]), rtol=1e-15
    )


def test_bootstrap_frame_of_the_helper_is_memoised():
    owner = _owner("ibu")
    record = Recorder()
    request = _request(level=0.5, n_resamples=4, random_state=2)
    ci = pmf_conf_int(request, owner, normal="N", bootstrap="B", estimate=record)
    assert len(record.calls) == 4
    again = pmf_conf_int(request, owner, normal="N", bootstrap="B", estimate=record)
    assert len(record.calls) == 4  # the same call's replicates
    reps = np.array([record(r, c) for r, c in record.calls[:4]])
    np.testing.assert_allclose(
        ci["lower"], np.quantile(reps, 0.25, axis=0, method="weibull")
    )
    np.testing.assert_allclose(
        ci["upper"], np.quantile(reps, 0.75, axis=0, method="weibull")
    )
    np.testing.assert_allclose(ci["se"], reps.std(axis=0, ddof=1))
    assert ci["estimate"].tolist() == [0.9, 0.1]
    assert ci["point"].tolist() == ["a", "b"]
    assert ci["level"].tolist() == [0.5, 0.5]
    assert ci["quantity"].tolist() == ["pmf", "pmf"]
    assert ci["method"].tolist() == ["B", "B"]
    assert ci["target"].tolist() == ["P(X = category), ibu estimate"] * 2
    assert ci.equals(again)


# -- the one-wave estimator's interval code ---------------------------------------


def _privatized():
    fo = FrequencyOracle("krr", epsilon=1.0, categories=[[0, 1, 2]], random_state=0)
    return FrequencyEstimator(privatizer=fo).fit(np.array([[0], [1], [2], [1]]))


@pytest.mark.parametrize("name", ["X", "y"])
def test_raw_data_are_refused_after_a_privatized_fit(name):
    est = _privatized()
    message = (
        "FrequencyEstimator was fitted with privatizer=, so it privatized its "
        "input itself: its intervals are computed from its own release "
        f"(released_), and data passed as {name} would be the raw values given "
        "to fit, which an interval must not use (two intervals on data that "
        f"differ in one record reveal that record). Call conf_int without {name}."
    )
    with pytest.raises(ValueError, match=_exact(message)):
        est.conf_int("pmf", **{name: np.zeros((4, 1))})
    assert len(est.conf_int("pmf")) == 3


def test_ibu_bootstrap_refits_the_resampled_reports():
    fo = FrequencyOracle("oue", epsilon=1.0, categories=[[0, 1, 2]]).fit([[0]])
    reports = np.array([[1, 0, 0]] * 5 + [[0, 1, 1]] * 2 + [[0, 0, 1]] * 3)
    est = FrequencyEstimator(oracle=fo, method="ibu").fit(reports)
    ci = est.conf_int("pmf", level=0.8, n_resamples=4, random_state=1)
    rng = np.random.default_rng(1)
    reps = []
    for _ in range(4):
        drawn = rng.multinomial(10, est.report_counts_ / 10)
        rows = np.repeat(est.reports_, drawn, axis=0)
        reps.append(FrequencyEstimator(oracle=fo, method="ibu").fit(rows).distribution_)
    reps = np.array(reps)
    np.testing.assert_allclose(
        ci["lower"], np.quantile(reps, 0.1, axis=0, method="weibull"), atol=1e-9
    )
    np.testing.assert_allclose(
        ci["upper"], np.quantile(reps, 0.9, axis=0, method="weibull"), atol=1e-9
    )


def test_one_report_is_estimated_and_none_is_refused():
    fo = FrequencyOracle("krr", epsilon=1.0, categories=[[0, 1, 2]]).fit([[0]])
    est = FrequencyEstimator(oracle=fo).fit(np.array([[1]]))
    p, q = est.oracle_.p_star, est.oracle_.q_star
    want = (np.array([0.0, 1.0, 0.0]) - q) / (p - q)
    np.testing.assert_allclose(est.distribution_raw_, want, rtol=1e-13)
    assert est.n_samples_seen_ == 1
    da = pytest.importorskip("dask.array")
    empty = da.from_array(np.zeros((0, 1), dtype=int), chunks=(1, 1))
    message = "X holds no report; there is nothing to estimate from."
    with pytest.raises(ValueError, match=_exact(message)):
        FrequencyEstimator(oracle=fo).fit(empty)
