"""``privacy_report``: the privacy guarantee of a fitted estimator, column by column."""

from __future__ import annotations

import numbers
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
import pandas as pd
from sklearn import get_config
from sklearn.base import clone, is_classifier, is_regressor
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.ensemble import (
    BaggingClassifier,
    BaggingRegressor,
    StackingClassifier,
    StackingRegressor,
    VotingClassifier,
    VotingRegressor,
)
from sklearn.linear_model import LinearRegression, LogisticRegression, RidgeCV
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
    check_cv,
)
from sklearn.multiclass import OneVsOneClassifier, OneVsRestClassifier
from sklearn.multioutput import (
    ClassifierChain,
    MultiOutputClassifier,
    MultiOutputRegressor,
    RegressorChain,
)
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor
from sklearn.utils import get_tags
from sklearn.utils.validation import has_fit_parameter

from .base import PrivatizedInputMixin, PrivatizerMixin
from .interval import IterativeIntervalRegressor
from .ldp import DeconvolutionKernelClassifier, DeconvolutionKernelRegressor

__all__ = ["privacy_report"]

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


def _uses_y(est: Any) -> bool:
    try:
        required = bool(get_tags(est).target_tags.required)
    except Exception:
        required = False
    return is_regressor(est) or is_classifier(est) or required


def _requires_fit(est: Any) -> bool:
    try:
        return bool(get_tags(est).requires_fit)
    except Exception:
        return True


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
    for key, value in est.get_params(deep=False).items():
        if key == "privatizer" and isinstance(est, PrivatizedInputMixin):
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


def _rows_of_privatizer(privatizer: Any, names: list[str]) -> list[dict]:
    rows = _guarantee_rows(privatizer, names)
    # seeded noise is for simulation, not for release
    seeded = getattr(privatizer, "_is_seeded", None)
    for row in rows:
        row["reproducible"] = bool(seeded()) if callable(seeded) else np.nan
    return rows


def _guarantee_rows(privatizer: Any, names: list[str]) -> list[dict]:
    summary = privatizer.privacy_summary()
    n = len(names)
    mechanism = type(privatizer).__name__
    notion = summary.get("notion", "")
    low, high = summary.get("bounds", (None, None))
    lows, highs = _per_column(low, n, None), _per_column(high, n, None)
    from_data = summary.get("bounds_from_data", np.nan)
    safe = summary.get("floating_point_safe", np.nan)
    rows = []
    if "columns" in summary:  # subset privacy: one entry per column
        for name, entry in zip(names, summary["columns"], strict=False):
            leak = entry.get("leakage")
            rows.append(
                {
                    "column": name,
                    "mechanism": mechanism,
                    "notion": notion,
                    "coverage": entry.get("min_coverage"),
                    "leakage": leak,
                    "note": "min_coverage: lower bound of the coverage of the "
                    "released subset; no epsilon",
                    "_nan_reason": _COVERAGE_REASON,
                }
            )
        return rows
    if "epsilon_per_feature" in summary:
        eps = _per_column(summary["epsilon_per_feature"], n)
        delta = _per_column(summary.get("delta_per_feature", 0.0), n)
        note = summary.get("condition", "")
        for j, name in enumerate(names):
            rows.append(
                {
                    "column": name,
                    "mechanism": mechanism,
                    "notion": notion,
                    "epsilon": float(eps[j]),
                    "delta": float(delta[j]),
                    "bounds": None
                    if lows[j] is None
                    else (float(lows[j]), float(highs[j])),
                    "bounds_from_data": from_data,
                    "floating_point_safe": safe,
                    "note": note,
                }
            )
        return rows
    coverage = _per_column(summary.get("coverage"), n)
    leakage = _per_column(summary.get("leakage"), n)
    for j, name in enumerate(names):
        rows.append(
            {
                "column": name,
                "mechanism": mechanism,
                "notion": notion,
                "coverage": coverage[j],
                "leakage": leakage[j],
                "note": "coverage as in the mechanism's paper; no epsilon",
                "_nan_reason": _COVERAGE_REASON,
            }
        )
    return rows


