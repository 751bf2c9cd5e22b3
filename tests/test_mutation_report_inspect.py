"""What ``privacy_report`` reads of an estimator (splits, column specs,
members, what privatizes), as mutation testing found it unchecked.

Exact results of the inspection helpers of
``skprivate/_privacy_report/_inspect.py`` on small cases;
``benchmarks/_mutation_specs_report.py`` lists the mutants they kill.
"""

from __future__ import annotations

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.ensemble import VotingRegressor
from sklearn.linear_model import Ridge
from sklearn.model_selection import (
    KFold,
    LeaveOneOut,
    PredefinedSplit,
    RepeatedKFold,
    ShuffleSplit,
)
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import (
    StandardScaler,
)

from skprivate._privacy_report._inspect import (
    _Col,
    _fitted_members,
    _input_cols,
    _per_column,
    _privatizes,
    _resolve_columns,
    _spec_labels,
    _split_counts,
)

from .test_mutation_report import (
    _X,
    _frame,
    _Holder,
    _ldp,
    _Learner,
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
