"""Central-DP baselines pinned exactly where mutation testing found them unchecked.

A scripted generator stands in for the noise: it records the law each draw
is asked for (the Laplace location and scale, the exponential mechanism's
selection probabilities) and returns set standard draws, so each test
states the exact scale ``sensitivity / epsilon`` of a statistic on a small
case, the exact selection probabilities of the DP quantile, the exact
propose-test-release threshold, and the exact text of every refusal.
``benchmarks/_mutation_specs_interval_mechanism.py`` (key ``integral_dp``)
lists the mutants of ``skprivate/integral/_dp.py`` and their reasons.
"""

import re
import warnings

import numpy as np
import pandas as pd
import pytest

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.integral import (
    IntegralPrivateStatistics,
    absolute_relative_error,
    laplace_describe,
    laplace_statistic,
)
from skprivate.integral._dp import (
    _column_seed,
    _dp_quantile,
    _iqr_ptr,
    _laplace_scale,
    _Moments,
    _true_value,
)
from skprivate.integral._sensitivity import (
    MOMENT_STATISTICS,
    global_scale,
    sum_sensitivity,
)
from skprivate.utils._seeding import canonical, data_fingerprint, multiset_hash, words
from tests._scripted_generator import (
    ScriptedGenerator,
    pass_scripted_generators_through,
)

LOCAL = (
    "sensitivity='local': the {} is released with a noise scale computed from "
    "the data (the paper's baseline), which is not differentially private and "
    "can reveal values exactly; use sensitivity='global' for an epsilon-DP release."
)
FROM_DATA = (
    "bounds were taken from the data (its min and max), as in the paper's "
    "real-data experiments; pass public bounds for a DP release."
)


def exact(message):
    """A pattern matching the whole of ``message``, nothing around it."""
    return f"^{re.escape(message)}$"


@pytest.fixture(autouse=True)
def _scripted_draws(monkeypatch):
    """A :class:`Scripted` generator is the release's generator itself."""
    pass_scripted_generators_through(monkeypatch)


class Scripted(ScriptedGenerator):
    """Records the laws asked of it; returns set standard draws.

    ``laplace(loc, scale)`` returns ``loc + scale * z`` with the next ``z``
    of ``self.z`` (0 when they run out), ``choice`` the next index of
    ``self.picks`` and ``random`` the next of ``self.uniforms``.  A release
    given one draws from it (:func:`_scripted_draws`); any other
    ``random_state`` is seeded as the library seeds it.
    """

    def script(self, z=(), picks=(), uniforms=()):
        self.z, self.picks, self.uniforms = list(z), list(picks), list(uniforms)
        self.calls = []
        return self

    def laplace(self, loc=0.0, scale=1.0, size=None):
        self.calls.append(("laplace", loc, scale))
        return loc + scale * (self.z.pop(0) if self.z else 0.0)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        self.calls.append(("choice", a, np.array(p)))
        return self.picks.pop(0)

    def random(self, size=None, dtype=np.float64, out=None):
        self.calls.append(("random",))
        return self.uniforms.pop(0)


def scripted(z=(), picks=(), uniforms=()):
    return Scripted(np.random.PCG64(0)).script(z, picks, uniforms)


def _release(x, statistic, epsilon, bounds, z=(1.0,), **kw):
    rng = scripted(z=z)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        value = laplace_statistic(x, statistic, epsilon, bounds, random_state=rng, **kw)
    return value, rng.calls


# -- global sensitivity: the scale of each statistic --------------------------
@pytest.mark.parametrize(
    ("statistic", "truth", "scale"),
    [
        # values clamped into [-2, 4]: [-2, 1, 2, 4]; n = 4, epsilon = 0.5
        ("count", 4.0, 1 / 0.5),
        ("sum", 5.0, 6 / 0.5),  # max(U - L, |L|, |U|) = 6
        ("mean", 1.25, 6 / (4 * 0.5)),  # (U - L) / n
        ("var", 6.25, 36 / (4 * 0.5)),  # (U - L)^2 / n
        ("std", 2.5, 6 / (2 * 0.5)),  # (U - L) / sqrt(n)
    ],
)
def test_global_scale_is_sensitivity_over_epsilon(statistic, truth, scale):
    value, calls = _release([-3.0, 1.0, 2.0, 10.0], statistic, 0.5, (-2, 4))
    assert calls == [("laplace", 0.0, pytest.approx(scale, rel=1e-12))]
    assert value == pytest.approx(truth + scale, rel=1e-12)


def test_sum_sensitivity_covers_a_replaced_record_and_an_added_one():
    # replacing -5 by 10 in [-5, 10] moves the clamped sum by 15, more than
    # max(|L|, |U|) = 10: the scale must be at least 15 / epsilon
    x = np.array([-5.0, 0.0, 3.0])
    neighbour = np.array([10.0, 0.0, 3.0])
    assert neighbour.sum() - x.sum() == 15.0
    value, calls = _release(x, "sum", 2.0, (-5, 10), z=(-1.0,))
    assert calls == [("laplace", 0.0, 7.5)]
    assert value == -2.0 - 7.5
    # bounds of one sign: adding a record at 10 moves it by 10 > U - L = 8
    assert global_scale("sum", 3, 2.0, 2.0, 10.0) == 5.0
    assert global_scale("sum", 3, 2.0, -10.0, -2.0) == 5.0
    rng = scripted(z=(1.0,))
    with pytest.warns(PrivacyLeakWarning, match="sensitivity='local'"):
        laplace_statistic(
            x, "min", 2.0, (-5, 10), random_state=rng, sensitivity="local"
        )
    for lo, hi in ((-5.0, 10.0), (2.0, 10.0), (-10.0, -2.0)):
        expected = max(hi - lo, abs(lo), abs(hi)) / 2.0
        assert _laplace_scale(x, "sum", 2.0, lo, hi) == expected


