"""Methods called after ``fit`` work from the release alone.

A learner given ``privatizer=`` receives raw data in ``fit`` and privatizes
it itself.  The data a user holds afterwards are those raw values, so a
method that took data again (``conf_int`` and its bootstrap) would compute
its output from them: fitting on a sample and on the same sample without
record 0 and differencing the two interval centres gives record 0 back
(exactly for the noisy mean, a known multiple of it for the Square Wave and
negative-survey moment estimators), and the interval regressor's Wald
interval computed from the raw responses is about half as wide as the one
its released intervals support.

Checked here for every learner with ``privatizer=`` support:

* data offered to ``conf_int`` (the raw values, or anything else) is
  refused with a ``ValueError`` that says why, so the differencing attack
  above has nothing to difference;
* ``conf_int()`` without data uses the kept release ``released_``, which
  is the true release (an independent clone of the seeded privatizer
  reproduces it) and gives the frame that a learner fitted on that release
  without ``privatizer=`` gives with ``X=release`` (to 1e-12);
* the fitted learner and its pickle hold no raw value;
* ``clone``, ``set_params``, ``partial_fit`` and dask fits keep the rule;
* the planning helpers work from releases and say when a reference sample
  is treated as public.
"""

from __future__ import annotations

import pickle
import struct
import warnings
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import clone

from skprivate import (
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    FrequencyEstimator,
    FrequencyOracle,
    IntervalCaseII,
    IterativeIntervalRegressor,
    LaplaceLDP,
    RVNSDensityEstimator,
    RVNSPerturber,
    SubsetDistributionEstimator,
    SubsetUniform,
    expected_half_width,
    plan_sample_size,
    privacy_report,
)
from skprivate.base import PrivatizedInputMixin
from skprivate.exceptions import PrivacyLeakWarning
from skprivate.ldp import PerturbedKDEEstimator, SquareWaveEMSEstimator, SquareWaveLDP
from skprivate.utils import all_estimators

N = 200
RECORD = 98.765  # record 0, the one the differencing attack is after
SENTINELS = (12.3456789012, 76.5432109876, 55.5555500001)
CATEGORIES = ["a", "b", "c", "d", "e"]
STRING_SENTINEL = "raw-only-sentinel-5e1c"
BOOT = {"method": "bootstrap", "n_resamples": 8, "random_state": 0}


@dataclass
class Case:
    """One learner with ``privatizer=``: how to fit it and what to compare."""

    learner: Any  # privatizer -> unfitted learner
    privatizer: Any  # () -> seeded privatizer
    data: Any  # rng -> (X, y); raw values
    reference: Any  # (fitted learner, release) -> unfitted learner, no privatizer
    calls: list  # (kind, points, kwargs) of conf_int
    privatizes: str = "X"  # which argument of fit the privatizer releases
    needs_X: bool = False  # conf_int takes the (clean) features as X
    mean_attack: bool = False  # conf_int("mean") of the raw data gave record 0
    extra: dict = field(default_factory=dict)


def _uniform(rng):
    X = rng.uniform(0, 100, size=(N, 1))
    X[0, 0] = RECORD
    return X, None


def _regression(rng):
    X = rng.uniform(0, 1, size=(N, 1))
    return X, np.sin(3 * X[:, 0]) + 0.2 * rng.normal(size=N)


def _classification(rng):
    X = rng.uniform(0, 1, size=(N, 1))
    return X, np.where(X[:, 0] + 0.3 * rng.normal(size=N) > 0.5, "yes", "no")


def _interval_regression(rng):
    X = rng.normal(size=(N, 2))
    return X, X @ np.array([1.0, -2.0]) + rng.normal(size=N)


def _categories(rng):
    return rng.choice(CATEGORIES, size=(N, 1)).astype(object), None


def _laplace():
    return LaplaceLDP(epsilon=1.0, bounds=(0, 100), random_state=0)


