"""Intervals of the subset estimator on the common conf_int interface."""

import numpy as np
import pytest
from scipy import stats

from skprivate.subset import SubsetDistributionEstimator, SubsetUniform


@pytest.fixture(scope="module")
def fitted():
    rng = np.random.default_rng(0)
    x = rng.choice(4, size=(4000, 1), p=[0.1, 0.2, 0.3, 0.4])
    est = SubsetDistributionEstimator(
        method="mle",
        privatizer=SubsetUniform(categories=[np.arange(4)], random_state=1),
    )
    return est.fit(x)


def test_pmf_intervals_are_the_existing_confidence_intervals(fitted):
    lower, upper = fitted.confidence_intervals(0.9)
    ci = fitted.conf_int("pmf", level=0.9)
    np.testing.assert_allclose(ci["lower"], lower)
    np.testing.assert_allclose(ci["upper"], upper)
    np.testing.assert_allclose(ci["estimate"], fitted.distribution_raw_)
    assert ci["point"].tolist() == fitted.categories_.tolist()


def test_cdf_of_ordered_categories_uses_the_covariance_of_partial_sums(fitted):
    ci = fitted.conf_int("cdf", [1, 2]).iloc[0]
    cov = fitted.covariance_
    assert ci["estimate"] == pytest.approx(fitted.distribution_raw_[:2].sum())
    assert ci["se"] == pytest.approx(np.sqrt(cov[:2, :2].sum()))
    assert ci["upper"] - ci["estimate"] == pytest.approx(
        stats.norm.ppf(0.975) * ci["se"]
    )


def test_only_category_kinds_and_known_labels(fitted):
    with pytest.raises(ValueError, match=r"available: \['cdf', 'pmf'\]"):
        fitted.conf_int("mean")
    with pytest.raises(ValueError, match="not categories"):
        fitted.conf_int("pmf", [7])


def test_pmf_interval_covers_at_95():
    hits, reps = 0, 200
    for seed in range(reps):
        rng = np.random.default_rng(seed)
        x = rng.choice(4, size=(1500, 1), p=[0.1, 0.2, 0.3, 0.4])
        mech = SubsetUniform(categories=[np.arange(4)], random_state=seed)
        reports = mech.fit_transform(x)
        est = SubsetDistributionEstimator(method="mle", design=mech).fit(reports)
        ci = est.conf_int("pmf", [2]).iloc[0]
        hits += ci["lower"] <= 0.3 <= ci["upper"]
    assert abs(hits / reps - 0.95) < 3 * np.sqrt(0.95 * 0.05 / reps)
