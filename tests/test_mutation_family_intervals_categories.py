"""Category and mean intervals that mutation testing found unchecked.

The subset estimator's Wald intervals and the negative survey's moment
mean, each pinned by an exact small case.  The spec lists the mutants each
module's tests were checked against
(``benchmarks/_mutation_specs_family_intervals.py``).
"""

import re

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber
from skprivate.subset import SubsetDistributionEstimator, SubsetUniform


def _exact(message):
    """The whole of an error message (a changed prefix or suffix fails too)."""
    return "^" + re.escape(message) + "$"


# the tiny samples here are far from the sizes the estimators are meant for
pytestmark = [
    pytest.mark.filterwarnings("ignore::skprivate.exceptions.CoverageWarning"),
    pytest.mark.filterwarnings("ignore::skprivate.exceptions.NotIdentifiableWarning"),
]

Z90 = stats.norm.ppf(0.95)

# -- subset privacy ------------------------------------------------------------


@pytest.fixture(scope="module")
def subset_fit():
    rng = np.random.default_rng(0)
    labels = np.array(["a", "b", "c"])
    x = labels[rng.choice(3, size=(80, 1), p=[0.03, 0.07, 0.9])]
    est = SubsetDistributionEstimator(
        method="mle", privatizer=SubsetUniform(categories=[labels], random_state=2)
    )
    return est.fit(x)


def test_subset_pmf_and_cdf_intervals_by_hand(subset_fit):
    w, cov = subset_fit.distribution_raw_, subset_fit.covariance_
    z = stats.norm.ppf(0.995)
    pmf = subset_fit.conf_int("pmf", ["c", "a"], level=0.99)
    assert pmf["point"].tolist() == ["c", "a"]
    for row, j in zip(pmf.itertuples(), (2, 0)):
        se = np.sqrt(cov[j, j])
        assert row.estimate == w[j]
        assert row.se == pytest.approx(se)
        assert row.lower == pytest.approx(np.clip(w[j] - z * se, 0, 1))
        assert row.upper == pytest.approx(np.clip(w[j] + z * se, 0, 1))
    assert pmf["lower"].iloc[1] == 0.0 and pmf["upper"].iloc[0] == 1.0  # clipped
    assert set(pmf["method"]) == {"wald (estimator covariance)"}
    assert set(pmf["target"]) == {"P(X = category)"}
    cdf = subset_fit.conf_int("cdf", level=0.99)
    assert cdf["point"].tolist() == ["a", "b", "c"]
    for j in range(3):
        se = np.sqrt(max(cov[: j + 1, : j + 1].sum(), 0.0))
        assert cdf["estimate"].iloc[j] == pytest.approx(w[: j + 1].sum())
        assert cdf["se"].iloc[j] == pytest.approx(se, abs=1e-9)
    # the last partial sum is 1 with no variance (a negative rounding is 0)
    assert cdf["se"].iloc[2] == pytest.approx(0.0, abs=1e-8)
    assert set(cdf["target"]) == {"P(X <= category)"}
    with pytest.raises(
        ValueError,
        match=_exact(
            "points holds labels that are not categories: ['d', 7]; the "
            "categories are ['a', 'b', 'c']."
        ),
    ):
        subset_fit.conf_int("pmf", ["a", "d", 7])
    with pytest.raises(
        ValueError,
        match=_exact(
            "SubsetDistributionEstimator computes 'pmf' intervals with method in "
            "['wald'] (or 'auto'); got method='bootstrap'."
        ),
    ):
        subset_fit.conf_int("pmf", method="bootstrap")
    assert set(pmf["quantity"]) == {"pmf"} and set(cdf["quantity"]) == {"cdf"}


def test_subset_cdf_of_every_category_has_no_variance():
    # The variance of the last partial sum (the total, 1) is zero in exact
    # arithmetic, so the fitted covariance gives a rounding-sized number of
    # either sign, depending on the machine's summation order.  A covariance
    # whose total is exactly negative on every machine (binary fractions)
    # pins that a negative variance is read as 0, not as NaN.
    labels = np.array(["a", "b", "c", "d"])
    rng = np.random.default_rng(0)
    x = labels[rng.choice(4, size=(90, 1), p=[0.03, 0.07, 0.3, 0.6])]
    est = SubsetDistributionEstimator(
        method="mom", privatizer=SubsetUniform(categories=[labels], random_state=0)
    ).fit(x)
    fitted = est.conf_int("cdf", ["d"]).iloc[0]
    assert fitted["se"] < 1e-8
    assert fitted["lower"] == pytest.approx(1.0) == fitted["upper"]
    est.covariance_ = np.diag([0.25, 0.25, 0.25, -0.875])
    got = est.conf_int("cdf", list(labels))
    np.testing.assert_array_equal(got["se"], [0.5, np.sqrt(0.5), np.sqrt(0.75), 0.0])
    last = got.iloc[3]
    assert last["lower"] == last["upper"] == pytest.approx(1.0)


# -- negative survey -------------------------------------------------------------


def _rvns(placement, k=2, **kw):
    x = np.linspace(3, 11, 12)[:, None]
    Y = RVNSPerturber(
        d=2.0, k=k, bounds=(2, 12), placement=placement, random_state=1
    ).fit_transform(x)
    est = RVNSDensityEstimator(
        d=2.0, bounds=(2, 12), n_points=20, placement=placement, **kw
    )
    return est.fit(Y), Y


