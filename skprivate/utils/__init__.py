"""Utilities shared by every family: validation, random states, discovery."""

from ._param_validation import HasMethods, Interval, Options, validate_params
from .discovery import all_estimators
from .validation import (
    bounds_from_data,
    check_bounds,
    check_generator,
    check_interval_array,
    make_interval_array,
)

__all__ = [
    "HasMethods",
    "Interval",
    "Options",
    "all_estimators",
    "bounds_from_data",
    "check_bounds",
    "check_generator",
    "check_interval_array",
    "make_interval_array",
    "validate_params",
]
