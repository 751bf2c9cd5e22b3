"""The guarantee modules that ``benchmarks/mutation.py`` mutates.

For each module: the tests selected for mutmut, the module's
``tests/test_mutation_<area>.py`` file, and the surviving mutants judged
equivalent (or excluded: real changes that no test can observe under
mutmut), each with the text of the changed line it was judged on and the
reason.  Mutant names are mutmut's: ``<module>.x_<function>__mutmut_<n>``,
``<module>.xǁ<Class>ǁ<method>__mutmut_<n>``.
"""

from __future__ import annotations

import importlib
import re
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


@dataclass
class ModuleSpec:
    """One guarantee module: what is mutated and which tests check it."""

    path: str
    tests: list[str]
    new_tests: list[str]
    #: mutant name -> (text of the changed line, reason it is equivalent)
    equivalent: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: not equivalent, but no test can see it under mutmut (same form)
    excluded: dict[str, tuple[str, str]] = field(default_factory=dict)
    #: fnmatch patterns of mutant names to run (empty: every mutant of the
    #: module), for a module whose guarantee code is a few of its functions,
    #: e.g. ``"skprivate.x.y.xǁEstimatorǁconf_int__mutmut_*"``
    functions: list[str] = field(default_factory=list)


def _all_but(path: str, *slow: str) -> list[str]:
    """The test functions of ``path`` except the ``slow`` ones, as node ids."""
    text = (ROOT / path).read_text(encoding="utf-8")
    names = re.findall(r"^def (test_\w+)", text, flags=re.MULTILINE)
    return [f"{path}::{name}" for name in names if name not in slow]


_LAPLACE = "skprivate.ldp._laplace.xǁLaplaceLDPǁ"
_NL = "skprivate.ldp._noise_laws."
_HUBER = _NL + "xǁFlippedHuberNoiseǁ"
_GG = _NL + "xǁGeneralizedGaussianNoiseǁ"
_SEED = "skprivate.utils._seeding."
_PICKLE_DEFAULT = (
    "pickle's default protocol is 4 on Python 3.8-3.13 (this run: 3.11); on "
    "3.14, whose default is 5, the tests that spell out protocol 4 "
    "(test_fingerprint_of_other_data_pickles_or_falls_back_to_canonical, "
    "test_fingerprint_of_mixed_objects_tags_each_entry) fail on it"
)
_SUB = "skprivate.subset._mechanism."
_SUBB = _SUB + "xǁ_BaseSubsetPrivatizerǁ"
_RV = "skprivate.negative_survey._perturber."
_SW = "skprivate.ldp._square_wave."
_SWL = _SW + "xǁSquareWaveLDPǁ"
_RVP = _RV + "xǁRVNSPerturberǁ"
_ADD = "skprivate.ldp._additive."
_AP = _ADD + "xǁ_AdditivePrivatizerǁ"
_FH = _ADD + "xǁFlippedHuberLDPǁ"
_FH_FLAT = (
    "calibrates the flipped Huber threshold on the continuous profile instead "
    "of the grid law's: its privacy loss equals epsilon on the whole Laplace "
    "centre, where the hockey-stick objective is flat and holds lattice "
    "points, so the two deltas agree to 1e-8 relative (2e-12 to 7e-9 measured "
    "at 4 grid steps per scale) and give the same threshold to the search "
    "tolerance"
)
_DEAD_GRID_BRANCH = (
    "the grid-profile branch of _delta_summary runs only for a secure "
    "privatizer without exact deltas, which fit never leaves (_settle_delta "
    "stores them whenever secure is true; a changed setting is refused "
    "before the summary)"
)
_CUT = (
    "the first branch (windows cut at 2 delta <= d) is d / (d - delta) <= "
    "2 d / delta for delta <= d / 2, and this change keeps it below 2 d / "
    "delta: the maximum is unchanged"
)
_GRID_CUT = (
    "a window cut at the end of the report range binds only for m > 0.83 D "
    "(2 d / delta < 1 + sqrt(2)), where its best length, root or root + 1, "
    "lies in (m, 2 m]; the other candidates never decide (the same value for "
    "every m <= D <= 40 in test_grid_log_ratio_for_one_report_by_enumeration)"
)

_GGL = _ADD + "xǁGeneralizedGaussianLDPǁ"
_CLAMP_LOOP = (
    "the widening loop never runs: at e**5 = 148 noise scales every law "
    "here has log tail mass below log(1/2) - 148 (Laplace, the heaviest "
    "tail of these laws, has exactly that), far below -20"
)
_SAME_LENGTHS = "one noise law per column: zip never meets unequal lengths"
_BY_WIDTH = (
    "the laws are shared by the columns of equal width (_calibrate keys "
    "them by width, epsilon and delta, equal for every column): keying by "
    "width alone groups the same columns"
)

_FLOATS = "every caller passes a float array: asarray keeps it as it is"
_AT_CUT = (
    "differs only when the incomplete gamma is exactly 1e-280, where scipy "
    "and the series agree to rounding"
)
_NO_ZERO_Q = (
    "q is at least 1e-280 wherever its log is taken (the entries below are "
    "masked): no division by zero is signalled"
)
_MASKED = (
    "a placeholder at the entries that take scipy's value: np.where "
    "discards what it gives there"
)
_TERM_17 = (
    "one more term of the asymptotic series, at most 17! / x**17 < 1e-30 "
    "relative for the x > 640 it serves"
)

