"""``privacy_report`` over searches, as mutation testing found it unchecked.

A fitted search reports the rows of ``best_estimator_`` and counts how many
times it privatized each record (``report.attrs["releases_per_record"]``);
with ``refit=False`` there is no fitted model, and the rows are read from
the parameters of the candidate with the largest epsilon (a raw channel
first, then the largest delta), walking its unfitted structure, with a row
for every column any other candidate leaves raw or not certified.  Each test
asserts the exact rows, notes and counts of a tiny search over the stated
privatizers of ``tests/test_mutation_report.py``.
``benchmarks/_mutation_specs_report.py`` lists the mutants of
``skprivate/_privacy_report/_walker.py`` these tests kill.
"""

from __future__ import annotations

import numpy as np
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.ensemble import (
    BaggingClassifier,
    BaggingRegressor,
    StackingClassifier,
    StackingRegressor,
    VotingRegressor,
)
from sklearn.linear_model import LinearRegression, RANSACRegressor, Ridge
from sklearn.model_selection import GridSearchCV, KFold, ShuffleSplit
from sklearn.neighbors import KernelDensity
from sklearn.pipeline import FeatureUnion, make_pipeline
from sklearn.preprocessing import StandardScaler

from skprivate import (
    RowwiseTransformer,
    privacy_report,
)

# -- searches fitted with refit=False: rows read from the parameters ----------
from .test_mutation_report import (
    _LDP,
    _STATIC,
    _X,
    _Budget,
    _exact,
    _frame,
    _Invertible,
    _largest,
    _ldp,
    _Learner,
    _raw_inputs,
    _raw_response,
    _simulated,
    _Stated,
    _table,
    _total,
    _without_scores,
    _y,
)
from .test_mutation_report_walker import _density


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


def _unfitted_bagging(**params):
    bag = BaggingRegressor(_Learner(_Budget()), n_estimators=3, **params)
    search = GridSearchCV(
        bag, {"estimator__privatizer__epsilon": [0.5]}, cv=KFold(2), refit=False
    )
    return privacy_report(search.fit(_frame(), _y()))


