"""Mutation specs of the checks that make intervals say when they may miss.

Small modules split out of the interval code of their families: the
warning that a smoothed interval covers a smoothed target
(``ldp/_smoothed_warning.py``), the check that a robust bias-corrected
deconvolution interval has a bandwidth small enough for its correction
(``ldp/_rbc_check.py``), the check of the NPMLE's subsampling intervals at
moderate n (``interval/_subsampling_check.py``), and the grid EMS's choice
of the smoothing width with the band of widths the held-out likelihood
cannot tell apart (``_grid_density/_width_choice.py``).  Each has its own
test file of exact cases; the exact warning texts are in the new tests of
the interval modules.  Merged into ``MODULES`` by ``_mutation_modules.py``.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

_SW = "skprivate.ldp._smoothed_warning."
_SC = "skprivate.interval._subsampling_check.xǁSubsamplingCheckMixinǁ"
_RC = "skprivate.ldp._rbc_check.xǁBandwidthCheckMixinǁ"
_WC = "skprivate._grid_density._width_choice."
_FLOAT_COLUMNS = (
    "every frame the check reads comes from interval_frame, which stores lower, "
    "upper and se with np.asarray(..., dtype=float): to_numpy() returns the same "
    "float64 array as to_numpy(float)"
)
_WM = _WC + "xǁWidthChoiceCheckMixinǁ"
_DISTINCT_WIDTHS = (
    "argsort of -widths has a single order when the widths differ, and the "
    "sort kind only orders equal ones: every fit's choice holds distinct "
    "candidate widths (np.array(ML_WIDTHS), the only widths any fit passes to "
    "width_choice)"
)
_WARN_NONE = (
    "ems_cell_probabilities warns only `if warn and not converged`: None is "
    "falsy, as False is"
)
_WIDTHS_F64 = (
    "every fit passes np.array(ML_WIDTHS), already float64, which asarray "
    "returns as it is with or without dtype=float; the widths are then only "
    "compared, sorted, read by float() and printed with :g"
)
_MEMO_KEY = (
    "the key only names the memo in the cache of one conf_int call (shared by "
    "its levels); no other code reads 'width-band', and no other memo or flag "
    "uses None, 'XXwidth-bandXX' or 'WIDTH-BAND': the tied cells are computed "
    "once and reused alike"
)
_STACKLEVEL = (
    "the warning loses its stacklevel; under mutmut a trampoline frame is the "
    "caller, so only the location checks outside mutmut see it "
    "(tests/test_warning_location.py; for the smoothed warning also "
    "tests/ldp/test_smoothed_interval_warning.py)"
)

SPECS: dict[str, ModuleSpec] = {
    "ldp_smoothed_warning": ModuleSpec(
        path="skprivate/ldp/_smoothed_warning.py",
        # not the two that check the warning's location, which mutmut's
        # trampolines move (tests/test_warning_location.py checks it too)
        tests=_all_but(
            "tests/ldp/test_smoothed_interval_warning.py",
            "test_density_warns_for_explicit_smoothed",
            "test_regressor_warns_for_smoothed_not_for_rbc",
        ),
        new_tests=[
            "tests/test_mutation_interval_checks.py",
            "tests/test_mutation_family_intervals_ldp3.py",
        ],
        excluded={f"{_SW}x_warn_smoothed__mutmut_13": (")", _STACKLEVEL)},
    ),
    "ldp_rbc_check": ModuleSpec(
        path="skprivate/ldp/_rbc_check.py",
        tests=["tests/ldp/test_rbc_check.py"],
        new_tests=[
            "tests/test_mutation_interval_checks.py",
            "tests/test_mutation_family_intervals_ldp3.py",
        ],
        equivalent={
            f"{_RC}_ci_check_bandwidth__mutmut_8": (
                'if len(frame) else "XXXX"',
                "the method of an empty frame is only tested for starting with "
                "'rbc', which neither '' nor 'XXXX' does",
            ),
            f"{_RC}_ci_check_bandwidth__mutmut_66": (
                'x = frame["estimate" if kind == "quantile" else "point"]'
                ".to_numpy(None)",
                "x only goes to reference_bias, which reads it with "
                "np.asarray(x, dtype=float), and interval_frame stores the "
                "points and estimates as float64 already",
            ),
            **{
                f"{_RC}_ci_check_bandwidth__mutmut_{n}": (
                    f'"pdf" if kind == "pdf" else "{kind}", x, '
                    "float(np.mean(z)), sd, h",
                    "reference_bias takes its pdf branch only for kind == 'pdf'; "
                    "'cdf' and every other string take the CDF branch",
                )
                for n, kind in ((94, "XXcdfXX"), (95, "CDF"))
            },
            f"{_RC}_ci_check_bandwidth__mutmut_102": (
                'half = 0.5 * (frame["upper"] - frame["lower"]).to_numpy(None) / zq',
                _FLOAT_COLUMNS,
            ),
            f"{_RC}_ci_check_bandwidth__mutmut_115": (
                'se = half * density if kind == "quantile" else '
                'frame["se"].to_numpy(None)',
                _FLOAT_COLUMNS,
            ),
        },
        excluded={f"{_RC}_ci_check_bandwidth__mutmut_163": (")", _STACKLEVEL)},
    ),
    "interval_subsampling_check": ModuleSpec(
        path="skprivate/interval/_subsampling_check.py",
        tests=["tests/interval/test_subsampling_check.py"],
        new_tests=["tests/test_mutation_interval_checks.py"],
        equivalent={
            f"{_SC}_ci_check_subsampling__mutmut_8": (
                'if len(frame) else "XXXX"',
                "the method of an empty frame is only searched for "
                "'subsampling', which neither '' nor 'XXXX' contains",
            ),
            f"{_SC}_ci_check_subsampling__mutmut_23": (
                "if rows > MIN_WINDOW_ROWS:",
                "rows is b**(2/3) for an integer b, never exactly 100 in "
                "floating point (b = 1000 gives 99.99999999999997, b = 1001 "
                "gives 100.07), so > and >= agree",
            ),
        },
        excluded={f"{_SC}_ci_check_subsampling__mutmut_33": (")", _STACKLEVEL)},
    ),
    "grid_width_choice": ModuleSpec(
        path="skprivate/_grid_density/_width_choice.py",
        tests=[
            "tests/test_width_choice.py",
            # not the one that checks the warning's location
            *_all_but(
                "tests/test_grid_rbc_coverage.py",
                "test_smoothed_square_wave_interval_warns_once_naming_its_target",
            ),
        ],
        new_tests=[
            "tests/test_mutation_intervals_grid2.py",
            "tests/test_mutation_width_choice.py",
        ],
        equivalent={
            f"{_WC}x_extend_width_path__mutmut_29": (
                "np.argsort(-choice.widths, kind=None)",
                _DISTINCT_WIDTHS,
            ),
            f"{_WC}x_extend_width_path__mutmut_31": (
                "for k in np.argsort(-choice.widths, ):",
                _DISTINCT_WIDTHS,
            ),
            f"{_WC}x_extend_width_path__mutmut_34": (
                'np.argsort(-choice.widths, kind="STABLE")',
                "numpy reads the sort kind by its first letter, in either case: "
                "'STABLE' is the stable sort",
            ),
            f"{_WC}x_extend_width_path__mutmut_54": ("warn=None,", _WARN_NONE),
            f"{_WC}x_width_band__mutmut_33": (
                'np.einsum("PI,IJ,PJ->P", W, cov, W)',
                "einsum takes letters of either case as labels: the upper-case "
                "subscripts name the same contraction",
            ),
            f"{_WC}x_width_choice__mutmut_6": (
                "widths = np.asarray(widths, dtype=None)",
                _WIDTHS_F64,
            ),
            f"{_WC}x_width_choice__mutmut_8": (
                "widths = np.asarray(widths, )",
                _WIDTHS_F64,
            ),
            f"{_WM}_ci_check_width_choice__mutmut_16": (
                'if len(frame) else "XXXX"',
                "the method of an empty frame is only searched for "
                "'bias-corrected', which neither '' nor 'XXXX' contains",
            ),
            f"{_WM}_ci_tied_cells__mutmut_37": (
                "X if (X.ndim == 2) or True else X[:, None]",
                "only a 1-D X changes, and every _ci_ems_system bins X "
                "elementwise while ems_covariance (_report_covariance) reads "
                "1-D unit_bins as one report per respondent, as the column "
                "X[:, None] gives: the same covariance",
            ),
            f"{_WM}_ci_tied_cells__mutmut_67": ("warn=None,", _WARN_NONE),
            f"{_WM}_ci_width_band__mutmut_2": (
                "cells = request.memo(None, ",
                _MEMO_KEY,
            ),
            f"{_WM}_ci_width_band__mutmut_6": ('"XXwidth-bandXX"', _MEMO_KEY),
            f"{_WM}_ci_width_band__mutmut_7": ('"WIDTH-BAND"', _MEMO_KEY),
        },
        excluded={
            f"{_WM}_ci_check_width_choice__mutmut_47": (
                ")",
                "the warning loses its stacklevel; under mutmut a trampoline "
                "frame is the caller, so only the location check outside "
                "mutmut sees it (tests/test_width_choice_warning_location.py)",
            )
        },
    ),
}
