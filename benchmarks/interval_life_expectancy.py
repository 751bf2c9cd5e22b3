"""Interval privacy, Table II analogue on the bundled life-expectancy panel.

Oracle (clean responses) and three mechanisms of increasing coverage applied
to the z-scored response, as the paper does (SPEC 1.6, erratum 8):

* M1: anchors (U - 1, U + 1), U ~ Logistic(0, 1), middle cell reported exactly;
* M2: Case II, two ordered Logistic(0, 2) anchors;
* M3: Case I, Logistic(0, 5) anchor.

Learners: LinearRegression, LightGBM, RandomForest, each wrapped by
IterativeIntervalRegressor (20 iterations; LightGBM and the forest also with
the boosted start and 5 base fits) for the private columns; 5-fold CV,
trained on the privatized training folds and scored on the clean test folds.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
from joblib import Parallel, delayed
from sklearn.base import clone
from sklearn.ensemble import RandomForestRegressor
from sklearn.linear_model import LinearRegression
from sklearn.metrics import mean_absolute_error, r2_score
from sklearn.model_selection import KFold

from skprivate.datasets import load_life_expectancy
from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalMechanism,
    IterativeIntervalRegressor,
    average_coverage,
)

from ._common import Section, mean_se

TITLE = "Interval privacy: Table II analogue on the life-expectancy panel"

PAPER = {  # learner -> (R2 oracle, M1, M2, M3), (MAE oracle, M1, M2, M3)
    "LR": ((0.79, 0.78, 0.78, 0.52), (3.21, 3.25, 3.23, 4.43)),
    "GB": ((0.89, 0.86, 0.85, 0.74), (2.3, 2.56, 2.68, 3.65)),
    "RF": ((0.82, 0.78, 0.75, 0.69), (2.86, 3.25, 3.41, 3.97)),
}
PAPER_COVERAGE = {"oracle": 0.0, "M1": 0.57, "M2": 0.76, "M3": 0.94}
# LightGBM and the forest again, with the boosted start and 5 base fits
# instead of 20 (the forest's start is fitted by LGBMRegressor).
BOOSTED = {"GB": "GB, init='boosting', 5 fits", "RF": "RF, init='boosting', 5 fits"}
FEATURES = ["year", "infant_mortality", "fertility", "log_gdp", "log_population"]


def _data():
    life = load_life_expectancy()
    data = life.dropna(subset=["infant_mortality", "fertility", "gdp", "population"])
    data = data.assign(
        log_gdp=np.log(data["gdp"]), log_population=np.log(data["population"])
    )
    X = pd.concat(
        [data[FEATURES], pd.get_dummies(data["continent"], dtype=float)], axis=1
    )
    return X.to_numpy(float), data["life_expectancy"].to_numpy(float)


def _learners(quick: bool):
    from lightgbm import LGBMRegressor

    learners = {
        "LR": LinearRegression(),
        "GB": LGBMRegressor(n_estimators=100, learning_rate=0.1, verbose=-1),
        "RF": RandomForestRegressor(
            n_estimators=10 if quick else 30,
            min_samples_leaf=5,
            max_features=0.5,
            random_state=0,
        ),
    }
    ordered = {}
    for name, learner in learners.items():
        ordered[name] = learner
        if name in BOOSTED:
            ordered[BOOSTED[name]] = learner
    return ordered


def _mechanisms(seed: int):
    return {
        "oracle": None,
        "M1": IntervalMechanism(offsets=[-1, 1], exact_cells=[1], random_state=seed),
        "M2": IntervalCaseII(scale=2.0, random_state=seed),
        "M3": IntervalCaseI(scale=5.0, random_state=seed),
    }


def _fold(X, y, train, test, learner, mech_name, seed, boosted=False):
    mu, sd = y[train].mean(), y[train].std()
    z = (y - mu) / sd
    mech = _mechanisms(seed)[mech_name]
    if mech is None:
        model = clone(learner).fit(X[train], z[train])
        cov = 0.0
        n_iter = 0
    else:
        Z, Q = mech.fit(z[train][:, None]).transform(
            z[train][:, None], return_anchors=True
        )
        exact = Z[:, 0] == Z[:, 1]
        # Coverage in hindsight with the clean ECDF, as the paper does; exact
        # reports count 0.
        cov = average_coverage(Z, z[train])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            start = (
                {"init": "boosting", "max_iter": 5} if boosted else {"init": "constant"}
            )
            model = IterativeIntervalRegressor(
                clone(learner), **{"max_iter": 20, **start}
            ).fit(X[train], Z)
        n_iter = model.n_iter_
        # For M1: the coverage if the middle cell (q_1, q_2] were reported as
        # an interval instead of the exact value.
        cov_ignoring_exact = average_coverage(
            np.where(exact[:, None], Q[:, 0, [0, -1]], Z), z[train]
        )
    pred = model.predict(X[test]) * sd + mu
    return {
        "r2": r2_score(y[test], pred),
        "mae": mean_absolute_error(y[test], pred),
        "coverage": cov,
        "coverage_no_exact": cov_ignoring_exact if mech is not None else 0.0,
        "n_iter": n_iter,
    }


def run(quick: bool, n_jobs: int) -> list[Section]:
    X, y = _data()
    folds = list(KFold(5, shuffle=True, random_state=0).split(X))
    learners = _learners(quick)
    tasks = [
        (lname, mname, k)
        for lname in learners
        for mname in ("oracle", "M1", "M2", "M3")
        for k in range(5)
    ]
    results = Parallel(n_jobs=n_jobs)(
        delayed(_fold)(
            X, y, *folds[k], learners[lname], mname, k, lname in BOOSTED.values()
        )
        for lname, mname, k in tasks
    )
    frame = pd.DataFrame(
        [
            {"learner": t[0], "mechanism": t[1], **r}
            for t, r in zip(tasks, results, strict=True)
        ]
    )
    rows = []
    for lname in learners:
        for metric, idx in (("R2", 0), ("MAE", 1)):
            row = {"learner": lname, "metric": metric}
            for j, mname in enumerate(("oracle", "M1", "M2", "M3")):
                vals = frame[(frame.learner == lname) & (frame.mechanism == mname)]
                m, se = mean_se(vals["r2" if metric == "R2" else "mae"])
                row[f"{mname} ours"] = f"{m:.2f} ({se:.2f})"
                paper = PAPER.get(lname)
                row[f"{mname} paper"] = f"{paper[idx][j]:.2f}" if paper else "-"
            rows.append(row)
    cov_rows = []
    for mname in ("M1", "M2", "M3"):
        vals = frame[frame.mechanism == mname]
        no_exact = "-"
        if mname == "M1":
            no_exact = f"{vals['coverage_no_exact'].mean():.3f}"
        cov_rows.append(
            {
                "mechanism": mname,
                "coverage (exact = 0)": f"{vals['coverage'].mean():.3f}",
                "coverage (exact disclosure ignored)": no_exact,
                "paper": f"{PAPER_COVERAGE[mname]:.2f}",
            }
        )
    text = (
        f"{X.shape[0]} complete rows of the bundled Gapminder panel (1960-2016, "
        "185 countries); predictors: year, infant mortality, fertility, log GDP, "
        "log population and continent indicators. **This is not the paper's "
        "data** (Kaggle WHO life expectancy, 2938 rows, 20 predictors), so the "
        "R2/MAE levels are not comparable; the comparison that carries over is "
        "the ordering oracle >= M1 >= M2 >= M3 and the size of the losses. The "
        "response is z-scored with the training fold's mean and sd (the paper's "
        "standardization; in a real collection these must be fixed in advance). "
        "GB is LightGBM (100 trees, learning rate 0.1); RF has "
        f"{learners['RF'].n_estimators} trees, min_samples_leaf=5 and "
        "max_features=0.5 (the paper does not give its hyper-parameters; ours "
        "are kept small because every private fit refits the learner 20 times). "
        "Mean (SE) over 5 folds. The rows marked init='boosting' are the same "
        "learners fitted with the boosted start and max_iter=5 instead of 20 "
        "(the forest's start is fitted by LGBMRegressor, its 4 later fits are "
        "the forest's own); their oracle columns repeat the plain rows'."
    )
    cov_text = (
        "Coverage in hindsight with the clean empirical CDF of the training "
        "fold. For M1 the paper's 57 % is not reproduced by either reading "
        "(SPEC 1.5: 0.40 when exact reports count 0, 0.61 when the exact "
        "disclosure is ignored)."
    )
    return [
        Section("5-fold CV: R2 and MAE (years)", text, [pd.DataFrame(rows)]),
        Section("Coverage of the three mechanisms", cov_text, [pd.DataFrame(cov_rows)]),
    ]
