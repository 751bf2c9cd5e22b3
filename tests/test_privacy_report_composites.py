"""privacy_report over scikit-learn composites: every column that leaves."""

import numbers
import pickle
from typing import ClassVar

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, clone
from sklearn.compose import (
    ColumnTransformer,
    TransformedTargetRegressor,
    make_column_selector,
)
from sklearn.decomposition import PCA
from sklearn.ensemble import BaggingRegressor, StackingRegressor, VotingRegressor
from sklearn.feature_selection import RFE
from sklearn.linear_model import LinearRegression, RANSACRegressor, Ridge
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.neighbors import KNeighborsRegressor
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import PolynomialFeatures, StandardScaler
from sklearn.utils.validation import validate_data

from skprivate import (
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    IntervalCaseI,
    IterativeIntervalRegressor,
    LaplaceLDP,
    privacy_report,
)
from skprivate.base import PrivatizerMixin

from .test_mutation_report import _raw_inputs, _raw_response, _without_scores


def _data(n=60, seed=0):
    rng = np.random.default_rng(seed)
    df = pd.DataFrame(
        {
            "age": rng.uniform(18, 90, n),
            "hours": rng.uniform(1, 99, n),
            "zip": rng.integers(10_000, 99_999, n).astype(float),
        }
    )
    y = df["age"].to_numpy() / 10 + rng.normal(size=n)
    return df, y


def _age(eps):
    return LaplaceLDP(epsilon=eps, bounds=(18, 90))


def _hours(eps):
    return LaplaceLDP(epsilon=eps, bounds=(1, 99))


def _regressor(eps):
    return DeconvolutionKernelRegressor(bandwidth=5.0, privatizer=_age(eps))


def _total(report):
    return report.loc[report["column"] == "total"].iloc[0]


def _rows(report, column):
    return report[report["column"] == column]


class _CountingLaplace(LaplaceLDP):
    """LaplaceLDP recording the first input column of every release."""

    released: ClassVar[list] = []

    def transform(self, X):
        type(self).released.append(np.asarray(X, dtype=float)[:, 0].copy())
        return super().transform(X)


def _times_released(values):
    """How many times each value was privatized by a _CountingLaplace."""
    seen = np.concatenate(_CountingLaplace.released)
    return np.array([np.sum(seen == v) for v in values])


@pytest.fixture(autouse=True)
def _reset_counter():
    _CountingLaplace.released = []


# --- column transformers ------------------------------------------------------


def test_remainder_passthrough_column_is_raw_and_total_is_inf():
    df, _ = _data()
    ct = ColumnTransformer([("age", _age(1), ["age"])], remainder="passthrough").fit(
        df[["age", "zip"]]
    )
    report = privacy_report(ct)
    assert list(report["column"]) == ["age", "zip", "total"]
    zip_row = _rows(report, "zip").iloc[0]
    assert zip_row["epsilon"] == np.inf
    assert zip_row["mechanism"] == "raw (passthrough)"
    assert "remainder" in zip_row["note"]
    assert _total(report)["epsilon"] == np.inf
    assert "zip" in _total(report)["note"]


@pytest.mark.parametrize(
    "branch, mechanism",
    [("passthrough", "raw (passthrough)"), (StandardScaler(), "StandardScaler")],
)
def test_raw_branch_is_reported(branch, mechanism):
    df, _ = _data()
    ct = ColumnTransformer([("age", _age(1), ["age"]), ("z", branch, ["zip"])]).fit(df)
    report = privacy_report(ct)
    assert _rows(report, "age")["epsilon"].item() == 1.0
    zip_row = _rows(report, "zip").iloc[0]
    assert (zip_row["mechanism"], zip_row["epsilon"]) == (mechanism, np.inf)
    assert "hours" not in set(report["column"])  # dropped by the remainder
    assert _total(report)["epsilon"] == np.inf


