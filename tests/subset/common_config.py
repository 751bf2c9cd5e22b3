"""Common-test configuration of the subset family.

SubsetDistributionEstimator's input is a 0/1 indicator matrix of subset
reports validated against a design (each row must be a subset the design can
report).  scikit-learn's generic checks feed random floats, so every check
that fits on generic data is refused with a clear ValueError naming the row
or the design.  The estimator's behaviour on valid inputs (fit returns self,
idempotence, pickling, pandas input, n_features_in_, partial_fit, not
overwriting parameters) is tested in tests/subset/test_estimator.py.
"""

_REASON = (
    "the check fits on random floats; the estimator accepts only 0/1 subset "
    "reports consistent with its design (covered in tests/subset/test_estimator.py)"
)

_GENERIC_DATA_CHECKS = [
    "check_fit_score_takes_y",
    "check_estimators_overwrite_params",
    "check_dont_overwrite_parameters",
    "check_estimators_fit_returns_self",
    "check_readonly_memmap_input",
    "check_n_features_in_after_fitting",
    "check_positive_only_tag_during_fit",
    "check_estimators_dtypes",
    "check_dtype_object",
    "check_pipeline_consistency",
    "check_estimators_nan_inf",
    "check_estimators_pickle",
    "check_f_contiguous_array_estimator",
    "check_methods_sample_order_invariance",
    "check_methods_subset_invariance",
    "check_fit2d_1sample",
    "check_fit2d_1feature",
    "check_dict_unchanged",
    "check_fit_idempotent",
    "check_fit_check_is_fitted",
    "check_n_features_in",
    "check_fit2d_predict1d",
]

EXPECTED_FAILED_CHECKS = {
    "SubsetDistributionEstimator": dict.fromkeys(_GENERIC_DATA_CHECKS, _REASON)
}
