"""Thread budgets of the process a learner is fitted in.

A learner fitted inside a joblib worker (``GridSearchCV(..., n_jobs=2)``,
``cross_validate(..., n_jobs=-1)``) shares the machine with the other
workers.  joblib's loky backend starts each worker with
``OMP_NUM_THREADS`` (and the BLAS variables) set to ``cpu_count // n_jobs``,
so OpenMP and BLAS code respect it, but LightGBM's scikit-learn interface
turns its default ``n_jobs=None`` into "every core" at fit time.  Two
workers then run two threads each on two cores, and OpenMP's busy waiting
makes each fit many times slower than a single-threaded one.

:class:`ThreadBudget` reads the budget of the current process once and caps
OpenMP and BLAS pools at it around a fit; :func:`prepare_base` returns a
clone of a base regressor that keeps to it (and is quiet, for LightGBM
models whose verbosity the user left at the default).
"""

from __future__ import annotations

import contextlib
import os
from typing import Any

from sklearn.base import clone
from sklearn.pipeline import Pipeline

__all__ = ["ThreadBudget", "prepare_base", "thread_budget"]

# LightGBM's names for the number of threads and for the verbosity.
_LIGHTGBM_THREADS = ("n_jobs", "num_threads", "num_thread", "nthread", "nthreads")
_LIGHTGBM_VERBOSITY = ("verbose", "verbosity")


def _env_threads() -> int | None:
    raw = os.environ.get("OMP_NUM_THREADS", "").split(",")[0].strip()
    try:
        value = int(raw)
    except ValueError:
        return None
    return value if value > 0 else None


class ThreadBudget:
    """The thread budget of the current process, read once.

    The budget is the smallest of ``OMP_NUM_THREADS`` (which joblib's loky
    backend sets in its workers to ``cpu_count // n_jobs``) and the current
    limit of every loaded OpenMP runtime (which ``threadpoolctl``'s
    ``threadpool_limits`` or ``omp_set_num_threads`` lower).  It is None
    when neither is below the number of CPUs this process may use, that is
    when nothing asks for fewer threads.

    Attributes
    ----------
    budget : int or None
        Number of threads, or None if unlimited.
    """

    def __init__(self) -> None:
        from joblib import cpu_count
        from threadpoolctl import ThreadpoolController

        self._controller = ThreadpoolController()
        limits = [
            int(lib["num_threads"])
            for lib in self._controller.info()
            if lib.get("user_api") == "openmp" and lib.get("num_threads")
        ]
        env = _env_threads()
        if env is not None:
            limits.append(env)
        budget = max(min(limits), 1) if limits else None
        self.budget = None if budget is None or budget >= cpu_count() else budget

    def limit(self) -> contextlib.AbstractContextManager:
        """Context capping OpenMP and BLAS pools at the budget (no-op if None)."""
        if self.budget is None:
            return contextlib.nullcontext()
        return self._controller.limit(limits=self.budget)


def thread_budget() -> int | None:
    """Number of threads the current process should use, or None if unlimited.

    See :class:`ThreadBudget`.

    Examples
    --------
    >>> from threadpoolctl import threadpool_limits
    >>> import lightgbm  # doctest: +SKIP
    >>> with threadpool_limits(limits=1, user_api="openmp"):  # doctest: +SKIP
    ...     thread_budget()
    1
    """
    return ThreadBudget().budget


def _lightgbm_model(est: Any) -> tuple[Any, str] | None:
    prefix = ""
    if isinstance(est, Pipeline):
        name, est = est.steps[-1]
        prefix = f"{name}__"
    if type(est).__module__.split(".")[0] == "lightgbm" and hasattr(est, "fit"):
        return est, prefix
    return None


def prepare_base(est: Any, budget: int | None) -> Any:
    """A clone of the base regressor ``est`` for the fits a learner makes.

    The user's object is never modified.  For a LightGBM model (or a
    pipeline ending in one) the clone gets

    - ``n_jobs=budget`` when ``budget`` is not None and the user left the
      number of threads at its default (``n_jobs=None`` and none of
      ``num_threads``, ``nthread``... given), so that a fit inside a joblib
      worker uses that worker's share of the cores;
    - ``verbose=-1`` when the user gave neither ``verbose`` nor
      ``verbosity``, so that the many internal fits do not print LightGBM's
      ``[Info]`` lines.

    Other estimators are cloned unchanged.

    Parameters
    ----------
    est : estimator
        Unfitted base regressor.
    budget : int or None
        Thread budget, from :func:`thread_budget`.

    Returns
    -------
    estimator
        An unfitted clone.
    """
    est = clone(est)
    found = _lightgbm_model(est)
    if found is None:
        return est
    model, prefix = found
    params = model.get_params(deep=False)
    changes: dict[str, Any] = {}
    if budget is not None and not any(
        params.get(name) is not None for name in _LIGHTGBM_THREADS
    ):
        changes[f"{prefix}n_jobs"] = int(budget)
    if not any(name in params for name in _LIGHTGBM_VERBOSITY):
        changes[f"{prefix}verbose"] = -1
    return est.set_params(**changes) if changes else est
