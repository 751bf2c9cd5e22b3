"""Fast products and accelerated EMS of the RVNS reconstruction."""

import warnings

import numpy as np
import pytest
from sklearn.exceptions import ConvergenceWarning

from skprivate._grid_density._ems import (
    ems_cell_probabilities,
    transition_operator,
)
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber
from skprivate.negative_survey._reconstruction import rvns_grid
from skprivate.negative_survey._transition import SafeCellOperator


def test_band_operator_products_equal_dense():
    # the paper's placement: a row profile plus a sparse band
    d, a, b, m = 2.0, 0.0, 20.0, 40
    edges = rvns_grid((a, b), m)
    dense = RVNSDensityEstimator._cell_matrix(d, edges, edges, "paper")
    op = RVNSDensityEstimator._cell_operator(d, edges, edges, "paper")
    # the band is stored sparse: far fewer entries than the dense matrix
    assert op.rest.nnz < 0.6 * m * m
    rng = np.random.default_rng(0)
    w, u = rng.random(m), rng.random(m)
    np.testing.assert_allclose(op.matvec(w), dense @ w, rtol=1e-12, atol=0)
    np.testing.assert_allclose(op.rmatvec(u), dense.T @ u, rtol=1e-12, atol=0)
    np.testing.assert_allclose(op.toarray(), dense, rtol=1e-9, atol=1e-15)


@pytest.mark.parametrize(
    ("a", "b", "d", "m"),
    [
        (0.0, 20.0, 2.0, 40),  # band of 2 cells
        (0.0, 10.0, 2.0, 7),  # cells wider than half the band
        (3.1, 88.7, 7.3, 50),  # bounds and d off the grid
        (-5.0, 5.0, 0.05, 37),  # band narrower than a cell
        (0.0, 100.0, 60.0, 64),  # band wider than half the range
        (-1234.5, -1200.25, 11.0, 45),  # far from 0
    ],
)
def test_safe_operator_products_equal_dense(a, b, d, m):
    # the O(m) products of the boundary-safe placement against the dense
    # cell matrix, column by column and on random vectors
    edges = rvns_grid((a, b), m)
    report_edges = rvns_grid((a - d, b + d), m)
    dense = RVNSDensityEstimator._cell_matrix(d, edges, report_edges, "boundary_safe")
    op = SafeCellOperator(edges, report_edges, d, a, b)
    band = RVNSDensityEstimator._cell_operator(d, edges, report_edges, "boundary_safe")
    rng = np.random.default_rng(3)
    w = rng.random(m)
    np.testing.assert_allclose(band.matvec(w), op.matvec(w), rtol=1e-12, atol=0)
    rng = np.random.default_rng(1)
    for w, u in [(rng.random(m), rng.random(m)), (rng.pareto(1.0, m), rng.random(m))]:
        np.testing.assert_allclose(op.matvec(w), dense @ w, rtol=1e-12, atol=0)
        np.testing.assert_allclose(op.rmatvec(u), dense.T @ u, rtol=1e-12, atol=0)
    # entries are read off edges that carry rounding of eps * max|edge|
    scale = dense.max() * max(1.0, max(abs(a), abs(b)) / (b - a))
    np.testing.assert_allclose(op.toarray(), dense, rtol=0, atol=1e-12 * scale)
    E = np.eye(m)
    rows = np.array([op.rmatvec(e) for e in E])  # row j of the matrix: A.T e_j
    np.testing.assert_allclose(rows, dense, rtol=0, atol=1e-12 * scale)


def test_cell_operator_switches_to_prefix_sums_on_wide_bands():
    d, a, b = 10.0, 0.0, 100.0
    kinds = {}
    for m in (100, 2000):
        edges, report_edges = rvns_grid((a, b), m), rvns_grid((a - d, b + d), m)
        op = RVNSDensityEstimator._cell_operator(
            d, edges, report_edges, "boundary_safe"
        )
        kinds[m] = type(op).__name__
    assert kinds == {100: "TransitionOperator", 2000: "SafeCellOperator"}


