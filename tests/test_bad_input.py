"""Bad input never gives a silent answer or an error a user cannot act on.

A matrix discovered from the public API:

* every public estimator (:func:`skprivate.utils.all_estimators`), and
* every public function of the families' ``__all__`` (``skprivate.__all__``)
  and of ``skprivate.datasets``,

crossed with a catalogue of bad inputs.  Each entry point has one *spec* in
``ESTIMATOR_SPECS`` / ``FUNCTION_SPECS`` saying how to build valid input (a
data kind and a small factory); bad variants are generated from it, so a new
estimator of an existing data kind needs one line here, and a discovered
entry point without a spec fails ``test_every_entry_point_has_a_spec``.

Each cell states its outcome: ``VALID`` (the call returns; its output is
checked finite and of the right shape) or an error, a ``ValueError`` or
``TypeError`` whose message names the offending parameter, column or row
(checked by a regular expression).  Parameter cells come from each
estimator's ``_parameter_constraints``: NaN, infinities and a wrong type for
every numeric parameter that does not accept them.
"""

from __future__ import annotations

import inspect
import numbers
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

import skprivate
import skprivate.datasets
from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    FlippedHuberLDP,
    GeneralizedGaussianLDP,
    IntegralPrivateStatistics,
    IntervalCaseI,
    IntervalCaseII,
    IntervalEnsemble,
    IntervalMechanism,
    IntervalMLE,
    IntervalNPMLE,
    IterativeIntervalRegressor,
    LaplaceLDP,
    Microaggregator,
    PerturbedKDEEstimator,
    RVNSDensityEstimator,
    RVNSPerturber,
    SquareWaveEMSEstimator,
    SquareWaveLDP,
    SubsetDistributionEstimator,
    SubsetMechanism,
    SubsetUniform,
)
from skprivate.exceptions import InvalidParameterError
from skprivate.utils import Interval, all_estimators

from .bad_input_specs import FUNCTIONS, REASONS, SAME, public_functions

VALID = "valid"
SAME_AS_NAN = "the answer with NaN in place of pd.NA"
N = 40
RNG = np.random.default_rng(0)
CATS = ["a", "b", "c", "d", "e"]


# ---------------------------------------------------------------------------
# Valid data of each kind, and the bad variants of it
# ---------------------------------------------------------------------------


def numeric(n=N, q=2):
    return np.random.default_rng(1).uniform(0.1, 0.9, size=(n, q))


def intervals(n=N):
    lo = np.random.default_rng(2).uniform(0, 1, n)
    z = np.column_stack([lo, lo + 0.5])
    z[::4, 0] = -np.inf
    z[1::4, 1] = np.inf
    return z


def categorical(n=N):
    return pd.DataFrame({"race": [CATS[i % 5] for i in range(n)]})


def subset_reports(n=N):
    return SubsetUniform(categories=[CATS], random_state=0).fit_transform(
        categorical(n)
    )


def case_one_intervals(n=N):
    """Case-I data: (-inf, u] on even rows, (u, inf) on odd rows."""
    u = np.random.default_rng(4).uniform(-1, 2, n)
    z = np.column_stack([u, u])
    z[::2, 0] = -np.inf
    z[1::2, 1] = np.inf
    return z


def rvns_reports(n=N):
    return RVNSPerturber(d=0.2, k=2, bounds=(0, 1), random_state=0).fit_transform(
        numeric(n, 1)
    )


def _frame(X):
    return pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])


def _with(X, i, j, value):
    X = np.array(X, dtype=float)
    X[i, j] = value
    return X