def _static_rows(privatizer: Any, label: str) -> list[dict]:
    """One row per unfitted privatizer, read from its ``epsilon`` parameter."""
    params = privatizer.get_params(deep=False)
    eps = params.get("epsilon")
    row = {"column": label, "mechanism": type(privatizer).__name__, "notion": ""}
    if isinstance(eps, numbers.Real) and not isinstance(eps, bool):
        delta = params.get("delta", 0.0)
        row.update(
            epsilon=float(eps),
            delta=float(delta) if isinstance(delta, numbers.Real) else np.nan,
            note="read from the epsilon parameter (the guarantee of one record "
            "over all the columns it privatizes)",
        )
    else:
        row.update(
            note="no epsilon parameter: its guarantee needs the fitted privatizer",
            _nan_reason="some privatizers state their guarantee only once fitted",
        )
    return [row]


def _scale(rows: list[dict], factor: Callable[[dict], Any], reason: str) -> list:
    """Multiply the budget of each row by its number of releases per record."""
    kept = []
    for row in rows:
        k = factor(row)
        if k == 0:
            continue
        if k is None:
            row["epsilon"] = np.nan
            row["delta"] = np.nan
            row["_nan_reason"] = f"an unknown number of releases ({reason})"
            row["note"] = _join(
                row.get("note"),
                f"released an unknown number of times per record: {reason}",
            )
        elif k != 1:
            for key in ("epsilon", "delta"):
                if row.get(key) is not None:
                    row[key] = row[key] * k
            row["note"] = _join(
                row.get("note"), f"privatized {k} times per record: {reason}"
            )
        kept.append(row)
    return kept


