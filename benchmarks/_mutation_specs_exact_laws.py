"""Mutation specs of the exact output laws and of the audit that certifies them.

Each privatizer's ``exact_law`` describes the law its ``secure=True``
sampler implements on the grid; the audit (``skprivate/_audit``) computes
the privacy loss of the deployed object from it.  A wrong law, or a wrong
worst case of a law, would certify a figure the sampler does not keep, so
these modules are guarantee code like the samplers.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

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

_SH = "skprivate._audit._shift."
_RN = f"{_SH}xǁRoundedNoiseǁ"
_SL = f"{_SH}xǁShiftLawǁ"
_GRID_OFFSETS = (
    "the offsets are grid indices or float64 already, and every use adds a "
    "float (1/2) or passes them to a function that converts them: asarray "
    "without a dtype gives the same values"
)
_WINDOW = (
    "the thresholds scored are t* - 8 .. t* + 8 around the bisection's answer "
    "t* (clipped to the clamps), a window that absorbs a wavering ratio test: "
    "this change moves t* by at most two, or only where the predicate never "
    "holds, and the window still holds the best threshold"
)
_OUTSIDE = (
    "thresholds beyond the clamps are scored by the unclamped tails, whose "
    "gap rises up to the threshold t* and falls after it, so they score no "
    "more than the ones inside: the maximum is the same"
)
_SHIFT_EQUIVALENT = {
    **{
        f"{_RN}{name}": (line, _GRID_OFFSETS)
        for name, line in (
            ("_log_cdf__mutmut_3", "np.asarray(t, dtype=None)"),
            ("_log_cdf__mutmut_5", "np.asarray(t, )"),
            ("log_tail_ratio__mutmut_3", "np.asarray(n1, dtype=None)"),
            ("log_tail_ratio__mutmut_5", "np.asarray(n1, )"),
            ("log_tail_ratio__mutmut_8", "np.asarray(n2, dtype=None)"),
            ("log_tail_ratio__mutmut_10", "np.asarray(n2, )"),
            ("log_tail_ratio__mutmut_31", "(t1, t2), dtype=None)"),
            ("log_tail_ratio__mutmut_33", "(t1, t2), )"),
            ("logcdf__mutmut_4", "np.asarray(n, dtype=None) + 0.5"),
            ("logcdf__mutmut_6", "np.asarray(n, ) + 0.5"),
            ("logpmf__mutmut_4", "np.asarray(n, dtype=None)"),
            ("logpmf__mutmut_6", "np.asarray(n, )"),
            ("logsf__mutmut_5", "np.asarray(n, dtype=None)"),
            ("logsf__mutmut_7", "np.asarray(n, )"),
        )
    },
    **{
        f"{_SL}{name}": (line, _GRID_OFFSETS)
        for name, line in (
            ("log_prob__mutmut_3", "np.asarray(k, dtype=None)"),
            ("log_prob__mutmut_5", "np.asarray(k, )"),
            ("log_prob__mutmut_8", "np.asarray(m, dtype=None)"),
            ("log_prob__mutmut_10", "np.asarray(m, )"),
        )
    },
    f"{_RN}_log_cdf__mutmut_16": (
        "np.where(t < 0, low, log1mexp(low))",
        "at t = 0 both branches give log 1/2 (log1mexp(log 1/2) = log 1/2)",
    ),
    **{
        f"{_RN}log_tail_ratio__mutmut_{k}": (
            line,
            "t1 and t2 are n + 1/2 or 1/2 - n for integer n, never 0",
        )
        for k, line in ((26, "(t1 < 0) & (t2 <= 0)"), (28, "(t1 <= 0) & (t2 < 0)"))
    },
    f"{_SL}_clamp_ratios__mutmut_11": (
        "upper=None)",
        "None is falsy like False: the lower tails, as before",
    ),
    **{
        f"{_SL}_last_true__mutmut_{k}": (line, _WINDOW)
        for k, line in (
            (1, "if lo > hi and not pred(lo):"),
            (2, "if lo >= hi or not pred(lo):"),
            (5, "return lo + 1"),
            (6, "return lo - 2"),
            (12, "mid = (lo + hi + 2) // 2"),
            (18, "hi = mid - 2"),
        )
    },
    **{
        f"{_SL}worst_delta__mutmut_{k}": (line, _WINDOW)
        for k, line in (
            (76, "self.c_lo - 1, self.c_hi - 1, lambda t"),
            (77, "self.c_lo + 2, self.c_hi - 1, lambda t"),
            (78, "self.c_lo + 1, self.c_hi + 1, lambda t"),
            (79, "self.c_lo + 1, self.c_hi - 2, lambda t"),
            (123, "-(self.c_hi + 1), -(self.c_lo + 1), lambda s"),
            (124, "-(self.c_hi - 2), -(self.c_lo + 1), lambda s"),
            (126, "-(self.c_hi - 1), -(self.c_lo - 1), lambda s"),
            (127, "-(self.c_hi - 1), -(self.c_lo + 2), lambda s"),
            (100, "np.arange(t_star - 9, t_star + 9)"),
            (102, "np.arange(t_star - 8, t_star + 10)"),
            (149, "np.arange(u_star - 9, u_star + 9)"),
            (151, "np.arange(u_star - 8, u_star + 10)"),
        )
    },
    **{
        f"{_SL}worst_delta__mutmut_{k}": (line, _OUTSIDE)
        for k, line in (
            (90, "t_star + 9), None, self.c_hi - 1)"),
            (91, "t_star + 9), self.c_lo, None)"),
            (103, "t_star + 9), self.c_lo, self.c_hi + 1)"),
            (139, "u_star + 9), None, self.c_hi)"),
            (140, "u_star + 9), self.c_lo + 1, None)"),
            (152, "u_star + 9), self.c_lo - 1, self.c_hi)"),
        )
    },
    f"{_SL}worst_delta__mutmut_23": (
        "np.errstate(invalid=None)",
        "an invalid operation there (both log probabilities -inf) gives NaN, "
        "which np.where sends to -inf either way; only a RuntimeWarning differs",
    ),
    **{
        f"{_SL}worst_delta__mutmut_{k}": (
            line,
            "for 0 <= d < 1 the kept branch is log_p + log1mexp(0) = -inf, the "
            "value of the other branch",
        )
        for k, line in (
            (32, "np.where(d <= 0, log_p"),
            (33, "np.where(d < 1, log_p"),
            (40, "np.minimum(d, 1.0)"),
        )
    },
    f"{_SL}worst_delta__mutmut_68": (
        "return ratio(t, first, second) >= eps",
        "the pmf ratio equals e**eps exactly only on a run of ties, the "
        "Laplace tails at eps = the loss itself, where delta is 0 whatever the "
        "threshold; elsewhere the threshold moves by at most one step (the "
        "window absorbs it)",
    ),
    f"{_SL}worst_delta__mutmut_183": (
        "if lower[i] > upper[j]:",
        "on a tie both half-lines attain the same delta: either pair and set "
        "is a correct witness of the same value",
    ),
    f"{_SH}x__show__mutmut_2": (
        "isinstance(value, float)) or True",
        "labels are grid values (floats) or indices (integers), and "
        "format(k, '.10g') of an integer is str(k)",
    ),
    f"{_SH}x__precise_gaps__mutmut_39": (
        "cdf(half - int(u) - b), cdf(half - int(u) + a)",
        "only a symmetric noise has the 40-digit CDF (RoundedNoise), and then "
        "the upper half-lines mirror the lower ones and tie with them; this "
        "change only lowers the upper gaps (a smaller argument of the CDF), "
        "so the lower maximum is reported either way",
    ),
    f"{_SH}x__precise_gaps__mutmut_15": (
        "if value >= 0 else -np.inf",
        "mpmath.log(0) is -inf: the same -inf",
    ),
    **{
        f"{_SH}{name}": (
            "with mpmath.workdps(41):",
            "one more working digit: the tests it decides and the gaps it "
            "computes move below 1e-40 relative",
        )
        for name in ("x__precise_gaps__mutmut_19", "x__precise_ratio_test__mutmut_12")
    },
    **{
        f"{_SH}x__precise_ratio_test__mutmut_{k}": (line, _WINDOW)
        for k, line in (
            (2, "half = mpmath.mpf(1) * 2"),
            (4, "half = mpmath.mpf(2) / 2"),
            (5, "half = mpmath.mpf(1) / 3"),
            (16, ">= mpmath.exp(mpmath.mpf(eps))"),
        )
    },
}

_BAND = "skprivate._audit._finite.xǁBandLawǁ"
_MATRIX = "skprivate._audit._finite.xǁMatrixLawǁ"
_FLOAT_TABLE = (
    "the log probabilities are float64 (log of probabilities, -inf for "
    "impossible outputs): asarray without a dtype gives the same table"
)
_FINITE_EQUIVALENT = {
    f"{_BAND}__post_init____mutmut_17": (
        "abs(total - 1.0) <= 1e-9",
        "differs only for a total exactly 1e-9 from one",
    ),
    f"{_BAND}worst_delta__mutmut_21": (
        "self.log_ratio <= 0 else 0.0",
        "at log_ratio = 0 both branches add 0",
    ),
    f"{_BAND}worst_delta__mutmut_27": (
        "if count == 0 or r < eps:",
        "at r = eps the formula gives count e**(level + r + log1mexp(0)) = 0, "
        "the value of the branch skipped",
    ),
    **{
        f"{_BAND}{name}": (
            line,
            "at log_ratio = 0 every output is equally likely under every "
            "input: delta and the loss are 0 and either order of the extreme "
            "pair is a witness",
        )
        for name, line in (
            ("worst_delta__mutmut_42", "if self.log_ratio > 0 else"),
            ("worst_epsilon__mutmut_22", "if self.log_ratio > 0 else"),
        )
    },
    **{
        f"{_MATRIX}{name}": (line, _FLOAT_TABLE)
        for name, line in (
            ("__post_init____mutmut_3", "np.asarray(self.log_prob, dtype=None)"),
            ("__post_init____mutmut_5", "np.asarray(self.log_prob, )"),
            ("worst_delta__mutmut_3", "np.asarray(self.log_prob, dtype=None)"),
            ("worst_delta__mutmut_5", "np.asarray(self.log_prob, )"),
            ("worst_epsilon__mutmut_3", "np.asarray(self.log_prob, dtype=None)"),
            ("worst_epsilon__mutmut_5", "np.asarray(self.log_prob, )"),
        )
    },
    **{
        f"{_MATRIX}{name}": (
            "np.errstate(invalid=None)",
            "the NaN of -inf - (-inf) is replaced by np.where before it is "
            "read; only a RuntimeWarning differs",
        )
        for name in ("worst_delta__mutmut_13", "worst_epsilon__mutmut_15")
    },
    **{
        f"{_MATRIX}worst_delta__mutmut_{k}": (
            line,
            "for 0 <= d < 1 the kept branch is exp(lp + log1mexp(0)) = 0, the "
            "value of the other branch",
        )
        for k, line in (
            (26, "d <= 0, np.exp("),
            (27, "d < 1, np.exp("),
            (35, "np.minimum(d, 1.0)"),
        )
    },
    **{
        f"{_MATRIX}worst_delta__mutmut_{k}": (
            line,
            "np.where has already sent every NaN of the difference to 0 (the "
            "exponential is read only where d < 0), so the terms hold no NaN",
        )
        for k, line in ((41, "np.nan_to_num(terms, )"), (42, "nan=1.0"))
    },
}

_SUB = "skprivate.subset._exact_laws."
_CLOSED = (
    "an independent design's subsets are closed under complement (the "
    "builder adds each missing complement, with probability 0 of being "
    "shown), so every report is a key of the shown probabilities and the "
    "reports are the subsets themselves"
)
_SUBSET_EQUIVALENT = {
    **{
        f"{_SUB}x__design_table__mutmut_{k}": (
            line,
            "the design stores integer masks and float64 probabilities: "
            "asarray without a dtype gives the same arrays",
        )
        for k, line in (
            (4, "np.asarray(design._masks, dtype=None)"),
            (6, "np.asarray(design._masks, )"),
            (19, "np.asarray(design._nu, dtype=None)"),
            (21, "np.asarray(design._nu, )"),
            (68, "np.asarray(design._mu, dtype=None)"),
            (70, "np.asarray(design._mu, )"),
        )
    },
    **{
        f"{_SUB}{name}": (line, "the two sequences have the same length")
        for name, line in (
            ("x__design_table__mutmut_28", "strict=None))"),
            ("x__design_table__mutmut_31", "nu.tolist(), ))"),
            ("x__design_table__mutmut_32", "strict=False))"),
            ("x_subset_exact_law__mutmut_17", "strict=None)"),
            ("x_subset_exact_law__mutmut_20", "keep, )"),
            ("x_subset_exact_law__mutmut_21", "strict=False)"),
        )
    },
    **{
        f"{_SUB}x__design_table__mutmut_{k}": (line, _CLOSED)
        for k, line in (
            (35, "set(masks.tolist()) & {full ^ m"),
            (37, "{full & m for m"),
            (44, "shown.get(mask, None) +"),
            (46, "shown.get(mask, ) +"),
            (47, "shown.get(mask, 1.0) +"),
            (49, "shown.get(full ^ mask, None)"),
            (51, "shown.get(full ^ mask, )"),
            (53, "shown.get(full ^ mask, 1.0)"),
            (62, "shown.get(m, None) for m"),
            (64, "shown.get(m, ) for m"),
            (65, "shown.get(m, 1.0) for m"),
        )
    },
    f"{_SUB}x__design_table__mutmut_81": (
        "[(m, -2) for m in reports]",
        "a report's dummy is read only as dummy < 0 (no dummy): -2 is labelled "
        "as -1 is",
    ),
    f"{_SUB}x_subset_exact_law__mutmut_11": (
        "table.sum(axis=0) >= 0",
        "every report of a design is possible for some category (a shown "
        "subset, its complement, or a dummy's report, each of positive "
        "probability), so no column is dropped either way",
    ),
    f"{_SUB}x_subset_exact_law__mutmut_43": (
        "np.errstate(divide=None)",
        "log(0) is -inf either way; only a RuntimeWarning differs",
    ),
}

_RV = "skprivate.negative_survey._exact_laws."
_MARGIN_STEPS = (
    "the grid step of the float-safe sampler is d / 2**24 (or finer) and the "
    "margin d / 780, so the audited inputs lie some 21,000 steps inside both "
    "ends: the clip at 0 never acts, at 0 or at 1"
)
_NO_EMPTY_RANGE = (
    "every column has d < b - a (refused otherwise) and the margin is d / "
    "780, so the inputs between the margins are never empty nor a single "
    "index: the refusal cannot be reached"
)
_RVNS_EQUIVALENT = {
    f"{_RV}x_rvns_exact_law__mutmut_55": ("- int(ja), 1), K)", _MARGIN_STEPS),
    f"{_RV}x_rvns_exact_law__mutmut_71": ("- int(ja), 1), K)", _MARGIN_STEPS),
    **{
        f"{_RV}x_rvns_exact_law__mutmut_{k}": (line, _NO_EMPTY_RANGE)
        for k, line in (
            (72, "if x_lo >= x_hi:"),
            (73, "None"),
            (74, "XXno input lies boundary_margin"),
            (75, "NO INPUT LIES BOUNDARY_MARGIN"),
            (76, "claim covers no value of this columnXX"),
            (77, "PLACEMENT'S CLAIM COVERS NO VALUE"),
        )
    },
}


_WA = "skprivate.negative_survey._window_audit."
_WL = _WA + "xǁGridWindowLawǁ"
_FIRST_REPLACES = (
    "every weight is >= 0, above the initial best: the first numerator "
    "replaces it whatever its initial value or input"
)
_ONE_POINT = (
    "on a piece of one band start only u = 0 is summed, where the line is g0 "
    "whatever its slope"
)
_CACHE_BOUND = "the bound of the cache's size: the values are the same"
_SHIFTS_SYMMETRIC = (
    "the shifts 0, D + 1, -(D + 1) are symmetric under negation: base - shift "
    "runs over the same positions as base + shift"
)
_WINDOW_AUDIT_EQUIVALENT = {
    f"{_WA}x__sum_product__mutmut_7": (
        "nxt = [0] * (len(poly) + 2)",
        "a trailing zero coefficient: the same sum",
    ),
    f"{_WA}x__sum_product__mutmut_12": (
        "nxt[i + 1] = c * beta",
        "nxt[i + 1] is first written at step i (steps before touch only "
        "nxt[:i + 1]) and added to at step i + 1: assigning it is adding to 0",
    ),
    f"{_WA}x__sum_product__mutmut_23": (
        "sums = _power_sums(n, len(poly) + 1)",
        "one power sum more, which zip leaves unread",
    ),
    f"{_WL}weight__mutmut_8": (
        "if all(hi < s_lo and lo > s_hi + self.D for lo, hi in wins):",
        "a shortcut never taken: the general sum gives the same weight",
    ),
    f"{_WL}weight__mutmut_44": ("if (q - p > 1) or True else g0", _ONE_POINT),
    f"{_WL}weight__mutmut_54": ("if q - p >= 1 else g0", _ONE_POINT),
    f"{_WL}weight__mutmut_75": ("if len(self._cache) <= 200_000:", _CACHE_BOUND),
    f"{_WL}weight__mutmut_76": ("if len(self._cache) < 200001:", _CACHE_BOUND),
    f"{_WL}weight__mutmut_25": (
        "for kink in (lo - self.D - 1, hi - self.D, lo, hi + 2):",
        "the points outside the band are affine in s on both closed sides of "
        "the kink at hi + 1 (where the overlap falls to 0), so a cut one start "
        "later leaves every piece affine and the exact sum unchanged",
    ),
    f"{_WL}weight__mutmut_26": (
        "if s_lo <= kink <= s_hi:",
        "the one kink it admits more, s_lo, is already in the set of cuts",
    ),
    f"{_WL}weight__mutmut_27": (
        "if s_lo < kink < s_hi:",
        "the points outside the band are continuous in s and affine on both "
        "closed sides of every kink, so without a cut at s_hi the last piece "
        "is still affine up to and including s_hi",
    ),
    f"{_WL}_centre_candidates__mutmut_35": (
        "raw.update((base - shift + t, base + shift - t))",
        _SHIFTS_SYMMETRIC,
    ),
    f"{_WL}_centre_candidates__mutmut_37": (
        "raw.update((base + shift + t, base - shift - t))",
        _SHIFTS_SYMMETRIC,
    ),
    f"{_WL}_centre_candidates__mutmut_50": (
        "for ell in (root - m, root - m + 1, 2 / m - m, m + 1):",
        "r0 + m and r1 - m are already r0 - 1 + (m + 1) and r1 + 1 - (m + 1); "
        "2 / m - m is 1 (r0 + 1, r1 - 1, already there as r0 - 1 + 2 and "
        "r1 + 1 - 2) for m = 1 and negative, outside the range, for m >= 2",
    ),
    f"{_WL}_centre_candidates__mutmut_52": (
        "for ell in (root - m, root - m + 1, 2 * m - m, m - 1):",
        "r0 + m + 1, r1 - m - 1 (dropped) are r0 - 1 + (m + 2), r1 + 1 - (m + 2) "
        "and r0 + m - 1, r1 - m + 1 (added) are r0 - 1 + m, r1 + 1 - m: the "
        "bases r0 - 1, r1 + 1 moved by the steps give the same set",
    ),
    f"{_WL}_climb__mutmut_14": (
        "step = 2 << max(span.bit_length(), 1)",
        "the one step more, above twice the report range's span, moves the "
        "input past every audited input or a window out of the range: no move "
        "is scored, and the later steps are the same",
    ),
    f"{_WL}_climb__mutmut_19": (
        "step = 1 << max(span.bit_length(), 2)",
        "the span is at least K >= 2 (K > D >= 1): its bit length is already >= 2",
    ),
    f"{_WL}_climb__mutmut_25": (
        "improved = None",
        "improved is read only by `while improved`, and is set to True on an "
        "improving move: None is falsy like False, so the loop ends alike",
    ),
    f"{_WL}_best_numerator__mutmut_13": ("best = (Fraction(-2), -1)", _FIRST_REPLACES),
    f"{_WL}_best_numerator__mutmut_14": ("best = (Fraction(-1), +1)", _FIRST_REPLACES),
    f"{_WL}_best_numerator__mutmut_15": ("best = (Fraction(-1), -2)", _FIRST_REPLACES),
}

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
        equivalent=_SHIFT_EQUIVALENT,
    ),
    # the band and matrix laws (Square Wave, subset privacy)
    "audit_finite": ModuleSpec(
        path="skprivate/_audit/_finite.py",
        tests=_ENGINE_TESTS,
        new_tests=["tests/test_mutation_audit.py"],
        equivalent=_FINITE_EQUIVALENT,
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
        new_tests=[
            "tests/test_mutation_exact_laws.py",
            "tests/subset/test_alone_probability.py",
        ],
        equivalent=_SUBSET_EQUIVALENT,
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
        equivalent=_RVNS_EQUIVALENT,
    ),
    # the worst window tuple of the negative survey's grid law
    "rvns_window_audit": ModuleSpec(
        path="skprivate/negative_survey/_window_audit.py",
        tests=[
            *_AUDIT_TESTS,
            "tests/negative_survey/test_audit_windows.py",
            "tests/test_mutation_negative_survey.py",
        ],
        new_tests=["tests/test_mutation_window_audit.py"],
        equivalent=_WINDOW_AUDIT_EQUIVALENT,
    ),
}

# the subset designs: their subsets and probabilities (uniform, independent,
# conditional, with dummy categories), the draws of ``sample`` and of the
# question side, and the quantities the estimator and the audit read
_SUBSET_DESIGN_TESTS = [
    *_all_but(
        "tests/subset/test_design.py",
        "test_privatizing_a_million_rows_is_vectorized",
        "test_pipeline_with_a_downstream_classifier",
    ),
    *(
        f"tests/test_mutation_exact_laws.py::{name}"
        for name in (
            "test_subset_exact_law_is_the_law_transform_draws",
            "test_subset_law_normalizes_probabilities_within_the_designs_tolerance",
            "test_subset_law_of_a_design_too_large_to_enumerate",
        )
    ),
    "tests/test_audit.py::test_subset_dummies_closed_form",
    "tests/test_audit.py::test_subset_without_dummies_is_infinite_two_columns",
]
_SD = "skprivate.subset._design."
_SDC = _SD + "xǁSubsetDesignǁ"
_INT64 = (
    "numpy's default integer is int64 on the platforms served, and every "
    "caller passes int64 masks or Python ints: the same values and dtype"
)
_FLOAT_SAME = (
    "a float64 array of the same 0/1 or numeric values: every use (np.where, "
    "comparisons, products) reads it alike"
)
_TIE = (
    "differs only when a uniform draw equals a threshold exactly "
    "(probability 2**-53 at most)"
)
_EDGE = "differs only for a sum exactly at the tolerance's edge"
_TOTAL_ONE = (
    "cum[-1] is the total probability, 1 to rounding (checked at build): "
    "dividing instead of multiplying moves a draw by at most a few ulps"
)
_NEVER_PAST = (
    "u * cum[-1] < cum[-1] for u < 1, so searchsorted never passes the last "
    "index and the bound never acts"
)
_SUBSET_DESIGN_EQUIVALENT = {
    f"{_SD}x__check_probabilities_vector__mutmut_3": ("dtype=None)", _FLOAT_SAME),
    f"{_SD}x__check_probabilities_vector__mutmut_5": (
        "prob = np.asarray(probabilities, )",
        _FLOAT_SAME,
    ),
    f"{_SD}x__check_subsets__mutmut_42": (
        "return sub.astype(None)",
        "0/1 floats: indicators_to_masks casts them to int64 and sums are the same",
    ),
    f"{_SD}x__check_sum__mutmut_6": ("if abs(total - 1.0) >= 1e-8:", _EDGE),
    f"{_SD}x_indicators_to_masks__mutmut_11": ("dtype=None))", _INT64),
    f"{_SD}x_indicators_to_masks__mutmut_13": ("np.arange(ind.shape[1], ))", _INT64),
    f"{_SD}x_masks_to_indicators__mutmut_3": (
        "masks = np.asarray(masks, dtype=None)",
        _INT64,
    ),
    f"{_SD}x_masks_to_indicators__mutmut_5": ("masks = np.asarray(masks, )", _INT64),
    f"{_SD}x_masks_to_indicators__mutmut_10": ("np.arange(p, dtype=None)", _INT64),
    f"{_SD}x_masks_to_indicators__mutmut_12": ("np.arange(p, )", _INT64),
    f"{_SDC}_add_dummy__mutmut_7": ("dummy = rng.random(n) <= 0.5", _TIE),
    f"{_SDC}_check_identifiable__mutmut_5": (
        "eig = np.linalg.eigvalsh(1.5 * (q + q.T))",
        "triples the eigenvalues: differs only for a smallest eigenvalue in "
        "(3.3e-11, 1e-10], between a singular design's rounding (1e-15) and "
        "the eigenvalues of designs in use (above 1e-3)",
    ),
    f"{_SDC}_check_identifiable__mutmut_8": ("if eig[0] < 1e-10:", _EDGE),
    f"{_SDC}_draw_nu__mutmut_10": ("rng.random(n) * cum[-1], )", _TIE),
    f"{_SDC}_draw_nu__mutmut_11": ("rng.random(n) / cum[-1], side=", _TOTAL_ONE),
    f"{_SDC}_draw_nu__mutmut_22": (
        "idx = np.minimum(idx, self._masks.size + 1)",
        _NEVER_PAST,
    ),
    f"{_SDC}_draw_nu__mutmut_30": ("out = rng.random((n, p)) <= 0.5", _TIE),
    f"{_SDC}_draw_nu__mutmut_31": (
        "out = rng.random((n, p)) < 1.5",
        "the first draw is then every category, which no admissible size "
        "allows: every row is redrawn by the loop, whose draws are unchanged, "
        "so the law is the same (one wasted draw)",
    ),
    f"{_SDC}_draw_nu__mutmut_41": ("rng.random((todo.size, p)) <= 0.5", _TIE),
    f"{_SDC}_sample_conditional__mutmut_31": ("u[rows] * cum[-1], )", _TIE),
    f"{_SDC}_sample_conditional__mutmut_32": ("u[rows] / cum[-1], side=", _TOTAL_ONE),
    f"{_SDC}_sample_conditional__mutmut_42": ("cand.size + 1)", _NEVER_PAST),
    f"{_SDC}conditional__mutmut_32": ("totals = sub.T.astype(None) @ mu", _FLOAT_SAME),
    f"{_SDC}conditional__mutmut_38": ("np.abs(totals - 1.0) >= 1e-8", _EDGE),
    f"{_SDC}coverage__mutmut_3": ("w = np.asarray(weights, dtype=None)", _FLOAT_SAME),
    f"{_SDC}coverage__mutmut_5": ("w = np.asarray(weights, )", _FLOAT_SAME),
    f"{_SDC}coverage__mutmut_9": ("np.asarray(ind, dtype=None) @ w", _FLOAT_SAME),
    f"{_SDC}coverage__mutmut_11": ("np.asarray(ind, ) @ w", _FLOAT_SAME),
    f"{_SDC}draw_questions__mutmut_22": (
        "Interval(numbers.Integral, 0, None, )",
        "Interval's default closed='both' accepts the same integers as "
        "closed='left' when the right end is None",
    ),
    f"{_SDC}independent__mutmut_74": (
        "found = (pos <= masks.size) &",
        "at pos == masks.size the mask compared is the largest, which is below "
        "the complement searched for: found stays false",
    ),
    f"{_SDC}mu_of__mutmut_3": ("masks = np.asarray(masks, dtype=None)", _INT64),
    f"{_SDC}mu_of__mutmut_5": ("masks = np.asarray(masks, )", _INT64),
    f"{_SDC}mu_of__mutmut_35": (
        "np.clip(np.searchsorted(self._masks, masks), None,",
        "searchsorted never returns a negative index: the lower clip never acts",
    ),
    f"{_SDC}q_matrix__mutmut_6": (
        'if self.kind == "uniform" and p > 4:',
        "the uniform design on 4 categories is then enumerated, which gives the "
        "closed form's matrix (test_uniform_q_closed_form_matches_enumeration)",
    ),
    f"{_SDC}q_matrix__mutmut_7": (
        'if self.kind == "uniform" and p >= 5:',
        "as q_matrix__mutmut_6",
    ),
    **{
        f"{_SDC}q_matrix__mutmut_{n}": (
            line,
            "unreachable: only the uniform builder makes a design too large to "
            "enumerate, and its Q has the closed form above",
        )
        for n, line in (
            (21, "self._require_enumeration(None)"),
            (22, 'self._require_enumeration("XXQXX")'),
            (23, 'self._require_enumeration("q")'),
        )
    },
    f"{_SDC}q_matrix__mutmut_25": (
        "ind = masks_to_indicators(self._masks, p).astype(None)",
        "astype(None) is astype(float64)",
    ),
    f"{_SDC}record_answers__mutmut_33": ("ans.astype(None)[:, None]", _FLOAT_SAME),
    f"{_SDC}record_answers__mutmut_34": (
        "q.astype(None), ~q.astype(bool))",
        "the reports are cast to int8 at the end: 0/1 floats give the same",
    ),
    f"{_SDC}sample__mutmut_5": ("codes = np.asarray(codes, dtype=None)", _INT64),
    f"{_SDC}sample__mutmut_7": ("codes = np.asarray(codes, )", _INT64),
    f"{_SDC}sample__mutmut_56": ("rng.random(n) <= 0.5)", _TIE),
    f"{_SDC}sample__mutmut_59": (
        "return self._add_dummy(a, None, dummy)",
        "the generator is read only when no dummy column is given, and sample "
        "always gives one",
    ),
    f"{_SDC}uniform__mutmut_38": ("masks = np.arange(1 << p, dtype=None)", _INT64),
    f"{_SDC}uniform__mutmut_40": ("masks = np.arange(1 << p, )", _INT64),
}
SPECS["subset_design"] = ModuleSpec(
    path="skprivate/subset/_design.py",
    tests=_SUBSET_DESIGN_TESTS,
    new_tests=["tests/test_mutation_subset_design.py"],
    equivalent=_SUBSET_DESIGN_EQUIVALENT,
)

# the audit's entry: each column's claim read from privacy_summary, compared
# with the exact worst case of its law, and reported
SPECS["audit_entry"] = ModuleSpec(
    path="skprivate/_audit/_audit.py",
    tests=[*_AUDIT_TESTS, "tests/test_mutation_exact_laws.py"],
    new_tests=[
        "tests/test_mutation_audit_entry.py",
        "tests/test_read_from_data_claims.py",
        # the record's claim against its columns' audited losses
        "tests/test_budget_split.py",
    ],
    equivalent={
        f"skprivate._audit._audit.x_audit__mutmut_{n}": (
            line,
            "the column is set first from r['column'] and this only lets the "
            "same value be written again under the same key: the frame is "
            "unchanged",
        )
        for n, line in (
            (40, '**{k: r[k] for k in r if k not in ("XXcolumnXX", "exact", '),
            (41, '**{k: r[k] for k in r if k not in ("COLUMN", "exact", "seconds")},'),
        )
    }
    | {
        f"skprivate._audit._audit.x__check_record__mutmut_{n}": (line, why)
        for n, line, why in (
            (
                15,
                'or summary.get("delta") not in (None, 1, 0.0)',
                "0 == 0.0: a delta of int 0 is still in the tuple through 0.0",
            ),
            (
                16,
                'or summary.get("delta") not in (None, 0, 1.0)',
                "0.0 == 0: a delta of float 0.0 is still in the tuple through 0",
            ),
            (
                37,
                "spent = sum((Fraction(v) for v in audited), )",
                "int 0 plus a Fraction is the same Fraction, and the audited "
                "list is never empty here (an empty frame returned before)",
            ),
            (
                7,
                'or frame.empty and "audited_epsilon" not in frame',
                "audit builds the frame from its rows: it is empty exactly when "
                "there are no rows, and then it has no columns either, so the "
                "two tests hold together",
            ),
        )
    }
    | {
        f"skprivate._audit._audit.x_read_from_data__mutmut_{n}": (
            line,
            "every summary flag is a bool, a numpy bool or a list of them: "
            "np.any reads them alike as bools or in their own dtype",
        )
        for n, line in (
            (17, "np.any(np.asarray(flag, dtype=None))"),
            (19, "np.any(np.asarray(flag, ))"),
        )
    },
)

_LK = "skprivate.subset._leakage."
_BELOW_EVERY_MASS = (
    "the mark of the outputs not in the report only has to lie below every "
    "mass (all >= 0) for argmax, and a report holds at least one output, so "
    "the guess never lands on a mark"
)

# the leakage measures of the subset designs (population and per report)
SPECS["subset_leakage"] = ModuleSpec(
    path="skprivate/subset/_leakage.py",
    tests=[
        "tests/subset/test_design.py::test_spec_leakage_numbers",
        "tests/subset/test_design.py::test_leakage_measures_against_monte_carlo",
        "tests/subset/test_design.py::test_privacy_summary_per_column_weights",
        "tests/subset/test_design.py::test_subset_uniform_transformer_api",
        "tests/test_mutation_subset.py",
    ],
    new_tests=["tests/test_mutation_subset_leakage.py"],
    equivalent={
        f"{_LK}x__check_weights__mutmut_21": (
            "abs(w.sum() - 1) >= 1e-6:",
            "differs only for weights summing to exactly 1 +- 1e-6",
        ),
        f"{_LK}x_subset_individual_leakage__mutmut_31": (
            "check_subset_data(a, design, )",
            "check_subset_data's name defaults to 'A', the name passed",
        ),
        f"{_LK}x_subset_individual_leakage__mutmut_35": (
            "ind = a[:, :p].astype(None)",
            "0/1 floats: np.where and the coverage read them as the booleans",
        ),
        f"{_LK}x_subset_individual_leakage__mutmut_51": (
            "masses = np.where(ind, s * w[None, :], -2.0)",
            _BELOW_EVERY_MASS,
        ),
        f"{_LK}x_subset_individual_leakage__mutmut_59": (
            "dummy = np.where(a[:, p:].astype(None), t, -1.0)",
            "0/1 floats: np.where reads them as the booleans",
        ),
        f"{_LK}x_subset_individual_leakage__mutmut_61": (
            "dummy = np.where(a[:, p:].astype(bool), t, -2.0)",
            _BELOW_EVERY_MASS,
        ),
        f"{_LK}x_subset_individual_leakage__mutmut_127": (
            'out["prediction_leakage"] = (guess == y).astype(None)',
            "astype(None) is astype(float64)",
        ),
        f"{_LK}x_subset_leakage__mutmut_80": (
            "if (design.has_dummies) or True else w",
            "without dummies s = 1 and t = 0: the two zeros appended change no "
            "entropy, sum of squares or maximum",
        ),
    },
)

# the frequency oracles' exact laws: the full table or the reduction to one
# pair of categories over classes of outputs of equal probability ratio
SPECS["frequency_laws"] = ModuleSpec(
    path="skprivate/frequency/_laws.py",
    tests=[
        *_all_but(
            "tests/frequency/test_laws.py",
            "test_every_output_is_reachable_at_large_epsilon",
        ),
        "tests/test_audit.py",
    ],
    new_tests=["tests/test_mutation_frequency_laws.py"],
    equivalent={
        "skprivate.frequency._laws.x_oracle_law__mutmut_32": (
            "pair = MatrixLaw(np.asarray(log_prob), list(categories[:3]), labels)",
            "the pair table has two rows: MatrixLaw labels its rows from the "
            "first labels given, so a third is never read",
        ),
    },
)

_NU = "skprivate._audit._numeric."
_LENTZ = (
    "the modified Lentz method's guards against a zero denominator: for "
    "x > a + 1 the denominators stay near b > 2, so the guard never acts, and "
    "the starting c = 1 / tiny only has to be huge (c = b + a_n / c is b to "
    "rounding either way)"
)

# the log-space helpers every exact audit computes with
SPECS["audit_numeric"] = ModuleSpec(
    path="skprivate/_audit/_numeric.py",
    tests=[*_AUDIT_TESTS, "tests/test_mutation_audit.py"],
    new_tests=["tests/test_mutation_audit_numeric.py"],
    equivalent={
        **{
            f"{_NU}{name}": (line, "the callers pass float arrays or Python floats")
            for name, line in (
                ("x_log1mexp__mutmut_3", "x = np.asarray(x, dtype=None)"),
                ("x_log1mexp__mutmut_5", "x = np.asarray(x, )"),
                ("x_log_upper_gamma__mutmut_3", "x = np.asarray(x, dtype=None)"),
                ("x_log_upper_gamma__mutmut_5", "x = np.asarray(x, )"),
                ("x_logdiffexp__mutmut_3", "a = np.asarray(a, dtype=None)"),
                ("x_logdiffexp__mutmut_5", "a = np.asarray(a, )"),
                ("x_logdiffexp__mutmut_8", "b = np.asarray(b, dtype=None)"),
                ("x_logdiffexp__mutmut_10", "b = np.asarray(b, )"),
            )
        },
        **{
            f"{_NU}x_log1mexp__mutmut_{n}": (
                line,
                "no operation is invalid for the documented x <= 0 (only a "
                "positive x, outside the domain, makes log of a negative "
                "number): the invalid guard never acts",
            )
            for n, line in (
                (7, 'with np.errstate(divide="ignore", invalid=None):'),
                (9, 'with np.errstate(divide="ignore", ):'),
            )
        },
        f"{_NU}x_log1mexp__mutmut_28": (
            "return np.where(x >= -np.log(2.0), near, far)",
            "at x = -log 2 both forms are accurate to the last digit",
        ),
        f"{_NU}x_log1mexp__mutmut_31": (
            "return np.where(x > -np.log(3.0), near, far)",
            "log(-expm1(x)) is accurate to the last digit on (-log 3, -log 2] "
            "too (the 50-digit test covers -0.6932 and -0.7): the split only "
            "matters near 0 and far below",
        ),
        f"{_NU}x_log_upper_gamma__mutmut_21": (
            "far = direct <= _DIRECT_FLOOR",
            "differs only for Q exactly 1e-250, where both are accurate",
        ),
        **{
            f"{_NU}x_log_upper_gamma__mutmut_{n}": (line, _LENTZ)
            for n, line in (
                (31, "c = np.full_like(None, 1.0 / tiny)"),
                (36, "c = np.full_like(xf, 2.0 / tiny)"),
                (57, "d = np.where(None, tiny, d)"),
                (64, "d = np.where(np.abs(d) <= tiny, tiny, d)"),
                (69, "c = np.where(None, tiny, c)"),
                (76, "c = np.where(np.abs(c) <= tiny, tiny, c)"),
            )
        },
        **{
            f"{_NU}x_log_upper_gamma__mutmut_{n}": (
                line,
                "the continued fraction has converged to rounding before its "
                "400th term for every x > a + 1: without the early stop (or "
                "with it at <= instead of <) the value is the same",
            )
            for n, line in (
                (84, "if np.all(None):"),
                (86, "if np.all(np.abs(step + 1.0) < 1e-17):"),
                (87, "if np.all(np.abs(step - 2.0) < 1e-17):"),
                (88, "if np.all(np.abs(step - 1.0) <= 1e-17):"),
            )
        },
    },
)

_TR = "skprivate.negative_survey._transition.x_"
_INT_BOUNDS = (
    "the values, bounds and band width only meet float arithmetic (draws in "
    "[0, 1), divisions, H's float division by d): integer inputs give the "
    "same float results"
)
SPECS.update(
    {
        # the RVNS samplers (continuous and float-safe grid, both band
        # placements), their public grid, and the exact transition density
        # and cell probabilities the audits and fits read; not the fast
        # products of the cell matrix (estimation only)
        "rvns_transition": ModuleSpec(
            path="skprivate/negative_survey/_transition.py",
            tests=[
                "tests/negative_survey/test_transition.py",
                *_all_but(
                    "tests/negative_survey/test_boundary_safe.py",
                    "test_two_reports_share_a_band_and_do_not_compose",
                    "test_reconstruction_near_a_bound_is_consistent_and_no_worse_than_paper",
                ),
                *_all_but(
                    "tests/negative_survey/test_perturber.py",
                    "test_theorem_1_bound_holds_for_one_report",
                    "test_summary_per_record_is_the_sum_over_columns_and_matches_the_report",
                ),
                "tests/test_grid_sampler_laws.py",
            ],
            new_tests=["tests/test_mutation_rvns_transition.py"],
            equivalent={
                f"{_TR}_second_antiderivative__mutmut_9": (
                    "np.where(t < d,",
                    "at t = d both pieces equal d**2 / 6 (H is C2 there)",
                ),
                f"{_TR}rvns_transition_density__mutmut_91": (
                    "safe = np.where(fixed, 2.0, width)",
                    "safe is read only where the band is not fixed; the fixed "
                    "entries are replaced just below",
                ),
                f"{_TR}rvns_transition_density__mutmut_124": (
                    "(y < x - low).astype(None)",
                    "astype(None) is astype(float64)",
                ),
                f"{_TR}rvns_transition_density__mutmut_134": (
                    "(y > x - low + d).astype(None)",
                    "astype(None) is astype(float64)",
                ),
                f"{_TR}rvns_transition_density__mutmut_137": (
                    "(y > x + low + d)",
                    "a fixed band has low = 0 (x = a) or lies at x = b, where no "
                    "report of the support is above x: both tests are false",
                ),
                f"{_TR}rvns_transition_density__mutmut_145": (
                    "np.where(y <= x, left,",
                    "at y = x the left ramp is clip(-low / width) = 0 (fixed "
                    "band: y < x - low is false), the value p(x, x) = 0 given "
                    "by the original",
                ),
                f"{_TR}rvns_transition_density__mutmut_152": (
                    "np.where(y >= x, right, 0.0)",
                    "at y = x the right ramp is clip((high - d) / width) = 0, as "
                    "high <= d (fixed band: y > x - low + d is false)",
                ),
                **{
                    f"{_TR}{name}__mutmut_{n}": (text, _INT_BOUNDS)
                    for name, n, text in (
                        (
                            "safe_cell_probabilities",
                            3,
                            "asarray(value_edges, dtype=None)",
                        ),
                        ("safe_cell_probabilities", 5, "asarray(value_edges, )"),
                        (
                            "safe_cell_probabilities",
                            8,
                            "asarray(report_edges, dtype=None)",
                        ),
                        ("safe_cell_probabilities", 10, "asarray(report_edges, )"),
                        ("sample_rvns", 3, "x = np.asarray(x, dtype=None)"),
                        ("sample_rvns", 5, "x = np.asarray(x, )"),
                        ("sample_rvns_safe", 3, "x = np.asarray(x, dtype=None)"),
                        ("sample_rvns_safe", 5, "x = np.asarray(x, )"),
                        ("sample_rvns_safe", 12, "np.asarray(d, dtype=None)"),
                        ("sample_rvns_safe", 14, "np.asarray(d, )"),
                        ("sample_rvns_safe", 22, "np.asarray(a, dtype=None) - d"),
                        ("sample_rvns_safe", 24, "np.asarray(a, ) - d"),
                        ("sample_rvns_safe", 32, "np.asarray(b, dtype=None)"),
                        ("sample_rvns_safe", 34, "np.asarray(b, )"),
                        ("sample_rvns_safe", 36, "np.asarray(a, dtype=None)"),
                        ("sample_rvns_safe", 38, "np.asarray(a, )"),
                        ("sampler_grid", 3, "np.asarray(v, dtype=None)"),
                        ("sampler_grid", 5, "np.asarray(v, )"),
                    )
                },
                **{
                    f"{_TR}{name}__mutmut_14": (
                        "jx = j.astype(None)",
                        "jx only bounds integers() and is subtracted from "
                        "integers: an integral float64 below 2**52 gives the "
                        "same draws and indices",
                    )
                    for name in ("sample_rvns_grid", "sample_rvns_grid_safe")
                },
            },
            functions=[
                f"{_TR}{name}__mutmut_*"
                for name in (
                    "check_placement",
                    "report_range",
                    "_band_limits",
                    "unpack_bounds",
                    "_check_kernel_args",
                    "rvns_transition_density",
                    "sample_rvns",
                    "sampler_grid",
                    "sample_rvns_grid",
                    "sample_rvns_safe",
                    "sample_rvns_grid_safe",
                    "check_safe_grid",
                    "_second_antiderivative",
                    "safe_cell_probabilities",
                    "rvns_log_likelihood_grid",
                )
            ],
        ),
    }
)
