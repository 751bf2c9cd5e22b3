"""``conf_int`` of the interval learners and the data they were fitted on.

The intervals of :class:`IntervalNPMLE` and :class:`IntervalMLE` are computed
from the rows passed again as ``X``: ``X`` must be the fitted rows (checked
by the record kept at fit), the weights of a weighted fit go with the rows
into every resampling refit (or the method refuses the weighted fit), and
the shared mixin refuses an empty ``level`` or ``points``.
"""

import pickle
import re
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone

from skprivate import DeconvolutionKernelDensity
from skprivate._uncertainty import (
    FitDataRecord,
    group_jackknife_indices,
    group_jackknife_interval,
    percentile_interval,
    replicate_statistics,
    resample_indices,
    subsampling_interval,
)
from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalMLE,
    IntervalNPMLE,
)

pytestmark = pytest.mark.filterwarnings(
    "ignore::skprivate.exceptions.CoverageWarning",
    "ignore::sklearn.exceptions.ConvergenceWarning",
)

COLUMNS = ["estimate", "se", "lower", "upper", "method"]


@pytest.fixture(scope="module")
def case_two():
    y = np.random.default_rng(0).normal(5, 2, (200, 1))
    return IntervalCaseII(anchor_loc=5, anchor_scale=2, random_state=0).fit_transform(y)


@pytest.fixture(scope="module")
def case_one():
    y = np.random.default_rng(1).normal(5, 2, (150, 1))
    return IntervalCaseI(loc=5, scale=2, random_state=1).fit_transform(y)


def _weights(n, seed=3):
    return np.random.default_rng(seed).choice([1.0, 2.0, 5.0], size=n)


# -- the weights of the fit ---------------------------------------------------


@pytest.mark.parametrize(
    "cls, method",
    [
        (IntervalNPMLE, "jackknife"),
        (IntervalNPMLE, "bootstrap"),
        (IntervalMLE, "wald"),
        (IntervalMLE, "bootstrap"),
    ],
)
def test_zero_weight_rows_give_the_interval_of_the_other_rows(case_two, cls, method):
    # weights 1 on the first half, 0 on the second: the fit of the first half,
    # and so its interval, not that of all the rows
    Z = case_two
    w = np.r_[np.ones(100), np.zeros(100)]
    weighted = cls().fit(Z, sample_weight=w)
    half = cls().fit(Z[:100])
    got = weighted.conf_int("mean", X=Z, method=method, n_resamples=20, random_state=0)
    want = half.conf_int(
        "mean", X=Z[:100], method=method, n_resamples=20, random_state=0
    )
    pd.testing.assert_frame_equal(got, want)


def test_constant_weights_are_the_unweighted_fit(case_two):
    Z = case_two
    for cls in (IntervalNPMLE, IntervalMLE):
        got = (
            cls()
            .fit(Z, sample_weight=np.full(200, 2.5))
            .conf_int("quantile", [0.5], X=Z, random_state=0, n_resamples=30)
        )
        want = (
            cls()
            .fit(Z)
            .conf_int("quantile", [0.5], X=Z, random_state=0, n_resamples=30)
        )
        pd.testing.assert_frame_equal(got, want)


def test_npmle_jackknife_of_a_weighted_fit_refits_with_the_rows_weights(case_two):
    Z, w = case_two, _weights(200)
    est = IntervalNPMLE().fit(Z, sample_weight=w)
    ci = est.conf_int("mean", X=Z, method="jackknife", n_resamples=10, random_state=4)
    kept, sizes = group_jackknife_indices(200, 10, 4)
    reps = np.array(
        [IntervalNPMLE().fit(Z[idx], sample_weight=w[idx]).mean() for idx in kept]
    )
    lower, upper, se = group_jackknife_interval(est.mean(), reps, sizes, 0.95)
    assert ci["estimate"].iloc[0] == est.mean()
    np.testing.assert_allclose(
        ci[["lower", "upper", "se"]].iloc[0], [*lower, *upper, *se]
    )
    # the unweighted replicates give another interval
    unweighted = [IntervalNPMLE().fit(Z[idx]).mean() for idx in kept]
    assert not np.allclose(reps, unweighted)


