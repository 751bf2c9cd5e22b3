"""``privacy_report`` behaviour that mutation testing found unchecked.

Each test builds a tiny fitted estimator (or, for a rule of the total row
that no estimator reaches alone, the rows of one) and asserts the exact
report rows and the exact total: the epsilons and deltas that compose, the
columns named in the notes, the raw and not certified channels, and the
releases counted per record; then the row-wise rule for the steps before a
privatizer (with its exact reasons) and ``RowwiseTransformer`` as a
transparent wrapper.  Most privatizers here are ``_Stated``: a
privatizer that releases its input unchanged and states the guarantee it is
given, so that a report's rows follow from the stated figures alone.
``benchmarks/_mutation_specs_report.py`` lists the mutants of
``skprivate/_privacy_report/`` these tests kill.
"""

from __future__ import annotations

import re
from functools import partial
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from sklearn import config_context
from sklearn.base import BaseEstimator, RegressorMixin, TransformerMixin
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.ensemble import BaggingRegressor, StackingRegressor, VotingRegressor
from sklearn.exceptions import NotFittedError
from sklearn.feature_selection import SelectFromModel
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import LinearRegression, RANSACRegressor, Ridge
from sklearn.model_selection import (
    GridSearchCV,
    KFold,
    LeaveOneOut,
    PredefinedSplit,
    RepeatedKFold,
    ShuffleSplit,
)
from sklearn.neighbors import KernelDensity
from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline
from sklearn.preprocessing import (
    Binarizer,
    FunctionTransformer,
    Normalizer,
    OneHotEncoder,
    OrdinalEncoder,
    PolynomialFeatures,
    SplineTransformer,
    StandardScaler,
)
from sklearn.utils import get_tags
from sklearn.utils.validation import validate_data

from skprivate import (
    DeconvolutionKernelRegressor,
    LaplaceLDP,
    RowwiseTransformer,
    privacy_report,
)
from skprivate._audit._result import NoExactLaw, WorstCase
from skprivate._privacy_report._certify import step_status
from skprivate._privacy_report._inspect import (
    _Col,
    _consumes_sample_weight,
    _fitted_members,
    _input_cols,
    _per_column,
    _privatizes,
    _resolve_columns,
    _spec_labels,
    _split_counts,
)
from skprivate._privacy_report._total import _audited_total, _total_row
from skprivate.base import PrivatizedInputMixin, PrivatizerMixin

_COVERAGE = (
    "some columns have a coverage notion (interval or subset privacy) without "
    "an epsilon"
)
_UNCERTIFIED = (
    "not certified: this step may let one record change other records' released values"
)
_LDP = "epsilon-local differential privacy"


class _Law:
    """An exact output law whose worst cases are given."""

    def __init__(self, epsilon, delta=None):
        self.epsilon, self.delta = epsilon, delta

    def worst_epsilon(self):
        return WorstCase(self.epsilon, (0.0, 1.0), 0.0, "given")

    def worst_delta(self, epsilon):
        if self.delta is None:
            return None
        return WorstCase(self.delta, (0.0, 1.0), 0.0, "given")


class _Identity(PrivatizerMixin, BaseEstimator):
    """A privatizer that releases its input unchanged (the figures it states
    are what the report reads)."""

    _exact_law = None  # no audit hook

    def _fit(self, X, y=None):
        self._check_params()
        validate_data(self, X, dtype=float)
        return self

    def _transform(self, X):
        return validate_data(self, X, dtype=float, reset=False)


class _Stated(_Identity):
    """States ``summary``.

    ``law``: None (no audit hook), a reason (no exact law), or the
    ``(epsilon, delta)`` of its exact law's worst cases.
    """

    _parameter_constraints: ClassVar[dict] = {
        "summary": [dict],
        "law": [tuple, str, None],
        "random_state": ["random_state"],
    }

    def __init__(self, summary=None, law=None, random_state=None):
        self.summary = summary
        self.law = law
        self.random_state = random_state

    def privacy_summary(self):
        self._check_fitted_settings()
        return dict(self.summary)

    @property
    def _exact_law(self):
        if self.law is None:
            return None
        if isinstance(self.law, str):
            return lambda j: NoExactLaw(self.law)
        return lambda j: _Law(*self.law)


class _Budget(_Identity):
    """An (epsilon, delta) privatizer spending its budget evenly over columns."""

    _parameter_constraints: ClassVar[dict] = {
        "epsilon": "no_validation",
        "delta": "no_validation",
    }

    def __init__(self, epsilon=1.0, delta=0.0):
        self.epsilon = epsilon
        self.delta = delta

    def privacy_summary(self):
        self._check_fitted_settings()
        n = self.n_features_in_
        return {
            "notion": _LDP,
            "epsilon": self.epsilon,
            "epsilon_per_feature": self.epsilon / n,
            "delta_per_feature": self.delta / n,
        }


class _Learner(PrivatizedInputMixin, RegressorMixin, BaseEstimator):
    """Fits the mean of the response on its privatized input."""

    def __init__(self, privatizer=None):
        self.privatizer = privatizer

    def fit(self, X, y):
        validate_data(self, self._privatize(X), dtype=float)
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


def _ldp(eps, delta=None):
    summary = {"notion": _LDP, "epsilon_per_feature": eps}
    if delta is not None:
        summary["delta_per_feature"] = delta
    return _Stated(summary)


def _coverage():
    return _Stated({"notion": "interval privacy", "coverage": 0.75, "leakage": 0.25})


def _exact():
    # a design that reports some values as they are
    return _Stated(
        {
            "notion": "interval privacy",
            "coverage": 0.75,
            "leakage": 0.25,
            "exact_disclosure": True,
        }
    )


def _X(n=8, k=3, seed=0):
    return np.random.default_rng(seed).uniform(0, 10, (n, k))


def _total(report):
    rows = report[report["column"] == "total"]
    assert len(rows) == 1 and rows.index[0] == len(report) - 1
    return rows.iloc[0]


# -- the total row: composition ---------------------------------------------
def test_total_adds_the_epsilons_and_deltas_of_every_column():
    ct = ColumnTransformer(
        [
            ("a", _ldp(1.0, 2.0**-10), [0]),
            ("b", _ldp(2.0, 2.0**-12), [1]),
            ("c", _ldp(0.5), [2]),
        ]
    ).fit(_X())
    report = privacy_report(ct)
    assert report["column"].tolist() == ["0", "1", "2", "total"]
    assert report["mechanism"].tolist() == ["_Stated"] * 3 + [""]
    assert report["notion"].tolist() == [_LDP] * 3 + [""]
    assert report["epsilon"].tolist() == [1.0, 2.0, 0.5, 3.5]
    assert report["delta"].tolist() == [2.0**-10, 2.0**-12, 0.0, 5 * 2.0**-12]
    total = _total(report)
    assert total["note"] == "sequential composition over the columns of one record"


def test_total_composes_the_audited_figures_of_real_privatizers():
    ct = ColumnTransformer(
        [
            ("a", LaplaceLDP(epsilon=1.0, bounds=(0, 10)), [0]),
            ("b", LaplaceLDP(epsilon=0.5, bounds=(0, 10)), [1]),
        ]
    ).fit(_X(k=2))
    report = privacy_report(ct)
    rows, total = report.iloc[:2], _total(report)
    assert rows["audited_delta"].tolist() == [0.0, 0.0]
    assert total["audited_epsilon"] == rows["audited_epsilon"].sum()
    np.testing.assert_allclose(total["audited_epsilon"], 1.5, rtol=1e-6)
    assert total["audited_delta"] == 0.0


def test_a_coverage_column_leaves_the_total_without_epsilon():
    ct = ColumnTransformer([("a", _ldp(1.0), [0]), ("b", _coverage(), [1])])
    report = privacy_report(ct.fit(_X(k=2)))
    assert report["epsilon"].iloc[0] == 1.0 and np.isnan(report["epsilon"].iloc[1])
    total = _total(report)
    assert np.isnan(total["epsilon"]) and np.isnan(total["delta"])
    assert total["note"] == "no composed epsilon: " + _COVERAGE


def test_every_kind_of_channel_without_guarantee_is_named_in_the_total():
    ct = ColumnTransformer(
        [
            ("a", _ldp(1.0), [0]),
            ("b", make_pipeline(StandardScaler(), _ldp(1.0)), [1]),
            ("c", _exact(), [2]),
            ("d", _coverage(), [3]),
        ],
        remainder="passthrough",
    )
    report = privacy_report(ct.fit(_X(k=5)))
    total = _total(report)
    assert total["epsilon"] == np.inf and np.isnan(total["delta"])
    assert total["exact_disclosure"] == True  # noqa: E712 (numpy bool)
    assert total["note"] == (
        "no guarantee: some columns leave raw and some columns are not certified "
        "and some columns leave exactly; raw columns (epsilon = inf): 4; "
        f"{_UNCERTIFIED}: 1; values released exactly: 2; other columns have no "
        f"epsilon: {_COVERAGE}"
    )
    assert total["audited_epsilon"] == np.inf and np.isnan(total["audited_delta"])


