"""Bad input never gives a silent answer or an error a user cannot act on.

A matrix discovered from the public API:

* every public estimator (:func:`skprivate.utils.all_estimators`), and
* every public function of the ``__all__`` of ``skprivate``,
  ``skprivate.datasets``, ``skprivate.utils``, ``skprivate.model_selection``,
  ``skprivate.survey`` and ``skprivate.base``,

crossed with a catalogue of bad inputs.  Each estimator has one *spec* in
``ESTIMATOR_SPECS`` saying how to build valid input (a data kind and a small
factory); each function one entry in ``tests/bad_input_specs.py`` giving a
valid call and the kind of *every* parameter (array, count, real in a range,
option, pair, CDF, callable, flag, seed, object).  Bad variants are generated
from them, so a new estimator of an existing data kind needs one line, and a
discovered entry point or parameter without a spec fails
``test_every_entry_point_has_a_spec`` or
``test_every_function_parameter_has_a_spec``.

The sections:

* data cells: NaN, infinities, strings, datetimes, shapes, sparse input;
* parameter cells: every value an estimator's ``_parameter_constraints``
  refuses (NaN, infinities, zero, negative, wrong type), and values far
  inside the accepted range (``1e-12``, ``1e12``);
* function cells: every parameter of every public function;
* containers: pandas nullable dtypes, polars frames, dask arrays and
  DataFrames (empty partitions, a NaN in a later partition, unknown chunk
  sizes) give the in-memory answer, or its error with the row numbered in
  the whole data;
* methods of fitted population estimates (``moment``, ``sample``, ...).

Each cell states its outcome: ``VALID`` (the call returns; its output is
checked finite and of the right shape), ``SAME`` (the answer of the same rows
in another container) or an error, a ``ValueError`` or ``TypeError`` whose
message names the offending parameter, column or row (checked by a regular
expression).
"""

from __future__ import annotations

import functools
import inspect
import itertools
import numbers
import re
import warnings

import numpy as np
import pandas as pd
import pytest
import scipy.sparse as sp

from skprivate import (
    BinaryLocalHashing,
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    FlippedHuberLDP,
    FrequencyEstimator,
    FrequencyOracle,
    GeneralizedGaussianLDP,
    GeneralizedRandomizedResponse,
    HadamardResponse,
    IntegralPrivateStatistics,
    IntervalCaseI,
    IntervalCaseII,
    IntervalEnsemble,
    IntervalMechanism,
    IntervalMLE,
    IntervalNPMLE,
    IterativeIntervalRegressor,
    LaplaceLDP,
    LongitudinalFrequencyEstimator,
    LongitudinalOracle,
    Microaggregator,
    OptimizedLocalHashing,
    OptimizedUnaryEncoding,
    PerturbedKDEEstimator,
    RowwiseTransformer,
    RVNSDensityEstimator,
    RVNSPerturber,
    SquareWaveEMSEstimator,
    SquareWaveLDP,
    SubsetDistributionEstimator,
    SubsetMechanism,
    SubsetUniform,
    SymmetricUnaryEncoding,
)
from skprivate.exceptions import InvalidParameterError
from skprivate.utils import Interval, all_estimators