# variant -> (function of the valid X returning the bad X, regex of the error)
# The regex requires the message to name the data argument (X), a column or a
# row; "{arg}" is replaced by the argument's name.
NAMES = r"\b{arg}\b|column|row"
NUMERIC_VARIANTS = {
    "nan": (lambda X: _with(X, 3, 0, np.nan), NAMES),
    "posinf": (lambda X: _with(X, 3, 0, np.inf), NAMES),
    "neginf": (lambda X: _with(X, 3, 0, -np.inf), NAMES),
    "empty": (lambda X: X[:0], r"\b{arg}\b|0 sample|shape"),
    "one_dimensional": (lambda X: X[:, 0], r"\b{arg}\b|2D array|1d|shape"),
    "three_dimensional": (lambda X: X[:, :, None], r"\b{arg}\b|dim|shape"),
    "string_column": (
        lambda X: _frame(X).assign(c0=["x"] * len(X)),
        r"column 'c0'",
    ),
    "object_string": (
        lambda X: np.array(X, dtype=object).__setitem__((2, 0), "oops") or None,
        r"column 0",
    ),
    "categorical_strings": (
        lambda X: _frame(X).assign(
            c0=pd.Categorical([CATS[i % 5] for i in range(len(X))])
        ),
        r"column 'c0'",
    ),
    "datetime": (
        lambda X: _frame(X).assign(c0=pd.date_range("2020-01-01", periods=len(X))),
        r"column 'c0'",
    ),
    "sparse": (lambda X: sp.csr_matrix(X), r"sparse|dense"),
    "huge_1e300": (lambda X: _with(X, 3, 0, 1e300), VALID),
    "duplicate_columns": (
        lambda X: pd.DataFrame(X, columns=["a"] * X.shape[1]),
        r"duplicate|unique|column",
    ),
}


def _object_string(X):
    Z = np.array(X, dtype=object)
    Z[2, 0] = "oops"
    return Z


NUMERIC_VARIANTS["object_string"] = (_object_string, r"column 0")

# Variants whose outcome is VALID for every numeric entry point: booleans are
# 0/1, a numeric Categorical is its values, one row is data.
NUMERIC_VALID = {
    "boolean": lambda X: X > 0.5,
    "numeric_categorical": lambda X: _frame(X).assign(
        c0=pd.Categorical(np.round(X[:, 0], 1))
    ),
    "one_row": lambda X: X[:1],
}

INTERVAL_VARIANTS = {
    "nan": (lambda Z: _with(Z, 3, 0, np.nan), NAMES),
    "both_nan": (lambda Z: _with(_with(Z, 3, 0, np.nan), 3, 1, np.nan), NAMES),
    "lower_gt_upper": (lambda Z: _with(_with(Z, 3, 0, 5.0), 3, 1, 1.0), NAMES),
    "empty_cell_lower_inf": (lambda Z: _with(Z, 3, 0, np.inf), NAMES),
    "empty": (lambda Z: Z[:0], r"\b{arg}\b|0 sample|shape"),
    "three_columns": (lambda Z: np.column_stack([Z, Z[:, 0]]), NAMES),
    "string_column": (
        lambda Z: _frame(Z).assign(c0=["x"] * len(Z)),
        r"column 'c0'",
    ),
    "datetime": (
        lambda Z: _frame(Z).assign(c0=pd.date_range("2020-01-01", periods=len(Z))),
        r"column 'c0'",
    ),
    "one_sided_all": (
        lambda Z: np.column_stack([Z[:, 0] * 0 + np.arange(len(Z)), np.inf + Z[:, 0]]),
        r"\b{arg}\b",
    ),
}


# ---------------------------------------------------------------------------
# One spec per public estimator
# ---------------------------------------------------------------------------
#
# kind: "privatizer" (fit + transform on numeric X), "learner" (fit X, y then
# predict X), "density" (fit X only), "interval" (fit on interval X),
# "subset_privatizer", "subset_learner".
# make: a fresh valid estimator; X, y: valid data; expect: variant -> outcome
# overrides of the defaults above.

