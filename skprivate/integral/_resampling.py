"""Algorithm 1 on one column: bootstrap, round, count generators, test them.

Nothing here loops over resamples or records in Python.  Resamples are
drawn in chunks as a matrix of per-record counts ``C`` (``C[i, j]`` is how
often record ``j`` appears in resample ``i``), built from the drawn index
multisets with one ``bincount``.  From ``C``:

* mean, variance, SD and sum are weighted sums ``C @ x``, computed in
  fixed point so that every sum is exact and the rounded statistic is the
  same on every CPU, BLAS kernel and thread count
  (:class:`skprivate.utils._exact_sums.FixedPointColumns`); the digits of
  the fixed-point columns are read once for a batch of several resamples;
* order statistics (median, quartiles, min, max) come from the cumulative
  counts over the sorted values: the element of rank ``r`` of resample
  ``i`` is the first sorted position where the cumulative count exceeds
  ``r``.  Rows are cut into blocks of about ``sqrt(n)`` records; one
  ``searchsorted`` on the cumulative block totals (row-offset, flattened)
  finds every resample's block, and only that block is accumulated;
* the generator of a resample is its set of records ``C[i] > 0``; two
  resamples are the same generator when the sets are equal, detected by a
  64-bit hash of the set (a sum of fixed random words modulo 2**64).

One pass over the resamples computes the rounded statistics of every
resample and, per statistic and rounded value, the running intersection of
the record sets of the resamples giving that value (bit masks ANDed
together; a mask that becomes empty is released at once, since its value
already has generators with an empty intersection).  Candidate values
(frequency above the threshold) are then ranked and the first one with an
empty intersection is released.  Only when the masks outgrow the memory
budget are the least frequent values evicted; a second pass over the same
resamples (re-drawn from their chunks' seeds) then tests those evicted
values that rank ahead of every settled one.  Memory is O(n) for one chunk
plus the budget of masks; time is O(n t).
"""

from __future__ import annotations

import math
from collections import deque
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass

import numpy as np
from numpy.typing import NDArray

from ..utils._exact_sums import FixedPointColumns

STATISTICS = ("count", "mean", "std", "var", "min", "median", "iqr", "max", "sum")

# Elements of one chunk of the (resamples x records) count matrix.
_CHUNK_ELEMENTS = 1 << 20
# Resamples summarized together at least (several chunks when the records
# are many): the digits of the moment columns, the largest read per
# resample, are then read once for all of them.
_BATCH_RESAMPLES = 4


@dataclass
class ColumnResult:
    """Outcome of Algorithm 1 for one statistic of one column."""

    statistic: str
    value: float
    frequency: int
    n_resamples_with_value: int
    n_candidates: int
    max_frequency: int
    empty_intersection: bool


def _quantile_ranks(q, n):
    """Rank below the ``q`` quantile of ``n`` values and the interpolation weight."""
    h = (n - 1) * q
    lo = int(np.floor(h))
    return lo, h - lo


def _quantile_from_ranks(xs, rank_value, q, n):
    """Linear-interpolation quantile (numpy's default) from an order-stat getter."""
    lo, frac = _quantile_ranks(q, n)
    v = rank_value(lo)
    if frac > 0:
        v = v + frac * (rank_value(lo + 1) - v)
    return v


def moment_columns(x, statistics=STATISTICS) -> FixedPointColumns | None:
    """The columns behind the moment statistics, in fixed point for exact sums.

    ``x`` itself (for the mean and sum: resamples with the same multiset sum
    get the same value), then ``x - mean(x)`` and its square (for the
    variance and SD, without cancellation) when ``statistics`` asks for
    them.  Unneeded columns are left out: each costs a read of ``n``
    digits per resample.  None when no moment statistic is asked for.
    """
    wanted = set(statistics)
    columns = [x] if wanted & {"mean", "sum"} else []
    if wanted & {"std", "var"}:
        xc = x - x.mean()
        columns += [xc, xc * xc]
    if not columns:
        return None
    # Stacked as rows and viewed transposed: each column stays contiguous.
    return FixedPointColumns(np.stack(columns).T, max_row_total=x.size)


