"""The iterative NPMLE for general interval data: EM-ICM, ICM and Turnbull."""

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalMechanism,
    IntervalNPMLE,
)


def _case_two(n, seed=1, anchor_seed=2):
    y = np.random.default_rng(seed).normal(size=(n, 1))
    return IntervalCaseII(random_state=anchor_seed).fit_transform(y)


def _dense_gradient(Z, est, sample_weight=None):
    """``d_j = sum_i w_i 1{innermost j in row i} / P_i`` from the incidence matrix."""
    w = np.ones(len(Z)) if sample_weight is None else np.asarray(sample_weight, float)
    w = w / w.sum()
    left, right = est.innermost_[:, 0], est.innermost_[:, 1]
    lo, hi = Z[:, :1], Z[:, 1:]
    exact = lo == hi
    # Innermost j inside row i: a point row contains only the point [y, y];
    # an interval row (lo, hi] contains [l, r] when lo <= l and r <= hi,
    # except the point [lo, lo], which is outside the open left end.
    point = left == right
    inside = np.where(
        exact,
        point & (left == lo),
        (left >= lo) & (right <= hi) & ~(point & (left == lo)),
    )
    P = inside @ est.probabilities_
    return (w / P) @ inside, inside


def _assert_kkt(Z, est, tol, sample_weight=None):
    d, _ = _dense_gradient(Z, est, sample_weight)
    s = est.probabilities_
    assert est.optimality_gap_ == pytest.approx(d.max() - 1, abs=1e-9)
    # d_j <= W everywhere ...
    assert d.max() - 1 <= tol
    # ... with equality where s_j > 0: sum_j s_j (1 - d_j) = 0, so every term
    # s_j (1 - d_j) with d_j < 1 is at most the total excess, at most tol.
    assert np.all(s * (1 - d) <= tol + 1e-12)
    assert s.sum() == pytest.approx(1.0, abs=1e-12) and np.all(s >= 0)


@pytest.mark.parametrize("method", ["em-icm", "icm"])
def test_iterative_methods_agree_with_pava_on_case_one_data(method):
    y = np.random.default_rng(1).normal(size=(2000, 1))
    Z = IntervalCaseI(random_state=2).fit_transform(y)
    pava = IntervalNPMLE(method="pava").fit(Z)
    est = IntervalNPMLE(method=method, tol=1e-8).fit(Z)
    assert est.method_ == method and est.converged_
    # The Case-I NPMLE of F is unique at every anchor.
    anchors = np.unique(Z[np.isfinite(Z)])
    np.testing.assert_allclose(est.cdf(anchors), pava.cdf(anchors), atol=1e-6)
    assert est.log_likelihood_ >= pava.log_likelihood_ - 1e-10
    assert abs(pava.optimality_gap_) < 1e-9


def test_em_icm_agrees_with_tightly_converged_turnbull_on_case_two_data():
    iterations = []
    for seed in range(4):
        Z = _case_two(300, seed=seed)
        em = IntervalNPMLE(method="turnbull", tol=1e-10, max_iter=100000).fit(Z)
        est = IntervalNPMLE().fit(Z)
        assert em.converged_ and est.converged_ and est.method_ == "em-icm"
        np.testing.assert_array_equal(est.innermost_, em.innermost_)
        # Turnbull's relative-change stop can halt 2e-5 short on a flat
        # likelihood (seed 3); EM-ICM stops on the KKT gap and is never worse.
        np.testing.assert_allclose(
            np.cumsum(est.probabilities_), np.cumsum(em.probabilities_), atol=5e-5
        )
        assert est.log_likelihood_ >= em.log_likelihood_ - 1e-12
        iterations.append((est.n_iter_, em.n_iter_))
    # Far fewer iterations than plain self-consistency at a looser tolerance
    # (Turnbull's count varies a lot with the data: 100 to 7,000 here).
    fast, plain = np.array(iterations).T
    assert np.all(fast * 5 < plain) and fast.sum() * 10 < plain.sum()


@pytest.mark.parametrize("method", ["em-icm", "turnbull"])
def test_kkt_conditions_hold_at_the_returned_solution(method):
    Z = _case_two(500, seed=3)
    tol = 1e-7
    est = IntervalNPMLE(method=method, tol=tol, max_iter=100000).fit(Z)
    assert est.converged_
    _assert_kkt(Z, est, tol)


def test_kkt_conditions_on_mixed_points_and_intervals_with_weights():
    y = np.random.default_rng(4).normal(size=(600, 1))
    Z = IntervalMechanism(
        n_anchors=3, offsets=[-1.0, 0.0, 1.0], exact_cells=[1], random_state=0
    ).fit_transform(y)
    assert np.any(Z[:, 0] == Z[:, 1]) and np.any(Z[:, 0] < Z[:, 1])
    sw = np.random.default_rng(5).integers(1, 4, size=len(Z)).astype(float)
    est = IntervalNPMLE(tol=1e-9).fit(Z, sample_weight=sw)
    assert est.converged_
    _assert_kkt(Z, est, 1e-9, sample_weight=sw)
    # Integer weights are the same as repeated rows.
    rep = IntervalNPMLE(tol=1e-9).fit(np.repeat(Z, sw.astype(int), axis=0))
    grid = np.linspace(-3, 3, 61)
    np.testing.assert_allclose(est.cdf(grid), rep.cdf(grid), atol=1e-6)
    assert est.log_likelihood_ == pytest.approx(rep.log_likelihood_, abs=1e-9)