MODULES: dict[str, ModuleSpec] = {
    "laplace": ModuleSpec(
        path="skprivate/ldp/_laplace.py",
        # the Laplace tests of the two sampler files only, without the clamp
        # check at epsilon = 1e6 (about 15 s per mutant of the release; the
        # five other budgets check the same clamps)
        tests=[
            "tests/ldp/test_laplace.py",
            *(
                "tests/ldp/test_sampler_support.py::"
                f"test_laplace_clamps_are_reached_from_both_bounds[{e}]"
                for e in (18, 25, 30, 40, 1000)
            ),
            "tests/ldp/test_sampler_support.py::"
            "test_laplace_every_output_is_reachable_from_both_bounds",
            "tests/test_grid_sampler_laws.py::test_laplace_grid_law",
        ],
        new_tests=[
            "tests/test_mutation_ldp.py",
            "tests/ldp/test_narrow_bounds.py",
            "tests/ldp/test_wide_bounds.py",
            "tests/ldp/test_signed_zero.py",
        ],
        equivalent={
            f"{_LAPLACE}fit__mutmut_2": (
                "return super().fit(X, None)",
                "y is ignored by LaplaceLDP.fit (documented: 'y : None, Ignored')",
            ),
            f"{_LAPLACE}fit__mutmut_4": (
                "return super().fit(X, )",
                "y defaults to None and is ignored",
            ),
            f"{_LAPLACE}_fit__mutmut_4": (
                "dtype=None)",
                "fit reads X only for its shape and, with bounds=None, through "
                "bounds_from_data, which returns float64 bounds for any input "
                "dtype",
            ),
            f"{_LAPLACE}_fit__mutmut_7": (
                "finite=True), )",
                "as _fit__mutmut_4 (float64 is validate_data's only cast here)",
            ),
            f"{_LAPLACE}_transform__mutmut_2": (
                "check_is_fitted(self, None)",
                "without attribute names check_is_fitted asks "
                "PrivatizerMixin.__sklearn_is_fitted__, false before fit: the "
                "same NotFittedError",
            ),
            f"{_LAPLACE}_transform__mutmut_4": (
                "check_is_fitted(self, )",
                "as _transform__mutmut_2",
            ),
            f"{_LAPLACE}privacy_summary__mutmut_2": (
                "check_is_fitted(self, None)",
                "as _transform__mutmut_2",
            ),
            f"{_LAPLACE}privacy_summary__mutmut_4": (
                "check_is_fitted(self, )",
                "as _transform__mutmut_2",
            ),
            f"{_LAPLACE}_transform__mutmut_17": (
                "reset=None",
                "validate_data tests reset for truth: None acts as False",
            ),
            f"{_LAPLACE}_transform__mutmut_40": (
                "X -= rng.laplace(0.0, 1.0, size=X.shape) * self.scale_",
                "the Laplace law is symmetric: x - b L has the law of x + b L "
                "(only the seeded stream's values change, and no seeded value is "
                "documented)",
            ),
            f"{_LAPLACE}_transform__mutmut_46": (
                "rng.laplace(0.0, size=X.shape)",
                "numpy's default Laplace scale is 1.0",
            ),
            f"{_LAPLACE}_enforce_bounds__mutmut_45": (
                "None,",
                "warnings.warn with category None issues a UserWarning",
            ),
            f"{_LAPLACE}_enforce_bounds__mutmut_48": (
                "",
                "warnings.warn without a category issues a UserWarning",
            ),
            f"{_LAPLACE}_secure_noise__mutmut_4": (
                "k = np.clip(np.rint(X / step), None, self._k_high)",
                "X is already clipped into the bounds, so rint(X / step) >= "
                "rint(low / step) >= floor(low / step) = k_low: the lower clip "
                "never acts",
            ),
            f"{_LAPLACE}_secure_noise__mutmut_5": (
                "k = np.clip(np.rint(X / step), self._k_low, None)",
                "likewise rint(X / step) <= rint(high / step) <= "
                "ceil(high / step) = k_high: the upper clip never acts",
            ),
        },
        excluded={
            f"{_LAPLACE}_enforce_bounds__mutmut_49": (
                ")",
                "the clipping warning loses its stacklevel; under mutmut a "
                "trampoline frame is the caller, so the location check of "
                "test_clip_message_names_row_column_and_declared_bounds (and "
                "tests/test_warning_location.py) only runs outside mutmut",
            ),
        },
    ),
    "noise_laws": ModuleSpec(
        path="skprivate/ldp/_noise_laws.py",
        # every fit of the additive privatizers reaches the laws: a few cases
        # of each parametrized sweep (the whole files took minutes per
        # surviving mutant on the shared machine), and the grid laws of the
        # three families whose noise is drawn here
        tests=[
            *_all_but(
                "tests/ldp/test_additive.py",
                "test_stronger_privacy_means_more_noise",
                "test_baseline_bad_input",
                "test_flipped_huber_meets_delta_at_every_epsilon",
                "test_generalized_gaussian_meets_delta_at_every_epsilon",
                "test_refusals_name_epsilon_and_the_accepted_limit",
            ),
            *(
                "tests/ldp/test_additive.py::"
                f"test_flipped_huber_meets_delta_at_every_epsilon[{p}]"
                for p in ("1e-05-1.0", "1e-09-1000.0", "0.001-0.01", "1e-05-700.0")
            ),
            *(
                "tests/ldp/test_additive.py::"
                f"test_generalized_gaussian_meets_delta_at_every_epsilon[{p}]"
                for p in ("1.0-1.0", "2.0-100.0", "5.0-0.01", "2.0-1000.0")
            ),
            *(
                f"tests/ldp/test_sampler_support.py::{name}"
                for name in (
                    "test_laplace_clamps_are_reached_from_both_bounds[40]",
                    "test_laplace_every_output_is_reachable_from_both_bounds[40]",
                    "test_numpy_exponential_range_is_as_derived",
                    "test_capped_exponential_keeps_numpy_draws_and_extends_the_range",
                    "test_generalized_gaussian_every_output_is_reachable[18-1.2]",
                    "test_generalized_gaussian_every_output_is_reachable[18-2.0]",
                    "test_flipped_huber_every_output_is_reachable[18]",
                    "test_flipped_huber_every_output_is_reachable[40]",
                    "test_flipped_huber_refuses_budgets_below_its_resolution",
                    "test_tail_redraw_keeps_the_noise_law",
                )
            ),
            "tests/test_grid_sampler_laws.py::test_laplace_grid_law",
            "tests/test_grid_sampler_laws.py::test_generalized_gaussian_grid_law",
            "tests/test_grid_sampler_laws.py::test_flipped_huber_grid_law",
        ],
        # the fast exact tests of this module first: the first failing test
        # stops a mutant's recheck
        new_tests=[
            "tests/test_mutation_noise_laws.py",
            "tests/test_mutation_ldp.py",
            "tests/test_mutation_additive.py",
            "tests/ldp/test_wide_bounds.py",
        ],
        equivalent={
            f"{_NL}x__bernoulli_exp__mutmut_7": (
                "dtype=None), 0.0)",
                "every caller passes float64 excesses; np.maximum with 0.0 "
                "turns integers into floats anyway",
            ),
            f"{_NL}x__bernoulli_exp__mutmut_9": (
                "np.asarray(x, ), 0.0)",
                "as x__bernoulli_exp__mutmut_7",
            ),
            f"{_NL}x__bernoulli_exp__mutmut_18": (
                "rest >= 0",
                "an x = 0 coin then takes one extra draw, U < exp(0) = 1, "
                "which always accepts: the same law",
            ),
            f"{_NL}x__bernoulli_exp__mutmut_27": (
                "<= np.exp(-chunk)",
                "U = exp(-c) exactly has probability 2**-53 at most",
            ),
            f"{_HUBER}_rho__mutmut_9": (
                "au < self.beta",
                "both pieces of rho equal beta at |u| = beta (rho is continuous)",
            ),
            f"{_HUBER}_fine_limit__mutmut_36": (
                "max(z2, 1.0)",
                "z2 > 2 log_fine >= 2 log(2**5) for every resolution "
                "set_resolution accepts (<= 2**44 cells), so the max never binds",
            ),
            f"{_HUBER}_logcdf_negative__mutmut_48": (
                "u < -beta",
                "at u = -beta the Gaussian-tail and centre formulas give the "
                "same CDF (continuity), equal to rounding",
            ),
            f"{_HUBER}logcdf__mutmut_17": (
                "np.where(u < 0, neg,",
                "at u = 0 both branches are log(1/2) (symmetry), equal to rounding",
            ),
            f"{_HUBER}sample__mutmut_9": (
                "<= p_centre",
                "U = p_centre exactly has probability 2**-53 at most",
            ),
            f"{_HUBER}sample__mutmut_49": (
                "<= 0.5, -1.0, 1.0)",
                "U = 0.5 exactly has probability 2**-53",
            ),
            f"{_GG}sample__mutmut_19": (
                "<= 0.5, -1.0, 1.0)",
                "U = 0.5 exactly has probability 2**-53",
            ),
            f"{_NL}xǁ_LogConcaveTailǁ_redraw_tail__mutmut_2": (
                "far = mag >= self.tail_start",
                "a magnitude exactly at tail_start has probability 2**-53 at "
                "most, and redrawing it from the tail law keeps the law",
            ),
            f"{_NL}xǁ_LogConcaveTailǁ_tail__mutmut_25": (
                "self._rho(u) + base - slope",
                "scales every acceptance probability by the constant "
                "exp(-2 rho(T)): rejection sampling then accepts the same "
                "conditional law, only after more draws",
            ),
            f"{_NL}x_additive_privacy_profile__mutmut_33": (
                "left *= 3.0",
                "a wider bracket for the same unique root: the same t* to xtol; "
                "where no root is found the search gives up past the limit, "
                "1e6 (D + scale) out, where the CDF is 0.0 in double precision "
                "(every supported law has tails at least as light as Laplace's)",
            ),
            f"{_NL}x_additive_privacy_profile__mutmut_35": (
                "if left <= limit or not np.isfinite(left):",
                "moves the give-up point by at most one doubling beyond "
                "1e6 (D + scale), where both CDF terms are 0 in double "
                "precision: delta is 0.0 either way",
            ),
            f"{_NL}x_additive_privacy_profile__mutmut_21": (
                "-1000001.0 * (D + noise.scale)",
                "as x_additive_privacy_profile__mutmut_35",
            ),
            f"{_NL}x_additive_privacy_profile__mutmut_11": (
                "with np.errstate(over=None):",
                "D = float(sensitivity) and the laws store float(scale): the "
                "limit is Python float arithmetic, which overflows to inf "
                "without a numpy warning, so the errstate changes nothing",
            ),
            **{
                f"{_NL}x_additive_privacy_profile__mutmut_{n}": (
                    text,
                    "np.finfo(None) is the finfo of float64, as np.finfo(float)",
                )
                for n, text in ((24, "np.finfo(None).max"), (44, "np.finfo(None).max"))
            },
            f"{_NL}x_standard_exponential__mutmut_6": (
                "draws.reshape(-2)",
                "numpy reads a negative size as 'infer', as -1",
            ),
            f"{_NL}x_standard_exponential__mutmut_9": (
                "flat >= cap",
                "a draw exactly at cap has probability 2**-53 at most; "
                "replacing it by cap plus a fresh draw keeps the law",
            ),
            f"{_NL}x_standard_exponential__mutmut_19": (
                "again = fresh >= cap",
                "as x_standard_exponential__mutmut_9",
            ),
            f"{_GG}logcdf__mutmut_29": (
                "return np.where(t < 0, low,",
                "at t = 0 both branches are log(1/2) (Q(a, 0) = 1), equal to rounding",
            ),
            **{
                f"{_GG}logcdf__mutmut_{n}": (
                    line,
                    "t is a float array already (every caller passes floats), "
                    "and |t| / scale is float for any input",
                )
                for n, line in [
                    (3, "t = np.asarray(t, dtype=None)"),
                    (5, "t = np.asarray(t, )"),
                ]
            },
            f"{_GG}logcdf__mutmut_20": (
                "with np.errstate(divide=None):",
                "low <= log(1/2), so log1p(-exp(low)) never takes log(0): no "
                "division by zero is signalled",
            ),
            **{
                f"{_NL}x__log_upper_gamma__mutmut_{n}": (line, reason)
                for n, line, reason in [
                    (3, "x = np.asarray(x, dtype=None)", _FLOATS),
                    (5, "x = np.asarray(x, )", _FLOATS),
                    (12, "far = q <= 1e-280", _AT_CUT),
                    (16, "with np.errstate(divide=None):", _NO_ZERO_Q),
                    (27, "xf = np.where(far, x, 1001.0)", _MASKED),
                    (
                        29,
                        "term = np.ones_like(None)",
                        "np.ones_like(None) is a 0-d array holding 1: its first "
                        "product with the float array xf gives the same float64 "
                        "terms",
                    ),
                    (37, "for k in range(1, 18):", _TERM_17),
                    (54, "with np.errstate(divide=None):", _NO_ZERO_Q),
                    (64, "np.log(np.where(None, 1.0, q))", _MASKED),
                    (70, "np.log(np.where(far, 2.0, q))", _MASKED),
                ]
            },
            **{
                f"{_NL}x_grid_privacy_profile__mutmut_{n}": (
                    line,
                    "the bisection only needs an upper end where the loss is "
                    "not above epsilon: n + M - 2 and n + M + 1 both have t_j "
                    "> D / 2 (n >= 4 on every grid), where the loss is <= 0; "
                    "the maximum is found at the same lattice points",
                )
                for n, line in [
                    (21, "lo, hi = -M, n + M + 1"),
                    (23, "lo, hi = -M, n + M - 2"),
                ]
            },
            f"{_GG}sample__mutmut_6": (
                "rng.gamma(1.0 / self.power, size=size)",
                "numpy's default gamma scale is 1.0",
            ),
            **{
                f"{_NL}x_{function}__mutmut_{n}": (line, _FLOATS)
                for function, n, line in [
                    ("_loss", 3, "t = np.asarray(t, dtype=None)"),
                    ("_loss", 5, "t = np.asarray(t, )"),
                    ("_hockey_stick", 3, "t = np.asarray(t, dtype=None)"),
                    ("_hockey_stick", 5, "t = np.asarray(t, )"),
                ]
            },
            **{
                f"{_NL}x__hockey_stick__mutmut_{n}": (
                    line,
                    "nothing on that line can overflow: a = log F(t) <= 0 and "
                    "b - epsilon = log F(t - D) <= a, so b - a <= epsilon and "
                    "the expm1 argument is <= 0; exp(a) <= 1 and expm1 of a "
                    "number <= 0 lies in [-1, 0): the product is in [0, 1]",
                )
                for n, line in [
                    (45, 'with np.errstate(invalid="ignore", over=None):'),
                    (47, 'with np.errstate(invalid="ignore", ):'),
                ]
            },
            **{
                f"{_NL}x_grid_privacy_profile__mutmut_{n}": (
                    line,
                    "the candidates are Python ints (lattice indices far below "
                    "2**53): asarray makes int64 of them, and adding 0.5 gives "
                    "the same float64 points as from float64 indices",
                )
                for n, line in [
                    (42, "np.asarray(candidates, dtype=None)"),
                    (44, "np.asarray(candidates, )"),
                ]
            },
        },
    ),
    "seeding": ModuleSpec(
        path="skprivate/utils/_seeding.py",
        # the tests of the seeded stream that reach the fingerprints
        tests=[
            "tests/test_privacy_contract.py::"
            "test_settings_fingerprint_is_stable_across_processes",
            "tests/test_privacy_contract.py::"
            "test_same_seed_at_two_settings_draws_independent_noise",
            "tests/test_privacy_contract.py::test_reproducible_sequence_with_an_int_seed",
            "tests/test_privacy_deployment.py::"
            "test_same_seed_on_other_data_draws_other_noise",
        ],
        new_tests=["tests/test_mutation_seeding.py"],
        equivalent={
            f"{_SEED}x_multiset_hash__mutmut_37": (
                "return int(np.sum(z, dtype=None))",
                "numpy sums a uint64 array in uint64 (wrapping modulo 2**64) "
                "without being told",
            ),
            f"{_SEED}x_multiset_hash__mutmut_39": (
                "return int(np.sum(z, ))",
                "as x_multiset_hash__mutmut_37",
            ),
            f"{_SEED}x_data_fingerprint__mutmut_67": (
                'cast("b")',
                "signed or unsigned bytes, the buffer hashlib reads is the same",
            ),
            f"{_SEED}x_data_fingerprint__mutmut_54": (
                'data.dtype.kind in "XXUSXX"',
                "a dtype kind is one letter, and no kind is 'X': the substring "
                "test matches 'U' and 'S' alone, as 'US' does",
            ),
            f"{_SEED}x__canonical__mutmut_77": (
                "get_params(deep=None)",
                "get_params tests deep for truth: None acts as False",
            ),
            f"{_SEED}x__reduced_content__mutmut_3": (
                "value.__reduce_ex__(5)",
                "protocol 5 differs from 4 only in out-of-band buffers "
                "(PickleBuffer), which no reduction of a setting returns: the "
                "same arguments and state",
            ),
            **{
                f"{_SEED}{name}__mutmut_{n}": (line, _PICKLE_DEFAULT)
                for name, n, line in (
                    ("x_data_fingerprint", 84, "protocol=None"),
                    ("x_data_fingerprint", 86, "pickle.dumps(data, ))"),
                    ("x__object_values", 44, "protocol=None"),
                    ("x__object_values", 46, "pickle.dumps(v, ).hex()"),
                )
            },
            **{
                f"{_SEED}x__object_values__mutmut_{n}": (
                    line,
                    "numpy 2's default integer is int64 on every platform",
                )
                for n, line in ((8, "dtype=None"), (10, "for v in items], )"))
            },
            **{
                f"{_SEED}x__object_values__mutmut_{n}": (
                    line,
                    "codec names are case-insensitive: the same UTF-8 codec",
                )
                for n, line in ((19, '"UTF-8"'), (59, '"UTF-8"'))
            },
        },
    ),
    "subset_mechanism": ModuleSpec(
        path="skprivate/subset/_mechanism.py",
        tests=[
            "tests/subset/test_design.py",
            "tests/subset/test_estimator.py",
            "tests/test_no_raw_in_messages.py",
            "tests/test_privacy_contract.py",
            "tests/test_audit.py",
        ],
        new_tests=[
            "tests/test_mutation_subset.py",
            "tests/test_read_from_data_claims.py",
        ],
        equivalent={
            f"{_SUB}x__check_present__mutmut_4": (
                '"XXfcXX"',
                "a dtype kind is one character and 'X' is no kind: the same test",
            ),
            f"{_SUBB}_codes__mutmut_3": (
                "np.empty(X.shape, dtype=None)",
                "float64 holds the codes -1 .. p + 1 exactly; _transform only "
                "compares them and SubsetDesign.sample casts them to int64",
            ),
            f"{_SUBB}_codes__mutmut_5": (
                "np.empty(X.shape, )",
                "as _codes__mutmut_3",
            ),
            f"{_SUBB}_fit__mutmut_57": (
                '"XXUSXX"',
                "as x__check_present__mutmut_4",
            ),
            f"{_SUBB}_fit__mutmut_70": (
                "values.astype(None)",
                "astype(None) is astype(float64)",
            ),
            f"{_SUBB}_fit__mutmut_91": (
                'given != "auto" or self.handle_unknown == "error"',
                "only adds a check of X against categories read from X itself "
                "(no value is unknown), or one with handle_unknown='ignore' "
                "(which never raises)",
            ),
            f"{_SUBB}_fit__mutmut_93": (
                'given != "XXautoXX"',
                "as _fit__mutmut_91",
            ),
            f"{_SUBB}_fit__mutmut_94": (
                'given != "AUTO"',
                "as _fit__mutmut_91",
            ),
            f"{_SUBB}_transform__mutmut_4": (
                "reset=None",
                "validate_data tests reset for truth: None acts as False",
            ),
            f"{_SUBB}_transform__mutmut_29": (
                "u <= alpha",
                "U = alpha exactly has probability 2**-53 at most",
            ),
            f"{_SUBB}_transform__mutmut_36": (
                "u <= 2 * alpha",
                "as _transform__mutmut_29",
            ),
            f"{_SUBB}_validate__mutmut_14": (
                "X.astype(None)",
                "astype(None) is astype(float64)",
            ),
            f"{_SUBB}fit__mutmut_18": (
                "super().fit(X, None)",
                "y is ignored (documented: 'y : None, Ignored')",
            ),
            f"{_SUBB}fit__mutmut_20": (
                "super().fit(X, )",
                "y defaults to None and is ignored",
            ),
            f"{_SUBB}_fit_summary__mutmut_1": (
                'isinstance(self.categories, str) or self.categories == "auto"',
                "categories is 'auto' or a list (the parameter constraints): a "
                "list never equals 'auto', so 'or' and 'and' agree",
            ),
            f"{_SUB}xǁ_PresentCategoriesǁblock__mutmut_14": (
                "X.reshape(len(X), -2)",
                "numpy reads a negative size as 'infer', as -1",
            ),
            f"{_SUBB}get_feature_names_out__mutmut_21": (
                "np.asarray(names, dtype=None)",
                "a str array and an object array of the same strings compare "
                "equal element by element: the same array_equal",
            ),
            f"{_SUBB}get_feature_names_out__mutmut_23": (
                "np.asarray(names, )",
                "as get_feature_names_out__mutmut_21",
            ),
            f"{_SUBB}privacy_summary__mutmut_2": (
                "weights is not None or len(self.designs_) == 1",
                "with weights=None the one-column branch sees a 0-d array and "
                "leaves weights None",
            ),
            f"{_SUBB}privacy_summary__mutmut_18": (
                "[np.asarray(weights, dtype=None)]",
                "subset_leakage reads the weights as floats itself",
            ),
            f"{_SUBB}privacy_summary__mutmut_20": (
                "[np.asarray(weights, )]",
                "as privacy_summary__mutmut_18",
            ),
        },
        excluded={
            f"{_SUBB}_fit__mutmut_24": (
                ")",
                "the categories='auto' warning loses its stacklevel; under "
                "mutmut a trampoline frame is the caller, so only "
                "tests/test_warning_location.py (outside mutmut) sees it",
            ),
        },
    ),
    "rvns_perturber": ModuleSpec(
        path="skprivate/negative_survey/_perturber.py",
        # without the tests of several seconds each (reconstructions, window
        # audits, privacy_report): every surviving mutant runs all the
        # selected tests that reach it, which took minutes per mutant on the
        # shared machine
        tests=[
            *_all_but(
                "tests/negative_survey/test_perturber.py",
                "test_summary_per_record_is_the_sum_over_columns_and_matches_the_report",
                "test_theorem_1_bound_holds_for_one_report",
                "test_default_reports_follow_the_continuous_transition_density",
            ),
            *_all_but(
                "tests/negative_survey/test_boundary_safe.py",
                "test_two_reports_share_a_band_and_do_not_compose",
                "test_reconstruction_near_a_bound_is_consistent_and_no_worse_than_paper",
            ),
            "tests/test_no_raw_in_messages.py",
            "tests/test_privacy_contract.py",
        ],
        new_tests=[
            "tests/test_mutation_negative_survey.py",
            "tests/ldp/test_narrow_bounds.py",
        ],
        equivalent={
            f"{_RVP}get_feature_names_out__mutmut_15": (
                "np.asarray(input_features, dtype=None)",
                "the names are only read through their count and f-strings, "
                "the same for a str or object array",
            ),
            f"{_RVP}get_feature_names_out__mutmut_17": (
                "np.asarray(input_features, )",
                "as get_feature_names_out__mutmut_15",
            ),
            f"{_RVP}_validate_X__mutmut_16": (
                "dtype=np.float64, )",
                "validate_data's ensure_all_finite defaults to True",
            ),
            f"{_RVP}_validate_X__mutmut_17": (
                "ensure_all_finite=False",
                "check_numeric_input(finite=True) has already refused every "
                "NaN and infinity, naming its row and column",
            ),
            f"{_RVP}fit__mutmut_2": (
                "super().fit(X, None)",
                "y is ignored (documented: 'y : Ignored')",
            ),
            f"{_RVP}fit__mutmut_4": (
                "super().fit(X, )",
                "y defaults to None and is ignored",
            ),
            f"{_RVP}_transform__mutmut_70": (
                "reshape(B.shape[0], -2)",
                "numpy reads a negative size as 'infer', as -1",
            ),
            f"{_RVP}_transform__mutmut_4": (
                "reset=None",
                "validate_data tests reset for truth: None acts as False",
            ),
            f"{_RVP}epsilon__mutmut_57": (
                "strict=None",
                "D and m have one entry per column each: zip never meets "
                "unequal lengths",
            ),
            f"{_RVP}epsilon__mutmut_60": ("zip(D, m, )", "as epsilon__mutmut_57"),
            f"{_RVP}epsilon__mutmut_61": ("strict=False", "as epsilon__mutmut_57"),
            f"{_RVP}_grid_window__mutmut_10": (
                "D.astype(None)",
                "astype(None) is astype(float64)",
            ),
            f"{_RVP}privacy_summary__mutmut_98": (
                "np.asarray(every, dtype=None)",
                "every is already a float array (the epsilons, or np.full of inf)",
            ),
            f"{_RVP}privacy_summary__mutmut_100": (
                "np.asarray(every, )",
                "as privacy_summary__mutmut_98",
            ),
            f"{_RV}x__safe_ratio__mutmut_15": (
                "np.minimum(3.0 * delta, np.sqrt(2.0) * d)",
                "the cut-window ratio R(l) <= 1 + sqrt(2) binds only for delta "
                "> 0.828 d, where 2 delta and 3 delta both exceed sqrt(2) d: "
                "the same l",
            ),
            f"{_RV}x__safe_ratio__mutmut_20": (
                "None, 2.0 * d / (2.0 * d - ell)",
                "takes the second form for l = 2 delta <= d too, where it is "
                "4 d delta / (d**2 + (d - 2 delta)**2) < 2 d / delta: the "
                "maximum is unchanged",
            ),
            f"{_RV}x__safe_ratio__mutmut_26": (
                "ell < d,",
                "at l = d both forms give 2 (R is continuous)",
            ),
            **{
                f"{_RV}x__safe_grid_log_ratio__mutmut_{n}": (line, _GRID_CUT)
                for n, line in [
                    (26, "for ell in {m - 1, 2 * m,"),
                    (27, "for ell in {m + 2, 2 * m,"),
                    (28, "for ell in {m + 1, 2 / m,"),
                    (29, "for ell in {m + 1, 3 * m,"),
                    (34, "min(2 / m, D + 1), D + 2"),
                    (35, "min(3 * m, D + 1), D + 2"),
                    (36, "min(2 * m, D - 1), D + 2"),
                    (37, "min(2 * m, D + 2), D + 2"),
                    (38, "min(2 * m, D + 1), D - 2"),
                    (39, "min(2 * m, D + 1), D + 3"),
                    (43, "if not m - 1 <= ell <= 2 * m:"),
                    (48, "if not m + 1 <= ell <= 3 * m:"),
                ]
            },
            f"{_RV}x__safe_grid_log_ratio__mutmut_49": (
                "break",
                "stopping at the first candidate out of [m + 1, 2 m] changes "
                "nothing: where the cut window binds (m > 0.83 D) every "
                "candidate lies in that range (D + 2 <= 2 m, root <= 2 m), "
                "and where one does not, no candidate beats the first bound "
                "(the same value for every m <= D < 400, and for 200,000 "
                "random m <= D < 2**40)",
            ),
            f"{_RV}x__safe_grid_log_ratio__mutmut_50": (
                "if ell < D + 1:",
                "the two forms of T(l) agree at l = D and l = D + 1 (both "
                "D (D + 1) / 2)",
            ),
            f"{_RV}x__safe_grid_log_ratio__mutmut_51": (
                "if ell <= D - 1:",
                "as x__safe_grid_log_ratio__mutmut_50",
            ),
            f"{_RV}x__safe_grid_log_ratio__mutmut_98": (
                "for j in range(k - 1):",
                "the minimum over j of Q_k's terms is never at j = k - 1 or k "
                "(in the limit the term is 1 / ((k + 1) C(k, j) 2**(k - j)), "
                "smallest where M_k's maximum is, at j <= k - 2; checked "
                "exactly for k <= 4, D <= 16 by "
                "test_grid_log_ratio_for_k_reports_by_summation and in floating "
                "point for k <= 9, m <= 10**5)",
            ),
            f"{_RV}x__tuple_factor__mutmut_12": (
                "for j in range(k + 2)",
                "the extra term has C(k, k + 1) = 0: the same maximum",
            ),
            f"{_RV}x__safe_ratio__mutmut_29": ("3.0 * d / (2.0 * d - ell)", _CUT),
            f"{_RV}x__safe_ratio__mutmut_30": ("2.0 * d / (2.0 * d + ell)", _CUT),
            f"{_RV}x__safe_ratio__mutmut_32": ("2.0 * d / (3.0 * d - ell)", _CUT),
        },
    ),
    "square_wave": ModuleSpec(
        path="skprivate/ldp/_square_wave.py",
        tests=[
            # not the EMS reconstructions (seconds each): their estimator
            # uses the privatizer's law, which the other tests pin exactly
            *_all_but(
                "tests/ldp/test_square_wave.py",
                "test_square_wave_ems_recovers_distribution",
                "test_square_wave_auto_smoothing_is_an_option",
            ),
            "tests/ldp/test_sampler_support.py",
            "tests/test_grid_sampler_laws.py",
        ],
        new_tests=["tests/test_mutation_square_wave.py", "tests/test_budget_split.py"],
        equivalent={
            f"{_SW}xǁSquareWaveLDPǁ_calibrate__mutmut_14": (
                "if w <= 2.0**-GRID_BITS:",
                "differs only at a half-width of exactly 2**-20: the grid "
                "then has 2**40 cells instead of 2**20; either is this "
                "sampler's exact law at that width (the far-output "
                "probability is computed from the grid it uses), so the "
                "guarantee and its audit hold on both",
            ),
            f"{_SW}x__exp_tail_series__mutmut_9": (
                "range(2, 31)",
                "one more term, below epsilon**30 / 30! < 1e-40 of the sum for "
                "epsilon < 1/2",
            ),
            f"{_SW}x__square_wave_terms__mutmut_3": (
                "if epsilon <= 0.5:",
                "at epsilon = 0.5 the series and the expm1 form agree to "
                "rounding (both accurate there)",
            ),
            f"{_SW}x__exp_tail_over_square__mutmut_9": (
                "range(3, 31)",
                "the extra term epsilon**28 / 30! is below 1.5e-41 for "
                "epsilon < 1/2 (the only budgets the series serves), under "
                "half an ulp (>= 2.7e-17) of a sum above 0.42: bit-identical",
            ),
            f"{_SW}x__square_wave_terms__mutmut_37": (
                "if epsilon <= _DIRECT_LIMIT:",
                "differs only at epsilon = 709.0 exactly, where the quotient "
                "and the e^-epsilon form give the same double, "
                "0x1.832b6579fe167p-1015, and raise no floating-point flag",
            ),
            f"{_SW}x__square_wave_terms__mutmut_4": (
                "if epsilon < 1.5:",
                "the series with terms to k = 29 is accurate to double "
                "precision up to epsilon = 1.5 as well (the last term is "
                "below 1e-27 of the sum)",
            ),
            f"{_SWL}_calibrate__mutmut_9": (
                "if w <= 2.0**-GRID_BITS:",
                "differs only when the half-width w is exactly 2**-20, which "
                "no budget is known to give (w is a transcendental function of "
                "epsilon)",
            ),
            f"{_SWL}_release__mutmut_8": (
                "np.clip(np.rint(v * n), None, n)",
                "transform refuses values outside the bounds before _release, "
                "so v * n >= 0: the lower clip never acts",
            ),
            f"{_SWL}_release__mutmut_9": (
                "np.clip(np.rint(v * n), 0, None)",
                "likewise v <= 1, so rint(v * n) <= n: the upper clip never acts",
            ),
            f"{_SWL}_release__mutmut_18": (
                "<= self._p_far",
                "U = p_far exactly has probability 2**-53 at most",
            ),
            f"{_SWL}_release__mutmut_34": (
                "astype(None)",
                "astype(None) is astype(float64)",
            ),
            f"{_SWL}_release__mutmut_66": (
                "> 1.0 / (1.0 + self._near_odds)",
                "U equal to the threshold has probability 2**-53 at most",
            ),
            f"{_SWL}_release__mutmut_86": (
                "np.where(u <= v,",
                "U = v exactly has probability 2**-53 at most",
            ),
        },
    ),
    "additive": ModuleSpec(
        path="skprivate/ldp/_additive.py",
        # nearly every test fits a privatizer, so every mutant of the
        # calibration runs all of them: one or a few cases of each
        # parametrized test (a whole sweep took about a minute per mutant on
        # the shared machine), and the grid laws of these two families only
        tests=[
            "tests/ldp/test_additive.py::test_calibration_reaches_delta",
            "tests/ldp/test_additive.py::test_baseline_bad_input",
            "tests/ldp/test_additive.py::test_reported_delta_is_the_grid_laws",
            *(
                "tests/ldp/test_additive.py::"
                f"test_flipped_huber_meets_delta_at_every_epsilon[{p}]"
                for p in ("1e-05-1.0", "1e-09-1000.0", "0.001-0.01")
            ),
            *(
                "tests/ldp/test_additive.py::"
                f"test_generalized_gaussian_meets_delta_at_every_epsilon[{p}]"
                for p in ("1.0-1.0", "2.0-100.0", "5.0-0.01")
            ),
            "tests/ldp/test_additive.py::"
            "test_refusals_name_epsilon_and_the_accepted_limit",
            "tests/ldp/test_sampler_support.py::"
            "test_generalized_gaussian_every_output_is_reachable[18-2.0]",
            "tests/ldp/test_sampler_support.py::"
            "test_flipped_huber_every_output_is_reachable[18]",
            "tests/ldp/test_sampler_support.py::"
            "test_flipped_huber_refuses_budgets_below_its_resolution",
            "tests/test_grid_sampler_laws.py::test_generalized_gaussian_grid_law",
            "tests/test_grid_sampler_laws.py::test_flipped_huber_grid_law",
        ],
        new_tests=[
            "tests/test_mutation_ldp.py",
            "tests/test_mutation_additive.py",
            "tests/ldp/test_wide_bounds.py",
        ],
        equivalent={
            f"{_ADD}x__flipped_huber_threshold__mutmut_19": (
                "lo = np.log(s) - 13.0",
                "lo only brackets the root (a wider bracket finds the same "
                "threshold to xtol) and guards a return that no accepted delta "
                "reaches: at a threshold of e**-12 Laplace scales the noise is "
                "Gaussian with deviation e**-6 scales, whose delta at any "
                "epsilon is 1 - 1e-8000 or more",
            ),
            f"{_ADD}x__flipped_huber_threshold__mutmut_36": (
                "if gap(lo) < 0:",
                "as x__flipped_huber_threshold__mutmut_19 (gap(lo) is never <= 0)",
            ),
            f"{_ADD}x__flipped_huber_threshold__mutmut_32": (
                "if gap(hi) >= 0:",
                "differs only when the delta at the largest threshold equals "
                "the budget exactly, a measure-zero coincidence of a computed "
                "profile",
            ),
            f"{_ADD}x__flipped_huber_threshold__mutmut_11": (
                "return _released_delta(law, D, eps, None) - delta",
                _FH_FLAT,
            ),
            f"{_FH}_calibrate__mutmut_39": (
                "key[0], s, eps, delta, self.epsilon, self.delta, None",
                _FH_FLAT,
            ),
            f"{_FH}_calibrate__mutmut_48": (
                "key[0], s, eps, delta, self.epsilon, self.delta, bool(None)",
                _FH_FLAT,
            ),
            f"{_FH}_calibrate__mutmut_60": (
                "np.asarray(sensitivity / eps, dtype=None)",
                "sensitivity / eps is a float64 array already",
            ),
            f"{_FH}_calibrate__mutmut_62": (
                "np.asarray(sensitivity / eps, )",
                "as _calibrate__mutmut_60",
            ),
            f"{_FH}_calibrate__mutmut_66": (
                "np.asarray(thresholds, dtype=None)",
                "the thresholds are Python floats: asarray makes float64 of them",
            ),
            f"{_FH}_calibrate__mutmut_68": (
                "np.asarray(thresholds, )",
                "as _calibrate__mutmut_66",
            ),
            f"{_AP}_release__mutmut_9": (
                "noise.reshape(None)",
                "column_stack of one length-n column per feature is already "
                "X.shape (X is always 2-d), and numpy's reshape(None) keeps the "
                "shape",
            ),
            f"{_AP}_release__mutmut_11": (
                "return X - noise",
                "both noise laws are symmetric: x - Z has the law of x + Z "
                "(only the seeded stream's values change, and no seeded value is "
                "documented)",
            ),
            f"{_AP}_delta_summary__mutmut_13": (
                "if self.secure or exact is not None:",
                "after fit _delta_exact is a list exactly when secure is true "
                "(_settle_delta sets None otherwise), and a changed secure is "
                "refused before the summary: 'or' and 'and' agree",
            ),
            f"{_AP}_release__mutmut_15": (
                "np.clip(np.rint((X - low) / step), None, self._n_cells)",
                "values are clipped into the bounds (or refused) before "
                "_release, so (X - low) / step >= 0: the lower clip never acts",
            ),
            f"{_AP}_release__mutmut_16": (
                "np.clip(np.rint((X - low) / step), 0, None)",
                "likewise X <= high, so rint((X - low) / step) <= n: the upper "
                "clip never acts",
            ),
            **{
                f"{_AP}_delta_summary__mutmut_{n}": (line, _DEAD_GRID_BRANCH)
                for n, line in [
                    (38, "profiles[key] = None"),
                    (39, "None, D, eps, int(self._n_cells[j]), int(self._margin[j])"),
                    (40, "law, None, eps, int(self._n_cells[j]), int(self._margin[j])"),
                    (41, "law, D, None, int(self._n_cells[j]), int(self._margin[j])"),
                    (42, "law, D, eps, None, int(self._margin[j])"),
                    (43, "law, D, eps, int(self._n_cells[j]), None"),
                    (44, "D, eps, int(self._n_cells[j]), int(self._margin[j])"),
                    (45, "law, eps, int(self._n_cells[j]), int(self._margin[j])"),
                    (46, "law, D, int(self._n_cells[j]), int(self._margin[j])"),
                    (47, "law, D, eps, int(self._margin[j])"),
                    (48, "law, D, eps, int(self._n_cells[j]), )"),
                    (49, "law, D, eps, int(None), int(self._margin[j])"),
                    (50, "law, D, eps, int(self._n_cells[j]), int(None)"),
                ]
            },
            f"{_ADD}x__generalized_gaussian_scale__mutmut_47": (
                "lo = np.log(D) - np.log(max(eps, 2.0)) - 10.0",
                "lo only brackets the root (a wider bracket finds the same "
                "scale to xtol) and guards a refusal no budget reaches: noise "
                "of scale D e**-10 / max(eps, 1) has, already as Laplace noise "
                "(power 1, the heaviest tails), delta = 1 - exp((eps - D / "
                "scale) / 2) >= 1 - e**-11000 at every epsilon, and power > 1 "
                "only adds to it",
            ),
            f"{_ADD}x__generalized_gaussian_scale__mutmut_67": (
                "if not gap(hi) <= 0:",
                "differs only when the delta at the largest scale equals the "
                "budget exactly, a measure-zero coincidence of a computed profile",
            ),
            f"{_ADD}x__generalized_gaussian_scale__mutmut_97": (
                "if not gap(lo) >= 0:",
                "differs only when the delta at the smallest scale equals the "
                "budget exactly, a measure-zero coincidence of a computed profile",
            ),
            f"{_ADD}x__limit_text__mutmut_10": (
                "step = decimal.Decimal(2).scaleb(exact.adjusted() - 3)",
                "quantize reads only the exponent of its argument: 2e(k-3) and "
                "1e(k-3) round to the same place",
            ),
            **{
                name: (
                    text,
                    "_limit_text reads smallest for truth: None rounds "
                    "down as False does",
                )
                for name, text in (
                    (
                        f"{_ADD}x__generalized_gaussian_scale__mutmut_118",
                        "_limit_text(limit * q, None)",
                    ),
                    (
                        f"{_AP}_largest_epsilon_text__mutmut_16",
                        "_limit_text(limit * self.n_features_in_, None)",
                    ),
                )
            },
            f"{_AP}_settle_delta__mutmut_2": (
                'self._delta_exact = ""',
                "_delta_exact is read only when secure is true (_delta_summary), "
                "and this branch is the insecure one",
            ),
            f"{_AP}_settle_delta__mutmut_11": (
                "if worst >= target and factor > 0.5:",
                "differs only when the exact delta, rounded up, equals the "
                "budget exactly (a measure-zero coincidence); then one more "
                "calibration, to a budget 1e-9 lower",
            ),
            f"{_AP}_settle_delta__mutmut_12": (
                "if worst > target and factor >= 0.5:",
                "factor is a product of ratios target / worst times (1 - 1e-9): "
                "it is never exactly 0.5",
            ),
            f"{_AP}_exact_deltas__mutmut_25": (
                "float(self.bounds_[1][j]),",
                "the exact delta of a grid law does not depend on where the "
                "bounds lie (they only label its inputs and outputs); the key "
                "keeps the upper bound twice and still separates every law",
            ),
            f"{_AP}_exact_deltas__mutmut_33": (
                "if len(_EXACT_DELTAS) > 512:",
                "the table is emptied one entry later: only its size and the "
                "time of a refit change, never a value",
            ),
            f"{_AP}_exact_deltas__mutmut_34": (
                "if len(_EXACT_DELTAS) >= 513:",
                "as _exact_deltas__mutmut_33",
            ),
            **{
                f"{_ADD}x__clamp_distance__mutmut_{n}": (
                    line,
                    "another bracket of the same root, found to the same "
                    "tolerance: brentq returns log t within xtol = 1e-6 of a "
                    "sign change of the gap, and every bracket here holds one "
                    "(the gap is above 0 at e**-6 scales for every law the "
                    "privatizers build, the narrowest being flipped Huber at "
                    "its smallest threshold e**-12 scales, a Gaussian of "
                    "deviation e**-6 scales; the loop makes gap(hi) <= 0), so "
                    "the distance is within e**1e-6 - 1 = 1e-6 relative of the "
                    "exact one for the original and the mutant alike (measured "
                    "over powers 1 to 30 and flipped Huber thresholds e**-12 to "
                    "1e4 scales: 2.2e-7 at most, the original 8e-8). The clamp "
                    "in steps, ceil(t / step), moves with t by up to 1e-6 t / "
                    "step steps, as the original's does (at scale 123, width 1: "
                    "mutant 11 moves the Laplace clamp 20 steps of 2.5e9, and "
                    "the original is 62 steps past the exact ceiling at power "
                    "1.5), so no input makes the clamp exact beyond that "
                    "tolerance; the delta reported is the exact one of the "
                    "clamp used (the calibration and _exact_deltas read the "
                    "same _margin), and no refusal depends on the clamp "
                    "(_set_grid refuses on n and the steps per scale only)",
                )
                for n, line in [
                    (10, "np.log(law.scale) - 6.0, np.log(law.scale) + 5.0"),
                    (11, "np.log(law.scale) - 5.0, np.log(law.scale) - 5.0"),
                    (13, "np.log(law.scale) - 5.0, np.log(law.scale) + 6.0"),
                ]
            },
            f"{_ADD}x__clamp_distance__mutmut_29": (
                "return float(np.exp(optimize.brentq(gap, lo, hi, )))",
                "brentq's default xtol (2e-12 + 9e-16 |log t|) instead of 1e-6: "
                "the same root of the same gap, found closer, so the mutant's "
                "distance is never farther from the exact one than the "
                "original's 1e-6 relative tolerance allows; where the two "
                "clamps differ in steps (as for mutant 11), the mutant's is "
                "the nearer to the exact ceiling and the original's the one "
                "moved by its tolerance, so a test telling them apart would "
                "pin the original's rounding; the delta reported is that of "
                "the clamp used, and no refusal depends on the clamp",
            ),
            **{
                f"{_ADD}x__clamp_distance__mutmut_{n}": (line, _CLAMP_LOOP)
                for n, line in [
                    (15, "while gap(hi) >= 0:"),
                    (16, "while gap(hi) > 1:"),
                    (17, "hi = 2.0"),
                    (18, "hi -= 2.0"),
                    (19, "hi += 3.0"),
                ]
            },
            **{
                f"{_ADD}{name}__mutmut_{n}": (
                    line,
                    "the profile's value is checked (NaN: no limit, or the "
                    "refusal of a budget beyond floating point); far below the "
                    "range its terms overflow or turn invalid, never divide by "
                    "zero, so the divide flag's setting raises no warning",
                )
                for name, n, line in [
                    ("x__epsilon_limit", 3, 'invalid="ignore", divide=None)'),
                    ("x__epsilon_limit", 6, 'invalid="ignore", ):'),
                    ("x__generalized_gaussian_scale", 9, "divide=None)"),
                    ("x__generalized_gaussian_scale", 12, 'invalid="ignore", ):'),
                ]
            },
            f"{_ADD}x__grid_cells__mutmut_8": (
                "np.errstate(over=None)",
                "the grid's count of cells overflows only for a scale far "
                "below the range, which only the calibration's search tries, "
                "inside its own errstate ignoring overflow; a calibrated law's "
                "grid never overflows (MAX_GRID_INDEX refuses far earlier)",
            ),
            f"{_ADD}x__epsilon_limit__mutmut_35": (
                "np.log(1000000000001.0)",
                "moves the end of the bracket by 1e-12 relative: the same root "
                "for every limit below 1e12 (a limit beyond is refused either way)",
            ),
            f"{_ADD}x__epsilon_limit__mutmut_37": (
                "if gap(lo) >= 0 > gap(hi):",
                "differs only when the profile at epsilon 1e-12 equals delta "
                "exactly, a measure-zero coincidence of a computed profile",
            ),
            f"{_ADD}x__epsilon_limit__mutmut_39": (
                "if gap(lo) > 0 >= gap(hi):",
                "differs only when the profile at epsilon 1e12 equals delta "
                "exactly (it is 0 there for every law and width the "
                "privatizers accept)",
            ),
            f"{_ADD}x__epsilon_limit__mutmut_50": (
                "return float(np.exp(optimize.brentq(gap, lo, hi, )))",
                "brentq's default xtol (2e-12 + 9e-16 |log eps|) instead of "
                "1e-6 on log epsilon: the same root of the same computed "
                "profile, found closer (measured over Laplace, powers 1.05 to "
                "30 and flipped Huber, scales 1e-6 to 1e6, deltas 0.5 to "
                "1e-200: the limits differ by 6.6e-7 relative at most, within "
                "70 iterations, under brentq's 100). The limit only words a "
                "refusal already decided, to 4 significant digits: the texts "
                "can differ only for a limit within 1e-6 relative of a "
                "rounding boundary, and there the mutant's is the one nearer "
                "the root, so no input makes the mutant's text wrong where "
                "the original's is right",
            ),
            f"{_ADD}x__safe_root__mutmut_9": (
                "x = optimize.brentq(gap, lo, hi, )",
                "brentq's default xtol (2e-12) instead of xtol = 1e-10 for the "
                "start of the move: both starts lie within their xtol of a "
                "sign change of the gap, and both are then moved up by xtol, "
                "2 xtol, ... until the computed excess is not positive, so "
                "both return a log noise level on the safe side within about "
                "3e-10 of the root (the documented contract), the mutant's "
                "the nearer. A refusal can differ only for a root within "
                "about 3e-10 of the search's upper end hi (a move capped at hi "
                "gives the scale exp(hi), which can round one unit above "
                "2**24 D, the largest the grid accepts): for a budget within "
                "that tolerance of the smallest accepted one, whether the "
                "move stops at hi depends on where the start fell within its "
                "xtol, for the original as for the mutant, so no test can "
                "call one of them right there; the exact delta is checked "
                "after the calibration either way. Measured on 18 fits (both "
                "families, epsilon "
                "0.05 to 8, delta 1e-5 and 1e-9): noise levels within 1e-10 "
                "relative, every delta within its budget",
            ),
            f"{_ADD}x__safe_root__mutmut_13": (
                "while gap(x) >= 0 and x < hi:",
                "differs only when the computed excess is exactly 0, a "
                "measure-zero coincidence; one more step of xtol then",
            ),
            f"{_ADD}x__safe_root__mutmut_15": (
                "while gap(x) > 0 and x <= hi:",
                "x reaches hi at the latest, where every caller has checked "
                "gap(hi) < 0: the loop stops there either way",
            ),
            f"{_GGL}_calibrate__mutmut_36": (
                "dtype=None)",
                "the scales are Python floats: np.array makes float64 of them",
            ),
            f"{_GGL}_calibrate__mutmut_38": (
                "self.scale_ = np.array([law.scale for law in self.noise_], )",
                "as _calibrate__mutmut_36",
            ),
            f"{_AP}_delta_summary__mutmut_10": (
                'exact = getattr(self, "_delta_exact", )',
                "every fit sets _delta_exact (_settle_delta), and the summary "
                "needs a fitted privatizer: the default is never read",
            ),
            **{
                f"{_AP}{name}__mutmut_{n}": (line, _SAME_LENGTHS)
                for name, n, line in [
                    ("_delta_summary", 28, "high - low, strict=None)"),
                    ("_delta_summary", 31, "zip(self.noise_, high - low, )"),
                    ("_delta_summary", 33, "high - low, strict=False)"),
                    ("_set_grid", 8, "self.noise_, strict=None)"),
                    ("_set_grid", 11, "zip(sensitivity, self.noise_, )"),
                    ("_set_grid", 12, "self.noise_, strict=False)"),
                ]
            },
            f"{_AP}_delta_summary__mutmut_35": (
                "key = (id(None), float(D))",
                _BY_WIDTH,
            ),
            f"{_AP}_set_grid__mutmut_14": ("key = (id(None), float(D))", _BY_WIDTH),
            f"{_AP}_exact_deltas__mutmut_18": (
                'getattr(law, "beta", None)',
                "every noise law has a power (generalized Gaussian) or a beta "
                "(flipped Huber): the innermost default is never read",
            ),
            **{
                f"{_AP}_set_grid__mutmut_{n}": (
                    line,
                    "only read when no smallest epsilon can be computed: "
                    "FlippedHuberLDP's is range / scale, never None, and "
                    "GeneralizedGaussianLDP never reaches this refusal (its "
                    "calibration stops at scale 2**24 ranges, 2**44 grid steps "
                    "per scale at most)",
                )
                for n, line in [(48, "smallest = None"), (49, 'smallest = "XXXX"')]
            },
        },
    ),
}


#: The rest of the priority list, not yet configured above (in order).
NOT_YET: list[str] = []


def _more_specs() -> None:
    # each area's guarantee modules may live in benchmarks/_mutation_specs_<area>.py
    # (a dict SPECS of ModuleSpec), added after the modules above, in name order
    for path in sorted(Path(__file__).parent.glob("_mutation_specs_*.py")):
        module = importlib.import_module(f".{path.stem}", __package__)
        MODULES.update(module.SPECS)


_more_specs()