from .bad_input_specs import FUNCTIONS, REASONS, SAME, design, public_functions

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
# A NaN or infinite value is refused with its row (and column).
AT_ROW = r"\brow 3\b"
NUMERIC_VARIANTS = {
    "nan": (lambda X: _with(X, 3, 0, np.nan), AT_ROW),
    "posinf": (lambda X: _with(X, 3, 0, np.inf), AT_ROW),
    "neginf": (lambda X: _with(X, 3, 0, -np.inf), AT_ROW),
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
    # A declaration around another transformer: the data checks are those of
    # the transformer it wraps (its default wraps a validating identity).
    "RowwiseTransformer": {"kind": "wrapper", "make": lambda: RowwiseTransformer()},
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
        # a float bandwidth: the "ksdensity" rule reads all the rows at once,
        # which dask refuses (tests/ldp/test_pooled_streaming.py)
        "make": lambda: PerturbedKDEEstimator(
            bounds=(0, 1), method="paper", bandwidth=0.1
        ),
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
    # Frequency oracles take categories like the subset privatizers; the
    # estimator reads 0/1 reports, here those of unary encoding.
    **{
        cls.__name__: {
            "kind": "subset_privatizer",
            "make": lambda cls=cls: cls(categories=[CATS], random_state=0),
        }
        for cls in (
            FrequencyOracle,
            GeneralizedRandomizedResponse,
            SymmetricUnaryEncoding,
            OptimizedUnaryEncoding,
            OptimizedLocalHashing,
            BinaryLocalHashing,
            HadamardResponse,
        )
    },
    "FrequencyEstimator": {
        "kind": "subset_learner",
        "make": lambda: FrequencyEstimator(
            oracle=OptimizedUnaryEncoding(categories=[CATS]), method="norm-sub"
        ),
    },
    "LongitudinalOracle": {
        "kind": "subset_privatizer",
        "make": lambda: LongitudinalOracle(waves=2, categories=[CATS], random_state=0),
    },
    # one wave of longitudinal OUE: five 0/1 columns, like the subset reports
    "LongitudinalFrequencyEstimator": {
        "kind": "subset_learner",
        "make": lambda: LongitudinalFrequencyEstimator(
            oracle=LongitudinalOracle(kind="oue", categories=[CATS]), method="norm-sub"
        ),
    },
}

# (estimator, variant) -> outcome, where an estimator differs from the
# default of its kind, with the reason.
_OUTSIDE = r"\bX\b.*outside.*column 0|column 0.*row 3"
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
    # the missing values of X (LightGBM takes NaN): its message names X.
    **{
        ("IterativeIntervalRegressor", v): r"\bX\b" for v in ("nan", "posinf", "neginf")
    },
    # One value is no density: the estimate collapses or cannot be smoothed.
    ("DeconvolutionKernelDensity", "one_row"): r"not positive anywhere on the support",
    # One report's kernel is a (wide) density; only round-off mass is refused.
    ("PerturbedKDEEstimator", "one_row"): VALID,
    ("RVNSDensityEstimator", "one_row"): r"\bX\b has 1 sample",
    # One interval and 3 coefficients: the interval MLE has no maximum.
    ("IterativeIntervalRegressor", "one_row"): r"\bX\b has 1 row and 2 features",
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
    "zero": 0.0,
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
    # Empty input with an empty answer: no points to evaluate, no values
    # to aggregate, no respondents to guess.
    ("grid_kde", "points", "empty"): VALID,
    ("deconvolution_kernel", "u", "empty"): VALID,
    ("microaggregate", "x", "empty"): VALID,
    ("rvns_adversary_inference", "reports", "empty"): VALID,
    # x and y broadcast against each other (documented).
    ("rvns_transition_density", "x", "extra_dim"): VALID,
    ("rvns_transition_density", "y", "extra_dim"): VALID,
    # An acceptable range may be a half-line: (0, inf) discloses every
    # positive value (coverage 0 for a positive population).
    ("average_coverage", "acceptable_range", "inf"): VALID,
    ("individual_coverage", "acceptable_range", "inf"): VALID,
    ("estimate_coverage", "acceptable_range", "inf"): VALID,
    # Negative decimals round to tens, hundreds, ... (numpy's round).
    ("integral_describe", "decimals", "negative"): VALID,
    # NaN (missing) values are dropped per column, as pandas' describe does:
    # pd.NA is the same missing value.
    ("integral_describe", "df", "pandas_na"): SAME_AS_NAN,
    ("laplace_describe", "df", "pandas_na"): SAME_AS_NAN,
    # An empty frame or one without numbers: the message names df or its
    # columns.
    **{
        (f, "df", v): r"\bdf\b"
        for f in ("integral_describe", "laplace_describe")
        for v in ("empty", "no_numeric_column")
    },
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


