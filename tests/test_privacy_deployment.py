"""The privacy contract as people deploy privatizers: copies, workers, seeds, threads.

Every privatizer is discovered (see :mod:`tests.test_privacy_contract`, whose
``CONFIGS`` give one small valid configuration each), so a new mechanism is
covered with no edit here.  Checked for every privatizer:

* copies of one fitted privatizer (``pickle``, ``copy.deepcopy``,
  ``joblib.dump``/``load``, joblib's process workers) never share noise when
  ``random_state=None``: two copies releasing the same rows give different
  releases;
* an int seed on other data gives other noise: two datasets that differ in
  one row get releases that differ on the other rows too (a fresh instance,
  a clone, a copy, a pipeline under cross-validation);
* a setting changed by ``set_params`` after ``fit`` makes ``transform`` and
  ``privacy_summary`` refuse until refit, while ``random_state`` may change;
* threads sharing one seeded privatizer take distinct call indices: their
  releases are exactly the releases of sequential calls, none twice.
"""

from __future__ import annotations

import copy
import importlib
import io
import pickle
import sys
import threading

import joblib
import numpy as np
import pytest
from sklearn.base import clone

from skprivate import LaplaceLDP

from .test_privacy_contract import CONFIGS, PRIVATIZERS, _data, _equal, _fit, _release

names = pytest.mark.parametrize("name", [n for n, _ in PRIVATIZERS])


def _make(name, random_state=None):
    factory, kind = CONFIGS[name]
    return factory(random_state), kind


def _other_data(kind, X):
    """``X`` with its first row changed, every other row the same."""
    Y = X.copy()
    if kind == "categorical":
        Y[0, 0] = "cat-a" if X[0, 0] != "cat-a" else "cat-b"
    else:
        Y[0] = Y[0] + 1.0
    return Y


def _joblib_copy(obj):
    buffer = io.BytesIO()
    joblib.dump(obj, buffer)
    buffer.seek(0)
    return joblib.load(buffer)


COPIERS = {
    "pickle": lambda p: pickle.loads(pickle.dumps(p)),
    "deepcopy": copy.deepcopy,
    "joblib": _joblib_copy,
}


# -- copies --------------------------------------------------------------------
@names
@pytest.mark.parametrize("how", sorted(COPIERS))
def test_copies_of_an_unseeded_privatizer_draw_independent_noise(name, how):
    privatizer, kind = _make(name, None)
    X = _data(kind)
    _fit(privatizer, X)
    first, second = COPIERS[how](privatizer), COPIERS[how](privatizer)
    a, b = _release(first, X), _release(second, X)
    assert not _equal(a, b), f"two {how} copies of {name} replayed the same noise"
    # nor does a copy replay the original's next release
    assert not _equal(_release(privatizer, X), _release(COPIERS[how](privatizer), X))


def test_laplace_copies_do_not_reveal_differences():
    """The deployment of the report: one pickle handed to two devices."""
    X = np.random.default_rng(1).uniform(0, 100, (1000, 1))
    p = LaplaceLDP(epsilon=1, bounds=(0, 100)).fit(X)
    blob = pickle.dumps(p)
    Z1 = pickle.loads(blob).transform(X[:500])
    Z2 = pickle.loads(blob).transform(X[500:])
    gap = np.abs((Z1 - Z2) - (X[:500] - X[500:]))
    # independent Laplace(100) noises: the difference is far from 0
    assert np.median(gap) > 10.0


def _release_in_worker(privatizer, X):
    return _release(privatizer, X)


def test_process_workers_draw_independent_noise():
    """joblib's default (loky) workers each receive a copy of the object."""
    jobs = []
    for name, _ in PRIVATIZERS:
        privatizer, kind = _make(name, None)
        X = _data(kind)
        _fit(privatizer, X)
        jobs += [(name, privatizer, X)] * 2
    out = joblib.Parallel(n_jobs=2, backend="loky")(
        joblib.delayed(_release_in_worker)(p, X) for _, p, X in jobs
    )
    for i in range(0, len(jobs), 2):
        name = jobs[i][0]
        assert not _equal(out[i], out[i + 1]), f"{name}: workers replayed noise"


