"""privacy_report of estimators fitted on released reports, and learners' names.

An estimator fitted on reports released elsewhere (``oracle=``,
``design=``) only post-processes them: its report is the release's, the
rows ``privacy_report`` gives for that privatizer on its own, noted as such.
A learner fitted with ``privatizer=`` on a DataFrame names its row by the
column it privatized.
"""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
import pytest
from sklearn.linear_model import LinearRegression
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import FunctionTransformer

from skprivate import (
    BinaryLocalHashing,
    DeconvolutionKernelClassifier,
    DeconvolutionKernelDensity,
    DeconvolutionKernelRegressor,
    FrequencyEstimator,
    FrequencyOracle,
    GeneralizedRandomizedResponse,
    HadamardResponse,
    IntervalCaseI,
    IterativeIntervalRegressor,
    LaplaceLDP,
    LongitudinalFrequencyEstimator,
    LongitudinalOracle,
    OptimizedLocalHashing,
    OptimizedUnaryEncoding,
    PerturbedKDEEstimator,
    RVNSDensityEstimator,
    RVNSPerturber,
    SquareWaveEMSEstimator,
    SquareWaveLDP,
    SubsetDistributionEstimator,
    SubsetMechanism,
    SubsetUniform,
    SymmetricUnaryEncoding,
    privacy_report,
)
from skprivate._privacy_report._inspect import _privatizes
from skprivate.subset import SubsetDesign

CATS = ["A", "B", "C"]
POST = "only post-processes them and adds no privacy cost"
REBUILT = "is not fitted: read from a clone fitted on its categories"
# the columns that state the guarantee (the note differs: it names the reader)
GUARANTEE = [
    "column",
    "mechanism",
    "notion",
    "epsilon",
    "delta",
    "coverage",
    "leakage",
    "exact_disclosure",
    "audited_epsilon",
    "audited_delta",
    "categories_from_data",
]
FREQUENCY = [
    GeneralizedRandomizedResponse,
    SymmetricUnaryEncoding,
    OptimizedUnaryEncoding,
    OptimizedLocalHashing,
    BinaryLocalHashing,
    HadamardResponse,
    FrequencyOracle,
]


def _frame(n=60, cats=CATS, name="a", seed=0):
    rng = np.random.default_rng(seed)
    return pd.DataFrame({name: rng.choice(cats, n)})


def _same_guarantee(report, alone):
    pd.testing.assert_frame_equal(
        report[GUARANTEE].reset_index(drop=True),
        alone[GUARANTEE].reset_index(drop=True),
    )


def _notes(report):
    return report["note"].iloc[:-1].tolist()


# -- estimators fitted on reports released elsewhere --------------------------
@pytest.mark.parametrize("fitted", [True, False])
@pytest.mark.parametrize("cls", FREQUENCY)
def test_frequency_estimator_on_reports_states_the_oracles_release(cls, fitted):
    df = _frame()
    oracle = cls(epsilon=1.5, categories=[CATS]).set_output(transform="pandas")
    released = oracle.fit(df).transform(df)
    given = oracle if fitted else cls(epsilon=1.5, categories=[CATS])
    est = FrequencyEstimator(oracle=given).fit(released)
    report = privacy_report(est)
    _same_guarantee(report, privacy_report(oracle))
    assert report["column"].tolist() == ["a", "total"]
    assert report["mechanism"].iloc[0] == cls.__name__
    assert report["epsilon"].tolist() == [1.5, 1.5]
    [note] = _notes(report)
    assert note.startswith(
        f"release of the reports FrequencyEstimator reads, by {cls.__name__} "
        f"(oracle=); FrequencyEstimator {POST}"
    )
    assert (REBUILT in note) is not fitted
    assert "releases_per_record" not in report.attrs