def test_every_entry_point_has_a_spec():
    """A new public estimator or function must say how to build valid input."""
    missing = [n for n, _ in all_estimators() if n not in ESTIMATOR_SPECS]
    missing += [n for n in public_functions() if n not in FUNCTIONS]
    assert not missing, f"add an input spec to tests/test_bad_input.py for {missing}"


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
        _assert_same(
            _call_function(name, kwargs), _call_function(name, spec["valid"]())
        )
        return
    if expected == SAME_AS_NAN:
        # pd.NA is a missing value: the answer is that of NaN in its place
        reference = dict(kwargs, **{param: kwargs[param].astype(float)})
        _assert_same(_call_function(name, kwargs), _call_function(name, reference))
        return
    out = _assert_outcome(expected, lambda: _call_function(name, kwargs), arg=param)
    if expected == VALID and isinstance(out, np.ndarray):
        assert not np.isnan(out).any() if out.dtype.kind == "f" else True


# ---------------------------------------------------------------------------
# Containers: pandas nullable dtypes, polars, dask, for every estimator
# ---------------------------------------------------------------------------
#
# "the same answer": the answer on the same rows in a pandas DataFrame with
# the same column names (privatizers seeded, so their noise is comparable).
# A missing value (pd.NA, a polars null, NaN in a dask partition) has the
# outcome of NaN in memory; on dask, errors name the row in the whole data.


def _polars_frame(X):
    import polars as pl

    X = np.asarray(X, dtype=float)
    return pl.DataFrame({f"c{j}": X[:, j] for j in range(X.shape[1])})


def _polars_null(X):
    import polars as pl

    frame = _polars_frame(X)
    return frame.with_columns(
        pl.when(pl.int_range(pl.len()) == 3)
        .then(None)
        .otherwise(pl.col("c0"))
        .alias("c0")
    )


def _nullable(X, na=False):
    out = _frame(np.asarray(X, dtype=float)).astype("Float64")
    if na:
        out.iloc[3, 0] = pd.NA
    return out


def _dask_frame(X, lengths=(0, 12, None)):
    """A dask DataFrame of ``X`` with partitions of the given lengths."""
    import dask.dataframe as dd

    frame = _frame(np.asarray(X, dtype=float))
    sizes = [n if n is not None else len(frame) - sum(lengths[:-1]) for n in lengths]
    cuts = np.cumsum([0, *sizes])
    parts = [frame.iloc[a:b] for a, b in itertools.pairwise(cuts)]
    return dd.from_delayed(
        [__import__("dask").delayed(p) for p in parts], meta=frame.iloc[:0]
    )


def _dask_array(X, unknown=False):
    import dask.array as da

    arr = da.from_array(np.asarray(X, dtype=float), chunks=(15, -1))
    if unknown:
        arr = _dask_frame(X, (10, 30)).to_dask_array()
    return arr


CONTAINERS = {
    "pandas_nullable": lambda X: _nullable(X),
    "pandas_nullable_na": lambda X: _nullable(X, na=True),
    "polars": _polars_frame,
    "polars_null": _polars_null,
    "dask_array": lambda X: _dask_array(X),
    "dask_unknown_chunks": lambda X: _dask_array(X, unknown=True),
    "dask_empty_partition": lambda X: _dask_frame(X, (0, 12, None)),
    "dask_nan_partition": lambda X: _dask_frame(_with(X, 25, 0, np.nan), (12, None)),
}
CONTAINER_KINDS = ("privatizer", "learner", "density", "interval")
_DASK_ROW = r"\brow 25\b"


def _supports_dask(name):
    from skprivate.base import PrivatizerMixin, SufficientStatisticMixin

    cls = dict(all_estimators())[name]
    return issubclass(cls, PrivatizerMixin | SufficientStatisticMixin)