CASES = {
    "DeconvolutionKernelDensity": Case(
        learner=lambda p: DeconvolutionKernelDensity(privatizer=p),
        privatizer=_laplace,
        data=_uniform,
        reference=lambda est, _: DeconvolutionKernelDensity(
            noise_scale=est.privatizer_.scale_, support=(0, 100)
        ),
        calls=[("mean", None, {}), ("cdf", [30.0, 60.0], {}), ("mean", None, BOOT)],
        mean_attack=True,
    ),
    "DeconvolutionKernelRegressor": Case(
        learner=lambda p: DeconvolutionKernelRegressor(privatizer=p, bandwidth=0.2),
        privatizer=lambda: LaplaceLDP(epsilon=2.0, bounds=(0, 1), random_state=0),
        data=_regression,
        reference=lambda est, _: DeconvolutionKernelRegressor(
            noise_scale=est.privatizer_.scale_, bandwidth=0.2
        ),
        calls=[("predict", [[0.3], [0.6]], {}), ("predict", [[0.5]], BOOT)],
    ),
    "DeconvolutionKernelClassifier": Case(
        learner=lambda p: DeconvolutionKernelClassifier(privatizer=p, bandwidth=0.2),
        privatizer=lambda: LaplaceLDP(epsilon=2.0, bounds=(0, 1), random_state=0),
        data=_classification,
        reference=lambda est, _: DeconvolutionKernelClassifier(
            noise_scale=est.privatizer_.scale_, bandwidth=0.2
        ),
        calls=[("predict_proba", [[0.3], [0.6]], {})],
    ),
    "PerturbedKDEEstimator": Case(
        learner=lambda p: PerturbedKDEEstimator(
            privatizer=p, method="paper", bandwidth=5.0, n_points=30
        ),
        privatizer=_laplace,
        data=_uniform,
        reference=lambda est, _: PerturbedKDEEstimator(
            bounds=(0, 100), method="paper", bandwidth=5.0, n_points=30
        ),
        calls=[("mean", None, BOOT), ("cdf", [50.0], BOOT)],
        mean_attack=True,
    ),
    "SquareWaveEMSEstimator": Case(
        learner=lambda p: SquareWaveEMSEstimator(privatizer=p, n_points=30),
        privatizer=lambda: SquareWaveLDP(epsilon=1.0, bounds=(0, 100), random_state=0),
        data=_uniform,
        reference=lambda est, _: SquareWaveEMSEstimator(
            epsilon=1.0, bounds=(0, 100), n_points=30
        ),
        calls=[("mean", None, {}), ("cdf", [50.0], {}), ("mean", None, BOOT)],
        mean_attack=True,
    ),
    "RVNSDensityEstimator": Case(
        learner=lambda p: RVNSDensityEstimator(privatizer=p, n_points=30),
        privatizer=lambda: RVNSPerturber(d=20.0, k=2, bounds=(0, 100), random_state=0),
        data=_uniform,
        reference=lambda est, _: RVNSDensityEstimator(
            d=20.0, bounds=(0, 100), n_points=30
        ),
        calls=[("mean", None, {}), ("cdf", [50.0], {}), ("quantile", [0.5], {})],
        mean_attack=True,
    ),
    "IterativeIntervalRegressor": Case(
        learner=lambda p: IterativeIntervalRegressor(privatizer=p),
        privatizer=lambda: IntervalCaseII(anchor_loc=0, anchor_scale=3, random_state=0),
        data=_interval_regression,
        reference=lambda est, _: IterativeIntervalRegressor(),
        calls=[
            ("predict", [[0.0, 0.0], [1.0, -1.0]], {}),
            ("predict", [[0.5, 0.5]], {**BOOT, "n_resamples": 4}),
        ],
        privatizes="y",
        needs_X=True,
    ),
    "FrequencyEstimator": Case(
        learner=lambda p: FrequencyEstimator(privatizer=p, method="norm-sub"),
        privatizer=lambda: FrequencyOracle(
            categories=[CATEGORIES], handle_unknown="ignore", random_state=0
        ),
        data=_categories,
        reference=lambda est, _: FrequencyEstimator(
            oracle=est.privatizer_, method="norm-sub"
        ),
        calls=[("pmf", None, {"method": "normal"}), ("pmf", None, BOOT)],
    ),
    "SubsetDistributionEstimator": Case(
        learner=lambda p: SubsetDistributionEstimator(privatizer=p),
        privatizer=lambda: SubsetUniform(
            categories=[CATEGORIES], handle_unknown="ignore", random_state=0
        ),
        data=_categories,
        reference=lambda est, _: SubsetDistributionEstimator(design=est.privatizer_),
        calls=[("pmf", None, {}), ("cdf", ["b", "d"], {})],
    ),
}

cases = pytest.mark.parametrize("name", sorted(CASES))


def _quiet(func, *args, **kwargs):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return func(*args, **kwargs)


