"""Mutation specs of the shared and interval-family confidence-interval code.

Merged into ``MODULES`` by ``_mutation_modules.py``; the form of each entry
is described there.  ``skprivate/interval/_intervals.py`` is mutated in two
restricted runs (its NPMLE intervals; its MLE and regression intervals), each
with the tests that reach that half, so that a run stays within the time
one module is given on the shared machine.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

_UNC = "skprivate._uncertainty."
_GRID = "skprivate._grid_density._intervals."
_IV = "skprivate.interval._intervals."
_ID = "skprivate.interval._identified."

_NPMLE_FUNCTIONS = [
    f"{_IV}x__lr_critical__mutmut_*",
    f"{_IV}x__informative__mutmut_*",
    f"{_IV}x__is_case_one__mutmut_*",
    f"{_IV}xǁ_CurrentStatusǁ*",
    f"{_IV}x__kde_at__mutmut_*",
    f"{_IV}xǁNPMLEIntervalsMixinǁ*",
    f"{_IV}xǁ_CdfAtǁ*",
    f"{_IV}xǁ_QuantileAtǁ*",
    f"{_IV}xǁ_Meanǁ*",
]
_MLE_FUNCTIONS = [
    f"{_IV}xǁ_Scaleǁ*",
    f"{_IV}xǁ_Predictǁ*",
    f"{_IV}x__hessian__mutmut_*",
    f"{_IV}x__covariance__mutmut_*",
    f"{_IV}x__row_loglik__mutmut_*",
    f"{_IV}xǁMLEIntervalsMixinǁ*",
    f"{_IV}x__identity__mutmut_*",
    f"{_IV}xǁRegressionIntervalsMixinǁ*",
    f"{_IV}xǁ_LinearInformationǁ*",
    f"{_IV}xǁ_Coefǁ*",
]

# the interval tests of several seconds to minutes each (coverage by
# simulation, bootstrap refits of the regressor) are left out: every
# surviving mutant would run them
_INTERVAL_TESTS = _all_but(
    "tests/interval/test_intervals.py",
    "test_likelihood_ratio_cdf_and_quantile_intervals_cover_at_95",
    "test_influence_standard_error_matches_the_spread_of_the_npmle_mean",
    "test_wald_mean_interval_of_the_mle_covers_on_case_one_data",
    "test_subsampling_is_reproducible_and_used_for_case_two",
    "test_regression_bootstrap_is_used_for_other_base_regressors",
)
_IDENTIFIED_TESTS = _all_but(
    "tests/interval/test_identified.py",
    "test_narrow_anchors_identified_set_covers_where_the_old_interval_does_not",
)

SPECS: dict[str, ModuleSpec] = {
    "uncertainty": ModuleSpec(
        path="skprivate/_uncertainty.py",
        tests=[
            # not the n_jobs reproducibility check (about 15 s: it fits with
            # several worker counts); the new tests pin the seeding exactly
            *_all_but(
                "tests/test_uncertainty.py",
                "test_resampling_is_reproducible_and_independent_of_n_jobs",
            ),
            "tests/test_release_only_methods.py::"
            "test_bootstrap_without_data_asks_for_the_release_not_the_fit_data",
            "tests/test_release_only_methods.py::"
            "test_perturbed_kde_ml_mean_is_the_noisy_mean_of_the_release",
        ],
        new_tests=["tests/test_mutation_intervals.py"],
        equivalent={
            f"{_UNC}x_interval_frame__mutmut_31": (
                "columns=None,",
                "the dict of columns is built in the order of COLUMNS: the same frame",
            ),
            f"{_UNC}x_interval_frame__mutmut_33": (
                ")",
                "as x_interval_frame__mutmut_31 (the columns= argument left out)",
            ),
        },
        excluded={
            f"{_UNC}x_bootstrap_replicates__mutmut_79": (
                ")",
                "the failed-fits warning loses its stacklevel; under mutmut a "
                "trampoline frame is the caller, so only "
                "tests/test_warning_location.py (outside mutmut) sees it",
            ),
        },
    ),
    "grid_intervals": ModuleSpec(
        path="skprivate/_grid_density/_intervals.py",
        tests=[
            # not the coverage simulations (5-15 s each)
            *_all_but(
                "tests/test_grid_ems_bias_corrected.py",
                "test_corrected_interval_covers_the_true_cdf_where_the_smoothed_one_misses",
            ),
            *_all_but(
                "tests/test_intervals_moment_tilt.py",
                "test_tilted_ems_standard_error_matches_the_spread_of_tilted_fits",
            ),
            "tests/negative_survey/test_intervals.py",
            "tests/ldp/test_intervals.py::test_perturbed_kde_intervals_use_the_releases",
            "tests/ldp/test_intervals.py::"
            "test_perturbed_kde_linearization_follows_the_fits_moment_tilt",
        ],
        new_tests=["tests/test_mutation_intervals.py"],
    ),
    # the NPMLE's intervals: likelihood ratio, subsampling, influence, and
    # the dispatch to the identified set
    "interval_intervals_npmle": ModuleSpec(
        path="skprivate/interval/_intervals.py",
        tests=[
            *_INTERVAL_TESTS,
            *_IDENTIFIED_TESTS,
            "tests/test_uncertainty.py::"
            "test_conf_int_refuses_unfitted_estimators_and_unknown_kinds",
        ],
        new_tests=["tests/test_mutation_intervals.py"],
        functions=_NPMLE_FUNCTIONS,
    ),
    # the MLE's Wald intervals and the regressor's predict and coef intervals
    "interval_intervals_mle": ModuleSpec(
        path="skprivate/interval/_intervals.py",
        tests=[
            *_INTERVAL_TESTS,
            *_all_but(
                "tests/interval/test_coef_intervals.py",
                "test_coef_wald_interval_covers_at_95",
                "test_predict_with_logistic_noise_defaults_to_the_bootstrap_and_refuses_wald",
                "test_coef_with_logistic_noise_defaults_to_the_bootstrap",
                "test_coef_bootstrap_for_a_linear_base_other_than_least_squares",
            ),
            "tests/test_release_only_methods.py::"
            "test_interval_regressor_refuses_the_raw_responses",
        ],
        new_tests=["tests/test_mutation_intervals.py"],
        functions=_MLE_FUNCTIONS,
    ),
    "interval_identified": ModuleSpec(
        path="skprivate/interval/_identified.py",
        tests=_IDENTIFIED_TESTS,
        new_tests=["tests/test_mutation_intervals.py"],
    ),
}