def _safe_cells_long(a, b, d, m):
    """The boundary-safe cell matrix in extended precision (x87 long double)."""
    L = np.longdouble
    a, b, d = L(a), L(b), L(d)
    xe = a + (b - a) * np.arange(m + 1, dtype=L) / m
    ye = (a - d) + (b - a + 2 * d) * np.arange(m + 1, dtype=L) / m

    def H(t):
        t = np.abs(t)
        return np.where(t <= d, t**3 / (6 * d), t * t / 2 - d * t / 2 + d * d / 6)

    x0, x1, y0, y1 = xe[None, :-1], xe[None, 1:], ye[:-1, None], ye[1:, None]
    mass = H(y1 - x0) - H(y1 - x1) - H(y0 - x0) + H(y0 - x1)
    return mass / ((b - a + d) * (x1 - x0))


@pytest.mark.skipif(
    np.finfo(np.longdouble).eps > 1e-18, reason="needs an extended long double"
)
def test_safe_operator_is_as_exact_as_rounding_allows():
    # on a fine grid the dense float64 matrix loses digits (its entries are
    # differences of terms of size (b - a)**2); the prefix sums do not
    a, b, d, m = 0.0, 100.0, 1.0, 400
    exact = _safe_cells_long(a, b, d, m)
    op = SafeCellOperator(rvns_grid((a, b), m), rvns_grid((a - d, b + d), m), d, a, b)
    rng = np.random.default_rng(2)
    w, u = rng.random(m), rng.random(m)
    ref = (exact @ w.astype(np.longdouble)).astype(float)
    ref_t = (exact.T @ u.astype(np.longdouble)).astype(float)
    np.testing.assert_allclose(op.matvec(w), ref, rtol=1e-13, atol=0)
    np.testing.assert_allclose(op.rmatvec(u), ref_t, rtol=1e-13, atol=0)


@pytest.mark.parametrize("width", [0.7, 1.0, 2.8])
def test_squarem_band_ems_equals_plain_dense_ems(width):
    # the fixed point of the fast path (band products, SQUAREM, warm start)
    # is the one of plain EMS on the dense matrix
    d, a, b, m = 2.0, 0.0, 10.0, 30
    edges = rvns_grid((a, b), m)
    report_edges = rvns_grid((a - d, b + d), m)
    dense = RVNSDensityEstimator._cell_matrix(d, edges, report_edges, "boundary_safe")
    op = RVNSDensityEstimator._cell_operator(d, edges, report_edges, "boundary_safe")
    truth = np.exp(-0.5 * ((edges[:-1] - 4.0) / 1.5) ** 2)
    counts = np.round(5000 * dense @ (truth / truth.sum()))
    ref, n_plain = ems_cell_probabilities(
        dense, counts, width, max_iter=200_000, tol=1e-13, acceleration=None
    )
    fast, n_fast = ems_cell_probabilities(
        op, counts, width, max_iter=200_000, tol=1e-13, start=np.full(m, 1 / m)
    )
    widths = np.diff(edges)
    np.testing.assert_allclose(fast / widths, ref / widths, rtol=0, atol=1e-8)
    assert n_fast < n_plain


def test_ems_warns_at_its_iteration_cap():
    m = 20
    A = transition_operator(np.eye(m) * 0.5 + 0.5 / m)
    counts = np.arange(1.0, m + 1)
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        ems_cell_probabilities(A, counts, 0.0, max_iter=2, tol=1e-12)


def test_rvns_ml_fit_converges_at_1000_points():
    # a BMI-like law (log-normal, median 26.5, sd about 5.4), 12,588 people
    rng = np.random.default_rng(0)
    x = np.clip(rng.lognormal(np.log(26.5), 0.2, size=(12_588, 1)), 10, 90)
    Y = RVNSPerturber(d=10, bounds=(0, 100), random_state=1).fit_transform(x)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        est = RVNSDensityEstimator(d=10, bounds=(0, 100), n_points=1000).fit(Y)
    assert est.n_iter_ < 3000


