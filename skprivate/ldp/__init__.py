"""Local differential privacy with Laplace noise and deconvolution (Farokhi).

``LaplaceLDP`` adds Laplace noise calibrated to declared bounds; the
deconvolution kernel density and Nadaraya–Watson estimators undo its
flattening effect.
"""

from ._density import DeconvolutionKernelDensity
from ._kernels import deconvolution_kernel
from ._laplace import LaplaceLDP
from ._regression import DeconvolutionKernelClassifier, DeconvolutionKernelRegressor

__all__: list[str] = [
    "DeconvolutionKernelClassifier",
    "DeconvolutionKernelDensity",
    "DeconvolutionKernelRegressor",
    "LaplaceLDP",
    "deconvolution_kernel",
]
