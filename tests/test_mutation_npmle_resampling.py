"""The batched NPMLE refits of the resampling intervals, pinned exactly.

``conf_int`` of :class:`IntervalNPMLE` on Case-II data refits the estimator
on every row draw, all draws at once (``skprivate/interval/
_npmle_resampling.py``, with the support-reduction Newton steps of
``_npmle_active_set.py``).  These tests check that machinery on small
problems whose answer is known: the shared Armijo line search step by step,
the NPMLE against a plain EM run to convergence, the fallbacks when a
replicate's Newton steps do not settle, and each replicate's statistic
against one refit per draw.  ``benchmarks/_mutation_specs_npmle.py`` lists
the mutants of both modules and the tests that kill them.
"""

import warnings

import numpy as np
import pytest

from skprivate.interval._npmle_active_set import armijo_search


def _search(ratio, w, slope, pending=None, linear=None, confirm=None):
    ratio, w = np.atleast_2d(ratio).astype(float), np.atleast_2d(w).astype(float)
    slope = np.atleast_1d(np.asarray(slope, dtype=float))
    if pending is None:
        pending = np.ones(slope.size, dtype=bool)
    if linear is not None:
        linear = np.atleast_1d(np.asarray(linear, dtype=float))
    return armijo_search(ratio, w, slope, pending, linear, confirm)


# -- the line search shared by the ICM and Newton steps ----------------------


def test_line_search_halves_until_rows_stay_positive_and_the_gain_suffices():
    # lam = 1 makes row 0 negative; lam = 1/2 loses likelihood
    # (log 0.25 + log 2.5 < 0); lam = 1/4 gains 0.0448 >= 0.1 * 0.25 * 0.75.
    pending = np.array([True])
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # log1p of -1.5 is NaN, silently
        lam, ok, gain = _search([[-1.5, 3.0]], [[0.5, 0.5]], [0.75], pending)
    assert lam.tolist() == [0.25] and ok.tolist() == [True]
    assert gain[0] == 0.5 * np.log1p(-0.375) + 0.5 * np.log1p(0.75)
    assert pending.tolist() == [True]  # the caller's mask is not consumed


def test_line_search_accepts_the_full_step_when_it_gains_enough():
    lam, ok, gain = _search([[1.0]], [[1.0]], [1.0])
    assert lam.tolist() == [1.0] and ok.tolist() == [True]
    assert gain[0] == np.log(2.0)
    # exactly at the Armijo bound (0.1 * slope == log 2 in floating point):
    # accepted, the test being >=; one ulp above: halved
    at_bound = 6.931471805599452
    assert 0.1 * 1.0 * at_bound == np.log(2.0)
    lam, ok, _ = _search([[1.0]], [[1.0]], [at_bound])
    assert lam.tolist() == [1.0] and ok.tolist() == [True]
    lam, ok, _ = _search([[1.0]], [[1.0]], [np.nextafter(at_bound, 99)])
    assert lam.tolist() == [0.5] and ok.tolist() == [True]


def test_line_search_refuses_an_emptied_row_silently():
    # lam = 1 empties row 0 (log1p(-1) = -inf); lam = 1/2 gains
    # 0.5 log 0.5 + 0.5 log 2.5 = 0.11 >= 0.1 * 0.5 * 1.
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lam, ok, gain = _search([[-1.0, 3.0]], [[0.5, 0.5]], [1.0])
    assert lam.tolist() == [0.5] and ok.tolist() == [True]
    assert gain[0] == 0.5 * np.log1p(-0.5) + 0.5 * np.log1p(1.5)


def test_line_search_subtracts_the_linear_part():
    # phi(lam) = log(1 + lam) - 0.9 lam, slope 0.1 at 0: lam = 1, 1/2, 1/4
    # lose or gain too little; lam = 1/8 gains 0.00528 >= 0.00125.
    lam, ok, gain = _search([[1.0]], [[1.0]], [0.1], linear=[0.9])
    assert lam.tolist() == [0.125] and ok.tolist() == [True]
    assert gain[0] == np.log1p(0.125) - 0.125 * 0.9
    # without it the full step is taken
    lam, _, gain = _search([[1.0]], [[1.0]], [0.1])
    assert lam.tolist() == [1.0] and gain[0] == np.log(2.0)


def test_line_search_gives_up_after_thirty_halvings():
    lam, ok, gain = _search([[1.0]], [[1.0]], [100.0])
    assert ok.tolist() == [False] and np.isnan(gain[0])
    assert lam.tolist() == [0.5**30]


def test_line_search_leaves_replicates_not_pending_alone():
    lam, ok, gain = _search(
        [[1.0], [1.0]], [[1.0], [1.0]], [1.0, 1.0], pending=np.array([False, True])
    )
    assert lam.tolist() == [1.0, 1.0] and ok.tolist() == [False, True]
    assert np.isnan(gain[0]) and gain[1] == np.log(2.0)


def test_line_search_halves_each_replicate_on_its_own():
    ratio = [[-1.5, 3.0], [1.0, 1.0], [1.0, 0.0]]
    w = [[0.5, 0.5], [0.5, 0.5], [0.0, 1.0]]
    lam, ok, gain = _search(ratio, w, [0.75, 1.0, 0.5])
    # the third replicate gains nothing (its weighted row does not move)
    assert lam.tolist() == [0.25, 1.0, 0.5**30]
    assert ok.tolist() == [True, True, False]
    assert gain[1] == np.log(2.0)


def test_line_search_asks_confirm_about_the_replicates_passing_each_round():
    calls = []

    def confirm(b, lam, gain):
        calls.append((b.tolist(), lam.tolist(), gain.tolist()))
        # refuse replicate 0's first acceptance, take everything else
        return ~((b == 0) & (lam == 1.0))

    ratio = [[1.0], [-1.5], [1.0]]
    w = [[1.0], [1.0], [1.0]]
    lam, ok, gain = _search(ratio, w, [1.0, 0.0, 1.0], confirm=confirm)
    assert calls[0] == ([0, 2], [1.0, 1.0], [np.log(2.0), np.log(2.0)])
    assert calls[1][0] == [0] and calls[1][1] == [0.5]
    assert len(calls) == 2  # replicate 1 never passes: confirm is not asked
    assert lam.tolist() == [0.5, 0.5**30, 1.0]
    assert ok.tolist() == [True, False, True]
    assert gain[0] == np.log1p(0.5)


# -- the support-reduction Newton steps ---------------------------------------


def test_new_cells_are_the_best_cell_of_each_gap_above_one():
    from skprivate.interval._npmle_active_set import _new_cells

    d = np.array(
        [
            # gaps {0, 1}, {2, 3, 4}, {5}: cells 0, 3 and 5 enter; the support
            # cell 1 has the largest d of its gap but is already in
            [1.5, 2.0, 0.5, 3.0, 1.0, 1.2],
            # gaps {0, 1, 2}, {3} (cells 4, 5 are padding): cell 0 enters,
            # cell 3 at d = 1 exactly does not
            [1.1, 0.2, 1.1, 1.0, 5.0, 5.0],
            # no support at all: one gap, its best cell above one enters
            [1.3, 1.4, 0.0, 1.4, 0.0, 0.0],
        ]
    )
    support = np.zeros((3, 6), dtype=bool)
    support[0, [1, 4]] = True
    support[1, 2] = True
    valid = np.ones((3, 6), dtype=bool)
    valid[1, 4:] = False
    new = _new_cells(d, support, valid)
    assert np.flatnonzero(new[0]).tolist() == [0, 3, 5]
    assert np.flatnonzero(new[1]).tolist() == [0]
    # ties: every cell holding the gap's maximum
    assert np.flatnonzero(new[2]).tolist() == [1, 3]


