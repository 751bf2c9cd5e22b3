"""What an estimator is made of: members, columns, splits and privatizers."""

from __future__ import annotations

import inspect
import numbers
from dataclasses import dataclass
from typing import Any

import numpy as np
from sklearn import get_config
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.compose import ColumnTransformer
from sklearn.cross_decomposition import PLSSVD
from sklearn.ensemble import (
    VotingClassifier,
    VotingRegressor,
)
from sklearn.feature_selection import (
    RFE,
    RFECV,
    SelectFromModel,
    SelectorMixin,
    VarianceThreshold,
)
from sklearn.impute import SimpleImputer
from sklearn.model_selection import (
    GroupKFold,
    KFold,
    LeaveOneGroupOut,
    LeaveOneOut,
    PredefinedSplit,
    RepeatedKFold,
    RepeatedStratifiedKFold,
    StratifiedGroupKFold,
    StratifiedKFold,
)
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
from sklearn.multioutput import (
    ClassifierChain,
    MultiOutputClassifier,
    MultiOutputRegressor,
    RegressorChain,
)
from sklearn.preprocessing import (
    Binarizer,
    FunctionTransformer,
    MaxAbsScaler,
    MinMaxScaler,
    PowerTransformer,
    QuantileTransformer,
    RobustScaler,
    StandardScaler,
    TargetEncoder,
)
from sklearn.utils import get_tags
from sklearn.utils.validation import has_fit_parameter

from ..base import PrivatizedInputMixin, PrivatizerMixin
from ..ldp import DeconvolutionKernelClassifier, DeconvolutionKernelRegressor
from ._released import reader_param

_COLUMNS = [
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
    # appended later; existing callers keep the order above
    "coverage_reference",
    "exact_disclosure",
    "audited_epsilon",
    "audited_delta",
    "categories_from_data",
]

_PASSTHROUGH = "raw (passthrough)"
_COVERAGE_REASON = (
    "some columns have a coverage notion (interval or subset privacy) without "
    "an epsilon"
)
# Learners whose fitted object keeps the raw response (read from their fit:
# the kernel sums are stored with the responses, or their class indicators).
_STORES_RAW_RESPONSE = (DeconvolutionKernelRegressor, DeconvolutionKernelClassifier)
# Meta-estimators whose fitted members each saw every record at most once.
_ONE_FIT_PER_MEMBER = (
    SelectFromModel,
    VotingRegressor,
    VotingClassifier,
    MultiOutputRegressor,
    MultiOutputClassifier,
    RegressorChain,
    ClassifierChain,
    OneVsRestClassifier,
    OneVsOneClassifier,
)
# Splitters that put every record in the test part of exactly one split.
_PARTITIONS = (
    KFold,
    StratifiedKFold,
    GroupKFold,
    StratifiedGroupKFold,
    LeaveOneOut,
    LeaveOneGroupOut,
)


@dataclass(frozen=True)
class _Col:
    """One column fed to a node, traced back to the record's columns."""

    name: str
    raw: bool = True
    # (mechanism label, description) of the channel that let it through raw
    via: tuple[str, str] | None = None
    flagged: bool = False  # already reported as a raw channel
    prediction: bool = False  # a learner's prediction, not a record column
    # (step label, reason) of the first step that may have mixed records
    # into this column: refused when the column reaches a privatizer
    mixed_by: tuple[str, str] | None = None
    # one of the columns of a node that does not map its inputs one to one
    # (see _spread): named after the record columns it may carry, and a
    # privatizer fed it names its rows by its own input names instead
    merged: bool = False
    # the record columns a merged column may carry (flagged one by one)
    sources: tuple[str, ...] = ()
    # a prediction's raw input columns, each once
    inputs: tuple[str, ...] = ()


def _merged_marks(cols: list[_Col]) -> dict:
    """Marks for columns that cannot be traced one to one to ``cols``.

    Each such column may come from any of ``cols``: it is raw when one of
    them is, and carries the first record-mixing step among them (a
    privatizer it reaches is then not certified).
    """
    if not cols:
        return {"raw": True}
    raw = [c for c in cols if c.raw]
    mixed = next((c.mixed_by for c in raw if c.mixed_by is not None), None)
    return {"raw": bool(raw), "mixed_by": mixed}