def test_bagging_of_an_unfitted_candidate():
    # without bootstrap each of the 3 members privatizes every record once;
    # the scores compare the members' predictions at the raw held-out inputs
    # with the raw response
    scores = (_raw_response(), _raw_inputs("X"))
    row = _without_scores(_unfitted_bagging(bootstrap=False), *scores).iloc[0]
    assert row["epsilon"] == 1.5
    assert row["note"].startswith(
        f"{_STATIC}; privatized 3 times per record: 3 members of BaggingRegressor; "
    )
    # with bootstrap, a member may draw a record several times: unknown
    report = _without_scores(_unfitted_bagging(), *scores)
    row = report.iloc[0]
    assert np.isnan(row["epsilon"]) and np.isnan(row["delta"])
    assert _total(report)["note"].startswith(
        "no guarantee: some columns leave raw and scores of raw values are kept; "
        "raw columns (epsilon = inf): y; computed from raw values (epsilon = "
        "inf): search scores; other columns have no epsilon: an unknown number "
        "of releases (3 members of BaggingRegressor, each fitted on a bootstrap "
        "sample that may hold a record several times); in this simulation"
    )
    assert row["note"].startswith(
        f"{_STATIC}; released an unknown number of times per record: 3 members of "
        "BaggingRegressor, each fitted on a bootstrap sample that may hold a record "
        "several times; "
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


def _other(which):
    return (
        f"refit=False: no fitted model; a channel of {which}, read from the parameters"
    )


def test_search_without_refit_reports_the_raw_columns_of_every_candidate():
    # every candidate passes the remainder raw; the reported one (the
    # largest epsilon) drops column 1, which two others pass raw
    ct = ColumnTransformer(
        [("a", _Budget(), [0]), ("b", "drop", [1])], remainder="passthrough"
    )
    grid = [
        {"columntransformer__a__epsilon": [2.0]},
        {
            "columntransformer__a__epsilon": [1.0, 0.5],
            "columntransformer__b": ["passthrough"],
        },
    ]
    search = GridSearchCV(
        make_pipeline(ct, KernelDensity()), grid, cv=KFold(2), refit=False
    )
    # the density is evaluated at the raw held-out columns: the remainder in
    # every candidate, column 1 in two, each named once
    report = _without_scores(
        privacy_report(search.fit(_X(k=3))),
        _raw_inputs("remainder columns (if any), 1"),
    )
    largest = _largest({"columntransformer__a__epsilon": 2.0}, 3)
    first = {
        "columntransformer__a__epsilon": 1.0,
        "columntransformer__b": "passthrough",
    }
    used = "used raw by KernelDensity"
    assert _table(report) == [
        ("0", "_Budget", 2.0, f"{_STATIC}; {largest}"),
        (
            "remainder columns (if any)",
            "raw (passthrough)",
            np.inf,
            f"remainder='passthrough' of ColumnTransformer; {used}; {largest}",
        ),
        (
            "1",
            "raw (passthrough)",
            np.inf,
            f"passthrough 'b' of ColumnTransformer; {used}; "
            + _other(f"2 of the 3 candidates, the first {first}"),
        ),
    ]
    assert report["exact_disclosure"].tolist() == [False, True, True, True]
    assert _total(report)["note"].startswith(
        "no guarantee: some columns leave raw and scores of raw values are kept; "
        "raw columns (epsilon = inf): remainder columns (if any), 1; computed "
        "from raw values (epsilon = inf): search scores; "
    )


def test_search_without_refit_adds_a_raw_channel_to_a_column_not_certified():
    # the reported candidate scales column 0 before privatizing it (not
    # certified); the other passes it raw: its values leave exactly
    scaled = make_pipeline(StandardScaler(), _Budget(epsilon=2.0))
    ct = ColumnTransformer([("a", _Budget(), [0])])
    grid = {"columntransformer__a": [scaled, "passthrough"]}
    search = GridSearchCV(
        make_pipeline(ct, KernelDensity()), grid, cv=KFold(2), refit=False
    )
    report = _without_scores(privacy_report(search.fit(_X(k=2))), _raw_inputs("0"))
    assert report["column"].tolist() == ["0", "0", "total"]
    row = report.iloc[1]
    assert (row["mechanism"], row["notion"]) == (
        "StandardScaler",
        "none (not certified)",
    )
    assert row["exact_disclosure"] == True  # noqa: E712
    assert row["note"].endswith(
        "passthrough 'a' of ColumnTransformer; used raw by KernelDensity; "
        + _other(
            "the candidate {'columntransformer__a': 'passthrough'} "
            "(1 of the 2 candidates)"
        )
    )
    assert _total(report)["note"].startswith(
        "no guarantee: some columns leave raw and some columns are not "
        "certified and scores of raw values are kept; raw columns (epsilon = "
        "inf): 0; not certified: "
    )


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


def _candidate(est, grid, X, y=None):
    search = GridSearchCV(est, grid, cv=KFold(2), refit=False)
    return privacy_report(search.fit(X, y))


def test_an_unfitted_column_transformer_names_its_columns_from_the_specs():
    ct = ColumnTransformer(
        [
            ("ab", _Budget(epsilon=1.0), ["a", "b"]),
            ("s", "passthrough", slice(0, 1)),
        ],
        remainder="passthrough",
    )
    grid = {"kerneldensity__bandwidth": [1.0]}
    report = _without_scores(
        _candidate(make_pipeline(ct, KernelDensity()), grid, _frame()),
        _raw_inputs("columns of 's', remainder columns (if any)"),
    )
    largest = _largest({"kerneldensity__bandwidth": 1.0}, 1)
    assert _table(report) == [
        ("a, b", "_Budget", 1.0, f"{_STATIC}; {largest}"),
        (
            "columns of 's'",
            "raw (passthrough)",
            np.inf,
            "passthrough 's' of ColumnTransformer; used raw by KernelDensity; "
            + largest,
        ),
        (
            "remainder columns (if any)",
            "raw (passthrough)",
            np.inf,
            "remainder='passthrough' of ColumnTransformer; used raw by "
            f"KernelDensity; {largest}",
        ),
    ]
    assert report["notion"].tolist()[1:3] == ["none (raw)", "none (raw)"]
    assert _total(report)["note"].startswith(
        "no guarantee: some columns leave raw and scores of raw values are kept; "
        "raw columns (epsilon = inf): columns of 's', remainder columns (if "
        "any); computed from raw values (epsilon = inf): search scores; in this "
        "simulation"
    )


def test_an_unfitted_target_transformer_and_stacking_take_their_defaults():
    # TransformedTargetRegressor(func=...) transforms y with a
    # FunctionTransformer, which is no privatizer: y stays raw
    ttr = TransformedTargetRegressor(
        _Learner(_Budget(epsilon=0.5)), func=np.log1p, inverse_func=np.expm1
    )
    grid = {"regressor__privatizer__epsilon": [0.5]}
    scores = (_raw_response(), _raw_inputs("X"))
    report = _without_scores(_candidate(ttr, grid, _frame(), _y()), *scores)
    largest = _largest({"regressor__privatizer__epsilon": 0.5}, 1)
    assert _table(report) == [
        ("X", "_Budget", 0.5, f"{_STATIC}; {largest}"),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _Learner; its fitted state is computed from "
            f"it; {largest}",
        ),
    ]
    # stacking: a dropped member is no member; the default final estimator
    # (RidgeCV) learns from the members' predictions at the raw inputs
    stack = StackingRegressor([("m", _Learner(_Budget())), ("d", "drop")], cv=KFold(2))
    grid = {"m__privatizer__epsilon": [0.5]}
    report = _without_scores(_candidate(stack, grid, _frame(), _y()), *scores)
    largest = _largest({"m__privatizer__epsilon": 0.5}, 1)
    why = "fitted on all records and in cross_val_predict by StackingRegressor"
    assert _table(report) == [
        (
            "X",
            "_Budget",
            1.0,
            f"{_STATIC}; privatized 2 times per record: {why}; " + largest,
        ),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _Learner; its fitted state is computed from "
            "it; response used raw by RidgeCV; its fitted state is computed from "
            f"it; {largest}",
        ),
        (
            "X",
            "raw (predictions)",
            np.inf,
            "predictions of _Learner at the raw inputs; used raw by RidgeCV; "
            + largest,
        ),
    ]


