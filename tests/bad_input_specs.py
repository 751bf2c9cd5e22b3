"""Input specs of every public function, for ``tests/test_bad_input.py``.

One entry per public function: how to build a valid call, and the *kind*
of each of its parameters.  A kind lists the bad variants of a parameter
(a function of the valid value returning the bad one); the catalogue
crosses every parameter with the variants of its kind.  Unless an
override says otherwise, a variant must raise a ValueError or TypeError
whose message names the parameter.  A few variants are not bad: the
same data in another container (pandas, polars) must give the answer of
the numpy call.

Adding a public function, or a parameter to one, without an entry here
fails ``test_every_function_parameter_has_a_spec``.
"""

from __future__ import annotations

import importlib
import inspect
import tempfile
from pathlib import Path

import numpy as np
import pandas as pd

import skprivate
from skprivate import (
    FrequencyOracle,
    IntervalCaseI,
    LaplaceLDP,
    SubsetUniform,
)

VALID = "valid"
SAME = "same answer"
N = 40
CATS = ["a", "b", "c", "d", "e"]

# Modules whose ``__all__`` functions are public entry points.
PUBLIC_MODULES = (
    "skprivate",
    "skprivate.datasets",
    "skprivate.utils",
    "skprivate.model_selection",
    "skprivate.survey",
    "skprivate.base",
)


def public_functions() -> dict[str, object]:
    """Every function listed in the ``__all__`` of a public module."""
    out = {}
    for module_name in PUBLIC_MODULES:
        module = importlib.import_module(module_name)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isfunction(obj) and not name.startswith("_"):
                out[name] = obj
    return dict(sorted(out.items()))


# ---------------------------------------------------------------------------
# Valid data
# ---------------------------------------------------------------------------


def numeric(n=N, q=2):
    return np.random.default_rng(1).uniform(0.1, 0.9, size=(n, q))


def values(n=N):
    return numeric(n, 1).ravel()


def intervals(n=N):
    lo = np.random.default_rng(2).uniform(0, 1, n)
    z = np.column_stack([lo, lo + 0.5])
    z[::4, 0] = -np.inf
    z[1::4, 1] = np.inf
    return z


def case_one_intervals(n=N):
    """Case-I data: (-inf, u] on even rows, (u, inf) on odd rows."""
    u = np.random.default_rng(4).uniform(-1, 2, n)
    z = np.column_stack([u, u])
    z[::2, 0] = -np.inf
    z[1::2, 1] = np.inf
    return z


def categorical(n=N):
    return pd.DataFrame({"race": [CATS[i % 5] for i in range(n)]})


def subset_reports(n=N):
    return SubsetUniform(categories=[CATS], random_state=0).fit_transform(
        categorical(n)
    )


def design():
    return (
        SubsetUniform(categories=[CATS], random_state=0).fit(categorical()).designs_[0]
    )


def rvns_reports(n=N):
    from skprivate import RVNSPerturber

    return RVNSPerturber(d=0.2, k=2, bounds=(0, 1), random_state=0).fit_transform(
        numeric(n, 1)
    )


def frame(X=None):
    X = numeric() if X is None else X
    return pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])


def questionnaire():
    from skprivate.survey import Question, Questionnaire

    return Questionnaire(
        [Question("age", "How old are you?", IntervalCaseI().fit([[0.0]]))]
    )


def database():
    return str(Path(tempfile.mkdtemp(prefix="bad-input-")) / "survey.db")


def collected_database():
    """A survey database with two collected responses."""
    from skprivate.survey import issue_tokens

    path = database()
    issue_tokens(questionnaire(), path, 2)
    return path


class _Search:
    """The fitted-search surface :func:`most_private_setting` reads."""

    def __init__(self):
        self.cv_results_ = {
            "params": [{"epsilon": 0.5}, {"epsilon": 1.0}, {"epsilon": 2.0}],
            "mean_test_score": np.array([0.5, 0.8, 0.81]),
            "std_test_score": np.array([0.01, 0.01, 0.01]),
            "rank_test_score": np.array([3, 2, 1]),
        }
        self.best_index_ = 2
        self.n_splits_ = 5


# ---------------------------------------------------------------------------
# Kinds of parameters: variant -> function of the valid value
# ---------------------------------------------------------------------------


def _nan_first(v):
    arr = np.array(v, dtype=float)
    arr.reshape(-1)[0] = np.nan
    return arr


