"""SubsetDistributionEstimator: formulas, agreement, asymptotics, API, bad input."""

import pickle
import warnings

import numpy as np
import pandas as pd
import pytest
from sklearn.base import clone
from sklearn.model_selection import GridSearchCV
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.subset import (
    SubsetDesign,
    SubsetDistributionEstimator,
    SubsetMechanism,
    SubsetUniform,
)
from skprivate.subset import _fitting as fitting

W4 = np.array([0.1, 0.2, 0.3, 0.4])
RACE = np.array([0.009551, 0.031909, 0.095943, 0.008323, 0.854274])
METHODS = ["mom", "em", "mle", "one-step"]


def _reports(w, n, design, seed):
    rng = np.random.default_rng(seed)
    x = rng.choice(w.size, size=n, p=w)
    return design.sample(x, random_state=seed + 1000).astype(np.int8), x


def test_mom_closed_form_equals_q_solution_for_uniform_p4():
    design = SubsetDesign.uniform(4)
    A, _ = _reports(W4, 500, design, 1)
    rows, counts = np.unique(A, axis=0, return_counts=True)
    U, counts = rows.astype(float), counts.astype(float)
    q = design.q_matrix()
    general = fitting.mom(U, counts, q)
    closed = fitting.mom(U, counts, q, uniform_r=3.0)
    np.testing.assert_allclose(general, closed, atol=1e-12)
    est = SubsetDistributionEstimator().fit(A)
    np.testing.assert_allclose(est.distribution_raw_, general, atol=1e-12)


def test_mom_closed_form_and_q_solution_differ_but_agree_in_limit_for_p5():
    # The closed form uses sum(w) = 1 exactly; with random |A|
    # (p >= 5) it differs from Q^{-1}γ̂ in finite samples; both are consistent.
    design = SubsetDesign.uniform(5)
    A, _ = _reports(RACE, 2000, design, 2)
    rows, counts = np.unique(A, axis=0, return_counts=True)
    U, counts = rows.astype(float), counts.astype(float)
    r = (2**4 - 6) / (2**3 - 4)
    general = fitting.mom(U, counts, design.q_matrix())
    closed = fitting.mom(U, counts, design.q_matrix(), uniform_r=r)
    assert np.abs(general - closed).max() > 1e-6
    A, _ = _reports(RACE, 400_000, design, 3)
    rows, counts = np.unique(A, axis=0, return_counts=True)
    U, counts = rows.astype(float), counts.astype(float)
    np.testing.assert_allclose(
        fitting.mom(U, counts, design.q_matrix()), RACE, atol=0.01
    )
    np.testing.assert_allclose(
        fitting.mom(U, counts, design.q_matrix(), uniform_r=r), RACE, atol=0.01
    )


@pytest.mark.parametrize(
    "design",
    [SubsetDesign.uniform(5), SubsetDesign.uniform(6, min_coverage=0.1)],
    ids=["uniform5", "dummies"],
)
def test_em_and_mle_agree(design):
    w = (
        np.array([0.05, 0.1, 0.15, 0.2, 0.5])
        if design.n_categories == 5
        else np.full(6, 1 / 6)
    )
    codes = np.random.default_rng(4).choice(w.size, size=3000, p=w)
    if design.has_dummies:
        u = np.random.default_rng(5).random(codes.size)
        codes = np.where(u < 0.1, 6, np.where(u < 0.2, 7, codes))
    A = design.sample(codes, random_state=6)
    em = SubsetDistributionEstimator(
        "em", design=design, tol=1e-12, max_iter=100_000
    ).fit(A)
    mle = SubsetDistributionEstimator("mle", design=design).fit(A)
    np.testing.assert_allclose(em.distribution_, mle.distribution_, atol=1e-5)
    assert mle.log_likelihood_ >= em.log_likelihood_ - 1e-6
    assert mle.n_iter_ < em.n_iter_


def test_mle_is_the_maximum_against_random_simplex_points():
    design = SubsetDesign.uniform(5)
    A, _ = _reports(RACE, 300, design, 7)
    est = SubsetDistributionEstimator("mle").fit(A)
    U, counts = est.subsets_.astype(float), est.subset_counts_
    best = fitting.log_likelihood(U, counts, est.distribution_)
    rng = np.random.default_rng(8)
    for _ in range(200):
        other = 0.9 * est.distribution_ + 0.1 * rng.dirichlet(np.ones(5))
        assert fitting.log_likelihood(U, counts, other) <= best + 1e-9