def _reference_support_step(H, g, sA):
    """The documented support reduction, one replicate, step by step."""
    K = sA.size
    rhs = g + H @ sA
    keep = np.ones(K, dtype=bool)
    current = sA.astype(float).copy()
    while True:
        z = np.zeros(K)
        if keep.any():
            sub = np.ix_(keep, keep)
            A = H[sub] + 1e-13 * np.diag(H)[keep].max() * np.eye(keep.sum())
            z[keep] = np.linalg.solve(A, rhs[keep])
        if not np.isfinite(z).all() or not (z[keep] < 0).any():
            return z
        negative = keep & (z < 0)
        if (negative & (current <= 0)).any():
            t = 0.0
            first = np.flatnonzero(negative & (current <= 0))[0]
        else:
            with np.errstate(divide="ignore", invalid="ignore"):
                ts = np.where(negative, current / (current - z), np.inf)
            first = int(np.argmin(ts))
            t = min(max(ts[first], 0.0), 1.0)
        current = np.where(keep, current + t * (z - current), 0.0)
        current[first] = 0.0
        keep &= ~(negative & (current <= 0))
        keep[first] = False
        current = np.clip(current, 0.0, None)


@pytest.mark.parametrize(("B", "K", "seed"), [(300, 5, 3), (1500, 12, 4)])
def test_support_step_moves_drops_and_solves_again_as_documented(B, K, seed):
    # Random concave models, supports of 1 to K slots (padded to K): the
    # batched reduction equals the documented one replicate by replicate.
    # Large supports make the order of the drops matter (the point reached
    # by each move decides which mass reaches zero next).
    from skprivate.interval._npmle_active_set import _support_step

    rng = np.random.default_rng(seed)
    H = np.zeros((B, K, K))
    g = np.zeros((B, K))
    sA = np.zeros((B, K))
    sizes = rng.integers(1, K + 1, B)
    valid = np.arange(K)[None, :] < sizes[:, None]
    for b, k in enumerate(sizes):
        L = rng.normal(size=(k, k))
        H[b, :k, :k] = L @ L.T + 0.1 * np.eye(k)
        g[b, :k] = 2 * rng.normal(size=k)
        sA[b, :k] = np.where(rng.random(k) < 0.3, 0.0, rng.random(k))
    with warnings.catch_warnings():
        # no stray floating-point warning reaches the caller
        warnings.simplefilter("error")
        target = _support_step(H, g, sA, valid)
    drops = 0
    for b, k in enumerate(sizes):
        want = _reference_support_step(H[b, :k, :k], g[b, :k], sA[b, :k])
        np.testing.assert_allclose(target[b, :k], want, rtol=1e-9, atol=1e-12)
        assert (target[b, k:] == 0).all()
        drops += (want == 0).sum()
    assert drops > B  # many replicates went through several rounds


def test_support_step_hand_case():
    # H = I: the unconstrained maximizer is sA + g = (1.5, -1.5); slot 1
    # (mass 0.5) reaches zero first, after t = 0.5 / 2; alone, slot 0 then
    # goes to rhs_0 = 1.5.  A second replicate whose maximizer is not
    # finite keeps it (the caller refuses the step), and does not stop the
    # first from being reduced.
    from skprivate.interval._npmle_active_set import _support_step

    H = np.array([np.eye(2), [[np.nan, 0.0], [0.0, 1.0]]])
    g = np.array([[1.0, -2.0], [1.0, -2.0]])
    sA = np.array([[0.5, 0.5], [0.5, 0.5]])
    target = _support_step(H, g, sA, np.ones((2, 2), dtype=bool))
    # (the ridge 1e-13 of the largest diagonal entry leaves 1.5 / (1 + 1e-13))
    assert target[0].tolist() == [1.5 / (1 + 1e-13), 0.0]
    assert not np.isfinite(target[1]).all()
    # one slot: its maximizer, never fewer rounds than slots
    one = _support_step(
        np.array([[[2.0]]]),
        np.array([[1.0]]),
        np.array([[0.5]]),
        np.ones((1, 1), dtype=bool),
    )
    assert one.tolist() == [[1.0 / (1 + 1e-13)]]


def test_support_step_keeps_a_slot_whose_maximizer_is_zero():
    # Slot 1's maximizer is exactly zero: not negative, so the target is
    # the one solve on both slots (solving again without slot 1 would take
    # the ridge from slot 0's smaller diagonal entry).
    from skprivate.interval._npmle_active_set import _solve, _support_step

    H = np.array([[[1.0, 0.0], [0.0, 4.0]]])
    sA = np.array([[0.5, 0.0]])
    g = np.array([[0.5, 0.0]])
    keep = np.ones((1, 2), dtype=bool)
    target = _support_step(H, g, sA, keep)
    assert target[0, 1] == 0.0
    assert np.array_equal(target, _solve(H, g + sA @ H[0], keep))
    assert target[0, 0] == 1.0 / (1.0 + 4e-13)