def test_a_step_that_mixes_records_alone_is_no_exact_release():
    pipe = make_pipeline(StandardScaler(), _ldp(1.0))
    report = privacy_report(pipe.fit(_X(k=1)))
    assert report["column"].tolist() == ["x0", "x0", "total"]
    assert report["epsilon"].tolist() == [1.0, np.inf, np.inf]
    total = _total(report)
    assert total["exact_disclosure"] == False  # noqa: E712 (numpy bool)
    assert total["note"] == (
        f"no guarantee: some columns are not certified; {_UNCERTIFIED}: x0"
    )


def test_a_column_released_exactly_twice_is_named_once():
    union = FeatureUnion([("a", _exact()), ("b", _exact())])
    report = privacy_report(union.fit(_X(k=1)))
    assert report["column"].tolist() == ["x0", "x0", "total"]
    total = _total(report)
    assert total["note"] == (
        "no guarantee: some columns leave exactly; values released exactly: x0"
    )
    assert total["exact_disclosure"] == True  # noqa: E712 (numpy bool)


def test_exact_columns_are_named_in_the_order_of_the_rows():
    ct = ColumnTransformer(
        [("b", _exact(), [1]), ("z", _ldp(1.0), [2]), ("a", _exact(), [0])]
    )
    report = privacy_report(ct.fit(_X(k=3)))
    assert _total(report)["note"].endswith("values released exactly: 1, 0")


# -- the total row: rules no single estimator reaches -------------------------
def test_total_of_rows_without_an_epsilon_reason():
    total = _total_row([{"column": "a", "epsilon": np.nan}], {})
    assert np.isnan(total["epsilon"]) and np.isnan(total["delta"])
    assert total["note"] == "no composed epsilon: some columns have no epsilon"
    # reasons are named once each, in order
    rows = [
        {"column": "a", "epsilon": np.nan, "_nan_reason": "first"},
        {"column": "b", "epsilon": np.nan, "_nan_reason": "second"},
        {"column": "c", "epsilon": np.nan, "_nan_reason": "first"},
        {"column": "d", "epsilon": 1.0, "delta": 0.0},
    ]
    assert _total_row(rows, {})["note"] == "no composed epsilon: first; second"


def test_total_row_of_finite_rows_sums_and_a_missing_delta_counts_zero():
    rows = [
        {"column": "a", "epsilon": 0.25, "delta": 2.0**-20},
        {"column": "b", "epsilon": 0.5},
        {"column": "c", "epsilon": 1.0, "delta": 2.0**-19},
    ]
    assert _total_row(rows, {}) == {
        "epsilon": 1.75,
        "delta": 3 * 2.0**-20,
        "note": "sequential composition over the columns of one record",
    }


def test_audited_total_rules():
    finite = {"epsilon": 1.0}
    rows = [
        {"audited_epsilon": 0.5, "audited_delta": 0.0},
        {"audited_epsilon": 0.25, "audited_delta": 2.0**-20},
    ]
    assert _audited_total(rows, finite) == {
        "audited_epsilon": 0.75,
        "audited_delta": 2.0**-20,
    }
    # an unaudited delta leaves the audited delta unknown, not the epsilon
    rows[1]["audited_delta"] = np.nan
    found = _audited_total(rows, finite)
    assert found["audited_epsilon"] == 0.75 and np.isnan(found["audited_delta"])
    # an unaudited column leaves both unknown, whatever the others' deltas;
    # so does no row at all
    found = _audited_total([{"audited_delta": 0.0}, rows[0]], finite)
    assert np.isnan(found["audited_epsilon"]) and np.isnan(found["audited_delta"])
    for bad in ([{"audited_delta": 0.0}, *rows], []):
        found = _audited_total(bad, finite)
        assert np.isnan(found["audited_epsilon"]) and np.isnan(found["audited_delta"])
    # no guarantee stays infinite whatever the columns' audits say
    found = _audited_total(rows, {"epsilon": np.inf})
    assert found["audited_epsilon"] == np.inf and np.isnan(found["audited_delta"])


# -- the rows of one privatizer -------------------------------------------------
def _report_of(privatizer, k=2):
    return privacy_report(privatizer.fit(_X(k=k)))


def test_rows_of_an_ldp_summary_per_column():
    stated = _Stated(
        {
            "notion": _LDP,
            "epsilon_per_feature": [0.25, 0.5],
            "delta_per_feature": [2.0**-20, 2.0**-21],
            "bounds": ([0, 1], [2, 3]),
            "bounds_from_data": False,
            "floating_point_safe": True,
            "condition": "given as a condition",
        }
    )
    report = _report_of(stated)
    assert report["column"].tolist() == ["x0", "x1", "total"]
    assert report["epsilon"].tolist() == [0.25, 0.5, 0.75]
    assert report["delta"].tolist() == [2.0**-20, 2.0**-21, 3 * 2.0**-21]
    assert report["bounds"].iloc[:2].tolist() == [(0.0, 2.0), (1.0, 3.0)]
    assert report["bounds_from_data"].iloc[:2].tolist() == [False, False]
    assert report["floating_point_safe"].iloc[:2].tolist() == [True, True]
    assert report["note"].iloc[:2].tolist() == ["given as a condition"] * 2
    assert report["exact_disclosure"].iloc[:2].tolist() == [False, False]
    assert report["reproducible"].iloc[:2].tolist() == [False, False]


def test_rows_of_a_scalar_ldp_summary():
    # one figure for every column; no delta is a pure claim; no bounds
    report = _report_of(_Stated({"notion": _LDP, "epsilon_per_feature": 0.5}))
    rows = report.iloc[:2]
    assert rows["epsilon"].tolist() == [0.5, 0.5]
    assert rows["delta"].tolist() == [0.0, 0.0]
    assert rows["bounds"].tolist() == [None, None]
    assert rows["note"].tolist() == ["", ""]
    assert rows["bounds_from_data"].isna().all()
    assert rows["floating_point_safe"].isna().all()
    # scalar bounds hold for every column
    stated = _Stated({"notion": _LDP, "epsilon_per_feature": 0.5, "bounds": (-1, 4)})
    assert _report_of(stated)["bounds"].iloc[:2].tolist() == [(-1.0, 4.0)] * 2


def test_a_seeded_privatizer_is_reproducible():
    stated = _Stated({"notion": _LDP, "epsilon_per_feature": 1.0}, random_state=0)
    assert _report_of(stated, k=1)["reproducible"].iloc[0] == True  # noqa: E712


def test_rows_of_a_subset_summary():
    stated = _Stated(
        {
            "notion": "subset privacy",
            "columns": [
                {"min_coverage": 0.5, "leakage": 0.25},
                {"min_coverage": 0.75, "leakage": 0.125},
            ],
        }
    )
    report = _report_of(stated)
    rows = report.iloc[:2]
    assert rows["column"].tolist() == ["x0", "x1"]
    assert rows["mechanism"].tolist() == ["_Stated", "_Stated"]
    assert rows["notion"].tolist() == ["subset privacy"] * 2
    assert rows["coverage"].tolist() == [0.5, 0.75]
    assert rows["leakage"].tolist() == [0.25, 0.125]
    assert rows["epsilon"].isna().all()
    assert (
        rows["note"].tolist()
        == [
            "min_coverage: lower bound of the coverage of the released subset; "
            "no epsilon"
        ]
        * 2
    )
    assert _total(report)["note"] == "no composed epsilon: " + _COVERAGE


def _coverage_summary(**extra):
    summary = {"notion": "interval privacy", "coverage": 0.75, "leakage": 0.25}
    summary.update(extra)
    return _Stated(summary)


_NO_EPS = "coverage as in the mechanism's paper; no epsilon"


def _reference(law):
    return (
        f"coverage assumes the reference law {law} (coverage_reference); "
        "coverage_data is the same expectation against the fitted data"
    )


def test_rows_of_a_coverage_summary():
    report = _report_of(_coverage_summary(), k=1)
    row = report.iloc[0]
    assert (row["coverage"], row["leakage"]) == (0.75, 0.25)
    assert np.isnan(row["epsilon"]) and np.isnan(row["delta"])
    assert row["note"] == _NO_EPS
    assert np.isnan(row["coverage_data"]) and np.isnan(row["exact_share_data"])
    assert pd.isna(row["coverage_reference"]) and pd.isna(row["exact_disclosure"])
    # per-column figures
    stated = _coverage_summary(
        coverage=[0.5, 0.75], leakage=[0.5, 0.25], coverage_data=[0.5, 0.75]
    )
    rows = _report_of(stated).iloc[:2]
    assert rows["coverage"].tolist() == [0.5, 0.75]
    assert rows["leakage"].tolist() == [0.5, 0.25]
    assert rows["coverage_data"].tolist() == [0.5, 0.75]


