"""``privacy_report``'s walk over composite estimators, as mutation testing
found it unchecked.

Each test fits a tiny composite (a pipeline, a column transformer, a feature
union, a search, bagging, stacking, voting) around the stated privatizers of
``tests/test_mutation_report.py`` and asserts the exact rows: which column
leaves through which channel, and how many times each record is privatized
(the budget of a row multiplied by its releases, the searches' releases per
record).  ``benchmarks/_mutation_specs_report.py`` lists the mutants of
``skprivate/_privacy_report/_walker.py`` these tests kill.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
import sklearn
from sklearn import config_context
from sklearn.base import BaseEstimator, RegressorMixin, TransformerMixin, clone
from sklearn.cluster import KMeans
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.decomposition import PCA
from sklearn.ensemble import (
    BaggingRegressor,
    StackingRegressor,
    VotingRegressor,
)
from sklearn.feature_selection import RFE, SelectFromModel
from sklearn.linear_model import LinearRegression, RANSACRegressor, Ridge
from sklearn.model_selection import GridSearchCV, KFold, LeaveOneOut
from sklearn.neighbors import KernelDensity
from sklearn.pipeline import FeatureUnion, Pipeline, make_pipeline
from sklearn.preprocessing import (
    FunctionTransformer,
    PolynomialFeatures,
    StandardScaler,
)
from sklearn.utils.validation import validate_data

from skprivate import (
    DeconvolutionKernelRegressor,
    FrequencyEstimator,
    GeneralizedRandomizedResponse,
    IntervalCaseI,
    IterativeIntervalRegressor,
    LaplaceLDP,
    OptimizedUnaryEncoding,
    RowwiseTransformer,
    SubsetDistributionEstimator,
    SubsetUniform,
    privacy_report,
)
from skprivate._privacy_report._inspect import _Col, _consumes_sample_weight
from skprivate._privacy_report._walker import _Walker
from skprivate.base import PrivatizerMixin

from .test_mutation_report import (
    _LDP,
    _SCORER_CODE,
    _STATIC,
    _UNCERTIFIED,
    _X,
    _Budget,
    _coverage,
    _frame,
    _Identity,
    _Invertible,
    _largest,
    _ldp,
    _Learner,
    _raw_inputs,
    _raw_response,
    _released_raw,
    _Stated,
    _table,
    _total,
    _without_scores,
    _y,
)

# -- searches fitted with refit=False: rows read from the parameters ----------


# -- the walk: every column that leaves, with its channel ---------------------
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


def test_members_of_a_meta_estimator_that_refits_have_no_finite_budget():
    """A meta-estimator refitting clones an unread number of times: epsilon NaN."""
    ransac = RANSACRegressor(
        make_pipeline(_ldp(0.5), LinearRegression()), min_samples=4, random_state=0
    )
    report = privacy_report(ransac.fit(_frame(), _y()))
    note = (
        "released an unknown number of times per record: RANSACRegressor fits "
        "clones of its estimator a number of times privacy_report cannot read "
        "from it, each fit privatizing again"
    )
    assert _table(report)[:2] == [
        ("a", "_Stated", None, note),
        ("b", "_Stated", None, note),
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


# -- searches: releases per record ---------------------------------------------


# -- bagging members fitted with weights, transformers that need y -----------
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


# -- composites found unchecked later ---------------------------------------


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


# -- IterativeIntervalRegressor: y privatized, X to the base regressor ---------
_ITERATIONS = (
    "released an unknown number of times per record: IterativeIntervalRegressor "
    "refits its base regressor and predicts with it at every iteration, each "
    "call privatizing again"
)


def _interval_regressor(base=None):
    return IterativeIntervalRegressor(
        base,
        max_iter=2,
        privatizer=IntervalCaseI(anchor_loc=5, anchor_scale=3, random_state=0),
    )


def _fit_quietly(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # two iterations do not converge
        return est.fit(X, y)


def test_an_interval_regressor_privatizes_y_and_passes_x_to_its_base():
    X, y = _X(n=30, k=2), _X(n=30, k=1, seed=1)[:, 0]
    base = make_pipeline(_ldp(0.5, 2.0**-10), LinearRegression())
    report = privacy_report(_fit_quietly(_interval_regressor(base), X, y))
    assert report["column"].tolist() == ["y", "x0", "x1", "total"]
    assert report["mechanism"].tolist()[:3] == ["IntervalCaseI", "_Stated", "_Stated"]
    assert report["coverage"].iloc[0] > 0 and np.isnan(report["epsilon"].iloc[0])
    assert np.isnan(report["epsilon"].iloc[1:3]).all()
    assert np.isnan(report["delta"].iloc[1:3]).all()
    assert report["note"].iloc[1:3].tolist() == [_ITERATIONS, _ITERATIONS]
    # y reaches the base regressor privatized: it is no raw channel
    assert _total(report)["note"] == (
        "no composed epsilon: some columns have a coverage notion (interval or "
        "subset privacy) without an epsilon; an unknown number of releases "
        "(IterativeIntervalRegressor refits its base regressor and predicts with "
        "it at every iteration, each call privatizing again); seeded "
        "(reproducible) privatizers: whoever holds random_state and the other "
        "records replays their noise; for simulation, not for release"
    )
    # without a base: a LinearRegression fitted on the raw features
    report = privacy_report(_fit_quietly(_interval_regressor(), X, y))
    used = (
        "features passed unchanged by IterativeIntervalRegressor to its base "
        "regressor; used raw by LinearRegression"
    )
    assert _table(report)[1:] == [
        ("x0", "raw (IterativeIntervalRegressor)", np.inf, used),
        ("x1", "raw (IterativeIntervalRegressor)", np.inf, used),
    ]


def test_an_unfitted_interval_regressor_reads_its_base_from_its_parameters():
    X, y = _X(n=30, k=2), _X(n=30, k=1, seed=1)[:, 0]
    base = make_pipeline(_Budget(epsilon=0.5), LinearRegression())
    search = GridSearchCV(
        _interval_regressor(base), {"max_iter": [2]}, cv=KFold(2), refit=False
    )
    report = _without_scores(
        privacy_report(_fit_quietly(search, X, y)),
        _raw_response(),
        _raw_inputs("X"),
    )
    largest = _largest({"max_iter": 2}, 1)
    assert report["column"].tolist() == ["y", "X", "total"]
    assert report["mechanism"].tolist()[:2] == ["IntervalCaseI", "_Budget"]
    assert np.isnan(report["epsilon"].iloc[:2]).all()
    assert report["note"].tolist()[:2] == [
        "no epsilon parameter: its guarantee needs the fitted privatizer; " + largest,
        f"{_STATIC}; {_ITERATIONS}; {largest}",
    ]


# -- candidates of a search with refit=False, read from their parameters -------


# -- privatizers after a step that changes the number of columns ---------------
def test_a_privatizer_after_a_step_that_adds_columns_names_its_own():
    poly = PolynomialFeatures(degree=2, include_bias=False)
    report = privacy_report(
        make_pipeline(poly, _ldp(0.5), KernelDensity()).fit(_frame())
    )
    assert report["column"].tolist() == ["x0", "x1", "x2", "x3", "x4", "total"]
    assert _total(report)["epsilon"] == 2.5
    # fitted on a data frame: its input's names
    poly = PolynomialFeatures(degree=2, include_bias=False).set_output(
        transform="pandas"
    )
    report = privacy_report(
        make_pipeline(poly, _ldp(0.5), KernelDensity()).fit(_frame())
    )
    assert report["column"].tolist() == ["a", "b", "a^2", "a b", "b^2", "total"]


def test_bagging_members_on_more_features_than_the_named_columns():
    # 2 input columns become 3 features (a, b, a b): each member privatizes
    # its 3 features, named by the privatizer
    poly = PolynomialFeatures(degree=2, interaction_only=True, include_bias=False)
    bag = BaggingRegressor(
        _Learner(_ldp(0.5)), n_estimators=2, bootstrap=False, random_state=0
    )
    report = privacy_report(make_pipeline(poly, bag).fit(_frame(), _y()))
    assert report["column"].tolist()[:6] == ["x0", "x1", "x2"] * 2
    assert report["epsilon"].tolist()[:6] == [0.5] * 6


class _Hidden(RegressorMixin, BaseEstimator):
    """A meta-estimator keeping its fitted member where no report looks."""

    def __init__(self, inner=None):
        self.inner = inner

    def fit(self, X, y):
        self.inner_ = clone(self.inner).fit(X, y)
        return self

    def predict(self, X):
        return self.inner_.predict(X)


def test_a_meta_estimator_whose_members_cannot_be_read_is_refused():
    hidden = _Hidden(_Learner(_ldp(0.5))).fit(_frame(), _y())
    with pytest.raises(ValueError) as error:
        privacy_report(hidden)
    assert str(error.value) == (
        "_Hidden holds a privatizer but none of the fitted members that "
        "privacy_report reads (estimators_, estimator_, regressor_, classifier_, "
        "named_estimators_, best_estimator_)."
    )


def test_bagging_without_any_epsilon_takes_the_record_in_most_members():
    # no budget to weigh: the record drawn most often over the members (here
    # record 5: 0 + 2 + 3 draws) is the most exposed
    bag = BaggingRegressor(_Learner(_coverage()), n_estimators=3, random_state=0)
    report = privacy_report(bag.fit(_frame(), _y()))
    draws = [np.bincount(s, minlength=8)[5] for s in bag.estimators_samples_]
    assert draws == [0, 2, 3]
    notes = report["note"].tolist()[:4]
    assert (
        notes
        == [
            "coverage as in the mechanism's paper; no epsilon; privatized 2 times "
            "per record: member 1 of BaggingRegressor holds the most exposed record "
            "2 times"
        ]
        * 2
        + [
            "coverage as in the mechanism's paper; no epsilon; privatized 3 times "
            "per record: member 2 of BaggingRegressor holds the most exposed record "
            "3 times"
        ]
        * 2
    )


def _private_target(regressor):
    # y privatized before the regressor: the total is finite
    target = _Invertible(
        {"notion": _LDP, "epsilon_per_feature": 1.0, "delta_per_feature": 2.0**-12}
    )
    return TransformedTargetRegressor(
        regressor, transformer=target, check_inverse=False
    )


def test_repeated_releases_multiply_epsilon_and_delta_in_the_total():
    # bagging: the most exposed record is drawn 0, 2 and 3 times by the three
    # members, each privatizing its 2 columns at (0.5, 2^-10)
    bag = BaggingRegressor(
        _Learner(_ldp(0.5, 2.0**-10)), n_estimators=3, random_state=0
    )
    report = privacy_report(_private_target(bag).fit(_frame(), _y()))
    assert report["column"].tolist() == ["y", "a", "b", "a", "b", "total"]
    assert report["epsilon"].tolist() == [1.0, 1.0, 1.0, 1.5, 1.5, 6.0]
    assert report["delta"].tolist() == [
        2.0**-12,
        2 * 2.0**-10,
        2 * 2.0**-10,
        3 * 2.0**-10,
        3 * 2.0**-10,
        2.0**-12 + 10 * 2.0**-10,
    ]
    # stacking over 2 folds: the member is fitted on all records and on the
    # fold holding the record; the final learner privatizes the prediction
    stack = StackingRegressor(
        [("m", _Learner(_ldp(0.5, 2.0**-10)))],
        final_estimator=_Learner(_ldp(1.0, 2.0**-12)),
        cv=KFold(2),
    )
    report = privacy_report(_private_target(stack).fit(_frame(), _y()))
    assert report["column"].tolist() == ["y", "x0", "x1", "x0, x1", "total"]
    assert report["epsilon"].tolist() == [1.0, 1.0, 1.0, 1.0, 4.0]
    assert report["delta"].tolist() == [
        2.0**-12,
        2 * 2.0**-10,
        2 * 2.0**-10,
        2.0**-12,
        2 * 2.0**-12 + 4 * 2.0**-10,
    ]


# -- privatizers: their columns, and what they pass on --------------------------
class _Uncounted(PrivatizerMixin, BaseEstimator):
    """A privatizer that records no column count when fitted."""

    _exact_law = None  # no audit hook

    def _fit(self, X, y=None):
        self.fitted_ = True
        return self

    def _transform(self, X):
        return np.asarray(X, dtype=float)

    def privacy_summary(self):
        return {"notion": _LDP, "epsilon_per_feature": 0.5}


def test_a_privatizer_without_a_column_count_keeps_its_rows():
    # it is named by the columns fed to it, never dropped from the total
    ct = ColumnTransformer([("p", _Uncounted(), ["a", "b"])])
    report = privacy_report(ct.fit(_frame()))
    assert report["column"].tolist() == ["a", "b", "total"]
    assert report["epsilon"].tolist() == [0.5, 0.5, 1.0]
    report = privacy_report(_Uncounted().fit(_frame()))
    assert report["column"].tolist() == ["X", "total"]
    assert report["epsilon"].tolist() == [0.5, 0.5]


def test_columns_a_privatizer_passes_on_keep_their_names():
    report = privacy_report(make_pipeline(_ldp(0.5), _ldp(0.25)).fit(_frame()))
    assert report["column"].tolist() == ["a", "b", "a", "b", "total"]
    assert report["epsilon"].tolist() == [0.5, 0.5, 0.25, 0.25, 1.5]
    # after a step that adds columns, the privatizer's own names go on
    poly = PolynomialFeatures(degree=2, include_bias=False)
    ct = ColumnTransformer([("q", _ldp(1.0), [4])])
    report = privacy_report(make_pipeline(poly, _ldp(0.5), ct).fit(_frame()))
    assert report["column"].tolist() == ["x0", "x1", "x2", "x3", "x4", "x4", "total"]


def test_the_final_estimator_of_stacking_sees_raw_predictions():
    members = [
        ("bag", BaggingRegressor(_Learner(_ldp(0.5)), n_estimators=2, bootstrap=False)),
        ("vote", VotingRegressor([("l", _Learner(_ldp(0.5)))])),
        ("ridge", Ridge()),
        ("l", _Learner(_ldp(0.5))),
    ]
    stack = StackingRegressor(
        members, final_estimator=Ridge(), cv=KFold(2), passthrough=True
    )
    report = privacy_report(stack.fit(_frame(), _y()))
    # 4 privatizers (2 bagging members, the voting's, the learner's), each
    # fitted on all records and on the fold holding the record
    assert report["epsilon"].tolist()[:8] == [1.0] * 8
    assert _table(report)[8:] == [
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _Learner; its fitted state is computed from it; "
            "response used raw by Ridge; its fitted state is computed from it",
        ),
        (
            "a",
            "Ridge",
            np.inf,
            "used raw by Ridge (its fitted state is computed from it); "
            "passthrough=True of StackingRegressor; used raw by Ridge",
        ),
        (
            "b",
            "Ridge",
            np.inf,
            "used raw by Ridge (its fitted state is computed from it); "
            "passthrough=True of StackingRegressor; used raw by Ridge",
        ),
        (
            "a, b",
            "raw (predictions)",
            np.inf,
            "predictions of BaggingRegressor at the raw inputs; used raw by Ridge; "
            "predictions of VotingRegressor at the raw inputs; used raw by Ridge; "
            "predictions of Ridge at the raw inputs; used raw by Ridge; "
            "predictions of _Learner at the raw inputs; used raw by Ridge",
        ),
    ]
    assert report["notion"].iloc[-2] == "none (raw)"


def test_stacking_over_splits_it_cannot_count_releases_an_unknown_number():
    # LeaveOneOut needs the data to count its splits
    stack = StackingRegressor(
        [("l", _Learner(_ldp(0.5)))], final_estimator=Ridge(), cv=LeaveOneOut()
    )
    report = privacy_report(stack.fit(_frame(), _y()))
    assert report["column"].tolist()[:2] == ["x0", "x1"]
    assert np.isnan(report["epsilon"].iloc[:2]).all()
    assert report["note"].iloc[0] == (
        "released an unknown number of times per record: fitted on all records "
        "and in cross_val_predict by StackingRegressor"
    )


def test_branches_of_a_union_each_pass_their_columns_on():
    # a None step passes the input on; each branch's raw output is released
    pipe = Pipeline(
        [("n", None), ("u", FeatureUnion([("p", _ldp(0.5)), ("raw", "passthrough")]))]
    )
    report = privacy_report(pipe.fit(_X(k=2)))
    assert _table(report) == [
        ("x0", "_Stated", 0.5, ""),
        ("x1", "_Stated", 0.5, ""),
        (
            "X",
            "raw (passthrough)",
            np.inf,
            "passthrough 'raw' of FeatureUnion; released raw",
        ),
    ]
    union = FeatureUnion(
        [
            ("raw", "passthrough"),
            ("s", StandardScaler()),
            ("p", _ldp(0.5)),
            ("ny", _NeedsResponse()),
        ]
    )
    report = privacy_report(union.fit(_X(k=1), _y()))
    assert _table(report) == [
        ("x0", "_Stated", 0.5, ""),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _NeedsResponse; its fitted state is computed from it",
        ),
        (
            "x0",
            "raw (passthrough)",
            np.inf,
            "passthrough 'raw' of FeatureUnion; released raw; not a privatizer: "
            "StandardScaler is fitted on the raw values: its fitted state may depend "
            "on every record; it passes the values on; released raw; not a "
            "privatizer: _NeedsResponse is fitted on the raw values: its fitted state "
            "may depend on every record; it passes the values on; released raw",
        ),
    ]


def test_a_union_keeps_the_raw_output_of_every_branch():
    union = FeatureUnion(
        [
            ("s", StandardScaler()),
            ("raw", "passthrough"),
            ("p", _ldp(0.5)),
            ("ny", _NeedsResponse()),
        ]
    )
    report = privacy_report(union.fit(_X(k=1), _y()))
    assert _table(report)[2] == (
        "x0",
        "StandardScaler",
        np.inf,
        "not a privatizer: StandardScaler is fitted on the raw values: its fitted "
        "state may depend on every record; it passes the values on; released raw; "
        "passthrough 'raw' of FeatureUnion; released raw; not a privatizer: "
        "_NeedsResponse is fitted on the raw values: its fitted state may depend "
        "on every record; it passes the values on; released raw",
    )


def test_branches_of_a_column_transformer_in_any_order():
    ct = ColumnTransformer(
        [
            ("d", "drop", ["a"]),
            ("e", _ldp(1.0), []),
            ("raw", "passthrough", ["b"]),
            ("p", _ldp(0.5), [0]),
            ("ny", _NeedsResponse(), ["b"]),
        ]
    )
    report = privacy_report(ct.fit(_frame(), _y()))
    assert _table(report) == [
        ("a", "_Stated", 0.5, ""),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _NeedsResponse; its fitted state is computed from it",
        ),
        (
            "b",
            "raw (passthrough)",
            np.inf,
            "passthrough 'raw' of ColumnTransformer; released raw; not a "
            "privatizer: _NeedsResponse is fitted on the raw values: its fitted "
            "state may depend on every record; it passes the values on; released raw",
        ),
    ]


def test_a_column_transformer_after_a_step_that_adds_columns():
    # 2 columns become 5: the branches' positions name them
    poly = PolynomialFeatures(degree=2, include_bias=False)
    ct = ColumnTransformer([("q", _ldp(1.0), [1])], remainder="passthrough")
    report = privacy_report(make_pipeline(poly, ct).fit(_frame()))
    released = "remainder='passthrough' of ColumnTransformer; released raw"
    assert _table(report) == [("1", "_Stated", 1.0, "")] + [
        (c, "raw (passthrough)", np.inf, released) for c in ["0", "2", "3", "4"]
    ]
    # or the names of a data frame
    poly = PolynomialFeatures(degree=2, include_bias=False).set_output(
        transform="pandas"
    )
    ct = ColumnTransformer([("q", _ldp(1.0), ["b"])], remainder="passthrough")
    report = privacy_report(make_pipeline(poly, ct).fit(_frame()))
    assert report["column"].tolist() == ["b", "a", "a^2", "a b", "b^2", "total"]
    # columns privatized before stay privatized
    poly = PolynomialFeatures(degree=2, include_bias=False)
    ct = ColumnTransformer([("q", _ldp(1.0), [1])], remainder="passthrough")
    report = privacy_report(make_pipeline(_ldp(0.5), poly, ct).fit(_frame()))
    assert _table(report) == [
        ("a", "_Stated", 0.5, ""),
        ("b", "_Stated", 0.5, ""),
        ("1", "_Stated", 1.0, ""),
    ]
    assert _total(report)["epsilon"] == 2.0


def test_a_declared_row_wise_step_is_named_with_what_it_wraps():
    # wrapping a privatizer adds nothing
    pipe = make_pipeline(RowwiseTransformer(_ldp(0.5)), KernelDensity())
    assert _table(privacy_report(pipe.fit(_frame()))) == [
        ("a", "_Stated", 0.5, ""),
        ("b", "_Stated", 0.5, ""),
    ]
    ct = ColumnTransformer(
        [
            ("p", _ldp(0.5), ["a"]),
            ("r", RowwiseTransformer(FunctionTransformer(np.abs)), ["b"]),
        ]
    )
    label = "RowwiseTransformer(FunctionTransformer)"
    assert _table(privacy_report(ct.fit(_frame())))[1] == (
        "b",
        label,
        np.inf,
        f"{label}: declared row-wise, no state learned from the records; not a "
        "privatizer; released raw",
    )
    # a declared step that learned from the records, before a privatizer
    pipe = make_pipeline(RowwiseTransformer(StandardScaler()), _ldp(0.5))
    report = privacy_report(pipe.fit(_frame()))
    label = "RowwiseTransformer(StandardScaler)"
    why = (
        f"{_UNCERTIFIED}; {label} is declared row-wise but learned "
        "n_samples_seen_, mean_, var_, scale_ from the records in fit"
    )
    assert _table(report)[2:] == [("a", label, np.inf, why), ("b", label, np.inf, why)]


def test_a_response_step_before_an_interval_regressor_is_not_certified():
    X, y = _X(n=30, k=2), _X(n=30, k=1, seed=1)[:, 0] + 1
    base = make_pipeline(_ldp(0.5), LinearRegression())
    ttr = TransformedTargetRegressor(
        _interval_regressor(base), transformer=StandardScaler()
    )
    report = privacy_report(_fit_quietly(ttr, X, y))
    assert report["column"].tolist() == ["y", "x0", "x1", "y", "total"]
    row = report.iloc[3]
    assert (row["mechanism"], row["notion"]) == (
        "StandardScaler",
        "none (not certified)",
    )
    assert row["note"] == (
        f"{_UNCERTIFIED}; StandardScaler is fitted on the raw values: its fitted "
        "state may depend on every record"
    )
    # unfitted, with func=: a FunctionTransformer of the whole array
    ttr = TransformedTargetRegressor(
        _interval_regressor(make_pipeline(_Budget(), LinearRegression())),
        func=np.log,
        inverse_func=np.exp,
    )
    search = GridSearchCV(ttr, {"regressor__max_iter": [2]}, cv=KFold(2), refit=False)
    report = _without_scores(
        privacy_report(_fit_quietly(search, X, y)),
        _raw_response(),
        _raw_inputs("X"),
    )
    assert report["column"].tolist() == ["y", "X", "y", "total"]
    row = report.iloc[2]
    assert (row["mechanism"], row["notion"]) == (
        "FunctionTransformer",
        "none (not certified)",
    )
    assert row["exact_disclosure"] == False  # noqa: E712 (numpy bool)
    assert row["note"].startswith(
        f"{_UNCERTIFIED}; FunctionTransformer applies log to the whole array"
    )
    assert _total(report)["note"].startswith(
        "no guarantee: some columns are not certified and scores of raw values "
        "are kept; "
    )


def test_a_predictor_that_also_transforms_uses_its_columns_raw():
    kmeans = KMeans(n_clusters=2, n_init=1, random_state=0)
    ct = ColumnTransformer([("p", _ldp(0.5), ["a"]), ("k", kmeans, ["b"])])
    assert _table(privacy_report(ct.fit(_frame())))[1] == (
        "b",
        "KMeans",
        np.inf,
        "used raw by KMeans (its fitted state is computed from it)",
    )


def test_pipeline_steps_none_and_passthrough_pass_the_columns_on():
    union = FeatureUnion([("p", _ldp(0.5)), ("raw", "passthrough")])
    pipe = Pipeline([("n", None), ("s", "passthrough"), ("u", union)])
    report = privacy_report(pipe.fit(_X(k=2)))
    assert _table(report)[2] == (
        "X",
        "raw (passthrough)",
        np.inf,
        "passthrough 'raw' of FeatureUnion; released raw",
    )


class _OwnPrivatizer(RegressorMixin, BaseEstimator):
    """A learner holding a fitted privatizer, without the package's mixin."""

    def __init__(self, privatizer=None):
        self.privatizer = privatizer

    def fit(self, X, y):
        self.privatizer_ = clone(self.privatizer).fit(X)
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


