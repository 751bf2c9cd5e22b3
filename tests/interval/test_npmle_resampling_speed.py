"""The NPMLE's batched resampling refits equal the refits one by one.

``conf_int("cdf" | "quantile")`` (subsampling) and ``conf_int("mean")``
(bootstrap) of :class:`IntervalNPMLE` on data other than Case I refit the
estimator on every draw; the refits run batched
(:mod:`skprivate.interval._npmle_resampling`).  The draws are the same, and
each batched replicate runs the fit's own iteration, so the replicates equal
those of one fit per draw up to the solver's tolerance: ``TOL`` below on
CDF values and means (the masses stop within an optimality gap of 1e-8;
measured differences are below 1e-8).  A quantile is a step function of
the CDF: where a replicate's CDF equals the level to rounding, two solves
within tolerance of each other can return neighbouring atoms, so a batched
quantile is checked to be a quantile of the one-by-one refit's CDF at the
level moved by ``TOL``.
"""

import warnings

import numpy as np
import pytest
from sklearn.base import clone

from skprivate._uncertainty import bootstrap_replicates, resample_indices
from skprivate.interval import IntervalCaseII, IntervalNPMLE
from skprivate.interval._resampled_statistics import CdfAt, Mean, QuantileAt

TOL = 1e-6


class _OneByOne:
    """Wraps a statistic so that the batched refits decline it."""

    def __init__(self, statistic):
        self.statistic = statistic

    def __call__(self, est):
        return self.statistic(est)


def _case_two(n, seed=0):
    x = np.random.default_rng(seed).normal(3.0, 2.0, size=(n, 1))
    mech = IntervalCaseII(anchor_loc=3.0, anchor_scale=2.0, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return mech.fit_transform(x)


def _both(est, Z, statistic, **draws):
    fast = bootstrap_replicates(clone(est), Z, statistic, **draws)
    slow = bootstrap_replicates(clone(est), Z, _OneByOne(statistic), **draws)
    return fast, slow


def test_subsampled_cdf_replicates_equal_one_refit_per_draw():
    Z = _case_two(300)
    # Upper ends of rows are atoms of the draws holding them: F at an atom
    # counts the atom's mass.
    points = np.concatenate([[0.5, 3.0, 5.5], Z[:12, 1]])
    fast, slow = _both(
        IntervalNPMLE(),
        Z,
        CdfAt(points),
        n_resamples=80,
        random_state=1,
        size=45,
        replace=False,
    )
    assert fast.shape == slow.shape == (80, 15)
    assert not np.isnan(slow).any()
    assert np.abs(fast - slow).max() <= TOL
    # Not all equal by accident: the replicates spread.
    assert slow[:, 1].std() > 0.05


def test_bootstrap_mean_replicates_equal_one_refit_per_draw():
    Z = _case_two(400, seed=2)
    fast, slow = _both(IntervalNPMLE(), Z, Mean(), n_resamples=40, random_state=3)
    assert not np.isnan(slow).any()
    assert np.abs(fast - slow).max() <= TOL
    assert slow.std() > 0.01


@pytest.mark.parametrize("method", ["icm", "turnbull"])
def test_other_iterations_batched_alike(method):
    Z = _case_two(200, seed=4)
    est = IntervalNPMLE(method=method, max_iter=20000)
    fast, slow = _both(est, Z, Mean(), n_resamples=12, random_state=5)
    assert np.abs(fast - slow).max() <= TOL


def test_subsampled_quantiles_are_quantiles_of_the_one_by_one_refits():
    Z = _case_two(300, seed=6)
    levels = np.array([0.25, 0.5, 0.9])
    est = IntervalNPMLE()
    draws = {"n_resamples": 60, "random_state": 7, "size": 45, "replace": False}
    fast = bootstrap_replicates(clone(est), Z, QuantileAt(levels), **draws)
    indices = resample_indices(300, 60, 7, 45, False)
    for rep, idx in enumerate(indices):
        refit = IntervalNPMLE().fit(Z[idx])
        for k, p in enumerate(levels):
            q = fast[rep, k]
            assert refit.cdf(q) >= p - TOL
            assert refit.cdf(np.nextafter(q, -np.inf)) <= p + TOL


def test_case_one_draws_fall_back_to_their_own_fit():
    # Mostly Case-I rows and a few two-sided ones: some subsamples hold
    # Case-I rows only, which the fit solves by PAVA.
    rng = np.random.default_rng(8)
    u = rng.uniform(0, 4, 60)
    below = rng.uniform(0, 4, 60) <= u
    Z = np.column_stack([np.where(below, -np.inf, u), np.where(below, u, np.inf)])
    Z[:3] = [[0.5, 1.5], [1.0, 2.5], [2.0, 3.0]]
    draws = {"n_resamples": 40, "random_state": 9, "size": 8, "replace": False}
    indices = resample_indices(60, 40, 9, 8, False)
    assert any(np.all(idx >= 3) for idx in indices)
    assert any(np.any(idx < 3) for idx in indices)
    fast, slow = _both(IntervalNPMLE(), Z, CdfAt(np.array([2.0])), **draws)
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(slow))
    assert np.nanmax(np.abs(fast - slow)) <= TOL


