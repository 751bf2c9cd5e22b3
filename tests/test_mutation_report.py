"""``privacy_report`` behaviour that mutation testing found unchecked.

Each test builds a tiny fitted estimator (or, for a rule of the total row
that no estimator reaches alone, the rows of one) and asserts the exact
report rows and the exact total: the epsilons and deltas that compose, the
columns named in the notes, the raw and not certified channels; then the
row-wise rule for the steps before a privatizer (with its exact reasons)
and ``RowwiseTransformer`` as a transparent wrapper.  Most privatizers here
are ``_Stated``: a privatizer that releases its input unchanged and states
the guarantee it is given, so that a report's rows follow from the stated
figures alone.  The rows of one privatizer are tested in
``test_mutation_report_rows.py``, the walk over composites (and the
releases counted per record) in ``test_mutation_report_walker.py`` and
``test_mutation_report_searches.py``, the inspection helpers in
``test_mutation_report_inspect.py``, all with the helpers defined here.
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
from sklearn.base import BaseEstimator, RegressorMixin, TransformerMixin
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.ensemble import BaggingRegressor, StackingRegressor, VotingRegressor
from sklearn.exceptions import NotFittedError
from sklearn.frozen import FrozenEstimator
from sklearn.linear_model import Ridge
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import FeatureUnion, make_pipeline
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
    LaplaceLDP,
    RowwiseTransformer,
    privacy_report,
)
from skprivate._audit._result import NoExactLaw, WorstCase
from skprivate._privacy_report._certify import step_status
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


def _frame(n=8):
    return pd.DataFrame(_X(n=n, k=2), columns=["a", "b"])


def _y(n=8):
    return _X(n=n, k=1)[:, 0]


def _table(report):
    """(column, mechanism, epsilon, note) of every row but the total.

    A NaN epsilon (no finite budget) reads as None, so rows compare equal.
    """
    rows = report.iloc[:-1]
    epsilon = [None if np.isnan(e) else e for e in rows["epsilon"]]
    return list(
        zip(
            rows["column"],
            rows["mechanism"],
            epsilon,
            rows["note"],
            strict=True,
        )
    )


# the reasons a search's scores were computed from raw values
_SCORER_CODE = (
    "a scorer given as code, which receives the held-out records as given (raw)"
)


def _raw_response(name="y"):
    return f"the raw response {name} of the held-out records"


def _raw_inputs(names):
    return f"the model's predictions at the raw held-out inputs ({names})"


def _scores_note(search, *reasons):
    return (
        f"cv_results_ of {search} (with best_score_ and the choice of "
        f"best_params_) holds scores computed from {'; '.join(reasons)}: no "
        "guarantee covers them (a test fold of one record makes a split's "
        f"score a function of that record). A deployment ships the model "
        f"alone: privacy_report({search}.best_estimator_) states its guarantee"
    )


def _without_scores(report, *reasons):
    """``report`` without its row of a search's scores of raw values.

    The row must be there exactly once, without a guarantee, and make the
    total infinite; given ``reasons``, its note names exactly these, in
    order.  The rest of the report (and its ``attrs``) is returned as it is,
    total included, for the assertions the report held before that row.
    """
    found = report[report["column"] == "search scores"]
    assert len(found) == 1
    row = found.iloc[0]
    mechanism = row["mechanism"]
    assert mechanism.startswith("raw (") and mechanism.endswith(" scores)")
    search = mechanism[len("raw (") : -len(" scores)")]
    assert row["notion"] == "none (scores of raw values)"
    assert row["epsilon"] == np.inf and np.isnan(row["delta"])
    assert row["exact_disclosure"] == False  # noqa: E712 (numpy bool)
    head = _scores_note(search, "\0").split("\0")
    assert row["note"].startswith(head[0]) and row["note"].endswith(head[1])
    if reasons:
        assert row["note"] == _scores_note(search, *reasons)
    total = _total(report)
    assert total["epsilon"] == np.inf and np.isnan(total["delta"])
    note = total["note"]
    heads = note.removeprefix("no guarantee: ").split(";", 1)[0].split(" and ")
    assert note.startswith("no guarantee: ")
    assert "scores of raw values are kept" in heads
    assert "; computed from raw values (epsilon = inf): search scores" in note
    rest = report.drop(index=found.index).reset_index(drop=True)
    rest.attrs = dict(report.attrs)
    return rest


def _released_raw(how):
    return f"{how}; released raw"


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


class _Invertible(_Stated):
    def inverse_transform(self, X):
        return X


class _Holder:
    def __init__(self, **fitted):
        vars(self).update(fitted)


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


def test_the_refusal_says_what_the_estimator_without_privatizer_needs():
    # a learner of the package fitted without privatizer= takes its input as
    # released already: the refusal ends with the hint naming that learner
    with pytest.raises(
        ValueError,
        match=re.escape(
            "estimator holds no fitted privatizer, so whether its input was raw or "
            "already privatized cannot be told: expected a fitted privatizer or a "
            "composite, learner, ensemble or search holding one; got _Learner. "
            "_Learner was fitted without privatizer=, on data it takes as already "
            "privatized: report on the fitted privatizer that released them "
            "(privacy_report(privatizer)), or fit _Learner with privatizer= to "
            "simulate the release."
        )
        + "$",
    ):
        privacy_report(_Learner().fit(_X(), _y()))


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
        "exact_disclosure",
        "audited_epsilon",
        "audited_delta",
        "categories_from_data",
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


@pytest.mark.parametrize(
    "make",
    [
        lambda: _ldp(1.0),
        lambda: make_pipeline(_ldp(1.0), Ridge()),
        lambda: ColumnTransformer([("a", _ldp(1.0), [0])]),
        lambda: BaggingRegressor(make_pipeline(_ldp(1.0), Ridge()), n_estimators=2),
        lambda: StackingRegressor([("a", make_pipeline(_ldp(1.0), Ridge()))]),
        lambda: VotingRegressor([("a", make_pipeline(_ldp(1.0), Ridge()))]),
        lambda: TransformedTargetRegressor(regressor=make_pipeline(_ldp(1.0), Ridge())),
        lambda: GridSearchCV(make_pipeline(_ldp(1.0), Ridge()), {"ridge__alpha": [1]}),
    ],
    ids=[
        "privatizer",
        "pipeline",
        "column transformer",
        "bagging",
        "stacking",
        "voting",
        "target transform",
        "search",
    ],
)
def test_a_report_of_an_unfitted_estimator_is_refused_as_not_fitted(make):
    # every composite alike (an unfitted bagging, stacking or column
    # transformer failed with an AttributeError on a fitted member)
    estimator = make()
    with pytest.raises(NotFittedError) as info:
        privacy_report(estimator)
    assert str(info.value) == (
        "privacy_report reads what a fitted estimator released; this "
        f"{type(estimator).__name__} is not fitted. Fit it first (the report "
        "states the guarantees of the privatizers as fitted)."
    )
    assert info.value.__context__ is None
