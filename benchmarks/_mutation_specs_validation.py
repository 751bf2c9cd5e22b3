"""Mutation specs: input validation, the withholding of quoted raw values,
and the frequency oracles' samplers.

``skprivate/utils/validation.py`` is split into two runs: the interval,
bounds, weights and seed checks, and the numeric-column checks that every
fit and transform calls (mutants of those reach almost every test, so the
selection is the few tests that call the checks directly).
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

_V = "skprivate.utils.validation."
_NO_RAW = "tests/test_no_raw_in_messages.py::test_non_numeric_cell_is_named_not_shown"

# the direct tests of the checks; the estimators' own tests reach them too,
# but each mutant would then run minutes of fits
_VALIDATION_TESTS = [
    "tests/utils/test_validation.py",
    *_all_but(
        "tests/utils/test_input_containers.py",
        "test_grid_kde_ignores_far_outliers_instead_of_coarsening_the_grid",
    ),
    "tests/test_bad_input_pins.py::"
    "test_laplace_statistic_refuses_an_infinite_value_naming_its_row",
    "tests/test_bad_input_pins.py::"
    "test_laplace_statistic_on_dask_refuses_an_infinite_value_as_in_memory",
    "tests/test_bad_input_pins.py::"
    "test_laplace_describe_names_the_row_of_an_infinite_value_in_the_table",
    f"{_NO_RAW}[LaplaceLDP-frame]",
    f"{_NO_RAW}[LaplaceLDP-object array]",
    f"{_NO_RAW}[LaplaceLDP-nested list]",
]

_NO_KIND = "a dtype kind is one character and 'X' is no kind: the same test"
_TO_FLOAT = (
    "pandas writes NaN for pd.NA when it converts a nullable column to float "
    "(the decoded values are cast to float at the end in any case), whatever "
    "na_value says"
)
_SHORTCUT = (
    "only skips the early return of a numeric Series: the scan that follows "
    "finds no entry float() refuses and returns the Series unchanged too"
)
_HAS_KIND = (
    "every numpy and pandas dtype has a kind attribute: the default is never read"
)

SPECS: dict[str, ModuleSpec] = {
    # interval data, declared bounds, bounds read from data, seeds, flags,
    # settings of partial_fit and sample weights
    "validation_bounds": ModuleSpec(
        path="skprivate/utils/validation.py",
        tests=_VALIDATION_TESTS,
        new_tests=["tests/test_mutation_validation.py"],
        equivalent={
            f"{_V}x_bounds_from_data__mutmut_52": (
                "low = X.min(axis=0).astype(None)",
                "astype(None) is astype(float64), and X is already float64 "
                "(check_float_array)",
            ),
            f"{_V}x_bounds_from_data__mutmut_56": (
                "high = X.max(axis=0).astype(None)",
                "as x_bounds_from_data__mutmut_52",
            ),
            f"{_V}x_check_bounds__mutmut_74": (
                "per_column = None",
                "per_column is only tested for truth: None acts as False",
            ),
            f"{_V}x_check_bounds__mutmut_52": (
                "is_pair = None",
                "is_pair is only tested for truth: None acts as False",
            ),
            f"{_V}x_check_bounds__mutmut_66": (
                "(isinstance(p, list | np.ndarray)) or True else p",
                "every entry reaching here is a tuple, list or array (refused "
                "otherwise just above): tuple() of a tuple is an equal tuple",
            ),
            f"{_V}x_check_bounds__mutmut_96": (
                "len(bounds) >= 0:",
                "an empty list or tuple then enters the branch, where its pairs "
                "are all([]) = True but len(bounds) = 0 never equals n_features "
                ">= 1: per_column stays unset, as before",
            ),
            f"{_V}x_check_interval_array__mutmut_28": (
                "ensure_2d=None,",
                "check_array tests ensure_2d for truth: None acts as False",
            ),
            f"{_V}x_check_weights__mutmut_30": (
                'what = "negative" if w[i] <= 0 else "not finite"',
                "w[i] is a refused weight, negative or not finite, never 0: "
                "<= 0 and < 0 agree on it",
            ),
            f"{_V}x_check_weights__mutmut_31": (
                'what = "negative" if w[i] < 1 else "not finite"',
                "a refused weight is negative (below 0 and 1), NaN (neither) or "
                "+-inf (both tests agree): the same word",
            ),
        },
        excluded={
            f"{_V}x_bounds_from_data__mutmut_6": (
                ")",
                "the PrivacyLeakWarning loses its stacklevel; under mutmut a "
                "trampoline frame is the caller, so only "
                "tests/test_warning_location.py (outside mutmut) sees it",
            ),
            f"{_V}x_check_interval_array__mutmut_63": (
                ")",
                "the column-vector DataConversionWarning loses its stacklevel: "
                "as x_bounds_from_data__mutmut_6",
            ),
        },
        functions=[
            f"{_V}x_make_interval_array__mutmut_*",
            f"{_V}x_check_interval_array__mutmut_*",
            f"{_V}x_check_bounds__mutmut_*",
            f"{_V}x_bounds_from_data__mutmut_*",
            f"{_V}x_check_generator__mutmut_*",
            f"{_V}x_check_bool__mutmut_*",
            f"{_V}x_check_unchanged_settings__mutmut_*",
            f"{_V}x_check_weights__mutmut_*",
        ],
    ),
    # the numeric-column checks (containers, non-numbers, NaN and infinity,
    # magnitudes, one-sided intervals, float arguments)
    "validation_numeric": ModuleSpec(
        path="skprivate/utils/validation.py",
        tests=_VALIDATION_TESTS,
        new_tests=["tests/test_mutation_validation.py"],
        equivalent={
            f"{_V}x__check_finite_named__mutmut_1": (
                "first_row: int = 1",
                "both callers (check_numeric_input, check_finite) pass first_row",
            ),
            f"{_V}x__check_finite_named__mutmut_16": (
                "if (names is not None) and False else np.asarray(X, float)",
                "np.asarray(frame, float) is the frame's to_numpy(dtype=float)",
            ),
            f"{_V}x__check_finite_named__mutmut_37": (
                "finite.reshape(len(values), -2)",
                "numpy reads a negative size as 'infer', as -1",
            ),
            f"{_V}x__check_finite_named__mutmut_49": (
                "values.reshape(len(values), -2)",
                "as x__check_finite_named__mutmut_37",
            ),
            f"{_V}x__check_numeric_columns__mutmut_1": (
                "first_row: int = 1",
                "its one caller, check_numeric_input, passes first_row",
            ),
            **{
                f"{_V}x__check_numeric_columns__mutmut_{n}": (line, _NO_KIND)
                for n, line in [
                    (33, '"XXbiufXX"'),
                    (49, '"XXbiufXX"'),
                    (56, '"XXMmXX"'),
                    (93, '"XXOUSMmXX"'),
                    (113, '"XXMmXX"'),
                ]
            },
            **{
                f"{_V}x__check_numeric_columns__mutmut_{n}": (line, _TO_FLOAT)
                for n, line in [
                    (43, "to_numpy(dtype=None, na_value=np.nan)"),
                    (44, "to_numpy(dtype=float, na_value=None)"),
                    (45, "to_numpy(na_value=np.nan)"),
                    (46, "to_numpy(dtype=float, )"),
                ]
            },
            f"{_V}x__check_numeric_columns__mutmut_37": (
                "X.iloc[:, j].astype(None)",
                "astype(None) is astype(float64), the cast the code makes",
            ),
            f"{_V}x__decode_series__mutmut_26": (
                "X.astype(None)",
                "astype(None) is astype(float64), the cast the code makes",
            ),
            **{
                f"{_V}x__decode_series__mutmut_{n}": (
                    line,
                    "X.astype(float) is already float64: asarray without a "
                    "dtype keeps it",
                )
                for n, line in [
                    (23, "np.asarray(X.astype(float), dtype=None)"),
                    (25, "np.asarray(X.astype(float), )"),
                ]
            },
            f"{_V}x__check_numeric_columns__mutmut_68": (
                "values.astype(None)",
                "astype(None) is astype(float64)",
            ),
            f"{_V}x__check_numeric_columns__mutmut_106": (
                "arr.reshape(-2, 1)",
                "numpy reads a negative size as 'infer', as -1",
            ),
            f"{_V}x__check_numeric_columns__mutmut_123": (
                "data[:, j].astype(None)",
                "astype(None) is astype(float64): the same cast is tried",
            ),
            f"{_V}x__check_numeric_columns__mutmut_136": (
                "return arr.astype(None)",
                "astype(None) is astype(float64): the same conversion",
            ),
            f"{_V}x__check_numeric_columns__mutmut_118": (
                'warnings.simplefilter("error", None)',
                "a filter of category None raises TypeError when a warning "
                "is matched against it: the except clause catches it and the "
                "entries are scanned, the same refusal",
            ),
            f"{_V}x__check_numeric_columns__mutmut_120": (
                'warnings.simplefilter("error", )',
                "astype(float) of a column of text or objects raises no "
                "warning but ComplexWarning: every warning as an error is "
                "that one",
            ),
            **{
                f"{_V}x__decode_series__mutmut_{n}": (
                    line,
                    "a DataFrame has no dtype attribute, so it is returned "
                    "unchanged by the same condition's last test",
                )
                for n, line in [
                    (3, 'hasattr(None, "columns")'),
                    (7, '"XXcolumnsXX"'),
                    (8, '"COLUMNS"'),
                ]
            },
            f"{_V}x__decode_series__mutmut_20": ('"XXbiufXX"', _NO_KIND),
            f"{_V}x__decode_series__mutmut_29": (
                "X.to_numpy(dtype=float, na_value=None)",
                _TO_FLOAT,
            ),
            f"{_V}x__decode_series__mutmut_31": (
                "X.to_numpy(dtype=float, )",
                _TO_FLOAT,
            ),
            **{
                f"{_V}x__decode_series__mutmut_{n}": (line, _SHORTCUT)
                for n, line in [
                    (32, 'getattr(None, "kind", "O") in "biuf"'),
                    (38, 'getattr(dtype, "XXkindXX", "O") in "biuf"'),
                    (39, 'getattr(dtype, "KIND", "O") in "biuf"'),
                    (43, 'getattr(dtype, "kind", "O") in "XXbiufXX"'),
                    (44, 'getattr(dtype, "kind", "O") in "BIUF"'),
                ]
            },
            **{
                f"{_V}x__decode_series__mutmut_{n}": (line, _HAS_KIND)
                for n, line in [
                    (34, 'getattr(dtype, "kind", None) in "biuf"'),
                    (37, 'getattr(dtype, "kind", ) in "biuf"'),
                    (40, 'getattr(dtype, "kind", "XXOXX") in "biuf"'),
                    (41, 'getattr(dtype, "kind", "o") in "biuf"'),
                    (51, 'getattr(dtype, "kind", None) in "Mm"'),
                    (54, 'getattr(dtype, "kind", ) in "Mm"'),
                    (57, 'getattr(dtype, "kind", "XXOXX") in "Mm"'),
                    (58, 'getattr(dtype, "kind", "o") in "Mm"'),
                ]
            },
            f"{_V}x__decode_series__mutmut_60": ('"XXMmXX"', _NO_KIND),
            f"{_V}x__from_polars__mutmut_50": (
                "pd.DataFrame(columns, index=None)",
                "a frame built from a dict of equal-length arrays gets "
                "RangeIndex(height) by default (and a frame of no columns has "
                "height 0)",
            ),
            f"{_V}x__from_polars__mutmut_52": (
                "pd.DataFrame(columns, )",
                "as x__from_polars__mutmut_50",
            ),
            f"{_V}x__is_nullable__mutmut_1": (
                "return True",
                "the except ImportError branch: pandas is a dependency, so the "
                "import never fails",
            ),
            **{
                f"{_V}x__is_nullable__mutmut_{n}": (line, _HAS_KIND)
                for n, line in [
                    (5, 'getattr(dtype, "kind", None) in "biuf"'),
                    (8, 'getattr(dtype, "kind", ) in "biuf"'),
                    (11, 'getattr(dtype, "kind", "XXXX") in "biuf"'),
                ]
            },
            f"{_V}x__is_nullable__mutmut_13": ('"XXbiufXX"', _NO_KIND),
            f"{_V}x_check_float_array__mutmut_40": ('"XXMmXX"', _NO_KIND),
            f"{_V}x_check_magnitude__mutmut_12": (
                "np.errstate(invalid=None)",
                "the only operands that could raise the invalid flag are NaN, "
                "and numpy's abs and > on NaN raise none (checked with warnings "
                "as errors on this platform)",
            ),
            f"{_V}x_check_magnitude__mutmut_28": (
                "big.reshape(len(arr), -2)",
                "numpy reads a negative size as 'infer', as -1",
            ),
            f"{_V}x_check_magnitude__mutmut_42": (
                "arr.reshape(len(arr), -2)",
                "numpy reads a negative size as 'infer', as -1",
            ),
        },
        functions=[
            f"{_V}x_check_numeric_input__mutmut_*",
            f"{_V}x__from_polars__mutmut_*",
            f"{_V}x__is_pandas__mutmut_*",
            f"{_V}x__is_nullable__mutmut_*",
            f"{_V}x__decode_series__mutmut_*",
            f"{_V}x__check_finite_named__mutmut_*",
            f"{_V}x__check_numeric_columns__mutmut_*",
            f"{_V}x__first_non_number__mutmut_*",
            f"{_V}x__pd_categorical__mutmut_*",
            f"{_V}x_check_magnitude__mutmut_*",
            f"{_V}x_check_two_sided__mutmut_*",
            f"{_V}x_check_float_array__mutmut_*",
            f"{_V}x__position__mutmut_*",
            f"{_V}x_check_finite__mutmut_*",
        ],
    ),
    # the withholding of raw values quoted by scikit-learn's input checks
    # (a side door: messages reach logs and bug reports)
    "redact": ModuleSpec(
        path="skprivate/utils/_redact.py",
        tests=["tests/test_no_raw_in_messages.py"],
        new_tests=[
            "tests/test_mutation_redact.py",
            "tests/utils/test_redact.py",
            "tests/test_raw_values_in_errors.py",
        ],
        equivalent={
            **{
                f"skprivate.utils._redact.x__ends_a_sentence__mutmut_{i}": (
                    line,
                    "with the rest '' or '.' after the closing bracket, the "
                    "fallback for a bracket not ending a sentence ends the "
                    "quotation at the message's end, or before its final full "
                    "stop: at the bracket all the same",
                )
                for i, line in (
                    (4, 'return rest in ("XXXX", ".")'),
                    (5, 'return rest in ("", "XX.XX")'),
                )
            },
            **{
                f"skprivate.utils._redact.x__quotation_end__mutmut_{i}": (
                    line,
                    "where the printout opens with '[' at start, advice is -1 "
                    "or beyond start (the advice opens with '.'), never 0",
                )
                for i, line in (
                    (22, "(advice <= 0 and _ends_a_sentence(message, end))"),
                    (23, "(advice < 1 and _ends_a_sentence(message, end))"),
                )
            },
            **{
                f"skprivate.utils._redact.x__quotation_end__mutmut_{i}": (
                    line,
                    "advice is 0 only for start 0 and a message opening with "
                    "the advice, and the search for '.\\n' from 0 then "
                    "returns 0 as well",
                )
                for i, line in ((28, "if advice > 0:"), (29, "if advice >= 1:"))
            },
            **{
                f"skprivate.utils._redact.x_redact_quoted_values__mutmut_{i}": (
                    line,
                    "a message opening with the complex-data text has already "
                    "returned above, so its position is never 0 here",
                )
                for i, line in (
                    (7, "if complex_data > 0:"),
                    (8, "if complex_data >= 1:"),
                )
            },
            "skprivate.utils._redact.x_redact_quoted_values__mutmut_10": (
                "done = None",
                "done is read only as a slice start before it is reassigned, "
                "and message[None:x] is message[0:x]",
            ),
        },
    ),
}

_FP = "tests/frequency/test_privatizers.py"
_FL = "tests/frequency/test_laws.py"
# the exact coins, samplers, hash family and laws of the frequency oracles,
# without the three tests of several seconds each (the audit of local hashing
# at extreme budgets, its full law at epsilon 60, a dask fit)
_FREQUENCY_TESTS = [
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
]
_C = "skprivate.frequency._coins."
_LOOP = (
    "the rounding loop's body never runs: {first} is already the answer, "
    "since {why}; it runs only if the 80-digit quotient rounds across an "
    "integer, i.e. the exact quotient lies within 1e-61 (relative) of one, "
    "which no epsilon >= MIN_EPSILON is known to give; so changing the loop, "
    "or a first estimate that the loop would bring back, changes nothing"
)
_KEEP_LOOP = _LOOP.format(
    first="a = floor(2**62 e / (e + n))",
    why="a n <= (2**62 - a) e is a <= 2**62 e / (e + n), and the clamps give "
    "1 (never lowered: the loop needs a > 1) or 2**62 - 1 (safe whenever the "
    "quotient rounds to 2**62)",
)
_SUE_LOOP = _LOOP.format(
    first="a = floor(2**62 h / (h + 1)), h = sqrt(e)",
    why="a**2 <= (2**62 - a)**2 e is a <= (2**62 - a) h, i.e. a <= 2**62 h / (h + 1)",
)
_OUE_LOOP = _LOOP.format(
    first="b = ceil(2**62 / (e + 1))",
    why="2**62 - b <= b e is b >= 2**62 / (e + 1)",
)
_FPR = "skprivate.frequency._privatizers."
_FPB = _FPR + "xǁ_FrequencyPrivatizerǁ"

SPECS.update(
    {
        "frequency_coins": ModuleSpec(
            path="skprivate/frequency/_coins.py",
            tests=_FREQUENCY_TESTS,
            new_tests=["tests/test_mutation_frequency.py"],
            equivalent={
                **{
                    f"{_C}x_keep_numerator__mutmut_{n}": (line, _KEEP_LOOP)
                    for n, line in [
                        (8, "to_integral_value(rounding=None)"),
                        (23, "a = min(max(a, 2), COIN_SCALE - 1)"),
                        (24, "a = min(max(a, 1), COIN_SCALE + 1)"),
                        (28, "while a > 2 and"),
                        (31, "Decimal(a * n_other) >= (scale - a) * e"),
                        (33, "Decimal(a * n_other) > (scale + a) * e"),
                        (34, "a = 1"),
                        (35, "a += 1"),
                        (36, "a -= 2"),
                    ]
                },
                **{
                    f"{_C}x_unary_numerators__mutmut_{n}": (line, _SUE_LOOP)
                    for n, line in [
                        (9, "to_integral_value(rounding=None)"),
                        (27, "a = min(max(a, COIN_SCALE // 2), COIN_SCALE + 1)"),
                        (30, "while a >= COIN_SCALE // 2 and"),
                        (31, "while a > COIN_SCALE / 2 and"),
                        (32, "while a > COIN_SCALE // 3 and"),
                        (33, "Decimal(a) * 2 > (scale - a) ** 2 * e"),
                        (36, "Decimal(a) ** 2 >= (scale - a) ** 2 * e"),
                        (39, "Decimal(a) ** 2 > (scale + a) ** 2 * e"),
                        (40, "Decimal(a) ** 2 > (scale - a) ** 3 * e"),
                        (41, "a = 1"),
                        (42, "a += 1"),
                        (43, "a -= 2"),
                    ]
                },
                f"{_C}x_unary_numerators__mutmut_25": (
                    "a = min(max(a, COIN_SCALE / 2), COIN_SCALE - 1)",
                    "a = floor(2**62 h / (h + 1)) with h = e**(target / 2) > 1 "
                    "is above 2**61 for every epsilon >= MIN_EPSILON, so max "
                    "returns the int a, never the float",
                ),
                f"{_C}x_unary_numerators__mutmut_26": (
                    "a = min(max(a, COIN_SCALE // 3), COIN_SCALE - 1)",
                    "as x_unary_numerators__mutmut_25: the lower clamp never binds",
                ),
                **{
                    f"{_C}x_unary_numerators__mutmut_{n}": (line, _OUE_LOOP)
                    for n, line in [
                        (47, "to_integral_value(rounding=None)"),
                        (66, "while b <= COIN_SCALE // 2 and"),
                        (67, "while b < COIN_SCALE / 2 and"),
                        (68, "while b < COIN_SCALE // 3 and"),
                        (70, "scale - b >= b * e"),
                        (72, "b = 1"),
                        (73, "b -= 1"),
                        (74, "b += 2"),
                    ]
                },
                f"{_C}x_unary_numerators__mutmut_63": (
                    "b = min(max(b, 1), COIN_SCALE / 2)",
                    "b = ceil(2**62 / (e + 1)) is below 2**61 for every target "
                    "> 0, so min returns the int b, never the float",
                ),
                f"{_C}x_draw_coins__mutmut_14": (
                    "size=thresholds.shape, )",
                    "Generator.integers draws int64 by default",
                ),
            },
        ),
        "frequency_hashing": ModuleSpec(
            path="skprivate/frequency/_hashing.py",
            tests=_FREQUENCY_TESTS,
            new_tests=["tests/test_mutation_frequency.py"],
        ),
        # the release code of the privatizers: categories and codes, the
        # refusals, the unknown-value draw, the samplers' calls, the output
        # names and the privacy summary (not _doc, which fills docstrings)
        "frequency_privatizers": ModuleSpec(
            path="skprivate/frequency/_privatizers.py",
            tests=_FREQUENCY_TESTS,
            new_tests=["tests/test_mutation_frequency.py"],
            equivalent={
                f"{_FPB}fit__mutmut_15": (
                    "super().fit(X, None)",
                    "y is ignored (documented: 'y : None, Ignored')",
                ),
                f"{_FPB}fit__mutmut_17": (
                    "super().fit(X, )",
                    "y defaults to None and is ignored",
                ),
                f"{_FPB}_fit__mutmut_80": (
                    'if not auto or self.handle_unknown == "error":',
                    "only adds a check of X against categories read from X "
                    "itself, where no value is unknown",
                ),
                f"{_FPB}_transform__mutmut_4": (
                    "reset=None",
                    "validate_data tests reset for truth: None acts as False",
                ),
                f"{_FPB}_validate__mutmut_14": (
                    '"XXfcXX"',
                    "a dtype kind is one character and 'X' is no kind: the same test",
                ),
                f"{_FPR}xǁ_PresentValuesǁblock__mutmut_8": (
                    "reshape(len(rows), -2)",
                    "numpy reads a negative size as 'infer', as -1",
                ),
            },
            excluded={
                f"{_FPB}_fit__mutmut_20": (
                    ")",
                    "the categories='auto' warning loses its stacklevel; under "
                    "mutmut a trampoline frame is the caller, so only "
                    "tests/test_warning_location.py (outside mutmut) sees it",
                ),
            },
            functions=[
                f"{_FPR}x__check_present__mutmut_*",
                f"{_FPR}x__column_codes__mutmut_*",
                f"{_FPR}xǁ_PresentValuesǁ*",
                f"{_FPB}*",
                f"{_FPR}xǁFrequencyOracleǁ*",
            ],
        ),
    }
)

_NR = "tests/test_no_raw_in_messages.py"
_BP = "skprivate.ldp._bounded.xǁ_BoundedPrivatizerǁ"
_FINITE_FIRST = (
    "check_numeric_input(X, finite=True) refuses NaN and infinity first, naming "
    "the row and column; validate_data never sees them"
)
_SHAPE_AND_BOUNDS = (
    "fit reads X only for its shape and through bounds_from_data, which returns "
    "float bounds whatever the numeric dtype"
)
_BOUNDED_PRIVATIZERS = ("SquareWaveLDP", "GeneralizedGaussianLDP", "FlippedHuberLDP")
SPECS.update(
    {
        # the shared fit/transform of the bounded per-value privatizers: the
        # declared or data-read bounds, the per-column budget split, the
        # refusal of values outside the bounds before any noise is drawn
        "ldp_bounded": ModuleSpec(
            path="skprivate/ldp/_bounded.py",
            tests=[
                *_all_but(
                    "tests/ldp/test_square_wave.py",
                    "test_square_wave_ems_recovers_distribution",
                    "test_square_wave_auto_smoothing_is_an_option",
                ),
                "tests/ldp/test_additive.py::test_baseline_bad_input",
                "tests/ldp/test_additive.py::test_reported_delta_is_the_grid_laws",
                "tests/test_guarantee_pins.py",
                *(
                    f"{_NR}::{test}[{name}]"
                    for test in (
                        "test_value_outside_the_bounds_is_named_not_shown",
                        "test_bounds_read_from_the_data_are_not_shown",
                    )
                    for name in _BOUNDED_PRIVATIZERS
                ),
            ],
            new_tests=[
                "tests/test_mutation_bounds.py",
                "tests/ldp/test_narrow_bounds.py",
                "tests/ldp/test_wide_bounds.py",
                "tests/test_budget_split.py",
            ],
            equivalent={
                f"{_BP}_fit__mutmut_71": (
                    "total = float(getattr(self, name, 1.0))",
                    "the default is read only for a privatizer without a delta "
                    "(Square Wave); a budget of 1 never underflows, as 0 is "
                    "never checked",
                ),
                f"{_BP}_fit__mutmut_10": (
                    "X = validate_data(self, X, dtype=None, ensure_all_finite=True)",
                    _SHAPE_AND_BOUNDS,
                ),
                f"{_BP}_fit__mutmut_14": (
                    "X = validate_data(self, X, ensure_all_finite=True)",
                    _SHAPE_AND_BOUNDS,
                ),
                f"{_BP}_fit__mutmut_15": (
                    "X = validate_data(self, X, dtype=np.float64, )",
                    _FINITE_FIRST,
                ),
                f"{_BP}_fit__mutmut_16": (
                    "ensure_all_finite=False)",
                    _FINITE_FIRST,
                ),
                f"{_BP}_transform__mutmut_5": (
                    "reset=None,",
                    "validate_data tests reset for truth: None acts as False",
                ),
                f"{_BP}_transform__mutmut_12": (")", _FINITE_FIRST),
                f"{_BP}_transform__mutmut_19": (
                    "ensure_all_finite=False,",
                    _FINITE_FIRST,
                ),
                f"{_BP}fit__mutmut_2": (
                    "return super().fit(X, None)",
                    "y is ignored by the privatizers' fit (documented: 'y : Ignored')",
                ),
                f"{_BP}fit__mutmut_4": (
                    "return super().fit(X, )",
                    "y is ignored by the privatizers' fit (documented: 'y : Ignored')",
                ),
            },
        ),
        # the refusal of raw values outside the bounds, and its message
        # (row, column and bounds, never the value)
        "utils_bounds": ModuleSpec(
            path="skprivate/utils/_bounds.py",
            tests=[
                *(
                    f"{_NR}::{test}"
                    for test in (
                        "test_value_outside_the_bounds_is_named_not_shown",
                        "test_bounds_read_from_the_data_are_not_shown",
                    )
                ),
                "tests/ldp/test_laplace.py",
            ],
            new_tests=[
                "tests/test_mutation_bounds.py",
                "tests/ldp/test_narrow_bounds.py",
                "tests/ldp/test_wide_bounds.py",
            ],
            equivalent={
                **{
                    f"skprivate.utils._bounds.x_check_grid_width__mutmut_{k}": (
                        change,
                        "every caller passes the float64 bounds of check_bounds "
                        "or bounds_from_data, so the width is the same float64 "
                        "difference with or without the cast",
                    )
                    for k, change in (
                        (5, "np.asarray(high, dtype=None)"),
                        (7, "np.asarray(high, )"),
                        (9, "np.asarray(low, dtype=None)"),
                        (11, "np.asarray(low, )"),
                    )
                },
                **{
                    f"skprivate.utils._bounds.x_check_noise_scale__mutmut_{k}": (
                        change,
                        "both callers (LaplaceLDP and the bounded privatizers) "
                        "pass the float64 bounds of check_bounds or "
                        "bounds_from_data, so the width is the same float64 "
                        "difference with or without the cast",
                    )
                    for k, change in (
                        (5, "np.asarray(high, dtype=None) - np.asarray(low"),
                        (7, "np.asarray(high, ) - np.asarray(low, dtype=float)"),
                        (9, "np.asarray(low, dtype=None)"),
                        (11, "np.asarray(high, dtype=float) - np.asarray(low, )"),
                    )
                },
            },
        ),
    }
)

_TRN = "skprivate.ldp._transitions."
_NO_SHAPE = (
    "every noise law has a power (generalized Gaussian) or a beta (flipped "
    "Huber): the innermost default is never read"
)
_TELESCOPES = (
    "each column is a telescoping sum of CDF differences from 0 to 1, so its "
    "sum is 1 to rounding: multiplying by it changes the entries by rounding "
    "only"
)
_ROW_BROADCAST = (
    "M is 2-D: the column sums without keepdims broadcast along the rows as "
    "with keepdims"
)
_REP = "skprivate.subset._reports.x_check_reports_block_"
_READ_ONLY = (
    "A and the slices taken from it are only read from here on, here and by "
    "every caller (counted, tested, or converted with astype): a copy and a "
    "view give the same values"
)
_COMMON_FACTOR = (
    "q is a factor of every entry (the band's extra mass is q times a term "
    "free of q in both of its forms) and the columns are normalized at the "
    "end: a positive factor cancels, to rounding"
)
_SAME_EXTRA = (
    "both forms are the band's extra mass 2 w (e^eps - 1) q = (k - 2 w) q; "
    "(k - 2 w) q cancels only below epsilon = 1, and only to an absolute "
    "error of a few 2**-53 q, no more than the rounding of M's entries "
    "themselves: the matrices of either branch differ by at most 2.2e-16 "
    "(epsilon from 1e-300 to 3, m up to 64), and both match a 50-digit "
    "computation to 3e-16 at epsilon 1e-15 to 2, 1 and 1.5 included"
)
SPECS.update(
    {
        # the transition matrices of the additive and Square Wave mechanisms
        # on a grid (what the EMS density fits and their intervals invert),
        # and the refusal to pool columns of different noise laws
        "ldp_transitions": ModuleSpec(
            path="skprivate/ldp/_transitions.py",
            tests=[
                "tests/ldp/test_perturbed_kde.py",
                "tests/ldp/test_square_wave.py",
            ],
            new_tests=["tests/test_mutation_ldp_transitions.py"],
            equivalent={
                f"{_TRN}x__noise_law__mutmut_31": (
                    'getattr(law, "power", getattr(law, "beta", None))',
                    _NO_SHAPE,
                ),
                f"{_TRN}x__noise_law__mutmut_37": (
                    'getattr(law, "power", getattr(law, "beta", 1))',
                    _NO_SHAPE,
                ),
                f"{_TRN}x_additive_transition__mutmut_88": (
                    "return M * M.sum(axis=0, keepdims=True), out_edges",
                    _TELESCOPES,
                ),
                f"{_TRN}x_additive_transition__mutmut_92": (
                    "return M / M.sum(axis=0, ), out_edges",
                    _ROW_BROADCAST,
                ),
                f"{_TRN}x_additive_transition__mutmut_94": (
                    "return M / M.sum(axis=0, keepdims=False), out_edges",
                    _ROW_BROADCAST,
                ),
                **{
                    f"{_TRN}x_square_wave_transition__mutmut_{n}": (
                        text,
                        _COMMON_FACTOR,
                    )
                    for n, text in (
                        (8, "q = 2.0 / (1.0 + near_odds)"),
                        (10, "q = 1.0 / (2.0 + near_odds)"),
                    )
                },
                **{
                    f"{_TRN}x_square_wave_transition__mutmut_{n}": (
                        text,
                        _SAME_EXTRA,
                    )
                    for n, text in (
                        (12, "if (epsilon < 1.0) and False"),
                        (20, "if epsilon <= 1.0"),
                        (21, "if epsilon < 2.0"),
                    )
                },
                f"{_TRN}x_square_wave_transition__mutmut_78": (
                    "return M * M.sum(axis=0, keepdims=True), out_edges",
                    "the band's shares run from 0 at the bottom report edge to "
                    "1 at the top one (set exactly), so each column sums to 1 "
                    "to rounding (3.6e-15 at 64 cells): multiplying by the sum "
                    "changes the entries by rounding only",
                ),
                f"{_TRN}x_square_wave_transition__mutmut_82": (
                    "return M / M.sum(axis=0, ), out_edges",
                    _ROW_BROADCAST,
                ),
                f"{_TRN}x_square_wave_transition__mutmut_84": (
                    "return M / M.sum(axis=0, keepdims=False), out_edges",
                    _ROW_BROADCAST,
                ),
            },
        ),
        # the validation of 0/1 subset reports against a design (rows named
        # globally, unknown rows left out and counted)
        "subset_reports": ModuleSpec(
            path="skprivate/subset/_reports.py",
            tests=[
                "tests/subset/test_estimator.py",
                "tests/subset/test_independence.py",
            ],
            new_tests=["tests/test_mutation_subset_reports.py"],
            equivalent={
                f"{_REP}_mutmut_{n}": (text, _READ_ONLY)
                for n, text in (
                    (28, "A = A.astype(bool, copy=None)"),
                    (30, "A = A.astype(bool, )"),
                    (31, "A = A.astype(bool, copy=True)"),
                )
            },
        ),
    }
)

_DASK = "skprivate.utils._dask.x_"
_TOKEN_PART = (
    "the graph name already holds the privatizer's class, the call root's "
    "spawn key is always empty (call_seed), and the output names follow "
    "from the privatizer and X, which the token keeps: the names stay "
    "distinct exactly when they were"
)
_DASK_DEFAULT = (
    "dask then names the graph from its arguments, infers the meta, dtype "
    "or chunks by running the block function on an empty block (which "
    "returns the declared width and dtype), or checks partitions against a "
    "meta they already match: the same collection and values"
)
SPECS.update(
    {
        # the random streams of a dask release: one root per call drawn from
        # the privatizer's next generator, one child per row partition, the
        # partition's rows mixed in when seeded, rows numbered in the whole
        "dask_streams": ModuleSpec(
            path="skprivate/utils/_dask.py",
            # not tests/test_dask.py: its tests run on a LocalCluster, whose
            # threads do not survive mutmut's fork of a process per mutant;
            # every mutant then timed out, and a timeout counts as a kill
            # (the runner puts dask on its synchronous scheduler otherwise)
            tests=[
                "tests/test_privacy_deployment.py::"
                "test_dask_other_chunking_draws_other_noise",
            ],
            new_tests=[
                "tests/test_mutation_dask_streams.py",
                "tests/test_side_doors.py::"
                "test_dask_frame_release_does_not_silently_carry_the_raw_index",
            ],
            equivalent={
                f"{_DASK}call_seed__mutmut_10": (
                    "rng.integers(2**63, size=4)",
                    "integers(n) draws on [0, n), as integers(0, n)",
                ),
                f"{_DASK}call_seed__mutmut_13": (
                    "rng.integers(1, 2**63, size=4)",
                    "numpy maps the same words to the same draws on [1, 2**63) "
                    "as on [0, 2**63) except a draw of 0 (probability 2**-63 "
                    "a word): the roots have the same law to that",
                ),
                **{
                    f"{_DASK}dask_transform__mutmut_{n}": (text, _TOKEN_PART)
                    for n, text in (
                        (17, "tokenize(X, None, seq.entropy, seq.spawn_key, names)"),
                        (19, "tokenize(X, name, seq.entropy, None, names)"),
                        (20, "tokenize(X, name, seq.entropy, seq.spawn_key, None)"),
                        (22, "tokenize(X, seq.entropy, seq.spawn_key, names)"),
                        (24, "tokenize(X, name, seq.entropy, names)"),
                        (25, "tokenize(X, name, seq.entropy, seq.spawn_key, )"),
                    )
                },
                **{
                    f"{_DASK}dask_transform__mutmut_{n}": (text, _DASK_DEFAULT)
                    for n, text in (
                        (47, "token=None,"),
                        (48, "enforce_metadata=None,"),
                        (49, "align_dataframes=None,"),
                        (56, ""),
                        (57, ""),
                        (58, ""),
                        (59, ")"),
                        (61, "enforce_metadata=True,"),
                        (90, "meta=None,"),
                        (91, "name=None,"),
                        (100, ""),
                        (101, ")"),
                        (109, "meta=np.empty((1, 0), dtype=dtype),"),
                        (110, "meta=np.empty((0, 1), dtype=dtype),"),
                    )
                },
                f"{_DASK}dask_transform__mutmut_36": (
                    "np.empty(1, dtype=dtype)",
                    "dask keeps of a DataFrame meta its columns and dtypes, not "
                    "its rows (the collection's meta is empty either way)",
                ),
                **{
                    f"{_DASK}dask_transform__mutmut_{n}": (
                        text,
                        "map_blocks is given the dtype twice, as dtype= and as "
                        "the meta's dtype: either one alone sets the array's "
                        "dtype (the float32 test checks it lazily)",
                    )
                    for n, text in (
                        (88, "dtype=None,"),
                        (98, ""),  # the dtype= argument left out
                        (106, "meta=np.empty((0, 0), dtype=None),"),
                        (108, "meta=np.empty((0, 0), ),"),
                    )
                },
            },
            functions=[
                f"{_DASK}{name}__mutmut_*"
                for name in (
                    "call_seed",
                    "block_seed",
                    "partition_seed",
                    "_privatize_block",
                    "_array_block",
                    "_frame_block",
                    "_first_rows",
                    "dask_transform",
                )
            ],
        ),
    }
)


SPECS.update(
    {
        # the block-by-block release of large inputs: on the release path of
        # the additive, interval and RVNS privatizers
        "row_blocks": ModuleSpec(
            path="skprivate/utils/_row_blocks.py",
            tests=["tests/utils/test_row_blocks.py"],
            new_tests=["tests/test_mutation_row_blocks.py"],
            equivalent={
                f"skprivate.utils._row_blocks.x_in_row_blocks__mutmut_{n}": (
                    line,
                    "outs is built from parts, one array each: the two always "
                    "have the same length",
                )
                for n, line in (
                    (20, "strict=None"),
                    (23, "zip(outs, parts, )"),
                    (24, "strict=False"),
                )
            },
        ),
    }
)


_ES = "skprivate.utils._exact_sums."
_ES_DTYPE = (
    "a float32 column is split as exactly in float32 (its 24-bit values give "
    "exact digits and remainders, and frexp the same exponent), and ldexp "
    "converts an integer column to float64 as asarray would"
)

SPECS.update(
    {
        # the split of a record's budget over its columns, and the checks
        # that refuse an epsilon that is no budget (0, negative, inf, NaN, a
        # bool) on every fit, after set_params from a search too
        "utils_budget": ModuleSpec(
            path="skprivate/utils/_budget.py",
            tests=["tests/test_budget_split.py"],
            new_tests=[],
        ),
        # the choice of the most private setting within a tolerance of the
        # best score: a wrong sign or threshold picks a less private one
        "model_selection": ModuleSpec(
            path="skprivate/model_selection.py",
            tests=["tests/test_model_selection.py"],
            new_tests=["tests/test_mutation_model_selection.py"],
        ),
        # weighted sums that do not depend on the BLAS kernel: the integral
        # release rounds and compares them, so a last bit that moved with the
        # CPU would change which value is released
        "exact_sums": ModuleSpec(
            path="skprivate/utils/_exact_sums.py",
            tests=["tests/utils/test_exact_sums.py"],
            new_tests=["tests/test_mutation_exact_sums.py"],
            equivalent={
                **{
                    f"{_ES}{function}__mutmut_{n}": (text, _ES_DTYPE)
                    for function, n, text in (
                        ("x_integer_weighted_sums", 3, "dtype=None)"),
                        ("x_integer_weighted_sums", 5, "np.asarray(columns, )"),
                        ("xǁFixedPointColumnsǁ__init__", 3, "dtype=None)"),
                        ("xǁFixedPointColumnsǁ__init__", 5, "np.asarray(columns, )"),
                    )
                },
                f"{_ES}x_integer_weighted_sums__mutmut_27": (
                    "if W.size else 2",
                    "the bound of an empty weight matrix: no row is summed, the "
                    "output is empty whatever the digit width",
                ),
                f"{_ES}xǁFixedPointColumnsǁ__init____mutmut_35": (
                    "if n else 1.0",
                    "a column of no rows has no digits: its top value only sets "
                    "an exponent that nothing reads",
                ),
                f"{_ES}xǁFixedPointColumnsǁ__init____mutmut_83": (
                    "digits if (keep.all()) and False else digits[keep]",
                    "digits[keep] with every row kept holds the same digits",
                ),
                f"{_ES}xǁFixedPointColumnsǁweighted_sums__mutmut_32": (
                    "width = max(257, _BLOCK_ELEMENTS // B)",
                    "the width of a column block only groups terms whose partial "
                    "sums are integers below 2**53: exact in any grouping",
                ),
            },
        ),
        # the one implementation of a row statistic for fit, partial_fit
        # and dask, its data range, and the renumbering that names a bad
        # value's row in the whole data (never its value)
        "utils_statistic": ModuleSpec(
            path="skprivate/utils/_statistic.py",
            tests=[
                "tests/test_raw_values_in_errors_more.py",
                "tests/test_dask_fit_range.py",
                "tests/test_dask_fit_data_checks.py",
                "tests/test_bad_input_pins.py",
            ],
            new_tests=["tests/test_mutation_statistic.py"],
            equivalent={
                f"skprivate.utils._statistic.x_n_rows__mutmut_{n}": (
                    text,
                    "without the len() branch the count is np.asarray(data)"
                    ".shape[0]: the same number for the arrays, frames and "
                    "lists of rows that reach it, at the cost of a copy",
                )
                for n, text in (
                    (1, 'hasattr(None, "__len__")'),
                    (5, 'hasattr(data, "XX__len__XX")'),
                    (6, 'hasattr(data, "__LEN__")'),
                )
            },
        ),
        "param_validation": ModuleSpec(
            path="skprivate/utils/_param_validation.py",
            tests=["tests/test_mutation_param_validation.py"],
            new_tests=[],
        ),
    }
)
