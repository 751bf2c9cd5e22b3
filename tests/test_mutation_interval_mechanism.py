"""Interval-privacy mechanism pinned exactly where mutation testing found it unchecked.

The anchor laws (standardized, scaled, truncated to a declared support),
their quantiles and truncated draws on uniform anchors with closed-form
values, the checks every CDF passes, the fixed acceptable set and the cell
geometry of a release, the release rule itself (the cell of the sorted
anchors holding each value, reported exactly inside an exact cell or the
acceptable range), the coverage claims of ``privacy_summary`` against
closed forms, the warnings of ``fit`` and the exact text of every refusal.
``benchmarks/_mutation_specs_interval_mechanism.py`` (keys
``interval_mechanism`` and ``interval_anchors``) lists the mutants of
``skprivate/interval/_base_mechanism.py`` and ``_anchors.py``.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest
from scipy import stats
from sklearn.exceptions import NotFittedError

from skprivate.exceptions import NotIdentifiableWarning, PrivacyLeakWarning
from skprivate.interval import (
    IntervalCaseI,
    IntervalCaseII,
    IntervalEnsemble,
    IntervalMechanism,
    estimate_coverage,
)
from skprivate.interval._anchors import (
    AnchorDistribution,
    as_cdf,
    cell_bounds,
    check_acceptable_range,
    design_coverage,
    in_fixed_set,
    mass_in_fixed_set,
    pad_anchors,
)


def exact(message):
    """A pattern matching the whole of ``message``, nothing around it."""
    return f"^{re.escape(message)}$"


class Scripted(np.random.Generator):
    """``random`` returns the set uniforms (an array of the size asked)."""

    def script(self, uniforms):
        self.uniforms = np.asarray(uniforms, dtype=float)
        self.sizes = []
        return self

    def random(self, size=None, dtype=np.float64, out=None):
        self.sizes.append(size)
        return self.uniforms.reshape(size)


def scripted(uniforms):
    return Scripted(np.random.PCG64(0)).script(uniforms)


def uniform_cdf(t):
    return np.clip(np.asarray(t, dtype=float), 0.0, 1.0)


# -- anchor laws --------------------------------------------------------------
def test_anchor_law_is_standardized_then_scaled():
    # U = 10 + 3 * (1 + 2 Z), Z uniform on [0, 1]: uniform on [13, 19]
    dist = AnchorDistribution("uniform", 1.0, 2.0, 10.0, 3.0)
    assert (dist.shift, dist.mult) == (13.0, 6.0)
    assert dist.name == "uniform" and not dist.truncated
    np.testing.assert_allclose(
        dist.cdf(np.array([12.0, 13.0, 14.5, 16.0, 19.0, 20.0])),
        [0, 0, 0.25, 0.5, 1, 1],
        rtol=0,
        atol=1e-15,
    )
    np.testing.assert_allclose(dist.ppf(np.array([0.0, 0.25, 1.0])), [13, 14.5, 19])
    assert dist.support() == (13.0, 19.0)


def test_anchor_law_truncated_to_a_window():
    dist = AnchorDistribution("uniform", 1.0, 2.0, 10.0, 3.0, window=(14.0, 17.0))
    assert dist.truncated
    assert dist.p_low == pytest.approx(1 / 6) and dist.mass == pytest.approx(0.5)
    np.testing.assert_allclose(
        dist.cdf(np.array([13.0, 14.0, 15.0, 16.5, 17.0, 18.0])),
        [0, 0, 1 / 3, 5 / 6, 1, 1],
        atol=1e-14,
    )
    np.testing.assert_allclose(dist.ppf(np.array([0.0, 0.5, 1.0])), [14, 15.5, 17])
    assert dist.support() == (14.0, 17.0)
    # one finite end truncates too
    half = AnchorDistribution("uniform", 1.0, 2.0, 10.0, 3.0, window=(-np.inf, 16.0))
    assert half.truncated and half.p_low == 0.0 and half.mass == 0.5
    np.testing.assert_allclose(half.cdf(np.array([14.5, 16.0])), [0.5, 1.0])
    assert half.support() == (13.0, 16.0)
    wide = AnchorDistribution("normal", 0.0, 1.0, 0.0, 1.0, window=(-1.0, np.inf))
    assert wide.support() == (-1.0, np.inf)
    assert wide.cdf(np.array([-1.0]))[0] == 0.0
    assert wide.ppf(np.array([0.5]))[0] == pytest.approx(
        stats.norm.ppf(stats.norm.cdf(-1.0) + 0.5 * stats.norm.sf(-1.0))
    )


def test_anchor_law_outside_its_window_is_refused():
    message = (
        "the anchor law (distribution, loc, scale, anchor_loc, anchor_scale) puts "
        "no probability inside the declared support; centre the anchors inside "
        "the support."
    )
    with pytest.raises(ValueError, match=exact(message)):
        AnchorDistribution("uniform", 0.0, 1.0, 0.0, 1.0, window=(2.0, 3.0))
    with pytest.raises(ValueError, match=exact(message)):
        AnchorDistribution("normal", 0.0, 1.0, 0.0, 1.0, window=(40.0, 41.0))
    # a window with a little mass is kept
    AnchorDistribution("normal", 0.0, 1.0, 0.0, 1.0, window=(5.0, 6.0))


def test_anchor_law_from_a_distribution_object_keeps_its_name():
    frozen = AnchorDistribution(stats.uniform(0, 4), 0.0, 1.0, 0.0, 1.0)
    assert frozen.name == "uniform"
    assert frozen.support() == (0.0, 4.0)
    hist = stats.rv_histogram(np.histogram([0.0, 1.0, 1.5], bins=[0, 1, 2]))
    assert AnchorDistribution(hist, 0.0, 1.0, 0.0, 1.0).name == "rv_histogram"

    class Plain:
        def cdf(self, x):
            return uniform_cdf(x)

        def ppf(self, p):
            return np.asarray(p, dtype=float)

    assert AnchorDistribution(Plain(), 0.0, 1.0, 0.0, 1.0).name == "Plain"


def test_draws_invert_the_cdf_and_stay_finite_at_the_ends():
    dist = AnchorDistribution("uniform", 1.0, 2.0, 10.0, 3.0)
    rng = scripted([0.0, 0.25, 0.5, 1.0])
    np.testing.assert_allclose(dist.draw(rng, (2, 2)), [[13, 14.5], [16, 19]])
    assert rng.sizes == [(2, 2)]
    normal = AnchorDistribution("normal", 0.0, 1.0, 0.0, 1.0)
    ends = normal.draw(scripted([0.0, 1.0]), 2)
    assert ends[0] == stats.norm.ppf(1e-300)
    assert ends[1] == stats.norm.ppf(1.0 - 2**-53)


def test_truncated_draws_follow_the_law_inside_each_cell():
    dist = AnchorDistribution("uniform", 1.0, 2.0, 10.0, 3.0)  # [13, 19]
    low = np.array([14.0, 14.0, 14.0, 16.0, 17.0, 10.0])
    high = np.array([16.0, 16.0, 16.0, 16.0, 16.0, 13.6])
    out = dist.draw(scripted([0.0, 0.5, 1.0, 0.5, 0.5, 0.5]), 6, low, high)
    np.testing.assert_allclose(out[:3], [14.0, 15.0, 16.0])
    assert np.isnan(out[3]) and np.isnan(out[4])  # empty cells
    assert out[5] == pytest.approx(13.3)  # [10, 13.6] holds [13, 13.6] of the law
    normal = AnchorDistribution("normal", 0.0, 1.0, 0.0, 1.0)
    # the whole line: the ends are kept away from 0 and 1
    line = normal.draw(
        scripted([0.0, 1.0]), 2, np.array([-np.inf, -np.inf]), np.array([np.inf] * 2)
    )
    assert line[0] == stats.norm.ppf(1e-300) and line[1] == stats.norm.ppf(1 - 2**-53)


# -- CDFs ---------------------------------------------------------------------
def test_sample_reference_is_its_empirical_cdf():
    cdf = as_cdf([3.0, 1.0, 2.0, 2.0])
    np.testing.assert_array_equal(
        cdf(np.array([0.9, 1.0, 1.5, 2.0, 2.5, 3.0, 7.0])),
        [0, 0.25, 0.25, 0.75, 0.75, 1, 1],
    )
    with pytest.raises(
        TypeError,
        match=exact(
            "ref must be a CDF (a callable or an object with cdf) or a sample of "
            "numbers."
        ),
    ):
        as_cdf(["a", "b"], name="ref")
    message = "reference as a sample must be a non-empty array of finite values."
    for bad in ([], [1.0, np.nan], [np.inf]):
        with pytest.raises(ValueError, match=exact(message)):
            as_cdf(bad)


def test_cdf_objects_and_callables_are_checked_at_every_call():
    assert as_cdf(stats.norm())(np.array([0.0]))[0] == 0.5
    assert as_cdf(uniform_cdf)(np.array([0.25]))[0] == 0.25
    rules = [
        (
            lambda t: np.zeros(2),
            "f returned shape (2,) for points of shape (3,); a "
            "CDF returns one probability per point.",
        ),
        (
            lambda t: np.where(t > 0, np.nan, 0.0),
            "f returned NaN at 2 of 3 points; "
            "it must be a cumulative distribution function.",
        ),
        (
            lambda t: np.where(t > 1, 1.5, 0.0),
            "f returned a value outside [0, 1] at 1 "
            "of 3 points; it must be a cumulative distribution function.",
        ),
        (
            lambda t: np.where(t > 1, -0.5, 0.0),
            "f returned a value outside [0, 1] at "
            "1 of 3 points; it must be a cumulative distribution function.",
        ),
    ]
    points = np.array([-1.0, 0.5, 2.0])
    for func, message in rules:
        with pytest.raises(ValueError, match=exact(message)):
            as_cdf(func, name="f")(points)
    ends = np.array([-np.inf, 0.0, np.inf])
    with pytest.raises(
        ValueError,
        match=exact(
            "f.cdf is not 0 at -inf at 1 of 3 points; it must be a cumulative "
            "distribution function."
        ),
    ):

        class Shifted:
            def cdf(self, t):
                return np.full(np.shape(t), 0.5)

        as_cdf(Shifted(), name="f")(ends)
    with pytest.raises(
        ValueError,
        match=exact(
            "g is not 1 at +inf at 1 of 3 points; it must be a cumulative "
            "distribution function."
        ),
    ):
        as_cdf(lambda t: np.where(np.isinf(t) & (t > 0), 0.9, 0.0), name="g")(ends)
    # a scalar result broadcasts; NaN points may give NaN
    np.testing.assert_array_equal(
        as_cdf(lambda t: 0.5)(np.array([0.0, 1.0])), [0.5, 0.5]
    )
    out = as_cdf(lambda t: np.where(np.isnan(t), np.nan, 0.5))(np.array([np.nan, 1.0]))
    assert np.isnan(out[0]) and out[1] == 0.5


def test_cdf_must_not_decrease_beyond_rounding():
    def wobbly(step):
        return lambda t: np.where(np.asarray(t) > 0, 0.5 - step, 0.5)

    # the points are checked in sorted order, whatever order they come in
    as_cdf(wobbly(1e-13))(np.array([1.0, -1.0]))
    with pytest.raises(
        ValueError,
        match=exact(
            "h decreases between two of the points it was evaluated at; a "
            "cumulative distribution function is non-decreasing."
        ),
    ):
        as_cdf(wobbly(1e-11), name="h")(np.array([1.0, -1.0]))
    # NaN points are left out of the order
    as_cdf(lambda t: np.where(np.isnan(t), 0.0, 0.5))(np.array([0.0, np.nan, 1.0]))


# -- acceptable set and cells -------------------------------------------------
def test_acceptable_range_is_sorted_and_checked():
    assert check_acceptable_range(None).shape == (0, 2)
    np.testing.assert_array_equal(check_acceptable_range((1, 2)), [[1.0, 2.0]])
    np.testing.assert_array_equal(
        check_acceptable_range([(5, 6), (1, 2), (2, 3)]), [[1, 2], [2, 3], [5, 6]]
    )
    cases = [
        (
            [1, 2, 3],
            "acceptable_range must be a pair (low, high) or a list of "
            "pairs; got [1, 2, 3].",
        ),
        ([], "acceptable_range must be a pair (low, high) or a list of pairs; got []."),
        (
            [[[1, 2]]],
            "acceptable_range must be a pair (low, high) or a list of "
            "pairs; got [[[1, 2]]].",
        ),
        ((2, 2), "acceptable_range needs low < high in every pair; got (2, 2)."),
        ((np.nan, 2), "acceptable_range needs low < high in every pair; got (nan, 2)."),
        (
            [(0, 2), (1, 3)],
            "acceptable_range pairs must not overlap; got [(0, 2), (1, 3)].",
        ),
    ]
    for bad, message in cases:
        with pytest.raises(ValueError, match=exact(message)):
            check_acceptable_range(bad)


def test_fixed_set_cells_are_open_below_and_closed_above():
    fixed = np.array([[0.0, 1.0], [2.0, 3.0]])
    y = np.array([0.0, 0.5, 1.0, 1.5, 2.0, 3.0, 3.5])
    np.testing.assert_array_equal(
        in_fixed_set(y, fixed), [False, True, True, False, False, True, False]
    )
    assert not in_fixed_set(y, np.empty((0, 2))).any()
    assert in_fixed_set(y, np.empty((0, 2))).shape == (7,)
    # P(cell ∩ A) for a uniform population
    lo = np.array([-np.inf, 0.5, 1.0, 2.5])
    hi = np.array([0.5, 2.5, 2.0, np.inf])
    np.testing.assert_allclose(
        mass_in_fixed_set(lo, hi, np.array([[0.0, 0.25], [0.75, 1.0]]), uniform_cdf),
        [0.25, 0.25, 0.0, 0.0],
    )


def test_cells_hold_each_value_with_the_anchor_as_upper_end():
    anchors = np.array([[1.0, 2.0], [1.0, 2.0], [1.0, 2.0], [1.0, 2.0]])
    y = np.array([0.5, 1.0, 1.5, 3.0])
    idx, lo, hi = cell_bounds(anchors, y)
    np.testing.assert_array_equal(idx, [0, 0, 1, 2])
    np.testing.assert_array_equal(lo, [-np.inf, -np.inf, 1.0, 2.0])
    np.testing.assert_array_equal(hi, [1.0, 1.0, 2.0, np.inf])
    np.testing.assert_array_equal(
        pad_anchors(np.array([[1.0], [2.0]])),
        [[-np.inf, 1, np.inf], [-np.inf, 2, np.inf]],
    )


def test_design_coverage_of_pooled_cells_is_exact():
    q = np.array([[0.25, 0.75]])
    none = np.empty((0, 2))
    # 0.25^2 + 0.5^2 + 0.25^2
    assert design_coverage([(q, ())], uniform_cdf, none)[0] == 0.375
    assert design_coverage([(q, (1,))], uniform_cdf, none)[0] == 0.125
    # A = (0, 0.5]: cell masses outside A are 0, 0.25, 0.25
    assert design_coverage([(q, ())], uniform_cdf, np.array([[0.0, 0.5]]))[0] == 0.125
    # two components: pooled cells (.., .25], (.25, .5], (.5, .75], (.75, ..);
    # the second's cell 1 (above 0.5) is exact: only the first two count
    two = [(q, ()), (np.array([[0.5]]), (1,))]
    assert design_coverage(two, uniform_cdf, none)[0] == 0.125
    two = [(q, (0,)), (np.array([[0.5]]), ())]
    assert design_coverage(two, uniform_cdf, none)[0] == 0.25**2 * 2 + 0.25**2
    assert estimate_coverage(np.array([0.5, 0.25]), uniform_cdf) == pytest.approx(
        (0.5 + 0.625) / 2
    )


# -- the release --------------------------------------------------------------
def _check_release(mech, X):
    Z, anchors = mech.transform(X, return_anchors=True)
    n, d = X.shape
    assert Z.shape == (n, 2 * d) and anchors.shape[:2] == (n, d)
    np.testing.assert_array_equal(anchors, np.sort(anchors, axis=2))
    return Z, anchors


def test_each_value_is_released_as_the_cell_of_the_sorted_anchors():
    X = np.random.default_rng(1).normal(size=(300, 2))
    mech = IntervalMechanism(n_anchors=3, random_state=0).fit(X)
    Z, anchors = _check_release(mech, X)
    for j in range(2):
        q = anchors[:, j, :]
        below = np.where(q < X[:, [j]], q, -np.inf).max(axis=1)
        above = np.where(q >= X[:, [j]], q, np.inf).min(axis=1)
        np.testing.assert_array_equal(Z[:, 2 * j], below)
        np.testing.assert_array_equal(Z[:, 2 * j + 1], above)
    plain = mech.transform(X)
    assert plain.shape == (300, 4) and not isinstance(plain, tuple)


def test_exact_cells_and_the_acceptable_range_release_the_value():
    X = np.linspace(-3, 3, 61)[:, None]
    mech = IntervalMechanism(
        n_anchors=2, exact_cells=[2], acceptable_range=(-0.5, 0.5), random_state=0
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        mech.fit(X)
    Z, anchors = _check_release(mech, X)
    y = X[:, 0]
    top = anchors[:, 0, 1]
    exact = (y > top) | ((y > -0.5) & (y <= 0.5))
    np.testing.assert_array_equal(Z[exact, 0], y[exact])
    np.testing.assert_array_equal(Z[exact, 1], y[exact])
    assert np.all(Z[~exact, 0] < y[~exact]) and np.all(y[~exact] <= Z[~exact, 1])
    assert (~exact).sum() > 10 and (y > top).sum() > 3


def test_an_ensemble_releases_the_intersection_of_its_cells():
    X = np.random.default_rng(2).normal(size=(200, 1))
    ens = IntervalEnsemble(
        [IntervalCaseI(), IntervalMechanism(n_anchors=2, exact_cells=[1])],
        random_state=0,
    )
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        ens.fit(X)
    Z, anchors = _check_release(ens, X)
    assert anchors.shape == (200, 1, 3)
    y = X[:, 0]
    q = anchors[:, 0, :]
    below = np.where(q < y[:, None], q, -np.inf).max(axis=1)
    above = np.where(q >= y[:, None], q, np.inf).min(axis=1)
    exact = Z[:, 0] == Z[:, 1]
    assert 10 < exact.sum() < 190
    np.testing.assert_array_equal(Z[exact, 0], y[exact])
    np.testing.assert_array_equal(Z[~exact, 0], below[~exact])
    np.testing.assert_array_equal(Z[~exact, 1], above[~exact])


def test_values_outside_the_anchor_support_warn_with_the_share_and_column():
    mech = IntervalCaseI(distribution="uniform", random_state=0)
    X = pd.DataFrame({"age": [0.5, 2.0, -1.0, 0.25, 0.0, 1.0, 0.75, 0.1]})
    mech.fit(X)
    with pytest.warns(
        NotIdentifiableWarning,
        match=exact(
            "IntervalCaseI: 25.0% of column 'age' lie outside the support of the "
            "anchors [0, 1]; their reports are half-lines that never resolve, and "
            "the population distribution is not identifiable there."
        ),
    ):
        mech.transform(X)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        mech.transform(X.iloc[[0, 3, 4, 5]])  # 0 and 1 are inside


# -- settings and refusals ----------------------------------------------------
def test_per_column_settings_and_their_refusals():
    mech = IntervalCaseI(anchor_loc=[0.0, 10.0], anchor_scale=[1.0, 2.0])
    assert mech._n_columns_hint() == 2
    assert mech._standardization(1) == (10.0, 2.0)
    assert IntervalCaseI(support=(0, [1, 2, 3]))._n_columns_hint() == 3
    assert IntervalCaseI(support=(None, 5))._n_columns_hint() == 1
    assert IntervalCaseI()._standardization(4) == (0.0, 1.0)
    with pytest.raises(
        ValueError,
        match=exact(
            "anchor_loc must be a scalar or have one entry per column (3); got "
            "shape (2,)."
        ),
    ):
        IntervalCaseI(
            anchor_loc=[0.0, 1.0], anchor_scale=[1.0, 1.0, 1.0]
        )._standardization(0)
    with pytest.raises(
        ValueError, match=exact("anchor_scale must be finite; got [1.0, inf].")
    ):
        IntervalCaseI(anchor_scale=[1.0, np.inf])._standardization(0)
    with pytest.raises(
        ValueError, match=exact("anchor_scale must be positive; got [1.0, 0.0].")
    ):
        IntervalCaseI(anchor_scale=[1.0, 0.0])._standardization(0)


def test_declared_support_per_column_and_its_refusals():
    mech = IntervalCaseI(support=([0.0, -1.0], None))
    assert mech._value_support(0) == (0.0, np.inf)
    assert mech._value_support(1) == (-1.0, np.inf)
    assert IntervalCaseI()._value_support(0) == (-np.inf, np.inf)
    assert IntervalCaseI(support=(None, 3))._value_support(0) == (-np.inf, 3.0)
    for bad in ("ab", (0, 1, 2), [[0, 1]]):
        pair = (
            "support must be a pair (low, high) of the values' range, each end a "
            f"number, a per-column array or None (unbounded); got {bad!r}."
        )
        with pytest.raises(ValueError, match=exact(pair)):
            IntervalCaseI(support=bad)._value_support(0)
    with pytest.raises(
        ValueError,
        match=exact(
            "support ends must be numbers, None or arrays with one entry per "
            "column (4); got (0, [1, 2, 3])."
        ),
    ):
        IntervalCaseI(anchor_loc=[0] * 4, support=(0, [1, 2, 3]))._value_support(0)
    with pytest.raises(
        ValueError,
        match=exact(
            "support ends must be numbers, None or arrays with one entry per "
            "column (1); got ('a', 1)."
        ),
    ):
        IntervalCaseI(support=("a", 1))._value_support(0)
    for bad in ((1, 1), (2, 1), (np.nan, 1), (0, np.nan)):
        with pytest.raises(
            ValueError,
            match=exact(
                "support of column 0 must have low < high (None or an infinite end "
                f"for an unbounded side); got {bad!r}."
            ),
        ):
            IntervalCaseI(support=bad)._value_support(0)


@pytest.mark.parametrize(
    "support",
    [(0.0, [1.0, 2.0, 3.0]), ([0.0, 0.0, 0.0], [1.0, 2.0, 3.0]), (None, [1, 2, 3])],
)
def test_support_ends_may_be_per_column_arrays(support):
    # documented ("each end a number, a per-column array or None"); a
    # scalar beside an array and two arrays were both refused before
    mech = IntervalCaseI(support=support, random_state=0)
    assert mech._n_columns_hint() == 3
    mech.fit(np.full((3, 3), 0.5))
    low = -np.inf if support[0] is None else 0.0
    assert [mech._value_support(j) for j in range(3)] == [
        (low, 1.0),
        (low, 2.0),
        (low, 3.0),
    ]
    _, anchors = mech.transform(np.full((50, 3), 0.5), return_anchors=True)
    assert np.all(anchors[:, :, 0] <= [1.0, 2.0, 3.0])  # inside each support
    assert np.any(anchors[:, 2, 0] > 2.0)


def test_support_truncates_the_anchor_law_and_the_reference():
    mech = IntervalCaseI(distribution="uniform", scale=4.0, support=(1.0, 2.0))
    dist = mech._anchor_distribution(0)
    assert dist.support() == (1.0, 2.0)
    assert mech._anchor_support(0) == (1.0, 2.0)
    np.testing.assert_allclose(dist.cdf(np.array([1.5])), [0.5])
    assert mech._reference_text(0) == "N(0, 1^2) truncated to the support [1, 2]"
    ref = mech._reference_cdf(0)
    expected = stats.truncnorm(1.0, 2.0).cdf(1.5)
    assert ref(np.array([1.5]))[0] == pytest.approx(expected, rel=1e-12)
    shifted = IntervalCaseI(anchor_loc=1.0, anchor_scale=2.0, support=(None, 5.0))
    ref = shifted._reference_cdf(0)
    assert ref(np.array([3.0]))[0] == pytest.approx(
        stats.truncnorm(-np.inf, 2.0, loc=1.0, scale=2.0).cdf(3.0), rel=1e-12
    )
    assert shifted._reference_text(0) == "N(1, 2^2) truncated to the support [-inf, 5]"
    plain = IntervalCaseI(anchor_loc=1.0, anchor_scale=2.0)
    assert plain._reference_text(0) == "N(1, 2^2)"
    assert plain._reference_cdf(0)(np.array([3.0]))[0] == pytest.approx(
        stats.norm.cdf(1.0)
    )


def test_exact_law_needs_a_fit_and_names_an_infinite_loss():
    mech = IntervalCaseI(distribution="uniform", anchor_loc=10.0, anchor_scale=3.0)
    with pytest.raises(NotFittedError):
        mech._exact_law(0)
    mech.fit(np.array([[11.0], [12.0]]))
    loss = mech._exact_law(0)
    assert loss.inputs == pytest.approx((11.0, 12.0))


def test_fit_validates_the_design_of_every_column():
    with pytest.raises(ValueError, match="^anchor_scale must be positive; got "):
        IntervalCaseI(anchor_scale=[1.0, 0.0]).fit(np.zeros((3, 2)))
    with pytest.raises(ValueError, match="acceptable_range needs low < high"):
        IntervalMechanism(acceptable_range=(1, 0)).fit(np.zeros((3, 1)))
    with pytest.raises(ValueError, match="puts no probability inside"):
        IntervalCaseI(distribution="uniform", support=([0, 5], [1, 6])).fit(
            np.zeros((3, 2))
        )
    with pytest.raises(ValueError, match="finite"):
        IntervalCaseI().fit(np.array([[0.0], [np.inf]]))
    with pytest.raises(ValueError):
        IntervalCaseI().fit(np.array([[0.0], [np.nan]]))


# -- fit-time check of the design against the data -----------------------------
def test_fit_computes_the_figures_of_the_data(fit_figures):
    mech = IntervalCaseI(distribution="uniform", random_state=0)
    mech.fit(np.full((200, 2), 0.5))
    # a point mass is covered with probability 1 by its own cell
    assert fit_figures == [(1.0, 0.0), (1.0, 0.0)]
    fit_figures.clear()
    X = np.random.default_rng(0).uniform(size=(400, 1))
    mech.fit(X)
    # E[F(U)^2 + (1 - F(U))^2] = 2/3 for F(U) uniform; F the empirical CDF of
    # 400 uniforms (Kolmogorov distance about 0.04) and 20,000 anchor draws
    ((coverage, share),) = fit_figures
    assert coverage == pytest.approx(2 / 3, abs=0.02) and share == 0.0
    # the same figure as the summary computes for the same sample
    sample = IntervalCaseI(distribution="uniform").privacy_summary(reference=X[:, 0])
    assert coverage == pytest.approx(sample["coverage"], abs=0.01)


def test_fit_keeps_no_figure_of_the_data():
    # two data sets of the same shape, as different as the design allows:
    # the fitted object, its pickle and its summary are the same
    import pickle

    rng = np.random.default_rng(0)
    spread = rng.uniform(size=(400, 2))
    point = np.full((400, 2), 0.5)
    a = IntervalCaseI(distribution="uniform", random_state=0).fit(spread)
    b = IntervalCaseI(distribution="uniform", random_state=0).fit(point)
    assert vars(a).keys() == vars(b).keys()
    for key in vars(a):
        assert pickle.dumps(vars(a)[key]) == pickle.dumps(vars(b)[key]), key
    assert a.privacy_summary() == b.privacy_summary()
    assert not {"coverage_data", "exact_share_data"} & a.privacy_summary().keys()


@pytest.mark.parametrize("n", [50, 400])
def test_exact_release_of_most_values_warns(n):
    X = np.full((n, 1), 0.5)
    mech = IntervalMechanism(
        n_anchors=2, distribution="uniform", exact_cells=[0, 1], random_state=0
    )
    with pytest.warns(
        PrivacyLeakWarning,
        match=exact(
            "IntervalMechanism: more than half of the fitted values of column 'x0' "
            "are expected to lie where this design reports values exactly "
            "(exact_cells or acceptable_range); those reports are the raw values. "
            "Report fewer cells exactly."
        ),
    ):
        mech.fit(X)
    # P(0.6 <= U) = 0.4 of the values exactly: no warning
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        IntervalMechanism(
            n_anchors=1, distribution="uniform", exact_cells=[0], random_state=0
        ).fit(np.full((n, 1), 0.6))


def test_anchors_too_narrow_for_the_data_warn_without_the_data_figure(fit_figures):
    X = np.random.default_rng(0).normal(size=(200, 1))
    mech = IntervalCaseI(anchor_scale=1e-9, random_state=0)
    with pytest.warns(PrivacyLeakWarning) as record:
        mech.fit(X)
    (message,) = [str(w.message) for w in record]
    assert re.fullmatch(
        re.escape("IntervalCaseI: the coverage against the fitted data of column ")
        + r"'x0' is more than 0\.1 below the 0\.7\d "
        + re.escape(
            "reported for the reference population N(0, 1e-09^2) (anchor_loc, "
            "anchor_scale): the anchors do not match the spread of the data, so the "
            "reports reveal more than privacy_summary()['coverage'] states. Set "
            "anchor_loc and anchor_scale to a public centre and spread of the "
            "column, fixed before collection; privacy_summary(reference=X) gives "
            "the coverage against a sample X."
        ),
        message,
    )
    ((coverage, _),) = fit_figures
    assert 0.45 < coverage < 0.55  # each anchor splits the data in half
    # below 200 rows the gap is not checked
    with warnings.catch_warnings():
        warnings.simplefilter("error", PrivacyLeakWarning)
        IntervalCaseI(anchor_scale=1e-9, random_state=0).fit(X[:199])
        IntervalCaseI(random_state=0).fit(X)


# -- privacy_summary ----------------------------------------------------------
def test_summary_of_a_fitted_case_one_release_field_by_field():
    from scipy import integrate

    mech = IntervalCaseI(distribution="uniform", random_state=0)
    s = mech.fit(np.full((200, 1), 0.5)).privacy_summary()
    # a fixed Monte Carlo: the same figures on every call
    assert mech.privacy_summary() == s
    # E[F(U)^2 + (1 - F(U))^2], F the N(0, 1) CDF, U uniform on [0, 1]
    tau = integrate.quad(
        lambda u: stats.norm.cdf(u) ** 2 + stats.norm.sf(u) ** 2, 0.0, 1.0
    )[0]
    assert s.pop("coverage") == pytest.approx(tau, abs=2e-3)
    assert s.pop("leakage") == pytest.approx(1 - tau, abs=2e-3)
    assert s == {
        "notion": "interval privacy",
        "mechanism": "IntervalCaseI",
        "n_cells": 2,
        "exact_disclosure": False,
        "exact_share": 0.0,
        "reference": "N(anchor_loc, anchor_scale^2)",
        "coverage_reference": "N(0, 1^2)",
        "reproducible": True,
        "random_state_note": (
            "reproducible: for simulation, not for release (the noise is a "
            "function of random_state, the settings and the data)"
        ),
    }


def test_summary_coverage_matches_closed_forms():
    # uniform anchors, uniform population: F(U) uniform on [0, 1]
    tol = 2e-3  # 200,000 anchor draws: standard errors below 4e-4
    s = IntervalCaseI(distribution="uniform").privacy_summary(reference=uniform_cdf)
    assert s["coverage"] == pytest.approx(2 / 3, abs=tol)
    assert s["leakage"] == 1 - s["coverage"]
    assert s["exact_share"] == 0.0
    assert (s["n_cells"], s["exact_disclosure"]) == (2, False)
    assert s["mechanism"] == "IntervalCaseI" and s["notion"] == "interval privacy"
    assert s["reference"] == "user-given"
    assert s["coverage_reference"] == "the reference given to privacy_summary"
    # Case II: the spacings of two sorted uniforms, E[S^2] = 1/6 each
    s = IntervalCaseII(distribution="uniform").privacy_summary(reference=uniform_cdf)
    assert s["coverage"] == pytest.approx(1 / 2, abs=tol)
    assert s["n_cells"] == 3
    # the middle cell exact: coverage E[V1^2 + (1 - V2)^2] = 1/3, share 1/3
    s = IntervalMechanism(
        n_anchors=2, distribution="uniform", exact_cells=[1]
    ).privacy_summary(reference=uniform_cdf)
    assert s["coverage"] == pytest.approx(1 / 3, abs=tol)
    assert s["exact_share"] == pytest.approx(1 / 3, abs=tol)
    assert s["exact_disclosure"] is True
    # A = (0, 1/2]: share 1/2, coverage 1/24 + 1/8 + 1/24
    s = IntervalMechanism(
        n_anchors=1, distribution="uniform", acceptable_range=(0, 0.5)
    ).privacy_summary(reference=uniform_cdf)
    assert s["coverage"] == pytest.approx(5 / 24, abs=tol)
    assert s["exact_share"] == pytest.approx(1 / 2, abs=tol)
    assert s["exact_disclosure"] is True


def test_summary_reference_forms_and_their_descriptions():
    mech = IntervalCaseI(distribution="uniform", anchor_loc=[0.0, 0.0])
    sample = np.column_stack([np.full(10, 0.5), np.linspace(0.05, 0.95, 10)])
    s = mech.privacy_summary(reference=sample)
    # column 0: a point mass at 0.5, covered with probability 1
    assert s["coverage"][0] == 1.0
    assert s["coverage"][1] < 0.9
    assert s["coverage_reference"] == [
        "the sample given as reference (column 0)",
        "the sample given as reference (column 1)",
    ]
    s = mech.privacy_summary(reference=sample.tolist())
    assert s["coverage"][0] == 1.0
    s = mech.privacy_summary(reference=[0.5, 0.5])
    assert s["coverage"] == [1.0, 1.0]
    assert s["coverage_reference"] == ["the reference given to privacy_summary"] * 2
    default = mech.privacy_summary()
    assert default["reference"] == "N(anchor_loc, anchor_scale^2)"
    assert default["coverage_reference"] == ["N(0, 1^2)", "N(0, 1^2)"]
    assert default["leakage"] == [1 - c for c in default["coverage"]]
    bounded = IntervalCaseI(support=(0, None)).privacy_summary()
    assert bounded["reference"] == "N(anchor_loc, anchor_scale^2) on the support"
    assert bounded["coverage_reference"] == (
        "N(0, 1^2) truncated to the support [0, inf]"
    )
    # against N(0, 1) truncated to [0, inf), the half-normal, on the same law
    half = IntervalCaseI(support=(0, None)).privacy_summary(reference=stats.halfnorm())
    assert bounded["coverage"] == pytest.approx(half["coverage"], abs=1e-12)


def test_summary_is_the_same_before_and_after_fit_and_refuses_changes():
    mech = IntervalCaseI(distribution="uniform", random_state=0)
    before = mech.privacy_summary()
    assert mech.fit(np.full((10, 1), 0.5)).privacy_summary() == before
    assert mech.fit(np.full((200, 1), 0.25)).privacy_summary() == before
    mech.set_params(scale=2.0)
    with pytest.raises(ValueError, match="scale"):
        mech.privacy_summary()
    with pytest.raises(ValueError, match="^anchor_scale must be positive; got "):
        IntervalCaseI(anchor_scale=[1.0, 0.0]).privacy_summary()


# -- rounding at the ends, and the refusals' boundaries --------------------------
def test_quantiles_and_draws_never_leave_their_window_by_rounding():
    # cdf then ppf of the normal law at -3 and 2 round outside [-3, 2] (by
    # 4e-16): the window's ends are returned exactly
    window = AnchorDistribution("normal", 0.0, 1.0, 0.0, 1.0, window=(-3.0, 2.0))
    np.testing.assert_array_equal(window.ppf(np.array([0.0, 1.0])), [-3.0, 2.0])
    assert window.support() == (-3.0, 2.0)
    normal = AnchorDistribution("normal", 0.0, 1.0, 0.0, 1.0)
    low, high = np.array([-3.0, -3.0]), np.array([2.0, 2.0])
    out = normal.draw(scripted([0.0, 1.0]), 2, low, high)
    np.testing.assert_array_equal(out, [-3.0, 2.0])


def test_window_mass_must_exceed_one_in_a_billion():
    # the uniform law's CDF is exact: the mass of (0, 1e-9] is 1e-9
    with pytest.raises(ValueError, match="puts no probability inside"):
        AnchorDistribution("uniform", 0.0, 1.0, 0.0, 1.0, window=(0.0, 1e-9))
    AnchorDistribution("uniform", 0.0, 1.0, 0.0, 1.0, window=(0.0, 2e-9))


def _exact_share_warnings(record):
    return [str(w.message) for w in record if "exactly (" in str(w.message)]


def test_half_the_values_released_exactly_does_not_warn():
    # the acceptable range holds exactly half of the values, whatever the
    # anchors: a share of 1/2 is not more than half
    X = np.repeat([[0.5, 0.5], [2.0, 0.5]], 100, axis=0)
    mech = IntervalMechanism(n_anchors=1, acceptable_range=(0, 1), random_state=0)
    with pytest.warns(PrivacyLeakWarning) as record:
        mech.fit(X)
    assert _exact_share_warnings(record) == [
        "IntervalMechanism: more than half of the fitted values of column 'x1' "
        "are expected to lie where this design reports values exactly "
        "(exact_cells or acceptable_range); those reports are the raw values. "
        "Report fewer cells exactly."
    ]
    # below 200 rows every column is still checked
    with pytest.warns(PrivacyLeakWarning) as record:
        mech.fit(pd.DataFrame(X[::2], columns=["age", "income"]))
    assert [m[:73] for m in _exact_share_warnings(record)] == [
        "IntervalMechanism: more than half of the fitted values of column 'income'"
    ]


def test_transform_checks_columns_and_names_the_uncovered_one():
    mech = IntervalCaseI(distribution="uniform", random_state=0)
    mech.fit(pd.DataFrame({"a": [0.5, 0.5], "b": [0.5, 0.5]}))
    with pytest.raises(ValueError, match="features"):
        mech.transform(np.zeros((2, 3)))
    with pytest.warns(NotIdentifiableWarning) as record:
        mech.transform(pd.DataFrame({"a": [0.5, 0.5], "b": [0.5, 3.0]}))
    assert [str(w.message)[:40] for w in record] == [
        "IntervalCaseI: 50.0% of column 'b' lie o"
    ]


def test_fit_and_transform_name_the_row_of_a_missing_or_infinite_value():
    mech = IntervalCaseI(random_state=0)
    for bad, text in ((np.inf, "infinity"), (np.nan, "NaN")):
        X = np.array([[0.0, 1.0], [2.0, bad]])
        message = (
            f"X contains {text} at row 1, column 1; every value must be finite (a "
            "missing value is NaN)."
        )
        with pytest.raises(ValueError, match=exact(message)):
            mech.fit(X)
        mech.fit(np.zeros((2, 2)))
        with pytest.raises(ValueError, match=exact(message)):
            mech.transform(X)


def test_a_seeded_release_draws_other_anchors_for_other_data():
    # the noise is a function of random_state, the settings and the data:
    # the first release of two equal fits differs only by the data released
    X = np.zeros((20, 1))

    def first_anchors(data):
        mech = IntervalCaseI(random_state=0).fit(X)
        return mech.transform(data, return_anchors=True)[1]

    np.testing.assert_array_equal(first_anchors(X), first_anchors(X))
    assert not np.any(first_anchors(X) == first_anchors(X + 0.5))


def test_reference_truncated_below_and_support_of_a_later_column():
    mech = IntervalCaseI(anchor_loc=1.0, anchor_scale=2.0, support=(0.0, 5.0))
    expected = stats.truncnorm(-0.5, 2.0, loc=1.0, scale=2.0).cdf(3.0)
    assert mech._reference_cdf(0)(np.array([3.0]))[0] == pytest.approx(expected)
    # a scalar support holds for any column asked about
    assert IntervalCaseI(support=(0, 1))._value_support(4) == (0.0, 1.0)


@pytest.mark.filterwarnings("error")
def test_cdf_floating_point_warnings_are_silenced():
    # exp(-1/t) on t > 0: both branches are computed, dividing by 0 and
    # overflowing on the points left of 0
    def smooth(t):
        return np.where(t > 0, np.exp(-1.0 / t), 0.0)

    out = as_cdf(smooth)(np.array([-1e-3, 0.0, 1.0, np.inf]))
    np.testing.assert_allclose(out, [0.0, 0.0, np.exp(-1.0), 1.0])


def test_more_cdf_and_acceptable_set_boundaries():
    # a decrease of exactly 1e-12 is rounding, not a decrease
    as_cdf(lambda t: np.where(t < 0, 1e-12, 0.0))(np.array([-1.0, 1.0]))
    # None entries are missing probabilities
    with pytest.raises(
        ValueError,
        match=exact(
            "f returned NaN at 1 of 2 points; it must be a cumulative "
            "distribution function."
        ),
    ):
        as_cdf(lambda t: [None, 0.5], name="f")(np.array([0.0, 1.0]))
    with pytest.raises(
        TypeError,
        match=exact(
            "acceptable_range must be numeric; entry (0,) is a str, not a number."
        ),
    ):
        check_acceptable_range(["a", "b"])
    with pytest.raises(ValueError, match="^acceptable_range must be a pair"):
        check_acceptable_range(np.empty((0, 2)))
    # the second and third pairs overlap
    with pytest.raises(ValueError, match="^acceptable_range pairs must not overlap"):
        check_acceptable_range([(0, 1), (2, 4), (3, 5)])
    # two components with exact cells: both remove their pooled cells
    q = np.array([[0.25, 0.75]])
    two = [(q, (0,)), (np.array([[0.5]]), (1,))]
    assert design_coverage(two, uniform_cdf, np.empty((0, 2)))[0] == 0.0625


def test_fit_figures_are_the_same_at_every_fit(fit_figures):
    # The data coverage is a Monte Carlo average over one fixed set of anchor
    # draws, so the warning it decides cannot come and go from one fit of the
    # same data to the next.
    X = np.linspace(0.0, 1.0025323443821141, 400)[:, None]
    mech = IntervalCaseI(distribution="uniform", random_state=0)
    for _ in range(12):
        mech.fit(X)
    assert len(set(fit_figures)) == 1 and len(fit_figures) == 12
    assert fit_figures[0][0] == pytest.approx(2 / 3, abs=0.01)


def test_per_column_anchor_settings_given_as_objects_are_read_as_floats():
    # an object array (as a pandas column of Python numbers gives) is the
    # same design as the float array of the same numbers
    X = np.random.default_rng(0).normal(size=(50, 2))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        as_objects = IntervalCaseI(
            anchor_loc=np.array([0, 1], dtype=object),
            anchor_scale=np.array([1, 2], dtype=object),
        ).fit(X)
        as_floats = IntervalCaseI(anchor_loc=[0.0, 1.0], anchor_scale=[1.0, 2.0]).fit(X)
    assert as_objects.privacy_summary() == as_floats.privacy_summary()
    assert np.isfinite(as_objects.transform(X)).any(axis=1).all()


def test_a_seeded_release_reads_the_values_as_float64():
    # The seed's data fingerprint is taken of the values in float64, so the
    # same numbers held as int or float32 draw the same stream.
    from skprivate import IntervalCaseI

    x = np.array([[1], [2], [4]], dtype=np.int32)
    want = IntervalCaseI(random_state=5).fit_transform(x.astype(np.float64))
    for dtype in (np.int32, np.float32):
        got = IntervalCaseI(random_state=5).fit_transform(x.astype(dtype))
        np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize(
    "cov, warns", [(0.75 - 0.1, False), (np.nextafter(0.75 - 0.1, 0), True)]
)
def test_coverage_warning_needs_more_than_the_gap(monkeypatch, cov, warns):
    """'More than 0.1 below': a coverage exactly 0.1 under the reference's is
    not warned about, the next double under it is (figures scripted)."""
    from skprivate.interval import _base_mechanism

    def scripted(comps, cdf, fixed):
        data = "_counted_cdf" in getattr(cdf, "__qualname__", "")
        return (cov, 0.0) if data else (0.75, 0.0)

    monkeypatch.setattr(_base_mechanism, "design_disclosure", scripted)
    X = np.random.default_rng(0).normal(size=(250, 1))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        IntervalCaseI(anchor_loc=0.0, anchor_scale=1.0, random_state=0).fit(X)
    gap = [w for w in caught if "more than 0.1 below" in str(w.message)]
    assert len(gap) == (1 if warns else 0)
