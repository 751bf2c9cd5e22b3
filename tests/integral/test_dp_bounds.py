"""The DP baselines read the values clamped into their bounds, and only those.

Every statistic of :func:`laplace_statistic` (and so of
:func:`laplace_describe`), with either sensitivity, must give with a fixed
seed exactly what it gives on the data clamped beforehand: the IQR and its
propose-test-release distance included.  Bounds read from data holding a
single value (a constant column) are widened by 0.5 on each side, as the
privatizers widen them, so that every statistic is defined there.
"""

from __future__ import annotations

import warnings

import numpy as np
import pandas as pd
import pytest

from skprivate.exceptions import PrivacyLeakWarning
from skprivate.integral import laplace_describe, laplace_statistic
from tests._scripted_generator import ScriptedGenerator

STATISTICS = ("count", "mean", "std", "var", "min", "median", "iqr", "max", "sum")


class Recorder(ScriptedGenerator):
    """Records the laws drawn from; Laplace draws ``loc + scale * z``.

    A scripted generator: ``tests/integral/conftest.py`` makes it the
    release's generator itself.
    """

    def script(self, z=()):
        self.z, self.calls = list(z), []
        return self

    def laplace(self, loc=0.0, scale=1.0, size=None):
        self.calls.append(("laplace", loc, scale))
        return loc + scale * (self.z.pop(0) if self.z else 0.0)

    def choice(self, a, size=None, replace=True, p=None, axis=0, shuffle=True):
        self.calls.append(("choice", a, np.asarray(p)))
        return int(np.argmax(p))

    def random(self, size=None, dtype=np.float64, out=None):
        self.calls.append(("random",))
        return 0.5


def recorder(z=()):
    return Recorder(np.random.PCG64(0)).script(z)


def _quiet(call):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", PrivacyLeakWarning)
        return call()


# -- bug: the IQR read the unclamped values -----------------------------------
def test_iqr_of_data_above_the_upper_bound_is_zero_so_it_is_refused():
    rng = recorder(z=(100.0,))
    value = laplace_statistic([5.0, 6.0, 7.0, 8.0, 9.0], "iqr", 1.0, (0, 1), 0.5, rng)
    # all values clamp to 1: an IQR of 0, refused before any noise is drawn
    assert np.isnan(value)
    assert rng.calls == []


def test_iqr_of_the_report_example_is_that_of_the_clamped_data():
    x = np.random.default_rng(0).uniform(1000, 2000, 500)
    got = laplace_statistic(x, "iqr", 1.0, bounds=(0, 1), random_state=0)
    same = laplace_statistic(np.clip(x, 0, 1), "iqr", 1.0, (0, 1), random_state=0)
    np.testing.assert_equal(got, same)
    # no IQR on [0, 1] exceeds 1; this one is 0, refused before any noise
    rng = recorder(z=(100.0,))
    assert np.isnan(laplace_statistic(x, "iqr", 1.0, (0, 1), random_state=rng))
    assert rng.calls == []
    mean = laplace_statistic(x, "mean", 1.0, bounds=(0, 1), random_state=0)
    assert abs(mean - 1.0) < 0.05


def test_iqr_release_and_distance_read_the_clamped_values():
    # n = 8, base b = 1 + 1/ln 8; eps = ln 2 and delta = 1/2 put the test's
    # threshold at 1.  Clamped into [-100, 10], [0]*4 + [10]*3 + [1000] is
    # [0]*4 + [10]*4: IQR 10 in [b^5, b^6), and one change keeps both
    # quartiles in the bin (distance 1).  Unclamped, 1000 lets one change
    # push the IQR to 1000 (distance 0) and the release is refused.
    base = 1.0 + 1.0 / np.log(8)
    x = [0.0] * 4 + [10.0] * 3 + [1000.0]
    rng = recorder(z=(1e-9,))
    value = laplace_statistic(x, "iqr", np.log(2.0), (-100, 10), 0.5, rng)
    assert rng.calls == [("laplace", 0.0, 1.0 / np.log(2.0))]
    assert value == pytest.approx(base**5.5, rel=1e-14)
    # an IQR beyond the bounds: [0]*4 + [50]*4 clamps to [0]*4 + [10]*4
    rng = recorder(z=(1e-9,))
    value = laplace_statistic(
        [0.0] * 4 + [50.0] * 4, "iqr", np.log(2), (-100, 10), 0.5, rng
    )
    assert value == pytest.approx(base**5.5, rel=1e-14)


# -- every statistic, both sensitivities, and laplace_describe ----------------
@pytest.mark.parametrize("sensitivity", ["global", "local"])
@pytest.mark.parametrize("statistic", STATISTICS)
def test_every_statistic_equals_its_value_on_the_clamped_data(statistic, sensitivity):
    x = np.random.default_rng(3).normal(5.0, 4.0, 60)
    assert (x < 0).sum() > 3 and (x > 10).sum() > 3
    got, same = (
        _quiet(
            lambda v=v: laplace_statistic(
                v, statistic, 2.0, (0, 10), random_state=7, sensitivity=sensitivity
            )
        )
        for v in (x, np.clip(x, 0, 10))
    )
    np.testing.assert_equal(got, same)


