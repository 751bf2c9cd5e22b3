"""Frequency oracles: epsilon-LDP reports of categorical values.

Generalized randomized response, unary encoding (SUE, OUE), local hashing
(OLH, BLH) and Hadamard response as transformers, with exact samplers
(every coin an integer comparison of random bits) and exact output laws
for :func:`skprivate.audit`; the unbiased frequency estimator with its
closed-form variance, consistency post-processing and the iterative
Bayesian update.
"""

from ._estimator import FrequencyEstimator, norm_sub, oracle_variance
from ._longitudinal import LongitudinalFrequencyEstimator, LongitudinalOracle
from ._privatizers import (
    BinaryLocalHashing,
    FrequencyOracle,
    GeneralizedRandomizedResponse,
    HadamardResponse,
    OptimizedLocalHashing,
    OptimizedUnaryEncoding,
    SymmetricUnaryEncoding,
)

__all__ = [
    "BinaryLocalHashing",
    "FrequencyEstimator",
    "FrequencyOracle",
    "GeneralizedRandomizedResponse",
    "HadamardResponse",
    "LongitudinalFrequencyEstimator",
    "LongitudinalOracle",
    "OptimizedLocalHashing",
    "OptimizedUnaryEncoding",
    "SymmetricUnaryEncoding",
    "norm_sub",
    "oracle_variance",
]