@pytest.mark.parametrize(
    "on_data, gap_noted",
    [(0.6, True), (0.75 - 0.1, False), (0.7, False), (0.9, False)],
)
def test_coverage_on_the_fitted_data_below_the_assumed_one_is_noted(on_data, gap_noted):
    stated = _coverage_summary(coverage_reference="N(0, 1^2)", coverage_data=on_data)
    row = _report_of(stated, k=1).iloc[0]
    assert row["coverage_reference"] == "N(0, 1^2)"
    assert row["coverage_data"] == on_data
    expected = [_NO_EPS, _reference("N(0, 1^2)")]
    if gap_noted:
        expected.append(
            f"the fitted data are covered less than assumed: {on_data:.2f} against 0.75"
        )
    assert row["note"] == "; ".join(expected)


def test_coverage_data_not_kept_says_why():
    stated = _coverage_summary(
        coverage_reference=["N(0, 1^2)"], data_aggregates="not kept: few rows"
    )
    row = _report_of(stated, k=1).iloc[0]
    assert row["note"] == "; ".join(
        [_NO_EPS, _reference("N(0, 1^2)"), "no coverage_data: not kept: few rows"]
    )
    # a kept coverage_data needs no reason
    stated = _coverage_summary(
        coverage_reference="R", coverage_data=0.75, data_aggregates="unused"
    )
    assert _report_of(stated, k=1)["note"].iloc[0] == f"{_NO_EPS}; {_reference('R')}"


def test_an_exact_design_names_the_shares_released_exactly():
    stated = _coverage_summary(
        exact_disclosure=True,
        exact_share_data=0.25,
        exact_share=0.5,
        coverage_reference="R",
        coverage_data=0.75,
    )
    report = _report_of(stated, k=1)
    row = report.iloc[0]
    assert row["epsilon"] == np.inf and row["exact_disclosure"] == True  # noqa: E712
    assert row["exact_share_data"] == 0.25
    assert row["note"] == (
        "values leave exactly: the design reports the values in its "
        "acceptable_range or exact cells as they are (expected: 25% of the "
        "fitted values, 50% under the reference law); no guarantee for those "
        "records; coverage as in the mechanism's paper; " + _reference("R")
    )
    assert "_exact_share" not in report.columns
    total = _total(report)
    # released exactly: no "other columns have no epsilon"
    assert total["note"] == (
        "no guarantee: some columns leave exactly; values released exactly: x0"
    )
    # without shares, none is named
    row = _report_of(_coverage_summary(exact_disclosure=True), k=1).iloc[0]
    assert row["note"].startswith(
        "values leave exactly: the design reports the values in its "
        "acceptable_range or exact cells as they are; no guarantee"
    )
    assert row["note"].endswith("; coverage as in the mechanism's paper")


def test_a_design_without_exact_cells_keeps_its_coverage_row():
    row = _report_of(_coverage_summary(exact_disclosure=False), k=1).iloc[0]
    assert row["exact_disclosure"] == False  # noqa: E712 (numpy bool)
    assert np.isnan(row["epsilon"]) and row["note"] == _NO_EPS
    # an ldp summary may say so too
    stated = _Stated(
        {"notion": _LDP, "epsilon_per_feature": 1.0, "exact_disclosure": False}
    )
    row = _report_of(stated, k=1).iloc[0]
    assert (row["epsilon"], row["exact_disclosure"]) == (1.0, False)


def test_audited_figures_of_a_row():
    # a pure claim: the audited loss, and delta 0
    stated = _Stated({"notion": _LDP, "epsilon_per_feature": 1.0}, law=(0.75, None))
    row = _report_of(stated, k=1).iloc[0]
    assert (row["audited_epsilon"], row["audited_delta"]) == (0.75, 0.0)
    assert row["note"] == ""
    # an (epsilon, delta) claim: the exact delta at the claimed epsilon
    summary = {"notion": _LDP, "epsilon_per_feature": 1.0, "delta_per_feature": 0.5}
    row = _report_of(_Stated(summary, law=(3.0, 0.25)), k=1).iloc[0]
    assert (row["audited_epsilon"], row["audited_delta"]) == (1.0, 0.25)
    # a delta claim whose law gives no delta: the audited delta is unknown
    row = _report_of(_Stated(summary, law=(3.0, None)), k=1).iloc[0]
    assert row["audited_epsilon"] == 3.0 and np.isnan(row["audited_delta"])
    # a zero delta claim is a pure claim
    summary["delta_per_feature"] = 0.0
    row = _report_of(_Stated(summary, law=(0.5, None)), k=1).iloc[0]
    assert (row["audited_epsilon"], row["audited_delta"]) == (0.5, 0.0)


def test_a_law_that_cannot_be_audited_says_why():
    summary = {"notion": _LDP, "epsilon_per_feature": 1.0, "condition": "c"}
    report = _report_of(_Stated(summary, law="a continuous sampler"), k=2)
    for row in (report.iloc[0], report.iloc[1]):
        assert np.isnan(row["audited_epsilon"]) and np.isnan(row["audited_delta"])
        assert row["note"] == "c; audit: not auditable: a continuous sampler"
    assert np.isnan(_total(report)["audited_epsilon"])


# -- searches fitted with refit=False: rows read from the parameters ----------
_STATIC = (
    "read from the epsilon parameter (the guarantee of one record over all the "
    "columns it privatizes)"
)


def _largest(params, n):
    return (
        f"refit=False: no fitted model; rows of the candidate {params}, the "
        f"largest epsilon of the {n} candidates, read from the parameters"
    )


def _simulated(n, how):
    return (
        f"in this simulation each record was privatized up to {n} times ({how}); "
        "a real deployment privatizes each record once"
    )


def test_search_without_refit_reads_the_largest_epsilon_and_its_delta():
    pipe = make_pipeline(_Budget(delta=2.0**-20), KernelDensity())
    search = GridSearchCV(
        pipe, {"_budget__epsilon": [0.5, 2.0, 1.0]}, cv=KFold(2), refit=False
    )
    report = privacy_report(search.fit(_X(k=1)))
    assert report["column"].tolist() == ["X", "total"]
    row = report.iloc[0]
    assert (row["mechanism"], row["notion"]) == ("_Budget", "")
    assert (row["epsilon"], row["delta"]) == (2.0, 2.0**-20)
    assert row["note"] == f"{_STATIC}; " + _largest({"_budget__epsilon": 2.0}, 3)
    # each of the 3 candidates privatizes a record when fitted on the fold
    # holding it and when scoring the other fold: 6 releases, no refit
    total = _total(report)
    assert (total["epsilon"], total["delta"]) == (2.0, 2.0**-20)
    how = (
        "3 candidates x 1 training folds + 3 candidates x 1 scorings of the "
        "held-out fold (transform privatizes it)"
    )
    assert total["note"] == (
        "sequential composition over the columns of one record; " + _simulated(6, how)
    )
    assert report.attrs == {"releases_per_record": 6}


def test_search_without_refit_over_a_privatizer_without_epsilon_parameter():
    pipe = make_pipeline(
        _Stated({"notion": _LDP, "epsilon_per_feature": 1.0}), KernelDensity()
    )
    search = GridSearchCV(
        pipe, {"kerneldensity__bandwidth": [0.5, 2.0]}, cv=KFold(2), refit=False
    )
    report = privacy_report(search.fit(_X(k=1)))
    row = report.iloc[0]
    assert np.isnan(row["epsilon"]) and np.isnan(row["delta"])
    assert row["note"] == (
        "no epsilon parameter: its guarantee needs the fitted privatizer; "
        + _largest({"kerneldensity__bandwidth": 0.5}, 2)
    )
    assert _total(report)["note"].startswith(
        "no composed epsilon: some privatizers state their guarantee only once "
        "fitted; in this simulation each record was privatized up to 4 times"
    )


def test_search_without_refit_over_an_exact_design():
    pipe = make_pipeline(_exact(), KernelDensity())
    search = GridSearchCV(
        pipe, {"kerneldensity__bandwidth": [0.5, 2.0]}, cv=KFold(2), refit=False
    )
    report = privacy_report(search.fit(_X(k=1)))
    row = report.iloc[0]
    assert row["epsilon"] == np.inf and row["exact_disclosure"] == True  # noqa: E712
    assert _total(report)["note"].startswith(
        "no guarantee: some columns leave exactly; values released exactly: X;"
    )


def test_a_boolean_epsilon_parameter_is_no_epsilon():
    pipe = make_pipeline(_Budget(epsilon=True), KernelDensity())
    search = GridSearchCV(
        pipe, {"kerneldensity__bandwidth": [0.5]}, cv=KFold(2), refit=False
    )
    row = privacy_report(search.fit(_X(k=1))).iloc[0]
    assert np.isnan(row["epsilon"])
    assert row["note"].startswith("no epsilon parameter")


