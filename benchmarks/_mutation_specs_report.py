"""Mutation specs of ``skprivate/_privacy_report/``: the guarantee report.

One key per file.  Every report test reaches most of these functions, so a
surviving mutant runs every selected test: the selections are a few fast
tests of the report's own files (well under a second each), and the exact
small cases of ``tests/test_mutation_report.py`` do the rest.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

_C = "tests/test_privacy_report_composites.py::"
_R = "tests/test_privacy_report_rowwise.py::"
_A = "tests/test_privacy_report_audit.py::"
# one composite of each kind, each test well under a second
_FAST = [
    f"{_C}test_remainder_passthrough_column_is_raw_and_total_is_inf",
    f"{_C}test_feature_union_alone_and_its_passthrough",
    f"{_C}test_nested_composites_follow_each_column",
    f"{_C}test_voting_members_add_their_budgets",
    f"{_C}test_raw_branch_is_reported",
    f"{_C}test_transformed_target_regressor",
    f"{_C}test_settings_changed_after_fit_are_refused",
    f"{_C}test_bagging_without_bootstrap_sums_its_members",
    f"{_R}test_report_refuses_a_step_that_mixes_records",
    f"{_A}test_no_guarantee_keeps_the_audited_total_infinite",
]
_REPEATS = [
    f"{_C}test_bagging_counts_bootstrap_duplicates_of_the_most_exposed_record",
    f"{_C}test_stacking_counts_the_cross_val_predict_fits",
    f"{_C}test_search_without_refit_reports_the_largest_candidate",
]
# the row-wise rule: every test of its file but the two of several seconds
_STEPS = _all_but(
    "tests/test_privacy_report_rowwise.py",
    "test_a_response_step_before_its_privatizer_follows_the_same_rule",
    "test_declaration_survives_a_grid_search",
)
_NEW = [
    "tests/test_mutation_report.py",
    "tests/test_mutation_report_rows.py",
    "tests/test_mutation_report_walker.py",
    "tests/test_mutation_report_searches.py",
    "tests/test_mutation_report_inspect.py",
    "tests/test_read_from_data_claims.py",
]
# the same files, the module's own first: a mutant's first failing test is
# then found sooner
_ACCOUNTING = "tests/test_privacy_report_accounting.py"
_SCORES = "tests/test_privacy_report_search_scores.py"
_MEMORY = "tests/test_privacy_report_pipeline_memory.py"
_NEW_WALKER = [
    *(_NEW[2], _NEW[3], _NEW[0], _NEW[1], _NEW[4]),
    *(_ACCOUNTING, _SCORES, _MEMORY),
]
_NEW_INSPECT = [_NEW[4], _NEW[3], _NEW[2], _NEW[0], _NEW[1], _ACCOUNTING, _SCORES]
_NEW_ROWS = [_NEW[1], _NEW[0], _NEW[2], _NEW[3], _NEW[4], _NEW[5], _ACCOUNTING]
_P = "skprivate/_privacy_report/"
_T = "skprivate._privacy_report._total."
_FLOATS = (
    "every row's figure is a float (float(), np.inf, np.nan, or one of these "
    "times a count), so numpy infers float64 without being told"
)
_NONE_NAN = "a missing figure read as None becomes NaN in a float array, as np.nan"
_NAN_SUM = (
    "the sum of an array holding NaN is NaN: the NaN test only repeats what "
    "the sum gives"
)

_RW = "skprivate._privacy_report._rows."
_OWN_SUMMARY = (
    "audited_columns reads privacy_summary() itself when given none, the "
    "same summary (a fitted privatizer's summary does not change)"
)
_SAME_LENGTH = "the loop runs only after len(audited) == len(rows) was checked"
_SHARE_MISSING = (
    "the exact share under the reference law is read only through _missing(), "
    "for which None and NaN are the same"
)
_SUBSET_ZIP = "strict=None and the default both mean strict=False"
_SHALLOW = (
    "a privatizer holds no estimator parameter, so deep=True adds no key and "
    "epsilon and delta are read the same"
)

_CF = "skprivate._privacy_report._certify."
_ENCODERS = (
    "only OneHotEncoder and OrdinalEncoder reach _fixed_categories, and both "
    "define min_frequency and max_categories: the default is never used"
)

_DEEP_NONE = "get_params tests deep for truth: None acts as False"

_I = "skprivate._privacy_report._inspect."
_ROUTING_KEY = (
    "get_config() always holds enable_metadata_routing (scikit-learn >= 1.3; "
    "the package needs >= 1.6): the default is never used"
)
_NOT_ESTIMATOR = (
    "a string or None is no estimator, no list or tuple and has no "
    "get_params: the checks after the early return give the same answer"
)
_ITEM = (
    "an element of a non-object array is a numpy scalar that position() reads "
    "as its Python value (np.str_ is a str, numpy integers are Integral, any "
    "other scalar resolves to None either way); an element of an object "
    "array is a Python object without item"
)
_SEARCH_FLAG = (
    "None is false, as the default False: the same number of scorers and train scores"
)
_SAME_SIZE = "train and test are both of length size: strict never raises"
_INSPECT_EQUIVALENT: dict[str, tuple[str, str]] = {
    **{
        f"{_I}x__consumes_sample_weight__mutmut_{n}": (line, _ROUTING_KEY)
        for n, line in [
            (2, 'if get_config().get("enable_metadata_routing", None):'),
            (4, 'if get_config().get("enable_metadata_routing", ):'),
            (7, 'if get_config().get("enable_metadata_routing", True):'),
        ]
    },
    f"{_I}x__estimators_in__mutmut_1": (
        "if isinstance(value, str) and value is None:",
        _NOT_ESTIMATOR,
    ),
    f"{_I}x__privatizes__mutmut_1": (
        "if isinstance(est, str) and est is None:",
        _NOT_ESTIMATOR,
    ),
    f"{_I}x__param_members__mutmut_11": (
        "for key, value in est.get_params(deep=None).items():",
        _DEEP_NONE,
    ),
    f"{_I}x__resolve_columns__mutmut_20": (
        "if callable(None):",
        "a fitted ColumnTransformer holds the columns its callables returned, "
        "and an unfitted one is never resolved (no column count): no callable "
        "reaches _resolve_columns from the walk; and a callable that is no "
        "sequence is a 0-d object array whose one element position() resolves "
        "to None, the same answer",
    ),
    f"{_I}x__resolve_columns__mutmut_22": (
        "if isinstance(spec, str | numbers.Integral) and isinstance(spec, bool):",
        "a str or integer spec then goes through np.asarray to the same "
        "position; the two differ only for a scalar bool with one column, "
        "which scikit-learn refuses as a column spec (fit raises), so no "
        "fitted ColumnTransformer holds one",
    ),
    **{
        f"{_I}x__resolve_columns__mutmut_{n}": (line, _ITEM)
        for n, line in [
            (
                70,
                'found = [position(v.item() if (hasattr(v, "item")) and False '
                "else v) for v in values.ravel()]",
            ),
            (
                72,
                'found = [position(v.item() if hasattr(None, "item") else v) '
                "for v in values.ravel()]",
            ),
            (
                76,
                'found = [position(v.item() if hasattr(v, "XXitemXX") else v) '
                "for v in values.ravel()]",
            ),
            (
                77,
                'found = [position(v.item() if hasattr(v, "ITEM") else v) for v '
                "in values.ravel()]",
            ),
        ]
    },
    f"{_I}x__search_releases__mutmut_23": (
        'scorers = len(s.scorer_) if getattr(s, "multimetric_", None) else 1',
        _SEARCH_FLAG,
    ),
    f"{_I}x__search_releases__mutmut_35": (
        'train_scores = bool(getattr(s, "return_train_score", None))',
        _SEARCH_FLAG,
    ),
    f"{_I}x__search_releases__mutmut_74": (
        'return 0, "XXXX"',
        "the walk reads the description only when the count is not 0",
    ),
    **{
        f"{_I}x__split_counts__mutmut_{n}": (line, _SAME_SIZE)
        for n, line in [
            (
                75,
                "return sorted(set(zip(train.tolist(), test.tolist(), "
                "strict=None))), True",
            ),
            (78, "return sorted(set(zip(train.tolist(), test.tolist(), ))), True"),
            (
                79,
                "return sorted(set(zip(train.tolist(), test.tolist(), "
                "strict=False))), True",
            ),
        ]
    },
}

_RT = "skprivate._privacy_report._rowwise.xǁRowwiseTransformerǁ"
_FITTED = (
    "without names check_is_fitted looks for any attribute ending in '_': an "
    "unfitted RowwiseTransformer has none, and fit sets transformer_ before "
    "any other, so the same NotFittedError is raised in the same cases"
)

_RI = "skprivate._privacy_report._rowwise."
_IMPORT_TIME = (
    "_inner_has runs once, when the class body applies available_if at "
    "import, before mutmut switches any mutant on: its mutants never run "
    "(tests/test_mutation_report.py::test_rowwise_methods_follow_the_wrapped_"
    "transformer checks the closure it builds)"
)

_W = "skprivate._privacy_report._walker.xǁ_Walkerǁ"
_UNREACHED = (
    "walk() is never given None or a string: a Pipeline skips None and "
    "'passthrough' steps, column transformers and unions handle 'drop' and "
    "'passthrough' themselves, and members (fitted or read from the "
    "parameters), bases, finals and candidates are estimators"
)
_DROP_WALKED = (
    "a 'drop' branch that is not skipped is walked, and walk() returns no "
    "column for 'drop': the same output"
)
_STRICT = (
    "a fitted bagging has one entry per member in estimators_, "
    "estimators_features_ and estimators_samples_: strict never raises"
)
_SAMPLES = (
    "every member of a fitted bagging draws at least one record: the default "
    "of max() over its samples is never used"
)
_INT_SAMPLES = "estimators_samples_ are integer index arrays already"
_NOT_RAW_VIA = (
    "via and mixed_by are read only for raw columns (flag_col, the privatizer's "
    "not-certified check): setting them on a privatized column changes nothing"
)
_WHEN = (
    "_when is compared with 'transform' only (stacking's factor): any other "
    "value reads as a fit release"
)
_COUNTED = (
    "n_privatizers is only compared with 0, and privatizer() is the only place "
    "that changes it, once per privatizer walked: 1, 2 or -1 are all non-zero"
)
_ZIP = "cols = [c for c, keep in zip(cols, support, {}) if keep]"
_WALKER_EQUIVALENT: dict[str, tuple[str, str]] = {
    **{
        f"{_W}walk__mutmut_{n}": (line, _UNREACHED)
        for n, line in [
            (1, 'if est is None and (isinstance(est, str) and est == "drop"):'),
            (3, 'if est is None or (isinstance(est, str) or est == "drop"):'),
            (4, 'if est is None or (isinstance(est, str) and est != "drop"):'),
            (5, 'if est is None or (isinstance(est, str) and est == "XXdropXX"):'),
            (6, 'if est is None or (isinstance(est, str) and est == "DROP"):'),
            (7, 'if isinstance(est, str) or est == "passthrough":'),
            (8, 'if isinstance(est, str) and est != "passthrough":'),
            (9, 'if isinstance(est, str) and est == "XXpassthroughXX":'),
            (10, 'if isinstance(est, str) and est == "PASSTHROUGH":'),
            (11, 'return self.passthrough(None, "passthrough")'),
            (12, "return self.passthrough(cols, None)"),
            (13, 'return self.passthrough("passthrough")'),
            (14, "return self.passthrough(cols, )"),
            (15, 'return self.passthrough(cols, "XXpassthroughXX")'),
            (16, 'return self.passthrough(cols, "PASSTHROUGH")'),
        ]
    },
    f"{_W}walk__mutmut_36": (
        'if step is None or (isinstance(step, str) or step == "passthrough"):',
        "the only string a Pipeline accepts as a step is 'passthrough'",
    ),
    f"{_W}walk__mutmut_57": (
        'if isinstance(transformer, str) and transformer == "XXdropXX":',
        _DROP_WALKED,
    ),
    f"{_W}walk__mutmut_58": (
        'if isinstance(transformer, str) and transformer == "DROP":',
        _DROP_WALKED,
    ),
    f"{_W}column_transformer__mutmut_47": (
        'if isinstance(transformer, str) and transformer == "XXdropXX":',
        _DROP_WALKED,
    ),
    f"{_W}column_transformer__mutmut_48": (
        'if isinstance(transformer, str) and transformer == "DROP":',
        _DROP_WALKED,
    ),
    f"{_W}passthrough__mutmut_2": (
        "replace(c, via=c.via or (_PASSTHROUGH, how)) if (c.raw) or True else c",
        _NOT_RAW_VIA,
    ),
    f"{_W}step__mutmut_22": (
        "return [replace(c, via=c.via or how) if (c.raw) or True else c for c in cols]",
        _NOT_RAW_VIA,
    ),
    f"{_W}step__mutmut_30": ("if (c.raw) or True", _NOT_RAW_VIA),
    f"{_W}ensemble__mutmut_57": (
        "return [replace(c, via=c.via or how) if (c.raw) or True else c for c in cols]",
        _NOT_RAW_VIA,
    ),
    f"{_W}learner__mutmut_22": (
        "features = [replace(c, via=c.via or how) if (c.raw) or True else c for c "
        "in cols]",
        _NOT_RAW_VIA,
    ),
    **{
        f"{_W}learner__mutmut_{n}": (line, _WHEN)
        for n, line in [
            (7, "y = self.privatizer(privatizer, [y], None)[0]"),
            (11, 'y = self.privatizer(privatizer, [y], "XXfitXX")[0]'),
            (12, 'y = self.privatizer(privatizer, [y], "FIT")[0]'),
            (61, "self.privatizer(privatizer, cols, None)"),
            (65, 'self.privatizer(privatizer, cols, "XXfitXX")'),
            (66, 'self.privatizer(privatizer, cols, "FIT")'),
        ]
    },
    **{
        f"{_W}privatizer__mutmut_{n}": (line, _COUNTED)
        for n, line in [
            (1, "self.n_privatizers = 1"),
            (2, "self.n_privatizers -= 1"),
            (3, "self.n_privatizers += 2"),
        ]
    },
    f"{_W}fitted_rows__mutmut_45": (
        "cols = cols if (cols and len(cols) == n) and False else [_Col(c) for c in "
        "names]",
        "when the columns match the privatizer's count, names are their names: "
        "rebuilding them gives the same names, and the callers read only the "
        "names (privatizer() rebuilds them as privatized, released() drops them)",
    ),
    f"{_W}privatizer__mutmut_43": (
        "return [_Col(c.name, raw=None) for c in cols]",
        "raw is only ever tested for truth: None reads as False",
    ),
    f"{_W}learner__mutmut_37": (
        "rows, _ = self.sub(lambda: self.walk(base, features, None))",
        "the base regressor of an interval regressor gets the privatized "
        "response, which nothing flags: no response is flagged either",
    ),
    f"{_W}walk__mutmut_112": (
        "return self.walk(inner, cols, None)  # the declaration adds nothing",
        "walking a privatizer never reads the response",
    ),
    f"{_W}step__mutmut_11": (
        'inner = est._inner() if (self.static) or True else _attr(est, "transformer_")',
        "the label reads the class name only: the wrapped transformer and its "
        "fitted clone have the same class",
    ),
    f"{_W}transformed_target__mutmut_31": (
        "",
        "the line dropped is flagged=...: no column is ever flagged, so the "
        "default False is what all() gives",
    ),
    **{
        f"{_W}bagging__mutmut_{n}": (line, _STRICT)
        for n, line in [
            (54, "for member, feats in zip(members, features, strict=None):"),
            (57, "for member, feats in zip(members, features, ):"),
            (58, "for member, feats in zip(members, features, strict=False):"),
            (100, "for m, s in zip(members, samples, strict=None)"),
            (103, "for m, s in zip(members, samples, )"),
            (104, "for m, s in zip(members, samples, strict=False)"),
        ]
    },
    f"{_W}bagging__mutmut_76": (
        "size = 2 + max((int(np.max(s)) for s in samples if len(s)), default=0)",
        "a phantom record after the last is drawn by no member, so its exposure "
        "is at most any real record's, and argmax takes the first maximum: the "
        "same most exposed record",
    ),
    **{
        f"{_W}bagging__mutmut_{n}": (line, _SAMPLES)
        for n, line in [
            (78, "for s in samples if len(s)), default=None)"),
            (80, "for s in samples if len(s)), )"),
            (83, "for s in samples if len(s)), default=1)"),
        ]
    },
    f"{_W}bagging__mutmut_95": ("np.asarray(s, dtype=None)", _INT_SAMPLES),
    f"{_W}bagging__mutmut_97": ("np.asarray(s, )", _INT_SAMPLES),
    f"{_W}bagging__mutmut_121": (
        "else np.array([len(rows) for rows, _ in walked], dtype=None)",
        "row counts as integers or floats give the same argmax",
    ),
    f"{_W}bagging__mutmut_123": (
        "else np.array([len(rows) for rows, _ in walked], )",
        "row counts as integers or floats give the same argmax",
    ),
    **{
        f"{_W}candidates__mutmut_{n}": (
            line,
            "the first candidate is taken by 'chosen is None' whatever the "
            "starting value of largest, which is then replaced",
        )
        for n, line in [
            (
                2,
                "None, (True, -np.inf, -np.inf), None",
            ),
            (
                3,
                "None, (False, +np.inf, -np.inf), None",
            ),
            (
                4,
                "None, (False, -np.inf, +np.inf), None",
            ),
        ]
    },
    f"{_W}stacking__mutmut_15": (
        'if not (isinstance(est.cv, str) or est.cv == "prefit"):',
        "the only string stacking accepts as cv is 'prefit'",
    ),
    f"{_W}stacking__mutmut_22": (
        "k = int(check_cv(est.cv, classifier=None).get_n_splits())",
        "check_cv gives a stratified or a plain k-fold for an integer, with the "
        "same number of splits, and returns a splitter as it is",
    ),
    f"{_W}stacking__mutmut_24": (
        "k = int(check_cv(est.cv, ).get_n_splits())",
        "as stacking__mutmut_22",
    ),
    f"{_W}transformed_target__mutmut_5": (
        "transformer = FunctionTransformer(est.func, None)",
        "the walk and the row-wise rule read func only, never inverse_func",
    ),
    f"{_W}transformed_target__mutmut_7": (
        "transformer = FunctionTransformer(est.func, )",
        "as transformed_target__mutmut_5",
    ),
    f"{_W}transformed_target__mutmut_12": (
        "if y is not None or not _is_identity(transformer):",
        "a TransformedTargetRegressor is always walked with the response: it is "
        "a regressor, never a step of a response transformer",
    ),
    f"{_W}transformed_target__mutmut_15": (
        "if y is not None and not _is_identity(None):",
        "walking an identity transformer returns the response with the same "
        "raw and mixed_by (it is row-wise), only its via changes, which "
        "flag_y does not read",
    ),
    f"{_W}transformed_target__mutmut_27": (
        "flagged=None,",
        "no column is ever flagged (flagged stays False), so all() over the "
        "transformer's output is False, as None reads",
    ),
    **{
        f"{_W}released__mutmut_{n}": (
            "return [self.prediction(None, [])]",
            "a prediction of no column is named 'predictions' and is not raw "
            "whatever the estimator: the estimator shows only in its via, which "
            "is read for raw columns only",
        )
        for n in (6, 72)
    },
    **{
        f"{_W}released__mutmut_{n}": (
            f"rows, _ = self.sub(lambda: self.privatizer(source, [], {when}))",
            "privatizer() only stores its when as each row's _when, which the "
            "loop below overwrites with 'release' before anything reads it",
        )
        for n, when in [(27, "None"), (31, '"XXreleaseXX"'), (32, '"RELEASE"')]
    },
    **{
        f"{_W}released__mutmut_{n}": (
            line,
            "n_privatizers is only compared with 0 and every other change adds "
            "a count of at least 0: after a release it is non-zero whether set "
            "to 1 or raised by 1 or 2",
        )
        for n, line in [
            (35, "self.n_privatizers = 1"),
            (37, "self.n_privatizers += 2"),
        ]
    },
    f"{_W}released__mutmut_40": (
        "rows, _ = self.fitted_rows(mechanism, None)",
        "fitted_rows tests its columns for truth only, as empty for None as for "
        "[], and released() drops the columns it returns",
    ),
    **{
        f"{_W}released__mutmut_{n}": (
            line,
            f"{_WHEN}; a release row without _when reads None, and a key of "
            "another name is dropped by the report's fixed columns",
        )
        for n, line in [
            (51, 'row["_when"] = None'),
            (52, 'row["XX_whenXX"] = "release"'),
            (53, 'row["_WHEN"] = "release"'),
            (54, 'row["_when"] = "XXreleaseXX"'),
            (55, 'row["_when"] = "RELEASE"'),
        ]
    },
    # walk() returns no column for "drop" itself: skipping it first or
    # walking it ends the same
    **{
        f"{_W}{fn}__mutmut_{n}": (
            f'if isinstance(transformer, str) and transformer == "{word}":',
            "a branch 'drop' that is not skipped is walked, and walk() returns "
            "no column for 'drop'; nothing else is read from the branch",
        )
        for fn, n, word in [
            ("column_transformer", 43, "XXdropXX"),
            ("column_transformer", 44, "DROP"),
            ("walk", 64, "XXdropXX"),
            ("walk", 65, "DROP"),
        ]
    },
    f"{_W}ensemble__mutmut_17": (
        "fits, reason = _member_fits(est, None)",
        "in a static walk the estimator is a clone read from its parameters, "
        "never fitted, so ranking_ is absent and _member_fits returns None "
        "whether or not it is told the walk is static",
    ),
    **{
        f"{_W}kept__mutmut_{n}": (line, reason)
        for n, line, reason in [
            (
                5,
                "support = np.asarray(est.get_support(), dtype=None)",
                "get_support() returns a boolean mask: no dtype keeps it boolean",
            ),
            (
                7,
                "support = np.asarray(est.get_support(), )",
                "get_support() returns a boolean mask: no dtype keeps it boolean",
            ),
            *[
                (
                    n,
                    line,
                    "the sizes are checked equal just before, so zip never "
                    "meets uneven lengths for strict to act on",
                )
                for n, line in [
                    (15, _ZIP.format("strict=None")),
                    (18, _ZIP.format("")),
                    (19, _ZIP.format("strict=False")),
                ]
            ],
        ]
    },
    f"{_W}walk__mutmut_38": (
        'step is None or (isinstance(step, str) or step == "passthrough")',
        "a Pipeline step that is a string can only be 'passthrough' "
        "(scikit-learn refuses any other string at fit), so the two tests agree",
    ),
    **{
        f"{_W}learner__mutmut_{n}": (line, _WHEN)
        for n, line in [
            (59, "self.privatizer(privatizer, cols, None)"),
            (63, 'self.privatizer(privatizer, cols, "XXfitXX")'),
            (64, 'self.privatizer(privatizer, cols, "FIT")'),
        ]
    },
}


_RL = "skprivate._privacy_report._released."
_REBUILT_SAME = (
    "the clone is fitted with its categories declared: the column's dtype "
    "(object or inferred) and a column named None (sklearn then names it x0) "
    "give the same channel and output names, checked for k-RR, the subset "
    "and the longitudinal privatizers on text, int and float categories, so a "
    "refit under the raw name only repeats the fit"
)
_DEEP_PARAMS = (
    "the parameter read ('privatizer', 'categories') is a top-level one: "
    "deep=True only adds the nested 'step__param' keys, and deep=None is "
    "falsy as False is"
)
# The same texts and reasons, renumbered after lines were added to walk
# (its root), step, privatizer and bagging: mutmut numbers each function's
# mutants in order, so an added line moves the numbers of those after it.
_WALKER_BEFORE = dict(_WALKER_EQUIVALENT)
_WALKER_EQUIVALENT.update(
    {
        f"{_W}bagging__mutmut_132": _WALKER_BEFORE[f"{_W}bagging__mutmut_95"],
        f"{_W}bagging__mutmut_134": _WALKER_BEFORE[f"{_W}bagging__mutmut_97"],
        f"{_W}bagging__mutmut_137": _WALKER_BEFORE[f"{_W}bagging__mutmut_100"],
        f"{_W}bagging__mutmut_140": _WALKER_BEFORE[f"{_W}bagging__mutmut_103"],
        f"{_W}bagging__mutmut_141": _WALKER_BEFORE[f"{_W}bagging__mutmut_104"],
        f"{_W}bagging__mutmut_150": _WALKER_BEFORE[f"{_W}bagging__mutmut_95"],
        f"{_W}bagging__mutmut_152": _WALKER_BEFORE[f"{_W}bagging__mutmut_97"],
        f"{_W}privatizer__mutmut_49": _WALKER_BEFORE[f"{_W}privatizer__mutmut_43"],
        f"{_W}step__mutmut_25": _WALKER_BEFORE[f"{_W}step__mutmut_11"],
        f"{_W}step__mutmut_36": _WALKER_BEFORE[f"{_W}step__mutmut_22"],
        f"{_W}step__mutmut_44": _WALKER_BEFORE[f"{_W}step__mutmut_30"],
        f"{_W}walk__mutmut_3": _WALKER_BEFORE[f"{_W}walk__mutmut_1"],
        f"{_W}walk__mutmut_5": _WALKER_BEFORE[f"{_W}walk__mutmut_3"],
        f"{_W}walk__mutmut_6": _WALKER_BEFORE[f"{_W}walk__mutmut_4"],
        f"{_W}walk__mutmut_7": _WALKER_BEFORE[f"{_W}walk__mutmut_5"],
        f"{_W}walk__mutmut_8": _WALKER_BEFORE[f"{_W}walk__mutmut_6"],
        f"{_W}walk__mutmut_9": _WALKER_BEFORE[f"{_W}walk__mutmut_7"],
        f"{_W}walk__mutmut_10": _WALKER_BEFORE[f"{_W}walk__mutmut_8"],
        f"{_W}walk__mutmut_11": _WALKER_BEFORE[f"{_W}walk__mutmut_9"],
        f"{_W}walk__mutmut_12": _WALKER_BEFORE[f"{_W}walk__mutmut_10"],
        f"{_W}walk__mutmut_13": _WALKER_BEFORE[f"{_W}walk__mutmut_11"],
        f"{_W}walk__mutmut_14": _WALKER_BEFORE[f"{_W}walk__mutmut_12"],
        f"{_W}walk__mutmut_15": _WALKER_BEFORE[f"{_W}walk__mutmut_13"],
        f"{_W}walk__mutmut_16": _WALKER_BEFORE[f"{_W}walk__mutmut_14"],
        f"{_W}walk__mutmut_17": _WALKER_BEFORE[f"{_W}walk__mutmut_15"],
        f"{_W}walk__mutmut_18": _WALKER_BEFORE[f"{_W}walk__mutmut_16"],
        f"{_W}walk__mutmut_40": _WALKER_BEFORE[f"{_W}walk__mutmut_38"],
        # renumbered again after the lines of Pipeline(memory=...)
        f"{_W}walk__mutmut_96": _WALKER_BEFORE[f"{_W}walk__mutmut_57"],
        f"{_W}walk__mutmut_97": _WALKER_BEFORE[f"{_W}walk__mutmut_58"],
        f"{_W}walk__mutmut_46": (
            'memory = est.get_params(deep=None).get("memory")',
            "get_params tests deep for truth: None acts as False",
        ),
        f"{_W}walk__mutmut_47": (
            'memory = est.get_params(deep=True).get("memory")',
            "deep adds only the steps' own parameters (name__param); memory "
            "is a top-level parameter either way",
        ),
        f"{_W}walk__mutmut_61": (
            'getattr(memory, "location", "XXXX") is not None',
            "the default only answers for a memory without a location "
            "attribute (a directory given as a string or path), which "
            "caches: any default but None says so",
        ),
        **{
            f"{_W}bagging__mutmut_{n}": (
                text,
                "a bagging ensemble always has an oob_score parameter: the "
                "default of getattr is never read",
            )
            for n, text in (
                (89, 'getattr(est, "oob_score", None)'),
                (92, 'getattr(est, "oob_score", )'),
                (95, 'getattr(est, "oob_score", True)'),
            )
        },
        "skprivate._privacy_report._walker.x__branch_width__mutmut_14": (
            "if (isinstance(part, slice)) or True else None",
            "scikit-learn stores every branch's output_indices_ as a slice",
        ),
        "skprivate._privacy_report._walker.x__n_splits__mutmut_4": (
            "check_cv(est.cv, classifier=None)",
            "classifier only picks StratifiedKFold over KFold for an int or "
            "None cv: the same number of splits",
        ),
        "skprivate._privacy_report._walker.x__n_splits__mutmut_6": (
            "check_cv(est.cv, ).get_n_splits()",
            "as x__n_splits__mutmut_4 (classifier defaults to False)",
        ),
    }
)


SPECS: dict[str, ModuleSpec] = {
    "report_total": ModuleSpec(
        path=f"{_P}_total.py",
        tests=_FAST,
        new_tests=[
            *_NEW,
            _SCORES,
            "tests/test_side_doors.py::test_a_total_over_different_notions_says_so",
            "tests/test_side_doors.py::"
            "test_a_row_without_a_notion_is_named_unnamed_in_the_total",
        ],
        equivalent={
            f"{_T}x__total_row__mutmut_21": (
                'r.get("epsilon", np.nan) for r in rows], dtype=None)',
                _FLOATS,
            ),
            f"{_T}x__total_row__mutmut_23": (
                'r.get("epsilon", np.nan) for r in rows], )',
                _FLOATS,
            ),
            f"{_T}x__total_row__mutmut_25": (
                'r.get("epsilon", None) for r in rows], dtype=float)',
                _NONE_NAN,
            ),
            f"{_T}x__total_row__mutmut_27": (
                'r.get("epsilon", ) for r in rows], dtype=float)',
                _NONE_NAN,
            ),
            f"{_T}x__total_row__mutmut_122": (
                'r.get("delta", 0.0) for r in rows], dtype=None)',
                _FLOATS,
            ),
            f"{_T}x__total_row__mutmut_124": (
                'r.get("delta", 0.0) for r in rows], )',
                _FLOATS,
            ),
            f"{_T}x__total_row__mutmut_126": (
                'r.get("delta", None) for r in rows], dtype=float)',
                "a missing delta read as None is NaN, which nansum skips: the "
                "same as the 0.0 default",
            ),
            f"{_T}x__total_row__mutmut_128": (
                'r.get("delta", ) for r in rows], dtype=float)',
                "as x__total_row__mutmut_126",
            ),
            f"{_T}x__audited_total__mutmut_11": (
                'r.get("audited_epsilon", np.nan) for r in rows], dtype=None)',
                _FLOATS,
            ),
            f"{_T}x__audited_total__mutmut_13": (
                'r.get("audited_epsilon", np.nan) for r in rows], )',
                _FLOATS,
            ),
            f"{_T}x__audited_total__mutmut_15": (
                'r.get("audited_epsilon", None) for r in rows], dtype=float)',
                _NONE_NAN,
            ),
            f"{_T}x__audited_total__mutmut_17": (
                'r.get("audited_epsilon", ) for r in rows], dtype=float)',
                _NONE_NAN,
            ),
            f"{_T}x__audited_total__mutmut_22": (
                'r.get("audited_delta", np.nan) for r in rows], dtype=None)',
                _FLOATS,
            ),
            f"{_T}x__audited_total__mutmut_24": (
                'r.get("audited_delta", np.nan) for r in rows], )',
                _FLOATS,
            ),
            f"{_T}x__audited_total__mutmut_26": (
                'r.get("audited_delta", None) for r in rows], dtype=float)',
                _NONE_NAN,
            ),
            f"{_T}x__audited_total__mutmut_28": (
                'r.get("audited_delta", ) for r in rows], dtype=float)',
                _NONE_NAN,
            ),
            f"{_T}x__audited_total__mutmut_42": (
                "if (not np.any(np.isnan(deltas))) or True else np.nan",
                _NAN_SUM,
            ),
            f"{_T}x__audited_total__mutmut_45": (
                "if not np.any(None) else np.nan",
                _NAN_SUM,
            ),
        },
    ),
    "report_rows": ModuleSpec(
        path=f"{_P}_rows.py",
        tests=[*_FAST, *_REPEATS],
        new_tests=_NEW_ROWS,
        equivalent={
            f"{_RW}x__static_rows__mutmut_1": (
                "reads_data: bool = False",
                "the walker, its only caller, always passes reads_data",
            ),
            **{
                f"{_RW}x__static_rows__mutmut_{n}": (
                    text,
                    "the parameters read (epsilon, delta, bounds, categories, "
                    "handle_unknown) are top-level ones: deep=True only adds "
                    "nested keys, and deep=None is falsy as False is",
                )
                for n, text in (
                    (3, "get_params(deep=None)"),
                    (4, "get_params(deep=True)"),
                )
            },
            **{
                f"{_RW}x__static_rows__mutmut_{n}": (
                    text,
                    "no privatizer has both a bounds and a categories "
                    "parameter: the list joined holds one word",
                )
                for n, text in (
                    (74, "'XX and XX'.join(read)"),
                    (75, "' AND '.join(read)"),
                )
            },
            f"{_RW}x__rows_of_privatizer__mutmut_27": (
                "_add_audit(rows, privatizer, None)",
                _OWN_SUMMARY,
            ),
            **{
                f"{_RW}x__guarantee_rows__mutmut_{n}": (
                    line,
                    "both lists come from _per_column(..., n), so they have the "
                    "same length n and no strictness can fail",
                )
                for n, line in (
                    (112, "zip(eps, every, strict=None)"),
                    (115, "zip(eps, every, )"),
                    (116, "zip(eps, every, strict=False)"),
                )
            },
            f"{_RW}x__guarantee_rows__mutmut_219": (
                '"_exact_share": np.nan if (share[j] is None) and False else share[j],',
                _SHARE_MISSING,
            ),
            f"{_RW}x__rows_of_privatizer__mutmut_28": (
                'seeded = getattr(privatizer, "_is_seeded", )',
                "every privatizer the walk reads is a PrivatizerMixin, which "
                "defines _is_seeded: the default is never used",
            ),
            f"{_RW}x__add_audit__mutmut_7": (
                'if not callable(getattr(privatizer, "_exact_law", )):',
                "every privatizer the walk reads is a PrivatizerMixin, which "
                "defines _exact_law: the default is never used",
            ),
            f"{_RW}x__add_audit__mutmut_12": (
                "audited = audited_columns(privatizer, None)",
                _OWN_SUMMARY,
            ),
            f"{_RW}x__add_audit__mutmut_14": (
                "audited = audited_columns(privatizer, )",
                _OWN_SUMMARY,
            ),
            f"{_RW}x__add_audit__mutmut_18": (
                "for row, found in zip(rows, audited, strict=None):",
                _SAME_LENGTH,
            ),
            f"{_RW}x__add_audit__mutmut_21": (
                "for row, found in zip(rows, audited, ):",
                _SAME_LENGTH,
            ),
            f"{_RW}x__add_audit__mutmut_22": (
                "for row, found in zip(rows, audited, strict=False):",
                _SAME_LENGTH,
            ),
            f"{_RW}x__add_exact_disclosure__mutmut_3": (
                'reference_share = row.pop("_exact_share", None)',
                _SHARE_MISSING,
            ),
            f"{_RW}x__guarantee_rows__mutmut_50": (
                'zip(names, summary["columns"], strict=None)',
                _SUBSET_ZIP,
            ),
            f"{_RW}x__guarantee_rows__mutmut_53": (
                'zip(names, summary["columns"], )',
                _SUBSET_ZIP,
            ),
            f"{_RW}x__guarantee_rows__mutmut_221": (
                '"_exact_share": np.nan if (share[j] is None) and False else share[j]',
                _SHARE_MISSING,
            ),
            f"{_RW}x__scale__mutmut_6": (
                "break",
                "a factor of 0 comes only from a bagging member that never drew "
                "the record, and then it is 0 for every row of that member's "
                "call: stopping drops the same rows as skipping each",
            ),
        },
    ),
    "report_certify": ModuleSpec(
        path=f"{_P}_certify.py",
        tests=_STEPS,
        new_tests=_NEW,
        equivalent={
            f"{_CF}x__fixed_categories__mutmut_8": (
                'and getattr(est, "min_frequency", ) is None',
                _ENCODERS,
            ),
            f"{_CF}x__fixed_categories__mutmut_16": (
                'and getattr(est, "max_categories", ) is None',
                _ENCODERS,
            ),
            f"{_CF}x__learned__mutmut_24": (
                "for name, value in est.get_params(deep=None).items():",
                _DEEP_NONE,
            ),
            f"{_CF}x__stateless__mutmut_6": (
                "held = [e for v in est.get_params(deep=None).values() for e in "
                "_held(v)]",
                _DEEP_NONE,
            ),
            f"{_CF}x__stateless__mutmut_7": (
                "held = [e for v in est.get_params(deep=True).values() for e in "
                "_held(v)]",
                "deep=True adds the estimators nested in the held ones, which "
                "_stateless reaches anyway when it recurses into those: all() "
                "gives the same answer",
            ),
        },
    ),
    "report_rowwise": ModuleSpec(
        path=f"{_P}_rowwise.py",
        tests=_STEPS,
        new_tests=_NEW,
        equivalent={
            f"{_RT}transform__mutmut_2": (
                "check_is_fitted(self, None)",
                _FITTED,
            ),
            f"{_RT}transform__mutmut_4": (
                "check_is_fitted(self, )",
                _FITTED,
            ),
        },
        excluded={
            f"{_RI}x__inner_has__mutmut_1": (
                "inner = None",
                _IMPORT_TIME,
            ),
            f"{_RI}x__inner_has__mutmut_2": (
                'inner = getattr(None, "transformer_", None)',
                "as x__inner_has__mutmut_1",
            ),
            f"{_RI}x__inner_has__mutmut_3": (
                "inner = getattr(self, None, None)",
                "as x__inner_has__mutmut_1",
            ),
            f"{_RI}x__inner_has__mutmut_4": (
                'inner = getattr("transformer_", None)',
                "as x__inner_has__mutmut_1",
            ),
            f"{_RI}x__inner_has__mutmut_5": (
                "inner = getattr(self, None)",
                "as x__inner_has__mutmut_1",
            ),
            f"{_RI}x__inner_has__mutmut_6": (
                'inner = getattr(self, "transformer_", )',
                "as x__inner_has__mutmut_1",
            ),
            f"{_RI}x__inner_has__mutmut_7": (
                'inner = getattr(self, "XXtransformer_XX", None)',
                "as x__inner_has__mutmut_1",
            ),
            f"{_RI}x__inner_has__mutmut_8": (
                'inner = getattr(self, "TRANSFORMER_", None)',
                "as x__inner_has__mutmut_1",
            ),
            f"{_RI}x__inner_has__mutmut_9": (
                "if inner is not None:",
                "as x__inner_has__mutmut_1",
            ),
            f"{_RI}x__inner_has__mutmut_10": (
                "inner = None",
                "as x__inner_has__mutmut_1",
            ),
            f"{_RI}x__inner_has__mutmut_11": (
                "return hasattr(None, name)",
                "as x__inner_has__mutmut_1",
            ),
            f"{_RI}x__inner_has__mutmut_12": (
                "return hasattr(inner, None)",
                "as x__inner_has__mutmut_1",
            ),
            f"{_RI}x__inner_has__mutmut_13": (
                "return hasattr(name)",
                "as x__inner_has__mutmut_1",
            ),
            f"{_RI}x__inner_has__mutmut_14": (
                "return hasattr(inner, )",
                "as x__inner_has__mutmut_1",
            ),
        },
    ),
    "report_walker": ModuleSpec(
        path=f"{_P}_walker.py",
        # the released-reports tests reach the walk of estimators fitted on
        # reports released elsewhere (48 tests, a few seconds)
        tests=[*_FAST, *_REPEATS, "tests/test_privacy_report_released.py"],
        new_tests=_NEW_WALKER,
        equivalent=_WALKER_EQUIVALENT,
    ),
    "report_inspect": ModuleSpec(
        path=f"{_P}_inspect.py",
        tests=[*_FAST, *_REPEATS, f"{_C}test_selectors_resolve_on_a_dataframe"],
        new_tests=_NEW_INSPECT,
        equivalent=_INSPECT_EQUIVALENT,
    ),
    "report_init": ModuleSpec(
        path=f"{_P}__init__.py",
        tests=_FAST,
        new_tests=[
            *_NEW,
            "tests/test_side_doors.py::"
            "test_the_total_is_not_floating_point_safe_when_one_privatizer_is_not",
        ],
        equivalent={
            "skprivate._privacy_report.x_privacy_report__mutmut_69": (
                "report[col] = report[col].astype(None)",
                "dtype None is numpy's default dtype, float64: the same cast",
            ),
            "skprivate._privacy_report.x_privacy_report__mutmut_15": (
                "fitted = None",
                "the flag is read only as 'not fitted': None refuses as False does",
            ),
        },
    ),
    # which privatizer released the reports an estimator reads, and the
    # check that it is the mechanism the estimator was fitted with (else
    # the report would state the guarantee of other reports)
    "report_released": ModuleSpec(
        path=f"{_P}_released.py",
        tests=["tests/test_privacy_report_released.py"],
        new_tests=["tests/test_mutation_report_released.py", _NEW[2]],
        equivalent={
            **{
                f"{_RL}x__feature_name__mutmut_{n}": (
                    text,
                    "the lengths were compared just above: zip sees two lists of "
                    "one length, strict or not",
                )
                for n, text in (
                    (16, "strict=None"),
                    (19, "zip(names, out, )"),
                    (20, "strict=False"),
                )
            },
            **{
                f"{_RL}x__rebuilt__mutmut_{n}": (text, _REBUILT_SAME)
                for n, text in (
                    (7, "pd.Series(categories, dtype=None)"),
                    (9, "pd.Series(categories, )"),
                    (13, "out = fitted(None)"),
                    (21, '(feature is None or feature == "x0") and False'),
                    (23, 'feature is None and feature == "x0"'),
                    (26, 'feature == "XXx0XX"'),
                    (27, 'feature == "X0"'),
                )
            },
            **{
                f"{_RL}{function}__mutmut_{n}": (text, _DEEP_PARAMS)
                for function, n, text in (
                    ("x_no_privatizer_hint", 14, "get_params(deep=None)"),
                    ("x_no_privatizer_hint", 15, "get_params(deep=True)"),
                    ("x_released_mechanism", 11, "get_params(deep=None)"),
                    ("x_released_mechanism", 12, "get_params(deep=True)"),
                    ("x_report_source", 5, "get_params(deep=None)"),
                    ("x_report_source", 6, "get_params(deep=True)"),
                )
            },
            f"{_RL}x_same_channel__mutmut_17": (
                'a.dtype.kind in "XXfcXX"',
                "no numpy dtype has the kind 'X': the same kinds match NaN",
            ),
        },
    ),
}