def _container_expected(name, variant):
    kind = ESTIMATOR_SPECS[name]["kind"]
    nan = (
        INTERVAL_VARIANTS["nan"][1]
        if kind == "interval"
        else _expect(name, "nan", AT_ROW)
    )
    if variant in ("pandas_nullable_na", "polars_null"):
        return nan
    if variant.startswith("dask") and not _supports_dask(name):
        return r"dask"
    if variant == "dask_nan_partition":
        return VALID if nan == VALID else _DASK_ROW
    return SAME


CONTAINER_CELLS = [
    (name, variant)
    for name, spec in sorted(ESTIMATOR_SPECS.items())
    if spec["kind"] in CONTAINER_KINDS
    for variant in CONTAINERS
]


def _seeded(est):
    if "random_state" in est.get_params():
        est.set_params(random_state=0)
    return est


def _answer(est, spec, X, y=None):
    """What a fitted estimator says: released rows, predictions, a summary."""
    kind = spec["kind"]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if kind == "privatizer":
            out = est.fit(X).transform(X)
        elif kind == "learner":
            out = est.fit(X, y).predict(X)
        else:
            est.fit(X)
            out = est.describe() if hasattr(est, "describe") else est.mean()
    if hasattr(out, "compute"):
        out = out.compute()
    if hasattr(out, "to_numpy"):
        out = out.to_numpy()
    return np.asarray(out, dtype=float)


@functools.cache
def _reference_answer(name):
    """The answer on the rows of the cell in a float pandas DataFrame."""
    spec = ESTIMATOR_SPECS[name]
    base = intervals() if spec["kind"] == "interval" else np.asarray(_spec_X(spec))
    y = spec["y"](base) if spec["kind"] == "learner" else None
    out = _answer(_seeded(spec["make"]()), spec, _frame(base), y)
    out.setflags(write=False)
    return out


@pytest.mark.parametrize(
    "name, variant",
    CONTAINER_CELLS,
    ids=[f"{a}-{b}" for a, b in CONTAINER_CELLS],
)
def test_containers(name, variant):
    import dask

    spec = ESTIMATOR_SPECS[name]
    base = intervals() if spec["kind"] == "interval" else np.asarray(_spec_X(spec))
    y = spec["y"](base) if spec["kind"] == "learner" else None
    X = CONTAINERS[variant](base)
    expected = _container_expected(name, variant)
    with dask.config.set(scheduler="synchronous"):
        if expected != SAME:
            _assert_outcome(
                expected, lambda: _answer(_seeded(spec["make"]()), spec, X, y)
            )
            return
        out = _answer(_seeded(spec["make"]()), spec, X, y)
    reference = _reference_answer(name)
    assert out.shape == reference.shape
    if variant.startswith("dask") and spec["kind"] == "privatizer":
        # each partition draws its own noise: the same law, other values
        assert not np.isnan(out).any()
        return
    # merged per-partition statistics: the same estimate up to the
    # optimizers' tolerances
    rtol = 1e-5 if variant.startswith("dask") else 1e-10
    np.testing.assert_allclose(out, reference, rtol=rtol, atol=1e-12)


PRIVATIZERS = sorted(
    name for name, spec in ESTIMATOR_SPECS.items() if "privatizer" in spec["kind"]
)


@pytest.mark.parametrize("name", PRIVATIZERS)
def test_set_output_polars(name):
    """set_output(transform="polars") returns a polars frame named like pandas'."""
    import polars as pl

    spec = ESTIMATOR_SPECS[name]
    X = categorical() if spec["kind"] == "subset_privatizer" else _frame(numeric())
    est = _seeded(spec["make"]())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        out = est.set_output(transform="polars").fit_transform(X)
        reference = _seeded(spec["make"]()).set_output(transform="pandas")
        reference = reference.fit_transform(X)
    assert isinstance(out, pl.DataFrame)
    assert out.columns == [str(c) for c in reference.columns]
    np.testing.assert_allclose(out.to_numpy(), reference.to_numpy(dtype=float))


SUBSET_CONTAINERS = {
    "polars": lambda frame: __import__("polars").DataFrame(
        {c: frame[c].tolist() for c in frame.columns}
    ),
    "dask_empty_partition": lambda frame: _dask_categories(frame),
}


