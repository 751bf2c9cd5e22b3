"""Fixtures shared by the test files of several families."""

from __future__ import annotations

import pytest


@pytest.fixture
def fit_figures(monkeypatch):
    """The (coverage, exact share) an interval privatizer's fit computes.

    ``fit`` checks its design against the data and warns on the figures;
    it keeps none of them, so the tests that pin them read them here: one
    entry per column and fit, recorded where the fitted rows' counted CDF is
    the population.
    """
    from skprivate.interval import _base_mechanism

    seen = []
    real = _base_mechanism.design_disclosure

    def recording(comps, cdf, fixed):
        out = real(comps, cdf, fixed)
        if "_counted_cdf" in getattr(cdf, "__qualname__", ""):
            seen.append(out)
        return out

    monkeypatch.setattr(_base_mechanism, "design_disclosure", recording)
    return seen
