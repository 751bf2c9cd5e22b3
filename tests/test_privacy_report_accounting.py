"""privacy_report counts what a composite really releases.

* Widths: a one-hot encoder turns one column into several, a projection
  several into fewer, a subset privatizer one category into its indicators.
  The report once mapped every node's output one to one onto its input:
  when the widths of a ColumnTransformer's branches balanced (1 -> 2 and
  2 -> 1), a later selection of a raw column by position or by name was
  credited to a privatized one, and the report certified epsilon = 1 for a
  release holding a raw HIV indicator.  A step that may combine columns (a
  projection) fed a privatized and a raw column passes the raw one into
  every output.
* Searches fitted with ``refit=False``: a candidate that would read its
  bounds or categories from the data leaves values exactly.
* Steps fitted on the raw response (feature selectors, PLSSVD) report it.
* A chain with ``cv`` and bagging with ``oob_score=True`` privatize a record
  again during fit; the counts are checked against a spy.
* A privatizer whose settings changed inside a composite asks for a refit of
  the composite, not of the privatizer alone.
"""

from __future__ import annotations

import warnings
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from sklearn.compose import ColumnTransformer
from sklearn.decomposition import PCA
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import OneHotEncoder, StandardScaler

from skprivate import LaplaceLDP, SubsetUniform, privacy_report

RACES = ["a", "b", "c", "d", "e"]