@pytest.mark.parametrize(
    "method,limit", [("mom", "mom"), ("mle", "mle"), ("one-step", "mle")]
)
def test_asymptotic_risk_matches_monte_carlo(method, limit):
    # p = 4, uniform design, w = (.1,.2,.3,.4), n = 1000.
    design = SubsetDesign.uniform(4)
    n, reps = 1000, 300
    losses = []
    for r in range(reps):
        A, _ = _reports(W4, n, design, 100 + r)
        est = SubsetDistributionEstimator(method).fit(A)
        losses.append(n * np.sum((est.distribution_raw_ - W4) ** 2))
    losses = np.array(losses)
    target = np.trace(fitting.limit_covariance(design, W4, limit))
    assert abs(losses.mean() - target) < 4 * losses.std() / np.sqrt(reps)


def test_limits_of_the_spec():
    d4 = SubsetDesign.uniform(4)
    assert np.trace(fitting.limit_covariance(d4, W4, "mom")) == pytest.approx(2.20)
    assert np.trace(fitting.limit_covariance(d4, W4, "mle")) == pytest.approx(2.10)
    d5 = SubsetDesign.uniform(5)
    assert np.trace(fitting.limit_covariance(d5, RACE, "mle")) == pytest.approx(
        0.864, abs=5e-4
    )
    assert np.trace(fitting.limit_covariance(d5, RACE, "mom")) == pytest.approx(
        2.80, abs=5e-3
    )


def test_covariance_estimates_match_monte_carlo_per_coordinate():
    design = SubsetDesign.uniform(4)
    n, reps = 2000, 200
    for method in ("mom", "mle"):
        est_w, est_var = [], []
        for r in range(reps):
            A, _ = _reports(W4, n, design, 5000 + r)
            est = SubsetDistributionEstimator(method).fit(A)
            est_w.append(est.distribution_raw_)
            est_var.append(np.diag(est.covariance_))
        mc_var = np.var(est_w, axis=0, ddof=1)
        # Sampling sd of a variance estimate over 200 reps is about 10%.
        np.testing.assert_allclose(np.mean(est_var, axis=0), mc_var, rtol=0.3)


def test_confidence_intervals_cover_at_nominal_rate():
    design = SubsetDesign.uniform(4)
    hits = 0
    reps = 200
    for r in range(reps):
        A, _ = _reports(W4, 1000, design, 9000 + r)
        lo, hi = SubsetDistributionEstimator("mle").fit(A).confidence_intervals(0.9)
        hits += int(lo[3] <= W4[3] <= hi[3])
    se = np.sqrt(0.9 * 0.1 / reps)
    assert abs(hits / reps - 0.9) < 4 * se


@pytest.mark.parametrize("method", METHODS)
def test_distribution_is_on_the_simplex(method):
    A, _ = _reports(RACE, 200, SubsetDesign.uniform(5), 10)
    est = SubsetDistributionEstimator(method).fit(A)
    assert est.distribution_.min() >= 0
    assert est.distribution_.sum() == pytest.approx(1.0)
    assert est.covariance_.shape == (5, 5)


def test_one_step_uses_the_minus_sign():
    # From an interior MoM start, the one-step estimate increases the likelihood.
    A, _ = _reports(W4, 3000, SubsetDesign.uniform(4), 11)
    mom = SubsetDistributionEstimator("mom").fit(A)
    one = SubsetDistributionEstimator("one-step").fit(A)
    mle = SubsetDistributionEstimator("mle").fit(A)
    assert one.log_likelihood_ > mom.log_likelihood_
    assert (
        np.abs(one.distribution_ - mle.distribution_).max()
        < np.abs(mom.distribution_ - mle.distribution_).max()
    )


def test_partial_fit_merges_chunks():
    A, _ = _reports(RACE, 3000, SubsetDesign.uniform(5), 12)
    full = SubsetDistributionEstimator("mle").fit(A)
    part = SubsetDistributionEstimator("mle")
    for chunk in np.array_split(A, 5):
        part.partial_fit(chunk)
    assert part.n_samples_seen_ == 3000
    np.testing.assert_allclose(part.distribution_, full.distribution_, atol=1e-10)
    assert part.subsets_.shape[0] <= 20  # distinct subsets of sizes 2 and 3