ESTIMATOR_SPECS = {
    "LaplaceLDP": {"kind": "privatizer", "make": lambda: LaplaceLDP(bounds=(0, 1))},
    "SquareWaveLDP": {
        "kind": "privatizer",
        "make": lambda: SquareWaveLDP(bounds=(0, 1)),
    },
    "GeneralizedGaussianLDP": {
        "kind": "privatizer",
        "make": lambda: GeneralizedGaussianLDP(bounds=(0, 1)),
    },
    "FlippedHuberLDP": {
        "kind": "privatizer",
        "make": lambda: FlippedHuberLDP(bounds=(0, 1)),
    },
    "RVNSPerturber": {
        "kind": "privatizer",
        "make": lambda: RVNSPerturber(d=0.2, bounds=(0, 1)),
    },
    "IntervalCaseI": {"kind": "privatizer", "make": lambda: IntervalCaseI()},
    "IntervalCaseII": {"kind": "privatizer", "make": lambda: IntervalCaseII()},
    "IntervalMechanism": {"kind": "privatizer", "make": lambda: IntervalMechanism()},
    "IntervalEnsemble": {
        "kind": "privatizer",
        "make": lambda: IntervalEnsemble([IntervalCaseI(), IntervalCaseII()]),
    },
    "Microaggregator": {"kind": "privatizer", "make": lambda: Microaggregator()},
    "IntegralPrivateStatistics": {
        "kind": "density",
        "make": lambda: IntegralPrivateStatistics(
            statistics=("mean", "median"), n_resamples=10, random_state=0
        ),
    },
    "DeconvolutionKernelDensity": {
        "kind": "density",
        "make": lambda: DeconvolutionKernelDensity(bandwidth=0.3, noise_scale=0.1),
        "q": 1,
    },
    "PerturbedKDEEstimator": {
        "kind": "density",
        "make": lambda: PerturbedKDEEstimator(bounds=(0, 1), method="paper"),
        "q": 1,
    },
    "SquareWaveEMSEstimator": {
        "kind": "density",
        "make": lambda: SquareWaveEMSEstimator(epsilon=1.0, bounds=(0, 1), n_points=20),
        "q": 1,
    },
    "RVNSDensityEstimator": {
        "kind": "density",
        "make": lambda: RVNSDensityEstimator(d=0.2, bounds=(0, 1), n_points=20),
        "X": rvns_reports,
    },
    "DeconvolutionKernelRegressor": {
        "kind": "learner",
        "make": lambda: DeconvolutionKernelRegressor(bandwidth=0.3, noise_scale=0.1),
        "y": lambda X: X[:, 0] + X[:, 1],
    },
    "DeconvolutionKernelClassifier": {
        "kind": "learner",
        "make": lambda: DeconvolutionKernelClassifier(bandwidth=0.3, noise_scale=0.1),
        "y": lambda X: (X[:, 0] > 0.5).astype(int),
    },
    "IterativeIntervalRegressor": {
        "kind": "learner",
        "make": lambda: IterativeIntervalRegressor(sigma=0.5, max_iter=5),
        "y": lambda X: np.column_stack([X[:, 0] - 0.3, X[:, 0] + 0.3]),
    },
    "IntervalNPMLE": {"kind": "interval", "make": lambda: IntervalNPMLE()},
    "IntervalMLE": {"kind": "interval", "make": lambda: IntervalMLE()},
    "SubsetUniform": {
        "kind": "subset_privatizer",
        "make": lambda: SubsetUniform(categories=[CATS], random_state=0),
    },
    "SubsetMechanism": {
        "kind": "subset_privatizer",
        "make": lambda: SubsetMechanism(categories=[CATS], random_state=0),
    },
    "SubsetDistributionEstimator": {
        "kind": "subset_learner",
        "make": lambda: SubsetDistributionEstimator(),
    },
}