def test_an_unfitted_oracle_names_the_column_from_the_report_columns():
    df = _frame()
    oue = OptimizedUnaryEncoding(epsilon=2.0, categories=[CATS])
    released = oue.set_output(transform="pandas").fit(df).transform(df)
    unfitted = OptimizedUnaryEncoding(epsilon=2.0, categories=[CATS])
    # named by the report columns a=A, a=B, a=C, as the fitted oracle names it
    est = FrequencyEstimator(oracle=unfitted).fit(released)
    assert privacy_report(est)["column"].tolist() == ["a", "total"]
    # from an array the column has no name
    report = privacy_report(
        FrequencyEstimator(oracle=unfitted).fit(released.to_numpy())
    )
    assert report["column"].tolist() == ["x0", "total"]
    assert report["epsilon"].tolist() == [2.0, 2.0]


@pytest.mark.parametrize("fitted", [True, False])
def test_longitudinal_estimator_on_reports_states_the_oracles_release(fitted):
    df = _frame()
    lo = LongitudinalOracle(
        epsilon_permanent=3.0, epsilon_instant=2.0, waves=3, categories=[CATS]
    ).fit(df)
    oracle = (
        lo
        if fitted
        else LongitudinalOracle(
            epsilon_permanent=3.0, epsilon_instant=2.0, waves=3, categories=[CATS]
        )
    )
    est = LongitudinalFrequencyEstimator(oracle=oracle).fit(lo.transform(df))
    report = privacy_report(est)
    alone = privacy_report(lo)
    if not fitted:  # reports given as an array: no column name to read
        alone["column"] = ["x0", "total"]
    _same_guarantee(report, alone)
    assert report["mechanism"].iloc[0] == "LongitudinalOracle"
    [note] = _notes(report)
    assert f"LongitudinalFrequencyEstimator {POST}" in note
    assert (REBUILT in note) is not fitted
    # the oracle's own note (what the waves cost) is kept
    assert alone["note"].iloc[0] in note


def _subset_mechanism():
    # the six subsets of two of the four categories, as 0/1 indicators
    pairs = np.array(
        [
            [1, 1, 0, 0],
            [0, 0, 1, 1],
            [1, 0, 1, 0],
            [0, 1, 0, 1],
            [1, 0, 0, 1],
            [0, 1, 1, 0],
        ]
    )
    design = SubsetDesign.independent(pairs, [0.3, 0.3, 0.1, 0.1, 0.1, 0.1])
    return SubsetMechanism(design, categories=[list("ABCD")])


@pytest.mark.parametrize(
    "make",
    [
        lambda: SubsetUniform(categories=[list("ABCDE")]),
        lambda: SubsetUniform(categories=[CATS], min_coverage=0.1),
        _subset_mechanism,
    ],
    ids=["uniform", "dummies", "mechanism"],
)
@pytest.mark.parametrize("fitted", [True, False])
def test_subset_estimator_on_reports_states_the_designs_release(make, fitted):
    mech = make().set_output(transform="pandas")
    df = _frame(n=80, cats=mech.categories[0], name="race")
    mech.fit(df)
    design = mech if fitted else make()
    est = SubsetDistributionEstimator(design=design).fit(mech.transform(df))
    report = privacy_report(est)
    _same_guarantee(report, privacy_report(mech))
    assert report["column"].tolist() == ["race", "total"]
    [note] = _notes(report)
    assert f"SubsetDistributionEstimator {POST}" in note
    assert (REBUILT in note) is not fitted


def test_a_search_over_a_reader_reports_the_release_once_and_privatizes_nothing():
    df = _frame()
    oue = OptimizedUnaryEncoding(epsilon=2.0, categories=[CATS])
    oue.set_output(transform="pandas").fit(df)
    released = oue.transform(df)
    reader = FrequencyEstimator(oracle=oue)
    assert _privatizes(reader) == (False, False)
    search = GridSearchCV(reader, {"method": ["unbiased", "norm-sub"]}, cv=2)
    report = privacy_report(search.fit(released))
    # best_estimator_ holds an unfitted clone of the oracle, rebuilt at fit
    _same_guarantee(report, privacy_report(oue))
    assert "releases_per_record" not in report.attrs
    assert "privatized" not in report["note"].iloc[-1]
    # refit=False: the candidate's oracle, fitted on its declared categories
    search = GridSearchCV(reader, {"method": ["unbiased", "norm-sub"]}, cv=2)
    report = privacy_report(search.set_params(refit=False).fit(released))
    assert report["mechanism"].tolist() == ["OptimizedUnaryEncoding", ""]
    assert report["epsilon"].tolist() == [2.0, 2.0]
    assert "releases_per_record" not in report.attrs