class _Walker:
    """Walk a (fitted, or with ``static=True`` unfitted) estimator's structure.

    Privatizer rows go to ``rows``; every column that reaches the output or a
    fitted state without a privatizer goes to ``raw`` once, keyed by name.
    """

    def __init__(self, static: bool = False) -> None:
        self.static = static
        self.rows: list[dict] = []
        self.raw: dict[str, dict] = {}
        self.n_privatizers = 0
        self.releases: list[tuple[int, str]] = []

    # -- bookkeeping -----------------------------------------------------
    def sub(self, walk: Callable[[], Any]) -> tuple[list[dict], Any]:
        saved, self.rows = self.rows, []
        try:
            out = walk()
        finally:
            rows, self.rows = self.rows, saved
        return rows, out

    def flag(self, name: str, mechanism: str, note: str) -> None:
        row = self.raw.get(name)
        if row is not None:
            if note not in row["note"]:
                row["note"] = _join(row["note"], note)
            return
        self.raw[name] = {
            "column": name,
            "mechanism": mechanism,
            "notion": "none (raw)",
            "epsilon": np.inf,
            "note": note,
        }

    def flag_col(self, col: _Col, consumer: str | None) -> None:
        label, how = col.via if col.via else ("", "")
        if consumer is None:
            note = _join(how, "released raw")
        elif how:
            note = _join(how, f"used raw by {consumer}")
        else:
            note = f"used raw by {consumer} (its fitted state is computed from it)"
        self.flag(col.name, label or consumer or _PASSTHROUGH, note)

    def flag_y(self, est: Any, y: _Col) -> None:
        name = type(est).__name__
        stored = (
            "stored in the fitted model (and its pickle)"
            if isinstance(est, _STORES_RAW_RESPONSE)
            else "its fitted state is computed from it"
        )
        self.flag(y.name, "raw (response)", f"response used raw by {name}; {stored}")

    # -- the walk --------------------------------------------------------
    def walk(self, est: Any, cols: list[_Col], y: _Col | None) -> list[_Col]:
        if est is None or (isinstance(est, str) and est == "drop"):
            return []
        if isinstance(est, str) and est == "passthrough":
            return self.passthrough(cols, "passthrough")
        if not self.static and _is_search(est):
            return self.search(est, cols, y)
        if isinstance(est, PrivatizerMixin):
            return self.privatizer(est, cols, "transform")
        if isinstance(est, Pipeline):
            for _, step in est.steps:
                if step is None or (isinstance(step, str) and step == "passthrough"):
                    continue
                cols = self.walk(step, cols, y)
            return cols
        if isinstance(est, ColumnTransformer):
            return self.column_transformer(est, cols, y)
        if isinstance(est, FeatureUnion):
            out = []
            for name, transformer in est.transformer_list:
                if isinstance(transformer, str) and transformer == "drop":
                    continue
                if transformer == "passthrough" or _is_identity(transformer):
                    out += self.passthrough(
                        cols, f"passthrough '{name}' of FeatureUnion"
                    )
                else:
                    out += self.walk(transformer, cols, y)
            return out
        if isinstance(est, TransformedTargetRegressor):
            return self.transformed_target(est, cols, y)
        if isinstance(est, StackingRegressor | StackingClassifier):
            return self.stacking(est, cols, y)
        if isinstance(est, BaggingRegressor | BaggingClassifier):
            return self.bagging(est, cols, y)
        privatizer = _attr(est, "privatizer" if self.static else "privatizer_")
        if privatizer is not None and (
            isinstance(est, PrivatizedInputMixin) or not self.static
        ):
            return self.learner(est, privatizer, cols, y)
        if any(_privatizes(est)):
            return self.ensemble(est, cols, y)
        return self.leaf(est, cols, y)

    def passthrough(self, cols: list[_Col], how: str) -> list[_Col]:
        return [
            replace(c, via=c.via or (_PASSTHROUGH, how)) if c.raw else c for c in cols
        ]

    def privatizer(self, p: Any, cols: list[_Col], when: str) -> list[_Col]:
        self.n_privatizers += 1
        if self.static:
            label = ", ".join(c.name for c in cols) or "X"
            rows = _static_rows(p, label)
        else:
            check = getattr(p, "_check_fitted_settings", None)
            if check is not None:
                check()  # settings changed since fit: the summary would misstate
            n = int(_attr(p, "n_features_in_") or 0)
            if cols and len(cols) == n:
                names = [c.name for c in cols]
            elif _attr(p, "feature_names_in_") is not None:
                names = [str(c) for c in p.feature_names_in_]
            else:
                names = [f"x{i}" for i in range(n)]
            rows = _rows_of_privatizer(p, names)
            cols = cols if cols and len(cols) == n else [_Col(c) for c in names]
        for row in rows:
            row["_when"] = when
        self.rows += rows
        return [_Col(c.name, raw=False) for c in cols]

    def column_transformer(
        self, ct: ColumnTransformer, cols: list[_Col], y: _Col | None
    ) -> list[_Col]:
        n_in = _attr(ct, "n_features_in_")
        names_in = _attr(ct, "feature_names_in_")
        any_raw = any(c.raw for c in cols) if cols else True
        if self.static:
            items = [*ct.transformers, ("remainder", ct.remainder, None)]
        else:
            items = ct.transformers_
        mapped = n_in is not None and len(cols) == n_in
        if n_in is not None and not mapped:
            labels = names_in if names_in is not None else range(n_in)
            cols = [_Col(str(c), raw=any_raw) for c in labels]
            mapped = True
        out = []
        for name, transformer, spec in items:
            if isinstance(transformer, str) and transformer == "drop":
                continue
            index = None
            if mapped and spec is not None:
                index = _resolve_columns(spec, n_in, names_in)
            if index is not None:
                sub = [cols[i] for i in index]
            elif spec is None:  # remainder of an unfitted transformer
                sub = [_Col("remainder columns (if any)", raw=any_raw)]
            else:
                sub = [_Col(c, raw=any_raw) for c in _spec_labels(name, spec)]
            if not sub:
                continue
            if transformer == "passthrough" or _is_identity(transformer):
                how = (
                    "remainder='passthrough' of ColumnTransformer"
                    if name == "remainder"
                    else f"passthrough '{name}' of ColumnTransformer"
                )
                out += self.passthrough(sub, how)
            else:
                out += self.walk(transformer, sub, y)
        return out

    def transformed_target(
        self, est: TransformedTargetRegressor, cols: list[_Col], y: _Col | None
    ) -> list[_Col]:
        if self.static:
            transformer = est.transformer
            if transformer is None:
                transformer = FunctionTransformer(est.func, est.inverse_func)
            regressor = est.regressor
            if regressor is None:
                regressor = LinearRegression()
        else:
            transformer, regressor = est.transformer_, est.regressor_
        if y is not None and not _is_identity(transformer):
            out = self.walk(transformer, [y], None)
            y = replace(
                y, raw=any(c.raw for c in out), flagged=all(c.flagged for c in out)
            )
        return self.walk(regressor, cols, y)

    def learner(
        self, est: Any, privatizer: Any, cols: list[_Col], y: _Col | None
    ) -> list[_Col]:
        name = type(est).__name__
        if isinstance(est, IterativeIntervalRegressor):
            # Its privatizer releases y; X goes to the base regressor as is.
            if y is not None:
                y = self.privatizer(privatizer, [y], "fit")[0]
            base = est.get_params()["estimator"] if self.static else est.estimator_
            how = (
                f"raw ({name})",
                f"features passed unchanged by {name} to its base regressor",
            )
            features = [replace(c, via=c.via or how) if c.raw else c for c in cols]
            base = base if base is not None else LinearRegression()
            rows, _ = self.sub(lambda: self.walk(base, features, y))
            for row in rows:
                row["note"] = _join(
                    row.get("note"),
                    f"counted once: {name} refits its base regressor at every "
                    "iteration, each refit privatizing again",
                )
            self.rows += rows
            return [self.prediction(est, cols)]
        self.privatizer(privatizer, cols, "fit")
        if y is not None and y.raw and not y.flagged and _uses_y(est):
            self.flag_y(est, y)
        return [self.prediction(est, cols)]

    def prediction(self, est: Any, cols: list[_Col]) -> _Col:
        raw = [c for c in cols if c.raw]
        label = ", ".join(c.name for c in raw) or "predictions"
        how = f"predictions of {type(est).__name__} at the raw inputs"
        return _Col(
            label, raw=bool(raw), via=("raw (predictions)", how), prediction=True
        )

    def leaf(self, est: Any, cols: list[_Col], y: _Col | None) -> list[_Col]:
        name = type(est).__name__
        transformer = hasattr(est, "transform") and not hasattr(est, "predict")
        if transformer and not _requires_fit(est):
            how = (name, f"{name} applies a fixed function to each raw value")
            return [replace(c, via=c.via or how) if c.raw else c for c in cols]
        if y is not None and y.raw and not y.flagged and _uses_y(est):
            self.flag_y(est, y)
        for c in cols:
            if c.raw and not c.flagged:
                if transformer and c.via is None:
                    self.flag(
                        c.name,
                        name,
                        f"not a privatizer: {name} is fitted on "
                        "the raw values and passes them on",
                    )
                else:
                    self.flag_col(c, name)
        if transformer:
            return [replace(c, flagged=True) if c.raw else c for c in cols]
        return [self.prediction(est, cols)]

    def ensemble(self, est: Any, cols: list[_Col], y: _Col | None) -> list[_Col]:
        name = type(est).__name__
        members = _param_members(est) if self.static else _fitted_members(est)
        if not members:
            raise ValueError(
                f"{name} holds a privatizer but none of the fitted members that "
                "privacy_report reads (estimators_, estimator_, regressor_, "
                "classifier_, named_estimators_, best_estimator_)."
            )
        predictions = []
        for member in members:
            rows, out = self.sub(lambda m=member: self.walk(m, cols, y))
            if not isinstance(est, _ONE_FIT_PER_MEMBER):
                for row in rows:
                    row["note"] = _join(
                        row.get("note"),
                        f"counted once per member of "
                        f"{name}: a meta-estimator that refits clones "
                        "internally privatizes more often",
                    )
            self.rows += rows
            predictions += [c for c in out if c.prediction]
        if hasattr(est, "transform") and not hasattr(est, "predict"):
            # a selector (SelectFromModel, ...) outputs columns of its input
            how = (name, f"{name} outputs raw columns of its input")
            return [replace(c, via=c.via or how) if c.raw else c for c in cols]
        raw = [c for c in predictions if c.raw]
        return [self.prediction(est, raw)] if predictions else []

    def bagging(self, est: Any, cols: list[_Col], y: _Col | None) -> list[_Col]:
        name = type(est).__name__
        if self.static:
            base = est.estimator
            if base is None:
                base = (
                    DecisionTreeClassifier()
                    if is_classifier(est)
                    else DecisionTreeRegressor()
                )
            rows, _ = self.sub(lambda: self.walk(base, cols, y))
            once = not est.bootstrap or _consumes_sample_weight(base)
            k = int(est.n_estimators) if once else None
            self.rows += _scale(rows, lambda r: k, f"{k} members of {name}")
            return [self.prediction(est, cols)]
        members = est.estimators_
        features = est.estimators_features_
        samples = est.estimators_samples_
        walked = []
        for member, feats in zip(members, features, strict=True):
            sub_cols = [cols[int(j)] for j in feats] if len(cols) > max(feats) else cols
            walked.append(self.sub(lambda m=member, c=sub_cols: self.walk(m, c, y)))
        size = 1 + max((int(np.max(s)) for s in samples if len(s)), default=0)
        counts = np.array(
            [
                np.ones(size)
                if _consumes_sample_weight(m)
                else np.bincount(np.asarray(s, dtype=int), minlength=size)
                for m, s in zip(members, samples, strict=True)
            ]
        )
        budget = np.array(
            [np.nansum([r.get("epsilon", np.nan) for r in rows]) for rows, _ in walked]
        )
        weight = (
            budget
            if np.any(budget > 0)
            else np.array([len(rows) for rows, _ in walked], dtype=float)
        )
        worst = int(np.argmax(weight @ counts))  # the most exposed record
        for m, (rows, _) in enumerate(walked):
            c = int(counts[m, worst])
            self.rows += _scale(
                rows,
                lambda r, c=c: c,
                f"member {m} of {name} holds the most exposed record {c} times",
            )
        return [self.prediction(est, cols)]

    def stacking(self, est: Any, cols: list[_Col], y: _Col | None) -> list[_Col]:
        name = type(est).__name__
        if self.static:
            members = [e for _, e in est.estimators if not isinstance(e, str)]
            final = est.final_estimator
            if final is None:
                final = LogisticRegression() if is_classifier(est) else RidgeCV()
        else:
            members, final = est.estimators_, est.final_estimator_
        k: int | None = 1
        if not (isinstance(est.cv, str) and est.cv == "prefit"):
            try:
                k = int(check_cv(est.cv, classifier=is_classifier(est)).get_n_splits())
            except Exception:
                k = None
        predictions = []
        for member in members:
            rows, out = self.sub(lambda m=member: self.walk(m, cols, y))
            # cross_val_predict fits a clone on the k - 1 folds holding the
            # record, and predicts (privatizing a transform path) its own fold.

            def factor(row: dict, k: int | None = k) -> int | None:
                if k is None:
                    return None
                return k + (row.get("_when") == "transform" and k > 1)

            reason = f"fitted on all records and in cross_val_predict by {name}"
            self.rows += _scale(rows, factor, reason)
            predictions += [c for c in out if c.prediction]
        if est.passthrough:
            predictions += self.passthrough(cols, f"passthrough=True of {name}")
        self.walk(final, predictions, y)
        return [self.prediction(est, cols)]

    # -- searches ------------------------------------------------------------
    def search(self, s: Any, cols: list[_Col], y: _Col | None) -> list[_Col]:
        best = _attr(s, "best_estimator_")
        saved = len(self.releases)
        if best is not None:
            out = self.walk(best, cols, y)
        else:
            out = self.candidates(s, cols, y)
        inner = self.releases[saved:]
        del self.releases[saved:]
        per_fit = sum(count for count, _ in inner) if inner else 1
        count, how = _search_releases(s, best)
        if count:
            if inner:
                how = f"{how}, each fit running an inner search ({per_fit} times)"
            self.releases.append((count * per_fit, how))
        return out

    def candidates(self, s: Any, cols: list[_Col], y: _Col | None) -> list[_Col]:
        """Rows of the candidate with the largest epsilon (``refit=False``)."""
        chosen, largest, chosen_params = None, (False, -np.inf), None
        for params in s.cv_results_["params"]:
            walker = _Walker(static=True)
            candidate = clone(s.estimator).set_params(**params)
            out = walker.walk(candidate, cols, y)
            eps = [r.get("epsilon", np.nan) for r in walker.rows]
            total = (bool(walker.raw), float(np.nansum(eps)))
            if chosen is None or total > largest:
                chosen, largest, chosen_params, chosen_out = walker, total, params, out
        self.n_privatizers += chosen.n_privatizers
        note = (
            f"refit=False: no fitted model; rows of the candidate {chosen_params}, "
            f"the largest epsilon of the {len(s.cv_results_['params'])} candidates, "
            "read from the parameters"
        )
        for row in chosen.rows:
            row["note"] = _join(row.get("note"), note)
        self.rows += chosen.rows
        for name, row in chosen.raw.items():
            self.flag(name, row["mechanism"], _join(row["note"], note))
        return chosen_out


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


