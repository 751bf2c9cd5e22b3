"""The privacy contract every privatizer keeps, however it is called.

Privatizers are discovered with :func:`skprivate.utils.all_estimators` and
filtered on :class:`~skprivate.base.PrivatizerMixin`, so a new mechanism is
covered with no edit here beyond one entry in ``CONFIGS`` (a small valid
configuration); a discovered privatizer without one fails
``test_every_privatizer_has_a_config``.

Checked for every privatizer:

* fresh noise per call: two ``transform`` calls on the same input differ,
  and refitting does not restart the noise;
* reproducible sequence: two fresh instances (or clones) with the same int
  seed give identical call 1 and identical call 2, and call 1 != call 2;
* learners with ``privatizer=``: two fits on different data share no noise,
  and a fresh learner with the same seed reproduces a fit;
* no raw value in a fitted privatizer: the data hold sentinel values
  (unusual floats, or a unique string for categorical privatizers) and
  ``pickle.dumps`` of the fitted object and its ``vars()``, walked
  recursively, must not contain any.  Documented exception: categories
  that the user declared (``categories=``) are public by declaration and
  are stored; the sentinel string of the categorical data is *not* among
  them (``handle_unknown="ignore"``);
* nothing of the data in the fitted state: with the law declared, every
  public attribute (and its pickle) and the privacy summary are the same
  after a fit on other data of the same shape;
* parameters outside the guarantee are refused in ``fit``: every real
  parameter with an interval constraint refuses inf and NaN, ``epsilon``,
  noise scales and ``d`` refuse 0 and negatives, ``delta`` refuses 0 and 1.
"""

from __future__ import annotations

import numbers
import pickle
import struct
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import BaseEstimator, clone

from skprivate import (
    BinaryLocalHashing,
    FlippedHuberLDP,
    FrequencyOracle,
    GeneralizedGaussianLDP,
    GeneralizedRandomizedResponse,
    HadamardResponse,
    IntervalCaseI,
    IntervalCaseII,
    IntervalEnsemble,
    IntervalMechanism,
    LaplaceLDP,
    LongitudinalOracle,
    OptimizedLocalHashing,
    OptimizedUnaryEncoding,
    RVNSPerturber,
    SquareWaveLDP,
    SubsetMechanism,
    SubsetUniform,
    SymmetricUnaryEncoding,
)
from skprivate.base import PrivatizedInputMixin, PrivatizerMixin
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.utils import Interval, all_estimators

PRIVATIZERS = sorted(
    (name, cls) for name, cls in all_estimators() if issubclass(cls, PrivatizerMixin)
)

NUMERIC_SENTINELS = (12345.678901, 7654.3210987, 15001.000123)
BOUNDS = (0.0, 20000.0)
STRING_SENTINEL = "raw-only-sentinel-93af"
CATEGORIES = ["cat-a", "cat-b", "cat-c", "cat-d", "cat-e"]
N_ROWS = 200