def test_partial_fit_with_a_seeded_privatizer_draws_fresh_subsets_per_chunk():
    # An int seed must not restart the privatizer's stream at every chunk:
    # the same raw chunk sent twice gets different reports.
    x = np.random.default_rng(3).choice(list("ABCDE"), 2000, p=RACE)[:, None]
    est = SubsetDistributionEstimator("mle", privatizer=SubsetUniform(random_state=5))

    def counts():
        return {tuple(r): c for r, c in zip(est.subsets_, est.subset_counts_)}

    est.partial_fit(x)
    doubled = {k: 2 * c for k, c in counts().items()}
    est.partial_fit(x)
    assert est.n_samples_seen_ == 4000
    # A restarted stream would report exactly the same subsets again.
    assert counts() != doubled


def test_privatizer_and_design_paths_agree_and_categories_are_labels():
    x = pd.DataFrame(
        {"race": np.random.default_rng(13).choice(list("ABCDE"), 4000, p=RACE)}
    )
    est = SubsetDistributionEstimator(
        "em", privatizer=SubsetUniform(random_state=14)
    ).fit(x)
    assert list(est.categories_) == list("ABCDE")
    assert est.pmf(["E", "Z"])[1] == 0.0
    assert est.pmf(["E"])[0] == pytest.approx(est.distribution_[4])
    draws = est.sample(1000, random_state=15)
    assert set(draws) <= set("ABCDE")
    # privatizer= is the manual path: a fresh privatizer with the same seed
    # releases the same data with the same noise (seed, settings, data)
    mech = SubsetUniform(random_state=14)
    A = mech.fit(x).transform(x)
    other = SubsetDistributionEstimator("em", design=mech).fit(A)
    np.testing.assert_allclose(other.distribution_, est.distribution_)
    assert est.cdf(4) == pytest.approx(1.0)


@pytest.mark.parametrize("lazy", [False, True])
def test_with_a_privatizer_the_input_columns_are_the_raw_column(lazy):
    # fit takes the raw column: n_features_in_ and feature_names_in_ describe
    # it, not the five report columns the privatizer releases
    x = pd.DataFrame(
        {"race": np.random.default_rng(21).choice(list("ABC"), 600, p=[0.2, 0.3, 0.5])}
    )
    data = x
    if lazy:
        import dask.dataframe as dd

        data = dd.from_pandas(x, npartitions=3)
    mech = SubsetUniform(categories=[list("ABC")], random_state=22)
    est = SubsetDistributionEstimator("em", privatizer=mech).fit(data)
    assert est.n_features_in_ == 1
    assert list(est.feature_names_in_) == ["race"]
    if lazy:
        return
    assert est.released_.shape == (600, 5)
    # predict_proba reads reports, whatever the raw column was called
    proba = est.predict_proba(est.released_[:4])
    assert proba.shape == (4, 3)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # a chunk of another column is refused before anything is released
    with pytest.raises(ValueError, match="feature names should match"):
        est.partial_fit(pd.DataFrame({"age": x["race"]}))
    assert est.released_.shape == (600, 5)
    assert est.n_samples_seen_ == 600
    est.partial_fit(x[:100])
    assert est.released_.shape == (700, 5)
    assert est.n_samples_seen_ == 700


def test_small_columns_with_dummies_known_alpha():
    # p = 2 (App. C): the enlarged Q is singular, so alpha is used as known.
    x = np.random.default_rng(16).choice(["F", "M"], size=(20_000, 1), p=[0.33, 0.67])
    for method in METHODS:
        est = SubsetDistributionEstimator(
            method, privatizer=SubsetUniform(min_coverage=0.1, random_state=17)
        ).fit(x)
        se = np.sqrt(np.diag(est.covariance_))
        assert abs(est.distribution_[0] - 0.33) < 4 * se[0] + 1e-3


def test_predict_proba_is_the_posterior():
    design = SubsetDesign.uniform(4)
    A, x = _reports(W4, 4000, design, 18)
    est = SubsetDistributionEstimator("mle").fit(A)
    proba = est.predict_proba(A)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    assert np.all(proba[A == 0] == 0)
    row = np.array([[1, 1, 0, 0]])
    w = est.distribution_
    np.testing.assert_allclose(est.predict_proba(row)[0, :2], w[:2] / w[:2].sum())
    # Calibration: the posterior mass of the true category averages to the truth.
    assert abs(proba[np.arange(4000), x].mean() - (proba**2).sum(axis=1).mean()) < 0.02


