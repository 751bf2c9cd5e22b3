"""Integrally private descriptive statistics.

Releases statistics whose value is produced by many different resampled
subsets of the data that share no common record, with optional input
microaggregation, plus the differentially private baselines the method is
compared with and the absolute relative error used to compare them.
"""

from ._dp import absolute_relative_error, laplace_describe, laplace_statistic
from ._intervals import laplace_intervals
from ._microaggregation import Microaggregator, microaggregate
from ._statistics import IntegralPrivateStatistics, integral_describe

__all__ = [
    "IntegralPrivateStatistics",
    "Microaggregator",
    "absolute_relative_error",
    "integral_describe",
    "laplace_describe",
    "laplace_intervals",
    "laplace_statistic",
    "microaggregate",
]
