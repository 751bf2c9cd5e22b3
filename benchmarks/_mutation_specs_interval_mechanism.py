"""Mutation specs of the interval-privacy mechanism and the central-DP statistics.

The interval mechanisms (``_mechanisms.py``: the anchors of each, the cells
released exactly, shifted anchor windows), the shared machinery of the
interval mechanisms (``IntervalCaseI`` and its
siblings: design, release of each value as the random cell holding it,
coverage and ``privacy_summary``, refusals) in ``_base_mechanism.py``, the
anchor laws and cell geometry in ``_anchors.py``, and the Laplace
statistics of ``skprivate/integral/_dp.py`` (scales, the exponential
mechanism's quantile, the IQR propose-test-release, bounds checks) with the
sensitivities the release and its intervals share (``_sensitivity.py``).
Merged into ``MODULES`` by ``_mutation_modules.py``.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

_DP = "skprivate.integral._dp."
_BM = "skprivate.interval._base_mechanism."
_BMC = _BM + "xǁ_BaseIntervalMechanismǁ"
_AN = "skprivate.interval._anchors."
_ME = "skprivate.interval._mechanisms.xǁIntervalMechanismǁ"
_EN = "skprivate.interval._ensemble.xǁIntervalEnsembleǁ"
_HINT_AFTER_FIT = (
    "after fit every member is a clone whose n_features_in_ is set to the "
    "ensemble's, so the largest member hint is the ensemble's column count"
)
_OFFSET_FLOATS = (
    "numeric offsets (ints, floats, numpy arrays) give the same values without "
    "the float dtype: isfinite, diff and the products with anchor_scale read "
    "integers as their float values"
)
# the mechanisms' own tests and the coverage tests without the slow ones:
# the sweep of every mechanism (3.5 s; the release rule is pinned exactly
# by the new tests), the tests calling privacy_summary many times (several
# seconds each: 200,000 anchor draws per call) and the Case-I and Case-II
# estimator checks by simulation (0.5 s each; design_coverage is pinned on
# exact cases)
_INTERVAL_TESTS = [
    *_all_but(
        "tests/interval/test_mechanisms.py",
        "test_every_interval_contains_its_value",
    ),
    *_all_but(
        "tests/interval/test_coverage.py",
        "test_privacy_summary_reports_expected_coverage",
        "test_composition_bound_holds_for_an_ensemble",
        "test_case_one_estimator_matches_quadrature_and_simulation",
        "test_case_two_estimator_matches_simulation",
    ),
]

_IQR_LEAVES = (
    "the IQR test always leaves the bin by m = floor(h1) + 1 <= n - 2: there "
    "floor(h3) - m < ceil(h1) + m (h3 = 3 h1), the two order statistics "
    "bounding the IQR below cross and its lower bound is 0 < base**j; so "
    "leaves.any() is true and values of m past it never count (the same "
    "distance on 3,000 random data sets)"
)
_IQR_PADDING = (
    "an index below -1 appears only for m > floor(h1) + 1, after the bin is "
    "left (the lower bound of the IQR is 0 there); every earlier index lies "
    "in [-1, n], where the clip does nothing (the same distance on 3,000 "
    "random data sets; on 1,500 with the bounds swapped)"
)
_ALLOW_INF_NONE = (
    "check_float_array tests allow_inf for truth (if not allow_inf): None acts as False"
)
_CHECKED_FIRST = (
    "check_numeric_input has refused every entry float() refuses (object and "
    "string entries one by one; columns of numbers, nullable numbers or numeric "
    "categories pass as numbers), and astype(float) converts with float()'s "
    "rules: it never fails after the check, so the except clause and the "
    "refusal after it are never reached"
)
_FINITE_FIRST = (
    "check_numeric_input(X, finite=True) refuses NaN and infinity first, "
    "naming the row and column; validate_data never sees them"
)
_OTHER_SEED = (
    "another fixed seed for the Monte Carlo: the same expectation from as many "
    "anchor draws (standard error below 0.004), as reproducible"
)
_HAS_SUPPORT = (
    "every class using it has a support parameter; an object without one "
    "fails in get_params, which fit and privacy_summary call first"
)
_FLOAT_ARITHMETIC = (
    "shift + mult * (...) and p_low + (...) * mass are float arithmetic: the "
    "same values whatever numeric dtype the array had"
)
_SAME_POINTS = (
    "every caller passes float points (cell ends, anchors, samples); isnan, "
    "comparisons, argsort and searchsorted read any numeric array alike"
)
_CLIP_ROUNDING = (
    "a cell's mass minus its mass in the fixed set lies in [0, 1] up to one "
    "rounding, so these clips change the squares by under 1e-30"
)
_CDF_CLIPS = (
    "the two clips are redundant: p clipped to [p_low, p_low + mass] gives "
    "(p - p_low) / mass in [0, 1] up to one rounding, and the second clip "
    "bounds what the first leaves open"
)
_STACKLEVEL = (
    "the warning loses its stacklevel; under mutmut a trampoline "
    "frame is the caller, so only tests/test_warning_location.py (outside "
    "mutmut) sees it"
)

SPECS: dict[str, ModuleSpec] = {
    # Every method of the shared base except get_feature_names_out (the
    # output column names, not part of what is released or claimed).
    "interval_mechanism": ModuleSpec(
        path="skprivate/interval/_base_mechanism.py",
        functions=[
            _BM + "x__per_column__mutmut_*",
            _BM + "x__is_pair__mutmut_*",
            *(
                f"{_BMC}{name}__mutmut_*"
                for name in (
                    "_n_columns_hint",
                    "_standardization",
                    "_value_support",
                    "_anchor_window",
                    "_anchor_distribution",
                    "_fixed_set",
                    "_anchor_support",
                    "_exact_law",
                    "_validate_design",
                    "fit",
                    "_fit",
                    "_reference_cdf",
                    "_reference_text",
                    "_column_names",
                    "_assess_fitted_data",
                    "_privatize_column",
                    "_warn_uncovered",
                    "transform",
                    "_transform",
                    "privacy_summary",
                )
            ),
        ],
        tests=_INTERVAL_TESTS,
        new_tests=[
            "tests/test_mutation_interval_mechanism.py",
            "tests/test_privacy_contract.py::"
            "test_fitted_state_does_not_depend_on_the_data",
            "tests/interval/test_report_assumptions.py",
            "tests/test_dask_fit_data_checks.py",
        ],
        equivalent={
            f"{_BMC}fit__mutmut_2": (
                "return super().fit(X, None)",
                "y is ignored by fit (documented: 'y : None, Ignored')",
            ),
            f"{_BMC}fit__mutmut_4": (
                "return super().fit(X, )",
                "y defaults to None and is ignored",
            ),
            f"{_BMC}_fit__mutmut_6": (
                "check_numeric_input(X, finite=True), )",
                _FINITE_FIRST,
            ),
            f"{_BMC}_fit__mutmut_12": ("ensure_all_finite=False", _FINITE_FIRST),
            f"{_BMC}_transform__mutmut_6": (
                "reset=None,",
                "validate_data tests reset for truth: None acts as False",
            ),
            f"{_BMC}_transform__mutmut_11": (")", _FINITE_FIRST),
            f"{_BMC}_transform__mutmut_18": ("ensure_all_finite=False,", _FINITE_FIRST),
            f"{_BMC}_anchor_window__mutmut_1": (
                "return self._value_support(None)",
                "every concrete mechanism overrides _anchor_window "
                "(IntervalMechanism's, which handles offsets) and the ensemble "
                "asks its members: the base method never runs",
            ),
            f"{_BMC}_assess_fitted_data__mutmut_8": (
                "rng = np.random.default_rng(1)",
                _OTHER_SEED,
            ),
            f"{_BMC}privacy_summary__mutmut_5": (
                "rng = np.random.default_rng(1)",
                _OTHER_SEED,
            ),
            f"{_BMC}_assess_fitted_data__mutmut_62": (
                "if cov <= ref_cov - _COVERAGE_GAP:",
                "differs only when two Monte Carlo averages over 20,000 draws "
                "differ by exactly 0.1 in floating point",
            ),
            f"{_BMC}_fixed_set__mutmut_6": (
                'getattr(self, "acceptable_range", )',
                "every class using the base _fixed_set has acceptable_range (a "
                "parameter, or a property giving None); the ensemble overrides it",
            ),
            f"{_BMC}privacy_summary__mutmut_95": (
                'bool(getattr(self, "exact_cells", ))',
                "every mechanism has exact_cells (a parameter, or a property)",
            ),
            f"{_BMC}_n_columns_hint__mutmut_15": (
                'declared = getattr(self, "support", )',
                _HAS_SUPPORT,
            ),
            f"{_BMC}_value_support__mutmut_6": (
                'declared = getattr(self, "support", )',
                _HAS_SUPPORT,
            ),
            **{
                f"{_BMC}_value_support__mutmut_{k}": (
                    line,
                    "_is_pair has checked that support has two entries: zip "
                    "never meets unequal lengths",
                )
                for k, line in (
                    (29, "(-np.inf, np.inf), strict=None):"),
                    (32, "(-np.inf, np.inf), ):"),
                    (34, "(-np.inf, np.inf), strict=False):"),
                )
            },
            f"{_BMC}_value_support__mutmut_56": (
                "if np.isnan(low) and np.isnan(high) or not low < high:",
                "a NaN end makes low < high false, so the refusal is the same "
                "with either NaN test",
            ),
            f"{_BMC}_privatize_column__mutmut_66": (
                "np.sort(np.hstack(anchors), )",
                "the stacked anchors are 2-D: sort's default last axis is axis 1",
            ),
            f"{_BMC}_transform__mutmut_49": (
                "B[:, j].astype(None)",
                "numpy reads the dtype None as float64: the same cast",
            ),
        },
        excluded={
            f"{_BMC}_assess_fitted_data__mutmut_29": (")", _STACKLEVEL),
            f"{_BMC}_assess_fitted_data__mutmut_55": (")", _STACKLEVEL),
            f"{_BMC}_warn_uncovered__mutmut_12": (")", _STACKLEVEL),
        },
    ),
    # The whole module: the anchor laws (truncated or not), CDF checks,
    # the fixed acceptable set and the cell geometry of every release.
    "interval_anchors": ModuleSpec(
        path="skprivate/interval/_anchors.py",
        tests=_INTERVAL_TESTS,
        new_tests=["tests/test_mutation_interval_mechanism.py"],
        equivalent={
            **{
                f"{_AN}{name}": (line, _FLOAT_ARITHMETIC)
                for name, line in (
                    (
                        "xǁAnchorDistributionǁppf__mutmut_5",
                        "self.base.ppf(p), dtype=None)",
                    ),
                    ("xǁAnchorDistributionǁppf__mutmut_7", "self.base.ppf(p), )"),
                    (
                        "xǁAnchorDistributionǁppf__mutmut_13",
                        "np.asarray(p, dtype=None)",
                    ),
                    (
                        "xǁAnchorDistributionǁppf__mutmut_15",
                        "np.asarray(p, ) * self.mass",
                    ),
                    (
                        "xǁAnchorDistributionǁppf__mutmut_20",
                        "self.base.ppf(q), dtype=None)",
                    ),
                    ("xǁAnchorDistributionǁppf__mutmut_22", "self.base.ppf(q), )"),
                    (
                        "xǁAnchorDistributionǁsupport__mutmut_5",
                        "ppf([0.0, 1.0]), None)",
                    ),
                    ("xǁAnchorDistributionǁsupport__mutmut_7", "ppf([0.0, 1.0]), )"),
                )
            },
            **{
                f"{_AN}{name}": (line, _SAME_POINTS)
                for name, line in (
                    ("x__checked_cdf__mutmut_3", "t = np.asarray(t, dtype=None)"),
                    ("x__checked_cdf__mutmut_5", "t = np.asarray(t, )"),
                    ("x_as_cdf__mutmut_47", "np.asarray(t, dtype=None)"),
                    ("x_as_cdf__mutmut_49", "np.asarray(t, )"),
                )
            },
            **{
                f"{_AN}x__checked_cdf__mutmut_{k}": (
                    line,
                    "only the order among equal points changes, where a function "
                    "of t gives equal values (a difference of 0)",
                )
                for k, line in (
                    (57, "np.argsort(flat_t, kind=None)"),
                    (59, "np.argsort(flat_t, )"),
                    (61, 'np.argsort(flat_t, kind="STABLE")'),
                )
            },
            **{
                f"{_AN}x__checked_cdf__mutmut_{k}": (
                    line,
                    "values is already a float array (raw was read as floats): "
                    "a float copy either way",
                )
                for k, line in (
                    (71, "return np.array(values, dtype=None)"),
                    (73, "return np.array(values, )"),
                )
            },
            **{
                f"{_AN}x_cell_bounds__mutmut_{k}": (
                    line,
                    "take_along_axis defaults to the last axis, axis 1 of these "
                    "2-D arrays",
                )
                for k, line in (
                    (16, "np.take_along_axis(padded, idx[:, None], )"),
                    (25, "np.take_along_axis(padded, idx[:, None] + 1, )"),
                )
            },
            f"{_AN}x_check_acceptable_range__mutmut_43": (
                "arr = arr[np.argsort(arr[:, 1])]",
                "disjoint pairs come in the same order by high ends as by low "
                "ends, and in either order two neighbours overlap whenever any "
                "two pairs do (if each next low is >= the previous high, all are "
                "disjoint)",
            ),
            f"{_AN}x_design_coverage__mutmut_5": (
                "np.sort(np.hstack([a for a, _ in components]), )",
                "sort's default last axis is axis 1 of the 2-D anchors",
            ),
            **{
                f"{_AN}x_design_coverage__mutmut_{k}": (line, _CLIP_ROUNDING)
                for k, line in (
                    (57, "np.clip(prob, None, 1.0)"),
                    (58, "np.clip(prob, 0.0, None)"),
                    (63, "np.clip(prob, 0.0, 2.0)"),
                )
            },
            f"{_AN}x_in_fixed_set__mutmut_1": (
                "if fixed.shape[1] == 0:",
                "fixed always has 2 columns; with no row the general branch "
                "gives the same all-False array of y's shape",
            ),
            f"{_AN}x_in_fixed_set__mutmut_20": (
                "axis=+1)",
                "every caller passes a 1-D y: axis 1 is the last axis",
            ),
            **{
                f"{_AN}x_mass_in_fixed_set__mutmut_{k}": (
                    line,
                    "lo and hi always have the same shape (the ends of the same "
                    "cells): the output shape is hi's",
                )
                for k, line in (
                    (3, "np.broadcast(None, hi).shape"),
                    (4, "np.broadcast(lo, None).shape"),
                    (5, "np.broadcast(hi).shape"),
                    (6, "np.broadcast(lo, ).shape"),
                )
            },
            f"{_AN}x_mass_in_fixed_set__mutmut_25": (
                "out += np.where(b >= a, cdf(b) - cdf(a), 0.0)",
                "where b equals a, cdf(b) - cdf(a) is 0 too",
            ),
            **{
                f"{_AN}xǁAnchorDistributionǁcdf__mutmut_{k}": (line, _CDF_CLIPS)
                for k, line in (
                    (5, "np.clip(self._base_cdf(u), None, self.p_low + self.mass)"),
                    (6, "np.clip(self._base_cdf(u), self.p_low, None)"),
                    (13, "(p - self.p_low) / self.mass, None, 1.0)"),
                    (14, "(p - self.p_low) / self.mass, 0.0, None)"),
                    (21, "(p - self.p_low) / self.mass, 0.0, 2.0)"),
                )
            },
        },
    ),
    # The whole module: every function is part of a release or its refusal
    # (absolute_relative_error is small and checked exactly).  The Monte
    # Carlo checks of the noise scales (3,000 releases each, 1-2 s) and of
    # the exponential-mechanism quantiles (8 s) are left out: the new tests
    # pin every scale and the selection probabilities exactly.
    "integral_dp": ModuleSpec(
        path="skprivate/integral/_dp.py",
        tests=[
            *_all_but(
                "tests/integral/test_dp.py",
                "test_global_sensitivity_scales",
                "test_local_sensitivity_scales",
                "test_variance_and_sd_scales_come_from_the_range",
                "test_global_variance_and_sd_scales_come_from_the_bounds",
                "test_variance_and_sd_sensitivity_bounds_hold_on_worst_neighbours",
                "test_exponential_mechanism_quantiles_are_dp_and_accurate",
            ),
            # the clamping into the bounds, the bounds of a constant column,
            # the rows named in refusals and the names of the arguments
            "tests/integral/test_dp_bounds.py",
            *(
                f"tests/test_bad_input_pins.py::{name}"
                for name in (
                    "test_laplace_statistic_refuses_an_infinite_value_naming_its_row",
                    "test_laplace_statistic_on_dask_refuses_an_infinite_value_as_in_memory",
                    "test_laplace_describe_names_the_row_of_an_infinite_value_in_the_table",
                )
            ),
            "tests/test_raw_values_in_errors_more.py::"
            "test_absolute_relative_error_of_pandas_keeps_no_value",
            "tests/utils/test_redact.py::"
            "test_dp_baselines_keep_no_value_in_the_errors_behind_a_refusal",
            *(
                f"tests/test_bad_input.py::test_function_valid_input[{name}]"
                for name in (
                    "absolute_relative_error",
                    "laplace_statistic",
                    "laplace_describe",
                )
            ),
            *(
                "tests/test_bad_input.py::test_function_parameter["
                f"absolute_relative_error-{cell}]"
                for cell in (
                    "true-string",
                    "true-short",
                    "true-pandas",
                    "private-string",
                    "private-short",
                )
            ),
        ],
        new_tests=[
            "tests/test_mutation_integral_dp.py",
            "tests/integral/test_release_generator_copies.py",
        ],
        equivalent={
            f"{_DP}x__iqr_ptr__mutmut_44": (
                "m = np.arange(1, n - 1)",
                _IQR_LEAVES,
            ),
            f"{_DP}x__iqr_ptr__mutmut_45": (
                "m = np.arange(1, n + 2)",
                _IQR_LEAVES,
            ),
            f"{_DP}x__iqr_ptr__mutmut_93": (
                "if (leaves.any()) or True else n",
                _IQR_LEAVES,
            ),
            f"{_DP}x__iqr_ptr__mutmut_50": (
                "return padded[np.clip(i, None, n) + 1]",
                _IQR_PADDING,
            ),
            f"{_DP}x__iqr_ptr__mutmut_56": (
                "return padded[np.clip(i, -2, n) + 1]",
                _IQR_PADDING,
            ),
            f"{_DP}x_absolute_relative_error__mutmut_64": (
                "return out if (out.ndim) and False else out[()]",
                "out[()] of an array of one or more dimensions is a view of the "
                "whole array (same shape, dtype and values), returned in its place",
            ),
            f"{_DP}x_absolute_relative_error__mutmut_65": (
                "return out if (out.ndim) or True else out[()]",
                "numpy arithmetic on 0-d arrays already returns a numpy scalar "
                "(np.float64), so out[()] returns out unchanged",
            ),
            f"{_DP}x__pandas_as_float__mutmut_6": (
                "converted = values.astype(None)",
                "pandas reads the dtype None as numpy does, float64: the same cast "
                "(numpy, nullable, sparse, categorical and string columns alike)",
            ),
            **{
                f"{_DP}x__pandas_as_float__mutmut_{k}": (line, _CHECKED_FIRST)
                for k, line in ((7, 'converted = ""'), (9, "raise TypeError(None)"))
            },
            f"{_DP}x__column_seed__mutmut_13": (
                "generate_state(2, np.uint64)[0]",
                "SeedSequence.generate_state hashes its pool into words one after "
                "another, each from its position only: the first of two 64-bit "
                "words is the one word of one",
            ),
            f"{_DP}x_laplace_statistic__mutmut_38": (
                'xs = ""',
                "for a dask collection xs is only passed to _check_bounds, which "
                "reads it only when bounds is None, refused before for collections",
            ),
            f"{_DP}x_laplace_statistic__mutmut_43": (
                'check_float_array(x, name="x", allow_inf=None)',
                _ALLOW_INF_NONE,
            ),
            f"{_DP}xǁ_Momentsǁblock__mutmut_4": (
                'rows, name="x", allow_inf=None, first_row=first_row',
                _ALLOW_INF_NONE,
            ),
            f"{_DP}x_laplace_statistic__mutmut_196": (
                'spread = ""',
                "spread is read only for var and std, which set it first",
            ),
            **{
                f"{_DP}x_laplace_statistic__mutmut_{k}": (
                    line,
                    "xs was clamped into [lo, hi] just before; _true_value clamps "
                    "only sum and mean again, which leaves clamped values as they "
                    "are with either bound missing (np.clip then clamps on the "
                    "other side only)",
                )
                for k, line in (
                    (263, "_true_value(xs, statistic, None, hi)"),
                    (264, "_true_value(xs, statistic, lo, None)"),
                )
            },
            f"{_DP}xǁ_Momentsǁmerge__mutmut_8": (
                "if n == 1:",
                "the general update with an empty left side (n = 0, total 0, mean "
                "0, M2 0) gives the right side's count, total and M2 exactly and "
                "its mean as mb * nb / nb, equal to mb up to one rounding",
            ),
            **{
                f"{_DP}x_laplace_describe__mutmut_{k}": (
                    line,
                    "to_numpy(dtype=float) gives NaN for a missing entry whatever "
                    "na_value says (None or unset), for every column kind "
                    "numeric_frame keeps (numpy, nullable, sparse, Arrow numbers "
                    "and decimals): the same float64 array",
                )
                for k, line in (
                    (75, "values = frame[name].to_numpy(dtype=float, na_value=None)"),
                    (77, "values = frame[name].to_numpy(dtype=float, )"),
                )
            },
        },
        excluded={
            f"{_DP}x__check_bounds__mutmut_7": (")", _STACKLEVEL),
            f"{_DP}x_laplace_statistic__mutmut_188": (")", _STACKLEVEL),
        },
    ),
    # The sensitivities both the central-DP release and its intervals read.
    "integral_sensitivity": ModuleSpec(
        path="skprivate/integral/_sensitivity.py",
        tests=[
            "tests/integral/test_dp.py::test_global_variance_and_sd_scales_come_from_the_bounds",
            "tests/integral/test_intervals.py::test_sample_target_half_width_is_the_laplace_quantile",
            "tests/integral/test_intervals.py::test_sum_interval_undoes_the_noise_the_release_added",
        ],
        new_tests=[
            "tests/test_mutation_integral_dp.py",
            "tests/integral/test_release_generator_copies.py",
        ],
    ),
    # The mechanisms themselves: the anchors of the general mechanism (sorted
    # draws, or one draw shifted by the offsets), the cells released exactly,
    # and the window and support of shifted anchors.
    "interval_mechanisms": ModuleSpec(
        path="skprivate/interval/_mechanisms.py",
        tests=[
            *_INTERVAL_TESTS,
            "tests/test_mutation_interval_mechanism.py",
        ],
        new_tests=["tests/test_mutation_interval_mechanisms.py"],
        equivalent={
            f"{_ME}_offsets__mutmut_4": (
                "off = np.asarray(self.offsets, dtype=None)",
                _OFFSET_FLOATS,
            ),
            f"{_ME}_offsets__mutmut_6": (
                "off = np.asarray(self.offsets, )",
                _OFFSET_FLOATS,
            ),
            f"{_ME}_components__mutmut_9": (
                "q = np.sort(dist.draw(rng, (n, self.n_anchors)), )",
                "np.sort sorts along the last axis by default, which is axis 1 "
                "of the (n, n_anchors) draws",
            ),
        },
    ),
    # the ensemble: pooled anchors, united acceptable ranges, supports
    "interval_ensemble": ModuleSpec(
        path="skprivate/interval/_ensemble.py",
        tests=[
            *_INTERVAL_TESTS,
            "tests/test_mutation_interval_mechanism.py",
            "tests/test_mutation_exact_laws.py::"
            "test_interval_law_of_an_ensemble_reads_its_first_member",
        ],
        new_tests=["tests/test_mutation_interval_ensemble.py"],
        equivalent={
            **{
                f"{_EN}_n_columns_hint__mutmut_{n}": (line, _HINT_AFTER_FIT)
                for n, line in (
                    (1, 'if hasattr(None, "n_features_in_"):'),
                    (5, 'if hasattr(self, "XXn_features_in_XX"):'),
                    (6, 'if hasattr(self, "N_FEATURES_IN_"):'),
                )
            },
            f"{_EN}fit__mutmut_2": (
                "return super().fit(X, None)",
                "y is ignored by the mechanisms' fit (documented: 'y : None, Ignored')",
            ),
            f"{_EN}fit__mutmut_4": (
                "return super().fit(X, )",
                "y is ignored by the mechanisms' fit (documented: 'y : None, Ignored')",
            ),
        },
    ),
}