def test_a_reader_after_a_privatizer_step_counts_the_release_once():
    df = _frame()
    grr = GeneralizedRandomizedResponse(epsilon=1.0, categories=[CATS])
    reader = FrequencyEstimator(oracle=grr.fit(df))
    pipe = make_pipeline(
        GeneralizedRandomizedResponse(epsilon=1.0, categories=[CATS]), reader
    ).fit(df)
    report = privacy_report(pipe)
    assert report["epsilon"].tolist() == [1.0, 1.0]
    assert not any(POST in n for n in report["note"])
    # a step on the reports before the reader: post-processing, still one
    pipe = make_pipeline(FunctionTransformer(), reader).fit(grr.transform(df))
    report = privacy_report(pipe)
    assert report["epsilon"].tolist() == [1.0, 1.0]
    assert POST in _notes(report)[0]


def test_an_oracle_changed_since_fit_is_refused():
    df = _frame()
    grr = GeneralizedRandomizedResponse(epsilon=1.0, categories=[CATS]).fit(df)
    est = FrequencyEstimator(oracle=grr).fit(grr.transform(df))
    other = GeneralizedRandomizedResponse(epsilon=0.5, categories=[CATS]).fit(df)
    est.set_params(oracle=other)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "FrequencyEstimator's oracle= (GeneralizedRandomizedResponse) is not "
            "the mechanism FrequencyEstimator was fitted with: it was changed "
            "with set_params or refitted since fit."
        ),
    ):
        privacy_report(est)
    # the same object refitted with other settings
    est.set_params(oracle=grr)
    grr.set_params(epsilon=0.5).fit(df)
    with pytest.raises(ValueError, match="is not the mechanism"):
        privacy_report(est)
    # settings changed without a refit: the privatizer's own refusal
    grr.set_params(epsilon=1.0)
    with pytest.raises(ValueError, match="settings changed since fit"):
        privacy_report(est)
    # an unfitted oracle of other settings than the fit rebuilt
    lo = LongitudinalOracle(waves=2, categories=[CATS]).fit(df)
    lest = LongitudinalFrequencyEstimator(oracle=lo).fit(lo.transform(df))
    lest.set_params(oracle=LongitudinalOracle(waves=2, epsilon_permanent=4.0))
    with pytest.raises(ValueError, match="is not the mechanism"):
        privacy_report(lest)


def test_an_unfitted_reader_is_refused():
    grr = GeneralizedRandomizedResponse(epsilon=1.0, categories=[CATS]).fit(_frame())
    with pytest.raises(
        ValueError,
        match=re.escape(
            "privacy_report reads what a fitted estimator released; this "
            "FrequencyEstimator is not fitted. Fit it first"
        ),
    ):
        privacy_report(FrequencyEstimator(oracle=grr))


def test_estimators_without_a_privatizer_say_what_to_give():
    df = _frame(n=80, cats=list("ABCDE"))
    reports = SubsetUniform(categories=[list("ABCDE")]).fit_transform(df)
    with pytest.raises(
        ValueError,
        match=re.escape(
            "got SubsetDistributionEstimator. SubsetDistributionEstimator reads "
            "reports released elsewhere: give design= the privatizer that "
            "released them"
        ),
    ):
        privacy_report(
            SubsetDistributionEstimator(design=SubsetDesign.uniform(5)).fit(reports)
        )
    values = np.random.default_rng(0).uniform(0, 1, (50, 1))
    with pytest.raises(
        ValueError,
        match=re.escape(
            "got SquareWaveEMSEstimator. SquareWaveEMSEstimator was fitted "
            "without privatizer=, on data it takes as already privatized"
        ),
    ):
        privacy_report(SquareWaveEMSEstimator(epsilon=1.0, bounds=(0, 1)).fit(values))