def _fit(est, X, y):
    return _quiet(est.fit, X) if y is None else _quiet(est.fit, X, y)


def _fitted(name, seed=0):
    case = CASES[name]
    X, y = case.data(np.random.default_rng(seed))
    est = _fit(case.learner(case.privatizer()), X, y)
    return case, est, X, y


def _release(case, X, y):
    """The privatizer's release, reproduced by an independent seeded clone."""
    raw = X if case.privatizes == "X" else y.reshape(-1, 1)
    return np.asarray(_quiet(clone(case.privatizer()).fit_transform, raw))


def _reference(case, est, X, y, release):
    ref = case.reference(est, release)
    if case.privatizes == "y":
        return _fit(ref, X, release)
    return _fit(ref, release, y)


def _data_args(case, X, y, release):
    """The data arguments of conf_int for the reference learner."""
    if case.privatizes == "y":
        return {"X": X, "y": release}
    return {"X": release} if y is None else {"X": release, "y": y}


def test_every_learner_with_a_privatizer_is_covered():
    learners = {
        name
        for name, cls in all_estimators()
        if issubclass(cls, PrivatizedInputMixin) and hasattr(cls, "conf_int")
    }
    assert learners == set(CASES)


# -- the differencing attack ---------------------------------------------------
@cases
def test_raw_data_offered_to_conf_int_is_refused(name):
    case, est, X, y = _fitted(name)
    kind, points, _ = case.calls[0]
    keep = {"X": X} if case.needs_X else {}
    offers = [{"X": X}] if not case.needs_X else []
    if y is not None:
        offers.append({**keep, "y": y})
    for given in offers:
        with pytest.raises(ValueError) as info:
            est.conf_int(kind, points, **{**keep, **given})
        message = str(info.value)
        assert "privatizer=" in message and "released_" in message
        assert "raw values" in message
    # the release itself is refused too: the learner reads its own
    if case.privatizes == "X":
        with pytest.raises(ValueError, match="privatizer="):
            est.conf_int(kind, points, X=est.released_)


@pytest.mark.parametrize(
    "name", sorted(n for n, case in CASES.items() if case.mean_attack)
)
def test_differencing_attack_recovers_no_record(name):
    case = CASES[name]
    X, _ = case.data(np.random.default_rng(0))
    fits = [_fit(case.learner(case.privatizer()), D, None) for D in (X, X[1:])]
    for est, D in zip(fits, (X, X[1:]), strict=True):
        with pytest.raises(ValueError, match="privatizer="):
            est.conf_int("mean", X=D)
    full, less = (est.conf_int("mean")["estimate"].iloc[0] for est in fits)
    # With the kept releases the centres are functions of two releases, whose
    # noise differs in every record: their difference is far from record 0.
    assert abs(N * full - (N - 1) * less - RECORD) > 1.0


def test_interval_regressor_refuses_the_raw_responses():
    case, est, X, y = _fitted("IterativeIntervalRegressor")
    points = X[:3]
    with pytest.raises(ValueError, match="y would be the raw values"):
        est.conf_int("predict", points, X=X, y=y)
    with pytest.raises(ValueError, match="features given to fit"):
        est.conf_int("predict", points)
    release = _release(case, X, y)
    ci = est.conf_int("predict", points, X=X)
    ref = _reference(case, est, X, y, release)
    expected = ref.conf_int("predict", points, X=X, y=release)
    pd.testing.assert_frame_equal(ci, expected, rtol=1e-12, atol=1e-12)
    # the raw responses give a narrower interval than the release supports
    raw = ref.conf_int("predict", points, X=X, y=y)
    assert np.all((raw["upper"] - raw["lower"]) < 0.8 * (ci["upper"] - ci["lower"]))


# -- the kept release is the true release --------------------------------------
@cases
def test_conf_int_without_data_is_the_interval_of_the_release(name):
    case, est, X, y = _fitted(name)
    release = _release(case, X, y)
    np.testing.assert_array_equal(np.asarray(est.released_), release)
    ref = _reference(case, est, X, y, release)
    data = _data_args(case, X, y, release)
    for kind, points, kwargs in case.calls:
        own = {"X": X} if case.needs_X else {}
        got = _quiet(est.conf_int, kind, points, **own, **kwargs)
        expected = _quiet(ref.conf_int, kind, points, **data, **kwargs)
        pd.testing.assert_frame_equal(got, expected, rtol=1e-12, atol=1e-12)