def test_mle_bootstrap_of_a_weighted_fit_refits_with_the_rows_weights(case_two):
    Z, w = case_two, _weights(200)
    est = IntervalMLE().fit(Z, sample_weight=w)
    ci = est.conf_int("scale", X=Z, method="bootstrap", n_resamples=8, random_state=5)
    reps = np.array(
        [
            [IntervalMLE().fit(Z[idx], sample_weight=w[idx]).scale_]
            for idx in resample_indices(200, 8, 5)
        ]
    )
    lower, upper = percentile_interval(reps, 0.95)
    np.testing.assert_allclose(ci[["lower", "upper"]].iloc[0], [*lower, *upper])
    assert ci["estimate"].iloc[0] == pytest.approx(est.scale_)


def test_npmle_subsampling_of_a_weighted_fit_carries_the_weights(case_one):
    # Case-I data: the unweighted fit takes the likelihood ratio, whose limit
    # law is that of the unweighted likelihood; a weighted fit subsamples
    Z, w = case_one, _weights(150)
    est = IntervalNPMLE().fit(Z, sample_weight=w)
    ci = est.conf_int("cdf", [5.0], X=Z, n_resamples=6, random_state=7)
    assert ci["method"].iloc[0] == "subsampling (rate n^1/3)"
    b = 29  # max(20, ceil(150 ** (2 / 3)))
    reps = np.array(
        [
            IntervalNPMLE().fit(Z[idx], sample_weight=w[idx]).cdf([5.0])
            for idx in resample_indices(150, 6, 7, size=b, replace=False)
        ]
    )
    lower, upper = subsampling_interval(est.cdf([5.0]), reps, 150, b, 1 / 3, 0.95)
    np.testing.assert_allclose(
        ci[["lower", "upper"]].iloc[0], np.clip([*lower, *upper], 0, 1)
    )
    unweighted = IntervalNPMLE().fit(Z).conf_int("cdf", [5.0], X=Z)
    assert unweighted["method"].iloc[0] == "likelihood-ratio (Banerjee-Wellner)"


def test_npmle_mean_of_a_weighted_case_one_fit_defaults_to_the_jackknife(case_one):
    Z = case_one
    est = IntervalNPMLE().fit(Z, sample_weight=_weights(150))
    ci = est.conf_int("mean", X=Z, random_state=0)
    assert ci["method"].iloc[0].startswith("jackknife")


def test_npmle_influence_refuses_a_weighted_fit(case_one):
    Z = case_one
    est = IntervalNPMLE(bounds=(-10, 20)).fit(Z, sample_weight=_weights(150))
    with pytest.raises(
        ValueError, match=re.escape("estimates an unweighted variance")
    ) as info:
        est.conf_int("mean", X=Z, method="influence")
    assert "intervals of a weighted fit are not offered" in str(info.value)
    assert "method='influence'" in str(info.value)