def _data(n=200, seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame(
        {
            "hiv": rng.integers(0, 2, n),
            "age": rng.uniform(18, 90, n),
            "hours": rng.uniform(1, 99, n),
            "income": rng.uniform(0, 1e5, n),
            "race": rng.choice(RACES, n),
        }
    )


def _features(pandas=False):
    ct = ColumnTransformer(
        [
            ("hiv", OneHotEncoder(categories=[[0, 1]], sparse_output=False), ["hiv"]),
            ("age", LaplaceLDP(epsilon=1.0, bounds=(18, 90)), ["age"]),
            ("pca", PCA(n_components=1), ["hours", "income"]),
        ]
    )
    return ct.set_output(transform="pandas") if pandas else ct


def _total(report):
    return report.set_index("column").loc["total"]


@pytest.mark.parametrize("pandas", [False, True])
def test_a_raw_column_selected_after_balanced_widths_is_reported_raw(pandas):
    df = _data()
    keep = ["hiv__hiv_1"] if pandas else [1]
    pipe = Pipeline(
        [
            ("features", _features(pandas)),
            ("ship", ColumnTransformer([("keep", "passthrough", keep)])),
        ]
    ).fit(df)
    released = np.asarray(pipe.transform(df))[:, 0]
    assert np.array_equal(released, df["hiv"].to_numpy())  # the raw indicator
    report = privacy_report(pipe)
    assert _total(report)["epsilon"] == np.inf
    raw = report[(report["epsilon"] == np.inf) & (report["column"] != "total")]
    assert raw["column"].tolist() == (keep if pandas else ["1"])
    assert bool(raw["exact_disclosure"].iloc[0]) is True
    # the privatized column alone keeps its epsilon
    keep = ["age__age"] if pandas else [2]
    pipe = Pipeline(
        [
            ("features", _features(pandas)),
            ("ship", ColumnTransformer([("keep", "passthrough", keep)])),
        ]
    ).fit(df)
    assert _total(privacy_report(pipe))["epsilon"] == 1.0


def _private_and_raw():
    return ColumnTransformer(
        [
            ("age", LaplaceLDP(epsilon=1.0, bounds=(18, 90)), ["age"]),
            ("zip", "passthrough", ["income"]),
        ]
    )


def test_a_projection_of_a_privatized_and_a_raw_column_is_raw_in_every_output():
    df = _data()
    pipe = Pipeline(
        [
            ("features", _private_and_raw()),
            ("pca", PCA(n_components=2)),
            ("ship", ColumnTransformer([("keep", "passthrough", [0])])),
        ]
    ).fit(df)
    report = privacy_report(pipe)
    assert _total(report)["epsilon"] == np.inf
    raw = report[(report["epsilon"] == np.inf) & (report["column"] != "total")]
    assert raw["column"].tolist() == ["0"]


def test_a_column_wise_step_keeps_each_column_its_own():
    df = _data()
    pipe = Pipeline(
        [
            ("features", _private_and_raw()),
            ("scale", StandardScaler()),
            ("ship", ColumnTransformer([("keep", "passthrough", [0])])),
        ]
    ).fit(df)
    assert _total(privacy_report(pipe))["epsilon"] == 1.0


def test_a_subset_privatizer_outputs_its_indicators():
    df = _data()
    features = ColumnTransformer(
        [
            ("race", SubsetUniform(categories=[RACES]), ["race"]),
            ("hiv", "passthrough", ["hiv"]),
        ]
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        width = features.fit(df).transform(df).shape[1]
    indicators = list(range(width - 1))
    for keep, raw in ((indicators, False), ([width - 1], True)):
        pipe = Pipeline(
            [
                ("features", features),
                ("ship", ColumnTransformer([("keep", "passthrough", keep)])),
            ]
        ).fit(df)
        report = privacy_report(pipe)
        flagged = report[report["mechanism"] == "raw (passthrough)"]
        assert len(flagged) == int(raw)


# -- searches fitted with refit=False: every candidate's channel counts ----------
def _search(learner, grid, X, y=None):
    from sklearn.model_selection import GridSearchCV

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return GridSearchCV(learner, grid, cv=3, refit=False).fit(X, y)


def test_a_candidate_reading_its_law_from_the_data_leaves_values_exactly():
    from skprivate import (
        DeconvolutionKernelDensity,
        FrequencyEstimator,
        GeneralizedRandomizedResponse,
        SubsetDistributionEstimator,
    )

    from .test_mutation_report import _raw_inputs, _without_scores

    # every learner here is evaluated at the raw held-out inputs when scored:
    # the search's scores have no guarantee (their own row), whatever the
    # candidates' privatizers
    def scored(search):
        return _without_scores(privacy_report(search), _raw_inputs("X"))

    X = np.random.default_rng(0).uniform(0, 10, (90, 1))
    learner = DeconvolutionKernelDensity(
        privatizer=LaplaceLDP(epsilon=1.0, bounds=(0, 10))
    )
    report = scored(_search(learner, {"privatizer__bounds": [(0, 10)]}, X))
    assert report["column"].tolist() == ["X", "total"]
    assert report["epsilon"].tolist() == [1.0, np.inf]
    declared = _total(report)
    assert bool(declared["exact_disclosure"]) is False
    # the scores alone make the total infinite: no value leaves exactly
    assert declared["note"] == (
        "no guarantee: scores of raw values are kept; computed from raw values "
        "(epsilon = inf): search scores; in this simulation each record was "
        "privatized up to 2 times (1 candidates x 2 training folds); a real "
        "deployment privatizes each record once"
    )
    exactly = (
        "no guarantee: scores of raw values are kept and some columns leave "
        "exactly; computed from raw values (epsilon = inf): search scores; "
        "values released exactly: X; in this simulation each record was "
        "privatized up to 4 times (2 candidates x 2 training folds); a real "
        "deployment privatizes each record once"
    )
    report = scored(_search(learner, {"privatizer__bounds": [(0, 10), None]}, X))
    assert _total(report)["epsilon"] == np.inf
    assert _total(report)["note"] == exactly
    row = report.iloc[0]
    assert row["epsilon"] == np.inf
    assert bool(row["exact_disclosure"]) is True
    assert row["note"].startswith(
        "values leave exactly: the bounds would be read from the data"
    )
    cats = pd.DataFrame({"c": np.random.default_rng(1).choice(RACES, 90)})
    learner = FrequencyEstimator(
        privatizer=GeneralizedRandomizedResponse(epsilon=1.0, categories=[RACES])
    )
    report = scored(
        _search(learner, {"privatizer__categories": [[RACES], "auto"]}, cats)
    )
    assert _total(report)["epsilon"] == np.inf
    assert _total(report)["note"] == exactly
    assert "the categories would be read from the data" in report.iloc[0]["note"]
    learner = SubsetDistributionEstimator(privatizer=SubsetUniform(categories=[RACES]))
    report = scored(
        _search(learner, {"privatizer__handle_unknown": ["error", "ignore"]}, cats)
    )
    assert _total(report)["epsilon"] == np.inf
    assert _total(report)["note"] == exactly
    assert "handle_unknown='ignore'" in report.iloc[0]["note"]


# -- steps fitted on the raw response -------------------------------------------
@pytest.mark.parametrize(
    "selector",
    ["select_k_best", "select_from_model", "select_percentile", "pls_svd"],
)
def test_a_step_fitted_on_the_raw_response_counts_it(selector):
    from sklearn.cross_decomposition import PLSSVD
    from sklearn.feature_selection import (
        SelectFromModel,
        SelectKBest,
        SelectPercentile,
        f_regression,
    )
    from sklearn.linear_model import LinearRegression

    step = {
        "select_k_best": SelectKBest(f_regression, k=2),
        "select_from_model": SelectFromModel(LinearRegression(), threshold=-np.inf),
        "select_percentile": SelectPercentile(f_regression, percentile=50),
        "pls_svd": PLSSVD(n_components=1),
    }[selector]
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 10, (120, 3))
    y = X[:, 0] + rng.normal(size=120)
    pipe = Pipeline(
        [("ldp", LaplaceLDP(epsilon=1.0, bounds=(0, 10))), ("step", step)]
    ).fit(X, y)
    report = privacy_report(pipe).set_index("column")
    assert report.loc["y", "epsilon"] == np.inf
    assert report.loc["y", "mechanism"] == "raw (response)"
    assert report.loc["total", "epsilon"] == np.inf


def test_a_step_that_ignores_the_response_does_not_count_it():
    from sklearn.feature_selection import VarianceThreshold

    rng = np.random.default_rng(0)
    X = rng.uniform(0, 10, (120, 3))
    y = X[:, 0]
    for step in (VarianceThreshold(), StandardScaler(), PCA(n_components=2)):
        pipe = Pipeline(
            [("ldp", LaplaceLDP(epsilon=1.0, bounds=(0, 10))), ("step", step)]
        ).fit(X, y)
        report = privacy_report(pipe).set_index("column")
        assert "y" not in report.index
        assert report.loc["total", "epsilon"] == 1.0


# -- meta-estimators that privatize a record again during fit --------------------
class _Counting(LaplaceLDP):
    """LaplaceLDP that records the raw values it is given (a test spy)."""

    seen: ClassVar[list] = []

    def transform(self, X):
        type(self).seen.append(np.asarray(X)[:, 0].copy())
        return super().transform(X)


def _times_privatized(value):
    return int(np.sum(np.concatenate(_Counting.seen) == value))


@pytest.mark.parametrize("cv", [2, 3])
def test_a_chain_with_cv_counts_its_cross_val_predict_fits(cv):
    from sklearn.cluster import KMeans
    from sklearn.multioutput import RegressorChain
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(0)
    n = 60
    X = rng.uniform(0, 10, (n, 1)) + np.arange(n)[:, None] * 1e-6
    Y = rng.integers(0, 2, (n, 2)).astype(float)
    member = make_pipeline(
        _Counting(epsilon=1.0, bounds=(0, 11)), KMeans(2, n_init=1, random_state=0)
    )
    _Counting.seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        chain = RegressorChain(member, cv=cv, order=[0, 1]).fit(X, Y)
    worst = max(_times_privatized(v) for v in X[:, 0])
    assert worst == cv + 2  # cv + 1 by the first member, 1 by the last
    total = _total(privacy_report(chain))["epsilon"]
    assert total == pytest.approx(worst)
    # without cv each member fits once
    _Counting.seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        plain = RegressorChain(member, order=[0, 1]).fit(X, Y)
    assert _total(privacy_report(plain))["epsilon"] == pytest.approx(2.0)


def test_bagging_with_oob_score_counts_the_out_of_bag_predictions():
    from sklearn.cluster import KMeans
    from sklearn.ensemble import BaggingRegressor
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(1)
    n = 40
    X = rng.uniform(0, 10, (n, 1)) + np.arange(n)[:, None] * 1e-6
    y = rng.normal(size=n)
    # an unsupervised member: the response stays out of the report
    member = make_pipeline(
        _Counting(epsilon=1.0, bounds=(0, 11)), KMeans(2, n_init=1, random_state=0)
    )
    for oob in (False, True):
        _Counting.seen = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            bag = BaggingRegressor(
                member, n_estimators=8, oob_score=oob, random_state=0
            ).fit(X, y)
        worst = max(_times_privatized(v) for v in X[:, 0])
        assert _total(privacy_report(bag))["epsilon"] == pytest.approx(worst)


def test_an_interval_regressor_refuses_a_composite_privatizer():
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    from skprivate import IntervalCaseI, IterativeIntervalRegressor

    X = np.random.default_rng(0).uniform(0, 10, (60, 1))
    reg = IterativeIntervalRegressor(
        privatizer=make_pipeline(FunctionTransformer(), IntervalCaseI())
    )
    with pytest.raises(TypeError, match=r"^privatizer must be an interval mechanism"):
        reg.fit(X, X[:, 0])


def test_a_changed_privatizer_inside_a_composite_asks_for_the_composite_refit():
    X = np.random.default_rng(0).uniform(0, 10, (100, 1))
    privatizer = LaplaceLDP(epsilon=50.0, bounds=(0, 10))
    pipe = Pipeline([("ldp", privatizer), ("scale", StandardScaler())]).fit(X)
    privatizer.set_params(epsilon=0.1)
    with pytest.raises(ValueError) as info:
        privacy_report(pipe)
    assert str(info.value).endswith(
        "It is part of Pipeline: fit Pipeline again, not the privatizer alone "
        "(its later steps were fitted on the release of the old settings, which "
        "a refit of the privatizer does not undo)."
    )
    # alone, the privatizer's own advice
    with pytest.raises(
        ValueError, match=r"Call fit before transform or privacy_summary\.$"
    ):
        privacy_report(privatizer)


def test_bagging_classifier_with_oob_score_counts_the_out_of_bag_predictions():
    from sklearn.ensemble import BaggingClassifier
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    rng = np.random.default_rng(2)
    n = 40
    X = rng.uniform(0, 10, (n, 1)) + np.arange(n)[:, None] * 1e-6
    y = (X[:, 0] > 5).astype(int)
    member = make_pipeline(_Counting(epsilon=1.0, bounds=(0, 11)), LogisticRegression())
    _Counting.seen = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        bag = BaggingClassifier(
            member, n_estimators=6, oob_score=True, random_state=0
        ).fit(X, y)
    worst = max(_times_privatized(v) for v in X[:, 0])
    report = privacy_report(bag)
    spent = report.loc[report["mechanism"] == "_Counting", "epsilon"].sum()
    assert spent == pytest.approx(worst)


def test_the_helpers_of_cross_validated_counts_and_branch_widths():
    from sklearn.ensemble import StackingRegressor
    from sklearn.linear_model import LinearRegression
    from sklearn.model_selection import KFold

    from skprivate._privacy_report._walker import (
        _branch_width,
        _cross_val_factor,
        _n_splits,
    )

    assert _n_splits(StackingRegressor([("a", LinearRegression())], cv=3)) == 3
    assert _n_splits(StackingRegressor([("a", LinearRegression())], cv=KFold(4))) == 4
    assert (
        _n_splits(StackingRegressor([("a", LinearRegression())], cv=iter([]))) is None
    )
    assert _n_splits(StackingRegressor([("a", LinearRegression())], cv="nope")) is None
    transform, fit = {"_when": "transform"}, {"_when": "fit"}
    assert _cross_val_factor(None)(transform) is None
    assert _cross_val_factor(3)(transform) == 4 and _cross_val_factor(3)(fit) == 3
    assert _cross_val_factor(1)(transform) == 1
    ct = _features().fit(_data())
    assert [_branch_width(ct, name) for name in ("hiv", "age", "pca")] == [2, 1, 1]
    assert _branch_width(ct, "remainder") == 0
    assert _branch_width(ct, "nope") is None
    assert _branch_width(_features(), "hiv") is None  # not fitted


def test_the_static_notes_of_a_law_read_from_the_data_in_full():
    from skprivate import SubsetDistributionEstimator
    from skprivate._privacy_report._rows import _static_rows

    (row,) = _static_rows(LaplaceLDP(epsilon=1.0), "age", reads_data=True)
    assert row["epsilon"] == np.inf and row["exact_disclosure"] is True
    assert row["note"].startswith(
        "values leave exactly: the bounds would be read from the data and "
        "published (raw values of the records); no guarantee for those records; "
    )
    # a description of reports released elsewhere reads no raw data
    (row,) = _static_rows(SubsetUniform(), "race", reads_data=False)
    assert "would be read from the data" not in row["note"]
    # handle_unknown="error" discloses nothing
    cats = pd.DataFrame({"c": np.random.default_rng(1).choice(RACES, 90)})
    learner = SubsetDistributionEstimator(privatizer=SubsetUniform(categories=[RACES]))
    report = privacy_report(
        _search(learner, {"privatizer__handle_unknown": ["error"]}, cats)
    )
    assert "handle_unknown='ignore'" not in report.iloc[0]["note"]
    assert report.iloc[0]["exact_disclosure"] is not True


def test_a_described_release_reporting_unknown_values_is_exact_before_fit_too():
    # an unfitted reader's description without declared categories is read
    # from its parameters: handle_unknown="ignore" marks the reports as
    # leaving an unknown value exactly, as the fitted reader's report does
    from skprivate import SubsetDistributionEstimator

    cats = pd.DataFrame({"c": np.random.default_rng(1).choice(RACES, 90)})
    source = SubsetUniform(handle_unknown="ignore", random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reports = source.fit(cats).transform(cats)
    fitted = privacy_report(SubsetDistributionEstimator(design=source).fit(reports))
    reader = SubsetDistributionEstimator(design=SubsetUniform())
    grid = {"design__handle_unknown": ["ignore"]}
    static = privacy_report(_search(reader, grid, reports))
    for report in (fitted, static):
        assert _total(report)["epsilon"] == np.inf
        assert "handle_unknown='ignore'" in report.iloc[0]["note"]
    # the categories of a description are those of the reports, never raw
    assert "would be read from the data" not in static.iloc[0]["note"]
    grid = {"design__handle_unknown": ["error"]}
    static = privacy_report(_search(reader, grid, reports))
    assert "handle_unknown='ignore'" not in static.iloc[0]["note"]
    assert static.iloc[0]["exact_disclosure"] is not True


# -- a privatizer of a composite fitted again under other settings -------------
def _ldp_pipe(epsilon=5.0):
    return Pipeline(
        [
            ("ldp", LaplaceLDP(epsilon=epsilon, bounds=(0, 10))),
            ("scale", StandardScaler()),
        ]
    )


_X = np.random.default_rng(0).uniform(0, 10, (50, 2))


def test_a_privatizer_refitted_alone_under_other_settings_is_refused():
    # the scaler was fitted on the epsilon = 5 release; the privatizer now
    # says 1: reading it would understate what the pipeline holds
    pipe = _ldp_pipe().fit(_X)
    assert _total(privacy_report(pipe))["epsilon"] == 5.0
    pipe.named_steps["ldp"].set_params(epsilon=1.0).fit(_X)
    with pytest.raises(ValueError) as error:
        privacy_report(pipe)
    assert str(error.value) == (
        "LaplaceLDP inside Pipeline was fitted under other settings before "
        "its current fit (epsilon: 5.0 then, 1.0 now). The later steps of "
        "Pipeline may hold the earlier release, and the report cannot tell "
        "which one they were fitted on. Fit a clone of Pipeline "
        "(sklearn.base.clone) with the current settings and report that."
    )
    # alone, the privatizer states its current release
    assert _total(privacy_report(pipe.named_steps["ldp"]))["epsilon"] == 1.0
    # a clone starts with no history
    from sklearn.base import clone

    assert _total(privacy_report(clone(pipe).fit(_X)))["epsilon"] == 1.0
    # a copy carries it
    import pickle

    with pytest.raises(ValueError, match="epsilon: 5.0 then, 1.0 now"):
        privacy_report(pickle.loads(pickle.dumps(pipe)))


def test_a_refit_under_the_same_settings_is_not_refused():
    pipe = _ldp_pipe().fit(_X)
    pipe.named_steps["ldp"].fit(_X[:20])
    pipe.fit(_X)
    assert _total(privacy_report(pipe))["epsilon"] == 5.0


def test_returning_to_the_first_settings_still_names_the_other_release():
    pipe = _ldp_pipe().fit(_X)
    ldp = pipe.named_steps["ldp"]
    ldp.set_params(epsilon=8.0).fit(_X)
    ldp.set_params(epsilon=5.0).fit(_X)
    with pytest.raises(ValueError, match=r"\(epsilon: 8.0 then, 5.0 now\)"):
        privacy_report(pipe)
    # every setting that differed, in name order, each once
    ldp.set_params(bounds=(0, 20)).fit(_X)
    with pytest.raises(ValueError) as error:
        privacy_report(pipe)
    assert "(bounds: (0, 10) then, (0, 20) now; epsilon: 8.0 then, 5.0 now)" in str(
        error.value
    )


def test_a_failed_refit_under_other_settings_released_nothing():
    # the fit under the new bounds raises before any release: the pipeline
    # still holds the release of the settings the privatizer has again
    pipe = _ldp_pipe().fit(_X)
    ldp = pipe.named_steps["ldp"]
    with pytest.raises(ValueError):
        ldp.set_params(bounds=(5, 1)).fit(_X)
    ldp.set_params(bounds=(0, 10)).fit(_X)
    assert _total(privacy_report(pipe))["epsilon"] == 5.0


def test_a_refit_inside_a_column_transformer_is_refused_too():
    df = _data()
    ct = ColumnTransformer([("age", LaplaceLDP(epsilon=1.0, bounds=(0, 100)), ["age"])])
    pipe = Pipeline([("ct", ct), ("scale", StandardScaler())]).fit(df)
    fitted = pipe.named_steps["ct"].named_transformers_["age"]
    fitted.set_params(epsilon=2.0).fit(df[["age"]])
    with pytest.raises(ValueError, match="inside Pipeline was fitted under other"):
        privacy_report(pipe)


def test_a_learner_refitted_under_new_privatizer_settings_reports_them():
    # a learner privatizes with a fresh clone of its privatizer per fit
    from skprivate import DeconvolutionKernelDensity

    learner = DeconvolutionKernelDensity(
        privatizer=LaplaceLDP(epsilon=1.0, bounds=(0, 10))
    )
    X = _X[:, :1]
    learner.fit(X)
    learner.set_params(privatizer__epsilon=3.0).fit(X)
    assert _total(privacy_report(learner))["epsilon"] == 3.0


def test_bagging_after_a_step_of_unknown_width_reads_its_members():
    # the duplicating step names no output columns, so the walk keeps its two
    # input columns while the members see four: a member's features beyond
    # (or at) the columns known cannot be looked up, and it is given them all
    from sklearn.ensemble import BaggingRegressor
    from sklearn.linear_model import LinearRegression
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    rng = np.random.default_rng(0)
    X, y = rng.uniform(0, 10, (40, 2)), rng.normal(size=40)
    bag = BaggingRegressor(
        make_pipeline(LaplaceLDP(epsilon=1.0, bounds=(0, 10)), LinearRegression()),
        n_estimators=6,
        max_features=3,
        random_state=0,
    )
    pipe = make_pipeline(FunctionTransformer(_twice), bag)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pipe.fit(X, y)
    features = [set(map(int, f)) for f in pipe[-1].estimators_features_]
    assert {0, 1, 2} in features and any(3 in f for f in features)
    report = privacy_report(pipe)
    private = report[report["mechanism"] == "LaplaceLDP"]
    assert set(private["column"]) == {"x0", "x1", "x2"}
    assert report.iloc[-1]["epsilon"] == np.inf  # the raw response


def _twice(X):
    return np.hstack([X, X])