def _pandas(v):
    arr = np.asarray(v, dtype=float)
    if arr.ndim == 1:
        return pd.Series(arr, name="v")
    return pd.DataFrame(arr, columns=[f"c{j}" for j in range(arr.shape[1])])


def _pandas_na(v):
    out = _pandas(v).astype("Float64")
    if isinstance(out, pd.Series):
        out.iloc[0] = pd.NA
    else:
        out.iloc[0, 0] = pd.NA
    return out


def _polars(v):
    import polars as pl

    arr = np.asarray(v, dtype=float)
    if arr.ndim == 1:
        return pl.Series("v", arr)
    return pl.DataFrame({f"c{j}": arr[:, j] for j in range(arr.shape[1])})


def array(*, aligned=False, nonnegative=False, containers=True, ndim_check=True):
    """A numeric array argument."""
    kind = {
        "nan": _nan_first,
        "string": lambda v: np.full(np.shape(v), "x", dtype=object),
        "empty": lambda v: np.asarray(v, dtype=float)[:0],
    }
    if ndim_check:
        kind["extra_dim"] = lambda v: np.asarray(v, dtype=float)[..., None, None]
    if aligned:
        kind["short"] = lambda v: np.asarray(v, dtype=float)[:-1]
    if nonnegative:
        kind["negative"] = lambda v: -np.abs(np.asarray(v, dtype=float)) - 1.0
    if containers:
        kind["pandas_na"] = _pandas_na
        kind["pandas"] = _pandas
        kind["polars"] = _polars
    return kind


def integer_array():
    return {
        "nan": _nan_first,
        "string": lambda v: np.full(np.shape(v), "x", dtype=object),
        "fractional": lambda v: np.asarray(v, dtype=float) + 0.5,
        "out_of_range": lambda v: np.asarray(v) + 99,
        "short": lambda v: np.asarray(v)[:-1],
    }


def count(minimum=0):
    return {
        "negative": lambda v: minimum - 1,
        "fractional": lambda v: minimum + 1.5,
        "nan": lambda v: float("nan"),
        "string": lambda v: "3",
        "bool": lambda v: True,
    }


def real(low=None, high=None, *, low_open=True, high_open=True, inf_ok=False):
    """A float in an interval; ``inf_ok`` when an infinite end is meaningful."""
    kind = {
        "nan": lambda v: float("nan"),
        "string": lambda v: "1.0",
    }
    if not inf_ok:
        kind["posinf"] = lambda v: float("inf")
        kind["neginf"] = lambda v: float("-inf")
    if low is not None:
        kind["below"] = lambda v: low if low_open else low - 1.0
    if high is not None:
        kind["above"] = lambda v: high if high_open else high + 1.0
    return kind


def option():
    return {"unknown": lambda v: "not-an-option", "wrong_type": lambda v: 3}


def pair():
    """A ``(low, high)`` pair of finite numbers with ``low < high``."""
    return {
        "three": lambda v: (0.0, 20.0, 30.0),
        "reversed": lambda v: (1.0, 0.0),
        "nan": lambda v: (0.0, float("nan")),
        "inf": lambda v: (0.0, float("inf")),
        "string": lambda v: ("a", "b"),
        "scalar": lambda v: 1.0,
    }


def cdf():
    """A population CDF given as a callable."""
    return {
        "returns_nan": lambda v: lambda t: np.full(np.shape(t), np.nan),
        "wrong_shape": lambda v: lambda t: np.zeros(3),
        "not_monotone": lambda v: lambda t: 0.5 + 0.4 * np.sin(np.asarray(t) * 20),
        "outside_01": lambda v: lambda t: np.full(np.shape(t), 5.0),
        "not_a_cdf": lambda v: "normal",
    }


def boolean():
    return {"string": lambda v: "yes", "number": lambda v: 2}


def random_state():
    return {"string": lambda v: "seed", "negative": lambda v: -1}


def instance():
    """An object of a given class (estimator, design, questionnaire)."""
    return {"wrong_type": lambda v: object()}


def _frame_na(v):
    out = v.astype("Float64")
    out.iloc[0, 0] = pd.NA
    return out


def frame_kind():
    """A table (DataFrame, or array-like) whose numeric columns are summarized."""
    return {
        "empty": lambda v: v.iloc[:0],
        "no_numeric_column": lambda v: pd.DataFrame({"s": ["x"] * len(v)}),
        "pandas_na": _frame_na,
        "polars": lambda v: _polars(v.to_numpy()),
    }