# -- seeds on other data ---------------------------------------------------------
@names
def test_same_seed_on_other_data_draws_other_noise(name):
    a, kind = _make(name, 42)
    b, _ = _make(name, 42)
    X1 = _data(kind)
    X2 = _other_data(kind, X1)
    Z1 = _release(_fit(a, X1), X1)
    Z2 = _release(_fit(b, X2), X2)
    # shared noise would make every row but the first identical
    assert not _equal(Z1[1:], Z2[1:]), f"{name}: the seed replayed noise on new data"
    # a clone or a copy fitted on the other data likewise
    c = _fit(clone(a), X2)
    assert not _equal(_release(c, X2)[1:], Z1[1:])
    d = pickle.loads(pickle.dumps(a))
    assert not _equal(_release(d, X2)[1:], _release(a, X1)[1:])
    # while the same seed, settings and data reproduce
    e, _ = _make(name, 42)
    assert _equal(_release(_fit(e, X1), X1), Z1)


def test_pipeline_folds_share_no_noise():
    from sklearn.model_selection import KFold
    from sklearn.pipeline import make_pipeline

    X = np.random.default_rng(3).uniform(0, 100, (400, 1))
    pipe = make_pipeline(LaplaceLDP(epsilon=1, bounds=(0, 100), random_state=42))
    releases = []
    for train, _ in KFold(2).split(X):
        step = clone(pipe).fit(X[train])
        releases.append((train, step.transform(X[train])))
    (t1, z1), (t2, z2) = releases
    noise1 = z1 - X[t1]
    noise2 = z2 - X[t2]
    assert abs(np.corrcoef(noise1[:, 0], noise2[:, 0])[0, 1]) < 0.2


def test_dask_other_chunking_draws_other_noise():
    da = pytest.importorskip("dask.array")
    x = np.random.default_rng(2).uniform(0, 10, (300, 1))
    p = LaplaceLDP(epsilon=1, bounds=(0, 10), random_state=3)
    one = clone(p).fit(x).transform(da.from_array(x, chunks=(100, 1))).compute()
    two = clone(p).fit(x).transform(da.from_array(x, chunks=(150, 1))).compute()
    # the first 100 rows lie in the first partition both times, with other
    # companions: independent noise
    assert not np.allclose(one[:100], two[:100])
    # the same rows in the same partitions reproduce
    again = clone(p).fit(x).transform(da.from_array(x, chunks=(100, 1))).compute()
    np.testing.assert_array_equal(one, again)


# -- settings changed after fit -----------------------------------------------------
def _changed_setting(privatizer):
    """One mechanism setting of ``privatizer`` and a different valid value."""
    params = privatizer.get_params(deep=False)
    for key in ("epsilon", "d", "anchor_scale", "k"):
        if key in params and params[key] is not None:
            return key, params[key] * 2
    if isinstance(params.get("categories"), list):
        return "categories", [[*c, "cat-new"] for c in params["categories"]]
    if params.get("mechanisms"):
        return "mechanisms", params["mechanisms"][:1]
    raise AssertionError(f"no setting to change in {type(privatizer).__name__}")


@names
def test_set_params_after_fit_refuses_until_refit(name):
    privatizer, kind = _make(name, 0)
    X = _data(kind)
    _fit(privatizer, X)
    key, value = _changed_setting(privatizer)
    privatizer.set_params(**{key: value})
    with pytest.raises(ValueError, match=f"settings changed since fit.*{key}"):
        _release(privatizer, X)
    with pytest.raises(ValueError, match="settings changed since fit"):
        privatizer.privacy_summary()
    _fit(privatizer, X)  # refit: consistent again
    _release(privatizer, X)
    privatizer.privacy_summary()
    # random_state is not a mechanism setting: it may change after fit
    privatizer.set_params(random_state=5)
    _release(privatizer, X)


def test_set_params_epsilon_after_fit_is_not_understated():
    X = np.random.default_rng(0).uniform(0, 10, (200, 1))
    p = LaplaceLDP(epsilon=50, bounds=(0, 10)).fit(X)
    p.set_params(epsilon=0.5)
    with pytest.raises(ValueError, match="epsilon"):
        p.transform(X)
    p.fit(X)
    assert p.privacy_summary()["epsilon"] == 0.5
    assert np.std(p.transform(X) - X) > 10.0  # scale 20: noise of epsilon 0.5


