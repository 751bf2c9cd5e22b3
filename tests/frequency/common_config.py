"""Common-test configuration of the frequency-oracle family.

The privatizers pass every scikit-learn check with their defaults
(categories read from the data, with the privacy-leak warning).
FrequencyEstimator's input is the reports of one column of a frequency
oracle, validated against the oracle given as ``oracle=``; the default
instance has none, and scikit-learn's generic checks feed random floats of
several columns, so every check that fits on generic data is refused with
a clear ValueError.  The estimator's behaviour on valid input (fit returns
self, partial_fit, dask, pickling, refits) is tested in
tests/frequency/test_estimator.py.
"""

_REASON = (
    "the check fits on random floats; the estimator accepts only the reports of "
    "the oracle it is given (covered in tests/frequency/test_estimator.py)"
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
    "FrequencyEstimator": dict.fromkeys(_GENERIC_DATA_CHECKS, _REASON),
    "LongitudinalFrequencyEstimator": dict.fromkeys(
        _GENERIC_DATA_CHECKS,
        "the check fits on random floats; the estimator accepts only the reports "
        "of the LongitudinalOracle it is given (tests/frequency/test_longitudinal.py)",
    ),
}
