"""Exact checks of the interval mechanisms' anchors (``interval/_mechanisms.py``).

The general mechanism draws ``k`` anchors i.i.d. and sorts them, or one
draw ``U`` shifted by fixed offsets (``U + anchor_scale * offsets``); with a
declared support the draw ``U`` is kept where every shifted anchor lies in
it, so the anchors' support is the declared one.
"""

from __future__ import annotations

import warnings

import numpy as np
import pytest

from skprivate.exceptions import NotIdentifiableWarning
from skprivate.interval import IntervalCaseI, IntervalCaseII, IntervalMechanism


def test_offset_anchors_are_one_draw_shifted_by_the_scaled_offsets():
    mech = IntervalMechanism(
        n_anchors=3, offsets=[0.0, 0.5, 2.0], anchor_scale=3.0, random_state=0
    )
    y = np.linspace(-6, 6, 400)[:, None]
    Z, anchors = mech.fit(y).transform(y, return_anchors=True)
    anchors = anchors[0] if isinstance(anchors, list) else anchors
    anchors = np.asarray(anchors).reshape(len(y), 3)
    np.testing.assert_allclose(anchors[:, 1] - anchors[:, 0], 1.5, atol=1e-12)
    np.testing.assert_allclose(anchors[:, 2] - anchors[:, 0], 6.0, atol=1e-12)
    # the cells released are those the anchors cut, and hold each value
    lo, hi = Z[:, 0], Z[:, 1]
    assert np.all((lo < y[:, 0]) & (y[:, 0] <= hi))
    middle = np.isfinite(lo) & np.isfinite(hi)
    widths = np.round(hi[middle] - lo[middle], 9)
    assert set(widths) <= {1.5, 4.5}
    assert {1.5, 4.5} <= set(widths)


def test_free_anchors_are_sorted_independent_draws():
    mech = IntervalMechanism(n_anchors=4, random_state=1)
    y = np.zeros((2000, 1))
    _, anchors = mech.fit(y).transform(y, return_anchors=True)
    anchors = np.asarray(anchors).reshape(len(y), 4)
    assert np.all(np.diff(anchors, axis=1) >= 0)
    # not one draw shifted: the gaps vary from row to row
    assert np.std(anchors[:, 1] - anchors[:, 0]) > 0.1


@pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")
def test_support_bounds_every_shifted_anchor_and_is_their_support():
    # offsets -0.5, 0.5, 2 at anchor_scale 2: the anchors are U - 1, U + 1
    # and U + 4, so U is kept on [0 + 1, 10 - 4] and the anchors span [0, 10]
    mech = IntervalMechanism(
        n_anchors=3,
        offsets=[-0.5, 0.5, 2.0],
        anchor_scale=2.0,
        support=(0.0, 10.0),
        distribution="uniform",
        loc=-3.0,
        scale=10.0,
        random_state=0,
    )
    assert mech.get_params()["support"] == (0.0, 10.0)
    y = np.linspace(0.0, 10.0, 500)[:, None]
    with warnings.catch_warnings():
        # every value lies within the anchors' support: nothing to warn of
        warnings.simplefilter("error", NotIdentifiableWarning)
        _, anchors = mech.fit(y).transform(y, return_anchors=True)
    anchors = np.asarray(anchors).reshape(len(y), 3)
    assert np.all((anchors >= 0.0) & (anchors <= 10.0))
    # U ranges over [1, 6]: the anchors reach near both ends
    assert anchors[:, 0].min() < 0.2 and anchors[:, 2].max() > 9.8
    assert mech._anchor_support(0) == (0.0, 10.0)
    assert mech._anchor_window(0) == (1.0, 6.0)


def test_support_narrower_than_the_offsets_span_is_refused():
    mech = IntervalMechanism(
        n_anchors=2, offsets=[-1.0, 2.0], anchor_scale=2.0, support=(0.0, 6.0)
    )
    with pytest.raises(ValueError, match=r"support of column 0 is narrower than"):
        mech.fit(np.ones((3, 1)))
    # exactly the span: no window is left either
    mech.set_params(support=(0.0, 5.999))
    with pytest.raises(
        ValueError,
        match=r"span of the offsets \(times anchor_scale\): no window of anchors "
        r"fits inside it\.$",
    ):
        mech.fit(np.ones((3, 1)))


def test_an_int_seed_reproduces_the_anchors_and_another_does_not():
    y = np.linspace(-2, 2, 50)[:, None]

    def release(seed):
        return IntervalMechanism(n_anchors=3, random_state=seed).fit_transform(y)

    np.testing.assert_array_equal(release(5), release(5))
    assert not np.array_equal(release(5), release(6))


@pytest.mark.parametrize(
    ("offsets", "message"),
    [
        ([0.0, np.nan], r"offsets must be 2 finite numbers \(one per anchor\)"),
        ([0.0, np.inf], r"offsets must be 2 finite numbers"),
        ([0.0, 1.0, 2.0], r"offsets must be 2 finite numbers"),
        ([1.0, 1.0], r"offsets must be strictly increasing; got \[1\.0, 1\.0\]"),
        ([2.0, 1.0], r"offsets must be strictly increasing"),
    ],
)
def test_bad_offsets_are_refused(offsets, message):
    with pytest.raises(ValueError, match=message):
        IntervalMechanism(n_anchors=2, offsets=offsets).fit(np.zeros((2, 1)))


@pytest.mark.parametrize("cells", [[-1], [3], [0.5], [[0, 4]]])
def test_bad_exact_cells_are_refused(cells):
    with pytest.raises(
        ValueError, match=r"exact_cells must be cell indices in \[0, 2\]"
    ):
        IntervalMechanism(n_anchors=2, exact_cells=cells).fit(np.zeros((2, 1)))


@pytest.mark.filterwarnings("ignore::skprivate.exceptions.PrivacyLeakWarning")
def test_exact_cells_at_both_ends_release_those_values_exactly():
    mech = IntervalMechanism(n_anchors=2, exact_cells=[0, 2], random_state=0)
    y = np.linspace(-4, 4, 300)[:, None]
    Z, anchors = mech.fit(y).transform(y, return_anchors=True)
    anchors = np.asarray(anchors).reshape(len(y), 2)
    outer = (y[:, 0] <= anchors[:, 0]) | (y[:, 0] > anchors[:, 1])
    assert outer.any() and (~outer).any()
    np.testing.assert_array_equal(Z[outer, 0], y[outer, 0])
    np.testing.assert_array_equal(Z[outer, 1], y[outer, 0])
    assert np.all(Z[~outer, 0] < Z[~outer, 1])


def test_case_one_and_two_fix_their_anchors():
    one, two = IntervalCaseI(), IntervalCaseII()
    assert (one.n_anchors, two.n_anchors) == (1, 2)
    for mech in (one, two):
        assert mech.offsets is None and mech.exact_cells is None
        assert mech.acceptable_range is None
    y = np.linspace(-1, 1, 100)[:, None]
    Z = IntervalCaseI(random_state=0).fit_transform(y)
    # one anchor: every report is a half-line
    assert np.all(np.isinf(Z[:, 0]) | np.isinf(Z[:, 1]))
