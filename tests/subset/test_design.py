"""Designs and mechanisms: validity, sampling law, question side, leakage numbers."""

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import stats

from skprivate.subset import (
    SubsetDesign,
    SubsetMechanism,
    SubsetUniform,
    subset_individual_leakage,
    subset_leakage,
)
from skprivate.subset._design import indicators_to_masks, uniform_ratio

RACE = np.array([0.009551, 0.031909, 0.095943, 0.008323, 0.854274])

PAIRS = np.array(
    [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 0, 1], [0, 1, 1, 0]]
)

COND = np.vstack([PAIRS, [[1, 1, 1, 1]]])
COND_MU = [0.3, 0.3, 0.25, 0.25, 0.2, 0.2, 0.25]


@pytest.mark.parametrize("p", range(4, 11))
def test_uniform_q_closed_form_matches_enumeration(p):
    design = SubsetDesign.uniform(p)
    ind, mu = design.subsets()
    q = (ind * mu[:, None]).T @ ind
    expected = np.full((p, p), 1 / uniform_ratio(p))
    np.fill_diagonal(expected, 1.0)
    np.testing.assert_allclose(q, expected, atol=1e-12)
    np.testing.assert_allclose(design.q_matrix(), expected)
    # Conditional design: for every category the subsets containing it sum to 1.
    np.testing.assert_allclose(ind.T @ mu, 1.0)


def test_large_uniform_design_is_not_enumerated_but_samples():
    design = SubsetDesign.uniform(40)
    codes = np.random.default_rng(1).integers(0, 40, size=2000)
    a = design.sample(codes, random_state=2)
    assert a[np.arange(codes.size), codes].all()
    size = a.sum(axis=1)
    assert size.min() >= 2 and size.max() <= 38
    with pytest.raises(ValueError, match="enumerated"):
        design.subsets()


def _gof(design, codes, reports):
    """Chi-square goodness of fit of P(A = a | X = j) for every j."""
    p = design.n_categories
    ind, mu = design.subsets()
    masks = indicators_to_masks(ind.astype(bool))
    got = indicators_to_masks(reports[:, :p].astype(bool))
    pvalues = []
    for j in range(p):
        rows = codes == j
        probs = mu * ind[:, j]
        keep = probs > 0
        idx = np.searchsorted(masks[keep], got[rows])
        assert np.all(masks[keep][idx] == got[rows])
        obs = np.bincount(idx, minlength=keep.sum())
        pvalues.append(stats.chisquare(obs, rows.sum() * probs[keep]).pvalue)
    return np.array(pvalues)


@pytest.mark.parametrize(
    "design",
    [
        SubsetDesign.uniform(4),
        SubsetDesign.uniform(5),
        SubsetDesign.independent(PAIRS, [0.3, 0.3, 0.1, 0.1, 0.1, 0.1]),
        SubsetDesign.conditional(COND, COND_MU),
    ],
    ids=["uniform4", "uniform5", "independent", "conditional"],
)
def test_sampling_law_matches_design(design):
    codes = np.random.default_rng(3).integers(0, design.n_categories, size=40_000)
    reports = design.sample(codes, random_state=4)
    assert reports[np.arange(codes.size), codes].all()
    pvalues = _gof(design, codes, reports)
    # Bonferroni over the categories at a 1e-3 family level (fixed seeds).
    assert pvalues.min() > 1e-3 / design.n_categories


def test_question_side_has_the_same_law_as_the_mechanism():
    design = SubsetDesign.uniform(5)
    rng = np.random.default_rng(5)
    codes = rng.integers(0, 5, size=30_000)
    questions = design.draw_questions(codes.size, random_state=6)
    answers = questions[np.arange(codes.size), codes] == 1
    reports = design.record_answers(questions, answers)
    assert reports[np.arange(codes.size), codes].all()
    assert _gof(design, codes, reports).min() > 1e-3 / 5


def test_conditional_design_has_no_question_form():
    design = SubsetDesign.conditional(COND, COND_MU)
    with pytest.raises(ValueError, match="conditional"):
        design.draw_questions(3)