# (estimator, variant) -> outcome, where an estimator differs from the
# default of its kind, with the reason.
_OUTSIDE = r"\bX\b.*outside.*column 0|column 0.*row 3"
_WRAPPED = r"could not convert|DType|float"
OVERRIDES = {
    # Bounded mechanisms refuse a value outside their declared bounds.
    **{
        (name, "huge_1e300"): _OUTSIDE
        for name in (
            "SquareWaveLDP",
            "GeneralizedGaussianLDP",
            "FlippedHuberLDP",
            "RVNSPerturber",
        )
    },
    ("RVNSDensityEstimator", "huge_1e300"): r"\bX\b has reports outside the bounds",
    # Documented: NaN marks a missing value, dropped per column and counted;
    # non-numeric DataFrame columns are skipped with a UserWarning.
    ("IntegralPrivateStatistics", "nan"): VALID,
    ("IntegralPrivateStatistics", "string_column"): VALID,
    ("IntegralPrivateStatistics", "categorical_strings"): VALID,
    ("IntegralPrivateStatistics", "datetime"): VALID,
    ("IntegralPrivateStatistics", "huge_1e300"): VALID,
    ("IntegralPrivateStatistics", "one_row"): VALID,
    # IterativeIntervalRegressor hands X to the user's regressor, which owns
    # the validation of X (LightGBM accepts categoricals): its message.
    ("IterativeIntervalRegressor", "string_column"): _WRAPPED,
    ("IterativeIntervalRegressor", "object_string"): _WRAPPED,
    ("IterativeIntervalRegressor", "categorical_strings"): _WRAPPED,
    ("IterativeIntervalRegressor", "datetime"): _WRAPPED,
    # One value is no density: the estimate collapses or cannot be smoothed.
    ("DeconvolutionKernelDensity", "one_row"): r"not positive anywhere on the support",
    # One report's kernel is a (wide) density; only round-off mass is refused.
    ("PerturbedKDEEstimator", "one_row"): VALID,
    ("RVNSDensityEstimator", "one_row"): r"\bX\b has 1 sample",
    # Duplicate names on a one-column learner: the copy has two columns.
    # These learners take one column, which cannot have a duplicate name.
    ("DeconvolutionKernelDensity", "duplicate_columns"): VALID,
    ("PerturbedKDEEstimator", "duplicate_columns"): VALID,
    ("SquareWaveEMSEstimator", "duplicate_columns"): VALID,
    # Fewer rows than a group: nothing can be published.
    ("Microaggregator", "one_row"): r"\bX\b has 1 sample.*min_cluster_size",
    ("DeconvolutionKernelDensity", "huge_1e300"): r"column 0 .* row 3",
    ("PerturbedKDEEstimator", "huge_1e300"): r"column 0 .* row 3",
    ("SquareWaveEMSEstimator", "huge_1e300"): r"column 0 .* row 3",
    ("DeconvolutionKernelRegressor", "huge_1e300"): r"column 0 .* row 3",
    ("DeconvolutionKernelClassifier", "huge_1e300"): r"column 0 .* row 3",
}


def _spec_X(spec):
    make = spec.get("X")
    if make is not None:
        return make()
    return numeric(q=spec.get("q", 2))


def _check_output(out, n_rows=None):
    """A returned answer must be finite (NaN only where documented) and sized."""
    if isinstance(out, pd.DataFrame):
        out = out.to_numpy(dtype=float)
    arr = np.asarray(out, dtype=float)
    finite = arr[np.isfinite(arr) | np.isinf(arr)]
    assert finite.size == arr.size, "answer holds NaN"
    if n_rows is not None and arr.ndim >= 1:
        assert arr.shape[0] == n_rows


def _expect(spec_name, variant, default):
    return OVERRIDES.get((spec_name, variant), default)


def _assert_outcome(expected, call, arg="X"):
    if expected == VALID:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return call()
    pattern = expected.replace("{arg}", arg)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with pytest.raises((ValueError, TypeError)) as info:
            call()
    message = str(info.value)
    assert re.search(pattern, message), (
        f"message does not name the culprit ({pattern!r}): {message!r}"
    )
    return None


def _fit_and_use(est, spec, X, y=None):
    kind = spec["kind"]
    if kind in ("privatizer", "subset_privatizer"):
        out = est.fit(X).transform(X)
        _check_output(
            out,
            len(X) if hasattr(X, "__len__") else None,
        )
        return out
    if kind == "learner":
        est.fit(X, y)
        out = est.predict(X)
        _check_output(out, len(X))
        return out
    est.fit(X)
    if hasattr(est, "mean"):
        value = est.mean()
        assert np.isfinite(value)
    return est


# ---------------------------------------------------------------------------
# Data cells
# ---------------------------------------------------------------------------

DATA_CELLS = []
for _name, _spec in sorted(ESTIMATOR_SPECS.items()):
    _kind = _spec["kind"]
    if _kind in ("privatizer", "learner", "density"):
        for _v, (_, _default) in NUMERIC_VARIANTS.items():
            DATA_CELLS.append((_name, _v, _expect(_name, _v, _default)))
        for _v in NUMERIC_VALID:
            DATA_CELLS.append((_name, _v, _expect(_name, _v, VALID)))
    elif _kind == "interval":
        for _v, (_, _default) in INTERVAL_VARIANTS.items():
            DATA_CELLS.append((_name, _v, _expect(_name, _v, _default)))


