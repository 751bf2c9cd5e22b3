"""Exact checks of the ensemble of interval mechanisms (``interval/_ensemble.py``).

The ensemble pools the anchors of its members (the release is the finest
cell, the intersection of the members' cells), unites their acceptable
ranges (values there are released exactly), and its anchors' support is the
union of the members' while its values' support is their intersection.
"""

from __future__ import annotations

import numpy as np
import pytest

from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalEnsemble,
    IntervalMechanism,
)


def test_acceptable_ranges_are_united_and_merged():
    ens = IntervalEnsemble(
        [
            IntervalMechanism(n_anchors=1, acceptable_range=[(3.0, 4.0)]),
            IntervalMechanism(n_anchors=1, acceptable_range=[(0.5, 2.0), (5.0, 6.0)]),
            IntervalMechanism(n_anchors=1, acceptable_range=[(0.0, 1.0)]),
            IntervalMechanism(n_anchors=1, acceptable_range=[(2.0, 3.0)]),
            IntervalCaseI(),
        ]
    )
    # (0, 1] and (0.5, 2] overlap; (2, 3] touches both (0.5, 2] and (3, 4]
    np.testing.assert_array_equal(ens._fixed_set(), [[0.0, 4.0], [5.0, 6.0]])
    nested = IntervalEnsemble(
        [
            IntervalMechanism(n_anchors=1, acceptable_range=[(0.0, 5.0)]),
            IntervalMechanism(n_anchors=1, acceptable_range=[(1.0, 2.0)]),
        ]
    )
    np.testing.assert_array_equal(nested._fixed_set(), [[0.0, 5.0]])
    apart = IntervalEnsemble(
        [
            IntervalMechanism(n_anchors=1, acceptable_range=[(2.0, 3.0)]),
            IntervalMechanism(n_anchors=1, acceptable_range=[(0.0, 1.0)]),
        ]
    )
    np.testing.assert_array_equal(apart._fixed_set(), [[0.0, 1.0], [2.0, 3.0]])
    assert IntervalEnsemble([IntervalCaseI()])._fixed_set().shape == (0, 2)


@pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")
def test_values_in_any_members_range_are_released_exactly():
    ens = IntervalEnsemble(
        [
            IntervalMechanism(n_anchors=1, acceptable_range=[(0.0, 1.0)]),
            IntervalMechanism(n_anchors=1, acceptable_range=[(0.5, 2.0)]),
        ],
        random_state=0,
    )
    y = np.array([[-0.5], [0.0], [0.2], [1.5], [2.0], [2.5]])
    Z = ens.fit(y).transform(y)
    exact = Z[:, 0] == Z[:, 1]
    # cells (low, high]: 0 itself is outside, 2 inside
    assert exact.tolist() == [False, False, True, True, True, False]
    np.testing.assert_array_equal(Z[exact, 0], y[exact, 0])


@pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")
def test_release_is_the_intersection_of_the_members_cells():
    ens = IntervalEnsemble(
        [IntervalCaseI(), IntervalCaseII(scale=2.0), IntervalCaseI(loc=1.0)],
        random_state=3,
    )
    y = np.linspace(-3, 3, 500)[:, None]
    Z, anchors = ens.fit(y).transform(y, return_anchors=True)
    q = np.asarray(anchors).reshape(len(y), 4)
    assert ens._n_anchors() == 4
    assert ens.privacy_summary()["n_cells"] == 5
    below = np.where(q < y, q, -np.inf).max(axis=1)
    above = np.where(q >= y, q, np.inf).min(axis=1)
    np.testing.assert_array_equal(Z[:, 0], below)
    np.testing.assert_array_equal(Z[:, 1], above)


def test_supports_of_anchors_and_of_values():
    ens = IntervalEnsemble(
        [
            IntervalCaseI(support=(-2.0, 5.0)),
            IntervalCaseI(support=(0.0, 8.0)),
            IntervalCaseI(support=(-1.0, 6.0)),
        ]
    )
    assert ens._anchor_support(0) == (-2.0, 8.0)
    assert ens._value_support(0) == (0.0, 5.0)
    # the reference law of privacy_summary follows the first member
    two = IntervalEnsemble(
        [
            IntervalCaseI(anchor_loc=3.0, anchor_scale=2.0),
            IntervalCaseI(anchor_loc=-1.0, anchor_scale=5.0),
        ]
    )
    assert two._standardization(0) == (3.0, 2.0)
    assert ens._anchor_distribution(0).support() == (-2.0, 5.0)


def test_members_are_cloned_at_fit_and_the_users_objects_untouched():
    first, second = IntervalCaseI(), IntervalMechanism(n_anchors=2)
    ens = IntervalEnsemble([first, second], random_state=0).fit(np.zeros((4, 3)))
    assert ens.mechanisms_[0] is not first and ens.mechanisms_[1] is not second
    assert all(m.n_features_in_ == 3 for m in ens.mechanisms_)
    # after fit the ensemble reads its fitted clones
    assert all(a is b for a, b in zip(ens._members(), ens.mechanisms_))
    assert not hasattr(first, "n_features_in_")
    assert not hasattr(second, "n_features_in_")


def test_columns_hint_before_fit_is_the_largest_members():
    wide, narrow = IntervalCaseI(anchor_loc=[0.0, 1.0, 2.0]), IntervalCaseI()
    assert IntervalEnsemble([wide, narrow])._n_columns_hint() == 3
    assert IntervalEnsemble([narrow, wide])._n_columns_hint() == 3
    ens = IntervalEnsemble([narrow, wide]).fit(np.zeros((2, 3)))
    assert ens._n_columns_hint() == 3
    # after fit the hint is the fitted column count, not the members'
    ens = IntervalEnsemble([narrow]).fit(np.zeros((2, 4)))
    assert ens._n_columns_hint() == 4


def test_exact_cells_of_the_members_are_listed():
    ens = IntervalEnsemble(
        [
            IntervalMechanism(n_anchors=2, exact_cells=[1]),
            IntervalCaseI(),
            IntervalMechanism(n_anchors=3, exact_cells=[0, 3]),
        ]
    )
    assert ens.exact_cells == [1, 0, 3]
    assert IntervalEnsemble([IntervalCaseI()]).exact_cells == []


@pytest.mark.parametrize(
    "members",
    [[], [IntervalEnsemble([IntervalCaseI()])], [IntervalCaseI(), "case I"]],
)
def test_bad_members_are_refused(members):
    with pytest.raises(
        ValueError,
        match=r"^mechanisms must be a non-empty list of IntervalCaseI, IntervalCaseII "
        r"or IntervalMechanism instances; got ",
    ):
        IntervalEnsemble(members).fit(np.zeros((2, 1)))


def test_members_designs_are_validated():
    ens = IntervalEnsemble([IntervalCaseI(), IntervalMechanism(offsets=[1.0, 0.0])])
    with pytest.raises(ValueError, match="offsets must be strictly increasing"):
        ens.fit(np.zeros((2, 1)))
    ens = IntervalEnsemble([IntervalMechanism(n_anchors=2, exact_cells=[7])])
    with pytest.raises(ValueError, match="exact_cells"):
        ens.fit(np.zeros((2, 1)))


def test_an_int_seed_reproduces_the_pooled_anchors():
    y = np.linspace(-2, 2, 40)[:, None]

    def release(seed):
        ens = IntervalEnsemble([IntervalCaseI(), IntervalCaseII()], random_state=seed)
        return ens.fit_transform(y)

    np.testing.assert_array_equal(release(3), release(3))
    assert not np.array_equal(release(3), release(4))