def test_an_unfitted_bagging_without_estimator_fits_trees():
    pipe = make_pipeline(_ldp(0.5), BaggingRegressor(n_estimators=2))
    grid = {"baggingregressor__n_estimators": [2]}
    report = _without_scores(_candidate(pipe, grid, _frame(), _y()), _raw_response())
    assert report["column"].tolist() == ["X", "y", "total"]
    assert (
        report["note"]
        .iloc[1]
        .startswith(
            "response used raw by DecisionTreeRegressor; its fitted state is computed "
            "from it; refit=False"
        )
    )


def test_an_unfitted_declared_privatizer_is_the_privatizer():
    pipe = make_pipeline(RowwiseTransformer(_Budget(epsilon=0.5)), KernelDensity())
    grid = {"kerneldensity__bandwidth": [1.0]}
    report = _candidate(pipe, grid, _frame())
    assert _table(report) == [
        (
            "X",
            "_Budget",
            0.5,
            f"{_STATIC}; " + _largest({"kerneldensity__bandwidth": 1.0}, 1),
        )
    ]


def _refit_false(params):
    return _largest(params, 1)


def test_a_search_without_refit_inside_an_ensemble_adds_its_rows():
    # a candidate without any privatizer: the voting still holds one
    ridge = GridSearchCV(Ridge(), {"alpha": [1.0]}, cv=KFold(2), refit=False)
    vote = VotingRegressor([("p", make_pipeline(_ldp(0.5), Ridge())), ("s", ridge)])
    report = _without_scores(
        privacy_report(vote.fit(_frame(), _y())),
        _raw_response(),
        _raw_inputs("a, b"),
    )
    note = _refit_false({"alpha": 1.0})
    assert _table(report) == [
        ("a", "_Stated", 0.5, ""),
        ("b", "_Stated", 0.5, ""),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by Ridge; its fitted state is computed from it; "
            "response used raw by Ridge; its fitted state is computed from it; " + note,
        ),
        (
            "a",
            "Ridge",
            np.inf,
            f"used raw by Ridge (its fitted state is computed from it); {note}",
        ),
        (
            "b",
            "Ridge",
            np.inf,
            f"used raw by Ridge (its fitted state is computed from it); {note}",
        ),
    ]
    # a candidate with one: its rows come after the others
    search = GridSearchCV(
        _Learner(_Budget()), {"privatizer__epsilon": [2.0]}, cv=KFold(2), refit=False
    )
    vote = VotingRegressor([("p", make_pipeline(_ldp(0.5), Ridge())), ("s", search)])
    report = _without_scores(
        privacy_report(vote.fit(_frame(), _y())),
        _raw_response(),
        _raw_inputs("a, b"),
    )
    assert report["column"].tolist() == ["a", "b", "a, b", "y", "total"]
    assert report["epsilon"].tolist()[:3] == [0.5, 0.5, 2.0]


def test_unfitted_classifier_ensembles_take_their_classifier_defaults():
    y = (_y() > 5).astype(int)
    stack = StackingClassifier([("l", _Learner(_Budget()))], cv=KFold(2))
    report = _candidate(stack, {"l__privatizer__epsilon": [0.5]}, _frame(), y)
    assert (
        report["note"]
        .iloc[1]
        .startswith(
            "response used raw by _Learner; its fitted state is computed from it; "
            "response used raw by LogisticRegression; its fitted state is computed "
            "from it; refit=False"
        )
    )
    pipe = make_pipeline(_ldp(0.5), BaggingClassifier(n_estimators=2))
    report = _candidate(pipe, {"baggingclassifier__n_estimators": [2]}, _frame(), y)
    assert (
        report["note"]
        .iloc[1]
        .startswith(
            "response used raw by DecisionTreeClassifier; its fitted state is computed "
            "from it; refit=False"
        )
    )


