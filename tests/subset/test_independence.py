"""Independence tests: nominal level under H0, power, degrees of freedom, errors."""

import numpy as np
import pandas as pd
import pytest

from skprivate.subset import (
    SubsetDesign,
    SubsetDistributionEstimator,
    SubsetUniform,
    subset_independence_test,
)

METHODS = ["lrt-mle", "lrt-mom", "pearson", "bonferroni"]


def _pair(n, rho, rng, design):
    p = design.n_categories
    w = np.full(p, 1 / p)
    joint = np.outer(w, w) + rho * np.eye(p)
    joint /= joint.sum()
    cells = rng.choice(p * p, size=n, p=joint.ravel())
    x, y = np.divmod(cells, p)
    return design.sample(x, rng), design.sample(y, rng)


@pytest.mark.parametrize("method", METHODS)
def test_level_under_independence(method):
    design = SubsetDesign.uniform(4)
    rng = np.random.default_rng(1)
    reps = 200
    pvalues = np.array(
        [
            subset_independence_test(
                *_pair(500, 0.0, rng, design), method=method
            ).pvalue
            for _ in range(reps)
        ]
    )
    rate = np.mean(pvalues < 0.05)
    # Bonferroni is conservative by construction; the others are asymptotically exact.
    assert rate < 0.05 + 4 * np.sqrt(0.05 * 0.95 / reps)
    if method != "bonferroni":
        assert rate > 0.05 - 4 * np.sqrt(0.05 * 0.95 / reps)


@pytest.mark.parametrize("method", METHODS)
def test_power_under_dependence(method):
    design = SubsetDesign.uniform(4)
    rng = np.random.default_rng(2)
    rejections = [
        subset_independence_test(*_pair(1000, 0.1, rng, design), method=method).pvalue
        < 0.05
        for _ in range(20)
    ]
    assert np.mean(rejections) > 0.5


def test_degrees_of_freedom():
    design = SubsetDesign.uniform(5)
    rng = np.random.default_rng(3)
    A, B = _pair(300, 0.0, rng, design)
    assert subset_independence_test(A, B, method="lrt-mle").dof == 16
    assert subset_independence_test(A, B, method="lrt-mom").dof == 16
    # Pearson: s r - p - q + 1 with s = r = 20 possible reports of 5 categories.
    assert subset_independence_test(A, B, method="pearson").dof == 20 * 20 - 5 - 5 + 1
    assert subset_independence_test(A, B, method="bonferroni").dof == 1


def test_two_category_variables_with_dummies_hold_the_level():
    rng = np.random.default_rng(4)
    reps, n, alpha = 150, 400, 0.05
    x = rng.integers(0, 2, size=(reps, n, 2))
    hits = dict.fromkeys(METHODS, 0)
    for r in range(reps):
        mech_a = SubsetUniform(min_coverage=alpha, random_state=10 + r).fit(x[r, :, :1])
        mech_b = SubsetUniform(min_coverage=alpha, random_state=5000 + r).fit(
            x[r, :, 1:]
        )
        A, B = mech_a.transform(x[r, :, :1]), mech_b.transform(x[r, :, 1:])
        for m in METHODS:
            res = subset_independence_test(
                A, B, method=m, design_a=mech_a, design_b=mech_b
            )
            hits[m] += res.pvalue < 0.05
    for m in METHODS:
        assert hits[m] / reps < 0.05 + 4 * np.sqrt(0.05 * 0.95 / reps), m


def test_permutation_calibration_is_uniform_under_h0():
    design = SubsetDesign.uniform(4)
    rng = np.random.default_rng(5)
    pvalues = np.array(
        [
            subset_independence_test(
                *_pair(300, 0.0, rng, design),
                method="bonferroni",
                n_permutations=19,
                random_state=r,
            ).pvalue
            for r in range(100)
        ]
    )
    # Valid permutation p-values: P(p <= 0.1) <= 0.1 (on the grid k/20).
    assert np.mean(pvalues <= 0.1) < 0.1 + 4 * np.sqrt(0.1 * 0.9 / 100)
    assert pvalues.min() >= 1 / 20


def test_bad_inputs():
    design = SubsetDesign.uniform(4)
    A, B = _pair(50, 0.0, np.random.default_rng(6), design)
    with pytest.raises(ValueError, match="method"):
        subset_independence_test(A, B, method="fisher")
    with pytest.raises(ValueError, match="same number of rows"):
        subset_independence_test(A, B[:10])
    with pytest.raises(ValueError, match="n_permutations"):
        subset_independence_test(A, B, n_permutations=0)
    bad = B.copy()
    bad[7] = 0
    with pytest.raises(ValueError, match="Row 7 of B"):
        subset_independence_test(A, bad)


def _dummy_reports(n=600, seed=0):
    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, 3, size=(n, 1)), rng.integers(0, 3, size=(n, 1))
    ma = SubsetUniform(categories=[[0, 1, 2]], random_state=1).fit(a)
    mb = SubsetUniform(categories=[[0, 1, 2]], random_state=2).fit(b)
    return ma, mb, ma.transform(a), mb.transform(b)


def test_default_design_refuses_reports_with_dummy_categories():
    # Three categories and SubsetUniform's two dummies: five columns, one
    # dummy in every report.  Read as the uniform design on five categories
    # they gave p = 1e-124 on independent variables.
    ma, mb, A, B = _dummy_reports()
    expected = (
        "design_a=None reads the 5 report columns as the uniform design on 5 "
        "categories, but each of its 600 reports holds exactly one of the last "
        "two columns: these look like the reports of a 3-category column with "
        "dummy categories (SubsetUniform's default for 2 or 3 categories), "
        "which that design would misread. Pass design_a= the fitted mechanism, "
        "or SubsetUniform(categories=[[...]]) with the 3 categories; for a "
        "uniform design on 5 categories pass design_a=SubsetDesign.uniform(5)."
    )
    with pytest.raises(ValueError) as info:
        subset_independence_test(A, B, method="pearson")
    assert str(info.value) == expected
    # named report columns say so too, whatever the reports
    frame = pd.DataFrame(A, columns=ma.get_feature_names_out())
    with pytest.raises(ValueError, match="its report columns are named as dummies"):
        subset_independence_test(frame, B, method="pearson", design_b=mb)
    # with the designs given, the level holds
    p = subset_independence_test(A, B, method="pearson", design_a=ma, design_b=mb)
    assert p.pvalue > 0.01
    # the estimator reads design=None the same way
    with pytest.raises(ValueError, match=r"^design=None reads the 5 report"):
        SubsetDistributionEstimator().fit(A)


def test_uniform_reports_of_five_categories_are_not_refused():
    rng = np.random.default_rng(3)
    x = rng.integers(0, 5, size=(400, 1))
    A = SubsetUniform(categories=[np.arange(5)], random_state=0).fit_transform(x)
    assert not np.all(A[:, -2:].sum(axis=1) == 1)
    est = SubsetDistributionEstimator().fit(A)
    assert est.distribution_.size == 5
    # an explicit uniform design is taken as given
    _, _, D, _ = _dummy_reports()
    explicit = SubsetDistributionEstimator(design=SubsetDesign.uniform(5)).fit(D)
    assert explicit.distribution_.size == 5
