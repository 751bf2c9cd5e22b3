"""Mutation specs of the shared and interval-family confidence-interval code.

Merged into ``MODULES`` by ``_mutation_modules.py``; the form of each entry
is described there.  The interval family's intervals are mutated one
module at a time (the NPMLE's, the MLE's, the regressor's, and the statistics
their resampling recomputes), each with the tests that reach it, so that a
run stays within the time one module is given on the shared machine.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

_UNC = "skprivate._uncertainty."
_POP = f"{_UNC}xǁPopulationIntervalMixinǁ"
_GRID = "skprivate._grid_density._intervals."
_NP = "skprivate.interval._npmle_intervals."
_ML = "skprivate.interval._mle_intervals."
_RG = "skprivate.interval._regression_intervals."
_ID = "skprivate.interval._identified."

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
# the tests of the MLE's and the regressor's Wald intervals (the coverage
# simulations and the bootstrap refits left out, as above)
_WALD_TESTS = [
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
    # the coverage simulation (400 fits) is left to the ordinary suite
    *_all_but("tests/interval/test_mle_sandwich.py", "test_sampling_weights_coverage"),
    # the weights and the fitted rows the intervals read
    "tests/interval/test_conf_int_fit_data.py",
]
_IDENTIFIED_TESTS = [
    *_all_but(
        "tests/interval/test_identified.py",
        "test_narrow_anchors_identified_set_covers_where_the_old_interval_does_not",
    ),
    "tests/interval/test_conf_int_fit_data.py::"
    "test_npmle_identified_set_of_a_weighted_fit_bootstraps_with_the_weights",
]


def _within(prefix: str, mutants: dict) -> dict:
    """The entries of ``mutants`` that name a mutant of one module."""
    return {k: v for k, v in mutants.items() if k.startswith(prefix)}


# equivalent mutants of the Wald intervals, over the MLE's module and the
# regressor's (each spec takes its own module's)
_WALD_EQUIVALENT = {
    **{
        f"{_ML}xǁMLEIntervalsMixinǁ_ci_parameter_covariance__mutmut_{i}": (
            line,
            "the noise name is only compared with 'gaussian' (in "
            "_row_loglik and log_interval_prob): any other name is the "
            "logistic law, as 'logistic' is",
        )
        for i, line in (
            (26, 'else "XXlogisticXX"'),
            (27, 'else "LOGISTIC"'),
        )
    },
    **{
        f"{_ML}xǁMLEIntervalsMixinǁ_ci_parameter_covariance__mutmut_{i}": (
            line,
            reason,
        )
        for i, line, reason in (
            (
                34,
                "np.asarray(weights, None)",
                "the weights come from the fit's record, already floats",
            ),
            (36, "np.asarray(weights, )", "as mutmut_34"),
            (
                8,
                'check_interval_array(X, name=None), name="X")',
                "conf_int checked X against the fit's record first (the "
                "same validation, named X): a bad X never reaches here",
            ),
            (10, 'check_interval_array(X, ), name="X")', "as mutmut_8"),
            (11, 'name="XXXXX"), name="X")', "as mutmut_8"),
            (12, 'name="x"), name="X")', "as mutmut_8"),
        )
    },
    **{
        f"{_ML}x__sandwich__mutmut_{i}": (line, reason)
        for i, line, reason in (
            (
                31,
                "np.finfo(None).tiny",
                "np.finfo(None) is float64's, as np.finfo(float) is",
            ),
            (
                42,
                '"JA,IJK,KB->IAB"',
                "einsum takes upper-case letters as subscripts too",
            ),
            (
                45,
                "min() <= _LEVERAGE_GAP",
                "a continuous eigenvalue equal to the gap to the last bit "
                "is not reached: < and <= refuse the same fits",
            ),
        )
    },
    f"{_ML}x__sandwich__mutmut_18": (
        "_covariance(-information, None)",
        "both callers computed the inverse information first, refusing a "
        "singular one with their own name: the name here is never shown",
    ),
    **{
        f"{_ML}xǁMLEIntervalsMixinǁ_ci_wald__mutmut_{i}": (
            line,
            "the one memo of a Wald call (the bootstrap's memo is never "
            "in the same conf_int call, whose method is fixed): the "
            "renamed key still computes the information once per call",
        )
        for i, line in (
            (54, "None,"),
            (58, '("XXcovarianceXX", method),'),
            (59, '("COVARIANCE", method),'),
        )
    },
    f"{_ML}xǁMLEIntervalsMixinǁ_ci_wald__mutmut_86": (
        '"IJ,JK,IK->I"',
        "einsum takes upper-case letters as subscripts too: the same contraction",
    ),
    **{
        f"{_ML}xǁMLEIntervalsMixinǁ_ci_wald__mutmut_{i}": (
            line,
            "the value is already float64 (loc_, log(scale_), or "
            "arithmetic on the float64 arrays of probabilities_of and "
            "values_of): asarray without a dtype keeps it",
        )
        for i, line in (
            (97, "np.asarray(value, dtype=None)"),
            (99, "np.asarray(value, )"),
        )
    },
    f"{_RG}xǁ_LinearInformationǁse__mutmut_13": (
        '"IJ,JK,IK->I"',
        "as _ci_wald__mutmut_63",
    ),
    **{
        f"{_RG}xǁRegressionIntervalsMixinǁ_ci_bootstrap_reps__mutmut_{i}": (
            line,
            "the one memo of a bootstrap call (the Wald path's "
            "'information' memo is never in the same conf_int call): "
            "the renamed key still refits once per call",
        )
        for i, line in (
            (1, "None,"),
            (5, '"XXbootstrapXX",'),
            (6, '"BOOTSTRAP",'),
        )
    },
    **{
        f"{_RG}xǁRegressionIntervalsMixinǁ_ci_bootstrap_reps__mutmut_{i}": (
            line,
            "bootstrap_replicates draws every replicate's rows before "
            "any fit, so the replicates do not depend on n_jobs "
            "(test_uncertainty checks it); None is its default: only "
            "the number of joblib workers changes",
        )
        for i, line in ((14, "n_jobs=None,"), (22, ""))
    },
    f"{_RG}xǁRegressionIntervalsMixinǁ_ci_coefficients__mutmut_15": (
        'getattr(self, "n_features_in_", )',
        "conf_int refuses an unfitted estimator before any handler, "
        "and a fitted regressor always has n_features_in_ (read from "
        "estimator_): the default is never used",
    ),
    **{
        f"{_RG}xǁRegressionIntervalsMixinǁ_ci_coefficients__mutmut_{i}": (
            line,
            "the coefficients reach the intervals only as the estimate, "
            "which normal_interval and interval_frame compute with in "
            "float (and the intercept concatenated first is a float): "
            "an integer coef_ gives the same floats",
        )
        for i, line in (
            (34, "np.asarray(coef, dtype=None)"),
            (36, "np.asarray(coef, )"),
        )
    },
    **{
        f"{_RG}xǁ_Coefǁ__call____mutmut_{i}": (
            line,
            "bootstrap_replicates stores each replicate in its float "
            "array of replicates: an integer coef_ gives the same floats",
        )
        for i, line in (
            (5, "np.asarray(model.coef_, dtype=None)"),
            (7, "np.asarray(model.coef_, )"),
        )
    },
    **{
        f"{_RG}xǁRegressionIntervalsMixinǁ_ci_kept_release__mutmut_{i}": (
            line,
            "fit always sets privatizer_ and released_ (both branches "
            "of PrivatizingMixin._privatize), and conf_int refuses an "
            "unfitted estimator first: the default is never used",
        )
        for i, line in (
            (5, 'getattr(self, "privatizer_", )'),
            (15, 'getattr(self, "released_", )'),
        )
    },
    f"{_RG}xǁRegressionIntervalsMixinǁ_ci_regression_method__mutmut_9": (
        'getattr(self, "solver_", )',
        "fit always sets solver_ (to 'newton' or None at the solve, "
        "then possibly 'projection', 'squarem' or 'em'), and conf_int "
        "refuses an unfitted estimator first: the default is never used",
    ),
    **{
        f"{_RG}xǁRegressionIntervalsMixinǁ_ci_regression_method__mutmut_{i}": (
            line,
            "the auto value of an MLE fit (LinearRegression, Gaussian, "
            "not projected) is compared with 'bootstrap' by the "
            "handlers, and with 'wald' only by the three refusals, "
            "each of which needs a fit that is not the MLE: any other "
            "name is Wald, as 'wald' is",
        )
        for i, line in ((36, '"XXwaldXX" if mle'), (37, '"WALD" if mle'))
    },
    **{
        f"{_RG}xǁRegressionIntervalsMixinǁ_ci_information__mutmut_{i}": (
            line,
            "the one memo of a Wald call (the bootstrap's memo is never "
            "in the same conf_int call, and one call has one method): the "
            "renamed key still computes the information once per call",
        )
        for i, line in (
            (1, "None,"),
            (5, '("XXinformationXX", method),'),
            (6, '("INFORMATION", method),'),
        )
    },
    f"{_RG}xǁRegressionIntervalsMixinǁ_ci_linear_information__mutmut_1": (
        "sandwich: bool = True,",
        "the one caller (_ci_information) always passes sandwich=",
    ),
    **{
        f"{_RG}xǁRegressionIntervalsMixinǁ_ci_linear_information__mutmut_{i}": (
            line,
            "the weights come from the fit's record, already floats",
        )
        for i, line in (
            (85, "np.asarray(weights, None)"),
            (87, "np.asarray(weights, )"),
        )
    },
    f"{_RG}xǁRegressionIntervalsMixinǁ_conf_int_coef__mutmut_44": (
        "G = np.zeros((p + 1, p + 3))",
        "se() keeps only the columns of the free parameters, all below "
        "p + 2: the extra zero column is never read",
    ),
    **{
        f"{_RG}xǁRegressionIntervalsMixinǁ_conf_int_predict__mutmut_{i}": (
            line,
            "the estimate enters only the float arithmetic of "
            "normal_interval and interval_frame's float conversion; a "
            "predict in float32 or integers widens exactly: the same "
            "floats",
        )
        for i, line in (
            (8, "np.asarray(self.predict(points), dtype=None)"),
            (10, "np.asarray(self.predict(points), )"),
        )
    },
    **{
        f"{_RG}x__dense__mutmut_{i}": (
            line,
            "np.asarray(frame, dtype=float) is frame.to_numpy(dtype="
            "float), and astype(None) is astype(float64): the same rows",
        )
        for i, line in (
            (2, "X.toarray().astype(None)"),
            (3, 'hasattr(None, "iloc")'),
            (7, 'hasattr(X, "XXilocXX")'),
            (8, 'hasattr(X, "ILOC")'),
        )
    },
    **{
        f"{_RG}xǁRegressionIntervalsMixinǁ_ci_linear_information__mutmut_{i}": (
            line,
            reason,
        )
        for i, line, reason in (
            (
                31,
                "if (model.fit_intercept) or True else 0.0",
                "without fit_intercept LinearRegression sets intercept_ "
                "= 0.0: float(intercept_) is the else branch's 0.0",
            ),
            (
                33,
                "if model.fit_intercept else 1.0",
                "without an intercept theta0[0] is never read: split() "
                "takes b = 0.0 and theta[0] is not free (keep[0] is "
                "has_b, False)",
            ),
            (
                66,
                "b = theta[0] if (has_b) or True else 0.0",
                "without an intercept theta[0] stays theta0[0] = 0.0 + "
                "zeros @ coef = 0.0 (intercept_ is 0.0, the mean is "
                "zeros) and is never freed: the same b = 0.0",
            ),
            (
                74,
                "if (known) and False else theta[1 + p]",
                "with a known sigma theta[1 + p] stays theta0[1 + p] = "
                "log(sigma_): not freed (keep's last entry is False) "
                "and not profiled",
            ),
            (
                133,
                "np.ones(p, None)",
                "np.r_ of a bool, float ones and a bool is a float "
                "array with the same nonzero entries: flatnonzero "
                "gives the same free indices",
            ),
            (135, "np.ones(p, )", "as _ci_linear_information__mutmut_133"),
        )
    },
    **{
        f"{_RG}xǁRegressionIntervalsMixinǁ_ci_linear_information__mutmut_{i}": (
            line,
            "name='y' is the default of check_interval_array and "
            "check_two_sided: the same messages",
        )
        for i, line in (
            (6, 'check_interval_array(y, name="y"), )'),
            (10, 'check_interval_array(y, ), name="y")'),
        )
    },
    f"{_RG}xǁRegressionIntervalsMixinǁ_ci_linear_information__mutmut_48": (
        "scale[~(scale > 0)] = 2.0",
        "only constant features get 2.0 for 1.0, and only without an "
        "intercept (beside one, a constant feature is refused as "
        "singular either way): their slope is reparametrized by the "
        "exact factor 2, which G undoes, and only the central-"
        "difference step in that slope is halved; with exact rows the "
        "log-likelihood is quadratic in the slopes and the differences "
        "are exact at any step, with interval rows the two "
        "informations agree within the differences' truncation error "
        "(about 1e-4 relative where a step moves the fitted values by "
        "one sigma), which the interval cannot be pinned to",
    ),
    f"{_RG}xǁRegressionIntervalsMixinǁ_ci_linear_information__mutmut_125": (
        "if found.success or np.isfinite(found.x):",
        "the two differ only when Brent reports failure with a finite "
        "x or success with a non-finite one; scipy's Brent fails only "
        "after 500 iterations, which its golden-section steps never "
        "need from a finite bracket, and on the profile (finite at "
        "every finite log sigma) it returns a finite x even when the "
        "minimum runs off to -inf (x about -4e307, with success)",
    ),
    **{
        f"{_RG}xǁRegressionIntervalsMixinǁ_ci_linear_information__mutmut_{i}": (
            line,
            "the bracket only starts Brent's downhill search for the "
            "minimum of the profile in log sigma, which is unimodal "
            "(convex for exact rows: n u + RSS e^(-2u) / 2); from any "
            "start it ends at the same minimum within Brent's xtol "
            "(1.5e-8), below the accuracy of the central-difference "
            "information; for p = 2 theta0[1 - p] is theta0[-1], the "
            "same entry",
        )
        for i, line in (
            (114, "profile, bracket=None"),
            (116, "profile, )"),
            (118, "bracket=(theta0[1 - p] - 0.1, theta0[1 + p] + 0.1)"),
            (120, "bracket=(theta0[1 + p] - 1.1, theta0[1 + p] + 0.1)"),
            (122, "bracket=(theta0[1 + p] - 0.1, theta0[1 - p] + 0.1)"),
            (124, "bracket=(theta0[1 + p] - 0.1, theta0[1 + p] + 1.1)"),
        )
    },
}

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
        new_tests=[
            "tests/test_mutation_intervals_uncertainty.py",
            # the fitted rows and weights the intervals read, and the checks
            # of level and points
            "tests/interval/test_conf_int_fit_data.py",
            # the hook by which an estimator refits all the draws at once
            "tests/interval/test_npmle_resampling_speed.py",
            # the delete-a-group jackknife (not its coverage simulation)
            *_all_but(
                "tests/test_group_jackknife.py",
                "test_npmle_mean_jackknife_covers_the_mean",
            ),
        ],
        equivalent={
            f"{_UNC}x_interval_frame__mutmut_31": (
                "columns=None,",
                "the dict of columns is built in the order of COLUMNS: the same frame",
            ),
            f"{_UNC}x_interval_frame__mutmut_33": (
                ")",
                "as x_interval_frame__mutmut_31 (the columns= argument left out)",
            ),
            f"{_UNC}x_group_jackknife_indices__mutmut_29": (
                "np.bincount(group, )",
                "2 <= n_groups <= n and the groups are dealt round-robin over n "
                "rows: every group holds a row, so the count has n_groups "
                "entries without minlength",
            ),
            **{
                f"{_UNC}x_group_jackknife_interval__mutmut_{k}": (
                    change,
                    "an integer estimate, replicates or sizes enter only "
                    "products and quotients with floats (h = n / sizes is a "
                    "true division): the same floats without dtype=float",
                )
                for k, change in (
                    (4, "np.asarray(estimate, dtype=None)"),
                    (6, "np.asarray(estimate, )"),
                    (13, "np.asarray(replicates, dtype=None)"),
                    (15, "np.asarray(replicates, )"),
                    (20, "np.asarray(sizes, dtype=None)"),
                    (22, "np.asarray(sizes, )"),
                )
            },
            f"{_UNC}x_group_jackknife_interval__mutmut_17": (
                ".reshape(-2, estimate.size)",
                "numpy reads any negative length in reshape as the one "
                "inferred dimension: the same shape as -1",
            ),
            f"{_UNC}x_resample_indices__mutmut_24": (
                "replace=None",
                "Generator.choice tests replace for truth: None draws without "
                "replacement, as False",
            ),
            f"{_UNC}x_resample_indices__mutmut_25": (
                "shuffle=None",
                "the draw is sorted right after, so the order choice returns "
                "(shuffled or not) is lost; None is falsy, as False",
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
                    (7, "None,"),
                    (11, '"XXbootstrapXX",'),
                    (12, '"BOOTSTRAP",'),
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
                    (52, "np.asarray(statistic(self), dtype=None),"),
                    (54, "np.asarray(statistic(self), ),"),
                )
            },
            f"{_UNC}x_check_points__mutmut_17": (
                "else 2",
                "the size of a 0-d array is only compared with 0: 1 and 2 both pass",
            ),
            **{
                f"{_UNC}x_replicate_statistics__mutmut_{i}": (
                    line,
                    "the drawn weights go to the learner's fit, which converts "
                    "them to floats itself; the shape check reads the same shape",
                )
                for i, line in (
                    (16, "np.asarray(sample_weight, dtype=None)"),
                    (18, "np.asarray(sample_weight, )"),
                )
            },
            **{
                f"{_UNC}xǁConfidenceIntervalMixinǁ_ci_remember_fit_data__mutmut_{i}": (
                    line,
                    "the recorded weights go to the learners' refits, which "
                    "convert them to floats; numpy reads any negative size in "
                    "reshape as the one inferred dimension",
                )
                for i, line in (
                    (10, "np.array(sample_weight, dtype=None).reshape(-1)"),
                    (12, "np.array(sample_weight, ).reshape(-1)"),
                    (14, "reshape(-2)"),
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
            f"{_UNC}x_replicate_statistics__mutmut_99": (
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
        new_tests=[
            "tests/test_mutation_intervals_grid.py",
            "tests/test_mutation_intervals_grid2.py",
            "tests/test_mutation_intervals_grid3.py",
        ],
        equivalent={
            f"{_GRID}x__widened__mutmut_2": (
                'estimate = frame["estimate"].to_numpy(None)',
                "the frame is normal_frame's, whose estimate column interval_frame "
                "stores as float64: to_numpy without a dtype gives the same "
                "float64 array",
            ),
            f"{_GRID}x__quantile_inversion__mutmut_38": (
                '"PI,IJ,PJ->P"',
                "einsum takes upper-case letters as subscripts too: the same "
                "contraction",
            ),
            f"{_GRID}xǁGridEMSIntervalsMixinǁ_conf_int_cdf__mutmut_41": (
                '"PI,IJ,PJ->P"',
                "as x__quantile_inversion__mutmut_38",
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
                    (75, "np.searchsorted(F, p), None, grid.size - 1)"),
                    (84, "np.searchsorted(F, p), 1, grid.size - 1)"),
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
            **{
                f"{_GRID}x_ems_covariance__mutmut_{i}": (
                    line,
                    "this array reaches only ems_gradient (and, for A, its "
                    "first dimension A.shape[0], the same without a dtype), "
                    "which converts it with np.asarray(..., dtype=float) "
                    "before any use: the same float array",
                )
                for i, line in (
                    (3, "A = np.asarray(A, dtype=None)"),
                    (5, "A = np.asarray(A, )"),
                    (24, "np.asarray(theta, dtype=None), S, t)"),
                    (26, "np.asarray(theta, ), S, t)"),
                    (33, "untilted = np.asarray(tilt.untilted, dtype=None)"),
                    (35, "untilted = np.asarray(tilt.untilted, )"),
                )
            },
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
                    (22, "request.memo(None, lambda: self._ci_corrected"),
                    (26, 'request.memo("XXems-rbcXX"'),
                    (27, 'request.memo("EMS-RBC"'),
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
        excluded={
            f"{_GRID}xǁGridEMSIntervalsMixinǁ_ci_warn_smoothed__mutmut_13": (
                ")",
                "the warning loses its stacklevel; under mutmut a "
                "trampoline frame is the caller, so only "
                "tests/test_warning_location.py (outside mutmut) sees it",
            ),
        },
    ),
    # the NPMLE's intervals: likelihood ratio, subsampling, influence, and
    # the dispatch to the identified set
    "interval_intervals_npmle": ModuleSpec(
        path="skprivate/interval/_npmle_intervals.py",
        tests=[
            *_INTERVAL_TESTS,
            *_IDENTIFIED_TESTS,
            "tests/test_uncertainty.py::"
            "test_conf_int_refuses_unfitted_estimators_and_unknown_kinds",
            "tests/interval/test_conf_int_fit_data.py",
        ],
        new_tests=[
            "tests/test_mutation_intervals_npmle.py",
            "tests/interval/test_influence_identification.py",
            *_all_but(
                "tests/test_group_jackknife.py",
                "test_npmle_mean_jackknife_covers_the_mean",
            ),
        ],
        equivalent={
            **{
                f"{_NP}xǁNPMLEIntervalsMixinǁ_ci_mean_jackknife__mutmut_{k}": (
                    change,
                    "the key only names the memo in the cache of one conf_int "
                    "call; the two keys of the jackknife stay distinct from "
                    "each other and from the other methods' keys",
                )
                for k, change in (
                    (19, "None,"),
                    (23, "XXjackknife-groupsXX"),
                    (24, "JACKKNIFE-GROUPS"),
                    (33, "None,"),
                    (37, "XXjackknifeXX"),
                    (38, "JACKKNIFE"),
                )
            },
            **{
                f"{_NP}xǁNPMLEIntervalsMixinǁ_conf_int_mean__mutmut_{k}": (
                    change,
                    "an unknown method from 'auto' falls through every branch "
                    "to the influence interval, which is what 'influence' "
                    "chooses (Case-I data, no bounds)",
                )
                for k, change in ((27, "XXinfluenceXX"), (28, '"INFLUENCE"'))
            },
            **{
                f"{_NP}x__informative_rows__mutmut_{i}": (
                    line,
                    "conf_int checks X under the name X before any handler "
                    "runs (_ci_check_fit_data through _ci_fit_data_form), so "
                    "a row this check would refuse never reaches it: the name "
                    "appears in no message",
                )
                for i, line in (
                    (3, "check_interval_array(X, name=None)"),
                    (5, "check_interval_array(X, )"),
                    (6, 'check_interval_array(X, name="XXXXX")'),
                    (7, 'check_interval_array(X, name="x")'),
                )
            },
            f"{_NP}x__lr_critical__mutmut_3": (
                "if abs(level - key) <= 1e-9:",
                "within a factor 2 of a key the difference level - key is "
                "exact (Sterbenz) and a multiple of 2^-53, which the double "
                "1e-9 is not: no level is exactly 1e-9 from a key",
            ),
            **{
                f"{_NP}x__kde_at__mutmut_{i}": (
                    line,
                    "values and points lie at least 4h inside the grid, so "
                    "pos > 0 and pos < m - 1: floor(pos) is already in [0, m - "
                    "2] and this clip never binds",
                )
                for i, line in (
                    (49, "np.clip(np.floor(pos).astype(np.intp), None, m - 2)"),
                    (50, "np.clip(np.floor(pos).astype(np.intp), 0, None)"),
                    (57, "np.clip(np.floor(pos).astype(np.intp), 0, m + 2)"),
                )
            },
            **{
                f"{_NP}x__kde_at__mutmut_{i}": (
                    line,
                    "an accuracy setting of the binned estimate (margin, node "
                    "count, kernel cut-off; scale-free like the original): its "
                    "largest relative distance from the exact Gaussian kernel "
                    "estimate stays at the binning error (6e-6 to 8e-6 at 300 "
                    "normal values, 2.5e-4 to 3e-4 at 20), which is all the "
                    "estimate promises",
                )
                for i, line in (
                    (29, "min(values.min(), points.min()) - 5 * h,"),
                    (36, "max(values.max(), points.max()) + 5 * h,"),
                    (38, "m = 4097"),
                    (42, "step = (hi - lo) / (m + 1)"),
                    (43, "step = (hi - lo) / (m - 2)"),
                    (84, "half = int(np.ceil(6 * h / step))"),
                    (93, "offsets = np.arange(-half, half + 2) * step"),
                )
            },
            **{
                f"{_NP}xǁNPMLEIntervalsMixinǁ_ci_point_subsampling__mutmut_{i}": (
                    line,
                    "the one memo of a subsampling call (the likelihood-ratio "
                    "path memoizes nothing): the renamed key still draws the "
                    "subsamples once per call",
                )
                for i, line in (
                    (16, "None,"),
                    (20, '"XXsubsamplingXX",'),
                    (21, '"SUBSAMPLING",'),
                )
            },
            **{
                f"{_NP}xǁNPMLEIntervalsMixinǁ_ci_pointwise__mutmut_{i}": (
                    line,
                    "the chosen method is only compared with "
                    "'likelihood-ratio': any other auto value is subsampling",
                )
                for i, line in (
                    (27, 'else "XXsubsamplingXX",'),
                    (28, 'else "SUBSAMPLING",'),
                )
            },
            **{
                f"{_NP}xǁNPMLEIntervalsMixinǁ_ci_pointwise__mutmut_{i}": (
                    line,
                    "the NPMLE's cdf and quantile return float64 arrays: "
                    "asarray without a dtype keeps them",
                )
                for i, line in (
                    (78, "np.asarray(self.cdf(points), dtype=None)"),
                    (80, "np.asarray(self.cdf(points), )"),
                    (90, "np.asarray(self.quantile(points), dtype=None)"),
                    (92, "np.asarray(self.quantile(points), )"),
                )
            },
            f"{_NP}xǁNPMLEIntervalsMixinǁ_ci_pointwise__mutmut_137": (
                "request, Z, None, stat, estimate, weights",
                "_ci_point_subsampling does not read its points argument (the "
                "statistic holds the points)",
            ),
            **{
                f"{_NP}xǁ_CurrentStatusǁ__init____mutmut_{i}": (line, reason)
                for i, line, reason in (
                    (
                        21,
                        ".astype(None)",
                        "astype(None) is astype(float64): the same weights",
                    ),
                    (
                        25,
                        "np.bincount(inverse, ).astype(float)",
                        "inverse takes every value 0 .. anchors.size - 1 (the "
                        "anchors are the unique values): bincount has that "
                        "length without minlength",
                    ),
                    (
                        32,
                        "inverse, weights=delta * 1.0, )",
                        "as _CurrentStatus.__init____mutmut_25",
                    ),
                    (
                        33,
                        "weights=delta / 1.0,",
                        "delta / 1.0 is delta * 1.0: the same 0/1 weights",
                    ),
                )
            },
            **{
                f"{_NP}xǁ_CurrentStatusǁ_iso__mutmut_{i}": (
                    line,
                    "h / w is in [0, 1] (hits <= weight per anchor) and PAVA "
                    "returns weighted means of those values, also in [0, 1]: "
                    "the clip changes nothing",
                )
                for i, line in (
                    (7, "sample_weight=w), None, 1.0)"),
                    (8, "sample_weight=w), 0.0, None)"),
                    (18, "sample_weight=w), 0.0, 2.0)"),
                )
            },
            **{
                f"{_NP}xǁ_CurrentStatusǁsplit__mutmut_{i}": (
                    line,
                    "slice(None, s) and slice(s) are slice(0, s)",
                )
                for i, line in (
                    (2, "self._iso(slice(None, s)), self._iso(slice(s, None))"),
                    (4, "self._iso(slice(s)), self._iso(slice(s, None))"),
                )
            },
            **{
                f"{_NP}xǁ_CurrentStatusǁcdf_interval__mutmut_{i}": (line, reason)
                for i, line, reason in (
                    (
                        15,
                        "for _ in range(61):",
                        "after 60 halvings the bracket (width <= 1) is below "
                        "2^-60: one more moves the returned root by under 1e-18",
                    ),
                    (
                        25,
                        "inside = self.ratio(parts, mid) < d",
                        "differs only where the computed ratio equals d "
                        "exactly at a midpoint, and the bisection then still "
                        "closes on the same crossing of d, within its 2^-60",
                    ),
                    (
                        33,
                        "(self.ratio(parts, 0.0) <= d) and False",
                        "theta = 0 is accepted only with no hit at or left of "
                        "t (a hit there has likelihood 0), and then the NPMLE "
                        "is 0 there too: solve(0, 0) returns 0.0",
                    ),
                    (
                        41,
                        "self.ratio(parts, 0.0) < d else",
                        "the ratio at theta = 0 is 0 (no hit at or left of t: "
                        "the split fits are then the NPMLE) or +inf, never "
                        "the positive d",
                    ),
                    (
                        51,
                        "(self.ratio(parts, 1.0) <= d) and False",
                        "when theta = 1 is accepted the convex ratio is 0 on "
                        "[est, 1], every midpoint is inside, and 60 halvings "
                        "bring lo within 2^-60 of 1, where lo + 1 rounds to 2: "
                        "the same 1.0",
                    ),
                    (
                        58,
                        "self.ratio(parts, 2.0) <= d else",
                        "the ratio at 2.0 is NaN (log(1 - 2)), never <= d: as "
                        "cdf_interval__mutmut_51, the bisection returns 1.0 "
                        "when theta = 1 is accepted",
                    ),
                    (
                        59,
                        "self.ratio(parts, 1.0) < d else",
                        "as cdf_interval__mutmut_41 on the right: the ratio at "
                        "theta = 1 is 0 or +inf, never d",
                    ),
                    (
                        66,
                        "solve(est, 2.0, True)",
                        "above 1 the ratio is NaN and counts as outside, so the "
                        "bisection closes on the same crossing of d below 1; "
                        "the bracket twice as wide leaves it within 2^-59, "
                        "under 2e-18",
                    ),
                )
            },
            **{
                f"{_NP}xǁ_CurrentStatusǁquantile_interval__mutmut_{i}": (line, reason)
                for i, line, reason in (
                    (
                        9,
                        "int(np.searchsorted(self.F, q, ))",
                        "side='left' is searchsorted's default",
                    ),
                    (
                        17,
                        "return self.ratio(self.split(s), q) < d",
                        "differs only where a computed 2 log lambda equals a "
                        "tabulated d (1.602, 2.269, 3.836) exactly",
                    ),
                    (
                        37,
                        "mid = (lo + hi + 2) // 2",
                        "with lo < hi, (lo + hi + 2) // 2 is in (lo, hi] as the "
                        "original probe is: the search keeps its invariant "
                        "(lo accepted, the answer in [lo, hi]) and ends at the "
                        "same largest accepted count",
                    ),
                )
            },
        },
    ),
    # the MLE's Wald intervals and the Wald helpers the regressor shares
    "interval_intervals_mle": ModuleSpec(
        path="skprivate/interval/_mle_intervals.py",
        tests=_WALD_TESTS,
        new_tests=[
            "tests/test_mutation_intervals_mle.py",
            # the sandwich's own tests, for the recheck of the survivors
            *_all_but(
                "tests/interval/test_mle_sandwich.py", "test_sampling_weights_coverage"
            ),
        ],
        equivalent=_within(_ML, _WALD_EQUIVALENT),
    ),
    # the regressor's predict and coef intervals (Wald and pairs bootstrap)
    "interval_intervals_regression": ModuleSpec(
        path="skprivate/interval/_regression_intervals.py",
        tests=_WALD_TESTS,
        new_tests=["tests/test_mutation_intervals_mle.py"],
        equivalent=_within(_RG, _WALD_EQUIVALENT),
    ),
    # the statistics resampling recomputes on each refit
    "interval_resampled_statistics": ModuleSpec(
        path="skprivate/interval/_resampled_statistics.py",
        tests=[
            *_INTERVAL_TESTS,
            "tests/interval/test_npmle_resampling_speed.py",
            "tests/test_mutation_npmle_resampling.py",
        ],
        new_tests=["tests/test_mutation_intervals_mle.py"],
    ),
    "interval_identified": ModuleSpec(
        path="skprivate/interval/_identified.py",
        tests=_IDENTIFIED_TESTS,
        new_tests=[
            "tests/test_mutation_intervals.py",
            "tests/interval/test_identified.py::"
            "test_quantile_intervals_stay_within_the_declared_bounds",
        ],
        equivalent={
            **{
                f"{_ID}x__is_case_one__mutmut_{i}": (
                    line,
                    "Case-I rows then take the generic bootstrap of refitted "
                    "clones instead of CaseOneResampler: both draw the rows "
                    "with resample_indices from the same random_state, and the "
                    "NPMLE a clone fits to Case-I rows is the weighted "
                    "isotonic regression of the hits pooled by anchor that "
                    "CaseOneResampler computes, so the replicates agree to "
                    "rounding (1.8e-15 on six rows); only the time differs",
                )
                for i, line in (
                    (1, "return bool(None)"),
                    (2, "return bool(np.all(None))"),
                    (3, "np.isneginf(Z[:, 0]) & np.isposinf(Z[:, 1])"),
                    (5, "np.isneginf(Z[:, 1]) ^ np.isposinf(Z[:, 1])"),
                )
            },
            **{
                f"{_ID}x_imbens_manski_critical__mutmut_{i}": (
                    line,
                    "the two differ only when the gap is exactly 0 at that "
                    "quantile, and brentq then returns that end of its bracket "
                    "itself: the same c",
                )
                for i, line in (
                    (32, "if gap(one_sided) > 0:"),
                    (35, "if gap(two_sided) < 0:"),
                )
            },
            **{
                f"{_ID}x_mean_interval__mutmut_{i}": (
                    line,
                    "the one memo of an identified-set call (the Case-I and "
                    "the generic branch never meet in one conf_int call): the "
                    "renamed key still computes the replicates once per call",
                )
                for i, line in (
                    (60, "None,"),
                    (64, '"XXidentified_setXX",'),
                    (65, '"IDENTIFIED_SET",'),
                    (80, "None,"),
                    (84, '"XXidentified_setXX",'),
                    (85, '"IDENTIFIED_SET",'),
                )
            },
            **{
                f"{_ID}x_mean_interval__mutmut_{i}": (
                    line,
                    "bootstrap_replicates draws every replicate's rows before "
                    "any fit, so the replicates do not depend on n_jobs; None "
                    "is its default: only the number of joblib workers changes",
                )
                for i, line in ((92, "n_jobs=None,"), (99, ""))
            },
            **{
                f"{_ID}x_mean_set__mutmut_{i}": (
                    line,
                    "the kept probabilities are > 0, so p @ x is already "
                    "infinite, of the same sign, when x holds an infinite "
                    "position (low <= t_hi and high >= t_lo, finite cuts: low "
                    "is never +inf, high never -inf)",
                )
                for i, line in (
                    (13, "(np.isneginf(low).any()) and False"),
                    (19, "(np.isposinf(high).any()) and False"),
                )
            },
            f"{_ID}x_outside_share__mutmut_8": (
                "placements(innermost, cuts, (+math.inf, math.inf))",
                "only the mask of placements is used, which depends on the "
                "cuts alone, not on the bounds",
            ),
            f"{_ID}x_supported_range__mutmut_10": (
                "ends = Z[:, :3].ravel()",
                "Z has two columns (check_interval_array): :3 takes the same two",
            ),
            **{
                f"{_ID}x_supported_range__mutmut_{i}": (
                    line,
                    "integer or boolean weights enter only np.repeat, cumsum, "
                    "sum and searchsorted against a float share: the same "
                    "comparisons as their float copies",
                )
                for i, line in (
                    (17, "np.asarray(weights, dtype=None)"),
                    (19, "np.asarray(weights, )"),
                )
            },
            **{
                f"{_ID}x_supported_range__mutmut_{i}": (
                    line,
                    "a sort that is not stable reorders only equal ends; the "
                    "cumulated weight before and after a block of equal ends "
                    "is the same in any order, so the first end reaching the "
                    "share has the same value ('STABLE' is read as 'stable')",
                )
                for i, line in (
                    (37, "np.argsort(ends, kind=None)"),
                    (39, "np.argsort(ends, )"),
                    (41, 'np.argsort(ends, kind="STABLE")'),
                )
            },
            **{
                f"{_ID}x_supported_range__mutmut_{i}": (
                    line,
                    "side='left' is searchsorted's default",
                )
                for i, line in (
                    (62, "np.searchsorted(np.cumsum(w), share, )"),
                    (73, "np.searchsorted(np.cumsum(w[::-1]), share, )"),
                )
            },
            f"{_ID}xǁCaseOneResamplerǁ__init____mutmut_20": (
                "self.delta = delta.astype(None)",
                "astype(None) is astype(float64): the same indicators",
            ),
            f"{_ID}xǁCaseOneResamplerǁends__mutmut_19": (
                "w, h = weight[seen].astype(None), hits[seen]",
                "astype(None) is astype(float64): the same weights",
            ),
            **{
                f"{_ID}xǁCaseOneResamplerǁends__mutmut_{i}": (
                    line,
                    "h / w is in [0, 1] (hits <= weight per anchor) and PAVA "
                    "returns weighted means of those values, also in [0, 1]: "
                    "the clip changes nothing",
                )
                for i, line in (
                    (24, "np.clip(_isotonic(h / w, w), None, 1.0)"),
                    (25, "np.clip(_isotonic(h / w, w), 0.0, None)"),
                    (35, "np.clip(_isotonic(h / w, w), 0.0, 2.0)"),
                )
            },
            **{
                f"{_ID}xǁCaseOneResamplerǁ__init____mutmut_{i}": (
                    line,
                    "the weights reaching CaseOneResampler are the fit's "
                    "validated sample_weight, already float64: asarray without "
                    "a dtype returns the same array",
                )
                for i, line in (
                    (28, "np.asarray(weights, None)"),
                    (30, "np.asarray(weights, )"),
                )
            },
            **{
                f"{_ID}x_widen_pointwise__mutmut_{i}": (
                    line,
                    "the interval ends reaching widen_pointwise are float "
                    "arrays (the likelihood-ratio and subsampling ends): "
                    "np.array without a dtype copies them as float64 too",
                )
                for i, line in (
                    (6, "np.array(lower, dtype=None)"),
                    (8, "np.array(lower, )"),
                )
            },
            f"{_ID}x_warn_if_set_wider__mutmut_35": (
                "if np.isfinite(high + low):",
                "low <= high and neither is nan: high - low and high + low are "
                "both finite exactly when both ends are (-inf + inf is nan, "
                "not finite, as is inf - (-inf))",
            ),
        },
        excluded={
            **{
                f"{_ID}x_{fn}__mutmut_{i}": (
                    ")",
                    "the warning loses its stacklevel; under mutmut a "
                    "trampoline frame is the caller, so only "
                    "tests/test_warning_location.py (outside mutmut) sees it",
                )
                for fn, i in (
                    ("mean_interval", 30),
                    ("mean_interval", 48),
                    ("widen_pointwise", 61),
                    ("warn_if_set_wider", 60),
                )
            },
        },
    ),
}

_IFA = "skprivate.interval._survey.x_intervals_from_answers__mutmut_"
_SM = "skprivate.interval._survey.xǁSurveyMixinǁ"
_DRAW = f"{_SM}draw_anchors__mutmut_"
_REFINE = f"{_SM}refine__mutmut_"
_SORT_LAST_AXIS = (
    "np.sort sorts along the last axis by default, which is axis 1 of these 2-D arrays"
)
SPECS.update(
    {
        # the survey side of interval privacy: each chosen cell read as its
        # interval, a refinement intersected with the cell before, disclosed
        # values, the anchors drawn afresh (within earlier cells) and refine
        "interval_survey": ModuleSpec(
            path="skprivate/interval/_survey.py",
            tests=[
                "tests/interval/test_mechanisms.py",
                "tests/survey/test_defects_anchors.py",
            ],
            new_tests=["tests/test_mutation_interval_survey.py"],
            equivalent={
                **{
                    name: (text, _SORT_LAST_AXIS)
                    for name, text in (
                        (f"{_IFA}26", "q = np.sort(q, )"),
                        (
                            f"{_DRAW}16",
                            "return np.sort(np.hstack([q for q, _ in comps]), )",
                        ),
                        (f"{_DRAW}70", "return np.sort(q, )"),
                    )
                },
                f"{_IFA}73": (
                    "[np.full((q.shape[0], 1), -np.inf), q, np.full((q.shape[0], 2), "
                    "np.inf)]",
                    "the answers are checked to lie in [0, n_anchors] before, so "
                    "the cell's upper end is read at index n_anchors + 1 at most: "
                    "a second padding column is never read",
                ),
                f"{_IFA}141": (
                    "lo = np.where(exact_before, cells[:, 1], lo)",
                    "on the rows it selects the cell before is exact: its two "
                    "ends are equal",
                ),
                f"{_DRAW}63": (
                    "q[cells[:, 0] == cells[:, 1]] = None",
                    "None assigned into a float array is stored as NaN",
                ),
                f"{_REFINE}5": (
                    "reset=None,",
                    "validate_data tests reset for truth: None resets as False "
                    "does, not at all",
                ),
                f"{_REFINE}10": (
                    ")",
                    "the line removed is ensure_all_finite=True, validate_data's "
                    "default",
                ),
                f"{_REFINE}17": (
                    "ensure_all_finite=False,",
                    "check_numeric_input(X, finite=True) refuses every NaN and "
                    "infinity just before, with the message the tests pin",
                ),
                **{
                    f"{_REFINE}{n}": (
                        text,
                        "check_interval_array converts the columns it reads to "
                        "float, and the shape test does not depend on the dtype",
                    )
                    for n, text in (
                        (20, "Z = np.asarray(intervals, dtype=None)"),
                        (22, "Z = np.asarray(intervals, )"),
                    )
                },
                f"{_REFINE}50": (
                    "y = X[:, j].astype(None)",
                    "astype(None) converts to float64, the dtype asked for",
                ),
            },
        ),
    }
)