def test_remainder_estimator_is_a_raw_channel():
    df, _ = _data()
    ct = ColumnTransformer([("age", _age(1), ["age"])], remainder=StandardScaler()).fit(
        df
    )
    report = privacy_report(ct)
    raw = report[report["epsilon"] == np.inf]
    assert list(raw["column"]) == ["hours", "zip", "total"]
    assert set(raw["mechanism"][:2]) == {"StandardScaler"}


@pytest.mark.parametrize(
    "selector",
    [
        [0],
        np.array([0]),
        [True, False, False],
        slice(0, 1),
        slice("age", "age"),
        ["age"],
        lambda frame: ["age"],
        make_column_selector(pattern="^age$"),
    ],
    ids=[
        "int-list",
        "int-array",
        "bool-mask",
        "int-slice",
        "label-slice",
        "label-list",
        "callable",
        "column-selector",
    ],
)
def test_selectors_resolve_on_a_dataframe(selector):
    df, _ = _data()
    ct = ColumnTransformer(
        [("p", _age(1), selector), ("h", _hours(2), ["hours"])],
        remainder="passthrough",
    ).fit(df)
    report = privacy_report(ct)
    eps = dict(zip(report["column"], report["epsilon"], strict=True))
    assert eps["age"] == 1.0
    assert eps["hours"] == 2.0
    assert eps["zip"] == np.inf
    assert eps["total"] == np.inf


@pytest.mark.parametrize(
    "selector", [[True, False, False], np.array([True, False, False]), [0]]
)
def test_boolean_and_int_selectors_on_an_ndarray(selector):
    df, _ = _data()
    ct = ColumnTransformer([("age", _age(1), selector)], remainder="passthrough")
    report = privacy_report(ct.fit(df.to_numpy()))
    assert list(report["column"]) == ["0", "1", "2", "total"]
    np.testing.assert_array_equal(report["epsilon"], [1.0, np.inf, np.inf, np.inf])


def test_raw_column_beside_a_coverage_notion_leaves_no_guarantee():
    # a raw column outweighs a column without epsilon: the total is inf,
    # and its note still says why the other column has no epsilon
    df, _ = _data()
    ct = ColumnTransformer(
        [("age", IntervalCaseI(anchor_loc=50, anchor_scale=20), ["age"])],
        remainder="passthrough",
    ).fit(df[["age", "zip"]])
    report = privacy_report(ct)
    total = _total(report)
    assert total["epsilon"] == np.inf
    assert "coverage" in total["note"] and "zip" in total["note"]
    assert _rows(report, "zip")["epsilon"].item() == np.inf


# --- feature unions and nesting -------------------------------------------------


def test_feature_union_inside_a_column_transformer_adds_on_the_column():
    df, _ = _data()
    union = FeatureUnion([("a", _age(1)), ("b", _age(2))])
    ct = ColumnTransformer(
        [("age", union, ["age"]), ("hours", _hours(1), ["hours"])]
    ).fit(df)
    report = privacy_report(ct)
    np.testing.assert_array_equal(_rows(report, "age")["epsilon"], [1.0, 2.0])
    assert _total(report)["epsilon"] == 4.0


def test_feature_union_alone_and_its_passthrough():
    df, _ = _data()
    union = FeatureUnion([("a", _age(1)), ("b", _age(2))]).fit(df[["age"]])
    assert _total(privacy_report(union))["epsilon"] == 3.0
    union = FeatureUnion([("a", _age(1)), ("raw", "passthrough")]).fit(df[["age"]])
    report = privacy_report(union)
    assert list(report["mechanism"][:2]) == ["LaplaceLDP", "raw (passthrough)"]
    assert _total(report)["epsilon"] == np.inf


