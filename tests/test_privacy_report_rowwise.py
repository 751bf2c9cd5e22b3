"""Steps before a privatizer: only steps that act on each record alone keep
its epsilon.

A step that mixes records (a maximum over the batch, a fitted mean) lets one
record move every other record's released value, which the privatizer's
epsilon does not cover.  The first test shows the leak on a release; the
others check that ``privacy_report`` refuses such steps (``epsilon = inf``,
"not certified"), keeps the epsilon after the scikit-learn steps known to
be row-wise and after a step declared with ``RowwiseTransformer``, and
refuses a declared step that learned from the records.
"""

from __future__ import annotations

import inspect
import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.decomposition import PCA
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.pipeline import Pipeline, make_pipeline
from sklearn.preprocessing import (
    Binarizer,
    FunctionTransformer,
    KBinsDiscretizer,
    Normalizer,
    OneHotEncoder,
    PolynomialFeatures,
    SplineTransformer,
    StandardScaler,
)

from skprivate import (
    DeconvolutionKernelDensity,
    IntervalCaseI,
    IterativeIntervalRegressor,
    LaplaceLDP,
    RowwiseTransformer,
    privacy_report,
)

NOT_CERTIFIED = (
    "not certified: this step may let one record change other records' released values"
)


def _scale_by_max(X):
    return 100 * X / X.max()


def _total(report):
    return report.loc[report["column"] == "total"].iloc[0]


def _ldp(**kw):
    return LaplaceLDP(**{"epsilon": 1, "bounds": (0, 100), **kw})


# --- the leak ----------------------------------------------------------------


def _others_and_outlier():
    """999 records uniform on [0, 100] and one at 210, the maximum."""
    others = np.random.default_rng(0).uniform(0, 100, 999)
    return np.append(others, 210.0)[:, None], others[:, None]


def test_a_step_scaling_by_the_maximum_lets_one_record_move_all_others():
    with_max, without = _others_and_outlier()
    # LaplaceLDP adds noise of mean zero to values inside its bounds, so the
    # released mean of the 999 others is, in expectation, the mean of
    # 100 x / max: the record at the maximum halves it by being there.
    others = without[:, 0]
    expected_present = 100 * others.mean() / 210.0
    expected_absent = 100 * others.mean() / others.max()
    assert (round(expected_present, 1), round(expected_absent, 1)) == (24.6, 51.7)

    # One release each (any seed: the tolerances come from the noise).
    def release(X):
        step = FunctionTransformer(_scale_by_max)
        pipe = make_pipeline(step, _ldp(random_state=0))
        return pipe.fit_transform(X)[:999, 0]

    present, absent = release(with_max).mean(), release(without).mean()
    # noise scale 100 / epsilon: sd sqrt(2) * 100 per value
    se = np.sqrt(2) * 100 / np.sqrt(999)
    assert abs(present - expected_present) < 4 * se
    assert abs(absent - expected_absent) < 4 * se
    # one record moves the mean of all the others by about 6 standard
    # errors of one release's mean; a single pair of releases shows it
    assert (expected_absent - expected_present) > 6 * se
    assert absent - present > 2 * np.sqrt(2) * se


def test_report_refuses_a_step_that_mixes_records():
    with_max, _ = _others_and_outlier()
    pipe = make_pipeline(FunctionTransformer(_scale_by_max), _ldp(random_state=0))
    report = privacy_report(pipe.fit(with_max))
    assert list(report["mechanism"]) == ["LaplaceLDP", "FunctionTransformer", ""]
    assert report["epsilon"].tolist() == [1.0, np.inf, np.inf]
    row = report.iloc[1]
    assert row["column"] == "x0"
    assert row["note"].startswith(NOT_CERTIFIED)
    assert "_scale_by_max" in row["note"] and "RowwiseTransformer" in row["note"]
    assert not row["exact_disclosure"]  # the values are still privatized
    total = _total(report)
    assert total["epsilon"] == np.inf
    assert NOT_CERTIFIED in total["note"]
    assert total["note"].split("; seeded")[0].endswith(": x0")


def test_a_declared_rowwise_function_keeps_epsilon():
    with_max, _ = _others_and_outlier()
    step = RowwiseTransformer(FunctionTransformer(np.log1p))
    pipe = make_pipeline(step, _ldp(bounds=(0, 6), random_state=0))
    report = privacy_report(pipe.fit(with_max))
    assert list(report["column"]) == ["x0", "total"]
    assert report["epsilon"].tolist() == [1.0, 1.0]
    # the declaration only transforms: same output as the function itself
    np.testing.assert_array_equal(pipe[0].transform(with_max), np.log1p(with_max))


