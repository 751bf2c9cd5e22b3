"""Real-value negative survey, RVNS (Jiang et al.).

Each respondent reports values drawn away from a band around the true value;
the collector reconstructs the whole population density, from which any
statistic follows.  The paper's privacy and utility metrics are provided.

The paper's comparison mechanisms (generalized Gaussian, Flipped Huber,
Square Wave) and their estimators are generic LDP mechanisms and live in
:mod:`skprivate.ldp`.  ``GeneralizedGaussianLDP``, ``FlippedHuberLDP``,
``SquareWaveLDP``, ``SquareWaveEMSEstimator`` and ``PerturbedKDEEstimator``
stay importable from here for compatibility: they are re-exported from
:mod:`skprivate.ldp` (the same classes) and are not part of this family's
``__all__``.
"""

from .._grid_density._kde import grid_kde, ksdensity_bandwidth

# Compatibility re-exports of the comparison mechanisms, which live in skprivate.ldp.
from ..ldp import (  # noqa: F401
    FlippedHuberLDP,
    GeneralizedGaussianLDP,
    PerturbedKDEEstimator,
    SquareWaveEMSEstimator,
    SquareWaveLDP,
)
from ._metrics import (
    indicator_errors,
    privacy_distance,
    rvns_adversary_inference,
    six_indicators,
    wasserstein_on_grid,
)
from ._perturber import RVNSPerturber
from ._reconstruction import RVNSDensityEstimator, rvns_grid, rvns_transition_matrix
from ._transition import rvns_transition_density

__all__ = [
    "RVNSDensityEstimator",
    "RVNSPerturber",
    "grid_kde",
    "indicator_errors",
    "ksdensity_bandwidth",
    "privacy_distance",
    "rvns_adversary_inference",
    "rvns_grid",
    "rvns_transition_density",
    "rvns_transition_matrix",
    "six_indicators",
    "wasserstein_on_grid",
]