# -- the walk: every column that leaves, with its channel ---------------------
def _frame(n=8):
    return pd.DataFrame(_X(n=n, k=2), columns=["a", "b"])


def _y(n=8):
    return _X(n=n, k=1)[:, 0]


def _table(report):
    """(column, mechanism, epsilon, note) of every row but the total."""
    rows = report.iloc[:-1]
    return list(
        zip(
            rows["column"],
            rows["mechanism"],
            rows["epsilon"],
            rows["note"],
            strict=True,
        )
    )


def _released_raw(how):
    return f"{how}; released raw"


def test_feature_union_branches_drop_and_passthrough():
    union = FeatureUnion([("p", _ldp(1.0)), ("d", "drop"), ("raw", "passthrough")])
    report = privacy_report(union.fit(_X(k=2)))
    how = _released_raw("passthrough 'raw' of FeatureUnion")
    assert _table(report) == [
        ("x0", "_Stated", 1.0, ""),
        ("x1", "_Stated", 1.0, ""),
        ("x0", "raw (passthrough)", np.inf, how),
        ("x1", "raw (passthrough)", np.inf, how),
    ]
    assert report["notion"].iloc[2] == "none (raw)"
    assert report["exact_disclosure"].iloc[2:4].tolist() == [True, True]
    assert _total(report)["note"] == (
        "no guarantee: some columns leave raw; raw columns (epsilon = inf): x0, x1"
    )
    # an identity transformer is a passthrough too
    union = FeatureUnion([("p", _ldp(1.0)), ("same", FunctionTransformer())])
    report = privacy_report(union.fit(_X(k=1)))
    assert _table(report)[1] == (
        "x0",
        "raw (passthrough)",
        np.inf,
        _released_raw("passthrough 'same' of FeatureUnion"),
    )


def test_pipeline_skips_none_and_passthrough_steps():
    pipe = Pipeline(
        [("n", None), ("p", _ldp(0.5)), ("s", "passthrough"), ("k", KernelDensity())]
    )
    report = privacy_report(pipe.fit(_frame()))
    assert _table(report) == [("a", "_Stated", 0.5, ""), ("b", "_Stated", 0.5, "")]
    assert _total(report)["epsilon"] == 1.0


def test_column_transformer_passthrough_drop_and_remainder():
    ct = ColumnTransformer([("a", _ldp(1.0), ["a"]), ("b", "passthrough", ["b"])])
    report = privacy_report(ct.fit(_frame()))
    assert _table(report) == [
        ("a", "_Stated", 1.0, ""),
        (
            "b",
            "raw (passthrough)",
            np.inf,
            _released_raw("passthrough 'b' of ColumnTransformer"),
        ),
    ]
    ct = ColumnTransformer([("a", _ldp(1.0), ["a"]), ("b", "drop", ["b"])])
    report = privacy_report(ct.fit(_frame()))
    assert _table(report) == [("a", "_Stated", 1.0, "")]
    assert _total(report)["epsilon"] == 1.0
    ct = ColumnTransformer([("a", _ldp(1.0), ["a"])], remainder="passthrough")
    report = privacy_report(ct.fit(_frame()))
    assert _table(report)[1] == (
        "b",
        "raw (passthrough)",
        np.inf,
        _released_raw("remainder='passthrough' of ColumnTransformer"),
    )
    # an identity branch is a passthrough
    ct = ColumnTransformer(
        [("a", _ldp(1.0), ["a"]), ("same", FunctionTransformer(), ["b"])]
    )
    report = privacy_report(ct.fit(_frame()))
    assert _table(report)[1][3] == _released_raw(
        "passthrough 'same' of ColumnTransformer"
    )


def test_a_raw_remainder_used_by_a_learner():
    ct = ColumnTransformer([("a", _ldp(1.0), ["a"])], remainder=StandardScaler())
    report = privacy_report(make_pipeline(ct, Ridge()).fit(_frame(), _y()))
    assert _table(report) == [
        ("a", "_Stated", 1.0, ""),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by Ridge; its fitted state is computed from it",
        ),
        (
            "b",
            "StandardScaler",
            np.inf,
            "not a privatizer: StandardScaler is fitted on the raw values: its "
            "fitted state may depend on every record; it passes the values on; "
            "used raw by Ridge",
        ),
    ]
    assert _total(report)["note"] == (
        "no guarantee: some columns leave raw; raw columns (epsilon = inf): y, b"
    )


def test_raw_columns_used_by_a_learner():
    # through a channel: named with it
    ct = ColumnTransformer([("b", _ldp(1.0), ["b"])], remainder="passthrough")
    report = privacy_report(make_pipeline(ct, KernelDensity()).fit(_frame()))
    assert _table(report) == [
        ("b", "_Stated", 1.0, ""),
        (
            "a",
            "raw (passthrough)",
            np.inf,
            "remainder='passthrough' of ColumnTransformer; used raw by KernelDensity",
        ),
    ]
    assert report["notion"].iloc[1] == "none (raw)"
    # straight from the input: named by the learner
    vote = VotingRegressor([("p", make_pipeline(_ldp(0.5), Ridge())), ("r", Ridge())])
    report = privacy_report(vote.fit(_frame(), _y()))
    used = "used raw by Ridge (its fitted state is computed from it)"
    assert _table(report)[2:] == [
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by Ridge; its fitted state is computed from it",
        ),
        ("a", "Ridge", np.inf, used),
        ("b", "Ridge", np.inf, used),
    ]


def test_a_learner_privatizes_its_input_not_its_response():
    report = privacy_report(_Learner(_ldp(0.5)).fit(_frame(), _y()))
    assert _table(report) == [
        ("x0", "_Stated", 0.5, ""),
        ("x1", "_Stated", 0.5, ""),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _Learner; its fitted state is computed from it",
        ),
    ]
    assert report["notion"].iloc[2] == "none (raw)"


# -- ensembles: every member, and the releases of one record -------------------
def _density(eps):
    return make_pipeline(_ldp(eps), KernelDensity())


def test_members_of_a_meta_estimator_that_refits_are_counted_once_each():
    ransac = RANSACRegressor(
        make_pipeline(_ldp(0.5), LinearRegression()), min_samples=4, random_state=0
    )
    report = privacy_report(ransac.fit(_frame(), _y()))
    note = (
        "counted once per member of RANSACRegressor: a meta-estimator that "
        "refits clones internally privatizes more often"
    )
    assert _table(report)[:2] == [
        ("a", "_Stated", 0.5, note),
        ("b", "_Stated", 0.5, note),
    ]
    # a member fitted once (voting) has no such note
    vote = VotingRegressor([("p", make_pipeline(_ldp(0.5), Ridge()))])
    assert _table(privacy_report(vote.fit(_frame(), _y())))[0][3] == ""


def test_a_selector_outputs_raw_columns_of_its_input():
    select = SelectFromModel(
        make_pipeline(_ldp(0.5), Ridge()),
        importance_getter="named_steps.ridge.coef_",
        threshold=-np.inf,
    )
    report = privacy_report(select.fit(_frame(), _y()))
    how = "SelectFromModel outputs raw columns of its input; released raw"
    assert _table(report)[2:] == [
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by Ridge; its fitted state is computed from it",
        ),
        ("a", "SelectFromModel", np.inf, how),
        ("b", "SelectFromModel", np.inf, how),
    ]


def test_bagging_scales_each_member_by_the_most_exposed_record():
    bag = BaggingRegressor(_Learner(_ldp(0.5)), n_estimators=3, random_state=0)
    report = privacy_report(bag.fit(_frame(), _y()))
    counts = np.array([np.bincount(s, minlength=8) for s in bag.estimators_samples_])
    worst = int(np.argmax(counts.sum(axis=0)))
    expected = []
    for m, c in enumerate(counts[:, worst]):
        note = (
            f"privatized {c} times per record: member {m} of BaggingRegressor "
            f"holds the most exposed record {c} times"
            if c != 1
            else ""
        )
        expected += [(name, "_Stated", 0.5 * c, note) for name in ("a", "b") if c]
    assert _table(report)[:-1] == expected
    assert sorted(counts[:, worst]) == [0, 2, 3]  # rows dropped and scaled


def _unfitted_bagging(**params):
    bag = BaggingRegressor(_Learner(_Budget()), n_estimators=3, **params)
    search = GridSearchCV(
        bag, {"estimator__privatizer__epsilon": [0.5]}, cv=KFold(2), refit=False
    )
    return privacy_report(search.fit(_frame(), _y()))