def test_local_order_statistics_and_spread_read_the_clamped_values():
    # sorted and clamped into [2, 8]: 2, 2, 4, 7, 8
    x = [11.0, 1.0, 4.0, 7.0, 0.0]
    for statistic, truth, scale in (
        ("min", 2.0, 0.0),  # x(2) - x(1)
        ("max", 8.0, 1.0 / 2),  # x(5) - x(4)
        ("median", 4.0, 3.0 / 2),  # max(4 - 2, 7 - 4)
    ):
        rng = recorder(z=(1.0,))
        value = _quiet(
            lambda s=statistic, r=rng: laplace_statistic(
                x, s, 2.0, (2, 8), random_state=r, sensitivity="local"
            )
        )
        assert rng.calls == [("laplace", 0.0, scale)]
        assert value == truth + scale
    rng = recorder(z=(0.0, 0.0, 1.0))
    value = _quiet(
        lambda: laplace_statistic(
            x, "var", 2.0, (2, 8), random_state=rng, sensitivity="local"
        )
    )
    clamped = np.array([2.0, 2.0, 4.0, 7.0, 8.0])
    assert rng.calls[2] == ("laplace", 0.0, pytest.approx(6.0**2 / 10, rel=1e-15))
    assert value == pytest.approx(clamped.var(ddof=1) + 3.6, rel=1e-14)


@pytest.mark.parametrize("sensitivity", ["global", "local"])
def test_describe_equals_the_describe_of_the_clamped_frame(sensitivity):
    rng = np.random.default_rng(5)
    df = pd.DataFrame({"a": rng.normal(5, 4, 40), "b": rng.normal(0, 30, 40)})
    bounds = {"a": (0, 10), "b": (-20, 20)}
    clamped = pd.DataFrame({k: df[k].clip(*bounds[k]) for k in df})
    assert not clamped.equals(df)
    got, same = (
        _quiet(
            lambda d=d: laplace_describe(
                d, 2.0, bounds, random_state=11, sensitivity=sensitivity
            )
        )
        for d in (df, clamped)
    )
    pd.testing.assert_frame_equal(got, same, check_exact=True)


# -- bounds read from a single value ------------------------------------------
@pytest.mark.parametrize("sensitivity", ["global", "local"])
@pytest.mark.parametrize("statistic", STATISTICS)
@pytest.mark.parametrize("x", [[5.0, 5.0, 5.0], [5.0], [-2.0] * 6])
def test_a_single_value_gets_bounds_half_a_unit_either_side(x, statistic, sensitivity):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        got = laplace_statistic(
            x, statistic, 1.0, random_state=3, sensitivity=sensitivity
        )
    assert any("bounds were taken from the data" in str(w.message) for w in caught)
    v = x[0]
    same = _quiet(
        lambda: laplace_statistic(
            x,
            statistic,
            1.0,
            (v - 0.5, v + 0.5),
            random_state=3,
            sensitivity=sensitivity,
        )
    )
    np.testing.assert_equal(got, same)
    if statistic not in ("iqr", "var", "std"):
        assert np.isfinite(got)


def test_a_constant_median_draws_from_the_two_widened_ends():
    rng = recorder()
    value = _quiet(
        lambda: laplace_statistic([5.0] * 3, "median", 1.0, random_state=rng)
    )
    (kind, a, p), draw = rng.calls
    assert kind == "choice" and a == 4 and draw == ("random",)
    # intervals [4.5, 5], [5, 5], [5, 5], [5, 5.5] of utility -|i - 1.5|
    np.testing.assert_allclose(p, [0.5, 0.0, 0.0, 0.5], rtol=1e-15, atol=0)
    assert value == 4.75


def test_a_value_too_large_for_half_a_unit_is_widened_by_one_step():
    c = 1e17  # c - 0.5 and c + 0.5 round back to c
    x = [c, c, c]
    got = _quiet(lambda: laplace_statistic(x, "median", 1.0, random_state=0))
    lo, hi = np.nextafter(c, -np.inf), np.nextafter(c, np.inf)
    same = laplace_statistic(x, "median", 1.0, (lo, hi), random_state=0)
    assert got == same and lo <= got <= hi


def test_describe_of_a_frame_with_a_constant_column():
    df = pd.DataFrame({"a": np.arange(6.0), "flag": [1.0] * 6})
    with pytest.warns(PrivacyLeakWarning):
        got = laplace_describe(df, 1.0, random_state=4)
    assert got.notna().drop(index="iqr").all().all()
    same = _quiet(
        lambda: laplace_describe(
            df, 1.0, {"a": (0.0, 5.0), "flag": (0.5, 1.5)}, random_state=4
        )
    )
    pd.testing.assert_frame_equal(got, same, check_exact=True)
