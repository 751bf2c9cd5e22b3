"""Local differential privacy: noise mechanisms and the estimators behind them.

``LaplaceLDP`` adds Laplace noise calibrated to declared bounds; the
deconvolution kernel density and Nadaraya–Watson estimators undo its
flattening effect (Farokhi).  ``GeneralizedGaussianLDP`` and
``FlippedHuberLDP`` add noise calibrated to ``(epsilon, delta)``,
``SquareWaveLDP`` is the Square Wave mechanism (Li et al.);
``PerturbedKDEEstimator`` and ``SquareWaveEMSEstimator`` estimate the
density behind their releases.
"""

from ._additive import FlippedHuberLDP, GeneralizedGaussianLDP
from ._density import DeconvolutionKernelDensity
from ._kernels import deconvolution_kernel
from ._laplace import LaplaceLDP
from ._perturbed_kde import PerturbedKDEEstimator
from ._regression import DeconvolutionKernelClassifier, DeconvolutionKernelRegressor
from ._square_wave import SquareWaveLDP
from ._square_wave_ems import SquareWaveEMSEstimator

__all__: list[str] = [
    "DeconvolutionKernelClassifier",
    "DeconvolutionKernelDensity",
    "DeconvolutionKernelRegressor",
    "FlippedHuberLDP",
    "GeneralizedGaussianLDP",
    "LaplaceLDP",
    "PerturbedKDEEstimator",
    "SquareWaveEMSEstimator",
    "SquareWaveLDP",
    "deconvolution_kernel",
]
