"""Scaling of every public estimator and privatizer with the number of rows.

Each (estimator, n) point runs in its own subprocess limited to one thread
(threadpoolctl), so a slow point cannot block the run: the process CPU time of
the work (user + system), then, in a second run with ``tracemalloc`` tracing,
the peak of traced memory per row.  Sizes grow 1e3, 1e4, ... up to
``--max-n`` (1e7) and stop growing for an estimator once a point takes more
than 60 s of CPU (or its subprocess times out).  The log-log slope of user CPU
time against n is fitted over the sizes with at least 0.05 s (shorter times
are dominated by fixed costs), and the slope of user + system time beside
it.  Each estimator is timed next to a numpy / scipy /
scikit-learn baseline doing comparable work on the same data.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd

from ._common import Section

TITLE = "Scaling with n: CPU time, peak memory per row and log-log slope"
POINT_LIMIT = 60.0  # CPU seconds beyond which n stops growing
SLOPE_FLAG = 1.15
MEMORY_FLAG = 4.0  # peak traced memory per row over input bytes per row
MIN_SECONDS_FOR_SLOPE = 0.05
# Memory is traced in a second run only when the timed one was this short.
TRACE_LIMIT = 30.0


# -- workloads --------------------------------------------------------------
def _uniform(n: int, q: int = 1) -> np.ndarray:
    return np.random.default_rng(0).uniform(0.0, 1.0, size=(n, q))


def _noisy(n: int, q: int, b: float = 0.3) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(0)
    x = rng.uniform(-2.0, 2.0, size=(n, q))
    y = np.sin(2 * x[:, 0]) + 0.1 * rng.normal(size=n)
    return x + rng.laplace(scale=b, size=x.shape), y


def _intervals(n: int) -> np.ndarray:
    from skprivate import IntervalCaseII

    x = np.random.default_rng(0).normal(size=(n, 1))
    return np.asarray(IntervalCaseII(random_state=0).fit_transform(x), dtype=float)


def _subset_reports(n: int) -> np.ndarray:
    from skprivate import SubsetUniform

    labels = np.random.default_rng(0).integers(0, 20, size=(n, 1))
    return np.asarray(SubsetUniform(random_state=0).fit_transform(labels))


def _interval_regression(n: int) -> tuple[np.ndarray, np.ndarray]:
    from skprivate import IntervalCaseI

    rng = np.random.default_rng(0)
    X = rng.normal(size=(n, 5))
    y = X @ np.arange(1.0, 6.0) + rng.normal(size=n)
    Y = np.asarray(IntervalCaseI(random_state=0).fit_transform(y[:, None]))
    return X, Y.reshape(n, -1)


def _privatizer(cls_name: str, **params: Any) -> Callable:
    def setup(n: int):
        return (_uniform(n),)

    def work(X):
        import skprivate

        getattr(skprivate, cls_name)(random_state=0, **params).fit_transform(X)

    return setup, work


def _laplace_baseline(X):
    X + np.random.default_rng(0).laplace(size=X.shape)


def _logistic_baseline(X):
    X + np.random.default_rng(0).logistic(size=X.shape)


def _histogram(X):
    np.histogram(np.asarray(X, dtype=float).ravel(), bins=100)


def _binned_means(data):
    from scipy.stats import binned_statistic

    Z, y = data
    binned_statistic(Z[:, 0], y, bins=100)


def _kde_1d(n):
    return (_noisy(n, 1)[0],)


def _kde_2d(n):
    return (_noisy(n, 2)[0],)


def _fit(cls_name: str, **params: Any) -> Callable:
    def work(*data):
        import skprivate

        getattr(skprivate, cls_name)(**params).fit(*data)

    return work


def _regression(cls_name: str, q: int, classify: bool = False):
    def setup(n):
        Z, y = _noisy(n, q)
        return (Z, (y > 0).astype(int) if classify else y)

    def work(Z, y):
        import skprivate

        est = getattr(skprivate, cls_name)(noise_scale=0.3, random_state=0)
        est.fit(Z, y)
        est.predict(np.random.default_rng(1).uniform(-1.5, 1.5, size=(1000, q)))

    def baseline(Z, y):
        _binned_means((Z, y))

    return setup, work, baseline


def _gaussian_kde_baseline(Z):
    from scipy.stats import gaussian_kde

    pts = np.random.default_rng(1).uniform(-1.5, 1.5, size=(Z.shape[1], 256))
    gaussian_kde(Z.T)(pts)


def _kde_work(Z):
    from skprivate import DeconvolutionKernelDensity

    est = DeconvolutionKernelDensity(noise_scale=0.3).fit(Z)
    est.raw_density(np.random.default_rng(1).uniform(-1.5, 1.5, size=(256, Z.shape[1])))


def _interval_regression_work(X, Y):
    from sklearn.linear_model import LinearRegression

    from skprivate import IterativeIntervalRegressor

    IterativeIntervalRegressor(LinearRegression()).fit(X, Y)


def _ols_baseline(X, Y):
    from sklearn.linear_model import LinearRegression

    LinearRegression().fit(X, np.nanmean(np.where(np.isfinite(Y), Y, np.nan), axis=1))


def _integral_work(X):
    from skprivate import IntegralPrivateStatistics

    IntegralPrivateStatistics(random_state=0).fit(X)


def _microaggregator_work(X):
    from skprivate import Microaggregator

    Microaggregator().fit_transform(X)


def _sort_baseline(X):
    np.sort(X, axis=0)


def _describe_baseline(X):
    np.percentile(X, [25, 50, 75], axis=0), X.mean(axis=0), X.std(axis=0)


def _unique_baseline(R):
    np.unique(R, axis=0, return_counts=True)


def _categorical(n):
    return (np.random.default_rng(0).integers(0, 20, size=(n, 1)),)


def _categorical_baseline(L):
    np.random.default_rng(0).integers(0, 20, size=L.shape)


def _reports(mechanism: str, **params):
    def setup(n):
        import skprivate

        return (
            np.asarray(
                getattr(skprivate, mechanism)(random_state=0, **params).fit_transform(
                    _uniform(n)
                )
            ),
        )

    return setup


# name -> (setup(n) -> tuple of arrays, work(*data), baseline(*data), baseline name)
RECIPES: dict[str, tuple] = {
    "LaplaceLDP": (
        *_privatizer("LaplaceLDP", bounds=(0, 1)),
        _laplace_baseline,
        "np.random laplace",
    ),
    "SquareWaveLDP": (
        *_privatizer("SquareWaveLDP", bounds=(0, 1)),
        _laplace_baseline,
        "np.random laplace",
    ),
    "FlippedHuberLDP": (
        *_privatizer("FlippedHuberLDP", bounds=(0, 1)),
        _laplace_baseline,
        "np.random laplace",
    ),
    "GeneralizedGaussianLDP": (
        *_privatizer("GeneralizedGaussianLDP", bounds=(0, 1)),
        _laplace_baseline,
        "np.random laplace",
    ),
    "RVNSPerturber": (
        *_privatizer("RVNSPerturber", bounds=(0, 1)),
        _laplace_baseline,
        "np.random laplace",
    ),
    "IntervalCaseI": (
        *_privatizer("IntervalCaseI"),
        _logistic_baseline,
        "np.random logistic",
    ),
    "IntervalCaseII": (
        *_privatizer("IntervalCaseII"),
        _logistic_baseline,
        "np.random logistic",
    ),
    "IntervalMechanism": (
        *_privatizer("IntervalMechanism"),
        _logistic_baseline,
        "np.random logistic",
    ),
    "IntervalEnsemble": (
        _privatizer("IntervalCaseI")[0],
        lambda X: (
            __import__("skprivate")
            .IntervalEnsemble(
                [
                    __import__("skprivate").IntervalCaseI(),
                    __import__("skprivate").IntervalCaseII(),
                ],
                random_state=0,
            )
            .fit_transform(X)
        ),
        _logistic_baseline,
        "np.random logistic",
    ),
    "SubsetUniform": (
        _categorical,
        lambda L: (
            __import__("skprivate").SubsetUniform(random_state=0).fit_transform(L)
        ),
        _categorical_baseline,
        "np.random integers",
    ),
    "SubsetMechanism": (
        _categorical,
        lambda L: (
            __import__("skprivate").SubsetMechanism(random_state=0).fit_transform(L)
        ),
        _categorical_baseline,
        "np.random integers",
    ),
    "DeconvolutionKernelDensity": (_kde_1d, _kde_work, _histogram, "np.histogram"),
    "DeconvolutionKernelDensity (2 features)": (
        _kde_2d,
        _kde_work,
        _gaussian_kde_baseline,
        "scipy gaussian_kde, 256 points",
    ),
    "DeconvolutionKernelRegressor": (
        *_regression("DeconvolutionKernelRegressor", 1),
        "scipy binned_statistic",
    ),
    "DeconvolutionKernelRegressor (2 features)": (
        *_regression("DeconvolutionKernelRegressor", 2),
        "scipy binned_statistic",
    ),
    "DeconvolutionKernelClassifier": (
        *_regression("DeconvolutionKernelClassifier", 1, classify=True),
        "scipy binned_statistic",
    ),
    "IntervalNPMLE": (
        lambda n: (_intervals(n),),
        _fit("IntervalNPMLE"),
        _histogram,
        "np.histogram",
    ),
    "IntervalMLE": (
        lambda n: (_intervals(n),),
        _fit("IntervalMLE"),
        _histogram,
        "np.histogram",
    ),
    "IterativeIntervalRegressor": (
        _interval_regression,
        _interval_regression_work,
        _ols_baseline,
        "LinearRegression",
    ),
    "IntegralPrivateStatistics": (
        lambda n: (np.random.default_rng(0).normal(size=(n, 1)),),
        _integral_work,
        _describe_baseline,
        "np.percentile + mean + std",
    ),
    "Microaggregator": (
        lambda n: (np.random.default_rng(0).normal(size=(n, 1)),),
        _microaggregator_work,
        _sort_baseline,
        "np.sort",
    ),
    "PerturbedKDEEstimator": (
        _reports("RVNSPerturber", bounds=(0, 1)),
        _fit("PerturbedKDEEstimator", bounds=(0, 1)),
        _histogram,
        "np.histogram",
    ),
    "RVNSDensityEstimator": (
        _reports("RVNSPerturber", bounds=(0, 1)),
        _fit("RVNSDensityEstimator", bounds=(0, 1), d=0.2),
        _histogram,
        "np.histogram",
    ),
    "SquareWaveEMSEstimator": (
        _reports("SquareWaveLDP", bounds=(0, 1)),
        _fit("SquareWaveEMSEstimator", bounds=(0, 1), epsilon=1.0),
        _histogram,
        "np.histogram",
    ),
    "SubsetDistributionEstimator": (
        lambda n: (_subset_reports(n),),
        _fit("SubsetDistributionEstimator"),
        _unique_baseline,
        "np.unique rows",
    ),
}


def _targets() -> list[str]:
    """Recipe names covering every public estimator (unknown ones listed too)."""
    from skprivate.utils import all_estimators

    names = list(RECIPES)
    for name, _ in all_estimators():
        if name not in names:
            names.append(name)
    return names


# -- one point, in a subprocess ---------------------------------------------
def _measure(name: str, n: int, which: str) -> dict[str, Any]:
    import scipy.stats  # noqa: F401  (imports are not part of the work)
    import sklearn.linear_model  # noqa: F401
    from threadpoolctl import threadpool_limits

    import skprivate  # noqa: F401

    setup, work, baseline, _ = RECIPES[name]
    func = work if which == "estimator" else baseline
    data = setup(n)
    input_bytes = sum(np.asarray(a).nbytes for a in data)
    with threadpool_limits(1):
        before = resource.getrusage(resource.RUSAGE_SELF)
        start = time.process_time()
        func(*data)
        cpu = time.process_time() - start
        after = resource.getrusage(resource.RUSAGE_SELF)
        user = after.ru_utime - before.ru_utime
        peak = float("nan")
        if cpu < TRACE_LIMIT:
            tracemalloc.start()
            func(*data)
            peak = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
    return {"cpu": cpu, "user": user, "peak": peak, "input_bytes": input_bytes}


def _point(name: str, n: int, which: str, timeout: float) -> dict[str, Any]:
    env = dict(os.environ, OMP_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    env["PYTHONWARNINGS"] = "ignore"
    try:
        proc = subprocess.run(
            [
                sys.executable,
                "-m",
                "benchmarks.scaling",
                "--point",
                name,
                str(n),
                which,
            ],
            capture_output=True,
            text=True,
            timeout=timeout,
            env=env,
            cwd=os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
        )
    except subprocess.TimeoutExpired:
        return {"error": f"timeout {timeout:.0f} s"}
    if proc.returncode != 0:
        last = (proc.stderr.strip().splitlines() or ["failed"])[-1]
        return {"error": last[:120]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _slope(ns: list[int], secs: list[float]) -> float:
    pts = [(n, s) for n, s in zip(ns, secs, strict=True) if s >= MIN_SECONDS_FOR_SLOPE]
    if len(pts) < 2:
        return float("nan")
    x, y = np.log([p[0] for p in pts]), np.log([p[1] for p in pts])
    return float(np.polyfit(x, y, 1)[0])


# Why a flag remains, where it is understood.
_ADDITIVE = (
    "a float64 copy of the validated input, the output and the sampler's "
    "float64 temporaries: 4-8 values per input value, linear in n (chunk with "
    "partial_fit or dask to bound it)"
)
_INTERVAL = (
    "two output columns (lower, upper) per input column plus the anchors and "
    "uniform draws of every row: 12-20 float64 per input value, linear in n"
)
_SUBSET = (
    "one int8 indicator column per category in the output plus the drawn subset "
    "of every row; fixed design tables dominate at small n"
)
_GRID = (
    "a float64 copy of the reports and their grid positions; grid and FFT "
    "buffers are fixed, so the per-row share falls with n"
)
EXPLANATIONS = {
    **dict.fromkeys(
        [
            "LaplaceLDP",
            "SquareWaveLDP",
            "FlippedHuberLDP",
            "GeneralizedGaussianLDP",
            "RVNSPerturber",
        ],
        _ADDITIVE,
    ),
    **dict.fromkeys(
        ["IntervalCaseI", "IntervalCaseII", "IntervalMechanism", "IntervalEnsemble"],
        _INTERVAL,
    ),
    **dict.fromkeys(["SubsetUniform", "SubsetMechanism"], _SUBSET),
    **dict.fromkeys(
        [
            "DeconvolutionKernelDensity",
            "DeconvolutionKernelDensity (2 features)",
            "DeconvolutionKernelRegressor",
            "DeconvolutionKernelRegressor (2 features)",
            "DeconvolutionKernelClassifier",
            "PerturbedKDEEstimator",
            "RVNSDensityEstimator",
        ],
        _GRID,
    ),
    "IntervalNPMLE": "sorted endpoints, cell indices and weights of every row "
    "(a few float64 and int64 per row), linear in n",
    "IntervalMLE": "the interval array and the per-row likelihood terms of the "
    "optimizer, linear in n",
    "IntegralPrivateStatistics": "per row: a sorted copy and the fixed-point "
    "digits of the moment columns; the chunk of bootstrap counts (about 2**20 "
    "values) and the intersection masks are fixed buffers; time is the t = 1000 "
    "resamples",
    "IterativeIntervalRegressor": "the design, its cached factorization and the "
    "imputed responses: a few float64 per row and feature",
    "Microaggregator": "a sorted copy, the order, labels and a block of "
    "candidate group sums per row, linear in n",
    "SubsetDistributionEstimator": "int8 reports in blocks of 65,536 rows and "
    "the counts of distinct subsets; the EM over the subset design is a fixed "
    "cost that dominates at small n",
}


def run(
    quick: bool = False, n_jobs: int = -1, max_n: int | None = None
) -> list[Section]:
    max_n = max_n or (10**5 if quick else 10**7)
    sizes = [10**k for k in range(3, 8) if 10**k <= max_n]
    timeout = 3 * POINT_LIMIT + 60
    rows, curves = [], []
    for name in _targets():
        if name not in RECIPES:
            rows.append({"estimator": name, "note": "no workload defined"})
            continue
        ns, secs, user_secs, base_secs, mem, base_mem = [], [], [], [], [], []
        note = ""
        for n in sizes:
            res = _point(name, n, "estimator", timeout)
            if "error" in res:
                note = f"n={n:.0e}: {res['error']}"
                break
            base = _point(name, n, "baseline", timeout)
            ns.append(n)
            secs.append(res["cpu"])
            user_secs.append(res["user"])
            base_secs.append(base.get("cpu", float("nan")))
            mem.append(res["peak"] / n / max(res["input_bytes"] / n, 1e-9))
            base_mem.append(base.get("peak", float("nan")) / n)
            curves.append(
                {
                    "estimator": name,
                    "n": n,
                    "cpu s": res["cpu"],
                    "user s": res["user"],
                    "baseline cpu s": base.get("cpu", float("nan")),
                    "peak B/row": res["peak"] / n,
                    "input B/row": res["input_bytes"] / n,
                    "baseline peak B/row": base.get("peak", float("nan")) / n,
                }
            )
            print(f"  {name} n={n:.0e}: {res['cpu']:.3g} s", flush=True)
            if res["cpu"] > POINT_LIMIT:
                note = f"stopped after n={n:.0e} (> {POINT_LIMIT:.0f} s)"
                break
        slope = _slope(ns, user_secs)
        cpu_slope = _slope(ns, secs)
        base_slope = _slope(ns, base_secs)
        finite = [m for m in mem if np.isfinite(m)]
        mem_ratio = finite[-1] if finite else float("nan")
        flags = []
        if slope > SLOPE_FLAG:
            flags.append(f"slope {slope:.2f}")
        if mem_ratio > MEMORY_FLAG:
            flags.append(f"memory {mem_ratio:.1f}x input")
        why = EXPLANATIONS.get(name, "") if flags else ""
        rows.append(
            {
                "estimator": name,
                "baseline": RECIPES[name][3],
                "largest n": f"{ns[-1]:.0e}" if ns else "-",
                "cpu s at largest n": secs[-1] if secs else float("nan"),
                "user s at largest n": user_secs[-1] if user_secs else float("nan"),
                "baseline cpu s": base_secs[-1] if base_secs else float("nan"),
                "slope (user)": slope,
                "slope (user + system)": cpu_slope,
                "baseline slope": base_slope,
                "peak/input per row": mem_ratio,
                "flag": "; ".join(flags),
                "note": "; ".join(x for x in (note, why) if x),
            }
        )
    summary = pd.DataFrame(rows)
    text = (
        f"Sizes {', '.join(f'{n:.0e}' for n in sizes)}; one thread; each point in "
        f"its own subprocess (timeout {timeout:.0f} s), n stops growing after a "
        f"point over {POINT_LIMIT:.0f} CPU s.  CPU time is the process time of "
        "the work alone (data generated beforehand); peak memory is the traced "
        "(tracemalloc) peak of a second run, reported per row and as a multiple "
        "of the input bytes per row at the largest n traced.  The slope is the "
        "least-squares log-log slope of user CPU time over points with at least "
        f"{MIN_SECONDS_FOR_SLOPE} s; the slope of user + system time is shown "
        "beside it.  System time is the kernel providing fresh pages for large "
        "arrays and depends on the machine more than on the code: numpy asks "
        "for transparent huge pages for large arrays, and where the kernel "
        "compacts memory to provide them on first touch (transparent_hugepage "
        "defrag 'madvise', as here) that alone can cost several seconds per "
        "10^7 rows (IterativeIntervalRegressor at n = 10^7: 12.9 s of system "
        "time, 4.9 s with NUMPY_MADVISE_HUGEPAGE=0, user time 8.4 and 7.6 s).  "
        "The baseline slope is of user + system time.  Flags: "
        f"user-time slope above {SLOPE_FLAG} or memory "
        f"above {MEMORY_FLAG:g}x the input per row."
    )
    return [
        Section("Summary", text, [summary]),
        Section("All points", "", [pd.DataFrame(curves)]),
    ]


def main(argv: list[str]) -> int:
    if argv[:1] == ["--point"]:
        name, n, which = argv[1], int(argv[2]), argv[3]
        print(json.dumps(_measure(name, n, which)))
        return 0
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