def _spread(
    cols: list[_Col], width: int, via: tuple[str, str] | None = None
) -> list[_Col]:
    """``width`` columns, each of which may come from any of ``cols``.

    The output of a node that does not map its input columns one to one
    (a one-hot encoder, a projection, a step that mixes columns): each
    output column is raw when an input is, and is named after the record
    columns it may carry raw (all of them when none is raw), so that a
    later selection by position or name never credits it to one column.
    """
    raw = [c for c in cols if c.raw]
    sources = tuple(
        dict.fromkeys(name for c in (raw or cols) for name in (c.sources or (c.name,)))
    )
    name = ", ".join(sources) or "X"
    if via is None:
        via = next((c.via for c in raw if c.via is not None), None)
    return [
        _Col(
            name,
            via=via if raw else None,
            flagged=bool(raw) and all(c.flagged for c in raw),
            prediction=bool(cols) and all(c.prediction for c in cols),
            merged=True,
            sources=sources,
            **_merged_marks(cols),
        )
        for _ in range(width)
    ]


def _output_width(est: Any) -> int | None:
    """The number of columns a fitted transformer outputs (None: unknown)."""
    try:
        return len(est.get_feature_names_out())
    except Exception:  # no feature names (unfitted, or not implemented)
        return None


# Transformers whose every output column is a function of one input column
# of the same place: they never mix a raw column into a privatized one.
_COLUMNWISE = (
    StandardScaler,
    MinMaxScaler,
    MaxAbsScaler,
    RobustScaler,
    QuantileTransformer,
    PowerTransformer,
    Binarizer,
    SimpleImputer,
)


def _selects_and_predicts(est: Any) -> bool:
    """A feature selector that also predicts (RFE): its role sets its output."""
    return isinstance(est, SelectorMixin) and hasattr(est, "predict")


def _member_fits(est: Any, static: bool) -> tuple[int | None, str]:
    """Fits of a meta-estimator's member per record, and why (None: unknown).

    Each fit of a member that holds a privatizer privatizes every record
    again.  RFE fits its estimator once per elimination round and once
    more on the columns kept: ``max(ranking_)`` fits in all.  For other
    meta-estimators the number is not known from their fitted state.
    """
    name = type(est).__name__
    if isinstance(est, RFE) and not isinstance(est, RFECV) and not static:
        ranking = _attr(est, "ranking_")
        if ranking is not None and np.size(ranking):
            fits = int(np.max(ranking))
            return fits, (
                f"{fits} fits by {name}: one per elimination round, on the "
                "columns still kept, and one on the columns selected"
            )
    return None, (
        f"{name} fits clones of its estimator a number of times privacy_report "
        "cannot read from it, each fit privatizing again"
    )


def _per_column(value: Any, n: int, default: Any = np.nan) -> list:
    if value is None:
        return [default] * n
    if np.ndim(value) == 0:
        return [value] * n
    values = list(value)
    if len(values) != n:
        return [default] * n
    return values


def _join(*parts: Any) -> str:
    return "; ".join(str(p) for p in parts if p)


def _attr(obj: Any, name: str) -> Any:
    try:
        return getattr(obj, name)
    except Exception:  # properties of unfitted estimators raise
        return None


def _is_estimator(obj: Any) -> bool:
    return (
        not isinstance(obj, type) and hasattr(obj, "fit") and hasattr(obj, "get_params")
    )


def _is_identity(transformer: Any) -> bool:
    """A ``FunctionTransformer`` without ``func``: what ``"passthrough"`` becomes."""
    return isinstance(transformer, FunctionTransformer) and transformer.func is None


def _is_search(est: Any) -> bool:
    return hasattr(est, "cv_results_") and hasattr(est, "n_splits_")