def test_a_fitted_privatizer_of_any_learner_is_read():
    report = privacy_report(_OwnPrivatizer(_ldp(0.5)).fit(_frame(), _y()))
    assert _table(report) == [
        ("a", "_Stated", 0.5, ""),
        ("b", "_Stated", 0.5, ""),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _OwnPrivatizer; its fitted state is computed from it",
        ),
    ]


def test_bagging_members_on_some_features_name_theirs():
    bag = BaggingRegressor(
        _Learner(_ldp(0.5)),
        n_estimators=2,
        max_features=1,
        bootstrap=False,
        random_state=0,
    )
    report = privacy_report(bag.fit(_frame(), _y()))
    assert [f.tolist() for f in bag.estimators_features_] == [[1], [0]]
    assert report["column"].tolist()[:2] == ["b", "a"]


def test_column_specs_of_a_fitted_transformer_name_the_columns():
    ct = ColumnTransformer(
        [("m", _ldp(0.5), [True, False]), ("s", _ldp(0.25), slice("b", "b"))]
    )
    report = privacy_report(ct.fit(_frame()))
    assert _table(report) == [("a", "_Stated", 0.5, ""), ("b", "_Stated", 0.25, "")]


class _Scaled(_Identity):
    """States an epsilon of one tenth of the largest fitted value per column."""

    def _fit(self, X, y=None):
        self.top_ = validate_data(self, X, dtype=float).max(axis=0)
        return self

    def privacy_summary(self):
        return {"notion": _LDP, "epsilon_per_feature": (self.top_ / 10).tolist()}