def test_perturbed_kde_ml_mean_is_the_noisy_mean_of_the_release():
    X, _ = _uniform(np.random.default_rng(0))
    est = _fit(PerturbedKDEEstimator(privatizer=_laplace(), n_points=30), X, None)
    assert est.method_ == "ml"
    release = np.asarray(_laplace().fit_transform(X))[:, 0]
    ci = est.conf_int("mean").iloc[0]
    half = stats.norm.ppf(0.975) * release.std(ddof=1) / np.sqrt(N)
    assert ci["method"] == "noisy-mean"
    assert ci["estimate"] == pytest.approx(release.mean(), rel=1e-12)
    assert ci["upper"] - ci["estimate"] == pytest.approx(half, rel=1e-12)


# -- no raw value kept ---------------------------------------------------------
def _with_sentinels(name):
    case = CASES[name]
    X, y = case.data(np.random.default_rng(1))
    if name in ("SubsetDistributionEstimator", "FrequencyEstimator"):
        X[7, 0] = STRING_SENTINEL
    elif case.privatizes == "y":
        y[[3, 11, 17]] = SENTINELS
    else:  # the deconvolution learners keep their raw responses by design
        X[[3, 11, 17], 0] = np.array(SENTINELS) / (100.0 if y is not None else 1.0)
    return case, X, y


@cases
def test_fitted_learner_and_its_pickle_hold_no_raw_value(name):
    case, X, y = _with_sentinels(name)
    est = _fit(case.learner(case.privatizer()), X, y)
    blob = pickle.dumps(est)
    if name in ("SubsetDistributionEstimator", "FrequencyEstimator"):
        assert STRING_SENTINEL.encode() not in blob
        return
    raw = X if case.privatizes == "X" else y[:, None]
    sentinels = raw[[3, 11, 17], 0]
    for s in sentinels:
        assert struct.pack("<d", s) not in blob, f"{name} pickles a raw value"
        assert repr(float(s)).encode() not in blob
    assert not np.isin(np.asarray(est.released_, dtype=float), sentinels).any()


# -- clone, set_params, refit --------------------------------------------------
def test_clone_and_set_params_keep_the_rule():
    _, est, X, _ = _fitted("DeconvolutionKernelDensity")
    assert not hasattr(clone(est), "released_")
    before = est.conf_int("mean")
    # a parameter changed after fit does not change what the fit was made of
    est.set_params(privatizer=None)
    with pytest.raises(ValueError, match="privatizer="):
        est.conf_int("mean", X=X)
    pd.testing.assert_frame_equal(est.conf_int("mean"), before)
    # refitted without a privatizer, X is the user's release again
    release = est.released_
    est.set_params(noise_scale=est.privatizer_.scale_, support=(0, 100))
    _fit(est, release, None)
    assert est.released_ is None and est.privatizer_ is None
    pd.testing.assert_frame_equal(est.conf_int("mean", X=release), before)


def test_privacy_report_of_a_learner_that_keeps_its_release():
    _, est, _, _ = _fitted("DeconvolutionKernelDensity")
    report = privacy_report(est)
    row = report[report["column"] == "x0"].iloc[0]
    assert row["mechanism"] == "LaplaceLDP"
    assert row["epsilon"] == pytest.approx(1.0)


# -- partial_fit and dask ------------------------------------------------------
STREAMS = {
    "DeconvolutionKernelDensity": (
        lambda p: DeconvolutionKernelDensity(privatizer=p, bandwidth=10.0),
        lambda est: DeconvolutionKernelDensity(
            noise_scale=est.privatizer_.scale_, support=(0, 100), bandwidth=10.0
        ),
        ("mean", None),
    ),
    "SquareWaveEMSEstimator": (
        lambda p: SquareWaveEMSEstimator(privatizer=p, n_points=30),
        lambda est: SquareWaveEMSEstimator(epsilon=1.0, bounds=(0, 100), n_points=30),
        ("cdf", [50.0]),
    ),
    "SubsetDistributionEstimator": (
        lambda p: SubsetDistributionEstimator(privatizer=p),
        lambda est: SubsetDistributionEstimator(design=est.privatizer_),
        ("pmf", None),
    ),
    "FrequencyEstimator": (
        lambda p: FrequencyEstimator(privatizer=p),
        lambda est: FrequencyEstimator(oracle=est.privatizer_),
        ("pmf", None),
    ),
}


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_partial_fit_keeps_every_chunk_released(name):
    make, reference, (kind, points) = STREAMS[name]
    case = CASES[name]
    X, _ = case.data(np.random.default_rng(2))
    chunks = (X[:120], X[120:])
    est = make(case.privatizer())
    for chunk in chunks:
        _quiet(est.partial_fit, chunk)
    # the first chunk fits a clone of the privatizer, the next continue it
    mechanism = clone(case.privatizer())
    release = np.concatenate(
        [
            np.asarray(_quiet(mechanism.fit_transform, chunks[0])),
            np.asarray(_quiet(mechanism.transform, chunks[1])),
        ]
    )
    np.testing.assert_array_equal(np.asarray(est.released_), release)
    ref = _fit(reference(est), release, None)
    pd.testing.assert_frame_equal(
        _quiet(est.conf_int, kind, points),
        _quiet(ref.conf_int, kind, points, X=release),
        rtol=1e-12,
        atol=1e-12,
    )