def _stated_tags(est: Any) -> Any:
    """``est``'s scikit-learn tags, or None when it states none.

    An object without ``__sklearn_tags__`` states nothing: scikit-learn 1.7
    and later refuse to read its tags, but 1.6 returns default tags (the
    response not required, fitting required), which would be taken as a
    statement the object never made.
    """
    if not hasattr(est, "__sklearn_tags__"):
        return None
    try:
        return get_tags(est)
    except Exception:
        return None


# Transformers fitted on y whose fit signature may not say so (PLSSVD's y
# has a default in scikit-learn 1.6, though the fit needs it).
_SUPERVISED_TRANSFORMERS = (PLSSVD, TargetEncoder)


def _uses_y(est: Any) -> bool:
    """Whether fitting ``est`` may read the response.

    An estimator whose scikit-learn tags cannot be read (one without
    ``__sklearn_tags__``; ``is_regressor`` reads the tags too) may read it.
    """
    tags = _stated_tags(est)
    if tags is None:
        return True
    if is_regressor(est) or is_classifier(est) or bool(tags.target_tags.required):
        return True
    # supervised steps whose tags do not say so: a feature selector ranks
    # the columns by their relation to y (SelectKBest, SelectFromModel, ...;
    # not VarianceThreshold), a step whose fit has no default for y needs
    # it (PLSSVD, TargetEncoder), and a wrapper fits its estimator on y
    if isinstance(est, SelectorMixin) and not isinstance(est, VarianceThreshold):
        return True
    if isinstance(est, _SUPERVISED_TRANSFORMERS):
        return True
    try:
        y = inspect.signature(type(est).fit).parameters.get("y")
    except (TypeError, ValueError, AttributeError):
        return True
    if y is not None and y.default is inspect.Parameter.empty:
        return True
    inner = getattr(est, "estimator", None)
    return _is_estimator(inner) and _uses_y(inner)


def _requires_fit(est: Any) -> bool:
    tags = _stated_tags(est)
    return True if tags is None else bool(tags.requires_fit)


def _estimators_in(value: Any) -> list:
    """Estimators held by a parameter value (an estimator, or a list of them
    or of ``(name, estimator[, columns])`` tuples)."""
    if isinstance(value, str) or value is None:
        return []
    if _is_estimator(value):
        return [value]
    if isinstance(value, list | tuple):
        found = []
        for item in value:
            if _is_estimator(item):
                found.append(item)
            elif isinstance(item, tuple):
                found += [e for e in item if _is_estimator(e)]
        return found
    return []


def _param_members(est: Any) -> list:
    """The sub-estimators among the constructor parameters of ``est``."""
    if not hasattr(est, "get_params"):
        return []
    members = []
    # the privatizer that released the reports an estimator reads (oracle=,
    # design=) privatizes nothing in it: the walker reads it as that release
    released = reader_param(est)
    for key, value in est.get_params(deep=False).items():
        if key == "privatizer" and isinstance(est, PrivatizedInputMixin):
            continue
        if key == released:
            continue
        members += _estimators_in(value)
    return members


def _privatizes(est: Any) -> tuple[bool, bool]:
    """Whether ``est`` privatizes in ``fit`` and when transforming or predicting.

    Read from the parameters, so it holds for unfitted clones: a privatizer
    (a step, a branch) privatizes in both; a learner's ``privatizer=`` only in
    ``fit`` (every learner of the package takes clean inputs to predict and
    score).
    """
    if isinstance(est, str) or est is None:
        return False, False
    if isinstance(est, PrivatizerMixin):
        return True, True
    in_fit = (
        isinstance(est, PrivatizedInputMixin) and _attr(est, "privatizer") is not None
    )
    on_predict = False
    for member in _param_members(est):
        fit, predict = _privatizes(member)
        in_fit |= fit
        on_predict |= predict
    return in_fit, on_predict


def _fitted_members(est: Any) -> list:
    members = _attr(est, "estimators_")
    if members is not None:
        flat: list = []
        stack = [members]
        while stack:
            item = stack.pop()
            if isinstance(item, list | tuple | np.ndarray):
                stack += list(item)[::-1]
            elif _is_estimator(item):
                flat.append(item)
        return flat
    for name in ("estimator_", "regressor_", "classifier_"):
        member = _attr(est, name)
        if _is_estimator(member):
            return [member]
    named = _attr(est, "named_estimators_")
    if named is not None:
        return [m for m in named.values() if _is_estimator(m)]
    return []