def _dask_categories(frame):
    import dask.dataframe as dd

    parts = [frame.iloc[:0], frame.iloc[:12], frame.iloc[12:]]
    return dd.from_delayed(
        [__import__("dask").delayed(p) for p in parts], meta=frame.iloc[:0]
    )


@pytest.mark.parametrize("variant", sorted(SUBSET_CONTAINERS))
@pytest.mark.parametrize(
    "name",
    sorted(n for n, s in ESTIMATOR_SPECS.items() if s["kind"] == "subset_privatizer"),
)
def test_subset_containers(name, variant):
    import dask

    spec = ESTIMATOR_SPECS[name]
    frame = categorical()
    with dask.config.set(scheduler="synchronous"):
        est = spec["make"]().fit(SUBSET_CONTAINERS[variant](frame))
        out = est.transform(SUBSET_CONTAINERS[variant](frame))
        out = out.compute() if hasattr(out, "compute") else out
    reference = spec["make"]().fit(frame).transform(frame)
    assert np.asarray(out).shape == np.asarray(reference).shape
    if variant == "polars":
        np.testing.assert_array_equal(np.asarray(out), np.asarray(reference))


@pytest.mark.parametrize(
    "variant", ["polars", "dask_empty_partition", "dask_nan_partition"]
)
def test_subset_learner_containers(variant):
    import dask

    A = subset_reports()
    if variant == "polars":
        data = _polars_frame(A)
    elif variant == "dask_empty_partition":
        data = _dask_frame(A, (0, 12, None))
    else:
        data = _dask_frame(_with(A, 25, 0, np.nan), (12, None))
    with dask.config.set(scheduler="synchronous"):
        if variant == "dask_nan_partition":
            _assert_outcome(_DASK_ROW, lambda: SubsetDistributionEstimator().fit(data))
            return
        out = SubsetDistributionEstimator().fit(data)
    reference = SubsetDistributionEstimator().fit(A)
    np.testing.assert_allclose(out.distribution_, reference.distribution_)


def _dask_partitions(frame):
    import dask.dataframe as dd

    return dd.from_pandas(frame, npartitions=3, sort=False)


