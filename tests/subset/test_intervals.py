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
    np.testing.assert_allclose(ci["estimate"], fitted.distribution_)
    assert ci["point"].tolist() == fitted.categories_.tolist()


def test_cdf_of_ordered_categories_uses_the_covariance_of_partial_sums(fitted):
    ci = fitted.conf_int("cdf", [1, 2]).iloc[0]
    cov = fitted.covariance_
    assert ci["estimate"] == pytest.approx(fitted.distribution_[:2].sum())
    assert ci["se"] == pytest.approx(np.sqrt(cov[:2, :2].sum()))
    assert ci["upper"] - ci["estimate"] == pytest.approx(
        stats.norm.ppf(0.975) * ci["se"]
    )


def test_method_of_moments_estimate_is_the_reported_one_inside_its_interval():
    # A category nobody holds: the method of moments leaves the simplex
    # (a negative share), the reported estimate is its projection.
    rng = np.random.default_rng(0)
    x = rng.choice(4, size=(300, 1), p=[0.0, 0.3, 0.3, 0.4])
    est = SubsetDistributionEstimator(
        method="mom",
        privatizer=SubsetUniform(categories=[np.arange(4)], random_state=0),
    ).fit(x)
    assert est.distribution_raw_[0] < 0 == est.distribution_[0]
    z = stats.norm.ppf(0.975)
    for kind, G in (("pmf", np.eye(4)), ("cdf", np.tril(np.ones((4, 4))))):
        ci = est.conf_int(kind)
        np.testing.assert_allclose(ci["estimate"], G @ est.distribution_)
        assert (ci["lower"] <= ci["estimate"]).all()
        assert (ci["estimate"] <= ci["upper"]).all()
        raw = G @ est.distribution_raw_
        # the variance of the last CDF value (the total, 1) is zero up to
        # rounding, which may leave it a hair below zero on some BLAS kernels
        se = np.sqrt(np.clip(np.diag(G @ est.covariance_ @ G.T), 0.0, None))
        np.testing.assert_allclose(ci["se"], se, atol=1e-9)
        lower = np.minimum(np.clip(raw - z * se, 0, 1), G @ est.distribution_)
        upper = np.maximum(np.clip(raw + z * se, 0, 1), G @ est.distribution_)
        np.testing.assert_allclose(ci["lower"], lower)
        np.testing.assert_allclose(ci["upper"], upper)
    np.testing.assert_allclose(est.pmf(np.arange(4)), est.conf_int("pmf")["estimate"])


def test_interval_stretches_to_the_projected_estimate():
    # With a tiny covariance the Wald interval of the raw share 0.55 is
    # [0.55 -/+ 2e-4]; the projection (0, 0.5, 0.5) moves the estimate
    # out of it, and the interval takes it in: [0.5, 0.55 + z 1e-4].
    from types import SimpleNamespace

    from skprivate.subset._intervals import SubsetIntervalsMixin

    est = SimpleNamespace(
        distribution_raw_=np.array([-0.1, 0.55, 0.55]),
        distribution_=np.array([0.0, 0.5, 0.5]),
        covariance_=np.eye(3) * 1e-8,
    )
    reported, se, lower, upper = SubsetIntervalsMixin._ci_shares(est, np.eye(3), 0.95)
    z = stats.norm.ppf(0.975)
    np.testing.assert_allclose(reported, [0.0, 0.5, 0.5])
    np.testing.assert_allclose(se, [1e-4] * 3)
    np.testing.assert_allclose(lower, [0.0, 0.5, 0.5])
    np.testing.assert_allclose(upper, [0.0, 0.55 + z * 1e-4, 0.55 + z * 1e-4])


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