def _resolve_columns(spec: Any, n: int | None, names: Any) -> list[int] | None:
    """Integer positions of a resolved ``ColumnTransformer`` column spec."""
    names = None if names is None else [str(c) for c in names]

    def position(key: Any) -> int | None:
        if isinstance(key, str):
            return names.index(key) if names is not None and key in names else None
        if isinstance(key, numbers.Integral) and not isinstance(key, bool):
            return int(key) % n if n else int(key)
        return None

    if callable(spec):
        return None
    if isinstance(spec, str | numbers.Integral) and not isinstance(spec, bool):
        found = position(spec)
        return None if found is None else [found]
    if isinstance(spec, slice):
        if isinstance(spec.start, str) or isinstance(spec.stop, str):
            start = 0 if spec.start is None else position(spec.start)
            stop = (n - 1 if n else None) if spec.stop is None else position(spec.stop)
            if start is None or stop is None:
                return None
            return list(range(start, stop + 1))  # label slices include the stop
        return list(range(n))[spec] if n else None
    values = np.asarray(spec)
    if values.size == 0:
        return []
    if values.dtype == bool:
        return [int(i) for i in np.flatnonzero(values)] if values.size == n else None
    found = [position(v.item() if hasattr(v, "item") else v) for v in values.ravel()]
    return None if any(f is None for f in found) else found


def _spec_labels(name: str, spec: Any) -> list[str]:
    """Column labels read from a column spec alone (no fitted state)."""
    if isinstance(spec, str | numbers.Integral) and not isinstance(spec, bool):
        return [str(spec)]
    if isinstance(spec, list | tuple | np.ndarray):
        values = np.asarray(spec)
        if values.dtype == bool:
            return [str(i) for i in np.flatnonzero(values)]
        return [str(v) for v in values.ravel()]
    return [f"columns of '{name}'"]


def _split_counts(cv: Any, n_splits: int) -> tuple[list[tuple[int, int]], bool]:
    """Possible (training, test) appearances of one record over the splits.

    Returns the pairs and whether they are exact (known partitions, explicit
    splits) or every possibility (any other splitter: an upper bound).
    """
    if cv is None or (isinstance(cv, numbers.Integral) and not isinstance(cv, bool)):
        return [(n_splits - 1, 1)], True
    if isinstance(cv, _PARTITIONS):
        return [(n_splits - 1, 1)], True
    if isinstance(cv, RepeatedKFold | RepeatedStratifiedKFold):
        r = int(cv.n_repeats)
        return [(n_splits - r, r)], True
    if isinstance(cv, PredefinedSplit):
        pairs = {(n_splits - 1, 1)} if np.any(cv.test_fold != -1) else set()
        if np.any(cv.test_fold == -1):
            pairs.add((n_splits, 0))
        return sorted(pairs), True
    if isinstance(cv, list | tuple) and cv:
        try:
            folds = [(np.asarray(tr), np.asarray(te)) for tr, te in cv]
            size = 1 + max(int(max(tr.max(), te.max())) for tr, te in folds)
            train, test = np.zeros(size, int), np.zeros(size, int)
            for tr, te in folds:
                np.add.at(train, tr, 1)
                np.add.at(test, te, 1)
            return sorted(set(zip(train.tolist(), test.tolist(), strict=True))), True
        except Exception:
            pass
    return [(n_splits - t, t) for t in range(n_splits + 1)], False


def _consumes_sample_weight(est: Any) -> bool:
    """Whether a bagging ensemble fits ``est`` on all rows with weights."""
    if get_config().get("enable_metadata_routing", False):
        try:
            request = est.get_metadata_routing()
            return "sample_weight" in request.consumes("fit", ("sample_weight",))
        except Exception:
            return False
    return has_fit_parameter(est, "sample_weight")


