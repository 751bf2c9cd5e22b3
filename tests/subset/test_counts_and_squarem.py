"""Streaming subset counts and the SQUAREM-accelerated EM."""

import tracemalloc
import warnings

import numpy as np
import pytest

from skprivate.subset import SubsetDesign, SubsetDistributionEstimator
from skprivate.subset import _estimator as estimator_module
from skprivate.subset import _fitting as fitting
from skprivate.utils import _support_mle as support_mle

METHODS = ["mom", "em", "mle", "one-step"]


def _reports(p, n, seed, min_coverage=None, zero=False):
    rng = np.random.default_rng(seed)
    w = rng.random(p) + 0.2
    if zero:
        w[0] = 0.0
    w /= w.sum()
    design = SubsetDesign.uniform(p, min_coverage=min_coverage)
    x = rng.choice(p, size=n, p=w)
    return design, design.sample(x, random_state=seed + 1).astype(np.int8)


def _row_path(design, A, method, tol):
    """The estimators on one term per row (every count is 1), no counting."""
    ind = A[:, : design.n_categories].astype(float)
    ones = np.ones(A.shape[0])
    s, t, p = design.scale, design.offset, design.n_categories
    w_mom = fitting.mom(ind, ones, design.q_matrix(), s, t)
    if method == "mom":
        return w_mom
    if method == "one-step":
        return fitting.one_step(ind, ones, w_mom, s, t)
    if method == "em":
        w, n_iter = fitting.em(ind, ones, np.full(p, 1.0 / p), s, t, 10_000, tol)
        if n_iter == 10_000:  # not converged: the estimator returns EM's answer
            return w
        # the estimator finishes EM with Newton steps held to tol / 1000
        return fitting.mle_newton(ind, ones, w, s, t, 10_000, tol * 1e-3)[0]
    start = 0.9 * fitting.project_simplex(w_mom) + 0.1 / p
    return fitting.mle_newton(ind, ones, start, s, t, 200, tol)[0]


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("min_coverage", [None, 0.05])
def test_counts_path_equals_row_path(method, min_coverage, monkeypatch):
    design, A = _reports(6, 3000, 1, min_coverage)
    # Several blocks and several merges of the running counts.
    monkeypatch.setattr(estimator_module, "CHUNK_ROWS", 257)
    est = SubsetDistributionEstimator(
        method, design=design, tol=1e-12, acceleration=None
    ).fit(A)
    assert est.subset_counts_.sum() == 3000
    raw = _row_path(design, A, method, 1e-12)
    # EM's Newton finish stops where the likelihood's rounding hides the
    # rest (1e-11 in w here), so the two paths agree to that
    atol = 5e-11 if method == "em" else 1e-12
    np.testing.assert_allclose(est.distribution_raw_, raw, rtol=0, atol=atol)


def test_counts_are_those_of_numpy_unique(monkeypatch):
    design, A = _reports(70, 5000, 2)  # more than 64 columns: byte-string keys
    monkeypatch.setattr(estimator_module, "CHUNK_ROWS", 600)
    counter = estimator_module.count_reports(A, design)
    rows, counts = counter.result()
    ref_rows, ref_counts = np.unique(A, axis=0, return_counts=True)
    got = {r.tobytes(): c for r, c in zip(rows, counts)}
    ref = {r.astype(np.int8).tobytes(): c for r, c in zip(ref_rows, ref_counts)}
    assert got == ref
    assert rows.dtype == np.int8


def test_partial_fit_chunks_equal_one_fit(monkeypatch):
    design, A = _reports(8, 4000, 3)
    monkeypatch.setattr(estimator_module, "CHUNK_ROWS", 100)
    full = SubsetDistributionEstimator("mle", design=design).fit(A)
    part = SubsetDistributionEstimator("mle", design=design)
    for chunk in np.array_split(A, 7):
        part.partial_fit(chunk)
    np.testing.assert_array_equal(part.subsets_, full.subsets_)
    np.testing.assert_array_equal(part.subset_counts_, full.subset_counts_)
    np.testing.assert_allclose(part.distribution_, full.distribution_, atol=1e-12)


def test_error_names_the_row_of_the_whole_data(monkeypatch):
    design, A = _reports(5, 1000, 4)
    A = A.copy()
    A[705] = 0  # an unknown-category report, left out: numbering unchanged
    A[777] = 0
    A[777, :2] = 1
    A[777, 2:4] = 1  # size 4: the uniform design on 5 reports sizes 2..3
    monkeypatch.setattr(estimator_module, "CHUNK_ROWS", 100)
    with pytest.raises(ValueError, match="^Row 777 of A is a subset the design never"):
        SubsetDistributionEstimator(design=design).fit(A)
    A[777, 0] = 2
    with pytest.raises(ValueError, match="row 777 holds another value, in column 0"):
        SubsetDistributionEstimator(design=design).fit(A)


def _fit_peak(A, design):
    est = SubsetDistributionEstimator("mom", design=design)
    tracemalloc.start()
    try:
        est.fit(A)
        return tracemalloc.get_traced_memory()[1], est
    finally:
        tracemalloc.stop()