def test_rvns_moment_mean_by_hand():
    a, b, d = 2.0, 12.0, 2.0  # a != 0: (a - d) and b - a tell signs apart
    span = b - a + d
    centre = ((b + d) ** 2 - (a - d) ** 2) / (2 * span)
    est, Y = _rvns("boundary_safe")
    units = Y.mean(axis=1)  # a respondent's two reports are one unit
    mean = (centre - units.mean()) * span / d
    se = units.std(ddof=1) / np.sqrt(12) * span / d
    for ci in (
        est.conf_int("mean", X=Y, level=0.9),
        est.conf_int("mean", X=Y, level=0.9, method="moment"),
    ):
        row = ci.iloc[0]
        assert row["estimate"] == pytest.approx(mean, rel=1e-12)
        assert row["se"] == pytest.approx(se, rel=1e-12)
        assert (row["lower"], row["upper"]) == pytest.approx(
            (mean - Z90 * se, mean + Z90 * se), rel=1e-12
        )
        assert row["method"] == "moment (unbiased)"
        assert row["quantity"] == "mean"
        assert row["target"] == "E[X]"
    # one report per respondent, given as a 1-d array
    one, Y1 = _rvns("boundary_safe", k=1)
    got = one.conf_int("mean", X=Y1[:, 0]).iloc[0]
    assert got["estimate"] == pytest.approx((centre - Y1.mean()) * span / d)
    with pytest.raises(
        ValueError, match=_exact("A mean interval needs at least two respondents.")
    ):
        est.conf_int("mean", X=Y[:1])
    # two respondents are enough
    two = est.conf_int("mean", X=Y[:2]).iloc[0]
    assert two["se"] == pytest.approx(
        Y[:2].mean(axis=1).std(ddof=1) / np.sqrt(2) * span / d
    )


def test_rvns_moment_mean_reads_reports_given_as_text():
    """Reports given as numeric text give the moment mean of the numbers."""
    est, Y = _rvns("boundary_safe")
    pd.testing.assert_frame_equal(
        est.conf_int("mean", X=Y.astype(str), level=0.9),
        est.conf_int("mean", X=Y, level=0.9),
    )


def test_rvns_intervals_with_the_top_report_cells_empty():
    """Report cells above every report count zero: the tilted fit's intervals hold."""
    x = np.linspace(3, 11, 12)[:, None]
    Y = RVNSPerturber(
        d=2.0, k=1, bounds=(2, 12), placement="paper", random_state=0
    ).fit_transform(x)
    est = RVNSDensityEstimator(d=2.0, bounds=(2, 12), n_points=20, placement="paper")
    est.fit(Y)
    assert est.moment_correction and Y.max() < est.report_edges_[-3]
    points = [5.0, 8.0]
    ci = est.conf_int("cdf", points, X=Y, method="smoothed", level=0.9)
    np.testing.assert_allclose(ci["estimate"], est.cdf(points), rtol=1e-6)
    se = ci["se"].to_numpy()
    assert (se > 0).all()
    np.testing.assert_allclose(
        ci["lower"], np.clip(ci["estimate"] - Z90 * se, 0, 1), atol=1e-12
    )
    np.testing.assert_allclose(
        ci["upper"], np.clip(ci["estimate"] + Z90 * se, 0, 1), atol=1e-12
    )


def test_rvns_moment_mean_needs_the_boundary_safe_placement():
    est, Y = _rvns("paper")
    assert est.conf_int("mean", X=Y).iloc[0]["method"] == (
        "linearized EMS, bias-corrected (delta method)"
    )
    with pytest.raises(
        ValueError,
        match=_exact(
            "method='moment' needs the boundary-safe placement (with the "
            "paper's, E[Y | x] is not affine near the bounds)."
        ),
    ):
        est.conf_int("mean", X=Y, method="moment")
    with pytest.raises(
        ValueError,
        match="^"
        + re.escape(
            "RVNSDensityEstimator computes 'mean' intervals with method in "
            "['bootstrap', 'linearized', 'moment', 'rbc', 'smoothed']"
        ),
    ):
        est.conf_int("mean", X=Y, method="wald")


def test_rvns_paper_fit_takes_the_bootstrap_by_default():
    est, Y = _rvns("paper", method="paper", bandwidth=1.0)
    ci = est.conf_int("mean", X=Y, n_resamples=2, random_state=0).iloc[0]
    assert ci["method"] == "bootstrap-percentile"
    with pytest.raises(ValueError, match="was not fitted by EM with smoothing"):
        est.conf_int("mean", X=Y, method="rbc")


def test_subset_interval_frame_states_its_level():
    import numpy as np

    from skprivate.subset import SubsetDistributionEstimator, SubsetUniform

    rng = np.random.default_rng(0)
    x = rng.choice(4, size=(400, 1), p=[0.1, 0.2, 0.3, 0.4])
    est = SubsetDistributionEstimator(
        privatizer=SubsetUniform(categories=[np.arange(4)], random_state=0)
    ).fit(x)
    for kind in ("pmf", "cdf"):
        ci = est.conf_int(kind, level=0.8)
        assert (ci["level"] == 0.8).all()