def test_appendix_b_design_is_valid_and_covers_alpha():
    alpha = 0.1
    design = SubsetDesign.uniform(4, min_coverage=alpha)
    assert design.n_outputs == 6
    rng = np.random.default_rng(7)
    codes = rng.integers(0, 6, size=60_000)
    reports = design.sample(codes, random_state=8)
    assert reports[np.arange(codes.size), codes].all()
    assert np.all(reports[:, 4:].sum(axis=1) == 1)
    # Induced conditional design on [p+2]: mu'_{a ∪ {d}} = nu_a for every
    # category, so P(A = a ∪ {d} | X = j) = nu_a 1{j in a ∪ {d}}.
    ind, mu = design.subsets()
    nu = mu / 2
    full = np.array(
        [np.concatenate([row, [d == 0, d == 1]]) for d in (0, 1) for row in ind]
    ).astype(bool)
    full_nu = np.concatenate([nu, nu])
    np.testing.assert_allclose(full.T.astype(float) @ full_nu, 1.0)
    keys = indicators_to_masks(full)
    got = indicators_to_masks(reports.astype(bool))
    order = np.argsort(keys)
    for j in range(6):
        rows = codes == j
        probs = full_nu * full[:, j]
        idx = order[np.searchsorted(keys[order], got[rows])]
        obs = np.bincount(idx, minlength=keys.size)[probs > 0]
        assert stats.chisquare(obs, rows.sum() * probs[probs > 0]).pvalue > 1e-4
    w = np.array([0.7, 0.1, 0.1, 0.1])
    cover = subset_individual_leakage(reports, design, w)["size_coverage"]
    assert cover.min() >= alpha


def test_appendix_c_p2_enlarged_q_is_singular():
    design = SubsetDesign.uniform(2, min_coverage=0.1)
    codes = np.repeat(np.arange(4), 20_000)
    reports = design.sample(codes, random_state=9).astype(float)
    # Q'_ij = P(i in A | X = j) on the enlarged domain, estimated.
    q = np.stack([reports[codes == j].mean(axis=0) for j in range(4)], axis=1)
    exact = np.array(
        [[1, 0, 0.5, 0.5], [0, 1, 0.5, 0.5], [0.5, 0.5, 1, 0], [0.5, 0.5, 0, 1]]
    )
    np.testing.assert_allclose(q, exact, atol=0.02)
    np.testing.assert_allclose(np.linalg.eigvalsh(exact), [0, 1, 1, 2], atol=1e-12)


def test_spec_leakage_numbers():
    ex2 = subset_leakage(SubsetDesign.uniform(4), [0.01, 0.1, 0.2, 0.69])
    assert ex2["size_coverage"] == pytest.approx(0.6841, abs=5e-5)
    race = subset_leakage(SubsetDesign.uniform(5), RACE)
    assert race["size_leakage_nonprivate"] == pytest.approx(0.260, abs=5e-4)
    assert race["size_leakage"] == pytest.approx(0.156, abs=5e-4)
    assert race["mutual_information_bits_nonprivate"] == pytest.approx(0.799, abs=5e-4)
    assert race["mutual_information_bits"] == pytest.approx(0.409, abs=5e-4)
    assert race["prediction_leakage"] == pytest.approx(0.922, abs=5e-4)
    assert race["prediction_leakage_fully_private"] == pytest.approx(0.854, abs=5e-4)
    case14 = subset_individual_leakage([[0, 1, 0, 0, 1]], SubsetDesign.uniform(5), RACE)
    assert case14["size_leakage"][0] == pytest.approx(0.114, abs=5e-4)
    assert case14["guess"][0] == 4


def test_leakage_measures_against_monte_carlo():
    design = SubsetDesign.uniform(5)
    rng = np.random.default_rng(10)
    x = rng.choice(5, size=200_000, p=RACE)
    reports = design.sample(x, random_state=11)
    ind = subset_individual_leakage(reports, design, RACE, y_true=x)
    pop = subset_leakage(design, RACE)
    for key, pkey in [
        ("size_coverage", "size_coverage"),
        ("information_bits", "mutual_information_bits"),
        ("prediction_leakage", "prediction_leakage"),
    ]:
        values = ind[key]
        se = values.std() / np.sqrt(values.size)
        assert abs(values.mean() - pop[pkey]) < 4 * se


