"""What the RVNS estimator hands its intervals: report cells, transition, template."""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.negative_survey import RVNSDensityEstimator, RVNSPerturber
from skprivate.negative_survey._solvers import cell_transition_matrix
from skprivate.negative_survey._transition import safe_cell_probabilities

D, BOUNDS = 2.0, (0.0, 10.0)


def _fitted(placement):
    x = np.random.default_rng(0).beta(2, 5, size=(400, 1)) * 10
    Y = RVNSPerturber(
        d=D, k=2, bounds=BOUNDS, placement=placement, random_state=1
    ).fit_transform(x)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est = RVNSDensityEstimator(
            d=D, bounds=BOUNDS, n_points=20, placement=placement
        ).fit(Y)
    return est, Y


@pytest.mark.parametrize("placement", ["boundary_safe", "paper"])
def test_transition_of_the_intervals_is_that_of_the_placement(placement):
    est, Y = _fitted(placement)
    system = est._ci_ems_system(Y)
    assert system is not None
    A = system[0]
    edges, report_edges = est.edges_, est.report_edges_
    if placement == "paper":
        expected = cell_transition_matrix(edges, D, BOUNDS)
        other = safe_cell_probabilities(edges, report_edges, D, *BOUNDS)
    else:
        expected = safe_cell_probabilities(edges, report_edges, D, *BOUNDS)
        other = cell_transition_matrix(edges, D, BOUNDS)
    np.testing.assert_array_equal(A, expected)
    assert A.shape != other.shape or not np.allclose(A, other)


def test_reports_are_binned_on_the_report_cells_ends_included():
    est, _ = _fitted("boundary_safe")
    lo, hi = est.report_edges_[0], est.report_edges_[-1]
    m_out = est.report_edges_.size - 1
    step = (hi - lo) / m_out
    X = np.array([[lo, hi], [lo + 1.5 * step, hi - 0.5 * step], [lo - step, hi + step]])
    _, bins, _ = est._ci_ems_system(X)
    assert np.issubdtype(bins.dtype, np.integer)
    np.testing.assert_array_equal(
        bins, [[0, m_out - 1], [1, m_out - 1], [0, m_out - 1]]
    )


def test_resampling_template_refits_with_the_public_settings():
    x = np.random.default_rng(0).beta(2, 5, size=(300, 1)) * 10
    est = RVNSDensityEstimator(
        n_points=20,
        privatizer=RVNSPerturber(d=D, k=2, bounds=BOUNDS, random_state=1),
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        est.fit(x)
    template = est._ci_resampling_template()
    params = template.get_params()
    assert params["privatizer"] is None
    assert params["d"] == D
    assert params["bounds"] == BOUNDS
    assert params["placement"] == est.placement_
    # refitting the template on the kept reports reads no bound from data
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        template.fit(est.released_)
