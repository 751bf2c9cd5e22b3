"""A refit that raises leaves the privatizer unfitted.

Before, ``fit`` recorded the new settings before the mechanism was set up:
a refit refused by the sampler left the old noise in place while
``privacy_summary`` and ``privacy_report`` stated the refused setting.
"""

from __future__ import annotations

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.exceptions import NotFittedError

from skprivate import (
    FlippedHuberLDP,
    GeneralizedGaussianLDP,
    GeneralizedRandomizedResponse,
    IntervalCaseI,
    LaplaceLDP,
    OptimizedUnaryEncoding,
    RVNSPerturber,
    SquareWaveLDP,
    SubsetUniform,
    privacy_report,
)

_VALUES = np.random.default_rng(0).uniform(0, 1, (50, 1))
_CATEGORIES = (_VALUES > 0.5).astype(int)

# name -> (privatizer, data it fits, data it refuses)
_CASES = {
    "LaplaceLDP": (LaplaceLDP(epsilon=2.0, bounds=(0, 1)), _VALUES),
    "SquareWaveLDP": (SquareWaveLDP(epsilon=2.0, bounds=(0, 1)), _VALUES),
    "FlippedHuberLDP": (
        FlippedHuberLDP(epsilon=2.0, delta=1e-3, bounds=(0, 1)),
        _VALUES,
    ),
    "GeneralizedGaussianLDP": (
        GeneralizedGaussianLDP(epsilon=2.0, delta=1e-3, bounds=(0, 1)),
        _VALUES,
    ),
    "RVNSPerturber": (RVNSPerturber(bounds=(0, 1)), _VALUES),
    "IntervalCaseI": (IntervalCaseI(), _VALUES),
    "GeneralizedRandomizedResponse": (
        GeneralizedRandomizedResponse(epsilon=2.0, categories=[[0, 1]]),
        _CATEGORIES,
    ),
    "OptimizedUnaryEncoding": (
        OptimizedUnaryEncoding(epsilon=2.0, categories=[[0, 1]]),
        _CATEGORIES,
    ),
    "SubsetUniform": (SubsetUniform(categories=[[0, 1]]), _CATEGORIES),
}


def _unfitted(privatizer, X):
    """It acts as a privatizer never fitted: no release, no fitted summary."""
    with pytest.raises(NotFittedError):
        privatizer.transform(X)
    with pytest.raises(NotFittedError):
        privacy_report(privatizer)
    fresh = clone(privatizer)
    try:
        expected = fresh.privacy_summary()
    except NotFittedError:
        with pytest.raises(NotFittedError):
            privatizer.privacy_summary()
    else:  # a design summarized from its parameters alone
        assert privatizer.privacy_summary() == expected


@pytest.mark.parametrize("name", sorted(_CASES))
def test_a_refit_refused_on_its_data_leaves_the_privatizer_unfitted(name):
    privatizer, X = _CASES[name]
    privatizer.fit(X)
    privatizer.transform(X)
    bad = X.astype(float).copy()
    bad[3, 0] = np.nan
    with pytest.raises(ValueError):
        privatizer.fit(bad)
    _unfitted(privatizer, X)
    privatizer.fit(X)  # a good fit restores it
    assert len(privatizer.transform(X)) == len(X)


@pytest.mark.parametrize(
    "privatizer, X",
    [
        (LaplaceLDP(epsilon=8.0, bounds=(0, 1)), _VALUES),
        (FlippedHuberLDP(epsilon=8.0, delta=1e-3, bounds=(0, 1)), _VALUES),
        (GeneralizedRandomizedResponse(epsilon=8.0, categories=[[0, 1]]), _CATEGORIES),
    ],
    ids=lambda v: type(v).__name__ if not isinstance(v, np.ndarray) else "",
)
def test_a_budget_the_sampler_refuses_does_not_keep_the_old_noise(privatizer, X):
    """epsilon 8 fitted, then 1e-300 refused: neither is released nor reported."""
    privatizer.fit(X)
    privatizer.set_params(epsilon=1e-300)
    with pytest.raises(ValueError):
        privatizer.fit(X)
    _unfitted(privatizer, X)