# -- learners fitted with privatizer= name the column they privatized -------------
def _ages(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = pd.DataFrame({"age": rng.uniform(20, 60, n)})
    return X, X["age"].to_numpy() / 10 + rng.normal(size=n)


def _laplace():
    return LaplaceLDP(epsilon=1.0, bounds=(20, 60))


LEARNERS = {
    "FrequencyEstimator": lambda: FrequencyEstimator(
        privatizer=GeneralizedRandomizedResponse(epsilon=1.0, categories=[CATS])
    ),
    "FrequencyEstimator-oue": lambda: FrequencyEstimator(
        privatizer=OptimizedUnaryEncoding(epsilon=1.0, categories=[CATS])
    ),
    "SubsetDistributionEstimator": lambda: SubsetDistributionEstimator(
        privatizer=SubsetUniform(categories=[CATS], min_coverage=0.1)
    ),
    "SquareWaveEMSEstimator": lambda: SquareWaveEMSEstimator(
        privatizer=SquareWaveLDP(epsilon=1.0, bounds=(20, 60))
    ),
    "PerturbedKDEEstimator": lambda: PerturbedKDEEstimator(privatizer=_laplace()),
    "RVNSDensityEstimator": lambda: RVNSDensityEstimator(
        privatizer=RVNSPerturber(d=5.0, bounds=(20, 60))
    ),
    "DeconvolutionKernelDensity": lambda: DeconvolutionKernelDensity(
        bandwidth=5.0, privatizer=_laplace()
    ),
    "DeconvolutionKernelRegressor": lambda: DeconvolutionKernelRegressor(
        bandwidth=5.0, privatizer=_laplace()
    ),
    "DeconvolutionKernelClassifier": lambda: DeconvolutionKernelClassifier(
        bandwidth=5.0, privatizer=_laplace()
    ),
}


@pytest.mark.parametrize("prefit", [False, True], ids=["unfitted", "prefit"])
@pytest.mark.parametrize("name", list(LEARNERS))
def test_a_learner_names_the_column_its_privatizer_released(name, prefit):
    learner = LEARNERS[name]()
    categorical = name.startswith(("Frequency", "Subset"))
    X, y = (_frame(name="a"), None) if categorical else _ages()
    if name == "DeconvolutionKernelClassifier":
        y = (y > np.median(y)).astype(int)
    if prefit:  # a fitted privatizer is cloned and fitted again
        learner.privatizer.fit(X)
    learner.fit(X, y)
    report = privacy_report(learner)
    column = X.columns[0]
    alone = privacy_report(learner.privatizer_)
    rows = report.loc[report["mechanism"] == type(learner.privatizer).__name__]
    assert rows["column"].tolist() == [column]
    assert rows["epsilon"].equals(alone["epsilon"].iloc[:1].set_axis(rows.index))


def test_iterative_interval_regressor_names_the_response_and_its_raw_features():
    X, y = _ages()
    est = IterativeIntervalRegressor(
        LinearRegression(), privatizer=IntervalCaseI(loc=4, scale=2), max_iter=3
    ).fit(X, y)
    report = privacy_report(est)
    assert report["column"].tolist() == ["y", "age", "total"]


def test_frequency_estimator_records_the_raw_column_fitted_with_a_privatizer():
    df = _frame(name="a")
    est = LEARNERS["FrequencyEstimator-oue"]().fit(df)
    # three report columns, one raw column
    assert est.released_.shape == (60, 3)
    assert est.n_features_in_ == 1
    assert est.feature_names_in_.tolist() == ["a"]
    est.partial_fit(_frame(n=5, name="a", seed=1))
    assert est.n_samples_seen_ == 65
    with pytest.raises(ValueError, match="feature names should match"):
        est.partial_fit(_frame(n=5, name="b"))
    # without a privatizer the report columns are the input
    oue = est.privatizer_
    reader = FrequencyEstimator(oracle=oue).fit(
        pd.DataFrame(oue.transform(df), columns=oue.get_feature_names_out())
    )
    assert reader.n_features_in_ == 3
    assert reader.feature_names_in_.tolist() == ["a=A", "a=B", "a=C"]