def test_nested_composites_follow_each_column():
    df, _ = _data()
    # A scaler fitted on the raw ages before the privatizer is a raw channel.
    scaled = Pipeline(
        [("scale", StandardScaler()), ("ldp", LaplaceLDP(epsilon=1, bounds=(-3, 3)))]
    )
    union = FeatureUnion([("a", _hours(1)), ("b", _hours(0.5))])
    pipe = Pipeline(
        [("ct", ColumnTransformer([("age", scaled, ["age"]), ("h", union, ["hours"])]))]
    ).fit(df)
    report = privacy_report(pipe)
    assert list(zip(report["column"], report["mechanism"], strict=True)) == [
        ("age", "LaplaceLDP"),
        ("hours", "LaplaceLDP"),
        ("hours", "LaplaceLDP"),
        ("age", "StandardScaler"),
        ("total", ""),
    ]
    assert _total(report)["epsilon"] == np.inf
    # A column passed through and then privatized by a later step is not raw.
    later = Pipeline(
        [
            (
                "ct",
                ColumnTransformer([("a", _age(1), ["age"])], remainder="passthrough"),
            ),
            ("ldp", LaplaceLDP(epsilon=3, bounds=(0, 100_000))),
        ]
    ).fit(df[["age", "zip"]])
    report = privacy_report(later)
    assert not np.isinf(report["epsilon"]).any()
    assert _total(report)["epsilon"] == pytest.approx(4.0)
    # A raw remainder that reaches a learner is named with the learner.
    model = Pipeline(
        [
            (
                "ct",
                ColumnTransformer([("a", _age(1), ["age"])], remainder="passthrough"),
            ),
            ("kde", DeconvolutionKernelDensity(bandwidth=5.0, noise_scale=[72.0, 1.0])),
        ]
    ).fit(df[["age", "zip"]])
    zip_row = _rows(privacy_report(model), "zip").iloc[0]
    assert zip_row["epsilon"] == np.inf
    assert "DeconvolutionKernelDensity" in zip_row["note"]


# --- learners and their response --------------------------------------------------


def test_deconvolution_regressor_reports_its_raw_response():
    df, y = _data()
    reg = _regressor(2).fit(df[["age"]], y)
    report = privacy_report(reg)
    y_row = _rows(report, "y").iloc[0]
    assert y_row["epsilon"] == np.inf
    assert y_row["note"] == (
        "response used raw by DeconvolutionKernelRegressor; stored in the fitted "
        "model (and its pickle)"
    )
    assert _rows(report, "age")["epsilon"].item() == 2.0
    assert _total(report)["epsilon"] == np.inf
    # the note is true: every raw response is in the pickle
    blob = pickle.dumps(reg)
    assert all(np.float64(v).tobytes() in blob for v in y)


def test_iterative_interval_regressor_privatizes_y_not_x():
    df, y = _data()
    reg = IterativeIntervalRegressor(
        privatizer=IntervalCaseI(anchor_loc=5, anchor_scale=3)
    ).fit(df[["age", "hours"]].to_numpy(), y)
    report = privacy_report(reg)
    y_row = _rows(report, "y").iloc[0]
    assert y_row["mechanism"] == "IntervalCaseI"
    assert 0 < y_row["coverage"] < 1
    raw = report[report["epsilon"] == np.inf].iloc[:-1]
    assert list(raw["column"]) == ["x0", "x1"]
    assert all("passed unchanged" in note for note in raw["note"])
    total = _total(report)
    assert total["epsilon"] == np.inf and "x0, x1" in total["note"]


def test_voting_members_add_their_budgets():
    df, y = _data()
    vote = VotingRegressor([("a", _regressor(1)), ("b", _regressor(1))])
    report = privacy_report(vote.fit(df[["age"]], y))
    np.testing.assert_array_equal(_rows(report, "age")["epsilon"], [1.0, 1.0])
    assert _rows(report, "y")["epsilon"].item() == np.inf
    assert _total(report)["epsilon"] == np.inf


