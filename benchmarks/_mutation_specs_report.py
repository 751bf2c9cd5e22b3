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
_NEW = ["tests/test_mutation_report.py"]
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

SPECS: dict[str, ModuleSpec] = {
    "report_total": ModuleSpec(
        path=f"{_P}_total.py",
        tests=_FAST,
        new_tests=_NEW,
        equivalent={
            f"{_T}x__total_row__mutmut_19": (
                'r.get("epsilon", np.nan) for r in rows], dtype=None)',
                _FLOATS,
            ),
            f"{_T}x__total_row__mutmut_21": (
                'r.get("epsilon", np.nan) for r in rows], )',
                _FLOATS,
            ),
            f"{_T}x__total_row__mutmut_23": (
                'r.get("epsilon", None) for r in rows], dtype=float)',
                _NONE_NAN,
            ),
            f"{_T}x__total_row__mutmut_25": (
                'r.get("epsilon", ) for r in rows], dtype=float)',
                _NONE_NAN,
            ),
            f"{_T}x__total_row__mutmut_89": (
                '"XXdeltaXX": np.nan,',
                "privacy_report reindexes the total row into the report's "
                "columns: a total without a delta shows NaN, the value it sets",
            ),
            f"{_T}x__total_row__mutmut_90": (
                '"DELTA": np.nan,',
                "as x__total_row__mutmut_89",
            ),
            f"{_T}x__total_row__mutmut_115": (
                'r.get("delta", 0.0) for r in rows], dtype=None)',
                _FLOATS,
            ),
            f"{_T}x__total_row__mutmut_117": (
                'r.get("delta", 0.0) for r in rows], )',
                _FLOATS,
            ),
            f"{_T}x__total_row__mutmut_119": (
                'r.get("delta", None) for r in rows], dtype=float)',
                "a missing delta read as None is NaN, which nansum skips: the "
                "same as the 0.0 default",
            ),
            f"{_T}x__total_row__mutmut_121": (
                'r.get("delta", ) for r in rows], dtype=float)',
                "as x__total_row__mutmut_119",
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
        new_tests=_NEW,
        equivalent={
            f"{_RW}x__rows_of_privatizer__mutmut_15": (
                "_add_audit(rows, privatizer, None)",
                _OWN_SUMMARY,
            ),
            f"{_RW}x__rows_of_privatizer__mutmut_24": (
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
            f"{_RW}x__static_rows__mutmut_2": (
                "params = privatizer.get_params(deep=None)",
                _SHALLOW,
            ),
            f"{_RW}x__static_rows__mutmut_3": (
                "params = privatizer.get_params(deep=True)",
                _SHALLOW,
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
        tests=[*_FAST, *_REPEATS],
        new_tests=_NEW,
    ),
    "report_inspect": ModuleSpec(
        path=f"{_P}_inspect.py",
        tests=[*_FAST, *_REPEATS, f"{_C}test_selectors_resolve_on_a_dataframe"],
        new_tests=_NEW,
    ),
    "report_init": ModuleSpec(
        path=f"{_P}__init__.py",
        tests=_FAST,
        new_tests=_NEW,
        equivalent={
            "skprivate._privacy_report.x_privacy_report__mutmut_58": (
                "report[col] = report[col].astype(None)",
                "dtype None is numpy's default dtype, float64: the same cast",
            ),
        },
    ),
}