@pytest.mark.parametrize(
    "name, variant, expected", DATA_CELLS, ids=[f"{a}-{b}" for a, b, _ in DATA_CELLS]
)
def test_bad_data(name, variant, expected):
    spec = ESTIMATOR_SPECS[name]
    est = spec["make"]()
    X = _spec_X(spec)
    kind = spec["kind"]
    if kind == "interval":
        bad = INTERVAL_VARIANTS[variant][0](intervals())
        _assert_outcome(expected, lambda: _fit_and_use(est, spec, bad))
        return
    if variant in NUMERIC_VALID:
        bad = NUMERIC_VALID[variant](X)
    else:
        bad = NUMERIC_VARIANTS[variant][0](X)
    y = None
    if kind == "learner":
        base = np.asarray(X, dtype=float)
        y = spec["y"](base)
        if getattr(bad, "shape", (None,))[0] != len(base) and hasattr(bad, "shape"):
            y = y[: bad.shape[0]]
    _assert_outcome(expected, lambda: _fit_and_use(est, spec, bad, y))


# ---------------------------------------------------------------------------
# Shape cells: wrong feature count after fit, X/y lengths, sample weights
# ---------------------------------------------------------------------------

SHAPE_CELLS = [
    (name, variant)
    for name, spec in sorted(ESTIMATOR_SPECS.items())
    for variant in ("wrong_feature_count", "y_length", "negative_weight", "nan_weight")
    if (variant == "wrong_feature_count" and spec["kind"] in ("privatizer", "learner"))
    or (variant != "wrong_feature_count" and spec["kind"] == "learner")
]


@pytest.mark.parametrize(
    "name, variant", SHAPE_CELLS, ids=[f"{a}-{b}" for a, b in SHAPE_CELLS]
)
def test_bad_shapes(name, variant):
    spec = ESTIMATOR_SPECS[name]
    est = spec["make"]()
    X = _spec_X(spec)
    if variant == "wrong_feature_count":
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = spec["y"](X) if spec["kind"] == "learner" else None
            est.fit(X, y) if y is not None else est.fit(X)
        use = est.predict if spec["kind"] == "learner" else est.transform
        _assert_outcome(
            r"\bX\b.*features|features.*\bX\b|n_features", lambda: use(X[:, :1])
        )
        return
    y = spec["y"](X)
    if variant == "y_length":
        _assert_outcome(r"inconsistent|\by\b", lambda: est.fit(X, y[:-3]))
        return
    if "sample_weight" not in inspect.signature(est.fit).parameters:
        pytest.skip("fit takes no sample_weight")
    w = np.ones(len(X))
    w[2] = -1.0 if variant == "negative_weight" else np.nan
    _assert_outcome(r"sample_weight", lambda: est.fit(X, y, sample_weight=w))


# ---------------------------------------------------------------------------
# Subset cells
# ---------------------------------------------------------------------------

