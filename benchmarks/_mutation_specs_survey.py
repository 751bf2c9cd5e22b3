"""Mutation specs of the survey's answer checks.

The code that decides what the collection server stores: the answer checks
of every kind of question (an answer is stored only if it lies in the
output space of its question's mechanism), the declared-bounds check, the
parsing of a submitted body, and the ledger's refusal of a wave past the
lifetime budget.  Merged into ``MODULES`` by ``_mutation_modules.py``.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

_NEW = ["tests/survey/test_mutation_survey.py"]
_SPEC = "skprivate.survey._spec."
_FREQ = "skprivate.survey._spec_frequency."
_SRV = "skprivate.survey._server."
_STORE = "skprivate.survey._store.xǁSurveyStoreǁ"
_FQ = "tests/survey/test_frequency_questions.py::"

SPECS: dict[str, ModuleSpec] = {
    # Only the answer checks of _spec.py and check_declared: the spec
    # builders (what the page shows) are checked by the page's exact-law
    # tests, not here.
    "survey_spec": ModuleSpec(
        path="skprivate/survey/_spec.py",
        functions=[
            f"{_SPEC}x_{name}__mutmut_*"
            for name in (
                "check_answer",
                "_number",
                "_laplace_answer",
                "_square_wave_answer",
                "_rvns_answer",
                "_subset_answer",
                "_admissible",
                "admissible_subsets",
                "_interval_answer",
                "json_type",
                "_is_integer",
                "subset_disclosure",
                "check_declared",
            )
        ],
        # the tests that call check_answer, the checker or check_declared in
        # process (the server tests start a subprocess, which takes seconds)
        tests=[
            "tests/survey/test_defects_server.py::"
            "test_every_bad_number_is_a_422_naming_the_question",
            "tests/survey/test_defects_server.py::test_a_valid_body_still_passes",
            "tests/survey/test_defects_server.py::"
            "test_an_extra_field_is_named_without_its_value",
            "tests/survey/test_defects_server.py::test_a_body_without_answers_says_so",
            "tests/survey/test_server.py::"
            "test_rvns_reports_must_leave_one_band_of_d_plus_one_free",
            "tests/survey/test_questionnaire.py::"
            "test_square_wave_rvns_and_subset_specs",
            "tests/survey/test_questionnaire.py::"
            "test_unsupported_privatizers_are_refused",
            "tests/survey/test_questionnaire.py::"
            "test_data_derived_bounds_or_categories_are_refused",
            "tests/survey/test_questionnaire.py::"
            "test_declared_bounds_and_categories_are_accepted_and_raw_values_stay_out",
            "tests/survey/test_questionnaire.py::"
            "test_loading_a_file_with_data_derived_bounds_is_refused",
            "tests/survey/test_frequency_questions.py::"
            "test_frequency_answers_are_checked",
            "tests/survey/test_frequency_questions.py::"
            "test_categories_read_from_the_data_are_refused",
        ],
        new_tests=[
            *_NEW,
            "tests/survey/test_page_and_server_agree.py::"
            "test_server_refuses_square_wave_outputs_that_the_page_and_python_release",
        ],
        equivalent={
            f"{_SPEC}x_check_declared__mutmut_10": (
                'getattr(privatizer, "bounds", )',
                "the branch holds LaplaceLDP, SquareWaveLDP and RVNSPerturber "
                "only, and each has a `bounds` parameter: the default is never "
                "read",
            ),
            f"{_SPEC}x_check_declared__mutmut_19": (
                'getattr(privatizer, "bounds_from_data_", None)',
                "the default is wrapped in bool(): None and False both read as False",
            ),
            **{
                f"{_SPEC}x_subset_disclosure__mutmut_{n}": (
                    line,
                    "a spec's subsets and weights are built together, one "
                    "weight per subset: strict or not, the same pairs",
                )
                for n, line in (
                    (118, 'zip(spec["subsets"], spec["weights"], strict=None)'),
                    (121, 'zip(spec["subsets"], spec["weights"], )'),
                    (126, 'zip(spec["subsets"], spec["weights"], strict=False)'),
                )
            },
            f"{_SPEC}x_subset_disclosure__mutmut_129": (
                "contains, alone = Fraction(2), Fraction(0)",
                "contains is the minimum of itself and probabilities <= 1 over "
                "p >= 2 categories: a start of 1 or 2 gives the same minimum",
            ),
            f"{_SPEC}x_subset_disclosure__mutmut_143": (
                "held, p_alone = Fraction(2), weights.get(one, Fraction(0))",
                "contains starts at 1, and min(1, 1) = min(1, 2): a "
                "conditional design's containment is 1 either way",
            ),
            f"{_SPEC}x_subset_disclosure__mutmut_154": (
                "inside = sum((w for m, w in weights.items() if m & one), )",
                "a sum of Fractions from 0 is the same Fraction; an empty sum, "
                "0, still makes held a Fraction through 1 - 2 alpha",
            ),
            **{
                f"{_SPEC}x__square_wave_answer__mutmut_{n}": (
                    line,
                    "(v - low) / step overflows only when |v - low| exceeds "
                    "1.8e308 steps: any j within n + half cells then gives "
                    "low + j step != v, so every window of candidates refuses v "
                    "(test_a_square_wave_answer_is_one_of_its_cells has the case)",
                )
                for n, line in (
                    (23, "ratio = float(n + half - 10)"),
                    (24, "ratio = float(n - half + 10)"),
                    (25, "ratio = float(n + half + 11)"),
                )
            },
            **{
                f"{_SPEC}x__square_wave_answer__mutmut_{n}": (
                    line,
                    "when the grid is representable (step at least two ulps "
                    "of the values), v = low + j step gives a quotient "
                    "(v - low) / step within one of j: a candidate three cells "
                    "from the rounded quotient never equals v where the five "
                    "nearest do not (no case in 300,000 random grids of "
                    "2 .. 2**20 cells, bounds up to 1e9, widths 1e-6 .. 1e6, three "
                    "values each)",
                )
                for n, line in (
                    (33, "range(guess - 3, guess + 3)"),
                    (35, "range(guess - 2, guess + 4)"),
                )
            },
            **{
                f"{_SPEC}x_check_declared__mutmut_{n}": (
                    line,
                    "every subset privatizer has a `categories` parameter: the "
                    "default of getattr is never read",
                )
                for n, line in (
                    (83, 'getattr(privatizer, "categories", None)'),
                    (86, 'getattr(privatizer, "categories", )'),
                    (89, 'getattr(privatizer, "categories", "XXautoXX")'),
                    (90, 'getattr(privatizer, "categories", "AUTO")'),
                )
            },
            **{
                f"{_SPEC}x_check_declared__mutmut_{n}": (
                    line,
                    "the zip runs only when len(declared) == len(fitted) (the "
                    "`or` before it): strict or not, the same pairs",
                )
                for n, line in (
                    (114, "zip(declared, fitted, strict=None)"),
                    (117, "zip(declared, fitted, )"),
                    (118, "zip(declared, fitted, strict=True)"),
                )
            },
        },
    ),
    # The answer check and the exact accounting of a frequency question:
    # check_declared_categories, the code / bit-vector check, the exact
    # stage tables and joint laws, the disclosure figures the page states,
    # the joint-law epsilon of w waves and the eps_later bound.  Left out:
    # frequency_spec and its helpers (what the page is sent, checked by the
    # page's exact-law tests under node, seconds per run).
    "survey_spec_frequency": ModuleSpec(
        path="skprivate/survey/_spec_frequency.py",
        functions=[
            f"{_FREQ}x_{name}__mutmut_*"
            for name in (
                "check_declared_categories",
                "check_frequency_spec",
                "_is_code",
                "check_frequency_answer",
                "_stage_rows",
                "_bit_law",
                "_one_report",
                "_hashed_law",
                "_in_half",
                "_hadamard_law",
                "frequency_law",
                "frequency_disclosure",
                "_log_ratio",
                "joint_epsilon",
                "later_wave_epsilon",
            )
        ],
        equivalent={
            **{
                f"{_FREQ}x_check_declared_categories__mutmut_{n}": (
                    line,
                    "the zip runs only when len(declared) == len(fitted) (the "
                    "`and` before it): strict or not, the same pairs",
                )
                for n, line in (
                    (40, "zip(declared, fitted, strict=None)"),
                    (43, "zip(declared, fitted, )"),
                    (44, "zip(declared, fitted, strict=True)"),
                )
            },
            f"{_FREQ}x_frequency_disclosure__mutmut_61": (
                "law = frequency_law(spec, 0, )",
                "frequency_law's waves defaults to 1",
            ),
            **{
                f"{_FREQ}x_check_declared_categories__mutmut_{n}": (
                    line,
                    "the fitted categories are an ndarray, whose tolist() gives "
                    "the same Python scalars with or without a cast to object "
                    "(the declared side, a list, is the one the cast matters "
                    "for: a mixed [1, 'a'] would read ['1', 'a'])",
                )
                for n, line in (
                    (35, "== list(np.asarray(f, dtype=None).tolist())"),
                    (37, "== list(np.asarray(f, ).tolist())"),
                )
            },
            f"{_FREQ}x__hashed_law__mutmut_11": (
                "if seeds * g >= MAX_JOINT_OUTPUTS:",
                "(P - 1) P g never equals MAX_JOINT_OUTPUTS = 2**20: the prime "
                "P >= 3 is odd and divides the product",
            ),
            f"{_FREQ}x_later_wave_epsilon__mutmut_11": (
                'stage = spec["stages"][+1]',
                "a memoized question's spec (the only one with later waves) "
                "has exactly two stages: stages[1] is stages[-1]",
            ),
        },
        # the tests without node or a page (each well under a second)
        tests=[
            f"{_FQ}{name}"
            for name in (
                "test_krr_spec_holds_the_privatizers_exact_coin",
                "test_longitudinal_spec_holds_both_stages_and_its_composed_law",
                "test_oue_one_wave_law_is_the_product_of_its_bits",
                "test_categories_read_from_the_data_are_refused",
                "test_unsupported_frequency_privatizers_are_refused",
                "test_frequency_answers_are_checked",
                "test_same_value_lifetime_equals_the_audit_of_the_joint_law_krr",
                "test_one_value_over_two_oue_waves_costs_more_than_two_waves",
                "test_same_value_lifetime_equals_the_audit_of_the_joint_law_oue",
                "test_fresh_draws_compose_the_waves",
                "test_any_values_bound_covers_every_sequence_of_values",
            )
        ]
        # local hashing and Hadamard response: specs, exact laws, answer
        # checks (the tests without node, a browser or a server)
        + [
            f"tests/survey/test_frequency_hashing_questions.py::{name}"
            for name in (
                "test_local_hashing_spec_holds_the_exact_coin_and_the_hash_family",
                "test_hadamard_spec_holds_the_exact_coin_and_the_order",
                "test_spec_law_is_the_python_oracles_law_exactly",
                "test_disclosure_and_loss_are_the_oracles",
                "test_a_memoized_spec_of_a_one_stage_oracle_is_refused",
                "test_well_formed_answers_are_accepted",
                "test_malformed_hashing_answers_are_refused",
                "test_malformed_hadamard_answers_are_refused",
            )
        ],
        new_tests=_NEW,
    ),
    # The body parsing and checking of the server only: the JSON hooks
    # (constants, huge integers, repeated keys) and the checker; the rest
    # of the module (routes, writer, serving) is plumbing.
    "survey_server": ModuleSpec(
        path="skprivate/survey/_server.py",
        functions=[
            f"{_SRV}x__reject_constant__mutmut_*",
            f"{_SRV}x__parse_int__mutmut_*",
            f"{_SRV}x__unique_keys__mutmut_*",
            f"{_SRV}xǁ_Checkerǁ*",
        ],
        # in process: the checker directly, and one request to a server in a
        # thread (the server tests run it in a subprocess, out of mutmut's
        # reach)
        tests=["tests/survey/test_defects_server.py"],
        new_tests=_NEW,
        equivalent={
            f"{_SRV}xǁ_Checkerǁparse__mutmut_12": (
                'body.decode("UTF-8")',
                "codec names are case-insensitive: the same UTF-8 decoder",
            ),
            f"{_SRV}xǁ_Checkerǁcheck_anchors__mutmut_8": (
                'float("-INF")',
                "float() reads 'inf' in any case: the same -inf",
            ),
            f"{_SRV}xǁ_Checkerǁcheck_anchors__mutmut_11": (
                'float("INF")',
                "float() reads 'inf' in any case: the same inf",
            ),
        },
    ),
    # The ledger's refusal: store_batch reads what each token spent and
    # refuses a wave past the lifetime budget or already answered; the rest
    # of the store (schema, engines, reading back) is plumbing.
    "survey_store": ModuleSpec(
        path="skprivate/survey/_store.py",
        functions=[f"{_STORE}store_batch__mutmut_*", f"{_STORE}_spent__mutmut_*"],
        # SQLite only, without the two-wave run through HTTP servers (8 s)
        tests=[
            "tests/survey/test_waves.py::"
            "test_a_link_may_skip_a_wave_but_not_answer_an_earlier_one",
            "tests/survey/test_waves.py::"
            "test_the_database_keeps_one_response_per_token_and_wave[sqlite]",
            "tests/survey/test_server.py::"
            "test_two_transactions_claiming_one_token_store_it_once[sqlite]",
        ],
        new_tests=["tests/test_mutation_survey_store.py", *_NEW],
        excluded={
            f"{_STORE}store_batch__mutmut_14": (
                ".order_by(None)",
                "the fixed order of the row locks only keeps two concurrent "
                "batches on a server database from deadlocking; on SQLite, "
                "the only database under mutmut, BEGIN IMMEDIATE locks the "
                "whole database and FOR UPDATE is a no-op, so no order is "
                "observable",
            ),
        },
    ),
}

_AG = "skprivate.survey._anchor_grid.xǁAnchorGridǁ"
SPECS.update(
    {
        # the anchors a respondent reads: codes strictly inside the support,
        # snapping, the printed text, the refusal of anchors a page would
        # misstate
        "survey_anchor_grid": ModuleSpec(
            path="skprivate/survey/_anchor_grid.py",
            tests=[
                "tests/survey/test_defects_anchors.py",
                "tests/survey/test_questionnaire.py",
            ],
            new_tests=["tests/test_mutation_anchor_grid.py"],
            equivalent={
                f"{_AG}check__mutmut_{n}": (
                    text,
                    "each entry goes through float() anyway, which rounds an "
                    "integer or parses a numeric string as the float64 "
                    "conversion does",
                )
                for n, text in (
                    (4, "np.asarray(anchors, dtype=None).ravel()"),
                    (6, "np.asarray(anchors, ).ravel()"),
                )
            },
        ),
    }
)

_WV = "skprivate.survey._waves."
_NONE_IS_NAN = (
    "pandas builds a float column from floats and None with NaN in place of None"
)
_NO_PRINT = (
    "the default stands in only for a page without a survey fingerprint (a "
    "questionnaire without lifetime_epsilon), where any constant keys the "
    "answers alike"
)
SPECS.update(
    {
        # the accounting of repeated waves: the charge of each question per
        # wave, the lifetime figures and the waves that fit the budget, and
        # the simulated device's two-stage draws
        "survey_waves": ModuleSpec(
            path="skprivate/survey/_waves.py",
            tests=[
                "tests/survey/test_waves.py::test_simulated_device_follows_the_two_stage_law",
                "tests/survey/test_waves.py::test_waves_need_a_declared_budget_within_reach",
                "tests/survey/test_frequency_questions.py",
            ],
            new_tests=[
                "tests/test_mutation_survey_waves.py",
                "tests/survey/test_simulated_device_streams.py",
            ],
            equivalent={
                f"{_WV}x__coin__mutmut_11": (
                    "return int(rng.integers(0, int(den or 1), )) < int(num)",
                    "integers() draws int64 by default",
                ),
                f"{_WV}x_wave_report__mutmut_32": (
                    '"epsilon_per_wave": np.nan if (eps is None) and False else eps,',
                    _NONE_IS_NAN,
                ),
                f"{_WV}x_wave_report__mutmut_37": (
                    "np.nan if (same is None) and False else same,",
                    _NONE_IS_NAN,
                ),
                f"{_WV}xǁSimulatedDeviceǁ_drawn__mutmut_7": (
                    "rng.integers(2**32, size=4)",
                    "integers(high) draws from 0 to high, as integers(0, high)",
                ),
                f"{_WV}xǁSimulatedDeviceǁ_drawn__mutmut_10": (
                    "rng.integers(1, 2**32, size=4)",
                    "numpy's multiply-shift maps a 32-bit word v to 1 + (v * "
                    "(2**32 - 1) >> 32) = v for v > 0: the same seed words but "
                    "for the word 0 (a chance of 2**-32 per word)",
                ),
                **{
                    f"{_WV}xǁSimulatedDeviceǁanswers__mutmut_{n}": (text, _NO_PRINT)
                    for n, text in (
                        (3, 'survey = respondent.get("survey", None)'),
                        (5, 'survey = respondent.get("survey", )'),
                        (8, 'survey = respondent.get("survey", "XXXX")'),
                    )
                },
            },
        ),
    }
)

_PA = "skprivate.survey._page_audit.x_"
SPECS.update(
    {
        # the laws the page audit holds the browser's samplers to (exp
        # enclosures, Square Wave, rounded Laplace, RVNS, subset designs),
        # the comparison and the worst log-ratio; not the Node harness
        "survey_page_claims": ModuleSpec(
            path="skprivate/survey/_page_audit.py",
            tests=["tests/survey/test_page_exact_laws.py"],
            new_tests=["tests/test_mutation_page_claims.py"],
            equivalent={
                f"{_PA}_subset_law__mutmut_57": (
                    "else Fraction(1)",
                    "alpha is read only when the spec has dummies",
                ),
                f"{_PA}exp_neg__mutmut_13": (
                    "pieces = max(2, math.ceil(x))",
                    "the contract is an enclosure of exp(-x) narrower than "
                    "2**-100 on the 2**-120 grid: two pieces for x <= 1 give "
                    "another such enclosure (the series of x / 2 alternates "
                    "and decreases too)",
                ),
                f"{_PA}exp_neg__mutmut_37": (
                    "if term <= _ULP:",
                    "a term exactly equal to _ULP = 2**-120 ends the series one "
                    "term earlier: the alternating series still brackets the "
                    "value, within that term",
                ),
            },
            functions=[
                f"{_PA}{name}__mutmut_*"
                for name in (
                    "_round_out",
                    "exp_neg",
                    "_exact",
                    "_rint",
                    "_square_wave_law",
                    "_laplace_law",
                    "_rvns_law",
                    "_tuples",
                    "_subset_law",
                    "_frequency_law",
                    "spec_law",
                    "compare_laws",
                    "_worst_epsilon",
                    "_quarter",
                )
            ],
        ),
    }
)

_COLLECT = "skprivate.survey._collect.x__question_array__mutmut_"
_COLLECT_TESTS = [
    "tests/survey/test_questionnaire.py::test_read_responses_feeds_the_learners_as_it_is",
    "tests/survey/test_waves.py::test_a_link_may_skip_a_wave_but_not_answer_an_earlier_one",
    "tests/survey/test_waves.py::test_the_database_keeps_one_response_per_token_and_wave",
    "tests/survey/test_waves.py::test_the_estimators_read_the_waves",
    "tests/survey/test_frequency_questions.py::test_read_responses_columns_follow_the_oracle",
    "tests/survey/test_frequency_hashing_questions.py::test_the_estimate_from_stored_answers_is_the_estimators_own",
    "tests/survey/test_defects_anchors.py::test_the_cell_stored_is_the_range_the_respondent_read",
    "tests/survey/test_status.py",
]
SPECS.update(
    {
        # what the collector hands the learners: the tokens bound to their
        # anchors, each question's answers turned into the privatizer's
        # output (the interval of the chosen cell, the report bits, codes
        # and values), the column names, one wave or the complete waves
        "survey_collect": ModuleSpec(
            path="skprivate/survey/_collect.py",
            tests=_COLLECT_TESTS,
            new_tests=["tests/test_mutation_survey_collect.py"],
            equivalent={
                "skprivate.survey._collect.x_issue_tokens__mutmut_39": (
                    "draw_anchors(n_respondents, )",
                    "random_state=None is draw_anchors' default: fresh entropy "
                    "either way (the keyword is written out to be read)",
                ),
                **{
                    f"{_COLLECT}{n}": (
                        text,
                        "intervals_from_answers converts the anchors to float and "
                        "takes the cell indices in any integer dtype: the "
                        "intervals are the same",
                    )
                    for n, text in (
                        (22, "dtype=None).reshape(n, k)"),
                        (24, "np.array([q[name] for _, q in rows], ).reshape(n, k)"),
                        (28, "cells = np.asarray(answers, dtype=None).reshape(n)"),
                        (30, "cells = np.asarray(answers, ).reshape(n)"),
                    )
                },
                f"{_COLLECT}26": (
                    "cells = np.asarray(answers, dtype=np.int64).reshape(None)",
                    "a stored interval answer is one integer (the server checks "
                    "it), so the array is already of shape (n,); reshape(None) "
                    "leaves it as it is",
                ),
                **{
                    name: (
                        text,
                        "without a right end, closed='both' (the default) and "
                        "closed='left' accept the same values and print the same "
                        "range",
                    )
                    for name, text in (
                        (
                            "skprivate.survey._collect.x_issue_tokens__mutmut_16",
                            '"n_respondents": [Interval(numbers.Integral, 0, None, )]',
                        ),
                        (
                            "skprivate.survey._collect.x_read_responses__mutmut_22",
                            '"wave": [Interval(numbers.Integral, 1, None, ), None]',
                        ),
                        (
                            "skprivate.survey._collect.x_read_waves__mutmut_17",
                            '"waves": [Interval(numbers.Integral, 1, None, ), None]',
                        ),
                    )
                },
            },
            excluded={
                f"{_COLLECT}97": (
                    "return np.asarray(answers, ).reshape(n, width)",
                    "frequency answers are JSON integers, which numpy reads as "
                    "int64 on Linux and macOS and, from numpy 2, everywhere: the "
                    "change shows only on a platform whose default integer is "
                    "32 bits, which the tests cannot run here",
                ),
                f"{_COLLECT}95": (
                    "return np.asarray(answers, dtype=None).reshape(n, width)",
                    "frequency answers are JSON integers, which numpy reads as "
                    "int64 on Linux and macOS and, from numpy 2, everywhere: the "
                    "change shows only under numpy 1 on Windows (int32), which "
                    "the tests cannot run here",
                ),
            },
        ),
    }
)

_Q = "skprivate.survey._questionnaire.xǁQuestionǁ"
_QS = "skprivate.survey._questionnaire.xǁQuestionnaireǁ"
_ONE_COLUMN = (
    "a question's privatizer has one column (mechanism_spec refuses more), and "
    "the parameters of a one-column mechanism (scalars or one-entry lists) "
    "broadcast to every column index: column 1 has column 0's law and support"
)
SPECS.update(
    {
        # what a questionnaire promises before any page is drawn: the
        # questions it accepts, anchors kept inside the values' support,
        # the public description and its fingerprint, the lifetime budget,
        # and the anchors drawn per respondent (not the page rendering, the
        # privacy report's text or the simulated answers)
        "survey_questionnaire": ModuleSpec(
            path="skprivate/survey/_questionnaire.py",
            tests=[
                "tests/survey/test_questionnaire.py",
                "tests/survey/test_defects_anchors.py",
                "tests/survey/test_waves.py::test_waves_need_a_declared_budget_within_reach",
            ],
            new_tests=["tests/test_mutation_questionnaire.py"],
            equivalent={
                f"{_QS}draw_anchors__mutmut_41": (
                    "drawn = np.sort(q.anchor_grid().snap(drawn), )",
                    "np.sort sorts along the last axis by default, axis 1 of "
                    "the (respondents, anchors) array",
                ),
                f"{_QS}draw_anchors__mutmut_9": (
                    "seeds = None if (seed is None) and False else",
                    "without a seed, a generator from fresh entropy gives each "
                    "question a state drawn from fresh entropy: the anchors "
                    "have the same law and differ between calls, as with None",
                ),
                f"{_QS}draw_anchors__mutmut_30": (
                    "int(seeds.integers(2**32))",
                    "another range of 32-bit seeds for the questions' streams: "
                    "the same law, each question its own stream",
                ),
                **{
                    f"{_Q}{name}__mutmut_{n}": (text, _ONE_COLUMN)
                    for name, n, text in (
                        ("__init__", 43, "privatizer._anchor_distribution(1).mult"),
                        (
                            "_check_anchor_support",
                            3,
                            "low, high = self.privatizer._value_support(1)",
                        ),
                        (
                            "_check_anchor_support",
                            6,
                            "a_low, a_high = self.privatizer._anchor_support(1)",
                        ),
                        (
                            "anchor_grid",
                            7,
                            "low, high = self.privatizer._value_support(1)",
                        ),
                    )
                },
            },
            functions=[
                *(
                    f"{_Q}{name}__mutmut_*"
                    for name in (
                        "__init__",
                        "_check_anchor_support",
                        "anchor_grid",
                        "category_labels",
                        "public",
                    )
                ),
                *(
                    f"{_QS}{name}__mutmut_*"
                    for name in (
                        "__init__",
                        "_set_budget",
                        "__getitem__",
                        "public_spec",
                        "fingerprint",
                        "draw_anchors",
                    )
                ),
            ],
        ),
    }
)

_ST = "skprivate.survey._status.x_"
SPECS.update(
    {
        # the estimates the operator reads while collecting: the estimator of
        # each kind of question and the parameters it takes from the
        # mechanism, the threshold below which no estimate is made, the
        # statistics and intervals of a fit, the values that are bounds, and
        # how numbers, intervals and legends are written (not the response
        # counts over time or the page)
        "survey_status": ModuleSpec(
            path="skprivate/survey/_status.py",
            tests=_all_but(
                "tests/survey/test_status.py",
                "test_serve_reads_the_token_file_and_never_prints_the_token",
            ),
            new_tests=["tests/test_mutation_survey_status.py"],
            equivalent={
                f"{_ST}format_number__mutmut_12": (
                    "if value != 1 and abs(value) >= 1e4:",
                    "the test of zero matters only with abs(value) >= 1e4, where "
                    "value is neither 0 nor 1",
                ),
                **{
                    f"{_ST}_estimate__mutmut_{n}": (
                        text,
                        "_rows builds every row with the keys of ESTIMATE_COLUMNS "
                        "in that order, and there is a row per statistic (at "
                        "least the mean and the median, or one share per "
                        "category)",
                    )
                    for n, text in (
                        (150, "frame = pd.DataFrame(rows, columns=None)"),
                        (152, "frame = pd.DataFrame(rows, )"),
                    )
                },
            },
            functions=[
                f"{_ST}{name}__mutmut_*"
                for name in (
                    "format_number",
                    "statistic_name",
                    "interval_text",
                    "interval_legend",
                    "_ends",
                    "_shown",
                    "_estimator",
                    "_rows",
                    "_estimate",
                )
            ],
        ),
    }
)
