"""skprivate inside ordinary scikit-learn code: pipelines, column transformers,
cloning, cross-validation and searches over privacy parameters."""

import inspect

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.compose import ColumnTransformer
from sklearn.linear_model import LinearRegression, LogisticRegression, Ridge
from sklearn.model_selection import GridSearchCV, RandomizedSearchCV, cross_val_score
from sklearn.pipeline import make_pipeline

from skprivate import (
    DeconvolutionKernelRegressor,
    IntervalCaseI,
    IntervalCaseII,
    IterativeIntervalRegressor,
    LaplaceLDP,
    RVNSDensityEstimator,
    RVNSPerturber,
    SubsetUniform,
    neg_interval_mae_scorer,
)
from skprivate.datasets import load_adult, make_interval_regression
from skprivate.model_selection import most_private_setting


@pytest.fixture(scope="module")
def adult():
    return load_adult().dropna().sample(2000, random_state=0)


def test_column_transformer_with_laplace_and_subset_keeps_feature_names(adult):
    ct = ColumnTransformer(
        [
            (
                "ldp",
                LaplaceLDP(epsilon=2.0, bounds=(0, 100), random_state=0),
                ["age", "hours_per_week"],
            ),
            ("subset", SubsetUniform(random_state=0), ["race"]),
        ]
    ).set_output(transform="pandas")
    out = ct.fit_transform(adult)
    assert isinstance(out, pd.DataFrame)
    assert list(out.columns[:2]) == ["ldp__age", "ldp__hours_per_week"]
    race_cols = [c for c in out.columns if c.startswith("subset__race=")]
    assert {c.split("=", 1)[1] for c in race_cols} >= set(adult["race"].unique())
    # Privacy invariant survives the composition: each subset contains the truth.
    truth = adult["race"].to_numpy()
    hit = np.array([out.iloc[i][f"subset__race={t}"] for i, t in enumerate(truth)])
    assert hit.all()
    # The Laplace part adds noise of the scale epsilon implies (b = 2 * 100 / 2).
    noise = out["ldp__age"].to_numpy() - adult["age"].to_numpy()
    assert abs(np.mean(np.abs(noise)) - 100.0) < 4 * 100 / np.sqrt(noise.size)


def test_privatizers_inside_pipelines_feed_ordinary_models(adult):
    X = adult[["age", "education_num"]]
    y = adult["hours_per_week"].to_numpy()
    pipe = make_pipeline(
        LaplaceLDP(epsilon=5.0, bounds=(0, 100), random_state=0), Ridge()
    )
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and np.isfinite(scores).all()
    rvns_pipe = make_pipeline(
        RVNSPerturber(d=10.0, bounds=(0, 100), random_state=0), Ridge()
    )
    assert np.isfinite(cross_val_score(rvns_pipe, X, y, cv=3)).all()
    clf = make_pipeline(SubsetUniform(random_state=0), LogisticRegression(max_iter=500))
    acc = cross_val_score(clf, adult[["race", "sex"]], adult["income"], cv=3)
    assert np.isfinite(acc).all()
    # Interval outputs hold +-inf: they feed interval learners, not ordinary models.
    iv = make_pipeline(IntervalCaseI(scale=30.0, random_state=0)).set_output(
        transform="pandas"
    )
    out = iv.fit_transform(X)
    assert list(out.columns) == [
        "age_lower",
        "age_upper",
        "education_num_lower",
        "education_num_upper",
    ]
    assert ((out["age_lower"] < X["age"]) & (X["age"] <= out["age_upper"])).all()


def test_interval_regressor_grid_search_over_privacy_scale_in_parallel():
    X, y = make_interval_regression(300, random_state=0)
    est = IterativeIntervalRegressor(
        LinearRegression(),
        max_iter=200,
        privatizer=IntervalCaseI(scale=5.0, random_state=0),
    )
    search = GridSearchCV(
        est, {"privatizer__scale": [0.5, 5.0, 50.0]}, cv=3, n_jobs=2
    ).fit(X, y)
    assert set(search.cv_results_["param_privatizer__scale"]) == {0.5, 5.0, 50.0}
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    choice = most_private_setting(
        search, "privatizer__scale", more_private="higher", tolerance=0.05
    )
    assert choice["score"] >= choice["best_score"] - 0.05
    fitted = clone(est).fit(X, y)
    assert fitted.privatizer_ is not None and fitted.predict(X).shape == (300,)