def test_bagging_finds_the_record_most_exposed_in_epsilon_not_in_draws():
    # members 0 and 1 privatize column a (epsilon at most 0.1), member 2
    # column b (epsilon 1.0).  Record 0 is drawn 3, 3 and 0 times (6 releases,
    # under 0.6); record 6 only 1, 0 and 3 times, but spends 0.1 + 3.0 = 3.1
    frame = pd.DataFrame({"a": np.linspace(0, 1, 8), "b": np.linspace(0, 10, 8)})
    bag = BaggingRegressor(
        _Learner(_Scaled()), n_estimators=3, max_features=1, random_state=8
    )
    report = privacy_report(bag.fit(frame, _y()))
    assert [f.tolist() for f in bag.estimators_features_] == [[0], [0], [1]]
    draws = np.array([np.bincount(s, minlength=8) for s in bag.estimators_samples_])
    assert draws[:, 0].tolist() == [3, 3, 0]
    assert draws[:, 6].tolist() == [1, 0, 3]
    assert _table(report) == [
        ("a", "_Scaled", 0.1, ""),
        (
            "b",
            "_Scaled",
            3.0,
            "privatized 3 times per record: member 2 of BaggingRegressor holds "
            "the most exposed record 3 times",
        ),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _Learner; its fitted state is computed from it",
        ),
    ]


