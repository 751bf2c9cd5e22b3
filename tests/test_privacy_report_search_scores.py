"""A fitted search keeps scores of the records it was fitted on.

``cv_results_`` (with ``best_score_``, and the choice of ``best_params_``)
stays in the fitted search and its pickle.  When those scores were computed
from raw values (the raw response, a model predicting at raw inputs, or a
scorer that is code of the caller's), no guarantee covers them: the report
has a "search scores" row with ``epsilon = inf``.  Scores of privatized
values only are post-processing and add no row.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import BaseEstimator
from sklearn.ensemble import VotingRegressor
from sklearn.linear_model import LinearRegression, Ridge
from sklearn.model_selection import GridSearchCV, KFold
from sklearn.neighbors import KernelDensity
from sklearn.pipeline import Pipeline

from skprivate import (
    DeconvolutionKernelDensity,
    IntervalCaseI,
    IterativeIntervalRegressor,
    LaplaceLDP,
    privacy_report,
)
from skprivate._privacy_report._inspect import _named_scoring
from skprivate._privacy_report._total import _total_row

_RNG = np.random.default_rng(0)
X = _RNG.uniform(0, 10, (60, 1))
Y = X[:, 0] + _RNG.normal(size=60)
HEAD = (
    "cv_results_ of GridSearchCV (with best_score_ and the choice of "
    "best_params_) holds scores computed from "
)
TAIL = (
    ": no guarantee covers them (a test fold of one record makes a split's "
    "score a function of that record). A deployment ships the model alone: "
    "privacy_report(GridSearchCV.best_estimator_) states its guarantee"
)
INPUTS = "the model's predictions at the raw held-out inputs (x0)"
RESPONSE = "the raw response y of the held-out records"
CODE = "a scorer given as code, which receives the held-out records as given (raw)"


def _fit(search, *data):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return search.fit(*data)


def _scores(report):
    rows = report[report["column"] == "search scores"]
    assert len(rows) <= 1
    return None if rows.empty else rows.iloc[0]


def _ldp():
    return LaplaceLDP(epsilon=1.0, bounds=(0, 10))


def _density_pipe():
    return Pipeline([("ldp", _ldp()), ("kde", KernelDensity())])


def test_a_learner_scored_at_raw_held_out_inputs_keeps_raw_scores():
    learner = DeconvolutionKernelDensity(privatizer=_ldp())
    search = _fit(GridSearchCV(learner, {"bandwidth": [0.5, 1.0]}, cv=3), X)
    report = privacy_report(search)
    row = _scores(report)
    assert row["mechanism"] == "raw (GridSearchCV scores)"
    assert row["notion"] == "none (scores of raw values)"
    assert row["epsilon"] == np.inf and not row["exact_disclosure"]
    assert row["note"] == HEAD + INPUTS + TAIL
    total = report.iloc[-1]
    assert total["epsilon"] == np.inf and not total["exact_disclosure"]
    assert total["note"].startswith(
        "no guarantee: scores of raw values are kept; computed from raw values "
        "(epsilon = inf): search scores; in this simulation"
    )
    # the model alone holds one release
    alone = privacy_report(search.best_estimator_)
    assert alone["column"].tolist() == ["x0", "total"]
    assert alone.iloc[-1]["epsilon"] == 1.0
    # the scores are there to read: one per record with leave-one-out
    assert "split0_test_score" in search.cv_results_


def test_scores_of_privatized_records_only_are_post_processing():
    # the pipeline privatizes the held-out fold before the density scores it
    search = _fit(
        GridSearchCV(_density_pipe(), {"kde__bandwidth": [0.5, 1.0]}, cv=3), X
    )
    report = privacy_report(search)
    assert _scores(report) is None
    assert report["column"].tolist() == ["x0", "total"]
    assert report.iloc[-1]["epsilon"] == 1.0
    # so is a search without refit over the same candidates
    search = _fit(
        GridSearchCV(
            _density_pipe(), {"kde__bandwidth": [0.5, 1.0]}, cv=3, refit=False
        ),
        X,
    )
    assert _scores(privacy_report(search)) is None


def _total_score(estimator, X, y=None):
    return float(estimator.score(X))


@pytest.mark.parametrize("scoring", [_total_score, {"a": _total_score}])
def test_a_scorer_given_as_code_reads_the_records_as_given(scoring):
    search = GridSearchCV(
        _density_pipe(),
        {"kde__bandwidth": [0.5]},
        cv=KFold(2),
        scoring=scoring,
        refit=False,
    )
    report = privacy_report(_fit(search, X))
    assert _scores(report)["note"] == HEAD + CODE + TAIL
    assert report.iloc[-1]["epsilon"] == np.inf


def test_a_supervised_search_compares_with_the_raw_response():
    # X privatized by the pipeline, y by the interval regressor: the model
    # holds no raw value, but its scores compare predictions with raw y
    pipe = Pipeline(
        [
            ("ldp", _ldp()),
            (
                "iir",
                IterativeIntervalRegressor(
                    LinearRegression(),
                    privatizer=IntervalCaseI(anchor_loc=5, anchor_scale=3),
                    max_iter=2,
                ),
            ),
        ]
    )
    model = _fit(pipe, X, Y)
    assert np.isnan(privacy_report(model).iloc[-1]["epsilon"])  # coverage rows
    search = _fit(GridSearchCV(pipe, {"iir__max_iter": [2]}, cv=KFold(2)), X, Y)
    report = privacy_report(search)
    assert _scores(report)["note"] == HEAD + RESPONSE + TAIL
    assert report.iloc[-1]["epsilon"] == np.inf
    assert report["column"].tolist() == ["x0", "y", "search scores", "total"]


def test_every_reason_is_named_once():
    learner = DeconvolutionKernelDensity(privatizer=_ldp())
    search = GridSearchCV(
        learner,
        {"bandwidth": [0.5, 1.0]},
        cv=KFold(2),
        scoring=_total_score,
        refit=False,
    )
    report = privacy_report(_fit(search, X))
    # two candidates predict at the same raw inputs: named once (the
    # unfitted candidates know no column name)
    inputs = INPUTS.replace("(x0)", "(X)")
    assert _scores(report)["note"] == HEAD + f"{CODE}; {inputs}" + TAIL


def test_searches_inside_an_ensemble_share_one_row():
    def search(alpha):
        return GridSearchCV(
            Pipeline([("ldp", _ldp()), ("ridge", Ridge())]),
            {"ridge__alpha": [alpha]},
            cv=KFold(2),
        )

    vote = VotingRegressor([("a", search(1.0)), ("b", search(2.0))])
    report = privacy_report(_fit(vote, X, Y))
    row = _scores(report)
    assert row["note"] == HEAD + RESPONSE + TAIL  # the same note, once


def test_named_scorings():
    for scoring in (None, "r2", ["r2", "max_error"], ("r2",), {"r2"}, {"a": "r2"}):
        assert _named_scoring(scoring) is True
    for scoring in (
        _total_score,
        [_total_score],
        ("r2", _total_score),
        {"a": "r2", "b": _total_score},
        3,
    ):
        assert _named_scoring(scoring) is False


def test_the_total_of_a_scores_row_alone():
    raw = {
        "search scores": {
            "column": "search scores",
            "epsilon": np.inf,
            "_kinds": ["scores"],
        }
    }
    rows = [{"column": "x0", "epsilon": 1.0, "delta": 0.0}]
    total = _total_row(rows, raw)
    assert total == {
        "epsilon": np.inf,
        "delta": total["delta"],
        "note": "no guarantee: scores of raw values are kept; computed from raw "
        "values (epsilon = inf): search scores",
        "exact_disclosure": False,
    }
    assert np.isnan(total["delta"])


class _Mean(BaseEstimator):
    """Predicts the mean response; neither a regressor nor a classifier."""

    def fit(self, X, y):
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


def test_a_named_metric_compares_with_the_raw_response():
    pipe = Pipeline([("ldp", _ldp()), ("mean", _Mean())])
    named = GridSearchCV(
        pipe, {"ldp__epsilon": [1.0]}, cv=KFold(2), scoring="neg_mean_squared_error"
    )
    report = privacy_report(_fit(named, X, Y))
    assert _scores(report)["note"] == HEAD + RESPONSE + TAIL
    # its own score is no regressor's: without a named metric, no y is read
    plain = GridSearchCV(
        Pipeline([("ldp", _ldp()), ("kde", KernelDensity())]),
        {"ldp__epsilon": [1.0]},
        cv=KFold(2),
    )
    assert _scores(privacy_report(_fit(plain, X, Y))) is None