@pytest.mark.parametrize("patience", [1, 2])
def test_width_path_stops_after_the_peak_with_the_same_choice(patience):
    from skprivate._grid_density._ems import ML_WIDTHS, select_ems_width

    d, a, b, m = 2.0, 0.0, 10.0, 200
    edges, report_edges = rvns_grid((a, b), m), rvns_grid((a - d, b + d), m)
    op = RVNSDensityEstimator._cell_operator(d, edges, report_edges, "boundary_safe")
    rng = np.random.default_rng(4)
    x = np.clip(rng.normal(4.0, 1.2, size=(4000, 1)), a, b)
    Y = RVNSPerturber(d=d, bounds=(a, b), random_state=5).fit_transform(x)
    cell = np.clip(((Y[:, 0] - a + d) / (b - a + 2 * d) * m).astype(int), 0, m - 1)
    folds = np.zeros((5, m))
    np.add.at(folds, (np.arange(cell.size) % 5, cell), 1.0)
    widths = np.array(ML_WIDTHS)
    kw = {"max_iter": 3000, "tol": 1e-7}
    full_width, full = select_ems_width(op, folds, widths, **kw)
    width, scores = select_ems_width(op, folds, widths, patience=patience, **kw)
    assert width == full_width
    run = np.isfinite(scores)
    # the widest widths are fitted on the same path, so they score the same
    np.testing.assert_allclose(scores[run], full[run], rtol=1e-12)
    # `patience` widths below the best were fitted, then the path stopped
    best = int(np.argmax(full))
    assert best >= 2  # both stops are inside the candidate range
    stop = best - patience
    assert not run[:stop].any() and run[stop:].all()