def test_sum_sensitivity_and_the_moments_with_a_global_scale():
    assert sum_sensitivity(-5.0, 10.0) == 15.0  # replaced record: U - L
    assert sum_sensitivity(2.0, 10.0) == 10.0  # added record: |U|
    assert sum_sensitivity(-10.0, -2.0) == 10.0  # added record: |L|
    assert MOMENT_STATISTICS == ("count", "sum", "mean", "var", "std")


def test_global_scale_of_another_statistic_is_refused():
    with pytest.raises(
        ValueError, match=exact("no Laplace scale for statistic 'median'.")
    ):
        global_scale("median", 3, 1.0, 0.0, 1.0)
    with pytest.raises(
        ValueError, match=exact("no Laplace scale for statistic 'iqr'.")
    ):
        _laplace_scale(np.arange(3.0), "iqr", 1.0, 0.0, 1.0)


def test_one_value_has_no_sample_variance():
    for statistic in ("var", "std"):
        value, _ = _release([3.0], statistic, 1.0, (0, 10))
        assert np.isnan(value)
    value, _ = _release([3.0, 5.0], "std", 1.0, (0, 10), z=(0.0,))
    assert value == pytest.approx(np.sqrt(2.0), rel=1e-15)


def test_bounds_from_the_data_warn_and_set_the_scale():
    rng = scripted(z=(1.0,))
    with pytest.warns(PrivacyLeakWarning, match=exact(FROM_DATA)):
        value = laplace_statistic([-3.0, 1.0, 5.0], "sum", 2.0, random_state=rng)
    assert rng.calls == [("laplace", 0.0, 4.0)]  # (5 - (-3)) / 2
    assert value == 3.0 + 4.0
    rng = scripted(z=(1.0,))
    with pytest.warns(PrivacyLeakWarning):
        value = laplace_statistic([-3.0, 1.0, 5.0], "mean", 2.0, random_state=rng)
    assert rng.calls == [("laplace", 0.0, pytest.approx(8 / 6, rel=1e-15))]


# -- local sensitivity (the paper's variants) ---------------------------------
X5 = [11.0, 1.0, 4.0, 7.0, 2.0]  # sorted: 1, 2, 4, 7, 11


@pytest.mark.parametrize(
    ("x", "statistic", "truth", "scale"),
    [
        (X5, "min", 1.0, (2 - 1) / 2),
        (X5, "max", 11.0, (11 - 7) / 2),
        (X5, "median", 4.0, max(4 - 2, 7 - 4) / 2),
        ([7.0, 1.0, 4.0, 2.0], "median", 3.0, max(2 - 1, 4 - 2) / 2),
        ([11.0, 2.0, 6.0, 1.0, 7.0], "median", 6.0, max(6 - 2, 7 - 6) / 2),
        ([1.0, 2.0], "median", 1.5, 20 / 2),  # fewer than 3 values: the range
        ([3.0], "min", 3.0, 20 / 2),
        ([3.0], "max", 3.0, 20 / 2),
    ],
)
def test_local_scale_of_order_statistics(x, statistic, truth, scale):
    rng = scripted(z=(1.0,))
    with pytest.warns(PrivacyLeakWarning, match=exact(LOCAL.format(statistic))):
        value = laplace_statistic(
            x, statistic, 2.0, (-4, 16), random_state=rng, sensitivity="local"
        )
    assert rng.calls == [("laplace", 0.0, scale)]
    assert value == truth + scale


@pytest.mark.parametrize(
    ("statistic", "truth", "scale"),
    [
        ("count", 5.0, 1 / 2),
        ("sum", 24.0, 10 / 2),  # -1 and 11 are clamped to 1 and 10
        ("mean", 24.0 / 5, 9 / (5 * 2)),
    ],
)
def test_local_moments_keep_their_global_scale_without_warning(statistic, truth, scale):
    x = [11.0, -1.0, 4.0, 7.0, 2.0]
    value, calls = _release(x, statistic, 2.0, (1, 10), sensitivity="local")
    assert calls == [("laplace", 0.0, pytest.approx(scale, rel=1e-15))]
    assert value == pytest.approx(truth + scale, rel=1e-15)


def test_local_variance_and_sd_take_their_scale_from_the_noisy_range():
    # var of 1, 2, 4, 7, 11 (within the bounds [0, 12]): 66 / 4
    rng = scripted(z=(0.5, 1.0, 1.0))
    with pytest.warns(PrivacyLeakWarning, match=exact(LOCAL.format("var"))):
        value = laplace_statistic(
            X5, "var", 2.0, (0, 12), random_state=rng, sensitivity="local"
        )
    # noisy min 1 + 0.5 * 0.5, noisy max 11 + 1 * 2: spread 11.75
    assert rng.calls == [
        ("laplace", 0.0, 0.5),
        ("laplace", 0.0, 2.0),
        ("laplace", 0.0, pytest.approx(11.75**2 / 10, rel=1e-15)),
    ]
    assert value == pytest.approx(16.5 + 11.75**2 / 10, rel=1e-15)
    # a noisy max below the noisy min: the spread is their distance
    rng = scripted(z=(0.0, -10.0, 1.0))
    with pytest.warns(PrivacyLeakWarning, match=exact(LOCAL.format("std"))):
        value = laplace_statistic(
            X5, "std", 2.0, (0, 12), random_state=rng, sensitivity="local"
        )
    spread = abs((11 - 20) - 1)
    scale = spread / (np.sqrt(5) * 2)
    assert rng.calls[2] == ("laplace", 0.0, pytest.approx(scale, rel=1e-15))
    assert value == pytest.approx(np.sqrt(16.5) + scale, rel=1e-15)