# -- threads --------------------------------------------------------------------------
@names
def test_threads_take_distinct_calls(name):
    """Threads sharing a fitted privatizer: the releases of sequential calls."""
    _, kind = _make(name, 9)
    X = _data(kind)
    sequential = _fit(_make(name, 9)[0], X)
    n_threads, trials = 8, 20
    expected = sorted(_release(sequential, X).tobytes() for _ in range(n_threads))
    switch = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # interleave the threads as often as possible
    try:
        for _ in range(trials):
            privatizer = _fit(_make(name, 9)[0], X)  # the first calls race
            results = []
            lock = threading.Lock()
            barrier = threading.Barrier(n_threads)

            def work(p=privatizer, out=results, guard=lock, start=barrier):
                start.wait()
                z = _release(p, X)
                with guard:
                    out.append(z.tobytes())

            threads = [threading.Thread(target=work) for _ in range(n_threads)]
            for t in threads:
                t.start()
            for t in threads:
                t.join()
            # exactly the releases of n_threads sequential calls, none twice
            assert sorted(results) == expected
    finally:
        sys.setswitchinterval(switch)


# -- seeded releases are labelled ----------------------------------------------------
@names
def test_summary_says_when_a_release_is_seeded(name):
    seeded, kind = _make(name, 1)
    free, _ = _make(name, None)
    X = _data(kind)
    s = _fit(seeded, X).privacy_summary()
    f = _fit(free, X).privacy_summary()
    assert s["reproducible"] is True and "not for release" in s["random_state_note"]
    assert f["reproducible"] is False


# -- exact support at large budgets ---------------------------------------------------
# Each privatizer with a budget, and the exact test that every output grid point
# it can release is reachable from both bounds at large per-column epsilon (the
# stand-in generator of tests/ldp/test_sampler_support.py feeds the extreme
# draws numpy can return).  RVNS has no common support by design (its band
# excludes points); its per-input support is pinned in tests/test_grid_sampler_laws.py.
SUPPORT_TESTS = {
    "LaplaceLDP": "test_laplace_every_output_is_reachable_from_both_bounds",
    "GeneralizedGaussianLDP": "test_generalized_gaussian_every_output_is_reachable",
    "FlippedHuberLDP": "test_flipped_huber_every_output_is_reachable",
    "SquareWaveLDP": "test_square_wave_every_output_is_reachable",
    # frequency oracles: their coins and exact laws, in tests/frequency
    **dict.fromkeys(
        [
            "BinaryLocalHashing",
            "FrequencyOracle",
            "GeneralizedRandomizedResponse",
            "HadamardResponse",
            "OptimizedLocalHashing",
            "OptimizedUnaryEncoding",
            "SymmetricUnaryEncoding",
        ],
        "frequency.test_laws:test_every_output_is_reachable_at_large_epsilon",
    ),
}


@names
def test_every_budgeted_privatizer_has_an_exact_support_test(name):
    from .ldp import test_sampler_support

    privatizer, _ = _make(name, None)
    if "epsilon" not in privatizer.get_params(deep=False):
        return
    assert name in SUPPORT_TESTS, (
        f"{name} takes an epsilon: add a test that every output is reachable from "
        "every input at large epsilon to tests/ldp/test_sampler_support.py and "
        "list it in SUPPORT_TESTS"
    )
    module, _, test = SUPPORT_TESTS[name].rpartition(":")
    if module:
        test_sampler_support = importlib.import_module(f".{module}", __package__)
    assert callable(getattr(test_sampler_support, test, None))


def test_report_marks_seeded_privatizers():
    from skprivate import privacy_report

    X = np.random.default_rng(0).uniform(0, 1, (50, 1))
    seeded = privacy_report(LaplaceLDP(epsilon=1, bounds=(0, 1), random_state=0).fit(X))
    free = privacy_report(LaplaceLDP(epsilon=1, bounds=(0, 1)).fit(X))
    assert bool(seeded["reproducible"].iloc[0])
    assert not free["reproducible"].iloc[0]
