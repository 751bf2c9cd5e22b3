"""Mutation specs of the families' confidence-interval code.

The interval modules of the local-privacy, integral, subset and negative
survey families, and the ``conf_int`` code of the frequency estimator.  The
form of each entry follows ``_mutation_modules.py``.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

_NEW = [
    "tests/test_mutation_family_intervals.py",
    "tests/test_mutation_family_intervals_ldp2.py",
    "tests/test_mutation_family_intervals_ldp3.py",
    "tests/test_mutation_family_intervals_ldp4.py",
]
# the tests of the other modules, in files of their own: a survivor runs the
# whole of its module's new tests
_RELEASED = ["tests/test_mutation_family_intervals_released.py"]
_CATEGORIES = ["tests/test_mutation_family_intervals_categories.py"]
_L = "skprivate.ldp._intervals."
_D = _L + "xǁDeconvolutionDensityIntervalsMixinǁ"
_R = _L + "xǁDeconvolutionRegressionIntervalsMixinǁ"
_PK = _L + "xǁPerturbedKDEIntervalsMixinǁ"
_SW = _L + "xǁSquareWaveIntervalsMixinǁ"
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
        # the prediction intervals' estimates, fallbacks and units have
        # test files of their own
        new_tests=[
            *_NEW,
            "tests/ldp/test_prediction_interval_estimates.py",
            "tests/ldp/test_deconvolution_units_and_intervals.py",
        ],
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
            f"{_D}_conf_int_mean__mutmut_33": (
                'z = _records(request, getattr(self, "_Z", ))',
                "fit and partial_fit always set _Z (None for a streamed fit), so the "
                "default is never used",
            ),
            f"{_D}_conf_int_quantile__mutmut_34": (
                'z = _records(request, getattr(self, "_Z", ))',
                "as _conf_int_mean__mutmut_33",
            ),
            f"{_D}_ci_pointwise__mutmut_65": (
                "None,",
                "a key of the per-call cache, which holds no other key here but "
                "the smoothed warning's flag ('smoothed-warned'): the same "
                "memoized ratio",
            ),
            f"{_D}_ci_pointwise__mutmut_69": (
                '"XXratioXX",',
                "as _ci_pointwise__mutmut_65",
            ),
            f"{_D}_ci_pointwise__mutmut_70": (
                '"RATIO",',
                "as _ci_pointwise__mutmut_65",
            ),
            f"{_D}_conf_int_quantile__mutmut_50": (
                'None, lambda: self._ci_linear_ratio(z, coarse, "cdf", rbc)',
                "a key of the per-call cache, distinct from its other keys (the "
                "tuples ('fine', q) and the smoothed warning's flag): the same "
                "memoized coarse grid",
            ),
            f"{_D}_conf_int_quantile__mutmut_54": (
                '"XXcoarseXX", lambda: self._ci_linear_ratio(z, coarse, "cdf", rbc)',
                "as _conf_int_quantile__mutmut_50",
            ),
            f"{_D}_conf_int_quantile__mutmut_55": (
                '"COARSE", lambda: self._ci_linear_ratio(z, coarse, "cdf", rbc)',
                "as _conf_int_quantile__mutmut_50",
            ),
            f"{_D}_conf_int_quantile__mutmut_134": (
                'request.memo(("XXfineXX", float(p))',
                "the keys stay distinct per q and from 'coarse': the same "
                "memoized fine grids",
            ),
            f"{_D}_conf_int_quantile__mutmut_135": (
                'grid, F, se = request.memo(("FINE", float(p)), lambda p=p: fine(p))',
                "as _conf_int_quantile__mutmut_134",
            ),
            f"{_L}x_fieller_interval__mutmut_47": (
                "bounded = (a > 0) & (D >= 0)",
                "at D = 0, a = -z'**2 sum K**2 <= 0, so 'a > 0' is already "
                "false: the same bounded points",
            ),
            **{
                f"{_R}_ci_prediction_intervals__mutmut_{k}": (
                    line,
                    "a probability's bound beyond the far end of [0, 1] is "
                    "bounded only where D > 0, where the estimate (clipped and "
                    "renormalized, inside [0, 1]) is finite; the widening to "
                    "the estimate then moves that bound to the estimate with "
                    "the clip or without it",
                )
                for k, line in (
                    (308, "np.clip(lower, 0.0, None), np.clip(upper, 0.0, 1.0)"),
                    (313, "np.clip(lower, 0.0, 2.0), np.clip(upper, 0.0, 1.0)"),
                    (315, "np.clip(lower, 0.0, 1.0), np.clip(upper, None, 1.0)"),
                )
            },
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
            f"{_R}_ci_prediction_intervals__mutmut_25": (
                'degree = getattr(self, "degree_", None)',
                "fit always sets degree_, so the default is never used",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_28": (
                'degree = getattr(self, "degree_", )',
                "as _ci_prediction_intervals__mutmut_25",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_115": (
                "fallback = np.asarray(self.fallback_mask(query(self)), dtype=None)",
                "fallback_mask returns a boolean array already",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_117": (
                "fallback = np.asarray(self.fallback_mask(query(self)), )",
                "as _ci_prediction_intervals__mutmut_115",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_122": (
                "predicted = np.asarray(public(self), dtype=None)",
                "predict and predict_proba return float64 arrays (float32 inputs "
                "too), so no cast is left to make",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_124": (
                "predicted = np.asarray(public(self), )",
                "as _ci_prediction_intervals__mutmut_122",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_135": (
                "None,",
                "a key of the per-call cache, distinct from its other keys (the "
                "warnings' flags: 'smoothed-warned', 'bandwidth-warned', "
                "'fieller-warned', 'fallback-warned'; 'fits' is never set "
                "with it): the same memoized replicates",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_139": (
                '"XXbootstrapXX",',
                "as _ci_prediction_intervals__mutmut_135",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_140": (
                '"BOOTSTRAP",',
                "as _ci_prediction_intervals__mutmut_135",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_239": (
                "est, se, parts = (a.copy() for a in request.memo(None, fits))",
                "a key of the per-call cache, distinct from its other keys (the "
                "warnings' flags; 'bootstrap' is never set with it): the same "
                "memoized fits, copied before use as before",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_243": (
                'est, se, parts = (a.copy() for a in request.memo("XXfitsXX", fits))',
                "as _ci_prediction_intervals__mutmut_239",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_244": (
                'est, se, parts = (a.copy() for a in request.memo("FITS", fits))',
                "as _ci_prediction_intervals__mutmut_239",
            ),
            f"{_R}_ci_prediction_intervals__mutmut_282": (
                "se[fallback] = None",
                "se is a float array, where numpy stores None as NaN",
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
            f"{_R}_ci_training__mutmut_48": (
                "return np.asarray(Z, dtype=None), Y, labels",
                "fit stores _Z as a float64 array",
            ),
            f"{_R}_ci_training__mutmut_50": (
                "return np.asarray(Z, ), Y, labels",
                "fit stores _Z as a float64 array",
            ),
            f"{_R}_ci_training__mutmut_74": (
                "Y = labels.astype(None)[:, None]",
                "astype(None) is astype(float64)",
            ),
            # -- judged after the rerun of the estimators' names in the
            # refusals and the new tests of test_mutation_family_intervals_ldp2
            f"{_L}x__records__mutmut_7": (
                "raise ValueError(request.missing_data_message(None))",
                "the message for a release not kept (request.released) names no "
                "argument: every name gives the same text",
            ),
            f"{_L}x__records__mutmut_8": (
                'raise ValueError(request.missing_data_message("XXXXX"))',
                "as x__records__mutmut_7",
            ),
            f"{_L}x__records__mutmut_9": (
                'raise ValueError(request.missing_data_message("x"))',
                "as x__records__mutmut_7",
            ),
            f"{_D}_ci_offers_kind__mutmut_9": (
                "return True",
                "the branch for support_ None, which fit never leaves (as "
                "_ci_offers_kind__mutmut_5)",
            ),
            f"{_D}_ci_pointwise__mutmut_38": (
                'z = _records(request, getattr(self, "_Z", ))',
                "as _conf_int_mean__mutmut_33",
            ),
            f"{_D}_ci_pointwise__mutmut_56": (
                'est = np.where(x > b, 2.0, 0.0) if what == "cdf" else',
                "the CDF above the support has se 0, and its estimate and ends "
                "are then clipped into [0, 1]: 2 becomes 1, the value it replaces",
            ),
            f"{_D}_ci_pointwise__mutmut_55": (
                "est = np.where(x >= b, 1.0, 0.0)",
                "differs only at x = b, which is inside the support, where the "
                "ratio overwrites this value",
            ),
            f"{_D}_ci_resampling_template__mutmut_8": (
                "noise_scale=np.asarray(self.noise_scale_, dtype=None),",
                "fit stores noise_scale_ as a float array",
            ),
            f"{_D}_ci_resampling_template__mutmut_10": (
                "noise_scale=np.asarray(self.noise_scale_, ),",
                "as _ci_resampling_template__mutmut_8",
            ),
            f"{_R}_ci_resampling_template__mutmut_8": (
                "noise_scale=np.asarray(self.noise_scale_, dtype=None),",
                "fit stores noise_scale_ as a float array",
            ),
            f"{_R}_ci_resampling_template__mutmut_10": (
                "noise_scale=np.asarray(self.noise_scale_, ),",
                "as _ci_resampling_template__mutmut_8",
            ),
            f"{_D}_conf_int_mean__mutmut_3": (
                '("noisy-mean", "bootstrap"), None, type(self).__name__',
                "the chosen method is only compared with 'bootstrap': any other "
                "default gives the noisy mean",
            ),
            f"{_D}_conf_int_mean__mutmut_12": (
                '"XXnoisy-meanXX", type(self).__name__',
                "as _conf_int_mean__mutmut_3",
            ),
            f"{_D}_conf_int_mean__mutmut_13": (
                '"NOISY-MEAN", type(self).__name__',
                "as _conf_int_mean__mutmut_3",
            ),
            **{
                f"{_D}_conf_int_quantile__mutmut_{n}": (
                    line,
                    "_ci_linear_ratio tells only 'pdf' from the rest: any other "
                    "value of `what` gives the CDF",
                )
                for n, line in (
                    (59, "self._ci_linear_ratio(z, coarse, None, rbc)"),
                    (65, 'self._ci_linear_ratio(z, coarse, "XXcdfXX", rbc)'),
                    (66, 'self._ci_linear_ratio(z, coarse, "CDF", rbc)'),
                    (114, "self._ci_linear_ratio(z, grid, None, rbc)"),
                    (120, 'self._ci_linear_ratio(z, grid, "XXcdfXX", rbc)'),
                    (121, 'self._ci_linear_ratio(z, grid, "CDF", rbc)'),
                )
            },
            **{
                f"{_D}_conf_int_quantile__mutmut_{n}": (
                    line,
                    "differs only when a computed CDF equals q (or q -/+ z se) "
                    "exactly, a measure-zero coincidence",
                )
                for n, line in (
                    (71, "np.abs(Fc - p) < _WIDE_Z * sc"),
                    (77, "wide = np.flatnonzero(p < Fc)[:1]"),
                    (141, "above = np.flatnonzero(p < F)"),
                    (184, "ok = np.flatnonzero(np.abs(F - p) < zq * se)"),
                )
            },
            **{
                f"{_D}_conf_int_quantile__mutmut_{n}": (
                    line,
                    "the fallback for no coarse point at or above q is dead: the "
                    "estimate at the support's end is exactly 1 (its terms are "
                    "the mass terms themselves) and q < 1",
                )
                for n, line in (
                    (81, "wide = wide if (wide.size) or True else"),
                    (82, "wide = wide if wide.size else np.array(None)"),
                    (83, "wide = wide if wide.size else np.array([_COARSE + 1])"),
                    (84, "wide = wide if wide.size else np.array([_COARSE - 2])"),
                )
            },
            f"{_D}_conf_int_quantile__mutmut_152": (
                "if i > 0 and F[i] >= F[i - 1]:",
                "i is the first fine point with q <= F, so F[i - 1] < q <= F[i] "
                "and both tests hold (they differ only for F[i] = F[i - 1] "
                "exactly when no fine point reaches q, a measure-zero "
                "coincidence)",
            ),
            f"{_D}_conf_int_quantile__mutmut_169": (
                "estimate[j] = grid[i - 1] + np.clip(frac, None, 1) * (",
                "the interpolation runs only where F[i] > F[i - 1] and either "
                "F[i - 1] < q (i the first fine point with q <= F) or F[i] < q "
                "(no such point): frac is positive either way, so its lower "
                "clip at 0 never acts",
            ),
            f"{_R}_ci_kept_release__mutmut_5": (
                'if getattr(self, "privatizer_", ) is None:',
                "fit always sets privatizer_ (None without a privatizer)",
            ),
            f"{_R}_ci_local_constant__mutmut_33": (
                "return np.full(c, None), np.full(c, np.nan), parts",
                "the values are stored in float arrays, where None becomes NaN",
            ),
            f"{_R}_ci_local_constant__mutmut_37": (
                "return np.full(c, np.nan), np.full(c, None), parts",
                "as _ci_local_constant__mutmut_33",
            ),
            f"{_R}_ci_local_linear__mutmut_12": (
                "first = [self._ci_weights(x, Z, None, o)",
                "_ci_weights tests rbc for truth: None acts as False",
            ),
            f"{_R}_ci_local_linear__mutmut_50": (
                "w = self._ci_weights(x, Z, None, tuple(2 * e",
                "as _ci_local_linear__mutmut_12",
            ),
            f"{_R}_ci_local_linear__mutmut_65": (
                "None,",
                "as _ci_local_linear__mutmut_12 (the rbc argument of the "
                "cross-term weights)",
            ),
            f"{_R}_ci_local_linear__mutmut_36": (
                "for a in range(q + 2):",
                "the extra row a = q + 1 has no columns b in range(q + 1, q + 1): "
                "nothing is computed for it",
            ),
            f"{_R}_ci_local_linear__mutmut_98": (
                "if np.linalg.eigvalsh(scaled)[0] < LOCAL_LINEAR_TOLERANCE:",
                "differs only when the smallest eigenvalue of the scaled design "
                "equals the tolerance exactly, a measure-zero coincidence",
            ),
            f"{_R}_ci_local_linear__mutmut_128": (
                'np.einsum("NAB,B->NA", L, beta[:, c])',
                "the same contraction under other index letters",
            ),
            **{
                f"{_R}_ci_prediction_intervals__mutmut_{n}": (
                    line,
                    "as x_fieller_interval__mutmut_11: numpy reads a negative "
                    "size as 'infer' (numpy 2.4, no warning)",
                )
                for n, line in (
                    (167, "lower.reshape(c, -2).T, upper.reshape(c, -1).T"),
                    (173, "lower.reshape(c, -1).T, upper.reshape(c, -2).T"),
                    (189, "ddof=1).reshape(c, -2).T"),
                )
            },
            f"{_R}_ci_training__mutmut_71": (
                ".astype(None)",
                "astype(None) is astype(float64)",
            ),
            f"{_R}_ci_weights__mutmut_23": (
                "out = out * interval_kernel(U[:, j], ratios[j], None, True)",
                "with rbc=True interval_kernel does not read the kernel (the "
                "fourth-order kernel is the Gaussian's)",
            ),
            f"{_R}_conf_int_predict__mutmut_2": (
                "return self._ci_prediction_intervals(request, proba=None)",
                "proba is tested for truth: None acts as False",
            ),
            f"{_PK}_ci_resampling_template__mutmut_16": (
                "privatizer=None, bounds=tuple(self.bounds_), )",
                "only a 'paper' fit gets here (an 'ml' one is refused first): "
                "its method is 'paper', or 'auto' without a known noise law, "
                "and the clone has no privatizer, so 'auto' resolves to "
                "'paper' as well",
            ),
            f"{_PK}_ci_ems_system__mutmut_5": (
                "law = _noise_law(None, self.privatizer_)",
                "_noise_law names the estimator only when refusing columns with "
                "different noise laws, which fit refuses first",
            ),
            f"{_PK}_ci_moment_tilt__mutmut_40": (
                "law = _noise_law(None, self.privatizer_)",
                "as _ci_ems_system__mutmut_5",
            ),
            **{
                f"{cls}_ci_moment_tilt__mutmut_{n}": (
                    line,
                    "moment_correction is a constructor parameter, always set: "
                    "the default is never used",
                )
                for cls in (_PK, _SW)
                for n, line in (
                    (4, 'getattr(self, "moment_correction", None)'),
                    (7, 'getattr(self, "moment_correction", )'),
                    (10, 'getattr(self, "moment_correction", True)'),
                )
            },
            **{
                f"{cls}_ci_moment_tilt__mutmut_14": (
                    "minlength=k).astype(None)",
                    "astype(None) is astype(float64)",
                )
                for cls in (_PK, _SW)
            },
            f"{_PK}_conf_int_mean__mutmut_8": (
                '"XXnoisy-meanXX"',
                "the chosen method is only compared with 'bootstrap' and the "
                "linearized names: any other default gives the noisy mean",
            ),
            f"{_PK}_conf_int_mean__mutmut_9": (
                '"NOISY-MEAN"',
                "as _conf_int_mean__mutmut_8",
            ),
            f"{_SW}_ci_ems_refit__mutmut_4": (
                "return super()._ci_ems_refit(A, frequencies, None)",
                "the start is only EMS's first iterate: from the uniform start "
                "it reaches the same fixed point to its tolerance (the "
                "corrected CDF moves by 3e-10 relative)",
            ),
            f"{_SW}_ci_ems_refit__mutmut_16": (
                "np.asarray(frequencies, dtype=None)",
                "the frequencies are float arrays (A @ theta, or counts over "
                "their sum)",
            ),
            f"{_SW}_ci_ems_refit__mutmut_18": (
                "np.asarray(frequencies, )",
                "as _ci_ems_refit__mutmut_16",
            ),
            f"{_SW}_ci_ems_system__mutmut_43": (
                "A.shape[1] - 1",
                "the Square Wave's transition matrix is square (n_points output "
                "buckets for n_points cells)",
            ),
            f"{_SW}_ci_moment_tilt__mutmut_12": (
                "k = A.shape[1]",
                "as _ci_ems_system__mutmut_43",
            ),
            f"{_SW}_ci_moment_tilt__mutmut_26": (
                "counts * counts.sum()",
                "EMS is invariant to scaling the report counts (each EM step "
                "normalizes and the stopping rules are relative)",
            ),
            f"{_SW}_ci_moment_tilt__mutmut_32": (
                "V = (np.asarray(X, dtype=None) - a) / (b - a)",
                "_ci_linearized passes X as a float array",
            ),
            f"{_SW}_ci_moment_tilt__mutmut_34": (
                "V = (np.asarray(X, ) - a) / (b - a)",
                "as _ci_moment_tilt__mutmut_32",
            ),
            f"{_SW}_conf_int_mean__mutmut_3": (
                "None,",
                "the default: the chosen method is only compared with "
                "'bootstrap' and the linearized names, so any other default "
                "gives the moment estimator",
            ),
            f"{_SW}_conf_int_mean__mutmut_18": (
                '"XXmomentXX",',
                "as _conf_int_mean__mutmut_3",
            ),
            f"{_SW}_conf_int_mean__mutmut_19": (
                '"MOMENT",',
                "as _conf_int_mean__mutmut_3",
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
        new_tests=[*_RELEASED, "tests/test_mutation_integral_intervals.py"],
        equivalent={
            **{
                f"{_IM}_ci_one__mutmut_{n}": (
                    "None,",
                    "the NaN lower or upper bound of a row without interval: "
                    "interval_frame reads them with np.asarray(..., dtype=float), "
                    "which turns None into NaN",
                )
                for n in (35, 36)
            },
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
            f"{_S}_ci_shares__mutmut_19": (
                'np.einsum("IJ,JK,IK->I"',
                "the same contraction under other index letters",
            ),
            **{
                f"{_S}_ci_shares__mutmut_{i}": (
                    line,
                    "the reported shares lie in [0, 1] (a point of the "
                    "simplex): min(lower, reported) and max(upper, reported) "
                    "are the same whether lower is capped at 1 (or 2) and "
                    "upper floored at 0 first or not",
                )
                for i, line in (
                    (35, "np.clip(lower, 0.0, None)"),
                    (40, "np.clip(lower, 0.0, 2.0)"),
                    (47, "np.clip(upper, None, 1.0)"),
                )
            },
        },
    ),
    "negative_survey_intervals": ModuleSpec(
        path="skprivate/negative_survey/_intervals.py",
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
            f"{_NS}_ci_moment_tilt__mutmut_38": (
                "start=None,",
                "the start is only EMS's first iterate: from the uniform start "
                "it stops at the same fixed point to its tolerance ML_TOL (the "
                "smoothed and rbc CDF se move by 8e-9 relative on the 400-row "
                "sample of test_rvns_linearization_follows_the_fits_moment_tilt)",
            ),
            f"{_NS}_ci_moment_tilt__mutmut_44": (
                ")",
                "the call without start: as _ci_moment_tilt__mutmut_38",
            ),
            f"{_NS}_ci_moment_tilt__mutmut_45": (
                "start=np.asarray(self.density_) / np.diff(self.edges_),",
                "rvns_grid's cells are of equal width and ems_cell_probabilities "
                "normalizes its start: dividing by the widths instead of "
                "multiplying gives the same start up to the rounding of the "
                "widths (the intervals move by 1e-14 relative)",
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
}
