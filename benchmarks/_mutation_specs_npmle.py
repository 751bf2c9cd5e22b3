"""Mutation specs of the NPMLE's batched resampling refits.

``conf_int`` of :class:`IntervalNPMLE` on data other than Case I refits the
estimator on every row draw (bootstrap for the mean, subsampling for CDF
values and quantiles); ``interval/_npmle_resampling.py`` sets up and solves
all the draws at once (the replicates' cells cut from the data's, the fit's
first EM-ICM iterations, fallbacks to the fit's own iteration, the
statistic per replicate) and ``interval/_npmle_active_set.py`` holds the
batched support-reduction Newton steps and the Armijo line search both
modules share.  Both are interval code in full: every mutant is run.
Merged into ``MODULES`` by ``_mutation_modules.py``.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec, _all_but

_SPEED = "tests/interval/test_npmle_resampling_speed.py"
# The replicates against one refit per draw, each small; not the conf_int
# comparisons on full-size draws (2-6 s each) nor the Turnbull run (1 s),
# which the new tests' exact cases replace.
_TESTS = [
    *_all_but(
        _SPEED,
        "test_quantile_conf_int_between_the_one_by_one_intervals",
        "test_conf_int_equals_the_one_by_one_computation",
        "test_other_iterations_batched_alike",
    ),
    f"{_SPEED}::test_other_iterations_batched_alike[icm]",
]
_NEW = ["tests/test_mutation_npmle_resampling.py"]
_AS = "skprivate.interval._npmle_active_set."
_EINSUM = "einsum reads upper-case subscripts as lower-case ones: the same sum"
_LIVE_P = (
    "every row of a replicate still iterating has a positive, finite "
    "probability (a row at probability zero gives w / 0 = inf or 0 / 0 = NaN "
    "in the gradient, a gap that is not finite, and the replicate stops "
    "before any step), so this division neither divides by zero nor makes "
    "0 / 0 and the error state it sets is never consulted"
)
_R_POSITIVE = (
    "r = w / P is positive exactly where w is (P > 0 gives w / P > 0, P = 0 "
    "gives inf, and rows of weight zero have r = 0), so the mask is the same"
)
_NO_INVALID = (
    "the division is made only where the mask holds: there w > 0, so it "
    "gives a finite quotient or, at P = 0, w / 0 = inf (the divide flag), "
    "and never 0 / 0 or inf / inf (the invalid flag)"
)
_DECOUPLED = (
    "the slots outside the kept set have zero rows and columns in the "
    "system (A is zeroed outside keep) and are set to 0 in the output: "
    "partial pivoting never picks them for a kept column and they add 0 "
    "to every kept row, so the kept block's solution is bit for bit the "
    "same whatever is put on their diagonal or right-hand side"
)
_EMPTY_T = (
    "current masses are never negative (clipped), and a negative slot at "
    "mass zero has t = 0 / (0 - z) = 0, the smallest t, so t[first] is "
    "already 0 whenever the override would apply: the same move (none) "
    "and the same drops"
)
_T_RANGE = (
    "t = cur / (cur - z) with cur >= 0 and z < 0 lies in [0, 1] in floating "
    "point too (cur - z >= cur by monotone rounding), so the clip changes "
    "nothing"
)
_DROPPED = (
    "the value of current at a slot outside the kept set is never read "
    "again: t, empty and drop use it only where the slot is negative, which "
    "needs it kept, and the slot 'first' is dropped in this round "
    "(drop[rows, first] = True)"
)

_RS = "skprivate.interval._npmle_resampling."
_BATCH = f"{_RS}xǁ_Batchǁ"
_ZERO_P = (
    "a row's probability can be zero (or the masses NaN) only at the SQUAREM "
    "trial point, and every use of it there runs inside squarem's own "
    "errstate(divide='ignore', invalid='ignore'); elsewhere every row of a "
    "replicate still iterating has a positive probability (uniform start, "
    "EM steps keep every cell of positive mass, ICM and SQUAREM steps are "
    "taken only where all probabilities stay positive), and a failed "
    "replicate's NaN raises no flag: the error state set here is never "
    "consulted"
)
_NOT_OK = (
    "alpha of a replicate with v = 0 (ok False) enters only a trial point "
    "that is then replaced by s2 (ok stays False through every later test), "
    "so the candidate, its probabilities and log-likelihood are the same"
)
_SETUP_BRANCH = (
    "a speed branch of the draws' set-up: np.bincount with np.flatnonzero "
    "and np.unique(return_counts=True) both give the sorted distinct keys "
    "and their counts, so either branch makes the same problems"
)
_ICM_P = (
    "ICM runs on probabilities that are all positive (the start, EM steps "
    "and the accepted SQUAREM and ICM steps keep them so; a failed "
    "replicate's NaN raises no flag), so w / P, r / P and the step's "
    "ratio neither divide by zero nor make 0 / 0: the error state is never "
    "consulted"
)
_ICM_H = (
    "h is at least the smallest normal float, so g / h never divides by "
    "zero, and g, h are finite (positive probabilities): no 0 / 0 or "
    "inf / inf either"
)
_CELLS = f"{_RS}xǁDataCellsǁ__init____mutmut_"
_FLOAT_INT = (
    "the arrays are of the type asked for anyway (the draws are int64 "
    "indices, W and the counts numbers whose default dtype is int64 or "
    "float64 as used): the same values"
)
_FLOAT = "astype(None) and dtype=None are float64 here: the same array"
_BELOW_NONE = (
    "where no held atom is at or below t the outer np.where gives 0.0 whatever pos is"
)

_INJECTIVE = (
    "the pooling key only needs equal keys for equal (replicate, start, stop) "
    "and distinct ones otherwise (equal ranges are neighbours already): with "
    "0 <= start < stop <= M this weighting keeps every triple's key distinct"
)
_EVERY_BLOCK = (
    "every replicate draws at least one row, which holds an innermost "
    "interval, so every index up to B - 1 is counted and the length is B anyway"
)
# Mutants of replicate_problems and resampled_statistics as numbered on the
# construction from the sorted places where rows start or stop.
_SPARSE_PLACES = {
    f"{_RS}x_replicate_problems__mutmut_23": (
        "key = block * n - cells.rank[row]",
        "the draws are then sorted by replicate and falling rank: each "
        "replicate's draws stay together and equal ranges stay neighbours, so "
        "the problems are the same with each replicate's pooled rows in the "
        "reverse order (a sum the likelihood does not order; the statistics "
        "agree to rounding)",
    ),
    f"{_RS}x_replicate_problems__mutmut_68": (
        "following[-2:] = cuts[1:], cuts[-1:]",
        "following[-2] is cuts[-1] already (following[:-1] = cuts[1:]): the same array",
    ),
    f"{_RS}x_replicate_problems__mutmut_84": (
        "inner[-1] = None",
        "None stored in a boolean array is False",
    ),
    f"{_RS}x_replicate_problems__mutmut_95": ("np.bincount(b_in, )", _EVERY_BLOCK),
    **{
        f"{_RS}x_replicate_problems__mutmut_{k}": (
            line,
            "float64 counts of at most M are exact, and they reach the "
            "problems only through the integer arrays of starts and stops",
        )
        for k, line in (
            (103, "np.empty(B * W, dtype=None)"),
            (105, "np.empty(B * W, )"),
        )
    },
    **{
        f"{_RS}x_replicate_problems__mutmut_{k}": (line, _INJECTIVE)
        for k, line in (
            (159, "* (M + 1) - stop"),
            (161, "(block * (M + 1) - start)"),
            (164, "(block * (M + 2) + start)"),
            (166, "* (M + 2) + stop"),
        )
    },
    **{
        f"{_RS}x_replicate_problems__mutmut_{k}": (
            line,
            "float ones and zeros select the same heads (np.flatnonzero)",
        )
        for k, line in (
            (169, "np.ones(key.size, dtype=None)"),
            (171, "np.ones(key.size, )"),
        )
    },
    f"{_RS}x_replicate_problems__mutmut_190": ("np.bincount(b_key, )", _EVERY_BLOCK),
    f"{_RS}x_replicate_problems__mutmut_207": (
        "np.bincount(block, weights=count, )",
        _EVERY_BLOCK,
    ),
    **{
        f"{_RS}x_resampled_statistics__mutmut_{k}": (
            line,
            "equal keys are equal integers: every sort algorithm returns the "
            "same sorted array (numpy also reads the kind case-insensitively)",
        )
        for k, line in (
            (99, "np.sort(keys, kind=None)"),
            (101, "np.sort(keys, )"),
            (103, 'kind="STABLE"'),
        )
    },
    f"{_RS}x_resampled_statistics__mutmut_112": (".astype(None)", _FLOAT),
    f"{_RS}x_resampled_statistics__mutmut_218": (".astype(None)", _FLOAT),
    **{
        f"{_RS}x_resampled_statistics__mutmut_{k}": (
            line,
            "replicate_problems computes DataCells(Z) itself when no cells "
            "are given: the same cells",
        )
        for k, line in (
            (157, "batched.size, None)"),
            (163, "batched.size, )"),
        )
    },
    f"{_RS}x_resampled_statistics__mutmut_188": (
        ".any(axis=None)",
        "an innermost interval of informative rows has a finite end, so no "
        "held cell lacks a location and the test is false for every "
        "replicate either way",
    ),
    f"{_RS}x_resampled_statistics__mutmut_225": (
        "statistic, None)",
        "fit_y=None is falsy like False: the refit is est.fit(X[idx])",
    ),
    f"{_RS}x_resampled_statistics__mutmut_232": (
        "statistic, True)",
        "with y = None, _take(None, idx) is None and IntervalNPMLE.fit "
        "ignores y: the same refit",
    ),
    f"{_RS}x_replicate_problems__mutmut_160": (
        "key = (block * (M + 1) + start) / (M + 1) + stop",
        "the key becomes block + stop + start / (M + 1) with 0 <= start < M: "
        "distinct (start, stop) of one replicate stay at least 1 / (M + 1) "
        "apart (far above rounding), and a replicate's last row (start "
        "m_b - 1, stop m_b: the last place a row starts opens its last "
        "innermost interval) could meet the next replicate's first (start 0, "
        "stop >= 1) only with m_b - 1 = 0 and m_b = 1 + stop, i.e. stop 0: "
        "never, so the same neighbours are pooled",
    ),
    f"{_RS}x_replicate_problems__mutmut_162": (
        "key = (block / (M + 1) + start) * (M + 1) + stop",
        "the key becomes block + start (M + 1) + stop up to a rounding far "
        "below 1, and equal triples compute the same float: distinct within a "
        "replicate, and a replicate's last row (m_b - 1, m_b) meets the next "
        "replicate's first (0, stop) only if (m_b - 1)(M + 1) + m_b = 1 + "
        "stop <= M + 1, i.e. m_b = 1 and stop 0: never, so the same "
        "neighbours are pooled",
    ),
    f"{_RS}x_resampled_statistics__mutmut_109": (
        "keys[1:] != keys[:+1]",
        "keys[:+1] is keys[:1]: only the repeats of the first key are merged "
        "here, every other repeated (replicate, row) pair stays as "
        "neighbouring draws of count 1, which replicate_problems pools by its "
        "(replicate, start, stop) key into the same count (sums of whole "
        "numbers, exact), and the Case-I test only asks whether a "
        "replicate's two-sided count is zero: the same problems",
    ),
    f"{_RS}x_resampled_statistics__mutmut_127": (
        "weights=~case_one_row[row], )",
        "every replicate holding a row is in block, so the counts are shorter "
        "than B only by trailing empty draws; such a draw is then neither "
        "batched nor refitted and keeps the value None, which is also what "
        "its refit on no rows gives on the serial path",
    ),
    f"{_RS}x_resampled_statistics__mutmut_142": (
        "if batched.size <= B:",
        "batched.size <= B always; with no Case-I-only replicate keep is all "
        "True and renumber is arange(B): the same block, row and count",
    ),
}


SPECS: dict[str, ModuleSpec] = {
    "npmle_active_set": ModuleSpec(
        path="skprivate/interval/_npmle_active_set.py",
        tests=_TESTS,
        new_tests=_NEW,
        equivalent={
            f"{_AS}x__new_cells__mutmut_21": (
                "head[:, 1:] = support[:, :-1]",
                "head[:, 1:] is all False before (np.zeros; only column 0 is "
                "set), so = and |= give the same array",
            ),
            f"{_AS}xǁ_Rowsǁ__init____mutmut_15": (
                "self.valid = np.arange(M)[None, :] <= m[:, None]",
                "the one more cell counted valid, cell m of a replicate with m < "
                "M, is held by no row (rows lie in [0, m)), so its d is the "
                "rows' r summed in and out again: 0 up to rounding (about "
                "1e-16 times the sum of w / P, far below 1 unless some row's "
                "probability fell below about 1e-16 times the sum of the "
                "weights, which iterations from an EM-ICM start do not reach); "
                "so it never enters the support (d > 1) and never raises the "
                "gap (some cell has d > 0)",
            ),
            f"{_AS}x__solve__mutmut_2": (
                "K = H.shape[2]",
                "H is (B, K, K): shape[1] == shape[2]",
            ),
            f"{_AS}x__solve__mutmut_19": ('np.einsum("BII->BI", A)', _EINSUM),
            f"{_AS}x__support_step__mutmut_10": ('"BJL,BL->BJ"', _EINSUM),
            f"{_AS}x_armijo_search__mutmut_47": ('"IJ,IJ->I"', _EINSUM),
            f"{_AS}x__solve__mutmut_26": (
                "diag.max(axis=1, initial=None)",
                "the diagonal has K >= 1 entries (every replicate still "
                "iterating has masses of positive total, hence a support) and "
                "they are >= 0 (sums of w / P^2) or NaN: its max is the same "
                "with or without the initial value 0",
            ),
            f"{_AS}x__solve__mutmut_28": (
                "diag.max(axis=1, )",
                "as x__solve__mutmut_26 (no initial value)",
            ),
            f"{_AS}x__solve__mutmut_43": ("scale[:, None], 2.0)", _DECOUPLED),
            f"{_AS}x__solve__mutmut_55": ("np.where(keep, rhs, 1.0)", _DECOUPLED),
            f"{_AS}x__support_step__mutmut_12": (
                "keep = valid | True",
                "the padded slots beyond a replicate's support have zero rows "
                "and columns in H (no row spans them), g = 0 and sA = 0: kept, "
                "they solve to exactly 0 (their diagonal is the ridge), are "
                "never negative and leave the ridge's scale (the largest "
                "diagonal entry) and the kept block unchanged",
            ),
            f"{_AS}x__support_step__mutmut_23": (
                "range(sA.shape[1] + 2)",
                "each round drops at least one kept slot (the first negative "
                "one), so by round K + 1 nothing negative is left and the loop "
                "has ended: the extra round never runs",
            ),
            f"{_AS}x__support_step__mutmut_55": (
                "empty = negative & (cur < 0.0)",
                _EMPTY_T,
            ),
            f"{_AS}x__support_step__mutmut_92": ("np.where(None, 0.0, t)", _EMPTY_T),
            f"{_AS}x__support_step__mutmut_84": (
                "t[rows, first], None, 1.0)",
                _T_RANGE,
            ),
            f"{_AS}x__support_step__mutmut_85": (
                "t[rows, first], 0.0, None)",
                _T_RANGE,
            ),
            f"{_AS}x__support_step__mutmut_90": ("t[rows, first], 0.0, 2.0)", _T_RANGE),
            f"{_AS}x__support_step__mutmut_111": (
                "cur + t * (z - cur), 1.0)",
                _DROPPED,
            ),
            f"{_AS}x__support_step__mutmut_112": ("cur[rows, first] = None", _DROPPED),
            f"{_AS}x__support_step__mutmut_113": ("cur[rows, first] = 1.0", _DROPPED),
            f"{_AS}x__support_step__mutmut_122": (
                "current[todo] = np.clip(cur, None, None)",
                "a kept slot whose target is >= 0 moves to cur + t (z - cur) "
                ">= 0 in floating point (z - cur >= -cur, t <= 1, monotone "
                "rounding); only a negative slot the move took just past zero "
                "by rounding can be below zero, and it has cur <= 0 and is "
                "dropped in the same round, its value never read again",
            ),
            f"{_AS}x__newton_step__mutmut_45": (
                "_weighted_ratio(r, P, None)",
                _R_POSITIVE,
            ),
            f"{_AS}x__newton_step__mutmut_48": ("_weighted_ratio(r, P, )", _R_POSITIVE),
            f"{_AS}x__weighted_ratio__mutmut_3": (
                "where = w > 0 if (where is None) or True else where",
                "the one caller passing where (the Newton step's r / P) passes "
                "w > 0 with r in place of w, and r > 0 exactly where w > 0: "
                + _R_POSITIVE,
            ),
            f"{_AS}x__weighted_ratio__mutmut_8": ("invalid=None):", _NO_INVALID),
            f"{_AS}x__weighted_ratio__mutmut_10": (
                'errstate(divide="ignore", ):',
                _NO_INVALID,
            ),
            f"{_AS}x__hessian__mutmut_25": (
                "np.where(held, index, 1)",
                "the rows moved to slot 1 weigh 0 there and add nothing; slot 1 "
                "is in the table whenever it has two entries (B K^2 >= 2), and a "
                "table of one entry (one replicate, one support cell) is never "
                "built: a single support cell holds every row of positive "
                "weight, so its d is 1 / s and the gap at the scaled masses is "
                "0, and a cell with d > 1 would have entered the support, so "
                "the replicate stops before a Newton step",
            ),
            f"{_AS}x__newton_step__mutmut_75": (
                "valid = np.arange(K)[None, :] <= count[:, -1][:, None]",
                "the one more slot kept, the first padded one, has a zero row "
                "and column in H, g = 0 and sA = 0: it solves to exactly 0 "
                "and changes neither the kept block nor the step in the cells "
                "(only support slots are mapped back)",
            ),
            f"{_AS}x__newton_step__mutmut_128": (
                "ratio = np.where(rows.w > 0, ratio, 1.0)",
                "the entries replaced are those of rows of weight zero: they "
                "enter the line search only in the positivity test (lam * 1 > "
                "-1 holds like lam * 0 > -1) and in the gain times weight 0 "
                "(log1p(lam) * 0 = 0)",
            ),
            f"{_AS}x__newton_step__mutmut_161": (
                "np.clip(s + lam[:, None] * ds, None, None)",
                "s + lam ds >= 0 in floating point without the clip: on the "
                "support ds = fl(target - s) >= -s (target >= 0, monotone "
                "rounding, -s representable) and lam is a power of two at "
                "most 1, so lam ds >= -s; off the support s = ds = 0",
            ),
            f"{_AS}x_armijo_search__mutmut_28": (
                "positive = change.min(axis=1) >= -1.0",
                "a row with change == -1 has log1p = -inf, so the weighted "
                "gain is -inf (or NaN, 0 * -inf, for weight zero) and fails the "
                "Armijo test anyway: the same refusal",
            ),
            f"{_AS}x_armijo_search__mutmut_30": (
                "positive = change.min(axis=1) > -2.0",
                "a row with change <= -1 makes log1p -inf or NaN, so the gain "
                "is -inf or NaN and fails the Armijo test anyway: the "
                "positivity test only restates it",
            ),
            f"{_AS}x_armijo_search__mutmut_70": (
                "pending[idx[ok]] = None",
                "None stored into a bool array is False: the same mask",
            ),
            f"{_AS}x_solve_active_set__mutmut_41": (
                "range(max_iter + 2)",
                "at it == max_iter every replicate is marked done and the loop "
                "breaks: the extra pass never runs",
            ),
        },
    ),
    "npmle_resampling": ModuleSpec(
        path="skprivate/interval/_npmle_resampling.py",
        tests=_TESTS,
        new_tests=_NEW,
        equivalent={
            f"{_BATCH}em__mutmut_1": ("errstate(invalid=None)", _ZERO_P),
            **{
                f"{_BATCH}loglik_at__mutmut_{k}": (line, _ZERO_P)
                for k, line in (
                    (1, "divide=None,"),
                    (2, "invalid=None)"),
                    (3, 'errstate(invalid="ignore")'),
                    (4, 'errstate(divide="ignore", )'),
                )
            },
            **{
                f"{_BATCH}gradient_at__mutmut_{k}": (line, _ZERO_P)
                for k, line in (
                    (1, "divide=None,"),
                    (2, "invalid=None)"),
                    (3, 'errstate(invalid="ignore")'),
                    (4, 'errstate(divide="ignore", )'),
                )
            },
            f"{_BATCH}loglik_at__mutmut_16": ('"IJ,IJ->I"', _EINSUM),
            f"{_BATCH}gradient_at__mutmut_32": (
                "d[:, : self.M], 1.0)",
                "the entries replaced are the padding cells beyond m: the gap "
                "masks them again (-inf) and the EM step multiplies them by a "
                "mass that is 0 there (the start, EM, SQUAREM and ICM steps all "
                "keep it 0), so 0 * 1 = 0 * 0",
            ),
            f"{_BATCH}squarem__mutmut_33": (
                "ok = nv >= 0",
                "the replicates added have v = 0: alpha = -|r| / 0 is -inf (or "
                "NaN when r = 0 too), so the trial point is NaN, total > 0 "
                "fails and ok is False again before anything uses it: the "
                "candidate is s2 as without the mutation",
            ),
            f"{_BATCH}squarem__mutmut_66": ("np.where(ok, alpha, +1.0)", _NOT_OK),
            f"{_BATCH}squarem__mutmut_67": ("np.where(ok, alpha, -2.0)", _NOT_OK),
            f"{_BATCH}squarem__mutmut_88": (
                "ok &= total >= 0",
                "a trial of total 0 is all zeros; divided by its total it is NaN, "
                "its probabilities NaN, and Q.min > 0 clears ok: refused as "
                "before",
            ),
            f"{_BATCH}squarem__mutmut_104": (
                "ok &= Q.min(axis=1) >= 0",
                "a trial with a row of probability 0 (a row of positive weight: "
                "padding rows hold every cell) makes the EM step after it "
                "0 * inf = NaN and its log-likelihood NaN or -inf, so "
                "ll_trial >= ll_new clears ok: refused as before",
            ),
            f"{_BATCH}squarem__mutmut_133": (
                "np.where(None, ll_trial, ll_new)",
                "the log-likelihood returned never decides anything: squarem "
                "does not read its ll argument, icm only adds its gain to it, "
                "and solve_batch returns the masses alone",
            ),
            f"{_BATCH}_isotonic__mutmut_10": (
                "weights=hv, )",
                "scipy's isotonic_regression is increasing by default",
            ),
            f"{_BATCH}_isotonic__mutmut_13": (
                "yv + 9.0 * b",
                "y lies in [-1, 2]: a shift of 9 per replicate separates them as "
                "one of 8 does, so the pools are the same, and their means are "
                "taken on the unshifted values",
            ),
            f"{_BATCH}_isotonic__mutmut_17": (
                "np.asarray(fit.blocks[:-1], dtype=None)",
                "fit.blocks is an integer index array already: the same array",
            ),
            f"{_BATCH}_isotonic__mutmut_19": (
                "np.asarray(fit.blocks[:-1], )",
                "as _isotonic__mutmut_17",
            ),
            **{
                f"{_BATCH}icm__mutmut_{k}": (line, _ICM_P)
                for k, line in (
                    (5, "divide=None,"),
                    (6, "invalid=None)"),
                    (7, 'errstate(invalid="ignore")'),
                    (8, 'errstate(divide="ignore", )'),
                    (142, "divide=None,"),
                    (143, "invalid=None)"),
                    (144, 'errstate(invalid="ignore")'),
                    (145, 'errstate(divide="ignore", )'),
                )
            },
            **{
                f"{_BATCH}icm__mutmut_{k}": (line, _ICM_H)
                for k, line in (
                    (60, "divide=None,"),
                    (61, "invalid=None)"),
                    (62, 'errstate(invalid="ignore")'),
                    (63, 'errstate(divide="ignore", )'),
                )
            },
            f"{_BATCH}icm__mutmut_80": (
                "np.where(inner, y, 1.0)",
                "the entries replaced are outside inner; 1.0 is finite like 0.0",
            ),
            f"{_BATCH}icm__mutmut_86": (
                "out_s[~usable] = None",
                "None stored into a float array is NaN: the same marking",
            ),
            f"{_BATCH}icm__mutmut_125": (
                "(self.m >= 1)",
                "a replicate of one cell has no inner boundary (inner is all "
                "False), so its direction and slope are 0 and slope > 0 "
                "already keeps it still",
            ),
            **{
                f"{_CELLS}{k}": (
                    line,
                    "the tags only break ties in endpoint_order's lexsort and "
                    "are tested != 1: float tags, or 3 for an ordinary left end "
                    "(still above the right ends' 1 and the exact values' 0), "
                    "order and compare the same",
                )
                for k, line in (
                    (8, ".astype(None)"),
                    (17, "np.where(lo == hi, 0, 3)"),
                    (19, "np.ones(n, dtype=None)"),
                    (21, "np.ones(n, )"),
                )
            },
            f"{_CELLS}41": (
                "np.zeros(2 * n, dtype=None)",
                "the float counts are stored into the int64 array rank: the "
                "same integers",
            ),
            f"{_CELLS}43": ("np.zeros(2 * n, )", "as DataCells 41"),
            **{
                f"{_CELLS}{k}": (
                    line,
                    "only the order among rows of equal (start, stop) can change, "
                    "and such rows have the same range in every draw and are "
                    "pooled into one row (their counts, whole numbers, summed "
                    "exactly)",
                )
                for k, line in (
                    (62, "kind=None)"),
                    (64, "+ self.stop, )"),
                    (70, 'kind="STABLE"'),
                )
            },
            f"{_RS}x_replicate_problems__mutmut_27": (
                "key[1:] <= key[:-1]",
                "each (replicate, row) pair is drawn once, so the keys are "
                "distinct and <= is < here",
            ),
            f"{_RS}x_replicate_problems__mutmut_32": (
                "np.argsort(key, kind=None)",
                "the keys are distinct (each pair once): every sort gives the "
                "same order",
            ),
            f"{_RS}x_replicate_problems__mutmut_34": (
                "np.argsort(key, )",
                "as x_replicate_problems__mutmut_32",
            ),
            **{
                f"{_RS}x_replicate_problems__mutmut_{k}": (line, _FLOAT_INT)
                for k, line in (
                    (10, "np.asarray(block, dtype=None)"),
                    (12, "np.asarray(block, )"),
                    (14, "np.asarray(row, dtype=None)"),
                    (16, "np.asarray(row, )"),
                    (19, "np.asarray(count, dtype=None)"),
                    (21, "np.asarray(count, )"),
                    (70, "np.full((B, W), W, dtype=None)"),
                    (73, "np.full((B, W), W, )"),
                    (175, "np.ones(key.size, dtype=None)"),
                    (177, "np.ones(key.size, )"),
                )
            },
            f"{_RS}x_replicate_problems__mutmut_103": (
                "(after <= W)",
                "a place where a drawn row starts is followed by the place where "
                "it stops, a cut: after < W wherever has_start holds",
            ),
            f"{_RS}x_replicate_problems__mutmut_113": (
                "before[:, -2].copy()",
                "no drawn row starts at the last place (rows stop after they "
                "start, at most at m), so inner is False there and the last two "
                "columns of the cumulative count are equal",
            ),
            **{
                f"{_RS}x_replicate_problems__mutmut_{k}": (
                    line,
                    "the pooling key only needs equal keys for equal (replicate, "
                    "start, stop) and distinct ones otherwise (equal ranges are "
                    "neighbours already): with 0 <= start < stop <= M this "
                    "weighting keeps every triple's key distinct",
                )
                for k, line in (
                    (165, "* (M + 1) - stop"),
                    (167, "(block * (M + 1) - start)"),
                    (170, "(block * (M + 2) + start)"),
                    (172, "* (M + 2) + stop"),
                )
            },
            f"{_BATCH}icm__mutmut_184": (
                "np.diff(F_new, )",
                "F_new is 2-D: np.diff's default axis -1 is axis 1",
            ),
            f"{_BATCH}icm__mutmut_224": (
                "out_ll[b[good]] = None",
                "as squarem__mutmut_133: the log-likelihood decides nothing",
            ),
            f"{_BATCH}icm__mutmut_225": (
                "ll[b[good]] - gain[good]",
                "as squarem__mutmut_133: the log-likelihood decides nothing",
            ),
            f"{_BATCH}icm__mutmut_237": (
                "np.ones(moving.size, dtype=None),",
                "armijo_search reads pending only through np.flatnonzero and "
                "clears entries by storing False: float ones behave as True",
            ),
            f"{_BATCH}icm__mutmut_239": (
                "np.ones(moving.size, ),",
                "as icm__mutmut_237",
            ),
            f"{_RS}x_replicate_problems__mutmut_196": (
                "np.bincount(b_key, )",
                "every replicate draws at least one row, so its index is in "
                "b_key and the counts have length B anyway",
            ),
            f"{_RS}x_replicate_problems__mutmut_213": (
                "np.bincount(block, weights=count, )",
                "as x_replicate_problems__mutmut_196 (every block is present)",
            ),
            f"{_RS}x_replicate_problems__mutmut_36": (
                'kind="STABLE"',
                "numpy reads the kind case-insensitively, and the keys are "
                "distinct: the same order",
            ),
            f"{_RS}x_replicate_problems__mutmut_7": (
                "cells.m + 2",
                "one more place at the end of each replicate's row of places, "
                "where no drawn row starts or stops (never a cut, never "
                "inner); every flat index uses the same W: the same runs, "
                "cells and ranges",
            ),
            f"{_CELLS}67": (
                "self.start * (self.m - 1) + self.stop",
                "with 0 <= start < stop <= m the key start (m - 1) + stop "
                "still grows with start first (a larger start adds m - 1, a "
                "stop can fall by at most m - 2): the same order",
            ),
            f"{_CELLS}68": (
                "self.start * (self.m + 2) + self.stop",
                "stop <= m < m + 2: still the lexicographic order of (start, stop)",
            ),
            f"{_RS}x_solve_batch__mutmut_50": (
                "range(max_iter + 2)",
                "at it == max_iter every replicate is done and the loop breaks",
            ),
            f"{_RS}x_solve_batch__mutmut_104": (
                "batch.squarem(s, None, d)",
                "squarem does not read its ll argument",
            ),
            **{
                f"{_RS}x_solve_batch__mutmut_{k}": (
                    line,
                    "a replicate whose iteration left its masses unchanged "
                    "repeats the same deterministic step (P and d follow from "
                    "s; ll decides nothing) and stays there: iterating it "
                    "further, to max_iter at most, returns the same masses, "
                    "only later",
                )
                for k, line in (
                    (98, "previous = None"),
                    (121, "np.all(s == previous, axis=None)"),
                    (123, "np.all(s == previous, )"),
                )
            },
            f"{_RS}x__statistic_values__mutmut_21": (
                'invalid="ignore", divide=None',
                "total is a sum of non-negative masses: it is 0 only when "
                "every mass is 0, so mass / total is 0 / 0 (invalid), never a "
                "division of a non-zero by zero",
            ),
            f"{_RS}x__statistic_values__mutmut_23": (
                'errstate(invalid="ignore", )',
                "as x__statistic_values__mutmut_21 (divide left at its default)",
            ),
            f"{_RS}x__statistic_values__mutmut_54": (
                "np.where(held, support, 1.0)",
                "the inner np.where is inside np.where(held, ..., 0.0): the "
                "entries it changes are discarded",
            ),
            f"{_RS}x__statistic_values__mutmut_89": (
                "np.asarray(statistic.points, dtype=None)",
                "the points are only compared (atoms <= t) with float atoms: an "
                "integer or float array gives the same comparisons",
            ),
            f"{_RS}x__statistic_values__mutmut_91": (
                "np.asarray(statistic.points, )",
                "as x__statistic_values__mutmut_89",
            ),
            f"{_RS}x__statistic_values__mutmut_127": (
                "np.asarray(statistic.points, dtype=None)",
                "the levels are only compared (cum >= p) with float cumulative "
                "masses: an integer or float array gives the same comparisons",
            ),
            f"{_RS}x__statistic_values__mutmut_129": (
                "np.asarray(statistic.points, )",
                "as x__statistic_values__mutmut_127",
            ),
            f"{_RS}x__statistic_values__mutmut_109": ("n_below >= 0", _BELOW_NONE),
            f"{_RS}x__statistic_values__mutmut_112": (
                "_last_true(below), 1)",
                _BELOW_NONE,
            ),
            f"{_RS}x__statistic_values__mutmut_147": (
                "reach.any(axis=None)",
                "a replicate that is not ok holds nothing and its value is "
                "dropped; every ok replicate reaches a level p <= 1 (cum is 1 "
                "from its last atom on) and none reaches p > 1 or NaN, so "
                "for the values kept the batch-wide any equals the row's",
            ),
            f"{_RS}x__subset__mutmut_2": (
                "None,",
                "the subset goes only to solve_batch, which reads left (its "
                "shape), m, start, stop and w, not right",
            ),
            f"{_RS}x__subset__mutmut_7": (
                "None,",
                "as x__subset__mutmut_2: solve_batch does not read n_rows",
            ),
            f"{_RS}x__solve__mutmut_16": (
                "solve_batch(problems, None, _EARLY_TOL",
                "on the Newton path the method is em-icm, and solve_batch runs "
                "both SQUAREM (method != 'icm') and ICM (method != 'turnbull') "
                "for None as for 'em-icm'",
            ),
            f"{_RS}x__solve__mutmut_100": (
                "_subset(problems, rest), None,",
                "as x__solve__mutmut_16: the fallback of the Newton path, whose "
                "method is em-icm",
            ),
            f"{_RS}x__solve__mutmut_42": (
                "np.full_like(s0, None)",
                "None fills a float array with NaN: the same array",
            ),
            f"{_RS}x__solve__mutmut_56": (
                "size[small].max(initial=None)",
                "small is never empty (the smallest support is at most the "
                "median, hence at most max(floor, 4 x median)) and sizes are "
                ">= 0: the same max",
            ),
            f"{_RS}x__solve__mutmut_57": (
                "size[small].max(initial=1)",
                "differs only when every support is empty (every early fit "
                "failed): the Newton parts are then smaller, a memory bound "
                "only; each of those replicates fails the Newton steps and "
                "runs the fit's iteration either way",
            ),
            **{
                f"{_RS}x_resampled_statistics__mutmut_{k}": (
                    line,
                    "the name appears only in the message of data that do not "
                    "validate, and that error is caught (the refits are then "
                    "not batched): the same None",
                )
                for k, line in (
                    (10, "name=None"),
                    (12, "check_interval_array(X, )"),
                    (13, 'name="XXXXX"'),
                    (14, 'name="x"'),
                )
            },
            **{
                f"{_RS}x_resampled_statistics__mutmut_{k}": (line, _SETUP_BRANCH)
                for k, line in (
                    (83, "4 / keys.size > B * n"),
                    (84, "5 * keys.size > B * n"),
                    (85, "4 * keys.size >= B * n"),
                    (86, "4 * keys.size > B / n"),
                )
            },
            f"{_RS}x_resampled_statistics__mutmut_91": (
                "np.bincount(keys, )",
                "without minlength the counts stop at the largest key: "
                "np.flatnonzero finds the same keys",
            ),
            f"{_RS}x_resampled_statistics__mutmut_96": (
                "counts[keys].astype(None)",
                _FLOAT,
            ),
            f"{_RS}x_resampled_statistics__mutmut_104": (
                "count.astype(None)",
                _FLOAT,
            ),
            f"{_RS}x_resampled_statistics__mutmut_208": (".astype(None)", _FLOAT),
            f"{_RS}x_resampled_statistics__mutmut_147": (
                "batched.size, None)",
                "replicate_problems computes DataCells(Z) when not given: the "
                "same cells, a speed change only",
            ),
            f"{_RS}x_resampled_statistics__mutmut_153": (
                "batched.size, )",
                "as x_resampled_statistics__mutmut_147",
            ),
            f"{_RS}x_resampled_statistics__mutmut_178": (
                ".any(axis=None)",
                "a cell's support point (its right end, else its left end) is "
                "always finite: both ends infinite needs a row (-inf, inf), "
                "which declines the batching before; located is all True",
            ),
            f"{_RS}x_resampled_statistics__mutmut_215": (
                "statistic, None)",
                "fit_y=None is falsy like False: the refit is est.fit(X[idx])",
            ),
            f"{_RS}x_resampled_statistics__mutmut_222": (
                "statistic, True)",
                "with y = None, _take(None, idx) is None and IntervalNPMLE.fit "
                "ignores y: the same refit",
            ),
            # the construction from the places where rows start or stop
            # (numbered on that source)
            **_SPARSE_PLACES,
        },
    ),
}