def test_interval_targets_are_scored_with_interval_scorers():
    X, y = make_interval_regression(300, random_state=1)
    y_int = IntervalCaseII(scale=2.0, random_state=0).fit_transform(y[:, None])
    scores = cross_val_score(
        IterativeIntervalRegressor(max_iter=200),
        X,
        y_int,
        cv=3,
        scoring=neg_interval_mae_scorer,
    )
    assert np.isfinite(scores).all() and (scores <= 0).all()


def test_deconvolution_regressor_randomized_search_over_epsilon():
    rng = np.random.default_rng(0)
    X = rng.uniform(0, 1, size=(400, 1))
    y = np.sin(3 * X[:, 0]) + rng.normal(scale=0.1, size=400)
    est = DeconvolutionKernelRegressor(
        bandwidth=0.2, privatizer=LaplaceLDP(epsilon=5.0, bounds=(0, 1), random_state=0)
    )
    search = RandomizedSearchCV(
        est,
        {"privatizer__epsilon": [1.0, 5.0, 20.0]},
        n_iter=3,
        cv=3,
        n_jobs=2,
        random_state=0,
    ).fit(X, y)
    means = dict(
        zip(
            search.cv_results_["param_privatizer__epsilon"],
            search.cv_results_["mean_test_score"],
        )
    )
    assert means[20.0] > means[1.0]  # less noise, better fit on clean data


def test_rvns_density_grid_search_over_band_width_and_samples():
    rng = np.random.default_rng(0)
    x = np.clip(rng.normal(5, 1.5, size=(1500, 1)), 0, 10)
    est = RVNSDensityEstimator(
        privatizer=RVNSPerturber(d=2.0, bounds=(0, 10), random_state=0)
    )
    search = GridSearchCV(
        est, {"privatizer__d": [1.0, 3.0], "privatizer__k": [1, 3]}, cv=3, n_jobs=2
    ).fit(x)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    assert search.best_estimator_.privatizer_.k in (1, 3)


def test_subset_estimator_grid_search_over_coverage_bound(adult):
    from skprivate import SubsetDistributionEstimator

    est = SubsetDistributionEstimator(
        method="mle", privatizer=SubsetUniform(random_state=0)
    )
    search = GridSearchCV(
        est, {"privatizer__min_coverage": [None, 0.1, 0.3]}, cv=3, n_jobs=2
    ).fit(adult[["race"]])
    scores = search.cv_results_["mean_test_score"]
    assert np.isfinite(scores).all()
    # Scored on clean categories: between the uniform guess and minus the
    # entropy of the race mix (a cross-entropy cannot beat the entropy).
    p = adult["race"].value_counts(normalize=True).to_numpy()
    assert np.log(1 / p.size) < scores.max() < np.sum(p * np.log(p)) + 0.02
    # A coverage bound of 0.3 replaces 60% of reports by dummies: least useful.
    assert scores[2] < scores[:2].min()
    reports = SubsetUniform(random_state=1).fit_transform(adult[["race"]])
    plain = SubsetDistributionEstimator().fit(reports)
    assert plain.score(reports) == pytest.approx(plain.log_likelihood_ / len(reports))


# Every learner with a privatizer: (learner, data, grid over the privacy parameter
# and one of the learner's own parameters).
def _numeric(n=600, seed=0):
    rng = np.random.default_rng(seed)
    x = np.clip(rng.normal(5, 1.5, size=(n, 1)), 0, 10)
    return x, np.sin(x[:, 0]) + rng.normal(scale=0.1, size=n)


