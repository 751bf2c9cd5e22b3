"""Bundled real datasets and the synthetic generators of the papers' experiments."""

from ._base import load_adult, load_life_expectancy
from ._generators import (
    make_gaussian_mixture,
    make_interval_regression,
    make_truncated_chi2,
    sample_truncated,
)

__all__ = [
    "load_adult",
    "load_life_expectancy",
    "make_gaussian_mixture",
    "make_interval_regression",
    "make_truncated_chi2",
    "sample_truncated",
]