def test_transformed_target_regressor():
    df, y = _data()
    ttr = TransformedTargetRegressor(_regressor(1)).fit(df[["age"]], y)
    report = privacy_report(ttr)
    assert _rows(report, "age")["epsilon"].item() == 1.0
    assert "DeconvolutionKernelRegressor" in _rows(report, "y")["note"].item()
    assert _total(report)["epsilon"] == np.inf


def test_bagging_without_bootstrap_sums_its_members():
    df, y = _data()
    bag = BaggingRegressor(
        _regressor(1), n_estimators=5, bootstrap=False, random_state=0
    ).fit(df[["age"]], y)
    report = privacy_report(bag)
    assert _rows(report, "age")["epsilon"].sum() == 5.0
    assert _total(report)["epsilon"] == np.inf


def test_bagging_counts_bootstrap_duplicates_of_the_most_exposed_record():
    df, y = _data()
    member = DeconvolutionKernelRegressor(
        bandwidth=5.0, privatizer=_CountingLaplace(epsilon=1, bounds=(18, 90))
    )
    bag = BaggingRegressor(member, n_estimators=4, random_state=0)
    bag.fit(df[["age"]], y)
    most = _times_released(df["age"].to_numpy()).max()
    report = privacy_report(bag)
    assert most > 4  # duplicates in the bootstrap samples
    assert _rows(report, "age")["epsilon"].sum() == most


def test_bagging_maps_member_features_to_columns():
    df, y = _data()
    member = DeconvolutionKernelRegressor(
        bandwidth=5.0, privatizer=LaplaceLDP(epsilon=1, bounds=(1, 99))
    )
    bag = BaggingRegressor(
        member, n_estimators=4, max_features=1, bootstrap=False, random_state=3
    ).fit(df[["age", "hours"]], y)
    report = privacy_report(bag)
    picked = [["age", "hours"][int(f[0])] for f in bag.estimators_features_]
    assert len(set(picked)) == 2
    assert list(report.loc[report["mechanism"] == "LaplaceLDP", "column"]) == picked


@pytest.mark.parametrize("privatize_in", ["learner", "pipeline"])
def test_stacking_counts_the_cross_val_predict_fits(privatize_in):
    df, y = _data()
    counting = _CountingLaplace(epsilon=1, bounds=(18, 90))
    if privatize_in == "learner":
        member = DeconvolutionKernelRegressor(bandwidth=5.0, privatizer=counting)
    else:
        member = Pipeline(
            [
                ("ldp", counting),
                ("reg", DeconvolutionKernelRegressor(bandwidth=5.0, noise_scale=72.0)),
            ]
        )
    stack = StackingRegressor([("m", member)], final_estimator=Ridge(), cv=KFold(3))
    stack.fit(df[["age"]], y)
    times = _times_released(df["age"].to_numpy())
    assert times.min() == times.max() == (3 if privatize_in == "learner" else 4)
    report = privacy_report(stack)
    assert _rows(report, "age").iloc[0]["epsilon"] == times.max()
    assert _total(report)["epsilon"] == np.inf


# --- searches ---------------------------------------------------------------------


def _density_search(refit, in_pipeline=False):
    counting = _CountingLaplace(epsilon=1, bounds=(18, 90))
    if in_pipeline:
        estimator = Pipeline(
            [
                ("ldp", counting),
                ("kde", DeconvolutionKernelDensity(bandwidth=5.0, noise_scale=72.0)),
            ]
        )
        grid = {"ldp__epsilon": [0.5, 1.0, 2.0]}
    else:
        estimator = DeconvolutionKernelDensity(bandwidth=5.0, privatizer=counting)
        grid = {"privatizer__epsilon": [0.5, 1.0, 2.0]}
    return GridSearchCV(estimator, grid, cv=KFold(3), refit=refit)


