"""Mutation specs of the families' confidence-interval code.

The interval modules of the local-privacy, integral, subset and negative
survey families, and the ``conf_int`` code of the frequency estimator.  The
form of each entry follows ``_mutation_modules.py``.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

_NEW = ["tests/test_mutation_family_intervals.py"]
# the tests of the other modules, in files of their own: a survivor runs the
# whole of its module's new tests
_RELEASED = ["tests/test_mutation_family_intervals_released.py"]
_CATEGORIES = ["tests/test_mutation_family_intervals_categories.py"]
_FREQUENCY = ["tests/test_mutation_family_intervals_frequency.py"]
_FREQ = "skprivate.frequency._estimator.xǁFrequencyEstimatorǁ"
_L = "skprivate.ldp._intervals."
_D = _L + "xǁDeconvolutionDensityIntervalsMixinǁ"
_R = _L + "xǁDeconvolutionRegressionIntervalsMixinǁ"
_I = "skprivate.integral._intervals."
_IM = _I + "xǁIntegralIntervalsMixinǁ"
_S = "skprivate.subset._intervals.xǁSubsetIntervalsMixinǁ"
_NS = "skprivate.negative_survey._intervals.xǁRVNSIntervalsMixinǁ"

SPECS: dict[str, ModuleSpec] = {
    "ldp_intervals": ModuleSpec(
        path="skprivate/ldp/_intervals.py",
        # without the coverage and refit checks of several seconds each
        tests=[
            *_all_but(
                "tests/ldp/test_intervals.py",
                "test_square_wave_mean_and_cdf_intervals_cover",
                "test_density_standard_error_matches_the_spread_over_samples",
                "test_regression_rbc_interval_covers_the_regression_function",
                "test_ems_linearization_matches_refits_at_a_fixed_smoothing",
            ),
        ],
        new_tests=_NEW,
        equivalent={
            f"{_L}x_fieller_interval__mutmut_11": (
                "parts = np.asarray(parts, dtype=float).reshape(-2, 6)",
                "numpy reads a negative size as 'infer', as -1",
            ),
            f"{_L}x_interval_kernel__mutmut_16": (
                "return 1.5 * deconvolution_kernel(u, ratio, ) - 0.5 * (",
                'deconvolution_kernel\'s default kernel is "gaussian"',
            ),
            f"{_L}x_interval_kernel__mutmut_27": (
                "deconvolution_kernel(u, ratio, order=2)",
                "as x_interval_kernel__mutmut_16",
            ),
            f"{_D}_ci_linear_ratio__mutmut_62": (
                "step = max(2, _BLOCK // max(n, 1))",
                "the points are evaluated in blocks of step points to bound memory; "
                "any positive block size gives the same values",
            ),
            f"{_D}_ci_linear_ratio__mutmut_68": (
                "step = max(1, _BLOCK // max(n, 2))",
                "as _ci_linear_ratio__mutmut_62",
            ),
            f"{_D}_ci_offers_kind__mutmut_5": (
                'if getattr(self, "support_", ) is None:',
                "fit always sets support_ (the declared support or the data range), "
                "so the default is never used",
            ),
            f"{_D}_conf_int_mean__mutmut_34": (
                'z = _records(request, getattr(self, "_Z", ))',
                "fit and partial_fit always set _Z (None for a streamed fit), so the "
                "default is never used",
            ),
            f"{_D}_conf_int_quantile__mutmut_30": (
                'z = _records(request, getattr(self, "_Z", ))',
                "as _conf_int_mean__mutmut_34",
            ),
            f"{_D}_ci_pointwise__mutmut_63": (
                "None,",
                "a key of the per-call cache, which holds no other key here: the "
                "same memoized ratio",
            ),
            f"{_D}_ci_pointwise__mutmut_67": (
                '"XXratioXX",',
                "as _ci_pointwise__mutmut_63",
            ),
            f"{_D}_ci_pointwise__mutmut_68": (
                '"RATIO",',
                "as _ci_pointwise__mutmut_63",
            ),
            f"{_D}_conf_int_quantile__mutmut_46": (
                'None, lambda: self._ci_linear_ratio(z, coarse, "cdf", rbc)',
                "a key of the per-call cache, distinct from its other keys (the "
                "tuples ('fine', q)): the same memoized coarse grid",
            ),
            f"{_D}_conf_int_quantile__mutmut_50": (
                '"XXcoarseXX", lambda: self._ci_linear_ratio(z, coarse, "cdf", rbc)',
                "as _conf_int_quantile__mutmut_46",
            ),
            f"{_D}_conf_int_quantile__mutmut_51": (
                '"COARSE", lambda: self._ci_linear_ratio(z, coarse, "cdf", rbc)',
                "as _conf_int_quantile__mutmut_46",
            ),
            f"{_D}_conf_int_quantile__mutmut_130": (
                'request.memo(("XXfineXX", float(p))',
                "the keys stay distinct per q and from 'coarse': the same "
                "memoized fine grids",
            ),
            f"{_D}_conf_int_quantile__mutmut_131": (
                'grid, F, se = request.memo(("FINE", float(p)), lambda p=p: fine(p))',
                "as _conf_int_quantile__mutmut_130",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_10": (
                'if (hasattr(request.points, "iloc")) and False',
                "np.asarray of a DataFrame with dtype=float is its "
                "to_numpy(dtype=float): the same rows",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_12": (
                "request.points.to_numpy(dtype=None)",
                "the outer np.asarray(..., dtype=float) casts the rows to float anyway",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_13": (
                'if hasattr(None, "iloc")',
                "as _ci_prediction_intervals__mutmut_10",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_17": (
                'if hasattr(request.points, "XXilocXX")',
                "as _ci_prediction_intervals__mutmut_10",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_18": (
                'if hasattr(request.points, "ILOC")',
                "as _ci_prediction_intervals__mutmut_10",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_21": (
                "rows = None",
                "one-dimensional points never get here: fallback_mask(points), "
                "called before the rows are used, refuses them",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_25": (
                'degree = getattr(self, "degree_", None)',
                "fit always sets degree_, so the default is never used",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_28": (
                'degree = getattr(self, "degree_", )',
                "as _ci_prediction_intervals__mutmut_25",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_69": (
                "fallback = np.asarray(self.fallback_mask(request.points), dtype=None)",
                "fallback_mask returns a boolean array already",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_71": (
                "fallback = np.asarray(self.fallback_mask(request.points), )",
                "as _ci_prediction_intervals__mutmut_69",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_83": (
                "None,",
                "a key of the per-call cache, distinct from its other key "
                "('fits'): the same memoized replicates",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_87": (
                '"XXbootstrapXX",',
                "as _ci_prediction_intervals__mutmut_83",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_88": (
                '"BOOTSTRAP",',
                "as _ci_prediction_intervals__mutmut_83",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_96": (
                "n_jobs=None,",
                "bootstrap_replicates seeds each replicate from random_state, so its "
                "results do not depend on n_jobs (documented)",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_195": (
                "est, se, parts = (a.copy() for a in request.memo(None, fits))",
                "a key of the per-call cache, distinct from its other key "
                "('bootstrap'): the same memoized fits",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_199": (
                'est, se, parts = (a.copy() for a in request.memo("XXfitsXX", fits))',
                "as _ci_prediction_intervals__mutmut_195",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_200": (
                'est, se, parts = (a.copy() for a in request.memo("FITS", fits))',
                "as _ci_prediction_intervals__mutmut_195",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_211": (
                "ratio = ~np.isnan(parts[..., 1])",
                "parts holds NaN rows exactly where the local linear fit was used "
                "(its initial fill); the local constant rows have finite N and D "
                "alike, so column 1 marks the same rows as column 0",
            ),
            f"{_R}_ci_training__mutmut_14": (
                'Z = getattr(self, "_Z", )',
                "fit always sets _Z and _W, so the defaults are never used",
            ),
            f"{_R}_ci_training__mutmut_22": (
                'W = getattr(self, "_W", )',
                "as _ci_training__mutmut_14",
            ),
            f"{_R}_ci_training__mutmut_25": (
                "if Z is None and W is None:",
                "fit sets _Z and _W together: neither is None",
            ),
            f"{_R}_ci_training__mutmut_28": (
                "raise ValueError(None)",
                "unreachable: the learner always holds _Z, and "
                "fallback_mask(points), called first, reads it",
            ),
            f"{_R}_ci_training__mutmut_29": (
                'raise ValueError("XXpass X= and y=',
                "as _ci_training__mutmut_28",
            ),
            f"{_R}_ci_training__mutmut_30": (
                'raise ValueError("pass x= and y=',
                "as _ci_training__mutmut_28",
            ),
            f"{_R}_ci_training__mutmut_31": (
                'raise ValueError("PASS X= AND Y=',
                "as _ci_training__mutmut_28",
            ),
            f"{_R}_ci_training__mutmut_34": (
                "Y = np.asarray(W[:, 1:], dtype=None)",
                "fit stores _W as a float64 array: astype(None) is astype(float64)",
            ),
            f"{_R}_ci_training__mutmut_36": (
                "Y = np.asarray(W[:, 1:], )",
                "as _ci_training__mutmut_34",
            ),
            f"{_R}_ci_training__mutmut_50": (
                "return np.asarray(Z, ), Y, labels",
                "fit stores _Z as a float64 array",
            ),
            f"{_R}_ci_training__mutmut_74": (
                "Y = labels.astype(None)[:, None]",
                "astype(None) is astype(float64)",
            ),
        },
    ),
    "integral_intervals": ModuleSpec(
        path="skprivate/integral/_intervals.py",
        # without the two coverage checks (13-19 s each)
        tests=_all_but(
            "tests/integral/test_intervals.py",
            "test_integral_mean_interval_covers",
            "test_sample_target_intervals_cover_the_data_statistic_exactly",
        ),
        new_tests=_RELEASED,
        equivalent={
            f"{_I}x_normal_laplace_half_width__mutmut_42": (
                "b * np.log(2.0 / (1.0 - level))",
                "a wider bracket around the same root: P(|N + L| <= c) increases "
                "in c, so brentq finds the same half-width to its tolerance",
            ),
            f"{_IM}_ci_release__mutmut_2": (
                'request.choose(("released",), None,',
                "choose is called only to refuse other methods: 'released' is "
                "the only one, and the value it returns for 'auto' is not used",
            ),
            f"{_IM}_ci_release__mutmut_9": (
                '"XXreleasedXX", type(self).__name__)',
                "as _ci_release__mutmut_2",
            ),
            f"{_IM}_ci_release__mutmut_10": (
                '"RELEASED", type(self).__name__)',
                "as _ci_release__mutmut_2",
            ),
            f"{_IM}_ci_release__mutmut_35": (
                "np.asarray(request.points, dtype=None)",
                "the columns' names are all strings (scikit-learn refuses mixed "
                "feature names; an array's columns are x0, x1, ...), which a "
                "str array holds as they are: the same lookups and labels",
            ),
            f"{_IM}_ci_release__mutmut_37": (
                "np.asarray(request.points, )",
                "as _ci_release__mutmut_35",
            ),
        },
    ),
    "subset_intervals": ModuleSpec(
        path="skprivate/subset/_intervals.py",
        # without the coverage check (6 s)
        tests=_all_but(
            "tests/subset/test_intervals.py", "test_pmf_interval_covers_at_95"
        ),
        new_tests=_CATEGORIES,
        equivalent={
            f"{_S}_ci_wald__mutmut_2": (
                'request.choose(("wald",), None,',
                "choose is called only to refuse other methods: 'wald' is the "
                "only one, and the value it returns for 'auto' is not used",
            ),
            f"{_S}_ci_wald__mutmut_9": (
                '"XXwaldXX", type(self).__name__)',
                "as _ci_wald__mutmut_2",
            ),
            f"{_S}_ci_wald__mutmut_10": (
                '"WALD", type(self).__name__)',
                "as _ci_wald__mutmut_2",
            ),
            f"{_S}_conf_int_pmf__mutmut_2": (
                "self._ci_wald(request, cumulative=None)",
                "_ci_wald tests cumulative for truth: None acts as False",
            ),
            f"{_S}_ci_wald__mutmut_41": (
                'np.einsum("IJ,JK,IK->I"',
                "the same contraction under other index letters",
            ),
        },
    ),
    "negative_survey_intervals": ModuleSpec(
        path="skprivate/negative_survey/_intervals.py",
        # not the mixin's _ci_ems_system and _ci_resampling_template: the
        # mixin's only user, RVNSDensityEstimator, defines its own (the
        # report cells and the setting of its band placement), which shadow
        # them, so no call ever reaches them (dead code)
        functions=[
            f"{_NS}_ci_uses_ems__mutmut_*",
            f"{_NS}_ci_moment_tilt__mutmut_*",
            f"{_NS}_conf_int_mean__mutmut_*",
        ],
        tests=["tests/negative_survey/test_intervals.py"],
        new_tests=_CATEGORIES,
        equivalent={
            f"{_NS}_ci_moment_tilt__mutmut_4": (
                'getattr(self, "moment_correction", None)',
                "moment_correction is a constructor parameter, always set: the "
                "default is never used",
            ),
            f"{_NS}_ci_moment_tilt__mutmut_7": (
                'getattr(self, "moment_correction", )',
                "as _ci_moment_tilt__mutmut_4",
            ),
            f"{_NS}_ci_moment_tilt__mutmut_10": (
                'getattr(self, "moment_correction", True)',
                "as _ci_moment_tilt__mutmut_4",
            ),
            f"{_NS}_ci_moment_tilt__mutmut_12": (
                "k = A.shape[1]",
                "the transition matrix is square: the report grid has as many "
                "cells as the value grid, for both placements",
            ),
            f"{_NS}_ci_moment_tilt__mutmut_19": (
                "if (bins.ndim == 1) and False else bins",
                "the unit bins are always two-dimensional (_ci_linearized "
                "makes X one row per respondent)",
            ),
            f"{_NS}_ci_uses_ems__mutmut_1": (
                'is not None or getattr(self, "l2_", None) is None',
                "an 'ml' fit sets smoothing_width_ and no l2_, a 'paper' fit the "
                "reverse (both attributes always set): either test alone decides",
            ),
            f"{_NS}_ci_uses_ems__mutmut_10": (
                'getattr(None, "l2_", None) is None',
                "as _ci_uses_ems__mutmut_1",
            ),
            f"{_NS}_ci_uses_ems__mutmut_14": (
                'getattr(self, "l2_", ) is None',
                "as _ci_uses_ems__mutmut_1",
            ),
            f"{_NS}_ci_uses_ems__mutmut_15": (
                'getattr(self, "XXl2_XX", None) is None',
                "as _ci_uses_ems__mutmut_1",
            ),
            f"{_NS}_ci_uses_ems__mutmut_16": (
                'getattr(self, "L2_", None) is None',
                "as _ci_uses_ems__mutmut_1",
            ),
            f"{_NS}_conf_int_mean__mutmut_15": (
                "fallback = None",
                "the fallback only tells 'moment' from the rest: every other "
                "method, 'auto' included, goes to the base class with the "
                "request, which chooses the auto method again from the fit",
            ),
            f"{_NS}_conf_int_mean__mutmut_16": (
                '(self._ci_uses_ems()) and False else "bootstrap"',
                "as _conf_int_mean__mutmut_15",
            ),
            f"{_NS}_conf_int_mean__mutmut_17": (
                '(self._ci_uses_ems()) or True else "bootstrap"',
                "as _conf_int_mean__mutmut_15",
            ),
            f"{_NS}_conf_int_mean__mutmut_18": (
                'fallback = "XXrbcXX"',
                "as _conf_int_mean__mutmut_15",
            ),
            f"{_NS}_conf_int_mean__mutmut_19": (
                'fallback = "RBC"',
                "as _conf_int_mean__mutmut_15",
            ),
            f"{_NS}_conf_int_mean__mutmut_20": (
                'else "XXbootstrapXX"',
                "as _conf_int_mean__mutmut_15",
            ),
            f"{_NS}_conf_int_mean__mutmut_21": (
                'else "BOOTSTRAP"',
                "as _conf_int_mean__mutmut_15",
            ),
            f"{_NS}_conf_int_mean__mutmut_4": (
                'getattr(self, "placement_", None)',
                "fit always sets placement_, so the default is never used",
            ),
            f"{_NS}_conf_int_mean__mutmut_7": (
                'getattr(self, "placement_", )',
                "as _conf_int_mean__mutmut_4",
            ),
            f"{_NS}_conf_int_mean__mutmut_10": (
                '"XXpaperXX") == "boundary_safe"',
                "as _conf_int_mean__mutmut_4",
            ),
            f"{_NS}_conf_int_mean__mutmut_11": (
                '"PAPER") == "boundary_safe"',
                "as _conf_int_mean__mutmut_4",
            ),
            f"{_NS}_ci_moment_tilt__mutmut_15": (
                "np.asarray(unit_bins, dtype=None)",
                "the unit bins come from _ci_ems_system as an intp array",
            ),
            f"{_NS}_ci_moment_tilt__mutmut_17": (
                "np.asarray(unit_bins, )",
                "as _ci_moment_tilt__mutmut_15",
            ),
            f"{_NS}_ci_moment_tilt__mutmut_24": (
                "astype(None)",
                "astype(None) is astype(float64)",
            ),
            f"{_NS}_ci_moment_tilt__mutmut_50": (
                "np.asarray(self.report_edges_, dtype=None)",
                "fit stores report_edges_ as a float64 array",
            ),
            f"{_NS}_ci_moment_tilt__mutmut_52": (
                "np.asarray(self.report_edges_, )",
                "as _ci_moment_tilt__mutmut_50",
            ),
        },
    ),
    "frequency_conf_int": ModuleSpec(
        path="skprivate/frequency/_estimator.py",
        # the interval code of the estimator only: conf_int's handler and
        # its bootstrap, the kinds and kept release it declares, and
        # _statistic_fit, which computes the closed-form variance_ the normal
        # interval reads; the estimators themselves are checked by
        # tests/frequency
        functions=[
            f"{_FREQ}_conf_int_pmf__mutmut_*",
            f"{_FREQ}_bootstrap__mutmut_*",
            f"{_FREQ}_ci_offers_kind__mutmut_*",
            f"{_FREQ}_ci_kept_release__mutmut_*",
            f"{_FREQ}_statistic_fit__mutmut_*",
        ],
        tests=_all_but("tests/frequency/test_estimator.py", "test_dask_matches_fit"),
        new_tests=_FREQUENCY,
    ),
}