def test_bagging_of_an_unfitted_candidate():
    # without bootstrap each of the 3 members privatizes every record once
    row = _unfitted_bagging(bootstrap=False).iloc[0]
    assert row["epsilon"] == 1.5
    assert row["note"].startswith(
        f"{_STATIC}; privatized 3 times per record: 3 members of BaggingRegressor; "
    )
    # with bootstrap, a member may draw a record several times: unknown
    report = _unfitted_bagging()
    row = report.iloc[0]
    assert np.isnan(row["epsilon"]) and np.isnan(row["delta"])
    assert _total(report)["note"].startswith(
        "no guarantee: some columns leave raw; raw columns (epsilon = inf): y; "
        "other columns have no epsilon: an unknown number of releases (3 members "
        "of BaggingRegressor, each fitted on a bootstrap sample that may hold a "
        "record several times); in this simulation"
    )
    assert row["note"].startswith(
        f"{_STATIC}; released an unknown number of times per record: 3 members of "
        "BaggingRegressor, each fitted on a bootstrap sample that may hold a record "
        "several times; "
    )


def test_stacking_counts_the_fits_of_cross_val_predict():
    # cv=2: a member is fitted on all records and on the 2 - 1 = 1 training
    # fold holding a record; a privatizer on the transform path also
    # privatizes the record when predicting its own fold
    stack = StackingRegressor(
        [("m", make_pipeline(_ldp(0.5), Ridge())), ("l", _Learner(_ldp(0.25)))],
        final_estimator=_Learner(_ldp(1.0)),
        cv=KFold(2),
        passthrough=True,
    )
    report = privacy_report(stack.fit(_frame(), _y()))
    why = "fitted on all records and in cross_val_predict by StackingRegressor"
    assert _table(report)[:8] == [
        ("a", "_Stated", 1.5, f"privatized 3 times per record: {why}"),
        ("b", "_Stated", 1.5, f"privatized 3 times per record: {why}"),
        ("a", "_Stated", 0.5, f"privatized 2 times per record: {why}"),
        ("b", "_Stated", 0.5, f"privatized 2 times per record: {why}"),
        # the final learner privatizes the members' predictions (released
        # ones, then the learner's at the raw inputs) and the passthrough
        ("predictions", "_Stated", 1.0, ""),
        ("a, b", "_Stated", 1.0, ""),
        ("a", "_Stated", 1.0, ""),
        ("b", "_Stated", 1.0, ""),
    ]


def test_stacking_of_prefit_members_counts_one_release():
    member = make_pipeline(_ldp(0.5), Ridge()).fit(_frame(), _y())
    stack = StackingRegressor([("m", member)], final_estimator=Ridge(), cv="prefit")
    report = privacy_report(stack.fit(_frame(), _y()))
    assert _table(report)[:2] == [("a", "_Stated", 0.5, ""), ("b", "_Stated", 0.5, "")]


class _Invertible(_Stated):
    def inverse_transform(self, X):
        return X


def test_a_response_privatized_before_the_regressor():
    target = _Invertible({"notion": _LDP, "epsilon_per_feature": 2.0})
    ttr = TransformedTargetRegressor(
        _Learner(_ldp(0.5)), transformer=target, check_inverse=False
    )
    report = privacy_report(ttr.fit(_frame(), _y()))
    assert _table(report) == [
        ("y", "_Invertible", 2.0, ""),
        ("x0", "_Stated", 0.5, ""),
        ("x1", "_Stated", 0.5, ""),
    ]
    total = _total(report)
    assert total["epsilon"] == 3.0
    # a step that mixes records before the response's privatizer
    ttr.set_params(transformer=make_pipeline(StandardScaler(), target))
    report = privacy_report(ttr.fit(_frame(), _y()))
    assert _table(report)[3] == (
        "y",
        "StandardScaler",
        np.inf,
        f"{_UNCERTIFIED}; StandardScaler is fitted on the raw values: its fitted "
        "state may depend on every record",
    )
    assert report["notion"].iloc[3] == "none (not certified)"
    assert report["exact_disclosure"].iloc[3] == False  # noqa: E712


def test_a_learner_that_stores_its_raw_response_says_so():
    learner = DeconvolutionKernelRegressor(
        bandwidth=5.0, privatizer=LaplaceLDP(epsilon=1, bounds=(0, 10))
    )
    report = privacy_report(learner.fit(_frame(), _y()))
    assert _table(report)[2] == (
        "y",
        "raw (response)",
        np.inf,
        "response used raw by DeconvolutionKernelRegressor; stored in the fitted "
        "model (and its pickle)",
    )


def test_a_search_of_searches_multiplies_the_releases():
    inner = GridSearchCV(
        make_pipeline(_ldp(1.0), KernelDensity()),
        {"kerneldensity__bandwidth": [1.0, 2.0]},
        cv=KFold(2),
    )
    outer = GridSearchCV(inner, {"cv": [KFold(2)]}, cv=KFold(2))
    report = privacy_report(outer.fit(_frame()))
    # inner: 2 candidates x (1 training fold + 1 scoring) + 1 refit = 5 per
    # fit; outer: 1 candidate x (1 + 1) + 1 refit = 3 fits
    assert report.attrs == {"releases_per_record": 15}
    assert _total(report)["note"] == (
        "sequential composition over the columns of one record; "
        + _simulated(
            15,
            "1 candidates x 1 training folds + 1 candidates x 1 scorings of the "
            "held-out fold (transform privatizes it) + 1 refit, each fit running "
            "an inner search (5 times)",
        )
    )


# -- what an estimator is made of: splits, columns, members -------------------
def test_split_counts_of_each_splitter():
    assert _split_counts(None, 5) == ([(4, 1)], True)
    assert _split_counts(3, 3) == ([(2, 1)], True)
    assert _split_counts(KFold(4), 4) == ([(3, 1)], True)
    assert _split_counts(LeaveOneOut(), 6) == ([(5, 1)], True)
    # every record is in the test part of one split per repetition
    assert _split_counts(RepeatedKFold(n_splits=2, n_repeats=3), 6) == ([(3, 3)], True)
    # a record never tested is in the training part of every split
    split = PredefinedSplit([0, 1, -1, 0])
    assert _split_counts(split, 2) == ([(1, 1), (2, 0)], True)
    assert _split_counts(PredefinedSplit([0, 1, 0, 1]), 2) == ([(1, 1)], True)
    # explicit splits are counted record by record
    folds = [([0, 1], [2]), (np.array([1, 2]), np.array([0]))]
    assert _split_counts(folds, 2) == ([(1, 1), (2, 0)], True)
    # anything else: every possibility
    anything = [(2, 0), (1, 1), (0, 2)]
    assert _split_counts(ShuffleSplit(n_splits=2), 2) == (anything, False)
    assert _split_counts(True, 2) == (anything, False)
    assert _split_counts([(None, None)], 2) == (anything, False)
    assert _split_counts([], 2) == (anything, False)


def _score(estimator, X, y=None):
    return estimator.score(X)


def test_search_releases_with_several_scorers_and_train_scores():
    search = GridSearchCV(
        _density(1.0),
        {"kerneldensity__bandwidth": [1.0, 2.0]},
        cv=KFold(2),
        scoring={"s1": _score, "s2": _score},
        refit="s1",
        return_train_score=True,
    )
    report = privacy_report(search.fit(_frame()))
    # per candidate: 1 training fold, 2 scorers x (1 held-out fold + 1
    # training fold); 2 candidates and the refit: 2 x 5 + 1
    assert report.attrs == {"releases_per_record": 11}
    assert _total(report)["note"].endswith(
        _simulated(
            11,
            "2 candidates x 1 training folds + 2 candidates x 2 scorings of the "
            "held-out fold (transform privatizes it) + 2 candidates x 2 training "
            "scores + 1 refit",
        )
    )


def test_search_releases_over_any_split_take_the_worst_record():
    search = GridSearchCV(
        _density(1.0),
        {"kerneldensity__bandwidth": [1.0]},
        cv=ShuffleSplit(n_splits=2, test_size=0.5, random_state=0),
    )
    report = privacy_report(search.fit(_frame()))
    # a record may be in the test part of both splits: 2 scorings, + refit;
    # or in both training parts: 2 fits + refit; either way 3
    assert report.attrs == {"releases_per_record": 3}
    how = _total(report)["note"].split("(", 1)[1]
    assert how.startswith("1 candidates x ")
    assert "; the worst case over any split of 2 splits); a real" in how


def test_search_over_a_learner_counts_its_fits_only():
    search = GridSearchCV(
        _Learner(_Budget()), {"privatizer__epsilon": [0.5, 2.0]}, cv=KFold(3)
    )
    report = privacy_report(search.fit(_frame(n=9), _y(n=9)))
    # the learner privatizes in fit only: 2 candidates x 2 training folds + refit
    assert report.attrs == {"releases_per_record": 5}
    assert "(2 candidates x 2 training folds + 1 refit)" in _total(report)["note"]


def test_a_search_without_any_privatizing_candidate_counts_no_release():
    search = GridSearchCV(Ridge(), {"alpha": [1.0, 2.0]}, cv=KFold(2))
    vote = VotingRegressor([("p", make_pipeline(_ldp(1.0), Ridge())), ("s", search)])
    report = privacy_report(vote.fit(_frame(), _y()))
    assert report.attrs == {}
    assert "in this simulation" not in _total(report)["note"]


