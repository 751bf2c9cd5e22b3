"""Local differential privacy with Laplace noise and deconvolution (Farokhi).

``LaplaceLDP`` adds Laplace noise calibrated to declared bounds; the
deconvolution kernel density and Nadaraya–Watson estimators undo its
flattening effect.
"""

__all__: list[str] = []