def test_sklearn_contracts_on_valid_data():
    A, _ = _reports(RACE, 500, SubsetDesign.uniform(5), 19)
    est = SubsetDistributionEstimator("mle")
    assert est.fit(A) is est
    params = est.get_params()
    first = est.distribution_.copy()
    est.fit(A)
    np.testing.assert_allclose(est.distribution_, first)
    assert est.get_params() == params
    assert est.n_features_in_ == 5
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_allclose(again.distribution_, first)
    frame = pd.DataFrame(A, columns=[f"race={c}" for c in "ABCDE"])
    est2 = clone(est).fit(frame)
    assert list(est2.feature_names_in_) == list(frame.columns)
    with pytest.raises(ValueError, match="4 features"):
        est.predict_proba(A[:, :4])


def test_grid_search_over_privacy_parameter():
    x = np.random.default_rng(20).choice(4, size=(600, 1), p=W4)
    pipe = Pipeline(
        [
            (
                "est",
                SubsetDistributionEstimator(
                    privatizer=SubsetUniform(min_coverage=0.1, random_state=0)
                ),
            )
        ]
    )

    def score(estimator, X, y=None):
        return -np.sum((estimator[-1].distribution_ - W4) ** 2)

    grid = GridSearchCV(
        pipe, {"est__privatizer__min_coverage": [0.05, 0.2]}, scoring=score, cv=2
    ).fit(x)
    assert grid.best_params_["est__privatizer__min_coverage"] in (0.05, 0.2)


def test_bad_reports_name_the_row():
    design = SubsetDesign.uniform(4)
    good, _ = _reports(W4, 10, design, 21)
    dummy_reports = np.hstack([good, np.tile([1, 0], (10, 1))])
    dummy_reports[3, :4] = 0  # a dummy column without any category
    with pytest.raises(ValueError, match="Row 3 of A is an empty subset"):
        SubsetDistributionEstimator(
            design=SubsetDesign.uniform(4, min_coverage=0.1)
        ).fit(dummy_reports)
    bad = good.copy()
    bad[2, 0] = 2
    with pytest.raises(ValueError, match="only 0 and 1.*row 2"):
        SubsetDistributionEstimator().fit(bad)
    bad = good.copy()
    bad[5] = [1, 1, 1, 0]
    with pytest.raises(ValueError, match="Row 5 of A.*inconsistent with the design"):
        SubsetDistributionEstimator().fit(bad)
    with pytest.raises(ValueError, match="at least 4 categories"):
        SubsetDistributionEstimator().fit(good[:, :3])
    with pytest.raises(ValueError, match="NaN|infinity"):
        SubsetDistributionEstimator().fit(np.where(good == 1, np.nan, 0.0))
    dummies = SubsetDesign.uniform(4, min_coverage=0.1)
    two = np.hstack([good, np.ones((10, 2), dtype=np.int8)])
    with pytest.raises(ValueError, match="Row 0 of A must contain exactly one"):
        SubsetDistributionEstimator(design=dummies).fit(two)
    with pytest.raises(ValueError, match="one variable"):
        SubsetDistributionEstimator(privatizer=SubsetUniform()).fit(
            np.random.default_rng(0).integers(0, 4, size=(50, 2))
        )


def test_explicit_independent_design():
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
    x = np.random.default_rng(22).choice(4, size=(20_000, 1), p=W4)
    mech = SubsetMechanism(design, random_state=23).fit(x)
    for method in METHODS:
        est = SubsetDistributionEstimator(method, design=mech).fit(mech.transform(x))
        se = np.sqrt(np.diag(est.covariance_))
        assert np.all(np.abs(est.distribution_raw_ - W4) < 4 * se + 1e-4)


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_mle_is_robust_on_small_samples_with_rare_categories():
    # Any EM iterate has a log-likelihood below the maximum.
    design = SubsetDesign.uniform(5)
    for seed in range(100):
        A, _ = _reports(RACE, 120 + seed, design, 20_000 + seed)
        mle = SubsetDistributionEstimator("mle").fit(A)
        assert np.all(np.isfinite(mle.distribution_))
        assert np.isfinite(mle.log_likelihood_)
        U, counts = mle.subsets_.astype(float), mle.subset_counts_
        em_w, _ = fitting.em(U, counts, np.full(5, 0.2), max_iter=500, tol=1e-10)
        assert fitting.log_likelihood(U, counts, mle.distribution_) >= (
            fitting.log_likelihood(U, counts, em_w) - 1e-6
        )


def _race_frame(n=3000, seed=0):
    races = ["Amer", "Asian", "Black", "Other", "White"]
    rng = np.random.default_rng(seed)
    return pd.DataFrame({"race": rng.choice(races, n, p=[0.02, 0.05, 0.1, 0.03, 0.8])})