# -- the exponential mechanism's quantile -------------------------------------
def _selection(x, statistic, epsilon, bounds, pick, u):
    rng = scripted(picks=(pick,), uniforms=(u,))
    value = laplace_statistic(x, statistic, epsilon, bounds, random_state=rng)
    (kind, a, p), draw = rng.calls
    assert kind == "choice" and draw == ("random",)
    return value, a, p


@pytest.mark.parametrize(
    ("statistic", "utility"),
    [
        ("median", [-1.5, -0.5, -0.5, -1.5]),  # -|i - n / 2|
        ("min", [0.0, -1.0, -2.0, -3.0]),  # -i
        ("max", [-3.0, -2.0, -1.0, 0.0]),  # -|i - n|
    ],
)
def test_quantile_selection_probabilities_are_exact(statistic, utility):
    # [0, 10] cut at 1, 2, 3: widths 1, 1, 1, 7; epsilon = 1
    weights = np.array([1, 1, 1, 7]) * np.exp(0.5 * np.array(utility))
    value, a, p = _selection([3.0, 1.0, 2.0], statistic, 1.0, (0, 10), 3, 0.25)
    assert a == 4
    np.testing.assert_allclose(p, weights / weights.sum(), rtol=1e-13, atol=0)
    assert value == 3.0 + 0.25 * 7  # uniform inside the interval drawn
    value, _, _ = _selection([3.0, 1.0, 2.0], statistic, 1.0, (0, 10), 1, 0.5)
    assert value == 1.5


@pytest.mark.filterwarnings("error")
def test_quantile_clamps_values_and_never_draws_an_empty_interval():
    # -5 and 30 are clamped to the bounds: intervals [0, 0], [0, 2], [2, 10], [10, 10]
    weights = np.array([0.0, 2.0, 8.0, 0.0]) * np.exp(
        -0.5 * np.array([1.5, 0.5, 0.5, 1.5])
    )
    value, _, p = _selection([30.0, -5.0, 2.0], "median", 1.0, (0, 10), 2, 0.5)
    np.testing.assert_allclose(p, weights / weights.sum(), rtol=1e-13, atol=0)
    assert p[0] == 0.0 and p[3] == 0.0
    assert value == 6.0


def test_quantile_at_a_large_budget_keeps_its_weights():
    # exp(-500) and below underflow unless the weights are taken relative
    # to the best interval: two equal intervals of utility -1/2 share it
    _, _, p = _selection([1.0, 2.0, 3.0], "median", 2000.0, (0, 10), 1, 0.0)
    np.testing.assert_array_equal(p, [0.0, 0.5, 0.5, 0.0])


B8 = 1.0 + 1.0 / np.log(8)


# -- the IQR's propose-test-release -------------------------------------------
def _ptr(x, lo, hi, epsilon, delta, z):
    rng = scripted(z=(z,))
    value = _iqr_ptr(np.sort(np.asarray(x, float)), lo, hi, epsilon, delta, rng)
    assert rng.calls == [("laplace", 0.0, 1.0 / epsilon)]
    return value


def test_iqr_test_threshold_is_log_one_over_delta_over_epsilon():
    # n = 8: quartiles 0 and 10 (IQR 10), base 1 + 1/ln 8, bin j = 5
    # ([7.12, 10.55)); one change keeps both quartiles, two can cross them
    # (x(3) - x(4) = 0 below the bin): distance 1.  Threshold ln 2 / ln 2 = 1.
    x = [0.0] * 4 + [10.0] * 4
    eps = np.log(2.0)
    base = 1.0 + 1.0 / np.log(8)
    assert np.isnan(_ptr(x, -100, 100, eps, 0.5, 0.0))  # 1 + 0 <= 1: refused
    released = _ptr(x, -100, 100, eps, 0.5, 1e-9)
    assert released == pytest.approx(base**5.5, rel=1e-14)
    assert base**5 <= 10 < base**6


@pytest.mark.parametrize(
    ("x", "distance"),
    [
        ([0.0] * 4 + [10.0] * 4, 1),
        # n = 14: quartiles 1 and 9 (IQR 8 in [6.87, 9.48)); they stay for two
        # changes (x(7) - x(6) = 8, x(12) - x(1) = 8) and may move at three
        ([0.0] + [1.0] * 6 + [9.0] * 6 + [10.0], 2),
        # n = 6: quartiles 1 and 9 (IQR 8); after one change x(3) - x(2) = 0
        # bounds the IQR below: distance 0
        ([1.0] * 3 + [9.0] * 3, 0),
        # cases where each quartile's bracket of order statistics decides
        ([0.0, 0.0, 1.0, 2.0, 2.0, 9.0, 10.0], 0),
        ([0.0, 1.0, 1.0, 1.0, 5.0, 9.0, 9.0, 10.0, 10.0], 1),
        ([0.3, 2.0, 3.0, 3.0, 9.0, 9.0, 9.0, 9.0], 0),
        ([0.0, 0.0, 1.0, 1.0, 2.0, 2.0, 3.0, 3.0, 5.0] + [9.0] * 5, 0),
        ([0.0, 0.3, 1.0, 2.0, 2.0, 3.0, 5.0, 5.0] + [9.0] * 4 + [10.0] * 2, 0),
        ([0.3, 0.3, 1.0, 1.0, 1.0], 0),
        ([0.0, 0.3, 0.3, 1.0, 3.0, 9.0, 9.0, 10.0, 10.0], 0),
        # the bin [b^j, b^(j+1)) is closed below: an IQR of exactly b^5 stays
        # in it after one change (b = 1 + 1/ln 8)
        ([0.0] * 4 + [B8**5] * 4, 1),
        # and open above: x(8) - x(1) = b^6 after one change leaves it
        ([0.0] * 4 + [1.2 * B8**5] * 3 + [B8**6], 0),
    ],
)
def test_iqr_distance_to_leaving_the_bin(x, distance):
    # released iff distance + noise > ln(1/delta) / epsilon, which is 1 for
    # epsilon = ln 2 and delta = 1/2
    eps = np.log(2.0)
    noise = 1.0 / eps
    assert not np.isnan(_ptr(x, -100, 100, eps, 0.5, (1.0 - distance + 1e-6) / noise))
    assert np.isnan(_ptr(x, -100, 100, eps, 0.5, (1.0 - distance - 1e-6) / noise))