# --- which steps keep epsilon --------------------------------------------------


ROWWISE = {
    "identity": FunctionTransformer(),
    "normalizer": Normalizer(),
    "binarizer": Binarizer(threshold=50.0),
    "polynomial": PolynomialFeatures(degree=2, include_bias=False),
    "one-hot, given categories": OneHotEncoder(
        categories=[[0.0, 1.0, 2.0]] * 2, sparse_output=False
    ),
    "splines, given knots": SplineTransformer(
        knots=np.array([[0.0, 0.0], [50.0, 50.0], [100.0, 100.0]])
    ),
}
# scikit-learn 1.7 added quantile_method (and warns without it); 1.6 has none
_QUANTILE_METHOD = (
    {"quantile_method": "averaged_inverted_cdf"}
    if "quantile_method" in inspect.signature(KBinsDiscretizer).parameters
    else {}
)
MIXING = {
    "standard scaler": StandardScaler(),
    "one-hot, categories from data": OneHotEncoder(sparse_output=False),
    "one-hot, rare categories grouped": OneHotEncoder(
        categories=[[0.0, 1.0, 2.0]] * 2, min_frequency=5, sparse_output=False
    ),
    "splines, knots from data": SplineTransformer(),
    "bins": KBinsDiscretizer(n_bins=3, encode="ordinal", **_QUANTILE_METHOD),
    "undeclared function": FunctionTransformer(np.log1p),
    "declared but fitted": RowwiseTransformer(StandardScaler()),
}


def _grid_data():
    rng = np.random.default_rng(1)
    return rng.integers(0, 3, size=(40, 2)).astype(float)


def _others_leave_it_alone(step, X):
    """Whether record 0's output is the same whatever the other records are."""
    others_changed = X.copy()
    others_changed[1:] = 0.0
    first = clone(step).fit_transform(X)[0]
    second = clone(step).fit_transform(others_changed)[0]
    return first.shape == second.shape and np.allclose(first, second)


@pytest.mark.parametrize("name", list(ROWWISE))
def test_known_rowwise_steps_keep_epsilon(name):
    X = _grid_data()
    step = ROWWISE[name]
    # row-wise indeed: a record's output does not depend on the others
    assert _others_leave_it_alone(step, X)
    pipe = make_pipeline(clone(step), _ldp(bounds=(-1, 2), random_state=0)).fit(X)
    report = privacy_report(pipe)
    assert not np.isinf(report["epsilon"]).any(), report["note"].tolist()
    assert _total(report)["epsilon"] == pytest.approx(1.0)


