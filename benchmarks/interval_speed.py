"""Interval privacy: speed of the NPMLE and of the meta-estimator.

* IntervalNPMLE on Case-I data at n = 10^3 ... 10^6 (PAVA closed form), and
  the Turnbull self-consistency path on Case-II data, side by side with
  lifelines' ``KaplanMeierFitter.fit_interval_censoring`` on the same data.
  lifelines is not a dependency of skprivate: it runs in a separate virtual
  environment (``SKPRIVATE_LIFELINES_PYTHON``, default
  ``/work/.venv-peers-interval/bin/python``) through a subprocess; the section
  says so when it is missing.  lifelines needs non-negative times and finite
  lower bounds, so its input is shifted by +10 and (-inf, u] becomes [0, u].
  Its results take minutes to an hour (n = 10,000) and do not depend on
  skprivate, so they are cached in ``results/interval_speed_lifelines.json``
  (keyed by n; the data are fixed by their seeds); set
  ``SKPRIVATE_RERUN_PEERS=1`` to measure them again.
* IterativeIntervalRegressor(LGBMRegressor()) total fit time as a multiple of
  one base fit on the same data, and the accuracy of the boosted start
  (``init="boosting"``) across designs.
"""

from __future__ import annotations

import json
import os
import subprocess
import time
import warnings

import numpy as np
import pandas as pd

from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalNPMLE,
    IterativeIntervalRegressor,
)

from ._common import Section, best_time

TITLE = "Interval privacy: speed of the NPMLE and of IterativeIntervalRegressor"

LIFELINES_PYTHON = os.environ.get(
    "SKPRIVATE_LIFELINES_PYTHON", "/work/.venv-peers-interval/bin/python"
)
SHIFT = 10.0

_LIFELINES_SCRIPT = r"""
import json, sys, time, warnings
import numpy as np
from lifelines import KaplanMeierFitter
data = np.load(sys.argv[1])
lower, upper, grid = data["lower"], data["upper"], data["grid"]
warnings.simplefilter("ignore")
start = time.perf_counter()
kmf = KaplanMeierFitter().fit_interval_censoring(lower, upper)
seconds = time.perf_counter() - start
sf = kmf.survival_function_
# lifelines reports an upper and a lower NPMLE curve; outside the innermost
# intervals (where the NPMLE is unique) they agree.
upper_curve = sf.iloc[:, 0].to_numpy()
times = sf.index.to_numpy()
idx = np.searchsorted(times, grid, side="right") - 1
cdf = 1.0 - upper_curve[np.clip(idx, 0, len(times) - 1)]
cdf[idx < 0] = 0.0
print(json.dumps({"seconds": seconds, "cdf": cdf.tolist()}))
"""


def _case_one(n: int, seed: int = 0) -> np.ndarray:
    y = np.random.default_rng(seed).normal(size=(n, 1))
    return IntervalCaseI(random_state=seed + 1).fit_transform(y)


LIFELINES_CACHE = os.path.join(
    os.path.dirname(__file__), "results", "interval_speed_lifelines.json"
)


def _lifelines_cached(n: int, Z: np.ndarray, grid: np.ndarray, tmpdir: str):
    cache = {}
    if os.path.exists(LIFELINES_CACHE):
        with open(LIFELINES_CACHE) as fh:
            cache = json.load(fh)
    key = f"case_one_n{n}_seed0"
    if key in cache and not os.environ.get("SKPRIVATE_RERUN_PEERS"):
        return cache[key]
    res = _lifelines(Z, grid, tmpdir)
    if res is not None and "error" not in res:
        cache[key] = res
        with open(LIFELINES_CACHE, "w") as fh:
            json.dump(cache, fh, indent=1)
    return res