def _learner_cases():
    from skprivate import (
        DeconvolutionKernelClassifier,
        DeconvolutionKernelDensity,
        FlippedHuberLDP,
        FrequencyEstimator,
        FrequencyOracle,
        PerturbedKDEEstimator,
        SquareWaveEMSEstimator,
        SquareWaveLDP,
        SubsetDistributionEstimator,
    )

    x, y = _numeric()
    cats = np.random.default_rng(0).choice(list("ABCDE"), size=(600, 1))
    lap = LaplaceLDP(epsilon=4.0, bounds=(0, 10), random_state=0)
    return {
        "IterativeIntervalRegressor": (
            IterativeIntervalRegressor(
                max_iter=50, privatizer=IntervalCaseI(random_state=0)
            ),
            (x, y),
            {"privatizer__scale": [1.0, 5.0], "max_iter": [20, 50]},
        ),
        "DeconvolutionKernelRegressor": (
            DeconvolutionKernelRegressor(bandwidth=0.5, privatizer=lap),
            (x, y),
            {"privatizer__epsilon": [2.0, 8.0], "bandwidth": [0.3, 0.6]},
        ),
        "DeconvolutionKernelClassifier": (
            DeconvolutionKernelClassifier(bandwidth=0.5, privatizer=lap),
            (x, (y > 0).astype(int)),
            {"privatizer__epsilon": [2.0, 8.0], "kernel": ["gaussian", "cauchy"]},
        ),
        "DeconvolutionKernelDensity": (
            DeconvolutionKernelDensity(bandwidth=0.5, privatizer=lap),
            (x,),
            {"privatizer__epsilon": [2.0, 8.0], "bandwidth": [0.4, 0.8]},
        ),
        "FrequencyEstimator": (
            FrequencyEstimator(privatizer=FrequencyOracle(random_state=0)),
            (cats,),
            {"privatizer__epsilon": [1.0, 4.0], "method": ["norm-sub", "ibu"]},
        ),
        "SubsetDistributionEstimator": (
            SubsetDistributionEstimator(privatizer=SubsetUniform(random_state=0)),
            (cats,),
            {"privatizer__min_coverage": [None, 0.2], "method": ["mom", "mle"]},
        ),
        "RVNSDensityEstimator": (
            RVNSDensityEstimator(
                privatizer=RVNSPerturber(d=2.0, bounds=(0, 10), random_state=0)
            ),
            (x,),
            {"privatizer__d": [1.0, 3.0], "privatizer__k": [1, 2], "n_points": [50]},
        ),
        "PerturbedKDEEstimator": (
            PerturbedKDEEstimator(
                privatizer=FlippedHuberLDP(bounds=(0, 10), random_state=0)
            ),
            (x,),
            {"privatizer__epsilon": [1.0, 4.0], "n_points": [50, 100]},
        ),
        "SquareWaveEMSEstimator": (
            SquareWaveEMSEstimator(
                privatizer=SquareWaveLDP(bounds=(0, 10), random_state=0)
            ),
            (x,),
            {"privatizer__epsilon": [1.0, 4.0], "smoothing": [True, False]},
        ),
    }


LEARNER_CASES = _learner_cases()


def test_every_learner_with_a_privatizer_is_covered():
    from skprivate.utils import all_estimators

    with_privatizer = {
        name
        for name, cls in all_estimators()
        if "privatizer" in inspect.signature(cls).parameters
    }
    assert with_privatizer == set(LEARNER_CASES)


@pytest.mark.parametrize("name", sorted(LEARNER_CASES))
def test_learner_clones_cross_validates_and_searches_privacy(name):
    learner, data, grid = LEARNER_CASES[name]
    fitted = clone(learner).fit(*data)
    assert (
        fitted.privatizer_ is not None and learner.privatizer is not fitted.privatizer_
    )
    scores = cross_val_score(learner, *data, cv=3, n_jobs=2)
    assert np.isfinite(scores).all()
    search = GridSearchCV(learner, grid, cv=3, n_jobs=2).fit(*data)
    assert np.isfinite(search.cv_results_["mean_test_score"]).all()
    assert len(search.cv_results_["params"]) == np.prod([len(v) for v in grid.values()])