def test_rvns_fit_scores_one_width_past_the_peak():
    # the estimator's path: one narrower width scored below the best, then it
    # stops (the narrow widths are the slowest to fit); the scored widths are
    # those of the full path, so the choice is the same
    from skprivate._grid_density._ems import ML_WIDTHS

    d, a, b = 2.0, 0.0, 10.0
    rng = np.random.default_rng(4)
    x = np.clip(rng.normal(4.0, 1.2, size=(4000, 1)), a, b)
    Y = RVNSPerturber(d=d, bounds=(a, b), random_state=5).fit_transform(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = RVNSDensityEstimator(d=d, bounds=(a, b), n_points=200).fit(Y)
    scores = est.smoothing_scores_
    best = int(np.argmax(scores))
    assert ML_WIDTHS[best] == est.smoothing_width_
    assert best >= 2
    assert np.isfinite(scores[best - 1 :]).all()
    assert np.isneginf(scores[: best - 1]).all()


@pytest.mark.parametrize("m", [1, 3, 10, 40, 1000])
@pytest.mark.parametrize("width", [0.3, 0.5, 1.4, 2.6, 8.0, 30.0])
def test_smoothing_step_is_the_smoothing_matrix(m, width):
    # the filter pass of the EMS updates equals the column-stochastic
    # smoothing matrix (reflected at the ends), also where the kernel is
    # longer than the grid (the sparse matrix then)
    from skprivate._grid_density._ems import _smoother, _smoothing_step

    S = _smoother(m, width)
    step = _smoothing_step(m, width)
    rng = np.random.default_rng(m)
    for w in (rng.random(m), rng.random((m, 3))):
        np.testing.assert_allclose(step(w), S @ w, rtol=1e-13, atol=0)
    np.testing.assert_allclose(S.sum(axis=0), 1.0, rtol=1e-14)
    assert _smoothing_step(m, 0.0) is None


@pytest.mark.parametrize(
    ("a", "b", "d", "m"),
    [
        (0.0, 100.0, 10.0, 1000),
        (0.0, 10.0, 2.0, 7),
        (3.1, 88.7, 7.3, 50),
        (-5.0, 5.0, 0.05, 37),
    ],
)
def test_prefix_sum_blocks_are_all_used(a, b, d, m):
    # every block of the restarting prefix sums holds edges or is read by a
    # window: a block that is neither is dead work in every product
    op = SafeCellOperator(rvns_grid((a, b), m), rvns_grid((a - d, b + d), m), d, a, b)
    for windows, n_edges in ((op.fw_c, m + 1), (op.bw_c, m + 1)):
        B, nb = windows.B, windows.nb
        read = windows.matrix.indices % (nb * B) // B
        assert nb * B >= n_edges
        assert (nb - 1) * B < n_edges or read.max() == nb - 1


@pytest.mark.parametrize("placement", ["boundary_safe", "paper"])
def test_operator_products_of_a_batch_equal_column_products(placement):
    # a matrix of vectors in one call gives each column's own product
    d, a, b, m = 3.0, 0.0, 10.0, 30
    edges = rvns_grid((a, b), m)
    report_edges = edges if placement == "paper" else rvns_grid((a - d, b + d), m)
    dense = RVNSDensityEstimator._cell_matrix(d, edges, report_edges, placement)
    ops = [RVNSDensityEstimator._cell_operator(d, edges, report_edges, placement)]
    if placement == "boundary_safe":
        ops.append(SafeCellOperator(edges, report_edges, d, a, b))
    W = np.random.default_rng(7).random((m, 4))
    for op in ops:
        np.testing.assert_allclose(op.matvec(W), dense @ W, rtol=1e-12, atol=0)
        np.testing.assert_allclose(op.rmatvec(W), dense.T @ W, rtol=1e-12, atol=0)
        for j in range(4):
            np.testing.assert_allclose(
                op.matvec(W)[:, j], op.matvec(W[:, j]), rtol=1e-13, atol=0
            )


def test_batched_width_selection_equals_fold_by_fold_dense_loop():
    # the fast path (prefix-sum operator, folds fitted as one batch) makes the
    # choice, scores and fold fits of the fold-by-fold loop on the dense matrix
    from skprivate._grid_density._ems import ML_WIDTHS, select_ems_width

    d, a, b, m = 3.0, 0.0, 10.0, 40
    edges, report_edges = rvns_grid((a, b), m), rvns_grid((a - d, b + d), m)
    dense = RVNSDensityEstimator._cell_matrix(d, edges, report_edges, "boundary_safe")
    fast = SafeCellOperator(edges, report_edges, d, a, b)
    rng = np.random.default_rng(4)
    x = np.clip(rng.gamma(3.0, 1.0, size=(3000, 1)), a, b)
    Y = RVNSPerturber(d=d, bounds=(a, b), random_state=5).fit_transform(x)
    cell = np.clip(((Y[:, 0] - a + d) / (b - a + 2 * d) * m).astype(int), 0, m - 1)
    folds = np.zeros((5, m))
    np.add.at(folds, (np.arange(cell.size) % 5, cell), 1.0)
    kw = {"max_iter": 3000, "tol": 1e-10, "return_start": True}
    widths = np.array(ML_WIDTHS[::2])
    ref = select_ems_width(dense, folds, widths, **kw)
    got = select_ems_width(fast, folds, widths, batch=True, **kw)
    assert got[0] == ref[0]
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-9)
    np.testing.assert_allclose(got[2], ref[2], rtol=0, atol=1e-8 * ref[2].max())