def test_iqr_of_at_most_one_is_released():
    # n = 5: quartiles 2 and 3, IQR 1 in the bin [b^0, b^1)
    base = 1 + 1 / np.log(5)
    value = _ptr([0.3, 2.0, 2.0, 3.0, 10.0], -100, 100, np.log(2.0), 0.5, 10.0)
    assert value == pytest.approx(np.sqrt(base), rel=1e-14)
    value = _ptr([0.0] * 4 + [0.5] * 4, -100, 100, np.log(2.0), 0.5, 10.0)
    assert value == pytest.approx(B8 ** (np.floor(np.log(0.5) / np.log(B8)) + 0.5))


def test_iqr_refuses_below_four_values_and_at_zero_spread():
    rng = scripted(z=(100.0,))
    assert np.isnan(_iqr_ptr(np.array([1.0, 2.0, 3.0]), 0, 10, 1.0, 1e-6, rng))
    assert np.isnan(_iqr_ptr(np.array([1.0, 2, 2, 2, 2, 3]), 0, 10, 1.0, 1e-6, rng))
    assert rng.calls == []
    value = _iqr_ptr(np.array([0.0, 0, 10, 10]), 0, 10, 1.0, 1e-6, rng)
    base = 1 + 1 / np.log(4)
    assert value == pytest.approx(base ** (np.floor(np.log(10) / np.log(base)) + 0.5))


def test_iqr_through_the_public_function_uses_delta_and_epsilon():
    x = [0.0] * 4 + [10.0] * 4
    rng = scripted(z=(1e-9,))
    value = laplace_statistic(x, "iqr", np.log(2.0), (-100, 100), 0.5, rng)
    assert rng.calls == [("laplace", 0.0, 1.0 / np.log(2.0))]
    assert value == pytest.approx((1 + 1 / np.log(8)) ** 5.5, rel=1e-14)
    rng = scripted(z=(1e-9,))
    assert np.isnan(laplace_statistic(x, "iqr", np.log(2.0), (-100, 100), 0.25, rng))


# -- moments merged across blocks ---------------------------------------------
def test_moments_merge_blocks_in_any_order_and_skip_empty_ones():
    stat = _Moments(0.0, 10.0, clip=True)
    a, b = np.array([1.0, 12.0]), np.array([-4.0, 3.0, 5.0])
    empty = stat.block(np.zeros(0), 0)
    assert empty == (0, 0.0, 0.0, 0.0, 0)
    merged = stat.merge([empty, stat.block(a, 0), empty, stat.block(b, 2), empty])
    clamped = np.array([1.0, 10.0, 0.0, 3.0, 5.0])
    n, total, mean, m2, hashed = merged
    assert n == 5 and total == 19.0 and mean == pytest.approx(3.8, rel=1e-15)
    assert m2 == pytest.approx(np.sum((clamped - 3.8) ** 2), rel=1e-14)
    assert hashed == multiset_hash(clamped[::-1])
    assert stat.merge([stat.block(b, 2), stat.block(a, 0)]) == merged
    assert _Moments(0.0, 10.0, clip=False).block(a, 0)[1] == 13.0
    # a first block of one value is merged, not replaced
    one, two = np.array([7.0]), np.array([1.0, 4.0])
    n, total, mean, m2, _ = stat.merge([stat.block(one, 0), stat.block(two, 1)])
    assert (n, total) == (3, 12.0) and mean == pytest.approx(4.0, rel=1e-15)
    assert m2 == pytest.approx(18.0, rel=1e-14)  # 9 + 9 + 0


def test_dask_collections_release_moments_and_refuse_the_rest():
    da = pytest.importorskip("dask.array")
    x = da.from_array(np.array([-3.0, 1.0, 2.0, 10.0, 4.0]), chunks=2)
    rng = scripted(z=(1.0,))
    value = laplace_statistic(x, "var", 0.5, (-2, 4), random_state=rng)
    clamped = np.array([-2.0, 1.0, 2.0, 4.0, 4.0])
    assert rng.calls == [("laplace", 0.0, pytest.approx(36 / 2.5, rel=1e-15))]
    assert value == pytest.approx(clamped.var(ddof=1) + 36 / 2.5, rel=1e-14)
    statistics = "['count', 'sum', 'mean', 'var', 'std']"
    for statistic, sensitivity in (("median", "global"), ("mean", "local")):
        with pytest.raises(
            ValueError,
            match=exact(
                "laplace_statistic of a dask collection supports statistic in "
                f"{statistics} with sensitivity='global' (their moments merge "
                f"across partitions); got statistic={statistic!r}, "
                f"sensitivity={sensitivity!r}. Min, max, median and IQR need the "
                "sorted values."
            ),
        ):
            laplace_statistic(x, statistic, 1.0, (0, 1), sensitivity=sensitivity)
    with pytest.raises(
        ValueError,
        match=exact(
            "bounds must be given for laplace_statistic of a dask collection: "
            "reading them from the data leaks them (and needs another pass)."
        ),
    ):
        laplace_statistic(x, "mean", 1.0)
    with pytest.raises(
        ValueError,
        match=exact("x is empty; a statistic needs at least one value."),
    ):
        laplace_statistic(da.zeros(0, chunks=1), "mean", 1.0, (0, 1))