def test_column_specs_resolve_to_positions():
    names = ["a", "b", "c"]
    assert _resolve_columns(lambda X: [0], 3, names) is None
    assert _resolve_columns("b", 3, names) == [1]
    assert _resolve_columns("z", 3, names) is None
    assert _resolve_columns("b", 3, None) is None
    assert _resolve_columns(1, 3, None) == [1]
    assert _resolve_columns(-1, 3, None) == [2]
    assert _resolve_columns(np.int64(2), 3, None) == [2]
    # label slices include their stop; open ends reach the first or last
    assert _resolve_columns(slice("a", "b"), 3, names) == [0, 1]
    assert _resolve_columns(slice(None, "b"), 3, names) == [0, 1]
    assert _resolve_columns(slice("b", None), 3, names) == [1, 2]
    assert _resolve_columns(slice("a", "z"), 3, names) is None
    assert _resolve_columns(slice("z", "a"), 3, names) is None
    # position slices exclude it
    assert _resolve_columns(slice(1, None), 3, names) == [1, 2]
    assert _resolve_columns(slice(0, 2), 3, None) == [0, 1]
    assert _resolve_columns(slice(0, 2), None, None) is None
    assert _resolve_columns([], 3, names) == []
    assert _resolve_columns([True, False, True], 3, names) == [0, 2]
    assert _resolve_columns([True, False], 3, names) is None
    assert _resolve_columns(["c", "a"], 3, names) == [2, 0]
    assert _resolve_columns(np.array([2, 0]), 3, None) == [2, 0]
    assert _resolve_columns(["c", "z"], 3, names) is None
    assert _resolve_columns([1.5], 3, None) is None
    assert _resolve_columns(True, 3, None) is None


def test_column_spec_labels_without_fitted_state():
    assert _spec_labels("t", "age") == ["age"]
    assert _spec_labels("t", 3) == ["3"]
    assert _spec_labels("t", ["a", "b"]) == ["a", "b"]
    assert _spec_labels("t", (0, 2)) == ["0", "2"]
    assert _spec_labels("t", np.array([[1], [2]])) == ["1", "2"]
    assert _spec_labels("t", [False, True, True]) == ["1", "2"]
    assert _spec_labels("t", slice(0, 2)) == ["columns of 't'"]
    assert _spec_labels("t", True) == ["columns of 't'"]


def test_per_column_values():
    missing = _per_column(None, 2)
    assert len(missing) == 2 and np.isnan(missing).all()
    assert _per_column(None, 2, "d") == ["d", "d"]
    assert _per_column(0.5, 3) == [0.5, 0.5, 0.5]
    assert _per_column([1, 2], 2) == [1, 2]
    assert _per_column(np.array([1, 2]), 2) == [1, 2]
    assert _per_column([1, 2, 3], 2, "d") == ["d", "d"]
    assert np.isnan(_per_column([1, 2, 3], 2)).all()


def test_input_columns_are_named_from_the_fitted_estimator():
    assert _input_cols(_ldp(1.0).fit(_frame())) == [_Col("a"), _Col("b")]
    assert _input_cols(_ldp(1.0).fit(_X(k=2))) == [_Col("x0"), _Col("x1")]
    ct = ColumnTransformer([("a", _ldp(1.0), [0])]).fit(_X(k=2))
    assert _input_cols(ct) == [_Col("0"), _Col("1")]
    assert _input_cols(_ldp(1.0)) == [_Col("X")]


class _Holder:
    def __init__(self, **fitted):
        vars(self).update(fitted)


def test_fitted_members_are_read_in_order():
    a, b, c, d = Ridge(), Ridge(alpha=2), Ridge(alpha=3), Ridge(alpha=4)
    nested = [[a, b], (c, "not an estimator"), np.array([d], dtype=object)]
    assert _fitted_members(_Holder(estimators_=nested)) == [a, b, c, d]
    assert _fitted_members(_Holder(estimators_=[])) == []
    for name in ("estimator_", "regressor_", "classifier_"):
        assert _fitted_members(_Holder(**{name: a})) == [a]
    assert _fitted_members(_Holder(estimator_="x", regressor_=b)) == [b]
    assert _fitted_members(_Holder(named_estimators_={"x": a, "y": 3})) == [a]
    assert _fitted_members(_Holder()) == []


def test_what_privatizes_in_fit_and_on_predict():
    assert _privatizes(None) == (False, False)
    assert _privatizes("passthrough") == (False, False)
    assert _privatizes(_ldp(1.0)) == (True, True)
    assert _privatizes(_Learner(_ldp(1.0))) == (True, False)
    assert _privatizes(_Learner()) == (False, False)
    assert _privatizes(make_pipeline(StandardScaler(), _Learner(_ldp(1.0)))) == (
        True,
        False,
    )
    assert _privatizes(make_pipeline(_ldp(1.0), _Learner())) == (True, True)
    vote = VotingRegressor([("a", _Learner(_ldp(1.0))), ("b", Ridge())])
    assert _privatizes(vote) == (True, False)
    assert _privatizes(make_pipeline(StandardScaler(), Ridge())) == (False, False)


class _WeightedLearner(_Learner):
    def fit(self, X, y, sample_weight=None):
        return super().fit(X, y)


def test_members_fitted_with_weights_privatize_every_record_once():
    bag = BaggingRegressor(_WeightedLearner(_ldp(0.5)), n_estimators=3, random_state=0)
    report = privacy_report(bag.fit(_frame(), _y()))
    assert _table(report)[:-1] == [(c, "_Stated", 0.5, "") for c in ["a", "b"] * 3]
    assert _consumes_sample_weight(_WeightedLearner()) is True
    assert _consumes_sample_weight(_Learner()) is False
    with config_context(enable_metadata_routing=True):
        asked = _WeightedLearner().set_fit_request(sample_weight=True)
        assert _consumes_sample_weight(asked) is True
        assert _consumes_sample_weight(_WeightedLearner()) is False
        assert _consumes_sample_weight(object()) is False


class _NeedsResponse(TransformerMixin, BaseEstimator):
    """A transformer whose fit requires the response (it keeps a sign of it)."""

    def fit(self, X, y):
        self.sign_ = float(np.sign(np.mean(y)))
        return self

    def transform(self, X):
        return np.asarray(X) * self.sign_

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags


def test_a_transformer_that_needs_the_response_uses_it_raw():
    pipe = make_pipeline(_ldp(1.0), _NeedsResponse(), KernelDensity())
    report = privacy_report(pipe.fit(_frame(), _y()))
    assert _table(report)[2] == (
        "y",
        "raw (response)",
        np.inf,
        "response used raw by _NeedsResponse; its fitted state is computed from it",
    )
    # a step that needs no response leaves it out
    report = privacy_report(_density(1.0).fit(_frame(), _y()))
    assert report["column"].tolist() == ["a", "b", "total"]


# -- steps before a privatizer: the row-wise rule -----------------------------
_ROWWISE = "(row-wise)"


@pytest.mark.parametrize(
    "step, why",
    [
        (FunctionTransformer(), "FunctionTransformer the identity"),
        (Normalizer(), "Normalizer divides each row by its own norm"),
        (Binarizer(), "Binarizer compares each value with a fixed threshold"),
        (
            PolynomialFeatures(),
            "PolynomialFeatures multiplies a row's own columns; its fitted powers "
            "follow from the column count",
        ),
        (
            SplineTransformer(knots=np.array([[0.0], [10.0]])),
            "SplineTransformer evaluates B-splines on the knots given as a parameter",
        ),
        (
            OneHotEncoder(categories=[[0.0, 1.0]]),
            "OneHotEncoder encodes each value against the categories given as a "
            "parameter",
        ),
        (
            OrdinalEncoder(categories=[[0.0, 1.0]]),
            "OrdinalEncoder encodes each value against the categories given as a "
            "parameter",
        ),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, str) else "",
)
def test_known_rowwise_steps_and_why(step, why):
    for fitted in (False, True):
        assert step_status(step, fitted) == (True, f"{why} {_ROWWISE}")


_FITTED_ON_RAW = (
    "is fitted on the raw values: its fitted state may depend on every record"
)


@pytest.mark.parametrize(
    "step",
    [
        SplineTransformer(),
        OneHotEncoder(),
        OneHotEncoder(categories=[[0.0, 1.0]], min_frequency=2),
        OrdinalEncoder(categories=[[0.0, 1.0]], max_categories=2),
        StandardScaler(),
    ],
)
def test_steps_learned_from_the_data_are_refused(step):
    name = type(step).__name__
    assert step_status(step, True) == (False, f"{name} {_FITTED_ON_RAW}")


class _Normalizer(Normalizer):
    """Overrides nothing, but a subclass may: not known."""


class _Stateless(TransformerMixin, BaseEstimator):
    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.requires_fit = False
        return tags