def test_batched_squarem_reaches_each_column_fixed_point():
    # every column of a batch stops on its own test at its own fixed point,
    # the one of its scalar run (the paths may differ by rounding only)
    from skprivate._grid_density._ems import _squarem, _squarem_columns

    m = 25
    rng = np.random.default_rng(3)
    A = rng.random((m, m)) + np.eye(m) * 2
    A /= A.sum(axis=0)
    targets = rng.random((m, 3))
    targets /= targets.sum(axis=0)

    def update(w, cols):
        new = w * (A.T @ (targets[:, cols] / (A @ w)))
        return new / new.sum(axis=0)

    start = np.full((m, 3), 1.0 / m)
    W, n_eval, ok = _squarem_columns(update, start, 5000, 1e-12)
    assert ok.all() and (n_eval < 5000).all()
    for j in range(3):
        w, _n, conv = _squarem(
            lambda v, j=j: update(v[:, None], np.array([j]))[:, 0],
            start[:, j],
            5000,
            1e-12,
        )
        assert conv
        np.testing.assert_allclose(W[:, j], w, rtol=0, atol=1e-9)
    # a column alone in its batch reaches the same point
    alone = _squarem_columns(lambda w, c: update(w, c + 1), start[:, 1:2], 5000, 1e-12)
    np.testing.assert_allclose(alone[0][:, 0], W[:, 1], rtol=0, atol=1e-9)


@pytest.mark.parametrize(
    ("n_points", "widths"),
    [(None, (0.5, 0.7, 1.0)), (300, (1.4, 2.0, 2.8))],
)
def test_adult_age_widths_kept_by_the_looser_selection_tolerance(n_points, widths):
    # Adult ages through RVNS (d=10 on (17, 90)), privatization seeds 0-2:
    # the widths the held-out fits chose when they ran to the final fit's
    # tolerance (benchmarks/results/negative_survey_speed.md).  The best
    # width leads the next by 2e-6 to 7e-6 nats per report, the size of the
    # held-out scores' own precision at the selection tolerance (notes of
    # ML_SELECTION_TOL), so another CPU's rounding may pick a neighbouring
    # width: the choice must stay within one step of the grid.
    from skprivate.datasets import load_adult

    x = load_adult()["age"].to_numpy(float)[:, None]
    kw = {} if n_points is None else {"n_points": n_points}
    for seed, width in zip(range(3), widths):
        Y = RVNSPerturber(d=10, bounds=(17, 90), random_state=seed).fit_transform(x)
        est = RVNSDensityEstimator(d=10, bounds=(17, 90), **kw).fit(Y)
        assert _grid_steps(est.smoothing_width_, width) <= 1


def _grid_steps(a: float, b: float) -> int:
    """How many steps of the candidate widths apart two widths are."""
    from skprivate._grid_density._ems import ML_WIDTHS

    return abs(ML_WIDTHS.index(a) - ML_WIDTHS.index(b))


def test_final_fit_reaches_the_full_tolerance_after_the_selection():
    from skprivate._grid_density._ems import (
        ML_SELECTION_TOL,
        ML_TOL,
        _ems_columns_update,
    )

    assert ML_SELECTION_TOL > ML_TOL
    d, a, b = 3.0, 0.0, 30.0
    rng = np.random.default_rng(2)
    x = np.clip(rng.gamma(3.0, 3.0, size=(5000, 1)), a, b)
    Y = RVNSPerturber(d=d, bounds=(a, b), random_state=3).fit_transform(x)
    est = RVNSDensityEstimator(
        d=d, bounds=(a, b), n_points=300, moment_correction=False
    ).fit(Y)
    w = est.density_ * np.diff(est.edges_)
    op = transition_operator(
        RVNSDensityEstimator._cell_operator(
            d, est.edges_, est.report_edges_, "boundary_safe"
        )
    )
    total = np.asarray(est.bin_counts_, dtype=float)
    update = _ems_columns_update(
        op, (total / total.sum())[:, None], est.smoothing_width_
    )
    step = np.max(np.abs(update(w[:, None], np.array([0]))[:, 0] - w))
    # the fitted density is a fixed point of EMS to the final tolerance, not
    # only to the selection's
    assert step < ML_TOL * np.max(w)
