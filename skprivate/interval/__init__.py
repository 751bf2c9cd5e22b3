"""Interval privacy: random intervals instead of values (Ding & Ding).

Mechanisms report the random cell ``(lower, upper]`` that contains a value;
learners estimate distributions and regression functions from such cells.
"""

from ._coverage import (
    average_coverage,
    composition_bound,
    estimate_coverage,
    individual_coverage,
)
from ._ensemble import IntervalEnsemble
from ._mechanisms import IntervalCaseI, IntervalCaseII, IntervalMechanism
from ._metrics import (
    interval_distance,
    interval_mae,
    interval_r2_score,
    interval_r2_scorer,
    neg_interval_mae_scorer,
)
from ._npmle import IntervalNPMLE, turnbull_intervals
from ._parametric import IntervalMLE, optimal_anchor_density, uniform_anchor_mean
from ._regression import IterativeIntervalRegressor
from ._survey import intervals_from_answers
from ._truncated import truncated_mean, truncated_second_moment

__all__ = [
    "IntervalCaseI",
    "IntervalCaseII",
    "IntervalEnsemble",
    "IntervalMLE",
    "IntervalMechanism",
    "IntervalNPMLE",
    "IterativeIntervalRegressor",
    "average_coverage",
    "composition_bound",
    "estimate_coverage",
    "individual_coverage",
    "interval_distance",
    "interval_mae",
    "interval_r2_score",
    "interval_r2_scorer",
    "intervals_from_answers",
    "neg_interval_mae_scorer",
    "optimal_anchor_density",
    "truncated_mean",
    "truncated_second_moment",
    "turnbull_intervals",
    "uniform_anchor_mean",
]