def test_em_icm_is_a_local_and_global_maximizer():
    Z = _case_two(400, seed=6)
    est = IntervalNPMLE().fit(Z)
    _, inside = _dense_gradient(Z, est)
    rng = np.random.default_rng(0)
    for _ in range(20):  # feasible perturbations, local and far, never do better
        for scale in (1e-4, 1e-1):
            q = np.clip(
                est.probabilities_ + rng.normal(scale=scale, size=inside.shape[1]),
                0,
                None,
            )
            q /= q.sum()
            with np.errstate(divide="ignore"):
                ll = np.mean(np.log(inside @ q))
            assert ll <= est.log_likelihood_ + 1e-12


def test_large_case_two_fit_converges():
    Z = _case_two(30000)
    est = IntervalNPMLE().fit(Z)
    assert est.method_ == "em-icm" and est.converged_
    assert est.optimality_gap_ <= est.tol
    # Plain self-consistency did not converge in 10^4 EM steps here.
    assert est.n_iter_ < 100
    assert abs(est.mean()) < 0.05 and abs(float(est.cdf(0.0)) - 0.5) < 0.03


def test_single_innermost_interval():
    Z = np.array([[0.0, 1.0], [-np.inf, 1.0], [0.0, np.inf]])
    est = IntervalNPMLE().fit(Z)
    np.testing.assert_array_equal(est.innermost_, [[0.0, 1.0]])
    np.testing.assert_array_equal(est.probabilities_, [1.0])
    assert est.converged_ and est.n_iter_ == 0 and est.optimality_gap_ == 0.0


@pytest.mark.parametrize("method", ["em-icm", "icm", "turnbull"])
def test_non_convergence_warns_with_the_gap(method):
    Z = _case_two(300)
    with pytest.warns(ConvergenceWarning, match=r"max_iter=1 iterations.*gap"):
        est = IntervalNPMLE(method=method, max_iter=1).fit(Z)
    assert not est.converged_ and est.n_iter_ == 1
    assert est.optimality_gap_ > est.tol
    # The gap bounds the log-likelihood shortfall (log x <= x - 1).
    best = IntervalNPMLE(method=method, max_iter=100000).fit(Z)
    assert best.converged_
    shortfall = best.log_likelihood_ - est.log_likelihood_
    assert 0 < shortfall <= est.optimality_gap_


def test_icm_alone_is_slow_on_exact_values_where_em_icm_is_not():
    y = np.random.default_rng(7).normal(size=(2000, 1))
    Z = IntervalMechanism(
        n_anchors=5, offsets=[-2, -1, 0, 1, 2], exact_cells=[2], random_state=1
    ).fit_transform(y)
    est = IntervalNPMLE().fit(Z)
    assert est.converged_ and est.n_iter_ < 100
    _assert_kkt(Z, est, est.tol)
    with pytest.warns(ConvergenceWarning):
        icm = IntervalNPMLE(method="icm", max_iter=est.n_iter_ * 5).fit(Z)
    assert icm.log_likelihood_ <= est.log_likelihood_ + 1e-12


@pytest.mark.parametrize("seed", range(6))
def test_innermost_row_ranges_match_the_incidence_matrix_with_ties(seed):
    # Coarse integer endpoints make ties between every kind of end (exact
    # points, left and right ends, -inf and +inf): the tie-breaking sort
    # must give each row exactly the innermost intervals it contains.
    from skprivate.interval._npmle import _innermost

    rng = np.random.default_rng(seed)
    n = 400
    lo = rng.integers(-4, 5, n).astype(float)
    hi = lo + rng.integers(0, 4, n)
    lo[rng.random(n) < 0.15] = -np.inf
    hi[rng.random(n) < 0.15] = np.inf
    exact = np.isfinite(lo) & (rng.random(n) < 0.2)
    hi[exact] = lo[exact]
    keep = ~(np.isneginf(lo) & np.isposinf(hi))
    Z = np.column_stack([lo, hi])[keep]
    innermost, start, stop, _ = _innermost(Z)
    left, right = innermost[:, 0], innermost[:, 1]
    point = left == right
    rows_lo, rows_hi = Z[:, :1], Z[:, 1:]
    inside = np.where(
        rows_lo == rows_hi,
        point & (left == rows_lo),
        (left >= rows_lo) & (right <= rows_hi) & ~(point & (left == rows_lo)),
    )
    j = np.arange(len(innermost))
    np.testing.assert_array_equal(inside, (j >= start[:, None]) & (j < stop[:, None]))
    # Innermost intervals are disjoint and sorted.
    assert np.all(right[:-1] <= left[1:])
