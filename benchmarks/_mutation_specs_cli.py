"""Mutation specs: the command line's privatize step.

Only the functions that decide what a release contains are mutated: the
run's seed, the mapping from output to input columns, the blanking of
cells derived from missing inputs, the relayed row numbers, the anchors
placed by ``--bounds`` and ``privatize`` itself (not the help text).
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

_PRIV = "skprivate._cli.privatize.x_"
_SET = "skprivate._cli.settings.x_"
_IO = "skprivate._cli.io.x_"
_UMASK_READ = (
    "the call reads the umask and the next one puts it back: the value read is "
    "the same whatever is set in between, and no file is created in between"
)
_TEMPORARY_EXISTS = (
    "the temporary file exists whenever it is removed: every failure after "
    "mkstemp leaves it in place (os.replace is the last step)"
)
_CI = "skprivate._cli.intervals.x_add_intervals__mutmut_"
_SAME_LENGTHS = (
    "the two sequences have the same length, so strict or not zips them alike: "
    "conf_int gives one row per quantile asked for (conf_int_rows one per "
    "point on failure too), and one per category for the shares, of which the "
    "table has one per category (a single failure row is repeated for each)"
)
_LINES_ANY_CODEC = (
    "only line numbers are read, and with errors='replace' every byte decodes "
    "under any ASCII-compatible codec (the locale's on POSIX, or UTF-8 however "
    "spelt): the line ends fall at the same places"
)
_LINES_ANY_NEWLINE = (
    "text files split lines at \\n, \\r and \\r\\n either way (newline='' only "
    "keeps the ends untranslated), and the csv reader counts the same lines"
)
_CLI = "tests/test_cli.py::"
_MISSING_VALUE = (
    "pandas stores pd.NA, None and NaN alike as the missing value of the "
    "float64, boolean and Int64 columns it blanks (the only dtypes here)"
)
_BLOCKS = "the SHA-256 of the file is the same whatever the reads it is fed in"
_SORTED_KEYS = (
    "the keys are distinct, so the pairs sort by key; every key that reaches "
    "a release is a parameter name (an identifier; _build refuses any other "
    "before a release), and identifiers sort alike as strings and as the "
    "text of their pairs"
)

# the command-line tests of privatize (the estimate and help tests do not
# reach these functions, and the README examples take seconds each)
_PRIVATIZE_TESTS = [
    f"{_CLI}{name}"
    for name in (
        "test_laplace_writes_noisy_columns_with_header",
        "test_interval_and_rvns_and_subset_formats",
        "test_errors_are_one_line_and_leave_no_file",
        "test_unreadable_or_missing_input",
        "test_every_numeric_mechanism_is_available",
        "test_same_seed_on_two_files_adds_different_noise",
        "test_kept_columns_are_declared_raw_in_the_summary_and_on_stderr",
        "test_keep_of_a_privatized_column_is_refused",
        "test_output_that_is_a_folder_is_refused_in_one_line",
        "test_output_equal_to_the_input_is_refused",
        "test_infinite_epsilon_is_refused_on_the_command_line",
        "test_partial_output_is_private_and_removed",
        "test_non_numeric_column_is_named_with_its_row_and_line",
        "test_infinite_value_is_named_with_its_row",
        "test_missing_values_are_refused_by_default",
        "test_missing_values_in_several_columns_are_all_listed",
        "test_missing_drop_removes_rows_and_says_so",
        "test_missing_keep_leaves_exactly_the_missing_cells_empty",
        "test_missing_keep_privatizes_the_other_columns_of_a_row",
        "test_missing_keep_and_drop_get_different_noise",
        "test_missing_keep_refuses_a_column_with_no_values",
        "test_interval_defaults_are_refused_with_what_to_pass",
        "test_bounds_place_the_interval_anchors",
        "test_settings_file_holds_no_raw_value",
        "test_settings_without_declared_bounds_are_not_recorded",
        "test_tab_delimiter",
    )
]

SPECS: dict[str, ModuleSpec] = {
    "cli_privatize": ModuleSpec(
        path="skprivate/_cli/privatize.py",
        tests=[*_PRIVATIZE_TESTS, "tests/test_cli_frequency.py"],
        new_tests=["tests/test_mutation_cli_privatize.py"],
        equivalent={
            f"{_PRIV}privatize__mutmut_166": (
                "is_missing[rows]",
                "after --missing drop is_missing is read only under --missing "
                "keep: its rows no longer matter",
            ),
            f"{_PRIV}privatize__mutmut_227": (
                'if missing == "keep" or is_missing.to_numpy().any():',
                "under --missing error a missing cell was refused and under "
                "--missing drop its row removed: no cell is missing unless "
                "missing is 'keep'",
            ),
            **{
                f"{_PRIV}privatize__mutmut_{n}": (
                    text,
                    "the output file was written just before the settings file: "
                    "it exists when it is removed",
                )
                for n, text in (
                    (285, "Path(out).unlink(missing_ok=None)"),
                    (287, "Path(out).unlink(missing_ok=False)"),
                )
            },
            **{
                f"{_PRIV}_blank_missing__mutmut_{n}": (text, _MISSING_VALUE)
                for n, text in (
                    (28, "column[rows] = None"),
                    (29, 'in ("boolean", "Int64")) and False else np.nan'),
                    (30, 'in ("boolean", "Int64")) or True else np.nan'),
                    (31, 'not in ("boolean", "Int64") else np.nan'),
                    (32, '("XXbooleanXX", "Int64")'),
                    (33, '("BOOLEAN", "Int64")'),
                    (34, '("boolean", "XXInt64XX")'),
                    (35, '("boolean", "int64")'),
                    (36, '("boolean", "INT64")'),
                )
            },
            f"{_PRIV}_source_column__mutmut_19": (
                "len(name) >= len(best)",
                "two names that both derive an output are prefixes of it; of "
                "equal length they are the same name",
            ),
            **{
                f"{_PRIV}derive_seed__mutmut_{n}": (text, _BLOCKS)
                for n, text in (
                    (15, "handle.read(None)"),
                    (17, "handle.read(2 << 20)"),
                    (18, "handle.read(1 << 21)"),
                )
            },
            **{
                f"{_PRIV}derive_seed__mutmut_{n}": (text, _SORTED_KEYS)
                for n, text in (
                    (25, "sorted(params.items(), key=None)"),
                    (27, "sorted(params.items(), )"),
                )
            },
        },
        functions=[
            f"{_PRIV}{name}__mutmut_*"
            for name in (
                "_native",
                "apply_bounds",
                "derive_seed",
                "_source_column",
                "_file_rows",
                "_blank_missing",
                "privatize",
            )
        ],
    ),
}

SPECS.update(
    {
        # what the command line reads and writes: separators, the refusals of
        # unreadable input, the row and line an error names (never the
        # cell), the numeric, finite and missing-value checks, and the
        # output written atomically (a private temporary file, nothing left
        # on a failure or SIGTERM)
        "cli_io": ModuleSpec(
            path="skprivate/_cli/io.py",
            tests=_all_but(
                "tests/test_cli.py",
                "test_readme_command_line_example_shows_its_intervals",
            ),
            # the user-input tests name the refusals of column lists and of
            # unreadable files and archives
            new_tests=[
                "tests/test_mutation_cli_io.py",
                "tests/test_cli_user_input.py",
                "tests/test_side_doors.py",
            ],
            equivalent={
                **{
                    f"{_IO}_open_text__mutmut_{n}": (text, _LINES_ANY_CODEC)
                    for n, text in (
                        (15, 'opener(path, "rt", encoding=None, errors='),
                        (20, 'return opener(path, "rt", errors="replace", newline="")'),
                        (26, 'encoding="UTF-8", errors="replace", newline="")'),
                        (31, "return open(path, encoding=None, errors="),
                        (35, 'return open(path, errors="replace", newline="")'),
                        (39, 'open(path, encoding="UTF-8", errors="replace"'),
                    )
                },
                **{
                    f"{_IO}_open_text__mutmut_{n}": (text, _LINES_ANY_NEWLINE)
                    for n, text in (
                        (17, 'errors="replace", newline=None)'),
                        (22, 'return opener(path, "rt", encoding="utf-8", errors='),
                        (33, 'errors="replace", newline=None)'),
                        (37, 'return open(path, encoding="utf-8", errors="replace", )'),
                    )
                },
                f"{_IO}check_numeric__mutmut_5": (
                    "data[name] = column.astype(None)",
                    "astype(None) converts to float64, the dtype asked for",
                ),
                f"{_IO}check_numeric__mutmut_7": (
                    "if pd.api.types.is_numeric_dtype(None):",
                    "a numeric column then goes through pd.to_numeric, which "
                    "returns it unchanged and finds no cell that is not a number",
                ),
                **{
                    f"{_IO}file_line__mutmut_{n}": (
                        text,
                        "the first record read is the header (blank lines give "
                        "no record), which sets both before any data row reads "
                        "them; None is falsy like False",
                    )
                    for n, text in (
                        (9, "header_seen = None"),
                        (14, "start = None"),
                        (15, "start = 2"),
                    )
                },
                f"{_IO}write_csv_atomically__mutmut_32": (
                    "frame.to_csv(handle, index=None)",
                    "pandas writes no index for a false index= (None is false)",
                ),
                f"{_IO}write_csv_atomically__mutmut_38": (
                    "umask = os.umask(1)",
                    _UMASK_READ,
                ),
                **{
                    f"{_IO}write_csv_atomically__mutmut_{n}": (
                        text,
                        _TEMPORARY_EXISTS,
                    )
                    for n, text in (
                        (52, "Path(tmp).unlink(missing_ok=None)"),
                        (54, "Path(tmp).unlink(missing_ok=False)"),
                    )
                },
            },
            excluded={
                **{
                    f"{_IO}check_finite__mutmut_{n}": (
                        text,
                        "the installed pandas converts a nullable column's "
                        "missing values to NaN with or without dtype=float and "
                        "na_value=np.nan; pandas 2.0 (the oldest declared) "
                        "refuses or returns objects, which the tests cannot run "
                        "here",
                    )
                    for n, text in (
                        (2, "to_numpy(dtype=None, na_value=np.nan)"),
                        (3, "to_numpy(dtype=float, na_value=None)"),
                        (4, "values = data[name].to_numpy(na_value=np.nan)"),
                        (5, "values = data[name].to_numpy(dtype=float, )"),
                    )
                },
                **{
                    f"{_IO}write_csv_atomically__mutmut_{n}": (
                        text,
                        "text mode writes newlines unchanged on POSIX; only on "
                        "Windows would the file get \\r\\r\\n line ends",
                    )
                    for n, text in (
                        (24, 'with os.fdopen(fd, "w", newline=None) as handle:'),
                        (27, 'with os.fdopen(fd, "w", ) as handle:'),
                    )
                },
                f"{_IO}write_csv_atomically__mutmut_59": (
                    "signal.SIG_DFL if (previous is None) and False else previous",
                    "signal.signal returns None only for a handler installed "
                    "from C, which a test in Python cannot install",
                ),
            },
        ),
    }
)

SPECS.update(
    {
        # the settings file next to a release: its name, the record (format,
        # version, the output's SHA-256), its atomic writing and the
        # refusals of a file that is not one
        "cli_settings": ModuleSpec(
            path="skprivate/_cli/settings.py",
            tests=[
                *_all_but(
                    "tests/test_cli.py",
                    "test_readme_command_line_example_shows_its_intervals",
                ),
                "tests/test_cli_frequency.py",
            ],
            new_tests=["tests/test_mutation_cli_settings.py"],
            equivalent={
                **{
                    f"{_SET}file_sha256__mutmut_{n}": (text, _BLOCKS)
                    for n, text in (
                        (13, "handle.read(None)"),
                        (15, "handle.read(2 << 20)"),
                        (16, "handle.read(1 << 21)"),
                    )
                },
                f"{_SET}write_settings__mutmut_34": (
                    "umask = os.umask(1)",
                    _UMASK_READ,
                ),
                **{
                    f"{_SET}write_settings__mutmut_{n}": (
                        text,
                        _TEMPORARY_EXISTS,
                    )
                    for n, text in (
                        (48, "Path(tmp).unlink(missing_ok=None)"),
                        (50, "Path(tmp).unlink(missing_ok=False)"),
                    )
                },
                # a parameter that is not a string is refused whatever stands
                # in for its parts: the refusal needs only an empty separator
                # or an empty key, and its message shows the item itself
                **{
                    f"{_SET}_check_parameters__mutmut_{n}": (
                        text,
                        "a non-string parameter is refused with the same "
                        f"message either way: {why}",
                    )
                    for n, text, why in (
                        (
                            13,
                            '("XXXX", "", "")',
                            "the separator stays empty, which alone refuses it",
                        ),
                        (
                            14,
                            '("", "XXXX", "")',
                            "the key stays empty, which alone refuses it",
                        ),
                        (
                            15,
                            '("", "", "XXXX")',
                            "the value part is never read",
                        ),
                    )
                },
            },
        ),
    }
)

SPECS.update(
    {
        # the intervals the command line prints next to its estimates: which
        # rows get which interval, the level only where there is one, the
        # reason where there is none, and the legend
        "cli_intervals": ModuleSpec(
            path="skprivate/_cli/intervals.py",
            tests=["tests/test_cli_intervals.py"],
            new_tests=["tests/test_mutation_cli_intervals.py"],
            equivalent={
                f"{_CI}28": (
                    "if len(found) == 1 <= len(rows):",
                    "with one share row and one found row, repeating it once "
                    "leaves it as it is",
                ),
                **{
                    f"{_CI}{n}": (text, _SAME_LENGTHS)
                    for n, text in (
                        (33, "for i, got in zip(rows, found, strict=None):"),
                        (36, "for i, got in zip(rows, found, ):"),
                        (37, "for i, got in zip(rows, found, strict=True):"),
                        (108, "for (i, _), got in zip(quantiles, found, strict=None):"),
                        (111, "for (i, _), got in zip(quantiles, found, ):"),
                        (
                            112,
                            "for (i, _), got in zip(quantiles, found, strict=False):",
                        ),
                    )
                },
            },
        ),
    }
)
