"""Warnings of the library name the user's line, in memory and through dask.

Each case triggers one of skprivate's warnings through the public ``fit``,
``transform`` or function of an estimator (directly, through a learner that
privatizes its data, through a scikit-learn pipeline, or on a dask
collection) and checks that every warning raised names this file, at the
line of the call.
"""

from __future__ import annotations

import functools
import inspect
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning, DataConversionWarning
from sklearn.pipeline import make_pipeline

from skprivate import (
    DeconvolutionKernelDensity,
    LaplaceLDP,
    SubsetDistributionEstimator,
    SubsetUniform,
)
from skprivate.distributions import DiscreteDistribution, PopulationEstimateMixin
from skprivate.exceptions import (
    CoverageWarning,
    NotIdentifiableWarning,
    PrivacyLeakWarning,
)
from skprivate.frequency import GeneralizedRandomizedResponse
from skprivate.integral import (
    IntegralPrivateStatistics,
    Microaggregator,
    integral_describe,
    laplace_statistic,
)
from skprivate.interval import IntervalCaseI, IntervalCaseII, IntervalNPMLE
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber

CATEGORIES = ["a", "b", "c", "d"]
RNG = np.random.default_rng(0)
X = RNG.uniform(0, 10, (300, 1))
RACE = RNG.choice([*CATEGORIES, "unknown"], 400)
# Case-I reports whose anchors all lie below the values: half-lines towards +inf
OPEN = IntervalCaseI(anchor_loc=-5.0, anchor_scale=0.1, random_state=0).fit_transform(
    RNG.normal(size=(200, 1))
)
CASE_TWO = IntervalCaseII(random_state=0).fit_transform(RNG.normal(size=(300, 1)))
# Six Case-I rows whose NPMLE puts mass outside the anchors' supported range
SIX = np.array([[1, np.inf], [-np.inf, 2], [3, np.inf], [-np.inf, 4], [-np.inf, 5]])
SIX = np.vstack([SIX, [6.0, np.inf]])


class _FewValues(PopulationEstimateMixin, BaseEstimator):
    """The empirical law of its rows; a fit on one distinct value fails."""

    def fit(self, x, y=None):
        self.values_ = np.asarray(x, dtype=float).ravel()
        if np.unique(self.values_).size < 2:
            raise ValueError("one distinct value")
        return self

    def _distribution(self):
        v, c = np.unique(self.values_, return_counts=True)
        return DiscreteDistribution(v, c)


# a quarter of the bootstrap replicates of these rows hold one value only
FEW = np.array([[0.0], [0.0], [0.0], [1.0]])


def _kept_row_labels():
    lap = LaplaceLDP(epsilon=1, bounds=(0, 10)).set_output(transform="pandas")
    return lap.fit_transform(pd.DataFrame(X[:3], index=["a", "b", "c"]))


def _unknown_reports():
    mech = SubsetUniform(
        categories=[CATEGORIES], handle_unknown="ignore", random_state=0
    ).fit(RACE[:, None])
    return mech, np.asarray(mech.transform(RACE[:, None]))