@pytest.mark.parametrize("name", list(MIXING))
def test_steps_that_may_mix_records_are_refused(name):
    X = _grid_data()
    step = MIXING[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # bins with no width, and the like
        if name != "undeclared function":
            assert not _others_leave_it_alone(step, X)
        pipe = make_pipeline(clone(step), _ldp(bounds=(-5, 5), random_state=0))
        report = privacy_report(pipe.fit(X))
    refused = report[report["note"].str.startswith(NOT_CERTIFIED)]
    assert list(refused["column"]) == ["x0", "x1"]
    assert (refused["epsilon"] == np.inf).all()
    assert _total(report)["epsilon"] == np.inf


def test_declared_step_is_refused_when_it_learned_from_the_records():
    X = _grid_data()
    declared = RowwiseTransformer(
        make_pipeline(FunctionTransformer(), StandardScaler())
    )
    report = privacy_report(make_pipeline(declared, _ldp(bounds=(-5, 5))).fit(X))
    row = report.iloc[-2]
    assert row["mechanism"] == "RowwiseTransformer(Pipeline)"
    assert "declared row-wise but learned" in row["note"]
    assert "steps.mean_" in row["note"] and "steps.scale_" in row["note"]
    # a declared step whose fitted state follows from its parameters is kept
    declared = RowwiseTransformer(PolynomialFeatures(include_bias=False))
    report = privacy_report(make_pipeline(declared, _ldp(bounds=(0, 4))).fit(X))
    assert _total(report)["epsilon"] == 1.0


def test_a_mixing_step_that_changes_the_column_count_is_still_refused():
    X = np.random.default_rng(2).normal(size=(50, 3))
    pipe = make_pipeline(PCA(n_components=2), _ldp(bounds=(-5, 5))).fit(X)
    report = privacy_report(pipe)
    refused = report[report["mechanism"] == "PCA"]
    assert list(refused["column"]) == ["x0", "x1", "x2"]
    assert _total(report)["epsilon"] == np.inf


def test_a_mixing_step_without_privatizer_is_a_raw_release():
    df = pd.DataFrame({"age": np.linspace(18, 90, 30), "zip": np.arange(30.0)})
    ct = ColumnTransformer(
        [("age", _ldp(bounds=(18, 90)), ["age"]), ("zip", StandardScaler(), ["zip"])]
    ).fit(df)
    row = privacy_report(ct).iloc[1]
    assert (row["column"], row["mechanism"]) == ("zip", "StandardScaler")
    assert row["note"].endswith("released raw")
    assert NOT_CERTIFIED not in row["note"]
    assert row["exact_disclosure"] == True  # noqa: E712 (numpy bool)


def test_steps_after_the_privatizer_are_post_processing():
    X = _grid_data()
    pipe = make_pipeline(
        _ldp(bounds=(0, 2)), StandardScaler(), FunctionTransformer(_scale_by_max)
    ).fit(X)
    report = privacy_report(pipe)
    assert list(report["column"]) == ["x0", "x1", "total"]
    assert _total(report)["epsilon"] == 1.0


# --- the declaration through scikit-learn's tools --------------------------------


def _declared_pipe():
    log = RowwiseTransformer(FunctionTransformer(np.log1p, inverse_func=np.expm1))
    return Pipeline([("log", log), ("ldp", _ldp(bounds=(0, 5), random_state=0))])


def _keeps_epsilon(pipe):
    report = privacy_report(pipe)
    return report["epsilon"].tolist() == [1.0, 1.0] and list(report["column"]) == [
        "x0",
        "total",
    ]


def test_declaration_survives_clone_set_params_and_pickle():
    X = np.linspace(0, 100, 40)[:, None]
    pipe = _declared_pipe()
    assert _keeps_epsilon(clone(pipe).fit(X))
    pipe.set_params(log__transformer__func=np.sqrt, ldp__bounds=(0, 10))
    assert pipe.get_params()["log"].transformer.func is np.sqrt
    fitted = pipe.fit(X)
    assert _keeps_epsilon(fitted)
    np.testing.assert_array_equal(fitted["log"].transform(X), np.sqrt(X))
    restored = pickle.loads(pickle.dumps(fitted))
    assert isinstance(restored["log"], RowwiseTransformer)
    assert _keeps_epsilon(restored)
    # set_output is passed on to the declared step
    out = (
        clone(fitted)
        .set_output(transform="pandas")
        .fit_transform(pd.DataFrame({"v": X[:, 0]}))
    )
    assert isinstance(out, pd.DataFrame)


def test_declaration_survives_a_grid_search():
    X = np.random.default_rng(3).uniform(0, 100, size=(60, 1))
    pipe = _declared_pipe()
    pipe.steps.append(
        ("kde", DeconvolutionKernelDensity(bandwidth=0.5, noise_scale=5.0))
    )
    grid = {"log__transformer__func": [np.log1p, np.sqrt], "ldp__epsilon": [1, 2]}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        search = GridSearchCV(pipe, grid, cv=KFold(2)).fit(X)
    report = privacy_report(search)
    best = search.best_params_["ldp__epsilon"]
    assert list(report["mechanism"]) == ["LaplaceLDP", ""]
    assert report["epsilon"].iloc[-1] == best
    # refit=False reads the unfitted candidates: the declaration still holds
    search = GridSearchCV(pipe, grid, cv=KFold(2), refit=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        report = privacy_report(search.fit(X))
    assert list(report["mechanism"]) == ["LaplaceLDP", ""]
    assert report["epsilon"].iloc[-1] == 2


# --- the response ----------------------------------------------------------------


def _interval_target(transformer=None, **kw):
    reg = IterativeIntervalRegressor(
        privatizer=IntervalCaseI(anchor_loc=1.5, anchor_scale=0.5, random_state=0)
    )
    return TransformedTargetRegressor(reg, transformer=transformer, **kw)


def test_a_response_step_before_its_privatizer_follows_the_same_rule():
    rng = np.random.default_rng(4)
    X = rng.uniform(0, 1, size=(300, 1))
    y = np.exp(1 + X[:, 0] + rng.normal(scale=0.1, size=300))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        undeclared = _interval_target(func=np.log, inverse_func=np.exp).fit(X, y)
        scaled = _interval_target(StandardScaler()).fit(X, y)
        log = FunctionTransformer(np.log, inverse_func=np.exp)
        declared = _interval_target(RowwiseTransformer(log)).fit(X, y)
    for model in (undeclared, scaled):
        y_rows = privacy_report(model).query("column == 'y'")
        assert y_rows["note"].str.startswith(NOT_CERTIFIED).sum() == 1
    y_rows = privacy_report(declared).query("column == 'y'")
    assert list(y_rows["mechanism"]) == ["IntervalCaseI"]