# -- columns and predictions passed on between nodes -------------------------
def test_a_column_transformer_after_another_follows_each_column():
    """A second column transformer keeps each column's name and privatized state."""
    first = ColumnTransformer([("p", _ldp(0.5), ["a"])], remainder="passthrough")
    second = ColumnTransformer([("q", _ldp(1.0), [1])], remainder="passthrough")
    report = privacy_report(make_pipeline(first, second).fit(_frame()))
    # column 1 of its input is b, which q privatizes; a was privatized before
    assert _table(report) == [("a", "_Stated", 0.5, ""), ("b", "_Stated", 1.0, "")]
    assert _total(report)["epsilon"] == 1.5


def test_stacking_passes_on_the_raw_predictions_of_every_member_of_a_voting():
    """Raw predictions of any voting member, not only the last, reach the final."""
    vote = VotingRegressor([("r", Ridge()), ("p", make_pipeline(_ldp(0.5), Ridge()))])
    stack = StackingRegressor(
        [("v", vote)], final_estimator=LinearRegression(), cv=KFold(2)
    )
    report = privacy_report(stack.fit(_frame(), _y()))
    why = (
        "privatized 3 times per record: fitted on all records and in "
        "cross_val_predict by StackingRegressor"
    )
    used = "used raw by Ridge (its fitted state is computed from it)"
    assert _table(report) == [
        ("a", "_Stated", 1.5, why),
        ("b", "_Stated", 1.5, why),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by Ridge; its fitted state is computed from it; "
            "response used raw by LinearRegression; its fitted state is computed "
            "from it",
        ),
        ("a", "Ridge", np.inf, used),
        ("b", "Ridge", np.inf, used),
        (
            "a, b",
            "raw (predictions)",
            np.inf,
            "predictions of VotingRegressor at the raw inputs; used raw by "
            "LinearRegression",
        ),
    ]


def test_a_stacking_member_of_a_stacking_passes_its_raw_predictions_on():
    """The outer final estimator learns from raw predictions named as stacking's."""
    inner = StackingRegressor(
        [("l", _Learner(_ldp(0.5)))], final_estimator=Ridge(), cv=KFold(2)
    )
    outer = StackingRegressor(
        [("inner", inner)], final_estimator=LinearRegression(), cv=KFold(2)
    )
    report = privacy_report(outer.fit(_frame(), _y()))
    why = (
        "privatized 2 times per record: fitted on all records and in "
        "cross_val_predict by StackingRegressor"
    )
    assert _table(report)[:2] == [
        ("x0", "_Stated", 2.0, f"{why}; {why}"),
        ("x1", "_Stated", 2.0, f"{why}; {why}"),
    ]
    assert _table(report)[3] == (
        "x0, x1",
        "raw (predictions)",
        np.inf,
        "predictions of _Learner at the raw inputs; used raw by Ridge; "
        "predictions of StackingRegressor at the raw inputs; used raw by "
        "LinearRegression",
    )


class _Passes(TransformerMixin, RegressorMixin, BaseEstimator):
    """Fits a privatizer member for its predictions; transform passes X on raw."""

    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y):
        self.estimator_ = clone(self.estimator).fit(X)
        self.mean_ = float(np.mean(y))
        return self

    def transform(self, X):
        return np.asarray(X, dtype=float)

    def predict(self, X):
        return np.full(len(X), self.mean_)