@pytest.mark.parametrize(
    "refit, in_pipeline, expected",
    [(True, False, 7), (False, False, 6), (True, True, 10), (False, True, 9)],
)
def test_search_releases_per_record_match_the_releases_made(
    refit, in_pipeline, expected
):
    df, _ = _data()
    search = _density_search(refit, in_pipeline).fit(df[["age"]])
    times = _times_released(df["age"].to_numpy())
    assert times.min() == times.max() == expected
    report = privacy_report(search)
    assert report.attrs["releases_per_record"] == expected
    assert f"privatized up to {expected} times" in _total(report)["note"]
    assert "a real deployment privatizes each record once" in _total(report)["note"]


# the total of a search whose only channel without a guarantee is its scores
_SCORES_ONLY = (
    "no guarantee: scores of raw values are kept; computed from raw values "
    "(epsilon = inf): search scores; in this simulation "
)


def test_search_without_refit_reports_the_largest_candidate():
    df, _ = _data()
    search = _density_search(refit=False).fit(df[["age"]])
    # the density is evaluated at the raw held-out ages: the scores have no
    # guarantee, and make the total infinite (the privatizer keeps its epsilon)
    report = _without_scores(privacy_report(search), _raw_inputs("X"))
    assert report["column"].tolist() == ["X", "total"]
    assert report["epsilon"].tolist() == [2.0, np.inf]
    assert _total(report)["note"].startswith(_SCORES_ONLY)
    assert "refit=False" in report["note"].iloc[0]
    assert "'privatizer__epsilon': 2.0" in report["note"].iloc[0]


def test_search_refitted_without_refit_does_not_report_an_earlier_model():
    """A search refitted with refit=False keeps scikit-learn's stale best_estimator_.

    The report must read the candidates of the last fit (epsilon 2 here),
    not the model an earlier refit=True fit left behind (epsilon 0.5).
    """
    df, _ = _data()
    search = _density_search(refit=True)
    search.set_params(param_grid={"privatizer__epsilon": [0.5]}).fit(df[["age"]])
    # the scores of the density at the raw held-out ages have their own row
    # and make the total infinite; the privatizer's row keeps its epsilon
    report = _without_scores(privacy_report(search), _raw_inputs("age"))
    assert report["column"].tolist() == ["age", "total"]
    assert report["epsilon"].tolist() == [0.5, np.inf]
    assert _total(report)["note"].startswith(_SCORES_ONLY)
    search.set_params(refit=False, param_grid={"privatizer__epsilon": [2.0]})
    search.fit(df[["age"]])
    assert hasattr(search, "best_estimator_")
    report = _without_scores(privacy_report(search), _raw_inputs("age"))
    assert report["column"].tolist() == ["age", "total"]
    assert report["epsilon"].tolist() == [2.0, np.inf]
    assert _total(report)["note"].startswith(_SCORES_ONLY)
    assert "refit=False" in report["note"].iloc[0]
    assert "1 refit" not in _total(report)["note"]
    assert report.attrs["releases_per_record"] == 2


def test_search_without_refit_still_flags_raw_channels():
    df, _ = _data()
    ct = ColumnTransformer([("age", _age(1), ["age"])], remainder="passthrough")
    estimator = Pipeline(
        [
            ("ct", ct),
            ("kde", DeconvolutionKernelDensity(bandwidth=5.0, noise_scale=[72.0, 1.0])),
        ]
    )
    search = GridSearchCV(
        estimator, {"ct__age__epsilon": [1.0, 3.0]}, cv=KFold(3), refit=False
    ).fit(df[["age", "zip"]])
    report = privacy_report(search)
    assert _rows(report, "age")["epsilon"].item() == 3.0
    assert "raw (passthrough)" in set(report["mechanism"])
    assert _total(report)["epsilon"] == np.inf
    assert report.attrs["releases_per_record"] == 2 * 2 + 2 * 1


