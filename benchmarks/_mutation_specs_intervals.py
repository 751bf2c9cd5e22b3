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
_POP = f"{_UNC}xǁPopulationIntervalMixinǁ"
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
        new_tests=["tests/test_mutation_intervals_uncertainty.py"],
        equivalent={
            f"{_UNC}x_interval_frame__mutmut_31": (
                "columns=None,",
                "the dict of columns is built in the order of COLUMNS: the same frame",
            ),
            f"{_UNC}x_interval_frame__mutmut_33": (
                ")",
                "as x_interval_frame__mutmut_31 (the columns= argument left out)",
            ),
            f"{_UNC}x__seed_sequence__mutmut_6": (
                "random_state.integers(2**63 - 1, size=4)",
                "integers(n) draws from [0, n) like integers(0, n), with the "
                "same algorithm: the same words",
            ),
            f"{_UNC}x__seed_sequence__mutmut_21": (
                "random_state.randint(2**31 - 1, size=4)",
                "randint(n) draws from [0, n) like randint(0, n): the same words",
            ),
            f"{_UNC}x_resample_indices__mutmut_16": (
                "rng.integers(n, size=size)",
                "integers(n) draws from [0, n) like integers(0, n): the same rows",
            ),
            **{
                f"{_UNC}x_conf_int_rows__mutmut_{i}": (
                    line,
                    "the five columns zipped are columns of one DataFrame, "
                    "always of one length: zip stops at the same row strict "
                    "or not",
                )
                for i, line in ((38, "strict=None,"), (44, ")"), (55, "strict=False,"))
            },
            **{
                f"{_POP}_ci_bootstrap_population__mutmut_{i}": (
                    line,
                    "the memo key only has to differ from the other keys of the "
                    "one conf_int call's cache; no handler that reaches the "
                    "population bootstrap memoizes anything else under None or "
                    "this name, so the replicates are computed once and shared "
                    "by the levels as before",
                )
                for i, line in (
                    (6, "None,"),
                    (10, '"XXbootstrapXX",'),
                    (11, '"BOOTSTRAP",'),
                )
            },
            **{
                f"{_POP}_ci_bootstrap_population__mutmut_{i}": (
                    line,
                    "the estimate goes to interval_frame, which converts it with "
                    "np.asarray(estimate, dtype=float): converting first without "
                    "a dtype gives the same floats (or the same error)",
                )
                for i, line in (
                    (49, "np.asarray(statistic(self), dtype=None),"),
                    (51, "np.asarray(statistic(self), ),"),
                )
            },
            **{
                f"{_POP}_conf_int_{kind}__mutmut_{i}": (
                    line,
                    "the method choose() returns is discarded (the bootstrap is "
                    "the only method): only its check of method= matters, which "
                    "does not read the auto value",
                )
                for kind in ("mean", "quantile", "cdf")
                for i, line in (
                    (2, '(("bootstrap",), None,'),
                    (9, '(("bootstrap",), "XXbootstrapXX",'),
                    (10, '(("bootstrap",), "BOOTSTRAP",'),
                )
            },
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
        new_tests=["tests/test_mutation_intervals_grid.py"],
        equivalent={
            **{
                f"{_GRID}x__quantile_inversion__mutmut_{i}": (
                    line,
                    "m is deleted unused (del m): its value reaches nothing",
                )
                for i, line in (
                    (2, "m = None"),
                    (3, "m = edges.size + 1"),
                    (4, "m = edges.size - 2"),
                )
            },
            f"{_GRID}x__quantile_inversion__mutmut_41": (
                '"PI,IJ,PJ->P"',
                "einsum takes upper-case letters as subscripts too: the same "
                "contraction",
            ),
            f"{_GRID}xǁGridEMSIntervalsMixinǁ_conf_int_cdf__mutmut_41": (
                '"PI,IJ,PJ->P"',
                "as x__quantile_inversion__mutmut_41",
            ),
            **{
                f"{_GRID}x__quantile_inversion__mutmut_{i}": (
                    line,
                    "the lower clip of the fallback index never binds: the grid "
                    "starts at the left edge, where the CDF is 0, and a level q "
                    "> 0 (probabilities_of refuses 0) is then found at index 1 "
                    "or later; q = 0 itself is accepted at that first point, "
                    "so the fallback is not reached",
                )
                for i, line in (
                    (60, "np.searchsorted(F, p), None, grid.size - 1)"),
                    (69, "np.searchsorted(F, p), 1, grid.size - 1)"),
                )
            },
            **{
                f"{_GRID}x__rearranged_quantiles__mutmut_{i}": (
                    line,
                    "the sorted CDF holds 0 (its first value) and 1 (its last, "
                    "divided by itself); clipping is monotone, so it keeps the "
                    "order and changes only values below 0 or above 1, which "
                    "np.interp never reaches for a level in (0, 1)",
                )
                for i, line in (
                    (8, "np.clip(cdf / cdf[-1], None, 1.0)"),
                    (9, "np.clip(cdf / cdf[-1], 0.0, None)"),
                    (17, "np.clip(cdf / cdf[-1], 0.0, 2.0)"),
                )
            },
            f"{_GRID}x__report_covariance__mutmut_11": (
                ".astype(None)",
                "astype(None) is astype(float64): the same counts",
            ),
            f"{_GRID}x_binomial_filter_matrix__mutmut_19": (
                "np.clip(i - offset, 0, m - 1)",
                "the filter is symmetric (weight 1/4 at both offsets): i - "
                "offset walks the same three (offset, weight) pairs",
            ),
            f"{_GRID}x_ems_covariance__mutmut_65": (
                ".reshape(n, -2)",
                "numpy reads any negative size as the unknown one: reshape(n, "
                "-2) is reshape(n, -1)",
            ),
            f"{_GRID}x_ems_covariance__mutmut_99": (
                "rowvar=None",
                "np.cov tests rowvar for truth: None acts as False",
            ),
            f"{_GRID}x_ems_gradient__mutmut_55": (
                "np.linalg.lstsq(lhs, J_t, )[0]",
                "rcond=None is the default of lstsq in numpy 2",
            ),
            f"{_GRID}x_smoothing_matrix__mutmut_3": (
                "width < 0",
                "for width 0 _smoother returns None itself (it refuses widths "
                "<= 0): the same None",
            ),
            **{
                f"{_GRID}xǁGridEMSIntervalsMixinǁ_ci_cells__mutmut_{i}": (
                    line,
                    "the number of BLAS (or other) threads of the small matrix "
                    "products changes only their speed",
                )
                for i, line in (
                    (1, 'threadpool_limits(limits=None, user_api="blas")'),
                    (2, "threadpool_limits(limits=1, user_api=None)"),
                    (3, 'threadpool_limits(user_api="blas")'),
                    (4, "threadpool_limits(limits=1, )"),
                    (5, 'threadpool_limits(limits=2, user_api="blas")'),
                )
            },
            **{
                f"{_GRID}xǁGridEMSIntervalsMixinǁ_ci_cells__mutmut_{i}": (
                    line,
                    "a memo key only has to differ from the other keys of one "
                    "conf_int call ('ems', 'ems-rbc', 'bootstrap', the "
                    "width-choice tuples): the renamed key still does, so the "
                    "fit is linearized (and corrected) once per call as before",
                )
                for i, line in (
                    (9, "request.memo(None, lambda: self._ci_linearized"),
                    (13, 'request.memo("XXemsXX"'),
                    (14, 'request.memo("EMS"'),
                    (21, "request.memo(None, lambda: self._ci_corrected"),
                    (25, 'request.memo("XXems-rbcXX"'),
                    (26, 'request.memo("EMS-RBC"'),
                )
            },
            **{
                f"{_GRID}xǁGridEMSIntervalsMixinǁ_ci_grid_method__mutmut_{i}": (
                    line,
                    "the chosen method is only compared with 'bootstrap' and "
                    "'smoothed' (here and in _ci_cells, _ci_describe): any "
                    "other name is the bias-corrected method",
                )
                for i, line in ((4, 'auto = "XXrbcXX"'), (5, 'auto = "RBC"'))
            },
            **{
                f"{_GRID}xǁGridEMSIntervalsMixinǁ_ci_linearized_mean__mutmut_{i}": (
                    line,
                    "as _ci_grid_method__mutmut_4: a default other than "
                    "'smoothed' is the bias-corrected method",
                )
                for i, line in (
                    (1, 'method: str = "XXrbcXX"'),
                    (2, 'method: str = "RBC"'),
                )
            },
            f"{_GRID}xǁGridEMSIntervalsMixinǁ_ci_ems_refit__mutmut_7": (
                "warn=None,",
                "ems_cell_probabilities tests warn for truth: None acts as False",
            ),
            f"{_GRID}xǁMomentTiltǁtilted__mutmut_19": (
                "w * w.sum(),",
                "tilt_to_moments normalizes the mass it is given (p / p.sum()): "
                "a positive multiple of w is the same tilt",
            ),
            **{
                f"{_GRID}xǁMomentTiltǁjacobians__mutmut_{i}": (
                    line,
                    "past the early return the fit has tilted, which "
                    "tilt_to_moments does only when the same Mahalanobis "
                    "distance exceeds within: dist > within here (equality "
                    "or the else branch only at a last-bit rounding "
                    "difference between F.T @ w and w @ F)",
                )
                for i, line in (
                    (45, "if dist >= self.within:"),
                    (59, "Q = None"),
                    (60, "Q = np.zeros(None)"),
                )
            },
        },
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
        new_tests=["tests/test_mutation_intervals_npmle.py"],
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
        new_tests=["tests/test_mutation_intervals_mle.py"],
        functions=_MLE_FUNCTIONS,
    ),
    "interval_identified": ModuleSpec(
        path="skprivate/interval/_identified.py",
        tests=_IDENTIFIED_TESTS,
        new_tests=["tests/test_mutation_intervals.py"],
    ),
}