def test_mixed_rows_with_ties_batched_alike():
    # Exact values, half-lines and two-sided rows on a coarse grid: many
    # endpoints tie, and the tie rule (exact value, right end, left end)
    # decides the innermost intervals of every draw.
    rng = np.random.default_rng(14)
    a = rng.integers(0, 8, 240).astype(float)
    b = a + rng.integers(0, 3, 240)
    Z = np.column_stack([a, b])
    Z[:40, 0] = -np.inf
    Z[40:80, 1] = np.inf
    points = np.arange(0.0, 9.0)
    for draws in (
        {"n_resamples": 50, "random_state": 15, "size": 39, "replace": False},
        {"n_resamples": 30, "random_state": 16},
    ):
        fast, slow = _both(IntervalNPMLE(), Z, CdfAt(points), **draws)
        np.testing.assert_array_equal(np.isnan(fast), np.isnan(slow))
        assert np.nanmax(np.abs(fast - slow)) <= TOL


def test_refits_refused_by_the_bounds_fail_alike():
    # With bounds (1, 5), a draw that locates mass wholly below 1 is
    # refused by the fit: a failed replicate (NaN) in both paths.
    Z = _case_two(120, seed=10)
    Z = Z[(Z[:, 0] > -1.0) & (Z[:, 1] < 7.0)]
    est = IntervalNPMLE(bounds=(1.0, 5.0))
    draws = {"n_resamples": 60, "random_state": 11, "size": 20, "replace": False}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast, slow = _both(est, Z, CdfAt(np.array([3.0])), **draws)
    np.testing.assert_array_equal(np.isnan(fast), np.isnan(slow))
    assert np.isnan(slow).any() and not np.isnan(slow).all()
    assert np.nanmax(np.abs(fast - slow)) <= TOL