@pytest.mark.parametrize("case", ["case_one", "case_two"])
def test_npmle_identified_set_of_a_weighted_fit_bootstraps_with_the_weights(
    case, request
):
    # the weighted fit's set, and the ends of the weighted refits of the
    # drawn rows (Case I by the pooled isotonic path, Case II by refitting)
    from skprivate.interval._identified import imbens_manski_critical, mean_set

    Z = request.getfixturevalue(case)
    n = Z.shape[0]
    w = _weights(n)
    bounds = (-10.0, 20.0)
    est = IntervalNPMLE(bounds=bounds).fit(Z, sample_weight=w)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ci = est.conf_int("mean", X=Z, n_resamples=25, random_state=4)
    assert ci["method"].iloc[0] == "identified_set (Imbens-Manski)"
    cuts = tuple(est.supported_range_)
    low, high = mean_set(est.innermost_, est.probabilities_, cuts, bounds)
    ends = []
    for idx in resample_indices(n, 25, 4):
        refit = IntervalNPMLE(bounds=bounds).fit(Z[idx], sample_weight=w[idx])
        ends.append(mean_set(refit.innermost_, refit.probabilities_, cuts, bounds))
    se = np.std(np.array(ends), axis=0, ddof=1)
    c = imbens_manski_critical(high - low, se.max(), 0.95)
    np.testing.assert_allclose(
        ci[["lower", "upper"]].iloc[0], [low - c * se[0], high + c * se[1]], rtol=1e-6
    )
    # the unweighted fit's interval differs
    plain = IntervalNPMLE(bounds=bounds).fit(Z)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        other = plain.conf_int("mean", X=Z, n_resamples=25, random_state=4)
    assert not np.allclose(other[["lower", "upper"]], ci[["lower", "upper"]])


def test_npmle_likelihood_ratio_refuses_a_weighted_fit(case_one):
    Z = case_one
    est = IntervalNPMLE().fit(Z, sample_weight=_weights(150))
    with pytest.raises(
        ValueError,
        match=r"method='likelihood-ratio' calibrates the unweighted likelihood ratio"
        r".*not offered for that method\. Use method='subsampling'",
    ):
        est.conf_int("quantile", [0.5], X=Z, method="likelihood-ratio")


@pytest.mark.parametrize(
    "kind, points", [("mean", None), ("scale", None), ("cdf", [5.0]), ("pdf", [5.0])]
)
def test_mle_wald_refuses_a_weighted_fit(case_two, kind, points):
    # its observed information counts a row of weight w as w rows
    Z = case_two
    est = IntervalMLE().fit(Z, sample_weight=_weights(200))
    with pytest.raises(
        ValueError,
        match=re.escape(
            "IntervalMLE was fitted with sample_weight, and method='wald' reads "
            "the observed information, which counts a row of weight w as w "
            "identical rows. For weights that are not counts (sampling "
            "weights), use method='sandwich' (the default for a weighted fit)"
        ),
    ):
        est.conf_int(kind, points, X=Z, method="wald")
    # the default is the sandwich; the bootstrap refits with the weights
    default = est.conf_int(kind, points, X=Z)
    assert default["method"].iloc[0] == "wald (leave-one-out sandwich)"
    ci = est.conf_int(kind, points, X=Z, method="bootstrap", n_resamples=5)
    assert ci["method"].iloc[0] == "bootstrap-percentile"


def test_resampling_weights_must_match_the_rows():
    Z = np.array([[-np.inf, 1.0], [1.0, np.inf], [-np.inf, 2.0], [2.0, np.inf]])
    with pytest.raises(
        ValueError,
        match=re.escape(
            "sample_weight must have one weight per row of X (4); got shape (3,)."
        ),
    ):
        replicate_statistics(
            IntervalNPMLE(),
            Z,
            lambda e: e.mean(),
            [np.arange(4)],
            sample_weight=[1, 2, 3],
        )


