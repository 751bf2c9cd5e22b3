"""Mutation specs of the noise stream and release policy in ``skprivate/base.py``.

Merged into ``MODULES`` by ``_mutation_modules.py``.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec

_B = "skprivate.base."
_PM = _B + "xǁPrivatizerMixinǁ"
_PI = _B + "xǁPrivatizedInputMixinǁ"
_SETDEFAULT = (
    "the counter is then looked up again by __dict__.setdefault under the "
    "lock, which returns the one fit (or an earlier release) created: the "
    "same counter, one lock taken more"
)

SPECS: dict[str, ModuleSpec] = {
    # Only the noise stream and the release policy of base.py: what makes two
    # releases never share noise (fresh entropy, or a seed mixed with the
    # settings, the data and a call index that copies and pickles cannot
    # replay) and what freezes the settings at fit.  The rest of the module
    # (parameter validation, output containers, the sufficient-statistic
    # learners) is not guarantee code.
    "base_stream": ModuleSpec(
        path="skprivate/base.py",
        functions=[
            _B + "x__check_random_state_value__mutmut_*",
            _B + "x__seed_words__mutmut_*",
            _B + "xǁ_ReleaseCounterǁ*",
            _B + "x__settings_fingerprint__mutmut_*",
            _B + "x__fitted_state_fingerprint__mutmut_*",
            *(
                f"{_PM}{name}__mutmut_*"
                for name in (
                    "transform",
                    "fit_transform",
                    "set_params",
                    "_mechanism_settings",
                    "_check_params",
                    "_check_fitted_settings",
                    "_release_policy",
                    "_is_seeded",
                    "_next_generator",
                    "_law_read_from_data",
                    "_laws_read_from_data",
                    "_settings_shown",
                    "_remember_fitted_settings",
                    "_released_before",
                    "_transform_with_seed",
                )
            ),
            _PI + "_privatize__mutmut_*",
            _PI + "_release_chunk__mutmut_*",
        ],
        # LaplaceLDP (fast) stands for every privatizer: the code under test
        # is shared, and the parametrized sweeps over all privatizers take
        # minutes per mutant
        tests=[
            *(
                "tests/test_privacy_deployment.py::"
                f"test_copies_of_an_unseeded_privatizer_draw_independent_noise[{how}-LaplaceLDP]"
                for how in ("pickle", "deepcopy", "joblib")
            ),
            "tests/test_privacy_deployment.py::test_laplace_copies_do_not_reveal_differences",
            "tests/test_privacy_deployment.py::"
            "test_same_seed_on_other_data_draws_other_noise[LaplaceLDP]",
            "tests/test_privacy_deployment.py::test_pipeline_folds_share_no_noise",
            "tests/test_privacy_deployment.py::"
            "test_set_params_after_fit_refuses_until_refit[LaplaceLDP]",
            "tests/test_privacy_deployment.py::"
            "test_set_params_epsilon_after_fit_is_not_understated",
            "tests/test_privacy_deployment.py::test_threads_take_distinct_calls[LaplaceLDP]",
            "tests/test_privacy_deployment.py::"
            "test_summary_says_when_a_release_is_seeded[LaplaceLDP]",
            "tests/test_privacy_deployment.py::test_report_marks_seeded_privatizers",
            *(
                "tests/test_privacy_contract.py::"
                f"test_fresh_noise_on_every_call[{state}-LaplaceLDP]"
                for state in ("None", "0", "generator")
            ),
            "tests/test_privacy_contract.py::test_difference_attack_on_laplace_fails",
            "tests/test_privacy_contract.py::"
            "test_same_seed_at_two_settings_draws_independent_noise",
            *(
                f"tests/test_privacy_contract.py::{name}[LaplaceLDP]"
                for name in (
                    "test_reproducible_sequence_with_an_int_seed",
                    "test_fit_transform_follows_the_rule",
                    "test_random_state_change_restarts_the_stream",
                    "test_learners_draw_fresh_noise_per_fit_and_reproduce",
                    "test_learner_partial_fit_chunks_continue_the_stream",
                )
            ),
            "tests/test_privacy_contract.py::"
            "test_no_raw_value_in_fitted_privatizer_or_pickle[ndarray-LaplaceLDP]",
        ],
        new_tests=["tests/test_mutation_base.py", "tests/test_seed_fitted_state.py"],
        equivalent={
            f"{_B}x__fitted_state_fingerprint__mutmut_13": (
                '"XXn_features_in_XX")',
                "n_features_in_ is the length of bounds_ and of every other "
                "per-column fitted array, which enter already: it adds nothing",
            ),
            f"{_B}x__fitted_state_fingerprint__mutmut_14": (
                '"N_FEATURES_IN_")',
                "as x__fitted_state_fingerprint__mutmut_13",
            ),
            f"{_PM}_laws_read_from_data__mutmut_2": (
                "params = self.get_params(deep=None)",
                "get_params tests deep for truth: None acts as False",
            ),
            f"{_PM}_laws_read_from_data__mutmut_3": (
                "params = self.get_params(deep=True)",
                "no privatizer holds an estimator among its parameters, so deep "
                "adds no entry; bounds and categories are top-level parameters "
                "either way",
            ),
            f"{_PM}_settings_shown__mutmut_2": (
                "params = self.get_params(deep=None)",
                "get_params tests deep for truth: None acts as False",
            ),
            f"{_PM}_settings_shown__mutmut_3": (
                "params = self.get_params(deep=True)",
                "deep adds only nested names (name__param, of a privatizer "
                "held as a parameter); the shown text is looked up by the "
                "top-level names of the canonical settings only",
            ),
            f"{_B}x__seed_words__mutmut_5": (
                "random_state.integers(2**63 - 1, size=4)",
                "integers(n) draws from [0, n) like integers(0, n), with the "
                "same algorithm: the same words",
            ),
            f"{_B}x__seed_words__mutmut_19": (
                "random_state.randint(2**31 - 1, size=4)",
                "randint(n) draws from [0, n) like randint(0, n): the same words",
            ),
            f"{_PM}_mechanism_settings__mutmut_2": (
                "params = self.get_params(deep=None)",
                "get_params tests deep for truth: None acts as False",
            ),
            f"{_B}x__settings_fingerprint__mutmut_11": (
                "privatizer.get_params(deep=None)",
                "get_params tests deep for truth: None acts as False",
            ),
            f"{_PM}_next_generator__mutmut_13": (
                "return np.random.default_rng(None)",
                "default_rng(None) seeds from fresh operating-system entropy, as "
                "default_rng(SeedSequence()) does",
            ),
            **{
                f"{_PM}_next_generator__mutmut_{n}": (line, _SETDEFAULT)
                for n, line in [
                    (14, "counter = None"),
                    (15, "counter = self.__dict__.get(None)"),
                    (16, 'counter = self.__dict__.get("XX_release_counterXX")'),
                    (17, 'counter = self.__dict__.get("_RELEASE_COUNTER")'),
                ]
            },
            f"{_PI}_privatize__mutmut_1": (
                "stream: bool = True",
                "stream is documented as kept for callers and never read",
            ),
        },
    ),
}
