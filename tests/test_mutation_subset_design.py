"""Exact checks of the subset designs (``subset/_design.py``).

Each builder is checked against the design written out by hand (subsets,
``mu_a`` and ``nu_a``), the bit helpers against enumeration, and each
refusal by its full message; the draws of ``sample``, of the question side
and of the dummy categories against their laws with tolerances of a few
standard errors.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest
from scipy import stats

from skprivate.subset._design import (
    MAX_ENUMERATED,
    SubsetDesign,
    indicators_to_masks,
    masks_to_indicators,
    popcount,
    uniform_ratio,
)


def _subsets_of_sizes(p, lo, hi):
    return [
        frozenset(c)
        for size in range(lo, hi + 1)
        for c in itertools.combinations(range(p), size)
    ]


def _as_dict(design):
    sub, mu = design.subsets()
    return {
        frozenset(np.flatnonzero(row).tolist()): float(m) for row, m in zip(sub, mu)
    }


def _assert_mu(design, want):
    got = _as_dict(design)
    assert got.keys() == want.keys()
    for a, m in want.items():
        assert got[a] == pytest.approx(m, abs=1e-15)


def test_bit_helpers_by_enumeration():
    masks = np.arange(64, dtype=np.int64)
    ind = masks_to_indicators(masks, 6)
    assert ind.dtype == bool and ind.shape == (64, 6)
    for m, row in zip(masks, ind):
        assert [bool((m >> j) & 1) for j in range(6)] == row.tolist()
    np.testing.assert_array_equal(indicators_to_masks(ind), masks)
    np.testing.assert_array_equal(popcount(masks), ind.sum(axis=1))
    big = np.array([(1 << 61) | 5, (1 << 62) - 1], dtype=np.int64)
    np.testing.assert_array_equal(popcount(big), [3, 62])
    assert popcount(np.array([0])).tolist() == [0]


@pytest.mark.parametrize("p", [4, 5, 6, 7])
def test_uniform_design_is_every_subset_of_size_two_to_p_minus_two(p):
    design = SubsetDesign.uniform(p)
    want = _subsets_of_sizes(p, 2, p - 2)
    got = _as_dict(design)
    assert set(got) == set(want)
    np.testing.assert_allclose(list(got.values()), 2.0 / len(want), rtol=1e-15)
    np.testing.assert_allclose(design._nu, 1.0 / len(want), rtol=1e-15)
    assert design.kind == "uniform" and design.is_independent and design.enumerable
    assert not design.has_dummies and design.n_outputs == p
    assert design.scale == 1.0 and design.offset == 0.0
    # r_p: Q_ij = 1 / r_p off the diagonal, by counting
    pairs = sum(1 for a in want if {0, 1} <= a)
    assert uniform_ratio(p) == pytest.approx(len(want) / (2 * pairs), rel=1e-14)


@pytest.mark.parametrize("p", [2, 3])
def test_small_uniform_designs_use_sizes_one_to_p_minus_one_with_dummies(p):
    design = SubsetDesign.uniform(p, min_coverage=0.2)
    want = _subsets_of_sizes(p, 1, p - 1)
    got = _as_dict(design)
    assert set(got) == set(want)
    np.testing.assert_allclose(list(got.values()), 2.0 / len(want))
    assert design.has_dummies and design.n_outputs == p + 2
    assert design.scale == pytest.approx(0.6) and design.offset == 0.2
    assert repr(design) == (
        f"SubsetDesign(kind='uniform', n_categories={p}, min_coverage=0.2)"
    )


def test_large_uniform_design_closed_forms():
    p = MAX_ENUMERATED + 1
    design = SubsetDesign.uniform(p)
    assert not design.enumerable and design.kind == "uniform"
    count = 2**p - 2 - 2 * p  # subsets of sizes 2 .. p - 2
    masks = np.array([0b11, 0b1, (1 << p) - 2, (1 << p) - 4, 0b111, 0], dtype=np.int64)
    want = [2 / count, 0, 0, 2 / count, 2 / count, 0]
    np.testing.assert_allclose(design.mu_of(masks), want, rtol=1e-14)
    ind = masks_to_indicators(masks, p)
    assert design.admissible(ind).tolist() == [True, False, False, True, True, False]
    q = design.q_matrix()
    assert q.shape == (p, p) and np.all(np.diag(q) == 1.0)
    assert q[0, 1] == pytest.approx(1 / uniform_ratio(p), rel=1e-14)
    with pytest.raises(
        ValueError,
        match=rf"^Listing the subsets sums over every subset; this design has {p} "
        rf"categories, more than the {MAX_ENUMERATED} that can be enumerated\.$",
    ):
        design.subsets()
    rng = np.random.default_rng(0)
    draws = design._draw_nu(4000, rng)
    sizes = draws.sum(axis=1)
    assert sizes.min() >= 2 and sizes.max() <= p - 2
    # uniform over the admissible subsets: each category in half of them
    share = draws.mean(axis=0)
    assert np.all(np.abs(share - 0.5) < 4 * np.sqrt(0.25 / 4000))


def test_independent_design_mu_is_nu_plus_the_complements_nu():
    # p = 4; a = {0, 1} with nu 0.5, {0, 2} with 0.3, {1, 2} with 0.2; the
    # complements {2, 3}, {1, 3}, {0, 3} are not listed
    subsets = [[1, 1, 0, 0], [1, 0, 1, 0], [0, 1, 1, 0]]
    design = SubsetDesign.independent(subsets, [0.5, 0.3, 0.2])
    _assert_mu(
        design,
        {
            frozenset({0, 1}): 0.5,
            frozenset({2, 3}): 0.5,
            frozenset({0, 2}): 0.3,
            frozenset({1, 3}): 0.3,
            frozenset({1, 2}): 0.2,
            frozenset({0, 3}): 0.2,
        },
    )
    # nu stays on the listed subsets only
    nu = {
        frozenset(np.flatnonzero(row).tolist()): v
        for row, v in zip(masks_to_indicators(design._masks, 4), design._nu)
    }
    assert nu[frozenset({0, 1})] == 0.5 and nu[frozenset({2, 3})] == 0.0
    assert design.kind == "independent" and design.is_independent
    # a subset listed with its complement adds both probabilities
    both = SubsetDesign.independent(
        [
            [1, 1, 0, 0],
            [0, 0, 1, 1],
            [1, 0, 1, 0],
            [0, 1, 0, 1],
            [1, 0, 0, 1],
            [0, 1, 1, 0],
        ],
        [0.2, 0.1, 0.15, 0.15, 0.3, 0.1],
    )
    got = _as_dict(both)
    assert got[frozenset({0, 1})] == pytest.approx(0.3)
    assert got[frozenset({2, 3})] == pytest.approx(0.3)
    assert got[frozenset({0, 2})] == pytest.approx(0.3)
    assert got[frozenset({0, 3})] == pytest.approx(0.4)
    # mu_of reads the listed subsets, 0 elsewhere (before, between and after)
    masks = np.array([0b0011, 0b1100, 0b0001, 0b0111, 0b1111, 0b0101], dtype=np.int64)
    np.testing.assert_allclose(both.mu_of(masks), [0.3, 0.3, 0, 0, 0, 0.3])


def test_independent_design_with_dummies_needs_symmetry_and_allows_sizes_one():
    subsets = [[1, 0, 0], [0, 1, 1], [0, 1, 0], [1, 0, 1]]
    design = SubsetDesign.independent(subsets, [0.25] * 4, min_coverage=0.1)
    assert design.has_dummies and design.n_outputs == 5
    with pytest.raises(
        ValueError,
        match=r"subsets row 0 has size 1, which an independent design on 3 "
        r"categories may not use \(sizes 0, 1, p-1 and p are forbidden\); its "
        r"probability must be 0\.",
    ):
        SubsetDesign.independent(subsets, [0.25] * 4)
    with pytest.raises(ValueError, match=r"forbidden except 1 and p-1\)"):
        SubsetDesign.independent([[1, 1, 1], [1, 0, 0]], [0.5, 0.5], min_coverage=0.1)
    # zero probability on a forbidden subset is allowed
    fine = SubsetDesign.independent(
        [[1, 1, 0, 0], [1, 0, 1, 0], [0, 1, 1, 0], [1, 0, 0, 0]], [0.5, 0.3, 0.2, 0.0]
    )
    assert frozenset({0}) not in _as_dict(fine)


def test_conditional_design_keeps_its_subsets_in_mask_order():
    subsets = [[0, 1, 1], [1, 1, 0], [1, 0, 1], [1, 1, 1]]
    mu = [0.5, 0.5, 0.5, 0.0]
    design = SubsetDesign.conditional(subsets, mu)
    assert design.kind == "conditional" and not design.is_independent
    assert design._nu is None
    np.testing.assert_array_equal(design._masks, [0b011, 0b101, 0b110])
    np.testing.assert_allclose(design._mu, [0.5, 0.5, 0.5])
    q = design.q_matrix()
    np.testing.assert_allclose(q, [[1.0, 0.5, 0.5], [0.5, 1.0, 0.5], [0.5, 0.5, 1.0]])
    with pytest.raises(ValueError, match=r"^Only independent designs have a question"):
        design.draw_questions(3)
    with pytest.raises(
        ValueError,
        match=r"^subsets row 1 has size 1; a conditional design may not use subsets "
        r"of size below 2\.$",
    ):
        SubsetDesign.conditional([[1, 1, 1], [1, 0, 0]], [1.0, 0.1])
    with pytest.raises(
        ValueError,
        match=r"^probabilities of the subsets containing each category must sum to "
        r"1; for category 0 they sum to 1\.1\.$",
    ):
        SubsetDesign.conditional([[1, 1, 0], [1, 0, 1], [0, 1, 1]], [0.6, 0.5, 0.5])


def test_probability_and_subset_refusals_name_what_is_wrong():
    with pytest.raises(
        ValueError,
        match=r"^probabilities must have one entry per subset \(2\); got shape "
        r"\(3,\)\.$",
    ):
        SubsetDesign.conditional([[1, 1, 0], [0, 1, 1]], [0.5, 0.5, 0.0])
    with pytest.raises(
        ValueError, match=r"^probabilities must be finite and non-negative; entry 1 is "
    ):
        SubsetDesign.conditional([[1, 1, 0], [0, 1, 1]], [0.5, -0.5])
    with pytest.raises(ValueError, match=r"entry 0 is nan"):
        SubsetDesign.conditional([[1, 1, 0], [0, 1, 1]], [np.nan, 0.5])
    with pytest.raises(ValueError, match=r"entry 1 is inf"):
        SubsetDesign.independent([[1, 1, 0, 0], [0, 1, 1, 0]], [0.5, np.inf])
    with pytest.raises(ValueError, match=r"got shape \(4,\)\.$"):
        SubsetDesign.conditional([1, 1, 0, 0], [1.0])
    with pytest.raises(ValueError, match=r"got shape \(0, 4\)\.$"):
        SubsetDesign.conditional(np.zeros((0, 4)), [])
    with pytest.raises(
        ValueError, match=r"^subsets must contain only 0 and 1; row 1 does not\.$"
    ):
        SubsetDesign.conditional([[1, 1, 0], [0, 2, 1]], [1.0, 0.0])
    with pytest.raises(
        ValueError, match=r"at least 2 categories; got n_categories=1\.$"
    ):
        SubsetDesign.conditional([[1], [1]], [1.0, 0.0])
    too_many = np.zeros((1, MAX_ENUMERATED + 1), dtype=int)
    with pytest.raises(
        ValueError, match=rf"at most {MAX_ENUMERATED} categories; got 21\."
    ):
        SubsetDesign.conditional(too_many, [1.0])
    with pytest.raises(
        ValueError, match=r"^probabilities must sum to 1; they sum to 0\.9\.$"
    ):
        SubsetDesign.independent([[1, 1, 0, 0], [1, 0, 1, 0]], [0.5, 0.4])
    with pytest.raises(
        ValueError, match=r"^subsets must be distinct; a subset is listed twice\.$"
    ):
        SubsetDesign.conditional([[1, 1, 0], [1, 1, 0]], [0.5, 0.5])
    for bad in (2.5, True, "4", None):
        with pytest.raises(ValueError, match=r"^n_categories must be an int; got "):
            SubsetDesign.uniform(bad)
    assert SubsetDesign.uniform(np.int64(5)).n_categories == 5
    for bad in (0, 0.5, -0.1, float("nan"), "0.1", True):
        with pytest.raises(
            ValueError, match=r"^min_coverage must lie in \(0, 0\.5\); got "
        ):
            SubsetDesign.uniform(5, min_coverage=bad)
    assert SubsetDesign.uniform(5, min_coverage=0.49).offset == 0.49
    assert SubsetDesign.uniform(5, min_coverage=1e-9).offset == 1e-9


def test_sums_within_the_tolerance_are_accepted():
    pairs = [[1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 0, 1]]
    SubsetDesign.independent(pairs, [0.5, 0.3, 0.2 + 5e-9])
    with pytest.raises(ValueError, match="sum to 1"):
        SubsetDesign.independent(pairs, [0.5, 0.3, 0.2 + 2e-8])
    SubsetDesign.conditional([[1, 1, 0], [1, 0, 1], [0, 1, 1]], [0.5, 0.5, 0.5 + 5e-9])


def test_coverage_is_scale_times_the_mass_plus_the_offset():
    design = SubsetDesign.uniform(5, min_coverage=0.1)
    ind = np.array([[1, 1, 0, 0, 0], [0, 0, 1, 1, 1]])
    w = np.array([0.1, 0.2, 0.3, 0.15, 0.25])
    np.testing.assert_allclose(
        design.coverage(ind, w), [0.8 * 0.3 + 0.1, 0.8 * 0.7 + 0.1]
    )
    plain = SubsetDesign.uniform(5)
    np.testing.assert_allclose(plain.coverage(ind, w), [0.3, 0.7])


def test_admissible_on_an_enumerated_design():
    design = SubsetDesign.uniform(5)
    ind = np.array([[1, 1, 0, 0, 0], [1, 0, 0, 0, 0], [1, 1, 1, 1, 0], [1, 1, 1, 0, 0]])
    assert design.admissible(ind.astype(bool)).tolist() == [True, False, False, True]


def _chi2_ok(counts, probs, n):
    expected = n * np.asarray(probs)
    keep = expected > 0
    assert np.all(counts[~keep] == 0)
    return stats.chisquare(counts[keep], expected[keep]).pvalue > 1e-4


def test_enumerated_nu_draws_follow_nu():
    subsets = [[1, 1, 0, 0], [1, 0, 1, 0], [0, 1, 1, 0]]
    design = SubsetDesign.independent(subsets, [0.5, 0.3, 0.2])
    n = 30_000
    q = design.draw_questions(n, random_state=3)
    assert q.dtype == np.int8 and q.shape == (n, 4)
    masks = indicators_to_masks(q)
    counts = np.array([(masks == m).sum() for m in design._masks])
    probs = design._nu
    assert counts.sum() == n
    assert _chi2_ok(counts, probs, n)
    assert design.draw_questions(0, random_state=0).shape == (0, 4)


def test_record_answers_reports_the_question_or_its_complement():
    design = SubsetDesign.uniform(5)
    q = np.array([[1, 1, 0, 0, 0], [0, 1, 1, 1, 0]], dtype=np.int8)
    out = design.record_answers(q, [True, False])
    assert out.dtype == np.int8
    np.testing.assert_array_equal(out, [[1, 1, 0, 0, 0], [1, 0, 0, 0, 1]])
    with_dummies = SubsetDesign.uniform(5, min_coverage=0.1)
    out = with_dummies.record_answers(np.tile(q, (2000, 1)), [1, 0] * 2000, 0)
    assert out.shape == (4000, 7)
    np.testing.assert_array_equal(out[:2, :5], [[1, 1, 0, 0, 0], [1, 0, 0, 0, 1]])
    assert np.all(out[:, 5:].sum(axis=1) == 1)
    assert abs(out[:, 5].mean() - 0.5) < 4 * math.sqrt(0.25 / 4000)
    with pytest.raises(
        ValueError, match=r"^questions must have shape \(n, 5\); got \(2, 4\)\.$"
    ):
        design.record_answers(np.ones((2, 4)), [1, 0])
    with pytest.raises(ValueError, match=r"got \(5,\)\.$"):
        design.record_answers(np.ones(5), [1])
    with pytest.raises(
        ValueError,
        match=r"^answers must have one entry per question \(2\); got shape \(3,\)\.$",
    ):
        design.record_answers(q, [1, 0, 1])
    with pytest.raises(ValueError, match=r"^answers must be booleans"):
        design.record_answers(q, [1, 2])


@pytest.mark.parametrize("alpha", [None, 0.1])
def test_sample_of_an_independent_design_reports_the_subset_holding_the_code(alpha):
    design = SubsetDesign.uniform(5, min_coverage=alpha)
    n = 20_000
    codes = np.repeat(np.arange(5), n // 5)
    out = design.sample(codes, random_state=4)
    assert out.dtype == bool and out.shape == (n, design.n_outputs)
    assert np.all(out[np.arange(n), codes])
    sizes = out[:, :5].sum(axis=1)
    assert sizes.min() >= 2 and sizes.max() <= 3
    # given the code, the report is uniform over the admissible subsets
    # holding it: 10 subsets of sizes 2 and 3 hold category 0 (4 + 6)
    rows = out[codes == 0, :5]
    masks = indicators_to_masks(rows)
    admissible = [m for m in design._masks if m & 1]
    counts = np.array([(masks == m).sum() for m in admissible])
    assert len(admissible) == 10 and counts.sum() == rows.shape[0]
    assert _chi2_ok(counts, np.full(10, 0.1), rows.shape[0])
    if alpha is not None:
        dummy = out[:, 5:]
        assert np.all(dummy.sum(axis=1) == 1)
        assert abs(dummy[:, 0].mean() - 0.5) < 4 * math.sqrt(0.25 / n)


def test_dummy_respondents_report_the_question_itself_and_their_own_dummy():
    design = SubsetDesign.uniform(5, min_coverage=0.1)
    n = 6000
    codes = np.repeat([5, 6], n // 2)
    out = design.sample(codes, random_state=1)
    np.testing.assert_array_equal(out[codes == 5, 5:], [[True, False]] * (n // 2))
    np.testing.assert_array_equal(out[codes == 6, 5:], [[False, True]] * (n // 2))
    # the subset reported is the question itself: drawn from nu, so each true
    # category is in it half of the time
    share = out[:, :5].mean(axis=0)
    assert np.all(np.abs(share - 0.5) < 4 * math.sqrt(0.25 / n))
    sizes = out[:, :5].sum(axis=1)
    assert sizes.min() >= 2 and sizes.max() <= 3
    with pytest.raises(ValueError, match=r"^codes must lie in \[0, 7\)\.$"):
        design.sample([0, 7])
    with pytest.raises(ValueError, match=r"^codes must lie in \[0, 5\)\.$"):
        SubsetDesign.uniform(5).sample([-1, 2])


def test_sample_of_a_conditional_design_follows_mu_per_category():
    subsets = [
        [1, 1, 0, 0],
        [1, 0, 1, 0],
        [0, 1, 1, 0],
        [1, 1, 1, 1],
        [0, 0, 1, 1],
        [0, 1, 0, 1],
        [1, 0, 0, 1],
    ]
    mu = [0.2, 0.3, 0.1, 0.4, 0.2, 0.3, 0.1]
    design = SubsetDesign.conditional(subsets, mu)
    n = 24_000
    codes = np.repeat(np.arange(4), n // 4)
    out = design.sample(codes, random_state=7)
    assert np.all(out[np.arange(n), codes])
    masks = indicators_to_masks(out)
    sub, mus = design.subsets()
    all_masks = indicators_to_masks(sub)
    for j in range(4):
        rows = masks[codes == j]
        holding = sub[:, j] == 1
        counts = np.array([(rows == m).sum() for m in all_masks[holding]])
        assert counts.sum() == rows.size
        assert _chi2_ok(counts, mus[holding], rows.size), j
    # codes absent from the sample are skipped
    only = design.sample(np.full(50, 2), random_state=0)
    assert np.all(only[:, 2])


def test_subsets_returns_copies():
    design = SubsetDesign.uniform(4)
    sub, mu = design.subsets()
    assert sub.dtype == np.int8
    mu[:] = 0
    assert np.all(design.subsets()[1] > 0)


def _counts_of(rows, masks):
    got = indicators_to_masks(rows)
    return np.array([(got == m).sum() for m in masks])


def test_rejection_sampler_of_a_design_too_large_to_enumerate():
    """The sampler of the large uniform design (uniform bit strings, redrawn
    until their size lies in 2 .. p - 2), run on 5 categories where most
    draws are redrawn: it is uniform over the 20 subsets of sizes 2 and 3."""
    design = SubsetDesign(5, "uniform", None, None, None, None)
    assert not design.enumerable
    n = 40_000
    draws = design._draw_nu(n, np.random.default_rng(6))
    assert draws.dtype == bool and draws.shape == (n, 5)
    sizes = draws.sum(axis=1)
    assert sizes.min() == 2 and sizes.max() == 3
    masks = [m for m in range(32) if 2 <= bin(m).count("1") <= 3]
    counts = _counts_of(draws, masks)
    assert counts.sum() == n
    assert _chi2_ok(counts, np.full(len(masks), 1 / len(masks)), n)
    assert design.admissible(masks_to_indicators(np.arange(32), 5)).tolist() == [
        2 <= bin(m).count("1") <= 3 for m in range(32)
    ]


def test_a_singular_design_with_one_null_direction_is_refused():
    # the four pairs {0,1}, {2,3}, {0,2}, {1,3}: Q has the single null vector
    # (1, -1, -1, 1), its other eigenvalues are 1, 1 and 2
    with pytest.raises(
        ValueError,
        match=r"^The design is not identifiable \(Assumption 1\): its matrix Q is "
        r"singular \(smallest eigenvalue -?\d\.\d+e-1\d\), so the category "
        r"distribution cannot be recovered from the subsets\.$",
    ):
        SubsetDesign.independent(
            [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1]], [0.25] * 4
        )


def test_two_categories_with_dummies_and_twenty_listed_categories_are_accepted():
    two = SubsetDesign.independent([[1, 0], [0, 1]], [0.5, 0.5], min_coverage=0.1)
    np.testing.assert_allclose(two.q_matrix(), np.eye(2))
    p = MAX_ENUMERATED
    triples = np.zeros((p, p), dtype=int)
    for i in range(p):
        triples[i, [i, (i + 1) % p, (i + 2) % p]] = 1
    design = SubsetDesign.conditional(triples, np.full(p, 1 / 3))
    assert design.n_categories == p and design.enumerable
    assert SubsetDesign.uniform(p).enumerable
    big = SubsetDesign.uniform(p + 1, min_coverage=0.1)
    assert not big.enumerable and big.has_dummies and big.offset == 0.1


def test_repr_without_dummies_and_popcount_dtype():
    assert (
        repr(SubsetDesign.uniform(4)) == "SubsetDesign(kind='uniform', n_categories=4)"
    )
    assert popcount(np.array([3, 7])).dtype == np.int64


def test_refusal_messages_in_full():
    with pytest.raises(ValueError, match=r"non-negative; entry 1 is -0\.5\.$"):
        SubsetDesign.conditional([[1, 1, 0], [0, 1, 1]], [0.0, -0.5])
    with pytest.raises(
        ValueError,
        match=r"^subsets must be a non-empty 0/1 indicator matrix of shape "
        r"\(n_subsets, n_categories\); got shape \(4,\)\.$",
    ):
        SubsetDesign.conditional([1, 1, 0, 0], [1.0])
    with pytest.raises(
        ValueError,
        match=r"^A uniform design on n_categories=3 < 4 categories needs the dummy "
        r"categories of Appendix C: pass min_coverage \(e\.g\. 0\.05\)\.$",
    ):
        SubsetDesign.uniform(3)
    with pytest.raises(
        ValueError,
        match=r"^min_coverage \(the dummy categories of Appendix B\) requires a "
        r"symmetric design: probabilities of a subset and of its complement must "
        r"be equal\.$",
    ):
        SubsetDesign.independent(
            [[1, 1, 0, 0], [1, 0, 1, 0]], [0.6, 0.4], min_coverage=0.1
        )
    with pytest.raises(
        ValueError,
        match=r"^Only independent designs have a question form; this design is "
        r"conditional\.$",
    ):
        SubsetDesign.conditional(
            [[1, 1, 0], [1, 0, 1], [0, 1, 1]], [0.5] * 3
        ).draw_questions(2)
    with pytest.raises(
        ValueError, match=r"^answers must be booleans \(True = 'my value is in Ã'\)\.$"
    ):
        SubsetDesign.uniform(4).record_answers([[1, 1, 0, 0]], [3])
    for bad in (-1, 2.5):
        with pytest.raises(
            ValueError,
            match=r"^The 'n_questions' parameter of SubsetDesign\.draw_questions must "
            r"be an int in the range \[0, inf\)",
        ):
            SubsetDesign.uniform(4).draw_questions(bad)


def test_forbidden_sizes_of_an_independent_design():
    for row in ([1, 1, 1, 1], [1, 1, 1, 0], [0, 0, 0, 1], [0, 0, 0, 0]):
        subsets = [[1, 1, 0, 0], [1, 0, 1, 0], row]
        with pytest.raises(ValueError, match=rf"^subsets row 2 has size {sum(row)}, "):
            SubsetDesign.independent(subsets, [0.4, 0.4, 0.2])
    # a forbidden subset of zero probability is allowed; a conditional design
    # may list a single category with zero probability too
    SubsetDesign.conditional(
        [[1, 1, 0], [1, 0, 1], [0, 1, 1], [1, 0, 0]], [0.5] * 3 + [0]
    )


def test_complements_found_among_listed_subsets_of_other_sizes():
    # {0,1}, {0,2}, {0,3} and {2,3}: the complement of {0,1} is listed, those
    # of {0,2} and {0,3} are not (the search lands on another listed subset)
    design = SubsetDesign.independent(
        [[1, 1, 0, 0], [1, 0, 1, 0], [1, 0, 0, 1], [0, 0, 1, 1]], [0.3, 0.2, 0.3, 0.2]
    )
    _assert_mu(
        design,
        {
            frozenset({0, 1}): 0.5,
            frozenset({2, 3}): 0.5,
            frozenset({0, 2}): 0.2,
            frozenset({1, 3}): 0.2,
            frozenset({0, 3}): 0.3,
            frozenset({1, 2}): 0.3,
        },
    )


def test_symmetry_with_dummies_is_checked_on_tiny_probabilities():
    # a subset of probability 5e-9 whose complement is not listed: not
    # symmetric, however small
    subsets = [[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0], [0, 1, 0, 1], [1, 0, 0, 1]]
    nu = [0.3, 0.3, 0.2, 0.2 - 5e-9, 5e-9]
    with pytest.raises(ValueError, match="requires a symmetric design"):
        SubsetDesign.independent(subsets, nu, min_coverage=0.1)


def test_conditional_sampler_serves_a_category_seen_once():
    subsets = [
        [1, 1, 0, 0],
        [1, 0, 1, 0],
        [0, 1, 1, 0],
        [1, 1, 1, 1],
        [0, 0, 1, 1],
        [0, 1, 0, 1],
        [1, 0, 0, 1],
    ]
    mu = [0.2, 0.3, 0.1, 0.4, 0.2, 0.3, 0.1]
    design = SubsetDesign.conditional(subsets, mu)
    codes = np.array([0, 0, 1, 2, 2, 2, 3])
    out = design.sample(codes, random_state=0)
    assert out.dtype == bool
    assert np.all(out[np.arange(codes.size), codes])
    assert np.all(out.sum(axis=1) >= 2)


def test_admissible_reads_the_designs_subsets_not_their_sizes():
    design = SubsetDesign.conditional([[1, 1, 0], [1, 0, 1], [0, 1, 1]], [0.5] * 3)
    ind = np.array([[1, 1, 0], [1, 1, 1], [1, 0, 0]], dtype=bool)
    assert design.admissible(ind).tolist() == [True, False, False]


def test_seeds_reproduce_questions_answers_and_reports():
    design = SubsetDesign.uniform(5, min_coverage=0.1)
    q1 = design.draw_questions(200, random_state=3)
    np.testing.assert_array_equal(q1, design.draw_questions(200, random_state=3))
    assert not np.array_equal(q1, design.draw_questions(200, random_state=4))
    answers = np.arange(200) % 2
    r1 = design.record_answers(q1, answers, random_state=5)
    np.testing.assert_array_equal(
        r1, design.record_answers(q1, answers, random_state=5)
    )
    assert not np.array_equal(r1, design.record_answers(q1, answers, random_state=6))
    codes = np.arange(200) % 7
    s1 = design.sample(codes, random_state=8)
    np.testing.assert_array_equal(s1, design.sample(codes, random_state=8))
    assert not np.array_equal(s1, design.sample(codes, random_state=9))


def test_a_symmetric_design_listing_its_largest_complement_is_accepted():
    # sorted masks 3, 5, 6, 9, 10, 12: the complement of {0, 1} (mask 3) is
    # {2, 3} (mask 12), the last one listed
    design = SubsetDesign.independent(
        [
            [1, 1, 0, 0],
            [0, 0, 1, 1],
            [1, 0, 1, 0],
            [0, 1, 0, 1],
            [1, 0, 0, 1],
            [0, 1, 1, 0],
        ],
        [0.25, 0.25, 0.15, 0.15, 0.1, 0.1],
        min_coverage=0.1,
    )
    got = _as_dict(design)
    assert got[frozenset({0, 1})] == pytest.approx(0.5)
    assert got[frozenset({0, 3})] == pytest.approx(0.2)