# -- refusals -----------------------------------------------------------------
@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"statistic": "mode"},
            "statistic must be one of ['count', 'mean', 'std', 'var', 'min', "
            "'median', 'iqr', 'max', 'sum']; got 'mode'.",
        ),
        ({"epsilon": True}, "epsilon must be a finite positive number; got True."),
        ({"epsilon": "1"}, "epsilon must be a finite positive number; got '1'."),
        ({"epsilon": -np.inf}, "epsilon must be a finite positive number; got -inf."),
        ({"delta": True}, "delta must be in (0, 1); got True."),
        ({"delta": "0.1"}, "delta must be in (0, 1); got '0.1'."),
        ({"delta": 1.0}, "delta must be in (0, 1); got 1.0."),
        ({"delta": 0.0}, "delta must be in (0, 1); got 0.0."),
        (
            {"sensitivity": "smooth"},
            "sensitivity must be 'global' or 'local'; got 'smooth'.",
        ),
        ({"x": []}, "x is empty; a statistic needs at least one value."),
    ],
)
def test_refusals_name_the_parameter(kwargs, message):
    args = {"x": [1.0, 2.0], "statistic": "mean", "epsilon": 1.0, "delta": 1e-6}
    args.update(kwargs)
    x, statistic = args.pop("x"), args.pop("statistic")
    with pytest.raises(ValueError, match=exact(message)):
        laplace_statistic(x, statistic, bounds=(0, 1), **args)


def test_delta_just_inside_the_unit_interval_is_accepted():
    for delta in (1e-300, 0.999):
        value, _ = _release([1.0, 2.0], "count", 1.0, (0, 3), z=(0.0,), delta=delta)
        assert value == 2.0


# -- absolute relative error --------------------------------------------------
def test_absolute_relative_error_of_pandas_scalars_and_shapes():
    true = pd.Series([-200, 0, 4], index=["a", "b", "c"])
    out = absolute_relative_error(
        true, pd.Series([-190.0, 0.5, 3.0], index=list("abc"))
    )
    pd.testing.assert_series_equal(
        out, pd.Series([0.05, 0.5, 0.25], index=["a", "b", "c"])
    )
    frame = absolute_relative_error(pd.DataFrame({"s": [-2.0]}), 1.0)
    pd.testing.assert_frame_equal(frame, pd.DataFrame({"s": [1.5]}))
    scalar = absolute_relative_error(-200.0, -190.0)
    assert type(scalar) is np.float64 and scalar == pytest.approx(0.05)
    with pytest.raises(
        ValueError,
        match=exact(
            "true and private must have the same shape (or broadcast); got (3,) "
            "and (2,)."
        ),
    ):
        absolute_relative_error([1.0, 2.0, 3.0], [1.0, 2.0])


# -- laplace_describe ---------------------------------------------------------
def test_describe_of_an_array_and_its_refusals():
    rng = scripted()
    table = laplace_describe(
        np.array([1.0, 2.0, 3.0]), 1.0, (0, 4), ("count", "sum"), random_state=rng
    )
    pd.testing.assert_frame_equal(
        table, pd.DataFrame({"x0": [3.0, 6.0]}, index=["count", "sum"])
    )
    cases = [
        (np.zeros((2, 2, 2)), (0, 1), "df must be a table (2-D); got shape (2, 2, 2)."),
        (
            pd.DataFrame({"a": np.zeros(0)}),
            (0, 1),
            "df has no rows; descriptive statistics need data.",
        ),
        (
            pd.DataFrame({"a": [1.0], "b": [2.0]}),
            {"a": (0, 1), "z": (0, 1)},
            "bounds has entries for ['z'], which are not numeric columns of df "
            "['a', 'b'].",
        ),
        (
            pd.DataFrame({"a": [1.0]}),
            {"a": (1, 0)},
            "bounds['a'] must be finite with lower < upper; got (1, 0).",
        ),
        (
            pd.DataFrame({"a": [1.0]}),
            (1, 0),
            "bounds must be finite with lower < upper; got (1, 0).",
        ),
        (
            pd.DataFrame({"a": [1.0, 2.0, 3.0], "b": [0.0, np.nan, np.inf]}),
            (0, 1),
            "Column 'b' of df has an infinite value at row 2; expected finite numbers.",
        ),
        (
            pd.DataFrame({"a": [0.0, np.inf, -np.inf]}),
            (0, 1),
            "Column 'a' of df has an infinite value at row 1; expected finite numbers.",
        ),
    ]
    for df, bounds, message in cases:
        with pytest.raises(ValueError, match=exact(message)):
            laplace_describe(df, 1.0, bounds, ("count",), random_state=0)


def test_describe_drops_missing_values_and_uses_per_column_bounds():
    df = pd.DataFrame(
        {
            "a": pd.array([1, None, 3], dtype="Int64"),
            "b": [10.0, np.nan, 30.0],
            "c": [0.0, 2.0, 4.0],
        }
    )
    rng = scripted(z=(1.0,) * 9)
    with pytest.warns(PrivacyLeakWarning, match=exact(FROM_DATA)) as record:
        table = laplace_describe(
            df,
            2.0,
            {"a": (0, 2), "b": (0, 40)},
            ("count", "sum", "mean"),
            random_state=rng,
        )
    assert len(record) == 3  # column c, for each statistic
    # a: values 1, 3 clamped to [0, 2]; b: 10, 30 in [0, 40]; c: bounds 0, 4;
    # rows in describe order
    expected = {
        "a": [2 + 0.5, 1.5 + 2 / 4, 3 + 1.0],
        "b": [2 + 0.5, 20 + 40 / 4, 40 + 20.0],
        "c": [3 + 0.5, 2 + 4 / 6, 6 + 2.0],
    }
    pd.testing.assert_frame_equal(
        table, pd.DataFrame(expected, index=["count", "mean", "sum"]), rtol=1e-14
    )
    # every release draws from the one generator given, in order
    assert [c[2] for c in rng.calls] == pytest.approx(
        [0.5, 0.5, 1.0, 0.5, 10.0, 20.0, 0.5, 4 / 6, 2.0], rel=1e-14
    )