SUBSET_PRIVATIZER_VARIANTS = {
    "unknown_category": (
        lambda: pd.DataFrame({"race": ["a", "zz"] * 10}),
        r"unknown|zz|categor",
    ),
    "nan_category": (
        lambda: pd.DataFrame({"race": ["a", None] * 10}),
        r"NaN|None|missing|race|column|unknown",
    ),
    "empty": (lambda: categorical()[:0], r"\bX\b|0 sample|shape"),
    "wrong_column_count": (
        lambda: categorical().assign(other=1),
        r"[Ff]eature names|features|column",
    ),
    "mixed_types_auto": (
        lambda: pd.DataFrame({"race": [1, "a"] * 10}),
        r"race|column|unknown",
    ),
    "duplicate_columns": (
        lambda: pd.DataFrame([["a", "b"]] * 10, columns=["r", "r"]),
        r"duplicate|column|features",
    ),
}
SUBSET_LEARNER_VARIANTS = {
    "nan": (lambda A: _with(A, 3, 0, np.nan), r"\b(A|X)\b|row|column"),
    "not_binary": (lambda A: _with(A, 3, 0, 2.0), r"\b(A|X)\b|row|0/1|binary"),
    "negative": (lambda A: _with(A, 3, 0, -1.0), r"\b(A|X)\b|row|0/1|binary"),
    "empty": (lambda A: A[:0], r"\b(A|X)\b|0 sample|shape"),
    "strings": (lambda A: np.where(A > 0, "y", "n"), r"\b(A|X)\b|column|row|0/1"),
    "one_row": (lambda A: A[:1], VALID),
}
SUBSET_CELLS = [
    (name, v)
    for name, spec in sorted(ESTIMATOR_SPECS.items())
    for v in (
        SUBSET_PRIVATIZER_VARIANTS
        if spec["kind"] == "subset_privatizer"
        else SUBSET_LEARNER_VARIANTS
        if spec["kind"] == "subset_learner"
        else ()
    )
]


@pytest.mark.parametrize(
    "name, variant", SUBSET_CELLS, ids=[f"{a}-{b}" for a, b in SUBSET_CELLS]
)
def test_bad_subset_data(name, variant):
    spec = ESTIMATOR_SPECS[name]
    est = spec["make"]()
    if spec["kind"] == "subset_privatizer":
        make, expected = SUBSET_PRIVATIZER_VARIANTS[variant]
        bad = make()
        if variant in ("wrong_column_count", "unknown_category", "nan_category"):
            est.fit(categorical())
            _assert_outcome(expected, lambda: est.transform(bad))
        elif variant == "mixed_types_auto":
            est.set_params(categories="auto")
            _assert_outcome(expected, lambda: est.fit(bad))
        else:
            _assert_outcome(expected, lambda: est.fit(bad))
        return
    make, expected = SUBSET_LEARNER_VARIANTS[variant]
    bad = make(subset_reports())
    out = _assert_outcome(expected, lambda: est.fit(bad), arg="A")
    if expected == VALID:
        p = np.asarray(out.distribution_, dtype=float)
        assert np.all(np.isfinite(p)) and abs(p.sum() - 1) < 1e-6


# ---------------------------------------------------------------------------
# Parameter cells, generated from every estimator's _parameter_constraints
# ---------------------------------------------------------------------------

BAD_VALUES = {
    "nan": float("nan"),
    "posinf": float("inf"),
    "neginf": float("-inf"),
    "wrong_type": object(),
    "string": "not-a-valid-option",
    "huge_negative": -1e300,
    "negative_one": -1.0,
    "boolean": True,
    "list": [1.0],
}


def _param_cells():
    cells = []
    for name, cls in all_estimators():
        for param, constraints in sorted(cls._parameter_constraints.items()):
            if constraints == "no_validation":
                continue
            has_number = any(isinstance(c, Interval) for c in constraints)
            for label, value in BAD_VALUES.items():
                if (
                    label in ("nan", "posinf", "neginf", "huge_negative")
                    and not has_number
                ):
                    continue
                if any(_accepts(c, value) for c in constraints):
                    continue
                cells.append((name, param, label))
    return cells


def _accepts(constraint, value):
    from skprivate.utils._param_validation import _check_one

    return _check_one(constraint, value)[0]


PARAM_CELLS = _param_cells()


@pytest.mark.parametrize(
    "name, param, label", PARAM_CELLS, ids=[f"{a}-{b}-{c}" for a, b, c in PARAM_CELLS]
)
def test_bad_parameter(name, param, label):
    cls = dict(all_estimators())[name]
    spec = ESTIMATOR_SPECS.get(name)
    est = spec["make"]() if spec else cls()
    est.set_params(**{param: BAD_VALUES[label]})
    X = _spec_X(spec) if spec else numeric()
    with pytest.raises(InvalidParameterError, match=f"'{param}' parameter"):
        if spec and spec["kind"] == "learner":
            est.fit(X, spec["y"](X))
        elif spec and spec["kind"] == "interval":
            est.fit(intervals())
        elif spec and spec["kind"] == "subset_privatizer":
            est.fit(categorical())
        elif spec and spec["kind"] == "subset_learner":
            est.fit(subset_reports())
        else:
            est.fit(X)