# Parameters that are labels for messages, or that the catalogue cannot
# vary offline (a live server), each with the reason.
LABEL = "label"
NETWORK = "network"
NODE = "node"


def custom(**variants):
    return dict(variants)


# ---------------------------------------------------------------------------
# One entry per public function: valid call, parameter kinds
# ---------------------------------------------------------------------------

_ANCHORS = np.random.default_rng(3).normal(size=(N, 2))


def _sorted_anchors():
    return np.sort(_ANCHORS, axis=1)


def _draw(rng, n):
    return rng.normal(size=n)


FUNCTIONS = {
    "audit": {
        "valid": lambda: {"privatizer": LaplaceLDP(bounds=(0, 1)).fit(numeric())},
        "params": {
            "privatizer": custom(
                wrong_type=lambda v: object(), unfitted=lambda v: LaplaceLDP()
            )
        },
    },
    "privacy_report": {
        "valid": lambda: {"estimator": LaplaceLDP(bounds=(0, 1)).fit(numeric())},
        "params": {
            "estimator": custom(
                wrong_type=lambda v: object(), unfitted=lambda v: LaplaceLDP()
            )
        },
    },
    "average_coverage": {
        "valid": lambda: {"intervals": intervals(), "reference": values()},
        "params": {
            "intervals": array(),
            "reference": cdf(),
            "acceptable_range": pair(),
        },
    },
    "individual_coverage": {
        "valid": lambda: {"intervals": intervals(), "reference": values()},
        "params": {
            "intervals": array(),
            "reference": cdf(),
            "acceptable_range": pair(),
        },
    },
    "composition_bound": {
        "valid": lambda: {"coverages": [0.5, 0.6]},
        "params": {
            "coverages": {
                **array(ndim_check=True),
                "above_one": lambda v: [1.5],
                "negative": lambda v: [-0.1],
                "two_dimensional": lambda v: [[0.1, 0.2]],
            }
        },
    },
    "estimate_coverage": {
        "valid": lambda: {"anchors": _ANCHORS, "reference": values()},
        "params": {
            "anchors": array(),
            "reference": cdf(),
            "acceptable_range": pair(),
            "exact_cells": custom(
                out_of_range=lambda v: [7],
                negative=lambda v: [-1],
                fractional=lambda v: [0.5],
                string=lambda v: ["a"],
            ),
            "return_std": boolean(),
        },
    },
    "interval_distance": {
        "valid": lambda: {"y_true": intervals(), "y_pred": values()},
        "params": {"y_true": array(aligned=True), "y_pred": array(aligned=True)},
    },
    "interval_mae": {
        "valid": lambda: {"y_true": intervals(), "y_pred": values()},
        "params": {
            "y_true": array(aligned=True),
            "y_pred": array(aligned=True),
            "sample_weight": custom(
                negative=lambda v: np.r_[-1.0, np.ones(N - 1)],
                nan=lambda v: np.r_[np.nan, np.ones(N - 1)],
                short=lambda v: np.ones(N - 1),
                zeros=lambda v: np.zeros(N),
                string=lambda v: ["x"] * N,
            ),
        },
    },
    "interval_r2_score": {
        "valid": lambda: {"y_true": intervals(), "y_pred": values()},
        "params": {
            "y_true": array(aligned=True),
            "y_pred": array(aligned=True),
            "sample_weight": custom(
                negative=lambda v: np.r_[-1.0, np.ones(N - 1)],
                nan=lambda v: np.r_[np.nan, np.ones(N - 1)],
                short=lambda v: np.ones(N - 1),
                string=lambda v: ["x"] * N,
            ),
        },
    },
    "intervals_from_answers": {
        "valid": lambda: {
            "anchors": _sorted_anchors(),
            "answers": np.arange(N) % 3,
            "values": np.where(np.arange(N) % 5 == 0, 0.5, np.nan),
        },
        "params": {
            "anchors": array(aligned=True),
            "answers": integer_array(),
            "values": array(aligned=True, containers=False),
            "within": custom(
                disjoint=lambda v: np.tile([50.0, 60.0], (N, 1)),
                nan=lambda v: np.full((N, 2), np.nan),
                short=lambda v: np.tile([-10.0, 10.0], (N - 1, 1)),
                string=lambda v: np.full((N, 2), "x", dtype=object),
            ),
        },
    },
    "optimal_anchor_density": {
        "valid": lambda: {"reference": values()},
        "params": {
            "reference": {**array(containers=False), **cdf()},
            "functional": {
                **option(),
                "returns_nan": lambda v: lambda u: np.full(np.shape(u), np.nan),
                "wrong_shape": lambda v: lambda u: np.ones(3),
            },
            "grid": custom(
                nan=lambda v: np.r_[np.nan, np.linspace(0, 1, 5)],
                decreasing=lambda v: np.linspace(1, 0, 5),
                too_short=lambda v: [0.0, 1.0],
                string=lambda v: ["a", "b", "c"],
            ),
            "n_grid": count(minimum=3),
        },
    },
    "truncated_mean": {
        "valid": lambda: {"lower": np.zeros(3), "upper": np.ones(3)},
        "params": {
            "lower": {
                **array(aligned=True, containers=False, ndim_check=False),
                "empty_cell": lambda v: np.full(3, np.inf),
            },
            "upper": {
                **array(aligned=True, containers=False, ndim_check=False),
                "empty_cell": lambda v: np.full(3, -np.inf),
                "below_lower": lambda v: np.full(3, -1.0),
            },
            "noise": option(),
            "scale": real(0, None, low_open=True),
        },
    },
    "truncated_second_moment": {
        "valid": lambda: {"lower": np.zeros(3), "upper": np.ones(3)},
        "params": {
            "lower": {
                **array(aligned=True, containers=False, ndim_check=False),
                "empty_cell": lambda v: np.full(3, np.inf),
            },
            "upper": {
                **array(aligned=True, containers=False, ndim_check=False),
                "empty_cell": lambda v: np.full(3, -np.inf),
                "below_lower": lambda v: np.full(3, -1.0),
            },
            "noise": option(),
            "scale": real(0, None, low_open=True),
        },
    },
    "turnbull_intervals": {
        "valid": lambda: {"intervals": intervals()},
        "params": {"intervals": array()},
    },
    "uniform_anchor_mean": {
        "valid": lambda: {"intervals": case_one_intervals(), "low": -1.0, "high": 2.0},
        "params": {
            "intervals": array(),
            "low": {**real(), "above_anchors": lambda v: 0.5},
            "high": {**real(), "below_anchors": lambda v: 0.5},
            "return_std": boolean(),
        },
    },
    "deconvolution_kernel": {
        "valid": lambda: {"u": np.linspace(-1, 1, 5), "ratio": 0.5},
        "params": {
            "u": {
                "nan": _nan_first,
                "string": lambda v: np.full(np.shape(v), "x", dtype=object),
                "pandas": _pandas,
                "polars": _polars,
            },
            "ratio": {**real(0, None, low_open=False), "wrong_shape": lambda v: [1, 2]},
            "kernel": option(),
            "order": custom(three=lambda v: 3, fractional=lambda v: 0.5),
        },
    },
    "norm_sub": {
        "valid": lambda: {"values": np.array([0.5, 0.4, 0.2, -0.1])},
        "params": {"values": array()},
    },
    "oracle_variance": {
        "valid": lambda: {
            "privatizer": FrequencyOracle(categories=[CATS]).fit(categorical()),
            "n_samples": 100,
            "frequencies": np.full(5, 0.2),
        },
        "params": {
            "privatizer": custom(
                wrong_type=lambda v: object(), unfitted=lambda v: FrequencyOracle()
            ),
            "n_samples": count(minimum=1),
            "frequencies": {
                **array(nonnegative=True),
                "above_one": lambda v: np.full(5, 2.0),
                "short": lambda v: np.asarray(v)[:-1],
            },
            "column": {**count(minimum=0), "out_of_range": lambda v: 1},
        },
    },
    "subset_independence_test": {
        "valid": lambda: {"A": subset_reports(), "B": subset_reports()},
        "params": {
            "A": {
                **array(aligned=True, containers=False),
                "not_binary": lambda v: np.where(np.asarray(v) > 0, 2, 0),
            },
            "B": {
                **array(aligned=True, containers=False),
                "not_binary": lambda v: np.where(np.asarray(v) > 0, 2, 0),
            },
            "method": option(),
            "design_a": instance(),
            "design_b": instance(),
            "n_permutations": count(minimum=1),
            "random_state": random_state(),
        },
    },
    "subset_individual_leakage": {
        "valid": lambda: {
            "A": subset_reports(),
            "design": design(),
            "weights": np.full(5, 0.2),
        },
        "params": {
            "A": {
                "nan": _nan_first,
                "string": lambda v: np.full(np.shape(v), "x", dtype=object),
                "not_binary": lambda v: np.where(np.asarray(v) > 0, 2, 0),
                "wrong_columns": lambda v: np.asarray(v)[:, :3],
            },
            "design": instance(),
            "weights": array(nonnegative=True, containers=False),
            "y_true": custom(
                out_of_range=lambda v: np.full(N, 9),
                negative=lambda v: np.full(N, -1),
                fractional=lambda v: np.full(N, 0.5),
                short=lambda v: np.zeros(N - 1),
                string=lambda v: ["x"] * N,
            ),
        },
    },
    "subset_leakage": {
        "valid": lambda: {"design": design(), "weights": np.full(5, 0.2)},
        "params": {
            "design": instance(),
            "weights": array(nonnegative=True, containers=False),
        },
    },
    "grid_kde": {
        "valid": lambda: {
            "values": values(),
            "points": np.linspace(0, 1, 5),
            "bandwidth": 0.1,
        },
        "params": {
            "values": array(ndim_check=False),
            "points": array(ndim_check=False),
            "bandwidth": real(0, None),
            "reflect": pair(),
        },
    },
    "indicator_errors": {
        "valid": lambda: {"x": values(), "x_hat": values()},
        "params": {
            "x": array(ndim_check=False),
            "x_hat": array(ndim_check=False),
            "grid": custom(
                nan=lambda v: np.r_[np.nan, np.linspace(0, 1, 4)],
                empty=lambda v: np.zeros(0),
                string=lambda v: ["x"],
            ),
        },
    },
    "ksdensity_bandwidth": {
        "valid": lambda: {"values": values()},
        "params": {"values": array(ndim_check=False)},
    },
    "privacy_distance": {
        "valid": lambda: {"x": values(), "x_prime": values()},
        "params": {
            "x": array(aligned=True, ndim_check=False),
            "x_prime": array(aligned=True, ndim_check=False),
        },
    },
    "rvns_adversary_inference": {
        "valid": lambda: {"reports": rvns_reports(), "d": 0.2, "bounds": (0, 1)},
        "params": {
            "reports": {**array(), "outside": lambda v: np.asarray(v) + 50.0},
            "d": {**real(0, None), "wider_than_bounds": lambda v: 2.0},
            "bounds": pair(),
            "n_grid": count(minimum=2),
            "tie_break": option(),
            "random_state": random_state(),
            "chunk_size": count(minimum=1),
            "placement": option(),
        },
    },
    "rvns_grid": {
        "valid": lambda: {"bounds": (0, 1), "n_points": 5},
        "params": {"bounds": pair(), "n_points": count(minimum=1)},
    },
    "rvns_transition_density": {
        "valid": lambda: {
            "x": np.linspace(0, 1, 4),
            "y": np.linspace(0, 1, 4),
            "d": 0.2,
            "bounds": (0, 1),
        },
        "params": {
            "x": {**array(aligned=True), "three_entries": lambda v: np.zeros(3)},
            "y": array(aligned=True),
            "d": {**real(0, None), "wider_than_bounds": lambda v: 2.0},
            "bounds": pair(),
            "placement": option(),
        },
    },
    "rvns_transition_matrix": {
        "valid": lambda: {"edges": np.linspace(0, 1, 6), "d": 0.2, "bounds": (0, 1)},
        "params": {
            "edges": {
                **array(),
                "outside_bounds": lambda v: np.linspace(-5, 15, 6),
                "decreasing": lambda v: np.asarray(v)[::-1],
            },
            "d": {**real(0, None), "wider_than_bounds": lambda v: 2.0},
            "bounds": pair(),
            "placement": option(),
        },
    },
    "six_indicators": {
        "valid": lambda: {"x": values()},
        "params": {
            "x": array(ndim_check=False),
            "grid": custom(
                nan=lambda v: np.r_[np.nan, np.linspace(0, 1, 4)],
                empty=lambda v: np.zeros(0),
                string=lambda v: ["x"],
            ),
        },
    },
    "wasserstein_on_grid": {
        "valid": lambda: {"f": np.full(4, 0.25), "g": np.full(4, 0.25)},
        "params": {
            "f": array(aligned=True, nonnegative=True, ndim_check=False),
            "g": array(aligned=True, nonnegative=True, ndim_check=False),
            "edges": custom(
                nan=lambda v: [0.0, np.nan, 2.0, 3.0, 4.0],
                decreasing=lambda v: [4.0, 3.0, 2.0, 1.0, 0.0],
                short=lambda v: [0.0, 1.0],
                string=lambda v: ["a"] * 5,
            ),
            "continuous": boolean(),
        },
    },
    "absolute_relative_error": {
        "valid": lambda: {"true": np.ones(3), "private": np.ones(3)},
        "params": {
            "true": {
                "string": lambda v: np.full(3, "x", dtype=object),
                "short": lambda v: np.ones(2),
                "pandas": _pandas,
            },
            "private": {
                "string": lambda v: np.full(3, "x", dtype=object),
                "short": lambda v: np.ones(2),
            },
        },
    },
    "integral_describe": {
        "valid": lambda: {
            "df": frame(),
            "statistics": ("mean",),
            "n_resamples": 5,
            "random_state": 0,
        },
        "params": {
            "df": frame_kind(),
            "statistics": custom(
                unknown=lambda v: ("not-a-statistic",),
                empty=lambda v: (),
                wrong_type=lambda v: 3,
            ),
            "n_resamples": count(minimum=1),
            "min_cluster_size": count(minimum=1),
            "decimals": count(minimum=0),
            "min_frequency": count(minimum=1),
            "random_state": random_state(),
            "n_jobs": custom(zero=lambda v: 0, string=lambda v: "2"),
        },
    },
    "laplace_describe": {
        "valid": lambda: {
            "df": frame(),
            "epsilon": 1.0,
            "bounds": (0, 1),
            "random_state": 0,
        },
        "params": {
            "df": frame_kind(),
            "epsilon": real(0, None),
            "bounds": {
                **pair(),
                "unknown_column": lambda v: {"nope": (0, 1)},
            },
            "statistics": custom(
                unknown=lambda v: ("not-a-statistic",),
                empty=lambda v: (),
                wrong_type=lambda v: 3,
            ),
            "delta": real(0, 1),
            "random_state": random_state(),
            "sensitivity": option(),
        },
    },
    "laplace_intervals": {
        "valid": lambda: {
            "table": skprivate.laplace_describe(
                frame(), 1.0, bounds=(0, 1), random_state=0
            ),
            "epsilon": 1.0,
            "bounds": (0, 1),
        },
        "params": {
            "table": custom(
                wrong_type=lambda v: np.ones((3, 2)),
                no_statistic=lambda v: pd.DataFrame({"c0": [1.0]}, index=["nope"]),
                empty=lambda v: v.iloc[:0],
            ),
            "epsilon": real(0, None),
            "bounds": {**pair(), "unknown_column": lambda v: {"nope": (0, 1)}},
            "n": custom(
                negative=lambda v: -5,
                nan=lambda v: float("nan"),
                string=lambda v: "ten",
                unknown_column=lambda v: {"nope": 10},
            ),
            "level": real(0, 1),
            "target": option(),
            "sd_quantile": real(0.5, 1, low_open=False),
        },
    },
    "laplace_statistic": {
        "valid": lambda: {
            "x": values(),
            "statistic": "mean",
            "epsilon": 1.0,
            "bounds": (0, 1),
            "random_state": 0,
        },
        "params": {
            "x": array(ndim_check=False),
            "statistic": option(),
            "epsilon": real(0, None),
            "bounds": pair(),
            "delta": real(0, 1),
            "random_state": random_state(),
            "sensitivity": option(),
        },
    },
    "microaggregate": {
        "valid": lambda: {"x": values(), "min_cluster_size": 3},
        "params": {
            "x": array(ndim_check=False),
            "min_cluster_size": count(minimum=1),
            "method": option(),
        },
    },
    "load_adult": {"valid": lambda: {}, "params": {}},
    "load_life_expectancy": {"valid": lambda: {}, "params": {}},
    "make_gaussian_mixture": {
        "valid": lambda: {"n_samples": 10, "random_state": 0},
        "params": {
            "n_samples": count(minimum=0),
            "weights": {
                **array(nonnegative=True, containers=False),
                "short": lambda v: [1.0],
            },
            "means": {**array(containers=False), "short": lambda v: [0.0]},
            "scales": {
                **array(nonnegative=True, containers=False),
                "short": lambda v: [1.0],
            },
            "low": {**real(inf_ok=True), "above_high": lambda v: 5.0},
            "high": {**real(inf_ok=True), "below_low": lambda v: -5.0},
            "random_state": random_state(),
        },
    },
    "make_interval_regression": {
        "valid": lambda: {"n_samples": 10, "random_state": 0},
        "params": {
            "n_samples": count(minimum=1),
            "function": option(),
            "noise": option(),
            "noise_scale": real(0, None),
            "noise_df": custom(
                negative=lambda v: -1.0,
                nan=lambda v: float("nan"),
                string=lambda v: "3",
            ),
            "privatizer": custom(
                wrong_type=lambda v: object(),
                not_interval=lambda v: LaplaceLDP(bounds=(-5, 5)),
            ),
            "random_state": random_state(),
        },
    },
    "make_truncated_chi2": {
        "valid": lambda: {"n_samples": 10, "df": 3.0, "random_state": 0},
        "params": {
            "n_samples": count(minimum=0),
            "df": real(0, None),
            "low": {**real(inf_ok=True), "above_high": lambda v: 50.0},
            "high": {**real(inf_ok=True), "below_low": lambda v: -5.0},
            "random_state": random_state(),
        },
    },
    "sample_truncated": {
        "valid": lambda: {
            "draw": _draw,
            "n_samples": 10,
            "low": -1.0,
            "high": 1.0,
            "random_state": 0,
        },
        "params": {
            "draw": custom(
                returns_nan=lambda v: lambda rng, n: np.full(n, np.nan),
                wrong_shape=lambda v: lambda rng, n: np.zeros((n, 2)),
                returns_strings=lambda v: lambda rng, n: np.full(n, "x"),
                not_callable=lambda v: "normal",
            ),
            "n_samples": count(minimum=0),
            "low": {**real(inf_ok=True), "above_high": lambda v: 5.0},
            "high": {**real(inf_ok=True), "below_low": lambda v: -5.0},
            "random_state": random_state(),
            "max_rounds": count(minimum=1),
        },
    },
    "expected_half_width": {
        "valid": lambda: {
            "mechanism": LaplaceLDP(epsilon=1.0, bounds=(0, 100)),
            "n": 10_000,
            "sd": 20.0,
        },
        "params": {
            "mechanism": instance(),
            "n": count(minimum=1),
            "statistic": option(),
            "level": real(0, 1),
            "sd": real(0, None),
            "reference": custom(wrong_type=lambda v: object()),
            "estimator": instance(),
            "kind": custom(unknown=lambda v: "not-a-kind"),
            "points": custom(string=lambda v: ["x"]),
            "n_simulations": count(minimum=1),
            "random_state": random_state(),
        },
    },
    "plan_sample_size": {
        "valid": lambda: {
            "mechanism": LaplaceLDP(epsilon=1.0, bounds=(0, 100)),
            "half_width": 2.0,
            "sd": 20.0,
        },
        "params": {
            "mechanism": instance(),
            "half_width": real(0, None),
            "statistic": option(),
            "level": real(0, 1),
            "sd": real(0, None),
            "reference": custom(wrong_type=lambda v: object()),
            "estimator": instance(),
            "kind": custom(unknown=lambda v: "not-a-kind"),
            "points": custom(string=lambda v: ["x"]),
            # (0, 1]: 1 is the rate of an interval shrinking as 1 / n
            "rate": real(0, 1, high_open=False),
            "pilot_n": count(minimum=1),
            "n_simulations": count(minimum=1),
            "random_state": random_state(),
        },
    },
    # skprivate.utils
    "all_estimators": {"valid": lambda: {}, "params": {}},
    "bounds_from_data": {
        "valid": lambda: {"X": numeric(), "owner": "LaplaceLDP"},
        "params": {
            "X": {
                **array(containers=False),
                "all_nan_column": lambda v: np.full((3, 1), np.nan),
            },
            "owner": LABEL,
        },
    },
    "check_bounds": {
        "valid": lambda: {"bounds": (0, 1), "n_features": 2},
        "params": {
            "bounds": pair(),
            "n_features": count(minimum=1),
            "name": LABEL,
            "feature_names": custom(short=lambda v: ["a"], wrong_type=lambda v: 3),
        },
    },
    "check_generator": {
        "valid": lambda: {"random_state": 0},
        "params": {"random_state": random_state()},
    },
    "check_interval_array": {
        "valid": lambda: {"y": intervals()},
        "params": {
            "y": array(),
            "name": LABEL,
            "allow_1d": boolean(),
            "allow_nan": boolean(),
            "first_row": count(minimum=0),
        },
    },
    "make_interval_array": {
        "valid": lambda: {"lower": np.zeros(3), "upper": np.ones(3)},
        "params": {
            "lower": array(aligned=True),
            "upper": {**array(aligned=True), "below_lower": lambda v: -np.ones(3)},
        },
    },
    "validate_params": {
        "valid": lambda: {
            "constraints": {"n": ["array-like"]},
            "params": {"n": [1]},
            "caller_name": "f",
        },
        "params": {
            "constraints": custom(
                wrong_type=lambda v: 3, unknown_constraint=lambda v: {"n": ["nope"]}
            ),
            "params": custom(wrong_type=lambda v: 3),
            "caller_name": LABEL,
        },
    },
    # skprivate.model_selection
    "most_private_setting": {
        "valid": lambda: {"search": _Search(), "param": "epsilon"},
        "params": {
            "search": custom(wrong_type=lambda v: object()),
            "param": custom(
                unknown=lambda v: "not-a-param",
                wrong_type=lambda v: 3,
                returns_nan=lambda v: lambda p: float("nan"),
            ),
            "more_private": option(),
            "tolerance": real(0, None, low_open=False),
            "rule": option(),
            "score_key": custom(unknown=lambda v: "nope", wrong_type=lambda v: 3),
        },
    },
    # skprivate.base
    "check_in_memory": {
        "valid": lambda: {"estimator": LaplaceLDP(), "X": numeric()},
        "params": {"estimator": LABEL, "X": LABEL, "method": LABEL},
    },
    # skprivate.survey
    "mechanism_spec": {
        "valid": lambda: {"privatizer": IntervalCaseI().fit([[0.0]])},
        "params": {
            "privatizer": custom(
                wrong_type=lambda v: object(), unfitted=lambda v: IntervalCaseI()
            )
        },
    },
    "issue_tokens": {
        "valid": lambda: {
            "questionnaire": questionnaire(),
            "database": database(),
            "n_respondents": 2,
        },
        "params": {
            "questionnaire": instance(),
            "database": custom(wrong_type=lambda v: 3),
            "n_respondents": count(minimum=0),
        },
    },
    "read_responses": {
        "valid": lambda: {"database": collected_database()},
        "params": {
            "database": custom(wrong_type=lambda v: 3),
            "question": custom(unknown=lambda v: "nope", wrong_type=lambda v: 3),
            "as_frame": boolean(),
            "wave": count(minimum=1),
        },
    },
    "read_waves": {
        "valid": lambda: {"database": collected_database(), "question": "age"},
        "params": {
            "database": custom(wrong_type=lambda v: 3),
            "question": custom(unknown=lambda v: "nope", wrong_type=lambda v: 3),
            "waves": count(minimum=1),
        },
    },
    "create_app": {
        "valid": lambda: {"questionnaire": questionnaire(), "database": database()},
        "params": {
            "questionnaire": instance(),
            "database": custom(wrong_type=lambda v: 3),
            "open_enrollment": boolean(),
            "max_body_bytes": count(minimum=1),
            "batch_size": count(minimum=1),
            "wave": count(minimum=1),
            "operator_token": custom(
                wrong_type=lambda v: 3, too_short=lambda v: "short"
            ),
        },
    },
    "survey_status": {
        "valid": lambda: {
            "questionnaire": questionnaire(),
            "database": collected_database(),
        },
        "params": {
            "questionnaire": instance(),
            "database": custom(wrong_type=lambda v: 3, absent=lambda v: database()),
            "level": real(0.0, 1.0),
            "freq": option(),
        },
    },
    "audit_page": NODE,
    "background_server": NETWORK,
    "serve": NETWORK,
    "fetch_questions": NETWORK,
    "submit_answers": NETWORK,
}

# Why a function or parameter has no bad variants.
REASONS = {
    LABEL: "a name used in messages only, or passed through unread",
    NODE: (
        "runs the page's samplers under Node.js; its inputs are those of "
        "mechanism_spec and Questionnaire, checked there, and the run is "
        "covered by tests/survey/test_page_exact_laws.py"
    ),
    NETWORK: (
        "needs a live server; its inputs are validated by create_app and "
        "covered by tests/survey/test_server.py"
    ),
}
