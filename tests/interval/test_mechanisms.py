"""Mechanisms: privacy invariants, formats, the question side, refinement."""

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.base import clone

from skprivate.exceptions import InvalidParameterError, NotIdentifiableWarning
from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalEnsemble,
    IntervalMechanism,
    intervals_from_answers,
)

MECHANISMS = [
    IntervalCaseI(random_state=0),
    IntervalCaseI(distribution="normal", scale=2.0, random_state=0),
    IntervalCaseI(distribution=stats.t(df=3), random_state=0),
    IntervalCaseII(random_state=0),
    IntervalMechanism(n_anchors=4, random_state=0),
    IntervalMechanism(offsets=[-1, 1], exact_cells=[1], random_state=0),
    IntervalMechanism(
        n_anchors=3, acceptable_range=[(-0.5, 0.0), (1.0, 2.0)], random_state=0
    ),
    IntervalEnsemble([IntervalCaseI(scale=2.0), IntervalCaseII()], random_state=0),
]


def _contains(Z, X):
    lo, hi = Z[:, 0::2], Z[:, 1::2]
    exact = lo == hi
    inside = (lo < X) & (hi >= X)
    return np.all(np.where(exact, lo == X, inside))


@pytest.mark.parametrize("mech", MECHANISMS, ids=lambda m: repr(m)[:40])
def test_every_interval_contains_its_value(mech):
    X = np.random.default_rng(1).normal(size=(3000, 2)) * [1.0, 3.0]
    Z = clone(mech).fit_transform(X)
    assert Z.shape == (3000, 4)
    assert _contains(Z, X)


def test_case_one_cells_are_half_lines_and_anchor_is_the_finite_end():
    X = np.random.default_rng(2).normal(size=(500, 1))
    Z, Q = IntervalCaseI(random_state=0).fit(X).transform(X, return_anchors=True)
    assert Q.shape == (500, 1, 1)
    lower_half = np.isneginf(Z[:, 0])
    assert np.all(lower_half ^ np.isposinf(Z[:, 1]))
    finite = np.where(lower_half, Z[:, 1], Z[:, 0])
    np.testing.assert_array_equal(finite, Q[:, 0, 0])
    np.testing.assert_array_equal(lower_half, X[:, 0] <= Q[:, 0, 0])


def test_anchors_are_independent_of_the_data():
    # The same generator on different data draws identical anchors: the
    # anchors are a function of the noise stream alone.  (A seeded privatizer
    # mixes the data into its seed, so the same int seed on other data
    # draws other anchors; the generator is fixed here.)
    rng = np.random.default_rng(3)
    X1, X2 = rng.normal(size=(400, 1)), 10 + rng.normal(size=(400, 1))
    mech = IntervalCaseII(random_state=5).fit(X1)

    def anchors(m, X):
        return m.transform(X, return_anchors=True)[1]

    q1 = mech._transform_with_seed(X1, np.random.SeedSequence(4), anchors)
    q2 = mech._transform_with_seed(X2, np.random.SeedSequence(4), anchors)
    np.testing.assert_array_equal(q1, q2)


def test_anchor_distribution_matches_its_specification():
    mech = IntervalCaseI(
        loc=1.0, scale=2.0, anchor_loc=10.0, anchor_scale=3.0, random_state=0
    )
    q = mech.draw_anchors(20000)[:, 0]
    # U_raw = 10 + 3 * (1 + 2 * Z), Z standard logistic.
    ref = stats.logistic(loc=13.0, scale=6.0)
    assert stats.kstest(q, ref.cdf).pvalue > 1e-3
    u = IntervalCaseI(
        distribution="uniform", loc=-1, scale=2, random_state=0
    ).draw_anchors(5000)
    assert u.min() >= -1 and u.max() <= 1


def test_exact_middle_cell_gives_mixed_point_interval_data():
    X = np.random.default_rng(4).normal(size=(20000, 1))
    Z = IntervalMechanism(
        offsets=[-1, 1], exact_cells=[1], random_state=0
    ).fit_transform(X)
    exact = Z[:, 0] == Z[:, 1]
    # P(U - 1 < Y <= U + 1) for Y ~ N(0,1), U ~ Logistic(0,1), by quadrature.
    from scipy import integrate

    p = integrate.quad(
        lambda u: (
            (stats.norm.cdf(u + 1) - stats.norm.cdf(u - 1)) * stats.logistic.pdf(u)
        ),
        -np.inf,
        np.inf,
    )[0]
    se = np.sqrt(p * (1 - p) / X.shape[0])
    assert abs(exact.mean() - p) < 4 * se
    # Interval rows are exactly the outer half-lines.
    assert np.all(np.isneginf(Z[~exact, 0]) | np.isposinf(Z[~exact, 1]))


def test_fixed_acceptable_range_reports_exactly_inside():
    X = np.linspace(-3, 3, 601)[:, None]
    Z = IntervalMechanism(acceptable_range=(0.0, 1.0), random_state=0).fit_transform(X)
    exact = Z[:, 0] == Z[:, 1]
    np.testing.assert_array_equal(exact, (X[:, 0] > 0) & (X[:, 0] <= 1))