def _conf_ints(est, Z, kind, points, monkeypatch, extra=()):
    """``conf_int`` batched, then one refit per draw at each of the points."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fast = est.conf_int(kind, points, X=Z, random_state=13)
        monkeypatch.setattr(IntervalNPMLE, "_resampled_statistics", lambda *a: None)
        slow = [est.conf_int(kind, p, X=Z, random_state=13) for p in (points, *extra)]
    return fast, slow


@pytest.mark.parametrize(("kind", "points"), [("cdf", [2.0, 3.0]), ("mean", None)])
def test_conf_int_equals_the_one_by_one_computation(kind, points, monkeypatch):
    # The intervals of the row "NPMLE Case-II conf_int" of the speed
    # benchmark, batched and by one refit per draw.
    Z = _case_two(500, seed=12)
    est = IntervalNPMLE().fit(Z)
    fast, (slow,) = _conf_ints(est, Z, kind, points, monkeypatch)
    assert fast["method"].tolist() == slow["method"].tolist()
    for side in ("lower", "upper"):
        assert np.abs(fast[side] - slow[side]).max() <= TOL


def test_quantile_conf_int_between_the_one_by_one_intervals(monkeypatch):
    # Each batched replicate quantile lies between the one-by-one refit's
    # quantiles at the level -/+ TOL, and the subsampling ends are monotone
    # in the replicates: so do the interval's ends.
    Z = _case_two(500, seed=12)
    est = IntervalNPMLE().fit(Z)
    p = 0.5
    fast, (slow, low, high) = _conf_ints(
        est, Z, "quantile", [p], monkeypatch, extra=([p - TOL], [p + TOL])
    )
    assert fast["estimate"].iloc[0] == low["estimate"].iloc[0]
    assert fast["estimate"].iloc[0] == high["estimate"].iloc[0]
    for side in ("lower", "upper"):
        ends = sorted([low[side].iloc[0], high[side].iloc[0]])
        assert ends[0] <= fast[side].iloc[0] <= ends[1]
        # one refit per draw at the level itself lies in the same bracket
        assert ends[0] <= slow[side].iloc[0] <= ends[1]


def test_icm_step_never_empties_a_row():
    # A bootstrap draw on which the ICM line search accepted a step that
    # flattened a row's range (its probability rounded to zero), after which
    # the iteration turned to NaN and the refit failed (16 of 200 draws).
    Z = _case_two(5000)
    idx = resample_indices(5000, 5, 0)[4]
    est = IntervalNPMLE().fit(Z[idx])
    assert est.converged_
    assert est.optimality_gap_ <= 1e-8


def _draws(Z, indices):
    """The draws of ``resampled_statistics``: sorted by replicate and range."""
    from skprivate.interval._npmle_resampling import DataCells

    n, B = Z.shape[0], len(indices)
    cells = DataCells(Z)
    block = np.repeat(np.arange(B), [len(i) for i in indices])
    keys, count = np.unique(
        block * n + cells.rank[np.concatenate(indices)], return_counts=True
    )
    block, rank = np.divmod(keys, n)
    return cells, block, cells.order[rank], count.astype(float)


def _tied_rows(seed):
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 8, 240).astype(float)
    Z = np.column_stack([a, a + rng.integers(0, 3, 240)])
    Z[:40, 0] = -np.inf
    Z[40:80, 1] = np.inf
    return Z


@pytest.mark.parametrize("kind", ["case-two", "tied"])
def test_replicate_problems_are_each_draws_own_likelihood(kind):
    # Each replicate's innermost intervals and pooled rows, found on the
    # data's cells, are those the fit finds on the drawn rows themselves.
    from skprivate.interval._npmle import _innermost
    from skprivate.interval._npmle_resampling import replicate_problems

    Z = _case_two(300, seed=17) if kind == "case-two" else _tied_rows(18)
    n = Z.shape[0]
    indices = resample_indices(n, 6, 19) + resample_indices(n, 6, 20, 40, False)
    cells, block, row, count = _draws(Z, indices)
    p = replicate_problems(Z, block, row, count, len(indices), cells)
    for b, idx in enumerate(indices):
        inner, start, stop, _ = _innermost(Z[idx])
        m = inner.shape[0]
        assert p.m[b] == m
        np.testing.assert_array_equal(p.left[b, :m], inner[:, 0])
        np.testing.assert_array_equal(p.right[b, :m], inner[:, 1])
        assert np.isnan(p.left[b, m:]).all()
        key, counts = np.unique(start * (m + 1) + stop, return_counts=True)
        rows = slice(0, p.n_rows[b])
        ours = p.start[b, rows] * (m + 1) + p.stop[b, rows]
        pooled = np.bincount(
            np.searchsorted(key, ours), weights=p.w[b, rows], minlength=key.size
        )
        assert np.isin(ours, key).all()
        np.testing.assert_allclose(pooled, counts / len(idx), rtol=1e-12)
        # Padding rows weigh nothing and hold every innermost interval.
        assert (p.w[b, p.n_rows[b] :] == 0).all()
        assert (p.start[b, p.n_rows[b] :] == 0).all()
        assert (p.stop[b, p.n_rows[b] :] == m).all()


@pytest.mark.parametrize(("early", "steps"), [(3, 5), (1, 9), (0, 15)])
def test_support_reduction_reaches_the_optimum(early, steps):
    # The fast path: the fit's first EM-ICM iterations (3), then support
    # reduction.  Every replicate settles within a few Newton steps, well
    # inside the fit's tolerance: its mean is that of a refit converged far
    # beyond the default.  After one iteration cells must enter the
    # support; from the uniform start (none) most must leave it.
    from scipy.optimize import isotonic_regression

    from skprivate.interval import _npmle_resampling as R
    from skprivate.interval._npmle_active_set import solve_active_set

    assert R._EARLY_ITER == 3
    Z = _case_two(400, seed=21)
    indices = resample_indices(400, 12, 22)
    cells, block, row, count = _draws(Z, indices)
    p = R.replicate_problems(Z, block, row, count, 12, cells)
    if early:
        s0 = R.solve_batch(p, "em-icm", R._EARLY_TOL, early, isotonic_regression)[0]
    else:
        s0 = np.where(np.isnan(p.left), 0.0, 1.0 / p.m[:, None])
    s, converged, n_iter = solve_active_set(p.start, p.stop, p.w, p.m, s0, 1e-10, 50)
    assert converged.all()
    assert n_iter.max() <= steps
    np.testing.assert_allclose(s.sum(axis=1), 1.0)
    for b, idx in enumerate(indices):
        tight = IntervalNPMLE(tol=1e-13, max_iter=100_000).fit(Z[idx])
        m = p.m[b]
        np.testing.assert_allclose(
            s[b, :m] @ p.right[b, :m], tight.mean(), rtol=0, atol=1e-9
        )


def test_unsettled_replicates_fall_back_to_the_fits_iteration(monkeypatch):
    # With no Newton step allowed no replicate settles: all of them run the
    # fit's own iteration, and equal one refit per draw as before.
    from skprivate.interval import _npmle_resampling as R

    monkeypatch.setattr(R, "_NEWTON_ITER", 0)
    Z = _case_two(300, seed=23)
    fast, slow = _both(IntervalNPMLE(), Z, Mean(), n_resamples=15, random_state=24)
    assert np.abs(fast - slow).max() <= 1e-8


def test_a_replicate_with_a_far_larger_support_runs_the_fits_iteration(monkeypatch):
    # Newton systems are padded to the largest support: a replicate whose
    # support after the EM-ICM iterations is far above the others' (here:
    # no EM-ICM iteration, so every support is all of its cells, and one
    # draw is much larger) is solved by the fit's iteration instead.
    from skprivate.interval import _npmle_resampling as R

    seen = []

    def spy(start, *args):
        seen.append(start.shape[0])
        return solve(start, *args)

    solve = R.solve_active_set
    monkeypatch.setattr(R, "solve_active_set", spy)
    monkeypatch.setattr(R, "_EARLY_ITER", 0)
    monkeypatch.setattr(R, "_SUPPORT_FLOOR", 8)
    Z = _case_two(400, seed=25)
    rng = np.random.default_rng(26)
    indices = [np.arange(400)] + [rng.choice(400, 40, replace=False) for _ in range(5)]
    out = R.resampled_statistics(IntervalNPMLE(), Z, indices, Mean())
    assert seen == [5]
    for idx, value in zip(indices, out):
        assert abs(value[0] - IntervalNPMLE().fit(Z[idx]).mean()) <= TOL


def test_newton_systems_taken_in_parts_alike(monkeypatch):
    # Bounded memory: with room for one replicate's systems at a time, the
    # replicates are solved one by one, to the same values.
    from skprivate.interval import _npmle_resampling as R

    seen = []

    def spy(start, *args):
        seen.append(start.shape[0])
        return solve(start, *args)

    solve = R.solve_active_set
    monkeypatch.setattr(R, "solve_active_set", spy)
    monkeypatch.setattr(R, "_NEWTON_CELLS", 1)
    Z = _case_two(300, seed=27)
    fast, slow = _both(IntervalNPMLE(), Z, Mean(), n_resamples=6, random_state=28)
    assert seen == [1] * 6
    assert np.abs(fast - slow).max() <= TOL