def test_describe_passes_delta_and_sensitivity_on():
    df = pd.DataFrame({"a": [0.0] * 4 + [10.0] * 4})
    rng = scripted(z=(1e-9,))
    table = laplace_describe(
        df, np.log(2.0), (-100, 100), ("iqr",), delta=0.5, random_state=rng
    )
    assert table.loc["iqr", "a"] == pytest.approx((1 + 1 / np.log(8)) ** 5.5)
    rng = scripted(z=(1e-9,))
    table = laplace_describe(
        df, np.log(2.0), (-100, 100), ("iqr",), delta=0.25, random_state=rng
    )
    assert np.isnan(table.loc["iqr", "a"])
    rng = scripted(z=(1.0,))
    with pytest.warns(PrivacyLeakWarning, match=exact(LOCAL.format("min"))):
        table = laplace_describe(
            df, 1.0, (-100, 100), ("min",), random_state=rng, sensitivity="local"
        )
    assert rng.calls == [("laplace", 0.0, 0.0)]  # x(2) - x(1) = 0
    assert table.loc["min", "a"] == 0.0


# -- smallest cases of each rule ----------------------------------------------
def test_local_scales_at_the_smallest_sizes_of_each_rule():
    # two values: the gap next to the min; three values: the median's gaps
    for x, statistic, truth, scale in (
        ([1.0, 3.0], "min", 1.0, 2.0 / 2),
        ([1.0, 3.0], "max", 3.0, 2.0 / 2),
        ([1.0, 2.0, 4.0], "median", 2.0, max(2 - 1, 4 - 2) / 2),
    ):
        rng = scripted(z=(1.0,))
        with pytest.warns(PrivacyLeakWarning):
            value = laplace_statistic(
                x, statistic, 2.0, (0, 20), random_state=rng, sensitivity="local"
            )
        assert rng.calls == [("laplace", 0.0, scale)]
        assert value == truth + scale


def test_two_values_have_a_sample_variance():
    value, _ = _release([3.0, 5.0], "var", 1.0, (0, 10), z=(0.0,))
    assert value == 2.0


def test_dask_blocks_are_checked_with_their_global_entry():
    da = pytest.importorskip("dask.array")
    for bad, text in (
        (np.inf, "an infinite value at entry (3,); expected finite numbers."),
        (np.nan, "NaN at entry (3,); expected numbers."),
    ):
        x = da.from_array(np.array([1.0, 2.0, 3.0, bad, 5.0]), chunks=2)
        with pytest.raises(ValueError, match=exact(f"x contains {text}")):
            laplace_statistic(x, "mean", 1.0, (0, 10))


def test_describe_of_an_array_drops_its_missing_values():
    rng = scripted()
    table = laplace_describe(
        np.array([[1.0], [np.nan], [3.0]]), 1.0, (0, 5), ("count",), random_state=rng
    )
    assert table.loc["count", "x0"] == 2.0
    with pytest.raises(
        TypeError,
        match=exact("df must be numeric; entry (0, 1) is a str, not a number."),
    ):
        laplace_describe(np.array([[1, "b"]], dtype=object), 1.0, (0, 1))


def test_more_refusals_name_their_parameter():
    with pytest.raises(
        ValueError, match=exact("bounds must be finite with lower < upper; got (1, 0).")
    ):
        laplace_statistic([1.0], "mean", 1.0, (1, 0))
    for statistic in ("median", "iqr", "min"):
        with pytest.raises(
            ValueError,
            match=exact(
                "x contains an infinite value at entry (1,); expected finite numbers."
            ),
        ):
            laplace_statistic([1.0, np.inf], statistic, 1.0, (0, 1))
    for args, name in ((["a"], [1.0]), "true"), (([1.0], ["b"]), "private"):
        with pytest.raises(
            TypeError,
            match=exact(f"{name} must be numeric; entry (0,) is a str, not a number."),
        ):
            absolute_relative_error(*args)
    np.testing.assert_array_equal(
        absolute_relative_error([np.nan, 1.0], [1.0, 1.0]), [np.nan, 0.0]
    )
    with (
        pytest.warns(
            UserWarning,
            match=exact("laplace_describe skips non-numeric columns ['c']."),
        ),
        pytest.raises(
            ValueError,
            match=exact(
                "laplace_describe needs at least one numeric column in df; got none."
            ),
        ),
    ):
        laplace_describe(pd.DataFrame({"c": ["z"]}), 1.0, (0, 1))


def test_a_sum_of_zero_is_not_an_empty_sample():
    value, _ = _release([-1.0, 1.0], "mean", 1.0, (-1, 1), z=(0.0,))
    assert value == 0.0


def test_describe_without_bounds_takes_them_from_each_column():
    rng = scripted(z=(1.0,))
    with pytest.warns(PrivacyLeakWarning, match=exact(FROM_DATA)):
        table = laplace_describe(
            pd.DataFrame({"a": [-3.0, 5.0]}), 2.0, None, ("sum",), random_state=rng
        )
    assert rng.calls == [("laplace", 0.0, 4.0)]
    assert table.loc["sum", "a"] == 2.0 + 4.0


def test_local_variance_of_one_value_is_missing():
    rng = scripted()
    with pytest.warns(PrivacyLeakWarning):
        value = laplace_statistic(
            [3.0], "var", 2.0, (-4, 16), random_state=rng, sensitivity="local"
        )
    assert np.isnan(value)
    # the noisy min and max of one value use the range: (16 - (-4)) / 2
    assert [c[2] for c in rng.calls[:2]] == [10.0, 10.0]