def test_other_steps_are_refused_with_their_reason():
    assert step_status(_Normalizer(), True) == (
        False,
        "_Normalizer is not known to compute each row from that row alone",
    )
    assert step_status(FunctionTransformer(np.log1p), True) == (
        False,
        "FunctionTransformer applies log1p to the whole array and is not declared "
        "row-wise (wrap it in RowwiseTransformer if each output row depends on its "
        "own input row only)",
    )
    assert step_status(FunctionTransformer(partial(np.round, decimals=1)), True) == (
        False,
        "FunctionTransformer applies partial to the whole array and is not declared "
        "row-wise (wrap it in RowwiseTransformer if each output row depends on its "
        "own input row only)",
    )
    assert step_status(_Stateless(), True) == (
        False,
        "_Stateless is not known to compute each row from that row alone",
    )


class _Memo(TransformerMixin, BaseEstimator):
    """Declared row-wise; what its fit keeps is chosen by ``keep``."""

    def __init__(self, helper=None, keep=()):
        self.helper = helper
        self.keep = keep

    def fit(self, X, y=None):
        self.n_features_in_ = np.shape(X)[1]
        self._private_ = 1.0
        self.plain = 2.0
        for name in self.keep:
            setattr(self, name, _VALUES[name])
        return self

    def transform(self, X):
        return X


class _FitOnly:
    """Has a fit method but is no estimator (no get_params)."""

    def fit(self, X):
        return self


_VALUES = {
    "seen_": 3.0,
    # a known step's fitted state follows from its parameters
    "inner_": PolynomialFeatures().fit(np.ones((2, 2))),
    "fitter_": _FitOnly(),
    "scaler_": _Holder(mean_=0.0, _kept_=1.0),
    "members_": [Normalizer(), _Holder(scale_=1.0)],
}
_Holder.fit = lambda self, X: self  # what makes it an estimator
_Holder.get_params = lambda self, deep=True: {}


def _declared(memo):
    step = RowwiseTransformer(memo).fit(_X(k=2))
    return step_status(step, True)


def test_a_declared_step_is_refused_only_for_what_it_learned():
    label = "RowwiseTransformer(_Memo)"
    kept = (True, f"{label}: declared row-wise, no state learned from the records")
    assert _declared(_Memo()) == kept
    assert _declared(_Memo(keep=["inner_"])) == kept  # a known step learns nothing
    refused = _declared(_Memo(keep=["seen_", "scaler_", "members_", "fitter_"]))
    assert refused == (
        False,
        f"{label} is declared row-wise but learned seen_, scaler_.mean_, "
        "members_.scale_, fitter_ from the records in fit",
    )
    # estimators held by parameters are searched too (a frozen one keeps
    # its fitted state through the clone of fit)
    frozen = FrozenEstimator(StandardScaler().fit(_X(k=2)))
    assert _declared(_Memo(helper=frozen))[1] == (
        f"{label} is declared row-wise but learned helper.estimator.n_samples_seen_, "
        "helper.estimator.mean_, helper.estimator.var_, helper.estimator.scale_ "
        "from the records in fit"
    )
    # a class is not an estimator
    assert _declared(_Memo(helper=StandardScaler)) == kept


def test_an_unfitted_declared_step_is_judged_from_its_parameters():
    label = "RowwiseTransformer(_Memo)"
    kept = (True, f"{label}: declared row-wise, no state learned from the records")
    may_learn = (
        False,
        f"{label} is declared row-wise but _Memo may learn from the records in fit "
        "(not fitted: its state cannot be read)",
    )
    assert step_status(RowwiseTransformer(_Memo()), False) == may_learn
    assert step_status(RowwiseTransformer(_Memo(helper=Normalizer())), False) == kept
    # a known step learns nothing beyond the column count, even one that
    # must be fitted
    assert (
        step_status(RowwiseTransformer(_Memo(helper=PolynomialFeatures())), False)
        == kept
    )
    assert step_status(RowwiseTransformer(_Memo(helper=[_Stateless()])), False) == kept
    assert (
        step_status(RowwiseTransformer(_Memo(helper=StandardScaler())), False)
        == may_learn
    )
    assert step_status(RowwiseTransformer(_Stateless()), False) == (
        True,
        "RowwiseTransformer(_Stateless): declared row-wise, no state learned from "
        "the records",
    )
    log = RowwiseTransformer(FunctionTransformer(np.log1p))
    assert step_status(log, False)[0] is True
    # a known step inside is named with its reason
    assert step_status(RowwiseTransformer(), False) == (
        True,
        "RowwiseTransformer(FunctionTransformer): FunctionTransformer the identity",
    )
    # a declared step not fitted yet is judged from its parameters even when
    # asked for its fitted state, and so is a fitted one asked for its
    # parameters
    assert step_status(RowwiseTransformer(_Memo()), True) == may_learn
    assert step_status(RowwiseTransformer(_Memo()).fit(_X(k=1)), False) == may_learn
    changed = RowwiseTransformer(_Memo()).fit(_X(k=1)).set_params(transformer=None)
    assert step_status(changed, False)[0] is True  # the identity now


# -- RowwiseTransformer: a transparent wrapper ------------------------------------
class _RecordsFit(TransformerMixin, BaseEstimator):
    """Records what fit received; keeps no column names."""

    def fit(self, X, y=None, **fit_params):
        self.got_ = (None if y is None else list(y), fit_params)
        return self

    def transform(self, X):
        return np.asarray(X) + 1.0


def test_rowwise_fit_passes_on_y_and_fit_params():
    step = RowwiseTransformer(_RecordsFit()).fit(_X(n=2, k=1), [1, 2], w=3)
    assert step.transformer_.got_ == ([1, 2], {"w": 3})
    assert step.transformer is not step.transformer_  # a fitted clone
    assert not hasattr(step.transformer, "got_")
    np.testing.assert_array_equal(step.transform([[1.0]]), [[2.0]])


def test_rowwise_default_is_the_validating_identity():
    step = RowwiseTransformer()
    assert step.transformer is None
    step.fit(_frame())
    assert type(step.transformer_) is FunctionTransformer
    assert step.transformer_.validate is True and step.transformer_.func is None
    assert step.n_features_in_ == 2
    assert step.feature_names_in_.tolist() == ["a", "b"]
    unnamed = RowwiseTransformer().fit(_X(k=2))
    with pytest.raises(ValueError, match="X has 3 features"):
        unnamed.transform(_X(k=3))
    np.testing.assert_array_equal(unnamed.inverse_transform([[1.0, 2.0]]), [[1.0, 2.0]])
    named = RowwiseTransformer(Normalizer()).fit(_frame())
    assert named.get_feature_names_out().tolist() == ["a", "b"]
    assert named.get_feature_names_out(["a", "b"]).tolist() == ["a", "b"]


def test_rowwise_refit_drops_column_names_the_new_fit_lacks():
    step = RowwiseTransformer().fit(_frame())
    step.set_params(transformer=_RecordsFit()).fit(_X(k=2))
    assert not hasattr(step, "n_features_in_")
    assert not hasattr(step, "feature_names_in_")
    # names kept from an array fit are not invented either
    step = RowwiseTransformer().fit(_X(k=2))
    assert step.n_features_in_ == 2 and not hasattr(step, "feature_names_in_")


def test_rowwise_refuses_a_transformer_without_transform():
    with pytest.raises(
        ValueError, match="'transformer' parameter of RowwiseTransformer"
    ):
        RowwiseTransformer(Ridge()).fit(_X(k=1), _y())


def test_rowwise_transform_before_fit_is_refused():
    with pytest.raises(NotFittedError):
        RowwiseTransformer().transform(_X(k=1))
    with pytest.raises(NotFittedError):
        RowwiseTransformer().inverse_transform(_X(k=1))
    with pytest.raises(NotFittedError):
        RowwiseTransformer(Normalizer()).get_feature_names_out()


def test_rowwise_methods_follow_the_wrapped_transformer():
    plain = RowwiseTransformer(_RecordsFit())
    assert not hasattr(plain, "inverse_transform")
    assert not hasattr(plain, "get_feature_names_out")
    assert hasattr(RowwiseTransformer(), "inverse_transform")
    # after fit, the fitted clone decides
    step = RowwiseTransformer().fit(_X(k=1))
    step.transformer = _RecordsFit()
    assert hasattr(step, "inverse_transform")


def test_rowwise_set_output_reaches_the_fitted_and_later_clones():
    step = RowwiseTransformer()
    assert step.set_output() is step
    assert not hasattr(step, "_sklearn_output_config")
    step = RowwiseTransformer(Normalizer())
    out = step.set_output(transform="pandas").fit(_frame()).transform(_frame())
    assert isinstance(out, pd.DataFrame)
    step = RowwiseTransformer(Normalizer()).fit(_frame())
    assert isinstance(step.transform(_frame()), np.ndarray)
    assert isinstance(
        step.set_output(transform="pandas").transform(_frame()), pd.DataFrame
    )
    # an inner step without set_output is left alone
    step = RowwiseTransformer(_RecordsFit()).set_output(transform="pandas")
    assert isinstance(step.fit(_frame()).transform(_frame()), np.ndarray)


