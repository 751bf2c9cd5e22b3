"""The walk over a composite estimator that collects the report's rows."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

import numpy as np
from sklearn.base import clone, is_classifier
from sklearn.compose import ColumnTransformer, TransformedTargetRegressor
from sklearn.ensemble import (
    BaggingClassifier,
    BaggingRegressor,
    StackingClassifier,
    StackingRegressor,
)
from sklearn.linear_model import LinearRegression, LogisticRegression, RidgeCV
from sklearn.model_selection import (
    check_cv,
)
from sklearn.multioutput import ClassifierChain, RegressorChain
from sklearn.pipeline import FeatureUnion, Pipeline
from sklearn.preprocessing import FunctionTransformer
from sklearn.tree import DecisionTreeClassifier, DecisionTreeRegressor

from ..base import PrivatizedInputMixin, PrivatizerMixin
from ..interval import IterativeIntervalRegressor
from ._certify import NOT_CERTIFIED, step_status
from ._inspect import (
    _COLUMNWISE,
    _ONE_FIT_PER_MEMBER,
    _PASSTHROUGH,
    _STORES_RAW_RESPONSE,
    _attr,
    _Col,
    _consumes_sample_weight,
    _fitted_members,
    _is_identity,
    _is_search,
    _join,
    _member_fits,
    _merged_marks,
    _output_width,
    _param_members,
    _privatizes,
    _raw_in_scores,
    _resolve_columns,
    _search_releases,
    _selects_and_predicts,
    _spec_labels,
    _spread,
    _uses_y,
)
from ._released import released_mechanism, report_source
from ._rows import _rows_of_privatizer, _scale, _static_rows
from ._rowwise import RowwiseTransformer

# the channel of the raw input a Pipeline with memory= writes to its cache
_CACHE = "raw (Pipeline memory)"
# the report row of a search's scores computed from raw values
_SCORES = "search scores"
# the notion of a row without a guarantee, by the kind of channel
_NOTIONS = {
    "raw": "none (raw)",
    "uncertified": "none (not certified)",
    "scores": "none (scores of raw values)",
}


def _n_splits(est: Any) -> int | None:
    """The number of splits of ``est.cv`` (None: unknown)."""
    try:
        k = int(check_cv(est.cv, classifier=is_classifier(est)).get_n_splits())
    except Exception:
        return None
    return None if k == 0 else k  # 0: a one-shot iterable, used up by fit


def _cross_val_factor(k: int | None) -> Callable[[dict], int | None]:
    """Releases per record of a member fitted on all records and in
    ``cross_val_predict`` with ``k`` splits: a clone fitted on the ``k - 1``
    folds holding the record, and its own fold predicted (privatized again
    on a transform path)."""

    def factor(row: dict) -> int | None:
        if k is None:
            return None
        return k + (row.get("_when") == "transform" and k > 1)

    return factor


def _branch_width(ct: Any, name: str) -> int | None:
    """Columns the branch ``name`` of a fitted ColumnTransformer outputs."""
    indices = getattr(ct, "output_indices_", None)
    if not isinstance(indices, dict) or name not in indices:
        return None
    part = indices[name]
    return len(range(*part.indices(part.stop))) if isinstance(part, slice) else None


class _Walker:
    """Walk a (fitted, or with ``static=True`` unfitted) estimator's structure.

    Privatizer rows go to ``rows``; every column that reaches the output or a
    fitted state without a privatizer, or reaches a privatizer through a step
    that may mix records, goes to ``raw`` once, keyed by name (its ``_kinds``
    say which: ``"raw"``, ``"uncertified"``).
    """

    def __init__(self, static: bool = False) -> None:
        self.static = static
        self.rows: list[dict] = []
        self.raw: dict[str, dict] = {}
        self.n_privatizers = 0
        self.releases: list[tuple[int, str]] = []
        self.root: Any = None  # the estimator reported on

    # -- bookkeeping -----------------------------------------------------
    def sub(self, walk: Callable[[], Any]) -> tuple[list[dict], Any]:
        saved, self.rows = self.rows, []
        try:
            out = walk()
        finally:
            rows, self.rows = self.rows, saved
        return rows, out

    def flag(self, name: str, mechanism: str, note: str, kind: str = "raw") -> None:
        row = self.raw.get(name)
        if row is None:
            row = self.raw[name] = {
                "column": name,
                "mechanism": mechanism,
                "notion": _NOTIONS[kind],
                "epsilon": np.inf,
                "note": note,
                "_kinds": [],
            }
        elif note not in row["note"]:
            row["note"] = _join(row["note"], note)
        if kind not in row["_kinds"]:
            row["_kinds"].append(kind)
        # the values themselves leave only through a raw channel
        row["exact_disclosure"] = "raw" in row["_kinds"]

    def flag_col(self, col: _Col, consumer: str | None) -> None:
        label, how = col.via if col.via else ("", "")
        if consumer is None:
            note = _join(how, "released raw")
        elif how:
            note = _join(how, f"used raw by {consumer}")
        else:
            note = f"used raw by {consumer} (its fitted state is computed from it)"
        for name in col.sources or (col.name,):
            self.flag(name, label or consumer or _PASSTHROUGH, note)

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
        if self.root is None:
            self.root = est
        if est is None or (isinstance(est, str) and est == "drop"):
            return []
        if isinstance(est, str) and est == "passthrough":
            return self.passthrough(cols, "passthrough")
        if not self.static and _is_search(est):
            return self.search(est, cols, y)
        if isinstance(est, PrivatizerMixin):
            return self.privatizer(est, cols, "transform")
        if isinstance(est, Pipeline):
            steps = [
                step
                for _, step in est.steps
                if not (
                    step is None or (isinstance(step, str) and step == "passthrough")
                )
            ]
            memory = est.get_params(deep=False).get("memory")
            # a joblib Memory without a location caches nothing
            cached = memory is not None and getattr(memory, "location", "") is not None
            for i, step in enumerate(steps):
                last = i == len(steps) - 1
                if cached and not last:
                    self.cached(steps[-1], cols, y)
                cols = self.transformed(step, cols, y, last=last)
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
                    out += self.transformed(transformer, cols, y)
            return out
        if isinstance(est, TransformedTargetRegressor):
            return self.transformed_target(est, cols, y)
        if isinstance(est, StackingRegressor | StackingClassifier):
            return self.stacking(est, cols, y)
        if isinstance(est, BaggingRegressor | BaggingClassifier):
            return self.bagging(est, cols, y)
        if isinstance(est, RowwiseTransformer):
            inner = est._inner() if self.static else _attr(est, "transformer_")
            if inner is not None and any(_privatizes(inner)):
                return self.walk(inner, cols, y)  # the declaration adds nothing
            return self.leaf(est, cols, y)
        privatizer = _attr(est, "privatizer" if self.static else "privatizer_")
        if privatizer is not None and (
            isinstance(est, PrivatizedInputMixin) or not self.static
        ):
            return self.learner(est, privatizer, cols, y)
        source = report_source(est)
        if source is not None:
            return self.released(est, *source, cols)
        if any(_privatizes(est)):
            return self.ensemble(est, cols, y)
        return self.leaf(est, cols, y)

    def cached(self, final: Any, cols: list[_Col], y: _Col | None) -> None:
        """The raw input of a transformer of a ``Pipeline(memory=...)``.

        joblib's cache of each transformer's fit writes the repr of its
        arguments to the cache directory: the records' raw values (all of
        a small array, the first and last rows of a large one), and the
        response the pipeline was fitted with (taken as given when its
        final step ``final`` reads one).
        """
        how = (
            _CACHE,
            "Pipeline(memory=...) caches each transformer's fit: joblib writes "
            "the repr of its input (raw values of the records) to metadata.json "
            "in the cache directory",
        )
        for c in cols:
            if c.raw:
                self.flag_col(replace(c, via=how), None)
        if y is not None and y.raw and final is not None and _uses_y(final):
            note = (
                "Pipeline(memory=...) caches each transformer's fit: joblib "
                "writes the repr of the response it is given (raw values of the "
                "records) to metadata.json in the cache directory"
            )
            self.flag(y.name, _CACHE, note)

    def transformed(
        self, est: Any, cols: list[_Col], y: _Col | None, last: bool = False
    ) -> list[_Col]:
        """Walk ``est``; unless ``last``, its ``transform`` output is used.

        A feature selector that also predicts (RFE, RFECV) is walked as a
        learner, whose output is its predictions; fed on to a next step, its
        output is the raw input columns it keeps.
        """
        out = self.walk(est, cols, y)
        if not last and _selects_and_predicts(est):
            out = self.selected(est, cols)
        return self.widened(est, out)

    def widened(
        self, est: Any, out: list[_Col], width: int | None = None
    ) -> list[_Col]:
        """``out`` as wide as the fitted ``est``'s output really is.

        The walk gives a node one column per input column; a node that
        outputs another number of columns (a one-hot encoder, a projection,
        a subset privatizer's indicators) gets that many, each of which may
        come from any of its inputs, so that a later selection by position
        or name never lands on the wrong record column.
        """
        if self.static:
            return out
        if width is None:
            width = _output_width(est)
        if width is None or width == len(out):
            return out
        return _spread(out, width)

    def selected(self, est: Any, cols: list[_Col]) -> list[_Col]:
        """The input columns a feature selector outputs, raw as they came."""
        name = type(est).__name__
        how = (name, f"{name} outputs raw columns of its input")
        return [
            replace(c, via=c.via or how) if c.raw else c for c in self.kept(est, cols)
        ]

    def kept(self, est: Any, cols: list[_Col]) -> list[_Col]:
        """The columns a fitted feature selector keeps (all when unknown)."""
        support = None
        if not self.static:
            try:
                support = np.asarray(est.get_support(), dtype=bool)
            except Exception:  # not fitted as expected: every column may pass
                support = None
        if support is not None and support.size == len(cols):
            cols = [c for c, keep in zip(cols, support, strict=True) if keep]
        return cols

    def passthrough(self, cols: list[_Col], how: str) -> list[_Col]:
        return [
            replace(c, via=c.via or (_PASSTHROUGH, how)) if c.raw else c for c in cols
        ]

    def privatizer(self, p: Any, cols: list[_Col], when: str) -> list[_Col]:
        self.n_privatizers += 1
        for c in cols:
            if c.raw and c.mixed_by is not None:
                label, why = c.mixed_by
                for name in c.sources or (c.name,):
                    self.flag(name, label, _join(NOT_CERTIFIED, why), "uncertified")
        if self.static:
            label = ", ".join(c.name for c in cols) or "X"
            rows = _static_rows(p, label, reads_data=when != "release")
        else:
            rows, cols = self.fitted_rows(p, cols)
        for row in rows:
            row["_when"] = when
        self.rows += rows
        return [_Col(c.name, raw=False) for c in cols]

    def fitted_rows(self, p: Any, cols: list[_Col]) -> tuple[list[dict], list[_Col]]:
        """The rows of the fitted privatizer ``p`` fed ``cols``, and its columns."""
        check = getattr(p, "_check_fitted_settings", None)
        if check is not None:
            try:
                check()  # settings changed since fit: the summary would misstate
            except ValueError as error:
                if p is self.root:
                    raise
                # refitting the privatizer alone would leave the estimator's
                # later steps fitted on its earlier release
                raise ValueError(
                    f"{error} It is part of {type(self.root).__name__}: fit "
                    f"{type(self.root).__name__} again, not the privatizer alone "
                    "(its later steps were fitted on the release of the old "
                    "settings, which a refit of the privatizer does not undo)."
                ) from None
        if p is not self.root:
            self.refuse_earlier_release(p)
        n = int(_attr(p, "n_features_in_") or 0)
        merged = any(c.merged for c in cols)
        # without a recorded column count, the columns fed to it: a
        # privatizer never leaves the report without a row
        if cols and (len(cols) == n or not n) and not merged:
            names = [c.name for c in cols]
        elif _attr(p, "feature_names_in_") is not None:
            names = [str(c) for c in p.feature_names_in_]
        else:
            names = [f"x{i}" for i in range(n)] or ["X"]
        rows = _rows_of_privatizer(p, names)
        if cols and len(cols) == n:
            # columns that merge several record columns take the names of
            # the privatizer's rows, keeping their marks
            cols = [
                replace(c, name=name, merged=False) if c.merged else c
                for c, name in zip(cols, names, strict=True)
            ]
        else:
            cols = [_Col(c) for c in names]
        return rows, cols

    def refuse_earlier_release(self, p: Any) -> None:
        """Refuse a privatizer of a composite fitted before under other settings.

        The composite's later steps may have been fitted on the release of
        the earlier settings (a refit of the privatizer alone, or of the
        composite in place, looks the same), so the current settings need
        not describe what they hold.
        """
        released_before = getattr(p, "_released_before", None)
        changed = released_before() if callable(released_before) else {}
        if not changed:
            return
        name, root = type(p).__name__, type(self.root).__name__
        what = "; ".join(f"{k}: {a} then, {b} now" for k, (a, b) in changed.items())
        raise ValueError(
            f"{name} inside {root} was fitted under other settings before its "
            f"current fit ({what}). The later steps of {root} may hold the "
            "earlier release, and the report cannot tell which one they were "
            f"fitted on. Fit a clone of {root} (sklearn.base.clone) with the "
            "current settings and report that."
        )

    def released(
        self, est: Any, param: str, source: Any, cols: list[_Col]
    ) -> list[_Col]:
        """An estimator fitted on reports released elsewhere (``oracle=``, ...).

        It privatizes nothing and only post-processes the reports, so its
        rows are those of the release: the privatizer ``source`` describing
        it, read as on its own (its columns, its epsilon), each with a note
        saying so.  Reports already privatized earlier in the walk (a
        privatizer step before it) are counted there, once.
        """
        name = type(est).__name__
        if cols and not any(c.raw for c in cols):
            return [self.prediction(est, [])]
        found = released_mechanism(
            est, param, source, self.static, [c.name for c in cols]
        )
        if found is None:  # an unfitted candidate without declared categories
            rows, _ = self.sub(lambda: self.privatizer(source, [], "release"))
            how = f"read from the parameters of {param}="
        else:
            mechanism, rebuilt = found
            self.n_privatizers += 1
            rows, _ = self.fitted_rows(mechanism, [])
            how = (
                f"{param}= is not fitted: read from a clone fitted on its "
                "categories, as the fit rebuilt it"
                if rebuilt
                else ""
            )
        mechanism_name = type(source).__name__
        for row in rows:
            row["_when"] = "release"
            row["note"] = _join(
                f"release of the reports {name} reads, by {mechanism_name} "
                f"({param}=); {name} only post-processes them and adds no "
                "privacy cost",
                how,
                row.get("note"),
            )
        self.rows += rows
        return [self.prediction(est, [])]

    def column_transformer(
        self, ct: ColumnTransformer, cols: list[_Col], y: _Col | None
    ) -> list[_Col]:
        n_in = _attr(ct, "n_features_in_")
        names_in = _attr(ct, "feature_names_in_")
        if self.static:
            items = [*ct.transformers, ("remainder", ct.remainder, None)]
        else:
            items = ct.transformers_
        # columns that cannot be traced one to one carry the marks of all
        # the columns fed in: a step before that mixed records still
        # makes a privatizer downstream uncertified
        marks = _merged_marks(cols)
        mapped = n_in is not None and len(cols) == n_in
        if n_in is not None and not mapped:
            labels = names_in if names_in is not None else range(n_in)
            cols = [_Col(str(c), **marks) for c in labels]
            mapped = True
        out = []
        for name, transformer, spec in items:
            if isinstance(transformer, str) and transformer == "drop":
                continue
            index = None
            if mapped and spec is not None:
                index = _resolve_columns(spec, n_in, names_in)
            if index is not None:
                labels = names_in if names_in is not None else range(n_in)
                # a column merged from several record columns is named by
                # its place in the ColumnTransformer's input, with its marks
                sub = [
                    _Col(
                        str(labels[i]),
                        raw=cols[i].raw,
                        mixed_by=cols[i].mixed_by,
                        prediction=cols[i].prediction,
                    )
                    if cols[i].merged
                    else cols[i]
                    for i in index
                ]
            elif spec is None:  # remainder of an unfitted transformer
                sub = [_Col("remainder columns (if any)", **marks)]
            else:
                sub = [_Col(c, **marks) for c in _spec_labels(name, spec)]
            if not sub:
                continue
            if transformer == "passthrough" or _is_identity(transformer):
                how = (
                    "remainder='passthrough' of ColumnTransformer"
                    if name == "remainder"
                    else f"passthrough '{name}' of ColumnTransformer"
                )
                branch = self.passthrough(sub, how)
            else:
                branch = self.transformed(transformer, sub, y)
            out += self.widened(transformer, branch, _branch_width(ct, name))
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
            mixed = [c.mixed_by for c in out if c.mixed_by is not None]
            y = replace(
                y,
                raw=any(c.raw for c in out),
                flagged=all(c.flagged for c in out),
                mixed_by=mixed[0] if mixed else y.mixed_by,
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
            reason = (
                f"{name} refits its base regressor and predicts with it at "
                "every iteration, each call privatizing again"
            )
            self.rows += _scale(rows, lambda r: None, reason)
            return [self.prediction(est, cols)]
        self.privatizer(privatizer, cols, "fit")
        if y is not None and y.raw and not y.flagged and _uses_y(est):
            self.flag_y(est, y)
        return [self.prediction(est, cols)]

    def prediction(self, est: Any, cols: list[_Col]) -> _Col:
        raw = [c for c in cols if c.raw]
        label = ", ".join(c.name for c in raw) or "predictions"
        how = f"predictions of {type(est).__name__} at the raw inputs"
        names = (n for c in raw for n in c.inputs or c.sources or (c.name,))
        inputs = tuple(dict.fromkeys(names))
        return _Col(
            label,
            raw=bool(raw),
            via=("raw (predictions)", how),
            prediction=True,
            inputs=inputs,
        )

    def leaf(self, est: Any, cols: list[_Col], y: _Col | None) -> list[_Col]:
        name = type(est).__name__
        transformer = hasattr(est, "transform") and not hasattr(est, "predict")
        if y is not None and y.raw and not y.flagged and _uses_y(est):
            self.flag_y(est, y)
        if transformer:
            return self.step(est, cols)
        for c in cols:
            if c.raw and not c.flagged:
                self.flag_col(c, name)
        return [self.prediction(est, cols)]

    def step(self, est: Any, cols: list[_Col]) -> list[_Col]:
        """A transformer that is not a privatizer, on (some) raw columns.

        Its output stays raw.  A step that may mix records marks the columns:
        a privatizer they reach then reports them not certified; a step known
        or declared row-wise keeps the privatizer's epsilon.
        """
        keeps, why = step_status(est, fitted=not self.static)
        label = type(est).__name__
        raw = [c for c in cols if c.raw]
        if raw and len(raw) < len(cols) and not isinstance(est, _COLUMNWISE):
            # raw and privatized columns into a step that may combine them:
            # any output may carry a raw column
            cols = _spread(
                cols,
                len(cols),
                (
                    label,
                    f"not a privatizer: {label} may combine its raw input "
                    "columns with privatized ones",
                ),
            )
        if isinstance(est, RowwiseTransformer):
            inner = est._inner() if self.static else _attr(est, "transformer_")
            label = f"{label}({type(inner).__name__})"
        if keeps:
            how = (label, f"{why}; not a privatizer")
            return [replace(c, via=c.via or how) if c.raw else c for c in cols]
        how = (label, f"not a privatizer: {why}; it passes the values on")
        return [
            replace(c, via=c.via or how, mixed_by=c.mixed_by or (label, why))
            if c.raw
            else c
            for c in cols
        ]

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
        fits, reason = _member_fits(est, self.static)
        # RFE's estimator_ is fitted on the columns it keeps, as they came
        fed = self.kept(est, cols) if _selects_and_predicts(est) else cols
        # a chain with cv also fits every member but the last in
        # cross_val_predict, for the features of the next ones
        chained = (
            isinstance(est, RegressorChain | ClassifierChain)
            and getattr(est, "cv", None) is not None
            and not self.static
        )
        k = _n_splits(est) if chained else None
        for i, member in enumerate(members):
            rows, out = self.sub(lambda m=member: self.walk(m, fed, y))
            if chained and i < len(members) - 1:
                rows = _scale(
                    rows,
                    _cross_val_factor(k),
                    f"fitted on all records and in cross_val_predict by {name}",
                )
            elif not isinstance(est, _ONE_FIT_PER_MEMBER):
                rows = _scale(rows, lambda r: fits, reason)
            self.rows += rows
            predictions += [c for c in out if c.prediction]
        if hasattr(est, "transform") and not hasattr(est, "predict"):
            # a selector (SelectFromModel, ...) outputs columns of its input
            return self.selected(est, cols)
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
            reason = f"{int(est.n_estimators)} members of {name}"
            if not once:
                reason += (
                    ", each fitted on a bootstrap sample that may hold a record "
                    "several times"
                )
            self.rows += _scale(rows, lambda r: k, reason)
            return [self.prediction(est, cols)]
        members = est.estimators_
        features = est.estimators_features_
        samples = est.estimators_samples_
        walked = []
        for member, feats in zip(members, features, strict=True):
            sub_cols = [cols[int(j)] for j in feats] if len(cols) > max(feats) else cols
            walked.append(self.sub(lambda m=member, c=sub_cols: self.walk(m, c, y)))
        size = 1 + max((int(np.max(s)) for s in samples if len(s)), default=0)
        # oob_score=True: each member then predicts the records out of its
        # bag, privatizing them again on its transform path
        oob = bool(getattr(est, "oob_score", False)) and bool(est.bootstrap)
        if oob:
            scored = _attr(est, "oob_prediction_")
            if scored is None:
                scored = _attr(est, "oob_decision_function_")
            size = max(size, 0 if scored is None else len(scored))
        counts = np.array(
            [
                np.ones(size)
                if _consumes_sample_weight(m)
                else np.bincount(np.asarray(s, dtype=int), minlength=size)
                for m, s in zip(members, samples, strict=True)
            ]
        )
        out_of_bag = np.ones_like(counts) if oob else np.zeros_like(counts)
        for m, s in enumerate(samples):
            out_of_bag[m, np.asarray(s, dtype=int)] = 0

        def budget(rows: list[dict], transform: bool) -> float:
            return float(
                np.nansum(
                    [
                        r.get("epsilon", np.nan)
                        for r in rows
                        if (r.get("_when") == "transform") == transform
                    ]
                )
            )

        on_fit = np.array([budget(rows, False) for rows, _ in walked])
        on_transform = np.array([budget(rows, True) for rows, _ in walked])
        if not (np.any(on_fit > 0) or np.any(on_transform > 0)):
            on_transform = np.array([len(rows) for rows, _ in walked], dtype=float)
        # the most exposed record
        exposure = on_fit @ counts + on_transform @ (counts + out_of_bag)
        worst = int(np.argmax(exposure))
        for m, (rows, _) in enumerate(walked):
            c, extra = int(counts[m, worst]), int(out_of_bag[m, worst])

            def factor(r: dict, c: int = c, extra: int = extra) -> int:
                return c + extra * (r.get("_when") == "transform")

            # (out of its bag, c is 0 and the record's one prediction needs
            # no note: a row privatized once is shown as it is)
            held = f"member {m} of {name} holds the most exposed record {c} times"
            self.rows += _scale(rows, factor, held)
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
        k = 1 if isinstance(est.cv, str) and est.cv == "prefit" else _n_splits(est)
        predictions = []
        for member in members:
            rows, out = self.sub(lambda m=member: self.walk(m, cols, y))
            reason = f"fitted on all records and in cross_val_predict by {name}"
            self.rows += _scale(rows, _cross_val_factor(k), reason)
            predictions += [c for c in out if c.prediction]
        if est.passthrough:
            predictions += self.passthrough(cols, f"passthrough=True of {name}")
        self.walk(final, predictions, y)
        return [self.prediction(est, cols)]

    # -- searches ------------------------------------------------------------
    def search(self, s: Any, cols: list[_Col], y: _Col | None) -> list[_Col]:
        # scikit-learn keeps the best_estimator_ of an earlier fit when the
        # search is refitted with refit=False: that model is not this fit's
        best = _attr(s, "best_estimator_") if getattr(s, "refit", True) else None
        saved = len(self.releases)
        if best is not None:
            out = self.walk(best, cols, y)
            outs = [out]
        else:
            out, outs = self.candidates(s, cols, y)
        self.scores(s, outs, y)
        inner = self.releases[saved:]
        del self.releases[saved:]
        per_fit = sum(count for count, _ in inner) if inner else 1
        count, how = _search_releases(s, best)
        if count:
            if inner:
                how = f"{how}, each fit running an inner search ({per_fit} times)"
            self.releases.append((count * per_fit, how))
        return out

    def scores(self, s: Any, outs: list[list[_Col]], y: _Col | None) -> None:
        """The search's scores, when they were computed from raw values.

        ``cv_results_`` (and ``best_score_``, and the choice of
        ``best_params_`` it drives) stays in the fitted search and its
        pickle; scores of raw held-out records carry no guarantee.
        """
        found = _raw_in_scores(s, outs, y)
        if not found:
            return
        name = type(s).__name__
        note = (
            f"cv_results_ of {name} (with best_score_ and the choice of "
            f"best_params_) holds scores computed from {'; '.join(found)}: no "
            "guarantee covers them (a test fold of one record makes a split's "
            f"score a function of that record). A deployment ships the model "
            f"alone: privacy_report({name}.best_estimator_) states its guarantee"
        )
        self.flag(_SCORES, f"raw ({name} scores)", note, "scores")

    def candidates(
        self, s: Any, cols: list[_Col], y: _Col | None
    ) -> tuple[list[_Col], list[list[_Col]]]:
        """Rows of the candidates of a search fitted with ``refit=False``.

        No model is fitted, and any candidate may be the one deployed.  The
        privatizer rows are those of one candidate, read from its parameters:
        a raw channel comes first; then the largest epsilon; among equal
        epsilons, the largest delta.  Every column that leaves without a
        guarantee (raw, or not certified) in any candidate has its row too,
        its note naming the candidates it comes from: the report covers
        every channel any candidate opens.
        """
        params = list(s.cv_results_["params"])
        walked = []
        for p in params:
            walker = _Walker(static=True)
            out = walker.walk(clone(s.estimator).set_params(**p), cols, y)
            walked.append((p, walker, out))

        def rank(item: tuple[dict, _Walker, list[_Col]]) -> tuple[bool, float, float]:
            rows, raw = item[1].rows, item[1].raw
            eps = [r.get("epsilon", np.nan) for r in rows]
            deltas = [r.get("delta", np.nan) for r in rows]
            return bool(raw), float(np.nansum(eps)), float(np.nansum(deltas))

        # max keeps the first of equal candidates
        chosen_params, chosen, chosen_out = max(walked, key=rank)
        self.n_privatizers += chosen.n_privatizers
        note = (
            f"refit=False: no fitted model; rows of the candidate {chosen_params}, "
            f"the largest epsilon of the {len(params)} candidates, "
            "read from the parameters"
        )
        for row in chosen.rows:
            row["note"] = _join(row.get("note"), note)
        self.rows += chosen.rows
        for name, row in chosen.raw.items():
            for kind in row["_kinds"]:  # raw, or not certified, as in the candidate
                self.flag(name, row["mechanism"], _join(row["note"], note), kind)
        # the channels the other candidates open, each once: (column, kind)
        # -> the first candidate's parameters and row, and how many open it
        others: dict[tuple[str, str], list] = {}
        for p, walker, _ in walked:
            for name, row in walker.raw.items():
                for kind in row["_kinds"]:
                    if name in chosen.raw and kind in chosen.raw[name]["_kinds"]:
                        continue
                    found = others.setdefault((name, kind), [p, row, 0])
                    found[2] += 1
        for (name, kind), (p, row, k) in others.items():
            which = (
                f"the candidate {p} (1 of the {len(params)} candidates)"
                if k == 1
                else f"{k} of the {len(params)} candidates, the first {p}"
            )
            where = (
                f"refit=False: no fitted model; a channel of {which}, read from "
                "the parameters"
            )
            self.flag(name, row["mechanism"], _join(row["note"], where), kind)
        return chosen_out, [out for _, _, out in walked]