def test_a_predicting_step_whose_members_predict_nothing_passes_raw_columns():
    """A predictor with no member prediction says nothing of its output: raw."""
    ct = ColumnTransformer([("q", _ldp(1.0), [0])], remainder="passthrough")
    report = privacy_report(make_pipeline(_Passes(_ldp(0.5)), ct).fit(_frame(), _y()))
    once = (
        "released an unknown number of times per record: _Passes fits clones of "
        "its estimator a number of times privacy_report cannot read from it, "
        "each fit privatizing again"
    )
    assert _table(report) == [
        ("a", "_Stated", None, once),
        ("b", "_Stated", None, once),
        ("0", "_Stated", 1.0, ""),
        (
            "1",
            "raw (passthrough)",
            np.inf,
            _released_raw("remainder='passthrough' of ColumnTransformer"),
        ),
    ]


# -- the interval regressor and declared row-wise steps, fitted or not ----------
def test_a_fitted_interval_regressor_reads_its_fitted_base():
    """The base regressor is read fitted: its privatizer's fitted column count."""
    X, y = _X(n=30, k=2), _X(n=30, k=1, seed=1)[:, 0]
    base = make_pipeline(_Budget(epsilon=1.0), LinearRegression())
    report = privacy_report(_fit_quietly(_interval_regressor(base), X, y))
    assert _table(report)[1:] == [
        ("x0", "_Budget", None, _ITERATIONS),
        ("x1", "_Budget", None, _ITERATIONS),
    ]


def test_an_unfitted_interval_regressor_without_base_uses_x_raw():
    """Unfitted and without base, it fits a linear regression on the raw X."""
    X, y = _X(n=30, k=2), _X(n=30, k=1, seed=1)[:, 0]
    search = GridSearchCV(
        _interval_regressor(), {"max_iter": [2]}, cv=KFold(2), refit=False
    )
    report = _without_scores(
        privacy_report(_fit_quietly(search, X, y)),
        _raw_response(),
        _raw_inputs("X"),
    )
    largest = _largest({"max_iter": 2}, 1)
    assert _table(report)[1:] == [
        (
            "X",
            "raw (IterativeIntervalRegressor)",
            np.inf,
            "features passed unchanged by IterativeIntervalRegressor to its base "
            f"regressor; used raw by LinearRegression; {largest}",
        )
    ]


def test_stacking_passes_on_the_raw_predictions_of_an_interval_regressor():
    """The final estimator learns from raw predictions named as the regressor's."""
    X, y = _X(n=30, k=2), _X(n=30, k=1, seed=1)[:, 0]
    stack = StackingRegressor(
        [("i", _interval_regressor())], final_estimator=Ridge(), cv=KFold(2)
    )
    report = privacy_report(_fit_quietly(stack, X, y))
    assert report["column"].tolist() == ["y", "x0", "x1", "y", "x0, x1", "total"]
    assert _table(report)[4] == (
        "x0, x1",
        "raw (predictions)",
        np.inf,
        "predictions of IterativeIntervalRegressor at the raw inputs; used raw by "
        "Ridge",
    )


def test_a_fitted_declared_privatizer_is_read_from_its_fitted_clone():
    """A declared privatizer is read fitted: its fitted column count splits epsilon."""
    pipe = make_pipeline(RowwiseTransformer(_Budget(epsilon=1.0)), KernelDensity())
    assert _table(privacy_report(pipe.fit(_frame()))) == [
        ("a", "_Budget", 0.5, ""),
        ("b", "_Budget", 0.5, ""),
    ]


def test_an_unfitted_declared_step_is_named_with_what_it_wraps():
    """Unfitted, a declared step is still named with the transformer it wraps."""
    ct = ColumnTransformer(
        [
            ("p", _Budget(epsilon=0.5), ["a"]),
            ("r", RowwiseTransformer(FunctionTransformer(np.abs)), ["b"]),
        ]
    )
    grid = {"kerneldensity__bandwidth": [1.0]}
    search = GridSearchCV(
        make_pipeline(ct, KernelDensity()), grid, cv=KFold(2), refit=False
    )
    report = _without_scores(privacy_report(search.fit(_frame())), _raw_inputs("b"))
    largest = _largest({"kerneldensity__bandwidth": 1.0}, 1)
    label = "RowwiseTransformer(FunctionTransformer)"
    assert _table(report) == [
        ("a", "_Budget", 0.5, f"{_STATIC}; {largest}"),
        (
            "b",
            label,
            np.inf,
            f"{label}: declared row-wise, no state learned from the records; not "
            f"a privatizer; used raw by KernelDensity; {largest}",
        ),
    ]


class _TaglessStep:
    """A transformer without scikit-learn tags: whether it reads y is unknown."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return np.asarray(X)

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self


def _no_score(estimator, X, y=None):
    return 0.0


@pytest.mark.skipif(
    tuple(int(p) for p in sklearn.__version__.split(".")[:2]) < (1, 7),
    reason="scikit-learn 1.6 gives an object without tags the default tags",
)
def test_a_declared_step_that_states_no_tags_may_read_the_response():
    """A declared step passes y on to a transformer that states no tags: y is raw."""
    pipe = make_pipeline(_Budget(epsilon=0.5), RowwiseTransformer(_TaglessStep()))
    grid = {"_budget__epsilon": [0.5]}
    search = GridSearchCV(pipe, grid, cv=KFold(2), refit=False, scoring=_no_score)
    report = _without_scores(privacy_report(search.fit(_frame(), _y())), _SCORER_CODE)
    largest = _largest({"_budget__epsilon": 0.5}, 1)
    assert _table(report) == [
        ("X", "_Budget", 0.5, f"{_STATIC}; {largest}"),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by RowwiseTransformer; its fitted state is computed "
            f"from it; {largest}",
        ),
    ]


# -- searches without refit and unfitted ensembles, read from the parameters ----
def test_a_search_without_refit_after_a_privatizer_adds_its_rows():
    """The candidate's rows come after those of the step before the search."""
    search = GridSearchCV(
        _Learner(_Budget()), {"privatizer__epsilon": [2.0]}, cv=KFold(2), refit=False
    )
    pipe = Pipeline([("p", _ldp(0.5)), ("s", search)])
    report = _without_scores(privacy_report(pipe.fit(_frame(), _y())), _raw_response())
    largest = _largest({"privatizer__epsilon": 2.0}, 1)
    assert _table(report) == [
        ("a", "_Stated", 0.5, ""),
        ("b", "_Stated", 0.5, ""),
        ("a, b", "_Budget", 2.0, f"{_STATIC}; {largest}"),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _Learner; its fitted state is computed from it; "
            + largest,
        ),
    ]


def test_an_unfitted_column_transformer_after_a_privatizer_passes_nothing_raw():
    """A passthrough branch of privatized columns, named from its spec, is not raw."""
    ct = ColumnTransformer(
        [("q", _Budget(epsilon=1.0), [0]), ("s", "passthrough", [1])]
    )
    pipe = make_pipeline(_Budget(epsilon=0.5), ct, KernelDensity())
    grid = {"kerneldensity__bandwidth": [1.0]}
    search = GridSearchCV(pipe, grid, cv=KFold(2), refit=False)
    report = privacy_report(search.fit(_frame()))
    largest = _largest({"kerneldensity__bandwidth": 1.0}, 1)
    assert _table(report) == [
        ("X", "_Budget", 0.5, f"{_STATIC}; {largest}"),
        ("0", "_Budget", 1.0, f"{_STATIC}; {largest}"),
    ]