def _in_memory_cases():
    mech, reports = _unknown_reports()
    return {
        # a privatizer reading its bounds from the data
        "bounds from data": (PrivacyLeakWarning, lambda: LaplaceLDP(epsilon=1).fit(X)),
        # clipping values outside the bounds, in transform
        "clipped": (
            UserWarning,
            lambda: LaplaceLDP(epsilon=1, bounds=(0, 5)).fit(X).transform(X),
        ),
        # a learner privatizing its data with a privatizer that reads them
        "learner's privatizer": (
            PrivacyLeakWarning,
            lambda: DeconvolutionKernelDensity(
                bandwidth=1.0, privatizer=LaplaceLDP(epsilon=1)
            ).fit(X),
        ),
        # scikit-learn's pipeline between the user and the privatizer
        "pipeline": (
            PrivacyLeakWarning,
            lambda: make_pipeline(LaplaceLDP(epsilon=1)).fit_transform(X),
        ),
        "categories from data": (
            PrivacyLeakWarning,
            lambda: SubsetUniform().fit(RACE[:, None]),
        ),
        # a pandas release keeping row labels other than a plain range
        "kept row labels": (PrivacyLeakWarning, _kept_row_labels),
        "frequency oracle's categories from data": (
            PrivacyLeakWarning,
            lambda: GeneralizedRandomizedResponse().fit(RACE[:, None]),
        ),
        "unknown reports": (
            UserWarning,
            lambda: SubsetDistributionEstimator(design=mech).fit(reports),
        ),
        "unknown reports, partial_fit": (
            UserWarning,
            lambda: SubsetDistributionEstimator(design=mech).partial_fit(reports),
        ),
        "tail mass": (NotIdentifiableWarning, lambda: IntervalNPMLE().fit(OPEN)),
        "not converged": (
            ConvergenceWarning,
            lambda: IntervalNPMLE(max_iter=1).fit(CASE_TWO),
        ),
        "column vector": (
            DataConversionWarning,
            lambda: IntervalNPMLE().fit(X),
        ),
        "statistic without bounds": (
            PrivacyLeakWarning,
            lambda: laplace_statistic(X[:, 0], "mean", 1.0, random_state=0),
        ),
        "clusters of one record": (
            PrivacyLeakWarning,
            lambda: Microaggregator(min_cluster_size=1).fit(X),
        ),
        "integral statistics skip text columns": (
            UserWarning,
            lambda: IntegralPrivateStatistics(
                statistics=["median"], n_resamples=20, random_state=0
            ).fit(pd.DataFrame({"v": X[:, 0], "s": "a"})),
        ),
        "integral describe skips text columns": (
            UserWarning,
            lambda: integral_describe(
                pd.DataFrame({"v": X[:, 0], "s": "a"}),
                statistics=["median"],
                n_resamples=20,
                random_state=0,
            ),
        ),
        "integral least-error selection": (
            PrivacyLeakWarning,
            lambda: IntegralPrivateStatistics(
                statistics=["median"],
                n_resamples=20,
                random_state=0,
                selection="least_error",
            ).fit(X),
        ),
        "local sensitivity": (
            PrivacyLeakWarning,
            lambda: laplace_statistic(
                X[:, 0], "median", 1.0, bounds=(0, 10), sensitivity="local"
            ),
        ),
        # confidence intervals: resampled fits that failed, the identified
        # set of the mean, pointwise intervals widened over the unsupported
        # region
        "failed resampled fits": (
            RuntimeWarning,
            lambda: (
                _FewValues()
                .fit(FEW)
                .conf_int("mean", X=FEW, n_resamples=40, random_state=0)
            ),
        ),
        "identified set": (
            NotIdentifiableWarning,
            lambda: (
                IntervalNPMLE(bounds=(0, 10))
                .fit(SIX)
                .conf_int("mean", X=SIX, n_resamples=20, random_state=0)
            ),
        ),
        "influence interval, set wider": (
            NotIdentifiableWarning,
            lambda: (
                IntervalNPMLE(bounds=(-100, 100))
                .fit(SIX)
                .conf_int("mean", X=SIX, method="influence")
            ),
        ),
        "widened interval": (
            NotIdentifiableWarning,
            lambda: (
                IntervalNPMLE(bounds=(0, 10))
                .fit(SIX)
                .conf_int("quantile", [0.9], X=SIX)
            ),
        ),
        # an rbc deconvolution interval whose bandwidth is large for its bias
        "rbc bandwidth": (
            CoverageWarning,
            lambda: _rbc_fit()[0].conf_int("pdf", [0.0], X=_rbc_fit()[1]),
        ),
        # subsampling intervals of the NPMLE at moderate n
        "subsampling interval": (
            CoverageWarning,
            lambda: (
                IntervalNPMLE()
                .fit(CASE_TWO)
                .conf_int("cdf", [0.0], X=CASE_TWO, n_resamples=10, random_state=0)
            ),
        ),
        # the smoothed grid-EMS interval does not cover the true value
        "smoothed interval": (
            CoverageWarning,
            lambda: (
                RVNSDensityEstimator(
                    privatizer=RVNSPerturber(d=2.0, k=2, bounds=(0, 10), random_state=0)
                )
                .fit(X)
                .conf_int("mean", method="smoothed")
            ),
        ),
        "solver": (
            ConvergenceWarning,
            lambda: RVNSDensityEstimator(
                method="paper",
                bandwidth=0.5,
                max_iter=1,
                privatizer=RVNSPerturber(d=2.0, k=2, bounds=(0, 10), random_state=0),
            ).fit(X),
        ),
    }


@functools.cache
def _rbc_fit():
    # a bandwidth large against the spread: the rbc interval's check warns
    x = np.random.default_rng(0).normal(size=(2000, 1)).clip(-4, 4)
    ldp = LaplaceLDP(epsilon=4.0, bounds=(-4, 4), random_state=0)
    z = ldp.fit_transform(x)
    kde = DeconvolutionKernelDensity(
        bandwidth=1.0, noise_scale=ldp.scale_, support=(-4, 4), algorithm="binned"
    ).fit(z)
    return kde, z


def _dask_cases():
    da = pytest.importorskip("dask.array")
    dd = pytest.importorskip("dask.dataframe")
    mech, reports = _unknown_reports()
    lazy_x = da.from_array(X, chunks=(100, 1))
    frame = dd.from_pandas(pd.DataFrame({"race": RACE}), npartitions=3)
    return {
        "bounds from data": (
            PrivacyLeakWarning,
            lambda: LaplaceLDP(epsilon=1).fit(lazy_x),
        ),
        "learner's privatizer": (
            PrivacyLeakWarning,
            lambda: DeconvolutionKernelDensity(
                bandwidth=1.0, privatizer=LaplaceLDP(epsilon=1)
            ).fit(lazy_x),
        ),
        "categories from data": (
            PrivacyLeakWarning,
            lambda: SubsetUniform().fit(frame),
        ),
        "unknown reports": (
            UserWarning,
            lambda: SubsetDistributionEstimator(design=mech).fit(
                da.from_array(reports, chunks=(150, reports.shape[1]))
            ),
        ),
        "tail mass": (
            NotIdentifiableWarning,
            lambda: IntervalNPMLE().fit(da.from_array(OPEN, chunks=(50, 2))),
        ),
        "not converged": (
            ConvergenceWarning,
            lambda: IntervalNPMLE(max_iter=1).fit(
                da.from_array(CASE_TWO, chunks=(100, 2))
            ),
        ),
    }


def _check_names_this_file(category, call):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        call()
    expected = [w for w in caught if issubclass(w.category, category)]
    assert expected, f"no {category.__name__} raised"
    lines = inspect.getsourcelines(call)
    for w in caught:
        assert w.filename == __file__, (
            f"{w.category.__name__} names {w.filename}:{w.lineno}: {w.message}"
        )
        assert lines[1] <= w.lineno < lines[1] + len(lines[0]), w.lineno


@pytest.mark.parametrize("case", list(_in_memory_cases()))
def test_warnings_name_the_caller_in_memory(case):
    _check_names_this_file(*_in_memory_cases()[case])


@pytest.mark.parametrize("case", list(_dask_cases()))
def test_warnings_name_the_caller_on_dask(case):
    import dask

    with dask.config.set(scheduler="synchronous"):
        _check_names_this_file(*_dask_cases()[case])
