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


@pytest.mark.parametrize("placement", ["boundary_safe", "paper"])
def test_band_operator_products_equal_dense(placement):
    d, a, b, m = 2.0, 0.0, 20.0, 40
    edges = rvns_grid((a, b), m)
    lo, hi = (a - d, b + d) if placement == "boundary_safe" else (a, b)
    report_edges = rvns_grid((lo, hi), m)
    dense = RVNSDensityEstimator._cell_matrix(d, edges, report_edges, placement)
    op = RVNSDensityEstimator._cell_operator(d, edges, report_edges, placement)
    # the band is stored sparse: far fewer entries than the dense matrix
    assert op.rest.nnz < 0.6 * m * m
    rng = np.random.default_rng(0)
    w, u = rng.random(m), rng.random(m)
    np.testing.assert_allclose(op.matvec(w), dense @ w, rtol=1e-12, atol=0)
    np.testing.assert_allclose(op.rmatvec(u), dense.T @ u, rtol=1e-12, atol=0)
    np.testing.assert_allclose(op.toarray(), dense, rtol=1e-9, atol=1e-15)


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