def test_an_unfitted_bagging_of_weighted_members_privatizes_once_per_member():
    """With bootstrap, members fitted with weights still see each record once."""
    bag = BaggingRegressor(_WeightedLearner(_Budget()), n_estimators=3)
    grid = {"estimator__privatizer__epsilon": [0.5]}
    search = GridSearchCV(bag, grid, cv=KFold(2), refit=False)
    report = _without_scores(
        privacy_report(search.fit(_frame(), _y())),
        _raw_response(),
        _raw_inputs("X"),
    )
    largest = _largest({"estimator__privatizer__epsilon": 0.5}, 1)
    assert _table(report) == [
        (
            "X",
            "_Budget",
            1.5,
            f"{_STATIC}; privatized 3 times per record: 3 members of "
            f"BaggingRegressor; {largest}",
        ),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _WeightedLearner; its fitted state is computed "
            f"from it; {largest}",
        ),
    ]


def test_an_unfitted_stacking_fits_its_final_estimator_on_raw_predictions():
    """Unfitted, stacking walks its given final estimator on raw predictions."""
    bag = BaggingRegressor(_Learner(_Budget()), n_estimators=2, bootstrap=False)
    stack = StackingRegressor(
        [("bag", bag)], final_estimator=LinearRegression(), cv=KFold(2)
    )
    grid = {"bag__n_estimators": [2]}
    search = GridSearchCV(stack, grid, cv=KFold(2), refit=False)
    report = _without_scores(
        privacy_report(search.fit(_frame(), _y())),
        _raw_response(),
        _raw_inputs("X"),
    )
    largest = _largest({"bag__n_estimators": 2}, 1)
    assert _table(report) == [
        (
            "X",
            "_Budget",
            4.0,
            f"{_STATIC}; privatized 2 times per record: 2 members of "
            "BaggingRegressor; privatized 2 times per record: fitted on all "
            f"records and in cross_val_predict by StackingRegressor; {largest}",
        ),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _Learner; its fitted state is computed from it; "
            "response used raw by LinearRegression; its fitted state is computed "
            f"from it; {largest}",
        ),
        (
            "X",
            "raw (predictions)",
            np.inf,
            "predictions of BaggingRegressor at the raw inputs; used raw by "
            f"LinearRegression; {largest}",
        ),
    ]


def test_a_declared_step_that_needs_the_response_reports_it_raw():
    """The row-wise wrapper passes y on to its step, so it states the step's
    need of the response: a wrapped step reads y as the bare step does."""

    def branches(step):
        return ColumnTransformer([("p", _ldp(0.5), ["a"]), ("r", step, ["b"])])

    bare = privacy_report(branches(_NeedsResponse()).fit(_frame(), _y()))
    wrapped = privacy_report(
        branches(RowwiseTransformer(_NeedsResponse())).fit(_frame(), _y())
    )
    for report in (bare, wrapped):
        y_rows = report[report["column"] == "y"]
        assert y_rows["mechanism"].tolist() == ["raw (response)"]
        assert y_rows["epsilon"].tolist() == [np.inf]
        assert report.loc[report["column"] == "total", "epsilon"].item() == np.inf
    assert RowwiseTransformer(_NeedsResponse()).__sklearn_tags__().target_tags.required
    assert not RowwiseTransformer(_ldp(1.0)).__sklearn_tags__().target_tags.required


# -- released reports, unnamed columns and channels of other candidates --------
def test_an_estimator_fitted_on_released_reports_states_the_release():
    """A reader of reports released elsewhere reports its oracle's release."""
    df = pd.DataFrame({"a": list("ABCABCAB")})
    oracle = GeneralizedRandomizedResponse(
        epsilon=1.5, categories=[["A", "B", "C"]], random_state=0
    ).set_output(transform="pandas")
    reports = oracle.fit(df).transform(df)
    report = privacy_report(FrequencyEstimator(oracle=oracle).fit(reports))
    assert _table(report) == [
        (
            "a",
            "GeneralizedRandomizedResponse",
            1.5,
            "release of the reports FrequencyEstimator reads, by "
            "GeneralizedRandomizedResponse (oracle=); FrequencyEstimator only "
            "post-processes them and adds no privacy cost",
        )
    ]
    assert _total(report)["epsilon"] == 1.5


def test_a_release_read_after_a_privatized_column_adds_to_its_row():
    """The release a reader reads composes with a column privatized before it."""
    df = pd.DataFrame({"a": list("ABCABCAB")})
    oracle = GeneralizedRandomizedResponse(
        epsilon=1.5, categories=[["A", "B", "C"]], random_state=0
    ).set_output(transform="pandas")
    X = pd.DataFrame(
        {"b": np.linspace(0, 1, 8), "a": oracle.fit(df).transform(df)["a"]}
    )
    first = ColumnTransformer(
        [
            ("b", LaplaceLDP(epsilon=0.5, bounds=(0, 1), random_state=0), ["b"]),
            ("a", "passthrough", ["a"]),
        ],
        verbose_feature_names_out=False,
    ).set_output(transform="pandas")
    reports_only = ColumnTransformer(
        [("a", "passthrough", ["a"])], verbose_feature_names_out=False
    ).set_output(transform="pandas")
    pipe = Pipeline(
        [
            ("first", first),
            ("reports", reports_only),
            ("reader", FrequencyEstimator(oracle=oracle)),
        ]
    ).fit(X)
    report = privacy_report(pipe)
    assert _table(report) == [
        ("b", "LaplaceLDP", 0.5, ""),
        (
            "a",
            "GeneralizedRandomizedResponse",
            1.5,
            "release of the reports FrequencyEstimator reads, by "
            "GeneralizedRandomizedResponse (oracle=); FrequencyEstimator only "
            "post-processes them and adds no privacy cost",
        ),
    ]
    assert _total(report)["epsilon"] == 2.0


def test_a_candidate_reading_an_undeclared_design_states_its_parameters():
    """Without categories the release a candidate reads is read from its parameters."""
    race = pd.DataFrame({"race": list("ABCDE") * 4})
    design = SubsetUniform(categories=[list("ABCDE")], random_state=0)
    reports = design.set_output(transform="pandas").fit(race).transform(race)
    search = GridSearchCV(
        SubsetDistributionEstimator(design=SubsetUniform()),
        {"method": ["mom"]},
        cv=KFold(2),
        refit=False,
    ).fit(reports)
    report = privacy_report(search)
    assert _table(report) == [
        (
            "X",
            "SubsetUniform",
            None,
            "release of the reports SubsetDistributionEstimator reads, by "
            "SubsetUniform (design=); SubsetDistributionEstimator only "
            "post-processes them and adds no privacy cost; read from the "
            "parameters of design=; no epsilon parameter: its guarantee needs "
            "the fitted privatizer; refit=False: no fitted model; rows of the "
            "candidate {'method': 'mom'}, the largest epsilon of the 1 "
            "candidates, read from the parameters",
        )
    ]


def test_a_candidate_names_its_rebuilt_oracles_column_from_the_reports():
    """An unfitted oracle of a candidate names its column as the report columns do."""
    df = pd.DataFrame({"a": list("ABCABCAB")})
    cats = [["A", "B", "C"]]
    oracle = OptimizedUnaryEncoding(epsilon=2.0, categories=cats, random_state=0)
    reports = oracle.set_output(transform="pandas").fit(df).transform(df)
    search = GridSearchCV(
        FrequencyEstimator(oracle=OptimizedUnaryEncoding(epsilon=2.0, categories=cats)),
        {"method": ["unbiased"]},
        cv=KFold(2),
        refit=False,
    )
    pipe = Pipeline(
        [("id", FunctionTransformer().set_output(transform="pandas")), ("s", search)]
    ).fit(reports)
    report = privacy_report(pipe)
    assert _table(report) == [
        (
            "a",
            "OptimizedUnaryEncoding",
            2.0,
            "release of the reports FrequencyEstimator reads, by "
            "OptimizedUnaryEncoding (oracle=); FrequencyEstimator only "
            "post-processes them and adds no privacy cost; oracle= is not "
            "fitted: read from a clone fitted on its categories, as the fit "
            "rebuilt it; refit=False: no fitted model; rows of the candidate "
            "{'method': 'unbiased'}, the largest epsilon of the 1 candidates, "
            "read from the parameters",
        )
    ]
    assert _total(report)["epsilon"] == 2.0