def test_a_dask_release_is_not_kept_and_intervals_say_why():
    da = pytest.importorskip("dask.array")
    X, _ = _uniform(np.random.default_rng(3))
    est = _fit(
        DeconvolutionKernelDensity(privatizer=_laplace(), bandwidth=10.0),
        da.from_array(X, chunks=50),
        None,
    )
    assert est.released_ is None
    with pytest.raises(ValueError, match="dask collection") as info:
        est.conf_int("mean")
    assert "pass X=" not in str(info.value)
    with pytest.raises(ValueError, match="privatizer="):
        est.conf_int("mean", X=X)


# -- messages of learners fitted on the user's release ------------------------
def test_bootstrap_without_data_asks_for_the_release_not_the_fit_data():
    X, _ = _uniform(np.random.default_rng(4))
    release = _laplace().fit_transform(X)
    est = _fit(CASES["PerturbedKDEEstimator"].reference(None, None), release, None)
    with pytest.raises(ValueError) as info:
        est.conf_int("mean", **BOOT)
    message = str(info.value)
    assert "pass X=, the release the estimator was fitted on" in message
    assert "data given to fit" not in message
    # given the release, the user's data are accepted as before
    assert np.isfinite(est.conf_int("mean", X=release, **BOOT)["lower"].iloc[0])


# -- planning ------------------------------------------------------------------
def test_expected_half_width_warns_that_a_sample_reference_is_public():
    sample = np.random.default_rng(5).uniform(0, 100, size=500)
    mech = LaplaceLDP(epsilon=1.0, bounds=(0, 100))
    with pytest.warns(PrivacyLeakWarning, match="treats as public") as record:
        from_sample = expected_half_width(mech, 1000, reference=sample)
    assert [w.filename for w in record] == [__file__]
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        declared = expected_half_width(mech, 1000, reference=stats.uniform(0, 100))
        expected_half_width(mech, 1000, sd=20.0)
    assert from_sample == pytest.approx(declared, rel=0.05)


def test_plan_sample_size_warns_once_for_a_sample_reference():
    sample = np.random.default_rng(6).uniform(0, 100, size=300)
    mech = LaplaceLDP(epsilon=1.0, bounds=(0, 100))
    estimator = DeconvolutionKernelDensity(noise_scale=100.0, support=(0, 100))
    with pytest.warns(PrivacyLeakWarning) as record:
        plan_sample_size(
            mech,
            20.0,
            reference=sample,
            estimator=estimator,
            pilot_n=100,
            n_simulations=2,
        )
    leaks = [w for w in record if issubclass(w.category, PrivacyLeakWarning)]
    assert len(leaks) == 1 and leaks[0].filename == __file__


def test_planning_by_simulation_with_a_privatizing_learner_uses_its_release():
    mech = LaplaceLDP(epsilon=1.0, bounds=(0, 100))
    scale = float(clone(mech).fit(np.array([[0.0], [100.0]])).scale_[0])
    common = {
        "kind": "mean",
        "reference": stats.uniform(0, 100),
        "n_simulations": 3,
        "random_state": 7,
    }
    privatizing = DeconvolutionKernelDensity(privatizer=LaplaceLDP(epsilon=5.0))
    taking = DeconvolutionKernelDensity(noise_scale=scale, support=(0, 100))
    got = _quiet(expected_half_width, mech, 300, estimator=privatizing, **common)
    expected = _quiet(expected_half_width, mech, 300, estimator=taking, **common)
    assert got == pytest.approx(expected, rel=1e-12)