def _rank_values(xs, counts, ranks):
    """Order statistics of every resample from its count row over sorted values.

    The element of rank ``r`` of resample ``i`` is ``xs[j]`` for the first
    position ``j`` where the cumulative count of row ``i`` exceeds ``r``.
    Rather than the cumulative counts of whole rows (a sequential scan),
    rows are cut into blocks of about ``sqrt(n)`` positions: the cumulative
    block totals locate the block holding rank ``r``, and only that block is
    accumulated.  Integer arithmetic throughout, so the positions are exact.

    Parameters
    ----------
    xs : ndarray of shape (n,)
        Sorted values.
    counts : ndarray of shape (B, n)
        Multiplicity of each sorted value in each resample; rows sum to
        ``n``.
    ranks : sequence of int
        Ranks in ``[0, n)``.

    Returns
    -------
    dict
        Rank -> ndarray of shape (B,), the value of that rank in every
        resample.
    """
    B, n = counts.shape
    width = max(1, math.isqrt(n))
    n_blocks = -(-n // width)
    full = n // width
    totals = np.empty((B, n_blocks), dtype=np.int64)
    # Whole blocks summed as a reshaped view: faster than reduceat on
    # int32 counts.
    counts[:, : full * width].reshape(B, full, width).sum(
        axis=2, dtype=np.int64, out=totals[:, :full]
    )
    if full < n_blocks:
        counts[:, full * width :].sum(axis=1, dtype=np.int64, out=totals[:, full])
    totals = np.cumsum(totals, axis=1, dtype=np.int64)
    # Rows laid end to end, row i shifted by i * n: one sorted array.
    offsets = np.arange(B, dtype=np.int64) * n
    flat = (totals + offsets[:, None]).ravel()
    rows = np.arange(B)[:, None]
    within = np.arange(width)
    out = {}
    # Several ranks at once, in groups small enough to keep the gathered
    # blocks (B x ranks x width counts) near one chunk.
    step = max(1, _CHUNK_ELEMENTS // (B * width))
    for i in range(0, len(ranks), step):
        r = np.asarray(ranks[i : i + step], dtype=np.int64)
        block = np.searchsorted(flat, offsets[:, None] + r, side="right")
        block -= rows * n_blocks
        before = np.where(block > 0, totals[rows, block - 1], 0)
        cols = block[:, :, None] * width + within
        part = counts[rows[:, :, None], np.minimum(cols, n - 1)]
        part[cols >= n] = 0
        cum = np.cumsum(part, axis=2, dtype=np.int64) + before[:, :, None]
        values = xs[block * width + (cum <= r[:, None]).sum(axis=2)]
        out.update({int(rank): values[:, j] for j, rank in enumerate(r)})
    return out


def resample_statistics(
    x, counts, statistics, presorted=False, moments=None, row_total=None, sums=None
):
    """Statistics of every resample given its count row.

    Parameters
    ----------
    x : ndarray of shape (n,)
        The column (records in their original positions).
    counts : ndarray of shape (B, n)
        Multiplicity of each record in each resample; rows sum to ``n``.
    statistics : sequence of str
        Names from :data:`STATISTICS`.
    presorted : bool, default=False
        Whether ``x`` is sorted (then ``counts`` need no reordering).
    moments : FixedPointColumns, optional
        ``moment_columns(x, statistics)``, when many count matrices are
        summed against the same ``x``.
    row_total : int, optional
        The common sum of every row of ``counts`` (``n`` for bootstrap
        resamples), when known; otherwise it is computed.
    sums : ndarray of shape (B, m), optional
        ``moments.weighted_sums(counts)`` when already computed (for several
        count matrices at once).

    Returns
    -------
    dict
        Statistic name -> ndarray of shape (B,), unrounded.
    """
    n = x.size
    B = counts.shape[0]
    wanted = set(statistics)
    out = {}
    if "count" in wanted:
        out["count"] = (
            counts.sum(axis=1).astype(np.float64)
            if row_total is None
            else np.full(B, float(row_total))
        )
    if wanted & {"mean", "std", "var", "sum"}:
        # One pass over the counts for all weighted sums, exact in fixed
        # point so that the rounded statistics do not depend on the BLAS
        # kernel or thread count (rows of ``counts`` sum to ``n``).
        if sums is None:
            if moments is None:
                moments = moment_columns(x, statistics)
            sums = moments.weighted_sums(counts)
        if wanted & {"mean", "sum"}:
            total = sums[:, 0]
            if "mean" in wanted:
                out["mean"] = total / n
            if "sum" in wanted:
                out["sum"] = total
        if wanted & {"std", "var"}:
            s1, s2 = sums[:, -2], sums[:, -1]
            if n > 1:
                var = np.maximum(s2 - s1 * s1 / n, 0.0) / (n - 1)
            else:
                var = np.full(B, np.nan)
            if "var" in wanted:
                out["var"] = var
            if "std" in wanted:
                out["std"] = np.sqrt(var)
    if wanted & {"min", "median", "iqr", "max"}:
        if presorted:
            xs, sorted_counts = x, counts
        else:
            order = np.argsort(x, kind="stable")
            xs, sorted_counts = x[order], counts[:, order]
        ranks = {0} if "min" in wanted else set()
        if "max" in wanted:
            ranks.add(n - 1)
        quantiles = [0.5] if "median" in wanted else []
        quantiles += [0.75, 0.25] if "iqr" in wanted else []
        for q in quantiles:
            lo, frac = _quantile_ranks(q, n)
            ranks.update([lo, lo + 1] if frac > 0 else [lo])
        rank_value = _rank_values(xs, sorted_counts, sorted(ranks)).__getitem__

        if "min" in wanted:
            out["min"] = rank_value(0)
        if "max" in wanted:
            out["max"] = rank_value(n - 1)
        if "median" in wanted:
            out["median"] = _quantile_from_ranks(xs, rank_value, 0.5, n)
        if "iqr" in wanted:
            out["iqr"] = _quantile_from_ranks(
                xs, rank_value, 0.75, n
            ) - _quantile_from_ranks(xs, rank_value, 0.25, n)
    return out


_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _packed_sets(counts) -> NDArray[np.uint64]:
    """Each row's set of records ``counts > 0`` as bits in 64-bit words."""
    packed = np.packbits(counts != 0, axis=1)
    pad = (-packed.shape[1]) % 8
    if pad:
        packed = np.pad(packed, ((0, 0), (0, pad)))
    return np.ascontiguousarray(packed).view(np.uint64)


def _set_hash(z, words):
    """64-bit hash of each row's set of records (rows of packed words)."""
    # splitmix64 finalizer, then a random linear combination mod 2**64.
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    z ^= z >> np.uint64(31)
    return (z * words[: z.shape[1]]).sum(axis=1)


class _IntersectionTracker:
    """Running intersection of the record sets of the resamples giving each value.

    During the first pass every resample's record set is ANDed into the bit
    mask of its rounded value, per statistic.  A mask that becomes empty is
    released: that value's generators have an empty intersection, whatever
    resamples follow.  Masks are ``n / 8`` bytes; when more than ``capacity``
    are alive, those of the values seen least often are evicted and their
    values become *unknown*, to be checked by a later pass only if they
    matter for the answer.
    """

    EMPTY, NONEMPTY, UNKNOWN = 0, 1, 2

    def __init__(self, statistics, n_words: int, capacity: int) -> None:
        self.n_words = n_words
        self.capacity = max(int(capacity), 1)
        self.entries = {s: {} for s in statistics}  # value -> entry id
        self.count: list[int] = []
        self.state: list[int] = []  # EMPTY, NONEMPTY (alive) or UNKNOWN
        self.slot: list[int] = []  # row of ``masks`` while alive, else -1
        self.masks = np.empty((0, n_words), dtype=np.uint64)
        self.free: list[int] = []
        self.n_alive = 0

    def _new_slot(self) -> int:
        if not self.free:
            old = self.masks.shape[0]
            grown = max(8, min(2 * old, self.capacity + 1) if old else 8)
            grown = max(grown, old + 1)
            masks = np.empty((grown, self.n_words), dtype=np.uint64)
            masks[:old] = self.masks
            self.masks = masks
            self.free.extend(range(grown - 1, old - 1, -1))
        return self.free.pop()

    def _release(self, entry: int, state: int) -> None:
        self.state[entry] = state
        self.free.append(self.slot[entry])
        self.slot[entry] = -1
        self.n_alive -= 1

    def add(self, statistic, values, packed) -> None:
        """AND each resample's set (rows of ``packed``) into its value's mask."""
        rows = np.flatnonzero(~np.isnan(values))
        if rows.size == 0:
            return
        if rows.size == 1:
            uniq, inverse = values[rows], np.zeros(1, dtype=np.intp)
        else:
            uniq, inverse = np.unique(values[rows], return_inverse=True)
        sizes = np.bincount(inverse, minlength=uniq.size).tolist()
        table = self.entries[statistic]
        alive_groups, alive_entries, n_rows = [], [], 0
        for g, value in enumerate(uniq.tolist()):
            entry = table.get(value)
            if entry is None:
                entry = len(self.count)
                table[value] = entry
                self.count.append(0)
                self.state.append(self.NONEMPTY)
                slot = self._new_slot()
                self.slot.append(slot)
                self.masks[slot] = ~np.uint64(0)
                self.n_alive += 1
            self.count[entry] += sizes[g]
            if self.slot[entry] >= 0:
                alive_groups.append(g)
                alive_entries.append(entry)
                n_rows += sizes[g]
        # Values already known to have an empty intersection need no work.
        # Few resamples are ANDed in place; many in one grouped reduction.
        if 0 < n_rows <= 8:
            for g, entry in zip(alive_groups, alive_entries):
                mask = self.masks[self.slot[entry]]
                for r in rows[inverse == g].tolist():
                    np.bitwise_and(mask, packed[r], out=mask)
                if not mask.any():
                    self._release(entry, self.EMPTY)
        elif n_rows:
            alive = np.zeros(uniq.size, dtype=bool)
            alive[alive_groups] = True
            keep = alive[inverse]
            group = inverse[keep]
            order = np.argsort(group, kind="stable")
            group = group[order]
            first = np.flatnonzero(np.r_[True, group[1:] != group[:-1]])
            reduced = np.bitwise_and.reduceat(packed[rows[keep][order]], first, axis=0)
            slots = np.array([self.slot[e] for e in alive_entries])
            self.masks[slots] &= reduced
            emptied = ~self.masks[slots].any(axis=1)
            for e in np.array(alive_entries)[emptied].tolist():
                self._release(e, self.EMPTY)
        if self.n_alive > self.capacity:
            self._evict()

    def _evict(self) -> None:
        alive = [e for e, slot in enumerate(self.slot) if slot >= 0]
        keep = (3 * self.capacity) // 4
        counts = np.array([self.count[e] for e in alive])
        # Least seen first; ties by entry order, so eviction is reproducible.
        order = np.lexsort((np.arange(counts.size), counts))
        for i in order[: len(alive) - keep].tolist():
            self._release(alive[i], self.UNKNOWN)

    def states(self, statistic, values) -> NDArray[np.intp]:
        """State of each value (EMPTY, NONEMPTY or UNKNOWN)."""
        table = self.entries[statistic]
        return np.array(
            [self.state[table[v]] for v in values.tolist()], dtype=np.intp
        ).reshape(len(values))


def _verify_candidates(plans, values, chunks, n, memory_budget):
    """Test the candidates whose intersection the first pass could not settle.

    ``plans[s]["pending"]`` lists ranked candidates (best first) whose
    generators' intersection is unknown; ``plans[s]["fallback"]`` is the
    best-ranked candidate known to survive, or None.  A candidate value
    survives when no record belongs to every resample giving that value.
    Each tested value keeps the running intersection of its resamples'
    record sets as a bit mask; one pass over the resamples (re-drawn from
    their seeds) ANDs every resample's set into the mask of its value.  A
    mask that becomes empty settles its value: it survives, and every value
    ranked after it in the same statistic is dropped; a statistic is settled
    once its best-ranked remaining value is empty, and the pass stops when
    every statistic is settled.  Values whose masks do not fit in
    ``memory_budget`` wait for a further pass, needed only when none of the
    tested values of their statistic survives.

    Sets ``plans[s]["found"]`` (index into the ranked candidates) in place.
    """
    n_words = -(-n // 64)
    capacity = max(1, memory_budget // (8 * n_words))
    while True:
        for p in plans.values():
            if p["found"] is None and not p["pending"]:
                p["found"] = p["fallback"]
        pending = [s for s, p in plans.items() if p["found"] is None and p["pending"]]
        if not pending:
            return
        quota = max(1, capacity // len(pending))
        tests = {}
        for s in pending:
            p = plans[s]
            index = np.array(p["pending"][:quota], dtype=np.intp)
            ranked = p["values"][index]
            order = np.argsort(ranked)
            tests[s] = {
                "index": index,
                "sorted": ranked[order],
                "rank_of": order,  # rank (within this pass) of each sorted value
                "masks": np.full((ranked.size, n_words), ~np.uint64(0)),
                "empty": np.zeros(ranked.size, dtype=bool),
                "limit": ranked.size,  # ranks >= limit are dropped
            }
        start = 0
        for child, B in chunks:
            open_tests = {s: t for s, t in tests.items() if not t["empty"][0]}
            if not open_tests:
                break
            counts = _draw_counts(np.random.default_rng(child), B, n)
            packed = _packed_sets(counts)
            for s, t in open_tests.items():
                v = values[s][start : start + B]
                pos = np.minimum(np.searchsorted(t["sorted"], v), t["sorted"].size - 1)
                rank = t["rank_of"][pos]
                hit = (t["sorted"][pos] == v) & (rank < t["limit"])
                if not hit.any():
                    continue
                rows = np.flatnonzero(hit)
                rows = rows[np.argsort(rank[rows], kind="stable")]
                r = rank[rows]
                first = np.flatnonzero(np.r_[True, r[1:] != r[:-1]])
                touched = r[first]
                reduced = np.bitwise_and.reduceat(packed[rows], first, axis=0)
                t["masks"][touched] &= reduced
                now_empty = touched[~t["masks"][touched].any(axis=1)]
                if now_empty.size:
                    t["empty"][now_empty] = True
                    # Values ranked after an empty one can no longer win.
                    t["limit"] = min(t["limit"], int(now_empty.min()) + 1)
            start += B
        for s, t in tests.items():
            p = plans[s]
            survivors = np.flatnonzero(t["empty"][: t["limit"]])
            if survivors.size:
                p["found"] = int(t["index"][survivors[0]])
            p["pending"] = p["pending"][t["index"].size :]


def _in_order(function, items, n_threads: int):
    """``map(function, items)`` on ``n_threads`` threads, a few items ahead.

    Results come back in the order of ``items``; at most ``2 * n_threads``
    are computed ahead of the consumer, so memory stays that of a few
    chunks.
    """
    if n_threads <= 1:
        yield from map(function, items)
        return
    with ThreadPoolExecutor(max_workers=n_threads) as pool:
        window = deque()
        for item in items:
            window.append(pool.submit(function, item))
            if len(window) >= 2 * n_threads:
                yield window.popleft().result()
        while window:
            yield window.popleft().result()


def _chunks(n: int, n_resamples: int, seed: int):
    """(seed sequence, size) of each chunk, reproducible from ``seed``."""
    size = max(1, min(n_resamples, _CHUNK_ELEMENTS // max(n, 1)))
    n_chunks = -(-n_resamples // size)
    children = np.random.SeedSequence(seed).spawn(n_chunks)
    sizes = [size] * (n_chunks - 1) + [n_resamples - size * (n_chunks - 1)]
    return list(zip(children, sizes))


def _batches(chunks):
    """Consecutive chunks grouped until each group has ``_BATCH_RESAMPLES``."""
    batches, batch, size = [], [], 0
    for chunk in chunks:
        batch.append(chunk)
        size += chunk[1]
        if size >= _BATCH_RESAMPLES:
            batches.append(batch)
            batch, size = [], 0
    if batch:
        batches.append(batch)
    return batches


# Records per block of the two-stage draw of bootstrap counts (see
# ``_draw_counts``): 16-bit positions, so a full block's draws are raw bits.
_DRAW_BLOCK = 1 << 16


def _draw_counts(rng, B: int, n: int) -> NDArray[np.integer]:
    """Count matrix of ``B`` bootstrap index multisets of size ``n``.

    Up to ``_DRAW_BLOCK`` records: ``n`` uniform indices per resample,
    counted.  Above, in two exact stages: how many of the ``n`` draws fall
    in each block of ``_DRAW_BLOCK`` consecutive records is multinomial
    with probabilities proportional to the block sizes, and given those
    numbers the draws are uniform inside their block.  A full block's
    positions are raw 16-bit integers (no rejection step) counted in a
    cache-sized ``bincount``; the random scatter over all ``n`` counts and
    the bounded 64-bit draws cost about twice as much.
    """
    if n <= _DRAW_BLOCK:
        idx = rng.integers(0, n, size=(B, n))
        if B > 1:
            idx += (np.arange(B, dtype=np.int64) * n)[:, None]
        return np.bincount(idx.ravel(), minlength=B * n).reshape(B, n)
    full, rest = divmod(n, _DRAW_BLOCK)
    sizes = np.full(full + (rest > 0), _DRAW_BLOCK)
    if rest:
        sizes[-1] = rest
    per_block = rng.multinomial(n, sizes / n, size=B)
    # int32 (exact: counts are at most n) halves what every later pass reads.
    counts = np.empty((B, n), dtype=np.int32)
    for b in range(B):
        for j, (size, k) in enumerate(zip(sizes, per_block[b], strict=True)):
            if size == _DRAW_BLOCK:
                # bincount of a uint16 array is three times slower than the
                # cast and bincount of the intp copy.
                positions = rng.integers(0, _DRAW_BLOCK, size=k, dtype=np.uint16)
                positions = positions.astype(np.intp)
            else:
                positions = rng.integers(0, size, size=k)
            first = j * _DRAW_BLOCK
            counts[b, first : first + size] = np.bincount(positions, minlength=size)
    return counts


def _round(values, decimals):
    if decimals is None:
        return values + 0.0
    # "+ 0.0" turns -0.0 into 0.0 so both land in the same group.
    return np.round(values, decimals) + 0.0


def integral_private_column(
    x: NDArray[np.float64],
    statistics: tuple[str, ...],
    n_resamples: int,
    decimals: int | None,
    min_frequency: int,
    seed: int,
    selection: str = "frequency",
    memory_budget: int = 1 << 26,
    n_threads: int = 1,
) -> list[ColumnResult]:
    """Run Algorithm 1 (SPEC 4.2) for several statistics of one column.

    Parameters
    ----------
    x : ndarray of shape (n,)
        Finite values (already microaggregated if asked); position = record.
    statistics : tuple of str
        Statistic names.
    n_resamples : int
        Number of bootstrap resamples ``t``.
    decimals : int or None
        Output rounding (``numpy.round``); ``None`` for no rounding.
    min_frequency : int
        Threshold ``k``: a value is a candidate when its number of
        generators is strictly greater than ``k``.
    seed : int
        Seed of the resampling streams.
    selection : {"frequency", "least_error"}
        Which surviving value to release.
    memory_budget : int, default=2**26
        Bytes of intersection masks held at once (``n / 8`` bytes per
        value).  The first pass keeps the running intersection of every
        rounded value's resamples; it settles every candidate when the
        masks fit.  Otherwise the least frequent values are evicted and a
        second pass (more, only if the masks still do not fit) tests those
        of them that can change the answer.
    n_threads : int, default=1
        Threads drawing and summarizing chunks of resamples at once (numpy
        releases the GIL in the heavy steps).  Chunks keep their own seeds
        and are merged in order, so the answers do not depend on it.

    Returns
    -------
    list of ColumnResult
    """
    # Records are positions; relabelling them in sorted order changes
    # nothing and spares a reordering of every count matrix.
    x = np.sort(np.asarray(x, dtype=np.float64))
    n = x.size
    n_words = -(-n // 64)
    words = np.random.default_rng([seed, 0x5EED]).integers(
        0, 2**63, size=n_words, dtype=np.uint64
    ) * np.uint64(2) + np.uint64(1)
    chunks = _chunks(n, n_resamples, seed)

    values = {s: [] for s in statistics}
    hashes = []
    moments = moment_columns(x, statistics)
    tracker = _IntersectionTracker(statistics, n_words, memory_budget // (8 * n_words))

    def summarize(batch):
        parts = [_draw_counts(np.random.default_rng(c), B, n) for c, B in batch]
        # The moment columns are read once for the whole batch.
        sums = None if moments is None else moments.weighted_sums(parts)
        stats, start = [], 0
        for counts in parts:
            B = counts.shape[0]
            stats.append(
                resample_statistics(
                    x,
                    counts,
                    statistics,
                    presorted=True,
                    row_total=n,
                    sums=None if sums is None else sums[start : start + B],
                )
            )
            start += B
        rounded = {
            s: _round(np.concatenate([st[s] for st in stats]), decimals)
            for s in statistics
        }
        return rounded, np.concatenate([_packed_sets(c) for c in parts])

    for rounded, packed in _in_order(summarize, _batches(chunks), n_threads):
        for s in statistics:
            values[s].append(rounded[s])
            tracker.add(s, rounded[s], packed)
        hashes.append(_set_hash(packed, words))
    hashes = np.concatenate(hashes)

    plans = {}
    for s in statistics:
        v = np.concatenate(values[s])
        values[s] = v
        ok = ~np.isnan(v)
        bits = v[ok].view(np.uint64)
        pairs = np.unique(np.stack([bits, hashes[ok]], axis=1), axis=0)
        uniq, freq = np.unique(pairs[:, 0], return_counts=True)
        uvals = uniq.view(np.float64)
        _, n_res = np.unique(bits, return_counts=True)
        cand = freq > min_frequency
        c_vals, c_freq, c_res = uvals[cand], freq[cand], n_res[cand]
        if selection == "least_error":
            ones = np.ones((1, n), dtype=np.int64)
            truth = resample_statistics(x, ones, (s,), presorted=True)[s][0]
            rank = np.lexsort((c_vals, -c_freq, np.abs(c_vals - truth)))
        else:
            rank = np.lexsort((c_vals, -c_freq))
        ranked = c_vals[rank]
        state = tracker.states(s, ranked)
        settled = np.flatnonzero(state == tracker.EMPTY)
        fallback = int(settled[0]) if settled.size else None
        before = slice(0, fallback)  # only candidates ranked before it matter
        plans[s] = {
            "values": ranked,
            "freq": c_freq[rank],
            "n_res": c_res[rank],
            "pending": np.flatnonzero(state[before] == tracker.UNKNOWN).tolist(),
            "fallback": fallback,
            "found": None,
            "max_frequency": int(freq.max()) if freq.size else 0,
        }

    _verify_candidates(plans, values, chunks, n, memory_budget)
    results = []
    for s in statistics:
        p = plans[s]
        if p["found"] is None:
            results.append(
                ColumnResult(
                    s, np.nan, 0, 0, int(p["values"].size), p["max_frequency"], False
                )
            )
        else:
            i = p["found"]
            results.append(
                ColumnResult(
                    s,
                    float(p["values"][i]),
                    int(p["freq"][i]),
                    int(p["n_res"][i]),
                    int(p["values"].size),
                    p["max_frequency"],
                    True,
                )
            )
    return results