def test_a_column_transformer_after_a_step_that_adds_named_columns():
    """Positions and slices of the branches name the columns of the frame it got."""
    poly = PolynomialFeatures(degree=2, include_bias=False).set_output(
        transform="pandas"
    )
    ct = ColumnTransformer(
        [("q", _ldp(1.0), [1]), ("s", _ldp(2.0), slice(3, 5))],
        remainder="passthrough",
    )
    report = privacy_report(make_pipeline(poly, ct).fit(_frame()))
    released = "remainder='passthrough' of ColumnTransformer; released raw"
    assert _table(report) == [
        ("b", "_Stated", 1.0, ""),
        ("a b", "_Stated", 2.0, ""),
        ("b^2", "_Stated", 2.0, ""),
        ("a", "raw (passthrough)", np.inf, released),
        ("a^2", "raw (passthrough)", np.inf, released),
    ]


class _Summarized(TransformerMixin, BaseEstimator):
    """A privatizer by duck typing: a summary, without the package's mixin."""

    def fit(self, X, y=None):
        self.feature_names_in_ = np.asarray(X.columns, dtype=object)
        self.n_features_in_ = len(self.feature_names_in_)
        return self

    def transform(self, X):
        return X

    def privacy_summary(self):
        return {"notion": _LDP, "epsilon_per_feature": 0.25}


def test_a_learners_privatizer_without_the_mixin_is_read_from_its_summary():
    """A fitted privatizer_ that only has privacy_summary still gives its rows."""
    report = privacy_report(_OwnPrivatizer(_Summarized()).fit(_frame(), _y()))
    assert _table(report) == [
        ("a", "_Summarized", 0.25, ""),
        ("b", "_Summarized", 0.25, ""),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _OwnPrivatizer; its fitted state is computed from it",
        ),
    ]


class _UncountedBudget(_Uncounted):
    """The same, stating the epsilon of its parameter."""

    _parameter_constraints: ClassVar[dict] = {"epsilon": "no_validation"}

    def __init__(self, epsilon=0.25):
        self.epsilon = epsilon

    def privacy_summary(self):
        return {"notion": _LDP, "epsilon_per_feature": self.epsilon}


def test_a_privatizer_fed_no_column_and_recording_none_is_named_x():
    """Without columns, a column count or names, the privatizer's row is "X"."""
    pipe = make_pipeline(FeatureUnion([("d", "drop")]), _UncountedBudget())
    report = privacy_report(pipe.fit(_frame()))
    assert _table(report) == [("X", "_UncountedBudget", 0.25, "")]
    assert _total(report)["epsilon"] == 0.25


def test_a_candidates_privatizer_fed_no_column_is_named_x():
    """Read from the parameters, a privatizer fed no column has its row "X"."""
    pipe = make_pipeline(FeatureUnion([("d", "drop")]), _UncountedBudget())
    search = GridSearchCV(
        pipe,
        {"_uncountedbudget__epsilon": [0.5]},
        cv=KFold(2),
        refit=False,
        scoring=lambda estimator, X, y=None: 0.0,
    )
    report = _without_scores(privacy_report(search.fit(_frame())), _SCORER_CODE)
    largest = _largest({"_uncountedbudget__epsilon": 0.5}, 1)
    assert _table(report) == [("X", "_UncountedBudget", 0.5, f"{_STATIC}; {largest}")]


def test_a_candidates_remainder_after_no_known_column_is_reported_raw():
    """Read from the parameters, a passthrough remainder fed no known column
    may still hold raw columns: it is reported raw."""
    ct = ColumnTransformer([], remainder="passthrough")
    union = FeatureUnion([("p", _UncountedBudget()), ("ct", ct)])
    search = GridSearchCV(
        make_pipeline(FeatureUnion([("d", "drop")]), union),
        {"featureunion-2__p__epsilon": [0.5]},
        cv=KFold(2),
        refit=False,
        scoring=lambda estimator, X, y=None: 0.0,
    )
    report = _without_scores(privacy_report(search.fit(_frame())), _SCORER_CODE)
    largest = _largest({"featureunion-2__p__epsilon": 0.5}, 1)
    assert _table(report) == [
        ("X", "_UncountedBudget", 0.5, f"{_STATIC}; {largest}"),
        (
            "remainder columns (if any)",
            "raw (passthrough)",
            np.inf,
            "remainder='passthrough' of ColumnTransformer; released raw",
        ),
    ]


def _chosen(params):
    return (
        f"refit=False: no fitted model; rows of the candidate {params}, the "
        "largest epsilon of the 2 candidates, read from the parameters"
    )


def _opened_by(params):
    return (
        f"refit=False: no fitted model; a channel of the candidate {params} "
        "(1 of the 2 candidates), read from the parameters"
    )


_SCALED = (
    f"{_UNCERTIFIED}; StandardScaler is fitted on the raw values: its fitted "
    "state may depend on every record"
)


def test_a_candidate_adds_a_raw_channel_after_one_the_reported_shares():
    """A column another candidate reports not certified, as the reported one
    does, and then uses raw gets that candidate's raw channel too."""
    union = FeatureUnion(
        [("u", make_pipeline(StandardScaler(), _Budget())), ("r", "drop")]
    )
    search = GridSearchCV(
        make_pipeline(union, LinearRegression()),
        {"featureunion__r": ["drop", "passthrough"]},
        cv=KFold(2),
        refit=False,
    )
    report = _without_scores(
        privacy_report(search.fit(_frame(), _y())),
        _raw_response(),
        _raw_inputs("X"),
    )
    chosen = _chosen({"featureunion__r": "drop"})
    opened = _opened_by({"featureunion__r": "passthrough"})
    assert _table(report) == [
        ("X", "_Budget", 1.0, f"{_STATIC}; {chosen}"),
        (
            "X",
            "StandardScaler",
            np.inf,
            f"{_SCALED}; {chosen}; {_SCALED}; passthrough 'r' of FeatureUnion; "
            f"used raw by LinearRegression; {opened}",
        ),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by LinearRegression; its fitted state is "
            f"computed from it; {chosen}",
        ),
    ]
    assert report["notion"].tolist()[1:3] == ["none (not certified)", "none (raw)"]
    assert report["exact_disclosure"].tolist()[1:] == [True, True, True]


def test_a_candidate_that_scales_first_adds_a_column_not_certified():
    """A channel not certified in another candidate stays not certified."""
    pipe = Pipeline(
        [("pre", "passthrough"), ("p", _Budget()), ("m", LinearRegression())]
    )
    search = GridSearchCV(
        pipe, {"pre": ["passthrough", StandardScaler()]}, cv=KFold(2), refit=False
    )
    report = _without_scores(
        privacy_report(search.fit(_frame(), _y())), _raw_response()
    )
    chosen = _chosen({"pre": "passthrough"})
    assert _table(report) == [
        ("X", "_Budget", 1.0, f"{_STATIC}; {chosen}"),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by LinearRegression; its fitted state is "
            f"computed from it; {chosen}",
        ),
        (
            "X",
            "StandardScaler",
            np.inf,
            f"{_SCALED}; {_opened_by({'pre': StandardScaler()})}",
        ),
    ]
    assert report["notion"].tolist()[1:3] == ["none (raw)", "none (not certified)"]
    assert report["exact_disclosure"].tolist()[1:] == [True, False, True]


def _rfe_frame(n=40):
    rng = np.random.default_rng(3)
    X = pd.DataFrame(rng.uniform(size=(n, 3)), columns=["a", "b", "c"])
    return X, X.to_numpy() @ np.array([0.1, 1.0, 3.0])


def _private_rfe(k=1):
    """RFE over a stated privatizer: noiseless, so the kept columns are b, c."""
    return RFE(
        make_pipeline(_ldp(0.5), LinearRegression()),
        n_features_to_select=k,
        importance_getter="named_steps.linearregression.coef_",
    )


