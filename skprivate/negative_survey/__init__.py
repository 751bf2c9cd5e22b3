"""Real-value negative survey, RVNS (Jiang et al.).

Each respondent reports values drawn away from a band around the true value;
the collector reconstructs the whole population density, from which any
statistic follows.  The comparison mechanisms of the paper (generalized
Gaussian, Flipped Huber, Square Wave with EMS) come with their estimators,
and the paper's privacy and utility metrics are provided.
"""

from .._grid_density._kde import grid_kde, ksdensity_bandwidth
from ._baselines import (
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
    "FlippedHuberLDP",
    "GeneralizedGaussianLDP",
    "PerturbedKDEEstimator",
    "RVNSDensityEstimator",
    "RVNSPerturber",
    "SquareWaveEMSEstimator",
    "SquareWaveLDP",
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