def test_privatizer_as_design_survives_clone():
    """The README pattern design=<fitted SubsetUniform> under clone."""
    from sklearn.base import clone
    from sklearn.model_selection import GridSearchCV, cross_val_score

    X = _race_frame()
    with pytest.warns(PrivacyLeakWarning):
        urn = SubsetUniform(random_state=0).fit(X)
    reports = urn.transform(X)
    est = SubsetDistributionEstimator(method="mle", design=urn).fit(reports)
    assert list(est.categories_) == ["Amer", "Asian", "Black", "Other", "White"]
    # An unfitted clone rebuilds the same design from the 5 report columns:
    # p = 3 with dummies also has 5 columns but never reports these rows.
    refit = clone(est).fit(reports)
    np.testing.assert_allclose(refit.distribution_, est.distribution_)
    assert list(refit.categories_) == [0, 1, 2, 3, 4]
    scores = cross_val_score(clone(est), reports, cv=3)
    assert np.all(np.isfinite(scores))
    # Report columns named race=White, ... give the category names back.
    frame = pd.DataFrame(reports, columns=urn.get_feature_names_out())
    named = clone(est).fit(frame)
    assert list(named.categories_) == list(est.categories_)
    np.testing.assert_allclose(named.distribution_, est.distribution_)
    search = GridSearchCV(clone(est), {"method": ["mom", "mle"]}, cv=3).fit(frame)
    assert list(search.best_estimator_.categories_) == list(est.categories_)
    # Declared categories are used as they are.
    declared = SubsetUniform(categories=[list(est.categories_)])
    out = SubsetDistributionEstimator("mle", design=declared).fit(reports)
    np.testing.assert_allclose(out.distribution_, est.distribution_)
    assert list(out.categories_) == list(est.categories_)


def test_unfitted_design_that_cannot_be_rebuilt():
    from sklearn.base import clone

    X = _race_frame(200)
    three = X.assign(race=X.race.map(lambda r: r if r in ("White", "Black") else "x"))
    with pytest.warns(PrivacyLeakWarning):
        urn = SubsetUniform(random_state=0).fit(three)
    reports = urn.transform(three)  # 3 categories + 2 dummies = 5 columns
    with pytest.raises(ValueError, match=r"design .*5 report columns for \[5, 3\]"):
        SubsetDistributionEstimator(design=clone(urn)).fit(reports)
    frame = pd.DataFrame(reports, columns=urn.get_feature_names_out())
    est = SubsetDistributionEstimator(design=clone(urn)).fit(frame)
    assert list(est.categories_) == ["Black", "White", "x"]
    with pytest.raises(TypeError, match="design must be a SubsetDesign"):
        SubsetDistributionEstimator(design=StandardScaler()).fit(reports)


def test_unknown_category_rows_are_left_out_with_a_warning():
    X = _race_frame(2000)
    urn = SubsetUniform(
        categories=[["Amer", "Asian", "Black", "White"]],
        handle_unknown="ignore",
        random_state=0,
    ).fit(X[X.race != "Other"])
    reports = urn.transform(X)
    n_other = int((X.race == "Other").sum())
    assert (reports.sum(axis=1) == 0).sum() == n_other
    with pytest.warns(UserWarning, match=f"{n_other} of 2000 rows of A are all zero"):
        est = SubsetDistributionEstimator("mle", design=urn).fit(reports)
    assert est.n_unknown_ == n_other and est.n_samples_seen_ == 2000
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        known = SubsetDistributionEstimator("mle", design=urn).fit(
            reports[reports.sum(axis=1) > 0]
        )
    np.testing.assert_allclose(est.distribution_, known.distribution_)
    with pytest.raises(ValueError, match="Every row of A is all zero"):
        SubsetDistributionEstimator(design=urn).fit(np.zeros((3, 4)))


def test_mixed_types_name_the_column():
    X = pd.DataFrame({"race": [1, "a"] * 5})
    with pytest.raises(TypeError, match=r"Column 'race' mixes values of types"):
        SubsetUniform().fit(X)
    mech = SubsetUniform(categories=[[1, "a"]]).fit(X)
    assert mech.transform(X).shape == (10, 4)


def test_independence_and_leakage_name_the_argument():
    from skprivate.subset import subset_independence_test, subset_leakage

    with pytest.raises(ValueError, match="A and B have 0 rows"):
        subset_independence_test(np.zeros((0, 5)), np.zeros((0, 5)))
    with pytest.raises(TypeError, match="subset_leakage: design must be"):
        subset_leakage("uniform", [0.25] * 4)