def test_rfe_rows_name_the_kept_columns_and_count_every_round():
    """3 columns down to 1: two elimination rounds and the final fit."""
    X, y = _rfe_frame()
    rfe = _private_rfe().fit(X, y)
    assert rfe.support_.tolist() == [False, False, True]
    note = (
        "privatized 3 times per record: 3 fits by RFE: one per elimination "
        "round, on the columns still kept, and one on the columns selected"
    )
    report = privacy_report(rfe)
    assert _table(report)[0] == ("c", "_Stated", 1.5, note)


def test_rfe_in_a_union_or_column_transformer_passes_its_kept_columns_raw():
    """A branch's output is its transform: RFE's kept input columns, raw."""
    X, y = _rfe_frame()
    kept = ("RFE outputs raw columns of its input; released raw",)
    union = FeatureUnion([("rfe", _private_rfe(2))]).fit(X, y)
    rows = [r for r in _table(privacy_report(union)) if r[1] == "RFE"]
    assert [(r[0], r[2], r[3]) for r in rows] == [
        ("b", np.inf, *kept),
        ("c", np.inf, *kept),
    ]
    ct = ColumnTransformer([("rfe", _private_rfe(2), ["a", "b", "c"])]).fit(X, y)
    rows = [r for r in _table(privacy_report(ct)) if r[1] == "RFE"]
    assert [r[0] for r in rows] == ["b", "c"]


def test_a_selector_outputs_the_columns_it_keeps_or_all_when_unknown():
    """Fitted: its support; read from parameters or mismatched: every column."""
    X, y = _rfe_frame()
    rfe = _private_rfe(2).fit(X, y)
    cols = [_Col("a"), _Col("b", raw=False), _Col("c")]
    how = ("RFE", "RFE outputs raw columns of its input")
    assert _Walker().selected(rfe, cols) == [
        _Col("b", raw=False),
        _Col("c", via=how),
    ]
    every = [_Col("a", via=how), _Col("b", raw=False), _Col("c", via=how)]
    assert _Walker(static=True).selected(rfe, cols) == every
    assert _Walker().selected(_private_rfe(2), cols) == every  # not fitted
    assert _Walker().selected(rfe, cols[:2]) == every[:2]  # sizes differ
    earlier = ("raw (passthrough)", "passthrough")
    assert _Walker().selected(rfe, [_Col("a"), _Col("b"), _Col("c", via=earlier)])[
        1
    ] == _Col("c", via=earlier)


def test_a_search_without_a_refit_setting_reads_its_best_estimator():
    """Only refit=False turns the report to the candidates; no setting reads best."""
    search = GridSearchCV(
        make_pipeline(_ldp(0.5), LinearRegression()),
        {"linearregression__fit_intercept": [True]},
        cv=KFold(2),
    ).fit(_frame(), _y())
    expected = _table(privacy_report(search))
    del search.refit
    assert _table(privacy_report(search)) == expected
    assert "refit=False" not in " ".join(r[3] for r in expected)


def test_a_mixing_step_that_changes_the_column_count_marks_a_branch_privatizer():
    """PCA then a ColumnTransformer branch: the privatizer is not certified."""
    pipe = make_pipeline(
        PCA(n_components=1), ColumnTransformer([("p", _ldp(0.5), [0])])
    ).fit(_frame())
    rows = _table(privacy_report(pipe))
    assert [r[:3] for r in rows] == [("0", "_Stated", 0.5), ("0", "PCA", np.inf)]
    assert rows[1][3].startswith("not certified")


def test_rfe_as_a_pipeline_step_passes_raw_columns_and_as_the_last_predicts():
    """Fed on to a next step RFE outputs its kept columns; last, predictions."""
    X, y = _rfe_frame()
    before = make_pipeline(_private_rfe(2), KernelDensity()).fit(X, y)
    rows = [r for r in _table(privacy_report(before)) if r[1] == "RFE"]
    assert [(r[0], r[2]) for r in rows] == [("b", np.inf), ("c", np.inf)]
    assert (
        rows[0][3] == "RFE outputs raw columns of its input; used raw by KernelDensity"
    )
    # the last of three steps predicts: nothing raw leaves through it
    last = TransformedTargetRegressor(
        make_pipeline(FunctionTransformer(), FunctionTransformer(), _private_rfe(2)),
        transformer=_ldp(1.0),
        check_inverse=False,
    ).fit(X, y)
    report = privacy_report(last)
    assert "RFE" not in set(report["mechanism"])
    assert np.isfinite(_total(report)["epsilon"])


def _rfe_over_a_passthrough():
    """RFE whose member passes its columns on raw next to a privatized copy."""
    union = FeatureUnion([("p", _ldp(0.5)), ("raw", "passthrough")])
    return RFE(
        make_pipeline(union, LinearRegression()),
        n_features_to_select=2,
        importance_getter=lambda est: np.abs(est[-1].coef_[:3]),
    )


def test_rfe_feeds_its_member_the_kept_columns_as_they_came():
    """The member's raw channel is its own passthrough, not RFE's output."""
    X, y = _rfe_frame()
    rfe = _rfe_over_a_passthrough().fit(X, y)
    rows = [r for r in _table(privacy_report(rfe)) if r[2] == np.inf]
    kept = list(X.columns[rfe.support_])
    assert [r[0] for r in rows if r[0] != "y"] == kept
    assert {r[1] for r in rows if r[0] != "y"} == {"raw (passthrough)"}
    # a candidate read from its parameters: every column, labelled the same way
    search = GridSearchCV(
        _rfe_over_a_passthrough(), {"n_features_to_select": [2]}, cv=KFold(2)
    )
    report = _without_scores(
        privacy_report(search.set_params(refit=False).fit(X, y)),
        _raw_response(),
        _raw_inputs("X"),
    )
    raw = report.iloc[:-1]
    raw = raw[(raw["epsilon"] == np.inf) & (raw["column"] != "y")]
    assert set(raw["mechanism"]) == {"raw (passthrough)"}


def test_a_search_refitted_without_refit_reads_its_candidates_not_the_old_model():
    """scikit-learn keeps an earlier fit's best_estimator_ after refit=False."""
    search = GridSearchCV(
        make_pipeline(_ldp(0.5), LinearRegression()),
        {"linearregression__fit_intercept": [True]},
        cv=KFold(2),
    ).fit(_frame(), _y())
    assert "refit=False" not in privacy_report(search)["note"].iloc[0]
    search.set_params(refit=False).fit(_frame(), _y())
    assert hasattr(search, "best_estimator_")
    assert "refit=False" in privacy_report(search)["note"].iloc[0]


def test_a_declared_pipeline_holding_a_privatizer_passes_the_response_on():
    """A step inside the declaration that reads y reports y raw."""
    declared = RowwiseTransformer(make_pipeline(_ldp(0.5), _NeedsResponse()))
    report = privacy_report(
        make_pipeline(declared, KernelDensity()).fit(_frame(), _y())
    )
    y_rows = report[report["column"] == "y"]
    assert y_rows["mechanism"].tolist() == ["raw (response)"]


def test_a_selector_without_predict_feeds_its_member_every_column():
    """SelectFromModel's estimator is fitted on all the columns: a mixing step
    before it leaves every one of them uncertified, kept or not."""
    X, y = _rfe_frame()
    selector = SelectFromModel(
        make_pipeline(_ldp(0.5), LinearRegression()),
        threshold=-np.inf,
        max_features=1,
        importance_getter="named_steps.linearregression.coef_",
    )
    pipe = make_pipeline(StandardScaler(), selector, KernelDensity()).fit(X, y)
    assert selector.get_support().sum() == 1
    report = privacy_report(pipe)
    uncertified = report[report["note"].str.startswith("not certified")]
    assert sorted(uncertified["column"]) == ["a", "b", "c"]
