"""Parallel runs and noise: thread budgets of joblib workers, quiet defaults."""

import warnings

import numpy as np
import pytest
from joblib import cpu_count
from sklearn.base import BaseEstimator, RegressorMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import GridSearchCV, cross_validate
from sklearn.tree import DecisionTreeRegressor
from threadpoolctl import threadpool_info

from skprivate import IntervalCaseI, IterativeIntervalRegressor
from skprivate.utils import _warnings
from skprivate.utils._threads import ThreadBudget, prepare_base

lightgbm = pytest.importorskip("lightgbm")


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    return X, X @ np.array([1.0, -0.5, 0.2]) + rng.normal(size=n)


class ThreadRecorder(RegressorMixin, BaseEstimator):
    """Mean regressor recording the thread pools it was fitted under."""

    def fit(self, X, y, sample_weight=None):
        self.pools_ = {
            (lib["user_api"], lib["internal_api"]): lib["num_threads"]
            for lib in threadpool_info()
        }
        self.mean_ = float(np.mean(y))
        return self

    def predict(self, X):
        return np.full(len(X), self.mean_)


def _worker_budget():
    budget = max(cpu_count() // 2, 1)
    return None if budget >= cpu_count() else budget


def test_prepare_base_sets_budget_and_quiet_on_a_clone_only():
    user = lightgbm.LGBMRegressor(n_estimators=5)
    before = user.get_params()
    clone = prepare_base(user, 1)
    assert user.get_params() == before
    assert clone.get_params()["n_jobs"] == 1 and clone.get_params()["verbose"] == -1
    # the user's own choices are kept
    chosen = prepare_base(lightgbm.LGBMRegressor(n_jobs=2, verbose=1), 1)
    assert chosen.get_params()["n_jobs"] == 2 and chosen.get_params()["verbose"] == 1
    aliased = prepare_base(lightgbm.LGBMRegressor(num_threads=3), 1)
    assert aliased.get_params()["n_jobs"] is None
    # no budget: threads left at LightGBM's default, still quiet
    free = prepare_base(lightgbm.LGBMRegressor(), None)
    assert free.get_params()["n_jobs"] is None and free.get_params()["verbose"] == -1
    # other regressors are cloned unchanged
    tree = DecisionTreeRegressor(max_depth=2)
    assert prepare_base(tree, 1).get_params() == tree.get_params()


@pytest.mark.skipif(cpu_count() < 2, reason="needs two CPUs for a budget below all")
def test_budget_applies_inside_a_joblib_worker():
    X, y = _data()
    user = lightgbm.LGBMRegressor(n_estimators=5)
    before = user.get_params()
    est = IterativeIntervalRegressor(
        user, privatizer=IntervalCaseI(random_state=0), max_iter=3, tol=None
    )
    result = cross_validate(est, X, y, cv=2, n_jobs=2, return_estimator=True)
    for fitted in result["estimator"]:
        assert fitted.estimator_.get_params()["n_jobs"] == _worker_budget()
        assert fitted.estimator_.get_params()["verbose"] == -1
    assert user.get_params() == before


@pytest.mark.skipif(cpu_count() < 2, reason="needs two CPUs for a budget below all")
def test_base_fits_run_under_the_thread_budget(monkeypatch):
    # the budget read in a loky worker: OMP_NUM_THREADS below the CPU count
    monkeypatch.setenv("OMP_NUM_THREADS", "1")
    assert ThreadBudget().budget == 1
    X, y = _data()
    est = IterativeIntervalRegressor(
        ThreadRecorder(), privatizer=IntervalCaseI(random_state=0), max_iter=2, tol=None
    ).fit(X, y)
    assert est.estimator_.pools_ and set(est.estimator_.pools_.values()) == {1}


def test_lightgbm_default_is_quiet_and_the_users_estimator_unchanged(capfd):
    X, y = _data()
    user = lightgbm.LGBMRegressor(n_estimators=5)
    before = user.get_params()
    for init in ("constant", "boosting"):
        IterativeIntervalRegressor(
            user,
            privatizer=IntervalCaseI(random_state=0),
            init=init,
            max_iter=3,
            tol=None,
        ).fit(X, y)
    out, err = capfd.readouterr()
    assert "[LightGBM]" not in out + err
    assert user.get_params() == before
    # verbosity the user asked for is kept
    IterativeIntervalRegressor(
        lightgbm.LGBMRegressor(n_estimators=5, verbose=1),
        privatizer=IntervalCaseI(random_state=0),
        max_iter=2,
        tol=None,
    ).fit(X, y)
    out, err = capfd.readouterr()
    assert "[LightGBM] [Info]" in out + err


def test_convergence_warning_once_per_process_not_per_fold(monkeypatch):
    monkeypatch.setattr(_warnings, "_SHOWN", set())
    X, y = _data()
    est = IterativeIntervalRegressor(
        DecisionTreeRegressor(max_depth=3, random_state=0),
        privatizer=IntervalCaseI(random_state=0),
        max_iter=2,
    )
    search = GridSearchCV(est, {"estimator__max_depth": [2, 3]}, cv=2, n_jobs=1)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        search.fit(X, y)
    shown = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(shown) == 1
    # a filter asking for every warning still gets every one
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        search.fit(X, y)
    shown = [w for w in caught if issubclass(w.category, ConvergenceWarning)]
    assert len(shown) == 5