def _search_releases(s: Any, best: Any) -> tuple[int, str]:
    """How many times a search privatized each record (worst record)."""
    params = list(s.cv_results_["params"])
    flags = []
    for p in params:
        try:
            flags.append(_privatizes(clone(s.estimator).set_params(**p)))
        except Exception:
            flags.append(_privatizes(s.estimator))
    n_splits = int(s.n_splits_)
    pairs, exact = _split_counts(s.cv, n_splits)
    scorers = len(s.scorer_) if getattr(s, "multimetric_", False) else 1
    train_scores = bool(getattr(s, "return_train_score", False))

    def per_record(train: int, test: int) -> int:
        total = 0
        for in_fit, on_predict in flags:
            total += in_fit * train
            total += on_predict * scorers * (test + train_scores * train)
        return total

    train, test = max(pairs, key=lambda pair: per_record(*pair))
    refit = int(best is not None and _privatizes(best)[0])
    count = per_record(train, test) + refit
    if count == 0:
        return 0, ""
    n_fit = sum(f for f, _ in flags)
    n_predict = sum(p for _, p in flags)
    parts = [f"{n_fit} candidates x {train} training folds"]
    if n_predict and test:
        parts.append(
            f"{n_predict} candidates x {test * scorers} scorings of the "
            "held-out fold (transform privatizes it)"
        )
    if n_predict and train_scores and train:
        parts.append(f"{n_predict} candidates x {train * scorers} training scores")
    if refit:
        parts.append("1 refit")
    how = " + ".join(parts)
    if not exact:
        how += f"; the worst case over any split of {n_splits} splits"
    return count, how


def _named_scoring(scoring: Any) -> bool:
    """Whether a search scores with scikit-learn's scorers named by strings.

    ``None`` (the estimator's ``score``), a string, or a list, tuple, set or
    dict of strings.  Anything else is code of the caller's, which receives
    the held-out records as given.
    """
    if scoring is None or isinstance(scoring, str):
        return True
    values = scoring.values() if isinstance(scoring, dict) else scoring
    if isinstance(scoring, dict | list | tuple | set):
        return all(isinstance(v, str) for v in values)
    return False


def _raw_in_scores(s: Any, outs: list[list[_Col]], y: _Col | None) -> list[str]:
    """The raw values the scores of the fitted search ``s`` were computed from.

    ``outs`` are the walked outputs of the model (or of every candidate,
    with ``refit=False``): a raw prediction column means the model predicts
    at raw inputs, so scoring the held-out fold evaluates it at the raw
    records.  A scorer compares the predictions with the response as given
    whenever a metric is named (``scoring`` a string, or strings) or the
    estimator's own ``score`` is a regressor's or classifier's.  Empty when
    the scores are post-processing of privatized values only.
    """
    scoring = getattr(s, "scoring", None)
    named = _named_scoring(scoring)
    found = []
    if not named:
        found.append(
            "a scorer given as code, which receives the held-out records as given (raw)"
        )
    estimator = s.estimator
    # a named metric compares with y; the estimator's score does when it is
    # a regressor's or a classifier's (code's reading is named above)
    reads_y = (named and scoring is not None) or (
        is_regressor(estimator) or is_classifier(estimator)
    )
    if y is not None and y.raw and reads_y:
        found.append(f"the raw response {y.name} of the held-out records")
    inputs = list(
        dict.fromkeys(
            name
            for out in outs
            for c in out
            if c.prediction and c.raw
            for name in c.inputs or (c.name,)
        )
    )
    if inputs:
        found.append(
            f"the model's predictions at the raw held-out inputs ({', '.join(inputs)})"
        )
    return found


def _input_cols(est: Any) -> list[_Col]:
    names = _attr(est, "feature_names_in_")
    if names is not None:
        return [_Col(str(c)) for c in names]
    n = _attr(est, "n_features_in_")
    if n is None:
        return [_Col("X")]
    if isinstance(est, ColumnTransformer):
        return [_Col(str(i)) for i in range(int(n))]
    return [_Col(f"x{i}") for i in range(int(n))]