def test_an_unfitted_target_regressor_without_regressor_fits_a_linear_one():
    target = _Invertible({"notion": _LDP, "epsilon_per_feature": 1.0})
    ttr = TransformedTargetRegressor(transformer=target, check_inverse=False)
    report = _without_scores(
        _candidate(ttr, {"check_inverse": [False]}, _frame(), _y()),
        _raw_response(),
        _raw_inputs("X"),
    )
    assert report["column"].tolist() == ["y", "X", "total"]
    assert report["mechanism"].tolist()[:2] == ["_Invertible", "LinearRegression"]


def test_a_refitted_search_over_a_learner_uses_the_raw_response():
    search = GridSearchCV(
        _Learner(_Budget()), {"privatizer__epsilon": [0.5]}, cv=KFold(2)
    )
    # the learner predicts at the raw held-out inputs, scored against the
    # raw response
    report = _without_scores(
        privacy_report(search.fit(_frame(), _y())),
        _raw_response(),
        _raw_inputs("x0, x1"),
    )
    assert _table(report) == [
        ("x0", "_Budget", 0.25, ""),
        ("x1", "_Budget", 0.25, ""),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _Learner; its fitted state is computed from it",
        ),
    ]


def test_members_of_an_unfitted_ensemble_and_their_notes():
    vote = VotingRegressor([("l", _Learner(_Budget()))])
    report = _without_scores(
        _candidate(vote, {"l__privatizer__epsilon": [0.5]}, _frame(), _y()),
        _raw_response(),
        _raw_inputs("X"),
    )
    assert report["column"].tolist() == ["X", "y", "total"]
    assert report["epsilon"].iloc[0] == 0.5
    # a member's own note comes first
    stated = _Stated({"notion": _LDP, "epsilon_per_feature": 0.5, "condition": "c"})
    ransac = RANSACRegressor(
        make_pipeline(stated, LinearRegression()), min_samples=4, random_state=0
    )
    report = privacy_report(ransac.fit(_frame(), _y()))
    assert report["note"].iloc[0] == (
        "c; released an unknown number of times per record: RANSACRegressor "
        "fits clones of its estimator a number of times privacy_report cannot "
        "read from it, each fit privatizing again"
    )
    assert np.isnan(report["epsilon"].iloc[0])


def test_an_unfitted_union_passes_its_passthrough_branch_on():
    union = FeatureUnion([("b", _Budget(epsilon=0.5)), ("raw", "passthrough")])
    grid = {"kerneldensity__bandwidth": [1.0]}
    report = _without_scores(
        _candidate(make_pipeline(union, KernelDensity()), grid, _frame()),
        _raw_inputs("X"),
    )
    largest = _largest({"kerneldensity__bandwidth": 1.0}, 1)
    assert _table(report) == [
        ("X", "_Budget", 0.5, f"{_STATIC}; {largest}"),
        (
            "X",
            "raw (passthrough)",
            np.inf,
            f"passthrough 'raw' of FeatureUnion; used raw by KernelDensity; {largest}",
        ),
    ]


def test_an_unfitted_column_transformer_with_positions_and_privatized_input():
    largest = _largest({"kerneldensity__bandwidth": 1.0}, 1)
    grid = {"kerneldensity__bandwidth": [1.0]}
    ct = ColumnTransformer([("i", _Budget(epsilon=2.0), [0])], remainder="passthrough")
    report = _without_scores(
        _candidate(make_pipeline(ct, KernelDensity()), grid, _frame()),
        _raw_inputs("remainder columns (if any)"),
    )
    assert report["column"].tolist() == ["0", "remainder columns (if any)", "total"]
    assert report["note"].iloc[1] == (
        "remainder='passthrough' of ColumnTransformer; used raw by KernelDensity; "
        + largest
    )
    # after a privatizer nothing is raw, the remainder included
    ct = ColumnTransformer([("q", _Budget(epsilon=1.0), [0])], remainder="passthrough")
    pipe = make_pipeline(_Budget(epsilon=0.5), ct, KernelDensity())
    report = _candidate(pipe, grid, _frame())
    assert _table(report) == [
        ("X", "_Budget", 0.5, f"{_STATIC}; {largest}"),
        ("0", "_Budget", 1.0, f"{_STATIC}; {largest}"),
    ]
    assert _total(report)["epsilon"] == 1.5