# -- the values each helper reads are clamped -----------------------------------
@pytest.mark.filterwarnings("error")
def test_the_quantile_clamps_the_values_it_is_given():
    # -5 and 30 read as 0 and 10 on [0, 10]: intervals [0, 0], [0, 2], [2, 10],
    # [10, 10] of utility -|i - 1.5|
    rng = scripted(picks=(2,), uniforms=(0.5,))
    value = _dp_quantile(np.array([-5.0, 2.0, 30.0]), 0.5, 1.0, 0.0, 10.0, rng)
    (_, a, p), _ = rng.calls
    weights = np.array([0.0, 2.0, 8.0, 0.0]) * np.exp(
        -0.5 * np.array([1.5, 0.5, 0.5, 1.5])
    )
    assert a == 4
    np.testing.assert_allclose(p, weights / weights.sum(), rtol=1e-13, atol=0)
    assert value == 6.0


def test_the_true_sum_and_mean_are_those_of_the_clamped_values():
    # as a dask block's moments: -5 and 30 count as 0 and 10 on [0, 10]
    x = np.array([-5.0, 2.0, 30.0])
    assert _true_value(x, "sum", 0.0, 10.0) == 12.0
    assert _true_value(x, "mean", 0.0, 10.0) == 4.0
    assert _true_value(x, "count", 0.0, 10.0) == 3.0
    assert _true_value(np.array([-5.0, 12.0]), "sum", -2.0, 4.0) == 2.0


# -- absolute_relative_error of a pandas truth and another private value --------
def test_a_pandas_truth_names_the_private_values_it_refuses():
    true = pd.Series([2.0, 4.0])
    for private, message in (
        (
            pd.Series(["b", "c"], dtype=object),
            "private must be numeric; got dtype object; row 0 holds a str that "
            "is not a number.",
        ),
        (["b", 1.0], "private must be numeric; entry (0,) is a str, not a number."),
    ):
        with pytest.raises(TypeError, match=exact(message)):
            absolute_relative_error(true, private)
    # a missing private value (no answer) gives NaN, as with arrays
    pd.testing.assert_series_equal(
        absolute_relative_error(true, [np.nan, 3.0]), pd.Series([np.nan, 0.25])
    )
    pd.testing.assert_series_equal(
        absolute_relative_error(true, pd.Series([np.nan, 3.0])),
        pd.Series([np.nan, 0.25]),
    )


# -- laplace_describe: column kinds and the seed --------------------------------
def test_describe_reads_a_sparse_integer_column_as_its_values():
    dense = pd.DataFrame({"a": [1, 0, 2]})
    sparse = pd.DataFrame({"a": pd.arrays.SparseArray([1, 0, 2])})
    tables = [
        laplace_describe(df, 1.0, (0, 4), ("count", "sum"), random_state=scripted())
        for df in (dense, sparse)
    ]
    expected = pd.DataFrame({"a": [3.0, 3.0]}, index=["count", "sum"])
    for table in tables:
        pd.testing.assert_frame_equal(table, expected)


def test_a_negative_seed_is_refused_where_a_column_is_released():
    message = "random_state must be a non-negative int (a seed); got -1."
    with pytest.raises(ValueError, match=exact(message)):
        laplace_statistic([1.0, 2.0], "sum", 1.0, (0, 1), random_state=-1)
    with pytest.raises(ValueError, match=exact(message)):
        laplace_describe(pd.DataFrame({"a": [1.0, 2.0]}), 1.0, (0, 1), random_state=-1)
    # each column's seed is made (and the int checked) as the column is
    # released: a refusal of that column's values comes first
    with pytest.raises(
        ValueError,
        match=exact(
            "Column 'a' of df has an infinite value at row 1; expected finite numbers."
        ),
    ):
        laplace_describe(
            pd.DataFrame({"a": [1.0, np.inf]}), 1.0, (0, 1), random_state=-1
        )


# -- an int seed: mixed with the settings and what is released ------------------
BIG = 2**64  # every 64-bit word of a seed enters: seed + BIG is another seed


def _seed_words(seed):
    """A seed's 64-bit words, least significant first (one below 2**64)."""
    found = [seed % 2**64]
    while seed >= 2**64:
        seed >>= 64
        found.append(seed % 2**64)
    return found


def _mixed(seed, settings, data):
    """The generator of a release seeded with ``seed``."""
    entropy = [
        *_seed_words(seed),
        *words(data_fingerprint((canonical(settings), data))),
    ]
    return np.random.default_rng(np.random.SeedSequence(entropy))


def test_a_local_release_draws_from_the_seed_mixed_with_its_settings_and_values():
    x = [3.0, 1.0, 12.0, 5.0]  # sorted and clamped into [0, 10]: 1, 3, 5, 10
    xs = np.array([1.0, 3.0, 5.0, 10.0])
    for statistic, truth, scale in (("min", 1.0, 1.0), ("max", 10.0, 2.5)):
        settings = (statistic, 2.0, 0.0, 10.0, 1e-6, "local")
        got = []
        for seed in (7, BIG + 7):
            expected = truth + _mixed(seed, settings, xs).laplace(0.0, scale)
            with pytest.warns(PrivacyLeakWarning):
                value = laplace_statistic(
                    x, statistic, 2.0, (0, 10), random_state=seed, sensitivity="local"
                )
            assert value == expected
            got.append(value)
        assert got[0] != got[1]


def test_a_quantile_draws_from_the_seed_mixed_with_its_settings_and_values():
    x = [3.0, 1.0, 12.0, 5.0]
    xs = np.array([1.0, 3.0, 5.0, 10.0])
    for statistic, q in (("median", 0.5), ("min", 0.0)):
        settings = (statistic, 2.0, 0.0, 10.0, 1e-6, "global")
        got = []
        for seed in (11, BIG + 11):
            expected = _dp_quantile(xs, q, 2.0, 0.0, 10.0, _mixed(seed, settings, xs))
            value = laplace_statistic(x, statistic, 2.0, (0, 10), random_state=seed)
            assert value == expected
            got.append(value)
        assert got[0] != got[1]