@pytest.mark.parametrize("handle_unknown", ["error", "ignore"])
def test_dask_unknown_categories_as_in_memory(handle_unknown):
    """Rows of an unknown category: the in-memory outcome, on dask too."""
    import dask

    frame = pd.DataFrame({"race": [*CATS, "zz"] * 5})

    def fit(data):
        privatizer = SubsetUniform(
            categories=[CATS], handle_unknown=handle_unknown, random_state=0
        )
        with dask.config.set(scheduler="synchronous"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return SubsetDistributionEstimator(privatizer=privatizer).fit(data)

    if handle_unknown == "error":
        # an unknown value in the rows the dask fit of the privatizer reads
        # (the first rows), then only in later partitions, read by the
        # statistic: the in-memory message, with the row in the whole data
        later = pd.DataFrame({"race": [CATS[i % 5] for i in range(30)]})
        later.loc[[17, 26], "race"] = "zz"
        for data, row in ((frame, 5), (later, 17)):
            with pytest.raises(ValueError) as eager:
                fit(data)
            with pytest.raises(ValueError) as lazy:
                fit(_dask_partitions(data))
            assert str(lazy.value) == str(eager.value)
            assert re.search(rf"\brow {row}\b", str(eager.value))
        return
    eager, lazy = fit(frame), fit(_dask_partitions(frame))
    assert (lazy.n_unknown_, lazy.n_samples_seen_) == (5, 30)
    assert (eager.n_unknown_, eager.n_samples_seen_) == (5, 30)


def _identical_rows():
    return np.ones((60, 2))


def _huge_interval_row():
    return _with(_with(intervals(60), 33, 0, 1e300), 33, 1, 1e300)


def _huge_value():
    return _with(numeric(60, 1), 33, 0, 1e300)


DASK_AS_IN_MEMORY = {
    # 60 equal rows, pooled into one distinct row across partitions
    "interval_mle_identical_rows": (
        IntervalMLE,
        _identical_rows,
        r"single distinct exact value \(60 rows\)",
    ),
    "interval_mle_huge_row": (IntervalMLE, _huge_interval_row, r"\bX\b.*row 33"),
    # the records' range sets the grid of the dask fit: 1e300 overflowed it
    "deconvolution_density_huge_value": (
        lambda: DeconvolutionKernelDensity(bandwidth=0.1, noise_scale=0.1),
        _huge_value,
        r"\bX\b.*row 33",
    ),
}


@pytest.mark.parametrize("case", sorted(DASK_AS_IN_MEMORY))
@pytest.mark.parametrize("container", ["dask_array", "dask_frame"])
def test_dask_error_as_in_memory(case, container):
    """The refusal of a dask fit is the in-memory one, row numbered in the data."""
    import dask

    make, data, expected = DASK_AS_IN_MEMORY[case]
    X = data()
    lazy = (
        _dask_array(X) if container == "dask_array" else _dask_frame(X, (0, 20, None))
    )
    with pytest.raises(ValueError) as eager:
        make().fit(_frame(X))
    with dask.config.set(scheduler="synchronous"), pytest.raises(ValueError) as info:
        make().fit(lazy)
    assert re.search(expected, str(eager.value)), str(eager.value)
    assert str(info.value) == str(eager.value)


@pytest.mark.parametrize("make", [IntervalNPMLE, IntervalMLE])
def test_dask_array_with_a_string_entry_names_its_row_in_the_data(make):
    """A string in a dask block is named by its row in the whole data."""
    import dask
    import dask.array as da

    Z = np.column_stack([np.arange(60.0), np.arange(60.0) + 1]).astype(object)
    Z[33, 0] = "SECRET"
    with pytest.raises(TypeError) as eager:
        make().fit(Z)
    lazy = da.from_array(Z, chunks=(20, 2))
    with dask.config.set(scheduler="synchronous"), pytest.raises(TypeError) as info:
        make().fit(lazy)
    assert str(eager.value) == (
        "X column 0 must be numeric; row 33 holds a str that is not a number."
    )
    assert str(info.value) == str(eager.value)


def test_dask_frame_with_a_string_column_is_named_as_in_memory():
    """A text column of a dask frame is refused by name and dtype, as in memory."""
    import dask.dataframe as dd

    frame = pd.DataFrame({"age": np.linspace(0.0, 1.0, 20), "city": ["a", "b"] * 10})
    lazy = dd.from_pandas(frame, npartitions=3)
    make = lambda: DeconvolutionKernelDensity(bandwidth=0.1, noise_scale=0.1)  # noqa: E731
    with pytest.raises(TypeError, match=r"X column 'city' must be numeric") as eager:
        make().fit(frame)
    with pytest.raises(TypeError, match=r"X column 'city' must be numeric; got dtype"):
        make().fit(lazy)
    assert "row 0" in str(eager.value)


# ---------------------------------------------------------------------------
# Methods of fitted estimators with scalar arguments
# ---------------------------------------------------------------------------


@functools.cache
def _fitted_population(name):
    """One fit per estimator: the methods below only read it."""
    spec = ESTIMATOR_SPECS[name]
    est = spec["make"]()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if spec["kind"] == "interval":
            return est.fit(intervals())
        if spec["kind"] == "subset_learner":
            return est.fit(subset_reports())
        return est.fit(_spec_X(spec))


POPULATION = sorted(
    name
    for name, cls in all_estimators()
    if hasattr(cls, "moment") and name in ESTIMATOR_SPECS
)
METHOD_VARIANTS = {
    ("moment", "k"): {
        "negative": -1,
        "zero": 0,
        "fractional": 1.5,
        "nan": float("nan"),
        "string": "2",
        "bool": True,
    },
    ("sample", "n_samples"): {
        "negative": -1,
        "fractional": 1.5,
        "string": "3",
        "bool": True,
    },
    ("quantile", "q"): {"above_one": 1.5, "nan": float("nan"), "string": "x"},
    ("cdf", "x"): {"nan": float("nan"), "string": "x"},
}
METHOD_CELLS = [
    (name, method, arg, variant)
    for name in POPULATION
    for (method, arg), variants in METHOD_VARIANTS.items()
    for variant in variants
]


@pytest.mark.parametrize(
    "name, method, arg, variant",
    METHOD_CELLS,
    ids=[f"{a}-{b}-{d}" for a, b, _, d in METHOD_CELLS],
)
def test_population_methods(name, method, arg, variant):
    est = _fitted_population(name)
    value = METHOD_VARIANTS[(method, arg)][variant]
    expected = r"\b" + arg + r"\b"
    if (method, variant) == ("moment", "zero"):
        assert getattr(est, method)(value) == pytest.approx(1.0)  # E[X^0]
        return
    _assert_outcome(expected, lambda: getattr(est, method)(value), arg=arg)


@pytest.mark.parametrize(
    "value", [-1, 1.5, "3", True, float("nan")], ids=lambda v: repr(v)
)
def test_draw_questions_count(value):
    _assert_outcome(
        r"\bn_questions\b", lambda: design().draw_questions(value, random_state=0)
    )


# ---------------------------------------------------------------------------
# Parameters at the far end of their range, and single cases of the issue
# ---------------------------------------------------------------------------


def _far_cells():
    """Every real parameter set near 0 and very large, within its constraint."""
    cells = []
    for name, cls in all_estimators():
        if name not in ESTIMATOR_SPECS:
            continue
        for param, constraints in sorted(cls._parameter_constraints.items()):
            if constraints == "no_validation":
                continue
            reals = [
                c
                for c in constraints
                if isinstance(c, Interval) and c.type is numbers.Real
            ]
            for label, value in (("tiny", 1e-12), ("huge", 1e12)):
                if any(c.is_satisfied_by(value) for c in reals):
                    cells.append((name, param, label))
    return cells


FAR_CELLS = _far_cells()
FAR_VALUES = {"tiny": 1e-12, "huge": 1e12}


@pytest.mark.parametrize(
    "name, param, label", FAR_CELLS, ids=[f"{a}-{b}-{c}" for a, b, c in FAR_CELLS]
)
def test_parameter_far_in_range(name, param, label):
    """A value the constraint accepts gives an answer or an error naming it."""
    spec = ESTIMATOR_SPECS[name]
    est = spec["make"]().set_params(**{param: FAR_VALUES[label]})
    X = intervals() if spec["kind"] == "interval" else _spec_X(spec)
    if spec["kind"] == "subset_learner":
        X = subset_reports()
    if spec["kind"] == "subset_privatizer":
        X = categorical()
    y = spec["y"](np.asarray(X, dtype=float)) if spec["kind"] == "learner" else None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = _fit_and_use(est, spec, X, y)
    except (ValueError, TypeError) as exc:
        message = str(exc)
        assert re.search(rf"\b{param}\b", message), (
            f"a refusal must name {param!r}: {message!r}"
        )
        return
    if spec["kind"] in ("privatizer", "learner"):
        _check_output(out, len(X))


ISSUE_CASES = {
    # LaplaceLDP: the budget is too small for the grid, not too large.
    "laplace_secure_tiny_epsilon": (
        lambda: LaplaceLDP(bounds=(0, 1), secure=True, epsilon=1e-10).fit(numeric()),
        r"epsilon=1e-10.*so small a budget.*epsilon >=",
    ),
    "generalized_gaussian_huge_power": (
        lambda: GeneralizedGaussianLDP(bounds=(0, 1), power=1e6).fit(numeric()),
        r"power=1e\+06",
    ),
    "integral_n_jobs_zero": (
        lambda: IntegralPrivateStatistics(n_jobs=0, n_resamples=5).fit(numeric()),
        r"'n_jobs' parameter",
    ),
    "integral_sums_overflow": (
        lambda: IntegralPrivateStatistics(
            statistics=("mean", "var"), n_resamples=5
        ).fit(np.full((40, 1), 1e300)),
        r"column 'x0'.*row 0",
    ),
    "iterative_constant_exact_y": (
        lambda: IterativeIntervalRegressor().fit(numeric(), np.ones(N)),
        r"\by holds a single distinct exact value",
    ),
    "iterative_value_privatizer": (
        lambda: IterativeIntervalRegressor(privatizer=LaplaceLDP(bounds=(-5, 5))).fit(
            numeric(), numeric()[:, 0]
        ),
        r"privatizer must be an interval mechanism.*LaplaceLDP",
    ),
    "iterative_string_y": (
        lambda: IterativeIntervalRegressor(privatizer=IntervalCaseI()).fit(
            numeric(), np.array(["a"] * N)
        ),
        r"\by\b.*row 0",
    ),
    "subset_float16_categories": (
        lambda: SubsetUniform(categories=[np.array([0.5, 1.5], np.float16)]).fit(
            pd.DataFrame({"x": np.array([0.5, 1.5] * 5, np.float16)})
        ),
        VALID,
    ),
    # An exact value of 1e300: its square overflows the scale's estimate.
    "interval_mle_huge_row": (
        lambda: IntervalMLE().fit(_with(_with(intervals(), 3, 0, 1e300), 3, 1, 1e300)),
        r"\bX\b.*row 3",
    ),
    "interval_npmle_huge_row": (
        lambda: IntervalNPMLE().fit(
            _with(_with(intervals(), 3, 0, 1e300), 3, 1, 1e300)
        ),
        VALID,
    ),
}


@pytest.mark.parametrize("case", sorted(ISSUE_CASES))
def test_issue_cases(case):
    call, expected = ISSUE_CASES[case]
    _assert_outcome(expected, call)


def test_wide_deconvolution_density_warns_on_overflow():
    """120 features, 121 rows: the density overflows; say so, do not return inf.

    (Fewer rows than features are refused by fit.)
    """
    X = np.random.default_rng(0).normal(size=(121, 120))
    est = DeconvolutionKernelDensity(bandwidth=0.001, noise_scale=0.002).fit(X)
    with pytest.warns(RuntimeWarning, match="overflow"):
        scores = est.score_samples(X)
    assert not np.any(np.isposinf(scores))


@pytest.mark.parametrize("cls", [GeneralizedGaussianLDP, FlippedHuberLDP])
def test_equal_columns_share_one_calibration(cls, monkeypatch):
    """1000 columns with shared bounds: one root search, not one per column."""
    from skprivate.ldp import _additive

    name = (
        "_generalized_gaussian_scale"
        if cls is GeneralizedGaussianLDP
        else "_flipped_huber_threshold"
    )
    calls = []
    original = getattr(_additive, name)

    def counted(*args):
        calls.append(args[0])
        return original(*args)

    monkeypatch.setattr(_additive, name, counted)
    X = np.random.default_rng(0).uniform(0, 1, (4, 1000))
    wide = cls(bounds=(0, 1), epsilon=50.0, random_state=0).fit(X)
    assert len(calls) == 1
    # two widths: two calibrations, each column with the scale of its width
    calls.clear()
    bounds = ([0.0] * 1000, [1.0] * 500 + [2.0] * 500)
    two = cls(bounds=bounds, epsilon=50.0, random_state=0).fit(X)
    assert sorted(calls) == [1.0, 2.0]
    # the per-column budget of 1000 columns, on one column
    one = cls(bounds=(0, 1), epsilon=0.05, delta=1e-8, random_state=0).fit(X[:, :1])
    assert wide.scale_[0] == pytest.approx(one.scale_[0], rel=1e-9)
    assert np.all(wide.scale_ == wide.scale_[0])
    assert np.all(two.scale_[:500] == wide.scale_[0])
    assert two.scale_[500] != two.scale_[0]
    assert wide.transform(X).shape == X.shape