def test_search_without_refit_flags_a_column_any_candidate_passes_raw():
    # both candidates use y raw; the one with the lower epsilon also passes
    # the ZIP code raw, and a report of the other alone would leave it out
    df, y = _data()
    ct = ColumnTransformer([("age", _age(1), ["age"])])
    estimator = Pipeline([("ct", ct), ("ridge", Ridge())])
    grid = [
        {"ct__age__epsilon": [5.0]},
        {"ct__age__epsilon": [0.5], "ct__remainder": ["passthrough"]},
    ]
    search = GridSearchCV(estimator, grid, cv=KFold(3), refit=False)
    # the ridge is scored against the raw y at the raw held-out ZIP codes
    report = _without_scores(
        privacy_report(search.fit(df[["age", "zip"]], y)),
        _raw_response(),
        _raw_inputs("remainder columns (if any)"),
    )
    assert report["column"].tolist() == [
        "age",
        "y",
        "remainder columns (if any)",
        "total",
    ]
    assert _rows(report, "age")["epsilon"].item() == 5.0
    passed = _rows(report, "remainder columns (if any)").iloc[0]
    assert passed["mechanism"] == "raw (passthrough)"
    assert passed["epsilon"] == np.inf
    assert "'ct__remainder': 'passthrough'" in passed["note"]
    assert _total(report)["note"].startswith(
        "no guarantee: some columns leave raw and scores of raw values are kept; "
        "raw columns (epsilon = inf): y, remainder columns (if any); computed "
        "from raw values (epsilon = inf): search scores;"
    )


# --- settings and refusals --------------------------------------------------------


class _PlainPrivatizer(PrivatizerMixin, BaseEstimator):
    """A privatizer whose summary does not itself check its settings."""

    _parameter_constraints: ClassVar[dict] = {"epsilon": [numbers.Real]}

    def __init__(self, epsilon=1.0):
        self.epsilon = epsilon

    def fit(self, X, y=None):
        self._check_params()
        validate_data(self, X)
        return self

    def transform(self, X):
        return X

    def privacy_summary(self):
        return {
            "notion": "epsilon-local differential privacy",
            "epsilon": self.epsilon,
            "epsilon_per_feature": self.epsilon / self.n_features_in_,
        }


def test_settings_changed_after_fit_are_refused():
    df, _ = _data()
    privatizer = _PlainPrivatizer(epsilon=1.0).fit(df[["age"]])
    assert _total(privacy_report(privatizer))["epsilon"] == 1.0
    privatizer.set_params(epsilon=5.0)
    ct = ColumnTransformer([("age", privatizer, ["age"])])
    ct.fit(df)
    ct.transformers_[0][1].set_params(epsilon=5.0 + 1)
    with pytest.raises(ValueError, match="settings changed since fit"):
        privacy_report(privatizer)
    with pytest.raises(ValueError, match="settings changed since fit"):
        privacy_report(ct)


def test_a_mixing_step_before_a_column_transformer_leaves_its_privatizer_uncertified():
    """PCA changes the column count before a ColumnTransformer: the mark survives.

    PCA's components are fitted on every raw record, so a privatizer fed its
    output certifies nothing, whether it is a pipeline step or a branch of a
    ColumnTransformer that cannot map the PCA columns one to one.
    """
    df, _ = _data()
    scaled = df / 100.0
    ldp = LaplaceLDP(epsilon=1.0, bounds=(-2.0, 2.0))
    direct = Pipeline([("pca", PCA(n_components=2)), ("ldp", ldp)]).fit(scaled)
    branch = Pipeline(
        [
            ("pca", PCA(n_components=2)),
            ("ct", ColumnTransformer([("ldp", clone(ldp), [0, 1])])),
        ]
    ).fit(scaled)
    for fitted in (direct, branch):
        report = privacy_report(fitted)
        assert _total(report)["epsilon"] == np.inf
        uncertified = report[report["mechanism"] == "PCA"]
        assert len(uncertified) >= 2
        assert (uncertified["epsilon"] == np.inf).all()
    # a row-wise step before the same branch keeps its epsilon
    rowwise = Pipeline(
        [
            ("poly", PolynomialFeatures(degree=1, include_bias=False)),
            ("ct", ColumnTransformer([("ldp", clone(ldp), [0, 1])])),
        ]
    ).fit(scaled)
    assert _total(privacy_report(rowwise))["epsilon"] == 1.0