BOUNDS_CELLS = {
    "lower_gt_upper": ((1, 0), r"bounds.*column 'c0'.*low"),
    "nan_bound": ((0, float("nan")), r"bounds.*column 'c0'.*high=nan"),
    "inf_bound": ((0, float("inf")), r"bounds.*column 'c0'.*high=inf"),
    "overflowing_width": ((-1e308, 1e308), r"bounds of column 'c0'.*overflows"),
    "ambiguous_array": (
        np.array([[0, 1], [2, 3]]),
        r"bounds.*ambiguous.*Accepted forms|'bounds' parameter",
    ),
    "wrong_count": ([(0, 1), (0, 1), (0, 1)], r"bounds.*2 columns.*Accepted forms"),
    "dict_missing_column": ({"c0": (0, 1)}, r"bounds.*missing columns \['c1'\]"),
    "per_column_pairs": ([(0, 1), (0.05, 1.2)], VALID),
    "dict_by_name": ({"c1": (0.05, 1.2), "c0": (0, 1)}, VALID),
}
BOUNDED = sorted(
    name
    for name, spec in ESTIMATOR_SPECS.items()
    if spec["kind"] == "privatizer" and "bounds" in spec["make"]().get_params()
)


@pytest.mark.parametrize("name", BOUNDED)
@pytest.mark.parametrize("variant", sorted(BOUNDS_CELLS))
def test_bad_bounds(name, variant):
    bounds, expected = BOUNDS_CELLS[variant]
    est = ESTIMATOR_SPECS[name]["make"]().set_params(bounds=bounds)
    X = _frame(numeric())
    out = _assert_outcome(expected, lambda: est.fit(X).transform(X))
    if expected == VALID:
        _check_output(out, len(X))
        low, high = est.bounds_
        assert list(low) == [0.0, 0.05] and list(high) == [1.0, 1.2]


# ---------------------------------------------------------------------------
# Public functions: every parameter of every function (tests/bad_input_specs.py)
# ---------------------------------------------------------------------------

# (function, parameter, variant) -> outcome where it differs from the default
# (an error naming the parameter; the numpy answer for another container).
FUNCTION_OVERRIDES = {
    # NaN anchors are the unused slots of draw_anchors(within=...), NaN
    # values the respondents who disclosed nothing (documented).
    ("intervals_from_answers", "anchors", "nan"): VALID,
    ("intervals_from_answers", "values", "nan"): VALID,
    # An empty list of evaluation points has an empty answer.
    ("grid_kde", "points", "empty"): VALID,
    ("deconvolution_kernel", "u", "empty"): VALID,
    # Validating an empty array returns it, shape (0, 2).
    ("check_interval_array", "y", "empty"): VALID,
    # Zero rows: nothing to release, an empty table of intervals.
    ("turnbull_intervals", "intervals", "empty"): VALID,
    # make_gaussian_mixture and make_truncated_chi2 draw n_samples >= 0 values.
    # Infinite truncation bounds mean no truncation (documented).
    # NaN (missing) values are dropped per column, as pandas' describe does.
    ("integral_describe", "df", "pandas_na"): SAME_AS_NAN,
    ("laplace_describe", "df", "pandas_na"): SAME_AS_NAN,
}


def _function_cells():
    cells = []
    for name in sorted(public_functions()):
        spec = FUNCTIONS.get(name)
        if not isinstance(spec, dict):
            continue
        for param, kind in spec["params"].items():
            if not isinstance(kind, dict):
                continue
            for variant in kind:
                cells.append((name, param, variant))
    return cells


FUNCTION_CELLS = _function_cells()


def _function_expected(name, param, variant):
    key = (name, param, variant)
    if key in FUNCTION_OVERRIDES:
        return FUNCTION_OVERRIDES[key]
    if variant in ("pandas", "polars"):
        return SAME
    if variant == "pandas_na":
        return FUNCTION_OVERRIDES.get((name, param, "nan"), rf"\b{param}\b")
    return rf"\b{param}\b"