def test_memory_does_not_grow_with_rows(monkeypatch):
    # p = 12: at most 2^12 - 26 distinct subsets, so the counts are small and
    # a fit must not hold anything proportional to the rows.
    monkeypatch.setattr(estimator_module, "CHUNK_ROWS", 4096)
    design, A = _reports(12, 400_000, 5)
    small_peak, _ = _fit_peak(A[:50_000], design)
    peak, est = _fit_peak(A, design)
    k, p = est.subsets_.shape
    # Temporaries of one block (20 bytes per cell: a few boolean masks and
    # keys) plus the distinct subsets (100 bytes each: int8 row, key, count
    # and the sorting work) plus a small constant; measured: 1.34 MB.
    bound = 4096 * p * 20 + k * 100 + 2**18
    assert peak < bound
    # One copy of the data as bytes (4.8 MB) would break the bound.
    assert bound < A.size
    assert peak < 1.25 * small_peak + 2**20


def test_squarem_has_the_fixed_point_of_plain_em():
    design, A = _reports(10, 5000, 6)
    est = SubsetDistributionEstimator("mle", design=design, tol=1e-12).fit(A)
    U, counts = fitting.SubsetMatrix(est.subsets_), est.subset_counts_
    start = np.full(10, 0.1)
    plain, n_plain = fitting.em(U, counts, start, max_iter=200_000, tol=1e-13)
    fast, n_fast = fitting.em(
        U, counts, start, max_iter=200_000, tol=1e-13, acceleration="squarem"
    )
    np.testing.assert_allclose(fast, plain, atol=1e-10)
    # Both are the MLE (interior here).
    np.testing.assert_allclose(fast, est.distribution_, atol=1e-8)
    assert n_fast < n_plain / 5


def test_squarem_reaches_a_boundary_maximum():
    # A category absent from the population: the MLE puts zero mass on it,
    # plain EM creeps there sublinearly, SQUAREM's projection lands on it.
    design, A = _reports(8, 2000, 10, zero=True)
    mle = SubsetDistributionEstimator("mle", design=design, tol=1e-12).fit(A)
    assert mle.distribution_.min() == 0
    U, counts = fitting.SubsetMatrix(mle.subsets_), mle.subset_counts_
    fast, _ = fitting.em(
        U,
        counts,
        np.full(8, 1 / 8),
        max_iter=100_000,
        tol=1e-12,
        acceleration="squarem",
    )
    np.testing.assert_allclose(fast, mle.distribution_, atol=1e-7)
    assert (
        fitting.log_likelihood(U, counts, fast)
        >= fitting.log_likelihood(U, counts, mle.distribution_) - 1e-6
    )


def test_squarem_revives_a_coordinate_wrongly_set_to_zero():
    design, A = _reports(6, 5000, 8)
    est = SubsetDistributionEstimator("mle", design=design, tol=1e-12).fit(A)
    U, counts = fitting.SubsetMatrix(est.subsets_), est.subset_counts_
    start = np.full(6, 0.2)
    start[2] = 0.0  # EM alone could never leave this point
    fast, _ = fitting.em(
        U, counts, start, max_iter=100_000, tol=1e-12, acceleration="squarem"
    )
    np.testing.assert_allclose(fast, est.distribution_, atol=1e-7)


@pytest.mark.parametrize(
    "p, n",
    [(20, 5_000), pytest.param(50, 20_000, marks=pytest.mark.slow)],
)
def test_accelerated_em_needs_far_fewer_updates(p, n):
    design, A = _reports(p, n, 9)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fast = SubsetDistributionEstimator("em", design=design).fit(A)
        plain = SubsetDistributionEstimator("em", design=design, acceleration=None).fit(
            A
        )
    assert fast.n_iter_ * 10 < plain.n_iter_
    # Same stopping test: both within the same distance of the MLE.
    mle = SubsetDistributionEstimator("mle", design=design).fit(A)
    gap_fast = np.abs(fast.distribution_ - mle.distribution_).max()
    gap_plain = np.abs(plain.distribution_ - mle.distribution_).max()
    assert gap_fast <= 1.5 * gap_plain + 1e-6
    assert fast.log_likelihood_ >= plain.log_likelihood_ - 1e-6


def test_subset_matrix_blocks_equal_dense(monkeypatch):
    rng = np.random.default_rng(10)
    U = (rng.random((1000, 7)) < 0.5).astype(np.int8)
    w, r = rng.random(7), rng.random(1000)
    dense = fitting.SubsetMatrix(U)
    monkeypatch.setattr(support_mle, "DENSE_BYTES", 0)
    monkeypatch.setattr(support_mle, "BLOCK_ROWS", 128)
    blocked = fitting.SubsetMatrix(U)
    assert blocked._dense is None
    np.testing.assert_allclose(blocked.dot(w), dense.dot(w), rtol=1e-14)
    np.testing.assert_allclose(blocked.tdot(r), dense.tdot(r), rtol=1e-13)
    np.testing.assert_allclose(blocked.gram(r), dense.gram(r), rtol=1e-13)


def test_acceleration_is_validated():
    design, A = _reports(5, 200, 11)
    with pytest.raises(ValueError, match="acceleration"):
        SubsetDistributionEstimator("em", design=design, acceleration="fast").fit(A)
    with pytest.raises(ValueError, match="acceleration"):
        fitting.em(np.eye(3), np.ones(3), np.full(3, 1 / 3), acceleration="x")