def _rfe_data(n=80, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame(rng.uniform(0, 1, (n, 4)), columns=list("abcd"))
    y = X.to_numpy() @ np.array([0.1, 0.2, 0.3, 4.0]) + 0.1 * rng.normal(size=n)
    return X, y


def _private_linear(eps):
    return Pipeline(
        [("ldp", LaplaceLDP(epsilon=eps, bounds=(0, 1))), ("lr", LinearRegression())]
    )


def test_rfe_counts_one_release_per_fit_of_its_estimator():
    """RFE fits its estimator max(ranking_) times: each fit privatizes again."""
    X, y = _rfe_data()
    target = TransformedTargetRegressor(
        _private_linear(1.0),
        transformer=LaplaceLDP(epsilon=1.0, bounds=(-1, 6)),
        check_inverse=False,
    )
    rfe = RFE(
        target,
        n_features_to_select=1,
        importance_getter="regressor_.named_steps.lr.coef_",
    ).fit(X, y)
    assert int(rfe.ranking_.max()) == 4
    report = privacy_report(rfe)
    # three elimination rounds on 4, 3 and 2 columns, then one on the last
    kept = X.columns[rfe.support_].item()
    assert report["column"].tolist() == ["y", kept, "total"]
    assert report["epsilon"].tolist() == [4.0, 4.0, 8.0]
    assert report["note"].iloc[0] == (
        "privatized 4 times per record: 4 fits by RFE: one per elimination "
        "round, on the columns still kept, and one on the columns selected"
    )


def test_rfe_as_a_step_passes_the_raw_columns_it_keeps():
    """RFE before another step outputs raw input columns, not predictions."""
    X, y = _rfe_data()
    rfe = RFE(
        _private_linear(1.0),
        n_features_to_select=2,
        importance_getter="named_steps.lr.coef_",
    )
    target = TransformedTargetRegressor(
        Pipeline([("rfe", rfe), ("knn", KNeighborsRegressor(n_neighbors=3))]),
        transformer=LaplaceLDP(epsilon=1.0, bounds=(-1, 6)),
        check_inverse=False,
    ).fit(X, y)
    kept = list(X.columns[target.regressor_.named_steps["rfe"].support_])
    report = privacy_report(target)
    raw = report[report["mechanism"] == "RFE"]
    assert raw["column"].tolist() == kept
    assert (raw["epsilon"] == np.inf).all()
    assert _total(report)["epsilon"] == np.inf
    # as the last step it predicts: no raw column leaves through it
    alone = TransformedTargetRegressor(
        clone(rfe),
        transformer=LaplaceLDP(epsilon=1.0, bounds=(-1, 6)),
        check_inverse=False,
    ).fit(X, y)
    assert np.isfinite(_total(privacy_report(alone))["epsilon"])


def test_an_unknown_refitting_meta_estimator_has_no_finite_budget():
    """A meta-estimator whose number of refits is not readable: epsilon NaN."""
    X, y = _rfe_data()
    ransac = TransformedTargetRegressor(
        RANSACRegressor(_private_linear(1.0), min_samples=10, random_state=0),
        transformer=LaplaceLDP(epsilon=1.0, bounds=(-1, 6)),
        check_inverse=False,
    ).fit(X, y)
    report = privacy_report(ransac)
    features = report[report["column"].isin(list("abcd"))]
    assert len(features) == 4 and features["epsilon"].isna().all()
    assert "RANSACRegressor fits clones of its estimator" in features["note"].iloc[0]
    assert np.isnan(_total(report)["epsilon"])