def test_weighted_refits_do_not_take_the_batched_path(case_two, monkeypatch):
    # the batched NPMLE refits take no weights: a weighted resampling refits
    # one by one, an unweighted one still batches
    calls = []
    est = IntervalNPMLE()

    def batched(X, indices, statistic):
        calls.append(len(indices))
        return None

    monkeypatch.setattr(est, "_resampled_statistics", batched, raising=False)
    draws = [np.arange(0, 150), np.arange(50, 200)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        weighted = replicate_statistics(
            est, case_two, lambda e: e.mean(), draws, sample_weight=_weights(200)
        )
        replicate_statistics(est, case_two, lambda e: e.mean(), draws)
    assert calls == [2]
    want = [
        IntervalNPMLE().fit(case_two[d], sample_weight=_weights(200)[d]).mean()
        for d in draws
    ]
    np.testing.assert_allclose(weighted[:, 0], want)


# -- X must be the fitted data ------------------------------------------------


@pytest.mark.parametrize("cls", [IntervalNPMLE, IntervalMLE])
def test_conf_int_refuses_x_other_than_the_fitted_rows(case_two, cls):
    Z = case_two
    est = cls().fit(Z)
    with pytest.raises(
        ValueError,
        match=re.escape(
            f"X must be the data passed to {cls.__name__}.fit (the rows, in the "
            "same order): X has 20 rows, and the fit had 200."
        ),
    ):
        est.conf_int("mean", X=Z[:20])
    other = Z.copy()
    other[0, 1] += 1.0
    for X in (other, Z[::-1]):
        with pytest.raises(
            ValueError,
            match=re.escape(
                "X has the fit's 200 rows in number but other values, or the rows "
                "in another order"
            ),
        ):
            est.conf_int("mean", X=X)
    # the same rows in another container are the fitted data
    pd.testing.assert_frame_equal(
        est.conf_int("mean", X=Z.tolist(), random_state=0),
        est.conf_int("mean", X=Z, random_state=0),
    )


def test_the_record_follows_the_last_fit_and_pickling(case_two):
    Z = case_two
    est = IntervalNPMLE().fit(Z)
    est.fit(Z[:50])
    est.conf_int("quantile", [0.5], X=Z[:50], n_resamples=5, random_state=0)
    with pytest.raises(ValueError, match="X has 200 rows, and the fit had 50"):
        est.conf_int("mean", X=Z)
    again = pickle.loads(pickle.dumps(est))
    with pytest.raises(ValueError, match="X has 200 rows, and the fit had 50"):
        again.conf_int("mean", X=Z)
    # a failed fit leaves no record of the earlier data behind
    with pytest.raises(ValueError):
        est.fit(np.array([[-np.inf, np.inf]]))
    assert "_ci_fit_record" not in vars(est)
    assert "_ci_fit_record" not in vars(clone(again))


def test_the_record_holds_a_fingerprint_not_the_data(case_two):
    Z = case_two
    est = IntervalMLE().fit(Z)
    record = vars(est)["_ci_fit_record"]
    assert isinstance(record, FitDataRecord)
    assert record.n_rows == 200
    assert isinstance(record.fingerprint, int)
    assert record.sample_weight is None
    w = _weights(200)
    record = vars(IntervalMLE().fit(Z, sample_weight=w))["_ci_fit_record"]
    np.testing.assert_array_equal(record.sample_weight, w)


def test_a_fit_on_a_dask_array_is_not_checked(case_two):
    da = pytest.importorskip("dask.array")
    import dask

    Z = case_two
    with dask.config.set(scheduler="synchronous"):
        est = IntervalNPMLE().fit(da.from_array(Z, chunks=(100, 2)))
    assert "_ci_fit_record" not in vars(est)
    # no single fitted array to compare with: X is the user's to get right
    ci = est.conf_int("mean", X=Z, method="jackknife", n_resamples=5, random_state=0)
    assert np.isfinite(ci["lower"].iloc[0])


def test_a_learner_with_a_privatizer_still_refuses_x():
    from skprivate import LaplaceLDP

    x = np.random.default_rng(0).uniform(0, 1, (80, 1))
    kde = DeconvolutionKernelDensity(
        privatizer=LaplaceLDP(epsilon=2.0, bounds=(0, 1), random_state=0),
        support=(0, 1),
    ).fit(x)
    with pytest.raises(ValueError, match="was fitted with privatizer="):
        kde.conf_int("mean", X=x)


# -- empty level and points ---------------------------------------------------


@pytest.mark.parametrize("level", [[], (), np.array([])])
def test_an_empty_level_is_refused(case_two, level):
    Z = case_two
    for est in (IntervalNPMLE().fit(Z), IntervalMLE().fit(Z)):
        with pytest.raises(
            ValueError,
            match=r"level must be a number in \(0, 1\) or a non-empty sequence of "
            r"them; got an empty",
        ):
            est.conf_int("mean", X=Z, level=level)


@pytest.mark.parametrize("points", [[], np.array([]), np.empty((0, 1))])
@pytest.mark.parametrize("kind", ["quantile", "cdf"])
def test_empty_points_are_refused_by_every_learner(case_two, kind, points):
    Z = case_two
    x = np.random.default_rng(0).normal(size=(100, 1))
    kde = DeconvolutionKernelDensity(noise_scale=0.5).fit(x)
    for est, X in ((IntervalNPMLE().fit(Z), Z), (IntervalMLE().fit(Z), Z), (kde, x)):
        with pytest.raises(
            ValueError,
            match=re.escape(
                "points is empty: conf_int needs at least one point at which to "
                "evaluate the quantity (or points=None for the kind's default "
                "points)"
            ),
        ):
            est.conf_int(kind, points, X=X)


def _regression_data():
    from sklearn.linear_model import LinearRegression

    rng = np.random.default_rng(0)
    X = rng.normal(size=(120, 2))
    y = X @ [1.0, 2.0] + rng.normal(size=120)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        Y = IntervalCaseII(anchor_loc=0, anchor_scale=2, random_state=0).fit_transform(
            y[:, None]
        )
    return LinearRegression(), X, Y


def test_regressor_zero_weight_rows_give_the_interval_of_the_other_rows():
    from skprivate import IterativeIntervalRegressor

    base, X, Y = _regression_data()
    w = np.r_[np.ones(60), np.zeros(60)]
    weighted = IterativeIntervalRegressor(base).fit(X, Y, sample_weight=w)
    alone = IterativeIntervalRegressor(base).fit(X[:60], Y[:60])
    for kind, points in (("coef", None), ("predict", X[:3])):
        got = weighted.conf_int(kind, points, X=X, y=Y)
        want = alone.conf_int(kind, points, X=X[:60], y=Y[:60])
        np.testing.assert_allclose(
            got[["estimate", "lower", "upper"]], want[["estimate", "lower", "upper"]]
        )


def test_regressor_weighted_fit_bootstraps_pairs_with_their_weights():
    from skprivate import IterativeIntervalRegressor

    base, X, Y = _regression_data()
    w = np.random.default_rng(4).uniform(0.5, 2.0, 120)
    est = IterativeIntervalRegressor(base).fit(X, Y, sample_weight=w)
    with pytest.raises(ValueError, match="method='wald' reads the observed"):
        est.conf_int("coef", X=X, y=Y, method="wald")  # weights read as counts
    ci = est.conf_int(
        "coef", X=X, y=Y, method="bootstrap", n_resamples=6, random_state=2
    )
    fits = [
        clone(est).fit(X[idx], Y[idx], sample_weight=w[idx]).estimator_
        for idx in resample_indices(120, 6, 2)
    ]
    reps = np.array([[f.intercept_, *f.coef_] for f in fits])
    lower, upper = percentile_interval(reps, 0.95)
    assert ci["point"].tolist() == ["intercept", 0, 1]
    np.testing.assert_allclose(ci["lower"], lower)
    np.testing.assert_allclose(ci["upper"], upper)
    with pytest.raises(ValueError, match="X must be the data passed to"):
        est.conf_int("coef", X=X[:50], y=Y[:50], method="bootstrap")


def test_regressor_fitted_on_sparse_features_checks_them_by_content():
    from scipy import sparse

    from skprivate import IterativeIntervalRegressor

    base, X, Y = _regression_data()
    S = sparse.csr_matrix(X)
    est = IterativeIntervalRegressor(base).fit(S, Y)
    # the same entries in another format pass the check
    assert est._ci_check_fit_data(sparse.csc_matrix(X)).n_rows == 120
    other = X.copy()
    other[0, 0] += 1.0
    with pytest.raises(ValueError, match="other values"):
        est.conf_int("coef", X=sparse.csr_matrix(other), y=Y)
