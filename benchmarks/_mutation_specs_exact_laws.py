"""Mutation specs of the exact output laws and of the audit that certifies them.

Each privatizer's ``exact_law`` describes the law its ``secure=True``
sampler implements on the grid; the audit (``skprivate/_audit``) computes
the privacy loss of the deployed object from it.  A wrong law, or a wrong
worst case of a law, would certify a figure the sampler does not keep, so
these modules are guarantee code like the samplers.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec

_LDP = "skprivate.ldp._exact_laws."
_FLOAT_IN = (
    "the audit passes float64 offsets (RoundedNoise converts them), and the "
    "result is divided by a float scale: asarray without a dtype gives the "
    "same float64 values"
)
_KNEE = (
    "at the boundary value both branches give the same number (the law is "
    "continuous there: the centre expression reduces to the tail's, or the "
    "two halves of a symmetric CDF meet at 1/2)"
)
_LABEL_ZERO = (
    "index 0 is then labelled origin + 0 * step, and the origin is the low "
    "bound: the same label"
)
_INDEX_IN_RANGE = (
    "a fitted LaplaceLDP sets k_lo = floor(low / step) and k_hi = ceil(high / "
    "step), so rint(low / step) <= k_hi and rint(high / step) >= k_lo always: "
    "the removed side of the clip never acts"
)

_AUDIT_TESTS = [
    "tests/test_audit.py",
    "tests/test_privacy_report_audit.py",
]
_ENGINE_TESTS = [
    *_AUDIT_TESTS,
    "tests/negative_survey/test_audit_windows.py",
    "tests/test_mutation_exact_laws.py",
]

SPECS: dict[str, ModuleSpec] = {
    # the Laplace, generalized Gaussian, flipped Huber and Square Wave laws
    "ldp_exact_laws": ModuleSpec(
        path="skprivate/ldp/_exact_laws.py",
        tests=[
            *_AUDIT_TESTS,
            "tests/test_mutation_ldp.py",
            "tests/test_mutation_square_wave.py",
        ],
        new_tests=["tests/test_mutation_exact_laws.py"],
        equivalent={
            **{
                f"{_LDP}{name}": (line, _FLOAT_IN)
                for name, line in (
                    (
                        "x__flipped_huber_log_cdf__mutmut_40",
                        "np.asarray(t, dtype=None)",
                    ),
                    ("x__flipped_huber_log_cdf__mutmut_42", "np.asarray(t, )"),
                    (
                        "x__generalized_gaussian_log_cdf__mutmut_10",
                        "np.asarray(t, dtype=None)",
                    ),
                    ("x__generalized_gaussian_log_cdf__mutmut_12", "np.asarray(t, )"),
                    ("x_laplace_exact_law__mutmut_43", "np.asarray(t, dtype=None) / s"),
                    ("x_laplace_exact_law__mutmut_45", "np.asarray(t, ) / s"),
                    ("x_laplace_exact_law__mutmut_49", "np.asarray(t1, dtype=None)"),
                    ("x_laplace_exact_law__mutmut_51", "np.asarray(t1, )"),
                    ("x_laplace_exact_law__mutmut_53", "np.asarray(t2, dtype=None)"),
                    ("x_laplace_exact_law__mutmut_55", "np.asarray(t2, )"),
                )
            },
            **{
                f"{_LDP}{name}": (
                    "with mpmath.workdps(41):",
                    "one more working digit for the quotient of the scale and the "
                    "step: it moves below 1e-40 relative, under what the audit's "
                    "40-digit evaluation resolves",
                )
                for name in (
                    "x__flipped_huber_cdf_precise__mutmut_2",
                    "x__generalized_gaussian_cdf_precise__mutmut_2",
                )
            },
            **{
                f"{_LDP}{name}": (line, _KNEE)
                for name, line in (
                    ("x__flipped_huber_cdf_precise__mutmut_24", "if u < -beta:"),
                    (
                        "x__flipped_huber_cdf_precise__mutmut_46",
                        "below(u) / norm if u < 0 else 1 - below(-u) / norm",
                    ),
                    (
                        "x__flipped_huber_log_cdf__mutmut_82",
                        "np.where(u < -beta, gauss, middle) - log_norm",
                    ),
                    (
                        "x__generalized_gaussian_cdf_precise__mutmut_30",
                        "half_tail if t < 0 else 1 - half_tail",
                    ),
                )
            },
            f"{_LDP}x__flipped_huber_log_cdf__mutmut_58": (
                "with np.errstate(invalid=None):",
                "no operation of the block is invalid for t <= 0 or -inf "
                "(log1mexp(0) is -inf without a floating-point error), so the "
                "state it sets is never used",
            ),
            f"{_LDP}x__flipped_huber_log_cdf__mutmut_74": (
                "np.minimum(-beta - u, 1.0)",
                "changes the centre expression only where u <= -beta, where "
                "np.where takes the Gaussian tail instead (the NaN it makes "
                "there is discarded; the block ignores invalid operations)",
            ),
            **{
                f"{_LDP}x__generalized_gaussian_cdf_precise__mutmut_{i}": (
                    line,
                    "mpmath.gammainc's upper limit is infinite by default and for None",
                )
                for i, line in (
                    (15, "(abs(t) / sigma) ** power, None, regularized=True"),
                    (19, "(abs(t) / sigma) ** power, regularized=True"),
                )
            },
            **{
                f"{_LDP}{name}": (line, _LABEL_ZERO)
                for name, line in (
                    (
                        "x_additive_exact_law__mutmut_48",
                        "_labels(low, high, None, n, low, step)",
                    ),
                    (
                        "x_square_wave_exact_law__mutmut_48",
                        "_labels(low, high, None, n, low, step)",
                    ),
                )
            },
            **{
                f"{_LDP}{name}": (line, _INDEX_IN_RANGE)
                for name, line in (
                    (
                        "x_laplace_exact_law__mutmut_19",
                        "np.clip(np.rint(low / step), k_lo, None)",
                    ),
                    (
                        "x_laplace_exact_law__mutmut_28",
                        "np.clip(np.rint(high / step), None, k_hi)",
                    ),
                )
            },
        },
    ),
    # the worst case of a rounded shift law (Laplace, generalized Gaussian,
    # flipped Huber on a grid): epsilon over the input pairs and outputs,
    # delta by the hockey-stick divergence
    "audit_shift": ModuleSpec(
        path="skprivate/_audit/_shift.py",
        tests=_ENGINE_TESTS,
        new_tests=["tests/test_mutation_audit.py"],
    ),
    # the band and matrix laws (Square Wave, subset privacy)
    "audit_finite": ModuleSpec(
        path="skprivate/_audit/_finite.py",
        tests=_ENGINE_TESTS,
        new_tests=["tests/test_mutation_audit.py"],
    ),
    # the interval release's infinite loss, with its witness pair
    "interval_exact_laws": ModuleSpec(
        path="skprivate/interval/_exact_laws.py",
        tests=[*_AUDIT_TESTS, "tests/test_mutation_interval_mechanism.py"],
        new_tests=["tests/test_mutation_exact_laws.py"],
    ),
    # the subset designs' report tables (independent, conditional, dummies)
    "subset_exact_laws": ModuleSpec(
        path="skprivate/subset/_exact_laws.py",
        tests=[*_AUDIT_TESTS, "tests/subset/test_design.py"],
        new_tests=["tests/test_mutation_exact_laws.py"],
    ),
    # the negative survey's windowed claim: the grid law it is audited on
    "rvns_exact_laws": ModuleSpec(
        path="skprivate/negative_survey/_exact_laws.py",
        tests=[
            *_AUDIT_TESTS,
            "tests/negative_survey/test_audit_windows.py",
            "tests/test_mutation_negative_survey.py",
        ],
        new_tests=["tests/test_mutation_exact_laws.py"],
    ),
    # the worst window tuple of the negative survey's grid law
    "rvns_window_audit": ModuleSpec(
        path="skprivate/negative_survey/_window_audit.py",
        tests=[
            *_AUDIT_TESTS,
            "tests/negative_survey/test_audit_windows.py",
            "tests/test_mutation_negative_survey.py",
        ],
        new_tests=["tests/test_mutation_audit.py"],
    ),
}
