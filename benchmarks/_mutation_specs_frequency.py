"""Mutation specs of the frequency oracles and their estimators' intervals.

The exact samplers of the one-column oracles and the realised laws they
state (``_oracles.py``), the two-stage memoized channel of the
longitudinal oracle with its composed law, its privacy claim and the
estimator of the waves (``_longitudinal.py``), the ``conf_int("pmf")``
code the two frequency estimators share (``_pmf_intervals.py``) and the
interval code left in the one-wave estimator (``_estimator.py``).  Merged
into ``MODULES`` by ``_mutation_modules.py``.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

_FP = "tests/frequency/test_privatizers.py"
_FL = "tests/frequency/test_laws.py"
_FE = "tests/frequency/test_estimator.py"
_LG = "tests/frequency/test_longitudinal.py"
_LI = "tests/frequency/test_longitudinal_intervals.py"
_OR = "skprivate.frequency._oracles."
_LO = "skprivate.frequency._longitudinal."
_PI = "skprivate.frequency._pmf_intervals."
_FQ = "skprivate.frequency._estimator.xǁFrequencyEstimatorǁ"
_LC = _LO + "xǁLongitudinalChannelǁ"
_LOO = _LO + "xǁLongitudinalOracleǁ"

_PARITY_INT64 = (
    "every caller passes int64 arrays (the & of int64 rows and report "
    "columns): asarray without a dtype keeps int64"
)
_KRR_WIDTH = (
    "support reads report rows of n_outputs columns (the estimators refuse "
    "any other width): a slice past the last column is the same slice"
)
_DEFAULT_INT64 = (
    "the thresholds are Python ints below 2**62 and the ranges small ints, "
    "which numpy (2.x, every platform) stores as int64 without a dtype, and "
    "Generator.integers draws int64 by default: the same arrays"
)

SPECS: dict[str, ModuleSpec] = {
    # The samplers, supports, realised probabilities and law tables of
    # every oracle, and make_oracle / choose_oracle.  Left out: the names of
    # the report columns and the summary dicts (plumbing, checked by the
    # privatizers' tests).
    "frequency_oracles": ModuleSpec(
        path="skprivate/frequency/_oracles.py",
        functions=[
            f"{_OR}x__parity__mutmut_*",
            f"{_OR}x_make_oracle__mutmut_*",
            f"{_OR}x_choose_oracle__mutmut_*",
            *(
                f"{_OR}xǁ{cls}ǁ{method}__mutmut_*"
                for cls in (
                    "_Oracle",
                    "GeneralizedRR",
                    "UnaryEncoding",
                    "LocalHashing",
                    "HadamardResponse",
                )
                for method in (
                    "__init__",
                    "realised_epsilon",
                    "variance",
                    "output_limits",
                    "sample",
                    "support",
                    "log_base",
                    "full_table",
                    "pair_table",
                )
            ),
        ],
        # the laws, samplers and refusals (without the three tests of
        # several seconds: local hashing at extreme budgets and at epsilon
        # 60, a dask fit) and the estimators' exact cases on expected
        # reports, which read the supports, p*, q*, log_base and variance
        tests=[
            *_all_but(
                _FP,
                "test_extreme_epsilons_are_audited_or_refused",
                "test_dask_fit_names_the_row_of_a_missing_value",
            ),
            *(
                f"{_FP}::test_extreme_epsilons_are_audited_or_refused[{cls}]"
                for cls in (
                    "GeneralizedRandomizedResponse",
                    "SymmetricUnaryEncoding",
                    "OptimizedUnaryEncoding",
                    "BinaryLocalHashing",
                    "HadamardResponse",
                )
            ),
            *_all_but(_FL, "test_every_output_is_reachable_at_large_epsilon"),
            *(
                f"{_FL}::test_every_output_is_reachable_at_large_epsilon[{kind}]"
                for kind in ("krr", "sue", "oue", "blh", "hr")
            ),
            f"{_FE}::test_unbiased_estimate_is_exact_on_expected_reports",
            f"{_FE}::test_ibu_recovers_f_from_expected_reports",
            f"{_FE}::test_score_is_the_mean_log_probability_under_the_exact_law",
            f"{_FE}::test_variance_attribute_is_the_plug_in_closed_form",
        ],
        new_tests=["tests/test_mutation_frequency_oracles.py"],
        equivalent={
            **{
                f"{_OR}x__parity__mutmut_{n}": (line, _PARITY_INT64)
                for n, line in (
                    (3, "x = np.asarray(x, dtype=None).copy()"),
                    (5, "x = np.asarray(x, ).copy()"),
                )
            },
            f"{_OR}x_choose_oracle__mutmut_14": (
                "min(epsilon, 701.0)",
                "the answer changes only for k between 3 e**700 + 2 and "
                "3 e**701 + 2 (over 1e304 categories), which no list of "
                "categories can hold; both caps keep math.exp finite",
            ),
            f"{_OR}xǁGeneralizedRRǁfull_table__mutmut_3": (
                "if k * k >= MAX_LAW_CELLS:",
                "MAX_LAW_CELLS = 2**21 is not a square: k * k never equals it",
            ),
            f"{_OR}xǁUnaryEncodingǁfull_table__mutmut_5": (
                "if k * 2**k >= MAX_LAW_CELLS:",
                "k * 2**k = 2**21 needs k = 2**j with j + 2**j = 21, which no "
                "j solves: the product never equals the limit",
            ),
            f"{_OR}xǁLocalHashingǁfull_table__mutmut_4": (
                "if k * m * g >= MAX_LAW_CELLS:",
                "m = (P - 1) P with P an odd prime (at least 3): the product "
                "has an odd factor above 1, so it never equals 2**21",
            ),
            f"{_OR}xǁLocalHashingǁ__init____mutmut_31": (
                "g = round(math.exp(min(epsilon, 41.0))) + 1",
                "round(e**40) + 1 is already above MAX_BUCKETS = 2**24, so "
                "either cap gives g = MAX_BUCKETS; the cap only keeps "
                "math.exp from overflowing",
            ),
            **{
                name: (line, _KRR_WIDTH)
                for name, line in (
                    (
                        f"{_OR}xǁGeneralizedRRǁsupport__mutmut_1",
                        "return reports[:, :2] == np.arange",
                    ),
                    (
                        f"{_OR}xǁHadamardResponseǁsupport__mutmut_13",
                        "return _parity(rows & reports[:, :2]) == 0",
                    ),
                    (
                        f"{_OR}xǁLocalHashingǁsupport__mutmut_18",
                        "return hashed == reports[:, 1:3]",
                    ),
                )
            },
            **{
                f"{_OR}xǁ{method}__mutmut_{n}": (line, _DEFAULT_INT64)
                for method, n, line in (
                    ("GeneralizedRRǁsample", 8, "self.keep, dtype=None))"),
                    ("GeneralizedRRǁsample", 11, "self.keep, ))"),
                    ("HadamardResponseǁsample", 22, "self.keep, dtype=None))"),
                    ("HadamardResponseǁsample", 25, "self.keep, ))"),
                    ("LocalHashingǁsample", 27, "self.keep, dtype=None))"),
                    ("LocalHashingǁsample", 30, "self.keep, ))"),
                    ("UnaryEncodingǁsample", 5, "self.other, dtype=None)"),
                    ("UnaryEncodingǁsample", 8, "self.other, )"),
                    ("HadamardResponseǁsample", 13, "size=codes.shape, )"),
                    ("LocalHashingǁsample", 9, "size=codes.shape, )"),
                    ("HadamardResponseǁfull_table", 7, "np.arange(size, dtype=None)"),
                    ("HadamardResponseǁfull_table", 9, "np.arange(size, )"),
                    (
                        "HadamardResponseǁsupport",
                        4,
                        "self.n_categories + 1, dtype=None)",
                    ),
                    ("HadamardResponseǁsupport", 7, "self.n_categories + 1, )"),
                    (
                        "LocalHashingǁsupport",
                        3,
                        "np.arange(self.n_categories, dtype=None)",
                    ),
                    ("LocalHashingǁsupport", 5, "np.arange(self.n_categories, )"),
                    ("LocalHashingǁfull_table", 11, "np.arange(m, dtype=None)"),
                    ("LocalHashingǁfull_table", 13, "np.arange(m, )"),
                    ("LocalHashingǁfull_table", 20, "np.arange(g, dtype=None)"),
                    ("LocalHashingǁfull_table", 22, "np.arange(g, )"),
                )
            },
            **{
                f"{_OR}xǁ_Oracleǁvariance__mutmut_{n}": (
                    line,
                    "the formula multiplies f by floats only: an int or float "
                    "array gives the same float64 values, and every caller "
                    "passes numbers (oracle_variance and the estimators pass "
                    "float arrays)",
                )
                for n, line in (
                    (3, "f = np.asarray(frequencies, dtype=None)"),
                    (5, "f = np.asarray(frequencies, )"),
                )
            },
        },
    ),
    # The two-stage channel (samplers, composed law, variances and
    # covariance of the waves), the oracle's release and privacy claim,
    # and the estimator of the waves.  Left out: the names of the report
    # columns, the summary dict, constructors that only store parameters,
    # and the estimator's fit / partial_fit wrappers.
    "frequency_longitudinal": ModuleSpec(
        path="skprivate/frequency/_longitudinal.py",
        functions=[
            f"{_LO}x__log__mutmut_*",
            f"{_LO}x__wave_estimates__mutmut_*",
            *(
                f"{_LO}xǁLongitudinalChannelǁ{method}__mutmut_*"
                for method in (
                    "__init__",
                    "n_outputs",
                    "sample",
                    "support",
                    "variance",
                    "covariance",
                    "pooled_variance",
                    "full_table",
                    "pair_table",
                )
            ),
            *(
                f"{_LO}xǁLongitudinalOracleǁ{method}__mutmut_*"
                for method in (
                    "_epsilon_per_feature",
                    "_fit",
                    "_transform",
                    "_exact_law",
                    "privacy_summary",
                    "_audited",
                    "_wave_claim",
                )
            ),
            *(
                f"{_LO}xǁLongitudinalFrequencyEstimatorǁ{method}__mutmut_*"
                for method in (
                    "_resolve",
                    "_statistic_fit",
                    "_conf_int_pmf",
                    "_resampled_estimate",
                )
            ),
            f"{_LO}xǁ_WaveReportsǁ*",
        ],
        # without the Monte Carlo checks of about a second each (the mean
        # squared error over simulated waves, the coverage of the normal
        # interval) and the dask fit
        tests=[
            *_all_but(_LG, "test_mse_matches_closed_form"),
            *_all_but(
                _LI,
                "test_normal_interval_covers_at_its_level",
                "test_dask_fit_equals_the_in_memory_fit",
            ),
        ],
        # with the interval tests: _conf_int_pmf states the method texts
        new_tests=[
            "tests/test_mutation_frequency_longitudinal.py",
            "tests/test_mutation_frequency_intervals.py",
        ],
        equivalent={
            **{
                f"{_LO}x__wave_estimates__mutmut_{n}": (
                    line,
                    "the support counts are integers below 2**53: an int64 "
                    "array divided by the float n gives the same float64 values",
                )
                for n, line in (
                    (13, "for t in range(waves)], dtype=None"),
                    (15, "for t in range(waves)], )"),
                )
            },
            f"{_LC}__init____mutmut_59": (
                "unary_numerators(epsilon_instant, None)",
                "unary_numerators tests symmetric for truth: None is False",
            ),
            f"{_LC}__init____mutmut_78": (
                "self._stages = None",
                "the stage fractions are kept for inspection only: nothing in "
                "the package or its tests reads _stages",
            ),
            **{
                f"{_LC}{method}__mutmut_{n}": (
                    line,
                    "the formula multiplies f by floats only: an int or float "
                    "array gives the same float64 values, and the estimator "
                    "passes float arrays",
                )
                for method, n, line in (
                    ("covariance", 3, "f = np.asarray(frequencies, dtype=None)"),
                    ("covariance", 5, "f = np.asarray(frequencies, )"),
                    ("variance", 3, "f = np.asarray(frequencies, dtype=None)"),
                    ("variance", 5, "f = np.asarray(frequencies, )"),
                )
            },
            f"{_LC}full_table__mutmut_6": (
                "if k * k >= MAX_LAW_CELLS:",
                "MAX_LAW_CELLS = 2**21 is not a square: k * k never equals it",
            ),
            f"{_LC}full_table__mutmut_20": (
                "if k * 2**k >= MAX_LAW_CELLS:",
                "k * 2**k = 2**21 needs k = 2**j with j + 2**j = 21, which no "
                "j solves: the product never equals the limit",
            ),
            f"{_LC}support__mutmut_4": (
                "return wave_reports[:, :2] == np.arange",
                "a k-RR wave block has one column (n_outputs = 1, the "
                "estimator refuses any other width): the same slice",
            ),
            **{
                f"{_LOO}_fit__mutmut_{n}": (
                    line,
                    "y is ignored by the privatizers' fit (documented: 'y : "
                    "None, Ignored')",
                )
                for n, line in (
                    (24, "super()._fit(X, None)"),
                    (26, "super()._fit(X, )"),
                )
            },
            f"{_LOO}_transform__mutmut_4": (
                "X = self._validate(X, reset=None)",
                "_validate tests reset for truth: None acts as False",
            ),
            f"{_LOO}_transform__mutmut_22": (
                "codes[rows, cols] = rng.integers(sizes[cols])",
                "Generator.integers(high) draws from [0, high): the same law "
                "and the same draws as integers(0, high)",
            ),
            f"{_LOO}_wave_claim__mutmut_2": (
                "cats = [str(None) for c in self.categories_[column]]",
                "the labels name the worst pair only; the claim reads the "
                "worst loss, which the labels do not change",
            ),
            **{
                f"{_LO}xǁ_WaveReportsǁ__init____mutmut_{n}": (
                    line,
                    "the limit is a Python int: numpy stores it as int64 "
                    "without a dtype",
                )
                for n, line in (
                    (14, "limit, dtype=None)"),
                    (17, "limit, )"),
                )
            },
            f"{_LO}xǁ_WaveReportsǁblock__mutmut_11": (
                'if R.dtype.kind not in "XXbiufXX":',
                "'X' is no dtype kind: the same kinds pass",
            ),
            f"{_LO}xǁ_WaveReportsǁblock__mutmut_17": (
                "with np.errstate(invalid=None):",
                "the checks compare and round NaN and inf without a warning "
                "in numpy 2 (checked under warnings as errors): the state "
                "changes nothing",
            ),
        },
    ),
    # The conf_int("pmf") code both frequency estimators share: the choice
    # of the interval, the normal interval (the mechanism's variance plus
    # the sampling variance) and the percentile bootstrap of respondents.
    "frequency_conf_int": ModuleSpec(
        path="skprivate/frequency/_pmf_intervals.py",
        functions=[
            f"{_PI}x_resample_reports__mutmut_*",
            f"{_PI}x_pmf_conf_int__mutmut_*",
        ],
        tests=[
            f"{_FE}::test_conf_int_normal_and_bootstrap",
            f"{_FE}::test_conf_int_refuses_data_after_privatizer",
            f"{_FE}::test_variance_attribute_is_the_plug_in_closed_form",
            f"{_LI}::test_normal_interval_is_the_pooled_estimate_and_its_variance",
            f"{_LI}::test_bootstrap_resamples_respondents_with_all_their_waves",
            "tests/test_mutation_family_intervals_frequency.py",
        ],
        new_tests=[
            "tests/test_mutation_frequency_intervals.py",
            # the base-cut interval and the bootstrap's order-statistic ends
            # (not the warning's location, which mutmut's trampolines move)
            *_all_but(
                "tests/frequency/test_pmf_interval_methods.py",
                "test_base_cut_bootstrap_warns_and_names_the_category_near_the_cut",
            ),
        ],
        equivalent={
            **{
                f"{_PI}x_pmf_conf_int__mutmut_{n}": (
                    line,
                    "only 'normal' takes the normal branch: any other choice "
                    "is the bootstrap, and the string never leaves the function",
                )
                for n, line in (
                    (14, 'else "XXbootstrapXX"'),
                    (15, 'else "BOOTSTRAP"'),
                )
            },
            **{
                f"{_PI}x_pmf_conf_int__mutmut_{n}": (
                    line,
                    "the key of the request's memo: one conf_int call of one "
                    "kind stores nothing else there, so any key keeps the "
                    "replicates once for all its levels",
                )
                for n, line in (
                    (75, "None,"),
                    (79, '"XXbootstrapXX",'),
                    (80, '"BOOTSTRAP",'),
                )
            },
        },
    ),
    # The interval code left in the one-wave estimator: the handler that
    # hands conf_int("pmf") to the shared helper with its method texts and
    # its resampled estimate, the kinds and kept release it declares, and
    # _statistic_fit, which computes the closed-form variance_ the normal
    # interval reads.  The estimates themselves are checked by
    # tests/frequency.
    "frequency_estimator_ci": ModuleSpec(
        path="skprivate/frequency/_estimator.py",
        functions=[
            f"{_FQ}{method}__mutmut_*"
            for method in (
                "_conf_int_pmf",
                "_resampled_estimate",
                "_ci_offers_kind",
                "_ci_kept_release",
                "_statistic_fit",
            )
        ],
        tests=[
            f"{_FE}::test_conf_int_normal_and_bootstrap",
            f"{_FE}::test_conf_int_refuses_data_after_privatizer",
            f"{_FE}::test_variance_attribute_is_the_plug_in_closed_form",
            f"{_FE}::test_unbiased_estimate_is_exact_on_expected_reports",
            f"{_FE}::test_post_processing_options",
            f"{_FE}::test_privatizer_pickle_and_unfitted_oracle",
        ],
        new_tests=[
            "tests/test_mutation_family_intervals_frequency.py",
            "tests/test_mutation_frequency_intervals.py",
        ],
        equivalent={
            f"{_FQ}_ci_kept_release__mutmut_5": (
                'if getattr(self, "privatizer_", ) is None:',
                "conf_int checks the fit first, and every fit sets privatizer_ "
                "(None without a privatizer): the default is never read",
            ),
        },
    ),
}
