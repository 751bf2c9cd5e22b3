"""What ``privacy_report`` reads of an estimator (splits, column specs,
members, what privatizes), as mutation testing found it unchecked.

Exact results of the inspection helpers of
``skprivate/_privacy_report/_inspect.py`` on small cases, and the reports
they shape: the releases one record gets over a search (the split where it
is most exposed, candidates that do not privatize, a search of one's own),
column specs given as a pandas Index, and the response and steps of
estimators whose tags cannot be read or do not require the response;
``benchmarks/_mutation_specs_report.py`` lists the mutants they kill.
"""

from __future__ import annotations

import re

import numpy as np
from sklearn.base import BaseEstimator, clone
from sklearn.compose import ColumnTransformer
from sklearn.cross_decomposition import PLSRegression
from sklearn.ensemble import VotingRegressor
from sklearn.feature_selection import RFE, RFECV, SelectFromModel
from sklearn.linear_model import LinearRegression, Ridge, RidgeCV
from sklearn.model_selection import (
    GridSearchCV,
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

from skprivate import (
    FrequencyEstimator,
    GeneralizedRandomizedResponse,
    LongitudinalFrequencyEstimator,
    LongitudinalOracle,
    SubsetDistributionEstimator,
    SubsetUniform,
    privacy_report,
)
from skprivate._privacy_report._inspect import (
    _Col,
    _estimators_in,
    _fitted_members,
    _input_cols,
    _is_estimator,
    _member_fits,
    _merged_marks,
    _param_members,
    _per_column,
    _privatizes,
    _resolve_columns,
    _selects_and_predicts,
    _spec_labels,
    _split_counts,
)

from .test_mutation_report import (
    _X,
    _frame,
    _Holder,
    _ldp,
    _Learner,
    _table,
    _total,
    _y,
)
from .test_mutation_report_walker import _density


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


# -- members held by parameters ------------------------------------------------
class _Members(BaseEstimator):
    """A meta-estimator of one's own holding a plain list of estimators."""

    def __init__(self, members=()):
        self.members = members

    def fit(self, X, y=None):
        return self


class _Wrapper(BaseEstimator):
    """Not a learner of the package, but its parameter is named privatizer."""

    def __init__(self, privatizer=None):
        self.privatizer = privatizer

    def fit(self, X, y=None):
        return self


class _Refitting(_Learner):
    """A learner of the package that also holds a regressor (named after
    ``privatizer``, so read after it)."""

    def __init__(self, privatizer=None, regressor=None):
        self.privatizer = privatizer
        self.regressor = regressor


def test_estimators_held_by_a_parameter_value():
    a, b = Ridge(), Ridge(alpha=2)
    assert _estimators_in([a, ("b", b), "drop", None]) == [a, b]
    assert _estimators_in(("a", a)) == [a]
    assert _estimators_in(a) == [a]
    # a class is no estimator, though it has fit and get_params
    assert _is_estimator(Ridge) is False
    assert _estimators_in([Ridge, a]) == [a]
    assert _estimators_in("passthrough") == []
    assert _estimators_in(None) == []


def test_what_privatizes_through_members_held_by_parameters():
    # a privatizer in a plain list of members privatizes on predict too
    assert _privatizes(_Members([Ridge(), _ldp(1.0)])) == (True, True)
    assert _privatizes(_Members([Ridge])) == (False, False)
    # a parameter named privatizer is skipped only for the package's learners
    assert _privatizes(_Wrapper(_ldp(1.0))) == (True, True)
    # the other members of a learner are read, before and after privatizer
    held = _Refitting(regressor=make_pipeline(_ldp(1.0), Ridge()))
    assert _privatizes(held) == (True, True)
    assert _privatizes(_Refitting(_ldp(1.0), Ridge())) == (True, False)


class _ReaderWithPost(LongitudinalFrequencyEstimator):
    """A reader of released reports that also holds an estimator, named
    after ``oracle`` (so read after it)."""

    def __init__(self, oracle=None, method="unbiased", post=None):
        super().__init__(oracle=oracle, method=method)
        self.post = post


def test_the_release_a_reader_reads_is_no_member_of_it():
    # oracle= and design= describe a release made elsewhere: they privatize
    # nothing in the estimator reading its reports
    grr = GeneralizedRandomizedResponse(epsilon=1.0, categories=[["A", "B"]])
    reader = FrequencyEstimator(oracle=grr)
    assert _param_members(reader) == []
    assert _privatizes(reader) == (False, False)
    subset = SubsetDistributionEstimator(design=SubsetUniform(categories=[["A"]]))
    assert _param_members(subset) == []
    assert _privatizes(subset) == (False, False)
    # only that parameter is skipped: the members held after it are read
    post = _ldp(1.0)
    held = _ReaderWithPost(oracle=LongitudinalOracle(waves=2), post=post)
    assert _param_members(held) == [post]
    assert _privatizes(held) == (True, True)


# -- splits and column specs: the remaining cases ------------------------------
def test_split_counts_of_predefined_splits_without_test_or_training_part():
    # no record is ever tested: each is in the training part of every split
    assert _split_counts(PredefinedSplit([-1, -1]), 0) == ([(0, 0)], True)
    # every record is tested in the single split
    assert _split_counts(PredefinedSplit([1, 1]), 1) == ([(0, 1)], True)


def test_explicit_splits_are_counted_as_integers():
    pairs, exact = _split_counts([([0, 1], [2, 3]), ([2, 3], [0, 1])], 2)
    assert (pairs, exact) == ([(1, 1)], True)
    assert all(type(v) is int for pair in pairs for v in pair)


def test_column_specs_without_a_column_count():
    assert _resolve_columns(2, None, None) == [2]
    assert _resolve_columns("b", None, ["a", "b"]) == [1]
    assert _resolve_columns(slice("a", None), None, ["a", "b"]) is None
    # an object array holds Python strings (a pandas Index, for one)
    spec = np.array(["c", "a"], dtype=object)
    assert _resolve_columns(spec, 3, ["a", "b", "c"]) == [2, 0]


def test_a_pandas_index_as_column_spec():
    df = _frame()
    ct = ColumnTransformer([("p", _ldp(1.0), df.columns[:1])], remainder="passthrough")
    report = privacy_report(ct.fit(df))
    assert list(report["column"]) == ["a", "b", "total"]
    np.testing.assert_array_equal(report["epsilon"], [1.0, np.inf, np.inf])
    assert report["note"].iloc[1] == (
        "remainder='passthrough' of ColumnTransformer; released raw"
    )


# -- steps and learners whose tags say what they use -----------------------------
class _Untagged:
    """A transformer without scikit-learn tags (no BaseEstimator)."""

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X

    def get_params(self, deep=True):
        return {}

    def set_params(self, **params):
        return self


def test_a_step_without_tags_is_taken_to_learn_from_records_and_response():
    ct = ColumnTransformer([("u", _Untagged(), [0])], remainder="passthrough")
    report = privacy_report(make_pipeline(ct, _ldp(1.0)).fit(_X(k=2), _y()))
    assert _table(report) == [
        ("x0", "_Stated", 1.0, ""),
        ("x1", "_Stated", 1.0, ""),
        (
            "y",
            "raw (response)",
            np.inf,
            "response used raw by _Untagged; its fitted state is computed from it",
        ),
        (
            "x0",
            "_Untagged",
            np.inf,
            "not certified: this step may let one record change other records' "
            "released values; _Untagged is fitted on the raw values: its fitted "
            "state may depend on every record",
        ),
    ]


def test_a_regressor_whose_tags_do_not_require_the_response_uses_it():
    # PLSRegression is a regressor whose target tags say y is not required
    pls = make_pipeline(_ldp(1.0), PLSRegression(n_components=1))
    report = privacy_report(pls.fit(_X(k=2), _y()))
    assert _table(report)[2] == (
        "y",
        "raw (response)",
        np.inf,
        "response used raw by PLSRegression; its fitted state is computed from it",
    )


# -- releases of one record over a search -----------------------------------
def _score(estimator, X, y=None):
    return estimator.score(X)


def _search_note(report):
    """How the total's note counts the releases of one record."""
    found = re.search(
        r"privatized up to \d+ times \((.*)\); a real", _total(report)["note"]
    )
    return found.group(1)


def test_releases_take_the_split_where_the_record_is_most_exposed():
    # records 4-7 are never tested (2 training folds); records 0-3 are in one
    # training fold and one held-out fold, scored twice: 1 + 2 > 2
    search = GridSearchCV(
        _density(1.0),
        {"kerneldensity__bandwidth": [1.0]},
        cv=PredefinedSplit([0, 0, 1, 1, -1, -1, -1, -1]),
        scoring={"s1": _score, "s2": _score},
        refit="s1",
    )
    report = privacy_report(search.fit(_frame()))
    assert report.attrs == {"releases_per_record": 4}
    assert _search_note(report) == (
        "1 candidates x 1 training folds + 1 candidates x 2 scorings of the "
        "held-out fold (transform privatizes it) + 1 refit"
    )


def test_releases_over_explicit_splits_are_whole_numbers():
    folds = [([0, 1, 2, 3], [4, 5, 6, 7]), ([4, 5, 6, 7], [0, 1, 2, 3])]
    search = GridSearchCV(_density(1.0), {"kerneldensity__bandwidth": [1.0]}, cv=folds)
    report = privacy_report(search.fit(_frame()))
    count = report.attrs["releases_per_record"]
    assert count == 3 and type(count) is int
    assert _search_note(report) == (
        "1 candidates x 1 training folds + 1 candidates x 1 scorings of the "
        "held-out fold (transform privatizes it) + 1 refit"
    )


class _Redrawn:
    """Splits that change each time they are read (the first read is the
    one the search used)."""

    def __init__(self):
        self.reads = 0

    def __iter__(self):
        self.reads += 1
        half, other = list(range(4)), list(range(4, 8))
        if self.reads == 1:
            return iter([(half, other), (other, half)])
        return iter([(half, other), (half, other)])


def test_splits_of_an_iterable_other_than_a_list_take_the_worst_case():
    search = GridSearchCV(
        _density(1.0), {"kerneldensity__bandwidth": [1.0]}, cv=_Redrawn()
    )
    report = privacy_report(search.fit(_frame()))
    assert report.attrs == {"releases_per_record": 3}
    assert _search_note(report) == (
        "1 candidates x 2 training folds + 1 refit; the worst case over any "
        "split of 2 splits"
    )


def test_candidates_that_do_not_privatize_count_no_release():
    # the candidate without privatizer is fitted too, but releases nothing;
    # both predict the same mean, so the first (privatizing) one is refitted
    search = GridSearchCV(
        _Learner(_ldp(1.0)), {"privatizer": [_ldp(1.0), None]}, cv=KFold(3)
    )
    report = privacy_report(search.fit(_frame(n=9), _y(n=9)))
    assert report.attrs == {"releases_per_record": 3}
    assert _search_note(report) == "1 candidates x 2 training folds + 1 refit"


def test_candidates_that_cannot_be_rebuilt_count_as_the_search_s_estimator():
    search = GridSearchCV(
        _Learner(_ldp(1.0)), {"privatizer": [_ldp(1.0), _ldp(2.0)]}, cv=KFold(3)
    ).fit(_frame(n=9), _y(n=9))
    # the estimator replaced after fit has no parameter privatizer
    search.estimator = _density(1.0)
    report = privacy_report(search)
    # each of the 2 candidates: 2 training folds + 1 held-out fold; + refit
    assert report.attrs == {"releases_per_record": 7}


class _OwnSearch(BaseEstimator):
    """A search of one's own: it keeps cv_results_ and n_splits_ only (no
    scorer settings)."""

    def __init__(self, estimator=None, cv=None):
        self.estimator = estimator
        self.cv = cv

    def fit(self, X, y=None):
        self.best_estimator_ = clone(self.estimator).fit(X, y)
        self.cv_results_ = {"params": [{}]}
        self.n_splits_ = 2
        return self


def test_a_search_without_scorer_settings_scores_once_without_train_scores():
    report = privacy_report(_OwnSearch(_density(1.0)).fit(_frame()))
    assert report.attrs == {"releases_per_record": 3}
    assert _search_note(report) == (
        "1 candidates x 1 training folds + 1 candidates x 1 scorings of the "
        "held-out fold (transform privatizes it) + 1 refit"
    )


def test_a_model_that_stores_cross_validation_results_is_no_search():
    # RidgeCV keeps cv_results_ (no n_splits_): its rows, no release count
    pipe = make_pipeline(_ldp(1.0), RidgeCV(store_cv_results=True))
    report = privacy_report(pipe.fit(_X(k=2), _y()))
    assert report.attrs == {}
    assert list(report["column"]) == ["x0", "x1", "y", "total"]


_RFE_REASON = (
    "4 fits by RFE: one per elimination round, on the columns still kept, "
    "and one on the columns selected"
)
_UNREAD = (
    "fits clones of its estimator a number of times privacy_report cannot "
    "read from it, each fit privatizing again"
)


def _fitted_rfe(cls=RFE, **kwargs):
    rng = np.random.default_rng(0)
    X = rng.uniform(size=(40, 4))
    y = X @ np.array([0.1, 0.5, 1.0, 2.0])
    return cls(LinearRegression(), **kwargs).fit(X, y)


def test_rfe_fits_its_estimator_max_ranking_times():
    """Fitted RFE: max(ranking_) fits; as parameters, RFECV or unfitted: unknown."""
    rfe = _fitted_rfe(n_features_to_select=1)
    assert rfe.ranking_.max() == 4
    assert _member_fits(rfe, static=False) == (4, _RFE_REASON)
    assert _member_fits(rfe, static=True) == (None, f"RFE {_UNREAD}")
    assert _member_fits(RFE(LinearRegression()), static=False) == (
        None,
        f"RFE {_UNREAD}",
    )
    rfecv = _fitted_rfe(RFECV, cv=2)
    assert _member_fits(rfecv, static=False) == (None, f"RFECV {_UNREAD}")
    assert _member_fits(VotingRegressor([("r", Ridge())]), static=False) == (
        None,
        f"VotingRegressor {_UNREAD}",
    )


def test_rfe_with_an_empty_ranking_reads_as_unknown():
    """A ranking with no entry tells no count: unknown, not an error."""
    rfe = RFE(LinearRegression())
    rfe.ranking_ = np.array([], dtype=int)
    assert _member_fits(rfe, static=False)[0] is None


def test_merged_marks_keep_the_first_mixing_step_of_a_raw_column():
    """Columns not traced one to one: raw if any input is, and its mixing mark."""
    mixed = ("PCA", "fitted on every record")
    private = _Col("p", raw=False, mixed_by=("Other", "ignored"))
    assert _merged_marks([]) == {"raw": True}
    assert _merged_marks([private]) == {"raw": False, "mixed_by": None}
    assert _merged_marks([private, _Col("a"), _Col("b", mixed_by=mixed)]) == {
        "raw": True,
        "mixed_by": mixed,
    }
    first = ("StandardScaler", "first")
    assert _merged_marks([_Col("a", mixed_by=first), _Col("b", mixed_by=mixed)]) == {
        "raw": True,
        "mixed_by": first,
    }


def test_only_a_selector_that_predicts_changes_output_by_its_role():
    """RFE selects and predicts; SelectFromModel only selects; a model predicts."""
    assert _selects_and_predicts(RFE(LinearRegression()))
    assert _selects_and_predicts(RFECV(LinearRegression()))
    assert not _selects_and_predicts(SelectFromModel(LinearRegression()))
    assert not _selects_and_predicts(LinearRegression())


# -- columns that a node does not map one to one --------------------------------
def test_spread_columns_carry_the_marks_of_all_their_inputs():
    from skprivate._privacy_report._inspect import _Col, _spread

    cols = [
        _Col("a", via=None, flagged=True),
        _Col("b", raw=False),
        _Col("c", via=("V", "how"), mixed_by=("M", "why")),
        _Col("a", via=("W", "other"), flagged=True),
    ]
    out = _spread(cols, 3)
    assert len(out) == 3 and len({id(c) for c in out}) == 3
    for c in out:
        assert (c.name, c.sources) == ("a, c", ("a", "c"))
        assert c.raw and c.merged and not c.prediction
        assert c.via == ("V", "how")  # the first raw input that has one
        assert c.mixed_by == ("M", "why")
        assert c.flagged is False  # "c" was not flagged yet
    # every raw input flagged: so is the spread column
    (done,) = _spread([_Col("a", flagged=True), _Col("b", raw=False)], 1)
    assert done.flagged is True and done.name == "a"
    # no raw input: named after all, never raw, no channel
    (private,) = _spread(
        [_Col("b", raw=False), _Col("d", raw=False, sources=("x", "y"))], 1
    )
    assert (private.name, private.sources) == ("b, x, y", ("b", "x", "y"))
    assert not private.raw and private.via is None and private.flagged is False
    # a channel given for the step names it, for raw outputs only
    step = ("PCA", "mixes")
    (given,) = _spread([_Col("a", via=("V", "how"))], 1, step)
    assert given.via == step
    (none,) = _spread([_Col("b", raw=False)], 1, step)
    assert none.via is None
    # nothing fed: one raw column named X
    (empty,) = _spread([], 1)
    assert (empty.name, empty.raw, empty.prediction) == ("X", True, False)
    # predictions stay predictions only when all inputs are
    preds = [_Col("p", prediction=True), _Col("q", prediction=True)]
    assert _spread(preds, 1)[0].prediction is True
    assert _spread([*preds, _Col("r")], 1)[0].prediction is False


class _FitNeedsNoY(BaseEstimator):
    """A regressor whose fit does not require y (it is still supervised)."""

    _estimator_type = "regressor"

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.estimator_type = "regressor"
        tags.target_tags.required = False
        return tags

    def fit(self, X, y=None):
        return self

    def predict(self, X):
        return np.zeros(len(X))


class _Unreadable:
    """A callable whose signature cannot be read."""

    @property
    def __signature__(self):
        raise ValueError("no signature")

    def __call__(self, *args, **kwargs):
        return None


class _NoSignature(BaseEstimator):
    fit = _Unreadable()

    def transform(self, X):
        return X


class _Wrapper(BaseEstimator):
    def __init__(self, estimator=None):
        self.estimator = estimator

    def fit(self, X, y=None):
        return self

    def transform(self, X):
        return X


def test_uses_y_of_the_steps_whose_tags_do_not_say():
    from sklearn.preprocessing import StandardScaler

    from skprivate._privacy_report._inspect import _uses_y

    assert _uses_y(_FitNeedsNoY()) is True
    assert _uses_y(_NoSignature()) is True
    assert _uses_y(_Wrapper(LinearRegression())) is True
    assert _uses_y(_Wrapper(StandardScaler())) is False
    assert _uses_y(_Wrapper("passthrough")) is False
    assert _uses_y(_Wrapper()) is False
    assert _uses_y(StandardScaler()) is False


class _NeedsY(BaseEstimator):
    def fit(self, X, y):
        return self

    def transform(self, X):
        return X


class _NoY(BaseEstimator):
    def fit(self, X):
        return self

    def transform(self, X):
        return X


def test_uses_y_reads_whether_fit_needs_y():
    from skprivate._privacy_report._inspect import _uses_y

    assert _uses_y(_NeedsY()) is True
    assert _uses_y(_NoY()) is False