def test_pandas_in_and_out_feature_names():
    df = pd.DataFrame({"age": [30.0, 40.0, 50.0], "income": [1.0, 2.0, 3.0]})
    mech = IntervalCaseI(
        anchor_loc=[40.0, 2.0], anchor_scale=[10.0, 1.0], random_state=0
    )
    out = mech.set_output(transform="pandas").fit_transform(df)
    assert list(out.columns) == [
        "age_lower",
        "age_upper",
        "income_lower",
        "income_upper",
    ]
    assert _contains(out.to_numpy(), df.to_numpy())


def test_fresh_anchors_each_call_but_reproducible():
    X = np.zeros((50, 1))
    a = IntervalCaseI(random_state=0).fit(X)
    z1, z2 = a.transform(X), a.transform(X)
    assert not np.array_equal(z1, z2)
    b = IntervalCaseI(random_state=0).fit(X)
    np.testing.assert_array_equal(z1, b.transform(X))


def test_question_side_round_trip():
    mech = IntervalCaseII(anchor_loc=50, anchor_scale=10, random_state=0)
    q = mech.draw_anchors(5)
    assert q.shape == (5, 2) and np.all(np.diff(q, axis=1) >= 0)
    y = np.array([20.0, 45.0, 50.0, 55.0, 90.0])
    answers = np.sum(q < y[:, None], axis=1)  # what each respondent ticks
    Z = intervals_from_answers(q, answers)
    assert _contains(Z, y[:, None])
    Z2 = intervals_from_answers(
        q, answers, values=[np.nan, 45.0, np.nan, np.nan, np.nan]
    )
    assert Z2[1, 0] == Z2[1, 1] == 45.0


def test_progressive_refinement_narrows_and_keeps_containment():
    X = np.random.default_rng(5).normal(size=(2000, 1))
    mech = IntervalCaseI(random_state=0).fit(X)
    Z = mech.transform(X)
    R = mech.refine(Z, X)
    assert _contains(R, X)
    assert np.all(R[:, 0] >= Z[:, 0]) and np.all(R[:, 1] <= Z[:, 1])
    # Anchors were drawn inside the old cells: some cells are now bounded.
    assert np.mean(np.isfinite(R).all(axis=1)) > 0.3
    with pytest.raises(ValueError, match="do not contain"):
        mech.refine(Z, X + 100)


def test_ensemble_is_the_intersection_of_its_members():
    X = np.random.default_rng(6).normal(size=(1000, 1))
    ens = IntervalEnsemble(
        [IntervalCaseI(), IntervalCaseI(), IntervalCaseI()], random_state=0
    )
    Z, Q = ens.fit(X).transform(X, return_anchors=True)
    assert Q.shape == (1000, 1, 3)
    Z_direct = intervals_from_answers(Q[:, 0, :], np.sum(Q[:, 0, :] < X, axis=1))
    np.testing.assert_array_equal(Z, Z_direct)


def test_bad_inputs_are_refused_with_clear_messages():
    with pytest.raises(ValueError, match="NaN"):
        IntervalCaseI().fit_transform(np.array([[np.nan], [1.0]]))
    with pytest.raises(ValueError, match="infinity|inf"):
        IntervalCaseI().fit(np.zeros((2, 1))).transform(np.array([[np.inf], [1.0]]))
    with pytest.raises(InvalidParameterError, match="'scale' parameter"):
        IntervalCaseI(scale=0.0).fit(np.zeros((2, 1)))
    with pytest.raises(InvalidParameterError, match="'distribution' parameter"):
        IntervalCaseI(distribution="cauchy").fit(np.zeros((2, 1)))
    with pytest.raises(ValueError, match="anchor_scale"):
        IntervalCaseI(anchor_scale=[1.0, -1.0]).fit(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="anchor_loc"):
        IntervalCaseI(anchor_loc=[1.0, 2.0, 3.0]).fit(np.zeros((2, 2)))
    with pytest.raises(ValueError, match="offsets"):
        IntervalMechanism(n_anchors=2, offsets=[1, -1]).fit(np.zeros((2, 1)))
    with pytest.raises(ValueError, match="exact_cells"):
        IntervalMechanism(n_anchors=2, exact_cells=[5]).fit(np.zeros((2, 1)))
    with pytest.raises(ValueError, match="acceptable_range"):
        IntervalMechanism(acceptable_range=[(0, 2), (1, 3)]).fit(np.zeros((2, 1)))
    with pytest.raises(ValueError, match="mechanisms"):
        IntervalEnsemble([]).fit(np.zeros((2, 1)))
    with pytest.raises(ValueError, match="answers"):
        intervals_from_answers([[0.0]], [3])


def test_uncovered_values_warn_not_identifiable():
    X = np.array([[0.5], [5.0]])
    with pytest.warns(NotIdentifiableWarning, match="outside the support"):
        IntervalCaseI(distribution="uniform", random_state=0).fit_transform(X)