def test_design_validation_errors():
    with pytest.raises(ValueError, match="sum to 1"):
        SubsetDesign.independent(PAIRS, [0.3, 0.3, 0.1, 0.1, 0.1, 0.2])
    single = np.array([[1, 0, 0, 0], [0, 1, 1, 1], [1, 1, 0, 0], [0, 0, 1, 1]])
    with pytest.raises(ValueError, match="row 0 has size 1"):
        SubsetDesign.independent(single, [0.25, 0.25, 0.25, 0.25])
    # Only {0,1} and its complement: Q is singular.
    with pytest.raises(ValueError, match="not identifiable"):
        SubsetDesign.independent(PAIRS[:2], [0.5, 0.5])
    with pytest.raises(ValueError, match="symmetric"):
        SubsetDesign.independent(
            PAIRS, [0.3, 0.1, 0.1, 0.1, 0.3, 0.1], min_coverage=0.1
        )
    with pytest.raises(ValueError, match="for category 1 they sum to 0.9"):
        SubsetDesign.conditional(PAIRS[:4], [0.5, 0.5, 0.5, 0.4])
    with pytest.raises(ValueError, match="size below 2"):
        SubsetDesign.conditional(single, [1.0, 1.0, 0.0, 0.0])
    with pytest.raises(ValueError, match="n_categories=1"):
        SubsetDesign.uniform(1)
    with pytest.raises(ValueError, match="min_coverage"):
        SubsetDesign.uniform(3)
    with pytest.raises(ValueError, match="min_coverage"):
        SubsetDesign.uniform(5, min_coverage=0.6)
    with pytest.raises(ValueError, match="only 0 and 1"):
        SubsetDesign.conditional([[2, 0, 1, 1]], [1.0])
    with pytest.raises(ValueError, match="distinct"):
        SubsetDesign.independent(PAIRS[[0, 0]], [0.5, 0.5])


def test_subset_uniform_transformer_api():
    df = pd.DataFrame(
        {
            "race": ["White", "Black", "Asian", "Other", "White", "Black"],
            "sex": ["M", "F", "F", "M", "M", "F"],
        }
    )
    mech = SubsetUniform(random_state=0).fit(df)
    names = list(mech.get_feature_names_out())
    assert names == [
        "race=Asian",
        "race=Black",
        "race=Other",
        "race=White",
        "sex=F",
        "sex=M",
        "sex=<dummy1>",
        "sex=<dummy2>",
    ]
    out = mech.set_output(transform="pandas").transform(df)
    assert isinstance(out, pd.DataFrame) and list(out.columns) == names
    assert np.all(out.iloc[:, 6:].sum(axis=1) == 1)
    summary = mech.privacy_summary()
    assert summary["notion"] == "subset privacy"
    assert summary["columns"][1]["min_coverage"] == 0.05
    with_w = SubsetUniform().fit(df[["race"]]).privacy_summary([0.1, 0.2, 0.3, 0.4])
    assert "leakage" in with_w["columns"][0]


def test_dummy_respondents_replace_rows_at_rate_two_alpha():
    alpha, n = 0.1, 50_000
    x = np.random.default_rng(12).integers(0, 7, size=(n, 2))
    mech = SubsetUniform(min_coverage=alpha, random_state=13).fit(x)
    a = mech.transform(x)
    assert a.shape == (n, 18)
    for j in range(2):
        block = a[:, 9 * j : 9 * j + 9]
        assert np.all(block[:, 7:].sum(axis=1) == 1)
        # A dummy respondent (probability 2 alpha) reports a set drawn from a
        # symmetric nu, which misses the row's value with probability 1/2.
        missing = block[np.arange(n), x[:, j]] == 0
        se = np.sqrt(alpha * (1 - alpha) / n)
        assert abs(missing.mean() - alpha) < 4 * se