def _call_function(name, kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return public_functions()[name](**kwargs)


def _assert_same(out, ref):
    """Two answers of a function are equal (containers compared by content)."""
    if isinstance(ref, pd.DataFrame | pd.Series):
        pd.testing.assert_frame_equal(
            pd.DataFrame(out), pd.DataFrame(ref), check_dtype=False
        )
    elif isinstance(ref, dict):
        assert set(out) == set(ref)
        for key in ref:
            _assert_same(out[key], ref[key])
    elif isinstance(ref, tuple | list):
        assert len(out) == len(ref)
        for a, b in zip(out, ref):
            _assert_same(a, b)
    elif isinstance(ref, np.ndarray | float | numbers.Real):
        np.testing.assert_allclose(
            np.asarray(out, dtype=float), np.asarray(ref, dtype=float), rtol=1e-12
        )
    elif hasattr(ref, "cdf"):
        points = np.linspace(-2, 2, 9)
        np.testing.assert_allclose(out.cdf(points), ref.cdf(points), rtol=1e-12)
    else:
        assert vars(out).keys() == vars(ref).keys()


def _valid_value(name, param, kwargs):
    if param in kwargs:
        return kwargs[param]
    default = inspect.signature(public_functions()[name]).parameters[param].default
    return None if default is inspect.Parameter.empty else default


def test_every_function_parameter_has_a_spec():
    """A new public function, or a new parameter, must say what is bad for it."""
    missing = []
    for name, func in public_functions().items():
        spec = FUNCTIONS.get(name)
        if spec is None:
            missing.append(name)
            continue
        if not isinstance(spec, dict):
            assert spec in REASONS
            continue
        params = set(inspect.signature(func).parameters)
        missing += [f"{name}({p})" for p in sorted(params - set(spec["params"]))]
        stale = set(spec["params"]) - params
        assert not stale, f"{name} has no parameters {sorted(stale)}"
        for kind in spec["params"].values():
            assert isinstance(kind, dict) or kind in REASONS
    assert not missing, f"add to tests/bad_input_specs.py: {missing}"
    assert set(FUNCTIONS) <= set(public_functions()), "spec of a removed function"


@pytest.mark.parametrize(
    "name",
    [n for n in public_functions() if isinstance(FUNCTIONS.get(n), dict)],
)
def test_function_valid_input(name):
    """The spec itself is valid input, and the answer is finite."""
    out = _call_function(name, FUNCTIONS[name]["valid"]())
    if isinstance(out, np.ndarray | float | numbers.Real):
        _check_output(out)


@pytest.mark.parametrize(
    "name, param, variant",
    FUNCTION_CELLS,
    ids=[f"{a}-{b}-{c}" for a, b, c in FUNCTION_CELLS],
)
def test_function_parameter(name, param, variant):
    spec = FUNCTIONS[name]
    kwargs = spec["valid"]()
    kwargs[param] = spec["params"][param][variant](_valid_value(name, param, kwargs))
    expected = _function_expected(name, param, variant)
    if expected == SAME:
        _assert_same(_call_function(name, kwargs), _call_function(name, spec["valid"]()))
        return
    if expected == SAME_AS_NAN:
        # pd.NA is a missing value: the answer is that of NaN in its place
        reference = dict(kwargs, **{param: kwargs[param].astype(float)})
        _assert_same(_call_function(name, kwargs), _call_function(name, reference))
        return
    out = _assert_outcome(expected, lambda: _call_function(name, kwargs), arg=param)
    if expected == VALID and isinstance(out, np.ndarray):
        assert not np.isnan(out).any() if out.dtype.kind == "f" else True


# Cells whose current outcome is still wrong (a message that names neither the
# argument nor a row, or a valid spec refused).  They are strict xfails: the
# day one is fixed the cell passes, the xfail fails, and the entry must go.
KNOWN_GAPS: set[str] = set()


@pytest.fixture(autouse=True)
def _known_gap(request):
    if request.node.name in KNOWN_GAPS:
        request.applymarker(
            pytest.mark.xfail(
                strict=True, reason="known gap of issue 15: message or outcome"
            )
        )