class _Float32(_Stateless):
    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.transformer_tags.preserves_dtype = ["float32"]
        return tags


def test_rowwise_tags_are_the_wrapped_transformer_s():
    assert get_tags(RowwiseTransformer(_ldp(1.0))).non_deterministic is True
    assert get_tags(RowwiseTransformer()).non_deterministic is False
    tags = get_tags(RowwiseTransformer(OneHotEncoder()))
    assert tags.input_tags == get_tags(OneHotEncoder()).input_tags
    assert tags.input_tags.categorical is True
    assert tags.transformer_tags.preserves_dtype == ["float64"]
    assert get_tags(
        RowwiseTransformer(_Float32())
    ).transformer_tags.preserves_dtype == ["float32"]


# -- privacy_report itself ----------------------------------------------------------
def test_a_report_needs_an_estimator_holding_a_privatizer():
    with pytest.raises(
        TypeError,
        match=re.escape(
            "estimator must be a fitted scikit-learn estimator (a privatizer, "
            "pipeline, learner or search); got ndarray."
        ),
    ):
        privacy_report(_X())
    with pytest.raises(
        ValueError,
        match=re.escape(
            "estimator holds no fitted privatizer, so whether its input was raw or "
            "already privatized cannot be told: expected a fitted privatizer or a "
            "composite, learner, ensemble or search holding one; got Pipeline."
        ),
    ):
        privacy_report(make_pipeline(StandardScaler(), Ridge()).fit(_frame(), _y()))


def test_report_columns_and_types():
    report = privacy_report(_ldp(1.0).fit(_X(k=1)))
    assert report.columns.tolist() == [
        "column",
        "mechanism",
        "notion",
        "epsilon",
        "delta",
        "coverage",
        "leakage",
        "bounds",
        "bounds_from_data",
        "floating_point_safe",
        "reproducible",
        "note",
        "coverage_reference",
        "coverage_data",
        "exact_disclosure",
        "exact_share_data",
        "audited_epsilon",
        "audited_delta",
    ]
    for col in ("epsilon", "delta", "audited_epsilon", "audited_delta"):
        assert report[col].dtype == np.float64
    assert report.index.tolist() == [0, 1]
    assert report.attrs == {}


def test_raw_columns_at_the_output_are_released_raw_once():
    # the predictions of a learner are no record column; a column already
    # reported as a raw channel is not reported again
    ct = ColumnTransformer(
        [
            ("a", _ldp(1.0), ["a"]),
            ("b", "passthrough", ["b"]),
            ("c", "passthrough", ["b"]),
        ]
    )
    report = privacy_report(ct.fit(_frame()))
    assert report["column"].tolist() == ["a", "b", "total"]
    assert report["note"].iloc[1] == (
        "passthrough 'b' of ColumnTransformer; released raw; passthrough 'c' of "
        "ColumnTransformer; released raw"
    )


def test_search_without_refit_takes_the_largest_delta_among_equal_epsilons():
    # reporting the first candidate would understate the delta of the second
    pipe = make_pipeline(_Budget(epsilon=1.0), KernelDensity())
    grid = {"_budget__delta": [2.0**-20, 2.0**-10, 2.0**-15]}
    search = GridSearchCV(pipe, grid, cv=KFold(2), refit=False)
    report = privacy_report(search.fit(_X(k=1)))
    row = report.iloc[0]
    assert (row["epsilon"], row["delta"]) == (1.0, 2.0**-10)
    assert row["note"].endswith(_largest({"_budget__delta": 2.0**-10}, 3))
    # a raw channel outweighs any epsilon
    ct = ColumnTransformer([("a", _Budget(), [0])], remainder="passthrough")
    grid = [
        {"columntransformer__a__epsilon": [4.0]},
        {
            "columntransformer__a__epsilon": [1.0],
            "columntransformer__remainder": ["passthrough"],
        },
        {
            "columntransformer__a__epsilon": [8.0],
            "columntransformer__remainder": ["drop"],
        },
    ]
    search = GridSearchCV(
        make_pipeline(ct, KernelDensity()), grid, cv=KFold(2), refit=False
    )
    report = privacy_report(search.fit(_X(k=2)))
    assert report["epsilon"].iloc[0] == 4.0


class _Unseeded(_Stated):
    _is_seeded = None  # says nothing about its seeding


def test_rows_of_a_privatizer_that_does_not_say_whether_it_is_seeded():
    stated = _Unseeded({"notion": _LDP, "epsilon_per_feature": 1.0})
    assert np.isnan(_report_of(stated, k=1)["reproducible"].iloc[0])


def test_a_subset_summary_shorter_than_the_columns():
    stated = _Stated(
        {"notion": "subset privacy", "columns": [{"min_coverage": 0.5}]},
        law=(1.0, None),
    )
    report = _report_of(stated)
    # one entry, one row; the audit (one figure per column) does not fit it
    assert report["column"].tolist() == ["x0", "total"]
    assert np.isnan(report["audited_epsilon"].iloc[0])
    assert report["note"].iloc[0].endswith("no epsilon")


def test_repeats_multiply_the_audited_figures_too():
    summary = {"notion": _LDP, "epsilon_per_feature": 0.5, "delta_per_feature": 0.25}
    member = make_pipeline(_Stated(summary, law=(0.5, 2.0**-4)), Ridge())
    stack = StackingRegressor([("m", member)], final_estimator=Ridge(), cv=KFold(2))
    report = privacy_report(stack.fit(_frame(n=8)[["a"]], _y()))
    row = report.iloc[0]
    assert (row["epsilon"], row["delta"]) == (1.5, 0.75)
    assert (row["audited_epsilon"], row["audited_delta"]) == (1.5, 3 * 2.0**-4)


def test_an_unfitted_candidate_without_summary_has_no_exact_release():
    pipe = make_pipeline(LaplaceLDP(bounds=(0, 10)), KernelDensity())
    search = GridSearchCV(
        pipe, {"laplaceldp__epsilon": [0.5]}, cv=KFold(2), refit=False
    )
    row = privacy_report(search.fit(_X(k=1))).iloc[0]
    assert (row["epsilon"], row["delta"]) == (0.5, 0.0)
    assert row["exact_disclosure"] == False  # noqa: E712 (numpy bool)


def test_stacking_over_used_up_splits_counts_an_unknown_number_of_releases():
    # fit consumes a one-shot iterable of splits: how many folds held a
    # record cannot be read back, and the member's rows must not vanish
    splits = iter(list(KFold(2).split(_frame())))
    summary = {"notion": _LDP, "epsilon_per_feature": 0.5, "delta_per_feature": 0.25}
    member = make_pipeline(_Stated(summary, law=(0.5, 0.125)), Ridge())
    stack = StackingRegressor([("m", member)], final_estimator=Ridge(), cv=splits)
    report = privacy_report(stack.fit(_frame(), _y()))
    assert report["column"].tolist()[:2] == ["a", "b"]
    row = report.iloc[0]
    for figure in ("epsilon", "delta", "audited_epsilon", "audited_delta"):
        assert np.isnan(row[figure])
    assert row["note"] == (
        "released an unknown number of times per record: fitted on all records "
        "and in cross_val_predict by StackingRegressor"
    )


def test_an_unfitted_candidate_with_a_delta_that_is_no_number():
    pipe = make_pipeline(_Budget(epsilon=0.5, delta=None), KernelDensity())
    search = GridSearchCV(pipe, {"_budget__epsilon": [0.5]}, cv=KFold(2), refit=False)
    row = privacy_report(search.fit(_X(k=1))).iloc[0]
    assert row["epsilon"] == 0.5 and np.isnan(row["delta"])


class _NoMixin(BaseEstimator):
    """A transformer without TransformerMixin: no transformer tags."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X


def test_rowwise_tags_of_a_transformer_without_transformer_tags():
    assert get_tags(_NoMixin()).transformer_tags is None
    tags = get_tags(RowwiseTransformer(_NoMixin()))
    assert tags.transformer_tags.preserves_dtype == ["float64"]


def test_releases_of_several_searches_add_up():
    def search(eps):
        grid = {"privatizer__epsilon": [eps]}
        return GridSearchCV(_Learner(_Budget()), grid, cv=KFold(2))

    vote = VotingRegressor([("a", search(0.5)), ("b", search(2.0))])
    report = privacy_report(vote.fit(_frame(), _y()))
    # each search: 1 candidate x 1 training fold + 1 refit
    assert report.attrs == {"releases_per_record": 4}
    how = "1 candidates x 1 training folds + 1 refit"
    assert _total(report)["note"].endswith(_simulated(4, f"{how}; {how}"))