def test_the_iqr_test_draws_from_the_seed_mixed_with_its_settings_and_values():
    # distance 1 and threshold 1 (see above): released iff the noise is > 0
    xs = np.array([0.0] * 4 + [10.0] * 4)
    settings = ("iqr", np.log(2.0), -100.0, 100.0, 0.5, "global")
    expected = [
        _iqr_ptr(xs, -100.0, 100.0, np.log(2.0), 0.5, _mixed(s, settings, xs))
        for s in range(16)
    ]
    got = [
        laplace_statistic(xs, "iqr", np.log(2.0), (-100, 100), 0.5, s)
        for s in range(16)
    ]
    np.testing.assert_equal(got, expected)
    assert 0 < np.isnan(got).sum() < 16  # both outcomes occur


def test_a_moment_draws_from_the_seed_mixed_with_its_settings_and_moments():
    x = [3.0, 1.0, 12.0, 5.0, -4.0]  # clamped into [0, 10]: 0, 1, 3, 5, 10
    xs = np.array([0.0, 1.0, 3.0, 5.0, 10.0])
    n, total = 5, 19.0
    m2 = float(np.sum((xs - total / n) ** 2))
    moments = (5, multiset_hash(xs))
    for statistic, truth, scale in (
        ("sum", total, 10.0 / 2.0),
        ("var", m2 / 4, 100.0 / (5 * 2.0)),
    ):
        settings = (statistic, 2.0, 0.0, 10.0, 1e-6, "global")
        got = []
        for seed in (3, BIG + 3):
            expected = truth + _mixed(seed, settings, moments).laplace(0.0, scale)
            value = laplace_statistic(x, statistic, 2.0, (0, 10), random_state=seed)
            assert value == pytest.approx(expected, rel=1e-15, abs=0)
            got.append(value)
        assert got[0] != got[1]


def test_a_column_seed_mixes_the_seed_with_the_column_name():
    for name in ("a", 3):
        for seed in (5, BIG + 5, 7 * BIG**2 + 5):
            entropy = [*_seed_words(seed), *words(data_fingerprint(str(name)))]
            state = np.random.SeedSequence(entropy)
            assert _column_seed(seed, name) == int(
                state.generate_state(1, np.uint64)[0]
            )
        assert _column_seed(5, name) != _column_seed(BIG + 5, name)
    assert _column_seed(5, "a") != _column_seed(5, "b")
    # a 64-bit seed: some column's seed is beyond 32 bits
    assert max(_column_seed(5, name) for name in "abcd") >= 2**32


@pytest.mark.parametrize("statistic", ["sum", "mean", "var"])
def test_a_seeded_release_does_not_depend_on_the_order_of_the_records(statistic):
    # the moments are those of the sorted values: another order of the same
    # records (whose float sums differ in the last bits) gives the same release
    rng = np.random.default_rng(0)
    x = rng.uniform(0, 100, 50)
    shuffled = x[rng.permutation(50)]
    same = [
        laplace_statistic(v, statistic, 1.0, (0, 100), random_state=9)
        for v in (x, shuffled)
    ]
    assert same[0] == same[1]


def test_a_seeded_moment_draws_other_noise_for_a_batch_one_value_apart():
    """Batches with sums equal in single precision still get other noise.

    The seed read the sums rounded to single precision: two batches of
    100,000 rows one value 0.01 apart drew the same noise, so the difference
    of their releases was the exact difference of their sums.
    """
    x = np.random.default_rng(0).uniform(0, 100, 100_000)
    y = x.copy()
    y[0] += 0.01 if x[0] < 99 else -0.01
    assert np.float32(x.sum()) == np.float32(y.sum())
    for statistic in ("sum", "mean", "var"):
        a = laplace_statistic(x, statistic, 1.0, (0, 100), random_state=0)
        b = laplace_statistic(y, statistic, 1.0, (0, 100), random_state=0)
        true = laplace_statistic(x, statistic, 1e300, (0, 100), random_state=0)
        other = laplace_statistic(y, statistic, 1e300, (0, 100), random_state=0)
        # the same noise would leave the two differences equal to rounding
        assert abs((a - b) - (true - other)) > 1e-8


def test_a_seeded_moment_is_the_same_for_a_permuted_or_partitioned_batch():
    da = pytest.importorskip("dask.array")
    x = np.random.default_rng(1).uniform(0, 10, 1000)
    value = laplace_statistic(x, "mean", 1.0, (0, 10), random_state=4)
    shuffled = np.random.default_rng(2).permutation(x)
    assert laplace_statistic(shuffled, "mean", 1.0, (0, 10), random_state=4) == value
    lazy = da.from_array(shuffled, chunks=137)
    assert laplace_statistic(lazy, "mean", 1.0, (0, 10), random_state=4) == (
        pytest.approx(value, rel=1e-12, abs=0)
    )


def test_integral_statistics_seed_other_resamples_for_another_batch(monkeypatch):
    """An int seed is mixed with the table: a batch of the same size is
    resampled by other index sets, and the same table by the same ones."""
    from skprivate.integral import _statistics

    seeds = []
    real = _statistics.integral_private_column

    def recording(col, statistics, n_resamples, decimals, k, seed, *args, **kw):
        seeds.append(seed)
        return real(col, statistics, n_resamples, decimals, k, seed, *args, **kw)

    monkeypatch.setattr(_statistics, "integral_private_column", recording)
    rng = np.random.default_rng(0)
    a, b = rng.normal(10, 2, (60, 1)), rng.normal(10, 2, (60, 1))
    kwargs = {"statistics": ("mean",), "n_resamples": 20, "random_state": 5}
    for X in (a, b, a):
        IntegralPrivateStatistics(**kwargs).fit(X)
    assert seeds[0] != seeds[1] and seeds[0] == seeds[2]
    IntegralPrivateStatistics(**{**kwargs, "n_resamples": 21}).fit(a)
    assert seeds[3] != seeds[0]  # the settings enter too
