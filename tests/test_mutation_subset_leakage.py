"""The subset designs' leakage measures (``subset/_leakage.py``) against the
joint law of the respondent's category and report, enumerated in full.

For each design the joint probabilities ``P(X = x, A = a)`` are built from
the design's definition (with dummy categories, on the enlarged variable of
Appendix B: true categories with mass ``(1 - 2 alpha) w``, each dummy with
``alpha``, and a true respondent's report joined by a dummy drawn at even
odds), and every measure is computed from them by its definition:
coverage ``E[P(X in A | A)]``-style sums, mutual information, entropies and
the accuracy of the best guess.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from skprivate.subset import SubsetDesign, subset_individual_leakage, subset_leakage
from skprivate.subset._design import masks_to_indicators


def _joint(design, w):
    """``{report (frozenset of outputs): {x: P(X = x, A = report)}}`` and the
    law of the (enlarged) variable ``X``."""
    p = design.n_categories
    ind = masks_to_indicators(design._masks, p)
    mu = design._mu
    joint: dict = {}
    if not design.has_dummies:
        law = {j: w[j] for j in range(p)}
        for row, m in zip(ind, mu):
            a = frozenset(np.flatnonzero(row).tolist())
            for j in a:
                joint.setdefault(a, {})[j] = joint.get(a, {}).get(j, 0.0) + w[j] * m
        return joint, law
    alpha = design.min_coverage
    s = 1 - 2 * alpha
    law = {j: s * w[j] for j in range(p)}
    law.update({p: alpha, p + 1: alpha})
    nu = design._nu
    for row, m, n_a in zip(ind, mu, nu):
        a = frozenset(np.flatnonzero(row).tolist())
        for d in (p, p + 1):
            report = a | {d}
            cell = joint.setdefault(report, {})
            for j in a:  # a true respondent reports a (mu_a), then a dummy
                cell[j] = cell.get(j, 0.0) + law[j] * m * 0.5
            # the dummy respondent d reports the question itself
            cell[d] = cell.get(d, 0.0) + law[d] * n_a
    return joint, law


def _measures(joint, law):
    total = sum(v for cell in joint.values() for v in cell.values())
    assert total == pytest.approx(1.0, abs=1e-12)
    px = law
    tau = mi = pred = 0.0
    for report, cell in joint.items():
        pa = sum(cell.values())
        # the share of the (enlarged) population the report covers
        cover = sum(px[x] for x in report)
        tau += pa * cover
        for x, v in cell.items():
            if v > 0:
                mi += v * np.log2(v / (px[x] * pa))
        pred += max(cell.values())
    h = -sum(v * np.log2(v) for v in px.values() if v > 0)
    return {
        "size_coverage": tau,
        "mutual_information_bits": mi,
        "entropy_bits": h,
        "prediction_leakage": pred,
    }


DESIGNS = [
    ("uniform 4", lambda: SubsetDesign.uniform(4), [0.1, 0.2, 0.3, 0.4]),
    ("uniform 5", lambda: SubsetDesign.uniform(5), [0.05, 0.05, 0.2, 0.3, 0.4]),
    (
        "uniform 5, dummies",
        lambda: SubsetDesign.uniform(5, min_coverage=0.1),
        [0.05, 0.05, 0.2, 0.3, 0.4],
    ),
    (
        "uniform 3, dummies",
        lambda: SubsetDesign.uniform(3, min_coverage=0.2),
        [0.5, 0.3, 0.2],
    ),
    (
        "independent, skewed",
        lambda: SubsetDesign.independent(
            [[1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 0, 1]], [0.5, 0.3, 0.2]
        ),
        [0.4, 0.3, 0.2, 0.1],
    ),
    (
        "conditional",
        lambda: SubsetDesign.conditional(
            [[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 1, 1]], [0.3, 0.3, 0.3, 0.4]
        ),
        [0.6, 0.3, 0.1],
    ),
    ("uniform 4, a zero weight", lambda: SubsetDesign.uniform(4), [0.0, 0.2, 0.3, 0.5]),
    (
        "uniform 4, two zero weights",
        lambda: SubsetDesign.uniform(4),
        [0.0, 0.0, 0.5, 0.5],
    ),
]


@pytest.mark.parametrize(("label", "build", "w"), DESIGNS, ids=[d[0] for d in DESIGNS])
def test_population_leakages_equal_the_enumerated_joint_law(label, build, w):
    design = build()
    w = np.asarray(w)
    got = subset_leakage(design, w)
    joint, law = _joint(design, w)
    want = _measures(joint, law)
    # the coverage of a report is the mass of the enlarged categories in it
    for key in want:
        assert got[key] == pytest.approx(want[key], rel=1e-12, abs=1e-15), key
    assert got["size_leakage"] == pytest.approx(1 - want["size_coverage"], rel=1e-12)
    assert got["conditional_entropy_bits"] == pytest.approx(
        want["entropy_bits"] - want["mutual_information_bits"], rel=1e-12, abs=1e-15
    )
    full = np.array(list(law.values()))
    assert got["size_leakage_nonprivate"] == pytest.approx(1 - (full**2).sum())
    assert got["mutual_information_bits_nonprivate"] == pytest.approx(
        want["entropy_bits"]
    )
    assert got["prediction_leakage_nonprivate"] == 1.0
    assert got["size_leakage_fully_private"] == 0.0
    assert got["mutual_information_bits_fully_private"] == 0.0
    assert got["prediction_leakage_fully_private"] == pytest.approx(full.max())
    assert len(got) == 12


@pytest.mark.parametrize(("label", "build", "w"), DESIGNS, ids=[d[0] for d in DESIGNS])
def test_individual_leakages_equal_the_posterior_of_each_report(label, build, w):
    design = build()
    w = np.asarray(w)
    joint, law = _joint(design, w)
    k = design.n_outputs
    # reports no respondent can give (every category in them without mass)
    # are checked on their own below
    reports = sorted((a for a in joint if sum(joint[a].values()) > 0), key=sorted)
    A = np.zeros((len(reports), k))
    for i, a in enumerate(reports):
        A[i, sorted(a)] = 1
    truth = np.array([min(a) for a in reports])
    got = subset_individual_leakage(A, design, w, y_true=truth)
    for i, a in enumerate(reports):
        cell = joint[a]
        pa = sum(cell.values())
        cover = sum(law[x] for x in a)
        assert got["size_coverage"][i] == pytest.approx(cover, rel=1e-12)
        assert got["size_leakage"][i] == pytest.approx(1 - cover, rel=1e-12)
        assert got["information_bits"][i] == pytest.approx(-np.log2(cover), rel=1e-12)
        # the best guess is the likeliest category given the report
        posterior = {x: v / pa for x, v in cell.items()}
        best = max(posterior.values())
        assert posterior.get(int(got["guess"][i]), 0.0) == pytest.approx(best, rel=1e-9)
        assert got["guess_probability"][i] == pytest.approx(
            law[int(got["guess"][i])] / cover, rel=1e-12
        )
        assert got["prediction_leakage"][i] == float(got["guess"][i] == truth[i])
    assert set(got) == {
        "size_coverage",
        "size_leakage",
        "information_bits",
        "guess",
        "guess_probability",
        "prediction_leakage",
    }
    without = subset_individual_leakage(A, design, w)
    assert "prediction_leakage" not in without


def test_ties_of_the_guess_go_to_the_first_category():
    design = SubsetDesign.uniform(4)
    out = subset_individual_leakage([[1, 1, 0, 0], [0, 0, 1, 1]], design, [0.25] * 4)
    assert out["guess"].tolist() == [0, 2]
    np.testing.assert_allclose(out["guess_probability"], 0.5)


def test_refusals_name_the_function_and_what_is_expected():
    design = SubsetDesign.uniform(4)
    with pytest.raises(
        TypeError,
        match=r"^subset_leakage: design must be a SubsetDesign \(for a fitted "
        r"SubsetUniform or SubsetMechanism, pass its designs_\[j\]\); got str\.$",
    ):
        subset_leakage("uniform", [0.25] * 4)
    with pytest.raises(TypeError, match=r"^subset_individual_leakage: design must"):
        subset_individual_leakage([[1, 1, 0, 0]], None, [0.25] * 4)
    with pytest.raises(
        ValueError,
        match=r"^weights must have one entry per category \(4\); got shape \(3,\)\.$",
    ):
        subset_leakage(design, [0.5, 0.25, 0.25])
    for bad in ([0.5, 0.5, 0.5, -0.5], [0.3, 0.3, 0.3, 0.3], [np.inf, 0, 0, 0]):
        with pytest.raises(
            ValueError, match=r"^weights must be non-negative and sum to 1\.$"
        ):
            subset_leakage(design, bad)
    subset_leakage(design, [0.25, 0.25, 0.25, 0.25 + 5e-7])  # within 1e-6
    with pytest.raises(
        ValueError, match=r"^A must have shape \(n, 4\); got \(1, 5\)\.$"
    ):
        subset_individual_leakage([[1, 1, 0, 0, 0]], design, [0.25] * 4)
    with pytest.raises(ValueError, match=r"got \(4,\)\.$"):
        subset_individual_leakage([1, 1, 0, 0], design, [0.25] * 4)
    A = [[1, 1, 0, 0], [0, 1, 1, 0]]
    with pytest.raises(
        ValueError, match=r"^y_true must have one entry per row \(2\); got \(3,\)\.$"
    ):
        subset_individual_leakage(A, design, [0.25] * 4, y_true=[0, 1, 2])
    for y in ([0, 4], [0, -1], [0, 1.5]):
        with pytest.raises(
            ValueError,
            match=r"^y_true must hold category codes, ints in \[0, 3\]; row 1 does not "
            r"\(1 such rows\)\.$",
        ):
            subset_individual_leakage(A, design, [0.25] * 4, y_true=y)
    assert subset_individual_leakage(A, design, [0.25] * 4, y_true=[0, 3])[
        "prediction_leakage"
    ].tolist() == [1.0, 0.0]
    big = SubsetDesign.uniform(21)
    with pytest.raises(ValueError, match=r"^The leakage sums over every subset"):
        subset_leakage(big, np.full(21, 1 / 21))


def test_enumeration_helper_covers_every_report():
    # the test's joint law puts each report's mass on the categories in it
    design = SubsetDesign.uniform(5, min_coverage=0.1)
    joint, _ = _joint(design, np.full(5, 0.2))
    for a, cell in joint.items():
        assert set(cell) <= set(a)
        assert sum(1 for x in a if x >= 5) == 1
    assert len(joint) == 2 * len(design._masks)


def test_reports_of_categories_without_mass_warn_of_nothing():
    design = SubsetDesign.uniform(4)
    w = [0.0, 0.0, 0.5, 0.5]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        population = subset_leakage(design, w)
        out = subset_individual_leakage([[1, 1, 0, 0], [1, 0, 1, 0]], design, w)
    assert np.isfinite(population["mutual_information_bits"])
    assert out["size_coverage"].tolist() == [0.0, 0.5]
    assert out["information_bits"][0] == np.inf and np.isnan(
        out["guess_probability"][0]
    )
    assert out["guess_probability"][1] == 1.0


def test_bad_inputs_are_named():
    design = SubsetDesign.uniform(4)
    with pytest.raises(
        TypeError, match=r"^weights must be numeric; entry \(0,\) is a str"
    ):
        subset_leakage(design, ["a", "b", "c", "d"])
    with pytest.raises(TypeError, match=r"^A must be numeric; "):
        subset_individual_leakage([["x", 1, 0, 0]], design, [0.25] * 4)
    with pytest.raises(TypeError, match=r"^y_true must be numeric; "):
        subset_individual_leakage([[1, 1, 0, 0]], design, [0.25] * 4, y_true=["x"])
    with pytest.raises(
        ValueError, match=r"^A must contain only 0 and 1 \(subset indicators\); row 1 "
    ):
        subset_individual_leakage([[1, 1, 0, 0], [1, 2, 0, 0]], design, [0.25] * 4)
