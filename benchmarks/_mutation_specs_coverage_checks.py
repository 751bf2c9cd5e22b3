"""Mutation specs of two checks that make intervals say what they cover.

``integral/_rounding_check.py`` computes the coverage of an integrally
private release's interval for every place of the truth between two values
of the rounding grid and warns where that range leaves the band around the
level; its exact cases (enumeration of the grid values, the jumps, the
warning's full text) are in ``tests/integral/test_rounding_check.py``.
``ldp/_fieller_check.py`` warns where a deconvolution regression's Fieller
interval holds every value (``tests/ldp/test_fieller_check.py``).  Merged
into ``MODULES`` by ``_mutation_modules.py``.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

_RC = "skprivate.integral._rounding_check."
_RVNS = "skprivate.negative_survey._reconstruction.xǁRVNSDensityEstimatorǁ"
_STACKLEVEL = (
    "the warning loses its stacklevel; under mutmut a trampoline frame is the "
    "caller, so only the location check outside mutmut sees it "
    "(test_warning_points_to_the_caller in the module's test file)"
)

SPECS: dict[str, ModuleSpec] = {
    "integral_rounding_check": ModuleSpec(
        path="skprivate/integral/_rounding_check.py",
        # not the test of the warning's location, which mutmut's trampolines
        # move (it runs in the ordinary suite)
        tests=_all_but(
            "tests/integral/test_rounding_check.py",
            "test_warning_points_to_the_caller",
        ),
        new_tests=[],
        equivalent={
            f"{_RC}x__pieces__mutmut_12": (
                "if 0.0 <= x < step)})",
                "x = 0 can only be r = 0, and 0.0 is in the set of cuts already",
            ),
            f"{_RC}x__pieces__mutmut_13": (
                "if 0.0 < x <= step)})",
                "x = step can only be step - r with r = 0, and step is in the "
                "set of cuts already",
            ),
            f"{_RC}x__pieces__mutmut_23": (
                "k_lo = -K + (middle >= r)",
                "middle lies strictly between two distinct cuts, and r is a cut, "
                "or (in floating point) at most 0 or at least step, outside "
                "every middle, so middle == r never holds",
            ),
            f"{_RC}x__pieces__mutmut_26": (
                "k_hi = K + (middle >= step - r)",
                "middle lies strictly between two distinct cuts, and step - r is "
                "a cut, or (in floating point) at least step or at most 0, "
                "outside every middle, so middle == step - r never holds",
            ),
            f"{_RC}x_coverage_range__mutmut_25": (
                "if a <= centre < b:",
                "a centre at a adds the place a a second time, which the "
                "piece's end already is: the same values, the same min and max",
            ),
            f"{_RC}x_coverage_range__mutmut_26": (
                "if a < centre <= b:",
                "a centre at b adds the place b a second time, which the "
                "piece's end already is: the same values, the same min and max",
            ),
        },
        excluded={
            f"{_RC}xǁRoundingCheckMixinǁ_ci_check_rounding__mutmut_149": (
                "messages[0], CoverageWarning, )",
                _STACKLEVEL,
            ),
        },
    ),
    "ldp_fieller_check": ModuleSpec(
        path="skprivate/ldp/_fieller_check.py",
        # not the test of the warning's location (as above)
        tests=_all_but(
            "tests/ldp/test_fieller_check.py", "test_warning_points_to_the_caller"
        ),
        new_tests=[],
        equivalent={
            "skprivate.ldp._fieller_check.x_uninformative_points__mutmut_29": (
                "bounded = ~(np.isnan(lower) | np.isnan(upper))",
                "the regression intervals set both bounds NaN (a point where "
                "predict falls back) or neither, so 'both NaN' and 'either "
                "NaN' name the same points",
            ),
        },
        excluded={
            "skprivate.ldp._fieller_check.xǁFiellerCheckMixinǁ"
            "_ci_check_fieller__mutmut_48": (")", _STACKLEVEL),
        },
    ),
    # The RVNS estimator's part of its intervals: the report cells and
    # transition of its placement (also used by the fit) and the template its
    # bootstrap refits (the rest of fit is estimation, not interval code).
    "rvns_reconstruction_ci": ModuleSpec(
        path="skprivate/negative_survey/_reconstruction.py",
        tests=[
            "tests/negative_survey/test_intervals.py",
            "tests/test_guarantee_pins.py::"
            "test_rvns_bootstrap_with_a_paper_privatizer_refits_the_paper_placement",
            "tests/test_guarantee_pins.py::"
            "test_rvns_moment_tilt_targets_the_report_mean_square_with_sheppard",
            *(
                test
                for test in _all_but(
                    "tests/test_mutation_family_intervals_categories.py"
                )
                if "rvns" in test.lower() or "negative" in test.lower()
            ),
        ],
        new_tests=["tests/negative_survey/test_reconstruction_ci.py"],
        functions=[
            f"{_RVNS}_ci_ems_system__mutmut_*",
            f"{_RVNS}_ci_resampling_template__mutmut_*",
            f"{_RVNS}_cell_matrix__mutmut_*",
        ],
    ),
}