def test_support_step_warns_of_nothing():
    # Slot 0's maximizer equals its mass exactly (0.5 * A / A with A the
    # ridged diagonal) while slot 1's is negative: the step length of
    # slot 0, 0.5 / (0.5 - 0.5), is a division by zero that is not used.
    from skprivate.interval._npmle_active_set import _support_step

    A = 1.0 + 1e-13
    g = np.array([[0.5 * A - 0.5, -2.0]])
    sA = np.array([[0.5, 0.5]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        target = _support_step(np.eye(2)[None], g, sA, np.ones((1, 2), dtype=bool))
    assert target.tolist() == [[0.5, 0.0]]


def test_support_step_on_a_singular_hessian_follows_the_ridge():
    # Masses that are not unique: H = [[1, 1], [1, 1]] is singular and the
    # ridge makes the model strictly concave; rhs = (1, 0) has a part along
    # the null direction (1, -1), so the maximizer runs far along it, slot 1
    # reaches zero first, and slot 0 alone goes to 1 / (1 + 1e-13).
    from skprivate.interval._npmle_active_set import _support_step

    H = np.array([[[1.0, 1.0], [1.0, 1.0]]])
    sA = np.array([[0.5, 0.5]])
    g = np.array([[0.0, -1.0]])
    target = _support_step(H, g, sA, np.ones((1, 2), dtype=bool))
    assert target.tolist() == [[1.0 / (1.0 + 1e-13), 0.0]]


def test_newton_systems_scale_with_the_hessian():
    # The ridge is relative to the largest diagonal entry: scaling H by a
    # power of two scales the solution by its inverse exactly, whatever
    # the scale (here the diagonal is far below and far above one).
    from skprivate.interval._npmle_active_set import _solve

    L = np.array([[1.0, 0.0, 0.0], [0.5, 1.0, 0.0], [0.25, -0.5, 1.0]])
    H = (L @ L.T)[None]
    rhs = np.array([[1.0, -2.0, 0.5]])
    keep = np.array([[True, True, False]])
    z = _solve(H, rhs, keep)
    assert z[0, 2] == 0.0
    exact = np.linalg.solve(H[0, :2, :2], rhs[0, :2])
    np.testing.assert_allclose(z[0, :2], exact, rtol=1e-11)
    for c in (2.0**-20, 2.0**20):
        assert np.array_equal(_solve(c * H, rhs, keep), z / c)


def _problem(rows, m, s0=None):
    """One replicate: rows ``(start, stop, weight)`` over ``m`` cells."""
    start = np.array([[a for a, _, _ in rows]])
    stop = np.array([[b for _, b, _ in rows]])
    w = np.array([[c for _, _, c in rows]], dtype=float)
    s0 = np.full((1, m), 1.0 / m) if s0 is None else np.atleast_2d(s0)
    return start, stop, w, np.array([m]), s0.astype(float)


# rows {0}, {0, 1}, {1, 2}, {0, 1, 2}... whose NPMLE is known by hand:
# cells held alone by rows of weight w_j have mass w_j / sum when every
# other row holds all cells; rows {0,1} and {1,2} of weight 0.4 with {0}
# and {2} of weight 0.1 give (0.2, 0.6, 0.2); {0}, {0,1}, {1} with
# weights 1/2, 1/4, 1/4 give (2/3, 1/3).
_HAND = [
    ([(0, 1, 0.2), (0, 3, 0.4), (2, 3, 0.1), (1, 2, 0.3)], 3, [1 / 3, 1 / 2, 1 / 6]),
    ([(0, 2, 0.4), (1, 3, 0.4), (0, 1, 0.1), (2, 3, 0.1)], 3, [0.2, 0.6, 0.2]),
    ([(0, 1, 0.5), (0, 2, 0.25), (1, 2, 0.25)], 2, [2 / 3, 1 / 3]),
]


def test_solve_active_set_finds_hand_solved_npmles():
    from skprivate.interval._npmle_active_set import solve_active_set

    for rows, m, want in _HAND:
        s, ok, n_iter = solve_active_set(*_problem(rows, m), 1e-12, 50)
        np.testing.assert_allclose(s[0], want, rtol=0, atol=1e-12)
        assert ok.dtype == bool and ok.tolist() == [True]
        assert n_iter.dtype == np.int64 and 1 <= n_iter[0] <= 8
        # from a start of any total: the gap is that of the masses scaled
        # to sum to one, so 4 x uniform and a quarter of it end alike
        for scale in (4.0, 0.25):
            args = _problem(rows, m, np.full(m, scale / m))
            s2, ok2, _ = solve_active_set(*args, 1e-12, 50)
            np.testing.assert_allclose(s2[0], want, rtol=0, atol=1e-12)
            assert ok2.tolist() == [True]


def test_solve_active_set_stops_at_once_at_the_optimum():
    # Cells held alone by rows of weights 1/2, 1/4, 1/4: the optimum gives
    # d = 1 exactly, a gap of exactly 0 (<= a target of 0), whatever the
    # start's total; the masses returned sum to one.
    from skprivate.interval._npmle_active_set import solve_active_set

    rows = [(0, 1, 0.5), (1, 2, 0.25), (2, 3, 0.25)]
    for scale in (1.0, 0.5, 2.0):
        s0 = scale * np.array([0.5, 0.25, 0.25])
        s, ok, n_iter = solve_active_set(*_problem(rows, 3, s0), 0.0, 50)
        assert s.tolist() == [[0.5, 0.25, 0.25]]
        assert ok.tolist() == [True] and n_iter.tolist() == [0]
    # asked for a negative gap, no step improves phi: it stops after one
    # try, unconverged, with the masses it has
    s0 = np.array([0.5, 0.25, 0.25])
    s, ok, n_iter = solve_active_set(*_problem(rows, 3, s0), -1.0, 50)
    assert s.tolist() == [[0.5, 0.25, 0.25]]
    assert ok.tolist() == [False] and n_iter.tolist() == [1]


def test_solve_active_set_out_of_iterations():
    from skprivate.interval._npmle_active_set import solve_active_set

    rows, m, want = _HAND[0]
    # none allowed: the start scaled to sum to one, unconverged
    s, ok, n_iter = solve_active_set(*_problem(rows, m, np.full(m, 2 / m)), 1e-12, 0)
    np.testing.assert_array_equal(s[0], np.full(m, 1 / m))
    assert ok.tolist() == [False] and n_iter.tolist() == [0]
    # one: moved, not there yet
    s, ok, n_iter = solve_active_set(*_problem(rows, m), 1e-12, 1)
    assert ok.tolist() == [False] and n_iter.tolist() == [1]
    assert abs(s.sum() - 1.0) < 1e-15 and np.abs(s[0] - want).max() > 1e-6


def _stack(*problems):
    """Problems of one shape stacked as replicates."""
    return tuple(np.concatenate(parts) for parts in zip(*problems))


def test_a_replicate_whose_start_fails_is_reported_alone_and_silently():
    # Replicate 1's start gives rows of positive weight probability zero
    # (w / 0 in its gradient): its gap is not finite, it is returned NaN and
    # unconverged at once, without a floating-point warning (the caller then
    # runs the fit's own iteration on it); replicate 0 is solved as alone.
    from skprivate.interval._npmle_active_set import solve_active_set

    rows = [(0, 1, 0.2), (0, 3, 0.4), (2, 3, 0.1), (1, 2, 0.3)]
    good = _problem(rows, 3)
    worse = [(0, 1, 0.0), (1, 2, 0.5), (2, 3, 0.5), (0, 3, 0.0)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s, ok, n_iter = solve_active_set(
            *_stack(good, _problem(worse, 3, [0, 0, 1])), 1e-12, 50
        )
    np.testing.assert_allclose(s[0], [1 / 3, 1 / 2, 1 / 6], atol=1e-12)
    assert np.isnan(s[1]).all()
    assert ok.tolist() == [True, False] and n_iter[1] == 0


def test_a_row_of_weight_zero_and_probability_zero_is_ignored():
    # A row of weight zero whose cells hold no mass (0 / 0 in the gradient
    # and the Hessian) adds nothing: the replicate is solved as without it,
    # silently.  By hand: 0.2 log s0 + 0.5 log 1 + 0.3 log s1 gives
    # (0.4, 0.6, 0).  The row is also ignored when the start gives it mass,
    # and when it is the only row of its cell.
    from skprivate.interval._npmle_active_set import solve_active_set

    rows = [(0, 1, 0.2), (0, 3, 0.4), (2, 3, 0.1), (1, 2, 0.3)]
    good = _problem(rows, 3)
    idle = [(0, 1, 0.2), (0, 3, 0.5), (2, 3, 0.0), (1, 2, 0.3)]
    for start in ([0.5, 0.5, 0.0], [0.2, 0.2, 0.6], None):
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            s, ok, n_iter = solve_active_set(
                *_stack(good, _problem(idle, 3, start)), 1e-12, 50
            )
        np.testing.assert_allclose(s[0], [1 / 3, 1 / 2, 1 / 6], atol=1e-12)
        np.testing.assert_allclose(s[1], [0.4, 0.6, 0.0], atol=1e-12)
        assert ok.tolist() == [True, True] and n_iter[1] > 0
    # the idle row on the first cell of the first replicate, and on the last
    # cell of the last (the ends of the Hessian's table): (0, 0.6, 0.4) and
    # (0.4, 0.6, 0) by hand
    first = [(0, 1, 0.0), (0, 3, 0.5), (1, 2, 0.3), (2, 3, 0.2)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s, ok, _ = solve_active_set(
            *_stack(_problem(first, 3), good, _problem(idle, 3)), 1e-12, 50
        )
    np.testing.assert_allclose(s[0], [0.0, 0.6, 0.4], atol=1e-12)
    np.testing.assert_allclose(s[1], [1 / 3, 1 / 2, 1 / 6], atol=1e-12)
    np.testing.assert_allclose(s[2], [0.4, 0.6, 0.0], atol=1e-12)
    assert ok.all()


def test_a_row_of_weight_zero_holding_an_entering_cell_is_ignored():
    # Rows {0} 0.4 and {1, 2} 0.6 and an idle row {2} (weight zero,
    # probability zero at the start): cell 2 enters the support at the first
    # step (its d is 1.2), so the idle row holds a support cell of mass zero:
    # its w / P and w / P^2 are 0 / 0, which must count as 0, silently.  The
    # NPMLE: s0 = 0.4 and s1 + s2 = 0.6 (split not unique).
    from skprivate.interval._npmle_active_set import solve_active_set

    rows = [(0, 1, 0.4), (1, 3, 0.6), (2, 3, 0.0)]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s, ok, n_iter = solve_active_set(*_problem(rows, 3, [0.5, 0.5, 0.0]), 1e-12, 50)
    assert ok.tolist() == [True] and n_iter[0] > 0
    assert abs(s[0, 0] - 0.4) < 1e-12 and abs(s[0, 1:].sum() - 0.6) < 1e-12
    assert s[0, 2] > 0  # the entering cell took mass


def test_hessian_counts_only_the_rows_holding_support_cells():
    # Support slots {0, 1} (cells 0 and 1 of 3); rows {0}, {0, 1, 2}, {1}
    # and {2}: the last holds no support cell and has no entry, whatever
    # its r2.  By hand: H = [[1 + 2, 2], [2, 2 + 3]].
    from skprivate.interval._npmle_active_set import _hessian, _Rows

    start, stop = np.array([[0, 0, 1, 2]]), np.array([[1, 3, 2, 3]])
    rows = _Rows(start, stop, np.array([[0.2, 0.4, 0.4, 0.0]]), np.array([3]), 3)
    count = np.array([0, 1, 2, 2])  # support slots before each cell edge
    alpha, beta = count[start], count[stop]
    r2 = np.array([[1.0, 2.0, 3.0, 5.0]])
    H = _hessian(rows, r2, alpha, beta, 2)
    np.testing.assert_array_equal(H, [[[3.0, 2.0], [2.0, 5.0]]])
    # two replicates: the second's idle row adds nothing to the first's table
    rows2 = _Rows(
        np.repeat(start, 2, axis=0),
        np.repeat(stop, 2, axis=0),
        np.array([[0.2, 0.4, 0.4, 0.0]] * 2),
        np.array([3, 3]),
        3,
    )
    H2 = _hessian(
        rows2, np.repeat(r2, 2, axis=0), *(np.repeat(a, 2, 0) for a in (alpha, beta)), 2
    )
    np.testing.assert_array_equal(H2, [[[3.0, 2.0], [2.0, 5.0]]] * 2)


def test_a_replicate_whose_newton_step_is_not_finite_stops_alone():
    # Cell 0 of mass 1e-200 held alone by a row: its Hessian entry
    # w / P^2 overflows, the step is not finite and refused: the replicate
    # stops unconverged with its start; the other replicate goes on.
    from skprivate.interval._npmle_active_set import solve_active_set

    rows = [(0, 1, 0.2), (0, 3, 0.4), (2, 3, 0.1), (1, 2, 0.3)]
    tiny = _problem(rows, 3, [1e-200, 0.5, 0.5])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the overflow
        s, ok, n_iter = solve_active_set(*_stack(_problem(rows, 3), tiny), 1e-12, 50)
    np.testing.assert_allclose(s[0], [1 / 3, 1 / 2, 1 / 6], atol=1e-12)
    assert ok.tolist() == [True, False]
    assert s[1].tolist() == [1e-200, 0.5, 0.5] and n_iter[1] == 1


# -- the replicates' statistics -----------------------------------------------

# Six Case-II rows and five draws whose NPMLEs are known by hand (cells and
# masses): the rows of draw 0, (0, 2], (1, 3], (2.5, 4], hold cells
# (1, 2] | both | (2.5, 3] with weight 1/3 each: masses 1/2, 1/2 on the
# atoms 2 and 3.  Draw 1 adds (0, 2] again and (0.5, 1.5]: cells (1, 1.5] and
# (2.5, 3] with masses 3/4, 1/4.  Draw 2: cells (-1, 0.7], (2.5, 3], (3, 4]
# with masses 1/4, 3/8, 3/8.  Draw 3 (all rows): masses 1/3, 1/3, 0, 1/3
# on 0.7, 1.5, 3, 4 (every d_j equals 1 there).  Draw 4: (0.5, 1.5] twice
# and (3, 5]: masses 2/3, 1/3 on 1.5 and 5.
Z6 = np.array([[0.0, 2.0], [1.0, 3.0], [2.5, 4.0], [0.5, 1.5], [3.0, 5.0], [-1.0, 0.7]])
DRAWS = [
    np.array([0, 1, 2]),
    np.array([0, 0, 1, 2, 3]),
    np.array([1, 2, 4, 5]),
    np.arange(6),
    np.array([3, 3, 4]),
]
ATOMS = [[2.0, 3.0], [1.5, 3.0], [0.7, 3.0, 4.0], [0.7, 1.5, 3.0, 4.0], [1.5, 5.0]]
MASSES = [
    [0.5, 0.5],
    [0.75, 0.25],
    [0.25, 0.375, 0.375],
    [1 / 3, 1 / 3, 0.0, 1 / 3],
    [2 / 3, 1 / 3],
]


def _cdf(atoms, masses, t):
    return sum(m for a, m in zip(atoms, masses) if a <= t)


def _quantile(atoms, masses, p, tol=1e-9):
    total = 0.0
    for a, m in zip(atoms, masses):
        total += m
        if m > 0 and total >= p - tol:
            return a
    return atoms[-1]


def test_replicate_statistics_are_the_hand_solved_npmles():
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval._npmle_resampling import resampled_statistics
    from skprivate.interval._resampled_statistics import CdfAt, Mean, QuantileAt

    points = np.array([-5.0, 0.7, 1.0, 1.5, 2.0, 2.9, 3.0, 4.0, 9.0])
    levels = np.array([0.2, 0.3, 0.6, 0.8, 1.0])
    est = IntervalNPMLE()
    mean = resampled_statistics(est, Z6, DRAWS, Mean())
    cdf = resampled_statistics(est, Z6, DRAWS, CdfAt(points))
    quantile = resampled_statistics(est, Z6, DRAWS, QuantileAt(levels))
    for b, idx in enumerate(DRAWS):
        atoms, masses = ATOMS[b], MASSES[b]
        assert mean[b].shape == (1,)
        assert abs(mean[b][0] - np.dot(atoms, masses)) <= 1e-9
        want = [_cdf(atoms, masses, t) for t in points]
        np.testing.assert_allclose(cdf[b], want, rtol=0, atol=1e-9)
        assert quantile[b].tolist() == [_quantile(atoms, masses, p) for p in levels]
        # and one refit per draw
        refit = IntervalNPMLE().fit(Z6[idx])
        assert abs(mean[b][0] - refit.mean()) <= 1e-7
        np.testing.assert_allclose(cdf[b], refit.cdf(points), rtol=0, atol=1e-7)
        assert quantile[b].tolist() == refit.quantile(levels).tolist()


def _case_two(n, seed):
    from skprivate.interval import IntervalCaseII

    x = np.random.default_rng(seed).normal(3.0, 2.0, size=(n, 1))
    mech = IntervalCaseII(anchor_loc=3.0, anchor_scale=2.0, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mech.fit_transform(x)


@pytest.mark.parametrize("method", ["icm", "turnbull", "em-icm"])
@pytest.mark.parametrize("data", ["hand", "case-two"])
def test_each_iteration_is_the_fits_own(method, data):
    # Stopped far from the optimum (tol 1e-3) the three iterations end at
    # different masses (means 2.0662, 2.0681, 2.0657 on all six rows): each
    # replicate is its own method's refit up to rounding.
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval._npmle_resampling import resampled_statistics
    from skprivate.interval._resampled_statistics import Mean

    if data == "hand":
        Z, draws = Z6, DRAWS
    else:
        Z = _case_two(80, 7)
        rng = np.random.default_rng(8)
        draws = [rng.integers(0, 80, 80) for _ in range(6)]
    est = IntervalNPMLE(method=method, tol=1e-3, max_iter=999)
    out = resampled_statistics(est, Z, draws, Mean())
    for b, idx in enumerate(draws):
        refit = IntervalNPMLE(method=method, tol=1e-3, max_iter=999).fit(Z[idx])
        assert abs(out[b][0] - refit.mean()) <= 1e-12


def test_auto_is_em_icm_and_takes_the_newton_path(monkeypatch):
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval import _npmle_resampling as R
    from skprivate.interval._resampled_statistics import CdfAt, Mean, QuantileAt

    calls = []
    solve = R.solve_active_set

    def spy(start, *args):
        calls.append(start.shape[0])
        return solve(start, *args)

    monkeypatch.setattr(R, "solve_active_set", spy)
    for est, stat, newton in (
        (IntervalNPMLE(method="auto"), Mean(), True),
        (IntervalNPMLE(method="em-icm", max_iter=1000), CdfAt(np.array([2.0])), True),
        (IntervalNPMLE(method="em-icm", max_iter=999), Mean(), False),
        (IntervalNPMLE(method="icm", max_iter=5000), Mean(), False),
        (IntervalNPMLE(method="turnbull", max_iter=5000), Mean(), False),
        (IntervalNPMLE(), QuantileAt(np.array([0.5])), False),
    ):
        calls.clear()
        out = R.resampled_statistics(est, Z6, DRAWS, stat)
        assert (sum(calls) == len(DRAWS)) if newton else (calls == [])
        for b in (1, 2):
            refit = np.atleast_1d(stat(est.fit(Z6[DRAWS[b]])))
            np.testing.assert_allclose(out[b], refit, rtol=0, atol=1e-7)


def test_what_is_not_batched_is_declined():
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval import _npmle_resampling as R
    from skprivate.interval._resampled_statistics import Mean

    draws = [np.arange(3)]
    est = IntervalNPMLE()
    # another statistic, method "pava", data that do not validate, a row
    # that says nothing (-inf, inf)
    assert R.resampled_statistics(est, Z6, draws, lambda e: e.mean()) is None
    assert (
        R.resampled_statistics(IntervalNPMLE(method="pava"), Z6, draws, Mean()) is None
    )
    assert (
        R.resampled_statistics(est, np.array([[1.0, 0.0]] * 3), draws, Mean()) is None
    )
    assert (
        R.resampled_statistics(IntervalNPMLE(bounds=(3, 1)), Z6, draws, Mean()) is None
    )
    wide = Z6.copy()
    wide[4] = [-np.inf, np.inf]
    assert R.resampled_statistics(est, wide, draws, Mean()) is None
    # without scipy's isotonic regression returning its pools
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(R, "_isotonic_blocks", lambda: None)
        assert R.resampled_statistics(est, Z6, draws, Mean()) is None


def test_statistics_of_given_masses():
    # The statistic of each replicate's masses, normalised: masses (1, 1, 0)
    # on atoms (1, 2, 3) are the law 1/2, 1/2 on 1 and 2.
    from skprivate.interval._npmle_resampling import _statistic_values
    from skprivate.interval._resampled_statistics import CdfAt, Mean, QuantileAt

    support = np.array([[1.0, 2.0, 3.0]])
    s = np.array([[1.0, 1.0, 0.0]])
    ok = np.array([True])
    assert _statistic_values(Mean(), support, s, ok).tolist() == [[1.5]]
    cdf = _statistic_values(CdfAt(np.array([0.5, 1.0, 1.5, 2.0, 3.0])), support, s, ok)
    assert cdf.tolist() == [[0.0, 0.5, 0.5, 1.0, 1.0]]
    # the first level reached: exactly 1/2 is reached at the first atom
    q = _statistic_values(QuantileAt(np.array([0.25, 0.5, 0.75, 1.0])), support, s, ok)
    assert q.tolist() == [[1.0, 1.0, 2.0, 2.0]]
    assert _statistic_values(lambda est: 0.0, support, s, ok) is None


def test_cdf_is_one_from_the_last_atom_on():
    # Ten masses of 0.1 sum to 1 - 2**-53 in floating point, and 0.7, 0.2,
    # 0.1 to 1 + 2**-52: the CDF is exactly 1 from the last atom on (atoms
    # after padding NaNs of a wider batch do not count).
    from skprivate.interval._npmle_resampling import _statistic_values
    from skprivate.interval._resampled_statistics import CdfAt, QuantileAt

    support = np.vstack([np.arange(1.0, 11.0), [1.0, 2.0, 3.0] + [np.nan] * 7])
    s = np.vstack([np.full(10, 0.1), [0.7, 0.2, 0.1] + [0.0] * 7])
    ok = np.array([True, True])
    cdf = _statistic_values(CdfAt(np.array([3.0, 10.0, 11.0])), support, s, ok)
    assert cdf[0, 1:].tolist() == [1.0, 1.0] and cdf[1].tolist() == [1.0, 1.0, 1.0]
    q = _statistic_values(QuantileAt(np.array([1.0])), support, s, ok)
    assert q.tolist() == [[10.0], [3.0]]


def test_cdf_below_the_second_atom_when_the_first_cell_is_empty():
    from skprivate.interval._npmle_resampling import _statistic_values
    from skprivate.interval._resampled_statistics import CdfAt, QuantileAt

    support = np.array([[1.0, 2.0, 3.0]])
    s = np.array([[0.0, 0.25, 0.75]])
    ok = np.array([True])
    cdf = _statistic_values(CdfAt(np.array([1.0, 2.0, 2.5, 3.0])), support, s, ok)
    assert cdf.tolist() == [[0.0, 0.25, 0.25, 1.0]]
    q = _statistic_values(QuantileAt(np.array([0.0, 0.25, 0.5])), support, s, ok)
    assert q.tolist() == [[2.0, 2.0, 3.0]]


def test_failed_replicates_are_skipped_silently():
    from skprivate.interval._npmle_resampling import _statistic_values
    from skprivate.interval._resampled_statistics import CdfAt, Mean

    support = np.array([[1.0, 2.0], [1.0, 2.0]])
    s = np.array([[0.5, 0.5], [np.nan, np.nan]])
    ok = np.array([True, False])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mean = _statistic_values(Mean(), support, s, ok)
        cdf = _statistic_values(CdfAt(np.array([1.5])), support, s, ok)
    assert mean[0].tolist() == [1.5] and cdf[0].tolist() == [0.5]


@pytest.mark.parametrize("cells", [None, 1])
def test_case_one_draws_are_the_fits_own_pava(monkeypatch, cells):
    # Draws of Case-I rows only (left- or right-censored at inspection
    # times) are fitted by the fit itself (PAVA, exact pooled means), the
    # others batched: the former equal a refit bit for bit.  Also with one
    # draw per set-up chunk.
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval import _npmle_resampling as R
    from skprivate.interval._resampled_statistics import CdfAt

    if cells is not None:
        monkeypatch.setattr(R, "_CELLS", cells)
    resampled_statistics = R.resampled_statistics

    rng = np.random.default_rng(5)
    u = rng.uniform(0.0, 4.0, 30).round(2)
    below = rng.random(30) < 0.5
    Z = np.column_stack([np.where(below, -np.inf, u), np.where(below, u, np.inf)])
    Z = np.vstack([Z, [[0.5, 2.0], [1.0, 3.0]]])
    draws = [np.arange(30), np.arange(0, 30, 2), np.arange(32)]
    points = np.linspace(0.25, 3.75, 8)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # mass on unbounded cells
        out = resampled_statistics(IntervalNPMLE(), Z, draws, CdfAt(points))
        refits = [IntervalNPMLE().fit(Z[idx]).cdf(points) for idx in draws]
    assert np.array_equal(out[0], refits[0]) and np.array_equal(out[1], refits[1])
    np.testing.assert_allclose(out[2], refits[2], rtol=0, atol=1e-7)


def _spy(monkeypatch, module, name):
    calls = []
    real = getattr(module, name)

    def spy(*args):
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(module, name, spy)
    return calls


# Five rows far apart: each its own cell, a draw of k of them has k cells.
APART = np.array([[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [6.0, 7.0], [8.0, 9.0]])


@pytest.mark.parametrize(("floor", "newton"), [(1, 4), (5, 5)])
def test_only_supports_within_four_times_the_median_take_newton_steps(
    monkeypatch, floor, newton
):
    # Without EM-ICM iterations each support is all of its cells: four
    # draws of one cell and one of five (median 1).  Newton steps for
    # supports up to max(floor, 4 x median): 4 with a floor of 1, so the
    # draw of five runs the fit's iteration; all of them with a floor of 5.
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval import _npmle_resampling as R
    from skprivate.interval._resampled_statistics import Mean

    monkeypatch.setattr(R, "_EARLY_ITER", 0)
    monkeypatch.setattr(R, "_SUPPORT_FLOOR", floor)
    calls = _spy(monkeypatch, R, "solve_active_set")
    draws = [np.array([0]), np.array([1]), np.array([2]), np.array([3]), np.arange(5)]
    out = R.resampled_statistics(IntervalNPMLE(), APART, draws, Mean())
    assert sum(c[0].shape[0] for c in calls) == newton
    want = [1.0, 3.0, 5.0, 7.0, 5.0]
    np.testing.assert_allclose(np.concatenate(out), want, rtol=0, atol=1e-9)


def test_newton_systems_in_parts_of_newton_cells_entries(monkeypatch):
    # Supports of at most k = 4 cells: first systems of 2 k + 1 = 9 slots,
    # 81 entries; room for 162 entries solves two replicates at a time.
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval import _npmle_resampling as R
    from skprivate.interval._resampled_statistics import Mean

    monkeypatch.setattr(R, "_EARLY_ITER", 0)
    monkeypatch.setattr(R, "_NEWTON_CELLS", 2 * 81)
    calls = _spy(monkeypatch, R, "solve_active_set")
    out = R.resampled_statistics(IntervalNPMLE(), Z6, DRAWS, Mean())
    assert [c[0].shape[0] for c in calls] == [2, 2, 1]
    for b in range(len(DRAWS)):
        assert abs(out[b][0] - np.dot(ATOMS[b], MASSES[b])) <= 1e-9


def test_draws_set_up_in_chunks_of_about_cells_rows(monkeypatch):
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval import _npmle_resampling as R
    from skprivate.interval._resampled_statistics import Mean

    draws = [np.array([0, 1, 2]), np.array([1, 2, 4]), np.array([3, 3, 4])]
    for cells, blocks in ((3, [1, 1, 1]), (6, [2, 1]), (100, [3])):
        monkeypatch.setattr(R, "_CELLS", cells)
        calls = _spy(monkeypatch, R, "replicate_problems")
        out = R.resampled_statistics(IntervalNPMLE(), Z6, draws, Mean())
        assert [c[4] for c in calls] == blocks
        np.testing.assert_allclose(
            np.concatenate(out), [2.5, 3.5, 8 / 3], rtol=0, atol=1e-9
        )
        monkeypatch.undo()


def test_bounds_refuse_mass_wholly_outside_them_ends_included():
    # Draw 0 holds the cell (1, 2]: it touches a lower bound of 2 and is
    # kept (the fit accepts it); draw 4 holds (3, 5], wholly above an upper
    # bound of 3: refused, as the fit refuses it.
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval._npmle_resampling import resampled_statistics
    from skprivate.interval._resampled_statistics import Mean

    draws = [DRAWS[0], DRAWS[4]]
    low = resampled_statistics(IntervalNPMLE(bounds=(2.0, 10.0)), Z6, draws, Mean())
    assert abs(low[0][0] - 2.5) <= 1e-9 and low[1] is None
    high = resampled_statistics(IntervalNPMLE(bounds=(0.0, 3.0)), Z6, draws, Mean())
    assert abs(high[0][0] - 2.5) <= 1e-9 and high[1] is None
    with pytest.raises(ValueError, match="outside the declared bounds"):
        IntervalNPMLE(bounds=(0.0, 3.0)).fit(Z6[DRAWS[4]])
    assert IntervalNPMLE(bounds=(2.0, 10.0)).fit(Z6[DRAWS[0]]).mean() == 2.5


def test_iterating_below_rounding_stays_silent():
    # Asked for a gap no iteration reaches (tol 1e-300), the EM-ICM steps
    # go on at the optimum, where two EM steps are often equal (SQUAREM's
    # v = 0: an extrapolation of -|r| / 0, refused): silently, and on the
    # hand-solved NPMLEs.
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval._npmle_resampling import resampled_statistics
    from skprivate.interval._resampled_statistics import Mean

    est = IntervalNPMLE(tol=1e-300, max_iter=400)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = resampled_statistics(est, Z6, DRAWS, Mean())
    for b in range(len(DRAWS)):
        assert abs(out[b][0] - np.dot(ATOMS[b], MASSES[b])) <= 1e-12


def test_icm_alone_solves_two_cell_draws():
    # ICM only (no EM steps): draws of two cells (the whole batch too) are
    # solved by its own steps: masses 1/2, 1/2 and 3/4, 1/4 and 2/3, 1/3.
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval._npmle_resampling import resampled_statistics
    from skprivate.interval._resampled_statistics import Mean

    est = IntervalNPMLE(method="icm", tol=1e-10, max_iter=999)
    draws = [DRAWS[0], DRAWS[1], DRAWS[4]]
    out = resampled_statistics(est, Z6, draws, Mean())
    want = [2.5, 1.875, 8 / 3]
    np.testing.assert_allclose(np.concatenate(out), want, rtol=0, atol=1e-9)


# -- the set-up of the replicates ---------------------------------------------


def _tied(seed, n=60):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, n).astype(float)
    Z = np.column_stack([a, a + rng.integers(0, 3, n)])
    Z[:8, 0] = -np.inf
    Z[8:16, 1] = np.inf
    return Z


def test_data_cells_are_the_fits_innermost_intervals():
    from skprivate.interval._npmle import _innermost
    from skprivate.interval._npmle_resampling import DataCells

    for Z in (Z6, _tied(1), _case_two(50, 2)):
        cells = DataCells(Z)
        inner, start, stop, _ = _innermost(Z)
        assert cells.m == inner.shape[0]
        assert cells.start.tolist() == start.tolist()
        assert cells.stop.tolist() == stop.tolist()
        # order sorts the rows by (start, stop); rank is its inverse
        key = cells.start[cells.order] * (cells.m + 1) + cells.stop[cells.order]
        assert (np.diff(key) >= 0).all()
        assert cells.rank[cells.order].tolist() == list(range(Z.shape[0]))


def test_replicate_problems_take_draws_in_any_order():
    # The draws in any order (no cells given) make the problems of the draws
    # sorted by replicate and data range (as resampled_statistics passes
    # them), and those are each draw's own likelihood.
    from skprivate.interval._npmle import _innermost
    from skprivate.interval._npmle_resampling import DataCells, replicate_problems

    Z = _tied(3)
    rng = np.random.default_rng(4)
    draws = [rng.integers(0, 60, 25) for _ in range(4)]
    block = np.repeat(np.arange(4), 25)
    pairs, count = np.unique(
        np.column_stack([block, np.concatenate(draws)]), axis=0, return_counts=True
    )
    cells = DataCells(Z)
    ranked = np.lexsort((cells.rank[pairs[:, 1]], pairs[:, 0]))
    want = replicate_problems(Z, *pairs[ranked].T, count[ranked], 4, cells)
    for order in (np.arange(len(pairs)), rng.permutation(len(pairs))):
        p = replicate_problems(Z, pairs[order, 0], pairs[order, 1], count[order], 4)
        for name in ("left", "right", "m", "start", "stop", "w", "n_rows"):
            np.testing.assert_array_equal(getattr(p, name), getattr(want, name))
    for b, idx in enumerate(draws):
        inner, start, stop, _ = _innermost(Z[idx])
        m = inner.shape[0]
        assert want.m[b] == m
        assert want.left[b, :m].tolist() == inner[:, 0].tolist()
        assert want.right[b, :m].tolist() == inner[:, 1].tolist()
        rows = slice(0, want.n_rows[b])
        ours = want.start[b, rows] * (m + 1) + want.stop[b, rows]
        key, counts = np.unique(start * (m + 1) + stop, return_counts=True)
        pooled = np.bincount(
            np.searchsorted(key, ours), weights=want.w[b, rows], minlength=key.size
        )
        assert np.isin(ours, key).all()
        np.testing.assert_allclose(pooled, counts / 25, rtol=1e-12)


def test_solve_batch_returns_masses_flags_and_iterations():
    from scipy.optimize import isotonic_regression

    from skprivate.interval._npmle_resampling import replicate_problems, solve_batch

    p = replicate_problems(Z6, np.zeros(3, int), np.arange(3), np.ones(3), 1)
    s, finite, n_iter = solve_batch(p, "em-icm", 1e-8, 100, isotonic_regression)
    assert s.round(12).tolist() == [[0.5, 0.5]]
    assert finite.tolist() == [True]
    assert n_iter.dtype.kind == "i" and n_iter.tolist() == [0]
    s, finite, n_iter = solve_batch(p, "em-icm", 1e-8, 0, isotonic_regression)
    assert n_iter.tolist() == [0] and finite.tolist() == [True]


def test_draws_of_one_cell_each_stay_apart():
    # Every draw of one cell: (0, 2] and (1, 3] share (1, 2]; (0.5, 1.5]
    # twice is (0.5, 1.5]; (3, 5] alone.  Their rows are pooled within a
    # draw, never across draws.
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval._npmle_resampling import resampled_statistics
    from skprivate.interval._resampled_statistics import Mean

    draws = [np.array([0, 1]), np.array([3, 3]), np.array([4])]
    out = resampled_statistics(IntervalNPMLE(), Z6, draws, Mean())
    assert [o.tolist() for o in out] == [[2.0], [1.5], [5.0]]


# -- exact cases of the set-up and of the fit's own iteration -----------------


def test_rows_are_pooled_within_their_own_replicate_only():
    """Rows are pooled only with equal ranges of the same draw, never across draws."""
    # The data's cells are (0, 1], (2, 3], (4, 5]; draw 0 holds (0, 1] and
    # (2, 3] once each, draw 1 the wide row (-1, 10] with (2, 3] and (4, 5]:
    # both draws have two cells, and draw 1's first row (range (0, 2))
    # follows draw 0's last (range (1, 2)) without being pooled into it.
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval._npmle_resampling import (
        replicate_problems,
        resampled_statistics,
    )
    from skprivate.interval._resampled_statistics import Mean

    Z = np.array([[-1.0, 10.0], [0.0, 1.0], [2.0, 3.0], [4.0, 5.0]])
    block, row = np.array([0, 0, 1, 1, 1]), np.array([1, 2, 0, 2, 3])
    p = replicate_problems(Z, block, row, np.ones(5), 2)
    assert p.m.tolist() == [2, 2] and p.n_rows.tolist() == [2, 3]
    assert p.start.tolist() == [[0, 1, 0], [0, 0, 1]]
    assert p.stop.tolist() == [[1, 2, 2], [2, 1, 2]]
    assert p.w.tolist() == [[0.5, 0.5, 0.0], [1 / 3] * 3]
    out = resampled_statistics(IntervalNPMLE(), Z, [row[:2], row[2:]], Mean())
    np.testing.assert_allclose(np.concatenate(out), [2.0, 4.0], rtol=0, atol=1e-9)
    # draws of one cell each: every draw keeps its own row of weight one
    Z = np.array([[0.0, 2.0], [1.0, 3.0], [5.0, 6.0]])
    p = replicate_problems(Z, np.array([0, 0, 1]), np.arange(3), np.ones(3), 2)
    assert p.m.tolist() == [1, 1] and p.n_rows.tolist() == [1, 1]
    assert p.w.tolist() == [[1.0], [1.0]]
    assert p.left.tolist() == [[1.0], [5.0]] and p.right.tolist() == [[2.0], [6.0]]


@pytest.mark.parametrize(
    ("Z", "draw", "levels"),
    [
        # four cells held alone, weights 0.4, 0.2, 0.2, 0.2: every level is a
        # cumulative mass
        (
            [[0.0, 1.0], [2.0, 3.0], [4.0, 5.0], [5.0, 8.0]],
            [0, 0, 1, 2, 3],
            [0.4, 0.6, 0.8, 1.0],
        ),
        # cells (2, 4], (4, 5], (5, 6] of masses 4/15, 8/15, 1/5
        ([[5.0, 6.0], [2.0, 4.0], [4.0, 5.0], [2.0, 5.0]], [0, 1, 2, 2, 3], [0.8]),
    ],
)
def test_quantiles_where_the_cdf_meets_the_level_are_the_refits(Z, draw, levels):
    """At levels the CDF meets exactly, the quantiles are the refit's own atoms."""
    # The level is met to rounding only, on one side or the other: the
    # replicate's quantile is the refit's when the same iteration runs (at
    # the default tolerance, and at one no iteration reaches).
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval._npmle_resampling import resampled_statistics
    from skprivate.interval._resampled_statistics import QuantileAt

    Z, draw, levels = np.array(Z), np.array(draw), np.array(levels)
    for params in ({}, {"tol": 1e-300, "max_iter": 200}):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # not converged at tol 1e-300
            out = resampled_statistics(
                IntervalNPMLE(**params), Z, [draw], QuantileAt(levels)
            )
            refit = IntervalNPMLE(**params).fit(Z[draw])
        cum = np.cumsum(refit.probabilities_)
        assert np.abs(cum[:, None] - levels).min(axis=0).max() <= 1e-8
        assert out[0].tolist() == refit.quantile(levels).tolist()


def test_an_extrapolation_emptying_a_row_is_refused_for_its_replicate_alone():
    """A SQUAREM trial that empties a row is refused silently, for its draw alone."""
    # Cells (0, 1], (2, 3], (4, 5]; draw 0 has rows {0}, {0, 1}, {1, 2}, {2}
    # drawn 1, 6, 8 and 1 times: its first SQUAREM extrapolation clips cell 2
    # to zero and empties row {2}, which is refused without a floating-point
    # warning.  Draw 1 (rows {0}, {0, 1}, {1} of weights 1/2, 1/4, 1/4, an EM
    # map linear in s_0) is solved exactly by its own first extrapolation,
    # kept: masses 2/3, 1/3 on 1 and 3 after one iteration.
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval._npmle_resampling import resampled_statistics
    from skprivate.interval._resampled_statistics import Mean

    Z = np.array([[0.0, 1.0], [0.0, 3.0], [2.0, 5.0], [4.0, 5.0]])
    draws = [np.repeat(np.arange(4), [1, 6, 8, 1]), np.array([0, 0, 1, 2])]
    for params in ({"method": "turnbull", "max_iter": 1}, {}):
        est = IntervalNPMLE(**params)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = resampled_statistics(est, Z, draws, Mean())
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # one iteration: unconverged
            refits = [IntervalNPMLE(**params).fit(Z[idx]).mean() for idx in draws]
        np.testing.assert_allclose(np.concatenate(out), refits, rtol=0, atol=1e-9)
        assert abs(out[1][0] - 5 / 3) <= 1e-12


def test_one_icm_step_on_replicates_of_unequal_cell_counts():
    """An ICM step of a draw padded to more cells is the refit's own step."""
    # Draw 0 has four cells held alone (uniform masses are its NPMLE), draw
    # 1 three, held alone with weights 2/5, 1/5, 2/5, padded to four in the
    # batch: its one ICM step from the uniform start is the refit's, masses
    # 7/18, 2/9, 7/18 (mean 83/18 on 3, 5, 6), with nothing moved beyond its
    # own cells.
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval._npmle_resampling import resampled_statistics
    from skprivate.interval._resampled_statistics import Mean

    Z = np.array([[1.0, 2.0], [2.0, 3.0], [4.0, 5.0], [5.0, 6.0]])
    draws = [np.arange(4), np.array([1, 1, 2, 3, 3])]
    est = IntervalNPMLE(method="icm", max_iter=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the refit stops unconverged
        out = resampled_statistics(est, Z, draws, Mean())
        refits = [IntervalNPMLE(method="icm", max_iter=1).fit(Z[i]) for i in draws]
    np.testing.assert_allclose(np.concatenate(out), [4.0, 83 / 18], rtol=0, atol=1e-12)
    for b in range(2):
        assert abs(out[b][0] - refits[b].mean()) <= 1e-12
    np.testing.assert_allclose(refits[1].probabilities_, [7 / 18, 2 / 9, 7 / 18])


@pytest.mark.parametrize("method", ["em-icm", "icm", "turnbull"])
def test_a_gap_equal_to_the_tolerance_stops_the_iteration(method):
    """The iteration stops at a gap equal to tol, as the refit does (gap <= tol)."""
    # Cells (0, 1] and (2, 3] held alone by weights 3/4 and 1/4: at the
    # uniform start d = (1.5, 0.5), a gap of exactly 0.5.  With tol = 0.5
    # the refit stops there (gap <= tol), and so does the replicate: masses
    # 1/2, 1/2, mean 2 (the NPMLE's is 1.5).
    from skprivate.interval import IntervalNPMLE
    from skprivate.interval._npmle_resampling import resampled_statistics
    from skprivate.interval._resampled_statistics import Mean

    Z = np.array([[0.0, 1.0], [2.0, 3.0]])
    draw = np.array([0, 0, 0, 1])
    est = IntervalNPMLE(method=method, tol=0.5, max_iter=100)
    out = resampled_statistics(est, Z, [draw], Mean())
    refit = IntervalNPMLE(method=method, tol=0.5, max_iter=100).fit(Z[draw])
    assert refit.n_iter_ == 0 and refit.mean() == 2.0
    assert out[0].tolist() == [2.0]


def _batch_rows(*replicates):
    """Replicates ``(m, [(start, stop, weight), ...])`` padded to one shape."""
    B, M = len(replicates), max(m for m, _ in replicates)
    R = max(len(rows) for _, rows in replicates) + 1
    start = np.zeros((B, R), dtype=np.int64)
    stop = np.zeros((B, R), dtype=np.int64)
    w = np.zeros((B, R))
    m = np.array([m for m, _ in replicates])
    for b, (_, rows) in enumerate(replicates):
        stop[b] = m[b]  # padding rows hold every cell and weigh zero
        for i, row in enumerate(rows):
            start[b, i], stop[b, i], w[b, i] = row
    return start, stop, w, m, M


def test_failed_replicates_stop_alone_and_are_flagged():
    """A replicate whose masses or gradient turn NaN is flagged and stops alone."""
    # Replicate 1's cell 1 is held only by a row of weight zero: its first EM
    # step empties the cell, that row's w / P is 0 / 0 and the masses turn
    # NaN.  Replicate 3's row of weight zero holds no cell: its gradient is
    # NaN at the start.  Both are reported failed, 3 at once with its start;
    # replicate 0 (solved by one SQUAREM cycle) and replicate 2 (three
    # iterations) end as alone, silently.
    from scipy.optimize import isotonic_regression

    from skprivate.interval._npmle_resampling import ReplicateProblems, solve_batch

    start, stop, w, m, M = _batch_rows(
        (2, [(0, 1, 0.5), (0, 2, 0.25), (1, 2, 0.25)]),
        (2, [(0, 1, 1.0), (1, 2, 0.0)]),
        (3, [(0, 2, 0.4), (1, 3, 0.4), (0, 1, 0.1), (2, 3, 0.1)]),
        (2, [(0, 1, 0.5), (1, 2, 0.5), (1, 1, 0.0)]),
    )
    nan = np.full((4, M), np.nan)
    p = ReplicateProblems(nan, nan, m, start, stop, w, np.array([3, 2, 4, 3]))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s, finite, n_iter = solve_batch(p, "em-icm", 1e-10, 500, isotonic_regression)
    assert finite.tolist() == [True, False, True, False]
    assert n_iter.tolist() == [1, 1, 3, 0]
    np.testing.assert_allclose(s[0], [2 / 3, 1 / 3, 0.0], rtol=0, atol=1e-12)
    np.testing.assert_allclose(s[2], [0.2, 0.6, 0.2], rtol=0, atol=1e-9)
    assert np.isnan(s[1]).all() and s[3].tolist() == [0.5, 0.5, 0.0]


def test_icm_marks_a_replicate_whose_model_is_not_finite_as_failed():
    """ICM marks a replicate with a NaN model failed and steps the others."""
    # Replicate 0 at masses (1, 0) has a row of weight zero on the empty cell
    # (w / P = 0 / 0): its quadratic model is NaN, which the fit's isotonic
    # regression refuses, so its masses are marked NaN (a failed refit);
    # replicate 1 takes its own ICM step to its NPMLE (3/4, 1/4), silently.
    from scipy.optimize import isotonic_regression

    from skprivate.interval._npmle_resampling import _Batch

    start, stop, w, m, M = _batch_rows(
        (2, [(0, 1, 1.0), (1, 2, 0.0)]), (2, [(0, 1, 0.75), (1, 2, 0.25)])
    )
    batch = _Batch(start, stop, w, m, M, isotonic_regression)
    s = np.array([[1.0, 0.0], [0.5, 0.5]])
    P = batch.probabilities(s)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, _, _ = batch.icm(s, P, batch.loglik_at(P))
    assert np.isnan(out[0]).all()
    assert out[1].tolist() == [0.75, 0.25]
    assert s.tolist() == [[1.0, 0.0], [0.5, 0.5]]  # the input is left alone


def test_icm_steps_that_flatten_a_cell_are_the_fits_own():
    """ICM steps pooling across a cell give it mass 0 and never empty a row."""
    # Two states whose isotonic target pools across a cell: the step it
    # gives replicate 0 empties cell 1, which gets mass exactly 0 (never a
    # rounding below it); replicate 1's full step would empty its row {2}
    # (probability 0), so it takes a shorter one, while replicate 2 takes
    # its full step in the same round of the line search.  Each is the
    # fit's own ICM step on that replicate.
    from scipy.optimize import isotonic_regression

    from skprivate.interval._npmle_likelihood import IntervalLikelihood
    from skprivate.interval._npmle_resampling import _Batch

    replicates = [
        (3, [(0, 1, 9), (0, 2, 4), (1, 3, 28), (2, 3, 22)], [8, 17, 27]),
        (3, [(0, 1, 32), (1, 2, 287), (1, 3, 172), (2, 3, 1)], [33, 25, 2]),
        (2, [(0, 1, 3), (1, 2, 1)], [1, 1]),
    ]
    weighted = [
        (m, [(a, b, c / sum(r[2] for r in rows)) for a, b, c in rows])
        for m, rows, _ in replicates
    ]
    start, stop, w, m, M = _batch_rows(*weighted)
    s = np.zeros((3, M))
    for b, (mb, _, counts) in enumerate(replicates):
        s[b, :mb] = np.array(counts) / sum(counts)
    batch = _Batch(start, stop, w, m, M, isotonic_regression)
    P = batch.probabilities(s)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out, out_P, _ = batch.icm(s, P, batch.loglik_at(P))
    assert out[0, 1] == 0.0 and (out >= 0).all()
    assert (out_P[:, :4] > 0).all()
    for b, (mb, rows) in enumerate(weighted):
        fit = IntervalLikelihood(*(np.array(c) for c in zip(*rows)), mb)
        sb = s[b, :mb].copy()
        Pb = fit.probabilities(sb).copy()
        want, _, _ = fit.icm(sb, Pb, fit.loglik_at(Pb))
        np.testing.assert_allclose(out[b, :mb], want, rtol=0, atol=1e-15)
    np.testing.assert_allclose(out[2, :2], [0.75, 0.25], rtol=0, atol=1e-15)
