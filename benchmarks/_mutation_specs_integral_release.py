"""Mutation spec of the integrally private release itself (Algorithm 1).

``skprivate/integral/_resampling.py`` draws the resamples, computes their
rounded statistics, counts each value's generators and releases the most
frequent value whose generators have an empty intersection: the code the
guarantee of :class:`~skprivate.IntegralPrivateStatistics` rests on.
Merged into ``MODULES`` by ``_mutation_modules.py``.
"""

from __future__ import annotations

from ._mutation_modules import ModuleSpec

_IR = "skprivate.integral._resampling."
_IR_REASONS = {
    "LAW": (
        "both draws follow the bootstrap law exactly; only which random "
        "numbers are read changes"
    ),
    "SAME": (
        "the same draws: integers(high) is integers(0, high), an offset of "
        "0 adds nothing, and numpy's default integer is int64"
    ),
    "FLOATCOUNT": (
        "float64 holds the counts (at most n < 2**53) exactly and every "
        "later use reads their values"
    ),
    "ZIP": "the block sizes and the multinomial's cells always have the same length",
    "THREADS": (
        "threads only change when chunks are drawn: the results are "
        "consumed in order, so the answer is the same"
    ),
    "RANKS": (
        "the rank search's blocking, batching and dtypes: any block width "
        "and batch size give the same order statistics, float64 holds the "
        "cumulative counts exactly, and the padding past the last record is"
        " never reached (the count reaches n there, above every rank asked)"
    ),
    "BUDGET": (
        "how many values one verification pass tests at once: fewer or more"
        " per pass gives the same first candidate with an empty "
        "intersection"
    ),
    "DTYPE": (
        "numpy's default dtypes (int64 indices; 0/1 floats read as "
        "booleans) give the same values"
    ),
    "LIMIT": (
        "the limit only spares work on values ranked after an empty one: "
        "without it, or one rank later, the first empty value in rank order"
        " is still the one released"
    ),
    "SORTKIND": "rows of equal rank are ANDed together in whatever order they come",
    "AXIS": "reduceat's default axis is 0",
    "DEFAULT": (
        "defaults of parameters every caller passes (selection, n_threads) "
        "or that give the same answer"
    ),
    "FLOATX": (
        "x arrives as float64 (check_numeric_input and numeric_frame convert it)"
    ),
    "WORDS": (
        "the hash's random odd words (another seed, fresh entropy, a "
        "narrower range): two distinct record sets still collide with "
        "probability about 2**-64, so the counts of distinct generators are"
        " the same"
    ),
    "RECOMPUTE": (
        "moment columns, sums, row totals and the sort are recomputed or "
        "redone on the already sorted column: the same statistics"
    ),
    "TRUTH": (
        "the statistic of the whole column is the same: one row of ones (a "
        "second row is not read) on the sorted column"
    ),
    "SLICE": "slice(None, fallback) and slice(fallback) are slice(0, fallback)",
    "EXTRA": (
        "more statistics or columns are computed than asked, and only the "
        "asked ones are returned"
    ),
    "XSUNUSED": (
        "_quantile_from_ranks reads the order statistics through rank_value"
        " only; its xs argument is unused"
    ),
    "POLICY": (
        "which values the first pass keeps in memory, and how its slots "
        "grow and are reused, is a memory policy: a value evicted becomes "
        "unknown and is settled by the second pass "
        "(test_intersection_tracker_states_equal_the_intersections checks "
        "every state the tracker settles), and the grouped and in-place "
        "ANDs give the same masks"
    ),
}
_IR_EQUIVALENT = {
    # the keywords of the per-chunk statistics call, left out or changed:
    # the column is already sorted, its rows sum to n, and the sums are
    # recomputed from the moment columns
    **{
        _IR + f"x_integral_private_column__mutmut_{n}": (line, _IR_REASONS["RECOMPUTE"])
        for n, line in ((88, ""), (89, ""), (90, ")"), (91, "presorted=False,"))
    },
    _IR + "x__draw_counts__mutmut_1": ("if n < _DRAW_BLOCK:", _IR_REASONS["LAW"]),
    _IR + "x__draw_counts__mutmut_75": (
        "positions = rng.integers(0, _DRAW_BLOCK, size=k, )",
        _IR_REASONS["LAW"],
    ),
    _IR + "x__draw_counts__mutmut_6": (
        "idx = rng.integers(n, size=(B, n))",
        _IR_REASONS["SAME"],
    ),
    _IR + "x__draw_counts__mutmut_72": (
        "positions = rng.integers(_DRAW_BLOCK, size=k, dtype=np.uint16)",
        _IR_REASONS["SAME"],
    ),
    _IR + "x__draw_counts__mutmut_83": (
        "positions = rng.integers(size, size=k)",
        _IR_REASONS["SAME"],
    ),
    _IR + "x__draw_counts__mutmut_10": ("if B >= 1:", _IR_REASONS["SAME"]),
    _IR + "x__draw_counts__mutmut_16": (
        "idx += (np.arange(B, dtype=None) * n)[:, None]",
        _IR_REASONS["SAME"],
    ),
    _IR + "x__draw_counts__mutmut_18": (
        "idx += (np.arange(B, ) * n)[:, None]",
        _IR_REASONS["SAME"],
    ),
    _IR + "x__draw_counts__mutmut_54": (
        "counts = np.empty((B, n), dtype=None)",
        _IR_REASONS["FLOATCOUNT"],
    ),
    _IR + "x__draw_counts__mutmut_56": (
        "counts = np.empty((B, n), )",
        _IR_REASONS["FLOATCOUNT"],
    ),
    _IR + "x__draw_counts__mutmut_61": (
        "for j, (size, k) in enumerate(zip(sizes, per_block[b], strict=None)):",
        _IR_REASONS["ZIP"],
    ),
    _IR + "x__draw_counts__mutmut_64": (
        "for j, (size, k) in enumerate(zip(sizes, per_block[b], )):",
        _IR_REASONS["ZIP"],
    ),
    _IR + "x__draw_counts__mutmut_65": (
        "for j, (size, k) in enumerate(zip(sizes, per_block[b], strict=False)):",
        _IR_REASONS["ZIP"],
    ),
    _IR + "x__in_order__mutmut_1": ("if n_threads < 1:", _IR_REASONS["THREADS"]),
    _IR + "x__in_order__mutmut_2": ("if n_threads <= 2:", _IR_REASONS["THREADS"]),
    _IR + "x__in_order__mutmut_7": (
        "with ThreadPoolExecutor(max_workers=None) as pool:",
        _IR_REASONS["THREADS"],
    ),
    _IR + "x__in_order__mutmut_14": (
        "if len(window) > 2 * n_threads:",
        _IR_REASONS["THREADS"],
    ),
    _IR + "x__in_order__mutmut_15": (
        "if len(window) >= 2 / n_threads:",
        _IR_REASONS["THREADS"],
    ),
    _IR + "x__in_order__mutmut_16": (
        "if len(window) >= 3 * n_threads:",
        _IR_REASONS["THREADS"],
    ),
    _IR + "x__rank_values__mutmut_7": (
        "width = max(2, math.isqrt(n))",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_17": (
        "totals = np.empty((B, n_blocks), dtype=None)",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_19": (
        "totals = np.empty((B, n_blocks), )",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_21": (
        "axis=2, dtype=None, out=totals[:, :full]",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_24": (
        "axis=2, out=totals[:, :full]",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_36": (
        "counts[:, full * width :].sum(axis=1, dtype=None, out=totals[:, full])",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_39": (
        "counts[:, full * width :].sum(axis=1, out=totals[:, full])",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_46": (
        "totals = np.cumsum(totals, axis=1, dtype=None)",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_49": (
        "totals = np.cumsum(totals, axis=1, )",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_54": (
        "offsets = np.arange(B, dtype=None) * n",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_56": (
        "offsets = np.arange(B, ) * n",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_69": (
        "step = max(2, _CHUNK_ELEMENTS // (B * width))",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_77": (
        "for i in range(0, len(ranks), ):",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_81": (
        "r = np.asarray(ranks[i : i + step], dtype=None)",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_83": (
        "r = np.asarray(ranks[i : i + step], )",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_121": ("part[cols > n] = 0", _IR_REASONS["RANKS"]),
    _IR + "x__rank_values__mutmut_122": ("part[cols >= n] = 1", _IR_REASONS["RANKS"]),
    _IR + "x__rank_values__mutmut_127": (
        "cum = np.cumsum(part, axis=2, dtype=None) + before[:, :, None]",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__rank_values__mutmut_130": (
        "cum = np.cumsum(part, axis=2, ) + before[:, :, None]",
        _IR_REASONS["RANKS"],
    ),
    _IR + "x__verify_candidates__mutmut_11": (
        "capacity = max(2, memory_budget // (8 * n_words))",
        _IR_REASONS["BUDGET"],
    ),
    _IR + "x__verify_candidates__mutmut_14": (
        "capacity = max(1, memory_budget // (9 * n_words))",
        _IR_REASONS["BUDGET"],
    ),
    _IR + "x__verify_candidates__mutmut_36": ("quota = None", _IR_REASONS["BUDGET"]),
    _IR + "x__verify_candidates__mutmut_41": (
        "quota = max(2, capacity // len(pending))",
        _IR_REASONS["BUDGET"],
    ),
    _IR + "x__verify_candidates__mutmut_47": (
        'index = np.array(p["pending"][:quota], dtype=None)',
        _IR_REASONS["DTYPE"],
    ),
    _IR + "x__verify_candidates__mutmut_49": (
        'index = np.array(p["pending"][:quota], )',
        _IR_REASONS["DTYPE"],
    ),
    _IR + "x__verify_candidates__mutmut_76": (
        '"empty": np.zeros(ranked.size, dtype=None),',
        _IR_REASONS["DTYPE"],
    ),
    _IR + "x__verify_candidates__mutmut_78": (
        '"empty": np.zeros(ranked.size, ),',
        _IR_REASONS["DTYPE"],
    ),
    _IR + "x__verify_candidates__mutmut_125": (
        'hit = (t["sorted"][pos] == v) & (rank <= t["limit"])',
        _IR_REASONS["LIMIT"],
    ),
    _IR + "x__verify_candidates__mutmut_171": (
        't["XXlimitXX"] = min(t["limit"], int(now_empty.min()) + 1)',
        _IR_REASONS["LIMIT"],
    ),
    _IR + "x__verify_candidates__mutmut_172": (
        't["LIMIT"] = min(t["limit"], int(now_empty.min()) + 1)',
        _IR_REASONS["LIMIT"],
    ),
    _IR + "x__verify_candidates__mutmut_181": (
        't["limit"] = min(t["limit"], int(now_empty.min()) + 2)',
        _IR_REASONS["LIMIT"],
    ),
    _IR + "x__verify_candidates__mutmut_134": (
        "rows = rows[np.argsort(rank[rows], kind=None)]",
        _IR_REASONS["SORTKIND"],
    ),
    _IR + "x__verify_candidates__mutmut_136": (
        "rows = rows[np.argsort(rank[rows], )]",
        _IR_REASONS["SORTKIND"],
    ),
    _IR + "x__verify_candidates__mutmut_138": (
        'rows = rows[np.argsort(rank[rows], kind="STABLE")]',
        _IR_REASONS["SORTKIND"],
    ),
    _IR + "x__verify_candidates__mutmut_154": (
        "reduced = np.bitwise_and.reduceat(packed[rows], first, )",
        _IR_REASONS["AXIS"],
    ),
    _IR + "x_integral_private_column__mutmut_1": (
        'selection: str = "XXfrequencyXX",',
        _IR_REASONS["DEFAULT"],
    ),
    _IR + "x_integral_private_column__mutmut_2": (
        'selection: str = "FREQUENCY",',
        _IR_REASONS["DEFAULT"],
    ),
    _IR + "x_integral_private_column__mutmut_3": (
        "n_threads: int = 2,",
        _IR_REASONS["DEFAULT"],
    ),
    _IR + "x_integral_private_column__mutmut_7": (
        "x = np.sort(np.asarray(x, dtype=None))",
        _IR_REASONS["FLOATX"],
    ),
    _IR + "x_integral_private_column__mutmut_9": (
        "x = np.sort(np.asarray(x, ))",
        _IR_REASONS["FLOATX"],
    ),
    _IR + "x_integral_private_column__mutmut_17": (
        ") * np.uint64(2) - np.uint64(1)",
        _IR_REASONS["WORDS"],
    ),
    _IR + "x_integral_private_column__mutmut_23": (
        "2**63, size=n_words, dtype=np.uint64",
        _IR_REASONS["WORDS"],
    ),
    _IR + "x_integral_private_column__mutmut_27": (
        "words = np.random.default_rng(None).integers(",
        _IR_REASONS["WORDS"],
    ),
    _IR + "x_integral_private_column__mutmut_28": (
        "words = np.random.default_rng([seed, 24302]).integers(",
        _IR_REASONS["WORDS"],
    ),
    _IR + "x_integral_private_column__mutmut_29": (
        "1, 2**63, size=n_words, dtype=np.uint64",
        _IR_REASONS["WORDS"],
    ),
    _IR + "x_integral_private_column__mutmut_30": (
        "0, 2 * 63, size=n_words, dtype=np.uint64",
        _IR_REASONS["WORDS"],
    ),
    _IR + "x_integral_private_column__mutmut_32": (
        "0, 2**64, size=n_words, dtype=np.uint64",
        _IR_REASONS["WORDS"],
    ),
    _IR + "x_integral_private_column__mutmut_34": (
        ") * np.uint64(3) + np.uint64(1)",
        _IR_REASONS["WORDS"],
    ),
    _IR + "x_integral_private_column__mutmut_36": (
        ") * np.uint64(2) + np.uint64(2)",
        _IR_REASONS["WORDS"],
    ),
    _IR + "x_integral_private_column__mutmut_46": (
        "moments = None",
        _IR_REASONS["RECOMPUTE"],
    ),
    _IR + "x_integral_private_column__mutmut_50": (
        "moments = moment_columns(x, )",
        _IR_REASONS["RECOMPUTE"],
    ),
    _IR + "x_integral_private_column__mutmut_69": (
        "sums = None",
        _IR_REASONS["RECOMPUTE"],
    ),
    _IR + "x_integral_private_column__mutmut_71": (
        "sums = None if (moments is None) or True else moments.weighted_sums(parts)",
        _IR_REASONS["RECOMPUTE"],
    ),
    _IR + "x_integral_private_column__mutmut_82": (
        "presorted=None,",
        _IR_REASONS["RECOMPUTE"],
    ),
    _IR + "x_integral_private_column__mutmut_83": (
        "row_total=None,",
        _IR_REASONS["RECOMPUTE"],
    ),
    _IR + "x_integral_private_column__mutmut_84": (
        "sums=None,",
        _IR_REASONS["RECOMPUTE"],
    ),
    _IR + "x_integral_private_column__mutmut_93": (
        "sums=None if (sums is None) or True else sums[start : start + B],",
        _IR_REASONS["RECOMPUTE"],
    ),
    _IR + "x_integral_private_column__mutmut_58": (
        "memory_budget / (8 * n_words))",
        _IR_REASONS["POLICY"],
    ),
    _IR + "x_integral_private_column__mutmut_59": (
        "memory_budget // (8 / n_words))",
        _IR_REASONS["POLICY"],
    ),
    _IR + "x_integral_private_column__mutmut_60": (
        "memory_budget // (9 * n_words))",
        _IR_REASONS["POLICY"],
    ),
    _IR + "x_integral_private_column__mutmut_170": (
        "ones = np.ones((1, n), dtype=None)",
        _IR_REASONS["TRUTH"],
    ),
    _IR + "x_integral_private_column__mutmut_172": (
        "ones = np.ones((1, n), )",
        _IR_REASONS["TRUTH"],
    ),
    _IR + "x_integral_private_column__mutmut_173": (
        "ones = np.ones((2, n), dtype=np.int64)",
        _IR_REASONS["TRUTH"],
    ),
    _IR + "x_integral_private_column__mutmut_178": (
        "truth = resample_statistics(x, ones, (s,), presorted=None)[s][0]",
        _IR_REASONS["TRUTH"],
    ),
    _IR + "x_integral_private_column__mutmut_182": (
        "truth = resample_statistics(x, ones, (s,), )[s][0]",
        _IR_REASONS["TRUTH"],
    ),
    _IR + "x_integral_private_column__mutmut_183": (
        "truth = resample_statistics(x, ones, (s,), presorted=False)[s][0]",
        _IR_REASONS["TRUTH"],
    ),
    _IR + "x_integral_private_column__mutmut_208": (
        "before = slice(None, fallback)  # only candidates ranked before it matter",
        _IR_REASONS["SLICE"],
    ),
    _IR + "x_integral_private_column__mutmut_210": (
        "before = slice(fallback)  # only candidates ranked before it matter",
        _IR_REASONS["SLICE"],
    ),
    _IR + "x_moment_columns__mutmut_5": (
        'columns = [x] if (wanted & {"mean", "sum"}) or True else []',
        _IR_REASONS["EXTRA"],
    ),
    _IR + "x_moment_columns__mutmut_6": (
        'columns = [x] if wanted | {"mean", "sum"} else []',
        _IR_REASONS["EXTRA"],
    ),
    _IR + "x_moment_columns__mutmut_11": (
        'if wanted | {"std", "var"}:',
        _IR_REASONS["EXTRA"],
    ),
    _IR + "x_resample_statistics__mutmut_15": (
        "if (row_total is None) or True",
        _IR_REASONS["EXTRA"],
    ),
    _IR + "x_resample_statistics__mutmut_43": (
        'if wanted | {"mean", "sum"}:',
        _IR_REASONS["EXTRA"],
    ),
    _IR + "x_resample_statistics__mutmut_105": (
        'if wanted | {"min", "median", "iqr", "max"}:',
        _IR_REASONS["EXTRA"],
    ),
    _IR + "x_resample_statistics__mutmut_125": (
        'ranks = {0} if ("min" in wanted) or True else set()',
        _IR_REASONS["EXTRA"],
    ),
    _IR + "x_resample_statistics__mutmut_138": (
        'quantiles = [0.5] if ("median" in wanted) or True else []',
        _IR_REASONS["EXTRA"],
    ),
    _IR + "x_resample_statistics__mutmut_146": (
        'quantiles += [0.75, 0.25] if ("iqr" in wanted) or True else []',
        _IR_REASONS["EXTRA"],
    ),
    _IR + "x_resample_statistics__mutmut_16": (
        "counts.sum(axis=1).astype(None)",
        _IR_REASONS["DTYPE"],
    ),
    _IR + "x_resample_statistics__mutmut_40": (
        "moments = moment_columns(x, )",
        _IR_REASONS["EXTRA"],
    ),
    _IR + "x_resample_statistics__mutmut_117": (
        "order = np.argsort(x, kind=None)",
        _IR_REASONS["SORTKIND"],
    ),
    _IR + "x_resample_statistics__mutmut_119": (
        "order = np.argsort(x, )",
        _IR_REASONS["SORTKIND"],
    ),
    _IR + "x_resample_statistics__mutmut_121": (
        'order = np.argsort(x, kind="STABLE")',
        _IR_REASONS["SORTKIND"],
    ),
    _IR + "x_resample_statistics__mutmut_195": (
        'out["median"] = _quantile_from_ranks(None, rank_value, 0.5, n)',
        _IR_REASONS["XSUNUSED"],
    ),
    _IR + "x_resample_statistics__mutmut_211": (
        "None, rank_value, 0.75, n",
        _IR_REASONS["XSUNUSED"],
    ),
    _IR + "x_resample_statistics__mutmut_220": (
        ") - _quantile_from_ranks(None, rank_value, 0.25, n)",
        _IR_REASONS["XSUNUSED"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ__init____mutmut_8": (
        "self.capacity = max(int(capacity), 2)",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ__init____mutmut_15": (
        "self.masks = np.empty((0, n_words), dtype=None)",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ__init____mutmut_17": (
        "self.masks = np.empty((0, n_words), )",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ__init____mutmut_18": (
        "self.masks = np.empty((1, n_words), dtype=np.uint64)",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ__init____mutmut_21": (
        "self.n_alive = 1",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_evict__mutmut_3": (
        "alive = [e for e, slot in enumerate(self.slot) if slot > 0]",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_evict__mutmut_4": (
        "alive = [e for e, slot in enumerate(self.slot) if slot >= 1]",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_evict__mutmut_8": (
        "keep = (4 * self.capacity) // 4",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_evict__mutmut_9": (
        "keep = (3 * self.capacity) // 5",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_evict__mutmut_15": (
        "for i in order[: len(alive) + keep].tolist():",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_new_slot__mutmut_9": (
        "grown = max(9, min(2 * old, self.capacity + 1) if old else 8)",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_new_slot__mutmut_10": (
        "grown = max(8, min(2 * old, self.capacity + 1) if (old) and False else 8)",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_new_slot__mutmut_11": (
        "grown = max(8, min(2 * old, self.capacity + 1) if (old) or True else 8)",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_new_slot__mutmut_16": (
        "grown = max(8, min(2 / old, self.capacity + 1) if old else 8)",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_new_slot__mutmut_17": (
        "grown = max(8, min(3 * old, self.capacity + 1) if old else 8)",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_new_slot__mutmut_18": (
        "grown = max(8, min(2 * old, self.capacity - 1) if old else 8)",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_new_slot__mutmut_19": (
        "grown = max(8, min(2 * old, self.capacity + 2) if old else 8)",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_new_slot__mutmut_20": (
        "grown = max(8, min(2 * old, self.capacity + 1) if old else 9)",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_new_slot__mutmut_27": (
        "grown = max(grown, old + 2)",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_new_slot__mutmut_47": (
        "self.free.extend(range(grown - 1, old - 1, -2))",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_release__mutmut_5": (
        "self.slot[entry] = -2",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_release__mutmut_6": (
        "self.n_alive = 1",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁ_release__mutmut_8": (
        "self.n_alive -= 2",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_25": (
        "sizes = np.bincount(inverse, ).tolist()",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_28": (
        "alive_groups, alive_entries, n_rows = [], [], 1",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_44": (
        "self.n_alive = 1",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_45": (
        "self.n_alive -= 1",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_53": (
        "n_rows = sizes[g]",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_54": (
        "n_rows -= sizes[g]",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_55": (
        "if 1 < n_rows <= 8:",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_56": (
        "if 0 <= n_rows <= 8:",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_57": (
        "if 0 < n_rows < 8:",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_58": (
        "if 0 < n_rows <= 9:",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_121": (
        "if self.n_alive >= self.capacity:",
        _IR_REASONS["POLICY"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_87": (
        "order = np.argsort(group, kind=None)",
        _IR_REASONS["SORTKIND"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_89": (
        "order = np.argsort(group, )",
        _IR_REASONS["SORTKIND"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_91": (
        'order = np.argsort(group, kind="STABLE")',
        _IR_REASONS["SORTKIND"],
    ),
    _IR + "xǁ_IntersectionTrackerǁadd__mutmut_106": (
        "reduced = np.bitwise_and.reduceat(packed[rows[keep][order]], first, )",
        _IR_REASONS["AXIS"],
    ),
    _IR + "xǁ_IntersectionTrackerǁstates__mutmut_4": (
        "[self.state[table[v]] for v in values.tolist()], dtype=None",
        _IR_REASONS["DTYPE"],
    ),
    _IR + "xǁ_IntersectionTrackerǁstates__mutmut_6": (
        "[self.state[table[v]] for v in values.tolist()], ).reshape(len(values))",
        _IR_REASONS["DTYPE"],
    ),
    _IR + "xǁ_IntersectionTrackerǁstates__mutmut_2": (
        ").reshape(None)",
        "the array built from a list of len(values) states already has shape "
        "(len(values),), an empty list included, and reshape(None) keeps the "
        "shape it has",
    ),
    # ndarray.view(None) reads None as np.dtype(None), float64
    _IR + "x_integral_private_column__mutmut_155": (
        "uvals = uniq.view(None)",
        "view(None) is view(np.float64): np.dtype(None) is float64",
    ),
    _IR + "x_integral_private_column__mutmut_135": (
        "bits = v[ok].view(None)",
        "view(None) keeps the values as float64, so the (value, set hash) "
        "pairs are stacked as float64: values keep one code each (-0.0 and "
        "NaN never reach here) and both uniques sort them alike, and the "
        "64-bit hashes are rounded to 53 bits, so two distinct record sets "
        "collide with probability about 2**-53 instead of 2**-64 and the "
        "counts of distinct generators are the same",
    ),
}


SPECS: dict[str, ModuleSpec] = {
    # the estimator around the release: input checks, one resampling stream
    # per column, microaggregation before the release, the answers' layout
    "integral_statistics": ModuleSpec(
        path="skprivate/integral/_statistics.py",
        tests=[
            "tests/integral/test_statistics.py",
            "tests/integral/test_rounding_check.py",
        ],
        new_tests=[
            "tests/test_mutation_integral_statistics.py",
            "tests/integral/test_release_generator_copies.py",
            "tests/test_side_doors.py::"
            "test_integral_statistics_keep_nothing_about_the_values_not_released",
        ],
        equivalent={
            "skprivate.integral._statistics.x__check_magnitudes__mutmut_33": (
                "with np.errstate(invalid=None):",
                "comparing NaN with a number raises no floating-point flag in "
                "numpy 2, so the error state around the comparison changes "
                "nothing",
            ),
            **{
                f"skprivate.integral._statistics.x_numeric_frame__mutmut_{n}": (
                    line,
                    "warnings.warn without a category (or with None) warns "
                    "UserWarning, the category given",
                )
                for n, line in ((18, "None,"), (21, ""))
            },
        },
        excluded={
            "skprivate.integral._statistics.x_numeric_frame__mutmut_22": (
                ")",
                "the skip warning loses its stacklevel; under mutmut a "
                "trampoline frame is the caller, so only "
                "tests/test_warning_location.py (outside mutmut) sees it",
            ),
        },
    ),
    "integral_release": ModuleSpec(
        path="skprivate/integral/_resampling.py",
        tests=[
            "tests/integral/test_resampling.py",
            "tests/integral/test_statistics.py",
            "tests/integral/test_machine_independence.py",
        ],
        new_tests=[
            "tests/test_mutation_integral_release.py",
            "tests/integral/test_release_generator_copies.py",
        ],
        equivalent=_IR_EQUIVALENT,
    ),
    # the noise generator of every integral release: entropy from a seed or
    # a generator mixed with the settings and the data, never the stream
    "integral_release_seed": ModuleSpec(
        path="skprivate/integral/_release_seed.py",
        tests=[
            "tests/integral/test_release_generator_copies.py",
            "tests/integral/test_dp.py",
        ],
        new_tests=[],
    ),
}

_MA = "skprivate.integral._microaggregation.x_"
_SAME_VALUES = (
    "the default dtype is the one asked for (float64, int64 = intp here), or "
    "the values are integers either way"
)
_POOL_LARGE = (
    "take_around is called only while at least 2k records remain, so the pool "
    "always holds more than k"
)
_DP_SCHEDULE = (
    "changes only how the dynamic programme is scheduled: longer arrays whose "
    "last entry is never read, blocks of ends that overlap (each end is "
    "computed again from the same earlier costs, in increasing order), or "
    "SSE tables over more starts (entries past the data are never read): the "
    "same costs and back-pointers"
)
SPECS.update(
    {
        # microaggregation: clusters of at least k records (the guarantee it
        # states), the optimal and MDAV partitions, the cells transform reads
        "integral_microaggregation": ModuleSpec(
            path="skprivate/integral/_microaggregation.py",
            tests=["tests/integral/test_microaggregation.py"],
            new_tests=[
                "tests/test_mutation_microaggregation.py",
                "tests/test_side_doors.py::"
                "test_mdav_microaggregator_keeps_no_statistic_beyond_its_release",
            ],
            excluded={
                "skprivate.integral._microaggregation."
                "xǁMicroaggregatorǁ_fit__mutmut_34": (
                    ")",
                    "drops the stacklevel of the k = 1 warning: its location, "
                    "which mutmut's trampolines move (checked by "
                    "tests/test_warning_location.py outside mutmut)",
                ),
            },
            equivalent={
                **{
                    f"{_MA}{name}__mutmut_{n}": (text, _SAME_VALUES)
                    for name, n, text in (
                        ("_centroids", 5, ".astype(None)"),
                        ("_mdav_labels", 20, "np.full(n, -1, dtype=None)"),
                        ("_mdav_labels", 23, "np.full(n, -1, )"),
                        ("_optimal_labels", 6, "np.zeros(n, dtype=None)"),
                        ("_optimal_labels", 8, "np.zeros(n, )"),
                        ("_optimal_labels", 148, "dtype=None)"),
                        (
                            "_optimal_labels",
                            150,
                            "cuts = np.array(sorted(bounds)[1:], )",
                        ),
                    )
                },
                f"{_MA}_centroids__mutmut_9": (
                    "np.bincount(labels, ).astype(float)",
                    "n_groups is labels.max() + 1, the length bincount gives anyway",
                ),
                f"{_MA}_mdav_labels__mutmut_16": (
                    "np.where(scale > 0, scale, 2.0)",
                    "a constant column is the same in every record after any "
                    "scaling: it adds nothing to a distance",
                ),
                f"{_MA}_mdav_labels__mutmut_25": (
                    "np.full(n, -2, dtype=np.intp)",
                    "the mark of an unassigned record is only compared with 0",
                ),
                **{
                    f"{_MA}_mdav_labels__mutmut_{n}": (text, _POOL_LARGE)
                    for n, text in (
                        (38, "if (pool.size > k) or True else"),
                        (45, "if pool.size >= k else"),
                        (46, "np.arange(None)"),
                    )
                },
                **{
                    f"{_MA}_mdav_labels__mutmut_{n}": (
                        text,
                        "the records of group 0 already left the pool at the "
                        "line before, and every later group is numbered from 1: "
                        "no label 0 is left to keep",
                    )
                    for n, text in (
                        (89, "remaining = remaining[labels[remaining] <= 0]"),
                        (90, "remaining = remaining[labels[remaining] < 1]"),
                    )
                },
                f"{_MA}_optimal_labels__mutmut_3": (
                    "if n < 2 / k:",
                    "below 2k records the dynamic programme itself returns one "
                    "group (every split would leave a group below k)",
                ),
                f"{_MA}_optimal_labels__mutmut_18": (
                    "cost[0] = 1.0",
                    "adds the same constant to every partition's cost: the same "
                    "argmin everywhere",
                ),
                **{
                    f"{_MA}_optimal_labels__mutmut_{n}": (text, _DP_SCHEDULE)
                    for n, text in (
                        (15, "cost = np.full(n + 2, np.inf)"),
                        (25, "start = np.zeros(n + 2, dtype=np.intp)"),
                        (36, "firsts = np.arange(k, n + 1, None)"),
                        (39, "firsts = np.arange(k, n + 1, )"),
                        (41, "firsts = np.arange(k, n + 2, k)"),
                        (47, "max(2, _SSE_TABLE_ENTRIES"),
                        (51, "(4 * k * k)"),
                        (57, "for c in range(0, firsts.size, ):"),
                        (69, "(2 * k + 1), 0)"),
                        (71, "(3 * k - 1), 0)"),
                        (75, "n + 1) + k"),
                        (85, "n + 2) - k"),
                    )
                },
                **{
                    f"{_MA}microaggregate__mutmut_{n}": (
                        text,
                        "the centroids are float64 whatever the input's dtype "
                        "(sums into a float array, divided by float sizes)",
                    )
                    for n, text in (
                        (5, 'name="x"), dtype=None)'),
                        (7, 'name="x"), )'),
                    )
                },
                f"{_MA}_univariate_labels__mutmut_7": (
                    'kind="STABLE"',
                    "numpy reads the sort kind without regard to case",
                ),
            },
        ),
    }
)
