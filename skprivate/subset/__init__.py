"""Subset privacy for categorical data (Wang & Ding).

Each respondent reports a random subset of categories that contains the true
one; estimators recover the category distribution and test independence.
"""

from ._design import SubsetDesign
from ._estimator import SubsetDistributionEstimator
from ._independence import SubsetIndependenceResult, subset_independence_test
from ._leakage import subset_individual_leakage, subset_leakage
from ._mechanism import SubsetMechanism, SubsetUniform

__all__ = [
    "SubsetDesign",
    "SubsetDistributionEstimator",
    "SubsetIndependenceResult",
    "SubsetMechanism",
    "SubsetUniform",
    "subset_independence_test",
    "subset_individual_leakage",
    "subset_leakage",
]