# name -> (factory(random_state) -> unfitted privatizer, kind of data)
CONFIGS = {
    "LaplaceLDP": (
        lambda rs: LaplaceLDP(epsilon=1.0, bounds=BOUNDS, random_state=rs),
        "numeric",
    ),
    "SquareWaveLDP": (
        lambda rs: SquareWaveLDP(epsilon=1.0, bounds=BOUNDS, random_state=rs),
        "numeric",
    ),
    "GeneralizedGaussianLDP": (
        lambda rs: GeneralizedGaussianLDP(
            epsilon=1.0, delta=1e-3, bounds=BOUNDS, random_state=rs
        ),
        "numeric",
    ),
    "FlippedHuberLDP": (
        lambda rs: FlippedHuberLDP(
            epsilon=1.0, delta=1e-3, bounds=BOUNDS, random_state=rs
        ),
        "numeric",
    ),
    "RVNSPerturber": (
        lambda rs: RVNSPerturber(d=100.0, k=2, bounds=BOUNDS, random_state=rs),
        "numeric",
    ),
    "IntervalCaseI": (
        lambda rs: IntervalCaseI(anchor_loc=10000, anchor_scale=3000, random_state=rs),
        "numeric",
    ),
    "IntervalCaseII": (
        lambda rs: IntervalCaseII(anchor_loc=10000, anchor_scale=3000, random_state=rs),
        "numeric",
    ),
    "IntervalMechanism": (
        lambda rs: IntervalMechanism(
            n_anchors=3, anchor_loc=10000, anchor_scale=3000, random_state=rs
        ),
        "numeric",
    ),
    "IntervalEnsemble": (
        lambda rs: IntervalEnsemble(
            [
                IntervalCaseI(anchor_loc=10000, anchor_scale=3000),
                IntervalCaseII(anchor_loc=10000, anchor_scale=3000),
            ],
            random_state=rs,
        ),
        "numeric",
    ),
    "SubsetUniform": (
        lambda rs: SubsetUniform(
            categories=[CATEGORIES], handle_unknown="ignore", random_state=rs
        ),
        "categorical",
    ),
    "SubsetMechanism": (
        lambda rs: SubsetMechanism(
            categories=[CATEGORIES], handle_unknown="ignore", random_state=rs
        ),
        "categorical",
    ),
    **{
        cls.__name__: (
            lambda rs, cls=cls: cls(
                categories=[CATEGORIES], handle_unknown="ignore", random_state=rs
            ),
            "categorical",
        )
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
    "LongitudinalOracle": (
        lambda rs: LongitudinalOracle(
            waves=2, categories=[CATEGORIES], handle_unknown="ignore", random_state=rs
        ),
        "categorical",
    ),
}

# Attributes holding values the user declared, which may equal data values.
DECLARED = {"categories", "categories_"}


def _data(kind: str, seed: int = 0) -> np.ndarray:
    rng = np.random.default_rng(seed)
    if kind == "categorical":
        X = rng.choice(CATEGORIES, size=(N_ROWS, 1)).astype(object)
        X[7, 0] = STRING_SENTINEL
        return X
    X = rng.uniform(1000, 19000, size=(N_ROWS, 2))
    X[3, 0], X[11, 1], X[17, 0] = NUMERIC_SENTINELS
    return X


def _make(name, random_state=None):
    factory, kind = CONFIGS[name]
    return factory(random_state), kind


def _release(privatizer, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return np.asarray(privatizer.transform(X))


def _fit(privatizer, X):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return privatizer.fit(X)


def _equal(a, b) -> bool:
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


names = pytest.mark.parametrize("name", [n for n, _ in PRIVATIZERS])


def test_discovery_finds_the_known_privatizers():
    found = {n for n, _ in PRIVATIZERS}
    assert {"LaplaceLDP", "SquareWaveLDP", "SubsetUniform", "IntervalCaseI"} <= found


@names
def test_every_privatizer_has_a_config(name):
    assert name in CONFIGS, (
        f"{name} is a privatizer without an entry in CONFIGS of "
        "tests/test_privacy_contract.py; add a small valid configuration."
    )


# -- fresh noise per call -----------------------------------------------------
@names
@pytest.mark.parametrize("random_state", [0, None, "generator"])
def test_fresh_noise_on_every_call(name, random_state):
    if random_state == "generator":
        random_state = np.random.default_rng(5)
    privatizer, kind = _make(name, random_state)
    X = _data(kind)
    _fit(privatizer, X)
    first, second = _release(privatizer, X), _release(privatizer, X)
    assert not _equal(first, second), f"{name} drew the same noise twice"
    # refitting must not restart the stream either
    _fit(privatizer, X)
    third = _release(privatizer, X)
    assert not _equal(first, third) and not _equal(second, third)


def test_difference_attack_on_laplace_fails():
    # Issue 14, finding 1: m.transform(X1) - m.transform(X2) == X1 - X2.
    X1 = _data("numeric", 1)
    X2 = _data("numeric", 2)
    for secure in (False, True):
        m = LaplaceLDP(epsilon=0.1, bounds=BOUNDS, random_state=0, secure=secure)
        m.fit(X1)
        diff = m.transform(X1) - m.transform(X2)
        assert not np.allclose(diff, X1 - X2, atol=1.0)


def _two_epsilon_attack(first, second, X):
    """Recover X from releases at epsilon 1 and 2: (b2 y1 - b1 y2) / (b2 - b1)."""
    y1 = first.fit(X).transform(X)
    y2 = second.fit(X).transform(X)
    b1, b2 = first.scale_, second.scale_
    return (b2 * y1 - b1 * y2) / (b2 - b1)


@pytest.mark.parametrize("secure", [True, False])
def test_same_seed_at_two_settings_draws_independent_noise(secure):
    """One seed, two epsilons: the same standard noise would reveal X exactly."""
    X = np.random.default_rng(0).uniform(0, 10, size=(2000, 1))

    def make(eps):
        return LaplaceLDP(epsilon=eps, bounds=(0, 10), random_state=0, secure=secure)

    # the attack works when both releases share their standard noise
    noise = np.random.default_rng(0).laplace(size=X.shape)
    y1, y2 = X + 10.0 * noise, X + 5.0 * noise
    assert np.allclose((5.0 * y1 - 10.0 * y2) / (5.0 - 10.0), X)
    # now: the settings enter the root, so the noise is independent
    recovered = _two_epsilon_attack(make(1.0), make(2.0), X)
    assert np.median(np.abs(recovered - X)) > 5.0  # noise scales 10 and 5
    # same settings and seed still reproduce the sequence
    a, b = make(2.0).fit(X), make(2.0).fit(X)
    assert np.array_equal(a.transform(X), b.transform(X))
    assert np.array_equal(a.transform(X), b.transform(X))


def test_settings_fingerprint_is_stable_across_processes():
    import subprocess
    import sys

    from skprivate.base import _settings_fingerprint

    code = (
        "from skprivate import LaplaceLDP;"
        "from skprivate.base import _settings_fingerprint as f;"
        "print(f(LaplaceLDP(epsilon=2, bounds=(0, 10))))"
    )
    import os
    from pathlib import Path

    import skprivate

    root = str(Path(skprivate.__file__).resolve().parents[1])
    env = {**os.environ, "PYTHONPATH": root, "PYTHONHASHSEED": "123"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    )
    here = _settings_fingerprint(LaplaceLDP(epsilon=2.0, bounds=[0, 10]))
    assert int(out.stdout) == here  # 2 == 2.0 and (0, 10) == [0, 10]
    other = _settings_fingerprint(LaplaceLDP(epsilon=2.5, bounds=(0, 10)))
    assert other != here
    seeded = LaplaceLDP(epsilon=2, bounds=(0, 10), random_state=3)
    assert _settings_fingerprint(seeded) == here  # random_state is left out


@names
def test_reproducible_sequence_with_an_int_seed(name):
    a, kind = _make(name, 7)
    b, _ = _make(name, 7)
    X = _data(kind)
    _fit(a, X)
    _fit(b, X)
    a1, a2 = _release(a, X), _release(a, X)
    b1, b2 = _release(b, X), _release(b, X)
    assert _equal(a1, b1) and _equal(a2, b2)
    assert not _equal(a1, a2)
    # a clone restarts the same sequence; another seed gives another one
    c = _fit(clone(a), X)
    assert _equal(_release(c, X), a1)
    d = _fit(clone(a).set_params(random_state=8), X)
    assert not _equal(_release(d, X), a1)


@names
def test_fit_transform_follows_the_rule(name):
    a, kind = _make(name, 3)
    b, _ = _make(name, 3)
    X = _data(kind)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        a1 = np.asarray(a.fit_transform(X))
        a2 = np.asarray(a.fit_transform(X))
        b1 = np.asarray(b.fit_transform(X))
    assert _equal(a1, b1) and not _equal(a1, a2)


@names
def test_random_state_change_restarts_the_stream(name):
    privatizer, kind = _make(name, 1)
    X = _data(kind)
    first = _release(_fit(privatizer, X), X)
    privatizer.set_params(random_state=2)
    other = _release(_fit(privatizer, X), X)
    privatizer.set_params(random_state=1)
    again = _release(_fit(privatizer, X), X)
    assert _equal(first, again) and not _equal(first, other)
    # setting the same value again is an explicit request to replay
    privatizer.set_params(random_state=1)
    assert _equal(_release(_fit(privatizer, X), X), first)
    assert not _equal(_release(_fit(privatizer, X), X), first)


# -- learners with privatizer= ------------------------------------------------
class _Recorder(PrivatizedInputMixin, BaseEstimator):
    """A minimal learner that keeps what its privatizer released."""

    def __init__(self, privatizer=None):
        self.privatizer = privatizer

    def fit(self, X, y=None):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.released_ = np.asarray(self._privatize(X))
        return self


@names
def test_learners_draw_fresh_noise_per_fit_and_reproduce(name):
    privatizer, kind = _make(name, 11)
    X1 = _data(kind)
    X2 = X1.copy()
    X2[0] = X1[1]  # one record differs; the other rows are the same
    learner = _Recorder(privatizer)
    r1 = learner.fit(X1).released_
    r2 = learner.fit(X2).released_
    assert not _equal(r1[2:], r2[2:]), "two fits on different data shared noise"
    # the same seed on the same data reproduces, as scikit-learn expects
    assert _equal(_Recorder(clone(privatizer)).fit(X1).released_, r1)
    assert _equal(learner.fit(X1).released_, r1)
    # another privacy setting with the same seed does not reuse the noise
    params = privatizer.get_params(deep=False)
    for key in ("epsilon", "d", "scale"):
        if key in params:
            other = clone(privatizer).set_params(**{key: params[key] * 0.5})
            assert not _equal(_Recorder(other).fit(X1).released_, r1)


@names
def test_learner_partial_fit_chunks_continue_the_stream(name):
    privatizer, kind = _make(name, 4)
    X = _data(kind)
    learner = _Recorder(privatizer).fit(X)
    chunk1 = _release(learner.privatizer_, X)
    chunk2 = _release(learner.privatizer_, X)
    assert not _equal(chunk1, chunk2)
    assert not _equal(chunk1, learner.released_)


# -- no raw value in a fitted privatizer --------------------------------------
def _walk(obj, path, seen, found, sentinels):
    if id(obj) in seen:
        return
    seen.add(id(obj))
    if isinstance(obj, str):
        if any(isinstance(s, str) and s in obj for s in sentinels):
            found.append(path)
        return
    if isinstance(obj, numbers.Real) and not isinstance(obj, bool):
        if any(not isinstance(s, str) and obj == s for s in sentinels):
            found.append(path)
        return
    if isinstance(obj, np.ndarray):
        if obj.dtype == object:
            for i, v in enumerate(obj.ravel()):
                _walk(v, f"{path}[{i}]", seen, found, sentinels)
        elif obj.dtype.kind in "fiu":
            floats = [s for s in sentinels if not isinstance(s, str)]
            if floats and np.isin(obj, floats).any():
                found.append(path)
        elif obj.dtype.kind in "US":
            for i, v in enumerate(obj.ravel().tolist()):
                _walk(v, f"{path}[{i}]", seen, found, sentinels)
        return
    if isinstance(obj, dict):
        for k, v in obj.items():
            _walk(k, f"{path}.key", seen, found, sentinels)
            _walk(v, f"{path}[{k!r}]", seen, found, sentinels)
        return
    if isinstance(obj, list | tuple | set | frozenset):
        for i, v in enumerate(obj):
            _walk(v, f"{path}[{i}]", seen, found, sentinels)
        return
    if isinstance(obj, pd.DataFrame | pd.Series | pd.Index):
        _walk(np.asarray(obj), path, seen, found, sentinels)
        return
    if hasattr(obj, "__dict__") and not isinstance(obj, type):
        for k, v in vars(obj).items():
            _walk(v, f"{path}.{k}", seen, found, sentinels)


@names
@pytest.mark.parametrize("frame", [False, True], ids=["ndarray", "DataFrame"])
def test_no_raw_value_in_fitted_privatizer_or_pickle(name, frame):
    privatizer, kind = _make(name, 0)
    X = _data(kind)
    if frame:
        X = pd.DataFrame(X, columns=[f"c{j}" for j in range(X.shape[1])])
    _fit(privatizer, X)
    _release(privatizer, X)
    sentinels = (STRING_SENTINEL,) if kind == "categorical" else NUMERIC_SENTINELS
    found = []
    for key, value in vars(privatizer).items():
        if key not in DECLARED:
            _walk(value, key, set(), found, sentinels)
    assert not found, f"{name} stores raw values in {found}"
    blob = pickle.dumps(privatizer)
    if kind == "categorical":
        assert STRING_SENTINEL.encode() not in blob
    else:
        for s in NUMERIC_SENTINELS:
            assert struct.pack("<d", s) not in blob, f"{name} pickles {s}"
            assert repr(s).encode() not in blob


def _other_data(kind: str) -> np.ndarray:
    """Data of the same shape as ``_data(kind)``, as different as allowed."""
    if kind == "categorical":
        return np.full((N_ROWS, 1), CATEGORIES[-1], dtype=object)
    X = np.full((N_ROWS, 2), 10000.0)
    X[::2] = 19999.0
    return X


@names
def test_fitted_state_does_not_depend_on_the_data(name):
    # With its law declared, a privatizer keeps nothing of the data beyond
    # their shape: every attribute, the pickle of each one, and the
    # privacy summary published with a release are the same after a fit on
    # other data.  The private noise state, which differs between two fits
    # on the same data too, is left out.
    privatizer, kind = _make(name, 0)
    fits = [
        _fit(_make(name, 0)[0], X)
        for X in (_data(kind), _data(kind), _other_data(kind))
    ]
    states = [{k: pickle.dumps(v) for k, v in vars(p).items()} for p in fits]
    assert states[0].keys() == states[2].keys()
    per_fit = {k for k in states[0] if states[0][k] != states[1][k]}
    assert all(k.startswith("_") for k in per_fit), per_fit
    differ = [k for k in states[0] if k not in per_fit and states[0][k] != states[2][k]]
    assert not differ, f"{name} keeps something of the data in {differ}"
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if hasattr(privatizer, "privacy_summary"):
            assert fits[0].privacy_summary() == fits[2].privacy_summary()


def test_auto_categories_warn_and_declared_do_not():
    X = np.array([["a"], ["b"], ["c"], ["d"], ["only-one-respondent"]], dtype=object)
    for cls in (SubsetUniform, SubsetMechanism):
        with pytest.warns(PrivacyLeakWarning, match=r"categories=\[\[\.\.\.\]"):
            cls(random_state=0).fit(X)
        with warnings.catch_warnings():
            warnings.simplefilter("error", PrivacyLeakWarning)
            cls(
                categories=[["a", "b", "c", "d", "e"]],
                handle_unknown="ignore",
                random_state=0,
            ).fit(X)


# -- parameters outside the guarantee ------------------------------------------
def _real_interval(constraints):
    return [
        c for c in constraints if isinstance(c, Interval) and c.type is numbers.Real
    ]


def _bad_values(name, interval):
    bad = [float("nan")]
    if not interval.allow_inf:
        bad += [float("inf"), float("-inf")]
    if interval.left == 0:
        bad += [-1.0]
        if interval.closed in ("right", "neither"):
            bad += [0.0]
    if interval.right == 1 and interval.closed in ("left", "neither"):
        bad += [1.0]
    return bad


@names
def test_parameters_outside_the_guarantee_are_refused(name):
    privatizer, kind = _make(name, 0)
    X = _data(kind)
    checked = []
    for param, constraints in type(privatizer)._parameter_constraints.items():
        for interval in _real_interval(constraints):
            for value in _bad_values(param, interval):
                bad = clone(privatizer).set_params(**{param: value})
                with pytest.raises((ValueError, TypeError), match=param):
                    _fit(bad, X)
                checked.append(param)
            if "array-like" in constraints:
                bad = clone(privatizer).set_params(**{param: [float("inf")]})
                with pytest.raises((ValueError, TypeError), match=param):
                    _fit(bad, X)
    for required in ("epsilon", "delta"):
        if required in privatizer.get_params():
            assert required in checked, f"{name}.{required} is not range-checked"
    if "bounds" in privatizer.get_params():
        for bounds in ((0.0, np.inf), (np.nan, 1.0), (-np.inf, 0.0)):
            with pytest.raises(ValueError, match="bounds"):
                _fit(clone(privatizer).set_params(bounds=bounds), X)


def test_ensemble_members_are_validated():
    for bad in (np.inf, np.nan, 0.0):
        ens = IntervalEnsemble([IntervalCaseI(scale=bad)])
        with pytest.raises(ValueError, match="scale"):
            ens.fit(np.zeros((3, 1)))


@pytest.mark.parametrize(
    "make",
    [
        lambda e: LaplaceLDP(epsilon=e, bounds=(0, 10)),
        lambda e: LaplaceLDP(epsilon=e, bounds=(0, 10), secure=True),
        lambda e: FlippedHuberLDP(epsilon=e, bounds=(0, 10)),
        lambda e: GeneralizedGaussianLDP(epsilon=e, bounds=(0, 10)),
        lambda e: SquareWaveLDP(epsilon=e, bounds=(0, 10)),
    ],
)
@pytest.mark.parametrize("epsilon", [np.inf, float("1e999"), np.nan, 0.0, -1.0])
def test_issue_14_infinite_epsilon_is_refused(make, epsilon):
    # Issue 14, finding 4: epsilon=inf returned the raw 3.14159 (Laplace) or
    # died with ZeroDivisionError (FlippedHuber).
    with pytest.raises(ValueError, match="'epsilon' parameter"):
        make(epsilon).fit_transform([[3.14159]])


@pytest.mark.parametrize(
    "make",
    [
        lambda d: FlippedHuberLDP(epsilon=1.0, delta=d, bounds=(0, 10)),
        lambda d: GeneralizedGaussianLDP(epsilon=1.0, delta=d, bounds=(0, 10)),
    ],
)
@pytest.mark.parametrize("delta", [0.0, 1.0, 1.5, -0.1, np.nan, np.inf])
def test_delta_outside_zero_one_is_refused(make, delta):
    with pytest.raises(ValueError, match="'delta' parameter"):
        make(delta).fit_transform([[3.0]])