def _lifelines(Z: np.ndarray, grid: np.ndarray, tmpdir: str):
    if not os.path.exists(LIFELINES_PYTHON):
        return None
    lower = np.where(np.isneginf(Z[:, 0]), 0.0, Z[:, 0] + SHIFT)
    upper = Z[:, 1] + SHIFT
    path = os.path.join(tmpdir, "interval_speed_data.npz")
    np.savez(path, lower=lower, upper=upper, grid=grid + SHIFT)
    out = subprocess.run(
        [LIFELINES_PYTHON, "-c", _LIFELINES_SCRIPT, path],
        capture_output=True,
        text=True,
        timeout=3 * 3600,
        check=False,
    )
    if out.returncode != 0:
        return {"error": out.stderr.strip().splitlines()[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


def _npmle_section(quick: bool) -> Section:
    import tempfile

    sizes = [1_000, 10_000, 100_000] if quick else [1_000, 10_000, 100_000, 1_000_000]
    lifelines_sizes = [1_000] if quick else [1_000, 10_000]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in sizes:
            Z = _case_one(n)
            ours = best_time(lambda Z=Z: IntervalNPMLE().fit(Z), repeat=3)
            row = {"n": n, "data": "Case I", "skprivate PAVA (s)": ours}
            est = IntervalNPMLE().fit(Z)
            if n in lifelines_sizes:
                u = np.where(np.isneginf(Z[:, 0]), Z[:, 1], Z[:, 0])
                grid = np.quantile(u, np.linspace(0.05, 0.95, 19))
                res = _lifelines_cached(n, Z, grid, tmp)
                if res is None:
                    row["lifelines (s)"] = "not installed"
                elif "error" in res:
                    row["lifelines (s)"] = f"failed: {res['error']}"
                else:
                    row["lifelines (s)"] = f"{res['seconds']:.3g}"
                    row["speed-up"] = f"{res['seconds'] / ours:,.0f}x"
                    diff = np.max(np.abs(est.cdf(grid) - np.asarray(res["cdf"])))
                    row["max |F_ours - F_lifelines| at 19 quantiles"] = f"{diff:.2g}"
            rows.append(row)
        case_two = [1_000, 10_000] if quick else [1_000, 10_000, 30_000, 100_000]
        for n in case_two:
            y = np.random.default_rng(1).normal(size=(n, 1))
            Z = IntervalCaseII(random_state=2).fit_transform(y)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                seconds = best_time(lambda Z=Z: IntervalNPMLE().fit(Z), repeat=3)
                est = IntervalNPMLE().fit(Z)
            row = {
                "n": n,
                "data": "Case II",
                "skprivate EM-ICM (s)": seconds,
                "iterations": est.n_iter_,
                "optimality gap": f"{est.optimality_gap_:.1e}",
                "converged (gap <= 1e-8)": est.converged_,
            }
            if n <= 10_000:
                start = time.perf_counter()
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    tb = IntervalNPMLE(method="turnbull").fit(Z)
                row["plain Turnbull + SQUAREM (s)"] = time.perf_counter() - start
                row["Turnbull cycles"] = tb.n_iter_
                row["Turnbull converged"] = tb.converged_
            rows.append(row)
    text = (
        "Best of 3 wall-clock times for skprivate; one run for lifelines "
        f"{'(' + LIFELINES_PYTHON + ')'}"
        ", cached in results/interval_speed_lifelines.json. Targets from the "
        "issue: at least 1,000x faster than lifelines at n = 1,000 with the "
        "same estimate, and n = 10^6 in under 2 s. The NPMLE is unique only up "
        "to where mass sits inside each innermost interval; the comparison uses"
        " the CDF at 19 anchor quantiles. Case-II data use the EM-ICM hybrid "
        "(the default for non-Case-I data), stopped on the NPMLE's optimality "
        "conditions; the Turnbull self-consistency iteration (SQUAREM-"
        "accelerated) is shown for comparison with its own cap of max_iter "
        "cycles."
    )
    return Section("NPMLE speed", text, [pd.DataFrame(rows)])


def _lgbm_data(n, privatizer, function="linear", seed=0):
    from skprivate.datasets import make_interval_regression

    X, _, Z = make_interval_regression(
        n, function=function, privatizer=privatizer, random_state=seed
    )
    X = np.column_stack([X, np.random.default_rng(seed).normal(size=(n, 9))])
    X_test, _ = make_interval_regression(
        5_000, function=function, random_state=seed + 1
    )
    x = X_test[:, 0]
    f_test = x if function == "linear" else x**2 - 2 * x + 3
    X_test = np.column_stack(
        [X_test, np.random.default_rng(seed + 1).normal(size=(5_000, 9))]
    )
    return X, Z, X_test, f_test


def _quiet_fit(reg, X, Z):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return reg.fit(X, Z)


def _lgbm_section(quick: bool) -> Section:
    from lightgbm import LGBMRegressor

    n = 5_000 if quick else 10_000
    X_aug, Z, X_test, f_test = _lgbm_data(n, IntervalCaseI(scale=2.0, random_state=0))
    base = LGBMRegressor(n_estimators=100, verbose=-1, n_jobs=1)
    y_mid = np.where(np.isfinite(Z[:, 0]), Z[:, 0], Z[:, 1])
    one = best_time(lambda: base.fit(X_aug, y_mid), repeat=3)
    settings = [
        ("init='constant' (SQUAREM)", 5, {"init": "constant"}),
        ("init='constant' (SQUAREM)", 20, {"init": "constant"}),
        (
            "acceleration=None (the paper)",
            20,
            {"acceleration": None, "init": "constant"},
        ),
        ("warm_start=True", 5, {"warm_start": True}),
        ("warm_start=True", 20, {"warm_start": True}),
        ("init='boosting'", 3, {"init": "boosting"}),
        ("init='boosting'", 5, {"init": "boosting"}),
        ("init='boosting'", 20, {"init": "boosting"}),
    ]
    rows = []
    for name, max_iter, params in settings:
        reg = IterativeIntervalRegressor(base, max_iter=max_iter, **params)
        total = best_time(lambda reg=reg: _quiet_fit(reg, X_aug, Z), repeat=2)
        rows.append(
            {
                "setting": name,
                "max_iter": max_iter,
                "base fits": reg.n_iter_,
                "one LGBM fit (s)": one,
                "IterativeIntervalRegressor fit (s)": total,
                "multiple": f"{total / one:.1f}x",
                "test MSE of f": float(np.mean((reg.predict(X_test) - f_test) ** 2)),
            }
        )
    table = pd.DataFrame(rows)
    boosted = table[(table.setting == "init='boosting'") & (table.max_iter == 5)].iloc[
        0
    ]
    cold = table[
        (table.setting == "init='constant' (SQUAREM)") & (table.max_iter == 20)
    ].iloc[0]
    verdict = "met" if float(boosted["multiple"][:-1]) <= 10 else "NOT met"
    text = (
        f"LGBMRegressor(n_estimators=100, n_jobs=1) on 10 features (one "
        f"informative), n = {n}, Case-I anchors of scale 2 (one-thread LightGBM "
        "keeps the timings stable on a shared 2-core machine; both sides use "
        "it). Best of 2 wall-clock times. The test MSE of f is on 5,000 clean "
        "test points. Target from the issue: at most 10x one base fit. "
        f"init='boosting' with max_iter=5: {boosted['multiple']} (target "
        f"{verdict}), test MSE {boosted['test MSE of f']:.4f} against "
        f"{cold['test MSE of f']:.4f} after 20 iterations from the constant start "
        f"({cold['multiple']}). "
        "The first base fit is then a LightGBM model whose objective re-runs "
        "the E-step before every tree (a generalized EM at the granularity of "
        "single trees, constant Hessian = the information fraction the "
        "intervals keep), which lands near the fixed point of Algorithm 1; the "
        "remaining fits are ordinary refits on imputed responses. Every "
        "LightGBM refit reads its fitted values from the booster's training "
        "scores instead of predicting the training data (checked once against "
        "predict), which saves about 40 % of a fit per iteration. "
        "From the constant start, LightGBM's iteration does not converge in "
        "the usual sense: the fitted values keep moving by about 5 % of sigma "
        "from one iteration to the next (split choices flip), so SQUAREM finds "
        "no stable direction to extrapolate and tol is not reached; about 20 "
        "iterations are needed for the test MSE to level off. Warm starting "
        "adds 10 trees per iteration on top of the previous booster, but "
        "LightGBM re-predicts the whole previous booster at every continuation "
        "(init_model), and the growing ensemble overfits the imputed responses "
        "(sigma shrinks), which costs accuracy."
    )
    return Section("Meta-estimator fit time with LightGBM", text, [table])


def _boosting_start_section(quick: bool) -> Section:
    from lightgbm import LGBMRegressor

    n = 5_000 if quick else 10_000
    base = LGBMRegressor(n_estimators=100, verbose=-1, n_jobs=1)
    cases = [
        ("Case I, scale 0.5", n, IntervalCaseI(scale=0.5, random_state=0), "linear"),
        ("Case I, scale 2", n, IntervalCaseI(scale=2.0, random_state=0), "linear"),
        ("Case I, scale 5", n, IntervalCaseI(scale=5.0, random_state=0), "linear"),
        ("Case II, scale 2", n, IntervalCaseII(scale=2.0, random_state=0), "linear"),
        ("Case I, scale 2", 2_000, IntervalCaseI(scale=2.0, random_state=0), "linear"),
        (
            "Case I, loc 3, scale 5",
            n,
            IntervalCaseI(loc=3.0, scale=5.0, random_state=0),
            "quadratic",
        ),
        ("Case I, scale 5", 500, IntervalCaseI(scale=5.0, random_state=0), "linear"),
        ("Case I, scale 5", 200, IntervalCaseI(scale=5.0, random_state=0), "linear"),
    ]
    rows = []
    for label, size, privatizer, function in cases:
        X, Z, X_test, f_test = _lgbm_data(size, privatizer, function)
        row = {"data": label, "f": function, "n": size}
        for name, params in [
            ("constant, 5 fits", {"init": "constant", "max_iter": 5}),
            ("constant, 20 fits", {"init": "constant", "max_iter": 20}),
            ("constant, 40 fits", {"init": "constant", "max_iter": 40}),
            ("boosting, 5 fits", {"init": "boosting", "max_iter": 5}),
        ]:
            reg = _quiet_fit(IterativeIntervalRegressor(base, **params), X, Z)
            row[f"test MSE, {name}"] = float(
                np.mean((reg.predict(X_test) - f_test) ** 2)
            )
        rows.append(row)
    text = (
        "Does the boosted start keep its accuracy beyond the timed setting? "
        "Same learner (LGBMRegressor, 100 trees, 10 features of which one is "
        "informative), Gaussian noise of sd 1, f(x) = x or x^2 - 2x + 3; test "
        "MSE of f on 5,000 clean points after 5, 20 and 40 base fits from the "
        "constant start and after 5 base fits (the boosted one included) with "
        "init='boosting'. The last two rows are the exception: a few hundred "
        "responses that carry little information (coverage 0.92). There "
        "the boosted start overfits (LightGBM's default 100 trees of 31 leaves "
        "take steps of about learning_rate / 0.12 on 200 rows) and the later "
        "refits do not recover, while the slowly moving constant-start "
        "iteration stays closer to the mean; with n = 200 the boosted start "
        "is worse than predicting the mean (MSE 1). A held-out-likelihood "
        "stop for the start fixes these rows but costs accuracy on all "
        "larger ones (measured, not adopted).  The default init='auto' "
        "raises the start's constant Hessian on such samples instead "
        "(benchmarks/results/interval_auto_init.md)."
    )
    return Section("Boosted start across designs", text, [pd.DataFrame(rows)])


def _other_learners_section(quick: bool) -> Section:
    from lightgbm import LGBMRegressor
    from sklearn.ensemble import HistGradientBoostingRegressor, RandomForestRegressor
    from sklearn.linear_model import LinearRegression

    n = 5_000 if quick else 10_000
    X, Z, X_test, f_test = _lgbm_data(n, IntervalCaseI(scale=2.0, random_state=0))
    learners = {
        "RandomForestRegressor(30 trees, min_samples_leaf=5, max_features=0.5)": (
            RandomForestRegressor(
                n_estimators=30,
                min_samples_leaf=5,
                max_features=0.5,
                random_state=0,
                n_jobs=1,
            )
        ),
        "HistGradientBoostingRegressor()": HistGradientBoostingRegressor(
            random_state=0
        ),
        "LinearRegression()": LinearRegression(),
    }
    starter = LGBMRegressor(verbose=-1, n_jobs=1)
    settings = [
        ("constant", 5, {}),
        ("constant", 20, {}),
        ("boosting", 3, {"init": starter}),
        ("boosting", 5, {"init": starter}),
    ]
    rows = []
    for label, learner in learners.items():
        block = []
        for init, max_iter, params in settings:
            reg = IterativeIntervalRegressor(
                learner, max_iter=max_iter, tol=None, **params
            )
            seconds = best_time(lambda reg=reg: _quiet_fit(reg, X, Z), repeat=1)
            block.append(
                {
                    "base regressor": label,
                    "init": init,
                    "base fits": reg.n_iter_,
                    "fit (s)": seconds,
                    "test MSE of f": float(
                        np.mean((reg.predict(X_test) - f_test) ** 2)
                    ),
                }
            )
        reference = block[1]["fit (s)"]  # constant start, 20 fits
        for row in block:
            row["time / 20 constant-start fits"] = f"{row['fit (s)'] / reference:.2f}"
        rows.extend(block)
    text = (
        f"The same data as above (n = {n}, 10 features, Case-I anchors of scale "
        "2) with other base regressors. init='boosting' fits the start with "
        "LGBMRegressor(verbose=-1, n_jobs=1) (passed as init), then refits the "
        "base regressor itself; tol=None runs exactly max_iter fits. One "
        "wall-clock run each. For the tree ensembles the start brings the "
        "test error of 20 constant-start iterations within 3 to 5 fits. For "
        "the linear model, whose fits cost microseconds and whose iteration "
        "converges to the MLE from anywhere, a LightGBM start only adds time."
    )
    return Section(
        "Boosted start with other base regressors", text, [pd.DataFrame(rows)]
    )


def _cpu_time(func, repeat: int = 1) -> float:
    """Best process CPU time of ``repeat`` calls, in seconds."""
    best = np.inf
    for _ in range(repeat):
        start = time.process_time()
        func()
        best = min(best, time.process_time() - start)
    return float(best)


def _linear_section(quick: bool) -> Section:
    from sklearn.linear_model import LinearRegression, Ridge
    from sklearn.pipeline import make_pipeline

    sizes = [10_000, 100_000] if quick else [10_000, 100_000, 1_000_000]
    beta = np.array([1.0, -1.0, 0.5, 2.0, 0.0])
    rows = []
    for n in sizes:
        rng = np.random.default_rng(n)
        X = rng.normal(size=(n, 5))
        y = X @ beta + rng.normal(size=n)
        Z = IntervalCaseI(random_state=1).fit_transform(y[:, None])
        mle_cached = None
        for label, base in [
            ("LinearRegression (Newton)", LinearRegression()),
            ("Ridge(alpha=1) (cached solves, SQUAREM)", Ridge(alpha=1.0)),
            ("pipeline(LinearRegression) (refits)", make_pipeline(LinearRegression())),
        ]:
            if label.startswith("pipeline") and n > 100_000:
                continue  # general path: a real fit per iteration
            reg = IterativeIntervalRegressor(base)
            # Back to back in one process: one LinearRegression fit, then the
            # meta-estimator (best of 3 CPU times each), so that the ratio
            # sees the same load.
            one = _cpu_time(lambda X=X, y=y: LinearRegression().fit(X, y), repeat=3)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                total = _cpu_time(lambda reg=reg, X=X, Z=Z: reg.fit(X, Z), repeat=3)
            gap = np.nan
            if label.startswith("LinearRegression"):
                if mle_cached is None:
                    with warnings.catch_warnings():
                        warnings.simplefilter("ignore")
                        ref = IterativeIntervalRegressor(tol=1e-10, max_iter=20_000)
                        # Newton disabled: acceleration stays SQUAREM through
                        # a Ridge with alpha=0 (same fit, cached solves).
                        ref.set_params(estimator=Ridge(alpha=0.0)).fit(X, Z)
                    mle_cached = ref
                gap = float(np.max(np.abs(reg.predict(X) - mle_cached.predict(X))))
            rows.append(
                {
                    "base": label,
                    "n": n,
                    "one LinearRegression fit (CPU s)": one,
                    "fit with defaults (CPU s)": total,
                    "multiple": f"{total / one:.1f}x",
                    "solver_": reg.solver_,
                    "iterations / Newton steps": reg.n_iter_,
                    "converged": reg.converged_,
                    "warnings": len(caught),
                    "max |pred - SQUAREM tol=1e-10 pred|": gap,
                }
            )
    text = (
        "IterativeIntervalRegressor with default settings (max_iter='auto', "
        "tol=1e-4 relative to sigma) on 5 Gaussian features, "
        "y = X b + N(0, 1), default IntervalCaseI reports; process CPU time "
        "(best of 3), one BLAS thread, on a loaded shared 2-core machine; each "
        "ratio is measured back to back in the same process (one "
        "LinearRegression fit, then the meta-estimator), the figure to read. "
        "LinearRegression (exact type, Gaussian noise) takes the Newton path "
        "(solver_='newton'): the fixed point of Algorithm 1 is the "
        "interval-regression MLE, found by Newton's method in (b/sigma, "
        "1/sigma), where the log-likelihood is concave; each pass is one "
        "log_ndtr per finite bound and one 6 x 6 Gram product D'diag(h)D, "
        "from 10^5 rows on first solved on a subsample of at least 20,000 "
        "rows, whose answer starts the full-data steps (the steps column); "
        "then one real LinearRegression fit on the imputations "
        "at the solution. Ridge keeps the cached-solve SQUAREM iteration "
        "(its fixed point is a penalized one): the weighted, centred design "
        "is factorized once (thin SVD) and each iteration is two products "
        "with an n x 5 matrix. The pipeline row is the general path (a real "
        "fit per iteration; max_iter='auto' is 20 fits there, which stops "
        "short of tol on this design). The last column compares the default "
        "LinearRegression fit with the SQUAREM iteration run to tol=1e-10 "
        "(through Ridge(alpha=0), the same least squares). History: the "
        "original defaults took 10.1 s at n = 10^6 (89 OLS fits' time) and "
        "stopped at max_iter with a ConvergenceWarning; the cached-solve "
        "SQUAREM iteration took 23-32 fits' time (19 iterations). Target from "
        "the issue: at most 10x one fit at n = 10^6."
    )
    return Section(
        "Meta-estimator fit time with linear base models", text, [pd.DataFrame(rows)]
    )


def run(quick: bool, n_jobs: int) -> list[Section]:
    return [
        _linear_section(quick),
        _npmle_section(quick),
        _lgbm_section(quick),
        _boosting_start_section(quick),
        _other_learners_section(quick),
    ]