def privacy_report(estimator: Any) -> pd.DataFrame:
    """The privacy guarantee of a fitted estimator, one row per released column.

    Walks ``estimator`` and reads the ``privacy_summary()`` of every fitted
    privatizer it holds: a privatizer itself, the steps of a
    :class:`~sklearn.pipeline.Pipeline`, the branches (and the
    ``remainder``) of a :class:`~sklearn.compose.ColumnTransformer` with
    their columns, the branches of a :class:`~sklearn.pipeline.FeatureUnion`,
    the ``privatizer_`` of a learner fitted with ``privatizer=``, the fitted
    members of ensembles and meta-estimators (``estimators_``,
    ``estimator_``, ``regressor_``, ...), and the ``best_estimator_`` of a
    fitted search.

    Every column that leaves without a privatizer is a row too, with
    ``epsilon = inf``: a ``"passthrough"`` branch or ``remainder``
    (mechanism ``"raw (passthrough)"``), a transformer that is not a
    privatizer fitted on raw columns (mechanism: its class name), raw
    columns that reach a learner, and the response ``y`` of a supervised
    learner that privatizes only ``X`` (mechanism ``"raw (response)"``).
    Only :class:`~skprivate.IterativeIntervalRegressor` privatizes ``y``
    (its ``X`` reaches its base regressor raw).

    Parameters
    ----------
    estimator : estimator
        A fitted privatizer, pipeline, column transformer, feature union,
        learner, ensemble or search.

    Returns
    -------
    report : pandas.DataFrame
        Columns ``column``, ``mechanism``, ``notion``, ``epsilon``,
        ``delta``, ``coverage``, ``leakage``, ``bounds``,
        ``bounds_from_data``, ``floating_point_safe``, ``reproducible``
        (True for a seeded privatizer: its releases are for simulation, not
        for release) and ``note``.  The last row, ``total``, is the
        guarantee of one record over all its columns by sequential
        composition: the epsilons (and deltas) of
        every privatizer applied to the record add up, including several
        privatizers applied to the same column (feature-union branches, the
        members of an ensemble, each fitted with its own privatizer, and
        repeated releases, which multiply a row's budget and are named in
        its note).  A raw column makes the total ``inf`` and the note names
        the raw columns.  Coverage notions (interval or subset privacy) do
        not compose this way: the total epsilon is then NaN and the note
        says why (and still names any raw column).  Each further release of
        the same record (another ``transform`` call) spends the total again.

        For a search, the rows are those of ``best_estimator_``, the model
        a deployment would use; ``report.attrs["releases_per_record"]``
        and the note of the total say how many times the search privatized
        each record (``n_candidates x`` training folds per record, plus the
        held-out folds a privatizing transform sees when scoring, plus one
        refit).  With ``refit=False`` there is no fitted model: the rows are
        those of the candidate with the largest epsilon, read from the
        ``epsilon`` parameters of its privatizers.

    Raises
    ------
    ValueError
        If ``estimator`` holds no privatizer (its input cannot be told raw
        from already privatized), or if a privatizer's settings changed
        with ``set_params`` since it was fitted.

    Examples
    --------
    >>> import numpy as np
    >>> import pandas as pd
    >>> from sklearn.compose import ColumnTransformer
    >>> from skprivate import LaplaceLDP, SquareWaveLDP, privacy_report
    >>> X = np.column_stack([np.linspace(18, 90, 20), np.linspace(0, 1, 20)])
    >>> ct = ColumnTransformer(
    ...     [
    ...         ("age", LaplaceLDP(epsilon=1, bounds=(18, 90)), [0]),
    ...         ("share", SquareWaveLDP(epsilon=2, bounds=(0, 1)), [1]),
    ...     ]
    ... ).fit(X)
    >>> report = privacy_report(ct)
    >>> report[["column", "mechanism", "epsilon"]]
      column      mechanism  epsilon
    0      0     LaplaceLDP      1.0
    1      1  SquareWaveLDP      2.0
    2  total                     3.0

    A column left to ``remainder="passthrough"`` is released raw:

    >>> df = pd.DataFrame({"age": X[:, 0], "zip": np.arange(20) + 10000.0})
    >>> ct = ColumnTransformer(
    ...     [("age", LaplaceLDP(epsilon=1, bounds=(18, 90)), ["age"])],
    ...     remainder="passthrough",
    ... ).fit(df)
    >>> report = privacy_report(ct)
    >>> report[["column", "mechanism", "epsilon"]]
      column          mechanism  epsilon
    0    age         LaplaceLDP      1.0
    1    zip  raw (passthrough)      inf
    2  total                         inf
    """
    if not callable(getattr(estimator, "get_params", None)):
        raise TypeError(
            "estimator must be a fitted scikit-learn estimator (a privatizer, "
            f"pipeline, learner or search); got {type(estimator).__name__}."
        )
    walker = _Walker()
    out = walker.walk(estimator, _input_cols(estimator), _Col("y"))
    for col in out:
        if col.raw and not col.flagged and not col.prediction:
            walker.flag_col(col, None)
    if walker.n_privatizers == 0:
        raise ValueError(
            "estimator holds no fitted privatizer, so whether its input was raw "
            "or already privatized cannot be told: expected a fitted privatizer "
            "or a composite, learner, ensemble or search holding one; got "
            f"{type(estimator).__name__}."
        )
    rows = walker.rows + list(walker.raw.values())
    report = pd.DataFrame(rows).reindex(columns=_COLUMNS)
    for col in ("epsilon", "delta"):
        report[col] = report[col].astype(float)
    eps = np.array([r.get("epsilon", np.nan) for r in walker.rows], dtype=float)
    raw_names = list(walker.raw)
    raw_note = (
        f"raw columns (epsilon = inf): {', '.join(raw_names)}" if raw_names else ""
    )
    if np.any(np.isnan(eps)):
        reasons = dict.fromkeys(
            r["_nan_reason"] for r in walker.rows if "_nan_reason" in r
        )
        total = {
            "epsilon": np.nan,
            "delta": np.nan,
            "note": _join(
                "no composed epsilon: "
                + ("; ".join(reasons) or "some columns have no epsilon"),
                raw_note,
            ),
        }
    elif raw_names:
        total = {
            "epsilon": np.inf,
            "delta": np.nan,
            "note": _join("no guarantee: some columns leave raw", raw_note),
        }
    else:
        deltas = [r.get("delta", 0.0) for r in walker.rows]
        total = {
            "epsilon": float(eps.sum()),
            "delta": float(np.nansum(np.asarray(deltas, dtype=float))),
            "note": "sequential composition over the columns of one record",
        }
    if walker.releases:
        n = sum(count for count, _ in walker.releases)
        hows = "; ".join(how for _, how in walker.releases)
        total["note"] = _join(
            total["note"],
            f"in this simulation each record was privatized up to {n} times "
            f"({hows}); a real deployment privatizes each record once",
        )
    total.update(column="total", mechanism="", notion="")
    report = pd.concat([report, pd.DataFrame([total])], ignore_index=True)
    if walker.releases:
        report.attrs["releases_per_record"] = n
    return report