def test_mechanism_bad_inputs():
    with pytest.raises(ValueError, match="1 category"):
        SubsetUniform().fit([["a"], ["a"]])
    with pytest.raises(ValueError, match="missing value"):
        SubsetUniform().fit(pd.DataFrame({"race": ["a", None, "b", "c"]}))
    with pytest.raises(ValueError, match="'race'.*missing"):
        SubsetUniform().fit(pd.DataFrame({"race": [1.0, np.nan, 2.0, 3.0]}))
    mech = SubsetUniform().fit([["a"], ["b"], ["c"], ["d"]])
    with pytest.raises(ValueError, match="unknown category in column 'x0' at row 0"):
        mech.transform([["e"]])
    ignored = SubsetUniform(handle_unknown="ignore").fit([["a"], ["b"], ["c"], ["d"]])
    assert ignored.transform([["e"]]).sum() == 0
    design = SubsetDesign.uniform(5)
    with pytest.raises(ValueError, match="n_categories=5"):
        SubsetMechanism(design).fit([["a"], ["b"], ["c"], ["d"]])
    with pytest.raises(ValueError, match="categories must list one array"):
        SubsetUniform(categories=[["a", "b"], ["c", "d"]]).fit([["a"], ["b"]])


def test_product_mechanism_with_designs_per_column():
    x = np.random.default_rng(14).integers(0, 4, size=(1000, 2))
    designs = [
        SubsetDesign.uniform(4),
        SubsetDesign.independent(PAIRS, [0.3, 0.3, 0.1, 0.1, 0.1, 0.1]),
    ]
    a = SubsetMechanism(designs, random_state=15).fit_transform(x)
    assert a.shape == (1000, 8)
    assert a[np.arange(1000), x[:, 0]].all() and a[np.arange(1000), 4 + x[:, 1]].all()


def test_privatizing_a_million_rows_is_vectorized():
    x = np.random.default_rng(16).integers(0, 5, size=(1_000_000, 1))
    a = SubsetUniform(random_state=17).fit_transform(x)
    assert a.shape == (1_000_000, 5) and a[np.arange(1_000_000), x[:, 0]].all()


@settings(max_examples=25, deadline=None)
@given(
    p=st.integers(2, 9),
    alpha=st.one_of(st.none(), st.floats(0.01, 0.45)),
    seed=st.integers(0, 2**31),
)
def test_every_report_contains_the_category(p, alpha, seed):
    if p < 4 and alpha is None:
        alpha = 0.05
    design = SubsetDesign.uniform(p, min_coverage=alpha)
    codes = np.random.default_rng(seed).integers(0, design.n_outputs, size=300)
    reports = design.sample(codes, random_state=seed + 1)
    assert reports[np.arange(codes.size), codes].all()
    if alpha is not None:
        assert np.all(reports[:, p:].sum(axis=1) == 1)


def test_pipeline_with_a_downstream_classifier():
    from sklearn.compose import ColumnTransformer
    from sklearn.linear_model import LogisticRegression
    from sklearn.pipeline import make_pipeline

    from skprivate.datasets import load_adult

    adult = load_adult().head(3000)
    y = adult["income"] == ">50K"
    pipe = make_pipeline(
        ColumnTransformer(
            [("subset", SubsetUniform(random_state=0), ["race", "sex", "relationship"])]
        ),
        LogisticRegression(max_iter=500),
    ).fit(adult, y)
    # Private features still carry signal about income.
    from sklearn.metrics import roc_auc_score

    assert roc_auc_score(y, pipe.predict_proba(adult)[:, 1]) > 0.65


def test_question_side_with_dummies_adds_one_dummy():
    design = SubsetDesign.uniform(3, min_coverage=0.1)
    questions = design.draw_questions(1000, random_state=30)
    codes = np.random.default_rng(31).integers(0, 3, size=1000)
    answers = questions[np.arange(1000), codes] == 1
    reports = design.record_answers(questions, answers, random_state=32)
    assert reports.shape == (1000, 5)
    assert reports[np.arange(1000), codes].all()
    assert np.all(reports[:, 3:].sum(axis=1) == 1)
    with pytest.raises(ValueError, match="answers must be booleans"):
        design.record_answers(questions, np.full(1000, 2))


def test_privacy_summary_per_column_weights():
    x = np.column_stack([np.arange(40) % 4, np.arange(40) % 5])
    mech = SubsetUniform().fit(x)
    out = mech.privacy_summary([np.full(4, 0.25), np.full(5, 0.2)])
    sizes = [c["leakage"]["size_leakage"] for c in out["columns"]]
    # p = 4: every report is a pair covering 1/2.  p = 5: tau = 2/20 *
    # (10 * 0.4² + 10 * 0.6²) = 0.52.
    assert sizes == pytest.approx([0.5, 0.48])
